/* strided._csrc._chot, module.c: the module (setup, the method table, PyInit).
 *
 * strided._csrc._chot is the compiled hot path of the plain elementwise call.
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
 * (loops.c, "NumPy's inner loops, called directly"). Everything else (other operand types,
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
 * elide.c, "temporary elision".
 *
 * One extension, several sources, by concern (as NumPy keeps temp_elide.c,
 * dispatching.cpp and override.c apart), sharing contract.h and chot.h:
 *
 *   module.c   setup(), setup_array(), the constants, the method table, PyInit
 *   call.c     the pieces of one call: natives, the kernel call, the result's wrapping
 *   loops.c    NumPy's inner loops, called directly
 *   fast.c     the Fast object (operators, namespace functions, matmul, where, astype)
 *   names.c    the name caches of named dimensions
 *   elide.c    temporary elision
 *   views.c    the views (View, ViewProp)
 *   setitem.c  x[slice] = scalar
 *
 * The only symbol exported is PyInit__chot (chot.h: hidden visibility).
 */
#define CONTRACT_DEFINE 1
#include "chot.h"

/* --- constants: made once in PyInit ----------------------------------------------- */
PyObject *zero, *one, *minus_one;
PyObject *s_dtype, *s_shape, *s_ext, *s_out, *s_bind, *s_passkw, *s_npos;
PyObject *s_getitem, *s_permute_dims, *s_expand_dims, *s_squeeze;
PyObject *s_materialize, *s_reshape, *s_transpose, *s_T, *s_strides, *s__shape;
PyObject *s_resolve, *s_get_loop, *s_fixed_strides;

/* --- what setup() is told once ---------------------------------------------- */
PyTypeObject *ND_T;      /* numpy.ndarray */
PyObject *nat_fn;        /* _elementwise._nat(x): builds and caches x._np */
PyObject *big_list;      /* _pool.MIN_BYTES: [bytes], the pooled-buffer threshold */
Py_ssize_t elide_bytes;  /* _elementwise._ELIDE_BYTES */
PyObject *errstate_var;  /* NumPy's ufunc error-state context variable */
PyObject *errstate_ignore; /* its value under np.errstate(all="ignore") */
PyObject *ignore_ctx;    /* a Context holding just that value */
int ready;
int views_ready;

/* DType's hash in C: its _hash slot, what DType.__hash__ returns (the NumPy dtype's hash:
   a DType compares equal to its NumPy dtype), without that method's Python frame: ~1,000
   instructions a hash, in every dict and set keyed by dtypes (the promotion table, the
   categories, the kernels' tables). Set as the class's tp_hash by setup_array; assigning
   DType.__hash__ puts Python's slot back. A slot that does not hold an exact int (unset,
   or replaced) takes the method, as Python's slot would. */
static PyObject *s_hash_name;
static Py_hash_t
dtype_hash(PyObject *self)
{
    PyObject *h = SLOT(self, D_hash);
    if (h != NULL && PyLong_CheckExact(h)) {
        Py_hash_t v = PyLong_AsSsize_t(h);
        if (!(v == -1 && PyErr_Occurred()))
            return v == -1 ? -2 : v;
        PyErr_Clear(); /* (beyond a Py_hash_t: the method's result is hashed below, as there) */
    }
    PyObject *r = PyObject_CallMethodNoArgs(self, s_hash_name);
    if (r == NULL)
        return -1;
    if (!PyLong_Check(r)) {
        PyErr_SetString(PyExc_TypeError, "__hash__ method should return an integer");
        Py_DECREF(r);
        return -1;
    }
    Py_hash_t v = PyLong_AsSsize_t(r);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        v = PyLong_Type.tp_hash(r);
    }
    Py_DECREF(r);
    return v == -1 ? -2 : v;
}

/* setup_array(Array, DType, Storage, Device): the classes whose slots the hot path reads
   and writes (contract.h), their offsets looked up by name. Called by _array (for the
   views) and _dispatch, before any Fast or View exists; a second call must name the
   same classes. */
