"""Storage: a flat typed buffer shared by every view of it."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp

from conftest import host


def suffix(device) -> str:
    """What a storage's repr says about its device: nothing on the CPU."""
    return "" if device.type == "cpu" else f" (device={device})"


def points():
    return xp.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])


def test_len_and_size():
    s = points().storage()
    assert len(s) == 6
    assert s.size() == 6


def test_getitem_returns_python_scalars():
    s = points().storage()
    assert s[0] == 4.0 and type(s[0]) is float
    assert s[-1] == 1.0
    assert s[1:4] == [1.0, 5.0, 3.0]
    si = xp.arange(4).storage()
    assert type(si[2]) is int and si[2] == 2
    sb = xp.asarray([True, False]).storage()
    assert sb[0] is True


@pytest.mark.parametrize("i", [6, -7, 100])
def test_getitem_out_of_range(i):
    with pytest.raises(IndexError):
        points().storage()[i]


def test_setitem_python_scalars_seen_by_views():
    p = points()
    s = p.storage()
    s[2] = 50.0
    assert p[1, 0].item() == 50.0
    assert p.t()[0, 1].item() == 50.0
    s[-1] = 7
    assert p[2, 1].item() == 7.0
    with pytest.raises(IndexError):
        s[6] = 1.0


def test_setitem_slice():
    s = xp.zeros(5).storage()
    s[1:4] = [1.0, 2.0, 3.0]
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0, 0.0]
    s[::2] = 9.0
    assert s.tolist() == [9.0, 1.0, 9.0, 3.0, 9.0]
    with pytest.raises(ValueError):
        s[0:2] = [1.0, 2.0, 3.0]


def test_iteration_and_tolist():
    s = points().storage()
    assert list(s) == [4.0, 1.0, 5.0, 3.0, 2.0, 1.0]
    assert s.tolist() == [4.0, 1.0, 5.0, 3.0, 2.0, 1.0]


@pytest.mark.parametrize("dtype", [xp.bool, xp.int8, xp.uint16, xp.int32, xp.int64,
                                   xp.float16, xp.float32, xp.float64, xp.complex64,
                                   xp.complex128])
def test_dtype_device_nbytes_element_size(dtype, device):
    x = xp.zeros((2, 3), dtype=dtype)
    s = x.storage()
    assert s.dtype is dtype
    assert s.device == device
    isz = np.dtype(dtype._np).itemsize
    assert s.element_size() == isz
    assert s.nbytes == 6 * isz
    assert x.element_size() == isz


def test_data_ptr_matches_numpy():
    x = xp.arange(10, dtype=xp.int32, device="cpu")  # NumPy's pointer: host memory
    s = x.storage()
    assert s.data_ptr() == x.numpy().ctypes.data
    v = x[3:]
    assert v.storage().data_ptr() == s.data_ptr()
    assert v.data_ptr() == s.data_ptr() + 3 * 4


def test_repr(device):
    s = points().storage()
    r = repr(s)
    assert r.splitlines()[-1] == f"[strided.Storage of float32{suffix(device)}, size 6]"
    assert r.splitlines()[:6] == [" 4.0", " 1.0", " 5.0", " 3.0", " 2.0", " 1.0"]
    assert repr(xp.zeros(0).storage()) == f"[strided.Storage of float32{suffix(device)}, size 0]"


def test_repr_summarises_large_storage(device):
    r = repr(xp.arange(5000).storage()).splitlines()
    assert r[-1] == f"[strided.Storage of int64{suffix(device)}, size 5000]"
    assert len(r) < 20 and " ..." in r


def test_same_storage_object_for_every_view():
    x = xp.arange(12.0).reshape((3, 4))
    s = x.storage()
    assert x.t().storage() is s
    assert x[1].storage() is s
    assert x[:, ::-2].storage() is s
    assert x.reshape((4, 3)).storage() is s
    assert xp.broadcast_to(x[0], (5, 4)).storage() is s
    assert xp.flip(x, axis=0).storage() is s
    assert xp.diagonal(x).storage() is s


def test_storage_of_kernel_result_is_stable():
    y = xp.arange(6) + 1  # a fresh (lazy) result
    s = y.storage()
    assert y.storage() is s
    assert y.t().storage() is s
    assert s.tolist() == [1, 2, 3, 4, 5, 6]


def test_storage_write_seen_by_every_view_and_numpy():
    x = xp.zeros((2, 3))
    views = [x, x.t(), x[1], x[:, 1:], xp.flip(x, axis=1), x.reshape((6,))]
    before = [np.array(host(v)) for v in views]  # copies, taken before the write
    x.storage()[4] = 3.0  # element [1, 1]
    expected = np.zeros((2, 3), np.float32)
    expected[1, 1] = 3.0
    refs = [expected, expected.T, expected[1], expected[:, 1:], expected[:, ::-1], expected.reshape(6)]
    for v, ref, old in zip(views, refs, before):
        np.testing.assert_array_equal(host(v), ref)
        assert not np.array_equal(old, ref)


def test_fill_():
    x = xp.ones((2, 2))
    x.storage().fill_(2.5)
    assert x.tolist() == [[2.5, 2.5], [2.5, 2.5]]


def test_storage_offset_and_contiguous_storage_order():
    p = points()
    assert p[1].storage_offset() == 2
    c = p.t().contiguous()
    assert c.storage() is not p.storage()
    assert c.storage().tolist() == [4.0, 5.0, 2.0, 1.0, 3.0, 1.0]


def test_storage_on_sim_device(sim):
    x = xp.arange(4, device=sim)
    s = x.storage()
    assert s.device is sim
    assert s.tolist() == [0, 1, 2, 3]
    s[0] = 10
    assert x.tolist() == [10, 1, 2, 3]
    assert repr(s).splitlines()[-1] == "[strided.Storage of int64 (device=sim:0), size 4]"


def test_storage_pickles():
    import pickle
    s = points().storage()
    s2 = pickle.loads(pickle.dumps(s))
    assert s2.tolist() == s.tolist() and s2.dtype is s.dtype and s2 is not s
