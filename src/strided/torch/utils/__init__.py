"""``strided.torch.utils``: PyTorch's ``torch.utils`` namespace; strided has its ``data`` and ``checkpoint`` packages.

>>> import strided.torch as torch
>>> from strided.torch.utils.data import DataLoader, TensorDataset
>>> [b[0].tolist() for b in DataLoader(TensorDataset(torch.arange(5)), batch_size=2)]
[[0, 1], [2, 3], [4]]
"""

from __future__ import annotations

from . import checkpoint, data  # noqa: F401

__all__ = ["checkpoint", "data", "hooks", "swap_tensors"]


def swap_tensors(t1, t2) -> None:
    """PyTorch's ``torch.utils.swap_tensors``: not in strided (NotImplementedError).

    Note: PyTorch swaps two tensors' whole C++ state (storage, shape, autograd metadata,
    ``__dict__``, class) in place, so every reference sees the other's; strided's autograd
    graph refers to arrays by object (AccumulateGrad, saved values, views' bases), so a
    faithful swap is not possible without rewriting those references.
    """
    raise NotImplementedError("swap_tensors(): strided.torch has no torch.utils.swap_tensors (strided "
                              "cannot swap two arrays' storage and autograd state in place); assign "
                              "to .data or build new tensors instead")


def __getattr__(name: str):
    if name == "hooks":
        from . import hooks
        return hooks
    if not name.startswith("_"):
        raise AttributeError(f"strided.torch.utils has no {name!r}: of torch.utils strided supports only "
                             f"the data package (torch.utils.data), torch.utils.checkpoint, "
                             f"torch.utils.hooks and swap_tensors (which raises)")
    raise AttributeError(f"module 'strided.torch.utils' has no attribute {name!r}")
