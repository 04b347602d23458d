"""``torch.nn.modules.pixelshuffle``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import PixelShuffle, PixelUnshuffle  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["PixelShuffle", "PixelUnshuffle"]

__getattr__ = _missing(__name__)
