"""Gradients at the points where a formula divides 0 by 0, against PyTorch 2.13, which masks
them: ``std`` of a constant slice (0, not NaN), ``atan2`` at the origin (0), the vector norm
of order p < 1 at zero elements and zero vectors (0), ``F.normalize`` of a zero vector (0,
through the norm); and ``fmod``'s derivatives (1 for input, -trunc(input / other) for other),
which the composition of its exact values got wrong where |input| or the remainder is 0.
Each was NaN or 0 where PyTorch's is the other, without a word."""

from __future__ import annotations

import numpy as np
import pytest

import strided
import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")

X = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [2.0, -1.0, 0.0]]
W = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0], [2.0, 1.0, 1.5]]

CASES = {
    "std of constant rows": lambda L, x: x.std(1),
    "std correction 0": lambda L, x: x.std(dim=1, correction=0),
    "atan2 at the origin": lambda L, x: L.atan2(x, x.flip(0) * 0),
    "atan2 other at the origin": lambda L, x: L.atan2(x * 0, x),
    "vector_norm p=0.5": lambda L, x: L.linalg.vector_norm(x, 0.5, dim=1),
    "vector_norm p=-1": lambda L, x: L.linalg.vector_norm(x, -1, dim=1),
    "the standard's vector_norm p=0.5": lambda L, x: L.linalg.vector_norm(x, 0.5, dim=1) if L is torch
    else strided.linalg.vector_norm(x, ord=0.5, axis=1),
    "normalize p=2": lambda L, x: L.nn.functional.normalize(x, p=2.0),
    "normalize p=0.5": lambda L, x: L.nn.functional.normalize(x, p=0.5),
    "normalize p=1 dim 0": lambda L, x: L.nn.functional.normalize(x, p=1.0, dim=0),
    "normalize p=inf": lambda L, x: L.nn.functional.normalize(x, p=float("inf")),
    "fmod by a number": lambda L, x: L.fmod(x * 1.5, 1.5),
    "fmod by an array": lambda L, x: L.fmod(x, x.flip(1) + 0.7),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_gradients_are_pytorchs(case):
    f = CASES[case]
    out = []
    for L in (torch, st):
        x = L.tensor(X, dtype=L.float64, requires_grad=True)
        y = f(L, x)
        w = L.tensor(W, dtype=L.float64)[: y.shape[0]] if y.ndim == 2 else L.tensor(W, dtype=L.float64)[0, : y.shape[0]]
        (y * w).sum().backward()
        out.append((np.asarray(y.tolist()), np.asarray(x.grad.tolist())))
    (tv, tg), (sv, sg) = out
    np.testing.assert_allclose(sv, tv, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(sg, tg, rtol=1e-12, atol=1e-15)


def test_fmod_keeps_the_dividends_signed_zero_under_autograd():
    x = st.tensor([-0.0, -3.0, 3.0], dtype=st.float64, requires_grad=True, device="cpu")
    r = host(st.fmod(x, 1.5).detach())
    assert np.signbit(r).tolist() == [True, True, False]


LOSSES = {
    "logsigmoid at 0": lambda L, x, t: L.nn.functional.logsigmoid(x * 0 + x.detach() * 0 + x - x.detach()),
    "logsigmoid far left": lambda L, x, t: L.nn.functional.logsigmoid(x * 30 - 40),
    "bce_with_logits at 0, pos_weight": lambda L, x, t: L.nn.functional.binary_cross_entropy_with_logits(
        x - x.detach(), t, pos_weight=L.tensor([1.0, 2.0, 3.0], dtype=L.float64)),
    "bce at 0 and 1, weight": lambda L, x, t: L.nn.functional.binary_cross_entropy(
        x.clamp(0, 1), t, weight=L.tensor([1.0, 2.0, 3.0], dtype=L.float64)),
}


@pytest.mark.parametrize("case", sorted(LOSSES))
def test_logsigmoid_and_bce_gradients_are_pytorchs(case):
    """logsigmoid's derivative at 0 is 1/2 (min(x, 0) - log1p(exp(-|x|))'s composition gave
    1), so bce_with_logits at 0 was 0 instead of 1/2; bce's input derivative is finite at 0
    and 1 (PyTorch's (x - t) / max((1 - x) x, 1e-12)) where the clamped logs gave NaN, and the
    target's derivative is PyTorch's."""
    out = []
    for L in (torch, st):
        x = L.tensor(X, dtype=L.float64, requires_grad=True)
        t = L.tensor([[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.5]], dtype=L.float64, requires_grad=True)
        y = LOSSES[case](L, x, t)
        (y * L.tensor(W, dtype=L.float64)).sum().backward() if y.ndim else y.backward()
        out.append((np.asarray(y.tolist()), np.asarray(x.grad.tolist()),
                    None if t.grad is None else np.asarray(t.grad.tolist())))
    (tv, tg, tt), (sv, sg, stt) = out
    np.testing.assert_allclose(sv, tv, rtol=1e-12)
    np.testing.assert_allclose(sg, tg, rtol=1e-12, atol=1e-15)
    assert (tt is None) == (stt is None)
    if tt is not None:
        np.testing.assert_allclose(stt, tt, rtol=1e-12)
