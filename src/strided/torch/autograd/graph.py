"""``torch.autograd.graph``: ``strided.autograd.graph``'s objects."""

from __future__ import annotations

from ...autograd.graph import *  # noqa: F401,F403
from ...autograd.graph import __all__  # noqa: F401
from .._reexport import missing as _missing

__getattr__ = _missing(__name__, "strided.autograd.graph")
