"""Run a check program once per vector width, each in a fresh process.

The compiled loops decide their width once per process (AVX-512F where the processor has
it, AVX2 under ``STRIDED_NO_AVX512=1``), so a test that compares both widths with NumPy runs
its program twice. The program prints two integers, the width it ran at and the number of
results that differ from NumPy's.
"""

from __future__ import annotations

import os
import subprocess
import sys


def at_both_widths(program: str, *args: str) -> list:
    """[(no512, width, bad)] for STRIDED_NO_AVX512 = "0" and "1"; a program that fails
    fails the test with its error output."""
    rows = []
    for no512 in ("0", "1"):
        env = dict(os.environ, STRIDED_NO_AVX512=no512)
        out = subprocess.run([sys.executable, "-c", program, *args], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, f"STRIDED_NO_AVX512={no512}: {out.stderr[-2000:]}"
        width, bad = map(int, out.stdout.split())
        rows.append((no512, width, bad))
    return rows
