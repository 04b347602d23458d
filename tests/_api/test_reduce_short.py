"""The short path of small reductions (issue 38) against NumPy and against the general path.

``statistics.short_native`` lets sum/prod (dtype=, tuple axes), mean, max/min, var/std,
argmax/argmin, any/all and cumulative_sum/prod of a small CPU array call NumPy's
reduction directly. Every result here is compared with

- NumPy's own function on the same values (dtype, shape and bytes: the bits statistics.py
  promises, NaN, signed zeros and keepdims included), and
- the same call with ``out=``, which the short path never takes: the general path's bits.

Without the C extension (CI's no-C leg) the general path is all Python; with it, the C
kernels serve the ``out=`` calls. Arrays are pinned to the CPU (the short path is the
host's; on CI's cuda stand-in leg the same tests still run on host arrays).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

DTYPES = ["float32", "float64", "float16", "int8", "int32", "int64", "uint8", "uint32", "bool",
          "complex64", "complex128"]
SPECIAL = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.25, 3.0], dtype=np.float64)


def _values(shape, dtype, seed, special):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -5), min(info.max, 5)
        return rng.integers(lo, hi + 1, n).astype(dtype).reshape(shape)
    v = rng.standard_normal(n) * 3
    if special:
        k = rng.integers(0, n + 1)
        v[rng.integers(0, n, k)] = rng.choice(SPECIAL, k) if n else v[:0]
    if dtype.startswith("complex"):
        v = v + 1j * rng.standard_normal(n)
    return v.astype(dtype).reshape(shape)


@st.composite
def cases(draw, min_size=0):
    nd = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(min_size, 4), min_size=nd, max_size=nd)))
    dtype = draw(st.sampled_from(DTYPES))
    a = _values(shape, dtype, draw(st.integers(0, 2**32 - 1)), draw(st.booleans()))
    view = draw(st.sampled_from(["contiguous", "transposed", "reversed"])) if nd else "contiguous"
    if view == "transposed":
        a = a.T
    elif view == "reversed":
        a = a[..., ::-1]
    kind = draw(st.sampled_from(["none", "int", "tuple"])) if nd else "none"
    if kind == "none":
        axis = None
    elif kind == "int":
        axis = draw(st.integers(-nd, nd - 1))
    else:
        axes = draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd))
        axis = tuple(i - nd if draw(st.booleans()) else i for i in draw(st.permutations(axes)))
    return a, axis, draw(st.booleans())


def _host(a):
    return xp.asarray(a, device="cpu")


def _same(r, e, what, any_nan=False):
    """Same dtype, shape and bytes (``any_nan``: NaNs of either sign and payload alike)."""
    e = np.asarray(e)
    got = np.asarray(r)
    if any_nan:
        got, e = (np.where(np.isnan(v), np.nan, v).astype(v.dtype) for v in (got, e))
    assert got.dtype == e.dtype, (what, got.dtype, e.dtype)
    assert got.shape == e.shape, (what, got.shape, e.shape)
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(e).tobytes(), (what, got, e)


def _general(f, x, r, **kw):
    """``f`` through the general path (``out=``, which the short path leaves alone)."""
    o = xp.empty(r.shape, dtype=r.dtype, device="cpu")
    back = f(x, out=o, **kw)
    assert back is o
    return o


_ACC = {"b": np.int64, "i": np.int64, "u": np.uint64}


@pytest.mark.parametrize("name", ["sum", "prod"])
@settings(max_examples=150, deadline=None)
@given(case=cases(), as_f64=st.booleans())
def test_sum_prod_match_numpy_and_the_general_path(name, case, as_f64):
    a, axis, keepdims = case
    x = _host(a)
    f = getattr(xp, name)
    kw = dict(axis=axis, keepdims=keepdims)
    acc = _ACC.get(a.dtype.kind)
    if as_f64 and a.dtype.kind != "c":
        kw["dtype"] = xp.float64
        acc = np.float64
    r = f(x, **kw)
    with np.errstate(all="ignore"):
        e = getattr(np, name)(a, axis=axis, keepdims=keepdims, dtype=acc)
    _same(r, e, (name, a.dtype, axis, keepdims))
    _same(r, _general(f, x, r, **kw), "general path")


@pytest.mark.parametrize("name", ["max", "min"])
@settings(max_examples=150, deadline=None)
@given(case=cases())
def test_max_min_match_numpy_and_the_general_path(name, case):
    a, axis, keepdims = case
    x = _host(a)
    f = getattr(xp, name)
    if a.dtype.kind == "c":
        with pytest.raises(TypeError, match=f"{name}.*complex"):
            f(x, axis=axis, keepdims=keepdims)
        return
    red = range(a.ndim) if axis is None else np.atleast_1d(axis)
    if any(a.shape[i] == 0 for i in red) or (axis is None and a.size == 0):
        with pytest.raises(ValueError, match=f"{name}.*no elements"):
            f(x, axis=axis, keepdims=keepdims)
        return
    r = f(x, axis=axis, keepdims=keepdims)
    _same(r, getattr(np, name)(a, axis=axis, keepdims=keepdims), (name, a.dtype, axis))
    _same(r, _general(f, x, r, axis=axis, keepdims=keepdims), "general path")


@settings(max_examples=150, deadline=None)
@given(case=cases(min_size=1))
def test_mean_matches_numpy_and_the_general_path(case):
    a, axis, keepdims = case
    x = _host(a)
    if a.dtype.kind == "b":
        with pytest.raises(TypeError, match="mean"):
            xp.mean(x, axis=axis, keepdims=keepdims)
        return
    r = xp.mean(x, axis=axis, keepdims=keepdims)
    # the default floating dtype for integers, float16 accumulated in float32 (as NumPy does)
    with np.errstate(all="ignore"):
        e = np.mean(a, axis=axis, keepdims=keepdims,
                    dtype=xp.get_default_dtype()._np if a.dtype.kind in "iu" else None)
    if a.dtype.kind == "c":
        # (NumPy divides a whole complex mean as a scalar, ``ret.dtype.type(ret / n)``, one
        # ulp away from its own array division at times: close, not bit for bit)
        np.testing.assert_allclose(np.asarray(r), e, rtol=1e-5 if a.dtype == np.complex64 else 1e-12)
        assert np.asarray(r).dtype == e.dtype and np.asarray(r).shape == e.shape
    else:
        _same(r, e, ("mean", a.dtype, axis, keepdims))
    _same(r, _general(xp.mean, x, r, axis=axis, keepdims=keepdims), "general path")


@pytest.mark.parametrize("name", ["var", "std"])
@settings(max_examples=150, deadline=None)
@given(case=cases(min_size=1), correction=st.sampled_from([0, 1, 0.5, 2, 5, 200]))
def test_var_std_match_numpy_and_the_general_path(name, case, correction):
    a, axis, keepdims = case
    if a.dtype.kind not in "f" or a.dtype == np.float16:
        a = a.real.astype(np.float64)  # (other dtypes: the general path only)
    x = _host(a)
    f = getattr(xp, name)
    r = f(x, axis=axis, correction=correction, keepdims=keepdims)
    n = int(np.prod([a.shape[i] for i in (range(a.ndim) if axis is None else np.atleast_1d(axis))]))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Degrees of freedom <= 0"
        e = getattr(np, name)(a, axis=axis, ddof=correction, keepdims=keepdims)
    if n - correction <= 0:  # the standard: NaN (NumPy: inf)
        e = np.full_like(e, np.nan)
    _same(r, e, (name, a.dtype, axis, keepdims, correction), any_nan=n - correction <= 0)
    _same(r, _general(f, x, r, axis=axis, correction=correction, keepdims=keepdims), "general path")


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@settings(max_examples=150, deadline=None)
@given(case=cases(min_size=1))
def test_argmax_argmin_match_numpy_and_the_general_path(name, case):
    a, axis, keepdims = case
    if type(axis) is tuple:
        axis = None
    x = _host(a)
    f = getattr(xp, name)
    if a.dtype.kind in "bc":
        with pytest.raises(TypeError, match=name):
            f(x, axis=axis, keepdims=keepdims)
        return
    r = f(x, axis=axis, keepdims=keepdims)
    e = getattr(np, name)(a, axis=None if a.ndim == 0 else axis, keepdims=keepdims)
    _same(r, e.astype(np.int64), (name, axis, keepdims))
    _same(r, _general(f, x, r, axis=axis, keepdims=keepdims), "general path")


@pytest.mark.parametrize("name", ["any", "all"])
@settings(max_examples=150, deadline=None)
@given(case=cases())
def test_any_all_match_numpy_and_the_general_path(name, case):
    a, axis, keepdims = case
    x = _host(a)
    f = getattr(xp, name)
    r = f(x, axis=axis, keepdims=keepdims)
    _same(r, getattr(np, name)(a, axis=axis, keepdims=keepdims), (name, axis, keepdims))
    _same(r, _general(f, x, r, axis=axis, keepdims=keepdims), "general path")


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@settings(max_examples=100, deadline=None)
@given(case=cases())
def test_cumulative_matches_numpy_and_the_general_path(name, case):
    a, axis, _ = case
    if a.ndim == 0 or type(axis) is tuple or (axis is None and a.ndim > 1):
        return
    x = _host(a)
    f = getattr(xp, name)
    r = f(x, axis=axis)
    with np.errstate(all="ignore"):
        e = getattr(np, name)(a, axis=axis, dtype=_ACC.get(a.dtype.kind))
    _same(r, e, (name, a.dtype, axis))
    _same(r, _general(f, x, r, axis=axis), "general path")


# --- errors: the short path leaves them to the general path ---------------------------------

_FUNCS = ["sum", "prod", "mean", "max", "min", "var", "std", "any", "all"]


@pytest.mark.parametrize("name", _FUNCS)
@pytest.mark.parametrize("axis, exc, words", [
    ((0, 0), ValueError, "repeated axis"),
    ((1, -1), ValueError, "repeated axis"),
    (2, IndexError, "out of bounds"),
    (-3, IndexError, "out of bounds"),
    ((0, 2), IndexError, "out of bounds"),
])
def test_bad_axes_raise_naming_the_function(name, axis, exc, words):
    x = _host(np.arange(6, dtype=np.float32).reshape(2, 3))
    with pytest.raises(exc, match=rf"{name}\(\).*{words}"):
        getattr(xp, name)(x, axis=axis)


_ONE = {"sum": 2.5, "prod": 2.5, "mean": 2.5, "max": 2.5, "min": 2.5, "var": 0.0, "std": 0.0,
        "any": True, "all": True, "argmax": 0, "argmin": 0}


@pytest.mark.parametrize("name", sorted(_ONE))
@pytest.mark.parametrize("axis", [None, 0, -1, (), (0,)])
def test_zero_d_input_reduces_its_one_element(name, axis):
    # Note: like PyTorch, a 0-d array takes axis 0 or -1 (torch.sum(torch.tensor(2.5), 0)
    # is 2.5; NumPy raises), and its reductions are of its one element.
    if name.startswith("arg") and type(axis) is tuple:
        return
    r = np.asarray(getattr(xp, name)(_host(np.asarray(2.5, dtype=np.float32)), axis=axis))
    assert r.shape == () and r.tolist() == _ONE[name]


def test_short_results_own_their_memory_and_leave_the_input_alone():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = _host(a)
    before = a.copy()
    rs = [xp.sum(x, axis=(0, 1)), xp.max(x, axis=1), xp.mean(x, axis=0), xp.var(x, axis=1),
          xp.argmax(x, axis=1), xp.cumulative_sum(x, axis=1), xp.any(x > 3, axis=0)]
    for r in rs:
        assert not np.shares_memory(np.asarray(r), np.asarray(x))
    np.testing.assert_array_equal(np.asarray(x), before)
    r = xp.cumulative_sum(x, axis=1)
    r[0, 0] = 100.0
    assert np.asarray(x)[0, 0] == 0.0


def test_list_axis_and_name_axis_still_work():
    x = _host(np.arange(24, dtype=np.float64).reshape(2, 3, 4))
    _same(xp.sum(x, axis=[0, 2]), np.sum(np.arange(24.0).reshape(2, 3, 4), axis=(0, 2)), "list axis")
    _same(xp.max(x, axis=[1]), np.max(np.arange(24.0).reshape(2, 3, 4), axis=1), "list axis")
