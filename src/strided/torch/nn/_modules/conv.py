"""``torch.nn.modules.conv``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,  # noqa: F401
                LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
                LazyConvTranspose3d)
from .._conv_modules import _ConvNd, _ConvTransposeNd, _pair, _single, _triple  # noqa: F401
from .._lazy import _LazyConvXdMixin  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
           "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d"]

__getattr__ = _missing(__name__)
