# autocast, custom_fwd, custom_bwd and _cast are adapted from PyTorch 2.13's
# torch/amp/autocast_mode.py (BSD-3-Clause; Copyright (c) 2016- Facebook, Inc and the PyTorch
# contributors; see LICENSES/PyTorch.txt).
"""``torch.amp.autocast`` and its state, as far as strided can mean what PyTorch means.

strided has no per-op autocast policy (no list of ops that run in float16 / bfloat16), so
a region where PyTorch would autocast cannot be honoured. What PyTorch 2.13 does, case by
case, and what strided does:

* ``enabled=False``: PyTorch's no-op region; it nests and restores the previous state
  (``is_autocast_enabled``, ``get_autocast_dtype``) on exit. The same here.
* ``device_type="cpu"`` with a dtype other than float16 / bfloat16 (float32, say):
  PyTorch warns "In CPU autocast, but the target dtype is not supported. Disabling
  autocast." and runs the region disabled. The same here (same warning).
* ``device_type="cuda"`` where CUDA is not available: PyTorch warns "CUDA is not
  available ... Disabling autocast." and runs disabled. The same here (strided's notion of
  availability: ``strided.torch.cuda.is_available()``).
* Any region PyTorch would really autocast (CPU float16 / bfloat16 -- bfloat16 is CPU's
  default --, CUDA when available): NotImplementedError, raised when the ``autocast``
  object is made, saying to pass ``enabled=False`` or cast explicitly.
* A device type strided has no device for (``"mps"``, ``"xpu"``, ...): RuntimeError.

strided has no bfloat16 dtype: ``get_autocast_dtype("cpu")`` (PyTorch: ``torch.bfloat16``)
raises NotImplementedError while CPU's autocast dtype is bfloat16.

>>> import strided.torch as torch
>>> with torch.autocast("cpu", enabled=False):
...     torch.is_autocast_enabled("cpu")
False
"""

from __future__ import annotations

import collections.abc
import functools
import threading
import warnings

from ..._core.caller import stacklevel
from ..._core.dtypes import DType, float16, float64

__all__ = ["autocast", "autocast_decorator", "custom_bwd", "custom_fwd", "get_autocast_dtype",
           "is_autocast_available", "is_autocast_enabled"]

# PyTorch's device types (c10/core/DeviceType.cpp's list, in the order of its error message).
_TORCH_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                       "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                       "privateuseone")
_STRIDED_DEVICE_TYPES = ("cpu", "cuda")


class _NoDType:
    """A dtype PyTorch has and strided does not (CPU autocast's default, bfloat16)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name} (strided has no such dtype)"


_BFLOAT16 = _NoDType("bfloat16")
_DEFAULT_DTYPE = {"cpu": _BFLOAT16, "cuda": float16}


class _State(threading.local):
    """The autocast state; thread-local as PyTorch's."""

    def __init__(self) -> None:
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = dict(_DEFAULT_DTYPE)
        self.cache_enabled = True
        self.nesting = 0


_STATE = _State()


def _device_type(device_type, who: str) -> str:
    """PyTorch's device-string check, then strided's: only cpu and cuda exist here."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    base = device_type.partition(":")[0]
    if base not in _TORCH_DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_TORCH_DEVICE_TYPES)} device type at start "
                           f"of device string: {device_type}")
    if base not in _STRIDED_DEVICE_TYPES:
        raise RuntimeError(f"{who}: strided has no {base!r} device (its devices are cpu and cuda), "
                           f"so it has no autocast for device_type={device_type!r}")
    return base


def is_autocast_available(device_type: str) -> bool:
    """Whether ``autocast`` accepts ``device_type`` (strided: ``"cpu"`` and ``"cuda"``; PyTorch's
    other device types are False, as strided has no such devices)."""
    if not isinstance(device_type, str):
        raise TypeError(f"is_autocast_available(): device_type must be a str, got "
                        f"{type(device_type).__name__}")
    base = device_type.partition(":")[0]
    if base not in _TORCH_DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_TORCH_DEVICE_TYPES)} device type at start "
                           f"of device string: {device_type}")
    return base in _STRIDED_DEVICE_TYPES


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` (``None``: CUDA, PyTorch's legacy form).

    In strided it is only ever False: a region that would turn it on raises instead."""
    dev = "cuda" if device_type is None else _device_type(device_type, "is_autocast_enabled()")
    return _STATE.enabled[dev]


def _get_dtype(device_type: str):
    return _STATE.dtype[device_type]


