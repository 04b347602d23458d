"""``torch.autograd.function``: ``strided.autograd.function``'s objects."""

from __future__ import annotations

from ...autograd.function import *  # noqa: F401,F403
from ...autograd.function import __all__  # noqa: F401
from .._reexport import missing as _missing

__getattr__ = _missing(__name__, "strided.autograd.function")
