/* strided/_csrc/_chot/chot.h: what the sources of strided._csrc._chot share.
 *
 * One extension of several sources (module.c lists them). contract.h says what the C code
 * reads from Python objects and how it checks it; this header adds what the sources share
 * among themselves: the state setup() fills (defined in module.c, loops.c, elide.c,
 * views.c; declared here), the layouts they all read (an ndarray's public fields, NumPy's
 * call-info capsule, a Fast), the small readers every entry point inlines, and the
 * functions one source calls in another. Nothing here is visible outside the extension
 * (hidden visibility): the module's only export is PyInit__chot.
 */
#ifndef STRIDED_CHOT_H
#define STRIDED_CHOT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <fenv.h>
#include <math.h>
#include <string.h>

#pragma GCC visibility push(hidden)

/* contract.h's state (the classes, the slot offsets) shared by every source: declared
   extern here, defined in module.c (CONTRACT_DEFINE). */
#define CONTRACT_EXTERN 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../contract.h"
#pragma GCC diagnostic pop

/* --- the state setup() is told once (module.c; loops.c: the loops'; elide.c: its mode) -- */
extern PyTypeObject *ND_T;      /* numpy.ndarray */
extern PyObject *nat_fn;        /* _elementwise._nat(x): builds and caches x._np */
extern PyObject *big_list;      /* _pool.MIN_BYTES: [bytes], the pooled-buffer threshold */
extern Py_ssize_t elide_bytes;  /* _elementwise._ELIDE_BYTES */
extern PyObject *errstate_var;  /* NumPy's ufunc error-state context variable */
extern PyObject *errstate_ignore; /* its value under np.errstate(all="ignore") */
extern PyObject *ignore_ctx;    /* a Context holding just that value */
extern int ready;               /* setup() done */
extern int views_ready;         /* setup_array() done */
extern PyTypeObject *UF_T;      /* numpy.ufunc (loops.c) */
extern PyObject *np_empty;      /* numpy.empty (loops.c) */
extern PyObject *pool_empty;    /* _pool.empty(shape, dtype, nbytes), or NULL: setup_large() not called */
extern PyObject *thread_min_list; /* threads._THREAD_MIN: [bytes], the smallest result split */
extern PyObject *num_threads_list; /* threads._NUM: [count] */
extern PyObject *splits_fn;     /* threads.c_splits(ufunc, dtype, nin, scalar) -> bool */
extern int loops_ready;         /* setup_loops() found the ndarray fields as expected */
extern int elide_mode;          /* elide.c: ELIDE_* */
extern int calib_depth;         /* elide.c: calibrate()'s Fast calls in progress */
extern Py_ssize_t VP_dict, VP_kind; /* views.c: ViewProp's fields after the property's */

/* --- constants (module.c, made in PyInit) ------------------------------------------------ */
extern PyObject *zero, *one, *minus_one;
extern PyObject *s_dtype, *s_shape, *s_ext, *s_out, *s_bind, *s_passkw, *s_npos;
extern PyObject *s_getitem, *s_permute_dims, *s_expand_dims, *s_squeeze;
extern PyObject *s_materialize, *s_reshape, *s_transpose, *s_T, *s_strides, *s__shape;
extern PyObject *s_resolve, *s_get_loop, *s_fixed_strides;

/* --- the readers every entry point inlines (call.c: the pieces of one call) -------------- */

PyObject *small_native_any(PyObject *x, Py_ssize_t limit); /* (call.c) */

/* The dtype's row index (DType._index), or -1. */
static inline Py_ssize_t
dtype_index(PyObject *dt)
{
    if (dt == NULL || Py_TYPE(dt) != DType_T)
        return -1;
    PyObject *i = SLOT(dt, D_index);
    if (i == NULL || !PyLong_CheckExact(i))
        return -1;
    Py_ssize_t v = PyLong_AsSsize_t(i);
    if (v == -1 && PyErr_Occurred())
        (void)contract_clear(PyExc_OverflowError); /* (the only error of an exact int) */
    return v;
}

