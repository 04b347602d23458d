"""``torch.nn.modules.dropout``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout  # noqa: F401
from .._loss_extra_modules import _DropoutNd  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]

__getattr__ = _missing(__name__)
