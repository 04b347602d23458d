"""Calls PyTorch 2.13 answers that strided.torch refused or crashed on (a differential sweep of
PyTorch's OpInfo samples): each case runs through torch and strided.torch, and the values,
dtypes, shapes, errors and gradients must agree."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import given, settings, strategies as st  # noqa: E402

import strided.torch as S  # noqa: E402

from _parity import to_numpy  # noqa: E402


def _leaf(L, value, dtype="float64"):
    return L.tensor(value, dtype=getattr(L, dtype), requires_grad=True)


def _same(got, ref):
    """Values, dtype and shape of one result (an array, or a tuple of arrays) as PyTorch's."""
    if isinstance(ref, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(ref)
        for g, r in zip(got, ref):
            _same(g, r)
        return
    if not isinstance(ref, torch.Tensor):
        assert got == ref
        return
    assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], (got.dtype, ref.dtype)
    assert tuple(got.shape) == tuple(ref.shape)
    np.testing.assert_allclose(to_numpy(got), ref.detach().numpy(), rtol=1e-12, atol=1e-12)


def _outcome(f, L):
    try:
        return f(L)
    except Exception as e:  # noqa: BLE001
        return e


def _agree(f):
    """f(torch) and f(strided.torch): the same values, or the same type of error."""
    ref, got = _outcome(f, torch), _outcome(f, S)
    if isinstance(ref, Exception):
        assert isinstance(got, type(ref)), (type(got), got, ref)
        return None, None
    assert not isinstance(got, Exception), got
    _same(got, ref)
    return got, ref


def _grads_agree(f, value=2.5, dtype="float64"):
    """f(L, leaf) through both libraries: values as above and the leaf's gradient as PyTorch's."""
    leaves = {}

    def run(L):
        leaves[L] = _leaf(L, value, dtype)
        return f(L, leaves[L])
    got, ref = _agree(run)
    (ref if isinstance(ref, torch.Tensor) else ref[0]).sum().backward()
    (got if not isinstance(got, tuple) else got[0]).sum().backward()
    _same(leaves[S].grad, leaves[torch].grad)


# --- 12. gradients through a 0-d input's dim 0 / -1 (ZeroDivisionError before) ------------------

@pytest.mark.parametrize("f", [
    lambda L, x: L.cumprod(x, 0), lambda L, x: L.cumprod(x, -1),
    lambda L, x: L.cumprod(x, 0, dtype=L.float64), lambda L, x: x.cumprod(dim=-1),
    lambda L, x: L.topk(x, 1, 0), lambda L, x: L.topk(x, 0),
    lambda L, x: L.sort(x, 0), lambda L, x: L.sort(x, -1, descending=True),
    lambda L, x: L.gather(x, 0, L.tensor(0)), lambda L, x: L.gather(x, -1, L.tensor(0)),
    lambda L, x: L.take_along_dim(x, L.tensor(0)),
    lambda L, x: L.mean(x, 0), lambda L, x: L.var(x, 0, correction=0), lambda L, x: L.var(x, -1, keepdim=True),
    lambda L, x: L.var_mean(x, 0, correction=0),
], ids=lambda f: None)
def test_zero_d_dim_gradients(f):
    _grads_agree(f)