/* Bytes an array of x's shape and dtype holds, or -1 (not a plain tuple of ints). */
static inline Py_ssize_t
nbytes_of(PyObject *x)
{
    PyObject *shape = SLOT(x, O_shape), *dt = SLOT(x, O_dtype);
    if (shape == NULL || dt == NULL || !PyTuple_CheckExact(shape) || Py_TYPE(dt) != DType_T)
        return -1;
    PyObject *isz = SLOT(dt, D_itemsize);
    if (isz == NULL || !PyLong_CheckExact(isz))
        return -1;
    Py_ssize_t n = PyLong_AsSsize_t(isz);
    if (n < 0) {
        (void)contract_clear(PyExc_OverflowError);
        return -1;
    }
    for (Py_ssize_t i = 0, nd = PyTuple_GET_SIZE(shape); i < nd; i++) {
        PyObject *d = PyTuple_GET_ITEM(shape, i);
        if (!PyLong_CheckExact(d))
            return -1;
        Py_ssize_t v = PyLong_AsSsize_t(d);
        if (v < 0) {
            (void)contract_clear(PyExc_OverflowError);
            return -1;
        }
        if (v && n > PY_SSIZE_T_MAX / v)
            return -1;
        n *= v;
    }
    return n;
}

/* Results from this many bytes on take the Python path where the C path has no pooled
   result of its own (a kernel call that is not NumPy's loop: matmul, astype, NumPy's
   where, a ufunc whose loop does not qualify). */
static inline Py_ssize_t
small_limit(void)
{
    Py_ssize_t big = contract_pool_limit(big_list);
    return big < elide_bytes ? big : elide_bytes;
}

/* The size classes of a result the C path makes itself (NumPy's loop, the typed where):
   one policy, by the result's bytes (loops.c, "large results"). Below the pool threshold
   numpy.empty, from it the buffer pool (_pool.empty), and from the thread threshold on,
   when more than one thread may split the call, the Python path (threads.large_ufunc):
   this returns that last bound (PY_SSIZE_T_MAX: one thread, nothing is split), or
   small_limit() before setup_large(). */
Py_ssize_t c_result_limit(int splittable);
PyObject *ints_tuple(const Py_ssize_t *v, Py_ssize_t n); /* (views.c) */

static inline PyObject *
small_native(PyObject *x, Py_ssize_t limit)
{
    return SLOT(x, O_ext) == Py_None ? small_native_any(x, limit) : NULL;
}

static inline PyObject *
list_at(PyObject *list, Py_ssize_t i)
{
    if (list == NULL || !PyList_CheckExact(list) || i < 0 || i >= PyList_GET_SIZE(list))
        return NULL;
    return PyList_GET_ITEM(list, i);
}

/* Python scalar type -> its column in a row's scalar table (bool, int, float, complex). */
static inline Py_ssize_t
scalar_column(PyObject *v)
{
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyFloat_Type)
        return 2;
    if (t == &PyLong_Type)
        return 1;
    if (t == &PyBool_Type)
        return 0;
    if (t == &PyComplex_Type)
        return 3;
    return -1;
}

/* --- NumPy's inner loops (loops.c) --------------------------------------------------------
   The ndarray fields read (NumPy's public ABI, PyArrayObject_fields; setup_loops checks
   them against a probe), NumPy's call-info capsule, the FPU flags, a Fast's Loop slots. */
typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    PyObject *descr;
    int flags;
} NDFields;
/* PyArray_Descr's head: its kind follows the type object (setup_loops checks the probe's). */
typedef struct {
    PyObject_HEAD
    PyTypeObject *typeobj;
    char kind;
} DescrHead;
#define ND(a) ((NDFields *)(a))
#define ND_C_CONTIGUOUS 0x0001
#define ND_F_CONTIGUOUS 0x0002
#define ND_OWNDATA 0x0004
#define ND_ALIGNED 0x0100
#define ND_WRITEABLE 0x0400

