"""Data types, their categories and type promotion.

A ``DType`` is a singleton (``strided.float32``) that NumPy-dtype code reads as
NumPy's own: it compares and hashes equal to the matching ``numpy.dtype`` in
both directions (and to NumPy's scalar type, as NumPy's dtypes do), carries
every attribute of it (``type``, ``kind``, ``itemsize``, ``char``, ``str``,
``name``, ...), and ``numpy.dtype(strided.float32)`` is ``numpy.float32``'s
dtype. It is not a ``numpy.dtype`` itself:

# Note: NumPy's dtypes compare equal to None (``np.dtype("float64") == None`` is
# True, since ``np.dtype(None)`` is float64; numpy/numpy#20870). The standard's
# dtypes must not, and the conformance suite's ``test_can_cast`` relies on it, so
# a DType equals None and other non-dtypes never.

Promotion between two arrays follows the Array API standard's table within a
kind and PyTorch across kinds (an integer array with a floating array gives the
floating dtype). Python scalars are "weak": they take the array's dtype when
their kind allows it.
"""

from __future__ import annotations

import builtins

import numpy as np

__all__ = [
    "DType", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "float16", "float32", "float64", "complex64",
    "complex128", "half", "float", "double", "short", "int", "long", "cfloat",
    "cdouble", "get_default_dtype", "set_default_dtype",
]


