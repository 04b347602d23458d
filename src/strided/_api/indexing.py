"""Advanced indexing (integer arrays, boolean masks) and the standard's take functions."""

from __future__ import annotations

import builtins
import operator

import numpy as np

from .._core.array import _LATE, Array
from .creation import asarray, wrap_new
from .._core.dtypes import int64
from .._core.device import DeviceMismatchError
from .._core.dispatch import api
from .._core.call import write as _write
from .._core.layout import normalize_axis as _normalize_axis

__all__ = ["take", "take_along_axis"]

_object_new = object.__new__


def _key_dims(k) -> int | None:
    """How many axes of the array the index entry ``k`` consumes (None: ``...``)."""
    t = type(k)
    if k is Ellipsis:
        return None
    if k is None or t is builtins.bool or isinstance(k, np.bool_):
        return 0
    if t is Array:
        return k.ndim if k._dtype.kind == "b" else 1
    if t is np.ndarray:
        return k.ndim if k.dtype.kind == "b" else 1
    if t is list:
        a = np.asarray(k)
        return a.ndim if a.dtype.kind == "b" else 1
    return 1


def _check_host_index(x: Array, a: np.ndarray, axis: int) -> None:
    """IndexError for an out-of-bounds integer in the host index ``a`` on ``axis``.

    Note: off the CPU the backend's kernels don't check: CuPy wraps an out-of-bounds index
    around (cupy/_core/_routines_indexing.pyx, _take_kernel_core and the scatter kernels:
    'indices % size'), so a host index is checked here, before it is copied to the device,
    at no cost. An index array already on the device is not: checking it would copy to the
    host on every call (the standard leaves out-of-bounds indices unspecified)."""
    if a.dtype.kind not in "iu" or not a.size or axis >= len(x._shape):
        return
    n = x._shape[axis]
    lo, hi = a.min(), a.max()
    if lo < -n or hi >= n:
        bad = int(hi) if hi >= n else int(lo)
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n} "
                         f"(array shape {x._shape})")


def _native_key(x: Array, key):
    if type(key) is not tuple:
        key = (key,)
    out = []
    dev = x._device
    check = dev.type != "cpu"  # (NumPy checks its own indices)
    if check:
        dims = [_key_dims(k) for k in key]
        rest = len(x._shape) - sum(d for d in dims if d)
    axis = 0
    for k in key:
        t = type(k)
        if check:
            d = _key_dims(k)
            if d is None:
                axis += rest
        if t is Array:
            if k._dtype.kind not in "biu":
                raise IndexError(f"arrays used as indices must be of integer or boolean type; got {k._dtype.name}")
            if k._device is not dev:
                if k._device.type != "cpu":
                    raise DeviceMismatchError(
                        f"index array is on {k._device} but the array is on {dev}: an index must "
                        f"be on the CPU or on the array's device")
                # Note: a host index on a device array is copied there, as PyTorch takes a
                # CPU index for a CUDA tensor (bounds checked on the host first).
                a = k._get_native()
                if check:
                    _check_host_index(x, a, axis)
                out.append(dev.backend.from_host(a, dev))
            else:
                out.append(k._get_native())
        elif t is list or t is range:  # (a range: the list of its ints, as in __getitem__)
            a = np.asarray(k)
            if a.size == 0:
                a = a.astype(np.intp)
            if a.dtype.kind not in "biu":
                raise IndexError(f"lists used as indices must hold integers or booleans; got {a.dtype}")
            if check:
                _check_host_index(x, a, axis)
            out.append(dev.backend.from_host(a, dev))
        elif t is np.ndarray:
            if check:
                _check_host_index(x, k, axis)
            out.append(dev.backend.from_host(k, dev))
        elif t is builtins.bool or isinstance(k, np.bool_):
            out.append(builtins.bool(k))
        elif t is slice or k is None or k is Ellipsis:
            out.append(k)
        else:
            out.append(operator.index(k))
        if check:
            axis += d or 0
    return tuple(out)


