"""sort/argsort and the set functions against independent references:
Python's stable ``sorted`` (whose ``reverse=True`` keeps ties in order) and
NumPy's ``unique``/``isin``, on strided, 0-d and empty inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp

from conftest import assert_same, to_np


def _key(v):
    # NaN sorts as larger than every number (last ascending, first descending).
    return (1, 0.0) if v != v else (0, v)


def ref_argsort(ref: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort along ``axis`` by Python's sorted()."""
    moved = np.moveaxis(ref, axis, -1)
    out = np.empty(moved.shape, dtype=np.int64)
    for idx in np.ndindex(moved.shape[:-1]):
        row = moved[idx].tolist()
        out[idx] = sorted(range(len(row)), key=lambda i: _key(row[i]), reverse=descending)
    return np.moveaxis(out, -1, axis)


def views(ref: np.ndarray):
    x = xp.asarray(ref.copy())
    yield x, ref
    if ref.ndim >= 1:
        yield xp.flip(x, axis=-1), np.flip(ref, -1)
        yield x[::-2], ref[::-2]
    if ref.ndim >= 2:
        yield xp.permute_dims(x, (1, 0) + tuple(range(2, ref.ndim))), np.swapaxes(ref, 0, 1)


def ties(shape, dtype=np.int16, seed=0):
    return np.random.default_rng(seed).integers(0, 4, size=shape).astype(dtype)


# --- sort / argsort ------------------------------------------------------------------

@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argsort_is_stable_both_ways(descending, axis):
    for x, ref in views(ties((6, 7, 3))):
        r = xp.argsort(x, axis=axis, descending=descending)
        assert_same(r, ref_argsort(ref, axis, descending))


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [0, -1])
def test_sort_values(descending, axis):
    for dtype in (np.float32, np.int8, np.uint64, np.bool_):
        for x, ref in views(ties((5, 8), dtype, seed=1)):
            order = ref_argsort(ref, axis, descending)
            assert_same(xp.sort(x, axis=axis, descending=descending),
                        np.take_along_axis(ref, order, axis=axis))


@pytest.mark.parametrize("descending", [False, True])
def test_nan_sorts_as_largest(descending):
    ref = np.array([2.0, np.nan, -1.0, np.nan, np.inf, -np.inf])
    x = xp.asarray(ref)
    order = ref_argsort(ref, 0, descending)
    assert_same(xp.argsort(x, descending=descending), order)
    np.testing.assert_array_equal(to_np(xp.sort(x, descending=descending)), ref[order])
    nan_at = np.isnan(to_np(xp.sort(x, descending=descending)))
    assert nan_at.tolist() == ([True, True] + [False] * 4 if descending else [False] * 4 + [True, True])


def test_descending_sort_keeps_signed_zeros_in_order():
    ref = np.array([-0.0, 1.0, 0.0, -0.0])
    r = to_np(xp.sort(xp.asarray(ref), descending=True))
    assert np.signbit(r).tolist() == [False, True, False, True]  # 1, -0, +0, -0
    assert xp.argsort(xp.asarray(ref), descending=True).tolist() == [1, 0, 2, 3]


@pytest.mark.parametrize("descending", [False, True])
def test_unstable_sort_is_still_a_sort(descending):
    ref = ties((200,), np.int64, seed=3)
    r = to_np(xp.argsort(xp.asarray(ref), descending=descending, stable=False))
    assert sorted(r.tolist()) == list(range(200))
    vals = ref[r]
    assert (np.diff(vals) <= 0).all() if descending else (np.diff(vals) >= 0).all()
    s = to_np(xp.sort(xp.asarray(ref), descending=descending, stable=False))
    np.testing.assert_array_equal(s, vals)


def test_sort_0d_and_empty():
    assert_same(xp.sort(xp.asarray(np.float32(2.0))), np.array(2.0, np.float32))
    assert_same(xp.argsort(xp.asarray(np.float32(2.0))), np.array(0))
    assert_same(xp.sort(xp.asarray(np.zeros((3, 0)))), np.zeros((3, 0)))
    assert_same(xp.argsort(xp.asarray(np.zeros((0, 2))), axis=0, descending=True), np.zeros((0, 2), np.int64))


