"""Utility functions: the logical reductions ``all``/``any`` and ``diff``."""

from __future__ import annotations

import builtins
import operator

import numpy as np

from .._core import dtypes as _dtypes, layout as _layout, threads as _threads
from .._core.array import Array
from .creation import _finish, wrap_new
from .._core.call import bind as _bind
from .._core.dispatch import api, check_devices
from .statistics import _npred_c, c_order, check_array, plain_axis, reduce_with, reduction_axes, single_axis

__all__ = ["all", "any", "diff"]

_BOOL_NP = np.dtype(bool)
_asarray = np.asarray


# NumPy's own any/all are these ufunc reductions with dtype=bool (numpy/_core/fromnumeric.py,
# _wrapreduction_any_all); called directly below the size the thread pool splits from.
_LOGICAL = {"any": np.logical_or.reduce, "all": np.logical_and.reduce}
_ND = np.ndarray


def _logical(func: str, x, axis, keepdims, out):
    if out is None and type(x) is Array and (keepdims is False or keepdims is True):
        a = x._np
        if a is None:
            a = x._get_native()
        # (plain_axis's common answers inlined, as statistics.short_native does)
        if type(a) is _ND and (axis is None or (type(axis) is int and -a.ndim <= axis < a.ndim)
                               or (type(axis) is tuple and plain_axis(axis, a.ndim))) \
                and a.nbytes < _threads._REDUCE_FACTOR * _threads._THREAD_MIN[0]:
            # The short path: the kernel below, the axis as given (NumPy takes what
            # plain_axis accepts as reduction_axes would return it).
            r = _LOGICAL[func](a, axis, _BOOL_NP, None, keepdims)
            if type(r) is not _ND:
                r = _asarray(r)
            elif not r.flags.c_contiguous:
                r = c_order(r)  # (C-ordered, as PyTorch's; statistics.c_order)
            return Array._new(r, None, 0, r.shape, None, _dtypes.bool, x._device)
    check_array(x, func)
    axes = None if axis is None else reduction_axes(x, axis, func)
    a = x._np
    if a is None:
        a = x._get_native()
    if type(a) is _ND and a.nbytes < _threads._REDUCE_FACTOR * _threads._THREAD_MIN[0]:
        # Small host arrays: large_reduce would call the same kernel in one piece (~3 us
        # of wrappers saved per call; scikit-learn and SciPy call any/all on every input).
        r = _LOGICAL[func](a, axes, _BOOL_NP, None, keepdims=keepdims)
        if type(r) is not _ND:
            r = _asarray(r)  # NumPy's scalar for a full reduction
        elif not r.flags.c_contiguous:
            r = c_order(r)
        return _finish(wrap_new(r, _dtypes.bool, x._device), func, out)
    return _finish(reduce_with(func, x, axes, keepdims, _dtypes.bool), func, out)


# Note: all and any declare PyTorch's dim/keepdim (and a positional dim, refused with a
# hint) themselves, as the hot reductions in statistics.py do: no binding frame.
@api("all", c_case=_npred_c(_LOGICAL["all"], _dtypes.bool, _BOOL_NP, _dtypes.ALL_DTYPES, 0, -1))
def all(x, /, *dims, axis=..., keepdims=..., out=None, dim=..., keepdim=...) -> Array:
    """Whether every element over ``axis`` is nonzero (True for an empty reduction).

    >>> import strided as xp
    >>> xp.all(xp.asarray([[1, 0], [2, 3]]), axis=1).tolist()
    [False, True]
    """
    if dims or dim is not ... or keepdim is not ...:
        axis, keepdims = _bind.axis_keywords("all", dims, axis, keepdims, dim, keepdim)
    else:
        if axis is ...:
            axis = None
        if keepdims is ...:
            keepdims = False
    return _logical("all", x, axis, keepdims, out)


@api("any", c_case=_npred_c(_LOGICAL["any"], _dtypes.bool, _BOOL_NP, _dtypes.ALL_DTYPES, 0, -1))
def any(x, /, *dims, axis=..., keepdims=..., out=None, dim=..., keepdim=...) -> Array:
    """Whether some element over ``axis`` is nonzero (False for an empty reduction).

    >>> import strided as xp
    >>> xp.any(xp.asarray([[1, 0], [0, 0]]), axis=1).tolist()
    [True, False]
    """
    if dims or dim is not ... or keepdim is not ...:
        axis, keepdims = _bind.axis_keywords("any", dims, axis, keepdims, dim, keepdim)
    else:
        if axis is ...:
            axis = None
        if keepdims is ...:
            keepdims = False
    return _logical("any", x, axis, keepdims, out)


def _shape_differs(s1: tuple, s2: tuple, skip: int) -> builtins.bool:
    return builtins.any(a != b for i, (a, b) in enumerate(zip(s1, s2)) if i != skip)


def _diff_operand(v, x: Array, ax: int, name: str):
    """``prepend``/``append`` as a native array of ``x``'s rank (scalars span one step)."""
    if type(v) in (builtins.bool, builtins.int, builtins.float, builtins.complex):
        shape = x._shape[:ax] + (1,) + x._shape[ax + 1:]
        dt = _dtypes.scalar_result(x._dtype, v)
        return x._device.backend.xp.full(shape, v, dtype=dt._np), dt
    if type(v) is not Array:
        raise TypeError(f"diff(): {name} must be an array or a Python scalar; got {type(v).__name__}")
    if v.ndim != x.ndim or _shape_differs(v._shape, x._shape, ax):
        raise ValueError(f"diff(): {name} of shape {v._shape} must match x's shape {x._shape} "
                         f"except along axis {ax}")
    return v._get_native(), v._dtype


@api("diff")
def diff(x, /, *, axis=-1, n=1, prepend=None, append=None, out=None) -> Array:
    """The ``n``-th forward difference ``x[i+1] - x[i]`` along ``axis``.

    ``prepend``/``append`` are joined to ``x`` along ``axis`` first; their
    dtype promotes with ``x``'s. Booleans difference as ``!=`` (PyTorch). ``n=0``
    returns a copy of ``x``, ``prepend`` and ``append`` unused (NumPy's and PyTorch's).

    >>> import strided as xp
    >>> xp.diff(xp.asarray([1, 4, 9, 16]), n=2).tolist()
    [2, 2]
    """
    check_array(x, "diff")
    if x.ndim == 0:
        raise ValueError("diff(): x must have at least one dimension; got a 0-d array")
    ax = single_axis(x, axis, "diff")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"diff(): n must be an int; got {type(n).__name__}") from None
    if n < 0:
        raise _layout.ArgumentError(f"diff(): n must be non-negative; got {n}")
    check_devices("diff", x, prepend, append)
    xp = x._device.backend.xp
    a, dt = x._get_native(), x._dtype
    if n == 0:
        # (the 0-th difference is x itself, prepend and append unused, as NumPy's and PyTorch's)
        return _finish(wrap_new(a.copy(), dt, x._device), "diff", out)
    if prepend is not None or append is not None:
        parts = [(a, dt)]
        if prepend is not None:
            parts.insert(0, _diff_operand(prepend, x, ax, "prepend"))
        if append is not None:
            parts.append(_diff_operand(append, x, ax, "append"))
        for _, pdt in parts:
            dt = _dtypes.result_type_pair(dt, pdt)
        a = xp.concatenate([p.astype(dt._np, copy=False) for p, _ in parts], axis=ax)
    r = xp.diff(a, n=n, axis=ax)
    return _finish(wrap_new(r, dt, x._device), "diff", out)
