"""NumPy's keywords that Dask, Cubed and xarray pass to their backend: ``mean(dtype=)``,
``ddof=`` on std/var, ``shape=`` on the ``*_like`` functions, ``axis=`` on
cumsum/cumprod, and ``ravel`` — each against NumPy (and PyTorch where it has them).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided.autograd import gradcheck
from conftest import host

A = np.random.default_rng(0).standard_normal((3, 4))


# --- mean(dtype=) ----------------------------------------------------------------------------

@pytest.mark.parametrize("a, dtype", [
    (A.astype(np.float32), np.float64), (A, np.float32), (A, np.complex128),
    (np.array([[1, 2, 4], [7, 1, 1]], dtype=np.int8), np.float64),
    (np.array([[1, 2, 4], [7, 1, 1]], dtype=np.int64), np.float32),
    (np.array([True, False, True]), np.float32),
    (np.array([1 + 2j, 3 - 1j], dtype=np.complex64), np.complex128),
    (A.astype(np.float16), np.float16),
])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (-1, True)])
def test_mean_dtype_matches_numpy(a, dtype, axis, keepdims):
    if a.ndim == 1 and axis == 0:
        axis = None
    r = xp.mean(xp.asarray(a), dtype=dtype, axis=axis, keepdims=keepdims)
    e = np.mean(a, dtype=dtype, axis=axis, keepdims=keepdims)
    assert r.dtype == e.dtype and r.shape == e.shape
    rtol = {np.float16: 1e-3, np.float32: 1e-6}.get(dtype, 1e-12)
    np.testing.assert_allclose(host(r), e, rtol=rtol)


def test_mean_dtype_accumulates_in_that_dtype():
    # 2**25 + 3 ones: each float32 partial sum past 2**24 + 1 loses the odd one; float64 is exact.
    a = np.array([2.0 ** 25] + [1.0] * 3, dtype=np.float32)
    r = xp.mean(xp.asarray(a), dtype=xp.float64)
    assert r.dtype == xp.float64 and r.item() == (2.0 ** 25 + 3) / 4
    assert xp.mean(xp.asarray(a)).item() != (2.0 ** 25 + 3) / 4


@pytest.mark.parametrize("a, dtype, match", [
    (A, np.int64, "floating-point or complex"),
    (np.array([1, 2]), xp.int32, "floating-point or complex"),
    (A, xp.bool, "floating-point or complex"),
    (np.array([1 + 1j]), np.float64, "complex"),
])
def test_mean_dtype_errors(a, dtype, match):
    with pytest.raises(TypeError, match=match):
        xp.mean(xp.asarray(a), dtype=dtype)


def test_mean_dtype_errors_as_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.mean(torch.tensor([1.5, 2.5]), dtype=torch.int64)
    with pytest.raises(TypeError):
        xp.asarray([1.5, 2.5]).mean(dtype=xp.int64)
    r = xp.asarray([1, 2]).mean(dtype=xp.float64)
    assert r.dtype == xp.float64 and r.item() == torch.tensor([1, 2]).mean(dtype=torch.float64).item()


def test_mean_dtype_autograd():
    x = xp.asarray(A.astype(np.float32)).requires_grad_()
    xp.mean(x, dtype=xp.float64, axis=1).sum().backward()
    assert x.grad.dtype == xp.float32
    np.testing.assert_allclose(host(x.grad), np.full(A.shape, 1 / 4), rtol=1e-7)
    assert gradcheck(lambda t: xp.mean(t, dtype=xp.complex128, axis=0), (xp.asarray(A).requires_grad_(),))


# --- ddof= -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("ddof", [0, 1, 2, 1.5])
@pytest.mark.parametrize("axis", [None, 0, (0, 1)])
def test_ddof_matches_numpy(name, ddof, axis):
    f = getattr(xp, name)
    e = getattr(np, name)(A, ddof=ddof, axis=axis)
    np.testing.assert_allclose(host(f(xp.asarray(A), ddof=ddof, axis=axis)), e, rtol=1e-12)
    np.testing.assert_allclose(host(getattr(xp.asarray(A), name)(ddof=ddof, axis=axis)), e, rtol=1e-12)
    np.testing.assert_allclose(host(getattr(np, name)(xp.asarray(A), ddof=ddof, axis=axis)), e, rtol=1e-12)


@pytest.mark.parametrize("name", ["std", "var"])
def test_ddof_and_correction_together_raise(name):
    x = xp.asarray(A)
    with pytest.raises(TypeError, match="not both"):
        getattr(xp, name)(x, ddof=1, correction=1)
    with pytest.raises(TypeError, match="not both"):
        getattr(xp, name)(x, ddof=1, correction=0)  # an explicit 0 counts as given
    for kw in ({"ddof": 1, "correction": 1}, {"ddof": 0, "unbiased": True}):
        with pytest.raises(TypeError, match="not both"):
            getattr(x, name)(**kw)
    with pytest.raises(TypeError, match="not both"):
        getattr(xp, f"{name}_mean")(x, ddof=1, correction=1)


@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
def test_std_var_mean_take_ddof(name):
    torch = pytest.importorskip("torch")
    s, m = getattr(xp, name)(xp.asarray(A), 1, ddof=0)
    ts, tm = getattr(torch, name)(torch.tensor(A), 1, correction=0)
    np.testing.assert_allclose(host(s), ts.numpy(), rtol=1e-12)
    np.testing.assert_allclose(host(m), tm.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["std", "var"])
def test_ddof_gradient_uses_ddof(name):
    # the rule must see ddof as the correction: finite differences tell
    x = xp.asarray(A).requires_grad_()
    assert gradcheck(lambda t: getattr(xp, name)(t, ddof=2, axis=1), (x,))
    assert gradcheck(lambda t: getattr(t, name)(ddof=0), (x,))


# --- shape= on the *_like functions ----------------------------------------------------------

@pytest.mark.parametrize("shape", [(), 3, (2, 5), (0, 4)])
@pytest.mark.parametrize("dtype", [None, np.int16, xp.float64])
def test_like_shape_matches_numpy(shape, dtype):
    proto = np.zeros((2, 3), dtype=np.float32)
    x = xp.asarray(proto)
    for name in ("zeros_like", "ones_like", "empty_like"):
        e = getattr(np, name)(proto, dtype=dtype, shape=shape)
        for r in (getattr(xp, name)(x, dtype=dtype, shape=shape), getattr(np, name)(x, dtype=dtype, shape=shape)):
            assert isinstance(r, xp.Array)
            assert r.shape == e.shape and r.dtype == e.dtype and r.device == x.device
            if name != "empty_like":
                np.testing.assert_array_equal(host(r), e)
    e = np.full_like(proto, 7, dtype=dtype, shape=shape)
    for r in (xp.full_like(x, 7, dtype=dtype, shape=shape), np.full_like(x, 7, dtype=dtype, shape=shape),
              xp.full_like(x, fill_value=7, dtype=dtype, shape=shape)):  # cubed passes fill_value=
        assert r.shape == e.shape and r.dtype == e.dtype
        np.testing.assert_array_equal(host(r), e)


def test_like_shape_names_and_errors():
    x = xp.zeros((2, 3), names=("a", "b"))
    assert xp.ones_like(x).names == ("a", "b")
    assert xp.ones_like(x, shape=(4,)).names == (None,)  # another shape: x's names don't apply
    assert xp.ones_like(x, shape=(2, 3), names=("c", "d")).names == ("c", "d")
    with pytest.raises(ValueError, match="negative dimension"):
        xp.zeros_like(x, shape=(2, -1))
    with pytest.raises(TypeError, match="shape"):
        xp.full_like(x, 1.0, shape="big")


# --- cumsum / cumprod with axis= ----------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_cumsum_cumprod_axis_match_numpy(shape, data):
    a = np.random.default_rng(1).integers(-3, 4, size=shape)
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    for name in ("cumsum", "cumprod"):
        e = getattr(np, name)(a, axis=axis)
        for r in (getattr(xp, name)(xp.asarray(a), axis=axis), getattr(np, name)(xp.asarray(a), axis=axis)):
            assert r.dtype == e.dtype
            np.testing.assert_array_equal(host(r), e)
        if axis is not None:  # PyTorch's dim, positional or by keyword
            np.testing.assert_array_equal(host(getattr(xp, name)(xp.asarray(a), axis)), e)
            np.testing.assert_array_equal(host(getattr(xp, name)(xp.asarray(a), dim=axis)), e)


def test_cumsum_dtype_out_and_errors():
    x = xp.asarray(np.array([[1, 2], [3, 4]], dtype=np.int8))
    r = xp.cumsum(x, axis=0, dtype=xp.float32)
    assert r.dtype == xp.float32
    np.testing.assert_array_equal(host(r), np.cumsum([[1, 2], [3, 4]], axis=0, dtype=np.float32))
    out = xp.empty((2, 2), dtype=xp.int64)
    assert xp.cumprod(x, axis=1, out=out) is out
    np.testing.assert_array_equal(host(out), [[1, 2], [3, 12]])
    with pytest.raises(TypeError, match="not both"):
        xp.cumsum(x, 0, axis=1)
    with pytest.raises(TypeError, match="strided array"):
        xp.cumsum([1, 2])


def test_cumsum_axis_autograd():
    x = xp.asarray(A).requires_grad_()
    assert gradcheck(lambda t: xp.cumsum(t, axis=1), (x,))
    assert gradcheck(lambda t: xp.cumprod(t), (x,))  # flattened, as NumPy


# --- ravel --------------------------------------------------------------------------------------

def test_ravel_view_when_contiguous_copy_otherwise():
    torch = pytest.importorskip("torch")
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a, copy=True)
    r = xp.ravel(x)
    assert r.storage() is x.storage()  # a view
    r[0] = 100.0
    assert host(x)[0, 0] == 100.0
    x[0, 0] = 0.0
    for view, tview in [(x.T, torch.tensor(a).T), (x[:, ::2], torch.tensor(a)[:, ::2]),
                        (x[0, ::2], torch.tensor(a)[0, ::2])]:
        r = view.ravel()
        assert r.is_contiguous() and r.storage() is not x.storage()  # a contiguous copy, as torch
        np.testing.assert_array_equal(host(r), tview.ravel().numpy())
    assert xp.ravel(xp.asarray(5.0)).shape == (1,)


def test_ravel_autograd():
    x = xp.asarray(A).requires_grad_()
    assert gradcheck(lambda t: xp.ravel(t.T) * 2.0, (x,))
