"""The CPU backend over NumPy."""

from __future__ import annotations

import contextlib

import numpy as np

from . import RENAMES
from .. import cext as _cext


def _null_context():
    """The host's device context: one that does nothing, compiled where _chot is built
    (contextlib.nullcontext's enter and exit are Python frames, ~0.3 us a ``with``)."""
    chot = _cext.load("_chot")
    null = getattr(chot, "NullContext", None) if chot is not None else None
    return null() if null is not None else contextlib.nullcontext()


_NULL = _null_context()

__all__ = ["NumpyBackend", "numpy_backend"]


class NumpyBackend:
    """Kernels and memory on the host, through NumPy."""

    name = "numpy"
    xp = np
    ndarray = np.ndarray

    def __init__(self, device_type: str = "cpu"):
        self.device_type = device_type
        self.allocations = 0  # test hook: storages allocated by `empty`
        self.d2h_copies = 0  # test hook: copies to the host (host memory never needs one)

    def check_device(self, device) -> None:
        if device.type != self.device_type:
            raise ValueError(f"backend {self.name} does not serve device {device}")

    def kernel(self, name: str, kind: str = ""):
        """The ufunc for the standard's ``name`` (``kind``: the computing dtype's kind,
        for backends that correct a kernel for some kinds; NumPy needs none)."""
        return getattr(np, RENAMES.get(name, name))

    @staticmethod
    def keep_order(f):
        """``f`` itself: NumPy's elementwise results already have NumPy's layout (the CuPy
        backend's counterpart transposes around CuPy's row-major results)."""
        return f

    def fill(self, target, value) -> None:
        """Write the Python scalar ``value`` into every element of the view ``target``."""
        target[...] = value

    def lapack(self, func: str):
        """The context a factorisation runs in: NumPy raises LinAlgError itself."""
        return _NULL

    def empty(self, n: int, np_dtype, device=None):
        self.allocations += 1
        return np.empty(n, dtype=np_dtype)

    def view(self, data, offset: int, shape: tuple, strides: tuple):
        """A native array over ``data`` (flat) at the given element offset/strides.

        The caller (``strided._core.array._native``) has checked the bounds.
        """
        isz = data.itemsize
        return np.ndarray(shape, data.dtype, data, offset * isz,
                          tuple([s * isz for s in strides]))

    def asarray(self, obj, np_dtype=None, copy=None, device=None):
        return np.asarray(obj, dtype=np_dtype, copy=copy)

    def to_host(self, arr) -> np.ndarray:
        return arr

    def from_host(self, arr: np.ndarray, device=None):
        return arr

    def copy_to_device(self, arr, device):
        """A copy of ``arr`` on ``device`` (of this backend's type)."""
        return arr.copy()

    def ctx(self, device):
        return _NULL

    def from_dlpack(self, obj, device=None, copy=None):
        return np.from_dlpack(obj, copy=copy)

    def data_ptr(self, arr) -> int:
        return arr.ctypes.data

    def rng(self, seed: int, device=None):
        """A fresh random generator seeded with ``seed`` (PCG64)."""
        return np.random.Generator(np.random.PCG64(seed))

    def synchronize(self, device=None) -> None:
        pass

    def devices(self):
        return []


numpy_backend = NumpyBackend("cpu")
