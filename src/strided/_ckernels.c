/* strided._ckernels: the few CPU kernels NumPy has no fast equivalent for.
 *
 * Built by `pip install -e .` with the system C compiler (setup.py marks it
 * optional); strided/_cfast.py falls back to NumPy when it is absent or when
 * STRIDED_NO_CEXT=1, and CI runs the tests both ways.
 *
 * sum_rows(src, out, ncols): out[i] = sum(src[i*ncols : (i+1)*ncols]) for a
 * C-contiguous float32 ('f') or float64 ('d') buffer src and a contiguous out of
 * the same type. Pairwise summation like NumPy's, restructured for speed (see
 * "The pairwise sum" below): leaves of 64 vectors in eight accumulators (lane
 * depth 9, NumPy's 16), each leaf's lanes added neighbours first as NumPy's
 * leaf does, and the leaves combined in float64 by a binary counter (no
 * recursion, float32 rounded once at the end), so the error bound is NumPy's
 * or better. The GIL is released while it runs (from 64 KiB), so strided's
 * threads can split a sum. Sums of at most 128 elements are NumPy's leaf,
 * operation for operation (the same bits as numpy.add.reduce).
 *
 * sum_into(src, out, ncols[, divisor]) -> bool: the same (divided by divisor: a
 * mean), or False (nothing written) for a buffer it doesn't take, so the hot
 * path asks once instead of checking first.
 *
 * The thread pool (see "Intra-op threads" below): a persistent crew of
 * pthreads that never take the GIL. ew_binary, ew_loop, sum_all and
 * extremum_all run one large operation on C-contiguous float32/float64
 * buffers split in chunks across it: the caller releases the GIL, takes
 * chunks itself and waits for the crew. Each returns False (nothing written)
 * for anything it doesn't take, and strided/_threads.py falls back.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <stdint.h>
#include <stdatomic.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && defined(__linux__)
#define SD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SD_CLONES
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi" /* static functions only: no ABI crosses the module */
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

/* The pairwise sum. A leaf is 64 vectors (float32: 512 elements, float64: 256)
   summed in eight vector accumulators, each lane adding 8 elements in sequence;
   accumulators m and m+4 are added (lane depth 9: NumPy's eight accumulators
   add 16), and each of the four left has its lanes added pairwise, neighbours
   first (as the data lie: periodic signs cancel before they grow, as in
   NumPy's leaf), then the four pairwise, in float64. Leaves are combined in
   float64 by a binary counter (leaf k is added to the stack entries of its
   index's trailing one bits: a balanced tree over the leaves, each entry on
   the left of the newer one); float32 sums are rounded to float32 once, at
   the end. Error bound: float32, the leaf's float32 roundings (9 + 3 + 2 of
   partial sums of at most 512 elements) and one rounding of the result;
   float64, (9 + 2 + 2 + log2(leaves)) eps * sum|x|, both below NumPy's
   (16 + 3 + log2(n / 128)). */
#define SD_LEAF 64 /* vectors per leaf: 8 accumulators x 8 deep */

#define SD_LD(V, p) ({ V v_; memcpy(&v_, (p), sizeof(V)); v_; })

