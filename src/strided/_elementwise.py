"""Elementwise functions: one registry row per function of the standard.

Each ``Elementwise`` row declares the standard's name, the number of array
inputs, the dtype category, the result-dtype rule, the backend kernel and
its special-case corrections. ``_build`` turns a row into the namespace
function (with ``out=``), and ``ops_for_array`` gives the operators,
reflected operators and in-place operators. Extensions attach derivatives
and name rules to the same rows (keyed by ``row.name``).
"""

from __future__ import annotations

import builtins
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from . import _dtypes
from ._array import HOOK, Array, _native
from ._dtypes import ALL_DTYPES, CATEGORIES, PROMOTION
from ._dispatch import check_out, out_native
from ._layout import broadcast_shapes as _broadcast_shapes

# NumPy reports floating-point exceptions (overflow, invalid, divide by zero)
# as RuntimeWarnings attributed to the calling frame, which is ours. The
# standard specifies IEEE results, not warnings; PyTorch does not warn either.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"strided\.")

_KIND_ORDER = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
_PYSCALAR_KIND = {builtins.bool: 0, builtins.int: 1, builtins.float: 2, builtins.complex: 3}


@dataclass(eq=False)
class Elementwise:
    """One elementwise function of the standard."""

    name: str
    nargs: int
    category: str  # the standard's words, e.g. "real floating-point"
    result: str = "promote"  # promote | bool | real | float | same
    kernel: object = None  # backend function name, or fn(xp, *natives) -> native
    fix: object = None  # fn(xp, result, *natives) -> native: special-case corrections
    dunder: str | None = None  # "add" gives __add__, __radd__ and __iadd__
    reflect: bool = True
    method_float: bool = False  # methods promote integer inputs to the default float (PyTorch)
    aliases: tuple = ()  # PyTorch names for methods (and in-place methods)
    doc: str = ""
    # filled by _build_tables
    types: dict = field(default_factory=dict, repr=False)
    stypes: dict = field(default_factory=dict, repr=False)
    kcache: dict = field(default_factory=dict, repr=False)
    func: object = None
    direct: bool = False  # a plain backend ufunc: out= can be passed straight through

    def resolve(self, device):
        k = self.kcache.get(device)
        if k is None:
            backend = device.backend
            kern = self.kernel if self.kernel is not None else self.name
            if isinstance(kern, str):
                base = backend.kernel(kern)
            else:
                xp = backend.xp
                base = (lambda *a, _f=kern, _xp=xp, **kw: _f(_xp, *a, **kw))
            if self.fix is not None:
                fix, xp = self.fix, backend.xp

                def k(*a, _b=base, _fix=fix, _xp=xp):
                    return _fix(_xp, _b(*a), *a)
            else:
                k = base
            self.kcache[device] = k
        return k


def _result_dtype(row: Elementwise, cd):
    rule = row.result
    if rule == "bool":
        return _dtypes.bool
    if rule == "real":
        return _dtypes.real_of(cd)
    return cd


def _compute_dtype(row: Elementwise, d):
    if row.result == "float" and d.kind in "biu":
        return _dtypes.get_default_dtype()
    return d


def _build_tables(row: Elementwise) -> None:
    allowed = CATEGORIES[row.category]
    row.types.clear()
    row.stypes.clear()
    if row.nargs == 1:
        for d in allowed:
            cd = _compute_dtype(row, d)
            row.types[d] = (_result_dtype(row, cd), None if cd is d else cd._np)
        return
    for da in allowed:
        for db in allowed:
            cd = _compute_dtype(row, PROMOTION[da, db])
            nd = np.result_type(da._np, db._np)
            cast = None if nd == cd._np else cd._np
            row.types[da, db] = (_result_dtype(row, cd), cast)
        for t in (builtins.bool, builtins.int, builtins.float, builtins.complex):
            try:
                sd = _dtypes.scalar_result(da, t(0))
            except TypeError:
                continue
            if sd not in allowed and t is not builtins.bool:
                continue
            if t is builtins.bool and da.kind != "b" and _dtypes.bool not in allowed:
                # a Python bool with a numeric array acts like an int of that dtype
                pass
            cd = _compute_dtype(row, sd)
            cast = None if cd is da else cd._np
            row.stypes[da, t] = (_result_dtype(row, cd), cast)
    if _dtypes.bool not in allowed:
        # Note: like PyTorch, a bool array mixes with a numeric one (bool * int8 -> int8).
        for d in allowed:
            cd = _compute_dtype(row, d)
            ent = (_result_dtype(row, cd), None if cd is d else cd._np)
            row.types[_dtypes.bool, d] = row.types[d, _dtypes.bool] = ent


