"""fft's short path for a host array that needs no cast (realwork5: SciPy's ``fft.rfft(x,
axis=0)`` of a non-NumPy array ends in ``strided.fft.rfft``): values bit for bit NumPy's
``numpy.fft`` on the same array, the result dtype the general path gives, and every case
the short path does not take (another length, an axis out of range, a cast) still the
general path's answer or error."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp

CPU = xp.Device("cpu")
KERNELS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
REAL_IN = {"rfft", "ihfft"}


def _input(kernel, shape, dtype, rng):
    if kernel in REAL_IN:
        return rng.standard_normal(shape).astype(dtype)
    c = np.complex64 if dtype == np.float32 else np.complex128
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(c)


@settings(max_examples=120, deadline=None)
@given(kernel=st.sampled_from(KERNELS),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9),
       dtype=st.sampled_from([np.float32, np.float64]),
       norm=st.sampled_from(["backward", "ortho", "forward"]),
       layout=st.sampled_from(["C", "T", "flip"]),
       data=st.data())
def test_short_path_is_numpys_fft_bit_for_bit(kernel, shape, dtype, norm, layout, data):
    a = _input(kernel, shape, dtype, np.random.default_rng(len(shape) * 7 + shape[0]))
    x = xp.asarray(a.copy(), device=CPU)
    if layout == "T":
        a, x = a.T, xp.permute_dims(x, tuple(reversed(range(x.ndim))))
    elif layout == "flip":
        a, x = a[::-1], xp.flip(x, axis=0)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    m = a.shape[axis]
    if kernel in ("irfft", "hfft") and m < 2:
        with pytest.raises(ValueError, match="at least 1"):
            getattr(xp.fft, kernel)(x, axis=axis, norm=norm)
        return
    ref = getattr(np.fft, kernel)(a, axis=axis, norm=norm)
    r = getattr(xp.fft, kernel)(x, axis=axis, norm=norm)
    # the general path's result (n given explicitly: the short path declines it)
    g = getattr(xp.fft, kernel)(x, n=2 * (m - 1) if kernel in ("irfft", "hfft") else m,
                                axis=axis, norm=norm)
    assert r.dtype == g.dtype and r.shape == ref.shape == g.shape
    assert np.dtype(r.dtype.name if hasattr(r.dtype, "name") else r.dtype) == ref.dtype
    np.testing.assert_array_equal(r.numpy(), ref)
    np.testing.assert_array_equal(g.numpy(), ref)


@pytest.mark.parametrize("kernel", KERNELS)
def test_what_the_short_path_declines(kernel):
    rng = np.random.default_rng(1)
    # an axis out of range: the general path's error, naming the function
    x = xp.asarray(_input(kernel, (4, 3), np.float64, rng), device=CPU)
    with pytest.raises((IndexError, ValueError), match=f"fft.{kernel}"):
        getattr(xp.fft, kernel)(x, axis=2)
    with pytest.raises(ValueError, match="norm"):
        getattr(xp.fft, kernel)(x, norm=None)
    with pytest.raises(TypeError):
        getattr(xp.fft, kernel)(x, axis=True)  # (a bool is not an int axis)
    # a cast the kernel needs: float16 computes in single precision; integers refused
    h = xp.asarray(np.arange(8, dtype=np.float16), device=CPU)
    if kernel in REAL_IN:
        assert getattr(xp.fft, kernel)(h).dtype == xp.complex64
        with pytest.raises(TypeError, match="real floating-point"):
            getattr(xp.fft, kernel)(xp.asarray(np.arange(8), device=CPU))
    else:
        r = getattr(xp.fft, kernel)(xp.asarray(np.arange(8.0), device=CPU))
        ref = getattr(np.fft, kernel)(np.arange(8.0).astype(np.complex128))
        np.testing.assert_array_equal(r.numpy(), ref)


def test_out_still_works():
    a = np.random.default_rng(2).standard_normal((6, 4))
    x = xp.asarray(a.copy(), device=CPU)
    o = xp.empty((4, 4), dtype=xp.complex128, device=CPU)
    r = xp.fft.rfft(x, axis=0, out=o)
    assert r is o
    np.testing.assert_array_equal(o.numpy(), np.fft.rfft(a, axis=0))


def test_default_device_array():
    # on whatever the default device is (the cuda stand-in in CI's second leg)
    a = np.random.default_rng(3).standard_normal((5, 3))
    r = xp.fft.rfft(xp.asarray(a), axis=0)
    np.testing.assert_allclose(np.asarray(r.cpu()), np.fft.rfft(a, axis=0), rtol=1e-12, atol=1e-12)
