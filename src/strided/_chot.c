/* strided._chot: the compiled hot path of the plain elementwise call.
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
 * fresh Array -- without a Python frame. Everything else (other operand types,
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
 * Array's fields are the Python class's __slots__: ``setup`` reads their
 * offsets from the slot descriptors once, so a result is built exactly as
 * ``object.__new__(Array)`` and eight slot stores would build it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* --- what setup() is told once ---------------------------------------------- */
static PyTypeObject *Array_T;   /* strided.Array */
static PyTypeObject *ND_T;      /* numpy.ndarray */
static Py_ssize_t O_np, O_st, O_off, O_shape, O_str, O_dtype, O_device, O_ext;
static Py_ssize_t D_index, D_np, D_itemsize; /* DType's slots */
static PyObject *nat_fn;        /* _elementwise._nat(x): builds and caches x._np */
static PyObject *big_list;      /* _pool.MIN_BYTES: [bytes], the pooled-buffer threshold */
static Py_ssize_t elide_bytes;  /* _elementwise._ELIDE_BYTES */
static PyObject *errstate_var;  /* NumPy's ufunc error-state context variable */
static PyObject *errstate_ignore; /* its value under np.errstate(all="ignore") */
static PyObject *ignore_ctx;    /* a Context holding just that value */
static PyObject *zero;
static PyObject *s_dtype, *s_shape;
static int ready;

static int
slot_offset(PyTypeObject *t, const char *name, Py_ssize_t *off)
{
    PyObject *d = PyDict_GetItemString(t->tp_dict, name);
    if (d == NULL || Py_TYPE(d) != &PyMemberDescr_Type) {
        PyErr_Format(PyExc_TypeError, "setup(): %s.%s is not a __slots__ member", t->tp_name, name);
        return -1;
    }
    PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
    if (m->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "setup(): %s.%s is not an object slot", t->tp_name, name);
        return -1;
    }
    *off = m->offset;
    return 0;
}

/* setup_array(Array, DType): the slots of Array and DType (called by _dispatch, before
   any namespace function exists). */
static PyObject *
setup_array(PyObject *mod, PyObject *args)
{
    PyObject *arr, *dt;
    if (!PyArg_ParseTuple(args, "O!O!:setup_array", &PyType_Type, &arr, &PyType_Type, &dt))
        return NULL;
    PyTypeObject *A = (PyTypeObject *)arr, *D = (PyTypeObject *)dt;
    if (slot_offset(A, "_np", &O_np) || slot_offset(A, "_st", &O_st) || slot_offset(A, "_off", &O_off)
        || slot_offset(A, "_shape", &O_shape) || slot_offset(A, "_str", &O_str)
        || slot_offset(A, "_dtype", &O_dtype) || slot_offset(A, "_device", &O_device)
        || slot_offset(A, "_ext", &O_ext) || slot_offset(D, "_index", &D_index)
        || slot_offset(D, "_np", &D_np) || slot_offset(D, "itemsize", &D_itemsize))
        return NULL;
    Py_XSETREF(Array_T, (PyTypeObject *)Py_NewRef(arr));
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
    if (Array_T == NULL || PyList_GET_SIZE(big) < 1 || !PyContextVar_CheckExact(var)
        || !PyContext_CheckExact(ctx)) {
        PyErr_SetString(PyExc_TypeError, "setup(): setup_array() first; a pool threshold list, "
                        "NumPy's error-state variable and a Context");
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

/* The dtype's row index (DType._index), or -1. */
static inline Py_ssize_t
dtype_index(PyObject *dt)
{
    PyObject *i = SLOT(dt, D_index);
    if (i == NULL || !PyLong_CheckExact(i))
        return -1;
    return PyLong_AsSsize_t(i);
}

/* Bytes an array of x's shape and dtype holds, or -1 (not a plain tuple of ints). */
static inline Py_ssize_t
nbytes_of(PyObject *x)
{
    PyObject *shape = SLOT(x, O_shape);
    PyObject *isz = SLOT(SLOT(x, O_dtype), D_itemsize);
    if (!PyTuple_CheckExact(shape) || !PyLong_CheckExact(isz))
        return -1;
    Py_ssize_t n = PyLong_AsSsize_t(isz);
    for (Py_ssize_t i = 0, nd = PyTuple_GET_SIZE(shape); i < nd; i++) {
        PyObject *d = PyTuple_GET_ITEM(shape, i);
        if (!PyLong_CheckExact(d))
            return -1;
        Py_ssize_t v = PyLong_AsSsize_t(d);
        if (v < 0 || (v && n > PY_SSIZE_T_MAX / v))
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
    Py_ssize_t big = PyLong_AsSsize_t(PyList_GET_ITEM(big_list, 0));
    if (big == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return big < elide_bytes ? big : elide_bytes;
}

/* A CPU array small enough for this path: its native view (new reference), else NULL
   with no error set. small_native: the same for an extension-free array only. */
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
        if (a == NULL) {
            PyErr_Clear();
            return NULL;
        }
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
   it failed (the Python path then runs and raises its own error).
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
        PyErr_Clear();
        PyObject *tok = PyContextVar_Set(errstate_var, errstate_ignore);
        if (tok == NULL) {
            PyErr_Clear();
            return NULL;
        }
        r = PyObject_Vectorcall(kernel, args, n, NULL);
        if (PyContextVar_Reset(errstate_var, tok) < 0) {
            Py_DECREF(tok);
            Py_XDECREF(r);
            return NULL; /* an error we must not swallow */
        }
        Py_DECREF(tok);
    }
    if (r == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_Exception))
            return NULL; /* KeyboardInterrupt and friends propagate (error set) */
        PyErr_Clear();
    }
    return r;
}

