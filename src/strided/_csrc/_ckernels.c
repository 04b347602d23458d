/* strided._csrc._ckernels: the CPU kernels NumPy has no fast equivalent for, and the
 * intra-op thread pool.
 *
 * It stands in front of two Python modules, which are the definitions and the
 * fallback (no compiler at install time, or STRIDED_NO_CEXT=1; CI runs the tests
 * both ways):
 *
 * - strided/_core/cfast.py: sum_rows, sum_into and reduce behind add_reduce,
 *   max_reduce, min_reduce (NumPy's add.reduce, max, min);
 * - strided/_core/threads.py: ew_binary and ew_loop (large elementwise results),
 *   reduce, sum_all, extremum_all (large reductions) on the thread pool, and
 *   pool_config.
 *
 * Every entry point checks what it is handed (argument count and types, buffer
 * formats, sizes, layouts, overlap) and declines -- False or None, nothing
 * written -- on anything it does not take; Python then does the work. Each
 * reads Python objects only through the buffer protocol, the number API and
 * NumPy's documented ufunc call-info capsule.
 *
 * The operations are declared once, as tables (X-macros), like the rows of
 * strided/_api/elementwise.py; from each table come the kernels' instantiations,
 * the dispatch, the argument checks and the op codes exported to Python as
 * dicts (EW_BINARY_OPS, REDUCE_OPS), which threads.py and cfast.py read:
 *
 * - SD_FLOAT_TYPES: the element types (float32, float64) every kernel is
 *   instantiated for;
 * - SD_EW_BINARY_OPS: the binary elementwise ops of ew_binary. Their kernels are
 *   NumPy's own strided loops (ufunc._get_strided_loop), run per chunk: the same
 *   loop on the same data gives NumPy's bits, NaN payloads included (NumPy's
 *   add/multiply return the first operand's NaN in their vector body and the
 *   second's in the scalar tail: no loop of ours could match it on every CPU);
 * - SD_REDUCE_OPS: the reductions of reduce (sum, max, min, the sum of squared
 *   deviations), and SD_EXTREMA: max and min's comparisons and AVX2 intrinsics.
 *
 * Adding an op:
 * - a binary elementwise op: one row in SD_EW_BINARY_OPS (its NumPy ufunc's
 *   name, whether a Python scalar operand is taken); threads.py finds it in
 *   EW_BINARY_OPS. (A unary one needs no C: a ufunc in threads.py's
 *   _LOOP_UFUNCS goes through ew_loop.)
 * - a reduction: one row in SD_REDUCE_OPS, and its case in sd_red_task and
 *   sd_reduce (the kernels of a new reduction are new code).
 *
 * sum_rows(src, out, ncols): out[i] = sum(src[i*ncols : (i+1)*ncols]) for a
 * C-contiguous float32 ('f') or float64 ('d') buffer src and a contiguous out of
 * the same type. NumPy's pairwise summation, operation for operation (see
 * "The pairwise sum" below): the same values as numpy.add.reduce, bit for bit
 * (a fast path changes no value; NaN payloads aside: the entry points that may
 * decline do so on a NaN sum). The GIL is released while it runs (from
 * 64 KiB), so strided's threads can split a sum.
 *
 * sum_into(src, out, ncols[, divisor]) -> bool: the same (divided by divisor: a
 * mean), or False (nothing written) for a buffer it doesn't take, so the hot
 * path asks once instead of checking first.
 *
 * reduce(op, src, out, outer, nred, inner, nthreads[, means]) -> bool: sum,
 * max, min (or, with means, the sum of squared deviations: var/std in one
 * pass) over the middle axis of a C-contiguous float32/float64 buffer seen as
 * (outer, nred, inner): any run of adjacent axes of an array, or all of them.
 * Rows (inner == 1) as sum_rows sums them; leading/middle axes as NumPy sums
 * them, the rows added one after another, in blocks of 16 rows streamed across
 * the columns; a NaN sum declined (its payload is NumPy's loop's business);
 * max/min exact and NaN-propagating, a zero's sign or a NaN's payload as NumPy
 * gives it or the call declined (see "reductions over one run of axes").
 *
 * The thread pool (see "Intra-op threads" below): a persistent crew of
 * pthreads that never take the GIL. ew_binary, ew_loop, reduce, sum_all and
 * extremum_all run one large operation on C-contiguous float32/float64
 * buffers split in chunks across it: the caller releases the GIL, takes
 * chunks itself and waits for the crew. Results never depend on the thread
 * count: chunk boundaries fall on multiples of 64 elements and a last chunk
 * is never shorter than 64, so NumPy's loops see every element in the same
 * part of their loop (vector body or tail) as in one call over the whole.
 * A thread count is clamped to 1 .. SD_MAXW + 1, whatever int it is.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include <stdatomic.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>

/* (only the error rules are used here: contract_clear, contract_clear_buffer) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "contract.h"
#pragma GCC diagnostic pop

/* ---------------------------------------------------------------------------
 * The tables. Each row is one type or one op; the macros below expand them into
 * the kernels, the dispatch and the op codes exported to Python.
 * ------------------------------------------------------------------------- */

/* The element types: suffix, C type, its bits as an unsigned int, vector type,
   lanes per vector, the default quiet NaN's bits, the sign bit, AVX2's vector type
   and intrinsic suffix, and the buffer kind sd_fbuf reports. */
#define SD_FLOAT_TYPES(X)                                                                \
    X(f32, float, uint32_t, vf, 8, 0x7fc00000u, 0x80000000u, __m256, ps, 1)              \
    X(f64, double, uint64_t, vd, 4, 0x7ff8000000000000ull, 0x8000000000000000ull, __m256d, pd, 2)

/* ew_binary's ops: op code, NumPy ufunc (whose strided loop is the kernel), and
   whether one operand may be a Python float or int (NumPy runs maximum/minimum
   with a scalar in loops of their own: left to NumPy). */
#define SD_EW_BINARY_OPS(X)                                                              \
    X(0, add, 1)                                                                         \
    X(1, subtract, 1)                                                                    \
    X(2, multiply, 1)                                                                    \
    X(3, divide, 1)                                                                      \
    X(4, maximum, 0)                                                                     \
    X(5, minimum, 0)

/* reduce's ops: op code, enum name, the name exported in REDUCE_OPS, and whether it
   takes the means (the 8th argument). */
#define SD_REDUCE_OPS(X)                                                                 \
    X(0, SD_SUM, sum, 0)                                                                 \
    X(1, SD_MAX, max, 0)                                                                 \
    X(2, SD_MIN, min, 0)                                                                 \
    X(3, SD_SQDEV, sq_dev, 1)

/* max and min: name, the comparison that replaces the running value. */
#define SD_EXTREMA(X, ...)                                                               \
    X(max, >, __VA_ARGS__)                                                               \
    X(min, <, __VA_ARGS__)

#define SD_COUNT(...) +1
enum { SD_NBIN = 0 SD_EW_BINARY_OPS(SD_COUNT) };
#define SD_RED_ENUM(CODE, NAME, PY, MEANS) NAME = CODE,
enum { SD_REDUCE_OPS(SD_RED_ENUM) SD_NRED = 0 SD_REDUCE_OPS(SD_COUNT) };
#define SD_RED_MEANS(CODE, NAME, PY, MEANS) [CODE] = MEANS,
static const char sd_red_means[SD_NRED] = {SD_REDUCE_OPS(SD_RED_MEANS)};
#define SD_RED_DOC(CODE, NAME, PY, MEANS) " " #CODE " (" #PY ")"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && defined(__linux__)
#define SD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SD_CLONES
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi" /* static functions only: no ABI crosses the module */
#endif
typedef float vf __attribute__((vector_size(32)));  /* 8 float32 lanes */
/* Helpers that take or return vectors by value: always inlined into their caller
   (a target_clones function), so that no call crosses between code built for
   different vector ABIs (AVX2 passes them in ymm registers, the default in memory). */
#define SD_INLINE static inline __attribute__((always_inline))
typedef double vd __attribute__((vector_size(32))); /* 4 float64 lanes */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#include <immintrin.h>
#define SD_HAVE_AVX2_X 1
static int sd_avx2 = 0; /* set at import: __builtin_cpu_supports("avx2") */
#define SD_AVX2 __attribute__((target("avx2")))
/* set at import: __builtin_cpu_supports("avx512f") and avx2, unless STRIDED_NO_AVX512 is
   set in the environment; sum_isa() reads and sets it (the tests run both paths) */
static int sd_avx512 = 0;
#define SD_AVX512 __attribute__((target("avx512f")))
#endif

/* The pairwise sum: NumPy's pairwise_sum (numpy/_core/src/umath/loops_utils.h.src,
   what add.reduce runs over a contiguous float32/float64 row), operation for
   operation in the element type, so that a sum is NumPy's bits: below 8 elements
   one running sum; up to 128 eight accumulators over the whole groups of 8, added
   ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the rest in order; above
   128 the two halves (the first n / 2 rounded down to a multiple of 8) summed alike
   and added. rowsq: the same over (a[i] - mean) * (a[i] - mean), each rounded to
   the element type as NumPy's subtract and multiply round them (-std=c11: no fused
   multiply-add). A NaN's payload is not NumPy's for certain (the compiler may
   commute an addition, and x86 returns its first operand's NaN): callers decline
   a NaN result. (NumPy adds its identity, 0, to the value: callers add it.) */
/* NumPy's split of n > 128 elements: the first half rounded down to a multiple of 8 */
static inline Py_ssize_t sd_half(Py_ssize_t n)
{
    Py_ssize_t n2 = n / 2;
    return n2 - n2 % 8;
}
#define SD_SQX(SQ, v) ((SQ) ? ((v) - m) * ((v) - m) : (v))
#define ROW(NAME, T, SQ)                                                                 \
    static T NAME(const T *a, Py_ssize_t n, T m)                                         \
    {                                                                                    \
        if (n > 128) {                                                                   \
            Py_ssize_t n2 = n / 2;                                                       \
            n2 -= n2 % 8;                                                                \
            return NAME(a, n2, m) + NAME(a + n2, n - n2, m);                             \
        }                                                                                \
        T res = 0;                                                                       \
        Py_ssize_t i;                                                                    \
        if (n < 8) {                                                                     \
            for (i = 0; i < n; i++)                                                      \
                res += SD_SQX(SQ, a[i]);                                                 \
            return res;                                                                  \
        }                                                                                \
        T r[8];                                                                          \
        for (int j = 0; j < 8; j++)                                                      \
            r[j] = SD_SQX(SQ, a[j]);                                                     \
        for (i = 8; i < n - (n % 8); i += 8)                                             \
            for (int j = 0; j < 8; j++)                                                  \
                r[j] += SD_SQX(SQ, a[i + j]);                                            \
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));         \
        for (; i < n; i++)                                                               \
            res += SD_SQX(SQ, a[i]);                                                     \
        return res;                                                                      \
    }

#define SD_ROW_T(SFX, T, ...) ROW(leaf_##SFX, T, 0) ROW(leafsq_##SFX, T, 1)
SD_FLOAT_TYPES(SD_ROW_T)

#ifdef SD_HAVE_AVX2_X
/* The same tree on AVX2 (sd_avx2), leaves side by side. NumPy's recursion, but where a
   node's two halves are leaves (or its four quarters are) their eight accumulators run as
   independent vectors (a float32 leaf's eight are one 8-lane vector, a float64 leaf's two
   4-lane ones) in one loop: one leaf at a time waits on the adder's latency, and the
   per-leaf work (the eight accumulators added in NumPy's order, the leftover elements one
   by one) dominates leaves of 64-128 elements. Every addition is the one-leaf-at-a-time
   sum's, on the same values, in the same order (hadd's r1 + r0 is r0 + r1: an addition
   commutes exactly; no fused multiply-add: the target is avx2 alone), so the value is the
   same bits (tests/_csrc/test_sum_leaves.py). Measured (standalone, minima of 60 batches,
   one thread, EPYC): float32 1e4 0.87 -> 0.48 us, 1e5 9.0 -> 6.3 us, 1e6 106 -> 75 us;
   float64 1e4 1.27 -> 1.07 us, 1e6 185 -> 143 us. Every function here is built for AVX2
   (the helpers too): a call from AVX2 code into SSE code without vzeroupper cost 8x. */
#define SD_TAIL(res, p, g, n, XS)                                                          \
    switch ((n) - (g)) { /* the leftover elements (at most 7), in order */                \
    case 7: res += XS((p)[(g)]); (g)++; /* fall through */                                \
    case 6: res += XS((p)[(g)]); (g)++; /* fall through */                                \
    case 5: res += XS((p)[(g)]); (g)++; /* fall through */                                \
    case 4: res += XS((p)[(g)]); (g)++; /* fall through */                                \
    case 3: res += XS((p)[(g)]); (g)++; /* fall through */                                \
    case 2: res += XS((p)[(g)]); (g)++; /* fall through */                                \
    case 1: res += XS((p)[(g)]); (g)++; /* fall through */                                \
    default: break;                                                                       \
    }
#define SD_ID(v) (v)
#define SD_SQ(v) (((v) - m) * ((v) - m))
#define SD_X32(p) (SQ ? ({ __m256 d_ = _mm256_sub_ps(_mm256_loadu_ps(p), M); _mm256_mul_ps(d_, d_); }) \
                      : _mm256_loadu_ps(p))
#define SD_X64(p) (SQ ? ({ __m256d d_ = _mm256_sub_pd(_mm256_loadu_pd(p), M); _mm256_mul_pd(d_, d_); }) \
                      : _mm256_loadu_pd(p))

/* The sums of four float32 leaves' accumulators (one 8-lane vector each), each in NumPy's
   order ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)): hadd's pairs, then the halves. */
SD_AVX2 SD_INLINE void hsum4_f32(__m256 r0, __m256 r1, __m256 r2, __m256 r3, float *s0, float *s1,
                                 float *s2, float *s3)
{
    __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(r0, r1), _mm256_hadd_ps(r2, r3));
    __m128 v = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    *s0 = _mm_cvtss_f32(v), *s1 = _mm_cvtss_f32(_mm_shuffle_ps(v, v, 1));
    *s2 = _mm_cvtss_f32(_mm_shuffle_ps(v, v, 2)), *s3 = _mm_cvtss_f32(_mm_shuffle_ps(v, v, 3));
}
/* The same for four float64 leaves: leaf k's r0..r3 in ak, r4..r7 in bk. */
SD_AVX2 SD_INLINE void hsum4_f64(__m256d a0, __m256d b0, __m256d a1, __m256d b1, __m256d a2, __m256d b2,
                                 __m256d a3, __m256d b3, double *s0, double *s1, double *s2, double *s3)
{
    __m256d h0 = _mm256_hadd_pd(a0, b0), h1 = _mm256_hadd_pd(a1, b1); /* [r01 r45 r23 r67] */
    __m256d h2 = _mm256_hadd_pd(a2, b2), h3 = _mm256_hadd_pd(a3, b3);
    __m256d u01 = _mm256_add_pd(_mm256_permute2f128_pd(h0, h1, 0x20), _mm256_permute2f128_pd(h0, h1, 0x31));
    __m256d u23 = _mm256_add_pd(_mm256_permute2f128_pd(h2, h3, 0x20), _mm256_permute2f128_pd(h2, h3, 0x31));
    __m256d w = _mm256_hadd_pd(u01, u23); /* [leaf0, leaf2, leaf1, leaf3] */
    __m128d lo = _mm256_castpd256_pd128(w), hi = _mm256_extractf128_pd(w, 1);
    *s0 = _mm_cvtsd_f64(lo), *s2 = _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
    *s1 = _mm_cvtsd_f64(hi), *s3 = _mm_cvtsd_f64(_mm_unpackhi_pd(hi, hi));
}
/* two float32 leaves (8 elements or more each): their sums, added left + right; SQ: of (x - m)**2.
   The accumulators are named vectors (arrays of them indexed in loops were kept on the stack). */
SD_AVX2 SD_INLINE float two_f32(const float *p, Py_ssize_t n0, const float *q, Py_ssize_t n1, const int SQ, float m)
{
    const __m256 M = _mm256_set1_ps(m);
    Py_ssize_t g0 = n0 & ~(Py_ssize_t)7, g1 = n1 & ~(Py_ssize_t)7, g = g0 < g1 ? g0 : g1, i;
    __m256 r0 = SD_X32(p), r1 = SD_X32(q);
    for (i = 8; i < g; i += 8) { r0 = _mm256_add_ps(r0, SD_X32(p + i)); r1 = _mm256_add_ps(r1, SD_X32(q + i)); }
    for (; i < g0; i += 8) r0 = _mm256_add_ps(r0, SD_X32(p + i));
    for (i = g; i < g1; i += 8) r1 = _mm256_add_ps(r1, SD_X32(q + i));
    __m256 h = _mm256_hadd_ps(r0, r1);          /* [a01 a23 b01 b23 a45 a67 b45 b67] */
    h = _mm256_hadd_ps(h, h);                    /* [a0123 b0123 . . a4567 b4567 . .] */
    __m128 v = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    float s0 = _mm_cvtss_f32(v), s1 = _mm_cvtss_f32(_mm_shuffle_ps(v, v, 1));
    if (SQ) { SD_TAIL(s0, p, g0, n0, SD_SQ) SD_TAIL(s1, q, g1, n1, SD_SQ) }
    else { SD_TAIL(s0, p, g0, n0, SD_ID) SD_TAIL(s1, q, g1, n1, SD_ID) }
    return s0 + s1;
}
#define SD_X64(p) (SQ ? ({ __m256d d_ = _mm256_sub_pd(_mm256_loadu_pd(p), M); _mm256_mul_pd(d_, d_); }) : _mm256_loadu_pd(p))
/* two float64 leaves: each leaf's r0..r3 (a) and r4..r7 (b) */
SD_AVX2 SD_INLINE double two_f64(const double *p, Py_ssize_t n0, const double *q, Py_ssize_t n1, const int SQ, double m)
{
    const __m256d M = _mm256_set1_pd(m);
    Py_ssize_t g0 = n0 & ~(Py_ssize_t)7, g1 = n1 & ~(Py_ssize_t)7, g = g0 < g1 ? g0 : g1, i;
    __m256d a0 = SD_X64(p), b0 = SD_X64(p + 4), a1 = SD_X64(q), b1 = SD_X64(q + 4);
    for (i = 8; i < g; i += 8) {
        a0 = _mm256_add_pd(a0, SD_X64(p + i)); b0 = _mm256_add_pd(b0, SD_X64(p + i + 4));
        a1 = _mm256_add_pd(a1, SD_X64(q + i)); b1 = _mm256_add_pd(b1, SD_X64(q + i + 4));
    }
    for (; i < g0; i += 8) { a0 = _mm256_add_pd(a0, SD_X64(p + i)); b0 = _mm256_add_pd(b0, SD_X64(p + i + 4)); }
    for (i = g; i < g1; i += 8) { a1 = _mm256_add_pd(a1, SD_X64(q + i)); b1 = _mm256_add_pd(b1, SD_X64(q + i + 4)); }
    __m256d h0 = _mm256_hadd_pd(a0, b0), h1 = _mm256_hadd_pd(a1, b1); /* [r01 r45 r23 r67] */
    __m256d u = _mm256_add_pd(_mm256_permute2f128_pd(h0, h1, 0x20), _mm256_permute2f128_pd(h0, h1, 0x31));
    __m256d w = _mm256_hadd_pd(u, u);           /* [a, a, b, b] */
    double s0 = _mm256_cvtsd_f64(w), s1 = _mm_cvtsd_f64(_mm256_extractf128_pd(w, 1));
    if (SQ) { SD_TAIL(s0, p, g0, n0, SD_SQ) SD_TAIL(s1, q, g1, n1, SD_SQ) }
    else { SD_TAIL(s0, p, g0, n0, SD_ID) SD_TAIL(s1, q, g1, n1, SD_ID) }
    return s0 + s1;
}
/* four float32 leaves, ((l0 + l1) + (l2 + l3)): hadd(hadd(r0, r1), hadd(r2, r3)) then the halves added */
SD_AVX2 SD_INLINE float four_f32(const float *p0, Py_ssize_t n0, const float *p1, Py_ssize_t n1, const float *p2, Py_ssize_t n2, const float *p3, Py_ssize_t n3, const int SQ, float m)
{
    const __m256 M = _mm256_set1_ps(m);
    Py_ssize_t g0 = n0 & ~(Py_ssize_t)7, g1 = n1 & ~(Py_ssize_t)7, g2 = n2 & ~(Py_ssize_t)7, g3 = n3 & ~(Py_ssize_t)7, i;
    Py_ssize_t g = g0 < g1 ? g0 : g1; g = g < g2 ? g : g2; g = g < g3 ? g : g3;
    __m256 r0 = SD_X32(p0), r1 = SD_X32(p1), r2 = SD_X32(p2), r3 = SD_X32(p3);
    for (i = 8; i < g; i += 8) {
        r0 = _mm256_add_ps(r0, SD_X32(p0 + i)); r1 = _mm256_add_ps(r1, SD_X32(p1 + i));
        r2 = _mm256_add_ps(r2, SD_X32(p2 + i)); r3 = _mm256_add_ps(r3, SD_X32(p3 + i));
    }
    for (i = g; i < g0; i += 8) r0 = _mm256_add_ps(r0, SD_X32(p0 + i));
    for (i = g; i < g1; i += 8) r1 = _mm256_add_ps(r1, SD_X32(p1 + i));
    for (i = g; i < g2; i += 8) r2 = _mm256_add_ps(r2, SD_X32(p2 + i));
    for (i = g; i < g3; i += 8) r3 = _mm256_add_ps(r3, SD_X32(p3 + i));
    float s0, s1, s2, s3;
    hsum4_f32(r0, r1, r2, r3, &s0, &s1, &s2, &s3);
    if (SQ) { SD_TAIL(s0, p0, g0, n0, SD_SQ) SD_TAIL(s1, p1, g1, n1, SD_SQ) SD_TAIL(s2, p2, g2, n2, SD_SQ) SD_TAIL(s3, p3, g3, n3, SD_SQ) }
    else { SD_TAIL(s0, p0, g0, n0, SD_ID) SD_TAIL(s1, p1, g1, n1, SD_ID) SD_TAIL(s2, p2, g2, n2, SD_ID) SD_TAIL(s3, p3, g3, n3, SD_ID) }
    return (s0 + s1) + (s2 + s3);
}
/* four float64 leaves */
SD_AVX2 SD_INLINE double four_f64(const double *p0, Py_ssize_t n0, const double *p1, Py_ssize_t n1, const double *p2, Py_ssize_t n2, const double *p3, Py_ssize_t n3, const int SQ, double m)
{
    const __m256d M = _mm256_set1_pd(m);
    Py_ssize_t g0 = n0 & ~(Py_ssize_t)7, g1 = n1 & ~(Py_ssize_t)7, g2 = n2 & ~(Py_ssize_t)7, g3 = n3 & ~(Py_ssize_t)7, i;
    Py_ssize_t g = g0 < g1 ? g0 : g1; g = g < g2 ? g : g2; g = g < g3 ? g : g3;
    __m256d a0 = SD_X64(p0), b0 = SD_X64(p0 + 4), a1 = SD_X64(p1), b1 = SD_X64(p1 + 4);
    __m256d a2 = SD_X64(p2), b2 = SD_X64(p2 + 4), a3 = SD_X64(p3), b3 = SD_X64(p3 + 4);
    for (i = 8; i < g; i += 8) {
        a0 = _mm256_add_pd(a0, SD_X64(p0 + i)); b0 = _mm256_add_pd(b0, SD_X64(p0 + i + 4));
        a1 = _mm256_add_pd(a1, SD_X64(p1 + i)); b1 = _mm256_add_pd(b1, SD_X64(p1 + i + 4));
        a2 = _mm256_add_pd(a2, SD_X64(p2 + i)); b2 = _mm256_add_pd(b2, SD_X64(p2 + i + 4));
        a3 = _mm256_add_pd(a3, SD_X64(p3 + i)); b3 = _mm256_add_pd(b3, SD_X64(p3 + i + 4));
    }
    for (i = g; i < g0; i += 8) { a0 = _mm256_add_pd(a0, SD_X64(p0 + i)); b0 = _mm256_add_pd(b0, SD_X64(p0 + i + 4)); }
    for (i = g; i < g1; i += 8) { a1 = _mm256_add_pd(a1, SD_X64(p1 + i)); b1 = _mm256_add_pd(b1, SD_X64(p1 + i + 4)); }
    for (i = g; i < g2; i += 8) { a2 = _mm256_add_pd(a2, SD_X64(p2 + i)); b2 = _mm256_add_pd(b2, SD_X64(p2 + i + 4)); }
    for (i = g; i < g3; i += 8) { a3 = _mm256_add_pd(a3, SD_X64(p3 + i)); b3 = _mm256_add_pd(b3, SD_X64(p3 + i + 4)); }
    double s0, s1, s2, s3;
    hsum4_f64(a0, b0, a1, b1, a2, b2, a3, b3, &s0, &s1, &s2, &s3);
    if (SQ) { SD_TAIL(s0, p0, g0, n0, SD_SQ) SD_TAIL(s1, p1, g1, n1, SD_SQ) SD_TAIL(s2, p2, g2, n2, SD_SQ) SD_TAIL(s3, p3, g3, n3, SD_SQ) }
    else { SD_TAIL(s0, p0, g0, n0, SD_ID) SD_TAIL(s1, p1, g1, n1, SD_ID) SD_TAIL(s2, p2, g2, n2, SD_ID) SD_TAIL(s3, p3, g3, n3, SD_ID) }
    return (s0 + s1) + (s2 + s3);
}
/* Eight float64 leaves side by side (issue 38, round 7): a node whose eight
   great-grandchildren are its leaves (sd_eight) as eight leaves' accumulators in one loop,
   sixteen vectors (a float64 leaf's eight accumulators are two 4-lane vectors): all the
   vector registers AVX2 has, each loaded value folded into its addition. Each leaf's sum
   is the one-leaf-at-a-time sum's, addition for addition, the eight sums then added
   ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) as the tree adds them: the same bits.
   Only the last leaf of a whole tree can have leftover elements (a node of a multiple of
   8 elements splits into two of multiples of 8). Measured (standalone C, rdtsc, the
   medians of 301 paired runs, eight / four leaves side by side, one buffer in cache):
   float64 3e4-1.3e5 elements 0.91-0.99, so the in-cache float64 tree (pwt_f64) takes it;
   the prefetching tree (1e6: 1.05, 5e6: 1.12) and the squared deviations (registers for
   the mean and the differences) keep four. float32 was tried too (eight 8-lane chains and
   one transposing hadd tree for the eight leaves): 3e4 1.08-1.12, 1e5 0.98-1.04, 1e6 1.05,
   with prefetch 1.33-1.45: the sum from L2 and beyond is bound by the loads' streams, not
   the adder's latency (a flat single-stream sum runs 1.2-1.35x faster than either tree;
   the tree's leaves are NumPy's, 512-byte streams), so float32 stays at four. (sum12, on
   an Ice Lake Xeon: eight float32 leaves in the recursion again gained nothing, but as the
   nodes of the flat tree below they do; with AVX-512, eightz_f64 replaces this.) */
/* Whether a node of n elements is a node of eight leaves (every quarter more than 128
   elements, every eighth at most 128; a right half is never shorter than its left): then
   e[0..7] its leaves. Such nodes have 544 to 1024 elements. */
SD_INLINE int sd_eight(Py_ssize_t n, Py_ssize_t *e)
{
    Py_ssize_t n2 = sd_half(n), n3 = n - n2;
    Py_ssize_t q0 = sd_half(n2), q1 = n2 - q0, q2 = sd_half(n3), q3 = n3 - q2;
    e[0] = sd_half(q0), e[1] = q0 - e[0], e[2] = sd_half(q1), e[3] = q1 - e[2];
    e[4] = sd_half(q2), e[5] = q2 - e[4], e[6] = sd_half(q3), e[7] = q3 - e[6];
    return q0 > 128 && q2 > 128 && e[1] <= 128 && e[3] <= 128 && e[5] <= 128 && e[7] <= 128;
}
#define SD_MIN(x, y) ((x) < (y) ? (x) : (y))
/* eight float64 leaves (sums only: see above): leaf k's r0..r3 in ak, r4..r7 in bk */
/* The eight leaves' starts p0..p7 (e: their lengths), g7 the last one's whole groups of 8
   and gm the fewest whole groups of any (only the last leaf of a whole tree has leftover
   elements: a node of a multiple of 8 elements splits into two of multiples of 8). */
