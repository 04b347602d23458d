"""Results on both sides of every size class of an elementwise call (strided/_csrc/_chot/loops.c,
"large results"): numpy.empty below the pool threshold, a pooled buffer from it, the thread
threshold from which the C pool splits the calls it can. Each class must be the reference
made faster: NumPy's values bit for bit (NaN payloads, signed zeros), its dtype and shape,
the inputs' bytes and versions untouched, out= and in-place writes bumping the owner's
version once; views, non-contiguous, broadcast and transposed operands (the compiled path
declines some of those: the Python path must then give the same answer), every dtype, one
thread and two. The compiled path and the Python one run the same checks: this file runs
as is, with STRIDED_NO_CEXT=1 and with STRIDED_NO_CEXT=_cpool (the Python pool behind the
C hot path), and over the cuda stand-in (the host paths are pinned to the CPU here).
"""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided._core import dispatch, pool, threads

from conftest import host

# (the same test whatever the default device: CI's stand-in leg leaves it out)
pytestmark = pytest.mark.host_pinned

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64, np.float16,
          np.float32, np.float64, np.complex64, np.complex128]
_PAYLOAD = {np.dtype(np.float32): np.uint32(0x7FC01234), np.dtype(np.float64): np.uint64(0xFFF8000000ABCDEF)}


def _sizes(itemsize: int) -> list:
    """Element counts whose result bytes sit just below, at and just above the pool threshold
    and the thread threshold (as set now: the environment may move the pool's)."""
    out = set()
    for t in (pool.get_pool_threshold(), threads.get_thread_threshold()):
        k = t // itemsize
        out.update(m for m in (k - 1, k, k + 1) if m > 0)
    return sorted(out)


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(n) > 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True).astype(dt)
    a = (rng.standard_normal(n) * 10).astype(dt)
    if dt.kind == "c":
        a = a + 1j * (rng.standard_normal(n) * 10).astype(dt)
    k = min(n, 9)
    a[rng.integers(0, n, k)] = np.resize(np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dt), k)
    if dt in _PAYLOAD and n > 3:
        a[rng.integers(0, n, 3)] = _PAYLOAD[dt].view(dt)  # a NaN with a payload (and a sign)
    return a


def _cpu(a):
    return xp.asarray(a, device="cpu")


def _same(got, want, what):
    g = host(got)
    assert g.dtype == want.dtype, f"{what}: dtype {g.dtype} != NumPy's {want.dtype}"
    assert g.shape == want.shape, f"{what}: shape {g.shape} != NumPy's {want.shape}"
    assert g.tobytes() == want.tobytes(), f"{what}: values differ from NumPy's (bit for bit)"


def _check_untouched(arrays, saved, versions, what):
    for x, s, v in zip(arrays, saved, versions):
        assert host(x).tobytes() == s, f"{what}: an input's values changed"
        assert x._version == v, f"{what}: an input's version moved"


@pytest.fixture(autouse=True)
def _quiet_references():
    with np.errstate(all="ignore"):  # NumPy's references (inf * 0, nan < x) warn; strided's don't
        yield




_BINARY = [("add", np.add, lambda a, b: a + b), ("multiply", np.multiply, lambda a, b: a * b),
           ("less", np.less, lambda a, b: a < b), ("maximum", np.maximum, xp.maximum)]


