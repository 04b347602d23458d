"""Searching functions: argmax, argmin, count_nonzero, nonzero, searchsorted, where.

Index results have the default index dtype, int64. Kernels run on the
array's backend (NumPy or CuPy) over native strided views.
"""

from __future__ import annotations

import builtins

import numpy as np

from .._core import _npcompat, dispatch as _dispatch, dtypes as _dtypes, layout as _layout
from .._core.threads import select as _select
from .._core.array import _LATE, Array
from .._core.device import CPU as _CPU
from .creation import _finish, wrap_new
from .._core.call import bind as _bind
from .._core.dispatch import api, check_devices
from .._core.dtypes import PROMOTION
from .elementwise import _numpy_scalar

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]

_INDEX = _dtypes.int64
_INDEX_NP = _INDEX._np
_np_asarray = np.asarray
_np_count_nonzero = _npcompat.count_nonzero  # (NumPy's count without its dispatcher)
_new_array = Array._new
_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def _check(x, func, what="x"):
    if type(x) is not Array:
        raise TypeError(f"{func}(): {what} must be a strided array; got {type(x).__name__}")


def _name(x, a):
    return _LATE["name_to_axis"](x, a) if type(a) is str else a


def _index_result(r, dev) -> Array:
    """Wrap a fresh index result (possibly a NumPy scalar) as an int64 array."""
    if type(r) is not dev.backend.ndarray:
        r = dev.backend.xp.asarray(r)
    elif not r.flags.c_contiguous:
        r = r.copy(order="C")  # (a reduction's result is C-ordered, as PyTorch's)
    return wrap_new(r, _INDEX, dev)


_ARG = {"argmax": np.ndarray.argmax, "argmin": np.ndarray.argmin}
# (NumPy's index results are intp: the short path below wraps them as they are where
# that is int64, and leaves other platforms to the general path's cast)
_INTP_IS_INDEX = np.dtype(np.intp) == _INDEX._np
_ND = np.ndarray


def _arg(func, kernel, x, axis, keepdims, out):
    if out is None and type(x) is Array and x._device is _CPU and x._dtype.kind in "iuf" \
            and (keepdims is False or keepdims is True) and _INTP_IS_INDEX:
        a = x._np if x._np is not None else x._get_native()
        nd = a.ndim
        if a.size and nd and (axis is None or (type(axis) is int and -nd <= axis < nd)):
            # The short path (at any size: NumPy's argmax has no thread split): the array's
            # own method, the kernel np.argmax ends in, with the checks above done.
            r = _ARG[kernel](a, axis, None, keepdims=keepdims)
            if type(r) is not _ND:
                r = np.asarray(r)  # NumPy's scalar for the flattened array
            return Array._new(r, None, 0, r.shape, None, _INDEX, _CPU)
    _check(x, func)
    _dtypes.check_category(func, x._dtype, "real-valued")
    dev = x._device
    a = x._get_native()
    if axis is None:
        if _layout.prod(x._shape) == 0:
            raise ValueError(f"{func}(): the array is empty (shape {x._shape})")
        ax = None
    else:
        ax = _layout.normalize_axis(_name(x, axis), x.ndim, func)
        if x.ndim and x._shape[ax] == 0:
            raise ValueError(f"{func}(): axis {ax} of shape {x._shape} is empty")
        if x.ndim == 0:
            ax = None
    with dev.backend.ctx(dev):
        r = getattr(dev.backend.xp, kernel)(a, axis=ax, keepdims=builtins.bool(keepdims))
    return _finish(_index_result(r, dev), func, out)


# Note: argmax and argmin declare PyTorch's dim/keepdim themselves, as the hot reductions
# in statistics.py do (``...``: not given; bind.axis_keywords binds them): the compiled
# hot path then calls the definition directly, with no binding frame in front of it.
@api("argmax")
def argmax(x, /, axis=..., keepdims=..., *, out=None, dim=..., keepdim=...) -> Array:
    """Index of the first maximum, over the flattened array or along ``axis``.

    NaN counts as the maximum (the first NaN's index is returned), as in NumPy and PyTorch.

    >>> import strided as xp
    >>> xp.argmax(xp.asarray([[1, 5], [7, 2]]), axis=1).tolist()
    [1, 0]
    """
    if dim is not ... or keepdim is not ...:
        axis, keepdims = _bind.axis_keywords("argmax", (), axis, keepdims, dim, keepdim)
    else:
        if axis is ...:
            axis = None
        if keepdims is ...:
            keepdims = False
    return _arg("argmax", "argmax", x, axis, keepdims, out)


