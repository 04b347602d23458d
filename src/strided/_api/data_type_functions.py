"""Data type functions: ``can_cast``, ``finfo``, ``iinfo``, ``isdtype``, ``result_type``.

``astype`` lives with the other copies in ``_views``. Promotion is the one
table in ``_dtypes`` (the standard's within a kind, PyTorch's across kinds);
Python scalars are weak: they take an array's dtype when their kind allows.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import Array
from .creation import _as_dtype
from .._core.dispatch import check_devices
from .._core.dtypes import DType

__all__ = ["can_cast", "finfo", "iinfo", "isdtype", "result_type"]


def _dtype_of(func: str, obj, what: str = "type") -> DType:
    """A DType from a DType, an array, or anything NumPy reads as a dtype."""
    if type(obj) is Array:
        return obj._dtype
    if type(obj) is DType:
        return obj
    if obj is None:
        raise TypeError(f"{func}(): {what} must be a strided dtype or array; got None")
    try:
        return _as_dtype(obj, func)
    except TypeError:
        raise TypeError(f"{func}(): {what} must be a strided dtype or array; got {obj!r}") from None


def can_cast(from_, to, /) -> builtins.bool:
    """Whether the promotion rules allow casting ``from_`` (a dtype or array) to ``to``.

    >>> import strided as xp
    >>> xp.can_cast(xp.int8, xp.int16), xp.can_cast(xp.float64, xp.float32)
    (True, False)
    """
    return _dtypes.can_cast(_dtype_of("can_cast", from_, "from_"), _dtype_of("can_cast", to, "to"))


@dataclass(frozen=True)
class finfo_object:
    """Machine limits of a real floating-point dtype (Python floats)."""

    bits: builtins.int
    eps: builtins.float
    max: builtins.float
    min: builtins.float
    smallest_normal: builtins.float
    dtype: DType

    @property
    def tiny(self) -> builtins.float:
        """PyTorch's and NumPy's name for ``smallest_normal``."""
        return self.smallest_normal

    @property
    def resolution(self) -> builtins.float:
        """Approximate decimal resolution, ``10 ** -precision`` (PyTorch, NumPy)."""
        return builtins.float(np.finfo(self.dtype._np).resolution)


@dataclass(frozen=True)
class iinfo_object:
    """Machine limits of an integer dtype (Python ints)."""

    bits: builtins.int
    max: builtins.int
    min: builtins.int
    dtype: DType


def finfo(type=None, /) -> finfo_object:
    """Limits of a floating-point dtype; for complex, those of its real component.

    ``finfo()`` with no argument describes the default floating dtype (PyTorch).

    >>> import strided as xp
    >>> xp.finfo(xp.complex64).dtype, xp.finfo(xp.float32).bits
    (strided.float32, 32)
    """
    t = builtins.type(type)
    # (a DType or an array of ours: found by the dtype's index, without _dtype_of's frame
    # and DType.__hash__'s; SciPy and scikit-learn ask several times a call)
    d = type if t is DType else type._dtype if t is Array else \
        _dtypes.get_default_dtype() if type is None else _dtype_of("finfo", type)
    r = _FINFO.get(d._index)
    if r is not None:
        return r
    if d.kind not in "fc":
        raise TypeError(f"finfo() accepts only floating-point data types; got {d.name} (use iinfo)")
    f = np.finfo(_dtypes.real_of(d)._np)
    r = _FINFO[d._index] = finfo_object(builtins.int(f.bits), builtins.float(f.eps), builtins.float(f.max),
                                 builtins.float(f.min), builtins.float(f.smallest_normal),
                                 _dtypes.real_of(d))
    return r


# One (frozen, immutable) answer per dtype, as NumPy caches its finfo: SciPy's and
# scikit-learn's array-API code asks finfo on every call (a dataclass built per call: ~3 us).
# (finfo's keyed by the dtype's index)
_FINFO: dict = {}
_IINFO: dict = {}


def iinfo(type, /) -> iinfo_object:
    """Limits of an integer dtype.

    >>> import strided as xp
    >>> xp.iinfo(xp.int8).min, xp.iinfo(xp.uint16).max
    (-128, 65535)
    """
    d = _dtype_of("iinfo", type)
    r = _IINFO.get(d)
    if r is not None:
        return r
    if d.kind not in "iu":
        raise TypeError(f"iinfo() accepts only integer data types; got {d.name} (use finfo)")
    i = np.iinfo(d._np)
    r = _IINFO[d] = iinfo_object(builtins.int(i.bits), builtins.int(i.max), builtins.int(i.min), d)
    return r


# The standard's kinds. Note: float16 counts as "real floating" (an extension
# the standard allows).
_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc",
}


def isdtype(dtype, kind) -> builtins.bool:
    """Whether ``dtype`` is ``kind``: a dtype, a kind name or a tuple of those.

    Kind names: 'bool', 'signed integer', 'unsigned integer', 'integral',
    'real floating', 'complex floating', 'numeric'.

    >>> import strided as xp
    >>> xp.isdtype(xp.int8, ("real floating", "integral"))
    True
    """
    if type(dtype) is not DType:
        try:
            if isinstance(dtype, str):  # a kind name in the dtype's place is a mistake
                raise TypeError
            dtype = _dtypes.canon(dtype)
        except TypeError:
            raise TypeError(f"isdtype(): dtype must be a dtype (strided's or NumPy's); "
                            f"got {dtype!r}") from None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            try:
                if dtype.kind in _KINDS[k]:
                    return True
            except KeyError:
                raise ValueError(f"isdtype(): unknown kind {k!r}; expected a dtype or one of "
                                 f"{list(_KINDS)}") from None
        else:
            try:
                if _dtypes.canon(k) is dtype:
                    return True
            except TypeError:
                raise TypeError(f"isdtype(): kind must be a dtype, a kind name or a tuple of them; "
                                f"got {k!r}") from None
    return False


_PY_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)
_PROMOTION_BY_INDEX = _dtypes.PROMOTION_BY_INDEX


def result_type(*arrays_and_dtypes) -> DType:
    """The dtype that promotion gives for arrays, dtypes and Python scalars together.

    Scalars are weak: ``result_type(int8, 1)`` is int8; a float scalar with
    integer dtypes gives the default floating dtype (PyTorch). At least one
    argument must be an array or a dtype.

    >>> import strided as xp
    >>> xp.result_type(xp.int8, xp.int16), xp.result_type(xp.float16, 1.0)
    (strided.int16, strided.float16)
    """
    if len(arrays_and_dtypes) == 2:
        # Short paths: an array and a Python scalar (SciPy and scikit-learn ask this of
        # every operand), what the loop below gives for them: no devices to compare; two
        # arrays on one device (SciPy's xp_promote), the table by index: no DType hashes.
        x, s = arrays_and_dtypes
        if type(x) is Array:
            t = type(s)
            if t in _PY_SCALARS:
                return _dtypes.scalar_result(x._dtype, s)
            if t is Array and s._device is x._device:
                return _PROMOTION_BY_INDEX[x._dtype._index][s._dtype._index]
    elif len(arrays_and_dtypes) == 1 and type(arrays_and_dtypes[0]) is Array:
        return arrays_and_dtypes[0]._dtype  # (one array: its dtype, one device)
    check_devices("result_type", *arrays_and_dtypes)
    res = None
    scalars = []
    for a in arrays_and_dtypes:
        if type(a) in _PY_SCALARS:
            scalars.append(a)
            continue
        d = _dtype_of("result_type", a, "each argument")
        res = d if res is None else _dtypes.PROMOTION[res, d]
    if res is None:
        raise ValueError("result_type(): at least one argument must be an array or a dtype; got "
                         f"{len(scalars)} Python scalar(s)")
    for s in scalars:
        res = _dtypes.scalar_result(res, s)
    return res
