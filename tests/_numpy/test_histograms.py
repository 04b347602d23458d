"""average, bincount, digitize, histogram, histogram_bin_edges, interp
(src/strided/_numpy/histograms.py) and NumPy's searchsorted forms, against NumPy:
values, dtypes, shapes and errors, on the suite's device, through the namespace
(``xp.histogram``) and through NumPy (``np.histogram(x)``, NEP 18)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp
from strided.autograd import gradcheck
from conftest import host, sum_ulps


def _xp(v, device):
    return xp.asarray(v, device=device) if isinstance(v, np.ndarray) else v


def _same(got, want, rtol=1e-13, what=""):
    """``got`` (strided, or a tuple of) is NumPy's ``want``: type, dtype, shape, values."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for g, w in zip(got, want):
            _same(g, w, rtol, what)
        return
    assert type(got) is xp.Array, f"{what}: {type(got).__name__}"
    g, w = host(got), np.asarray(want)
    assert g.dtype == w.dtype, f"{what}: dtype {g.dtype}, NumPy {w.dtype}"
    assert g.shape == w.shape, f"{what}: shape {g.shape}, NumPy {w.shape}"
    np.testing.assert_allclose(g, w, rtol=rtol, atol=0, equal_nan=True, err_msg=what)


def check(name, device, *args, rtol=1e-13, **kwargs):
    """``np.name`` on NumPy arrays vs ``np.name`` and ``xp.name`` on strided arrays."""
    want = getattr(np, name)(*args, **kwargs)
    sargs = [_xp(a, device) for a in args]
    skw = {k: _xp(v, device) for k, v in kwargs.items()}
    _same(getattr(np, name)(*sargs, **skw), want, rtol, f"np.{name}")
    if hasattr(xp, name):
        _same(getattr(xp, name)(*sargs, **skw), want, rtol, f"xp.{name}")


def raises_like_numpy(name, device, *args, **kwargs):
    with pytest.raises(Exception) as theirs:
        getattr(np, name)(*args, **kwargs)
    with pytest.raises(type(theirs.value)):
        getattr(np, name)(*[_xp(a, device) for a in args], **{k: _xp(v, device) for k, v in kwargs.items()})


RNG = np.random.default_rng(7)
A = RNG.random((3, 4))
F32 = RNG.random(20).astype(np.float32)
INTS = RNG.integers(0, 10, 20)
W = RNG.random(20)


# --- average -----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((F32,), {}),
    ((INTS,), {}),                                          # float64, as NumPy
    ((F32,), dict(weights=W.astype(np.float32))),
    ((INTS,), dict(weights=INTS)),
    ((F32,), dict(weights=W)),                              # float32 with float64 weights: float64
    ((A,), dict(axis=1, weights=RNG.random(4))),            # 1-D weights along an axis
    ((A,), dict(axis=0, weights=RNG.random(3), returned=True)),
    ((A,), dict(axis=(0, 1), weights=A)),
    ((A,), dict(axis=0, returned=True)),
    ((A,), dict(axis=1, weights=RNG.random(4), returned=True, keepdims=True)),
    ((A.astype(np.complex128) * 1j,), dict(axis=-1)),
])
def test_average(args, kwargs, device):
    # Another device sums in another order (and float32 in a float64 accumulator): the
    # bound of any order of the 20 additions, in float32 ulps (conftest.sum_ulps).
    rtol = 1e-13 if device.type == "cpu" else sum_ulps(20) * float(np.finfo(np.float32).eps)
    check("average", device, *args, rtol=rtol, **kwargs)


@pytest.mark.parametrize("kwargs", [dict(weights=np.zeros((3, 4))), dict(weights=RNG.random(4)),
                                    dict(axis=1, weights=RNG.random(3))])
def test_average_errors(kwargs, device):
    raises_like_numpy("average", device, A, **kwargs)


def test_average_gradient(device):
    a = xp.asarray(A, device=device, requires_grad=True)
    w = xp.asarray(RNG.random(4) + 0.5, device=device, requires_grad=True)
    assert gradcheck(lambda a, w: xp.average(a, axis=1, weights=w), (a, w))
    assert gradcheck(lambda a, w: np.average(a, axis=1, weights=w), (a, w))  # NumPy's spelling too


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                  elements=st.floats(-1e3, 1e3)), st.data())
def test_average_matches_numpy(a, data):
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1))
    shape = a.shape if axis is None or data.draw(st.booleans()) else (a.shape[axis],)
    w = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(0.5, 2.0)))
    check("average", xp.get_default_device(), a, axis=axis, weights=w, rtol=1e-12)


# --- bincount ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((INTS,), {}),
    ((INTS,), dict(weights=W)),
    ((INTS,), dict(weights=W.astype(np.float32))),          # float64, as NumPy (PyTorch: float32)
    ((INTS,), dict(weights=INTS)),
    ((INTS,), dict(minlength=15)),
    ((INTS.astype(np.int32),), dict(minlength=3)),
    ((INTS.astype(np.uint64),), {}),
    ((np.array([], dtype=np.int64),), {}),
    ((np.array([], dtype=np.int64),), dict(minlength=4)),
    ((np.array([True, False, True]),), {}),
])
def test_bincount(args, kwargs, device):
    check("bincount", device, *args, **kwargs)


