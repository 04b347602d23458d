"""NumPy functions and ufuncs that strided does not implement (src/strided/_numpy/protocols.py,
``_numpy_fallback``): on the CPU they take NumPy's own path through ``__array__`` (no copy,
never a new TypeError), and NumPy's ndarrays come back as strided arrays over the same
memory; on another device a TypeError names the function and the way out (``x.cpu()``)."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from conftest import cpu_only, host

A = np.arange(1.0, 13.0).reshape(3, 4) ** 1.5 % 7


def _x(a=A, device="cpu"):
    return xp.asarray(a, device=device)


# Functions strided has no handler for, called as NumPy code calls them.
UNIMPLEMENTED = {
    "fliplr": lambda m, a: m.fliplr(a),
    "flipud": lambda m, a: m.flipud(a),
    "rot90": lambda m, a: m.rot90(a),
    "ptp": lambda m, a: m.ptp(a, axis=0),
    "trapezoid": lambda m, a: m.trapezoid(a, axis=1),
    "corrcoef": lambda m, a: m.corrcoef(a),
    "cov": lambda m, a: m.cov(a),
    "polyfit": lambda m, a: m.polyfit(a[0], a[1], 2),
    "apply_along_axis": lambda m, a: m.apply_along_axis(lambda v: v[::-1].cumsum(), 1, a),
    "delete": lambda m, a: m.delete(a, 1, axis=0),
    "insert": lambda m, a: m.insert(a, 1, 5.0, axis=1),
    "append": lambda m, a: m.append(a, a[:1], axis=0),
    "array_split": lambda m, a: m.array_split(a, 3, axis=1),
    "unravel_index": lambda m, a: m.unravel_index(m.argsort(a.ravel()), a.shape),
    "lexsort": lambda m, a: m.lexsort((a[0], a[1])),
    "select": lambda m, a: m.select([a > 3, a > 1], [a, -a], 0.5),
    "piecewise": lambda m, a: m.piecewise(a, [a < 2, a >= 2], [0.0, lambda v: v * 2]),
    "angle": lambda m, a: m.angle(a + 1j),
    "sinc": lambda m, a: m.sinc(a),
    "nan_to_num": lambda m, a: m.nan_to_num(a / (a - a)),
    "spacing (ufunc)": lambda m, a: m.spacing(a),
    "frexp (ufunc, two outputs)": lambda m, a: m.frexp(a),
    "sum where= (an argument strided lacks)": lambda m, a: m.sum(a, where=a > 2),
    "unique axis= (an argument strided lacks)": lambda m, a: m.unique(m.round(a), axis=1),
    "zeros_like order=F": lambda m, a: m.zeros_like(a, order="F"),
}


@cpu_only
@pytest.mark.parametrize("name", UNIMPLEMENTED)
def test_numpy_code_runs_on_cpu_arrays(name):
    call = UNIMPLEMENTED[name]
    with np.errstate(all="ignore"):
        want = call(np, A)
        got = call(np, _x())

    def same(g, w):
        if isinstance(w, (tuple, list)):
            assert type(g) is type(w) and len(g) == len(w)
            for gg, ww in zip(g, w):
                same(gg, ww)
            return
        # an ndarray (or a NumPy scalar) comes back as a strided array
        assert type(g) is xp.Array, f"{name}: {type(g).__name__}"
        assert host(g).dtype == np.asarray(w).dtype and host(g).shape == np.shape(w)
        np.testing.assert_allclose(host(g), w, rtol=1e-12, equal_nan=True)
    same(got, want)


@cpu_only
def test_fallback_reads_without_a_copy_and_returns_views_as_views():
    x = _x()
    r = np.fliplr(x)  # NumPy's view of x's memory, wrapped
    assert type(r) is xp.Array
    assert np.shares_memory(r.numpy(), x.numpy())
    x[0, 0] = 100.0
    assert r[0, -1].item() == 100.0


@cpu_only
def test_fallback_out_writes_in_place_and_counts_the_write():
    x = _x(np.array([1.0, 2.0, 4.0]))
    out = xp.zeros(3, dtype=xp.float64)
    before = out._version if hasattr(out, "_version") else None
    r = np.spacing(x, out=out)
    assert r is out
    np.testing.assert_array_equal(host(out), np.spacing([1.0, 2.0, 4.0]))
    if before is not None:
        assert out._version > before
    nd = np.zeros(3)
    assert np.spacing(x, out=nd) is nd  # an ndarray out= comes back as itself
    assert np.ptp(x, out=xp.zeros((), dtype=xp.float64)).item() == 3.0


@cpu_only
def test_ufunc_at_writes_into_the_strided_array():
    x = xp.zeros(4, dtype=xp.float64)
    np.add.at(x, xp.asarray([0, 0, 3]), 1.5)
    assert host(x).tolist() == [3.0, 0.0, 0.0, 1.5]


@cpu_only
def test_results_strided_cannot_hold_stay_numpy():
    x = _x()
    assert isinstance(np.array2string(x), str)
    obj = np.frompyfunc(lambda v: v, 1, 1)(x)  # an object array: stays an ndarray
    assert type(obj) is np.ndarray and obj.dtype == object
    assert np.array_equiv(x, x) is True  # a Python bool stays a bool


@cpu_only
def test_fallback_refuses_arrays_that_require_grad_as_np_asarray_does():
    x = xp.asarray(A, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        np.fliplr(x)
    assert type(np.fliplr(x.detach())) is xp.Array


def test_another_device_names_the_function_and_the_way_out(device, sim):
    devices = [sim] + ([device] if device.type != "cpu" else [])
    for dev in devices:
        x = xp.asarray(A, device=dev)
        with pytest.raises(TypeError, match=rf"numpy\.fliplr\(\) is not implemented for strided "
                                            rf"arrays on {dev}.*x\.cpu\(\)"):
            np.fliplr(x)
        with pytest.raises(TypeError, match=r"numpy\.spacing .*on .*x\.cpu\(\)"):
            np.spacing(x)
        with pytest.raises(TypeError, match=r"numpy\.sum\(\).*where=.*x\.cpu\(\)"):
            np.sum(x, where=x > 2)
        # ... while what strided implements runs there
        assert np.average(x).device == dev and np.histogram(x, bins=3)[0].device == dev


def test_a_foreign_array_type_still_gets_its_turn(device):
    class Other:
        def __array_function__(self, func, types, args, kwargs):
            return "other's"
    assert np.fliplr(Other()) == "other's"
    assert np.trapezoid(_x(device=device), Other()) == "other's"