#define SD_EIGHT_PTRS(T)                                                                   \
    const Py_ssize_t e0 = e[0], e1 = e[1], e2 = e[2], e3 = e[3], e4 = e[4], e5 = e[5], e6 = e[6], e7 = e[7]; \
    const T *p0 = a, *p1 = p0 + e0, *p2 = p1 + e1, *p3 = p2 + e2, *p4 = p3 + e3,          \
            *p5 = p4 + e4, *p6 = p5 + e5, *p7 = p6 + e6;                                   \
    const Py_ssize_t g7 = e7 & ~(Py_ssize_t)7;                                             \
    const Py_ssize_t gm = SD_MIN(SD_MIN(SD_MIN(e0, e1), SD_MIN(e2, e3)), SD_MIN(SD_MIN(e4, e5), SD_MIN(e6, g7))); \
    Py_ssize_t i;                                                                          \
    (void)m;
/* The eight leaves' sums l[0..7] added as the tree adds them, the last leaf's leftover
   elements first (in order) */
#define SD_EIGHT_END(T, l)                                                                 \
    i = g7;                                                                                \
    SD_TAIL(l[7], p7, i, e7, SD_ID)                                                        \
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
/* The same over the eight leaves' (r0..r7) vectors R0..R7 of one vector type (ADD, LOAD;
   K: the elements a vector holds, two vectors per float64 leaf under AVX2): each leaf's
   first group of 8 loaded, the later groups added in order, all eight leaves a group at a
   time up to gm, then each leaf's remaining whole groups. */
#define SD_EIGHT_LOOP(V, ADD, LOAD, K)                                                     \
    V R0[8 / K], R1[8 / K], R2[8 / K], R3[8 / K], R4[8 / K], R5[8 / K], R6[8 / K], R7[8 / K]; \
    for (int k_ = 0; k_ < 8 / K; k_++)                                                     \
        R0[k_] = LOAD(p0 + K * k_), R1[k_] = LOAD(p1 + K * k_), R2[k_] = LOAD(p2 + K * k_), \
        R3[k_] = LOAD(p3 + K * k_), R4[k_] = LOAD(p4 + K * k_), R5[k_] = LOAD(p5 + K * k_), \
        R6[k_] = LOAD(p6 + K * k_), R7[k_] = LOAD(p7 + K * k_);                            \
    for (i = 8; i < gm; i += 8)                                                            \
        for (int k_ = 0; k_ < 8 / K; k_++) {                                               \
            R0[k_] = ADD(R0[k_], LOAD(p0 + i + K * k_)); R1[k_] = ADD(R1[k_], LOAD(p1 + i + K * k_)); \
            R2[k_] = ADD(R2[k_], LOAD(p2 + i + K * k_)); R3[k_] = ADD(R3[k_], LOAD(p3 + i + K * k_)); \
            R4[k_] = ADD(R4[k_], LOAD(p4 + i + K * k_)); R5[k_] = ADD(R5[k_], LOAD(p5 + i + K * k_)); \
            R6[k_] = ADD(R6[k_], LOAD(p6 + i + K * k_)); R7[k_] = ADD(R7[k_], LOAD(p7 + i + K * k_)); \
        }                                                                                  \
    SD_EIGHT_REST(R0, p0, e0, ADD, LOAD, K) SD_EIGHT_REST(R1, p1, e1, ADD, LOAD, K)        \
    SD_EIGHT_REST(R2, p2, e2, ADD, LOAD, K) SD_EIGHT_REST(R3, p3, e3, ADD, LOAD, K)        \
    SD_EIGHT_REST(R4, p4, e4, ADD, LOAD, K) SD_EIGHT_REST(R5, p5, e5, ADD, LOAD, K)        \
    SD_EIGHT_REST(R6, p6, e6, ADD, LOAD, K) SD_EIGHT_REST(R7, p7, g7, ADD, LOAD, K)
#define SD_EIGHT_REST(R, p, ek, ADD, LOAD, K)                                              \
    for (i = gm; i < (ek); i += 8)                                                         \
        for (int k_ = 0; k_ < 8 / K; k_++)                                                 \
            R[k_] = ADD(R[k_], LOAD((p) + i + K * k_));
/* The eight leaves' accumulator vectors R0..R7 (one per leaf, of type V: ADD) from aligned
   loads ALOAD, each group of the leaf cut by CUT(block, next block) (K: the elements a
   vector holds): a leaf's loads start sh elements before it (q_k) and Lk is its next block. */
#define SD_EIGHT_CUT(T, V, ADD, ALOAD, CUT, K)                                             \
    const T *q0 = p0 - sh, *q1 = p1 - sh, *q2 = p2 - sh, *q3 = p3 - sh, *q4 = p4 - sh,     \
            *q5 = p5 - sh, *q6 = p6 - sh, *q7 = p7 - sh;                                   \
    V L0 = ALOAD(q0 + K), L1 = ALOAD(q1 + K), L2 = ALOAD(q2 + K), L3 = ALOAD(q3 + K),      \
      L4 = ALOAD(q4 + K), L5 = ALOAD(q5 + K), L6 = ALOAD(q6 + K), L7 = ALOAD(q7 + K);      \
    V R0 = CUT(ALOAD(q0), L0), R1 = CUT(ALOAD(q1), L1), R2 = CUT(ALOAD(q2), L2),           \
      R3 = CUT(ALOAD(q3), L3), R4 = CUT(ALOAD(q4), L4), R5 = CUT(ALOAD(q5), L5),           \
      R6 = CUT(ALOAD(q6), L6), R7 = CUT(ALOAD(q7), L7);                                    \
    for (i = 8; i < gm; i += 8) {                                                          \
        SD_CSTEP(0, ADD, ALOAD, CUT, K) SD_CSTEP(1, ADD, ALOAD, CUT, K)                    \
        SD_CSTEP(2, ADD, ALOAD, CUT, K) SD_CSTEP(3, ADD, ALOAD, CUT, K)                    \
        SD_CSTEP(4, ADD, ALOAD, CUT, K) SD_CSTEP(5, ADD, ALOAD, CUT, K)                    \
        SD_CSTEP(6, ADD, ALOAD, CUT, K) SD_CSTEP(7, ADD, ALOAD, CUT, K)                    \
    }                                                                                      \
    SD_CREST(0, e0, ADD, ALOAD, CUT, K) SD_CREST(1, e1, ADD, ALOAD, CUT, K)                \
    SD_CREST(2, e2, ADD, ALOAD, CUT, K) SD_CREST(3, e3, ADD, ALOAD, CUT, K)                \
    SD_CREST(4, e4, ADD, ALOAD, CUT, K) SD_CREST(5, e5, ADD, ALOAD, CUT, K)                \
    SD_CREST(6, e6, ADD, ALOAD, CUT, K) SD_CREST(7, g7, ADD, ALOAD, CUT, K)
#define SD_CSTEP(k, ADD, ALOAD, CUT, K)                                                    \
    {                                                                                      \
        __typeof__(L##k) n_ = ALOAD(q##k + i + K);                                         \
        R##k = ADD(R##k, CUT(L##k, n_));                                                   \
        L##k = n_;                                                                         \
    }
#define SD_CREST(k, ek, ADD, ALOAD, CUT, K)                                                \
    for (i = gm; i < (ek); i += 8)                                                         \
        SD_CSTEP(k, ADD, ALOAD, CUT, K)
/* eight float64 leaves (sums only: see above): leaf k's r0..r3 in Rk[0], r4..r7 in Rk[1] */
SD_AVX2 SD_INLINE double eight_f64(const double *a, const Py_ssize_t *e, double m)
{
    SD_EIGHT_PTRS(double)
#define SD_L(p) _mm256_loadu_pd(p)
    __m256d a0 = SD_L(p0), b0 = SD_L(p0 + 4), a1 = SD_L(p1), b1 = SD_L(p1 + 4);
    __m256d a2 = SD_L(p2), b2 = SD_L(p2 + 4), a3 = SD_L(p3), b3 = SD_L(p3 + 4);
    __m256d a4 = SD_L(p4), b4 = SD_L(p4 + 4), a5 = SD_L(p5), b5 = SD_L(p5 + 4);
    __m256d a6 = SD_L(p6), b6 = SD_L(p6 + 4), a7 = SD_L(p7), b7 = SD_L(p7 + 4);
    for (i = 8; i < gm; i += 8) {
        a0 = _mm256_add_pd(a0, SD_L(p0 + i)); b0 = _mm256_add_pd(b0, SD_L(p0 + i + 4));
        a1 = _mm256_add_pd(a1, SD_L(p1 + i)); b1 = _mm256_add_pd(b1, SD_L(p1 + i + 4));
        a2 = _mm256_add_pd(a2, SD_L(p2 + i)); b2 = _mm256_add_pd(b2, SD_L(p2 + i + 4));
        a3 = _mm256_add_pd(a3, SD_L(p3 + i)); b3 = _mm256_add_pd(b3, SD_L(p3 + i + 4));
        a4 = _mm256_add_pd(a4, SD_L(p4 + i)); b4 = _mm256_add_pd(b4, SD_L(p4 + i + 4));
        a5 = _mm256_add_pd(a5, SD_L(p5 + i)); b5 = _mm256_add_pd(b5, SD_L(p5 + i + 4));
        a6 = _mm256_add_pd(a6, SD_L(p6 + i)); b6 = _mm256_add_pd(b6, SD_L(p6 + i + 4));
        a7 = _mm256_add_pd(a7, SD_L(p7 + i)); b7 = _mm256_add_pd(b7, SD_L(p7 + i + 4));
    }
#define SD_REST64(k, ek)                                                                   \
    for (i = gm; i < ek; i += 8) {                                                         \
        a##k = _mm256_add_pd(a##k, SD_L(p##k + i)); b##k = _mm256_add_pd(b##k, SD_L(p##k + i + 4)); \
    }
    SD_REST64(0, e0) SD_REST64(1, e1) SD_REST64(2, e2) SD_REST64(3, e3)
    SD_REST64(4, e4) SD_REST64(5, e5) SD_REST64(6, e6) SD_REST64(7, g7)
#undef SD_REST64
#undef SD_L
    double l[8];
    hsum4_f64(a0, b0, a1, b1, a2, b2, a3, b3, &l[0], &l[1], &l[2], &l[3]);
    hsum4_f64(a4, b4, a5, b5, a6, b6, a7, b7, &l[4], &l[5], &l[6], &l[7]);
    SD_EIGHT_END(double, l)
}
/* eight float32 leaves' accumulators (leaf k's r0..r7 in Rk): the node's sum, their sums
   [l0..l7] by hadd pairs ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) for all eight
   at once, the last leaf's leftover elements (p7[g7..e7)) added to its sum first */
SD_AVX2 SD_INLINE float sd_end8_f32(__m256 R0, __m256 R1, __m256 R2, __m256 R3, __m256 R4, __m256 R5, __m256 R6,
                                    __m256 R7, const float *p7, Py_ssize_t g7, Py_ssize_t e7)
{
    __m256 A = _mm256_hadd_ps(_mm256_hadd_ps(R0, R1), _mm256_hadd_ps(R2, R3)); /* [l0a..l3a | l0b..l3b] */
    __m256 B = _mm256_hadd_ps(_mm256_hadd_ps(R4, R5), _mm256_hadd_ps(R6, R7)); /* a: r0..r3, b: r4..r7 */
    __m256 v = _mm256_add_ps(_mm256_permute2f128_ps(A, B, 0x20), _mm256_permute2f128_ps(A, B, 0x31)); /* [l0..l7] */
    if (g7 == e7) { /* ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) */
        __m256 h = _mm256_hadd_ps(v, v);         /* [l01 l23 . . | l45 l67 . .] */
        h = _mm256_hadd_ps(h, h);                /* [l0123 . . . | l4567 . . .] */
        return _mm_cvtss_f32(_mm_add_ss(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
    }
    float l[8];
    Py_ssize_t i = g7;
    _mm256_storeu_ps(l, v);
    SD_TAIL(l[7], p7, i, e7, SD_ID)
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}
/* Eight float32 leaves side by side (sum12, issue 38): leaf k's eight accumulators in one
   8-lane vector Rk[0]. A node of the flat tree below (as a hook of the recursion it gained
   nothing: see there). */
SD_AVX2 SD_INLINE float eight_f32(const float *a, const Py_ssize_t *e, float m)
{
    SD_EIGHT_PTRS(float)
    SD_EIGHT_LOOP(__m256, _mm256_add_ps, _mm256_loadu_ps, 8)
    return sd_end8_f32(R0[0], R1[0], R2[0], R3[0], R4[0], R5[0], R6[0], R7[0], p7, g7, e7);
}
/* eight_f32 for rows 16 bytes past a 32-byte boundary: all loads aligned. A leaf's groups
   of 8 are summed with its accumulators' halves swapped, Qk = [r4..r7 | r0..r3]: the
   aligned 8 elements from 4 past group g's start are [g's elements 4..7 | group g+1's
   0..3], so Qk starts as [group 0's 4..7 | group 0's 0..3 + group 1's 0..3] (x + y is
   y + x, bit for bit), adds those aligned vectors from group 1 on in order, and for the
   last group only their low half (a blend: the high half is the next leaf's). Every
   accumulator gets NumPy's additions in NumPy's order. Callers pass only nodes inside a
   row (all whole groups; no load before the row or past it): the flat tree's EDGE. */
SD_AVX2 SD_INLINE float eighta_f32(const float *a, const Py_ssize_t *e, float m)
{
    SD_EIGHT_PTRS(float)
#define SD_QI(k)                                                                           \
    __m256 v##k = _mm256_load_ps(p##k + 4);                                                \
    __m256 Q##k = _mm256_insertf128_ps(v##k, _mm_add_ps(_mm256_extractf128_ps(v##k, 1), _mm_load_ps(p##k)), 1);
    SD_QI(0) SD_QI(1) SD_QI(2) SD_QI(3) SD_QI(4) SD_QI(5) SD_QI(6) SD_QI(7)
#undef SD_QI
#define SD_QA(k, j) Q##k = _mm256_add_ps(Q##k, _mm256_load_ps(p##k + (j) + 4));
    for (i = 8; i < gm - 8; i += 8) {
        SD_QA(0, i) SD_QA(1, i) SD_QA(2, i) SD_QA(3, i) SD_QA(4, i) SD_QA(5, i) SD_QA(6, i) SD_QA(7, i)
    }
#define SD_QE(k, ek)                                                                       \
    {                                                                                      \
        Py_ssize_t j = i;                                                                  \
        for (; j < (ek) - 8; j += 8)                                                       \
            SD_QA(k, j)                                                                    \
        Q##k = _mm256_blend_ps(Q##k, _mm256_add_ps(Q##k, _mm256_load_ps(p##k + j + 4)), 0x0f); \
        Q##k = _mm256_permute2f128_ps(Q##k, Q##k, 0x01);                                   \
    }
    SD_QE(0, e0) SD_QE(1, e1) SD_QE(2, e2) SD_QE(3, e3) SD_QE(4, e4) SD_QE(5, e5) SD_QE(6, e6) SD_QE(7, g7)
#undef SD_QE
#undef SD_QA
    return sd_end8_f32(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, p7, g7, e7);
}
/* Eight float64 leaves on AVX-512 (sum12, issue 38; sd_avx512): a float64 leaf's eight
   accumulators are one 8-lane vector, so each group of 8 is one load and one addition (two
   of each under AVX2), and the eight leaves' sums [l0..l7] come out of one transposing tree
   of unpacks and 128-bit shuffles, each pair added in NumPy's order. The leaves start a
   multiple of 64 bytes apart, so all are misaligned alike, by sh elements (a row's start):
   a 64-byte load across two cache lines cost 2x (21 against 42 bytes a cycle), so the loads
   are aligned ones and each group is cut from two neighbours (vpermt2pd), the later one
   kept for the next group. A leaf's loads then reach up to 7 elements before its start and
   past its end: callers (the flat tree) never pass a row's first or last node. */
SD_AVX512 SD_INLINE __m512d sd_cut8(__m512d lo, __m512d hi, __m512i idx, Py_ssize_t sh)
{
    return sh ? _mm512_permutex2var_pd(lo, idx, hi) : lo;
}
SD_AVX512 SD_INLINE double eightz_f64(const double *a, const Py_ssize_t *e, double m)
{
    SD_EIGHT_PTRS(double)
    const Py_ssize_t sh = (Py_ssize_t)(((uintptr_t)a >> 3) & 7);
    const __m512i idx = _mm512_add_epi64(_mm512_set1_epi64(sh), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
#define SD_CUTZ(lo, hi) sd_cut8(lo, hi, idx, sh)
    SD_EIGHT_CUT(double, __m512d, _mm512_add_pd, _mm512_load_pd, SD_CUTZ, 8)
#undef SD_CUTZ
    /* [a01 b01 a23 b23 a45 b45 a67 b67] for leaves a, b (rj: a's accumulator j) */
    __m512d X = _mm512_add_pd(_mm512_unpacklo_pd(R0, R1), _mm512_unpackhi_pd(R0, R1));
    __m512d Y = _mm512_add_pd(_mm512_unpacklo_pd(R2, R3), _mm512_unpackhi_pd(R2, R3));
    __m512d Z = _mm512_add_pd(_mm512_unpacklo_pd(R4, R5), _mm512_unpackhi_pd(R4, R5));
    __m512d W = _mm512_add_pd(_mm512_unpacklo_pd(R6, R7), _mm512_unpackhi_pd(R6, R7));
    /* [a0123 b0123 a4567 b4567 c0123 d0123 c4567 d4567] */
    __m512d XY = _mm512_add_pd(_mm512_shuffle_f64x2(X, Y, 0x88), _mm512_shuffle_f64x2(X, Y, 0xdd));
    __m512d ZW = _mm512_add_pd(_mm512_shuffle_f64x2(Z, W, 0x88), _mm512_shuffle_f64x2(Z, W, 0xdd));
    /* [l0 l1 l2 l3 l4 l5 l6 l7] */
    __m512d v = _mm512_add_pd(_mm512_shuffle_f64x2(XY, ZW, 0x88), _mm512_shuffle_f64x2(XY, ZW, 0xdd));
    if (g7 == e7) {
        __m256d h = _mm256_hadd_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1)); /* [l01 l45 l23 l67] */
        __m128d q = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));     /* [l0123 l4567] */
        return _mm_cvtsd_f64(_mm_add_sd(q, _mm_unpackhi_pd(q, q)));
    }
    double l[8];
    _mm512_storeu_pd(l, v);
    SD_EIGHT_END(double, l)
}
/* one leaf as ROW's (built for AVX2: called from the tree below) */
#define SD_ONE(NAME, T, XS)                                                                \
    SD_AVX2 SD_INLINE T NAME(const T *a, Py_ssize_t n, T m)                                \
    {                                                                                      \
        T res = 0;                                                                         \
        Py_ssize_t i;                                                                      \
        if (n < 8) {                                                                       \
            for (i = 0; i < n; i++)                                                        \
                res += XS(a[i]);                                                           \
            return res;                                                                    \
        }                                                                                  \
        T r[8];                                                                            \
        for (int j = 0; j < 8; j++)                                                        \
            r[j] = XS(a[j]);                                                               \
        for (i = 8; i < n - (n % 8); i += 8)                                               \
            for (int j = 0; j < 8; j++)                                                    \
                r[j] += XS(a[i + j]);                                                      \
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));           \
        for (; i < n; i++)                                                                 \
            res += XS(a[i]);                                                               \
        return res;                                                                        \
    }
/* NumPy's recursion; a node of eight leaves (HOOK: the in-cache float64 sum only), of two
   nodes of two leaves each, or of two leaves, summed by eight_/four_/two_ (the leaves' sums
   then added as the tree adds them); irregular nodes (some quarters leaves, some not) fall
   through to the smaller ones. PF: the prefetching
   twin (pwtp_*), for data streamed from beyond L2: before each node of leaves is summed,
   the bytes SD_PF_AHEAD past it are prefetched, one instruction per 64-byte line (the
   side-by-side streams are 256-1024 bytes apart and short: the hardware prefetcher
   alone fell behind, most for float64). A prefetch changes no value. */
#define SD_PF_AHEAD 4096
#define SD_PREFETCH(a, n)                                                                  \
    do {                                                                                   \
        const char *b_ = (const char *)(a) + SD_PF_AHEAD;                                  \
        const char *e_ = (const char *)((a) + (n)) + SD_PF_AHEAD;                          \
        for (; b_ < e_; b_ += 64)                                                          \
            _mm_prefetch(b_, _MM_HINT_T0);                                                 \
    } while (0)
/* (HOOK: a node of eight leaves' kernel, tried first where a variant has one) */
#define SD_NO_EIGHT
#define SD_EIGHT_F64                                                                       \
    {                                                                                      \
        Py_ssize_t e8_[8];                                                                 \
        if (n <= 1024 && n > 512 && sd_eight(n, e8_))                                      \
            return eight_f64(a, e8_, m);                                                   \
    }
#define SD_PWT(NAME, ONE, SFX, T, SQ, XS, PF, HOOK)                                        \
    SD_AVX2 static T NAME(const T *a, Py_ssize_t n, T m)                                   \
    {                                                                                      \
        if (n <= 128)                                                                      \
            return ONE(a, n, m);                                                           \
        HOOK                                                                               \
        Py_ssize_t n2 = sd_half(n), n3 = n - n2;                                           \
        if (n3 <= 128) {                                                                   \
            if (PF)                                                                        \
                SD_PREFETCH(a, n);                                                         \
            return two_##SFX(a, n2, a + n2, n3, SQ, m);                                    \
        }                                                                                  \
        Py_ssize_t h2 = sd_half(n2), h3 = sd_half(n3);                                     \
        if (n2 > 128 && n2 - h2 <= 128 && n3 - h3 <= 128) {                                \
            if (PF)                                                                        \
                SD_PREFETCH(a, n);                                                         \
            return four_##SFX(a, h2, a + h2, n2 - h2, a + n2, h3, a + n2 + h3, n3 - h3, SQ, m); \
        }                                                                                  \
        T l = NAME(a, n2, m);                                                              \
        T r = NAME(a + n2, n3, m);                                                         \
        return l + r;                                                                      \
    }
SD_ONE(pwone_f32, float, SD_ID)
SD_ONE(pwone_f64, double, SD_ID)
SD_ONE(pwonesq_f32, float, SD_SQ)
SD_ONE(pwonesq_f64, double, SD_SQ)
SD_PWT(pwt_f32, pwone_f32, f32, float, 0, SD_ID, 0, SD_NO_EIGHT)
SD_PWT(pwt_f64, pwone_f64, f64, double, 0, SD_ID, 0, SD_EIGHT_F64)
SD_PWT(pwtsq_f32, pwonesq_f32, f32, float, 1, SD_SQ, 0, SD_NO_EIGHT)
SD_PWT(pwtsq_f64, pwonesq_f64, f64, double, 1, SD_SQ, 0, SD_NO_EIGHT)
SD_PWT(pwtp_f32, pwone_f32, f32, float, 0, SD_ID, 1, SD_NO_EIGHT)
SD_PWT(pwtp_f64, pwone_f64, f64, double, 0, SD_ID, 1, SD_NO_EIGHT)
SD_PWT(pwtpsq_f32, pwonesq_f32, f32, float, 1, SD_SQ, 1, SD_NO_EIGHT)
SD_PWT(pwtpsq_f64, pwonesq_f64, f64, double, 1, SD_SQ, 1, SD_NO_EIGHT)
/* The flat tree (sum12, issue 38): NumPy's tree over n > 1024 elements cut at the depth D
   where its nodes first have at most SD_NODE_MAX (1024) elements; those 2^D nodes summed
   one after another in a loop, each by NODE (a node of eight leaves, sd_eight) or else by
   the recursion REC, and their sums added as the tree adds them: a node's sum waits in
   ss[d] for its right sibling's (a binary counter over the nodes' index j: a right child
   at every level where j has a 1). Every node above depth D has more than 1009 elements
   (a depth's nodes differ by at most 15 elements), so NumPy splits all of them, and the
   depth-D nodes are the tree's own: each node's additions are NumPy's, the nodes' sums are
   added in the tree's order, the same bits. sz[d]: the path's node at depth d; rs[d]: its
   right sibling's size. A node's layout (its leaves) is cached for the last two sizes (a
   depth's nodes have at most three). The recursion spent as much on reaching each node of
   leaves (calls, checks at every level, the kernel's setup) as on its additions: flat,
   float32 nodes of eight leaves ran 1.08-1.18x faster than the recursion with four
   (standalone C, rdtsc, 60000-200000 elements in L1/L2; as a hook of the recursion eight
   leaves gained nothing). */
#define SD_NODE_MAX 1024
#define SD_FLAT(ATTR, NAME, T, NODE, REC, EDGE)                                            \
    ATTR static T NAME(const T *a, Py_ssize_t n)                                           \
    {                                                                                      \
        Py_ssize_t sz[64], rs[64], ce[2][8], cs[2] = {-1, -1};                             \
        int ck[2] = {0, 0}, D = 0, slot = 0;                                               \
        T ss[64];                                                                          \
        for (Py_ssize_t r = n; r > SD_NODE_MAX; r -= sd_half(r))                           \
            D++;                                                                           \
        sz[0] = n;                                                                         \
        for (int d = 0; d < D; d++)                                                        \
            sz[d + 1] = sd_half(sz[d]), rs[d + 1] = sz[d] - sz[d + 1];                     \
        Py_ssize_t off = 0;                                                                \
        for (Py_ssize_t j = 0;; j++) {                                                     \
            const Py_ssize_t S = sz[D];                                                    \
            int c = S == cs[0] ? 0 : S == cs[1] ? 1 : -1;                                  \
            if (c < 0) {                                                                   \
                c = slot, slot ^= 1, cs[c] = S;                                            \
                ck[c] = sd_eight(S, ce[c]);                                                \
            }                                                                              \
            T v = ck[c] && (!(EDGE) || (j && off + S < n)) ? NODE(a + off, ce[c], 0)       \
                                                           : REC(a + off, S, 0);           \
            off += S;                                                                      \
            int d = D;                                                                     \
            for (Py_ssize_t k = j; k & 1; k >>= 1)                                         \
                v = ss[d--] + v;                                                           \
            if (d == 0)                                                                    \
                return v;                                                                  \
            ss[d] = v, sz[d] = rs[d];                                                      \
            for (; d < D; d++)                                                             \
                sz[d + 1] = sd_half(sz[d]), rs[d + 1] = sz[d] - sz[d + 1];                 \
        }                                                                                  \
    }
SD_FLAT(SD_AVX2, flat_f32, float, eight_f32, pwt_f32, 0)
SD_FLAT(SD_AVX2, flata_f32, float, eighta_f32, pwt_f32, 1) /* (a row's edges: see eighta_f32) */
SD_FLAT(SD_AVX512, flatz_f64, double, eightz_f64, pwt_f64, 1) /* (the row's edges: see eightz_f64) */
/* The flat tree's nodes one leaf at a time (round 19, issue 38): a node of eight leaves
   (sd_eight) read in one stream, front to back, each leaf's eight accumulators one vector
   (float32: 8 lanes; float64: one 512-bit vector with AVX-512, two 256-bit ones without)
   fed its groups of 8 in order, two per loop step (r + g_i, then + g_(i+1): the same
   additions in the same order), the eight leaves' sums then added as eight_f32's and
   eightz_f64's trees add them (sd_end8_f32, sd_end8z_f64). Each leaf's chain of additions
   waits on the adder's latency, but the leaves are independent, and out-of-order execution
   runs the next leaves' loads and additions meanwhile; eight leaves side by side (eight_f32)
   read eight streams 256-1024 bytes apart, which beyond L1 the loads' prefetchers served
   worse. Measured (standalone C, rdtsc, minima of 150-600 interleaved runs, bytes a TSC
   cycle, one leaf at a time / side by side, a 2-core EPYC (Zen 4) loaded by other work):
   float32 65536-1e6 elements 47-57 / 39-47, float64 (AVX-512) 30000-1e6 46-81 / 39-56; in
   L1 (10000) 51 / 57 and 65 / 73, so not below SD_SEQ_FROM. Each leaf fully unrolled
   (SD_SEQ8: one jump per leaf in place of a loop exit that mispredicts as the leaves'
   lengths alternate), float32 30000-200000 41-63 against 40-48 looped (a quiet machine). A
   prefetching twin (SD_PREFETCH before each node, from 20 MiB) was dropped in round 22:
   measured again (sum_all, medians of 40 interleaved calls, us), prefetching / not / NumPy:
   float64 3e6 661 / 542 / 687, 5e6 1326 / 1011 / 1266, 1e7 3471 / 2408 / 2740; float32
   1e7 1292 / 1157 / 1728, 2e7 2747 / 2497 / 3766. Only the last leaf of a whole tree
   has leftover elements (see SD_EIGHT_PTRS). */
