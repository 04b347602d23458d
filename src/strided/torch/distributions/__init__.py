"""``strided.torch.distributions``: PyTorch 2.13's ``torch.distributions`` over strided's arrays.

Parameterizable probability distributions with ``sample``/``rsample``,
``log_prob``, ``cdf``/``icdf``, ``entropy``, moments, ``expand``, argument
validation, ``constraints``, ``kl_divergence``/``register_kl`` and the
transforms ``ExpTransform``, ``AffineTransform``, ``SigmoidTransform``,
``TanhTransform`` (for ``TransformedDistribution``).

The modules here are PyTorch's own (torch/distributions, BSD-3-Clause,
Copyright (c) 2016- Facebook, Inc and the PyTorch contributors), read over
``strided.torch``: the same formulas, defaults, errors and validation
messages, composed from strided's differentiable functions, so ``rsample``
and ``log_prob`` differentiate through strided's autograd. Random draws use
strided's generators: the same distributions as PyTorch, not the same numbers.

Invariants: every distribution PyTorch 2.13 has and this package does not
(``Chi2``, ``StudentT``, ``Wishart``, ...) raises an AttributeError naming it
and saying strided does not support it; nothing stands in for it.

>>> import strided.torch as torch
>>> from strided.torch.distributions import Normal
>>> d = Normal(torch.tensor(0.0), torch.tensor(1.0))
>>> round(float(d.log_prob(torch.tensor(0.0))), 6)
-0.918939
"""

from __future__ import annotations

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F403
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Dirichlet", "Distribution",
    "ExponentialFamily", "Exponential", "Gamma", "Independent", "Laplace", "LogNormal",
    "MixtureSameFamily", "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson",
    "RelaxedBernoulli",
    "TransformedDistribution", "Uniform", "kl_divergence", "register_kl",
]
__all__.extend(transforms.__all__)

# PyTorch 2.13's torch.distributions names that strided does not build (yet).
_NOT_SUPPORTED = frozenset({
    "Chi2", "ContinuousBernoulli", "FisherSnedecor", "GeneralizedPareto", "Geometric",
    "Gumbel", "HalfCauchy", "HalfNormal", "InverseGamma", "Kumaraswamy", "LKJCholesky",
    "LogisticNormal", "LowRankMultivariateNormal", "Multinomial",
    "NegativeBinomial", "OneHotCategoricalStraightThrough", "Pareto",
    "RelaxedOneHotCategorical", "StudentT", "VonMises", "Weibull", "Wishart",
    "biject_to", "transform_to", "constraint_registry",
    "AbsTransform", "CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
    "LowerCholeskyTransform", "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform",
    "SoftmaxTransform", "SoftplusTransform", "StackTransform", "StickBreakingTransform",
})


def __getattr__(name: str):
    if name in _NOT_SUPPORTED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}: strided does not "
                             f"support torch.distributions.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
