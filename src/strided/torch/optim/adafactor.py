"""``Adafactor`` (PyTorch 2.5+'s ``torch/optim/_adafactor.py``, ``_single_tensor_adafactor``,
step for step)."""

from __future__ import annotations

import strided as _st

from ._common18 import _check_lr, _scalar
from .optimizer import Optimizer

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor: the second moment of a matrix (the last two dimensions) kept as a row and
    a column mean of the squared gradient (``row_var``, ``col_var``), of a vector as
    ``variance``; ``beta2_t = 1 - t ** beta2_decay``; the update ``g / sqrt(v_hat)`` is
    clipped by its RMS over ``d`` and scaled by ``max(eps2, RMS(p)) * min(lr, 1/sqrt(t))``.

    ``eps=(None, 1e-3)``: ``eps[0]`` None is the parameter dtype's machine epsilon.
    ``weight_decay`` is decoupled (``p *= 1 - lr * weight_decay``).

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    >>> opt = torch.optim.Adafactor([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8419, 1.8419], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach=None,
                 maximize: bool = False):
        _check_lr("Adafactor", lr, "Learning rate should be >= 0 but is: {}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    def _update(self, group: dict) -> None:
        lr, beta2_decay = group["lr"], group["beta2_decay"]
        d, wd = group["d"], group["weight_decay"]
        eps1, eps2 = group["eps"]
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.dtype.kind == "c":
                raise RuntimeError("Adafactor does not support complex parameters")
            grad = p.grad
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar(0.0)
                if grad.dim() > 1:
                    row_shape = list(grad.shape)
                    row_shape[-1] = 1
                    state["row_var"] = grad.new_zeros(row_shape)
                    col_shape = list(grad.shape)
                    col_shape[-2] = 1
                    state["col_var"] = grad.new_zeros(col_shape)
                else:
                    state["variance"] = _st.zeros_like(grad)
            grad = -grad if group["maximize"] else grad
            # Note: as PyTorch, eps1=None takes the first updated parameter's dtype's
            # epsilon for the rest of the group too (the variable is reassigned once).
            if eps1 is None:
                eps1 = _st.finfo(p.dtype).eps
            step_t = state["step"]
            step_t += 1
            step_float = step_t.item()
            one_minus_beta2_t = step_float ** beta2_decay
            rho_t = min(lr, 1 / (step_float ** 0.5))
            alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
            if wd != 0:
                p.mul_(1 - lr * wd)
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_mean = _norm_sq(grad, -1).div_(grad.size(-1))
                row_var.lerp_(row_mean, one_minus_beta2_t)
                col_mean = _norm_sq(grad, -2).div_(grad.size(-2))
                col_var.lerp_(col_mean, one_minus_beta2_t)
                var_estimate = row_var @ col_var
                var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2_t)
                var_estimate = _st.clone(variance)
            # (PyTorch's rsqrt_ on the CPU is 1 / sqrt: the same two roundings)
            update = var_estimate.clamp_(min=eps1 * eps1).sqrt_().reciprocal_()
            update.mul_(grad)
            denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
            p.add_(update, alpha=-alpha / denom)


def _norm_sq(x, dim: int):
    """``torch.norm(x, dim=dim, keepdim=True).square_()`` (PyTorch's order: the 2-norm,
    then squared)."""
    return x.norm(2, dim=dim, keepdim=True).square_()
