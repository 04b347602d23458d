"""Results the compiled path makes between 16 KiB and the pool threshold start a cache line.

malloc aligns to 16 bytes; NumPy's AVX-512 loops store whole 64-byte lines, and a result
that does not start one costs about twice the time from ~16 KB on (issue 38; PyTorch aligns
every buffer to 64 bytes). The compiled path (``strided._csrc._chot``) gives those results
a 64-byte aligned buffer of their own, owned by ``_chot.AlignedBuffer``. Checked here: the
alignment (the data pointer), the values (NumPy on the same inputs, bit for bit), the
buffer's lifetime (views and NumPy handles outlive the Array; tracemalloc sees it in
NumPy's domain and sees it go), the autograd engine taking such a result as ``.grad``
without a copy (as it takes NumPy's and the pool's), and the range's bounds.
"""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st_

import strided as st
from strided._core import cext

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

_chot = cext.load("_chot")
NPY_DOMAIN = 389047  # NumPy's tracemalloc domain (numpy/_core/src/multiarray/alloc.c)
LO = 16 << 10


def _compiled() -> bool:
    return _chot is not None and hasattr(_chot, "AlignedBuffer")


@pytest.fixture(autouse=True)
def _restore():
    thr = st.get_pool_threshold()
    yield
    st.set_pool_threshold(thr)


def _pair(n, dt=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    an = rng.standard_normal(n).astype(dt)
    bn = rng.standard_normal(n).astype(dt)
    return an, bn, st.asarray(an, device="cpu"), st.asarray(bn, device="cpu")


def _bits(x):
    x = np.asarray(x)
    return x.view(np.uint8) if x.dtype == np.bool_ else x.view(f"u{x.itemsize}")


def _owner(x):
    """The type of the object owning the result's memory: the base of its native (the
    Array's own ndarray; ``numpy.asarray`` of it may export through a memoryview, as
    under CPython 3.12)."""
    return type(x._get_native().base)


OPS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "multiply": (lambda a, b: a * b, lambda a, b: a * b),
    "less": (lambda a, b: a < b, lambda a, b: a < b),
    "neg": (lambda a, b: -a, lambda a, b: -a),
    "exp": (lambda a, b: st.exp(a), lambda a, b: np.exp(a)),
    "where": (lambda a, b: st.where(a > 0, a, b), lambda a, b: np.where(a > 0, a, b)),
}


@pytest.mark.parametrize("n", [LO // 4, 10_000, 30_000, 60_000])
@pytest.mark.parametrize("op", sorted(OPS))
def test_results_in_the_range_are_aligned_and_numpys_values(op, n):
    an, bn, a, b = _pair(n, seed=n)
    got, want = OPS[op][0](a, b), OPS[op][1](an, bn)
    g = np.asarray(got)
    np.testing.assert_array_equal(_bits(g), _bits(want))
    assert g.flags.c_contiguous and g.flags.writeable
    if _compiled() and g.nbytes >= LO:
        assert g.ctypes.data % 64 == 0, (op, n, g.ctypes.data % 64)
        assert _owner(got) is _chot.AlignedBuffer
    got[0] = 1  # the result is writable through the Array too
    assert np.asarray(got)[0] == 1


@settings(max_examples=30, deadline=None)
@given(rows=st_.integers(1, 300), cols=st_.integers(1, 300), bcast=st_.booleans(),
       dt=st_.sampled_from([np.float32, np.float64, np.int32]))
def test_any_shape_gives_numpys_values_and_in_range_results_are_aligned(rows, cols, bcast, dt):
    rng = np.random.default_rng(rows * 1000 + cols)
    an = (rng.standard_normal((rows, cols)) * 100).astype(dt)
    bn = (rng.standard_normal((1, cols) if bcast else (rows, cols)) * 100).astype(dt)
    a, b = st.asarray(an, device="cpu"), st.asarray(bn, device="cpu")
    for got, want in ((a + b, an + bn), (a * b, an * bn), (a - b, an - bn)):
        g = np.asarray(got)
        np.testing.assert_array_equal(_bits(g), _bits(want))
        if _compiled() and LO <= g.nbytes and _owner(got) is _chot.AlignedBuffer:
            assert g.ctypes.data % 64 == 0


@pytest.mark.skipif(not _compiled(), reason="the compiled path's buffer")
def test_views_and_numpy_handles_keep_the_buffer_alive():
    an, bn, a, b = _pair(20_000)
    r = a + b
    v = r[100:200]
    h = np.asarray(r)[300:400]
    del r
    gc.collect()
    junk = [st.asarray(np.full(20_000, 7.0, np.float32), device="cpu") * 1.0 for _ in range(8)]
    np.testing.assert_array_equal(np.asarray(v), (an + bn)[100:200])
    np.testing.assert_array_equal(h, (an + bn)[300:400])
    del junk


@pytest.mark.skipif(not _compiled(), reason="the compiled path's buffer")
def test_tracemalloc_sees_the_buffer_in_numpys_domain_and_sees_it_go():
    an, bn, a, b = _pair(30_000)
    (a + b)  # warm (the loop's first call)
    flt = [tracemalloc.DomainFilter(True, NPY_DOMAIN)]
    tracemalloc.start()
    try:
        base = sum(s.size for s in tracemalloc.take_snapshot().filter_traces(flt).statistics("filename"))
        r = a + b
        assert _owner(r) is _chot.AlignedBuffer
        held = sum(s.size for s in tracemalloc.take_snapshot().filter_traces(flt).statistics("filename"))
        assert held - base >= 30_000 * 4
        del r
        gc.collect()
        after = sum(s.size for s in tracemalloc.take_snapshot().filter_traces(flt).statistics("filename"))
        assert after - base < 30_000 * 4
    finally:
        tracemalloc.stop()


@pytest.mark.skipif(not _compiled(), reason="the compiled path's buffer")
def test_the_engine_takes_an_aligned_result_as_grad_without_a_copy():
    an = np.random.default_rng(3).standard_normal(10_000).astype(np.float32)
    x = st.asarray(an, device="cpu").requires_grad_()
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), np.full(10_000, 3.0, np.float32))
    assert _owner(x.grad) is _chot.AlignedBuffer  # the kernel's result itself, not a copy


@pytest.mark.skipif(not _compiled(), reason="the compiled path's buffer")
def test_the_range_ends_at_the_pool_threshold_and_starts_at_16_kib():
    an, bn, a, b = _pair(4095)  # 16,380 bytes: NumPy's own buffer
    assert _owner(a + b) is not _chot.AlignedBuffer
    st.set_pool_threshold(LO)  # from 16 KiB on the pool serves: no range is left
    an, bn, a, b = _pair(10_000)
    r = a + b
    assert _owner(r) is not _chot.AlignedBuffer and np.asarray(r).ctypes.data % 4096 == 0
    np.testing.assert_array_equal(np.asarray(r), an + bn)
