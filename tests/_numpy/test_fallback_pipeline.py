"""NumPy's own path (NEP 18 fallback, src/strided/_numpy/protocols.py) as an op of the call
pipeline: what NumPy writes goes through the write stage (the owning Storage's version
counter, so autograd notices), the views NumPy returns are adopted over the Storage that owns
their bytes, and dimension names are kept by rule or refused with DimensionNameError."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided as xp
from conftest import cpu_only, host
from strided.named import DimensionNameError

pytestmark = [pytest.mark.host_pinned, cpu_only]  # NumPy's own path runs on the CPU only

WRITERS = {
    "put": lambda a: np.put(a, [0, 2], [100.0, -3.0]),
    "copyto": lambda a: np.copyto(a, np.full(a.shape, 7.0, dtype=np.float64)),
    "place": lambda a: np.place(a, np.asarray(host(a)) > 1.5, [9.0]),
    "putmask": lambda a: np.putmask(a, np.asarray(host(a)) < 2.5, -1.0),
    "fill_diagonal": lambda a: np.fill_diagonal(a.reshape(2, 2), 5.0),
    "put_along_axis": lambda a: np.put_along_axis(a, np.asarray([1, 3]), 8.0, axis=0),
}


def _data():
    return np.asarray([1.0, 2.0, 3.0, 4.0])


@pytest.mark.parametrize("name", WRITERS)
def test_a_numpy_write_into_a_saved_array_makes_backward_raise(name):
    # torch: the same program raises (a saved tensor modified in place)
    wt = torch.tensor(_data(), requires_grad=True)
    at = torch.tensor(_data())
    yt = (at * wt).sum()
    at[0] = 100.0  # (an in-place write of the saved tensor, as NumPy's are)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        yt.backward()
    # strided: a NumPy function writing the saved array is such an in-place write
    w = xp.asarray(_data(), requires_grad=True)
    a = xp.asarray(_data())
    y = (a * w).sum()
    before = a._version
    WRITERS[name](a)
    assert a._version > before
    want = _data()
    WRITERS[name](want)
    np.testing.assert_array_equal(host(a), want)  # NumPy's values
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_setitem_and_numpy_put_agree_on_backward():
    for write in (lambda a: a.__setitem__(0, 100.0), lambda a: np.put(a, [0], [100.0])):
        w = xp.asarray(_data(), requires_grad=True)
        a = xp.asarray(_data())
        y = (a * w).sum()
        write(a)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


def test_an_unsaved_write_leaves_the_gradient_right():
    # a write NumPy makes before the use: the gradient is the new values' (finite differences
    # of sum(a * w) in w are a)
    w = xp.asarray(_data(), requires_grad=True)
    a = xp.asarray(_data())
    np.put(a, [1], [10.0])
    (a * w).sum().backward()
    np.testing.assert_array_equal(host(w.grad), [1.0, 10.0, 3.0, 4.0])


def test_numpy_cannot_write_an_argument_it_does_not_declare():
    # the arguments NumPy only reads are handed over read-only: a write it would make
    # without the write stage raises instead of bypassing the version counter
    from numpy._core.overrides import array_function_dispatch

    @array_function_dispatch(lambda v: (v,))
    def scribble(v):  # a NumPy function strided does not know, writing its argument
        v[0] = 42.0

    a = xp.asarray(_data())
    v = a._version
    with pytest.raises(ValueError, match="read-only"):
        scribble(a)
    assert a._version == v and host(a).tolist() == _data().tolist()
    # nan_to_num(copy=False) is a declared write: counted
    b = xp.asarray([np.nan, 1.0])
    v = b._version
    np.nan_to_num(b, copy=False)
    assert b._version > v and host(b).tolist() == [0.0, 1.0]


VIEWS = {
    "rot90": lambda a: np.rot90(a),
    "rot90 k=3": lambda a: np.rot90(a, 3, axes=(1, 0)),
    "fliplr": lambda a: np.fliplr(a),
    "flipud": lambda a: np.flipud(a),
    "hsplit": lambda a: np.hsplit(a, 2)[1],
    # (not dispatched by NumPy: an ndarray over a's memory, which asarray adopts)
    "asarray_chkfinite": lambda a: xp.asarray(np.asarray_chkfinite(a)),
    "as_strided": lambda a: xp.asarray(np.lib.stride_tricks.as_strided(
        a, shape=(2, 2), strides=(8 * 4, 8 * 2))),
}


@pytest.mark.parametrize("name", VIEWS)
def test_views_numpy_returns_share_the_owners_storage(name):
    ref = np.arange(16.0).reshape(4, 4)
    a = xp.asarray(ref.copy())
    r = VIEWS[name](a)
    want = VIEWS[name](ref.copy()) if name != "as_strided" else np.lib.stride_tricks.as_strided(
        ref, shape=(2, 2), strides=(32, 16))
    assert type(r) is xp.Array
    np.testing.assert_array_equal(host(r), want)
    assert r.storage() is a.storage()  # one Storage, one version counter
    # a write through the view is seen by autograd's check on the owner
    w = xp.asarray(ref.copy(), requires_grad=True)
    y = (a * w).sum()
    r[0, 0] = -1.0
    assert host(a)[np.unravel_index(r.storage_offset(), (4, 4))] == -1.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


NAMED = ("N", "C")


@pytest.mark.parametrize("name,call,names", [
    ("nan_to_num", lambda a: np.nan_to_num(a), NAMED),
    ("sinc", lambda a: np.sinc(a), NAMED),
    ("flipud", lambda a: np.flipud(a), NAMED),
    ("fliplr", lambda a: np.fliplr(a), NAMED),
    ("rot90", lambda a: np.rot90(a), ("C", "N")),
    ("rot90 k=2", lambda a: np.rot90(a, 2), NAMED),
    ("spacing (ufunc)", lambda a: np.spacing(a), NAMED),
])
def test_names_are_kept_by_rule(name, call, names):
    ref = np.arange(6.0).reshape(2, 3) / 7
    a = xp.asarray(ref, names=NAMED)
    with np.errstate(all="ignore"):
        r = call(a)
        want = call(ref)
    np.testing.assert_allclose(host(r), want)
    assert r.names == names


@pytest.mark.parametrize("call", [
    lambda a: np.hsplit(a, 3),
    lambda a: np.trapezoid(a, axis=1),
    lambda a: np.delete(a, 1, axis=0),
    lambda a: np.polyfit(a[0], a[1], 1),
])
def test_names_without_a_rule_are_refused_not_dropped(call):
    a = xp.asarray(np.arange(6.0).reshape(2, 3), names=NAMED)
    with pytest.raises(DimensionNameError, match="no dimension-name rule"):
        call(a)
    call(a.rename(None))  # the way out the message names


def test_a_ufunc_on_mismatched_names_is_refused():
    a = xp.asarray(np.ones((2, 3)), names=NAMED)
    b = xp.asarray(np.ones((2, 3)), names=("N", "D"))
    with pytest.raises(DimensionNameError):
        np.spacing(a, out=None) + np.nextafter(a, b)


def test_a_named_write_target_keeps_its_names_and_checks_the_value():
    a = xp.asarray(np.zeros((2, 3)), names=NAMED)
    np.copyto(a, xp.asarray(np.ones((2, 3)), names=NAMED))
    assert a.names == NAMED and host(a).tolist() == [[1.0] * 3] * 2
    with pytest.raises(DimensionNameError):
        np.copyto(a, xp.asarray(np.ones((2, 3)), names=("C", "N")))


def test_arrays_that_require_grad_are_refused_before_numpy_writes():
    w = xp.asarray(_data(), requires_grad=True)
    for write in WRITERS.values():
        with pytest.raises(RuntimeError, match="requires grad"):
            write(w)
    np.testing.assert_array_equal(host(w.detach()), _data())  # unchanged
