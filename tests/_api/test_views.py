"""Views: layout arithmetic on (offset, shape, strides), checked against NumPy.

Every view must hold the same elements as NumPy's result of the same
operation, share the base's storage, and see (and make) writes both ways.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strided as xp
from strided._core.array import Array, _native

from conftest import assert_same, host, shares_memory, to_np


def pair(shape=(3, 4, 5), dtype=np.float64):
    """A NumPy array and an independent strided copy of it."""
    ref = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return xp.asarray(ref.copy()), ref


def shares(v, base) -> bool:
    return v.storage() is base.storage()


# --- basic indexing --------------------------------------------------------------

KEYS = [
    0, -1, 2, (1, 2), (-1, -2, -3), (0, slice(None), 1),
    slice(None), slice(1, None), slice(None, -1), slice(None, None, 2), slice(None, None, -1),
    slice(-1, 0, -2), slice(5, 1, -1), slice(-100, 100), slice(2, 2), slice(3, 0),
    (slice(None), slice(None, None, -2)), (slice(1, 3), 2, slice(None, None, -1)),
    None, (None, 0), (0, None, slice(None), None), (None, None, None),
    Ellipsis, (Ellipsis, 0), (0, Ellipsis), (1, Ellipsis, -1), (Ellipsis, None),
    (None, Ellipsis, slice(None, None, -1)), (0, 1, 2, Ellipsis), (Ellipsis, 0, 1, 2),
    (slice(None, None, 3), Ellipsis, slice(4, None, -3)), (),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_indexing_matches_numpy(key):
    x, ref = pair()
    v = x[key]
    assert_same(v, ref[key])
    assert shares(v, x)


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_indexing_of_a_noncontiguous_view(key):
    x, ref = pair((5, 4, 6))
    x, ref = xp.flip(xp.permute_dims(x, (2, 0, 1)), axis=1)[::2], np.flip(ref.transpose(2, 0, 1), 1)[::2]
    assert_same(x[key], ref[key])


def test_indexing_0d_and_empty():
    x = xp.asarray(np.float32(3.5))
    assert x[()].shape == () and x[()].item() == 3.5
    assert x[None].shape == (1,)
    assert x[...].shape == ()
    e, ref = pair((0, 3))
    assert_same(e[:, 1], ref[:, 1])
    assert_same(e[::-1], ref[::-1])
    assert_same(e[None, ..., 2:], ref[None, ..., 2:])


@pytest.mark.parametrize("key", [3, -4, (0, 4), (0, 0, 5), (0, 0, -6), (slice(None), 7)])
def test_out_of_range_index_raises_index_error(key):
    x, _ = pair()
    with pytest.raises(IndexError, match="out of bounds"):
        x[key]
    with pytest.raises(IndexError):
        x[key] = 1.0


@pytest.mark.parametrize("key", [(0, 0, 0, 0), (Ellipsis, Ellipsis), 1.5, "a", slice(0.5, 2)])
def test_invalid_index_raises_index_error(key):
    x, _ = pair()
    with pytest.raises(IndexError):
        x[key]


def test_zero_slice_step_raises_value_error_as_numpy():
    x, base = pair()
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        base[0:2:0]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[0:2:0]


def test_integer_index_on_0d_raises():
    with pytest.raises(IndexError):
        xp.asarray(1.0)[0]


def test_numpy_integers_and_0d_arrays_are_indices():
    x, ref = pair()
    assert_same(x[np.int64(1), xp.asarray(2)], ref[1, 2])
    assert_same(x[np.int32(1):xp.asarray(3)], ref[1:3])


# --- transpose family ----------------------------------------------------------------

def test_t_and_T():
    x, ref = pair((3, 4))
    assert_same(x.t(), ref.T)
    assert_same(x.T, ref.T)
    assert shares(x.t(), x)
    assert x.t().stride() == (1, 4)
    v, r1 = pair((5,))
    assert_same(v.t(), r1)
    with pytest.raises(ValueError):
        pair((2, 3, 4))[0].t()
    with pytest.raises(ValueError):
        pair((2, 3, 4))[0].T


@pytest.mark.parametrize("d0,d1", [(0, 1), (0, 2), (-1, 0), (1, 1), (2, -2)])
def test_transpose(d0, d1):
    x, ref = pair((2, 3, 4))
    assert_same(x.transpose(d0, d1), np.swapaxes(ref, d0, d1))


def test_transpose_bad_axis():
    x, _ = pair((2, 3))
    with pytest.raises(IndexError):
        x.transpose(0, 2)


@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, 0, 1), (2, 1, 0)])
def test_permute_and_permute_dims(perm):
    x, ref = pair((2, 3, 4))
    assert_same(x.permute(*perm), np.transpose(ref, perm))
    assert_same(x.permute(perm), np.transpose(ref, perm))
    assert_same(xp.permute_dims(x, perm), np.transpose(ref, perm))
    assert shares(xp.permute_dims(x, perm), x)


@pytest.mark.parametrize("perm", [(0, 1), (0, 0, 1), (0, 1, 3), (0, 1, 2, 3)])
def test_permute_errors(perm):
    x, _ = pair((2, 3, 4))
    with pytest.raises((ValueError, IndexError)):
        xp.permute_dims(x, perm)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (2, 1, 3, 5)])
def test_matrix_transpose_and_mT(shape):
    x, ref = pair(shape)
    assert_same(xp.matrix_transpose(x), np.swapaxes(ref, -1, -2))
    assert_same(x.mT, np.swapaxes(ref, -1, -2))
    assert shares(x.mT, x)


def test_matrix_transpose_needs_2d():
    x, _ = pair((3,))
    with pytest.raises(ValueError):
        xp.matrix_transpose(x)
    with pytest.raises(ValueError):
        x.mT


# --- size-1 dims ---------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4, (0, 1), (0, -1), (1, 3, 4)])
def test_expand_dims(axis):
    x, ref = pair((2, 3, 4))[0][:, ::2], pair((2, 3, 4))[1][:, ::2]
    assert_same(xp.expand_dims(x, axis=axis), np.expand_dims(ref, axis))
    assert shares(xp.expand_dims(x, axis=axis), x)


@pytest.mark.parametrize("axis", [4, -5, (0, 0), (0, 5)])
def test_expand_dims_errors(axis):
    x, _ = pair((2, 3, 4))
    with pytest.raises((IndexError, ValueError)):
        xp.expand_dims(x, axis=axis)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_unsqueeze(dim):
    x, ref = pair((3, 4))
    assert_same(x.unsqueeze(dim), np.expand_dims(ref, dim))
    assert_same(xp.unsqueeze(x, dim), np.expand_dims(ref, dim))


@pytest.mark.parametrize("axis", [None, 0, 2, -1, (0, 2), (0, 2, 4)])
def test_squeeze(axis):
    x, ref = pair((1, 3, 1, 4, 1))
    assert_same(xp.squeeze(x, axis=axis), np.squeeze(ref, axis))
    assert shares(xp.squeeze(x, axis=axis), x)


def test_squeeze_errors():
    x, _ = pair((1, 3))
    with pytest.raises(ValueError, match="size 3"):
        xp.squeeze(x, axis=1)
    with pytest.raises(IndexError):
        xp.squeeze(x, axis=2)


# --- broadcast / expand -------------------------------------------------------------

@pytest.mark.parametrize("shape,target", [((3,), (4, 3)), ((1, 3), (2, 5, 3)), ((2, 1), (2, 4)),
                                          ((1,), (0,)), ((), (2, 2)), ((3, 1), (3, 0))])
def test_broadcast_to_has_zero_strides(shape, target):
    x, ref = pair(shape)
    b = xp.broadcast_to(x, target)
    assert_same(b, np.broadcast_to(ref, target))
    assert shares(b, x)
    expect = np.broadcast_to(ref, target).strides
    assert b.stride() == tuple(s // 8 for s in expect) or 0 in target


@pytest.mark.parametrize("shape,target", [((3,), (4,)), ((2, 3), (3,)), ((2, 1), (3, 4)), ((3,), (-1, 3))])
def test_broadcast_to_errors(shape, target):
    x, _ = pair(shape)
    with pytest.raises(ValueError):
        xp.broadcast_to(x, target)


def test_expand_with_minus_one():
    x, ref = pair((3, 1))
    assert_same(x.expand(2, -1, 4), np.broadcast_to(ref, (2, 3, 4)))
    assert_same(x.expand((3, 5)), np.broadcast_to(ref, (3, 5)))
    assert x.expand(3, 5).stride() == (1, 0)


def test_broadcast_arrays_are_views():
    a, ra = pair((3, 1))
    b, rb = pair((4,))
    va, vb = xp.broadcast_arrays(a, b)
    na, nb = np.broadcast_arrays(ra, rb)
    assert_same(va, na)
    assert_same(vb, nb)
    assert shares(va, a) and shares(vb, b)


def test_write_through_broadcast_view_reaches_the_base():
    x, ref = pair((3,))
    b = xp.broadcast_to(x, (4, 3))
    b[0, 1] = -1.0  # every row aliases the same element
    assert x.tolist() == [0.0, -1.0, 2.0]
    assert b[3, 1].item() == -1.0


# --- flip / diagonal ---------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (0, 1, 2)])
def test_flip_negative_strides(axis):
    x, ref = pair((2, 3, 4))
    f = xp.flip(x, axis=axis)
    assert_same(f, np.flip(ref, axis))
    assert shares(f, x)
    axes = range(3) if axis is None else np.atleast_1d(axis) % 3
    for a in axes:
        assert f.stride()[a] == -x.stride()[a]


def test_flip_of_empty_and_0d():
    e, ref = pair((0, 3))
    assert_same(xp.flip(e), np.flip(ref))
    z, rz = pair(())
    assert_same(xp.flip(z), np.flip(rz))


@pytest.mark.parametrize("offset", [0, 1, 3, 4, 7, -1, -2, -3, -9])
@pytest.mark.parametrize("axes", [(-2, -1), (0, 2), (2, 0), (1, 0)])
def test_diagonal(offset, axes):
    x, ref = pair((3, 4, 5))
    d = xp.diagonal(x, offset=offset, axis1=axes[0], axis2=axes[1])
    assert_same(d, np.diagonal(ref, offset, axes[0], axes[1]))
    assert shares(d, x)


def test_diagonal_write_through():
    x = xp.zeros((3, 3))
    xp.diagonal(x)[...] = 1.0
    np.testing.assert_array_equal(to_np(x), np.eye(3))


def test_diagonal_errors():
    with pytest.raises(ValueError):
        xp.diagonal(pair((3,))[0])
    with pytest.raises(ValueError):
        xp.diagonal(pair((3, 3))[0], axis1=0, axis2=-2)


# --- flatten / view / reshape -----------------------------------------------------------

@pytest.mark.parametrize("start,end", [(0, -1), (1, 2), (0, 1), (2, 2), (-2, -1)])
def test_flatten(start, end):
    x, ref = pair((2, 3, 4))
    f = xp.flatten(x, start, end)
    shape = ref.shape[:start % 3] + (-1,) + ref.shape[end % 3 + 1:]
    assert_same(f, ref.reshape(shape))
    assert shares(f, x)
    assert_same(x.flatten(), ref.reshape(-1))


def test_flatten_0d_and_noncontiguous():
    z, rz = pair(())
    assert_same(xp.flatten(z), rz.reshape(1))
    x, ref = pair((3, 4))
    f = x.t().flatten()
    assert_same(f, ref.T.reshape(-1))
    assert not shares(f, x)  # needs a copy
    with pytest.raises(ValueError):
        xp.flatten(x, 1, 0)


@pytest.mark.parametrize("shape", [(12,), (2, 2, 3), (2, 2, -1), (-1,), (4, -1), (1, 12, 1), (-1, 1)])
def test_view_with_minus_one(shape):
    x, ref = pair((3, 4))
    v = x.view(*shape)
    assert_same(v, ref.reshape(shape))
    assert shares(v, x)
    assert_same(x.view(shape), ref.reshape(shape))


def test_view_of_noncontiguous_where_possible():
    x, ref = pair((4, 6))
    v = x[:, ::2]  # strides (6, 2): merging is impossible, splitting is fine
    assert_same(v.view(4, 3, 1), ref[:, ::2].reshape(4, 3, 1))
    w = x[::2]  # rows 0 and 2: contiguous within rows
    assert_same(w.view(2, 2, 3), ref[::2].reshape(2, 2, 3))


def test_view_impossible_says_use_reshape():
    x, _ = pair((3, 4))
    with pytest.raises(RuntimeError, match="reshape"):
        x.t().view(12)
    with pytest.raises(ValueError):
        x.view(5, -1)
    with pytest.raises(ValueError):
        x.view(-1, -1)


def test_reshape_view_vs_copy():
    x, ref = pair((3, 4))
    v = xp.reshape(x, (4, 3))
    assert_same(v, ref.reshape(4, 3)) and shares(v, x)
    c = xp.reshape(x.t(), (12,))
    assert_same(c, ref.T.reshape(12))
    assert not shares(c, x)
    c[0] = 100.0
    assert x[0, 0].item() == 0.0


def test_reshape_copy_keyword():
    x, ref = pair((3, 4))
    c = xp.reshape(x, (2, 6), copy=True)
    assert_same(c, ref.reshape(2, 6))
    assert not shares(c, x)
    v = xp.reshape(x, (2, 6), copy=False)
    assert shares(v, x)
    with pytest.raises(ValueError, match="copy"):
        xp.reshape(x.t(), (12,), copy=False)


@pytest.mark.parametrize("shape", [(5,), (-1, 5), (2, -1, -1), (-2, 6)])
def test_reshape_errors(shape):
    x, _ = pair((3, 4))
    with pytest.raises(ValueError):
        xp.reshape(x, shape)


def test_reshape_empty_and_0d():
    e, ref = pair((0, 4))
    assert_same(xp.reshape(e, (2, 0, 5)), ref.reshape(2, 0, 5))
    assert_same(xp.reshape(e, (-1, 8)), ref.reshape(-1, 8))
    with pytest.raises(ValueError):  # -1 next to a 0 is ambiguous (NumPy and PyTorch agree)
        xp.reshape(e, (2, 0, -1))
    z, rz = pair(())
    assert_same(xp.reshape(z, (1, 1)), rz.reshape(1, 1))
    assert_same(xp.reshape(xp.reshape(z, (1, 1)), ()), rz)


# --- real / imag ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_real_imag_are_views(dtype):
    ref = (np.arange(12) + 1j * np.arange(12, 24)).astype(dtype).reshape(3, 4)
    x = xp.asarray(ref.copy())
    v = x.t()[::-1, 1:]
    rv = ref.T[::-1, 1:]
    assert_same(v.real, rv.real)
    assert_same(v.imag, rv.imag)
    assert v.real.dtype == (xp.float32 if dtype == np.complex64 else xp.float64)
    assert shares_memory(v.real, x)
    assert shares_memory(v.imag, x)


def test_real_imag_write_through_both_directions():
    x = xp.asarray([1 + 2j, 3 + 4j, 5 + 6j])
    r, i = x.real, x.imag
    r[0] = 5.0
    i[1:] = xp.asarray([-1.0, -2.0])
    assert x.tolist() == [5 + 2j, 3 - 1j, 5 - 2j]
    x[2] = 7 + 8j
    assert r[2].item() == 7.0 and i[2].item() == 8.0


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_real_of_real_is_self_imag_of_real_is_numpys_read_only_zeros(dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    x = xp.asarray(a)
    assert x.real is x
    i = x.imag
    ref = a.imag  # NumPy: read-only zeros of a's dtype (PyTorch raises)
    assert i.dtype == x.dtype and tuple(i.shape) == ref.shape
    np.testing.assert_array_equal(host(i), ref)
    with pytest.raises((RuntimeError, ValueError), match="single memory location|read-only"):
        i.copy_(xp.ones_like(i))  # stride 0: refused on every device (read-only on the CPU)
    if i.device.type == "cpu":  # read-only, as NumPy's (CuPy memory has no such flag)
        with pytest.raises(ValueError, match="read-only"):
            i[0, 0] = 1
        with pytest.raises(ValueError, match="read-only"):
            xp.asarray(a[:1, :1]).imag[0, 0] = 1
    assert host(x).tolist() == a.tolist()


# --- write-through ---------------------------------------------------------------

def test_writes_through_views_reach_base_and_back():
    x, ref = pair((3, 4))
    t = x.t()
    t[1, 2] = -5.0
    ref[2, 1] = -5.0
    assert_same(x, ref)
    x[0, 3] = 99.0
    ref[0, 3] = 99.0
    assert_same(t, ref.T)
    f = xp.flip(x, axis=1)
    f[0] = xp.asarray([1.0, 2.0, 3.0, 4.0])
    ref[0] = [4.0, 3.0, 2.0, 1.0]
    assert_same(x, ref)
    assert_same(f, ref[:, ::-1])


def test_write_through_numpy_view_both_ways():
    x = xp.zeros((2, 3), device="cpu")  # .numpy() views host memory
    n = x.t().numpy()
    n[2, 1] = 8.0
    assert x[1, 2].item() == 8.0
    x[0, 0] = 3.0
    assert n[0, 0] == 3.0


# --- setitem -------------------------------------------------------------------------

SET_KEYS = [0, -1, (1, 2), (0, slice(None), 1), slice(None, None, -1), (slice(1, 3), Ellipsis, slice(None, None, -2)),
            None, (None, 1), Ellipsis, (Ellipsis, 0), (), (slice(None), slice(None, None, 2), None),
            (slice(3, 0), 0)]


@pytest.mark.parametrize("key", SET_KEYS, ids=repr)
@pytest.mark.parametrize("value", ["scalar", "int", "array", "broadcast", "numpy", "list"])
def test_setitem_matches_numpy(key, value):
    x, ref = pair((3, 4, 5))
    target_shape = ref[key].shape
    if value == "scalar":
        v = rv = -2.5
    elif value == "int":
        v = rv = 7
    elif value == "array":
        rv = -np.arange(int(np.prod(target_shape)), dtype=np.float64).reshape(target_shape) - 1
        v = xp.asarray(rv.copy())
    elif value == "broadcast":
        rv = -np.arange(target_shape[-1] if target_shape else 1, dtype=np.float64) - 1
        if not target_shape:
            rv = rv.reshape(())
        v = xp.asarray(rv.copy())
    elif value == "numpy":
        rv = np.full(target_shape, 4.0)
        v = rv.copy()
    else:
        rv = np.full(target_shape, 3.0)
        v = rv.tolist() if rv.size else rv
    x[key] = v
    ref[key] = rv
    assert_same(x, ref)


def test_setitem_from_noncontiguous_and_broadcast_value():
    x, ref = pair((4, 4))
    src, rsrc = pair((4, 4))
    x[::2] = src.t()[1::2]
    ref[::2] = rsrc.T[1::2]
    assert_same(x, ref)
    x[:, 1] = xp.broadcast_to(xp.asarray(9.0), (4,))
    ref[:, 1] = 9.0
    assert_same(x, ref)


def test_setitem_from_overlapping_view_of_itself():
    x, ref = pair((6,))
    x[1:] = x[:-1]
    ref[1:] = ref[:-1].copy()
    assert_same(x, ref)


def test_setitem_casts_to_the_array_dtype():
    x = xp.zeros(3, dtype=xp.int32)
    x[0] = True
    x[1] = xp.asarray([2.7])[0]  # float into int truncates, like PyTorch
    x[2] = xp.asarray(5, dtype=xp.int64)
    assert x.tolist() == [1, 2, 5] and x.dtype == xp.int32


def test_setitem_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match="broadcast"):
        x[0] = xp.asarray([1.0, 2.0])
    with pytest.raises(TypeError):
        x[0, 0] = 1j
    with pytest.raises(TypeError):
        x[0] = xp.asarray([1j, 2j, 3j])
    with pytest.raises(OverflowError):
        xp.zeros(2, dtype=xp.int8)[0] = 300
    with pytest.raises(TypeError):
        x[0] = object()
    with pytest.raises(IndexError):
        x[0, 0, 0] = 1.0


def test_setitem_value_on_other_device_raises(sim):
    x = xp.zeros(3)
    with pytest.raises(ValueError, match="sim:0"):
        x[...] = xp.ones(3, device=sim)


# --- memory safety ------------------------------------------------------------------

@pytest.mark.parametrize("offset,shape,strides", [
    (0, (7,), (1,)),  # one past the end
    (5, (2,), (1,)),
    (-1, (2,), (1,)),
    (0, (3, 3), (3, 1)),
    (0, (2,), (-1,)),  # negative stride walks before the start
    (6, (1,), (1,)),
    (0, (2, 2), (1, 5)),
])
def test_native_refuses_views_outside_storage(offset, shape, strides):
    st = xp.arange(6.0).storage()
    bad = Array._from_storage(st, offset, shape, strides)
    with pytest.raises(IndexError, match="outside"):
        _native(st, offset, shape, strides)
    with pytest.raises(IndexError):
        bad.tolist()
    with pytest.raises(IndexError):
        bad + 1


@pytest.mark.parametrize("offset,shape,strides", [
    (5, (6,), (-1,)), (0, (2, 3), (3, 1)), (2, (0,), (1,)), (100, (0, 5), (1, 1)),
    (0, (4,), (0,)), (3, (2, 2), (-3, 1)),
])
def test_native_accepts_views_inside_storage(offset, shape, strides):
    base = np.arange(6.0)
    st = xp.asarray(base.copy()).storage()
    v = Array._from_storage(st, offset, shape, strides)
    ref = np.lib.stride_tricks.as_strided(base[offset % 6:] if offset < 6 else base[:0], shape,
                                          tuple(8 * s for s in strides)) if 0 not in shape else np.zeros(shape)
    np.testing.assert_array_equal(host(v), ref)


def test_writes_cannot_escape_the_storage():
    x = xp.zeros(4)
    st = x.storage()
    bad = Array._from_storage(st, 2, (3,), (1,))
    with pytest.raises(IndexError):
        bad[...] = 1.0
    with pytest.raises(IndexError):
        bad[2] = 1.0
    with pytest.raises(IndexError):
        bad[1:] = xp.asarray([1.0, 2.0])
    assert x.tolist() == [0.0] * 4
    bad[0] = 5.0  # storage element 2 is inside: allowed
    assert x.tolist() == [0.0, 0.0, 5.0, 0.0]


# --- the seed document -----------------------------------------------------------

def test_seed_points():
    points = xp.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
    assert points.stride() == (2, 1)
    assert points[1].storage_offset() == 2
    t = points.t()
    assert t.stride() == (1, 2)
    assert t.storage() is points.storage()
    assert t.is_contiguous() is False
    c = t.contiguous()
    assert c.storage().tolist() == [4, 5, 2, 1, 3, 1]
    assert c.stride() == (3, 1)
    assert c.is_contiguous()


def test_seed_transpose_and_view():
    assert xp.ones(3, 4, 5).transpose(0, 2).stride() == (1, 5, 20)
    assert xp.arange(12).view(2, 2, -1).shape == (2, 2, 3)


# --- random chains of views against NumPy ------------------------------------------------

def _draw_key(data, shape):
    """A basic index for ``shape``: ints, slices (any step), None and at most one Ellipsis."""
    nd = len(shape)
    k = data.draw(st.integers(0, nd), label="n_indexed")
    ell = data.draw(st.none() | st.integers(0, k), label="ellipsis_at")
    dims = list(range(k)) if ell is None else list(range(ell)) + list(range(nd - (k - ell), nd))
    parts = []
    for d in dims:
        n = shape[d]
        if n > 0 and data.draw(st.booleans()):
            parts.append(data.draw(st.integers(-n, n - 1)))
        else:
            lim = n + 2
            parts.append(slice(data.draw(st.none() | st.integers(-lim, lim)),
                               data.draw(st.none() | st.integers(-lim, lim)),
                               data.draw(st.none() | st.integers(-3, 3).filter(bool))))
    if ell is not None:
        parts.insert(ell, Ellipsis)
    for _ in range(data.draw(st.integers(0, 2))):
        parts.insert(data.draw(st.integers(0, len(parts))), None)
    if len(parts) == 1 and data.draw(st.booleans()):
        return parts[0]
    return tuple(parts)


def _reshape_target(data, shape):
    """A new shape for the same size: merge two adjacent dims, split one, or add/remove 1s."""
    shape = list(shape)
    choice = data.draw(st.sampled_from(["merge", "split", "ones", "minus1"]))
    if choice == "merge" and len(shape) >= 2:
        i = data.draw(st.integers(0, len(shape) - 2))
        shape[i:i + 2] = [shape[i] * shape[i + 1]]
    elif choice == "split" and shape:
        i = data.draw(st.integers(0, len(shape) - 1))
        n = shape[i]
        divs = [d for d in range(1, n + 1) if n % d == 0] if n else [0, 1]
        d = data.draw(st.sampled_from(divs))
        shape[i:i + 1] = [d, n // d] if d else [0, data.draw(st.integers(0, 2))]
    elif choice == "ones":
        shape = [n for n in shape if n != 1]
        for _ in range(data.draw(st.integers(0, 2))):
            shape.insert(data.draw(st.integers(0, len(shape))), 1)
    elif choice == "minus1" and shape and 0 not in shape:
        shape[data.draw(st.integers(0, len(shape) - 1))] = -1
    return tuple(shape)


def _apply(data, x, refs):
    """Apply one random view operation to ``x`` and to each NumPy mirror in ``refs``."""
    shape = tuple(x.shape)
    nd = len(shape)
    ops = ["index", "flip", "unsqueeze", "expand", "reshape"]
    if nd >= 1:
        ops += ["permute", "squeeze"]
    if nd >= 2:
        ops += ["transpose", "diagonal", "mT"]
    if nd > 5:
        ops = [o for o in ops if o not in ("unsqueeze", "expand")] + ["index"]
    op = data.draw(st.sampled_from(ops), label="op")
    if op == "index":
        key = _draw_key(data, shape)
        return x[key], [r[key] for r in refs], f"[{key!r}]"
    if op == "flip":
        axis = data.draw(st.none() | st.lists(st.integers(-nd, nd - 1), unique_by=lambda a: a % nd,
                                              max_size=nd).map(tuple) if nd else st.none())
        return xp.flip(x, axis=axis), [np.flip(r, axis) for r in refs], f"flip({axis})"
    if op == "unsqueeze":
        a = data.draw(st.integers(-nd - 1, nd))
        return x.unsqueeze(a), [np.expand_dims(r, a) for r in refs], f"unsqueeze({a})"
    if op == "expand":
        target = tuple(data.draw(st.integers(0, 3)) if n == 1 else n for n in shape)
        target = tuple(data.draw(st.lists(st.integers(0, 2), max_size=1))) + target
        return (xp.broadcast_to(x, target), [np.broadcast_to(r, target) for r in refs],
                f"broadcast_to({target})")
    if op == "reshape":
        target = _reshape_target(data, shape)
        try:
            np_views = [np.reshape(r, target, copy=False) for r in refs]
        except ValueError:
            with pytest.raises(ValueError):
                xp.reshape(x, target, copy=False)
            return x, refs, f"(reshape({target}) impossible)"
        return xp.reshape(x, target, copy=False), np_views, f"reshape({target})"
    if op == "permute":
        perm = tuple(data.draw(st.permutations(range(nd))))
        return x.permute(*perm), [np.transpose(r, perm) for r in refs], f"permute{perm}"
    if op == "squeeze":
        ones = [i for i, n in enumerate(shape) if n == 1]
        axis = data.draw(st.none() | st.lists(st.sampled_from(ones), unique=True).map(tuple)
                         if ones else st.none())
        return xp.squeeze(x, axis=axis), [np.squeeze(r, axis) for r in refs], f"squeeze({axis})"
    if op == "transpose":
        d0, d1 = data.draw(st.integers(-nd, nd - 1)), data.draw(st.integers(-nd, nd - 1))
        return x.transpose(d0, d1), [np.swapaxes(r, d0, d1) for r in refs], f"transpose({d0}, {d1})"
    if op == "mT":
        return x.mT, [np.swapaxes(r, -1, -2) for r in refs], "mT"
    a1 = data.draw(st.integers(0, nd - 1))
    a2 = data.draw(st.integers(0, nd - 1).filter(lambda a: a != a1))
    k = data.draw(st.integers(-4, 4))
    return (xp.diagonal(x, offset=k, axis1=a1, axis2=a2), [np.diagonal(r, k, a1, a2) for r in refs],
            f"diagonal({k}, {a1}, {a2})")


@settings(max_examples=int(__import__("os").environ.get("CHAIN_EXAMPLES", 300)), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple), data=st.data())
def test_random_view_chains_match_numpy(shape, data):
    size = int(np.prod(shape))
    values = (np.arange(size, dtype=np.float64) * 1.5 + 1).reshape(shape)
    base = xp.asarray(values.copy())
    positions = np.arange(size).reshape(shape)  # where each element lives in the storage
    x, refs, trail = base, [values, positions], []
    for _ in range(data.draw(st.integers(1, 6), label="n_ops")):
        x, refs, step = _apply(data, x, refs)
        trail.append(step)
        ref_vals, ref_pos = refs
        assert tuple(x.shape) == ref_vals.shape, trail
        np.testing.assert_array_equal(host(x), ref_vals, err_msg=str(trail))
        assert x.storage() is base.storage(), trail
    ref_vals, ref_pos = refs
    # Write through the view; NumPy mirrors the write on the base by storage position.
    mirror = values.copy()
    if np.unique(ref_pos).size == ref_pos.size:
        new = -np.arange(ref_pos.size, dtype=np.float64).reshape(ref_pos.shape) - 7
        x[...] = xp.asarray(new)
    else:  # aliased elements (stride 0): refused, as PyTorch does; nothing is written
        with pytest.raises(RuntimeError, match="single memory location"):
            x[...] = -3.0
        np.testing.assert_array_equal(host(base), values, err_msg=str(trail))
        return
    mirror.reshape(-1)[ref_pos.reshape(-1)] = new.reshape(-1)
    np.testing.assert_array_equal(host(base), mirror, err_msg=str(trail))
    np.testing.assert_array_equal(host(x), new, err_msg=str(trail))
    # Write through the base; the view sees it.
    base[...] = xp.asarray(values * -2)
    np.testing.assert_array_equal(host(x), (values * -2).reshape(-1)[ref_pos], err_msg=str(trail))
    # Writing through a single element index, when there is one.
    if ref_pos.size:
        idx = tuple(int(i) for i in np.unravel_index(ref_pos.size - 1, ref_pos.shape))
        x[idx] = 123.0
        assert host(base).reshape(-1)[ref_pos[idx]] == 123.0, trail


# --- the inlined hot paths (reshape, permute_dims, expand_dims/unsqueeze, broadcast_to,
# slice/tuple indexing, contiguous, index arrays) against NumPy on awkward bases --------

def _native_of_metadata(v):
    """The NumPy view that v's (storage, offset, shape, strides) describe, built afresh."""
    return _native(v._st, v._off, v._shape, v._str)