/* One generator for both types: T scalar, V vector, L lanes. */
#define PAIRWISE(SFX, T, V, L, HSUM4)                                                    \
    static inline double leaf_end_##SFX(V r0, V r1, V r2, V r3, V r4, V r5, V r6, V r7) \
    {                                                                                    \
        T q[4];                                                                          \
        HSUM4(r0 + r4, r1 + r5, r2 + r6, r3 + r7, q);                                    \
        return ((double)q[0] + (double)q[1]) + ((double)q[2] + (double)q[3]);            \
    }                                                                                    \
    static inline double leaf_full_##SFX(const T *a)                                     \
    {                                                                                    \
        V r0 = SD_LD(V, a), r1 = SD_LD(V, a + (L)), r2 = SD_LD(V, a + 2 * (L));          \
        V r3 = SD_LD(V, a + 3 * (L)), r4 = SD_LD(V, a + 4 * (L));                        \
        V r5 = SD_LD(V, a + 5 * (L)), r6 = SD_LD(V, a + 6 * (L)), r7 = SD_LD(V, a + 7 * (L)); \
        for (int i = 8 * (L); i < SD_LEAF * (L); i += 8 * (L)) {                         \
            r0 += SD_LD(V, a + i);                                                       \
            r1 += SD_LD(V, a + i + (L));                                                 \
            r2 += SD_LD(V, a + i + 2 * (L));                                             \
            r3 += SD_LD(V, a + i + 3 * (L));                                             \
            r4 += SD_LD(V, a + i + 4 * (L));                                             \
            r5 += SD_LD(V, a + i + 5 * (L));                                             \
            r6 += SD_LD(V, a + i + 6 * (L));                                             \
            r7 += SD_LD(V, a + i + 7 * (L));                                             \
        }                                                                                \
        return leaf_end_##SFX(r0, r1, r2, r3, r4, r5, r6, r7);                           \
    }                                                                                    \
    /* m < SD_LEAF * L elements (a partial last leaf): the rest after whole groups of  \
       eight vectors go to r0 .. r6 one vector each, then the last few elements (zeros  \
       padding them) to r7 (lane depth at most 9) */                                    \
    static inline double leaf_part_##SFX(const T *a, Py_ssize_t m)                       \
    {                                                                                    \
        V r0 = {0}, r1 = {0}, r2 = {0}, r3 = {0}, r4 = {0}, r5 = {0}, r6 = {0}, r7 = {0}; \
        Py_ssize_t i = 0;                                                                \
        for (; i + 8 * (L) <= m; i += 8 * (L)) {                                         \
            r0 += SD_LD(V, a + i);                                                       \
            r1 += SD_LD(V, a + i + (L));                                                 \
            r2 += SD_LD(V, a + i + 2 * (L));                                             \
            r3 += SD_LD(V, a + i + 3 * (L));                                             \
            r4 += SD_LD(V, a + i + 4 * (L));                                             \
            r5 += SD_LD(V, a + i + 5 * (L));                                             \
            r6 += SD_LD(V, a + i + 6 * (L));                                             \
            r7 += SD_LD(V, a + i + 7 * (L));                                             \
        }                                                                                \
        Py_ssize_t nv = (m - i) / (L);                                                   \
        switch (nv) {                                                                    \
        case 7: r6 += SD_LD(V, a + i + 6 * (L)); /* fall through */                     \
        case 6: r5 += SD_LD(V, a + i + 5 * (L)); /* fall through */                     \
        case 5: r4 += SD_LD(V, a + i + 4 * (L)); /* fall through */                     \
        case 4: r3 += SD_LD(V, a + i + 3 * (L)); /* fall through */                     \
        case 3: r2 += SD_LD(V, a + i + 2 * (L)); /* fall through */                     \
        case 2: r1 += SD_LD(V, a + i + (L)); /* fall through */                         \
        case 1: r0 += SD_LD(V, a + i); /* fall through */                               \
        default: break;                                                                  \
        }                                                                                \
        i += nv * (L);                                                                   \
        if (i < m) {                                                                     \
            V u = {0};                                                                   \
            memcpy(&u, a + i, (size_t)(m - i) * sizeof(T));                              \
            r7 += u;                                                                     \
        }                                                                                \
        return leaf_end_##SFX(r0, r1, r2, r3, r4, r5, r6, r7);                           \
    }                                                                                    \
    /* nfull leaves then a partial one of rem elements (0: none), combined: the        \
       counter's entries added lowest level first, each on the left of the total */     \
    SD_CLONES static double pw_tree_##SFX(const T *a, Py_ssize_t nfull, Py_ssize_t rem)  \
    {                                                                                    \
        double st[64];                                                                   \
        Py_ssize_t nl = nfull + (rem > 0);                                               \
        for (Py_ssize_t k = 0; k < nl; k++) {                                            \
            double s = k < nfull ? leaf_full_##SFX(a + k * (SD_LEAF * (L)))              \
                                 : leaf_part_##SFX(a + k * (SD_LEAF * (L)), rem);        \
            int l = 0;                                                                   \
            for (Py_ssize_t j = k; j & 1; j >>= 1, l++)                                  \
                s = st[l] + s;                                                           \
            st[l] = s;                                                                   \
        }                                                                                \
        double tot = 0;                                                                  \
        int have = 0;                                                                    \
        for (int l = 0; (nl >> l) != 0; l++)                                                  \
            if ((nl >> l) & 1) {                                                         \
                tot = have ? st[l] + tot : st[l];                                        \
                have = 1;                                                                \
            }                                                                            \
        return tot;                                                                      \
    }                                                                                    \
    static T pairwise_##SFX(const T *a, Py_ssize_t n)                                    \
    {                                                                                    \
        Py_ssize_t leaf = SD_LEAF * (L);                                                 \
        return (T)pw_tree_##SFX(a, n / leaf, n % leaf);                                  \
    }

PAIRWISE(f32, float, vf, 8, hsum4_f32)
PAIRWISE(f64, double, vd, 4, hsum4_f64)

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

/* ---------------------------------------------------------------------------
 * Intra-op threads: a persistent pool of pthreads that never take the GIL.
 *
 * P is one process-wide crew of nworkers threads; the caller is the extra
 * thread (set_num_threads(n) gives n - 1 workers). A job is fn(ctx, chunk)
 * over chunks 0 .. nchunks-1. Every thread, the caller included, claims the
 * next chunk by a compare-and-swap on `ticket` (job id << 32 | next chunk)
 * until none is left, so a worker that wakes late only takes what the caller
 * has not done yet; the caller then waits until `done` reaches nchunks.
 * Chunk boundaries depend only on the sizes and the thread count, never on
 * which thread runs a chunk, so results do not depend on the timing.
 *
 * Waiting: after a job a worker spins (pause instruction) for sd_spin_ns
 * (default 100 us: back-to-back operations find it awake), then sleeps on a
 * condition variable, so an idle process burns no CPU. The caller signals
 * only when a worker sleeps (`sleepers`, a Dekker-style pair of sequentially
 * consistent accesses with the worker's check of the ticket).
 *
 * Publishing job k+1 after job k: ticket := (k, CLOSED), so that no late claim
 * on job k can succeed, then the job's fields, then ticket := (k+1, 0). A
 * claim reads the fields after it has seen the ticket and succeeds only if the
 * ticket is still what it saw, so the fields it runs with are its job's.
 *
 * One caller at a time (call_mu): a second Python thread that finds the pool
 * busy runs its job alone (no waiting, no deadlock). Fork: the child has none
 * of the workers; the pthread_atfork child handler forgets them (and resets
 * the locks), and the child's next job starts a fresh crew.
 * ------------------------------------------------------------------------- */
typedef void (*sd_task)(void *ctx, Py_ssize_t chunk);

#define SD_MAXW 255
#define SD_CLOSED 0xFFFFFFFFu
#define SD_MAXCHUNKS 64

static struct {
    pthread_mutex_t call_mu;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    _Atomic uint64_t ticket;
    _Atomic uintptr_t fn, ctx;
    _Atomic Py_ssize_t nchunks;
    _Atomic Py_ssize_t done;
    _Atomic int sleepers;
    _Atomic int stop;
    int nworkers;
    pthread_t tid[SD_MAXW];
} P = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static _Atomic long sd_spin_ns = 100000;          /* a worker's spin before it sleeps */
static _Atomic Py_ssize_t sd_min_chunk = 1 << 16; /* bytes of output (or input) per chunk */
static _Atomic long sd_worker_chunks = 0;         /* chunks the workers ran (a statistic) */

