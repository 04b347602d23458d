/* strided._csrc._chot, loops.c: NumPy's inner loops, called directly.
 *
 * In front of: the ufunc call of strided/_api/elementwise.py's impls for small operands
 * (NumPy's trivial loop, numpy/_core/src/umath/ufunc_object.c); the values are NumPy's by
 * construction, tests/reliability/test_differential_tiny.py checks them bit for bit.
 */
#include "chot.h"

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

PyTypeObject *UF_T; /* numpy.ufunc */
PyObject *np_empty; /* numpy.empty */
int loops_ready;

/* --- large results -----------------------------------------------------------------------
   In front of: strided/_api/elementwise.py's large path (``large_ufunc``: a pooled result
   buffer, then ``threads.large_c_order``), for the calls this path makes itself.

   The cost of a call above the pool threshold was once the Python path's (~45,000
   instructions more than NumPy's own call: 102k vs 57k for a float32 ``a + b`` at 65,536
   elements), which made a cliff at the threshold under glibc's default malloc (2.35x NumPy
   at 65,536 elements, 2.65x at 100k). Now one policy decides by the result's bytes alone:
   - below the pool threshold (_pool.MIN_BYTES): numpy.empty, as NumPy's own call;
   - from it: a buffer from the pool (_pool.empty: _cpool's C function, or pool.py's
     Python one under STRIDED_NO_CEXT=_cpool), filled by the same single loop call;
   - from the thread threshold (threads._THREAD_MIN) on, when more than one thread is set
     (threads._NUM) and the C thread pool would split the call (threads.c_splits, asked
     once per Loop): declined, so that the Python path runs it on the threads
     (``threads.large_c_order``). Other loops run here at every size: the Python
     thread pool, which would split them, lost to one thread at every size measured
     (threads.py, _C_SPLIT_FROM).
   The values do not depend on the class: the same NumPy loop over the same operands.
   A loop over a large result releases the GIL as NumPy's does (it calls no Python). */
PyObject *pool_empty;       /* _pool.empty */
PyObject *thread_min_list;  /* threads._THREAD_MIN */
PyObject *num_threads_list; /* threads._NUM */
PyObject *splits_fn;        /* threads.c_splits */

/* setup_large(pool_empty, thread_min_list, num_threads_list, c_splits) (strided._core.threads). */
PyObject *
setup_large(PyObject *mod, PyObject *args)
{
    PyObject *emp, *tmin, *num, *splits;
    if (!PyArg_ParseTuple(args, "OO!O!O:setup_large", &emp, &PyList_Type, &tmin, &PyList_Type, &num,
                          &splits))
        return NULL;
    if (!PyCallable_Check(emp) || !PyCallable_Check(splits)) {
        PyErr_SetString(PyExc_TypeError, "setup_large(): pool_empty and c_splits must be callable");
        return NULL;
    }
    Py_XSETREF(thread_min_list, Py_NewRef(tmin));
    Py_XSETREF(num_threads_list, Py_NewRef(num));
    Py_XSETREF(splits_fn, Py_NewRef(splits));
    Py_XSETREF(pool_empty, Py_NewRef(emp)); /* last: it turns the large results on */
    Py_RETURN_NONE;
}

Py_ssize_t
c_result_limit(int splittable)
{
    if (pool_empty == NULL || contract_pool_limit(big_list) <= 0)
        return small_limit(); /* (an unreadable pool threshold: decline, the Python path names it) */
    if (!splittable)
        return PY_SSIZE_T_MAX;
    Py_ssize_t nt = contract_pool_limit(num_threads_list); /* (a one-int list, as the pool's) */
    if (nt == 1)
        return PY_SSIZE_T_MAX;
    Py_ssize_t tmin = contract_pool_limit(thread_min_list);
    return tmin > 0 ? tmin : small_limit(); /* (not the list threads.py keeps: as before) */
}

/* A fresh C-ordered ndarray of shape (a tuple) and NumPy descriptor descr that holds
   nbytes: below the pool threshold NumPy's own (fresh_result; numpy.empty without NumPy's
   C API table), the pool's buffer from it. NULL with an
   error set (out of memory; the caller propagates it), or a new reference. */
PyObject *
result_empty(PyObject *shape, PyObject *descr, Py_ssize_t nbytes)
{
    Py_ssize_t big = contract_pool_limit(big_list);
    if (pool_empty != NULL && nbytes > 0 && big > 0 && nbytes >= big) {
        PyObject *nb = PyLong_FromSsize_t(nbytes);
        if (nb == NULL)
            return NULL;
        PyObject *args[3] = {shape, descr, nb};
        PyObject *r = PyObject_Vectorcall(pool_empty, args, 3, NULL);
        Py_DECREF(nb);
        return r;
    }
    if (shape != NULL && PyTuple_CheckExact(shape) && PyTuple_GET_SIZE(shape) <= MAXDIMS) {
        /* (below the threshold: NumPy's C API, fresh_result; numpy.empty without it) */
        Py_ssize_t dims[MAXDIMS];
        int nd = (int)PyTuple_GET_SIZE(shape), ok = 1;
        for (int d = 0; d < nd && ok; d++) {
            PyObject *v = PyTuple_GET_ITEM(shape, d);
            ok = PyLong_CheckExact(v) && (dims[d] = PyLong_AsSsize_t(v)) >= 0;
        }
        if (PyErr_Occurred())
            PyErr_Clear(); /* (numpy.empty below names a bad shape) */
        else if (ok) {
            PyObject *r = fresh_result(dims, nd, descr, nbytes, 1);
            if (r != NULL || PyErr_Occurred())
                return r;
        }
    }
    PyObject *args[2] = {shape, descr};
    return PyObject_Vectorcall(np_empty, args, 2, NULL);
}

void
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
PyObject *
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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__GLIBC__)
#define EXP_SIMD 1
static void vec_prefer(PyObject *k, CallInfo *info, PyObject *descrs); /* (below: exp of float64) */
#endif

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
#ifdef EXP_SIMD
    vec_prefer(k, info, descrs);
#endif
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

/* --- loops of strided's own, for rows whose kernel is not a ufunc ---------------------------
   A row kernel may name a compiled loop of this file (its ``_c_loop`` attribute: the
   function's, or a functools.partial's ``func``'s): for operands of that loop's dtypes the
   Fast then calls it as it calls NumPy's loops (loop_into: the same layouts, result
   classes, GIL release and FPU flags), and the kernel stays the definition everywhere
   else (other dtypes, layouts, devices, the Python path). The loops keep the signature
   of NumPy's strided loops, so that a Loop holds either kind; each is the kernel's value,
   bit for bit, which the differential tests check (tests/_csrc/test_own_loops.py).

   "relu" (strided/_api/activations.py, relu_kernel): x < 0 ? +0 : x for float32/float64,
   the value of the kernel's NumPy ``maximum(0.0, x)`` and of _ckernels.relu, PyTorch's
   relu bit for bit: NaN stays (payload and sign), -0.0 stays -0.0 (not < 0). One compare
   and a blend per element, which the compiler vectorises for contiguous operands. Before
   it relu made a Python call per call (1.69 us at 10 float32 elements, NumPy's
   maximum(x, 0) 1.03 us). */
/* built for AVX2 as well as the baseline (relu at 3e4-6e4 float32: 2x faster than SSE2):
   OWN_CLONES, chot.h */
#define OWN_UNARY(NAME, T, EXPR)                                                          \
    OWN_CLONES static int NAME(void *ctx, char *const *data, const Py_ssize_t *dims,      \
                    const Py_ssize_t *steps, void *aux)                                   \
    {                                                                                     \
        (void)ctx, (void)aux;                                                             \
        Py_ssize_t n = dims[0], si = steps[0], so = steps[1];                             \
        if (si == (Py_ssize_t)sizeof(T) && so == (Py_ssize_t)sizeof(T)) {                 \
            const T *in = (const T *)data[0]; /* (no restrict: in may be out) */          \
            T *out = (T *)data[1];                                                        \
            for (Py_ssize_t i = 0; i < n; i++) {                                          \
                T x = in[i];                                                              \
                out[i] = (EXPR);                                                          \
            }                                                                             \
            return 0;                                                                     \
        }                                                                                 \
        const char *ip = data[0];                                                         \
        char *op = data[1];                                                               \
        for (Py_ssize_t i = 0; i < n; i++, ip += si, op += so) {                          \
            T x = *(const T *)ip;                                                         \
            *(T *)op = (EXPR);                                                            \
        }                                                                                 \
        return 0;                                                                         \
    }
OWN_UNARY(relu_f32, float, x < 0.0f ? 0.0f : x)
OWN_UNARY(relu_f64, double, x < 0.0 ? 0.0 : x)
/* the parametric activations' kernels with their defaults (the hot path calls kernel(xp, a)):
   hardtanh where(x < -1, -1, x) then where(y > 1, 1, y); leaky_relu maximum(x, x * 0.01)
   with NumPy's maximum (a NaN x is returned itself), 0.01 rounded to the dtype as NumPy
   rounds the Python float (the C literal 0.01f is that float32) */
#define HARDTANH(T, x) ((x) < (T)-1 ? (T)-1 : (x) > (T)1 ? (T)1 : (x))
#define LEAKY(T, x, s) (((x) >= (x) * (s) || (x) != (x)) ? (x) : (x) * (s))
OWN_UNARY(hardtanh_f32, float, HARDTANH(float, x))
OWN_UNARY(hardtanh_f64, double, HARDTANH(double, x))
OWN_UNARY(leaky_f32, float, LEAKY(float, x, 0.01f))
OWN_UNARY(leaky_f64, double, LEAKY(double, x, 0.01))
#undef HARDTANH
#undef LEAKY
#undef OWN_UNARY

#ifdef EXP_SIMD
/* (below, "exp and log": the logistic functions on the vector exp, and whether that exp is
   NumPy's here) */
static int sigmoidf_run_loop(void *, char *const *, const Py_ssize_t *, const Py_ssize_t *, void *);
static int siluf_run_loop(void *, char *const *, const Py_ssize_t *, const Py_ssize_t *, void *);
static int sigmoid_run_loop(void *, char *const *, const Py_ssize_t *, const Py_ssize_t *, void *);
static int silu_run_loop(void *, char *const *, const Py_ssize_t *, const Py_ssize_t *, void *);
static int vec_exp_ready(int d);
#endif

/* name, the loop per itemsize of a float dtype (4, 8), and its call info (context and
   auxdata unused; no Python API; FPU flags: loop_call saves and restores them); needs_exp:
   built on the vector exp, so usable only where that is NumPy's exp (vec_exp_ready).
   "sigmoid" and "silu" (activations.py's _logistic: negative, exp, add 1, reciprocal or
   divide, each NumPy's operation in the array's dtype): the same operations per lane, so
   the kernel's values, in one pass instead of four. */
static struct {
    const char *name;
    CallInfo info[2];
    PyObject *cap[2]; /* the capsules a Loop holds (made once; they own nothing) */
    int needs_exp;
} own_loops[] = {
    {"relu", {{relu_f32, NULL, NULL, 0, 1}, {relu_f64, NULL, NULL, 0, 1}}, {NULL, NULL}, 0},
    {"hardtanh", {{hardtanh_f32, NULL, NULL, 0, 1}, {hardtanh_f64, NULL, NULL, 0, 1}}, {NULL, NULL}, 0},
    {"leaky_relu", {{leaky_f32, NULL, NULL, 0, 1}, {leaky_f64, NULL, NULL, 0, 1}}, {NULL, NULL}, 0},
#ifdef EXP_SIMD
    {"sigmoid", {{sigmoidf_run_loop, NULL, NULL, 0, 1}, {sigmoid_run_loop, NULL, NULL, 0, 1}}, {NULL, NULL}, 1},
    {"silu", {{siluf_run_loop, NULL, NULL, 0, 1}, {silu_run_loop, NULL, NULL, 0, 1}}, {NULL, NULL}, 1},
#endif
};

/* The function a row's kernel wraps (the kernel is functools.partial(fn, xp): its func;
   else the kernel itself), a new reference; NULL with an error that must propagate. */
static PyObject *
kernel_func(PyObject *kernel)
{
    static PyObject *s_func;
    if (s_func == NULL && (s_func = PyUnicode_InternFromString("func")) == NULL)
        return NULL;
    PyObject *fn = PyObject_GetAttr(kernel, s_func);
    if (fn == NULL && contract_clear(PyExc_AttributeError))
        fn = Py_NewRef(kernel);
    return fn;
}

/* The kernel's own loop for the one operand x (L->kernel and L->res set): L->cap, info,
   in, out, isz set and 1, or 0 (none: the kernel is called), -1 with an error that must
   propagate. Asked once per Loop (loop_for). */