def _res_itemsize(ufunc, dt):
    return np.dtype(ufunc.resolve_dtypes((np.dtype(dt), np.dtype(dt), None))[2]).itemsize


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", _BINARY, ids=lambda o: o[0])
def test_binary_around_the_thresholds(op, dt, nthreads):
    name, uf, f = op
    if name in ("less", "maximum") and np.dtype(dt).kind == "c":
        pytest.skip("complex numbers have no order in the standard (strided refuses them)")
    if dt is np.bool_:
        pytest.skip("the standard's type rules refuse these on bools (where covers bool results)")
    for n in _sizes(_res_itemsize(uf, dt)):
        a0, b0 = _data(n, dt, n), _data(n, dt, n + 1)
        a, b = _cpu(a0), _cpu(b0)
        saved, vers = [a0.tobytes(), b0.tobytes()], [a._version, b._version]
        what = f"{name} {np.dtype(dt).name} n={n}"
        _same(f(a, b), uf(a0, b0), what)
        # views: reversed (a negative stride) and every other element (non-contiguous)
        _same(f(a[::-1], b[::-1]), uf(a0[::-1], b0[::-1]), what + " reversed")
        _same(f(a[:-1:2], b[1::2]), uf(a0[:-1:2], b0[1::2]), what + " strided")
        _check_untouched([a, b], saved, vers, what)


