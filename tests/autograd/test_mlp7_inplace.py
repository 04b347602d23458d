"""The in-place operators on arrays that carry autograd metadata under no_grad() (an
optimizer's ``p -= lr * p.grad``): they skip the handler chain (_api/elementwise.py's
``iop``), so these pin what the chain did: NumPy's values, the version counter that
autograd's saved values check, PyTorch's errors with recording on, names still unified.
References: NumPy for values, PyTorch 2.13 for the behaviour."""

import numpy as np
import pytest

import strided as xp

torch = pytest.importorskip("torch")

OPS = [("__isub__", "subtract"), ("__iadd__", "add"), ("__imul__", "multiply"), ("__itruediv__", "divide")]


def _host(a):
    return np.asarray(a.detach().cpu())


def _pair(seed, shape=(3, 4)):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("dunder,ufunc", OPS)
@pytest.mark.parametrize("other_kind", ["array", "grad_array", "scalar", "row"])
def test_values_and_version_under_no_grad(dunder, ufunc, other_kind):
    pn, gn = _pair(1)
    p = xp.asarray(pn.copy()).requires_grad_()
    if other_kind == "scalar":
        other, other_n = 0.25, np.float32(0.25)
    elif other_kind == "row":
        other_n = gn[0].copy()
        other = xp.asarray(other_n)
    else:
        other_n = gn
        other = xp.asarray(gn.copy())
        if other_kind == "grad_array":
            other.requires_grad_()
    v0 = p._version
    with xp.no_grad():
        r = getattr(p, dunder)(other)
    assert r is p
    ref = getattr(np, ufunc)(pn, other_n).astype(np.float32)
    np.testing.assert_array_equal(_host(p), ref)
    assert p._version == v0 + 1
    assert p.requires_grad and p.is_leaf and p.grad_fn is None


@pytest.mark.parametrize("dunder,ufunc", OPS)
def test_recording_on_still_refuses_a_leaf(dunder, ufunc):
    pn, gn = _pair(2)
    p = xp.asarray(pn.copy()).requires_grad_()
    tp = torch.from_numpy(pn.copy()).requires_grad_()
    with pytest.raises(RuntimeError) as ours:
        getattr(p, dunder)(xp.asarray(gn))
    with pytest.raises(RuntimeError) as theirs:
        getattr(tp, dunder)(torch.from_numpy(gn))
    assert "leaf" in str(ours.value) and "leaf" in str(theirs.value)
    np.testing.assert_array_equal(_host(p), pn)  # user data unchanged


def test_a_saved_value_written_under_no_grad_is_caught_at_backward():
    pn, gn = _pair(3)
    for lib, T in ((xp, xp.asarray), (torch, torch.from_numpy)):
        p = T(pn.copy()).requires_grad_()
        y = (p * p).sum()  # saves p
        with lib.no_grad():
            p -= T(gn.copy()) * 0.1
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


def test_sgd_loop_matches_torch_step_for_step():
    rng = np.random.default_rng(4)
    wn = rng.standard_normal((5, 3)).astype(np.float32)
    xn = rng.standard_normal((7, 5)).astype(np.float32)
    w = xp.asarray(wn.copy()).requires_grad_()
    tw = torch.from_numpy(wn.copy()).requires_grad_()
    for _ in range(4):
        loss = xp.sum(xp.exp(xp.asarray(xn) @ w) * 0.01)
        tloss = (torch.exp(torch.from_numpy(xn) @ tw) * 0.01).sum()
        loss.backward()
        tloss.backward()
        with xp.no_grad():
            w -= 0.1 * w.grad
            w.grad = None
        with torch.no_grad():
            tw -= 0.1 * tw.grad
            tw.grad = None
        np.testing.assert_allclose(_host(w), tw.detach().numpy(), rtol=1e-5, atol=1e-6)
        assert w.grad is None


def test_names_still_go_through_their_handler():
    # (PyTorch 2.13 has no named tensors: the reference is the named rule itself -- names
    # are matched by position and must agree -- seen on the same call without autograd)
    for rg in (False, True):
        p = xp.asarray(np.ones((2, 3), np.float32)).refine_names("x", "y")
        if rg:
            p.requires_grad_()
        other = xp.asarray(np.ones((2, 3), np.float32)).refine_names("y", "x")
        with xp.no_grad(), pytest.raises((RuntimeError, ValueError), match="x|y"):
            p -= other
        np.testing.assert_array_equal(_host(p), np.ones((2, 3), np.float32))
        ok = xp.asarray(np.full((2, 3), 0.5, np.float32)).refine_names("x", "y")
        with xp.no_grad():
            p -= ok
        assert p.names == ("x", "y")
        np.testing.assert_array_equal(_host(p), np.full((2, 3), 0.5, np.float32))
