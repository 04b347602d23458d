/* strided._csrc._chot: the compiled hot path of the plain elementwise call.
 *
 * The Python code stays the definition (DESIGN.md, "One hot path, visible"):
 * every object here wraps a Python function -- an operator like
 * ``Array.__add__`` or a namespace function like ``strided.exp`` -- and
 * answers one case itself, the one that dominates small-array code:
 *
 *     strided arrays (or a Python scalar) with no extension (``_ext is None``),
 *     on one device, a dtype (pair) the registry row takes without a cast,
 *     CPU natives smaller than the buffer pool's threshold.
 *
 * There it does what the Python impl does -- look the row's entry up in its
 * dtype table, call the row's kernel on the native views, wrap the result in a
 * fresh Array -- without a Python frame; and where the kernel is a NumPy ufunc
 * and NumPy would make one call of its inner loop, it makes that call itself
 * ("NumPy's inner loops, called directly" below). Everything else (other operand types,
 * extensions, casts, large results, errors, keywords) calls the wrapped Python
 * function with the same arguments, so it behaves exactly as the fallback that
 * runs when the extension is not built (STRIDED_NO_CEXT=1, CI runs both).
 *
 * NumPy's floating-point warnings: the Python path ignores them (a
 * warnings filter on strided's modules; the standard specifies IEEE results,
 * not warnings). Called from here NumPy would attribute them to the user's
 * frame, so the kernel runs under NumPy's "ignore" error state (its context
 * variable, set and reset around the call, as ``np.errstate`` does).
 *
 * What it reads from Python objects (Array's, DType's and Ext's slots, the registry's
 * tables, the pool's threshold) is declared once, in contract.h, with the checks every
 * entry point runs before reading: an object that is not what it should be (a deleted
 * slot, ``x._dtype = 5``, ``object.__new__(Array)``) declines to the Python definition,
 * which raises its own error. Results are built as ``object.__new__(Array)`` and eight
 * slot stores would build them.
 *
 * Temporary elision (an operand nobody else can see lends its buffer to the result) is
 * decided here, for operators and namespace functions alike, and only with a proof: see
 * "temporary elision" below.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "contract.h"

/* --- what setup() is told once ---------------------------------------------- */
static PyTypeObject *ND_T;      /* numpy.ndarray */
static PyObject *nat_fn;        /* _elementwise._nat(x): builds and caches x._np */
static PyObject *big_list;      /* _pool.MIN_BYTES: [bytes], the pooled-buffer threshold */
static Py_ssize_t elide_bytes;  /* _elementwise._ELIDE_BYTES */
static PyObject *errstate_var;  /* NumPy's ufunc error-state context variable */
static PyObject *errstate_ignore; /* its value under np.errstate(all="ignore") */
static PyObject *ignore_ctx;    /* a Context holding just that value */
static PyObject *zero, *one;
static PyObject *s_dtype, *s_shape, *s_ext;
static int ready;
static int views_ready;

/* setup_array(Array, DType, Storage, Device): the classes whose slots the hot path reads
   and writes (contract.h), their offsets looked up by name. Called by _array (for the
   views) and _dispatch, before any Fast or View exists; a second call must name the
   same classes. */
static PyObject *
setup_array(PyObject *mod, PyObject *args)
{
    PyObject *arr, *dt, *st, *dev;
    if (!PyArg_ParseTuple(args, "O!O!O!O!:setup_array", &PyType_Type, &arr, &PyType_Type, &dt,
                          &PyType_Type, &st, &PyType_Type, &dev))
        return NULL;
    if (Array_T != NULL
        && ((PyObject *)Array_T != arr || (PyObject *)DType_T != dt || (PyObject *)Storage_T != st
            || (PyObject *)Device_T != dev)) {
        PyErr_SetString(PyExc_TypeError, "setup_array(): other classes than the first call's");
        return NULL;
    }
    if (contract_setup((PyTypeObject *)arr, ARRAY_ROWS, N_ROWS(ARRAY_ROWS)) < 0
        || contract_setup((PyTypeObject *)dt, DTYPE_ROWS, N_ROWS(DTYPE_ROWS)) < 0
        || contract_setup((PyTypeObject *)st, STORAGE_ROWS, N_ROWS(STORAGE_ROWS)) < 0)
        return NULL;
    if (Array_T == NULL) {
        Storage_T = (PyTypeObject *)Py_NewRef(st);
        Device_T = (PyTypeObject *)Py_NewRef(dev);
        DType_T = (PyTypeObject *)Py_NewRef(dt);
        Array_T = (PyTypeObject *)Py_NewRef(arr); /* last: it turns the checks on */
    }
    views_ready = 1;
    Py_RETURN_NONE;
}

/* setup(ndarray, nat, big_list, elide_bytes, errstate_var, errstate_ignore, ignore_context):
   what the elementwise fast cases need (called by _elementwise). */
static PyObject *
setup(PyObject *mod, PyObject *args)
{
    PyObject *nd, *nat, *big, *var, *ign, *ctx;
    Py_ssize_t elide;
    if (!PyArg_ParseTuple(args, "O!OO!nOOO:setup", &PyType_Type, &nd, &nat, &PyList_Type, &big,
                          &elide, &var, &ign, &ctx))
        return NULL;
    if (Array_T == NULL || contract_pool_limit(big) <= 0 || !PyCallable_Check(nat)
        || !PyContextVar_CheckExact(var) || !PyContext_CheckExact(ctx)) {
        PyErr_SetString(PyExc_TypeError, "setup(): setup_array() first; a callable, a pool "
                        "threshold list, NumPy's error-state variable and a Context");
        return NULL;
    }
    Py_XSETREF(ND_T, (PyTypeObject *)Py_NewRef(nd));
    Py_XSETREF(nat_fn, Py_NewRef(nat));
    Py_XSETREF(big_list, Py_NewRef(big));
    Py_XSETREF(errstate_var, Py_NewRef(var));
    Py_XSETREF(errstate_ignore, Py_NewRef(ign));
    Py_XSETREF(ignore_ctx, Py_NewRef(ctx));
    elide_bytes = elide;
    ready = 1;
    Py_RETURN_NONE;
}

/* --- the pieces of one call --------------------------------------------------- */

/* The readers below re-check what they read (NULL, types) although the entry point has
   run contract_array: Python code that runs inside an entry point (a dict's __missing__,
   a kernel that releases the GIL to another thread) may have changed a slot since. */

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

/* Results from this many bytes on take the Python path (pooled buffers, threads,
   temporary elision). */
static inline Py_ssize_t
small_limit(void)
{
    Py_ssize_t big = contract_pool_limit(big_list);
    return big < elide_bytes ? big : elide_bytes;
}

/* A CPU array small enough for this path: its native view (new reference), else NULL
   with no error set (declined), or NULL with an error that must propagate (building the
   native ran Python code: a KeyboardInterrupt, a MemoryError). small_native: the same
   for an extension-free array only. */
static PyObject *
small_native_any(PyObject *x, Py_ssize_t limit)
{
    Py_ssize_t n = nbytes_of(x);
    if (n < 0 || n >= limit)
        return NULL;
    PyObject *a = SLOT(x, O_np);
    if (a == NULL)
        return NULL;
    if (a == Py_None) {
        a = PyObject_CallOneArg(nat_fn, x);
        if (a == NULL)
            return contract_decline();
    }
    else
        Py_INCREF(a);
    if (Py_TYPE(a) != ND_T) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static inline PyObject *
small_native(PyObject *x, Py_ssize_t limit)
{
    return SLOT(x, O_ext) == Py_None ? small_native_any(x, limit) : NULL;
}

/* Call kernel(args) under NumPy's "ignore" error state; NULL with no error set when
   it failed (the Python path then runs and raises its own error), NULL with an error
   set for one that must propagate (contract_clear).
   The cheap way in is entering a prepared Context that holds just that state (a
   kernel reads no other context variable); a Context is entered by one thread at a
   time, so while another thread has it (NumPy releases the GIL in its loops) this
   call sets and resets the variable in its own context instead (~140 ns more). */
static PyObject *
run_kernel(PyObject *kernel, PyObject *const *args, Py_ssize_t n)
{
    PyObject *r;
    if (PyContext_Enter(ignore_ctx) == 0) {
        r = PyObject_Vectorcall(kernel, args, n, NULL);
        if (PyContext_Exit(ignore_ctx) < 0) {
            Py_XDECREF(r);
            return NULL; /* an error we must not swallow */
        }
    }
    else {
        /* (entered by another thread: the RuntimeError Python raises for that) */
        if (!contract_clear(PyExc_RuntimeError))
            return NULL;
        PyObject *tok = PyContextVar_Set(errstate_var, errstate_ignore);
        if (tok == NULL)
            return NULL; /* (out of memory: propagates) */
        r = PyObject_Vectorcall(kernel, args, n, NULL);
        if (PyContextVar_Reset(errstate_var, tok) < 0) {
            Py_DECREF(tok);
            Py_XDECREF(r);
            return NULL; /* an error we must not swallow */
        }
        Py_DECREF(tok);
    }
    if (r == NULL)
        return contract_decline(); /* (KeyboardInterrupt, MemoryError: propagate, error set) */
    return r;
}

/* A fresh Array with these fields (every reference stolen, _ext None), as
   ``object.__new__(Array)`` and eight slot stores build it; NULL with an error set
   (the references released) when the allocation fails. */
static PyObject *
array_new(PyObject *np, PyObject *st, PyObject *off, PyObject *shape, PyObject *str,
          PyObject *dtype, PyObject *dev)
{
    PyObject *o = Array_T->tp_alloc(Array_T, 0);
    if (o == NULL) {
        Py_DECREF(np);
        Py_DECREF(st);
        Py_DECREF(off);
        Py_DECREF(shape);
        Py_DECREF(str);
        Py_DECREF(dtype);
        Py_DECREF(dev);
        return NULL;
    }
    SLOT(o, O_np) = np;
    SLOT(o, O_st) = st;
    SLOT(o, O_off) = off;
    SLOT(o, O_shape) = shape;
    SLOT(o, O_str) = str;
    SLOT(o, O_dtype) = dtype;
    SLOT(o, O_device) = dev;
    SLOT(o, O_ext) = Py_NewRef(Py_None);
    return o;
}

/* The Array wrapping a fresh kernel result r (stolen), or NULL with no error set when
   r is not a plain result of dtype res (0-d NumPy scalars, other dtypes: the Python
   path wraps those); NULL with an error set: out of memory. */
static PyObject *
wrap(PyObject *r, PyObject *res, PyObject *dev)
{
    if (Py_TYPE(r) != ND_T)
        goto decline;
    PyObject *rd = PyObject_GetAttr(r, s_dtype);
    if (rd == NULL)
        goto fail;
    Py_DECREF(rd);
    if (rd != SLOT(res, D_np))
        goto decline;
    PyObject *shape = PyObject_GetAttr(r, s_shape);
    if (shape == NULL)
        goto fail;
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) == 0) {
        Py_DECREF(shape);
        goto decline;
    }
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None),
                     Py_NewRef(res), Py_NewRef(dev));
fail:
    (void)contract_clear(PyExc_Exception); /* (a MemoryError propagates) */
decline:
    Py_DECREF(r);
    return NULL;
}

/* A registry entry (result dtype, cast, kernels) without a cast (contract_entry): the
   kernel for dev and the result dtype, both new references (the kernel call may run
   Python code that changes the tables or the operands), or NULL with no error set
   (declined), or NULL with an error that must propagate. */
static PyObject *
entry_kernel(PyObject *ent, PyObject *dev, PyObject **res)
{
    PyObject *kc;
    if (!contract_entry(ent, res, &kc))
        return NULL;
    PyObject *k = PyDict_GetItemWithError(kc, dev);
    if (k == NULL) {
        /* not resolved yet: kc[dev] resolves and keeps it (the dict subclass's __missing__) */
        if (!contract_clear(PyExc_Exception))
            return NULL;
        Py_INCREF(ent); /* __missing__ is Python code */
        k = PyObject_GetItem(kc, dev);
        Py_DECREF(ent);
        if (k == NULL)
            return contract_decline();
        if (!contract_entry(ent, res, &kc)) {
            Py_DECREF(k);
            return NULL;
        }
    }
    else
        Py_INCREF(k);
    Py_INCREF(*res);
    return k;
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

/* --- NumPy's inner loops, called directly ------------------------------------------
   For a small call, NumPy's ufunc machinery costs more than everything else together
   (argument parsing, promotion, the error-state lookup, iterator checks, wrapping).
   Where NumPy itself makes ONE call of the loop -- its trivial loop
   (numpy/_core/src/umath/ufunc_object.c, try_trivial_single_output_loop): operands of
   one shape, each 1-D (any stride) or C-contiguous, or 0-d (stride 0), aligned, of
   exactly the loop's dtypes, into a fresh output -- this path makes that same call: the
   loop NumPy resolves for those dtypes (ufunc._resolve_dtypes_and_context and
   _get_strided_loop, as _ckernels.c does; resolved once per row entry and device and
   kept in the Fast), with the same data pointers, count and strides, into a result from
   numpy.empty. The values are NumPy's by construction, and
   tests/reliability/test_differential_tiny.py checks them bit for bit.

   A Python scalar operand is what NumPy makes of it (npy_update_operand_for_scalar:
   the scalar converted by the loop dtype's setitem, a 0-d operand): converted here the
   same way where that is short to restate (a float or int into float32/float64, an int
   in range into an integer dtype, a complex into a complex dtype, a bool into bool);
   other scalars take the ufunc, as before.

   The processor's floating-point status flags are saved before the loop and restored
   after it: strided ignores floating-point errors (docs/reliability.md), and a flag
   left set would make a NumPy loop of the user's around this call warn afterwards.

   The ndarray fields read (data, nd, dimensions, strides, descr, flags) are NumPy's
   public ABI (PyArrayObject_fields, the same in NumPy 1.x and 2.x); setup_loops()
   compares them with what Python reports for a probe array and leaves this path off
   if anything differs. */

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
#define ND_ALIGNED 0x0100

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

static PyTypeObject *UF_T; /* numpy.ufunc */
static PyObject *np_empty; /* numpy.empty */
static PyObject *s_resolve, *s_get_loop, *s_fixed_strides;
static int loops_ready;

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
    int sside;        /* a Python scalar operand's position + 1, or 0 */
    int sc;           /* SC_*: its conversion */
} Loop;

static void
loop_clear(Loop *L)
{
    Py_CLEAR(L->ent);
    Py_CLEAR(L->dev);
    Py_CLEAR(L->kernel);
    Py_CLEAR(L->res);
    Py_CLEAR(L->cap);
    Py_CLEAR(L->in[0]);
    Py_CLEAR(L->in[1]);
    Py_CLEAR(L->out);
    L->info = NULL;
}

/* setup_loops(ufunc type, numpy.empty, probe, data address, shape, strides, c_contiguous,
   aligned): turns the direct loops on when the probe ndarray's fields read as Python
   reports them. Returns whether they are on. */
static PyObject *
setup_loops(PyObject *mod, PyObject *args)
{
    PyObject *uf, *empty, *probe, *shape, *strides;
    Py_ssize_t addr;
    int c_contig, aligned;
    if (!PyArg_ParseTuple(args, "O!OOnO!O!pp:setup_loops", &PyType_Type, &uf, &empty, &probe, &addr,
                          &PyTuple_Type, &shape, &PyTuple_Type, &strides, &c_contig, &aligned))
        return NULL;
    if (!ready || Py_TYPE(probe) != ND_T || !PyCallable_Check(empty)) {
        PyErr_SetString(PyExc_TypeError, "setup_loops(): setup() first; an ndarray probe");
        return NULL;
    }
    loops_ready = 0;
    PyObject *dt = PyObject_GetAttr(probe, s_dtype), *base = PyObject_GetAttrString(probe, "base");
    Py_XDECREF(dt); /* (compared by identity: the probe holds both) */
    Py_XDECREF(base);
    if (dt == NULL || base == NULL)
        return NULL;
    NDFields *p = ND(probe);
    int ok = p->data == (char *)addr && p->descr == dt && p->base == base && p->base != Py_None
             && ((DescrHead *)dt)->kind == 'f' && ((DescrHead *)dt)->typeobj != NULL
             && p->nd == PyTuple_GET_SIZE(shape)
             && p->nd == PyTuple_GET_SIZE(strides) && !!(p->flags & ND_C_CONTIGUOUS) == c_contig
             && !!(p->flags & ND_ALIGNED) == aligned;
    for (int i = 0; ok && i < p->nd; i++)
        ok = p->dimensions[i] == PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i))
             && p->strides[i] == PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, i));
    if (PyErr_Occurred())
        return NULL;
    Py_XSETREF(UF_T, (PyTypeObject *)Py_NewRef(uf));
    Py_XSETREF(np_empty, Py_NewRef(empty));
    loops_ready = ok;
    return PyBool_FromLong(ok);
}

