"""``torch.nn.modules.batchnorm``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import (BatchNorm1d, BatchNorm2d, BatchNorm3d, LazyBatchNorm1d, LazyBatchNorm2d,  # noqa: F401
                LazyBatchNorm3d)
from .._norm_modules import _BatchNorm, _NormBase  # noqa: F401
from .._lazy import _LazyNormBase  # noqa: F401
from ..._reexport import missing as _missing

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d",
           "LazyBatchNorm3d"]

__getattr__ = _missing(__name__)
