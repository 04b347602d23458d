"""x ** 2 for real floating arrays squares (as NumPy's own ``ndarray.__pow__`` does):
the values must be NumPy's ``power(x, 2)`` bit for bit (NaN payloads, subnormals, signed
zeros, infinities), on both sides of the pool's size threshold, for views, out= and
in-place, and the gradient PyTorch's. (The host path: pinned to the CPU; on a GPU the
reference is CuPy's power.)"""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided._core.pool import MIN_BYTES

from conftest import host

_BITS = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}


def _random_bits(dt, n, seed):
    bits = _BITS[dt]
    rng = np.random.default_rng(seed)
    hi = np.iinfo(bits).max
    r = rng.integers(0, hi, size=n, dtype=bits, endpoint=True)
    x = r.view(dt).copy()
    x[:8] = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 2.0, 0.5], dtype=dt)
    return x


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("n", [10, 5000, None])  # None: past the pool's threshold
@pytest.mark.parametrize("e", [2, 2.0])
def test_square_is_numpy_power_bit_for_bit(dt, n, e):
    if n is None:
        n = MIN_BYTES[0] // np.dtype(dt).itemsize + 17
    x = _random_bits(dt, n, n)
    with np.errstate(all="ignore"):
        want = np.power(x, dt(e))
    for a, w in ((xp.asarray(x, device="cpu"), want), (xp.asarray(x, device="cpu")[::-1], want[::-1])):
        for got in (a ** e, xp.pow(a, e)):
            g = host(got)
            assert g.dtype == w.dtype and g.shape == w.shape
            assert g.view(_BITS[dt]).tobytes() == w.view(_BITS[dt]).tobytes()


def test_out_inplace_and_other_exponents():
    x = _random_bits(np.float64, 3000, 1)
    with np.errstate(all="ignore"):
        want2, want3 = np.power(x, 2.0), np.power(x, 3.0)
    out = xp.empty(3000, dtype=xp.float64, device="cpu")
    assert xp.pow(xp.asarray(x, device="cpu"), 2, out=out) is out
    assert host(out).view(np.uint64).tobytes() == want2.view(np.uint64).tobytes()
    y = xp.asarray(x.copy(), device="cpu")
    y **= 2
    assert host(y).view(np.uint64).tobytes() == want2.view(np.uint64).tobytes()
    assert host(xp.asarray(x, device="cpu") ** 3).view(np.uint64).tobytes() == want3.view(np.uint64).tobytes()
    # the standard's x ** 0.5 still: +inf for -inf, +0 for -0
    h = host(xp.asarray(np.array([-np.inf, -0.0, 4.0])) ** 0.5)
    assert h[0] == np.inf and h[1] == 0 and not np.signbit(h[1]) and h[2] == 2.0
    # an int array to a float 2.0 is the default float dtype, squared
    assert host(xp.asarray(np.arange(4)) ** 2.0).tolist() == [0.0, 1.0, 4.0, 9.0]


def test_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    v = np.linspace(-3, 3, 11)
    x = xp.asarray(v, requires_grad=True)
    xp.sum(x ** 2).backward()
    t = torch.tensor(v, requires_grad=True)
    (t ** 2).sum().backward()
    np.testing.assert_array_equal(host(x.grad), t.grad.numpy())


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 10, 5000, None])  # None: past the pool's threshold
def test_square_root_is_numpy_power_with_the_standards_two_values(dt, n):
    # x ** 0.5 takes numpy.sqrt (NumPy's power loop does, for a scalar 0.5) and puts the
    # standard's +inf for -inf and +0 for -0 in place: every other value is NumPy's
    # power(x, 0.5) bit for bit (NaN payloads, subnormals).
    if n is None:
        n = MIN_BYTES[0] // np.dtype(dt).itemsize + 17
    x = _random_bits(dt, max(n, 8), n)[:n] if n < 8 else _random_bits(dt, n, n)
    with np.errstate(all="ignore"):
        want = np.power(x, dt(0.5))
    want = np.where(x == -np.inf, dt(np.inf), want).astype(dt)
    want = np.where((x == 0), dt(0.0), want).astype(dt)  # +0 for -0 and +0
    before = x.copy()
    for a, w in ((xp.asarray(x, device="cpu"), want), (xp.asarray(x, device="cpu")[::-1], want[::-1])):
        for got in (a ** 0.5, xp.pow(a, 0.5)):
            g = host(got)
            assert g.dtype == w.dtype and g.shape == w.shape
            assert g.view(_BITS[dt]).tobytes() == w.view(_BITS[dt]).tobytes()
    assert x.view(_BITS[dt]).tobytes() == before.view(_BITS[dt]).tobytes()  # input untouched
    # -inf among NaNs (the minimum is NaN then) still gives +inf
    y = np.array([np.nan, -np.inf, 4.0, -0.0], dtype=dt)
    h = host(xp.asarray(y, device="cpu") ** 0.5)
    assert np.isnan(h[0]) and h[1] == np.inf and h[2] == 2 and h[3] == 0 and not np.signbit(h[3])


