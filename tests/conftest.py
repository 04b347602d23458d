"""Shared fixtures: a simulated GPU, and NumPy-mirror helpers.

The ``sim`` device type stands in for a CUDA device on machines without one.
Its memory lives in NumPy arrays, but the arrays its backend hands out are
``SimArray`` objects that behave like ``cupy.ndarray`` where it matters for
finding host round-trips and CPU-only code:

- ``numpy.asarray(a)`` / ``a.__array__()`` raise TypeError (CuPy's message);
- a NumPy array mixed with a device array in a kernel, an operator or a
  NumPy function raises TypeError, as CuPy does;
- full reductions and scalar indexing give 0-d device arrays, not scalars;
- ufunc ``reduce``/``accumulate`` exist for ``add`` and ``multiply`` only;
- ``item()``, ``tolist()``, ``get()``, ``tobytes()``, ``bool()``, ``int()``,
  ``float()``, ``complex()`` and printing copy to the host, and count in
  ``SIM.d2h_copies`` like the backend's own ``to_host``.

So the tests of device logic (propagation, transfers, mixed devices, save
with ``map_location``) and the tests that no operation copies to the host
run on every CI machine.
"""

from __future__ import annotations

import contextlib
import operator
import os
import types

import numpy as np
import pytest

# ``STRIDED_DEFAULT_DEVICE=sim`` runs the tests with the simulated device as the
# default. strided applies the variable when imported, before this file registers
# ``sim``; so for ``sim`` it is taken out of strided's sight and applied below.
_ENV_DEVICE = os.environ.get("STRIDED_DEFAULT_DEVICE", "").strip()
if _ENV_DEVICE.partition(":")[0] == "sim":
    del os.environ["STRIDED_DEFAULT_DEVICE"]

import strided as xp  # noqa: E402
from strided._backends import RENAMES  # noqa: E402
from strided._backends._cupy import DeviceRng  # noqa: E402
from strided._device import Device, register_backend  # noqa: E402

_CUPY_MSG = ("Implicit conversion to a NumPy array is not allowed. "
             "Please use `.get()` to construct a NumPy array explicitly.")


def _host_copy():
    SIM.d2h_copies += 1


def _reject_host(v):
    raise TypeError(f"Unsupported type {type(v)} (a host NumPy array given to a device kernel)")


def _unwrap(v, host_ok=False):
    """Device arrays -> their NumPy memory; a host array is an error unless ``host_ok``."""
    t = type(v)
    if t is SimArray:
        return v._a
    if t is np.ndarray:
        return v if host_ok else _reject_host(v)
    if t is list or t is tuple:
        return t(_unwrap(e, host_ok) for e in v)
    return v


def _wrap(r):
    """NumPy results -> device arrays; a NumPy scalar becomes a 0-d array, as in CuPy."""
    if isinstance(r, np.ndarray):
        return SimArray(r)
    if isinstance(r, np.generic):
        return SimArray(np.asarray(r))
    if type(r) is tuple or type(r) is list:
        return type(r)(_wrap(e) for e in r)
    if isinstance(r, tuple) and hasattr(r, "_fields"):  # named tuples (linalg results)
        return type(r)(*(_wrap(e) for e in r))
    return r


