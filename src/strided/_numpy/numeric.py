"""NumPy's ``pad``, ``gradient`` and ``ravel``: extensions beyond the standard.

Dask, Cubed and xarray call these on their array backend. Each is a composite
of namespace functions (slicing, ``flip``, ``broadcast_to``, ``concat`` and
arithmetic), so it runs on every device, records gradients through those
calls and keeps dimension names through them.
"""

from __future__ import annotations

import builtins
import math
import numbers
import sys

import numpy as np

from .._core import dtypes as _dtypes
from .._core import layout as _layout
from .._core.array import Array
from .._api.statistics import check_array, reduction_axes, single_axis
from ..torch._composites import _composite

__all__ = ["gradient", "pad", "ravel"]


def _ns():
    return sys.modules["strided"]


def _along(nd: int, axis: int, sl: slice) -> tuple:
    """The index that applies ``sl`` to ``axis`` of an ``nd``-dimensional array."""
    return (builtins.slice(None),) * axis + (sl,) + (builtins.slice(None),) * (nd - axis - 1)


# --- pad ---------------------------------------------------------------------------------------

_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "empty")
_FILL_ONCE_MAX = 1 << 16  # elements (see _pad_constant)


def _pairs(value, nd: int, what: str, integral: builtins.bool) -> list:
    """NumPy's reading of ``pad_width``/``constant_values``: one (before, after) pair per axis."""
    if type(value) is Array:
        value = value.tolist()
    a = np.asarray(value)
    if integral and a.size and a.dtype.kind not in "iu":
        raise TypeError(f"pad(): {what} must be integers; got {value!r}")
    if a.dtype.kind not in "biufc":
        raise TypeError(f"pad(): {what} must be numbers; got {value!r}")
    # As NumPy's _as_pairs: one value is every width; two are (before, after) for every axis.
    if a.size == 1:
        a = a.ravel()
    elif a.size == 2 and a.shape != (2, 1):
        a = a.ravel()
    try:
        return np.broadcast_to(a, (nd, 2)).tolist()
    except ValueError:
        raise ValueError(f"pad(): {what} {value!r} doesn't fit an array with {nd} dimensions; give "
                         f"one value, (before, after), or one (before, after) pair per axis") from None


def _source(mode: str, n: int, p: int) -> int:
    """The index of ``x`` whose value position ``p`` (outside ``[0, n)``) takes along an axis."""
    if mode == "edge" or (mode == "reflect" and n == 1):
        # Note: NumPy extends a length-1 axis as 'edge' in 'reflect' mode too.
        return 0 if p < 0 else n - 1
    if mode == "wrap":
        return p % n
    if mode == "symmetric":
        q = p % (2 * n)
        return q if q < n else 2 * n - 1 - q
    q = p % (2 * n - 2)  # reflect: the edge value is not repeated
    return q if q < n else 2 * n - 2 - q


def _runs(mode: str, n: int, positions) -> list:
    """Maximal runs ``[first, count, step]`` (step 1, -1 or 0) of the source indices."""
    runs = []
    for p in positions:
        m = _source(mode, n, p)
        if runs:
            r = runs[-1]
            last = r[0] + (r[1] - 1) * r[2]
            if r[1] == 1 and m - last in (-1, 0, 1):
                r[2] = m - last  # a run's second element sets its direction
            if m == last + r[2]:
                r[1] += 1
                continue
        runs.append([m, 1, 1])
    return runs


def _run_view(r: Array, axis: int, first: int, count: int, step: int) -> Array:
    """The elements ``first, first + step, ...`` (``count`` of them) of ``r`` along ``axis``,
    as a view (one element for step 0: the write broadcasts it)."""
    nd = r.ndim
    if step == 0 or count == 1:
        return r[_along(nd, axis, builtins.slice(first, first + 1 if step == 0 else first + count))]
    if step == 1:
        return r[_along(nd, axis, builtins.slice(first, first + count))]
    return _ns().flip(r[_along(nd, axis, builtins.slice(first - count + 1, first + 1))], axis=axis)


