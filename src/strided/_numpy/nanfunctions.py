"""NumPy's NaN-ignoring reductions, ``median`` and ``quantile``: extensions beyond the standard.

Dask, Cubed, xarray (``skipna=True``) and scikit-learn call these on their array
backend and read NumPy's answers, so the *namespace* functions follow NumPy's
semantics with the standard's keywords (``axis``, ``keepdims``, ``correction`` and
NumPy's ``ddof``): ``median`` of an even count averages the two middle values.
PyTorch's lower median stays on the method ``x.median()``. Each function is a
composite of namespace functions (``where``, ``sort``, reductions, indexing), so it
runs on every device, records gradients through those calls and keeps dimension
names.
"""

from __future__ import annotations

import builtins
import math
import sys

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import Array
from .._api.statistics import check_array, reduction_axes
from ..torch._composites import _composite

__all__ = [
    "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax",
    "nanargmin", "nancumsum", "nancumprod", "median", "nanmedian", "quantile", "nanquantile",
]


def _ns():
    return sys.modules["strided"]


def _holds_nan(x: Array) -> bool:
    return x._dtype.kind in "fc"


def _filled(x: Array, value) -> Array:
    """``x`` with its NaNs replaced by ``value`` (``x`` itself when it holds no NaN)."""
    if not _holds_nan(x):
        return x
    ns = _ns()
    return ns.where(ns.isnan(x), value, x)


def _floating(x: Array) -> Array:
    """Integer and bool inputs in the default floating dtype (as strided's ``mean``)."""
    if x._dtype.kind in "biu":
        return _ns().astype(x, _dtypes.get_default_dtype())
    return x


def _quiet():
    # 0/0 of an all-NaN slice is NaN by design here (NumPy warns); CuPy never warns.
    return np.errstate(invalid="ignore", divide="ignore")


# --- sums, products, means ---------------------------------------------------------------

@_composite
def nansum(x, /, *, axis=None, dtype=None, keepdims=False) -> Array:
    """The sum treating NaN as zero: NumPy's ``nansum`` (an extension beyond the standard).

    >>> import strided as xp
    >>> xp.nansum(xp.asarray([[1.0, float("nan")], [2.0, 3.0]]), axis=1).tolist()
    [1.0, 5.0]
    """
    check_array(x, "nansum")
    return _ns().sum(_filled(x, 0), axis=axis, dtype=dtype, keepdims=keepdims)


@_composite
def nanprod(x, /, *, axis=None, dtype=None, keepdims=False) -> Array:
    """The product treating NaN as one: NumPy's ``nanprod`` (an extension beyond the standard).

    >>> import strided as xp
    >>> xp.nanprod(xp.asarray([2.0, float("nan"), 3.0])).item()
    6.0
    """
    check_array(x, "nanprod")
    return _ns().prod(_filled(x, 1), axis=axis, dtype=dtype, keepdims=keepdims)


def _count(x: Array, axis, keepdims, dtype) -> Array:
    """How many elements along ``axis`` are not NaN, in ``dtype``."""
    ns = _ns()
    return ns.astype(ns.sum(ns.logical_not(ns.isnan(x)), axis=axis, keepdims=keepdims), dtype)


def _real(dtype):
    return _dtypes.float32 if dtype is _dtypes.complex64 else (
        _dtypes.float64 if dtype is _dtypes.complex128 else dtype)


@_composite
def nanmean(x, /, *, axis=None, dtype=None, keepdims=False) -> Array:
    """The mean of the elements that are not NaN: NumPy's ``nanmean`` (an extension beyond
    the standard). An all-NaN slice gives NaN.

    >>> import strided as xp
    >>> xp.nanmean(xp.asarray([1.0, float("nan"), 3.0])).item()
    2.0
    """
    check_array(x, "nanmean")
    ns = _ns()
    if not _holds_nan(x):
        return ns.mean(x, axis=axis, keepdims=keepdims, dtype=dtype)
    total = ns.sum(_filled(x, 0), axis=axis, keepdims=keepdims, dtype=dtype)
    with _quiet():
        return total / _count(x, axis, keepdims, _real(total.dtype))


