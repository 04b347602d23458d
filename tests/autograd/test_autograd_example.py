"""The autograd example trains: examples/train_classifier.py (two-layer MLP, plain SGD)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "train_classifier.py"


def _load():
    import importlib.util
    spec = importlib.util.spec_from_file_location("train_classifier", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_mlp_reaches_stated_accuracy():
    mod = _load()
    loss0, _ = mod.train(steps=1)
    loss, acc = mod.train(steps=300)
    assert loss < loss0 / 10
    assert acc >= 0.95


def test_script_runs():
    out = subprocess.run([sys.executable, str(EXAMPLE), "--steps", "50"], check=True,
                         capture_output=True, text=True).stdout
    assert "training accuracy" in out
