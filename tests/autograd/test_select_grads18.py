"""Gradients of the reductions that select elements, against PyTorch 2.13, on inputs with ties
and NaNs (drawn from a few small integers, so ties are common):

- ``max(dim)``/``min(dim)`` (method and ``strided.torch`` function): the gradient flows to the
  element the index names, PyTorch's value_selecting_reduction_backward; it was shared among
  tied elements, and a slice with NaN got none;
- ``median(dim)``: its index is the first NaN of a slice with NaN, and the gradient flows
  there (it was the middle element's index, and no gradient);
- ``max()``/``min()``/``median()`` of all elements: the gradient is shared evenly by the
  elements equal to the result, the NaNs for a NaN result (PyTorch's
  evenly_distribute_backward); median() gave it all to one tied element, and a NaN result
  gave none;
- ``amax``/``amin`` (the standard's ``max``/``min``): ties share the gradient, and a NaN
  slice's gradient is NaN, as PyTorch's; a NaN slice beside a tied one made the tied
  elements' gradient double."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")

CALLS = {
    "x.max(dim)": lambda L, x, d: x.max(d)[0],
    "x.min(dim, keepdim)": lambda L, x, d: x.min(d, True).values,
    "torch.max(x, dim)": lambda L, x, d: L.max(x, d)[0],
    "torch.min(x, dim=)": lambda L, x, d: L.min(x, dim=d).values,
    "x.max()": lambda L, x, d: x.max(),
    "x.min()": lambda L, x, d: x.min(),
    "x.median()": lambda L, x, d: x.median(),
    "x.nanmedian()": lambda L, x, d: x.nanmedian(),
    "x.amax(dim)": lambda L, x, d: x.amax(d),
    "torch.amin(x, dim, keepdim)": lambda L, x, d: L.amin(x, d, True),
}
INDICES = {
    "x.max(dim)": lambda L, x, d: x.max(d)[1],
    "torch.min(x, dim=)": lambda L, x, d: L.min(x, dim=d).indices,
    "x.median(dim)": lambda L, x, d: x.median(d)[1],
}


def _run(L, a, call, d, w):
    x = L.tensor(a, dtype=L.float64, requires_grad=True)
    y = call(L, x, d)
    (y * L.tensor(w[: y.numel()].reshape(tuple(y.shape)), dtype=L.float64)).sum().backward()
    return np.asarray(y.tolist()), np.asarray(x.grad.tolist())


@settings(max_examples=80, deadline=None)
@given(data=hs.data(), name=hs.sampled_from(sorted(CALLS)))
def test_values_and_gradients_are_pytorchs(data, name):
    shape = data.draw(hs.sampled_from([(5,), (3, 4), (2, 3, 3)]))
    a = np.array(data.draw(hs.lists(hs.sampled_from([0.0, 1.0, 2.0, np.nan]), min_size=int(np.prod(shape)),
                                    max_size=int(np.prod(shape))))).reshape(shape)
    d = data.draw(hs.integers(-len(shape), len(shape) - 1))
    w = np.arange(1.0, 1.0 + a.size)
    want_v, want_g = _run(torch, a, CALLS[name], d, w)
    got_v, got_g = _run(st, a, CALLS[name], d, w)
    np.testing.assert_array_equal(got_v, want_v)
    np.testing.assert_allclose(got_g, want_g, rtol=1e-12)


# (median(dim) is checked on fixed rows below, not drawn ones: among tied elements PyTorch's
# index is its nth_element's, unspecified; max's and min's is documented, the first)
@pytest.mark.parametrize("name", sorted(INDICES))
@pytest.mark.parametrize("row", [[1.0, np.nan, 3.0], [np.nan, 1.0, np.nan], [3.0, 1.0, 2.0, 2.0], [4.0, 4.0, 4.0]])
def test_indices_are_pytorchs(name, row):
    f = INDICES[name]
    want = f(torch, torch.tensor([row]), 1).numpy()
    got = host(f(st, st.tensor([row], device="cpu"), 1))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("row", [[1.0, np.nan, 3.0], [np.nan, 1.0, np.nan], [3.0, 1.0, 2.0, 0.0], [2.0, np.nan]])
def test_median_dim_gradient_is_pytorchs(row):
    w = np.arange(1.0, 1.0 + len(row))
    want = _run(torch, np.array([row]), lambda L, x, d: x.median(d)[0], 1, w)
    got = _run(st, np.array([row]), lambda L, x, d: x.median(d)[0], 1, w)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
