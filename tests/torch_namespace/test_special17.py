"""strided.torch's special functions (``erf``, ``erfc``, ``erfinv``, ``lgamma``,
``digamma``) against PyTorch 2.13: values of float16/float32/float64 and integer inputs
(special values, poles, tails), dtypes, first and second derivatives, ``out=`` and names."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")
pytest.importorskip("scipy")

NAMES = ["erf", "erfc", "erfinv", "lgamma", "digamma"]
GRID = {
    "erf": [-30.0, -3.0, -0.5, -0.0, 0.0, 1e-30, 0.3, 2.0, 5.0, 30.0, np.inf, -np.inf, np.nan],
    "erfc": [-30.0, -3.0, -0.5, 0.0, 0.3, 2.0, 5.0, 9.0, 26.0, 30.0, np.inf, -np.inf, np.nan],
    "erfinv": [-1.0, -0.999, -0.5, -0.0, 0.0, 1e-20, 0.3, 0.9999, 1.0, 1.5, -2.0, np.nan],
    "lgamma": [-2.5, -1.0, -0.5, 0.0, 1e-8, 0.5, 1.0, 2.0, 3.5, 100.0, 1e30, np.inf, -np.inf, np.nan],
    "digamma": [-2.5, -1.0, -0.5, 0.0, -0.0, 1e-8, 0.5, 1.0, 3.5, 100.0, 1e30, np.inf, np.nan],
}
TOL = {"float16": 1e-3, "float32": 3e-6, "float64": 1e-13}


def close(got, want, dtype, rtol=None, atol=1e-300):
    g, w = host(got.detach()), want.detach().numpy()
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol or TOL[dtype], atol=atol,
                               equal_nan=True)
    # (the same infinities, with their signs)
    assert (np.isposinf(g) == np.isposinf(w)).all() and (np.isneginf(g) == np.isneginf(w)).all()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_values_on_the_grid(name, dtype):
    with np.errstate(over="ignore"):  # (1e30 as float16: inf)
        a = np.array(GRID[name], dtype=dtype)
    close(getattr(st, name)(st.tensor(a, device="cpu")), getattr(torch, name)(torch.tensor(a)), dtype)


@settings(max_examples=60, deadline=None)
@given(name=hs.sampled_from(NAMES), v=hs.lists(hs.floats(-50, 50), min_size=1, max_size=8))
def test_drawn_values_float64(name, v):
    a = np.array(v)
    if name == "erfinv":
        a = np.tanh(a)
    # (an absolute bound too: lgamma's zeros at 1 and 2, digamma's at 1.46, make relative errors large)
    close(getattr(st, name)(st.tensor(a, device="cpu")), getattr(torch, name)(torch.tensor(a)), "float64",
          atol=1e-14)


@pytest.mark.parametrize("name", NAMES)
def test_integer_inputs_compute_in_the_default_float(name):
    a = [0, 1, 2] if name != "erfinv" else [0, 1, -1]
    close(getattr(st, name)(st.tensor(a, device="cpu")), getattr(torch, name)(torch.tensor(a)), "float32")


@pytest.mark.parametrize("name", NAMES)
def test_first_and_second_derivatives_are_pytorchs(name):
    a = np.array([0.3, 0.7, 2.5] if name != "erfinv" else [-0.4, 0.1, 0.8])
    x = st.tensor(a, requires_grad=True, device="cpu")
    t = torch.tensor(a, requires_grad=True)
    (gx,) = st.autograd.grad(getattr(st, name)(x).sum(), [x], create_graph=True)
    (gt,) = torch.autograd.grad(getattr(torch, name)(t).sum(), [t], create_graph=True)
    # (trigamma, digamma's derivative: PyTorch's is 4e-10 off mpmath's at 0.3, 12.24536454494 against
    # 12.24536454610773; SciPy's polygamma(1, .), strided's, agrees with mpmath to 1e-15)
    trigamma = 1e-9
    close(gx, gt, "float64", rtol=trigamma if name == "digamma" else None)
    (hx,) = st.autograd.grad(gx.sum(), [x])
    (ht,) = torch.autograd.grad(gt.sum(), [t])
    close(hx, ht, "float64", rtol=trigamma if name in ("lgamma", "digamma") else None)


def test_out_and_its_refusal_with_grad():
    out = st.empty(2, device="cpu")
    r = st.erf(st.tensor([0.5, 1.0], device="cpu"), out=out)
    assert r is out
    close(out, torch.erf(torch.tensor([0.5, 1.0])), "float32")
    x = st.tensor([0.5, 1.0], requires_grad=True, device="cpu")
    with pytest.raises(RuntimeError, match="out="):
        st.erf(x, out=st.empty(2, device="cpu"))
    with pytest.raises(RuntimeError):
        torch.erf(torch.tensor([0.5, 1.0], requires_grad=True), out=torch.empty(2))


def test_complex_inputs_raise_as_in_pytorch():
    for lib in (st, torch):
        with pytest.raises(RuntimeError):
            lib.erf(lib.tensor([1j]))


def test_names_are_kept():
    x = st.tensor([[0.5, 1.0]], device="cpu", names=("N", "C"))
    assert st.lgamma(x).names == ("N", "C")


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_values_and_derivative(n):
    # (poles, x = 0, -1, ...: strided gives inf for n >= 1, as mpmath's limit; PyTorch 2.13 a
    # finite 7e31 at -3 for n = 1, so the poles are checked apart)
    a = np.array([-2.5, -0.5, 1e-3, 0.3, 0.7, 2.0, 10.0])
    x, t = st.tensor(a, requires_grad=True, device="cpu"), torch.tensor(a, requires_grad=True)
    gx, gt = st.polygamma(n, x), torch.polygamma(n, t)
    rtol = 1e-13 if n == 0 else 1e-9  # (PyTorch's trigamma: 4e-10 off mpmath, above)
    close(gx, gt, "float64", rtol=rtol)
    gx.sum().backward()
    gt.sum().backward()
    close(x.grad, t.grad, "float64", rtol=1e-9)
    if n >= 1:
        assert np.isinf(host(st.polygamma(n, st.tensor([0.0, -1.0, -3.0], device="cpu")))).all()


def test_polygamma_refuses_a_negative_or_non_int_order():
    with pytest.raises(RuntimeError):
        torch.polygamma(-1, torch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="negative n"):
        st.polygamma(-1, st.tensor([1.0], device="cpu"))
    with pytest.raises(TypeError):
        st.polygamma(1.0, st.tensor([1.0], device="cpu"))


def test_i0_values_and_derivative():
    a = np.array([-30.0, -3.0, -0.5, 0.0, 0.3, 2.0, 10.0, 700.0])
    x, t = st.tensor(a, requires_grad=True, device="cpu"), torch.tensor(a, requires_grad=True)
    close(st.i0(x), torch.i0(t), "float64", rtol=1e-13)
    st.i0(x).sum().backward()
    torch.i0(t).sum().backward()
    close(x.grad, t.grad, "float64", rtol=1e-13)
    close(st.i0(st.tensor([1, 2], device="cpu")), torch.i0(torch.tensor([1, 2])), "float32")
