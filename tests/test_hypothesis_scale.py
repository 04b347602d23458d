"""STRIDED_HYPOTHESIS_SCALE (tests/_hypothesis_scale.py): CI's later passes draw fewer examples.

Run in a child pytest over a generated test file with a Hypothesis test of 200
examples: without the variable it draws 200; with 0.25, 50; a bad value is a usage
error that names it.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# (the same test whatever the default device: CI's stand-in leg leaves it out)
pytestmark = pytest.mark.host_pinned

pytest.importorskip("hypothesis")

TESTS = Path(__file__).resolve().parent

BODY = textwrap.dedent("""
    from hypothesis import given, settings, strategies as st
    SEEN = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(st.integers())
    def test_draws(x):
        SEEN.append(x)

    def test_zz_report():
        print("DRAWN", len(SEEN))
""")


def _run(tmp_path, scale):
    f = tmp_path / "test_scaled_probe.py"
    f.write_text(BODY)
    (tmp_path / "conftest.py").write_text("from _hypothesis_scale import pytest_collection_modifyitems  # noqa: F401\n")
    env = {k: v for k, v in os.environ.items() if k not in ("STRIDED_HYPOTHESIS_SCALE", "CI")}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    if scale is not None:
        env["STRIDED_HYPOTHESIS_SCALE"] = scale
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(f)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("scale, drawn", [(None, 200), ("0.25", 50), ("0.01", 10), ("1", 200)])
def test_scale_divides_the_examples(tmp_path, scale, drawn):
    r = _run(tmp_path, scale)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"DRAWN {drawn}" in r.stdout, r.stdout


@pytest.mark.parametrize("scale", ["abc", "0", "2"])
def test_a_bad_scale_is_a_usage_error_naming_it(tmp_path, scale):
    r = _run(tmp_path, scale)
    assert r.returncode != 0
    assert "STRIDED_HYPOTHESIS_SCALE" in r.stdout + r.stderr


@pytest.mark.parametrize("raw,want", [(None, (60, 20, 4000)), ("1", (60, 20, 4000)), ("0.25", (15, 10, 1000)),
                                      ("0.1", (15, 10, 500)), ("2", None), ("x", None)])
def test_budget_scales_drawn_cases_with_a_floor(monkeypatch, raw, want):
    """The fault and fuzz budgets (tests/reliability) follow the same factor, never under their
    floor; a bad factor is the same usage error as for the Hypothesis tests."""
    from _hypothesis_scale import budget
    if raw is None:
        monkeypatch.delenv("STRIDED_HYPOTHESIS_SCALE", raising=False)
    else:
        monkeypatch.setenv("STRIDED_HYPOTHESIS_SCALE", raw)
    if want is None:
        with pytest.raises(pytest.UsageError, match="STRIDED_HYPOTHESIS_SCALE"):
            budget(60, 15)
    else:
        assert (budget(60, 15), budget(20, 10), budget(4000, 500)) == want