def _type_error(row, *dts):
    names = ", ".join(d.name if isinstance(d, _dtypes.DType) else type(d).__name__ for d in dts)
    return TypeError(f"{row.name}() accepts only {row.category} data types; got {names}")


def _wrap_result(r, res, dev):
    if not r.shape and type(r) is not dev.backend.ndarray:
        r = dev.backend.xp.asarray(r)
    if r.dtype is not res._np:
        r = r.astype(res._np)
    return Array._new(r, None, 0, r.shape, None, res, dev)


def _nat(x: Array):
    r = x._np
    if r is None:
        r = x._np = _native(x._st, x._off, x._shape, x._str)
    return r


def _finish(row, r, res, dev, out):
    if out is None:
        return _wrap_result(r, res, dev)
    if not r.shape and type(r) is not dev.backend.ndarray:
        r = dev.backend.xp.asarray(r)
    check_out(row.name, out, r.shape, res, dev)
    out_native(out)[...] = r
    return out


def _shape_of(v):
    return v.shape if hasattr(v, "shape") else ()


def _write_direct(row, k, args, res, dev, out):
    """``out=`` for a plain ufunc kernel: the kernel writes straight into ``out``'s
    memory (no temporary); NumPy handles overlap between ``out`` and the inputs."""
    shape = _broadcast_shapes(*(_shape_of(a) for a in args))
    check_out(row.name, out, shape, res, dev)
    k(*args, out=out_native(out))
    return out


def _make_binary(row: Elementwise):
    types, stypes, name = row.types, row.stypes, row.name
    kcache = row.kcache
    resolve = row.resolve
    SCALAR = _PYSCALAR_KIND

    def impl(x1, x2, out):
        t1, t2 = type(x1), type(x2)
        if t1 is Array:
            if t2 is Array:
                dev = x1._device
                if dev is not x2._device:
                    raise ValueError(f"{name}(): arrays are on different devices, {dev} and {x2._device}")
                ent = types.get((x1._dtype, x2._dtype))
                if ent is None:
                    raise _type_error(row, x1._dtype, x2._dtype)
                res, cast = ent
                a = x1._np
                if a is None:
                    a = _nat(x1)
                b = x2._np
                if b is None:
                    b = _nat(x2)
                if cast is not None:
                    if a.dtype is not cast:
                        a = a.astype(cast)
                    if b.dtype is not cast:
                        b = b.astype(cast)
            elif t2 in SCALAR:
                dev = x1._device
                ent = stypes.get((x1._dtype, t2))
                if ent is None:
                    raise _type_error(row, x1._dtype, x2)
                res, cast = ent
                a = x1._np
                if a is None:
                    a = _nat(x1)
                if cast is not None:
                    a = a.astype(cast)
                b = x2
            else:
                raise TypeError(f"{name}(): unsupported operand type {t2.__name__}; expected an array or a Python scalar")
        elif t2 is Array and t1 in SCALAR:
            dev = x2._device
            ent = stypes.get((x2._dtype, t1))
            if ent is None:
                raise _type_error(row, x1, x2._dtype)
            res, cast = ent
            b = x2._np
            if b is None:
                b = _nat(x2)
            if cast is not None:
                b = b.astype(cast)
            a = x1
        elif t1 in SCALAR and t2 in SCALAR:
            raise TypeError(f"{name}(): at least one argument must be an array; got two Python scalars")
        else:
            bad = t1 if t1 is not Array and t1 not in SCALAR else t2
            raise TypeError(f"{name}(): unsupported operand type {bad.__name__}; expected an array or a Python scalar")
        k = kcache.get(dev)
        if k is None:
            k = resolve(dev)
        if out is not None and row.direct:
            return _write_direct(row, k, (a, b), res, dev, out)
        r = k(a, b)
        if out is None:
            if r.dtype is res._np and r.shape:
                return Array._new(r, None, 0, r.shape, None, res, dev)
            return _wrap_result(r, res, dev)
        return _finish(row, r, res, dev, out)

    def func(x1, x2, /, *, out=None):
        if (type(x1) is Array and x1._ext is not None) or (type(x2) is Array and x2._ext is not None) \
                or (out is not None and type(out) is Array and out._ext is not None):
            hook = HOOK[0]
            if hook is not None:
                return hook(name, impl, (x1, x2, out), {})
        return impl(x1, x2, out)

    func._impl = impl
    return func


