"""``torch.autograd.variable``: PyTorch's deprecated ``Variable``.

``Variable(data=None, requires_grad=False, volatile=False)`` returns ``data.detach()`` (the
same memory and version counter, no history) with ``requires_grad`` set, as PyTorch 2.13
does; ``volatile=True`` only warns (it was removed). ``Variable()`` is an empty float
tensor; data that is not a tensor raises TypeError. ``isinstance(x, Variable)`` is true for
every tensor.

>>> import strided.torch as torch
>>> from strided.torch.autograd.variable import Variable
>>> v = Variable(torch.tensor([1.0, 2.0]))
>>> v.requires_grad, isinstance(v, Variable)
(False, True)
"""

from __future__ import annotations

import warnings

from ..._core.array import Array
from ..._core.caller import stacklevel

__all__ = ["VariableMeta", "Variable"]


class VariableMeta(type):
    """The metaclass of ``Variable``: every strided array is an instance; calling it
    detaches its data."""

    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Array)

    def __call__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=stacklevel())
        if data is None:
            import strided
            return strided.empty(0, dtype=strided.get_default_dtype())
        if not isinstance(data, Array):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


class Variable(metaclass=VariableMeta):
    """PyTorch's deprecated ``torch.autograd.Variable``: a tensor (see the module)."""
