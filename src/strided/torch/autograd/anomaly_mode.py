"""``torch.autograd.anomaly_mode``: ``strided.autograd.anomaly_mode``'s objects."""

from __future__ import annotations

from ...autograd.anomaly_mode import *  # noqa: F401,F403
from .._reexport import missing as _missing

__all__ = ["detect_anomaly", "set_detect_anomaly"]  # (PyTorch's; is_anomaly_enabled is torch.is_anomaly_enabled)

__getattr__ = _missing(__name__, "strided.autograd.anomaly_mode")