def _make_unary(row: Elementwise):
    types, name = row.types, row.name
    kcache, resolve = row.kcache, row.resolve

    def impl(x, out):
        if type(x) is not Array:
            raise TypeError(f"{name}(): expected an array; got {type(x).__name__}")
        ent = types.get(x._dtype)
        if ent is None:
            raise _type_error(row, x._dtype)
        res, cast = ent
        dev = x._device
        a = x._np
        if a is None:
            a = _nat(x)
        if cast is not None:
            a = a.astype(cast)
        k = kcache.get(dev)
        if k is None:
            k = resolve(dev)
        if out is not None and row.direct:
            return _write_direct(row, k, (a,), res, dev, out)
        r = k(a)
        if out is None:
            if r.dtype is res._np and r.shape:
                return Array._new(r, None, 0, r.shape, None, res, dev)
            return _wrap_result(r, res, dev)
        return _finish(row, r, res, dev, out)

    def func(x, /, *, out=None):
        if (type(x) is Array and x._ext is not None) or (out is not None and type(out) is Array and out._ext is not None):
            hook = HOOK[0]
            if hook is not None:
                return hook(name, impl, (x, out), {})
        return impl(x, out)

    func._impl = impl
    return func


_DOC = """{summary}

Elementwise ``{name}`` of the Array API standard
(https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.{name}.html).
Inputs: {category} data types. ``out=`` (keyword-only) writes the result into
an existing array of the result's shape and a dtype it can be cast to.
"""


def build(row: Elementwise):
    _build_tables(row)
    row.direct = row.fix is None and (row.kernel is None or isinstance(row.kernel, str))
    f = _make_binary(row) if row.nargs == 2 else _make_unary(row)
    f.__name__ = f.__qualname__ = row.name
    f.__doc__ = _DOC.format(summary=row.doc or f"Elementwise {row.name}.", name=row.name,
                            category=row.category)
    f._row = row
    row.func = f
    return f


# --- special-case corrections (where NumPy departs from the standard) ---------

def _fix_floor_divide(xp, r, a, b):
    # NumPy gives nan for finite // inf; the standard (and Python) say
    # x // +inf is 0 for x >= 0, -1 for x < 0 (and mirrored for -inf).
    if r.dtype.kind != "f":
        return r
    a = xp.asarray(a)
    b = xp.asarray(b)
    if not (xp.isinf(b).any()):
        return r
    fa = xp.isfinite(a)
    binf = xp.isinf(b)
    same = xp.signbit(a) == xp.signbit(b)
    nonzero = a != 0
    fixv = xp.where(same | ~nonzero, xp.where(same, 0.0, -0.0), -1.0).astype(r.dtype)
    # a == 0 and opposite sign gives -0.0
    mask = xp.broadcast_to(fa & binf, r.shape)
    if mask.any():
        r = r.copy() if not r.flags.writeable else r
        r[mask] = xp.broadcast_to(fixv, r.shape)[mask]
    return r


def _rounding(npname):
    def k(xp, a):
        if a.dtype.kind in "iub":
            return a.copy()
        return getattr(xp, npname)(a)
    return k


def _round(xp, a):
    if a.dtype.kind in "iub":
        return a.copy()
    if a.dtype.kind == "c":
        return _round_complex(xp, a)
    return xp.round(a)


def _round_complex(xp, a):
    out = xp.empty_like(a)
    out.real = xp.round(a.real)
    out.imag = xp.round(a.imag)
    return out


def _sign(xp, a):
    if a.dtype.kind == "c":
        mag = xp.abs(a)
        with np.errstate(all="ignore"):
            out = a / mag
        out[mag == 0] = 0
        nan = xp.isnan(a)
        if nan.any():
            out[nan] = complex(math.nan, math.nan)
        return out
    if a.dtype.kind == "b":
        return a.copy()
    return xp.sign(a)