def _correction(func, correction, ddof):
    if ddof is not None:
        if correction is not None:
            raise TypeError(f"{func}(): give correction or NumPy's ddof, not both")
        return ddof
    return 0 if correction is None else correction


@_composite
def nanvar(x, /, *, axis=None, dtype=None, correction=None, ddof=None, keepdims=False) -> Array:
    """The variance of the elements that are not NaN: NumPy's ``nanvar`` (an extension
    beyond the standard). ``correction`` (NumPy's ``ddof``) is subtracted from each
    slice's count; a slice left with no degrees of freedom gives NaN. ``dtype`` is the
    floating dtype to compute in, as NumPy's.

    >>> import strided as xp
    >>> xp.nanvar(xp.asarray([1.0, float("nan"), 3.0]), ddof=1).item()
    2.0
    """
    check_array(x, "nanvar")
    ns = _ns()
    c = _correction("nanvar", correction, ddof)
    x = _floating(x) if dtype is None else ns.astype(x, dtype)
    axes = reduction_axes(x, axis, "nanvar")
    n = _count(x, axes, True, _real(x._dtype))
    with _quiet():
        mean = ns.sum(_filled(x, 0), axis=axes, keepdims=True) / n
        dev = _filled(x - mean, 0)
        sq = ns.real(dev * ns.conj(dev)) if x._dtype.kind == "c" else dev * dev
        dof = n - c
        r = ns.where(dof > 0, ns.sum(sq, axis=axes, keepdims=True) / dof, math.nan)
    return r if keepdims else ns.squeeze(r, axis=axes)


@_composite
def nanstd(x, /, *, axis=None, dtype=None, correction=None, ddof=None, keepdims=False) -> Array:
    """The standard deviation of the elements that are not NaN: NumPy's ``nanstd``
    (an extension beyond the standard); the square root of ``nanvar``.

    >>> import strided as xp
    >>> xp.nanstd(xp.asarray([1.0, float("nan"), 3.0])).item()
    1.0
    """
    check_array(x, "nanstd")
    return _ns().sqrt(nanvar(x, axis=axis, dtype=dtype, correction=correction, ddof=ddof,
                             keepdims=keepdims))


# --- extrema -----------------------------------------------------------------------------

def _nan_extremum(func, x, axis, keepdims, fill):
    check_array(x, func)
    ns = _ns()
    reduce = ns.max if fill < 0 else ns.min
    if not _holds_nan(x):
        return reduce(x, axis=axis, keepdims=keepdims)
    if x._dtype.kind == "c":
        raise TypeError(f"{func}(): complex arrays have no order; got {x._dtype.name}")
    nan = ns.isnan(x)
    r = reduce(ns.where(nan, fill, x), axis=axis, keepdims=keepdims)
    return ns.where(ns.all(nan, axis=axis, keepdims=keepdims), math.nan, r)


@_composite
def nanmax(x, /, *, axis=None, keepdims=False) -> Array:
    """The maximum ignoring NaN: NumPy's ``nanmax`` (an extension beyond the standard).
    An all-NaN slice gives NaN.

    >>> import strided as xp
    >>> xp.nanmax(xp.asarray([1.0, float("nan"), 3.0])).item()
    3.0
    """
    return _nan_extremum("nanmax", x, axis, keepdims, -math.inf)


@_composite
def nanmin(x, /, *, axis=None, keepdims=False) -> Array:
    """The minimum ignoring NaN: NumPy's ``nanmin`` (an extension beyond the standard).
    An all-NaN slice gives NaN.

    >>> import strided as xp
    >>> xp.nanmin(xp.asarray([1.0, float("nan"), 3.0])).item()
    1.0
    """
    return _nan_extremum("nanmin", x, axis, keepdims, math.inf)