#define SD_SEQ_FROM ((Py_ssize_t)128 << 10)
/* A leaf's accumulator vector(s) over its G whole groups of 8 (p: the leaf), fully
   unrolled for a constant G: the chain of additions in order, with no loop branch (a loop
   whose trip count changes from leaf to leaf, as the leaves of a node differ by a group,
   cost a mispredicted exit per leaf: 8-20% of an in-cache sum). Leaves of a node of eight
   have 8 to 16 whole groups (68 to 128 elements); others (none in practice) take a loop. */
#define SD_LEAFV(V, LOAD, ADD, G)                                                          \
    {                                                                                      \
        V r_ = LOAD(p);                                                                    \
        _Pragma("GCC unroll 16") for (int i_ = 1; i_ < (G); i_++)                          \
            r_ = ADD(r_, LOAD(p + 8 * i_));                                                \
        R[k] = r_;                                                                         \
    }                                                                                      \
    break;
/* NAME: a node of eight leaves e[0..7] one leaf at a time, each leaf's eight accumulators
   one vector V (LOAD, ADD), their sums added as END adds them (sd_end8_f32, sd_end8z_f64) */
#define SD_SEQ8(ATTR, NAME, T, V, LOAD, ADD, END)                                          \
    ATTR SD_INLINE T NAME(const T *a, const Py_ssize_t *e, T m)                            \
    {                                                                                      \
        V R[8];                                                                            \
        const T *p = a;                                                                    \
        (void)m;                                                                           \
        for (int k = 0; k < 8; k++) {                                                      \
            const Py_ssize_t g = e[k] >> 3;                                                \
            switch (g) {                                                                   \
            case 8: SD_LEAFV(V, LOAD, ADD, 8)                                              \
            case 9: SD_LEAFV(V, LOAD, ADD, 9)                                              \
            case 10: SD_LEAFV(V, LOAD, ADD, 10)                                            \
            case 11: SD_LEAFV(V, LOAD, ADD, 11)                                            \
            case 12: SD_LEAFV(V, LOAD, ADD, 12)                                            \
            case 13: SD_LEAFV(V, LOAD, ADD, 13)                                            \
            case 14: SD_LEAFV(V, LOAD, ADD, 14)                                            \
            case 15: SD_LEAFV(V, LOAD, ADD, 15)                                            \
            case 16: SD_LEAFV(V, LOAD, ADD, 16)                                            \
            default: {                                                                     \
                V r = LOAD(p);                                                             \
                for (Py_ssize_t i = 1; i < g; i++)                                         \
                    r = ADD(r, LOAD(p + 8 * i));                                           \
                R[k] = r;                                                                  \
            }                                                                              \
            }                                                                              \
            p += e[k];                                                                     \
        }                                                                                  \
        const Py_ssize_t e7 = e[7];                                                        \
        return END(R[0], R[1], R[2], R[3], R[4], R[5], R[6], R[7], p - e7, e7 & ~(Py_ssize_t)7, e7); \
    }
SD_SEQ8(SD_AVX2, seq8_f32, float, __m256, _mm256_loadu_ps, _mm256_add_ps, sd_end8_f32)
/* float64 without AVX-512: a leaf's r0..r3 and r4..r7 in two 256-bit vectors */
SD_AVX2 SD_INLINE double seq8_f64(const double *a, const Py_ssize_t *e, double m)
{
    __m256d A[8], B[8];
    const double *p = a;
    (void)m;
    for (int k = 0; k < 8; k++) {
        const Py_ssize_t g = e[k] & ~(Py_ssize_t)7;
        __m256d x = _mm256_loadu_pd(p), y = _mm256_loadu_pd(p + 4);
        for (Py_ssize_t i = 8; i < g; i += 8) {
            x = _mm256_add_pd(x, _mm256_loadu_pd(p + i));
            y = _mm256_add_pd(y, _mm256_loadu_pd(p + i + 4));
        }
        A[k] = x, B[k] = y;
        p += e[k];
    }
    double l[8];
    hsum4_f64(A[0], B[0], A[1], B[1], A[2], B[2], A[3], B[3], &l[0], &l[1], &l[2], &l[3]);
    hsum4_f64(A[4], B[4], A[5], B[5], A[6], B[6], A[7], B[7], &l[4], &l[5], &l[6], &l[7]);
    const Py_ssize_t e7 = e[7];
    const double *p7 = p - e7;
    Py_ssize_t i = e7 & ~(Py_ssize_t)7;
    SD_TAIL(l[7], p7, i, e7, SD_ID)
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}
/* eightz_f64's transposing tree over eight leaves' accumulator vectors (leaf k's r0..r7 in
   Rk), the last leaf's leftover elements (p7[g7..e7)) added to its sum first */
SD_AVX512 SD_INLINE double sd_end8z_f64(__m512d R0, __m512d R1, __m512d R2, __m512d R3, __m512d R4,
                                        __m512d R5, __m512d R6, __m512d R7, const double *p7,
                                        Py_ssize_t g7, Py_ssize_t e7)
{
    __m512d X = _mm512_add_pd(_mm512_unpacklo_pd(R0, R1), _mm512_unpackhi_pd(R0, R1));
    __m512d Y = _mm512_add_pd(_mm512_unpacklo_pd(R2, R3), _mm512_unpackhi_pd(R2, R3));
    __m512d Z = _mm512_add_pd(_mm512_unpacklo_pd(R4, R5), _mm512_unpackhi_pd(R4, R5));
    __m512d W = _mm512_add_pd(_mm512_unpacklo_pd(R6, R7), _mm512_unpackhi_pd(R6, R7));
    __m512d XY = _mm512_add_pd(_mm512_shuffle_f64x2(X, Y, 0x88), _mm512_shuffle_f64x2(X, Y, 0xdd));
    __m512d ZW = _mm512_add_pd(_mm512_shuffle_f64x2(Z, W, 0x88), _mm512_shuffle_f64x2(Z, W, 0xdd));
    __m512d v = _mm512_add_pd(_mm512_shuffle_f64x2(XY, ZW, 0x88), _mm512_shuffle_f64x2(XY, ZW, 0xdd));
    if (g7 == e7) {
        __m256d h = _mm256_hadd_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1));
        __m128d q = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));
        return _mm_cvtsd_f64(_mm_add_sd(q, _mm_unpackhi_pd(q, q)));
    }
    double l[8];
    Py_ssize_t i = g7;
    _mm512_storeu_pd(l, v);
    SD_TAIL(l[7], p7, i, e7, SD_ID)
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}
SD_SEQ8(SD_AVX512, seq8z_f64, double, __m512d, _mm512_loadu_pd, _mm512_add_pd, sd_end8z_f64)
SD_FLAT(SD_AVX2, flats_f32, float, seq8_f32, pwt_f32, 0)
SD_FLAT(SD_AVX2, flats_f64, double, seq8_f64, pwt_f64, 0)
SD_FLAT(SD_AVX512, flatsz_f64, double, seq8z_f64, pwt_f64, 0)
/* A row of n > SD_NODE_MAX elements of at least SD_SEQ_FROM bytes, or of a buffer streamed
   from beyond L2 (span >= SD_PF_FROM): the flat tree over nodes summed one leaf at a time;
   NaN-free or not, the same additions as the recursion. Never prefetching (issue 38, round
   22: the prefetching twins were 1.1-1.45x slower than one stream on the benchmarks'
   EPYC from 20 MiB, and rows of 1000x10000 float64 taking the prefetching tree 1.8x NumPy's
   time; one leaf at a time from memory there is NumPy's speed or better). */
static float seqrow_f32(const float *a, Py_ssize_t n, Py_ssize_t span)
{
    (void)span;
    return flats_f32(a, n);
}
/* float64 rows in a buffer of SD_SEQZ_MAX or more take the AVX2 nodes (seq8_f64) on every
   processor. Measured (sum_all, one thread, medians of 40 interleaved calls, ms; a 2-core
   EPYC Zen 4 with AVX-512): seq8z_f64 / seq8_f64 1e7 float64 at a 64-byte boundary 3.79 /
   3.37 (4.18 / 3.53 in a second run), 16 bytes off 3.13 / 3.01; 1e6 (8 MB, three buffers
   in turn) 0.43 / 0.34; rows of 1000x10000 4.97 / 4.55; in L2 and L3 (1e5-3e5) within 5%
   either way, so the AVX-512 nodes keep the buffers under 4 MiB. Zen 4 splits a 512-bit
   load in two; from memory its aligned 64-byte loads ran slower than the 256-bit pairs. */
#define SD_SEQZ_MAX ((Py_ssize_t)4 << 20)
static double seqrow_f64(const double *a, Py_ssize_t n, Py_ssize_t span)
{
    return sd_avx512 && span < SD_SEQZ_MAX ? flatsz_f64(a, n) : flats_f64(a, n);
}
#define SD_SEQ_ROW(T, n, span)                                                             \
    ((n) > SD_NODE_MAX && ((n) * (Py_ssize_t)sizeof(T) >= SD_SEQ_FROM || (span) >= SD_PF_FROM(T)))
/* the in-cache sums (no prefetch): float32 rows of more than 1024 elements the flat tree
   over eight leaves (AVX2), its aligned-load nodes for rows 16 bytes off a 32-byte
   boundary beyond L1 (SD_FLATA_FROM); float64 ones with AVX-512 (and 8-byte aligned) the
   flat tree over eightz_f64; the others the recursion (eight_f64's nodes for float64).
   Measured (standalone C, rdtsc, minima of 41 interleaved runs, bytes a cycle, this tree /
   the recursion before): float32 in L2 (60000-200000) 30-32 / 27-29 aligned, 25-27 / 22
   at 16 or 48 bytes off (eighta_f32; unaligned loads there 23-25); in L1 (10000) 35 / 29,
   off 16: 32 / 26 (eighta_f32 27: so not below 64 KiB); float64 with AVX-512 38-42 / 22-28
   at any offset (unaligned 64-byte loads: 21). */
#define SD_FLATA_FROM 16384
static float pwc_f32(const float *a, Py_ssize_t n, float m)
{
    if (n <= SD_NODE_MAX)
        return pwt_f32(a, n, m);
    return n >= SD_FLATA_FROM && ((uintptr_t)a & 31) == 16 ? flata_f32(a, n) : flat_f32(a, n);
}
static double pwc_f64(const double *a, Py_ssize_t n, double m)
{
    if (!sd_avx512 || n <= SD_NODE_MAX || ((uintptr_t)a & 7))
        return pwt_f64(a, n, m);
    return flatz_f64(a, n);
}
/* Which rows the side-by-side tree takes, and which of them prefetch. More than 128
   elements, and for float64 at most 1 MiB (SD_PW_MAX) unless the buffer prefetches:
   a buffer of at least 2 MiB, float64 1 MiB (SD_PF_FROM; span: the whole buffer a caller streams
   through, a row of it or all of it) takes the prefetching tree, float64 rows of any
   length included. Measured before (cycling 8 arrays of 1e6 elements, so that each is
   read from memory): float32 side by side as fast as one leaf at a time (~17 GB/s
   either way), float64 10-35% slower (4 or 2 leaves' streams against one); in cache
   float64 gains only 1.05-1.3x. Issue 38 (the C entry points and standalone C, minima
   of interleaved runs, in L3 = one buffer read again and again, from memory = cycling
   buffers larger than L3; a 2-core EPYC shared with other work, +-10% and worse):
   - float64, prefetching tree / one leaf at a time: 1.2-16 MB 0.78-0.98 in L3 and
     0.80-0.94 from memory; 1e7 elements 0.54-0.89 (one run 1.25); rows of 1000
     (1000x1000) 0.99 in L3, 0.68 from memory; without prefetch the tree from memory
     was 1.3-2x slower than with it at 1e7;
   - float32, prefetching / not: 4-40 MB 0.92-1.06 in L3, 0.95-1.32 from memory (1e6
     elements 1.07-1.61 faster); 1.2 MB 1.16-1.23x slower in L3: none below 2 MiB.
   Round 7 (standalone C, rdtsc, minima of 31 interleaved runs):
   - float32 (measured with eight leaves side by side, since dropped), prefetching / not:
     2-8 MB 1.00-1.02 in L3 (medians 0.88-0.97), 16-40 MB 0.90-0.95; 0.1-1.2 MB 1.04-1.26
     slower: 2 MiB kept;
   - float64 from 1 MiB to 2 MiB took one leaf at a time (SD_PW_MAX): 1.04-1.6 MB one
     leaf / tree 1.07-1.13 in L3, and from memory the prefetching tree 0.54 of one leaf
     (1.6 MB); prefetching / not 0.99-1.01 in L3 there. So float64 prefetches from 1 MiB,
     and every float64 row of more than 128 elements takes a tree (SD_PW_MAX is then
     never reached: a row of more than 2**17 float64 spans more than 1 MiB). */
#define SD_PW_MAX(T) (sizeof(T) == 4 ? PY_SSIZE_T_MAX : ((Py_ssize_t)1 << 17))
#define SD_PF_FROM(T) (sizeof(T) == 4 ? (Py_ssize_t)1 << 21 : (Py_ssize_t)1 << 20)
/* float64 rows of at most SD_NODE_MAX elements in a buffer of SD_STREAM_FROM or more: one
   leaf at a time (NumPy's own recursion, leaf_f64), not the prefetching tree. Round 22 (the
   sum_rows entry, minima and medians of 60-100 interleaved runs, this EPYC with a 32 MiB
   L3, tree / one leaf at a time / NumPy, us): 1000x300 (2.4 MB) 34 / 40 / 71, 1000x500 (4 MB)
   70 / 59 / 103, 1000x1000 124 / 108 / 176, 4000x500 (16 MB) 322 / 250 / 416, 10000x500
   (40 MB) 2575 / 1173 / 1371: the tree's two and four streams side by side lose to one from
   4 MiB, and halve the speed from memory. float32 rows keep the tree (1000x1000, 10000x500:
   within 5% either way). */
#define SD_STREAM_FROM(T) (sizeof(T) == 4 ? PY_SSIZE_T_MAX : (Py_ssize_t)4 << 20)
#define SD_ROW_PICK(SFX, T, ...)                                                           \
    static inline T row_##SFX(const T *a, Py_ssize_t n, T m, Py_ssize_t span)              \
    {                                                                                      \
        if (!sd_avx2 || n <= 128)                                                          \
            return leaf_##SFX(a, n, m);                                                    \
        if (SD_SEQ_ROW(T, n, span))                                                        \
            return seqrow_##SFX(a, n, span);                                               \
        if (span >= SD_STREAM_FROM(T))                                                     \
            return leaf_##SFX(a, n, m);                                                    \
        if (span >= SD_PF_FROM(T))                                                         \
            return pwtp_##SFX(a, n, m);                                                    \
        return n <= SD_PW_MAX(T) ? pwc_##SFX(a, n, m) : leaf_##SFX(a, n, m);               \
    }                                                                                      \
    static inline T rowsq_##SFX(const T *a, Py_ssize_t n, T m, Py_ssize_t span)            \
    {                                                                                      \
        if (!sd_avx2 || n <= 128)                                                          \
            return leafsq_##SFX(a, n, m);                                                  \
        if (span >= SD_PF_FROM(T))                                                         \
            return pwtpsq_##SFX(a, n, m);                                                  \
        return n <= SD_PW_MAX(T) ? pwtsq_##SFX(a, n, m) : leafsq_##SFX(a, n, m);           \
    }
#else
#define SD_ROW_PICK(SFX, T, ...)                                                           \
    static inline T row_##SFX(const T *a, Py_ssize_t n, T m, Py_ssize_t span)              \
    { (void)span; return leaf_##SFX(a, n, m); }                                            \
    static inline T rowsq_##SFX(const T *a, Py_ssize_t n, T m, Py_ssize_t span)            \
    { (void)span; return leafsq_##SFX(a, n, m); }
#endif
SD_FLOAT_TYPES(SD_ROW_PICK)

/* Short rows side by side. A row of 8 to 128 elements is one leaf of NumPy's tree (its
   eight accumulators, added ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the
   leftover elements in order): four consecutive rows run as four independent vectors in
   one loop, as four_ runs four leaves, each row's sum then kept apart. The same additions
   on the same values in the same order as leaf_f32/f64, so the same bits
   (tests/_csrc/test_sum5_rows.py). One row at a time, a leaf waits on the adder's latency
   and its eight accumulators and leftovers are added one by one in the SSE build.
   rows4sq_*: the same for var/std's squared deviations, each row from its own mean. */
#ifdef SD_HAVE_AVX2_X
SD_AVX2 SD_INLINE void rows4_f32(const float *p0, Py_ssize_t n, float *o)
{
    const float *p1 = p0 + n, *p2 = p1 + n, *p3 = p2 + n;
    Py_ssize_t g = n & ~(Py_ssize_t)7, i, g0 = g, g1 = g, g2 = g, g3 = g;
    __m256 r0 = _mm256_loadu_ps(p0), r1 = _mm256_loadu_ps(p1), r2 = _mm256_loadu_ps(p2), r3 = _mm256_loadu_ps(p3);
    for (i = 8; i < g; i += 8) {
        r0 = _mm256_add_ps(r0, _mm256_loadu_ps(p0 + i)); r1 = _mm256_add_ps(r1, _mm256_loadu_ps(p1 + i));
        r2 = _mm256_add_ps(r2, _mm256_loadu_ps(p2 + i)); r3 = _mm256_add_ps(r3, _mm256_loadu_ps(p3 + i));
    }
    float s0, s1, s2, s3;
    hsum4_f32(r0, r1, r2, r3, &s0, &s1, &s2, &s3);
    SD_TAIL(s0, p0, g0, n, SD_ID) SD_TAIL(s1, p1, g1, n, SD_ID) SD_TAIL(s2, p2, g2, n, SD_ID) SD_TAIL(s3, p3, g3, n, SD_ID)
    o[0] = 0.0f + s0; /* NumPy: identity + sum */
    o[1] = 0.0f + s1;
    o[2] = 0.0f + s2;
    o[3] = 0.0f + s3;
}
SD_AVX2 SD_INLINE void rows4_f64(const double *p0, Py_ssize_t n, double *o)
{
    const double *p1 = p0 + n, *p2 = p1 + n, *p3 = p2 + n;
    Py_ssize_t g = n & ~(Py_ssize_t)7, i, g0 = g, g1 = g, g2 = g, g3 = g;
    __m256d a0 = _mm256_loadu_pd(p0), b0 = _mm256_loadu_pd(p0 + 4), a1 = _mm256_loadu_pd(p1), b1 = _mm256_loadu_pd(p1 + 4);
    __m256d a2 = _mm256_loadu_pd(p2), b2 = _mm256_loadu_pd(p2 + 4), a3 = _mm256_loadu_pd(p3), b3 = _mm256_loadu_pd(p3 + 4);
    for (i = 8; i < g; i += 8) {
        a0 = _mm256_add_pd(a0, _mm256_loadu_pd(p0 + i)); b0 = _mm256_add_pd(b0, _mm256_loadu_pd(p0 + i + 4));
        a1 = _mm256_add_pd(a1, _mm256_loadu_pd(p1 + i)); b1 = _mm256_add_pd(b1, _mm256_loadu_pd(p1 + i + 4));
        a2 = _mm256_add_pd(a2, _mm256_loadu_pd(p2 + i)); b2 = _mm256_add_pd(b2, _mm256_loadu_pd(p2 + i + 4));
        a3 = _mm256_add_pd(a3, _mm256_loadu_pd(p3 + i)); b3 = _mm256_add_pd(b3, _mm256_loadu_pd(p3 + i + 4));
    }
    double s0, s1, s2, s3;
    hsum4_f64(a0, b0, a1, b1, a2, b2, a3, b3, &s0, &s1, &s2, &s3);
    SD_TAIL(s0, p0, g0, n, SD_ID) SD_TAIL(s1, p1, g1, n, SD_ID) SD_TAIL(s2, p2, g2, n, SD_ID) SD_TAIL(s3, p3, g3, n, SD_ID)
    o[0] = 0.0 + s0;
    o[1] = 0.0 + s1;
    o[2] = 0.0 + s2;
    o[3] = 0.0 + s3;
}
/* the same for four rows' squared deviations from their own means m[0..3] (var/std):
   each (x - m) * (x - m) rounded as leafsq rounds it */
#define SD_SQK(k) (((v_) - m##k) * ((v_) - m##k))
#define SD_SQ0(v) ({ __typeof__(m0) v_ = (v); SD_SQK(0); })
#define SD_SQ1(v) ({ __typeof__(m1) v_ = (v); SD_SQK(1); })
#define SD_SQ2(v) ({ __typeof__(m2) v_ = (v); SD_SQK(2); })
#define SD_SQ3(v) ({ __typeof__(m3) v_ = (v); SD_SQK(3); })
SD_AVX2 SD_INLINE void rows4sq_f32(const float *p0, Py_ssize_t n, const float *m, float *o)
{
    const float *p1 = p0 + n, *p2 = p1 + n, *p3 = p2 + n;
    const float m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3];
    const __m256 M0 = _mm256_set1_ps(m0), M1 = _mm256_set1_ps(m1), M2 = _mm256_set1_ps(m2), M3 = _mm256_set1_ps(m3);
#define SD_D32(p, M) ({ __m256 d_ = _mm256_sub_ps(_mm256_loadu_ps(p), M); _mm256_mul_ps(d_, d_); })
    Py_ssize_t g = n & ~(Py_ssize_t)7, i, g0 = g, g1 = g, g2 = g, g3 = g;
    __m256 r0 = SD_D32(p0, M0), r1 = SD_D32(p1, M1), r2 = SD_D32(p2, M2), r3 = SD_D32(p3, M3);
    for (i = 8; i < g; i += 8) {
        r0 = _mm256_add_ps(r0, SD_D32(p0 + i, M0)); r1 = _mm256_add_ps(r1, SD_D32(p1 + i, M1));
        r2 = _mm256_add_ps(r2, SD_D32(p2 + i, M2)); r3 = _mm256_add_ps(r3, SD_D32(p3 + i, M3));
    }
#undef SD_D32
    float s0, s1, s2, s3;
    hsum4_f32(r0, r1, r2, r3, &s0, &s1, &s2, &s3);
    SD_TAIL(s0, p0, g0, n, SD_SQ0) SD_TAIL(s1, p1, g1, n, SD_SQ1) SD_TAIL(s2, p2, g2, n, SD_SQ2) SD_TAIL(s3, p3, g3, n, SD_SQ3)
    o[0] = 0.0f + s0;
    o[1] = 0.0f + s1;
    o[2] = 0.0f + s2;
    o[3] = 0.0f + s3;
}
SD_AVX2 SD_INLINE void rows4sq_f64(const double *p0, Py_ssize_t n, const double *m, double *o)
{
    const double *p1 = p0 + n, *p2 = p1 + n, *p3 = p2 + n;
    const double m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3];
    const __m256d M0 = _mm256_set1_pd(m0), M1 = _mm256_set1_pd(m1), M2 = _mm256_set1_pd(m2), M3 = _mm256_set1_pd(m3);
#define SD_D64(p, M) ({ __m256d d_ = _mm256_sub_pd(_mm256_loadu_pd(p), M); _mm256_mul_pd(d_, d_); })
    Py_ssize_t g = n & ~(Py_ssize_t)7, i, g0 = g, g1 = g, g2 = g, g3 = g;
    __m256d a0 = SD_D64(p0, M0), b0 = SD_D64(p0 + 4, M0), a1 = SD_D64(p1, M1), b1 = SD_D64(p1 + 4, M1);
    __m256d a2 = SD_D64(p2, M2), b2 = SD_D64(p2 + 4, M2), a3 = SD_D64(p3, M3), b3 = SD_D64(p3 + 4, M3);
    for (i = 8; i < g; i += 8) {
        a0 = _mm256_add_pd(a0, SD_D64(p0 + i, M0)); b0 = _mm256_add_pd(b0, SD_D64(p0 + i + 4, M0));
        a1 = _mm256_add_pd(a1, SD_D64(p1 + i, M1)); b1 = _mm256_add_pd(b1, SD_D64(p1 + i + 4, M1));
        a2 = _mm256_add_pd(a2, SD_D64(p2 + i, M2)); b2 = _mm256_add_pd(b2, SD_D64(p2 + i + 4, M2));
        a3 = _mm256_add_pd(a3, SD_D64(p3 + i, M3)); b3 = _mm256_add_pd(b3, SD_D64(p3 + i + 4, M3));
    }
#undef SD_D64
    double s0, s1, s2, s3;
    hsum4_f64(a0, b0, a1, b1, a2, b2, a3, b3, &s0, &s1, &s2, &s3);
    SD_TAIL(s0, p0, g0, n, SD_SQ0) SD_TAIL(s1, p1, g1, n, SD_SQ1) SD_TAIL(s2, p2, g2, n, SD_SQ2) SD_TAIL(s3, p3, g3, n, SD_SQ3)
    o[0] = 0.0 + s0;
    o[1] = 0.0 + s1;
    o[2] = 0.0 + s2;
    o[3] = 0.0 + s3;
}
/* Rows of 129 to 256 elements that are one node of two leaves (two_'s: n - sd_half(n) <=
   128; not 249, whose right half is 129 elements), two rows side by side as four_ runs
   four leaves, each row's two leaf sums then added left + right. */
SD_AVX2 SD_INLINE void rows2_f32(const float *a, Py_ssize_t n, float *o)
{
    Py_ssize_t n0 = sd_half(n), n1 = n - n0;
    const float *p0 = a, *p1 = a + n0, *p2 = a + n, *p3 = a + n + n0;
    Py_ssize_t g0 = n0 & ~(Py_ssize_t)7, g1 = n1 & ~(Py_ssize_t)7, g2 = g0, g3 = g1, i;
    __m256 r0 = _mm256_loadu_ps(p0), r1 = _mm256_loadu_ps(p1), r2 = _mm256_loadu_ps(p2), r3 = _mm256_loadu_ps(p3);
    for (i = 8; i < g0; i += 8) {
        r0 = _mm256_add_ps(r0, _mm256_loadu_ps(p0 + i)); r1 = _mm256_add_ps(r1, _mm256_loadu_ps(p1 + i));
        r2 = _mm256_add_ps(r2, _mm256_loadu_ps(p2 + i)); r3 = _mm256_add_ps(r3, _mm256_loadu_ps(p3 + i));
    }
    for (i = g0; i < g1; i += 8) { /* (n1 >= n0: the right leaf may have one more vector) */
        r1 = _mm256_add_ps(r1, _mm256_loadu_ps(p1 + i));
        r3 = _mm256_add_ps(r3, _mm256_loadu_ps(p3 + i));
    }
    float s0, s1, s2, s3;
    hsum4_f32(r0, r1, r2, r3, &s0, &s1, &s2, &s3);
    SD_TAIL(s0, p0, g0, n0, SD_ID) SD_TAIL(s1, p1, g1, n1, SD_ID) SD_TAIL(s2, p2, g2, n0, SD_ID) SD_TAIL(s3, p3, g3, n1, SD_ID)
    o[0] = 0.0f + (s0 + s1);
    o[1] = 0.0f + (s2 + s3);
}
SD_AVX2 SD_INLINE void rows2_f64(const double *a, Py_ssize_t n, double *o)
{
    Py_ssize_t n0 = sd_half(n), n1 = n - n0;
    const double *p0 = a, *p1 = a + n0, *p2 = a + n, *p3 = a + n + n0;
    Py_ssize_t g0 = n0 & ~(Py_ssize_t)7, g1 = n1 & ~(Py_ssize_t)7, g2 = g0, g3 = g1, i;
    __m256d a0 = _mm256_loadu_pd(p0), b0 = _mm256_loadu_pd(p0 + 4), a1 = _mm256_loadu_pd(p1), b1 = _mm256_loadu_pd(p1 + 4);
    __m256d a2 = _mm256_loadu_pd(p2), b2 = _mm256_loadu_pd(p2 + 4), a3 = _mm256_loadu_pd(p3), b3 = _mm256_loadu_pd(p3 + 4);
    for (i = 8; i < g0; i += 8) {
        a0 = _mm256_add_pd(a0, _mm256_loadu_pd(p0 + i)); b0 = _mm256_add_pd(b0, _mm256_loadu_pd(p0 + i + 4));
        a1 = _mm256_add_pd(a1, _mm256_loadu_pd(p1 + i)); b1 = _mm256_add_pd(b1, _mm256_loadu_pd(p1 + i + 4));
        a2 = _mm256_add_pd(a2, _mm256_loadu_pd(p2 + i)); b2 = _mm256_add_pd(b2, _mm256_loadu_pd(p2 + i + 4));
        a3 = _mm256_add_pd(a3, _mm256_loadu_pd(p3 + i)); b3 = _mm256_add_pd(b3, _mm256_loadu_pd(p3 + i + 4));
    }
    for (i = g0; i < g1; i += 8) {
        a1 = _mm256_add_pd(a1, _mm256_loadu_pd(p1 + i)); b1 = _mm256_add_pd(b1, _mm256_loadu_pd(p1 + i + 4));
        a3 = _mm256_add_pd(a3, _mm256_loadu_pd(p3 + i)); b3 = _mm256_add_pd(b3, _mm256_loadu_pd(p3 + i + 4));
    }
    double s0, s1, s2, s3;
    hsum4_f64(a0, b0, a1, b1, a2, b2, a3, b3, &s0, &s1, &s2, &s3);
    SD_TAIL(s0, p0, g0, n0, SD_ID) SD_TAIL(s1, p1, g1, n1, SD_ID) SD_TAIL(s2, p2, g2, n0, SD_ID) SD_TAIL(s3, p3, g3, n1, SD_ID)
    o[0] = 0.0 + (s0 + s1);
    o[1] = 0.0 + (s2 + s3);
}
/* o[r] = 0 + the sum of row r (n elements: SD_SHORT_ROWS) for r < nrows rounded down to
   a multiple of 4 (n <= 128) or 2; returns the rows done (the caller sums the rest one
   by one) */
