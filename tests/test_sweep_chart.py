"""benchmarks/sweep_chart.py: the sweep's ratio strided / min(NumPy, PyTorch), per regime."""

from __future__ import annotations

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import sweep_chart  # noqa: E402

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _rec(op, n, strided, numpy, torch=None, malloc=None):
    libs = {"strided": {"median_ns": strided}, "numpy": {"median_ns": numpy}}
    if torch is not None:
        libs["torch"] = {"median_ns": torch}
    params = {"n": n, "dtype": "float32"}
    if malloc:
        params["malloc"] = malloc
    return {"group": "midsize", "op": op, "params": params, "libs": libs}


def _write(tmp_path, name, recs):
    d = tmp_path / name
    d.mkdir()
    (d / "results.json").write_text(json.dumps({"meta": {"command": "x"}, "results": recs}))
    return d


def test_ratio_is_over_the_faster_peer_and_none_without_one():
    assert sweep_chart.ratio_min(_rec("add", 10, 30.0, 20.0, 15.0), "median_ns") == 2.0
    assert sweep_chart.ratio_min(_rec("add", 10, 30.0, 60.0), "median_ns") == 0.5
    assert sweep_chart.ratio_min({"libs": {"numpy": {"median_ns": 1.0}}}, "median_ns") is None


def test_series_splits_the_malloc_regimes_and_sorts_by_size(tmp_path):
    a = _write(tmp_path, "default", [_rec("add", 10**6, 3.0, 2.0, malloc="glibc default"),
                                     _rec("add", 10, 1.0, 4.0)])
    b = _write(tmp_path, "mmap", [_rec("add", 10**6, 1.0, 4.0, malloc="mmap>=131072")])
    s = sweep_chart.series([str(a / "results.json"), str(b / "results.json")], "median_ns")
    assert s[("float32", "add", "default")] == [(10, 0.25), (10**6, 1.5)]
    assert s[("float32", "add", "mmap")] == [(10**6, 0.25)]


def test_main_draws_a_png_and_names_a_missing_folder(tmp_path):
    pytest.importorskip("matplotlib")
    d = _write(tmp_path, "default", [_rec("add", 10, 1.0, 2.0), _rec("add", 100, 1.0, 0.5)])
    out = tmp_path / "sweep.png"
    assert sweep_chart.main([str(d), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SystemExit):
        sweep_chart.main([str(tmp_path / "nowhere")])
