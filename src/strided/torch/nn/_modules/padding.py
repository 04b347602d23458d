"""``torch.nn.modules.padding``: strided.torch.nn"s objects (the same ones as ``strided.torch.nn.X``)."""

from __future__ import annotations

from .. import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d,  # noqa: F401
                ConstantPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d,
                ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .._conv_modules import (_CircularPadNd, _ConstantPadNd, _ReflectionPadNd, _ReplicationPadNd,  # noqa: F401
                             _ntuple, _pair, _quadruple)
from ..._reexport import missing as _missing

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]

__getattr__ = _missing(__name__)