/* NumPy's loop of ufunc k for the dtypes dts (nin of them; a Python scalar's type for a
   weak scalar) with a scalar's fixed stride 0 at sside: L->cap, in, info set, or 0. */
static int
loop_resolve(Loop *L, PyObject *k, int nin, PyObject *const *dts)
{
    PyObject *tup = PyTuple_New(nin + 1), *got = NULL, *fixed = NULL, *fn = NULL, *pos = NULL,
             *kw = NULL, *r = NULL;
    if (tup == NULL)
        goto done;
    for (int i = 0; i < nin; i++)
        PyTuple_SET_ITEM(tup, i, Py_NewRef(dts[i]));
    PyTuple_SET_ITEM(tup, nin, Py_NewRef(Py_None));
    got = PyObject_CallMethodOneArg(k, s_resolve, tup);
    if (got == NULL || !PyTuple_CheckExact(got) || PyTuple_GET_SIZE(got) != 2
        || !PyCapsule_IsValid(PyTuple_GET_ITEM(got, 1), CALL_INFO)
        || !PyTuple_CheckExact(PyTuple_GET_ITEM(got, 0))
        || PyTuple_GET_SIZE(PyTuple_GET_ITEM(got, 0)) != nin + 1)
        goto done;
    /* the strides NumPy fixes for its trivial loop: 0 for a scalar; an array's vary */
    fixed = PyTuple_New(nin + 1);
    if (fixed == NULL)
        goto done;
    for (int i = 0; i <= nin; i++)
        PyTuple_SET_ITEM(fixed, i, Py_NewRef(i + 1 == L->sside ? zero : Py_None));
    PyObject *cap = PyTuple_GET_ITEM(got, 1);
    fn = PyObject_GetAttr(k, s_get_loop);
    pos = PyTuple_Pack(1, cap);
    kw = PyDict_New();
    if (fn == NULL || pos == NULL || kw == NULL || PyDict_SetItem(kw, s_fixed_strides, fixed) < 0
        || (r = PyObject_Call(fn, pos, kw)) == NULL)
        goto done;
    CallInfo *info = (CallInfo *)PyCapsule_GetPointer(cap, CALL_INFO);
    if (info == NULL || info->strided_loop == NULL || info->requires_pyapi)
        goto done;
    PyObject *descrs = PyTuple_GET_ITEM(got, 0);
    if (PyTuple_GET_ITEM(descrs, nin) != SLOT(L->res, D_np))
        goto done; /* the loop must write the result's dtype */
    L->cap = Py_NewRef(cap);
    L->info = info;
    for (int i = 0; i < nin; i++)
        L->in[i] = Py_NewRef(PyTuple_GET_ITEM(descrs, i));
    L->out = Py_NewRef(PyTuple_GET_ITEM(descrs, nin));
done:
    /* (NumPy refusing this loop: declined for good; a KeyboardInterrupt, MemoryError stays) */
    (void)contract_clear(PyExc_Exception);
    Py_XDECREF(tup);
    Py_XDECREF(got);
    Py_XDECREF(fixed);
    Py_XDECREF(fn);
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    Py_XDECREF(r);
    return L->cap != NULL;
}

/* The conversion of a Python scalar s into the dtype dt of the other operand (a
   DType), as NumPy's setitem does it, where it is restated here; else SC_NONE. */
static int
scalar_kind(PyObject *s, PyObject *dt, Py_ssize_t isz)
{
    char k = np_kind(dt);
    if (PyFloat_CheckExact(s) || PyLong_CheckExact(s)) {
        if (k == 'f')
            return isz == 4 ? SC_F32 : isz == 8 ? SC_F64 : SC_NONE; /* (float16: NumPy's own rounding) */
        if (PyLong_CheckExact(s) && (k == 'i' || k == 'u'))
            return k == 'i' ? SC_INT : SC_UINT;
        return SC_NONE;
    }
    if (PyComplex_CheckExact(s) && k == 'c')
        return isz == 8 ? SC_C64 : SC_C128;
    if (PyBool_Check(s) && k == 'b')
        return SC_BOOL;
    return SC_NONE;
}

/* L (a Fast's slot, or NULL) for the entry ent on dev (xs: the operands in kernel order,
   n of them), resolved on first use and whenever the entry or device is another; NULL
   (no error set) when ent is not a usable entry, NULL with an error set for one that
   must propagate. */
static Loop *
loop_for(Loop *L, PyObject *ent, PyObject *dev, PyObject *const *xs, int n)
{
    if (L == NULL || ent == NULL || dev == NULL)
        return NULL;
    if (L->ent == ent && L->dev == dev)
        return L;
    Loop fresh = {0};
    fresh.kernel = entry_kernel(ent, dev, &fresh.res);
    if (fresh.kernel == NULL)
        return NULL;
    fresh.ent = Py_NewRef(ent);
    fresh.dev = Py_NewRef(dev);
    if (loops_ready && Py_TYPE(fresh.kernel) == UF_T && contract_dtype(fresh.res)) {
        /* NumPy resolves with the arrays' dtypes and a weak scalar's Python type (bool
           is not weak: np.bool_, the array's dtype for the one conversion restated) */
        PyObject *dts[2];
        PyObject *adt = NULL;
        int ok = 1;
        for (int j = 0; j < n; j++)
            if (Py_TYPE(xs[j]) == Array_T) {
                PyObject *dt = SLOT(xs[j], O_dtype);
                ok &= dt != NULL && contract_dtype(dt);
                if (!ok)
                    break;
                adt = dt;
                dts[j] = SLOT(dt, D_np);
                fresh.isz[j] = PyLong_AsSsize_t(SLOT(dt, D_itemsize));
            }
            else
                fresh.sside = j + 1;
        fresh.isz[n] = PyLong_AsSsize_t(SLOT(fresh.res, D_itemsize));
        if (ok && fresh.sside) {
            int s = fresh.sside - 1;
            fresh.isz[s] = fresh.isz[1 - s];
            fresh.sc = scalar_kind(xs[s], adt, fresh.isz[s]);
            dts[s] = fresh.sc == SC_BOOL ? SLOT(adt, D_np) : (PyObject *)Py_TYPE(xs[s]);
            ok = fresh.sc != SC_NONE;
        }
        (void)contract_clear(PyExc_OverflowError); /* (an itemsize beyond Py_ssize_t) */
        if (ok && !PyErr_Occurred() && loop_resolve(&fresh, fresh.kernel, n, dts)) {
            /* computed in exactly the operands' dtypes (a scalar: the array's) */
            for (int j = 0; j < n; j++)
                ok &= fresh.in[j] == SLOT(Py_TYPE(xs[j]) == Array_T ? SLOT(xs[j], O_dtype) : adt, D_np);
            if (!ok) {
                Py_CLEAR(fresh.cap);
                fresh.info = NULL;
            }
        }
    }
    if (PyErr_Occurred()) { /* (an error that must propagate: nothing kept) */
        loop_clear(&fresh);
        return NULL;
    }
    /* (Python code ran above: another thread may have filled this slot; ours replaces it) */
    Loop old = *L;
    *L = fresh;
    loop_clear(&old);
    return L;
}

/* The scalar s as the loop's input in buf, converted as L->sc says: 1, or 0 where
   NumPy's conversion would raise or report an overflow (the ufunc path then runs). */
static int
scalar_to(const Loop *L, PyObject *s, void *buf)
{
    switch (L->sc) {
    case SC_F32:
    case SC_F64: {
        /* NumPy: PyNumber_Float (an int rounds to the nearest double), then the C cast */
        double d = PyFloat_CheckExact(s) ? PyFloat_AS_DOUBLE(s) : PyLong_AsDouble(s);
        if (d == -1.0 && PyErr_Occurred()) {
            (void)contract_clear(PyExc_OverflowError); /* (an int beyond a double) */
            return 0;
        }
        if (L->sc == SC_F64) {
            memcpy(buf, &d, sizeof d);
            return 1;
        }
        float v = (float)d;
        if (isinf(v) && !isinf(d))
            return 0;
        memcpy(buf, &v, sizeof v);
        return 1;
    }
    case SC_C64:
    case SC_C128: {
        Py_complex c = PyComplex_AsCComplex(s);
        if (L->sc == SC_C128) {
            memcpy(buf, &c, sizeof c);
            return 1;
        }
        float v[2] = {(float)c.real, (float)c.imag};
        if ((isinf(v[0]) && !isinf(c.real)) || (isinf(v[1]) && !isinf(c.imag)))
            return 0;
        memcpy(buf, v, sizeof v);
        return 1;
    }
    case SC_BOOL:
        *(unsigned char *)buf = s == Py_True;
        return 1;
    case SC_INT:
    case SC_UINT: {
        /* exact when in the dtype's range (outside it NumPy raises OverflowError) */
        int over, bits = (int)(8 * L->isz[L->sside - 1]);
        long long v = PyLong_AsLongLongAndOverflow(s, &over);
        unsigned long long u = (unsigned long long)v;
        if (v == -1 && PyErr_Occurred()) {
            (void)contract_clear(PyExc_OverflowError);
            return 0;
        }
        if (L->sc == SC_INT) {
            if (over || (bits < 64 && (v < -(1LL << (bits - 1)) || v >= (1LL << (bits - 1)))))
                return 0;
        }
        else if (over > 0 && bits == 64) {
            u = PyLong_AsUnsignedLongLong(s);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                (void)contract_clear(PyExc_OverflowError);
                return 0;
            }
        }
        else if (over || v < 0 || (bits < 64 && v >= (1LL << bits)))
            return 0;
        switch (bits) { /* the value in the dtype's own C type (either byte order) */
        case 8: { unsigned char t = (unsigned char)u; memcpy(buf, &t, 1); return 1; }
        case 16: { unsigned short t = (unsigned short)u; memcpy(buf, &t, 2); return 1; }
        case 32: { unsigned int t = (unsigned int)u; memcpy(buf, &t, 4); return 1; }
        case 64: memcpy(buf, &u, 8); return 1;
        }
        return 0;
    }
    }
    return 0;
}

/* NumPy's trivial loop (L) over the operands xs (n of them, kernel order: Arrays, whose
   small natives are nat[j], and a Python scalar at L->sside) into a fresh ndarray,
   wrapped as a result on dev: the Array, NULL with no error set where NumPy would not
   make exactly this one call (the ufunc path then runs), or NULL with an error set
   (out of memory). */
static PyObject *
loop_into(const Loop *L, PyObject *const *xs, PyObject *const *nat, int n, Py_ssize_t limit,
          PyObject *res, PyObject *dev)
{
    char *data[3];
    Py_ssize_t strides[3], count = 1;
    union { double d[2]; unsigned long long u; } sbuf;
    PyObject *shape = NULL; /* the result's: the first operand that is not 0-d */
    NDFields *first = NULL;
    int order = 0;
    for (int j = 0; j < n; j++) {
        if (L->sside == j + 1) {
            if (!scalar_to(L, xs[j], &sbuf))
                return NULL;
            data[j] = (char *)&sbuf;
            strides[j] = 0;
            continue;
        }
        NDFields *a = ND(nat[j]);
        if (a->descr != L->in[j] || !(a->flags & ND_ALIGNED))
            return NULL; /* NumPy would cast or copy first */
        data[j] = a->data;
        strides[j] = 0;
        if (a->nd == 0)
            continue;
        if (first == NULL) {
            first = a;
            shape = SLOT(xs[j], O_shape);
            if (shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != a->nd)
                return NULL;
            for (int d = 0; d < a->nd; d++)
                count *= a->dimensions[d];
        }
        else {
            if (a->nd != first->nd)
                return NULL; /* broadcasting: NumPy's iterator */
            for (int d = 0; d < a->nd; d++)
                if (a->dimensions[d] != first->dimensions[d])
                    return NULL;
        }
        if (a->nd == 1) {
            strides[j] = a->strides[0];
            continue;
        }
        /* N-d: contiguous in one order, which is C (an F-ordered result is NumPy's then) */
        int o = a->flags & (ND_C_CONTIGUOUS | ND_F_CONTIGUOUS);
        if (!(o & ND_C_CONTIGUOUS) || (order && o != order))
            return NULL;
        order = o;
        strides[j] = L->isz[j];
    }
    if (shape == NULL) /* every operand 0-d: a 0-d result */
        shape = SLOT(xs[L->sside == 1], O_shape);
    if (count * L->isz[n] >= limit)
        return NULL;
    strides[n] = L->isz[n];
    PyObject *args[2] = {shape, L->out};
    PyObject *r = PyObject_Vectorcall(np_empty, args, 2, NULL);
    if (r == NULL)
        return NULL;
    if (Py_TYPE(r) != ND_T || ND(r)->descr != args[1] || ND(r)->nd != PyTuple_GET_SIZE(shape)) {
        Py_DECREF(r);
        return NULL;
    }
    data[n] = ND(r)->data;
    if (count > 0) {
        int rc = L->info->strided_loop(L->info->context, data, &count, strides, L->info->auxdata);
        if (rc < 0 || PyErr_Occurred()) { /* the ufunc path raises NumPy's error */
            (void)contract_clear(PyExc_Exception); /* (KeyboardInterrupt, MemoryError stay) */
            Py_DECREF(r);
            return NULL;
        }
    }
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), Py_NewRef(shape), Py_NewRef(Py_None),
                     Py_NewRef(res), Py_NewRef(dev));
}

/* loop_into with the processor's floating-point status flags as they were before (the
   scalar's conversion and the loop may raise some). */
static PyObject *
loop_call(const Loop *L, PyObject *const *xs, PyObject *const *nat, int n, Py_ssize_t limit,
          PyObject *res, PyObject *dev)
{
    Flags fl;
    flags_save(&fl);
    PyObject *r = loop_into(L, xs, nat, n, limit, res, dev);
    flags_restore(&fl);
    return r;
}

/* --- the object: a fast case in front of a Python function ---------------------- */

/* K_API: no fast case of its own; the namespace-function wrapper of _dispatch.api:
   hand the call to the extension hook when an argument carries an extension, else
   call the function with the arguments as they came (no packing of args, kwargs). */
/* K_MATMUL: x1 @ x2 for matrices and vectors of one dtype (table: [result dtype or None
   per dtype index, the kernel]); K_WHERE: where(condition, x1, x2) for a bool condition
   and x1, x2 of one dtype (table: [the bool DType, the kernel]). K_QUIET: no fast
   case; the function under NumPy's "ignore" error state (_dispatch.quiet). */
/* K_ASTYPE: astype(x, dtype) of a small CPU array into another dtype (table: [the
   unbound ndarray.astype]); everything else as K_API. */
enum { K_API = 0, K_UNARY = 1, K_BINARY = 2, K_MATMUL = 3, K_WHERE = 4, K_QUIET = 5, K_ASTYPE = 6 };
static const Py_ssize_t NARGS[] = {-1, 1, 2, 2, 3, -1, 2};

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
    PyObject *last[3];  /* named: the last inputs' keys and their result names */
    Loop *loops;        /* K_UNARY, K_BINARY: per dtype (pair, or dtype and scalar): loop_slot */
    Py_ssize_t ndt;     /* the number of dtypes the loops were laid out for */
    Py_ssize_t nloops;
    int kind;           /* K_UNARY or K_BINARY: the positional arguments of the fast case */
    int swap;           /* a reflected operator: __radd__(self, other) computes other + self */
} Fast;

/* The Loop of dtype index i (unary), dtype pair (i, j) (binary, side 0), or dtype i with a
   Python scalar of column j on side 1 (first) or 2 (second); NULL outside the table. */
static inline Loop *
loop_slot(Fast *f, Py_ssize_t i, Py_ssize_t j, int side)
{
    Py_ssize_t n = f->ndt, k;
    if (f->loops == NULL || i < 0 || i >= n || j < 0 || j >= (side ? 4 : n))
        return NULL;
    if (f->kind == K_UNARY)
        k = i;
    else
        k = side ? n * n + ((side - 1) * n + i) * 4 + j : i * n + j;
    return &f->loops[k];
}

/* The call of a row entry ent on dev with the operands xs (kernel order, n of them:
   Arrays and a Python scalar), through its Loop slot (or NULL): NumPy's loop directly
   where it qualifies, else the kernel, under NumPy's "ignore" error state, on the
   natives; the result Array, or NULL (no error set: declined; an error: raised). */
