"""``torch.utils.hooks``: ``RemovableHandle``, the type of the handles strided's hook
registrations return (``handle.remove()``, ``with handle:``).

>>> import strided.torch as torch
>>> from strided.torch.utils.hooks import RemovableHandle
>>> h = torch.nn.Linear(2, 2).register_forward_hook(lambda m, i, o: None)
>>> isinstance(h, RemovableHandle)
True
"""

from __future__ import annotations

from ..nn.modules import _Handle as RemovableHandle
from .._reexport import missing as _missing

__all__ = ["RemovableHandle"]

__getattr__ = _missing(__name__)