@pytest.mark.parametrize("dt", [np.int16, np.int64, np.float32, np.float64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_layouts_broadcast_scalars_and_2d(dt, nthreads):
    isz = np.dtype(dt).itemsize
    for n in _sizes(isz):
        rows = max(2, n // 64)
        a0, b0 = _data(rows * 64, dt, 1).reshape(rows, 64), _data(rows * 64, dt, 2).reshape(rows, 64)
        a, b = _cpu(a0), _cpu(b0)
        what = f"{np.dtype(dt).name} {rows}x64"
        _same(a + b, a0 + b0, what + " C-contiguous 2-D")
        _same(a.T * b.T, a0.T * b0.T, what + " transposed (F-ordered)")
        _same(a[:, ::2] - b[:, 1::2], a0[:, ::2] - b0[:, 1::2], what + " 2-D non-contiguous")
        _same(a + b[0], a0 + b0[0], what + " broadcast row")
        _same(a * b[:, :1], a0 * b0[:, :1], what + " broadcast column")
        scalar = 3 if np.dtype(dt).kind in "iu" else 2.5
        _same(a * scalar, a0 * dt(scalar) if np.dtype(dt).kind == "c" else a0 * scalar, what + " * scalar")
        _same(scalar - a, scalar - a0, what + " scalar -")


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, np.complex64],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("fn", ["exp", "negative", "sqrt", "abs"])
def test_unary_around_the_thresholds(fn, dt, nthreads):
    uf = {"abs": np.absolute}.get(fn, getattr(np, fn))
    for n in _sizes(np.dtype(uf.resolve_dtypes((np.dtype(dt), None))[1]).itemsize):
        a0 = _data(n, dt, n)
        a = _cpu(a0)
        saved, vers = [a0.tobytes()], [a._version]
        with np.errstate(all="ignore"):
            _same(getattr(xp, fn)(a), uf(a0), f"{fn} {np.dtype(dt).name} n={n}")
            _same(getattr(xp, fn)(a[::-3]), uf(a0[::-3]), f"{fn} {np.dtype(dt).name} n={n} strided")
        _check_untouched([a], saved, vers, fn)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_where_around_the_thresholds(dt, nthreads):
    for n in _sizes(np.dtype(dt).itemsize):
        c0, a0, b0 = _data(n, np.bool_, 7), _data(n, dt, n), _data(n, dt, n + 1)
        c, a, b = _cpu(c0), _cpu(a0), _cpu(b0)
        saved, vers = [c0.tobytes(), a0.tobytes(), b0.tobytes()], [c._version, a._version, b._version]
        what = f"where {np.dtype(dt).name} n={n}"
        _same(xp.where(c, a, b), np.where(c0, a0, b0), what)
        _same(xp.where(c[::-1], a[::-1], b), np.where(c0[::-1], a0[::-1], b0), what + " reversed")
        _same(xp.where(c[:-1:2], a[1::2], b[:-1:2]), np.where(c0[:-1:2], a0[1::2], b0[:-1:2]), what + " strided")
        _same(xp.where(c, a, b[:1]), np.where(c0, a0, b0[:1]), what + " broadcast")
        _same(xp.where(c[:1], a, b), np.where(c0[:1], a0, b0), what + " broadcast condition")
        _check_untouched([c, a, b], saved, vers, what)


def test_where_unaligned_values():
    # a view one byte into a buffer: NumPy's ALIGNED flag is off; the bytes are copied as they are
    n = pool.get_pool_threshold() // 8 + 3
    raw = np.frombuffer(_data(n + 1, np.float64, 3).tobytes(), np.uint8)
    a0 = raw[1:1 + 8 * n].view(np.float64)
    assert not a0.flags.aligned
    b0, c0 = _data(n, np.float64, 4), _data(n, np.bool_, 5)
    _same(xp.where(_cpu(c0), _cpu(a0), _cpu(b0)), np.where(c0, a0, b0), "where, unaligned x1")


@pytest.mark.parametrize("dt", [np.int32, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_out_and_in_place_around_the_thresholds(dt, nthreads):
    for n in _sizes(np.dtype(dt).itemsize):
        a0, b0 = _data(n, dt, n), _data(n, dt, n + 1)
        a, b = _cpu(a0), _cpu(b0)
        out = _cpu(np.zeros(n, dt))
        v = out._version
        r = xp.add(a, b, out=out)
        assert r is out and out._version > v
        _same(out, a0 + b0, f"add out= n={n}")
        t = _cpu(a0.copy())
        v = t._version
        t += b
        assert t._version > v
        _same(t, a0 + b0, f"+= n={n}")
        assert host(a).tobytes() == a0.tobytes() and host(b).tobytes() == b0.tobytes()


def test_temporaries_and_chains_around_the_thresholds(nthreads):
    # a * b + c: the temporary may be elided (its buffer reused), pooled or fresh; every way
    # gives NumPy's value, and nothing the user holds is written
    for n in _sizes(4):
        a0, b0, c0 = (_data(n, np.float32, s) for s in (1, 2, 3))
        a, b, c = _cpu(a0), _cpu(b0), _cpu(c0)
        _same(a * b + c, a0 * b0 + c0, f"a * b + c n={n}")
        t = a * b
        r = t + c
        _same(t, a0 * b0, f"a named temporary n={n}")
        _same(r, a0 * b0 + c0, f"t + c n={n}")
        for x, x0 in ((a, a0), (b, b0), (c, c0)):
            assert host(x).tobytes() == x0.tobytes()


def test_pooled_results_come_from_the_pool():
    # at and above the pool threshold a result is a pool block (its base), below it NumPy's
    thr = pool.get_pool_threshold()
    for n, pooled in ((thr // 4 - 1, False), (thr // 4, True)):
        a = _cpu(np.ones(n, np.float32))
        r = a + a
        base = r._np.base
        assert (type(base) is pool._Block) is pooled, (n, type(base))
        if dispatch.CHOT is not None:  # (the Python where leaves its result to numpy.where)
            w = xp.where(_cpu(np.ones(n, bool)), a, a)
            assert (type(w._np.base) is pool._Block) is pooled, ("where", n)


def test_results_do_not_depend_on_the_thresholds():
    # the same call with the pool off, on for everything, and threads for everything
    a0, b0 = _data(70_001, np.float32, 11), _data(70_001, np.float32, 12)
    a, b = _cpu(a0), _cpu(b0)
    want = (a0 * b0).tobytes()
    old_p, old_t, old_n = pool.get_pool_threshold(), threads.get_thread_threshold(), xp.get_num_threads()
    try:
        for p, t, nt in ((1 << 40, 1 << 40, 1), (1, 1 << 40, 1), (1, 1, 2), (1 << 40, 1, 3)):
            pool.set_pool_threshold(p)
            threads.set_thread_threshold(t)
            xp.set_num_threads(nt)
            assert host(a * b).tobytes() == want, (p, t, nt)
            assert host(xp.where(a < b, a, b)).tobytes() == np.where(a0 < b0, a0, b0).tobytes()
    finally:
        pool.set_pool_threshold(old_p)
        threads.set_thread_threshold(old_t)
        xp.set_num_threads(old_n)
