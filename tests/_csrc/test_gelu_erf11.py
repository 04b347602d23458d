"""gelu of float32 by strided's own erf (strided/_api/activations.py ``erf32``, and
``_ckernels.act``'s op 4, one compiled pass): ``erf32`` against SciPy's float64 erf rounded
once (an independent implementation: Cephes); the compiled pass against the NumPy formula
bit for bit (NaN payloads, infinities, zeros, subnormals, in place); the namespace's gelu
against PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._api import activations as A

from conftest import to_np

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

_SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 1.17549435e-38, 3.4028235e38,
                     -3.4028235e38, 1.0, 2.0, 3.0, 4.0, -4.0, 3.92, 5.9, -5.9, 0.5, 1.5, 2.5, 3.5],
                    dtype=np.float32)
_NAN_BITS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7F800001, 0xFFA5A5A5], dtype=np.uint32)


def _samples(n, seed):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    near = rng.uniform(-4.5, 4.5, n).astype(np.float32)
    # both sides of every interval boundary of the polynomials (1, 2, 3, 4)
    edges = np.array([np.nextafter(np.float32(e), np.float32(s * np.inf)) for e in (1, 2, 3, 4)
                      for s in (-1, 1)], dtype=np.float32)
    return np.concatenate([bits, near, _SPECIAL, -_SPECIAL, edges, -edges, _NAN_BITS.view(np.float32)])


def _gelu_formula(x):
    with np.errstate(all="ignore"):
        h = x * np.float32(0.5)
        return h * A.erf32(x * A._SQRT1_2) + h


def test_erf32_is_scipys_erf_rounded_once():
    scipy_special = pytest.importorskip("scipy.special")
    s = _samples(400_000, 0)
    s = s[~np.isnan(s)]
    want = scipy_special.erf(s.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(A.erf32(s).view(np.uint32), want.view(np.uint32))


def test_erf32_returns_a_nan_itself():
    nans = _NAN_BITS.view(np.float32)
    np.testing.assert_array_equal(A.erf32(nans).view(np.uint32), _NAN_BITS)


@pytest.mark.skipif(A._CK is None, reason="the compiled kernels are not built (STRIDED_NO_CEXT=1)")
def test_compiled_gelu_is_the_formula_bit_for_bit():
    x = _samples(200_000, 1)
    got = A._act(4, x, 0.0)
    assert got is not None
    np.testing.assert_array_equal(got.view(np.uint32), _gelu_formula(x).view(np.uint32))
    y = x.copy()  # in place
    assert A._CK.act(4, y, y, 0.0, 0.0, 1)
    np.testing.assert_array_equal(y.view(np.uint32), got.view(np.uint32))
    # float64 is not this kernel's: declined (the float64 gelu keeps SciPy's erf)
    with np.errstate(invalid="ignore"):  # (the signalling NaNs' cast)
        x64 = x.astype(np.float64)
    assert A._CK.act(4, x64, np.empty(x.shape), 0.0, 0.0, 1) is False


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=False), min_size=1, max_size=64), st.booleans())
def test_namespace_gelu_float32(vals, transposed):
    a = np.array(vals, dtype=np.float32)
    if transposed and a.size % 2 == 0 and a.size:
        a = a.reshape(2, -1).T  # (a non-contiguous input)
    r = to_np(xp.gelu(xp.asarray(a)))
    np.testing.assert_array_equal(r.view(np.uint32), _gelu_formula(np.ascontiguousarray(a)).view(np.uint32))


def test_gelu_matches_pytorch():
    torch = pytest.importorskip("torch")
    import strided.torch as storch

    x = np.random.default_rng(2).standard_normal(50_000).astype(np.float32) * 4
    want = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    got = to_np(storch.nn.functional.gelu(storch.asarray(x)))
    # (below about -5 the formula h * erf + h cancels: both libraries' float32 values there
    # are a few 1e-7 apart; SciPy's erf gave strided these same bits before)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)
    x64 = x.astype(np.float64)  # float64: SciPy's erf as before
    np.testing.assert_allclose(to_np(storch.nn.functional.gelu(storch.asarray(x64))),
                               torch.nn.functional.gelu(torch.from_numpy(x64)).numpy(), rtol=1e-13, atol=1e-15)
