"""Accuracy of sum, mean, var and std on inputs that defeat naive summation.

The references are exact: ``math.fsum`` and ``fractions.Fraction`` over the
float64 values of the inputs. Each result must be within NumPy's own error on
the same input (NumPy sums floats pairwise) plus one unit in the last place
(a different but equally accurate grouping may round the other way), in one
thread and split across threads, on the fused var/std kernel (large full
reductions) and the general one.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import strided as st
from strided._api import statistics as _statistics
from strided._core import threads as _threads

from conftest import host


@pytest.fixture(params=[1, 3], ids=["1thread", "3threads"])
def threads(request):
    old_n, old_t = st.get_num_threads(), st.get_thread_threshold()
    st.set_num_threads(request.param)
    if request.param > 1:
        st.set_thread_threshold(1)  # split even these sizes
    yield request.param
    st.set_num_threads(old_n)
    st.set_thread_threshold(old_t)


def _ulp(dtype, v: float) -> float:
    return float(np.spacing(np.abs(dtype(v))))


def _exact_var(x: np.ndarray, correction=0) -> float:
    # Exact in integers: every float is m * 2**e (m a 53-bit integer), so scaled by 2**-e0
    # (e0 the smallest exponent) the values are integers V; then
    # var = sum((n V_i - sum V)^2) / (n^2 (n - correction)) * 2**(2 e0), rounded once.
    # (Fractions gave the same numbers 10x slower: a gcd at every step.)
    parts = [math.frexp(float(v)) for v in x.reshape(-1)]
    e0 = min(e for _, e in parts) - 53
    ints = [int(m * 2**53) << (e - 53 - e0) for m, e in parts]
    n, s = len(ints), sum(ints)
    return float(Fraction(sum((n * v - s) ** 2 for v in ints), n * n * (n - correction)) * Fraction(2) ** (2 * e0))


def _large_then_small(dtype, n=300_001):
    x = np.full(n, 1e-3 if dtype is np.float32 else 1e-8, dtype=dtype)
    x[0] = 1e4 if dtype is np.float32 else 1e8
    return x


def _offset_noise(dtype, n=70_001):
    # A large common offset: computing var as E[x^2] - E[x]^2 cancels catastrophically.
    rng = np.random.default_rng(5)
    return (1e4 + rng.standard_normal(n)).astype(dtype)


def _one_outlier(dtype, n=70_001):
    rng = np.random.default_rng(6)
    x = rng.uniform(0, 1e-3, n).astype(dtype)
    x[0] = 1e3
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_and_mean_large_then_small(dtype, threads):
    x = _large_then_small(dtype)
    exact = math.fsum(x.astype(np.float64).tolist())
    ulp = _ulp(dtype, exact)
    ours = float(host(st.sum(st.asarray(x))))
    assert abs(ours - exact) <= abs(float(np.sum(x)) - exact) + threads * ulp
    naive = float(np.cumsum(x)[-1])  # sequential summation: loses the small values
    assert abs(naive - exact) > abs(ours - exact)
    mean = float(host(st.mean(st.asarray(x))))
    assert abs(mean - exact / x.size) <= abs(float(np.mean(x)) - exact / x.size) + threads * _ulp(dtype, exact / x.size)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1])
def test_axis_sums_large_then_small(dtype, axis):
    # The large value leads the reduced axis of the first row/column. NumPy (the
    # reference, on the same C-contiguous layout) sums a row pairwise and a
    # column by adding whole rows in sequence.
    x = _large_then_small(dtype, 300_000).reshape(600, 500)
    if axis == 0:
        x = np.ascontiguousarray(x.reshape(500, 600).T)
    ours = host(st.sum(st.asarray(x), axis=axis)).astype(np.float64)
    ref = np.sum(x, axis=axis).astype(np.float64)
    exact = np.array([math.fsum(v.tolist()) for v in np.moveaxis(x.astype(np.float64), axis, -1)])
    tol = np.abs(ref - exact) + np.spacing(np.abs(exact.astype(dtype))).astype(np.float64)
    assert np.all(np.abs(ours - exact) <= tol)


@pytest.mark.parametrize("make", [_offset_noise, _one_outlier, _large_then_small], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("correction", [0, 1])
def test_var_std_as_accurate_as_numpy(make, dtype, correction, threads):
    x = make(dtype)
    if make is _large_then_small:
        x = x[:70_001]
    assert x.size >= _statistics._FUSED_VAR_MIN  # the fused kernel runs
    exact = _exact_var(x, correction)
    ulp = _ulp(dtype, exact)
    ours = float(host(st.var(st.asarray(x), correction=correction)))
    theirs = float(np.var(x, ddof=correction))
    assert abs(ours - exact) <= abs(theirs - exact) + 2 * ulp
    std = float(host(st.std(st.asarray(x), correction=correction)))
    assert abs(std - math.sqrt(exact)) <= abs(float(np.std(x, ddof=correction)) - math.sqrt(exact)) \
        + 2 * _ulp(dtype, math.sqrt(exact))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_var_agrees_with_the_general_path(dtype, monkeypatch):
    rng = np.random.default_rng(8)
    x = (3 + rng.standard_normal((130, 301))).astype(dtype)
    fused = host(st.var(st.asarray(x), correction=1, keepdims=True))
    assert fused.shape == (1, 1) and fused.dtype == dtype
    monkeypatch.setattr(_statistics, "_FUSED_VAR_MIN", 1 << 62)
    general = host(st.var(st.asarray(x), correction=1, keepdims=True))
    np.testing.assert_allclose(fused, general, rtol=4 * np.finfo(dtype).eps)
    np.testing.assert_allclose(fused, np.var(x, ddof=1, keepdims=True), rtol=4 * np.finfo(dtype).eps)


def _np_var(y) -> float:
    with np.errstate(all="ignore"):
        return float(np.var(y))


def test_fused_var_special_values():
    x = np.random.default_rng(9).standard_normal(50_000)
    for bad, want in ((np.inf, math.isnan), (np.nan, math.isnan)):
        y = x.copy()
        y[123] = bad
        assert want(float(host(st.var(st.asarray(y)))))
        assert want(_np_var(y))
    y = np.full(50_000, 3.0)  # the mean is exact: every deviation is 0
    assert float(host(st.var(st.asarray(y)))) == _np_var(y) == 0.0
    y = np.tile([1e200, -1e200], 25_000)  # deviations of 1e200: their squares overflow
    assert float(host(st.var(st.asarray(y)))) == _np_var(y) == math.inf
    # A constant 1e200: the variance is 0. NumPy's pairwise mean is inexact here, so its
    # deviations' squares overflow to inf; a sum that rounds less must not do worse.
    y = np.full(50_000, 1e200)
    assert float(host(st.var(st.asarray(y)))) in (0.0, _np_var(y))


def test_fused_var_skips_layouts_it_does_not_handle():
    x = np.random.default_rng(10).standard_normal((400, 300))
    for view in (x.T, x[::2]):
        np.testing.assert_allclose(host(st.var(st.asarray(view))), np.var(view), rtol=1e-12)
    h = x.astype(np.float16)  # accumulates in float32 (NumPy's float16 var overflows here)
    got = host(st.var(st.asarray(h)))
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, np.var(h.astype(np.float32)), rtol=1e-3)


def test_exact_sum_overflow_gives_inf():
    with np.errstate(all="ignore"):  # an internal helper (its callers set the error state)
        assert _threads._exact_sum([1e308, 1e308]) == math.inf
    assert _threads._exact_sum([1.0, 2.0**-60, -1.0]) == 2.0**-60  # exact cancellation


# --- full float32 sums: any faster kernel must stay as accurate as NumPy's pairwise sum ----
# (Blocked sums over NumPy's vectorised column reduction fail these: pairing the halves of
# its partials by 6x on the periodic signs, NumPy's pairwise sum of them on the large value.)

@pytest.mark.parametrize("n", [262_144, 1_000_000, 1_234_567])
def test_full_float32_sum_with_one_large_value_no_worse_than_numpy(n, threads):
    for where in (0, n // 2, n - 1):  # one large value before, among or after many small ones
        x = np.full(n, 1e-3, np.float32)
        x[where] = 1e4
        exact = math.fsum(x.astype(np.float64).tolist())
        theirs = abs(float(np.sum(x)) - exact)
        for shape in ((n,), (n // 2, 2) if n % 2 == 0 else (n,)):
            a = st.asarray(x.reshape(shape))
            ours = abs(float(host(st.sum(a))) - exact)
            assert ours <= theirs + threads * _ulp(np.float32, exact), (where, shape, ours, theirs)
            mean = abs(float(host(st.mean(a))) - exact / n)
            assert mean <= abs(float(np.mean(x)) - exact / n) + threads * _ulp(np.float32, exact / n)


def _random_sum_cases(rng, n):
    idx = np.arange(n)
    noise = rng.uniform(0, 1e-3, n).astype(np.float32)
    yield rng.standard_normal(n).astype(np.float32)
    yield rng.uniform(0, 1, n).astype(np.float32)
    yield (1e3 + rng.standard_normal(n)).astype(np.float32)  # a common offset
    # periodic signs: cancel at once in pairwise sums of neighbours, late in strided groupings
    yield np.where(idx % 2, 1.0, -1.0).astype(np.float32) + noise
    yield np.where(idx % 4 < 2, 1.0, -1.0).astype(np.float32) + noise


def test_full_float32_sum_of_random_data_as_accurate_as_numpy(threads):
    # Against the exact (fsum) sum, in units in the last place of the result: the mean
    # error over many inputs no larger than NumPy's (one input may round either way; a
    # split across threads regroups the additions, so it gets one ulp per extra part).
    rng = np.random.default_rng(11)
    ours, theirs = [], []
    for n in (262_144, 500_001, 1_000_000, 1_234_567):
        for _ in range(2):
            for x in _random_sum_cases(rng, n):
                exact = math.fsum(x.astype(np.float64).tolist())
                ulp = _ulp(np.float32, exact)
                ours.append(abs(float(host(st.sum(st.asarray(x)))) - exact) / ulp)
                theirs.append(abs(float(np.sum(x)) - exact) / ulp)
    assert np.mean(ours) <= np.mean(theirs) + (threads - 1), (np.mean(ours), np.mean(theirs))
