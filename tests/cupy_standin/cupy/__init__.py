"""A NumPy-backed stand-in for CuPy (test-only), on PYTHONPATH=tests/cupy_standin.

It offers the part of CuPy's API that strided's ``_backends/_cupy.py`` uses,
and behaves like a GPU where it matters for finding host round-trips:
``numpy.asarray(x)`` raises TypeError as CuPy does, and every copy to the host
(``get()``, ``asnumpy``, ``item()``, ``tolist()``, printing) counts in
``cupy.cuda.d2h_copies`` (reset it to 0 in a test).

Where real CuPy's answers differ from NumPy's (signed zeros of 0-d arrays made
from host scalars, ``%``, ``//``, NaN in ``maximum``/``clip``, complex special
values, no LinAlgError, CUDA after ``fork``, ...), the stand-in gives CuPy's:
``_cupy_differences.py`` lists each difference with its source.
"""

import contextlib
import operator
import types

import numpy as np

from . import _cupy_differences as _diff  # noqa: E402
from . import cuda  # noqa: E402

_device_used = _diff.device_used

_WRAP = object()

_CUPY_MSG = ("Implicit conversion to a NumPy array is not allowed. "
             "Please use `.get()` to construct a NumPy array explicitly.")


def _host_copy():
    _device_used()
    cuda.d2h_copies += 1


def _reject_host(v):
    raise TypeError(f"Unsupported type {type(v)} (a host NumPy array given to a device kernel)")


def _unwrap(v, host_ok=False):
    """Device arrays -> their NumPy memory; a host array is an error unless ``host_ok``."""
    t = type(v)
    if t is ndarray:
        _device_used()
        return v._a
    if t is np.ndarray:
        return v if host_ok else _reject_host(v)
    if t is list or t is tuple:
        return t(_unwrap(e, host_ok) for e in v)
    return v


def _wrap(r):
    """NumPy results -> device arrays; a NumPy scalar becomes a 0-d array, as in CuPy."""
    if isinstance(r, np.ndarray):
        _device_used()
        return ndarray(r, _WRAP)
    if isinstance(r, np.generic):
        return ndarray(np.asarray(r), _WRAP)
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
    "all any argmax argmin argpartition argsort byteswap choose compress conj "
    "conjugate copy cumprod cumsum diagonal dot flatten max mean min nonzero partition "
    "prod ptp put ravel repeat reshape round searchsorted sort squeeze std sum swapaxes "
    "trace transpose var view").split()
_HOST_METHODS = ("item", "tolist", "tobytes")
# Methods that are CuPy's function of the same name (the function's differences apply)
_METHODS_AS_FUNCTIONS = frozenset(
    "all any argmax argmin argsort cumprod cumsum max mean min prod ptp round std sum trace "
    "var".split())


