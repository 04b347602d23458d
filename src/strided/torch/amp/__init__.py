"""``strided.torch.amp``: PyTorch's automatic-mixed-precision namespace.

``GradScaler`` is PyTorch's loss scaler, step for step. ``autocast`` means what PyTorch
means where strided can (``enabled=False``; the regions PyTorch itself disables with a
warning) and raises NotImplementedError where PyTorch would really autocast: strided has no
per-op autocast policy. ``custom_fwd`` / ``custom_bwd`` and ``is_autocast_available`` are
PyTorch's (see ``autocast_mode``).

>>> import strided.torch as torch
>>> with torch.amp.autocast("cpu", enabled=False):
...     y = torch.ones(2) * 3
>>> y.dtype
strided.float32
"""

from __future__ import annotations

from . import autocast_mode, grad_scaler  # noqa: F401
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
