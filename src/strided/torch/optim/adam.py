"""``Adam`` and ``AdamW``: adaptive moment estimation (with decoupled weight decay).

PyTorch's single-array algorithm (``torch/optim/adam.py``, ``_single_tensor_adam``),
step for step: ``exp_avg.lerp_(g, 1 - beta1)``, ``exp_avg_sq = beta2 * exp_avg_sq +
(1 - beta2) * g * g``, bias corrections from the float step count, ``p -=
(lr / bc1) * exp_avg / (sqrt(v) / sqrt(bc2) + eps)``.
"""

from __future__ import annotations

import strided as _st

import numpy as np

from .optimizer import (Optimizer, _check_fused_flags, _check_fused_params, _check_range,
                        _new_step, _step_value, host, written)

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (PyTorch's ``torch.optim.Adam``): ``amsgrad``, ``weight_decay`` (L2, or
    decoupled with ``decoupled_weight_decay=True``), ``maximize``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused=None, decoupled_weight_decay: bool = False):
        _check_range("learning rate", lr)
        _check_range("epsilon value", eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        _check_range("weight_decay value", weight_decay)
        if capturable or (differentiable and not fused):
            raise NotImplementedError(f"{type(self).__name__}: capturable and differentiable "
                                      "are not supported by strided")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused, decoupled_weight_decay=decoupled_weight_decay))
        _check_fused_flags(fused, foreach, differentiable)

    def _update(self, group: dict) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        wd, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
        decoupled = group["decoupled_weight_decay"]
        _check_fused_params(group)
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = -p.grad if maximize else p.grad
            state = self.state[p]
            if not state:
                state["step"] = _new_step(group.get("fused"), p.device)
                state["exp_avg"] = _st.zeros_like(p)
                state["exp_avg_sq"] = _st.zeros_like(p)
                if amsgrad:
                    state["max_exp_avg_sq"] = _st.zeros_like(p)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            step = _step_value(state)
            # (not for a 0-d parameter: NumPy's ufuncs return a scalar, not an array, for 0-d
            # operands, and _host_update writes into its temporaries with out=)
            if p.ndim and host(p, p.grad, exp_avg, exp_avg_sq,
                               *((state["max_exp_avg_sq"],) if amsgrad else ())):
                _host_update(p, state, step, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled)
                continue
            if wd != 0:
                if decoupled:
                    p.mul_(1 - lr * wd)
                else:
                    grad = grad.add(p, alpha=wd)
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bc2_sqrt = bias_correction2 ** 0.5
            if amsgrad:
                m = state["max_exp_avg_sq"]
                _st.maximum(m, exp_avg_sq, out=m)
                denom = (m.sqrt() / bc2_sqrt).add_(eps)
            else:
                denom = (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
            p.addcdiv_(exp_avg, denom, value=-step_size)


def _host_update(p, state, step, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled) -> None:
    """``_update``'s body for one parameter on the host (``optimizer.host``): the in-place
    methods' NumPy calls in their order (``lerp_(g, w)`` is ``a + w * (g - a)``, or
    ``g - (g - a) * (1 - w)`` for ``|w| >= 0.5``,
    ``addcmul_(g, g, value=v)`` is ``+= (g * v) * g``, ``addcdiv_(a, d, value=v)`` is
    ``+= (a * v) / d``)."""
    g = p.grad._get_native()
    if maximize:
        g = np.negative(g)
    if wd != 0:
        if decoupled:
            w = written(p, "Adam.step()")
            np.multiply(w, 1 - lr * wd, out=w)
        else:
            g = np.add(g, np.multiply(p._get_native(), wd))
    ea = written(state["exp_avg"], "Adam.step()")
    t = np.subtract(g, ea)
    w1 = 1 - beta1
    if abs(w1) < 0.5:  # (lerp's two sides, PyTorch's Lerp.h: lerp(a, g, 1) is g exactly)
        np.multiply(t, w1, out=t)
        np.add(ea, t, out=ea)
    else:
        np.multiply(t, 1 - w1, out=t)
        np.subtract(g, t, out=ea)
    es = written(state["exp_avg_sq"], "Adam.step()")
    np.multiply(es, beta2, out=es)
    v = 1 - beta2
    t = np.multiply(g, v) if v != 1 else g.copy()
    np.multiply(t, g, out=t)
    np.add(es, t, out=es)
    step_size = lr / (1 - beta1 ** step)
    bc2_sqrt = (1 - beta2 ** step) ** 0.5
    if amsgrad:
        m = written(state["max_exp_avg_sq"], "Adam.step()")
        np.maximum(m, es, out=m)
        es = m
    d = np.sqrt(es)
    np.divide(d, bc2_sqrt, out=d)
    np.add(d, eps, out=d)
    v = -step_size
    t = np.multiply(ea, v) if v != 1 else ea.copy()
    np.divide(t, d, out=t)
    w = written(p, "Adam.step()")
    np.add(w, t, out=w)


class AdamW(Adam):
    """Adam with decoupled weight decay (PyTorch's ``torch.optim.AdamW``;
    ``weight_decay`` defaults to 0.01): ``p *= 1 - lr * weight_decay`` before the step.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.AdamW([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8990], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach=None, capturable: bool = False, differentiable: bool = False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)
