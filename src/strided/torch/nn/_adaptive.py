# Adapted from PyTorch 2.13's torch/nn/modules/adaptive.py (BSD-3-Clause; Copyright (c) 2016-
# Facebook, Inc and the PyTorch contributors; see LICENSES/PyTorch.txt).
"""``AdaptiveLogSoftmaxWithLoss`` (PyTorch's ``torch/nn/modules/adaptive.py``, step for step).

The classes are split by ``cutoffs`` into a head (the frequent classes plus one entry per
tail cluster) and tail clusters, each a low-rank projection
``Linear(in_features, in_features // div_value**(i+1))`` then ``Linear(.., cluster size)``.
``forward(input, target)`` returns the named tuple ``(output, loss)``: each row's target
log-probability and their negated mean; ``log_prob`` the full ``(N, n_classes)``
log-probabilities; ``predict`` the most likely class per row.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

from . import functional as F
from .modules import Linear, Module, ModuleList, Sequential

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _torch():
    import strided.torch as torch
    return torch


class AdaptiveLogSoftmaxWithLoss(Module):
    """PyTorch's ``nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value=4.0,
    head_bias=False, device=None, dtype=None)``: efficient softmax approximation (Grave et al.).

    >>> import strided.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> asm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 7])
    >>> out = asm(torch.randn(3, 8), torch.tensor([0, 5, 9]))
    >>> out.output.shape, out.loss.shape, asm.log_prob(torch.randn(2, 8)).shape
    (strided.Size([3]), strided.Size([]), strided.Size([2, 10]))
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if ((cutoffs != sorted(cutoffs)) or (min(cutoffs) <= 0) or (max(cutoffs) > (n_classes - 1))
                or (len(set(cutoffs)) != len(cutoffs)) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive "
                             "integers sorted in an increasing order, where "
                             "each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(self.in_features, self.head_size, bias=self.head_bias, **factory_kwargs)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(self.in_features // (self.div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            projection = Sequential(Linear(self.in_features, hsz, bias=False, **factory_kwargs),
                                    Linear(hsz, osz, bias=False, **factory_kwargs))
            self.tail.append(projection)

    def reset_parameters(self) -> None:
        """Re-draw the head's and every tail projection's parameters."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        """``(output, loss)``: each row's log-probability of its target (``(N,)``, or ``()`` for
        a 1-D input and 0-D target) and ``(-output).mean()``."""
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, "
                                   f"but found inputs with size {input_.size()}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, "
                                   f"but found inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)

        used_rows = 0
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low_idx = cutoff_values[i]
            high_idx = cutoff_values[i + 1]
            target_mask = (target >= low_idx) & (target < high_idx)
            row_indices = target_mask.nonzero().squeeze()
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - low_idx
                input_subset = input.index_select(0, row_indices)
                cluster_output = self.tail[i - 1](input_subset)
                cluster_index = self.shortlist_size + i - 1
                gather_inds.index_fill_(0, row_indices, cluster_index)
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()

        if used_rows != batch_size:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], "
                               f"but values in range [{target.min().item()}, {target.max().item()}] "
                               "were found. ")

        head_output = self.head(input)
        head_logprob = F.log_softmax(head_output, dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        # Note: PyTorch fills a new_empty (N, n_classes) tensor by slices; the same blocks are
        # concatenated here (the same values, and an ordinary differentiable graph).
        torch = _torch()
        head_logprob = F.log_softmax(head_output, dim=1)
        blocks = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_output = self.tail[i](input)
            cluster_logprob = F.log_softmax(cluster_output, dim=1)
            blocks.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return torch.cat(blocks, dim=1)

    def log_prob(self, input):
        """The log-probabilities of every class, ``(N, n_classes)``, for a 2-D ``input``."""
        head_output = self.head(input)
        return self._get_full_log_prob(input, head_output)

    def predict(self, input):
        """The most likely class of each row (``argmax`` of ``log_prob``, computed only for the
        rows whose head argmax is a tail cluster)."""
        torch = _torch()
        head_output = self.head(input)
        output = torch.argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        all_in_shortlist = not (not_in_shortlist.any())
        if all_in_shortlist:
            return output
        elif not_in_shortlist.all():
            log_prob = self._get_full_log_prob(input, head_output)
            return torch.argmax(log_prob, dim=1)
        else:
            log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
            output[not_in_shortlist] = torch.argmax(log_prob, dim=1)
            return output
