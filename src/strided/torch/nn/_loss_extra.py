"""The rest of ``torch.nn.functional``'s losses, activations, distances and dropouts.

Every function is a composite of strided's differentiable operations (``where``, ``gather``,
``norm``, ``log1p``, ...), so gradients follow from strided's autograd. The formulas are
PyTorch's kernels' (``aten/src/ATen/native/Loss.cpp``, ``LossMultiMargin.cpp``,
``LossMultiLabelMargin.cpp``, ``Distance.cpp``, ``Activation.cpp``, ``Dropout.cpp``),
including their choices at the edges: a hinge ``max(0, z)`` passes gradient only where
``z > 0`` (``where``, not ``clamp``), and the clamps that PyTorch applies under ``no_grad``
(``cosine_similarity``'s norms, ``gaussian_nll_loss``'s variance) change the value but pass
the gradient through unchanged.

Random functions (``rrelu`` in training, ``gumbel_softmax``, the dropouts) draw from
strided's generators: PyTorch's distributions, not PyTorch's numbers.

Invariants: nothing is changed in place unless asked (``inplace=True`` or a trailing ``_``);
a function that does nothing (dropout when not training, or with ``p == 0``) returns its
input itself, as PyTorch does; errors name the function and the argument, and are of the
type PyTorch raises (ValueError from the Python layer, RuntimeError from ATen's checks).
"""

from __future__ import annotations

import builtins
import math
import sys
import warnings

import numpy as np

import strided as _st
from strided import Array
from strided._core.caller import stacklevel
# hardshrink, softshrink, threshold, prelu: under create_graph their gradient for the input
# depends on it with derivative zero, as PyTorch's kernels' backward (a second derivative is
# zeros, not "does not require grad")
from strided.autograd._function import tie_input as _tie_input

from . import functional as _F

__all__ = [
    # losses
    "kl_div", "poisson_nll_loss", "gaussian_nll_loss", "cosine_embedding_loss",
    "margin_ranking_loss", "hinge_embedding_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss", "soft_margin_loss", "multilabel_margin_loss",
    "multilabel_soft_margin_loss", "multi_margin_loss",
    # activations
    "glu", "hardshrink", "softshrink", "threshold", "threshold_", "rrelu", "rrelu_", "prelu",
    "celu_", "selu_", "gumbel_softmax",
    # distances
    "cosine_similarity", "pairwise_distance", "pdist",
    # dropouts
    "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
    # embedding bags, ctc
    "embedding_bag", "ctc_loss",
]


def _T():
    return sys.modules["strided.torch"]


def _reduction(size_average, reduce, reduction: str, func: str) -> str:
    """The reduction string (the legacy pair wins, with PyTorch's warning), checked."""
    reduction = _F._legacy_reduction(size_average, reduce, reduction)
    if reduction not in _F._REDUCTIONS:
        raise ValueError(f"{func}(): {reduction} is not a valid value for reduction "
                         f"(one of {', '.join(_F._REDUCTIONS)})")
    return reduction


def _passthrough_clamp_min(x: Array, lo: float) -> Array:
    """``max(x, lo)``'s value with ``x``'s gradient unchanged: PyTorch's ``clamp_min_``
    under ``no_grad`` on a clone (``x - x.detach()`` is exactly 0, so the value is exact)."""
    d = x.detach()
    return (x - d) + d.clamp_min(lo)


def _not_differentiable(func: str, arg: str, x) -> None:
    """PyTorch's refusal of an argument its derivative formula does not cover
    (``derivatives.yaml``: ``non_differentiable``), when autograd would record it."""
    if x is not None and x.requires_grad and _T().is_grad_enabled():
        raise RuntimeError(f"The function '{func}' is not differentiable with respect to "
                           f"argument '{arg}'. This input cannot have requires_grad True.")


# --- losses ------------------------------------------------------------------------------

def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Array:
    """The Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``.

    Pointwise ``target * (log(target) - input)`` (``xlogy``: 0 where ``target`` is 0), or
    ``exp(target) * (target - input)`` when ``log_target``. ``reduction="batchmean"``
    divides the sum by ``input.size(0)``; ``"mean"`` divides by the number of elements
    (and warns, as PyTorch).

    >>> import strided.torch as torch
    >>> logp = torch.log(torch.tensor([[0.5, 0.5]]))
    >>> torch.nn.functional.kl_div(logp, torch.tensor([[0.25, 0.75]]), reduction="batchmean")
    tensor(0.1308)
    """
    _F._check(input, "kl_div")
    _F._check(target, "kl_div", "target")
    if size_average is not None or reduce is not None:
        red = _F._legacy_reduction(size_average, reduce, reduction)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                "major release.", UserWarning, stacklevel=stacklevel())
        red = "sum" if reduction == "batchmean" else reduction
        if red not in _F._REDUCTIONS:
            raise ValueError(f"kl_div(): {reduction} is not a valid value for reduction "
                             f"(one of none, batchmean, mean, sum)")
    out = _kl_div(input, target, red, log_target)
    if reduction == "batchmean" and input.ndim != 0:
        out = out / input.shape[0]
    return out