/* The Array wrapping a fresh kernel result r (stolen), or NULL with no error set when
   r is not a plain result of dtype res (0-d NumPy scalars, other dtypes: the Python
   path wraps those). */
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
    PyObject *o = Array_T->tp_alloc(Array_T, 0);
    if (o == NULL) {
        Py_DECREF(shape);
        Py_DECREF(r);
        return NULL;
    }
    SLOT(o, O_np) = r;
    SLOT(o, O_st) = Py_NewRef(Py_None);
    SLOT(o, O_off) = Py_NewRef(zero);
    SLOT(o, O_shape) = shape;
    SLOT(o, O_str) = Py_NewRef(Py_None);
    SLOT(o, O_dtype) = Py_NewRef(res);
    SLOT(o, O_device) = Py_NewRef(dev);
    SLOT(o, O_ext) = Py_NewRef(Py_None);
    return o;
fail:
    PyErr_Clear();
decline:
    Py_DECREF(r);
    return NULL;
}

/* An entry (result dtype, cast, kernels) without a cast: the kernel for dev
   (borrowed), or NULL. */
static inline PyObject *
entry_kernel(PyObject *ent, PyObject *dev, PyObject **res)
{
    if (!PyTuple_CheckExact(ent) || PyTuple_GET_SIZE(ent) != 3 || PyTuple_GET_ITEM(ent, 1) != Py_None)
        return NULL;
    PyObject *kc = PyTuple_GET_ITEM(ent, 2);
    if (!PyDict_Check(kc))
        return NULL;
    PyObject *k = PyDict_GetItemWithError(kc, dev);
    if (k == NULL) {
        /* not resolved yet: kc[dev] resolves and keeps it (the dict subclass's __missing__) */
        PyErr_Clear();
        PyObject *r = PyObject_GetItem(kc, dev);
        if (r == NULL) {
            PyErr_Clear();
            return NULL;
        }
        Py_DECREF(r);
        k = PyDict_GetItemWithError(kc, dev);
        if (k == NULL) {
            PyErr_Clear();
            return NULL;
        }
    }
    *res = PyTuple_GET_ITEM(ent, 0);
    return k;
}

