"""Second derivatives of elu, celu and selu (and their in-place forms) against PyTorch 2.13
and against central differences of strided's own first derivative.

PyTorch's elu_double_backward keeps the exponential branch only where x < 0: at x == 0
the first derivative is the exponential branch's (alpha * input_scale * scale) but the
second is 0. The points include 0, -0.0, the values either side of it and ordinary ones.
"""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch

XS = np.array([-3.0, -2.0, -0.5, -1e-3, -0.0, 0.0, 1e-3, 0.7, 2.5], dtype=np.float64)
W = np.linspace(0.5, 1.5, len(XS))  # the direction the second derivative is taken along

ACTS = {
    "elu": lambda F, x: F.elu(x, alpha=1.3),
    "celu": lambda F, x: F.celu(x, alpha=0.7),
    "selu": lambda F, x: F.selu(x),
    "elu_": lambda F, x: F.elu(x * 1.0, alpha=1.3, inplace=True),
    "celu_": lambda F, x: F.celu(x * 1.0, alpha=0.7, inplace=True),
    "selu_": lambda F, x: F.selu(x * 1.0, inplace=True),
}


def _grads(lib, f, xs):
    x = lib.tensor(xs, requires_grad=True)
    (g,) = lib.autograd.grad(f(lib.nn.functional, x).sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad((g * lib.tensor(W)).sum(), x)
    return np.asarray(g.detach().tolist()), np.asarray(gg.tolist())


@pytest.mark.parametrize("name", list(ACTS))
def test_second_derivative_matches_torch(name):
    g_t, gg_t = _grads(torch, ACTS[name], XS)
    g_s, gg_s = _grads(storch, ACTS[name], XS)
    # celu's first derivative: PyTorch's rule divides by alpha rounded to float32
    # (1.0 / alpha.toFloat()), a relative 3e-8 in float64; strided divides exactly.
    np.testing.assert_allclose(g_s, g_t, rtol=1e-7, atol=0, err_msg=f"{name}: first derivative")
    np.testing.assert_allclose(gg_s, gg_t, rtol=1e-7, atol=0, err_msg=f"{name}: second derivative")
    assert gg_s[XS == 0].tolist() == [0.0, 0.0], f"{name}: the second derivative at 0 is not 0"


@pytest.mark.parametrize("name", ["elu", "celu", "selu"])
def test_second_derivative_matches_central_differences(name):
    # Away from 0 (the kink of the first derivative), in float64: the derivative of
    # strided's first derivative by central differences, step 1e-6.
    xs = XS[np.abs(XS) > 1e-2]
    h = 1e-6

    def first(v):
        x = storch.tensor(v, requires_grad=True)
        (g,) = storch.autograd.grad(ACTS[name](storch.nn.functional, x).sum(), x)
        return np.asarray(g.tolist())

    fd = (first(xs + h) - first(xs - h)) / (2 * h)
    x = storch.tensor(xs, requires_grad=True)
    (g,) = storch.autograd.grad(ACTS[name](storch.nn.functional, x).sum(), x, create_graph=True)
    (gg,) = storch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(np.asarray(gg.tolist()), fd, rtol=1e-6, atol=1e-8, err_msg=name)


PIECEWISE_LINEAR = {
    "relu": lambda lib, x: lib.relu(x),
    "relu_module_inplace": lambda lib, x: lib.nn.ReLU(inplace=True)(x * 1.0),
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x, 0.1),
    "hardtanh": lambda lib, x: lib.nn.functional.hardtanh(x, -0.5, 0.5),
    "relu6": lambda lib, x: lib.nn.functional.relu6(x * 4),
    "hardshrink": lambda lib, x: lib.nn.functional.hardshrink(x, 0.4),
    "softshrink": lambda lib, x: lib.nn.functional.softshrink(x, 0.4),
    "threshold": lambda lib, x: lib.nn.functional.threshold(x, 0.1, -2.0),
    "prelu": lambda lib, x: lib.nn.functional.prelu(x, lib.tensor([0.25], dtype=lib.float64)),
}


@pytest.mark.parametrize("name", list(PIECEWISE_LINEAR))
def test_piecewise_linear_gradient_requires_grad_with_zero_second_derivative(name):
    # PyTorch's threshold/leaky_relu/hardtanh backward depend on the input with derivative
    # zero: under create_graph the gradient requires grad and differentiating it gives zeros
    # (not an error that it does not require grad).
    out = []
    for lib in (torch, storch):
        x = lib.tensor(XS, requires_grad=True)
        (g,) = lib.autograd.grad(PIECEWISE_LINEAR[name](lib, x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * lib.tensor(W)).sum(), x)
        out.append((g.requires_grad, np.asarray(g.detach().tolist()), np.asarray(gg.tolist())))
    (tr, tg, tgg), (sr, sg, sgg) = out
    assert sr is tr is True
    np.testing.assert_array_equal(sg, tg)
    np.testing.assert_array_equal(sgg, tgg)
    np.testing.assert_array_equal(sgg, np.zeros_like(XS))