static int
own_loop(Loop *L, PyObject *x)
{
    static PyObject *s_c_loop;
    if (s_c_loop == NULL && (s_c_loop = PyUnicode_InternFromString("_c_loop")) == NULL)
        return -1;
    PyObject *fn = kernel_func(L->kernel), *name = NULL;
    if (fn == NULL)
        return -1;
    name = PyObject_GetAttr(fn, s_c_loop);
    Py_DECREF(fn);
    if (name == NULL)
        return contract_clear(PyExc_AttributeError) ? 0 : -1;
    int found = 0;
    PyObject *dt = SLOT(x, O_dtype);
    char kind = np_kind(dt);
    for (size_t i = 0; PyUnicode_CheckExact(name) && i < sizeof own_loops / sizeof own_loops[0]; i++) {
        if (PyUnicode_CompareWithASCIIString(name, own_loops[i].name) != 0)
            continue;
        /* (relu: a float32/float64 operand, the result of its own dtype) */
        Py_ssize_t isz = PyLong_AsSsize_t(SLOT(dt, D_itemsize));
        if (isz == -1 && PyErr_Occurred())
            break;
        int k = isz == 4 ? 0 : isz == 8 ? 1 : -1;
        if (kind != 'f' || k < 0 || L->res != dt)
            break;
#ifdef EXP_SIMD
        if (own_loops[i].needs_exp && !vec_exp_ready(k))
            break;
#endif
        if (own_loops[i].cap[k] == NULL
            && (own_loops[i].cap[k] = PyCapsule_New(&own_loops[i].info[k], CALL_INFO, NULL)) == NULL)
            break;
        L->cap = Py_NewRef(own_loops[i].cap[k]);
        L->info = &own_loops[i].info[k];
        L->in[0] = Py_NewRef(SLOT(dt, D_np));
        L->out = Py_NewRef(SLOT(dt, D_np));
        L->isz[0] = L->isz[1] = isz;
        L->split = 1; /* (the kernel splits large results over threads: the Python path) */
        found = 1;
        break;
    }
    Py_DECREF(name);
    if (PyErr_Occurred())
        return contract_clear(PyExc_Exception) ? 0 : -1;
    return found;
}

/* --- exp and log: NumPy's loops, vectorised -------------------------------------------------
   float64. NumPy's float64 exp on a machine without AVX-512F is its loop over npy_exp, the
   C library's exp one element at a time (numpy/_core/src/umath/loops_exponent_log.dispatch
   .c.src: only AVX-512F has a SIMD exp of float64). With glibc on an x86-64 processor
   with AVX2 and FMA that is __exp_fma: sysdeps/ieee754/dbl-64/e_exp.c (the algorithm of
   Szabolcs Nagy, Arm's optimized-routines) built with -mfma -mavx2. exp_f64 computes the
   same arithmetic four lanes at a time: x = k ln2/128 + r, exp(x) = 2^(k/128) exp(r),
   2^(k/128) = H[k](1 + T[k]) from a table, exp(r) - 1 a polynomial of degree 5, each
   operation the one that build makes, contracted where its compiler contracts (the FMAs
   of the same source built with GCC 12 -O2 -mfma -mavx2, read from its disassembly; that
   scalar build matched the C library on 1e8 random inputs). A lane outside the
   polynomial's range (|x| < 2^-54 or |x| >= 512, inf, NaN: the C function's special
   cases) takes the C library's exp itself. The table is made at first use from exact
   decimal arithmetic (_npcompat.exp_table).
   float32 exp and log: NumPy's own AVX2 code (expf8, logf8 below), with plain stores where
   NumPy's are masked. Where NumPy runs AVX-512 loops: float32 exp sixteen lanes wide
   (expf16), float64 exp as SVML's (exp8, where NumPy was built with SVML).

   Each is used only where it is NumPy's loop bit for bit, which this process checks
   before the first use (exp_check): NumPy's loop against ours on a probe of 65,536 values
   (the edges and special values, every table entry, random values of every binade in
   range); any difference, a processor without AVX2 and FMA, or a C library other than
   glibc's leaves NumPy's loop (vec_loops, own_check, vec_prefer). (A mutation of the final FMA of exp_f64, which changes 2
   values in 10,000, is refused by it.) Checked once beyond CI: exp and log on all 2^32
   float32 inputs, exp on 1e8 random float64 bit patterns, 0 differences; the tests compare
   millions of values (tests/_csrc/test_vector_loops.py). Measured (the loops alone, 1
   thread, minima, loaded machine; ours / NumPy's loop, ours / PyTorch's): float64 exp 1e3-1e5
   0.36-0.39, 0.57-0.89 (PyTorch: SLEEF); float32 exp 0.6-0.75, 0.44-0.74; float32 log
   0.24-0.59, 0.38-0.59. */
#ifdef EXP_SIMD
#include <immintrin.h>
#include <dlfcn.h>
static double exp_tab[256];   /* T[k], H[k] - (k << 45) as double bits, k = 0..127 */

/* exp of four float64 lanes (e_exp.c's arithmetic; a special lane sends all four through
   the C library's exp) */
__attribute__((target("avx2,fma"))) static inline __m256d
exp4(__m256d x)
{
    const __m256i low = _mm256_set1_epi64x(0x3c9 - 1), high = _mm256_set1_epi64x(0x408 - 1);
    __m256i top = _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(x), 52), _mm256_set1_epi64x(0x7ff));
    __m256i sp = _mm256_or_si256(_mm256_cmpgt_epi64(top, high), _mm256_cmpgt_epi64(low, top));
    if (!_mm256_testz_si256(sp, sp)) {
        double v[4];
        _mm256_storeu_pd(v, x);
        for (int j = 0; j < 4; j++)
            v[j] = exp(v[j]);
        return _mm256_loadu_pd(v);
    }
    const __m256d shift = _mm256_set1_pd(0x1.8p52);
    const long long *tab = (const long long *)exp_tab;
    __m256d kd = _mm256_fmadd_pd(_mm256_set1_pd(0x1.71547652b82fep0 * 128), x, shift);
    __m256i ki = _mm256_castpd_si256(kd);
    kd = _mm256_sub_pd(kd, shift);
    __m256d r = _mm256_fmadd_pd(kd, _mm256_set1_pd(-0x1.cf79abc9e3b3ap-47),
                                _mm256_fmadd_pd(kd, _mm256_set1_pd(-0x1.62e42fefa0000p-8), x));
    __m256i idx = _mm256_slli_epi64(_mm256_and_si256(ki, _mm256_set1_epi64x(127)), 1);
    __m256d tail = _mm256_castsi256_pd(_mm256_i64gather_epi64(tab, idx, 8));
    __m256i sbits = _mm256_add_epi64(_mm256_i64gather_epi64(tab + 1, idx, 8), _mm256_slli_epi64(ki, 45));
    __m256d r2 = _mm256_mul_pd(r, r);
    __m256d p23 = _mm256_fmadd_pd(r, _mm256_set1_pd(0x1.555555555543cp-3), _mm256_set1_pd(0x1.ffffffffffdbdp-2));
    __m256d p45 = _mm256_fmadd_pd(r, _mm256_set1_pd(0x1.1111167a4d017p-7), _mm256_set1_pd(0x1.55555cf172b91p-5));
    __m256d acc = _mm256_fmadd_pd(p23, r2, _mm256_add_pd(tail, r));
    acc = _mm256_fmadd_pd(_mm256_mul_pd(r2, r2), p45, acc);
    __m256d scale = _mm256_castsi256_pd(sbits);
    return _mm256_fmadd_pd(scale, acc, scale);
}

/* float32: NumPy's own AVX2 exp (simd_exp_FLOAT, loops_exponent_log.dispatch.c.src), which
   its FLOAT_exp runs for every layout (one element at a time where it cannot block the
   output): NaN lanes set to 0 and answered NaN (0x7fc00000, the payload dropped), x >=
   88.72283935546875 answered inf and x <= -103.97208404541015625 answered 0 (both
   computed as 0 meanwhile), k = rint(x log2 e) by adding and subtracting 1.5 * 2^23, r = x
   + k c1 + k c2 + k * 0 (Cody-Waite, three FMAs), exp(r) = P(r)/Q(r) (degrees 5 and 2, by
   FMAs, one division), then 2^k put in by adding k to the exponent bits, or for k <= -125
   by adding max(k, -125) and dividing by 2^-(k + 125) (a subnormal result, rounded by the
   division; a shift count beyond 31 makes that 0). The same operations with plain loads
   and stores: NumPy's masked stores (vmaskmovps) are microcoded on AMD's processors, 4
   ns an element on this EPYC for ~6 instructions. */
__attribute__((target("avx2,fma"))) static inline __m256
expf8(__m256 x)
{
    const __m256 zero = _mm256_setzero_ps();
    __m256 nan = _mm256_cmp_ps(x, x, _CMP_NEQ_UQ);
    x = _mm256_blendv_ps(x, zero, nan);
    __m256 big = _mm256_cmp_ps(x, _mm256_set1_ps(88.72283935546875f), _CMP_GE_OQ);
    __m256 small = _mm256_cmp_ps(x, _mm256_set1_ps(-103.97208404541015625f), _CMP_LE_OQ);
    x = _mm256_blendv_ps(x, zero, _mm256_or_ps(_mm256_or_ps(nan, small), big));
    const __m256 magic = _mm256_set1_ps(0x1.8p23f);
    __m256 q = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x3fb8aa3b))),
                                           magic), magic);
    x = _mm256_fmadd_ps(q, _mm256_castsi256_ps(_mm256_set1_epi32((int)0xbf317200)), x);
    x = _mm256_fmadd_ps(q, _mm256_castsi256_ps(_mm256_set1_epi32((int)0xb5bfbe8e)), x);
    x = _mm256_fmadd_ps(q, zero, x);
#define EXPF_C(h) _mm256_castsi256_ps(_mm256_set1_epi32((int)(h)))
    __m256 num = _mm256_fmadd_ps(EXPF_C(0x3a053dd8), x, EXPF_C(0x3bdd7159));
    num = _mm256_fmadd_ps(num, x, EXPF_C(0x3d517d8c));
    num = _mm256_fmadd_ps(num, x, EXPF_C(0x3e7d4c58));
    num = _mm256_fmadd_ps(num, x, EXPF_C(0x3f39cbd5));
    num = _mm256_fmadd_ps(num, x, EXPF_C(0x3f800000));
    __m256 den = _mm256_fmadd_ps(EXPF_C(0x3cb0e832), x, EXPF_C(0xbe8c6857));
    den = _mm256_fmadd_ps(den, x, EXPF_C(0x3f800000));
#undef EXPF_C
    __m256 poly = _mm256_div_ps(num, den);
    const __m256 minq = _mm256_set1_ps(-125.0f);
    __m256 sub = _mm256_cmp_ps(q, minq, _CMP_LE_OQ);
    if (_mm256_movemask_ps(sub) != 0) {
        __m256 diff = _mm256_sub_ps(zero, _mm256_sub_ps(q, minq));
        diff = _mm256_blendv_ps(zero, diff, sub);
        __m256i pow2 = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_cvtps_epi32(diff));
        q = _mm256_max_ps(q, minq);
        poly = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(poly),
                                                    _mm256_slli_epi32(_mm256_cvtps_epi32(q), 23)));
        poly = _mm256_blendv_ps(poly, _mm256_div_ps(poly, _mm256_cvtepi32_ps(pow2)), sub);
    }
    else
        poly = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(poly),
                                                    _mm256_slli_epi32(_mm256_cvtps_epi32(q), 23)));
    poly = _mm256_blendv_ps(poly, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)), nan);
    poly = _mm256_blendv_ps(poly, _mm256_castsi256_ps(_mm256_set1_epi32(0x7f800000)), big);
    return _mm256_blendv_ps(poly, zero, small);
}

/* log of float32: NumPy's AVX2 simd_log_FLOAT, its plain-store twin as exp's. Negative x
   set to 0 (answered -NaN, 0xffc00000), the exponent and the mantissa in [0.5, 1) taken
   from the bits (a subnormal first multiplied by 2^100, its exponent then less 100), a
   mantissa <= 1/sqrt(2) doubled and the exponent less 1, x - 1, log(1 + x) = P(x)/Q(x)
   (degrees 5 and 5, FMAs, one division), + exponent * ln 2 by an FMA; NaN answered NaN
   (0x7fc00000), 0 -inf, inf inf. */
__attribute__((target("avx2,fma"))) static inline __m256
logf_scale(__m256 x, __m256 *den)
{
    const __m256 fmin = _mm256_castsi256_ps(_mm256_set1_epi32(0x00800000));
    *den = _mm256_cmp_ps(x, fmin, _CMP_LT_OQ);
    __m256 normal = _mm256_cmp_ps(x, fmin, _CMP_GE_OQ);
    __m256 t = _mm256_mul_ps(_mm256_blendv_ps(x, _mm256_setzero_ps(), normal),
                             _mm256_castsi256_ps(_mm256_set1_epi32(0x71800000)));
    return _mm256_blendv_ps(x, t, *den);
}

