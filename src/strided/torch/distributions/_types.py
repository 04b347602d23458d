"""The few names PyTorch's distributions take from ``torch`` and ``torch.types``, spelled over strided."""

from __future__ import annotations

import math
from typing import Union

from strided._core.array import Array as Tensor, Size  # noqa: F401

inf = math.inf
nan = math.nan
Number = Union[int, float, bool]
_Number = (int, float, bool)
_size = Union[Size, list, tuple]
_dtype = object
Device = object
SymInt = int