class ndarray:
    """An array in the simulated device's memory, behaving like ``cupy.ndarray``."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        # cupy.ndarray(shape, dtype, memptr, strides): a view of device memory.
        if isinstance(shape, np.ndarray) and dtype is _WRAP:
            self._a = shape
            return
        _device_used()
        dtype = np.dtype(dtype)
        if memptr is None:
            self._a = np.empty(shape, dtype, order=order)
        else:
            self._a = np.ndarray(shape, dtype, memptr._mem, memptr._off, strides)

    @property
    def data(self):
        """The MemoryPointer of element [0, ..., 0]."""
        mem = _allocation(self._a)
        if not mem.size:
            return MemoryPointer(mem, 0)
        return MemoryPointer(mem, self._a.__array_interface__["data"][0] - mem.__array_interface__["data"][0])

    @property
    def device(self):
        return cuda.Device(0)

    def get(self, stream=None, order="C", out=None):
        """A host copy (counted in ``cupy.cuda.d2h_copies``)."""
        _host_copy()
        return self._a.copy()

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    strides = property(lambda self: self._a.strides)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    flags = property(lambda self: _Flags(self._a))
    T = property(lambda self: ndarray(self._a.T, _WRAP))
    mT = property(lambda self: ndarray(self._a.mT, _WRAP))

    @property
    def base(self):
        return None if self._a.base is None else ndarray(np.asarray(self._a.base), _WRAP)

    @property
    def real(self):
        return ndarray(self._a.real, _WRAP)

    @real.setter
    def real(self, v):
        self._a.real = _unwrap(v)

    @property
    def imag(self):
        return ndarray(self._a.imag, _WRAP)

    @imag.setter
    def imag(self, v):
        self._a.imag = _unwrap(v)

    def fill(self, value):
        _device_used()
        _diff.METHODS["fill"](self._a, _unwrap(value, host_ok=True))

    def clip(self, min=None, max=None, out=None):
        # CuPy's ndarray.clip is cupy.clip's kernel (cupy/_core/_routines_math.pyx _ndarray_clip)
        with np.errstate(all="ignore"):
            return _wrap(_diff.FUNCTIONS["clip"](np.clip, self._a, _unwrap(min), _unwrap(max),
                                                 out=_unwrap(out)))

    def __getattr__(self, name):
        if name in _METHODS:
            meth = getattr(self._a, name)
            rule = _diff.FUNCTIONS.get(name) if name in _METHODS_AS_FUNCTIONS else None
            if rule is not None:  # (CuPy's method is its function: the same layout)
                mem = self._a
                return lambda *a, **k: _wrap(rule(lambda m, *a2, **k2: getattr(m, name)(*a2, **k2),
                                                  mem, *_unwrap(a), **{n: _unwrap(v) for n, v in k.items()}))
            if name == "copy":
                mem = self._a
                return lambda order="C": _wrap(_diff.METHODS["copy:layout"](mem, mem.copy(order), order))
            return lambda *a, **k: _wrap(meth(*_unwrap(a), **{n: _unwrap(v) for n, v in k.items()}))
        if name in _HOST_METHODS:
            _host_copy()
            return getattr(self._a, name)
        raise AttributeError(f"'cupy.ndarray' (simulated) has no attribute {name!r}")

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
        key = _diff.METHODS["__getitem__:indices"](self._a.shape, _unwrap(key, host_ok=True))
        r = self._a[key]
        if _diff.is_advanced(key):  # advanced_indexing_results_are_c_contiguous
            r = _diff.c_layout(r)
        return _wrap(r)

    def __setitem__(self, key, value):
        _device_used()
        on_device = type(value) is ndarray
        mem = self._a
        key = _diff.METHODS["__setitem__:indices"](mem.shape, _unwrap(key, host_ok=True))
        if not on_device and isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value) != 0 \
                and not _diff.is_advanced(key):
            # (basic indexing: _scatter_op's y.fill(value); an advanced key takes host data,
            # core.array(value): _routines_indexing.pyx _scatter_op_single)
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        value = _unwrap(value, host_ok=True)
        if on_device and value.dtype != mem.dtype:
            value = _diff.cuda_cast(value, mem.dtype)  # the copy kernel's cast

        def assign(v):
            mem[key] = v
        _diff.METHODS["__setitem__"](mem, key, value, lambda v: _diff.METHODS[
            "__setitem__:duplicates"](mem, key, v, assign), on_device)

    def astype(self, dtype, order="K", casting=None, subok=None, copy=True):
        kw = {} if casting is None else {"casting": casting}
        r = _diff.METHODS["astype"](self._a, dtype, order=order, copy=copy, **kw)
        if r is not self._a:  # (a copy: CuPy's layout for ``order``)
            r = _diff.METHODS["astype:layout"](self._a, r, order)
        return _wrap(r)

    def sort(self, axis=-1, kind=None):
        # in place, stable (_cupy_differences: sorts_are_always_stable)
        _device_used()
        self._a.sort(axis, kind=_diff.FUNCTIONS["sort:kind"](kind))

    def take(self, indices, axis=None, out=None):
        return _NS.take(self, indices, axis=axis, out=out)

    # NumPy protocols: a NumPy function or ufunc on device arrays runs on the device
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        f = _Ufunc(ufunc)
        f = f if method == "__call__" else getattr(f, method)
        return f(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        # as CuPy's: NumPy's function name calls cupy's (with its differences)
        mod = getattr(func, "__module__", "") or ""
        prefix = "linalg." if mod.endswith("linalg") else "fft." if mod.endswith("fft") else ""
        rule = _diff.FUNCTIONS.get(prefix + func.__name__)
        if rule is not None and func.__name__ not in _FROM_HOST:
            func = (lambda _r, _f: lambda *a, **k: _r(_f, *a, **k))(rule, func)
        with np.errstate(all="ignore"):
            return _wrap(func(*_unwrap(args), **{n: _unwrap(v) for n, v in kwargs.items()}))

    def __dlpack_device__(self):
        return (_SIM_DLPACK_DEVICE, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        # Note: the capsule is NumPy's (its DLDevice says CPU), since the memory is
        # host memory; __dlpack_device__ says CUDA, so NumPy's from_dlpack refuses it
        # as it refuses CuPy's arrays.
        # As CuPy 13+: dl_device=(kDLCPU, 0) exports a host copy, refused with copy=False.
        if _SIM_DLPACK_DEVICE != _KDL_CUDA:  # a device type no consumer knows (conftest's sim)
            raise BufferError("this device's memory can't be exported via DLPack")
        if dl_device is not None and tuple(dl_device) == (1, 0):
            if copy is False:  # (cupy/_core/core.pyx ndarray.__dlpack__)
                raise ValueError("GPU memory cannot be exported to CPU without copy.")
            return self.get().__dlpack__(max_version=max_version)
        if dl_device is not None and tuple(dl_device) != (_SIM_DLPACK_DEVICE, 0):
            raise BufferError("unsupported device requested.")
        if copy is True:  # _cupy_differences: dlpack_copy_true_on_the_device_raises
            raise BufferError(_diff.DLPACK_COPY_MESSAGE)
        return self._a.__dlpack__(max_version=max_version, copy=copy)


# The ufunc of each operator (CuPy's operators call its ufuncs, differences included).
_OPERATOR_UFUNCS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "matmul": np.matmul,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "lshift": np.left_shift, "rshift": np.right_shift, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal,
    "neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert,
}


def _operators(name):
    """``__op__``, ``__rop__`` and ``__iop__`` of ndarray for the operator ``name``."""
    uf = _OPERATOR_UFUNCS[name]

    def f(self, other):
        if not isinstance(other, (ndarray, np.ndarray, np.generic, int, float, complex, bool)):
            return NotImplemented
        with np.errstate(all="ignore"):
            return _wrap(_diff.call_ufunc(uf, (self._a, _unwrap(other)), {}))

    def r(self, other):
        with np.errstate(all="ignore"):
            return _wrap(_diff.call_ufunc(uf, (_unwrap(other), self._a), {}))

    def i(self, other):
        with np.errstate(all="ignore"):
            _diff.call_ufunc(uf, (self._a, _unwrap(other)), {"out": self._a})
        return self

    return f, r, i


for _n in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift "
           "lt le gt ge eq ne").split():
    _f, _r, _i = _operators(_n)
    setattr(ndarray, f"__{_n}__", _f)
    if _n not in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(ndarray, f"__r{_n}__", _r)
        setattr(ndarray, f"__i{_n}__", _i)
for _n in ("neg", "pos", "abs", "invert"):
    setattr(ndarray, f"__{_n}__", lambda self, _u=_OPERATOR_UFUNCS[_n]: _wrap(
        _diff.call_ufunc(_u, (self._a,), {})))
ndarray.__hash__ = None

# The DLPack device type of this memory: CUDA's, which NumPy refuses to read (tests/conftest.py
# loads a private copy of this module for its ``sim`` device with a type no consumer knows).
_KDL_CUDA = 2
_SIM_DLPACK_DEVICE = _KDL_CUDA


class _Ufunc:
    """A ufunc on device arrays; ``reduce``/``accumulate`` only where CuPy has them."""

    def __init__(self, uf):
        self._uf = uf
        self.__name__ = uf.__name__

    def __getattr__(self, name):
        return getattr(self._uf, name)

    def __call__(self, *args, **kw):
        with np.errstate(all="ignore"):
            return _wrap(_diff.call_ufunc(self._uf, _unwrap(args), {n: _unwrap(v) for n, v in kw.items()}))

    def _method(self, name, array, allowed, kw):
        if self._uf.__name__ not in ("add", "multiply"):
            raise NotImplementedError(f"`{self._uf.__name__}.{name}` is not supported yet (CuPy)")
        bad = set(kw) - allowed
        if bad:
            raise TypeError(f"{name}() got unexpected keyword arguments {sorted(bad)} (CuPy)")
        with np.errstate(all="ignore"):
            r = getattr(self._uf, name)(_unwrap(array), **{n: _unwrap(v) for n, v in kw.items()})
        # CuPy's add/multiply.reduce is array.sum/prod, accumulate is cumsum/cumprod
        # (_kernel.pyx ufunc.reduce, ufunc.accumulate): their layouts
        if name == "reduce" and kw.get("out") is None:  # (reduction_results_are_c_contiguous)
            r = _diff.c_layout(r)
        elif name == "accumulate" and kw.get("out") is None:  # (scan_results_are_rolled_batches)
            r = _diff.FUNCTIONS["cumsum"](lambda *a, **k: r, _unwrap(array), kw.get("axis", 0))
        return _wrap(r)

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


class _Namespace:
    """The simulated device's array module (``cupy`` for ``cuda``): NumPy's names on ndarrays."""

    ndarray = ndarray

    def __init__(self, module=np, prefix=""):
        self._m = module
        self._prefix = prefix  # "linalg." for cupy.linalg: the key of its functions' differences
        self.__name__ = "sim." + module.__name__
        self.accessed = set()  # names used, to compare with CuPy's namespace

    def __getattr__(self, name):
        obj = getattr(self._m, name)
        self.accessed.add(name)
        if isinstance(obj, np.ufunc):
            f = _Ufunc(obj)
        elif isinstance(obj, types.ModuleType):
            f = _Namespace(obj)
        elif isinstance(obj, type) or not callable(obj):
            return obj  # dtypes, finfo/iinfo, exceptions, constants
        else:
            host_ok = name in _FROM_HOST
            rule = _diff.FUNCTIONS.get(self._prefix + name)
            func = obj if rule is None else (lambda *a, _r=rule, _o=obj, **k: _r(_o, *a, **k))

            def f(*args, **kw):
                # (the differences of asarray/array are those of host data: a device array
                # goes to NumPy's function as it is)
                fn = obj if host_ok and args and type(args[0]) is ndarray else func
                with np.errstate(all="ignore"):
                    r = fn(*_unwrap(args, host_ok), **{n: _unwrap(v, host_ok) for n, v in kw.items()})
                if host_ok and args and type(args[0]) is not ndarray and isinstance(r, np.ndarray):
                    # Host data always lands in new device memory (a host-to-device copy),
                    # never a view of the caller's buffer; CuPy's order 'K' of host data is
                    # F for F-only-contiguous arrays, C otherwise.
                    r = np.array(r, copy=True, order="F" if r.flags.fnc else "C")
                return _wrap(r)
            f.__name__ = name
        setattr(self, name, f)
        return f




def _allocation(a):
    """The memory block that ``a`` views, as flat bytes (what a device pointer points into).

    The root of ``a``'s bases owns the block, but need not be C-contiguous (NumPy's
    kernels keep their input's axis order), so the block is its byte extent.
    """
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.ndim == 1 and root.dtype == np.uint8 and root.strides == (1,):
        return root  # already a block (made here)
    if root.size == 0:
        return np.empty(0, np.uint8)
    lo = sum((n - 1) * s for n, s in zip(root.shape, root.strides) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(root.shape, root.strides) if s > 0) + root.itemsize
    # the element at the lowest address, as an array (``...`` keeps a 0-d root an array)
    first = root[tuple(slice(-1, None) if s < 0 else slice(0, 1) for s in root.strides) + (Ellipsis,)]
    return np.lib.stride_tricks.as_strided(first.reshape(-1).view(np.uint8), (hi - lo,), (1,))


class MemoryPointer:
    """A pointer into device memory: (allocation, byte offset), as ``cupy.cuda.MemoryPointer``."""

    __slots__ = ("_mem", "_off")

    def __init__(self, mem, off):
        self._mem, self._off = mem, off

    @property
    def ptr(self):
        return self._mem.__array_interface__["data"][0] + self._off

    def __add__(self, n):
        return MemoryPointer(self._mem, self._off + n)

    def copy_from_device(self, src, size):
        self._mem[self._off:self._off + size] = src._mem[src._off:src._off + size]


cuda.MemoryPointer = MemoryPointer
_NS = _Namespace()


def __getattr__(name):
    return getattr(_NS, name)


def asnumpy(a, stream=None, order="C", out=None):
    """A host copy of ``a`` (counted); host input is returned as a NumPy array."""
    if isinstance(a, ndarray):
        return a.get()
    return np.asarray(a, order=order)


def from_dlpack(obj):
    if isinstance(obj, ndarray):
        return obj
    kind = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else None
    if kind != _SIM_DLPACK_DEVICE:
        raise BufferError(f"cupy.from_dlpack: device type {kind} is not a CUDA device")
    return ndarray(np.from_dlpack(obj), _WRAP)


fft = _Namespace(np.fft, "fft.")
linalg = _Namespace(np.linalg, "linalg.")


class _BitGenerator:
    """Device-resident generator state, like CuPy's cuRAND states (``_state``)."""

    def __init__(self, seed):
        self._state = ndarray(np.array([seed & (2**64 - 1), 0], dtype=np.uint64), _WRAP)

    def _next(self):
        seed, n = (int(v) for v in self._state._a)
        self._state._a[1] += 1
        return np.random.default_rng([seed, n])


class Generator:
    """``cupy.random.Generator``: random, standard_normal, integers (no permutation)."""

    def __init__(self, bit_generator):
        self.bit_generator = bit_generator

    def random(self, size=None, dtype=np.float64, out=None):
        return ndarray(np.asarray(self.bit_generator._next().random(size, dtype=dtype)), _WRAP)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        return ndarray(np.asarray(self.bit_generator._next().standard_normal(size, dtype=dtype)), _WRAP)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        return ndarray(np.asarray(self.bit_generator._next().integers(
            low, high, size=size, dtype=dtype, endpoint=endpoint)), _WRAP)


random = types.SimpleNamespace(default_rng=lambda seed=None: Generator(_BitGenerator(int(seed or 0))),
                               Generator=Generator)
