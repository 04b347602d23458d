"""The in-place forms the linear-algebra and special-function modules give Array
(``renorm_``, ``mvlgamma_``, ``addbmm_``, ``baddbmm_``) are the shared in-place form of
``_tensor_methods``: computed from a clone while autograd records, so the backward of
``x.clone().renorm_(...)`` reads the value before the write, as PyTorch's does (it raised
"modified by an inplace operation"); and PyTorch's dtype refusal before anything is written."""

from __future__ import annotations

import numpy as np
import pytest

import strided.torch as st
from _parity import to_numpy

torch = pytest.importorskip("torch")

WRITES = {
    "renorm_": lambda L, x: x.renorm_(2, 0, 4.0),
    "mvlgamma_": lambda L, x: x.add_(3).mvlgamma_(2),
    "addbmm_": lambda L, x: x.addbmm_(x.reshape(1, 2, 2) * 1, x.reshape(1, 2, 2) * 1, beta=0.5),
    "baddbmm_": lambda L, x: x.reshape(1, 2, 2).baddbmm_(x.reshape(1, 2, 2) * 1, x.reshape(1, 2, 2) * 1, alpha=2),
}


def _grad(L, write):
    a = L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
    x = a.clone() * 1
    write(L, x)
    (x * L.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=L.float64)).sum().backward()
    return a.grad


@pytest.mark.parametrize("name", sorted(WRITES))
def test_gradient_through_the_write_is_pytorchs(name):
    got, want = _grad(st, WRITES[name]), _grad(torch, WRITES[name])
    np.testing.assert_allclose(to_numpy(got), want.numpy(), rtol=1e-9)


@pytest.mark.parametrize("name, call", [("mvlgamma_", lambda x: x.mvlgamma_(1)),
                                        ("renorm_", lambda x: x.renorm_(2, 0, 1.0))])
def test_an_integer_self_is_refused_before_writing(name, call):
    x = st.tensor([[1, 2], [3, 4]])
    with pytest.raises((TypeError, RuntimeError), match="can't be cast|floating point"):
        call(x)
    assert x.tolist() == [[1, 2], [3, 4]]