static PyObject *
ew_call(Loop *slot, PyObject *ent, PyObject *dev, PyObject *const *xs, int n, int named)
{
    PyObject *nat[2] = {NULL, NULL}, *k, *res, *cap = NULL, *r = NULL;
    Loop L;
    Py_INCREF(dev); /* (held across the Python code below, as the kernel, result dtype and loop) */
    Loop *s = loop_for(slot, ent, dev, xs, n);
    if (s == NULL && PyErr_Occurred()) {
        Py_DECREF(dev);
        return NULL;
    }
    if (s != NULL) {
        L = *s;
        k = Py_NewRef(L.kernel);
        res = Py_NewRef(L.res);
        cap = Py_XNewRef(L.cap); /* (it owns the loop and its descriptors) */
    }
    else if ((k = entry_kernel(ent, dev, &res)) == NULL) {
        Py_DECREF(dev);
        return NULL;
    }
    Py_ssize_t limit = small_limit();
    for (int j = 0; j < n; j++)
        if ((nat[j] = Py_TYPE(xs[j]) != Array_T ? Py_NewRef(xs[j])
                      : (named ? small_native_any : small_native)(xs[j], limit)) == NULL)
            goto done;
    if (cap != NULL) {
        r = loop_call(&L, xs, nat, n, limit, res, dev);
        if (r != NULL || PyErr_Occurred())
            goto done;
    }
    r = run_kernel(k, nat, n);
    if (r != NULL)
        r = wrap(r, res, dev);
done:
    Py_XDECREF(nat[0]);
    Py_XDECREF(nat[1]);
    Py_XDECREF(cap);
    Py_DECREF(k);
    Py_DECREF(res);
    Py_DECREF(dev);
    return r;
}

static PyObject *
fast_unary(Fast *f, PyObject *x, int named)
{
    if (Py_TYPE(x) != Array_T)
        return NULL;
    Py_ssize_t i = dtype_index(SLOT(x, O_dtype));
    return ew_call(loop_slot(f, i, 0, 0), list_at(f->table, i), SLOT(x, O_device), &x, 1, named);
}

static PyObject *
fast_binary(Fast *f, PyObject *x1, PyObject *x2, int named)
{
    PyObject *ent, *dev;
    Loop *slot;
    int n1 = Py_TYPE(x1) == Array_T, n2 = Py_TYPE(x2) == Array_T;
    if (n1) {
        dev = SLOT(x1, O_device);
        Py_ssize_t i = dtype_index(SLOT(x1, O_dtype));
        if (n2) {
            if (SLOT(x2, O_device) != dev)
                return NULL;
            Py_ssize_t j = dtype_index(SLOT(x2, O_dtype));
            ent = list_at(list_at(f->table, i), j);
            slot = loop_slot(f, i, j, 0);
        }
        else {
            Py_ssize_t c = scalar_column(x2);
            if (c < 0)
                return NULL;
            ent = list_at(list_at(f->stable, i), c);
            slot = loop_slot(f, i, c, 2);
        }
    }
    else if (n2) {
        dev = SLOT(x2, O_device);
        Py_ssize_t i = dtype_index(SLOT(x2, O_dtype)), c = scalar_column(x1);
        if (c < 0)
            return NULL;
        ent = list_at(list_at(f->stable, i), c);
        slot = loop_slot(f, i, c, 1);
    }
    else
        return NULL;
    PyObject *xs[2] = {x1, x2};
    return ew_call(slot, ent, dev, xs, 2, named);
}

/* The Python definitions behind every Fast run NumPy's kernels too: they run under
   the same "ignore" error state (set for the outermost call; a nested call finds it
   set), so a user's warnings filter of "error" meets no RuntimeWarning from
   strided's own arithmetic on either path (strided/_dispatch.quiet, the fallback's
   twin). quiet_enter gives the token to reset with (Py_None: nothing to reset),
   NULL on error; quiet_exit resets it and passes r on (NULL on a reset error). */
static PyObject *
quiet_enter(void)
{
    if (!ready)
        return Py_NewRef(Py_None);
    PyObject *cur;
    if (PyContextVar_Get(errstate_var, NULL, &cur) < 0)
        return NULL;
    int set = cur == errstate_ignore;
    Py_XDECREF(cur);
    return set ? Py_NewRef(Py_None) : PyContextVar_Set(errstate_var, errstate_ignore);
}

static PyObject *
quiet_exit(PyObject *tok, PyObject *r)
{
    if (tok != Py_None) {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb); /* the call's own error, kept across the reset */
        if (PyContextVar_Reset(errstate_var, tok) < 0) {
            Py_CLEAR(r);
            Py_XDECREF(et), Py_XDECREF(ev), Py_XDECREF(tb);
        }
        else
            PyErr_Restore(et, ev, tb);
    }
    Py_DECREF(tok);
    return r;
}

/* fn(*args, **kwnames) under quiet_enter/quiet_exit. */
static PyObject *
call_quiet(PyObject *fn, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyObject *tok = quiet_enter();
    if (tok == NULL)
        return NULL;
    return quiet_exit(tok, PyObject_Vectorcall(fn, args, nargsf, kwnames));
}

/* Whether an Array carries an extension (``a._ext is not None``): 1, 0, or -1 with the
   error the Python wrapper's ``a._ext`` raises for a deleted or unset slot. */
static inline int
ext_of(PyObject *a)
{
    PyObject *e = SLOT(a, O_ext);
    if (e == NULL) {
        e = PyObject_GetAttr(a, s_ext); /* raises the AttributeError Python raises */
        if (e == NULL)
            return -1;
        Py_DECREF(e); /* (set since: a class attribute, or another thread) */
        return e != Py_None;
    }
    return e != Py_None;
}

/* _dispatch.api's has_ext for one positional argument: an Array, or a tuple or list of
   them (the wrapper's order and errors). */
static inline int
has_ext(PyObject *a)
{
    PyTypeObject *t = Py_TYPE(a);
    if (t == Array_T)
        return ext_of(a);
    if (t == &PyTuple_Type || t == &PyList_Type) {
        /* (a list may change size under us: index it afresh each time) */
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(a); i++) {
            PyObject *b = PySequence_Fast_GET_ITEM(a, i);
            if (Py_TYPE(b) == Array_T) {
                Py_INCREF(b);
                int e = ext_of(b);
                Py_DECREF(b);
                if (e != 0)
                    return e;
            }
        }
    }
    return 0;
}

/* A named call's arguments after x (vectorcall's: npos positional, then the keywords'
   values, kwnames their names): the part of its _RED key after (op, names, ndim, npos). */
typedef struct {
    PyObject *const *v;
    Py_ssize_t npos, nk;
    PyObject *kwnames;
} CallArgs;
static PyObject *named_call(Fast *f, PyObject *x, const CallArgs *c);
static PyObject *decline_error(void);

/* _dispatch.api's wrapper: hook(name, fn, args, kwargs) when an argument (or an
   array in a tuple/list argument, or a keyword argument) carries an extension. */
static PyObject *
api_call(Fast *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyObject *hook = PyList_CheckExact(f->hook) && PyList_GET_SIZE(f->hook) ? PyList_GET_ITEM(f->hook, 0)
                                                                            : Py_None;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nk = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (hook != Py_None) {
        int ext = 0;
        for (Py_ssize_t i = 0; i < n && !ext; i++)
            ext = has_ext(args[i]);
        for (Py_ssize_t i = 0; i < nk && !ext; i++)
            ext = Py_TYPE(args[n + i]) == Array_T ? ext_of(args[n + i]) : 0;
        if (ext < 0)
            return NULL;
        if (ext > 0 && n >= 1) {
            CallArgs c = {args + 1, n - 1, nk, kwnames};
            PyObject *r = named_call(f, args[0], &c);
            if (r != NULL || PyErr_Occurred())
                return r;
        }
        if (ext) {
            PyObject *tup = PyTuple_New(n), *kw = PyDict_New(), *r = NULL;
            if (tup == NULL || kw == NULL)
                goto done;
            for (Py_ssize_t i = 0; i < n; i++)
                PyTuple_SET_ITEM(tup, i, Py_NewRef(args[i]));
            for (Py_ssize_t i = 0; i < nk; i++)
                if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[n + i]) < 0)
                    goto done;
            Py_INCREF(hook); /* the hook may be uninstalled while it runs */
            PyObject *tok = quiet_enter();
            if (tok != NULL)
                r = quiet_exit(tok, PyObject_CallFunctionObjArgs(hook, f->name, f->fallback, tup, kw, NULL));
            Py_DECREF(hook);
        done:
            Py_XDECREF(tup);
            Py_XDECREF(kw);
            return r;
        }
    }
    return call_quiet(f->fallback, args, nargsf, kwnames);
}

/* The kernel call of matmul's and where's fast cases: kernel(natives of xs) wrapped as
   a result of dtype res on dev, each held across the call (Python code may run). */
static PyObject *
run_wrapped(PyObject *kernel, PyObject *const *xs, int n, PyObject *res, PyObject *dev)
{
    PyObject *args[3] = {NULL, NULL, NULL}, *r = NULL;
    Py_ssize_t limit = small_limit();
    Py_INCREF(kernel);
    Py_INCREF(res);
    Py_INCREF(dev);
    int i = 0;
    for (; i < n; i++)
        if ((args[i] = small_native(xs[i], limit)) == NULL)
            break;
    if (i == n) {
        r = run_kernel(kernel, args, n);
        if (r != NULL)
            r = wrap(r, res, dev);
    }
    for (i = 0; i < n; i++)
        Py_XDECREF(args[i]);
    Py_DECREF(kernel);
    Py_DECREF(res);
    Py_DECREF(dev);
    return r;
}

static PyObject *
fast_matmul(Fast *f, PyObject *x1, PyObject *x2)
{
    if (Py_TYPE(x1) != Array_T || Py_TYPE(x2) != Array_T || !contract_list2(f->table))
        return NULL;
    PyObject *dt = SLOT(x1, O_dtype), *dev = SLOT(x1, O_device);
    PyObject *s1 = SLOT(x1, O_shape), *s2 = SLOT(x2, O_shape);
    if (dt == NULL || dev == NULL || s1 == NULL || s2 == NULL || SLOT(x2, O_dtype) != dt
        || SLOT(x2, O_device) != dev || !PyTuple_CheckExact(s1) || !PyTuple_CheckExact(s2))
        return NULL;
    Py_ssize_t d1 = PyTuple_GET_SIZE(s1), d2 = PyTuple_GET_SIZE(s2);
    if (d1 < 1 || d1 > 2 || d2 < 1 || d2 > 2) /* stacks: numpy.matmul, in Python */
        return NULL;
    PyObject *res = list_at(PyList_GET_ITEM(f->table, 0), dtype_index(dt));
    if (res == NULL || !contract_dtype(res))
        return NULL;
    PyObject *xs[2] = {x1, x2};
    return run_wrapped(PyList_GET_ITEM(f->table, 1), xs, 2, res, dev);
}

/* where(c, x1, x2) without numpy.where's machinery, where NumPy's answer is plain to
   restate: operands of one shape (or 0-d), each 1-D (any stride) or C-contiguous, the
   result C-ordered as NumPy's is then; each element copied byte for byte from x1 where
   the condition's byte is nonzero, else from x2 (NaN payloads and signed zeros kept).
   The result Array, or NULL (no error set: declined; an error: out of memory). */
static PyObject *
where_direct(PyObject *const *xs, PyObject *const *nat, PyObject *dt, PyObject *dev, Py_ssize_t limit)
{
    if (!loops_ready || !contract_dtype(dt))
        return NULL;
    Py_ssize_t isz = PyLong_AsSsize_t(SLOT(dt, D_itemsize)), count = 1, step[3];
    char *p[3];
    NDFields *first = NULL;
    PyObject *shape = NULL;
    if (isz <= 0 || isz > 16) {
        (void)contract_clear(PyExc_OverflowError);
        return NULL;
    }
    for (int j = 0; j < 3; j++) {
        NDFields *a = ND(nat[j]);
        p[j] = a->data;
        step[j] = 0;
        if (a->nd == 0)
            continue;
        if (first == NULL) {
            first = a;
            shape = SLOT(xs[j], O_shape);
            if (shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != a->nd)
                return NULL;
            for (int d = 0; d < a->nd; d++)
                count *= a->dimensions[d];
        }
        else if (a->nd != first->nd || memcmp(a->dimensions, first->dimensions, a->nd * sizeof(Py_ssize_t)))
            return NULL; /* broadcasting: numpy.where */
        if (a->nd == 1)
            step[j] = a->strides[0];
        else if (a->flags & ND_C_CONTIGUOUS)
            step[j] = j ? isz : 1;
        else
            return NULL;
    }
    PyObject *cdt = SLOT(xs[0], O_dtype); /* (the bool DType: fast_where checked it) */
    if (ND(nat[1])->descr != SLOT(dt, D_np) || ND(nat[2])->descr != SLOT(dt, D_np)
        || cdt == NULL || !contract_dtype(cdt) || ND(nat[0])->descr != SLOT(cdt, D_np))
        return NULL;
    if (shape == NULL)
        shape = SLOT(xs[0], O_shape);
    if (count * isz >= limit)
        return NULL;
    PyObject *args[2] = {shape, SLOT(dt, D_np)};
    PyObject *r = PyObject_Vectorcall(np_empty, args, 2, NULL);
    if (r == NULL)
        return NULL;
    if (Py_TYPE(r) != ND_T || ND(r)->descr != args[1]) {
        Py_DECREF(r);
        return NULL;
    }
    char *o = ND(r)->data;
    for (Py_ssize_t i = 0; i < count; i++, o += isz) {
        memcpy(o, *p[0] ? p[1] : p[2], (size_t)isz);
        p[0] += step[0];
        p[1] += step[1];
        p[2] += step[2];
    }
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), Py_NewRef(shape), Py_NewRef(Py_None),
                     Py_NewRef(dt), Py_NewRef(dev));
}

static PyObject *
fast_where(Fast *f, PyObject *c, PyObject *x1, PyObject *x2)
{
    if (Py_TYPE(c) != Array_T || Py_TYPE(x1) != Array_T || Py_TYPE(x2) != Array_T
        || !contract_list2(f->table))
        return NULL;
    PyObject *dt = SLOT(x1, O_dtype), *dev = SLOT(x1, O_device);
    if (dt == NULL || dev == NULL || !contract_dtype(dt) || SLOT(c, O_dtype) != PyList_GET_ITEM(f->table, 0)
        || SLOT(x2, O_dtype) != dt || SLOT(c, O_device) != dev || SLOT(x2, O_device) != dev)
        return NULL;
    PyObject *xs[3] = {c, x1, x2}, *nat[3] = {NULL, NULL, NULL}, *r = NULL;
    Py_ssize_t limit = small_limit();
    Py_INCREF(dt);
    Py_INCREF(dev);
    for (int j = 0; j < 3; j++)
        if ((nat[j] = small_native(xs[j], limit)) == NULL)
            goto done;
    r = where_direct(xs, nat, dt, dev, limit);
    if (r == NULL && !PyErr_Occurred())
        r = run_wrapped(PyList_GET_ITEM(f->table, 1), xs, 3, dt, dev);
done:
    for (int j = 0; j < 3; j++)
        Py_XDECREF(nat[j]);
    Py_DECREF(dt);
    Py_DECREF(dev);
    return r;
}

/* astype(x, dtype) into another dtype, where the Python definition is just the native's
   astype wrapped (not complex to real, which raises; not floating to integer, which
   checks the range and warns): ndarray.astype under the "ignore" error state (NumPy
   reports an overflow in the cast through it), the FPU flags kept. */
static PyObject *
fast_astype(Fast *f, PyObject *x, PyObject *dt)
{
    if (Py_TYPE(x) != Array_T || SLOT(x, O_ext) != Py_None || !contract_dtype(dt)
        || dt == SLOT(x, O_dtype) || !contract_list1(f->table))
        return NULL;
    char from = np_kind(SLOT(x, O_dtype)), to = np_kind(dt);
    if (from == 0 || to == 0 || (from == 'c' && to != 'c') || (from == 'f' && (to == 'i' || to == 'u')))
        return NULL;
    PyObject *a = small_native(x, small_limit()), *r = NULL;
    if (a == NULL)
        return NULL;
    PyObject *args[2] = {a, SLOT(dt, D_np)}, *dev = Py_NewRef(SLOT(x, O_device));
    PyObject *shape = Py_NewRef(SLOT(x, O_shape));
    Py_INCREF(dt);
    Py_INCREF(args[1]);
    Flags fl;
    flags_save(&fl);
    r = run_kernel(PyList_GET_ITEM(f->table, 0), args, 2);
    flags_restore(&fl);
    Py_DECREF(a);
    if (r != NULL && (Py_TYPE(r) != ND_T || ND(r)->descr != args[1] || !PyTuple_CheckExact(shape)
                      || ND(r)->nd != PyTuple_GET_SIZE(shape)))
        Py_CLEAR(r);
    Py_DECREF(args[1]);
    if (r == NULL) {
        Py_DECREF(dt);
        Py_DECREF(dev);
        Py_DECREF(shape);
        return NULL;
    }
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None), dt, dev);
}

