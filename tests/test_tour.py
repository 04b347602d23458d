"""The tour (examples/tour.py) runs through ``python -m strided``."""

from __future__ import annotations

import os
import subprocess
import sys


def test_python_m_strided_runs_the_tour():
    # The tour shows host memory (NumPy sharing, .numpy()): it runs on the cpu.
    env = {k: v for k, v in os.environ.items() if k != "STRIDED_DEFAULT_DEVICE"}
    r = subprocess.run([sys.executable, "-m", "strided"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "[strided.Storage of float32, size 6]" in out
    assert "([4.0, 10.0, 2.0, 1.0, 3.0, 1.0], (3, 1))" in out
    assert "(1, 5, 20)" in out
    assert "strided.Size([2, 2, 3])" in out
    assert "Traceback" not in r.stderr
