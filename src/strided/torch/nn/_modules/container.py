"""``torch.nn.modules.container``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]

__getattr__ = _missing(__name__)
