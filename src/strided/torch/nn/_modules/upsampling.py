"""``torch.nn.modules.upsampling``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]

__getattr__ = _missing(__name__)
