/* strided._ckernels: the few CPU kernels NumPy has no fast equivalent for.
 *
 * Built by `pip install -e .` with the system C compiler (setup.py marks it
 * optional); strided/_cfast.py falls back to NumPy when it is absent or when
 * STRIDED_NO_CEXT=1, and CI runs the tests both ways.
 *
 * sum_rows(src, out, ncols): out[i] = sum(src[i*ncols : (i+1)*ncols]) for a
 * C-contiguous float32 ('f') or float64 ('d') buffer src and a contiguous out of
 * the same type. Pairwise summation like NumPy's (leaves of at most 256
 * elements, halves above), but each leaf is summed in four independent vector
 * accumulators instead of one: each lane adds at most 8 (float32) or 16
 * (float64) elements in sequence (NumPy's 8 accumulators add 16), so the error
 * bound is NumPy's or better, and the additions no longer wait on one chain.
 * The GIL is released while it runs (from 64 KiB), so strided's threads can
 * split a sum. Sums of at most 128 elements are NumPy's leaf, operation for
 * operation (the same bits as numpy.add.reduce).
 *
 * sum_into(src, out, ncols[, divisor]) -> bool: the same (divided by divisor: a
 * mean), or False (nothing written) for a buffer it doesn't take, so the hot
 * path asks once instead of checking first.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && defined(__linux__)
#define SD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SD_CLONES
#endif

typedef float vf __attribute__((vector_size(32)));  /* 8 float32 lanes */
typedef double vd __attribute__((vector_size(32))); /* 4 float64 lanes */

/* q[m] = the lanes of r_m summed pairwise, neighbours first:
   ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) -- for all four vectors at
   once with shuffles where the compiler has them (the same additions in the
   same order either way). */
#if defined(__GNUC__) && !defined(__clang__)
typedef int vi8 __attribute__((vector_size(32)));
typedef long long vl4 __attribute__((vector_size(32)));
typedef float vf4 __attribute__((vector_size(16)));
#define EVEN8 ((vi8){0, 2, 8, 10, 4, 6, 12, 14})
#define ODD8 ((vi8){1, 3, 9, 11, 5, 7, 13, 15})
static inline void hsum4_f32(vf a, vf b, vf c, vf d, float *q)
{
    /* neighbours: [a0+a1, a2+a3, b0+b1, b2+b3, a4+a5, a6+a7, b4+b5, b6+b7] */
    vf p = __builtin_shuffle(a, b, EVEN8) + __builtin_shuffle(a, b, ODD8);
    vf r = __builtin_shuffle(c, d, EVEN8) + __builtin_shuffle(c, d, ODD8);
    /* pairs of pairs: [A0123, B0123, C0123, D0123, A4567, B4567, C4567, D4567] */
    vf u = __builtin_shuffle(p, r, EVEN8) + __builtin_shuffle(p, r, ODD8);
    for (int m = 0; m < 4; m++)
        q[m] = u[m] + u[m + 4];
}
static inline void hsum4_f64(vd a, vd b, vd c, vd d, double *q)
{
    /* [a0+a1, b0+b1, a2+a3, b2+b3] */
    vd p = __builtin_shuffle(a, b, (vl4){0, 4, 2, 6}) + __builtin_shuffle(a, b, (vl4){1, 5, 3, 7});
    vd r = __builtin_shuffle(c, d, (vl4){0, 4, 2, 6}) + __builtin_shuffle(c, d, (vl4){1, 5, 3, 7});
    q[0] = p[0] + p[2];
    q[1] = p[1] + p[3];
    q[2] = r[0] + r[2];
    q[3] = r[1] + r[3];
}
#else
static inline float hsum_f32(vf v)
{
    float l[8];
    memcpy(l, &v, sizeof(v));
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}
static inline double hsum_f64(vd v)
{
    double l[4];
    memcpy(l, &v, sizeof(v));
    return (l[0] + l[1]) + (l[2] + l[3]);
}
static inline void hsum4_f32(vf a, vf b, vf c, vf d, float *q)
{
    q[0] = hsum_f32(a), q[1] = hsum_f32(b), q[2] = hsum_f32(c), q[3] = hsum_f32(d);
}
static inline void hsum4_f64(vd a, vd b, vd c, vd d, double *q)
{
    q[0] = hsum_f64(a), q[1] = hsum_f64(b), q[2] = hsum_f64(c), q[3] = hsum_f64(d);
}
#endif