PyObject *
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
        if (s_hash_name == NULL && (s_hash_name = PyUnicode_InternFromString("__hash__")) == NULL)
            return NULL;
        Storage_T = (PyTypeObject *)Py_NewRef(st);
        Device_T = (PyTypeObject *)Py_NewRef(dev);
        DType_T = (PyTypeObject *)Py_NewRef(dt);
        DType_T->tp_hash = dtype_hash;
        PyType_Modified(DType_T);
        Array_T = (PyTypeObject *)Py_NewRef(arr); /* last: it turns the checks on */
    }
    views_ready = 1;
    Py_RETURN_NONE;
}

/* setup(ndarray, nat, big_list, elide_bytes, errstate_var, errstate_ignore, ignore_context):
   what the elementwise fast cases need (called by _elementwise). */
PyObject *
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

/* new(native, storage, offset, shape, strides, dtype, device): Array._new in C (array_new:
   the same eight slot stores, _ext None, from the free list where it is in use), without
   the Python frame (a dozen a call of SciPy's and scikit-learn's array-API code). */
static PyObject *
new_py(PyObject *mod, PyObject *const *args, Py_ssize_t n)
{
    if (!views_ready || n != 7) {
        PyErr_SetString(PyExc_TypeError, "new(native, storage, offset, shape, strides, dtype, device): "
                        "seven arguments, after setup_array()");
        return NULL;
    }
    return array_new(Py_NewRef(args[0]), Py_NewRef(args[1]), Py_NewRef(args[2]), Py_NewRef(args[3]),
                     Py_NewRef(args[4]), Py_NewRef(args[5]), Py_NewRef(args[6]));
}

