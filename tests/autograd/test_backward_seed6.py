"""``loss.backward()``'s common case (a real 0-d result with history on the host, no
gradient given, no inputs=, no create_graph) seeds the run itself; the same leaf
gradients, bit for bit, as the general path (an explicit ones seed), and the same
retain_graph behaviour and errors. Host only (``device="cpu"``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from strided import autograd as ag

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _np(a):
    return np.array(a.detach().numpy())


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 6), dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_same_gradients_as_an_explicit_seed(n, dtype, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((n, 3)).astype(dtype), rng.standard_normal(3).astype(dtype)
    outs = []
    for implicit in (True, False):
        x = xp.asarray(a, device="cpu").requires_grad_()
        w = xp.asarray(b, device="cpu").requires_grad_()
        loss = xp.sum(xp.tanh(x * w) * x)
        if implicit:
            mp = pytest.MonkeyPatch()  # (the seed made without _start: it must not be called)
            mp.setattr(ag, "_start", lambda *a: pytest.fail("_start called"))
            try:
                loss.backward()
            finally:
                mp.undo()
        else:
            ag.backward([loss], [xp.ones((), dtype=loss.dtype, device="cpu")])
        outs.append((_np(x.grad), _np(w.grad)))
    for u, v in zip(*outs):
        np.testing.assert_array_equal(u.view(np.uint8), v.view(np.uint8))


def test_retain_graph_and_errors():
    x = xp.asarray(np.arange(3.0), device="cpu").requires_grad_()
    loss = xp.sum(x * x)
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_array_equal(_np(x.grad), 4 * np.arange(3.0))
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()
    # not a scalar, no history, complex: the general path's errors
    with pytest.raises(RuntimeError, match="scalar outputs"):
        (x * 2.0).backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        xp.sum(xp.asarray(np.ones(2), device="cpu")).backward()
    torch = pytest.importorskip("torch")
    tx = torch.arange(3.0, dtype=torch.float64, requires_grad=True)
    (tx * tx).sum().backward()
    y = xp.asarray(np.arange(3.0), device="cpu").requires_grad_()
    xp.sum(y * y).backward()
    np.testing.assert_array_equal(_np(y.grad), tx.grad.numpy())


def test_hooks_on_the_loss_and_leaves_run():
    x = xp.asarray(np.ones(2), device="cpu").requires_grad_()
    y = x * 3.0
    loss = xp.sum(y)
    seen = []
    y.register_hook(lambda g: seen.append(_np(g)))
    loss.backward()
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], np.ones(2))
    np.testing.assert_array_equal(_np(x.grad), np.full(2, 3.0))
