"""The module forms of ``_loss_extra``'s functions (PyTorch's ``nn.KLDivLoss``, ``nn.GLU``,
``nn.Dropout2d``, ...), plus ``ParameterDict`` and ``Buffer``.

Each module stores its constructor's arguments as attributes of the same names and calls
the functional form in ``forward`` (random ones pass ``self.training``), so its ``repr``
and its ``state_dict`` (only ``PReLU`` has a parameter; the weighted losses a ``weight``
buffer) are PyTorch's.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict

import strided as _st
from strided import Array

from . import functional as F
from . import init
from .modules import Module, _Loss, _WeightedLoss, _factory
from .parameter import Parameter, is_parameter

__all__ = [
    "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "CosineEmbeddingLoss", "MarginRankingLoss",
    "HingeEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "SoftMarginLoss",
    "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "CTCLoss",
    "GLU", "Hardshrink", "Softshrink", "Threshold", "RReLU", "PReLU", "Softmax2d",
    "CosineSimilarity", "PairwiseDistance",
    "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "EmbeddingBag", "ParameterDict", "Buffer",
]


# --- losses ------------------------------------------------------------------------------

class KLDivLoss(_Loss):
    """``kl_div(input, target, reduction, log_target)``.

    >>> import strided.torch as torch
    >>> logp = torch.log(torch.tensor([[0.5, 0.5]]))
    >>> torch.nn.KLDivLoss(reduction="batchmean")(logp, torch.tensor([[0.25, 0.75]]))
    tensor(0.1308)
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean",
                 log_target: bool = False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        """``kl_div(input, target)``."""
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """``poisson_nll_loss(input, target, log_input, full, eps, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.PoissonNLLLoss()(torch.tensor([0.0]), torch.tensor([2.0]))
    tensor(1.)
    """

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None,
                 eps: float = 1e-8, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        """``poisson_nll_loss(log_input, target)``."""
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """``gaussian_nll_loss(input, target, var, full, eps, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.GaussianNLLLoss()(torch.zeros(2), torch.ones(2), torch.ones(2))
    tensor(0.5000)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        """``gaussian_nll_loss(input, target, var)``."""
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class _MarginLoss(_Loss):
    _default_margin = 0.0

    def __init__(self, margin: float = None, size_average=None, reduce=None,
                 reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = self._default_margin if margin is None else margin


class CosineEmbeddingLoss(_MarginLoss):
    """``cosine_embedding_loss(input1, input2, target, margin, reduction)``.

    >>> import strided.torch as torch
    >>> x = torch.tensor([[1.0, 0.0]])
    >>> torch.nn.CosineEmbeddingLoss()(x, x, torch.tensor([1]))
    tensor(0.)
    """

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        """``cosine_embedding_loss(input1, input2, target)``."""
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class MarginRankingLoss(_MarginLoss):
    """``margin_ranking_loss(input1, input2, target, margin, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.MarginRankingLoss()(torch.tensor([1.0]), torch.tensor([2.0]), torch.tensor([1.0]))
    tensor(1.)
    """

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        """``margin_ranking_loss(input1, input2, target)``."""
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """``hinge_embedding_loss(input, target, margin, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.HingeEmbeddingLoss()(torch.tensor([0.3]), torch.tensor([-1.0]))
    tensor(0.7000)
    """

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None,
                 reduction: str = "mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input, target):
        """``hinge_embedding_loss(input, target)``."""
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.TripletMarginLoss(margin=2.0)
    TripletMarginLoss()
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        """``triplet_margin_loss(anchor, positive, negative)``."""
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``triplet_margin_with_distance_loss(anchor, positive, negative, distance_function,
    margin, swap, reduction)``; the default distance is a ``PairwiseDistance()`` child.

    >>> import strided.torch as torch
    >>> torch.nn.TripletMarginWithDistanceLoss()
    TripletMarginWithDistanceLoss(
      (distance_function): PairwiseDistance()
    )
    """

    def __init__(self, *, distance_function=None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None \
            else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        """``triplet_margin_with_distance_loss(anchor, positive, negative)``."""
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``soft_margin_loss(input, target, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.SoftMarginLoss()(torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(0.6931)
    """

    def forward(self, input, target):
        """``soft_margin_loss(input, target)``."""
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """``multilabel_margin_loss(input, target, reduction)``.

    >>> import strided.torch as torch
    >>> x = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> torch.nn.MultiLabelMarginLoss()(x, torch.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """

    def forward(self, input, target):
        """``multilabel_margin_loss(input, target)``."""
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """``multilabel_soft_margin_loss(input, target, weight, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.MultiLabelSoftMarginLoss()(torch.zeros(1, 2), torch.ones(1, 2))
    tensor(0.6931)
    """

    def forward(self, input, target):
        """``multilabel_soft_margin_loss(input, target)``."""
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """``multi_margin_loss(input, target, p, margin, weight, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.MultiMarginLoss()(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([3]))
    tensor(0.3250)
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, size_average=None,
                 reduce=None, reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError(f"only p == 1 and p == 2 supported; got {p}")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.ndim}D instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        """``multi_margin_loss(input, target)``."""
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class CTCLoss(_Loss):
    """``ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
    zero_infinity)``.

    >>> import strided.torch as torch
    >>> lp = torch.log(torch.full((2, 1, 2), 0.5))
    >>> torch.nn.CTCLoss(reduction="sum")(lp, torch.tensor([[1]]), [2], [1])
    tensor(0.2877)
    """

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        """``ctc_loss(log_probs, targets, input_lengths, target_lengths)``."""
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


# --- activations -------------------------------------------------------------------------

class GLU(Module):
    """``glu(input, dim)``.

    >>> import strided.torch as torch
    >>> torch.nn.GLU()
    GLU(dim=-1)
    """

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        """``glu(input, dim)``."""
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class _Shrink(Module):
    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """``hardshrink(input, lambd)``.

    >>> import strided.torch as torch
    >>> torch.nn.Hardshrink()
    Hardshrink(0.5)
    """

    def forward(self, input):
        """``hardshrink(input, lambd)``."""
        return F.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    """``softshrink(input, lambd)``.

    >>> import strided.torch as torch
    >>> torch.nn.Softshrink(0.25)
    Softshrink(0.25)
    """

    def forward(self, input):
        """``softshrink(input, lambd)``."""
        return F.softshrink(input, self.lambd)


class Threshold(Module):
    """``threshold(input, threshold, value, inplace)``.

    >>> import strided.torch as torch
    >>> torch.nn.Threshold(0.1, 20)
    Threshold(threshold=0.1, value=20)
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        """``threshold(input, threshold, value, inplace)``."""
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        s = f"threshold={self.threshold}, value={self.value}"
        return s + (", inplace=True" if self.inplace else "")


class RReLU(Module):
    """``rrelu(input, lower, upper, training, inplace)``: random slopes while training, their
    mean in ``eval()`` mode.

    >>> import strided.torch as torch
    >>> torch.nn.RReLU()
    RReLU(lower=0.125, upper=0.3333333333333333)
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        """``rrelu(input, lower, upper, training, inplace)``."""
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        s = f"lower={self.lower}, upper={self.upper}"
        return s + (", inplace=True" if self.inplace else "")


class PReLU(Module):
    """``prelu(input, weight)`` with a learned ``weight`` of ``num_parameters`` slopes, all
    ``init`` at first.

    >>> import strided.torch as torch
    >>> m = torch.nn.PReLU(3)
    >>> m, m.weight.shape
    (PReLU(num_parameters=3), strided.Size([3]))
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_st.empty((num_parameters,), **_factory(device, dtype)))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Set every slope to ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input):
        """``prelu(input, weight)``."""
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softmax2d(Module):
    """``softmax`` over the channels (dimension -3) of ``(N, C, H, W)`` or ``(C, H, W)``.

    >>> import strided.torch as torch
    >>> torch.nn.Softmax2d()(torch.zeros(2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input):
        """``softmax(input, -3)``."""
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        return F.softmax(input, -3)


class CosineSimilarity(Module):
    """``cosine_similarity(x1, x2, dim, eps)``.

    >>> import strided.torch as torch
    >>> torch.nn.CosineSimilarity(dim=0)(torch.tensor([1.0, 0.0]), torch.tensor([2.0, 0.0]))
    tensor(1.)
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        """``cosine_similarity(x1, x2, dim, eps)``."""
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``pairwise_distance(x1, x2, p, eps, keepdim)``.

    >>> import strided.torch as torch
    >>> torch.nn.PairwiseDistance(eps=0.0)(torch.zeros(1, 2), torch.tensor([[3.0, 4.0]]))
    tensor([5.])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        """``pairwise_distance(x1, x2, p, eps, keepdim)``."""
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


# --- dropouts ----------------------------------------------------------------------------

class _DropoutNd(Module):
    _fn = None

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        """The functional form with ``p``, ``training`` and ``inplace``."""
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """``dropout1d(input, p, training, inplace)``: whole channels of ``(N, C, L)`` / ``(C, L)``.

    >>> import strided.torch as torch
    >>> torch.nn.Dropout1d(0.2)
    Dropout1d(p=0.2, inplace=False)
    """

    _fn = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """``dropout2d(input, p, training, inplace)``: whole channels of ``(N, C, H, W)``.

    >>> import strided.torch as torch
    >>> torch.nn.Dropout2d(0.2)
    Dropout2d(p=0.2, inplace=False)
    """

    _fn = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """``dropout3d(input, p, training, inplace)``: whole channels of ``(N, C, D, H, W)``.

    >>> import strided.torch as torch
    >>> torch.nn.Dropout3d(0.2)
    Dropout3d(p=0.2, inplace=False)
    """

    _fn = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """``alpha_dropout(input, p, training)``.

    >>> import strided.torch as torch
    >>> torch.nn.AlphaDropout(0.2)
    AlphaDropout(p=0.2, inplace=False)
    """

    _fn = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """``feature_alpha_dropout(input, p, training)``.

    >>> import strided.torch as torch
    >>> torch.nn.FeatureAlphaDropout(0.2)
    FeatureAlphaDropout(p=0.2, inplace=False)
    """

    _fn = staticmethod(F.feature_alpha_dropout)


# --- embedding bags ----------------------------------------------------------------------

class EmbeddingBag(Module):
    """``embedding_bag(input, weight, offsets, ..., mode, per_sample_weights,
    include_last_offset, padding_idx)`` over a learned table drawn from ``N(0, 1)`` (the
    padding row zero).

    >>> import strided.torch as torch
    >>> torch.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2)
    EmbeddingBag(10, 3, mode='sum', padding_idx=2)
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight=None, include_last_offset: bool = False,
                 padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(_st.empty((num_embeddings, embedding_dim),
                                              **_factory(device, dtype)))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        mode: str = "mean", sparse: bool = False,
                        include_last_offset: bool = False, padding_idx=None) -> "EmbeddingBag":
        """An EmbeddingBag whose table is ``embeddings`` (2-D), PyTorch's
        ``nn.EmbeddingBag.from_pretrained``: the weight is a Parameter over the same memory,
        frozen unless ``freeze=False``.

        >>> import strided.torch as torch
        >>> bag = torch.nn.EmbeddingBag.from_pretrained(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> bag(torch.tensor([[0, 1]]))
        tensor([[2., 3.]])
        """
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode,
                  sparse=sparse, include_last_offset=include_last_offset,
                  padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag

    def reset_parameters(self) -> None:
        """Draw the table again from ``N(0, 1)``, the padding row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with _st.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        """``embedding_bag(input, weight, offsets, ...)``."""
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s


# --- containers --------------------------------------------------------------------------

class ParameterDict(Module):
    """A dict of parameters, registered in insertion order (PyTorch's ``nn.ParameterDict``);
    a plain array put in it becomes a ``Parameter``.

    >>> import strided.torch as torch
    >>> d = torch.nn.ParameterDict({"w": torch.nn.Parameter(torch.ones(2))})
    >>> list(d.keys()), [n for n, _ in d.named_parameters()]
    (['w'], ['w'])
    """

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Array:
        return self._parameters[key]

    def __setitem__(self, key: str, value) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings; got {type(key).__name__}")
        if type(value) is Array and not is_parameter(value):
            value = Parameter(value)
        self.register_parameter(key, value)

    def __delitem__(self, key: str) -> None:
        del self._parameters[key]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key) -> bool:
        return key in self._parameters

    def keys(self):
        """The keys, in insertion order."""
        return self._parameters.keys()

    def items(self):
        """The ``(key, parameter)`` pairs."""
        return self._parameters.items()

    def values(self):
        """The parameters."""
        return self._parameters.values()

    def get(self, key: str, default=None):
        """The parameter at ``key``, else ``default``."""
        return self._parameters.get(key, default)

    def pop(self, key: str) -> Array:
        """Remove and return the parameter at ``key``."""
        return self._parameters.pop(key)

    def clear(self) -> None:
        """Remove every parameter."""
        self._parameters.clear()

    def update(self, parameters) -> None:
        """Add the parameters of a mapping or of ``(key, parameter)`` pairs: an ``OrderedDict``
        or ``ParameterDict`` in its order, any other mapping sorted by key (PyTorch's
        ``ParameterDict.update``), pairs in their order."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = parameters.items()
        elif hasattr(parameters, "items"):
            items = sorted(parameters.items())
        else:
            items = parameters
        for key, p in items:
            self[key] = p

    def extra_repr(self) -> str:
        lines = []
        for k, p in self._parameters.items():
            size = "x".join(str(s) for s in p.shape)
            dev = f" ({p.device})" if p.device.type == "cuda" else ""
            lines.append(f"  ({k}): Parameter containing: [{p.dtype.name} array of size "
                         f"{size}{dev}]")
        return "\n".join(lines)


# --- buffers -----------------------------------------------------------------------------

_BUFFERS: "weakref.WeakValueDictionary[int, Array]" = weakref.WeakValueDictionary()
_PERSISTENT: "dict[int, bool]" = {}


def take_buffer_marker(x):
    """``x``'s ``persistent`` flag when ``x`` is an array that ``Buffer(...)`` returned and
    no module has registered yet (the mark is then dropped: a registered buffer is a plain
    array, as in PyTorch), else None."""
    if type(x) is not Array or _BUFFERS.get(id(x)) is not x:
        return None
    del _BUFFERS[id(x)]
    return _PERSISTENT.pop(id(x), True)


class _BufferType(type):
    def __instancecheck__(cls, obj) -> bool:
        return type(obj) is Array and _BUFFERS.get(id(obj)) is obj

    def __call__(cls, data=None, *, persistent: bool = True):
        if data is None:
            data = _st.empty(0)
        if type(data) is not Array:
            raise TypeError(f"Buffer(): data must be a strided array; got {type(data).__name__}")
        b = data.detach()
        _BUFFERS[id(b)] = b
        _PERSISTENT[id(b)] = persistent
        weakref.finalize(b, _PERSISTENT.pop, id(b), None)
        return b


class Buffer(metaclass=_BufferType):
    """A buffer marker (PyTorch 2.x's ``nn.Buffer(data, *, persistent=True)``): assigned as a
    ``Module`` attribute, the array is registered as a buffer (``persistent=False`` keeps it
    out of ``state_dict``).

    strided's ``Array`` is one final type, so, as ``Parameter``, ``Buffer(data)`` returns a
    strided array sharing ``data``'s memory (detached), remembered weakly as a buffer.

    >>> import strided.torch as torch
    >>> m = torch.nn.Module()
    >>> m.running = torch.nn.Buffer(torch.zeros(2))
    >>> [n for n, _ in m.named_buffers()], list(m.state_dict())
    (['running'], ['running'])
    """