def _expm1(xp, a):
    if a.dtype.kind != "c":
        return xp.expm1(a)
    # NumPy's complex expm1 loses special values; use exp(z) - 1 with care.
    with np.errstate(all="ignore"):
        return xp.exp(a) - 1


def _conj(xp, a):
    return xp.conj(a) if a.dtype.kind == "c" else a.copy()


def _real(xp, a):
    return a.real.copy()


def _imag(xp, a):
    return a.imag.copy()


def _positive(xp, a):
    return a.copy()


def _reciprocal(xp, a):
    return xp.divide(1, a)


def _shift(npname):
    def k(xp, a, b):
        # Shifting by >= the bit width is undefined in C; the standard says
        # the result equals shifting by that many bits (0, or -1 for
        # negative x >> n).
        b_arr = xp.asarray(b)
        a_arr = xp.asarray(a)
        dt = xp.result_type(a_arr, b_arr)
        bits = dt.itemsize * 8
        if (b_arr < 0).any():
            raise ValueError(f"{npname}(): negative shift count")
        big = b_arr >= bits
        if not big.any():
            return getattr(xp, npname)(a, b)
        safe = xp.where(big, 0, b_arr).astype(b_arr.dtype)
        r = getattr(xp, npname)(a_arr, safe)
        if npname == "left_shift":
            fill = xp.zeros_like(r)
        else:
            fill = xp.where(a_arr < 0, -1, 0).astype(r.dtype) if dt.kind == "i" else xp.zeros_like(r)
        return xp.where(big, fill, r).astype(dt)
    return k


def _floor_divide(xp, a, b):
    if xp.asarray(a).dtype.kind in "iu" and xp.asarray(b).dtype.kind in "iu":
        return xp.floor_divide(a, b)
    return _fix_floor_divide(xp, xp.floor_divide(a, b), a, b)


