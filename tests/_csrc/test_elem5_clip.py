"""``clip`` with two Python-scalar bounds on a C-contiguous float32/float64 CPU array of
at least 16 KiB runs hardtanh's compiled pass (_ckernels.act, op 0), because NumPy's loop
for constant bounds (numpy/_core/src/umath/clip.cpp, ``_npy_clip_const_minmax_``) is the
same two compares. The reference is ``numpy.clip`` itself, bit for bit: NaN payloads
(signalling ones too), signed zeros at a tie with a bound (NumPy keeps x there),
infinities, bounds that round in float32 or overflow it, NaN bounds (NumPy fills the result
with the bound), lo > hi, every size class (below and above the pool and thread
thresholds), one to four threads, views, ``out=``. The operand is never changed. Without
the C extension the same calls take NumPy's ufunc: the values must be the same."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core import pool, threads

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


@pytest.fixture(autouse=True)
def _quiet_references():
    with np.errstate(all="ignore"):
        yield


_PAY = {np.dtype(np.float32): np.array([0x7FC01234, 0xFFC00001, 0x7F800001, 0xFF800ABC], np.uint32),
        np.dtype(np.float64): np.array([0x7FF8000000001234, 0xFFF0000000000001, 0x7FF0000000000ABC], np.uint64)}


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 2).astype(dt)
    special = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, 0.75, 1.5, -1.0, 1e-45, -5e-324], dt),
                              _PAY[np.dtype(dt)].view(dt)])
    k = min(n, special.size)
    a[rng.choice(n, k, replace=False) if n else []] = special[:k]
    return a


_NAN_BITS = float(np.array([0x7FF8000000004321], np.uint64).view(np.float64)[0])
_BOUNDS = [(0.75, 1.5), (-1.0, 1.0), (0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0), (2.0, 1.0),
           (-np.inf, 0.5), (0.5, np.inf), (-1e300, 1e300), (1e-46, 3.0), (-3.4e38, 3.5e38),
           (float("nan"), 1.0), (0.0, _NAN_BITS), (0, 1), (True, 2)]


def _same(r, e):
    r = np.asarray(r)
    assert r.dtype == e.dtype and r.shape == e.shape
    assert r.tobytes() == e.tobytes(), (r, e)


@settings(max_examples=200, deadline=None)
@given(n=hs.one_of(hs.integers(0, 300), hs.integers(1900, 4300), hs.integers(8000, 12000)), dt=hs.sampled_from([np.float32, np.float64]), seed=hs.integers(0, 2**32 - 1),
       b=hs.sampled_from(_BOUNDS))
def test_clip_is_numpys_bit_for_bit(n, dt, seed, b):
    a = _data(n, dt, seed)
    before = a.tobytes()
    x = xp.asarray(a, device="cpu")
    _same(xp.clip(x, *b), np.clip(a, *b))
    assert a.tobytes() == before  # the operand (shared with x) is unchanged


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 63, 65, 4097, 8193, 70_000, 300_000, 1_100_000])
@pytest.mark.parametrize("nt", [1, 2, 3, 4])
def test_clip_sizes_and_threads(dt, n, nt):
    a = _data(n, dt, n + nt)
    before = a.tobytes()
    old = xp.get_num_threads()
    xp.set_num_threads(nt)
    try:
        for b in [(0.75, 1.5), (-0.0, 0.0), (1.0, -1.0)]:
            r = xp.clip(xp.asarray(a, device="cpu"), *b)
            _same(r, np.clip(a, *b))
    finally:
        xp.set_num_threads(old)
    assert a.tobytes() == before


def test_large_results_come_from_the_pool():
    a = _data(pool.get_pool_threshold() // 4 + 100, np.float32, 7)
    r = xp.clip(xp.asarray(a, device="cpu"), 0.75, 1.5)
    # (the result's own native: np.asarray(r) may wrap it in a memoryview, as NumPy 2.3 does)
    assert isinstance(r._np.base, pool._Block)
    _same(r, np.clip(a, 0.75, 1.5))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_views_out_and_2d(dt):
    a = _data(6000, dt, 3).reshape(60, 100)
    x = xp.asarray(a, device="cpu")
    for v, e in [(x[:, ::2], a[:, ::2]), (x.T, a.T), (x[5:40], a[5:40]), (x[::-1], a[::-1])]:
        _same(xp.clip(v, 0.75, 1.5), np.clip(e, 0.75, 1.5))
    o = xp.empty((60, 100), dtype=x.dtype, device="cpu")
    r = xp.clip(x, -0.0, 0.0, out=o)
    assert r is o
    _same(o, np.clip(a, -0.0, 0.0))


def test_one_bound_and_array_bounds_keep_numpys_ufuncs():
    # (maximum/minimum and array bounds are not the constant-bound loop: NumPy's ufuncs)
    a = _data(5000, np.float64, 11)
    x = xp.asarray(a, device="cpu")
    _same(xp.clip(x, 0.0, None), np.clip(a, 0.0, None))
    _same(xp.clip(x, None, -0.0), np.clip(a, None, -0.0))
    lo = np.full(5000, -0.0)
    _same(xp.clip(x, xp.asarray(lo, device="cpu"), 1.0), np.clip(a, lo, 1.0))


def test_the_compiled_pass_is_the_one_taken():
    if threads._CK is None:
        pytest.skip("no C extension (STRIDED_NO_CEXT): NumPy's ufunc runs, the other tests check it")
    from strided._api import activations as A
    calls = []
    real = A._act

    def spy(*args):
        r = real(*args)
        calls.append((args[0], r is not None))
        return r
    A._act = spy
    try:
        a = _data(10_000, np.float32, 5)
        _same(xp.clip(xp.asarray(a, device="cpu"), 0.75, 1.5), np.clip(a, 0.75, 1.5))
        _same(xp.clip(xp.asarray(a, device="cpu"), float("nan"), 1.5), np.clip(a, float("nan"), 1.5))
        _same(xp.clip(xp.asarray(a[:100], device="cpu"), 0.75, 1.5), np.clip(a[:100], 0.75, 1.5))
    finally:
        A._act = real
    # the NaN bound and the small array went to NumPy's ufunc
    assert calls == [(0, True)]
