"""NaN-ignoring reductions, median and quantile (issue 18, item 4) against NumPy's
functions of the same names, with gradients against finite differences and PyTorch."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp
from conftest import host

DEVICE = xp.get_default_device()

REDUCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanmedian",
              "median"]
QUANTILES = ["quantile", "nanquantile"]
METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]


@st.composite
def _data(draw, min_side=1):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=min_side, max_side=5))
    a = draw(hnp.arrays(np.float64, shape, elements=st.floats(-100, 100, allow_nan=False)))
    nan = draw(hnp.arrays(np.bool_, shape, elements=st.booleans()))
    a = np.where(nan & draw(st.booleans()), np.nan, a)
    nd = len(shape)
    axis = draw(st.one_of(st.none(), st.integers(-nd, nd - 1) if nd else st.none(),
                          st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple)
                          if nd else st.none()))
    return a, axis, draw(st.booleans())


def _numpy(name, a, *args, **kw):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return getattr(np, name)(a, *args, **kw)


def _check(r, ref):
    assert tuple(r.shape) == np.shape(ref)
    np.testing.assert_allclose(host(r), ref, rtol=1e-9, atol=1e-9, equal_nan=True)


@settings(max_examples=40, deadline=None)
@given(_data(), st.sampled_from(REDUCTIONS))
def test_reductions_match_numpy(data, name):
    a, axis, keepdims = data
    ref = _numpy(name, a, axis=axis, keepdims=keepdims)
    _check(getattr(xp, name)(xp.asarray(a, device=DEVICE), axis=axis, keepdims=keepdims), ref)


@settings(max_examples=40, deadline=None)
@given(_data(), st.sampled_from(QUANTILES), st.sampled_from(METHODS),
       st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3)))
def test_quantiles_match_numpy(data, name, method, q):
    a, axis, keepdims = data
    ref = _numpy(name, a, q, axis=axis, keepdims=keepdims, method=method)
    _check(getattr(xp, name)(xp.asarray(a, device=DEVICE), q, axis=axis, keepdims=keepdims,
                             method=method), ref)


@pytest.mark.parametrize("ddof", [0, 1, 2, 5])
def test_nanvar_nanstd_ddof_and_correction(ddof, device):
    a = np.array([[1.0, np.nan, 3.0, 4.0], [np.nan, np.nan, 2.0, 7.0]])
    x = xp.asarray(a, device=device)
    for name in ("nanvar", "nanstd"):
        ref = _numpy(name, a, axis=1, ddof=ddof)  # too few left: NaN
        _check(getattr(xp, name)(x, axis=1, ddof=ddof), ref)
        _check(getattr(xp, name)(x, axis=1, correction=ddof), ref)
    with pytest.raises(TypeError, match="not both"):
        xp.nanvar(x, correction=1, ddof=1)
    r = xp.nanstd(xp.asarray(a.astype(np.float32), device=device), axis=1, dtype=xp.float64)
    assert r.dtype == xp.float64  # computed in dtype, as NumPy's (xarray passes it)
    _check(r, _numpy("nanstd", a, axis=1))


@pytest.mark.parametrize("name", ["nancumsum", "nancumprod"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cumulative_match_numpy(name, axis, device):
    a = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 0.5]])
    _check(getattr(xp, name)(xp.asarray(a, device=device), axis=axis), getattr(np, name)(a, axis=axis))


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nanarg_match_numpy_and_refuse_all_nan_slices(name, axis, device):
    a = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, -0.5]])
    r = getattr(xp, name)(xp.asarray(a, device=device), axis=axis)
    np.testing.assert_array_equal(host(r), getattr(np, name)(a, axis=axis))
    b = np.array([[np.nan, 1.0], [np.nan, 2.0]])
    with pytest.raises(ValueError, match="all-NaN slice encountered along axis 0"):
        getattr(xp, name)(xp.asarray(b, device=device), axis=0)


def test_all_nan_slices_give_nan(device):
    x = xp.asarray([[np.nan, np.nan], [1.0, np.nan]], device=device)
    for name in ("nanmean", "nanmax", "nanmin", "nanmedian", "nanvar"):
        assert np.isnan(host(getattr(xp, name)(x, axis=1))[0]), name
    assert np.isnan(host(xp.nanquantile(x, 0.5, axis=1))[0])
    assert host(xp.nansum(x, axis=1)).tolist() == [0.0, 1.0]


def test_integer_inputs(device):
    a = np.array([[3, 1, 2, 8], [5, 5, 0, 1]], dtype=np.int64)
    x = xp.asarray(a, device=device)
    assert host(xp.nansum(x, axis=1)).tolist() == [14, 11] and xp.nansum(x).dtype == xp.int64
    assert host(xp.nanmax(x, axis=0)).tolist() == [5, 5, 2, 8]
    assert host(xp.nanargmin(x, axis=1)).tolist() == [1, 2]
    np.testing.assert_allclose(host(xp.median(x, axis=1)), np.median(a, axis=1))
    np.testing.assert_allclose(host(xp.quantile(x, 0.25, axis=1)), np.quantile(a, 0.25, axis=1), rtol=1e-6)
    assert xp.median(x).dtype == xp.get_default_dtype()  # as strided's mean of integers


def test_median_is_numpys_and_the_method_pytorchs(device):
    x = xp.asarray([4.0, 1.0, 3.0, 2.0], device=device)
    assert xp.median(x).item() == 2.5 and x.median().item() == 2.0
    assert np.isnan(xp.median(xp.asarray([1.0, np.nan, 2.0], device=device)).item())
    assert np.isnan(xp.median(xp.zeros((0,), device=device)).item())  # NumPy: NaN


def test_names_are_kept(device):
    x = xp.asarray(np.arange(24.0).reshape(2, 3, 4), device=device, names=("N", "C", "T"))
    assert xp.nansum(x, axis="C").names == ("N", "T")
    assert xp.median(x, axis="T").names == ("N", "C")
    assert xp.median(x, axis="C", keepdims=True).names == ("N", "C", "T")
    assert xp.quantile(x, [0.5, 0.9], axis="N").names == (None, "C", "T")
    assert xp.nanvar(x, axis=("N", "T")).names == ("C",)


def _grad_input(device, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    a = rng.permutation(np.arange(1.0, 1.0 + np.prod(shape))).reshape(shape) / 3.0  # distinct values
    a[0, 1] = np.nan
    return a


@pytest.mark.parametrize("name,kw", [
    ("nansum", {"axis": 1}), ("nanmean", {"axis": 0}), ("nanvar", {"axis": 1, "ddof": 1}),
    ("nanstd", {}), ("nanmax", {"axis": 1}), ("nanmin", {}), ("nanprod", {"axis": 0}),
    ("nanmedian", {"axis": 1}), ("nanquantile", {"q": 0.3, "axis": 1}),
    ("nancumsum", {"axis": 1}),
])
def test_nan_gradients_against_finite_differences(name, kw, device):
    a = _grad_input(device)
    nan = np.isnan(a)
    base = np.where(nan, 0.0, a)

    def f(t):  # NaNs put back at fixed places: the gradient there is 0 by definition
        full = xp.where(xp.asarray(nan, device=device), float("nan"), t)
        kw2 = dict(kw)
        q = kw2.pop("q", None)
        return getattr(xp, name)(full, **kw2) if q is None else getattr(xp, name)(full, q, **kw2)
    x = xp.asarray(base, dtype=xp.float64, device=device, requires_grad=True)
    assert xp.autograd.gradcheck(f, (x,))


@pytest.mark.parametrize("q,method", [(0.5, "linear"), (0.25, "linear"), ([0.1, 0.9], "linear"),
                                      (0.4, "lower"), (0.4, "higher"), (0.4, "nearest")])
def test_quantile_and_median_gradients_match_pytorch(q, method, device):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).normal(size=(3, 5))
    w = np.random.default_rng(4).normal(size=np.shape(np.quantile(a, q, axis=1)))
    x = xp.asarray(a, dtype=xp.float64, device=device, requires_grad=True)
    xp.sum(xp.quantile(x, q, axis=1, method=method) * xp.asarray(w, device=device)).backward()
    t = torch.tensor(a, requires_grad=True)
    (torch.quantile(t, torch.tensor(q, dtype=torch.float64), dim=1, interpolation=method)
     * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(host(x.grad), t.grad.numpy(), rtol=1e-12)
    y = xp.asarray(a, dtype=xp.float64, device=device, requires_grad=True)
    xp.sum(xp.median(y, axis=0)).backward()
    u = torch.tensor(a, requires_grad=True)
    torch.quantile(u, 0.5, dim=0).sum().backward()  # PyTorch's averaging median
    np.testing.assert_allclose(host(y.grad), u.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("call,exc,match", [
    (lambda x: xp.quantile(x, 1.5), ValueError, r"range \[0, 1\]"),
    (lambda x: xp.quantile(x, [[0.5]]), ValueError, "1-d"),
    (lambda x: xp.quantile(x, 0.5, method="weibull"), ValueError, "method must be one of"),
    (lambda x: xp.quantile(x, "a"), TypeError, "q must be numbers"),
    (lambda x: xp.quantile(x[:0], 0.5), ValueError, "empty axis"),
    (lambda x: xp.nanmax(x.astype(xp.complex128)), TypeError, "complex"),
    (lambda x: xp.median(x.astype(xp.complex128)), TypeError, "complex"),
    (lambda x: xp.nansum([1.0]), TypeError, "strided array"),
    (lambda x: xp.nanmean(x, axis=3), (IndexError, ValueError), "3"),
])
def test_bad_input_names_what_was_wrong(call, exc, match, device):
    with pytest.raises(exc, match=match):
        call(xp.asarray([1.0, np.nan, 2.0], device=device))


def test_numpy_functions_reach_these(device):
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])
    x = xp.asarray(a, device=device)
    for f, args in [(np.nansum, ()), (np.nanmean, ()), (np.nanmedian, ()), (np.nanstd, ()),
                    (np.nanmax, ()), (np.nanargmin, ()), (np.nancumsum, ()),
                    (np.nanpercentile, (40,)), (np.nanquantile, (0.4,))]:
        r = f(x, *args, axis=1)
        assert type(r) is xp.Array, f.__name__
        np.testing.assert_allclose(host(r), f(a, *args, axis=1), equal_nan=True)
    np.testing.assert_allclose(host(np.median(x, axis=0)), np.median(a, axis=0), equal_nan=True)
    np.testing.assert_allclose(host(np.percentile(xp.asarray(np.arange(5.0), device=device), 30)),
                               np.percentile(np.arange(5.0), 30))


@pytest.mark.parametrize("name", QUANTILES)
def test_q_as_numpy_or_strided_arrays_and_by_keyword(name, device):
    # xarray passes q=np.atleast_1d(...) by keyword
    a = np.array([[1.0, 4.0, 2.0, 8.0], [3.0, 3.0, 9.0, 0.0]])
    x = xp.asarray(a, device=device)
    f = getattr(xp, name)
    for q in (np.array([0.25, 0.5]), xp.asarray([0.25, 0.5], dtype=xp.float64, device=device), (0.25, 0.5)):
        _check(f(x, q=q, axis=-1), getattr(np, name)(a, [0.25, 0.5], axis=-1))
    for q in (np.float64(0.3), np.array(0.3), xp.asarray(0.3, dtype=xp.float64, device=device)):
        _check(f(x, q, axis=0), getattr(np, name)(a, 0.3, axis=0))
