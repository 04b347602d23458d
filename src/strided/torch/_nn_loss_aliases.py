"""The ``torch.*`` forms of ``nn.functional``'s losses, dropouts, activations and distances
(``torch.kl_div``, ``torch.dropout``, ``torch.pdist``, ...), with ATen's signatures.

They differ from the ``nn.functional`` forms where PyTorch's do: ``reduction`` is ATen's
integer enum (0 none, 1 mean, 2 sum; any other integer reduces nothing, as
``apply_loss_reduction``; a string is a TypeError; omitted, it is 0: ATen's schema says
``reduction=Mean``, but PyTorch's Python binding reads that default as 0, so
``torch.kl_div(a, b)`` reduces nothing -- measured on PyTorch 2.13), the dropouts take ``train`` (a
required positional argument, not ``training``) and raise RuntimeError for a bad ``p``, and
the checks that only PyTorch's Python layer makes (``triplet_margin_loss``'s positive
margin, ``margin_ranking_loss``'s equal dimensions, ``binary_cross_entropy_with_logits``'s
equal shapes, ``kl_div``'s warning for ``mean``) are not made.
"""

from __future__ import annotations

import builtins
import importlib

from ._checks import no_out, tensor as _tensor

__all__ = [
    "dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout",
    "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
    "threshold", "threshold_", "hardshrink", "rrelu", "rrelu_", "prelu",
    "cosine_similarity", "pairwise_distance", "pdist",
    "cosine_embedding_loss", "hinge_embedding_loss", "kl_div", "margin_ranking_loss",
    "poisson_nll_loss", "triplet_margin_loss", "binary_cross_entropy_with_logits",
]


def _F():
    return importlib.import_module("strided.torch.nn.functional")


def _X():
    return importlib.import_module("strided.torch.nn._loss_extra")


def _enum(name: str, reduction) -> str:
    """ATen's reduction enum as nn.functional's string."""
    if isinstance(reduction, builtins.bool) or not isinstance(reduction, builtins.int):
        raise TypeError(f"{name}(): argument 'reduction' must be int (0 none, 1 mean, 2 sum), "
                        f"not {type(reduction).__name__}")
    return {1: "mean", 2: "sum"}.get(reduction, "none")


# --- dropouts ----------------------------------------------------------------------------

def _drop(name, input, p, train, inplace, feature, alpha):
    _tensor(name, input)
    return _X()._dropout_impl(input, p, train, inplace, feature, alpha, name)


def dropout(input, p, train):
    """``torch.dropout(input, p, train)``: ``nn.functional.dropout`` with ATen's signature
    (``train`` positional and required; a bad ``p`` is a RuntimeError).

    >>> import strided.torch as torch
    >>> x = torch.ones(3)
    >>> torch.dropout(x, 0.5, False) is x
    True
    """
    return _drop("dropout", input, p, train, False, False, False)


def dropout_(input, p, train):
    """``torch.dropout_(input, p, train)``: in-place ``torch.dropout``."""
    return _drop("dropout_", input, p, train, True, False, False)


def feature_dropout(input, p, train):
    """``torch.feature_dropout(input, p, train)``: dropout of whole channels (dimension 1 of
    an input of at least 2 dimensions).

    >>> import strided.torch as torch
    >>> torch.feature_dropout(torch.ones(2, 3), 1.0, True)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    """
    return _drop("feature_dropout", input, p, train, False, True, False)


def feature_dropout_(input, p, train):
    """``torch.feature_dropout_(input, p, train)``: in-place ``torch.feature_dropout``."""
    return _drop("feature_dropout_", input, p, train, True, True, False)


def alpha_dropout(input, p, train):
    """``torch.alpha_dropout(input, p, train)``: ``nn.functional.alpha_dropout`` with ATen's
    signature.

    >>> import strided.torch as torch
    >>> x = torch.ones(3)
    >>> torch.alpha_dropout(x, 0.5, False) is x
    True
    """
    return _drop("alpha_dropout", input, p, train, False, False, True)


