"""The torch-style tensor API: in-place methods, out=, factories, random, conversions.

Driven by the elementwise registry: every row is checked in place and with
``out=`` against its own out-of-place result, which is itself checked against
NumPy in test_elementwise.py.
"""

import numpy as np
import pytest

import strided as xp
from strided._api import elementwise as _elementwise
from strided._core.storage import Storage

from conftest import host, shares_memory

ROWS = _elementwise.ROWS

# Inputs inside every function's domain (acosh needs >= 1, atanh |x| < 1, ...).
_DOMAIN = {
    "acosh": (1.1, 3.0), "atanh": (-0.9, 0.9), "acos": (-0.9, 0.9), "asin": (-0.9, 0.9),
    "log": (0.1, 3.0), "log2": (0.1, 3.0), "log10": (0.1, 3.0), "log1p": (0.1, 3.0),
    "sqrt": (0.1, 3.0), "reciprocal": (0.5, 3.0), "divide": (0.5, 3.0), "pow": (0.5, 2.0),
    "floor_divide": (0.5, 3.0), "remainder": (0.5, 3.0),
}


def _sample_dtype(row):
    cat = row.category
    if cat == "boolean":
        return xp.bool
    if cat in ("integer", "integer or boolean"):
        return xp.int32
    if cat == "complex floating-point":
        return xp.complex64
    return xp.float32


def _values(row, shape, seed=0):
    rng = np.random.default_rng(seed)
    dt = _sample_dtype(row)
    lo, hi = _DOMAIN.get(row.name, (-2.0, 2.0))
    if dt is xp.bool:
        return rng.random(shape) > 0.5
    if dt is xp.int32:
        lo, hi = (0, 5) if "shift" in row.name else (1, 20)
        return rng.integers(lo, hi, shape).astype(np.int32)
    v = rng.uniform(lo, hi, shape)
    if dt is xp.complex64:
        return (v + 1j * rng.uniform(lo, hi, shape)).astype(np.complex64)
    return v.astype(np.float32)


def _args(row, base, seed):
    """The extra operand of a binary row, broadcast along the last axis."""
    if row.nargs == 1:
        return ()
    return (xp.asarray(_values(row, base.shape[-1:], seed + 1)),)


def _inplace_rows():
    out = []
    for row in ROWS:
        i = _sample_dtype(row)._index
        res = row.types.get(i if row.nargs == 1 else (i, i))
        if res is None:
            continue
        if row.name in ("real", "imag"):
            continue
        out.append(row)
    return out


INPLACE_ROWS = _inplace_rows()


def _castable(row):
    dt = _sample_dtype(row)
    res = row.types[dt._index] if row.nargs == 1 else row.types[dt._index, dt._index]
    return xp.can_cast(res[0], dt) if hasattr(xp, "can_cast") else res[0] is dt


@pytest.mark.parametrize("row", INPLACE_ROWS, ids=lambda r: r.name)
@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous", "negative"])
def test_inplace_method_matches_out_of_place(row, layout):
    base_np = _values(row, (4, 6), 0)
    base = xp.asarray(base_np.copy())
    if layout == "contiguous":
        target = base
    elif layout == "noncontiguous":
        target = base[:, ::2]
    else:
        target = xp.flip(base, axis=0)  # (a view with negative strides; x.flip copies, as PyTorch)
    args = _args(row, target, 0)
    before = np.array(host(target), copy=True)
    expected = row.func(xp.asarray(before), *args)
    method = getattr(target, row.name + "_")
    if expected.dtype is not target.dtype and not _dtype_castable(expected.dtype, target.dtype):
        with pytest.raises(TypeError, match="can't be cast"):
            method(*args)
        return
    storage_before = target.storage()
    returned = method(*args)
    assert returned is target
    assert target.storage() is storage_before
    np.testing.assert_array_equal(host(target), host(expected).astype(host(target).dtype))
    # The base sees the write through the view.
    if layout == "noncontiguous":
        np.testing.assert_array_equal(host(base)[:, ::2], host(target))
        np.testing.assert_array_equal(host(base)[:, 1::2], base_np[:, 1::2])
    elif layout == "negative":
        np.testing.assert_array_equal(host(base)[::-1], host(target))


def _dtype_castable(src, dst):
    order = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
    return order[src.kind] <= order[dst.kind]


@pytest.mark.parametrize("row", INPLACE_ROWS, ids=lambda r: r.name)
def test_out_writes_through_and_allocates_nothing(row):
    x = xp.asarray(_values(row, (3, 4), 1))
    args = _args(row, x, 1)
    expected = row.func(x, *args)
    # a noncontiguous out: every other column of a wider buffer
    buf = xp.zeros((3, 8), dtype=expected.dtype)
    out = buf[:, ::2]
    strides = out.stride()
    storage = out.storage()
    before = Storage.allocated
    got = row.func(x, *args, out=out)
    if row.direct:
        assert Storage.allocated == before, "out= allocated a new storage"
    assert got is out
    assert out.storage() is storage and out.stride() == strides
    np.testing.assert_array_equal(host(out), host(expected))
    np.testing.assert_array_equal(host(buf)[:, 1::2], 0)


