"""The Array API ``fft`` extension (``strided.fft``).

Transforms run on the backend's FFT (``numpy.fft`` on the CPU, which computes
in single precision for single-precision input; ``cupy.fft`` on CUDA).

- Precision is kept: complex64 in, complex64 out; float32 in, complex64 out
  for ``rfft``; complex64 in, float32 out for ``irfft`` and ``hfft``.
- The complex-input transforms (``fft``, ``ifft``, ``fftn``, ``ifftn``,
  ``irfft``, ``irfftn``, ``hfft``) also take real floating-point input, as
  PyTorch does, and treat it as complex of the same precision. The
  real-input ones (``rfft``, ``rfftn``, ``ihfft``) reject complex input.
  float16 computes in single precision (there is no complex32).
- ``n``/``s`` pad with zeros or trim; an ``s`` entry of -1 keeps the input's
  size. ``s`` without ``axes`` applies to the last ``len(s)`` axes (PyTorch).
- Every transform and frequency function takes ``out=``.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from ._core import dtypes as _dtypes, layout as _layout
from ._api.creation import _as_dtype, _finish
from ._core.device import as_device
from ._core.dispatch import api
from ._api.linalg_functions import check_array, new_array
from ._api.views import clone
from ._api.creation import wrap_new
from ._core.array import Array

_NP_FFT = {k: getattr(np.fft, k) for k in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")}

__all__ = [
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

_NORMS = ("backward", "ortho", "forward")


def _input(x, func: str, real_input: bool):
    """(native input cast for the kernel, result dtype) for transform ``func``.

    ``real_input`` transforms (rfft...) take real floating-point arrays; the
    others take any floating-point array and compute in complex.
    """
    check_array(x, func)
    dt = x._dtype
    if real_input:
        if dt.kind != "f":
            raise TypeError(f"fft.{func}() accepts only real floating-point data types; got {dt.name}")
        work = _dtypes.float32 if dt is _dtypes.float16 else dt
    else:
        if dt.kind not in "fc":
            raise TypeError(f"fft.{func}() accepts only floating-point data types; got {dt.name}")
        work = _dtypes.complex_of(dt)
    a = x._get_native()
    if a.dtype != work._np:
        a = a.astype(work._np)
    return a


def _norm(norm, func: str) -> str:
    if norm not in _NORMS:
        raise ValueError(f"fft.{func}(): norm must be 'backward', 'ortho' or 'forward'; got {norm!r}")
    return norm


def _size(n, func: str, what: str = "n") -> int:
    if isinstance(n, builtins.bool):
        raise TypeError(f"fft.{func}(): {what} must be an int; got a bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"fft.{func}(): {what} must be an int; got {type(n).__name__}") from None
    if n < 1:
        raise ValueError(f"fft.{func}(): the transform length must be at least 1; got {what}={n}")
    return n


def _axis(x, axis, func: str) -> int:
    if x.ndim == 0:
        raise ValueError(f"fft.{func}() needs an array of at least 1 dimension; got a 0-d array")
    return _layout.normalize_axis(x._axis(axis), x.ndim, f"fft.{func}")


# Result dtype of a 1-D transform whose input needs no cast, by (input dtype, real_input, c2r):
# rfft/ihfft of float32/float64, fft/ifft of complex64/complex128, irfft/hfft of complex
# (numpy.fft keeps single precision since NumPy 2.0: the dtype it returns, checked below).
_SAME_WORK = {
    (_dtypes.float32, True, False): _dtypes.complex64, (_dtypes.float64, True, False): _dtypes.complex128,
    (_dtypes.complex64, False, False): _dtypes.complex64, (_dtypes.complex128, False, False): _dtypes.complex128,
    (_dtypes.complex64, False, True): _dtypes.float32, (_dtypes.complex128, False, True): _dtypes.float64,
}


def _one(func: str, kernel: str, x, n, axis, norm, out, real_input: bool, c2r: bool):
    """A 1-D transform along ``axis``; ``c2r`` output sizes default to ``2 * (M - 1)``."""
    if type(x) is Array and n is None and out is None and type(axis) is builtins.int \
            and x._device.type == "cpu" and (norm == "backward" or norm == "ortho" or norm == "forward"):
        # Short path: a host array in a dtype the kernel takes as it is, the default length,
        # an int axis (SciPy's ``fft.rfft(x, axis=0)`` of a non-NumPy array): the general
        # path's checks below have nothing to refuse, its casts nothing to do; anything
        # else (an axis out of range, a length < 1, a name) falls through to them.
        rd = _SAME_WORK.get((x._dtype, real_input, c2r))
        shape = x._shape
        nd = len(shape)
        ax = axis + nd if axis < 0 else axis
        if rd is not None and 0 <= ax < nd:
            m = 2 * (shape[ax] - 1) if c2r else shape[ax]
            if m >= 1:
                a = x._np
                if a is None:
                    a = x._get_native()
                r = _NP_FFT[kernel](a, n=m, axis=ax, norm=norm)
                if r.dtype is rd._np:
                    return Array._new(r, None, 0, r.shape, None, rd, x._device)
                return wrap_new(r, rd, x._device)
    norm = _norm(norm, func)
    a = _input(x, func, real_input)
    ax = _axis(x, axis, func)
    m = x._shape[ax]
    if n is None:
        n = _size(2 * (m - 1) if c2r else m, func, "the default n" if not c2r else "2*(M-1)")
    else:
        n = _size(n, func)
    dev = x._device
    with dev.backend.ctx(dev):
        r = getattr(dev.backend.xp.fft, kernel)(a, n=n, axis=ax, norm=norm)
    return _finish(new_array(r, _result_dtype(a, c2r, real_input), dev), f"fft.{func}", out)


def _result_dtype(a, c2r: bool, real_input: bool):
    work = _dtypes.from_numpy_dtype(a.dtype)
    if c2r:
        return _dtypes.real_of(work)
    return _dtypes.complex_of(work) if real_input else work


def _many(func: str, kernel: str, x, s, axes, norm, out, real_input: bool, c2r: bool):
    """An n-D transform over ``axes``; for ``c2r`` the last output size defaults to ``2 * (M - 1)``."""
    norm = _norm(norm, func)
    a = _input(x, func, real_input)
    nd = x.ndim
    if axes is None:
        axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
        if s is not None and len(s) > nd:
            raise ValueError(f"fft.{func}(): s={tuple(s)} has more entries than x has axes ({nd})")
    else:
        if not isinstance(axes, (tuple, list)):
            axes = (axes,)
        axes = tuple(_layout.normalize_axis(x._axis(i), nd, f"fft.{func}") for i in axes)
    if s is not None:
        s = tuple(s)
        if len(s) != len(axes):
            raise ValueError(f"fft.{func}(): s={s} and axes={axes} differ in length")
    dev = x._device
    if not axes:
        if real_input or c2r:
            raise ValueError(f"fft.{func}() needs at least one axis to transform")
        return _finish(new_array(a.copy(), _result_dtype(a, c2r, real_input), dev), f"fft.{func}", out)
    sizes = []
    for i, ax in enumerate(axes):
        m = x._shape[ax]
        last = c2r and i == len(axes) - 1
        default = 2 * (m - 1) if last else m
        v = default if s is None or s[i] == -1 else s[i]
        sizes.append(_size(v, func, "s" if s is not None else ("2*(M-1)" if last else "the default size")))
    with dev.backend.ctx(dev):
        r = getattr(dev.backend.xp.fft, kernel)(a, s=tuple(sizes), axes=axes, norm=norm)
    return _finish(new_array(r, _result_dtype(a, c2r, real_input), dev), f"fft.{func}", out)


# --- transforms ------------------------------------------------------------------------

@api("fft.fft")
def fft(x, /, *, n=None, axis=-1, norm="backward", out=None):
    """1-D discrete Fourier transform along ``axis`` (length ``n``: zero-padded or trimmed).

    >>> import strided as xp
    >>> xp.fft.fft(xp.asarray([1, 1, 1, 1], dtype=xp.complex64)).tolist()
    [(4+0j), 0j, 0j, 0j]
    """
    return _one("fft", "fft", x, n, axis, norm, out, False, False)


@api("fft.ifft")
def ifft(x, /, *, n=None, axis=-1, norm="backward", out=None):
    """1-D inverse discrete Fourier transform along ``axis``."""
    return _one("ifft", "ifft", x, n, axis, norm, out, False, False)


@api("fft.fftn")
def fftn(x, /, *, s=None, axes=None, norm="backward", out=None):
    """n-D discrete Fourier transform over ``axes`` (all by default), sizes ``s``."""
    return _many("fftn", "fftn", x, s, axes, norm, out, False, False)


@api("fft.ifftn")
def ifftn(x, /, *, s=None, axes=None, norm="backward", out=None):
    """n-D inverse discrete Fourier transform over ``axes`` (all by default)."""
    return _many("ifftn", "ifftn", x, s, axes, norm, out, False, False)


@api("fft.rfft")
def rfft(x, /, *, n=None, axis=-1, norm="backward", out=None):
    """1-D transform of real input: the ``n // 2 + 1`` non-negative frequency terms."""
    return _one("rfft", "rfft", x, n, axis, norm, out, True, False)


