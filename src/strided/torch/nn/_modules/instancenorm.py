"""``torch.nn.modules.instancenorm``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LazyInstanceNorm1d,  # noqa: F401
                LazyInstanceNorm2d, LazyInstanceNorm3d)
from .._lazy import _LazyNormBase  # noqa: F401
from .._norm_modules import _InstanceNorm, _NormBase  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

__getattr__ = _missing(__name__)
