"""``NAdam`` (PyTorch's ``torch/optim/nadam.py``, ``_single_tensor_nadam``, step for step)."""

from __future__ import annotations

import strided as _st

from ._common18 import _check_lr, _real_param, _refuse, _scalar
from .optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam (Adam with Nesterov momentum and momentum decay ``momentum_decay``): ``mu_t =
    beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``; ``p -= lr * (1 - mu_t) / (1 -
    prod mu) * g / denom + lr * mu_{t+1} / (1 - prod mu * mu_{t+1}) * m / denom``.

    ``decoupled_weight_decay=True`` is NAdamW (``p *= 1 - lr * weight_decay``). State per
    parameter: ``step``, ``mu_product`` (a 0-d scalar, float32 unless the default dtype is
    float64, as in PyTorch), ``exp_avg``, ``exp_avg_sq``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8944], requires_grad=True)
    """

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False):
        _check_lr("NAdam", lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _refuse("NAdam", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable))

    def _update(self, group: dict) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        wd, momentum_decay = group["weight_decay"], group["momentum_decay"]
        decoupled = group["decoupled_weight_decay"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            _real_param("NAdam", p)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar(0.0)
                state["mu_product"] = _scalar(1.0)
                state["exp_avg"] = _st.zeros_like(p)
                state["exp_avg_sq"] = _st.zeros_like(p)
            grad = -grad if group["maximize"] else grad
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            mu_product, step_t = state["mu_product"], state["step"]
            step_t += 1
            step = step_t.item()
            bias_correction2 = 1 - beta2 ** step
            if wd != 0:
                if decoupled:
                    p.mul_(1 - lr * wd)
                else:
                    grad = grad.add(p, alpha=wd)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            # (in the scalar's dtype: float32 unless the default dtype is float64)
            mu_product *= mu
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(bias_correction2).sqrt()
            mu_product_next = mu_product.item() * mu_next
            denom.add_(eps)
            p.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product.item())))
            p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
