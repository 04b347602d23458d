"""``strided.torch.accelerator``: PyTorch's ``torch.accelerator`` questions, answered from
``strided.torch.cuda`` so that the two agree.

strided's only accelerator is CUDA (through CuPy): ``current_accelerator()`` is
``torch.device("cuda")`` where ``torch.cuda.is_available()``, else None, and then every function
that needs a device raises PyTorch's RuntimeError ("Cannot access accelerator device when none
is available."), as PyTorch does on a machine without one. strided's ``"cuda"`` always means
``cuda:0`` (it keeps no current device that moves it), so ``set_device_index`` accepts the
current index only and raises NotImplementedError for another.

>>> import strided.torch as torch
>>> device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
>>> device in ("cpu", "cuda")
True
"""

from __future__ import annotations

import warnings

from .._core.caller import stacklevel
from .._core.device import Device
from . import cuda as _cuda

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "device_count", "device_index",
           "is_available", "set_device_idx", "set_device_index", "synchronize"]

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """Whether strided has an accelerator to run arrays on: ``torch.cuda.is_available()``.

    >>> import strided.torch as torch
    >>> torch.accelerator.is_available() == torch.cuda.is_available()
    True
    """
    return _cuda.is_available()


def current_accelerator(check_available: bool = False):
    """The accelerator's device type, ``torch.device("cuda")`` (strided spells it ``cuda:0``; its
    ``.type`` is ``"cuda"``), or None where strided has none (``check_available`` changes
    nothing: strided's accelerator is the one it can reach)."""
    return Device("cuda") if _cuda.is_available() else None


def device_count() -> int:
    """The number of accelerator devices strided can reach (``torch.cuda.device_count()``; 0
    without one)."""
    return _cuda.device_count() if _cuda.is_available() else 0


def current_device_index() -> int:
    """The index of the current accelerator device (``torch.cuda.current_device()``);
    RuntimeError where there is no accelerator."""
    if not _cuda.is_available():
        raise RuntimeError(_NONE_AVAILABLE)
    return _cuda.current_device()


def current_device_idx() -> int:
    """Deprecated ``current_device_idx()`` (FutureWarning): ``current_device_index()``."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=stacklevel())
    return current_device_index()


def _device_index(device, optional: bool) -> int:
    """PyTorch's ``torch.accelerator._utils._get_device_index``: an int as is; a device (or its
    string) checked against the accelerator, then its index."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    index = None
    if isinstance(device, (str, Device)):
        if isinstance(device, str):
            dtype, _, idx = device.strip().partition(":")
            index = Device(device).index if idx else None  # (validates the string)
        else:
            dtype, index = device.type, device.index
        if not _cuda.is_available():
            raise RuntimeError("Accelerator expected")
        if dtype != "cuda":
            raise ValueError(f"{dtype} doesn't match the current accelerator cuda.")
    elif device is not None:
        raise TypeError(f"expected a device (a torch.device, a str or an int); got {type(device).__name__}")
    if index is None:
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        return current_device_index()
    return index


def _switch(index: int, who: str) -> int:
    """Make ``index`` current; the previous index. strided cannot move the meaning of ``"cuda"``."""
    if not _cuda.is_available():
        raise RuntimeError(_NONE_AVAILABLE)
    current = _cuda.current_device()
    if index < 0 or index == current:
        return current
    n = _cuda.device_count()
    if index >= n:
        raise RuntimeError(f"{who}: invalid device ordinal {index}: strided reaches {n} CUDA device(s)")
    raise NotImplementedError(f"{who}: strided's 'cuda' always means cuda:{current} (it keeps no current "
                              f"device that moves it); pass device='cuda:{index}' to the calls instead")


def set_device_index(device, /) -> None:
    """Make ``device`` (an index, or a ``cuda:i`` device) the current accelerator device: a no-op
    for a negative index or the current one; RuntimeError without an accelerator;
    NotImplementedError for another index (strided's ``"cuda"`` always means ``cuda:0``)."""
    index = _device_index(device, optional=False)
    if index < 0:
        return  # (PyTorch: a no-op, accelerator or not)
    _switch(index, "set_device_index()")


def set_device_idx(device, /) -> None:
    """Deprecated ``set_device_idx(device)`` (FutureWarning): ``set_device_index(device)``."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=stacklevel())
    set_device_index(device)


def synchronize(device=None, /) -> None:
    """Wait for the work queued on an accelerator device (the current one by default);
    RuntimeError without an accelerator, as PyTorch."""
    index = _device_index(device, optional=True)
    if not _cuda.is_available():
        raise RuntimeError(_NONE_AVAILABLE)
    b = _cuda._backend()
    b.xp.cuda.Device(index if index >= 0 else _cuda.current_device()).synchronize()


class device_index:
    """Context manager making ``device`` (an index, or None for no change) the current accelerator
    device inside it, as ``set_device_index`` does."""

    def __init__(self, device, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = _switch(self.idx, "device_index()")

    def __exit__(self, *exc_info) -> None:
        return None


def __getattr__(name: str):
    raise AttributeError(f"module 'strided.torch.accelerator' has no attribute {name!r}: strided has only "
                         f"{', '.join(__all__)}")
