"""``strided.torch.fft``: PyTorch 2.13's ``torch.fft`` over strided's arrays.

PyTorch's signatures (``fft(input, n=None, dim=-1, norm=None, *, out=None)``, ``fftn(input,
s=None, dim=None, norm=None, *, out=None)``, ``fftfreq(n, d=1.0, *, dtype=None, ...)``), its
promotion of integer and boolean input to the default float dtype, its errors, composed from
``strided.fft`` (the Array API's ``fft``: pocketfft through NumPy, differentiable);
``hfft2``/``hfftn``/``ihfft2``/``ihfftn``, which the standard lacks, are ``irfftn``/``rfftn``
of the conjugate with the dual normalisation. ``strided.fft`` stays the standard's namespace.

>>> import strided.torch as torch
>>> torch.fft.fft(torch.tensor([1.0, 0.0, 0.0, 0.0]), 2).tolist()
[(1+0j), (1+0j)]
"""

from __future__ import annotations

import operator
import sys

from ._checks import tensor as _tensor
from ._functions import _write

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
    "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _ns():
    return sys.modules["strided"]


def _std():
    return sys.modules["strided"].fft


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in _DUAL:
        raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")
    return norm


def _input(name, x, real):
    """``x`` with integer/bool input promoted to the default float dtype (PyTorch's); a complex
    ``x`` refused where ``real``."""
    x = _tensor(f"fft.{name}", x)
    ns = _ns()
    if x.dtype.kind in "biu":
        x = ns.astype(x, ns.get_default_dtype() if hasattr(ns, "get_default_dtype") else ns.float32)
    if x.dtype.name in ("float16", "bfloat16"):  # (PyTorch's CPU FFT: no half precision)
        raise RuntimeError(f"Unsupported dtype {'Half' if x.dtype.name == 'float16' else 'BFloat16'}")
    if real and x.dtype.kind == "c":  # (PyTorch's three wordings)
        if name in ("ihfftn", "ihfft2"):
            raise RuntimeError(f"Only supports floating-point dtypes, but found: {_torch_name(x.dtype)}")
        what = "real input" if name in ("rfft", "ihfft") else "real-valued input"
        raise RuntimeError(f"{'rfftn' if name == 'rfft2' else name} expects a {what} tensor, but got "
                           f"{_torch_name(x.dtype)}")
    return x


def _torch_name(dt):
    return {"complex64": "ComplexFloat", "complex128": "ComplexDouble", "float32": "Float",
            "float64": "Double"}.get(dt.name, dt.name)


