"""``strided.torch.utils``: PyTorch's ``torch.utils`` namespace; strided has its ``data`` and ``checkpoint`` packages.

>>> import strided.torch as torch
>>> from strided.torch.utils.data import DataLoader, TensorDataset
>>> [b[0].tolist() for b in DataLoader(TensorDataset(torch.arange(5)), batch_size=2)]
[[0, 1], [2, 3], [4]]
"""

from __future__ import annotations

from . import checkpoint, data  # noqa: F401

__all__ = ["checkpoint", "data"]


def __getattr__(name: str):
    if not name.startswith("_"):
        raise AttributeError(f"strided.torch.utils has no {name!r}: of torch.utils strided supports only "
                             f"the data package (torch.utils.data) and torch.utils.checkpoint")
    raise AttributeError(f"module 'strided.torch.utils' has no attribute {name!r}")