static inline void sd_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline long sd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Claim and run chunks of job `job` until none is left (or another job began). */
static void sd_run_job(uint32_t job, int worker)
{
    for (;;) {
        uint64_t t = atomic_load_explicit(&P.ticket, memory_order_acquire);
        if ((uint32_t)(t >> 32) != job)
            return;
        Py_ssize_t c = (Py_ssize_t)(uint32_t)t;
        sd_task fn = (sd_task)atomic_load_explicit(&P.fn, memory_order_relaxed);
        void *ctx = (void *)atomic_load_explicit(&P.ctx, memory_order_relaxed);
        Py_ssize_t n = atomic_load_explicit(&P.nchunks, memory_order_relaxed);
        if (c >= n)
            return;
        if (atomic_compare_exchange_weak(&P.ticket, &t, t + 1)) {
            fn(ctx, c);
            if (worker)
                atomic_fetch_add_explicit(&sd_worker_chunks, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&P.done, 1, memory_order_release);
        }
    }
}

static void *sd_worker(void *arg)
{
    uint32_t seen = (uint32_t)(uintptr_t)arg;
    for (;;) {
        long spin = atomic_load_explicit(&sd_spin_ns, memory_order_relaxed);
        long t0 = sd_now();
        uint32_t job;
        for (unsigned i = 1;; i++) {
            job = (uint32_t)(atomic_load_explicit(&P.ticket, memory_order_acquire) >> 32);
            if (job != seen || atomic_load_explicit(&P.stop, memory_order_relaxed))
                break;
            sd_pause();
            if ((i & 127) == 0 && sd_now() - t0 > spin) {
                pthread_mutex_lock(&P.mu);
                atomic_fetch_add(&P.sleepers, 1);
                while ((job = (uint32_t)(atomic_load(&P.ticket) >> 32)) == seen && !atomic_load(&P.stop))
                    pthread_cond_wait(&P.cv, &P.mu);
                atomic_fetch_sub(&P.sleepers, 1);
                pthread_mutex_unlock(&P.mu);
                break;
            }
        }
        if (atomic_load(&P.stop))
            return NULL;
        seen = job;
        sd_run_job(job, 1);
    }
}

static void sd_wake_all(void)
{
    pthread_mutex_lock(&P.mu);
    pthread_cond_broadcast(&P.cv);
    pthread_mutex_unlock(&P.mu);
}

/* A crew of nw workers (call_mu held): the one there, or a fresh one. Returns the
   number of workers running (fewer when the system refuses threads). */
