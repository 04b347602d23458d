"""SciPy on strided arrays: filter a noisy signal, find its spectrum, fit and test.

With ``SCIPY_ARRAY_API=1``, SciPy takes strided arrays ("array type in equals
array type out"): scipy.signal designs and applies a filter, scipy.fft gives
the spectrum, scipy.interpolate fits a spline, scipy.special and scipy.stats
compute on the residuals, scipy.ndimage smooths an image made by broadcasting.
Every result is a strided array, and equals the result on NumPy arrays.

Run it with ``python examples/scipy_demo.py``.
"""

from __future__ import annotations

import os

# SciPy reads this once, when it is first imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402
from scipy import fft, interpolate, ndimage, signal, special, stats  # noqa: E402

import strided as xp  # noqa: E402


def analyse(m, t, noisy):
    """The computation, written once for any array namespace ``m``."""
    b, a = signal.butter(4, 0.1)
    smooth = signal.filtfilt(m.asarray(b), m.asarray(a), noisy)
    spectrum = m.abs(fft.rfft(noisy))
    # rfftfreq makes its array in the namespace's default float (float32 for strided)
    peak_hz = fft.rfftfreq(t.shape[0], d=float(t[1] - t[0]), xp=m)[int(m.argmax(spectrum[1:])) + 1]
    spline = interpolate.CubicSpline(t[::8], smooth[::8])
    residual = smooth - spline(t)
    score = special.erf(residual / m.std(residual))
    test = stats.ttest_1samp(residual, 0.0)
    image = ndimage.gaussian_filter(m.sin(t[:64, None]) * m.cos(t[None, :48]), sigma=2.0)
    return {"smooth": smooth, "spectrum": spectrum, "residual": residual, "score": score,
            "t-statistic": test.statistic, "p-value": test.pvalue, "image": image, "peak": peak_hz}


def main() -> None:
    rng = np.random.default_rng(0)
    t_np = np.linspace(0.0, 4.0, 400)
    noisy_np = np.sin(2 * np.pi * 1.5 * t_np) + 0.4 * rng.normal(size=t_np.shape)

    ours = analyse(xp, xp.asarray(t_np), xp.asarray(noisy_np))
    reference = analyse(np, t_np, noisy_np)

    print(f"dominant frequency: {float(ours['peak']):.2f} Hz (the signal's is 1.50 Hz)")
    print(f"t-test of the spline residual: t = {float(ours['t-statistic']):.3f}, "
          f"p = {float(ours['p-value']):.3f}")
    for name, value in ours.items():
        ref = reference[name]
        gap = float(np.max(np.abs(np.asarray(value) - np.asarray(ref))))
        kind = f"{type(value).__name__} {value.dtype} {tuple(value.shape)}" if isinstance(value, xp.Array) \
            else type(value).__name__
        print(f"{name:12s}: {kind:38s} largest difference from NumPy: {gap:.1e}")


if __name__ == "__main__":
    main()
