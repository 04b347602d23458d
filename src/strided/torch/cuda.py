"""``strided.torch.cuda``: PyTorch's ``torch.cuda`` questions, answered by strided.

``is_available()`` is true only where strided can reach a CUDA device (CuPy
imports and reports at least one GPU); ``device_count()`` is that count (0
otherwise). Nothing here initialises a GPU that strided would not use.
"""

from __future__ import annotations

import os as _os

from .._core import device as _device
from . import _random

__all__ = ["is_available", "device_count", "current_device", "synchronize",
           "manual_seed", "manual_seed_all"]


def _backend():
    try:
        return _device.get_backend("cuda")
    except ValueError:
        return None


def is_available() -> bool:
    """True when strided can run arrays on a CUDA device (CuPy and a GPU are present)."""
    return _backend() is not None


def device_count() -> int:
    """The number of CUDA devices strided can reach (0 without CuPy or a GPU)."""
    b = _backend()
    if b is None:
        return 0
    try:
        return int(b.xp.cuda.runtime.getDeviceCount())
    except Exception:  # a CUDA runtime error: no usable device
        return 0


def current_device() -> int:
    """The index of the current CUDA device; RuntimeError when none is available."""
    b = _backend()
    if b is None:
        raise RuntimeError("current_device(): no CUDA device is available to strided "
                           "(it needs CuPy and an NVIDIA GPU)")
    return int(b.xp.cuda.Device().id)


def synchronize(device=None) -> None:
    """Wait for the work queued on a CUDA device (no-op when none is available)."""
    b = _backend()
    if b is not None:
        b.xp.cuda.Device().synchronize()


def manual_seed(seed) -> None:
    """Seed the random numbers of every device (strided keeps one seed for all)."""
    _random.manual_seed(seed)


def manual_seed_all(seed) -> None:
    """Seed the random numbers of every device (as ``manual_seed``)."""
    _random.manual_seed(seed)


# ``import strided.torch.cud.amp`` as PyTorch's (this module a package whose submodules are
# the files in _cuda_modules/)
__path__ = [_os.path.join(_os.path.dirname(__file__), "_cuda_modules")]


def __getattr__(name: str):
    if name == "amp":  # PyTorch's deprecated torch.cuda.amp
        from .amp._legacy import cuda_amp
        return cuda_amp
    raise AttributeError(f"module 'strided.torch.cuda' has no attribute {name!r}")
