"""``torch.stft`` and ``torch.istft`` over strided's FFTs, with PyTorch's defaults and checks.

Both are composites of differentiable operations (``pad``, ``unfold``, ``fft.rfft``/``fft``,
``index_add``), so their gradients come from the parts.

>>> import strided.torch as torch
>>> x = torch.arange(16.0)
>>> s = torch.stft(x, 8, window=torch.hann_window(8), return_complex=True)
>>> s.shape, s.dtype == torch.complex64
(strided.Size([5, 9]), True)
>>> y = torch.istft(s, 8, window=torch.hann_window(8), length=16)
>>> bool((y - x).abs().max() < 1e-4)
True
"""

from __future__ import annotations

import math
import sys
import warnings

from .._core.caller import stacklevel

__all__ = ["stft", "istft"]

_WARNED: set = set()  # PyTorch gives these warnings once a process (TORCH_WARN_ONCE)


def _warn_once(key: str, msg: str) -> None:
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(msg, UserWarning, stacklevel=stacklevel())


def _torch():
    return sys.modules["strided.torch"]


def _window(torch, window, win_length, n_fft, dtype, device, fn):
    """The window padded on both sides to ``n_fft`` (PyTorch: ones when none is given)."""
    if window is None:
        if win_length == n_fft:
            return None
        window = torch.ones(win_length, dtype=dtype, device=device)
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{fn}: expected a 1D window tensor of size equal to win_length={win_length}, "
                           f"but got window with size {list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = torch.nn.functional.pad(window, (left, n_fft - win_length - left))
    return window


