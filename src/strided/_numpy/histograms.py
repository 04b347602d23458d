"""NumPy's ``average``, ``bincount``, ``histogram``, ``histogram_bin_edges``,
``digitize`` and ``interp``: extensions beyond the standard.

These are the NumPy functions that array-API code most often calls on arrays it
did not make (scikit-learn's metrics call ``np.average``, its preprocessing
``np.bincount`` and ``np.interp``; SciPy's ``stats`` ``np.histogram``), so they
follow NumPy's semantics — values, dtypes (NumPy's float64 where NumPy computes
in float64), errors — and NumPy's signatures. They reach strided's
implementation through ``__array_function__`` (``np.histogram(x)``) and are in
the namespace (``xp.histogram(x)``).

Each is built from namespace functions (``searchsorted``, ``take``, ``where``,
reductions, arithmetic) and one backend kernel (``bincount``, NumPy's or
CuPy's), so it runs on every device; ``average`` and ``interp`` record
gradients through those calls (``bincount``'s weights have no derivative: refused). What needs a value on the host (the data's
range for ``bins=10``, the "weights sum to zero" check) reads it as NumPy and
CuPy do.
"""

from __future__ import annotations

import builtins
import numbers
import operator
import sys

import numpy as np

from .._core import _npcompat, dtypes as _dtypes
from .._core.array import _LATE, Array
from .._core.dispatch import check_devices
from .._api.creation import wrap_new
from .._api.statistics import check_array
from ..torch._composites import _composite

__all__ = ["average", "bincount", "digitize", "histogram", "histogram_bin_edges", "interp"]


def _ns():
    return sys.modules["strided"]


def _np_result(*dtypes) -> _dtypes.DType:
    """NumPy's result dtype of strided/NumPy dtypes, as a strided dtype."""
    return _dtypes.from_numpy_dtype(np.result_type(*(getattr(d, "_np", d) for d in dtypes)))


def _astype(x: Array, dtype) -> Array:
    return x if x._dtype is dtype else _ns().astype(x, dtype)


def _axis_tuple(axis, nd: int, func: str):
    if axis is None:
        return None
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -nd <= a < nd:
            raise ValueError(f"{func}(): axis {a} is out of bounds for an array of dimension {nd}")
        out.append(a % nd)
    if len(set(out)) != len(out):
        raise ValueError(f"{func}(): repeated axis in {axis!r}")
    return tuple(out)


# --- average -----------------------------------------------------------------------------------

