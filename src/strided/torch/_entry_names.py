"""PyTorch's names that programs meet first and ``strided.torch`` lacked: the legacy tensor types
(``torch.FloatTensor``, ``LongTensor``, ...) with ``torch.set_default_tensor_type``,
``torch.GradScaler``, ``torch.get_device_module``, ``torch.empty_permuted``, the autocast state
functions PyTorch 2.13 keeps at top level (``set_autocast_enabled``, ``set_autocast_dtype``, the
deprecated ``*_cpu_*`` / ``*_gpu_*`` spellings, the cache and nesting counters) and
``torch.set_anomaly_enabled``. Each means what PyTorch 2.13's does, or raises where strided cannot
have the thing.

Invariants: the legacy types are CPU types, as PyTorch's (``torch.cuda.FloatTensor`` is another
type): ``isinstance(x, torch.FloatTensor)`` is true exactly for a CPU float32 array, and
``torch.FloatTensor(...)`` makes a CPU array whatever the default device. The autocast
functions read and write ``amp.autocast_mode``'s state, so ``torch.autocast`` and they agree;
turning autocast on where PyTorch would then autocast ops raises NotImplementedError, as
``torch.autocast`` does (strided has no per-op autocast policy).

>>> import strided.torch as torch
>>> x = torch.FloatTensor([1, 2])
>>> isinstance(x, torch.FloatTensor), isinstance(x, torch.LongTensor), x.type()
(True, False, 'torch.FloatTensor')
>>> torch.LongTensor(2, 3).shape
strided.Size([2, 3])
"""

from __future__ import annotations

import functools
import importlib
import operator
import sys
import warnings

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import Array, Size
from .._core.caller import stacklevel
from .._core.device import Device
from ..autograd import anomaly_mode as _anomaly
from ._layouts import check_factory, strided as _strided_layout
from ._random import _UNSET
from .amp import autocast_mode as _am
from .amp.grad_scaler import GradScaler

# The legacy types PyTorch 2.13 has at top level and strided has a dtype for (PyTorch has no
# ComplexFloatTensor / ComplexDoubleTensor at top level; strided has no bfloat16 for
# BFloat16Tensor). Row: the type's name, the dtype's name, C++'s name of the scalar type
# (PyTorch's TypeError for a tensor of another dtype prints it).
_LEGACY = (
    ("FloatTensor", "float32", "float"), ("DoubleTensor", "float64", "double"),
    ("HalfTensor", "float16", "c10::Half"), ("LongTensor", "int64", "long int"),
    ("IntTensor", "int32", "int"), ("ShortTensor", "int16", "short int"),
    ("CharTensor", "int8", "signed char"), ("ByteTensor", "uint8", "unsigned char"),
    ("BoolTensor", "bool", "bool"),
)
_CPP_NAME = {dt: cpp for _, dt, cpp in _LEGACY}
_CPP_NAME.update({"complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
                  "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int"})

__all__ = [n for n, _, _ in _LEGACY] + [
    "set_default_tensor_type", "GradScaler", "get_device_module", "empty_permuted",
    "set_autocast_enabled", "set_autocast_dtype", "get_autocast_cpu_dtype", "set_autocast_cpu_enabled",
    "is_autocast_cpu_enabled", "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
    "clear_autocast_cache", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
    "autocast_increment_nesting", "autocast_decrement_nesting", "set_anomaly_enabled"]

_STATE = {"warned_default_tensor_type": False}


def _t():
    return sys.modules["strided.torch"]


def _tp_name(obj) -> str:
    """The type's name as PyTorch's messages print it (C's ``tp_name``)."""
    if isinstance(obj, Array):
        return "Tensor"
    t = type(obj)
    return f"numpy.{t.__name__}" if t.__module__ == "numpy" else t.__name__


# --- the legacy tensor types ------------------------------------------------------------------

