"""exp of float32 and float64 and log of float32 in strided's own vector loops
(strided/_csrc/_chot/loops.c, "exp and log: NumPy's loops, vectorised"): where NumPy's
float64 exp is the C library's exp one element at a time (glibc's __exp_fma on an x86-64
processor with AVX2 and FMA) and its float32 exp and log its AVX2 simd_exp_FLOAT and
simd_log_FLOAT (masked stores), the hot path and the thread pool run _chot's versions of the
same arithmetic instead, after checking them against NumPy's loops on a probe. Their values must be NumPy's bit for bit: every binade, the special cases
(float64: |x| < 2^-54, |x| >= 512; float32: the overflow and underflow bounds, the
subnormal results; infinities, NaN payloads of both signs, signalling NaNs), every size
(the vector loops' remainders, the pool and thread thresholds with one and two threads),
every layout, in place (an elided temporary), the input untouched. The reference is
NumPy's own ``np.exp`` (its loops are never replaced: only strided's capsules are). Where NumPy
runs its AVX-512 loops, float32 exp is its simd_exp_FLOAT sixteen lanes wide and float64 exp
SVML's (tests/_csrc/test_exp64_wide13.py). On
other machines the loops are refused and the same tests check NumPy's loops through
strided. (Measured once, not in CI: all 2^32 float32 bit patterns, exp and log, and 1e8
random float64 ones, 0 differences.)"""

from __future__ import annotations

import math
import platform

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core import _npcompat, dispatch, pool, threads

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


@pytest.fixture(autouse=True)
def _quiet_references():
    with np.errstate(all="ignore"):
        yield


def _bits(rng, n, dt=np.float64):
    """n bit patterns of dt: a quarter raw (NaNs, infinities, subnormals, huge), the rest in
    the binades around the polynomials' ranges (float64 2^-60 .. 2^11, float32 2^-30 ..
    2^8), of both signs."""
    k = n - n // 4
    if np.dtype(dt) == np.float32:
        b = rng.integers(0, 2**32, n, dtype=np.uint32, endpoint=False)
        e = rng.integers(0x61, 0x88, k, dtype=np.uint32)
        b[:k] = (b[:k] & np.uint32(0x807FFFFF)) | (e << np.uint32(23))
    else:
        b = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
        e = rng.integers(0x3C3, 0x40B, k, dtype=np.uint64)
        b[:k] = (b[:k] & np.uint64(0x800FFFFFFFFFFFFF)) | (e << np.uint64(52))
    rng.shuffle(b)
    return b.view(dt)


_EDGES = np.array([0x0, 0x8000000000000000, 0x1, 0x800FFFFFFFFFFFFF, 0x3C90000000000000, 0x3C8FFFFFFFFFFFFF,
                   0x4080000000000000, 0x407FFFFFFFFFFFFF, 0xC080000000000000, 0xC07FFFFFFFFFFFFF,
                   0x40862E42FEFA39EF, 0x40862E42FEFA39F0, 0xC0874910D52D3051, 0xC0874910D52D3052,
                   0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000ABCDEF,
                   0x7FF0000000000001, 0xFFF4000000000ABC, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF],
                  np.uint64).view(np.float64)
_EDGES32 = np.array([0x0, 0x80000000, 0x1, 0x807FFFFF, 0x42B17218, 0x42B17217, 0xC2CFF1B5, 0xC2CFF1B4,
                     0xC2AEAC50, 0xC2AEAC4F, 0xC2FA0000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001,
                     0x7FA00ABC, 0x7F7FFFFF, 0xFF7FFFFF, 0xC2781E37], np.uint32).view(np.float32)


def _edges(dt):
    return _EDGES32 if np.dtype(dt) == np.float32 else _EDGES


_CASES = [("exp", np.float32), ("exp", np.float64), ("log", np.float32)]