class _Flags:
    """The flags CuPy arrays have (NumPy's others, e.g. ``writeable``, do not exist)."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, a):
        self.c_contiguous = a.flags.c_contiguous
        self.f_contiguous = a.flags.f_contiguous
        self.owndata = a.flags.owndata

    def __getitem__(self, key):
        return getattr(self, {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
                              "OWNDATA": "owndata"}[key])


# The methods of cupy.ndarray that do not copy to the host; results are device arrays.
_METHODS = (
    "all any argmax argmin argpartition argsort astype byteswap choose clip compress conj "
    "conjugate copy cumprod cumsum diagonal dot fill flatten max mean min nonzero partition "
    "prod ptp put ravel repeat reshape round searchsorted sort squeeze std sum swapaxes take "
    "trace transpose var view").split()
_HOST_METHODS = ("item", "tolist", "tobytes")


class SimArray:
    """An array in the simulated device's memory, behaving like ``cupy.ndarray``."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100

    def __init__(self, a: np.ndarray):
        assert type(a) is np.ndarray, type(a)
        self._a = a

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    strides = property(lambda self: self._a.strides)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    flags = property(lambda self: _Flags(self._a))
    T = property(lambda self: SimArray(self._a.T))
    mT = property(lambda self: SimArray(self._a.mT))

    @property
    def base(self):
        return None if self._a.base is None else SimArray(np.asarray(self._a.base))

    @property
    def real(self):
        return SimArray(self._a.real)

    @real.setter
    def real(self, v):
        self._a.real = _unwrap(v)

    @property
    def imag(self):
        return SimArray(self._a.imag)

    @imag.setter
    def imag(self, v):
        self._a.imag = _unwrap(v)

    def __getattr__(self, name):
        if name in _METHODS:
            meth = getattr(self._a, name)
            return lambda *a, **k: _wrap(meth(*_unwrap(a), **{n: _unwrap(v) for n, v in k.items()}))
        if name in _HOST_METHODS:
            _host_copy()
            return getattr(self._a, name)
        raise AttributeError(f"'cupy.ndarray' (simulated) has no attribute {name!r}")

    def get(self):
        _host_copy()
        return self._a.copy()

    # host conversions
    def __array__(self, dtype=None, copy=None):
        raise TypeError(_CUPY_MSG)

    def __bool__(self):
        _host_copy()
        return bool(self._a)

    def __int__(self):
        _host_copy()
        return int(self._a)

    def __float__(self):
        _host_copy()
        return float(self._a)

    def __complex__(self):
        _host_copy()
        return complex(self._a)

    def __repr__(self):
        _host_copy()
        return repr(self._a)

    __str__ = __repr__

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    # indexing
    def __getitem__(self, key):
        return _wrap(self._a[_unwrap(key, host_ok=True)])

    def __setitem__(self, key, value):
        if isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value) != 0:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._a[_unwrap(key, host_ok=True)] = _unwrap(value, host_ok=True)

    # NumPy protocols: a NumPy function or ufunc on device arrays runs on the device
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        f = _SimUfunc(ufunc)
        f = f if method == "__call__" else getattr(f, method)
        return f(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        return _wrap(func(*_unwrap(args), **{n: _unwrap(v) for n, v in kwargs.items()}))

    def __dlpack_device__(self):
        return (_SIM_DLPACK_DEVICE, 0)

    def __dlpack__(self, **kwargs):
        raise BufferError("the simulated device's memory can't be exported via DLPack")


def _operators(name):
    """``__op__``, ``__rop__`` and ``__iop__`` of SimArray for ``operator.<name>``."""
    op = getattr(operator, f"__{name}__")
    iop = getattr(operator, f"__i{name}__", None)

    def f(self, other):
        if isinstance(other, xp.Array):
            return NotImplemented
        with np.errstate(all="ignore"):
            return _wrap(op(self._a, _unwrap(other)))

    def r(self, other):
        with np.errstate(all="ignore"):
            return _wrap(op(_unwrap(other), self._a))

    def i(self, other):
        with np.errstate(all="ignore"):
            iop(self._a, _unwrap(other))
        return self

    return f, r, i


for _n in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift "
           "lt le gt ge eq ne").split():
    _f, _r, _i = _operators(_n)
    setattr(SimArray, f"__{_n}__", _f)
    if _n not in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(SimArray, f"__r{_n}__", _r)
        setattr(SimArray, f"__i{_n}__", _i)
for _n in ("neg", "pos", "abs", "invert"):
    setattr(SimArray, f"__{_n}__", lambda self, _o=getattr(operator, f"__{_n}__"): _wrap(_o(self._a)))
SimArray.__hash__ = None

# Not a real DLPack device type: what a device NumPy cannot read would report.
_SIM_DLPACK_DEVICE = 99


class _SimUfunc:
    """A ufunc on device arrays; ``reduce``/``accumulate`` only where CuPy has them."""

    def __init__(self, uf):
        self._uf = uf
        self.__name__ = uf.__name__

    def __getattr__(self, name):
        return getattr(self._uf, name)

    def __call__(self, *args, **kw):
        with np.errstate(all="ignore"):
            return _wrap(self._uf(*_unwrap(args), **{n: _unwrap(v) for n, v in kw.items()}))

    def _method(self, name, array, allowed, kw):
        if self._uf.__name__ not in ("add", "multiply"):
            raise NotImplementedError(f"`{self._uf.__name__}.{name}` is not supported yet (CuPy)")
        bad = set(kw) - allowed
        if bad:
            raise TypeError(f"{name}() got unexpected keyword arguments {sorted(bad)} (CuPy)")
        with np.errstate(all="ignore"):
            return _wrap(getattr(self._uf, name)(_unwrap(array), **{n: _unwrap(v) for n, v in kw.items()}))

    def reduce(self, array, **kw):
        return self._method("reduce", array, {"axis", "dtype", "out", "keepdims"}, kw)

    def accumulate(self, array, **kw):
        return self._method("accumulate", array, {"axis", "dtype", "out"}, kw)

    def outer(self, a, b, **kw):
        return _wrap(self._uf.outer(_unwrap(a), _unwrap(b), **{n: _unwrap(v) for n, v in kw.items()}))

    def at(self, a, indices, b=None):
        self._uf.at(_unwrap(a), _unwrap(indices, host_ok=True), _unwrap(b))


