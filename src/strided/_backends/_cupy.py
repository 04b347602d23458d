"""The CUDA backend over CuPy, loaded only when a ``cuda`` device is first used."""

from __future__ import annotations

import numpy as np

from . import RENAMES

__all__ = ["CupyBackend", "load"]


class CupyBackend:
    """Kernels and memory on NVIDIA GPUs, through CuPy (mirrors ``NumpyBackend``)."""

    name = "cupy"

    def __init__(self, cupy, device_type: str = "cuda"):
        self.xp = cupy
        self.ndarray = cupy.ndarray
        self.device_type = device_type
        self.allocations = 0

    def check_device(self, device) -> None:
        if device.type != self.device_type:
            raise ValueError(f"backend {self.name} does not serve device {device}")
        n = self.xp.cuda.runtime.getDeviceCount()
        if not 0 <= device.index < n:
            raise ValueError(f"device {device} does not exist: {n} CUDA device(s) found")

    def kernel(self, name: str):
        return getattr(self.xp, RENAMES.get(name, name))

    def empty(self, n: int, np_dtype, device=None):
        self.allocations += 1
        with self.ctx(device):
            return self.xp.empty(n, dtype=np_dtype)

    def view(self, data, offset: int, shape: tuple, strides: tuple):
        """A CuPy array over ``data`` (flat) at the given element offset/strides.

        The caller (``strided._array._native``) has checked the bounds.
        """
        isz = data.itemsize
        mem = data.data + offset * isz
        return self.xp.ndarray(shape, data.dtype, mem, tuple([s * isz for s in strides]))

    def asarray(self, obj, np_dtype=None, copy=None, device=None):
        with self.ctx(device):
            if copy:
                return self.xp.array(obj, dtype=np_dtype, copy=True)
            return self.xp.asarray(obj, dtype=np_dtype)

    def to_host(self, arr) -> np.ndarray:
        return self.xp.asnumpy(arr)

    def from_host(self, arr: np.ndarray, device=None):
        with self.ctx(device):
            return self.xp.asarray(arr)

    def ctx(self, device):
        return self.xp.cuda.Device(0 if device is None else device.index)

    def from_dlpack(self, obj, device=None, copy=None):
        return self.xp.from_dlpack(obj)

    def data_ptr(self, arr) -> int:
        return arr.data.ptr

    def rng(self, seed: int, device=None):
        """A fresh random generator seeded with ``seed`` on ``device``."""
        with self.ctx(device):
            return self.xp.random.default_rng(seed)

    def synchronize(self, device=None) -> None:
        with self.ctx(device):
            self.xp.cuda.Device().synchronize()

    def devices(self):
        from .._device import Device
        return [Device("cuda", i) for i in range(self.xp.cuda.runtime.getDeviceCount())]


def load() -> CupyBackend:
    """The backend of device type ``cuda``; ValueError when CuPy or a GPU is missing."""
    try:
        import cupy
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # ImportError, or CUDA runtime errors without a GPU/driver
        raise ValueError(f"device 'cuda' needs CuPy and an NVIDIA GPU "
                         f"(pip install 'strided[cuda]'): {type(e).__name__}: {e}") from None
    if n == 0:
        raise ValueError("device 'cuda' needs CuPy and an NVIDIA GPU: no CUDA device found")
    return CupyBackend(cupy)