@_composite
def pad(x, /, pad_width, mode="constant", *, constant_values=0) -> Array:
    """``x`` padded along each axis, as NumPy's ``pad`` (and array-api-extra's) does.

    An extension beyond the standard. ``pad_width`` is an int, ``(before, after)``
    for every axis, one ``(before, after)`` pair per axis, or a dict from axes (or
    dimension names) to an int or a pair, the others unpadded. ``mode`` is
    ``'constant'`` (``constant_values``: one value, ``(before, after)``, or a pair
    per axis), ``'edge'``, ``'reflect'`` (mirrored without repeating the edge),
    ``'symmetric'`` (mirrored with it), ``'wrap'`` or ``'empty'``. Widths larger
    than the axis repeat the pattern, as in NumPy. The axes are padded in order,
    each one's padding spanning the previous ones' (so a corner takes its value
    from the last axis), as in NumPy.

    NumPy's algorithm in namespace operations: ``x`` is written into the middle
    of a new array, then each axis's sides are written from slices of what is
    already there (through ``flip`` where mirrored). So it works on every
    device, records gradients (the writes are recorded as any write into a
    view) and keeps dimension names.

    >>> import strided as xp
    >>> xp.pad(xp.asarray([1, 2, 3]), (2, 1))
    tensor([0, 0, 1, 2, 3, 0])
    >>> xp.pad(xp.asarray([1, 2, 3]), 2, mode="reflect")
    tensor([3, 2, 1, 2, 3, 2, 1])
    >>> xp.pad(xp.asarray([[1, 2], [3, 4]]), ((0, 1), (1, 0)), mode="edge")
    tensor([[1, 1, 2],
            [3, 3, 4],
            [3, 3, 4]])
    >>> xp.pad(xp.asarray([[1, 2], [3, 4]]), {1: (0, 2)}, mode="wrap")
    tensor([[1, 2, 1, 2],
            [3, 4, 3, 4]])
    """
    # Note: NumPy's statistic modes ('mean', 'maximum', ...), 'linear_ramp', a callable
    # mode and reflect_type='odd' are not implemented (ValueError naming the mode).
    check_array(x, "pad")
    ns, nd = _ns(), x.ndim
    if mode not in _PAD_MODES:
        raise ValueError(f"pad(): mode {mode!r} is not supported; strided pads in the modes "
                         f"{', '.join(repr(m) for m in _PAD_MODES)}")
    if isinstance(pad_width, dict):  # NumPy 2.3's {axis: width or (before, after)}
        seq = [(0, 0)] * nd
        for a, w in pad_width.items():
            seq[single_axis(x, a, "pad")] = (w, w) if isinstance(w, numbers.Integral) else tuple(w)
        pad_width = seq
    widths = _pairs(pad_width, nd, "pad_width", True)
    values = None
    if mode == "constant":
        values = _pairs(constant_values, nd, "constant_values", False)
    elif not (isinstance(constant_values, numbers.Number) and constant_values == 0):
        raise ValueError(f"pad(): constant_values applies to mode='constant' only; got mode={mode!r}")
    for ax, ((before, after), n) in enumerate(zip(widths, x.shape)):
        if before < 0 or after < 0:
            raise ValueError(f"pad(): pad_width for axis {ax} is ({before}, {after}); widths must be >= 0")
        if n == 0 and (before or after) and mode not in ("constant", "empty"):
            raise ValueError(f"pad(): can't extend the empty axis {ax} (shape {tuple(x.shape)}) "
                             f"in mode {mode!r}; only 'constant' and 'empty' can")
    shape = tuple(n + b + a for n, (b, a) in zip(x.shape, widths))
    names = x._ext.names if x._ext is not None else None
    # A small result with one value everywhere (the common case) takes one fill of the whole
    # array (one call) instead of two writes per axis; a large one isn't written twice.
    one = builtins.bool(values) and math.prod(shape) <= _FILL_ONCE_MAX \
        and builtins.all(v == values[0][0] for pair in values for v in pair)
    if one:
        r = ns.full(shape, values[0][0], dtype=x.dtype, device=x.device, names=names)
    else:
        r = ns.empty(shape, dtype=x.dtype, device=x.device, names=names)
    middle = tuple(builtins.slice(b, b + n) for n, (b, _) in zip(x.shape, widths))
    r[middle] = x
    if one or mode == "empty":
        return r
    for ax, (before, after) in enumerate(widths):
        # this axis's sides span the padded extent of the axes before it, as NumPy's
        n, head, tail = x.shape[ax], (builtins.slice(None),) * ax, middle[ax + 1:]
        if mode == "constant":
            for side, value in ((builtins.slice(0, before), values[ax][0]),
                                (builtins.slice(before + n, None), values[ax][1])):
                if side.start != side.stop:
                    r[head + (side,) + tail] = value
            continue
        done = r[head + (builtins.slice(None),) + tail]  # its sources: this axis's middle
        for start, positions in ((0, range(-before, 0)), (before + n, range(n, n + after))):
            for first, count, step in _runs(mode, n, positions):
                r[head + (builtins.slice(start, start + count),) + tail] = \
                    _run_view(done, ax, before + first, count, step)
                start += count
    return r


