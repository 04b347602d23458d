"""xarray DataArrays backed by strided arrays, and named dims carried to xarray and back.

Each operation runs on a DataArray over a strided array and on the same
DataArray over the NumPy array with the same values; the strided run must
keep a strided array as its data, with NumPy's values, dtype and dims.
"""

from __future__ import annotations

import numpy as np
import pytest

xr = pytest.importorskip("xarray")

import strided as xp  # noqa: E402


def _values():
    v = np.random.default_rng(2).standard_normal((6, 5))
    v[1, 2] = np.nan
    return v


def _pair(values=None):
    v = _values() if values is None else values
    coords = {"time": [0, 1, 0, 1, 2, 2], "space": np.arange(5) * 10}
    return (xr.DataArray(xp.asarray(v, device="cpu"), dims=("time", "space"), coords=coords, name="v"),
            xr.DataArray(v, dims=("time", "space"), coords=coords, name="v"))


# skipna reductions call strided's nan* functions; shift and rolling call pad, and rolling
# windows are xp.lib.stride_tricks.sliding_window_view.
OPERATIONS = [
    pytest.param("sum(skipna=False)", lambda d: d.sum("time", skipna=False)),
    pytest.param("max(skipna=False)", lambda d: d.max("space", skipna=False)),
    pytest.param("prod(skipna=False)", lambda d: d.prod(skipna=False)),
    pytest.param("sum", lambda d: d.sum("time")),
    pytest.param("mean", lambda d: d.mean("space")),
    pytest.param("std", lambda d: d.std("time")),
    pytest.param("min", lambda d: d.min()),
    pytest.param("where(cond, other)", lambda d: d.where(d > 0, -1.0)),
    pytest.param("xr.where", lambda d: xr.where(d > 0, d, 0.0)),
    pytest.param("shift(fill_value=0)", lambda d: d.shift(time=2, fill_value=0.0)),
    pytest.param("rolling sum(skipna=False)", lambda d: d.rolling(time=3).sum(skipna=False)),
    pytest.param("rolling mean, centred", lambda d: d.rolling(space=3, center=True, min_periods=1).mean()),
    pytest.param("groupby sum(skipna=False)", lambda d: d.groupby("time").sum(skipna=False)),
    pytest.param("groupby mean", lambda d: d.groupby("time").mean()),
    pytest.param("concat", lambda d: xr.concat([d, 2 * d], dim="time")),
    pytest.param("concat new dim", lambda d: xr.concat([d, d + 1], dim="run")),
    pytest.param("isel, transpose", lambda d: d.isel(time=slice(1, 4)).transpose()),
    pytest.param("sel", lambda d: d.sel(space=[10, 30])),
    pytest.param("arithmetic, broadcast", lambda d: d * d.isel(time=0) + 1),
    pytest.param("diff", lambda d: d.diff("space")),
    pytest.param("astype", lambda d: d.astype(np.float32)),
]


@pytest.mark.parametrize("name,op", OPERATIONS)
def test_dataarray_operations_keep_strided_data(name, op):
    ds, dn = _pair()
    got, want = op(ds), op(dn)
    assert isinstance(got.data, xp.Array), type(got.data)
    assert got.dims == want.dims
    assert np.dtype(got.dtype) == want.dtype
    np.testing.assert_allclose(np.asarray(got.data.to_device("cpu")), want.values, rtol=1e-12, equal_nan=True)
    for c in want.coords:
        np.testing.assert_array_equal(got[c].values, want[c].values)


def test_reference_data_is_numpy():
    ds, dn = _pair()
    assert isinstance(dn.data, np.ndarray) and isinstance(ds.data, xp.Array)


def test_to_xarray_carries_names_into_dims():
    x = xp.asarray(_values(), device="cpu").refine_names("time", None)
    d = xp.named.to_xarray(x, coords={"time": np.arange(6)}, name="v", attrs={"units": "m"})
    assert d.dims == ("time", "dim_1") and d.name == "v" and d.attrs == {"units": "m"}
    assert isinstance(d.data, xp.Array) and d.data.names == (None, None)
    assert x.names == ("time", None)  # the argument keeps its names
    assert np.shares_memory(np.asarray(d.data.to_device("cpu")), np.asarray(x.rename(None).to_device("cpu")))
    np.testing.assert_array_equal(d.sum("dim_1", skipna=False).values, np.sum(_values(), axis=1))


def test_from_xarray_names_by_dims_and_shares_memory():
    v = _values()
    y = xp.named.from_xarray(xr.DataArray(v, dims=("a", "b")).transpose("b", "a"))
    assert isinstance(y, xp.Array) and y.names == ("b", "a") and y.shape == (5, 6)
    np.testing.assert_array_equal(np.asarray(y.rename(None).to_device("cpu")), v.T)
    assert np.shares_memory(np.asarray(y.rename(None).to_device("cpu")), v)


def test_round_trip_through_xarray_operations():
    x = xp.asarray(_values(), device="cpu").refine_names("time", "space")
    d = xp.named.to_xarray(x)
    y = xp.named.from_xarray(d.isel(time=slice(0, 3)).transpose("space", "time"))
    assert y.names == ("space", "time")
    # The names work in strided again: a reduction by name.
    np.testing.assert_allclose(np.asarray(y.sum("time").rename(None).to_device("cpu")),
                               np.sum(_values()[:3], axis=0), rtol=1e-12, equal_nan=True)


def test_from_xarray_variable_and_scalar():
    y = xp.named.from_xarray(xr.Variable(("x",), np.arange(3)))
    assert y.names == ("x",) and y.dtype == xp.int64
    assert xp.named.from_xarray(xr.DataArray(np.float64(2.5))).shape == ()


def test_from_xarray_refuses_what_it_cannot_name():
    with pytest.raises(TypeError, match="not a string"):
        xp.named.from_xarray(xr.DataArray(np.ones(2), dims=(3,)))
    with pytest.raises(TypeError, match="DataArray"):
        xp.named.from_xarray(np.ones(2))
    with pytest.raises(TypeError, match="strided array"):
        xp.named.to_xarray(np.ones(2))


def test_from_xarray_refuses_lazy_data():
    da = pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match=r"compute\(\)"):
        xp.named.from_xarray(xr.DataArray(da.ones((4,), chunks=2), dims=("x",)))
