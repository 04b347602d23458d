"""``strided.torch.special``: PyTorch's ``torch.special`` over strided's arrays.

The names PyTorch's module shares with ``torch`` are the same functions as
``strided.torch``'s (``special.expit`` is ``torch.sigmoid``, ``special.gammaln`` is
``torch.lgamma``, ``special.psi`` is ``torch.digamma``); ``ndtr``, ``entr``, ``xlog1py``
and the Bessel functions ``i0e``, ``i1``, ``i1e`` are its own, and so (from ``_more_special``) are
``gammainc``, ``gammaincc``, ``multigammaln``, ``log_ndtr``, ``ndtri``, ``erfcx``, ``zeta``, the
Bessel functions ``bessel_j0/j1/y0/y1``, ``modified_bessel_i0/i1/k0/k1``,
``scaled_modified_bessel_k0/k1``, ``spherical_bessel_j0`` and ``airy_ai``. The rest of PyTorch's
module (the orthogonal polynomials, ...) is not here: asking for one is an AttributeError naming
what is (an ImportError for ``from strided.torch.special import hermite_polynomial_h``).

>>> import strided.torch as torch
>>> torch.special.expit(torch.tensor([0.0])), torch.special.ndtr(torch.tensor([0.0]))
(tensor([0.5000]), tensor([0.5000]))
"""

from __future__ import annotations

import math
import sys

from ._checks import tensor as _tensor
from ._math_functions import x_times_log as _x_times_log
from ._special import _function, _public, erfc as _erfc

from ._more_special import (  # noqa: F401
    SPECIAL as _MORE, airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, erfcx, gammainc, gammaincc, log_ndtr,
    modified_bessel_i0, modified_bessel_i1, modified_bessel_k0, modified_bessel_k1, multigammaln, ndtri,
    scaled_modified_bessel_k0, scaled_modified_bessel_k1, spherical_bessel_j0, zeta)

__all__ = ["entr", "i0e", "i1", "i1e", "ndtr", "xlog1py"] + _MORE

# The functions torch.special shares with torch, by their torch names (looked up on use:
# the same objects as strided.torch's).
SHARED = {"digamma": "digamma", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "exp2": "exp2",
          "expit": "sigmoid", "expm1": "expm1", "gammaln": "lgamma", "i0": "i0", "log1p": "log1p",
          "log_softmax": "log_softmax", "logit": "logit", "logsumexp": "logsumexp", "polygamma": "polygamma",
          "psi": "digamma",
          "round": "round", "sinc": "sinc", "softmax": "softmax", "xlogy": "xlogy"}


def _ns():
    return sys.modules["strided"]


def __getattr__(name: str):
    if name in SHARED:
        return getattr(sys.modules["strided.torch"], SHARED[name])
    raise AttributeError(f"module 'strided.torch.special' has no attribute {name!r}; it has "
                         f"{', '.join(sorted(__all__ + list(SHARED)))}")


def __dir__():
    return sorted(set(globals()) | set(SHARED))


def ndtr(input, *, out=None):
    """``torch.special.ndtr(input, *, out=None)``: the standard normal CDF,
    ``erfc(-input / sqrt(2)) / 2`` (accurate in the lower tail); integer inputs in the default
    float dtype."""
    _tensor("ndtr", input)
    return _ns().multiply(_erfc(_ns().multiply(input, -1.0 / math.sqrt(2.0))), 0.5, out=out)


def _entr_values(x):
    ns = _ns()
    pos = ns.greater(x, 0)
    safe = ns.where(pos, x, 1.0)
    v = ns.negative(ns.multiply(safe, ns.log(safe)))
    # x > 0: -x log x; 0: 0; below: -inf; NaN: NaN (PyTorch's entr)
    return ns.where(pos, v, ns.where(ns.equal(x, 0), 0.0, ns.where(ns.less(x, 0), -math.inf, x)))


def _entr_derivative(x, r):
    ns = _ns()
    return ns.negative(ns.add(ns.log(x), 1.0))  # (PyTorch's: -(1 + log x), inf at 0, NaN below)


entr = _public("entr", _function("entr", "Entr", _entr_derivative, values=_entr_values))
entr.__doc__ = ("PyTorch's ``torch.special.entr(input, *, out=None)``: ``-input * log(input)`` for "
                "positive elements, 0 at 0, -inf below; its derivative ``-(1 + log(input))``.")


def xlog1py(input, other, *, out=None):
    """``torch.special.xlog1py(input, other, *, out=None)``: ``input * log1p(other)``, 0 where
    ``input`` is 0 and ``other`` is not NaN."""
    return _x_times_log("xlog1py", "log1p", input, other, out)


def _bessel(name: str, doc: str):
    f = _public(name)
    f.__doc__ = f"PyTorch's ``torch.special.{name}(input, *, out=None)``: {doc}, elementwise; differentiable."
    return f


i0e = _bessel("i0e", "``exp(-|input|) * i0(input)``, the exponentially scaled modified Bessel function of order 0")
i1 = _bessel("i1", "the modified Bessel function of the first kind of order 1")
i1e = _bessel("i1e", "``exp(-|input|) * i1(input)``, exponentially scaled")


# (PyTorch's parameter names, ``torch.special.<name>(input=...)``: strided/torch/_keyword_names.py)
from . import _keyword_names  # noqa: E402

_keyword_names.install(globals(), _keyword_names.SPECIAL, __name__)
del _keyword_names
