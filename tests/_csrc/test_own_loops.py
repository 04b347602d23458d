"""The compiled hot path's own loops (strided/_csrc/_chot/loops.c, "loops of strided's own"):
``relu`` of float32/float64 arrays is answered by a C loop in the Fast, as the ufunc rows
are by NumPy's loops. It must be the kernel's value everywhere: PyTorch's relu and an
independent NumPy formula bit for bit (NaN payloads and signs, -0.0, subnormals), on every
size class (numpy.empty, the pool, the thread threshold with one and two threads), every
layout the loop takes (contiguous, 1-D strided and reversed, N-d C order, 0-d) and those it
declines (transposed, broadcast views), the inputs' bytes and version untouched, the
result a fresh array of the input's dtype and shape; and the other doors (methods, named
arrays, autograd, ``F.relu(inplace=True)``) unchanged. The same checks run with
STRIDED_NO_CEXT=1 (the kernel's NumPy path) and over the cuda stand-in (arrays pinned to
the CPU here: the loop is a host loop; the stand-in's own path runs its kernel)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core import dispatch, pool, threads

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

torch = pytest.importorskip("torch")
_PAYLOAD = {np.dtype(np.float32): [np.uint32(0x7FC01234), np.uint32(0xFFC00001), np.uint32(0x7F800001)],
            np.dtype(np.float64): [np.uint64(0xFFF8000000ABCDEF), np.uint64(0x7FF0000000000001)]}


@pytest.fixture(autouse=True)
def _quiet_references():
    with np.errstate(all="ignore"):
        yield


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dt)
    a = (rng.standard_normal(n) * 10).astype(dt)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 5e-324, -5e-324], dt)
    k = min(n, special.size)
    if k:
        a[rng.integers(0, n, k)] = special[:k]
        for p in _PAYLOAD[dt]:  # NaNs with payloads, of both signs, a signalling one
            a[rng.integers(0, n)] = p.view(dt)
    return a


def _want(a):
    """torch.relu's bits, checked against an independent formula (x < 0 gives +0, all else x)."""
    t = torch.relu(torch.from_numpy(np.array(a, order="C"))).numpy()
    w = np.where(a < 0, np.zeros((), a.dtype), a)
    w = np.array(w, order="C")
    assert t.tobytes() == w.tobytes()
    return w


def _check(x, a, what):
    before, v = host(x).tobytes(), x._version
    r = xp.relu(x)
    g = host(r)
    w = _want(a)
    assert g.dtype == w.dtype and g.shape == w.shape, what
    assert g.tobytes() == w.tobytes(), f"{what}: not torch.relu's bits"
    assert host(x).tobytes() == before and x._version == v, f"{what}: the input changed"
    assert r is not x and r._version == 0


@settings(max_examples=150, deadline=None)
@given(n=hs.integers(0, 5000), dt=hs.sampled_from([np.float32, np.float64]), seed=hs.integers(0, 2**32 - 1))
def test_relu_bits_every_small_size_and_layout(n, dt, seed):
    a = _data(n, dt, seed)
    x = xp.asarray(a, device="cpu")
    _check(x, a, f"n={n}")
    _check(x[::-1], a[::-1], f"n={n} reversed")
    _check(x[1::3], a[1::3], f"n={n} step 3")
    if n >= 6 and n % 2 == 0:
        m = a.reshape(2, -1)
        _check(xp.asarray(m, device="cpu"), m, f"n={n} 2-D")
        _check(xp.asarray(m, device="cpu").T, m.T, f"n={n} transposed")


def test_relu_zero_d_and_empty():
    for dt in (np.float32, np.float64):
        for v in (-0.0, -2.5, 3.0, np.nan):
            a = np.array(v, dt)
            _check(xp.asarray(a, device="cpu"), a, f"0-d {v}")
        e = np.zeros((3, 0), dt)
        _check(xp.asarray(e, device="cpu"), e, "empty")




def test_relu_bits_around_the_thresholds(nthreads):
    for dt in (np.float32, np.float64):
        isz = np.dtype(dt).itemsize
        sizes = set()
        for t in (pool.get_pool_threshold(), threads.get_thread_threshold()):
            sizes.update((t // isz - 1, t // isz, t // isz + 1))
        for n in sorted(sizes):
            a = _data(n, dt, n)
            x = xp.asarray(a, device="cpu")
            _check(x, a, f"n={n} {np.dtype(dt).name} threads={nthreads}")
            _check(x[::2], a[::2], f"n={n} strided")


def test_relu_other_dtypes_and_doors_unchanged():
    i = np.array([-3, 0, 5], np.int32)
    r = xp.relu(xp.asarray(i, device="cpu"))
    assert r.dtype == xp.int32 and host(r).tolist() == [0, 0, 5]
    h = np.array([-1.0, -0.0, 2.0, np.nan], np.float16)
    assert host(xp.relu(xp.asarray(h, device="cpu"))).tobytes() == torch.relu(torch.from_numpy(h)).numpy().tobytes()
    a = _data(100, np.float32, 5)
    x = xp.asarray(a, device="cpu")
    assert host(x.relu()).tobytes() == _want(a).tobytes()
    # in place (strided.torch's F.relu(inplace=True)): the same bits, the version moves once
    import strided.torch.nn.functional as F
    y = xp.asarray(a.copy(), device="cpu")
    v = y._version
    assert F.relu(y, inplace=True) is y
    assert host(y).tobytes() == _want(a).tobytes() and y._version == v + 1


def test_relu_named_and_autograd_unchanged():
    a = _data(12, np.float32, 3).reshape(3, 4)
    n = xp.asarray(a, device="cpu").rename("N", "C")
    r = xp.relu(n)
    assert r.names == ("N", "C") and host(r).tobytes() == _want(a).tobytes()
    g = np.array([-1.0, 0.0, 2.0, -0.0, np.nan], np.float32)
    t = xp.asarray(g.copy(), device="cpu", requires_grad=True)
    xp.relu(t).backward(xp.asarray(np.arange(1, 6, dtype=np.float32), device="cpu"))
    tt = torch.from_numpy(g.copy()).requires_grad_(True)
    torch.relu(tt).backward(torch.arange(1, 6, dtype=torch.float32))
    assert host(t.grad).tobytes() == tt.grad.numpy().tobytes()


@pytest.mark.skipif(dispatch.CHOT is None, reason="the compiled hot path is not built (or STRIDED_NO_CEXT=1)")
def test_compiled_relu_runs_no_python():
    """A small float relu is answered in C: the Python kernel (activations.relu_kernel's
    relu) is not entered. (Under STRIDED_NO_CEXT=1 the kernel is the path: skipped.)"""
    from strided._api import activations
    kernel_code = activations.relu_kernel(lambda *a: None).__code__
    seen = []

    def prof(frame, event, arg):
        if event == "call" and frame.f_code is kernel_code:
            seen.append(frame.f_code.co_name)

    for dt in (np.float32, np.float64):
        x = xp.asarray(_data(50, dt, 1), device="cpu")
        xp.relu(x)  # (the first call resolves the loop)
        sys.setprofile(prof)
        try:
            for _ in range(3):
                xp.relu(x)
                xp.relu(x[::2])
        finally:
            sys.setprofile(None)
    assert seen == [], "relu's Python kernel ran: the compiled loop was not used"
    # (the kernel itself is reachable: a float16 relu runs it)
    sys.setprofile(prof)
    try:
        xp.relu(xp.asarray(np.ones(3, np.float16), device="cpu"))
    finally:
        sys.setprofile(None)
    assert seen, "the profile hook sees the kernel when it runs"
