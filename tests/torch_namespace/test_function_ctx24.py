"""torch.autograd.Function's new-style form (forward without ctx, setup_context(ctx, inputs,
output)), its ctx methods (save_for_backward, needs_input_grad, mark_non_differentiable,
set_materialize_grads) and torch.autograd.function's once_differentiable / FunctionCtx,
each run through PyTorch 2.13 and strided.torch by the same code and compared."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch


def _np(t):
    return None if t is None else np.asarray(t.detach().tolist())


def _new_style(lib):
    seen = {}

    class MulK(lib.autograd.Function):
        @staticmethod
        def forward(x, y, k):
            return x * y * k, (x + y).sign()

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y, k = inputs
            seen["setup_grad_mode"] = lib.is_grad_enabled()
            seen["needs"] = ctx.needs_input_grad
            ctx.k = k
            ctx.save_for_backward(x, y)
            ctx.mark_non_differentiable(output[1])
            ctx.set_materialize_grads(False)

        @staticmethod
        def backward(ctx, g, g_sign):
            seen["g_sign"] = g_sign  # None: not materialized
            x, y = ctx.saved_tensors
            gx = g * y * ctx.k if ctx.needs_input_grad[0] else None
            gy = g * x * ctx.k if ctx.needs_input_grad[1] else None
            return gx, gy, None

    x = lib.tensor([1.0, 2.0, -0.5], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([3.0, -4.0, 0.25], dtype=lib.float64)
    a, s = MulK.apply(x, y, 2.5)
    seen["s_requires_grad"] = s.requires_grad
    seen["name"] = type(a.grad_fn).__name__
    (a * a).sum().backward()
    return seen, _np(a), _np(s), _np(x.grad)


def test_new_style_setup_context():
    st, *sv = _new_style(storch)
    tt, *tv = _new_style(torch)
    assert st["needs"] == tt["needs"] == (True, False, False), (st["needs"], tt["needs"])
    assert st["setup_grad_mode"] is tt["setup_grad_mode"] is False
    assert st["g_sign"] is None and tt["g_sign"] is None
    assert st["s_requires_grad"] is tt["s_requires_grad"] is False
    assert st["name"] == tt["name"] == "MulKBackward", (st["name"], tt["name"])
    for a, b in zip(sv, tv):
        np.testing.assert_array_equal(a, b)


def _materialized(lib):
    got = []

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            got.append(_np(g2))
            return g1 * 2 + g2 * 3

    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    a, _ = Two.apply(x)
    a.sum().backward()
    return got, _np(x.grad)


def test_materialize_grads_default_gives_zeros():
    (sg, sx), (tg, tx) = _materialized(storch), _materialized(torch)
    np.testing.assert_array_equal(sg[0], tg[0])
    np.testing.assert_array_equal(sg[0], [0.0, 0.0])
    np.testing.assert_array_equal(sx, tx)


def _once(lib, fn_module):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @fn_module.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g, lib.is_grad_enabled()

    class CubeOnly(Cube):
        @staticmethod
        @fn_module.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g

    x = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
    (g,) = lib.autograd.grad(CubeOnly.apply(x).sum(), x, create_graph=True)
    first = (_np(g), g.requires_grad)  # the seed does not require grad: nothing to guard
    v = lib.tensor([1.0, 0.5], dtype=lib.float64, requires_grad=True)
    (g,) = lib.autograd.grad(CubeOnly.apply(x), x, grad_outputs=v, create_graph=True)
    guarded = g.requires_grad
    with pytest.raises(RuntimeError, match="differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        g.sum().backward()
    return first, guarded, _np(g)


def test_once_differentiable():
    s = _once(storch, storch.autograd.function)
    t = _once(torch, torch.autograd.function)
    np.testing.assert_array_equal(s[0][0], t[0][0])
    assert s[0][1] is t[0][1] is False
    assert s[1] is t[1] is True
    np.testing.assert_array_equal(s[2], t[2])


def test_once_differentiable_backward_runs_without_recording():
    modes = []

    class Sq(storch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @storch.autograd.function.once_differentiable
        def backward(ctx, g):
            modes.append(storch.is_grad_enabled())
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = storch.tensor([1.5], requires_grad=True)
    storch.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    assert modes == [False]


def test_function_ctx_is_the_ctx_type():
    seen = []

    class Id(storch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(isinstance(ctx, storch.autograd.function.FunctionCtx))
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    Id.apply(storch.ones(2, requires_grad=True))
    assert seen == [True]
    assert storch.autograd.function.Function is storch.autograd.Function


def test_save_for_backward_rejects_non_arrays():
    class Bad(storch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0], 3)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(TypeError, match="save_for_backward"):
        Bad.apply(storch.ones(2, requires_grad=True))


def _vjp_forms(lib):
    class ByVjp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 7

    class Both(ByVjp):
        @staticmethod
        def backward(ctx, g):
            return g * 3

    class Neither(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    a = lib.ones(2, requires_grad=True)
    ByVjp.apply(a).sum().backward()
    out = [a.grad.tolist()]
    for cls, exc in ((Both, RuntimeError), (Neither, NotImplementedError)):
        with pytest.raises(exc) as info:
            cls.apply(a).sum().backward()
        out.append(str(info.value))
    return out


def test_vjp_instead_of_backward():
    s, t = _vjp_forms(storch), _vjp_forms(torch)
    assert s == t, (s, t)
    assert s[0] == [7.0, 7.0]