__attribute__((target("avx2,fma"))) static inline __m256
logf8(__m256 xin)
{
#define LOGF_C(h) _mm256_castsi256_ps(_mm256_set1_epi32((int)(h)))
    const __m256 zero = _mm256_setzero_ps(), one = LOGF_C(0x3f800000), inf = LOGF_C(0x7f800000);
    __m256 neg = _mm256_cmp_ps(xin, zero, _CMP_LT_OQ), zer = _mm256_cmp_ps(xin, zero, _CMP_EQ_OQ);
    __m256 isinf = _mm256_cmp_ps(xin, inf, _CMP_EQ_OQ), nan = _mm256_cmp_ps(xin, xin, _CMP_NEQ_UQ);
    __m256 x = _mm256_blendv_ps(xin, zero, neg), den;
    /* the exponent (NumPy's fma_get_exponent) */
    __m256 s = logf_scale(x, &den);
    __m256 e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(s), 23),
                                                   _mm256_set1_epi32(0x7e)));
    e = _mm256_blendv_ps(e, _mm256_sub_ps(e, _mm256_set1_ps(100.0f)), den);
    /* the mantissa (fma_get_mantissa) */
    s = logf_scale(x, &den);
    x = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(_mm256_castps_si256(s), _mm256_set1_epi32(0x7fffff)),
                                            _mm256_set1_epi32(126 << 23)));
    __m256 sq = _mm256_cmp_ps(x, LOGF_C(0x3f3504f3), _CMP_LE_OQ);
    x = _mm256_blendv_ps(x, _mm256_add_ps(x, x), sq);
    e = _mm256_blendv_ps(e, _mm256_sub_ps(e, one), sq);
    x = _mm256_sub_ps(x, one);
    __m256 num = _mm256_fmadd_ps(LOGF_C(0x3cd42bcd), x, LOGF_C(0x3ec30333));
    num = _mm256_fmadd_ps(num, x, LOGF_C(0x3fbd70a9));
    num = _mm256_fmadd_ps(num, x, LOGF_C(0x4007361c));
    num = _mm256_fmadd_ps(num, x, LOGF_C(0x3f800000));
    num = _mm256_fmadd_ps(num, x, zero);
    __m256 dd = _mm256_fmadd_ps(LOGF_C(0x3bc083df), x, LOGF_C(0x3e1e5bf3));
    dd = _mm256_fmadd_ps(dd, x, LOGF_C(0x3f7c8ae4));
    dd = _mm256_fmadd_ps(dd, x, LOGF_C(0x401cfe0d));
    dd = _mm256_fmadd_ps(dd, x, LOGF_C(0x4027361c));
    dd = _mm256_fmadd_ps(dd, x, one);
    __m256 poly = _mm256_fmadd_ps(e, LOGF_C(0x3f317218), _mm256_div_ps(num, dd));
    poly = _mm256_blendv_ps(poly, LOGF_C(0x7fc00000), nan);
    poly = _mm256_blendv_ps(poly, LOGF_C(0xffc00000), neg);
    poly = _mm256_blendv_ps(poly, LOGF_C(0xff800000), zer);
    return _mm256_blendv_ps(poly, inf, isinf);
#undef LOGF_C
}

/* the logistic functions on the vector exp, operation for operation activations._logistic's
   NumPy steps (negative, exp, add 1, reciprocal or divide): sigmoid 1 / (1 + exp(-x)),
   silu x / (1 + exp(-x)) */
__attribute__((target("avx2,fma"))) static inline __m256
sigmoidf8(__m256 x)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(one, _mm256_add_ps(expf8(_mm256_xor_ps(x, _mm256_set1_ps(-0.0f))), one));
}
__attribute__((target("avx2,fma"))) static inline __m256
siluf8(__m256 x)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(x, _mm256_add_ps(expf8(_mm256_xor_ps(x, _mm256_set1_ps(-0.0f))), one));
}
/* float32 exp on AVX-512F: NumPy's AVX512F simd_exp_FLOAT, the loop its FLOAT_exp runs where
   it dispatches X86_V4 or AVX512: expf8's operations sixteen lanes wide, but 2^k put in by
   scalef (poly * 2^k rounded once; for a subnormal result that is the rounding of expf8's
   division by a power of two, so the two give the same bits). Checked once beyond CI against
   NumPy's AVX-512 loop on all 2^32 float32 inputs: 0 differences. NumPy's loop runs one
   vector at a time, waiting on its chain of FMAs and the division; exp_f32 keeps four in
   flight (1e5 float32, one thread, minima: 0.46 ns an element against NumPy's 0.65 and
   PyTorch's SLEEF 0.28, stop 51). Used where the processor has AVX-512F (use512). */
#define EXPF16_C(h) _mm512_castsi512_ps(_mm512_set1_epi32((int)(h)))
__attribute__((target("avx512f"))) static inline __m512
expf16(__m512 x)
{
    const __m512 zero = _mm512_setzero_ps();
    __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_NEQ_UQ);
    x = _mm512_mask_blend_ps(nan, x, zero);
    __mmask16 big = _mm512_cmp_ps_mask(x, _mm512_set1_ps(88.72283935546875f), _CMP_GE_OQ);
    __mmask16 small = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-103.97208404541015625f), _CMP_LE_OQ);
    x = _mm512_mask_blend_ps(nan | small | big, x, zero);
    const __m512 magic = _mm512_set1_ps(0x1.8p23f);
    __m512 q = _mm512_sub_ps(_mm512_add_ps(_mm512_mul_ps(x, EXPF16_C(0x3fb8aa3b)), magic), magic);
    x = _mm512_fmadd_ps(q, EXPF16_C(0xbf317200), x);
    x = _mm512_fmadd_ps(q, EXPF16_C(0xb5bfbe8e), x);
    x = _mm512_fmadd_ps(q, zero, x);
    __m512 num = _mm512_fmadd_ps(EXPF16_C(0x3a053dd8), x, EXPF16_C(0x3bdd7159));
    num = _mm512_fmadd_ps(num, x, EXPF16_C(0x3d517d8c));
    num = _mm512_fmadd_ps(num, x, EXPF16_C(0x3e7d4c58));
    num = _mm512_fmadd_ps(num, x, EXPF16_C(0x3f39cbd5));
    num = _mm512_fmadd_ps(num, x, EXPF16_C(0x3f800000));
    __m512 den = _mm512_fmadd_ps(EXPF16_C(0x3cb0e832), x, EXPF16_C(0xbe8c6857));
    den = _mm512_fmadd_ps(den, x, EXPF16_C(0x3f800000));
    __m512 poly = _mm512_scalef_ps(_mm512_div_ps(num, den), q);
    poly = _mm512_mask_blend_ps(nan, poly, EXPF16_C(0x7fc00000));
    poly = _mm512_mask_blend_ps(big, poly, EXPF16_C(0x7f800000));
    return _mm512_mask_blend_ps(small, poly, zero);
}
#undef EXPF16_C
/* sigmoid and silu on an AVX-512 exp (the NumPy steps of sigmoidf8 and siluf8: negate by
   the sign bit, exp, add 1, then 1 / d or x / d): SIG and SILU of V lanes (SFX ps or pd, I the
   integer lanes' width, MIN the sign bit) */
#define LOGISTIC512(SIG, SILU, EXP, V, SFX, I, MIN)                                               \
    __attribute__((target("avx512f"))) static inline V SIG(V x)                                   \
    {                                                                                             \
        const V one = _mm512_set1_##SFX(1.0);                                                     \
        return _mm512_div_##SFX(one, _mm512_add_##SFX(EXP(_mm512_castsi512_##SFX(_mm512_xor_si512( \
            _mm512_cast##SFX##_si512(x), _mm512_set1_##I(MIN)))), one));                          \
    }                                                                                             \
    __attribute__((target("avx512f"))) static inline V SILU(V x)                                  \
    {                                                                                             \
        const V one = _mm512_set1_##SFX(1.0);                                                     \
        return _mm512_div_##SFX(x, _mm512_add_##SFX(EXP(_mm512_castsi512_##SFX(_mm512_xor_si512(   \
            _mm512_cast##SFX##_si512(x), _mm512_set1_##I(MIN)))), one));                          \
    }
LOGISTIC512(sigmoidf16, siluf16, expf16, __m512, ps, epi32, INT32_MIN)

/* Whether the float32 loops run their AVX-512F versions: the processor has AVX-512F and
   STRIDED_NO_AVX512 is not "1" (the AVX2 versions then run: how the tests check both here).
   Decided once, before a loop of this file first runs (own_check probes the loop used). */
static int
use512(void)
{
    static int on = -1;
    if (on < 0) {
        const char *no = getenv("STRIDED_NO_AVX512");
        on = __builtin_cpu_supports("avx512f") && !(no != NULL && strcmp(no, "1") == 0);
    }
    return on;
}

__attribute__((target("avx2,fma"))) static inline __m256d
sigmoid4(__m256d x)
{
    const __m256d one = _mm256_set1_pd(1.0);
    return _mm256_div_pd(one, _mm256_add_pd(exp4(_mm256_xor_pd(x, _mm256_set1_pd(-0.0))), one));
}
__attribute__((target("avx2,fma"))) static inline __m256d
silu4(__m256d x)
{
    const __m256d one = _mm256_set1_pd(1.0);
    return _mm256_div_pd(x, _mm256_add_pd(exp4(_mm256_xor_pd(x, _mm256_set1_pd(-0.0))), one));
}

/* float64 exp on AVX-512F: where NumPy's DOUBLE_exp runs its X86_V4 loop (built with
   SVML), each vector of 8 is Intel's SVML __svml_exp8_ha, which NumPy links into its
   _multiarray_umath (numpy/_core/src/umath/loops_exponent_log.dispatch.c.src,
   simd_exp_f64: one vector per call, loaded and stored by masked moves). exp8 makes that
   function's main path, operation for operation and with its rounding modes (the
   constants, read from its code: N/16 = floor(16 x log2 e)/16 by a fused multiply-add
   rounded toward zero into 1.5 * 2^48 + 1023, r = x - N ln2/16 in two parts, the sign
   bit's neighbour cleared, exp(r) - 1 = r P(r) with P of degree 5 by three FMA pairs,
   2^(j/16) from a 16-entry table in a high and a relative low part, 2^m by scalef;
   every operation with exceptions suppressed, as there). A vector with a lane of
   |x| >= 707.70327 (SVML's bound for its scalar path: overflow, subnormal results, inf)
   is answered by SVML itself (svml_exp8: the function NumPy's loop calls, found in
   NumPy's module by dlsym), so every lane is SVML's. exp_run_512 keeps four vectors in
   flight where NumPy's loop has one (1e4 float64, one thread, minima: 0.52 ns an element
   against NumPy's 1.13 and PyTorch's SLEEF 1.27). Where NumPy's own loop cannot run SVML
   (operands that overlap without being the same memory: NumPy's scalar npy_exp, the C
   library's exp) so does this one. Used only where the probe (own_check) finds it equal
   to NumPy's loop in this process. */
static void *svml_exp8;   /* NumPy's __svml_exp8_ha, or NULL */
static int exp64_wide;    /* 1: exp_f64 is the SVML replica (exp64_decide) */

