"""An idle worker of the C thread pool spins, then naps, then sleeps (issue 38).

After a job a worker spins ``spin_ns``, then naps (sleeps of 25 us doubling to 1 ms, looking
at the job ticket after each) for ``nap_ns``, and only then sleeps on the condition variable,
which the caller must signal. A job posted while the workers nap wakes no one: the caller
starts it alone and a worker joins when its nap ends. Every path must give the one-thread
results and lose no job: jobs posted during the spin, during the naps and during the sleep,
each compared bit for bit with NumPy, and the workers must take part in each state (the
ticket seen after a nap, the signal after a sleep).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import strided as st
from strided._core import cfast as _cfast

from conftest import bits, cpu, host

C = _cfast._ckernels if _cfast.AVAILABLE else None
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")]


@pytest.fixture(autouse=True)
def _pool():
    cfg = C.pool_config() if C is not None else None
    nt, tthr = st.get_num_threads(), st.get_thread_threshold()
    st.set_num_threads(2)
    st.set_thread_threshold(64)
    yield
    st.set_num_threads(nt)
    st.set_thread_threshold(tthr)
    if C is not None:
        C.pool_config(cfg[0], cfg[1], -1, -1, cfg[7])


def test_pool_config_sets_and_reports_the_naps():
    was = C.pool_config()[7]
    assert C.pool_config(-1, -1, -1, -1, 3_000_000)[7] == 3_000_000
    assert C.pool_config()[7] == 3_000_000
    assert C.pool_config(-1, -1, -1, -1, -1)[7] == 3_000_000  # -1 leaves it
    C.pool_config(-1, -1, -1, -1, was)


@pytest.mark.parametrize("state", ["spinning", "napping", "sleeping"])
def test_jobs_posted_in_each_idle_state_are_numpys_and_the_workers_join(state):
    # spin 0 and naps of 1 s: a job after 5 ms finds the workers napping; spin 0 and naps of 0:
    # sleeping (the caller signals); spin 1 s: spinning
    spin, nap = {"spinning": (1_000_000_000, 0), "napping": (0, 1_000_000_000), "sleeping": (0, 0)}[state]
    C.pool_config(spin, 1 << 12, -1, 0, nap)
    rng = np.random.default_rng(7)
    # 16 MiB: a few ms, longer than a nap (at most 1 ms), in 16 chunks (8 a thread at most)
    a = rng.standard_normal(1 << 22).astype(np.float32)
    b = rng.standard_normal(1 << 22).astype(np.float32)
    sa, sb = cpu(a), cpu(b)
    want = a * b
    joined = 0
    for _ in range(12):
        time.sleep(0.005)
        w0 = C.pool_config()[3]
        got = host(sa * sb)
        joined += C.pool_config()[3] > w0
        np.testing.assert_array_equal(bits(got), bits(want))
    # (a worker that joined none of 12 jobs in 5 ms gaps lost its wake-up)
    assert joined > 0, f"no worker took a chunk of 12 jobs posted while it was {state}"