def _nan_arg(func, x, axis, keepdims, fill):
    check_array(x, func)
    ns = _ns()
    arg = ns.argmax if fill < 0 else ns.argmin
    if not _holds_nan(x):
        return arg(x, axis=axis, keepdims=keepdims)
    nan = ns.isnan(x)
    # Note: as NumPy's, this reads one bool back from the device to raise.
    if builtins.bool(ns.any(ns.all(nan, axis=axis))):
        where = "" if axis is None else f" along axis {axis}"
        raise ValueError(f"{func}(): all-NaN slice encountered{where}")
    return arg(ns.where(nan, fill, x), axis=axis, keepdims=keepdims)


@_composite
def nanargmax(x, /, *, axis=None, keepdims=False) -> Array:
    """The index of the maximum ignoring NaN: NumPy's ``nanargmax`` (an extension beyond
    the standard). An all-NaN slice raises ValueError.

    >>> import strided as xp
    >>> xp.nanargmax(xp.asarray([float("nan"), 3.0, 1.0])).item()
    1
    """
    return _nan_arg("nanargmax", x, axis, keepdims, -math.inf)


@_composite
def nanargmin(x, /, *, axis=None, keepdims=False) -> Array:
    """The index of the minimum ignoring NaN: NumPy's ``nanargmin`` (an extension beyond
    the standard). An all-NaN slice raises ValueError.

    >>> import strided as xp
    >>> xp.nanargmin(xp.asarray([float("nan"), 3.0, 1.0])).item()
    2
    """
    return _nan_arg("nanargmin", x, axis, keepdims, math.inf)


# --- cumulative ----------------------------------------------------------------------------

@_composite
def nancumsum(x, /, *, axis=None, dtype=None) -> Array:
    """The cumulative sum treating NaN as zero: NumPy's ``nancumsum`` (an extension beyond
    the standard); ``axis=None`` runs over the flattened array.

    >>> import strided as xp
    >>> xp.nancumsum(xp.asarray([1.0, float("nan"), 2.0])).tolist()
    [1.0, 1.0, 3.0]
    """
    check_array(x, "nancumsum")
    return _ns().cumsum(_filled(x, 0), axis=axis, dtype=dtype)


@_composite
def nancumprod(x, /, *, axis=None, dtype=None) -> Array:
    """The cumulative product treating NaN as one: NumPy's ``nancumprod`` (an extension
    beyond the standard); ``axis=None`` runs over the flattened array.

    >>> import strided as xp
    >>> xp.nancumprod(xp.asarray([2.0, float("nan"), 3.0])).tolist()
    [2.0, 2.0, 6.0]
    """
    check_array(x, "nancumprod")
    return _ns().cumprod(_filled(x, 1), axis=axis, dtype=dtype)


# --- order statistics: median and quantile --------------------------------------------------

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _sorted_slices(func, x, axis):
    """``x`` sorted along the reduced axes gathered into one last axis, its kept shape,
    the reduced axes and the kept names (None when unnamed)."""
    ns = _ns()
    check_array(x, func)
    if x._dtype.kind == "c":
        raise TypeError(f"{func}(): complex arrays have no order; got {x._dtype.name}")
    names = x.names
    named = any(n is not None for n in names)
    axes = reduction_axes(x, axis, func)
    if named:
        x = x.rename(None)
    x = _floating(x)
    kept = tuple(a for a in range(x.ndim) if a not in axes)
    kept_shape = tuple(x.shape[a] for a in kept)
    order = kept + axes
    moved = x if order == tuple(range(x.ndim)) else ns.permute_dims(x, order)
    flat = ns.reshape(moved, kept_shape + (math.prod(x.shape[a] for a in axes),))
    kept_names = tuple(names[a] for a in kept) if named else None
    return ns.sort(flat, axis=-1), kept_shape, axes, (kept_names, names if named else None)


def _finish(r: Array, x_ndim: int, axes, keepdims, names, lead: int) -> Array:
    """Put back the reduced axes as ones (keepdims) and the names (kept axes' names; all
    of them with keepdims, as ``sum``); ``lead`` leading axes (the quantiles) go first,
    unnamed."""
    ns = _ns()
    kept_names, all_names = names
    if keepdims:
        shape = list(r.shape[lead:])
        for a in sorted(axes):
            shape.insert(a, 1)
        r = ns.reshape(r, tuple(r.shape[:lead]) + tuple(shape))
        kept_names = all_names
    if kept_names is not None:
        r = r.refine_names(*((None,) * lead + kept_names))
    return r


