"""array-api-compat recognises strided; array-api-extra's functions run on it.

Each array-api-extra case runs twice, once on NumPy and once on strided (on a
transposed copy of the data, so layouts other than row-major get exercised),
and the results must agree in type, dtype and value. The vendored copies of
array-api-compat inside SciPy and scikit-learn (what those libraries really
call) are checked alongside the installed one.
"""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np
import pytest

import strided as xp

compat = pytest.importorskip("array_api_compat")
xpx = pytest.importorskip("array_api_extra")

# The installed array-api-compat and the copies vendored by our peers.
COMPAT_MODULES = ["array_api_compat", "scipy._lib.array_api_compat", "sklearn.externals.array_api_compat"]


@pytest.fixture(params=COMPAT_MODULES)
def compat_mod(request):
    try:
        return importlib.import_module(request.param)
    except ImportError:
        pytest.skip(f"{request.param} is not installed")


def _strided(a):
    """A strided array equal to ``a``, laid out transposed when 2-D or more."""
    a = np.asarray(a)
    if a.ndim < 2:
        return xp.asarray(a.copy())
    t = xp.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2)))
    return xp.permute_dims(t, tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2))


# --- recognition ---------------------------------------------------------------

def test_array_namespace_is_strided(compat_mod):
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert compat_mod.array_namespace(x) is xp
    assert compat_mod.array_namespace(x, x.T, 1.0, None) is xp
    assert compat_mod.array_namespace(x, api_version="2024.12") is xp
    with pytest.raises(ValueError):
        compat_mod.array_namespace(x, api_version="2000.01")
    with pytest.raises(TypeError, match="Multiple namespaces"):
        compat_mod.array_namespace(x, np.ones(2))


def test_helpers_on_strided_arrays(compat_mod):
    x = xp.asarray(np.arange(12.0).reshape(3, 4))[:, ::2]
    assert compat_mod.is_array_api_obj(x)
    assert compat_mod.device(x) is x.device == xp.Device("cpu")
    assert compat_mod.to_device(x, "cpu") is x
    assert compat_mod.to_device(x, xp.Device("cpu")) is x
    assert compat_mod.size(x) == 6 == math.prod(x.shape)
    assert compat_mod.size(xp.zeros((0, 3))) == 0
    for name in ("is_numpy_array", "is_cupy_array", "is_torch_array", "is_dask_array",
                 "is_jax_array", "is_pydata_sparse_array", "is_ndonnx_array"):
        assert not getattr(compat_mod, name)(x), name
    assert not compat_mod.is_numpy_namespace(xp) and not compat_mod.is_torch_namespace(xp)
    assert compat_mod.is_writeable_array(x)
    assert not compat_mod.is_lazy_array(x)
    assert compat_mod.get_namespace(x) is xp


def test_to_device_to_an_unknown_device_is_our_error(compat_mod):
    # ``to_device`` is forwarded to our method; a device we don't have is our ValueError.
    x = xp.asarray([1.0, 2.0])
    with pytest.raises(ValueError, match="unknown device type"):
        compat_mod.to_device(x, "tpu")


def test_scalars_and_numpy_arrays_are_not_strided(compat_mod):
    assert not compat_mod.is_array_api_obj(1.0)
    assert compat_mod.array_namespace(np.ones(2)) is not xp


# --- array-api-extra --------------------------------------------------------------

RNG = np.random.default_rng(7)
A = RNG.normal(size=(4, 5))
B = RNG.normal(size=(3, 2))
V = RNG.normal(size=6)
IV = np.array([3, 1, 4, 1, 5, 9, 2, 6])
IV2 = np.array([1, 5, 7])
NANS = np.array([[np.nan, 2.0, -1.0], [0.5, np.nan, np.inf]])