def test_out_errors_name_what_differs():
    a = xp.ones((2, 3))
    with pytest.raises(ValueError, match=r"shape \(3, 2\).*\(2, 3\)"):
        xp.add(a, a, out=xp.empty((3, 2)))
    with pytest.raises(TypeError, match="float32 can't be cast.*int64"):
        xp.add(a, a, out=xp.empty((2, 3), dtype=xp.int64))
    with pytest.raises(TypeError, match="out must be a strided array"):
        xp.add(a, a, out=np.empty((2, 3), np.float32))


def test_int_cos_inplace_fails_like_pytorch():
    x = xp.tensor([1, 2, 3])
    with pytest.raises(TypeError, match="result type float32 can't be cast to the desired output type int64"):
        x.cos_()
    np.testing.assert_array_equal(host(x), [1, 2, 3])
    # the out-of-place method promotes like PyTorch
    np.testing.assert_allclose(host(x.cos()), np.cos([1.0, 2.0, 3.0]).astype(np.float32), rtol=1e-6)


def test_overlapping_inplace_matches_out_of_place():
    x = xp.arange(6.0)
    ref = (np.arange(6.0) + np.arange(6.0)[::-1]).astype(np.float32)
    x.add_(xp.flip(x, axis=0))  # (the standard's flip: a view of x)
    np.testing.assert_array_equal(host(x), ref)
    y = xp.arange(6.0)
    ref = np.arange(6.0, dtype=np.float32)
    ref = np.concatenate([ref[:1], ref[1:] + ref[:-1]])
    y[1:].add_(y[:-1])
    np.testing.assert_array_equal(host(y), ref)


def test_seed_examples():
    x = xp.tensor([1.0, 2.0, 3.0])
    y = xp.tensor([4.0, 5.0, 6.0])
    x.add_(y)
    assert x.tolist() == [5.0, 7.0, 9.0]
    x = xp.tensor([1.0, 2.0, 3.0])
    x.add_(y).mul_(2)
    assert x.tolist() == [10.0, 14.0, 18.0]
    x = xp.tensor([1.0, 2.0, 3.0])
    x.add_(y)
    x.add_(y).mul_(2)
    assert x.tolist() == [18.0, 24.0, 30.0]
    c = xp.empty((2, 2))
    ptr = c.data_ptr()
    assert xp.rand(2, 2, out=c) is c and c.data_ptr() == ptr
    y = xp.ones(3)
    ident = id(y)
    xp.add(xp.ones(3), y, out=y)
    y[:] = xp.ones(3) + y
    y += xp.ones(3)
    assert id(y) == ident and y.tolist() == [4.0, 4.0, 4.0]
    assert xp.tensor([1.1, 2.7], dtype=xp.int16).tolist() == [1, 2]


def test_zero_fill_copy():
    x = xp.arange(6.0).reshape(2, 3)
    v = x[:, 1]
    assert v.zero_() is v
    np.testing.assert_array_equal(host(x), [[0, 0, 2], [3, 0, 5]])
    x.fill_(7)
    assert x.tolist() == [[7.0] * 3] * 2
    x.copy_(xp.asarray([1, 2, 3]))  # broadcasting and casting int -> float
    np.testing.assert_array_equal(host(x), [[1, 2, 3], [1, 2, 3]])
    with pytest.raises(ValueError, match="broadcast"):
        x.copy_(xp.ones(4))


def test_clamp_inplace():
    x = xp.asarray([-2.0, 0.5, 3.0])
    assert x.clamp_(-1, 1) is x
    assert x.tolist() == [-1.0, 0.5, 1.0]


def test_conversions(device):
    x = xp.asarray([1.5, -2.5], device=device)
    assert x.double().dtype is xp.float64
    assert x.half().dtype is xp.float16
    assert x.int().dtype is xp.int32 and x.int().tolist() == [1, -2]
    assert x.long().dtype is xp.int64
    assert x.short().dtype is xp.int16
    assert x.bool().dtype is xp.bool
    assert x.cfloat().dtype is xp.complex64
    assert x.float() is x
    assert x.to(xp.float64).dtype is xp.float64
    assert x.to(device) is x
    assert x.to("cpu", xp.int64).tolist() == [1, -2]
    assert x.to("cpu").device == xp.Device("cpu") and x.to("cpu").tolist() == [1.5, -2.5]
    assert x.to(xp.zeros(1, dtype=xp.int8)).dtype is xp.int8
    assert x.type(xp.float64).dtype is xp.float64
    # (PyTorch's names: x.type() is torch.typename(x); a name casts, as a dtype does)
    assert x.type() == ("torch.FloatTensor" if device.type == "cpu" else "torch.cuda.FloatTensor")
    assert x.type("torch.DoubleTensor").dtype is xp.float64
    assert x.type("torch.DoubleTensor").device == xp.Device("cpu")
    with pytest.raises(ValueError, match="invalid type 'float64'"):
        x.type("float64")
    assert (x.cpu() is x) == (device.type == "cpu") and x.cpu().device == xp.Device("cpu")
    assert xp.asarray([[3]]).item() == 3


