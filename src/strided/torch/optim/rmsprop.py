"""``RMSprop`` (PyTorch's ``torch/optim/rmsprop.py``, ``_single_tensor_rmsprop``, step for step)."""

from __future__ import annotations

import strided as _st

from .optimizer import Optimizer, _check_range, _new_step, _step_value

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop: ``v = alpha * v + (1 - alpha) * g * g``; ``p -= lr * g / (sqrt(v) + eps)``.

    ``centered`` subtracts the squared running mean of ``g`` from ``v``;
    ``momentum`` keeps a buffer ``buf = momentum * buf + g / (sqrt(v) + eps)``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False):
        _check_range("learning rate", lr)
        _check_range("epsilon value", eps)
        _check_range("momentum value", momentum)
        _check_range("weight_decay value", weight_decay)
        _check_range("alpha value", alpha)
        if capturable or differentiable:
            raise NotImplementedError("RMSprop: capturable and differentiable are not supported "
                                      "by strided")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))

    def _update(self, group: dict) -> None:
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = -p.grad if group["maximize"] else p.grad
            state = self.state[p]
            if not state:
                state["step"] = _new_step()
                state["square_avg"] = _st.zeros_like(p)
                if momentum > 0:
                    state["momentum_buffer"] = _st.zeros_like(p)
                if centered:
                    state["grad_avg"] = _st.zeros_like(p)
            _step_value(state)
            if wd != 0:
                grad = grad.add(p, alpha=wd)
            square_avg = state["square_avg"]
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if centered:
                grad_avg = state["grad_avg"]
                grad_avg.lerp_(grad, 1 - alpha)
                avg = _st.clone(square_avg).addcmul_(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).addcdiv_(grad, avg)
                p.add_(buf, alpha=-lr)
            else:
                p.addcdiv_(grad, avg, value=-lr)
