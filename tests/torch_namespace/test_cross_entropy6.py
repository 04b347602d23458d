"""``nn.functional.cross_entropy``'s fused case, reached through its first test (the
slots read once): the same graph node, values and gradients as PyTorch's, and every case
outside it (ignored targets, targets out of range, other shapes, dtypes, weights,
smoothing, the legacy reduction arguments) answered as before: PyTorch's values or its
error type. Host only (``device="cpu"``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import strided as xp
import strided.torch as storch

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

torch = pytest.importorskip("torch")
F = storch.nn.functional


def _np(a):
    return np.array(a.detach().numpy())


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), c=st.integers(1, 5), reduction=st.sampled_from(["mean", "sum", "none"]),
       ignore=st.sampled_from([-100, 0, 1, 7]), spread=st.sampled_from([0, 1, 2]),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_against_pytorch(n, c, reduction, ignore, spread, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, c)).astype(dtype)
    # spread 1 and 2 put some targets out of range (above, below)
    t = rng.integers(0, c, n)
    if spread == 1:
        t[0] = c
    elif spread == 2:
        t[-1] = -1
    x = xp.asarray(a, device="cpu").requires_grad_()
    tx = torch.tensor(a, requires_grad=True)
    try:
        want = torch.nn.functional.cross_entropy(tx, torch.tensor(t), ignore_index=ignore, reduction=reduction)
    except (IndexError, RuntimeError) as e:
        want = e
    if isinstance(want, Exception):
        with pytest.raises((IndexError, RuntimeError)):
            F.cross_entropy(x, xp.asarray(t, device="cpu"), ignore_index=ignore, reduction=reduction)
        return
    got = F.cross_entropy(x, xp.asarray(t, device="cpu"), ignore_index=ignore, reduction=reduction)
    fused = not (t.min() <= ignore <= t.max())
    if fused:  # (the one node; the composite for ignored targets)
        assert got.grad_fn.name() == "NllLossBackward0" and sorted(got.grad_fn.saved_values) == ["_flat", "_logp", "reduction", "target", "x"]
    tol = dict(rtol=2e-6, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(got), want.detach().numpy(), **tol)
    g = rng.standard_normal(tuple(want.shape)).astype(dtype)
    got.backward(xp.asarray(g, device="cpu"))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(_np(x.grad), tx.grad.numpy(), **tol)


def test_the_fused_node_and_its_conditions():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    t = xp.asarray([0, 2, 1, 2], device="cpu")
    x = xp.asarray(a, device="cpu").requires_grad_()
    assert F.cross_entropy(x, t).grad_fn.name() == "NllLossBackward0"
    # outside the fused case: the composite (other nodes), the same value as PyTorch
    ta, tt = torch.tensor(a), torch.tensor([0, 2, 1, 2])
    cases = [
        (dict(weight=xp.asarray([1.0, 2.0, 0.5], dtype=xp.float32, device="cpu")),
         dict(weight=torch.tensor([1.0, 2.0, 0.5]))),
        (dict(label_smoothing=0.1), dict(label_smoothing=0.1)),
        (dict(ignore_index=2), dict(ignore_index=2)),
    ]
    for kw, tkw in cases:
        got = F.cross_entropy(x, t, **kw)
        assert got.grad_fn.name() != "NllLossBackward0"
        np.testing.assert_allclose(_np(got), torch.nn.functional.cross_entropy(ta, tt, **tkw).numpy(), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = F.cross_entropy(x, t, reduce=False)
    np.testing.assert_allclose(_np(got), torch.nn.functional.cross_entropy(ta, tt, reduction="none").numpy(),
                               rtol=1e-6)
    with pytest.warns(UserWarning, match="size_average and reduce"):
        F.cross_entropy(x, t, size_average=False)
    # errors: as before (names, shapes, dtypes, reduction)
    with pytest.raises(ValueError, match="expected target of shape"):
        F.cross_entropy(x, xp.asarray([0, 1], device="cpu"))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.cross_entropy(x, t, reduction="avg")
    with pytest.raises(TypeError, match="must be a strided array"):
        F.cross_entropy(a, t)
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(x, t, label_smoothing=2.0)
    # probabilities as targets: the composite
    p = xp.asarray(np.full((4, 3), 1 / 3, np.float32), device="cpu")
    got = F.cross_entropy(x, p)
    np.testing.assert_allclose(_np(got), torch.nn.functional.cross_entropy(ta, torch.full((4, 3), 1 / 3)).numpy(),
                               rtol=1e-6)