def _at(s: Array, index, count_is_int: bool) -> Array:
    """``s[..., index]``: ``index`` an int, or an integer array of the batch shape."""
    if count_is_int:
        return s[..., index]
    ns = _ns()
    return ns.take_along_axis(s, ns.expand_dims(index, axis=-1), axis=-1)[..., 0]


def _lerp(a, b, t):
    # NumPy's _lerp: from the nearer end, so that t = 1 gives b exactly.
    ns = _ns()
    d = b - a
    return ns.where(t >= 0.5, b - d * (1 - t), a + d * t) if type(t) is not builtins.float else (
        b - d * (1 - t) if t >= 0.5 else a + d * t)


def _order_statistic(s: Array, counts, q: float, method: str) -> Array:
    """The ``q`` quantile of each row of sorted ``s`` with ``counts`` valid leading
    elements per row (an int, or an int array of the batch shape)."""
    ns = _ns()
    is_int = type(counts) is builtins.int
    if is_int:
        virtual = q * (counts - 1)
        lo = math.floor(virtual)
        hi = min(lo + 1, counts - 1)
        gamma = virtual - lo
        nearest = builtins.int(np.around(virtual))
    else:
        last = ns.astype(ns.maximum(counts - 1, 0), _dtypes.float64)
        virtual = last * q
        lo_f = ns.floor(virtual)
        gamma = ns.astype(virtual - lo_f, s.dtype)
        lo = ns.astype(lo_f, _dtypes.int64)
        hi = ns.minimum(lo + 1, ns.astype(last, _dtypes.int64))
        nearest = ns.astype(ns.round(virtual), _dtypes.int64)  # half to even, as np.around
    if method == "lower":
        return _at(s, lo, is_int)
    if method == "higher":
        ceil = (lo if gamma == 0 else hi) if is_int else ns.where(gamma > 0, hi, lo)
        return _at(s, ceil, is_int)
    if method == "nearest":
        return _at(s, nearest, is_int)
    a, b = _at(s, lo, is_int), _at(s, hi, is_int)
    if method == "midpoint":
        if is_int:
            return a if gamma == 0 else _lerp(a, b, 0.5)
        return ns.where(gamma > 0, _lerp(a, b, 0.5), a)
    return _lerp(a, b, gamma)