#define SD_ROWS4(SFX, T, ...)                                                              \
    SD_AVX2 static Py_ssize_t rows_##SFX(const T *a, Py_ssize_t nrows, Py_ssize_t n, T *o)  \
    {                                                                                      \
        Py_ssize_t r = 0;                                                                  \
        if (n > 128) {                                                                     \
            for (; r + 2 <= nrows; r += 2)                                                 \
                rows2_##SFX(a + r * n, n, o + r);                                          \
            return r;                                                                      \
        }                                                                                  \
        for (; r + 4 <= nrows; r += 4)                                                     \
            rows4_##SFX(a + r * n, n, o + r);                                              \
        return r;                                                                          \
    }                                                                                      \
    SD_AVX2 static Py_ssize_t rowsq_##SFX##_4(const T *a, Py_ssize_t nrows, Py_ssize_t n,   \
                                            const T *m, T *o)                              \
    {                                                                                      \
        Py_ssize_t r = 0;                                                                  \
        for (; r + 4 <= nrows; r += 4)                                                     \
            rows4sq_##SFX(a + r * n, n, m + r, o + r);                                     \
        return r;                                                                          \
    }
SD_FLOAT_TYPES(SD_ROWS4)
#define SD_SHORT_ROWS(n) (sd_avx2 && (n) >= 8 && ((n) <= 128 || ((n) <= 256 && (n) - sd_half(n) <= 128)))
#define SD_SHORT_SQ_ROWS(n) (sd_avx2 && (n) >= 8 && (n) <= 128)
#else
#define SD_ROWS4(SFX, T, ...)                                                              \
    static Py_ssize_t rows_##SFX(const T *a, Py_ssize_t nrows, Py_ssize_t n, T *o)          \
    { (void)a; (void)nrows; (void)n; (void)o; return 0; }                                      \
    static Py_ssize_t rowsq_##SFX##_4(const T *a, Py_ssize_t nrows, Py_ssize_t n, const T *m, T *o) \
    { (void)a; (void)nrows; (void)n; (void)m; (void)o; return 0; }
SD_FLOAT_TYPES(SD_ROWS4)
#define SD_SHORT_ROWS(n) 0
#define SD_SHORT_SQ_ROWS(n) 0
#endif
/* Short rows (SD_SHORT_ROWS) side by side, but float64 ones only in a buffer of less than
   SD_ROWS4_STREAM_FROM: from memory, four float64 rows' streams side by side ran at half the speed of one row at a time (round 22, sum_rows,
   medians of 60 interleaved runs, four rows / one / NumPy, us: 40000x100 1844 / 886 / 1517,
   20000x200 1348 / 800 / 1094, 15000x200 653 / 462 / 769; 10000x200 (16 MB) 228 / 232 / 490,
   5000x200 100 / 111 / 242). float32's keep them at any size (80000x100 1382 / 1356 / 2784). */
#define SD_ROWS4_STREAM_FROM ((Py_ssize_t)16 << 20)
#define SD_SHORT_ROWS_IN(n, kind, span) (SD_SHORT_ROWS(n) && ((kind) == 1 || (span) < SD_ROWS4_STREAM_FROM))
/* SD_LD(V, p): vector V loaded from the unaligned p */
#define SD_LD(V, p) ({ V v_; memcpy(&v_, (p), sizeof(V)); v_; })

/* --- argument checks shared by the entry points -------------------------------- */

/* nargs in lo .. hi, else TypeError "fn() takes N arguments (n given)" (0 ok, -1 error set). */
static int sd_nargs(const char *fn, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi)
{
    if (nargs >= lo && nargs <= hi)
        return 0;
    if (lo == hi)
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", fn, lo, nargs);
    else if (lo == 0)
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd arguments (%zd given)", fn, hi, nargs);
    else
        PyErr_Format(PyExc_TypeError, "%s() takes %zd or %zd arguments (%zd given)", fn, lo, hi, nargs);
    return -1;
}

/* A buffer's struct format without a byte-order prefix that means native ('<d' from a
   little-endian dtype is native); a foreign order keeps its prefix (and is declined). */
static const char *sd_format(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
#if PY_LITTLE_ENDIAN
    if (f[0] == '<' || f[0] == '=' || f[0] == '@')
#else
    if (f[0] == '>' || f[0] == '=' || f[0] == '@')
#endif
        f++;
    return f;
}

/* 1 float32, 2 float64 (native format and itemsize), else 0: the kinds SD_FLOAT_TYPES lists. */
static int sd_kind(const Py_buffer *v)
{
    const char *f = sd_format(v);
    return (f[0] == 'f' && f[1] == 0 && v->itemsize == 4) ? 1
         : (f[0] == 'd' && f[1] == 0 && v->itemsize == 8) ? 2 : 0;
}

/* The shared body of sum_rows and sum_into: 1 done, 0 not handled (only when
   !strict: a layout or type this kernel doesn't take), -1 error set. */
static int
sum_rows_impl(PyObject *src_obj, PyObject *out_obj, Py_ssize_t ncols, int strict, double divisor)
{
    Py_buffer src, out;
    if (PyObject_GetBuffer(src_obj, &src, PyBUF_STRIDES | PyBUF_FORMAT) < 0)
        return strict || !contract_clear_buffer() ? -1 : 0;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_STRIDES | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        return strict || !contract_clear_buffer() ? -1 : 0;
    }
    int status = 1;
    const char *f = sd_format(&src), *g = sd_format(&out);
    int kind = sd_kind(&src);
    Py_ssize_t isz = src.itemsize;
    if (!PyBuffer_IsContiguous(&src, 'C') || !PyBuffer_IsContiguous(&out, 'C')) {
        if (strict)
            PyErr_SetString(PyExc_ValueError, "sum_rows(): src and out must be C-contiguous");
        status = strict ? -1 : 0;
    }
    else if (!kind || sd_kind(&out) != kind || ncols <= 0 || src.len % (isz * ncols) != 0
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
#define SD_SUM_ROWS_T(SFX, T, U, V, L, QN, SB, AV, AS, KIND)                                \
        if (kind == (KIND)) {                                                               \
            const T *a = (const T *)src.buf;                                                \
            T *o = (T *)out.buf;                                                            \
            Py_ssize_t r0 = SD_SHORT_ROWS_IN(ncols, kind, src.len) ? rows_##SFX(a, nrows, ncols, o) : 0; \
            for (Py_ssize_t r = r0; r < nrows; r++)                                         \
                o[r] = (T)0 + row_##SFX(a + r * ncols, ncols, 0, src.len); /* NumPy: identity + sum */ \
            for (Py_ssize_t r = 0; r < nrows && !strict; r++)                               \
                if (o[r] != o[r])                                                           \
                    status = 0; /* a NaN: NumPy's payload (see ROW) */                      \
            if (divisor != 1.0)                                                             \
                for (Py_ssize_t r = 0; r < nrows; r++)                                      \
                    o[r] = o[r] / (T)divisor;                                               \
        }
        SD_FLOAT_TYPES(SD_SUM_ROWS_T)
        if (release)
            PyEval_RestoreThread(ts);
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&out);
    return status;
}

/* sum_rows(src, out, ncols) and sum_into(src, out, ncols[, divisor]): their arguments
   (0 ok, -1 error set). */
