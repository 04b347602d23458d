"""``torch.nn.modules.linear``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import Bilinear, Identity, LazyLinear, Linear  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]

__getattr__ = _missing(__name__)
