"""``strided.torch.distributions`` against PyTorch 2.13, the rest of the surface:
``kl_divergence`` for every registered pair (values and gradients) and ``register_kl``'s
most-specific dispatch, argument and sample validation (ValueError messages,
``set_default_validate_args``), ``constraints``' checks, the transforms, ``expand``,
``enumerate_support``, and the names strided does not build."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import check, to_numpy

SD = storch.distributions
TD = torch.distributions


def _pos(rng, shape, lo=0.5):
    return rng.random(shape) * 2.0 + lo


def _spd(rng, n):
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


# How to build each distribution from parameters that require grad (batch shape (3,)).
MAKERS = {
    "Normal": lambda L, T, r: L.distributions.Normal(T(r.standard_normal(3), True), T(_pos(r, 3), True)),
    "Uniform": lambda L, T, r: L.distributions.Uniform(T(r.random(3) * 0.3, True), T(_pos(r, 3, 0.8), True)),
    "Bernoulli": lambda L, T, r: L.distributions.Bernoulli(T(r.random(3) * 0.8 + 0.1, True)),
    "Binomial": lambda L, T, r: L.distributions.Binomial(4, T(r.random(3) * 0.8 + 0.1, True)),
    "Categorical": lambda L, T, r: L.distributions.Categorical(T(r.random((3, 4)) + 0.1, True)),
    "OneHotCategorical": lambda L, T, r: L.distributions.OneHotCategorical(logits=T(r.standard_normal((3, 4)), True)),
    "Beta": lambda L, T, r: L.distributions.Beta(T(_pos(r, 3), True), T(_pos(r, 3), True)),
    "Gamma": lambda L, T, r: L.distributions.Gamma(T(_pos(r, 3), True), T(_pos(r, 3), True)),
    "Exponential": lambda L, T, r: L.distributions.Exponential(T(_pos(r, 3), True)),
    "Laplace": lambda L, T, r: L.distributions.Laplace(T(r.standard_normal(3), True), T(_pos(r, 3), True)),
    "Cauchy": lambda L, T, r: L.distributions.Cauchy(T(r.standard_normal(3), True), T(_pos(r, 3), True)),
    "Poisson": lambda L, T, r: L.distributions.Poisson(T(_pos(r, 3), True)),
    "Dirichlet": lambda L, T, r: L.distributions.Dirichlet(T(_pos(r, (3, 4)), True)),
    "MultivariateNormal": lambda L, T, r: L.distributions.MultivariateNormal(
        T(r.standard_normal((3, 2)), True), T(np.stack([_spd(r, 2) for _ in range(3)]), True)),
    "Independent": lambda L, T, r: L.distributions.Independent(
        L.distributions.Normal(T(r.standard_normal((3, 2)), True), T(_pos(r, (3, 2)), True)), 1),
    "LogNormal": lambda L, T, r: L.distributions.LogNormal(T(r.standard_normal(3), True), T(_pos(r, 3), True)),
}

KL_PAIRS = [
    ("Bernoulli", "Bernoulli"), ("Beta", "Beta"), ("Binomial", "Binomial"), ("Categorical", "Categorical"),
    ("Dirichlet", "Dirichlet"), ("Exponential", "Exponential"), ("Gamma", "Gamma"), ("Laplace", "Laplace"),
    ("MultivariateNormal", "MultivariateNormal"), ("Normal", "Normal"),
    ("OneHotCategorical", "OneHotCategorical"), ("Poisson", "Poisson"), ("Uniform", "Uniform"),
    ("Bernoulli", "Poisson"), ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"),
    ("Beta", "Uniform"), ("Exponential", "Beta"), ("Exponential", "Uniform"), ("Exponential", "Gamma"),
    ("Exponential", "Normal"), ("Gamma", "Beta"), ("Gamma", "Uniform"), ("Gamma", "Exponential"),
    ("Gamma", "Normal"), ("Laplace", "Beta"), ("Laplace", "Exponential"), ("Laplace", "Gamma"),
    ("Laplace", "Uniform"), ("Laplace", "Normal"), ("Normal", "Beta"), ("Normal", "Exponential"),
    ("Normal", "Gamma"), ("Normal", "Uniform"), ("Normal", "Laplace"), ("Poisson", "Bernoulli"),
    ("Poisson", "Binomial"), ("Uniform", "Beta"), ("Uniform", "Exponential"), ("Uniform", "Gamma"),
    ("Uniform", "Normal"), ("Independent", "Independent"), ("Cauchy", "Cauchy"),
    ("LogNormal", "LogNormal"),  # (TransformedDistribution, TransformedDistribution)
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p,q", KL_PAIRS, ids=[f"{a}-{b}" for a, b in KL_PAIRS])
def test_kl_divergence(p, q, dtype):
    def build(L, T, rng):
        dp = MAKERS[p](L, T, rng)
        dq = MAKERS[q](L, T, rng)
        return L.distributions.kl_divergence(dp, dq)

    (_, _, rout), (_, _, sout) = __import__("_parity").run(build, dtype, backward=False)
    assert sout.requires_grad == rout.requires_grad
    tol = dict(rtol=2e-4, atol=2e-5) if dtype == "float32" else dict(rtol=1e-9, atol=1e-11)
    if dtype == "float64" and {p, q} & {"Beta", "Dirichlet"}:
        tol = dict(rtol=1e-8, atol=1e-10)  # (PyTorch's trigamma is 1e-10..5e-10 off)
    check(build, dtype=dtype, backward=rout.requires_grad, tol=tol)


def test_kl_not_implemented_and_dispatch():
    n = SD.Normal(storch.tensor(0.0), storch.tensor(1.0))
    c = SD.Cauchy(storch.tensor(0.0), storch.tensor(1.0))
    with pytest.raises(NotImplementedError):
        SD.kl_divergence(n, c)
    with pytest.raises(NotImplementedError):
        TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Cauchy(0.0, 1.0))

    # most-specific dispatch: a subclass's own registration wins over its base's
    class MyNormal(SD.Normal):
        pass

    @SD.register_kl(MyNormal, SD.Normal)
    def _kl_mine(p, q):
        return storch.tensor(42.0)

    try:
        m = MyNormal(storch.tensor(0.0), storch.tensor(1.0))
        assert float(SD.kl_divergence(m, n)) == 42.0
        # the other way round falls back to (Normal, Normal)
        np.testing.assert_allclose(float(SD.kl_divergence(n, m)), 0.0, atol=1e-12)
    finally:
        from strided.torch.distributions import kl as _kl
        _kl._KL_REGISTRY.pop((MyNormal, SD.Normal))
        _kl._KL_MEMOIZE.clear()

    # ambiguous matches warn, as PyTorch's do
    class A(SD.Normal):
        pass

    class B(SD.Normal):
        pass

    @SD.register_kl(A, SD.Normal)
    def _a(p, q):
        return storch.tensor(1.0)

    @SD.register_kl(SD.Normal, B)
    def _b(p, q):
        return storch.tensor(2.0)

    try:
        with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence"):
            SD.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
    finally:
        from strided.torch.distributions import kl as _kl
        _kl._KL_REGISTRY.pop((A, SD.Normal))
        _kl._KL_REGISTRY.pop((SD.Normal, B))
        _kl._KL_MEMOIZE.clear()


# --- validation -------------------------------------------------------------------------

BAD_PARAMS = [
    ("Normal", lambda L: L.distributions.Normal(L.tensor([0.0]), L.tensor([-1.0])), "scale"),
    ("Uniform", lambda L: L.distributions.Uniform(L.tensor([1.0]), L.tensor([0.0])), "low"),
    ("Bernoulli", lambda L: L.distributions.Bernoulli(L.tensor([1.5])), "probs"),
    ("Categorical", lambda L: L.distributions.Categorical(L.tensor([0.5, -0.1])), "probs"),
    ("Beta", lambda L: L.distributions.Beta(L.tensor([0.0]), L.tensor([1.0])), "concentration"),  # (its Dirichlet's)
    ("Gamma", lambda L: L.distributions.Gamma(L.tensor([1.0]), L.tensor([-2.0])), "rate"),
    ("Exponential", lambda L: L.distributions.Exponential(L.tensor([0.0])), "rate"),
    ("Laplace", lambda L: L.distributions.Laplace(L.tensor([0.0]), L.tensor([0.0])), "scale"),
    ("Cauchy", lambda L: L.distributions.Cauchy(L.tensor([float("nan")]), L.tensor([1.0])), "loc"),
    ("Poisson", lambda L: L.distributions.Poisson(L.tensor([-1.0])), "rate"),
    ("Binomial", lambda L: L.distributions.Binomial(L.tensor([-1.0]), L.tensor([0.5])), "total_count"),
    ("Dirichlet", lambda L: L.distributions.Dirichlet(L.tensor([1.0, -1.0])), "concentration"),
    ("MultivariateNormal", lambda L: L.distributions.MultivariateNormal(
        L.zeros(2), L.tensor([[1.0, 2.0], [2.0, 1.0]])), "covariance_matrix"),
    ("MultivariateNormal-tril", lambda L: L.distributions.MultivariateNormal(
        L.zeros(2), scale_tril=L.tensor([[1.0, 1.0], [0.0, 1.0]])), "scale_tril"),
    ("LogNormal", lambda L: L.distributions.LogNormal(L.tensor([0.0]), L.tensor([-1.0])), "scale"),
]


def _message(fn, lib):
    with pytest.raises(ValueError) as e:
        fn(lib)
    return str(e.value)


def _head(msg):
    """The message up to the printed values, with the library's name taken out."""
    return re.sub(r"\b(strided|torch)\.", "", msg.split("but found invalid values")[0])


