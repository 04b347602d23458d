"""The CUDA backend over CuPy, loaded only when a ``cuda`` device is first used.

Importing this module never imports CuPy: ``load()`` does, when the device
registry first needs the ``cuda`` backend, and raises a clear ValueError when
CuPy or a GPU is missing. Every method mirrors ``NumpyBackend``.

Memory lives in CuPy arrays on the storage's GPU. Allocation and kernels that
allocate run under ``ctx(device)`` (``cupy.cuda.Device(index)``), because CuPy
allocates on the *current* device. ``d2h_copies`` counts copies to the host
made through this backend (a test hook for "no hidden host round-trips").

Where CuPy's answer differs from NumPy's, strided gives the standard's (the kernel
corrections of ``_cupy_corrections``; signed zeros in ``fill``/``from_host``; the
bounds check of host index arrays in ``strided/_api/indexing.py``; ``__dlpack__(copy=True)``
in ``strided/_api/interop.py``). Where the standard leaves the answer to the
implementation, CuPy's passes through, as documented here:

- a float -> integer ``astype`` of NaN, an infinity or an out-of-range value: CuPy's copy
  kernel is a C++ conversion, compiled to PTX ``cvt.rzi``, which clamps to the target's
  range and gives 0 for NaN (inf -> INT_MAX, -1.0 -> 0 for unsigned); NumPy's CPU cast
  gives INT_MIN (x86) and strided warns there ("those elements are undefined");
- an out-of-bounds index in an index array *on the device*: CuPy's kernels wrap it
  around (``indices % size``); checking it would copy it to the host on every call;
- duplicate indices in an assignment: CuPy stores one of the values, in no defined
  order (``ndarray.__setitem__``'s documentation);
- float32 subnormal inputs and results are zeros (CuPy compiles with ``-ftz=true``).
"""

from __future__ import annotations

import contextlib

import numpy as np

from . import RENAMES, KeepOrder
from ._cupy_corrections import KERNELS as _CORRECTIONS, LAPACK_MESSAGES, LAPACK_UNCHECKED, corrected

__all__ = ["CupyBackend", "DeviceRng", "load"]

_KDL_CPU = 1  # DLPack's device type of host memory


class DeviceRng:
    """A seeded generator on one device, with the NumPy ``Generator`` methods strided uses.

    Wraps a ``cupy.random.Generator`` (or a test device's look-alike), which
    has ``random``, ``standard_normal`` and ``integers`` but not
    ``permutation``; ``bit_generator.state`` reads and restores the generator's
    device-resident state through a host copy.
    """

    def __init__(self, gen, backend, device=None):
        self._gen = gen
        self._backend = backend
        self._device = device
        self.bit_generator = _DeviceState(self)

    def random(self, size=None, dtype=np.float64):
        with self._backend.ctx(self._device):
            return self._gen.random(size, dtype=dtype)

    def standard_normal(self, size=None, dtype=np.float64):
        with self._backend.ctx(self._device):
            return self._gen.standard_normal(size, dtype=dtype)

    def integers(self, low, high=None, size=None, dtype=np.int64):
        with self._backend.ctx(self._device):
            return self._gen.integers(low, high, size=size, dtype=dtype)

    def permutation(self, n: int):
        """A random permutation of ``0..n-1`` (int64): the order of ``n`` uniform keys."""
        with self._backend.ctx(self._device):
            return self._backend.xp.argsort(self._gen.random(n, dtype=np.float64)).astype(np.int64)


