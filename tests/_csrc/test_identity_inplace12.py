"""Rounding an integer array in place (``x.round_()``, ``floor(x, out=x)``, ...) is its own
value: NumPy's copy of an array onto itself writes nothing, and neither does strided's
pipeline (``_chot/loops.c``, ``loop_into``; ``elementwise._onto_itself`` on the Python path).
What must still happen is everything else a write does: the result is the target itself,
its version (and its base's, for a view) goes up by exactly one, a read-only or
self-overlapping target is refused, and a different target gets the values. The reference
is NumPy's ``np.round``/``np.floor``/... on a copy."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
_OPS = ["round", "floor", "ceil", "trunc", "positive"]


def _data(dt, n):
    info = np.iinfo(dt)
    a = np.random.default_rng(n).integers(info.min, info.max, n, dtype=dt, endpoint=True)
    a[: min(n, 2)] = [info.min, info.max][: min(n, 2)]
    return a


def _into_itself(x, op, how):
    if how == "method":
        return getattr(x, op + "_")() if op != "positive" else xp.positive(x, out=x)
    return getattr(xp, op)(x, out=x)


@pytest.mark.parametrize("dt", _INTS)
@pytest.mark.parametrize("n", [1, 100, 70_000, 1_000_000])
@pytest.mark.parametrize("how", ["method", "out"])
def test_in_place_onto_itself_is_the_value_and_a_version(dt, n, how):
    a = _data(dt, n)
    x = xp.asarray(a.copy(), device="cpu")
    for op in _OPS:
        v = x._version
        r = _into_itself(x, op, how)
        assert r is x, op
        assert x._version == v + 1, f"{op}: version {v} -> {x._version}"
        g = host(x)
        assert g.dtype == a.dtype and g.tobytes() == getattr(np, op)(a).tobytes(), op


@pytest.mark.parametrize("dt", ["int32", "uint64"])
def test_views_other_targets_and_overlap(dt):
    a = _data(dt, 10_001)
    base = xp.asarray(a.copy(), device="cpu")
    for sl in (slice(None, None, 2), slice(3, None), slice(None, None, -1)):
        y = base[sl]
        vb = base._version
        xp.floor(y, out=y)
        assert base._version == vb + 1 and host(base).tobytes() == a.tobytes()
    # a different target gets the values (nothing skipped there)
    for z in (xp.zeros(a.shape, dtype=getattr(xp, dt), device="cpu"),
              xp.zeros((2 * a.size,), dtype=getattr(xp, dt), device="cpu")[::2]):
        xp.round(xp.asarray(a, device="cpu"), out=z)
        assert host(z).tobytes() == a.tobytes()
    # overlapping but not the same elements: the values shift as NumPy's buffered copy does
    q = xp.asarray(a.copy(), device="cpu")
    xp.trunc(q[:-1], out=q[1:])
    want = a.copy()
    np.trunc(want[:-1], out=want[1:])
    assert host(q).tobytes() == want.tobytes()


def test_refusals_stand():
    x = xp.asarray(np.arange(6, dtype=np.int64), device="cpu")
    b = xp.broadcast_to(x[:1], (6,))  # every element the same memory
    with pytest.raises(RuntimeError, match="(?i)overlap|single memory location"):
        xp.floor(b, out=b)


@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 7, 100, 70_000])
def test_positive_and_real_of_floats_copy_every_bit(dt, n):
    """positive (and real of a real float) is NumPy's positive loop in the compiled path: a
    copy of each element's bits, signalling NaNs, payloads and -0.0 included; onto itself it
    writes nothing and bumps the version."""
    rng = np.random.default_rng(n)
    isz = np.dtype(dt).itemsize
    a = rng.integers(0, 256, n * isz, dtype=np.uint8).view(dt).copy()  # any bits
    x = xp.asarray(a.copy(), device="cpu")
    for r in (xp.positive(x), +x) + ((xp.real(x),) if np.dtype(dt).kind == "f" else ()):
        assert host(r).dtype == a.dtype and host(r).tobytes() == a.tobytes()
        assert r is not x
    v = x._version
    assert xp.positive(x, out=x) is x and x._version == v + 1 and host(x).tobytes() == a.tobytes()
    y = xp.empty(a.shape, dtype=x.dtype, device="cpu")
    xp.positive(x, out=y)
    assert host(y).tobytes() == a.tobytes()