@pytest.mark.usefixtures("on_cpu")  # (the messages print the parameters: a cuda array's repr names its device)
@pytest.mark.parametrize("name,make,param", BAD_PARAMS, ids=[b[0] for b in BAD_PARAMS])
def test_bad_parameters_raise_pytorchs_value_error(name, make, param):
    ms, mt = _message(make, storch), _message(make, torch)
    assert f"Expected parameter {param}" in ms
    assert _head(ms) == _head(mt)
    # with validation off, it builds anyway or fails later exactly where PyTorch's does
    # (MultivariateNormal's Cholesky factorization of the indefinite matrix)
    outcome = []
    for lib in (storch, torch):
        lib.distributions.Distribution.set_default_validate_args(False)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                make(lib)
            outcome.append(None)
        except Exception as e:  # noqa: BLE001
            outcome.append((type(e).__name__.lstrip("_"), "positive-definite" in str(e) or "positive definite" in str(e)))
        finally:
            lib.distributions.Distribution.set_default_validate_args(True)
    assert outcome[0] == outcome[1]


BAD_VALUES = [
    ("Normal", lambda L: L.distributions.Normal(0.0, 1.0), lambda L: L.tensor([float("nan")])),
    ("Bernoulli", lambda L: L.distributions.Bernoulli(L.tensor([0.3])), lambda L: L.tensor([0.5])),
    ("Gamma", lambda L: L.distributions.Gamma(L.tensor([1.0]), L.tensor([1.0])), lambda L: L.tensor([-1.0])),
    ("Beta", lambda L: L.distributions.Beta(L.tensor([1.0]), L.tensor([1.0])), lambda L: L.tensor([1.5])),
    ("Poisson", lambda L: L.distributions.Poisson(L.tensor([1.0])), lambda L: L.tensor([1.5])),
    ("Categorical", lambda L: L.distributions.Categorical(L.tensor([0.5, 0.5])), lambda L: L.tensor(2)),
    ("Dirichlet", lambda L: L.distributions.Dirichlet(L.tensor([1.0, 1.0])), lambda L: L.tensor([0.5, 0.6])),
    ("Uniform", lambda L: L.distributions.Uniform(L.tensor(0.0), L.tensor(1.0)), lambda L: L.tensor(1.5)),
]


