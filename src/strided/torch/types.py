"""``torch.types``: PyTorch's type aliases, over strided's classes (for annotations).

>>> from strided.torch.types import Number
>>> isinstance(1.5, Number.__args__)
True
"""

from __future__ import annotations

import os
from typing import IO, Union

from .._core.array import Array as Tensor, Size  # noqa: F401
from .._core.device import Device as _device
from .._core.storage import Storage  # noqa: F401
from ._reexport import missing as _missing

__all__ = ["Number", "Device", "FileLike", "Storage"]

Number = Union[int, float, bool]  # (PyTorch 2.13: Union[int, float, bool])
Device = Union[_device, str, int, None]
FileLike = Union[str, os.PathLike, IO[bytes]]

__getattr__ = _missing(__name__)