# Functions that take host data and copy it to the device (cupy.asarray, cupy.array).
_FROM_HOST = {"asarray", "array", "asanyarray"}


class SimNamespace:
    """The simulated device's array module (``cupy`` for ``cuda``): NumPy's names on SimArrays."""

    ndarray = SimArray

    def __init__(self, module=np):
        self._m = module
        self.__name__ = "sim." + module.__name__
        self.accessed = set()  # names used, to compare with CuPy's namespace

    def __getattr__(self, name):
        obj = getattr(self._m, name)
        self.accessed.add(name)
        if isinstance(obj, np.ufunc):
            f = _SimUfunc(obj)
        elif isinstance(obj, types.ModuleType):
            f = SimNamespace(obj)
        elif isinstance(obj, type) or not callable(obj):
            return obj  # dtypes, finfo/iinfo, exceptions, constants
        else:
            host_ok = name in _FROM_HOST

            def f(*args, **kw):
                with np.errstate(all="ignore"):
                    return _wrap(obj(*_unwrap(args, host_ok), **{n: _unwrap(v, host_ok) for n, v in kw.items()}))
            f.__name__ = name
        setattr(self, name, f)
        return f


SIMXP = SimNamespace()


class SimBitGenerator:
    """Device-resident generator state, like CuPy's curand states."""

    def __init__(self, seed):
        self._state = SimArray(np.array([seed & (2**64 - 1), 0], dtype=np.uint64))

    def next(self) -> np.random.Generator:
        seed, n = (int(v) for v in self._state._a)
        self._state._a[1] += 1
        return np.random.default_rng([seed, n])


class SimGenerator:
    """The part of ``cupy.random.Generator`` that strided uses, on the simulated device."""

    def __init__(self, seed):
        self.bit_generator = SimBitGenerator(seed)

    def random(self, size=None, dtype=np.float64):
        return SimArray(self.bit_generator.next().random(size if size is not None else (), dtype=dtype))

    def standard_normal(self, size=None, dtype=np.float64):
        return SimArray(self.bit_generator.next().standard_normal(
            size if size is not None else (), dtype=dtype))

    def integers(self, low, high=None, size=None, dtype=np.int64):
        return SimArray(np.asarray(self.bit_generator.next().integers(
            low, high, size=size if size is not None else (), dtype=dtype)))


class SimBackend:
    """The backend of the simulated device type ``sim``: a GPU-like backend over NumPy memory."""

    name = "sim"
    xp = SIMXP
    ndarray = SimArray

    def __init__(self, device_type: str = "sim"):
        self.device_type = device_type
        self.allocations = 0
        self.d2h_copies = 0  # test hooks: copies from the device to the host, and their bytes
        self.d2h_bytes = 0

    def check_device(self, device) -> None:
        if device.type != self.device_type:
            raise ValueError(f"backend {self.name} does not serve device {device}")
        if device.index > 1:
            raise ValueError(f"device {device} does not exist: 2 sim device(s) found")

    def kernel(self, name: str):
        return getattr(SIMXP, RENAMES.get(name, name))

    def empty(self, n: int, np_dtype, device=None):
        self.allocations += 1
        return SimArray(np.empty(n, dtype=np_dtype))

    def view(self, data, offset: int, shape: tuple, strides: tuple):
        a = data._a
        isz = a.itemsize
        return SimArray(np.ndarray(shape, a.dtype, a, offset * isz, tuple(s * isz for s in strides)))

    def asarray(self, obj, np_dtype=None, copy=None, device=None):
        return _wrap(np.array(_unwrap(obj, host_ok=True), dtype=np_dtype, copy=copy))

    def to_host(self, arr) -> np.ndarray:
        self.d2h_copies += 1
        self.d2h_bytes += arr.nbytes
        return arr._a.copy()

    def from_host(self, arr, device=None):
        if type(arr) is SimArray:
            return arr
        return SimArray(np.array(arr, copy=True))

    def copy_to_device(self, arr, device):
        return SimArray(arr._a.copy())

    def ctx(self, device):
        return contextlib.nullcontext()

    def from_dlpack(self, obj, device=None, copy=None):
        dev = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else None
        if type(obj) is SimArray:
            return obj
        raise BufferError(f"the simulated device can't import DLPack data from device type {dev}")

    def data_ptr(self, arr) -> int:
        return arr._a.ctypes.data

    def rng(self, seed: int, device=None):
        return DeviceRng(SimGenerator(seed), self, device)

    def synchronize(self, device=None) -> None:
        pass

    def devices(self):
        return [Device("sim", 0), Device("sim", 1)]