static inline PyObject *
list_at(PyObject *list, Py_ssize_t i)
{
    if (!PyList_CheckExact(list) || i < 0 || i >= PyList_GET_SIZE(list))
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

/* --- the object: a fast case in front of a Python function ---------------------- */

/* K_API: no fast case of its own; the namespace-function wrapper of _dispatch.api:
   hand the call to the extension hook when an argument carries an extension, else
   call the function with the arguments as they came (no packing of args, kwargs). */
/* K_MATMUL: x1 @ x2 for matrices and vectors of one dtype (table: [result dtype or None
   per dtype index, the kernel]); K_WHERE: where(condition, x1, x2) for a bool condition
   and x1, x2 of one dtype (table: [the bool DType, the kernel]). */
enum { K_API = 0, K_UNARY = 1, K_BINARY = 2, K_MATMUL = 3, K_WHERE = 4 };
static const Py_ssize_t NARGS[] = {-1, 1, 2, 2, 3};

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
    int kind;           /* K_UNARY or K_BINARY: the positional arguments of the fast case */
    int swap;           /* a reflected operator: __radd__(self, other) computes other + self */
} Fast;

static PyObject *
fast_unary(Fast *f, PyObject *x, int named)
{
    if (Py_TYPE(x) != Array_T)
        return NULL;
    PyObject *dev = SLOT(x, O_device), *res;
    PyObject *ent = list_at(f->table, dtype_index(SLOT(x, O_dtype)));
    if (ent == NULL || ent == Py_None)
        return NULL;
    PyObject *k = entry_kernel(ent, dev, &res);
    if (k == NULL)
        return NULL;
    PyObject *a = (named ? small_native_any : small_native)(x, small_limit());
    if (a == NULL)
        return NULL;
    PyObject *r = run_kernel(k, &a, 1);
    Py_DECREF(a);
    return r == NULL ? NULL : wrap(r, res, dev);
}

static PyObject *
fast_binary(Fast *f, PyObject *x1, PyObject *x2, int named)
{
    PyObject *ent, *dev, *res, *args[2];
    Py_ssize_t limit = small_limit();
    if (Py_TYPE(x1) == Array_T) {
        dev = SLOT(x1, O_device);
        Py_ssize_t i = dtype_index(SLOT(x1, O_dtype));
        if (Py_TYPE(x2) == Array_T) {
            if (SLOT(x2, O_device) != dev)
                return NULL;
            ent = list_at(list_at(f->table, i), dtype_index(SLOT(x2, O_dtype)));
        }
        else {
            Py_ssize_t c = scalar_column(x2);
            if (c < 0)
                return NULL;
            ent = list_at(list_at(f->stable, i), c);
        }
    }
    else if (Py_TYPE(x2) == Array_T) {
        dev = SLOT(x2, O_device);
        Py_ssize_t c = scalar_column(x1);
        if (c < 0)
            return NULL;
        ent = list_at(list_at(f->stable, dtype_index(SLOT(x2, O_dtype))), c);
    }
    else
        return NULL;
    if (ent == NULL || ent == Py_None)
        return NULL;
    PyObject *k = entry_kernel(ent, dev, &res);
    if (k == NULL)
        return NULL;
    int n1 = Py_TYPE(x1) == Array_T, n2 = Py_TYPE(x2) == Array_T;
    PyObject *(*native)(PyObject *, Py_ssize_t) = named ? small_native_any : small_native;
    args[0] = n1 ? native(x1, limit) : Py_NewRef(x1);
    if (args[0] == NULL)
        return NULL;
    args[1] = n2 ? native(x2, limit) : Py_NewRef(x2);
    if (args[1] == NULL) {
        Py_DECREF(args[0]);
        return NULL;
    }
    PyObject *r = run_kernel(k, args, 2);
    Py_DECREF(args[0]);
    Py_DECREF(args[1]);
    return r == NULL ? NULL : wrap(r, res, dev);
}