def _quantiles(func, x, q, axis, keepdims, method, skip_nan):
    ns = _ns()
    if method not in _METHODS:
        raise ValueError(f"{func}(): method must be one of {', '.join(_METHODS)}; got {method!r}")
    if type(q) is Array:
        q = q.to_device("cpu")._get_native()  # a few numbers, read on the host
    try:
        qa = np.asarray(q, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{func}(): q must be numbers; got {q!r}") from None
    if qa.ndim > 1:
        raise ValueError(f"{func}(): q must be a number or a 1-d sequence; got shape {qa.shape}")
    scalar_q = qa.ndim == 0
    qs = qa.reshape(-1).tolist()
    if not all(0.0 <= v <= 1.0 for v in qs):
        raise ValueError(f"{func}(): quantiles must be in the range [0, 1]; got {qs}")
    nd = x.ndim
    s, kept_shape, axes, kept_names = _sorted_slices(func, x, axis)
    n = s.shape[-1]
    if n == 0:
        raise ValueError(f"{func}(): the quantile of an empty axis is undefined (shape "
                         f"{tuple(x.shape)}, axis {axis})")
    if skip_nan:
        counts = ns.sum(ns.logical_not(ns.isnan(s)), axis=-1)  # NaNs sort last
        empty = counts == 0
    else:
        counts, empty = n, ns.isnan(s[..., -1])  # any NaN in a row sorts last: NaN
    rows = []
    for v in qs:
        r = _order_statistic(s, counts, v, method)
        rows.append(ns.where(empty, math.nan, r))
    r = rows[0] if scalar_q else ns.stack(rows, axis=0)
    return _finish(r, nd, axes, keepdims, kept_names, 0 if scalar_q else 1)


@_composite
def quantile(x, /, q, *, axis=None, keepdims=False, method="linear") -> Array:
    """The ``q`` quantiles of ``x`` along ``axis``: NumPy's ``quantile`` (an extension
    beyond the standard), with its methods ``linear`` (default), ``lower``, ``higher``,
    ``midpoint`` and ``nearest``.

    ``q`` is a number or a 1-d sequence in [0, 1]; for a sequence the quantiles make the
    first axis of the result. A slice holding NaN gives NaN. (PyTorch's
    ``x.quantile(q, dim, keepdim, interpolation=)`` is the method.)

    >>> import strided as xp
    >>> x = xp.asarray([[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]])
    >>> xp.quantile(x, 0.5, axis=1).tolist()
    [2.5, 25.0]
    >>> xp.quantile(x, [0.0, 1.0], axis=1, method="lower").tolist()
    [[1.0, 10.0], [4.0, 40.0]]
    """
    return _quantiles("quantile", x, q, axis, keepdims, method, False)


@_composite
def nanquantile(x, /, q, *, axis=None, keepdims=False, method="linear") -> Array:
    """``quantile`` of the elements that are not NaN: NumPy's ``nanquantile`` (an extension
    beyond the standard). An all-NaN slice gives NaN.

    >>> import strided as xp
    >>> xp.nanquantile(xp.asarray([1.0, float("nan"), 3.0, 2.0]), 0.5).item()
    2.0
    """
    return _quantiles("nanquantile", x, q, axis, keepdims, method, True)


def _median(func, x, axis, keepdims, skip_nan):
    ns = _ns()
    nd = x.ndim
    s, kept_shape, axes, kept_names = _sorted_slices(func, x, axis)
    n = s.shape[-1]
    if n == 0:  # NumPy: NaN (with a warning)
        r = ns.full(kept_shape, math.nan, dtype=s.dtype, device=s.device)
        return _finish(r, nd, axes, keepdims, kept_names, 0)
    if skip_nan:
        counts = ns.sum(ns.logical_not(ns.isnan(s)), axis=-1)
        lo = ns.maximum((counts - 1) // 2, 0)
        hi = ns.maximum(counts // 2, 0)
        a, b = _at(s, lo, False), _at(s, hi, False)
        with _quiet():
            r = ns.where(lo == hi, a, (a + b) / 2)
        r = ns.where(counts == 0, math.nan, r)
    else:
        a, b = s[..., (n - 1) // 2], s[..., n // 2]
        r = a if n % 2 else (a + b) / 2  # the mean of the middle two, as NumPy
        r = ns.where(ns.isnan(s[..., -1]), math.nan, r)
    return _finish(r, nd, axes, keepdims, kept_names, 0)


@_composite
def median(x, /, *, axis=None, keepdims=False) -> Array:
    """The median along ``axis``: NumPy's ``median`` (an extension beyond the standard).
    For an even count it is the mean of the two middle values; a slice holding NaN gives
    NaN.

    PyTorch's ``x.median()`` (the method) returns the lower of the two middle values
    instead; scikit-learn and xarray call ``xp.median`` and expect NumPy's.

    >>> import strided as xp
    >>> x = xp.asarray([4.0, 1.0, 3.0, 2.0])
    >>> xp.median(x).item(), x.median().item()
    (2.5, 2.0)
    """
    return _median("median", x, axis, keepdims, False)


@_composite
def nanmedian(x, /, *, axis=None, keepdims=False) -> Array:
    """The median of the elements that are not NaN: NumPy's ``nanmedian`` (an extension
    beyond the standard). An all-NaN slice gives NaN.

    >>> import strided as xp
    >>> xp.nanmedian(xp.asarray([[1.0, float("nan"), 4.0], [2.0, 3.0, 5.0]]), axis=1).tolist()
    [2.5, 3.0]
    """
    return _median("nanmedian", x, axis, keepdims, True)