static int sd_ensure(int nw)
{
    if (nw > SD_MAXW)
        nw = SD_MAXW;
    if (P.nworkers == nw)
        return nw;
    if (P.nworkers) {
        atomic_store(&P.stop, 1);
        sd_wake_all();
        for (int i = 0; i < P.nworkers; i++)
            pthread_join(P.tid[i], NULL);
        P.nworkers = 0;
        atomic_store(&P.stop, 0);
    }
    /* workers take no signals: Python handles them in the main thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    uint32_t job = (uint32_t)(atomic_load(&P.ticket) >> 32);
    for (int i = 0; i < nw; i++) {
        if (pthread_create(&P.tid[i], NULL, sd_worker, (void *)(uintptr_t)job) != 0)
            break;
        P.nworkers = i + 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return P.nworkers;
}

static void sd_atfork_child(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    P.call_mu = m;
    P.mu = m;
    P.cv = c;
    P.nworkers = 0;
    atomic_store(&P.sleepers, 0);
    atomic_store(&P.stop, 0);
}

/* fn(ctx, c) for c in 0 .. nchunks-1 on nthreads threads (the caller one of them).
   Called without the GIL. */
static void sd_parallel(int nthreads, sd_task fn, void *ctx, Py_ssize_t nchunks)
{
    if (nthreads > 1 && nchunks > 1 && pthread_mutex_trylock(&P.call_mu) == 0) {
        if (sd_ensure(nthreads - 1) > 0) {
            uint32_t job = (uint32_t)(atomic_load(&P.ticket) >> 32);
            atomic_store(&P.ticket, ((uint64_t)job << 32) | SD_CLOSED);
            atomic_store_explicit(&P.fn, (uintptr_t)fn, memory_order_relaxed);
            atomic_store_explicit(&P.ctx, (uintptr_t)ctx, memory_order_relaxed);
            atomic_store_explicit(&P.nchunks, nchunks, memory_order_relaxed);
            atomic_store_explicit(&P.done, 0, memory_order_relaxed);
            job++;
            atomic_store(&P.ticket, (uint64_t)job << 32);
            if (atomic_load(&P.sleepers) > 0)
                sd_wake_all();
            sd_run_job(job, 0);
            for (unsigned spins = 0; atomic_load_explicit(&P.done, memory_order_acquire) < nchunks;) {
                sd_pause();
                if (++spins > 2048)
                    sched_yield(); /* a worker lost its core mid-chunk: let it have ours */
            }
            pthread_mutex_unlock(&P.call_mu);
            return;
        }
        pthread_mutex_unlock(&P.call_mu);
    }
    for (Py_ssize_t c = 0; c < nchunks; c++)
        fn(ctx, c);
}

/* How many chunks for nbytes of work on nthreads threads: at least sd_min_chunk
   bytes each, at most 8 per thread (a late worker leaves the caller its share). */
static Py_ssize_t sd_chunks(Py_ssize_t nbytes, int nthreads)
{
    if (nthreads < 2)
        return 1;
    Py_ssize_t mc = atomic_load_explicit(&sd_min_chunk, memory_order_relaxed);
    Py_ssize_t k = nbytes / (mc > 0 ? mc : 1);
    Py_ssize_t most = 8 * (Py_ssize_t)nthreads;
    if (most > SD_MAXCHUNKS)
        most = SD_MAXCHUNKS;
    return k < 1 ? 1 : (k > most ? most : k);
}

/* --- buffers ------------------------------------------------------------ */

/* 1 float32, 2 float64 (native, C-contiguous), else 0 with the view released
   and no error set. */
static int sd_fbuf(PyObject *obj, Py_buffer *v, int writable)
{
    if (PyObject_GetBuffer(obj, v, PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        PyErr_Clear();
        return 0;
    }
    const char *f = v->format ? v->format : "B";
#if PY_LITTLE_ENDIAN
    if (f[0] == '<' || f[0] == '=' || f[0] == '@')
#else
    if (f[0] == '>' || f[0] == '=' || f[0] == '@')
#endif
        f++;
    int kind = (f[0] == 'f' && f[1] == 0 && v->itemsize == 4) ? 1
             : (f[0] == 'd' && f[1] == 0 && v->itemsize == 8) ? 2 : 0;
    if (!kind || !PyBuffer_IsContiguous(v, 'C')) {
        PyBuffer_Release(v);
        return 0;
    }
    return kind;
}

/* [lo, hi) of chunk c of n elements in nchunks pieces, boundaries on multiples of 64. */
static inline void sd_range(Py_ssize_t n, Py_ssize_t nchunks, Py_ssize_t c, Py_ssize_t *lo, Py_ssize_t *hi)
{
    Py_ssize_t step = (n + nchunks - 1) / nchunks;
    step = (step + 63) & ~(Py_ssize_t)63;
    Py_ssize_t a = c * step, b = a + step;
    *lo = a < n ? a : n;
    *hi = b < n ? b : n;
}

static int sd_overlap(const char *p, const char *q, Py_ssize_t len)
{
    return p < q + len && q < p + len;
}

/* --- elementwise arithmetic ------------------------------------------------
   NumPy's results bit for bit: IEEE +, -, *, / of the same operands in the same
   order, and maximum/minimum as NumPy's loops define them (a NaN in a wins, then
   a NaN in b; equal operands, +0/-0 included, give b). Four variants each, so
   that the compiler vectorizes without runtime alias checks: out distinct from
   both inputs, out == a, out == b, and out == a == b (temporary elision). */
#define SD_OP_ADD(x, y) ((x) + (y))
#define SD_OP_SUB(x, y) ((x) - (y))
#define SD_OP_MUL(x, y) ((x) * (y))
#define SD_OP_DIV(x, y) ((x) / (y))
#define SD_OP_MAX(x, y) (((x) > (y) || (x) != (x)) ? (x) : (y))
#define SD_OP_MIN(x, y) (((x) < (y) || (x) != (x)) ? (x) : (y))

#define SD_BIN(NAME, T, OP)                                                                 \
    SD_CLONES static void NAME##_ab(const T *restrict a, const T *restrict b, T *restrict o, \
                                    Py_ssize_t n)                                          \
    {                                                                                      \
        for (Py_ssize_t i = 0; i < n; i++)                                                 \
            o[i] = OP(a[i], b[i]);                                                         \
    }                                                                                      \
    SD_CLONES static void NAME##_oa(T *restrict o, const T *restrict b, Py_ssize_t n)       \
    {                                                                                      \
        for (Py_ssize_t i = 0; i < n; i++)                                                 \
            o[i] = OP(o[i], b[i]);                                                         \
    }                                                                                      \
    SD_CLONES static void NAME##_ob(const T *restrict a, T *restrict o, Py_ssize_t n)       \
    {                                                                                      \
        for (Py_ssize_t i = 0; i < n; i++)                                                 \
            o[i] = OP(a[i], o[i]);                                                         \
    }                                                                                      \
    SD_CLONES static void NAME##_oo(T *restrict o, Py_ssize_t n)                           \
    {                                                                                      \
        for (Py_ssize_t i = 0; i < n; i++)                                                 \
            o[i] = OP(o[i], o[i]);                                                         \
    }                                                                                      \
    static void NAME(const T *a, const T *b, T *o, Py_ssize_t n)                           \
    {                                                                                      \
        if (o == a && o == b)                                                              \
            NAME##_oo(o, n);                                                               \
        else if (o == a)                                                                   \
            NAME##_oa(o, b, n);                                                            \
        else if (o == b)                                                                   \
            NAME##_ob(a, o, n);                                                            \
        else                                                                               \
            NAME##_ab(a, b, o, n);                                                         \
    }

SD_BIN(add_f32, float, SD_OP_ADD)
SD_BIN(sub_f32, float, SD_OP_SUB)
SD_BIN(mul_f32, float, SD_OP_MUL)
SD_BIN(div_f32, float, SD_OP_DIV)
SD_BIN(max_f32, float, SD_OP_MAX)
SD_BIN(min_f32, float, SD_OP_MIN)
SD_BIN(add_f64, double, SD_OP_ADD)
SD_BIN(sub_f64, double, SD_OP_SUB)
SD_BIN(mul_f64, double, SD_OP_MUL)
SD_BIN(div_f64, double, SD_OP_DIV)
SD_BIN(max_f64, double, SD_OP_MAX)
SD_BIN(min_f64, double, SD_OP_MIN)

typedef void (*sd_bin_f32)(const float *, const float *, float *, Py_ssize_t);
typedef void (*sd_bin_f64)(const double *, const double *, double *, Py_ssize_t);
static const sd_bin_f32 SD_BIN32[6] = {add_f32, sub_f32, mul_f32, div_f32, max_f32, min_f32};
static const sd_bin_f64 SD_BIN64[6] = {add_f64, sub_f64, mul_f64, div_f64, max_f64, min_f64};

typedef struct {
    int op, kind, sside; /* sside: 0 two arrays, 1 a is a scalar, 2 b is a scalar */
    double sval;
    const char *a, *b;
    char *o;
    Py_ssize_t n, nchunks;
} sd_ew_ctx;

#define SD_BLK 512 /* a scalar operand meets its array as a block of its copies */

static void sd_ew_task(void *p, Py_ssize_t c)
{
    sd_ew_ctx *x = (sd_ew_ctx *)p;
    Py_ssize_t lo, hi;
    sd_range(x->n, x->nchunks, c, &lo, &hi);
    if (hi <= lo)
        return;
    if (x->sside == 0) {
        if (x->kind == 1)
            SD_BIN32[x->op]((const float *)x->a + lo, (const float *)x->b + lo, (float *)x->o + lo, hi - lo);
        else
            SD_BIN64[x->op]((const double *)x->a + lo, (const double *)x->b + lo, (double *)x->o + lo, hi - lo);
        return;
    }
    const char *arr = x->sside == 2 ? x->a : x->b;
    if (x->kind == 1) {
        float blk[SD_BLK], v = (float)x->sval;
        for (int i = 0; i < SD_BLK; i++)
            blk[i] = v;
        const float *s = (const float *)arr;
        float *o = (float *)x->o;
        for (Py_ssize_t i = lo; i < hi; i += SD_BLK) {
            Py_ssize_t m = hi - i < SD_BLK ? hi - i : SD_BLK;
            if (x->sside == 2)
                SD_BIN32[x->op](s + i, blk, o + i, m);
            else
                SD_BIN32[x->op](blk, s + i, o + i, m);
        }
    }
    else {
        double blk[SD_BLK], v = x->sval;
        for (int i = 0; i < SD_BLK; i++)
            blk[i] = v;
        const double *s = (const double *)arr;
        double *o = (double *)x->o;
        for (Py_ssize_t i = lo; i < hi; i += SD_BLK) {
            Py_ssize_t m = hi - i < SD_BLK ? hi - i : SD_BLK;
            if (x->sside == 2)
                SD_BIN64[x->op](s + i, blk, o + i, m);
            else
                SD_BIN64[x->op](blk, s + i, o + i, m);
        }
    }
}

/* A Python float or int operand (exact types: not bool) as NumPy 2 takes it against a
   float array (a "weak" scalar: converted to the array's type, rounding once):
   1 with *v set, 0 for anything else (an int beyond 2**53, which would round twice,
   or a value that overflows the array's type, where NumPy decides). */
static int sd_scalar(PyObject *obj, int kind, double *v)
{
    double d;
    if (PyFloat_CheckExact(obj))
        d = PyFloat_AS_DOUBLE(obj);
    else if (PyLong_CheckExact(obj)) {
        d = PyLong_AsDouble(obj);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (d > 9007199254740992.0 || d < -9007199254740992.0)
            return 0;
    }
    else
        return 0;
    if (kind == 1 && d == d && d - d == 0.0) { /* finite, but perhaps not as a float32 */
        float f = (float)d;
        if (f - f != 0.0f)
            return 0;
    }
    *v = d;
    return 1;
}

/* ew_binary(op, a, b, out, nthreads) -> bool: a and b arrays, or one of them a Python
   float/int for op 0..3 (NumPy's loops for maximum/minimum with a scalar are its own). */
static PyObject *
ew_binary(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "ew_binary() takes 5 arguments (%zd given)", nargs);
        return NULL;
    }
    long op = PyLong_AsLong(args[0]);
    long nt = PyLong_AsLong(args[4]);
    if ((op == -1 || nt == -1) && PyErr_Occurred())
        return NULL;
    if (op < 0 || op > 5) {
        PyErr_Format(PyExc_ValueError, "ew_binary(): op must be 0..5; got %ld", op);
        return NULL;
    }
    int sside = 0;
    if (op <= 3 && (PyFloat_CheckExact(args[1]) || PyLong_CheckExact(args[1])))
        sside = 1;
    else if (op <= 3 && (PyFloat_CheckExact(args[2]) || PyLong_CheckExact(args[2])))
        sside = 2;
    Py_buffer v, o;
    int kv = sd_fbuf(args[sside == 2 ? 1 : 2], &v, 0); /* the array (b's when both are) */
    if (!kv)
        Py_RETURN_FALSE;
    double sval = 0.0;
    Py_buffer a;
    int ka = kv;
    if (sside) {
        if (!sd_scalar(args[sside], kv, &sval)) {
            PyBuffer_Release(&v);
            Py_RETURN_FALSE;
        }
    }
    else if (!(ka = sd_fbuf(args[1], &a, 0))) {
        PyBuffer_Release(&v);
        Py_RETURN_FALSE;
    }
    int ko = sd_fbuf(args[3], &o, 1);
    int ok = ko && ka == kv && kv == ko && v.len == o.len
             && (o.buf == v.buf || !sd_overlap(o.buf, v.buf, o.len))
             && (sside || (a.len == o.len && (o.buf == a.buf || !sd_overlap(o.buf, a.buf, o.len))));
    if (ok && o.len) {
        sd_ew_ctx x;
        x.op = (int)op;
        x.kind = kv;
        x.sside = sside;
        x.sval = sval;
        x.a = sside == 0 ? a.buf : (sside == 2 ? v.buf : NULL);
        x.b = sside == 2 ? NULL : v.buf;
        x.o = o.buf;
        x.n = o.len / o.itemsize;
        x.nchunks = sd_chunks(o.len, nt > 255 ? 256 : (int)nt);
        Py_BEGIN_ALLOW_THREADS
        sd_parallel((int)nt, sd_ew_task, &x, x.nchunks);
        Py_END_ALLOW_THREADS
    }
    if (ko)
        PyBuffer_Release(&o);
    if (!sside)
        PyBuffer_Release(&a);
    PyBuffer_Release(&v);
    return PyBool_FromLong(ok);
}

