"""The optional C kernels (strided/_csrc/_ckernels.c through strided/_core/cfast.py).

Every test here also runs, unchanged, against the NumPy fallback: CI runs the
whole suite a second time with STRIDED_NO_CEXT=1. References: math.fsum over
the float64 values (exact), and NumPy's own pairwise sum as the error bound.
"""

from __future__ import annotations

import math
import shutil
import sysconfig

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided as st
from strided._core import cfast as _cfast

from conftest import host


def test_extension_is_built_where_a_compiler_is():
    from strided._core import cext
    if cext.DISABLED or "_ckernels" in cext._OFF:  # (=_cpool turns off only the pool's)
        assert not _cfast.AVAILABLE and _cfast.add_reduce == np.add.reduce
        return
    if shutil.which(sysconfig.get_config_var("CC").split()[0] if sysconfig.get_config_var("CC") else "cc") is None:
        pytest.skip("no C compiler: the NumPy fallback serves")
    assert _cfast.AVAILABLE, "pip install -e . should have built strided._csrc._ckernels"


@pytest.mark.skipif(not _cfast.AVAILABLE, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")
def test_sum_rows_rejects_what_it_cannot_sum():
    k = _cfast._ckernels
    with pytest.raises(ValueError, match="format i"):
        k.sum_rows(np.arange(6, dtype=np.int32), np.empty(2, np.int32), 3)
    with pytest.raises(ValueError, match="format f.*format d"):
        k.sum_rows(np.ones(6, np.float32), np.empty(2, np.float64), 3)
    with pytest.raises(ValueError, match="columns"):
        k.sum_rows(np.ones(6, np.float32), np.empty(4, np.float32), 4)
    with pytest.raises(ValueError, match="C-contiguous"):
        k.sum_rows(np.ones((4, 6), np.float32)[:, ::2], np.empty(4, np.float32), 3)
    ro = np.zeros(2, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        k.sum_rows(np.ones(6, np.float32), ro, 3)
    assert not ro.any()


_FLOATS = hs.sampled_from([np.float32, np.float64])


@hs.composite
def _arrays_and_axes(draw):
    dtype = draw(_FLOATS)
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=40))
    x = draw(hnp.arrays(dtype, shape, elements=hs.floats(-1e3, 1e3, width=np.dtype(dtype).itemsize * 8)))
    nd = len(shape)
    axis = draw(hs.one_of(hs.none(), hs.integers(-nd, nd - 1),
                          hs.lists(hs.integers(0, nd - 1), min_size=1, max_size=nd, unique=True).map(tuple)))
    return x, axis, draw(hs.booleans())


@given(_arrays_and_axes())
@settings(max_examples=300, deadline=None)
def test_sum_and_mean_match_numpy_over_any_axes(case):
    """Trailing axes of a C-contiguous array take the C kernel, other axes NumPy's."""
    x, axis, keepdims = case
    want = np.sum(x.astype(np.float64), axis=axis, keepdims=keepdims)
    got = host(st.sum(st.asarray(x), axis=axis, keepdims=keepdims))
    assert got.dtype == x.dtype and got.shape == want.shape
    # The error bound of a sum in sequence (NumPy's order over a leading axis), which
    # pairwise sums are well inside: n * eps * sum(|x|) over the reduced elements.
    n = max(1, x.size // max(1, want.size))
    abs_sum = np.sum(np.abs(x.astype(np.float64)), axis=axis, keepdims=keepdims)
    tol = n * float(np.finfo(x.dtype).eps) * abs_sum + 1e-30
    assert (np.abs(got - want) <= tol).all(), (got, want)
    if x.size:
        m = host(st.mean(st.asarray(x), axis=axis, keepdims=keepdims))
        with np.errstate(all="ignore"):
            wm = np.mean(x.astype(np.float64), axis=axis, keepdims=keepdims)
            assert (np.abs(m - wm) <= 2 * tol / n).all(), (m, wm)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 31, 32, 33, 255, 256, 257, 1000, 4097, 65_537, 1_000_003])
