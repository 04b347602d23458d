"""Elementwise functions, driven by the registry, checked against NumPy.

One table (``REF``) gives each function of the standard its NumPy reference,
its input domain and the dtype kinds the standard allows. Generic tests then
check every registry row, for every allowed dtype, on contiguous,
noncontiguous, negative-stride, transposed, broadcast, 0-d and empty inputs;
operators against functions (plain, reflected, in-place); the TypeError for
each dtype outside the row's category; broadcast errors; the special values
where strided departs from NumPy to follow the standard; and that the
registry, the exported namespace and the standard's list of names agree.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

import strided as xp
from strided._api import elementwise as _elementwise

from conftest import assert_close, host, shares_memory

ROWS = _elementwise.ROWS
REGISTRY = _elementwise.REGISTRY


# --- the standard's names (2025.12), from spec/2025.12/API_specification and extensions --------

STANDARD_ELEMENTWISE = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_left_shift", "bitwise_invert", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "clip", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor",
    "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan",
    "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round",
    "sign", "signbit", "sin", "sinh", "square", "sqrt", "subtract", "tan", "tanh", "trunc",
]
STANDARD_NAMES = STANDARD_ELEMENTWISE + [
    # constants
    "e", "inf", "nan", "newaxis", "pi",
    # creation
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    # data types and data type functions
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    # indexing
    "take", "take_along_axis",
    # inspection, version
    "__array_namespace_info__", "__array_api_version__",
    # linear algebra
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    # manipulation
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
    "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
    # searching
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    # sets
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    # sorting
    "argsort", "sort",
    # statistics
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
    # utility
    "all", "any", "diff",
    # extensions
    "linalg", "fft",
]
STANDARD_LINALG = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve",
    "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]
STANDARD_FFT = [
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]
STANDARD_ARRAY_ATTRIBUTES = [
    "dtype", "device", "mT", "ndim", "shape", "size", "T",
    "__abs__", "__add__", "__and__", "__array_namespace__", "__bool__", "__complex__",
    "__dlpack__", "__dlpack_device__", "__eq__", "__float__", "__floordiv__", "__ge__",
    "__getitem__", "__gt__", "__index__", "__int__", "__invert__", "__le__", "__lshift__",
    "__lt__", "__matmul__", "__mod__", "__mul__", "__ne__", "__neg__", "__or__", "__pos__",
    "__pow__", "__rshift__", "__setitem__", "__sub__", "__truediv__", "__xor__", "to_device",
]

# --- the reference table ---------------------------------------------------------------------
# name -> (NumPy reference, allowed dtype kinds per the standard, domain of x (or x1), domain of x2)
# Kinds: b bool, i signed, u unsigned, f real floating, c complex floating.

NUMERIC, REAL, FLOAT, RFLOAT, INT, INTB = "iufc", "iuf", "fc", "f", "iu", "biu"
WIDE, UNIT, POS, NONZERO = (-4.0, 4.0), (-0.9, 0.9), (0.1, 5.0), "nonzero"


def _expm1_ref(z):
    if z.dtype.kind != "c":
        return np.expm1(z)
    x, y = z.real, z.imag
    return np.expm1(x) * np.cos(y) - 2 * np.sin(y / 2) ** 2 + 1j * np.exp(x) * np.sin(y)


def _relu_ref(x):
    # PyTorch's relu, written independently of strided's maximum(0.0, x): where keeps -0.0 and NaN
    return np.where(x < 0, np.zeros((), x.dtype), x)


def _logistic_ref(x, silu=False):
    # in float64 (or the default float for integers), rounded once to the result dtype
    dt = x.dtype if x.dtype.kind in "fc" else xp.get_default_dtype()._np
    w = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    with np.errstate(over="ignore"):
        r = 1.0 / (1.0 + np.exp(-w))
    return (w * r if silu else r).astype(dt)


def _in_f64(formula):
    # an activation's formula in float64 (math.erf for gelu), rounded once to x's dtype
    def ref(x):
        with np.errstate(over="ignore", invalid="ignore"):
            return formula(x.astype(np.float64)).astype(x.dtype)
    return ref


_SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)
_erf = np.vectorize(math.erf, otypes=[np.float64])

# PyTorch's activations among the registry's rows (not the standard's names); the
# parametric ones at their defaults here (tests/_api/test_activations.py: other values)
TORCH_ROWS = {"relu", "sigmoid", "silu", "leaky_relu", "elu", "celu", "selu", "hardtanh",
              "softplus", "gelu"}

REF = {
    "relu": (_relu_ref, REAL, WIDE),
    "sigmoid": (_logistic_ref, NUMERIC, WIDE),
    "silu": (lambda x: _logistic_ref(x, True), NUMERIC, WIDE),
    "leaky_relu": (_in_f64(lambda w: np.where(w > 0, w, w * 0.01)), RFLOAT, WIDE),
    "elu": (_in_f64(lambda w: np.where(w > 0, w, np.expm1(w))), RFLOAT, WIDE),
    "celu": (_in_f64(lambda w: np.where(w > 0, w, np.expm1(w))), RFLOAT, WIDE),
    "selu": (_in_f64(lambda w: _SELU[1] * np.where(w > 0, w, _SELU[0] * np.expm1(w))), RFLOAT, WIDE),
    "hardtanh": (_in_f64(lambda w: np.where(w < -1, -1.0, np.where(w > 1, 1.0, w))), RFLOAT, WIDE),
    "softplus": (_in_f64(lambda w: np.where(w > 20, w, np.log1p(np.exp(w)))), RFLOAT, WIDE),
    "gelu": (_in_f64(lambda w: w * 0.5 * (1 + _erf(w / math.sqrt(2)))), RFLOAT, WIDE),
    "abs": (np.abs, NUMERIC, WIDE),
    "acos": (np.arccos, FLOAT, UNIT),
    "acosh": (np.arccosh, FLOAT, (1.1, 5.0)),
    "add": (np.add, NUMERIC, WIDE, WIDE),
    "asin": (np.arcsin, FLOAT, UNIT),
    "asinh": (np.arcsinh, FLOAT, WIDE),
    "atan": (np.arctan, FLOAT, WIDE),
    "atan2": (np.arctan2, RFLOAT, WIDE, WIDE),
    "atanh": (np.arctanh, FLOAT, UNIT),
    "bitwise_and": (np.bitwise_and, INTB, WIDE, WIDE),
    "bitwise_left_shift": (np.left_shift, INT, WIDE, "shift"),
    "bitwise_invert": (np.invert, INTB, WIDE),
    "bitwise_or": (np.bitwise_or, INTB, WIDE, WIDE),
    "bitwise_right_shift": (np.right_shift, INT, WIDE, "shift"),
    "bitwise_xor": (np.bitwise_xor, INTB, WIDE, WIDE),
    "ceil": (np.ceil, REAL, WIDE),
    "conj": (np.conj, NUMERIC, WIDE),
    "copysign": (np.copysign, RFLOAT, WIDE, WIDE),
    "cos": (np.cos, FLOAT, WIDE),
    "cosh": (np.cosh, FLOAT, WIDE),
    "divide": (np.true_divide, NUMERIC, WIDE, NONZERO),
    "equal": (np.equal, "biufc", WIDE, WIDE),
    "exp": (np.exp, FLOAT, WIDE),
    "expm1": (_expm1_ref, FLOAT, WIDE),
    "floor": (np.floor, REAL, WIDE),
    "floor_divide": (np.floor_divide, REAL, WIDE, NONZERO),
    "greater": (np.greater, REAL, WIDE, WIDE),
    "greater_equal": (np.greater_equal, REAL, WIDE, WIDE),
    "hypot": (np.hypot, RFLOAT, WIDE, WIDE),
    "imag": (np.imag, "c", WIDE),
    "isfinite": (np.isfinite, NUMERIC, WIDE),
    "isinf": (np.isinf, NUMERIC, WIDE),
    "isnan": (np.isnan, NUMERIC, WIDE),
    "less": (np.less, REAL, WIDE, WIDE),
    "less_equal": (np.less_equal, REAL, WIDE, WIDE),
    "log": (np.log, FLOAT, POS),
    "log1p": (np.log1p, FLOAT, (-0.5, 5.0)),
    "log2": (np.log2, FLOAT, POS),
    "log10": (np.log10, FLOAT, POS),
    "logaddexp": (np.logaddexp, RFLOAT, WIDE, WIDE),
    "logical_and": (np.logical_and, "b", WIDE, WIDE),
    "logical_not": (np.logical_not, "b", WIDE),
    "logical_or": (np.logical_or, "b", WIDE, WIDE),
    "logical_xor": (np.logical_xor, "b", WIDE, WIDE),
    "maximum": (np.maximum, REAL, WIDE, WIDE),
    "minimum": (np.minimum, REAL, WIDE, WIDE),
    "multiply": (np.multiply, NUMERIC, WIDE, WIDE),
    "negative": (np.negative, NUMERIC, WIDE),
    # the standard (and C): x2 when x1 == x2
    "nextafter": (lambda a, b: np.where(a == b, b, np.nextafter(a, b)), RFLOAT, WIDE, WIDE),
    "not_equal": (np.not_equal, "biufc", WIDE, WIDE),
    "positive": (np.positive, NUMERIC, WIDE),
    "pow": (np.power, NUMERIC, POS, "exponent"),
    "real": (np.real, NUMERIC, WIDE),
    "reciprocal": (np.reciprocal, FLOAT, POS),
    "remainder": (np.remainder, REAL, WIDE, NONZERO),
    "round": (np.round, NUMERIC, WIDE),
    "sign": (np.sign, NUMERIC, WIDE),
    "signbit": (np.signbit, RFLOAT, WIDE),
    "sin": (np.sin, FLOAT, WIDE),
    "sinh": (np.sinh, FLOAT, WIDE),
    "square": (np.square, NUMERIC, WIDE),
    "sqrt": (np.sqrt, FLOAT, POS),
    "subtract": (np.subtract, NUMERIC, WIDE, WIDE),
    "tan": (np.tan, FLOAT, (-1.2, 1.2)),
    "tanh": (np.tanh, FLOAT, WIDE),
    "trunc": (np.trunc, REAL, WIDE),
}

ALL_DTYPES = [xp.bool, xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16, xp.uint32,
              xp.uint64, xp.float16, xp.float32, xp.float64, xp.complex64, xp.complex128]
_TOL = {"float16": 2e-3, "float32": 2e-6, "complex64": 2e-6, "float64": 1e-13, "complex128": 1e-13}


def _allowed(name):
    kinds = REF[name][1]
    return [d for d in ALL_DTYPES if d.kind in kinds]


def _values(domain, np_dtype, shape, rng):
    """Values of ``np_dtype`` inside ``domain`` (a (lo, hi) pair or a named domain)."""
    dt = np.dtype(np_dtype)
    if dt.kind == "b":
        return rng.random(shape) > 0.5
    if domain == "shift":
        return rng.integers(0, dt.itemsize * 8, shape).astype(dt)
    if domain == "exponent":
        if dt.kind in "iu":
            return rng.integers(0, 4, shape).astype(dt)
        domain = (-2.0, 2.0)
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -20
        v = rng.integers(lo, 21, shape)
        if domain == NONZERO:
            v = np.where(v == 0, 3, v)
        return v.astype(dt)
    if domain == NONZERO:
        v = rng.uniform(0.5, 4.0, shape) * rng.choice([-1.0, 1.0], shape)
    else:
        v = rng.uniform(*domain, shape)
    if dt.kind == "c":
        w = rng.uniform(*(domain if domain != NONZERO else WIDE), shape)
        if domain == POS or domain == (1.1, 5.0):
            w = w * 0.2  # stay near the positive real axis, away from branch cuts
        v = v + 1j * w
    return v.astype(dt)


def _inputs(name, np_dtype, shape, seed):
    rng = np.random.default_rng(seed)
    ref = REF[name]
    return [_values(dom, np_dtype, shape, rng) for dom in ref[2:]]


def _expected(name, *np_args):
    # NumPy warns where the standard gives inf or nan; strided never warns (the suite turns
    # a RuntimeWarning into an error), so only the reference computes with warnings off.
    with np.errstate(all="ignore"):
        ref = np.asarray(REF[name][0](*np_args))
    if name == "divide" and np_args[0].dtype.kind in "biu":
        # Note: strided divides integers in the default float dtype (PyTorch), NumPy in float64.
        ref = ref.astype(xp.get_default_dtype()._np)
    return ref


def _check(name, got, ref):
    assert type(got) is xp.Array, type(got)
    assert got.dtype._np == ref.dtype, (name, got.dtype, ref.dtype)
    assert tuple(got.shape) == ref.shape, (name, got.shape, ref.shape)
    g = host(got)
    tol = _TOL.get(got.dtype.name)
    if tol is None:
        np.testing.assert_array_equal(g, ref, err_msg=name)
    else:
        np.testing.assert_allclose(g, ref, rtol=tol, atol=tol, equal_nan=True, err_msg=name)


# Each layout turns a fresh NumPy array into (strided view, the same NumPy view).
def _contiguous(a):
    return xp.asarray(a.copy()), a


def _noncontiguous(a):
    buf = np.repeat(a, 2, axis=-1)
    return xp.asarray(buf.copy())[..., ::2], buf[..., ::2]


def _negative(a):
    x, _ = _contiguous(a)
    return x[::-1, ::-1], a[::-1, ::-1]


def _transposed(a):
    t = np.ascontiguousarray(a.T)
    return xp.asarray(t.copy()).T, t.T


LAYOUTS = {"contiguous": _contiguous, "noncontiguous": _noncontiguous,
           "negative-stride": _negative, "transposed": _transposed}

CASES = [(name, d) for name in REF for d in _allowed(name)]


def _ids(case):
    return f"{case[0]}-{case[1].name}"


def test_reference_table_covers_the_registry():
    assert sorted(REF) == sorted(REGISTRY)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_against_numpy_on_every_layout(case):
    name, dt = case
    f = getattr(xp, name)
    for seed, (layout, make) in enumerate(LAYOUTS.items()):
        args_np = _inputs(name, dt._np, (3, 4), seed)
        pairs = [make(a) for a in args_np]
        xs = [p[0] for p in pairs]
        before = [host(x).copy() for x in xs]
        got = f(*xs)
        _check(f"{name} {layout}", got, _expected(name, *(p[1] for p in pairs)))
        for x, b in zip(xs, before):  # inputs untouched, result in fresh memory
            np.testing.assert_array_equal(host(x), b)
            assert not shares_memory(got, x), f"{name} {layout}: result aliases input"


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_0d_empty_and_broadcast(case):
    name, dt = case
    f = getattr(xp, name)
    nargs = len(REF[name]) - 2
    for shape in [(), (0,), (2, 0, 3)]:
        args = _inputs(name, dt._np, shape, 7)
        got = f(*(xp.asarray(a) for a in args))
        _check(f"{name} shape {shape}", got, _expected(name, *args))
    if nargs == 2:
        a, _ = _inputs(name, dt._np, (3, 1), 8)
        _, b = _inputs(name, dt._np, (1, 4), 9)
        _check(f"{name} broadcast", f(xp.asarray(a), xp.asarray(b)), _expected(name, a, b))
        # a stride-0 (expanded) operand
        bx = xp.broadcast_to(xp.asarray(b), (3, 4))
        _check(f"{name} expanded", f(xp.asarray(a), bx), _expected(name, a, np.broadcast_to(b, (3, 4))))
        # a 0-d operand with an n-d one
        s, _ = _inputs(name, dt._np, (), 10)
        _, m = _inputs(name, dt._np, (2, 3), 11)
        _check(f"{name} 0-d with 2-d", f(xp.asarray(s), xp.asarray(m)), _expected(name, s, m))
    else:
        (a,) = _inputs(name, dt._np, (1, 4), 12)
        ax = xp.broadcast_to(xp.asarray(a), (3, 4))
        _check(f"{name} expanded", f(ax), _expected(name, np.broadcast_to(a, (3, 4))))


# Outside the standard's categories, bool arrays compute where PyTorch's kernels (and NumPy's
# loops) take them: two masks added (or), multiplied (and), compared, their maximum, their
# true quotient, and the float tests of a mask (isnan: False; signbit: False).
BOOL_COMPUTED = {"add": lambda a, b: a | b, "multiply": lambda a, b: a & b,
                 "maximum": lambda a, b: a | b, "minimum": lambda a, b: a & b,
                 "less": lambda a, b: ~a & b, "less_equal": lambda a, b: ~a | b,
                 "greater": lambda a, b: a & ~b, "greater_equal": lambda a, b: a | ~b,
                 "divide": lambda a, b: a.astype(np.float32) / b.astype(np.float32),
                 "isnan": lambda a: np.zeros_like(a), "isinf": lambda a: np.zeros_like(a),
                 "isfinite": lambda a: np.ones_like(a), "signbit": lambda a: np.zeros_like(a)}


@pytest.mark.parametrize("name", sorted(REF))
def test_out_of_category_dtypes_raise_type_error(name):
    f = getattr(xp, name)
    nargs = len(REF[name]) - 2
    allowed = _allowed(name)
    for dt in ALL_DTYPES:
        if dt in allowed:
            continue
        if dt == xp.bool and name in BOOL_COMPUTED:
            a, b = np.array([True, False, True, False]), np.array([True, True, False, False])
            args = (a, b)[:nargs]
            got = host(f(*(xp.asarray(v) for v in args)))
            with np.errstate(all="ignore"):
                want = BOOL_COMPUTED[name](*args)
            np.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
            continue
        x = xp.ones((2,), dtype=dt)
        with pytest.raises(TypeError, match=rf"{name}\(\).*{dt.name}"):
            f(*([x] * nargs))


def test_binary_dtypes_without_a_common_category_dtype_raise():
    x, y = xp.ones(2, dtype=xp.uint64), xp.ones(2, dtype=xp.int64)
    with pytest.raises(TypeError, match=r"bitwise_and\(\): uint64 and int64 have no common"):
        xp.bitwise_and(x, y)


@pytest.mark.parametrize("name", sorted(n for n in REF if len(REF[n]) == 4))
def test_broadcast_error_names_both_shapes(name):
    dt = _allowed(name)[-1]
    x, y = xp.ones((2, 3), dtype=dt), xp.ones((4,), dtype=dt)
    with pytest.raises(ValueError, match=rf"{name}\(\).*\(2, 3\).*\(4,\)"):
        getattr(xp, name)(x, y)


def test_non_array_operands_raise_type_error():
    x = xp.ones(3)
    with pytest.raises(TypeError, match=r"add\(\): unsupported operand type list"):
        xp.add(x, [1, 2, 3])
    with pytest.raises(TypeError, match=r"add\(\): at least one argument must be an array"):
        xp.add(1, 2)
    with pytest.raises(TypeError, match=r"sin\(\): expected an array; got float"):
        xp.sin(1.0)
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError, match=r"bitwise_and\(\) accepts only integer or boolean.*int32, float"):
        xp.bitwise_and(xp.ones(2, dtype=xp.int32), 1.5)


def test_mixed_devices_raise_value_error(device):
    from strided._core.device import Device

    x = xp.ones(2, device=device)
    y = xp.ones(2, device=device)
    y._device = Device("cuda:7")  # claiming another device is enough to reach the check
    with pytest.raises(ValueError, match=rf"add\(\): arrays are on different devices, {device} and cuda:7"):
        xp.add(x, y)


# --- operators ---------------------------------------------------------------------------------

BINARY_OPS = {  # registry name -> (operator, in-place operator or None)
    "add": (operator.add, operator.iadd), "subtract": (operator.sub, operator.isub),
    "multiply": (operator.mul, operator.imul), "divide": (operator.truediv, operator.itruediv),
    "floor_divide": (operator.floordiv, operator.ifloordiv), "remainder": (operator.mod, operator.imod),
    "pow": (operator.pow, operator.ipow), "bitwise_and": (operator.and_, operator.iand),
    "bitwise_or": (operator.or_, operator.ior), "bitwise_xor": (operator.xor, operator.ixor),
    "bitwise_left_shift": (operator.lshift, operator.ilshift),
    "bitwise_right_shift": (operator.rshift, operator.irshift),
    "equal": (operator.eq, None), "not_equal": (operator.ne, None), "less": (operator.lt, None),
    "less_equal": (operator.le, None), "greater": (operator.gt, None),
    "greater_equal": (operator.ge, None),
}
UNARY_OPS = {"abs": abs, "negative": operator.neg, "positive": operator.pos,
             "bitwise_invert": operator.invert}
# Python operator evaluated with the operands swapped: a < x is x > a.
SWAPPED = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
           "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}


def test_operator_rows_are_the_standards_operators():
    dunders = {f"__{r.dunder}__" for r in ROWS if r.dunder}
    expected = {a for a in STANDARD_ARRAY_ATTRIBUTES
                if a.startswith("__") and a not in (
                    "__array_namespace__", "__bool__", "__complex__", "__dlpack__",
                    "__dlpack_device__", "__float__", "__getitem__", "__index__", "__int__",
                    "__matmul__", "__setitem__")}
    assert dunders == expected
    assert set(BINARY_OPS) | set(UNARY_OPS) == {r.name for r in ROWS if r.dunder}


def _scalar_for(dt, domain):
    if dt.kind == "b":
        return True
    if domain == "shift" or domain == "exponent":
        return 2
    if dt.kind in "iu":
        return 3
    if dt.kind == "c":
        return 1.5 - 0.5j
    return 1.5


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in BINARY_OPS], ids=_ids)
def test_binary_operators_match_functions(case):
    name, dt = case
    f = getattr(xp, name)
    op, iop = BINARY_OPS[name]
    a, b = _inputs(name, dt._np, (3, 4), 21)
    x, y = xp.asarray(a), xp.asarray(b)
    _check(f"{name} operator", op(x, y), _expected(name, a, b))
    # array op scalar and scalar op array (reflected)
    s = _scalar_for(dt, REF[name][3])
    s_np = np.asarray(s, dtype=dt._np)
    _check(f"{name} array op scalar", op(x, s), _expected(name, a, s_np))
    assert op(x, s).dtype is f(x, s).dtype
    s = _scalar_for(dt, REF[name][2])
    s_np = np.asarray(s, dtype=dt._np)
    if name in SWAPPED:
        _check(f"{name} scalar op array", op(s, y), _expected(name, s_np, b))
        _check(f"{name} swapped function", getattr(xp, SWAPPED[name])(y, s), _expected(name, s_np, b))
    else:
        _check(f"{name} reflected", op(s, y), _expected(name, s_np, b))
        _check(f"{name} function(scalar, array)", f(s, y), _expected(name, s_np, b))
    if iop is None:
        return
    expected = _expected(name, a, b)
    if expected.dtype != dt._np:  # e.g. int / int is float: in place into an int array raises
        with pytest.raises(TypeError, match="can't be cast"):
            iop(xp.asarray(a.copy()), y)
        return
    base = xp.asarray(np.repeat(a, 2, axis=1))
    z = base[:, ::2]  # in place on a noncontiguous view writes through to its base
    storage, strides = z.storage(), z.stride()
    r = iop(z, y)
    assert r is z and z.storage() is storage and z.stride() == strides
    _check(f"{name} in place", z, expected)
    np.testing.assert_array_equal(host(base)[:, 1::2], a)  # the other columns untouched
    z2 = xp.asarray(a.copy())
    _check(f"{name} in place with scalar", iop(z2, _scalar_for(dt, REF[name][3])),
           _expected(name, a, np.asarray(_scalar_for(dt, REF[name][3]), dtype=dt._np)))


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in UNARY_OPS], ids=_ids)
def test_unary_operators_match_functions(case):
    name, dt = case
    (a,) = _inputs(name, dt._np, (3, 4), 31)
    x = xp.asarray(a)[::-1]
    _check(f"{name} operator", UNARY_OPS[name](x), _expected(name, a[::-1]))


def test_in_place_operator_keeps_the_shape():
    x = xp.ones((1, 3))
    with pytest.raises(ValueError, match=r"shape \(1, 3\).*\(2, 3\)"):
        x += xp.ones((2, 3))


def test_in_place_operator_with_an_overlapping_operand():
    a = np.arange(6.0)
    x = xp.asarray(a.copy())
    x[1:] += x[:-1]
    expected = a.copy()
    expected[1:] = a[1:] + a[:-1]
    np.testing.assert_array_equal(host(x), expected)


def test_operators_defer_to_unknown_types():
    class Other:
        def __radd__(self, other):
            return "radd"

        def __eq__(self, other):
            return "eq"

    assert xp.ones(2) + Other() == "radd"
    assert (xp.ones(2) == Other()) == "eq"
    assert (xp.ones(2) == None) is False  # noqa: E711  (Python falls back to identity)


# --- out= ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["add", "sin", "floor_divide", "pow", "tanh", "expm1", "real"])
def test_out_matches_the_result(name):
    dt = xp.float64 if name != "real" else xp.complex128
    args = _inputs(name, dt._np, (3, 4), 41)
    expected = _expected(name, *args)
    buf = xp.zeros((3, 8), dtype=xp.asarray(expected).dtype)
    out = buf[:, 1::2]
    got = getattr(xp, name)(*(xp.asarray(a) for a in args), out=out)
    assert got is out
    _check(f"{name} out=", out, expected)
    np.testing.assert_array_equal(host(buf)[:, ::2], 0)


# --- special values where strided follows the standard, not NumPy -----------------------------

INF, NAN = math.inf, math.nan


def _bits(v):
    """(is nan, value, sign bit) so that -0.0 and +0.0 differ and nan equals nan."""
    if math.isnan(v):
        return ("nan",)
    return (v, math.copysign(1.0, v))


@pytest.mark.parametrize("dt", [xp.float32, xp.float64])
@pytest.mark.parametrize("x1, x2, expected", [
    (INF, 2.0, INF), (INF, -2.0, -INF), (-INF, 2.0, -INF), (-INF, -2.0, INF),
    (1.0, INF, 0.0), (1.0, -INF, -0.0), (-1.0, INF, -0.0), (-1.0, -INF, 0.0),
    (0.0, INF, 0.0), (-0.0, INF, -0.0), (INF, INF, NAN), (7.0, 2.0, 3.0), (-7.0, 2.0, -4.0),
])
def test_floor_divide_special_values(dt, x1, x2, expected):
    # NumPy gives nan for inf // 2.0 and -1.0 for -1.0 // inf.
    vec = xp.floor_divide(xp.asarray([x1, 5.0], dtype=dt), xp.asarray([x2, 2.0], dtype=dt))
    assert _bits(float(vec[0])) == _bits(expected) and float(vec[1]) == 2.0
    assert _bits(float(xp.asarray(x1, dtype=dt) // x2)) == _bits(expected)
    assert _bits(float(x1 // xp.asarray(x2, dtype=dt))) == _bits(expected)


@pytest.mark.parametrize("dt", [xp.float32, xp.float64])
def test_pow_one_half_of_negative_infinity_and_zero(dt):
    # NumPy computes x ** 0.5 as sqrt(x) for a scalar exponent: nan and -0.
    x = xp.asarray([-INF, -0.0, 4.0], dtype=dt)
    for got in (x ** 0.5, xp.pow(x, xp.asarray(0.5, dtype=dt)), xp.pow(x, xp.full((3,), 0.5, dtype=dt)),
                xp.pow(x, xp.broadcast_to(xp.asarray(0.5, dtype=dt), (3,)))):
        assert [_bits(v) for v in got.tolist()] == [_bits(INF), _bits(0.0), _bits(2.0)]
    assert _bits(float(xp.asarray(-0.0, dtype=dt) ** 0.5)) == _bits(0.0)


@pytest.mark.parametrize("dt", [xp.complex64, xp.complex128])
def test_tanh_complex_at_infinity(dt):
    z = xp.asarray([complex(INF, 2.0), complex(INF, -2.0), complex(-INF, 2.0), complex(0.5, 0.5)],
                   dtype=dt)
    got = xp.tanh(z).tolist()
    assert [(_bits(v.real), _bits(v.imag)) for v in got[:3]] == [
        (_bits(1.0), _bits(0.0)), (_bits(1.0), _bits(-0.0)), (_bits(-1.0), _bits(0.0))]
    assert got[3] == pytest.approx(np.tanh(complex(0.5, 0.5)), rel=1e-6)


@pytest.mark.parametrize("dt", [xp.complex64, xp.complex128])
def test_expm1_complex_is_accurate_near_zero_and_special(dt):
    small = complex(1e-10, 1e-10)
    got = complex(xp.expm1(xp.asarray(small, dtype=dt)))
    assert got == pytest.approx(complex(1e-10, 1e-10), rel=1e-5)  # exp(z) - 1 would give 0
    z = xp.asarray([complex(-0.0, 0.0), complex(INF, 0.0), complex(-INF, 1.0)], dtype=dt)
    r = xp.expm1(z).tolist()
    assert (_bits(r[0].real), _bits(r[0].imag)) == (_bits(0.0), _bits(0.0))
    assert (r[1].real, _bits(r[1].imag)) == (INF, _bits(0.0))
    assert r[2].real == -1.0


def test_sign_of_complex():
    z = xp.asarray([3 + 4j, 0j, complex(-0.0, -0.0), complex(NAN, 1.0)])
    r = xp.sign(z).tolist()
    assert r[0] == pytest.approx(0.6 + 0.8j)
    assert r[1] == 0 and r[2] == 0
    assert math.isnan(r[3].real) and math.isnan(r[3].imag)
    assert complex(xp.sign(xp.asarray(0j))) == 0


@pytest.mark.parametrize("dt", [xp.int8, xp.uint8, xp.int64, xp.uint64])
def test_shifts_by_the_bit_width_or_more(dt):
    bits = dt.itemsize * 8
    signed = dt.kind == "i"
    x = xp.asarray([5, -3 if signed else 3], dtype=dt)
    n = xp.asarray([bits, bits + 1], dtype=dt)
    assert (x << n).tolist() == [0, 0]
    assert (x >> n).tolist() == [0, -1 if signed else 0]
    for count in (bits, bits + 5, 1000):  # Python int counts, beyond the dtype's range too
        assert (x << count).tolist() == [0, 0]
        assert (x >> count).tolist() == [0, -1 if signed else 0]
    with pytest.raises(ValueError, match="shift counts must be non-negative"):
        x << -1


@pytest.mark.parametrize("dt", [xp.float16, xp.float32, xp.float64])
def test_nextafter_of_equal_values_is_x2(dt):
    # NumPy's float16 kernel returns x1 (so -0 for nextafter(-0, +0)).
    got = xp.nextafter(xp.asarray([-0.0, 0.0, 1.0], dtype=dt), xp.asarray([0.0, -0.0, 1.0], dtype=dt))
    assert [_bits(v) for v in got.tolist()] == [_bits(0.0), _bits(-0.0), _bits(1.0)]


def test_integer_pow_with_negative_exponent_raises_our_error():
    with pytest.raises(ValueError, match=r"pow\(\): integers to negative integer powers"):
        xp.pow(xp.asarray([2, 3]), xp.asarray([1, -1]))


# --- clip ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", [xp.int8, xp.uint16, xp.int64, xp.float32, xp.float64])
def test_clip_against_numpy(dt):
    rng = np.random.default_rng(5)
    a = _values(WIDE, dt._np, (3, 4), rng)
    lo = _values(WIDE, dt._np, (3, 1), rng)
    hi = lo + np.asarray(3, dtype=dt._np)
    x = xp.asarray(a)[::-1]
    for kw, ref in [
        ({}, a[::-1]),
        ({"min": 1}, np.clip(a[::-1], 1, None)),
        ({"max": 2}, np.clip(a[::-1], None, 2)),
        ({"min": 1, "max": 2}, np.clip(a[::-1], 1, 2)),
        ({"min": xp.asarray(lo)}, np.clip(a[::-1], lo, None)),
        ({"min": xp.asarray(lo), "max": xp.asarray(hi)}, np.clip(a[::-1], lo, hi)),
    ]:
        got = xp.clip(x, **kw)
        _check(f"clip {kw}", got, np.asarray(ref, dtype=dt._np))
        assert not shares_memory(got, x)
    assert xp.clip(x, 1, 2).dtype is dt


def test_clip_bounds_outside_the_integer_range_and_fractional_bounds():
    x = xp.asarray([0, 100, 255], dtype=xp.uint8)
    assert xp.clip(x, -5, 1000).tolist() == [0, 100, 255]
    assert xp.clip(x, 0.5, 99.5).tolist() == [1, 99, 99]
    assert xp.clip(x, -math.inf, math.inf).tolist() == [0, 100, 255]
    with pytest.raises(ValueError, match="NaN"):
        xp.clip(x, math.nan)


def test_clip_nan_and_broadcast_and_out():
    x = xp.asarray([1.0, NAN, 5.0])
    assert [_bits(v) for v in xp.clip(x, 2.0, 4.0).tolist()] == [_bits(2.0), _bits(NAN), _bits(4.0)]
    assert math.isnan(xp.clip(xp.asarray([1.0]), NAN).tolist()[0])
    got = xp.clip(xp.zeros(3), xp.asarray([[1.0], [2.0]]))
    assert got.shape == (2, 3) and got.tolist() == [[1.0] * 3, [2.0] * 3]
    out = xp.empty(3)
    assert xp.clip(x, 2.0, 4.0, out=out) is out
    with pytest.raises(ValueError, match=r"clip\(\).*\(3,\).*\(2,\)"):
        xp.clip(x, xp.zeros(2))
    with pytest.raises(TypeError, match=r"clip\(\) accepts only real-valued.*complex64"):
        xp.clip(xp.ones(2, dtype=xp.complex64), 1.0)
    with pytest.raises(TypeError, match=r"clip\(\): min must be"):
        xp.clip(x, 1j)


# --- names --------------------------------------------------------------------------------------

def test_registry_exported_and_standard_names_agree():
    assert len(STANDARD_ELEMENTWISE) == len(set(STANDARD_ELEMENTWISE)) == 67
    assert sorted([*(set(REGISTRY) - TORCH_ROWS), "clip"]) == sorted(STANDARD_ELEMENTWISE)
    for name in REGISTRY:
        f = getattr(xp, name)
        assert f is REGISTRY[name].func and f.__name__ == name and name in _elementwise.__all__
    assert xp.clip is _elementwise.clip


def test_namespace_has_every_standard_name():
    missing = [n for n in STANDARD_NAMES if not hasattr(xp, n)]
    assert not missing
    assert [n for n in STANDARD_LINALG if not hasattr(xp.linalg, n)] == []
    assert [n for n in STANDARD_FFT if not hasattr(xp.fft, n)] == []
    assert [a for a in STANDARD_ARRAY_ATTRIBUTES if not hasattr(xp.Array, a)] == []
    assert xp.__array_api_version__ == "2025.12"
    assert xp.newaxis is None and xp.e == math.e and xp.pi == math.pi
    assert math.isinf(xp.inf) and math.isnan(xp.nan)


# --- maximum/minimum of a large array and a Python scalar (a constant-block path) -----------

@pytest.mark.parametrize("func", ["maximum", "minimum"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [4095, 4096, 70_001, 300_000])
def test_extremum_with_a_scalar_matches_numpy(func, dtype, n):
    """Sizes around the path's threshold, across block boundaries and above the pool's
    threshold; NaN propagates; on the CPU, signed zeros and the operand order are NumPy's
    (docs/performance.md). The standard leaves the sign of a zero result of maximum(-0., +0.)
    to the implementation: another device may pick either operand."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(dtype)
    a[::97] = np.nan
    a[1], a[2], a[3] = -0.0, 0.0, np.inf
    x = xp.asarray(a)
    f, ref = getattr(xp, func), getattr(np, func)
    for s in (0.0, -0.0, 0.25, -3, float("nan"), float("-inf")):
        for r, want in ((f(x, s), ref(a, s)), (f(s, x), ref(s, a))):
            assert_close(r, want, signed_zeros=False)  # the CPU: NumPy's zero signs all the same
            if r.device.type == "cpu":  # and the sign of the NaN NumPy's order picks
                assert (np.signbit(host(r)) == np.signbit(want)).all()
    # a strided (non-contiguous) array and a 2-D one take NumPy's own loop or the block path
    m = a[: n - n % 8].reshape(-1, 8)
    np.testing.assert_array_equal(host(f(xp.asarray(m)[:, ::2], 0.5)), ref(m[:, ::2], 0.5))
    np.testing.assert_array_equal(host(f(xp.asarray(m), 0.5)), ref(m, 0.5))
    # the cached constant block is never written through a result
    r = f(x, 1.5)
    r[...] = 7.0
    np.testing.assert_array_equal(host(f(x, 1.5)), ref(a, 1.5))
