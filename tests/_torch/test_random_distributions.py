"""The random samplers draw from the distribution they name: goodness-of-fit tests.

Each sampler (strided/torch/_random.py) is seeded, drawn from, and tested against
its distribution with SciPy: Kolmogorov–Smirnov for the continuous ones
(uniform, normal, the real and imaginary parts of complex normals), chi-square
for the discrete ones (randint, bernoulli, multinomial with and without
replacement, randperm's positions). The seed is fixed, so each p-value is a
fixed number: the threshold ``P_MIN = 1e-4`` is not a flaky test's, it fails for
a sampler that changes to a wrong distribution. That it can fail is shown too:
the same tests, at the same sample sizes, reject a slightly wrong distribution
(a standard deviation 10% off, a shift of 2% of the range, one value 15% likelier).

strided has no exponential, Poisson or geometric samplers (PyTorch's
``exponential_``, ``poisson``, ``geometric_``): nothing to test for them.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

import strided as xp

from conftest import host

# SciPy is imported by the tests, not at collection: tests/integration/conftest.py must
# set SCIPY_ARRAY_API=1 before anything imports it.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("scipy") is None, reason="scipy not installed")

P_MIN = 1e-4
N = 20_000


def ks(sample, dist, *args):
    # A frozen distribution's cdf, not kstest's (name, args): SciPy 1.18 under
    # SCIPY_ARRAY_API=1 passes loc and scale on to special.ndtr, which takes neither.
    from scipy import stats
    return stats.kstest(np.ravel(sample), getattr(stats, dist)(*args).cdf).pvalue


def chi2(counts, probs):
    from scipy import stats
    counts = np.asarray(counts, dtype=np.float64).ravel()
    expected = np.asarray(probs, dtype=np.float64).ravel() * counts.sum()
    assert (expected >= 5).all()  # (the chi-square approximation's condition)
    return stats.chisquare(counts, expected).pvalue


@pytest.fixture(autouse=True)
def _seed():
    xp.manual_seed(20240)


# --- continuous: Kolmogorov–Smirnov -----------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rand_is_uniform_on_0_1(dtype):
    u = host(xp.rand(N, dtype=getattr(xp, dtype)))
    assert u.min() >= 0 and u.max() < 1
    assert ks(u, "uniform") > P_MIN
    assert ks(u, "uniform", 0.02, 1.0) < P_MIN  # shifted by 2%: rejected


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_randn_is_standard_normal(dtype):
    z = host(xp.randn(N, dtype=getattr(xp, dtype)))
    assert ks(z, "norm") > P_MIN
    assert ks(z, "norm", 0.0, 1.1) < P_MIN  # 10% too wide: rejected
    assert ks(z, "t", 10) < P_MIN  # heavier tails: rejected


def test_complex_randn_has_unit_total_variance():
    # PyTorch: real and imaginary parts independent N(0, 1/2)
    z = host(xp.randn(N, dtype=xp.complex128))
    s = math.sqrt(0.5)
    assert ks(z.real, "norm", 0.0, s) > P_MIN and ks(z.imag, "norm", 0.0, s) > P_MIN
    assert ks(z.real, "norm") < P_MIN
    assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 4 / math.sqrt(N)


def test_normal_with_scalar_and_array_parameters():
    assert ks(host(xp.normal(3.0, 0.5, (N,))), "norm", 3.0, 0.5) > P_MIN
    mean = xp.asarray(np.tile([-2.0, 5.0], N // 2))
    std = xp.asarray(np.tile([0.5, 3.0], N // 2))
    s = host(xp.normal(mean, std))
    assert ks(s[0::2], "norm", -2.0, 0.5) > P_MIN
    assert ks(s[1::2], "norm", 5.0, 3.0) > P_MIN
    assert ks(s[1::2], "norm", 5.0, 0.5) < P_MIN  # the other element's std: rejected


def test_like_and_in_place_fills():
    x = xp.empty(N, dtype=xp.float64)
    assert ks(host(xp.rand_like(x)), "uniform") > P_MIN
    assert ks(host(xp.randn_like(x)), "norm") > P_MIN
    x.uniform_(-3.0, 5.0)
    assert ks(host(x), "uniform", -3.0, 8.0) > P_MIN
    x.normal_(10.0, 0.1)
    assert ks(host(x), "norm", 10.0, 0.1) > P_MIN


def test_generators_draw_the_same_distribution():
    g = xp.Generator("cpu").manual_seed(5)
    assert ks(host(xp.randn(N, generator=g, dtype=xp.float64, device="cpu")), "norm") > P_MIN


# --- discrete: chi-square ---------------------------------------------------------------------

@pytest.mark.parametrize("low,high", [(0, 10), (-3, 4), (100, 107)])
def test_randint_is_uniform_on_its_range(low, high):
    r = host(xp.randint(low, high, (N,)))
    assert r.min() >= low and r.max() < high
    k = high - low
    counts = np.bincount(r - low, minlength=k)
    assert chi2(counts, np.full(k, 1 / k)) > P_MIN
    tilted = np.full(k, 1 / k)
    tilted[0] *= 1.15
    assert chi2(counts, tilted / tilted.sum()) < P_MIN  # one value 15% likelier: rejected


def test_random_fill_and_randint_like():
    x = xp.empty(N, dtype=xp.int64)
    x.random_(0, 6)
    assert chi2(np.bincount(host(x), minlength=6), np.full(6, 1 / 6)) > P_MIN
    r = host(xp.randint_like(x, 2, 7))
    assert chi2(np.bincount(r - 2, minlength=5), np.full(5, 1 / 5)) > P_MIN


def test_bernoulli_follows_its_probabilities():
    p = np.tile([0.1, 0.5, 0.9], N // 3)
    b = host(xp.bernoulli(xp.asarray(p)))
    assert set(np.unique(b)) <= {0.0, 1.0}
    for q in (0.1, 0.5, 0.9):
        ones = int(b[p == q].sum())
        n = int((p == q).sum())
        assert chi2([n - ones, ones], [1 - q, q]) > P_MIN, q
    ones = int(b[p == 0.5].sum())
    assert chi2([n - ones, ones], [0.47, 0.53]) < P_MIN  # 3 points off: rejected
    x = xp.empty(N, dtype=xp.float64)
    x.bernoulli_(0.3)
    ones = int(host(x).sum())
    assert chi2([N - ones, ones], [0.7, 0.3]) > P_MIN
    c = host(xp.bernoulli(xp.zeros(N, dtype=xp.float64), 0.25))
    assert chi2([N - int(c.sum()), int(c.sum())], [0.75, 0.25]) > P_MIN


WEIGHTS = np.array([1.0, 2.0, 3.0, 4.0, 10.0])


def test_multinomial_with_replacement_follows_the_weights():
    w = xp.asarray(np.stack([WEIGHTS, WEIGHTS[::-1]]))
    idx = host(xp.multinomial(w, N, replacement=True))
    for row, ws in zip(idx, (WEIGHTS, WEIGHTS[::-1])):
        counts = np.bincount(row, minlength=5)
        assert chi2(counts, ws / ws.sum()) > P_MIN
    off = WEIGHTS.copy()
    off[0] *= 1.3  # one weight 30% off (of a 5% category): rejected
    assert chi2(np.bincount(idx[0], minlength=5), off / off.sum()) < P_MIN


def test_multinomial_without_replacement_draws_in_weight_order():
    # Drawing 2 of 5 without replacement: P(i then j) = w_i / W * w_j / (W - w_i)
    W = WEIGHTS.sum()
    pairs = np.array([[WEIGHTS[i] / W * WEIGHTS[j] / (W - WEIGHTS[i]) if i != j else 0.0
                       for j in range(5)] for i in range(5)])
    w = xp.asarray(np.broadcast_to(WEIGHTS, (N, 5)).copy())
    idx = host(xp.multinomial(w, 2, replacement=False))
    assert (idx[:, 0] != idx[:, 1]).all()
    counts = np.zeros((5, 5))
    np.add.at(counts, (idx[:, 0], idx[:, 1]), 1)
    keep = ~np.eye(5, dtype=bool)
    assert chi2(counts[keep], pairs[keep]) > P_MIN
    # independent draws with replacement would give w_i w_j / W^2: rejected
    indep = np.outer(WEIGHTS, WEIGHTS)[keep]
    assert chi2(counts[keep], indep / indep.sum()) < P_MIN


def test_randperm_puts_each_value_anywhere_alike():
    n, reps = 6, 4000
    perms = np.stack([host(xp.randperm(n)) for _ in range(reps)])
    assert (np.sort(perms, axis=1) == np.arange(n)).all()
    counts = np.stack([np.bincount(perms[:, k], minlength=n) for k in range(n)])  # position x value
    assert chi2(counts, np.full(n * n, 1 / (n * n))) > P_MIN
    # the order of the first two positions: all 30 ordered pairs alike
    pair = perms[:, 0] * n + perms[:, 1]
    c = np.bincount(pair, minlength=n * n).reshape(n, n)
    keep = ~np.eye(n, dtype=bool)
    assert chi2(c[keep], np.full(n * (n - 1), 1 / (n * (n - 1)))) > P_MIN
