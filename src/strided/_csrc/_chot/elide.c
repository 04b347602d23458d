/* strided._csrc._chot, elide.c: temporary elision.
 *
 * In front of: strided/_api/elementwise.py's ``_elide`` (the Python half that checks the
 * buffer and runs the kernel into it); as NumPy keeps numpy/_core/src/multiarray/temp_elide.c
 * apart. Decided here, for operators and namespace functions alike, and only with a proof.
 */
#include "chot.h"

/* --- temporary elision ------------------------------------------------------------------
 * ``x op y`` where x is a temporary -- ``a * b + c``, ``add(multiply(a, b), c)`` -- may
 * write the result into x's buffer instead of a fresh one (NumPy does the same for its
 * own arrays: numpy/_core/src/multiarray/temp_elide.c). It is correct only when nobody
 * else can see x: an optimisation may not change any array the user holds
 * (docs/reliability.md, "A fast path is the reference, faster").
 *
 * A reference count of 1 is not that proof. A vectorcall's arguments are borrowed: in
 * ``add(*args)``, ``partial(add, t)(c)``, ``starmap(add, pairs)`` the one reference is
 * a tuple the user still holds, and NumPy's object loop (``o + 1.0`` on an object array)
 * calls ``PyNumber_Add`` on an item the array holds. The proof is: the call comes
 * straight from the interpreter's own instruction -- BINARY_OP (``nb_add`` ...),
 * COMPARE_OP, or CALL -- whose operands are its value stack's own references, and the
 * count is 1. Then the stack is the only holder, and it drops x when the instruction
 * ends.
 *
 * "Straight from the interpreter" is checked on the C stack, as NumPy does, but more
 * strictly. NumPy accepts any chain of CPython and NumPy frames up to the interpreter
 * loop (``operator.add(*args)`` passes that). Here the chain of return addresses, from
 * the check up to the first frame of ``_PyEval_EvalFrameDefault``, must equal, address
 * for address, a chain recorded at import from calls known to come from those
 * instructions (``calibrate``: ``t() + c``, ``1 - t()``, ``add(t(), c)``, ... for every
 * operator): the same call instruction at every level passes the interpreter's stack
 * operands through unchanged. Then ``calibrate`` runs the known borrowing calls (those
 * above) and, should any of them pass on this build, turns elision off altogether.
 * Where no chain can be recorded (no backtrace(), another interpreter loop, a JIT),
 * elision is off: correct, a little slower.
 *
 * Also required: an exact Array that no weak reference points to, with no Storage yet
 * (a fresh kernel result), no extension on either operand (autograd needs the inputs
 * in its graph, names need their handler), and at least _ELIDE_BYTES (below that a
 * fresh buffer costs less than the check, ~1 us). _elementwise._elide then checks the
 * buffer itself (owned, unshared, contiguous, of the result's dtype and shape) and runs
 * the kernel into it.
 *
 * The count means "one holder" only where the interpreter's stack holds a strong
 * reference per slot: CPython 3.10 to 3.13 with the GIL. 3.14's stack may borrow (a
 * count of 1 can be a local variable's) and free-threaded counts are split: no elision
 * there.
 */
#if defined(__has_include)
#if __has_include(<execinfo.h>) && __has_include(<dlfcn.h>)
#define HAVE_CHAIN 1
#endif
#endif
#if PY_VERSION_HEX >= 0x030E0000 || defined(Py_GIL_DISABLED)
#undef HAVE_CHAIN
#endif
#ifdef HAVE_CHAIN
#include <dlfcn.h>
#include <execinfo.h>
#endif

#define CHAIN_DEPTH 12  /* return addresses looked at */
#define CHAIN_KINDS 128 /* distinct chains recorded */

int elide_mode = ELIDE_OFF;
static const char *elide_why = "not calibrated";
static PyThreadState *calib_tstate; /* the thread running calibrate() */
int calib_depth;             /* its Fast calls in progress (only depth 0 counts) */
static int probes_passed;           /* borrowing calls the check let through */
static Py_ssize_t elided_in_c;      /* calls elided by the compiled loop (elided_calls) */
static int chain_count, chain_overflow, chain_longest;
static struct {
    int n;
    void *pc[CHAIN_DEPTH];
} chains[CHAIN_KINDS];

