"""Array methods beyond the core: the standard's remaining array-object API and
PyTorch-style method spellings of namespace functions."""

from __future__ import annotations

from ._array import _LATE, Array
from ._device import as_device


def _name_to_axis(x, name):
    names = x._ext.names if x._ext is not None else None
    if names is None or name not in names:
        raise ValueError(f"dimension name {name!r} not found: the array's names are "
                         f"{tuple(names) if names else (None,) * x.ndim}")
    return names.index(name)


_LATE.setdefault("name_to_axis", _name_to_axis)


def __array_namespace__(self, /, *, api_version=None):
    if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
        raise ValueError(f"strided does not support Array API version {api_version!r}")
    import strided
    return strided


def to_device(self, device, /, *, stream=None):
    return _LATE["to_device"](self, device, stream=stream)


def to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)`` or ``to(other)``."""
    from ._dtypes import DType
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to(): unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, DType):
            dtype = a
        elif type(a) is Array:
            dtype, device = a._dtype, a._device
        else:
            device = a
    out = self
    if device is not None and as_device(device) is not out._device:
        out = _LATE["to_device"](out, device)
        copy = False
    if dtype is not None and dtype is not out._dtype:
        out = _LATE["astype"](out, dtype)
        copy = False
    if copy:
        out = out.clone()
    return out


Array.__array_namespace__ = __array_namespace__
Array.to_device = to_device
Array.to = to
Array.cpu = lambda self: _LATE["to_device"](self, "cpu")
Array.cuda = lambda self, device=None: _LATE["to_device"](
    self, "cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))
