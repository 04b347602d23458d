"""``torch.nn.modules.normalization``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["LocalResponseNorm", "LayerNorm", "GroupNorm", "RMSNorm"]

__getattr__ = _missing(__name__)