/* Whether this call came straight from the interpreter (a recorded chain); while
   recording, records the chain instead and answers 0. The chain starts above this
   module's own two frames (try_elide, into which this function is inlined, and
   fast_vectorcall, fast.c: the compiler may duplicate their call sites, so their return
   addresses are not compared): with the caller of the Fast's vectorcall. */
#define OWN_FRAMES 2

#ifdef HAVE_CHAIN
/* What dladdr() says of a return address, while recording: 1 in this module, 2 in the
   interpreter loop, 0 elsewhere, -1 unknown. dladdr scans a library's symbol table
   (~100k instructions), so each address is asked once. */
#define PLACES 256
static struct {
    void *pc;
    int where;
} places[PLACES];
static int n_places;

static int
place_of(void *pc)
{
    for (int i = 0; i < n_places; i++)
        if (places[i].pc == pc)
            return places[i].where;
    Dl_info own, info;
    int where = -1;
    if (dladdr((void *)place_of, &own) && dladdr(pc, &info))
        where = info.dli_fbase == own.dli_fbase ? 1
                : info.dli_sname != NULL && strcmp(info.dli_sname, "_PyEval_EvalFrameDefault") == 0 ? 2
                : 0;
    if (n_places < PLACES) {
        places[n_places].pc = pc;
        places[n_places++].where = where;
    }
    return where;
}
#endif

static inline __attribute__((always_inline)) int
from_interpreter(void)
{
#ifdef HAVE_CHAIN
    /* Unwinding costs about a microsecond for a few frames: only as deep as the longest
       recorded chain (while recording, CHAIN_DEPTH). */
    void *pc[OWN_FRAMES + CHAIN_DEPTH];
    int n = backtrace(pc, OWN_FRAMES + (elide_mode == ELIDE_RECORD ? CHAIN_DEPTH : chain_longest))
            - OWN_FRAMES;
    if (n <= 0)
        return 0;
    if (elide_mode == ELIDE_RECORD) {
        for (int i = 0; i <= OWN_FRAMES; i++) /* ours, then not ours: else no sample */
            if ((place_of(pc[i]) == 1) != (i < OWN_FRAMES))
                return 0;
        for (int i = 0; i < n; i++) {
            int where = place_of(pc[OWN_FRAMES + i]);
            if (where < 0)
                return 0;
            if (where != 2)
                continue;
            for (int k = 0; k < chain_count; k++)
                if (chains[k].n == i + 1
                    && memcmp(chains[k].pc, pc + OWN_FRAMES, (i + 1) * sizeof(void *)) == 0)
                    return 0;
            if (chain_count == CHAIN_KINDS) {
                chain_overflow = 1;
                return 0;
            }
            chains[chain_count].n = i + 1;
            memcpy(chains[chain_count].pc, pc + OWN_FRAMES, (i + 1) * sizeof(void *));
            chain_count++;
            if (i + 1 > chain_longest)
                chain_longest = i + 1;
            return 0;
        }
        return 0;
    }
    for (int k = 0; k < chain_count; k++)
        if (chains[k].n <= n && memcmp(chains[k].pc, pc + OWN_FRAMES, chains[k].n * sizeof(void *)) == 0)
            return 1;
#endif
    return 0;
}

/* No weak reference points to x. The list's address is x plus the type's offset, as in
   CPython's _PyObject_GET_WEAKREFS_LISTPTR: positive for a __weakref__ slot (3.11), negative
   from 3.12 on, where a class's __weakref__ lives in the object's pre-header
   (Py_TPFLAGS_MANAGED_WEAKREF). Offset 0: the type has no weak references at all. */