static int sd_sum_args(const char *fn, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t most,
                       Py_ssize_t *ncols, double *divisor)
{
    if (sd_nargs(fn, nargs, 3, most) < 0)
        return -1;
    *ncols = PyLong_AsSsize_t(args[2]);
    if (*ncols == -1 && PyErr_Occurred())
        return -1;
    *divisor = nargs == 4 ? PyFloat_AsDouble(args[3]) : 1.0;
    return *divisor == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *
sum_rows(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t ncols;
    double divisor;
    if (sd_sum_args("sum_rows", args, nargs, 3, &ncols, &divisor) < 0
        || sum_rows_impl(args[0], args[1], ncols, 1, 1.0) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
sum_into(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t ncols;
    double divisor;
    int r = -1;
    if (sd_sum_args("sum_into", args, nargs, 4, &ncols, &divisor) < 0
        || (r = sum_rows_impl(args[0], args[1], ncols, 0, divisor)) < 0)
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
 * (default 2 ms, of the order of libgomp's default spin, which PyTorch's CPU
 * threads use: operations separated by a little Python find it awake; with
 * 100 us a wake-up of ~10-50 us, or a lost core, often landed on the next
 * operation: 1e6-element adds swung 0.7-1.5x PyTorch), then naps: sleeps of
 * 25 us doubling to 1 ms (nanosleep), looking at the ticket after each, for
 * sd_nap_ns (default 50 ms), and only then sleeps on a condition variable, so
 * an idle process burns no CPU. A job posted while the workers nap wakes no
 * one: the caller starts it alone and a worker joins when its nap ends (issue
 * 38: waking a worker from the condition variable cost the caller ~130 us on
 * the benchmarks' 2-vCPU EPYC, its vCPU halted, so a 1e6-element add after a
 * 20 ms pause took 790 us on two threads, 660 on one, NumPy's 650; the naps
 * cost ~50 short wake-ups an idle episode). The caller signals
 * only when a worker sleeps (`sleepers`, a Dekker-style pair of sequentially
 * consistent accesses with the worker's check of the ticket).
 *
 * Publishing job k+1 after job k: ticket := (k, CLOSED), so that no late claim
 * on job k can succeed, then the job's fields, then ticket := (k+1, 0). A
 * claim reads the fields after it has seen the ticket and succeeds only if the
 * ticket is still what it saw, so the fields it runs with are its job's.
 *
 * Stalls: on a loaded machine a worker can lose its core in the middle of a
 * chunk, and the caller, done with the rest, waits for it a scheduler slice
 * (milliseconds: a 0.4 ms add took 4 ms). A claimed chunk cannot be run again
 * (an output may be an input), so the caller measures instead: a wait longer
 * than sd_stall_ns plus twice its own time per chunk is a stall; the caller
 * then sleeps on done_cv until the job's last chunk is done (the worker that
 * finishes it signals: `waiting`, a Dekker-style pair as `sleepers`), which
 * frees its core for the late worker, and the
 * following jobs run their chunks on the caller alone for a back-off period
 * (50 ms, doubled by each stall that follows one, at most 1 s; a job that
 * then runs on the crew without a stall resets it). The chunks are the same
 * on the caller alone, so a back-off changes no result, only who runs them.
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
    pthread_cond_t done_cv; /* the caller sleeps on it while a stalled worker ends its chunk */
    _Atomic uint64_t ticket;
    _Atomic uintptr_t fn, ctx;
    _Atomic Py_ssize_t nchunks;
    _Atomic Py_ssize_t done;
    _Atomic int sleepers;
    _Atomic int waiting; /* the caller sleeps on done_cv (set and cleared under mu) */
    _Atomic int stop;
    int nworkers;
    pthread_t tid[SD_MAXW];
} P = {.call_mu = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
       .done_cv = PTHREAD_COND_INITIALIZER};

static _Atomic long sd_spin_ns = 2000000;         /* a worker's spin before it sleeps */
static _Atomic long sd_nap_ns = 50000000;         /* then its naps, before the condition variable */
#ifndef SD_NAP_MAX
#define SD_NAP_MAX 1000000L
#endif
static _Atomic Py_ssize_t sd_min_chunk = 1 << 16; /* bytes of output (or input) per chunk */
static _Atomic long sd_worker_chunks = 0;         /* chunks the workers ran (a statistic) */
static _Atomic long sd_stall_ns = 200000;         /* a caller's wait beyond this (and 2 chunks) is a stall */
static _Atomic long sd_backoff_until = 0;         /* until then (sd_now) jobs run on the caller alone */
static long sd_backoff_ns = 0;                    /* the current back-off's length (call_mu held) */
static _Atomic long sd_stalls = 0;                /* stalls seen (a statistic) */
static _Atomic long sd_worker_delay_ns = 0;       /* test hook: a worker sleeps this long before each chunk */
#define SD_BACKOFF_FIRST_NS 50000000L
#define SD_BACKOFF_MAX_NS 1000000000L

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

/* Claim and run chunks of job `job` until none is left (or another job began).
   Returns the number of chunks this thread ran. */
static Py_ssize_t sd_run_job(uint32_t job, int worker)
{
    Py_ssize_t ran = 0;
    for (;;) {
        uint64_t t = atomic_load_explicit(&P.ticket, memory_order_acquire);
        if ((uint32_t)(t >> 32) != job)
            return ran;
        Py_ssize_t c = (Py_ssize_t)(uint32_t)t;
        sd_task fn = (sd_task)atomic_load_explicit(&P.fn, memory_order_relaxed);
        void *ctx = (void *)atomic_load_explicit(&P.ctx, memory_order_relaxed);
        Py_ssize_t n = atomic_load_explicit(&P.nchunks, memory_order_relaxed);
        if (c >= n)
            return ran;
        if (atomic_compare_exchange_weak(&P.ticket, &t, t + 1)) {
            long delay = worker ? atomic_load_explicit(&sd_worker_delay_ns, memory_order_relaxed) : 0;
            if (delay > 0) {
                struct timespec ts = {delay / 1000000000L, delay % 1000000000L};
                nanosleep(&ts, NULL);
            }
            fn(ctx, c);
            ran++;
            if (worker) {
                atomic_fetch_add_explicit(&sd_worker_chunks, 1, memory_order_relaxed);
                /* the job's last chunk wakes a caller that went to sleep waiting for it
                   (sequentially consistent: the caller sets `waiting`, then reads `done`) */
                if (atomic_fetch_add(&P.done, 1) + 1 == n && atomic_load(&P.waiting)) {
                    pthread_mutex_lock(&P.mu);
                    pthread_cond_signal(&P.done_cv);
                    pthread_mutex_unlock(&P.mu);
                }
            }
            else
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
            /* Every ~256 pauses (a few us) the spinner offers its core: where the caller
               shares it (the other cores busy), a spin that kept it made the caller wait
               the whole spin (2 ms) or a time slice to return: on a loaded 2-core machine
               calls the workers took part in ran 3.5x slower than the caller alone, the
               caller's own CPU time 0.1 ms of an 8 ms call. Alone on its core, sched_yield
               returns at once. */
            if ((i & 255) == 0)
                sched_yield();
            if ((i & 127) == 0 && sd_now() - t0 > spin) {
                long nap = 25000, t1 = sd_now(), naps = atomic_load_explicit(&sd_nap_ns, memory_order_relaxed);
                while (sd_now() - t1 < naps) {
                    struct timespec ts = {0, nap};
                    nanosleep(&ts, NULL);
                    nap = nap < SD_NAP_MAX / 2 ? 2 * nap : SD_NAP_MAX;
                    job = (uint32_t)(atomic_load_explicit(&P.ticket, memory_order_acquire) >> 32);
                    if (job != seen || atomic_load_explicit(&P.stop, memory_order_relaxed))
                        break;
                }
                if (job != seen || atomic_load(&P.stop))
                    break;
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
    P.done_cv = c;
    atomic_store(&P.waiting, 0);
    P.nworkers = 0;
    atomic_store(&P.sleepers, 0);
    atomic_store(&P.stop, 0);
}

/* fn(ctx, c) for c in 0 .. nchunks-1 on nthreads threads (the caller one of them).
   Called without the GIL. */
static void sd_parallel(int nthreads, sd_task fn, void *ctx, Py_ssize_t nchunks)
{
    long until = atomic_load_explicit(&sd_backoff_until, memory_order_relaxed);
    if (until != 0 && sd_now() >= until) {
        atomic_store_explicit(&sd_backoff_until, 0, memory_order_relaxed);
        until = 0;
    }
    if (nthreads > 1 && nchunks > 1 && until == 0 && pthread_mutex_trylock(&P.call_mu) == 0) {
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
            long t0 = sd_now();
            Py_ssize_t ran = sd_run_job(job, 0);
            int stalled = 0;
            if (atomic_load_explicit(&P.done, memory_order_acquire) < nchunks) {
                long t1 = sd_now();
                long limit = atomic_load_explicit(&sd_stall_ns, memory_order_relaxed)
                             + (ran > 0 ? 2 * (t1 - t0) / ran : 0);
                for (unsigned spins = 0; atomic_load_explicit(&P.done, memory_order_acquire) < nchunks;) {
                    sd_pause();
                    if ((++spins & 63) == 0 && sd_now() - t1 > limit) {
                        /* A worker lost its core mid-chunk: sleep until its last chunk is
                           done (it signals), which frees our core for it, or for whoever
                           took its core. (sched_yield here handed our core to another
                           process for a whole time slice, worker done or not: on a loaded
                           2-core machine calls the workers took part in ran 3.5x slower
                           than the caller alone, with no stall counted.) */
                        stalled = 1;
                        pthread_mutex_lock(&P.mu);
                        atomic_store(&P.waiting, 1);
                        while (atomic_load(&P.done) < nchunks)
                            pthread_cond_wait(&P.done_cv, &P.mu);
                        atomic_store(&P.waiting, 0);
                        pthread_mutex_unlock(&P.mu);
                        break;
                    }
                }
            }
            if (stalled) {
                sd_backoff_ns = sd_backoff_ns ? sd_backoff_ns * 2 : SD_BACKOFF_FIRST_NS;
                if (sd_backoff_ns > SD_BACKOFF_MAX_NS)
                    sd_backoff_ns = SD_BACKOFF_MAX_NS;
                atomic_store_explicit(&sd_backoff_until, sd_now() + sd_backoff_ns, memory_order_relaxed);
                atomic_fetch_add_explicit(&sd_stalls, 1, memory_order_relaxed);
            }
            else
                sd_backoff_ns = 0;
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

/* A thread count from Python: any int, clamped to 1 .. SD_MAXW + 1 (a count beyond
   what a C long holds included); 0 with *nt set, -1 with TypeError for a non-int. */
static int sd_threads(PyObject *obj, long *nt)
{
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(obj, &overflow);
    if (v == -1 && !overflow && PyErr_Occurred())
        return -1;
    if (overflow > 0 || v > SD_MAXW + 1)
        v = SD_MAXW + 1;
    else if (overflow < 0 || v < 1)
        v = 1;
    *nt = v;
    return 0;
}

/* --- buffers ------------------------------------------------------------ */

/* 1 float32, 2 float64 (native, C-contiguous), else 0 with the view released and no
   error set, unless the request failed with an error other than a refusal (MemoryError:
   left set, the callers check PyErr_Occurred before answering "not handled"). */
static int sd_fbuf(PyObject *obj, Py_buffer *v, int writable)
{
    if (PyObject_GetBuffer(obj, v, PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        (void)contract_clear_buffer();
        return 0;
    }
    int kind = sd_kind(v);
    if (!kind || !PyBuffer_IsContiguous(v, 'C')) {
        PyBuffer_Release(v);
        return 0;
    }
    return kind;
}

/* [lo, hi) of chunk c of n elements in nchunks pieces. Boundaries fall on multiples of
   64 elements, and every chunk but a lone one has at least 64 (the blocks are shared
   out evenly; the last chunk takes the n % 64 left over): each element meets NumPy's
   loops, and ours, at the same place in their vector blocks as in one call over all n,
   and no chunk is short enough for a loop's short-array path unless n is. */
static inline void sd_range(Py_ssize_t n, Py_ssize_t nchunks, Py_ssize_t c, Py_ssize_t *lo, Py_ssize_t *hi)
{
    Py_ssize_t blocks = n / 64;
    if (nchunks > blocks)
        nchunks = blocks > 0 ? blocks : 1;
    if (c >= nchunks) {
        *lo = *hi = n;
        return;
    }
    /* blocks * c fits: blocks <= n / 64 and c < SD_MAXCHUNKS */
    *lo = 64 * (blocks * c / nchunks);
    *hi = c == nchunks - 1 ? n : 64 * (blocks * (c + 1) / nchunks);
}

static int sd_overlap(const char *p, const char *q, Py_ssize_t len)
{
    return p < q + len && q < p + len;
}

/* --- elementwise: NumPy's own inner loops on the pool ------------------------
   numpy.ufunc._resolve_dtypes_and_context + _get_strided_loop (NumPy >= 1.24)
   hand out a capsule "numpy_1.24_ufunc_call_info" whose layout NumPy documents
   (the strided loop's signature is the stable part). A loop that needs no
   Python API runs on a chunk as on the whole array: same loop, same values.
   Chunks start on multiples of 64 elements of aligned buffers (sd_range), so
   each element meets the loop where one call over the whole array meets it:
   NumPy's bits, NaN payloads included. */
typedef int(sd_np_loop)(void *context, char *const *data, const Py_ssize_t *dims,
                        const Py_ssize_t *strides, void *auxdata);
typedef struct {
    sd_np_loop *strided_loop;
    void *context;
    void *auxdata;
    unsigned char requires_pyapi;
    unsigned char no_floatingpoint_errors;
} sd_call_info;
#define SD_CALL_INFO "numpy_1.24_ufunc_call_info"

#define SD_MAXOPS 4
typedef struct {
    sd_call_info *info;
    int nops; /* inputs + the output */
    char *ptr[SD_MAXOPS];
    Py_ssize_t step[SD_MAXOPS]; /* each operand's stride: itemsize, or 0 for a scalar */
    Py_ssize_t n, nchunks;
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
    Py_ssize_t len = hi - lo;
    for (int i = 0; i < x->nops; i++)
        data[i] = x->ptr[i] + lo * x->step[i];
    if (x->info->strided_loop(x->info->context, data, &len, x->step, x->info->auxdata) < 0)
        atomic_store(&x->failed, 1);
}

/* Run the loop over n elements on nt threads (the GIL released); 1 done, 0 the loop
   reported an error (cleared: the caller declines and NumPy raises it again). */
static int sd_run_loop(sd_call_info *info, int nops, char **ptr, const Py_ssize_t *step,
                       Py_ssize_t n, Py_ssize_t itemsize, long nt)
{
    sd_loop_ctx x;
    x.info = info;
    x.nops = nops;
    for (int i = 0; i < nops; i++) {
        x.ptr[i] = ptr[i];
        x.step[i] = step[i];
    }
    x.n = n;
    x.nchunks = sd_chunks(n * itemsize, (int)nt);
    if (x.nchunks > n / 64)
        x.nchunks = n / 64 > 0 ? n / 64 : 1;
    atomic_init(&x.failed, 0);
    Py_BEGIN_ALLOW_THREADS
    sd_parallel((int)nt, sd_loop_task, &x, x.nchunks);
    Py_END_ALLOW_THREADS
    if (atomic_load(&x.failed)) {
        (void)contract_clear(PyExc_Exception); /* (anything else: the caller propagates it) */
        return 0;
    }
    return 1;
}

/* The float buffers of an elementwise call: also aligned to their itemsize (NumPy
   copies unaligned data through buffers first: its loops then run on other lengths). */
static int sd_ew_buf(PyObject *obj, Py_buffer *v, int writable)
{
    int k = sd_fbuf(obj, v, writable);
    if (k && ((uintptr_t)v->buf % (uintptr_t)v->itemsize) != 0) {
        PyBuffer_Release(v);
        return 0;
    }
    return k;
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
            (void)contract_clear(PyExc_OverflowError); /* (the only error of an exact int) */
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

/* SD_EW_BINARY_OPS expanded: each op's NumPy ufunc name and whether it takes a scalar. */
#define SD_BIN_NAME(CODE, UFUNC, SCALAR) [CODE] = #UFUNC,
#define SD_BIN_SCALAR(CODE, UFUNC, SCALAR) [CODE] = SCALAR,
static const char *const sd_bin_ufunc[SD_NBIN] = {SD_EW_BINARY_OPS(SD_BIN_NAME)};
static const char sd_bin_scalar[SD_NBIN] = {SD_EW_BINARY_OPS(SD_BIN_SCALAR)};

/* NumPy's strided loop for op on kind (1 float32, 2 float64) with the scalar, if any,
   on side sside (0 none, 1 a, 2 b): the strides NumPy itself passes for such a call
   (0 for the scalar). Fetched once, with the GIL, and kept for the process (a capsule;
   Py_None where NumPy has no such loop). NULL: none (no error set). */
static PyObject *sd_bin_caps[SD_NBIN][2][3];

static sd_call_info *sd_bin_loop(int op, int kind, int sside)
{
    PyObject **slot = &sd_bin_caps[op][kind - 1][sside];
    if (*slot == NULL) {
        PyObject *np = NULL, *uf = NULL, *dt = NULL, *res = NULL, *got = NULL;
        Py_ssize_t isz = kind == 1 ? 4 : 8;
        PyObject *cap = Py_None;
        np = PyImport_ImportModule("numpy");
        if (np)
            uf = PyObject_GetAttrString(np, sd_bin_ufunc[op]);
        if (uf)
            dt = PyObject_CallMethod(np, "dtype", "s", kind == 1 ? "float32" : "float64");
        if (dt)
            res = PyObject_CallMethod(uf, "_resolve_dtypes_and_context", "((OOO))", dt, dt, Py_None);
        if (res && PyTuple_Check(res) && PyTuple_GET_SIZE(res) == 2 && PyCapsule_IsValid(PyTuple_GET_ITEM(res, 1), SD_CALL_INFO)) {
            PyObject *dts = PyTuple_GET_ITEM(res, 0);
            int same = PyTuple_Check(dts) && PyTuple_GET_SIZE(dts) == 3;
            for (Py_ssize_t i = 0; same && i < 3; i++) {
                int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(dts, i), dt, Py_EQ);
                same = eq == 1;
            }
            if (same) {
                PyObject *c = PyTuple_GET_ITEM(res, 1), *fn = PyObject_GetAttrString(uf, "_get_strided_loop");
                PyObject *kw = Py_BuildValue("{s(nnn)}", "fixed_strides", sside == 1 ? (Py_ssize_t)0 : isz,
                                             sside == 2 ? (Py_ssize_t)0 : isz, isz);
                PyObject *pos = PyTuple_Pack(1, c);
                if (fn && kw && pos)
                    got = PyObject_Call(fn, pos, kw);
                Py_XDECREF(pos);
                Py_XDECREF(kw);
                Py_XDECREF(fn);
                if (got)
                    cap = c;
            }
        }
        /* an older NumPy, or a loop it won't hand out: declined for good; a KeyboardInterrupt
           or MemoryError propagates (the callers check PyErr_Occurred) and nothing is kept */
        if (!contract_clear(PyExc_Exception))
            cap = NULL;
        if (cap != NULL && *slot == NULL) { /* (NumPy's Python code may have let another thread fill it) */
            Py_INCREF(cap);
            *slot = cap;
        }
        Py_XDECREF(got);
        Py_XDECREF(res);
        Py_XDECREF(dt);
        Py_XDECREF(uf);
        Py_XDECREF(np);
    }
    if (PyErr_Occurred() || *slot == NULL || *slot == Py_None) /* (an error: propagates) */
        return NULL;
    sd_call_info *info = (sd_call_info *)PyCapsule_GetPointer(*slot, SD_CALL_INFO);
    if (info == NULL || info->strided_loop == NULL || info->requires_pyapi) {
        (void)contract_clear(PyExc_ValueError); /* (a capsule of another name) */
        return NULL;
    }
    return info;
}

/* ew_binary(op, a, b, out, nthreads) -> bool: out = op(a, b) (SD_EW_BINARY_OPS) over
   equal-sized C-contiguous float32/float64 buffers, or one of a, b a Python float/int
   for the ops that take one; False (nothing written) for anything else. */
static PyObject *
ew_binary(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("ew_binary", nargs, 5, 5) < 0)
        return NULL;
    long op = PyLong_AsLong(args[0]), nt;
    if ((op == -1 && PyErr_Occurred()) || sd_threads(args[4], &nt) < 0)
        return NULL;
    if (op < 0 || op >= SD_NBIN) {
        PyErr_Format(PyExc_ValueError, "ew_binary(): op must be 0..%d; got %ld", SD_NBIN - 1, op);
        return NULL;
    }
    int sside = 0;
    if (sd_bin_scalar[op] && (PyFloat_CheckExact(args[1]) || PyLong_CheckExact(args[1])))
        sside = 1;
    else if (sd_bin_scalar[op] && (PyFloat_CheckExact(args[2]) || PyLong_CheckExact(args[2])))
        sside = 2;
    Py_buffer v[3]; /* a, b, out: v[sside - 1] unused for a scalar */
    int held[3] = {0, 0, 0}, kind = 0, ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
        if (i == sside - 1)
            continue;
        int k = sd_ew_buf(args[i + 1], &v[i], i == 2);
        held[i] = k != 0;
        ok = k != 0 && (kind == 0 || k == kind);
        kind = k;
    }
    union { float f; double d; } sv;
    double d = 0.0;
    if (ok && sside) {
        ok = sd_scalar(args[sside], kind, &d);
        if (kind == 1)
            sv.f = (float)d;
        else
            sv.d = d;
    }
    /* equal sizes; out the same memory as an input, or none of it */
    for (int i = 0; i < 2 && ok; i++)
        if (held[i])
            ok = v[i].len == v[2].len && (v[i].buf == v[2].buf || !sd_overlap(v[i].buf, v[2].buf, v[2].len));
    sd_call_info *info = ok && v[2].len ? sd_bin_loop((int)op, kind, sside) : NULL;
    if (ok && v[2].len) {
        ok = info != NULL;
        if (ok) {
            Py_ssize_t isz = v[2].itemsize;
            char *ptr[3];
            Py_ssize_t step[3];
            for (int i = 0; i < 3; i++) {
                ptr[i] = held[i] ? (char *)v[i].buf : (char *)&sv;
                step[i] = held[i] ? isz : 0;
            }
            ok = sd_run_loop(info, 3, ptr, step, v[2].len / isz, isz, nt);
        }
    }
    for (int i = 0; i < 3; i++)
        if (held[i])
            PyBuffer_Release(&v[i]);
    if (!ok && PyErr_Occurred())
        return NULL; /* (KeyboardInterrupt, MemoryError: never answered as "not handled") */
    return PyBool_FromLong(ok);
}

/* --- relu and the activations with parameters: one pass ---------------------------------
   act(op, x, out, p, q, nthreads) -> bool, for C-contiguous float32/float64 x and out of one
   dtype and size (the same memory or disjoint; False: not handled). The values are those of
   strided/_api/activations.py's NumPy formulas, operation for operation, with p and q
   already in x's dtype (the caller converts them as NumPy converts a Python float next to
   an array of that dtype):
   - SD_ACT_CLAMP, hardtanh: where(x < p, p, x), then where(y > q, q, y) (NaN and -0.0
     stay: both comparisons are false for them);
   - SD_ACT_LEAKY_MAX, leaky_relu with 0 < slope < 1: maximum(x, x * p), NumPy's maximum
     ((x >= t || x != x) ? x : t: a NaN x is returned itself, signalling or not);
   - SD_ACT_LEAKY, other slopes: where(x > 0, x, x * p);
   - SD_ACT_RELU: x < 0 ? +0 : x (relu below);
   - SD_ACT_GELU: gelu with approximate='none' of float32, and SD_ACT_ERF: its erf32 (below);
   - SD_ACT_HARDSIGMOID: x <= -3 ? 0 : x >= 3 ? 1 : x / 6 + 0.5, and SD_ACT_HARDSWISH:
     x <= -3 ? x * 0 : x >= 3 ? x : x * (x + 3) / 6 (strided.torch.nn.functional's where's;
     a NaN takes the last branch: its payload, quieted, as NumPy's arithmetic).
   Before: hardtanh 9-28x PyTorch's time at 1e4-1e5 float32 (two where's over a random
   condition branch per element), leaky_relu 2.3-3.3x, hardsigmoid and hardswish 11x. */
enum { SD_ACT_CLAMP = 0, SD_ACT_LEAKY_MAX = 1, SD_ACT_LEAKY = 2, SD_ACT_RELU = 3, SD_ACT_GELU = 4,
       SD_ACT_HARDSIGMOID = 5, SD_ACT_HARDSWISH = 6, SD_ACT_ERF = 7 };

/* SD_ACT_GELU, float32 only: gelu(x) = h * erf32(x * sqrt(1/2)) + h, h = x * 0.5, as
   activations.py's gelu and erf32: erf in float64 by a polynomial per half-unit interval of
   |t| (the coefficients are activations.py's _ERF_COEF, printed with repr: the same doubles,
   stored here coefficient by coefficient: sd_erf_coef[j] holds the eight intervals' j-th),
   Estrin's scheme (SD_ESTRIN), rounded once to float32; a NaN argument is its
   own erf. No fused multiply-add (-std=c11; the AVX-512 loop spells each multiply and add).
   SciPy's erf (the float64 path) is a scalar loop: 1e5 float32 ~4 ms; stop 51's four
   intervals of sixteen coefficients, three selects a coefficient: 695 us; PyTorch's 57. */
#define SD_ERF_DEG 12
#define SD_SQRT1_2 0.7071067811865475 /* activations.py's _SQRT1_2, 1 / math.sqrt(2.0) */
static const double sd_erf_coef[SD_ERF_DEG][8] __attribute__((aligned(64))) = {
    {1.1283791670955126, 0.7111556336535181, 0.9229001282564597, 0.9866716712191804, 0.9985372834133195, 0.9998993780778804, 0.9999956972205363, 0.9999998862727434},
    {-0.37612638903183754, 0.6429310691952095, 0.2365211224472892, 0.05277499593015087, 0.0071423190220180266, 0.0005862772470937142, 2.918902538359729e-05, 8.814321912335496e-07},
    {0.11283791670955126, -0.4821983018998296, -0.29565140306089954, -0.09235624287548982, -0.01607021780027986, -0.0016122624295494868, -9.486433243279061e-05, -3.30537071987407e-06},
    {-0.026866170645131242, 0.02678879454730521, 0.16753579506866303, 0.09015728471343301, 0.021724553691921413, 0.002760388705156704, 0.00019580971193023053, 7.969616060377052e-06},
    {0.005223977625441806, 0.15068696998239123, -0.006159403897076177, -0.048102210256654246, -0.01908338349883803, -0.0032581136518982476, -0.0002865693496689663, -1.3841239362501154e-05},
    {-0.0008548327023363943, -0.0532427287017783, -0.04718103674700974, 0.006624361575530852, 0.010657679174968014, 0.0027558083972551804, 0.00031379722884593725, 1.8370975373089447e-05},
    {0.00012055332969230665, -0.026872553292873545, 0.02130125021969763, 0.008963074095448189, -0.002904366513263192, -0.00165732792797319, -0.0002635276905594633, -1.9272756804312935e-05},
    {-1.4925649162903559e-05, 0.01843520334097901, 0.0036260059926181156, -0.006058758802372549, -0.0006704566015481165, 0.0006460421048297036, 0.00016999118520779564, 1.6275277203802863e-05},
    {1.6462038363970583e-06, 0.00230314367006075, -0.005696976904484913, 0.0007291554017542642, 0.0009997858665201566, -8.899560262969834e-05, -8.16727378688544e-05, -1.1127126373843726e-05},
    {-1.636264690374604e-07, -0.003967276391241565, 0.0008769131561911635, 0.0008944087432204974, -0.0003693611248127416, -7.125854428691467e-05, 2.592093832258929e-05, 6.109665384252861e-06},
    {1.4721521176389801e-08, 0.00016660193996439915, 0.0007835596462556801, -0.0004299765455474491, -1.564581012825583e-05, 5.477627862383016e-05, -1.9717813120931633e-06, -2.6192729501426734e-06},
    {-1.0958654538847351e-09, 0.0006099377902781329, -0.00031362872546460645, -8.69684696263109e-06, 6.486654060015188e-05, -1.5339902089340584e-05, -2.965628680054704e-06, 7.642880305561756e-07}
};
typedef struct {
    char *x, *o;
    Py_ssize_t n, nchunks;
    int kind, op;
    double p, q;
} sd_act_ctx;

/* erf's polynomial at v by Estrin's scheme (pairs c[2i] + c[2i+1] v, joined by v^2, v^4,
   v^8: a chain of depth 8 where Horner's is 22), in ADD and MUL of the lanes' type, C(j) the
   lanes' j-th coefficient; activations.py's _erf32 spells the same operations */
#define SD_ESTRIN(T, ADD, MUL, C, v, out)                                                     \
    do {                                                                                      \
        T v2_ = MUL(v, v), v4_ = MUL(v2_, v2_), v8_ = MUL(v4_, v4_);                          \
        T p0_ = ADD(C(0), MUL(C(1), v)), p1_ = ADD(C(2), MUL(C(3), v));                       \
        T p2_ = ADD(C(4), MUL(C(5), v)), p3_ = ADD(C(6), MUL(C(7), v));                       \
        T p4_ = ADD(C(8), MUL(C(9), v)), p5_ = ADD(C(10), MUL(C(11), v));                     \
        T q0_ = ADD(p0_, MUL(p1_, v2_)), q1_ = ADD(p2_, MUL(p3_, v2_));                       \
        T q2_ = ADD(p4_, MUL(p5_, v2_));                                                      \
        out = ADD(ADD(q0_, MUL(q1_, v4_)), MUL(q2_, v8_));                                    \
    } while (0)
#define SD_SADD(x, y) ((x) + (y))
#define SD_SMUL(x, y) ((x) * (y))

/* erf32 of one float32 argument s and gelu of one element: the reference the vector loops
   below are, lane by lane */
static inline float
sd_erf1(float s)
{
    double t = s, a = __builtin_fabs(t), k = __builtin_floor(a * 2.0), acc;
    k = k < 7.0 ? k : 7.0; /* (a NaN: 7; its result is replaced below) */
    a = a < 4.0 ? a : 4.0;
    int i = (int)k;
    double v = i == 0 ? a * a : a - (k * 0.5 + 0.25);
#define SD_C1(j) sd_erf_coef[j][i]
    SD_ESTRIN(double, SD_SADD, SD_SMUL, SD_C1, v, acc);
#undef SD_C1
    double r = i == 0 ? a * acc : acc;
    float e = (float)__builtin_copysign(r, t);
    return s != s ? s : e;
}
static inline float
sd_gelu1(float x)
{
    float h = x * 0.5f, e = sd_erf1(x * (float)SD_SQRT1_2);
    return h * e + h;
}

#ifdef SD_HAVE_AVX2_X
/* sd_erf1 of eight lanes (AVX-512F): each lane's coefficient is one vpermpd of
   sd_erf_coef[j] by k (k + 1.5 * 2^52 puts k in the low bits of a lane: no DQ conversion);
   minpd gives its second operand where one is NaN, as sd_erf1's selects */
SD_AVX512 static inline __attribute__((always_inline)) __m256
sd_erf8(__m256 s)
{
    const __m512d four = _mm512_set1_pd(4.0);
    const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ULL);
    __m512d t = _mm512_cvtps_pd(s), a = _mm512_abs_pd(t), acc;
    __m512d k = _mm512_roundscale_pd(_mm512_mul_pd(a, _mm512_set1_pd(2.0)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    k = _mm512_min_pd(k, _mm512_set1_pd(7.0));
    a = _mm512_min_pd(a, four);
    __mmask8 m0 = _mm512_cmp_pd_mask(k, _mm512_setzero_pd(), _CMP_EQ_OQ);
    __m512d v = _mm512_mask_blend_pd(
        m0, _mm512_sub_pd(a, _mm512_add_pd(_mm512_mul_pd(k, _mm512_set1_pd(0.5)), _mm512_set1_pd(0.25))),
        _mm512_mul_pd(a, a));
    __m512i idx = _mm512_castpd_si512(_mm512_add_pd(k, _mm512_set1_pd(6755399441055744.0)));
#define SD_C8(j) _mm512_permutexvar_pd(idx, _mm512_load_pd(sd_erf_coef[j]))
    SD_ESTRIN(__m512d, _mm512_add_pd, _mm512_mul_pd, SD_C8, v, acc);
#undef SD_C8
    __m512d r = _mm512_mask_blend_pd(m0, acc, _mm512_mul_pd(a, acc));
    __m512i rs = _mm512_or_si512(_mm512_andnot_si512(sign, _mm512_castpd_si512(r)),
                                 _mm512_and_si512(sign, _mm512_castpd_si512(t)));
    __m256 e = _mm512_cvtpd_ps(_mm512_castsi512_pd(rs));
    return _mm256_blendv_ps(e, s, _mm256_cmp_ps(s, s, _CMP_UNORD_Q));
}
SD_AVX512 static inline __attribute__((always_inline)) __m256
sd_gelu8(__m256 x)
{
    __m256 h = _mm256_mul_ps(x, _mm256_set1_ps(0.5f));
    __m256 e = sd_erf8(_mm256_mul_ps(x, _mm256_set1_ps((float)SD_SQRT1_2)));
    return _mm256_add_ps(_mm256_mul_ps(h, e), h);
}

/* sd_erf1 of four lanes (AVX2): a lane's coefficient is vpermps (permutevar8x32: the
   double's two halves, indices 2 (k & 3) and 2 (k & 3) + 1) from the intervals 0-3 and 4-7
   halves of sd_erf_coef[j], then a blend on k >= 4 */
SD_AVX2 static inline __attribute__((always_inline)) __m128
sd_erf4(__m128 s)
{
    const __m256d four = _mm256_set1_pd(4.0),
                  absm = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFLL));
    __m256d t = _mm256_cvtps_pd(s), a = _mm256_and_pd(t, absm), acc;
    __m256d k = _mm256_round_pd(_mm256_mul_pd(a, _mm256_set1_pd(2.0)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    k = _mm256_min_pd(k, _mm256_set1_pd(7.0));
    a = _mm256_min_pd(a, four);
    __m256d m0 = _mm256_cmp_pd(k, _mm256_setzero_pd(), _CMP_EQ_OQ), up = _mm256_cmp_pd(k, four, _CMP_GE_OQ);
    __m256d v = _mm256_blendv_pd(
        _mm256_sub_pd(a, _mm256_add_pd(_mm256_mul_pd(k, _mm256_set1_pd(0.5)), _mm256_set1_pd(0.25))),
        _mm256_mul_pd(a, a), m0);
    __m256i k2 = _mm256_slli_epi64(_mm256_and_si256(_mm256_castpd_si256(_mm256_add_pd(k, _mm256_set1_pd(6755399441055744.0))),
                                                    _mm256_set1_epi64x(3)), 1);
    __m256i idx = _mm256_or_si256(k2, _mm256_slli_epi64(_mm256_add_epi64(k2, _mm256_set1_epi64x(1)), 32));
#define SD_HALF(j, o) _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_load_pd(sd_erf_coef[j] + o)), idx))
#define SD_C4(j) _mm256_blendv_pd(SD_HALF(j, 0), SD_HALF(j, 4), up)
    SD_ESTRIN(__m256d, _mm256_add_pd, _mm256_mul_pd, SD_C4, v, acc);
#undef SD_C4
#undef SD_HALF
    __m256d r = _mm256_blendv_pd(acc, _mm256_mul_pd(a, acc), m0);
    r = _mm256_or_pd(_mm256_and_pd(r, absm), _mm256_andnot_pd(absm, t));
    __m128 e = _mm256_cvtpd_ps(r);
    return _mm_blendv_ps(e, s, _mm_cmp_ps(s, s, _CMP_UNORD_Q));
}
SD_AVX2 static inline __attribute__((always_inline)) __m128
sd_gelu4(__m128 x)
{
    __m128 h = _mm_mul_ps(x, _mm_set1_ps(0.5f)), e = sd_erf4(_mm_mul_ps(x, _mm_set1_ps((float)SD_SQRT1_2)));
    return _mm_add_ps(_mm_mul_ps(h, e), h);
}
#endif

/* NAME##_run (one element at a time: the tails; no AVX2), NAME##_run512 (four vectors of
   eight an iteration: independent work for the out-of-order core to overlap), NAME##_run256
   (one vector of four: sixteen registers hold one) and NAME##_any (the widest the processor
   has: sd_avx512 and sd_avx2, set at import; sum_isa(False) turns AVX-512 off for the
   tests) over float32 elements lo..hi */
#ifdef SD_HAVE_AVX2_X
#define SD_ERF_LOOPS(NAME, F1, F8, F4)                                                        \
    static void NAME##_run(const float *X, float *O, Py_ssize_t lo, Py_ssize_t hi)            \
    {                                                                                         \
        for (Py_ssize_t i = lo; i < hi; i++)                                                  \
            O[i] = F1(X[i]);                                                                  \
    }                                                                                         \
    SD_AVX512 static void NAME##_run512(const float *X, float *O, Py_ssize_t lo, Py_ssize_t hi) \
    {                                                                                         \
        Py_ssize_t i = lo;                                                                    \
        for (; i + 32 <= hi; i += 32) {                                                       \
            __m256 r0 = F8(_mm256_loadu_ps(X + i)), r1 = F8(_mm256_loadu_ps(X + i + 8));      \
            __m256 r2 = F8(_mm256_loadu_ps(X + i + 16)), r3 = F8(_mm256_loadu_ps(X + i + 24)); \
            _mm256_storeu_ps(O + i, r0);                                                      \
            _mm256_storeu_ps(O + i + 8, r1);                                                  \
            _mm256_storeu_ps(O + i + 16, r2);                                                 \
            _mm256_storeu_ps(O + i + 24, r3);                                                 \
        }                                                                                     \
        NAME##_run(X, O, i, hi);                                                              \
    }                                                                                         \
    SD_AVX2 static void NAME##_run256(const float *X, float *O, Py_ssize_t lo, Py_ssize_t hi)  \
    {                                                                                         \
        Py_ssize_t i = lo;                                                                    \
        for (; i + 4 <= hi; i += 4)                                                           \
            _mm_storeu_ps(O + i, F4(_mm_loadu_ps(X + i)));                                    \
        NAME##_run(X, O, i, hi);                                                              \
    }                                                                                         \
    static void NAME##_any(const float *X, float *O, Py_ssize_t lo, Py_ssize_t hi)            \
    {                                                                                         \
        if (sd_avx512)                                                                        \
            NAME##_run512(X, O, lo, hi);                                                      \
        else if (sd_avx2)                                                                     \
            NAME##_run256(X, O, lo, hi);                                                      \
        else                                                                                  \
            NAME##_run(X, O, lo, hi);                                                         \
    }
#else
#define SD_ERF_LOOPS(NAME, F1, F8, F4)                                                        \
    static void NAME##_any(const float *X, float *O, Py_ssize_t lo, Py_ssize_t hi)            \
    {                                                                                         \
        for (Py_ssize_t i = lo; i < hi; i++)                                                  \
            O[i] = F1(X[i]);                                                                  \
    }
#endif
SD_ERF_LOOPS(sd_gelu, sd_gelu1, sd_gelu8, sd_gelu4)
SD_ERF_LOOPS(sd_erf, sd_erf1, sd_erf8, sd_erf4)
#undef SD_ERF_LOOPS
#undef SD_ESTRIN
#undef SD_SADD
#undef SD_SMUL

/* SD_ACT_HARDSIGMOID and SD_ACT_HARDSWISH of elements lo..hi: every branch computed, then
   selected (built without trapping math, so that the selects become blends;
   the values are the same operations') */
#define SD_HARD(T)                                                                            \
    SD_CLONES __attribute__((optimize("no-trapping-math"), noinline)) static void              \
    sd_hard_##T(const T *X, T *O, Py_ssize_t lo, Py_ssize_t hi, int swish)                    \
    {                                                                                         \
        if (swish)                                                                            \
            for (Py_ssize_t i = lo; i < hi; i++) {                                            \
                T v = X[i], m = v * (v + (T)3) / (T)6, u = v >= (T)3 ? v : m;                 \
                O[i] = v <= (T)-3 ? v * (T)0 : u;                                             \
            }                                                                                 \
        else                                                                                  \
            for (Py_ssize_t i = lo; i < hi; i++) {                                            \
                T v = X[i], m = v / (T)6 + (T)0.5, u = v >= (T)3 ? (T)1 : m;                  \
                O[i] = v <= (T)-3 ? (T)0 : u;                                                 \
            }                                                                                 \
    }
SD_HARD(float)
SD_HARD(double)
#undef SD_HARD

#define SD_ACT_OPS(T, X, O)                                                                   \
    do {                                                                                      \
        if (r->op == SD_ACT_RELU)                                                             \
            for (Py_ssize_t i = lo; i < hi; i++)                                              \
                O[i] = X[i] < 0 ? 0 : X[i];                                                   \
        else if (r->op == SD_ACT_CLAMP)                                                       \
            for (Py_ssize_t i = lo; i < hi; i++) {                                            \
                T v = X[i] < p ? p : X[i];                                                    \
                O[i] = v > q ? q : v;                                                         \
            }                                                                                 \
        else if (r->op == SD_ACT_GELU)                                                        \
            sd_gelu_any((const float *)X, (float *)O, lo, hi);                                \
        else if (r->op == SD_ACT_ERF)                                                         \
            sd_erf_any((const float *)X, (float *)O, lo, hi);                                 \
        else if (r->op == SD_ACT_HARDSIGMOID || r->op == SD_ACT_HARDSWISH)                    \
            sd_hard_##T(X, O, lo, hi, r->op == SD_ACT_HARDSWISH);                             \
        else if (r->op == SD_ACT_LEAKY_MAX)                                                   \
            for (Py_ssize_t i = lo; i < hi; i++) {                                            \
                T v = X[i], t = v * p;                                                        \
                O[i] = (v >= t || v != v) ? v : t;                                            \
            }                                                                                 \
        else                                                                                  \
            for (Py_ssize_t i = lo; i < hi; i++)                                              \
                O[i] = X[i] > 0 ? X[i] : X[i] * p;                                            \
    } while (0)
/* in place, or into a disjoint out (restrict: the compiler vectorises both) */
#define SD_ACT_LOOP(T)                                                                        \
    do {                                                                                      \
        const T p = (T)r->p, q = (T)r->q;                                                     \
        if (r->x == r->o) {                                                                   \
            T *y = (T *)r->o;                                                                 \
            SD_ACT_OPS(T, y, y);                                                              \
        }                                                                                     \
        else {                                                                                \
            const T *restrict x = (const T *)r->x;                                            \
            T *restrict o = (T *)r->o;                                                        \
            SD_ACT_OPS(T, x, o);                                                              \
        }                                                                                     \
    } while (0)

/* (built without trapping math: leaky_relu's x > 0 ? x : x * p with a slope outside (0, 1)
   branched per element, 441 us at 1e5 float32 on a random sign against PyTorch's 24; the
   selects become blends, the values the same operations') */
SD_CLONES __attribute__((optimize("no-trapping-math"))) static void sd_act_task(void *ctx, Py_ssize_t c)
{
    sd_act_ctx *r = (sd_act_ctx *)ctx;
    Py_ssize_t lo, hi;
    sd_range(r->n, r->nchunks, c, &lo, &hi);
    if (r->kind == 1)
        SD_ACT_LOOP(float);
    else
        SD_ACT_LOOP(double);
}
#undef SD_ACT_LOOP
#undef SD_ACT_OPS

/* op over x into out on nt threads: 1 done, 0 not handled (not C-contiguous float32/float64
   buffers of one dtype and size, or overlapping but not the same), -1 an error */
static int sd_act_run(int op, PyObject *x, PyObject *out, double p, double q, long nt)
{
    Py_buffer v[2];
    int kx = sd_ew_buf(x, &v[0], 0);
    if (!kx)
        return PyErr_Occurred() ? -1 : 0;
    int ko = sd_ew_buf(out, &v[1], 1);
    if (!ko) {
        PyBuffer_Release(&v[0]);
        return PyErr_Occurred() ? -1 : 0;
    }
    int ok = kx == ko && v[0].len == v[1].len
             && (v[0].buf == v[1].buf || !sd_overlap(v[0].buf, v[1].buf, v[1].len))
             && ((op != SD_ACT_GELU && op != SD_ACT_ERF) || kx == 1); /* (gelu, erf: float32 only) */
    if (ok && v[1].len) {
        sd_act_ctx r;
        r.x = (char *)v[0].buf;
        r.o = (char *)v[1].buf;
        r.kind = kx;
        r.op = op;
        r.p = p;
        r.q = q;
        r.n = v[1].len / v[1].itemsize;
        r.nchunks = sd_chunks(v[1].len, (int)nt);
        if (r.nchunks > r.n / 64)
            r.nchunks = r.n / 64 > 0 ? r.n / 64 : 1;
        Py_BEGIN_ALLOW_THREADS
        sd_parallel((int)nt, sd_act_task, &r, r.nchunks);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&v[0]);
    PyBuffer_Release(&v[1]);
    return ok;
}

static PyObject *
act(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("act", nargs, 6, 6) < 0)
        return NULL;
    long nt, op = PyLong_AsLong(args[0]);
    if (op == -1 && PyErr_Occurred())
        return NULL;
    if (op < SD_ACT_CLAMP || op > SD_ACT_ERF) {
        PyErr_Format(PyExc_ValueError, "act(): unknown op %ld", op);
        return NULL;
    }
    double p = PyFloat_AsDouble(args[3]), q = PyFloat_AsDouble(args[4]);
    if (PyErr_Occurred() || sd_threads(args[5], &nt) < 0)
        return NULL;
    int ok = sd_act_run((int)op, args[1], args[2], p, q, nt);
    return ok < 0 ? NULL : PyBool_FromLong(ok);
}

/* relu(x, out, nthreads) -> bool: out = relu(x) over equal-sized C-contiguous float32 or
   float64 buffers of one type (out the same memory as x, or none of it): x < 0 ? +0 : x,
   element by element (act's SD_ACT_RELU). That is PyTorch's relu bit for bit: NaN stays
   (its payload too), -0.0 stays -0.0 (not < 0), negatives give +0. One pass, a compare and
   a blend the compiler vectorises. False (nothing written) for anything else. */
static PyObject *
relu(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("relu", nargs, 3, 3) < 0)
        return NULL;
    long nt;
    if (sd_threads(args[2], &nt) < 0)
        return NULL;
    int ok = sd_act_run(SD_ACT_RELU, args[0], args[1], 0.0, 0.0, nt);
    return ok < 0 ? NULL : PyBool_FromLong(ok);
}

/* cast_ok(a, lo, hi) -> bool or None: whether every element v of a C-contiguous float32 or
   float64 buffer has an integer value in [lo, hi) after truncation, trunc(v) >= lo and v < hi
   (NaN is neither), as astype's range check asks of a cast to an integer type (lo, hi that
   type's bounds as floats: views._cast_range); None for any other buffer. One pass, no
   early exit: the compiler vectorises the compares. */
#define SD_CAST_OK(T)                                                                          \
    do {                                                                                       \
        const T *p = (const T *)v.buf;                                                         \
        const T l = (T)lo, h = (T)hi;                                                          \
        int bad = 0;                                                                           \
        for (Py_ssize_t i = 0; i < n; i++)                                                     \
            bad |= !(p[i] < h) | !(sd_trunc_##T(p[i]) >= l);                                   \
        ok = !bad;                                                                             \
    } while (0)
static inline float sd_trunc_float(float x) { return __builtin_truncf(x); }
static inline double sd_trunc_double(double x) { return __builtin_trunc(x); }
SD_CLONES static int sd_cast_ok(Py_buffer v, int kind, double lo, double hi)
{
    Py_ssize_t n = v.len / v.itemsize;
    int ok;
    if (kind == 1)
        SD_CAST_OK(float);
    else
        SD_CAST_OK(double);
    return ok;
}
#undef SD_CAST_OK
static PyObject *
cast_ok(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("cast_ok", nargs, 3, 3) < 0)
        return NULL;
    double lo = PyFloat_AsDouble(args[1]), hi = PyFloat_AsDouble(args[2]);
    if (PyErr_Occurred())
        return NULL;
    Py_buffer v;
    int kind = sd_fbuf(args[0], &v, 0);
    if (!kind)
        Py_RETURN_NONE;
    /* (float32 bounds: powers of two and their negatives, exact in float32) */
    int ok = kind == 1 && ((double)(float)lo != lo || (double)(float)hi != hi) ? -1 : sd_cast_ok(v, kind, lo, hi);
    PyBuffer_Release(&v);
    if (ok < 0)
        Py_RETURN_NONE;
    return PyBool_FromLong(ok);
}

/* ew_loop(call_info, inputs, out, nthreads) -> bool: NumPy's loop over equal-sized
   C-contiguous buffers of one float type (False: not handled, nothing promised
   about out). */
static PyObject *
ew_loop(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("ew_loop", nargs, 4, 4) < 0)
        return NULL;
    long nt;
    if (sd_threads(args[3], &nt) < 0)
        return NULL;
    if (!PyCapsule_IsValid(args[0], SD_CALL_INFO) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "ew_loop(): expected a NumPy ufunc call-info capsule and a tuple");
        return NULL;
    }
    sd_call_info *info = (sd_call_info *)PyCapsule_GetPointer(args[0], SD_CALL_INFO);
    if (info == NULL)
        return NULL;
    Py_ssize_t nin = PyTuple_GET_SIZE(args[1]);
    if (info->strided_loop == NULL || info->requires_pyapi || nin < 1 || nin >= SD_MAXOPS)
        Py_RETURN_FALSE;
    Py_buffer v[SD_MAXOPS];
    int got = 0, ok = 1, kind = 0;
    for (Py_ssize_t i = 0; i <= nin && ok; i++) {
        PyObject *obj = i < nin ? PyTuple_GET_ITEM(args[1], i) : args[2];
        int k = sd_ew_buf(obj, &v[i], i == nin);
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
        char *ptr[SD_MAXOPS];
        Py_ssize_t step[SD_MAXOPS];
        for (int i = 0; i <= nin; i++) {
            ptr[i] = (char *)v[i].buf;
            step[i] = v[0].itemsize;
        }
        ok = sd_run_loop(info, (int)nin + 1, ptr, step, v[0].len / v[0].itemsize, v[0].itemsize, nt);
    }
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&v[i]);
    if (!ok && PyErr_Occurred())
        return NULL;
    return PyBool_FromLong(ok);
}

/* --- where: a select without branches --------------------------------------------------------
   select(c, a, b, out, nthreads) -> bool: out[i] = c[i] ? a[i] : b[i] over C-contiguous buffers,
   c of bools, a, b and out of one itemsize (1, 2, 4, 8 or 16 bytes: the elements' bits are
   copied, NaN payloads and all), a or b of one element standing for every element (a
   scalar); out the same size as c. NumPy's and PyTorch's where branch per element: with a
   random condition 1e5 float32 elements took 430 us in either (a mispredicted branch for
   every other element) against 65 us with a constant one; a mask and two ands vectorise. False
   (nothing written) for anything else. */
typedef struct {
    const unsigned char *c;
    const char *a, *b;
    char *o;
    Py_ssize_t n, isz, nchunks;
    int sa, sb; /* a, b: one element for all */
} sd_sel_ctx;
#define SD_SEL(U)                                                                               \
    do {                                                                                        \
        const U *A = (const U *)r->a, *B = (const U *)r->b;                                     \
        U *O = (U *)r->o;                                                                       \
        const U a0 = A[0], b0 = B[0];                                                           \
        for (Py_ssize_t i = lo; i < hi; i++) {                                                  \
            U m = (U)0 - (U)(r->c[i] != 0), x = r->sa ? a0 : A[i], y = r->sb ? b0 : B[i];       \
            O[i] = (x & m) | (y & ~m);                                                          \
        }                                                                                       \
    } while (0)
SD_CLONES static void sd_sel_task(void *ctx, Py_ssize_t c)
{
    sd_sel_ctx *r = (sd_sel_ctx *)ctx;
    Py_ssize_t lo, hi;
    sd_range(r->n, r->nchunks, c, &lo, &hi);
    switch (r->isz) {
    case 1: SD_SEL(uint8_t); break;
    case 2: SD_SEL(uint16_t); break;
    case 4: SD_SEL(uint32_t); break;
    case 8: SD_SEL(uint64_t); break;
    default: { /* 16: two halves */
        const uint64_t *A = (const uint64_t *)r->a, *B = (const uint64_t *)r->b;
        uint64_t *O = (uint64_t *)r->o;
        for (Py_ssize_t i = lo; i < hi; i++) {
            uint64_t m = (uint64_t)0 - (uint64_t)(r->c[i] != 0);
            const uint64_t *x = r->sa ? A : A + 2 * i, *y = r->sb ? B : B + 2 * i;
            O[2 * i] = (x[0] & m) | (y[0] & ~m);
            O[2 * i + 1] = (x[1] & m) | (y[1] & ~m);
        }
    }
    }
}
#undef SD_SEL

static PyObject *
select_(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("select", nargs, 5, 5) < 0)
        return NULL;
    long nt;
    if (sd_threads(args[4], &nt) < 0)
        return NULL;
    Py_buffer v[4];
    int got = 0, ok = 1;
    for (int i = 0; i < 4 && ok; i++) {
        if (PyObject_GetBuffer(args[i], &v[i], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (i == 3 ? PyBUF_WRITABLE : 0)) < 0) {
            (void)contract_clear_buffer();
            ok = 0;
            break;
        }
        got++;
    }
    Py_ssize_t isz = ok ? v[3].itemsize : 0, n = ok ? v[0].len : 0;
    if (ok) {
        const char *f = v[0].format ? v[0].format : "B";
        ok = v[0].itemsize == 1 && f[0] == '?' && f[1] == 0
             && (isz == 1 || isz == 2 || isz == 4 || isz == 8 || isz == 16)
             && v[1].itemsize == isz && v[2].itemsize == isz && v[3].len == n * isz
             && (v[1].len == n * isz || v[1].len == isz) && (v[2].len == n * isz || v[2].len == isz)
             && ((uintptr_t)v[3].buf % (isz > 8 ? 8 : isz)) == 0 && ((uintptr_t)v[1].buf % (isz > 8 ? 8 : isz)) == 0
             && ((uintptr_t)v[2].buf % (isz > 8 ? 8 : isz)) == 0
             && !sd_overlap(v[0].buf, v[3].buf, v[3].len) && !sd_overlap(v[1].buf, v[3].buf, v[3].len)
             && !sd_overlap(v[2].buf, v[3].buf, v[3].len);
    }
    if (ok && n > 0) {
        sd_sel_ctx r = {(const unsigned char *)v[0].buf, (const char *)v[1].buf, (const char *)v[2].buf,
                        (char *)v[3].buf, n, isz, 1, v[1].len == isz && n > 1, v[2].len == isz && n > 1};
        r.nchunks = sd_chunks(n * isz, (int)nt);
        if (r.nchunks > n / 64)
            r.nchunks = n / 64 > 0 ? n / 64 : 1;
        if (r.nchunks > 1 || n * isz >= (1 << 16)) {
            Py_BEGIN_ALLOW_THREADS
            sd_parallel((int)nt, sd_sel_task, &r, r.nchunks);
            Py_END_ALLOW_THREADS
        }
        else
            sd_sel_task(&r, 0);
    }
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&v[i]);
    return PyBool_FromLong(ok);
}

/* --- softmax and log_softmax along the last axis: one call --------------------------------
   softmax_rows(src, out, ncols, exp_info, log_info) -> bool: for each ncols-long row x of a
   C-contiguous float32/float64 buffer, strided.torch's composites (torch/_composites.py), the
   same operations in the same order: m = max(x); e = exp(x - m) by the exp loop strided's
   exp runs (exp_info, a call-info capsule); s = 0 + the pairwise sum of e (NumPy's, row_*
   above); softmax (log_info None): e / s; log_softmax: (x - m) - log(s), log by log_info's
   loop. False (out's contents then undefined) where a row's maximum is not finite (NaN,
   inf: the composites' NaN payloads and where's decide there) or the buffers do not fit.
   Measured (1e3 float32, one row): softmax 9.3 -> ~2 us, log_softmax 14.9 -> ~2 us. */
/* the maximum of x[0..n), or NaN where an element is NaN (which of two equal zeros it is
   does not matter to exp(x - m)); on AVX2 eight (float32) or four (float64) running maxima
   side by side, an unordered compare beside them */
#define SD_ROWMAX_T(SFX, T, ...)                                                                \
    static T sd_rowmax1_##SFX(const T *x, Py_ssize_t i, Py_ssize_t n, T m, int bad)             \
    {                                                                                           \
        for (; i < n; i++) {                                                                    \
            bad |= x[i] != x[i];                                                                \
            m = x[i] > m ? x[i] : m;                                                            \
        }                                                                                       \
        return bad ? (T)NAN : m;                                                                \
    }
SD_FLOAT_TYPES(SD_ROWMAX_T)
#undef SD_ROWMAX_T
#ifdef SD_HAVE_AVX2_X
#define SD_ROWMAX_AVX2_T(SFX, T, U, V, L, QN, SB, AV, AS, KIND)                                 \
    SD_AVX2 static T sd_rowmax_avx2_##SFX(const T *x, Py_ssize_t n)                             \
    {                                                                                           \
        AV m = _mm256_set1_##AS(x[0]), bad = _mm256_setzero_##AS();                             \
        Py_ssize_t i = 0;                                                                       \
        for (; i + (L) <= n; i += (L)) {                                                        \
            AV v = _mm256_loadu_##AS(x + i);                                                    \
            bad = _mm256_or_##AS(bad, _mm256_cmp_##AS(v, v, _CMP_UNORD_Q));                     \
            m = _mm256_max_##AS(m, v);                                                          \
        }                                                                                       \
        T t[L], r = x[0];                                                                       \
        _mm256_storeu_##AS(t, m);                                                               \
        for (int j = 0; j < (L); j++)                                                           \
            r = t[j] > r ? t[j] : r;                                                            \
        return sd_rowmax1_##SFX(x, i, n, r, _mm256_movemask_##AS(bad) != 0);                    \
    }
SD_FLOAT_TYPES(SD_ROWMAX_AVX2_T)
#undef SD_ROWMAX_AVX2_T
#define SD_ROWMAX(SFX, x, n) (sd_avx2 ? sd_rowmax_avx2_##SFX(x, n) : sd_rowmax1_##SFX(x, 0, n, (x)[0], 0))
#else
#define SD_ROWMAX(SFX, x, n) sd_rowmax1_##SFX(x, 0, n, (x)[0], 0)
#endif
#define SD_SOFTMAX_T(SFX, T, ...)                                                               \
    SD_CLONES static int sd_softmax_##SFX(const T *a, T *o, Py_ssize_t nrows, Py_ssize_t ncols, \
                                sd_call_info *ex, sd_call_info *lg)                             \
    {                                                                                           \
        Py_ssize_t st[2] = {(Py_ssize_t)sizeof(T), (Py_ssize_t)sizeof(T)}, one = 1;              \
        for (Py_ssize_t r = 0; r < nrows; r++) {                                                \
            const T *x = a + r * ncols;                                                         \
            T *y = o + r * ncols, m = SD_ROWMAX(SFX, x, ncols);                                 \
            if (!(m - m == 0)) /* (NaN, or an infinite maximum) */                              \
                return 0;                                                                       \
            for (Py_ssize_t i = 0; i < ncols; i++)                                              \
                y[i] = x[i] - m;                                                                \
            char *d[2] = {(char *)y, (char *)y};                                                \
            Py_ssize_t n = ncols;                                                               \
            if (ex->strided_loop(ex->context, d, &n, st, ex->auxdata) < 0)                      \
                return 0;                                                                       \
            T s = (T)0 + row_##SFX(y, ncols, 0, 0);                                             \
            if (lg == NULL) {                                                                   \
                for (Py_ssize_t i = 0; i < ncols; i++)                                          \
                    y[i] = y[i] / s;                                                            \
                continue;                                                                       \
            }                                                                                   \
            T l = s;                                                                            \
            char *e[2] = {(char *)&l, (char *)&l};                                              \
            if (lg->strided_loop(lg->context, e, &one, st, lg->auxdata) < 0)                    \
                return 0;                                                                       \
            for (Py_ssize_t i = 0; i < ncols; i++)                                              \
                y[i] = (x[i] - m) - l;                                                          \
        }                                                                                       \
        return 1;                                                                               \
    }
