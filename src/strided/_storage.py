"""Storage: a flat, typed buffer on one device, shared by every view of it."""

from __future__ import annotations

import operator

from . import _dtypes

__all__ = ["Storage"]


class Storage:
    """A flat, typed buffer on one device.

    On CPU the memory is owned or borrowed by a 1-D NumPy array (``_data``).
    Every array viewing this memory returns this same object from ``storage()``.
    ``_version`` counts in-place writes (used by autograd to detect stale saves).
    """

    __slots__ = ("_data", "dtype", "device", "_version", "__weakref__")
    allocated = 0  # test hook: number of Storage objects created

    def __init__(self, data, dtype, device):
        self._data = data
        self.dtype = dtype
        self.device = device
        self._version = 0
        Storage.allocated += 1

    # --- sequence protocol ---------------------------------------------------
    def __len__(self) -> int:
        return self._data.shape[0]

    def size(self) -> int:
        return self._data.shape[0]

    def _index(self, i) -> int:
        n = self._data.shape[0]
        i = operator.index(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"storage index {i} out of range for storage of size {n}")
        return i

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.tolist()[i]
        return self._host()[self._index(i)].item()

    def __setitem__(self, i, value):
        if isinstance(i, slice):
            idx = range(*i.indices(len(self)))
            vals = list(value) if not isinstance(value, (int, float, complex, bool)) else [value] * len(idx)
            if len(vals) != len(idx):
                raise ValueError(f"storage slice assignment: {len(vals)} values for {len(idx)} positions")
            for j, v in zip(idx, vals):
                self[j] = v
            return
        j = self._index(i)
        self._data[j] = value
        self._version += 1

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._host().tolist()

    def _host(self):
        return self.device.backend.to_host(self._data)

    # --- properties ----------------------------------------------------------
    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self.device.backend.data_ptr(self._data) if hasattr(
            self.device.backend, "data_ptr") else self._data.ctypes.data

    def fill_(self, value) -> "Storage":
        self._data[...] = value
        self._version += 1
        return self

    def __repr__(self) -> str:
        vals = self.tolist()
        if len(vals) > 1000:
            body = "\n".join(f" {v}" for v in vals[:3]) + "\n ...\n" + "\n".join(f" {v}" for v in vals[-3:])
        else:
            body = "\n".join(f" {v}" for v in vals)
        dev = "" if self.device.type == "cpu" else f"(device={self.device}) "
        head = body + "\n" if body else ""
        return f"{head}[strided.Storage of {self.dtype.name} {dev}with size {len(vals)}]".replace(
            " with size", ", size")

    def __reduce__(self):
        from ._array import Array  # noqa: F401  (pickling goes through the array module)
        return (_rebuild_storage, (self._host().copy(), self.dtype.name, str(self.device)))


def _rebuild_storage(data, dtype_name, device):
    from ._device import Device
    dev = Device(device)
    return Storage(dev.backend.from_host(data, dev), _dtypes._dtype_from_name(dtype_name), dev)
