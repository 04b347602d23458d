"""``torch.autograd.functional``: ``strided.autograd.functional``'s objects."""

from __future__ import annotations

from ...autograd.functional import *  # noqa: F401,F403
from ...autograd.functional import __all__  # noqa: F401
from .._reexport import missing as _missing

__getattr__ = _missing(__name__, "strided.autograd.functional")
