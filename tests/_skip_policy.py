"""Under CI, a test skipped because an installed extra is missing fails the run.

The parity tests compare with PyTorch, the HDF5 tests with h5py, the ecosystem
tests with SciPy, scikit-learn, Dask, ...: each skips where its library is not
installed, which is right on a user's machine and wrong in CI, where a failed
install (a PyTorch wheel that didn't resolve) would turn hundreds of parity
cases into skips and leave the run green. So when the ``CI`` environment
variable is set (``CI=true``, as GitHub Actions, GitLab and .ci/run set it), a
skip or a skipped module whose reason is a missing module of the extras that
CI installs (pyproject's ``test``, ``scale`` and ``docs``) is reported as a
failure naming the module.

Not affected: CuPy (``cupy``, ``cupyx``: a GPU package, absent on a CPU
machine by design; its tests skip as before), skips for other reasons (no C
compiler, no fork, a GPU present, ...), and modules named in
``STRIDED_CI_MISSING_OK`` (comma-separated), for a CI leg that installs fewer
extras on purpose (.ci/run's CPython 3.12 leg has no PyTorch wheel).
"""

from __future__ import annotations

import os
import re

import pytest

# The importable names of the extras CI installs (pyproject.toml: test, scale, docs).
EXPECTED = frozenset({
    "torch", "h5py", "scipy", "sklearn", "hypothesis", "array_api_compat", "array_api_extra",
    "array_api_strict", "ndindex", "dask", "distributed", "cubed", "xarray", "sphinx",
    "myst_parser", "pydata_sphinx_theme", "strided",
})
# Readers' names in skip reasons
_ALIASES = {"pytorch": "torch", "scikit-learn": "sklearn", "scikit_learn": "sklearn"}
_PATTERNS = (
    re.compile(r"No module named '([\w.]+)'"),  # pytest.importorskip: the module really missing
    re.compile(r"could not import '([\w.]+)'"),  # (an importorskip without the cause)
    re.compile(r"^([\w.-]+) (?:is )?not installed", re.IGNORECASE),  # ours: "PyTorch not installed"
)


def ci_enabled(environ=os.environ) -> bool:
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing_module(reason: str):
    """The top-level module a skip reason says is missing, or None."""
    for pat in _PATTERNS:
        m = pat.search(reason)
        if m:
            name = m.group(1)
            if "." in name:  # a submodule of an installed package (a vendored copy moved)
                return None
            return _ALIASES.get(name.lower(), name)
    return None


def must_fail(reason: str, environ=os.environ):
    """The module whose absence makes this skip a failure under CI, or None."""
    if not ci_enabled(environ):
        return None
    mod = missing_module(reason)
    ok = {m.strip() for m in environ.get("STRIDED_CI_MISSING_OK", "").split(",") if m.strip()}
    if mod is None or mod not in EXPECTED or mod in ok:
        return None
    return mod


def _reason(report) -> str:
    lr = report.longrepr
    text = str(lr[2]) if isinstance(lr, tuple) and len(lr) == 3 else str(lr)
    return text.removeprefix("Skipped: ")


def _fail(report, mod):
    report.outcome = "failed"
    report.longrepr = (f"CI: skipped because {mod!r} is missing, but CI installs it "
                       f"(tests/_skip_policy.py; STRIDED_CI_MISSING_OK lists deliberate gaps): "
                       f"{_reason(report)}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        mod = must_fail(_reason(report))
        if mod is not None:
            _fail(report, mod)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if report.skipped:  # a module-level importorskip
        mod = must_fail(_reason(report))
        if mod is not None:
            _fail(report, mod)
