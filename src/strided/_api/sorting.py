"""Sorting: ``sort`` and ``argsort`` along one axis, ascending or descending, stable by default.

NaNs sort as if larger than every number: last when ascending, first when
descending. A descending stable sort keeps equal elements in their original
order (it is not the reverse of an ascending sort).
"""

from __future__ import annotations

import numpy as np

from .._core import device as _device, dtypes as _dtypes
from .._core.array import Array
from .creation import _finish, wrap_new
from .._core.dispatch import api
from .statistics import check_array, single_axis

__all__ = ["argsort", "sort"]

_CPU = _device.CPU
_new_array = Array._new


def _prepare(func: str, x, axis):
    check_array(x, func)
    if x._dtype.kind == "c":
        raise _dtypes.DTypeError(f"{func}() accepts only real-valued data types; got {x._dtype.name} "
                        f"(complex numbers have no order)")
    return single_axis(x, axis, func)


# NumPy's default sorts (introsort; x86-simd-sort's AVX-512/AVX2 quicksorts for 32- and 64-bit
# types) are 4-20x faster than its stable ones (timsort; radix for 8- and 16-bit types) from
# a few hundred elements: 1e4 float32, sort 29 vs 537 us, argsort 115 vs 587 us. A stable
# result differs from theirs only where elements compare equal, so the host's stable sort
# runs the fast sort and then puts those places in stable order:
# - sort: equal values are equal bits, except the zeros (-0.0 == +0.0) and the NaNs (which
#   both sorts put last): their blocks get the input's zeros and NaNs in input order (the
#   fast sort's own zeros are not even the input's: it can return -0.0 for +0.0);
# - argsort: each run of equal values (and the NaNs at the end) gets its indices in
#   ascending order (what a stable sort leaves there), one uint64 sort of (run, index).
# 8- and 16-bit types and bool keep NumPy's stable radix sort (faster than its quicksort).
_FAST_SORT = frozenset(np.dtype(c) for c in "efdiIlLqQ")
# Where the fast sort pays (the length of the sorted axis; medians, AVX-512 Xeon): stable
# and fast sorts of 1024 float32 15.8 and 9.6 us, argsorts of 2048 157 and 33 us (1024: 18
# and 24: the fix's passes cost more than the stable sort there).
_SORT_FROM, _ARGSORT_FROM = 1024, 2048


def _fast_sort(a):
    """NumPy's stable sort of host array ``a`` along its last axis, by its fast sort; None
    where that does not pay (a short axis, another dtype)."""
    if a.shape[-1] < _SORT_FROM or a.dtype not in _FAST_SORT:
        return None
    s = np.sort(a, axis=-1)
    if a.dtype.kind != "f":
        return s  # (equal integers are equal bits)
    z = s == 0
    if z.any():  # the zeros in the input's order (x86-simd-sort's min/max network can
        s[z] = a[a == 0]  # even turn +0.0 into -0.0: NumPy's np.sort gives -0.0 for both)
    if np.isnan(s[..., -1]).any():  # NaNs (last in every row that has one): in input order
        s[np.isnan(s)] = a[np.isnan(a)]
    return s


def _fast_argsort(a):
    """NumPy's stable argsort of host array ``a`` along its last axis, by its fast argsort;
    None where that does not pay."""
    if a.shape[-1] < _ARGSORT_FROM or a.dtype not in _FAST_SORT or a.size >= 1 << 32:
        return None
    idx = np.argsort(a, axis=-1)
    s = np.take_along_axis(a, idx, axis=-1)
    tie = s[..., 1:] == s[..., :-1]
    if a.dtype.kind == "f" and np.isnan(s[..., -1]).any():
        nan = np.isnan(s)
        tie |= nan[..., 1:] & nan[..., :-1]
    if not tie.any():
        return idx
    # The elements of runs of two or more, and their runs' numbers among them: a run starts
    # at each row's first element and after every False of ``tie``.
    member = np.zeros(a.shape, bool)
    member[..., 1:] = tie
    member[..., :-1] |= tie
    start = np.ones(a.shape, bool)
    np.logical_not(tie, out=start[..., 1:])
    sel = np.flatnonzero(member.reshape(-1))
    run = np.cumsum(start.reshape(-1)[sel], dtype=np.uint64)
    flat = idx.reshape(-1)
    key = np.sort((run << np.uint64(32)) | flat[sel].astype(np.uint64))
    flat[sel] = (key & np.uint64(0xFFFFFFFF)).astype(np.int64)
    return idx


