"""The ``fft`` extension, checked against ``numpy.fft``.

Transforms must match NumPy's (computed in double precision) within the
precision's tolerance on contiguous, strided, negative-stride and transposed
inputs, keep single precision, and reject wrong dtypes, sizes, axes and
norms with our errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided import fft as F

from conftest import LAYOUTS, assert_same, layout, to_np

NORMS = ["backward", "ortho", "forward"]
SINGLE = {np.float32, np.complex64}


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    r = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        r = r + 1j * rng.standard_normal(shape)
    return r.astype(dtype)


def assert_close(x, ref, dtype):
    assert tuple(x.shape) == ref.shape
    assert x.dtype._np == np.dtype(dtype), (x.dtype, dtype)
    t = 1e-4 if np.dtype(dtype).type in SINGLE else 1e-10
    np.testing.assert_allclose(to_np(x), ref, rtol=t, atol=t * max(1.0, float(np.abs(ref).max(initial=0))))


def complex_of(dtype):
    return np.complex64 if np.dtype(dtype).type in SINGLE else np.complex128


def real_of(dtype):
    return np.float32 if np.dtype(dtype).type in SINGLE else np.float64


# (name, input kind, result kind): "c" complex of the precision, "r" real of it
ONE_D = [("fft", "c", "c"), ("ifft", "c", "c"), ("rfft", "r", "c"), ("irfft", "c", "r"),
         ("hfft", "c", "r"), ("ihfft", "r", "c")]
N_D = [("fftn", "c", "c"), ("ifftn", "c", "c"), ("rfftn", "r", "c"), ("irfftn", "c", "r")]


def _dtype(kind, single):
    return (np.complex64 if single else np.complex128) if kind == "c" else (np.float32 if single else np.float64)


@pytest.mark.parametrize("func,inp,res", ONE_D)
@pytest.mark.parametrize("single", [True, False])
@pytest.mark.parametrize("name", LAYOUTS)
def test_one_d_transforms(func, inp, res, single, name):
    ref_in = rand((4, 6), _dtype(inp, single), 1)
    x = layout(ref_in, name)
    for n, axis in [(None, -1), (None, 0), (3, -1), (9, 1), (1, 0)]:
        for norm in NORMS:
            out = getattr(F, func)(x, n=n, axis=axis, norm=norm)
            ref = getattr(np.fft, func)(ref_in.astype(_dtype(inp, False)), n=n, axis=axis, norm=norm)
            assert_close(out, ref.astype(_dtype(res, False)), _dtype(res, single))


@pytest.mark.parametrize("func,inp,res", N_D)
@pytest.mark.parametrize("single", [True, False])
@pytest.mark.parametrize("s,axes", [(None, None), (None, (0,)), (None, (2, 0)), ((3, 5), (0, 1)),
                                    ((-1, 4), (1, 2)), ((2,), None), ((4, 4, 4), None)])
def test_n_d_transforms(func, inp, res, single, s, axes):
    ref_in = rand((3, 4, 5), _dtype(inp, single), 2)
    x = layout(ref_in, "negative")
    norm = ("backward", "ortho", "forward")[len(s or ()) % 3]
    out = getattr(F, func)(x, s=s, axes=axes, norm=norm)
    # NumPy deprecates -1 in s and s without axes: spell them out for the reference
    np_axes = axes if axes is not None else (None if s is None else tuple(range(3 - len(s), 3)))
    np_s = s
    if s is not None:
        last = len(s) - 1
        np_s = tuple(ref_in.shape[a] if v == -1 and not (func.startswith("irfft") and i == last) else v
                     for i, (v, a) in enumerate(zip(s, np_axes)))
    ref = getattr(np.fft, func)(ref_in.astype(_dtype(inp, False)), s=np_s, axes=np_axes, norm=norm)
    assert_close(out, ref.astype(_dtype(res, False)), _dtype(res, single))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_round_trips(dtype):
    r = rand((3, 8), dtype, 3)
    x = xp.asarray(r)
    for norm in NORMS:
        assert_close(F.ifft(F.fft(x, norm=norm), norm=norm), r, dtype)
        assert_close(F.ifftn(F.fftn(x, norm=norm), norm=norm), r, dtype)
        real = xp.real(x)
        assert_close(F.irfft(F.rfft(real, norm=norm), n=8, norm=norm), r.real, real_of(dtype))
        assert_close(F.irfftn(F.rfftn(real, norm=norm), s=(3, 8), axes=(0, 1), norm=norm), r.real, real_of(dtype))
        assert_close(F.hfft(F.ihfft(real, norm=norm), n=8, norm=norm), r.real, real_of(dtype))


def test_real_input_to_complex_transforms_is_promoted():
    r = rand((5,), np.float32, 4)
    out = F.fft(xp.asarray(r))
    assert_close(out, np.fft.fft(r.astype(np.float64)).astype(np.complex128), np.complex64)
    out = F.irfft(xp.asarray(r))
    assert out.dtype == xp.float32 and tuple(out.shape) == (8,)
    half = F.rfft(xp.asarray(r, dtype=xp.float16))
    assert half.dtype == xp.complex64  # no complex32: computed in single precision


def test_empty_batches_and_copies():
    r = rand((0, 4), np.complex64, 5)
    out = F.fft(xp.asarray(r))
    assert tuple(out.shape) == (0, 4) and out.dtype == xp.complex64
    x = xp.asarray(rand((2, 3), np.complex128, 6))
    same = F.fftn(x, axes=())  # no axes: a copy
    assert_same(same, to_np(x))
    same[...] = 0
    assert to_np(x).any()


@pytest.mark.parametrize("func", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_one_d_errors(func):
    f = getattr(F, func)
    real = func in ("rfft", "ihfft")
    x = xp.ones((2, 4), dtype=xp.float32 if real else xp.complex64)
    with pytest.raises(TypeError, match=f"fft.{func}.*floating-point.*int64"):
        f(xp.ones(4, dtype=xp.int64))
    with pytest.raises(TypeError, match=func):
        f(xp.ones(4, dtype=xp.bool))
    with pytest.raises(TypeError, match=func):
        f(np.ones(4))
    if real:
        with pytest.raises(TypeError, match="real floating-point.*complex64"):
            f(xp.ones(4, dtype=xp.complex64))
    with pytest.raises(ValueError, match="norm"):
        f(x, norm="none")
    with pytest.raises(ValueError, match="at least 1"):
        f(x, n=0)
    with pytest.raises(TypeError, match="int"):
        f(x, n=2.5)
    with pytest.raises(IndexError, match="axis"):
        f(x, axis=2)
    with pytest.raises(ValueError, match="0-d"):
        f(xp.asarray(1.0))
    if func in ("irfft", "hfft"):
        with pytest.raises(ValueError, match="2\\*\\(M-1\\)"):
            f(xp.ones(1, dtype=xp.complex64))


def test_n_d_errors():
    x = xp.ones((2, 3), dtype=xp.complex64)
    with pytest.raises(ValueError, match="differ in length"):
        F.fftn(x, s=(2, 3), axes=(0,))
    with pytest.raises(ValueError, match="more entries"):
        F.fftn(x, s=(2, 3, 4))
    with pytest.raises(ValueError, match="at least 1"):
        F.fftn(x, s=(0,), axes=(0,))
    with pytest.raises(IndexError, match="fftn"):
        F.fftn(x, axes=(2,))
    with pytest.raises(ValueError, match="at least one axis"):
        F.rfftn(xp.ones((2, 3)), axes=())
    with pytest.raises(TypeError, match="rfftn"):
        F.rfftn(x)
    with pytest.raises(ValueError, match="norm"):
        F.ifftn(x, norm=None)


@pytest.mark.parametrize("func", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [1, 2, 7, 8])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(func, n, d):
    ref = getattr(np.fft, func)(n, d)
    out = getattr(F, func)(n, d=d)
    assert out.dtype == xp.get_default_dtype()
    np.testing.assert_allclose(to_np(out), ref.astype(np.float32), rtol=1e-6)
    assert_same(getattr(F, func)(n, d=d, dtype=xp.float64), ref)


def test_frequencies_device_out_and_errors(sim, default_float64):
    out = F.fftfreq(4, device=sim)
    assert out.device == sim and out.dtype == xp.float64
    buf = xp.zeros(3)
    assert F.rfftfreq(4, out=buf) is buf
    assert to_np(buf).tolist() == [0.0, 0.25, 0.5]
    assert tuple(F.fftfreq(0).shape) == (0,)
    with pytest.raises(TypeError, match="real floating-point"):
        F.fftfreq(4, dtype=xp.complex64)
    with pytest.raises(TypeError, match="real floating-point"):
        F.rfftfreq(4, dtype=xp.int32)
    with pytest.raises(ValueError, match="nonnegative"):
        F.fftfreq(-1)
    with pytest.raises(ValueError, match="nonzero"):
        F.fftfreq(4, d=0)
    with pytest.raises(TypeError, match="int"):
        F.rfftfreq(4.0)


@pytest.mark.parametrize("func", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [None, 0, -1, (0, 1), [1], ()])
@pytest.mark.parametrize("name", LAYOUTS)
def test_shifts(func, axes, name):
    r = rand((5, 4), np.float64, 7)
    x = layout(r, name)
    out = getattr(F, func)(x, axes=axes)
    assert_same(out, getattr(np.fft, func)(r, axes=axes))
    out[...] = 0  # a copy
    np.testing.assert_array_equal(to_np(x), r)
    with pytest.raises(IndexError, match=func):
        getattr(F, func)(x, axes=2)


def test_out_on_transforms():
    r = rand((3, 4), np.complex128, 8)
    buf = xp.zeros((4, 3), dtype=xp.complex128)
    out = F.fft(xp.asarray(r), out=buf.mT)
    np.testing.assert_allclose(to_np(out), np.fft.fft(r))
    np.testing.assert_allclose(to_np(buf).T, np.fft.fft(r))
    with pytest.raises(ValueError, match="fft.rfft"):
        F.rfft(xp.asarray(r.real), out=xp.zeros((3, 4), dtype=xp.complex128))


def test_on_another_device(sim):
    r = rand((2, 6), np.complex64, 9)
    out = F.fftn(xp.asarray(r, device=sim))
    assert out.device == sim
    np.testing.assert_allclose(out.cpu().numpy(), np.fft.fftn(r), rtol=1e-4, atol=1e-4)


def test_fft_exports_the_standard():
    names = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
             "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
    assert sorted(F.__all__) == sorted(names)
    assert xp.fft is F