@api("fft.irfft")
def irfft(x, /, *, n=None, axis=-1, norm="backward", out=None):
    """Inverse of ``rfft``: a real output of length ``n`` (default ``2 * (M - 1)``) along ``axis``."""
    return _one("irfft", "irfft", x, n, axis, norm, out, False, True)


@api("fft.rfftn")
def rfftn(x, /, *, s=None, axes=None, norm="backward", out=None):
    """n-D transform of real input; the last axis keeps ``s[-1] // 2 + 1`` terms."""
    return _many("rfftn", "rfftn", x, s, axes, norm, out, True, False)


@api("fft.irfftn")
def irfftn(x, /, *, s=None, axes=None, norm="backward", out=None):
    """Inverse of ``rfftn``: real output, the last axis of size ``s[-1]`` (default ``2 * (M - 1)``)."""
    return _many("irfftn", "irfftn", x, s, axes, norm, out, False, True)


@api("fft.hfft")
def hfft(x, /, *, n=None, axis=-1, norm="backward", out=None):
    """Transform of a Hermitian-symmetric signal given by its first half: a real output of length ``n``."""
    return _one("hfft", "hfft", x, n, axis, norm, out, False, True)


@api("fft.ihfft")
def ihfft(x, /, *, n=None, axis=-1, norm="backward", out=None):
    """Inverse of ``hfft``: the ``n // 2 + 1`` terms of the Hermitian spectrum of a real signal."""
    return _one("ihfft", "ihfft", x, n, axis, norm, out, True, False)


