"""Sorting: ``sort`` and ``argsort`` along one axis, ascending or descending, stable by default.

NaNs sort as if larger than every number: last when ascending, first when
descending. A descending stable sort keeps equal elements in their original
order (it is not the reverse of an ascending sort).
"""

from __future__ import annotations

from .._core import dtypes as _dtypes
from .._core.array import Array
from .creation import _finish, wrap_new
from .._core.dispatch import api
from .statistics import check_array, single_axis

__all__ = ["argsort", "sort"]


def _prepare(func: str, x, axis):
    check_array(x, func)
    if x._dtype.kind == "c":
        raise TypeError(f"{func}() accepts only real-valued data types; got {x._dtype.name} "
                        f"(complex numbers have no order)")
    return single_axis(x, axis, func)


@api("argsort")
def argsort(x, /, *, axis=-1, descending=False, stable=True, out=None) -> Array:
    """Indices (int64) that sort ``x`` along ``axis``.

    >>> import strided as xp
    >>> xp.argsort(xp.asarray([3, 1, 3, 2]), descending=True).tolist()
    [0, 2, 3, 1]
    """
    ax = _prepare("argsort", x, axis)
    xp = x._device.backend.xp
    a = x._get_native()
    if x.ndim == 0:
        return _finish(wrap_new(xp.zeros((), dtype=_dtypes.int64._np), _dtypes.int64, x._device),
                       "argsort", out)
    kind = "stable" if stable else None
    if not descending:
        r = xp.argsort(a, axis=ax, kind=kind)
    else:
        # Sorting the reversed array ascending and reversing the answer puts the
        # largest first and keeps equal elements in their original order.
        m = x._shape[ax]
        r = xp.flip(xp.argsort(xp.flip(a, axis=ax), axis=ax, kind=kind), axis=ax)
        r = (m - 1) - r
    return _finish(wrap_new(r, _dtypes.int64, x._device), "argsort", out)


@api("sort")
def sort(x, /, *, axis=-1, descending=False, stable=True, out=None) -> Array:
    """A sorted copy of ``x`` along ``axis``.

    >>> import strided as xp
    >>> xp.sort(xp.asarray([2.0, float("nan"), 1.0])).tolist()
    [1.0, 2.0, nan]
    """
    ax = _prepare("sort", x, axis)
    xp = x._device.backend.xp
    a = x._get_native()
    if x.ndim == 0:
        return _finish(wrap_new(a.copy(), x._dtype, x._device), "sort", out)
    kind = "stable" if stable else None
    if not descending:
        r = xp.sort(a, axis=ax, kind=kind)
    else:
        # Same trick as argsort: it orders -0.0 and +0.0 (equal) stably as well.
        r = xp.ascontiguousarray(xp.flip(xp.sort(xp.flip(a, axis=ax), axis=ax, kind=kind), axis=ax))
    return _finish(wrap_new(r, x._dtype, x._device), "sort", out)
