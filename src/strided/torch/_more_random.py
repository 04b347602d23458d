"""PyTorch's in-place samplers ``cauchy_``, ``exponential_``, ``geometric_`` and ``log_normal_``
(Array methods), and ``torch.poisson`` and ``torch.binomial``.

Same distributions as PyTorch's, not the same numbers: the continuous ones by inverse transform
of ``uniform_`` samples (or ``normal_``'s, for the log-normal) drawn from the array's device
generator (or ``generator=``), written through ``_random``'s writer (``_fill``: recorded as
``copy_`` for an array autograd tracks, refused for a leaf that requires grad); Poisson and
binomial counts from the generator's own ``poisson``/``binomial`` (NumPy's on the CPU; a device
generator without them draws on the host).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import Array
from .._api.creation import wrap_new as _wrap_new
from ._checks import tensor as _tensor
from ._random import _fill, _gen, _real_arg, _sample

__all__ = ["poisson", "binomial"]


def _ns():
    return sys.modules["strided"]


def _uniform(self, func, generator):
    """Uniform samples on [0, 1) of ``self``'s shape, as a native float64 (float32 for a float32
    or narrower target) array on its device."""
    dt = _dtypes.float32 if self.dtype in (_dtypes.float32, _dtypes.float16) else _dtypes.float64
    return _sample(func, "uniform", self._shape, dt, self._device, generator, None, False, None)._get_native()


def _continuous(self, func, what):
    if type(self) is not Array:
        raise TypeError(f"{func}(): expected a strided array; got {type(self).__name__}")
    if self.dtype.kind != "f":
        raise RuntimeError(f"{what} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self.dtype.name}")


def _cast(self, r):
    return r.astype(self.dtype._np)


def exponential_(self, lambd=1.0, *, generator=None):
    """``x.exponential_(lambd=1, *, generator=None)``: fills ``x`` with samples of the
    exponential distribution of rate ``lambd`` (> 0), ``-log(1 - u) / lambd``; returns ``x``."""
    _continuous(self, "exponential_", "Exponential")
    lam = _real_arg(lambd, "lambd", "exponential_")
    if not lam > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    xp = self.device.backend.xp
    u = _uniform(self, "exponential_", generator)
    return _fill(self, "exponential_", _cast(self, -xp.log1p(-u) / lam))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """``x.cauchy_(median=0, sigma=1, *, generator=None)``: fills ``x`` with Cauchy samples,
    ``median + sigma * tan(pi * (u - 1/2))``; ``sigma`` > 0; returns ``x``."""
    _continuous(self, "cauchy_", "Cauchy")
    m = _real_arg(median, "median", "cauchy_")
    s = _real_arg(sigma, "sigma", "cauchy_")
    if not s > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    xp = self.device.backend.xp
    u = _uniform(self, "cauchy_", generator)
    return _fill(self, "cauchy_", _cast(self, m + s * xp.tan(math.pi * (u - 0.5))))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """``x.log_normal_(mean=1, std=2, *, generator=None)``: fills ``x`` with ``exp`` of normal
    samples of mean ``mean`` and standard deviation ``std`` (> 0); returns ``x``."""
    if type(self) is not Array:
        raise TypeError(f"log_normal_(): expected a strided array; got {type(self).__name__}")
    if self.dtype.kind != "f":
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{self.dtype.name}'")
    m = _real_arg(mean, "mean", "log_normal_")
    s = _real_arg(std, "std", "log_normal_")
    if not s > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    xp = self.device.backend.xp
    dt = _dtypes.float32 if self.dtype in (_dtypes.float32, _dtypes.float16) else _dtypes.float64
    z = _sample("log_normal_", "normal", self._shape, dt, self._device, generator, None, False, None)._get_native()
    with np.errstate(over="ignore"):
        return _fill(self, "log_normal_", _cast(self, xp.exp(z * s + m)))


def geometric_(self, p, *, generator=None):
    """``x.geometric_(p, *, generator=None)``: fills ``x`` with the number of Bernoulli(``p``)
    trials up to the first success (1, 2, ...), ``ceil(log(u) / log(1 - p))``; ``0 < p < 1``;
    integer arrays too; returns ``x``."""
    if type(self) is not Array:
        raise TypeError(f"geometric_(): expected a strided array; got {type(self).__name__}")
    if self.dtype.kind not in "fiu":
        raise RuntimeError(f"geometric_(): not implemented for {self.dtype.name}")
    q = _real_arg(p, "p", "geometric_")
    if not 0 < q < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    xp = self.device.backend.xp
    u = _uniform(self, "geometric_", generator).astype(np.float64)
    u = xp.where(u == 0, np.finfo(np.float64).tiny, u)  # (u in (0, 1): a count >= 1)
    k = xp.maximum(xp.ceil(xp.log(u) / math.log1p(-q)), 1.0)
    return _fill(self, "geometric_", _cast(self, k))


def _counts(func, draw, args, generator):
    """The generator's ``draw`` sampler of ``args`` (native arrays), as a native array on their
    device; a device generator without one (a CuPy older than its Generator's samplers) draws
    on the host from the CPU's default generator, copied over."""
    dev = args[0].device
    g = _gen(generator, dev)
    f = getattr(g._rng, draw, None)
    if f is not None:
        return f(*[a._get_native() for a in args])
    cpu = _ns().Device("cpu")
    host = [_ns().asarray(a, device=cpu)._get_native() for a in args]
    r = getattr(_gen(None, cpu)._rng, draw)(*host)
    return dev.backend.xp.asarray(r) if hasattr(dev.backend.xp, "asarray") else r


def poisson(input, generator=None):
    """``torch.poisson(input, generator=None)``: a Poisson sample for each rate in ``input``
    (non-negative floats), of ``input``'s dtype. Its gradient is zero, as PyTorch's.

    >>> import strided.torch as torch
    >>> torch.poisson(torch.zeros(3))
    tensor([0., 0., 0.])
    """
    x = _tensor("poisson", input)
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{x.dtype.name}'")
    ns = _ns()
    rates = x.detach()
    if x.numel() and not bool(ns.all(rates >= 0)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    r = _counts("poisson", "poisson", [rates], generator)
    out = _wrap_new(x.device.backend.xp.asarray(r).astype(x.dtype._np), x.dtype, x.device)
    if x.requires_grad:
        # (PyTorch's PoissonBackward0: a zero gradient; x selected nowhere)
        out = ns.where(ns.zeros(x.shape, dtype=ns.bool, device=x.device), x, out)
    return out


def binomial(count, prob, generator=None):
    """``torch.binomial(count, prob, generator=None)``: a binomial sample for each pair of
    ``count`` (trials, a float array) and ``prob`` (success probability, the same dtype),
    broadcast; of their dtype. Not differentiable.

    >>> import strided.torch as torch
    >>> torch.binomial(torch.tensor([5.0, 0.0]), torch.tensor([1.0, 0.5]))
    tensor([5., 0.])
    """
    c = _tensor("binomial", count, "count")
    p = _tensor("binomial", prob, "prob")
    if c.dtype.kind != "f":
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {c.dtype.name}")
    if p.dtype != c.dtype:
        raise RuntimeError(f"binomial(): Found dtype {p.dtype.name} but expected {c.dtype.name}")
    ns = _ns()
    shape = ns.broadcast_shapes(tuple(c.shape), tuple(p.shape))
    cn = ns.broadcast_to(c.detach(), shape)
    pn = ns.clip(ns.broadcast_to(p.detach(), shape), 0.0, 1.0)  # (PyTorch clamps the probability)
    n_int = ns.astype(cn, ns.int64)
    r = _counts("binomial", "binomial", [n_int, pn], generator)
    return _wrap_new(c.device.backend.xp.asarray(r).astype(c.dtype._np), c.dtype, c.device)


def _install_methods() -> None:
    for f in (exponential_, cauchy_, log_normal_, geometric_):
        if not hasattr(Array, f.__name__):
            setattr(Array, f.__name__, f)


_install_methods()
