"""The Python functions a call enters, for tests that a compiled door answers a case.

``python_calls(fn)`` runs ``fn()`` under ``sys.setprofile`` and returns its result and
the names of the Python functions entered during it, in order (C functions are not
listed: the hook's ``"call"`` event is for Python frames only). A test asserts that a
name it knows (the Python definition the compiled door replaces) is not among them.
"""

from __future__ import annotations

import gc
import sys


def python_calls(fn):
    """``(fn(), [the co_name of every Python frame entered while it ran])``; ``fn``'s
    own frame (a lambda holding the calls) is not listed."""
    seen = []
    own = getattr(fn, "__code__", None)

    def trace(frame, event, arg):
        if event == "call" and frame.f_code is not own:
            seen.append(frame.f_code.co_name)

    # (no collection may run inside: it would list the finalizers it runs, a flaky extra frame;
    # a gc.collect() first is not needed for that, and cost ~1 s in a worker of the whole suite)
    was = gc.isenabled()
    gc.disable()
    sys.setprofile(trace)
    try:
        result = fn()
    finally:
        sys.setprofile(None)
        if was:
            gc.enable()
    return result, seen