@api("argmin")
def argmin(x, /, axis=..., keepdims=..., *, out=None, dim=..., keepdim=...) -> Array:
    """Index of the first minimum, over the flattened array or along ``axis``.

    NaN counts as the minimum (the first NaN's index is returned), as in NumPy and PyTorch.
    """
    if dim is not ... or keepdim is not ...:
        axis, keepdims = _bind.axis_keywords("argmin", (), axis, keepdims, dim, keepdim)
    else:
        if axis is ...:
            axis = None
        if keepdims is ...:
            keepdims = False
    return _arg("argmin", "argmin", x, axis, keepdims, out)


@api("count_nonzero")
def count_nonzero(x, /, axis=None, keepdims=False, *, out=None) -> Array:
    """Number of nonzero (``True``; either part nonzero for complex) elements, as int64."""
    if axis is None and out is None and type(x) is Array and x._device is _CPU and not keepdims:
        # (every element, on the CPU: NumPy's count as a 0-d int64, as _index_result makes
        # it; the general path's steps inline)
        r = _np_asarray(_np_count_nonzero(x._np if x._np is not None else x._get_native()))
        if r.dtype is not _INDEX_NP:  # (a platform whose default int is not int64)
            r = r.astype(_INDEX_NP)
        return _new_array(r, None, 0, (), None, _INDEX, _CPU)
    _check(x, "count_nonzero")
    dev = x._device
    xp = dev.backend.xp
    a = x._get_native()
    with dev.backend.ctx(dev):
        if axis is None and not keepdims:
            r = xp.count_nonzero(a)
        else:
            if axis is not None:
                axes = axis if isinstance(axis, (tuple, list)) else (axis,)
                axis = _layout.normalize_axes(tuple(_name(x, d) for d in axes), x.ndim,
                                              "count_nonzero")
                if x.ndim == 0:
                    axis = ()  # axis 0 of a 0-d array, as in PyTorch: nothing to reduce
            r = xp.sum(a != 0, axis=axis, dtype=_INDEX._np, keepdims=builtins.bool(keepdims))
    return _finish(_index_result(r, dev), "count_nonzero", out)


@api("nonzero")
def nonzero(x, /) -> tuple:
    """Indices of the nonzero elements: one int64 array per dimension, in row-major order."""
    _check(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero(): 0-d arrays are not supported; use expand_dims(x, axis=0) "
                         "for a 1-d array")
    dev = x._device
    if dev.type == "cpu" and len(x._shape) == 1:
        # A 1-D array on the CPU: NumPy's one result has its own C-order memory already,
        # adopted as wrap_new adopts it (no context to enter, nothing to make contiguous)
        r = (x._np if x._np is not None else x._get_native()).nonzero()[0]
        if r.dtype is _INDEX._np and r.flags.c_contiguous:
            return (Array._new(r, None, 0, r.shape, None, _INDEX, dev),)
        return (wrap_new(np.ascontiguousarray(r), _INDEX, dev),)
    xp = dev.backend.xp
    with dev.backend.ctx(dev):
        rs = xp.nonzero(x._get_native())
        # NumPy's results are columns of one (n, ndim) buffer; give each its own memory.
        rs = tuple(r if r.flags.c_contiguous else xp.ascontiguousarray(r) for r in rs)
    return tuple(wrap_new(r, _INDEX, dev) for r in rs)


# --- searchsorted ---------------------------------------------------------------

def _search_scalar(x1, v, func):
    """(dtype to compare in, value) for a Python scalar ``v``, or (None, index) when ``v``
    lies outside the range of ``x1``'s integer dtype."""
    t = type(v)
    d = x1._dtype
    if t is builtins.complex or t not in _SCALARS:
        raise TypeError(f"{func}(): x2 must be an array or a real Python scalar; got {t.__name__}")
    if d.kind in "iu" and t is builtins.float:
        # Note: an int array against a Python float compares in float64, not the default
        # float, so that the search is exact for every int32 value.
        return _dtypes.float64, v
    if d.kind in "iu" and t is builtins.int:
        info = np.iinfo(d._np)
        if v < info.min:
            return None, 0
        if v > info.max:
            return None, x1._shape[0]
    return _dtypes.scalar_result(d, v), v


