"""The run's summary counts docstring-presence checks apart from behaviour tests.

A test marked ``docstring`` (tests/test_docs.py::test_public_name_has_docstring,
one per public name) only checks that a docstring exists: it says nothing about
behaviour. The terminal summary ends with one line giving both counts, so a
release's test count is not inflated by them; ``-m "not docstring"`` runs the
behaviour tests alone.
"""

from __future__ import annotations

import pytest


def split_counts(reports) -> dict:
    """{'behaviour': n, 'docstring': n} of the passed test calls among ``reports``."""
    counts = {"behaviour": 0, "docstring": 0}
    for r in reports:
        if r.when == "call" and r.passed:
            counts["docstring" if "docstring" in r.keywords else "behaviour"] += 1
    return counts


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    c = split_counts(terminalreporter.stats.get("passed", []))
    if c["docstring"]:
        terminalreporter.write_line(f"passed: {c['behaviour']} behaviour tests, "
                                    f"{c['docstring']} docstring-presence checks (marker 'docstring')")
