"""PyTorch's ``clamp_min``/``clamp_max`` (function and method) against PyTorch 2.13: values,
dtypes and gradients for scalar and tensor bounds, NaN in either operand, and the refusal
of a missing bound (PyTorch: "clamp_min() missing 1 required positional arguments")."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

_X = np.array([-2.0, -0.0, 0.0, 0.5, np.nan, 3.0, -7.25, np.inf], np.float32)


def _pair(a, grad=False):
    t = torch.tensor(a, requires_grad=grad)
    s = st.tensor(a, device="cpu")
    if grad:
        s.requires_grad_()
    return t, s


@pytest.mark.parametrize("name", ["clamp_min", "clamp_max"])
@pytest.mark.parametrize("bound", [0.0, -1, 2.5, float("nan"), "tensor", "row"])
@pytest.mark.parametrize("form", ["function", "method"])
def test_values_and_gradients_are_pytorchs(name, bound, form):
    t, s = _pair(_X, grad=True)
    if bound == "tensor":
        b = np.linspace(-3, 3, _X.size).astype(np.float32)
        tb, sb = torch.tensor(b), st.tensor(b, device="cpu")
    elif bound == "row":
        tb, sb = torch.tensor(np.float32(0.25)), st.tensor(np.float32(0.25), device="cpu")
    else:
        tb = sb = bound
    tr = getattr(torch, name)(t * 1.0, tb) if form == "function" else getattr(t * 1.0, name)(tb)
    sr = getattr(st, name)(s * 1.0, sb) if form == "function" else getattr(s * 1.0, name)(sb)
    assert str(sr.dtype).split(".")[-1] == str(tr.dtype).split(".")[-1]
    np.testing.assert_array_equal(np.asarray(sr.detach()), tr.detach().numpy())
    tr.sum().backward()
    sr.sum().backward()
    np.testing.assert_array_equal(np.asarray(s.grad), t.grad.numpy())


@pytest.mark.parametrize("name", ["clamp_min", "clamp_max"])
def test_integers_and_keywords(name):
    a = np.arange(-5, 6, dtype=np.int64)
    t, s = torch.tensor(a), st.tensor(a, device="cpu")
    key = name.split("_")[1]
    np.testing.assert_array_equal(np.asarray(getattr(st, name)(s, **{key: 2})), getattr(torch, name)(t, **{key: 2}).numpy())


@pytest.mark.parametrize("name", ["clamp_min", "clamp_max"])
def test_a_missing_bound_is_refused_as_pytorch_refuses_it(name):
    t, s = torch.tensor(_X), st.tensor(_X, device="cpu")
    with pytest.raises(TypeError):
        getattr(torch, name)(t)
    with pytest.raises(TypeError):
        getattr(st, name)(s)
    with pytest.raises(TypeError):
        getattr(s, name)()
    with pytest.raises(TypeError, match=f"{name}\\(\\): .* not None"):
        getattr(st, name)(s, None)
