"""hardtanh and leaky_relu in one compiled pass (_ckernels.act, called by the kernels of
strided/_api/activations.py for C-contiguous float32/float64 arrays): the values must be the
NumPy formulas' that define them (activations.py), bit for bit -- NaN payloads (signalling
ones too), -0.0, infinities, parameters that round in float32 or overflow it, in place and
into a fresh result, every size class and one or two threads -- and, where PyTorch defines
the same values, PyTorch's. The formulas run here with NumPy alone."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._api import activations as A
from strided._core import pool, threads

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


@pytest.fixture(autouse=True)
def _quiet_references():
    with np.errstate(all="ignore"):
        yield


_PAY = {np.dtype(np.float32): np.array([0x7FC01234, 0xFFC00001, 0x7F800001, 0xFF800ABC], np.uint32),
        np.dtype(np.float64): np.array([0x7FF8000000001234, 0xFFF0000000000001, 0x7FF0000000000ABC], np.uint64)}


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 3).astype(dt)
    special = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 1e-45, -5e-324], dt),
                              _PAY[np.dtype(dt)].view(dt)])
    k = min(n, special.size)
    a[rng.choice(n, k, replace=False) if n else []] = special[:k]
    return a


def _hardtanh(a, lo, hi):  # activations.hardtanh's formula
    t = np.where(a < lo, lo, a)
    return np.where(t > hi, hi, t).astype(a.dtype, copy=False)


def _leaky(a, s):  # activations.leaky_relu's formula
    return np.maximum(a, a * s) if 0 < s < 1 else np.where(a > 0, a, a * s)


_BOUNDS = [(-1.0, 1.0), (0.0, 6.0), (-0.1, 0.3), (-1e300, 1e300), (2.0, 1.0), (-np.inf, 0.5), (1e-46, 3.0)]
_SLOPES = [0.01, 0.2, 0.0, 1.0, 2.5, -0.3, 1e-40, 0.1]


@settings(max_examples=150, deadline=None)
@given(n=hs.integers(0, 3000), dt=hs.sampled_from([np.float32, np.float64]), seed=hs.integers(0, 2**32 - 1),
       b=hs.sampled_from(_BOUNDS), s=hs.sampled_from(_SLOPES))
def test_one_pass_is_the_formula(n, dt, seed, b, s):
    a = _data(n, dt, seed)
    before = a.tobytes()
    assert A.hardtanh(np, a, *b).tobytes() == _hardtanh(a, *b).tobytes(), b
    assert A.leaky_relu(np, a, s).tobytes() == _leaky(a, s).tobytes(), s
    assert a.tobytes() == before
    # the public doors: strided's functions, PyTorch's spelling, in place
    x = xp.asarray(a, device="cpu")
    import strided.torch.nn.functional as F
    assert host(F.leaky_relu(x, s)).tobytes() == _leaky(a, s).tobytes()
    if b[0] > b[1]:  # PyTorch refuses these bounds; so does strided's function
        with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
            xp.hardtanh(x, *b)
        return
    assert host(xp.hardtanh(x, *b)).tobytes() == _hardtanh(a, *b).tobytes()
    y = xp.asarray(a.copy(), device="cpu")
    v = y._version
    assert F.hardtanh(y, *b, inplace=True) is y and y._version == v + 1
    assert host(y).tobytes() == _hardtanh(a, *b).tobytes()


def test_large_and_threaded(nthreads):
    for dt in (np.float32, np.float64):
        isz = np.dtype(dt).itemsize
        for n in sorted({pool.get_pool_threshold() // isz + 1, threads.get_thread_threshold() // isz + 5}):
            a = _data(n, dt, n)
            assert A.hardtanh(np, a, -0.5, 0.25).tobytes() == _hardtanh(a, -0.5, 0.25).tobytes()
            assert A.leaky_relu(np, a, 0.05).tobytes() == _leaky(a, 0.05).tobytes()
            assert A.leaky_relu(np, a, 3.0).tobytes() == _leaky(a, 3.0).tobytes()
            s = a[::2]  # not contiguous: the formula itself
            assert A.hardtanh(np, s).tobytes() == _hardtanh(s, -1.0, 1.0).tobytes()


def test_pytorchs_values_where_pytorch_defines_them():
    torch = pytest.importorskip("torch")
    a = _data(5000, np.float32, 3)
    a[np.isnan(a)] = np.float32(np.nan)  # (PyTorch quiets NaNs its own way: compare the rest)
    t = torch.from_numpy(a.copy())
    for lo, hi in ((-1.0, 1.0), (0.0, 6.0), (-0.1, 0.3)):
        assert A.hardtanh(np, a, lo, hi).tobytes() == torch.nn.functional.hardtanh(t, lo, hi).numpy().tobytes()
    for s in (0.01, 0.2, 2.5, -0.3):
        assert np.array_equal(A.leaky_relu(np, a, s), torch.nn.functional.leaky_relu(t, s).numpy(), equal_nan=True)


def test_bad_calls_are_refused():
    ck = pytest.importorskip("strided._csrc._ckernels")
    a = np.ones(10, np.float32)
    with pytest.raises(ValueError, match="unknown op 8"):
        ck.act(8, a, np.empty_like(a), 0.0, 0.0, 1)
    assert ck.act(0, a, np.empty(10, np.float64), 0.0, 1.0, 1) is False  # dtypes differ
    assert ck.act(0, a, np.empty(9, np.float32), 0.0, 1.0, 1) is False  # sizes differ
    assert ck.act(0, a.astype(np.int32), np.empty(10, np.int32), 0.0, 1.0, 1) is False