/* NumPy's call-info capsule (_ckernels.c reads the same) */
typedef int(np_loop)(void *context, char *const *data, const Py_ssize_t *dims,
                     const Py_ssize_t *strides, void *auxdata);
typedef struct {
    np_loop *strided_loop;
    void *context;
    void *auxdata;
    unsigned char requires_pyapi;
    unsigned char no_floatingpoint_errors;
} CallInfo;
#define CALL_INFO "numpy_1.24_ufunc_call_info"

/* A loop built for AVX2 as well as the baseline, the one the CPU runs chosen at load (GCC's
   target clones; the same C, wider vectors): own loops (loops.c), where's (fast.c). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && defined(__linux__)
#define OWN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define OWN_CLONES
#endif

/* The FPU status flags before a call that may raise some (a loop, a conversion), put
   back after it when they changed (fesetexceptflag is the dear part). */
typedef struct {
    fexcept_t saved;
    int before;
} Flags;

static inline void
flags_save(Flags *f)
{
    fegetexceptflag(&f->saved, FE_ALL_EXCEPT);
    f->before = fetestexcept(FE_ALL_EXCEPT);
}

static inline void
flags_restore(const Flags *f)
{
    if (fetestexcept(FE_ALL_EXCEPT) != f->before)
        fesetexceptflag(&f->saved, FE_ALL_EXCEPT);
}

/* A DType's kind as NumPy's descriptor records it ('f', 'c', ...), or 0. */
static inline char
np_kind(PyObject *dt)
{
    PyObject *d = dt != NULL && Py_IS_TYPE(dt, DType_T) ? SLOT(dt, D_np) : NULL;
    return d == NULL || !loops_ready ? 0 : ((DescrHead *)d)->kind;
}

/* How a Python scalar operand becomes the loop's input (NumPy's setitem of its dtype). */
enum { SC_NONE = 0, SC_F32, SC_F64, SC_C64, SC_C128, SC_INT, SC_UINT, SC_BOOL };

/* One (row entry, device) of a Fast: the entry's kernel for the device (so that a call
   needs no dict lookup, which hashes the Device in Python), and NumPy's loop where the
   kernel is a ufunc whose loop for the operands' dtypes qualifies. */
typedef struct {
    PyObject *ent;    /* the registry entry it was resolved for (compared by identity) */
    PyObject *dev;    /* the device (identity) */
    PyObject *kernel; /* the entry's kernel for dev */
    PyObject *res;    /* the entry's result DType */
    PyObject *cap;    /* the call-info capsule that owns the loop, or NULL: no loop */
    PyObject *in[2];  /* the loop's input descriptors: an array operand's dtype is one */
    PyObject *out;    /* its output descriptor: the result dtype's */
    CallInfo *info;
    Py_ssize_t isz[3]; /* itemsizes: inputs, output */
    int split;        /* the Python path splits a large result over threads (threads.c_splits) */
    int sside;        /* a Python scalar operand's position + 1, or 0 */
    int sc;           /* SC_*: its conversion */
    int scalar_block; /* a Python scalar is read from a block of copies (run_loop) */
    int guard;        /* G_*: operands the loop declines before anything is written (loops.c) */
} Loop;

/* A row kernel's ``_loop_guard``: when NumPy's loop alone gives the kernel's value (its
   special-case correction has nothing to put right), proven from the operands before the
   loop runs (loops.c, guard_ok); otherwise the call declines to the kernel. */
enum { G_NONE = 0, G_NOINF, G_POW_F, G_POW_I, G_COPY, G_SHIFT };

/* --- the Fast object (fast.c) --------------------------------------------------------------- */

/* K_API: no fast case of its own; the namespace-function wrapper of _dispatch.api:
   hand the call to the extension hook when an argument carries an extension, else
   call the function with the arguments as they came (no packing of args, kwargs). */