/* --- NumPy's own inner loops ------------------------------------------------
   numpy.ufunc._resolve_dtypes_and_context + _get_strided_loop (NumPy >= 1.24)
   hand out a capsule "numpy_1.24_ufunc_call_info" whose layout NumPy documents
   (the strided loop's signature is the stable part). A loop that needs no
   Python API runs on a chunk as on the whole array: same loop, same values. */
typedef int(sd_np_loop)(void *context, char *const *data, const Py_ssize_t *dims,
                        const Py_ssize_t *strides, void *auxdata);
typedef struct {
    sd_np_loop *strided_loop;
    void *context;
    void *auxdata;
    unsigned char requires_pyapi;
    unsigned char no_floatingpoint_errors;
} sd_call_info;

#define SD_MAXOPS 4
typedef struct {
    sd_call_info *info;
    int nops; /* inputs + the output */
    char *ptr[SD_MAXOPS];
    Py_ssize_t itemsize, n, nchunks;
    _Atomic int failed;
} sd_loop_ctx;

static void sd_loop_task(void *p, Py_ssize_t c)
{
    sd_loop_ctx *x = (sd_loop_ctx *)p;
    Py_ssize_t lo, hi;
    sd_range(x->n, x->nchunks, c, &lo, &hi);
    if (hi <= lo)
        return;
    char *data[SD_MAXOPS];
    Py_ssize_t strides[SD_MAXOPS], len = hi - lo;
    for (int i = 0; i < x->nops; i++) {
        data[i] = x->ptr[i] + lo * x->itemsize;
        strides[i] = x->itemsize;
    }
    if (x->info->strided_loop(x->info->context, data, &len, strides, x->info->auxdata) < 0)
        atomic_store(&x->failed, 1);
}