@_composite
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """The weighted average along ``axis``: NumPy's ``average``.

    ``weights`` has ``a``'s shape, or the shape of ``a`` along ``axis``. With
    ``returned=True`` the result is ``(average, sum of weights)``. Integer and
    boolean inputs are averaged in float64, as NumPy does.

    >>> import strided as xp
    >>> xp.average(xp.asarray([1.0, 2.0, 4.0]), weights=xp.asarray([3.0, 1.0, 0.0])).item()
    1.25
    """
    func = "average"
    check_array(a, func)
    ns = _ns()
    axes = _axis_tuple(axis, a.ndim, func)
    keepdims = builtins.bool(keepdims) if keepdims is not _npcompat.NoValue else False
    if weights is None:
        x = a if a._dtype.kind in "fc" else _astype(a, ns.float64)
        avg = ns.mean(x, axis=axes, keepdims=keepdims)
        if returned:
            n = (a.size // avg.size) if avg.size else 0
            return avg, ns.full_like(avg, n)
        return avg
    check_array(weights, func)
    check_devices(func, a, weights)
    w = weights
    if tuple(a.shape) != tuple(w.shape):
        if axes is None:
            raise TypeError(f"{func}(): axis must be specified when the shapes of a {tuple(a.shape)} "
                            f"and weights {tuple(w.shape)} differ")
        if tuple(w.shape) != tuple(a.shape[ax] for ax in axes):
            raise ValueError(f"{func}(): weights of shape {tuple(w.shape)} don't match a's shape "
                             f"{tuple(a.shape)} along axis {axis!r}")
        # weights broadcast along the other axes (NumPy's _weights_are_valid)
        order = sorted(range(len(axes)), key=lambda i: axes[i])
        w = ns.permute_dims(w, tuple(order))
        w = ns.reshape(w, tuple(s if i in axes else 1 for i, s in enumerate(a.shape)))
    if a._dtype.kind in "biu":
        dt = _np_result(a._dtype, w._dtype, np.float64)
    else:
        dt = _np_result(a._dtype, w._dtype)
    w = _astype(w, dt)
    scl = ns.sum(w, axis=axes, keepdims=keepdims)
    if builtins.bool(ns.any(scl == 0)):
        raise ZeroDivisionError(f"{func}(): weights sum to zero, can't be normalized")
    avg = ns.sum(_astype(a, dt) * w, axis=axes, keepdims=keepdims) / scl
    if returned:
        if tuple(scl.shape) != tuple(avg.shape):
            scl = ns.broadcast_to(scl, tuple(avg.shape)).clone()
        return avg, scl
    return avg


# --- bincount ----------------------------------------------------------------------------------

@_composite
def bincount(x, /, weights=None, minlength=0) -> Array:
    """Count the occurrences of each value in the non-negative integer array ``x``:
    NumPy's ``bincount`` (also PyTorch's, which keeps the weights' dtype; here, as
    in NumPy, weighted counts are float64). One backend kernel; weights that require
    grad are refused (no derivative: ``detach()`` them).

    >>> import strided as xp
    >>> xp.bincount(xp.asarray([0, 1, 1, 3])).tolist()
    [1, 2, 0, 1]
    """
    func = "bincount"
    check_array(x, func)
    if x.ndim != 1:
        raise ValueError(f"{func}(): x must be 1-dimensional; got shape {tuple(x.shape)}")
    if x._dtype.kind not in "biu":
        raise TypeError(f"{func}(): x must hold non-negative integers (an integer or bool dtype); "
                        f"got {x._dtype.name}")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError(f"{func}(): minlength must be non-negative; got {minlength}")
    dev = x._device
    w = None
    if weights is not None:
        check_array(weights, func)
        check_devices(func, x, weights)
        if tuple(weights.shape) != tuple(x.shape):
            raise ValueError(f"{func}(): weights has shape {tuple(weights.shape)} but x has shape "
                             f"{tuple(x.shape)}")
        if weights._dtype.kind == "c":
            raise TypeError(f"{func}(): weights must be real; got {weights._dtype.name}")
        if weights.requires_grad and _LATE.get("grad_enabled", lambda: False)():
            raise RuntimeError(f"the derivative for '{func}' with respect to weights is not "
                               f"implemented: strided.autograd has no rule for it (compute it under "
                               f"no_grad() or detach() the weights)")
        w = weights._get_native()
    if x.shape[0] and x._dtype.kind != "b" and builtins.int(_ns().min(x)) < 0:
        raise ValueError(f"{func}(): x must hold no negative values")
    backend = dev.backend
    with backend.ctx(dev):
        r = backend.xp.bincount(x._get_native(), weights=w, minlength=minlength)
    # Note: as NumPy, an empty x counts in int64 even with weights.
    return wrap_new(r, _dtypes.float64 if w is not None and x.shape[0] else _dtypes.int64, dev)


# --- digitize ----------------------------------------------------------------------------------

@_composite
def digitize(x, bins, right=False) -> Array:
    """The index of the bin of ``bins`` (1-D, increasing or decreasing) that holds each
    value of ``x``: NumPy's ``digitize``.

    >>> import strided as xp
    >>> xp.digitize(xp.asarray([0.2, 6.4, 3.0]), xp.asarray([0.0, 1.0, 2.5, 4.0, 10.0])).tolist()
    [1, 4, 3]
    """
    func = "digitize"
    check_array(x, func)
    check_array(bins, func)
    ns = _ns()
    if x._dtype.kind == "c":
        raise TypeError(f"{func}(): x may not be complex")
    if bins.ndim != 1:
        raise ValueError(f"{func}(): bins must be 1-dimensional; got shape {tuple(bins.shape)}")
    # (bool compares as 0 and 1, as in NumPy; the standard's comparisons take numbers only)
    x = ns.astype(x, ns.uint8) if x._dtype.kind == "b" else x
    bins = ns.astype(bins, ns.uint8) if bins._dtype.kind == "b" else bins
    side = "left" if right else "right"
    n = bins.shape[0]
    if n > 1:
        if builtins.bool(ns.all(bins[1:] >= bins[:-1])):
            decreasing = False
        elif builtins.bool(ns.all(bins[1:] <= bins[:-1])):
            decreasing = True
        else:
            raise ValueError(f"{func}(): bins must be monotonically increasing or decreasing")
    else:
        decreasing = False
    v = x if x.ndim else ns.reshape(x, (1,))
    if decreasing:
        r = n - ns.searchsorted(ns.flip(bins), ns.reshape(v, (-1,)), side=side)
    else:
        r = ns.searchsorted(bins, ns.reshape(v, (-1,)), side=side)
    return ns.reshape(r, tuple(x.shape))


# --- histogram ---------------------------------------------------------------------------------

def _outer_edges(a: Array, range, func: str):
    """NumPy's ``_get_outer_edges``: the first and last edge, NumPy scalars (or Python numbers
    from ``range``) whose types give NumPy's edge dtype."""
    if range is not None:
        first, last = range
        first, last = _host_scalar(first), _host_scalar(last)
        if first > last:
            raise ValueError(f"{func}(): max must be larger than min in range parameter")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"{func}(): supplied range of [{first}, {last}] is not finite")
    elif a.size == 0:
        first, last = 0, 1
    else:
        ns = _ns()
        npdt = a._dtype._np
        first, last = npdt.type(ns.min(a).item()), npdt.type(ns.max(a).item())
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"{func}(): autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first = first - 0.5
        last = last + 0.5
    return first, last


