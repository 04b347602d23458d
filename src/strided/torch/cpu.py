"""``strided.torch.cpu``: PyTorch's ``torch.cpu`` -- here only its deprecated ``amp``
(``torch.cpu.amp.autocast`` / ``GradScaler``, FutureWarning, then ``torch.amp``'s).
The rest of PyTorch's module is not in strided (asking for it is an AttributeError).

>>> import strided.torch as torch
>>> torch.cpu.amp.GradScaler  # doctest: +ELLIPSIS
<class '...GradScaler'>
"""

from __future__ import annotations

import os as _os

__all__ = ["amp"]


# ``import strided.torch.cpu.amp`` as PyTorch's (this module a package whose submodules are
# the files in _cpu_modules/)
__path__ = [_os.path.join(_os.path.dirname(__file__), "_cpu_modules")]


def __getattr__(name: str):
    if name == "amp":
        from .amp._legacy import cpu_amp
        return cpu_amp
    raise AttributeError(f"module 'strided.torch.cpu' has no attribute {name!r}: strided has only "
                         f"torch.cpu.amp")
