"""Errors a PyTorch program catches: for each bad call (from PyTorch 2.13's own OpInfo
``error_inputs``, swept through strided.torch), strided's error is an instance of the type
PyTorch raises (mostly RuntimeError) and still of the type the array API standard and NumPy
raise for the same mistake (ValueError, TypeError): the core's ShapeError, ArgumentError,
DTypeError and CastError are both."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as S  # noqa: E402

# (name, call(L) on a namespace L (torch or strided.torch), the standard's/NumPy's type)
_CASES = [
    ("add int alpha float", lambda L: L.add(L.tensor([1, 2]), L.tensor([1, 2]), alpha=0.5), TypeError),
    ("sub int alpha float", lambda L: L.sub(L.tensor([1, 2]), L.tensor([1, 2]), alpha=0.5), TypeError),
    ("add_ int alpha float", lambda L: L.tensor([1, 2]).add_(L.tensor([1, 2]), alpha=0.5), TypeError),
    ("unfold too large", lambda L: L.arange(4).unfold(0, 5, 1), ValueError),
    ("cat of ranks", lambda L: L.cat([L.ones(2, 2), L.ones(2)]), ValueError),
    ("hstack of ranks", lambda L: L.hstack([L.ones(5), L.ones(1, 5)]), ValueError),
    ("dot lengths", lambda L: L.dot(L.ones(9), L.ones(3)), ValueError),
    ("diagonal same dims", lambda L: L.diagonal(L.ones(3, 3, 3), 0, 1, 1), ValueError),
    ("movedim lengths", lambda L: L.movedim(L.ones(2, 3, 4), (0, 1), (1,)), ValueError),
    ("movedim repeated", lambda L: L.movedim(L.ones(2, 3, 4), (0, 0), (1, 2)), ValueError),
    ("amax repeated dims", lambda L: L.amax(L.ones(2, 3), (0, 0)), ValueError),
    ("amax of nothing", lambda L: L.amax(L.ones(5, 0, 5)), ValueError),
    ("narrow past the end", lambda L: L.narrow(L.ones(10), 0, 0, 11), ValueError),
    ("roll lengths", lambda L: L.roll(L.ones(3, 3), (2, 1), (0,)), ValueError),
    ("eye negative", lambda L: L.eye(-1), ValueError),
    ("where float condition", lambda L: L.where(L.ones(3), L.ones(3), L.zeros(3)), TypeError),
    ("huber delta", lambda L: L.nn.functional.huber_loss(L.ones(3), L.ones(3), delta=0.0), ValueError),
    ("gelu approximate", lambda L: L.nn.functional.gelu(L.ones(3), approximate="asdf"), ValueError),
    ("gradient edge_order", lambda L: L.gradient(L.ones(5), edge_order=3), ValueError),
    ("gradient too short", lambda L: L.gradient(L.ones(2), edge_order=2), ValueError),
    ("diff negative n", lambda L: L.diff(L.ones(5), n=-1), ValueError),
    # (weights are checked on the host only: on a GPU the check would wait for a copy)
    ("multinomial weights", lambda L: L.multinomial(L.tensor([-1.0, 2.0], device="cpu"), 1), ValueError),
    ("multinomial draws", lambda L: L.multinomial(L.tensor([1.0, 2.0]), 3), ValueError),
    ("linspace negative steps", lambda L: L.linspace(0, 1, -1), ValueError),
    ("adaptive output_size", lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(1, 2, 4, 4), ()), ValueError),
]


@pytest.mark.parametrize("name,call,standard", _CASES, ids=[c[0] for c in _CASES])
def test_error_is_pytorchs_type_and_the_standards(name, call, standard):
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(Exception) as got:
        call(S)
    assert isinstance(got.value, type(want.value)), (type(got.value).__mro__, type(want.value))
    assert isinstance(got.value, standard), type(got.value).__mro__


def test_the_array_api_namespace_raises_the_standards_types():
    # the same classes through `strided` itself: a ValueError/TypeError first
    with pytest.raises(ValueError):
        strided.concat([strided.ones((2, 2)), strided.ones(2)])
    with pytest.raises(ValueError, match="repeated axis"):
        strided.sum(strided.ones((2, 3)), axis=(0, 0))
    with pytest.raises(TypeError):
        strided.where(strided.ones(3), strided.ones(3), strided.zeros(3))
    with pytest.raises(ValueError):
        strided.max(strided.ones((0, 3)))
