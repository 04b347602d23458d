"""Searching functions, checked against NumPy.

Every function runs on contiguous, strided, negative-stride and transposed
inputs, on 0-d and empty arrays where allowed, and every error path is
checked. Index results are int64.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strided as xp

from conftest import LAYOUTS, assert_same, layout, layouts, to_np

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

REAL = [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64, np.float16, np.float32,
        np.float64]


def ref_array(shape, dtype=np.float64, seed=0, lo=-5, hi=5):
    rng = np.random.default_rng(seed)
    kind = np.dtype(dtype).kind
    if kind == "b":
        return rng.random(shape) > 0.5
    if kind == "u":
        lo = 0
    v = rng.integers(lo, hi, shape).astype(dtype)
    if kind == "c":
        v = v + 1j * rng.integers(lo, hi, shape).astype(dtype)
    return v


def index(ref) -> np.ndarray:
    return np.asarray(ref).astype(np.int64)


# --- argmax / argmin ---------------------------------------------------------------

@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_argmin_match_numpy(func, name, axis, keepdims):
    ref = ref_array((3, 4, 5), np.int16)  # few distinct values: ties pick the first
    x = layout(ref, name)
    out = getattr(xp, func)(x, axis=axis, keepdims=keepdims)
    assert_same(out, index(getattr(np, func)(ref, axis=axis, keepdims=keepdims)))


@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", REAL)
def test_argmax_argmin_dtypes(func, dtype):
    ref = ref_array((4, 6), dtype, seed=3, lo=-100, hi=100)
    for axis in (None, 0, 1):
        out = getattr(xp, func)(xp.asarray(ref), axis=axis)
        assert_same(out, index(getattr(np, func)(ref, axis=axis)))


@pytest.mark.parametrize("func", ["argmax", "argmin"])
def test_argmax_argmin_nan_is_the_first_extreme(func):
    ref = np.array([[1.0, np.nan, 3.0, np.nan], [5.0, 2.0, -np.inf, np.inf]], np.float32)
    for axis in (None, 0, 1):
        out = getattr(xp, func)(xp.asarray(ref), axis=axis)
        assert_same(out, index(getattr(np, func)(ref, axis=axis)))
    assert getattr(xp, func)(xp.asarray(ref)).item() == 1


@pytest.mark.parametrize("func", ["argmax", "argmin"])
def test_argmax_argmin_0d_and_empty_other_axes(func):
    f = getattr(xp, func)
    for kw in ({}, {"axis": 0}, {"keepdims": True}, {"axis": 0, "keepdims": True}):
        assert_same(f(xp.asarray(3.0), **kw), np.array(0, np.int64))
    ref = np.zeros((0, 3))
    assert_same(f(xp.asarray(ref), axis=1), np.zeros((0,), np.int64))
    assert_same(f(xp.asarray(ref), axis=1, keepdims=True), np.zeros((0, 1), np.int64))


@pytest.mark.parametrize("func", ["argmax", "argmin"])
def test_argmax_argmin_out_and_positional_axis(func):
    ref = ref_array((3, 4))
    o = xp.empty((3,), dtype=xp.int64)
    assert getattr(xp, func)(xp.asarray(ref), axis=1, out=o) is o
    np.testing.assert_array_equal(to_np(o), getattr(np, func)(ref, axis=1))
    assert_same(getattr(xp, func)(xp.asarray(ref), 0), index(getattr(np, func)(ref, 0)))


@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("x, kw, exc", [
    (np.zeros((0,)), {}, ValueError),
    (np.zeros((2, 0)), {"axis": 1}, ValueError),
    (np.zeros((2, 3)), {"axis": 2}, IndexError),
    (np.zeros((2, 3)), {"axis": -3}, IndexError),
    (np.zeros(3, bool), {}, TypeError),
    (np.zeros(3, np.complex64), {}, TypeError),
])
def test_argmax_argmin_errors(func, x, kw, exc):
    with pytest.raises(exc):
        getattr(xp, func)(xp.asarray(x), **kw)


def test_argmax_argmin_reject_non_arrays():
    with pytest.raises(TypeError):
        xp.argmax([1, 2, 3])


# --- count_nonzero -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float32, np.complex64])
@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (), (2, 1, 0)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_count_nonzero_matches_numpy(dtype, name, axis, keepdims):
    ref = ref_array((3, 4, 2), dtype, lo=-1, hi=2)
    x = layout(ref, name)
    out = xp.count_nonzero(x, axis=axis, keepdims=keepdims)
    assert_same(out, index(np.count_nonzero(ref, axis=axis, keepdims=keepdims)))


def test_count_nonzero_complex_counts_either_part():
    ref = np.array([0, 1j, 1, 0j, -0.0 + 0j, 1 + 1j], np.complex128)
    assert xp.count_nonzero(xp.asarray(ref)).item() == 3


def test_count_nonzero_0d_empty_out():
    assert_same(xp.count_nonzero(xp.asarray(2.0)), np.array(1, np.int64))
    assert_same(xp.count_nonzero(xp.asarray(0)), np.array(0, np.int64))
    for axis in (0, (0,), ()):
        assert_same(xp.count_nonzero(xp.asarray(2.0), axis=axis), np.array(1, np.int64))
        assert_same(xp.count_nonzero(xp.asarray(0.0), axis=axis, keepdims=True), np.array(0, np.int64))
    assert_same(xp.count_nonzero(xp.zeros((0, 3)), axis=0), np.zeros(3, np.int64))
    assert_same(xp.count_nonzero(xp.zeros((0, 3))), np.array(0, np.int64))
    o = xp.empty((1, 1), dtype=xp.int64)
    assert xp.count_nonzero(xp.ones((2, 2)), keepdims=True, out=o) is o
    assert o.tolist() == [[4]]


@pytest.mark.parametrize("axis, exc", [(3, IndexError), ((0, 0), ValueError), (1.0, TypeError)])
def test_count_nonzero_errors(axis, exc):
    with pytest.raises(exc):
        xp.count_nonzero(xp.zeros((2, 3, 4)), axis=axis)


# --- nonzero ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8, np.float64, np.complex64])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4), (0, 3)])
def test_nonzero_matches_numpy(dtype, shape):
    ref = ref_array(shape, dtype, lo=-1, hi=2)
    expected = np.nonzero(ref)
    for x in layouts(ref).values():
        out = xp.nonzero(x)
        assert isinstance(out, tuple) and len(out) == len(expected)
        for o, e in zip(out, expected):
            assert_same(o, index(e))
            assert o.is_contiguous()


def test_nonzero_results_own_their_memory():
    a, b = xp.nonzero(xp.asarray(np.eye(3)))
    a[...] = -1
    assert b.tolist() == [0, 1, 2]


def test_nonzero_0d_raises():
    with pytest.raises(ValueError):
        xp.nonzero(xp.asarray(1.0))
    with pytest.raises(TypeError):
        xp.nonzero(np.ones(3))


# --- searchsorted -------------------------------------------------------------------

@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", REAL)
def test_searchsorted_matches_numpy(side, dtype):
    x1 = np.sort(ref_array((9,), dtype, seed=1, lo=-10, hi=10))
    x2 = ref_array((3, 4), dtype, seed=2, lo=-12, hi=12)
    out = xp.searchsorted(xp.asarray(x1), xp.asarray(x2), side=side)
    assert_same(out, index(np.searchsorted(x1, x2, side=side)))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_noncontiguous_inputs_and_sorter(side):
    x1 = ref_array((8,), np.float32, seed=4, lo=-4, hi=4)
    order = np.argsort(x1, kind="stable")
    sorted_x1 = x1[order]
    x2 = ref_array((5, 3), np.float32, seed=5, lo=-6, hi=6)
    ref = index(np.searchsorted(sorted_x1, x2, side=side))
    for s1 in layouts(sorted_x1).values():
        for s2 in layouts(x2).values():
            assert_same(xp.searchsorted(s1, s2, side=side), ref)
    for sx in layouts(x1).values():
        for so in layouts(order).values():
            assert_same(xp.searchsorted(sx, xp.asarray(x2), side=side, sorter=so),
                        index(np.searchsorted(x1, x2, side=side, sorter=order)))


def test_searchsorted_scalars():
    x1 = xp.asarray([1, 3, 3, 5], dtype=xp.int16)
    assert_same(xp.searchsorted(x1, 3), np.array(1, np.int64))
    assert_same(xp.searchsorted(x1, 3, side="right"), np.array(3, np.int64))
    assert xp.searchsorted(x1, 3.5).item() == 3
    assert xp.searchsorted(x1, 2.9999999).item() == 1
    # an int array against a float compares exactly (in float32, 16777216.5 would round down)
    big = xp.asarray([16777216, 16777217], dtype=xp.int32)
    assert xp.searchsorted(big, 16777216.5).item() == 1
    assert xp.searchsorted(x1, -(2 ** 40)).item() == 0
    assert xp.searchsorted(x1, 2 ** 40, side="right").item() == 4
    u = xp.asarray([0, 7, 255], dtype=xp.uint8)
    assert xp.searchsorted(u, -1).item() == 0
    assert xp.searchsorted(u, 300, side="left").item() == 3
    assert xp.searchsorted(u, 255, side="right").item() == 3
    f = xp.asarray([0.5, 1.5, 2.5])
    assert xp.searchsorted(f, 1).item() == 1
    assert xp.searchsorted(f, True).item() == 1
    assert xp.searchsorted(f, 1.5, side="right").item() == 2


def test_searchsorted_mixed_dtypes_promote():
    x1 = xp.asarray([1, 2, 3], dtype=xp.int32)
    x2 = xp.asarray([1.5, 2.0, 3.5], dtype=xp.float64)
    assert_same(xp.searchsorted(x1, x2), np.array([1, 1, 3], np.int64))


def test_searchsorted_empty_and_out():
    assert_same(xp.searchsorted(xp.zeros(0), xp.asarray([1.0, 2.0])), np.zeros(2, np.int64))
    assert_same(xp.searchsorted(xp.asarray([1.0]), xp.zeros((0, 2))), np.zeros((0, 2), np.int64))
    o = xp.empty((2,), dtype=xp.int64)
    assert xp.searchsorted(xp.asarray([1.0, 2.0]), xp.asarray([1.5, 9.0]), out=o) is o
    assert o.tolist() == [1, 2]


def test_searchsorted_nan_sorts_last_like_sort():
    x1 = np.array([1.0, 2.0, np.nan])
    x2 = np.array([np.nan, 3.0, 0.0])
    for side in ("left", "right"):
        assert_same(xp.searchsorted(xp.asarray(x1), xp.asarray(x2), side=side),
                    index(np.searchsorted(x1, x2, side=side)))


@pytest.mark.parametrize("x1, x2, kw, exc", [
    (np.zeros((2, 2)), np.zeros(2), {}, ValueError),
    (np.zeros(()), np.zeros(2), {}, ValueError),
    (np.zeros(3), np.zeros(2), {"side": "middle"}, ValueError),
    (np.zeros(3, np.complex64), np.zeros(2, np.complex64), {}, TypeError),
    (np.zeros(3, bool), np.zeros(2, bool), {}, TypeError),
    (np.zeros(3), np.zeros(2, np.complex64), {}, TypeError),
    (np.zeros(3), 1j, {}, TypeError),
    (np.zeros(3), "a", {}, TypeError),
    (np.zeros(3), np.zeros(2), {"sorter": np.zeros(2, np.int64)}, ValueError),
    (np.zeros(3), np.zeros(2), {"sorter": np.zeros(3, np.float32)}, TypeError),
])
def test_searchsorted_errors(x1, x2, kw, exc):
    kw = {k: xp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    x2 = xp.asarray(x2) if isinstance(x2, np.ndarray) else x2
    with pytest.raises(exc):
        xp.searchsorted(xp.asarray(x1), x2, **kw)


@pytest.mark.parametrize("sorter", [[0, 1, 3], [0, -1, 2]])
def test_searchsorted_checks_the_sorter_bounds_on_the_cpu(sorter):
    # Checked on the CPU only, as take() is: on a GPU the check would copy to the host
    # on every call (CuPy applies the sorter with take, which wraps around).
    with pytest.raises(ValueError, match="sorter"):
        xp.searchsorted(xp.zeros(3, device="cpu"), xp.zeros(2, device="cpu"),
                        sorter=xp.asarray(sorter, device="cpu"))


def test_searchsorted_devices(sim):
    x1 = xp.asarray([1.0, 2.0, 3.0], device=sim)
    out = xp.searchsorted(x1, xp.asarray([2.5], device=sim))
    assert out.device == sim and out.tolist() == [2]
    assert xp.searchsorted(x1, 2.5).device == sim
    assert xp.searchsorted(xp.asarray([1, 2], dtype=xp.uint8, device=sim), -3).device == sim
    with pytest.raises(ValueError, match="devices"):
        xp.searchsorted(x1, xp.asarray([2.5]))
    with pytest.raises(ValueError, match="devices"):
        xp.searchsorted(x1, xp.asarray([2.5], device=sim), sorter=xp.asarray([0, 1, 2]))


# --- where ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("shapes", [
    ((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((1, 4), (3, 1), ()), ((), (2, 3), (3,)),
    ((0, 4), (4,), (1, 1)), ((2, 1, 4), (3, 1), (1, 3, 4)),
])
def test_where_matches_numpy(name, shapes):
    cond = ref_array(shapes[0], np.bool_, seed=1)
    a = ref_array(shapes[1], np.float64, seed=2)
    b = ref_array(shapes[2], np.float64, seed=3)
    args = [layouts(r).get(name, xp.asarray(r.copy())) for r in (cond, a, b)]
    assert_same(xp.where(*args), np.where(cond, a, b))


@pytest.mark.parametrize("d1, d2, expected", [
    (np.int8, np.int16, np.int16), (np.uint8, np.int8, np.int16), (np.bool_, np.int32, np.int32),
    (np.float32, np.float64, np.float64), (np.int64, np.float32, np.float32),
    (np.float32, np.complex64, np.complex64), (np.float64, np.complex64, np.complex128),
    (np.bool_, np.bool_, np.bool_),
])
def test_where_promotes_arrays(d1, d2, expected):
    cond = np.array([True, False, True])
    a = np.array([1, 0, 1]).astype(d1)
    b = np.array([0, 1, 1]).astype(d2)
    out = xp.where(xp.asarray(cond), xp.asarray(a), xp.asarray(b))
    assert_same(out, np.where(cond, a.astype(expected), b.astype(expected)))


@pytest.mark.parametrize("dtype, scalar, expected", [
    (np.int8, 5, np.int8), (np.int8, -128, np.int8), (np.uint8, True, np.uint8),
    (np.float16, 2.5, np.float16), (np.int32, 2.5, np.float32), (np.bool_, 3, np.int64),
    (np.bool_, False, np.bool_), (np.float32, 1j, np.complex64), (np.float64, 1 + 2j, np.complex128),
    (np.int16, 1j, np.complex64), (np.float32, float("nan"), np.float32),
    (np.complex128, 2, np.complex128),
])
def test_where_python_scalars(dtype, scalar, expected):
    cond = np.array([[True, False], [False, True]])
    a = ref_array((2, 2), dtype, seed=7)
    out = xp.where(xp.asarray(cond), xp.asarray(a), scalar)
    assert_same(out, np.where(cond, a.astype(expected), np.asarray(scalar, expected)))
    out = xp.where(xp.asarray(cond), scalar, xp.asarray(a))
    assert_same(out, np.where(cond, np.asarray(scalar, expected), a.astype(expected)))


def test_where_0d_empty_and_out():
    assert_same(xp.where(xp.asarray(True), xp.asarray(1.0), xp.asarray(2.0)), np.array(1.0, np.float32))
    assert_same(xp.where(xp.asarray(False), 1, xp.asarray(2)), np.array(2, np.int64))
    assert_same(xp.where(xp.zeros((0,), dtype=xp.bool), 1.0, xp.zeros((3, 1))), np.zeros((3, 0), np.float32))
    base = xp.zeros((2, 4), dtype=xp.float64)
    o = base[:, ::2]
    r = xp.where(xp.asarray([True, False]), xp.asarray([[1.0], [2.0]]), -1.0, out=o)
    assert r is o
    np.testing.assert_array_equal(to_np(base), [[1, 0, -1, 0], [2, 0, -1, 0]])


def test_where_result_is_a_copy():
    a = xp.asarray([1.0, 2.0])
    out = xp.where(xp.asarray([True, True]), a, 0.0)
    out[0] = 9.0
    assert a.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("cond, x1, x2, exc", [
    (np.array([1, 0]), np.zeros(2), np.zeros(2), TypeError),
    ([True, False], np.zeros(2), np.zeros(2), TypeError),
    (np.array([True]), 1, 2.0, TypeError),
    (np.array([True]), "a", np.zeros(1), TypeError),
    (np.array([True]), np.zeros(1), None, TypeError),
    (np.array([True, False]), np.zeros(3), np.zeros(2), ValueError),
    (np.array([True, False, True]), np.zeros((2, 1)), np.zeros(2), ValueError),
    (np.array([True]), np.zeros(1, np.int8), 300, OverflowError),
    (np.array([True]), -1, np.zeros(1, np.uint8), OverflowError),
])
def test_where_errors(cond, x1, x2, exc):
    args = [xp.asarray(v) if isinstance(v, np.ndarray) else v for v in (cond, x1, x2)]
    with pytest.raises(exc):
        xp.where(*args)


def test_where_devices(sim):
    c = xp.asarray([True, False], device=sim)
    out = xp.where(c, xp.asarray([1, 2], device=sim), 0)
    assert out.device == sim and out.tolist() == [1, 0]
    with pytest.raises(ValueError, match="devices"):
        xp.where(c, xp.asarray([1, 2]), 0)
    with pytest.raises(ValueError, match="devices"):
        xp.where(xp.asarray([True, False]), xp.asarray([1, 2], device=sim), 0)


def test_where_method():
    x = xp.asarray([1.0, 2.0, 3.0])
    assert x.where(x > 1.5, 0.0).tolist() == [0.0, 2.0, 3.0]


# --- properties over random shapes and layouts -----------------------------------------

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _draw_layout(data, ref):
    arrays = layouts(ref)
    return arrays[data.draw(st.sampled_from(sorted(arrays)), label="layout")]


@SETTINGS
@given(shape=shapes.filter(lambda s: 0 not in s), data=st.data())
def test_arg_property(shape, data):
    ref = ref_array(shape, np.float32, seed=data.draw(st.integers(0, 99)), lo=-3, hi=3)
    if ref.size and data.draw(st.booleans(), label="nan"):
        ref.flat[data.draw(st.integers(0, ref.size - 1))] = np.nan
    x = _draw_layout(data, ref)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    keepdims = data.draw(st.booleans())
    for func in ("argmax", "argmin"):
        assert_same(getattr(xp, func)(x, axis=axis, keepdims=keepdims),
                    index(getattr(np, func)(ref, axis=axis, keepdims=keepdims)))


@SETTINGS
@given(data=st.data())
def test_where_property(data):
    shape = data.draw(shapes, label="shape")
    cut = [data.draw(st.integers(0, len(shape))) for _ in range(3)]
    subs = [tuple(1 if data.draw(st.booleans()) else n for n in shape[c:]) for c in cut]
    cond = ref_array(subs[0], np.bool_, seed=1)
    a = ref_array(subs[1], np.int32, seed=2)
    b = ref_array(subs[2], np.int32, seed=3)
    args = [_draw_layout(data, r) for r in (cond, a, b)]
    assert_same(xp.where(*args), np.where(cond, a, b))


@SETTINGS
@given(shape=shapes.filter(lambda s: len(s) >= 1), data=st.data())
def test_nonzero_count_property(shape, data):
    ref = ref_array(shape, np.int8, seed=data.draw(st.integers(0, 99)), lo=-1, hi=2)
    x = _draw_layout(data, ref)
    for o, e in zip(xp.nonzero(x), np.nonzero(ref)):
        assert_same(o, index(e))
    axes = data.draw(st.none() | st.lists(st.integers(0, len(shape) - 1), unique=True).map(tuple))
    assert_same(xp.count_nonzero(x, axis=axes), index(np.count_nonzero(ref, axis=axes)))