/* One generator for both types: T scalar, V vector, L lanes, B leaf size. */
#define PAIRWISE(NAME, T, V, L, B, HSUM)                                                 \
    SD_CLONES static T NAME(const T *a, Py_ssize_t n)                                \
    {                                                                                \
        if (n <= (B)) {                                                              \
            Py_ssize_t i = 0;                                                        \
            T s = 0;                                                                  \
            if (n >= 4 * (L)) {                                                      \
                V r0, r1, r2, r3;                                                    \
                memcpy(&r0, a, sizeof(V));                                           \
                memcpy(&r1, a + (L), sizeof(V));                                     \
                memcpy(&r2, a + 2 * (L), sizeof(V));                                 \
                memcpy(&r3, a + 3 * (L), sizeof(V));                                 \
                for (i = 4 * (L); i + 4 * (L) <= n; i += 4 * (L)) {                  \
                    V v0, v1, v2, v3;                                                \
                    memcpy(&v0, a + i, sizeof(V));                                   \
                    memcpy(&v1, a + i + (L), sizeof(V));                             \
                    memcpy(&v2, a + i + 2 * (L), sizeof(V));                         \
                    memcpy(&v3, a + i + 3 * (L), sizeof(V));                         \
                    r0 += v0;                                                        \
                    r1 += v1;                                                        \
                    r2 += v2;                                                        \
                    r3 += v3;                                                        \
                }                                                                    \
                /* each accumulator's lanes pairwise (neighbours first, as the data      \
                   lie: periodic signs cancel before they grow), then the four */        \
                T q[4];                                                              \
                HSUM(r0, r1, r2, r3, q);                                             \
                s = (q[0] + q[1]) + (q[2] + q[3]);                                   \
            }                                                                        \
            /* the rest (fewer than 4 * L elements): eight accumulators */           \
            T t[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                       \
            Py_ssize_t k = 0;                                                        \
            for (; i < n; i++, k = (k + 1) & 7)                                      \
                t[k] += a[i];                                                        \
            return s + (((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))); \
        }                                                                            \
        Py_ssize_t n2 = n / 2;                                                       \
        n2 -= n2 % (4 * (L));                                                        \
        return NAME(a, n2) + NAME(a + n2, n - n2);                                   \
    }

PAIRWISE(pairwise_f32, float, vf, 8, 256, hsum4_f32)
PAIRWISE(pairwise_f64, double, vd, 4, 256, hsum4_f64)

/* A row: NumPy's own leaf, operation for operation, up to 128 elements (so small
   sums are NumPy's bits); the vector pairwise sum above that. */
#define ROW(NAME, PW, T)                                                             \
    static T NAME(const T *a, Py_ssize_t n)                                          \
    {                                                                                \
        if (n > 128)                                                                 \
            return PW(a, n);                                                         \
        T res = 0;                                                                   \
        Py_ssize_t i;                                                                \
        if (n < 8) {                                                                 \
            for (i = 0; i < n; i++)                                                  \
                res += a[i];                                                         \
            return res;                                                              \
        }                                                                            \
        T r[8];                                                                      \
        for (int j = 0; j < 8; j++)                                                  \
            r[j] = a[j];                                                             \
        for (i = 8; i < n - (n % 8); i += 8)                                         \
            for (int j = 0; j < 8; j++)                                              \
                r[j] += a[i + j];                                                    \
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));     \
        for (; i < n; i++)                                                           \
            res += a[i];                                                             \
        return res;                                                                  \
    }

ROW(row_f32, pairwise_f32, float)
ROW(row_f64, pairwise_f64, double)

/* The shared body of sum_rows and sum_into: 1 done, 0 not handled (only when
   !strict: a layout or type this kernel doesn't take), -1 error set. */
