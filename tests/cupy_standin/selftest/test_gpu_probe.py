"""The GPU probe (../gpu_probe.py) runs, and on the stand-in agrees with itself.

On a GPU machine the probe is run by hand (its DIFFER lines are the stand-in's corrections);
here it only checks that every question runs and that the stand-in's private copy answers
as the stand-in on PYTHONPATH does (they are the same code: any DIFFER is the script's bug).
"""

import importlib.util
import pathlib

import pytest

cp = pytest.importorskip("cupy")


def test_the_probe_runs_and_the_standin_agrees_with_itself(capsys):
    if not hasattr(cp.cuda, "d2h_copies"):
        pytest.skip("real CuPy: run tests/cupy_standin/gpu_probe.py by hand and read its DIFFER lines")
    path = pathlib.Path(__file__).resolve().parent.parent / "gpu_probe.py"
    spec = importlib.util.spec_from_file_location("_gpu_probe", path)
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    assert probe.main([]) == 0
    out = capsys.readouterr().out
    n = len(probe.QUESTIONS)
    assert n >= 60 and f"== {n} questions, 0 where the stand-in differs" in out, out[-2000:]
