"""Tensor.register_post_accumulate_grad_hook on strided.torch against PyTorch 2.13: the
optimizer-in-backward pattern (each parameter stepped and its grad cleared by its own
hook), the order the hooks run in, after a gradient hook has scaled the gradient, the
handle's remove(), and the errors for non-leaves and arrays without grad."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch


def _optimizer_in_backward(lib):
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]))
        lin.bias.zero_()
    opts = {p: lib.optim.SGD([p], lr=0.1) for p in lin.parameters()}
    order = []

    def hook(p):
        order.append(tuple(p.shape))
        opts[p].step()
        opts[p].zero_grad()

    handles = [p.register_post_accumulate_grad_hook(hook) for p in lin.parameters()]
    lin.weight.register_hook(lambda g: g * 2)  # (runs before accumulation, so before the hook)
    x = lib.tensor([[1.0, 0.5, -1.0], [0.2, 0.1, 0.3]])
    for _ in range(2):
        lin(x).pow(2).sum().backward()
    grad_after = lin.weight.grad
    handles[0].remove()
    lin(x).pow(2).sum().backward()
    return (order, np.asarray(lin.weight.tolist()), np.asarray(lin.bias.tolist()), grad_after is None,
            lin.weight.grad is not None, lin.bias.grad is None)


def test_optimizer_in_backward_matches_torch():
    t, s = _optimizer_in_backward(torch), _optimizer_in_backward(storch)
    assert s[0] == t[0], (s[0], t[0])
    np.testing.assert_allclose(s[1], t[1], rtol=1e-6)
    np.testing.assert_allclose(s[2], t[2], rtol=1e-6)
    assert s[3:] == t[3:] == (True, True, True), (s[3:], t[3:])


@pytest.mark.parametrize("lib", [torch, storch], ids=["torch", "strided"])
def test_errors(lib):
    w = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be registered on non-leaf tensors"):
        (w * 2).register_post_accumulate_grad_hook(lambda p: None)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        lib.ones(2).register_post_accumulate_grad_hook(lambda p: None)


def test_hook_sees_the_accumulated_grad():
    seen = []
    w = storch.tensor([1.0, 2.0], requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
    (w * 3).sum().backward()
    (w * 3).sum().backward()
    assert seen == [[3.0, 3.0], [6.0, 6.0]]
