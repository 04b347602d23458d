"""Temporary elision by the compiled loop (strided/_csrc/_chot/fast.c, ``fast_binary_into``):
once elide.c has proved that the interpreter's stack alone holds a temporary operand, the
Fast's loop (NumPy's) writes the result into the temporary's own buffer. The result must
be NumPy's bits (NaN payloads, -0.0) for every operator and dtype that elides, with a
scalar on either side, 1-D and N-d; the held operands' bytes and versions untouched; and
no elision (a fresh buffer, the same values) where the buffer is seen by anyone else:
a NumPy view exported from it, a weak reference, a name, a view of it, broadcasting or
promotion. Host arrays (``device="cpu"``): the loop is a host loop."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided._api import elementwise
from strided._core import dispatch

from conftest import host

COMPILED = elementwise.COMPILED and dispatch.CHOT is not None
ON = COMPILED and dispatch.CHOT.elision_state()[0]
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(not ON, reason="compiled elision is off (not built, STRIDED_NO_CEXT=1, "
                                "or no call-chain check on this Python)")]
N = 300_000  # float32 1.2 MB, float64 2.4 MB: above the elide-first size (1 MiB)
_PAYLOAD = {np.dtype(np.float32): np.uint32(0x7FC01234), np.dtype(np.float64): np.uint64(0xFFF8000000ABCDEF)}


@pytest.fixture(autouse=True)
def _one_thread_quiet():
    old = xp.get_num_threads()
    xp.set_num_threads(1)  # (two threads: large results go to the Python half's thread pool)
    with np.errstate(all="ignore"):
        yield
    xp.set_num_threads(old)


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dt)
    if dt.kind in "iu":
        return rng.integers(-50, 50, n).astype(dt)
    a = (rng.standard_normal(n) * 10).astype(dt)
    a[rng.integers(0, n, 6)] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -0.0], dt)
    a[rng.integers(0, n)] = _PAYLOAD[dt].view(dt)
    return a


def _count():
    return dispatch.CHOT.elided_calls()


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_elided_values_are_numpys(dt):
    A, B, C = (_data(N, dt, s) for s in range(3))
    a, b, c = (xp.asarray(v, device="cpu") for v in (A, B, C))
    saved = [v.tobytes() for v in (A, B, C)]
    vers = [v._version for v in (a, b, c)]
    cases = [(lambda: a * b + c, A * B + C), (lambda: c - a * b, C - A * B),
             (lambda: (a - b) * c, (A - B) * C), (lambda: xp.add(xp.multiply(a, b), c), A * B + C),
             (lambda: xp.subtract(c, xp.multiply(a, b)), C - A * B)]
    if np.dtype(dt).kind == "f":
        cases += [(lambda: 2.0 - a * b, 2.0 - A * B), (lambda: a * b * 0.5, A * B * 0.5),
                  (lambda: (a + b) / c, (A + B) / C), (lambda: xp.divide(a - b, c), (A - B) / C)]
    else:
        cases += [(lambda: 3 - a * b, 3 - A * B), (lambda: (a + b) * 2, (A + B) * 2)]
    for i, (f, want) in enumerate(cases):
        before = _count()
        r = f()
        g = host(r)
        assert g.dtype == want.dtype and g.shape == want.shape, i
        assert g.tobytes() == want.tobytes(), f"case {i} {np.dtype(dt).name}: not NumPy's bits"
        assert _count() > before, f"case {i}: not elided by the compiled loop"
        assert r._version == 0
    for v, s, ver in zip((a, b, c), saved, vers):
        assert host(v).tobytes() == s and v._version == ver, "an operand changed"


def test_two_d_and_zero_size_and_chains():
    A, B, C = (_data(N, np.float32, s).reshape(600, 500) for s in range(3))
    a, b, c = (xp.asarray(v, device="cpu") for v in (A, B, C))
    before = _count()
    r = a * b + c * a - b
    assert host(r).tobytes() == (A * B + C * A - B).tobytes()
    assert _count() - before >= 2


def _not_elided(f, want):
    before = _count()
    r = f()
    assert host(r).tobytes() == np.asarray(want).tobytes()
    assert _count() == before, "elided a temporary someone else sees"
    return r


def test_no_elision_where_the_buffer_is_seen():
    A, B, C = (_data(N, np.float32, s) for s in range(3))
    a, b, c = (xp.asarray(v, device="cpu") for v in (A, B, C))
    t = a * b
    _not_elided(lambda: t + c, A * B + C)  # a name holds it
    assert host(t).tobytes() == (A * B).tobytes()

    exported = []

    def export():
        x = a * b
        exported.append(np.asarray(x))  # a NumPy view of its buffer (numpy() export)
        return x

    _not_elided(lambda: export() + c, A * B + C)
    assert exported[0].tobytes() == (A * B).tobytes()

    import weakref
    refs = []

    def tracked():
        x = a * b
        refs.append(weakref.ref(x))
        return x

    _not_elided(lambda: tracked() + c, A * B + C)

    def viewed():
        x = a * b
        refs.append(x[::2])  # a strided view shares the buffer
        return x

    _not_elided(lambda: viewed() + c, A * B + C)
    assert host(refs[-1]).tobytes() == (A * B)[::2].tobytes()
    # broadcasting into the temporary's shape is not the loop's case; promotion changes dtype
    row = xp.asarray(A[:1], device="cpu")
    _not_elided(lambda: (row * b[:1]) + c, A[:1] * B[:1] + C)
    d = xp.asarray(C.astype(np.float64), device="cpu")
    _not_elided(lambda: a * b + d, (A * B).astype(np.float64) + C.astype(np.float64))
    # reversed: the temporary is contiguous, the other operand a negative-stride view (the
    # loop takes a 1-D view of any stride: this one elides, with NumPy's values)
    # (outside an assert: pytest's rewriting names every subexpression, the temporary too)
    before = _count()
    r = a * b + c[::-1]
    assert host(r).tobytes() == (A * B + C[::-1]).tobytes()
    assert _count() == before + 1