/* ew_loop(call_info, inputs, out, nthreads) -> bool: NumPy's loop over equal-sized
   C-contiguous buffers of one float type (False: not handled, nothing promised
   about out). */
static PyObject *
ew_loop(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "ew_loop() takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    long nt = PyLong_AsLong(args[3]);
    if (nt == -1 && PyErr_Occurred())
        return NULL;
    if (!PyCapsule_IsValid(args[0], "numpy_1.24_ufunc_call_info") || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "ew_loop(): expected a NumPy ufunc call-info capsule and a tuple");
        return NULL;
    }
    sd_call_info *info = (sd_call_info *)PyCapsule_GetPointer(args[0], "numpy_1.24_ufunc_call_info");
    if (info == NULL)
        return NULL;
    Py_ssize_t nin = PyTuple_GET_SIZE(args[1]);
    if (info->strided_loop == NULL || info->requires_pyapi || nin < 1 || nin >= SD_MAXOPS)
        Py_RETURN_FALSE;
    Py_buffer v[SD_MAXOPS];
    int got = 0, ok = 1, kind = 0;
    for (Py_ssize_t i = 0; i <= nin && ok; i++) {
        PyObject *obj = i < nin ? PyTuple_GET_ITEM(args[1], i) : args[2];
        int k = sd_fbuf(obj, &v[i], i == nin);
        if (!k) {
            ok = 0;
            break;
        }
        got++;
        if (i == 0)
            kind = k;
        ok = k == kind && v[i].len == v[0].len;
        if (ok && i == nin) /* the output: the same memory as an input, or none of it */
            for (Py_ssize_t j = 0; j < nin; j++)
                if (v[j].buf != v[i].buf && sd_overlap(v[j].buf, v[i].buf, v[i].len))
                    ok = 0;
    }
    if (ok && v[0].len) {
        sd_loop_ctx x;
        x.info = info;
        x.nops = (int)nin + 1;
        for (int i = 0; i < x.nops; i++)
            x.ptr[i] = (char *)v[i].buf;
        x.itemsize = v[0].itemsize;
        x.n = v[0].len / x.itemsize;
        x.nchunks = sd_chunks(v[0].len, nt > 255 ? 256 : (int)nt);
        atomic_init(&x.failed, 0);
        Py_BEGIN_ALLOW_THREADS
        sd_parallel((int)nt, sd_loop_task, &x, x.nchunks);
        Py_END_ALLOW_THREADS
        if (atomic_load(&x.failed)) {
            PyErr_Clear();
            ok = 0;
        }
    }
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&v[i]);
    return PyBool_FromLong(ok);
}

/* --- whole-array sums -------------------------------------------------------
   The same pairwise tree as one thread (pw_vec_f32/f64 above), cut at a level
   K of its leaf counter: chunk c is leaves [c 2^K, (c+1) 2^K), whose counter
   ends in one entry at level K, exactly the value the one-thread counter
   builds for those leaves (a leaf index's trailing one bits below K are its
   index's within the chunk). The chunks' vectors are then combined by the
   same counter from level K up, and a last chunk of fewer leaves is the
   one-thread counter's low entries, collapsed first as it collapses them:
   every addition is the one-thread sum's, in the same order, so the result
   is bit for bit the one-thread sum whatever the thread count. */
typedef struct {
    int kind, K;
    const char *base;
    Py_ssize_t nfull, rem, nchunks; /* leaves of the whole array */
    double p[SD_MAXCHUNKS];
} sd_sum_ctx;

static void sd_sum_task(void *p, Py_ssize_t c)
{
    sd_sum_ctx *s = (sd_sum_ctx *)p;
    Py_ssize_t k0 = c << s->K, k1 = (c + 1) << s->K;
    Py_ssize_t nl = s->nfull + (s->rem > 0);
    if (k1 > nl)
        k1 = nl;
    Py_ssize_t full = (k1 <= s->nfull ? k1 : s->nfull) - k0;
    Py_ssize_t rem = k1 > s->nfull ? s->rem : 0;
    if (s->kind == 1)
        s->p[c] = pw_tree_f32((const float *)s->base + k0 * (SD_LEAF * 8), full, rem);
    else
        s->p[c] = pw_tree_f64((const double *)s->base + k0 * (SD_LEAF * 4), full, rem);
}

/* The chunks' values up the counter from level K (see above). */
static double sd_sum_up(sd_sum_ctx *s)
{
    double st[64];
    Py_ssize_t nl = s->nfull + (s->rem > 0);
    Py_ssize_t F = nl >> s->K, part = nl & (((Py_ssize_t)1 << s->K) - 1);
    for (Py_ssize_t c = 0; c < F; c++) {
        double v = s->p[c];
        int l = 0;
        for (Py_ssize_t j = c; j & 1; j >>= 1, l++)
            v = st[l] + v;
        st[l] = v;
    }
    double tot = part ? s->p[F] : 0.0;
    int have = part != 0;
    for (int l = 0; (F >> l) != 0; l++)
        if ((F >> l) & 1) {
            tot = have ? st[l] + tot : st[l];
            have = 1;
        }
    return tot;
}

