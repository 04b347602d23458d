"""Dtypes: singletons, aliases, the standard's promotion table, PyTorch's mixed kinds."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import strided as xp
from strided._core import dtypes as _dtypes

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "float32", "float64", "complex64", "complex128"]
DTYPES = [getattr(xp, n) for n in NAMES]
NUMERIC = [d for d in DTYPES if d is not xp.bool]


# --- identity ----------------------------------------------------------------------

def test_dtypes_are_module_attributes_with_their_names():
    for n in NAMES:
        d = getattr(xp, n)
        assert isinstance(d, xp.DType)
        assert d.name == n and str(d) == n
        assert repr(d) == f"strided.{n}"
        # Everything NumPy-dtype code reads, as NumPy's dtype has it.
        ref = np.dtype(n)
        for attr in ("itemsize", "kind", "type", "char", "str", "num", "byteorder", "alignment",
                     "isnative", "descr", "fields", "names", "shape", "subdtype", "hasobject"):
            assert getattr(d, attr) == getattr(ref, attr), attr
        assert np.dtype(d) is ref


def test_dtypes_equal_numpys_in_both_directions_and_nothing_else():
    for a in DTYPES:
        for b in DTYPES:
            assert (a == b) is (a is b)
            assert (a != b) is (a is not b)
        ref = np.dtype(a.name)
        assert a == ref and ref == a and not (a != ref) and not (ref != a)
        assert hash(a) == hash(ref) and {ref: "x"}[a] == "x" and {a: "x"}[ref] == "x"
        assert a == ref.type and ref.type == a  # NumPy's scalar types, as NumPy's dtypes compare
        assert a == a.name  # as np.dtype("float32") == "float32"
        # Note: unlike NumPy's dtypes (np.dtype("float64") == None is True), never None.
        assert a != None and not (a == None) and not (None == a)  # noqa: E711
        assert a != 1 and a != [a] and a != object()
        for b in DTYPES:
            if b is not a:
                assert a != np.dtype(b.name) and np.dtype(b.name) != a
    assert len({hash(d) for d in DTYPES}) == len(DTYPES)


def test_code_written_for_numpy_dtypes_accepts_ours():
    # xarray's dtypes.maybe_promote, for one, refuses anything that is not
    # isinstance(d, np.dtype) before asking NumPy about it.
    for d in DTYPES:
        ref = np.dtype(d.name)
        assert isinstance(d, np.dtype) and isinstance(d, type(ref))
        assert type(d) is xp.DType and not isinstance(ref, xp.DType)
        assert np.dtype(d) == ref and np.zeros(1, dtype=d).dtype == ref
        for kind in (np.floating, np.integer, np.signedinteger, np.complexfloating, np.bool_):
            assert np.issubdtype(d, kind) == np.issubdtype(ref, kind)
        assert np.result_type(d, np.int8) == np.result_type(ref, np.int8)
        assert d.type(1) == ref.type(1) and d.kind == ref.kind


def test_dtypes_are_singletons_through_pickle_and_copy():
    import copy
    for d in DTYPES:
        assert pickle.loads(pickle.dumps(d)) is d
        assert copy.deepcopy(d) is d


@pytest.mark.parametrize("spelling,name", [
    (np.float32, "float32"), (np.dtype(">f8"), "float64"), ("int16", "int16"), ("c16", "complex128"),
    (bool, "bool"), (int, "int64"), (float, "float64"), (complex, "complex128"), (np.uint8, "uint8"),
    (np.dtype("float32"), "float32"),
])
def test_every_dtype_argument_takes_numpys_spellings(spelling, name):
    want = getattr(xp, name)
    assert xp.zeros(2, dtype=spelling).dtype is want
    assert xp.asarray([1, 0], dtype=spelling).dtype is want
    assert xp.ones(2).astype(spelling).dtype is want
    assert xp.full_like(xp.ones(2), 1, dtype=spelling).dtype is want
    if not isinstance(spelling, str):  # isdtype's first argument is a dtype, never a kind name
        assert xp.isdtype(spelling, want)
    assert xp.can_cast(spelling, want)
    assert xp.result_type(spelling, want) is want
    if want.kind in "fc":
        assert xp.finfo(spelling).bits == np.finfo(np.dtype(name)).bits
    elif want.kind in "iu":
        assert xp.iinfo(spelling).max == np.iinfo(np.dtype(name)).max


@pytest.mark.parametrize("bad", [np.dtype("M8[s]"), "U4", object, "not a dtype", np.dtype(">U2")])
def test_unsupported_dtypes_are_a_type_error_naming_them(bad):
    with pytest.raises(TypeError, match="data type"):
        xp.zeros(2, dtype=bad)


@pytest.mark.parametrize("alias,target", [
    ("half", "float16"), ("float", "float32"), ("double", "float64"), ("short", "int16"),
    ("int", "int32"), ("long", "int64"), ("cfloat", "complex64"), ("cdouble", "complex128"),
])
def test_pytorch_aliases(alias, target):
    assert getattr(xp, alias) is getattr(xp, target)


def test_torch_style_predicates():
    assert xp.float32.is_floating_point and not xp.int32.is_floating_point
    assert xp.complex64.is_complex and not xp.float64.is_complex
    assert xp.int8.is_signed and not xp.uint8.is_signed and not xp.bool.is_signed
    assert xp.float16.bits == 16 and xp.complex128.bits == 128


def test_from_numpy_dtype():
    assert _dtypes.from_numpy_dtype(np.dtype(">f4")) is xp.float32
    assert _dtypes.from_numpy_dtype(np.int16) is xp.int16
    assert _dtypes.from_numpy_dtype("complex128") is xp.complex128
    for bad in (np.dtype("O"), np.dtype("U3"), np.dtype("datetime64[s]"), "nonsense"):
        with pytest.raises(TypeError):
            _dtypes.from_numpy_dtype(bad)


def test_numpy_dtypes_accepted_where_a_dtype_is_expected():
    assert xp.zeros(2, dtype=np.int16).dtype is xp.int16
    assert xp.asarray([1, 2], dtype="float64").dtype is xp.float64
    with pytest.raises(TypeError):
        xp.zeros(2, dtype="object")


def test_check_category_message():
    with pytest.raises(TypeError, match=r"sin\(\) accepts only floating-point data types; got int8"):
        _dtypes.check_category("sin", xp.int8, "floating-point")
    _dtypes.check_category("sin", xp.float16, "floating-point")
    assert _dtypes.CATEGORIES["real-valued"] == frozenset(
        d for d in DTYPES if d.kind in "iuf")


# --- the standard's promotion table ------------------------------------------------------
# Hard-coded from spec/2025.12/API_specification/type_promotion.rst.

_CODES = {"b": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
          "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
          "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128"}

_TABLES = [
    # (row codes, column codes, rows of results)
    (["i1", "i2", "i4", "i8"], ["i1", "i2", "i4", "i8"], [
        "i1 i2 i4 i8",
        "i2 i2 i4 i8",
        "i4 i4 i4 i8",
        "i8 i8 i8 i8"]),
    (["u1", "u2", "u4", "u8"], ["u1", "u2", "u4", "u8"], [
        "u1 u2 u4 u8",
        "u2 u2 u4 u8",
        "u4 u4 u4 u8",
        "u8 u8 u8 u8"]),
    (["i1", "i2", "i4", "i8"], ["u1", "u2", "u4"], [
        "i2 i4 i8",
        "i2 i4 i8",
        "i4 i4 i8",
        "i8 i8 i8"]),
    (["f4", "f8", "c8", "c16"], ["f4", "f8", "c8", "c16"], [
        "f4 f8 c8 c16",
        "f8 f8 c16 c16",
        "c8 c16 c8 c16",
        "c16 c16 c16 c16"]),
    (["b"], ["b"], ["b"]),
]


def _standard_pairs():
    out = {}
    for rows, cols, body in _TABLES:
        for r, line in zip(rows, body):
            for c, res in zip(cols, line.split()):
                a, b, t = (getattr(xp, _CODES[k]) for k in (r, c, res))
                out[a, b] = t
                out[b, a] = t  # the tables are symmetric; the mixed one is given one way
    return out


STANDARD = _standard_pairs()


def test_standard_table_has_every_specified_pair():
    assert len(STANDARD) == 16 + 16 + 2 * 12 + 16 + 1


@pytest.mark.parametrize("a,b", sorted(STANDARD, key=lambda p: (p[0].name, p[1].name)),
                         ids=lambda d: d.name)
def test_promotion_follows_the_standard(a, b):
    want = STANDARD[a, b]
    assert _dtypes.PROMOTION[a, b] is want
    assert _dtypes.result_type_pair(a, b) is want
    assert xp.result_type(a, b) is want
    assert xp.result_type(xp.ones(1, dtype=a), xp.ones(2, dtype=b)) is want
    if a is not xp.bool:
        r = xp.ones((2, 1), dtype=a) * xp.ones(3, dtype=b)
        assert r.dtype is want
        assert r.shape == (2, 3)


def test_promotion_is_associative_across_three_operands():
    for a in (xp.int8, xp.uint8, xp.int16):
        for b in (xp.uint16, xp.int32):
            for c in (xp.uint8, xp.int64):
                left = xp.result_type(xp.result_type(a, b), c)
                right = xp.result_type(a, xp.result_type(b, c))
                assert left is right is xp.result_type(a, b, c)


# --- mixed kinds like PyTorch ---------------------------------------------------------------

INTS = [xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16, xp.uint32, xp.uint64]
FLOATS = [xp.float16, xp.float32, xp.float64, xp.complex64, xp.complex128]


@pytest.mark.parametrize("i", INTS + [xp.bool], ids=lambda d: d.name)
@pytest.mark.parametrize("f", FLOATS, ids=lambda d: d.name)
def test_integer_or_bool_with_floating_gives_the_floating_dtype(i, f):
    assert _dtypes.PROMOTION[i, f] is f
    assert _dtypes.PROMOTION[f, i] is f
    assert (xp.ones(2, dtype=i) + xp.ones(2, dtype=f)).dtype is f
    assert (xp.ones(2, dtype=f) * xp.ones(2, dtype=i)).dtype is f


@pytest.mark.parametrize("i", INTS, ids=lambda d: d.name)
def test_bool_with_integer_gives_the_integer_dtype(i):
    assert _dtypes.PROMOTION[xp.bool, i] is i
    r = xp.asarray([True, False]) * xp.asarray([3, 4], dtype=i)
    assert r.dtype is i and r.tolist() == [3, 0]


def test_seed_mixed_kind_examples():
    a = xp.asarray([1, 2], dtype=xp.int16) * xp.asarray([0.5, 0.25], dtype=xp.float64)
    assert a.dtype is xp.float64 and a.tolist() == [0.5, 0.5]
    b = xp.asarray([1, 2]) + xp.asarray([0.5, 0.5], dtype=xp.float32)
    assert b.dtype is xp.float32 and b.tolist() == [1.5, 2.5]


def test_mixed_kinds_agree_with_torch_when_installed():
    torch = pytest.importorskip("torch")
    tmap = {d: getattr(torch, d.name) for d in DTYPES}
    checked = 0
    for a in DTYPES:
        for b in DTYPES:
            try:
                want = torch.promote_types(tmap[a], tmap[b])
            except RuntimeError:  # PyTorch does not promote uint16/32/64 with other dtypes
                continue
            assert tmap[_dtypes.PROMOTION[a, b]] == want, (a, b)
            checked += 1
    assert checked > 100


# --- Python scalars ------------------------------------------------------------------------

@pytest.mark.parametrize("d", DTYPES, ids=lambda d: d.name)
def test_python_scalar_of_the_same_kind_keeps_the_array_dtype(d):
    x = xp.ones(3, dtype=d)
    scalars = {"b": True, "i": 2, "u": 2, "f": 2.0, "c": 2.0 + 1j}
    s = scalars[d.kind]
    if d.kind == "b":
        assert (x & s).dtype is d and (s | x).dtype is d
        return
    assert (x * s).dtype is d
    assert (s * x).dtype is d
    assert (x * 1).dtype is d  # an int always fits a numeric array's kind
    assert (x * True).dtype is d


@pytest.mark.parametrize("d", [xp.float16, xp.float32, xp.float64], ids=lambda d: d.name)
def test_python_float_and_complex_with_float_arrays(d):
    x = xp.ones(2, dtype=d)
    assert (x + 0.5).dtype is d
    want = xp.complex128 if d is xp.float64 else xp.complex64
    r = x * 1j
    assert r.dtype is want and r.tolist() == [1j, 1j]


@pytest.mark.parametrize("d", INTS, ids=lambda d: d.name)
def test_python_float_with_integer_array_gives_the_default_float(d):
    x = xp.asarray([1, 2], dtype=d)
    r = x * 2.5
    assert r.dtype is xp.float32
    assert r.tolist() == [2.5, 5.0]
    assert (x * 1j).dtype is xp.complex64


def test_python_float_with_integer_array_follows_the_default(default_float64):
    x = xp.asarray([1, 2], dtype=xp.int16)
    assert (x * 2.5).dtype is xp.float64
    assert (x * 1j).dtype is xp.complex128


def test_scalar_result_table():
    sr = _dtypes.scalar_result
    assert sr(xp.int8, 1) is xp.int8
    assert sr(xp.bool, 1) is xp.int64
    assert sr(xp.bool, True) is xp.bool
    assert sr(xp.uint8, 1.0) is xp.float32
    assert sr(xp.float16, 1.0) is xp.float16
    assert sr(xp.float32, 1j) is xp.complex64
    assert sr(xp.float64, 1j) is xp.complex128
    assert sr(xp.complex64, 1.0) is xp.complex64
    with pytest.raises(TypeError):
        sr(xp.float32, "a")


def test_python_scalar_values_are_exact():
    x = xp.asarray([100, -100], dtype=xp.int8)
    np.testing.assert_array_equal((x + 27).cpu().numpy(), np.array([127, -73], np.int8))
    y = xp.asarray([0.1], dtype=xp.float64)
    assert (y + 0.2).item() == 0.1 + 0.2  # no rounding through float32


# --- default dtypes --------------------------------------------------------------------

def test_defaults_follow_pytorch():
    assert xp.get_default_dtype() is xp.float32
    assert xp.asarray(1.5).dtype is xp.float32
    assert xp.asarray(1).dtype is xp.int64
    assert xp.asarray(1j).dtype is xp.complex64
    assert xp.asarray(True).dtype is xp.bool
    assert xp.asarray([1.0, 2]).dtype is xp.float32
    assert xp.asarray([1, 2]).dtype is xp.int64
    assert xp.asarray([1 + 0j]).dtype is xp.complex64
    assert xp.zeros(2).dtype is xp.float32
    assert xp.arange(3).dtype is xp.int64
    assert xp.arange(3.0).dtype is xp.float32
    assert xp.full((2,), 7).dtype is xp.int64
    assert xp.full((2,), 7.0).dtype is xp.float32
    info = xp.__array_namespace_info__().default_dtypes()
    assert info["real floating"] is xp.float32
    assert info["complex floating"] is xp.complex64
    assert info["integral"] is xp.int64
    assert info["indexing"] is xp.int64


def test_set_default_dtype(default_float64):
    assert xp.get_default_dtype() is xp.float64
    assert xp.asarray(1.5).dtype is xp.float64
    assert xp.asarray(1j).dtype is xp.complex128
    assert xp.ones(2).dtype is xp.float64 and xp.zeros(2).dtype is xp.float64 and xp.empty(2).dtype is xp.float64
    assert xp.asarray(1).dtype is xp.int64
    info = xp.__array_namespace_info__().default_dtypes()
    assert info["real floating"] is xp.float64
    assert info["complex floating"] is xp.complex128


def test_set_default_dtype_restores_and_rejects():
    xp.set_default_dtype(xp.float64)
    xp.set_default_dtype(xp.float32)
    assert xp.asarray(1.5).dtype is xp.float32
    for bad in (xp.int32, xp.float16, xp.complex64, np.int64, "int8", "nonsense", None):
        with pytest.raises(TypeError):
            xp.set_default_dtype(bad)
    assert xp.get_default_dtype() is xp.float32
    # NumPy's spellings of float64 name float64.
    for spelling in (np.float64, np.dtype("float64"), "float64"):
        xp.set_default_dtype(spelling)
        assert xp.get_default_dtype() is xp.float64
        xp.set_default_dtype(xp.float32)
    assert xp.get_default_dtype() is xp.float32