def advanced_getitem(x: Array, key) -> Array:
    if type(key) is Array and key._shape and key._device is x._device and key._dtype.kind in "biu":
        # Hot path: one integer or boolean index array (not 0-d: NumPy takes a 0-d integer
        # array as an int, giving a view). The backend's advanced indexing makes a fresh
        # array; one that is a view of its own fresh buffer (a transposed result) is copied
        # to own its memory, as below.
        k = key._np
        if k is None:
            k = key._get_native()
        a = x._np
        if a is None:
            a = x._get_native()
        try:
            r = a[k]
        except IndexError as e:
            raise IndexError(f"{e} (array shape {x._shape})") from None
        if r.base is not None:
            r = r.copy()
        out = _object_new(Array)
        out._np = r
        out._st = None
        out._off = 0
        out._shape = r.shape
        out._str = None
        out._dtype = x._dtype
        out._device = x._device
        out._ext = None
        return out
    nk = _native_key(x, key)
    a = x._get_native()
    try:
        r = a[nk]
    except IndexError as e:
        raise IndexError(f"{e} (array shape {x._shape})") from None
    if type(r) is not type(a):
        r = x._device.backend.xp.asarray(r)
    if r.base is not None or not r.flags.owndata:
        r = r.copy()
    return wrap_new(r, x._dtype, x._device)


def advanced_setitem(x: Array, key, value) -> None:
    x._check_writable("__setitem__()")
    nk = _native_key(x, key)
    if type(value) is Array:
        if value._device is not x._device:
            raise ValueError(f"__setitem__(): value is on {value._device} but the array is on {x._device}")
        _write.check_names(x, value, "__setitem__()")
        v = value._get_native()
    elif isinstance(value, (builtins.bool, builtins.int, builtins.float, builtins.complex)):
        if type(value) is builtins.complex and x._dtype.kind != "c":
            raise TypeError(f"__setitem__(): can't assign complex {value} into a {x._dtype.name} array")
        # (a 0-d array on a GPU: CuPy turns a scalar into one with ndarray.fill, which
        # drops the sign of -0.0; the backend's asarray keeps it)
        v = value if x._device.type == "cpu" or x._dtype.kind not in "fc" else \
            x._device.backend.asarray(value, x._dtype._np, device=x._device)
    else:
        raise TypeError(f"__setitem__(): can't assign a {type(value).__name__}")
    # the write stage: the version counter of x's Storage, the target's native
    a = _write.target(x, "__setitem__()")
    try:
        a[nk] = _write.unaliased(v, a, x._device.backend)
    except IndexError as e:
        raise IndexError(f"{e} (array shape {x._shape})") from None


