"""all/any/diff against NumPy, and the data type functions (can_cast, finfo,
iinfo, isdtype, result_type) against NumPy's limits and the standard's tables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp
from strided._core.dtypes import ALL_DTYPES

from conftest import assert_same, to_np


def views(ref: np.ndarray):
    x = xp.asarray(ref.copy())
    yield x, ref
    if ref.ndim >= 1:
        yield xp.flip(x, axis=0), np.flip(ref, 0)
        yield x[::-2], ref[::-2]
    if ref.ndim >= 2:
        yield xp.permute_dims(x, (1, 0) + tuple(range(2, ref.ndim))), np.swapaxes(ref, 0, 1)


# --- all / any ------------------------------------------------------------------------

SAMPLES = {
    "bool": np.array([[True, False, True], [True, True, True]]),
    "int": np.array([[0, 3, -1], [2, 2, 5]], dtype=np.int16),
    "float": np.array([[np.nan, 0.0, -0.0], [np.inf, 1.0, -np.inf]]),
    "complex": np.array([[0j, 1j, 1 + 0j], [complex(0, -0.0), complex(np.nan, 0), 2j]]),
}


@pytest.mark.parametrize("func", ["all", "any"])
@pytest.mark.parametrize("kind", list(SAMPLES))
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_all_any_match_numpy(func, kind, axis, keepdims):
    for x, ref in views(SAMPLES[kind]):
        r = getattr(xp, func)(x, axis=axis, keepdims=keepdims)
        assert_same(r, np.asarray(getattr(np, func)(ref, axis=axis, keepdims=keepdims)))


def test_all_any_nan_inf_are_true():
    x = xp.asarray([np.nan, np.inf, -np.inf])
    assert xp.all(x).item() is True
    assert xp.any(xp.asarray([0.0, np.nan])).item() is True


def test_all_any_empty_and_0d():
    e = xp.asarray(np.zeros((0, 3)))
    assert_same(xp.all(e), np.array(True))
    assert_same(xp.any(e), np.array(False))
    assert_same(xp.all(e, axis=0), np.ones(3, bool))
    assert_same(xp.any(e, axis=1), np.zeros(0, bool))
    z = xp.asarray(np.float32(0.0))
    assert_same(xp.all(z), np.array(False))
    assert_same(xp.any(z, axis=-1, keepdims=True), np.array(False))


@pytest.mark.parametrize("func", ["all", "any"])
def test_all_any_errors_and_out(func):
    f = getattr(xp, func)
    x = xp.asarray([[1, 0], [1, 1]])
    out = xp.empty(2, dtype=xp.bool)
    assert f(x, axis=1, out=out) is out
    assert out.tolist() == np.asarray(getattr(np, func)([[1, 0], [1, 1]], axis=1)).tolist()
    with pytest.raises(IndexError, match="out of bounds"):
        f(x, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        f(x, axis=(0, 0))
    with pytest.raises(TypeError, match="strided array"):
        f([True])
    with pytest.raises(ValueError, match="shape"):
        f(x, axis=0, out=xp.empty(3, dtype=xp.bool))


# --- diff --------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 3, 7])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_diff_matches_numpy(n, axis):
    ref = np.random.default_rng(0).integers(-50, 50, size=(5, 6)).astype(np.int32)
    for x, r in views(ref):
        assert_same(xp.diff(x, n=n, axis=axis), np.diff(r, n=n, axis=axis))


def test_diff_float_uint_bool_complex():
    f = np.array([1.5, np.inf, 2.0, np.nan])
    assert_same(xp.diff(xp.asarray(f)), np.diff(f))
    u = np.array([3, 1, 7], dtype=np.uint8)  # wraps around, as subtract does
    assert_same(xp.diff(xp.asarray(u)), np.diff(u))
    b = np.array([True, True, False, True])
    assert_same(xp.diff(xp.asarray(b)), np.diff(b))
    c = np.array([1j, 2 + 1j, 0j])
    assert_same(xp.diff(xp.asarray(c), n=2), np.diff(c, n=2))


def test_diff_prepend_append():
    ref = np.arange(12.0).reshape(3, 4) ** 2
    pre = np.full((3, 2), -1.0)
    app = np.arange(3.0).reshape(3, 1)
    for x, r in views(ref):
        if r.shape != ref.shape:
            continue
        got = xp.diff(x, axis=1, n=2, prepend=xp.asarray(pre), append=xp.asarray(app))
        assert_same(got, np.diff(r, axis=1, n=2, prepend=pre, append=app))
    # along axis 0, with only one of the two
    assert_same(xp.diff(xp.asarray(ref), axis=0, append=xp.asarray(ref[:1])),
                np.diff(ref, axis=0, append=ref[:1]))
    # a Python scalar spans one step along the axis, as in NumPy
    assert_same(xp.diff(xp.asarray(ref), axis=0, prepend=0.0), np.diff(ref, axis=0, prepend=0.0))


def test_diff_prepend_promotes():
    x = xp.asarray(np.array([5, 7], dtype=np.int8))
    r = xp.diff(x, prepend=xp.asarray(np.array([300], dtype=np.int16)))
    assert_same(r, np.array([-295, 2], dtype=np.int16))


def test_diff_n0_is_a_copy():
    x = xp.asarray([1, 2, 3])
    r = xp.diff(x, n=0)
    r[0] = 9
    assert x.tolist() == [1, 2, 3]


def test_diff_empty_axis():
    assert_same(xp.diff(xp.asarray(np.zeros((2, 0)))), np.zeros((2, 0)))
    assert_same(xp.diff(xp.asarray(np.zeros((0, 3))), axis=1), np.zeros((0, 2)))


def test_diff_errors(sim):
    x = xp.asarray([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="at least one dimension"):
        xp.diff(xp.asarray(np.int64(3)))
    with pytest.raises(ValueError, match="non-negative"):
        xp.diff(x, n=-1)
    with pytest.raises(TypeError, match="n must be an int"):
        xp.diff(x, n=1.0)
    with pytest.raises(IndexError, match="out of bounds"):
        xp.diff(x, axis=2)
    with pytest.raises(ValueError, match="prepend of shape"):
        xp.diff(x, axis=1, prepend=xp.ones((3, 1), dtype=xp.int64))
    with pytest.raises(ValueError, match="append of shape"):
        xp.diff(x, append=xp.ones(2, dtype=xp.int64))
    with pytest.raises(TypeError, match="prepend must be an array"):
        xp.diff(x, prepend=[1, 2])
    with pytest.raises(ValueError, match="different devices"):
        xp.diff(x, append=xp.ones((2, 1), dtype=xp.int64, device=sim))
    with pytest.raises(TypeError, match="strided array"):
        xp.diff([1, 2, 3])


def test_diff_out():
    out = xp.empty(2, dtype=xp.int64)
    assert xp.diff(xp.asarray([1, 4, 9]), out=out) is out
    assert out.tolist() == [3, 5]


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), elements=st.integers(-9, 9)),
       st.integers(0, 2), st.integers(0, 4))
def test_diff_property(ref, axis, n):
    axis = axis % ref.ndim
    assert_same(xp.diff(xp.asarray(ref), axis=axis, n=n), np.diff(ref, axis=axis, n=n))


# --- can_cast ------------------------------------------------------------------------------

SAME_KIND = {
    "b": ["bool"], "i": ["int8", "int16", "int32", "int64"], "u": ["uint8", "uint16", "uint32", "uint64"],
    "f": ["float16", "float32", "float64"], "c": ["complex64", "complex128"],
}


def spec_promote(a, b):
    """The standard's promotion table (same-kind plus signed/unsigned mixes), or None."""
    na, nb = np.dtype(a.name), np.dtype(b.name)
    if {na.kind, nb.kind} in ({"i", "u"},) and np.uint64 in (na.type, nb.type):
        return None
    kinds = {na.kind, nb.kind}
    if kinds <= {"i", "u"} or len(kinds) == 1 or kinds == {"f", "c"}:
        return getattr(xp, np.promote_types(na, nb).name)
    return None


