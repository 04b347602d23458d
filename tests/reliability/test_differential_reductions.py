"""Differential testing of the reductions: the compiled paths against the Python ones.

The C reductions (_ckernels.c's ``reduce``, ``sum_into``, ``sum_all``, behind
cfast.py, threads.py and statistics.py) are fast paths of NumPy's loops as the
Python path calls them (NumPy's add.reduce and max/min, split by the Python thread
pool): they must give the same bits, NaN payloads and zero signs included.
Hypothesis draws a reduction (sum, mean, var, std, prod, max, min,
cumulative_sum), a float32/float64 input whose sum depends on the order of its
additions, with NaNs of distinct payloads and signs, signed zeros and infinities,
an axis (None, first, last, middle), shapes and sizes across the C kernels'
thresholds (NumPy's 8- and 128-element leaves, the 4096-element hot path, the
32768-element fused var, the thread threshold, lowered to split small inputs) and
1 or 2 threads. Each case runs here (compiled, when built) and in a worker process
with ``STRIDED_NO_CEXT=1`` (the Python definitions): results, dtypes, shapes and
errors must agree; a sum must also be NumPy's ``add.reduce`` bit for bit.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strided._core import cfast

from . import _reductions_runner as runner, _worker

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = int(os.environ.get("STRIDED_DIFFERENTIAL_EXAMPLES", "300"))


class Worker(_worker.Worker):
    def __init__(self):
        super().__init__(HERE / "_reductions_runner.py")

    run = _worker.Worker.ask


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


# lengths at and around the edges of the summation and of the fast paths
_EDGES = [1, 2, 7, 8, 9, 15, 16, 17, 127, 128, 129, 255, 256, 257, 1000, 4095, 4096, 4097,
          32767, 32768, 32769, 100_003, 262_145]


@st.composite
def cases(draw):
    nd = draw(st.integers(1, 3))
    if nd == 1:
        shape = (draw(st.sampled_from(_EDGES) | st.integers(1, 3000)),)
    else:
        dim = st.sampled_from([1, 2, 3, 8, 9, 16, 17, 33, 129, 300]) | st.integers(1, 70)
        shape = tuple(draw(dim) for _ in range(nd))
    axes = [None, 0, -1] + ([1] if nd == 3 else [])
    fn = draw(st.sampled_from(runner.FUNCS))
    axis = draw(st.sampled_from(axes[1:] if fn == "cumulative_sum" and nd > 1 else axes))
    return {
        "fn": fn, "dtype": draw(st.sampled_from(["float32", "float64"])), "shape": shape,
        "seed": draw(st.integers(0, 2**32 - 1)), "kind": draw(st.sampled_from(["normal", "drift", "wide"])),
        "nspecial": draw(st.sampled_from([0, 0, 1, 2, 5])), "axis": axis,
        "keepdims": draw(st.booleans()), "nt": draw(st.sampled_from([1, 2])),
        "thresh": draw(st.sampled_from([1, 4096, 256 << 10])), "view": draw(st.booleans()) and nd > 1,
    }


def _numpy_sum(case):
    a = runner.data(case["dtype"], case["shape"], case["seed"], case["kind"], case["nspecial"])
    if case["view"]:
        a = a[..., ::2]
    r = np.asarray(np.add.reduce(a, axis=case["axis"], keepdims=case["keepdims"]))
    return ("ok", r.dtype.str, r.shape, r.tobytes())


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_reductions_compiled_and_python_agree_bit_for_bit(worker, case):
    ours = runner.compute(case)
    theirs = worker.run(case)
    assert ours == theirs, case
    if case["fn"] == "sum" and ours[0] == "ok":
        assert ours == _numpy_sum(case), case


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nt", [1, 2])
def test_the_reported_cases(worker, dtype, nt):
    # Found on the compiled path: a 100,000-element sum in another order than NumPy's,
    # and a 12-element sum returning another NaN's payload (0x123 for 0xbeef).
    for shape, kind, nspecial in [((100_000,), "normal", 0), ((3, 4), "normal", 5),
                                  ((1000, 1000), "wide", 3)]:
        for fn in ("sum", "mean", "var", "std"):
            for axis in (None, 0, -1):
                case = {"fn": fn, "dtype": dtype, "shape": shape, "seed": 7, "kind": kind,
                        "nspecial": nspecial, "axis": axis, "keepdims": False, "nt": nt,
                        "thresh": 4096, "view": False}
                assert runner.compute(case) == worker.run(case), case


def test_the_worker_runs_the_python_definitions(worker):
    # The worker must not take the compiled paths (else the comparison compares nothing).
    probe = subprocess.run([sys.executable, "-c", "from strided._core import cfast; print(cfast.AVAILABLE)"],
                           env=dict(os.environ, STRIDED_NO_CEXT="1"), capture_output=True, text=True)
    assert probe.stdout.strip() == "False"
    if not cfast.AVAILABLE:
        pytest.skip("the compiled paths are not built here (or STRIDED_NO_CEXT=1)")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_threaded_whole_sums_cut_numpys_tree(dtype):
    # The C pool cuts NumPy's pairwise tree into up to 64 subtrees: every thread count
    # (clamped to 256) must give numpy.add.reduce's bits, on sums that depend on the order.
    if not cfast.AVAILABLE:
        pytest.skip("the compiled paths are not built here (or STRIDED_NO_CEXT=1)")
    C = cfast._ckernels
    rng = np.random.default_rng(11)
    for n in (129, 1000, 4097, 65_536, 100_003, 1 << 20):
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(0, 8, n)).astype(dtype)
        want = np.add.reduce(x).tobytes()
        for nt in (1, 2, 3, 4, 8, 64, 1000):
            out = np.empty((), dtype)
            assert C.reduce(0, x, out, 1, n, 1, nt) and out.tobytes() == want, (n, nt)
            assert dtype(C.sum_all(x, nt)).tobytes() == want, (n, nt)
