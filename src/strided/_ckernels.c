/* strided._ckernels: the few CPU kernels NumPy has no fast equivalent for.
 *
 * Built by `pip install -e .` with the system C compiler (setup.py marks it
 * optional); strided/_cfast.py falls back to NumPy when it is absent or when
 * STRIDED_NO_CEXT=1, and CI runs the tests both ways.
 *
 * sum_rows(src, out, ncols): out[i] = sum(src[i*ncols : (i+1)*ncols]) for a
 * C-contiguous float32 ('f') or float64 ('d') buffer src and a contiguous out of
 * the same type. Pairwise summation like NumPy's (leaves of at most 256 float32
 * or 128 float64 elements, halves above), but each leaf is summed in four
 * independent vector accumulators instead of one: each lane adds at most 8
 * elements in sequence (NumPy's 8 accumulators add 16), so the error bound is
 * NumPy's or better, and the additions no longer wait on one dependency chain.
 * The GIL is released while it runs, so strided's threads can split a sum.
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

/* One generator for both types: T scalar, V vector, L lanes, B leaf size. */
#define PAIRWISE(NAME, T, V, L, B)                                                   \
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
                V rs[4] = {r0, r1, r2, r3};                                          \
                for (int m = 0; m < 4; m++) {                                        \
                    T lanes[L];                                                      \
                    memcpy(lanes, &rs[m], sizeof(V));                                \
                    for (Py_ssize_t w = (L) / 2; w >= 1; w /= 2)                     \
                        for (Py_ssize_t j = 0; j < w; j++)                           \
                            lanes[j] = lanes[2 * j] + lanes[2 * j + 1];              \
                    q[m] = lanes[0];                                                 \
                }                                                                    \
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

PAIRWISE(pairwise_f32, float, vf, 8, 256)
PAIRWISE(pairwise_f64, double, vd, 4, 128)

static PyObject *
sum_rows(PyObject *self, PyObject *args)
{
    PyObject *src_obj, *out_obj;
    Py_ssize_t ncols;
    if (!PyArg_ParseTuple(args, "OOn:sum_rows", &src_obj, &out_obj, &ncols))
        return NULL;
    Py_buffer src, out;
    if (PyObject_GetBuffer(src_obj, &src, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        return NULL;
    }
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
    if ((!is32 && !is64) || strcmp(f, g) != 0 || ncols <= 0 || src.len % (isz * ncols) != 0
        || out.len != (src.len / ncols)) {
        PyErr_Format(PyExc_ValueError,
                     "sum_rows(): src (format %s, %zd bytes) and out (format %s, %zd bytes) "
                     "don't fit %zd columns of float32 or float64", f, src.len, g, out.len, ncols);
        PyBuffer_Release(&src);
        PyBuffer_Release(&out);
        return NULL;
    }
    Py_ssize_t nrows = src.len / (isz * ncols);
    Py_BEGIN_ALLOW_THREADS
    if (is32) {
        const float *a = (const float *)src.buf;
        float *o = (float *)out.buf;
        for (Py_ssize_t r = 0; r < nrows; r++)
            o[r] = pairwise_f32(a + r * ncols, ncols);
    }
    else {
        const double *a = (const double *)src.buf;
        double *o = (double *)out.buf;
        for (Py_ssize_t r = 0; r < nrows; r++)
            o[r] = pairwise_f64(a + r * ncols, ncols);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&src);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"sum_rows", sum_rows, METH_VARARGS,
     "sum_rows(src, out, ncols): pairwise sums of the ncols-long rows of a C-contiguous "
     "float32/float64 buffer into out."},
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
