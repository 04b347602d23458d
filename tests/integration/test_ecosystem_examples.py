"""The ecosystem examples run and say what they should."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _run(name):
    # The example sets SCIPY_ARRAY_API itself, and runs on the host as a user would
    # (SciPy and scikit-learn support strided on CPU), whatever the suite's default device.
    env = {k: v for k, v in os.environ.items() if k not in ("SCIPY_ARRAY_API", "STRIDED_DEFAULT_DEVICE")}
    r = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return r.stdout


def test_sklearn_pipeline_example():
    pytest.importorskip("sklearn")
    out = _run("sklearn_pipeline.py")
    assert "input      : Array float32 cpu (300, 12)" in out
    assert "predict    : Array int64 (100,)" in out
    assert "proba      : Array float32 (100, 3)" in out
    assert "PCA.components_: Array float32 (5, 12)" in out
    assert "same predictions as NumPy: True" in out
    gap = float(re.search(r"largest probability difference: (\S+)", out).group(1))
    assert gap < 1e-4
    assert float(re.search(r"accuracy   : (\S+)", out).group(1)) > 0.6


def test_scipy_demo_example():
    pytest.importorskip("scipy")
    out = _run("scipy_demo.py")
    assert "dominant frequency: 1.50 Hz" in out
    rows = re.findall(r"^(\S[^:]*?)\s*: (\S+) (\S+) .*largest difference from NumPy: (\S+)$", out, re.M)
    assert {r[0] for r in rows} == {"smooth", "spectrum", "residual", "score", "t-statistic",
                                    "p-value", "image", "peak"}
    for name, kind, dtype, gap in rows:
        assert kind == "Array", (name, kind)
        assert float(gap) < (1e-6 if dtype == "float32" else 1e-12), (name, gap)