/* K_MATMUL: x1 @ x2 for matrices and vectors of one dtype (table: [result dtype or None
   per dtype index, the kernel]); K_WHERE: where(condition, x1, x2) for a bool condition
   and x1, x2 of one dtype (table: [the bool DType, the kernel]). K_QUIET: no fast
   case; the function under NumPy's "ignore" error state (_dispatch.quiet). */
/* K_ASTYPE: astype(x, dtype) of a small CPU array into another dtype (table: [the
   unbound ndarray.astype]); everything else as K_API. */
/* K_ASARRAY: asarray(x) of an Array of ours with nothing asked that changes it (x itself,
   as the Python definition returns); everything else as K_QUIET. */
/* K_HEAD: the extension chain's head (_dispatch._standard_keywords' ``head``): a call
   head(name, impl, args, kwargs) with keywords whose name has a binder (table: the binders
   dict) is bound first (``args, kwargs = binder.bind(args, kwargs)``); then fallback (the
   chain) is called with the four. */
/* K_SUM: sum(x) of a whole floating CPU array that one thread sums (table: [the C kernel
   _ckernels.sum_into, the float32 and float64 DTypes, the CPU Device]); everything else as
   K_API. */
/* K_NPRED: f(x) of a small CPU array reduced whole by one NumPy reduction into a fresh 0-d
   result, as the definition's short path calls it (max, min, prod, any, all; table: [the
   ufunc's reduce, the result DType or None (x's), the dtype argument (None, or True: x's
   NumPy dtype, or a NumPy dtype), the DTypes taken (a tuple), the CPU Device, the fewest
   elements (0 or 1), the most elements (-1: fewer bytes than the thread split)], and
   optionally [a C kernel kernel(native, out, count) -> True for more elements than that,
   on one thread, the DTypes it takes (a tuple)]); everything else as K_API. */
enum { K_API = 0, K_UNARY = 1, K_BINARY = 2, K_MATMUL = 3, K_WHERE = 4, K_QUIET = 5, K_ASTYPE = 6,
       K_ASARRAY = 7, K_HEAD = 8, K_SUM = 9, K_NPRED = 10 };

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fallback; /* the Python function: the definition */
    PyObject *table;    /* unary: [entry per dtype index]; binary: [[entry per index]] */
    PyObject *stable;   /* binary: [[entry per scalar column] per dtype index] */
    PyObject *dict;     /* attributes of its own (__doc__, __name__, ... for namespace use) */
    PyObject *hook;     /* K_API: the extension hook list (``_array.HOOK``) */
    PyObject *name;     /* K_API: the namespace name the hook is called with */
    PyObject *elide;    /* K_BINARY function: elide(x1, x2, tmp) -> result or None */
    PyObject *square;   /* K_BINARY pow: the square row's unary Fast (x ** 2 on the host), or NULL */
    PyObject *direct;   /* K_API with a binder: the definition, called without it when no argument
                           needs binding (keywords of passkw alone, at most npos positional
                           ones), or NULL */
    Py_ssize_t npos;    /* (direct's positional parameters) */
    PyObject *passkw;   /* (the keywords binding passes on unchanged: a frozenset, or NULL: none) */
    PyObject *kimpl;    /* K_BINARY operator, K_UNARY function: the row's kernel path, which it hands
                           to the extension hook (hook: the hook list) for Arrays of which one carries
                           an extension, as elementwise.py's ``op`` and ``func`` do; K_MATMUL: the
                           namespace's matmul, called for such Arrays as ``_matmul_op`` calls it; or
                           NULL */
    PyObject *last[3];  /* named: the last inputs' keys and their result names */
    int last_align;     /* named elementwise: the last inputs' names differ where auto_align()
                           lines them up (names.c, fast_named: the setting is read per call) */
    Loop *loops;        /* K_UNARY, K_BINARY: per dtype (pair, or dtype and scalar): loop_slot */
    Py_ssize_t ndt;     /* the number of dtypes the loops were laid out for */
    Py_ssize_t nloops;
    int kind;           /* K_UNARY or K_BINARY: the positional arguments of the fast case */
    int swap;           /* a reflected operator: __radd__(self, other) computes other + self */
    int inplace;        /* an in-place operator: __iadd__(self, other) writes self + other into self;
                           unary: x.exp_() writes exp(x) into x (fast_out) */
    int kernel;         /* a row's kernel path (elementwise.py's impl, which the extensions' handlers
                           call): impl(x, None), impl(x1, x2, None), the operands' extensions unread */
} Fast;