class _DeviceState:
    """``bit_generator.state`` of a ``DeviceRng``: a host copy of the device state."""

    __slots__ = ("_rng",)

    def __init__(self, rng):
        self._rng = rng

    def _array(self):
        # Note: CuPy keeps its cuRAND states in the private ``_state`` array of the
        # bit generator; copying it out and back is how a state is saved and restored.
        try:
            return self._rng._gen.bit_generator._state
        except AttributeError:
            raise RuntimeError("this CuPy version's generator state can't be read") from None

    @property
    def state(self) -> dict:
        return {"device_state": self._rng._backend.to_host(self._array())}

    @state.setter
    def state(self, value) -> None:
        if not isinstance(value, dict) or "device_state" not in value:
            raise TypeError("set_state(): the state was saved from a generator on another device type")
        dst = self._array()
        host = np.asarray(value["device_state"])
        if host.shape != dst.shape or host.dtype != dst.dtype:
            raise ValueError("set_state(): the state was saved on a device of another size")
        backend = self._rng._backend
        dst[...] = backend.from_host(host, self._rng._device)


class CupyBackend:
    """Kernels and memory on NVIDIA GPUs, through CuPy (mirrors ``NumpyBackend``)."""

    name = "cupy"

    def __init__(self, cupy, device_type: str = "cuda"):
        self.xp = cupy
        self.ndarray = cupy.ndarray
        self.device_type = device_type
        self.allocations = 0  # test hook: storages allocated by `empty`
        self.d2h_copies = 0  # test hook: copies from a GPU to the host
        self._count = cupy.cuda.runtime.getDeviceCount()
        self._kept = {}  # kernel -> its KeepOrder

    def check_device(self, device) -> None:
        if device.type != self.device_type:
            raise ValueError(f"backend {self.name} does not serve device {device}")
        if not 0 <= device.index < self._count:
            raise ValueError(f"device {device} does not exist: {self._count} CUDA device(s) found")

    def kernel(self, name: str, kind: str = ""):
        """CuPy's ufunc for the standard's ``name``, corrected where CuPy's answer for
        dtypes of ``kind`` differs from the standard's (``_cupy_corrections``)."""
        ufunc = getattr(self.xp, RENAMES.get(name, name))
        fix = _CORRECTIONS.get((name, kind))
        return ufunc if fix is None else corrected(ufunc, self.xp, fix)

    def keep_order(self, f):
        """``f``, an elementwise kernel, giving its results in NumPy's layout, which strided's
        on the CPU have, instead of CuPy's row-major one (``backends.KeepOrder``)."""
        k = self._kept.get(f)
        if k is None:
            k = KeepOrder(f, self.ndarray)
            if len(self._kept) < 4096:
                self._kept[f] = k
        return k

    def _linalg_raise(self):
        import cupyx
        return cupyx.errstate(linalg="raise")

    def fill(self, target, value) -> None:
        """Write the Python scalar ``value`` into every element of the view ``target``."""
        # Note: CuPy's ndarray.fill (and so ``target[...] = value``) memsets when
        # value == 0, which turns -0.0 into +0.0 (cupy/_core/core.pyx, fill);
        # copyto runs its elementwise copy kernel, which keeps the sign.
        if target.dtype.kind in "fc":
            self.xp.copyto(target, value, casting="unsafe")
        else:
            target[...] = value  # (NumPy's errors for values the dtype can't hold)

    @contextlib.contextmanager
    def lapack(self, func: str):
        """The context a factorisation runs in: cuSOLVER's status checked, as NumPy does.

        CuPy ignores cuSOLVER's ``devInfo`` by default (a singular ``solve``/``inv`` gives
        nan/inf, a non-positive-definite ``cholesky`` NaN); under
        ``cupyx.errstate(linalg="raise")`` it reads it back (one small device-to-host copy,
        a synchronisation) and raises NumPy's LinAlgError, worded here as NumPy words it."""
        if func in LAPACK_UNCHECKED:
            yield
            return
        with self._linalg_raise():
            try:
                yield
            except np.linalg.LinAlgError as e:
                msg = LAPACK_MESSAGES.get(func)
                if msg is None:
                    raise
                raise np.linalg.LinAlgError(msg) from e

    def empty(self, n: int, np_dtype, device=None):
        self.allocations += 1
        with self.ctx(device):
            return self.xp.empty(n, dtype=np_dtype)

    def view(self, data, offset: int, shape: tuple, strides: tuple):
        """A CuPy array over ``data`` (flat) at the given element offset/strides.

        The caller (``strided._core.array._native``) has checked the bounds.
        """
        isz = data.itemsize
        # ``data.data`` is the MemoryPointer of element 0; CuPy takes the pointer of
        # the view's element [0, ..., 0] and byte strides (negative ones included).
        return self.xp.ndarray(shape, data.dtype, data.data + offset * isz,
                               tuple([s * isz for s in strides]))

    def asarray(self, obj, np_dtype=None, copy=None, device=None):
        if isinstance(obj, (bool, int, float, complex, np.generic)) \
                or (type(obj) is np.ndarray and not obj.ndim):
            # (a host scalar through from_host: CuPy's own asarray drops the sign of -0.0)
            return self.from_host(np.asarray(obj, dtype=np_dtype), device)
        with self.ctx(device):
            if copy:
                return self.xp.array(obj, dtype=np_dtype, copy=True)
            return self.xp.asarray(obj, dtype=np_dtype)

    def to_host(self, arr) -> np.ndarray:
        self.d2h_copies += 1
        return arr.get()

    def from_host(self, arr, device=None):
        if isinstance(arr, self.ndarray):
            return arr if device is None or arr.device.id == device.index else self.copy_to_device(arr, device)
        with self.ctx(device):
            if not arr.ndim:
                # Note: CuPy makes a 0-d array from host data with ndarray.fill, which
                # memsets a zero (-0.0 becomes +0.0: cupy/_core/core.pyx, _array_default
                # and fill; probe.txt: asarray(-0.0) signbit False); a 1-element array is
                # copied byte for byte.
                return self.xp.asarray(arr.reshape(1)).reshape(())
            return self.xp.asarray(arr)

    def copy_to_device(self, arr, device):
        """A copy of ``arr`` (a CuPy array on any GPU) on ``device``, GPU to GPU."""
        with arr.device:
            src = self.xp.ascontiguousarray(arr)
            # The copy below runs outside the source GPU's stream: let its kernels finish.
            self.xp.cuda.get_current_stream().synchronize()
        with self.ctx(device):
            out = self.xp.empty(src.shape, src.dtype)
            if src.nbytes:
                out.data.copy_from_device(src.data, src.nbytes)
        return out

    def ctx(self, device):
        return self.xp.cuda.Device(0 if device is None else device.index)

    def from_dlpack(self, obj, device=None, copy=None):
        """A CuPy array over a DLPack producer's GPU memory (host producers are copied).

        ``device`` is where the result must live; a producer on another GPU is
        copied there, which ``copy=False`` refuses.
        """
        kind, index = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (None, None)
        if kind == _KDL_CPU:
            if copy is False:
                raise ValueError(f"from_dlpack(copy=False): host memory can't be shared with "
                                 f"{device or 'cuda'}; it needs a copy")
            return self.from_host(np.from_dlpack(obj), device)
        # Note: CuPy imports GPU memory without copying (its copy= argument is newer
        # than CuPy 13), so copy=True copies after the import.
        with self.ctx(device):
            r = self.xp.from_dlpack(obj)
        if device is not None and r.device.id != device.index:
            if copy is False:
                raise ValueError(f"from_dlpack(copy=False): the data is on cuda:{index}, not {device}")
            return self.copy_to_device(r, device)
        if copy:
            with r.device:
                r = r.copy()
        return r

    def data_ptr(self, arr) -> int:
        return arr.data.ptr

    def rng(self, seed: int, device=None):
        """A fresh random generator seeded with ``seed`` on ``device`` (CuPy's XORWOW)."""
        with self.ctx(device):
            return DeviceRng(self.xp.random.default_rng(seed), self, device)

    def synchronize(self, device=None) -> None:
        with self.ctx(device):
            self.xp.cuda.Device().synchronize()

    def devices(self):
        from ..device import Device
        return [Device(self.device_type, i) for i in range(self._count)]


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
