"""Warnings that point at the user's line.

``warnings.warn(..., stacklevel=n)`` names the frame ``n`` levels up; inside strided
the right ``n`` depends on the path (a property that another extension wraps, a
namespace function behind the compiled hot path, an import). ``stacklevel()``
counts the frames up to the first one outside the ``strided`` package, as
``warnings`` counts them (the import system's frames are skipped), so every warning
strided issues names the caller's file and line.
"""

from __future__ import annotations

import sys

__all__ = ["stacklevel"]


def _internal(f) -> bool:
    # warnings skips these when it walks the stack (Lib/warnings.py, _is_internal_frame)
    name = f.f_code.co_filename
    return "importlib" in name and "_bootstrap" in name


def stacklevel() -> int:
    """The ``stacklevel`` for a ``warnings.warn`` called by this function's caller that
    names the first frame outside strided."""
    f = sys._getframe(1)  # the function that warns (stacklevel=1)
    level = 1
    while f is not None and (f.f_globals.get("__name__") or "").partition(".")[0] == "strided":
        f = f.f_back
        while f is not None and _internal(f):
            f = f.f_back
        level += 1
    return level