#define EXP8_C(h) _mm512_castsi512_pd(_mm512_set1_epi64((long long)(h)))
#define EXP8_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
__attribute__((target("avx512f"))) static inline __m512d
exp8(__m512d x)
{
    /* 2^(j/16) rounded, and (2^(j/16) - that) / that rounded (the table SVML indexes) */
    static const uint64_t hi[16] = {
        0x3ff0000000000000ULL, 0x3ff0b5586cf9890fULL, 0x3ff172b83c7d517bULL, 0x3ff2387a6e756238ULL,
        0x3ff306fe0a31b715ULL, 0x3ff3dea64c123422ULL, 0x3ff4bfdad5362a27ULL, 0x3ff5ab07dd485429ULL,
        0x3ff6a09e667f3bcdULL, 0x3ff7a11473eb0187ULL, 0x3ff8ace5422aa0dbULL, 0x3ff9c49182a3f090ULL,
        0x3ffae89f995ad3adULL, 0x3ffc199bdd85529cULL, 0x3ffd5818dcfba487ULL, 0x3ffea4afa2a490daULL};
    static const uint64_t lo[16] = {
        0x0000000000000000ULL, 0x3c979aa65d837b6dULL, 0xbc801b15eaa59348ULL, 0x3c968efde3a8a894ULL,
        0x3c834d754db0abb6ULL, 0x3c859f48a72a4c6dULL, 0x3c7690cebb7aafb0ULL, 0x3c9063e1e21c5409ULL,
        0xbc93b3efbf5e2228ULL, 0xbc7b32dcb94da51dULL, 0x3c8db72fc1f0eab4ULL, 0x3c71affc2b91ce27ULL,
        0x3c8c1a7792cb3387ULL, 0x3c736eae30af0cb3ULL, 0x3c74a385a63d07a7ULL, 0xbc8ff7128fd391f0ULL};
    const __m512d shift = EXP8_C(0x42f8000000003ff0ULL);
    __m512d z = _mm512_fmadd_round_pd(x, EXP8_C(0x3ff71547652b82feULL), shift,
                                      _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m512d ax = _mm512_castsi512_pd(_mm512_and_epi64(_mm512_castpd_si512(x), _mm512_set1_epi64(INT64_MAX)));
    __mmask8 sp = _mm512_cmp_round_pd_mask(ax, EXP8_C(0x40861da04cbafe44ULL), _CMP_GE_OQ, _MM_FROUND_NO_EXC);
    __m512d kd = _mm512_sub_round_pd(z, shift, EXP8_RN);
    __m512i j = _mm512_castpd_si512(z);
    __m512d r = _mm512_fnmadd_round_pd(kd, EXP8_C(0x3fe62e42fefa39efULL), x, EXP8_RN);
    r = _mm512_fnmadd_round_pd(EXP8_C(0x3c7abc9e3b39803fULL), kd, r, EXP8_RN);
    r = _mm512_castsi512_pd(_mm512_and_epi64(_mm512_castpd_si512(r), _mm512_set1_epi64((long long)0xbfffffffffffffffULL)));
    __m512d th = _mm512_permutex2var_pd(_mm512_loadu_pd((const double *)hi), j, _mm512_loadu_pd((const double *)hi + 8));
    __m512d tl = _mm512_permutex2var_pd(_mm512_loadu_pd((const double *)lo), j, _mm512_loadu_pd((const double *)lo + 8));
    __m512d r2 = _mm512_mul_round_pd(r, r, EXP8_RN);
    __m512d p = _mm512_fmadd_round_pd(EXP8_C(0x3f57411836940c04ULL), r, EXP8_C(0x3f81101cbbc265c0ULL), EXP8_RN);
    __m512d q = _mm512_fmadd_round_pd(EXP8_C(0x3fa55557242d68feULL), r, EXP8_C(0x3fc5555553939732ULL), EXP8_RN);
    __m512d s = _mm512_fmadd_round_pd(EXP8_C(0x3fe000000000d008ULL), r, EXP8_C(0x3fefffffffffff70ULL), EXP8_RN);
    p = _mm512_fmadd_round_pd(r2, p, q, EXP8_RN);
    p = _mm512_fmadd_round_pd(r2, p, s, EXP8_RN);
    p = _mm512_fmadd_round_pd(p, r, tl, EXP8_RN);
    p = _mm512_fmadd_round_pd(th, p, th, EXP8_RN);
    if (__builtin_expect(sp != 0, 0))
        return ((__m512d (*)(__m512d))svml_exp8)(x);
    return _mm512_scalef_round_pd(p, kd, EXP8_RN);
}
#undef EXP8_C
#undef EXP8_RN
LOGISTIC512(sigmoid8, silu8, exp8, __m512d, pd, epi64, INT64_MIN) /* (sigmoid4 and silu4 on exp8) */
#undef LOGISTIC512

/* Whether exp_f64 runs exp8 (SVML's) rather than exp4 (the C library's): decided once, with
   the GIL, before exp_f64 first runs (own_check) -- where the processor has AVX-512F
   (use512), NumPy's float64 exp runs its AVX-512 loop here (numpy_wider) and NumPy's
   module exports __svml_exp8_ha. (Either way the probe then decides whether it is used.) */
static int numpy_wider(const char *ufunc, int d);
static void
exp64_decide(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    if (!use512() || !numpy_wider("exp", 1))
        return;
    PyObject *m = PyImport_ImportModule("numpy._core._multiarray_umath");
    PyObject *f = m != NULL ? PyObject_GetAttrString(m, "__file__") : NULL;
    const char *path = f != NULL && PyUnicode_Check(f) ? PyUnicode_AsUTF8(f) : NULL;
    void *h = path != NULL ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (h != NULL) {
        svml_exp8 = dlsym(h, "__svml_exp8_ha");
        dlclose(h); /* (NumPy's module stays loaded: Python holds its own handle) */
    }
    exp64_wide = svml_exp8 != NULL;
    Py_XDECREF(f);
    Py_XDECREF(m);
    (void)contract_clear(PyExc_Exception);
}

/* lanes of T through F (a function of one vector V of W lanes), contiguous W at a time,
   the rest and other strides through a buffer of W; NAME##_loop is its NumPy-style loop */
#define VEC_RUN(NAME, F, T, W, V, LOAD, STORE)                                                    \
    __attribute__((target("avx2,fma"))) static void                                               \
    NAME(const char *in, char *out, Py_ssize_t n, Py_ssize_t si, Py_ssize_t so)                   \
    {                                                                                             \
        Py_ssize_t i = 0;                                                                         \
        if (si == (Py_ssize_t)sizeof(T) && so == (Py_ssize_t)sizeof(T))                           \
            for (; i + W <= n; i += W)                                                            \
                STORE((T *)out + i, F(LOAD((const T *)in + i)));                                  \
        while (i < n) {                                                                           \
            T v[W] = {0};                                                                         \
            int m = n - i < W ? (int)(n - i) : W;                                                 \
            for (int j = 0; j < m; j++)                                                           \
                v[j] = *(const T *)(in + (i + j) * si);                                           \
            STORE(v, F(LOAD(v)));                                                                 \
            for (int j = 0; j < m; j++)                                                           \
                *(T *)(out + (i + j) * so) = v[j];                                                \
            i += m;                                                                               \
        }                                                                                         \
    }                                                                                             \
    static int NAME##_loop(void *ctx, char *const *data, const Py_ssize_t *dims,                  \
                           const Py_ssize_t *steps, void *aux)                                    \
    {                                                                                             \
        (void)ctx, (void)aux;                                                                     \
        WIDE(NAME)(data[0], data[1], dims[0], steps[0], steps[1]);                                \
        return 0;                                                                                 \
    }
/* NAME##_512: lanes of T (float32: ps, float64: pd) through F, W a vector, four vectors a
   step where the operands are contiguous (independent chains in flight), a masked vector for
   the rest; other strides through a buffer of W. NAME##_loop runs it where use512() (float32)
   or exp64_wide (float64) says so. */
#define VEC_RUN512_T(NAME, F, T, W, V, M, SFX)                                                    \
    __attribute__((target("avx512f"))) static void                                                \
    NAME##_512(const char *in, char *out, Py_ssize_t n, Py_ssize_t si, Py_ssize_t so)             \
    {                                                                                             \
        Py_ssize_t i = 0;                                                                         \
        if (si == (Py_ssize_t)sizeof(T) && so == (Py_ssize_t)sizeof(T)) {                        \
            const T *a = (const T *)in; /* (no restrict: in may be out) */                        \
            T *o = (T *)out;                                                                      \
            for (; i + 4 * W <= n; i += 4 * W) {                                                  \
                V v0 = _mm512_loadu_##SFX(a + i), v1 = _mm512_loadu_##SFX(a + i + W);             \
                V v2 = _mm512_loadu_##SFX(a + i + 2 * W), v3 = _mm512_loadu_##SFX(a + i + 3 * W); \
                v0 = F(v0), v1 = F(v1), v2 = F(v2), v3 = F(v3);                                   \
                _mm512_storeu_##SFX(o + i, v0), _mm512_storeu_##SFX(o + i + W, v1);               \
                _mm512_storeu_##SFX(o + i + 2 * W, v2), _mm512_storeu_##SFX(o + i + 3 * W, v3);   \
            }                                                                                     \
            for (; i + W <= n; i += W)                                                            \
                _mm512_storeu_##SFX(o + i, F(_mm512_loadu_##SFX(a + i)));                         \
            if (i < n) {                                                                          \
                M m = (M)((1u << (n - i)) - 1);                                                   \
                _mm512_mask_storeu_##SFX(o + i, m, F(_mm512_maskz_loadu_##SFX(m, a + i)));        \
            }                                                                                     \
            return;                                                                               \
        }                                                                                         \
        while (i < n) {                                                                           \
            T v[W] = {0};                                                                         \
            int m = n - i < W ? (int)(n - i) : W;                                                 \
            for (int j = 0; j < m; j++)                                                           \
                v[j] = *(const T *)(in + (i + j) * si);                                           \
            _mm512_storeu_##SFX(v, F(_mm512_loadu_##SFX(v)));                                     \
            for (int j = 0; j < m; j++)                                                           \
                *(T *)(out + (i + j) * so) = v[j];                                                \
            i += m;                                                                               \
        }                                                                                         \
    }
#define VEC_RUN512(NAME, F16) VEC_RUN512_T(NAME, F16, float, 16, __m512, __mmask16, ps)
#define VEC_RUN512D(NAME, F8) VEC_RUN512_T(NAME, F8, double, 8, __m512d, __mmask8, pd)
#define F32_RUN(NAME, F) VEC_RUN(NAME, F, float, 8, __m256, _mm256_loadu_ps, _mm256_storeu_ps)
#define F64_RUN(NAME, F) VEC_RUN(NAME, F, double, 4, __m256d, _mm256_loadu_pd, _mm256_storeu_pd)
VEC_RUN512(expf_run, expf16)
VEC_RUN512(sigmoidf_run, sigmoidf16)
VEC_RUN512(siluf_run, siluf16)
#define WIDE(NAME) (use512() ? NAME##_512 : NAME)
F32_RUN(expf_run, expf8)
F32_RUN(sigmoidf_run, sigmoidf8)
F32_RUN(siluf_run, siluf8)
#undef WIDE
#define WIDE(NAME) NAME
F32_RUN(logf_run, logf8)
#undef WIDE
VEC_RUN512D(exp_run, exp8)
VEC_RUN512D(sigmoid_run, sigmoid8)
VEC_RUN512D(silu_run, silu8)
#define WIDE(NAME) (exp64_wide ? NAME##_512 : NAME)
F64_RUN(exp_run, exp4)
F64_RUN(sigmoid_run, sigmoid4)
F64_RUN(silu_run, silu4)
#undef WIDE
#undef F32_RUN
#undef F64_RUN
#undef VEC_RUN
#undef VEC_RUN512
#undef VEC_RUN512D
#undef VEC_RUN512_T
#define exp_f32 expf_run_loop
#define log_f32 logf_run_loop
/* float64 exp as NumPy's DOUBLE_exp runs it. Its SVML loop (exp64_wide) takes operands with
   strides it can load and store (npyv_loadable_stride_f64 and npyv_storable_stride_f64: at
   most 0x7fffffff / 16 elements; NumPy 2.4 divides a negative step by sizeof as an unsigned
   number, so a negative one is refused there: exp64_neg, which the probe finds out) that do
   not overlap; the rest one element at a time in order, the C library's exp, as this does.
   Its other loops are that scalar loop for every layout, whose values exp4 gives lane by
   lane; operands that overlap take the scalar loop here too (its order). Overlap is of the
   bytes the operands touch, the same memory at the same step excepted. (NumPy's own test,
   nomemoverlap, measures step * n bytes from each start, one step past the last element: it
   takes an output that begins right after a strided input's last element for an overlap,
   and gives the C library's values there; this gives SVML's, as NumPy does for those
   values anywhere else, so that a result does not depend on where an allocator put it.) */
static int exp64_neg = 1; /* NumPy's SVML loop refuses a negative step (own_check decides) */
/* the largest step (elements) it takes: 0x7fffffff / 16 where NumPy compares elements, an
   eighth of that where a version compares the step's bytes (own_check decides) */
static Py_ssize_t exp64_maxstep = 0x7fffffff / 16;

static int
exp64_stride_ok(Py_ssize_t s)
{
    if (s % (Py_ssize_t)sizeof(double) != 0 || (s < 0 && exp64_neg))
        return 0;
    s /= (Py_ssize_t)sizeof(double);
    return (s < 0 ? -s : s) <= exp64_maxstep;
}

static int
exp_f64(void *ctx, char *const *data, const Py_ssize_t *dims, const Py_ssize_t *steps, void *aux)
{
    const Py_ssize_t n = dims[0], si = steps[0], so = steps[1], m = n > 0 ? n - 1 : 0;
    const uintptr_t ip = (uintptr_t)data[0], op = (uintptr_t)data[1];
    const uintptr_t i0 = si < 0 ? ip + si * m : ip, i1 = (si < 0 ? ip : ip + si * m) + sizeof(double);
    const uintptr_t o0 = so < 0 ? op + so * m : op, o1 = (so < 0 ? op : op + so * m) + sizeof(double);
    if (((ip == op && si == so) || i0 >= o1 || o0 >= i1 || n == 0)
        && (!exp64_wide || (exp64_stride_ok(si) && exp64_stride_ok(so))))
        return exp_run_loop(ctx, data, dims, steps, aux);
    for (Py_ssize_t k = 0; k < n; k++)
        *(double *)(data[1] + k * so) = exp(*(const double *)(data[0] + k * si));
    return 0;
}