def test_full_sum_no_worse_than_numpy(dtype, n):
    # Every leaf size and remainder of the kernel, on data whose exact sum is known.
    rng = np.random.default_rng(n)
    for x in (rng.standard_normal(n).astype(dtype), rng.uniform(0, 1, n).astype(dtype),
              np.where(np.arange(n) % 4 < 2, 1.0, -1.0).astype(dtype) + rng.uniform(0, 1e-3, n).astype(dtype)):
        exact = math.fsum(x.astype(np.float64).tolist())
        ours = float(host(st.sum(st.asarray(x))))
        # NumPy's error plus the rounding of the result itself (another grouping may
        # round the other way) plus a relative bound for the cancelling cases
        slack = float(np.spacing(np.abs(dtype(exact)))) + float(np.finfo(dtype).eps) * math.fsum(abs(x.astype(np.float64)))
        assert abs(ours - exact) <= abs(float(np.sum(x)) - exact) + slack


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_sums_special_values(dtype):
    x = np.ones((6, 5000), dtype)
    x[0, 17] = np.inf
    x[1, 4000] = np.nan
    x[2, 3], x[2, 4999] = np.inf, -np.inf
    x[3, :] = -0.0
    x[4, 100] = np.finfo(dtype).max
    x[4, 101] = np.finfo(dtype).max
    got = host(st.sum(st.asarray(x), axis=1))
    with np.errstate(all="ignore"):
        want = np.sum(x, axis=1)
    np.testing.assert_array_equal(got[:5], want[:5])  # inf, nan, inf-inf=nan, +0.0, overflow=inf
    assert not np.signbit(got[3])  # the sum of -0.0s is +0.0, as in NumPy
    np.testing.assert_allclose(got[5], 5000.0)


def test_threaded_sums_stay_within_the_pairwise_bound():
    old_n, old_t = st.get_num_threads(), st.get_thread_threshold()
    try:
        st.set_num_threads(3)
        st.set_thread_threshold(1)
        x = np.random.default_rng(3).standard_normal((3000, 700)).astype(np.float32)
        exact = math.fsum(x.astype(np.float64).ravel().tolist())
        ours = float(host(st.sum(st.asarray(x))))
        assert abs(ours - exact) <= abs(float(np.sum(x)) - exact) + 3 * float(np.spacing(np.float32(abs(exact))))
        np.testing.assert_allclose(host(st.sum(st.asarray(x), axis=1)), np.sum(x.astype(np.float64), axis=1),
                                   rtol=1e-5, atol=1e-3)
    finally:
        st.set_num_threads(old_n)
        st.set_thread_threshold(old_t)


@pytest.mark.parametrize("order", ["<", ">", "="])
def test_explicit_and_foreign_byte_orders(order):
    # '<f8' (as zarr and pickles hand back) is native on a little-endian machine and takes
    # the kernel; a foreign order goes to NumPy. Both sum correctly.
    x = np.arange(5000, dtype=np.float64).astype(order + "f8")
    assert float(host(st.sum(st.asarray(x)))) == 4999 * 5000 / 2
    m = x.reshape(50, 100)
    np.testing.assert_array_equal(host(st.sum(st.asarray(m), axis=1)), np.sum(m.astype(np.float64), axis=1))


@given(hs.data())
@settings(max_examples=300, deadline=None)
def test_small_sums_and_means_are_numpys_bits(data):
    """Rows of at most 128 elements are summed by NumPy's own leaf, operation for operation:
    small sums (the hot path) and small means equal NumPy's exactly, signed zeros included.

    A claim about the CPU's kernels (C, or the NumPy fallback), so the arrays are the CPU's
    whatever the suite's device: a GPU sums in its own order, and the standard fixes no
    order (test_statistics and test_reduction_accuracy hold device sums to their bounds)."""
    dtype = data.draw(_FLOATS)
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=12)
                      .filter(lambda s: int(np.prod(s)) <= 128))
    x = data.draw(hnp.arrays(dtype, shape, elements=hs.floats(width=np.dtype(dtype).itemsize * 8,
                                                               allow_nan=False, allow_infinity=False)))
    keepdims = data.draw(hs.booleans())
    for axis in (None, -1, len(shape) - 1):
        with np.errstate(all="ignore"):
            want = np.sum(x, axis=axis, keepdims=keepdims)
        got = host(st.sum(st.asarray(x, device="cpu"), axis=axis, keepdims=keepdims))
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert (np.signbit(got) == np.signbit(want)).all()
    if x.size:
        with np.errstate(all="ignore"):
            want = np.mean(x)
        got = host(st.mean(st.asarray(x, device="cpu")))
        np.testing.assert_array_equal(got, want)