R = Elementwise
ROWS: list[Elementwise] = [
    R("abs", 1, "numeric", "real", dunder="abs", aliases=("absolute",), doc="Absolute value."),
    R("acos", 1, "floating-point", method_float=True, aliases=("arccos",)),
    R("acosh", 1, "floating-point", method_float=True, aliases=("arccosh",)),
    R("add", 2, "numeric", dunder="add"),
    R("asin", 1, "floating-point", method_float=True, aliases=("arcsin",)),
    R("asinh", 1, "floating-point", method_float=True, aliases=("arcsinh",)),
    R("atan", 1, "floating-point", method_float=True, aliases=("arctan",)),
    R("atan2", 2, "real floating-point", method_float=True, aliases=("arctan2",)),
    R("atanh", 1, "floating-point", method_float=True, aliases=("arctanh",)),
    R("bitwise_and", 2, "integer or boolean", dunder="and"),
    R("bitwise_left_shift", 2, "integer", kernel=_shift("left_shift"), dunder="lshift"),
    R("bitwise_invert", 1, "integer or boolean", dunder="invert", aliases=("bitwise_not",)),
    R("bitwise_or", 2, "integer or boolean", dunder="or"),
    R("bitwise_right_shift", 2, "integer", kernel=_shift("right_shift"), dunder="rshift"),
    R("bitwise_xor", 2, "integer or boolean", dunder="xor"),
    R("ceil", 1, "real-valued", kernel=_rounding("ceil")),
    R("conj", 1, "numeric", kernel=_conj, aliases=("conj_physical",)),
    R("copysign", 2, "real floating-point", method_float=True),
    R("cos", 1, "floating-point", method_float=True),
    R("cosh", 1, "floating-point", method_float=True),
    R("divide", 2, "numeric", "float", dunder="truediv", aliases=("div", "true_divide")),
    R("equal", 2, "any", "bool", dunder="eq", aliases=("eq",)),
    R("exp", 1, "floating-point", method_float=True),
    R("expm1", 1, "floating-point", kernel=_expm1, method_float=True),
    R("floor", 1, "real-valued", kernel=_rounding("floor")),
    R("floor_divide", 2, "real-valued", kernel=_floor_divide, dunder="floordiv"),
    R("greater", 2, "real-valued", "bool", dunder="gt", aliases=("gt",)),
    R("greater_equal", 2, "real-valued", "bool", dunder="ge", aliases=("ge",)),
    R("hypot", 2, "real floating-point", method_float=True),
    R("imag", 1, "complex floating-point", "real", kernel=_imag),
    R("isfinite", 1, "numeric", "bool"),
    R("isinf", 1, "numeric", "bool"),
    R("isnan", 1, "numeric", "bool"),
    R("less", 2, "real-valued", "bool", dunder="lt", aliases=("lt",)),
    R("less_equal", 2, "real-valued", "bool", dunder="le", aliases=("le",)),
    R("log", 1, "floating-point", method_float=True),
    R("log1p", 1, "floating-point", method_float=True),
    R("log2", 1, "floating-point", method_float=True),
    R("log10", 1, "floating-point", method_float=True),
    R("logaddexp", 2, "real floating-point", method_float=True),
    R("logical_and", 2, "boolean", "bool"),
    R("logical_not", 1, "boolean", "bool"),
    R("logical_or", 2, "boolean", "bool"),
    R("logical_xor", 2, "boolean", "bool"),
    R("maximum", 2, "real-valued"),
    R("minimum", 2, "real-valued"),
    R("multiply", 2, "numeric", dunder="mul", aliases=("mul",)),
    R("negative", 1, "numeric", dunder="neg", aliases=("neg",)),
    R("nextafter", 2, "real floating-point"),
    R("not_equal", 2, "any", "bool", dunder="ne", aliases=("ne",)),
    R("positive", 1, "numeric", kernel=_positive, dunder="pos"),
    R("pow", 2, "numeric", dunder="pow"),
    R("real", 1, "numeric", "real", kernel=_real),
    R("reciprocal", 1, "floating-point", kernel=_reciprocal, method_float=True),
    R("remainder", 2, "real-valued", dunder="mod"),
    R("round", 1, "numeric", kernel=_round),
    R("sign", 1, "numeric", kernel=_sign),
    R("signbit", 1, "real floating-point", "bool"),
    R("sin", 1, "floating-point", method_float=True),
    R("sinh", 1, "floating-point", method_float=True),
    R("square", 1, "numeric"),
    R("sqrt", 1, "floating-point", method_float=True),
    R("subtract", 2, "numeric", dunder="sub", aliases=("sub",)),
    R("tan", 1, "floating-point", method_float=True),
    R("tanh", 1, "floating-point", method_float=True),
    R("trunc", 1, "real-valued", kernel=_rounding("trunc")),
]
REGISTRY: dict[str, Elementwise] = {r.name: r for r in ROWS}

FUNCTIONS = {r.name: build(r) for r in ROWS}
globals().update(FUNCTIONS)


def _rebuild_all() -> None:
    """Rebuild the dtype tables (after ``set_default_dtype``)."""
    for r in ROWS:
        _build_tables(r)


_dtypes.ON_DEFAULT_CHANGE.append(_rebuild_all)

__all__ = list(FUNCTIONS)


# --- operators on Array, from the same rows ----------------------------------

_OPERAND_TYPES = (Array, builtins.bool, builtins.int, builtins.float, builtins.complex)


def _operator(f):
    def op(self, other):
        if type(other) not in _OPERAND_TYPES:
            return NotImplemented
        return f(self, other)
    return op


def _roperator(f):
    def rop(self, other):
        if type(other) not in _OPERAND_TYPES:
            return NotImplemented
        return f(other, self)
    return rop


def _ioperator(f):
    def iop(self, other):
        if type(other) not in _OPERAND_TYPES:
            return NotImplemented
        f(self, other, out=self)
        return self
    return iop


def _uoperator(f):
    def uop(self):
        return f(self)
    return uop


_NO_REFLECT = {"eq", "ne", "lt", "le", "gt", "ge"}

for _row in ROWS:
    if _row.dunder is None:
        continue
    _f = _row.func
    _d = _row.dunder
    if _row.nargs == 1:
        setattr(Array, f"__{_d}__", _uoperator(_f))
        continue
    setattr(Array, f"__{_d}__", _operator(_f))
    if _d not in _NO_REFLECT:
        setattr(Array, f"__r{_d}__", _roperator(_f))
        setattr(Array, f"__i{_d}__", _ioperator(_f))