class _LegacyTensorType(type):
    """The metaclass of the legacy tensor types: CPU arrays of the type's dtype are its
    instances, calling it is PyTorch's legacy constructor, and its other attributes are
    ``Tensor``'s (``torch.FloatTensor.add`` is ``Array.add``)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Array) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(Array, name)

    def __call__(cls, *args, device=None):
        return _legacy_new(cls, args, device)


def _options(dtype, device: str) -> str:
    return (f"TensorOptions(dtype={_CPP_NAME.get(dtype.name, dtype.name)}, device={device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _legacy_new(cls, args, device):
    """PyTorch's legacy constructor of a CPU type: ``T()``, ``T(*sizes)``, ``T(torch.Size)``,
    ``T(tensor)`` (an alias of a CPU tensor of the type's dtype), ``T(ndarray)``, ``T(data)``."""
    if device is not None:
        dev = device.type if isinstance(device, Device) else str(device).partition(":")[0]
        if dev != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {dev} was passed")
    dt = cls.dtype
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Array):
            if a.dtype is not dt or a.device.type != "cpu":
                raise TypeError(f"expected {_options(dt, 'cpu')} (got {_options(a.dtype, str(a.device))})")
            return a[...]  # (PyTorch: an alias of ``a``, sharing its memory and autograd history)
        if isinstance(a, np.ndarray):
            return _t().from_numpy(a).to(dt)  # (shares ``a``'s memory where the dtype is the type's)
        if not isinstance(a, (Size, int, np.integer)) or isinstance(a, bool):
            return _from_data(dt, a)
    sizes = []
    for i, a in enumerate(tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args):
        if isinstance(a, Array) and a.dtype.kind in "iu" and a.numel() == 1:
            a = a.item()
        if isinstance(a, bool) and i == 0:
            raise TypeError(f"new() received an invalid combination of arguments - got "
                            f"({', '.join(_tp_name(x) for x in args)}), but expected one of: (*, torch.device "
                            "device = None), (Tensor other), (tuple of ints size, *, torch.device device = None), "
                            "(object data, *, torch.device device = None)")
        if not isinstance(a, (int, np.integer)):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_tp_name(a)}\"")
        sizes.append(int(a))
    for d in sizes:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {sizes}")
    return _t().empty(tuple(sizes) if args else (0,), dtype=dt, device="cpu")


def _is_sequence(v) -> bool:
    return isinstance(v, (list, tuple, range)) or (isinstance(v, np.ndarray) and v.ndim > 0)


def _from_data(dt, data) -> Array:
    """A CPU array of dtype ``dt`` from nested sequences of numbers, each stored as PyTorch's
    legacy constructor stores it (``tensor_new.cpp``, ``store_scalar``)."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not _is_sequence(data):
        raise TypeError(f"new(): data must be a sequence (got {_tp_name(data)})")
    sizes, seq = [], data
    while _is_sequence(seq) or isinstance(seq, (str, bytes)):
        if isinstance(seq, (str, bytes)):
            raise ValueError(f"too many dimensions '{type(seq).__name__}'")
        sizes.append(len(seq))
        if not sizes[-1]:
            break
        seq = seq[0]
    convert = _float if dt.kind == "f" else _bool if dt.kind == "b" else _integral(dt)
    flat: list = []

    def store(obj, dim):
        if not _is_sequence(obj):
            raise TypeError("not a sequence")
        if len(obj) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(obj)})")
        if dim + 1 == len(sizes):
            flat.extend(convert(v) for v in obj)
        else:
            for v in obj:
                store(v, dim + 1)

    if 0 not in sizes:  # (PyTorch stores nothing into an empty tensor: [[], [1]] is 2x0)
        store(data, 0)
    return _t().asarray(flat, dtype=dt, device="cpu").reshape(tuple(sizes))


def _float(v) -> float:
    """PyTorch's ``THPUtils_unpackDouble``: a real number (a one-element tensor's value)."""
    if isinstance(v, Array):
        if v.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = v.item()
    if isinstance(v, (str, bytes, complex)) or not (hasattr(type(v), "__float__") or hasattr(type(v), "__index__")):
        raise TypeError(f"must be real number, not {_tp_name(v)}")
    return float(v) if hasattr(type(v), "__float__") else float(operator.index(v))


def _index(v) -> int:
    if isinstance(v, Array):
        if v.dtype.kind not in "biu" or v.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(v.item())
    return operator.index(v)


def _bool(v) -> bool:
    """PyTorch's ``THPUtils_unpackNumberAsBool``: a float or complex by its truth, else an index."""
    return bool(v) if isinstance(v, (float, complex)) else bool(_index(v))