static inline int
no_weakrefs(PyObject *x)
{
    Py_ssize_t off = Py_TYPE(x)->tp_weaklistoffset;
    return off != 0 && *(PyObject **)((char *)x + off) == NULL;
}

/* A binary call whose temporary operand lends its buffer: the result (f->elide(x1, x2,
   tmp), the Python half: _elementwise._elide), or NULL, with an error set only for one
   that must propagate. args: the call's two arguments, in the call's order. */
__attribute__((noinline)) PyObject *
try_elide(Fast *f, PyObject *const *args)
{
    PyObject *x1 = args[f->swap], *x2 = args[!f->swap], *tmp = NULL;
    if (!plain(x1) || !plain(x2))
        return NULL;
    for (int i = 0; i < 2 && tmp == NULL; i++) {
        PyObject *x = args[i];
        if (Py_TYPE(x) == Array_T && Py_REFCNT(x) == 1 && SLOT(x, O_st) == Py_None && no_weakrefs(x)
            && (CALIBRATING || nbytes_of(x) >= elide_bytes))
            tmp = x;
    }
    if (tmp == NULL)
        return NULL;
    if (CALIBRATING && (PyThreadState_Get() != calib_tstate || calib_depth != 0))
        return NULL; /* only calibrate()'s own calls are its samples */
    int ok = from_interpreter(); /* the one call */
    if (elide_mode != ELIDE_ON) {
        probes_passed += ok && elide_mode == ELIDE_PROBE;
        return NULL;
    }
    if (!ok)
        return NULL;
    /* the compiled loop into tmp's buffer where it qualifies (fast.c); else the Python half */
    PyObject *r = fast_binary_into(f, x1, x2, tmp);
    if (r != NULL)
        elided_in_c++;
    if (r != NULL || PyErr_Occurred())
        return r;
    PyObject *tok = quiet_enter();
    r = tok == NULL ? NULL : quiet_exit(tok, PyObject_CallFunctionObjArgs(f->elide, x1, x2, tmp, NULL));
    if (r == Py_None) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

PyObject *
calibrate(PyObject *mod, PyObject *args)
{
    PyObject *genuine, *borrowing;
    if (!PyArg_ParseTuple(args, "OO:calibrate", &genuine, &borrowing))
        return NULL;
    elide_mode = ELIDE_OFF;
    chain_count = chain_overflow = chain_longest = probes_passed = calib_depth = 0;
#ifndef HAVE_CHAIN
    elide_why = "off: no C call-chain check on this platform or Python (3.10-3.13 with the GIL, "
                "backtrace())";
#else
    if (!ready) {
        elide_why = "off: setup() first";
        return elision_state(mod, NULL);
    }
    void *pc[2];
    backtrace(pc, 2); /* loads the unwinder now, not on the first large operation */
    calib_tstate = PyThreadState_Get();
    elide_mode = ELIDE_RECORD;
    PyObject *r = PyObject_CallNoArgs(genuine);
    if (r != NULL) {
        Py_DECREF(r);
        elide_mode = ELIDE_PROBE;
        r = PyObject_CallNoArgs(borrowing);
    }
    elide_mode = ELIDE_OFF;
    calib_tstate = NULL;
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    if (chain_count == 0)
        elide_why = "off: no call chain from the interpreter's loop could be recorded";
    else if (chain_overflow)
        elide_why = "off: more call chains than recorded";
    else if (probes_passed)
        elide_why = "off: the check could not tell a borrowing call from the interpreter's on this build";
    else {
        elide_why = "on";
        elide_mode = ELIDE_ON;
    }
#endif
    return elision_state(mod, NULL);
}

/* elided_calls(): how many calls were elided by the compiled loop (fast_binary_into) since
   import; the others that elide run the Python half (a statistic, for the tests). */
PyObject *
elided_calls(PyObject *mod, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromSsize_t(elided_in_c);
}

/* elision_state(): (on, chains recorded, why) */
PyObject *
elision_state(PyObject *mod, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(Ois)", elide_mode == ELIDE_ON ? Py_True : Py_False, chain_count, elide_why);
}