def _host_scalar(v):
    if type(v) is Array:
        return v._dtype._np.type(v.item())
    return v


def _prepare(a, weights, func):
    check_array(a, func)
    ns = _ns()
    if a._dtype.kind == "b":
        # Note: NumPy warns ("Converting input from bool to uint8") and goes on; strided
        # converts without the warning, as CuPy does.
        a = ns.astype(a, ns.uint8)
    if weights is not None:
        check_array(weights, func)
        check_devices(func, a, weights)
        if tuple(weights.shape) != tuple(a.shape):
            raise ValueError(f"{func}(): weights should have the same shape as a; got "
                             f"{tuple(weights.shape)} and {tuple(a.shape)}")
        weights = ns.reshape(weights, (-1,))
    return ns.reshape(a, (-1,)), weights


def _bin_edges(a: Array, bins, range, weights, func: str):
    """NumPy's ``_get_bin_edges``: the edges, a strided array on ``a``'s device."""
    ns = _ns()
    dev = a._device
    if isinstance(bins, str):
        if weights is not None:
            raise TypeError(f"{func}(): automated estimation of the number of bins is not supported "
                            f"for weighted data")
        if dev.type != "cpu":
            raise TypeError(f"{func}(): bins={bins!r} estimates the bins from the data on the host; "
                            f"the data is on {dev}: give the number of bins or the edges, or move the "
                            f"data with x.cpu()")
        # NumPy's estimators (they read every value), on the host array without a copy.
        return ns.asarray(np.histogram_bin_edges(a._export(), bins, range), device=dev)
    if type(bins) is Array and bins.ndim == 0:
        bins = bins.item()
    if type(bins) is not Array and np.ndim(bins) == 0:
        try:
            n_equal = operator.index(bins)
        except TypeError:
            raise TypeError(f"{func}(): bins must be an integer, a string, or an array; got "
                            f"{bins!r}") from None
        if n_equal < 1:
            raise ValueError(f"{func}(): bins must be positive, when an integer; got {n_equal}")
        first, last = _outer_edges(a, range, func)
        bin_type = np.result_type(first, last, a._dtype._np)
        if np.issubdtype(bin_type, np.integer):
            bin_type = np.result_type(bin_type, float)
        # Note: the n + 1 edges are computed on the host by NumPy's linspace, so that they are
        # NumPy's to the last bit, then copied to the data's device.
        edges = np.linspace(first, last, n_equal + 1, endpoint=True, dtype=bin_type)
        if np.any(edges[:-1] >= edges[1:]):
            raise ValueError(f"{func}(): too many bins for the data range; can't create {n_equal} "
                             f"finite-sized bins")
        return ns.asarray(edges, device=dev)
    if type(bins) is Array:
        check_devices(func, a, bins)
        edges = bins
    else:
        edges = ns.asarray(np.asarray(bins), device=dev)
    if edges.ndim != 1:
        raise ValueError(f"{func}(): bins must be 1-dimensional, when an array")
    if edges.shape[0] > 1 and builtins.bool(ns.any(edges[:-1] > edges[1:])):
        raise ValueError(f"{func}(): bins must increase monotonically, when an array")
    return edges


