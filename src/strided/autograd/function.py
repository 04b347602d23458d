"""``torch.autograd.function``: ``Function``, ``FunctionCtx``, ``InplaceFunction`` and
``once_differentiable``.

>>> import strided.torch as torch
>>> from strided.autograd.function import once_differentiable
>>> class Square(torch.autograd.Function):
...     @staticmethod
...     def forward(x):
...         return x * x
...     @staticmethod
...     def setup_context(ctx, inputs, output):
...         ctx.save_for_backward(inputs[0])
...     @staticmethod
...     @once_differentiable
...     def backward(ctx, g):
...         (x,) = ctx.saved_tensors
...         return 2 * x * g
>>> x = torch.tensor([3.0], requires_grad=True)
>>> Square.apply(x).sum().backward()
>>> x.grad.tolist()
[6.0]
"""

from __future__ import annotations

import functools

from .._core.array import Array
from ._function import Function, FunctionCtx
from ._graph import alias, requires_grad
from ._mode import STATE

__all__ = ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]

_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


class InplaceFunction(Function):
    """A ``Function`` whose instances carry an ``inplace`` flag (PyTorch's legacy base)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace


class _DelayedError(Function):
    """Passes its inputs through; differentiating through it raises ``msg`` (PyTorch's
    DelayedError node: the error comes when a second derivative is asked for, not before)."""

    @staticmethod
    def forward(ctx, msg, *arrays):
        ctx.msg = msg
        outs = tuple(alias(a) if type(a) is Array else a for a in arrays)
        return outs

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.msg)


def once_differentiable(fn):
    """Decorate a Function's ``backward``: it runs without recording, and a gradient of
    its results (a second derivative, ``create_graph=True``) raises instead of being
    silently wrong, as PyTorch's ``once_differentiable``."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = STATE.enabled
        STATE.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            STATE.enabled = prev
        if not prev or not any(requires_grad(a) for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        arrays = [o for o in outs if type(o) is Array and o._dtype.kind in "fc"]
        if not arrays:
            return outputs
        # The results were made without recording: as PyTorch does, each passes through a
        # node that raises when a second derivative flows into it, from a detached copy
        # that requires grad (so that the node is recorded at all).
        tied = list(_DelayedError.apply(_TWICE, *(a.detach().requires_grad_() for a in arrays)))
        it = iter(tied)
        res = tuple(next(it) if (type(o) is Array and o._dtype.kind in "fc") else o for o in outs)
        return res[0] if single else res

    return wrapper