def _kl_div(input, target, red, log_target):
    """ATen's kl_div: the pointwise loss, reduced by ``red`` (none, mean or sum)."""
    if log_target:
        loss = _st.exp(target) * (target - input)
    else:
        loss = _T().xlogy(target, target) - target * input
    return _F._reduce(loss, red, "kl_div")


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean") -> Array:
    """The negative log likelihood of ``target`` under a Poisson distribution.

    ``exp(input) - target * input`` (``log_input``) or ``input - target * log(input + eps)``;
    ``full`` adds Stirling's ``target * log(target) - target + 0.5 * log(2 pi target)``
    where ``target > 1``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.poisson_nll_loss(torch.tensor([0.0]), torch.tensor([2.0]))
    tensor(1.)
    """
    reduction = _reduction(size_average, reduce, reduction, "poisson_nll_loss")
    _F._check(input, "poisson_nll_loss")
    _F._check(target, "poisson_nll_loss", "target")
    # (an integer or bool input computes as PyTorch's composite does: exp and log in the
    # default float dtype, the products in PyTorch's promotion)
    from .. import _functions as _tf
    if log_input:
        loss = _tf.exp(input) - target * input
    else:
        loss = input - target * _tf.log(input + eps)
    if full:
        # Note: PyTorch computes the term on every target and masks it (masked_fill), so a
        # target of 0 gets a NaN gradient (0 * log(0)); computed the same way here.
        t = target
        stirling = t * _tf.log(t) - t + 0.5 * _tf.log(2 * math.pi * t)
        loss = loss + _st.where(t <= 1, 0.0, stirling)
    return _F._reduce(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Array:
    """The negative log likelihood of ``target`` under ``N(input, var)``.

    ``0.5 * (log(max(var, eps)) + (input - target)**2 / max(var, eps))`` (plus
    ``0.5 * log(2 pi)`` when ``full``); ``var`` may be a float, of ``input``'s shape, one
    dimension short of it, or broadcastable with a single mismatched dimension. The clamp
    at ``eps`` passes ``var``'s gradient through unchanged (PyTorch clamps under no_grad).

    >>> import strided.torch as torch
    >>> torch.nn.functional.gaussian_nll_loss(torch.zeros(2), torch.ones(2), torch.ones(2))
    tensor(0.5000)
    """
    _F._check(input, "gaussian_nll_loss")
    _F._check(target, "gaussian_nll_loss", "target")
    if isinstance(var, builtins.float):
        if var < 0:
            raise ValueError("gaussian_nll_loss(): var has negative entry/entries")
        var = var * _st.ones_like(input)
    else:
        _F._check(var, "gaussian_nll_loss", "var")
        if var.size and builtins.bool(_st.any(var < 0)):
            raise ValueError("gaussian_nll_loss(): var has negative entry/entries")
    ishape, vshape = tuple(input.shape), tuple(var.shape)
    if vshape != ishape:
        if ishape[:-1] == vshape:
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim
                  and builtins.sum(y for x, y in zip(ishape, vshape) if x != y) == 1):
            raise ValueError(f"gaussian_nll_loss(): var is of incorrect size {vshape} for input "
                             f"of size {ishape}")
    if reduction not in _F._REDUCTIONS:
        raise ValueError(f"gaussian_nll_loss(): {reduction} is not valid (reduction must be one "
                         f"of {', '.join(_F._REDUCTIONS)})")
    var = _passthrough_clamp_min(var, eps)
    d = input - target
    loss = 0.5 * (_st.log(var) + d * d / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _F._reduce(loss, reduction, "gaussian_nll_loss")


def cosine_embedding_loss(input1, input2, target, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Array:
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``target == -1`` (0 elsewhere); the cosine is taken along the last dimension.

    >>> import strided.torch as torch
    >>> x = torch.tensor([[1.0, 0.0]])
    >>> torch.nn.functional.cosine_embedding_loss(x, x, torch.tensor([-1]))
    tensor(1.)
    """
    reduction = _reduction(size_average, reduce, reduction, "cosine_embedding_loss")
    for a, n in ((input1, "input1"), (input2, "input2"), (target, "target")):
        _F._check(a, "cosine_embedding_loss", n)
    td = target.ndim
    if td not in (0, 1):
        raise RuntimeError("cosine_embedding_loss(): 0D or 1D target tensor expected, "
                           f"multi-target not supported; got shape {tuple(target.shape)}")
    if td == 1 and not (input1.ndim == 2 and input2.ndim == 2):
        raise RuntimeError(f"cosine_embedding_loss(): 1D target tensor expects 2D input tensors, "
                           f"but found inputs with sizes {tuple(input1.shape)} and "
                           f"{tuple(input2.shape)}.")
    if td == 0 and not (input1.ndim == 1 and input2.ndim == 1):
        raise RuntimeError(f"cosine_embedding_loss(): 0D target tensor expects 1D input tensors, "
                           f"but found inputs with sizes {tuple(input1.shape)} and "
                           f"{tuple(input2.shape)}.")
    # Note: PyTorch's cosine_embedding_loss (aten/src/ATen/native/Loss.cpp), EPSILON 1e-12.
    prod = (input1 * input2).sum(td)
    m1 = (input1 * input1).sum(td) + 1e-12
    m2 = (input2 * input2).sum(td) + 1e-12
    cos = prod / _st.sqrt(m1 * m2)
    if td == 1 and cos.shape[0] != target.shape[0]:
        raise RuntimeError(f"cosine_embedding_loss(): the size of tensor a ({cos.shape[0]}) must "
                           f"match the size of tensor b ({target.shape[0]}) at non-singleton "
                           f"dimension 0 (the inputs' batch and the target)")
    pos = _st.where(target == 1, 1.0 - cos, 0.0)
    neg = _st.where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _F._reduce(pos + neg, reduction, "cosine_embedding_loss")


def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Array:
    """``max(0, -target * (input1 - input2) + margin)``.

    >>> import strided.torch as torch
    >>> F = torch.nn.functional
    >>> F.margin_ranking_loss(torch.tensor([1.0]), torch.tensor([2.0]), torch.tensor([1.0]))
    tensor(1.)
    """
    reduction = _reduction(size_average, reduce, reduction, "margin_ranking_loss")
    for a, n in ((input1, "input1"), (input2, "input2"), (target, "target")):
        _F._check(a, "margin_ranking_loss", n)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {tuple(input1.shape)}, input2: "
                           f"{tuple(input2.shape)}, target: {tuple(target.shape)} ")
    return _margin_ranking(input1, input2, target, margin, reduction)


def _margin_ranking(input1, input2, target, margin, reduction):
    """ATen's margin_ranking_loss (broadcasting; the dimension check is the Python layer's)."""
    loss = (-target * (input1 - input2) + margin).clamp_min(0)
    return _F._reduce(loss, reduction, "margin_ranking_loss")


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Array:
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1``
    (PyTorch: the first term where ``target != -1``, the second where ``target != 1``).

    >>> import strided.torch as torch
    >>> F = torch.nn.functional
    >>> F.hinge_embedding_loss(torch.tensor([0.3, 2.0]), torch.tensor([-1.0, 1.0]), reduction="none")
    tensor([0.7000, 2.0000])
    """
    reduction = _reduction(size_average, reduce, reduction, "hinge_embedding_loss")
    _F._check(input, "hinge_embedding_loss")
    _F._check(target, "hinge_embedding_loss", "target")
    zeros = _st.zeros_like(input)
    loss = _st.where(target != 1, (margin - input).clamp_min(0), zeros) \
        + _st.where(target != -1, input, zeros)
    return _F._reduce(loss, reduction, "hinge_embedding_loss")


def _same_ndim(a, p, n, func):
    if not (a.ndim == p.ndim == n.ndim):
        raise RuntimeError(f"{func}(): The anchor, positive, and negative tensors are expected to "
                           f"have the same number of dimensions, but got: anchor {a.ndim}D, "
                           f"positive {p.ndim}D, and negative {n.ndim}D inputs")


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Array:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with
    ``d = pairwise_distance(., ., p, eps)``; ``swap`` takes ``min(d(a, n), d(p, n))``.

    >>> import strided.torch as torch
    >>> a = torch.zeros(1, 2)
    >>> torch.nn.functional.triplet_margin_loss(a, a, torch.ones(1, 2), eps=0.0)
    tensor(0.)
    """
    reduction = _reduction(size_average, reduce, reduction, "triplet_margin_loss")
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss(): margin must be greater than 0, got {margin}")
    for a, n in ((anchor, "anchor"), (positive, "positive"), (negative, "negative")):
        _F._check(a, "triplet_margin_loss", n)
    return _triplet(anchor, positive, negative, margin, p, eps, swap, reduction)


def _triplet(anchor, positive, negative, margin, p, eps, swap, reduction):
    """ATen's triplet_margin_loss (no check of the margin: that is the Python layer's)."""
    _same_ndim(anchor, positive, negative, "triplet_margin_loss")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _st.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    return _F._reduce(loss, reduction, "triplet_margin_loss")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Array:
    """``triplet_margin_loss`` with any ``distance_function(x1, x2)`` (default
    ``pairwise_distance``).

    >>> import strided.torch as torch
    >>> a = torch.zeros(1, 2)
    >>> torch.nn.functional.triplet_margin_with_distance_loss(a, a, torch.ones(1, 2), margin=2.0)
    tensor(0.5858)
    """
    if reduction not in _F._REDUCTIONS:
        raise ValueError(f"triplet_margin_with_distance_loss(): {reduction} is not a valid value "
                         f"for reduction")
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss(): margin must be greater than 0, "
                         f"got {margin}")
    for a, n in ((anchor, "anchor"), (positive, "positive"), (negative, "negative")):
        _F._check(a, "triplet_margin_with_distance_loss", n)
    _same_ndim(anchor, positive, negative, "triplet_margin_with_distance_loss")
    dist = pairwise_distance if distance_function is None else distance_function
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _st.minimum(d_neg, dist(positive, negative))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    return _F._reduce(loss, reduction, "triplet_margin_with_distance_loss")


def soft_margin_loss(input, target, size_average=None, reduce=None,
                     reduction: str = "mean") -> Array:
    """``log(1 + exp(-target * input))``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.soft_margin_loss(torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction, "soft_margin_loss")
    _F._check(input, "soft_margin_loss")
    _F._check(target, "soft_margin_loss", "target")
    return _F._reduce(_st.log1p(_st.exp(-input * target)), reduction, "soft_margin_loss")


