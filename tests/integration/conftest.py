"""Integration tests: strided inside array-api-compat, array-api-extra, SciPy and scikit-learn.

SciPy (and scikit-learn, through SciPy) read ``SCIPY_ARRAY_API`` once, when
SciPy is first imported, so it is set here, at import time, before any test
module of this directory imports them. The variable then holds for the whole
test session; no other test of ours imports SciPy, and NumPy inputs keep their
behaviour under it (SciPy only validates array-likes more strictly).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

os.environ["SCIPY_ARRAY_API"] = "1"

if "scipy" in sys.modules:  # imported before this file by something else in the session
    from scipy._lib import _array_api_override

    if not _array_api_override.SCIPY_ARRAY_API:
        raise pytest.UsageError(
            "SciPy was imported before tests/integration/conftest.py could set "
            "SCIPY_ARRAY_API=1; run with SCIPY_ARRAY_API=1 in the environment")


@pytest.fixture(params=["float32", "float64"])
def dtype_name(request):
    """The floating dtype under test, by name (the same name in NumPy and strided)."""
    return request.param

