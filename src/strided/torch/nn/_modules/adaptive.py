"""``torch.nn.modules.adaptive``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .._adaptive import _ASMoutput  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

__getattr__ = _missing(__name__)