/* The whole-array pairwise sum of n > 128 elements on nt threads (without the GIL):
   pairwise_f32/f64's value, bit for bit. */
static double sd_sum_whole(int kind, const char *base, Py_ssize_t n, long nt)
{
    sd_sum_ctx s;
    Py_ssize_t leaf = SD_LEAF * (kind == 1 ? 8 : 4);
    s.kind = kind;
    s.base = base;
    s.nfull = n / leaf;
    s.rem = n % leaf;
    Py_ssize_t nl = s.nfull + (s.rem > 0);
    Py_ssize_t want = sd_chunks(n * (kind == 1 ? 4 : 8), nt > 255 ? 256 : (int)nt);
    s.K = 0;
    while (((nl + ((Py_ssize_t)1 << s.K) - 1) >> s.K) > want)
        s.K++;
    s.nchunks = (nl + ((Py_ssize_t)1 << s.K) - 1) >> s.K;
    sd_parallel((int)nt, sd_sum_task, &s, s.nchunks);
    if (kind == 1)
        return (double)(0.0f + (float)sd_sum_up(&s));
    return 0.0 + sd_sum_up(&s);
}

/* sum_all(a, nthreads) -> float, or None (not a C-contiguous float32/float64
   buffer of more than 128 elements): sum_rows(a, out, a.size)'s value. */