@_composite
def histogram_bin_edges(a, bins=10, range=None, weights=None) -> Array:
    """The bin edges that ``histogram`` uses: NumPy's ``histogram_bin_edges``.

    >>> import strided as xp
    >>> xp.histogram_bin_edges(xp.asarray([0.0, 1.0, 4.0]), bins=2).tolist()
    [0.0, 2.0, 4.0]
    """
    a, weights = _prepare(a, weights, "histogram_bin_edges")
    return _bin_edges(a, bins, range, weights, "histogram_bin_edges")


@_composite
def histogram(a, bins=10, range=None, density=None, weights=None):
    """The histogram of ``a``: ``(counts, bin_edges)``, NumPy's ``histogram``.

    ``bins`` is a number of equal bins over ``range`` (the data's range by
    default), the edges themselves, or the name of one of NumPy's estimators
    (``"auto"``, ``"fd"``, ...; CPU only). Each bin is half-open, ``[e[i],
    e[i+1])``, except the last, which holds its right edge. Counts are int64;
    with ``weights`` they are sums of the weights, in the weights' dtype;
    ``density=True`` gives float64 densities.

    >>> import strided as xp
    >>> counts, edges = xp.histogram(xp.asarray([1.0, 2.0, 2.0, 4.0]), bins=3)
    >>> counts.tolist(), edges.tolist()
    ([1, 2, 1], [1.0, 2.0, 3.0, 4.0])
    """
    func = "histogram"
    a, weights = _prepare(a, weights, func)
    ns = _ns()
    edges = _bin_edges(a, bins, range, weights, func)
    nbins = edges.shape[0] - 1
    ntype = _dtypes.int64 if weights is None else weights._dtype
    if ntype.kind == "c":
        re = histogram(a, edges, weights=ns.real(weights))[0]
        im = histogram(a, edges, weights=ns.imag(weights))[0]
        n = re + im * 1j
    else:
        # The bin of each value: e[i] <= v < e[i+1], the last bin closed; values outside
        # [e[0], e[-1]] (and NaN) go to an overflow bin, dropped below.
        ct = _np_result(a._dtype, edges._dtype)
        v = _astype(a, ct)
        e = _astype(edges, ct)
        idx = ns.searchsorted(e, v, side="right") - 1
        idx = ns.where(v == e[-1], nbins - 1, idx)
        outside = (v < e[0]) | (v > e[-1]) | (v != v)
        idx = ns.where(outside, nbins, idx)
        if weights is None:
            n = ns.bincount(idx, minlength=nbins + 1)[:nbins]
        else:
            w = weights if weights._dtype.kind in "fc" else ns.astype(weights, ns.float64)
            n = ns.bincount(idx, weights=w, minlength=nbins + 1)[:nbins]
            n = _astype(n, ntype)
    if density:
        db = _astype(edges[1:] - edges[:-1], ns.float64)
        n = n / db / ns.sum(n)
    return n, edges


# --- interp ------------------------------------------------------------------------------------

def _interp_real(x, xp_, fp, left, right):
    """NumPy's compiled ``interp`` (numpy/_core/src/multiarray/compiled_base.c), with
    namespace functions: float64 ``x``, ``xp_`` and ``fp``."""
    ns = _ns()
    n = xp_.shape[0]
    lval = fp[0] if left is None else left
    rval = fp[-1] if right is None else right
    if n == 1:
        r = ns.where(x < xp_[0], lval, ns.where(x > xp_[0], rval, fp[0]))
        return ns.where(ns.isnan(x), x, r)
    j = ns.searchsorted(xp_, x, side="right") - 1
    inner = ns.clip(j, 0, n - 2)
    x0, x1 = ns.take(xp_, inner), ns.take(xp_, inner + 1)
    y0, y1 = ns.take(fp, inner), ns.take(fp, inner + 1)
    slope = (y1 - y0) / (x1 - x0)
    r = slope * (x - x0) + y0
    # "If we get nan in one direction, try the other"
    r = ns.where(ns.isnan(r), slope * (x - x1) + y1, r)
    r = ns.where(ns.isnan(r) & (y0 == y1), y0, r)
    r = ns.where(x0 == x, y0, r)                       # avoid a non-finite interpolation
    r = ns.where(j == n - 1, fp[-1], r)
    r = ns.where(j < 0, lval, r)
    r = ns.where(x > xp_[-1], rval, r)
    return ns.where(ns.isnan(x), x, r)