def alpha_dropout_(input, p, train):
    """``torch.alpha_dropout_(input, p, train)``: in-place ``torch.alpha_dropout``."""
    return _drop("alpha_dropout_", input, p, train, True, False, True)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout(input, p, train)``: alpha dropout of whole channels.

    >>> import strided.torch as torch
    >>> x = torch.ones(2, 3)
    >>> torch.feature_alpha_dropout(x, 0.5, False) is x
    True
    """
    return _drop("feature_alpha_dropout", input, p, train, False, True, True)


def feature_alpha_dropout_(input, p, train):
    """``torch.feature_alpha_dropout_(input, p, train)``: in-place
    ``torch.feature_alpha_dropout``."""
    return _drop("feature_alpha_dropout_", input, p, train, True, True, True)


# --- activations -------------------------------------------------------------------------

def threshold(input, threshold, value, *, out=None):
    """``torch.threshold(input, threshold, value)``: ``value`` where ``input <= threshold``.

    >>> import strided.torch as torch
    >>> torch.threshold(torch.tensor([0.1, 2.0]), 1.0, 20.0)
    tensor([20.,  2.])
    """
    no_out("threshold", out)
    return _X()._threshold(_tensor("threshold", input), threshold, value)


def threshold_(input, threshold, value):
    """``torch.threshold_(input, threshold, value)``: in-place ``torch.threshold``."""
    return _X()._threshold(_tensor("threshold_", input), threshold, value, inplace=True)


def hardshrink(input, lambd=0.5, *, out=None):
    """``torch.hardshrink(input, lambd=0.5)``: ``input`` where ``|input| > lambd``, else 0.

    >>> import strided.torch as torch
    >>> torch.hardshrink(torch.tensor([-1.0, 0.2]))
    tensor([-1.,  0.])
    """
    no_out("hardshrink", out)
    return _F().hardshrink(_tensor("hardshrink", input), lambd)


def _no_generator(name, generator):
    if generator is not None:
        raise TypeError(f"{name}(): generator= is not supported by strided.torch's {name} (it "
                        f"draws from the default generator)")


def rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """``torch.rrelu(input, lower, upper, training=False, generator=None)``
    (``generator`` must be None).

    >>> import strided.torch as torch
    >>> torch.rrelu(torch.tensor([-1.0, 2.0]), 0.2, 0.4)
    tensor([-0.3000,  2.0000])
    """
    _no_generator("rrelu", generator)
    return _F().rrelu(_tensor("rrelu", input), lower, upper, training)


def rrelu_(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """``torch.rrelu_``: in-place ``torch.rrelu`` (``generator`` must be None)."""
    _no_generator("rrelu_", generator)
    return _F().rrelu(_tensor("rrelu_", input), lower, upper, training, inplace=True)


def prelu(input, weight):
    """``torch.prelu(input, weight)``: ``input`` where positive, else ``weight * input``.

    >>> import strided.torch as torch
    >>> torch.prelu(torch.tensor([-2.0, 3.0]), torch.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    return _F().prelu(_tensor("prelu", input), weight)


# --- distances ---------------------------------------------------------------------------

def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``torch.cosine_similarity(x1, x2, dim=1, eps=1e-08)``.

    >>> import strided.torch as torch
    >>> torch.cosine_similarity(torch.tensor([[1.0, 0.0]]), torch.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    return _F().cosine_similarity(_tensor("cosine_similarity", x1, "x1"),
                                  _tensor("cosine_similarity", x2, "x2"), dim, eps)


def pairwise_distance(x1, x2, p=2, eps=1e-06, keepdim=False):
    """``torch.pairwise_distance(x1, x2, p=2, eps=1e-06, keepdim=False)``.

    >>> import strided.torch as torch
    >>> torch.pairwise_distance(torch.zeros(1, 2), torch.tensor([[3.0, 4.0]]), eps=0.0)
    tensor([5.])
    """
    return _F().pairwise_distance(_tensor("pairwise_distance", x1, "x1"),
                                  _tensor("pairwise_distance", x2, "x2"), p, eps, keepdim)


def pdist(input, p=2):
    """``torch.pdist(input, p=2)``: the distances between the rows of a 2-D ``input``.

    >>> import strided.torch as torch
    >>> torch.pdist(torch.tensor([[0.0, 0.0], [3.0, 4.0]]))
    tensor([5.])
    """
    return _F().pdist(_tensor("pdist", input), p)


# --- losses ------------------------------------------------------------------------------

def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0)``.

    >>> import strided.torch as torch
    >>> x = torch.tensor([[1.0, 0.0]])
    >>> torch.cosine_embedding_loss(x, x, torch.tensor([-1]))
    tensor([1.])
    """
    red = _enum("cosine_embedding_loss", reduction)
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=red)


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss(input, target, margin=1.0, reduction=0)``.

    >>> import strided.torch as torch
    >>> torch.hinge_embedding_loss(torch.tensor([0.3]), torch.tensor([-1.0]))
    tensor([0.7000])
    """
    red = _enum("hinge_embedding_loss", reduction)
    return _F().hinge_embedding_loss(input, target, margin, reduction=red)


def kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div(input, target, reduction=0, *, log_target=False)`` (no ``batchmean``:
    that is ``nn.functional.kl_div``'s).

    >>> import strided.torch as torch
    >>> logp = torch.log(torch.tensor([0.5, 0.5]))
    >>> torch.kl_div(logp, torch.tensor([0.25, 0.75]), 2)
    tensor(0.1308)
    """
    red = _enum("kl_div", reduction)
    _tensor("kl_div", input)
    _tensor("kl_div", target, "target")
    return _X()._kl_div(input, target, red, log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0)``
    (the inputs broadcast).

    >>> import strided.torch as torch
    >>> torch.margin_ranking_loss(torch.tensor([1.0]), torch.tensor([2.0]), torch.tensor([1.0]))
    tensor([1.])
    """
    red = _enum("margin_ranking_loss", reduction)
    for a, n in ((input1, "input1"), (input2, "input2"), (target, "target")):
        _tensor("margin_ranking_loss", a, n)
    return _X()._margin_ranking(input1, input2, target, margin, red)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss(input, target, log_input, full, eps, reduction)`` (every
    argument required, as ATen's).

    >>> import strided.torch as torch
    >>> torch.poisson_nll_loss(torch.tensor([0.0]), torch.tensor([2.0]), True, False, 1e-8, 1)
    tensor(1.)
    """
    red = _enum("poisson_nll_loss", reduction)
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=red)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    """``torch.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06,
    swap=False, reduction=0)`` (any margin: the positive-margin check is nn.functional's).

    >>> import strided.torch as torch
    >>> a = torch.zeros(1, 2)
    >>> torch.triplet_margin_loss(a, a, torch.ones(1, 2), eps=0.0)
    tensor([0.])
    """
    red = _enum("triplet_margin_loss", reduction)
    for a, n in ((anchor, "anchor"), (positive, "positive"), (negative, "negative")):
        _tensor("triplet_margin_loss", a, n)
    return _X()._triplet(anchor, positive, negative, margin, p, eps, swap, red)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``torch.binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
    reduction=0)``: ATen's formula, the operands broadcast (the equal-shape check is
    nn.functional's).

    >>> import strided.torch as torch
    >>> torch.binary_cross_entropy_with_logits(torch.zeros(1), torch.ones(1))
    tensor([0.6931])
    """
    red = _enum("binary_cross_entropy_with_logits", reduction)
    F = _F()
    F._check_float(_tensor("binary_cross_entropy_with_logits", input),
                   "binary_cross_entropy_with_logits")
    _tensor("binary_cross_entropy_with_logits", target, "target")
    _X()._not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    log_sig = F.logsigmoid(input)
    if pos_weight is not None:
        loss = (1.0 - target) * input - ((pos_weight - 1.0) * target + 1.0) * log_sig
    else:
        loss = (1.0 - target) * input - log_sig
    if weight is not None:
        loss = loss * weight
    return F._reduce(loss, red, "binary_cross_entropy_with_logits")
