"""The buffer pool's blocks start a page: every pooled result is page-aligned.

Why it matters (issue 38, the "cliff at the threshold"): malloc aligns to 16 bytes, and a
result whose stores do not start a cache line ran at about half speed where the loop
stores whole 64-byte lines (AVX-512), so ``a + b`` of 65,536-1e5 float32 from the pool was
1.7-2.4x NumPy's time. Page-aligned blocks are also at distance 0 from each other modulo
4096 (no store-to-load aliasing between a result and its operands). The alignment is read
from the data pointers (NumPy's ``ctypes.data``); values are compared with NumPy.
The pool that serves is checked (the C one; its Python definition in the suite's
``STRIDED_NO_CEXT=1`` run), on a miss and on a hit.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st_

import strided as st
from strided._core import pool as _pool

from conftest import cpu

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

PAGE = 4096


@pytest.fixture(autouse=True)
def _restore():
    thr, limit = st.get_pool_threshold(), st.get_cache_limit()
    yield
    st.set_pool_threshold(thr)
    st.set_cache_limit(limit)


def _addr(a) -> int:
    return np.asarray(a).ctypes.data


@settings(max_examples=25, deadline=None)
@given(nbytes=st_.integers(1, 3 << 20), dtype=st_.sampled_from(["u1", "f4", "f8", "c16"]))
def test_every_block_starts_a_page_on_a_miss_and_on_a_hit(nbytes, dtype):
    empty = _pool.empty
    st.set_pool_threshold(1)
    dt = np.dtype(dtype)
    n = max(1, nbytes // dt.itemsize)
    st.empty_cache()
    first = empty((n,), dt, n * dt.itemsize)  # a miss: fresh memory from the system
    assert first.ctypes.data % PAGE == 0, (n, dt, first.ctypes.data % PAGE)
    first[...] = 1  # the whole block is usable
    del first
    again = empty((n,), dt, n * dt.itemsize)  # a hit: the block just freed
    assert again.ctypes.data % PAGE == 0
    again[...] = 2
    assert (again == 2).all()


@pytest.mark.skipif(_pool._C is not None, reason="the Python pool's miss path (the suite's STRIDED_NO_CEXT=1 run)")
def test_a_failed_allocation_is_retried_and_still_aligned_in_python(monkeypatch):
    # The Python pool's miss path after a MemoryError (the cache emptied, tried again).
    calls = []
    real = _pool._alloc

    def alloc(size):
        calls.append(size)
        if len(calls) == 1:
            raise MemoryError("simulated")
        return real(size)
    monkeypatch.setattr(_pool, "_alloc", alloc)
    st.set_pool_threshold(1)
    st.empty_cache()
    a = _pool.empty((3000,), np.dtype(np.float64), 24000)
    assert len(calls) == 2 and a.ctypes.data % PAGE == 0


@pytest.mark.parametrize("n", [65_536, 100_000, 262_144])
def test_results_of_the_operations_past_the_threshold_are_aligned(n):
    # The doors that make large elementwise results (NumPy's loop in C, a fused chain, a
    # unary kernel; and their Python definitions) all get the pool's blocks.
    rng = np.random.default_rng(n)
    an = rng.standard_normal(n).astype(np.float32)
    bn = rng.standard_normal(n).astype(np.float32)
    a, b = cpu(an), cpu(bn)
    if n * 4 < st.get_pool_threshold():
        st.set_pool_threshold(n * 4)
    for got, want in ((a + b, an + bn), (a * b + a, an * bn + an), (st.exp(a), np.exp(an)),
                      (-a, -an)):
        assert _addr(got) % PAGE == 0
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