# --- frequencies and shifts ----------------------------------------------------------------

def _freq(func: str, n, d, dtype, device, out):
    if isinstance(n, builtins.bool):
        raise TypeError(f"fft.{func}(): n must be an int; got a bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"fft.{func}(): n must be an int; got {type(n).__name__}") from None
    if n < 0:
        raise ValueError(f"fft.{func}(): n must be nonnegative; got {n}")
    d = float(d)
    if d == 0:
        raise ValueError(f"fft.{func}(): the sample spacing d must be nonzero")
    dtype = _as_dtype(dtype, f"fft.{func}") or _dtypes.get_default_dtype()
    if dtype.kind != "f":
        raise TypeError(f"fft.{func}(): dtype must be a real floating-point data type; got {dtype.name}")
    dev = as_device(device) if out is None or device is not None else out._device
    xp = dev.backend.xp
    with dev.backend.ctx(dev):
        if n == 0:
            r = xp.empty(0, dtype=dtype._np)
        else:
            r = getattr(xp.fft, func)(n, d)
    return _finish(new_array(r, dtype, dev), f"fft.{func}", out)


@api("fft.fftfreq")
def fftfreq(n, /, *, d=1.0, dtype=None, device=None, out=None):
    """Sample frequencies of an ``n``-point transform with sample spacing ``d``.

    >>> import strided as xp
    >>> xp.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _freq("fftfreq", n, d, dtype, device, out)


@api("fft.rfftfreq")
def rfftfreq(n, /, *, d=1.0, dtype=None, device=None, out=None):
    """Sample frequencies of ``rfft`` of an ``n``-point signal (``n // 2 + 1`` of them)."""
    return _freq("rfftfreq", n, d, dtype, device, out)


def _shift(func: str, x, axes, out):
    check_array(x, func)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, (tuple, list)):
        axes = tuple(_layout.normalize_axis(x._axis(a), x.ndim, f"fft.{func}") for a in axes)
    else:
        axes = (_layout.normalize_axis(x._axis(axes), x.ndim, f"fft.{func}"),)
    if not axes:
        return _finish(clone(x), f"fft.{func}", out)
    dev = x._device
    with dev.backend.ctx(dev):
        r = getattr(dev.backend.xp.fft, func)(x._get_native(), axes=axes)
    return _finish(new_array(r, x._dtype, dev), f"fft.{func}", out)


@api("fft.fftshift")
def fftshift(x, /, *, axes=None, out=None):
    """Move the zero-frequency term to the centre along ``axes`` (all by default); a copy."""
    return _shift("fftshift", x, axes, out)


@api("fft.ifftshift")
def ifftshift(x, /, *, axes=None, out=None):
    """Inverse of ``fftshift`` (they differ by one sample for odd lengths); a copy."""
    return _shift("ifftshift", x, axes, out)
