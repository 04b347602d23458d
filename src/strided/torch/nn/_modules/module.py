"""``torch.nn.modules.module``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import Module  # noqa: F401
from ..modules import _IncompatibleKeys, _WrappedHook  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["Module"]

__getattr__ = _missing(__name__)
