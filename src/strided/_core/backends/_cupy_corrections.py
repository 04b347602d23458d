"""Where CuPy's kernels give another answer than the standard (and NumPy), the correction.

Each entry of ``KERNELS`` is ``(standard name, dtype kinds): fn(ufunc, xp, *args)``:
it computes what the standard specifies, from CuPy's ufunc and a few elementwise
fix-ups (``xp.where`` / ``xp.copyto(..., where=)``, which run on the device: no host
copy, no synchronisation). ``CupyBackend.kernel`` wraps the ufunc with its entry,
once per (row, dtype, device), so a function with no entry costs nothing.

The sources: CuPy's code (``cupy/_core/include/cupy/complex/*.h``, thrust's complex
functions; ``cupy/_core/_routines_math.pyx``), and the measured answers of CuPy 14.2
on an NVIDIA H100 (``../shared/gpu-runs/2026-11-26-h100/``: ``probe2.txt`` and the
conformance failures in ``REPORT-cuda.md``). The tests in ``tests/_core/test_cupy_backend.py``
hold each entry to NumPy's answer on the CuPy stand-in, which reproduces CuPy's
differences (``tests/cupy_standin``).
"""

from __future__ import annotations

import math


def _fmod_and_move(xp, a, b):
    """NumPy's npy_divmod, first steps: ``fmod(a, b)``, and where it must move by ``b``
    (it is nonzero and its sign differs from ``b``'s)."""
    mod = xp.fmod(a, b)
    return mod, xp.logical_and(mod != 0, (b < 0) != (mod < 0))


def _remainder(ufunc, xp, a, b):
    # CuPy: remainder(x, +-inf) is nan for finite x, and remainder(-0., -1.) is +0
    # (probe2.txt; REPORT-cuda.md: remainder/__mod__ with an infinite x2, -0 results).
    # The standard (and NumPy's npy_divmod): fmod, moved by x2 when its sign differs
    # from x2's, and a zero result takes x2's sign.
    m, move = _fmod_and_move(xp, a, b)
    m = xp.where(move, m + b, m)
    return xp.where(m == 0, xp.copysign(xp.zeros_like(m), b), m)


def _half(fix):
    """``fix`` computed in float32 for float16 operands, rounded to float16 once at the end.

    NumPy's float16 loops (npy_half_divmod) convert to float, run npy_divmodf and round the
    result; CuPy's float16 has no arithmetic of its own either (float16.cuh: ``operator
    float()``), but each of our steps is a kernel whose result rounds to half, so the
    steps below would round the quotient to half before flooring it."""
    def run(ufunc, xp, a, b):
        if getattr(a, "dtype", None) == xp.float16 or getattr(b, "dtype", None) == xp.float16:
            f32 = xp.float32
            a32 = a.astype(f32) if hasattr(a, "astype") else a
            b32 = b.astype(f32) if hasattr(b, "astype") else b
            return fix(ufunc, xp, a32, b32).astype(xp.float16)
        return fix(ufunc, xp, a, b)
    run.__name__ = fix.__name__
    return run


def _floor_divide(ufunc, xp, a, b):
    # CuPy: floor(a / b) of the rounded quotient (cupy/_core/include/cupy/carray.cuh,
    # _floor_divide): 1 // 0.1 is 10.0 there. NumPy (npy_divmod) and strided on the CPU
    # floor the exact quotient: 9.0. The same steps as npy_divmod, from fmod. (Infinite
    # operands are the row's own correction, on every device.)
    q = xp.true_divide(a, b)
    mod, move = _fmod_and_move(xp, a, b)
    div = xp.true_divide(a - mod, b)
    div = xp.where(move, div - 1, div)
    fl = xp.floor(div)
    fl = xp.where(div - fl > 0.5, fl + 1, fl)
    fl = xp.where(div == 0, xp.copysign(xp.zeros_like(fl), q), fl)
    return xp.where(b == 0, q, fl)


