"""gelu (and erf, op 7: gelu's backward) of float32 on each of ``_ckernels.act``'s op 4 loops (AVX-512: eight lanes, four
vectors an iteration; AVX2: four lanes; the one-element loop of the tails) against the NumPy
formula of ``strided/_api/activations.py`` (``erf32``: eight half-unit intervals, Estrin's
scheme) bit for bit: every length up to a few vectors (the tails), unaligned starts, in place,
both sides of every interval boundary, NaN payloads, infinities, zeros, subnormals. And the
formula's erf against SciPy's float64 erf rounded once, an independent implementation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from strided._api import activations as A

from conftest import host

needs_ck = pytest.mark.skipif(A._CK is None, reason="the compiled kernels are not built (STRIDED_NO_CEXT=1)")

_NAN_BITS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7F800001, 0xFFA5A5A5], dtype=np.uint32)


def _edges():
    """x whose x * sqrt(1/2) (in float32, as the kernels compute it) lies within a few ulps
    of an interval boundary k / 2 of erf's polynomials, either side, either sign."""
    out = []
    for b in np.arange(0.5, 4.5, 0.5):
        x0 = np.float32(b * np.sqrt(2.0))
        for d in range(-4, 5):
            x = x0
            for _ in range(abs(d)):
                x = np.nextafter(x, np.float32(np.sign(d) * np.inf))
            out += [x, -x]
    return np.array(out, dtype=np.float32)


def _formula(x, op=4):
    with np.errstate(all="ignore"):
        if op == 7:
            return A.erf32(x)
        h = x * np.float32(0.5)
        return h * A.erf32(x * A._SQRT1_2) + h


@pytest.fixture(params=[4, 7], ids=["gelu", "erf"])
def op(request):
    return request.param


def _isas():  # (the compiled kernels' only: needs_ck)
    """the loops this processor runs: 'avx512' then 'avx2' where it has them"""
    have = [A._CK.sum_isa(True)]
    if have[0] == "avx512":
        have.append(A._CK.sum_isa(False))
    A._CK.sum_isa(True)
    return have


@pytest.fixture(params=["avx512", "avx2"])
def isa(request):
    if A._CK is None:
        pytest.skip("the compiled kernels are not built (STRIDED_NO_CEXT=1)")
    if request.param not in _isas():
        pytest.skip(f"this processor has no {request.param}")
    A._CK.sum_isa(request.param == "avx512")
    yield request.param
    A._CK.sum_isa(True)


def _pool(seed):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, 4096, dtype=np.uint64).astype(np.uint32).view(np.float32)
    near = rng.uniform(-6.5, 6.5, 4096).astype(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 1.17549435e-38, 3.4028235e38,
                        -3.4028235e38, 5.9, -5.9, 5.65, -5.66], dtype=np.float32)
    return np.concatenate([bits, near, special, _edges(), _NAN_BITS.view(np.float32)])


def test_each_loop_is_the_formula_on_the_edges_and_specials(isa, op):
    x = _pool(3)
    if op == 7:  # (erf's own argument: its interval edges directly)
        x = np.concatenate([x, (_edges() * A._SQRT1_2).astype(np.float32)])
    x = np.random.default_rng(4).permutation(x)
    got = np.empty_like(x)
    assert A._CK.act(op, x, got, 0.0, 0.0, 1)
    np.testing.assert_array_equal(got.view(np.uint32), _formula(x, op).view(np.uint32))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=hs.integers(0, 80), start=hs.integers(0, 7), seed=hs.integers(0, 2**31), inplace=hs.booleans())
def test_every_length_and_start(isa, op, n, start, seed, inplace):
    pool = _pool(seed % 7)
    buf = np.random.default_rng(seed).choice(pool, n + start)
    x = buf[start:]  # (an unaligned start: loads and stores of any alignment)
    want = _formula(x.copy(), op)
    if inplace:
        y = x
        assert A._CK.act(op, y, y, 0.0, 0.0, 1)
    else:
        y = np.empty_like(x)
        assert A._CK.act(op, x, y, 0.0, 0.0, 1)
    np.testing.assert_array_equal(y.view(np.uint32), want.view(np.uint32))


def test_threads_split_the_same_values(isa, op):
    x = np.random.default_rng(5).choice(_pool(5), 100_003)
    one, two = np.empty_like(x), np.empty_like(x)
    assert A._CK.act(op, x, one, 0.0, 0.0, 1) and A._CK.act(op, x, two, 0.0, 0.0, 2)
    np.testing.assert_array_equal(one.view(np.uint32), two.view(np.uint32))
    np.testing.assert_array_equal(one.view(np.uint32), _formula(x, op).view(np.uint32))


@needs_ck
def test_erf_declines_float64_and_unknown_ops():
    x = np.linspace(-3, 3, 64)
    assert A._CK.act(7, x, np.empty_like(x), 0.0, 0.0, 1) is False
    with pytest.raises(ValueError, match="unknown op 8"):
        A._CK.act(8, x.astype(np.float32), np.empty(64, np.float32), 0.0, 0.0, 1)


def test_gelu_gradient_float32_by_finite_differences():  # (both builds: erf32 in C or NumPy)
    import strided as xp
    x = np.random.default_rng(6).uniform(-5, 5, 2000)
    a = xp.asarray(x.astype(np.float32), requires_grad=True)
    xp.sum(xp.gelu(a)).backward()
    erf = pytest.importorskip("scipy.special").erf  # (float64: the derivative Phi(x) + x phi(x))
    want = 0.5 * (1 + erf(x / np.sqrt(2))) + x * np.exp(-x * x / 2) / np.sqrt(2 * np.pi)
    got = host(a.grad)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6)
    eps = 1e-4  # and finite differences of the float64 gelu, the same derivative
    g64 = lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2)))
    np.testing.assert_allclose(want, (g64(x + eps) - g64(x - eps)) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_erf32_on_the_edges_is_scipys_rounded():
    scipy_special = pytest.importorskip("scipy.special")
    s = (_edges() * A._SQRT1_2).astype(np.float32)
    s = np.concatenate([s, np.linspace(-4.2, 4.2, 200_001, dtype=np.float32)])
    want = scipy_special.erf(s.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(A.erf32(s).view(np.uint32), want.view(np.uint32))