static int
sum_rows_impl(PyObject *src_obj, PyObject *out_obj, Py_ssize_t ncols, int strict, double divisor)
{
    Py_buffer src, out;
    if (PyObject_GetBuffer(src_obj, &src, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        if (strict)
            return -1;
        PyErr_Clear();
        return 0;
    }
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_STRIDES | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        if (strict)
            return -1;
        PyErr_Clear();
        return 0;
    }
    int status = 1;
    const char *f = src.format ? src.format : "B";
    const char *g = out.format ? out.format : "B";
    /* native byte order spelled out ('<d' from a little-endian dtype) is native */
#if PY_LITTLE_ENDIAN
    if (f[0] == '<' || f[0] == '=' || f[0] == '@')
        f++;
    if (g[0] == '<' || g[0] == '=' || g[0] == '@')
        g++;
#else
    if (f[0] == '>' || f[0] == '=' || f[0] == '@')
        f++;
    if (g[0] == '>' || g[0] == '=' || g[0] == '@')
        g++;
#endif
    int is32 = (f[0] == 'f' && f[1] == 0), is64 = (f[0] == 'd' && f[1] == 0);
    Py_ssize_t isz = src.itemsize;
    if (!PyBuffer_IsContiguous(&src, 'C') || !PyBuffer_IsContiguous(&out, 'C')) {
        if (strict)
            PyErr_SetString(PyExc_ValueError, "sum_rows(): src and out must be C-contiguous");
        status = strict ? -1 : 0;
    }
    else if ((!is32 && !is64) || strcmp(f, g) != 0 || ncols <= 0 || src.len % (isz * ncols) != 0
             || out.len != (src.len / ncols)) {
        if (strict)
            PyErr_Format(PyExc_ValueError,
                         "sum_rows(): src (format %s, %zd bytes) and out (format %s, %zd bytes) "
                         "don't fit %zd columns of float32 or float64", f, src.len, g, out.len, ncols);
        status = strict ? -1 : 0;
    }
    else {
        Py_ssize_t nrows = src.len / (isz * ncols);
        /* a few rows of a small array: not worth two thread-state switches */
        int release = src.len >= (1 << 16);
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        if (is32) {
            const float *a = (const float *)src.buf;
            float *o = (float *)out.buf;
            for (Py_ssize_t r = 0; r < nrows; r++)
                o[r] = 0.0f + row_f32(a + r * ncols, ncols); /* NumPy: identity + sum */
            if (divisor != 1.0)
                for (Py_ssize_t r = 0; r < nrows; r++)
                    o[r] = o[r] / (float)divisor;
        }
        else {
            const double *a = (const double *)src.buf;
            double *o = (double *)out.buf;
            for (Py_ssize_t r = 0; r < nrows; r++)
                o[r] = 0.0 + row_f64(a + r * ncols, ncols);
            if (divisor != 1.0)
                for (Py_ssize_t r = 0; r < nrows; r++)
                    o[r] = o[r] / divisor;
        }
        if (release)
            PyEval_RestoreThread(ts);
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&out);
    return status;
}

static PyObject *
sum_rows(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "sum_rows() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    Py_ssize_t ncols = PyLong_AsSsize_t(args[2]);
    if (ncols == -1 && PyErr_Occurred())
        return NULL;
    if (sum_rows_impl(args[0], args[1], ncols, 1, 1.0) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
sum_into(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 && nargs != 4) {
        PyErr_Format(PyExc_TypeError, "sum_into() takes 3 or 4 arguments (%zd given)", nargs);
        return NULL;
    }
    Py_ssize_t ncols = PyLong_AsSsize_t(args[2]);
    if (ncols == -1 && PyErr_Occurred())
        return NULL;
    double divisor = 1.0;
    if (nargs == 4) {
        divisor = PyFloat_AsDouble(args[3]);
        if (divisor == -1.0 && PyErr_Occurred())
            return NULL;
    }
    int r = sum_rows_impl(args[0], args[1], ncols, 0, divisor);
    if (r < 0)
        return NULL;
    return PyBool_FromLong(r);
}

static PyMethodDef methods[] = {
    {"sum_rows", (PyCFunction)(void (*)(void))sum_rows, METH_FASTCALL,
     "sum_rows(src, out, ncols): pairwise sums of the ncols-long rows of a C-contiguous "
     "float32/float64 buffer into out (ValueError for anything else)."},
    {"sum_into", (PyCFunction)(void (*)(void))sum_into, METH_FASTCALL,
     "sum_into(src, out, ncols[, divisor]) -> bool: sum_rows (each sum then divided by divisor "
     "in the buffer's type: a mean), or False (nothing written) where src or out is not a "
     "C-contiguous float32/float64 buffer of fitting sizes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided._ckernels",
    "The CPU kernels NumPy has no fast equivalent for (see strided/_cfast.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__ckernels(void)
{
    return PyModule_Create(&module);
}