@pytest.mark.parametrize("args, kwargs", [
    ((np.array([-1, 2]),), {}),
    ((np.array([1.0, 2.0]),), {}),
    ((np.array([[1, 2]]),), {}),
    ((INTS,), dict(weights=W[:3])),
    ((INTS,), dict(minlength=-1)),
])
def test_bincount_errors(args, kwargs, device):
    raises_like_numpy("bincount", device, *args, **kwargs)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int64, st.integers(0, 30), elements=st.integers(0, 40)), st.integers(0, 50),
       st.booleans())
def test_bincount_matches_numpy(x, minlength, weighted):
    w = np.linspace(-1.0, 2.0, x.shape[0]) if weighted else None
    check("bincount", xp.get_default_device(), x, weights=w, minlength=minlength, rtol=1e-12)


# --- histogram, histogram_bin_edges, digitize --------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((F32,), {}),                                           # float32 edges, as NumPy's
    ((INTS,), {}),                                          # float64 edges for integers
    ((A,), dict(bins=4)),                                   # any shape: raveled
    ((F32,), dict(bins=7, range=(0.2, 0.7))),
    ((F32,), dict(weights=W.astype(np.float32))),
    ((INTS,), dict(weights=INTS)),                          # integer weights: integer counts
    ((F32,), dict(density=True)),
    ((INTS,), dict(bins=np.array([0, 2, 2, 5, 9]))),        # edges, a repeated one
    ((F32,), dict(bins=np.array([0.1, 0.5, 0.9]), weights=W, density=True)),
    ((F32,), dict(bins=[0.0, 0.25, 1.0])),
    ((np.ones(5),), {}),                                    # empty range: widened by 1/2
    ((np.array([]),), {}),
    ((F32,), dict(weights=W + 1j * W)),
    ((np.array([True, False, True]),), {}),
    ((np.array([1.0, np.nan, 3.0]),), dict(bins=[0.0, 2.0, 4.0])),  # NaN is in no bin
    ((np.array([-1e300, 1e300]),), dict(bins=3)),
])
def test_histogram(args, kwargs, device):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        # NumPy warns for bool input ("Converting input from bool to uint8"); strided does not.
        warnings.simplefilter("ignore")
        check("histogram", device, *args, **kwargs)
        if "density" not in kwargs:
            check("histogram_bin_edges", device, *args, **kwargs)


@pytest.mark.parametrize("bins", ["auto", "fd", "sturges", "sqrt"])
def test_histogram_estimated_bins(bins, device):
    if device.type != "cpu":
        with pytest.raises(TypeError, match="host"):
            xp.histogram(xp.asarray(F32, device=device), bins=bins)
        return
    check("histogram", device, F32, bins=bins)


@pytest.mark.parametrize("args, kwargs", [
    ((np.array([1.0, np.nan]),), {}),                       # the data's range is not finite
    ((F32,), dict(bins=0)),
    ((F32,), dict(bins=np.array([0.5, 0.1]))),
    ((F32,), dict(bins=np.ones((2, 2)))),
    ((F32,), dict(range=(1.0, 0.0))),
    ((F32,), dict(range=(0.0, np.inf))),
    ((F32,), dict(weights=W[:3])),
    ((F32,), dict(bins="auto", weights=W)),
    ((F32,), dict(bins=2.5)),
])
def test_histogram_errors(args, kwargs, device):
    if isinstance(kwargs.get("bins"), str) and device.type != "cpu":
        return
    raises_like_numpy("histogram", device, *args, **kwargs)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float32, np.float64, np.int64]), st.integers(1, 40),
                  elements=st.integers(-50, 50)), st.integers(1, 12), st.booleans(), st.booleans())
def test_histogram_matches_numpy(a, bins, use_range, weighted):
    kwargs = dict(bins=bins)
    if use_range:
        kwargs["range"] = (-20.0, 30.0)
    if weighted:
        kwargs["weights"] = np.linspace(0.0, 1.0, a.shape[0])
    check("histogram", xp.get_default_device(), a, **kwargs)


@pytest.mark.parametrize("x, bins, right", [
    (F32, np.array([0.1, 0.5, 0.9]), False),
    (F32, np.array([0.1, 0.5, 0.9]), True),
    (A, np.array([0.9, 0.5, 0.1]), False),                 # decreasing bins
    (A, np.array([0.9, 0.5, 0.1]), True),
    (INTS, np.array([0, 3, 3, 7]), False),
    (np.float64(0.3), np.array([0.1, 0.5]), False),
    (F32, np.array([0.5]), False),
    (INTS.astype(np.uint8), np.array([9, 4, 1], dtype=np.uint8), False),  # unsigned, decreasing
    (np.array([True, False]), np.array([False, True]), True),
])
def test_digitize(x, bins, right, device):
    if isinstance(x, np.generic):  # NumPy gives a NumPy scalar; strided a 0-d array
        got = np.digitize(xp.asarray(x, device=device), xp.asarray(bins, device=device), right=right)
        assert type(got) is xp.Array and got.item() == np.digitize(x, bins, right=right)
        return
    check("digitize", device, x, bins, right=right)


