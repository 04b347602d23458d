"""``strided.torch.special`` against PyTorch 2.13's ``torch.special``: the names it shares
with ``torch`` are strided.torch's functions and give ``torch.special``'s values; its own
``ndtr``, ``entr`` and ``xlog1py`` give PyTorch's values and gradients (``entr``'s at 0 and
below included); a name it lacks is an AttributeError that names what it has."""

from __future__ import annotations

import numpy as np
import pytest

import strided.torch as st
from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

torch = pytest.importorskip("torch")
pytest.importorskip("scipy")

X = [-2.0, -1.0, -0.0, 0.0, 1e-3, 0.25, 0.5, 0.999, 1.0, 3.0, 40.0, np.inf, -np.inf, np.nan]


def close(got, want, rtol):
    g, w = host(got.detach()), want.detach().numpy()
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12, equal_nan=True)
    assert (np.isposinf(g) == np.isposinf(w)).all() and (np.isneginf(g) == np.isneginf(w)).all()


UNARY = ["digamma", "psi", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "log1p", "logit",
         "round", "sinc", "ndtr", "entr"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_values_are_torch_specials(name, dtype):
    a = np.array(X, dtype=dtype)
    rtol = 3e-6 if dtype == "float32" else 1e-13
    close(getattr(st.special, name)(st.tensor(a, device="cpu")), getattr(torch.special, name)(torch.tensor(a)), rtol)


def test_integer_inputs():
    for name in ("ndtr", "entr", "expit", "gammaln"):
        close(getattr(st.special, name)(st.tensor([0, 1, 2], device="cpu")),
              getattr(torch.special, name)(torch.tensor([0, 1, 2])), 3e-6)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_binary_values_are_torch_specials(name):
    a = np.array([0.0, 0.0, 0.0, 1.0, -2.0, 3.0, 0.5])
    b = np.array([0.0, -1.0, np.nan, -1.0, 0.5, np.inf, 2.0])
    close(getattr(st.special, name)(st.tensor(a, device="cpu"), st.tensor(b, device="cpu")),
          getattr(torch.special, name)(torch.tensor(a), torch.tensor(b)), 1e-13)


def test_reductions_and_softmax():
    a = np.random.default_rng(0).standard_normal((3, 4))
    for name, args in (("logsumexp", (1,)), ("softmax", (0,)), ("log_softmax", (1,))):
        close(getattr(st.special, name)(st.tensor(a, device="cpu"), *args),
              getattr(torch.special, name)(torch.tensor(a), *args), 1e-13)


@pytest.mark.parametrize("name", ["ndtr", "entr", "xlog1py"])
def test_own_functions_gradients_are_pytorchs(name):
    a = np.array([-0.5, 0.0, 0.3, 2.0])
    b = np.array([0.5, 1.0, -0.5, 3.0])
    x, t = st.tensor(a, requires_grad=True, device="cpu"), torch.tensor(a, requires_grad=True)
    if name == "xlog1py":
        y, u = st.tensor(b, requires_grad=True, device="cpu"), torch.tensor(b, requires_grad=True)
        st.special.xlog1py(x, y).sum().backward()
        torch.special.xlog1py(t, u).sum().backward()
        close(y.grad, u.grad, 1e-13)
    else:
        getattr(st.special, name)(x).sum().backward()
        getattr(torch.special, name)(t).sum().backward()
    close(x.grad, t.grad, 1e-13)


def test_shared_names_are_strided_torchs_functions():
    assert st.special.expit is st.sigmoid and st.special.gammaln is st.lgamma and st.special.psi is st.digamma
    from strided.torch.special import erf
    assert erf is st.erf


def test_a_missing_name_says_what_there_is():
    with pytest.raises(AttributeError, match="ndtr"):
        st.special.hermite_polynomial_h
    with pytest.raises(ImportError):
        from strided.torch.special import hermite_polynomial_h  # noqa: F401


@pytest.mark.parametrize("name", ["i0e", "i1", "i1e"])
def test_bessel_values_and_gradients_are_pytorchs(name):
    a = np.array([-30.0, -3.0, -0.5, 0.0, 0.3, 2.0, 10.0])
    x, t = st.tensor(a, requires_grad=True, device="cpu"), torch.tensor(a, requires_grad=True)
    close(getattr(st.special, name)(x), getattr(torch.special, name)(t), 1e-13)
    getattr(st.special, name)(x).sum().backward()
    getattr(torch.special, name)(t).sum().backward()
    close(x.grad, t.grad, 1e-12)  # (0 included: 1/2 for i1 and i1e, as PyTorch)


def test_i0_and_polygamma_are_shared():
    assert st.special.i0 is st.i0 and st.special.polygamma is st.polygamma


def test_a_python_number_is_refused_as_pytorch_does():
    for lib in (st, torch):
        with pytest.raises(TypeError):
            lib.special.ndtr(0.5)
