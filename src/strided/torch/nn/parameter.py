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


def _keep_parameters_in_copies():
    """``copy.copy`` and ``copy.deepcopy`` of a parameter give a parameter, as PyTorch's do
    (``copy.deepcopy(model)``'s parameters stay ``nn.Parameter``s): the arrays' copy hook
    (``io/_pickle.py``'s ``copy_array``) wrapped to register the copy of a registered one."""
    from strided._core.array import _LATE

    copy_array = _LATE.get("copy_array")
    if copy_array is None or getattr(copy_array, "_keeps_parameters", False):
        return

    def copy_keeping_parameters(x, memo):
        r = copy_array(x, memo)
        if type(r) is Array and is_parameter(x):
            _PARAMS[id(r)] = r
        return r

    copy_keeping_parameters._keeps_parameters = True
    _LATE["copy_array"] = copy_keeping_parameters


_keep_parameters_in_copies()


def _parameter_repr(x):
    """PyTorch's ``Parameter.__repr__``: "Parameter containing:" over the tensor's repr."""
    if is_parameter(x):
        from strided.torch._repr import tensor_repr
        return "Parameter containing:\n" + tensor_repr(x)
    return None


def _register_repr():
    from strided.torch._repr import REPR_OVERRIDES
    if _parameter_repr not in REPR_OVERRIDES:
        REPR_OVERRIDES.append(_parameter_repr)


_register_repr()


class Parameter(metaclass=_ParameterType):
    """A module parameter: ``Parameter(data, requires_grad=True)`` (PyTorch's ``nn.Parameter``).

    Returns a strided array sharing ``data``'s memory, a leaf that requires
    grad; assigned as a ``Module`` attribute it is registered as a parameter.

    >>> import strided.torch as torch
    >>> p = torch.nn.Parameter(torch.zeros(2))
    >>> p.requires_grad, isinstance(p, torch.nn.Parameter), isinstance(torch.zeros(2), torch.nn.Parameter)
    (True, True, False)
    """