static PyObject *
sum_all(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "sum_all() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    long nt = PyLong_AsLong(args[1]);
    if (nt == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer v;
    int kind = sd_fbuf(args[0], &v, 0);
    if (!kind)
        Py_RETURN_NONE;
    Py_ssize_t n = v.len / v.itemsize;
    if (n <= 128) {
        PyBuffer_Release(&v);
        Py_RETURN_NONE;
    }
    double r;
    Py_BEGIN_ALLOW_THREADS
    r = sd_sum_whole(kind, v.buf, n, nt);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    return PyFloat_FromDouble(r);
}

/* --- whole-array max / min --------------------------------------------------
   Each chunk's extremum in vector accumulators, with a flag for NaNs. The
   value is exact (no rounding); where it is a zero or NaN (whose sign or
   payload NumPy picks by position) the caller asks NumPy instead. */
#if defined(__GNUC__)
typedef int sd_vi8 __attribute__((vector_size(32)));
typedef long long sd_vl4 __attribute__((vector_size(32)));
#define SD_EXT(NAME, T, V, VI, L, CMP)                                                      \
    SD_CLONES static T NAME(const T *a, Py_ssize_t n, int *nan)                             \
    {                                                                                      \
        T m = a[0];                                                                        \
        int bad = 0;                                                                       \
        Py_ssize_t i = 0;                                                                  \
        if (n >= 4 * (L)) {                                                                \
            V m0, m1, m2, m3;                                                              \
            VI u = {0};                                                                    \
            memcpy(&m0, a, sizeof(V));                                                     \
            m1 = m2 = m3 = m0;                                                             \
            for (; i + 4 * (L) <= n; i += 4 * (L)) {                                       \
                V v0, v1, v2, v3;                                                          \
                memcpy(&v0, a + i, sizeof(V));                                             \
                memcpy(&v1, a + i + (L), sizeof(V));                                       \
                memcpy(&v2, a + i + 2 * (L), sizeof(V));                                   \
                memcpy(&v3, a + i + 3 * (L), sizeof(V));                                   \
                VI k0 = v0 CMP m0, k1 = v1 CMP m1, k2 = v2 CMP m2, k3 = v3 CMP m3;         \
                m0 = (V)(((VI)v0 & k0) | ((VI)m0 & ~k0));                                  \
                m1 = (V)(((VI)v1 & k1) | ((VI)m1 & ~k1));                                  \
                m2 = (V)(((VI)v2 & k2) | ((VI)m2 & ~k2));                                  \
                m3 = (V)(((VI)v3 & k3) | ((VI)m3 & ~k3));                                  \
                u |= (v0 != v0) | (v1 != v1) | (v2 != v2) | (v3 != v3);                    \
            }                                                                              \
            T l[4 * (L)];                                                                  \
            memcpy(l, &m0, sizeof(V));                                                     \
            memcpy(l + (L), &m1, sizeof(V));                                               \
            memcpy(l + 2 * (L), &m2, sizeof(V));                                           \
            memcpy(l + 3 * (L), &m3, sizeof(V));                                           \
            for (int j = 0; j < 4 * (L); j++)                                              \
                if (l[j] CMP m)                                                            \
                    m = l[j];                                                              \
            for (int j = 0; j < (L); j++)                                                  \
                bad |= u[j] != 0;                                                          \
        }                                                                                  \
        for (; i < n; i++) {                                                               \
            T x = a[i];                                                                    \
            if (x CMP m)                                                                   \
                m = x;                                                                     \
            bad |= x != x;                                                                 \
        }                                                                                  \
        *nan = bad;                                                                        \
        return m;                                                                          \
    }
SD_EXT(ext_max_f32, float, vf, sd_vi8, 8, >)
SD_EXT(ext_min_f32, float, vf, sd_vi8, 8, <)
SD_EXT(ext_max_f64, double, vd, sd_vl4, 4, >)
SD_EXT(ext_min_f64, double, vd, sd_vl4, 4, <)
#endif

typedef struct {
    int kind, is_max;
    const char *base;
    Py_ssize_t n, nchunks;
    double part[SD_MAXCHUNKS];
    int nan[SD_MAXCHUNKS];
} sd_ext_ctx;

static void sd_ext_task(void *p, Py_ssize_t c)
{
    sd_ext_ctx *x = (sd_ext_ctx *)p;
    Py_ssize_t lo, hi;
    sd_range(x->n, x->nchunks, c, &lo, &hi);
    x->nan[c] = 0;
    if (hi <= lo) {
        x->part[c] = x->is_max ? -Py_HUGE_VAL : Py_HUGE_VAL;
        return;
    }
    if (x->kind == 1) {
        const float *a = (const float *)x->base + lo;
        x->part[c] = x->is_max ? ext_max_f32(a, hi - lo, &x->nan[c]) : ext_min_f32(a, hi - lo, &x->nan[c]);
    }
    else {
        const double *a = (const double *)x->base + lo;
        x->part[c] = x->is_max ? ext_max_f64(a, hi - lo, &x->nan[c]) : ext_min_f64(a, hi - lo, &x->nan[c]);
    }
}

/* extremum_all(a, is_max, nthreads) -> float (NaN where a holds one), or None
   (not a non-empty C-contiguous float32/float64 buffer). */
static PyObject *
extremum_all(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "extremum_all() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    int is_max = PyObject_IsTrue(args[1]);
    long nt = PyLong_AsLong(args[2]);
    if (is_max < 0 || (nt == -1 && PyErr_Occurred()))
        return NULL;
    Py_buffer v;
    int kind = sd_fbuf(args[0], &v, 0);
    if (!kind)
        Py_RETURN_NONE;
    if (v.len == 0) {
        PyBuffer_Release(&v);
        Py_RETURN_NONE;
    }
    sd_ext_ctx x;
    x.kind = kind;
    x.is_max = is_max;
    x.base = v.buf;
    x.n = v.len / v.itemsize;
    x.nchunks = sd_chunks(v.len, nt > 255 ? 256 : (int)nt);
    double r;
    int nan = 0;
    Py_BEGIN_ALLOW_THREADS
    sd_parallel((int)nt, sd_ext_task, &x, x.nchunks);
    r = x.part[0];
    for (Py_ssize_t c = 0; c < x.nchunks; c++) {
        nan |= x.nan[c];
        if (is_max ? x.part[c] > r : x.part[c] < r)
            r = x.part[c];
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    return PyFloat_FromDouble(nan ? Py_NAN : r);
}

/* pool_config(spin_ns=-1, min_chunk_bytes=-1) -> (spin_ns, min_chunk_bytes, workers,
   worker_chunks): set what is >= 0, report all (workers: the crew now running in this
   process; worker_chunks: the chunks its workers have run so far, a statistic). */
static PyObject *
pool_config(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs > 2) {
        PyErr_Format(PyExc_TypeError, "pool_config() takes at most 2 arguments (%zd given)", nargs);
        return NULL;
    }
    long spin = nargs > 0 ? PyLong_AsLong(args[0]) : -1;
    if (spin == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t mc = nargs > 1 ? PyLong_AsSsize_t(args[1]) : -1;
    if (mc == -1 && PyErr_Occurred())
        return NULL;
    if (spin >= 0)
        atomic_store(&sd_spin_ns, spin);
    if (mc >= 0)
        atomic_store(&sd_min_chunk, mc > 0 ? mc : 1);
    return Py_BuildValue("(lnil)", atomic_load(&sd_spin_ns), atomic_load(&sd_min_chunk), P.nworkers,
                         atomic_load(&sd_worker_chunks));
}

static PyMethodDef methods[] = {
    {"sum_rows", (PyCFunction)(void (*)(void))sum_rows, METH_FASTCALL,
     "sum_rows(src, out, ncols): pairwise sums of the ncols-long rows of a C-contiguous "
     "float32/float64 buffer into out (ValueError for anything else)."},
    {"sum_into", (PyCFunction)(void (*)(void))sum_into, METH_FASTCALL,
     "sum_into(src, out, ncols[, divisor]) -> bool: sum_rows (each sum then divided by divisor "
     "in the buffer's type: a mean), or False (nothing written) where src or out is not a "
     "C-contiguous float32/float64 buffer of fitting sizes."},
    {"ew_binary", (PyCFunction)(void (*)(void))ew_binary, METH_FASTCALL,
     "ew_binary(op, a, b, out, nthreads) -> bool: out = a op b (op 0..5: add, subtract, multiply, "
     "divide, maximum, minimum) over equal-sized C-contiguous float32/float64 buffers (for op "
     "0..3 one of a, b may be a Python float or int), on the thread pool; False (nothing "
     "written) for anything else."},
    {"ew_loop", (PyCFunction)(void (*)(void))ew_loop, METH_FASTCALL,
     "ew_loop(call_info, inputs, out, nthreads) -> bool: NumPy's strided loop from a "
     "ufunc._get_strided_loop capsule over equal-sized C-contiguous buffers, on the thread pool."},
    {"sum_all", (PyCFunction)(void (*)(void))sum_all, METH_FASTCALL,
     "sum_all(a, nthreads) -> float or None: the pairwise sum of a C-contiguous float32/float64 "
     "buffer (more than 128 elements), bit for bit sum_rows's, on the thread pool."},
    {"extremum_all", (PyCFunction)(void (*)(void))extremum_all, METH_FASTCALL,
     "extremum_all(a, is_max, nthreads) -> float or None: max/min of a C-contiguous "
     "float32/float64 buffer (NaN where it holds one), on the thread pool."},
    {"pool_config", (PyCFunction)(void (*)(void))pool_config, METH_FASTCALL,
     "pool_config(spin_ns=-1, min_chunk_bytes=-1) -> (spin_ns, min_chunk_bytes, workers, "
     "chunks the workers have run)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided._ckernels",
    "The CPU kernels NumPy has no fast equivalent for (see strided/_cfast.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__ckernels(void)
{
    static int forked_handler = 0;
    if (!forked_handler) {
        pthread_atfork(NULL, NULL, sd_atfork_child);
        forked_handler = 1;
    }
    return PyModule_Create(&module);
}