def test_sort_returns_a_copy():
    ref = np.array([3, 1, 2])
    x = xp.asarray(ref.copy())
    s = xp.sort(x)
    s[0] = 100
    assert x.tolist() == [3, 1, 2]


@pytest.mark.parametrize("func", ["sort", "argsort"])
def test_sort_errors(func):
    f = getattr(xp, func)
    with pytest.raises(TypeError, match="real-valued"):
        f(xp.asarray(np.ones(3, np.complex64)))
    with pytest.raises(IndexError, match="out of bounds"):
        f(xp.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match="axis must be an int"):
        f(xp.ones((2, 3)), axis=(0,))
    with pytest.raises(TypeError, match="strided array"):
        f(np.ones(3))


def test_sort_out():
    out = xp.empty((2, 3), dtype=xp.int64)
    x = xp.asarray([[3, 1, 2], [0, 5, 4]])
    assert xp.argsort(x, out=out) is out
    assert out.tolist() == [[1, 2, 0], [0, 2, 1]]
    assert xp.sort(x, descending=True, out=out) is out
    assert out.tolist() == [[3, 2, 1], [5, 4, 0]]
    with pytest.raises(ValueError, match="shape"):
        xp.sort(x, out=xp.empty(6, dtype=xp.int64))


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                  elements=st.sampled_from([0.5, 1.0, 2.0, -3.0, math.inf, math.nan])),
       st.booleans(), st.integers(0, 2), st.booleans())
def test_argsort_property(ref, descending, axis, flip):
    axis = axis % ref.ndim
    x = xp.asarray(ref.copy())
    if flip:
        x, ref = xp.flip(x, axis=0), np.flip(ref, 0)
    assert_same(xp.argsort(x, axis=axis, descending=descending), ref_argsort(ref, axis, descending))


# --- unique_* -------------------------------------------------------------------------

def test_unique_all_matches_numpy():
    ref = ties((4, 5), np.int32, seed=5)
    for x, r in views(ref):
        out = xp.unique_all(x)
        assert out._fields == ("values", "indices", "inverse_indices", "counts")
        v, i, inv, c = np.unique(r.reshape(-1), return_index=True, return_inverse=True, return_counts=True)
        assert_same(out.values, v)
        assert_same(out.indices, i.astype(np.int64))
        assert_same(out.inverse_indices, inv.reshape(r.shape).astype(np.int64))
        assert_same(out.counts, c.astype(np.int64))
        # values[inverse_indices] rebuilds x
        np.testing.assert_array_equal(to_np(out.values)[to_np(out.inverse_indices)], r)


def test_unique_nans_are_distinct_and_signed_zeros_equal():
    ref = np.array([np.nan, 0.0, -0.0, 1.0, np.nan, 1.0], dtype=np.float32)
    out = xp.unique_all(xp.asarray(ref))
    vals = to_np(out.values)
    assert np.isnan(vals).sum() == 2
    assert vals[~np.isnan(vals)].tolist() == [0.0, 1.0]
    counts = dict(zip(map(float, vals), to_np(out.counts).tolist()))
    assert counts[0.0] == 2 and counts[1.0] == 2
    assert to_np(out.counts)[np.isnan(vals)].tolist() == [1, 1]
    # first occurrences of the NaNs and of 0.0
    nan_idx = to_np(out.indices)[np.isnan(vals)]
    assert sorted(nan_idx.tolist()) == [0, 4]
    assert to_np(out.indices)[vals == 0.0].tolist() == [1]
    rebuilt = vals[to_np(out.inverse_indices)]
    np.testing.assert_array_equal(np.isnan(rebuilt), np.isnan(ref))
    assert xp.unique_values(xp.asarray(ref)).shape == (4,)
    assert xp.unique_counts(xp.asarray(ref)).counts.tolist().count(1) == 2


def test_unique_complex_nans_distinct():
    ref = np.array([complex(np.nan, 0), 1 + 1j, complex(0, np.nan), 1 + 1j], dtype=np.complex128)
    out = xp.unique_counts(xp.asarray(ref))
    vals = to_np(out.values)
    assert len(vals) == 3 and sorted(to_np(out.counts).tolist()) == [1, 1, 2]


def test_unique_inverse_keeps_shape_and_dtypes():
    ref = np.array([[True, False], [True, True]])
    out = xp.unique_inverse(xp.asarray(ref))
    assert out._fields == ("values", "inverse_indices")
    assert_same(out.values, np.array([False, True]))
    assert_same(out.inverse_indices, np.array([[1, 0], [1, 1]], dtype=np.int64))


