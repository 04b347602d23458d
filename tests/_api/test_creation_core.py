"""Creation (asarray, tensor, from_numpy, filled arrays, arange), NumPy sharing,
and the torch-style basics of the Array object."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp

from conftest import assert_same, host


def shares(a: np.ndarray, x) -> bool:
    """Whether the CPU array ``x`` shares memory with the NumPy array ``a``."""
    return np.shares_memory(a, x.numpy())


# --- asarray -----------------------------------------------------------------------

@pytest.mark.parametrize("value,dtype", [(True, xp.bool), (3, xp.int64), (-2.5, xp.float32),
                                         (1 + 2j, xp.complex64)])
def test_asarray_python_scalars(value, dtype):
    x = xp.asarray(value)
    assert x.shape == () and x.dtype is dtype and x.item() == value
    assert type(x.item()) is type(value)


def test_asarray_scalar_with_dtype():
    assert xp.asarray(3, dtype=xp.float64).item() == 3.0
    assert xp.asarray(2.9, dtype=xp.int32).item() == 2  # truncates, like PyTorch
    with pytest.raises(OverflowError):
        xp.asarray(300, dtype=xp.uint8)
    with pytest.raises(OverflowError):
        xp.asarray(2 ** 70)
    with pytest.raises(TypeError):
        xp.asarray(1j, dtype=xp.float32)
    with pytest.raises(ValueError):
        xp.asarray(float("nan"), dtype=xp.int64)


@pytest.mark.parametrize("obj", [[[1, 2], [3, 4]], ((1.5, 2.5), (3.5, 4.5)), [[True], [False]],
                                 [[[1j]]], [], [[], []], [1, 2.5], [True, 2]])
def test_asarray_nested_sequences(obj):
    x = xp.asarray(obj)
    ref = np.asarray(obj)
    assert x.shape == ref.shape
    assert x.tolist() == ref.tolist()
    expect = {"b": xp.bool, "i": xp.int64, "f": xp.float32, "c": xp.complex64}[ref.dtype.kind]
    assert x.dtype is expect


def test_asarray_sequence_with_dtype():
    assert_same(xp.asarray([[1, 2]], dtype=xp.int8), np.array([[1, 2]], np.int8))
    assert_same(xp.asarray([1.7, -1.7], dtype=xp.int16), np.array([1, -1], np.int16))
    with pytest.raises(OverflowError):
        xp.asarray([1, 300], dtype=xp.int8)
    with pytest.raises(TypeError):
        xp.asarray([1j], dtype=xp.int8)


@pytest.mark.parametrize("obj,exc", [([[1, 2], [3]], ValueError), ("abc", TypeError),
                                     ([object()], TypeError), ({1: 2}, TypeError)])
def test_asarray_errors(obj, exc):
    with pytest.raises(exc):
        xp.asarray(obj)


def test_asarray_list_of_numpy_arrays_and_arrays():
    x = xp.asarray([np.arange(3, dtype=np.int32), np.arange(3, 6, dtype=np.int32)])
    assert_same(x, np.arange(6, dtype=np.int32).reshape(2, 3))
    y = xp.asarray([xp.asarray([1.0, 2.0]), xp.asarray([3.0, 4.0])])
    assert y.shape == (2, 2) and y.tolist() == [[1.0, 2.0], [3.0, 4.0]]


@pytest.mark.parametrize("copy", [None, False])
def test_asarray_shares_numpy_memory_both_ways(copy):
    n = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(n, copy=copy, device="cpu")  # host memory is shared on the CPU only
    assert x.dtype is xp.float64 and shares(n, x)
    x[0, 0] = 5.0
    assert n[0, 0] == 5.0
    n[1, 2] = -1.0
    assert x[1, 2].item() == -1.0


@pytest.mark.parametrize("view", [lambda n: n.T, lambda n: n[:, ::-2], lambda n: n[1:, 1:],
                                  lambda n: n[::-1, ::-1], lambda n: n[0]])
def test_asarray_shares_noncontiguous_numpy_views(view):
    n = np.arange(24.0).reshape(4, 6)
    v = view(n)
    x = xp.asarray(v, device="cpu")
    assert_same(x, v)
    assert shares(n, x)
    x[(0,) * x.ndim] = -7.0
    assert v[(0,) * v.ndim] == -7.0
    assert x.stride() == tuple(s // 8 for s in v.strides)


def test_asarray_copy_true_copies():
    n = np.arange(3.0)
    x = xp.asarray(n, copy=True)
    x[0] = 10.0
    assert n[0] == 0.0
    y = xp.asarray(x, copy=True)
    assert y.storage() is not x.storage()


def test_asarray_dtype_change_copies_and_copy_false_raises():
    n = np.arange(3.0)
    x = xp.asarray(n, dtype=xp.float32, device="cpu")
    assert x.dtype is xp.float32 and not shares(n, x)
    with pytest.raises(ValueError):
        xp.asarray(n, dtype=xp.float32, copy=False)
    a = xp.arange(3)
    with pytest.raises(ValueError):
        xp.asarray(a, dtype=xp.int32, copy=False)
    for obj in ([1, 2], 3, (1.0,), np.float64(1.0)):
        with pytest.raises(ValueError):
            xp.asarray(obj, copy=False)


def test_asarray_of_an_array_returns_it():
    x = xp.arange(3)
    assert xp.asarray(x) is x
    assert xp.asarray(x, copy=False) is x
    assert xp.asarray(x, dtype=xp.int64) is x
    c = xp.asarray(x, dtype=xp.float32)
    assert c.dtype is xp.float32 and c.tolist() == [0.0, 1.0, 2.0]


def test_asarray_numpy_scalars_and_buffers():
    assert xp.asarray(np.float64(2.5)).dtype is xp.float64
    assert xp.asarray(np.int16(2)).dtype is xp.int16
    b = bytearray(b"\x01\x02")
    assert xp.asarray(b).tolist() == [1, 2]
    assert xp.asarray(memoryview(np.arange(3, dtype=np.int32))).dtype is xp.int32


def test_asarray_big_endian_numpy():
    n = np.arange(3, dtype=">i4")
    x = xp.asarray(n)
    assert x.dtype is xp.int32 and x.tolist() == [0, 1, 2]


# --- tensor / as_tensor / from_numpy -------------------------------------------------------

def test_tensor_always_copies():
    n = np.arange(3.0)
    t = xp.tensor(n)
    t[0] = 5.0
    assert n[0] == 0.0
    x = xp.arange(3)
    y = xp.tensor(x)
    assert y.storage() is not x.storage() and y.tolist() == [0, 1, 2]


def test_tensor_float_lists_truncate_into_integer_dtypes():
    assert_same(xp.tensor([1.1, 2.7], dtype=xp.int16), np.array([1, 2], np.int16))
    assert_same(xp.tensor([-1.9, 0.5], dtype=xp.int64), np.array([-1, 0], np.int64))
    assert xp.tensor([0.0, 2.0], dtype=xp.bool).tolist() == [False, True]


def test_tensor_dtype_inference_like_pytorch():
    assert xp.tensor([1, 2]).dtype is xp.int64
    assert xp.tensor([1, 2.0]).dtype is xp.float32
    assert xp.tensor([1j]).dtype is xp.complex64
    assert xp.tensor([]).dtype is xp.float32
    assert xp.tensor(3.0).shape == ()
    assert xp.tensor(np.arange(3, dtype=np.int16)).dtype is xp.int16


def test_as_tensor_shares_when_it_can():
    n = np.arange(3.0)
    a = xp.as_tensor(n, device="cpu")
    assert shares(n, a)
    b = xp.as_tensor(n, dtype=xp.float32, device="cpu")
    assert not shares(n, b) and b.dtype is xp.float32
    assert xp.as_tensor([1, 2]).tolist() == [1, 2]


def test_from_numpy_shares():
    n = np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::-1]
    x = xp.from_numpy(n)
    assert_same(x, n)
    assert shares(n, x)
    n[0, 0] = 100
    assert x[0, 0].item() == 100


@pytest.mark.parametrize("obj", [[1, 2], 3, xp.arange(3), np.float32(1.0)])
def test_from_numpy_rejects_non_ndarrays(obj):
    with pytest.raises(TypeError, match="numpy.ndarray"):
        xp.from_numpy(obj)


def test_from_numpy_rejects_unsupported_dtypes():
    with pytest.raises(TypeError):
        xp.from_numpy(np.array(["a"]))


# --- back to NumPy ----------------------------------------------------------------------

def test_numpy_method_shares():
    x = xp.arange(6.0, device="cpu").reshape((2, 3))
    v = x.t()[::-1]
    n = v.numpy()
    np.testing.assert_array_equal(n, np.arange(6.0, dtype=np.float32).reshape(2, 3).T[::-1])
    n[0, 0] = -1.0  # v[0, 0] is x[0, 2]
    assert x[0, 2].item() == -1.0
    x[0, 0] = 42.0
    assert n[2, 0] == 42.0


@pytest.mark.parametrize("make", [
    lambda: xp.ones((2, 3, 4), device="cpu").permute(1, 0, 2) + 1,  # NumPy keeps the input's axis order
    lambda: xp.ones((3, 4), device="cpu").t() * 2,  # F order
    lambda: xp.ones((2, 3), device="cpu") + 1,  # C order
    lambda: xp.flip(xp.ones((2, 3, 4), device="cpu"), axis=1).permute(2, 0, 1) - 1,
])
def test_numpy_of_a_kernel_result_stays_shared(make):
    y = make()
    n = y.numpy()
    s = y.storage()  # the result adopts its memory as a Storage
    n[(0,) * n.ndim] = 50.0
    assert y[(0,) * n.ndim].item() == 50.0
    y[(-1,) * n.ndim] = -50.0
    assert n[(-1,) * n.ndim] == -50.0
    assert y.storage() is s and np.shares_memory(n, y.t().numpy() if y.ndim == 2 else y[0].numpy())


def test_np_asarray_shares_and_honours_dtype_and_copy():
    x = xp.arange(4.0, device="cpu")
    a = np.asarray(x)
    assert a.dtype == np.float32 and np.shares_memory(a, x.numpy())
    a[0] = 9.0
    assert x[0].item() == 9.0
    b = np.asarray(x, dtype=np.float64)
    assert b.dtype == np.float64 and not np.shares_memory(b, x.numpy())
    c = np.array(x, copy=True)
    assert not np.shares_memory(c, x.numpy())
    d = np.asarray(x, copy=False)
    assert np.shares_memory(d, x.numpy())
    with pytest.raises(ValueError):
        np.asarray(x, dtype=np.float64, copy=False)


def test_numpy_ufuncs_on_arrays():
    x = xp.asarray([1.0, 4.0])
    r = np.sqrt(x)  # __array_ufunc__: strided's sqrt, a strided result
    assert type(r) is xp.Array and r.tolist() == [1.0, 2.0]


# --- zeros / ones / empty / full / arange --------------------------------------------------

@pytest.mark.parametrize("fn,fill", [(xp.zeros, 0), (xp.ones, 1), (xp.empty, None)])
@pytest.mark.parametrize("args,shape", [(((2, 3),), (2, 3)), ((2, 3), (2, 3)), (([2, 3],), (2, 3)),
                                        ((4,), (4,)), (((),), ()), ((0, 2), (0, 2)),
                                        ((xp.Size([3, 1]),), (3, 1)), ((np.int64(2),), (2,))])
def test_filled_arrays_take_tuple_or_varargs(fn, fill, args, shape, device):
    x = fn(*args)
    assert x.shape == shape and x.dtype is xp.float32 and x.device == device
    assert x.is_contiguous()
    if fill is not None:
        np.testing.assert_array_equal(host(x), np.full(shape, fill, np.float32))


@pytest.mark.parametrize("fn", [xp.zeros, xp.ones, xp.empty])
def test_filled_arrays_dtype_and_errors(fn):
    assert fn(2, dtype=xp.int8).dtype is xp.int8
    with pytest.raises(ValueError):
        fn(2, -1)
    with pytest.raises(TypeError):
        fn(2.5)
    with pytest.raises(TypeError):
        fn((2, "a"))


def test_full():
    assert_same(xp.full((2, 2), 7), np.full((2, 2), 7, np.int64))
    assert_same(xp.full(3, 1.5), np.full(3, 1.5, np.float32))
    assert_same(xp.full((2,), True), np.full(2, True))
    assert_same(xp.full((1,), 2j), np.full(1, 2j, np.complex64))
    assert_same(xp.full((2,), 3, dtype=xp.float64), np.full(2, 3.0))
    with pytest.raises(OverflowError):
        xp.full((2,), 1000, dtype=xp.int8)
    with pytest.raises(TypeError):
        xp.full((2,), 1j, dtype=xp.float32)
    with pytest.raises(TypeError):
        xp.full((2,), "x")


@pytest.mark.parametrize("args,kw", [((5,), {}), ((2, 10), {}), ((2, 10, 3), {}), ((10, 2, -3), {}),
                                     ((0, 1, 0.25), {}), ((1.5,), {}), ((5,), {"dtype": xp.float64}),
                                     ((0, -1), {}), ((3, 3), {}), ((-2.5, 2.5, 0.5), {}),
                                     ((0, 10, 3), {"dtype": xp.int8})])
def test_arange_matches_numpy(args, kw):
    x = xp.arange(*args, **kw)
    ref = np.arange(*args)
    want = kw.get("dtype", xp.int64 if ref.dtype.kind == "i" else xp.float32)
    assert x.dtype is want
    np.testing.assert_allclose(host(x), ref.astype(want._np), rtol=0, atol=1e-6)


def test_arange_errors():
    with pytest.raises(ValueError):
        xp.arange(0, 5, 0)
    with pytest.raises(TypeError):
        xp.arange("5")


@pytest.mark.parametrize("num", [0, 1, 2, 7])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_matches_numpy(num, endpoint):
    x = xp.linspace(0.0, 1.0, num, endpoint=endpoint, dtype=xp.float64)
    assert_same(x, np.linspace(0.0, 1.0, num, endpoint=endpoint))


# --- torch-style Array basics ---------------------------------------------------------------

def test_size_and_shape():
    x = xp.zeros(2, 3, 4)
    assert x.shape == (2, 3, 4) and isinstance(x.shape, tuple)
    assert repr(x.shape) == "strided.Size([2, 3, 4])"
    assert x.size == 24  # the standard's attribute
    assert x.size() == (2, 3, 4) and repr(x.size()) == "strided.Size([2, 3, 4])"
    assert x.size(1) == 3 and x.size(-1) == 4
    with pytest.raises(IndexError):
        x.size(3)
    assert x.shape.numel() == 24
    assert xp.zeros(()).size == 1 and xp.zeros((0, 3)).size == 0


def test_stride_storage_offset_contiguity():
    x = xp.zeros(2, 3, 4)
    assert x.stride() == (12, 4, 1)
    assert x.stride(0) == 12 and x.stride(-1) == 1
    with pytest.raises(IndexError):
        x.stride(3)
    v = x[1, 1:]
    assert v.storage_offset() == 16 and v.is_contiguous()
    assert not x[:, 1].is_contiguous()
    assert x.is_contiguous()
    assert x[:, :1].is_contiguous() is False
    assert xp.zeros(3, 1)[:, 0].is_contiguous()  # size-1 dims don't matter


def test_contiguous_returns_self_when_contiguous():
    x = xp.arange(6).reshape((2, 3))
    assert x.contiguous() is x
    t = x.t()
    c = t.contiguous()
    assert c is not t and c.is_contiguous() and c.storage() is not x.storage()
    assert c.tolist() == t.tolist()
    assert c.stride() == (2, 1)


def test_clone_copies():
    x = xp.arange(6.0).reshape((2, 3))[:, ::-1]
    c = x.clone()
    assert c.tolist() == x.tolist() and c.is_contiguous()
    assert c.storage() is not x.storage()
    c[0, 0] = 100.0
    assert x[0, 0].item() == 2.0


def test_numel_dim_len_element_size():
    x = xp.zeros(2, 3, dtype=xp.float64)
    assert x.numel() == 6 and x.dim() == 2 and x.ndim == 2 and len(x) == 2
    assert x.element_size() == 8 and x.itemsize == 8 and x.nbytes == 48
    z = xp.asarray(1.0)
    assert z.numel() == 1 and z.dim() == 0
    with pytest.raises(TypeError):
        len(z)


def test_item_and_tolist():
    assert xp.asarray([[2.5]]).item() == 2.5
    assert type(xp.asarray([3]).item()) is int
    assert xp.asarray(True).item() is True
    with pytest.raises(ValueError):
        xp.arange(2).item()
    x = xp.arange(6).reshape((2, 3)).t()
    assert x.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert xp.asarray(5).tolist() == 5
    assert xp.asarray([1 + 1j]).tolist() == [1 + 1j]


def test_data_ptr_follows_the_offset():
    x = xp.arange(10, dtype=xp.int16)  # on the default device: its own pointers
    assert x[4:].data_ptr() == x.data_ptr() + 8
    assert x.t().data_ptr() == x.data_ptr() and x[::-1].data_ptr() == x.data_ptr() + 18
    c = xp.arange(10, dtype=xp.int16, device="cpu")  # on the CPU: NumPy's pointers
    assert c.data_ptr() == c.numpy().ctypes.data
    assert c[4:].data_ptr() == c[4:].numpy().ctypes.data


def test_iteration_yields_0d_or_row_views():
    x = xp.arange(3)
    items = list(x)
    assert all(isinstance(i, xp.Array) and i.shape == () for i in items)
    assert [i.item() for i in items] == [0, 1, 2]
    rows = list(xp.arange(6).reshape((2, 3)))
    assert [r.tolist() for r in rows] == [[0, 1, 2], [3, 4, 5]]
    rows[1][0] = 30
    assert all(r.storage() is rows[0].storage() for r in rows)
    with pytest.raises(TypeError):
        iter(xp.asarray(1.0)).__next__()


def test_python_scalar_conversions():
    assert float(xp.asarray([2.5])) == 2.5
    assert int(xp.asarray(2.9)) == 2
    assert bool(xp.asarray([1])) is True
    assert complex(xp.asarray(1j)) == 1j
    assert [10, 20, 30][xp.asarray(1)] == 20
    with pytest.raises(TypeError):
        float(xp.arange(2.0))
    with pytest.raises(TypeError):
        [1, 2][xp.asarray(1.0)]
    with pytest.raises(TypeError):
        int(xp.asarray(1j))


def test_operators_broadcast_against_numpy():
    a = np.arange(6.0).reshape(2, 3)
    b = np.array([1.0, -2.0, 0.5])
    x, y = xp.asarray(a), xp.asarray(b)
    assert_same(x + y, a + b)
    assert_same(x * y.reshape((3,))[None], a * b[None])
    assert_same(x.t() - y[:, None], a.T - b[:, None])
    assert_same(x / 2, a / 2)
    assert_same(2 - x, 2 - a)
    assert_same(x > y, a > b)
    assert_same((x > 1) & (y < 1), (a > 1) & (b < 1))
    assert_same(-x, -a)
    with pytest.raises(ValueError):
        x + xp.ones(4)
