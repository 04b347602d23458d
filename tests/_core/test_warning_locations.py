"""Every warning strided issues names the user's line (src/strided/_core/caller.py):
the file that triggered it is this test file, whatever path inside strided it took."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import strided as xp


def _caught(fn, category=Warning):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn()
    got = [w for w in got if issubclass(w.category, category)]
    assert got, "no warning"
    return got[0]


def test_non_leaf_grad_warning_names_the_callers_line():
    x = xp.ones(2, requires_grad=True)
    y = x * 2
    w = _caught(lambda: y.grad, UserWarning)  # through named's wrapper of the property
    assert "not a leaf" in str(w.message)
    assert w.filename == __file__


def test_astype_invalid_cast_warning_names_the_callers_line():
    x = xp.asarray([np.nan, 1.0], device="cpu")  # (checked on the host only, as NumPy)
    w = _caught(lambda: xp.astype(x, xp.int32), RuntimeWarning)
    assert w.filename == __file__


def test_hdf5_label_warning_names_the_callers_line(tmp_path):
    h5py = pytest.importorskip("h5py")
    with h5py.File(tmp_path / "l.h5", "w") as f:
        d = f.create_dataset("img", data=np.zeros((2, 3)))
        d.dims[0].label = "x [m]"
    w = _caught(lambda: xp.io.load_hdf5(tmp_path / "l.h5", "img"), UserWarning)
    assert "not valid dimension names" in str(w.message)
    assert w.filename == __file__


def test_default_device_warning_names_the_import_line():
    src = os.path.join(os.path.dirname(xp.__file__), os.pardir)
    env = dict(os.environ, STRIDED_DEFAULT_DEVICE="nowhere",
               PYTHONPATH=os.pathsep.join([os.path.abspath(src), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-W", "always", "-c", "x = 1\nimport strided\n"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^<string>:2: RuntimeWarning: STRIDED_DEFAULT_DEVICE='nowhere' ignored",
                     r.stderr, re.M), r.stderr


def test_every_warning_in_the_sources_goes_through_the_callers_stacklevel():
    # a fixed stacklevel=N names strided's own file on some path: none is left
    root = os.path.dirname(xp.__file__)
    fixed = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py") and f != "caller.py":  # (its docstring shows the call)
                text = open(os.path.join(d, f), encoding="utf-8").read()
                for m in re.finditer(r"warnings\.warn\((?:[^()]|\([^()]*\))*\)", text, re.S):
                    if "stacklevel=stacklevel()" not in m.group(0) and "_warn_at_caller" not in text:
                        fixed.append(f"{os.path.relpath(os.path.join(d, f), root)}: {m.group(0)[:60]}")
    assert not fixed, fixed
