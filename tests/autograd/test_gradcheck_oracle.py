"""gradcheck is an oracle that can fail: a wrong backward makes it raise.

About 570 cases of the suite rest on ``strided.autograd.gradcheck`` and
``gradgradcheck``. Here each is shown a derivative that is wrong in one of the
ways derivatives go wrong (off by a factor, a missing product-rule term, a
wrong sign, a missing conjugate, a wrong reduction over broadcast dimensions,
wrong at one element only, a backward that is not itself differentiable) and
must raise ``GradcheckError``; the right derivative of the same function, in
the same place, must pass. A rule of the derivative table swapped for a wrong
one is caught too, so the ~570 table-driven cases could fail.
"""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided import autograd as ag
from strided.autograd._gradcheck import GradcheckError
from strided.autograd import _record


def leaf(values, dtype=xp.float64):
    return xp.tensor(values, dtype=dtype, requires_grad=True)


def _sin_fn(backward):
    """A custom Function computing sin(x) whose backward is ``backward(g, x)``."""

    class Sin(ag.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return xp.sin(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return backward(g, x)

    return Sin


# f(x) = sin(x): the right derivative and four wrong ones
SIN_BACKWARDS = {
    "right": lambda g, x: g * xp.cos(x),
    "factor 1.01": lambda g, x: g * xp.cos(x) * 1.01,
    "factor 2": lambda g, x: 2 * g * xp.cos(x),
    "wrong sign": lambda g, x: -g * xp.cos(x),
    "wrong function": lambda g, x: g * xp.sin(x),
    "one element wrong": lambda g, x: g * xp.cos(x) + xp.asarray(
        [0.0, 0.0, 1e-2, 0.0], dtype=x.dtype),
}


@pytest.mark.parametrize("name", sorted(SIN_BACKWARDS))
def test_gradcheck_raises_for_wrong_elementwise_backward(name):
    fn = _sin_fn(SIN_BACKWARDS[name])
    x = leaf([0.3, -1.2, 0.7, 2.1])
    if name == "right":
        assert ag.gradcheck(fn.apply, (x,))
        return
    with pytest.raises(GradcheckError, match="gradcheck failed for input 0"):
        ag.gradcheck(fn.apply, (x,))
    assert ag.gradcheck(fn.apply, (x,), raise_exception=False) is False


class XSinX(ag.Function):
    """f(x) = x * sin(x); ``missing`` drops the x * cos(x) term of the product rule."""

    missing = False

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * xp.sin(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        d = xp.sin(x) if XSinX.missing else xp.sin(x) + x * xp.cos(x)
        return g * d


@pytest.mark.parametrize("missing", [False, True])
def test_gradcheck_raises_for_missing_product_rule_term(missing, monkeypatch):
    monkeypatch.setattr(XSinX, "missing", missing)
    x = leaf([[0.5, -0.25], [1.5, 3.0]])
    if not missing:
        assert ag.gradcheck(XSinX.apply, (x,))
    else:
        with pytest.raises(GradcheckError):
            ag.gradcheck(XSinX.apply, (x,))


class AddRow(ag.Function):
    """f(x, b) = x + b with b of shape (n,) broadcast over x's rows.

    b's gradient sums g over the broadcast (first) axis; ``mode="mean"`` averages
    it instead, ``mode="first"`` takes row 0 only: both have b's shape, so only
    the values can tell them from the right one.
    """

    mode = "sum"

    @staticmethod
    def forward(ctx, x, b):
        return x + b

    @staticmethod
    def backward(ctx, g):
        if AddRow.mode == "sum":
            gb = xp.sum(g, axis=0)
        elif AddRow.mode == "mean":
            gb = xp.mean(g, axis=0)
        else:
            gb = g[0]
        return g, gb


@pytest.mark.parametrize("mode", ["sum", "mean", "first"])
def test_gradcheck_raises_for_broadcasting_mistake(mode, monkeypatch):
    monkeypatch.setattr(AddRow, "mode", mode)
    x = leaf(np.linspace(-1, 1, 12).reshape(3, 4))
    b = leaf([0.1, 0.2, 0.3, 0.4])
    if mode == "sum":
        assert ag.gradcheck(AddRow.apply, (x, b))
        return
    with pytest.raises(GradcheckError, match="for input 1 .shape .4,.."):
        ag.gradcheck(AddRow.apply, (x, b))


class Square(ag.Function):
    """f(z) = z * z on complex z: PyTorch's convention needs g * conj(2 z)."""

    conj = True

    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        return z * z

    @staticmethod
    def backward(ctx, g):
        (z,) = ctx.saved_tensors
        d = 2 * z
        return g * (xp.conj(d) if Square.conj else d)


@pytest.mark.parametrize("conj", [True, False])
def test_gradcheck_raises_for_missing_conjugate(conj, monkeypatch):
    monkeypatch.setattr(Square, "conj", conj)
    z = leaf([0.5 + 1.0j, -0.3 + 0.2j], dtype=xp.complex128)
    if conj:
        assert ag.gradcheck(Square.apply, (z,))
    else:
        with pytest.raises(GradcheckError):
            ag.gradcheck(Square.apply, (z,))


class MulRow(ag.Function):
    """f(x, b) = x * b with b of shape (n,): ``bw`` gives the backward."""

    bw = None

    @staticmethod
    def forward(ctx, x, b):
        ctx.save_for_backward(x, b)
        return x * b

    @staticmethod
    def backward(ctx, g):
        x, b = ctx.saved_tensors
        return MulRow.bw(g, x, b)


def test_gradcheck_on_gradients_of_the_broadcast_shape(monkeypatch):
    x = leaf(np.linspace(-1, 1, 12).reshape(3, 4))
    b = leaf([1.0, 2.0, 3.0, 4.0])
    # The engine sums a gradient of the broadcast shape down to b's shape, as it does
    # for the table's rules (a departure from PyTorch, which raises): right values pass.
    monkeypatch.setattr(MulRow, "bw", staticmethod(lambda g, x, b: (g * b, g * x)))
    assert ag.gradcheck(MulRow.apply, (x, b))
    # x's gradient not multiplied by b: wrong values for input 0
    monkeypatch.setattr(MulRow, "bw", staticmethod(lambda g, x, b: (g, g * x)))
    with pytest.raises(GradcheckError, match="for input 0"):
        ag.gradcheck(MulRow.apply, (x, b))
    # a gradient that cannot be summed to b's shape names both shapes
    monkeypatch.setattr(MulRow, "bw",
                        staticmethod(lambda g, x, b: (g * b, xp.matrix_transpose(g * x))))
    with pytest.raises(RuntimeError, match=r"shape \(4, 3\) can't be summed to the input's shape \(4,\)"):
        ag.gradcheck(MulRow.apply, (x, b))


class CubeFirstOrderOnly(ag.Function):
    """f(x) = x**3 with a right first derivative computed without a graph.

    Its backward detaches x, so the derivative of the derivative is zero instead
    of 6 x g: gradcheck passes, gradgradcheck must raise.
    """

    detach = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if CubeFirstOrderOnly.detach:
            x = x.detach()
        return 3 * g * x * x


@pytest.mark.parametrize("detach", [False, True])
def test_gradgradcheck_raises_for_wrong_second_derivative(detach, monkeypatch):
    monkeypatch.setattr(CubeFirstOrderOnly, "detach", detach)
    x = leaf([0.5, -1.5, 2.0])
    assert ag.gradcheck(CubeFirstOrderOnly.apply, (x,))  # first order is right either way
    if not detach:
        assert ag.gradgradcheck(CubeFirstOrderOnly.apply, (x,))
    else:
        with pytest.raises(GradcheckError):
            ag.gradgradcheck(CubeFirstOrderOnly.apply, (x,))


# --- the derivative table itself: a wrong rule is caught ------------------------------------------

WRONG_RULES = [
    # (function, parameter, wrong formula with the right formula's parameters, inputs)
    ("sin", "x", lambda g, x: g * xp.cos(x) * 1.01, [0.3, -1.1, 2.0]),
    ("exp", "x", lambda g, result: -g * result, [0.3, -1.1, 2.0]),
    ("multiply", "x2", lambda g, x1: g * x1 * 0.5, None),
]


def _args(name, values):
    if values is not None:
        return (leaf(values),)
    return leaf([[0.5, 1.5, -2.0]]), leaf([[1.0], [-0.5]])


@pytest.mark.parametrize("name,param,wrong,values", WRONG_RULES, ids=[w[0] for w in WRONG_RULES])
def test_gradcheck_catches_a_wrong_rule_of_the_table(name, param, wrong, values, monkeypatch):
    fn = getattr(xp, name)
    args = _args(name, values)
    assert ag.gradcheck(fn, args)  # the table's own rule passes
    rule = _record.RULES[name]
    right = rule.formulas[param]
    # the wrong formula must name the same values as the right one (what the node saves)
    assert _record._params(wrong) == _record._params(right)
    monkeypatch.setitem(rule.formulas, param, wrong)
    monkeypatch.setattr(rule, "plans", {})
    with pytest.raises(GradcheckError):
        ag.gradcheck(fn, _args(name, values))
