"""More of PyTorch's names that programs call and ``strided.torch`` lacked: ``torch.range``
(deprecated, end included), ``torch.fill``, ``torch.embedding`` and ``torch.bilinear`` (the
``nn.functional`` ones with ``torch``'s argument order), ``torch.nonzero_static``,
``torch.cond`` (eager), ``torch.is_inference``, ``torch.set_warn_always`` /
``is_warn_always_enabled``, ``torch.init_num_threads``, and the methods ``x.narrow_copy``,
``x.hardshrink`` and ``x.prelu``. Each means what PyTorch 2.13's does, composed of strided's
functions (gradients, devices and dtypes come from those calls).

>>> import strided.torch as torch
>>> torch.nonzero_static(torch.tensor([0, 3, 0, 5]), size=3).tolist()
[[1], [3], [-1]]
"""

from __future__ import annotations

import math
import sys
import warnings

from .._core.array import Array
from .._core.caller import stacklevel
from ._checks import tensor as _tensor

__all__ = ["range", "fill", "embedding", "bilinear", "nonzero_static", "cond", "is_inference",
           "set_warn_always", "is_warn_always_enabled", "init_num_threads"]

_STATE = {"warn_always": False}
_RANGE_DEPRECATED = ("torch.range is deprecated and will be removed in a future release because its "
                     "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
                     "which produces values in [start, end).")  # (PyTorch's words)


def _t():
    return sys.modules["strided.torch"]


def range(start, end, step=1, *, out=None, dtype=None, layout=None, device=None,  # noqa: A001
          requires_grad=False):
    """``torch.range(start, end, step=1)`` (deprecated in PyTorch, with its warning): the values
    ``start, start + step, ...`` up to ``end`` included, in the default float dtype unless
    ``dtype`` is given (``torch.arange`` excludes ``end``)."""
    warnings.warn(_RANGE_DEPRECATED, UserWarning, stacklevel=stacklevel())
    from ._layouts import check_factory
    check_factory("range", layout, False)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    t = _t()
    n = int(math.floor((end - start) / step)) + 1
    dt = dtype if dtype is not None else t.get_default_dtype()
    # (PyTorch's kernel: start + i * step in double for a floating result)
    r = t.arange(n, dtype=t.float64, device=device) * step + start
    r = r.to(dt)
    if requires_grad:
        r.requires_grad_(True)
    if out is not None:
        from ._functions import _write
        return _write("range", r, out)
    return r


def fill(input, value):
    """``torch.fill(input, value)``: a new array of ``input``'s shape, dtype and layout filled
    with ``value`` (a number or a 0-d array)."""
    x = _tensor("fill", input)
    t = _t()
    if type(value) is Array:
        if value.ndim != 0:
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        value = value.to(x.dtype)
    elif not (x.requires_grad and t.is_grad_enabled()):
        return t.full_like(x, value)
    # (in the graph as PyTorch's FillBackward: a zero derivative for input, the sum of the
    # gradient for a 0-d value array)
    return t.where(t.ones_like(x, dtype=t.bool), value, x)


def embedding(weight, input, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding(weight, input, padding_idx=-1, ...)``: ``nn.functional.embedding`` with
    ``weight`` first (a negative ``padding_idx`` is none, as in ATen's op)."""
    return _t().nn.functional.embedding(input, weight, padding_idx=None if padding_idx < 0 else padding_idx,
                                        scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def bilinear(input1, input2, weight, bias=None):
    """``torch.bilinear(input1, input2, weight, bias=None)``: ``nn.functional.bilinear``."""
    return _t().nn.functional.bilinear(input1, input2, weight, bias)


def nonzero_static(input, *, size, fill_value=-1):
    """``torch.nonzero_static(input, *, size, fill_value=-1)``: ``nonzero(input)`` cut or padded
    with ``fill_value`` to ``size`` rows."""
    x = _tensor("nonzero_static", input)
    if type(size) is not int or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")  # (PyTorch's words)
    t = _t()
    nz = t.nonzero(x)
    k = nz.shape[0]
    if k >= size:
        return nz[:size].contiguous()
    pad = t.full((size - k, max(x.ndim, 1) if x.ndim else 0), fill_value, dtype=t.int64, device=x.device)
    return t.cat([nz, pad], 0)


def cond(pred, true_fn, false_fn, operands=()):
    """``torch.cond(pred, true_fn, false_fn, operands)``, eagerly: ``true_fn(*operands)`` where
    ``pred`` (a bool or a one-element array) is true, else ``false_fn(*operands)``."""
    if type(pred) is Array:
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred!r}.")
        pred = bool(pred.item())
    elif not isinstance(pred, (bool, int)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred!r}.")
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(f"Expect operands to be a tuple of possibly nested dict/list/tuple that only "
                           f"consists of tensor leaves, but got {operands}.")
    return (true_fn if pred else false_fn)(*operands)


def is_inference(input) -> bool:
    """``torch.is_inference(input)``: ``input.is_inference()``."""
    return _tensor("is_inference", input).is_inference()


def set_warn_always(b: bool) -> None:
    """``torch.set_warn_always(b)``: the flag ``is_warn_always_enabled`` reads (strided's own
    warnings are Python's, shown as Python's filters say)."""
    _STATE["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    """``torch.is_warn_always_enabled()``: the flag last set (False at start)."""
    return _STATE["warn_always"]


def init_num_threads() -> None:
    """``torch.init_num_threads()``: nothing to do (strided's pool starts on first use)."""


def _narrow_copy(self, dim, start, length):
    """PyTorch's ``x.narrow_copy(dim, start, length)``: ``torch.narrow_copy``."""
    return _t().narrow_copy(self, dim, start, length)


def _hardshrink(self, lambd=0.5):
    """PyTorch's ``x.hardshrink(lambd=0.5)``: ``nn.functional.hardshrink``."""
    return _t().nn.functional.hardshrink(self, lambd)


def _prelu(self, weight):
    """PyTorch's ``x.prelu(weight)``: ``nn.functional.prelu``."""
    return _t().nn.functional.prelu(self, weight)


Array.narrow_copy = _narrow_copy
Array.hardshrink = _hardshrink
Array.prelu = _prelu
