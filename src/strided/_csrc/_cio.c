/* strided._csrc._cio: a fast CRC-32 for save/load (the checksum of strided's file format).
 *
 * crc32(data, value=0) -> int is zlib.crc32: the same polynomial (0xEDB88320,
 * reflected), the same pre- and post-inversion, the same result for every
 * input (the tests compare it with zlib on random data of every length up to
 * a few hundred bytes and on large buffers, with nonzero start values). On
 * x86-64 CPUs with PCLMULQDQ and SSE4.1 (checked at run time with cpuid) the
 * body runs the carry-less-multiply folding of Intel's paper "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ" (the constants and the
 * reduction are those of the Linux kernel's crc32-pclmul and Chromium's zlib):
 * four 128-bit lanes folded 64 bytes at a time, several times zlib 1.2's
 * speed. Elsewhere, and for heads and tails, a table does a byte at a time.
 * The GIL is released from 64 KiB on, so strided's threads checksum parts of a
 * file at once.
 *
 * ``data`` is anything with the buffer protocol (C-contiguous); a
 * non-contiguous buffer or a value outside 0..2**32-1 raises, never crashes.
 * CLMUL tells whether the fast path is in use (strided/io/_native.py
 * uses zlib.crc32 instead when it isn't: zlib's table code is faster than this
 * file's byte loop).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CIO_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static uint32_t table[256];
static int have_clmul = 0; /* 1: PCLMULQDQ, 2: also VPCLMULQDQ on ZMM */
static int no_wide = 0;  /* set_wide(False): the 128-bit path only (tests, comparisons) */

static void make_table(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
}

/* The register (already inverted) over len bytes, a byte at a time. */
static uint32_t crc_bytes(uint32_t c, const unsigned char *p, size_t len)
{
    while (len--)
        c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return c;
}

#ifdef CIO_X86
/* The register (already inverted) over len bytes; len >= 64 and a multiple of 16. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc_finish(__m128i x1, const unsigned char *buf, size_t len);

__attribute__((target("pclmul,sse4.1")))
static uint32_t crc_clmul(uint32_t crc, const unsigned char *buf, size_t len)
{
    /* x^(4*128+32), x^(4*128-32), x^(128+32), x^(128-32), x^64 modulo P, and
       P and floor(x^64 / P), all bit-reflected (shifted left by one). */
    static const uint64_t k1k2[2] __attribute__((aligned(16))) = {0x0154442bd4, 0x01c6e41596};
    static const uint64_t k3k4[2] __attribute__((aligned(16))) = {0x01751997d0, 0x00ccaa009e};
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8, y5, y6, y7, y8;

    x1 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
    x2 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
    x3 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
    x4 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    x0 = _mm_load_si128((const __m128i *)k1k2);
    buf += 64;
    len -= 64;

    /* Four lanes, 64 bytes a step. */
    while (len >= 64) {
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
        x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
        x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
        x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
        x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
        y5 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
        y6 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
        y7 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
        y8 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), y5);
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), y6);
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), y7);
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), y8);
        buf += 64;
        len -= 64;
    }

    /* Fold the four lanes into one. */
    x0 = _mm_load_si128((const __m128i *)k3k4);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);

    return crc_finish(x1, buf, len);
}

/* The 128-bit folding state x1 over len more bytes (a multiple of 16), reduced to the register. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc_finish(__m128i x1, const unsigned char *buf, size_t len)
{
    static const uint64_t k3k4[2] __attribute__((aligned(16))) = {0x01751997d0, 0x00ccaa009e};
    static const uint64_t k5k0[2] __attribute__((aligned(16))) = {0x0163cd6124, 0x0000000000};
    static const uint64_t poly[2] __attribute__((aligned(16))) = {0x01db710641, 0x01f7011641};
    __m128i x0 = _mm_load_si128((const __m128i *)k3k4), x2, x3, x5;

    /* 16 bytes a step. */
    while (len >= 16) {
        x2 = _mm_loadu_si128((const __m128i *)buf);
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
        buf += 16;
        len -= 16;
    }

    /* 128 bits to 64, 64 to 32, then Barrett reduction. */
    x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
    x3 = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_srli_si128(x1, 8);
    x1 = _mm_xor_si128(x1, x2);
    x0 = _mm_loadl_epi64((const __m128i *)k5k0);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, x3);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    x0 = _mm_load_si128((const __m128i *)poly);
    x2 = _mm_and_si128(x1, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
    x2 = _mm_and_si128(x2, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

/* The same with VPCLMULQDQ: four 512-bit lanes, 256 bytes a step (len >= 256, a multiple
   of 16); the lanes are folded into one 128-bit state that crc_finish completes. */
__attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.1")))
static uint32_t crc_vclmul(uint32_t crc, const unsigned char *buf, size_t len)
{
    /* x^(2048+32), x^(2048-32) (a 256-byte fold) and x^(512+32), x^(512-32) (64 bytes). */
    const __m512i k256 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x01322d1430, 0x011542778a));
    const __m512i k64 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x01c6e41596, 0x0154442bd4));
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    __m512i z0 = _mm512_loadu_si512((const void *)(buf + 0x00));
    __m512i z1 = _mm512_loadu_si512((const void *)(buf + 0x40));
    __m512i z2 = _mm512_loadu_si512((const void *)(buf + 0x80));
    __m512i z3 = _mm512_loadu_si512((const void *)(buf + 0xc0));
    z0 = _mm512_xor_si512(z0, _mm512_castsi128_si512(_mm_cvtsi32_si128((int)crc)));
    buf += 256;
    len -= 256;
