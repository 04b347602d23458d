# The deprecated spellings are adapted from PyTorch 2.13's torch/cuda/amp/ and torch/cpu/amp/
# (BSD-3-Clause; Copyright (c) 2016- Facebook, Inc and the PyTorch contributors; see
# LICENSES/PyTorch.txt).
"""PyTorch's deprecated ``torch.cuda.amp`` and ``torch.cpu.amp`` spellings (FutureWarning, then
``torch.amp``'s ``autocast`` / ``GradScaler`` / ``custom_fwd`` / ``custom_bwd`` with the device
filled in). Reached as ``strided.torch.cuda.amp`` and ``strided.torch.cpu.amp``."""

from __future__ import annotations

import functools
import types
import warnings

from ..._core.caller import stacklevel
from ..._core.dtypes import float16
from . import autocast_mode
from .grad_scaler import GradScaler as _GradScaler


def _warn(msg: str) -> None:
    warnings.warn(msg, FutureWarning, stacklevel=stacklevel())


class _CudaAutocast(autocast_mode.autocast):
    """Deprecated ``torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)``:
    ``torch.amp.autocast("cuda", ...)`` after a FutureWarning."""

    def __init__(self, enabled: bool = True, dtype=float16, cache_enabled: bool = True):
        _warn("`torch.cuda.amp.autocast(args...)` is deprecated. "
              "Please use `torch.amp.autocast('cuda', args...)` instead.")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class _CpuAutocast(autocast_mode.autocast):
    """Deprecated ``torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)``:
    ``torch.amp.autocast("cpu", ...)`` after a FutureWarning (``dtype=None`` stands for
    bfloat16, which strided has no dtype for)."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        _warn("`torch.cpu.amp.autocast(args...)` is deprecated. "
              "Please use `torch.amp.autocast('cpu', args...)` instead.")
        super().__init__("cpu", enabled=enabled,
                         dtype=autocast_mode._BFLOAT16 if dtype is None else dtype,
                         cache_enabled=cache_enabled)


class _CudaGradScaler(_GradScaler):
    """Deprecated ``torch.cuda.amp.GradScaler(...)``: ``torch.amp.GradScaler("cuda", ...)``."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        _warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. "
              "Please use `torch.amp.GradScaler('cuda', args...)` instead.")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


class _CpuGradScaler(_GradScaler):
    """Deprecated ``torch.cpu.amp.GradScaler(...)``: ``torch.amp.GradScaler("cpu", ...)``."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        _warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. "
              "Please use `torch.amp.GradScaler('cpu', args...)` instead.")
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


def _cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated ``torch.cuda.amp.custom_fwd``: ``torch.amp.custom_fwd(device_type="cuda")``."""
    _warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. "
          "Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.")
    return functools.partial(autocast_mode.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def _cuda_custom_bwd(bwd):
    """Deprecated ``torch.cuda.amp.custom_bwd``: ``torch.amp.custom_bwd(device_type="cuda")``."""
    _warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. "
          "Please use `torch.amp.custom_bwd(args..., device_type='cuda')` instead.")
    return functools.partial(autocast_mode.custom_bwd, device_type="cuda")(bwd)


def _amp_definitely_not_available() -> bool:
    """``torch.cuda.amp.amp_definitely_not_available()``: True when strided has no CUDA."""
    return not autocast_mode._cuda_available()


def _namespace(name: str, doc: str, **members) -> types.ModuleType:
    mod = types.ModuleType(name, doc)
    for k, v in members.items():
        if isinstance(v, type) or callable(v):
            v.__name__ = k
            v.__qualname__ = k
        setattr(mod, k, v)
    mod.__all__ = sorted(members)
    return mod


cuda_amp = _namespace(
    "strided.torch.cuda.amp", "PyTorch's deprecated ``torch.cuda.amp`` (use ``torch.amp``).",
    autocast=_CudaAutocast, GradScaler=_CudaGradScaler, custom_fwd=_cuda_custom_fwd,
    custom_bwd=_cuda_custom_bwd, amp_definitely_not_available=_amp_definitely_not_available)
cpu_amp = _namespace(
    "strided.torch.cpu.amp", "PyTorch's deprecated ``torch.cpu.amp`` (use ``torch.amp``).",
    autocast=_CpuAutocast, GradScaler=_CpuGradScaler)