static PyMethodDef methods[] = {
    {"new", (PyCFunction)(void (*)(void))new_py, METH_FASTCALL,
     "new(native, storage, offset, shape, strides, dtype, device) -> Array: Array._new in C"},
    {"setup_array", setup_array, METH_VARARGS,
     "setup_array(Array, DType, Storage, Device): the classes whose slots the hot path reads "
     "and writes (contract.h)."},
    {"materialize_setup", materialize_setup, METH_O,
     "materialize_setup(allocated): storage._ALLOCATED, the count Storage.__init__ keeps (storage.c)"},
    {"materialize", materialize_py, METH_O,
     "materialize(x) -> bool: Array._materialize's C-contiguous host case in C (storage.c); False: declined"},
    {"setup_array_free", setup_array_free, METH_NOARGS,
     "setup_array_free(): Array objects from a free list (views.c); returns whether in use"},
    {"aligned_empty", (PyCFunction)(void (*)(void))aligned_empty, METH_FASTCALL,
     "aligned_empty(shape, dtype) -> a C-contiguous ndarray over a 64-byte aligned buffer (16 KiB to "
     "the pool threshold: the compiled path's results' range), or None outside it (views.c)"},
    {"pow_half", pow_half, METH_O,
     "pow_half(a): a ** 0.5 of a small float32/float64 ndarray, the standard's values (views.c), or None"},
    {"native", native_py, METH_O,
     "native(x) -> x's native view built in C and cached in x._np (Array._get_native), or None"},
    {"free_held", free_held, METH_O,
     "free_held(a) -> bool: whether the small-result free list holds a reference to ndarray a."},
    {"setup_take", setup_take, METH_VARARGS,
     "setup_take(capsule, ndarray, float64 descr): NumPy's C API table (its _ARRAY_API), from "
     "which the compiled take makes its small results; returns whether it passed the checks"},
    {"setup_named", setup_named, METH_VARARGS,
     "setup_named(Ext, name_cache, reduction_axis_cache): named elementwise calls and "
     "reductions over one named axis with a cached name outcome in C."},
    {"named_ext", named_ext, METH_O,
     "named_ext(names): a fresh Ext holding names (names.c), for the Python hot paths that "
     "name a fresh view."},
    {"setup_grad_state", setup_grad_state, METH_VARARGS,
     "setup_grad_state(STATE, Ext): autograd's grad mode (STATE.enabled), read by the in-place operators' "
     "case of a target autograd tracks under no_grad() (fast.c, unrecorded_target)."},
    {"setup", setup, METH_VARARGS,
     "setup(ndarray, nat, pool_threshold_list, elide_bytes, errstate_var, errstate_ignore, "
     "ignore_context): what the elementwise fast cases need to know, once."},
    {"setup_loops", setup_loops, METH_VARARGS,
     "setup_loops(ufunc, empty, probe, address, shape, strides, c_contiguous, aligned): call "
     "NumPy's inner loops directly when the probe ndarray's fields read as Python reports."},
    {"own_loop_info", own_loop_info, METH_VARARGS,
     "own_loop_info(name, itemsize) -> capsule or None: the call info of strided's own loop "
     "`name` (relu, sigmoid, silu) for float32 (4) or float64 (8), where it may be used."},
    {"vector_width", vector_width, METH_NOARGS,
     "vector_width() -> int: 512 where the float32 vector loops (exp, sigmoid, silu) run their "
     "AVX-512F versions (STRIDED_NO_AVX512=1 turns them off), 256 for AVX2, 0 where not built."},
    {"prefer_loop", prefer_loop, METH_VARARGS,
     "prefer_loop(ufunc, capsule, descriptors) -> bool: the capsule's NumPy loop replaced by "
     "one of strided's where that gives NumPy's values bit for bit (exp of float64)."},
    {"setup_large", setup_large, METH_VARARGS,
     "setup_large(pool_empty, thread_threshold_list, num_threads_list): results of NumPy's loops "
     "and where made in C at every size below the thread threshold, pooled from the pool's."},
    {"calibrate", calibrate, METH_VARARGS,
     "calibrate(genuine, borrowing): record the C call chains of interpreter calls on a "
     "temporary, check that borrowing calls are told apart, and turn temporary elision on."},
    {"elision_state", elision_state, METH_NOARGS,
     "elision_state(): (on, call chains recorded, why)."},
    {"elided_calls", elided_calls, METH_NOARGS,
     "elided_calls(): how many calls the compiled loop elided into a temporary since import."},
    {NULL, NULL, 0, NULL},
};

/* NullContext: a context manager that does nothing (the host backend's device context,
   _core/backends/_numpy.py). contextlib.nullcontext's __enter__ and __exit__ are Python
   frames: ~0.3 us a ``with``, in every host call that enters its backend's context
   (vecdot, linspace, eye, searchsorted, ...); these are C methods. */
static PyObject *
nullctx_enter(PyObject *self, PyObject *Py_UNUSED(unused))
{
    Py_RETURN_NONE; /* (nullcontext()'s enter_result) */
}

static PyObject *
nullctx_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_RETURN_FALSE; /* an exception goes on */
}

