"""The compiled relu (strided/_csrc/_ckernels.c ``relu``, called by strided._api.activations):
bit for bit against PyTorch's relu and an independent NumPy formula, on every size class
(vector bodies and tails, chunk boundaries of the thread pool, many threads with tiny
chunks), in place and out of place; and the cases it must decline (layouts, dtypes,
overlap, sizes) leave ``out`` untouched. The namespace's relu over the same inputs runs
both ways (STRIDED_NO_CEXT=1: the NumPy kernel) in tests/_api/test_activations.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided._core import cfast as _cfast

from conftest import host

C = _cfast._ckernels if _cfast.AVAILABLE else None
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")]
torch = pytest.importorskip("torch")

_PAYLOAD = {np.float32: np.uint32(0xFFC01234), np.float64: np.uint64(0x7FF8000000ABCDEF)}


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 100).astype(dt)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45], dtype=dt)
    k = min(n, 3 * special.size)
    a[rng.integers(0, n, k)] = np.resize(special, k)
    if n:
        a[rng.integers(0, n)] = _PAYLOAD[dt].view(dt)  # a NaN with a payload (and a sign)
    return a


def _want(a):
    # torch.relu, and an independent formula: x < 0 gives +0, everything else is x itself
    t = torch.relu(torch.from_numpy(a.copy())).numpy()
    w = np.where(a < 0, np.zeros((), a.dtype), a)
    assert t.tobytes() == w.tobytes()
    return w


@settings(max_examples=60, deadline=None)
@given(n=hs.integers(0, 5000), dt=hs.sampled_from([np.float32, np.float64]), nt=hs.integers(1, 5),
       seed=hs.integers(0, 2**32 - 1), inplace=hs.booleans())
def test_bits_match_torch(n, dt, nt, seed, inplace):
    a = _data(n, dt, seed)
    want = _want(a)
    old = C.pool_config()
    C.pool_config(-1, 64)  # chunks of 64 bytes: every size is cut into many pieces
    try:
        out = a.copy() if inplace else np.full(n, 7, dt)
        assert C.relu(out if inplace else a, out, nt) is True
    finally:
        C.pool_config(-1, old[1])
    assert out.tobytes() == want.tobytes()


@pytest.mark.parametrize("n", [1, 63, 64, 65, 4096, 100_003])
def test_large_and_threaded_sizes(n):
    for dt in (np.float32, np.float64):
        a = _data(n, dt, n)
        for nt in (1, 2, 4):
            out = np.empty_like(a)
            assert C.relu(a, out, nt)
            assert out.tobytes() == _want(a).tobytes()


def test_declines_leave_out_untouched():
    a = _data(100, np.float32, 1)
    cases = [(a[::2], np.zeros(50, np.float32)),                 # not contiguous
             (a, np.zeros(99, np.float32)),                       # sizes differ
             (a, np.zeros(100, np.float64)),                      # dtypes differ
             (a.astype(np.float16), np.zeros(100, np.float16)),   # not float32/float64
             (np.arange(100, dtype=np.int32), np.zeros(100, np.int32)),
             (a, np.zeros(100, np.float32)[::-1]),                # out not contiguous
             ]
    for x, out in cases:
        before = out.copy()
        assert C.relu(x, out, 2) is False
        assert out.tobytes() == before.tobytes()
    buf = a.copy()
    before = buf.copy()
    assert C.relu(buf[:-1], buf[1:], 1) is False  # overlapping but not the same memory
    assert buf.tobytes() == before.tobytes()
    ro = a.copy()
    ro.flags.writeable = False
    assert C.relu(a, ro, 1) is False
    with pytest.raises(TypeError):
        C.relu(a, a)


def test_namespace_relu_uses_it_and_agrees():
    for n in (10, 70_000):
        a = _data(n, np.float32, n)
        r = host(st.relu(st.asarray(a, device="cpu")))
        assert r.tobytes() == _want(a).tobytes()
