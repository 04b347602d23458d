"""Creation functions: the standard's, plus PyTorch's spellings.

Shapes may be given as a tuple (the standard) or as varargs (PyTorch:
``zeros(2, 3)``). Every function takes ``dtype=`` and ``device=``; the
torch-style extras ``out=``, ``requires_grad=`` and ``names=`` are
keyword-only.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .._core import dtypes as _dtypes, layout as _layout
from .._core.array import _LATE, Array, Size
from .._core.device import CPU as _CPU, Device, DeviceMismatchError, _default_device, as_device
from .._core.dispatch import api, check_out, out_native, quiet
from .._core.call import adopt as _adopt
from .._core.dtypes import DType
from .._core.storage import Storage
from .._core import cext as _cext, pool as _pool

__all__ = [
    "asarray", "tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full",
    "arange", "linspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like",
    "meshgrid", "tril", "triu", "from_dlpack",
]

_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)
_BY_NP = _dtypes._BY_NP  # NumPy dtype -> DType
_DLPACK_HOST = (1, 3)  # DLPack device types of host memory: kDLCPU, kDLCUDAHost
_np_empty = np.empty
_np_zeros = np.zeros
_np_ones = np.ones
_ALIGNED_EMPTY = getattr(_cext.load("_chot"), "aligned_empty", None)
_ALIGN_FROM = 16 << 10  # (_chot's aligned range starts there: views.c, ALIGN_FROM)


# Host buffers of the creation functions start a cache line from 16 KiB on, as the compiled
# path's results do (_chot's aligned results; the pool's blocks above its threshold start a
# page) and as PyTorch aligns every buffer: malloc's start 16 bytes into one (glibc's mmap'd
# chunks too), and an AVX-512 loop then splits every 64-byte load over two lines (sum of
# 1e5 float32: 7.7 vs 6.6 us). zeros above the pool threshold keep NumPy's calloc (pages
# the kernel zeroes when first touched: no pass of its own).
def _host_buffer(shape, dt, pooled=True):
    """An aligned uninitialised ndarray for a buffer of 16 KiB or more (_chot.aligned_empty's
    below the pool threshold, the pool's block from it when ``pooled``), or None: NumPy's
    own allocation then (shape: a tuple of ints)."""
    nbytes = math.prod(shape) * dt.itemsize
    if nbytes < _ALIGN_FROM:
        return None
    r = _ALIGNED_EMPTY(shape, dt) if _ALIGNED_EMPTY is not None else None
    if r is None and pooled and nbytes >= _pool.MIN_BYTES[0]:
        r = _pool.empty(shape, dt, nbytes)
    return r


def _host_empty(shape, dt):
    """numpy.empty(shape, dt), 64-byte aligned from 16 KiB."""
    r = _host_buffer(shape, dt)
    return r if r is not None else _np_empty(shape, dt)


def _host_filled(shape, dt, fill):
    """numpy.full(shape, fill, dt) in _host_buffer's buffer (the same values and warnings:
    numpy.full's own ``copyto(a, fill, casting="unsafe")``); zeros from the pool threshold
    keep calloc's pages, zeroed when first touched."""
    zero = type(fill) is builtins.int and fill == 0
    r = _host_buffer(shape, dt, pooled=not zero)
    if r is None:
        return _np_zeros(shape, dt) if zero else np.full(shape, fill, dt)
    np.copyto(r, fill, casting="unsafe")
    return r


def _host_zeros(shape, dt):
    return _host_filled(shape, dt, 0)


def _host_ones(shape, dt):
    return _host_filled(shape, dt, 1)


_BIG_MAKE = {_np_zeros: _host_zeros, _np_ones: _host_ones, _np_empty: _host_empty}
_np_arange = np.arange
_np_int64 = np.dtype(np.int64)
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


# --- helpers -------------------------------------------------------------------

def _as_dtype(dtype, func: str = "") -> DType | None:
    if dtype is None or type(dtype) is DType:
        return dtype
    return _dtypes.canon(dtype, func)


def _shape_args(args, func: str) -> tuple:
    """``(2, 3)``, ``((2, 3),)``, ``([2, 3],)`` or ``(Size,)`` -> ``(2, 3)``."""
    if len(args) == 1 and not isinstance(args[0], (builtins.int, np.integer)) \
            and not (type(args[0]) is Array):
        args = args[0]
        if isinstance(args, (builtins.int, np.integer)):
            args = (args,)
    shape = _layout.shape_ints(args, func)
    for n in shape:
        if n < 0:
            raise _layout.ShapeError(f"{func}(): negative dimension {n} in shape {shape}")
    return shape


_new_array = Array._new


class ValueOverflowError(OverflowError, RuntimeError):
    """A value that the dtype cannot hold (``asarray([300], dtype=uint8)``, a fill, an
    ``arange`` end): an OverflowError, as NumPy's, and the RuntimeError PyTorch raises for the
    same calls ("value cannot be converted to type uint8 without overflow")."""


def wrap_new(r, dtype: DType, device) -> Array:
    """Adopt a freshly allocated native array as a new Array (lazy storage)."""
    if r.dtype is not dtype._np:
        r = r.astype(dtype._np)
    return Array._new(r, None, 0, r.shape, None, dtype, device)


def _finish(arr: Array, func: str, out=None, requires_grad=False, names=None) -> Array:
    if out is not None:
        check_out(func, out, arr._shape, arr._dtype, arr._device)
        out_native(out)[...] = arr._get_native()
        arr = out
    if names is not None:
        arr = _LATE["set_names"](arr, names)
    if requires_grad:
        arr = _LATE["set_requires_grad"](arr, True)
    return arr


def share_native(a, device) -> Array:
    """An Array sharing the memory of native array ``a`` (any strides)."""
    dtype = _dtypes.from_numpy_dtype(a.dtype)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    isz = a.itemsize
    if a.flags.c_contiguous:
        flat = a.reshape(-1)
        return Array._new(a, Storage(flat, dtype, device), 0, a.shape,
                          _layout.contiguous_strides(a.shape), dtype, device)
    xp = device.backend.xp
    if a.size == 0 or any(s % isz for s in a.strides):
        c = xp.ascontiguousarray(a) if a.size else xp.empty(a.shape, a.dtype)
        return share_native(c, device)
    est = tuple(s // isz for s in a.strides)
    lo, hi = _layout.extent(0, a.shape, est)
    flat = _flat_in_base(a, lo, hi - lo + 1) if type(a) is np.ndarray else None
    if flat is None:
        corner = a[tuple(slice(n - 1, n) if s < 0 else slice(0, 1) for s, n in zip(est, a.shape))]
        flat = xp.lib.stride_tricks.as_strided(corner, shape=(hi - lo + 1,), strides=(isz,))
    return Array._new(a, Storage(flat, dtype, device), -lo, a.shape, est, dtype, device)


def _flat_in_base(a: np.ndarray, lo: int, n: int):
    """The 1-D ``n``-element view of the memory ``a`` spans (``lo``: its first element,
    in elements from ``a``'s own start) as a slice of ``a.base`` when that is a writeable
    C-contiguous ndarray of ``a``'s dtype and ``a`` is writeable, else None.

    The same memory as share_native's ``as_strided`` view of a corner (scikit-learn hands
    such views back every solver iteration: ``coef.reshape((k, -1), order="F")[:, :-1]``),
    without its Python-level ``__array_interface__`` round trip (~4x the cost of the slice).
    Only where ``a`` may be written: a slice of a writeable base would be writeable."""
    b = a.base
    if type(b) is not np.ndarray or not a.flags.writeable or not b.flags.writeable \
            or not b.flags.c_contiguous or b.dtype != a.dtype:
        return None
    isz = a.itemsize
    start, rem = divmod(a.__array_interface__["data"][0] - b.__array_interface__["data"][0], isz)
    start += lo
    if rem or start < 0 or start + n > b.size:
        return None
    return b.reshape(-1)[start:start + n]


def _infer_seq_dtype(obj, nd) -> DType:
    """PyTorch's inference for nested Python sequences."""
    k = nd.kind
    if k == "b":
        return _dtypes.bool
    if _has_typed_leaf(obj):
        return _dtypes.from_numpy_dtype(nd)
    if k in "iu":
        return _dtypes.int64 if k == "i" else _dtypes.from_numpy_dtype(nd)
    if k == "f":
        return _dtypes.get_default_dtype()
    if k == "c":
        return _dtypes.default_complex()
    raise TypeError(f"can't build an array from a sequence of {nd}")


def _has_typed_leaf(obj) -> builtins.bool:
    while isinstance(obj, (list, tuple)) and len(obj):
        obj = obj[0]
    return hasattr(obj, "dtype")


def _to_device(arr: Array, device, copy=None) -> Array:
    return _LATE["to_device"](arr, device, copy=copy)


# --- asarray and friends -----------------------------------------------------

def asarray(obj, /, *, dtype=None, device=None, copy=None, requires_grad=False, names=None) -> Array:
    """Convert ``obj`` to an array; shares memory with NumPy arrays and our arrays when it can.

    >>> import strided as xp
    >>> xp.asarray([[1, 2], [3, 4]]).shape
    strided.Size([2, 2])
    """
    if type(obj) is Array and copy is None and requires_grad is False and names is None \
            and (dtype is None or dtype is obj._dtype) and (device is None or device is obj._device):
        # Hot path: an array of ours as it is (array-api-compat's and SciPy's wrappers
        # pass every argument through asarray: 5,300 vs NumPy's 1,400 instructions)
        return obj
    if type(obj) is Array and copy is True and requires_grad is False and names is None \
            and (dtype is None or dtype is obj._dtype) and (device is None or device is obj._device):
        # Hot path: a copy of an array of ours as it is (scikit-learn's logsumexp and
        # softmax: ``asarray(x, copy=True)`` each solver iteration): _asarray's copy branch
        return _LATE["copy_keep_order"](obj)
    t = type(obj)
    if (t is builtins.float or t is builtins.bool) and copy is None and requires_grad is False \
            and names is None and (dtype is None or type(dtype) is DType):
        # Hot path: a Python float or bool as a 0-d array on the CPU (array-api-compat and
        # SciPy make their constants so: 14,500 vs NumPy's 2,600 instructions), the
        # general path below inlined where it has nothing to check.
        dev = as_device(device)
        dt = _dtypes.scalar_dtype(obj) if dtype is None else dtype
        if dev.type == "cpu" and (t is builtins.bool or dt.kind in "fc"):
            return wrap_new(np.asarray(obj, dtype=dt._np), dt, dev)
    elif t is np.ndarray and copy is None and requires_grad is False and names is None \
            and (dtype is None or (type(dtype) is DType and dtype._np is obj.dtype)):
        # Hot path: a NumPy array adopted on the CPU as it is, its own dtype asked for or
        # none (scikit-learn's ``asarray(coef_part, dtype=X.dtype, device=X.device)`` of
        # SciPy's optimiser's vector each iteration): _asarray's and _from_host's checks
        # have nothing to do; _from_native adopts it as the general path does.
        dev = as_device(device)
        if dev.type == "cpu":
            return _from_native(obj, None, dev, None)
    elif t is list and copy is not False and requires_grad is False and names is None \
            and (dtype is None or type(dtype) is DType):
        # Hot path: a flat list of Python floats, ints or bools on the CPU (``asarray([0.0,
        # 1.0])``: 4.2 us against NumPy's 0.26), where _from_sequence has nothing to check.
        dev = as_device(device)
        if dev.type == "cpu":
            made = _flat_list(obj, dtype)
            if made is not None:
                return wrap_new(made[0], made[1], dev)
    dtype = _as_dtype(dtype, "asarray")
    arr = _asarray(obj, dtype, device, copy)
    if requires_grad or names is not None:
        arr = _finish(arr, "asarray", None, requires_grad, names)
    return arr


# (compiled, its entry point returns an array of ours that nothing asked changes before
# the error state and this frame: _core/dispatch.quiet, kind 7)
asarray._fast_identity = True


def _asarray(obj, dtype, device, copy) -> Array:
    t = type(obj)
    if t is Array:
        dev = obj._device if device is None else as_device(device)
        if dev is not obj._device:
            if copy is False:
                raise ValueError(f"asarray(copy=False): moving from {obj._device} to {dev} needs a copy")
            obj = _to_device(obj, dev)
            copy = None
        if dtype is not None and dtype is not obj._dtype:
            if copy is False:
                raise ValueError(f"asarray(copy=False): casting {obj._dtype.name} to {dtype.name} needs a copy")
            return _LATE["astype"](obj, dtype)
        if copy:
            return _LATE["copy_keep_order"](obj)
        return obj
    dev = as_device(device)
    backend = dev.backend
    if copy is False and (t in _SCALARS or isinstance(obj, (list, tuple, np.generic))):
        raise ValueError(f"asarray(copy=False): a {t.__name__} can't become an array without a copy")
    if t in _SCALARS:
        dt = dtype or _dtypes.scalar_dtype(obj)
        if dt.kind in "iu" and t is builtins.int:
            info = np.iinfo(dt._np)
            if not info.min <= obj <= info.max:
                raise ValueOverflowError(f"Python int {obj} is out of bounds for {dt.name}")
        if dt.kind in "biu" and t in (builtins.float, builtins.complex):
            # Note: like PyTorch, a float stored into an integer dtype truncates.
            if t is builtins.complex:
                raise TypeError(f"can't convert complex {obj} to {dt.name}")
            if not math.isfinite(obj):
                raise ValueError(f"can't convert {obj} to {dt.name}")
            obj = builtins.int(obj)
        return wrap_new(backend.asarray(obj, dt._np, device=dev), dt, dev)
    if isinstance(obj, np.ndarray):
        return _from_host(obj, dtype, dev, copy)
    if isinstance(obj, backend.ndarray):
        return _from_native(obj, dtype, dev, copy)
    if device is None and hasattr(obj, "__dlpack_device__") and \
            int(obj.__dlpack_device__()[0]) not in _DLPACK_HOST:
        # Note: an array in device memory (a CuPy array, a CUDA tensor) stays on its
        # device, as the standard asks of asarray(device=None); its memory is shared.
        arr = _LATE["from_dlpack"](obj, copy=copy)
        return _asarray(arr, dtype, None, False if copy is False else None)
    if isinstance(obj, (np.generic,)):
        return _from_host(np.asarray(obj), dtype, dev, True)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (list, tuple)):
        try:
            return _from_native(backend.from_dlpack(obj, dev), dtype, dev, copy)
        except (TypeError, BufferError, AttributeError):
            pass
    if isinstance(obj, (list, tuple)):
        return _from_sequence(obj, dtype, dev)
    if hasattr(obj, "__array__") or hasattr(obj, "__array_interface__"):
        return _from_host(np.asarray(obj), dtype, dev, copy)
    try:
        mv = memoryview(obj)
    except TypeError:
        raise TypeError(f"asarray(): can't convert {type(obj).__name__} to an array") from None
    return _from_host(np.asarray(mv), dtype, dev, copy)


def _from_host(a: np.ndarray, dtype, dev, copy) -> Array:
    """Adopt host array ``a`` on ``dev``: shared on the CPU, copied to any other device."""
    if dev.type != "cpu":
        if copy is False:
            raise ValueError(f"asarray(copy=False): host memory can't be shared with {dev}")
        a, copy = dev.backend.from_host(a, dev), None
    return _from_native(a, dtype, dev, copy)


def _from_native(a, dtype, dev, copy) -> Array:
    if dtype is not None and a.dtype != dtype._np:
        if copy is False:
            raise ValueError(f"asarray(copy=False): casting {a.dtype} to {dtype.name} needs a copy")
        with dev.backend.ctx(dev):
            return wrap_new(a.astype(dtype._np), dtype, dev)
    if copy:
        with dev.backend.ctx(dev):
            return wrap_new(a.copy(), _dtypes.from_numpy_dtype(a.dtype), dev)
    if _adopt._EXPORTED:
        # memory a strided Storage handed to NumPy (x.numpy()[::-1], as_strided(x, ...)):
        # a view of that Storage, one version counter (_core/call/adopt.py)
        hit = _adopt.owner_of(a)
        if type(hit) is Array and hit._device is dev:
            return hit
    if a.flags.c_contiguous:
        dt = a.dtype
        if dt.isnative:
            # A C-contiguous native is adopted as a kernel result is: its Storage is made
            # when first asked (a view, a write, x.numpy()), over this same memory, as
            # share_native makes it now (Array._materialize). scikit-learn hands SciPy's
            # optimiser's NumPy vector back through asarray every iteration: 24,000 vs
            # NumPy's 1,400 instructions a call, most of them the Storage no call used.
            # (Temporary elision takes a buffer only when nothing else references it: a
            # NumPy array the caller still holds never is; see _elide.)
            return Array._new(a, None, 0, a.shape, None, _BY_NP.get(dt) or _dtypes.from_numpy_dtype(dt), dev)
    elif dev.type != "cpu":
        # Note: on other devices only contiguous memory is adopted as a storage as is.
        with dev.backend.ctx(dev):
            a = dev.backend.xp.ascontiguousarray(a)
    return share_native(a, dev)


def _leaves_to_native(obj):
    if type(obj) is Array:
        return obj._host()
    if isinstance(obj, (list, tuple)):
        return [_leaves_to_native(o) for o in obj]
    return obj


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _scan_leaves(obj, lo: int, hi: int):
    """The leaves of a nested sequence: (the first Python int outside ``[lo, hi]`` or
    None, the most inexact kind among them: "c" complex, "f" float, or None)."""
    big = kind = None
    stack = [obj]
    while stack:
        o = stack.pop()
        t = type(o)
        if t is builtins.int:
            if big is None and not lo <= o <= hi:
                big = o
            continue
        if isinstance(o, (list, tuple)):
            stack.extend(reversed(o))
            continue
        k = o.dtype.kind if isinstance(o, (np.ndarray, np.generic)) else (
            "c" if t is builtins.complex else "f" if t is builtins.float else None)
        if k == "c":
            kind = "c"
        elif k == "f" and kind is None:
            kind = "f"
    return big, kind


def _big_ints(obj, data, nd, dtype):
    """A sequence whose Python ints go beyond int64 (NumPy infers uint64, float64 or
    object for it): as PyTorch, an OverflowError naming the value where the ints are
    to be stored as integers (no dtype and no float among the leaves, or an integer
    dtype they don't fit), else the leaves converted one by one to float or complex
    (None: there is no such int; NumPy's array stands)."""
    info = np.iinfo(dtype._np) if dtype is not None and dtype.kind in "iu" else None
    lo, hi = (info.min, info.max) if info is not None else _INT64
    big, kind = _scan_leaves(obj, lo, hi)
    if big is None:
        return None  # (no such int: NumPy's array stands, an object array is refused below)
    if info is not None or (dtype is None and kind is None):
        name = dtype.name if dtype is not None else "int64 (the dtype of Python ints)"
        raise ValueOverflowError(f"asarray(): Python int {big} is out of bounds for {name}")
    if dtype is not None and dtype.kind == "b":
        return np.array(data, dtype=np.bool_)
    target = np.complex128 if kind == "c" or (dtype is not None and dtype.kind == "c") else np.float64
    try:
        return np.array(data, dtype=target)
    except OverflowError:
        huge, _ = _scan_leaves(obj, -(1 << 1023), 1 << 1023)
        raise ValueOverflowError(f"asarray(): Python int {huge} is too large to convert to a "
                            f"floating-point dtype") from None


def _flat_list(obj: list, dtype):
    """A non-empty flat list of Python floats (as the default float dtype or a float dtype
    asked for), of ints (as int64, each within its range) or of bools (as bool), with no
    dtype asked for otherwise: ``(a new NumPy array, its dtype)``, the value and dtype
    _from_sequence gives it (tests/_api/test_asarray_list17.py); None for anything else,
    which takes _from_sequence."""
    if not obj:
        return None
    kinds = set(map(type, obj))
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if kind is builtins.float:
        dt = _dtypes.get_default_dtype() if dtype is None else dtype
        if dt.kind != "f":
            return None
        return np.array(obj, dtype=dt._np), dt
    if dtype is not None:
        return None
    if kind is builtins.int:
        try:
            return np.array(obj, dtype=np.int64), _dtypes.int64
        except OverflowError:  # (beyond int64: _from_sequence names the value)
            return None
    if kind is builtins.bool:
        return np.array(obj, dtype=np.bool_), _dtypes.bool
    return None


def _from_sequence(obj, dtype, dev) -> Array:
    data = _leaves_to_native(obj)
    try:
        nd = np.asarray(data)
    except ValueError as e:
        raise ValueError(f"asarray(): can't build an array from a ragged or mixed sequence ({e})") from None
    k = nd.dtype.kind
    # Python ints beyond int64 make NumPy infer uint64, float64 or object: found by the
    # (rare) kinds they give, then checked leaf by leaf.
    if (k == "O" or (k == "u" and not _has_typed_leaf(obj))
            or (k in "fc" and nd.size and (np.abs(nd) >= 2.0 ** 63).any())
            or (dtype is not None and dtype.kind in "iu" and k in "fc")):
        fixed = _big_ints(obj, data, nd, dtype)
        if fixed is not None:
            nd = fixed
    if nd.dtype == object:
        raise TypeError("asarray(): the sequence holds objects that are not numbers or arrays")
    if dtype is None:
        dtype = _infer_seq_dtype(obj, nd.dtype)
    if nd.dtype != dtype._np:
        if dtype.kind in "biu" and nd.dtype.kind in "fc":
            # Note: like PyTorch, floats truncate toward zero into integer dtypes.
            if nd.dtype.kind == "c":
                raise TypeError(f"can't convert complex values to {dtype.name}")
            if not np.isfinite(nd).all():
                raise ValueError(f"can't convert non-finite values to {dtype.name}")
            if dtype.kind in "iu":
                # Python ints beyond int64 make NumPy infer float64: convert the leaves exactly.
                try:
                    nd = np.array(data, dtype=dtype._np)
                except OverflowError as e:
                    raise ValueOverflowError(f"asarray(): {e}") from None
        elif dtype.kind in "iu" and nd.dtype.kind in "iu":
            info = np.iinfo(dtype._np)
            if nd.size and (nd.min() < info.min or nd.max() > info.max):
                bad = nd.reshape(-1)[(nd.reshape(-1) < info.min) | (nd.reshape(-1) > info.max)][0]
                raise ValueOverflowError(f"asarray(): value {bad} is out of bounds for {dtype.name}")
        nd = nd.astype(dtype._np)
    elif not nd.flags.owndata or nd is data:
        nd = nd.copy()
    return wrap_new(dev.backend.from_host(nd, dev), dtype, dev)


def tensor(data, *, dtype=None, device=None, requires_grad=False, names=None, pin_memory=False) -> Array:
    """Always copies ``data`` into a new array (PyTorch's ``torch.tensor``).

    >>> import strided as xp
    >>> xp.tensor([1.1, 2.7], dtype=xp.int16).tolist()
    [1, 2]
    """
    dtype = _as_dtype(dtype, "tensor")
    if type(data) is Array:
        arr = _asarray(data, dtype, device, None)
        if arr is data:
            arr = data.clone()
        arr = _LATE["detach"](arr) if arr._ext is not None else arr
    elif isinstance(data, (list, tuple)):
        arr = _from_sequence(data, dtype, as_device(device))
    else:
        arr = _asarray(data, dtype, device, True)
    return _finish(arr, "tensor", None, requires_grad, names)


def as_tensor(data, dtype=None, device=None) -> Array:
    """Like ``asarray``: shares memory when dtype and device allow."""
    return asarray(data, dtype=dtype, device=device)


def from_numpy(ndarray) -> Array:
    """An array sharing ``ndarray``'s memory (always; no copy)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy() expects a numpy.ndarray; got {type(ndarray).__name__}")
    if not ndarray.dtype.isnative:
        raise TypeError(f"from_numpy(): non-native byte order {ndarray.dtype} can't be shared")
    _dtypes.from_numpy_dtype(ndarray.dtype)
    return share_native(ndarray, as_device("cpu"))


def from_dlpack(x, /, *, device=None, copy=None) -> Array:
    """Import an array from any object with ``__dlpack__`` (zero-copy where possible)."""
    return _LATE["from_dlpack"](x, device=device, copy=copy)


# --- filled arrays ---------------------------------------------------------------

def _filled(func, fill, shape, dtype, device, out, requires_grad, names, default=None):
    dtype = _as_dtype(dtype, func) or default or _dtypes.get_default_dtype()
    dev = as_device(device) if out is None or device is not None else out._device
    xp = dev.backend.xp
    if out is not None:
        check_out(func, out, shape, dtype, dev)
        if fill is not None:
            out_native(out)[...] = fill
        return _finish(out, func, None, requires_grad, names)
    if xp is np:  # (the host's buffers: _host_empty)
        r = _host_empty(shape, dtype._np) if fill is None else _host_filled(shape, dtype._np, fill)
        return _finish(wrap_new(r, dtype, dev), func, None, requires_grad, names)
    with dev.backend.ctx(dev):
        if fill is None:
            r = xp.empty(shape, dtype=dtype._np)
        elif type(fill) is builtins.int and fill == 0:
            r = xp.zeros(shape, dtype=dtype._np)
        else:
            r = xp.full(shape, fill, dtype=dtype._np)
    return _finish(wrap_new(r, dtype, dev), func, None, requires_grad, names)


def _quick_filled(make, shape, dtype, device):
    """``make(shape, dtype)`` (NumPy's zeros, ones or empty; from 16 KiB their aligned forms,
    _BIG_MAKE) wrapped, for a shape that is a tuple of non-negative Python ints or one such
    int, a DType or None, on the host (``device`` None with the host the default, or the host
    Device): what _filled ends in there, without its argument normalisation (zeros((10, 10))
    was 5.2 us against NumPy's 0.38). Else None."""
    if type(shape) is builtins.int:
        if shape < 0:
            return None
        count = shape
        shape = (shape,)
    elif type(shape) is builtins.tuple:
        count = 1
        for n in shape:
            if type(n) is not builtins.int or n < 0:
                return None
            count *= n
    else:
        return None
    dev = _default_device[0] if device is None else device
    if type(dev) is not Device or dev.type != "cpu":
        return None
    if dtype is None:
        dtype = _dtypes._default_float  # (get_default_dtype's answer, without its frame)
    elif type(dtype) is not DType:
        return None
    if count * dtype.itemsize >= _ALIGN_FROM:  # (a small buffer: NumPy's own, no other call)
        make = _BIG_MAKE[make]
    r = make(shape, dtype._np)
    if r.dtype is not dtype._np:  # (wrap_new's test and adoption, inline)
        r = r.astype(dtype._np)
    return _new_array(r, None, 0, r.shape, None, dtype, dev)


def zeros(shape=(), *size, dtype=None, device=None, out=None, requires_grad=False, names=None) -> Array:
    """An array of zeros: ``zeros((2, 3))``, ``zeros(shape=(2, 3))`` or ``zeros(2, 3)``."""
    if type(shape) is builtins.int and device is None and not size and out is None \
            and requires_grad is False and names is None and shape >= 0:
        # Short path: ``zeros(n)`` on the host, _quick_filled's case inline (NumPy's own
        # small buffer; a dtype other than a DType, the pool's sizes take it)
        dt = _dtypes._default_float if dtype is None else dtype
        if type(dt) is DType and _default_device[0] is _CPU and shape * dt.itemsize < _ALIGN_FROM:
            r = _np_zeros(shape, dt._np)
            if r.dtype is dt._np:
                return _new_array(r, None, 0, r.shape, None, dt, _CPU)
    if not size and out is None and requires_grad is False and names is None:
        r = _quick_filled(_np_zeros, shape, dtype, device)
        if r is not None:
            return r
    return _filled("zeros", 0, _shape_args((shape,) + size, "zeros"), dtype, device, out,
                   requires_grad, names)


def ones(shape=(), *size, dtype=None, device=None, out=None, requires_grad=False, names=None) -> Array:
    """An array of ones: ``ones((2, 3))``, ``ones(shape=(2, 3))`` or ``ones(2, 3)``."""
    if not size and out is None and requires_grad is False and names is None:
        r = _quick_filled(_np_ones, shape, dtype, device)
        if r is not None:
            return r
    return _filled("ones", 1, _shape_args((shape,) + size, "ones"), dtype, device, out,
                   requires_grad, names)


def empty(shape=(), *size, dtype=None, device=None, out=None, requires_grad=False, names=None) -> Array:
    """An uninitialised array: ``empty((2, 3))``, ``empty(shape=(2, 3))`` or ``empty(2, 3)``."""
    if not size and out is None and requires_grad is False and names is None:
        r = _quick_filled(_np_empty, shape, dtype, device)
        if r is not None:
            return r
    return _filled("empty", None, _shape_args((shape,) + size, "empty"), dtype, device, out,
                   requires_grad, names)


def _fill_dtype(fill_value, dtype, func):
    dtype = _as_dtype(dtype, func)
    if type(fill_value) is Array:
        if fill_value._shape:
            raise ValueError(f"{func}(): fill_value must be a scalar; got an array of shape {fill_value._shape}")
        fill_value = fill_value.item()
    if type(fill_value) not in _SCALARS:
        if isinstance(fill_value, np.generic):
            fill_value = fill_value.item()
        else:
            raise TypeError(f"{func}(): fill_value must be a Python scalar; got {type(fill_value).__name__}")
    if dtype is None:
        dtype = _dtypes.scalar_dtype(fill_value)
    elif dtype.kind in "iu" and type(fill_value) in (builtins.int, builtins.float):
        # Note: as PyTorch (NumPy 2 fills NaN/inf/huge floats with garbage and a warning).
        if fill_value != fill_value:
            raise ValueError(f"{func}(): fill_value NaN can't be converted to {dtype.name}")
        lo, hi = _int_bounds(dtype)
        if not lo <= fill_value <= hi:
            raise ValueOverflowError(f"{func}(): fill_value {fill_value} is out of bounds for {dtype.name}")
    elif dtype.kind != "c" and type(fill_value) is builtins.complex:
        raise TypeError(f"{func}(): can't fill a {dtype.name} array with complex {fill_value}")
    elif dtype.kind == "b":
        fill_value = builtins.bool(fill_value)
    return fill_value, dtype


def full(shape, fill_value, *, dtype=None, device=None, out=None, requires_grad=False, names=None) -> Array:
    """An array filled with ``fill_value``; dtype inferred from the scalar by default."""
    if type(fill_value) is builtins.float and out is None and names is None and requires_grad is False:
        # Short path: a Python float into a floating host array of a plain shape (SciPy and
        # scikit-learn make NaN and inf scalars this way; full((10, 10), 2.0) was 6.9 us,
        # NumPy's 2.0), what the general path below ends in: NumPy's full gives each element
        # (float)fill_value, as ndarray.fill does for a Python float (one conversion from the
        # double; NaN stays NaN). dtype None: the default float, the scalar's dtype.
        dt = dtype if type(dtype) is DType else _dtypes.get_default_dtype() if dtype is None else None
        if dt is not None and dt.kind == "f" and dt._np.itemsize >= 4:  # (float16: a cast that may warn)
            r = _quick_filled(_np_empty, shape, dt, device)
            if r is not None:
                r._np.fill(fill_value)
                return r
    if dtype is None and out is None and names is None and requires_grad is False \
            and (type(fill_value) is builtins.bool
                 or (type(fill_value) is builtins.int and _I64_MIN <= fill_value <= _I64_MAX)):
        # Short path: a Python bool or int (in int64's range) of the default dtype for it
        # (bool, int64), what the general path below ends in (full((2, 3), 7): 7.2 -> ~2.5 us)
        dt = _dtypes.bool if type(fill_value) is builtins.bool else _dtypes.int64
        r = _quick_filled(_np_empty, shape, dt, device)
        if r is not None:
            r._np.fill(fill_value)
            return r
    fill_value, dtype = _fill_dtype(fill_value, dtype, "full")
    shape = _shape_args((shape,), "full")
    return _filled("full", fill_value, shape, dtype, device, out, requires_grad, names)


def _like(func, x, fill, dtype, device, shape, out, requires_grad, names):
    if type(x) is not Array:
        raise TypeError(f"{func}(): expected an array; got {type(x).__name__}")
    if shape is None:
        shape = x._shape
        if names is None and x._ext is not None:
            names = x._ext.names  # like PyTorch, x's dimension names carry over
    else:
        shape = _shape_args((shape,), func)  # NumPy's shape= (x's names don't carry over)
    if fill is not None:
        fill, dt = _fill_dtype(fill, dtype or x._dtype, func)
    else:
        dt = _as_dtype(dtype, func) or x._dtype
    return _filled(func, fill, shape, dt, device if device is not None else x._device,
                   out, requires_grad, names)


# Note: ``shape=`` on the *_like functions is NumPy's keyword (Cubed passes it), an
# extension beyond the standard.

def zeros_like(x, /, *, dtype=None, device=None, shape=None, out=None, requires_grad=False,
               names=None) -> Array:
    """Zeros with ``x``'s shape, dtype and device unless overridden.

    ``shape=`` (NumPy's keyword, an extension beyond the standard) overrides the shape.

    >>> import strided as xp
    >>> xp.zeros_like(xp.ones((2, 3), dtype=xp.int32), shape=(4,))
    tensor([0, 0, 0, 0], dtype=strided.int32)
    """
    return _like("zeros_like", x, 0, dtype, device, shape, out, requires_grad, names)


def ones_like(x, /, *, dtype=None, device=None, shape=None, out=None, requires_grad=False,
              names=None) -> Array:
    """Ones with ``x``'s shape, dtype and device unless overridden.

    ``shape=`` (NumPy's keyword, an extension beyond the standard) overrides the shape.

    >>> import strided as xp
    >>> xp.ones_like(xp.zeros(3), shape=(2, 2))
    tensor([[1., 1.],
            [1., 1.]])
    """
    return _like("ones_like", x, 1, dtype, device, shape, out, requires_grad, names)


def empty_like(x, /, *, dtype=None, device=None, shape=None, out=None, requires_grad=False,
               names=None) -> Array:
    """Uninitialised, with ``x``'s shape, dtype and device unless overridden.

    ``shape=`` (NumPy's keyword, an extension beyond the standard) overrides the shape.

    >>> import strided as xp
    >>> xp.empty_like(xp.zeros(3), shape=(2, 5)).shape
    strided.Size([2, 5])
    """
    return _like("empty_like", x, None, dtype, device, shape, out, requires_grad, names)


def full_like(x, /, fill_value, *, dtype=None, device=None, shape=None, out=None,
              requires_grad=False, names=None) -> Array:
    """``fill_value`` with ``x``'s shape, dtype and device unless overridden.

    ``shape=`` (NumPy's keyword, an extension beyond the standard) overrides the shape.

    >>> import strided as xp
    >>> xp.full_like(xp.zeros((2, 2)), 7.5, shape=3)
    tensor([7.5000, 7.5000, 7.5000])
    """
    return _like("full_like", x, fill_value, dtype, device, shape, out, requires_grad, names)


# --- ranges ----------------------------------------------------------------------

def _scalar_arg(v, func, what):
    if type(v) is Array:
        if v._shape:
            raise TypeError(f"{func}(): {what} must be a scalar; got an array of shape {v._shape}")
        return v.item()
    if isinstance(v, np.generic):
        return v.item()
    if type(v) not in _SCALARS:
        raise TypeError(f"{func}(): {what} must be a Python scalar; got {type(v).__name__}")
    return v


_INT_BOUNDS: dict = {}


def _int_bounds(dtype) -> tuple:
    """(min, max) of integer dtype ``dtype`` as Python ints (``numpy.iinfo`` is ~4 us a call)."""
    b = _INT_BOUNDS.get(dtype)
    if b is None:
        info = np.iinfo(dtype._np)
        b = _INT_BOUNDS[dtype] = (builtins.int(info.min), builtins.int(info.max))
    return b


def arange(start, /, stop=None, step=1, *, dtype=None, device=None, out=None,
           requires_grad=False, names=None) -> Array:
    """Evenly spaced values in ``[start, stop)`` (integer or float steps)."""
    if stop is None and type(start) is builtins.int and type(step) is builtins.int and step == 1 \
            and dtype is None and device is None and out is None and requires_grad is False \
            and names is None and _default_device[0] is _CPU and start <= _I64_MAX:
        # Shorter path: ``arange(n)`` of a Python int on the host, the short path's case of
        # it (0 ... n - 1, all within int64; empty for n <= 0)
        r = _np_arange(start, dtype=_np_int64)
        return _new_array(r, None, 0, r.shape, None, _dtypes.int64, _CPU)
    if type(start) is builtins.int and type(step) is builtins.int and step \
            and (stop is None or type(stop) is builtins.int) and dtype is None and device is None \
            and out is None and requires_grad is False and names is None \
            and _default_device[0].type == "cpu":
        # Short path: Python ints on the host (range loops, index vectors: 5.5 us, NumPy's 0.9),
        # what the general path below ends in for them; values beyond int64 take it (its error)
        s0, s1 = (0, start) if stop is None else (start, stop)
        n = -((s0 - s1) // step)
        if n <= 0 or (_I64_MIN <= s0 <= _I64_MAX and _I64_MIN <= s0 + (n - 1) * step <= _I64_MAX):
            r = _np_arange(s0, s1, step, dtype=_np_int64)  # (int64's own descriptor: adopted as is)
            return _new_array(r, None, 0, r.shape, None, _dtypes.int64, _default_device[0])
    return _arange(start, stop, step, dtype, device, out, requires_grad, names)


@quiet
def _arange(start, stop, step, dtype, device, out, requires_grad, names) -> Array:
    """``arange``'s general path, under NumPy's "ignore" error state (its float steps can
    overflow) as every entry point runs: arange itself is left bare (dispatch._BARE), as
    its short path above computes nothing in floating point."""
    start = _scalar_arg(start, "arange", "start")
    step = _scalar_arg(step, "arange", "step")
    if stop is None:
        start, stop = 0, start
    stop = _scalar_arg(stop, "arange", "stop")
    if step == 0:
        raise ValueError("arange(): step must be nonzero")
    dtype = _as_dtype(dtype, "arange")
    ints = type(start) is builtins.int and type(stop) is builtins.int and type(step) is builtins.int
    if dtype is None:
        if ints or all(type(v) in (builtins.int, builtins.bool) for v in (start, stop, step)):
            dtype = _dtypes.int64
        else:
            dtype = _dtypes.get_default_dtype()
    if dtype.kind in "c":
        raise TypeError("arange(): complex dtypes are not supported")
    if ints:
        # (exact for any size of int: ceil of a quotient in integers, no float rounding)
        n = -((start - stop) // step)
    else:
        n = math.ceil((stop - start) / step)
    n = max(n, 0)
    if dtype.kind in "iu" and n:
        lo, hi = _int_bounds(dtype)
        for v in (start, start + (n - 1) * step):
            if not lo <= v <= hi:
                raise ValueOverflowError(f"arange(): value {v} is out of bounds for {dtype.name}")
    dev = as_device(device)
    xp = dev.backend.xp
    with dev.backend.ctx(dev):
        if dtype.kind in "iu" and ints:
            r = xp.arange(start, stop, step, dtype=dtype._np)
        else:
            r = (xp.arange(n, dtype=np.float64) * step + start).astype(dtype._np)
    if r.shape[0] != n:
        r = r[:n]
    arr = wrap_new(r, dtype, dev)
    return _finish(arr, "arange", out, requires_grad, names)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True, out=None,
             requires_grad=False, names=None) -> Array:
    """``num`` evenly spaced samples from ``start`` to ``stop``."""
    start = _scalar_arg(start, "linspace", "start")
    stop = _scalar_arg(stop, "linspace", "stop")
    num = operator.index(num)
    if num < 0:
        raise _layout.ArgumentError(f"linspace(): num must be non-negative; got {num}")
    dtype = _as_dtype(dtype, "linspace")
    if dtype is None:
        if type(start) is builtins.complex or type(stop) is builtins.complex:
            dtype = _dtypes.default_complex()
        else:
            dtype = _dtypes.get_default_dtype()
    if dtype.kind not in "fc":
        raise TypeError(f"linspace(): dtype must be floating-point; got {dtype.name}")
    dev = as_device(device)
    xp = dev.backend.xp
    wide = np.complex128 if dtype.kind == "c" else np.float64
    with dev.backend.ctx(dev):
        r = xp.linspace(start, stop, num, endpoint=endpoint, dtype=wide)
        if num > 1 and endpoint:
            r[-1] = stop
    return _finish(wrap_new(r, dtype, dev), "linspace", out, requires_grad, names)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, out=None,
        requires_grad=False, names=None) -> Array:
    """A 2-D array with ones on the ``k``-th diagonal."""
    n_rows = operator.index(n_rows)
    n_cols = n_rows if n_cols is None else operator.index(n_cols)
    if n_rows < 0 or n_cols < 0:
        raise _layout.ShapeError(f"eye(): negative size ({n_rows}, {n_cols})")
    dtype = _as_dtype(dtype, "eye") or _dtypes.get_default_dtype()
    dev = as_device(device)
    with dev.backend.ctx(dev):
        r = dev.backend.xp.eye(n_rows, n_cols, k=operator.index(k), dtype=dtype._np)
    return _finish(wrap_new(r, dtype, dev), "eye", out, requires_grad, names)


@api("meshgrid")
def meshgrid(*arrays, indexing="xy") -> tuple:
    """Coordinate matrices from 1-D coordinate arrays (a tuple of new arrays)."""
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid(): indexing must be 'xy' or 'ij'; got {indexing!r}")
    if not arrays:
        return ()
    dt = arrays[0]._dtype
    dev = arrays[0]._device
    for a in arrays:
        if type(a) is not Array or a.ndim != 1:
            raise ValueError("meshgrid(): every input must be a 1-D array")
        if a._dtype is not dt:
            raise TypeError(f"meshgrid(): arrays must share one dtype; got {dt.name} and {a._dtype.name}")
        if a._device is not dev:
            raise DeviceMismatchError(f"meshgrid(): arrays are on different devices, {dev} and {a._device}")
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    nd = len(arrays)
    for i, a in enumerate(arrays):
        pos = i
        if indexing == "xy" and nd >= 2 and i < 2:
            pos = 1 - i
        sh = [1] * nd
        sh[pos] = a.shape[0]
        v = _LATE["reshape"](a, tuple(sh))
        out.append(_LATE["broadcast_to"](v, tuple(shape)).clone())
    return tuple(out)


def _tri(func, x, k, upper):
    if type(x) is not Array:
        raise TypeError(f"{func}(): expected an array; got {type(x).__name__}")
    if x.ndim < 2:
        raise _layout.ShapeError(f"{func}(): needs at least 2 dimensions; got shape {x._shape}")
    xp = x._device.backend.xp
    a = x._get_native()
    r = xp.triu(a, k) if upper else xp.tril(a, k)
    return wrap_new(xp.ascontiguousarray(r), x._dtype, x._device)


@api("tril")
def tril(x, /, *, k=0, out=None) -> Array:
    """Lower triangle of the last two dimensions (elements above diagonal ``k`` zeroed)."""
    return _finish(_tri("tril", x, operator.index(k), False), "tril", out)


@api("triu")
def triu(x, /, *, k=0, out=None) -> Array:
    """Upper triangle of the last two dimensions (elements below diagonal ``k`` zeroed)."""
    return _finish(_tri("triu", x, operator.index(k), True), "triu", out)