@api("take")
def take(x, indices, /, *, axis=None) -> Array:
    """Elements of ``x`` at integer ``indices`` along ``axis``.

    Beyond the standard, ``indices`` may be a Python int, as NumPy's ``take``
    allows (Cubed's ``var`` calls ``take(a, 0, axis=...)``): the axis is dropped.

    >>> import strided as xp
    >>> x = xp.asarray([[1, 2, 3], [4, 5, 6]])
    >>> xp.take(x, xp.asarray([2, 0]), axis=1).tolist(), xp.take(x, 1, axis=0).tolist()
    ([[3, 1], [6, 4]], [4, 5, 6])
    """
    if type(x) is Array and type(indices) is not Array and type(indices) is not bool:
        try:
            i = operator.index(indices)
        except TypeError:
            pass
        else:
            ax = 0 if axis is None and x.ndim == 1 else axis
            if x._device.type != "cpu" and type(ax) is int and -x.ndim <= ax < x.ndim \
                    and not -x._shape[ax] <= i < x._shape[ax]:
                raise IndexError(f"take(): index {i} is out of bounds for axis {ax} with size "
                                 f"{x._shape[ax]}")  # (a host int: checked at no cost)
            indices = asarray(i, dtype=int64, device=x._device)
    if type(x) is not Array or type(indices) is not Array:
        raise TypeError(f"take(): x must be a strided array and indices a strided array or an int; "
                        f"got {type(x).__name__} and {type(indices).__name__}")
    if indices._dtype.kind not in "iu":
        raise TypeError(f"take(): indices must have an integer dtype; got {indices._dtype.name}")
    if indices._device is not x._device:
        raise ValueError(f"take(): indices on {indices._device}, x on {x._device}")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take(): axis is required for a {x.ndim}-D array")
        axis = 0
    axis = _LATE["name_to_axis"](x, axis) if type(axis) is str else axis
    axis = _normalize_axis(axis, x.ndim, "take")
    idx = indices._np
    if idx is None:
        idx = indices._get_native()
    n = x._shape[axis]
    a = x._np
    if a is None:
        a = x._get_native()
    if type(a) is np.ndarray and indices._dtype.kind == "i" and 0 not in x._shape:
        # Note: NumPy's take (mode "raise") checks every index against the axis the way
        # the check below does (-n <= i < n) and raises IndexError before it writes
        # anything: the two reductions of that check (~2/3 of a small call) are left to
        # it, and its error is ours. Unsigned indices keep the check (NumPy refuses
        # uint64 with a TypeError, which an index out of range would hide), and so does an
        # empty x (NumPy checks the indices only as it copies: none when nothing is).
        try:
            r = a.take(idx, axis)
        except IndexError:
            raise IndexError(f"take(): index out of range for axis {axis} with size {n}") from None
        if type(r) is not np.ndarray:  # (a 0-d index: NumPy's scalar)
            r = np.asarray(r)
        return wrap_new(r, x._dtype, x._device)
    xp = x._device.backend.xp
    # Note: bounds are checked on the CPU only: on a GPU the check would copy to the
    # host on every call (the standard leaves out-of-bounds indices unspecified;
    # CuPy wraps them around, never reading outside the array: _routines_indexing.pyx
    # _take_kernel_core, 'indices % index_range').
    if x._device.type == "cpu" and idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"take(): index out of range for axis {axis} with size {n}")
    r = xp.take(a, idx, axis=axis)
    return wrap_new(xp.asarray(r), x._dtype, x._device)


@api("take_along_axis")
def take_along_axis(x, indices, /, *, axis=-1) -> Array:
    """Pick values along ``axis`` at the positions in ``indices`` (same ndim as ``x``)."""
    if type(x) is not Array or type(indices) is not Array:
        raise TypeError("take_along_axis(): x and indices must be strided arrays")
    if indices._dtype.kind not in "iu":
        raise TypeError(f"take_along_axis(): indices must have an integer dtype; got {indices._dtype.name}")
    if indices._device is not x._device:
        raise ValueError(f"take_along_axis(): indices on {indices._device}, x on {x._device}")
    if x.ndim != indices.ndim:
        raise ValueError(f"take_along_axis(): x has {x.ndim} dims but indices has {indices.ndim}")
    axis = _LATE["name_to_axis"](x, axis) if type(axis) is str else axis
    from .._core.layout import normalize_axis
    axis = normalize_axis(axis, x.ndim, "take_along_axis")
    if x.ndim == 0:  # (axis 0 or -1 of a 0-d array, as PyTorch's: its one element)
        return take_along_axis(_LATE["reshape"](x, (1,)), _LATE["reshape"](indices, (1,)), axis=0).reshape(())
    xp = x._device.backend.xp
    idx = indices._get_native()
    n = x._shape[axis]
    if x._device.type == "cpu":
        # NumPy's take_along_axis reads a negative index from the end and refuses one out
        # of range itself: the range check and the wrap below (three passes over the
        # indices and two temporaries: 5x NumPy at 10,000 elements) only run, to name
        # the error, when it raises.
        try:
            r = np.take_along_axis(x._get_native(), idx, axis=axis)
        except (IndexError, ValueError):
            pass
        else:
            return wrap_new(np.ascontiguousarray(r), x._dtype, x._device)
    if x._device.type == "cpu" and idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"take_along_axis(): index out of range for axis {axis} with size {n}")
    idx = xp.where(idx < 0, idx + n, idx)
    r = xp.take_along_axis(x._get_native(), idx, axis=axis)
    return wrap_new(xp.ascontiguousarray(r), x._dtype, x._device)


_LATE.update(advanced_getitem=advanced_getitem, advanced_setitem=advanced_setitem)