# --- gradient ----------------------------------------------------------------------------------

def _is_scalar(v) -> builtins.bool:
    if type(v) is Array:
        return v.ndim == 0
    return isinstance(v, (numbers.Number, np.generic)) or (isinstance(v, np.ndarray) and v.ndim == 0)


def _spacings(f: Array, axes: tuple, varargs: tuple) -> list:
    """One spacing per axis: a scalar, or the differences of a coordinate array (NumPy's rules)."""
    ns = _ns()
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and _is_scalar(varargs[0]):
        return list(varargs) * len(axes)
    if len(varargs) != len(axes):
        raise TypeError(f"gradient(): give no spacing, one scalar, or one spacing per axis "
                        f"({len(axes)}); got {len(varargs)}")
    dx = []
    for ax, v in zip(axes, varargs):
        if _is_scalar(v):
            dx.append(v)
            continue
        c = v if type(v) is Array else ns.asarray(np.asarray(v), device=f.device)
        if c.ndim != 1:
            raise ValueError(f"gradient(): the spacing of axis {ax} must be a scalar or 1-D coordinates; "
                             f"got shape {tuple(c.shape)}")
        if c.shape[0] != f.shape[ax]:
            raise ValueError(f"gradient(): the coordinates of axis {ax} have length {c.shape[0]}; "
                             f"the axis has {f.shape[ax]}")
        if c.dtype.kind in "biu":
            c = ns.astype(c, _dtypes.float64)  # as NumPy (no modular arithmetic in the differences)
        d = ns.diff(c)
        # As NumPy: evenly spaced coordinates take the uniform-spacing formulas. Note: only
        # on the host; elsewhere the general formulas (equal up to rounding) spare the
        # device-to-host copy of the answer.
        even = c.device.type == "cpu" and d.shape[0] and builtins.bool(ns.all(d == d[0]))
        dx.append(d[0] if even else d)
    return dx


def _derivative(f: Array, ax: int, dx, edge_order: int) -> Array:
    """NumPy's second-order accurate differences of ``f`` along ``ax`` (numpy.gradient's formulas)."""
    ns, nd = _ns(), f.ndim
    n = f.shape[ax]
    if n < edge_order + 1:
        raise _layout.ShapeError(f"gradient(): axis {ax} has {n} elements; edge_order={edge_order} needs at "
                         f"least {edge_order + 1}")

    def at(start, stop=None):
        return f[_along(nd, ax, builtins.slice(start, stop))]

    uniform = not (type(dx) is Array and dx.ndim == 1)
    if uniform:
        inner = (at(2) - at(None, -2)) / (2.0 * dx)
    else:
        dx1, dx2 = dx[:-1], dx[1:]
        shape = tuple(-1 if i == ax else 1 for i in range(nd))
        a = ns.reshape(-dx2 / (dx1 * (dx1 + dx2)), shape)
        b = ns.reshape((dx2 - dx1) / (dx1 * dx2), shape)
        c = ns.reshape(dx1 / (dx2 * (dx1 + dx2)), shape)
        inner = a * at(None, -2) + b * at(1, -1) + c * at(2)
    if edge_order == 1:
        first = (at(1, 2) - at(0, 1)) / (dx if uniform else dx[0])
        last = (at(-1) - at(-2, -1)) / (dx if uniform else dx[-1])
    else:
        if uniform:
            a, b, c = -1.5 / dx, 2.0 / dx, -0.5 / dx
        else:
            d1, d2 = dx[0], dx[1]
            a, b, c = (-(2.0 * d1 + d2) / (d1 * (d1 + d2)), (d1 + d2) / (d1 * d2),
                       -d1 / (d2 * (d1 + d2)))
        first = a * at(0, 1) + b * at(1, 2) + c * at(2, 3)
        if uniform:
            a, b, c = 0.5 / dx, -2.0 / dx, 1.5 / dx
        else:
            d1, d2 = dx[-2], dx[-1]
            a, b, c = (d2 / (d1 * (d1 + d2)), -(d2 + d1) / (d1 * d2), (2.0 * d2 + d1) / (d2 * (d1 + d2)))
        last = a * at(-3, -2) + b * at(-2, -1) + c * at(-1)
    return ns.concat([first, inner, last], axis=ax)


