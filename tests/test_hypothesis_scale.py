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
