"""``strided.torch.cpu``: PyTorch's ``torch.cpu`` -- here only its deprecated ``amp``
(``torch.cpu.amp.autocast`` / ``GradScaler``, FutureWarning, then ``torch.amp``'s).
The rest of PyTorch's module is not in strided (asking for it is an AttributeError).

>>> import strided.torch as torch
>>> torch.cpu.amp.GradScaler  # doctest: +ELLIPSIS
<class '...GradScaler'>
"""

from __future__ import annotations

__all__ = ["amp"]


def __getattr__(name: str):
    if name == "amp":
        from .amp._legacy import cpu_amp
        return cpu_amp
    raise AttributeError(f"module 'strided.torch.cpu' has no attribute {name!r}: strided has only "
                         f"torch.cpu.amp")
