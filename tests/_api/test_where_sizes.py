"""where at sizes around 512 elements (where the compiled loop once handed over to
numpy.where; it now runs at every size, tests/_csrc/test_large_results.py checks the pool
threshold's sides): the same values (bit for bit: NaN payloads, signed zeros), the same
dtype and shape as NumPy, layouts, broadcasting, and extensions (names, autograd)."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp

from conftest import host

N0 = 512


@pytest.mark.parametrize("n", [1, N0 - 1, N0, N0 + 1, 10_000])
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int16, np.complex64, np.bool_])
def test_values_bits_and_dtype_match_numpy(n, dt):
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 5).astype(dt)
    b = (rng.standard_normal(n) * 5).astype(dt)
    if a.dtype.kind == "f":
        a[::7] = -0.0
        a[::11] = np.frombuffer(np.array([0x7FC00123 if dt == np.float32 else 0x7FF8000000000123],
                                         dtype=np.uint32 if dt == np.float32 else np.uint64).tobytes(), dt)[0]
    c = rng.random(n) > 0.5
    want = np.where(c, a, b)
    for view in (slice(None), slice(None, None, -1)):
        got = xp.where(xp.asarray(c)[view], xp.asarray(a)[view], xp.asarray(b)[view])
        w = want[view] if view.step is None else np.where(c[view], a[view], b[view])
        g = host(got)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()


def test_broadcasting_scalars_and_errors_above_the_handover():
    n = N0 * 2
    a = np.arange(n, dtype=np.float64).reshape(2, N0)
    c = np.array([True, False])[:, None]
    np.testing.assert_array_equal(host(xp.where(xp.asarray(c), xp.asarray(a), 0.5)), np.where(c, a, 0.5))
    np.testing.assert_array_equal(host(xp.where(xp.asarray(a > 3), xp.asarray(a), xp.asarray(a[0]))),
                                  np.where(a > 3, a, a[0]))
    with pytest.raises(ValueError, match="shape"):
        xp.where(xp.asarray(a > 3), xp.asarray(a), xp.asarray(np.ones(3)))
    with pytest.raises(TypeError, match="bool"):
        xp.where(xp.asarray(a), xp.asarray(a), xp.asarray(a))


def test_gradients_and_names_above_the_handover():
    n = N0 * 2
    a = np.linspace(-1, 1, n)
    x = xp.asarray(a, requires_grad=True)
    xp.sum(xp.where(x > 0, x * 3.0, x)).backward()
    np.testing.assert_array_equal(host(x.grad), np.where(a > 0, 3.0, 1.0))
    named = xp.asarray(a.reshape(2, N0), names=("N", "C"))
    r = xp.where(named > 0, named, named * 0.0)
    assert r.names == ("N", "C")


@pytest.mark.parametrize("shape", [(N0 - 1,), (N0,), (40, 50), (1000, 20)])
@pytest.mark.parametrize("small_side", ["x1", "x2", "condition"])
def test_a_small_operand_broadcast_to_a_large_result(shape, small_side):
    # scikit-learn's _nanmin: where(isnan(X), 0-d inf, X). The size that picks the loop is the
    # result's, not x1's; the values (NaN payloads, signed zeros) are numpy.where's either way.
    rng = np.random.default_rng(len(shape) * 7 + shape[0])
    x = rng.standard_normal(shape)
    x.flat[::5] = -0.0
    x.flat[::9] = np.frombuffer(np.array([0x7FF8000000000123], dtype=np.uint64).tobytes(), np.float64)[0]
    m = np.isnan(x)
    fill = np.asarray(np.inf)
    if small_side == "x1":
        args = (m, fill, x)
    elif small_side == "x2":
        args = (m, x, fill)
    else:
        args = (np.asarray(True), x, -x)
    want = np.where(*args)
    got = host(xp.where(*(xp.asarray(v) for v in args)))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()



_ZEROS = [-0.0, 0.0]
_CZEROS = _ZEROS + [complex(-0.0, -0.0), complex(0.0, -0.0)]


@pytest.mark.parametrize("dt, zero", [(dt, z) for dt in (np.float32, np.float64) for z in _ZEROS]
                         + [(dt, z) for dt in (np.complex64, np.complex128) for z in _CZEROS])
@pytest.mark.parametrize("first", [True, False])
def test_a_python_scalar_zero_keeps_its_sign(dt, zero, first):
    # A Python scalar becomes a 0-d array of the result dtype; CuPy's own asarray makes it
    # with a memset for any zero (-0.0 -> +0.0), so on cuda where(m, -0.0, x) gave +0.0
    # (found by test_complex_meanings24's nan_to_num(posinf=-0.0)). The sign bits against
    # NumPy's where, on the default device.
    x = np.array([np.inf, 1.0, -2.5], dtype=dt)
    m = np.array([True, False, True])
    want = np.where(m, zero, x) if first else np.where(~m, x, zero)
    xs, ms = xp.asarray(x), xp.asarray(m)
    got = host(xp.where(ms, zero, xs) if first else xp.where(xp.logical_not(ms), xs, zero))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
