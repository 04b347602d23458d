"""The optional C extensions (built by ``pip install -e .``; see setup.py).

One switch for all of them: ``STRIDED_NO_CEXT=1`` in the environment, read when
strided is imported, runs the pure-Python fallbacks, as a machine without a C
compiler does (CI runs the whole test suite both ways).
"""

from __future__ import annotations

import importlib
import os

DISABLED = os.environ.get("STRIDED_NO_CEXT", "") not in ("", "0")


def load(name: str):
    """The extension module ``strided._csrc.<name>``, or None: not built, or STRIDED_NO_CEXT=1."""
    if DISABLED:
        return None
    try:
        return importlib.import_module(f"strided._csrc.{name}")
    except ImportError:
        return None
