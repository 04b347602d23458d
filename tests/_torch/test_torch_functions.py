"""PyTorch's functions that the standard lacks (strided.torch._composites):
values against NumPy formulas, gradients against central differences, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import strided as xp
from conftest import to_np

F64 = dict(dtype=np.float64)
finite = arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 5)),
                elements=st.floats(-30, 30, allow_nan=False, width=64))


def a(v, **kw):
    return xp.asarray(np.array(v, copy=True), **kw)


@settings(max_examples=30, deadline=None)
@given(finite)
def test_activations_and_logsumexp(x):
    X = a(x)
    np.testing.assert_allclose(to_np(xp.sigmoid(X)), 1 / (1 + np.exp(-x)), rtol=1e-12)
    np.testing.assert_allclose(to_np(xp.relu(X)), np.maximum(x, 0))
    m = x.max(1, keepdims=True)
    lse = np.log(np.exp(x - m).sum(1, keepdims=True)) + m
    np.testing.assert_allclose(to_np(xp.logsumexp(X, 1, keepdim=True)), lse, rtol=1e-12)
    np.testing.assert_allclose(to_np(xp.softmax(X, dim=1)), np.exp(x - lse), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(to_np(X.log_softmax(1)), x - lse, rtol=1e-10, atol=1e-12)


def test_activation_edges():
    x = a([-1000.0, 1000.0, math.nan, 0.0])
    np.testing.assert_array_equal(to_np(xp.sigmoid(x)), [0.0, 1.0, math.nan, 0.5])
    np.testing.assert_array_equal(to_np(xp.relu(x)), [0.0, 1000.0, math.nan, 0.0])
    assert xp.logsumexp(a([-math.inf, -math.inf]), 0).item() == -math.inf
    assert xp.sigmoid(xp.asarray([0, 1])).dtype == xp.float32  # integers promote, as in PyTorch
    y = xp.tensor([-1.0, 2.0])
    assert y.relu_() is y and y.tolist() == [0.0, 2.0]


@pytest.mark.parametrize("f", [
    lambda x: xp.sigmoid(x), lambda x: xp.softmax(x, dim=1), lambda x: xp.log_softmax(x, dim=0),
    lambda x: xp.logsumexp(x, (0, 1)), lambda x: xp.relu(x),
    lambda x: xp.gather(x, 1, xp.tensor([[2, 0], [1, 1]])),
    lambda x: xp.masked_fill(x, x > 0.5, 3.0), lambda x: xp.topk(x, 2, dim=1).values,
    lambda x: xp.lerp(x, x * x, 0.3), lambda x: xp.cdist(x, x[:1] + 1.0),
    lambda x: xp.kron(x, x[:, :2]), lambda x: x.median(dim=1).values,
    lambda x: xp.addmm(x[:, :2], x, x.T, beta=0.5, alpha=2.0),
], ids=["sigmoid", "softmax", "log_softmax", "logsumexp", "relu", "gather", "masked_fill", "topk",
        "lerp", "cdist", "kron", "median", "addmm"])
def test_gradients(f):
    x = xp.tensor([[0.3, -1.2, 2.1], [0.9, 0.45, -0.7]], dtype=xp.float64, requires_grad=True)
    assert xp.autograd.gradcheck(f, (x,))


def test_indexing_functions():
    x = np.arange(12.0).reshape(3, 4)
    X = a(x)
    idx = np.array([[0, 3], [2, 2]])
    np.testing.assert_array_equal(to_np(xp.gather(X, 1, a(idx))), np.take_along_axis(x[:2], idx, 1))
    np.testing.assert_array_equal(to_np(X.index_select(0, a([2, 0]))), x[[2, 0]])
    mask = np.array([True, False, True, False])
    np.testing.assert_array_equal(to_np(xp.masked_select(X, a(mask))), x[:, mask].ravel())
    filled = x.copy()
    filled[:, mask] = -1
    np.testing.assert_array_equal(to_np(X.masked_fill(a(mask), -1)), filled)
    np.testing.assert_array_equal(to_np(X), x)  # out of place
    Y = a(x)
    assert Y.masked_fill_(a(mask), -1) is Y
    np.testing.assert_array_equal(to_np(Y), filled)
    with pytest.raises(TypeError, match="mask must be bool"):
        Y.masked_fill_(a([1, 0, 1, 0]), 0)
    ref = np.zeros((3, 4))
    for i in range(2):
        for j in range(2):
            ref[i, idx[i, j]] = [[1.0, 2.0], [3.0, 4.0]][i][j]  # PyTorch's scatter_ definition
    Z = xp.zeros(3, 4, dtype=xp.float64)
    assert Z.scatter_(1, a(idx), a([[1.0, 2.0], [3.0, 4.0]])) is Z
    got = to_np(Z)
    if Z.device.type != "cpu":
        # idx[1] writes 3.0 and 4.0 to one place: "when indices are not unique, the behavior
        # is non-deterministic (one of the values from src will be picked arbitrarily)"
        # (torch.Tensor.scatter_); on the CPU NumPy's assignment keeps the last, in order.
        assert got[1, 2] in (3.0, 4.0)
        ref[1, 2] = got[1, 2]
    np.testing.assert_array_equal(got, ref)
    with pytest.raises(ValueError, match="gather"):
        xp.gather(X, 0, a([0, 1]))


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, st.integers(1, 9), elements=st.floats(-5, 5, allow_nan=False), unique=True),
       st.data())
def test_topk_and_median(x, data):
    k = data.draw(st.integers(0, x.size))
    X = a(x)
    v, i = xp.topk(X, k)
    np.testing.assert_array_equal(to_np(v), np.sort(x)[::-1][:k])
    np.testing.assert_array_equal(x[to_np(i)], to_np(v))
    v, i = X.topk(k, largest=False)
    np.testing.assert_array_equal(to_np(v), np.sort(x)[:k])
    assert X.median().item() == np.sort(x)[(x.size - 1) // 2]  # the lower median, as PyTorch
    with pytest.raises(ValueError, match="topk"):
        xp.topk(X, x.size + 1)


def test_median_nan_and_dim():
    assert math.isnan(a([1.0, math.nan, 2.0]).median().item())
    assert xp.median(a([1.0, 2.0, 3.0, 4.0])).item() == 2.5  # the namespace's is NumPy's (scikit-learn)
    r = a([[3.0, 1.0, 2.0, 9.0], [1.0, 1.0, 0.0, 5.0]]).median(dim=1, keepdim=True)
    np.testing.assert_array_equal(to_np(r.values), [[2.0], [1.0]])


def test_closeness_and_statistics():
    x = a([1.0, 2.0, math.inf, math.nan])
    y = a([1.0 + 1e-9, 2.1, math.inf, math.nan])
    np.testing.assert_array_equal(to_np(xp.isclose(x, y)), np.isclose(to_np(x), to_np(y)))
    np.testing.assert_array_equal(to_np(xp.isclose(x, y, equal_nan=True)),
                                  np.isclose(to_np(x), to_np(y), equal_nan=True))
    assert xp.allclose(x[:1], y[:1]) is True and xp.allclose(x, y) is False
    v = np.array([[1.0, 4.0, 2.0], [3.0, 3.0, 9.0]])
    var, mean = xp.var_mean(a(v), 1)
    np.testing.assert_allclose(to_np(var), v.var(1, ddof=1))
    np.testing.assert_allclose(to_np(mean), v.mean(1))
    std, _ = xp.std_mean(a(v), correction=0)
    assert std.item() == pytest.approx(v.std())
    vals, inv, counts = xp.unique(a([3, 1, 3, 2, 1, 1]).reshape(2, 3), return_inverse=True, return_counts=True)
    ref_v, ref_i, ref_c = np.unique([3, 1, 3, 2, 1, 1], return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(to_np(vals), ref_v)
    np.testing.assert_array_equal(to_np(inv), ref_i.reshape(2, 3))
    np.testing.assert_array_equal(to_np(counts), ref_c)


def test_linear_algebra_and_renames():
    rng = np.random.default_rng(0)
    m, n = rng.standard_normal((3, 3)), rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(to_np(xp.inverse(a(m))), np.linalg.inv(m))
    np.testing.assert_allclose(xp.det(a(m)).item(), np.linalg.det(m))
    np.testing.assert_allclose(to_np(xp.kron(a(m), a(n))), np.kron(m, n))
    np.testing.assert_allclose(to_np(xp.cdist(a(m), a(m[:2]), p=1)),
                               np.abs(m[:, None] - m[None, :2]).sum(-1))
    np.testing.assert_allclose(to_np(xp.cross(a(m), a(m[::-1]))), np.cross(m, m[::-1], axis=0))
    np.testing.assert_allclose(to_np(xp.addmm(a(m), a(m), a(m), beta=0)), m @ m)
    np.testing.assert_allclose(to_np(xp.baddbmm(a(n[:, :, :3]), a(n), a(n).mT)),
                               n[:, :, :3] + n @ n.transpose(0, 2, 1))
    np.testing.assert_allclose(to_np(xp.logspace(-1, 2, 4)), np.logspace(-1, 2, 4), rtol=1e-6)
    assert xp.numel(a(n)) == 24
    assert xp.permute(a(n), (2, 0, 1)).shape == (4, 2, 3)
    np.testing.assert_array_equal(to_np(xp.cumsum(a([1, 2, 3]), 0)), [1, 3, 6])
    np.testing.assert_array_equal(to_np(xp.clamp(a([-2.0, 0.5]), min=0.0)), [0.0, 0.5])
    assert xp.asarray([1, 2]).type_as(a([1.0])).dtype == xp.float64
    with pytest.raises(ValueError, match="size 3"):
        xp.cross(a([1.0, 2.0]), a([3.0, 4.0]))