PyObject *setup_grad_state(PyObject *mod, PyObject *args); /* (fast.c) */
int ext_class_setup(PyObject *ext, const char *who);        /* (names.c) */

/* --- the name caches (names.c) --------------------------------------------------------------- */

/* A named call's arguments after x (vectorcall's: npos positional, then the keywords'
   values, kwnames their names): the part of its _RED key after (op, names, ndim, npos). */
typedef struct {
    PyObject *const *v;
    Py_ssize_t npos, nk;
    PyObject *kwnames;
} CallArgs;

/* An operand with no extension (not an Array, or _ext None). */
static inline int
plain(PyObject *x)
{
    return Py_TYPE(x) != Array_T || SLOT(x, O_ext) == Py_None;
}

/* --- temporary elision (elide.c) ------------------------------------------------------------ */

enum { ELIDE_OFF, ELIDE_RECORD, ELIDE_PROBE, ELIDE_ON };

#define CALIBRATING (elide_mode == ELIDE_RECORD || elide_mode == ELIDE_PROBE)

/* --- the views (views.c) ------------------------------------------------------------------- */

/* The most dimensions a view in C takes (more: the Python path). */
#define MAXDIMS 64

/* A failed call into Python: ordinary exceptions are cleared (the caller declines and
   the Python path runs, raising its own); KeyboardInterrupt, MemoryError and friends
   propagate (contract.h, contract_decline). Returns NULL either way. */
static inline PyObject *
decline_error(void)
{
    return contract_decline();
}

/* V_RENAME: rename / refine_names of a named array (strided.named), f->table their name:
   answered only with a cached outcome (named_view); V_ALIGN: align_to, the same way;
   V_UNFLATTEN, V_FLATTEN: unflatten and flatten by names, f->table strided.named's dict
   of their checked outcomes. */
enum { V_GETITEM = 1, V_CONTIGUOUS, V_RESHAPE, V_RESHAPE_M, V_PERMUTE, V_PERMUTE_M, V_EXPAND,
       V_SETITEM, V_RENAME, V_ALIGN, V_UNFLATTEN, V_FLATTEN, V_COPY, V_SQUEEZE, V_ZERO, V_FILL,
       V_NAMESPACE, V_ITER, V_T, V_MT,
       V_DTYPE, V_DEVICE, V_NDIM, V_SHAPE, V_SIZE, V_GRAD };

/* --- functions one source calls in another ------------------------------------------------ */

/* module.c */
PyObject *setup(PyObject *mod, PyObject *args);
PyObject *setup_array(PyObject *mod, PyObject *args);

/* call.c */
PyObject *array_new(PyObject *np, PyObject *st, PyObject *off, PyObject *shape, PyObject *str, PyObject *dtype, PyObject *dev);
PyObject *entry_kernel(PyObject *ent, PyObject *dev, PyObject **res);
PyObject *run_kernel(PyObject *kernel, PyObject *const *args, Py_ssize_t n);
PyObject *wrap(PyObject *r, PyObject *res, PyObject *dev);

/* loops.c */
PyObject *loop_call(const Loop *L, PyObject *const *xs, PyObject *const *nat, int n, Py_ssize_t limit, PyObject *res, PyObject *dev, PyObject *into, int target);
void loop_clear(Loop *L);
Loop *loop_for(Loop *L, PyObject *ent, PyObject *dev, PyObject *const *xs, int n);
PyObject *setup_loops(PyObject *mod, PyObject *args);
PyObject *setup_large(PyObject *mod, PyObject *args);
PyObject *prefer_loop(PyObject *mod, PyObject *args);
PyObject *own_loop_info(PyObject *mod, PyObject *args);
PyObject *vector_width(PyObject *mod, PyObject *noargs);
PyObject *result_empty(PyObject *shape, PyObject *descr, Py_ssize_t nbytes);
PyObject *fresh_result(const Py_ssize_t *dims, int nd, PyObject *descr, Py_ssize_t nbytes, int reuse);
/* views.c: a 64-byte aligned result from 16 KiB to the pool threshold (NULL, no error:
   outside that range or without NumPy's C API table) and the type owning its buffer. */
