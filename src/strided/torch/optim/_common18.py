"""Shared pieces of the optimizers added with Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD,
Adafactor and LBFGS: PyTorch's argument checks and what strided refuses.

``_scalar`` makes a 0-d state scalar of PyTorch's ``_get_scalar_dtype()``: float64 when
the default dtype is float64, float32 otherwise, on the CPU (a step count, NAdam's
``mu_product``, ASGD's ``eta`` and ``mu``); the arithmetic done on those scalars in
PyTorch (``mu_product *= mu``) is then rounded the same way here.
"""

from __future__ import annotations

import strided as _st
from strided import Array

__all__: list = []


def _scalar(value: float) -> Array:
    """A 0-d CPU array holding ``value`` in PyTorch's scalar dtype for optimizer state."""
    dt = _st.float64 if _st.get_default_dtype() == _st.float64 else _st.float32
    return _st.full((), value, dtype=dt, device="cpu")


def _as_default_dtype(value: float) -> float:
    """``value`` rounded to the default dtype (``torch.as_tensor(value)``'s rounding)."""
    return _st.full((), value, dtype=_st.get_default_dtype(), device="cpu").item()


def _check_lr(name: str, lr, message: str | None = None) -> None:
    """PyTorch's ``lr`` checks; a tensor ``lr`` is refused (strided takes a Python number)."""
    if isinstance(lr, Array):
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        raise NotImplementedError(f"{name}: a tensor lr is not supported by strided; pass a "
                                  f"Python float (lr.item())")
    if not 0.0 <= lr:
        raise ValueError(message.format(lr) if message else f"Invalid learning rate: {lr}")


def _refuse(name: str, **flags) -> None:
    """Raise for the options that strided cannot mean as PyTorch does (capturable,
    differentiable, fused: CUDA graphs, differentiating through the step, fused kernels)."""
    on = [k for k, v in flags.items() if v]
    if on:
        raise NotImplementedError(f"{name}: {', '.join(on)}=True is not supported by strided")


def _real_param(name: str, p: Array) -> None:
    """Refuse complex parameters (PyTorch updates them as pairs of reals with view_as_real,
    which strided does not have)."""
    if p.dtype.kind == "c":
        raise NotImplementedError(f"{name}: complex parameters are not supported by strided "
                                  f"(got {p.dtype})")
