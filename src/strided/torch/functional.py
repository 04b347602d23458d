"""``torch.functional``: the functions PyTorch defines in ``torch/functional.py``, as
``strided.torch``'s own (``strided.torch.functional.einsum is strided.torch.einsum``).

>>> import strided.torch as torch
>>> import strided.torch.functional as F
>>> F.einsum("ii->", F.atleast_2d(torch.tensor(3.0))).item()
3.0
"""

from __future__ import annotations

import sys as _sys

from ._reexport import missing as _missing

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm",
           "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique",
           "unique_consecutive", "unravel_index"]

_torch = _sys.modules[__name__.rpartition(".")[0]]
globals().update({_n: getattr(_torch, _n) for _n in __all__})

__getattr__ = _missing(__name__)