def _inf_nan_parts(xp, r, z):
    """+inf + NaN j where one part of ``z`` is infinite and the other NaN."""
    re, im = z.real, z.imag
    m = xp.logical_or(xp.logical_and(xp.isinf(re), xp.isnan(im)),
                      xp.logical_and(xp.isnan(re), xp.isinf(im)))
    xp.copyto(r.real, math.inf, where=m)
    xp.copyto(r.imag, math.nan, where=m)
    return r


def _log_complex(ufunc, xp, z):
    # thrust's clog, and its log1p (log(z + 1)), give NaN + NaN j for (+-inf + NaN j) and
    # (NaN + +-inf j); the standard (C99 clog, clog1p): +inf + NaN j (REPORT-cuda.md:
    # log(... imag(x_i) is NaN), log1p(...)).
    return _inf_nan_parts(xp, ufunc(z), z)


def _acosh_complex(ufunc, xp, z):
    # thrust's cacosh(+-0 + NaN j) is NaN + NaN j; the standard: NaN +- pi/2 j
    # (REPORT-cuda.md: acosh(real(x_i) is +0 and imag(x_i) is NaN)).
    r = ufunc(z)
    m = xp.logical_and(z.real == 0, xp.isnan(z.imag))
    xp.copyto(r.real, math.nan, where=m)
    xp.copyto(r.imag, math.pi / 2, where=m)
    return r


def _tanh_complex(ufunc, xp, z):
    # thrust's ctanh(+-0 + inf j) and ctanh(+-0 + NaN j) are NaN + NaN j (probe2.txt:
    # tanh(0+infj) [nan+nanj]); the standard (C99 ctanh): +-0 + NaN j.
    r = ufunc(z)
    m = xp.logical_and(z.real == 0, xp.logical_not(xp.isfinite(z.imag)))
    xp.copyto(r.real, z.real, where=m)
    xp.copyto(r.imag, math.nan, where=m)
    return r


def _clip(ufunc, xp, a, lo, hi):
    # CuPy's clip(x, nan) gives x (a measured H100 run: test_clip_nan_and_broadcast_and_out,
    # clip(1.0, nan) -> 1.0); the standard: a NaN bound gives NaN.
    r = ufunc(a, lo, hi)
    for b in (lo, hi):
        if b is None or (type(b) in (int, bool)):
            continue
        if type(b) is float:
            if b != b:
                r = xp.full_like(r, math.nan)
        else:
            r = xp.where(xp.isnan(b), b, r)
    return r


KERNELS = {
    ("clip", "f"): _clip,
    ("remainder", "f"): _half(_remainder),
    ("floor_divide", "f"): _half(_floor_divide),
    ("log", "c"): _log_complex,
    ("log1p", "c"): _log_complex,
    ("acosh", "c"): _acosh_complex,
    ("tanh", "c"): _tanh_complex,
}

# What CuPy's LAPACK wrappers (cuSOLVER) say under ``cupyx.errstate(linalg="raise")``
# ("Error reported by getrf in cuSOLVER. devInfo = ...") -> what NumPy says, so that
# an error reads the same on every device.
LAPACK_MESSAGES = {
    "cholesky": "Matrix is not positive definite",
    "inv": "Singular matrix",
    "solve": "Singular matrix",
    "matrix_power": "Singular matrix",
}
# Factorisations whose status is not an error: NumPy's det/slogdet of a singular matrix
# are 0 and (0, -inf). (With the check on, CuPy's getrf would raise for them.)
LAPACK_UNCHECKED = frozenset({"det", "slogdet"})


def corrected(ufunc, xp, fix):
    """``ufunc`` followed by ``fix``, with ufunc's ``out=`` (the caller's ``direct`` path)."""
    def kernel(*args, out=None):
        r = fix(ufunc, xp, *args)
        if out is None:
            return r
        xp.copyto(out, r, casting="unsafe")
        return out
    kernel.__name__ = getattr(ufunc, "__name__", "kernel")
    return kernel