def _fill_value(v, dt, x, func, what):
    """``left``/``right``: a number, or a 0-d array on ``x``'s device."""
    if v is None:
        return None
    if type(v) is Array:
        check_devices(func, x, v)
        if v.ndim:
            raise ValueError(f"{func}(): {what} must be a scalar; got shape {tuple(v.shape)}")
        return _astype(v, dt)
    if not isinstance(v, numbers.Number):
        raise TypeError(f"{func}(): {what} must be a number; got {type(v).__name__}")
    return v


def _part(v, which: str):
    """The real or imaginary part of a complex ``left``/``right``."""
    if v is None:
        return None
    if type(v) is Array:
        return getattr(_ns(), which)(v)
    return getattr(complex(v), which)


@_composite
def interp(x, xp, fp, left=None, right=None, period=None) -> Array:
    """One-dimensional piecewise-linear interpolation of the points ``(xp, fp)`` at
    ``x``: NumPy's ``interp`` (float64 results, complex128 for complex ``fp``).

    ``xp`` must be increasing (or ``period`` given). Below ``xp[0]`` the result is
    ``left`` (default ``fp[0]``), above ``xp[-1]`` it is ``right`` (default ``fp[-1]``).

    >>> import strided as xp
    >>> xp.interp(xp.asarray([0.5, 2.5]), xp.asarray([0.0, 1.0, 3.0]), xp.asarray([0.0, 10.0, 30.0])).tolist()
    [5.0, 25.0]
    """
    func = "interp"
    for v, name in ((x, "x"), (xp, "xp"), (fp, "fp")):
        check_array(v, func)
    check_devices(func, x, xp, fp)
    ns = _ns()
    xs, fps = xp, fp
    if xs.ndim != 1 or fps.ndim != 1:
        raise ValueError(f"{func}(): xp and fp must be 1-dimensional; got shapes {tuple(xs.shape)} "
                         f"and {tuple(fps.shape)}")
    if xs.shape[0] != fps.shape[0]:
        raise ValueError(f"{func}(): fp and xp are not of the same length ({fps.shape[0]} and "
                         f"{xs.shape[0]})")
    if xs.shape[0] == 0:
        raise ValueError(f"{func}(): array of sample points is empty")
    if x._dtype.kind == "c" or xs._dtype.kind == "c":
        raise TypeError(f"{func}(): x and xp must be real; got {x._dtype.name} and {xs._dtype.name}")
    out_dt = ns.complex128 if fps._dtype.kind == "c" else ns.float64
    x = _astype(x, ns.float64)
    xs = _astype(xs, ns.float64)
    fps = _astype(fps, out_dt)
    left = _fill_value(left, out_dt, x, func, "left")
    right = _fill_value(right, out_dt, x, func, "right")
    if period is not None:
        period = _host_scalar(period)
        if period == 0:
            raise ValueError(f"{func}(): period must be a non-zero value")
        period = abs(period)
        left = right = None
        x = ns.remainder(x, period)
        xs = ns.remainder(xs, period)
        order = ns.argsort(xs, stable=True)
        xs, fps = ns.take(xs, order), ns.take(fps, order)
        xs = ns.concat([xs[-1:] - period, xs, xs[:1] + period])
        fps = ns.concat([fps[-1:], fps, fps[:1]])
    shape = tuple(x.shape)
    xf = ns.reshape(x, (-1,))
    if out_dt is ns.complex128:
        re = _interp_real(xf, xs, ns.real(fps), _part(left, "real"), _part(right, "real"))
        im = _interp_real(xf, xs, ns.imag(fps), _part(left, "imag"), _part(right, "imag"))
        r = re + im * 1j
    else:
        r = _interp_real(xf, xs, fps, left, right)
    return ns.reshape(r, shape)