SD_FLOAT_TYPES(SD_SOFTMAX_T)
#undef SD_SOFTMAX_T

/* softplus_run(a, out, beta, threshold, exp_info, log1p_info) -> bool: activations.softplus's
   NumPy steps over a C-contiguous float32/float64 buffer in one call, the same operations in
   the same type: bx = a * beta; r = log1p(exp(bx)) by the loops strided's exp and log1p run
   (the capsules); r / beta; a where bx > threshold, else r (both computed, one kept). beta
   and threshold already converted as NumPy converts a Python scalar next to the array (the
   caller checks they fit). 1e3 float32: 8.2 -> ~2.5 us (PyTorch 3.4). False: not handled. */
#define SD_SOFTPLUS_T(SFX, T, ...)                                                              \
    SD_CLONES __attribute__((optimize("no-trapping-math"))) static int                          \
    sd_softplus_##SFX(const T *a, T *o, Py_ssize_t n, T beta, T thr, sd_call_info *ex,          \
                      sd_call_info *lp)                                                         \
    {                                                                                           \
        Py_ssize_t st[2] = {(Py_ssize_t)sizeof(T), (Py_ssize_t)sizeof(T)}, m = n;                \
        for (Py_ssize_t i = 0; i < n; i++)                                                      \
            o[i] = a[i] * beta;                                                                 \
        char *d[2] = {(char *)o, (char *)o};                                                    \
        if (ex->strided_loop(ex->context, d, &m, st, ex->auxdata) < 0)                          \
            return 0;                                                                           \
        m = n;                                                                                  \
        if (lp->strided_loop(lp->context, d, &m, st, lp->auxdata) < 0)                          \
            return 0;                                                                           \
        for (Py_ssize_t i = 0; i < n; i++) {                                                    \
            T b = a[i] * beta, r = o[i] / beta;                                                 \
            o[i] = b > thr ? a[i] : r;                                                          \
        }                                                                                       \
        return 1;                                                                               \
    }
SD_FLOAT_TYPES(SD_SOFTPLUS_T)
#undef SD_SOFTPLUS_T

static sd_call_info *sd_info_arg(PyObject *cap)
{
    if (cap == Py_None)
        return NULL;
    sd_call_info *info = PyCapsule_IsValid(cap, SD_CALL_INFO) ? PyCapsule_GetPointer(cap, SD_CALL_INFO) : NULL;
    if (info == NULL || info->strided_loop == NULL || info->requires_pyapi) {
        (void)contract_clear(PyExc_Exception);
        return NULL;
    }
    return info;
}

/* The input and output buffers of softplus_run and softmax_rows: C-contiguous, aligned,
   float32/float64 of one kind and length, out writable and disjoint from the input. The kind
   (1, 2) with both buffers held, or 0 with none held (not handled). */
static int sd_in_out(PyObject *in, PyObject *out, Py_buffer v[2])
{
    int kind = sd_ew_buf(in, &v[0], 0);
    if (!kind)
        return 0;
    int ko = sd_ew_buf(out, &v[1], 1);
    if (ko == kind && v[0].len == v[1].len && !sd_overlap(v[0].buf, v[1].buf, v[1].len))
        return kind;
    if (ko)
        PyBuffer_Release(&v[1]);
    PyBuffer_Release(&v[0]);
    return 0;
}

static PyObject *
softplus_run(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("softplus_run", nargs, 6, 6) < 0)
        return NULL;
    double beta = PyFloat_AsDouble(args[2]), thr = PyFloat_AsDouble(args[3]);
    if (PyErr_Occurred())
        return NULL;
    sd_call_info *ex = sd_info_arg(args[4]), *lp = sd_info_arg(args[5]);
    if (ex == NULL || lp == NULL)
        Py_RETURN_FALSE;
    Py_buffer v[2];
    int kind = sd_in_out(args[0], args[1], v), ok = kind != 0;
    if (!kind)
        Py_RETURN_FALSE;
    if (v[0].len) {
        Py_ssize_t n = v[0].len / v[0].itemsize;
        ok = kind == 1 ? sd_softplus_f32((const float *)v[0].buf, (float *)v[1].buf, n, (float)beta, (float)thr, ex, lp)
                       : sd_softplus_f64((const double *)v[0].buf, (double *)v[1].buf, n, beta, thr, ex, lp);
        if (PyErr_Occurred())
            (void)contract_clear(PyExc_Exception); /* (a loop's error: the kernel raises it) */
    }
    PyBuffer_Release(&v[1]);
    PyBuffer_Release(&v[0]);
    if (PyErr_Occurred())
        return NULL;
    return PyBool_FromLong(ok > 0);
}

static PyObject *
softmax_rows(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("softmax_rows", nargs, 5, 5) < 0)
        return NULL;
    Py_ssize_t ncols = PyLong_AsSsize_t(args[2]);
    if (ncols == -1 && PyErr_Occurred())
        return NULL;
    sd_call_info *ex = sd_info_arg(args[3]), *lg = sd_info_arg(args[4]);
    if (ex == NULL || (lg == NULL && args[4] != Py_None) || ncols <= 0)
        Py_RETURN_FALSE;
    Py_buffer v[2];
    int kind = sd_in_out(args[0], args[1], v);
    if (!kind)
        Py_RETURN_FALSE;
    int ok = v[0].len % (v[0].itemsize * ncols) == 0;
    if (ok) {
        Py_ssize_t nrows = v[0].len / (v[0].itemsize * ncols);
        ok = kind == 1 ? sd_softmax_f32((const float *)v[0].buf, (float *)v[1].buf, nrows, ncols, ex, lg)
                       : sd_softmax_f64((const double *)v[0].buf, (double *)v[1].buf, nrows, ncols, ex, lg);
        if (PyErr_Occurred())
            (void)contract_clear(PyExc_Exception); /* (a loop's error: the composite raises it) */
    }
    PyBuffer_Release(&v[1]);
    PyBuffer_Release(&v[0]);
    if (PyErr_Occurred())
        return NULL;
    return PyBool_FromLong(ok > 0);
}

/* --- whole-array sums -------------------------------------------------------
   NumPy's pairwise tree (row_f32/f64 above) cut a few levels down into subtrees,
   one per chunk, summed on the threads and then added as the tree adds them, in
   the element type: every addition is the one-thread sum's, in the same order, so
   the result is bit for bit the one-thread sum (NumPy's) whatever the thread
   count. */
typedef struct {
    int kind, sq, nleaf; /* sq: the sum of (x - mean)**2 */
    Py_ssize_t span;     /* the whole array's bytes (row_f32/f64's prefetch choice) */
    double mean;
    const char *base;
    Py_ssize_t lo[SD_MAXCHUNKS], n[SD_MAXCHUNKS]; /* the subtrees' elements */
    double p[SD_MAXCHUNKS];                       /* and their sums */
} sd_sum_ctx;


/* The subtrees of the n elements from lo, depth levels down, in order. */
static void sd_sum_cut(sd_sum_ctx *s, Py_ssize_t lo, Py_ssize_t n, int depth)
{
    if (depth == 0 || n <= 128) {
        s->lo[s->nleaf] = lo;
        s->n[s->nleaf++] = n;
        return;
    }
    Py_ssize_t n2 = sd_half(n);
    sd_sum_cut(s, lo, n2, depth - 1);
    sd_sum_cut(s, lo + n2, n - n2, depth - 1);
}

static void sd_sum_task(void *p, Py_ssize_t c)
{
    sd_sum_ctx *s = (sd_sum_ctx *)p;
    const float *a32 = (const float *)s->base + s->lo[c];
    const double *a64 = (const double *)s->base + s->lo[c];
    if (s->kind == 1)
        s->p[c] = s->sq ? rowsq_f32(a32, s->n[c], (float)s->mean, s->span) : row_f32(a32, s->n[c], 0, s->span);
    else
        s->p[c] = s->sq ? rowsq_f64(a64, s->n[c], s->mean, s->span) : row_f64(a64, s->n[c], 0, s->span);
}

/* The subtrees' sums added as sd_sum_cut's tree adds them (*k: the next subtree). */
static double sd_sum_join(sd_sum_ctx *s, Py_ssize_t n, int depth, int *k)
{
    if (depth == 0 || n <= 128)
        return s->p[(*k)++];
    Py_ssize_t n2 = sd_half(n);
    double l = sd_sum_join(s, n2, depth - 1, k);
    double r = sd_sum_join(s, n - n2, depth - 1, k);
    return s->kind == 1 ? (double)((float)l + (float)r) : l + r;
}

/* The whole-array sum of n >= 1 elements on nt threads (without the GIL): NumPy's
   identity plus row_f32/f64's value, bit for bit; with sq, of (x - mean)**2. */
static double sd_sum_whole(int kind, const char *base, Py_ssize_t n, long nt, int sq, double mean)
{
    sd_sum_ctx s;
    s.kind = kind;
    s.sq = sq;
    s.mean = mean;
    s.base = base;
    s.span = n * (kind == 1 ? 4 : 8);
    s.nleaf = 0;
    Py_ssize_t want = sd_chunks(n * (kind == 1 ? 4 : 8), nt > 255 ? 256 : (int)nt);
    int depth = 0; /* 2^depth <= want <= SD_MAXCHUNKS subtrees */
    while (((Py_ssize_t)2 << depth) <= want)
        depth++;
    sd_sum_cut(&s, 0, n, depth);
    sd_parallel((int)nt, sd_sum_task, &s, s.nleaf);
    int k = 0;
    double t = sd_sum_join(&s, n, depth, &k);
    return kind == 1 ? (double)(0.0f + (float)t) : 0.0 + t;
}

/* sum_isa([avx512]) -> str: the instruction set the whole and row sums (and the rows'
   max/min) run on ("avx512", "avx2" or "generic"); avx512 (a bool) turns the AVX-512 kernels on
   or off (on only where the processor has AVX-512F: the tests run both paths); a str names the
   set: "generic" turns AVX2 off too (the kernels the processors without it run), "avx2" and
   "avx512" turn on what the processor has. Not for use while sums run on other threads. */
static PyObject *
sum_isa(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("sum_isa", nargs, 0, 1) < 0)
        return NULL;
    if (nargs == 1 && PyUnicode_Check(args[0])) {
        const char *name = PyUnicode_AsUTF8(args[0]);
        if (name == NULL)
            return NULL;
        int want = !strcmp(name, "generic") ? 0 : !strcmp(name, "avx2") ? 1 : !strcmp(name, "avx512") ? 2 : -1;
        if (want < 0) {
            PyErr_Format(PyExc_ValueError, "sum_isa(): unknown instruction set %R (generic, avx2, avx512)", args[0]);
            return NULL;
        }
#ifdef SD_HAVE_AVX2_X
        sd_avx2 = want >= 1 && __builtin_cpu_supports("avx2");
        sd_avx512 = want == 2 && sd_avx2 && __builtin_cpu_supports("avx512f");
#endif
    }
    else if (nargs == 1) {
        int on = PyObject_IsTrue(args[0]);
        if (on < 0)
            return NULL;
#ifdef SD_HAVE_AVX2_X
        sd_avx512 = on && sd_avx2 && __builtin_cpu_supports("avx512f");
#endif
    }
#ifdef SD_HAVE_AVX2_X
    return PyUnicode_FromString(sd_avx512 ? "avx512" : sd_avx2 ? "avx2" : "generic");
#else
    return PyUnicode_FromString("generic");
#endif
}

/* sum_all(a, nthreads) -> float, or None (not a C-contiguous float32/float64
   buffer of more than 128 elements, or a NaN sum): sum_rows(a, out, a.size)'s value,
   numpy.add.reduce's. */
static PyObject *
sum_all(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    long nt;
    if (sd_nargs("sum_all", nargs, 2, 2) < 0 || sd_threads(args[1], &nt) < 0)
        return NULL;
    Py_buffer v;
    int kind = sd_fbuf(args[0], &v, 0);
    if (!kind) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    Py_ssize_t n = v.len / v.itemsize;
    if (n <= 128) {
        PyBuffer_Release(&v);
        Py_RETURN_NONE;
    }
    double r;
    Py_BEGIN_ALLOW_THREADS
    r = sd_sum_whole(kind, v.buf, n, nt, 0, 0.0);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    if (r != r) /* its payload is the one NumPy's loop order picks (see ROW) */
        Py_RETURN_NONE;
    return PyFloat_FromDouble(r);
}

/* --- reductions over one run of axes ---------------------------------------
   reduce(op, src, out, outer, nred, inner, nthreads) -> bool: src is a
   C-contiguous float32/float64 buffer seen as (outer, nred, inner), out the
   contiguous (outer, inner) result of the same type; op 0 sum, 1 max, 2 min
   over the middle axis, 3 the sum of squared deviations (x - mean)**2 from
   the 8th argument's means, a C-contiguous (outer, inner) buffer of the same
   type (var and std in one pass over the input: each deviation and its square
   rounded as NumPy's a - mean, d * d round them, summed as the sums are). False (out unspecified) for anything else: other
   types or layouts, sizes that don't fit, 1 < inner < one vector's lanes, or a
   max/min whose value NumPy picks by its own order (below).

   - inner == 1 (the trailing axes): each row as sum_rows sums it (the whole
     array on the thread pool as sum_all does, the same bits); max/min per row
     in vector accumulators.
   - inner > 1 (leading or middle axes): each column summed down the rows in a
     vector lane, the rows one after another as NumPy adds them, or their
     max/min; rows narrower than SD_ROWS_MAX a row at a time across the whole
     width (each outer block one task), wider ones in tiles of columns over
     blocks of SD_CROWS rows (the tiles in groups on the threads).
   - sums: a NaN result anywhere declines the call (which NaN a sum of NaNs
     returns depends on the order of each addition's operands, which C does not
     fix). A last partial tile is
     covered by one-vector tiles, the last one overlapping its neighbour (a
     column's value doesn't depend on its tile).
   - max/min: exact. A NaN propagates (any NaN in a line gives NaN). Where a
     line's result is a zero or a NaN, whose sign or payload NumPy's result
     takes from the element its loop order meets, the line is scanned again:
     zeros of one sign only give that zero, and NaNs that are all the default
     quiet NaN (float('nan'), np.nan) give it; zeros of both signs, or any other
     NaN (NumPy's vector loops give +NaN for -NaN, its scalar loops -NaN),
     decline the whole call (the caller asks NumPy).
   Results don't depend on the thread count: every output is computed by the
   same code whichever thread runs it. */
/* Eight rows a block (sixteen until issue 38): wide rows (over SD_ROWS_MAX) from memory,
   float64 max over axis 0, 1 thread, / min(NumPy, PyTorch), medians of 40 interleaved calls
   with the cache flushed before each: 200x5000 16 rows 1.10, 8 rows 0.71 (4 rows 0.73);
   100x20000 0.84, 0.47; float64 sums 1000x10000 0.89, 0.57; in cache 0.65-1.12 and 0.54-0.76
   (float32 sums 0.75-0.78 and 0.81-0.82). */
#define SD_CROWS 8

/* Block k (nr <= SD_CROWS rows from p, stride inner) of NV vectors' columns: each
   column's rows (their squared deviations from mean with SQ) added in sequence to its
   running sum in st (block 0 starts it with its first row): NumPy's reduction over
   leading axes adds the rows one after another, and so does this, in every lane. */
