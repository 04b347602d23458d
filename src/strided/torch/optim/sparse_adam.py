"""``SparseAdam``: PyTorch's lazy Adam for sparse gradients, which strided does not have.

Every gradient in strided is dense, and PyTorch's ``SparseAdam`` refuses a dense gradient
at ``step()``; so here it takes PyTorch's arguments and checks, and its ``step()`` raises
PyTorch's RuntimeError for the first parameter that has a gradient.
"""

from __future__ import annotations

import strided as _st

from ._common18 import _check_lr
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """PyTorch's ``torch.optim.SparseAdam`` (for sparse gradients): constructed with PyTorch's
    checks; ``step()`` raises RuntimeError as soon as a parameter has a (dense) gradient,
    as PyTorch does for a dense gradient; strided has no sparse gradients.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.ones(2))
    >>> opt = torch.optim.SparseAdam([w])
    >>> (w * w).sum().backward()
    >>> opt.step()
    Traceback (most recent call last):
    ...
    RuntimeError: SparseAdam does not support dense gradients, please consider Adam instead (strided has no sparse gradients)
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False):
        _check_lr("SparseAdam", lr)
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[i, j] for i, g in enumerate(self.param_groups)
                          for j, p in enumerate(g["params"]) if p.dtype.kind == "c"]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def step(self, closure=None):
        """Run ``closure`` (with grad enabled), then refuse the first dense gradient."""
        loss = None
        if closure is not None:
            with _st.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead (strided has no sparse gradients)")
        return loss
