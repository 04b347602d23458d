"""NumPy and PyTorch interop both ways: __array__, asarray, the buffer protocol, DLPack.

Zero-copy is checked by writing through one side and reading the other, and
with ``np.shares_memory``; every check runs over contiguous, transposed,
stepped, flipped (negative strides), broadcast (stride 0), 0-d and empty views.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import strided as xp

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]

# name -> a view of a fresh 3x4 array (base, view) built the same way in NumPy and strided
LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "stepped": lambda a: a[::2, 1::2],
    "flipped": lambda a: a[::-1, ::-2],
    "row": lambda a: a[1],
    "zero-d": lambda a: a[1, 2, ...],
    "empty": lambda a: a[2:2],
}


def _base_np(dtype="float64"):
    return (np.arange(12) % 7).reshape(3, 4).astype(dtype)


def _views(layout, dtype="float64"):
    """The same view of equal data: (numpy view, strided view over a strided base)."""
    a = _base_np(dtype)
    x = xp.asarray(a.copy())
    return LAYOUTS[layout](a), LAYOUTS[layout](x)


def _first_one(a):
    """A value different from a's first element, in a's dtype."""
    return not a.flat[0] if a.dtype == bool else a.flat[0] + 1


# --- np.asarray(x) and strided.asarray(ndarray) -------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_np_asarray_of_strided_is_zero_copy(layout):
    ref, x = _views(layout)
    a = np.asarray(x)
    assert a.shape == ref.shape and a.dtype == ref.dtype
    np.testing.assert_array_equal(a, ref)
    if a.size:
        assert np.shares_memory(a, x.storage()._data)
        a.flat[0] = -5
        assert x.reshape(-1)[0].item() == -5


@pytest.mark.parametrize("layout", LAYOUTS)
def test_strided_asarray_of_ndarray_is_zero_copy(layout):
    a = LAYOUTS[layout](_base_np())
    x = xp.asarray(a)
    assert tuple(x.shape) == a.shape and x.dtype == xp.float64
    np.testing.assert_array_equal(x.numpy(), a)
    if a.size:
        assert np.shares_memory(x.numpy(), a)
        a.flat[0] = 77
        assert x.reshape(-1)[0].item() == 77


@pytest.mark.parametrize("dtype", DTYPES)
def test_asarray_both_ways_keeps_every_dtype(dtype):
    a = _base_np(dtype)
    x = xp.asarray(a)
    assert x.dtype == getattr(xp, dtype)
    back = np.asarray(x)
    assert back.dtype == a.dtype and np.shares_memory(back, a)


def test_np_asarray_copy_and_dtype_requests():
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=xp.float32)
    c = np.asarray(x, copy=True)
    assert not np.shares_memory(c, x.numpy())
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError):
        np.asarray(x, dtype=np.float64, copy=False)


# --- strided dtypes are understood by NumPy -----------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_takes_strided_dtypes(dtype):
    dt = getattr(xp, dtype)
    assert np.dtype(dt) == np.dtype(dtype)
    assert np.zeros(2, dtype=dt).dtype == np.dtype(dtype)
    assert np.arange(3).astype(dt).dtype == np.dtype(dtype)
    # equal to NumPy's in both directions, with NumPy's hash (dask, xarray and cubed
    # compare and key by dtype)
    assert dt == np.dtype(dtype) and np.dtype(dtype) == dt and hash(dt) == hash(np.dtype(dtype))
    assert dt == getattr(np, dtype) and dt is getattr(xp, dtype)
    assert np.issubdtype(dt, np.number) is np.issubdtype(np.dtype(dtype), np.number)
    assert np.result_type(dt, np.int8) == np.result_type(np.dtype(dtype), np.int8)


def test_sklearn_style_numpy_fallback_with_strided_dtype():
    # scikit-learn without dispatch converts X with np.asarray and later casts
    # NumPy results to X.dtype (RidgeCV); that must work for our dtypes.
    x = xp.asarray([[1.0, 2.0]], dtype=xp.float32)
    r = np.asarray(x).astype(np.float64).astype(x.dtype, copy=False)
    assert r.dtype == np.float32


# --- creation functions take shape= as the standard spells it --------------------------

@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_filled_creation_takes_shape_keyword(name):
    f = getattr(xp, name)
    for spelled in (f(shape=(2, 3)), f((2, 3)), f(2, 3), f([2, 3]), f(shape=xp.Size([2, 3]))):
        assert tuple(spelled.shape) == (2, 3) and spelled.dtype == xp.float32
    assert tuple(f(shape=4, dtype=xp.int8).shape) == (4,)
    assert tuple(f(shape=()).shape) == ()
    if name != "empty":
        np.testing.assert_array_equal(f(shape=(2,), dtype=xp.int64).numpy(),
                                      getattr(np, name)((2,), dtype=np.int64))
    with pytest.raises(ValueError, match="negative dimension"):
        f(shape=(2, -1))
    with pytest.raises(TypeError):
        f(shape="ab")


# --- the buffer protocol -----------------------------------------------------------

def test_memoryview_shares_memory():
    x = xp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=xp.float64)
    if sys.version_info >= (3, 12):
        m = memoryview(x)
        assert m.shape == (2, 3) and m.format == "d" and m.c_contiguous
        m[0, 0] = 9.0
        assert x[0, 0].item() == 9.0
        t = memoryview(x.t())
        assert t.strides == (8, 24) and not t.c_contiguous
        with pytest.raises(BufferError):
            memoryview(xp.asarray([1.0], requires_grad=True))
    else:
        # Note: a Python class can serve buffers only from 3.12 (PEP 688).
        with pytest.raises(TypeError):
            memoryview(x)
    m = memoryview(x.numpy())  # on every Python
    assert m.shape == (2, 3) and m.format == "d"
    m[1, 2] = -1.0
    assert x[1, 2].item() == -1.0
    back = xp.asarray(m)  # and a buffer comes back in without a copy
    back[0, 1] = 42.0
    assert x[0, 1].item() == 42.0


def test_buffer_hook_returns_a_shared_memoryview():
    # The hook behind memoryview(x) on 3.12+, called directly so every Python checks it.
    from strided._api.interop import __buffer__

    x = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float64)[::2]
    m = __buffer__(x, 0)
    assert m.shape == (2,) and m.strides == (16,)
    m[1] = 7.0
    assert x[1].item() == 7.0


# --- DLPack with NumPy ---------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_numpy_from_dlpack_of_strided_shares_memory(layout):
    ref, x = _views(layout)
    a = np.from_dlpack(x)
    assert a.shape == ref.shape and a.dtype == ref.dtype
    np.testing.assert_array_equal(a, ref)
    if a.size:
        assert a.strides == x.numpy().strides
        a.flat[0] = -3
        assert x.reshape(-1)[0].item() == -3


@pytest.mark.parametrize("layout", LAYOUTS)
def test_strided_from_dlpack_of_numpy_shares_memory(layout):
    a = LAYOUTS[layout](_base_np())
    x = xp.from_dlpack(a)
    assert type(x) is xp.Array and x.device == xp.Device("cpu")
    assert tuple(x.shape) == a.shape and x.dtype == xp.float64
    np.testing.assert_array_equal(x.numpy(), a)
    if a.size:
        assert np.shares_memory(x.numpy(), a)


def test_from_dlpack_of_broadcast_numpy_view():
    a = np.broadcast_to(np.arange(4.0), (3, 4))
    x = xp.from_dlpack(a)
    assert x.stride() == (0, 1)
    np.testing.assert_array_equal(x.numpy(), a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dlpack_round_trip_every_dtype(dtype):
    a = _base_np(dtype)
    x = xp.from_dlpack(a)
    assert x.dtype == getattr(xp, dtype)
    b = np.from_dlpack(x)
    assert b.dtype == a.dtype and np.shares_memory(a, b)


def test_from_dlpack_copy_keyword():
    a = np.arange(6.0).reshape(2, 3)
    c = xp.from_dlpack(a, copy=True)
    a[0, 0] = 100.0
    assert c[0, 0].item() == 0.0
    s = xp.from_dlpack(a, copy=False)
    a[0, 1] = 200.0
    assert s[0, 1].item() == 200.0
    assert xp.from_dlpack(a, device="cpu").numpy().base is not None


def test_dlpack_device_and_strided_input():
    x = xp.asarray([1.0, 2.0])
    dev_type, dev_id = x.__dlpack_device__()
    assert (int(dev_type), dev_id) == (1, 0)
    assert xp.from_dlpack(x) is x
    c = xp.from_dlpack(x, copy=True)
    assert c is not x and c.storage() is not x.storage()


def test_from_dlpack_errors():
    with pytest.raises(TypeError, match="DLPack"):
        xp.from_dlpack([1, 2, 3])
    with pytest.raises(BufferError, match="requires grad"):
        np.from_dlpack(xp.asarray([1.0], requires_grad=True))

    class Elsewhere:
        def __dlpack__(self, **kwargs):
            raise AssertionError("must not be called")

        def __dlpack_device__(self):
            return (4, 0)  # kDLOpenCL

    with pytest.raises(ValueError, match="device type 4"):
        xp.from_dlpack(Elsewhere())


# --- DLPack and asarray with PyTorch ------------------------------------------------------

TORCH_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32",
                "float64", "complex64", "complex128"]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("layout", [k for k in LAYOUTS if k != "flipped"])
def test_torch_from_dlpack_of_strided_shares_memory(torch, layout):
    ref, x = _views(layout)
    t = torch.from_dlpack(x)
    assert tuple(t.shape) == ref.shape and t.dtype == torch.float64
    np.testing.assert_array_equal(t.numpy(), ref)
    if t.numel():
        assert t.stride() == x.stride()
        t[(0,) * t.dim()] = -8
        assert x[(0,) * x.ndim].item() == -8


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_torch_dlpack_both_ways_every_dtype(torch, dtype):
    a = _base_np(dtype)
    x = xp.asarray(a)
    t = torch.from_dlpack(x)
    assert str(t.dtype) == f"torch.{dtype}"
    assert t.data_ptr() == x.data_ptr()
    y = xp.from_dlpack(t)
    assert y.dtype == getattr(xp, dtype) and y.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(y.numpy(), a)


def test_strided_asarray_of_torch_tensor_shares_memory(torch):
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)[:, 1::2]
    x = xp.asarray(t)
    assert x.stride() == t.stride() and x.data_ptr() == t.data_ptr()
    t[0, 0] = -1
    assert x[0, 0].item() == -1
    assert xp.asarray(t, copy=True).data_ptr() != t.data_ptr()


# --- moving between devices keeps shapes (scikit-learn moves 0-d results to the host) ---

@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_device_round_trip_keeps_shape_and_values(layout):
    ref, x = _views(layout)
    far = x.to_device("far:0")
    assert far.device == xp.Device("far:0") and tuple(far.shape) == ref.shape
    back = far.to_device("cpu")
    assert tuple(back.shape) == ref.shape and back.dtype == x.dtype
    np.testing.assert_array_equal(back.numpy(), ref)
    with pytest.raises(TypeError, match="far"):
        np.asarray(far)


# --- NumPy scalars act as the Python scalars they hold (as in PyTorch) -------------------
# SciPy hands them to our operators (scipy.integrate.tanhsinh: ``xp.sum(...) * h``).

NP_SCALARS = [np.float64(2.5), np.float32(2.5), np.float16(2.5), np.int64(3), np.int8(-2),
              np.uint8(200), np.bool_(True), np.complex128(1 - 2j)]


@pytest.mark.parametrize("s,op", [
    pytest.param(s, op, id=f"{type(s).__name__}-{op}")
    for s in NP_SCALARS for op in ("add", "subtract", "multiply", "less", "equal")
    if not (np.iscomplexobj(s) and op == "less")])  # complex numbers have no order
def test_numpy_scalar_operands_are_python_scalars(s, op):
    x = xp.asarray([1.0, 2.0, 4.0], dtype=xp.float32)
    f = getattr(xp, op)
    sym = {"add": "+", "subtract": "-", "multiply": "*", "less": "<", "equal": "=="}[op]
    if op == "subtract" and type(s) is np.bool_:  # (PyTorch's rule: no bool operand in subtract)
        for call in (lambda: f(x, s.item()), lambda: f(x, s), lambda: f(s, x), lambda: x - s, lambda: s - x):
            with pytest.raises(TypeError, match="subtract.*bool"):
                call()
        return
    expected = [f(x, s.item()), f(s.item(), x)]
    results = [f(x, s), f(s, x), eval(f"x {sym} s"), eval(f"s {sym} x")]
    for got, want in zip(results, expected + expected):
        assert type(got) is xp.Array and got.dtype == want.dtype
        assert got.tolist() == want.tolist()


def test_numpy_scalar_in_place_and_errors():
    y = xp.asarray([1, 2], dtype=xp.int8)
    y += np.int64(3)
    assert y.dtype == xp.int8 and y.tolist() == [4, 5]
    with pytest.raises(TypeError, match="unsupported operand type str_"):
        xp.add(y, np.str_("a"))
    with pytest.raises(TypeError, match="unsupported operand type datetime64"):
        xp.multiply(np.datetime64("2020-01-01"), y)


# --- Python types as dtypes in the torch-style view (SciPy's RBFInterpolator: d.view(float)) ---

def test_view_takes_python_types_as_dtypes():
    x = xp.asarray([1.5, -2.0], dtype=xp.float64)
    assert x.view(float).dtype == xp.float64 and np.shares_memory(x.view(float).numpy(), x.numpy())
    assert x.view(int).dtype == xp.int64
    np.testing.assert_array_equal(x.view(int).numpy(), x.numpy().view(np.int64))
    assert xp.asarray([1, 0], dtype=xp.uint8).view(bool).tolist() == [True, False]
    assert xp.asarray([1j], dtype=xp.complex128).view(complex).dtype == xp.complex128
    assert tuple(x.view(2, 1).shape) == (2, 1) and tuple(x.view((2,)).shape) == (2,)
