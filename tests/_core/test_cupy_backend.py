"""The CuPy backend gives the standard's (and NumPy's) answers where CuPy's kernels differ.

Run on the ``sim`` device, whose arrays are the CuPy stand-in's (tests/cupy_standin): it
reproduces CuPy's measured answers (``cupy/_cupy_differences.py``), so each test here
fails without its correction in ``strided/_core/backends/_cupy_corrections.py`` or the
backend. References: NumPy, and the standard's special cases.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import strided as xp

from conftest import host

INF, NAN = math.inf, math.nan


def _sign(v: float) -> float:
    return math.copysign(1.0, v)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_negative_zero_scalars_keep_their_sign(sim, dtype):
    dt = getattr(xp, dtype)
    z = complex(-0.0, -0.0) if dtype.startswith("complex") else -0.0
    for a in (xp.asarray(z, dtype=dt, device=sim), xp.asarray(np.asarray(z, dtype=dtype), device=sim),
              xp.asarray(getattr(np, dtype)(z), device=sim), xp.full((), z, dtype=dt, device=sim)):
        v = a.item()
        parts = (v.real, v.imag) if isinstance(v, complex) else (v,)
        assert all(_sign(p) == -1.0 for p in parts), (a, parts)


def test_negative_zero_writes_keep_their_sign(sim):
    x = xp.zeros(4, device=sim)
    x[1:3] = -0.0
    x[xp.asarray([3], device=sim)] = -0.0
    assert [_sign(v) for v in x.tolist()] == [1.0, -1.0, -1.0, -1.0]
    y = xp.ones(3, device=sim).fill_(-0.0)
    assert [_sign(v) for v in y.tolist()] == [-1.0] * 3
    s = xp.ones(2, device=sim).storage()
    s[0] = -0.0
    assert _sign(s[0]) == -1.0


def test_binary_special_cases_with_negative_zero_scalars(sim):
    # the standard: -0 + -0 is -0; -0 / 5 is -0; 5 / -0 is -inf; atan2(-0, 1) is -0
    m0 = xp.asarray(-0.0, device=sim)
    assert _sign(xp.add(m0, m0).item()) == -1.0
    assert _sign(xp.divide(m0, xp.asarray(5.0, device=sim)).item()) == -1.0
    assert xp.divide(xp.asarray(5.0, device=sim), m0).item() == -INF
    assert _sign(xp.atan2(m0, xp.asarray(1.0, device=sim)).item()) == -1.0


_FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=300, deadline=None)
@given(a=st.lists(_FLOATS, min_size=1, max_size=8), b=st.lists(_FLOATS, min_size=1, max_size=8))
@example(a=[-math.nan, math.nan, -math.nan, 1.0], b=[math.nan, -math.nan, 1.0, -math.nan])  # NaN signs
def test_remainder_and_floor_divide_are_numpys(a, b):
    sim = xp.Device("sim:0")
    n = min(len(a), len(b))
    na, nb = np.asarray(a[:n]), np.asarray(b[:n])
    x, y = xp.asarray(na, device=sim), xp.asarray(nb, device=sim)
    with np.errstate(all="ignore"):
        want_mod, want_div = np.remainder(na, nb), np.floor_divide(na, nb)
        want_div = np.where(np.isinf(na) | np.isinf(nb), na / nb, want_div)  # the standard's +-inf cases
    # Values and zero signs are NumPy's; a NaN's sign is not: NumPy's own loops give
    # remainder(-nan, nan) as +nan (its SIMD loop) where npy_divmod's fmod keeps -nan, and
    # the standard leaves a NaN's sign open. (The rule that NaN payloads are kept is about
    # a fast path against its reference on one device; tests/reliability holds it.)
    got = host(xp.remainder(x, y))
    assert np.array_equal(got, want_mod, equal_nan=True)
    assert (np.signbit(got[~np.isnan(got)]) == np.signbit(want_mod[~np.isnan(want_mod)])).all()
    got = host(xp.floor_divide(x, y))
    assert np.array_equal(got, want_div, equal_nan=True)
    assert (np.signbit(got[~np.isnan(got)]) == np.signbit(want_div[~np.isnan(want_div)])).all()


def test_remainder_with_infinities_and_zeros(sim):
    x = xp.asarray([1.0, -1.0, 1.0, -1.0, -0.0, 0.0], device=sim)
    y = xp.asarray([INF, INF, -INF, -INF, -1.0, -1.0], device=sim)
    got = xp.remainder(x, y).tolist()
    assert got == [1.0, INF, -INF, -1.0, 0.0, 0.0]
    assert [_sign(v) for v in got[4:]] == [-1.0, -1.0]  # a zero takes the divisor's sign
    assert xp.floor_divide(xp.asarray(1.0, device=sim), xp.asarray(0.1, device=sim)).item() == 9.0


def test_integer_power_with_a_negative_exponent_raises_on_every_device(sim):
    with pytest.raises(ValueError, match="negative integer powers"):
        xp.asarray([2, 3], device=sim) ** xp.asarray([-1, 1], device=sim)
    with pytest.raises(ValueError, match="negative integer powers"):
        xp.asarray([2, 3], device=sim) ** -1
    assert (xp.asarray([2, 3], device=sim) ** 2).tolist() == [4, 9]


def test_clip_with_a_nan_bound_gives_nan(sim):
    x = xp.asarray([1.0, 5.0], device=sim)
    assert all(math.isnan(v) for v in xp.clip(x, NAN).tolist())
    assert all(math.isnan(v) for v in xp.clip(x, None, NAN).tolist())
    lo = xp.asarray([NAN, 0.0], device=sim)
    r = xp.clip(x, lo, 4.0).tolist()
    assert math.isnan(r[0]) and r[1] == 4.0


_COMPLEX_CASES = [complex(INF, NAN), complex(-INF, NAN), complex(NAN, INF), complex(NAN, -INF),
                  complex(0.0, NAN), complex(-0.0, NAN), complex(0.0, INF), complex(-0.0, INF),
                  complex(1.5, -0.5), complex(0.0, 0.0)]


@pytest.mark.parametrize("func", ["log", "log1p", "acosh", "tanh"])
def test_complex_special_values_are_the_standards(sim, func):
    z = np.asarray(_COMPLEX_CASES, dtype=np.complex128)
    with np.errstate(all="ignore"):
        want = getattr(np, {"acosh": "arccosh"}.get(func, func))(z)
    got = host(getattr(xp, func)(xp.asarray(z, device=sim)))
    for g, w, zi in zip(got, want, z):
        for pg, pw in ((g.real, w.real), (g.imag, w.imag)):
            assert (math.isnan(pg) and math.isnan(pw)) or pg == pw or math.isclose(pg, pw, rel_tol=1e-12), (
                func, zi, g, w)
    if func == "acosh":  # NaN +- pi/2 j: the sign of the imaginary part is unspecified
        assert abs(got[4].imag) == math.pi / 2


def test_linalg_errors_are_the_same_on_every_device(sim):
    singular = xp.asarray([[1.0, 2.0], [2.0, 4.0]], device=sim)
    for f in (lambda: xp.linalg.inv(singular), lambda: xp.linalg.solve(singular, xp.ones(2, device=sim))):
        with pytest.raises(xp.linalg.LinAlgError, match="[Ss]ingular"):
            f()
    with pytest.raises(xp.linalg.LinAlgError, match="positive definite"):
        xp.linalg.cholesky(xp.asarray([[1.0, 2.0], [2.0, 1.0]], device=sim))
    # NumPy's det of a singular matrix is 0, not an error
    assert xp.linalg.det(singular).item() == 0.0
    assert xp.linalg.solve(xp.asarray([[2.0, 0.0], [0.0, 4.0]], device=sim),
                           xp.asarray([2.0, 2.0], device=sim)).tolist() == [1.0, 0.5]