static PyMethodDef nullctx_methods[] = {
    {"__enter__", nullctx_enter, METH_NOARGS, "__enter__() -> None"},
    {"__exit__", (PyCFunction)(void (*)(void))nullctx_exit, METH_FASTCALL,
     "__exit__(*exc_info) -> False: an exception is not suppressed"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject NullCtx_T = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "strided._csrc._chot.NullContext",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "NullContext(): a context manager that does nothing, as contextlib.nullcontext().",
    .tp_methods = nullctx_methods,
    .tp_new = PyType_GenericNew,
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
    if (PyType_Ready(&Fast_T) < 0 || PyType_Ready(&View_T) < 0 || PyType_Ready(&ViewProp_T) < 0
        || PyType_Ready(&AlignedBuf_T) < 0 || PyType_Ready(&NullCtx_T) < 0)
        return NULL;
    zero = PyLong_FromLong(0);
    minus_one = PyLong_FromLong(-1);
    one = PyLong_FromLong(1);
    s_getitem = PyUnicode_InternFromString("getitem");
    s_permute_dims = PyUnicode_InternFromString("permute_dims");
    s_expand_dims = PyUnicode_InternFromString("expand_dims");
    s_squeeze = PyUnicode_InternFromString("squeeze");
    s_dtype = PyUnicode_InternFromString("dtype");
    s_ext = PyUnicode_InternFromString("_ext");
    s_out = PyUnicode_InternFromString("out");
    s_bind = PyUnicode_InternFromString("bind");
    s_passkw = PyUnicode_InternFromString("passkw");
    s_npos = PyUnicode_InternFromString("npos");
    s_shape = PyUnicode_InternFromString("shape");
    s_materialize = PyUnicode_InternFromString("_materialize");
    s_reshape = PyUnicode_InternFromString("reshape");
    s_transpose = PyUnicode_InternFromString("transpose");
    s_T = PyUnicode_InternFromString("T");
    s__shape = PyUnicode_InternFromString("_shape");
    s_strides = PyUnicode_InternFromString("strides");
    s_resolve = PyUnicode_InternFromString("_resolve_dtypes_and_context");
    s_get_loop = PyUnicode_InternFromString("_get_strided_loop");
    s_fixed_strides = PyUnicode_InternFromString("fixed_strides");
    if (zero == NULL || minus_one == NULL || one == NULL || s_getitem == NULL
        || s_permute_dims == NULL || s_expand_dims == NULL || s_squeeze == NULL || s_dtype == NULL || s_ext == NULL || s_out == NULL || s_bind == NULL || s_passkw == NULL || s_npos == NULL || s_shape == NULL || s_materialize == NULL
        || s_reshape == NULL || s_transpose == NULL || s_T == NULL || s_strides == NULL || s__shape == NULL
        || s_resolve == NULL || s_get_loop == NULL || s_fixed_strides == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Fast", (PyObject *)&Fast_T) < 0
        || PyModule_AddObjectRef(m, "View", (PyObject *)&View_T) < 0
        || PyModule_AddObjectRef(m, "ViewProp", (PyObject *)&ViewProp_T) < 0
        || PyModule_AddObjectRef(m, "AlignedBuffer", (PyObject *)&AlignedBuf_T) < 0
        || PyModule_AddObjectRef(m, "NullContext", (PyObject *)&NullCtx_T) < 0
        || ext_type_add(m) < 0 /* names.c: the compiled Ext */
        || keywords_type_add(m) < 0 /* keywords.c */) {
        Py_DECREF(m);
        return NULL;
    }
    static const struct { const char *name; int kind; } kinds[] = {
        {"GETITEM", V_GETITEM}, {"CONTIGUOUS", V_CONTIGUOUS}, {"RESHAPE", V_RESHAPE},
        {"RESHAPE_METHOD", V_RESHAPE_M}, {"PERMUTE", V_PERMUTE}, {"PERMUTE_METHOD", V_PERMUTE_M},
        {"EXPAND", V_EXPAND}, {"SETITEM", V_SETITEM}, {"RENAME", V_RENAME}, {"ALIGN", V_ALIGN},
        {"UNFLATTEN", V_UNFLATTEN}, {"FLATTEN", V_FLATTEN}, {"COPY", V_COPY}, {"SQUEEZE", V_SQUEEZE},
        {"ZERO", V_ZERO}, {"FILL", V_FILL}, {"NAMESPACE", V_NAMESPACE}, {"ITER", V_ITER},
        {"T", V_T}, {"MT", V_MT}, {"A_DTYPE", V_DTYPE}, {"A_DEVICE", V_DEVICE},
        {"A_NDIM", V_NDIM}, {"A_SHAPE", V_SHAPE}, {"A_SIZE", V_SIZE}, {"A_GRAD", V_GRAD}, {NULL, 0}};
    for (int i = 0; kinds[i].name; i++)
        if (PyModule_AddIntConstant(m, kinds[i].name, kinds[i].kind) < 0) {
            Py_DECREF(m);
            return NULL;
        }
    return m;
}
