"""The CPU buffer pool (strided._core.pool) and intra-op threads (strided._core.threads).

The pool and the threads serve host memory, so these tests put their arrays on
the CPU explicitly whatever the default device. Results are compared with
NumPy on the same inputs; pool behaviour is read from ``memory_stats()``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st_

import strided as st

from conftest import cpu

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

MB = 1 << 20


@pytest.fixture(autouse=True)
def _restore_settings():
    limit, thr = st.get_cache_limit(), st.get_pool_threshold()
    nt, tthr = st.get_num_threads(), st.get_thread_threshold()
    yield
    st.set_cache_limit(limit)
    st.set_pool_threshold(thr)
    st.set_num_threads(nt)
    st.set_thread_threshold(tthr)


def host(x):
    return np.asarray(x.to_device("cpu")) if hasattr(x, "to_device") else np.asarray(x)


def test_large_results_come_from_the_pool_and_are_reused():
    st.empty_cache()
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(300_000), rng.standard_normal(300_000)  # 2.4 MB each
    sa, sb = cpu(a), cpu(b)
    before = st.memory_stats()
    t = sa * sb  # a named temporary: not elided, so two buffers per expression
    r = t + sa
    np.testing.assert_array_equal(host(r), a * b + a)
    mid = st.memory_stats()
    assert mid["num_allocs"] - before["num_allocs"] == 2  # the temporary and the result
    del r, t
    for _ in range(5):
        t = sa * sb
        r = t + sa
        np.testing.assert_array_equal(host(r), a * b + a)
        del r, t
    after = st.memory_stats()
    # Every allocation after the first expression is served from the cache.
    assert after["hits"] - mid["hits"] == 10
    assert after["misses"] == mid["misses"]


def test_a_block_returns_only_when_its_last_view_dies():
    st.empty_cache()
    x = cpu(np.arange(400_000, dtype=np.float64))
    y = x + 1.0
    v = y[10:20]
    base = st.memory_stats()
    del y
    assert st.memory_stats()["allocated_bytes"] == base["allocated_bytes"]
    z = x * 3.0  # must not receive v's block
    np.testing.assert_array_equal(host(v), np.arange(10, 20) + 1.0)
    np.testing.assert_array_equal(host(z), np.arange(400_000) * 3.0)
    del v
    s = st.memory_stats()
    assert s["allocated_bytes"] < base["allocated_bytes"] + z.size * 8
    assert s["cached_bytes"] >= 400_000 * 8


def test_small_results_keep_numpys_allocator():
    before = st.memory_stats()["num_allocs"]
    r = cpu(np.ones(1000)) + 1.0
    assert st.memory_stats()["num_allocs"] == before
    np.testing.assert_array_equal(host(r), np.full(1000, 2.0))


def test_cache_stays_within_its_limit_over_a_long_run():
    st.empty_cache()
    st.set_cache_limit(12 * MB)
    rng = np.random.default_rng(1)
    keep = []
    for i in range(300):
        n = int(rng.integers(150_000, 1_000_000))  # 1.2 MB .. 8 MB of float64
        x = cpu(rng.standard_normal(n))
        r = st.exp(x) + x
        if rng.random() < 0.3:
            keep.append(r)
        if len(keep) > 4:
            keep.pop(int(rng.integers(0, len(keep))))
        if i % 50 == 0:
            np.testing.assert_allclose(host(r), np.exp(host(x)) + host(x))
        s = st.memory_stats()
        assert s["cached_bytes"] <= 12 * MB
        assert s["limit_bytes"] == 12 * MB
    s = st.memory_stats()
    assert s["hits"] > 0 and s["evictions"] + s["dropped"] > 0
    del keep, r
    st.empty_cache()
    assert st.memory_stats()["cached_bytes"] == 0


def test_limit_zero_turns_caching_off_and_lowering_evicts():
    st.empty_cache()
    x = cpu(np.zeros(300_000))
    r = x + 1.0
    del r
    assert st.memory_stats()["cached_bytes"] > 0
    st.set_cache_limit(0)
    assert st.memory_stats()["cached_bytes"] == 0
    r = x + 1.0
    del r
    assert st.memory_stats()["cached_bytes"] == 0


def test_threshold_setter_moves_small_arrays_into_the_pool():
    st.set_pool_threshold(1024)
    before = st.memory_stats()["num_allocs"]
    r = cpu(np.arange(1000.0)) * 2.0
    assert st.memory_stats()["num_allocs"] == before + 1
    np.testing.assert_array_equal(host(r), np.arange(1000.0) * 2.0)


@pytest.mark.parametrize("func,value,exc", [
    (st.set_cache_limit, -1, ValueError), (st.set_cache_limit, 1.5, TypeError),
    (st.set_pool_threshold, 0, ValueError), (st.set_num_threads, 0, ValueError),
    (st.set_num_threads, "2", TypeError), (st.set_thread_threshold, 0, ValueError)])
def test_setters_reject_bad_values_naming_themselves(func, value, exc):
    with pytest.raises(exc, match=func.__name__):
        func(value)


def test_default_thread_count_is_the_cores_available():
    import os
    import subprocess
    import sys
    code = "import strided; print(strided.get_num_threads())"
    env = {k: v for k, v in os.environ.items() if k != "STRIDED_DEFAULT_DEVICE"}  # sim is conftest's
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=env)
    assert int(got.stdout) == len(os.sched_getaffinity(0))


dtypes = st_.sampled_from(["float32", "float64", "int32", "complex64", "bool"])


@settings(max_examples=25, deadline=None)
@given(dtype=dtypes, rows=st_.integers(1, 40), cols=st_.integers(1, 300),
       bcast=st_.booleans(), transposed=st_.booleans())
def test_pooled_and_threaded_results_equal_numpys(dtype, rows, cols, bcast, transposed):
    st.set_pool_threshold(64)
    st.set_thread_threshold(64)
    st.set_num_threads(3)
    rng = np.random.default_rng(rows * 1000 + cols)
    a = (rng.standard_normal((rows, cols)) * 10).astype(dtype)
    b = (rng.standard_normal((1, cols) if bcast else (rows, cols)) * 10).astype(dtype)
    if transposed:
        a = a.T.copy().T  # F-ordered: NumPy picks the layout (no pool)
    sa, sb = cpu(a), cpu(b)
    if dtype == "bool":
        pairs = [(st.logical_and(sa, sb), np.logical_and(a, b))]
    else:
        pairs = [(sa + sb, a + b), (sa * sb, a * b), (st.equal(sa, sb), a == b),
                 (st.negative(sa), -a), (sa + 2, a + np.asarray(2, dtype=a.dtype))]
        if dtype != "int32":
            pairs.append((st.exp(sa * 0.01), np.exp(a * np.asarray(0.01, dtype=a.dtype))))
    for got, ref in pairs:
        g = host(got)
        assert g.dtype == ref.dtype and g.shape == ref.shape
        np.testing.assert_array_equal(g, ref)


def test_threads_give_identical_values_to_one_thread():
    rng = np.random.default_rng(3)
    a = cpu(rng.standard_normal((1000, 700)))
    b = cpu(rng.standard_normal((1000, 700)))
    st.set_num_threads(1)
    one = host(st.sin(a) * b + a)
    st.set_num_threads(4)
    st.set_thread_threshold(1)
    many = host(st.sin(a) * b + a)
    np.testing.assert_array_equal(one, many)
    assert st.get_num_threads() == 4


def test_sum_is_as_accurate_as_pairwise_on_adversarial_input():
    # One large value followed by many small ones: naive summation loses them all.
    for dtype in (np.float32, np.float64):
        x = np.full(2_000_001, 1e-3 if dtype is np.float32 else 1e-8, dtype=dtype)
        x[0] = 1e4 if dtype is np.float32 else 1e8
        exact = math.fsum(x.astype(np.float64).tolist())
        st.set_num_threads(1)  # one thread: no worse than NumPy; threaded: the tolerance below
        ours = float(host(st.sum(cpu(x))))
        numpys = float(np.sum(x))
        assert abs(ours - exact) <= abs(numpys - exact) * 1.0001 + 1e-300
        # The documented tolerance of a threaded sum: NumPy's error plus one unit
        # in the last place per thread (chunks are summed pairwise, partials exactly).
        ulp = float(np.spacing(dtype(exact)))
        for nt in (1, 2, 4):
            st.set_num_threads(nt)
            st.set_thread_threshold(1)
            ours = float(host(st.sum(cpu(x))))
            assert abs(ours - exact) <= abs(numpys - exact) + nt * ulp
            assert float(host(st.mean(cpu(x)))) == pytest.approx(exact / x.size, rel=4 * ulp / exact)


@pytest.mark.parametrize("func,ref", [(st.sum, np.sum), (st.max, np.max), (st.min, np.min),
                                      (st.mean, np.mean), (st.prod, np.prod)])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
def test_threaded_reductions_match_numpy(func, ref, axis):
    st.set_num_threads(3)
    st.set_thread_threshold(1)
    rng = np.random.default_rng(5)
    a = rng.uniform(0.5, 1.5, (7, 5, 33)).astype(np.float32)
    got = host(func(cpu(a), axis=axis))
    want = ref(a, axis=axis)
    assert got.shape == np.shape(want) and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5)
    if func in (st.max, st.min) or axis in (1, -1, (0, 2)):
        # max/min, and reductions split along a kept axis: identical to one thread
        st.set_num_threads(1)
        np.testing.assert_array_equal(got, host(func(cpu(a), axis=axis)))


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_var_std_with_pooled_deviations_match_numpy(axis, dtype):
    st.set_pool_threshold(64)
    rng = np.random.default_rng(6)
    a = (rng.standard_normal((300, 40)) * 5).astype(dtype)
    for nt in (1, 3):
        st.set_num_threads(nt)
        st.set_thread_threshold(64)
        v = host(st.var(cpu(a), axis=axis))
        rtol = 1e-5 if v.dtype == np.float32 else 1e-12  # integers give the default float dtype
        np.testing.assert_allclose(v, np.var(a, axis=axis), rtol=rtol)
        np.testing.assert_allclose(host(st.std(cpu(a), axis=axis, correction=1)),
                                   np.std(a, axis=axis, ddof=1), rtol=rtol)


def test_pool_and_threads_work_in_a_forked_child():
    import multiprocessing as mp
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    st.set_num_threads(2)
    st.set_thread_threshold(1)
    x = cpu(np.arange(400_000, dtype=np.float64))
    _ = host(x + x)  # the parent's executor and pool are in use before the fork
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as p:
        got = p.apply_async(_child_sum, (3,)).get(timeout=120)  # a hang is the bug
    assert got == float(np.sum(np.arange(400_000) * 3.0))


def _child_sum(k):
    x = st.asarray(np.arange(400_000, dtype=np.float64), device="cpu")
    return float(host(st.sum(x * float(k))))
