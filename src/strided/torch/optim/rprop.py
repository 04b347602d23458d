"""``Rprop`` (PyTorch's ``torch/optim/rprop.py``, ``_single_tensor_rprop``, step for step)."""

from __future__ import annotations

import strided as _st

from ._common18 import _check_lr, _real_param, _refuse, _scalar
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Resilient backpropagation: each element's step size grows by ``etas[1]`` while its
    gradient keeps its sign and shrinks by ``etas[0]`` when it flips (clamped to
    ``step_sizes``); ``p -= sign(g) * step_size``, and a flipped element skips its step
    (its remembered gradient is set to 0).

    State per parameter: ``step``, ``prev``, ``step_size`` (starting at ``lr``).

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False):
        _check_lr("Rprop", lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _refuse("Rprop", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, group: dict) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            _real_param("Rprop", p)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar(0.0)
                state["prev"] = _st.zeros_like(p)
                state["step_size"] = _st.full_like(grad, group["lr"])
            grad = -grad if group["maximize"] else grad
            prev, step_size = state["prev"], state["step_size"]
            state["step"] += 1
            sign = grad.mul(prev).sign()
            sign[sign.gt(0)] = etaplus
            sign[sign.lt(0)] = etaminus
            sign[sign.eq(0)] = 1
            step_size.mul_(sign).clamp_(step_size_min, step_size_max)
            grad = grad.clone()
            grad[sign.eq(etaminus)] = 0
            p.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)