#define ALIGN_FROM ((Py_ssize_t)16 << 10)
PyObject *aligned_result(const Py_ssize_t *dims, int nd, PyObject *descr, Py_ssize_t nbytes);
extern PyTypeObject AlignedBuf_T;

/* fast.c */
PyObject *call_quiet(PyObject *fn, PyObject *const *args, size_t nargsf, PyObject *kwnames);
PyObject *fast_binary(Fast *f, PyObject *x1, PyObject *x2, int named);
PyObject *fast_binary_into(Fast *f, PyObject *x1, PyObject *x2, PyObject *tmp);
int fast_clear(Fast *f);
int fast_traverse(Fast *f, visitproc visit, void *arg);
PyObject *fast_unary(Fast *f, PyObject *x, int named);
PyObject *fast_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);
PyObject *own_identity(Fast *f, PyObject *fallback);
PyObject *quiet_enter(void);
PyObject *quiet_exit(PyObject *tok, PyObject *r);

/* names.c */
/* The compiled Ext (names.c: its type, free list and rules) */
typedef struct {
    PyObject_HEAD
    PyObject *requires_grad, *grad, *grad_fn, *output_nr, *retains_grad, *hooks, *names, *is_view, *acc;
    PyObject *weakrefs;
} ExtObject;
#define EXT_FREE_MAX 256
extern ExtObject *ext_free[EXT_FREE_MAX];
extern int ext_nfree;
extern PyTypeObject *ExtC_T;
PyObject *ext_untracked_other(PyObject *e);

/* Whether e is a named result's record: its fields other than names the defaults
   (Ext.__init__'s), names a tuple, None or deleted, no weak reference. */
static inline int
ext_names_only(const ExtObject *e)
{
    return e->requires_grad == Py_False && e->grad == Py_None && e->grad_fn == Py_None
           && e->output_nr == zero && e->retains_grad == Py_False && e->hooks == Py_None
           && e->is_view == Py_False && e->acc == Py_None && e->weakrefs == NULL
           && (e->names == NULL || e->names == Py_None || PyTuple_CheckExact(e->names));
}

/* e (ext_names_only, no longer referenced, untracked by the collector) back onto the free
   list as ext_make takes it (names released: a tuple's release runs no Python code), or
   freed with its type's reference when the list is full (names.c). */
void ext_shelve_full(ExtObject *e);
static inline void
ext_recycle(ExtObject *e)
{
    Py_CLEAR(e->names);
    if (ext_nfree < EXT_FREE_MAX)
        ext_free[ext_nfree++] = e;
    else
        ext_shelve_full(e);
}

/* e's names field (borrowed; NULL when deleted) when e is an Ext that tracks no
   gradient (requires_grad False, grad_fn None), else NULL; no error. The compiled Ext's
   fields are read straight from its struct (the class in use, Ext_T, being this type),
   any other class's through contract_ext (ext_untracked_other). Inline: every named
   view asks (a call was ~10 of its ~25 instructions). */
static inline PyObject *
ext_untracked(PyObject *e)
{
    if (Py_IS_TYPE(e, ExtC_T) && Ext_T == ExtC_T) {
        ExtObject *c = (ExtObject *)e;
        return c->requires_grad == Py_False && c->grad_fn == Py_None ? c->names : NULL;
    }
    return ext_untracked_other(e);
}

/* x's names (borrowed) when x is an Array the compiled named paths may answer for: an
   Ext that tracks no gradient, and a names tuple; NULL (no error) otherwise. */