/* --- named dimensions ---------------------------------------------------------------
   Calls on named arrays (strided.named) whose name outcome the named handler has
   cached run here, the names coming from the handler's caches (the Python name rules
   stay the only definition):
   - an elementwise call (_handler._EW_NAMES, keyed by (row name, key of each input):
     its names, its ndim when unnamed, -1 for a scalar) runs the plain fast case and
     names the result with a fresh Ext, as the handler's own fast link does; inputs
     whose names differ only while auto_align() is off (else they are aligned first);
   - a reduction, or a view whose names follow from its arguments (_handler._RED:
     ``reduce(x, axis='C', keepdims=True)``, ``squeeze(x, axis=0)``), runs the
     function's body with the arguments the rule turned names into;
   - the views the compiled views compute (see "views" below: indexing, .T, .mT,
     permute, expand_dims, reshape) take their names from _handler._VIEW_NAMES.
   Only arrays whose Ext tracks no gradient (autograd, the one other handler, passes
   those through): anything else, and every first sight, goes to the Python path.
   Enabled by setup_named(), which strided.named calls when it installs its handler. */
static PyObject *ew_names;   /* _handler._EW_NAMES */
static PyObject *red_cache;  /* _handler._RED */
static PyObject *view_names; /* _handler._VIEW_NAMES */
static PyObject *auto_align; /* _handler.AUTO_ALIGN, a ContextVar */
static PyObject *s_getitem, *s_permute_dims, *s_expand_dims;
static PyObject *minus_one;

static PyObject *
setup_named(PyObject *mod, PyObject *args)
{
    PyObject *ext, *cache, *red, *views, *align;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O:setup_named", &PyType_Type, &ext, &PyDict_Type, &cache,
                          &PyDict_Type, &red, &PyDict_Type, &views, &align))
        return NULL;
    if (!PyContextVar_CheckExact(align)) {
        PyErr_SetString(PyExc_TypeError, "setup_named(): the auto-align setting must be a ContextVar");
        return NULL;
    }
    if (Ext_T != NULL && (PyObject *)Ext_T != ext) {
        PyErr_SetString(PyExc_TypeError, "setup_named(): another Ext class than the first call's");
        return NULL;
    }
    if (contract_setup((PyTypeObject *)ext, EXT_ROWS, N_ROWS(EXT_ROWS)) < 0)
        return NULL;
    if (Ext_T == NULL)
        Ext_T = (PyTypeObject *)Py_NewRef(ext);
    Py_XSETREF(ew_names, Py_NewRef(cache));
    Py_XSETREF(red_cache, Py_NewRef(red));
    Py_XSETREF(view_names, Py_NewRef(views));
    Py_XSETREF(auto_align, Py_NewRef(align));
    Py_RETURN_NONE;
}

/* Keys of the name caches. A cache key is hashed, and compared with the keys of a dict
   and with a call site's last key, only when hashing and comparing it runs no Python
   code: every part of it an exact str, int, float or bool, None, Ellipsis, or an exact tuple
   of those (dtypes: DType, whose hash and comparison are strided's own), compared by
   identity or, within one exact type, by value (so np.str_("a") is not "a", True is not
   1). Anything else declines to the Python path, which owns its own rules (a user's
   __eq__ that renames again, a str subclass). The key is built by the call and held by
   it (a strong reference) while it is looked up. */
static int
plain_key(PyObject *o, int depth)
{
    PyTypeObject *t = Py_TYPE(o);
    if (t == &PyUnicode_Type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type
        || o == Py_None || o == Py_Ellipsis || (t == DType_T && DType_T != NULL))
        return 1;
    if (t != &PyTuple_Type || depth <= 0)
        return 0;
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(o); i < n; i++)
        if (!plain_key(PyTuple_GET_ITEM(o, i), depth - 1))
            return 0;
    return 1;
}

/* Whether two cache keys are the same: by identity, else plain keys (plain_key) of one
   exact type and equal value, item by item for tuples; no Python code runs, no error. */
static int
plain_equal(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    PyTypeObject *t = Py_TYPE(a);
    if (t != Py_TYPE(b))
        return 0;
    if (t == &PyUnicode_Type)
        return PyUnicode_Compare(a, b) == 0; /* (two exact strs: no error) */
    if (t == &PyLong_Type || t == &PyFloat_Type)
        return PyObject_RichCompareBool(a, b, Py_EQ) == 1; /* (builtin: no code, no error) */
    if (t != &PyTuple_Type || PyTuple_GET_SIZE(a) != PyTuple_GET_SIZE(b))
        return 0; /* (bools, None, Ellipsis, DTypes: by identity) */
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(a); i < n; i++)
        if (!plain_equal(PyTuple_GET_ITEM(a, i), PyTuple_GET_ITEM(b, i)))
            return 0;
    return 1;
}

/* A names tuple: exact strs and None only (what strided.named makes; a tuple a user put
   in an Ext's names by hand declines). */
static int
plain_names(PyObject *names)
{
    if (!PyTuple_CheckExact(names))
        return 0;
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(names); i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(names, i);
        if (v != Py_None && !PyUnicode_CheckExact(v))
            return 0;
    }
    return 1;
}

/* x's names (borrowed) when x is an Array the compiled named paths may answer for: an
   Ext that tracks no gradient, and a names tuple; NULL (no error) otherwise. */
static PyObject *
untracked_names(PyObject *x)
{
    PyObject *e = SLOT(x, O_ext);
    if (e == NULL || !contract_ext(e) || SLOT(e, E_rg) != Py_False || SLOT(e, E_fn) != Py_None)
        return NULL;
    PyObject *names = SLOT(e, E_names);
    return PyTuple_CheckExact(names) ? names : NULL;
}

/* Whether auto_align() is off (its context variable holds False); an error reads as on
   and stays set (reading a context variable fails only out of memory). */
static int
auto_align_off(void)
{
    PyObject *v;
    if (auto_align == NULL || PyContextVar_Get(auto_align, NULL, &v) < 0)
        return 0;
    Py_XDECREF(v);
    return v == Py_False;
}

/* x's ndim as an int object (new reference), or NULL (no error) for a shape that is not
   a tuple (NULL with an error: out of memory). */
static inline PyObject *
ndim_key(PyObject *x)
{
    PyObject *shape = SLOT(x, O_shape);
    if (shape == NULL || !PyTuple_CheckExact(shape))
        return NULL;
    return PyLong_FromSsize_t(PyTuple_GET_SIZE(shape));
}

/* An operand's key in the name cache (new reference), or NULL (no error) to decline;
   a names tuple is checked (plain_names) where it is hashed or compared by value. */
static PyObject *
name_key(PyObject *x)
{
    if (Py_TYPE(x) != Array_T)
        return scalar_column(x) < 0 ? NULL : Py_NewRef(minus_one);
    PyObject *e = SLOT(x, O_ext);
    if (e == Py_None)
        return ndim_key(x);
    if (e == NULL || !contract_ext(e) || SLOT(e, E_rg) != Py_False || SLOT(e, E_fn) != Py_None)
        return NULL;
    PyObject *names = SLOT(e, E_names);
    if (names == Py_None)
        return ndim_key(x);
    return PyTuple_CheckExact(names) ? Py_NewRef(names) : NULL;
}

/* r (a fresh plain result, stolen) named ``names`` (borrowed; None: unnamed). */
static PyObject *
name_result(PyObject *r, PyObject *names)
{
    if (names == Py_None)
        return r;
    if (!PyTuple_CheckExact(names) || PyTuple_GET_SIZE(names) != PyTuple_GET_SIZE(SLOT(r, O_shape))) {
        Py_DECREF(r);
        return NULL; /* the handler raises its own error */
    }
    PyObject *e = Ext_T->tp_alloc(Ext_T, 0);
    if (e == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    SLOT(e, E_rg) = Py_NewRef(Py_False);
    SLOT(e, E_grad) = Py_NewRef(Py_None);
    SLOT(e, E_fn) = Py_NewRef(Py_None);
    SLOT(e, E_nr) = Py_NewRef(zero);
    SLOT(e, E_retains) = Py_NewRef(Py_False);
    SLOT(e, E_hooks) = Py_NewRef(Py_None);
    SLOT(e, E_names) = Py_NewRef(names);
    SLOT(e, E_view) = Py_NewRef(Py_False);
    SLOT(e, E_acc) = Py_NewRef(Py_None);
    Py_SETREF(SLOT(r, O_ext), e);
    return r;
}

/* Whether two names tuples are equal: item by item by identity first (names are mostly
   the same interned strs), else by value when both are plain names (plain_names); -1
   (no error) for names that are not. */
static int
same_names(PyObject *a, PyObject *b)
{
    Py_ssize_t n = PyTuple_GET_SIZE(a);
    if (n != PyTuple_GET_SIZE(b))
        return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyTuple_GET_ITEM(a, i) != PyTuple_GET_ITEM(b, i))
            return plain_names(a) && plain_names(b) ? plain_equal(a, b) : -1;
    return 1;
}

/* The named case of a unary (n == 1) or binary row, operands in kernel order. The
   last outcome is kept on the object, keyed by the identity of the inputs' keys
   (results carry the cache's own names tuple, so chains hit it). */
static PyObject *
fast_named(Fast *f, PyObject *const *xs, int n)
{
    if (ew_names == NULL || !PyUnicode_Check(f->name))
        return NULL;
    PyObject *k[2] = {NULL, NULL}, *names = NULL, *r = NULL;
    int named = 0;
    for (int i = 0; i < n; i++) {
        k[i] = name_key(xs[i]);
        if (k[i] == NULL)
            goto done;
        named |= PyTuple_CheckExact(k[i]);
    }
    if (!named)
        goto done;
    if (n == 2 && k[0] != k[1] && PyTuple_CheckExact(k[0]) && PyTuple_CheckExact(k[1])) {
        int eq = same_names(k[0], k[1]);
        if (eq < 0 || (!eq && !auto_align_off())) /* names that differ: the handler aligns them */
            goto done;
    }
    if (k[0] == f->last[0] && k[1] == f->last[1]) {
        names = Py_NewRef(f->last[2]);
    }
    else {
        /* (a key of plain parts only: the lookup runs no Python code) */
        if (!PyUnicode_CheckExact(f->name) || !plain_key(k[0], 1) || (n == 2 && !plain_key(k[1], 1)))
            goto done;
        PyObject *key = n == 1 ? PyTuple_Pack(2, f->name, k[0]) : PyTuple_Pack(3, f->name, k[0], k[1]);
        if (key == NULL)
            goto done; /* (out of memory: propagates) */
        names = PyDict_GetItemWithError(ew_names, key);
        Py_XINCREF(names);
        Py_DECREF(key);
        if (names == NULL)
            goto done; /* (a miss; an error propagates) */
        /* (names held: the kernel call may run code that clears the cache) */
        for (int i = 0; i < 2; i++)
            Py_XSETREF(f->last[i], Py_XNewRef(k[i]));
        Py_XSETREF(f->last[2], Py_NewRef(names));
    }
    r = n == 1 ? fast_unary(f, xs[0], 1) : fast_binary(f, xs[0], xs[1], 1);
    if (r != NULL)
        r = name_result(r, names);
done:
    Py_XDECREF(names);
    Py_XDECREF(k[0]);
    Py_XDECREF(k[1]);
    return r;
}

/* Whether a call (x's names, ndim, arguments) is the one ``key`` (a _RED key) was built
   from: by identity, or plain_equal (equal exact types: True == 1 must not match; no
   Python code runs). The call's arguments are plain keys (named_call checked them). */
static int
same_call(PyObject *key, PyObject *names, Py_ssize_t nd, const CallArgs *c)
{
    Py_ssize_t np = c->npos;
    if (key == NULL || PyTuple_GET_SIZE(key) != 4 + 2 * np + 3 * c->nk
        || PyTuple_GET_ITEM(key, 1) != names || PyLong_AsSsize_t(PyTuple_GET_ITEM(key, 2)) != nd
        || PyLong_AsSsize_t(PyTuple_GET_ITEM(key, 3)) != np + 1)
        return 0;
    for (Py_ssize_t i = 0; i < np + c->nk; i++) {
        Py_ssize_t at = i < np ? 4 + 2 * i : 4 + 2 * np + 3 * (i - np) + 1;
        PyObject *v = PyTuple_GET_ITEM(key, at + 1), *a = c->v[i];
        PyTypeObject *t = Py_TYPE(a);
        if ((PyObject *)t != PyTuple_GET_ITEM(key, at))
            return 0;
        if (i >= np && !plain_equal(PyTuple_GET_ITEM(key, at - 1), PyTuple_GET_ITEM(c->kwnames, i - np)))
            return 0;
        if (!plain_equal(v, a))
            return 0;
    }
    return 1;
}

/* A _RED outcome (positional arguments after x, {keyword: value}, result names) as the
   call makes it: (result names, the keywords' names, the positional arguments, the
   keywords' values...); NULL (no error) for another shape, NULL with an error: out of
   memory. */
static PyObject *
cached_call_form(PyObject *hit)
{
    if (!PyTuple_CheckExact(hit) || PyTuple_GET_SIZE(hit) != 3
        || !PyTuple_CheckExact(PyTuple_GET_ITEM(hit, 0)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(hit, 0)) > 4
        || !PyDict_CheckExact(PyTuple_GET_ITEM(hit, 1)) || PyDict_GET_SIZE(PyTuple_GET_ITEM(hit, 1)) > 8)
        return NULL;
    PyObject *kw = PyTuple_GET_ITEM(hit, 1), *k, *v;
    Py_ssize_t m = PyDict_GET_SIZE(kw), pos = 0, i = 0;
    PyObject *call = PyTuple_New(3 + m), *kn = PyTuple_New(m);
    if (call == NULL || kn == NULL) {
        Py_XDECREF(call);
        Py_XDECREF(kn);
        return NULL; /* (out of memory: propagates) */
    }
    PyTuple_SET_ITEM(call, 0, Py_NewRef(PyTuple_GET_ITEM(hit, 2)));
    PyTuple_SET_ITEM(call, 1, kn);
    PyTuple_SET_ITEM(call, 2, Py_NewRef(PyTuple_GET_ITEM(hit, 0)));
    while (i < m && PyDict_Next(kw, &pos, &k, &v)) {
        PyTuple_SET_ITEM(kn, i, Py_NewRef(k));
        PyTuple_SET_ITEM(call, 3 + i++, Py_NewRef(v));
    }
    if (i != m) {
        Py_DECREF(call);
        return NULL;
    }
    return call;
}

/* op(x, *args, **keywords) on a named array whose outcome the named handler has cached
   (_handler._RED, for reductions and the views whose names follow from their arguments:
   (op, names, ndim, the number of positional arguments, type and value of each after x,
   then name, type and value of each keyword) -> (positional arguments after x, keywords
   for the function, result names)): the function's body with those arguments, the
   result named as the handler's fast link names it; NULL (no error) to decline. A tuple
   argument must hold exact strs and ints (the cache's own rule: its items' types are
   not in the key). The call site keeps its last outcome (f->last: x's names, the key,
   the call as cached_call_form makes it): a loop finds it without building and hashing
   a key. */
