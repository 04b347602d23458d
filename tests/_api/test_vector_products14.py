"""vecdot and vector @ vector on the host (issue 38, stop 54). vecdot: NumPy's vecdot where strided used matmul on
(..., 1, n) @ (..., n, 1) views, and a lean path for the common call (one dtype, one
device, one shape, the last axis). Both must give the bits of the formulation they
replaced, computed here by NumPy directly (the independent reference): matmul of
conj(x1)[..., None, :] and x2[..., :, None], the axis moved last first; and the lean path
the general path's (the same call with ``axis`` an np.int64, which the lean path leaves
to the checks)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from conftest import host

_DTYPES = ["int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64",
           "complex64", "complex128"]


def _reference(a, b, axis):
    a, b = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)
    if np.iscomplexobj(a):
        a = np.conj(a)
    return np.matmul(a[..., None, :], b[..., :, None])[..., 0, 0]


def _values(rng, shape, dtype):
    v = rng.standard_normal(shape) * 8
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


def _same(r, ref):
    got = host(r)
    ref = np.asarray(ref)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    assert got.tobytes() == ref.tobytes(), (got, ref)


@settings(max_examples=80, deadline=None)
@given(dtype=st.sampled_from(_DTYPES), shape=st.lists(st.integers(0, 9), min_size=1, max_size=3),
       n=st.sampled_from([1, 3, 8, 17, 130]), step=st.sampled_from([1, 2, -1]),
       seed=st.integers(0, 2**32 - 1))
def test_common_call_is_the_references(dtype, shape, n, step, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(shape[:-1]) + (n,)
    a = _values(rng, shape[:-1] + (n * abs(step),), dtype)[..., ::step]
    b = _values(rng, shape[:-1] + (n * abs(step),), dtype)[..., ::step]
    x1, x2 = xp.asarray(a, device="cpu"), xp.asarray(b, device="cpu")
    r = xp.vecdot(x1, x2)
    _same(r, _reference(a, b, -1))
    _same(r, host(xp.vecdot(x1, x2, axis=np.int64(-1))))  # (the checked path)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(_DTYPES), batch1=st.lists(st.integers(1, 4), max_size=2),
       bcast=st.booleans(), n=st.sampled_from([1, 5, 33]), axis=st.sampled_from([-1, -2]),
       seed=st.integers(0, 2**32 - 1))
def test_broadcast_batches_and_other_axes(dtype, batch1, bcast, n, axis, seed):
    rng = np.random.default_rng(seed)
    s1 = tuple(batch1) + (n, 2) if axis == -2 else tuple(batch1) + (n,)
    s2 = tuple(1 if bcast else d for d in s1)
    s2 = s2[:len(s2) + axis] + (n,) + s2[len(s2) + axis + 1:]
    a, b = _values(rng, s1, dtype), _values(rng, s2, dtype)
    r = xp.vecdot(xp.asarray(a, device="cpu"), xp.asarray(b, device="cpu"), axis=axis)
    _same(r, _reference(a, b, axis))


def test_errors_and_promotion_stay_the_checked_paths():
    f32 = xp.asarray([1.0, 2.0], dtype=xp.float32)
    i64 = xp.asarray([3, 4])
    r = xp.vecdot(f32, i64)  # (promoted: not the lean path)
    assert r.dtype == xp.float32 and float(r) == 11.0
    with pytest.raises(TypeError, match="numeric"):
        xp.vecdot(xp.asarray([True]), xp.asarray([True]))
    with pytest.raises(ValueError, match="contracted axis has sizes 2 and 3"):
        xp.vecdot(f32, xp.asarray([1.0, 2.0, 3.0], dtype=xp.float32))
    with pytest.raises(ValueError, match="at least one dimension"):
        xp.vecdot(xp.asarray(1.0), xp.asarray(1.0))
    with pytest.raises(TypeError, match="axis must be an int"):
        xp.vecdot(f32, f32, axis=True)
    with pytest.raises(TypeError):
        xp.vecdot(f32, f32, axis=-1.0)
    with pytest.raises(TypeError, match="strided array"):
        xp.vecdot(np.ones(2), f32)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(_DTYPES), n=st.sampled_from([0, 1, 4, 9, 200]),
       step=st.sampled_from([1, -2]), seed=st.integers(0, 2**32 - 1))
def test_vector_at_vector_is_numpys_dot(dtype, n, step, seed):
    """``x1 @ x2`` of two vectors (a 0-d result): the compiled fast case leaves it to the
    Python path, which adopts NumPy's scalar as a 0-d array: the bits, dtype and shape of
    NumPy's dot (strided's product of vectors and matrices, ``host_product``: on reversed
    float32 vectors it differs from numpy.matmul's loop in the last bit), whichever door
    (operator, function, fresh views)."""
    rng = np.random.default_rng(seed)
    a = _values(rng, (n * abs(step),), dtype)[::step]
    b = _values(rng, (n * abs(step),), dtype)[::step]
    x1, x2 = xp.asarray(a, device="cpu"), xp.asarray(b, device="cpu")
    ref = np.asarray(np.dot(a, b))
    for r in (x1 @ x2, xp.matmul(x1, x2), x1[:] @ x2[:]):
        assert type(r) is xp.Array and r.shape == ()
        _same(r, ref)