/* The table: H[k] = 2^(k/128) rounded to double, T[k] = 2^(k/128)/H[k] - 1 rounded, from
   decimal arithmetic of 90 digits (strided._core._npcompat.exp_table): 0, or -1 with an
   error set. */
static int
exp_table(void)
{
    PyObject *m = PyImport_ImportModule("strided._core._npcompat"), *t = NULL;
    if (m != NULL)
        t = PyObject_CallMethod(m, "exp_table", NULL);
    Py_XDECREF(m);
    if (t == NULL)
        return -1;
    Py_buffer v;
    int rc = PyObject_GetBuffer(t, &v, PyBUF_SIMPLE);
    Py_DECREF(t);
    if (rc < 0)
        return -1;
    if (v.len != (Py_ssize_t)sizeof exp_tab) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError, "exp_table(): expected 256 float64 values");
        return -1;
    }
    memcpy(exp_tab, v.buf, sizeof exp_tab);
    PyBuffer_Release(&v);
    return 0;
}

/* What a row of vec_loops adds to the probe: prepare (before the probe: decide the loop's
   version, make its tables; 0 or -1 with an error set), layouts (after the contiguous probe:
   the other layouts' answers, 1 all NumPy's), as_wide (after the probe: the loop runs an
   AVX-512 version, as wide as NumPy's own). */
static int exp64_prepare(void);
static int exp64_layouts(const CallInfo *info, char *x, char *a, char *b);
static int exp32_as_wide(void) { return use512(); }
static int exp64_as_wide(void) { return exp64_wide; }

/* The vector loops, each used in place of NumPy's loop for one ufunc and dtype once the
   probe (own_check) has found it equal to that loop in this process. */
static struct {
    const char *ufunc;   /* numpy.<ufunc> */
    int d;               /* 0 float32, 1 float64 */
    np_loop *loop;       /* ours */
    int (*prepare)(void);
    int (*layouts)(const CallInfo *info, char *x, char *a, char *b);
    int (*as_wide)(void);
    int state;           /* 0 unknown, 1 verified, -1 refused ... */
    np_loop *numpy;      /* ... for this loop of NumPy's */
    PyObject *k;         /* the ufunc (made at first use) */
    int wider;           /* NumPy's loop is its AVX-512 one (numpy_wider) and ours is not:
                            verified, not preferred */
} vec_loops[] = {
    {"exp", 0, exp_f32, NULL, NULL, exp32_as_wide},
    {"exp", 1, exp_f64, exp64_prepare, exp64_layouts, exp64_as_wide},
    {"log", 0, log_f32, NULL, NULL, NULL},
};
#define N_VEC (sizeof vec_loops / sizeof vec_loops[0])

/* Whether NumPy runs its own AVX-512 loop for numpy.<ufunc> on dtype d (0 float32, 1 float64)
   in this process: its __cpu_targets_info__ says an X86_V4 or AVX512 target (where NumPy has
   no such table, whether the processor has AVX-512F). Ours are AVX2 loops, measured faster than
   NumPy's AVX2 and baseline loops only; NumPy's AVX-512 float32 exp and log give the same bits
   twice as wide (float32 exp at 1e4-1e5: 0.53 ns an element against ours' 1.05, an AVX-512
   Xeon, stop 48), so there a verified loop of ours is kept for what builds on it (sigmoid,
   silu: one pass) and not put in place of NumPy's -- except float32 exp where ours runs its
   own AVX-512 version (expf16, use512: the same width, four vectors in flight), and float64
   exp where NumPy's AVX-512 loop is SVML's and ours runs exp8 (exp64_wide). */
static int
numpy_wider(const char *ufunc, int d)
{
    int wide = __builtin_cpu_supports("avx512f") ? 1 : 0;
    PyObject *m = PyImport_ImportModule("numpy._core._multiarray_umath");
    PyObject *info = m != NULL ? PyObject_GetAttrString(m, "__cpu_targets_info__") : NULL;
    PyObject *u = info != NULL && PyDict_CheckExact(info) ? PyDict_GetItemString(info, ufunc) : NULL;
    PyObject *sig = u != NULL && PyDict_CheckExact(u) ? PyDict_GetItemString(u, d ? "dd" : "ff") : NULL;
    PyObject *cur = sig != NULL && PyDict_CheckExact(sig) ? PyDict_GetItemString(sig, "current") : NULL;
    if (cur != NULL && PyUnicode_CheckExact(cur)) {
        const char *c = PyUnicode_AsUTF8(cur);
        if (c != NULL)
            wide = strncmp(c, "X86_V4", 6) == 0 || strncmp(c, "AVX512", 6) == 0;
    }
    Py_XDECREF(info);
    Py_XDECREF(m);
    (void)contract_clear(PyExc_Exception);
    return wide;
}

#define VEC_PROBE 65536
/* float64 exp on other layouts (x the probe, a and b as long): a step of 3, a reversed
   input and output, then operands shifted by one element over each other, NumPy's loop
   against exp_f64 -- first as if NumPy refused a negative
   step (exp64_neg 1), else as if it took one; 1 where one of them is NumPy's loop (and
   exp64_neg says which), 0 where neither is. */
static int
exp64_layouts(const CallInfo *info, char *x, char *a, char *b)
{
    const Py_ssize_t m = VEC_PROBE / 3, d = (Py_ssize_t)sizeof(double);
    char *last = x + (VEC_PROBE - 1) * d;
    char *in[3] = {x, last, x}, *outa[3] = {a, a, a + (VEC_PROBE - 1) * d}, *outb[3] = {b, b, b + (VEC_PROBE - 1) * d};
    Py_ssize_t cnt[3] = {m, VEC_PROBE, VEC_PROBE}, si[3] = {3 * d, -d, d}, so[3] = {d, d, -d};
    /* The step bound: one element (the loops read no other) at a step just past each bound
       NumPy's versions have, of a value whose SVML exp (a: NumPy's contiguous answers) is not
       the C library's; the output below the input (NumPy's overlap test reaches a step past
       it). */
    exp64_maxstep = 0x7fffffff / 16;
    for (Py_ssize_t k = 0; k < VEC_PROBE; k++) {
        double v = ((double *)x)[k], w = ((double *)a)[k], c = exp(v);
        if (w == w && fabs(w) < HUGE_VAL && w != c) {
            Py_ssize_t one = 1, bounds[2] = {0x7fffffff / 16 / 8, 0x7fffffff / 16};
            for (int q = 0; q < 2; q++) {
                Py_ssize_t st[2] = {(bounds[q] + 1) * d, d};
                char *da[2] = {b, a};
                memcpy(b, &v, sizeof v);
                if (info->strided_loop(info->context, da, &one, st, info->auxdata) != 0)
                    return 0;
                if (memcmp(a, &c, sizeof c) == 0) { /* NumPy took the C library's exp there */
                    exp64_maxstep = bounds[q];
                    break;
                }
                if (q == 1)
                    exp64_maxstep = PY_SSIZE_T_MAX / 8;
            }
            break;
        }
    }
    for (exp64_neg = 1; exp64_neg >= 0; exp64_neg--) {
        int same = 1;
        for (int c = 0; c < 3 && same; c++) {
            char *da[2] = {in[c], outa[c]}, *db[2] = {in[c], outb[c]};
            Py_ssize_t st[2] = {si[c], so[c]};
            same = info->strided_loop(info->context, da, &cnt[c], st, info->auxdata) == 0
                   && exp_f64(NULL, db, &cnt[c], st, NULL) == 0
                   && memcmp(so[c] < 0 ? a : outa[c], so[c] < 0 ? b : outb[c], (size_t)cnt[c] * d) == 0;
        }
        if (same) { /* and overlapping operands: a shift by one element, both ways */
            for (int c = 0; c < 2 && same; c++) {
                Py_ssize_t k = VEC_PROBE - 1, st[2] = {d, d};
                memcpy(a, x, VEC_PROBE * d), memcpy(b, x, VEC_PROBE * d);
                char *da[2] = {a + c * d, a + (1 - c) * d}, *db[2] = {b + c * d, b + (1 - c) * d};
                same = info->strided_loop(info->context, da, &k, st, info->auxdata) == 0
                       && exp_f64(NULL, db, &k, st, NULL) == 0 && memcmp(a, b, VEC_PROBE * d) == 0;
            }
            if (same)
                return 1;
        }
    }
    exp64_neg = 1;
    return 0;
}
/* Does vec_loops[e] give what NumPy's loop in info gives on the probe? 1 yes, 0 no (nothing
   set). float64 exp: the range's edges, zeros, subnormals, infinities and NaNs, every table
   entry either side of its centre, random values of every binade from 2^-60 to 2^10 and
   uniform over [-750, 720). float32: the edges and special values of both functions, then
   random bit patterns: for exp of every binade from 2^-30 to 2^8 of either sign (the range,
   the subnormal results from -87.3 down, the polynomial near 0), for log of every binade
   (subnormals included), one in sixteen negative. */
static int
own_check(const CallInfo *info, size_t e)
{
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        return 0;
    const int d = vec_loops[e].d, is_log = vec_loops[e].ufunc[0] == 'l';
    if (vec_loops[e].prepare != NULL && vec_loops[e].prepare() < 0)
        return contract_clear(PyExc_Exception) ? 0 : 0;
    static const uint64_t edge[] = {
        0x0ULL, 0x8000000000000000ULL, 0x1ULL, 0x800fffffffffffffULL, 0x3c90000000000000ULL,
        0x3c8fffffffffffffULL, 0xbc90000000000000ULL, 0x4080000000000000ULL, 0x407fffffffffffffULL,
        0xc080000000000000ULL, 0xc07fffffffffffffULL, 0x40862e42fefa39efULL, 0x40862e42fefa39f0ULL,
        0xc0874910d52d3051ULL, 0xc0874910d52d3052ULL, 0xc086232bdd7abcd2ULL, 0x7ff0000000000000ULL,
        0xfff0000000000000ULL, 0x7ff8000000000000ULL, 0xfff8000000000001ULL, 0x7ff4000000000abcULL,
        0x3ff0000000000000ULL, 0xbff0000000000000ULL, 0x7fefffffffffffffULL, 0xffefffffffffffffULL,
        0x40861da04cbafe44ULL, 0x40861da04cbafe43ULL, 0xc0861da04cbafe44ULL, 0xc0861da04cbafe43ULL};
    static const uint32_t edgef[] = {
        0x0, 0x80000000, 0x1, 0x807fffff, 0x007fffff, 0x00800000, 0x42b17218, 0x42b17217, 0xc2cff1b5,
        0xc2cff1b4, 0xc2aeac50, 0xc2aeac4f, 0xc2fa0000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001,
        0x7fa00abc, 0x3f800000, 0xbf800000, 0x3f3504f3, 0x3f3504f4, 0x3f7fffff, 0x3f800001, 0x7f7fffff,
        0xff7fffff, 0xc2780000, 0xc2781e37, 0x3f486945};
    const int ne = d ? (int)(sizeof edge / sizeof edge[0]) : (int)(sizeof edgef / sizeof edgef[0]);
    const size_t isz = d ? sizeof(double) : sizeof(float);
    char *x = PyMem_Malloc(3 * VEC_PROBE * isz);
    if (x == NULL)
        return 0;
    char *a = x + VEC_PROBE * isz, *b = a + VEC_PROBE * isz;
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < VEC_PROBE; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        if (d == 0) {
            uint32_t bits;
            if (i < ne)
                bits = edgef[i];
            else if (is_log) { /* any bits, positive but one in sixteen */
                bits = (uint32_t)(s >> 32);
                if ((s & 15) != 0)
                    bits &= 0x7fffffffu;
            }
            else
                bits = (uint32_t)(0x61 + s % (0x88 - 0x61)) << 23 | (uint32_t)(s >> 20 & 0x7fffff)
                       | (uint32_t)(s & 1) << 31;
            memcpy(x + i * isz, &bits, 4);
            continue;
        }
        uint64_t bits;
        if (i < ne)
            bits = edge[i];
        else if (i < ne + 2048) { /* every table entry, either side of its centre */
            double k = (double)((i - ne) / 2 % 1024 - 512) + (i % 2 ? 0.49 : -0.49);
            double v = k * 0x1.62e42fefa39efp-8;
            memcpy(&bits, &v, 8);
        }
        else if (i < ne + 2048 + 16384)
            bits = ((uint64_t)(0x3c3 + s % (0x40a - 0x3c3)) << 52) | (s >> 12 & 0xfffffffffffffULL)
                   | (s & 1) << 63;
        else {
            double v = (double)(s >> 11) / 9007199254740992.0 * 1470.0 - 750.0;
            memcpy(&bits, &v, 8);
        }
        memcpy(x + i * isz, &bits, 8);
    }
    Py_ssize_t n = VEC_PROBE, st[2] = {(Py_ssize_t)isz, (Py_ssize_t)isz};
    char *da[2] = {x, a}, *db[2] = {x, b};
    Flags fl;
    flags_save(&fl);
    int same = info->strided_loop(info->context, da, &n, st, info->auxdata) == 0
               && vec_loops[e].loop(NULL, db, &n, st, NULL) == 0 && memcmp(a, b, VEC_PROBE * isz) == 0;
    if (same && vec_loops[e].layouts != NULL)
        same = vec_loops[e].layouts(info, x, a, b);
    flags_restore(&fl);
    PyMem_Free(x);
    (void)contract_clear(PyExc_Exception);
    return same;
}

