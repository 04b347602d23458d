"""``Parameter``: an array that a ``Module`` registers as one of its parameters.

strided's ``Array`` is one final type (its fast paths test ``type(x) is
Array``), so a parameter is not a subclass: ``Parameter(data)`` returns a
strided array that shares ``data``'s storage, is a leaf, requires grad
(unless told otherwise) and is remembered (weakly) as a parameter, so that
``isinstance(p, nn.Parameter)`` is true for it and for no other array.

Invariant: ``isinstance(x, Parameter)`` is true exactly for the arrays
``Parameter(...)`` returned and that are still alive.
"""

from __future__ import annotations

import weakref

import strided as _st
from strided import Array

__all__ = ["Parameter"]

_PARAMS: "weakref.WeakValueDictionary[int, Array]" = weakref.WeakValueDictionary()


def is_parameter(x) -> bool:
    return type(x) is Array and _PARAMS.get(id(x)) is x


class _ParameterType(type):
    def __instancecheck__(cls, obj) -> bool:
        return is_parameter(obj)

    def __call__(cls, data=None, requires_grad: bool = True):
        if data is None:
            data = _st.empty(0)
        if type(data) is not Array:
            raise TypeError(f"Parameter(): data must be a strided array; got {type(data).__name__}")
        p = data.detach()
        if requires_grad:
            if data.dtype.kind not in "fc":
                raise RuntimeError(f"Parameter(): only floating-point and complex arrays can "
                                   f"require gradients; got {data.dtype.name}")
            p.requires_grad_(True)
        _PARAMS[id(p)] = p
        return p


class Parameter(metaclass=_ParameterType):
    """A module parameter: ``Parameter(data, requires_grad=True)`` (PyTorch's ``nn.Parameter``).

    Returns a strided array sharing ``data``'s memory, a leaf that requires
    grad; assigned as a ``Module`` attribute it is registered as a parameter.

    >>> import strided.torch as torch
    >>> p = torch.nn.Parameter(torch.zeros(2))
    >>> p.requires_grad, isinstance(p, torch.nn.Parameter), isinstance(torch.zeros(2), torch.nn.Parameter)
    (True, True, False)
    """
