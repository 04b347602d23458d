"""The call pipeline's binding stage (src/strided/_core/call/bind.py) and what it feeds:
``alpha`` applied once, after promotion, in the compute dtype (torch/_refs ``add``), at every
door; ``out=`` of PyTorch's composites an ordinary parameter (refused with grad, names
checked and kept); the standard namespace refusing PyTorch spellings that would mean
something else. References: PyTorch 2.13."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import strided as xp
from strided.named import DimensionNameError
from conftest import host

torch = pytest.importorskip("torch")

DT = {"int8": (xp.int8, torch.int8), "int16": (xp.int16, torch.int16), "int32": (xp.int32, torch.int32),
      "int64": (xp.int64, torch.int64), "uint8": (xp.uint8, torch.uint8),
      "float16": (xp.float16, torch.float16), "float32": (xp.float32, torch.float32),
      "float64": (xp.float64, torch.float64)}


def both(values, dt):
    s, t = DT[dt]
    return xp.asarray(np.asarray(values), dtype=s), torch.tensor(values, dtype=t)


def same(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    np.testing.assert_array_equal(host(got), want.numpy())


# --- alpha: after promotion, in the compute dtype ----------------------------------------------

ALPHA_CASES = [
    ("int16", [1], "int8", [100], 3),           # 301 (scaled in int8 first: 45)
    ("float32", [1.0], "float16", [40000.0], 3),  # 120001 (scaled in float16 first: inf)
    ("float64", [0.1, 1e-3], "float32", [0.3, 7.1], 0.1),  # exact in float64
    ("int64", [5, -7], "uint8", [200, 3], -2),
    ("float16", [1.5], "float16", [2.0], 0.5),
    ("int32", [1, 2], "int32", [3, 4], 1),
]


def _doors(name, a, b, alpha):
    """Every door of add/subtract with alpha: function, method, in-place, out=."""
    res = getattr(xp, name)(a, b, alpha=alpha)
    yield "function", res
    yield "method", getattr(a, name if name == "add" else "sub")(b, alpha=alpha)
    out = xp.empty(res.shape, dtype=res.dtype)
    assert getattr(xp, name)(a, b, alpha=alpha, out=out) is out
    yield "out=", out
    if res.dtype == a.dtype and tuple(res.shape) == tuple(a.shape):
        c = xp.asarray(a, copy=True)
        assert getattr(c, ("add" if name == "add" else "sub") + "_")(b, alpha=alpha) is c
        yield "in-place", c


@pytest.mark.parametrize("name", ["add", "subtract"])
@pytest.mark.parametrize("d1, v1, d2, v2, alpha", ALPHA_CASES)
def test_alpha_matches_pytorch_at_every_door(name, d1, v1, d2, v2, alpha):
    a, ta = both(v1, d1)
    b, tb = both(v2, d2)
    want = getattr(torch, name)(ta, tb, alpha=alpha)
    for door, got in _doors(name, a, b, alpha):
        same(got, want)
    if d1 == d2:  # the in-place door where the result has a's dtype
        c = xp.asarray(a, copy=True)
        tc = ta.clone()
        getattr(c, ("add" if name == "add" else "sub") + "_")(b, alpha=alpha)
        getattr(tc, ("add" if name == "add" else "sub") + "_")(tb, alpha=alpha)
        same(c, tc)


def test_alpha_with_a_python_scalar_operand():
    a, ta = both([1, 2], "int16")
    same(xp.add(a, 7, alpha=3), torch.add(ta, 7, alpha=3))
    f, tf = both([1.0, 2.0], "float32")
    same(xp.subtract(f, 0.25, alpha=3), torch.sub(tf, 0.25, alpha=3))


@pytest.mark.parametrize("alpha, dt", [(0.5, "int32"), (True, "int32"), (2.0, "int8"), (1j, "float32"),
                                       (1.0, "int64")])
def test_alpha_pytorch_refuses_is_refused(alpha, dt):
    a, ta = both([1, 2], dt)
    with pytest.raises(RuntimeError):
        torch.add(ta, ta, alpha=alpha)
    for call in (lambda: xp.add(a, a, alpha=alpha), lambda: a.add(a, alpha=alpha),
                 lambda: xp.asarray(a, copy=True).add_(a, alpha=alpha),
                 lambda: xp.subtract(a, a, alpha=alpha, out=xp.empty_like(a))):
        with pytest.raises(TypeError, match="alpha"):
            call()


def test_alpha_gradient_matches_pytorch():
    A = np.random.default_rng(0).standard_normal((3,))
    x = xp.asarray(A, requires_grad=True)
    y = xp.asarray(A[::-1].copy(), requires_grad=True)
    xp.sum(xp.subtract(x, y, alpha=2.5) ** 2).backward()
    tx = torch.tensor(A, requires_grad=True)
    ty = torch.tensor(A[::-1].copy(), requires_grad=True)
    (torch.sub(tx, ty, alpha=2.5) ** 2).sum().backward()
    np.testing.assert_allclose(host(x.grad), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(host(y.grad), ty.grad.numpy(), rtol=1e-12)


def test_alpha_is_not_a_keyword_of_other_rows():
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        xp.multiply(xp.ones(2), xp.ones(2), alpha=2)
    assert "alpha" in inspect.signature(xp.add).parameters
    assert "alpha" in inspect.signature(xp.Array.add_).parameters


# --- out= of PyTorch's composites: an ordinary parameter ---------------------------------------

def test_out_with_grad_is_refused_as_pytorch_and_strideds_own_exp():
    A = np.array([-1.0, 0.5, 2.0])
    tx = torch.tensor(A, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"out=\.\.\. arguments don't support automatic differentiation"):
        torch.sigmoid(tx, out=torch.empty(3, dtype=torch.float64))
    x = xp.asarray(A, requires_grad=True)
    o = xp.empty(3, dtype=xp.float64)
    with pytest.raises(RuntimeError, match=r"out=\.\.\. arguments don't support automatic differentiation"):
        xp.exp(x, out=o)
    for call in (lambda: xp.sigmoid(x, out=o), lambda: xp.clamp(x, 0.0, 1.0, out=o),
                 lambda: xp.logsumexp(x, 0, out=xp.empty((), dtype=xp.float64))):
        with pytest.raises(RuntimeError, match=r"out=\.\.\. arguments don't support automatic differentiation"):
            call()
    np.testing.assert_array_equal(host(o), host(o))  # (o untouched is checked below)
    with xp.no_grad():  # as PyTorch: allowed where nothing is recorded
        assert xp.sigmoid(x, out=o) is o
    np.testing.assert_allclose(host(o), torch.sigmoid(torch.tensor(A)).numpy(), rtol=1e-12)


def test_out_refused_with_grad_leaves_out_unwritten():
    x = xp.asarray([0.0, 1.0], requires_grad=True)
    o = xp.full((2,), 7.0, dtype=xp.float64)
    with pytest.raises(RuntimeError):
        xp.sigmoid(x, out=o)
    assert host(o).tolist() == [7.0, 7.0]


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_out_values_and_dtype_vs_pytorch(dt):
    A = np.random.default_rng(1).standard_normal((3, 4))
    s, t = DT[dt]
    x, tx = xp.asarray(A, dtype=s), torch.tensor(A, dtype=t)
    for f, args, shape in (("sigmoid", (), (3, 4)), ("logsumexp", (1,), (3,)),
                           ("clamp", (-0.5, 0.5), (3, 4))):
        o, to = xp.empty(shape, dtype=s), torch.empty(shape, dtype=t)
        assert getattr(xp, f)(x, *args, out=o) is o
        getattr(torch, f)(tx, *args, out=to)
        assert o.dtype == s
        # (float32 kernels may differ from PyTorch's by an ulp of float32)
        np.testing.assert_allclose(host(o), to.numpy(), rtol=1e-6 if dt == "float32" else 1e-13)


def test_out_names_are_checked_and_kept():
    x = xp.asarray(np.ones((2, 3)), names=("N", "C"))
    o = xp.empty((2, 3), names=("N", "C"))
    assert xp.sigmoid(x, out=o) is o and o.names == ("N", "C")
    o2 = xp.empty((2, 3))
    xp.sigmoid(x, out=o2)
    assert o2.names == ("N", "C")  # the result's names kept on out
    bad = xp.full((2, 3), 5.0, names=("C", "N"))
    with pytest.raises(DimensionNameError):
        xp.sigmoid(x, out=bad)
    assert host(bad).tolist() == [[5.0] * 3] * 2  # nothing written
    o3 = xp.empty((2,), names=("N",))
    xp.logsumexp(x, 1, out=o3)
    assert o3.names == ("N",)


def test_out_pairs():
    A = np.random.default_rng(2).standard_normal((3, 5))
    v, i = xp.empty((3, 2)), xp.empty((3, 2), dtype=xp.int64)
    r = xp.topk(xp.asarray(A), 2, out=(v, i))
    tv, ti = torch.topk(torch.tensor(A), 2)
    assert r[0] is v and r[1] is i
    np.testing.assert_allclose(host(v), tv.numpy())
    np.testing.assert_array_equal(host(i), ti.numpy())


# --- the standard namespace refuses PyTorch spellings that would differ -------------------------

def test_refusals_name_the_difference_and_strided_torch():
    x = xp.ones((2, 3))
    for call, fname in ((lambda: xp.std(x, dim=0), "std"), (lambda: xp.var(x, dim=1), "var"),
                        (lambda: xp.max(x, 1), "max"), (lambda: xp.min(x, dim=0), "min"),
                        (lambda: xp.sum(x, 0), "sum"), (lambda: xp.prod(x, 1), "prod")):
        with pytest.raises(TypeError, match=rf"strided\.torch\.{fname}"):
            call()
    # the standard's spellings, and PyTorch's where they agree, stay
    np.testing.assert_allclose(host(xp.std(x, dim=0, correction=1)), np.std(np.ones((2, 3)), 0, ddof=1))
    assert xp.sum(x, dim=0).shape == (3,)
    assert x.std(dim=0).shape == (3,)  # methods follow PyTorch
    vals, idx = x.max(1)
    assert vals.shape == (2,) and idx.shape == (2,)


def test_signatures_show_the_pytorch_keywords():
    for name, keywords in (("sum", ("dim", "keepdim")), ("flip", ("dims",)), ("sigmoid", ("out",)),
                           ("median", ("dim", "keepdim", "out"))):
        params = inspect.signature(getattr(xp, name)).parameters
        assert set(keywords) <= set(params), name