static inline int
has_ext(PyObject *a)
{
    PyTypeObject *t = Py_TYPE(a);
    if (t == Array_T)
        return SLOT(a, O_ext) != Py_None;
    if (t == &PyTuple_Type || t == &PyList_Type) {
        /* (a list may change size under us: index it afresh each time) */
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(a); i++) {
            PyObject *b = PySequence_Fast_GET_ITEM(a, i);
            if (Py_TYPE(b) == Array_T && SLOT(b, O_ext) != Py_None)
                return 1;
        }
    }
    return 0;
}

/* _dispatch.api's wrapper: hook(name, fn, args, kwargs) when an argument (or an
   array in a tuple/list argument, or a keyword argument) carries an extension. */
static PyObject *
api_call(Fast *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyObject *hook = PyList_GET_SIZE(f->hook) ? PyList_GET_ITEM(f->hook, 0) : Py_None;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nk = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (hook != Py_None) {
        int ext = 0;
        for (Py_ssize_t i = 0; i < n && !ext; i++)
            ext = has_ext(args[i]);
        for (Py_ssize_t i = 0; i < nk && !ext; i++)
            ext = Py_TYPE(args[n + i]) == Array_T && SLOT(args[n + i], O_ext) != Py_None;
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
            r = PyObject_CallFunctionObjArgs(hook, f->name, f->fallback, tup, kw, NULL);
            Py_DECREF(hook);
        done:
            Py_XDECREF(tup);
            Py_XDECREF(kw);
            return r;
        }
    }
    return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
}

static PyObject *
fast_matmul(Fast *f, PyObject *x1, PyObject *x2)
{
    if (Py_TYPE(x1) != Array_T || Py_TYPE(x2) != Array_T)
        return NULL;
    PyObject *dt = SLOT(x1, O_dtype), *dev = SLOT(x1, O_device);
    PyObject *s1 = SLOT(x1, O_shape), *s2 = SLOT(x2, O_shape);
    if (SLOT(x2, O_dtype) != dt || SLOT(x2, O_device) != dev || !PyTuple_CheckExact(s1)
        || !PyTuple_CheckExact(s2))
        return NULL;
    Py_ssize_t d1 = PyTuple_GET_SIZE(s1), d2 = PyTuple_GET_SIZE(s2);
    if (d1 < 1 || d1 > 2 || d2 < 1 || d2 > 2) /* stacks: numpy.matmul, in Python */
        return NULL;
    PyObject *res = list_at(PyList_GET_ITEM(f->table, 0), dtype_index(dt));
    if (res == NULL || res == Py_None)
        return NULL;
    Py_ssize_t limit = small_limit();
    PyObject *args[2] = {small_native(x1, limit), NULL};
    if (args[0] == NULL)
        return NULL;
    args[1] = small_native(x2, limit);
    if (args[1] == NULL) {
        Py_DECREF(args[0]);
        return NULL;
    }
    PyObject *r = run_kernel(PyList_GET_ITEM(f->table, 1), args, 2);
    Py_DECREF(args[0]);
    Py_DECREF(args[1]);
    return r == NULL ? NULL : wrap(r, res, dev);
}

static PyObject *
fast_where(Fast *f, PyObject *c, PyObject *x1, PyObject *x2)
{
    if (Py_TYPE(c) != Array_T || Py_TYPE(x1) != Array_T || Py_TYPE(x2) != Array_T)
        return NULL;
    PyObject *dt = SLOT(x1, O_dtype), *dev = SLOT(x1, O_device);
    if (SLOT(c, O_dtype) != PyList_GET_ITEM(f->table, 0) || SLOT(x2, O_dtype) != dt
        || SLOT(c, O_device) != dev || SLOT(x2, O_device) != dev)
        return NULL;
    Py_ssize_t limit = small_limit();
    PyObject *args[3] = {small_native(c, limit), NULL, NULL};
    if (args[0] == NULL)
        return NULL;
    args[1] = small_native(x1, limit);
    args[2] = args[1] == NULL ? NULL : small_native(x2, limit);
    PyObject *r = args[2] == NULL ? NULL : run_kernel(PyList_GET_ITEM(f->table, 1), args, 3);
    for (int i = 0; i < 3; i++)
        Py_XDECREF(args[i]);
    return r == NULL ? NULL : wrap(r, dt, dev);
}