def test_new_factories_inherit_dtype_and_device():
    x = xp.ones(2, dtype=xp.float64)
    for f, fill in [(x.new_zeros, 0), (x.new_ones, 1)]:
        y = f(2, 3)
        assert y.dtype is xp.float64 and y.shape == (2, 3)
        assert (host(y) == fill).all()
    assert x.new_empty((4,)).shape == (4,)
    assert x.new_full((2,), 5).tolist() == [5.0, 5.0]
    assert x.new_tensor([1, 2]).dtype is xp.float64


def test_varargs_and_tuple_shapes():
    for f in (xp.zeros, xp.ones, xp.empty, xp.rand, xp.randn):
        assert f(2, 3).shape == (2, 3)
        assert f((2, 3)).shape == (2, 3)
        assert f([2, 3]).shape == (2, 3)


def test_like_factories():
    x = xp.ones((2, 3), dtype=xp.float64)
    assert xp.rand_like(x).dtype is xp.float64 and xp.rand_like(x).shape == (2, 3)
    assert xp.randn_like(x, dtype=xp.float32).dtype is xp.float32
    r = xp.randint_like(x, 5)
    assert r.dtype is xp.float64 and ((host(r) >= 0) & (host(r) < 5)).all()
    with pytest.raises(TypeError):
        xp.randn_like(xp.ones(3, dtype=xp.int64))


def test_random_reproducible_and_vectorised():
    xp.manual_seed(123)
    a = [xp.rand(5), xp.randn(5), xp.randint(0, 10, (5,)), xp.randperm(7), xp.normal(0.0, 2.0, (5,))]
    xp.manual_seed(123)
    b = [xp.rand(5), xp.randn(5), xp.randint(0, 10, (5,)), xp.randperm(7), xp.normal(0.0, 2.0, (5,))]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(host(u), host(v))
    assert sorted(a[3].tolist()) == list(range(7))
    # statistics of a large sample
    z = host(xp.randn(200_000, dtype=xp.float64))
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    u = host(xp.rand(200_000, dtype=xp.float64))
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01


def test_generator_objects(device):
    g = xp.Generator(device).manual_seed(7)
    state = g.get_state()
    first = xp.rand(4, generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(host(xp.rand(4, generator=g)), host(first))
    assert g.initial_seed() == 7
    g2 = xp.Generator(device).manual_seed(7)
    np.testing.assert_array_equal(host(xp.rand(4, generator=g2)), host(first))
    assert xp.Generator().device == xp.Device("cpu")  # PyTorch's default


def test_normal_with_array_parameters_and_bernoulli(device):
    xp.manual_seed(0)
    mean = xp.asarray([0.0, 100.0])
    std = xp.asarray([1.0, 0.001])
    s = xp.normal(mean, std)
    assert s.shape == (2,) and abs(s.tolist()[1] - 100) < 0.1
    p = xp.asarray([0.0, 1.0, 0.0])
    assert xp.bernoulli(p).tolist() == [0.0, 1.0, 0.0]
    if device.type == "cpu":
        with pytest.raises(ValueError):
            xp.bernoulli(xp.asarray([2.0]))
    else:  # not validated on a GPU (a host copy per call): p > 1 acts as 1, p < 0 as 0
        assert xp.bernoulli(xp.asarray([2.0, -1.0])).tolist() == [1.0, 0.0]
    x = xp.empty(1000)
    x.uniform_(-3, -2)
    assert ((host(x) >= -3) & (host(x) < -2)).all()
    x.normal_(10, 0.1)
    assert abs(host(x).mean() - 10) < 0.05


def test_random_out():
    c = xp.empty((3,), dtype=xp.float64)
    assert xp.randn(3, out=c) is c
    i = xp.empty((4,), dtype=xp.int64)
    assert xp.randint(0, 3, (4,), out=i) is i
    with pytest.raises(ValueError, match="shape"):
        xp.rand(2, 2, out=xp.empty(3))


def test_transpose_and_t_functions():
    a = xp.arange(6).reshape(2, 3)
    assert xp.transpose(a, 0, 1).shape == (3, 2)
    assert xp.t(a).stride() == (1, 3)
    assert xp.t(a).storage() is a.storage()