static inline PyObject *
untracked_names(PyObject *x)
{
    PyObject *e = SLOT(x, O_ext);
    PyObject *names = e == NULL ? NULL : ext_untracked(e);
    return names != NULL && PyTuple_CheckExact(names) ? names : NULL;
}

/* r (a fresh plain result, stolen) named ``names`` (borrowed; None: unnamed): name_result,
   with its common case inline (the compiled Ext in use, one on the free list, a names
   tuple of r's rank): the record taken from the free list as ext_make takes it. */
PyObject *name_result(PyObject *r, PyObject *names);
static inline __attribute__((always_inline)) PyObject *
name_result_fast(PyObject *r, PyObject *names)
{
    if (names != Py_None && ext_nfree > 0 && Ext_T == ExtC_T && PyTuple_CheckExact(names)
        && PyTuple_GET_SIZE(names) == PyTuple_GET_SIZE(SLOT(r, O_shape))) {
        ExtObject *e = ext_free[--ext_nfree]; /* (the defaults and the type's reference set) */
        _Py_NewReference((PyObject *)e);
        e->names = Py_NewRef(names);
        Py_SETREF(SLOT(r, O_ext), (PyObject *)e);
        return r;
    }
    return name_result(r, names);
}
/* Whether the signature sig is the last one, l, by identity: the same object, or two tuples
   of the same objects (a view's axes given as arguments come in a fresh tuple each call; its
   items, small ints, are the same objects). Identity implies equality: no Python code runs. */
static inline int
same_items(PyObject *sig, PyObject *l)
{
    if (sig == l)
        return 1;
    if (l == NULL || !PyTuple_CheckExact(sig) || !PyTuple_CheckExact(l)
        || PyTuple_GET_SIZE(sig) != PyTuple_GET_SIZE(l))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(sig); i++)
        if (PyTuple_GET_ITEM(sig, i) != PyTuple_GET_ITEM(l, i))
            return 0;
    return 1;
}
/* named_view with its common case inline: the call site's last outcome found by the
   identity of the names and the signature (a static tuple, a small int, the same argument,
   a fresh tuple of the same items). */
PyObject *named_view(PyObject *r, PyObject *op, PyObject *names, PyObject *sig, PyObject **last);
static inline __attribute__((always_inline)) PyObject *
named_view_fast(PyObject *r, PyObject *op, PyObject *names, PyObject *sig, PyObject **last)
{
    if (sig != NULL && names == last[0] && same_items(sig, last[1])) {
        PyObject *out = Py_NewRef(last[2]); /* (held: an Ext's allocation may run a finalizer) */
        r = name_result_fast(r, out);
        Py_DECREF(out);
        return r;
    }
    return named_view(r, op, names, sig, last);
}
int ext_type_add(PyObject *m);
int keywords_type_add(PyObject *m); /* keywords.c: PyTorch's names before a compiled callable */
extern PyObject *ndim_objs[MAXDIMS + 1];
int auto_align_off(void);
PyObject *fast_named_miss(Fast *f, PyObject *const *k, int n);

/* An operand's key in the name cache (_handler._EW_NAMES), borrowed (held by x, its Ext or
   names.c), or NULL (no error) to decline: a named Array's names tuple (its Ext's, an Ext
   that tracks no gradient), an unnamed Array's ndim (ndim_objs), -1 for a Python scalar.
   A names tuple is checked (plain_names) where it is hashed or compared by value
   (fast_named_miss); comparing keys by identity needs no check. */
static inline PyObject *
name_key(PyObject *x)
{
    if (Py_TYPE(x) != Array_T)
        return scalar_column(x) < 0 ? NULL : minus_one;
    PyObject *e = SLOT(x, O_ext), *names, *shape;
    if (e != Py_None) {
        if (e == NULL || (names = ext_untracked(e)) == NULL)
            return NULL;
        if (names != Py_None)
            return PyTuple_CheckExact(names) ? names : NULL;
    }
    shape = SLOT(x, O_shape);
    if (shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) > MAXDIMS)
        return NULL;
    return ndim_objs[PyTuple_GET_SIZE(shape)];
}