def _check(x, a, what, f="exp"):
    before, v = host(x).tobytes(), x._version
    r = getattr(xp, f)(x)
    g, w = host(r), getattr(np, f)(a)
    assert g.dtype == a.dtype and g.shape == w.shape, what
    u = np.uint32 if a.dtype == np.float32 else np.uint64
    bad = np.flatnonzero(g.reshape(-1).view(u) != np.ascontiguousarray(w).reshape(-1).view(u))
    assert bad.size == 0, f"{what}: {bad.size} values differ from NumPy's, first at x={a.reshape(-1)[bad[0]]!r}"
    assert host(x).tobytes() == before and x._version == v, f"{what}: the input changed"


def _qualifies() -> bool:
    """An x86-64 Linux with glibc and a processor with AVX2 and FMA: the vector loop's home."""
    if platform.machine() != "x86_64" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((ln for ln in f if ln.startswith("flags")), "").split()
    except OSError:
        return False
    return "avx2" in flags and "fma" in flags


def _numpy_is_avx512(f, dt) -> bool:
    """NumPy runs its own AVX-512 loop (X86_V4) for ``f`` of ``dt`` here. For float64 exp that
    is another algorithm than the C library's exp (other bits: strided's vector version of
    glibc's exp is refused); the float32 exp and log are the same algorithm at either width,
    twice as wide as strided's AVX2 loops (verified, but not put in NumPy's place). NumPy says
    which loop it dispatched (``__cpu_targets_info__``); where it does not, AVX512F decides."""
    from numpy._core import _multiarray_umath as m
    info = getattr(m, "__cpu_targets_info__", None)
    sig = "dd" if np.dtype(dt) == np.float64 else "ff"
    if info is not None and sig in info.get(f, {}):
        return info[f][sig]["current"].startswith(("X86_V4", "AVX512"))
    return bool(m.__cpu_features__.get("AVX512F"))


def _width() -> int:
    """The lanes' bits of strided's float32 vector loops here, as the module reports them: 512
    where it runs their AVX-512F versions (the processor has AVX-512F and STRIDED_NO_AVX512 is
    not 1), 256 for AVX2, 0 where they are not built."""
    chot = dispatch.CHOT
    return chot.vector_width() if chot is not None and hasattr(chot, "vector_width") else 0


def _numpy_svml_exp() -> bool:
    """NumPy's module exports SVML's float64 exp of eight lanes (``__svml_exp8_ha``, what its
    AVX-512 DOUBLE_exp calls where NumPy was built with SVML)."""
    import ctypes

    from numpy._core import _multiarray_umath as m
    try:
        return hasattr(ctypes.CDLL(m.__file__), "__svml_exp8_ha")
    except OSError:
        return False


def _expected(f, dt) -> bool:
    """strided's loop for ``f`` of ``dt`` replaces NumPy's here: the machine qualifies and
    NumPy's own loop is not its AVX-512 one, or strided runs its own AVX-512 version of that
    same loop, four vectors in flight (float32 exp: NumPy's simd_exp_FLOAT; float64 exp:
    SVML's __svml_exp8_ha, where NumPy runs it)."""
    if not _qualifies():
        return False
    if f == "exp" and _width() == 512 and (np.dtype(dt) == np.float32 or _numpy_svml_exp()):
        return True
    return not _numpy_is_avx512(f, dt)


def _exp_verified(dt) -> bool:
    """strided's vector exp of ``dt`` gives NumPy's bits here (what sigmoid and silu build on):
    the machine qualifies and, for float64, NumPy's exp is the C library's, or SVML's where
    strided runs its AVX-512 loops."""
    if not _qualifies():
        return False
    if np.dtype(dt) == np.float64 and _numpy_is_avx512("exp", dt):
        return _width() == 512 and _numpy_svml_exp()
    return True