static PyObject *
named_call(Fast *f, PyObject *x, const CallArgs *c)
{
    if (red_cache == NULL || Py_TYPE(x) != Array_T || !PyUnicode_CheckExact(f->name))
        return NULL;
    PyObject *names = untracked_names(x), *shape = SLOT(x, O_shape), *call;
    if (names == NULL || shape == NULL || !PyTuple_CheckExact(shape))
        return NULL;
    Py_ssize_t np = c->npos, nk = c->nk, nd = PyTuple_GET_SIZE(shape);
    /* (every part of the key plain, plain_key: an Array, a list, a str subclass, a user
       object with its own __eq__ or __hash__ take the Python path; a tuple holds exact
       strs and ints only, as _handler._simple says: its items' types are not in the key) */
    for (Py_ssize_t i = 0; i < np + nk; i++) {
        PyObject *a = c->v[i];
        if (!plain_key(a, 0) && !(PyTuple_CheckExact(a) && plain_key(a, 1)))
            return NULL;
        if (PyTuple_CheckExact(a))
            for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(a); j++)
                if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(a, j)) && !PyLong_CheckExact(PyTuple_GET_ITEM(a, j)))
                    return NULL;
        if (i >= np && !PyUnicode_CheckExact(PyTuple_GET_ITEM(c->kwnames, i - np)))
            return NULL;
    }
    if (f->last[0] == names && same_call(f->last[1], names, nd, c))
        call = Py_NewRef(f->last[2]);
    else {
        PyObject *key = PyTuple_New(4 + 2 * np + 3 * nk), *ndo = PyLong_FromSsize_t(nd);
        PyObject *npo = PyLong_FromSsize_t(np + 1);
        if (key == NULL || ndo == NULL || npo == NULL) {
            Py_XDECREF(key);
            Py_XDECREF(ndo);
            Py_XDECREF(npo);
            return NULL; /* (out of memory: propagates) */
        }
        PyTuple_SET_ITEM(key, 0, Py_NewRef(f->name));
        PyTuple_SET_ITEM(key, 1, Py_NewRef(names));
        PyTuple_SET_ITEM(key, 2, ndo);
        PyTuple_SET_ITEM(key, 3, npo);
        Py_ssize_t at = 4;
        for (Py_ssize_t i = 0; i < np + nk; i++) {
            if (i >= np)
                PyTuple_SET_ITEM(key, at++, Py_NewRef(PyTuple_GET_ITEM(c->kwnames, i - np)));
            PyTuple_SET_ITEM(key, at++, Py_NewRef((PyObject *)Py_TYPE(c->v[i])));
            PyTuple_SET_ITEM(key, at++, Py_NewRef(c->v[i]));
        }
        if (!plain_names(names)) {
            Py_DECREF(key);
            return NULL;
        }
        /* (the key holds what it is made of: a stored key's comparison runs no code of ours) */
        PyObject *hit = PyDict_GetItemWithError(red_cache, key);
        call = hit == NULL ? NULL : cached_call_form(hit);
        if (call == NULL) {
            Py_DECREF(key);
            return NULL; /* (a miss, or an error that propagates) */
        }
        Py_XSETREF(f->last[0], Py_NewRef(names));
        Py_XSETREF(f->last[1], key);
        Py_XSETREF(f->last[2], Py_NewRef(call));
    }
    /* (call is held: the body may run code that clears the cache) */
    PyObject *tail = PyTuple_GET_ITEM(call, 2), *kn = PyTuple_GET_ITEM(call, 1);
    Py_ssize_t nt = PyTuple_GET_SIZE(tail), m = PyTuple_GET_SIZE(kn);
    PyObject *argv[13] = {x};
    for (Py_ssize_t i = 0; i < nt; i++)
        argv[1 + i] = PyTuple_GET_ITEM(tail, i);
    for (Py_ssize_t i = 0; i < m; i++)
        argv[1 + nt + i] = PyTuple_GET_ITEM(call, 3 + i);
    PyObject *tok = quiet_enter();
    PyObject *r = tok == NULL ? NULL
                              : quiet_exit(tok, PyObject_Vectorcall(f->fallback, argv, 1 + nt, m ? kn : NULL));
    if (r == NULL) {
        Py_DECREF(call);
        return decline_error(); /* the Python path raises its own error */
    }
    /* a fresh unnamed result whose rank the names fit (as the handler); all None: unnamed */
    names = PyTuple_GET_ITEM(call, 0);
    int fits = contract_array(r) && r != x && SLOT(r, O_ext) == Py_None
               && PyTuple_CheckExact(names)
               && PyTuple_GET_SIZE(names) == PyTuple_GET_SIZE(SLOT(r, O_shape));
    int any = 0;
    for (Py_ssize_t i = 0; fits && i < PyTuple_GET_SIZE(names); i++)
        any |= PyTuple_GET_ITEM(names, i) != Py_None;
    if (!fits) {
        Py_DECREF(r);
        Py_DECREF(call);
        return NULL;
    }
    if (any)
        r = name_result(r, names);
    Py_DECREF(call);
    return r;
}

/* The cached outcome of the view (op, the array's names, sig) (_core.VIEW_NAMES; a new
   reference), or NULL when there is none yet (no error; an error set: out of memory).
   last[3] (the call site's: names, sig, outcome, held) keeps the last outcome found: an
   outcome is a function of its key, so it never goes stale, and a loop over one array
   finds it by the names' identity. The key is plain (plain_key: the caller's sig, the
   names checked here), so comparing it with last's and looking it up runs no Python code
   of its own; it is held by this call throughout. */
static PyObject *
view_outcome(PyObject *op, PyObject *names, PyObject *sig, PyObject **last)
{
    if (sig == NULL)
        return NULL;
    if (names == last[0] && plain_equal(sig, last[1]))
        return Py_NewRef(last[2]);
    if (view_names == NULL || !plain_names(names) || !plain_key(sig, 2))
        return NULL;
    PyObject *key = PyTuple_Pack(3, op, names, sig), *out;
    if (key == NULL)
        return NULL;
    out = PyDict_GetItemWithError(view_names, key);
    Py_XINCREF(out);
    Py_DECREF(key);
    if (out == NULL)
        return NULL; /* (a miss; an error propagates) */
    Py_XSETREF(last[0], Py_NewRef(names));
    Py_XSETREF(last[1], Py_NewRef(sig));
    Py_XSETREF(last[2], Py_NewRef(out));
    return out;
}

/* r, a fresh view of a named array (stolen), named by the cached outcome of the view
   (op, the array's names, sig) (view_outcome); NULL (r released, no error) when there is
   none yet. */
static PyObject *
named_view(PyObject *r, PyObject *op, PyObject *names, PyObject *sig, PyObject **last)
{
    PyObject *out = view_outcome(op, names, sig, last);
    if (out == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    /* (out held: an allocation may run a finalizer that replaces last[2]) */
    r = name_result(r, out);
    Py_DECREF(out);
    return r;
}

static inline int
plain(PyObject *x)
{
    return Py_TYPE(x) != Array_T || SLOT(x, O_ext) == Py_None;
}

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

enum { ELIDE_OFF, ELIDE_RECORD, ELIDE_PROBE, ELIDE_ON };
static int elide_mode = ELIDE_OFF;
static const char *elide_why = "not calibrated";
static PyThreadState *calib_tstate; /* the thread running calibrate() */
static int calib_depth;             /* its Fast calls in progress (only depth 0 counts) */
static int probes_passed;           /* borrowing calls the check let through */
static int chain_count, chain_overflow, chain_longest;
static struct {
    int n;
    void *pc[CHAIN_DEPTH];
} chains[CHAIN_KINDS];

#define CALIBRATING (elide_mode == ELIDE_RECORD || elide_mode == ELIDE_PROBE)

/* Whether this call came straight from the interpreter (a recorded chain); while
   recording, records the chain instead and answers 0. The chain starts above this
   file's own two frames (try_elide, into which this function is inlined, and
   fast_vectorcall: the compiler may duplicate their call sites, so their return
   addresses are not compared): with the caller of the Fast's vectorcall. */
#define OWN_FRAMES 2

#ifdef HAVE_CHAIN
/* What dladdr() says of a return address, while recording: 1 in this file, 2 in the
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
static __attribute__((noinline)) PyObject *
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
    PyObject *tok = quiet_enter();
    PyObject *r = tok == NULL ? NULL
                              : quiet_exit(tok, PyObject_CallFunctionObjArgs(f->elide, x1, x2, tmp, NULL));
    if (r == Py_None) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* calibrate(genuine, borrowing): records the C call chains of genuine() (which makes
   each kind of interpreter call on a temporary: operators, reflected operators,
   comparisons, namespace functions), then runs borrowing() (calls whose temporary is
   held by a container) and turns elision on only if none of those passed. Returns
   elision_state(). */
static PyObject *elision_state(PyObject *mod, PyObject *Py_UNUSED(ignored));

static PyObject *
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

/* elision_state(): (on, chains recorded, why) */
static PyObject *
elision_state(PyObject *mod, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(Ois)", elide_mode == ELIDE_ON ? Py_True : Py_False, chain_count, elide_why);
}

static PyObject *
fast_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Fast *f = (Fast *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (f->kind == K_ASTYPE && n == 2 && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)
        && ready && !CALIBRATING) {
        PyObject *r = fast_astype(f, args[0], args[1]);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    if (f->kind == K_API || f->kind == K_ASTYPE)
        return api_call(f, args, nargsf, kwnames);
    if (f->kind == K_QUIET)
        return call_quiet(f->fallback, args, nargsf, kwnames);
    /* contract.h: every Array argument as it should be, else the Python definition (and
       its error) */
    for (Py_ssize_t i = 0; i < n; i++)
        if (!contract_operand(args[i]))
            goto fallback;
    if (ready && !CALIBRATING && n == NARGS[f->kind]
        && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)) {
        PyObject *r;
        switch (f->kind) {
        case K_UNARY:
            r = plain(args[0]) ? fast_unary(f, args[0], 0) : fast_named(f, args, 1);
            break;
        case K_BINARY: {
            PyObject *xs[2] = {args[f->swap], args[!f->swap]};
            r = plain(xs[0]) && plain(xs[1]) ? fast_binary(f, xs[0], xs[1], 0) : fast_named(f, xs, 2);
            break;
        }
        case K_MATMUL:
            r = fast_matmul(f, args[0], args[1]);
            break;
        default:
            r = fast_where(f, args[0], args[1], args[2]);
        }
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    if (elide_mode != ELIDE_OFF && f->elide != Py_None && n == 2 && kwnames == NULL) {
        PyObject *r = try_elide(f, args);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
fallback:
    if (CALIBRATING) {
        calib_depth++;
        PyObject *r = call_quiet(f->fallback, args, nargsf, kwnames);
        calib_depth--;
        return r;
    }
    return call_quiet(f->fallback, args, nargsf, kwnames);
}

/* f (stolen) with its own copies of what its type would otherwise answer for: the
   fallback's docstring, module, name and qualified name. */
static PyObject *
own_identity(Fast *f, PyObject *fallback)
{
    f->dict = PyDict_New();
    if (f->dict == NULL) {
        Py_DECREF(f);
        return NULL;
    }
    static const char *own[] = {"__doc__", "__module__", "__name__", "__qualname__", NULL};
    for (const char **a = own; *a; a++) {
        PyObject *v = PyObject_GetAttrString(fallback, *a);
        if (v == NULL) {
            if (!contract_clear(PyExc_AttributeError)) {
                Py_DECREF(f);
                return NULL;
            }
            continue;
        }
        int err = PyDict_SetItemString(f->dict, *a, v);
        Py_DECREF(v);
        if (err < 0) {
            Py_DECREF(f);
            return NULL;
        }
    }
    return (PyObject *)f;
}

static PyObject *
fast_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *fallback, *table = Py_None, *stable = Py_None, *hook = Py_None, *name = Py_None;
    PyObject *elide = Py_None;
    int kind, swap = 0;
    static char *names[] = {"fallback", "kind", "table", "stable", "swap", "hook", "name", "elide",
                            NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|OOpOOO:Fast", names, &fallback, &kind,
                                     &table, &stable, &swap, &hook, &name, &elide))
        return NULL;
    if (Array_T == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Fast(): setup_array() first");
        return NULL;
    }
    if (!PyCallable_Check(fallback)
        || (kind == K_API ? !PyList_CheckExact(hook) || !PyUnicode_Check(name)
            : kind == K_ASTYPE ? !PyList_CheckExact(hook) || !PyUnicode_Check(name)
                                 || !PyList_CheckExact(table) || PyList_GET_SIZE(table) != 1
            : kind == K_UNARY ? !PyList_CheckExact(table)
            : kind == K_BINARY ? !PyList_CheckExact(table) || !PyList_CheckExact(stable)
            : kind == K_MATMUL || kind == K_WHERE
              ? !PyList_CheckExact(table) || PyList_GET_SIZE(table) != 2
                || (kind == K_MATMUL && !PyList_CheckExact(PyList_GET_ITEM(table, 0)))
            : kind != K_QUIET)
        || (elide != Py_None && (kind != K_BINARY || !PyCallable_Check(elide)))) {
        PyErr_SetString(PyExc_TypeError, "Fast(fallback, kind, table=None, stable=None, swap=False, "
                        "hook=None, name=None, elide=None): a callable; kind 0 (hook: a list, name: a str), "
                        "1 (table: a list), 2 (table and stable: lists; elide: a callable), "
                        "3 or 4 (table: [result dtypes or the bool dtype, kernel]), 5 (nothing else), "
                        "6 (as 0, table: [ndarray.astype])");
        return NULL;
    }
    Fast *f = (Fast *)type->tp_alloc(type, 0);
    if (f == NULL)
        return NULL;
    f->vectorcall = fast_vectorcall;
    f->fallback = Py_NewRef(fallback);
    f->table = Py_NewRef(table);
    f->stable = Py_NewRef(stable);
    f->hook = Py_NewRef(hook);
    f->name = Py_NewRef(name);
    f->elide = Py_NewRef(elide);
    f->kind = kind;
    f->swap = swap;
    if (kind == K_UNARY || kind == K_BINARY) {
        /* a Loop per dtype (unary); per dtype pair and per dtype, scalar column and side */
        Py_ssize_t n = f->ndt = PyList_GET_SIZE(table);
        f->nloops = kind == K_UNARY ? n : n * n + 2 * n * 4;
        f->loops = PyMem_Calloc(f->nloops ? f->nloops : 1, sizeof(Loop));
        if (f->loops == NULL) {
            Py_DECREF(f);
            return PyErr_NoMemory();
        }
    }
    return own_identity(f, fallback);
}

static int
fast_traverse(Fast *f, visitproc visit, void *arg)
{
    Py_VISIT(f->fallback);
    Py_VISIT(f->table);
    Py_VISIT(f->stable);
    Py_VISIT(f->hook);
    Py_VISIT(f->name);
    Py_VISIT(f->elide);
    Py_VISIT(f->last[0]);
    Py_VISIT(f->last[1]);
    Py_VISIT(f->last[2]);
    Py_VISIT(f->dict);
    for (Py_ssize_t i = 0; f->loops != NULL && i < f->nloops; i++) {
        Py_VISIT(f->loops[i].ent);
        Py_VISIT(f->loops[i].kernel);
    }
    return 0;
}

static int
fast_clear(Fast *f)
{
    Py_CLEAR(f->fallback);
    Py_CLEAR(f->table);
    Py_CLEAR(f->stable);
    Py_CLEAR(f->hook);
    Py_CLEAR(f->name);
    Py_CLEAR(f->elide);
    Py_CLEAR(f->last[0]);
    Py_CLEAR(f->last[1]);
    Py_CLEAR(f->last[2]);
    Py_CLEAR(f->dict);
    if (f->loops != NULL) {
        for (Py_ssize_t i = 0; i < f->nloops; i++)
            loop_clear(&f->loops[i]);
        PyMem_Free(f->loops);
        f->loops = NULL;
        f->nloops = 0;
    }
    return 0;
}

static void
fast_dealloc(Fast *f)
{
    PyObject_GC_UnTrack(f);
    fast_clear(f);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

/* As a class attribute it is a method: ``a.__add__`` binds, and the interpreter
   calls it unbound (Py_TPFLAGS_METHOD_DESCRIPTOR) for ``a + b``. */
static PyObject *
fast_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

/* Attributes: its own (__dict__), then the wrapped function's (__name__, __doc__,
   __module__, _impl, ...), so it stands in wherever the function is looked at. */
static PyObject *
fast_getattro(PyObject *self, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return r;
    PyErr_Clear();
    return PyObject_GetAttr(((Fast *)self)->fallback, name);
}

static PyObject *
fast_repr(Fast *f)
{
    return PyObject_Repr(f->fallback);
}

static PyObject *
fast_reduce(Fast *f, PyObject *Py_UNUSED(ignored))
{
    /* pickled as the function it wraps (by its qualified name, where that names us) */
    return PyObject_GetAttrString(f->fallback, "__qualname__");
}

static PyObject *
fast_wrapped(Fast *f, void *Py_UNUSED(c))
{
    return Py_NewRef(f->fallback);
}

static PyGetSetDef fast_getset[] = {
    {"__wrapped__", (getter)fast_wrapped, NULL, "the Python function this one stands in front of"},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict},
    {NULL},
};

static PyMethodDef fast_methods[] = {
    {"__reduce__", (PyCFunction)fast_reduce, METH_NOARGS, NULL},
    {NULL},
};

static PyTypeObject Fast_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._chot.Fast",
    .tp_doc = "Fast(fallback, kind, table=None, stable=None, swap=False, hook=None, name=None, "
              "elide=None): "
              "the compiled hot path of a call, in front of the Python function `fallback`.",
    .tp_basicsize = sizeof(Fast),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = fast_new,
    .tp_dealloc = (destructor)fast_dealloc,
    .tp_traverse = (traverseproc)fast_traverse,
    .tp_clear = (inquiry)fast_clear,
    .tp_vectorcall_offset = offsetof(Fast, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = fast_get,
    .tp_getattro = fast_getattro,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_dictoffset = offsetof(Fast, dict),
    .tp_repr = (reprfunc)fast_repr,
    .tp_getset = fast_getset,
    .tp_methods = fast_methods,
};