def _n(n):
    if n is None:
        return None
    n = operator.index(n)
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _dim(x, dim, name):
    nd = x.ndim
    d = operator.index(dim)
    if nd == 0 or not -nd <= d < nd:
        lo, hi = (-1, 0) if nd == 0 else (-nd, nd - 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d % nd


def _one(name, kernel, x, n, dim, norm, real, out):
    x = _input(name, x, real)
    d = _dim(x, dim, name)
    r = getattr(_std(), kernel)(x, n=_n(n), axis=d, norm=_norm(norm))
    return _write(f"fft.{name}", _layout_1d(r, x, d), out)


def _layout_1d(r, x, d):
    """``r``, a 1-D transform of ``x`` along ``d``, laid out as PyTorch's: dense, in ``x``'s
    memory order with ``d`` moved innermost (its pocketfft runs on the transformed dimension
    made last: ``fft(x, dim=0)`` of a row-major ``x`` is not row-major, and ``rfft`` of a
    transposed ``x`` is)."""
    from ._memory_format import with_layout
    shape, st = tuple(r.shape), tuple(x.stride())
    order = sorted((k for k in range(len(shape)) if k != d), key=lambda k: (-abs(st[k]), k)) + [d]
    want, cur = [0] * len(shape), 1
    for k in reversed(order):
        want[k] = cur
        cur *= shape[k]
    return with_layout(r, tuple(want))


def _s_dim(x, s, dim, name):
    """(s, axes) as PyTorch reads them: ``dim`` None with ``s`` given: the last ``len(s)``
    dimensions; both None: all dimensions."""
    nd = x.ndim
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        axes = tuple(_dim(x, d, name) for d in dims)
        if len(set(axes)) != len(axes):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(tuple(s)) != len(axes):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(tuple(s)) > nd:
            raise RuntimeError(f"Got shape with {len(tuple(s))} values but input tensor only has {nd} dimensions.")
        axes = tuple(range(nd - len(tuple(s)), nd))
    else:
        axes = tuple(range(nd))
    if s is not None:
        s = tuple(-1 if v == -1 else _n(v) for v in s)
    return s, axes


def _many(name, kernel, x, s, dim, norm, real, out, c2r=False):
    x = _input(name, x, real)
    s, axes = _s_dim(x, s, dim, name)
    if (real or c2r) and not axes:
        raise RuntimeError(f"{name} must transform at least one axis")
    if s is not None:
        sizes = []
        for i, (v, a) in enumerate(zip(s, axes)):
            if v == -1:
                v = 2 * (x.shape[a] - 1) if c2r and i == len(axes) - 1 else x.shape[a]
            sizes.append(v)
        s = tuple(sizes)
    if not axes:
        r = x.to(x.dtype if x.dtype.kind == "c" else _complex_of(x.dtype))
        return _write(f"fft.{name}", r * 1, out)
    r = getattr(_std(), kernel)(x, s=s, axes=axes, norm=_norm(norm))
    return _write(f"fft.{name}", r, out)


def _complex_of(dt):
    ns = _ns()
    return ns.complex128 if dt == ns.float64 else ns.complex64


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """``torch.fft.fft(input, n=None, dim=-1, norm=None, *, out=None)``: the 1-D discrete
    Fourier transform along ``dim`` (zero-padded or trimmed to ``n``); complex result.

    >>> import strided.torch as torch
    >>> torch.fft.fft(torch.tensor([1.0, 1.0])).tolist()
    [(2+0j), 0j]
    """
    return _one("fft", "fft", input, n, dim, norm, False, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """``torch.fft.ifft(input, n=None, dim=-1, norm=None, *, out=None)``: the inverse of ``fft``.

    >>> import strided.torch as torch
    >>> torch.fft.ifft(torch.tensor([2.0, 0.0])).tolist()
    [(1+0j), (1+0j)]
    """
    return _one("ifft", "ifft", input, n, dim, norm, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """``torch.fft.rfft(input, n=None, dim=-1, norm=None, *, out=None)``: the ``n // 2 + 1``
    nonnegative-frequency terms of the FFT of a real signal.

    >>> import strided.torch as torch
    >>> torch.fft.rfft(torch.tensor([1.0, 1.0, 1.0])).tolist()
    [(3+0j), 0j]
    """
    return _one("rfft", "rfft", input, n, dim, norm, True, out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """``torch.fft.irfft(input, n=None, dim=-1, norm=None, *, out=None)``: the inverse of
    ``rfft``: a real signal of ``n`` points (``2 * (m - 1)`` by default).

    >>> import strided.torch as torch
    >>> torch.fft.irfft(torch.tensor([2.0, 0.0])).tolist()
    [1.0, 1.0]
    """
    return _one("irfft", "irfft", input, n, dim, norm, False, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """``torch.fft.hfft(input, n=None, dim=-1, norm=None, *, out=None)``: the FFT of a signal
    with Hermitian symmetry given by its one-sided half: a real result of ``n`` points.

    >>> import strided.torch as torch
    >>> torch.fft.hfft(torch.tensor([1.0, 0.0])).tolist()
    [1.0, 1.0]
    """
    return _one("hfft", "hfft", input, n, dim, norm, False, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """``torch.fft.ihfft(input, n=None, dim=-1, norm=None, *, out=None)``: the inverse of
    ``hfft``: the one-sided inverse FFT of a real signal.

    >>> import strided.torch as torch
    >>> torch.fft.ihfft(torch.tensor([2.0, 2.0])).real.tolist()
    [2.0, 0.0]
    """
    return _one("ihfft", "ihfft", input, n, dim, norm, True, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """``torch.fft.fftn(input, s=None, dim=None, norm=None, *, out=None)``: the N-D FFT over
    ``dim`` (the last ``len(s)`` dimensions where only ``s`` is given; all where neither).

    >>> import strided.torch as torch
    >>> torch.fft.fftn(torch.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _many("fftn", "fftn", input, s, dim, norm, False, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """``torch.fft.ifftn(input, s=None, dim=None, norm=None, *, out=None)``: the inverse of ``fftn``.

    >>> import strided.torch as torch
    >>> torch.fft.ifftn(torch.ones(2, 2), dim=[0]).tolist()
    [[(1+0j), (1+0j)], [0j, 0j]]
    """
    return _many("ifftn", "ifftn", input, s, dim, norm, False, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """``torch.fft.rfftn(input, s=None, dim=None, norm=None, *, out=None)``: the N-D FFT of a
    real signal, one-sided along the last transformed dimension.

    >>> import strided.torch as torch
    >>> tuple(torch.fft.rfftn(torch.ones(2, 2)).shape)
    (2, 2)
    """
    return _many("rfftn", "rfftn", input, s, dim, norm, True, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """``torch.fft.irfftn(input, s=None, dim=None, norm=None, *, out=None)``: the inverse of
    ``rfftn``; the last transformed dimension becomes ``2 * (m - 1)`` long by default.

    >>> import strided.torch as torch
    >>> tuple(torch.fft.irfftn(torch.ones(2, 2)).shape)
    (2, 2)
    """
    return _many("irfftn", "irfftn", input, s, dim, norm, False, out, c2r=True)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``torch.fft.fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None)``: ``fftn`` over
    two dimensions.

    >>> import strided.torch as torch
    >>> torch.fft.fft2(torch.ones(2, 2))[0, 0].item()
    (4+0j)
    """
    return _many("fft2", "fftn", input, s, dim, norm, False, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``torch.fft.ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None)``: ``ifftn`` over
    two dimensions.

    >>> import strided.torch as torch
    >>> torch.fft.ifft2(torch.ones(2, 2))[0, 0].item()
    (1+0j)
    """
    return _many("ifft2", "ifftn", input, s, dim, norm, False, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``torch.fft.rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None)``: ``rfftn`` over
    two dimensions.

    >>> import strided.torch as torch
    >>> tuple(torch.fft.rfft2(torch.ones(2, 4)).shape)
    (2, 3)
    """
    return _many("rfft2", "rfftn", input, s, dim, norm, True, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``torch.fft.irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None)``: ``irfftn``
    over two dimensions.

    >>> import strided.torch as torch
    >>> tuple(torch.fft.irfft2(torch.ones(2, 3)).shape)
    (2, 4)
    """
    return _many("irfft2", "irfftn", input, s, dim, norm, False, out, c2r=True)


def _hfftn(name, input, s, dim, norm, out):
    x = _input(name, input, False)
    ns = _ns()
    xc = ns.conj(x) if x.dtype.kind == "c" else x
    r = _many(name, "irfftn", xc, s, dim, _DUAL[_norm(norm)], False, None, c2r=True)
    return _write(f"fft.{name}", r, out)


def _ihfftn(name, input, s, dim, norm, out):
    r = _many(name, "rfftn", input, s, dim, _DUAL[_norm(norm)], True, None)
    return _write(f"fft.{name}", _ns().conj(r), out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """``torch.fft.hfftn(input, s=None, dim=None, norm=None, *, out=None)``: the N-D FFT of a
    Hermitian-symmetric signal given by its one-sided half (along the last dimension): real.

    >>> import strided.torch as torch
    >>> tuple(torch.fft.hfftn(torch.ones(2, 2)).shape)
    (2, 2)
    """
    return _hfftn("hfftn", input, s, dim, norm, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``torch.fft.hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None)``: ``hfftn`` over
    two dimensions.

    >>> import strided.torch as torch
    >>> tuple(torch.fft.hfft2(torch.ones(2, 3)).shape)
    (2, 4)
    """
    return _hfftn("hfft2", input, s, dim, norm, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """``torch.fft.ihfftn(input, s=None, dim=None, norm=None, *, out=None)``: the inverse of
    ``hfftn``: one-sided along the last transformed dimension.

    >>> import strided.torch as torch
    >>> tuple(torch.fft.ihfftn(torch.ones(2, 4)).shape)
    (2, 3)
    """
    return _ihfftn("ihfftn", input, s, dim, norm, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``torch.fft.ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None)``: ``ihfftn``
    over two dimensions.

    >>> import strided.torch as torch
    >>> tuple(torch.fft.ihfft2(torch.ones(2, 4)).shape)
    (2, 3)
    """
    return _ihfftn("ihfft2", input, s, dim, norm, out)


def _freq(name, n, d, out, dtype, layout, device, requires_grad):
    ns = _ns()
    if layout is not None and str(layout).split(".")[-1] != "strided":
        raise RuntimeError(f"fft.{name}: layout={layout} is not supported (strided arrays only)")
    if dtype is None:
        dtype = ns.get_default_dtype() if hasattr(ns, "get_default_dtype") else ns.float32
    r = getattr(_std(), name)(n, d=d, dtype=dtype, device=device)
    if requires_grad:
        r.requires_grad_()
    return _write(f"fft.{name}", r, out)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``torch.fft.fftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided,
    device=None, requires_grad=False)``: the sample frequencies of an ``n``-point FFT with
    spacing ``d``, in the default float dtype unless told.

    >>> import strided.torch as torch
    >>> torch.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _freq("fftfreq", n, d, out, dtype, layout, device, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``torch.fft.rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided,
    device=None, requires_grad=False)``: the ``n // 2 + 1`` nonnegative sample frequencies of
    ``rfft``.

    >>> import strided.torch as torch
    >>> torch.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    return _freq("rfftfreq", n, d, out, dtype, layout, device, requires_grad)


def _shift(name, input, dim, sign):
    x = _tensor(f"fft.{name}", input)
    if dim is None:
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(_dim(x, d, name) for d in ((dim,) if isinstance(dim, int) else dim))
    if not axes:
        return x.clone()
    shifts = tuple(sign * (x.shape[a] // 2) for a in axes)
    return _ns().roll(x, shifts, axis=axes)


def fftshift(input, dim=None):
    """``torch.fft.fftshift(input, dim=None)``: the zero-frequency term moved to the centre
    along ``dim`` (all dimensions where None); a copy.

    >>> import strided.torch as torch
    >>> torch.fft.fftshift(torch.tensor([0, 1, 2, 3, 4])).tolist()
    [3, 4, 0, 1, 2]
    """
    return _shift("fftshift", input, dim, 1)


def ifftshift(input, dim=None):
    """``torch.fft.ifftshift(input, dim=None)``: the inverse of ``fftshift``.

    >>> import strided.torch as torch
    >>> torch.fft.ifftshift(torch.tensor([3, 4, 0, 1, 2])).tolist()
    [0, 1, 2, 3, 4]
    """
    return _shift("ifftshift", input, dim, -1)


# (PyTorch's parameter names, ``torch.fft.<name>(input=...)``: strided/torch/_keyword_names.py)
from . import _keyword_names  # noqa: E402

_keyword_names.install(globals(), _keyword_names.FFT, __name__)
del _keyword_names