def test_unique_0d_and_empty():
    out = xp.unique_all(xp.asarray(np.float64(4.0)))
    assert_same(out.values, np.array([4.0]))
    assert_same(out.inverse_indices, np.array(0, dtype=np.int64))
    out = xp.unique_all(xp.asarray(np.zeros((2, 0), np.int8)))
    assert_same(out.values, np.zeros(0, np.int8))
    assert_same(out.indices, np.zeros(0, np.int64))
    assert_same(out.inverse_indices, np.zeros((2, 0), np.int64))
    assert_same(out.counts, np.zeros(0, np.int64))


@pytest.mark.parametrize("func", ["unique_all", "unique_counts", "unique_inverse", "unique_values"])
def test_unique_rejects_non_arrays(func):
    with pytest.raises(TypeError, match=f"{func}.*strided array"):
        getattr(xp, func)([1, 2])


def test_unique_values_out():
    out = xp.empty(2, dtype=xp.int64)
    assert xp.unique_values(xp.asarray([5, 1, 5]), out=out) is out
    assert out.tolist() == [1, 5]


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.int8, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5), elements=st.integers(-3, 3)))
def test_unique_property(ref):
    out = xp.unique_all(xp.asarray(ref))
    flat = ref.reshape(-1)
    assert to_np(out.values).tolist() == sorted(set(flat.tolist()))
    assert to_np(out.counts).tolist() == [int((flat == v).sum()) for v in to_np(out.values)]
    assert to_np(out.indices).tolist() == [int(np.argmax(flat == v)) for v in to_np(out.values)]
    np.testing.assert_array_equal(to_np(out.values)[to_np(out.inverse_indices)], ref)


# --- isin ---------------------------------------------------------------------------------

@pytest.mark.parametrize("invert", [False, True])
def test_isin_matches_numpy(invert):
    a = ties((4, 6), np.int32, seed=7)
    b = np.array([1, 3, 9], dtype=np.int64)
    for x, ref in views(a):
        assert_same(xp.isin(x, xp.asarray(b), invert=invert), np.isin(ref, b, invert=invert))
        assert_same(xp.isin(x, xp.flip(xp.asarray(b), axis=0)[::2], invert=invert),
                    np.isin(ref, b[::-2], invert=invert))


def test_isin_python_scalars():
    x = xp.asarray(np.array([1, 2, 3], dtype=np.uint8))
    assert xp.isin(x, 2).tolist() == [False, True, False]
    assert xp.isin(x, 2, invert=True).tolist() == [True, False, True]
    assert_same(xp.isin(2, x), np.array(True))
    assert_same(xp.isin(7, x, invert=True), np.array(True))
    # ints outside the array's dtype match nothing (no overflow, no wraparound)
    assert xp.isin(x, 258).tolist() == [False, False, False]
    assert xp.isin(x, -1, invert=True).tolist() == [True, True, True]
    big = xp.asarray(np.array([2**64 - 1, 5], dtype=np.uint64))
    assert xp.isin(big, 2**64 - 1).tolist() == [True, False]
    assert xp.isin(xp.asarray([1.5, 2.0]), 2).tolist() == [False, True]


def test_isin_0d_and_empty():
    assert_same(xp.isin(xp.asarray(np.int64(3)), xp.asarray([1, 3])), np.array(True))
    assert_same(xp.isin(xp.asarray(np.zeros((0, 2), np.int64)), xp.asarray([1])), np.zeros((0, 2), bool))
    assert_same(xp.isin(xp.asarray([1, 2]), xp.asarray(np.zeros(0, np.int64))), np.array([False, False]))


def test_isin_errors(sim):
    with pytest.raises(TypeError, match="at least one"):
        xp.isin(1, 2)
    with pytest.raises(TypeError, match="x2 must be an array or a Python scalar"):
        xp.isin(xp.asarray([1]), [1, 2])
    with pytest.raises(TypeError, match="real-valued"):
        xp.isin(xp.asarray([1j]), xp.asarray([1]))
    with pytest.raises(ValueError, match="different devices"):
        xp.isin(xp.asarray([1]), xp.asarray([1], device=sim))
