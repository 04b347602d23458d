"""AccumulateGrad.apply's compiled common case (``_cgrad``: a leaf's first gradient that
only the engine holds becomes its ``.grad``) against the Python definition
(``_graph._accumulate_into``/``_stealable``) and PyTorch 2.13: the same ``.grad`` values,
taken only where nothing else can see the gradient; everything else (a hook, an existing
``.grad``, ``create_graph``, a gradient that is a broadcast view or that someone else
holds) keeps the definition's copy or sum, so ``.grad`` never aliases another array."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
import strided.torch as storch
from strided.autograd import _graph

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

torch = pytest.importorskip("torch")

compiled = _graph._cgrad is not None and hasattr(_graph._cgrad, "setup_accumulate")


def _mlp(lib, dev):
    rng = np.random.default_rng(0)
    arrs = [rng.standard_normal(s).astype(np.float32) for s in [(6, 5), (6,), (3, 6), (3,), (4, 5)]]
    if lib is torch:
        w1, b1, w2, b2, x = [torch.from_numpy(a.copy()) for a in arrs]
    else:
        w1, b1, w2, b2, x = [storch.asarray(a.copy(), **dev) for a in arrs]
    ps = [w1, b1, w2, b2]
    for p in ps:
        p.requires_grad_()
    y = lib.tensor([0, 2, 1, 2]) if lib is torch else storch.tensor([0, 2, 1, 2], **dev)
    F = lib.nn.functional
    return ps, lambda: F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), y)


@pytest.mark.parametrize("twice", [False, True])
def test_grads_equal_pytorch_and_accumulate(twice):
    ps, loss = _mlp(storch, {"device": "cpu"})
    pt, tloss = _mlp(torch, {})
    for _ in range(2 if twice else 1):
        loss().backward()
        tloss().backward()
    for p, q in zip(ps, pt):
        np.testing.assert_allclose(np.asarray(p.grad.numpy()), q.grad.numpy(), rtol=2e-6, atol=1e-7)
        g = p.grad._get_native()
        assert g.flags.c_contiguous and g.flags.writeable and g.base is None or g.base.base is None


@pytest.mark.skipif(not compiled, reason="the C extension _cgrad is not built (STRIDED_NO_CEXT=1)")
def test_compiled_case_is_taken_and_matches_the_definition(monkeypatch):
    calls = []
    real = _graph._accumulate_into
    monkeypatch.setattr(_graph, "_accumulate_into", lambda *a: calls.append(1) or real(*a))
    ps, loss = _mlp(storch, {"device": "cpu"})
    loss().backward()
    fast = [np.array(p.grad.numpy()) for p in ps]
    assert not calls  # (every leaf's first gradient: stolen in C)
    loss().backward()  # an existing .grad: the definition adds
    assert len(calls) == 4
    # the definition alone (the hand-off given as a plain list: not _Handoff, so C declines)
    ps2, loss2 = _mlp(storch, {"device": "cpu"})
    l2 = loss2()
    for p in ps2:
        p.grad = None
    _graph.run_backward([(l2.grad_fn, 0)], [xp.ones((), dtype=xp.float32, device="cpu")], False, False,
                        inputs=ps2, capture=False)
    for a, p in zip(fast, ps2):
        np.testing.assert_array_equal(a, p.grad.numpy())


def test_a_gradient_held_elsewhere_is_copied():
    w = storch.asarray(np.arange(3, dtype=np.float32), device="cpu").requires_grad_()
    h = w * 1.0
    h.retain_grad()  # h.grad is the gradient w receives (the identity's): w.grad must not alias it
    (h * 2.0).sum().backward()
    w.grad._get_native()[0] = 100.0
    np.testing.assert_array_equal(h.grad.numpy(), [2.0, 2.0, 2.0])


def test_broadcast_gradient_is_a_fresh_writable_array():
    w = storch.asarray(np.ones(4, dtype=np.float32), device="cpu").requires_grad_()
    w.sum().backward()  # sum's gradient: a broadcast view of one element
    g = w.grad._get_native()
    assert g.flags.writeable and g.flags.c_contiguous
    g[0] = 5.0
    np.testing.assert_array_equal(w.grad.numpy(), [5.0, 1.0, 1.0, 1.0])


def test_hook_and_create_graph_keep_the_definition():
    w = storch.asarray(np.array([1.0, 2.0], dtype=np.float32), device="cpu").requires_grad_()
    w.register_hook(lambda g: g * 3.0)
    (w * w).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [6.0, 12.0])
    v = storch.asarray(np.array([1.0, 2.0], dtype=np.float32), device="cpu").requires_grad_()
    (v * v * v).sum().backward(create_graph=True)
    assert v.grad.grad_fn is not None  # (a graph of the gradient, as PyTorch's)
    np.testing.assert_array_equal(v.grad.detach().numpy(), [3.0, 12.0])