/* float64 exp before its probe: which version runs (exp64_decide), and its table */
static int
exp64_prepare(void)
{
    exp64_decide();
    return exp_table();
}

/* Replace NumPy's loop in info by one of vec_loops where that is NumPy's loop bit for bit
   (k the ufunc, descrs its resolved descriptors). */
static void
vec_prefer(PyObject *k, CallInfo *info, PyObject *descrs)
{
    static PyObject *dts[2];
    static int ready; /* 1 made, -1 failed */
    if (ready == 0) {
        PyObject *np = PyImport_ImportModule("numpy");
        ready = -1;
        if (np != NULL) {
            dts[0] = PyObject_CallMethod(np, "dtype", "s", "float32");
            dts[1] = dts[0] ? PyObject_CallMethod(np, "dtype", "s", "float64") : NULL;
            int ok = dts[1] != NULL;
            for (size_t e = 0; ok && e < N_VEC; e++)
                ok = (vec_loops[e].k = PyObject_GetAttrString(np, vec_loops[e].ufunc)) != NULL;
            Py_DECREF(np);
            ready = ok ? 1 : -1;
        }
        if (PyErr_Occurred())
            (void)contract_clear(PyExc_Exception);
    }
    if (ready < 0 || !PyTuple_CheckExact(descrs) || PyTuple_GET_SIZE(descrs) != 2 || info->requires_pyapi)
        return;
    for (size_t e = 0; e < N_VEC; e++) {
        if (vec_loops[e].k != k)
            continue;
        if (info->strided_loop == vec_loops[e].loop)
            return;
        PyObject *dt = dts[vec_loops[e].d];
        int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(descrs, 0), dt, Py_EQ);
        if (eq == 1)
            eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(descrs, 1), dt, Py_EQ);
        if (eq < 0) {
            (void)contract_clear(PyExc_Exception);
            return;
        }
        if (eq != 1)
            continue;
        if (vec_loops[e].state == 0 || vec_loops[e].numpy != info->strided_loop) {
            vec_loops[e].numpy = info->strided_loop;
            vec_loops[e].state = own_check(info, e) ? 1 : -1;
            /* (where ours runs an AVX-512 version it is as wide, and faster) */
            vec_loops[e].wider = numpy_wider(vec_loops[e].ufunc, vec_loops[e].d)
                                 && !(vec_loops[e].as_wide != NULL && vec_loops[e].as_wide());
        }
        if (vec_loops[e].state == 1 && !vec_loops[e].wider)
            info->strided_loop = vec_loops[e].loop;
        return;
    }
}

/* Is the vector exp of dtype d (0 float32, 1 float64) NumPy's exp in this process? Checked
   here first if no exp call has asked yet (NumPy's loop from _npcompat.strided_loop_info). */
static int
vec_exp_ready(int d)
{
    size_t e = d ? 1 : 0; /* (vec_loops' first two rows: exp of float32, of float64) */
    if (vec_loops[e].state == 0) {
        PyObject *m = PyImport_ImportModule("strided._core._npcompat"), *np = PyImport_ImportModule("numpy");
        PyObject *k = np ? PyObject_GetAttrString(np, "exp") : NULL;
        PyObject *dt = k ? PyObject_CallMethod(np, "dtype", "s", d ? "float64" : "float32") : NULL;
        PyObject *cap = m && dt ? PyObject_CallMethod(m, "strided_loop_info", "OO", k, dt) : NULL;
        if (cap != NULL && PyCapsule_IsValid(cap, CALL_INFO)) {
            PyObject *descrs = PyTuple_Pack(2, dt, dt);
            if (descrs != NULL)
                vec_prefer(k, (CallInfo *)PyCapsule_GetPointer(cap, CALL_INFO), descrs);
            Py_XDECREF(descrs);
        }
        Py_XDECREF(cap);
        Py_XDECREF(dt);
        Py_XDECREF(k);
        Py_XDECREF(np);
        Py_XDECREF(m);
        (void)contract_clear(PyExc_Exception);
    }
    return vec_loops[e].state == 1;
}
#endif

/* own_loop_info(name, dtype): the call-info capsule of the own loop `name` (own_loops) for
   a float32/float64 dtype, or None (no such loop, or one built on a vector exp that is not
   NumPy's here). */
PyObject *
own_loop_info(PyObject *mod, PyObject *args)
{
    const char *name;
    Py_ssize_t isz;
    if (!PyArg_ParseTuple(args, "sn:own_loop_info", &name, &isz))
        return NULL;
    int k = isz == 4 ? 0 : isz == 8 ? 1 : -1;
    for (size_t i = 0; k >= 0 && i < sizeof own_loops / sizeof own_loops[0]; i++) {
        if (strcmp(name, own_loops[i].name) != 0)
            continue;
#ifdef EXP_SIMD
        if (own_loops[i].needs_exp && !vec_exp_ready(k))
            break;
#endif
        if (own_loops[i].cap[k] == NULL
            && (own_loops[i].cap[k] = PyCapsule_New(&own_loops[i].info[k], CALL_INFO, NULL)) == NULL)
            return NULL;
        return Py_NewRef(own_loops[i].cap[k]);
    }
    Py_RETURN_NONE;
}

/* prefer_loop(ufunc, capsule, descriptors): the capsule's loop replaced by one of this
   file's where that is NumPy's loop bit for bit (exp of float64); True if replaced. */
PyObject *
prefer_loop(PyObject *mod, PyObject *args)
{
    PyObject *k, *cap, *descrs;
    if (!PyArg_ParseTuple(args, "OOO:prefer_loop", &k, &cap, &descrs))
        return NULL;
    CallInfo *info = PyCapsule_IsValid(cap, CALL_INFO) ? PyCapsule_GetPointer(cap, CALL_INFO) : NULL;
    if (info == NULL) {
        PyErr_SetString(PyExc_TypeError, "prefer_loop(): expected a NumPy ufunc call-info capsule");
        return NULL;
    }
#ifdef EXP_SIMD
    vec_prefer(k, info, descrs);
    for (size_t e = 0; e < N_VEC; e++)
        if (info->strided_loop == vec_loops[e].loop)
            Py_RETURN_TRUE;
    Py_RETURN_FALSE;
#else
    Py_RETURN_FALSE;
#endif
}

/* vector_width() -> int: the lanes' bits of this file's float32 vector loops here: 512
   (AVX-512F, use512), 256 (AVX2), 0 (not built for this platform). */
