"""``Optimizer.zero_grad``'s short path (a gradient dropped without the ``.grad``
property's Python getter and setter) against PyTorch 2.13: the same ``.grad`` after it
for leaves with and without gradients, user-assigned gradients, named parameters, a
non-leaf in the group (PyTorch's warning when its ``.grad`` is read), and
``set_to_none=False``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import strided.torch as storch

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

torch = pytest.importorskip("torch")


def _both(make):
    return make(storch), make(torch)


def _params(lib):
    a = lib.nn.Parameter(lib.tensor([1.0, 2.0], device="cpu") if lib is storch else lib.tensor([1.0, 2.0]))
    b = lib.nn.Parameter(lib.tensor([3.0]) if lib is torch else lib.tensor([3.0], device="cpu"))
    c = lib.nn.Parameter(lib.tensor([4.0, 5.0, 6.0]) if lib is torch else lib.tensor([4.0, 5.0, 6.0], device="cpu"))
    (a * a).sum().backward()          # a: a gradient from backward
    b.grad = lib.ones(1) * 7 if lib is torch else storch.ones(1, device="cpu") * 7  # b: assigned
    return [a, b, c]                  # c: none


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_matches_pytorch(set_to_none):
    (ps, pt) = _both(_params)
    grads_s = [p.grad for p in ps]
    grads_t = [p.grad for p in pt]
    storch.optim.SGD(ps, lr=0.1).zero_grad(set_to_none=set_to_none)
    torch.optim.SGD(pt, lr=0.1).zero_grad(set_to_none=set_to_none)
    for s, t, gs, gt in zip(ps, pt, grads_s, grads_t):
        assert (s.grad is None) == (t.grad is None)
        if t.grad is not None:  # kept and zeroed in place, the same object
            assert (s.grad is gs) == (t.grad is gt)
            np.testing.assert_array_equal(s.grad.numpy(), t.grad.numpy())
        assert s._version == t._version


def test_zero_grad_then_step_skips_dropped():
    ps = _params(storch)
    before = [p.detach().numpy().copy() for p in ps]
    opt = storch.optim.SGD(ps, lr=0.1)
    opt.zero_grad()
    opt.step()
    for p, b in zip(ps, before):
        np.testing.assert_array_equal(p.detach().numpy(), b)


def test_zero_grad_on_a_non_leaf_warns_as_pytorch():
    def run(lib):
        w = lib.nn.Parameter(lib.tensor([1.0, 2.0]) if lib is torch else lib.tensor([1.0, 2.0], device="cpu"))
        h = w * 2  # a non-leaf in the group: reading its .grad warns (no grad there)
        opt = lib.optim.SGD([w], lr=0.1)
        opt.param_groups[0]["params"].append(h)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            opt.zero_grad()
        return [str(r.message) for r in rec if issubclass(r.category, UserWarning)]
    ws, wt = run(storch), run(torch)
    assert bool(ws) == bool(wt)
    assert all("leaf" in m for m in ws)


def test_zero_grad_named_parameter_keeps_the_getters_rules():
    import strided as xp
    w = storch.nn.Parameter(xp.asarray([[1.0, 2.0]], device="cpu"))
    w.rename_(["a", "b"])
    assert w.names == ("a", "b")
    (w * w).sum().backward()
    assert w.grad is not None
    opt = storch.optim.SGD([w], lr=0.1)
    opt.zero_grad()
    assert w.grad is None


def _host_cases():
    import strided as xp
    f32 = xp.ones((2, 3), dtype=xp.float32, device="cpu")
    yield f32, xp.ones((2, 3), dtype=xp.float32, device="cpu")
    yield f32, xp.ones((2, 3), dtype=xp.float64, device="cpu")          # dtypes differ
    yield f32, xp.ones((3, 2), dtype=xp.float32, device="cpu")          # shapes differ
    yield f32, xp.ones((2, 3), dtype=xp.float32, device="cpu").mT.mT    # a view
    yield f32, xp.ones((3, 2), dtype=xp.float32, device="cpu").mT       # a transposed view
    yield xp.ones((2, 3), dtype=xp.int32, device="cpu"), xp.ones((2, 3), dtype=xp.int32, device="cpu")
    named = xp.ones((2, 3), dtype=xp.float32, device="cpu")
    named.rename_(["a", "b"])
    yield named, f32
    yield f32, named
    yield f32, np.ones((2, 3), np.float32)                              # not an Array
    yield f32, None


@pytest.mark.parametrize("i", range(10))
@pytest.mark.parametrize("on", [True, False])
def test_host2_is_host_for_two_arrays(i, on, monkeypatch):
    from strided.torch.optim import optimizer as _opt
    p, g = list(_host_cases())[i]
    monkeypatch.setattr(_opt, "HOST", on)
    try:
        want = _opt.host(p, g)
    except AttributeError:  # (host reads attributes of what it is given)
        want = False
    assert _opt.host2(p, g) == want