def _integral(dt):
    info = np.iinfo(dt.name)
    lo, hi, name = int(info.min), int(info.max), dt.name

    def convert(v) -> int:
        """PyTorch's ``unpackIntegral``: a Python float checked for range and truncated, an integer
        checked as ``c10::checked_convert`` checks (an unsigned type wraps negatives down to -max)."""
        if isinstance(v, float):
            if v != v or not lo <= v <= hi:
                raise RuntimeError(f"value cannot be converted to type {name} without overflow")
            return int(v)
        i = _index(v)
        if not -2**63 <= i < 2**63:
            raise ValueError("Overflow when unpacking long long")
        if lo == 0:
            if i > hi or -i > hi:
                raise RuntimeError(f"value cannot be converted to type {name} without overflow")
            return i % (hi + 1)
        if not lo <= i <= hi:
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        return i
    return convert


def _legacy_type(name: str, dtype_name: str) -> type:
    doc = (f"PyTorch's legacy ``torch.{name}``: the CPU tensors of dtype {dtype_name}.\n\n"
           f"``isinstance(x, torch.{name})`` is true exactly for a CPU {dtype_name} array; "
           f"``torch.{name}(2, 3)`` is an uninitialised 2x3 CPU array of that dtype, "
           f"``torch.{name}([1, 2])`` one made from data (each number stored as PyTorch stores it), "
           f"``torch.{name}(x)`` an alias of a CPU {dtype_name} array ``x`` (TypeError for another "
           f"dtype or device), and ``x.type(torch.{name})`` casts to it.")
    return _LegacyTensorType(name, (), {
        "__module__": "strided.torch", "__qualname__": name, "__doc__": doc,
        "dtype": getattr(_dtypes, dtype_name), "is_cuda": False, "is_sparse": False,
        "layout": _strided_layout})


for _name, _dt, _ in _LEGACY:
    globals()[_name] = _legacy_type(_name, _dt)
del _name, _dt

_type = Array.type
if not getattr(_type, "_takes_legacy_types", False):
    @functools.wraps(_type)  # (the same name, signature and docstring: only the legacy types are added)
    def _type_with_legacy(self, dtype=None, non_blocking=False):
        # ``x.type(torch.LongTensor)``: the type's name, which ``x.type`` casts to
        if isinstance(dtype, _LegacyTensorType):
            dtype = f"torch.{dtype.__name__}"
        return _type(self, dtype, non_blocking)
    _type_with_legacy._takes_legacy_types = True
    Array.type = _type_with_legacy


_DEFAULT_TENSOR_TYPE_DEPRECATED = (
    "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() "
    "and torch.set_default_device() as alternatives.")


