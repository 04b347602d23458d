"""``torch.autograd.profiler``: only ``record_function``, which labels a region for a profiler.

strided has no profiler, so no profiler is ever running and ``record_function`` records
nothing -- what PyTorch's does when no profiler is active. ``profile`` and the others raise
AttributeError (``from ... import profile``: ImportError).

>>> import strided.torch as torch
>>> from strided.torch.autograd.profiler import record_function
>>> with record_function("forward"):
...     y = torch.ones(2) * 2
>>> y.tolist()
[2.0, 2.0]
"""

from __future__ import annotations

import contextlib

from .._reexport import missing as _missing

__all__ = ["record_function"]


class record_function(contextlib.ContextDecorator):
    """Context manager and decorator labelling a region ``name`` (a no-op: no profiler runs)."""

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self.args = args

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


__getattr__ = _missing(__name__, why=" (strided has no profiler)")
