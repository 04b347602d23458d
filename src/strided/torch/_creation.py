"""PyTorch's spellings of the filled creation functions: ``zeros``, ``ones`` and ``empty``
take the shape as ``*size``, one sequence, or ``size=`` (``torch.zeros(size=(2, 3))``), and
``full``'s first parameter is ``size``. Each calls strided's own function (the same result,
dtype, device and errors); only the keyword is PyTorch's. A size given twice (positionally
and as ``size=``), or a ``size`` that is not a sequence of ints, is PyTorch's TypeError.
"""

from __future__ import annotations

import sys

from ._layouts import check_factory
from ._random import _UNSET, _size_keyword

__all__ = ["zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like"]


def _ns():
    return sys.modules["strided"]


def zeros(*sizes, size=_UNSET, shape=_UNSET, dtype=None, layout=None, device=None, out=None, requires_grad=False,
          names=None, pin_memory=False):
    """An array of zeros: ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``."""
    check_factory("zeros", layout, pin_memory)
    return _ns().zeros(*_sizes("zeros", sizes, size, shape), dtype=dtype, device=device, out=out,
                       requires_grad=requires_grad, names=names)


def ones(*sizes, size=_UNSET, shape=_UNSET, dtype=None, layout=None, device=None, out=None, requires_grad=False,
         names=None, pin_memory=False):
    """An array of ones: ``ones(2, 3)``, ``ones((2, 3))`` or ``ones(size=(2, 3))``."""
    check_factory("ones", layout, pin_memory)
    return _ns().ones(*_sizes("ones", sizes, size, shape), dtype=dtype, device=device, out=out,
                      requires_grad=requires_grad, names=names)


def empty(*sizes, size=_UNSET, shape=_UNSET, dtype=None, layout=None, device=None, out=None, requires_grad=False,
          names=None, pin_memory=False):
    """An uninitialised array: ``empty(2, 3)``, ``empty((2, 3))`` or ``empty(size=(2, 3))``."""
    check_factory("empty", layout, pin_memory)
    return _ns().empty(*_sizes("empty", sizes, size, shape), dtype=dtype, device=device, out=out,
                       requires_grad=requires_grad, names=names)


def full(size, fill_value, *, dtype=None, layout=None, device=None, out=None, requires_grad=False, names=None,
         pin_memory=False):
    """An array of shape ``size`` filled with ``fill_value`` (``full((2, 3), 1.5)``,
    ``full(size=(2, 3), fill_value=1.5)``); the dtype is inferred from the scalar by default."""
    check_factory("full", layout, pin_memory)
    return _ns().full(size, fill_value, dtype=dtype, device=device, out=out,
                      requires_grad=requires_grad, names=names)


def _sizes(func: str, sizes: tuple, size, shape) -> tuple:
    """The positional sizes, with ``size=`` (PyTorch's) or ``shape=`` (strided's) folded in."""
    if shape is not _UNSET:  # (strided's own keyword, taken as strided.zeros takes it)
        if size is not _UNSET:
            raise TypeError(f"{func}() got both size= and shape= (the same argument); give one")
        if sizes:
            raise TypeError(f"{func}() got multiple values for argument 'shape'")
        return (shape,)
    if not sizes and size is _UNSET:
        # (PyTorch's: the size is required; a 0-d array is zeros(()))
        raise TypeError(f'{func}() missing 1 required positional arguments: "size"')
    return sizes if size is _UNSET else _size_keyword(func, sizes, size)


def _install_like():
    from . import _memory_format
    g = globals()
    for name in ("zeros_like", "ones_like", "empty_like", "full_like"):
        g[name] = _memory_format.like(name, getattr(_ns(), name))


_install_like()
