"""The optional C kernels (``_ckernels.c``) behind NumPy-compatible signatures.

``add_reduce(a, axis, keepdims, dtype)`` is ``numpy.add.reduce`` and
``max_reduce`` / ``min_reduce(a, axis, keepdims)`` are ``numpy.max`` /
``numpy.min`` for the CPU backend: a C-contiguous float32/float64 array
reduced over all axes or one run of adjacent axes (trailing, leading or
middle) goes to the C kernels (``reduce``: NumPy's own summation order,
its values bit for bit; exact, NaN-propagating max/min); everything else goes
to NumPy, and so does a sum that comes out NaN or a max/min whose zero sign
or NaN payload NumPy picks by its own loop order. With the extension
missing (no compiler at install time) or ``STRIDED_NO_CEXT=1`` in the
environment, they are NumPy's functions themselves.
"""

from __future__ import annotations

import numpy as np

from . import cext as _cext

__all__ = ["AVAILABLE", "add_reduce", "max_reduce", "min_reduce", "layout"]

_ckernels = _cext.load("_ckernels")  # None: the NumPy kernels serve

AVAILABLE = _ckernels is not None
# reduce()'s op codes, from the C table SD_REDUCE_OPS ({"sum": 0, "max": 1, "min": 2, ...})
_OPS = _ckernels.REDUCE_OPS if AVAILABLE else {}
_ND = np.ndarray
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_np_add_reduce = np.add.reduce
_np_max, _np_min = np.max, np.min
_empty = np.empty


def layout(a, axes):
    """``(result shape, outer, nred, inner)`` for reducing ``a`` over ``axes`` (None: all;
    else distinct axes in range) in the C kernels: a non-empty C-contiguous native
    float32/float64 ndarray whose reduced axes are adjacent; None otherwise."""
    if (type(a) is not _ND or a.dtype not in _FLOATS or not a.dtype.isnative
            or not a.flags.c_contiguous or not a.size):
        return None
    shape = a.shape
    nd = len(shape)
    if axes is None or len(axes) == nd:
        p, q = 0, nd
    elif not axes:
        return None
    else:
        p, q = min(axes), max(axes) + 1
        if q - p != len(axes):
            return None
    if p == q:
        return None
    outer = nred = inner = 1
    for n in shape[:p]:
        outer *= n
    for n in shape[p:q]:
        nred *= n
    for n in shape[q:]:
        inner *= n
    return shape[:p] + shape[q:], outer, nred, inner


def _axes(a, axis):
    """``axis`` as a tuple of distinct axes in range (None: all), or False: NumPy decides."""
    if axis is None:
        return None
    nd = a.ndim
    if type(axis) is int:
        axis = (axis,)
    elif type(axis) is not tuple:
        return False
    out = []
    for ax in axis:
        if type(ax) is not int or not -nd <= ax < nd:
            return False
        out.append(ax % nd)
    return tuple(out) if len(set(out)) == len(out) else False


def _c_reduce(op, a, axis, keepdims):
    """The C kernel's reduction of ndarray ``a`` (an op code of ``_OPS``), or None."""
    axes = _axes(a, axis)
    if axes is False:
        return None
    lay = layout(a, axes)
    if lay is None:
        return None
    shape, outer, nred, inner = lay
    r = _empty(shape, a.dtype)
    if not _ckernels.reduce(op, a, r, outer, nred, inner, 1):
        return None
    if keepdims:
        red = range(a.ndim) if axes is None else axes
        r = r.reshape(tuple(1 if i in red else n for i, n in enumerate(a.shape)))
    return r


def _c_add_reduce(a, axis=None, dtype=None, out=None, keepdims=False):
    if (type(a) is _ND and out is None and (dtype is None or a.dtype == dtype)
            and a.dtype in _FLOATS):
        r = _c_reduce(_OPS["sum"], a, axis, keepdims)
        if r is not None:
            return r
    return _np_add_reduce(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def _c_max_reduce(a, axis=None, out=None, keepdims=False):
    if type(a) is _ND and out is None and a.dtype in _FLOATS:
        r = _c_reduce(_OPS["max"], a, axis, keepdims)
        if r is not None:
            return r
    return _np_max(a, axis=axis, out=out, keepdims=keepdims)


def _c_min_reduce(a, axis=None, out=None, keepdims=False):
    if type(a) is _ND and out is None and a.dtype in _FLOATS:
        r = _c_reduce(_OPS["min"], a, axis, keepdims)
        if r is not None:
            return r
    return _np_min(a, axis=axis, out=out, keepdims=keepdims)


add_reduce = _c_add_reduce if AVAILABLE else _np_add_reduce
max_reduce = _c_max_reduce if AVAILABLE else _np_max
min_reduce = _c_min_reduce if AVAILABLE else _np_min