PyObject *
vector_width(PyObject *mod, PyObject *noargs)
{
    (void)mod, (void)noargs;
#ifdef EXP_SIMD
    return PyLong_FromLong(use512() ? 512 : 256);
#else
    return PyLong_FromLong(0);
#endif
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
Loop *
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
    /* The ufunc whose loop runs: the kernel, or the one a Python kernel names as its own
       (_loop_ufunc) with its constant block for a Python scalar (_scalar_block: maximum's and
       minimum's, elementwise.py, _extremum_kernel; run_loop makes the block) or with the
       operands its loop alone computes (_loop_guard: floor_divide's and pow's, whose
       corrections have nothing to put right there; guard_ok below). */
    PyObject *uf = Py_NewRef(fresh.kernel);
    if (loops_ready && Py_TYPE(uf) != UF_T) {
        /* (the row's kernel for a device: functools.partial(kern, xp), NumPy's xp only; or
           a kernel with its correction, a function that names a loop for NumPy's only:
           elementwise.py, Elementwise.resolve) */
        static PyObject *s_loop_ufunc, *s_block, *s_guard, *s_args, *np_mod;
        if (s_loop_ufunc == NULL)
            s_loop_ufunc = PyUnicode_InternFromString("_loop_ufunc");
        if (s_block == NULL)
            s_block = PyUnicode_InternFromString("_scalar_block");
        if (s_guard == NULL)
            s_guard = PyUnicode_InternFromString("_loop_guard");
        if (s_args == NULL)
            s_args = PyUnicode_InternFromString("args");
        if (np_mod == NULL)
            np_mod = PyImport_ImportModule("numpy");
        PyObject *fn = np_mod && s_args ? kernel_func(fresh.kernel) : NULL;
        PyObject *args = fn != NULL && fn != fresh.kernel ? PyObject_GetAttr(fresh.kernel, s_args) : NULL;
        int host = fn != NULL && PyFunction_Check(fn)
                   && (fn == fresh.kernel
                       || (args != NULL && PyTuple_CheckExact(args) && PyTuple_GET_SIZE(args) == 1
                           && PyTuple_GET_ITEM(args, 0) == np_mod));
        (void)contract_clear(PyExc_AttributeError);
        PyObject *u = host && s_loop_ufunc ? PyObject_GetAttr(fn, s_loop_ufunc) : NULL;
        (void)contract_clear(PyExc_AttributeError);
        PyObject *b = u != NULL && Py_TYPE(u) == UF_T && s_block ? PyObject_GetAttr(fn, s_block) : NULL;
        (void)contract_clear(PyExc_AttributeError);
        PyObject *g = u != NULL && Py_TYPE(u) == UF_T && s_guard ? PyObject_GetAttr(fn, s_guard) : NULL;
        int guard = g == NULL || !PyUnicode_CheckExact(g) ? G_NONE
                    : PyUnicode_CompareWithASCIIString(g, "noinf") == 0 ? G_NOINF
                    : PyUnicode_CompareWithASCIIString(g, "pow_float") == 0 ? G_POW_F
                    : PyUnicode_CompareWithASCIIString(g, "pow_int") == 0 ? G_POW_I
                    : PyUnicode_CompareWithASCIIString(g, "copy") == 0 ? G_COPY
                    : PyUnicode_CompareWithASCIIString(g, "shift") == 0 ? G_SHIFT : G_NONE;
        if (b == Py_True || guard != G_NONE) {
            Py_SETREF(uf, Py_NewRef(u));
            fresh.scalar_block = b == Py_True;
            fresh.guard = guard;
        }
        Py_XDECREF(fn);
        Py_XDECREF(args);
        Py_XDECREF(u);
        Py_XDECREF(b);
        Py_XDECREF(g);
        (void)contract_clear(PyExc_Exception); /* (no such attributes: the kernel is called) */
    }
    if (loops_ready && Py_TYPE(uf) == UF_T && contract_dtype(fresh.res)) {
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
        fresh.split = 1;
        (void)contract_clear(PyExc_OverflowError); /* (an itemsize beyond Py_ssize_t) */
        if (ok && !PyErr_Occurred() && loop_resolve(&fresh, uf, n, dts)) {
            /* computed in exactly the operands' dtypes (a scalar: the array's) */
            for (int j = 0; j < n; j++)
                ok &= fresh.in[j] == SLOT(Py_TYPE(xs[j]) == Array_T ? SLOT(xs[j], O_dtype) : adt, D_np);
            if (!ok) {
                Py_CLEAR(fresh.cap);
                fresh.info = NULL;
            }
            else if (splits_fn != NULL) { /* (an error: split, as before this was asked) */
                PyObject *a[4] = {uf, fresh.out, n == 2 ? Py_True : Py_False,
                                  fresh.sside ? Py_True : Py_False};
                PyObject *v = PyObject_Vectorcall(splits_fn, a, 4, NULL);
                fresh.split = v == NULL || v != Py_False;
                Py_XDECREF(v);
                (void)contract_clear(PyExc_Exception);
            }
        }
    }
    else if (loops_ready && n == 1 && Py_TYPE(xs[0]) == Array_T && contract_dtype(fresh.res)
             && contract_dtype(SLOT(xs[0], O_dtype)))
        (void)own_loop(&fresh, xs[0]); /* (-1: the error below propagates) */
    Py_DECREF(uf);
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

/* The loop L over operands that broadcast to the target into (a native C-contiguous,
   aligned and writeable, of the loop's result dtype: an in-place operator's or out='s
   target, whose shape the result has): ``X -= row``, ``X *= column``, size-1 axes, 0-d
   operands, a Python scalar. What NumPy's ufunc with out= does for these operands, in
   the order its iterator takes: with a C-contiguous output, C order (its axis ordering
   lets C order win a conflict, and it flips no axis that the output walks forwards), the
   size-1 axes dropped, adjacent axes coalesced where every operand allows it, the loop
   called over the innermost coalesced axis -- or over many rows of it at once where a
   short operand repeats along them (tiled below, where NumPy's buffered iterator copies
   it). Each Array operand of the loop's input dtype and aligned, its shape
   broadcasting to the target's without growing it (right-aligned: each axis 1 or the
   target's); any strides (the loop reads each element through them). The target itself
   (a new reference) once written, or NULL with no error set, before anything is written,
   where it declines (the ufunc path then runs and raises its own errors). Overlap between
   an operand and the target is the caller's to refuse (fast.c: fast_inplace, reads_safely). */
#define TILE_BYTES 16384 /* (loop_bcast's buffer for a repeating operand, on the stack) */
#define COL_TILE_MAX 64   /* (the longest row across which loop_bcast copies a column's element) */

/* k rows of inner elements of z bytes into b: row i all the element at src + i * rstr (the
   bytes as they are: a NaN's payload, -0.0). */
static void
spread(char *b, const char *src, Py_ssize_t rstr, Py_ssize_t k, Py_ssize_t inner, Py_ssize_t z)
{
#define SPREAD(T)                                                          \
    for (Py_ssize_t i = 0; i < k; i++) {                                   \
        T v;                                                               \
        memcpy(&v, src + i * rstr, sizeof(T));                             \
        T *o = (T *)b + i * inner;                                         \
        for (Py_ssize_t e = 0; e < inner; e++)                             \
            o[e] = v;                                                      \
    }
    switch (z) {
    case 1: SPREAD(uint8_t) return;
    case 2: SPREAD(uint16_t) return;
    case 4: SPREAD(uint32_t) return;
    case 8: SPREAD(uint64_t) return;
    }
#undef SPREAD
    for (Py_ssize_t i = 0; i < k; i++)
        for (Py_ssize_t e = 0; e < inner; e++)
            memcpy(b + (i * inner + e) * z, src + i * rstr, (size_t)z);
}
/* fresh: into is a new result (bcast_new), of the shape of the operand that all the others
   broadcast into, which may be any of them (``row + X``); otherwise into is an in-place or
   out= target, and the first operand must be of its shape. */
static PyObject *
loop_bcast(const Loop *L, PyObject *const *xs, PyObject *const *nat, int n, PyObject *into, int fresh)
{
    NDFields *t = ND(into);
    int nd = t->nd, nop = n + 1;
    if (t->descr != L->out || nd > MAXDIMS
        || (t->flags & (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE))
               != (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE))
        return NULL;
    /* a target: the first operand of the target's shape, as the Python door's ``into`` takes
       it (elementwise.py; x1 broadcast into out= is impl's general path) */
    if (!fresh && (L->sside == 1 || ND(nat[0])->nd != nd
                   || memcmp(ND(nat[0])->dimensions, t->dimensions, nd * sizeof(Py_ssize_t))))
        return NULL;
    union { double d[2]; unsigned long long u; } sbuf;
    char *data[3];
    /* per axis of the target: its length and each operand's stride (the target's last) */
    Py_ssize_t dims[MAXDIMS], str[MAXDIMS][3];
    for (int j = 0; j < n; j++) {
        if (L->sside == j + 1) {
            if (!scalar_to(L, xs[j], &sbuf))
                return NULL;
            data[j] = (char *)&sbuf;
            for (int d = 0; d < nd; d++)
                str[d][j] = 0;
            continue;
        }
        NDFields *a = ND(nat[j]);
        if (a->descr != L->in[j] || !(a->flags & ND_ALIGNED) || a->nd > nd)
            return NULL; /* NumPy would cast or copy first; a broadcast that grows the target */
        data[j] = a->data;
        int off = nd - a->nd;
        for (int d = 0; d < nd; d++) {
            Py_ssize_t m = d < off ? 1 : a->dimensions[d - off];
            if (m == t->dimensions[d] && m != 1)
                str[d][j] = a->strides[d - off];
            else if (m == 1)
                str[d][j] = 0;
            else
                return NULL; /* not broadcastable to the target's shape */
        }
    }
    data[n] = t->data;
    /* the target's axes of length > 1, adjacent ones coalesced where every operand steps
       through both as through one */
    Py_ssize_t count = 1;
    int m = 0;
    for (int d = 0; d < nd; d++) {
        Py_ssize_t len = t->dimensions[d];
        count *= len;
        if (len == 1)
            continue;
        str[d][n] = t->strides[d];
        int join = m > 0;
        for (int j = 0; join && j < nop; j++)
            join = str[m - 1][j] == str[d][j] * len;
        if (join) {
            dims[m - 1] *= len;
            for (int j = 0; j < nop; j++)
                str[m - 1][j] = str[d][j];
            continue;
        }
        dims[m] = len;
        for (int j = 0; j < nop; j++)
            str[m][j] = str[d][j];
        m++;
    }
    if (count == 0)
        return Py_NewRef(into);
    /* The innermost axis (inner elements) in blocks of rows along the axis before it
       (rows of them, rstr[j] apart). An operand that repeats along that axis (stride 0:
       ``X -= row``) whose block is short is tiled: copied k times into a buffer, once per
       block it reads, so that one loop call covers k rows (as NumPy's buffered iterator
       copies it, and calls the loop on up to 8192 elements); the others step through
       the k rows as through one axis (the target always can: it is C-contiguous). */
    Py_ssize_t inner = m ? dims[m - 1] : 1, rows = m > 1 ? dims[m - 2] : 1, kr = 1;
    Py_ssize_t steps[3] = {0, 0, 0}, rstr[3] = {0, 0, 0}, idx[MAXDIMS];
    _Alignas(64) char tile[TILE_BYTES];
    char *tiled[3] = {NULL, NULL, NULL}, *filled[3] = {NULL, NULL, NULL};
    for (int j = 0; j < nop; j++) {
        steps[j] = m ? str[m - 1][j] : 0;
        rstr[j] = m > 1 ? str[m - 2][j] : 0;
    }
    /* An operand that is one element per row (stride 0 along the innermost axis: ``X -= col``,
       col of shape (n, 1)) whose rows are short is tiled too: each element copied across its
       row for the k rows of every loop call (as NumPy's buffered iterator copies it), where
       the loop called once per row with a stride-0 operand spent more on each call's entry
       than on its elements (100x20 float64: 135 instructions a row, 1.06x NumPy's call). */
    int ntile = 0, direct = 1, col[3] = {0, 0, 0};
    for (int j = 0; j < n && m > 1; j++) {
        if (rstr[j] == 0 && steps[j] != 0)
            ntile++;
        else if (steps[j] == 0 && rstr[j] != 0 && inner <= COL_TILE_MAX)
            ntile++, col[j] = 1;
        else if (rstr[j] != steps[j] * inner)
            direct = 0;
    }
    if (ntile && direct) {
        Py_ssize_t room = TILE_BYTES / ntile, per = 0;
        for (int j = 0; j < n; j++)
            if (((rstr[j] == 0 && steps[j] != 0) || col[j]) && inner * L->isz[j] > per)
                per = inner * L->isz[j];
        kr = room / per;
        if (kr > rows)
            kr = rows;
        if (kr >= 2) {
            for (int j = 0, u = 0; j < n; j++)
                if ((rstr[j] == 0 && steps[j] != 0) || col[j])
                    tiled[j] = tile + room * u++;
        }
        else
            kr = 1;
    }
    if (kr == 1)
        col[0] = col[1] = col[2] = 0; /* (not tiled: the loop reads it per row, stride 0) */
    for (int d = 0; d < m; d++)
        idx[d] = 0;
    int rc = 0;
    Py_ssize_t nbytes = count * L->isz[n];
    PyThreadState *ts = nbytes >= elide_bytes ? PyEval_SaveThread() : NULL; /* (as NumPy's loops) */
    for (Py_ssize_t done = 0; done < count && rc >= 0;) {
        /* one block of rows: data[] at its first row */
        char *p[3];
        Py_ssize_t st[3];
        for (int j = 0; j < nop; j++) {
            p[j] = data[j];
            st[j] = steps[j];
            if (tiled[j] == NULL)
                continue;
            Py_ssize_t z = L->isz[j];
            if (col[j]) { /* (filled for each loop call below) */
                p[j] = tiled[j];
                st[j] = z;
                continue;
            }
            if (filled[j] != data[j]) { /* (the block it reads changed: copy it afresh) */
                char *b = tiled[j];
                if (steps[j] == z)
                    memcpy(b, data[j], (size_t)(inner * z));
                else
                    for (Py_ssize_t e = 0; e < inner; e++)
                        memcpy(b + e * z, data[j] + e * steps[j], (size_t)z);
                for (Py_ssize_t have = inner * z, want = kr * inner * z; have < want;) {
                    Py_ssize_t c = have < want - have ? have : want - have;
                    memcpy(b + have, b, (size_t)c);
                    have += c;
                }
                filled[j] = data[j];
            }
            p[j] = tiled[j];
            st[j] = z;
        }
        for (Py_ssize_t r = 0; r < rows && rc >= 0; r += kr) {
            Py_ssize_t k = rows - r < kr ? rows - r : kr, c = k * inner;
            for (int j = 0; j < n; j++)
                if (col[j])
                    spread(tiled[j], data[j] + r * rstr[j], rstr[j], k, inner, L->isz[j]);
            rc = L->info->strided_loop(L->info->context, p, &c, st, L->info->auxdata);
            for (int j = 0; j < nop; j++)
                if (tiled[j] == NULL)
                    p[j] += kr * rstr[j];
        }
        done += rows * inner;
        /* the next block: the axes before the last two, the last first, carrying */
        for (int d = m - 3; d >= 0; d--) {
            for (int j = 0; j < nop; j++)
                data[j] += str[d][j];
            if (++idx[d] < dims[d])
                break;
            idx[d] = 0;
            for (int j = 0; j < nop; j++)
                data[j] -= str[d][j] * dims[d];
        }
    }
    if (ts != NULL)
        PyEval_RestoreThread(ts);
    if (rc < 0 || PyErr_Occurred()) { /* (NumPy's numeric loops do not fail) */
        (void)contract_clear(PyExc_Exception);
        return NULL;
    }
    return Py_NewRef(into);
}

/* L's loop over count elements (data, strides: the operands', the result's last). One
   value read at a stride of 0 -- a Python scalar, a 0-d array's, a stride-0 view's -- by a
   loop that is slow on a stride-0 operand (L->scalar_block: NumPy's maximum and minimum,
   whose SIMD loops take contiguous operands only: 6.3 us at 1e4 float32 against 1.6 for
   add) is read from a block of copies of it where the other operand and the result are
   contiguous -- what the row's Python kernel does (elementwise.py, _extremum_kernel): the
   same loop on the same values, so the same bits. */
#define BLOCK_BYTES 8192
static int
run_loop(const Loop *L, char **data, Py_ssize_t count, Py_ssize_t *strides, int n)
{
    int s = L->sside - 1;
    if (s < 0 && n == 2) /* (a 0-d array, or a stride-0 view: one value too) */
        s = strides[0] == 0 && strides[1] != 0 ? 0 : strides[1] == 0 && strides[0] != 0 ? 1 : -1;
    if (!L->scalar_block || s < 0 || n != 2 || strides[1 - s] != L->isz[1 - s] || strides[n] != L->isz[n]
        || L->isz[s] <= 0 || L->isz[s] > 16)
        return L->info->strided_loop(L->info->context, data, &count, strides, L->info->auxdata);
    _Alignas(64) char block[BLOCK_BYTES];
    Py_ssize_t isz = L->isz[s], k = BLOCK_BYTES / isz, m0 = count < k ? count : k;
    size_t filled = (size_t)isz, need = (size_t)(m0 * isz);
    memcpy(block, data[s], filled);
    while (filled < need) { /* (doubling: a few memcpy calls, not one an element) */
        size_t c = filled < need - filled ? filled : need - filled;
        memcpy(block + filled, block, c);
        filled += c;
    }
    char *d[3];
    Py_ssize_t st[3] = {strides[0], strides[1], strides[2]};
    st[s] = isz;
    d[s] = block;
    for (Py_ssize_t off = 0; off < count; off += k) {
        Py_ssize_t m = count - off < k ? count - off : k;
        d[1 - s] = data[1 - s] + off * strides[1 - s];
        d[n] = data[n] + off * strides[n];
        int rc = L->info->strided_loop(L->info->context, d, &m, st, L->info->auxdata);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* --- guards: the operands a loop alone computes -----------------------------------------
   A row kernel that corrects NumPy's values for the standard's special cases may name its
   ufunc (_loop_ufunc) and a guard (_loop_guard): operands on which the correction provably
   changes nothing, so that NumPy's loop alone is the kernel's value. The guard reads the
   operands before the loop runs (before anything is written: an in-place or out= target);
   on anything else the call declines and the kernel runs, correction and all. A target
   that an operand must be broadcast into (loop_bcast) declines too.
   "noinf" (floor_divide of float32/float64, elementwise.py's _fix_floor_divide; tanh of
     complex64/complex128, _fix_tanh_complex): the correction replaces the elements where
     an operand (a complex one's real part) is infinite; no part of any is.
   "pow_float" (_pow_float): a Python scalar exponent is neither 2 (NumPy's square, the
     kernel's short cut) nor 0.5 (the standard's square root), and no exponent element is
     0.5 (_fix_pow's mask; a NaN is none).
   "pow_int" (_pow_int): no exponent element is negative (NumPy's loop raises there,
     perhaps after writing some elements; the kernel raises strided's error).
   "int" (_copy, the kernel of positive and of ceil/floor/trunc/round/real of integers, a
     copy): integer operands, whose np.positive is a copy of each element.
   "shift" (_shift): a Python scalar count is within [0, the bit width] (the kernel clamps
     larger ones and refuses negative ones). */
#define GUARD_SCAN(T, COND)                                                                   \
    do {                                                                                      \
        const char *p = data[j];                                                              \
        Py_ssize_t m = strides[j] == 0 ? 1 : count, st = strides[j];                          \
        int bad = 0;                                                                          \
        if (st == (Py_ssize_t)sizeof(T)) { /* (contiguous: a loop the compiler vectorises) */ \
            const T *q = (const T *)p;                                                        \
            for (Py_ssize_t i = 0; i < m; i++) {                                              \
                T v = q[i];                                                                   \
                bad |= (COND);                                                                \
            }                                                                                 \
        }                                                                                     \
        else                                                                                  \
            for (Py_ssize_t i = 0; i < m; i++, p += st) {                                     \
                T v;                                                                          \
                memcpy(&v, p, sizeof v);                                                      \
                bad |= (COND);                                                                \
            }                                                                                 \
        if (bad)                                                                              \
            return 0;                                                                         \
    } while (0)

/* Whether L's guard lets its loop alone compute these operands (data, strides: loop_into's,
   count elements; a Python scalar already converted, stride 0). */
typedef struct { float re, im; } C64;
typedef struct { double re, im; } C128;

static int
guard_ok(const Loop *L, char *const *data, const Py_ssize_t *strides, Py_ssize_t count, int n)
{
    for (int j = 0; j < n; j++) {
        Py_ssize_t isz = L->isz[j];
        char kind = ((DescrHead *)L->in[j])->kind;
        switch (L->guard) {
        case G_NOINF:
            if (kind == 'c') { /* (both parts: the real one is the correction's) */
                if (isz == 8)
                    GUARD_SCAN(C64, isinf(v.re) | isinf(v.im));
                else if (isz == 16)
                    GUARD_SCAN(C128, isinf(v.re) | isinf(v.im));
                else
                    return 0;
                break;
            }
            if (kind != 'f' || (isz != 4 && isz != 8))
                return 0;
            if (isz == 4)
                GUARD_SCAN(float, isinf(v));
            else
                GUARD_SCAN(double, isinf(v));
            break;
        case G_COPY: /* (NumPy's positive copies integers, floats and complex bit for bit:
                        C's unary +, no arithmetic; tests/_csrc/test_identity_inplace12.py) */
            if (kind != 'i' && kind != 'u' && kind != 'f' && kind != 'c')
                return 0;
            break;
        case G_SHIFT:
            if (kind != 'i' && kind != 'u')
                return 0;
            if (j == 1 && L->sside == 2) { /* the count, as the kernel reads it */
                long long c;
                switch (isz) {
                case 1: c = kind == 'i' ? (long long)*(const signed char *)data[1] : (long long)*(const unsigned char *)data[1]; break;
                case 2: c = kind == 'i' ? (long long)*(const short *)data[1] : (long long)*(const unsigned short *)data[1]; break;
                case 4: c = kind == 'i' ? (long long)*(const int *)data[1] : (long long)*(const unsigned int *)data[1]; break;
                case 8: c = *(const long long *)data[1]; break;
                default: return 0;
                }
                if (c < 0 || c > 8 * isz)
                    return 0;
            }
            break;
        case G_POW_F:
            if (kind != 'f' || (isz != 4 && isz != 8))
                return 0;
            if (j != 1)
                break; /* (the exponent's alone) */
            if (L->sside == 2) { /* a Python scalar: the value the kernel compares */
                double e = isz == 4 ? (double)*(const float *)data[1] : *(const double *)data[1];
                if (e == 2.0 || e == 0.5)
                    return 0;
            }
            if (isz == 4)
                GUARD_SCAN(float, v == 0.5f);
            else
                GUARD_SCAN(double, v == 0.5);
            break;
        case G_POW_I:
            if (kind == 'u' || j != 1)
                break;
            if (kind != 'i')
                return 0;
            switch (isz) {
            case 1: GUARD_SCAN(signed char, v < 0); break;
            case 2: GUARD_SCAN(short, v < 0); break;
            case 4: GUARD_SCAN(int, v < 0); break;
            case 8: GUARD_SCAN(long long, v < 0); break;
            default: return 0;
            }
            break;
        default:
            return 0;
        }
    }
    return 1;
}
#undef GUARD_SCAN

/* NumPy's trivial loop (L) over the operands xs (n of them, kernel order: Arrays, whose
   small natives are nat[j], and a Python scalar at L->sside) into a fresh ndarray,
   wrapped as a result on dev: the Array, NULL with no error set where NumPy would not
   make exactly this one call (the ufunc path then runs), or NULL with an error set
   (out of memory). With target (into an in-place operator's or out='s native): operands
   that broadcast to into's shape take loop_bcast, and the result is into itself. */
/* A new result of operands that broadcast (``X - row``, ``row + X``, ``X * column``, a size-1
   axis): a C-contiguous result of the shape of the largest operand (the most dimensions, then
   the most elements), written by loop_bcast (NumPy's result is C-ordered then too, and each
   element the same operation's value on the same operands in the same order), when that
   operand is C-contiguous and the others broadcast into it without growing it; the Array, or
   NULL with no error set (declined: NumPy's ufunc runs, and names its errors). Before: 1.4-2.4x
   NumPy's time at 16-2000 elements (the Python path); ``row + X`` 1.1-1.7x until round 18. */
static PyObject *
bcast_new(const Loop *L, PyObject *const *xs, PyObject *const *nat, int n, Py_ssize_t limit,
          PyObject *res, PyObject *dev)
{
    if (L->guard != G_NONE)
        return NULL;
    int k = -1;
    Py_ssize_t kcount = -1;
    for (int j = 0; j < n; j++) {
        if (L->sside == j + 1 || Py_TYPE(xs[j]) != Array_T)
            continue;
        NDFields *b = ND(nat[j]);
        Py_ssize_t c = 1;
        for (int d = 0; d < b->nd; d++)
            c *= b->dimensions[d];
        if (k < 0 || b->nd > ND(nat[k])->nd || (b->nd == ND(nat[k])->nd && c > kcount))
            k = j, kcount = c;
    }
    if (k < 0)
        return NULL;
    NDFields *a = ND(nat[k]);
    if (a->nd == 0 || !(a->flags & ND_C_CONTIGUOUS))
        return NULL;
    PyObject *shape = SLOT(xs[k], O_shape);
    if (shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != a->nd)
        return NULL;
    Py_ssize_t count = 1;
    for (int d = 0; d < a->nd; d++)
        count *= a->dimensions[d];
    Py_ssize_t nbytes = count * L->isz[n];
    if (nbytes >= limit)
        return NULL;
    Py_INCREF(shape);
    PyObject *r = result_empty(shape, L->out, nbytes);
    if (r == NULL) {
        Py_DECREF(shape);
        return NULL;
    }
    PyObject *w = Py_TYPE(r) == ND_T && ND(r)->descr == L->out ? loop_bcast(L, xs, nat, n, r, 1) : NULL;
    if (w == NULL) {
        Py_DECREF(r);
        Py_DECREF(shape);
        return NULL;
    }
    Py_DECREF(w);
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None),
                     Py_NewRef(res), Py_NewRef(dev));
}

static PyObject *
loop_into(const Loop *L, PyObject *const *xs, PyObject *const *nat, int n, Py_ssize_t limit,
          PyObject *res, PyObject *dev, PyObject *into, int target)
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
        if (target && a->nd != ND(into)->nd)
            return L->guard == G_NONE ? loop_bcast(L, xs, nat, n, into, 0) : NULL;
        if (first == NULL) {
            first = a;
            shape = SLOT(xs[j], O_shape);
            if (shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != a->nd)
                return NULL;
            for (int d = 0; d < a->nd; d++)
                count *= a->dimensions[d];
        }
        else {
            if (a->nd != first->nd) /* broadcasting: a new result of it, or NumPy's iterator */
                return !target && into == NULL ? bcast_new(L, xs, nat, n, limit, res, dev) : NULL;
            for (int d = 0; d < a->nd; d++)
                if (a->dimensions[d] != first->dimensions[d])
                    return target ? (L->guard == G_NONE ? loop_bcast(L, xs, nat, n, into, 0) : NULL)
                           : into == NULL ? bcast_new(L, xs, nat, n, limit, res, dev) : NULL;
        }
        if (a->nd == 1) {
            strides[j] = a->strides[0];
            continue;
        }
        /* N-d: contiguous in one order, which is C (an F-ordered result is NumPy's then) */
        int o = a->flags & (ND_C_CONTIGUOUS | ND_F_CONTIGUOUS);
        if (!(o & ND_C_CONTIGUOUS) || (order && o != order))
            return target && L->guard == G_NONE ? loop_bcast(L, xs, nat, n, into, 0) : NULL;
        order = o;
        strides[j] = L->isz[j];
    }
    if (shape == NULL) /* every operand 0-d: a 0-d result */
        shape = SLOT(xs[L->sside == 1], O_shape);
    Py_ssize_t nbytes = count * L->isz[n];
    if (nbytes >= limit)
        return NULL;
    if (L->guard != G_NONE && !guard_ok(L, data, strides, count, n))
        return NULL; /* (before anything is written: the kernel and its correction run) */
    strides[n] = L->isz[n];
    /* (held: the pool's empty, a finalizer it sets off, or another thread while the GIL
       is released below may run Python code that replaces the operand's shape) */
    PyObject *r;
    if (into != NULL) {
        /* the elided call (fast.c, fast_binary_into): into is one operand's own buffer, of
           the result's dtype, shape and order, written element by element in place */
        NDFields *t = ND(into);
        if (first == NULL || t->nd != first->nd || t->descr != L->out
            || (t->flags & (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE))
                   != (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE)
            || memcmp(t->dimensions, first->dimensions, t->nd * sizeof(Py_ssize_t)))
            return NULL;
        r = Py_NewRef(into);
        Py_INCREF(shape);
    }
    else {
        Py_INCREF(shape);
        r = result_empty(shape, L->out, nbytes);
    }
    if (r == NULL) {
        Py_DECREF(shape);
        return NULL;
    }
    if (Py_TYPE(r) != ND_T || ND(r)->descr != L->out || ND(r)->nd != PyTuple_GET_SIZE(shape)
        || !(ND(r)->flags & ND_C_CONTIGUOUS)) {
        Py_DECREF(r);
        Py_DECREF(shape);
        return NULL;
    }
    data[n] = ND(r)->data;
    /* a copy (G_COPY: _copy, NumPy's positive) onto its own operand, element for element
       (x.round_(), floor(x, out=x) of integers, positive(x, out=x)): nothing to write, as
       NumPy's copy of an array onto itself (the caller bumps the version all the same) */
    if (count > 0 && !(L->guard == G_COPY && n == 1 && data[0] == data[1] && strides[0] == strides[1])) {
        int rc;
        if (nbytes >= elide_bytes) { /* (NumPy releases the GIL for its loops too) */
            Py_BEGIN_ALLOW_THREADS
            rc = run_loop(L, data, count, strides, n);
            Py_END_ALLOW_THREADS
        }
        else
            rc = run_loop(L, data, count, strides, n);
        if (rc < 0 || PyErr_Occurred()) { /* the ufunc path raises NumPy's error */
            (void)contract_clear(PyExc_Exception); /* (KeyboardInterrupt, MemoryError stay) */
            Py_DECREF(r);
            Py_DECREF(shape);
            return NULL;
        }
    }
    if (target) { /* (the caller's target: no Array to build) */
        Py_DECREF(shape);
        return r;
    }
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None),
                     Py_NewRef(res), Py_NewRef(dev));
}

/* loop_into with the processor's floating-point status flags as they were before (the
   scalar's conversion and the loop may raise some). target (into a target's native: an
   in-place operator's, out='s): operands that broadcast to into's shape are taken too
   (loop_bcast), and the result is into itself, not an Array over it. */
PyObject *
loop_call(const Loop *L, PyObject *const *xs, PyObject *const *nat, int n, Py_ssize_t limit,
          PyObject *res, PyObject *dev, PyObject *into, int target)
{
    Flags fl;
    flags_save(&fl);
    PyObject *r = loop_into(L, xs, nat, n, limit, res, dev, into, target && into != NULL);
    flags_restore(&fl);
    return r;
}
