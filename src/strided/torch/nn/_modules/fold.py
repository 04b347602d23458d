"""``torch.nn.modules.fold``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import Fold, Unfold  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["Fold", "Unfold"]

__getattr__ = _missing(__name__)