SIM = SimBackend("sim")
register_backend("sim", SIM)
if _ENV_DEVICE.partition(":")[0] == "sim":
    xp.set_default_device(_ENV_DEVICE)
    os.environ["STRIDED_DEFAULT_DEVICE"] = _ENV_DEVICE  # for subprocesses (pytest-xdist workers)


@pytest.fixture
def sim():
    """The simulated device ``sim:0``."""
    return xp.Device("sim:0")


@pytest.fixture
def device():
    """The device the suite runs on: ``cpu``, or ``STRIDED_DEFAULT_DEVICE`` (e.g. ``cuda``
    over the CuPy stand-in in tests/cupy_standin, or a real GPU)."""
    return xp.get_default_device() if hasattr(xp, "get_default_device") else xp.asarray(0).device


ON_CPU = str(xp.asarray(0).device) == "cpu"
cpu_only = pytest.mark.skipif(not ON_CPU, reason="about host (NumPy) memory: the default device is not cpu")


def host(x) -> np.ndarray:
    """A strided array's values read on the host as NumPy (an explicit ``.cpu()``)."""
    return np.asarray(x.to_device("cpu"))


def shares_memory(a, b) -> bool:
    """Whether two strided arrays on one device share memory (``numpy.shares_memory``,
    or the device array module's own, e.g. ``cupy.shares_memory``), read without a copy."""
    na, nb = a._get_native(), b._get_native()
    if type(na) is np.ndarray:
        return bool(np.shares_memory(na, nb))
    import sys

    return bool(sys.modules[type(na).__module__.partition(".")[0]].shares_memory(na, nb))


@pytest.fixture
def default_float64():
    """Run a test with float64 as the default dtype, restoring float32 after."""
    xp.set_default_dtype(xp.float64)
    try:
        yield
    finally:
        xp.set_default_dtype(xp.float32)


def to_np(x) -> np.ndarray:
    """An independent NumPy copy of a strided array (via tolist-free host copy)."""
    return np.array(x._host(), copy=True)


def assert_same(x, ref: np.ndarray) -> None:
    """``x`` equals the NumPy reference in shape, dtype and every element."""
    assert isinstance(x, xp.Array), type(x)
    assert tuple(x.shape) == ref.shape
    assert x.dtype._np == ref.dtype, (x.dtype, ref.dtype)
    np.testing.assert_array_equal(to_np(x), ref)


LAYOUTS = ["contiguous", "strided", "negative", "transposed"]


def layout(ref: np.ndarray, name: str):
    """A strided array holding ``ref``'s values in the memory layout ``name``:
    contiguous, strided (every other element of a wider buffer), negative
    (negative strides) or transposed (last two axes swapped in memory)."""
    if name == "contiguous":
        x = xp.asarray(ref.copy())
    elif name == "strided":
        wide = np.zeros(ref.shape[:-1] + (2 * ref.shape[-1],), ref.dtype)
        wide[..., ::2] = ref
        x = xp.asarray(wide)[..., ::2]
    elif name == "negative":
        x = xp.flip(xp.asarray(np.flip(ref).copy()))
    elif name == "transposed":
        x = xp.matrix_transpose(xp.asarray(np.swapaxes(ref, -1, -2).copy()))
    else:
        raise ValueError(f"unknown layout {name!r}")
    np.testing.assert_array_equal(to_np(x), ref, err_msg=name)
    return x


def layouts(ref: np.ndarray) -> dict:
    """Every layout ``ref``'s dimensions allow, by name."""
    names = LAYOUTS[:1] + (LAYOUTS[1:3] if ref.ndim else []) + (LAYOUTS[3:] if ref.ndim >= 2 else [])
    return {name: layout(ref, name) for name in names}