def set_default_tensor_type(t, /) -> None:
    """``torch.set_default_tensor_type(t)`` (deprecated in PyTorch, with its warning, once per
    process): make the floating-point legacy type ``t`` (or its name, ``"torch.DoubleTensor"``)
    the default, i.e. its dtype the default dtype (``torch.set_default_dtype``).

    >>> import strided.torch as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.set_default_tensor_type(torch.DoubleTensor)
    >>> torch.tensor([1.5]).dtype
    strided.float64
    >>> torch.set_default_tensor_type("torch.FloatTensor")
    """
    if not _STATE["warned_default_tensor_type"]:
        _STATE["warned_default_tensor_type"] = True  # (PyTorch's TORCH_WARN_ONCE)
        warnings.warn(_DEFAULT_TENSOR_TYPE_DEPRECATED, UserWarning, stacklevel=stacklevel())
    if isinstance(t, str):
        head, _, rest = t.partition(".")
        if head == "torch" and rest.startswith("cuda.") and rest[5:] in dict((n, 0) for n, _, _ in _LEGACY):
            if not _am._cuda_available():
                raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
            raise NotImplementedError(f"set_default_tensor_type({t!r}): strided has no default tensor type "
                                      f"on a device; use torch.set_default_device('cuda') and "
                                      f"torch.set_default_dtype()")
        obj = _t() if head == "torch" else importlib.import_module(head)
        for part in rest.split(".") if rest else ():
            obj = getattr(obj, part)
        t = obj
    if not isinstance(t, _LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if t.dtype.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    if t.dtype not in (_dtypes.float32, _dtypes.float64):
        raise NotImplementedError(f"set_default_tensor_type(torch.{t.__name__}): strided's default dtype is "
                                  f"float32 or float64 (torch.set_default_dtype), not {t.dtype.name}")
    _t().set_default_dtype(t.dtype)


# --- devices and creation ---------------------------------------------------------------------

def get_device_module(device=None):
    """``torch.get_device_module(device=None)``: the module of a device type (``torch.cuda`` for
    ``"cuda:1"``, ``torch.cpu`` for ``"cpu"``); with no device, the current accelerator's
    (``torch.cuda`` where strided has CUDA), else ``torch.cpu``.

    >>> import strided.torch as torch
    >>> torch.get_device_module("cuda:0").__name__
    'strided.torch.cuda'
    """
    if isinstance(device, Device):
        name = device.type
    elif isinstance(device, str):
        name = device.strip().partition(":")[0]
        if name not in _am._TORCH_DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_am._TORCH_DEVICE_TYPES)} device type at start "
                               f"of device string: {device}")
    elif device is None:
        name = "cuda" if _am._cuda_available() else "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if name not in ("cpu", "cuda"):
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")
    return importlib.import_module(f"strided.torch.{name}")


def _int_tuple(arg: str, pos: int, value) -> tuple:
    if not isinstance(value, (tuple, list, Size)):
        raise TypeError(f"empty_permuted(): argument '{arg}' (position {pos}) must be tuple of ints, not "
                        f"{_tp_name(value)}")
    out = []
    for i, v in enumerate(value):
        if isinstance(v, (bool, float)) or not hasattr(type(v), "__index__"):
            if arg == "size":
                raise TypeError(f"empty_permuted(): argument 'size' failed to unpack the object at pos {i + 1} "
                                f"with error \"type must be tuple of ints,but got {_tp_name(v)}\"")
            raise TypeError(f"empty_permuted(): argument '{arg}' (position {pos}) must be tuple of ints, but "
                            f"found element of type {_tp_name(v)} at pos {i}")
        out.append(operator.index(v))
    return tuple(out)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """``torch.empty_permuted(size, physical_layout, ...)``: an uninitialised dense array of shape
    ``size`` whose axes lie in memory in the order ``physical_layout`` (outermost first):
    ``t.stride(physical_layout[i])`` is the ``i``-th row-major stride of the permuted shape.

    >>> import strided.torch as torch
    >>> torch.empty_permuted((2, 3, 5, 7), (0, 2, 3, 1)).stride()
    (105, 1, 21, 3)
    """
    size = _int_tuple("size", 1, size)
    perm = _int_tuple("physical_layout", 2, physical_layout)
    check_factory("empty_permuted", layout, pin_memory)
    n = len(size)
    if len(perm) != n:
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; "
                           f"i.e. len(size) = {n} is not equal to len(physical_layout) = {len(perm)}")
    seen = [False] * n
    for i, p in enumerate(perm):
        if not 0 <= p < n:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {n - 1}, but got {p} at "
                               f"index {i}).  NB: negative dims not currently supported; file an issue if you "
                               f"want it.")
        if seen[p]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[p] = True
    physical = [size[p] for p in perm]
    for d in physical:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {physical}")
    stride, step = [0] * n, 1
    for i in range(n - 1, -1, -1):  # (PyTorch's contiguous strides: a 0-length axis counts as 1)
        stride[perm[i]] = step
        step *= max(physical[i], 1)
    return _t().empty_strided(size, tuple(stride), dtype=dtype, device=device, requires_grad=requires_grad)