/* ====================================================================================
 * Views: the plain cases of indexing and of the view functions, in C.
 *
 * A view is integer arithmetic on (offset, shape, strides); the Python hot paths
 * (Array.__getitem__, .T, .mT, .contiguous() in _array.py; reshape, permute_dims,
 * expand_dims, unsqueeze in _views.py; the reshape/permute methods in _methods.py)
 * do it with a few cached tuples and a fresh Array. Here a ``View`` (a ``Fast`` of
 * another kind, same fields) or a ``ViewProp`` (a data descriptor in front of a
 * property) answers the case those hot paths answer, with the same result:
 *
 *     an Array (exact type, ``_ext is None``) whose layout is plain tuples of
 *     Python ints, and arguments of exact types (ints, slices, tuples of them).
 *
 * A lazy parent (a kernel result without a Storage yet) is materialized first
 * (its ``_materialize``), as the Python paths do; the child shares the parent's
 * Storage. The child's native view is the backend's own view of the parent's
 * (``p[key]``, ``p.reshape(shape)``, ``p.transpose(axes)``, ``p.T``) when the
 * parent's is cached, else None (built when a kernel needs it), as in Python.
 * Anything else -- other key types, Ellipsis, None, bools, out-of-range ints, zero
 * steps, negative sizes, keywords, arithmetic that would overflow -- declines
 * (NULL, no error set) and the Python function runs, raising its own errors.
 * ==================================================================================== */

#define MAXDIMS 64


static PyObject *s_materialize, *s_reshape, *s_transpose, *s_T, *s_strides;
static PyObject *unsq_keys[MAXDIMS + 1]; /* (slice(None),) * a + (None, Ellipsis), built on use */

/* A failed call into Python: ordinary exceptions are cleared (the caller declines and
   the Python path runs, raising its own); KeyboardInterrupt, MemoryError and friends
   propagate (contract.h, contract_decline). Returns NULL either way. */
static PyObject *
decline_error(void)
{
    return contract_decline();
}

/* The items of a tuple of exact Python ints (bools too when bools is set: *bools then
   says whether there was one), at most MAXDIMS of them; -1 (no error set) for
   anything else. */
static int
tuple_ints_or_bools(PyObject *t, Py_ssize_t *out, Py_ssize_t *n, int *bools)
{
    if (t == NULL || !PyTuple_CheckExact(t))
        return -1;
    Py_ssize_t m = PyTuple_GET_SIZE(t);
    if (m > MAXDIMS)
        return -1;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *v = PyTuple_GET_ITEM(t, i);
        if (!PyLong_CheckExact(v)) {
            if (bools == NULL || !PyBool_Check(v))
                return -1;
            *bools = 1;
        }
        Py_ssize_t x = PyLong_AsSsize_t(v);
        if (x == -1 && PyErr_Occurred()) {
            (void)contract_clear(PyExc_OverflowError); /* (the only error of an exact int) */
            return -1;
        }
        out[i] = x;
    }
    *n = m;
    return 0;
}

static inline int
tuple_ints(PyObject *t, Py_ssize_t *out, Py_ssize_t *n)
{
    return tuple_ints_or_bools(t, out, n, NULL);
}

/* x's layout in C: offset, shape and strides, after materializing a lazy x.
   0, or -1 to decline (an error set only for one that must propagate). */
typedef struct {
    Py_ssize_t nd, off;
    Py_ssize_t shape[MAXDIMS], str[MAXDIMS];
} Layout;

static int
get_layout(PyObject *x, Layout *L)
{
    PyObject *st = SLOT(x, O_st);
    if (st == NULL)
        return -1;
    if (st == Py_None) {
        PyObject *r = PyObject_CallMethodNoArgs(x, s_materialize);
        if (r == NULL) {
            decline_error();
            return -1;
        }
        Py_DECREF(r);
        st = SLOT(x, O_st);
        if (st == NULL || st == Py_None)
            return -1;
    }
    PyObject *off = SLOT(x, O_off);
    Py_ssize_t ns;
    if (off == NULL || !PyLong_CheckExact(off) || tuple_ints(SLOT(x, O_shape), L->shape, &L->nd)
        || tuple_ints(SLOT(x, O_str), L->str, &ns) || ns != L->nd)
        return -1;
    L->off = PyLong_AsSsize_t(off);
    if (L->off == -1 && PyErr_Occurred()) {
        (void)contract_clear(PyExc_OverflowError);
        return -1;
    }
    for (Py_ssize_t i = 0; i < L->nd; i++)
        if (L->shape[i] < 0)
            return -1;
    return 0;
}

/* A tuple of n C integers (new reference), or NULL with an error set. */
static PyObject *
ints_tuple(const Py_ssize_t *v, Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyLong_FromSsize_t(v[i]);
        if (o == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, o);
    }
    return t;
}

/* The child view of x: (offset, shape, strides) in C, its native view nat (stolen;
   Py_None when not cached), sharing x's Storage, dtype and device. shape_obj, when not
   NULL, is a tuple equal to shape (borrowed) that the child takes as it is. */
static PyObject *
make_view(PyObject *x, PyObject *nat, Py_ssize_t off, const Py_ssize_t *shape,
          const Py_ssize_t *str, Py_ssize_t nd, PyObject *shape_obj)
{
    PyObject *o = NULL, *sh = NULL, *sr = NULL;
    PyObject *xo = SLOT(x, O_off);
    Py_ssize_t xoff = xo != NULL && PyLong_CheckExact(xo) ? PyLong_AsSsize_t(xo) : -1;
    if (xoff == -1 && PyErr_Occurred())
        (void)contract_clear(PyExc_OverflowError);
    o = xo != NULL && xoff == off ? Py_NewRef(xo) : PyLong_FromSsize_t(off);
    sh = shape_obj != NULL ? Py_NewRef(shape_obj) : ints_tuple(shape, nd);
    sr = ints_tuple(str, nd);
    if (o == NULL || sh == NULL || sr == NULL) {
        Py_DECREF(nat);
        Py_XDECREF(o);
        Py_XDECREF(sh);
        Py_XDECREF(sr);
        return NULL;
    }
    PyObject *st = SLOT(x, O_st), *dt = SLOT(x, O_dtype), *dev = SLOT(x, O_device);
    if (st == NULL || dt == NULL || dev == NULL) { /* not reachable for an Array made by us */
        Py_DECREF(nat);
        Py_DECREF(o);
        Py_DECREF(sh);
        Py_DECREF(sr);
        return NULL;
    }
    return array_new(nat, Py_NewRef(st), o, sh, sr, Py_NewRef(dt), Py_NewRef(dev));
}

/* The parent's cached native view (new reference), or Py_None. */
static inline PyObject *
parent_native(PyObject *x)
{
    PyObject *p = SLOT(x, O_np);
    return Py_NewRef(p == NULL ? Py_None : p);
}

/* --- indexing: x[slice], x[int], x[(ints and slices, one per leading axis)] --------- */

static inline int
plain_index(PyObject *v)
{
    return v == Py_None || PyLong_CheckExact(v);
}

static PyObject *
view_getitem(PyObject *x, PyObject *key)
{
    PyTypeObject *tk = Py_TYPE(key);
    int single = tk == &PySlice_Type || tk == &PyLong_Type;
    if (!single && tk != &PyTuple_Type)
        return NULL;
    PyObject *shape = SLOT(x, O_shape);
    if (shape == NULL || !PyTuple_CheckExact(shape))
        return NULL;
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    Py_ssize_t nk = single ? 1 : PyTuple_GET_SIZE(key);
    if (nk > nd)
        return NULL;
    Layout L;
    if (get_layout(x, &L) < 0)
        return NULL;
    if (L.nd != nd)
        return NULL;
    Py_ssize_t oshape[MAXDIMS], ostr[MAXDIMS], no = 0, off = L.off;
    for (Py_ssize_t d = 0; d < nk; d++) {
        PyObject *k = single ? key : PyTuple_GET_ITEM(key, d);
        Py_ssize_t n = L.shape[d], s = L.str[d];
        if (Py_TYPE(k) == &PySlice_Type) {
            PySliceObject *sl = (PySliceObject *)k;
            Py_ssize_t start, stop, step, t;
            if (!plain_index(sl->start) || !plain_index(sl->stop) || !plain_index(sl->step))
                return NULL;
            if (PySlice_Unpack(k, &start, &stop, &step) < 0) /* a zero step */
                return decline_error();
            Py_ssize_t len = PySlice_AdjustIndices(n, &start, &stop, step);
            if (len) {
                if (__builtin_mul_overflow(start, s, &t) || __builtin_add_overflow(off, t, &off))
                    return NULL;
            }
            if (__builtin_mul_overflow(s, step, &t))
                return NULL;
            oshape[no] = len;
            ostr[no++] = t;
        }
        else if (PyLong_CheckExact(k)) {
            Py_ssize_t i = PyLong_AsSsize_t(k), t;
            if (i == -1 && PyErr_Occurred())
                return decline_error();
            if (i < -n || i >= n)
                return NULL; /* the Python path raises the IndexError */
            if (i < 0)
                i += n;
            if (__builtin_mul_overflow(i, s, &t) || __builtin_add_overflow(off, t, &off))
                return NULL;
        }
        else
            return NULL;
    }
    for (Py_ssize_t d = nk; d < nd; d++) {
        oshape[no] = L.shape[d];
        ostr[no++] = L.str[d];
    }
    /* the native view: the parent's indexed by the same key ("..." keeps an all-int
       key's element a 0-d view, as in the Python path) */
    PyObject *p = parent_native(x), *nat;
    if (p == Py_None)
        nat = p;
    else {
        if (no == 0 || tk == &PyLong_Type) {
            PyObject *k2 = single ? PyTuple_Pack(2, key, Py_Ellipsis) : NULL;
            if (!single) {
                k2 = PyTuple_New(nk + 1);
                if (k2 != NULL) {
                    for (Py_ssize_t i = 0; i < nk; i++)
                        PyTuple_SET_ITEM(k2, i, Py_NewRef(PyTuple_GET_ITEM(key, i)));
                    PyTuple_SET_ITEM(k2, nk, Py_NewRef(Py_Ellipsis));
                }
            }
            if (k2 == NULL) {
                Py_DECREF(p);
                return NULL;
            }
            nat = PyObject_GetItem(p, k2);
            Py_DECREF(k2);
        }
        else
            nat = PyObject_GetItem(p, key);
        Py_DECREF(p);
        if (nat == NULL)
            return decline_error();
    }
    return make_view(x, nat, off, oshape, ostr, no, NULL);
}

/* x[key] for an index Array key (not 0-d, no extension, on x's device) when both natives
   are cached CPU ndarrays: NumPy's advanced indexing of them, a fresh array, wrapped as
   indexing.advanced_getitem's hot path wraps it. NumPy refuses a key that is not of an
   integer or boolean dtype, or out of bounds: the Python path then raises its error. */
static PyObject *
view_take(PyObject *x, PyObject *key)
{
    if (!loops_ready || !contract_array(key) || SLOT(key, O_ext) != Py_None
        || SLOT(key, O_device) != SLOT(x, O_device) || PyTuple_GET_SIZE(SLOT(key, O_shape)) == 0)
        return NULL;
    PyObject *a = SLOT(x, O_np), *k = SLOT(key, O_np), *dt = SLOT(x, O_dtype), *r;
    if (Py_TYPE(a) != ND_T || Py_TYPE(k) != ND_T || !contract_dtype(dt))
        return NULL;
    Py_INCREF(a);
    Py_INCREF(k);
    Py_INCREF(dt);
    r = PyObject_GetItem(a, k);
    Py_DECREF(a);
    Py_DECREF(k);
    if (r == NULL) {
        Py_DECREF(dt);
        return decline_error();
    }
    /* (a result that is a view of its own buffer: the Python path copies it) */
    PyObject *shape = NULL;
    if (Py_TYPE(r) == ND_T && ND(r)->base == NULL && ND(r)->descr == SLOT(dt, D_np))
        shape = ints_tuple(ND(r)->dimensions, ND(r)->nd);
    if (shape == NULL) {
        Py_DECREF(r);
        Py_DECREF(dt);
        return decline_error();
    }
    PyObject *dev = SLOT(x, O_device);
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None), dt,
                     Py_NewRef(dev));
}

/* --- x[slice] = a Python real scalar ------------------------------------------------- */

/* Array.__setitem__'s hot path: a Python bool, int or float written into a slice of a
   floating array (dts: float16, float32, float64) on the CPU through its cached native
   view (no stride 0: no element written twice), the floating-point status flags kept,
   then its Storage's version bumped. A value that overflows the dtype is left to the
   Python path (NumPy reports that overflow through its error state: ignored there).
   1: done; 0: declined, nothing written (the Python path runs and raises what it
   raises); -1: an error that must propagate. */
static int
view_setitem_in(PyObject *dts, PyObject *x, PyObject *key, PyObject *value)
{
    PyTypeObject *tv = Py_TYPE(value);
    if (!ready || Py_TYPE(key) != &PySlice_Type
        || (tv != &PyFloat_Type && tv != &PyLong_Type && tv != &PyBool_Type))
        return 0;
    PyObject *p = SLOT(x, O_np), *st = SLOT(x, O_st), *str = SLOT(x, O_str), *dt = SLOT(x, O_dtype);
    if (Py_TYPE(p) != ND_T || st == Py_None || !PyTuple_CheckExact(str) || !PyTuple_CheckExact(dts))
        return 0;
    Py_ssize_t which = -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dts) && i < 3; i++)
        if (PyTuple_GET_ITEM(dts, i) == dt)
            which = i;
    double d = tv == &PyFloat_Type ? PyFloat_AS_DOUBLE(value) : PyLong_AsDouble(value);
    if (d == -1.0 && PyErr_Occurred()) { /* (an int beyond a double: Python raises) */
        (void)contract_clear(PyExc_OverflowError);
        return 0;
    }
    /* (NumPy's conversions: (float)d, npy_double_to_half, which rounds to inf from 65520) */
    int ok = which >= 0 && (isinf(d) || isnan(d)
                            || (which == 0 ? fabs(d) < 65504.0 : which == 1 ? !isinf((float)d) : 1));
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(str); i++) {
        PyObject *s = PyTuple_GET_ITEM(str, i);
        ok = PyLong_CheckExact(s) && PyObject_IsTrue(s) == 1; /* (an exact int: no code runs) */
    }
    PyObject *ver = SLOT(st, S_version);
    if (!ok || ver == NULL || !PyLong_CheckExact(ver))
        return 0;
    Py_INCREF(p);
    Py_INCREF(st);
    int rc = PyObject_SetItem(p, key, value);
    Py_DECREF(p);
    if (rc == 0) { /* st._version += 1 */
        ver = SLOT(st, S_version);
        PyObject *nv = ver != NULL && PyLong_CheckExact(ver) ? PyNumber_Add(ver, one) : NULL;
        if (nv == NULL) {
            Py_DECREF(st);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError, "__setitem__(): the storage's version counter changed type");
            return -1;
        }
        Py_SETREF(SLOT(st, S_version), nv);
    }
    Py_DECREF(st);
    if (rc == -1 && contract_clear(PyExc_Exception)) /* (KeyboardInterrupt, MemoryError: -1) */
        return 0;
    return rc < 0 ? -1 : 1;
}

static int
view_setitem(PyObject *dts, PyObject *x, PyObject *key, PyObject *value)
{
    Flags fl; /* (the range check's conversion and NumPy's raise some) */
    flags_save(&fl);
    int r = view_setitem_in(dts, x, key, value);
    flags_restore(&fl);
    return r;
}

/* --- contiguous(): self when row-major contiguous ------------------------------------ */

/* _layout.is_contiguous: size-1 dimensions take any stride, an empty array is contiguous. */
static int
c_contiguous(const Py_ssize_t *shape, const Py_ssize_t *str, Py_ssize_t nd, Py_ssize_t unit)
{
    Py_ssize_t expected = unit;
    for (Py_ssize_t i = nd - 1; i >= 0; i--) {
        if (shape[i] == 0)
            return 1;
        if (shape[i] != 1) {
            if (str[i] != expected)
                return 0;
            if (__builtin_mul_overflow(expected, shape[i], &expected))
                return 0;
        }
    }
    return 1;
}