@pytest.mark.usefixtures("on_cpu")  # (the messages print the parameters: a cuda array's repr names its device)
@pytest.mark.parametrize("name,make,value", BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
def test_bad_values_raise_pytorchs_value_error(name, make, value):
    ms = _message(lambda L: make(L).log_prob(value(L)), storch)
    mt = _message(lambda L: make(L).log_prob(value(L)), torch)
    assert "to be within the support" in ms
    assert _head(ms) == _head(mt)


def test_value_shape_errors_and_types():
    d, t = SD.Normal(storch.zeros(3), 1.0), TD.Normal(torch.zeros(3), 1.0)
    for lib, dist in ((storch, d), (torch, t)):
        with pytest.raises(ValueError, match="Value is not broadcastable with batch_shape"):
            dist.log_prob(lib.zeros(2))
        with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
            dist._validate_sample(0.5)
    m = SD.MultivariateNormal(storch.zeros(2), storch.eye(2))
    with pytest.raises(ValueError, match="The right-most size of value must match event_shape"):
        m.log_prob(storch.zeros(3))


def test_set_default_validate_args():
    with pytest.raises(ValueError):
        SD.Distribution.set_default_validate_args(2)
    SD.Distribution.set_default_validate_args(False)
    try:
        d = SD.Normal(storch.tensor(0.0), storch.tensor(-1.0))  # no error now
        assert not d._validate_args
        with pytest.raises(ValueError, match="Expected parameter scale"):
            SD.Normal(storch.tensor(0.0), storch.tensor(-1.0), validate_args=True)
    finally:
        SD.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="Expected parameter scale"):
        SD.Normal(storch.tensor(0.0), storch.tensor(-1.0))