# --- autocast state ---------------------------------------------------------------------------

def _check_bool(func: str, arg: str, pos: int, value) -> None:
    if type(value) is not bool:
        raise TypeError(f"{func}(): argument '{arg}' (position {pos}) must be bool, not {_tp_name(value)}")


def _set_enabled(device_type: str, enabled: bool, who: str) -> None:
    dev = _am._device_type(device_type, who)
    if enabled and (dev == "cpu" or _am._cuda_available()):
        raise NotImplementedError(
            f"{who}: turning autocast on for {dev!r} is not supported by strided (it has no per-op autocast "
            f"policy, so ops would not run in the autocast dtype as PyTorch's do); leave it off or cast the "
            f"tensors to the dtype you want explicitly")
    # (CUDA where strided has none: no array can be on it, so the flag changes no op, as in PyTorch)
    _am._STATE.enabled[dev] = enabled


def set_autocast_enabled(device_type=_UNSET, enabled=_UNSET, *extra) -> None:
    """``torch.set_autocast_enabled(device_type, enabled)`` (or ``(enabled)``: CUDA, the legacy
    form): turn autocast on or off for a device type, as ``torch.autocast`` does on entry;
    ``torch.is_autocast_enabled`` sees it. Turning it on where PyTorch would then autocast ops
    (CPU; CUDA where strided has CUDA) raises NotImplementedError: strided has no per-op policy.

    >>> import strided.torch as torch
    >>> torch.set_autocast_enabled("cpu", False)
    >>> torch.is_autocast_enabled("cpu")
    False
    """
    if extra or (device_type is _UNSET and enabled is _UNSET):
        got = ", ".join(_tp_name(a) for a in (device_type, enabled, *extra) if a is not _UNSET)
        raise TypeError(f"set_autocast_enabled() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n * (str device_type, bool enabled)\n * (bool enabled)\n")
    if enabled is _UNSET or device_type is _UNSET:  # (the legacy form: one bool, for CUDA)
        enabled = device_type if enabled is _UNSET else enabled
        _check_bool("set_autocast_enabled", "enabled", 1, enabled)
        device_type = "cuda"
    else:
        _check_bool("set_autocast_enabled", "enabled", 2, enabled)
        if not isinstance(device_type, str):
            raise TypeError(f"set_autocast_enabled(): argument 'device_type' (position 1) must be str, not "
                            f"{_tp_name(device_type)}")
    _set_enabled(device_type, enabled, "set_autocast_enabled()")


def set_autocast_dtype(device_type: str, dtype) -> None:
    """``torch.set_autocast_dtype(device_type, dtype)``: the dtype autocast uses on a device type
    (``torch.get_autocast_dtype`` and a later ``torch.autocast(device_type)`` read it).

    >>> import strided.torch as torch
    >>> torch.set_autocast_dtype("cuda", torch.float16)
    >>> torch.get_autocast_dtype("cuda")
    strided.float16
    """
    if not isinstance(dtype, _dtypes.DType):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not "
                        f"{_tp_name(dtype)}")
    _am._STATE.dtype[_am._device_type(device_type, "set_autocast_dtype()")] = dtype


def _deprecated(old: str, new: str) -> None:
    # (PyTorch's TORCH_WARN_DEPRECATION: each call, attributed to the caller)
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning,
                  stacklevel=stacklevel())


