# Adapted from PyTorch 2.13's torch/optim/_muon.py (BSD-3-Clause; Copyright (c) 2016- Facebook,
# Inc and the PyTorch contributors; see LICENSES/PyTorch.txt).
"""``Muon`` (PyTorch's ``torch/optim/_muon.py``, ``_single_tensor_muon``, step for step).

MomentUm Orthogonalized by Newton-Schulz, for 2-D parameters: ``buf = lerp(buf, g, 1 -
momentum)``; the update (``lerp(g, buf, momentum)`` with Nesterov, else ``buf``) is
orthogonalized by ``ns_steps`` Newton-Schulz iterations; ``p *= 1 - lr * weight_decay``;
``p -= adjusted_lr * update``.

PyTorch runs the Newton-Schulz iterations in bfloat16, which strided has no dtype for. They
run here in float32 with every result rounded to bfloat16 (round to nearest even, after
PyTorch's float64 -> float32 -> bfloat16 conversion of the gradient), as PyTorch's CPU bfloat16
kernels compute in float32 and round each result once: the same numbers, except where a
float32 sum in a different order lands on the other side of a bfloat16 rounding boundary.
"""

from __future__ import annotations

import math

import strided as _st

from ._common18 import _check_lr
from .optimizer import Optimizer

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _bfloat16(x):
    """``x`` rounded to bfloat16 (round to nearest even), held in a float32 array (PyTorch's
    ``x.bfloat16()``: a float64 ``x`` goes through float32 first)."""
    if x.dtype != _st.float32:
        x = x.to(_st.float32)
    bits = x.view(_st.int32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) & -65536).view(_st.float32)


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps: int, eps: float):
    """PyTorch's quintic Newton-Schulz orthogonalization of a 2-D ``grad``, each step's result
    rounded to bfloat16 (float32 arrays holding bfloat16 values)."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    ortho_grad = _bfloat16(grad)
    if grad.shape[0] > grad.shape[1]:
        ortho_grad = ortho_grad.T
    norm = _bfloat16(_bfloat16(_st.linalg.vector_norm(ortho_grad)).clamp(min=eps))
    ortho_grad = _bfloat16(ortho_grad / norm)
    for _ in range(ns_steps):
        gram_matrix = _bfloat16(ortho_grad @ ortho_grad.T)
        gram_update = _bfloat16(b * gram_matrix + c * (gram_matrix @ gram_matrix))
        ortho_grad = _bfloat16(a * ortho_grad + gram_update @ ortho_grad)
    if grad.shape[0] > grad.shape[1]:
        ortho_grad = ortho_grad.T
    return ortho_grad


def _adjust_lr(lr: float, adjust_lr_fn, param_shape) -> float:
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        adjusted_ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        adjusted_ratio = 0.2 * math.sqrt(max(A, B))
    else:
        adjusted_ratio = 1.0
    return lr * adjusted_ratio


class Muon(Optimizer):
    """PyTorch's ``torch.optim.Muon(params, lr=1e-3, weight_decay=0.1, momentum=0.95,
    nesterov=True, ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5,
    adjust_lr_fn=None)`` for 2-D parameters; the Newton-Schulz steps rounded to bfloat16 as
    PyTorch's (see the module's docstring).

    State per parameter: ``momentum_buffer``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([[3.0, 0.0], [0.0, 1.0]]))
    >>> opt = torch.optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.shape, opt.state[w]["momentum_buffer"].shape
    (strided.Size([2, 2]), strided.Size([2, 2]))
    """

    def __init__(self, params, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn=None) -> None:
        _check_lr("Muon", lr, "Learning rate should be >= 0 but is: {}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter "
                                     f"with size: {p.size()}")

    def _update(self, group: dict) -> None:
        lr, weight_decay, momentum = group["lr"], group["weight_decay"], group["momentum"]
        params, grads, bufs = [], [], []
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.dtype.kind == "c":
                raise RuntimeError("Muon does not support complex parameters")
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = _st.zeros_like(p.grad)
            bufs.append(state["momentum_buffer"])
        for param, grad, buf in zip(params, grads, bufs):
            if grad.ndim != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            buf.lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"],
                                                 group["eps"])
            adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], param.shape)
            param.mul_(1 - lr * weight_decay)
            param.add_(update.to(param.dtype), alpha=-adjusted_lr)
