"""torch.stft / torch.istft on strided.torch against PyTorch 2.13: values and gradients for
1-D and batched input, real and complex, every pad_mode, windows shorter than n_fft,
normalized, onesided and not, center and not, istft's length trimming and padding and
return_complex; and the same errors for the same mistakes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch

STFT_CASES = [
    dict(n_fft=8),
    dict(n_fft=8, hop_length=3, win_length=6, win="hann"),
    dict(n_fft=7, hop_length=2, win="hamming", normalized=True),
    dict(n_fft=8, center=False, win="hann"),
    dict(n_fft=8, pad_mode="constant", win="hann"),
    dict(n_fft=8, pad_mode="replicate", onesided=False),
    dict(n_fft=8, pad_mode="circular", win_length=5),
]


def _stft_run(lib, case, batch, dtype):
    case = dict(case)
    win = case.pop("win", None)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 30) if batch else (30,))
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(a.shape)
    x = lib.tensor(a.astype(dtype), requires_grad=True)
    wdt = lib.float64 if dtype in ("float64", "complex128") else lib.float32
    w = getattr(lib, f"{win}_window")(case.get("win_length", case["n_fft"]), dtype=wdt) if win else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = lib.stft(x, window=w, return_complex=True, **case)
    (s.abs() ** 2 * lib.arange(s.shape[-1])).sum().backward()
    return s.detach().cpu().numpy(), x.grad.cpu().numpy()


def _close_gradients(sg, tg, tol):
    """A gradient entry is a sum of many terms of the gradient's own scale, so a small one
    is the cancellation of large ones: its float32 rounding is relative to the largest
    entry (1.1e-5 of 217 seen on one machine's FFT), not to itself."""
    scale = max(1.0, float(np.abs(tg).max()))
    np.testing.assert_allclose(sg, tg, rtol=tol["rtol"], atol=tol["atol"] * scale, err_msg="gradient")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("case", STFT_CASES, ids=str)
def test_stft_matches_torch(case, batch, dtype):
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    (tv, tg), (sv, sg) = _stft_run(torch, case, batch, dtype), _stft_run(storch, case, batch, dtype)
    assert sv.shape == tv.shape and sv.dtype == tv.dtype, (sv.shape, sv.dtype, tv.shape, tv.dtype)
    np.testing.assert_allclose(sv, tv, **tol, err_msg="values")
    _close_gradients(sg, tg, tol)


ISTFT_CASES = [
    dict(n_fft=8), dict(n_fft=8, hop_length=3, win_length=6), dict(n_fft=8, length=35),
    dict(n_fft=8, length=20), dict(n_fft=8, normalized=True), dict(n_fft=8, onesided=False),
    dict(n_fft=9, hop_length=3, win="hamming"), dict(n_fft=8, return_complex=True, onesided=False),
    dict(n_fft=8, center=False, win="ones"),
]


def _istft_run(lib, case, batch, dtype):
    case = dict(case)
    win, length, rc = case.pop("win", "hann"), case.pop("length", None), case.pop("return_complex", False)
    a = np.random.default_rng(5).standard_normal((2, 30) if batch else (30,)).astype(dtype)
    n = case.get("win_length", case["n_fft"])
    w = lib.ones(n, dtype=getattr(lib, dtype)) if win == "ones" else \
        getattr(lib, f"{win}_window")(n, dtype=getattr(lib, dtype))
    spec = lib.stft(lib.tensor(a), window=w, return_complex=True, **case).detach().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = lib.istft(spec, window=w, length=length, return_complex=rc, **case)
    (y.abs() ** 2 * lib.arange(y.shape[-1])).sum().backward()
    return y.detach().cpu().numpy(), spec.grad.cpu().numpy(), a


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("case", ISTFT_CASES, ids=str)
def test_istft_matches_torch(case, batch, dtype):
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    (ty, tg, a), (sy, sg, _) = _istft_run(torch, case, batch, dtype), _istft_run(storch, case, batch, dtype)
    assert sy.shape == ty.shape and sy.dtype == ty.dtype, (sy.shape, sy.dtype, ty.shape, ty.dtype)
    np.testing.assert_allclose(sy, ty, **tol, err_msg="values")
    _close_gradients(sg, tg, tol)


def test_istft_inverts_stft():
    x = np.random.default_rng(0).standard_normal(50)
    w = storch.hann_window(16, dtype=storch.float64)
    s = storch.stft(storch.tensor(x), 16, hop_length=4, window=w, return_complex=True)
    np.testing.assert_allclose(storch.istft(s, 16, hop_length=4, window=w, length=50).cpu().numpy(), x,
                               rtol=1e-12, atol=1e-12)


def test_stft_real_view_when_return_complex_false():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.stft(torch.arange(16.0), 4, window=torch.ones(4), return_complex=False)
    s = storch.stft(storch.arange(16.0), 4, window=storch.ones(4), return_complex=False)
    assert tuple(s.shape) == tuple(t.shape) and s.dtype == storch.float32
    np.testing.assert_allclose(s.cpu().numpy(), t.cpu().numpy(), rtol=1e-6, atol=1e-6)


def test_warnings_once_as_torch(monkeypatch):
    # PyTorch warns once a process (TORCH_WARN_ONCE): without a window, and when istft's
    # length pads the signal with zeros.
    from strided.torch import _stft
    monkeypatch.setattr(_stft, "_WARNED", set())
    for _ in range(2):
        with pytest.warns(UserWarning, match="A window was not provided"):
            storch.stft(storch.ones(16), 4, return_complex=True)
        s = storch.stft(storch.ones(16), 4, window=storch.ones(4), return_complex=True)
        with pytest.warns(UserWarning, match="shorter than the length parameter"):
            storch.istft(s, 4, window=storch.ones(4), length=20)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            storch.stft(storch.ones(16), 4, return_complex=True)
            storch.istft(s, 4, window=storch.ones(4), length=20)
        _stft._WARNED.clear()


def test_return_complex_false_warns_once_as_torch(monkeypatch):
    from strided.torch import _stft
    monkeypatch.setattr(_stft, "_WARNED", set())
    # (PyTorch 2.13's words, measured: its warning is once a process, so another test may have
    # taken it already)
    said = ("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
            "complex tensors for all inputs, and return_complex=False will raise an error.")
    for _ in range(2):
        with pytest.warns(UserWarning) as got:
            r = storch.stft(storch.ones(16), 4, window=storch.ones(4), return_complex=False)
        assert [str(w.message) for w in got] == [said] and tuple(r.shape) == (3, 17, 2)  # (as PyTorch's, measured)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            storch.stft(storch.ones(16), 4, window=storch.ones(4), return_complex=False)
        _stft._WARNED.clear()


ERRORS = {
    "return_complex": (lambda m: m.stft(m.ones(16), 4, window=m.ones(4)),
                       "requires the return_complex parameter"),
    "n_fft": (lambda m: m.stft(m.ones(6), 16, center=False, return_complex=True), "expected 0 < n_fft < 6"),
    "hop": (lambda m: m.stft(m.ones(16), 4, hop_length=0, return_complex=True), "hop_length > 0"),
    "win_length": (lambda m: m.stft(m.ones(16), 4, win_length=5, return_complex=True), "win_length <= n_fft"),
    "window": (lambda m: m.stft(m.ones(16), 4, window=m.ones(3), return_complex=True),
               "window tensor of size equal to win_length"),
    "ndim": (lambda m: m.stft(m.ones(2, 2, 16), 4, return_complex=True), "1D or 2D"),
    "int": (lambda m: m.stft(m.ones(16, dtype=m.int64), 4, return_complex=True), "floating point or complex"),
    "onesided": (lambda m: m.stft(m.ones(16, dtype=m.complex64), 4, onesided=True),
                 "Cannot have onesided output"),
    "align": (lambda m: m.stft(m.ones(16), 4, return_complex=True, align_to_window=False),
              "align_to_window should only be set when center = false"),
    "istft_real": (lambda m: m.istft(m.ones(3, 5), 4), "complex-valued input"),
    "istft_freq": (lambda m: m.istft(m.ones(4, 5, dtype=m.complex64), 8), "n_fft / 2 \\+ 1"),
    "istft_nola": (lambda m: m.istft(m.ones(3, 5, dtype=m.complex64), 4, window=m.zeros(4)), "overlap"),
    "istft_onesided_complex": (lambda m: m.istft(m.ones(3, 5, dtype=m.complex64), 4, return_complex=True),
                               "Cannot have onesided output"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_same_errors_as_torch(name):
    f, match = ERRORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=match):
            f(torch)
        with pytest.raises(RuntimeError, match=match):
            f(storch)