def _native_sort(xp, fast, name, a, ax, stable):
    """``xp.<name>(a, axis=ax, kind=...)``, ascending. On the host by ``fast`` (the axis moved
    last) for a stable sort, and for an unstable sort's values too: NumPy's own fast sort
    can return -0.0 for +0.0, and the stable order is a valid unstable one."""
    if xp is np and (stable or fast is _fast_sort):
        if ax == a.ndim - 1:
            r = fast(a)
        elif (r := fast(np.moveaxis(a, ax, -1))) is not None:
            r = np.ascontiguousarray(np.moveaxis(r, -1, ax))
        if r is not None:
            return r
        if fast is _fast_sort and a.dtype.kind == "f":
            stable = True  # (a short axis: NumPy's fast sort's zeros are not the input's)
    r = getattr(xp, name)(a, axis=ax, kind="stable" if stable else None)
    # (CuPy's sort of an inner axis returns a rolled view, _routines_sorting.pyx: there the
    # result is made C-contiguous, as the host's of a C-contiguous input, and PyTorch's, are,
    # so that view() of it works on every device)
    return r if xp is np or r.flags.c_contiguous else xp.ascontiguousarray(r)


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
    if not descending:
        r = _native_sort(xp, _fast_argsort, "argsort", a, ax, stable)
    else:
        # Sorting the reversed array ascending and reversing the answer puts the
        # largest first and keeps equal elements in their original order.
        m = x._shape[ax]
        r = xp.flip(_native_sort(xp, _fast_argsort, "argsort", xp.flip(a, axis=ax), ax, stable), axis=ax)
        r = (m - 1) - r
    return _finish(wrap_new(r, _dtypes.int64, x._device), "argsort", out)


@api("sort")
def sort(x, /, *, axis=-1, descending=False, stable=True, out=None) -> Array:
    """A sorted copy of ``x`` along ``axis``.

    >>> import strided as xp
    >>> xp.sort(xp.asarray([2.0, float("nan"), 1.0])).tolist()
    [1.0, 2.0, nan]
    """
    if type(axis) is int and axis == -1 and out is None and not descending and type(x) is Array \
            and x._device is _CPU and x._shape and x._shape[-1] < _SORT_FROM and x._dtype.kind != "c":
        # Short path: an ascending sort of a short last axis on the host, what the general
        # path below ends in there (_native_sort: no fast sort below _SORT_FROM, floats
        # stable): np.sort's own two steps, a K-order copy sorted in place
        a = x._np if x._np is not None else x._get_native()
        r = a.copy(order="K")
        r.sort(axis=-1, kind="stable" if stable or a.dtype.kind == "f" else None)
        if r.dtype is not x._dtype._np:  # (wrap_new's test)
            r = r.astype(x._dtype._np)
        return _new_array(r, None, 0, r.shape, None, x._dtype, _CPU)
    ax = _prepare("sort", x, axis)
    xp = x._device.backend.xp
    a = x._get_native()
    if x.ndim == 0:
        return _finish(wrap_new(a.copy(), x._dtype, x._device), "sort", out)
    if not descending:
        r = _native_sort(xp, _fast_sort, "sort", a, ax, stable)
    else:
        # Same trick as argsort: it orders -0.0 and +0.0 (equal) stably as well.
        r = xp.ascontiguousarray(xp.flip(_native_sort(xp, _fast_sort, "sort", xp.flip(a, axis=ax), ax, stable),
                                         axis=ax))
    return _finish(wrap_new(r, x._dtype, x._device), "sort", out)
