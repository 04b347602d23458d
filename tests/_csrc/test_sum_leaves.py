"""Whole and row sums are NumPy's bits (strided/_csrc/_ckernels.c, ``row_f32/f64``: NumPy's
pairwise tree, leaves of at most 128 elements with eight accumulators each, added in
NumPy's order): whole sums of every size to 5000 (Hypothesis) and odd sizes far beyond,
row sums of any width, threads, the compiled kernels (sum_into, sum_rows, sum_all, reduce)
and the namespace's ``sum``/``mean``; signed zeros, infinities and NaN (a NaN sum: the
callers decline, NumPy's answer). On AVX2 machines the leaves run two or four side by side
(issue 38): any change to the summation order must pass it. The squared deviations' sums
(var/std's ``sq_dev`` kernel) are compared with NumPy's own ``add.reduce((a - m) * (a - m))``.
Runs with and without the C kernels (without them the namespace's answers are NumPy's own)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core import cfast as _cfast

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

C = _cfast._ckernels if _cfast.AVAILABLE else None
needs_c = pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")
DTYPES = [np.float32, np.float64]


@pytest.fixture(autouse=True)
def _quiet_references():
    with np.errstate(all="ignore"):  # NumPy's references (inf - inf) warn; strided's don't
        yield


def _data(n, dt, seed, special=False, scale=1e3):
    rng = np.random.default_rng(seed)
    # magnitudes spread over many binades: a changed order of additions shows in the bits
    a = (rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n)) * scale).astype(dt)
    if special and n:
        k = min(n, 4)
        a[rng.integers(0, n, k)] = np.resize(np.array([-0.0, np.inf, -np.inf, 0.0], dt), k)
    return a


def _bits(v, dt):
    return np.asarray(v, dt).tobytes()


@needs_c
@settings(max_examples=200, deadline=None)
@given(n=hs.integers(1, 5000), dt=hs.sampled_from(DTYPES), seed=hs.integers(0, 2**32 - 1),
       special=hs.booleans())
def test_whole_sums_are_numpys_bits(n, dt, seed, special):
    a = _data(n, dt, seed, special)
    want = np.add.reduce(a)
    out = np.empty((), dt)
    done = C.sum_into(a, out, n)
    if np.isnan(want):
        return  # (a NaN: sum_into may decline; its payload is NumPy's loop order's)
    assert done, f"sum_into declined n={n}"
    assert out.tobytes() == _bits(want, dt), f"n={n} {np.dtype(dt).name}: {out} != NumPy's {want}"
    if n > 128:
        for nt in (1, 2, 3):
            assert _bits(C.sum_all(a, nt), dt) == _bits(want, dt), f"sum_all n={n} nt={nt}"


@needs_c
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_odd_sizes_beyond_the_block(dt):
    sizes = [129, 135, 255, 257, 511, 1023, 1025, 2047, 2048, 2049, 2055, 4095, 4097, 6001,
             12_289, 65_537, 100_003, 262_147, 1_000_001]
    for n in sizes:
        a = _data(n, dt, n)
        want = np.add.reduce(a)
        out = np.empty((), dt)
        assert C.sum_into(a, out, n)
        assert out.tobytes() == _bits(want, dt), f"n={n}: {out} != NumPy's {want}"
        for nt in (1, 2, 4):
            assert _bits(C.sum_all(a, nt), dt) == _bits(want, dt), f"sum_all n={n} nt={nt}"
        # an unaligned start (the leaves' vector loads are unaligned loads)
        b = np.empty(n + 1, dt)[1:]
        b[...] = a
        assert _bits(C.sum_all(b, 1), dt) == _bits(np.add.reduce(b), dt)


@needs_c
@settings(max_examples=80, deadline=None)
@given(rows=hs.integers(1, 6), ncols=hs.integers(1, 3000), dt=hs.sampled_from(DTYPES),
       seed=hs.integers(0, 2**32 - 1))
def test_row_sums_are_numpys_bits(rows, ncols, dt, seed):
    a = _data(rows * ncols, dt, seed, special=True).reshape(rows, ncols)
    want = np.add.reduce(a, axis=-1)
    out = np.empty(rows, dt)
    C.sum_rows(a, out, ncols)
    ok = ~np.isnan(want)
    assert out[ok].tobytes() == want[ok].tobytes()
    # reduce(): the last axis of a (rows, ncols) array (inner == 1)
    r = np.empty(rows, dt)
    if C.reduce(0, a, r, rows, ncols, 1, 1):
        assert r[ok].tobytes() == want[ok].tobytes()


@needs_c
@settings(max_examples=80, deadline=None)
@given(rows=hs.integers(1, 4), ncols=hs.integers(1, 5000), dt=hs.sampled_from(DTYPES),
       seed=hs.integers(0, 2**32 - 1))
def test_squared_deviation_sums_are_numpys_bits(rows, ncols, dt, seed):
    a = _data(rows * ncols, dt, seed).reshape(rows, ncols)
    m = np.add.reduce(a, axis=-1, keepdims=True) / dt(ncols)  # any mean per row, in a's dtype
    d = a - m
    want = np.add.reduce(d * d, axis=-1)
    r = np.empty(rows, dt)
    assert C.reduce(C.REDUCE_OPS["sq_dev"], a, r, rows, ncols, 1, 1, np.ascontiguousarray(m.reshape(rows)))
    ok = np.isfinite(want)
    assert r[ok].tobytes() == want[ok].tobytes(), f"{rows}x{ncols} {np.dtype(dt).name}"


@needs_c
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_signed_zeros_and_infinities(dt):
    for n in (129, 300, 2049, 5000):
        z = np.full(n, -0.0, dt)
        out = np.empty((), dt)
        assert C.sum_into(z, out, n) and out.tobytes() == _bits(np.add.reduce(z), dt)  # +0.0
        assert _bits(C.sum_all(z, 2), dt) == _bits(np.add.reduce(z), dt)
        inf = _data(n, dt, n)
        inf[n // 3] = np.inf
        assert C.sum_into(inf, out, n) and out.tobytes() == _bits(np.add.reduce(inf), dt)
        both = inf.copy()
        both[-1] = -np.inf  # inf - inf: NaN, declined
        r = C.sum_all(both, 1)
        assert r is None


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 7, 8, 127, 128, 129, 1000, 2049, 10_007, 100_000, 1_000_003])
def test_namespace_sum_and_mean_are_numpys(dt, n):
    a = _data(n, dt, n, special=True)
    x = xp.asarray(a, device="cpu")
    before = a.tobytes()
    v = x._version
    assert host(xp.sum(x)).tobytes() == _bits(np.add.reduce(a), dt)
    assert host(xp.mean(x)).tobytes() == _bits(np.mean(a), dt)
    m = a[: n - n % 4].reshape(4, -1) if n >= 4 else a.reshape(1, -1)
    assert host(xp.sum(xp.asarray(m, device="cpu"), axis=1)).tobytes() == np.add.reduce(m, axis=1).tobytes()
    assert host(x).tobytes() == before and x._version == v  # the input untouched
