"""``outcome(fn)``: what a call did, for tests that compare two paths (compiled and Python,
strided and NumPy) result for result and error for error."""

from __future__ import annotations

import numpy as np


def outcome(fn):
    """``(fn(), None)``, or ``(None, (the exception's type, its message))`` when it raised;
    NumPy's floating-point warnings off (the state strided's kernels run under)."""
    try:
        with np.errstate(all="ignore"):
            return fn(), None
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return None, (type(e), str(e))
