"""The fused cross entropy's host path (autograd/_fused.py: _nll_host and
_log_softmax_nll_grad) picks the targets' log-probabilities by their flat positions
(row * C + target, taken and put) instead of a fancy index, and cross_entropy checks the
targets' range by one unsigned reduction. The values must be the formula's, bit for bit:
logp = (x - max) - log(sum(exp(x - max))), the loss the sum (or mean) of -logp at the
targets, the gradient exp(logp) * s - onehot * s -- written here in NumPy with the fancy
index, for every integer target dtype, every reduction, C- and F-ordered inputs and an
upstream gradient; targets out of range still raise PyTorch's IndexError."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided.torch as torch

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

F = torch.nn.functional

# (class-index targets of the dtypes PyTorch's nll_loss takes: int64 and uint8; the others raise
# its RuntimeError, tested in tests/torch_namespace/test_meanings21.py)
_TDT = [np.uint8, np.int64]


def _reference(a, t, reduction, g):
    n = a.shape[0]
    m = np.maximum.reduce(a, axis=1, keepdims=True)
    z = a - m
    z -= np.log(np.add.reduce(np.exp(z), axis=1, keepdims=True))
    rows = np.arange(n)
    picked = -z[rows, t.astype(np.intp)]
    if reduction == "none":
        loss = picked
    elif reduction == "sum":
        loss = np.asarray(np.add.reduce(picked), a.dtype)
    else:
        loss = np.asarray(np.add.reduce(picked) / a.dtype.type(n), a.dtype)
    s = g if reduction != "mean" else np.true_divide(g, a.dtype.type(n))
    s = np.asarray(s, a.dtype)
    if reduction == "none":
        s = s[:, None]
    r = np.exp(z) * s
    r[rows, t.astype(np.intp)] -= s[:, 0] if s.ndim == 2 else s
    return loss, r


@settings(max_examples=60, deadline=None)
@given(n=hs.integers(1, 40), c=hs.integers(1, 12), tdt=hs.sampled_from(_TDT),
       reduction=hs.sampled_from(["mean", "sum", "none"]), fortran=hs.booleans(),
       dt=hs.sampled_from([np.float32, np.float64]), seed=hs.integers(0, 2**32 - 1))
def test_fused_loss_and_gradient_bits(n, c, tdt, reduction, fortran, dt, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((n, c)) * 4).astype(dt)
    if fortran:
        a = np.asfortranarray(a)
    t = rng.integers(0, c, n).astype(tdt)
    x = torch.asarray(a, device="cpu").requires_grad_()
    loss = F.cross_entropy(x, torch.asarray(t, device="cpu"), reduction=reduction)
    assert loss.grad_fn.name() == "NllLossBackward0"
    g = rng.standard_normal(n).astype(dt) if reduction == "none" else np.asarray(rng.standard_normal(), dt)
    want_loss, want_grad = _reference(a, t, reduction, g)
    assert host(loss.detach()).tobytes() == np.ascontiguousarray(want_loss).tobytes()
    loss.backward(torch.asarray(g, device="cpu"))
    assert host(x.grad).tobytes() == np.ascontiguousarray(want_grad).tobytes()
    assert host(x.detach()).tobytes() == np.ascontiguousarray(a).tobytes()  # the input unchanged


@pytest.mark.parametrize("tdt", _TDT)
def test_targets_out_of_range_raise(tdt):
    a = np.zeros((3, 4), np.float32)
    bad = [np.array([0, 4, 1]), np.array([0, 1, 2]) if np.dtype(tdt).kind == "u" else np.array([0, -1, 2])]
    for t in bad:
        t = t.astype(tdt)
        if t.max() < 4 and t.min() >= 0:
            continue
        with pytest.raises(IndexError, match="out of bounds"):
            F.cross_entropy(torch.asarray(a, device="cpu").requires_grad_(), torch.asarray(t, device="cpu"))
    # a target equal to ignore_index inside the range: the composite, its loss PyTorch's mean
    # over the kept targets
    x = torch.asarray(np.log(np.full((3, 4), 0.25, np.float32)), device="cpu").requires_grad_()
    loss = F.cross_entropy(x, torch.asarray(np.array([0, 2, 1]).astype(tdt), device="cpu"), ignore_index=2)
    assert loss.grad_fn.name() != "NllLossBackward0"
    np.testing.assert_allclose(float(loss), np.log(4), rtol=1e-6)
