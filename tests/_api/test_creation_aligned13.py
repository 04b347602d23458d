"""The creation functions' host buffers start a cache line from 16 KiB on (creation.py,
_host_empty/_host_filled: _chot.aligned_empty below the pool threshold, the pool's blocks
from it; zeros above it keep NumPy's calloc), with NumPy's values: ``numpy.zeros``,
``numpy.ones``, ``numpy.full`` of the same arguments, bit for bit, for every dtype and fill
(NaN, -0.0, a float into an integer dtype as NumPy casts it), each call a buffer of its own."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._api import creation
from strided._core import pool

from conftest import host

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

_DT = [xp.float32, xp.float64, xp.int8, xp.int32, xp.int64, xp.uint16, xp.bool, xp.complex64, xp.complex128,
       xp.float16]
_LO = 16 << 10


def _np(dt):
    return np.dtype(dt.name)


def _check(r, want, name):
    n = host(r)
    assert n.dtype == want.dtype and n.shape == want.shape
    np.testing.assert_array_equal(n.view(np.uint8), want.view(np.uint8))
    nb = want.nbytes
    # (without the compiled path, STRIDED_NO_CEXT=1, only the pool's blocks: a speed, not a value)
    lo = _LO if creation._ALIGNED_EMPTY is not None else pool.MIN_BYTES[0]
    if nb >= lo and not (name == "zeros" and nb >= pool.MIN_BYTES[0]):
        assert n.ctypes.data % 64 == 0, (name, nb, n.ctypes.data % 64)
    assert n.flags.c_contiguous and n.flags.writeable


@settings(max_examples=50, deadline=None)
@given(dt=hs.sampled_from(_DT), n=hs.sampled_from([0, 7, 1000, 4096, 5000, 16384, 40000, 70000, 300000]),
       two_d=hs.booleans())
def test_zeros_ones_empty(dt, n, two_d):
    shape = (2, n // 2) if two_d else (n,)
    nd = _np(dt)
    _check(xp.zeros(shape, dtype=dt), np.zeros(shape, nd), "zeros")
    _check(xp.ones(shape, dtype=dt), np.ones(shape, nd), "ones")
    e = xp.empty(shape, dtype=dt)
    _check(xp.full(shape, True, dtype=dt) if dt == xp.bool else xp.zeros_like(e), np.full(shape, True, nd)
           if dt == xp.bool else np.zeros(shape, nd), "full" if dt == xp.bool else "zeros")
    a, b = xp.ones(shape, dtype=dt), xp.ones(shape, dtype=dt)  # (buffers of their own)
    if n:
        assert not np.shares_memory(host(a), host(b))
        host(a)[(0,) * len(shape)] = 0
        assert host(b)[(0,) * len(shape)] == 1


@settings(max_examples=50, deadline=None)
@given(fill=hs.one_of(hs.floats(allow_nan=True, allow_infinity=True, width=32), hs.integers(-100, 100),
                      hs.sampled_from([0, 0.0, -0.0, 2.5, -7.75, 1e30])),
       dt=hs.sampled_from([None, xp.float32, xp.float64, xp.int32, xp.int64, xp.complex128]),
       n=hs.sampled_from([3, 5000, 20000, 70000, 300000]))
def test_full_is_numpys(fill, dt, n):
    nd = None if dt is None else _np(dt)
    with np.errstate(all="ignore"):  # (strided's functions run under "ignore" too)
        try:
            got = xp.full(n, fill, dtype=dt)
        except (OverflowError, ValueError, TypeError):
            assume(False)  # (a fill strided refuses for the dtype: its own rule, tested elsewhere)
        want = np.full(n, fill, nd)
    if dt is None:  # (the scalar's default dtype)
        want = want.astype(_np(got.dtype))
    # (a Python int 0 is zeros' fill: from the pool threshold it keeps calloc's pages, as zeros
    # does, creation._host_filled; full's short path for the default int64 allocates its own)
    name = "zeros" if type(fill) is int and fill == 0 else "full"
    _check(got, want, name)
    like = xp.full_like(got, fill)
    _check(like, want, name)


def test_zeros_from_the_pool_threshold_keep_callocs_pages():
    n = pool.MIN_BYTES[0] // 8 + 1000
    z = xp.zeros(n, dtype=xp.float64)
    assert z._get_native().flags.owndata  # (NumPy's own calloc'd buffer)
    assert not xp.ones(n, dtype=xp.float64)._get_native().flags.owndata  # (a pool block's)
    assert not host(z).any()


@pytest.mark.skipif(creation._ALIGNED_EMPTY is None, reason="the compiled path is not built (STRIDED_NO_CEXT=1)")
def test_aligned_empty_checks_its_arguments():
    f = creation._ALIGNED_EMPTY
    f64 = np.dtype(np.float64)
    assert f((10,), f64) is None and f((), f64) is None  # (below 16 KiB: NumPy's)
    assert f((10**12,), f64) is None  # (beyond the pool threshold)
    r = f((3000,), f64)
    assert r.shape == (3000,) and r.dtype == f64 and r.ctypes.data % 64 == 0
    for bad in (([3000], f64), ((3000,), "float64"), ((-1,), f64), ((3000.0,), f64), ((3000,),)):
        with pytest.raises(TypeError):
            f(*bad)