def _check_view(v, ref, base):
    """v equals ref, shares base's storage, and its cached native view (when the hot
    path set one) is the memory its metadata describes."""
    assert tuple(v.shape) == ref.shape
    np.testing.assert_array_equal(host(v), ref)
    assert v._st is base._st
    if v._np is not None:
        meta = _native_of_metadata(v)
        assert v._np.shape == meta.shape
        if meta.size:
            assert v._np.__array_interface__["data"][0] == meta.__array_interface__["data"][0] or \
                np.shares_memory(v._np, meta)
            np.testing.assert_array_equal(v._np, meta)
            assert np.shares_memory(v._np, v._st._data)


@st.composite
def _awkward_base(draw):
    """(strided array, NumPy reference): any rank 0-4, sizes 0-4, maybe flipped
    (negative strides), stepped, permuted (non-contiguous) or a lazy kernel result."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    ref = (np.arange(int(np.prod(shape)), dtype=np.float64) + 1).reshape(shape)
    x = xp.asarray(ref.copy(), device="cpu")
    if draw(st.booleans()):
        x, ref = x + 0, ref + 0  # a lazy kernel result: the hot paths materialise it
    if shape and draw(st.booleans()):
        ax = draw(st.integers(0, len(shape) - 1))
        x, ref = xp.flip(x, axis=ax), np.flip(ref, ax)
    if shape and draw(st.booleans()):
        x, ref = x[::2], ref[::2]
    if len(shape) > 1 and draw(st.booleans()):
        perm = tuple(draw(st.permutations(range(len(shape)))))
        x, ref = xp.permute_dims(x, perm), ref.transpose(perm)
    return x, ref


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_awkward_base(), st.data())
def test_hot_path_views_match_numpy_on_awkward_bases(base, data):
    x, ref = base
    shape = ref.shape
    nd = len(shape)
    op = data.draw(st.sampled_from(["reshape", "permute", "expand_dims", "unsqueeze",
                                    "broadcast_to", "slice", "tuple", "contiguous"]), label="op")
    if op == "reshape":
        sizes = [int(np.prod(shape))] + [d for d in range(1, 5) if int(np.prod(shape)) % d == 0]
        d = data.draw(st.sampled_from(sizes), label="d")
        new = (d, int(np.prod(shape)) // d) if d else (0, 3)
        if not int(np.prod(shape)):
            new = (0,) + (data.draw(st.integers(0, 3)),)
        v = xp.reshape(x, new)
        np.testing.assert_array_equal(host(v), ref.reshape(new))
        if v._st is x._st:  # a view (a contiguous base), else a copy
            _check_view(v, ref.reshape(new), x)
        return
    if op == "permute":
        perm = tuple(data.draw(st.permutations(range(nd)), label="perm"))
        _check_view(xp.permute_dims(x, perm), ref.transpose(perm), x)
    elif op in ("expand_dims", "unsqueeze"):
        ax = data.draw(st.integers(-nd - 1, nd), label="axis")
        v = xp.expand_dims(x, axis=ax) if op == "expand_dims" else x.unsqueeze(ax)
        _check_view(v, np.expand_dims(ref, ax), x)
    elif op == "broadcast_to":
        target = tuple(data.draw(st.integers(0, 2), label="lead") * [2]) + tuple(
            data.draw(st.integers(0, 3)) if n == 1 else n for n in shape)
        _check_view(xp.broadcast_to(x, target), np.broadcast_to(ref, target), x)
    elif op == "contiguous":
        v = x.contiguous()
        np.testing.assert_array_equal(host(v), ref)
        assert (v is x) == x.is_contiguous() and v.is_contiguous()
    else:
        if not nd:
            return
        part = st.one_of(st.none(), st.integers(-6, 6))
        sl = st.builds(slice, part, part, st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
        if op == "slice":
            key = data.draw(sl, label="key")
        else:
            items = [data.draw(st.one_of(sl, st.integers(-n, n - 1)) if n else sl, label=f"k{i}")
                     for i, n in enumerate(shape[:data.draw(st.integers(0, nd), label="nkey")])]
            key = tuple(items)
        v = x[key]
        _check_view(v, ref[key], x)
        # writes through the view reach the base, and the base's reach the view
        if v._np is not None and v._np.size:
            v[...] = -5.0
            expect = ref.copy()
            expect[key] = -5.0
            np.testing.assert_array_equal(host(x), expect)


def test_hot_path_caches_refuse_equal_but_non_int_tuples():
    # (2.0, 5) and (True, 5) equal (2, 5) as dict keys: a cached layout must not take them.
    x = xp.asarray(np.arange(10.0))
    assert xp.reshape(x, (2, 5)).shape == (2, 5)
    with pytest.raises(TypeError):
        xp.reshape(x, (2.0, 5))
    y = xp.asarray(np.zeros((2, 3, 4)))
    assert xp.permute_dims(y, (2, 0, 1)).shape == (4, 2, 3)
    with pytest.raises(TypeError):
        xp.permute_dims(y, (2.0, 0, 1))
    z = xp.asarray(np.zeros((1, 3)))
    assert xp.broadcast_to(z, (2, 3)).shape == (2, 3)
    with pytest.raises(TypeError):
        xp.broadcast_to(z, (2.0, 3))
    # a shape tuple seen before through another equal tuple object still works
    shape = tuple([5, 2])
    assert xp.reshape(x, shape).shape == (5, 2) and xp.reshape(x, (5, 2)).shape == (5, 2)


@pytest.mark.parametrize("key", [slice(1.0, 3), (0, slice(1.5, None))], ids=repr)
def test_hot_path_slice_errors_are_index_errors(key):
    x = xp.asarray(np.zeros((3, 4)))
    with pytest.raises(IndexError):
        x[key]


@pytest.mark.parametrize("key", [slice(None, None, 0), (slice(0, 2), slice(None, None, 0))], ids=repr)
def test_hot_path_zero_steps_are_value_errors_as_numpy(key):
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        np.zeros((3, 4))[key]
    x = xp.asarray(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[key]


def test_bool_slice_bounds_index_as_numpy():
    x, ref = pair((5, 4))
    assert_same(x[True:4], ref[True:4])
    assert_same(x[False:3, None], ref[False:3, None])
    assert_same(x[1:4, True::2], ref[1:4, True::2])


@settings(max_examples=60, deadline=None)
@given(_awkward_base(), st.data())
def test_index_array_hot_path_matches_numpy(base, data):
    x, ref = base
    if not ref.ndim:
        return
    n = ref.shape[0]
    if data.draw(st.booleans(), label="bool"):
        mask = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        key, nkey = xp.asarray(mask, device=x.device), mask
    else:
        idx = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=5)) if n else [],
                       dtype=np.int64)
        key, nkey = xp.asarray(idx, device=x.device), idx
    v = x[key]
    assert_same(v, ref[nkey])
    if v.size:  # a copy: writing into it leaves x alone
        before = host(x).copy()
        v[...] = -1.0
        np.testing.assert_array_equal(host(x), before)


def test_slice_setitem_hot_path_writes_through():
    x, ref = pair((6, 3))
    v = x[::-2]
    v[1:] = 7.5
    r = ref[::-2]
    r[1:] = 7.5
    np.testing.assert_array_equal(host(x), ref)
    ver = x.storage()._version
    x[2:4] = 1
    ref[2:4] = 1
    np.testing.assert_array_equal(host(x), ref)
    assert x.storage()._version == ver + 1
    with pytest.raises(IndexError):
        x[1.5:3] = 0.0
    with pytest.raises(ValueError, match="slice step cannot be zero"):  # (NumPy's and PyTorch's)
        x[::0] = 0.0


@pytest.mark.parametrize("args", [(2, 0, 1), ((2, 0, 1),), ([2, 0, 1],), (-1, 0, -2)], ids=repr)
def test_permute_method_spellings_match_numpy(args):
    x, ref = pair((2, 3, 4))
    perm = args[0] if len(args) == 1 else args
    v = x.permute(*args)
    assert_same(v, ref.transpose(perm))
    assert shares(v, x)


@pytest.mark.parametrize("args", [(6, 4), ((4, 6),), ([3, 8],), (-1,), (2, -1, 3)], ids=repr)
def test_reshape_method_spellings_match_numpy(args):
    x, ref = pair((2, 3, 4))
    shape = args[0] if len(args) == 1 and not isinstance(args[0], int) else args
    v = x.reshape(*args)
    assert_same(v, ref.reshape(shape))
    assert shares(v, x)


@pytest.mark.parametrize("f", [lambda x: xp.reshape(x, ([2], 12)), lambda x: xp.permute_dims(x, ([0], 1, 2)),
                               lambda x: xp.broadcast_to(x, ([2], 3, 4))])
def test_unhashable_shape_entries_raise_type_error(f):
    x, _ = pair((2, 3, 4))
    with pytest.raises(TypeError):
        f(x)


def test_hot_path_caches_refuse_bools_as_numpy():
    # Shapes: (True, 6) equals (1, 6) as a cache key, but a bool is no size: NumPy (and
    # PyTorch's factories) raise TypeError, and so does strided whatever its caches hold;
    # floats raise too.
    y = xp.asarray(np.arange(6.0))
    assert xp.reshape(y, (1, 6)).shape == (1, 6)
    with pytest.raises(TypeError):
        np.reshape(np.arange(6.0), (True, 6))
    for f in (lambda: xp.reshape(y, (True, 6)), lambda: y.reshape(True, 6)):
        with pytest.raises(TypeError):
            f()
    x, ref = pair((2, 3))
    assert_same(xp.permute_dims(x, (1, 0)), ref.T)
    # Axes are another matter: NumPy's transpose refuses bools (TypeError), so strided
    # does, whatever its permute cache holds for the equal tuple (1, 0).
    with pytest.raises(TypeError):
        np.transpose(ref, (True, False))
    for f in (lambda: xp.permute_dims(x, (True, False)), lambda: x.permute(True, False)):
        with pytest.raises(TypeError):
            f()
    z = xp.asarray(np.zeros((1, 3)))
    assert xp.broadcast_to(z, (1, 3)).shape == (1, 3)
    with pytest.raises(TypeError):
        np.broadcast_to(np.zeros((1, 3)), (True, 3))
    with pytest.raises(TypeError):
        xp.broadcast_to(z, (True, 3))
    with pytest.raises(TypeError):
        y.reshape(6.0)
    with pytest.raises(TypeError):
        x.permute(1.0, 0)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=4), st.data())
def test_reshape_with_minus_one_matches_numpy(dims, data):
    # One -1 is resolved on reshape's hot path (views._resolve_minus_one); anything NumPy
    # refuses (two -1s, a size that doesn't divide) raises ValueError. (Other negatives:
    # PyTorch raises, NumPy 2.4 takes -2 as -1 for a size-0 array; test_reshape_errors.)
    ref = np.arange(int(np.prod(dims)), dtype=np.float32).reshape(dims)
    x = xp.asarray(ref)
    new = data.draw(st.lists(st.integers(-1, 6), min_size=0, max_size=4).map(tuple))
    try:
        want = ref.reshape(new)
    except ValueError:
        with pytest.raises(ValueError):
            xp.reshape(x, new)
        return
    got = xp.reshape(x, new)
    assert_same(got, want)
    assert type(got.shape[0]) is int if got.ndim else True
    if ref.size:
        assert shares_memory(got, x)


def test_reshape_other_negatives_raise_on_both_paths():
    x = xp.asarray(np.arange(6.0))
    for shape in ((-2, 3), (2, -3), (-1, -1)):
        with pytest.raises(ValueError, match="-1"):
            xp.reshape(x, shape)
