"""``torch.serialization``: ``save`` and ``load`` (strided's, as ``strided.torch.save`` / ``load``).

strided's ``load(weights_only=True)`` allows a fixed set of plain-data constructors, so
PyTorch's allow-list API (``add_safe_globals``, ``safe_globals``, ``get_safe_globals``, ...)
is absent: those names raise AttributeError (``from ... import``: ImportError).

>>> import io, strided.torch as torch
>>> from strided.torch.serialization import save, load
>>> f = io.BytesIO(); save({"w": torch.ones(2)}, f); _ = f.seek(0)
>>> load(f)["w"].tolist()
[1.0, 1.0]
"""

from __future__ import annotations

from ..io._native import load, save  # noqa: F401
from ._reexport import missing as _missing

__all__ = ["save", "load"]

__getattr__ = _missing(__name__, why=" (strided's weights_only=True load allows a fixed set of "
                       "plain-data constructors and has no allow-list; load trusted files with "
                       "weights_only=False)")