#define FOLD512(z, k, next) _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(z, k, 0x00), \
                                                      _mm512_clmulepi64_epi128(z, k, 0x11), next, 0x96)
    while (len >= 256) {
        z0 = FOLD512(z0, k256, _mm512_loadu_si512((const void *)(buf + 0x00)));
        z1 = FOLD512(z1, k256, _mm512_loadu_si512((const void *)(buf + 0x40)));
        z2 = FOLD512(z2, k256, _mm512_loadu_si512((const void *)(buf + 0x80)));
        z3 = FOLD512(z3, k256, _mm512_loadu_si512((const void *)(buf + 0xc0)));
        buf += 256;
        len -= 256;
    }
    z0 = FOLD512(z0, k64, z1);
    z0 = FOLD512(z0, k64, z2);
    z0 = FOLD512(z0, k64, z3);
#undef FOLD512
    __m128i x1 = _mm512_extracti32x4_epi32(z0, 0), x5;
    for (int i = 1; i < 4; i++) {
        __m128i next = i == 1 ? _mm512_extracti32x4_epi32(z0, 1)
                       : i == 2 ? _mm512_extracti32x4_epi32(z0, 2) : _mm512_extracti32x4_epi32(z0, 3);
        x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, next), x5);
    }
    return crc_finish(x1, buf, len);
}

static int detect_clmul(void)
{
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (!((c & bit_PCLMUL) && (c & bit_SSE4_1)))
        return 0;
    /* VPCLMULQDQ on 512-bit registers: cpuid 7 (ebx AVX512F, ecx VPCLMULQDQ) and the
       OS saving the ZMM state (OSXSAVE, then XCR0 bits 1, 2, 5, 6, 7). */
    if (!(c & bit_OSXSAVE) || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 1;
    if (!(b & (1u << 16)) || !(c & (1u << 10)))
        return 1;
    unsigned int lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xe6) == 0xe6 ? 2 : 1;
}
#endif

static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t len)
{
    uint32_t c = ~crc;
#ifdef CIO_X86
    if (have_clmul == 2 && len >= 256 && !no_wide) {
        size_t body = len & ~(size_t)15;
        c = crc_vclmul(c, p, body);
        p += body;
        len -= body;
    } else if (have_clmul && len >= 64) {
        size_t body = len & ~(size_t)15;
        c = crc_clmul(c, p, body);
        p += body;
        len -= body;
    }
#endif
    c = crc_bytes(c, p, len);
    return ~c;
}

static PyObject *cio_crc32(PyObject *self, PyObject *args)
{
    Py_buffer view;
    unsigned long long value = 0;
    PyObject *vobj = NULL;
    if (!PyArg_ParseTuple(args, "y*|O:crc32", &view, &vobj))
        return NULL;
    if (vobj != NULL) {
        value = PyLong_AsUnsignedLongLong(vobj);
        if (PyErr_Occurred() || value > 0xFFFFFFFFull) {
            PyBuffer_Release(&view);
            if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_SetString(PyExc_ValueError, "crc32(): value must be an int in 0..2**32-1");
            }
            return NULL;
        }
    }
    uint32_t crc = (uint32_t)value;
    const unsigned char *p = (const unsigned char *)view.buf;
    size_t len = (size_t)view.len;
    if (len >= (1u << 16)) {
        Py_BEGIN_ALLOW_THREADS
        crc = crc_update(crc, p, len);
        Py_END_ALLOW_THREADS
    } else {
        crc = crc_update(crc, p, len);
    }
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
}

static PyObject *cio_set_wide(PyObject *self, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    int was = !no_wide;
    no_wide = !on;
    return PyBool_FromLong(was);
}

static PyMethodDef methods[] = {
    {"set_wide", cio_set_wide, METH_O,
     "set_wide(on) -> bool: allow the 512-bit path (default) or not; returns the previous setting."},
    {"crc32", cio_crc32, METH_VARARGS,
     "crc32(data, value=0) -> int: zlib.crc32, with carry-less multiplication where the CPU has it."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cio",
                                    "A fast CRC-32 (zlib's) for strided's file format.", -1, methods};

PyMODINIT_FUNC PyInit__cio(void)
{
    make_table();
#ifdef CIO_X86
    have_clmul = detect_clmul();
#endif
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "CLMUL", have_clmul) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
