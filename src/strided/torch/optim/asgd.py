"""``ASGD`` (PyTorch's ``torch/optim/asgd.py``, ``_single_tensor_asgd``, step for step)."""

from __future__ import annotations

import strided as _st

from ._common18 import _as_default_dtype, _check_lr, _real_param, _refuse, _scalar
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD: ``p = p * (1 - lambd * eta) - eta * g``; the average ``ax`` follows
    ``p`` (``ax += mu * (p - ax)``, a copy while ``mu == 1``); then ``eta = lr / (1 +
    lambd * lr * t) ** alpha`` and ``mu = 1 / max(1, t - t0)``.

    State per parameter: ``step``, ``eta``, ``mu`` (0-d scalars, float32 unless the default
    dtype is float64, as in PyTorch), ``ax``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach=None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False):
        _check_lr("ASGD", lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _refuse("ASGD", differentiable=differentiable, capturable=capturable)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, group: dict) -> None:
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        wd = group["weight_decay"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            _real_param("ASGD", p)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar(0.0)
                state["eta"] = _scalar(lr)
                state["mu"] = _scalar(1.0)
                state["ax"] = _st.zeros_like(p)
            grad = -grad if group["maximize"] else grad
            mu, ax, eta, step_t = state["mu"], state["ax"], state["eta"], state["step"]
            step_t += 1
            if wd != 0:
                grad = grad.add(p, alpha=wd)
            eta_value = eta.item()
            p.mul_(1 - lambd * eta_value)
            p.add_(grad, alpha=-eta_value)
            mu_value = mu.item()
            if mu_value != 1:
                # (PyTorch multiplies by the 0-d CPU tensor mu; its value as a Python number
                # gives the same product and keeps a parameter on another device working)
                ax.add_(p.sub(ax).mul_(mu_value))
            else:
                ax.copy_(p)
            step = step_t.item()
            # Note: PyTorch writes eta.copy_(torch.as_tensor(value)): the Python float
            # rounded to the default dtype, then to eta's (float64 after a load_state_dict,
            # which casts eta and mu to the parameter's dtype); the same two roundings here.
            eta.fill_(_as_default_dtype(lr / ((1 + lambd * lr * step) ** alpha)))
            mu.fill_(_as_default_dtype(1 / max(1, step - t0)))
