"""max's and min's gradient over the last axis in one pass (``_cgrad.one_hit``, called by
``_rules._minmax_grad`` where every row holds its extremum once) against the definition
of the gradient computed with NumPy: ``where(x == r, g / count, 0)``, ties sharing evenly
(PyTorch's amax/amin), NaN rows (NaN along them, as PyTorch's amax), signed zeros, every layout the rule may meet; and the
kernel's refusals (it must decline, not answer, where a row has ties or a NaN)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.autograd import _rules as R

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _reference(xn, gn, axis, keepdims, upper):
    r = (np.max if upper else np.min)(xn, axis=axis, keepdims=True)
    mask = xn == r
    ge = gn if keepdims else np.expand_dims(gn, axis if axis is not None else tuple(range(xn.ndim)))
    cnt = mask.sum(axis=axis, keepdims=True)
    with np.errstate(all="ignore"):
        r = np.where(mask, ge / cnt.astype(xn.dtype), np.zeros((), xn.dtype))
        # a NaN row: nothing equals its maximum (count 0), and PyTorch's amax gradient,
        # grad / count * mask, is NaN along it
        return np.where(cnt == 0, np.array(np.nan, xn.dtype), r).astype(xn.dtype)


@settings(max_examples=200, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), dt=hs.sampled_from(["float32", "float64"]),
       shape=hs.sampled_from([(5,), (1,), (4, 3), (3, 1), (1, 6), (2, 3, 4), (6, 10)]),
       axis_form=hs.sampled_from(["last", "-1", "tuple", "none"]), keepdims=hs.booleans(),
       upper=hs.booleans(), values=hs.sampled_from(["distinct", "ties", "nan", "zeros", "few"]))
def test_gradient_is_the_definition(seed, dt, shape, axis_form, keepdims, upper, values):
    rng = np.random.default_rng(seed)
    xn = rng.standard_normal(shape).astype(dt)
    if values == "ties":
        xn = rng.integers(0, 3, shape).astype(dt)
    elif values == "nan" and xn.size > 1:
        xn.flat[rng.integers(0, xn.size)] = np.nan
    elif values == "zeros":
        xn = rng.choice(np.array([0.0, -0.0, -1.0], dt), shape)
    elif values == "few":
        xn = rng.integers(0, 2, shape).astype(dt) * 1e30
    nd = len(shape)
    axis = {"last": nd - 1, "-1": -1, "tuple": (nd - 1,), "none": None}[axis_form]
    if axis is None and nd != 1:
        axis = nd - 1
    rshape = np.max(xn, axis=axis, keepdims=keepdims).shape
    gn = rng.uniform(0.5, 2.0, rshape).astype(dt)
    x = st.asarray(xn, device="cpu", requires_grad=True)
    f = st.max if upper else st.min
    y = f(x, axis=axis, keepdims=keepdims)
    y.backward(st.asarray(gn, device="cpu"))
    want = _reference(xn, gn, axis, keepdims, upper)
    got = host(x.grad.detach())
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # (NaN where the definition gives NaN)
    if values == "distinct":  # one hit a row: the one-pass kernel's bits, the select's exactly
        assert got.tobytes() == want.tobytes()


def test_the_kernel_declines_ties_nan_and_misfits():
    k = R._cgrad
    if k is None or not hasattr(k, "one_hit"):
        pytest.skip("the compiled autograd kernels are not built (or STRIDED_NO_CEXT=1)")
    x = np.array([[1.0, 3.0, 2.0], [5.0, 4.0, 5.0]], np.float32)
    r = x.max(axis=1, keepdims=True)
    g = np.ones_like(r)
    out = np.empty_like(x)
    assert not k.one_hit(g, x, r, out)  # (row 1: a tie)
    x[1, 2] = 4.5
    r = x.max(axis=1, keepdims=True)
    assert k.one_hit(g, x, r, out) and out.tolist() == [[0, 1, 0], [1, 0, 0]]
    assert np.signbit(out[out == 0]).sum() == 0  # +0.0, as where(..., 0.0) gives
    xn = x.copy()
    xn[0, 0] = np.nan
    assert not k.one_hit(g, xn, np.max(xn, axis=1, keepdims=True), out)  # (a NaN row: no hit)
    assert not k.one_hit(g.astype(np.float64), x, r, out)  # (mixed formats)
    assert not k.one_hit(g, x, r, x)  # (out is an input)
    assert not k.one_hit(g, x, r, np.empty((3, 2), np.float32).T)  # (not C-contiguous)
    assert not k.one_hit(g, x, r, np.empty((2, 3), np.int32))
    with pytest.raises(TypeError):
        k.one_hit(g, x, r)


def test_matches_torch_amax():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    xn = rng.standard_normal((6, 10)).astype(np.float32)
    x = st.asarray(xn, device="cpu", requires_grad=True)
    t = torch.tensor(xn, requires_grad=True)
    st.sum(st.max(x, axis=1, keepdims=True) * st.asarray(np.arange(6, dtype=np.float32)[:, None], device="cpu")).backward()
    (torch.amax(t, 1, keepdim=True) * torch.arange(6, dtype=torch.float32)[:, None]).sum().backward()
    assert host(x.grad.detach()).tobytes() == t.grad.numpy().tobytes()
