"""``torch.autograd.grad_mode``: the grad-mode context managers (``strided.autograd``'s)."""

from __future__ import annotations

from ...autograd import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401
from .._reexport import missing as _missing

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]

__getattr__ = _missing(__name__)
