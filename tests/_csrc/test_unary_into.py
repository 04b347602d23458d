"""exp(x, out=y) and its kin write through the loop exp(x) runs (threads.unary_into:
strided's own vector loop where it has one, on the C pool when large): the values are
NumPy's ufunc's bit for bit, for any overlap of x and y, any thread count."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from strided._core import threads

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

FNS = ["exp", "log", "sqrt", "sin", "tanh", "expm1", "negative", "abs"]


def _data(n, dtype, seed):
    r = np.random.default_rng(seed)
    a = r.standard_normal(n).astype(dtype) * 4
    a[:: 7] = np.abs(a[:: 7])
    if n > 20:
        a[3], a[5], a[11] = np.inf, -np.inf, np.nan
    return a


@settings(max_examples=60, deadline=None)
@given(fn=st.sampled_from(FNS), dtype=st.sampled_from([np.float32, np.float64]),
       n=st.sampled_from([1, 7, 4095, 4096, 4097, 70_000, 300_001, 600_000]),
       nt=st.sampled_from([1, 2, 3]), seed=st.integers(0, 2**16))
def test_out_equals_numpys_ufunc(fn, dtype, n, nt, seed):
    a = _data(n, dtype, seed)
    with np.errstate(all="ignore"):
        want = getattr(np, fn)(a)
    old = threads.get_num_threads()
    threads.set_num_threads(nt)
    try:
        x = xp.asarray(a.copy(), device="cpu")
        y = xp.empty(n, dtype=x.dtype, device="cpu")
        with np.errstate(all="ignore"):
            r = getattr(xp, fn)(x, out=y)
            assert r is y
            np.testing.assert_array_equal(np.asarray(y).view(np.uint8), want.view(np.uint8))
            np.testing.assert_array_equal(np.asarray(x), a)  # (the input as it was)
            getattr(xp, fn)(x, out=x)  # in place: the same memory
            np.testing.assert_array_equal(np.asarray(x).view(np.uint8), want.view(np.uint8))
    finally:
        threads.set_num_threads(old)


@pytest.mark.parametrize("shift", [1, -1, 8])
@pytest.mark.parametrize("nt", [1, 2])
def test_a_partly_overlapping_out_is_numpys(shift, nt):
    n = 200_000
    a = _data(n, np.float32, 5)
    ref = a.copy()
    lo, hi = (shift, 0) if shift > 0 else (0, -shift)
    with np.errstate(all="ignore"):
        np.exp(ref[lo:n - hi], out=ref[hi:n - lo])
    old = threads.get_num_threads()
    threads.set_num_threads(nt)
    try:
        x = xp.asarray(a.copy(), device="cpu")
        with np.errstate(all="ignore"):
            xp.exp(x[lo:n - hi], out=x[hi:n - lo])
    finally:
        threads.set_num_threads(old)
    np.testing.assert_array_equal(np.asarray(x).view(np.uint8), ref.view(np.uint8))


def test_out_bumps_the_version_and_refuses_a_wrong_dtype():
    x = xp.asarray(_data(50_000, np.float32, 1), device="cpu")
    y = xp.empty(50_000, dtype=xp.float32, device="cpu")
    v = y.storage()._version
    xp.exp(x, out=y)
    assert y.storage()._version == v + 1
    with pytest.raises((TypeError, ValueError)):
        xp.exp(x, out=xp.empty(50_000, dtype=xp.int32, device="cpu"))
