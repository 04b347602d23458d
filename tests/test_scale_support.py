"""Small behaviours that dask, cubed and xarray rely on (issue 18); their runs are in tests/integration."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import strided as xp


@pytest.mark.parametrize("make,nbytes", [
    (lambda d: xp.ones(100, 30, dtype=xp.float64, device=d), 100 * 30 * 8),
    (lambda d: xp.ones(100, 30, dtype=xp.float32, device=d)[::2, 5:10], 50 * 5 * 4),
    (lambda d: xp.ones(100, 30, dtype=xp.int16, device=d).T, 100 * 30 * 2),
    (lambda d: xp.broadcast_to(xp.ones(7, 1, device=d), (7, 1000)), 7 * 4),
    (lambda d: xp.ones(0, 5, device=d), 0),
    (lambda d: xp.asarray(3.0, device=d), 4),
])
def test_getsizeof_counts_the_elements_reached(make, nbytes):
    # dask.distributed sizes unknown objects with sys.getsizeof: it must see the data.
    x = make(None)  # on the default device
    empty = xp.ones(0)
    assert sys.getsizeof(x) - sys.getsizeof(empty) == nbytes
    # The same rule as dask's for NumPy: broadcast axes once, views by their elements
    # (the same view made on the cpu, whose NumPy view keeps its strides).
    a = make("cpu").numpy()
    reached = a[tuple(slice(None) if s else slice(1) for s in a.strides)] if a.size else a
    assert nbytes == reached.nbytes


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.float32(np.nan), np.int64(-3), np.bool_(True)])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_where_takes_numpy_scalars_as_python_scalars(scalar, dtype):
    # xarray hands NumPy scalar fill values to where(); they act as the Python scalars they hold.
    x = xp.asarray([1, -2, 3], dtype=dtype)
    c = x > 0
    want = xp.where(c, x, scalar.item())  # the Python scalar's rule (tested against NumPy elsewhere)
    for got in (xp.where(c, x, scalar), xp.where(c, scalar, x)):
        assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(xp.where(c, x, scalar).to_device("cpu")),
                                  np.asarray(want.to_device("cpu")))
    with pytest.raises(TypeError, match="where"):
        xp.where(c, x, "a")


def test_einsum_promotes_a_bool_operand_with_numeric_ones():
    # xarray's weighted reductions: xr.dot(mask, weights), an einsum of bool and float.
    m = np.array([[True, False, True], [False, True, True]])
    w = np.array([0.5, 2.0, -1.0])
    got = xp.einsum("ij,j->i", xp.asarray(m), xp.asarray(w))
    assert got.dtype == xp.float64
    np.testing.assert_allclose(np.asarray(got.to_device("cpu")), np.einsum("ij,j->i", m, w))
    with pytest.raises(TypeError, match="bool"):
        xp.einsum("ij,j->i", xp.asarray(m), xp.asarray(m[0]))