@pytest.mark.parametrize("f, dt", _CASES)
def test_millions_of_values_and_the_edges(f, dt):
    rng = np.random.default_rng(20261129)
    a = np.concatenate([_edges(dt), _bits(rng, 2_000_000, dt)])
    if f == "log":  # every binade, positive but one in sixteen
        b = rng.integers(0, 2**32, 2_000_000, dtype=np.uint32, endpoint=False)
        b[rng.integers(0, 16, b.size) != 0] &= np.uint32(0x7FFFFFFF)
        a = np.concatenate([a, b.view(np.float32), np.linspace(0.5, 2, 100_001, dtype=np.float32)])
    _check(xp.asarray(a, device="cpu"), a, "2e6 random bit patterns", f)
    if dt == np.float32:  # every float32 from -110 to 90 in steps of 2^-12, and subnormal inputs
        t = np.concatenate([np.arange(-110, 90, 2**-12, dtype=np.float32),
                            np.arange(0, 2**23, 97, dtype=np.uint32).view(np.float32)])
        _check(xp.asarray(t, device="cpu"), t, "a grid of float32", f)
        return
    if f == "log":
        return
    # every table entry, either side of its centre, and the values exp maps to powers of two
    k = np.arange(-1100 * 128, 1030 * 128, 37, dtype=np.float64)
    t = np.concatenate([k * (math.log(2) / 128) + d for d in (-1e-3, -1e-12, 0.0, 1e-12, 1e-3)])
    _check(xp.asarray(t, device="cpu"), t, "k ln2/128")


@settings(max_examples=120, deadline=None)
@given(n=hs.integers(0, 3000), seed=hs.integers(0, 2**32 - 1), case=hs.sampled_from(_CASES))
def test_every_small_size_and_layout(n, seed, case):
    f, dt = case
    a = _bits(np.random.default_rng(seed), n, dt)
    e = _edges(dt)
    a[: min(n, e.size)] = e[: min(n, e.size)]
    x = xp.asarray(a, device="cpu")
    _check(x, a, f"n={n}", f)
    _check(x[::-1], a[::-1], f"n={n} reversed", f)
    _check(x[1::3], a[1::3], f"n={n} step 3", f)
    if n >= 6 and n % 2 == 0:
        m = a.reshape(2, -1)
        _check(xp.asarray(m, device="cpu"), m, f"n={n} 2-D", f)
        _check(xp.asarray(m, device="cpu").T, m.T, f"n={n} transposed", f)


@pytest.mark.parametrize("f, dt", _CASES)
def test_zero_d_empty_and_in_place(f, dt):
    for v in (0.0, -0.0, 1.0, -745.2, -100.0, 88.8, 709.8, 1e-300, np.nan, np.inf, -np.inf):
        a = np.array(v, dt)
        _check(xp.asarray(a, device="cpu"), a, f"0-d {v}", f)
    _check(xp.asarray(np.zeros((3, 0), dt), device="cpu"), np.zeros((3, 0), dt), "empty", f)
    # of a temporary: the hot path may write into the temporary itself (elision)
    a = _bits(np.random.default_rng(7), 50_001, dt)
    x = xp.asarray(a, device="cpu")
    r = getattr(xp, f)(x * 1.0)
    assert host(r).tobytes() == getattr(np, f)(a * np.asarray(1.0, dt)).tobytes()