@api("searchsorted")
def searchsorted(x1, x2, /, *, side="left", sorter=None, out=None) -> Array:
    """Indices where the values ``x2`` would be inserted into the sorted 1-D ``x1``.

    ``side='left'`` gives the first suitable index, ``'right'`` the last; ``sorter``
    holds indices that sort ``x1`` when ``x1`` itself is not sorted.

    >>> import strided as xp
    >>> xp.searchsorted(xp.asarray([1, 3, 5]), xp.asarray([3, 4]), side="right").tolist()
    [2, 2]
    """
    if sorter is None and out is None and type(x1) is Array and type(x2) is Array \
            and x1._device is _CPU and x2._device is _CPU and x1._dtype is x2._dtype \
            and x1._dtype.kind in "iuf" and len(x1._shape) == 1 and (side == "left" or side == "right"):
        # Short path: two host arrays of one real dtype (nothing to promote or cast), no
        # sorter: NumPy's searchsorted (np.searchsorted's own call of the method) on the
        # native views, its index result adopted as the general path below adopts it
        a = x1._np if x1._np is not None else x1._get_native()
        r = a.searchsorted(x2._np if x2._np is not None else x2._get_native(), side)
        if type(r) is not _ND:  # (a 0-d x2: NumPy's scalar)
            r = _np_asarray(r)
        if r.dtype is not _INDEX_NP:
            r = r.astype(_INDEX_NP)
        return _new_array(r, None, 0, r.shape, None, _INDEX, _CPU)
    func = "searchsorted"
    _check(x1, func, "x1")
    if x1.ndim != 1:
        raise ValueError(f"{func}(): x1 must be 1-dimensional; got shape {x1._shape}")
    _dtypes.check_category(func, x1._dtype, "real-valued")
    if side not in ("left", "right"):
        raise ValueError(f"{func}(): side must be 'left' or 'right'; got {side!r}")
    dev = x1._device
    xp = dev.backend.xp
    s = None
    if sorter is not None:
        _check(sorter, func, "sorter")
        check_devices(func, x1, sorter)
        if sorter._dtype.kind not in "iu":
            raise TypeError(f"{func}(): sorter must have an integer dtype; got {sorter._dtype.name}")
        if sorter._shape != x1._shape:
            raise ValueError(f"{func}(): sorter has shape {sorter._shape} but x1 has shape {x1._shape}")
        s = sorter._get_native()
        n = x1._shape[0]
        # Note: checked on the CPU only, as take() is: on a GPU the check would copy to
        # the host on every call (CuPy applies the sorter with take, which wraps around).
        if dev.type == "cpu" and n and (builtins.int(s.min()) < 0 or builtins.int(s.max()) >= n):
            raise ValueError(f"{func}(): sorter holds indices outside [0, {n})")
    if type(x2) is Array:
        check_devices(func, x1, x2)
        _dtypes.check_category(func, x2._dtype, "real-valued")
        dt = PROMOTION[x1._dtype, x2._dtype]
        v = x2._get_native()
        if v.dtype != dt._np:
            v = v.astype(dt._np)
    else:
        dt, v = _search_scalar(x1, x2, func)
        if dt is None:
            with dev.backend.ctx(dev):
                r = xp.full((), v, dtype=_INDEX._np)
            return _finish(wrap_new(r, _INDEX, dev), func, out)
        with dev.backend.ctx(dev):
            v = xp.asarray(v, dtype=dt._np)
    a = x1._get_native()
    if a.dtype != dt._np:
        a = a.astype(dt._np)
    with dev.backend.ctx(dev):
        r = xp.searchsorted(a, v, side=side, sorter=s)
    return _finish(_index_result(r, dev), func, out)


# --- where ------------------------------------------------------------------------

def _where_operand(v, dt, dev):
    """The native operand for ``where``: an array's view, or a 0-d array for a scalar."""
    if type(v) is Array:
        return v._get_native()
    if type(v) is builtins.int and dt.kind in "iu":
        info = np.iinfo(dt._np)
        if not info.min <= v <= info.max:
            raise OverflowError(f"where(): Python int {v} is out of bounds for {dt.name}")
    return dev.backend.asarray(v, dt._np, device=dev)  # (not xp.asarray: CuPy's drops -0.0's sign)


