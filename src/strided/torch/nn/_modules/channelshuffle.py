"""``torch.nn.modules.channelshuffle``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import ChannelShuffle  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["ChannelShuffle"]

__getattr__ = _missing(__name__)