@pytest.mark.parametrize("f, dt", _CASES)
def test_around_the_thresholds(nthreads, f, dt):
    isz = np.dtype(dt).itemsize
    sizes = set()
    for t in (pool.get_pool_threshold(), threads.get_thread_threshold()):
        sizes.update((t // isz - 3, t // isz, t // isz + 5))
    for n in sorted(sizes):
        a = _bits(np.random.default_rng(n), n, dt)
        x = xp.asarray(a, device="cpu")
        _check(x, a, f"n={n} threads={nthreads}", f)
        _check(x[::2], a[::2], f"n={n} strided threads={nthreads}", f)


def test_other_dtypes_unchanged():
    for f in ("exp", "log"):
        for dt in (np.float16, np.complex64, np.complex128) + ((np.float64,) if f == "log" else ()):
            a = np.linspace(0.01, 20, 1001).astype(dt)
            g = host(getattr(xp, f)(xp.asarray(a, device="cpu")))
            assert g.dtype == a.dtype and g.tobytes() == getattr(np, f)(a).tobytes(), (f, np.dtype(dt).name)


def test_the_table_is_two_to_the_k_over_128():
    t = np.frombuffer(_npcompat.exp_table(), np.uint64).reshape(128, 2)
    for k in range(128):
        h = (int(t[k, 1]) + (k << 45)) & (2**64 - 1)
        hv = float(np.uint64(h).view(np.float64))
        tv = float(t[k, 0].view(np.float64))
        assert abs(hv - 2.0 ** (k / 128)) <= math.ulp(hv), k  # H[k]: 2^(k/128) rounded
        assert abs(tv) <= math.ulp(hv) / 2, k  # T[k]: the rounding error, relative
        assert math.isclose(hv * (1 + tv), 2.0 ** (k / 128), rel_tol=2**-52)


@pytest.mark.skipif(dispatch.CHOT is None or not hasattr(dispatch.CHOT, "prefer_loop"),
                    reason="the compiled hot path is not built (or STRIDED_NO_CEXT=1)")
def test_the_vector_loops_are_used_where_they_qualify_and_only_there():
    """On this kind of machine the capsules' loops are replaced, so the tests above ran them;
    on another (no AVX2/FMA, another C library) they must be refused, and the tests above
    ran NumPy's loops. Never for another ufunc or dtype."""
    chot = dispatch.CHOT

    def capsule(k, dt):
        dts, info = k._resolve_dtypes_and_context((np.dtype(dt), None))
        k._get_strided_loop(info, fixed_strides=(np.dtype(dt).itemsize,) * 2)
        return info, dts

    for f, dt in _CASES:
        k = getattr(np, f)
        info, dts = capsule(k, dt)
        assert chot.prefer_loop(k, info, dts) is _expected(f, dt), (f, np.dtype(dt).name)
    for k, dt in ((np.log, np.float64), (np.exp2, np.float64), (np.sqrt, np.float32), (np.exp, np.float16),
                  (np.log2, np.float32)):
        i, d = capsule(k, dt)
        assert chot.prefer_loop(k, i, d) is False, (k.__name__, dt)
    with pytest.raises(TypeError, match="call-info capsule"):
        chot.prefer_loop(np.exp, object(), dts)


_BOTH_WIDTHS = r"""
import sys, numpy as np, strided as xp
from strided._core import dispatch
rng = np.random.default_rng(int(sys.argv[1]))
b = rng.integers(0, 2**32, 400_000, dtype=np.uint32)
b[:300_000] = (b[:300_000] & np.uint32(0x807FFFFF)) | (rng.integers(0x61, 0x88, 300_000, dtype=np.uint32) << np.uint32(23))
a = np.concatenate([np.array(sys.argv[2].split(","), np.uint32), b]).view(np.float32)
a = np.concatenate([a, np.arange(-110, 90, 2**-10, dtype=np.float32)])
bad = 0
with np.errstate(all="ignore"):
    for n in (0, 1, 15, 16, 17, 63, 64, 65, 127, 1000, a.size):
        for sl in (slice(None), slice(None, None, 3), slice(None, None, -1)):
            v = a[:n][sl]
            x = xp.asarray(v, device="cpu")
            d = np.exp(-v) + np.float32(1)
            for name, ref in (("exp", np.exp(v)), ("sigmoid", np.reciprocal(d)), ("silu", v / d)):
                bad += np.asarray(getattr(xp, name)(x)).tobytes() != np.ascontiguousarray(ref).tobytes()
print(dispatch.CHOT.vector_width(), bad)
"""


@pytest.mark.skipif(dispatch.CHOT is None or not hasattr(dispatch.CHOT, "vector_width"),
                    reason="the compiled hot path is not built (or STRIDED_NO_CEXT=1)")
def test_float32_loops_give_numpys_bits_at_either_width():
    """The float32 exp, sigmoid and silu loops at both widths (AVX-512F where the processor has
    it; AVX2 under STRIDED_NO_AVX512=1), each in a fresh process (the width is decided once):
    NumPy's exp and NumPy's steps bit for bit, every remainder of the four-vector step, strided
    and reversed operands."""
    import os

    from _widths import at_both_widths
    edges = ",".join(str(int(u)) for u in _EDGES32.view(np.uint32))
    for no512, width, bad in at_both_widths(_BOTH_WIDTHS, "20261130", edges):
        if no512 == "1":
            assert width in (0, 256), width
        elif os.environ.get("STRIDED_NO_AVX512") != "1":
            assert width == _width()  # (this process's width, decided alike)
        else:
            assert width in (0, 256, 512), width
        assert bad == 0, f"STRIDED_NO_AVX512={no512}: {bad} results differ from NumPy's"


# --- sigmoid and silu: one pass on the vector exp ------------------------------------------
# activations._logistic's steps are NumPy's negative, exp, add 1 and reciprocal (divide for
# silu) in the array's dtype; _chot's own loops run the same operations per element. The
# reference is those NumPy steps, written out here.

def _logistic_ref(a, silu):
    d = np.exp(-a) + np.asarray(1.0, a.dtype)
    return a / d if silu else np.reciprocal(d)


def _check_logistic(x, a, what):
    for silu in (False, True):
        before, v = host(x).tobytes(), x._version
        g = host((xp.silu if silu else xp.sigmoid)(x))
        w = _logistic_ref(a, silu)
        assert g.dtype == a.dtype and g.shape == w.shape, what
        assert g.tobytes() == np.ascontiguousarray(w).tobytes(), f"{what} silu={silu}: not the NumPy steps' bits"
        assert host(x).tobytes() == before and x._version == v, f"{what}: the input changed"


@settings(max_examples=80, deadline=None)
@given(n=hs.integers(0, 3000), seed=hs.integers(0, 2**32 - 1), dt=hs.sampled_from([np.float32, np.float64]))
def test_sigmoid_and_silu_every_small_size_and_layout(n, seed, dt):
    a = _bits(np.random.default_rng(seed), n, dt)
    e = _edges(dt)
    a[: min(n, e.size)] = e[: min(n, e.size)]
    x = xp.asarray(a, device="cpu")
    _check_logistic(x, a, f"n={n}")
    _check_logistic(x[::-1], a[::-1], f"n={n} reversed")
    _check_logistic(x[1::3], a[1::3], f"n={n} step 3")


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_sigmoid_and_silu_large_and_threaded(nthreads, dt):
    isz = np.dtype(dt).itemsize
    for n in sorted({pool.get_pool_threshold() // isz + 1, threads.get_thread_threshold() // isz + 5, 300_001}):
        a = _bits(np.random.default_rng(n), n, dt)
        _check_logistic(xp.asarray(a, device="cpu"), a, f"n={n} threads={nthreads}")
    h = np.linspace(-20, 20, 1001).astype(np.float16)  # float16: computed in float32, rounded once
    g = host(xp.sigmoid(xp.asarray(h, device="cpu")))
    assert g.dtype == np.float16 and g.tobytes() == _logistic_ref(h.astype(np.float32), False).astype(np.float16).tobytes()


@pytest.mark.skipif(dispatch.CHOT is None or not hasattr(dispatch.CHOT, "own_loop_info"),
                    reason="the compiled hot path is not built (or STRIDED_NO_CEXT=1)")
def test_sigmoid_and_silu_loops_exist_where_the_exp_qualifies():
    chot = dispatch.CHOT
    for name in ("sigmoid", "silu"):
        for isz in (4, 8):
            dt = np.float32 if isz == 4 else np.float64
            assert (chot.own_loop_info(name, isz) is not None) is _exp_verified(dt), (name, isz)
        assert chot.own_loop_info(name, 2) is None
    assert chot.own_loop_info("relu", 4) is not None and chot.own_loop_info("nothing", 4) is None