@_composite
def gradient(f, /, *varargs, axis=None, edge_order=1, spacing=None, dim=None):
    """The derivative of ``f`` along each axis by second-order accurate central
    differences (one-sided at the edges), as NumPy's ``gradient``.

    An extension beyond the standard. ``varargs`` are NumPy's spacings: none (unit
    spacing), one scalar for every axis, or one per axis, each a scalar step or a
    1-D array of coordinates. ``edge_order`` (1 or 2) is the accuracy at the edges.
    Returns one array for one axis and a tuple of arrays for several, as NumPy.
    Integer and boolean input give the default floating dtype (NumPy: float64);
    otherwise the result has ``f``'s dtype.

    PyTorch's spelling ``gradient(f, spacing=..., dim=..., edge_order=...)`` is
    accepted too, and then, as ``torch.gradient``, always returns a tuple.

    Built from slicing, arithmetic and ``concat``: works on every device, records
    gradients and keeps dimension names.

    >>> import strided as xp
    >>> xp.gradient(xp.asarray([1.0, 2.0, 4.0, 7.0]))
    tensor([1.0000, 1.5000, 2.5000, 3.0000])
    >>> gy, gx = xp.gradient(xp.asarray([[1.0, 2.0, 6.0], [3.0, 4.0, 5.0]]), 2.0)
    >>> gx
    tensor([[0.5000, 1.2500, 2.0000],
            [0.5000, 0.5000, 0.5000]])
    >>> xp.gradient(xp.asarray([0.0, 1.0, 4.0]), xp.asarray([0.0, 1.0, 3.0]), edge_order=2)
    tensor([0.8333, 1.1667, 1.8333])
    >>> xp.gradient(xp.asarray([1.0, 2.0, 4.0]), spacing=2.0, dim=0)
    (tensor([0.5000, 0.7500, 1.0000]),)
    """
    check_array(f, "gradient")
    torch_style = spacing is not None or dim is not None
    if dim is not None:
        if axis is not None:
            raise TypeError("gradient(): give dim (PyTorch's name) or axis (NumPy's), not both")
        axis = dim
    if spacing is not None:
        if varargs:
            raise TypeError("gradient(): give the spacing positionally (NumPy) or as spacing= "
                            "(PyTorch), not both")
        varargs = tuple(spacing) if isinstance(spacing, (list, tuple)) else (spacing,)
    if edge_order not in (1, 2):
        raise _layout.ArgumentError(f"gradient(): edge_order must be 1 or 2; got {edge_order!r}")
    if f.ndim == 0:
        raise ValueError("gradient(): needs an array with at least one dimension; got a 0-d array")
    axes = reduction_axes(f, tuple(axis) if isinstance(axis, list) else axis, "gradient")
    if isinstance(spacing, (list, tuple)) and len(spacing) != len(axes):
        # (PyTorch's rule: a list names one spacing per dim; NumPy's one positional scalar
        # for every axis is the scalar spacing= here)
        raise RuntimeError(f"gradient(): expected spacing to be unspecified, a scalar or one "
                           f"spacing per dim, but got {len(spacing)} spacings for the {len(axes)} "
                           f"dims {tuple(axes)}")
    dx = _spacings(f, axes, varargs)
    ns = _ns()
    otype = f.dtype if f.dtype.kind in "fc" else _dtypes.get_default_dtype()
    g = f if f.dtype == otype else ns.astype(f, otype)
    outs = []
    for ax, d in zip(axes, dx):
        r = _derivative(g, ax, d, edge_order)
        outs.append(r if r.dtype == otype else ns.astype(r, otype))
    if len(outs) == 1 and not torch_style:
        return outs[0]
    return tuple(outs)


# --- ravel -----------------------------------------------------------------------------------

@_composite
def ravel(x, /) -> Array:
    """``x`` flattened to one dimension: a view when ``x`` is contiguous, else a
    contiguous copy, as PyTorch's ``ravel`` (NumPy's also returns a strided view
    where it can). An extension beyond the standard; also the method ``x.ravel()``.

    >>> import strided as xp
    >>> xp.ravel(xp.asarray([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
    >>> xp.asarray([[1, 2], [3, 4]]).T.ravel()
    tensor([1, 3, 2, 4])
    """
    check_array(x, "ravel")
    ns = _ns()
    return ns.reshape(x if x.is_contiguous() else ns.clone(x), (-1,))


def _ravel_method(self):
    """Method form of ``strided.ravel``: a contiguous flattened array."""
    return ravel(self)


_ravel_method.__name__ = "ravel"
Array.ravel = _ravel_method