#define COLBLK(NAME, T, V, L, NV, SQ)                                                       \
    SD_CLONES static void NAME(const T *p, Py_ssize_t nr, Py_ssize_t inner, const T *mean,  \
                               T *st, Py_ssize_t k)                                         \
    {                                                                                       \
        V s[NV], mv[NV];                                                                    \
        for (int j = 0; j < (NV); j++) {                                                    \
            V z = {0};                                                                      \
            mv[j] = (SQ) ? SD_LD(V, mean + j * (L)) : z;                                    \
            V v = SD_LD(V, p + j * (L));                                                    \
            s[j] = k ? SD_LD(V, st + j * (L)) + ((SQ) ? (v - mv[j]) * (v - mv[j]) : v)      \
                     : ((SQ) ? (v - mv[j]) * (v - mv[j]) : v);                              \
        }                                                                                   \
        for (Py_ssize_t r = 1; r < nr; r++)                                                 \
            for (int j = 0; j < (NV); j++) {                                                \
                V v = SD_LD(V, p + r * inner + j * (L));                                    \
                s[j] += (SQ) ? (v - mv[j]) * (v - mv[j]) : v;                               \
            }                                                                               \
        for (int j = 0; j < (NV); j++)                                                      \
            memcpy(st + j * (L), &s[j], sizeof(V));                                         \
    }
/* per type: sums eight vectors, one vector or one column wide; squared deviations four
   vectors (their means take registers too), one vector or one column wide */