static PyObject *
view_contiguous(PyObject *x)
{
    Py_ssize_t shape[MAXDIMS], str[MAXDIMS], nd, ns;
    PyObject *s = SLOT(x, O_str);
    if (tuple_ints(SLOT(x, O_shape), shape, &nd))
        return NULL;
    if (s == Py_None) {
        /* a lazy kernel result: its native array's byte strides */
        PyObject *p = SLOT(x, O_np);
        if (ND_T == NULL || p == NULL || Py_TYPE(p) != ND_T)
            return NULL;
        PyObject *dt = SLOT(x, O_dtype), *isz;
        if (dt == NULL || Py_TYPE(dt) != DType_T)
            return NULL;
        isz = SLOT(dt, D_itemsize);
        if (isz == NULL || !PyLong_CheckExact(isz))
            return NULL;
        Py_ssize_t unit = PyLong_AsSsize_t(isz);
        if (unit <= 0) {
            (void)contract_clear(PyExc_OverflowError);
            return NULL;
        }
        PyObject *bs = PyObject_GetAttr(p, s_strides);
        if (bs == NULL)
            return decline_error();
        int ok = tuple_ints(bs, str, &ns) == 0 && ns == nd && c_contiguous(shape, str, nd, unit);
        Py_DECREF(bs);
        return ok ? Py_NewRef(x) : NULL;
    }
    if (tuple_ints(s, str, &ns) || ns != nd || !c_contiguous(shape, str, nd, 1))
        return NULL; /* the Python path copies */
    return Py_NewRef(x);
}

/* --- reshape of a contiguous array ---------------------------------------------------- */

/* Row-major strides of shape as _layout.contiguous_strides has them (a size-0 or
   size-1 dimension multiplies by 1). 0, or -1 on overflow. */
static int
contiguous_strides(const Py_ssize_t *shape, Py_ssize_t nd, Py_ssize_t *out)
{
    Py_ssize_t acc = 1;
    for (Py_ssize_t i = nd - 1; i >= 0; i--) {
        out[i] = acc;
        if (shape[i] > 1 && __builtin_mul_overflow(acc, shape[i], &acc))
            return -1;
    }
    return 0;
}

static int
size_of(const Py_ssize_t *shape, Py_ssize_t nd, Py_ssize_t *n)
{
    Py_ssize_t acc = 1;
    for (Py_ssize_t i = 0; i < nd; i++)
        if (shape[i] < 0 || __builtin_mul_overflow(acc, shape[i], &acc))
            return -1;
    *n = acc;
    return 0;
}

/* x viewed with shape (a tuple of exact non-negative ints, borrowed), when x's strides
   are its shape's contiguous strides (the Python hot path's test). */
static PyObject *
view_reshape(PyObject *x, PyObject *shape)
{
    Py_ssize_t nshape[MAXDIMS], nstr[MAXDIMS], cstr[MAXDIMS], nn, n_new, n_old;
    if (tuple_ints(shape, nshape, &nn) || size_of(nshape, nn, &n_new)
        || contiguous_strides(nshape, nn, nstr))
        return NULL;
    Layout L;
    if (get_layout(x, &L) < 0)
        return NULL;
    if (size_of(L.shape, L.nd, &n_old) || n_old != n_new || contiguous_strides(L.shape, L.nd, cstr))
        return NULL;
    for (Py_ssize_t i = 0; i < L.nd; i++)
        if (L.str[i] != cstr[i])
            return NULL; /* not contiguous (or size-1 dimensions with other strides) */
    PyObject *p = parent_native(x), *nat;
    if (p == Py_None)
        nat = p;
    else {
        PyObject *args[2] = {p, shape};
        nat = PyObject_VectorcallMethod(s_reshape, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(p);
        if (nat == NULL)
            return decline_error();
    }
    return make_view(x, nat, L.off, nshape, nstr, nn, shape);
}

/* --- permute_dims / permute ------------------------------------------------------------ */

/* axes: a tuple of exact ints (borrowed), a permutation of range(ndim) (negative axes
   counted from the end, as the general path normalises them, and as there the child's
   native view is left to be built on use; bools are ints, as the Python path's cache
   takes them, and NumPy gets the ints). */
static PyObject *
view_permute(PyObject *x, PyObject *axes)
{
    Py_ssize_t ax[MAXDIMS], na, oshape[MAXDIMS], ostr[MAXDIMS];
    char seen[MAXDIMS] = {0};
    int bools = 0, negative = 0;
    if (tuple_ints_or_bools(axes, ax, &na, &bools))
        return NULL;
    if (bools)  /* a bool is no axis: the Python definition raises TypeError */
        return NULL;
    Layout L;
    if (get_layout(x, &L) < 0 || na != L.nd)
        return NULL;
    for (Py_ssize_t i = 0; i < na; i++) {
        Py_ssize_t a = ax[i];
        if (a < -na || a >= na)
            return NULL;
        if (a < 0) {
            a += na;
            negative = 1;
        }
        if (seen[a])
            return NULL;
        seen[a] = 1;
        ax[i] = a;
        oshape[i] = L.shape[a];
        ostr[i] = L.str[a];
    }
    PyObject *p = negative ? Py_NewRef(Py_None) : parent_native(x), *nat;
    if (p == Py_None)
        nat = p;
    else {
        PyObject *ints = bools ? ints_tuple(ax, na) : Py_NewRef(axes);
        if (ints == NULL) {
            Py_DECREF(p);
            return NULL;
        }
        PyObject *args[2] = {p, ints};
        nat = PyObject_VectorcallMethod(s_transpose, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(ints);
        Py_DECREF(p);
        if (nat == NULL)
            return decline_error();
    }
    return make_view(x, nat, L.off, oshape, ostr, na, NULL);
}

/* --- expand_dims / unsqueeze with one int axis ---------------------------------------- */

static PyObject *
view_expand(PyObject *x, PyObject *axis)
{
    if (!PyLong_CheckExact(axis))
        return NULL;
    Py_ssize_t a = PyLong_AsSsize_t(axis), oshape[MAXDIMS], ostr[MAXDIMS];
    if (a == -1 && PyErr_Occurred())
        return decline_error();
    Layout L;
    if (get_layout(x, &L) < 0 || L.nd >= MAXDIMS)
        return NULL;
    Py_ssize_t nd = L.nd;
    if (a < -nd - 1 || a > nd)
        return NULL; /* the Python path raises */
    if (a < 0)
        a += nd + 1;
    for (Py_ssize_t i = 0, j = 0; i <= nd; i++) {
        if (i == a) {
            oshape[i] = 1;
            if (a < nd) {
                if (__builtin_mul_overflow(L.str[a], L.shape[a], &ostr[i]))
                    return NULL;
            }
            else
                ostr[i] = 1;
        }
        else {
            oshape[i] = L.shape[j];
            ostr[i] = L.str[j++];
        }
    }
    PyObject *p = parent_native(x), *nat;
    if (p == Py_None)
        nat = p;
    else {
        /* NumPy's own view: p[None] for axis 0, p[(slice(None),) * a + (None, ...)] */
        PyObject *k = Py_None;
        if (a > 0) {
            k = unsq_keys[a];
            if (k == NULL) {
                k = PyTuple_New(a + 2);
                PyObject *all = k == NULL ? NULL : PySlice_New(NULL, NULL, NULL);
                if (all == NULL) {
                    Py_XDECREF(k);
                    Py_DECREF(p);
                    return NULL;
                }
                for (Py_ssize_t i = 0; i < a; i++)
                    PyTuple_SET_ITEM(k, i, Py_NewRef(all));
                Py_DECREF(all);
                PyTuple_SET_ITEM(k, a, Py_NewRef(Py_None));
                PyTuple_SET_ITEM(k, a + 1, Py_NewRef(Py_Ellipsis));
                unsq_keys[a] = k;
            }
        }
        nat = PyObject_GetItem(p, k);
        Py_DECREF(p);
        if (nat == NULL)
            return decline_error();
    }
    return make_view(x, nat, L.off, oshape, ostr, nd + 1, NULL);
}

/* --- .T and .mT ------------------------------------------------------------------------ */

/* x.T (t: a 2-D x; the child's native view NumPy's .T of a cached parent's) or x.mT
   (at least 2-D; the native view built when a kernel needs it, as in Python). */
static PyObject *
view_swap_last(PyObject *x, int t)
{
    Layout L;
    PyObject *shape = SLOT(x, O_shape);
    if (shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) < 2
        || (t && PyTuple_GET_SIZE(shape) != 2))
        return NULL; /* the Python property raises */
    if (get_layout(x, &L) < 0 || L.nd != PyTuple_GET_SIZE(shape))
        return NULL;
    int native = t;
    Py_ssize_t v, nd = L.nd;
    v = L.shape[nd - 1], L.shape[nd - 1] = L.shape[nd - 2], L.shape[nd - 2] = v;
    v = L.str[nd - 1], L.str[nd - 1] = L.str[nd - 2], L.str[nd - 2] = v;
    PyObject *p = native ? parent_native(x) : Py_NewRef(Py_None), *nat;
    if (p == Py_None)
        nat = p;
    else {
        nat = PyObject_GetAttr(p, s_T);
        Py_DECREF(p);
        if (nat == NULL)
            return decline_error();
    }
    return make_view(x, nat, L.off, L.shape, L.str, nd, NULL);
}

/* --- rename / refine_names: a view with x's own layout ------------------------------------ */

static PyObject *
view_alias(PyObject *x)
{
    Layout L;
    if (get_layout(x, &L) < 0)
        return NULL;
    return make_view(x, parent_native(x), L.off, L.shape, L.str, L.nd, SLOT(x, O_shape));
}

/* --- align_to: permuted, size-1 dims inserted ----------------------------------------------- */

/* The arguments of rename, refine_names and align_to that a cached outcome may answer
   for: each an exact str, None or Ellipsis (what strided.named's _remember caches; an
   np.str_, a str subclass, a user object with its own __eq__ take the Python path, which
   raises or answers by its own rules, whatever was cached before). */
static int
name_args(PyObject *const *items, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (items[i] != Py_None && items[i] != Py_Ellipsis && !PyUnicode_CheckExact(items[i]))
            return 0;
    return 1;
}

/* x.align_to(*items) of a named array seen before: its outcome (_core.VIEW_NAMES[("align_to",
   names, items)] = (target names, perm, new dims)) is x permuted by perm, with size-1
   dims inserted at the sorted positions new dims as _layout.unsqueeze inserts them, named
   target (_core.relayout); NULL (no error) to decline. */
static PyObject *
view_aligned(Fast *f, PyObject *x, PyObject *names, PyObject *const *items, Py_ssize_t n)
{
    if (!name_args(items, n))
        return NULL;
    PyObject *sig = PyTuple_New(n), *out;
    if (sig == NULL)
        return NULL; /* (out of memory: propagates) */
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(sig, i, Py_NewRef(items[i]));
    out = view_outcome(f->table, names, sig, f->last); /* (held: materializing x runs Python code) */
    Py_DECREF(sig);
    Py_ssize_t perm[MAXDIMS], add[MAXDIMS], np, na, shape[MAXDIMS], str[MAXDIMS];
    Layout L;
    if (out == NULL)
        return NULL;
    if (!PyTuple_CheckExact(out) || PyTuple_GET_SIZE(out) != 3
        || tuple_ints(PyTuple_GET_ITEM(out, 1), perm, &np) || tuple_ints(PyTuple_GET_ITEM(out, 2), add, &na)
        || get_layout(x, &L) < 0 || np != L.nd || np + na > MAXDIMS)
        goto decline;
    for (Py_ssize_t i = 0; i < np; i++) {
        if (perm[i] < 0 || perm[i] >= np)
            goto decline;
        shape[i] = L.shape[perm[i]];
        str[i] = L.str[perm[i]];
    }
    Py_ssize_t nd = np;
    for (Py_ssize_t k = 0; k < na; k++, nd++) {
        Py_ssize_t a = add[k], st = 1;
        if (a < 0 || a > nd || (a < nd && __builtin_mul_overflow(str[a], shape[a], &st)))
            goto decline;
        memmove(shape + a + 1, shape + a, (nd - a) * sizeof(Py_ssize_t));
        memmove(str + a + 1, str + a, (nd - a) * sizeof(Py_ssize_t));
        shape[a] = 1;
        str[a] = st;
    }
    PyObject *r = make_view(x, Py_NewRef(Py_None), L.off, shape, str, nd, NULL);
    if (r != NULL)
        r = name_result(r, PyTuple_GET_ITEM(out, 0));
    Py_DECREF(out);
    return r;
decline:
    Py_DECREF(out);
    return NULL;
}

/* --- the objects ----------------------------------------------------------------------- */

/* V_RENAME: rename / refine_names of a named array (strided.named), f->table their name:
   answered only with a cached outcome (named_view); V_ALIGN: align_to, the same way. */
enum { V_GETITEM = 1, V_CONTIGUOUS, V_RESHAPE, V_RESHAPE_M, V_PERMUTE, V_PERMUTE_M, V_EXPAND,
       V_SETITEM, V_RENAME, V_ALIGN, V_T, V_MT };

/* The trailing positional ints of a method call (``x.reshape(2, 5)``) as a tuple (new
   reference); NULL (no error set) unless they are all exact ints or bools (the view
   then checks the tuple's items as it checks a tuple argument's). */
static PyObject *
args_tuple(PyObject *const *args, Py_ssize_t n)
{
    if (n > MAXDIMS)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyLong_CheckExact(args[i]) && !PyBool_Check(args[i]))
            return NULL;
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return decline_error();
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
    return t;
}

/* A method's argument: one tuple (``x.permute((2, 0, 1))``) or the ints themselves. */
static PyObject *
view_with_dims(PyObject *x, PyObject *const *args, Py_ssize_t n,
               PyObject *(*view)(PyObject *, PyObject *))
{
    if (n == 1 && PyTuple_CheckExact(args[0]))
        return view(x, args[0]);
    PyObject *t = args_tuple(args, n);
    if (t == NULL)
        return NULL;
    PyObject *r = view(x, t);
    Py_DECREF(t);
    return r;
}

static inline int
kw_is(PyObject *kwnames, Py_ssize_t i, const char *name)
{
    PyObject *k = PyTuple_GET_ITEM(kwnames, i);
    return PyUnicode_Check(k) && PyUnicode_CompareWithASCIIString(k, name) == 0;
}

/* x[key]'s key in the named views' cache (_handler._index_signature): 1 << (entries),
   plus bit i for an int entry i; key is a slice, an int or a tuple of them (as
   view_getitem takes it). New reference, or NULL (no error: declined; an error: out of
   memory). */
static PyObject *
index_signature(PyObject *key)
{
    int single = !PyTuple_CheckExact(key);
    Py_ssize_t nk = single ? 1 : PyTuple_GET_SIZE(key);
    if (nk > 60)
        return NULL;
    unsigned long long sig = 1ULL << nk;
    for (Py_ssize_t i = 0; i < nk; i++)
        if (PyLong_CheckExact(single ? key : PyTuple_GET_ITEM(key, i)))
            sig |= 1ULL << i;
    return PyLong_FromUnsignedLongLong(sig); /* (NULL: out of memory, propagates) */
}

/* permute's axes (items[0..n), or the one tuple items[0]) of a named array with each
   name given as its position in names (as _core.name_to_axis finds it): a new tuple of
   ints, or NULL (no error) when one is not a name of the array, nor an int (an error:
   out of memory). */
static PyObject *
axes_by_name(PyObject *names, PyObject *const *items, Py_ssize_t n)
{
    if (n == 1 && PyTuple_CheckExact(items[0])) {
        n = PyTuple_GET_SIZE(items[0]);
        items = &PyTuple_GET_ITEM(items[0], 0);
    }
    if (n > MAXDIMS)
        return NULL;
    Py_ssize_t ax[MAXDIMS], nn = PyTuple_GET_SIZE(names);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = items[i];
        if (PyLong_CheckExact(a)) {
            ax[i] = PyLong_AsSsize_t(a);
            if (ax[i] == -1 && PyErr_Occurred()) {
                (void)contract_clear(PyExc_OverflowError);
                return NULL;
            }
            continue;
        }
        if (!PyUnicode_CheckExact(a))
            return NULL;
        Py_ssize_t j = 0;
        while (j < nn && !(PyUnicode_Check(PyTuple_GET_ITEM(names, j))
                           && PyUnicode_Compare(PyTuple_GET_ITEM(names, j), a) == 0))
            j++;
        if (j == nn)
            return NULL; /* the Python path reports the unknown name */
        ax[i] = j;
    }
    return ints_tuple(ax, n); /* (NULL: out of memory, propagates) */
}

/* The view of a named array x (names: its names) that view_vectorcall computed, r
   (stolen), named by the handler's cached outcome for the same call (_handler._VIEW_KEYS
   says which arguments the key holds); NULL (no error) when there is none. */