/* --- named dimensions ---------------------------------------------------------------
   An elementwise call on named arrays (strided.named) whose name outcome the named
   handler has cached (_handler._EW_NAMES, keyed by (row name, key of each input): its
   names, its ndim when unnamed, -1 for a scalar) runs the plain fast case and names
   the result with a fresh Ext, as the handler's own fast link does. Only arrays whose
   Ext tracks no gradient (autograd, the one other handler, passes those through) and
   inputs whose names agree (else auto-alignment may apply): anything else goes to the
   Python path. Enabled by setup_named(), which strided.named calls when it installs
   its handler. */
static PyTypeObject *Ext_T;
static Py_ssize_t E_rg, E_grad, E_fn, E_nr, E_retains, E_hooks, E_names, E_view, E_acc;
static PyObject *ew_names; /* _handler._EW_NAMES */
static PyObject *minus_one;

static PyObject *
setup_named(PyObject *mod, PyObject *args)
{
    PyObject *ext, *cache;
    if (!PyArg_ParseTuple(args, "O!O!:setup_named", &PyType_Type, &ext, &PyDict_Type, &cache))
        return NULL;
    PyTypeObject *E = (PyTypeObject *)ext;
    if (slot_offset(E, "requires_grad", &E_rg) || slot_offset(E, "grad", &E_grad)
        || slot_offset(E, "grad_fn", &E_fn) || slot_offset(E, "output_nr", &E_nr)
        || slot_offset(E, "retains_grad", &E_retains) || slot_offset(E, "hooks", &E_hooks)
        || slot_offset(E, "names", &E_names) || slot_offset(E, "is_view", &E_view)
        || slot_offset(E, "acc", &E_acc))
        return NULL;
    Py_XSETREF(Ext_T, (PyTypeObject *)Py_NewRef(ext));
    Py_XSETREF(ew_names, Py_NewRef(cache));
    Py_RETURN_NONE;
}