class DType:
    """An array data type. Instances are singletons: ``strided.float32``.

    Equal, with the same hash, to the matching NumPy dtype and scalar type:

    >>> import numpy as np, strided as xp
    >>> xp.float32 == np.dtype("float32"), np.dtype("float32") == xp.float32, xp.float32 == np.float32
    (True, True, True)
    >>> {np.dtype("float32"): "found"}[xp.float32], xp.float32 == None
    ('found', False)

    ``isinstance(xp.float32, np.dtype)`` is True, so code that checks for NumPy's
    dtypes accepts strided's; ``type(xp.float32)`` is ``DType``:

    >>> isinstance(xp.float32, np.dtype), type(xp.float32).__name__
    (True, 'DType')
    """

    __slots__ = ("name", "_np", "itemsize", "kind", "_index", "_hash", "type", "char", "str",
                 "num", "__weakref__")

    def __init__(self, name: str, np_dtype, kind: str, index: int):
        self.name = name
        self._np = nd = np.dtype(np_dtype)
        self.itemsize = nd.itemsize
        self.kind = kind  # one of "b", "i", "u", "f", "c", as NumPy's
        self._index = index
        self._hash = hash(nd)
        self.type = nd.type
        self.char = nd.char
        self.str = nd.str
        self.num = nd.num

    @property
    def __class__(self):
        # isinstance(xp.float32, np.dtype) is True: code written for NumPy's dtypes
        # (xarray's maybe_promote, pandas-style checks) accepts ours. type() still
        # answers DType, and NumPy's C functions take ours through .dtype below.
        return type(self._np)

    def __repr__(self) -> str:
        return f"strided.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self):
        return (_dtype_from_name, (self.name,))

    def __eq__(self, other) -> builtins.bool:
        if other is self:
            return True
        t = type(other)
        if t is DType or other is None:
            return False
        if t is str or t is bytes:
            return _same_np(self._np, other)
        if isinstance(other, np.dtype):
            return self._np == other
        if isinstance(other, type) and issubclass(other, (np.generic, builtins.bool, builtins.int,
                                                          builtins.float, builtins.complex)):
            return _same_np(self._np, other)
        return NotImplemented

    def __ne__(self, other) -> builtins.bool:
        if other is self:
            return False
        if type(other) is DType:  # (two of ours: __eq__'s answer, without its frame)
            return True
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> builtins.int:
        return self._hash

    # The rest of NumPy's dtype attributes, read from the NumPy dtype. (Not a
    # __getattr__: that would slow every attribute read on a dtype, hot path included.)
    byteorder = property(lambda self: self._np.byteorder)
    alignment = property(lambda self: self._np.alignment)
    descr = property(lambda self: self._np.descr)
    isnative = property(lambda self: self._np.isnative)
    isbuiltin = property(lambda self: self._np.isbuiltin)
    fields = property(lambda self: self._np.fields)
    names = property(lambda self: self._np.names)
    shape = property(lambda self: self._np.shape)
    ndim = property(lambda self: self._np.ndim)
    subdtype = property(lambda self: self._np.subdtype)
    base = property(lambda self: self._np.base)
    hasobject = property(lambda self: self._np.hasobject)
    flags = property(lambda self: self._np.flags)
    metadata = property(lambda self: self._np.metadata)

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype, so that NumPy takes ours: ``np.zeros(2, dtype=xp.float32)``."""
        # Note: np.dtype(obj) reads obj.dtype; scikit-learn's NumPy fallback paths
        # hand an input's dtype to NumPy (``np_array.astype(X.dtype)``).
        return self._np

    # Torch-style predicates.
    @property
    def is_floating_point(self) -> builtins.bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> builtins.bool:
        return self.kind == "c"

    @property
    def is_signed(self) -> builtins.bool:
        return self.kind in "ifc"

    @property
    def bits(self) -> builtins.int:
        return self.itemsize * 8


def _same_np(nd: np.dtype, other) -> builtins.bool:
    try:
        return nd == np.dtype(other)
    except (TypeError, ValueError):
        return False


_SPECS = [
    ("bool", np.bool_, "b"),
    ("int8", np.int8, "i"), ("int16", np.int16, "i"),
    ("int32", np.int32, "i"), ("int64", np.int64, "i"),
    ("uint8", np.uint8, "u"), ("uint16", np.uint16, "u"),
    ("uint32", np.uint32, "u"), ("uint64", np.uint64, "u"),
    ("float16", np.float16, "f"), ("float32", np.float32, "f"),
    ("float64", np.float64, "f"),
    ("complex64", np.complex64, "c"), ("complex128", np.complex128, "c"),
]

ALL_DTYPES: tuple[DType, ...] = tuple(
    DType(name, npd, kind, i) for i, (name, npd, kind) in enumerate(_SPECS)
)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
# Keyed by NumPy dtype (C-level hash): a kernel result's dtype -> ours.
_BY_NP = {d._np: d for d in ALL_DTYPES}

bool = _BY_NAME["bool"]
int8, int16, int32, int64 = (_BY_NAME[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_BY_NAME[n] for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (_BY_NAME[n] for n in ("float16", "float32", "float64"))
complex64, complex128 = _BY_NAME["complex64"], _BY_NAME["complex128"]

# PyTorch's aliases.
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128


def _dtype_from_name(name: str) -> DType:
    return _BY_NAME[name]


# Every spelling of a supported dtype that ``canon`` resolves with one dict lookup:
# NumPy's dtypes and scalar types, Python's types (NumPy's meaning: ``float`` is
# float64) and the dtypes' names. (Our own dtypes are answered before the lookup.)
_CANON: dict = {}
for _d in ALL_DTYPES:
    _CANON[_d._np] = _d
    _CANON[_d.type] = _d
    _CANON[_d.name] = _d
_CANON.update({builtins.bool: bool, builtins.int: int64, builtins.float: float64,
               builtins.complex: complex128})
del _d


def canon(dtype, func: str = "") -> DType:
    """The strided dtype for any dtype-like; TypeError naming it when there is none.

    Takes strided's dtypes, NumPy's dtypes and scalar types (``numpy.float32``),
    ``bool``/``int``/``float``/``complex`` (as NumPy reads them: ``float`` is
    float64) and any other spelling ``numpy.dtype`` takes of a supported dtype.

    >>> import numpy as np, strided as xp
    >>> xp.zeros(2, dtype=np.float32).dtype is xp.float32
    True
    """
    if type(dtype) is DType:
        return dtype
    try:
        return _CANON[dtype]
    except (KeyError, TypeError):  # TypeError: an unhashable argument
        pass
    where = f"{func}(): " if func else ""
    if dtype is None:
        raise TypeError(f"{where}None is not a data type")
    try:
        nd = np.dtype(dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{where}{dtype!r} is not a data type") from None
    if nd.byteorder not in "=|":
        nd = nd.newbyteorder("=")
    try:
        return _BY_NP[nd]
    except KeyError:
        raise TypeError(f"{where}strided has no data type for NumPy's {nd} (given {dtype!r})") from None


def from_numpy_dtype(np_dtype) -> DType:
    """The strided dtype for a NumPy dtype; TypeError when there is none."""
    try:
        return _BY_NP[np_dtype]
    except (KeyError, TypeError):
        return canon(np_dtype)


# --- categories (the standard's words) ---------------------------------------

_CATEGORY_KINDS = {
    "any": "biufc",
    "boolean": "b",
    "bool": "b",
    "integer": "iu",
    "integer or boolean": "biu",
    "real floating-point": "f",
    "complex floating-point": "c",
    "floating-point": "fc",
    "numeric": "iufc",
    "real-valued": "iuf",
    "real numeric": "iuf",
}

CATEGORIES: dict[str, frozenset] = {
    cat: frozenset(d for d in ALL_DTYPES if d.kind in kinds)
    for cat, kinds in _CATEGORY_KINDS.items()
}


class DTypeError(TypeError, NotImplementedError):
    """An operation refused an operand's dtype: the standard's TypeError, and the
    NotImplementedError (a RuntimeError) PyTorch raises for it (``"abs_cpu" not implemented
    for 'Bool'``), so ``except TypeError``, ``except NotImplementedError`` and ``except
    RuntimeError`` all catch it."""


class CastError(TypeError, RuntimeError):
    """A result that can't be cast to the dtype of ``out=`` or of an in-place target: a
    TypeError (NumPy's ``UFuncTypeError`` is one) and PyTorch's RuntimeError."""


def check_category(func: str, dtype: DType, category: str) -> None:
    if dtype not in CATEGORIES[category]:
        raise DTypeError(
            f"{func}() accepts only {category} data types; got {dtype.name}"
        )


# --- promotion ----------------------------------------------------------------

_default_float = float32


def get_default_dtype() -> DType:
    """The dtype of Python floats turned into arrays (float32 unless changed)."""
    return _default_float


def set_default_dtype(d) -> None:
    """Set the default floating dtype (float32 or float64), as PyTorch does.

    Takes any spelling ``canon`` takes (``strided.float64``, ``numpy.float64``, ...).
    """
    global _default_float
    try:
        c = canon(d)
    except TypeError:
        c = None
    if c is not float32 and c is not float64:
        raise TypeError(
            f"set_default_dtype() accepts float32 or float64; got {d!r}"
        )
    _default_float = c
    for fn in ON_DEFAULT_CHANGE:
        fn()


# Callbacks run after the default dtype changes (tables derived from it).
ON_DEFAULT_CHANGE: list = []


def default_complex() -> DType:
    return complex128 if _default_float is float64 else complex64


def _promote_pair(a: DType, b: DType) -> DType:
    if a is b:
        return a
    ka, kb = a.kind, b.kind
    # bool with anything: the other dtype.
    if ka == "b":
        return b
    if kb == "b":
        return a
    ia, ib = ka in "iu", kb in "iu"
    if ia and not ib:  # integer with floating: the floating dtype (PyTorch)
        return b
    if ib and not ia:
        return a
    return _BY_NP[np.promote_types(a._np, b._np)]


PROMOTION: dict[tuple[DType, DType], DType] = {
    (a, b): _promote_pair(a, b) for a in ALL_DTYPES for b in ALL_DTYPES
}


# The same table by the dtypes' indices (a DType key hashes through DType.__hash__, a Python
# frame: result_type and finfo answer SciPy's and scikit-learn's every call without it)
PROMOTION_BY_INDEX: list = [[PROMOTION[a, b] for b in ALL_DTYPES] for a in ALL_DTYPES]
assert all(d._index == i for i, d in enumerate(ALL_DTYPES))


def result_type_pair(a: DType, b: DType) -> DType:
    return PROMOTION[a, b]


_COMPLEX_OF = {float16: complex64, float32: complex64, float64: complex128}
_REAL_OF = {complex64: float32, complex128: float64}


def complex_of(d: DType) -> DType:
    return _COMPLEX_OF.get(d, d)


def real_of(d: DType) -> DType:
    return _REAL_OF.get(d, d)


def scalar_result(d: DType, value) -> DType:
    """Dtype of ``array(d) op value`` for a Python scalar ``value``."""
    t = type(value)
    if t is builtins.bool:
        return d
    k = d.kind
    if t is builtins.int:
        return int64 if k == "b" else d
    if t is builtins.float:
        return _default_float if k in "biu" else d
    if t is builtins.complex:
        if k in "biu":
            return default_complex()
        return _COMPLEX_OF.get(d, d)
    raise TypeError(f"unsupported scalar type {t.__name__}")


def scalar_dtype(value) -> DType:
    """Default dtype for a lone Python scalar."""
    t = type(value)
    if t is builtins.bool:
        return bool
    if t is builtins.int:
        return int64
    if t is builtins.float:
        return _default_float
    if t is builtins.complex:
        return default_complex()
    raise TypeError(f"unsupported scalar type {t.__name__}")


def can_cast(from_: DType, to: DType) -> builtins.bool:
    """The standard's casting rule: a promotion path exists from ``from_`` to ``to``."""
    return _CAN_CAST[from_, to]


def _can_cast(a: DType, b: DType) -> builtins.bool:
    if a is b:
        return True
    ka, kb = a.kind, b.kind
    if ka == "b":
        return True
    if kb == "b":
        return False
    order = "iufc"
    if ka in "iu" and kb in "fc":  # cross-kind, allowed by PyTorch-style promotion
        return True
    if order.index(ka if ka != "u" else "i") > order.index(kb if kb != "u" else "i"):
        return False
    return PROMOTION[a, b] is b


_CAN_CAST = {(a, b): _can_cast(a, b) for a in ALL_DTYPES for b in ALL_DTYPES}


def same_kind_castable(from_: DType, to: DType) -> builtins.bool:
    """PyTorch's rule for writing a result into an existing array (in-place, out=)."""
    return _KIND_ORDER[from_.kind] <= _KIND_ORDER[to.kind]


_KIND_ORDER = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
