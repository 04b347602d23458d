"""Sampling of ``strided.torch.distributions`` against PyTorch 2.13: shapes and dtypes of
``sample``/``rsample`` (sample_shape, broadcast batch shapes), statistics of many draws
(means and variances within a few standard errors, fixed seed), and the reparameterized
gradients of ``rsample`` compared with PyTorch's formulas on the same draws."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import to_numpy

SD = storch.distributions
TD = torch.distributions


def _pair(make, dtype="float64"):
    """The same distribution in both libraries; ``make(lib, T)`` with T(numpy) -> array."""
    def T(lib):
        def t(a, grad=False):
            a = np.asarray(a, dtype=dtype)
            x = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
            if grad:
                x.requires_grad_()
            return x
        return t
    return make(storch, T(storch)), make(torch, T(torch))


# (name, make(lib, T), has_rsample); the batch shapes broadcast (2, 1) with (3,).
SHAPE_CASES = [
    ("Normal", lambda L, T: L.distributions.Normal(T([[0.0], [1.0]]), T([1.0, 2.0, 3.0]))),
    ("Uniform", lambda L, T: L.distributions.Uniform(T([[0.0], [1.0]]), T([2.0, 3.0, 4.0]))),
    ("Bernoulli", lambda L, T: L.distributions.Bernoulli(T([[0.2], [0.5]]) + T([0.0, 0.1, 0.2]))),
    ("Categorical", lambda L, T: L.distributions.Categorical(T(np.ones((2, 3, 4))))),
    ("OneHotCategorical", lambda L, T: L.distributions.OneHotCategorical(T(np.ones((2, 3, 4))))),
    ("Beta", lambda L, T: L.distributions.Beta(T([[0.5], [2.0]]), T([1.0, 2.0, 3.0]))),
    ("Gamma", lambda L, T: L.distributions.Gamma(T([[0.5], [2.0]]), T([1.0, 2.0, 3.0]))),
    ("Exponential", lambda L, T: L.distributions.Exponential(T([[0.5, 1.0, 2.0], [1.0, 2.0, 3.0]]))),
    ("Laplace", lambda L, T: L.distributions.Laplace(T([[0.0], [1.0]]), T([1.0, 2.0, 3.0]))),
    ("Cauchy", lambda L, T: L.distributions.Cauchy(T([[0.0], [1.0]]), T([1.0, 2.0, 3.0]))),
    ("Poisson", lambda L, T: L.distributions.Poisson(T([[0.5, 1.0, 2.0], [1.0, 2.0, 3.0]]))),
    ("Binomial", lambda L, T: L.distributions.Binomial(T([[5.0], [10.0]]), T([0.1, 0.5, 0.9]))),
    ("Dirichlet", lambda L, T: L.distributions.Dirichlet(T(np.ones((2, 3, 4))))),
    ("LogNormal", lambda L, T: L.distributions.LogNormal(T([[0.0], [1.0]]), T([1.0, 0.5, 0.2]))),
    ("MultivariateNormal", lambda L, T: L.distributions.MultivariateNormal(
        T(np.zeros((2, 1, 3))), T(np.broadcast_to(np.eye(3), (3, 3, 3))))),
    ("Independent", lambda L, T: L.distributions.Independent(
        L.distributions.Normal(T(np.zeros((2, 3))), T([1.0, 2.0, 3.0])), 1)),
    ("TransformedDistribution", lambda L, T: L.distributions.TransformedDistribution(
        L.distributions.Normal(T([[0.0], [1.0]]), T([1.0, 2.0, 3.0])),
        [L.distributions.TanhTransform(), L.distributions.AffineTransform(1.0, 2.0)])),
    ("RelaxedBernoulli", lambda L, T: L.distributions.RelaxedBernoulli(T(0.5), T([[0.2], [0.5]]) + T([0.0, 0.1, 0.2]))),
]


def _repr(c):
    """A constraint's repr with the library's name taken out of the dtypes it prints."""
    return re.sub(r"\b(strided|torch)\.", "", repr(c))


@pytest.mark.usefixtures("on_cpu")  # (compares the supports' reprs: a cuda array's names its device)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)], ids=str)
@pytest.mark.parametrize("name,make", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_sample_shapes_dtypes_and_flags(name, make, sample_shape, dtype):
    s, t = _pair(make, dtype)
    assert tuple(s.batch_shape) == tuple(t.batch_shape)
    assert tuple(s.event_shape) == tuple(t.event_shape)
    assert isinstance(s.batch_shape, storch.Size) and isinstance(s.event_shape, storch.Size)
    assert s.has_rsample == t.has_rsample
    assert s.has_enumerate_support == t.has_enumerate_support
    assert _repr(s.support) == _repr(t.support)
    assert sorted(s.arg_constraints) == sorted(t.arg_constraints)
    for k in s.arg_constraints:
        assert _repr(s.arg_constraints[k]) == _repr(t.arg_constraints[k])
    xs, xt = s.sample(sample_shape), t.sample(sample_shape)
    assert tuple(xs.shape) == tuple(xt.shape)
    assert str(xs.dtype) == str(xt.dtype).removeprefix("torch.")
    assert not xs.requires_grad
    # every draw lies in the support, by PyTorch's own check of the same values
    assert bool(t.support.check(torch.from_numpy(to_numpy(xs).copy())).all())
    if t.has_rsample:
        ys, yt = s.rsample(sample_shape), t.rsample(sample_shape)
        assert tuple(ys.shape) == tuple(yt.shape)
        assert str(ys.dtype) == str(yt.dtype).removeprefix("torch.")
    else:
        with pytest.raises(NotImplementedError):
            s.rsample(sample_shape)


def _draws(d, n):
    return to_numpy(d.sample((n,))).astype(np.float64)


# (name, make(lib, T)): parameters chosen so that the variance is finite (moments compared
# with PyTorch's mean and variance on the same parameters).
STAT_CASES = [
    ("Normal", lambda L, T: L.distributions.Normal(T([0.0, 3.0]), T([1.0, 0.5]))),
    ("Uniform", lambda L, T: L.distributions.Uniform(T([0.0, -1.0]), T([1.0, 3.0]))),
    ("Bernoulli", lambda L, T: L.distributions.Bernoulli(T([0.1, 0.6]))),
    ("Bernoulli-logits", lambda L, T: L.distributions.Bernoulli(logits=T([-1.0, 2.0]))),
    ("OneHotCategorical", lambda L, T: L.distributions.OneHotCategorical(T([0.2, 0.3, 0.5]))),
    ("Beta", lambda L, T: L.distributions.Beta(T([0.5, 2.0, 5.0]), T([0.5, 3.0, 1.0]))),
    ("Gamma", lambda L, T: L.distributions.Gamma(T([0.3, 1.0, 4.5, 20.0]), T([1.0, 2.0, 0.5, 3.0]))),
    ("Exponential", lambda L, T: L.distributions.Exponential(T([0.5, 3.0]))),
    ("Laplace", lambda L, T: L.distributions.Laplace(T([0.0, 2.0]), T([1.0, 0.3]))),
    ("Poisson", lambda L, T: L.distributions.Poisson(T([0.3, 4.0, 30.0]))),
    ("Binomial", lambda L, T: L.distributions.Binomial(T([3.0, 20.0]), T([0.3, 0.8]))),
    ("Dirichlet", lambda L, T: L.distributions.Dirichlet(T([0.4, 1.0, 3.0]))),
    ("LogNormal", lambda L, T: L.distributions.LogNormal(T([0.0, 1.0]), T([0.25, 0.5]))),
    ("MultivariateNormal", lambda L, T: L.distributions.MultivariateNormal(
        T([1.0, -1.0]), T([[2.0, 0.8], [0.8, 1.0]]))),
    ("MultivariateNormal-scale_tril", lambda L, T: L.distributions.MultivariateNormal(
        T([1.0, -1.0]), scale_tril=T([[1.5, 0.0], [-0.7, 0.5]]))),
]


@pytest.mark.parametrize("name,make", STAT_CASES, ids=[c[0] for c in STAT_CASES])
def test_sample_moments(name, make):
    storch.manual_seed(1234)
    s, t = _pair(make)
    n = 40000
    x = _draws(s, n)
    mean, var = t.mean.numpy(), t.variance.numpy()
    # the sample mean within 5 standard errors; the sample variance within 5 of its own
    # (fourth moment estimated from the draws)
    se = np.sqrt(var / n)
    assert np.all(np.abs(x.mean(0) - mean) <= 5 * se + 1e-12), (x.mean(0), mean)
    m4 = ((x - x.mean(0)) ** 4).mean(0)
    se_var = np.sqrt(np.maximum(m4 - var ** 2, 0) / n)
    assert np.all(np.abs(x.var(0) - var) <= 5 * se_var + 1e-12), (x.var(0), var)


def test_categorical_frequencies():
    storch.manual_seed(7)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    x = to_numpy(SD.Categorical(storch.tensor(p)).sample((40000,)))
    freq = np.bincount(x, minlength=4) / x.size
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / x.size))


def test_cauchy_quantiles():
    # Cauchy has no moments: compare the empirical quartiles with PyTorch's icdf
    storch.manual_seed(3)
    s, t = _pair(lambda L, T: L.distributions.Cauchy(T(1.0), T(2.0)))
    x = _draws(s, 40000)
    probs = np.array([0.25, 0.5, 0.75])
    q = t.icdf(torch.from_numpy(probs)).numpy()
    emp = np.quantile(x, probs)
    # a quantile's standard error: sqrt(p(1-p)/n) / density(q)
    dens = t.log_prob(torch.from_numpy(q)).exp().numpy()
    se = np.sqrt(probs * (1 - probs) / x.size) / dens
    assert np.all(np.abs(emp - q) <= 5 * se)


def test_tanh_transformed_quantiles():
    storch.manual_seed(5)
    mk = lambda L, T: L.distributions.TransformedDistribution(  # noqa: E731
        L.distributions.Normal(T(0.3), T(1.5)), [L.distributions.TanhTransform()])
    s, t = _pair(mk)
    x = _draws(s, 40000)
    assert np.all(np.abs(x) < 1)
    probs = np.array([0.1, 0.5, 0.9])
    q = t.icdf(torch.from_numpy(probs)).numpy()
    dens = t.log_prob(torch.from_numpy(q)).exp().numpy()
    se = np.sqrt(probs * (1 - probs) / x.size) / dens
    assert np.all(np.abs(np.quantile(x, probs) - q) <= 5 * se)


def test_seed_reproduces_draws():
    d = SD.Gamma(storch.tensor([0.5, 2.0]), storch.tensor(1.0))
    storch.manual_seed(11)
    a = to_numpy(d.sample((4,)))
    storch.manual_seed(11)
    b = to_numpy(d.sample((4,)))
    np.testing.assert_array_equal(a, b)


# --- reparameterized gradients ----------------------------------------------------------

def _grads(d_s, params, n=(50,)):
    """rsample, the gradients of sum(w * x) in strided, and the draw x as float64."""
    x = d_s.rsample(n)
    w = np.random.default_rng(0).standard_normal(tuple(x.shape))
    (x * strided.asarray(w.astype(to_numpy(x).dtype))).sum().backward()
    return to_numpy(x), w, [to_numpy(p.grad) for p in params]


def _torch_grads(x_t, params_t, w):
    (x_t * torch.from_numpy(w).to(x_t.dtype)).sum().backward()
    return [p.grad.numpy() for p in params_t]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rsample_grad_normal_family(dtype):
    # x = loc + scale * eps: PyTorch's rsample on the same eps = (x - loc) / scale
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    loc, scale = np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.5, 2.0])
    for S, Tn in ((SD.Normal, TD.Normal), (SD.Laplace, TD.Laplace), (SD.Cauchy, TD.Cauchy)):
        ls, ss = (strided.asarray(v.astype(dtype)).requires_grad_() for v in (loc, scale))
        x, w, (gl, gs) = _grads(S(ls, ss), (ls, ss))
        lt, st = (torch.tensor(v.astype(dtype), requires_grad=True) for v in (loc, scale))
        eps = torch.from_numpy((x - loc.astype(dtype)) / scale.astype(dtype))
        rl, rs = _torch_grads(lt + st * eps, (lt, st), w)
        np.testing.assert_allclose(gl, rl, **tol)
        np.testing.assert_allclose(gs, rs, **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rsample_grad_uniform_exponential_lognormal(dtype):
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    a, b = np.array([0.0, -1.0]), np.array([1.0, 3.0])
    lo, hi = (strided.asarray(v.astype(dtype)).requires_grad_() for v in (a, b))
    x, w, g = _grads(SD.Uniform(lo, hi), (lo, hi))
    lt, ht = (torch.tensor(v.astype(dtype), requires_grad=True) for v in (a, b))
    u = torch.from_numpy((x - a.astype(dtype)) / (b - a).astype(dtype))
    for got, want in zip(g, _torch_grads(lt + u * (ht - lt), (lt, ht), w)):
        np.testing.assert_allclose(got, want, **tol)
    r = strided.asarray(np.array([0.5, 2.0], dtype)).requires_grad_()
    x, w, (gr,) = _grads(SD.Exponential(r), (r,))
    rt = torch.tensor(np.array([0.5, 2.0], dtype), requires_grad=True)
    e = torch.from_numpy(x * np.array([0.5, 2.0], dtype))
    np.testing.assert_allclose(gr, _torch_grads(e / rt, (rt,), w)[0], **tol)
    m, s = (strided.asarray(np.array(v, dtype)).requires_grad_() for v in ([0.0, 1.0], [0.5, 0.2]))
    x, w, g = _grads(SD.LogNormal(m, s), (m, s))
    mt, st = (torch.tensor(np.array(v, dtype), requires_grad=True) for v in ([0.0, 1.0], [0.5, 0.2]))
    eps = torch.from_numpy((np.log(x) - np.array([0.0, 1.0], dtype)) / np.array([0.5, 0.2], dtype))
    for got, want in zip(g, _torch_grads(torch.exp(mt + st * eps), (mt, st), w)):
        np.testing.assert_allclose(got, want, rtol=max(tol["rtol"], 1e-8) if dtype == "float64" else 1e-3,
                                   atol=tol["atol"])


@pytest.mark.parametrize("param", ["covariance_matrix", "scale_tril", "precision_matrix"])
def test_rsample_grad_multivariate_normal(param):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    mat = {"covariance_matrix": cov, "scale_tril": np.linalg.cholesky(cov),
           "precision_matrix": np.linalg.inv(cov)}[param]
    loc = rng.standard_normal(3)
    ls, ms = strided.asarray(loc).requires_grad_(), strided.asarray(mat).requires_grad_()
    x, w, g = _grads(SD.MultivariateNormal(ls, **{param: ms}), (ls, ms))
    lt, mt = torch.tensor(loc, requires_grad=True), torch.tensor(mat, requires_grad=True)
    dt = TD.MultivariateNormal(lt, **{param: mt})
    eps = torch.linalg.solve_triangular(dt.scale_tril.detach(), torch.from_numpy(x - loc).unsqueeze(-1),
                                        upper=False).squeeze(-1)
    y = lt + (dt._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)
    for got, want in zip(g, _torch_grads(y, (lt, mt), w)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_grad_matches_pytorch(dtype):
    from strided.torch.distributions._gamma import _standard_gamma_grad
    # every branch of ATen's approximation: x < 0.8, alpha > 8 near and far from the mean,
    # and the rational approximation in between
    alpha = np.array([0.3, 0.5, 1.0, 2.5, 5.0, 7.9, 9.0, 12.0, 20.0, 50.0, 50.0, 3.0, 0.7, 30.0])
    x = np.array([0.01, 0.5, 0.79, 1.5, 6.0, 3.0, 9.2, 5.0, 30.0, 49.0, 70.0, 0.85, 2.0, 31.0])
    got = to_numpy(_standard_gamma_grad(strided.asarray(alpha.astype(dtype)), strided.asarray(x.astype(dtype))))
    want = torch._standard_gamma_grad(torch.tensor(alpha.astype(dtype)), torch.tensor(x.astype(dtype))).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_grad_matches_pytorch(dtype):
    from strided.torch.distributions._gamma import _dirichlet_grad
    # near 0 (small-x series), near 1, both concentrations large, and the rational correction
    x = np.array([0.01, 0.2, 0.95, 0.99, 0.5, 0.45, 0.3, 0.6, 0.7, 0.4])
    alpha = np.array([0.5, 1.0, 3.0, 2.0, 10.0, 9.0, 2.0, 3.0, 1.5, 20.0])
    total = np.array([1.5, 2.0, 4.0, 2.5, 20.0, 20.0, 5.0, 6.0, 5.0, 50.0])
    args = [a.astype(dtype) for a in (x, alpha, total)]
    got = to_numpy(_dirichlet_grad(*(strided.asarray(a) for a in args)))
    want = torch._dirichlet_grad(*(torch.tensor(a) for a in args)).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-4 if dtype == "float32" else 1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rsample_grad_gamma(dtype):
    tol = dict(rtol=1e-4, atol=1e-6) if dtype == "float32" else dict(rtol=1e-9, atol=1e-12)
    conc, rate = np.array([0.5, 2.0, 12.0]), np.array([1.0, 3.0, 0.5])
    cs, rs = (strided.asarray(v.astype(dtype)).requires_grad_() for v in (conc, rate))
    x, w, (gc, gr) = _grads(SD.Gamma(cs, rs), (cs, rs))
    # PyTorch: x = _standard_gamma(conc) / rate, d/dconc = _standard_gamma_grad(conc, x*rate) / rate
    ct, rt = (torch.tensor(v.astype(dtype), requires_grad=True) for v in (conc, rate))
    z = torch.from_numpy(x * rate.astype(dtype))
    dz = torch._standard_gamma_grad(ct.detach().expand_as(z), z)
    surrogate = (z + dz * (ct - ct.detach())) / rt
    rc, rr = _torch_grads(surrogate, (ct, rt), w)
    np.testing.assert_allclose(gc, rc, **tol)
    np.testing.assert_allclose(gr, rr, **tol)


def test_rsample_grad_dirichlet_and_beta():
    from torch.distributions.dirichlet import _Dirichlet_backward
    conc = np.array([0.7, 2.0, 5.0])
    cs = strided.asarray(conc).requires_grad_()
    x, w, (g,) = _grads(SD.Dirichlet(cs), (cs,))
    want = _Dirichlet_backward(torch.from_numpy(x), torch.from_numpy(conc).expand(x.shape),
                               torch.from_numpy(w)).sum(0).numpy()
    np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)
    a, b = strided.asarray(np.array([0.5, 3.0])).requires_grad_(), strided.asarray(np.array([2.0, 1.5])).requires_grad_()
    x, w, (ga, gb) = _grads(SD.Beta(a, b), (a, b))
    xx = torch.from_numpy(np.stack([x, 1 - x], -1))
    cc = torch.tensor([[0.5, 2.0], [3.0, 1.5]], dtype=torch.float64).expand(xx.shape)
    ww = torch.from_numpy(np.stack([w, np.zeros_like(w)], -1))
    want = _Dirichlet_backward(xx, cc, ww).sum(0).numpy()
    np.testing.assert_allclose(ga, want[:, 0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gb, want[:, 1], rtol=1e-9, atol=1e-12)


def test_rsample_grad_tanh_transformed():
    # a tanh-squashed Gaussian policy: y = 1 + 2 tanh(loc + scale * eps)
    loc, scale = np.array([0.2, -0.5]), np.array([0.7, 1.3])
    ls, ss = strided.asarray(loc).requires_grad_(), strided.asarray(scale).requires_grad_()
    d = SD.TransformedDistribution(SD.Normal(ls, ss), [SD.TanhTransform(), SD.AffineTransform(1.0, 2.0)])
    y = d.rsample((30,))
    lp = d.log_prob(y)
    (y.sum() + lp.sum()).backward()
    lt, st = torch.tensor(loc, requires_grad=True), torch.tensor(scale, requires_grad=True)
    eps = torch.from_numpy((np.arctanh((to_numpy(y) - 1) / 2) - loc) / scale)
    yt = 1 + 2 * torch.tanh(lt + st * eps)
    dt = TD.TransformedDistribution(TD.Normal(lt, st), [TD.TanhTransform(), TD.AffineTransform(1.0, 2.0)])
    (yt.sum() + dt.log_prob(yt).sum()).backward()
    np.testing.assert_allclose(to_numpy(y), yt.detach().numpy(), rtol=1e-9)
    np.testing.assert_allclose(to_numpy(ls.grad), lt.grad.numpy(), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(to_numpy(ss.grad), st.grad.numpy(), rtol=1e-6, atol=1e-8)


def test_sample_has_no_grad_and_reinforce():
    # REINFORCE: d/dlogits of sum(log_prob(a) * reward) on the same actions as PyTorch
    logits = np.array([[0.1, -0.3, 0.8], [1.0, 0.0, -1.0]])
    ls = strided.asarray(logits).requires_grad_()
    d = SD.Categorical(logits=ls)
    a = d.sample((6,))
    assert not a.requires_grad and str(a.dtype) == "int64"
    reward = np.linspace(-1, 1, 12).reshape(6, 2)
    (-(d.log_prob(a) * strided.asarray(reward)).sum()).backward()
    lt = torch.tensor(logits, requires_grad=True)
    (-(TD.Categorical(logits=lt).log_prob(torch.from_numpy(to_numpy(a))) * torch.from_numpy(reward)).sum()).backward()
    np.testing.assert_allclose(to_numpy(ls.grad), lt.grad.numpy(), rtol=1e-12, atol=1e-14)
    # sample() draws under no_grad for reparameterizable distributions too
    m = strided.asarray(np.zeros(2)).requires_grad_()
    assert not SD.Normal(m, 1.0).sample().requires_grad
    assert SD.Normal(m, 1.0).rsample().requires_grad


@pytest.mark.parametrize("make", [
    lambda L, T: L.distributions.Gamma(T(0.2), T(1.0)),
    lambda L, T: L.distributions.Gamma(T(1.0), T(2.0)),
    lambda L, T: L.distributions.Gamma(T(7.5), T(0.5)),
    lambda L, T: L.distributions.Beta(T(4.0), T(2.0)),
    lambda L, T: L.distributions.Laplace(T(1.0), T(0.5)),
    lambda L, T: L.distributions.Exponential(T(3.0)),
    lambda L, T: L.distributions.LogNormal(T(0.0), T(0.7)),
], ids=["gamma-0.2", "gamma-1", "gamma-7.5", "beta-4-2", "laplace", "exponential", "lognormal"])
def test_sample_distribution_kolmogorov_smirnov(make):
    # the empirical CDF of strided's draws against PyTorch's CDF (PyTorch's Beta has no
    # cdf: there it is integrated from PyTorch's density, smooth for these parameters, on
    # a fine grid)
    storch.manual_seed(21)
    s, t = _pair(make)
    x = np.sort(_draws(s, 20000))
    if isinstance(t, TD.Beta):
        grid = np.linspace(0, 1, 200001)[1:-1]
        dens = t.log_prob(torch.from_numpy(grid)).exp().numpy()
        cdf_grid = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
        cdf_grid /= cdf_grid[-1]
        cdf = np.interp(x, grid, cdf_grid)
    else:
        cdf = t.cdf(torch.from_numpy(x)).numpy()
    n = x.size
    d = max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n))
    assert d < 1.95 / math.sqrt(n), d  # the 0.1% critical value


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tanh_squashed_diagonal_gaussian_policy(dtype):
    # SAC's policy: Independent(Normal(mu, std), 1) through a cached TanhTransform; the
    # log-density of its own rsample uses the cached pre-image (no atanh), and the actor
    # loss's gradients match PyTorch's on the same draw.
    rng = np.random.default_rng(4)
    mu, log_std = rng.standard_normal((5, 2)) * 0.5, rng.standard_normal((5, 2)) * 0.3
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)

    def policy(L, m, s):
        D = L.distributions
        return D.TransformedDistribution(D.Independent(D.Normal(m, s.exp()), 1),
                                         [D.TanhTransform(cache_size=1)])

    ms, ss = (strided.asarray(v.astype(dtype)).requires_grad_() for v in (mu, log_std))
    ds = policy(storch, ms, ss)
    a = ds.rsample()
    lp = ds.log_prob(a)
    assert tuple(lp.shape) == (5,) and tuple(ds.event_shape) == (2,)
    (lp.sum() * 0.2 - a.sum()).backward()
    mt, st = (torch.tensor(v.astype(dtype), requires_grad=True) for v in (mu, log_std))
    dt = policy(torch, mt, st)
    # the same draw: the pre-tanh Gaussian sample read back through the cache's input
    u = torch.from_numpy(to_numpy(ds.transforms[0]._cached_x_y[0]))
    at = torch.tanh(mt + st.exp() * ((u - torch.from_numpy(mu.astype(dtype))) / torch.from_numpy(np.exp(log_std).astype(dtype))))
    lpt = dt.log_prob(at)
    (lpt.sum() * 0.2 - at.sum()).backward()
    np.testing.assert_allclose(to_numpy(a), at.detach().numpy(), **tol)
    np.testing.assert_allclose(to_numpy(lp), lpt.detach().numpy(), **tol)
    np.testing.assert_allclose(to_numpy(ms.grad), mt.grad.numpy(), **tol)
    np.testing.assert_allclose(to_numpy(ss.grad), st.grad.numpy(), **tol)


@pytest.mark.parametrize("case", ["gamma", "dirichlet-plain", "dirichlet-guarded"])
def test_second_derivative_of_draws_raises_as_pytorch(case):
    # Gamma's draw differentiates once (PyTorch: no derivative of _standard_gamma_grad);
    # Dirichlet's backward is once_differentiable
    outcome = []
    for L in (torch, storch):
        if case == "gamma":
            a = L.tensor([1.5, 0.4], requires_grad=True)
            x = L.distributions.Gamma(a, 1.0).rsample()
            (g,) = L.autograd.grad(x.sum(), a, create_graph=True)
        else:
            a = L.tensor([1.5, 2.0, 0.7], requires_grad=True)
            x = L.distributions.Dirichlet(a).rsample()
            y = x[0] if case == "dirichlet-plain" else (x ** 2).sum()
            (g,) = L.autograd.grad(y, a, create_graph=True)
        try:
            g.sum().backward()
            outcome.append((g.requires_grad, None))
        except (RuntimeError, NotImplementedError) as e:
            outcome.append((g.requires_grad, type(e).__name__, str(e)))
    assert outcome[0] == outcome[1]
    assert outcome[0][1] is not None
