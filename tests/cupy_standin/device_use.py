"""A pytest plugin that finds the test modules that never touch the simulated device.

The stand-in leg of CI (``STRIDED_DEFAULT_DEVICE=cuda`` over this stand-in) runs the suite
again for what the default device changes; a module none of whose tests touches device
memory there runs the first (cpu) leg's code again, and is marked ``host_pinned`` (the leg
deselects it). Which modules those are is measured, not guessed: the stand-in calls
``_cupy_differences.device_used()`` wherever it touches device memory, and this plugin
records, test by test, whether that happened. Run it as the stand-in leg runs::

    PYTHONPATH=tests/cupy_standin:src STRIDED_DEFAULT_DEVICE=cuda \\
        python -m pytest -n 2 -p device_use --ignore=tests/integration --ignore=tests/test_docs.py

and at the end it prints the modules with no device use that are not marked, and the marked
modules in which a test did use the device (mark or unmark them by hand: a module whose test
runs a subprocess on the default device, or reads the default device itself, stays
unmarked). Under xdist each worker writes its records to ``$DEVICE_USE_DIR`` (default: a
folder in the temporary directory) and the controller reads them.
"""

from __future__ import annotations

import collections
import json
import os
import tempfile

import pytest

_DIR = os.environ.get("DEVICE_USE_DIR") or os.path.join(tempfile.gettempdir(), "strided-device-use")
_records: dict[str, bool] = {}
_marked: set[str] = set()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    from cupy import _cupy_differences as diff  # (the stand-in: on PYTHONPATH in this run)

    diff._state["used"] = False
    yield
    _records[item.nodeid] = diff._state["used"]
    if item.get_closest_marker("host_pinned") is not None:
        _marked.add(item.nodeid.split("::")[0])
    diff._state["used"] = True  # (the fork rule as it was: the device has been used)


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # (the controller: a clean folder)
        os.makedirs(_DIR, exist_ok=True)
        for f in os.listdir(_DIR):
            os.remove(os.path.join(_DIR, f))


def pytest_sessionfinish(session):
    worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
    with open(os.path.join(_DIR, f"{worker}.json"), "w") as f:
        json.dump({"records": _records, "marked": sorted(_marked)}, f)


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput"):
        return
    records, marked = {}, set()
    for name in os.listdir(_DIR):
        with open(os.path.join(_DIR, name)) as f:
            d = json.load(f)
        records.update(d["records"])
        marked.update(d["marked"])
    used, count = collections.Counter(), collections.Counter()
    for nodeid, u in records.items():
        module = nodeid.split("::")[0]
        count[module] += 1
        used[module] += u
    tr = terminalreporter
    tr.section("device use (tests/cupy_standin/device_use.py)")
    tr.write_line(f"{len(records)} tests in {len(count)} modules; {sum(records.values())} touched the device")
    for module in sorted(m for m in count if not used[m] and m not in marked):
        tr.write_line(f"  no device use, not host_pinned: {module} ({count[module]} tests)")
    for module in sorted(m for m in count if used[m] and m in marked):
        tr.write_line(f"  host_pinned, but {used[module]} of {count[module]} tests used the device: {module}")