@api("where")
def where(condition, x1, x2, /, *, out=None) -> Array:
    """Elements of ``x1`` where ``condition`` is True, else of ``x2`` (broadcast together).

    ``x1`` or ``x2`` may be a Python scalar; the result dtype follows promotion.

    >>> import strided as xp
    >>> xp.where(xp.asarray([True, False]), xp.asarray([1, 2]), 0).tolist()
    [1, 0]
    """
    if type(condition) is Array and type(x1) is Array and type(x2) is Array and out is None \
            and condition._dtype is _dtypes.bool and x1._dtype is x2._dtype:
        # Hot path: three arrays on the CPU, x1 and x2 of one dtype (no promotion, no cast).
        dev = x1._device
        if dev.type == "cpu" and condition._device is dev and x2._device is dev:
            a = x1._np
            if a is None:
                a = x1._get_native()
            b = x2._np
            if b is None:
                b = x2._get_native()
            c = condition._np
            if c is None:
                c = condition._get_native()
            r = _select(c, a, b)  # (without branches: threads.select)
            if r is not None:
                return Array._new(r, None, 0, r.shape, None, x1._dtype, dev)
            try:
                r = np.where(c, a, b)
            except ValueError:
                pass  # shapes that don't broadcast: the general path names them
            else:
                return Array._new(r, None, 0, r.shape, None, x1._dtype, dev)
    if out is None and type(condition) is Array and condition._dtype is _dtypes.bool:
        # Hot path: a floating array and a Python float or int on the CPU (scikit-learn's
        # ``where(s == 0, s, s / m)``, SciPy's ``where(mask, nan, x)``): the result has
        # the array's dtype (the scalar is weak), the scalar converted to it as the
        # general path below converts it (_where_operand).
        t1, t2 = type(x1), type(x2)
        if t1 is Array and (t2 is builtins.float or t2 is builtins.int):
            arr, first = x1, True
        elif t2 is Array and (t1 is builtins.float or t1 is builtins.int):
            arr, first = x2, False
        else:
            arr = None
        if arr is not None and arr._dtype.kind == "f" and arr._ext is None and condition._ext is None:
            dev = arr._device
            if dev.type == "cpu" and condition._device is dev:
                a = arr._np
                if a is None:
                    a = arr._get_native()
                c = condition._np
                if c is None:
                    c = condition._get_native()
                try:
                    v = np.asarray(x2 if first else x1, dtype=arr._dtype._np)
                    r = _select(c, a, v) if first else _select(c, v, a)
                    if r is None:
                        r = np.where(c, a, v) if first else np.where(c, v, a)
                except (ValueError, OverflowError):
                    pass  # shapes that don't broadcast, an int too large: the general path
                else:
                    return Array._new(r, None, 0, r.shape, None, arr._dtype, dev)
    _check(condition, "where", "condition")
    if condition._dtype is not _dtypes.bool:
        raise _dtypes.DTypeError(f"where(): condition must have the bool dtype; got {condition._dtype.name}")
    t1, t2 = type(x1), type(x2)
    if t1 is not Array and t1 not in _SCALARS and (v := _numpy_scalar(x1)) is not None:
        x1, t1 = v, type(v)  # a NumPy scalar acts as the Python scalar it holds (xarray's fill values)
    if t2 is not Array and t2 not in _SCALARS and (v := _numpy_scalar(x2)) is not None:
        x2, t2 = v, type(v)
    if t1 is Array and t2 is Array:
        dt = PROMOTION[x1._dtype, x2._dtype]
    elif t1 is Array and t2 in _SCALARS:
        dt = _dtypes.scalar_result(x1._dtype, x2)
    elif t2 is Array and t1 in _SCALARS:
        dt = _dtypes.scalar_result(x2._dtype, x1)
    elif t1 in _SCALARS and t2 in _SCALARS:
        raise TypeError("where(): at least one of x1 and x2 must be an array; got two Python scalars")
    else:
        bad = t1 if t1 is not Array and t1 not in _SCALARS else t2
        raise TypeError(f"where(): x1 and x2 must be arrays or Python scalars; got {bad.__name__}")
    dev = check_devices("where", condition, x1, x2)
    try:
        _layout.broadcast_shapes(*(v._shape for v in (condition, x1, x2) if type(v) is Array))
    except ValueError as e:
        raise _layout.ShapeError(f"where(): {e}") from None
    xp = dev.backend.xp
    with dev.backend.ctx(dev):
        a = _where_operand(x1, dt, dev)
        b = _where_operand(x2, dt, dev)
        if (a.dtype != dt._np or b.dtype != dt._np) and xp.result_type(a, b) != dt._np:
            # Cast before selecting where the backend's promotion differs from ours
            # (an integer with a float gives the float dtype, as in PyTorch).
            a = a if a.dtype == dt._np else a.astype(dt._np)
            b = b if b.dtype == dt._np else b.astype(dt._np)
        r = dev.backend.keep_order(xp.where)(condition._get_native(), a, b)  # (NumPy's layout)
    return _finish(wrap_new(r, dt, dev), "where", out)


_BOOL = _dtypes.bool

if _dispatch.CHOT is not None:
    # The compiled hot path (strided/_csrc/_chot/fast.c, where_direct) in front of the
    # definition above at every size: CPU arrays that broadcast, a bool condition, x1 and
    # x2 of one dtype, or one of them a Python float or int beside a float32 or float64
    # array (the second hot path above: the gradients' and scikit-learn's where(m, x, 0.0),
    # 26k -> 6k instructions a call); typed loops per itemsize, a large result from the
    # buffer pool as the elementwise functions'; anything else, and out=, the definition.
    # Note: it replaced a size switch to numpy.where from 512 elements (the compiled loop
    # was a memcpy per element then); measured (interleaved minima, float32, random
    # condition): 1e3 1.3 vs numpy.where's 2.2 us, 1e4 10.7 vs 12.2, 1e5 and 1e6 within
    # 4% (the branch on a random condition dominates both).
    _where_def = where
    where = _dispatch.CHOT.Fast(where, 4, [_dtypes.bool, np.where])  # noqa: F811
