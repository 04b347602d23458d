"""The tour (strided/_tour.py; examples/tour.py runs it too) runs through ``python -m strided``."""

from __future__ import annotations

import os
import subprocess
import sys


def test_python_m_strided_runs_the_tour():
    # Under the suite's default device (cuda on the CuPy stand-in too): the NumPy-sharing
    # section names its host arrays' device itself.
    r = subprocess.run([sys.executable, "-m", "strided"], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    device = os.environ.get("STRIDED_DEFAULT_DEVICE", "cpu")
    at = "" if device == "cpu" else " (device=cuda:0)" if device == "cuda" else None
    assert at is None or f"[strided.Storage of float32{at}, size 6]" in out
    assert "([4.0, 10.0, 2.0, 1.0, 3.0, 1.0], (3, 1))" in out
    assert "(1, 5, 20)" in out
    assert "strided.Size([2, 2, 3])" in out
    assert "Traceback" not in r.stderr


def test_examples_tour_prints_the_packaged_tour():
    # examples/tour.py is a pointer to the packaged tour: the same text, from a checkout.
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, STRIDED_DEFAULT_DEVICE="cpu")
    a = subprocess.run([sys.executable, str(root / "examples" / "tour.py")], capture_output=True,
                       text=True, timeout=120, env=env)
    b = subprocess.run([sys.executable, "-m", "strided"], capture_output=True, text=True, timeout=120,
                       env=env)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert a.stdout == b.stdout and "== An array is a view of a flat storage" in a.stdout
