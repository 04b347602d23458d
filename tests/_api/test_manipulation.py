"""Manipulation functions, checked against NumPy.

Copies (concat, stack, roll, repeat, tile) must equal NumPy's result on
contiguous, strided, negative-stride, transposed, 0-d and empty inputs and
must not share memory with them; pieces (unstack, split, chunk, narrow) and
axis moves (movedim, swapdims) must be views of their input.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strided as xp

from conftest import LAYOUTS, assert_same, layout, layouts, shares_memory, to_np

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ref_array(shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) > 0.5
    return rng.integers(-50, 50, shape).astype(dtype)


def shares(a, b) -> bool:
    return a.storage() is b.storage()


def assert_copy(result, *inputs):
    """``result`` owns its memory: it overlaps none of ``inputs``."""
    for x in inputs:
        assert not shares_memory(result, x)


# --- concat / cat ------------------------------------------------------------------

@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("axis", [0, 1, -1, 2, -3, None])
def test_concat_matches_numpy(name, axis):
    r1, r2 = ref_array((2, 3, 4), seed=1), ref_array((2, 3, 4), seed=2)
    x1, x2 = layout(r1, name), layout(r2, "negative")
    out = xp.concat([x1, x2], axis=axis)
    assert_same(out, np.concatenate([r1, r2], axis=axis))
    assert_copy(out, x1, x2)


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_concat_unequal_lengths_and_empty(axis):
    shapes = [(2, 3), (0, 3), (4, 3)] if axis % 2 == 0 else [(2, 3), (2, 0), (2, 1)]
    refs = [ref_array(s, seed=i) for i, s in enumerate(shapes)]
    arrays = [xp.asarray(r.copy()) for r in refs]
    assert_same(xp.concat(arrays, axis=axis), np.concatenate(refs, axis=axis))


def test_concat_one_array_is_a_copy():
    x = xp.asarray(ref_array((3, 2)))
    out = xp.concat((x,))
    assert_same(out, to_np(x))
    assert not shares(out, x)


def test_concat_axis_none_flattens_any_shapes_and_0d():
    refs = [np.array(5.0), ref_array((2, 3)), ref_array((0, 4)), ref_array((3,))]
    arrays = [xp.asarray(refs[0])] + [layouts(r)["negative"] if r.size else xp.asarray(r)
                                      for r in refs[1:]]
    assert_same(xp.concat(arrays, axis=None), np.concatenate([r.ravel() for r in refs]))


@pytest.mark.parametrize("dts, expected", [
    ((xp.int8, xp.int16), xp.int16), ((xp.uint8, xp.int8), xp.int16),
    ((xp.bool, xp.int32), xp.int32), ((xp.float32, xp.float64), xp.float64),
    ((xp.int64, xp.float32), xp.float32),  # PyTorch's rule: integer with float gives the float
    ((xp.float32, xp.complex64, xp.int8), xp.complex64),
])
def test_concat_promotes(dts, expected):
    refs = [np.array([1, 0, 1]).astype(d._np) for d in dts]
    out = xp.concat([xp.asarray(r) for r in refs])
    assert out.dtype is expected
    np.testing.assert_array_equal(to_np(out), np.concatenate(refs).astype(expected._np))


def test_cat_is_concat_with_dim():
    r1, r2 = ref_array((2, 3), seed=1), ref_array((2, 2), seed=2)
    assert_same(xp.cat([xp.asarray(r1), xp.asarray(r2)], dim=1), np.concatenate([r1, r2], 1))
    assert_same(xp.cat((xp.asarray(r1), xp.asarray(r1))), np.concatenate([r1, r1]))


def test_concat_out():
    r1, r2 = ref_array((2, 3), seed=1), ref_array((1, 3), seed=2)
    base = xp.zeros((3, 6), dtype=xp.float64)
    out = base[:, ::2]
    res = xp.concat([xp.asarray(r1), xp.asarray(r2)], out=out)
    assert res is out
    np.testing.assert_array_equal(to_np(base)[:, ::2], np.concatenate([r1, r2]))
    np.testing.assert_array_equal(to_np(base)[:, 1::2], 0)
    with pytest.raises(ValueError):
        xp.concat([xp.asarray(r1)], out=xp.zeros((3, 3), dtype=xp.float64))


def test_concat_out_overlapping_an_input():
    r = ref_array((4,))
    base = xp.asarray(np.concatenate([r, np.zeros(4)]))
    xp.concat([base[:4], base[:4][::-1]], out=base)
    np.testing.assert_array_equal(to_np(base), np.concatenate([r, r[::-1]]))


@pytest.mark.parametrize("arrays, axis, exc", [
    ([], 0, ValueError),
    ("array", 0, TypeError),
    ([np.zeros(3)], 0, TypeError),
    ([(2, 3), (2,)], 0, ValueError),
    ([(2, 3), (2, 4)], 0, ValueError),
    ([(2, 3), (3, 3)], 1, ValueError),
    ([(2, 3), (2, 3)], 2, IndexError),
    ([(2, 3), (2, 3)], -3, IndexError),
    ([(), ()], 0, IndexError),
])
def test_concat_errors(arrays, axis, exc):
    if arrays == "array":
        arrays = xp.zeros((2, 3))
    else:
        arrays = [a if isinstance(a, np.ndarray) else xp.zeros(a) for a in arrays]
    with pytest.raises(exc):
        xp.concat(arrays, axis=axis)


def test_concat_and_stack_refuse_mixed_devices(sim):
    a = xp.zeros(3)
    b = xp.zeros(3, device=sim)
    for f in (xp.concat, xp.stack):
        with pytest.raises(ValueError, match="devices"):
            f([a, b])


def test_concat_on_another_device(sim):
    r1, r2 = ref_array((2,)), ref_array((3,), seed=1)
    out = xp.concat([xp.asarray(r1, device=sim), xp.asarray(r2, device=sim)])
    assert out.device == sim
    np.testing.assert_array_equal(out._host(), np.concatenate([r1, r2]))


# --- stack / unstack ---------------------------------------------------------------------

@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack_matches_numpy(name, axis):
    refs = [ref_array((2, 3), seed=i) for i in range(3)]
    arrays = [layout(refs[0], name), layout(refs[1], "negative"), xp.asarray(refs[2])]
    out = xp.stack(arrays, axis=axis)
    assert_same(out, np.stack(refs, axis=axis))
    assert_copy(out, *arrays)


def test_stack_0d_and_empty():
    assert_same(xp.stack([xp.asarray(1), xp.asarray(2)]), np.array([1, 2]))
    assert_same(xp.stack([xp.zeros((0, 2))] * 3, axis=1), np.zeros((0, 3, 2), np.float32))


def test_stack_promotes_and_out():
    a, b = xp.asarray([1, 2], dtype=xp.int8), xp.asarray([3.5, 4.5], dtype=xp.float32)
    out = xp.stack([a, b], axis=1)
    assert_same(out, np.array([[1, 3.5], [2, 4.5]], np.float32))
    o = xp.empty((2, 2), dtype=xp.float64)
    assert xp.stack([a, b], out=o) is o
    np.testing.assert_array_equal(to_np(o), [[1, 2], [3.5, 4.5]])


@pytest.mark.parametrize("arrays, axis, exc", [
    ([], 0, ValueError),
    ([(2, 3), (3, 2)], 0, ValueError),
    ([(2, 3), (2, 3)], 3, IndexError),
    ([(2, 3), (2, 3)], -4, IndexError),
])
def test_stack_errors(arrays, axis, exc):
    with pytest.raises(exc):
        xp.stack([xp.zeros(a) for a in arrays], axis=axis)


@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_unstack_views(name, axis):
    ref = ref_array((2, 3, 4))
    x = layout(ref, name)
    pieces = xp.unstack(x, axis=axis)
    assert isinstance(pieces, tuple)
    expected = [np.take(ref, i, axis=axis) for i in range(ref.shape[axis])]
    assert len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        assert_same(p, e)
        assert shares(p, x)


def test_unstack_writes_through_and_empty():
    x = xp.zeros((2, 3))
    xp.unstack(x, axis=1)[2][...] = 7.0
    np.testing.assert_array_equal(to_np(x)[:, 2], 7.0)
    assert xp.unstack(xp.zeros((0, 3))) == ()
    assert [p.shape for p in xp.unstack(xp.zeros((2, 0)))] == [(0,), (0,)]


def test_unstack_errors():
    with pytest.raises(IndexError):
        xp.unstack(xp.asarray(1.0))
    with pytest.raises(IndexError):
        xp.unstack(xp.zeros((2, 3)), axis=2)
    with pytest.raises(TypeError):
        xp.unstack(np.zeros(3))


# --- roll -------------------------------------------------------------------------------

ROLLS = [
    (1, None), (-4, None), (100, None), (0, None), (3, 0), (-1, 1), (7, -1),
    ((1, 2), (0, 1)), ((-2, 5, 1), (2, 0, 1)), (2, (0, 2)), ((1, 1), (1, 1)),
    ((1, -3), (-1, 2)), (13, (0, 1, 2)),
]


@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("shift, axis", ROLLS)
def test_roll_matches_numpy(name, shift, axis):
    ref = ref_array((3, 4, 5))
    x = layout(ref, name)
    out = xp.roll(x, shift, axis=axis)
    assert_same(out, np.roll(ref, shift, axis=axis))
    assert_copy(out, x)


def test_roll_0d_and_empty():
    assert_same(xp.roll(xp.asarray(3.0, dtype=xp.float64), 5), np.array(3.0))
    assert_same(xp.roll(xp.asarray(3.0, dtype=xp.float64), (), axis=()), np.array(3.0))
    ref = np.zeros((0, 3))
    assert_same(xp.roll(xp.asarray(ref), 2, axis=0), ref)
    assert_same(xp.roll(xp.asarray(ref), 2, axis=1), ref)
    assert_same(xp.roll(xp.asarray(ref), 2), ref)


def test_roll_positional_axis_and_out():
    ref = ref_array((2, 3))
    assert_same(xp.roll(xp.asarray(ref), 1, 1), np.roll(ref, 1, 1))
    o = xp.empty((2, 3), dtype=xp.float64)
    assert xp.roll(xp.asarray(ref), -1, axis=0, out=o) is o
    np.testing.assert_array_equal(to_np(o), np.roll(ref, -1, 0))


@pytest.mark.parametrize("shift, axis, exc", [
    ((1, 2), None, ValueError),
    ((1, 2), (0,), ValueError),
    (1, (0, 2), IndexError),
    (1, -3, IndexError),
    (1.5, 0, TypeError),
])
def test_roll_errors(shift, axis, exc):
    with pytest.raises(exc):
        xp.roll(xp.zeros((2, 3)), shift, axis=axis)


# --- repeat -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("repeats, axis", [
    (2, None), (3, 0), (1, 1), (0, -1), (2, 2), ([1, 0, 2], 1), ([2], 0), ([0, 3], 0),
    (list(range(24)), None), ([4], None),
])
def test_repeat_matches_numpy(name, repeats, axis):
    ref = ref_array((2, 3, 4))
    x = layout(ref, name)
    reps = repeats if isinstance(repeats, int) else xp.asarray(repeats)
    out = xp.repeat(x, reps, axis=axis)
    assert_same(out, np.repeat(ref, repeats, axis=axis))
    if out.size:
        assert_copy(out, x)


def test_repeat_int_one_is_a_copy_and_0d():
    x = xp.asarray(ref_array((2, 3)))
    out = xp.repeat(x, 1, axis=0)
    assert_same(out, to_np(x))
    assert not shares(out, x)
    assert_same(xp.repeat(xp.asarray(5), 3), np.array([5, 5, 5]))
    assert_same(xp.repeat(xp.asarray(5), xp.asarray([2], dtype=xp.int32)), np.array([5, 5]))


def test_repeat_repeats_dtypes_and_out():
    ref = ref_array((3,))
    for d in (xp.int8, xp.uint8, xp.int32, xp.int64, xp.uint64):
        assert_same(xp.repeat(xp.asarray(ref), xp.asarray([1, 2, 3], dtype=d)),
                    np.repeat(ref, [1, 2, 3]))
    o = xp.empty((6,), dtype=xp.float64)
    assert xp.repeat(xp.asarray(ref), 2, out=o) is o
    np.testing.assert_array_equal(to_np(o), np.repeat(ref, 2))


def test_repeat_on_another_device(sim):
    ref = ref_array((2, 3))
    x = xp.asarray(ref, device=sim)
    for counts, reps in ((2, 2), ([1, 0, 2], xp.asarray([1, 0, 2], device=sim))):
        out = xp.repeat(x, reps, axis=1)
        assert out.device == sim
        np.testing.assert_array_equal(out._host(), np.repeat(ref, counts, 1))
    with pytest.raises(ValueError, match="is on cpu but x is on sim"):
        xp.repeat(x, xp.asarray([1, 0, 2], device="cpu"), axis=1)


@pytest.mark.parametrize("repeats, axis, exc", [
    (-1, None, ValueError),
    ([1, -1, 1], 1, ValueError),
    ([1, 2], 1, ValueError),
    ([[1, 2, 3]], 1, ValueError),
    ([1.0, 2.0, 3.0], 1, TypeError),
    ([True, False, True], 1, TypeError),
    (True, 1, TypeError),
    (1.5, 1, TypeError),
    (2, 2, IndexError),
])
def test_repeat_errors(repeats, axis, exc):
    reps = xp.asarray(repeats) if isinstance(repeats, list) else repeats
    with pytest.raises(exc):
        xp.repeat(xp.zeros((2, 3)), reps, axis=axis)


# --- tile -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("reps", [(2,), (1, 3), (2, 1, 2), (2, 2, 1, 3), (0, 2), (1,), ()])
def test_tile_matches_numpy(name, reps):
    ref = ref_array((2, 3, 2))
    x = layout(ref, name)
    out = xp.tile(x, reps)
    assert_same(out, np.tile(ref, reps))
    if out.size:
        assert_copy(out, x)


def test_tile_0d_empty_int_and_out():
    assert_same(xp.tile(xp.asarray(4), (2, 3)), np.tile(np.array(4), (2, 3)))
    assert_same(xp.tile(xp.asarray(4), ()), np.array(4))
    assert_same(xp.tile(xp.zeros((0, 2), dtype=xp.float64), (3, 2)), np.zeros((0, 4)))
    assert_same(xp.tile(xp.asarray([1, 2]), 3), np.tile([1, 2], 3))
    o = xp.empty((2, 4), dtype=xp.int64)
    assert xp.tile(xp.asarray([1, 2]), (2, 2), out=o) is o
    np.testing.assert_array_equal(to_np(o), np.tile([1, 2], (2, 2)))


def test_tile_errors():
    with pytest.raises(ValueError):
        xp.tile(xp.zeros(3), (2, -1))
    with pytest.raises(TypeError):
        xp.tile(xp.zeros(3), (2.0,))
    with pytest.raises(TypeError):
        xp.tile(np.zeros(3), (2,))


# --- split / chunk / narrow (PyTorch) --------------------------------------------------------

def _sizes(pieces, dim):
    return [p.shape[dim] for p in pieces]


@pytest.mark.parametrize("name", LAYOUTS)
def test_split_int_and_sections_are_views(name):
    ref = ref_array((5, 4))
    x = layout(ref, name)
    pieces = xp.split(x, 2)
    assert _sizes(pieces, 0) == [2, 2, 1]
    for p, e in zip(pieces, [ref[0:2], ref[2:4], ref[4:5]]):
        assert_same(p, e)
        assert shares(p, x)
    pieces = xp.split(x, [1, 0, 3], dim=-1)
    for p, e in zip(pieces, [ref[:, 0:1], ref[:, 1:1], ref[:, 1:4]]):
        assert_same(p, e)
        assert shares(p, x)
    assert _sizes(xp.split(x, 7, 1), 1) == [4]
    assert _sizes(xp.split(x, 4, axis=1), 1) == [4]


def test_split_empty_dimension():
    x = xp.zeros((0, 3))
    assert _sizes(xp.split(x, 2), 0) == [0]
    assert _sizes(xp.split(x, 0), 0) == [0]


@pytest.mark.parametrize("arg, dim, exc", [
    (0, 0, ValueError), (-1, 0, ValueError), ([2, 2], 0, ValueError), ([6, -1], 0, ValueError),
    (2, 2, IndexError), (2.0, 0, TypeError),
])
def test_split_errors(arg, dim, exc):
    with pytest.raises(exc):
        xp.split(xp.zeros((5, 4)), arg, dim)


@pytest.mark.parametrize("n, chunks, sizes", [
    # PyTorch's results: chunks of ceil(n / chunks), so fewer chunks may come back.
    (5, 3, [2, 2, 1]), (6, 4, [2, 2, 2]), (6, 3, [2, 2, 2]), (3, 5, [1, 1, 1]), (7, 1, [7]),
    (0, 3, [0, 0, 0]),
])
def test_chunk_sizes_like_pytorch(n, chunks, sizes):
    ref = ref_array((2, n))
    x = layout(ref, "negative") if n else xp.asarray(ref)
    pieces = xp.chunk(x, chunks, dim=1)
    assert _sizes(pieces, 1) == sizes
    start = 0
    for p, s in zip(pieces, sizes):
        assert_same(p, ref[:, start:start + s])
        assert shares(p, x)
        start += s


@pytest.mark.parametrize("call, what", [
    (lambda x: xp.roll(x, 1.5), "roll(): shift"),
    (lambda x: xp.roll(x, (1, 2.0), axis=(0, 1)), "roll(): shift"),
    (lambda x: xp.split(x, "a"), "split(): split_size_or_sections"),
    (lambda x: xp.split(x, [1, 2.0]), "split(): a section size"),
    (lambda x: xp.chunk(x, 2.0), "chunk(): chunks"),
    (lambda x: xp.narrow(x, 0, 0.5, 1), "narrow(): start"),
    (lambda x: xp.narrow(x, 0, 0, None), "narrow(): length"),
])
def test_non_int_arguments_name_the_function(call, what):
    with pytest.raises(TypeError, match=what.replace("(", r"\(").replace(")", r"\)")):
        call(xp.zeros((3, 4)))


def test_chunk_errors():
    with pytest.raises(ValueError):
        xp.chunk(xp.zeros(3), 0)
    # (a 0-d input: PyTorch's RuntimeError "chunk expects at least a 1-dimensional tensor";
    # strided's ShapeError is that and a ValueError)
    with pytest.raises(RuntimeError, match="1-dimensional"):
        xp.chunk(xp.asarray(1.0), 2)


@pytest.mark.parametrize("start, length", [(0, 2), (1, 3), (-2, 2), (4, 0), (-4, 4), (0, 0)])
def test_narrow_views(start, length):
    ref = ref_array((3, 4))
    x = layout(ref, "transposed")
    v = xp.narrow(x, 1, start, length)
    s = start + 4 if start < 0 else start
    assert_same(v, ref[:, s:s + length])
    assert shares(v, x)
    assert_same(xp.narrow(x, 0, start % 3, 1), ref[start % 3:start % 3 + 1])


@pytest.mark.parametrize("dim, start, length, exc", [
    (1, 5, 0, IndexError), (1, -5, 1, IndexError), (1, 3, 2, ValueError), (1, 0, -1, ValueError),
    (2, 0, 1, IndexError),
])
def test_narrow_errors(dim, start, length, exc):
    with pytest.raises(exc):
        xp.narrow(xp.zeros((3, 4)), dim, start, length)


def test_movedim_and_swapdims_are_views():
    ref = ref_array((2, 3, 4))
    x = layout(ref, "strided")
    v = xp.movedim(x, 0, -1)
    assert_same(v, np.moveaxis(ref, 0, -1))
    assert shares(v, x)
    v = xp.movedim(x, (0, 1), (2, 0))
    assert_same(v, np.moveaxis(ref, (0, 1), (2, 0)))
    for d0, d1 in [(0, 2), (-1, 1), (1, 1)]:
        v = xp.swapdims(x, d0, d1)
        assert_same(v, np.swapaxes(ref, d0, d1))
        assert shares(v, x)
    assert_same(xp.swapdims(xp.asarray(2.0, dtype=xp.float64), 0, 0), np.array(2.0))
    with pytest.raises(IndexError):
        xp.swapdims(x, 0, 3)


def test_methods_use_these_functions():
    ref = ref_array((4, 3))
    x = xp.asarray(ref)
    assert_same(x.roll(1, 0), np.roll(ref, 1, 0))
    assert_same(x.tile((2, 1)), np.tile(ref, (2, 1)))
    assert [p.shape for p in x.split(3, dim=0)] == [(3, 3), (1, 3)]
    assert [p.shape for p in x.chunk(3, dim=1)] == [(4, 1)] * 3
    assert_same(x.narrow(0, 1, 2), ref[1:3])
    assert_same(x.swapdims(0, 1), ref.T)
    assert_same(x.repeat_interleave(2, dim=1), np.repeat(ref, 2, 1))
    assert [p.shape for p in x.unbind(1)] == [(4,)] * 3


# --- properties over random shapes and layouts ----------------------------------------------

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _draw_layout(data, ref):
    names = sorted(layouts(ref))
    return layouts(ref)[data.draw(st.sampled_from(names), label="layout")]


@SETTINGS
@given(shape=shapes, data=st.data())
def test_roll_property(shape, data):
    ref = ref_array(shape, np.int32)
    x = _draw_layout(data, ref)
    shift_st = st.integers(-20, 20)
    if shape and data.draw(st.booleans(), label="tuple"):
        axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=4),
                         label="axes")
        shift = tuple(data.draw(shift_st) for _ in axes)
        axis = tuple(axes)
    else:
        shift = data.draw(shift_st, label="shift")
        axis = None if not shape else data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    assert_same(xp.roll(x, shift, axis=axis), np.roll(ref, shift, axis=axis))


@SETTINGS
@given(shape=shapes.filter(lambda s: len(s) >= 1), data=st.data())
def test_concat_stack_property(shape, data):
    n = data.draw(st.integers(1, 3), label="n")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    refs, arrays = [], []
    for i in range(n):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        ref = ref_array(tuple(s), np.int16, seed=i)
        refs.append(ref)
        arrays.append(_draw_layout(data, ref))
    assert_same(xp.concat(arrays, axis=axis), np.concatenate(refs, axis=axis))
    assert_same(xp.concat(arrays, axis=None), np.concatenate([r.ravel() for r in refs]))
    same = [arrays[0]] * n
    assert_same(xp.stack(same, axis=axis), np.stack([refs[0]] * n, axis=axis))


@SETTINGS
@given(shape=shapes, data=st.data())
def test_repeat_tile_property(shape, data):
    ref = ref_array(shape, np.float32)
    x = _draw_layout(data, ref)
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=5), label="reps"))
    assert_same(xp.tile(x, reps), np.tile(ref, reps))
    axis = None if not shape else data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    size = ref.size if axis is None else shape[axis]
    if data.draw(st.booleans(), label="array repeats"):
        counts = data.draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))
        reps = xp.asarray(counts, dtype=xp.int64)
    else:
        counts = reps = data.draw(st.integers(0, 3))
    assert_same(xp.repeat(x, reps, axis=axis), np.repeat(ref, counts, axis=axis))
