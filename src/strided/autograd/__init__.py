"""Reverse-mode automatic differentiation (PyTorch's autograd API) as an extension.

The core never imports this package: it plugs into dispatch with a handler
that runs only for operations on arrays carrying metadata, and it is
registered the first time an array requires grad.

>>> import strided as xp
>>> x = xp.ones(2, 2, requires_grad=True)
>>> out = ((x + 2) * (x + 2) * 3).mean()
>>> out.backward()
>>> x.grad.tolist()
[[4.5, 4.5], [4.5, 4.5]]

Known differences from PyTorch:

- Views are tracked only when recorded (an input required grad and grad mode
  was on). An in-place write of a value that requires grad into a view taken
  under ``no_grad()`` (or before its base required grad) gives the view a
  history, not its base.
- ``x.real`` / ``x.imag`` / ``x.view(dtype)`` reinterpret the memory through
  another Storage object that shares ``x``'s version counter (so a saved value
  modified through them is detected); an in-place operation on such a view of
  an array that requires grad raises instead of rebasing ``x``'s history, as
  PyTorch does.
- ``x.data`` is a new Storage object over the same memory (its own version
  counter, as PyTorch's ``.data``), so ``x.data.storage() is not x.storage()``.
"""

from __future__ import annotations

import sys

import numpy as np

import strided as _S

from .._core.array import Array
from ._function import Function, FunctionCtx
from ._gradcheck import gradcheck, gradgradcheck
from ._graph import AccumulateGrad, Node, ViewInfo, edge_of, run_backward
from ._mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ._record import NONDIFF, RULES
from . import _tensor
from ._tensor import install_methods
from . import _rules  # noqa: F401  (fills RULES)
from . import functional  # noqa: F401  (torch.autograd.functional)
from . import function  # noqa: F401  (torch.autograd.function: once_differentiable, FunctionCtx)
from . import graph  # noqa: F401  (torch.autograd.graph: Node, saved_tensors_hooks)
from . import anomaly_mode  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401

__all__ = [
    "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "inference_mode", "Function", "FunctionCtx", "gradcheck", "gradgradcheck", "Node",
    "AccumulateGrad", "RULES", "NONDIFF", "detect_anomaly", "set_detect_anomaly",
]


def _as_list(x):
    if type(x) is Array:
        return [x]
    return list(x)


def _make_grads(outputs, grads, what="output"):
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if o.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if o._dtype.kind == "c":
                raise RuntimeError("grad can be implicitly created only for real scalar outputs")
            if o._device.type == "cpu":  # the seed of loss.backward(), without ones_like's checks
                a = np.empty(o._shape, o._dtype._np)
                a.fill(1)
                g = Array._wrap(a, o._dtype, o._device)
            else:
                g = _S.ones_like(o)
        elif type(g) is not Array:
            g = _S.full(o._shape, g, dtype=o._dtype, device=o._device)
        elif g._shape != o._shape:
            raise RuntimeError(f"Mismatch in shape: grad_{what}[{i}] has a shape of {tuple(g._shape)} and "
                               f"{what}[{i}] has a shape of {tuple(o._shape)}.")
        out.append(g)
    return out


def _roots(outputs):
    roots = []
    for i, o in enumerate(outputs):
        if type(o) is not Array:
            raise TypeError(f"backward(): element {i} is a {type(o).__name__}, not an array")
        edge = edge_of(o)
        if edge[0] is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append(edge)
    return roots


def _start(outputs, grads, what: str):
    """Outputs as a list, their graph roots, and the seed gradients (checked in number)."""
    outputs = _as_list(outputs)
    grads = [None] * len(outputs) if grads is None else _as_list(grads)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(grads)} " + what.format(len(outputs)))
    return outputs, _roots(outputs), _make_grads(outputs, grads)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None) -> None:
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad`` (or only into ``inputs``)."""
    if grad_tensors is None and inputs is None and create_graph is False and type(tensors) is Array:
        # loss.backward(): a real 0-d result with history, on the host (not a view) --
        # _start's root and seed without its frames: edge_of's (grad_fn, output_nr) and
        # _make_grads' ones.
        e = tensors._ext
        if e is not None and e.grad_fn is not None and e.requires_grad and type(e.is_view) is not ViewInfo \
                and tensors._shape == () and tensors._dtype.kind == "f" and tensors._device.type == "cpu":
            a = np.empty((), tensors._dtype._np)
            a.fill(1)
            run_backward([(e.grad_fn, e.output_nr)], [Array._wrap(a, tensors._dtype, tensors._device)],
                         False if retain_graph is None else retain_graph, False)
            return
    outputs, roots, grads = _start(tensors, grad_tensors, "gradients for {} tensors")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_list(inputs)
        if not inputs:
            raise RuntimeError("backward(): inputs= must be a non-empty sequence of arrays")
    run_backward(roots, grads, retain_graph, create_graph, inputs=inputs)


_tensor._backward_fn = backward  # Array.backward's target, bound once (no import per call)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, materialize_grads=False) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs`` (``.grad`` is left untouched)."""
    from .. import zeros_like
    outs, roots, gs = _start(outputs, grad_outputs, "grad_outputs entries for {} outputs")
    ins = _as_list(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    res = run_backward(roots, gs, retain_graph, create_graph, inputs=ins, capture=True,
                       allow_unused=allow_unused)
    if materialize_grads:
        res = [zeros_like(x) if g is None else g for x, g in zip(ins, res)]
    return tuple(res)


install_methods()

# PyTorch spells the grad modes at the top level too (torch.no_grad()): so does strided.
_ns = sys.modules[__name__.rsplit(".", 1)[0]]
for _name in ("no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode"):
    setattr(_ns, _name, globals()[_name])
