"""``strided.torch.distributions`` against PyTorch 2.13: each distribution built from the same
parameters in both libraries (tests/torch_namespace/_parity.py), its log_prob, cdf, icdf,
entropy and moments compared in value and in gradient (float64 tight, float32 too)."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch
from _parity import check, run

DTYPES = ["float32", "float64"]
TOL32 = dict(rtol=2e-4, atol=2e-5)


def _pos(rng, shape, lo=0.5):
    return rng.random(shape) * 2.0 + lo


def _simplex(rng, shape):
    p = rng.random(shape) + 0.2
    return p / p.sum(-1, keepdims=True)


def _spd(rng, b, n):
    a = rng.standard_normal(b + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _tril(rng, b, n):
    t = np.tril(rng.standard_normal(b + (n, n)) * 0.5)
    i = np.arange(n)
    t[..., i, i] = np.abs(t[..., i, i]) + 0.5
    return t


# One row per distribution: (name, make(lib, T, rng, batch) -> distribution,
# value(rng, batch_shape) -> a numpy value in the support, the methods to compare).
# ``batch`` is the parameters' batch shape; parameters are leaves that require grad.
CONT = ("log_prob", "entropy", "mean", "variance", "stddev")


def _cat_value(k):
    return lambda rng, s: rng.integers(0, k, s)


CASES = [
    ("Normal", lambda L, T, r, b: L.distributions.Normal(T(r.standard_normal(b), True), T(_pos(r, b), True)),
     lambda r, s: r.standard_normal(s), CONT + ("cdf", "icdf", "mode")),
    ("Normal-scalar-scale", lambda L, T, r, b: L.distributions.Normal(T(r.standard_normal(b), True), 2.0),
     lambda r, s: r.standard_normal(s), CONT + ("cdf", "icdf")),
    ("Uniform", lambda L, T, r, b: L.distributions.Uniform(T(r.standard_normal(b) - 2.0, True),
                                                           T(_pos(r, b, 1.0), True)),
     lambda r, s: r.random(s) - 0.5, ("log_prob", "entropy", "mean", "variance", "stddev", "cdf", "icdf")),
    ("Bernoulli-probs", lambda L, T, r, b: L.distributions.Bernoulli(probs=T(r.random(b) * 0.8 + 0.1, True)),
     lambda r, s: (r.random(s) < 0.5).astype(float), ("log_prob", "entropy", "mean", "variance", "mode")),
    ("Bernoulli-logits", lambda L, T, r, b: L.distributions.Bernoulli(logits=T(r.standard_normal(b), True)),
     lambda r, s: (r.random(s) < 0.5).astype(float), ("log_prob", "entropy", "mean", "variance")),
    ("Categorical-probs", lambda L, T, r, b: L.distributions.Categorical(probs=T(r.random(b + (4,)) + 0.1, True)),
     _cat_value(4), ("log_prob", "entropy", "mean", "variance", "mode")),
    ("Categorical-logits", lambda L, T, r, b: L.distributions.Categorical(logits=T(r.standard_normal(b + (4,)), True)),
     _cat_value(4), ("log_prob", "entropy")),
    ("OneHotCategorical", lambda L, T, r, b: L.distributions.OneHotCategorical(
        logits=T(r.standard_normal(b + (3,)), True)),
     lambda r, s: np.eye(3)[r.integers(0, 3, s)], ("log_prob", "entropy", "mean", "variance", "mode")),
    ("Beta", lambda L, T, r, b: L.distributions.Beta(T(_pos(r, b), True), T(_pos(r, b), True)),
     lambda r, s: r.random(s) * 0.9 + 0.05, CONT + ("mode",)),
    ("Gamma", lambda L, T, r, b: L.distributions.Gamma(T(_pos(r, b, 1.2), True), T(_pos(r, b), True)),
     lambda r, s: _pos(r, s, 0.1), CONT + ("mode",)),
    # (PyTorch has no gradient of igamma in its first argument: the concentration is constant)
    ("Gamma-cdf", lambda L, T, r, b: L.distributions.Gamma(T(_pos(r, b, 1.2)), T(_pos(r, b), True)),
     lambda r, s: _pos(r, s, 0.1), ("cdf",)),
    ("Exponential", lambda L, T, r, b: L.distributions.Exponential(T(_pos(r, b), True)),
     lambda r, s: _pos(r, s, 0.1), CONT + ("cdf", "icdf", "mode")),
    ("Laplace", lambda L, T, r, b: L.distributions.Laplace(T(r.standard_normal(b), True), T(_pos(r, b), True)),
     lambda r, s: r.standard_normal(s) + 0.01, CONT + ("cdf", "icdf", "mode")),
    ("Cauchy", lambda L, T, r, b: L.distributions.Cauchy(T(r.standard_normal(b), True), T(_pos(r, b), True)),
     lambda r, s: r.standard_normal(s), ("log_prob", "entropy", "cdf", "icdf", "mode")),
    ("Poisson", lambda L, T, r, b: L.distributions.Poisson(T(_pos(r, b), True)),
     lambda r, s: r.integers(0, 6, s).astype(float), ("log_prob", "mean", "variance", "mode")),
    ("Binomial-probs", lambda L, T, r, b: L.distributions.Binomial(5, T(r.random(b) * 0.8 + 0.1, True)),
     lambda r, s: r.integers(0, 6, s).astype(float), ("log_prob", "entropy", "mean", "variance", "mode")),
    ("Binomial-logits", lambda L, T, r, b: L.distributions.Binomial(T(np.full(b, 7.0)), logits=T(r.standard_normal(b), True)),
     lambda r, s: r.integers(0, 8, s).astype(float), ("log_prob", "mean", "variance")),
    ("Dirichlet", lambda L, T, r, b: L.distributions.Dirichlet(T(_pos(r, b + (3,), 1.1), True)),
     lambda r, s: _simplex(r, s + (3,)), CONT + ("mode",)),
    ("LogNormal", lambda L, T, r, b: L.distributions.LogNormal(T(r.standard_normal(b), True), T(_pos(r, b), True)),
     lambda r, s: _pos(r, s, 0.1), CONT + ("cdf", "icdf", "mode")),
    ("MVN-cov", lambda L, T, r, b: L.distributions.MultivariateNormal(
        T(r.standard_normal(b + (3,)), True), covariance_matrix=T(_spd(r, b, 3), True)),
     lambda r, s: r.standard_normal(s + (3,)), CONT + ("mode",)),
    ("MVN-precision", lambda L, T, r, b: L.distributions.MultivariateNormal(
        T(r.standard_normal(b + (3,)), True), precision_matrix=T(_spd(r, b, 3), True)),
     lambda r, s: r.standard_normal(s + (3,)), CONT),
    ("MVN-scale_tril", lambda L, T, r, b: L.distributions.MultivariateNormal(
        T(r.standard_normal((3,)), True), scale_tril=T(_tril(r, b, 3), True)),
     lambda r, s: r.standard_normal(s + (3,)), CONT),
    ("Independent", lambda L, T, r, b: L.distributions.Independent(
        L.distributions.Normal(T(r.standard_normal(b + (2,)), True), T(_pos(r, b + (2,)), True)), 1),
     lambda r, s: r.standard_normal(s + (2,)), CONT + ("mode",)),
    ("Tanh-Normal", lambda L, T, r, b: L.distributions.TransformedDistribution(
        L.distributions.Normal(T(r.standard_normal(b), True), T(_pos(r, b), True)),
        [L.distributions.TanhTransform(), L.distributions.AffineTransform(1.0, T(np.full(b, 2.0)))]),
     lambda r, s: None, ("log_prob",)),
    ("Sigmoid-Exp", lambda L, T, r, b: L.distributions.TransformedDistribution(
        L.distributions.Normal(T(r.standard_normal(b), True), T(_pos(r, b), True)),
        [L.distributions.SigmoidTransform(), L.distributions.ExpTransform()]),
     lambda r, s: np.exp(r.random(s) * 0.8 + 0.1), ("log_prob", "cdf", "icdf")),
    ("RelaxedBernoulli", lambda L, T, r, b: L.distributions.RelaxedBernoulli(
        T(np.array(0.7)), probs=T(r.random(b) * 0.8 + 0.1, True)),
     lambda r, s: r.random(s) * 0.9 + 0.05, ("log_prob",)),
]
CASE_IDS = [c[0] for c in CASES]
BATCHES = [(), (3,), (2, 3)]


def _value_for(name, value, rng, batch, method):
    """A value for log_prob/cdf (in the support) or icdf (a probability), with a leading dim
    to exercise broadcasting against the batch shape."""
    if method == "icdf":
        return rng.random((2,) + batch) * 0.9 + 0.05
    if name == "Tanh-Normal":
        return 1.0 + np.tanh(rng.standard_normal((2,) + batch)) * 1.8
    return value(rng, (2,) + batch)


def _call(dist, method, v):
    if method in ("log_prob", "cdf", "icdf"):
        return getattr(dist, method)(v)
    if method == "entropy":
        return dist.entropy()
    return getattr(dist, method)


def _rows():
    for name, make, value, methods in CASES:
        for m in methods:
            yield pytest.param(name, m, id=f"{name}-{m}")


@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,method", list(_rows()))
def test_values_and_grads(name, method, dtype, batch):
    _, make, value, _ = CASES[CASE_IDS.index(name)]
    def build(L, T, rng):
        d = make(L, T, rng, batch)
        v = None
        if method in ("log_prob", "cdf", "icdf"):
            raw = _value_for(name, value, rng, batch, method)
            v = T(raw) if not name.startswith("Categorical") or method == "icdf" else (
                L.tensor(raw, dtype=L.int64))
        out = _call(d, method, v)
        return out

    tol = TOL32 if dtype == "float32" else dict(rtol=1e-9, atol=1e-11)
    if dtype == "float64" and name in ("Beta", "Dirichlet") and method == "entropy":
        # The gradient is polygamma(1, .): PyTorch's trigamma is 1e-10..5e-10 off the exact
        # value at these points (strided's is within 3e-16).
        tol = dict(rtol=1e-8, atol=1e-10)
    # Where PyTorch's result has no gradient (a discrete mode, Categorical's nan mean, a
    # constant stddev), strided's must not have one either; else the gradients are compared.
    (_, _, rout), (_, _, sout) = run(build, dtype, backward=False)
    assert sout.requires_grad == rout.requires_grad
    check(build, dtype=dtype, backward=rout.requires_grad, tol=tol)


# Parameters and values that are non-contiguous views (a transpose, a step, a negative
# step), so the formulas are checked on strided layouts too.
VIEWS = {
    "transposed": lambda a: a.T,
    "stepped": lambda a: a[:, ::2],
    "flipped": lambda a: a.flip(0) if hasattr(a, "flip") else a[::-1],
}


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("name", ["Normal", "Gamma", "Beta", "Laplace", "Bernoulli-logits", "Poisson", "Uniform"])
def test_noncontiguous_parameters(name, view):
    v = VIEWS[view]

    def build(L, T, rng):
        def P(a, lo=None):
            x = T(a if lo is None else np.abs(a) + lo, True)
            return v(x)
        shape = (4, 6)
        a, b, val = rng.standard_normal(shape), rng.standard_normal(shape), rng.random(shape)
        D = L.distributions
        if name == "Normal":
            d, x = D.Normal(P(a), P(b, 0.5)), val * 4 - 2
        elif name == "Gamma":
            d, x = D.Gamma(P(a, 0.5), P(b, 0.5)), val + 0.1
        elif name == "Beta":
            d, x = D.Beta(P(a, 0.5), P(b, 0.5)), val * 0.9 + 0.05
        elif name == "Laplace":
            d, x = D.Laplace(P(a), P(b, 0.5)), val * 4 - 2
        elif name == "Bernoulli-logits":
            d, x = D.Bernoulli(logits=P(a)), np.round(val)
        elif name == "Poisson":
            d, x = D.Poisson(P(a, 0.5)), np.floor(val * 5)
        else:
            d, x = D.Uniform(P(a) - 3.0, P(b, 0.5) + 1.0), val * 0.5 - 1.0
        return d.log_prob(v(T(x))) + d.entropy() if name != "Poisson" else d.log_prob(v(T(x)))

    tol = dict(rtol=1e-9, atol=1e-11)
    if name in ("Gamma", "Beta"):
        tol = dict(rtol=1e-8, atol=1e-10)  # (entropy's gradient is PyTorch's trigamma, 1e-10..5e-10 off)
    check(build, dtype="float64", tol=tol)


from hypothesis import given, settings, strategies as hst  # noqa: E402

_SHAPES = hst.lists(hst.integers(1, 3), min_size=0, max_size=3).map(tuple)


@settings(max_examples=25, deadline=None)
@given(ps=_SHAPES, qs=_SHAPES, vs=_SHAPES, name=hst.sampled_from(["Normal", "Gamma", "Laplace", "Beta"]),
       seed=hst.integers(0, 2**16))
def test_broadcast_batch_shapes_drawn(ps, qs, vs, name, seed):
    # two parameters and a value of drawn shapes that broadcast (a 1 where they differ):
    # log_prob's value, shape and gradients are PyTorch's
    n = max(len(ps), len(qs), len(vs))
    pad = lambda s: (1,) * (n - len(s)) + s  # noqa: E731
    ps, qs, vs = pad(ps), pad(qs), pad(vs)
    full = tuple(max(a, b, c) for a, b, c in zip(ps, qs, vs))
    fix = lambda s: tuple(d if d == f else 1 for d, f in zip(s, full))  # noqa: E731
    ps, qs, vs = fix(ps), fix(qs), fix(vs)

    def build(L, T, rng):
        a, b = T(_pos(rng, ps), True), T(_pos(rng, qs), True)
        D = L.distributions
        d = {"Normal": lambda: D.Normal(a - 1.5, b), "Gamma": lambda: D.Gamma(a, b),
             "Laplace": lambda: D.Laplace(a - 1.5, b), "Beta": lambda: D.Beta(a, b)}[name]()
        x = rng.random(vs) * 0.9 + 0.05
        return d.log_prob(T(x))

    check(build, dtype="float64", seed=seed, tol=dict(rtol=1e-9, atol=1e-11))
