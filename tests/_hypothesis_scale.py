"""STRIDED_HYPOTHESIS_SCALE=f (0 < f <= 1): every Hypothesis test runs f times its max_examples.

At least 10, or the test's own count when that is smaller. CI's second, third and fourth
passes over the suite (CPython 3.12 on the oldest NumPy, no C extensions, the cuda
stand-in) set it: the first pass runs every test's full count, the later ones the same
tests on other builds. Hypothesis reads a test's settings when the test runs, so
replacing them after collection is enough; every other setting of the test is kept.
(tests/conftest.py imports the hook; tests/test_hypothesis_scale.py checks it.)

The suite's other drawn budgets follow the same factor through ``budget``: the fuzzed files of
tests/reliability/test_fuzz_loaders.py and the killed savers of test_save_faults.py.
"""
import os

import pytest


def _scale():
    """The factor, or None where unset; a value that is not a number in (0, 1] is a usage
    error naming the variable (the hook below, and ``budget`` at a module's import)."""
    raw = os.environ.get("STRIDED_HYPOTHESIS_SCALE", "").strip()
    if not raw:
        return None
    try:
        scale = float(raw)
    except ValueError:
        raise pytest.UsageError(f"STRIDED_HYPOTHESIS_SCALE={raw!r} is not a number") from None
    if not 0 < scale <= 1:
        raise pytest.UsageError(f"STRIDED_HYPOTHESIS_SCALE={raw!r} is not in (0, 1]")
    return scale


def budget(n: int, floor: int) -> int:
    """``n`` cases on the first pass, ``n`` times the factor (at least ``floor``) on the later
    ones: a count of drawn cases that is not a Hypothesis test's."""
    scale = _scale()
    return n if scale is None else min(n, max(floor, int(n * scale)))


def pytest_collection_modifyitems(config, items):
    scale = _scale()
    if scale is None:
        return
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