# name -> f(namespace, asarray, dtype) ; called with (numpy, np.asarray) and (strided, _strided)
EXTRA_CASES = {
    "angle": lambda m, a, dt: xpx.angle(a((V + 1j * V[::-1]).astype(np.result_type(dt, 1j)))),
    "angle_deg": lambda m, a, dt: xpx.angle(a((V - 2j).astype(np.result_type(dt, 1j))), deg=True),
    "apply_where_fill": lambda m, a, dt: xpx.apply_where(a(V.astype(dt)) > 0, (a(V.astype(dt)),),
                                                         lambda x: x ** 2, fill_value=-1.0),
    "apply_where_f2": lambda m, a, dt: xpx.apply_where(a(A.astype(dt)) > 0, (a(A.astype(dt)), a(A.T.T.astype(dt) * 2)),
                                                       lambda x, y: x + y, lambda x, y: x - y),
    "argpartition": lambda m, a, dt: xpx.argpartition(a(V.astype(dt)), 3)[3],
    "partition": lambda m, a, dt: xpx.partition(a(A.astype(dt)), 2, axis=0)[2],
    "at_set": lambda m, a, dt: xpx.at(a(A.astype(dt)), (slice(1, 3), 0)).set(0.0, copy=True),
    "at_add_mask": lambda m, a, dt: xpx.at(a(A.astype(dt)))[a(A) > 0].add(1.0, copy=True),
    "at_subtract": lambda m, a, dt: xpx.at(a(A.astype(dt)), 1).subtract(a(A[0].astype(dt)), copy=True),
    "at_multiply_index": lambda m, a, dt: xpx.at(a(V.astype(dt)), a(np.array([0, 2]))).multiply(2.0, copy=True),
    "at_divide": lambda m, a, dt: xpx.at(a(V.astype(dt)), slice(None, None, 2)).divide(4.0, copy=True),
    "at_power": lambda m, a, dt: xpx.at(a(np.abs(V).astype(dt)), 0).power(2.0, copy=True),
    "at_min": lambda m, a, dt: xpx.at(a(A.astype(dt)), (slice(None), slice(1, 4))).min(0.0, copy=True),
    "at_max": lambda m, a, dt: xpx.at(a(A.astype(dt)))[..., -1].max(0.25, copy=True),
    "at_in_place": lambda m, a, dt: xpx.at(a(A.astype(dt)), (0, slice(None))).set(7.0, copy=False),
    "atleast_nd": lambda m, a, dt: xpx.atleast_nd(a(V.astype(dt)), ndim=3),
    "atleast_nd_noop": lambda m, a, dt: xpx.atleast_nd(a(A.astype(dt)), ndim=1),
    "cov": lambda m, a, dt: xpx.cov(a(A.astype(dt))),
    "cov_axis0_weights": lambda m, a, dt: xpx.cov(a(A.astype(dt)), axis=0, correction=0,
                                                  aweights=a(np.arange(1.0, 5.0).astype(dt))),
    "cov_fweights": lambda m, a, dt: xpx.cov(a(A.astype(dt)), fweights=a(np.array([1, 2, 1, 3, 1]))),
    "create_diagonal": lambda m, a, dt: xpx.create_diagonal(a(V.astype(dt)), offset=1),
    "create_diagonal_neg": lambda m, a, dt: xpx.create_diagonal(a(V.astype(dt)), offset=-2),
    "create_diagonal_batch": lambda m, a, dt: xpx.create_diagonal(a(A.astype(dt))),
    "deg2rad": lambda m, a, dt: xpx.deg2rad(a(V.astype(dt))),
    "rad2deg": lambda m, a, dt: xpx.rad2deg(a(V.astype(dt))),
    "diag_indices": lambda m, a, dt: xpx.diag_indices(3, xp=m),
    "tril_indices": lambda m, a, dt: xpx.tril_indices(4, offset=-1, xp=m),
    "triu_indices": lambda m, a, dt: xpx.triu_indices(3, offset=1, m=5, xp=m),
    "isclose": lambda m, a, dt: xpx.isclose(a(V.astype(dt)), a((V + 1e-9).astype(dt))),
    "isclose_nan": lambda m, a, dt: xpx.isclose(a(NANS.astype(dt)), a(NANS.astype(dt)), equal_nan=True),
    "isclose_int": lambda m, a, dt: xpx.isclose(a(IV), a(IV[::-1]), atol=1),
    "isin": lambda m, a, dt: xpx.isin(a(IV), a(IV2)),
    "isin_invert": lambda m, a, dt: xpx.isin(a(IV), a(IV2), invert=True),
    "kron": lambda m, a, dt: xpx.kron(a(A[:2, :2].astype(dt)), a(B.astype(dt))),
    "kron_1d": lambda m, a, dt: xpx.kron(a(V[:3].astype(dt)), a(V[3:].astype(dt))),
    "nan_to_num": lambda m, a, dt: xpx.nan_to_num(a(NANS.astype(dt)), fill_value=-3.0),
    "nanmax": lambda m, a, dt: xpx.nanmax(a(NANS.astype(dt)), axis=0),
    "nanmin": lambda m, a, dt: xpx.nanmin(a(NANS.astype(dt)), axis=1),
    "nanmean": lambda m, a, dt: xpx.nanmean(a(NANS[:, :2].astype(dt))),
    "nansum": lambda m, a, dt: xpx.nansum(a(NANS.astype(dt)), axis=1),
    "nunique": lambda m, a, dt: xpx.nunique(a(IV)),
    "nunique_float": lambda m, a, dt: xpx.nunique(a(np.round(A).astype(dt))),
    "one_hot": lambda m, a, dt: xpx.one_hot(a(np.array([0, 2, 1, 2])), 3, dtype=getattr(m, dt)),
    "one_hot_axis0": lambda m, a, dt: xpx.one_hot(a(np.array([[0, 1], [3, 2]])), 4, axis=0,
                                                  dtype=getattr(m, dt)),
    "pad": lambda m, a, dt: xpx.pad(a(A.astype(dt)), 2, constant_values=1.5),
    "pad_widths": lambda m, a, dt: xpx.pad(a(A.astype(dt)), ((1, 0), (0, 2))),
    "searchsorted": lambda m, a, dt: xpx.searchsorted(a(np.sort(V).astype(dt)), a(V[:3].astype(dt))),
    "searchsorted_right": lambda m, a, dt: xpx.searchsorted(a(np.sort(IV)), a(IV2), side="right"),
    "setdiff1d": lambda m, a, dt: xpx.setdiff1d(a(IV), a(IV2)),
    "setdiff1d_float": lambda m, a, dt: xpx.setdiff1d(a(np.round(V).astype(dt)), a(np.array([0.0]).astype(dt))),
    "sinc": lambda m, a, dt: xpx.sinc(a(np.append(V, 0.0).astype(dt))),
    "union1d": lambda m, a, dt: xpx.union1d(a(IV), a(IV2)),
    "unravel_index": lambda m, a, dt: xpx.unravel_index(a(np.array([1, 5, 7])), (2, 4)),
    "expand_dims": lambda m, a, dt: xpx.expand_dims(a(A.astype(dt)), axis=(0, -1)),
    "broadcast_shapes": lambda m, a, dt: xpx.broadcast_shapes((3, 1), (1, 4)),
    "lazy_apply": lambda m, a, dt: xpx.lazy_apply(lambda x: x * 2, a(A.astype(dt)),
                                                  shape=A.shape, dtype=getattr(m, dt)),
    "lazy_apply_numpy": lambda m, a, dt: xpx.lazy_apply(np.cumsum, a(V.astype(dt)), as_numpy=True,
                                                        shape=V.shape, dtype=getattr(m, dt)),
}


