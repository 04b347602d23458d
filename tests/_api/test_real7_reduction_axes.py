"""Reductions over one int axis (issue 38, real7: ``reduction_axes`` answers an in-range int
axis without ``normalize_axes``' frames, ``_reduced_size`` without a generator): every
reduction over every axis, negative ones included, on arrays past the short paths' size too,
against NumPy -- values (max/min/any/all exactly; the sums to float64 rounding; the bits are
pinned by test_realwork3_ops and test_reduce_short), dtypes, keepdims shapes -- and the
errors for an axis out of range, a bool, a repeated axis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp

_FUNCS = ["sum", "prod", "mean", "var", "std", "max", "min", "any", "all"]


def _host(a):
    return np.asarray(a.cpu())


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=st.one_of(
           hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=7),
           # past the short paths' 4,096 elements: the general path's reduction_axes
           st.sampled_from([(5000,), (70, 80), (2, 50, 45), (4100, 1), (1, 4100)])),
       dtype=st.sampled_from([np.float64, np.float32]), func=st.sampled_from(_FUNCS),
       keepdims=st.booleans(), transpose=st.booleans())
def test_one_int_axis_matches_numpy(data, shape, dtype, func, keepdims, transpose):
    # (a product of thousands of normals under- or overflows: small arrays only)
    assume(func != "prod" or int(np.prod(shape)) <= 400)
    n = np.random.default_rng(len(shape)).standard_normal(shape).astype(dtype)
    if transpose:
        n = np.moveaxis(n, 0, -1)  # SciPy's moved axis: a non-contiguous view
    s = xp.asarray(np.ascontiguousarray(np.moveaxis(n, -1, 0)) if transpose else n.copy())
    if transpose:
        s = xp.moveaxis(s, 0, -1)
    axis = data.draw(st.integers(-n.ndim, n.ndim - 1))
    r = getattr(xp, func)(s, axis=axis, keepdims=keepdims)
    ref = getattr(np, func)(n, axis=axis, keepdims=keepdims)
    ref = np.asarray(ref)
    got = _host(r)
    assert got.shape == ref.shape
    assert got.dtype == ref.dtype
    if func in ("var", "std", "mean", "sum", "prod"):
        # (float32 on a GPU accumulates in float64, a documented difference: compared with
        # NumPy's float64 answer there, to float32's precision over the reduced length)
        ref64 = np.asarray(getattr(np, func)(n.astype(np.float64), axis=axis, keepdims=keepdims))
        m = n.shape[axis]
        tol = 1e-13 if dtype is np.float64 else 1e-6 * m
        np.testing.assert_allclose(got, ref64, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("func", _FUNCS)
def test_bad_axes_raise_as_numpy_does(func):
    n = np.ones((2, 3))
    s = xp.asarray(n)
    for axis in (2, -3):
        with pytest.raises((IndexError, ValueError)):
            getattr(np, func)(n, axis=axis)
        with pytest.raises(IndexError, match="axis"):
            getattr(xp, func)(s, axis=axis)
    with pytest.raises(TypeError):
        getattr(xp, func)(s, axis=True)  # a bool is never an axis (NumPy's is a deprecation)
    with pytest.raises(ValueError, match="repeated"):
        getattr(xp, func)(s, axis=(1, -1))


@pytest.mark.parametrize("func", _FUNCS)
def test_zero_d_takes_axis_0_and_minus_1(func):
    # Note: PyTorch's rule for a 0-d array (torch.sum(torch.tensor(2.), dim=0) works)
    torch = pytest.importorskip("torch")
    s = xp.asarray(2.0)
    for axis in (0, -1):
        r = getattr(xp, func)(s, axis=axis)
        t = getattr(torch, func)(torch.tensor(2.0), dim=axis) if func not in ("var", "std") \
            else getattr(torch, func)(torch.tensor(2.0), dim=axis, correction=0)
        if func in ("max", "min"):
            t = t.values if hasattr(t, "values") else t
        assert r.shape == ()
        np.testing.assert_allclose(_host(r), t.numpy())
