"""The doors scikit-learn's lbfgs loop passes through every iteration (issue 38, realwork5):
``asarray`` of a NumPy view with its own dtype asked for, the Storage of a non-contiguous
NumPy view (a slice of its base, not ``as_strided``), and ``__dlpack__`` /
``__dlpack_device__`` of a host array (``numpy.from_dlpack``). Each is checked against
NumPy's own view of the same memory (values, strides, shared writes, read-only flags) and
against the general path it shortcuts (errors, dtypes)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp
from strided._api import creation as _creation

CPU = xp.Device("cpu")


def _views(draw_base, data):
    """A view of ``base`` by a random basic index (slices with steps, negative too)."""
    base = draw_base
    key = []
    for n in base.shape:
        start = data.draw(st.integers(0, max(n - 1, 0)))
        stop = data.draw(st.integers(start, n))
        step = data.draw(st.sampled_from([1, 2, 3, -1, -2]))
        key.append(slice(start, stop, step) if step > 0 else slice(stop - 1 if stop else None,
                                                                   start - 1 if start else None,
                                                                   step))
    return base[tuple(key)]


@settings(max_examples=150, deadline=None)
@given(data=st.data(),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6),
       dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int16, np.bool_, np.complex64]),
       order=st.sampled_from(["C", "F"]))
def test_asarray_of_a_numpy_view_shares_its_memory(data, shape, dtype, order):
    base = np.asarray(np.arange(int(np.prod(shape))).reshape(shape), dtype=dtype, order=order)
    v = _views(base, data)
    s = xp.asarray(v, device=CPU) if data.draw(st.booleans()) else \
        xp.asarray(v, dtype=xp.asarray(v.copy(), device=CPU).dtype, device=CPU)
    np.testing.assert_array_equal(s.numpy(), v)
    assert s.numpy().strides == v.strides
    assert s.dtype == xp.asarray(np.zeros(1, dtype), device=CPU).dtype
    if v.size:
        # the Storage covers exactly the memory the view spans, as NumPy's byte_bounds say
        lo, hi = np.lib.array_utils.byte_bounds(v)
        assert s.storage().size() * v.itemsize == hi - lo
        # a write through strided lands in the caller's array, and the other way round
        idx = tuple(0 for _ in v.shape)
        new = np.asarray(1, dtype=dtype) if dtype is np.bool_ else np.asarray(-7, dtype=dtype)
        s[idx] = xp.asarray(new, device=CPU)
        assert v[idx] == new
        v[idx] = np.zeros((), dtype)
        assert s[idx].item() == v[idx].item()


def test_a_read_only_view_stays_read_only():
    base = np.arange(12.0).reshape(3, 4)
    v = base[:, ::2]
    v.flags.writeable = False
    s = xp.asarray(v, device=CPU)
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        s[0, 0] = 5.0
    assert base[0, 0] == 0.0
    assert _creation._flat_in_base(v, 0, 5) is None  # (a writeable slice of base would leak)


def test_flat_in_base_slices_only_a_c_contiguous_writeable_base_of_its_dtype():
    base = np.arange(24.0).reshape(4, 6)
    v = base[1:, ::2]
    f = _creation._flat_in_base(v, 0, 16)
    assert f is not None and np.shares_memory(f, base)
    assert f[0] == v[0, 0] and f[-1] == base.reshape(-1)[6 + 15]
    assert _creation._flat_in_base(np.asfortranarray(base)[:, ::2], 0, 3) is None  # F-order base
    assert _creation._flat_in_base(base.view(np.int64)[:, ::2], 0, 3) is None     # base's dtype differs
    assert _creation._flat_in_base(np.arange(10.0)[::2].copy(), 0, 5) is None      # owns its data
    ro = np.frombuffer(bytes(16), dtype=np.uint8)[::2]
    assert _creation._flat_in_base(ro, 0, 8) is None                                # read-only
    # an extent that would run past the base's end is refused, not clipped
    assert _creation._flat_in_base(base[3:, :], 0, 7) is None


def test_sklearn_coef_views_share_and_match():
    # scikit-learn's multinomial weight_intercept: coef.reshape((k, -1), order="F")
    coef = np.random.default_rng(0).random(63)
    w = coef.reshape((3, -1), order="F")
    weights, intercept = w[:, :-1], w[:, -1]
    X = xp.asarray(np.random.default_rng(1).random((10, 20)), device=CPU)
    sw = xp.asarray(weights, dtype=X.dtype, device=X.device)
    si = xp.asarray(intercept, dtype=X.dtype, device=X.device)
    np.testing.assert_array_equal(sw.numpy(), weights)
    np.testing.assert_array_equal(si.numpy(), intercept)
    r = X @ sw.T + si
    np.testing.assert_array_equal(r.numpy(), X.numpy() @ weights.T + intercept)
    coef[0] = 99.0
    assert sw[0, 0].item() == 99.0


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int32])
def test_asarray_hot_path_matches_general(dt):
    a = np.arange(12, dtype=dt).reshape(3, 4)[:, 1:]
    other = xp.float32 if dt is not np.float32 else xp.float64
    # another dtype: a cast (a copy), not a view
    s = xp.asarray(a, dtype=other, device=CPU)
    assert s.dtype == other
    np.testing.assert_array_equal(s.numpy(), a.astype(other.name if hasattr(other, "name") else None))
    a2 = a.copy()
    s2 = xp.asarray(a2, device=CPU)
    s2[0, 0] = 3
    assert a2[0, 0] == 3
    # copy=True still copies; copy=False shares
    s3 = xp.asarray(a2, copy=True, device=CPU)
    s3[0, 0] = 5
    assert a2[0, 0] == 3
    s4 = xp.asarray(a2, copy=False, device=CPU)
    s4[0, 0] = 6
    assert a2[0, 0] == 6
    with pytest.raises(TypeError, match="device"):
        xp.asarray(a2, device=3.5)


def test_asarray_of_a_numpy_array_follows_the_default_device():
    # the hot path must not pin the CPU when the default device is another one
    a = np.arange(6.0)
    dev = xp.get_default_device()
    s = xp.asarray(a)
    assert s.device == dev
    np.testing.assert_array_equal(np.asarray(s.cpu().numpy() if dev.type != "cpu" else s.numpy()), a)


@settings(max_examples=60, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
       dtype=st.sampled_from([np.float64, np.float32, np.int8, np.uint16, np.bool_, np.complex128]),
       transpose=st.booleans(), copy=st.sampled_from([None, True, False]))
def test_from_dlpack_of_a_host_array_is_numpys(shape, dtype, transpose, copy):
    base = np.asarray(np.arange(int(np.prod(shape))).reshape(shape), dtype=dtype)
    s = xp.asarray(base.copy(), device=CPU)
    ref = base.copy()
    if transpose:
        s, ref = s.mT if s.ndim >= 2 else s, ref.swapaxes(-1, -2) if ref.ndim >= 2 else ref
    r = np.from_dlpack(s, copy=copy)
    np.testing.assert_array_equal(r, ref)
    assert r.dtype == ref.dtype and r.shape == ref.shape
    assert s.__dlpack_device__() == ref.__dlpack_device__()
    if r.size:
        shared = np.shares_memory(r, s.numpy())
        assert shared is (copy is not True)


def test_dlpack_errors_are_numpys():
    s = xp.asarray(np.arange(3.0), device=CPU)
    with pytest.raises(RuntimeError, match="stream"):
        s.__dlpack__(stream=1)
    with pytest.raises(RuntimeError, match="stream"):
        np.arange(3.0).__dlpack__(stream=1)
    g = xp.asarray(np.arange(3.0), device=CPU, requires_grad=True)
    with pytest.raises(BufferError, match="requires grad"):
        g.__dlpack__()


@settings(max_examples=60, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
       dtype=st.sampled_from([np.float64, np.float32, np.int64, np.bool_]),
       perm=st.booleans(), spell=st.sampled_from(["none", "same", "device"]))
def test_asarray_copy_true_of_an_array_is_a_fresh_copy_in_its_order(shape, dtype, perm, spell):
    ref = np.asarray(np.arange(int(np.prod(shape))).reshape(shape), dtype=dtype)
    x = xp.asarray(ref.copy())
    if perm and x.ndim >= 2:
        x, ref = xp.permute_dims(x, tuple(reversed(range(x.ndim)))), ref.transpose()
    kw = {} if spell == "none" else {"dtype": x.dtype} if spell == "same" else {"device": x.device}
    c = xp.asarray(x, copy=True, **kw)
    assert c.dtype == x.dtype and c.device == x.device and c.shape == x.shape
    np.testing.assert_array_equal(np.asarray(c.cpu()), ref)
    # NumPy's copy(order="K") keeps the memory order: the same strides as numpy's own copy
    if x.device.type == "cpu":
        # (the stride of an axis of size 1 is never used: NumPy and strided may differ there)
        want = np.asarray(ref).copy(order="K")
        assert [s for s, n in zip(c.numpy().strides, c.shape) if n > 1] == \
            [s for s, n in zip(want.strides, want.shape) if n > 1]
    if ref.size:
        assert c.storage() is not x.storage()
        c[(0,) * c.ndim] = xp.asarray(np.ones((), dtype), device=c.device)
        np.testing.assert_array_equal(np.asarray(x.cpu()), ref)  # the source is untouched


def test_asarray_copy_true_with_grad_or_another_dtype_takes_the_general_path():
    x = xp.asarray(np.arange(4.0))
    c = xp.asarray(x, copy=True, dtype=xp.float32)
    assert c.dtype == xp.float32 and c.tolist() == [0.0, 1.0, 2.0, 3.0]
    g = xp.asarray(np.arange(3.0), requires_grad=True)
    c = xp.asarray(g, copy=True)
    assert c.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError):
        xp.asarray(x, copy=True, dtype="not a dtype")