def _compare(out, ref, dtype_name):
    if isinstance(ref, (tuple, list)):
        assert isinstance(out, (tuple, list)) and len(out) == len(ref)
        for o, r in zip(out, ref):
            _compare(o, r, dtype_name)
        return
    if isinstance(ref, int) and not isinstance(ref, np.generic):  # a Python int (nunique)
        assert int(out) == ref
        return
    if isinstance(ref, tuple) or not hasattr(ref, "dtype"):
        assert out == ref
        return
    ref = np.asarray(ref)
    assert type(out) is xp.Array, f"expected a strided array, got {type(out).__name__}"
    got = np.asarray(out)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    assert got.shape == ref.shape
    tol = 1e-5 if dtype_name == "float32" else 1e-12
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("case", EXTRA_CASES)
def test_array_api_extra_matches_numpy(case, dtype_name):
    f = EXTRA_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # expand_dims/broadcast_shapes
        ref = f(np, np.asarray, dtype_name)
        out = f(xp, _strided, dtype_name)
    _compare(out, ref, dtype_name)


def test_at_writes_in_place_only_when_asked():
    x = xp.asarray([1.0, 2.0, 3.0])
    y = xpx.at(x, 1).set(9.0, copy=True)
    assert x.tolist() == [1.0, 2.0, 3.0] and y.tolist() == [1.0, 9.0, 3.0]
    z = xpx.at(x, 1).set(9.0, copy=False)
    assert z is x and x.tolist() == [1.0, 9.0, 3.0]


def test_default_dtype_follows_our_default():
    # Note: strided's default float is float32 (PyTorch's); NumPy's is float64.
    assert xpx.default_dtype(xp) == xp.float32
    assert xpx.default_dtype(xp, "complex floating") == xp.complex64
    assert xpx.default_dtype(xp, "integral") == xp.int64
    xp.set_default_dtype(xp.float64)
    try:
        assert xpx.default_dtype(xp) == xp.float64
        assert xpx.one_hot(xp.asarray([1, 0]), 2).dtype == xp.float64
    finally:
        xp.set_default_dtype(xp.float32)