#define SD_COLBLK_T(SFX, T, U, V, L, ...)                                                   \
    COLBLK(colblk8_##SFX, T, V, L, 8, 0)                                                    \
    COLBLK(colblk1_##SFX, T, V, L, 1, 0)                                                    \
    COLBLK(colblks_##SFX, T, T, 1, 1, 0)                                                    \
    COLBLK(colsq4_##SFX, T, V, L, 4, 1)                                                     \
    COLBLK(colsq1_##SFX, T, V, L, 1, 1)                                                     \
    COLBLK(colsqs_##SFX, T, T, 1, 1, 1)
SD_FLOAT_TYPES(SD_COLBLK_T)

/* Rows narrower than this (in bytes) are reduced down the leading axis a row at a time
   (COLROWS, cxr_*) instead of in blocks of SD_CROWS rows. Issue 38: the blocks read a slice
   of each of their rows in turn, SD_CROWS short streams (registers hold the tile's running
   values), which from memory the benchmarks' EPYC served at half the speed of one ascending
   stream: float64 sums and mins over axis 0, 1 thread, medians of 40 interleaved calls with
   the cache flushed before each, / min(NumPy, PyTorch): 5000x200 blocks 2.10, rows 0.84;
   2000x500 1.42, 0.80; 1000x1000 1.41, 0.90; 670x1500 1.13, 0.73 (float32 5000x200 1.08,
   0.62; 2000x1000 1.47, 0.90), in cache about the same (0.73-0.86 against 0.71-0.83); even
   two rows side by side were as slow, and software prefetch didn't help. Wider rows (their
   running values no longer in L1) keep the blocks: 500x2000 from memory 0.79 and 0.82,
   in cache 0.64 and 0.87; 333x3000 0.85 and 0.98. */
#define SD_ROWS_MAX 12288

/* Columns [0, w) of nred >= 1 rows from a (stride inner): each column's rows (their squared
   deviations from mean with SQ) added in sequence to its running sum in st, row 0 starting
   it, as COLBLK adds them; the rows read in order, each across the whole width. */
#define COLROWS(NAME, T, V, L, SQ)                                                          \
    SD_CLONES static void NAME(const T *a, Py_ssize_t nred, Py_ssize_t inner, Py_ssize_t w, \
                               const T *mean, T *st)                                        \
    {                                                                                       \
        for (Py_ssize_t c = 0; c < w; c++)                                                  \
            st[c] = (SQ) ? (a[c] - mean[c]) * (a[c] - mean[c]) : a[c];                      \
        for (Py_ssize_t r = 1; r < nred; r++) {                                             \
            const T *p = a + r * inner;                                                     \
            Py_ssize_t c = 0;                                                               \
            for (; c + 4 * (L) <= w; c += 4 * (L))                                          \
                for (int j = 0; j < 4; j++) {                                               \
                    V v = SD_LD(V, p + c + j * (L)), s = SD_LD(V, st + c + j * (L));        \
                    if (SQ) {                                                               \
                        V m = SD_LD(V, mean + c + j * (L));                                 \
                        v = (v - m) * (v - m);                                              \
                    }                                                                       \
                    s += v;                                                                 \
                    memcpy(st + c + j * (L), &s, sizeof(V));                                \
                }                                                                           \
            for (; c < w; c++)                                                              \
                st[c] += (SQ) ? (p[c] - mean[c]) * (p[c] - mean[c]) : p[c];                 \
        }                                                                                   \
    }
#define SD_COLROWS_T(SFX, T, U, V, L, ...)                                                  \
    COLROWS(colrows_##SFX, T, V, L, 0)                                                      \
    COLROWS(colrowsq_##SFX, T, V, L, 1)
SD_FLOAT_TYPES(SD_COLROWS_T)

/* max/min of a row (n >= 1) into *r, *nan set where it holds a NaN; of a tile of
   w columns (eight vectors' or one's) over nred rows (stride inner) into out,
   *nanmask bit j set where column j may hold a NaN (a whole tile of eight
   vectors is flagged at once). */
#define RX_GENERIC(SFX, T, NAME, CMP)                                                    \
    static T rx_##NAME##_##SFX##_gen(const T *a, Py_ssize_t n, int *nan)                 \
    {                                                                                    \
        T m = a[0];                                                                      \
        int bad = m != m;                                                                \
        for (Py_ssize_t i = 1; i < n; i++) {                                             \
            T x = a[i];                                                                  \
            if (x CMP m)                                                                 \
                m = x;                                                                   \
            bad |= x != x;                                                               \
        }                                                                                \
        *nan = bad;                                                                      \
        return m;                                                                        \
    }                                                                                    \
    static void cx_##NAME##_##SFX##_gen(const T *a, Py_ssize_t nred, Py_ssize_t inner,      \
                                        Py_ssize_t w, T *out, int first, uint64_t *nanmask) \
    {                                                                                       \
        uint64_t mask = 0;                                                                  \
        if (first)                                                                          \
            for (Py_ssize_t j = 0; j < w; j++) {                                            \
                out[j] = a[j];                                                              \
                if (a[j] != a[j])                                                           \
                    mask |= (uint64_t)1 << (j & 63);                                        \
            }                                                                               \
        for (Py_ssize_t r = first ? 1 : 0; r < nred; r++) {                                 \
            const T *p = a + r * inner;                                                     \
            for (Py_ssize_t j = 0; j < w; j++) {                                            \
                T x = p[j];                                                                 \
                if (x CMP out[j])                                                           \
                    out[j] = x;                                                             \
                if (x != x)                                                                 \
                    mask |= (uint64_t)1 << (j & 63);                                        \
            }                                                                               \
        }                                                                                   \
        *nanmask = w > 64 && mask ? ~(uint64_t)0 : mask;                                    \
    }                                                                                       \
    /* the w columns of nred rows from a a row at a time (see SD_ROWS_MAX) into out, fl[j] \
       set where column j holds a NaN */                                                    \
    static void cxr_##NAME##_##SFX##_gen(const T *a, Py_ssize_t nred, Py_ssize_t inner,     \
                                         Py_ssize_t w, T *out, unsigned char *fl)           \
    {                                                                                       \
        for (Py_ssize_t j = 0; j < w; j++) {                                                \
            out[j] = a[j];                                                                  \
            fl[j] |= a[j] != a[j];                                                          \
        }                                                                                   \
        for (Py_ssize_t r = 1; r < nred; r++) {                                             \
            const T *p = a + r * inner;                                                     \
            for (Py_ssize_t j = 0; j < w; j++) {                                            \
                T x = p[j];                                                                 \
                if (x CMP out[j])                                                           \
                    out[j] = x;                                                             \
                fl[j] |= x != x;                                                            \
            }                                                                               \
        }                                                                                   \
    }
#define SD_RX_GENERIC_X(NAME, CMP, SFX, T) RX_GENERIC(SFX, T, NAME, CMP)
#define SD_RX_GENERIC_T(SFX, T, ...) SD_EXTREMA(SD_RX_GENERIC_X, SFX, T)
SD_FLOAT_TYPES(SD_RX_GENERIC_T)

/* Where a row's max/min loop starts after its first FIRST elements (read by unaligned loads
   into the accumulators): the first element at an ALIGN-byte boundary, so that every load but
   the last is aligned (a load across two cache lines costs two: 1e5 float32 on AVX-512, 16
   bytes off, 4.26 us against 2.84 aligned), the elements between it and FIRST read twice
   (a max is exact whatever reads an element twice); FIRST itself where the row starts on the
   boundary, or off its elements' alignment. */
#define SD_HEAD(a, T, ALIGN, FIRST)                                                       \
    ((uintptr_t)(a) % sizeof(T) || !((uintptr_t)(a) & ((ALIGN) - 1))                      \
         ? (Py_ssize_t)(FIRST)                                                             \
         : (Py_ssize_t)(((-(uintptr_t)(a)) & ((ALIGN) - 1)) / sizeof(T)))
#ifdef SD_HAVE_AVX2_X
/* maxps(v, m) is v > m ? v : m, minps(v, m) is v < m ? v : m: a NaN in v leaves
   m (the NaN is seen by the unordered compare instead). */
#define RX_AVX2(SFX, T, VT, L, NAME, CMP, OP, LD, ST, UNORD, OR, MM, ZERO)                 \
    SD_AVX2 static T rx_##NAME##_##SFX##_avx2(const T *a, Py_ssize_t n, int *nan)        \
    {                                                                                    \
        if (n < 4 * (L))                                                                 \
            return rx_##NAME##_##SFX##_gen(a, n, nan);                                   \
        VT m0 = LD(a), m1 = LD(a + (L)), m2 = LD(a + 2 * (L)), m3 = LD(a + 3 * (L));     \
        VT u = OR(UNORD(m0, m1), UNORD(m2, m3));                                         \
        Py_ssize_t i = SD_HEAD(a, T, 32, 4 * (L));                                       \
        for (;; i += 4 * (L)) {                                                          \
            const T *p = a + i;                                                          \
            if (i + 4 * (L) > n) {                                                       \
                if (i >= n)                                                              \
                    break;                                                               \
                p = a + n - 4 * (L); /* the last vectors, overlapping: exact anyway */   \
            }                                                                            \
            VT v0 = LD(p), v1 = LD(p + (L)), v2 = LD(p + 2 * (L)), v3 = LD(p + 3 * (L)); \
            m0 = OP(v0, m0);                                                             \
            m1 = OP(v1, m1);                                                             \
            m2 = OP(v2, m2);                                                             \
            m3 = OP(v3, m3);                                                             \
            u = OR(u, OR(UNORD(v0, v1), UNORD(v2, v3)));                                 \
        }                                                                                \
        m0 = OP(OP(m0, m1), OP(m2, m3));                                                 \
        T l[L];                                                                          \
        ST(l, m0);                                                                       \
        T m = l[0];                                                                      \
        for (int j = 1; j < (L); j++)                                                    \
            if (l[j] CMP m)                                                              \
                m = l[j];                                                                \
        *nan = MM(u) != 0;                                                               \
        return m;                                                                        \
    }                                                                                    \
    SD_AVX2 static void cx_##NAME##_##SFX##_avx2(const T *a, Py_ssize_t nred,            \
                                                 Py_ssize_t inner, Py_ssize_t w, T *out, \
                                                 int first, uint64_t *nanmask)           \
    {                                                                                    \
        const T *b = first ? a : out; /* the accumulators' start: row 0, or out */          \
        if (w == 8 * (L)) {                                                                 \
            /* one NaN flag for the tile: all its columns flagged (each then scanned) */    \
            VT m0 = LD(b), m1 = LD(b + (L)), m2 = LD(b + 2 * (L)), m3 = LD(b + 3 * (L));    \
            VT m4 = LD(b + 4 * (L)), m5 = LD(b + 5 * (L)), m6 = LD(b + 6 * (L));            \
            VT m7 = LD(b + 7 * (L));                                                        \
            VT u = OR(OR(UNORD(m0, m1), UNORD(m2, m3)), OR(UNORD(m4, m5), UNORD(m6, m7)));  \
            for (Py_ssize_t r = first ? 1 : 0; r < nred; r++) {                             \
                const T *p = a + r * inner;                                                 \
                VT v0 = LD(p), v1 = LD(p + (L)), v2 = LD(p + 2 * (L)), v3 = LD(p + 3 * (L));\
                VT v4 = LD(p + 4 * (L)), v5 = LD(p + 5 * (L)), v6 = LD(p + 6 * (L));        \
                VT v7 = LD(p + 7 * (L));                                                    \
                m0 = OP(v0, m0);                                                            \
                m1 = OP(v1, m1);                                                            \
                m2 = OP(v2, m2);                                                            \
                m3 = OP(v3, m3);                                                            \
                m4 = OP(v4, m4);                                                            \
                m5 = OP(v5, m5);                                                            \
                m6 = OP(v6, m6);                                                            \
                m7 = OP(v7, m7);                                                            \
                u = OR(u, OR(OR(UNORD(v0, v1), UNORD(v2, v3)), OR(UNORD(v4, v5), UNORD(v6, v7))));\
            }                                                                               \
            ST(out, m0);                                                                    \
            ST(out + (L), m1);                                                              \
            ST(out + 2 * (L), m2);                                                          \
            ST(out + 3 * (L), m3);                                                          \
            ST(out + 4 * (L), m4);                                                          \
            ST(out + 5 * (L), m5);                                                          \
            ST(out + 6 * (L), m6);                                                          \
            ST(out + 7 * (L), m7);                                                          \
            *nanmask = MM(u) ? ~(uint64_t)0 : 0;                                            \
        }                                                                                   \
        else if (w == (L)) {                                                                \
            VT m0 = LD(b), u0 = UNORD(m0, m0);                                              \
            for (Py_ssize_t r = first ? 1 : 0; r < nred; r++) {                             \
                VT v0 = LD(a + r * inner);                                                  \
                m0 = OP(v0, m0);                                                            \
                u0 = OR(u0, UNORD(v0, v0));                                                 \
            }                                                                               \
            ST(out, m0);                                                                    \
            *nanmask = (uint64_t)MM(u0);                                                    \
        }                                                                                   \
        else                                                                                \
            cx_##NAME##_##SFX##_gen(a, nred, inner, w, out, first, nanmask);                \
    }                                                                                       \
    SD_AVX2 static void cxr_##NAME##_##SFX##_avx2(const T *a, Py_ssize_t nred,           \
                                                  Py_ssize_t inner, Py_ssize_t w, T *out, \
                                                  unsigned char *fl)                      \
    {                                                                                       \
        if (w < (L)) {                                                                      \
            cxr_##NAME##_##SFX##_gen(a, nred, inner, w, out, fl);                           \
            return;                                                                         \
        }                                                                                   \
        cxr_##NAME##_##SFX##_gen(a, 1, inner, w, out, fl); /* row 0: the accumulators */    \
        for (Py_ssize_t r = 1; r < nred; r++) {                                             \
            const T *p = a + r * inner;                                                     \
            VT u = ZERO();                                                                  \
            Py_ssize_t c = 0;                                                               \
            for (; c + 4 * (L) <= w; c += 4 * (L)) {                                        \
                VT v0 = LD(p + c), v1 = LD(p + c + (L)), v2 = LD(p + c + 2 * (L));          \
                VT v3 = LD(p + c + 3 * (L));                                                \
                ST(out + c, OP(v0, LD(out + c)));                                           \
                ST(out + c + (L), OP(v1, LD(out + c + (L))));                               \
                ST(out + c + 2 * (L), OP(v2, LD(out + c + 2 * (L))));                       \
                ST(out + c + 3 * (L), OP(v3, LD(out + c + 3 * (L))));                       \
                u = OR(u, OR(UNORD(v0, v1), UNORD(v2, v3)));                                \
            }                                                                               \
            for (;; c += (L)) {                                                             \
                if (c + (L) > w) {                                                          \
                    if (c >= w)                                                             \
                        break;                                                              \
                    c = w - (L); /* the last vector, overlapping: a max is exact anyway */  \
                }                                                                           \
                VT v = LD(p + c);                                                           \
                ST(out + c, OP(v, LD(out + c)));                                            \
                u = OR(u, UNORD(v, v));                                                     \
            }                                                                               \
            if (MM(u)) /* a NaN in this row: which columns */                               \
                for (Py_ssize_t j = 0; j < w; j++)                                          \
                    fl[j] |= p[j] != p[j];                                                  \
        }                                                                                   \
    }
#define SD_UNORD_ps(x, y) _mm256_cmp_ps((x), (y), _CMP_UNORD_Q)
#define SD_UNORD_pd(x, y) _mm256_cmp_pd((x), (y), _CMP_UNORD_Q)
/* one per type and extremum: the intrinsics named by AVX2's suffix (ps, pd) */
#define SD_RX_AVX2_X(NAME, CMP, SFX, T, VT, L, PS)                                        \
    RX_AVX2(SFX, T, VT, L, NAME, CMP, _mm256_##NAME##_##PS, _mm256_loadu_##PS, _mm256_storeu_##PS, \
            SD_UNORD_##PS, _mm256_or_##PS, _mm256_movemask_##PS, _mm256_setzero_##PS)
#define SD_RX_AVX2_T(SFX, T, U, V, L, QN, SB, VT, PS, KIND) SD_EXTREMA(SD_RX_AVX2_X, SFX, T, VT, L, PS)
SD_FLOAT_TYPES(SD_RX_AVX2_T)
/* A row's max/min on AVX-512 (sd_avx512): eight accumulators of a cache line each, the NaN
   test a mask. The same value as the AVX2 and generic rows' (a max has no rounding; a zero or
   NaN result is resolved after, as theirs). Issue 38: in L2 a row takes half AVX2's
   iterations (Xeon, 1 thread, aligned: 1e5 float32 2.86 us against AVX2's 3.76 and NumPy's
   5.7; 2e5 float64 12.6 against 16.6 and 20.6); from memory NumPy's time, where AVX2's was
   1.2x (1e7, each on its own arrays in turn, medians: float32 1.52 ms, AVX2 1.85, NumPy 1.49;
   float64 4.56, 5.24, 4.61). */
#define RX_AVX512(SFX, T, VT, L, NAME, LD, OP, ST, UNORD, CMP)                              \
    SD_AVX512 static T rx_##NAME##_##SFX##_avx512(const T *a, Py_ssize_t n, int *nan)        \
    {                                                                                        \
        if (n < 8 * (L))                                                                     \
            return rx_##NAME##_##SFX##_avx2(a, n, nan);                                      \
        VT m0 = LD(a), m1 = LD(a + (L)), m2 = LD(a + 2 * (L)), m3 = LD(a + 3 * (L));         \
        VT m4 = LD(a + 4 * (L)), m5 = LD(a + 5 * (L)), m6 = LD(a + 6 * (L));                 \
        VT m7 = LD(a + 7 * (L));                                                             \
        unsigned u = UNORD(m0, m1) | UNORD(m2, m3) | UNORD(m4, m5) | UNORD(m6, m7);          \
        Py_ssize_t i = SD_HEAD(a, T, 64, 8 * (L));                                           \
        if (n * (Py_ssize_t)sizeof(T) >= SD_RX_STREAMS_FROM) {                               \
            /* four streams: the row's quarters side by side, two vectors of each a step */  \
            const T *b = a + i;                                                              \
            Py_ssize_t q = ((n - i) / 4) & ~(Py_ssize_t)(2 * (L) - 1);                       \
            for (Py_ssize_t j = 0; j < q; j += 2 * (L)) {                                    \
                const T *p0 = b + j, *p1 = p0 + q, *p2 = p1 + q, *p3 = p2 + q;               \
                VT v0 = LD(p0), v1 = LD(p0 + (L)), v2 = LD(p1), v3 = LD(p1 + (L));           \
                VT v4 = LD(p2), v5 = LD(p2 + (L)), v6 = LD(p3), v7 = LD(p3 + (L));           \
                m0 = OP(v0, m0);                                                             \
                m1 = OP(v1, m1);                                                             \
                m2 = OP(v2, m2);                                                             \
                m3 = OP(v3, m3);                                                             \
                m4 = OP(v4, m4);                                                             \
                m5 = OP(v5, m5);                                                             \
                m6 = OP(v6, m6);                                                             \
                m7 = OP(v7, m7);                                                             \
                u |= UNORD(v0, v1) | UNORD(v2, v3) | UNORD(v4, v5) | UNORD(v6, v7);          \
            }                                                                                \
            i += 4 * q; /* the rest (fewer than 8 vectors) below */                          \
        }                                                                                    \
        for (;; i += 8 * (L)) {                                                              \
            const T *p = a + i;                                                              \
            if (i + 8 * (L) > n) {                                                           \
                if (i >= n)                                                                  \
                    break;                                                                   \
                p = a + n - 8 * (L); /* the last vectors, overlapping: exact anyway */       \
            }                                                                                \
            VT v0 = LD(p), v1 = LD(p + (L)), v2 = LD(p + 2 * (L)), v3 = LD(p + 3 * (L));     \
            VT v4 = LD(p + 4 * (L)), v5 = LD(p + 5 * (L)), v6 = LD(p + 6 * (L));             \
            VT v7 = LD(p + 7 * (L));                                                         \
            m0 = OP(v0, m0);                                                                 \
            m1 = OP(v1, m1);                                                                 \
            m2 = OP(v2, m2);                                                                 \
            m3 = OP(v3, m3);                                                                 \
            m4 = OP(v4, m4);                                                                 \
            m5 = OP(v5, m5);                                                                 \
            m6 = OP(v6, m6);                                                                 \
            m7 = OP(v7, m7);                                                                 \
            u |= UNORD(v0, v1) | UNORD(v2, v3) | UNORD(v4, v5) | UNORD(v6, v7);              \
        }                                                                                    \
        m0 = OP(OP(OP(m0, m1), OP(m2, m3)), OP(OP(m4, m5), OP(m6, m7)));                     \
        T l[L];                                                                              \
        ST(l, m0);                                                                           \
        T m = l[0];                                                                          \
        for (int j = 1; j < (L); j++)                                                        \
            if (l[j] CMP m)                                                                  \
                m = l[j];                                                                    \
        *nan = u != 0;                                                                       \
        return m;                                                                            \
    }
/* From this many bytes a row's max/min reads it as four streams (its quarters side by side):
   from memory one stream kept too few lines in flight (1e7 float64, standalone C, medians of
   41 over four arrays in turn: 4.8-5.0 ms as one stream, 4.2-4.4 as four; PyTorch's 4.65). */
#define SD_RX_STREAMS_FROM (4 << 20)
#define SD_UNORD512_ps(x, y) ((unsigned)_mm512_cmp_ps_mask((x), (y), _CMP_UNORD_Q))
#define SD_UNORD512_pd(x, y) ((unsigned)_mm512_cmp_pd_mask((x), (y), _CMP_UNORD_Q))
#define SD_RX_AVX512_X(NAME, CMP, SFX, T, L, PS)                                            \
    RX_AVX512(SFX, T, __m512##PS##_, 2 * (L), NAME, _mm512_loadu_##PS, _mm512_##NAME##_##PS,  \
              _mm512_storeu_##PS, SD_UNORD512_##PS, CMP)
#define __m512ps_ __m512
#define __m512pd_ __m512d
#define SD_RX_AVX512_T(SFX, T, U, V, L, QN, SB, VT, PS, KIND) SD_EXTREMA(SD_RX_AVX512_X, SFX, T, L, PS)
SD_FLOAT_TYPES(SD_RX_AVX512_T)
/* rows: AVX-512 where sd_avx512 is on (sum_isa), else AVX2, else generic */
#define SD_PICK_RX(NAME, SFX) \
    (sd_avx512 ? NAME##_##SFX##_avx512 : sd_avx2 ? NAME##_##SFX##_avx2 : NAME##_##SFX##_gen)
#define SD_PICK(NAME, SFX, KIND) (sd_avx2 ? NAME##_##SFX##_avx2 : NAME##_##SFX##_gen)
#else
#define SD_PICK(NAME, SFX, KIND) NAME##_##SFX##_gen
#define SD_PICK_RX(NAME, SFX) NAME##_##SFX##_gen
#endif

/* NumPy's value for a line whose max/min came out a zero or a NaN (see above):
   1 with *r set, 0 where it depends on NumPy's order. */
#define RESOLVE(SFX, T, U, QNAN, SIGN)                                                  \
    static int resolve_##SFX(const T *p, Py_ssize_t n, Py_ssize_t s, T *r)               \
    {                                                                                    \
        int nan = 0, pos = 0, neg = 0;                                                   \
        U nb = 0;                                                                        \
        for (Py_ssize_t i = 0; i < n; i++) {                                             \
            T x = p[i * s];                                                              \
            U b;                                                                         \
            memcpy(&b, &x, sizeof(b));                                                   \
            if (x != x) {                                                                \
                if (!nan)                                                                \
                    nb = b, nan = 1;                                                     \
                else if (b != nb)                                                        \
                    return 0;                                                            \
            }                                                                            \
            else if (x == 0) {                                                           \
                if (b & (SIGN))                                                          \
                    neg = 1;                                                             \
                else                                                                     \
                    pos = 1;                                                             \
            }                                                                            \
        }                                                                                \
        if (nan) {                                                                       \
            if (nb != (QNAN))                                                            \
                return 0;                                                                \
            memcpy(r, &nb, sizeof(nb));                                                  \
            return 1;                                                                    \
        }                                                                                \
        if (*r == 0) {                                                                   \
            if (pos && neg)                                                              \
                return 0;                                                                \
            *r = neg ? -(T)0.0 : (T)0.0;                                                 \
        }                                                                                \
        return 1;                                                                        \
    }
#define SD_RESOLVE_T(SFX, T, U, V, L, QN, SB, ...) RESOLVE(SFX, T, U, QN, SB)
SD_FLOAT_TYPES(SD_RESOLVE_T)

/* a row's max/min, and a tile's (see RX_GENERIC), for each type */
#define SD_RXCX_TYPES(SFX, T, ...)                                                          \
    typedef T (*sd_rx_##SFX)(const T *, Py_ssize_t, int *);                                 \
    typedef void (*sd_cx_##SFX)(const T *, Py_ssize_t, Py_ssize_t, Py_ssize_t, T *, int, uint64_t *); \
    typedef void (*sd_cxr_##SFX)(const T *, Py_ssize_t, Py_ssize_t, Py_ssize_t, T *, unsigned char *);
SD_FLOAT_TYPES(SD_RXCX_TYPES)

typedef struct {
    int op, kind;
    const char *src, *mean; /* mean: op 3's (outer, inner) means */
    char *dst;
    Py_ssize_t outer, nred, inner, ntile, ngroup, ntask, nchunks;
#define SD_RXCX_FIELDS(SFX, ...) sd_rx_##SFX rx_##SFX; sd_cx_##SFX cx_##SFX; sd_cxr_##SFX cxr_##SFX;
    SD_FLOAT_TYPES(SD_RXCX_FIELDS)
    /* the whole array's max/min: one part per chunk */
    double part[SD_MAXCHUNKS];
    int pnan[SD_MAXCHUNKS];
    _Atomic int declined;
} sd_red_ctx;

/* Columns [c0, c1) of outer block o over all rows: rows narrower than SD_ROWS_MAX a row at
   a time, wider ones in blocks of SD_CROWS rows streamed across the columns (SD_CROWS
   sequential streams, not one per row): sums and squared deviations keep the columns'
   running sums in a buffer; max/min keep their accumulators in out, and flag the columns
   that may hold a NaN. */
#define SD_COLRANGE(SFX, T, L, CX)                                                          \
    static void sd_cols_##SFX(sd_red_ctx *x, Py_ssize_t o, Py_ssize_t c0, Py_ssize_t c1)    \
    {                                                                                       \
        Py_ssize_t nred = x->nred, inner = x->inner, w = c1 - c0;                           \
        Py_ssize_t nl = (nred + SD_CROWS - 1) / SD_CROWS;                                   \
        const T *a = (const T *)x->src + o * nred * inner;                                  \
        T *out = (T *)x->dst + o * inner;                                                   \
        int rows = inner * (Py_ssize_t)sizeof(T) <= SD_ROWS_MAX;                            \
        if (x->op == SD_MAX || x->op == SD_MIN) {                                           \
            unsigned char *fl = PyMem_RawCalloc((size_t)w, 1);                              \
            if (fl == NULL) {                                                               \
                atomic_store(&x->declined, 1);                                              \
                return;                                                                     \
            }                                                                               \
            if (rows)                                                                       \
                x->cxr_##SFX(a + c0, nred, inner, w, out + c0, fl);                         \
            for (Py_ssize_t k = 0; k < (rows ? 0 : nl); k++) {                              \
                const T *p = a + k * SD_CROWS * inner;                                      \
                Py_ssize_t nr = nred - k * SD_CROWS < SD_CROWS ? nred - k * SD_CROWS : SD_CROWS;\
                Py_ssize_t c = c0;                                                          \
                while (c < c1) {                                                            \
                    Py_ssize_t t = c + 8 * (L) <= c1 ? 8 * (L) : (c + (L) <= c1 ? (L) : c1 - c);\
                    uint64_t nm;                                                            \
                    x->CX(p + c, nr, inner, t, out + c, k == 0, &nm);                       \
                    if (nm)                                                                 \
                        for (Py_ssize_t j = 0; j < t; j++)                                  \
                            fl[c - c0 + j] |= j >= 64 || ((nm >> j) & 1);                   \
                    c += t;                                                                 \
                }                                                                           \
            }                                                                               \
            for (Py_ssize_t c = c0; c < c1; c++)                                            \
                if ((fl[c - c0] || out[c] == 0) && !resolve_##SFX(a + c, nred, inner, out + c))\
                    atomic_store(&x->declined, 1);                                          \
            PyMem_RawFree(fl);                                                              \
            return;                                                                         \
        }                                                                                   \
        T *st = PyMem_RawMalloc((size_t)w * sizeof(T)); /* the columns' running sums */     \
        if (st == NULL) {                                                                   \
            atomic_store(&x->declined, 1);                                                  \
            return;                                                                         \
        }                                                                                   \
        const T *mean = x->op == SD_SQDEV ? (const T *)x->mean + o * inner : NULL;          \
        Py_ssize_t W = x->op == SD_SQDEV ? 4 * (L) : 8 * (L);                               \
        if (rows && mean)                                                                   \
            colrowsq_##SFX(a + c0, nred, inner, w, mean + c0, st);                          \
        else if (rows)                                                                      \
            colrows_##SFX(a + c0, nred, inner, w, NULL, st);                                \
        for (Py_ssize_t k = 0; k < (rows ? 0 : nl); k++) {                                  \
            const T *p = a + k * SD_CROWS * inner;                                          \
            Py_ssize_t nr = nred - k * SD_CROWS < SD_CROWS ? nred - k * SD_CROWS : SD_CROWS;\
            Py_ssize_t c = c0;                                                              \
            if (x->op == SD_SQDEV) {                                                        \
                for (; c + W <= c1; c += W)                                                 \
                    colsq4_##SFX(p + c, nr, inner, mean + c, st + (c - c0), k);             \
                for (; c + (L) <= c1; c += (L))                                             \
                    colsq1_##SFX(p + c, nr, inner, mean + c, st + (c - c0), k);             \
                for (; c < c1; c++)                                                         \
                    colsqs_##SFX(p + c, nr, inner, mean + c, st + (c - c0), k);             \
            }                                                                               \
            else {                                                                          \
                for (; c + W <= c1; c += W)                                                 \
                    colblk8_##SFX(p + c, nr, inner, NULL, st + (c - c0), k);                \
                for (; c + (L) <= c1; c += (L))                                             \
                    colblk1_##SFX(p + c, nr, inner, NULL, st + (c - c0), k);                \
                for (; c < c1; c++)                                                         \
                    colblks_##SFX(p + c, nr, inner, NULL, st + (c - c0), k);                \
            }                                                                               \
        }                                                                                   \
        /* NumPy's identity plus the sum (+0.0 for a -0.0 sum; adding it first, as NumPy  \
           does, gives the same bits) */                                                \
        for (Py_ssize_t c = 0; c < w; c++)                                                  \
            out[c0 + c] = (T)0 + st[c];                                                     \
        PyMem_RawFree(st);                                                                  \
    }
#define SD_COLRANGE_T(SFX, T, U, V, L, ...) SD_COLRANGE(SFX, T, L, cx_##SFX)
SD_FLOAT_TYPES(SD_COLRANGE_T)

/* Row t of a last-axes reduction, for each type: a sum (+0 for a -0 sum, as NumPy), a
   sum of squared deviations, or a max/min whose zero or NaN result is resolved exactly
   or declined. */
#define SD_ROW_TASK_T(SFX, T, U, V, L, QN, SB, VT, PS, KIND)                            \
    if (x->kind == (KIND)) {                                                           \
        const T *a = (const T *)x->src + t * n;                                        \
        T *o = (T *)x->dst + t;                                                        \
        if (x->op == SD_SUM)                                                           \
            *o = (T)0 + row_##SFX(a, n, 0, span);                                  \
        else if (x->op == SD_SQDEV)                                                    \
            *o = (T)0 + rowsq_##SFX(a, n, ((const T *)x->mean)[t], span);          \
        else {                                                                         \
            int nan;                                                                   \
            *o = x->rx_##SFX(a, n, &nan);                                              \
            if ((nan || *o == 0) && !resolve_##SFX(a, n, 1, o))                        \
                atomic_store(&x->declined, 1);                                         \
        }                                                                              \
    }
#define SD_COLS_T(SFX, T, U, V, L, QN, SB, VT, PS, KIND)                                \
    if (x->kind == (KIND))                                                             \
        sd_cols_##SFX(x, o, c0, c1);

static void sd_red_task(void *p, Py_ssize_t c)
{
    sd_red_ctx *x = (sd_red_ctx *)p;
    Py_ssize_t lo = x->ntask * c / x->nchunks, hi = x->ntask * (c + 1) / x->nchunks;
    Py_ssize_t L = x->kind == 1 ? 8 : 4;
    if (x->inner == 1 && x->op == SD_SUM
        && SD_SHORT_ROWS_IN(x->nred, x->kind, x->outer * x->nred * (x->kind == 1 ? 4 : 8))) /* short rows side by side */
        lo += x->kind == 1 ? rows_f32((const float *)x->src + lo * x->nred, hi - lo, x->nred, (float *)x->dst + lo)
                           : rows_f64((const double *)x->src + lo * x->nred, hi - lo, x->nred, (double *)x->dst + lo);
    else if (x->inner == 1 && x->op == SD_SQDEV && SD_SHORT_SQ_ROWS(x->nred))
        lo += x->kind == 1 ? rowsq_f32_4((const float *)x->src + lo * x->nred, hi - lo, x->nred,
                                         (const float *)x->mean + lo, (float *)x->dst + lo)
                           : rowsq_f64_4((const double *)x->src + lo * x->nred, hi - lo, x->nred,
                                         (const double *)x->mean + lo, (double *)x->dst + lo);
    for (Py_ssize_t t = lo; t < hi && !atomic_load_explicit(&x->declined, memory_order_relaxed); t++) {
        if (x->inner == 1) { /* row t */
            Py_ssize_t n = x->nred, span = x->outer * n * (x->kind == 1 ? 4 : 8);
            SD_FLOAT_TYPES(SD_ROW_TASK_T)
            continue;
        }
        /* group t of outer block o: whole tiles of columns, the last group to the end */
        Py_ssize_t o = t / x->ngroup, g = t % x->ngroup;
        Py_ssize_t W = x->op == SD_SQDEV ? 4 * L : 8 * L;
        Py_ssize_t c0 = (x->ntile * g / x->ngroup) * W, c1 = (x->ntile * (g + 1) / x->ngroup) * W;
        if (c1 > x->inner || g == x->ngroup - 1)
            c1 = x->inner;
        if (c0 >= c1)
            continue;
        SD_FLOAT_TYPES(SD_COLS_T)
    }
}

/* The whole array's max/min: chunk c's part. */
#define SD_XALL_T(SFX, T, U, V, L, QN, SB, VT, PS, KIND)                                \
    if (x->kind == (KIND))                                                             \
        x->part[c] = x->rx_##SFX((const T *)x->src + lo, hi - lo, &x->pnan[c]);
static void sd_xall_task(void *p, Py_ssize_t c)
{
    sd_red_ctx *x = (sd_red_ctx *)p;
    Py_ssize_t n = x->nred, lo = n * c / x->nchunks, hi = n * (c + 1) / x->nchunks;
    x->pnan[c] = 0;
    if (hi <= lo) {
        x->part[c] = Py_NAN; /* never read: chunks are never empty (n >= nchunks) */
        return;
    }
    SD_FLOAT_TYPES(SD_XALL_T)
}

static int sd_mul(Py_ssize_t a, Py_ssize_t b, Py_ssize_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

/* 1 done, 0 declined (see above); called with the GIL, releases it for the work. */
static int sd_reduce(int op, Py_buffer *v, Py_buffer *o, const void *mean, int kind, Py_ssize_t outer,
                     Py_ssize_t nred, Py_ssize_t inner, long nt)
{
    sd_red_ctx *x = PyMem_Calloc(1, sizeof(sd_red_ctx));
    if (x == NULL)
        return 0;
    x->op = op;
    x->kind = kind;
    x->src = v->buf;
    x->dst = o->buf;
    x->mean = mean;
    x->outer = outer;
    x->nred = nred;
    x->inner = inner;
#define SD_SET(NAME, SFX) (op == SD_MAX ? SD_PICK(NAME##_max, SFX, 0) : SD_PICK(NAME##_min, SFX, 0))
#define SD_SET_RX(SFX) (op == SD_MAX ? SD_PICK_RX(rx_max, SFX) : SD_PICK_RX(rx_min, SFX))
#define SD_SET_T(SFX, ...) x->rx_##SFX = SD_SET_RX(SFX), x->cx_##SFX = SD_SET(cx, SFX), x->cxr_##SFX = SD_SET(cxr, SFX);
    SD_FLOAT_TYPES(SD_SET_T)
    atomic_init(&x->declined, 0);
    int ntc = (int)nt; /* clamped by sd_threads */
    int release = v->len >= (1 << 16);
    PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
    if (outer == 1 && inner == 1) { /* the whole array */
        Py_ssize_t n = nred;
        if (op == SD_MAX || op == SD_MIN) {
            x->nchunks = sd_chunks(v->len, ntc);
            if (x->nchunks > n)
                x->nchunks = n;
            sd_parallel(ntc, sd_xall_task, x, x->nchunks);
        }
#define SD_WHOLE_T(SFX, T, U, V, L, QN, SB, VT, PS, KIND)                                   \
        if (kind == (KIND)) {                                                              \
            T *out = (T *)o->buf;                                                          \
            if (op == SD_SQDEV)                                                            \
                *out = (T)sd_sum_whole(kind, v->buf, n, nt, 1, *(const T *)mean);          \
            else if (op == SD_SUM)                                                         \
                *out = n <= 128 ? (T)0 + row_##SFX((const T *)v->buf, n, 0, 0)       \
                                : (T)sd_sum_whole(kind, v->buf, n, nt, 0, 0.0);            \
            else {                                                                         \
                double r = x->part[0];                                                     \
                int nan = 0;                                                               \
                for (Py_ssize_t c = 0; c < x->nchunks; c++) {                              \
                    nan |= x->pnan[c];                                                     \
                    if (op == SD_MAX ? x->part[c] > r : x->part[c] < r)                    \
                        r = x->part[c];                                                    \
                }                                                                          \
                T f = (T)r;                                                                \
                if ((nan || f == 0) && !resolve_##SFX((const T *)v->buf, n, 1, &f))        \
                    atomic_store(&x->declined, 1);                                         \
                *out = f;                                                                  \
            }                                                                              \
        }
        SD_FLOAT_TYPES(SD_WHOLE_T)
    }
    else {
        Py_ssize_t L = kind == 1 ? 8 : 4, W = op == SD_SQDEV ? 4 * L : 8 * L;
        Py_ssize_t want = sd_chunks(v->len, ntc);
        /* rows: one task each; columns: each outer block's tiles in groups, enough
           groups for the chunks wanted (one group, the whole width, on one thread) */
        x->ntile = inner == 1 ? 1 : inner / W + (inner % W != 0);
        /* Rows a row at a time (narrower than SD_ROWS_MAX) are not split into groups of
           columns: a thread reading part of each row streamed the rest of the row into its
           cache too (its prefetchers), and two threads took 1.3-1.9x one thread's time from
           memory (5000x200, 1000x1000, 20000x50 float64 sums over axis 0). */
        int rows = inner > 1 && inner * (kind == 1 ? 4 : 8) <= SD_ROWS_MAX;
        x->ngroup = inner == 1 || outer >= want || rows ? 1 : (want + outer - 1) / outer;
        if (x->ngroup > x->ntile)
            x->ngroup = x->ntile;
        x->ntask = inner == 1 ? outer : outer * x->ngroup;
        x->nchunks = want > x->ntask ? x->ntask : want;
        sd_parallel(ntc, sd_red_task, x, x->nchunks);
    }
    if (release)
        PyEval_RestoreThread(ts);
    int ok = !atomic_load(&x->declined);
    if (ok && (op == SD_SUM || op == SD_SQDEV)) {
        /* a NaN sum: its payload is the one NumPy's loop order picks (see ROW): declined */
        Py_ssize_t m = outer * inner;
        for (Py_ssize_t i = 0; i < m && ok; i++)
            ok = kind == 1 ? ((const float *)o->buf)[i] == ((const float *)o->buf)[i]
                           : ((const double *)o->buf)[i] == ((const double *)o->buf)[i];
    }
    PyMem_Free(x);
    return ok;
}

static PyObject *
reduce_axis(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("reduce", nargs, 7, 8) < 0)
        return NULL;
    long op = PyLong_AsLong(args[0]), nt;
    Py_ssize_t outer = PyLong_AsSsize_t(args[3]), nred = PyLong_AsSsize_t(args[4]);
    Py_ssize_t inner = PyLong_AsSsize_t(args[5]);
    if (PyErr_Occurred() || sd_threads(args[6], &nt) < 0)
        return NULL;
    if (op < 0 || op >= SD_NRED) {
        PyErr_Format(PyExc_ValueError, "reduce(): op must be one of REDUCE_OPS: " SD_REDUCE_OPS(SD_RED_DOC)
                     "; got %ld", op);
        return NULL;
    }
    if (sd_red_means[op] != (nargs == 8)) {
        PyErr_SetString(PyExc_TypeError, "reduce(): op 3 and only op 3 takes the means (8th argument)");
        return NULL;
    }
    if (outer < 1 || nred < 1 || inner < 1)
        Py_RETURN_FALSE;
    Py_buffer v, o;
    int kv = sd_fbuf(args[1], &v, 0);
    if (!kv)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_False);
    int ko = sd_fbuf(args[2], &o, 1);
    if (!ko) {
        PyBuffer_Release(&v);
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_False);
    }
    Py_ssize_t L = kv == 1 ? 8 : 4, nin, nout;
    int ok = ko == kv && sd_mul(outer, nred, &nin) && sd_mul(nin, inner, &nin)
             && sd_mul(nin, v.itemsize, &nin) && nin == v.len && sd_mul(outer, inner, &nout)
             && sd_mul(nout, o.itemsize, &nout) && nout == o.len
             && !((char *)v.buf < (char *)o.buf + o.len && (char *)o.buf < (char *)v.buf + v.len)
             && (inner == 1 || inner >= L);
    Py_buffer m;
    int km = 0;
    if (ok && sd_red_means[op]) {
        km = sd_fbuf(args[7], &m, 0);
        ok = km == kv && m.len == o.len;
    }
    if (ok)
        ok = sd_reduce((int)op, &v, &o, km ? m.buf : NULL, kv, outer, nred, inner, nt);
    if (km)
        PyBuffer_Release(&m);
    PyBuffer_Release(&o);
    PyBuffer_Release(&v);
    if (!ok && PyErr_Occurred())
        return NULL;
    return PyBool_FromLong(ok);
}

/* extremum_all(a, is_max, nthreads) -> float, or None (not a non-empty C-contiguous
   float32/float64 buffer, or a zero or NaN result whose sign or payload NumPy picks by
   its order): reduce()'s whole-array max/min as a Python float. */
static PyObject *
extremum_all(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("extremum_all", nargs, 3, 3) < 0)
        return NULL;
    int is_max = PyObject_IsTrue(args[1]);
    long nt;
    if (is_max < 0 || sd_threads(args[2], &nt) < 0)
        return NULL;
    Py_buffer v;
    int kind = sd_fbuf(args[0], &v, 0);
    if (!kind)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    double d = 0.0;
    float f = 0.0f;
    Py_buffer o;
    memset(&o, 0, sizeof(o));
    o.buf = kind == 1 ? (void *)&f : (void *)&d;
    o.len = o.itemsize = kind == 1 ? 4 : 8;
    int ok = v.len > 0 && sd_reduce(is_max ? SD_MAX : SD_MIN, &v, &o, NULL, kind, 1, v.len / v.itemsize, 1, nt);
    PyBuffer_Release(&v);
    if (!ok)
        Py_RETURN_NONE;
    return PyFloat_FromDouble(kind == 1 ? (double)f : d);
}

/* max_into(src, out, n) / min_into(src, out, n) -> bool: sum_into's convention for the whole
   max/min of a C-contiguous float32/float64 buffer of n >= 1 elements into the one-element
   buffer out of the same type, on the calling thread: reduce()'s exact max/min. False
   (out unspecified) where it declines: a zero or NaN result whose sign or payload NumPy's
   order picks (reduce()'s rule), or a layout, type or size it does not take. _chot's
   K_NPRED calls it for max(x)/min(x) beyond the small arrays NumPy's reduction serves
   (issue 38, round 22: 1e4 float32 0.63 us against maximum.reduce's 1.57). */
static PyObject *
extremum_into(int op, const char *fn, PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs(fn, nargs, 3, 3) < 0)
        return NULL;
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer v, o;
    int kv = sd_fbuf(args[0], &v, 0);
    if (!kv)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_False);
    int ko = sd_fbuf(args[1], &o, 1);
    if (!ko) {
        PyBuffer_Release(&v);
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_False);
    }
    Py_ssize_t nin;
    int ok = ko == kv && n >= 1 && sd_mul(n, v.itemsize, &nin) && nin == v.len && o.len == o.itemsize
             && !((char *)v.buf < (char *)o.buf + o.len && (char *)o.buf < (char *)v.buf + v.len)
             && sd_reduce(op, &v, &o, NULL, kv, 1, n, 1, 1);
    PyBuffer_Release(&o);
    PyBuffer_Release(&v);
    if (!ok && PyErr_Occurred())
        return NULL;
    return PyBool_FromLong(ok);
}

static PyObject *
max_into(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    return extremum_into(SD_MAX, "max_into", args, nargs);
}

static PyObject *
min_into(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    return extremum_into(SD_MIN, "min_into", args, nargs);
}

/* pool_config(spin_ns=-1, min_chunk_bytes=-1, stall_ns=-1, backoff_ns=-1, nap_ns=-1) ->
   (spin_ns, min_chunk_bytes, workers, worker_chunks, stall_ns, stalls, backoff_left_ns,
   nap_ns): set what is >= 0, report all (workers: the crew now running in this process;
   worker_chunks: the chunks its workers have run so far; stalls: the stalls seen so far;
   backoff_left_ns: how long jobs still run on the caller alone; nap_ns: how long an idle
   worker naps after its spin before it sleeps on the condition variable). backoff_ns starts
   a back-off of that length now (0 ends one), as a stall does. */
static PyObject *
pool_config(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (sd_nargs("pool_config", nargs, 0, 5) < 0)
        return NULL;
    long v[5] = {-1, -1, -1, -1, -1};
    for (Py_ssize_t i = 0; i < nargs; i++)
        if ((v[i] = PyLong_AsLong(args[i])) == -1 && PyErr_Occurred())
            return NULL;
    if (v[0] >= 0)
        atomic_store(&sd_spin_ns, v[0]);
    if (v[1] >= 0)
        atomic_store(&sd_min_chunk, v[1] > 0 ? (Py_ssize_t)v[1] : 1);
    if (v[2] >= 0)
        atomic_store(&sd_stall_ns, v[2]);
    long now = sd_now();
    if (v[3] >= 0)
        atomic_store(&sd_backoff_until, v[3] > 0 ? now + v[3] : 0);
    if (v[4] >= 0)
        atomic_store(&sd_nap_ns, v[4]);
    long until = atomic_load(&sd_backoff_until);
    return Py_BuildValue("(lnilllll)", atomic_load(&sd_spin_ns), atomic_load(&sd_min_chunk), P.nworkers,
                         atomic_load(&sd_worker_chunks), atomic_load(&sd_stall_ns), atomic_load(&sd_stalls),
                         until > now ? until - now : 0L, atomic_load(&sd_nap_ns));
}

/* _worker_delay(ns) -> previous: a test hook; each worker sleeps ns before every chunk it
   claims (a worker that lost its core mid-chunk, on demand). 0 turns it off. */
static PyObject *
worker_delay(PyObject *Py_UNUSED(self), PyObject *arg)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    if (v < 0 || v > 1000000000L) {
        PyErr_Format(PyExc_ValueError, "_worker_delay(): expected 0..1e9 ns; got %ld", v);
        return NULL;
    }
    return PyLong_FromLong(atomic_exchange(&sd_worker_delay_ns, v));
}

#define SD_FN(NAME, FN, DOC) {NAME, (PyCFunction)(void (*)(void))FN, METH_FASTCALL, DOC}
static PyMethodDef methods[] = {
    SD_FN("sum_rows", sum_rows,
     "sum_rows(src, out, ncols): pairwise sums of the ncols-long rows of a C-contiguous "
     "float32/float64 buffer into out (ValueError for anything else)."),
    SD_FN("sum_into", sum_into,
     "sum_into(src, out, ncols[, divisor]) -> bool: sum_rows (each sum then divided by divisor "
     "in the buffer's type: a mean), or False (nothing written) where src or out is not a "
     "C-contiguous float32/float64 buffer of fitting sizes."),
    SD_FN("cast_ok", cast_ok,
     "cast_ok(a, lo, hi) -> bool or None: every element v of a C-contiguous float32/float64 "
     "buffer has trunc(v) >= lo and v < hi (NaN never); None for any other buffer."),
    SD_FN("select", select_,
     "select(c, a, b, out, nthreads) -> bool: out = c ? a : b, element by element, over C-contiguous "
     "buffers (c bool; a, b, out of one itemsize of 1-16 bytes, a or b of one element for all), "
     "the bits copied; False (nothing written) for anything else."),
    SD_FN("softplus_run", softplus_run,
     "softplus_run(a, out, beta, threshold, exp_info, log1p_info) -> bool: activations.softplus's "
     "steps over a C-contiguous float32/float64 buffer into out in one call; False: not handled."),
    SD_FN("softmax_rows", softmax_rows,
     "softmax_rows(src, out, ncols, exp_info, log_info) -> bool: softmax (log_info None) or "
     "log_softmax of each ncols-long row of a C-contiguous float32/float64 buffer into out, the "
     "composites' operations (exp and log by the loops in the call-info capsules); False where "
     "a row's maximum is not finite or the buffers do not fit."),
    SD_FN("relu", relu,
     "relu(x, out, nthreads) -> bool: out = (x < 0 ? +0 : x) over equal-sized C-contiguous float32/"
     "float64 buffers of one type (PyTorch's relu: NaN and -0.0 kept); False for anything else."),
    SD_FN("ew_binary", ew_binary,
     "ew_binary(op, a, b, out, nthreads) -> bool: out = op(a, b) by NumPy's own loop (op: a code "
     "of EW_BINARY_OPS) over equal-sized C-contiguous float32/float64 buffers (for add, subtract, "
     "multiply, divide one of a, b may be a Python float or int), on the thread pool; False "
     "(nothing written) for anything else."),
    SD_FN("act", act,
     "act(op, x, out, p, q, nthreads) -> bool: hardtanh (0: clamp to [p, q]) or leaky_relu "
     "(1: maximum(x, x*p); 2: x > 0 ? x : x*p) or relu (3), gelu (4, float32), hardsigmoid (5), "
     "hardswish (6), erf (7, float32: activations.erf32) of a C-contiguous float32/float64 buffer into out, "
     "p and q in x's dtype, the NumPy formulas' values; False: not handled."),
    SD_FN("ew_loop", ew_loop,
     "ew_loop(call_info, inputs, out, nthreads) -> bool: NumPy's strided loop from a "
     "ufunc._get_strided_loop capsule over equal-sized C-contiguous buffers, on the thread pool."),
    SD_FN("sum_isa", sum_isa,
     "sum_isa([avx512]) -> str: the instruction set the float sums run on ('avx512', 'avx2' or "
     "'generic'); avx512 (bool) turns the AVX-512 float64 kernels on or off (on only where the "
     "processor has AVX-512F; STRIDED_NO_AVX512 in the environment: off at import); a str "
     "('generic', 'avx2', 'avx512') sets the instruction set, as far as the processor has it."),
    SD_FN("sum_all", sum_all,
     "sum_all(a, nthreads) -> float or None: the pairwise sum of a C-contiguous float32/float64 "
     "buffer (more than 128 elements), bit for bit sum_rows's (NumPy's), on the thread pool; "
     "None for a NaN sum."),
    SD_FN("max_into", max_into,
     "max_into(src, out, n) -> bool: the max of a C-contiguous float32/float64 buffer of n "
     "elements into the one-element buffer out (one thread); False where NumPy's order picks a "
     "zero's sign or a NaN's payload, or for another layout or type."),
    SD_FN("min_into", min_into, "min_into(src, out, n) -> bool: max_into's min."),
    SD_FN("extremum_all", extremum_all,
     "extremum_all(a, is_max, nthreads) -> float or None: max/min of a C-contiguous "
     "float32/float64 buffer (NaN where it holds one), on the thread pool; None where NumPy's "
     "order picks a zero's sign or a NaN's payload."),
    SD_FN("reduce", reduce_axis,
     "reduce(op, src, out, outer, nred, inner, nthreads) -> bool: the sum (op 0), max (1) or "
     "min (2) (the codes of REDUCE_OPS) over the middle axis of a C-contiguous float32/float64 "
     "buffer seen as (outer, nred, inner) into the C-contiguous (outer, inner) out of the same "
     "type, on nthreads threads; op 3 with means (8th argument, shaped as out): the sum of "
     "(x - mean)**2; False (out unspecified) for anything it doesn't take or a zero/NaN "
     "extremum whose sign/payload NumPy picks by its order."),
    {"_worker_delay", worker_delay, METH_O,
     "_worker_delay(ns) -> previous: a test hook; every worker sleeps ns before each chunk it runs."},
    SD_FN("pool_config", pool_config,
     "pool_config(spin_ns=-1, min_chunk_bytes=-1, stall_ns=-1, backoff_ns=-1, nap_ns=-1) -> "
     "(spin_ns, min_chunk_bytes, workers, chunks the workers have run, stall_ns, stalls seen, "
     "back-off left in ns, nap_ns): sets what is >= 0; backoff_ns > 0 runs jobs on the caller "
     "alone that long; nap_ns: an idle worker's naps between its spin and its sleep."),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided._csrc._ckernels",
    "The CPU kernels NumPy has no fast equivalent for (see strided/_core/cfast.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__ckernels(void)
{
#ifdef SD_HAVE_AVX2_X
    __builtin_cpu_init();
    sd_avx2 = __builtin_cpu_supports("avx2");
    sd_avx512 = sd_avx2 && __builtin_cpu_supports("avx512f") && !getenv("STRIDED_NO_AVX512");
#endif
    static int forked_handler = 0;
    if (!forked_handler) {
        pthread_atfork(NULL, NULL, sd_atfork_child);
        forked_handler = 1;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    /* The op codes, from the tables: {name: code} for threads.py and cfast.py. */
#define SD_BIN_DICT(CODE, UFUNC, SCALAR) "s" "i"
#define SD_BIN_ITEM(CODE, UFUNC, SCALAR) , #UFUNC, CODE
#define SD_RED_DICT(CODE, NAME, PY, MEANS) "s" "i"
#define SD_RED_ITEM(CODE, NAME, PY, MEANS) , #PY, CODE
    PyObject *bin = Py_BuildValue("{" SD_EW_BINARY_OPS(SD_BIN_DICT) "}" SD_EW_BINARY_OPS(SD_BIN_ITEM));
    PyObject *red = Py_BuildValue("{" SD_REDUCE_OPS(SD_RED_DICT) "}" SD_REDUCE_OPS(SD_RED_ITEM));
    int bad = bin == NULL || red == NULL || PyModule_AddObjectRef(m, "EW_BINARY_OPS", bin) < 0
              || PyModule_AddObjectRef(m, "REDUCE_OPS", red) < 0;
    Py_XDECREF(bin);
    Py_XDECREF(red);
    if (bad) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
