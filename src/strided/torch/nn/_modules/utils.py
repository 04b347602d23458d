"""``torch.nn.modules.utils``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .._conv_modules import _ntuple, _pair, _quadruple, _single, _triple  # noqa: F401
from ..._reexport import missing as _missing

__all__ = []

__getattr__ = _missing(__name__)
