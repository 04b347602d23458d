"""0-d arrays in PyTorch's words that take them as one element of a 1-d array (PyTorch 2.13):
``movedim`` (dimension 0 or -1: a view), ``nonzero`` (``(n, 0)``; ``as_tuple``: ``([0],)`` or
``([],)``), ``where(condition)`` and ``argwhere``. The standard's ``moveaxis`` and
``nonzero`` keep refusing a 0-d array, as the standard and NumPy do."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided as xp  # noqa: E402
import strided.torch as S  # noqa: E402

CASES = [
    lambda L: L.movedim(L.tensor(3.0), 0, 0), lambda L: L.movedim(L.tensor(3.0), -1, 0),
    lambda L: L.movedim(L.tensor(3.0), 1, 0), lambda L: L.movedim(L.tensor(3.0), (0,), (-1,)),
    lambda L: L.movedim(L.tensor(3.0), (0, 1), (0, 1)), lambda L: L.tensor(3.0).movedim(0, -1),
    lambda L: L.nonzero(L.tensor(3.0)), lambda L: L.nonzero(L.tensor(0.0)),
    lambda L: L.tensor(True).nonzero(), lambda L: L.nonzero(L.tensor(3.0), as_tuple=True),
    lambda L: L.nonzero(L.tensor(0), as_tuple=True), lambda L: L.tensor(2.5).nonzero(as_tuple=True),
    lambda L: L.where(L.tensor(True)), lambda L: L.where(L.tensor(False)),
    lambda L: L.argwhere(L.tensor(2)), lambda L: L.argwhere(L.tensor(0)),
]


def _outcome(f, L):
    try:
        r = f(L)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__.replace("Error", "")  # (IndexError on both sides)
    rs = r if isinstance(r, tuple) else (r,)
    return tuple((tuple(a.shape), str(a.dtype).split(".")[-1], np.asarray(a.tolist()).tolist()) for a in rs)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_zero_d_like_pytorch(i):
    assert _outcome(CASES[i], S) == _outcome(CASES[i], torch)


def test_movedim_of_zero_d_is_a_differentiable_view():
    x = S.tensor(3.0, requires_grad=True)
    y = S.movedim(x, 0, -1)
    assert y.data_ptr() == x.data_ptr() and y.grad_fn is not None
    (y * 2).backward()
    assert float(x.grad) == 2.0


def test_the_standard_refuses_zero_d_as_before():
    with pytest.raises((ValueError, IndexError)):
        xp.moveaxis(xp.asarray(3.0), 0, 0)
    with pytest.raises(ValueError):
        xp.nonzero(xp.asarray(3.0))