/* The named case of a unary (n == 1) or binary row (fast_vectorcall's, inline there: a
   call of its own cost a fifth of what names add), operands in kernel order. The last
   outcome is kept on the object, keyed by the identity of the inputs' keys (results carry
   the cache's own names tuple, so chains hit it): a repeated call reads two slots,
   compares two pointers and, only for names that auto_align() would line up
   (f->last_align), reads the setting; a first sight asks the handler's cache
   (fast_named_miss). NULL (no error) declines to the Python path. */
static inline PyObject *
fast_named(Fast *f, PyObject *const *xs, int n)
{
    PyObject *k[2], *names;
    if ((k[0] = name_key(xs[0])) == NULL)
        return NULL;
    k[1] = NULL;
    if (n == 2 && (k[1] = name_key(xs[1])) == NULL)
        return NULL;
    if (k[0] == f->last[0] && k[1] == f->last[1] && f->last[2] != NULL) {
        if (f->last_align && !auto_align_off())
            return NULL; /* (the handler aligns them) */
        names = Py_NewRef(f->last[2]); /* (held: the kernel call may run code that clears it) */
    }
    else if ((names = fast_named_miss(f, k, n)) == NULL)
        return NULL;
    /* (the keys are not read from here on: they are borrowed) */
    PyObject *r = n == 1 ? fast_unary(f, xs[0], 1) : fast_binary(f, xs[0], xs[1], 1);
    if (r != NULL)
        r = name_result_fast(r, names);
    Py_DECREF(names);
    return r;
}
PyObject *named_call(Fast *f, PyObject *x, const CallArgs *c);
int plain_equal(PyObject *a, PyObject *b);
int plain_names(PyObject *names);
PyObject *setup_named(PyObject *mod, PyObject *args);
PyObject *named_ext(PyObject *mod, PyObject *names);
PyObject *view_outcome(PyObject *op, PyObject *names, PyObject *sig, PyObject **last);

/* elide.c */
PyObject *calibrate(PyObject *mod, PyObject *args);
PyObject *elided_calls(PyObject *mod, PyObject *Py_UNUSED(ignored));
PyObject *elision_state(PyObject *mod, PyObject *Py_UNUSED(ignored));
__attribute__((noinline)) PyObject *try_elide(Fast *f, PyObject *const *args);

/* views.c */
int c_contiguous(const Py_ssize_t *shape, const Py_ssize_t *str, Py_ssize_t nd, Py_ssize_t unit);

PyObject *setup_take(PyObject *mod, PyObject *args);
PyObject *free_held(PyObject *mod, PyObject *a);
PyObject *native_build(PyObject *x); /* a view's native view, built and cached (views.c) */
PyObject *native_py(PyObject *mod, PyObject *x);
PyObject *setup_array_free(PyObject *mod, PyObject *Py_UNUSED(ignored));
/* (storage.c) */
int materialize(PyObject *x);
PyObject *materialize_setup(PyObject *mod, PyObject *arg);
PyObject *materialize_py(PyObject *mod, PyObject *x);
PyObject *pow_half(PyObject *mod, PyObject *a);
PyObject *aligned_empty(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
int slice_unpack(PySliceObject *sl, Py_ssize_t *start, Py_ssize_t *stop, Py_ssize_t *step);

/* setitem.c */
int view_setitem(PyObject *dts, PyObject *x, PyObject *key, PyObject *value);
int copy_same(PyObject *x, PyObject *y); /* x[...] = y, x.copy_(y) of x's dtype and shape (setitem.c) */
int fill_same(PyObject *x, PyObject *value); /* x.zero_() (value NULL), x.fill_(v) (setitem.c) */
int bump(PyObject *st); /* st._version += 1 (setitem.c) */

extern PyTypeObject Fast_T, View_T, ViewProp_T;

#pragma GCC visibility pop

#endif /* STRIDED_CHOT_H */
