"""``strided.torch.utils``: PyTorch's ``torch.utils`` namespace; strided has its ``data`` package.

>>> import strided.torch as torch
>>> from strided.torch.utils.data import DataLoader, TensorDataset
>>> [b[0].tolist() for b in DataLoader(TensorDataset(torch.arange(5)), batch_size=2)]
[[0, 1], [2, 3], [4]]
"""

from __future__ import annotations

from . import data  # noqa: F401

__all__ = ["data"]
