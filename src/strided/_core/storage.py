"""Storage: a flat, typed buffer on one device, shared by every view of it."""

from __future__ import annotations

import operator
import threading
import weakref

import numpy as np

from . import dtypes as _dtypes

__all__ = ["Storage"]

_FAMILY_LOCK = threading.Lock()


_ALLOCATED = [0]


class _StorageType(type):
    @property
    def allocated(cls) -> int:
        """Test hook: the number of Storage objects created."""
        # Note: a module-level count, read through the class: incrementing a class
        # attribute invalidates the type's attribute cache and cost ~0.3 us per Storage.
        return _ALLOCATED[0]


class Storage(metaclass=_StorageType):
    """A flat, typed buffer on one device.

    On CPU the memory is owned or borrowed by a 1-D NumPy array (``_data``).
    Every array viewing this memory returns this same object from ``storage()``.
    ``_version`` counts in-place writes (used by autograd to detect stale saves).
    """

    __slots__ = ("_data", "dtype", "device", "_version", "_family", "__weakref__")

    def __init__(self, data, dtype, device):
        # (_csrc/_chot/storage.c builds a kernel result's Storage with these same slots)
        self._data = data
        self.dtype = dtype
        self.device = device
        self._version = 0
        self._family = None
        _ALLOCATED[0] += 1

    # --- one version counter per memory ------------------------------------------
    def _reinterpret(self, dtype, data) -> "Storage":
        """The Storage of this memory seen as ``dtype`` (``view(dtype)``, ``.real``/``.imag``).

        Every reinterpretation of one memory belongs to one ``_Family``, one
        Storage per dtype (so repeated ``x.view(d)`` give the same Storage
        object), and they share one version counter (``version()``): a write
        through any of them is seen by autograd's checks on all.
        """
        with _FAMILY_LOCK:
            fam = self._family
            if fam is None:
                fam = self._family = _Family()
                fam.members[self.dtype._np] = weakref.ref(self)
                self.__class__ = _FamilyStorage
            ref = fam.members.get(dtype._np)
            st = None if ref is None else ref()
            if st is None:
                st = _FamilyStorage(data, dtype, self.device)
                st._family = fam
                fam.members[dtype._np] = weakref.ref(st)
        return st

    def version(self) -> int:
        """The version counter shared by every view of this memory (writes bump it)."""
        fam = self._family
        if fam is None:
            return self._version
        total = fam.dead
        for ref in list(fam.members.values()):
            st = ref()
            if st is not None:
                total += st._version
        return total

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
            # Note: only the sliced elements reach the host and become Python objects.
            return self.device.backend.to_host(self._data[i]).tolist()
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
        if not isinstance(value, (bool, int, float, complex, np.generic)):
            raise TypeError(f"storage item assignment: expected a number; got {type(value).__name__}")
        self.device.backend.fill(self._data[j:j + 1], value)
        self._version += 1

    def __iter__(self):
        n = len(self)
        step = 1 << 16
        for a in range(0, n, step):
            yield from self[a:a + step]

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
        self.device.backend.fill(self._data, value)
        self._version += 1
        return self

    def __repr__(self) -> str:
        n = len(self)
        if n > 1000:
            body = "\n".join(f" {v}" for v in self[:3]) + "\n ...\n" + "\n".join(f" {v}" for v in self[-3:])
        else:
            body = "\n".join(f" {v}" for v in self.tolist())
        dev = "" if self.device.type == "cpu" else f"(device={self.device}) "
        head = body + "\n" if body else ""
        return f"{head}[strided.Storage of {self.dtype.name} {dev}with size {n}]".replace(
            " with size", ", size")

    def __reduce__(self):
        from .array import Array  # noqa: F401  (pickling goes through the array module)
        return (_rebuild_storage, (self._host().copy(), self.dtype.name, str(self.device)))


class _Family:
    """The Storages of one memory seen as different dtypes (weakly held), and the
    writes counted by those already freed: together, the memory's version."""

    __slots__ = ("members", "dead")

    def __init__(self):
        self.members = {}  # numpy dtype -> weakref to its Storage
        self.dead = 0


class _FamilyStorage(Storage):
    """A Storage that belongs to a ``_Family``: when freed, its writes stay counted."""

    __slots__ = ()

    def __del__(self):
        fam = self._family
        if fam is not None:
            fam.dead += self._version


def _rebuild_storage(data, dtype_name, device):
    from .device import Device
    d = _dtypes._dtype_from_name(dtype_name)
    # Note: a pickle is untrusted input: the data must be the flat buffer it claims to be.
    if type(data) is not np.ndarray or data.ndim != 1 or data.dtype != d._np:
        raise ValueError(f"unpickling a strided Storage: expected a 1-D {d.name} NumPy buffer; got "
                         f"{type(data).__name__}"
                         + (f" of dtype {data.dtype} and shape {data.shape}" if isinstance(data, np.ndarray) else ""))
    dev = Device(device)
    return Storage(dev.backend.from_host(data, dev), _dtypes._dtype_from_name(dtype_name), dev)
