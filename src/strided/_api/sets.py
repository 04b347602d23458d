"""Set functions: the ``unique_*`` family and ``isin``.

Uniqueness is value equality, as the standard says: every NaN is distinct
(count 1 each) and ``-0.0`` equals ``+0.0``. Unique values come out sorted.
Results are namedtuples with the standard's field names; index arrays are int64.
"""

from __future__ import annotations

import builtins
from collections import namedtuple

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import Array
from .creation import _finish, wrap_new
from .._core.dispatch import api, check_devices
from .statistics import check_array

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _unique(func: str, x, index: builtins.bool, inverse: builtins.bool, counts: builtins.bool):
    """[values, indices?, inverse_indices?, counts?] of ``x`` flattened."""
    check_array(x, func)
    xp = x._device.backend.xp
    dev, i64 = x._device, _dtypes.int64
    flat = x._get_native().reshape(-1)
    r = xp.unique(flat, return_index=index, return_inverse=inverse, return_counts=counts,
                  equal_nan=False)
    if not (index or inverse or counts):
        return [wrap_new(r, x._dtype, dev)]
    res = [wrap_new(r[0], x._dtype, dev)]
    rest = list(r[1:])
    if index:
        res.append(wrap_new(rest.pop(0), i64, dev))
    if inverse:
        # Note: since the 2023.12 standard, inverse_indices has the shape of x.
        res.append(wrap_new(rest.pop(0).reshape(x._shape), i64, dev))
    if counts:
        res.append(wrap_new(rest.pop(0), i64, dev))
    return res


@api("unique_all")
def unique_all(x, /) -> UniqueAllResult:
    """Unique values of ``x`` with first indices, inverse indices and counts.

    >>> import strided as xp
    >>> r = xp.unique_all(xp.asarray([3, 1, 3]))
    >>> r.values.tolist(), r.indices.tolist(), r.inverse_indices.tolist(), r.counts.tolist()
    ([1, 3], [1, 0], [1, 0, 1], [1, 2])
    """
    return UniqueAllResult(*_unique("unique_all", x, True, True, True))


@api("unique_counts")
def unique_counts(x, /) -> UniqueCountsResult:
    """Unique values of ``x`` and how often each occurs.

    >>> import strided as xp
    >>> r = xp.unique_counts(xp.asarray([3, 1, 3]))
    >>> r.values.tolist(), r.counts.tolist()
    ([1, 3], [1, 2])
    """
    return UniqueCountsResult(*_unique("unique_counts", x, False, False, True))


@api("unique_inverse")
def unique_inverse(x, /) -> UniqueInverseResult:
    """Unique values of ``x`` and the indices into them that rebuild ``x``.

    >>> import strided as xp
    >>> r = xp.unique_inverse(xp.asarray([[3, 1], [1, 3]]))
    >>> r.values.tolist(), r.inverse_indices.tolist()
    ([1, 3], [[1, 0], [0, 1]])
    """
    return UniqueInverseResult(*_unique("unique_inverse", x, False, True, False))


@api("unique_values")
def unique_values(x, /, *, out=None) -> Array:
    """The unique values of ``x`` (flattened), sorted; each NaN is its own value.

    >>> import strided as xp
    >>> xp.unique_values(xp.asarray([2.0, float("nan"), 2.0, float("nan")])).tolist()
    [2.0, nan, nan]
    """
    return _finish(_unique("unique_values", x, False, False, False)[0], "unique_values", out)


def _fits(v, dtype) -> builtins.bool:
    if dtype.kind in "iu":
        info = np.iinfo(dtype._np)
        return builtins.bool(info.min <= v <= info.max)
    return True


@api("isin")
def isin(x1, x2, /, *, invert=False, assume_unique=False, out=None) -> Array:
    """For each element of ``x1``, whether it equals some element of ``x2`` (bool).

    Either argument may be a Python int (a 0-d ``x1`` gives a 0-d result).
    ``assume_unique`` (NumPy's and PyTorch's keyword) promises that both inputs
    hold unique values, which can be faster.

    >>> import strided as xp
    >>> xp.isin(xp.asarray([1, 2, 3]), xp.asarray([3, 1]), invert=True).tolist()
    [False, True, False]
    """
    t1, t2 = type(x1) is Array, type(x2) is Array
    if not (t1 or t2):
        raise TypeError("isin(): at least one of x1 and x2 must be an array; got "
                        f"{type(x1).__name__} and {type(x2).__name__}")
    for v, is_arr, name in ((x1, t1, "x1"), (x2, t2, "x2")):
        if not is_arr and type(v) not in (builtins.bool, builtins.int, builtins.float):
            raise TypeError(f"isin(): {name} must be an array or a Python scalar; got {type(v).__name__}")
        if is_arr and v._dtype.kind == "c":
            raise TypeError(f"isin() accepts only real-valued data types; got {v._dtype.name}")
    dev = check_devices("isin", x1, x2)
    xp = dev.backend.xp
    invert = builtins.bool(invert)
    shape = x1._shape if t1 else ()
    natives = []
    for v, other in ((x1, x2), (x2, x1)):
        if type(v) is Array:
            natives.append(v._get_native())
            continue
        # A Python scalar takes the array's dtype where its kind allows (weak scalar).
        dt = _dtypes.scalar_result(other._dtype, v)
        if dt.kind in "iu" and not _fits(v, dt):
            # A Python int outside the array's dtype equals none of its elements.
            return _finish(wrap_new(xp.full(shape, invert), _dtypes.bool, dev), "isin", out)
        natives.append(xp.asarray(v, dtype=dt._np))
    a1, a2 = natives
    r = xp.isin(a1, a2, assume_unique=builtins.bool(assume_unique), invert=invert)
    return _finish(wrap_new(xp.asarray(r), _dtypes.bool, dev), "isin", out)
