"""``Adagrad`` (PyTorch's ``torch/optim/adagrad.py``, ``_single_tensor_adagrad``, step for step)."""

from __future__ import annotations

import strided as _st

from .optimizer import (Optimizer, _check_fused_flags, _check_fused_params, _check_range,
                        _new_step, _step_value)

__all__ = ["Adagrad"]


def _st_torch():
    import strided.torch

    return strided.torch


class Adagrad(Optimizer):
    """Adagrad: ``s += g * g``; ``p -= clr * g / (sqrt(s) + eps)``, ``clr = lr / (1 + (step - 1) * lr_decay)``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.Adagrad([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *,
                 maximize: bool = False, differentiable: bool = False, fused=None):
        _check_range("learning rate", lr)
        _check_range("lr_decay value", lr_decay)
        _check_range("weight_decay value", weight_decay)
        _check_range("initial_accumulator_value value", initial_accumulator_value)
        _check_range("epsilon value", eps)
        if differentiable and not fused:
            raise NotImplementedError("Adagrad: differentiable is not supported by strided")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        _check_fused_flags(fused, foreach, differentiable)
        # Note: as PyTorch, Adagrad's state exists from construction (step 0, the sums), each
        # sum filled with the constructor's initial_accumulator_value (a group's own value is
        # not read, as in PyTorch).
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group, initial_accumulator_value)

    def _init_state(self, p, group: dict, value: float) -> None:
        """Step 0 and a sum filled with ``value`` (``value + value*1j`` for a complex
        parameter, as PyTorch)."""
        state = self.state[p]
        state["step"] = _new_step(group.get("fused"), p.device)
        if _st.isdtype(p.dtype, "complex floating"):
            value = complex(value, value)
        state["sum"] = _st.full_like(p, value)

    def _update(self, group: dict) -> None:
        lr, lr_decay, eps, wd = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
        _check_fused_params(group)
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = -p.grad if group["maximize"] else p.grad
            state = self.state[p]
            if len(state) == 0:
                # (a parameter of a group added by add_param_group: PyTorch makes its state at
                # its first step, from the constructor's defaults)
                self._init_state(p, group, self.defaults["initial_accumulator_value"])
            step = _step_value(state)
            if wd != 0:
                grad = grad.add(p, alpha=wd)
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = state["sum"]
            if _st.isdtype(p.dtype, "complex floating"):
                # (as PyTorch: a complex parameter is updated as pairs of reals)
                grad, state_sum, p = (_st_torch().view_as_real(a) for a in (grad, state_sum, p))
            state_sum.addcmul_(grad, grad, value=1)
            std = state_sum.sqrt().add_(eps)
            p.addcdiv_(grad, std, value=-clr)