def _lengths(n_fft, hop_length, win_length, fn):
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if hop <= 0:
        raise RuntimeError(f"{fn}: expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"{fn}: expected 0 < win_length <= n_fft, but got win_length={win}")
    return hop, win


def stft(input, n_fft: int, hop_length=None, win_length=None, window=None, center: bool = True,
         pad_mode: str = "reflect", normalized: bool = False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform (PyTorch's ``torch.stft``): frames of ``n_fft``
    samples every ``hop_length`` (default ``n_fft // 4``), times ``window`` (default
    rectangular, padded on both sides to ``n_fft``), Fourier transformed; the result is
    ``(B?, N, T)``, ``N = n_fft // 2 + 1`` when ``onesided`` (the default for real input
    and window). ``center=True`` pads ``n_fft // 2`` on both sides with ``pad_mode``;
    ``normalized`` multiplies by ``n_fft ** -0.5``. ``return_complex`` must be given for
    real input (``False``: the real view, ``(..., 2)``).

    >>> import strided.torch as torch
    >>> torch.stft(torch.ones(8), 4, window=torch.ones(4), return_complex=True)[:, 0]
    tensor([4.+0.j, 0.+0.j, 0.+0.j])
    """
    torch = _torch()
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if align_to_window:
        # Note: PyTorch 2.13 shifts the frames so that a window shorter than n_fft starts
        # them; not implemented here rather than answered differently.
        raise NotImplementedError("stft: align_to_window=True is not supported by strided.torch")
    if not isinstance(n_fft, int) or isinstance(n_fft, bool):
        raise TypeError(f"stft(): argument 'n_fft' must be int, not {type(n_fft).__name__}")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D tensor")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"stft: expected a tensor of floating point or complex values, "
                           f"got {input.dtype}")
    is_complex = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None:
        if not is_complex:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, "
                               "and will further require that return_complex=True in a future "
                               "PyTorch release.")
        return_complex = True
    elif not return_complex:
        _warn_once("return_complex", "stft with return_complex=False is deprecated. In a future pytorch release, "
                   "stft will return complex tensors for all inputs, and return_complex=False will raise an "
                   "error.")  # (PyTorch's words, once a process as its TORCH_WARN_ONCE)
    if onesided is None:
        onesided = not is_complex
    elif onesided and is_complex:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if window is None:
        _warn_once("window", "A window was not provided. A rectangular window will be applied, which is known to "
                      "cause spectral leakage. Other windows such as torch.hann_window or "
                      "torch.hamming_window are recommended to reduce spectral leakage. To suppress this "
                      "warning and use a rectangular window, explicitly set "
                      "`window=torch.ones(n_fft, device=<device>)`.")
    x = input if input.ndim == 2 else input.unsqueeze(0)
    if center:
        pad = n_fft // 2
        x = torch.nn.functional.pad(x.unsqueeze(1), (pad, pad), mode=pad_mode).squeeze(1)
    length = x.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    hop, win = _lengths(n_fft, hop_length, win_length, "stft")
    w = _window(torch, window, win, n_fft, input.dtype if not input.is_complex() else None,
                input.device, "stft")
    frames = x.unfold(-1, n_fft, hop)  # (B, T, n_fft)
    if w is not None:
        frames = frames * w
    out = torch.fft.rfft(frames, dim=-1) if onesided else torch.fft.fft(frames, dim=-1)
    if normalized:
        out = out * (1.0 / math.sqrt(n_fft))
    out = out.transpose(-1, -2)
    if input.ndim == 1:
        out = out.squeeze(0)
    return out if return_complex else torch.view_as_real(out)


def istft(input, n_fft: int, hop_length=None, win_length=None, window=None, center: bool = True,
          normalized: bool = False, onesided=None, length=None, return_complex: bool = False):
    """The inverse of ``stft`` (PyTorch's ``torch.istft``): each frame's inverse FFT times
    the window, overlap-added and divided by the overlap-added squared window; ``center``
    drops ``n_fft // 2`` samples at each end; ``length`` trims or zero-pads the result.
    ``onesided`` defaults to whether the frequency dimension is not ``n_fft``.

    >>> import strided.torch as torch
    >>> s = torch.stft(torch.ones(8), 4, window=torch.ones(4), return_complex=True)
    >>> torch.istft(s, 4)
    tensor([1., 1., 1., 1., 1., 1., 1., 1.])
    """
    torch = _torch()
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from "
                           "stft with return_complex=True.")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex dtype, but got "
                           f"{input.ndim}D")
    x = input if input.ndim == 3 else input.unsqueeze(0)
    fft_size, n_frames = x.shape[-2], x.shape[-1]
    hop, win = _lengths(n_fft, hop_length, win_length, "istft")
    if onesided is None:
        onesided = fft_size != n_fft
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input "
                           f"tensor to match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not onesided and n_fft != fft_size:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input "
                           f"tensor to match n_fft when onesided=False, but got {fft_size}")
    real_dtype = x.real.dtype
    w = _window(torch, window, win, n_fft, real_dtype, x.device, "istft")
    if w is None:
        w = torch.ones(n_fft, dtype=real_dtype, device=x.device)
    x = x.transpose(-1, -2)  # (B, T, N)
    if normalized:
        x = x * math.sqrt(n_fft)
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = torch.fft.ifft(x, n=n_fft, dim=-1)
    else:
        if w.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            x = x[..., : n_fft // 2 + 1]
        frames = torch.fft.irfft(x, n=n_fft, dim=-1)
    frames = frames * w
    batch = frames.shape[0]
    expected = n_fft + hop * (n_frames - 1)
    idx = (torch.arange(n_frames, device=x.device).unsqueeze(1) * hop
           + torch.arange(n_fft, device=x.device).unsqueeze(0)).reshape(-1)
    y = torch.zeros(batch, expected, dtype=frames.dtype, device=x.device).index_add(
        1, idx, frames.reshape(batch, -1))
    env = torch.zeros(expected, dtype=w.dtype, device=x.device).index_add(
        0, idx, (w * w).expand(n_frames, n_fft).reshape(-1))
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected - n_fft // 2 if center else expected
    y = y[:, start:end]
    env = env[start:end]
    if bool((env.abs() < 1e-11).any()):
        raise RuntimeError("istft: the window's overlap-add has values below 1e-11 (it fails the NOLA "
                           "condition): the signal cannot be recovered")
    y = y / env
    if end > expected:
        _warn_once("length", "The length of signal is shorter than the length parameter. Result is being padded "
                      "with zeros in the tail. Please check your center and hop_length settings.")
        y = torch.nn.functional.pad(y, (0, end - expected))
    return y.squeeze(0) if input.ndim == 2 else y
