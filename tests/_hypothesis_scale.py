"""STRIDED_HYPOTHESIS_SCALE=f (0 < f <= 1): every Hypothesis test runs f times its max_examples.

At least 10, or the test's own count when that is smaller. CI's second, third and fourth
passes over the suite (CPython 3.12 on the oldest NumPy, no C extensions, the cuda
stand-in) set it: the first pass runs every test's full count, the later ones the same
tests on other builds. Hypothesis reads a test's settings when the test runs, so
replacing them after collection is enough; every other setting of the test is kept.
(tests/conftest.py imports the hook; tests/test_hypothesis_scale.py checks it.)
"""
import os

import pytest


def pytest_collection_modifyitems(config, items):
    raw = os.environ.get("STRIDED_HYPOTHESIS_SCALE", "").strip()
    if not raw:
        return
    try:
        scale = float(raw)
    except ValueError:
        raise pytest.UsageError(f"STRIDED_HYPOTHESIS_SCALE={raw!r} is not a number") from None
    if not 0 < scale <= 1:
        raise pytest.UsageError(f"STRIDED_HYPOTHESIS_SCALE={raw!r} is not in (0, 1]")
    from hypothesis import settings

    done = set()
    for item in items:
        fn = getattr(item, "obj", None)
        fn = getattr(fn, "__func__", fn)
        old = getattr(fn, "_hypothesis_internal_use_settings", None)
        if old is None or id(fn) in done:
            continue
        done.add(id(fn))
        n = old.max_examples
        fn._hypothesis_internal_use_settings = settings(old, max_examples=min(n, max(10, int(n * scale))))