@pytest.mark.parametrize("a", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("b", ALL_DTYPES, ids=str)
def test_can_cast_follows_the_standard_within_kinds(a, b):
    expected = any(spec_promote(a, o) is b for o in ALL_DTYPES)
    if expected:
        assert xp.can_cast(a, b) is True
    if a.kind == b.kind and a.kind != "b":
        assert xp.can_cast(a, b) is (np.promote_types(a._np, b._np) == b._np)
    assert xp.can_cast(xp.empty(1, dtype=a), b) == xp.can_cast(a, b)


def test_can_cast_cross_kind_and_errors():
    assert xp.can_cast(xp.float64, xp.float32) is False
    assert xp.can_cast(xp.complex64, xp.float64) is False
    assert xp.can_cast(xp.float32, xp.int64) is False
    with pytest.raises(TypeError, match="can_cast"):
        xp.can_cast(None, xp.float32)
    with pytest.raises(TypeError, match="can_cast"):
        xp.can_cast(xp.float32, [1])


# --- finfo / iinfo -------------------------------------------------------------------------

@pytest.mark.parametrize("name,real", [("float16", "float16"), ("float32", "float32"), ("float64", "float64"),
                                       ("complex64", "float32"), ("complex128", "float64")])
def test_finfo_matches_numpy(name, real):
    d = getattr(xp, name)
    ref = np.finfo(np.dtype(real))
    for arg in (d, xp.ones(1, dtype=d)):
        f = xp.finfo(arg)
        assert type(f.bits) is int and f.bits == ref.bits
        for attr in ("eps", "max", "min", "smallest_normal"):
            v = getattr(f, attr)
            assert type(v) is float and v == float(getattr(ref, attr))
        assert f.dtype is getattr(xp, real)
        assert f.tiny == f.smallest_normal and f.resolution == float(ref.resolution)


def test_finfo_iinfo_answers_are_immutable_and_errors_repeat():
    # (one answer per dtype is cached: it must not be writable, and a refused dtype is
    # refused every time)
    import dataclasses
    f = xp.finfo(xp.float32)
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.eps = 1.0
    assert xp.finfo(xp.float32).eps == float(np.finfo(np.float32).eps)
    with pytest.raises(dataclasses.FrozenInstanceError):
        xp.iinfo(xp.int8).max = 0
    for _ in range(2):
        with pytest.raises(TypeError, match="floating-point"):
            xp.finfo(xp.int16)
        with pytest.raises(TypeError, match="integer"):
            xp.iinfo(xp.float32)


def test_finfo_default_and_errors(default_float64):
    assert xp.finfo().dtype is xp.float64
    with pytest.raises(TypeError, match="floating-point"):
        xp.finfo(xp.int32)
    with pytest.raises(TypeError, match="floating-point"):
        xp.finfo(xp.bool)
    with pytest.raises(TypeError, match="finfo"):
        xp.finfo([1.0])


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_iinfo_matches_numpy(name):
    d = getattr(xp, name)
    ref = np.iinfo(np.dtype(name))
    for arg in (d, xp.ones(1, dtype=d)):
        i = xp.iinfo(arg)
        assert (i.bits, i.min, i.max) == (ref.bits, int(ref.min), int(ref.max))
        assert type(i.min) is int and type(i.max) is int and type(i.bits) is int
        assert i.dtype is d


@pytest.mark.parametrize("name", ["int8", "int64", "uint8", "uint64"])
def test_iinfo_limits_round_trip_through_asarray(name):
    d = getattr(xp, name)
    i = xp.iinfo(d)
    assert xp.asarray([i.max, 1, i.min], dtype=d).tolist() == [i.max, 1, i.min]
    assert xp.asarray([i.max - 1, 2.0], dtype=d).tolist() == [i.max - 1, 2]


def test_iinfo_errors():
    for d in (xp.float32, xp.bool, xp.complex64):
        with pytest.raises(TypeError, match="integer"):
            xp.iinfo(d)
    with pytest.raises(TypeError, match="iinfo"):
        xp.iinfo(None)


# --- isdtype ---------------------------------------------------------------------------------

KINDS = {
    "bool": {"bool"},
    "signed integer": set(SAME_KIND["i"]),
    "unsigned integer": set(SAME_KIND["u"]),
    "integral": set(SAME_KIND["i"]) | set(SAME_KIND["u"]),
    "real floating": set(SAME_KIND["f"]),
    "complex floating": set(SAME_KIND["c"]),
    "numeric": set(SAME_KIND["i"] + SAME_KIND["u"] + SAME_KIND["f"] + SAME_KIND["c"]),
}


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_isdtype_kinds(d):
    for kind, names in KINDS.items():
        assert xp.isdtype(d, kind) is (d.name in names)
    assert xp.isdtype(d, d) is True
    assert xp.isdtype(d, xp.int8) is (d is xp.int8)
    assert xp.isdtype(d, ("bool", xp.float32)) is (d in (xp.bool, xp.float32))
    assert xp.isdtype(d, ()) is False


def test_isdtype_errors():
    with pytest.raises(ValueError, match="unknown kind"):
        xp.isdtype(xp.int8, "integer")
    with pytest.raises(TypeError, match="kind must be"):
        xp.isdtype(xp.int8, 3)
    for bad in ("int8", 3, None, [xp.int8]):
        with pytest.raises(TypeError, match="dtype must be a dtype"):
            xp.isdtype(bad, "integral")
    # NumPy's dtypes and scalar types are dtypes here.
    assert xp.isdtype(np.dtype("int8"), "integral") and xp.isdtype(np.int8, "signed integer")
    assert xp.isdtype(np.float32, xp.float32) and not xp.isdtype(np.float32, np.float64)
    assert xp.isdtype(xp.float32, np.dtype("float32"))


# --- result_type ------------------------------------------------------------------------------

@pytest.mark.parametrize("a", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("b", ALL_DTYPES, ids=str)
def test_result_type_pairs(a, b):
    expected = spec_promote(a, b)
    got = xp.result_type(a, b)
    if expected is not None:
        assert got is expected
    assert xp.result_type(b, a) is got
    assert xp.result_type(xp.empty(1, dtype=a), b) is got


def test_result_type_mixed_kinds_follow_pytorch():
    assert xp.result_type(xp.int64, xp.float16) is xp.float16
    assert xp.result_type(xp.bool, xp.int8) is xp.int8
    assert xp.result_type(xp.uint8, xp.complex64) is xp.complex64


@pytest.mark.parametrize("dtype,scalar,expected", [
    ("int8", 1, "int8"), ("uint8", True, "uint8"), ("float16", 1.0, "float16"), ("float16", 1, "float16"),
    ("float32", 1j, "complex64"), ("float64", 1j, "complex128"), ("bool", True, "bool"),
    ("int16", 1.0, "float32"), ("bool", 1, "int64"), ("complex64", 2.5, "complex64"),
])
def test_result_type_with_python_scalars(dtype, scalar, expected):
    d = getattr(xp, dtype)
    assert xp.result_type(d, scalar) is getattr(xp, expected)
    assert xp.result_type(scalar, xp.empty(2, dtype=d)) is getattr(xp, expected)


def test_result_type_scalars_apply_after_arrays():
    # int8 and int16 promote first; the weak scalar then keeps int16
    assert xp.result_type(1, xp.int8, xp.int16) is xp.int16
    assert xp.result_type(xp.int8, 1.0, 1j) is xp.complex64
    assert xp.result_type(xp.float32) is xp.float32


def test_result_type_errors(sim):
    with pytest.raises(ValueError, match="at least one"):
        xp.result_type()
    with pytest.raises(ValueError, match="at least one"):
        xp.result_type(1, 2.0)
    with pytest.raises(TypeError, match="result_type"):
        xp.result_type(xp.int8, None)
    with pytest.raises(TypeError, match="result_type"):
        xp.result_type(xp.int8, [1])
    with pytest.raises(ValueError, match="different devices"):
        xp.result_type(xp.ones(1), xp.ones(1, device=sim))


@pytest.mark.parametrize("func", ["all", "any"])
@pytest.mark.parametrize("n", [1, 7, 1000, 300_000])  # (the last: past the thread pool's split)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_all_any_both_sides_of_the_direct_call(func, n, axis):
    # Small host arrays call NumPy's ufunc reduction directly (utility._logical); large ones
    # go through large_reduce. Both are NumPy's any/all: values, dtype, shape, keepdims.
    rng = np.random.default_rng(n)
    for ref in (rng.random((2, n)) > 0.999, np.where(rng.random((2, n)) > 0.5, np.nan, 0.0),
                (rng.random((2, n)) * 3).astype(np.int8)):
        x = xp.asarray(ref)
        for keepdims in (False, True):
            for v, r in ((x, ref), (x[:, ::-1], ref[:, ::-1])):
                got = getattr(xp, func)(v, axis=axis, keepdims=keepdims)
                assert_same(got, np.asarray(getattr(np, func)(r, axis=axis, keepdims=keepdims)))
