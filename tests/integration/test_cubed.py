"""Cubed with strided as its backend (``CUBED_BACKEND_ARRAY_API_MODULE=strided``).

Cubed picks its backend when it is imported, so each run is a fresh Python
process (``_cubed_run.py``) with the variable set; nothing here imports cubed,
and the other tests of the session keep whatever cubed they would get. The
run uses cubed's multi-process executor (2 spawned workers): every task reads
its chunks as strided arrays, and every result comes back as one.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

if importlib.util.find_spec("cubed") is None:  # not imported here: see above
    pytest.skip("cubed is not installed (the 'scale' extra)", allow_module_level=True)

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _cubed_run  # noqa: E402  (its data() and operations; imports no cubed)

sys.path.pop(0)

def run_cubed(tmp_path, backend, executor="processes", workers=2):
    env = dict(os.environ, CUBED_BACKEND_ARRAY_API_MODULE=backend)
    # Cubed keeps its chunks in host memory (Zarr) and reads every block with
    # np.asarray unless the backend is CuPy itself: like the other tests here,
    # this runs on the cpu whatever STRIDED_DEFAULT_DEVICE says.
    env.pop("STRIDED_DEFAULT_DEVICE", None)
    src = str(pathlib.Path(__import__("strided").__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([src, str(HERE)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    r = subprocess.run([sys.executable, str(HERE / "_cubed_run.py"), str(tmp_path), executor, str(workers)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def strided_run(tmp_path_factory):
    return run_cubed(tmp_path_factory.mktemp("cubed"), "strided")


def test_operations_match_the_reference(strided_run):
    # The table of NumPy references covers every operation the script ran.
    assert _cubed_run.OPERATIONS.keys() == strided_run["results"].keys()


def test_the_checks_tell_the_backends_apart(tmp_path):
    # The same run on cubed's NumPy backend: NumPy results, and the chunk check sees no strided block.
    r = run_cubed(tmp_path, "array_api_compat.numpy", executor="single-threaded", workers=1)
    assert r["results"]["sum(a @ a.T)"]["type"] == "numpy.ndarray"
    assert np.all(np.asarray(r["results"]["chunk types"]["values"]) == 0)


def test_backend_is_strided(strided_run):
    assert strided_run["backend"] == "strided"


@pytest.mark.parametrize("name", list(_cubed_run.OPERATIONS))
def test_processes_executor_gives_strided_results_equal_to_numpy(strided_run, name):
    a = _cubed_run.data()
    want = np.asarray(_cubed_run.OPERATIONS[name][1](a))
    got = strided_run["results"][name]
    assert got["type"] == "strided._core.array.Array"
    assert got["dtype"] == str(want.dtype)
    assert tuple(got["shape"]) == want.shape
    rtol = 1e-5 if want.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(got["values"], dtype=want.dtype), want, rtol=rtol, atol=rtol)
