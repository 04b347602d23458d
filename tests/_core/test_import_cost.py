"""``import strided`` loads none of the NumPy submodules NumPy imports on first access and
strided does not use (``numpy.f2py``, ``numpy.testing``, ``numpy.ma``, ``numpy.polynomial``):
the ufunc table of ``_numpy/protocols.py`` walked ``dir(numpy)`` with ``getattr``, which
imported every one of them, ~150 ms of each ``import strided`` (~25% of it). A fresh
interpreter, since this one has imported them for other tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import strided

pytestmark = pytest.mark.host_pinned  # (a subprocess on the cpu: not on the stand-in leg)

SRC = str(Path(strided.__file__).resolve().parents[1])
UNUSED = ("numpy.f2py", "numpy.testing", "numpy.ma", "numpy.polynomial", "numpy.ctypeslib")

_CODE = f"""
import json, sys
import numpy
lazy = sorted(n for n in dir(numpy) if n not in vars(numpy))
import strided
print(json.dumps([lazy, sorted(m for m in sys.modules if m in {list(UNUSED)!r})]))
"""


def test_import_strided_leaves_numpys_lazy_submodules_alone():
    env = {k: v for k, v in os.environ.items() if k != "STRIDED_DEFAULT_DEVICE"}
    env["PYTHONPATH"] = SRC
    r = subprocess.run([sys.executable, "-c", _CODE], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lazy, loaded = json.loads(r.stdout.splitlines()[-1])
    # (the premise: this NumPy imports these on first access; each UNUSED one is such a name)
    assert {"f2py", "testing", "ma"} <= set(lazy), lazy
    assert loaded == [], f"import strided imported {loaded}"
