"""``RAdam`` (PyTorch's ``torch/optim/radam.py``, ``_single_tensor_radam``, step for step)."""

from __future__ import annotations

import strided as _st

from ._common18 import _check_lr, _real_param, _refuse, _scalar
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Rectified Adam: while the variance's length ``rho_t`` is at most 5 the step is
    ``p -= lr * m_hat`` (SGD with momentum); after, ``p -= lr * m_hat * r_t *
    sqrt(1 - beta2**t) / (sqrt(v) + eps)`` with the rectification ``r_t``.

    ``decoupled_weight_decay=True`` decays ``p *= 1 - lr * weight_decay`` (RAdamW). State
    per parameter: ``step``, ``exp_avg``, ``exp_avg_sq``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False):
        _check_lr("RAdam", lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _refuse("RAdam", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _update(self, group: dict) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        wd, decoupled = group["weight_decay"], group["decoupled_weight_decay"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            _real_param("RAdam", p)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar(0.0)
                state["exp_avg"] = _st.zeros_like(p)
                state["exp_avg_sq"] = _st.zeros_like(p)
            grad = -grad if group["maximize"] else grad
            exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
            step_t += 1
            step = step_t.item()
            if wd != 0:
                if decoupled:
                    p.mul_(1 - lr * wd)
                else:
                    grad = grad.add(p, alpha=wd)
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
                p.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
            else:
                p.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
