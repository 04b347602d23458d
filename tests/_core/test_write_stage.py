"""The call pipeline's write stage (src/strided/_core/call/write.py) and adopt stage
(adopt.py): every write into user memory refuses a self-overlapping target and bumps the
version counter of the Storage that owns the memory; a returned native that lies in an
existing Storage is a view of it (never a second Storage over the same bytes)."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided as xp
from conftest import cpu_only, host
from strided._core.call.adopt import adopt
from strided._core.call.write import write_into
from strided.lib.stride_tricks import sliding_window_view


def _overlapping(kind):
    x = xp.arange(10.0)
    if kind == "unfold":
        return x, x.unfold(0, 4, 2)
    return x, sliding_window_view(x, 3)


@pytest.mark.parametrize("kind", ["unfold", "sliding_window_view"])
@pytest.mark.parametrize("read_first", [False, True])
@pytest.mark.parametrize("value", [1.0, 1, True])
def test_a_write_into_a_self_overlapping_view_is_refused_whether_read_or_not(kind, read_first, value):
    # Note: strided's rule (as for stride-0 views): a write whose target elements share
    # memory is refused; PyTorch leaves such layouts unchecked ("too hard") and writes.
    # The outcome must not depend on whether the view's native was built before.
    x, u = _overlapping(kind)
    if read_first:
        repr(u)
        u + 1  # noqa: B018 (builds and may cache its native view)
        host(u)
    v = x._version
    with pytest.raises(RuntimeError, match="single memory location"):
        u[:] = value
    assert host(x).tolist() == list(np.arange(10.0)) and x._version == v
    # ... and views of it: its transpose overlaps too
    t = u.mT
    repr(t)
    with pytest.raises(RuntimeError, match="single memory location"):
        t[:] = value
    # a window alone does not overlap itself: written
    w = u[1]
    repr(w)
    w[:] = value
    assert host(x)[w.storage_offset()] == value


def test_fill_of_a_self_overlapping_view_writes_one_value_as_torch():
    t = torch.arange(10.0)
    t.unfold(0, 4, 2).fill_(3.0)
    x, u = _overlapping("unfold")
    repr(u)
    v = x._version
    u.fill_(3.0)
    np.testing.assert_array_equal(host(x), t.numpy())
    assert x._version > v


DOORS = {
    "setitem slice": lambda a, b: a.__setitem__(slice(None), 2.0),
    "setitem ellipsis": lambda a, b: a.__setitem__(Ellipsis, b),
    "setitem int": lambda a, b: a.__setitem__(0, 2.0),
    "setitem index array": lambda a, b: a.__setitem__(xp.asarray([0, 2]), 5.0),
    "iadd": lambda a, b: a.__iadd__(b),
    "add_": lambda a, b: a.add_(b),
    "out=": lambda a, b: xp.multiply(b, b, out=a),
    "copy_": lambda a, b: a.copy_(b),
    "fill_": lambda a, b: a.fill_(4.0),
    "zero_": lambda a, b: a.zero_(),
    "uniform_": lambda a, b: a.uniform_(),
    "write_into": lambda a, b: write_into(a, b, "test"),
    "np.add(out=)": lambda a, b: np.add(a, b, out=a),
    "np.copyto": lambda a, b: np.copyto(a, b),
}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("through", ["array", "view", "view(dtype)"])
def test_every_write_bumps_the_owning_storages_version(door, through):
    base = xp.asarray(np.arange(6.0, dtype=np.float32))
    a = {"array": base, "view": base[:4], "view(dtype)": base.view(xp.int32).view(xp.float32)}[through]
    b = xp.ones(a.shape, dtype=a.dtype)
    v = base._version
    if door.startswith("np.") and a.device.type != "cpu":
        pytest.skip("NumPy's own out= runs on the cpu")
    DOORS[door](a, b)
    assert base._version > v, door


def test_write_into_reads_an_overlapping_source_as_it_was():
    ref = np.arange(8.0)
    want = ref.copy()
    want[1:] = ref[:-1].copy()
    x = xp.asarray(ref.copy())
    write_into(x[1:], x[:-1], "test")
    np.testing.assert_array_equal(host(x), want)


def test_a_write_into_an_array_autograd_cannot_record_is_refused():
    w = xp.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        write_into(w, xp.zeros(3), "test")
    with xp.autograd.no_grad():
        write_into(w, xp.zeros(3), "test")  # (torch: allowed under no_grad)
    assert host(w.detach()).tolist() == [0.0] * 3
    y = w * 2
    with pytest.raises(RuntimeError, match="not recorded by autograd"):
        write_into(y, xp.zeros(3), "test")


def test_write_into_checks_names():
    from strided.named import DimensionNameError
    a = xp.zeros((2, 3), names=("N", "C"))
    write_into(a, xp.ones((2, 3), names=("N", None)), "test")
    with pytest.raises(DimensionNameError):
        write_into(a, xp.ones((2, 3), names=("C", "N")), "test")


@cpu_only
def test_adopt_returns_a_view_of_the_storage_that_owns_the_bytes():
    x = xp.asarray(np.arange(12.0).reshape(3, 4))
    n = x.numpy()
    for native in (n[::-1], n.T, n[1:, ::2], np.rot90(n), n.view(np.int64)[1]):
        r = adopt(native, [x])
        assert r.storage() is x.storage() or (r.dtype != x.dtype and r._version == x._version)
        np.testing.assert_array_equal(host(r), native)
        v = x._version
        r[...] = 0 if r.dtype == x.dtype else np.int64(0).item()
        assert x._version > v
    fresh = adopt(np.ones(3), [x])
    assert fresh.storage() is not x.storage()
    # a native that only partly overlaps the memory is copied, not a second Storage over it
    part = np.lib.stride_tricks.as_strided(n.reshape(-1)[8:], shape=(8,), strides=(8,))
    r = adopt(part, [x])
    assert not np.shares_memory(host(r), n)


@cpu_only
def test_asarray_of_an_exported_native_shares_the_storage():
    x = xp.asarray(np.arange(6.0))
    r = xp.asarray(x.numpy()[::-2])
    assert r.storage() is x.storage() and r.stride() == (-2,)
    r2 = xp.asarray(np.lib.stride_tricks.as_strided(x, shape=(3, 2), strides=(8, 8)))
    assert r2.storage() is x.storage()
    with pytest.raises(RuntimeError, match="single memory location"):
        r2[:] = 1.0


def test_iter_of_a_0d_array_raises_at_iter_as_numpy_and_torch():
    with pytest.raises(TypeError, match="0-d"):
        iter(np.asarray(1.0))
    with pytest.raises(TypeError):
        iter(torch.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(xp.asarray(1.0))
    assert np.iterable(xp.asarray(1.0)) is np.iterable(np.asarray(1.0)) is False
    assert np.iterable(xp.asarray([1.0])) is True
    assert [host(v).item() for v in xp.asarray([1.0, 2.0])] == [1.0, 2.0]


def test_reading_grad_of_a_named_leaf_does_not_rename_the_assigned_array():
    x = xp.ones((2, 3), names=("N", "C"), requires_grad=True)
    g = xp.zeros((2, 3))
    x.grad = g
    assert x.grad.names == ("N", "C")
    assert g.names == (None, None)  # the user's array keeps its (absent) names
    assert x.grad is x.grad
    (x * x).sum().backward()
    # torch accumulates into the assigned gradient in place
    xt = torch.ones(2, 3, requires_grad=True)
    gt = torch.zeros(2, 3)
    xt.grad = gt
    (xt * xt).sum().backward()
    np.testing.assert_array_equal(host(x.grad.rename(None)), xt.grad.numpy())
    assert x.grad.names == ("N", "C")


def test_out_of_a_pytorch_spelling_keeps_autograd_and_names_rules():
    # torch refuses out= when an input requires grad
    wt = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.sigmoid(wt, out=torch.empty(3))
    w = xp.ones(3, requires_grad=True)
    o = xp.zeros(3)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        xp.sigmoid(w, out=o)
    assert host(o).tolist() == [0.0] * 3  # nothing written
    with xp.autograd.no_grad():
        assert xp.sigmoid(w, out=o) is o
    np.testing.assert_allclose(host(o), torch.sigmoid(torch.ones(3)).numpy(), rtol=1e-6)
    # names: out takes the result's names, as strided's own xp.exp(x, out=o); a clash raises
    from strided.named import DimensionNameError
    x = xp.ones((2, 3), names=("N", "C"))
    o = xp.empty((2, 3))
    xp.sigmoid(x, out=o)
    assert o.names == xp.exp(x, out=xp.empty((2, 3))).names == ("N", "C")
    with pytest.raises(DimensionNameError):
        xp.sigmoid(x, out=xp.empty((2, 3), names=("C", "N")))