def test_constructor_argument_errors():
    for lib in (storch, torch):
        with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
            lib.distributions.Bernoulli()
        with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
            lib.distributions.Categorical(lib.tensor([0.5, 0.5]), lib.tensor([0.0, 0.0]))
        with pytest.raises(ValueError, match="`probs` parameter must be at least one-dimensional."):
            lib.distributions.Categorical(lib.tensor(0.5))
        with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or"):
            lib.distributions.MultivariateNormal(lib.zeros(2))
        with pytest.raises(ValueError, match="loc must be at least one-dimensional."):
            lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(1))
        with pytest.raises(ValueError, match="scale_tril matrix must be at least two-dimensional"):
            lib.distributions.MultivariateNormal(lib.zeros(2), scale_tril=lib.zeros(2))
        with pytest.raises(ValueError, match="Expected reinterpreted_batch_ndims <= len"):
            lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2), 1.0), 2)


# --- constraints ---------------------------------------------------------------------------

CONSTRAINT_CASES = [
    ("real", lambda C: C.real, lambda r: np.array([0.0, np.inf, np.nan, -2.0])),
    ("positive", lambda C: C.positive, lambda r: np.array([0.0, 1.0, -1.0, 1e-30])),
    ("nonnegative", lambda C: C.nonnegative, lambda r: np.array([0.0, 1.0, -1.0])),
    ("unit_interval", lambda C: C.unit_interval, lambda r: np.array([0.0, 1.0, 1.01, -0.01, 0.5])),
    ("interval", lambda C: C.interval(-1.0, 2.0), lambda r: np.array([-1.0, 2.0, 2.5, 0.0])),
    ("half_open_interval", lambda C: C.half_open_interval(-1.0, 2.0), lambda r: np.array([-1.0, 2.0, 0.0])),
    ("greater_than", lambda C: C.greater_than(1.0), lambda r: np.array([1.0, 1.5, 0.0])),
    ("greater_than_eq", lambda C: C.greater_than_eq(1.0), lambda r: np.array([1.0, 1.5, 0.0])),
    ("less_than", lambda C: C.less_than(1.0), lambda r: np.array([1.0, 0.5, 2.0])),
    ("boolean", lambda C: C.boolean, lambda r: np.array([0.0, 1.0, 0.5])),
    ("nonnegative_integer", lambda C: C.nonnegative_integer, lambda r: np.array([0.0, 3.0, -1.0, 1.5])),
    ("positive_integer", lambda C: C.positive_integer, lambda r: np.array([0.0, 3.0, 1.0])),
    ("integer_interval", lambda C: C.integer_interval(0, 5), lambda r: np.array([0.0, 5.0, 6.0, 2.5])),
    ("simplex", lambda C: C.simplex, lambda r: np.array([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])),
    ("one_hot", lambda C: C.one_hot, lambda r: np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])),
    ("real_vector", lambda C: C.real_vector, lambda r: np.array([[0.0, 1.0], [np.nan, 1.0]])),
    ("independent", lambda C: C.independent(C.positive, 1), lambda r: np.array([[1.0, 2.0], [1.0, -1.0]])),
    ("lower_triangular", lambda C: C.lower_triangular, lambda r: np.array([[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [0.0, 1.0]]])),
    ("lower_cholesky", lambda C: C.lower_cholesky, lambda r: np.array([[[1.0, 0.0], [2.0, 3.0]], [[1.0, 0.0], [0.0, -1.0]]])),
    ("square", lambda C: C.square, lambda r: np.ones((2, 2, 2))),
    ("symmetric", lambda C: C.symmetric, lambda r: np.array([[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]])),
    ("positive_definite", lambda C: C.positive_definite, lambda r: np.array([[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    ("positive_semidefinite", lambda C: C.positive_semidefinite, lambda r: np.array([[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    ("multinomial", lambda C: C.multinomial(3), lambda r: np.array([[1.0, 2.0], [2.0, 2.0], [0.0, 3.0]])),
    ("corr_cholesky", lambda C: C.corr_cholesky, lambda r: np.array(
        [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.9]], [[1.0, 0.0], [-0.6, -0.8]]])),
    ("cat", lambda C: C.cat([C.positive, C.real], dim=-1, lengths=[1, 2]),
     lambda r: np.array([[1.0, -2.0, 3.0], [-1.0, 2.0, 3.0]])),
    ("stack", lambda C: C.stack([C.positive, C.unit_interval], dim=-1),
     lambda r: np.array([[1.0, 0.5], [1.0, 1.5], [-1.0, 0.5]])),
    ("MixtureSameFamilyConstraint", lambda C: C.MixtureSameFamilyConstraint(C.positive),
     lambda r: np.array([[1.0, 2.0], [1.0, -2.0]])),
]


@pytest.mark.parametrize("name,make,value", CONSTRAINT_CASES, ids=[c[0] for c in CONSTRAINT_CASES])
def test_constraints_check(name, make, value):
    v = value(None)
    cs, ct = make(SD.constraints), make(TD.constraints)
    got = to_numpy(cs.check(strided.asarray(v)))
    want = ct.check(torch.from_numpy(v)).numpy()
    np.testing.assert_array_equal(got, want)
    assert cs.event_dim == ct.event_dim and cs.is_discrete == ct.is_discrete
    assert re.sub(r"\b(strided|torch)\.", "", repr(cs)) == re.sub(r"\b(strided|torch)\.", "", repr(ct))


def test_dependent_constraints():
    C = SD.constraints
    d = SD.Bernoulli(probs=storch.tensor([0.6]))
    assert not C.is_dependent(d.arg_constraints["probs"])
    assert C.is_dependent(C.dependent)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(storch.zeros(1))
    assert isinstance(SD.Uniform(0.0, 1.0).support, C.Constraint)


# --- transforms ------------------------------------------------------------------------------

# (name, make(lib, T), a value in the domain, a value in the codomain)
TRANSFORMS = [
    ("Exp", lambda L, T: L.distributions.ExpTransform(), lambda r: r.standard_normal((2, 3)),
     lambda r: r.random((2, 3)) + 0.2),
    ("Sigmoid", lambda L, T: L.distributions.SigmoidTransform(), lambda r: r.standard_normal((2, 3)) * 3,
     lambda r: r.random((2, 3)) * 0.9 + 0.05),
    ("Tanh", lambda L, T: L.distributions.TanhTransform(), lambda r: r.standard_normal((2, 3)),
     lambda r: r.random((2, 3)) * 1.8 - 0.9),
    ("Affine", lambda L, T: L.distributions.AffineTransform(T([0.5, -1.0, 2.0], True), T([2.0, -0.5, 1.5], True)),
     lambda r: r.standard_normal((2, 3)), lambda r: r.standard_normal((2, 3))),
    ("Affine-scalar", lambda L, T: L.distributions.AffineTransform(1.0, -3.0), lambda r: r.standard_normal((2, 3)),
     lambda r: r.standard_normal((2, 3))),
    ("Affine-event_dim", lambda L, T: L.distributions.AffineTransform(T([0.5, -1.0, 2.0], True),
                                                                      T([2.0, -0.5, 1.5], True), event_dim=1),
     lambda r: r.standard_normal((2, 3)), lambda r: r.standard_normal((2, 3))),
    ("Compose", lambda L, T: L.distributions.transforms.ComposeTransform(
        [L.distributions.AffineTransform(0.5, 2.0), L.distributions.TanhTransform()]),
     lambda r: r.standard_normal((2, 3)) * 0.5, lambda r: r.random((2, 3)) * 1.8 - 0.9),
    ("Inverse-Sigmoid", lambda L, T: L.distributions.SigmoidTransform().inv, lambda r: r.random((2, 3)) * 0.9 + 0.05,
     lambda r: r.standard_normal((2, 3))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("what", ["forward", "inverse", "log_abs_det_jacobian"])
@pytest.mark.parametrize("name,make,value,covalue", TRANSFORMS, ids=[t[0] for t in TRANSFORMS])
def test_transforms(name, make, value, covalue, what, dtype):
    def build(L, T, rng):
        t = make(L, T)
        if what == "inverse":
            return t.inv(T(covalue(rng), True))
        x = T(value(rng), True)
        y = t(x)
        return y if what == "forward" else t.log_abs_det_jacobian(x, y)

    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-9, atol=1e-11)
    (_, _, rout), (_, _, sout) = __import__("_parity").run(build, dtype, backward=False)
    assert sout.requires_grad == rout.requires_grad
    check(build, dtype=dtype, tol=tol, backward=rout.requires_grad)


def test_transform_attributes():
    pairs = [(SD.ExpTransform(), TD.ExpTransform()), (SD.SigmoidTransform(), TD.SigmoidTransform()),
             (SD.TanhTransform(), TD.TanhTransform()),
             (SD.AffineTransform(0.0, -2.0), TD.AffineTransform(0.0, -2.0))]
    for s, t in pairs:
        assert s.sign == t.sign and s.bijective == t.bijective
        assert repr(s.domain) == repr(t.domain) and repr(s.codomain) == repr(t.codomain)
        assert repr(s) == repr(t)
        assert s.inv.inv is s and s == s and s != SD.ExpTransform().inv
    assert SD.identity_transform(storch.tensor(2.0)).item() == 2.0
    # caching: with cache_size=1 the inverse of the last output is the input itself
    c = SD.ExpTransform().with_cache()
    x = storch.tensor([0.3])
    assert c.inv(c(x)) is x
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        SD.ExpTransform(cache_size=2)


def test_transformed_distribution_moments_not_implemented():
    d = SD.TransformedDistribution(SD.Normal(0.0, 1.0), [SD.TanhTransform()])
    with pytest.raises(NotImplementedError):
        d.mean
    assert repr(d.support) == repr(TD.TransformedDistribution(TD.Normal(0.0, 1.0), [TD.TanhTransform()]).support)


# --- expand, enumerate_support, misc ------------------------------------------------------

@pytest.mark.parametrize("name", sorted(MAKERS))
def test_expand(name):
    def build(L, T, rng):
        d = MAKERS[name](L, T, rng)
        e = d.expand((2, 3))
        assert tuple(e.batch_shape) == (2, 3) and tuple(e.event_shape) == tuple(d.event_shape)
        assert type(e) is type(d)
        v = e.sample()
        at = d.loc if name == "Cauchy" else d.mean  # (Cauchy's mean is nan)
        return e.log_prob(v.detach() * 0 + at.detach().expand_as(v)) if name not in (
            "Categorical", "Bernoulli", "Binomial", "Poisson", "OneHotCategorical") else e.entropy() if name != "Poisson" else e.mean

    check(build, dtype="float64", tol=dict(rtol=1e-9, atol=1e-11))


@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support(expand):
    for mk in (lambda L: L.distributions.Bernoulli(L.tensor([0.3, 0.6])),
               lambda L: L.distributions.Categorical(L.ones(2, 3)),
               lambda L: L.distributions.OneHotCategorical(L.ones(2, 3)),
               lambda L: L.distributions.Binomial(3, L.tensor([0.3, 0.6]))):
        s, t = mk(storch).enumerate_support(expand), mk(torch).enumerate_support(expand)
        np.testing.assert_array_equal(to_numpy(s), t.numpy())
        assert str(s.dtype) == str(t.dtype).removeprefix("torch.")


def test_perplexity_stddev_and_repr():
    s, t = SD.Normal(storch.tensor([0.0, 1.0]), 2.0), TD.Normal(torch.tensor([0.0, 1.0]), 2.0)
    np.testing.assert_allclose(to_numpy(s.perplexity()), t.perplexity().numpy(), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(s.stddev), t.stddev.numpy(), rtol=1e-6)
    assert repr(SD.Normal(storch.tensor(0.0), storch.tensor(1.0))) == repr(
        TD.Normal(torch.tensor(0.0), torch.tensor(1.0)))
    with pytest.warns(FutureWarning):
        assert tuple(s.sample_n(4).shape) == (4, 2)


def test_package_layout_and_unsupported_names():
    import strided.torch.distributions as D
    from strided.torch.distributions import Normal  # noqa: F401
    assert storch.distributions is D
    for name in ("Chi2", "StudentT", "Wishart", "Gumbel", "LowRankMultivariateNormal",
                 "PowerTransform", "biject_to"):
        assert hasattr(TD, name)  # (PyTorch 2.13 has it)
        with pytest.raises(AttributeError, match=f"strided does not support torch.distributions.{name}"):
            getattr(D, name)
    with pytest.raises(ImportError):
        exec("from strided.torch.distributions import StudentT", {})
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchThing'"):
        D.NoSuchThing
    # every name strided builds is one PyTorch 2.13 has, and every public name of PyTorch's
    # is either built or refused with its name
    for name in D.__all__:
        assert hasattr(TD, name), name
    for name in TD.__all__:
        try:
            getattr(D, name)
        except AttributeError as e:
            assert f"strided does not support torch.distributions.{name}" in str(e)
    for name in TD.transforms.__all__:
        try:
            getattr(D.transforms, name)
        except AttributeError as e:
            assert f"strided does not support torch.distributions.transforms.{name}" in str(e)
    with pytest.raises(AttributeError, match="strided does not support torch.distributions.transforms.PowerTransform"):
        D.transforms.PowerTransform
    for name in TD.constraints.__all__:
        assert hasattr(D.constraints, name), name


EDGE_CASES = [
    # a masked action (-inf logit), as RL policies write them
    ("masked-categorical-entropy", lambda L, T: L.distributions.Categorical(
        logits=T([[0.0, -np.inf, 1.0], [2.0, 0.5, -np.inf]], True)).entropy()),
    ("masked-categorical-log_prob", lambda L, T: L.distributions.Categorical(
        logits=T([[0.0, -np.inf, 1.0], [2.0, 0.5, -np.inf]], True)).log_prob(L.tensor([2, 0]))),
    ("masked-categorical-kl", lambda L, T: L.distributions.kl_divergence(
        L.distributions.Categorical(logits=T([0.0, -np.inf, 1.0], True)),
        L.distributions.Categorical(logits=T([0.3, 0.1, -0.2], True)))),
    ("bernoulli-probs-0-1", lambda L, T: L.distributions.Bernoulli(T([0.0, 1.0, 0.5])).log_prob(T([0.0, 1.0, 1.0]))),
    ("bernoulli-probs-0-1-entropy", lambda L, T: L.distributions.Bernoulli(T([0.0, 1.0, 0.5])).entropy()),
    ("uniform-outside", lambda L, T: L.distributions.Uniform(T([0.0, 0.0]), T([1.0, 1.0]), validate_args=False)
     .log_prob(T([1.0, 2.0]))),
    ("gamma-at-0", lambda L, T: L.distributions.Gamma(T([1.0, 2.0]), T([1.0, 1.0])).log_prob(T([0.0, 0.0]))),
    ("exponential-cdf-0", lambda L, T: L.distributions.Exponential(T([2.0], True)).cdf(T([0.0]))),
    ("normal-icdf-ends", lambda L, T: L.distributions.Normal(T([0.0, 1.0]), T([1.0, 2.0])).icdf(T([0.0, 1.0]))),
    ("poisson-rate-0", lambda L, T: L.distributions.Poisson(T([0.0, 1.0])).log_prob(T([0.0, 0.0]))),
    ("binomial-probs-0-1", lambda L, T: L.distributions.Binomial(3, T([0.0, 1.0])).log_prob(T([0.0, 3.0]))),
]


@pytest.mark.parametrize("name,build", EDGE_CASES, ids=[e[0] for e in EDGE_CASES])
def test_edge_values(name, build):
    def b(L, T, rng):
        return build(L, T)

    (_, _, rout), (_, _, sout) = __import__("_parity").run(b, "float64", backward=False)
    assert sout.requires_grad == rout.requires_grad
    check(b, dtype="float64", backward=rout.requires_grad, tol=dict(rtol=1e-12, atol=1e-14))