def get_autocast_dtype(device_type: str) -> DType:
    """The dtype autocast would use on ``device_type`` (CUDA's default float16; CPU's default is
    bfloat16, which strided has no dtype for: NotImplementedError then)."""
    dt = _get_dtype(_device_type(device_type, "get_autocast_dtype()"))
    if isinstance(dt, _NoDType):
        raise NotImplementedError(f"get_autocast_dtype({device_type!r}): PyTorch's answer is "
                                  f"torch.{dt.name}, which strided has no dtype for")
    return dt


def _cuda_available() -> bool:
    from .. import cuda
    return cuda.is_available()


def autocast_decorator(autocast_instance, func):
    """``func`` run inside ``autocast_instance`` (what ``autocast(...)(func)`` returns)."""
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """PyTorch's ``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``:
    a context manager and decorator for a mixed-precision region.

    strided has no per-op autocast policy: ``enabled=False`` is PyTorch's no-op region (it nests
    and restores the previous state); where PyTorch disables autocast with a warning (CPU with a
    dtype other than float16/bfloat16, CUDA without CUDA) strided warns and disables the same way;
    a region PyTorch would really autocast raises NotImplementedError here.

    >>> import strided.torch as torch
    >>> @torch.autocast("cpu", enabled=False)
    ... def f(x):
    ...     return x * 2
    >>> f(torch.ones(2))
    tensor([2., 2.])
    """

    def __init__(self, device_type: str, dtype: DType | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        dev = _device_type(device_type, "autocast")
        self.fast_dtype = _get_dtype(dev) if dtype is None else dtype
        self.device = device_type
        self._cache_enabled = _STATE.cache_enabled if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda":  # (PyTorch's test: the exact string, not "cuda:0")
                if not _cuda_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                                  stacklevel=stacklevel())
                    enabled = False
            elif not (self.fast_dtype is _BFLOAT16 or self.fast_dtype == float16):
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling "
                              f"autocast.\n{name} Autocast only supports dtypes of torch.bfloat16, "
                              "torch.float16 currently.", stacklevel=stacklevel())
                enabled = False
            if enabled:
                raise NotImplementedError(
                    f"autocast(device_type={device_type!r}, dtype={self.fast_dtype!r}) is not "
                    "supported by strided (it has no per-op autocast policy); pass enabled=False "
                    "or cast the tensors to the dtype you want explicitly")
        self._enabled = enabled
        self._dev = dev

    def __enter__(self):
        self.prev_cache_enabled = _STATE.cache_enabled
        self.prev = _STATE.enabled[self._dev]
        self.prev_fastdtype = _STATE.dtype[self._dev]
        _STATE.enabled[self._dev] = self._enabled
        _STATE.dtype[self._dev] = self.fast_dtype
        _STATE.nesting += 1
        _STATE.cache_enabled = self._cache_enabled
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _STATE.nesting -= 1
        _STATE.enabled[self._dev] = self.prev
        _STATE.dtype[self._dev] = self.prev_fastdtype
        _STATE.cache_enabled = self.prev_cache_enabled
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return autocast_decorator(self, func)


def _cast(value, device_type: str, dtype):
    """PyTorch's ``_cast``: floating tensors (not float64) on ``device_type`` cast to ``dtype``,
    through lists, tuples, mappings and iterables."""
    from ..._core.array import Array
    if isinstance(value, Array):
        eligible = (value.is_floating_point()
                    and value.device.type == device_type and value.dtype != float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    try:
        import numpy as np
        if isinstance(value, np.ndarray):
            return value
    except ModuleNotFoundError:  # pragma: no cover
        pass
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        it = (_cast(v, device_type, dtype) for v in value)
        return type(value)(it) if isinstance(value, (list, tuple)) else it
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs: DType | None = None):
    """PyTorch's decorator for a custom autograd Function's ``forward``: records on ``ctx``
    (``ctx._dtype``, ``ctx._fwd_used_autocast``) the autocast state for ``custom_bwd``; with
    ``cast_inputs`` it casts floating inputs and runs ``forward`` with autocast off when autocast
    is on (never, in strided)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    dev = _device_type(device_type, "custom_fwd")

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = _get_dtype(dev)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = _STATE.enabled[dev]
            return fwd(*args, **kwargs)
        autocast_context = _STATE.enabled[dev]
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, dev, cast_inputs), **_cast(kwargs, dev, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """PyTorch's decorator for a custom autograd Function's ``backward``: runs it under the
    autocast state that ``custom_fwd`` recorded on ``ctx``."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    _device_type(device_type, "custom_bwd")

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