def test_square_root_of_a_0d_array_and_2d_views():
    z = host(xp.asarray(np.float64(-0.0), device="cpu") ** 0.5)
    assert z.shape == () and z == 0 and not np.signbit(z)
    a = np.abs(np.random.default_rng(3).standard_normal((50, 40)))
    x = xp.asarray(a, device="cpu")
    for v, r in ((x.T, a.T), (x[::2, 1::3], a[::2, 1::3])):
        g = host(v ** 0.5)
        assert np.array_equal(g, np.power(r, 0.5)) and g.dtype == np.float64


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("n", [10, None])  # None: past the pool's threshold
def test_inplace_and_out_squares_write_numpys_bits_into_the_target(dt, n):
    # ``X **= 2`` and ``pow(x, 2, out=y)`` write square(x) straight into the target
    # (scikit-learn's StandardScaler squares its centred copy in place): NumPy's bits,
    # into a strided view too, the target's version counted, the operand untouched.
    if n is None:
        n = MIN_BYTES[0] // np.dtype(dt).itemsize + 17
    x = _random_bits(dt, 2 * n, n)
    with np.errstate(all="ignore"):
        want = np.power(x, dt(2))
    b = _BITS[dt]
    for e in (2, 2.0):
        y = xp.asarray(x.copy(), device="cpu")
        v0 = y._version
        y **= e
        assert host(y).view(b).tobytes() == want.view(b).tobytes()
        assert y._version > v0
        z = xp.asarray(x.copy(), device="cpu")
        v = z[::2]  # a strided target: the other elements stay as they were
        v **= e
        got = host(z)
        assert got[::2].view(b).tobytes() == want[::2].view(b).tobytes()
        assert got[1::2].view(b).tobytes() == x[1::2].view(b).tobytes()
        src = xp.asarray(x, device="cpu")
        out = xp.empty(2 * n, dtype=src.dtype, device="cpu")
        assert xp.pow(src, e, out=out) is out
        assert host(out).view(b).tobytes() == want.view(b).tobytes()
        assert host(src).view(b).tobytes() == _random_bits(dt, 2 * n, n).view(b).tobytes()


def test_inplace_and_out_squares_refuse_what_numpy_refuses():
    x = xp.asarray(np.linspace(-2, 2, 12).reshape(3, 4), device="cpu")
    with pytest.raises(ValueError, match="shape"):
        xp.pow(x, 2, out=xp.empty((4, 3), dtype=xp.float64, device="cpu"))
    with pytest.raises(TypeError):
        xp.pow(x, 2, out=xp.empty((3, 4), dtype=xp.int64, device="cpu"))  # float into int
    w = np.linspace(-2, 2, 12).reshape(3, 4)
    y = xp.asarray(w.copy(), device="cpu")
    y **= 3  # (no short cut: NumPy's power)
    np.testing.assert_array_equal(host(y), w ** 3)
    i = xp.asarray(np.arange(-3, 3), device="cpu")
    i **= 2  # integers: their own kernel, as before
    assert host(i).tolist() == [9, 4, 1, 0, 1, 4] and host(i).dtype == np.int64
