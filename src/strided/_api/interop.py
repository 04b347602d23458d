"""Zero-copy exchange with other libraries: DLPack and the buffer protocol.

Export goes through the backend's native view of the array (``_get_native``:
NumPy on cpu, CuPy on cuda), so offset, strides and dtype travel as they are
and the consumer sees our memory. Import (``from_dlpack``) asks the backend of
the producer's device for a native array and adopts its memory as a Storage.
"""

from __future__ import annotations

import sys

import numpy as np

from .._core.array import _LATE, Array
from .creation import asarray, share_native, wrap_new
from .._core.device import Device, as_device
from .._core.dtypes import from_numpy_dtype
from .views import to_device

# DLPack device types (dlpack.h, DLDeviceType) that strided can hold.
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13


def _exportable(self: Array, what: str):
    if self._ext is not None and self._ext.requires_grad:
        raise BufferError(f"{what}: can't export an array that requires grad; use detach() first")
    return self._get_native()


def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule viewing this array's memory (the standard's ``__dlpack__``)."""
    if self._ext is None:
        native = self._np
        if type(native) is np.ndarray:
            # Hot path: a host array's own NumPy view exports itself (scikit-learn's
            # ``move_to(x, xp=numpy)`` of every solver gradient: numpy.from_dlpack). NumPy's
            # ``__dlpack__`` takes each keyword as None (its default) and raises its own
            # errors (a stream on the CPU, an unknown max_version, a foreign dl_device).
            return native.__dlpack__(stream=stream, max_version=max_version,
                                     dl_device=dl_device, copy=copy)
    kwargs = {k: v for k, v in (("stream", stream), ("max_version", max_version),
                                ("dl_device", dl_device), ("copy", copy)) if v is not None}
    # Note: like NumPy, negative strides are exported as they are; PyTorch <= 2.13
    # aborts on them (pytorch/pytorch#188023), so flip views need .contiguous() there.
    native = _exportable(self, "__dlpack__")
    if copy is True and self._device.type != "cpu" and (
            dl_device is None or tuple(dl_device) == tuple(native.__dlpack_device__())):
        # Note: CuPy 14 refuses copy=True on the array's own device ("copy=True only
        # supported for copy to CPU.", cupy/_core/core.pyx ndarray.__dlpack__); the
        # standard's copy=True must copy: the copy is made here, on the device, and
        # exported as it is (its capsule owns it).
        native = native.copy()
        del kwargs["copy"]
    return native.__dlpack__(**kwargs)


def __dlpack_device__(self, /):
    """``(DLPack device type, device id)`` of this array's memory."""
    native = self._np
    if type(native) is np.ndarray:
        return native.__dlpack_device__()
    return self._get_native().__dlpack_device__()


def _dlpack_device(x) -> Device:
    try:
        dev_type, dev_id = x.__dlpack_device__()
    except AttributeError:
        raise TypeError(f"from_dlpack(): {type(x).__name__} has no __dlpack_device__") from None
    dev_type = int(dev_type)
    if dev_type in (_DL_CPU, _DL_CUDA_HOST):
        return Device("cpu")
    if dev_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        return Device("cuda", int(dev_id))
    raise ValueError(f"from_dlpack(): DLPack device type {dev_type} is not supported; "
                     f"strided holds cpu (1) and cuda (2) memory")


def _from_dlpack(x, /, *, device=None, copy=None) -> Array:
    if type(x) is Array:
        return asarray(x, device=device, copy=copy)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack(): {type(x).__name__} does not support DLPack (no __dlpack__)")
    src = _dlpack_device(x)
    dev = src if device is None else as_device(device)
    if dev is not src and copy is False:
        raise ValueError(f"from_dlpack(copy=False): the data is on {src}; moving it to {dev} needs a copy")
    native = src.backend.from_dlpack(x, copy=False if copy is False else None)
    if copy and dev is src:
        return wrap_new(native.copy(), from_numpy_dtype(native.dtype), src)
    arr = share_native(native, src)
    return arr if dev is src else to_device(arr, dev)


def __buffer__(self, flags, /):
    """The buffer protocol (Python >= 3.12): a memoryview of a CPU array's memory."""
    if self._device.type != "cpu":
        raise BufferError(f"memoryview(): the array is on {self._device}; call .cpu() first")
    _exportable(self, "memoryview()")  # (refuses an array that requires grad)
    # Read-only where elements share memory (stride 0, self-overlap), as np.asarray(x) is:
    # a write through the buffer must not bypass the overlap check.
    return memoryview(self._export())


Array.__dlpack__ = __dlpack__
Array.__dlpack_device__ = __dlpack_device__
if sys.version_info >= (3, 12):
    # Note: a Python class can serve the buffer protocol only from 3.12 (PEP 688);
    # on 3.11 use memoryview(x.numpy()), which shares memory the same way.
    Array.__buffer__ = __buffer__
_LATE["from_dlpack"] = _from_dlpack