def test_digitize_errors(device):
    raises_like_numpy("digitize", device, F32, np.array([0.1, 0.9, 0.5]))
    raises_like_numpy("digitize", device, F32 + 1j, np.array([0.1, 0.9]))


# --- interp ------------------------------------------------------------------------------------

XQ = np.linspace(-1.0, 12.0, 40)
XS = np.sort(RNG.random(10) * 10)
FS = RNG.random(10)


@pytest.mark.parametrize("args, kwargs", [
    ((XQ, XS, FS), {}),
    ((XQ, XS, FS), dict(left=-1.0, right=2.5)),
    ((XQ.astype(np.float32), XS.astype(np.float32), FS.astype(np.float32)), {}),  # float64, as NumPy
    ((XQ.reshape(5, 8), XS, FS), {}),
    ((XQ, XS, FS + 1j * FS[::-1]), {}),
    ((XQ, XS, FS + 1j * FS), dict(left=1j, right=2.0)),
    ((XQ, XS, FS), dict(period=3.0)),
    ((np.array([np.nan, 1.0, np.inf, -np.inf]), XS, FS), {}),
    ((XQ, XS[:1], FS[:1]), {}),
    ((XS, XS, FS), {}),                                     # exactly at the sample points
    ((XQ, np.array([0.0, 1.0, 1.0, 2.0]), np.array([0.0, 1.0, 5.0, 6.0])), {}),  # a repeated point
    ((XQ, np.array([0.0, 1.0, 2.0]), np.array([0.0, np.inf, 1.0])), {}),          # infinite values
    ((INTS, np.arange(10), np.arange(10) ** 2), {}),
])
def test_interp(args, kwargs, device):
    with np.errstate(all="ignore"):
        check("interp", device, *args, **kwargs)


def test_interp_scalar_x(device):
    got = np.interp(2.5, xp.asarray(XS, device=device), xp.asarray(FS, device=device))
    assert type(got) is xp.Array and got.ndim == 0
    assert got.item() == np.interp(2.5, XS, FS)


@pytest.mark.parametrize("args, kwargs", [
    ((XQ, XS, FS[:3]), {}),
    ((XQ, np.array([]), np.array([])), {}),
    ((XQ, XS.reshape(2, 5), FS.reshape(2, 5)), {}),
    ((XQ, XS, FS), dict(period=0)),
])
def test_interp_errors(args, kwargs, device):
    raises_like_numpy("interp", device, *args, **kwargs)


def test_interp_gradient(device):
    x = xp.asarray(np.array([0.3, 1.7, 2.2]), device=device, requires_grad=True)
    fp = xp.asarray(np.array([0.0, 2.0, 1.0, 3.0]), device=device, requires_grad=True)
    xs = xp.asarray(np.array([0.0, 1.0, 2.0, 3.0]), device=device)
    assert gradcheck(lambda x, fp: xp.interp(x, xs, fp), (x, fp))


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 12), elements=st.floats(-100, 100), unique=True),
       hnp.arrays(np.float64, st.integers(0, 20), elements=st.floats(-150, 150)), st.data())
def test_interp_matches_numpy(xs, xq, data):
    xs = np.sort(xs)
    fs = data.draw(hnp.arrays(np.float64, xs.shape, elements=st.floats(-1e3, 1e3)))
    check("interp", xp.get_default_device(), xq, xs, fs, rtol=1e-12)


# --- searchsorted: NumPy's forms ---------------------------------------------------------------

@pytest.mark.parametrize("v, kwargs", [
    (np.array(2.5), {}),
    (XQ, {}),
    (XQ, dict(side="right")),
    (XQ.reshape(5, 8), dict(side="right")),                 # any shape of values
    (XS, dict(side="left")),                                # ties
    (XS, dict(side="right")),
    (np.array([], dtype=np.float64), {}),
])
def test_searchsorted(v, kwargs, device):
    check("searchsorted", device, XS, v, **kwargs)


def test_searchsorted_sorter_and_scalars(device):
    perm = RNG.permutation(10)
    a = XS[perm]
    sorter = np.argsort(a)
    check("searchsorted", device, a, XQ, sorter=sorter)
    got = np.searchsorted(xp.asarray(XS, device=device), 2.5)
    assert type(got) is xp.Array and got.item() == np.searchsorted(XS, 2.5)
    got = xp.asarray(XS, device=device)
    assert np.searchsorted(got, [1.0, 9.0]).tolist() == np.searchsorted(XS, [1.0, 9.0]).tolist()


# --- stacking --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["vstack", "hstack", "dstack", "column_stack"])
@pytest.mark.parametrize("arrays", [(F32, F32), (A, A), (np.float64(1.0), np.float64(2.0))])
def test_stacking(name, arrays, device):
    want = getattr(np, name)(arrays)
    got = getattr(np, name)([xp.asarray(a, device=device) for a in arrays])
    _same(got, want, 0, name)
