"""The run's policies: under CI a skip for a missing extra fails (tests/_skip_policy.py);
docstring-presence checks are counted apart (tests/_counts.py)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from _skip_policy import EXPECTED, missing_module, must_fail

# (the same test whatever the default device: CI's stand-in leg leaves it out)
pytestmark = pytest.mark.host_pinned

TESTS = pathlib.Path(__file__).resolve().parent


@pytest.mark.parametrize("reason,mod", [
    ("could not import 'torch': No module named 'torch'", "torch"),
    ("could not import 'dask.array': No module named 'dask'", "dask"),
    ("PyTorch not installed", "torch"),
    ("cubed is not installed (the 'scale' extra)", "cubed"),
    ("array_api_strict is not installed", "array_api_strict"),
    ("could not import 'cupy': No module named 'cupy'", "cupy"),
    ("no fork on this platform", None),
    ("the C kernels are not built (or STRIDED_NO_CEXT=1)", None),
    ("PyTorch has no CUDA", None),
    ("scipy._lib.array_api_compat is not installed", None),
    ("could not import 'scipy.stats': No module named 'scipy.stats'", None),
])
def test_reasons_name_the_missing_module(reason, mod):
    assert missing_module(reason) == mod
    ci = {"CI": "true"}
    want = mod if mod in EXPECTED else None
    assert must_fail(reason, ci) == want
    assert must_fail(reason, {}) is None and must_fail(reason, {"CI": "false"}) is None
    if want is not None:
        assert must_fail(reason, {"CI": "1", "STRIDED_CI_MISSING_OK": f"x, {mod}"}) is None


def test_cupy_is_never_an_expected_extra():
    assert not {"cupy", "cupyx"} & EXPECTED


def _run(tmp_path, env_ci, name):
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(TESTS)!r})
        from _skip_policy import pytest_make_collect_report, pytest_runtest_makereport
    """))
    (tmp_path / "test_a.py").write_text(textwrap.dedent("""
        import pytest
        def test_needs_missing_extra():
            pytest.importorskip("torch_not_a_module_xyz")
        def test_needs_torch():
            pytest.skip("could not import 'torch': No module named 'torch'")
        def test_needs_gpu():
            pytest.importorskip("cupy_not_here")
        @pytest.mark.skipif(True, reason="no fork on this platform")
        def test_platform():
            pass
    """))
    (tmp_path / "test_b.py").write_text(textwrap.dedent("""
        import pytest
        pytest.skip("h5py not installed", allow_module_level=True)
        def test_x():
            pass
    """))
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "STRIDED_CI_MISSING_OK")}
    if env_ci is not None:
        env["CI"] = env_ci
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEs",
                        "-o", "addopts=", str(tmp_path / name)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout


def test_ci_turns_a_missing_extra_into_a_failure(tmp_path):
    rc, out = _run(tmp_path, None, "test_a.py")
    assert rc == 0 and "4 skipped" in out, out
    rc, out = _run(tmp_path, "true", "test_a.py")
    # torch is one of CI's extras; the unknown module, cupy-like and platform skips stay skips
    assert rc == 1 and "1 failed" in out and "3 skipped" in out, out
    assert "CI: skipped because 'torch' is missing" in out, out


def test_ci_turns_a_skipped_module_into_a_collection_error(tmp_path):
    rc, out = _run(tmp_path, None, "test_b.py")
    assert rc == 5 and "1 skipped" in out, out  # (5: no test ran)
    rc, out = _run(tmp_path, "true", "test_b.py")
    assert rc == 2 and "1 error" in out, out  # (pytest stops at a collection error)
    assert "CI: skipped because 'h5py' is missing" in out, out


def test_docstring_checks_are_counted_apart():
    from types import SimpleNamespace as R

    from _counts import split_counts
    reports = [R(when="call", passed=True, keywords={"test_x": 1}),
               R(when="call", passed=True, keywords={"docstring": 1, "test_y": 1}),
               R(when="setup", passed=True, keywords={"docstring": 1}),
               R(when="call", passed=False, keywords={"docstring": 1})]
    assert split_counts(reports) == {"behaviour": 1, "docstring": 1}