static PyObject *
name_view(Fast *f, PyObject *r, PyObject *x, PyObject *names, PyObject *const *args,
          Py_ssize_t n, Py_ssize_t nkw)
{
    PyObject *op = NULL, *sig = NULL;
    if (r == x) /* contiguous(): the array itself, its names and all */
        return r;
    switch (f->kind) {
    case V_GETITEM:
        op = s_getitem, sig = index_signature(args[1]);
        break;
    case V_RESHAPE:
    case V_RESHAPE_M: /* (reshaping drops the names, whatever the shape) */
        op = s_reshape, sig = PyTuple_New(0);
        break;
    case V_PERMUTE:
    case V_PERMUTE_M:
        op = s_permute_dims, sig = n == 2 && PyTuple_CheckExact(args[1]) ? Py_NewRef(args[1])
                                                                         : args_tuple(args + 1, n - 1);
        break;
    case V_EXPAND: /* (the one int axis: given, as a keyword too, or the default) */
        op = s_expand_dims, sig = Py_NewRef(n + nkw == 2 ? args[1] : zero);
        break;
    case V_RENAME: /* (the names given; the same names: the array itself, as in Python) */
        if (!name_args(args + 1, n - 1)) {
            Py_DECREF(r);
            return NULL;
        }
        op = f->table, sig = PyTuple_New(n - 1);
        for (Py_ssize_t i = 1; sig != NULL && i < n; i++)
            PyTuple_SET_ITEM(sig, i - 1, Py_NewRef(args[i]));
        r = named_view(r, op, names, sig, f->last);
        Py_XDECREF(sig);
        if (r != NULL && SLOT(r, O_ext) != Py_None) {
            /* (both plain names: named_view found them by plain keys; no Python code runs) */
            PyObject *got = SLOT(SLOT(r, O_ext), E_names);
            if (plain_names(got) && plain_names(names) && plain_equal(got, names)) {
                Py_DECREF(r);
                return Py_NewRef(x);
            }
        }
        return r;
    }
    if (op == NULL) {
        Py_XDECREF(sig);
        Py_DECREF(r);
        return NULL;
    }
    r = named_view(r, op, names, sig, f->last);
    Py_XDECREF(sig);
    return r;
}

static PyObject *view_call(Fast *f, PyObject *x, PyObject *names, PyObject *const *args,
                           Py_ssize_t n, PyObject *kwnames, Py_ssize_t nkw);

static PyObject *
view_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Fast *f = (Fast *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *names = NULL; /* a named x: its names (the result takes cached names) */
    if (views_ready && n >= 1 && contract_array(args[0])
        && (SLOT(args[0], O_ext) == Py_None || (names = untracked_names(args[0])) != NULL)) {
        PyObject *x = args[0];
        Py_XINCREF(names); /* (held: materializing x runs Python code) */
        PyObject *r = view_call(f, x, names, args, n, kwnames, nkw);
        Py_XDECREF(names);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    return call_quiet(f->fallback, args, nargsf, kwnames);
}

/* view_vectorcall's fast cases: the view, or NULL (an error set only for one that must
   propagate) for the Python definition. */
static PyObject *
view_call(Fast *f, PyObject *x, PyObject *names, PyObject *const *args, Py_ssize_t n,
          PyObject *kwnames, Py_ssize_t nkw)
{
    PyObject *r = NULL;
    switch (f->kind) {
    case V_GETITEM:
        if (n == 2 && nkw == 0)
            r = Py_TYPE(args[1]) != Array_T ? view_getitem(x, args[1])
                : names == NULL ? view_take(x, args[1]) : NULL;
        break;
    case V_CONTIGUOUS:
        if (n == 1 && nkw == 0)
            r = view_contiguous(x);
        break;
    case V_SETITEM: /* x[key] = value (a plain x: a named one takes the Python path's hook) */
        if (names == NULL && n == 3 && nkw == 0) {
            int done = view_setitem(f->table, x, args[1], args[2]);
            if (done != 0)
                return done < 0 ? NULL : Py_NewRef(Py_None);
        }
        break;
    case V_RESHAPE: /* reshape(x, shape, *, copy=None) */
        if (n == 2 && (nkw == 0 || (nkw == 1 && kw_is(kwnames, 0, "copy") && args[2] == Py_None)))
            r = view_reshape(x, args[1]);
        break;
    case V_RESHAPE_M: /* x.reshape(2, 5) or x.reshape((2, 5)) */
        if (n >= 2 && nkw == 0)
            r = view_with_dims(x, args + 1, n - 1, view_reshape);
        break;
    case V_PERMUTE: /* permute_dims(x, axes) */
        if (n == 2 && nkw == 0)
            r = view_permute(x, args[1]);
        break;
    case V_PERMUTE_M: /* x.permute(2, 0, 1) or x.permute((2, 0, 1)) */
        if (n >= 2 && nkw == 0)
            r = view_with_dims(x, args + 1, n - 1, view_permute);
        break;
    case V_EXPAND: /* expand_dims(x, axis=0) / unsqueeze(x, dim): f->table names the keyword */
        if (n == 2 && nkw == 0)
            r = view_expand(x, args[1]);
        else if (n == 1 && nkw == 1 && PyUnicode_Check(f->table)
                 && PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), f->table) == 0)
            r = view_expand(x, args[1]);
        else if (n == 1 && nkw == 0 && PyUnicode_Check(f->table)
                 && PyUnicode_CompareWithASCIIString(f->table, "axis") == 0)
            r = view_expand(x, zero); /* expand_dims's default axis */
        break;
    case V_RENAME: /* x.rename('a', 'b'): x's layout, the names name_view finds */
        if (names != NULL && nkw == 0 && PyUnicode_Check(f->table))
            r = view_alias(x);
        break;
    case V_ALIGN: /* x.align_to('c', 'r'): named here (the layout comes with the names) */
        if (names != NULL && nkw == 0 && PyUnicode_Check(f->table))
            return view_aligned(f, x, names, args + 1, n - 1);
        break;
    }
    if (r == NULL && names != NULL && nkw == 0 && n >= 2 && !PyErr_Occurred()
        && (f->kind == V_PERMUTE || f->kind == V_PERMUTE_M)) {
        /* dims given by name: their positions, and the permutation's cached names */
        PyObject *ax = axes_by_name(names, args + 1, f->kind == V_PERMUTE ? 1 : n - 1);
        if (ax != NULL) {
            r = view_permute(x, ax);
            if (r != NULL)
                r = named_view(r, s_permute_dims, names, ax, f->last);
            Py_DECREF(ax);
        }
    }
    else if (r != NULL && names != NULL)
        r = name_view(f, r, x, names, args, n, nkw);
    return r;
}

static PyObject *
view_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *fallback, *kwname = Py_None;
    int kind;
    static char *names[] = {"fallback", "kind", "keyword", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|O:View", names, &fallback, &kind, &kwname))
        return NULL;
    if (kind < V_GETITEM || kind >= V_T || !PyCallable_Check(fallback)
        || (kind == V_SETITEM ? !PyTuple_CheckExact(kwname)
                              : kwname != Py_None && !PyUnicode_Check(kwname))) {
        PyErr_SetString(PyExc_TypeError, "View(fallback, kind[, keyword]): a callable, a view "
                        "kind, a keyword name or None (SETITEM: a tuple of the floating DTypes)");
        return NULL;
    }
    Fast *f = (Fast *)type->tp_alloc(type, 0);
    if (f == NULL)
        return NULL;
    f->vectorcall = view_vectorcall;
    f->fallback = Py_NewRef(fallback);
    f->table = Py_NewRef(kwname);
    f->stable = Py_NewRef(Py_None);
    f->kind = kind;
    f->swap = 0;
    return own_identity(f, fallback);
}

/* A Fast of another constructor and vectorcall: everything else (binding, attributes,
   pickling, GC) is inherited from Fast (tp_base, set in PyInit). */
static PyTypeObject View_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._chot.View",
    .tp_doc = "View(fallback, kind[, keyword]): the compiled hot path of a view (indexing, "
              "contiguous, reshape, permute, expand_dims), in front of the Python function `fallback`.",
    .tp_basicsize = sizeof(Fast),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = view_new,
    .tp_traverse = (traverseproc)fast_traverse,
    .tp_clear = (inquiry)fast_clear,
};

/* ``Array.T`` and ``Array.mT``: a property (a subclass of it, so the property it stands
   in for keeps its getter, docstring and kind for tools) whose instance access answers
   the plain case in C; everything else is the property's getter. Its fields follow the
   property's: a __dict__ (where property.__init__ puts a subclass's __doc__) and the kind.
   The offsets are set in PyInit (the property's size is not in the public headers). */
static Py_ssize_t VP_dict, VP_kind;
static PyObject *swap_perms[MAXDIMS + 1]; /* (0, ..., nd - 1, nd - 2) per nd, built on use */
static PyObject *prop_last[3];            /* named_view's last outcome of .T and .mT */

static PyObject *
prop_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    PyObject *names = NULL; /* a named array: as in view_vectorcall */
    if (views_ready && contract_array(obj)
        && (SLOT(obj, O_ext) == Py_None || (names = untracked_names(obj)) != NULL)) {
        Py_XINCREF(names); /* (held: materializing obj runs Python code) */
        PyObject *r = view_swap_last(obj, *(int *)((char *)self + VP_kind) == V_T);
        if (r != NULL && names != NULL) {
            /* x.T and x.mT of a named array are permute_dims with the last two axes
               swapped (that permutation built once per ndim) */
            Py_ssize_t nd = PyTuple_GET_SIZE(SLOT(r, O_shape)), ax[MAXDIMS];
            if (swap_perms[nd] == NULL) {
                for (Py_ssize_t i = 0; i < nd; i++)
                    ax[i] = i;
                ax[nd - 2] = nd - 1, ax[nd - 1] = nd - 2;
                swap_perms[nd] = ints_tuple(ax, nd); /* (NULL: out of memory, propagates) */
            }
            r = named_view(r, s_permute_dims, names, swap_perms[nd], prop_last);
        }
        Py_XDECREF(names);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    return PyProperty_Type.tp_descr_get(self, obj, type);
}

/* ViewProp(prop, kind): the getter, setter, deleter and docstring of the property prop. */
static int
prop_init(PyObject *self, PyObject *args, PyObject *kw)
{
    PyObject *prop;
    int kind;
    if (!PyArg_ParseTuple(args, "O!i:ViewProp", &PyProperty_Type, &prop, &kind))
        return -1;
    if (kind != V_T && kind != V_MT) {
        PyErr_SetString(PyExc_ValueError, "ViewProp(prop, kind): kind T or MT");
        return -1;
    }
    PyObject *parts = PyTuple_New(4);
    if (parts == NULL)
        return -1;
    static const char *names[] = {"fget", "fset", "fdel", "__doc__"};
    for (int i = 0; i < 4; i++) {
        PyObject *v = PyObject_GetAttrString(prop, names[i]);
        if (v == NULL) {
            Py_DECREF(parts);
            return -1;
        }
        PyTuple_SET_ITEM(parts, i, v);
    }
    int r = PyProperty_Type.tp_init(self, parts, NULL);
    if (r == 0) {
        /* the docstring in its own __dict__, where it is found before this type's */
        PyObject **dict = (PyObject **)((char *)self + VP_dict);
        if (*dict == NULL)
            *dict = PyDict_New();
        if (*dict == NULL || PyDict_SetItemString(*dict, "__doc__", PyTuple_GET_ITEM(parts, 3)) < 0)
            r = -1;
        else
            *(int *)((char *)self + VP_kind) = kind;
    }
    Py_DECREF(parts);
    return r;
}

static int
prop_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(*(PyObject **)((char *)self + VP_dict));
    return PyProperty_Type.tp_traverse(self, visit, arg);
}

static int
prop_clear(PyObject *self)
{
    Py_CLEAR(*(PyObject **)((char *)self + VP_dict));
    return PyProperty_Type.tp_clear != NULL ? PyProperty_Type.tp_clear(self) : 0;
}

static void
prop_dealloc(PyObject *self)
{
    Py_CLEAR(*(PyObject **)((char *)self + VP_dict));
    PyProperty_Type.tp_dealloc(self);
}

static PyTypeObject ViewProp_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._chot.ViewProp",
    .tp_doc = "ViewProp(prop, kind): the property prop (Array.T or Array.mT) with the compiled "
              "hot path of its view in front of its getter.",
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_init = prop_init,
    .tp_descr_get = prop_get,
    .tp_traverse = prop_traverse,
    .tp_clear = prop_clear,
    .tp_dealloc = prop_dealloc,
};

static PyMethodDef methods[] = {
    {"setup_array", setup_array, METH_VARARGS,
     "setup_array(Array, DType, Storage, Device): the classes whose slots the hot path reads "
     "and writes (contract.h)."},
    {"setup_named", setup_named, METH_VARARGS,
     "setup_named(Ext, name_cache, reduction_axis_cache): named elementwise calls and "
     "reductions over one named axis with a cached name outcome in C."},
    {"setup", setup, METH_VARARGS,
     "setup(ndarray, nat, pool_threshold_list, elide_bytes, errstate_var, errstate_ignore, "
     "ignore_context): what the elementwise fast cases need to know, once."},
    {"setup_loops", setup_loops, METH_VARARGS,
     "setup_loops(ufunc, empty, probe, address, shape, strides, c_contiguous, aligned): call "
     "NumPy's inner loops directly when the probe ndarray's fields read as Python reports."},
    {"calibrate", calibrate, METH_VARARGS,
     "calibrate(genuine, borrowing): record the C call chains of interpreter calls on a "
     "temporary, check that borrowing calls are told apart, and turn temporary elision on."},
    {"elision_state", elision_state, METH_NOARGS,
     "elision_state(): (on, call chains recorded, why)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided._csrc._chot",
    "The compiled hot path of plain elementwise calls (see strided/_api/elementwise.py) and of "
    "views (strided/_core/array.py, _views.py, _methods.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__chot(void)
{
    /* ViewProp: a property with a __dict__ and the kind after the property's own fields */
    VP_dict = PyProperty_Type.tp_basicsize;
    VP_kind = VP_dict + (Py_ssize_t)sizeof(PyObject *);
    ViewProp_T.tp_base = &PyProperty_Type;
    ViewProp_T.tp_basicsize = VP_kind + (Py_ssize_t)sizeof(PyObject *);
    ViewProp_T.tp_dictoffset = VP_dict;
    View_T.tp_base = &Fast_T;
    if (PyType_Ready(&Fast_T) < 0 || PyType_Ready(&View_T) < 0 || PyType_Ready(&ViewProp_T) < 0)
        return NULL;
    zero = PyLong_FromLong(0);
    minus_one = PyLong_FromLong(-1);
    one = PyLong_FromLong(1);
    s_getitem = PyUnicode_InternFromString("getitem");
    s_permute_dims = PyUnicode_InternFromString("permute_dims");
    s_expand_dims = PyUnicode_InternFromString("expand_dims");
    s_dtype = PyUnicode_InternFromString("dtype");
    s_ext = PyUnicode_InternFromString("_ext");
    s_shape = PyUnicode_InternFromString("shape");
    s_materialize = PyUnicode_InternFromString("_materialize");
    s_reshape = PyUnicode_InternFromString("reshape");
    s_transpose = PyUnicode_InternFromString("transpose");
    s_T = PyUnicode_InternFromString("T");
    s_strides = PyUnicode_InternFromString("strides");
    s_resolve = PyUnicode_InternFromString("_resolve_dtypes_and_context");
    s_get_loop = PyUnicode_InternFromString("_get_strided_loop");
    s_fixed_strides = PyUnicode_InternFromString("fixed_strides");
    if (zero == NULL || minus_one == NULL || one == NULL || s_getitem == NULL
        || s_permute_dims == NULL || s_expand_dims == NULL || s_dtype == NULL || s_ext == NULL || s_shape == NULL || s_materialize == NULL
        || s_reshape == NULL || s_transpose == NULL || s_T == NULL || s_strides == NULL
        || s_resolve == NULL || s_get_loop == NULL || s_fixed_strides == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Fast", (PyObject *)&Fast_T) < 0
        || PyModule_AddObjectRef(m, "View", (PyObject *)&View_T) < 0
        || PyModule_AddObjectRef(m, "ViewProp", (PyObject *)&ViewProp_T) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    static const struct { const char *name; int kind; } kinds[] = {
        {"GETITEM", V_GETITEM}, {"CONTIGUOUS", V_CONTIGUOUS}, {"RESHAPE", V_RESHAPE},
        {"RESHAPE_METHOD", V_RESHAPE_M}, {"PERMUTE", V_PERMUTE}, {"PERMUTE_METHOD", V_PERMUTE_M},
        {"EXPAND", V_EXPAND}, {"SETITEM", V_SETITEM}, {"RENAME", V_RENAME}, {"ALIGN", V_ALIGN},
        {"T", V_T}, {"MT", V_MT}, {NULL, 0}};
    for (int i = 0; kinds[i].name; i++)
        if (PyModule_AddIntConstant(m, kinds[i].name, kinds[i].kind) < 0) {
            Py_DECREF(m);
            return NULL;
        }
    return m;
}