/* An operand's key in the name cache (new reference), or NULL (no error) to decline. */
static PyObject *
name_key(PyObject *x)
{
    if (Py_TYPE(x) != Array_T)
        return scalar_column(x) < 0 ? NULL : Py_NewRef(minus_one);
    PyObject *e = SLOT(x, O_ext);
    if (e == Py_None)
        return PyLong_FromSsize_t(PyTuple_GET_SIZE(SLOT(x, O_shape)));
    if (Py_TYPE(e) != Ext_T || SLOT(e, E_rg) != Py_False || SLOT(e, E_fn) != Py_None)
        return NULL;
    PyObject *names = SLOT(e, E_names);
    if (names == Py_None)
        return PyLong_FromSsize_t(PyTuple_GET_SIZE(SLOT(x, O_shape)));
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
    if (k[0] == f->last[0] && k[1] == f->last[1]) {
        names = Py_NewRef(f->last[2]);
    }
    else {
        if (n == 2 && k[0] != k[1] && PyTuple_CheckExact(k[0]) && PyTuple_CheckExact(k[1])) {
            int eq = PyObject_RichCompareBool(k[0], k[1], Py_EQ);
            if (eq != 1) { /* names that differ: the handler aligns them or reports them */
                if (eq < 0)
                    PyErr_Clear();
                goto done;
            }
        }
        PyObject *key = n == 1 ? PyTuple_Pack(2, f->name, k[0]) : PyTuple_Pack(3, f->name, k[0], k[1]);
        if (key == NULL) {
            PyErr_Clear();
            goto done;
        }
        names = PyDict_GetItemWithError(ew_names, key);
        Py_DECREF(key);
        if (names == NULL) {
            PyErr_Clear();
            goto done;
        }
        Py_INCREF(names); /* the kernel call may run code that clears the cache */
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

static inline int
plain(PyObject *x)
{
    return Py_TYPE(x) != Array_T || SLOT(x, O_ext) == Py_None;
}

static PyObject *
fast_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Fast *f = (Fast *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (f->kind == K_API)
        return api_call(f, args, nargsf, kwnames);
    if (f->elide != Py_None && n == 2 && kwnames == NULL) {
        /* A temporary argument -- add(multiply(a, b), c): the caller's stack holds the
           only reference -- may lend its buffer to the result (_elementwise._elide; the
           Python function's own test counts the reference its frame holds instead). */
        for (int i = 0; i < 2; i++) {
            PyObject *x = args[i];
            if (Py_TYPE(x) == Array_T && Py_REFCNT(x) == 1 && SLOT(x, O_st) == Py_None
                && SLOT(x, O_ext) == Py_None) {
                PyObject *r = PyObject_CallFunctionObjArgs(f->elide, args[0], args[1], x, NULL);
                if (r != Py_None)
                    return r;
                Py_DECREF(r);
                break;
            }
        }
    }
    if (ready && n == NARGS[f->kind] && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)) {
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
    return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
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
            : kind == K_UNARY ? !PyList_CheckExact(table)
            : kind == K_BINARY ? !PyList_CheckExact(table) || !PyList_CheckExact(stable)
            : kind == K_MATMUL || kind == K_WHERE
              ? !PyList_CheckExact(table) || PyList_GET_SIZE(table) != 2
                || (kind == K_MATMUL && !PyList_CheckExact(PyList_GET_ITEM(table, 0)))
            : 1)
        || (elide != Py_None && (kind != K_BINARY || !PyCallable_Check(elide)))) {
        PyErr_SetString(PyExc_TypeError, "Fast(fallback, kind, table=None, stable=None, swap=False, "
                        "hook=None, name=None, elide=None): a callable; kind 0 (hook: a list, name: a str), "
                        "1 (table: a list), 2 (table and stable: lists; elide: a callable), "
                        "3 or 4 (table: [result dtypes or the bool dtype, kernel])");
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
    f->dict = PyDict_New();
    if (f->dict == NULL) {
        Py_DECREF(f);
        return NULL;
    }
    /* its own copies of what the type would otherwise answer for (its docstring, its module) */
    static const char *own[] = {"__doc__", "__module__", "__name__", "__qualname__", NULL};
    for (const char **a = own; *a; a++) {
        PyObject *v = PyObject_GetAttrString(fallback, *a);
        if (v == NULL) {
            PyErr_Clear();
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
    .tp_name = "strided._chot.Fast",
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

static PyMethodDef methods[] = {
    {"setup_array", setup_array, METH_VARARGS,
     "setup_array(Array, DType): the classes whose slots the hot path reads and writes."},
    {"setup_named", setup_named, METH_VARARGS,
     "setup_named(Ext, name_cache): named elementwise calls with a cached name outcome in C."},
    {"setup", setup, METH_VARARGS,
     "setup(ndarray, nat, pool_threshold_list, elide_bytes, errstate_var, errstate_ignore, "
     "ignore_context): what the elementwise fast cases need to know, once."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided._chot",
    "The compiled hot path of plain elementwise calls (see strided/_elementwise.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__chot(void)
{
    if (PyType_Ready(&Fast_T) < 0)
        return NULL;
    zero = PyLong_FromLong(0);
    minus_one = PyLong_FromLong(-1);
    s_dtype = PyUnicode_InternFromString("dtype");
    s_shape = PyUnicode_InternFromString("shape");
    if (zero == NULL || minus_one == NULL || s_dtype == NULL || s_shape == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Fast", (PyObject *)&Fast_T) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
