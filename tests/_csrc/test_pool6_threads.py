"""The C thread pool's waits under contention (issue 38, "All cores").

A caller whose worker is slow past the stall limit now sleeps on a condition variable until
the worker's last chunk is done (the worker signals it), where it used to ``sched_yield`` in a
loop; idle workers offer their core every few microseconds while they spin. Neither may change
a bit of any result, lose a wake-up (a hang) or leave the pool unusable. The test hook
``_worker_delay`` makes every worker sleep before each chunk it claims (a worker that lost its
core, on demand), so that the caller's sleeping path runs in every job a worker joins; the
stall limit is 0 and the back-off a stall starts is ended before each job, so that the next
job runs on the crew again.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import strided as st
from strided._core import cfast as _cfast

from conftest import bits, cpu, host

C = _cfast._ckernels if _cfast.AVAILABLE else None
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")]


@pytest.fixture
def slow_workers():
    """Workers sleep 300 us before each chunk; stall limit 0; 64-byte chunks; split from 64
    bytes; everything restored afterwards."""
    cfg = C.pool_config()
    nt, tthr, thr = st.get_num_threads(), st.get_thread_threshold(), st.get_pool_threshold()
    C.pool_config(-1, 64, 0, 0)  # chunks of 64 bytes, stall limit 0, no back-off
    st.set_thread_threshold(64)
    st.set_pool_threshold(64)
    C._worker_delay(300_000)
    try:
        yield
    finally:
        C._worker_delay(0)
        C.pool_config(cfg[0], cfg[1], cfg[4], 0)
        st.set_num_threads(nt)
        st.set_thread_threshold(tthr)
        st.set_pool_threshold(thr)


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(bits(got)[~nan], bits(want)[~nan])


@pytest.mark.parametrize("nt", [2, 3, 4])
def test_results_stay_numpys_when_the_caller_sleeps_on_stalled_workers(slow_workers, nt):
    st.set_num_threads(nt)
    rng = np.random.default_rng(nt)
    before = C.pool_config()
    done = threading.Event()
    errors = []

    def work():
        try:
            for i in range(24):
                n = int(rng.integers(200_000, 600_000))  # long enough for a sleeping worker to join
                dt = np.float32 if i % 2 else np.float64
                a = (rng.standard_normal(n) * 10).astype(dt)
                b = (rng.standard_normal(n) * 10).astype(dt)
                x, y = cpu(a), cpu(b)
                for got, want in ((lambda: x + y, lambda: a + b), (lambda: x * y, lambda: a * b),
                                  (lambda: st.exp(x), lambda: np.exp(a))):
                    C.pool_config(-1, -1, -1, 0)  # end the back-off the last stall started
                    _same(host(got()), want())
                C.pool_config(-1, -1, -1, 0)
                assert bits(np.asarray(float(host(st.sum(x))), dt)) == bits(np.add.reduce(a))
                C.pool_config(-1, -1, -1, 0)
                assert float(host(st.max(x))) == float(np.max(a))
        except BaseException as e:  # reported below
            errors.append(e)
        finally:
            done.set()

    t = threading.Thread(target=work, daemon=True)
    t.start()
    # A lost wake-up would leave the caller asleep for ever: fail instead of hanging.
    assert done.wait(60), f"the thread pool hung ({C.pool_config()[5] - before[5]} stalls seen)"
    t.join()
    if errors:
        raise errors[0]
    after = C.pool_config()
    # the workers ran chunks, and the caller waited past the limit for them (slept) many times
    assert after[3] > before[3] and after[5] - before[5] >= 10, (before, after)
    # and the pool runs jobs on its crew afterwards, at full speed
    C._worker_delay(0)
    C.pool_config(-1, -1, -1, 0)
    a = np.arange(100_000, dtype=np.float32)
    _same(host(cpu(a) + cpu(a)), a + a)


def test_worker_delay_hook_refuses_what_is_not_a_duration():
    with pytest.raises(ValueError, match="_worker_delay"):
        C._worker_delay(-1)
    with pytest.raises(TypeError):
        C._worker_delay("1")
    assert C._worker_delay(0) == 0