def _check_enabled(enabled) -> None:
    if type(enabled) is not bool:
        raise TypeError(f"enabled must be a bool (got {_tp_name(enabled)})")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated ``torch.set_autocast_cpu_enabled(enabled)`` (DeprecationWarning):
    ``torch.set_autocast_enabled("cpu", enabled)``."""
    _check_enabled(enabled)
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _set_enabled("cpu", enabled, "set_autocast_cpu_enabled()")


def is_autocast_cpu_enabled() -> bool:
    """Deprecated ``torch.is_autocast_cpu_enabled()`` (DeprecationWarning):
    ``torch.is_autocast_enabled("cpu")``."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _am._STATE.enabled["cpu"]


def _dtype_arg(func: str, dtype) -> None:
    if not isinstance(dtype, _dtypes.DType):
        raise TypeError(f"{func}(): argument 'dtype' (position 1) must be torch.dtype, not {_tp_name(dtype)}")


def set_autocast_cpu_dtype(dtype) -> None:
    """Deprecated ``torch.set_autocast_cpu_dtype(dtype)`` (DeprecationWarning):
    ``torch.set_autocast_dtype("cpu", dtype)``."""
    _dtype_arg("set_autocast_cpu_dtype", dtype)
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    _am._STATE.dtype["cpu"] = dtype


def get_autocast_cpu_dtype():
    """Deprecated ``torch.get_autocast_cpu_dtype()`` (DeprecationWarning):
    ``torch.get_autocast_dtype("cpu")`` (PyTorch's default, bfloat16, is NotImplementedError here:
    strided has no bfloat16)."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return _am.get_autocast_dtype("cpu")


def set_autocast_gpu_dtype(dtype) -> None:
    """Deprecated ``torch.set_autocast_gpu_dtype(dtype)`` (DeprecationWarning):
    ``torch.set_autocast_dtype("cuda", dtype)``."""
    _dtype_arg("set_autocast_gpu_dtype", dtype)
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    _am._STATE.dtype["cuda"] = dtype


def get_autocast_gpu_dtype():
    """Deprecated ``torch.get_autocast_gpu_dtype()`` (DeprecationWarning):
    ``torch.get_autocast_dtype("cuda")``."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return _am.get_autocast_dtype("cuda")


def clear_autocast_cache() -> None:
    """``torch.clear_autocast_cache()``: nothing to clear (strided keeps no cache of autocast
    casts; it never autocasts)."""


def is_autocast_cache_enabled() -> bool:
    """``torch.is_autocast_cache_enabled()``: whether autocast would cache its casts (True at
    start; ``torch.autocast(cache_enabled=...)`` sets it inside its region).

    >>> import strided.torch as torch
    >>> torch.is_autocast_cache_enabled()
    True
    """
    return _am._STATE.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """``torch.set_autocast_cache_enabled(enabled)``: the flag ``is_autocast_cache_enabled`` reads."""
    _check_enabled(enabled)
    _am._STATE.cache_enabled = enabled


def autocast_increment_nesting() -> int:
    """``torch.autocast_increment_nesting()``: one more level of autocast regions; the new level
    (``torch.autocast`` counts its regions on the same counter)."""
    _am._STATE.nesting += 1
    return _am._STATE.nesting


def autocast_decrement_nesting() -> int:
    """``torch.autocast_decrement_nesting()``: one level fewer; the new level (it may go below 0,
    as PyTorch's)."""
    _am._STATE.nesting -= 1
    return _am._STATE.nesting


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """``torch.set_anomaly_enabled(enabled, check_nan=True)``: turn autograd's anomaly detection on
    or off (``torch.autograd.set_detect_anomaly``'s state, read by ``torch.is_anomaly_enabled``).

    >>> import strided.torch as torch
    >>> torch.set_anomaly_enabled(False)
    >>> torch.is_anomaly_enabled()
    False
    """
    _check_bool("set_anomaly_enabled", "enabled", 1, enabled)
    _check_bool("set_anomaly_enabled", "check_nan", 2, check_nan)
    _anomaly.ANOMALY[:] = [enabled, check_nan]
