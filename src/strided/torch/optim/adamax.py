"""``Adamax`` (PyTorch's ``torch/optim/adamax.py``, ``_single_tensor_adamax``, step for step)."""

from __future__ import annotations

import strided as _st

from ._common18 import _check_lr, _real_param, _refuse, _scalar
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (Adam with the infinity norm): ``m = lerp(m, g, 1 - beta1)``; ``u =
    max(beta2 * u, |g| + eps)``; ``p -= lr / (1 - beta1**t) * m / u``.

    State per parameter: ``step``, ``exp_avg``, ``exp_inf``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False):
        _check_lr("Adamax", lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _refuse("Adamax", differentiable=differentiable, capturable=capturable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update(self, group: dict) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        wd = group["weight_decay"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            _real_param("Adamax", p)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar(0.0)
                state["exp_avg"] = _st.zeros_like(p)
                state["exp_inf"] = _st.zeros_like(p)
            grad = -grad if group["maximize"] else grad
            exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
            step_t += 1
            if wd != 0:
                grad = grad.add(p, alpha=wd)
            exp_avg.lerp_(grad, 1 - beta1)
            _st.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
            clr = lr / (1 - beta1 ** step_t.item())
            p.addcdiv_(exp_avg, exp_inf, value=-clr)
