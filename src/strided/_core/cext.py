"""The optional C extensions (built by ``pip install -e .``; see setup.py).

One switch for all of them: ``STRIDED_NO_CEXT=1`` in the environment, read when
strided is imported, runs the pure-Python fallbacks, as a machine without a C
compiler does (CI runs the whole test suite both ways). A comma-separated list
of module names (``STRIDED_NO_CEXT=_cpool``) turns off those only: the tests
compare one compiled part with its Python definition that way.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os

_SWITCH = os.environ.get("STRIDED_NO_CEXT", "")
DISABLED = _SWITCH not in ("", "0") and not _SWITCH.startswith("_")
_OFF = frozenset(_SWITCH.split(",")) if _SWITCH.startswith("_") else frozenset()


def load(name: str):
    """The extension module ``strided._csrc.<name>``, or None: not built, or turned off
    (STRIDED_NO_CEXT=1, or a list that names it)."""
    if DISABLED or name in _OFF:
        return None
    try:
        mod = importlib.import_module(f"strided._csrc.{name}")
    except ImportError:
        return None
    # Note: where the build failed, ``_chot``'s source folder (src/strided/_csrc/_chot/, no
    # __init__.py) imports as a namespace package of that name: that is no extension. (On a
    # GPU machine whose compiler could not link with -flto, ``import strided`` raised
    # AttributeError on it instead of running the Python fallbacks.)
    file = getattr(mod, "__file__", None)
    if not file or not file.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
        return None
    return mod
