"""``where`` without a branch per element: the compiled hot path (``_chot/fast.c``,
``where_direct``'s mask loops) and, for results past its size bound and for the activations'
NumPy kernels, ``_ckernels.select`` (``threads.select``). Both copy each element's bits from
one operand by a mask. The reference is ``numpy.where`` bit for bit: every dtype (NaN payloads,
signed zeros, complex halves), random and constant conditions, 0-d and scalar operands, other
layouts, sizes across the pool and thread thresholds with one and two threads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core import pool, threads

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]


def _values(rng, dt, shape):
    dt = np.dtype(dt)
    raw = rng.integers(0, 256, int(np.prod(shape)) * dt.itemsize, dtype=np.uint8)
    v = raw.view(dt).reshape(shape).copy()  # any bits: NaN payloads, signalling NaNs, -0.0
    if dt == np.bool_:
        v = raw[: v.size].reshape(shape) % 2 == 1
    return v


@settings(max_examples=80, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), dt=hs.sampled_from(_DTYPES), n=hs.integers(0, 2500),
       form=hs.sampled_from(["arrays", "scalar1", "scalar2", "zerod", "strided", "2d", "constant"]))
def test_where_is_numpy_where(seed, dt, n, form):
    rng = np.random.default_rng(seed)
    c = rng.random(n) < 0.5
    a, b = _values(rng, dt, (n,)), _values(rng, dt, (n,))
    if form == "constant":
        c[:] = True
    if form == "zerod":
        b = _values(rng, dt, ())
    if form == "strided":
        c2, a2, b2 = np.repeat(c, 2), np.repeat(a, 2), np.repeat(b, 2)
        x = xp.where(xp.asarray(c2, device="cpu")[::2], xp.asarray(a2, device="cpu")[::2], xp.asarray(b2, device="cpu")[::2])
        assert host(x).tobytes() == np.where(c, a, b).tobytes()
        return
    if form == "2d" and n % 2 == 0 and n:
        c, a, b = c.reshape(2, -1), a.reshape(2, -1), b.reshape(2, -1)
    if form in ("scalar1", "scalar2") and np.dtype(dt).kind == "f":
        s = float(rng.standard_normal())
        x = xp.asarray(a, device="cpu")
        got = xp.where(xp.asarray(c, device="cpu"), x, s) if form == "scalar1" else xp.where(xp.asarray(c, device="cpu"), s, x)
        sv = np.asarray(s, dtype=dt)
        want = np.where(c, a, sv) if form == "scalar1" else np.where(c, sv, a)
        assert host(got).dtype == want.dtype and host(got).tobytes() == want.tobytes()
        return
    got = xp.where(xp.asarray(c, device="cpu"), xp.asarray(a, device="cpu"), xp.asarray(b, device="cpu"))
    want = np.where(c, a, b)
    assert host(got).dtype == want.dtype and host(got).shape == want.shape
    assert host(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("dt", ["float32", "float64", "complex128", "int8"])
def test_large_results_and_threads(dt, nthreads):
    rng = np.random.default_rng(5)
    isz = np.dtype(dt).itemsize
    for n in sorted({pool.get_pool_threshold() // isz + 3, threads.get_thread_threshold() // isz + 65, 300_001}):
        c = rng.random(n) < 0.5
        a, b = _values(rng, dt, (n,)), _values(rng, dt, (n,))
        ca, aa, ba = (xp.asarray(v, device="cpu") for v in (c, a, b))
        assert host(xp.where(ca, aa, ba)).tobytes() == np.where(c, a, b).tobytes(), n
        if np.dtype(dt).kind == "f":
            assert host(xp.where(ca, aa, 0.5)).tobytes() == np.where(c, a, np.asarray(0.5, dt)).tobytes()


def test_select_declines_what_it_does_not_take():
    ck = threads._CK
    if ck is None:
        pytest.skip("the compiled kernels are not built (or STRIDED_NO_CEXT=1)")
    c = np.ones(4, bool)
    a = np.arange(4.0)
    out = np.empty(4)
    assert ck.select(c.astype(np.uint8), a, a, out, 1) is False  # not a bool condition
    assert ck.select(c, a, a.astype(np.float32), out, 1) is False  # itemsizes differ
    assert ck.select(c, a[::2], a[::2], np.empty(2), 1) is False  # not contiguous
    assert ck.select(c, a, a, np.empty(3), 1) is False  # sizes differ
    assert ck.select(c, a, a, a, 1) is False  # out overlaps an operand
    assert threads.select(c, a, np.arange(3.0)) is None  # shapes that broadcast: numpy.where
