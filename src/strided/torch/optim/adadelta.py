"""``Adadelta`` (PyTorch's ``torch/optim/adadelta.py``, ``_single_tensor_adadelta``, step
for step)."""

from __future__ import annotations

import strided as _st

from ._common18 import _check_lr, _real_param, _refuse, _scalar
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: ``v = rho * v + (1 - rho) * g * g``; ``delta = sqrt(u + eps) / sqrt(v + eps)
    * g``; ``u = rho * u + (1 - rho) * delta * delta``; ``p -= lr * delta``.

    State per parameter: ``step``, ``square_avg``, ``acc_delta`` (PyTorch's keys).

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.Adadelta([w], lr=1.0)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9968], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach=None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False):
        _check_lr("Adadelta", lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _refuse("Adadelta", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable,
                                      foreach=foreach, differentiable=differentiable))

    def _update(self, group: dict) -> None:
        lr, rho, eps, wd = group["lr"], group["rho"], group["eps"], group["weight_decay"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            _real_param("Adadelta", p)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar(0.0)
                state["square_avg"] = _st.zeros_like(p)
                state["acc_delta"] = _st.zeros_like(p)
            state["step"] += 1
            grad = -grad if group["maximize"] else grad
            if wd != 0:
                grad = grad.add(p, alpha=wd)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_()
            delta.div_(std).mul_(grad)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-lr)