def _margin_shape(input, func):
    nd = input.ndim
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"{func}(): Expected non-empty vector or matrix with optional 0-dim "
                           f"batch size, but got: {tuple(input.shape)}")
    if nd <= 1:
        return 1, (1 if nd == 0 else input.shape[0])
    return input.shape[0], input.shape[1]


def _long_target(target, func):
    if target.dtype != _st.int64:
        raise RuntimeError(f"{func}(): expected scalar type Long but found {target.dtype.name} "
                           f"(the target must be int64)")


def multilabel_margin_loss(input, target, size_average=None, reduce=None,
                           reduction: str = "mean") -> Array:
    """The multi-class multi-label hinge loss.

    Each row of ``target`` lists class indices up to the first ``-1``; the loss of a
    sample is ``sum over its targets j and its non-target classes i of max(0, 1 -
    (x[j] - x[i]))``, divided by the number of classes.

    >>> import strided.torch as torch
    >>> x = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> torch.nn.functional.multilabel_margin_loss(x, torch.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = _reduction(size_average, reduce, reduction, "multilabel_margin_loss")
    _F._check(input, "multilabel_margin_loss")
    _F._check(target, "multilabel_margin_loss", "target")
    nframe, dim = _margin_shape(input, "multilabel_margin_loss")
    if input.ndim <= 1:
        ok = target.ndim <= 1 and target.size == dim
    else:
        ok = target.ndim == 2 and tuple(target.shape) == (nframe, dim)
    if not ok:
        raise RuntimeError(f"multilabel_margin_loss(): inconsistent target size: "
                           f"{list(target.shape)} for input of size: {list(input.shape)}")
    _long_target(target, "multilabel_margin_loss")
    if target.size:
        lo, hi = _F._target_range(target)
        if lo < -1 or hi >= dim:
            raise RuntimeError(f"multilabel_margin_loss(): argument #2 'target' is out of range: "
                               f"{lo if lo < -1 else hi} for {dim} classes (valid: -1 to {dim - 1})")
    x = input.reshape(nframe, dim)
    t = target.reshape(nframe, dim)
    # The targets of a sample are those before its first -1.
    valid = (t >= 0).to(_st.int64).cumprod(1) > 0
    safe = _st.where(valid, t, 0)
    classes = _T().arange(dim, device=input.device)
    is_target = _st.any((safe[:, :, None] == classes) & valid[:, :, None], axis=1)  # (N, C)
    xj = x.gather(1, safe)  # (N, C): the inputs at the target classes
    z = 1.0 - xj[:, :, None] + x[:, None, :]  # (N, j, i)
    pair = valid[:, :, None] & ~is_target[:, None, :]
    h = _st.where(pair & (z > 0), z, 0.0)
    loss = h.sum((1, 2)) / dim
    if input.ndim <= 1:
        loss = loss.reshape(())
    return _F._reduce(loss, reduction, "multilabel_margin_loss")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean") -> Array:
    """``-(t * logsigmoid(x) + (1 - t) * logsigmoid(-x))`` (times ``weight``), averaged over
    the classes (the last dimension).

    >>> import strided.torch as torch
    >>> torch.nn.functional.multilabel_soft_margin_loss(torch.zeros(1, 2), torch.ones(1, 2))
    tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = _F._legacy_reduction(size_average, reduce, reduction)
    _F._check(input, "multilabel_soft_margin_loss")
    _F._check(target, "multilabel_soft_margin_loss", "target")
    loss = -(target * _F.logsigmoid(input) + (1 - target) * _F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cd = input.ndim - 1
    loss = loss.sum(cd) / input.shape[cd]
    if reduction not in _F._REDUCTIONS:
        raise ValueError(f"multilabel_soft_margin_loss(): {reduction} is not valid (reduction "
                         f"must be one of {', '.join(_F._REDUCTIONS)})")
    return _F._reduce(loss, reduction, "multilabel_soft_margin_loss")


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Array:
    """The multi-class hinge loss: ``sum over i != y of max(0, margin - x[y] + x[i])**p``
    (times ``weight[y]``), divided by the number of classes.

    >>> import strided.torch as torch
    >>> x = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> torch.nn.functional.multi_margin_loss(x, torch.tensor([3]))
    tensor(0.3250)
    """
    reduction = _reduction(size_average, reduce, reduction, "multi_margin_loss")
    if p != 1 and p != 2:
        raise ValueError(f"multi_margin_loss(): only p == 1 and p == 2 supported; got {p}")
    if weight is not None:
        _F._check(weight, "multi_margin_loss", "weight")
        if weight.ndim != 1:
            raise ValueError(f"multi_margin_loss(): weight must be one-dimensional; got shape "
                             f"{tuple(weight.shape)}")
    _F._check(input, "multi_margin_loss")
    _F._check(target, "multi_margin_loss", "target")
    nframe, dim = _margin_shape(input, "multi_margin_loss")
    if not (target.ndim <= 1 and target.size == nframe):
        raise RuntimeError(f"multi_margin_loss(): target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{nframe}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and weight.size != dim:
        raise RuntimeError(f"multi_margin_loss(): inconsistent weight size, expected {dim} but "
                           f"got {list(weight.shape)}")
    _long_target(target, "multi_margin_loss")
    _not_differentiable("multi_margin_loss", "weight", weight)
    if target.size:
        lo, hi = _F._target_range(target)
        if lo < 0 or hi >= dim:
            raise RuntimeError(f"multi_margin_loss(): target out of range: "
                               f"{lo if lo < 0 else hi} for {dim} classes")
    x = input.reshape(nframe, dim)
    y = target.reshape(nframe, 1)
    z = margin - x.gather(1, y) + x
    other = y != _T().arange(dim, device=input.device)
    keep = other & (z > 0)
    h = _st.where(keep, z if p == 1 else z * z, 0.0)
    if weight is not None:
        h = h * weight.gather(0, y.reshape(-1)).reshape(nframe, 1)
    loss = h.sum(1) / dim
    if reduction == "none":
        return loss.reshape(tuple(target.shape))
    return _F._reduce(loss, reduction, "multi_margin_loss")


# --- activations -------------------------------------------------------------------------

def glu(input, dim: int = -1) -> Array:
    """The gated linear unit: ``a * sigmoid(b)``, ``a`` and ``b`` the halves of ``input``
    along ``dim``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.glu(torch.tensor([1.0, 0.0]))
    tensor([0.5000])
    """
    _F._check_float(input, "glu")
    if input.ndim == 0:
        raise RuntimeError("glu(): glu does not support scalars because halving size must be even")
    d = dim + input.ndim if dim < 0 else dim
    if not 0 <= d < input.ndim:
        raise IndexError(f"glu(): Dimension out of range (expected to be in range of "
                         f"[{-input.ndim}, {input.ndim - 1}], but got {dim})")
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"glu(): Halving dimension must be even, but dimension {d} is size {n}")
    a = input.narrow(d, 0, n // 2)
    b = input.narrow(d, n // 2, n // 2)
    return a * _st.sigmoid(b)


def hardshrink(input, lambd: float = 0.5) -> Array:
    """``x`` where ``|x| > lambd``, else 0.

    >>> import strided.torch as torch
    >>> torch.nn.functional.hardshrink(torch.tensor([-1.0, 0.2, 0.7]))
    tensor([-1.0000,  0.0000,  0.7000])
    """
    _F._check_float(input, "hardshrink")
    return _tie_input(_st.where((input >= -lambd) & (input <= lambd), 0.0, input), input)


def softshrink(input, lambd: float = 0.5) -> Array:
    """``x - lambd`` where ``x > lambd``, ``x + lambd`` where ``x < -lambd``, else 0.

    >>> import strided.torch as torch
    >>> torch.nn.functional.softshrink(torch.tensor([-1.0, 0.2, 0.7]))
    tensor([-0.5000,  0.0000,  0.2000])
    """
    _F._check_float(input, "softshrink")
    if not lambd >= 0:
        raise RuntimeError(f"softshrink(): lambda must be in range [0, inf) for input dtype "
                           f"{input.dtype.name}, but found {lambd}")
    return _tie_input(_st.where(input > lambd, input - lambd,
                                _st.where(input < -lambd, input + lambd, input * 0.0)), input)


def _threshold_value(input, value):
    # (PyTorch casts the Scalar value to the input's dtype: an int array stays int)
    return builtins.int(value) if input.dtype.kind in "iu" and not isinstance(value, builtins.bool) \
        else value


def threshold(input, threshold: float, value: float, inplace: bool = False) -> Array:
    """``value`` where ``x <= threshold``, else ``x`` (no gradient where replaced).

    >>> import strided.torch as torch
    >>> torch.nn.functional.threshold(torch.tensor([0.1, 2.0]), 1.0, 20.0)
    tensor([20.,  2.])
    """
    _F._check(input, "threshold")
    if input.dtype.kind not in "iuf":
        raise TypeError(f"threshold(): input must be a real array; got {input.dtype.name}")
    v = _threshold_value(input, value)
    return _F._composite(input, inplace,
                         lambda x: _tie_input(_st.where(x <= threshold, v, x).to(x.dtype), x))


_threshold = threshold  # (threshold_'s argument "threshold" hides the function)


def threshold_(input, threshold: float, value: float) -> Array:
    """In-place ``threshold``."""
    return _threshold(input, threshold, value, inplace=True)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Array:
    """The randomized leaky ReLU: ``x`` where ``x > 0``, else ``a * x``.

    Training: ``a ~ U(lower, upper)`` drawn per element (and used for the gradient);
    otherwise ``a = (lower + upper) / 2`` (``leaky_relu``).

    >>> import strided.torch as torch
    >>> torch.nn.functional.rrelu(torch.tensor([-1.0, 2.0]), 0.2, 0.4)
    tensor([-0.3000,  2.0000])
    """
    _F._check_float(input, "rrelu")
    if lower > upper:
        raise RuntimeError(f"rrelu(): Lower bound should be less than or equal to the upper "
                           f"bound; got lower={lower}, upper={upper}")
    if not training:
        return _F.leaky_relu(input, (lower + upper) / 2, inplace)

    def compute(x):
        r = _T().rand_like(x.detach()) * (upper - lower) + lower
        # Note: PyTorch draws the slope where x <= 0 (rrelu_with_noise); elsewhere the noise is 1.
        return x * _st.where(x.detach() <= 0, r, 1.0)
    return _F._composite(input, inplace, compute)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Array:
    """In-place ``rrelu``."""
    return rrelu(input, lower, upper, training, inplace=True)


def prelu(input, weight) -> Array:
    """``x`` where ``x > 0``, else ``weight * x``; ``weight`` has one element or one per
    channel (dimension 1 of the input).

    >>> import strided.torch as torch
    >>> torch.nn.functional.prelu(torch.tensor([-2.0, 3.0]), torch.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    _F._check_float(input, "prelu")
    _F._check(weight, "prelu", "weight")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu(): Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    if weight.dtype != input.dtype:
        raise RuntimeError(f"prelu(): Type promoting not supported. Got {input.dtype.name} and "
                           f"{weight.dtype.name}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.size != 1 and weight.size != channels:
        raise RuntimeError(f"prelu(): Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {weight.size} and channel size = {channels}.")
    if weight.size == 1:
        w = weight.reshape(())
    else:
        w = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    return _tie_input(_st.where(input > 0, input, w * input), input)


def celu_(input, alpha: float = 1.0) -> Array:
    """In-place ``celu``."""
    return _F.celu(input, alpha, inplace=True)


def selu_(input) -> Array:
    """In-place ``selu``."""
    return _F.selu(input, inplace=True)


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Array:
    """A sample of the Gumbel-softmax distribution: ``softmax((logits + g) / tau, dim)`` with
    ``g ~ Gumbel(0, 1)``; ``hard`` returns the one-hot of its argmax with the soft sample's
    gradient (straight through). ``eps`` is deprecated and unused (it warns, as PyTorch).

    >>> import strided.torch as torch
    >>> y = torch.nn.functional.gumbel_softmax(torch.zeros(2, 3), hard=True)
    >>> y.sum(-1)
    tensor([1., 1.])
    """
    _F._check_float(logits, "gumbel_softmax", "logits")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", UserWarning,
                      stacklevel=stacklevel())
    u = _T().rand(tuple(logits.shape), dtype=_st.float64, device=logits.device)
    # g = -log(E), E ~ Exp(1) = -log(1 - u); E kept positive so that g is finite.
    e = (-_st.log1p(-u)).to(logits.dtype).clamp_min(np.finfo(np.dtype(logits.dtype.name)).tiny)
    y_soft = ((logits - _st.log(e)) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _st.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# --- distances ---------------------------------------------------------------------------

def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8) -> Array:
    """``sum((x1 / max(||x1||, eps)) * (x2 / max(||x2||, eps)), dim)`` on the broadcast
    inputs (PyTorch's formulation; the clamps pass the norms' gradients through).

    >>> import strided.torch as torch
    >>> torch.nn.functional.cosine_similarity(torch.tensor([[1.0, 0.0]]), torch.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    _F._check(x1, "cosine_similarity", "x1")
    _F._check(x2, "cosine_similarity", "x2")
    dt = _st.result_type(x1, x2)
    if dt.kind != "f":
        raise RuntimeError(f"cosine_similarity(): expected common dtype to be floating point, yet "
                           f"common dtype is {dt.name}")
    x1, x2 = x1.to(dt), x2.to(dt)
    shape = _st.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = _passthrough_clamp_min(x1.norm(2, dim, True), eps)
    n2 = _passthrough_clamp_min(x2.norm(2, dim, True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def _pnorm(d: Array, p, dim, keepdim: bool) -> Array:
    if d.ndim == 0:
        r = _pnorm(d.reshape(1), p, 0, keepdim)
        return r.reshape(())
    return d.norm(p, dim, keepdim)


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Array:
    """``||x1 - x2 + eps||_p`` along the last dimension (of the broadcast inputs).

    >>> import strided.torch as torch
    >>> torch.nn.functional.pairwise_distance(torch.zeros(1, 2), torch.tensor([[3.0, 4.0]]), eps=0.0)
    tensor([5.])
    """
    _F._check(x1, "pairwise_distance", "x1")
    _F._check(x2, "pairwise_distance", "x2")
    out_dim = builtins.max(x1.ndim, x2.ndim)
    return _pnorm(x1 - x2 + eps, p, out_dim - 1, keepdim)


def pdist(input, p: float = 2) -> Array:
    """The ``p``-norm distances between the rows of the 2-D ``input``: the upper triangle
    (``i < j``, row by row) of the distance matrix, ``N * (N - 1) / 2`` values.

    >>> import strided.torch as torch
    >>> torch.nn.functional.pdist(torch.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    _F._check_float(input, "pdist")
    if input.ndim != 2:
        raise RuntimeError(f"pdist(): pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError(f"pdist(): pdist only supports non-negative p values; got {p}")
    n = input.shape[0]
    if n <= 1:
        return _st.zeros((0,), dtype=input.dtype, device=input.device) + input.sum() * 0.0
    iu = _T().triu_indices(n, n, 1, device=input.device)
    d = input.index_select(0, iu[0]) - input.index_select(0, iu[1])
    if input.shape[1] == 0:
        return d.sum(1)
    return d.norm(p, 1)


# --- dropouts ----------------------------------------------------------------------------

def _check_p(p, func, exc=ValueError):
    if isinstance(p, builtins.bool) or not isinstance(p, (builtins.int, builtins.float)) \
            or not 0.0 <= p <= 1.0:
        raise exc(f"{func}(): dropout probability has to be between 0 and 1, but got {p}")


_ALPHA = 1.7580993408473766  # (-scale * alpha of selu: PyTorch's Dropout.cpp)


def _dropout_impl(input, p, train, inplace, feature: bool, alpha: bool, func: str,
                  unbatched: bool = False):
    """PyTorch's ``_dropout_impl`` (aten/src/ATen/native/Dropout.cpp): the input itself when
    nothing is dropped; with ``p == 1`` the input times 0; else a Bernoulli(1 - p) mask
    (one per (batch, channel) when ``feature``) rescaled, plus alpha dropout's affine shift."""
    _F._check(input, func)
    _check_p(p, func, RuntimeError)
    if p == 0 or not train or input.size == 0:
        return input  # (whatever its dtype, as PyTorch's: nothing is computed)
    if input.dtype.kind != "f":
        raise TypeError(f"{func}(): input must be a real floating-point array; got "
                        f"{input.dtype.name}")
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    if feature:
        if input.ndim < 2 and not unbatched:
            raise RuntimeError(f"{func}(): Feature dropout requires at least 2 dimensions in the "
                               f"input; got shape {tuple(input.shape)}")
        k = 1 if unbatched else 2
        shape = tuple(input.shape[:k]) + (1,) * (input.ndim - k)
    else:
        shape = tuple(input.shape)
    keep = _st.bernoulli(_st.empty(shape, dtype=input.dtype, device=input.device), 1.0 - p)
    if not alpha:
        mask = keep / (1.0 - p)
        return input.mul_(mask) if inplace else input * mask
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = (keep - 1.0) * (_ALPHA * a) + _ALPHA * a * p
    mask = keep * a
    if inplace:
        return input.mul_(mask).add_(b)
    return input * mask + b


def _feature_nd(input, p, training, inplace, func, batched_ndim):
    """dropout1d/dropout3d: channel-wise on (N, C, *) or the unbatched (C, *)."""
    _check_p(p, func)
    _F._check(input, func)
    return _dropout_impl(input, p, training, inplace, True, False, func,
                         unbatched=input.ndim == batched_ndim - 1)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Array:
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` with probability ``p``, scaling the
    rest by ``1 / (1 - p)``.

    >>> import strided.torch as torch
    >>> x = torch.ones(2, 3)
    >>> torch.nn.functional.dropout1d(x, 0.5, training=False) is x
    True
    """
    _check_p(p, "dropout1d")
    _F._check(input, "dropout1d")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, "
            "a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_nd(input, p, training, inplace, "dropout1d", 3)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Array:
    """Zero whole channels of ``(N, C, H, W)`` with probability ``p``, scaling the rest by
    ``1 / (1 - p)``. A 3-D input is taken as ``(N, C, L)`` (with PyTorch's warning).

    >>> import strided.torch as torch
    >>> x = torch.ones(1, 2, 3, 3)
    >>> torch.nn.functional.dropout2d(x, 0.5, training=False) is x
    True
    """
    _check_p(p, "dropout2d")
    _F._check(input, "dropout2d")
    nd = input.ndim
    if nd not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).", UserWarning,
            stacklevel=stacklevel())
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning, stacklevel=stacklevel())
    return _dropout_impl(input, p, training, inplace, True, False, "dropout2d")


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Array:
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` with probability ``p``,
    scaling the rest by ``1 / (1 - p)``.

    >>> import strided.torch as torch
    >>> x = torch.ones(2, 1, 1, 1)
    >>> torch.nn.functional.dropout3d(x, 0.5, training=False) is x
    True
    """
    _check_p(p, "dropout3d")
    _F._check(input, "dropout3d")
    nd = input.ndim
    if nd not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 4D or 5D inputs).", UserWarning,
            stacklevel=stacklevel())
    # (PyTorch unsqueezes a batch dimension onto anything that is not 5-D: the channels are
    # then dimension 0; a 0-D input has too few dimensions for feature dropout)
    return _dropout_impl(input, p, training, inplace, True, False, "dropout3d",
                         unbatched=nd not in (0, 5))


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False) -> Array:
    """Dropout that keeps SELU's self-normalisation: dropped elements are set to SELU's
    negative saturation value, and the result is affinely rescaled to keep mean and variance.

    >>> import strided.torch as torch
    >>> x = torch.ones(3)
    >>> torch.nn.functional.alpha_dropout(x, 0.5) is x
    True
    """
    _check_p(p, "alpha_dropout")
    return _dropout_impl(input, p, training, inplace, False, True, "alpha_dropout")


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Array:
    """``alpha_dropout`` of whole channels (dimension 1; one draw per (batch, channel)).

    >>> import strided.torch as torch
    >>> x = torch.ones(2, 3)
    >>> torch.nn.functional.feature_alpha_dropout(x, 0.5) is x
    True
    """
    _check_p(p, "feature_alpha_dropout")
    return _dropout_impl(input, p, training, inplace, True, True, "feature_alpha_dropout")


# --- embedding bags ----------------------------------------------------------------------

_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights=None, include_last_offset: bool = False,
                  padding_idx=None) -> Array:
    """The sums, means or maxima of bags of ``weight``'s rows picked by the indices ``input``.

    ``input`` is 2-D ``(B, N)`` (each row a bag; ``offsets`` must be None) or 1-D with
    ``offsets``, the start of each bag (``include_last_offset``: one more, the end of the
    last). ``per_sample_weights`` (mode ``sum`` only) weighs each picked row; indices equal to
    ``padding_idx`` are left out of their bag (and of a mean's count); an empty bag gives
    zeros. ``max_norm`` first rescales, in place and outside autograd, the picked rows of
    ``weight`` whose ``norm_type``-norm exceeds it (as ``embedding``'s). ``scale_grad_by_freq``
    and ``sparse`` are not supported (they raise), nor is ``include_last_offset`` with a last offset short of the input's length (PyTorch's
    result there is not the documented one).

    >>> import strided.torch as torch
    >>> w = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    >>> torch.nn.functional.embedding_bag(torch.tensor([0, 1, 2]), w, torch.tensor([0, 2]))
    tensor([[0.5000, 0.5000],
            [2.0000, 2.0000]])
    """
    _F._check(input, "embedding_bag")
    _F._check(weight, "embedding_bag", "weight")
    if weight.dtype == _st.int64 and input.dtype.kind == "f":
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", UserWarning, stacklevel=stacklevel())
        weight, input = input, weight
    if per_sample_weights is not None:
        _F._check(per_sample_weights, "embedding_bag", "per_sample_weights")
        if tuple(input.shape) != tuple(per_sample_weights.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights "
                             f"({tuple(per_sample_weights.shape)}) is not None, then it must "
                             f"have the same shape as the input ({tuple(input.shape)})")
    if weight.ndim != 2:
        raise ValueError(f"embedding_bag(): weight has to be a 2D Tensor, but got Tensor of "
                         f"dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("embedding_bag(): if input is 2D, then offsets has to be None, as "
                             "input is treated is a mini-batch of fixed length sequences. "
                             f"However, found offsets of type {type(offsets)}")
        starts = np.arange(0, input.size, builtins.max(input.shape[1], 1))[:input.shape[0]]
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("embedding_bag(): offsets has to be a 1D Tensor but got None")
        _F._check(offsets, "embedding_bag", "offsets")
        if offsets.ndim != 1:
            raise ValueError("embedding_bag(): offsets has to be a 1D Tensor")
        starts = None
    else:
        raise ValueError(f"embedding_bag(): input has to be 1D or 2D Tensor, but got Tensor of "
                         f"dimension {input.ndim}")
    if mode not in _BAG_MODES:
        raise ValueError(f"embedding_bag(): mode has to be one of sum, mean or max; got {mode!r}")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("embedding_bag(): max mode does not support scaling the gradient by the "
                         "frequency")
    if mode == "max" and sparse:
        raise ValueError("embedding_bag(): max mode does not support sparse weights")
    if scale_grad_by_freq or sparse:
        # Note: PyTorch 2.13's CPU backward scales some rows by another index's count (indices
        # [0, 3, 3, 1, 4] give row 4 half its gradient), so there is no rule to follow here.
        raise NotImplementedError("embedding_bag(): scale_grad_by_freq and sparse are not "
                                  "supported by strided")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    _F._check_indices(input, "embedding_bag")
    if max_norm is not None:
        _F._embedding_renorm_(weight, input, max_norm, norm_type, "embedding_bag")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(f"embedding_bag(): Expected tensor for argument #1 'weight' to have "
                           f"the same type as tensor for argument #1 'per_sample_weights'; but "
                           f"type {weight.dtype.name} does not equal "
                           f"{per_sample_weights.dtype.name}")
    n, rows_n = input.size, weight.shape[0]
    if starts is None:
        if offsets.dtype.kind not in "iu":
            raise RuntimeError(f"embedding_bag(): offsets must be integers; got "
                               f"{offsets.dtype.name}")
        offs = np.asarray(offsets.detach().to_device("cpu")).astype(np.int64)
        if offs.size and offs[0] != 0:
            raise RuntimeError(f"embedding_bag(): offsets[0] has to be 0, i.e., the first "
                               f"sequence in the mini-batch has to start from position 0. "
                               f"However, got {offs[0]}")
        if offs.size and offs[-1] > n:
            raise RuntimeError(f"embedding_bag(): offsets[-1] can not be greater than input's "
                               f"length {n} but got offsets[-1] of {offs[-1]}")
        if np.any(np.diff(offs) < 0):
            raise RuntimeError(f"embedding_bag(): offsets must be non-decreasing; got "
                               f"{offs.tolist()}")
        if include_last_offset:
            if offs.size == 0:
                raise RuntimeError("embedding_bag(): include_last_offset needs at least one "
                                   "offset")
            if offs[-1] != n:
                raise NotImplementedError(
                    f"embedding_bag(): with include_last_offset, strided supports only a last "
                    f"offset equal to the input's length {n}; got {offs[-1]}")
            starts, ends = offs[:-1], offs[1:]
        else:
            starts, ends = offs, np.append(offs[1:], n)
    else:
        ends = np.append(starts[1:], n)
    if padding_idx is not None:
        if not -rows_n <= padding_idx < rows_n:
            raise RuntimeError(f"embedding_bag(): padding_idx must be within the number of "
                               f"embeddings, {-rows_n} through {rows_n - 1}, but got "
                               f"{padding_idx}")
        padding_idx %= rows_n
    if n:
        lo, hi = _F._target_range(input)
        if lo < 0 or hi >= rows_n:
            raise RuntimeError(f"embedding_bag(): index {lo if lo < 0 else hi} is out of range "
                               f"for a weight of {rows_n} rows")
    nbags, dim = len(starts), weight.shape[1]
    lengths = (ends - starts).astype(np.int64)
    dev = weight.device
    idx = input.to(_st.int64)
    rows = weight.index_select(0, idx)  # (n, dim)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    keep = None if padding_idx is None else (idx != padding_idx)
    bag_of = _st.asarray(np.repeat(np.arange(nbags, dtype=np.int64), lengths), device=dev)
    if keep is None:
        count = _st.asarray(lengths.astype(np.dtype(weight.dtype.name)), device=dev)
    else:
        count = _st.zeros((nbags,), dtype=weight.dtype, device=dev).index_add(
            0, bag_of, keep.to(weight.dtype))
    if mode != "max":
        if keep is not None:
            rows = _st.where(keep.unsqueeze(1), rows, 0.0)
        out = _st.zeros((nbags, dim), dtype=weight.dtype, device=dev).index_add(0, bag_of, rows)
        if mode == "mean":
            out = out / count.clamp_min(1.0).unsqueeze(1)
        return out
    lmax = builtins.int(lengths.max()) if nbags else 0
    if lmax == 0:
        return _st.zeros((nbags, dim), dtype=weight.dtype, device=dev) + weight.sum() * 0.0
    # A dense (bags, longest bag, dim) view of the rows, padded (and padding_idx's rows
    # masked) with -inf: the maximum of each bag, its gradient to the row it came from.
    neg = _st.full((1, dim), -math.inf, dtype=weight.dtype, device=dev)
    if keep is not None:
        rows = _st.where(keep.unsqueeze(1), rows, neg)
    ext = _st.concat([rows, neg], axis=0)
    pos = np.arange(n, dtype=np.int64) - np.repeat(starts, lengths)
    table = np.full((nbags, lmax), n, dtype=np.int64)
    table[np.repeat(np.arange(nbags), lengths), pos] = np.arange(n)
    dense = ext.index_select(0, _st.asarray(table.reshape(-1), device=dev)).reshape(nbags, lmax, dim)
    best = dense.max(1)[0]
    return _st.where(count.unsqueeze(1) > 0, best, 0.0)


# --- ctc ---------------------------------------------------------------------------------

def _lengths(x, func, arg, n):
    if isinstance(x, Array):
        if x.dtype.kind not in "iu":
            raise RuntimeError(f"{func}(): {arg} must be integers; got {x.dtype.name}")
        v = np.asarray(x.detach().to_device("cpu")).astype(np.int64).reshape(-1)
    else:
        v = np.asarray(x, dtype=np.int64).reshape(-1)
    if v.size != n:
        raise RuntimeError(f"{func}(): {arg} must be of size batch_size {n}; got {v.size}")
    return v


def _lse3(a: Array, b: Array, c: Array) -> Array:
    """``log(exp(a) + exp(b) + exp(c))``, -inf where all three are, with no NaN gradient."""
    m = _st.maximum(_st.maximum(a.detach(), b.detach()), c.detach())
    m = _st.where(_st.isinf(m), 0.0, m)
    s = _st.exp(a - m) + _st.exp(b - m) + _st.exp(c - m)
    pos = s > 0
    return _st.where(pos, _st.log(_st.where(pos, s, 1.0)) + m, -math.inf)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Array:
    """The connectionist temporal classification loss: ``-log`` of the probability of each
    target sequence summed over its alignments (the forward recursion in log space).

    ``log_probs`` is ``(T, N, C)`` (or unbatched ``(T, C)``) log-probabilities; ``targets``
    ``(N, S)`` padded or the targets of every sample concatenated; ``mean`` divides each
    loss by its target length, then averages. The gradient is PyTorch's: with respect to
    ``log_probs`` it is ``exp(log_probs) - posterior`` within each input length (what a
    preceding ``log_softmax`` turns into the exact gradient of the logits), 0 beyond it.
    An impossible alignment's loss is ``inf`` (0 with ``zero_infinity``, gradient 0 too); its
    gradient without ``zero_infinity`` is 0 here where PyTorch's is NaN.

    >>> import strided.torch as torch
    >>> lp = torch.log(torch.full((2, 1, 2), 0.5))
    >>> torch.nn.functional.ctc_loss(lp, torch.tensor([[1]]), [2], [1], reduction="sum")
    tensor(0.2877)
    """
    func = "ctc_loss"
    _F._check_float(log_probs, func, "log_probs")
    _F._check(targets, func, "targets")
    if reduction not in _F._REDUCTIONS:
        raise ValueError(f"{func}(): {reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    if log_probs.ndim not in (2, 3):
        raise RuntimeError(f"{func}(): log_probs must be (T, N, C) or (T, C); got shape "
                           f"{tuple(log_probs.shape)}")
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    T, N, C = lp.shape
    if not 0 <= blank < C:
        raise RuntimeError(f"{func}(): blank must be in label range; got {blank} for {C} "
                           f"classes")
    in_len = _lengths(input_lengths, func, "input_lengths", N)
    tg_len = _lengths(target_lengths, func, "target_lengths", N)
    if in_len.size and (in_len.max() > T or in_len.min() < 0):
        raise RuntimeError(f"{func}(): Expected input_lengths to have value at most {T}, but got "
                           f"value {in_len.max() if in_len.max() > T else in_len.min()}")
    tg = np.asarray(targets.detach().to_device("cpu")).astype(np.int64)
    if unbatched:
        tg = tg.reshape(1, -1)
    smax = builtins.int(tg_len.max()) if N else 0
    if tg.ndim == 2:  # padded (N, S) (an unbatched target made (1, S) above)
        if tg.shape[1] < smax:
            raise RuntimeError(f"{func}(): Expected tensor to have size at least {smax} at "
                               f"dimension 1, but got size {tg.shape[1]} for argument #2 "
                               f"'targets'")
        rows = [tg[n, :tg_len[n]] for n in range(N)]
    else:
        flat = tg.reshape(-1)
        if flat.size < tg_len.sum():
            raise RuntimeError(f"{func}(): targets has {flat.size} entries for target_lengths "
                               f"summing to {tg_len.sum()}")
        ends = np.cumsum(tg_len)
        rows = [flat[e - k:e] for e, k in zip(ends, tg_len)]
    for r in rows:
        if r.size and (r.min() < 0 or r.max() >= C):
            raise RuntimeError(f"{func}(): target {r.min() if r.min() < 0 else r.max()} is out "
                               f"of range for {C} classes")
    L = 2 * smax + 1
    ext = np.full((N, L), blank, dtype=np.int64)
    allowed = np.zeros((N, L), dtype=bool)
    for n, r in enumerate(rows):
        ext[n, 1:2 * r.size:2] = r
        if r.size > 1:
            allowed[n, 3:2 * r.size:2] = r[1:] != r[:-1]
    dev, dt = lp.device, lp.dtype
    ext_d = _st.asarray(ext, device=dev)
    allowed_d = _st.asarray(allowed, device=dev)
    neg = _st.full((N, 1), -math.inf, dtype=dt, device=dev)
    s_idx = np.arange(L)
    alpha = _st.where(_st.asarray(s_idx < 2, device=dev), lp[0].gather(1, ext_d), -math.inf) \
        if T else _st.full((N, L), -math.inf, dtype=dt, device=dev)
    live = _st.asarray(in_len, device=dev).unsqueeze(1)
    for t in range(1, T):
        a1 = _st.concat([neg, alpha[:, :-1]], axis=1)
        a2 = _st.where(allowed_d, _st.concat([neg, neg, alpha[:, :-2]], axis=1), -math.inf) \
            if L > 2 else _st.full((N, L), -math.inf, dtype=dt, device=dev)
        new = _lse3(alpha, a1, a2) + lp[t].gather(1, ext_d)
        alpha = _st.where(live > t, new, alpha)
    last = _st.asarray(2 * tg_len, device=dev).unsqueeze(1)
    end1 = alpha.gather(1, last).squeeze(1)
    end2 = alpha.gather(1, (last - 1).clamp_min(0)).squeeze(1)
    end2 = _st.where(_st.asarray(tg_len > 0, device=dev), end2, -math.inf)
    ll = _lse3(end1, end2, _st.full((N,), -math.inf, dtype=dt, device=dev))
    # An input of length 0 aligns only the empty target (probability 1).
    empty_in = _st.asarray(in_len == 0, device=dev)
    ll = _st.where(empty_in, _st.asarray(np.where(tg_len == 0, 0.0, -math.inf).astype(
        np.dtype(dt.name)), device=dev), ll)
    nll = -ll
    # Note: PyTorch's ctc_loss_backward returns exp(log_probs) - posterior (LossCTC.cpp):
    # a term whose value is exactly 0 and whose gradient is exp(log_probs) adds the first
    # part within each input length.
    e = _st.exp(lp)
    tmask = _st.asarray((np.arange(T)[:, None] < in_len[None, :]), device=dev).unsqueeze(2)
    extra = _st.where(tmask, e - e.detach(), 0.0).sum((0, 2))
    loss = nll + extra
    if zero_infinity:
        loss = _st.where(_st.isinf(nll), 0.0, loss)
    if reduction == "mean":
        div = _st.asarray(np.maximum(tg_len, 1).astype(np.dtype(dt.name)), device=dev)
        return (loss / div).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.reshape(()) if unbatched else loss
