"""astype's range check of a float-to-integer cast in one compiled pass (``_ckernels.cast_ok``):
for every element, ``trunc(v) >= lo and v < hi`` with NaN never in range. The reference is that
definition written with NumPy (``np.trunc`` and the comparisons, element by element), on bit
patterns dense at the bounds of every integer type; and astype warns exactly when the reference
finds a value out of range, with the values NumPy's cast gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core import threads

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_CK = threads._CK
_TARGETS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def _bounds(t):
    info = np.iinfo(t)
    return float(info.min), 2.0 ** (info.bits - (info.kind == "i"))


def _near_bounds(rng, dt, t, n):
    """n values of dt: the bounds of t, their neighbours, halves, NaN, infinities, random."""
    lo, hi = _bounds(t)
    base = np.array([lo, hi, lo - 1, hi - 1, lo + 1, lo - 0.5, hi - 0.5, 0.0, -0.0, -0.99, 0.99,
                     np.nan, -np.nan, np.inf, -np.inf], np.float64).astype(dt)
    near = np.concatenate([base, np.nextafter(base, np.inf, dtype=dt), np.nextafter(base, -np.inf, dtype=dt)])
    rand = (rng.standard_normal(n) * rng.choice([1, 1e3, abs(lo) + 1, hi], n)).astype(dt)
    return np.concatenate([near, rand])


def _reference(a, lo, hi):
    with np.errstate(invalid="ignore"):
        return bool(np.all((np.trunc(a) >= lo) & (a < hi)))


@pytest.mark.skipif(_CK is None, reason="the compiled kernels are not built (or STRIDED_NO_CEXT=1)")
@settings(max_examples=60, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), dt=hs.sampled_from([np.float32, np.float64]),
       t=hs.sampled_from(_TARGETS), n=hs.integers(0, 300))
def test_cast_ok_is_the_definition(seed, dt, t, n):
    rng = np.random.default_rng(seed)
    vals = _near_bounds(rng, dt, t, n)
    lo, hi = _bounds(t)
    for k in range(vals.size):  # each value between in-range ones
        one = np.concatenate([np.zeros(k % 5, dt), vals[k:k + 1], np.ones(3, dt)])
        assert _CK.cast_ok(one, lo, hi) is _reference(one, lo, hi), (dt, t, vals[k])
    assert _CK.cast_ok(vals, lo, hi) is _reference(vals, lo, hi)


@pytest.mark.skipif(_CK is None, reason="the compiled kernels are not built (or STRIDED_NO_CEXT=1)")
def test_cast_ok_declines_what_it_does_not_read():
    assert _CK.cast_ok(np.arange(6.0)[::2], 0.0, 9.0) is None  # not contiguous
    assert _CK.cast_ok(np.arange(3, dtype=np.int32), 0.0, 9.0) is None
    assert _CK.cast_ok(np.arange(3, dtype=np.float16), 0.0, 9.0) is None
    assert _CK.cast_ok(np.arange(3, dtype=np.float32), 0.0, 2.0**24 + 1) is None  # not a float32 bound


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), dt=hs.sampled_from([np.float32, np.float64]),
       t=hs.sampled_from(_TARGETS), step=hs.sampled_from([1, 2]))
def test_astype_warns_exactly_when_a_value_is_out_of_range(seed, dt, t, step):
    rng = np.random.default_rng(seed)
    vals = _near_bounds(rng, dt, t, 20)
    lo, hi = _bounds(t)
    picks = [vals[k:k + 1] for k in range(45)]  # every value near the bounds alone
    picks += [vals[rng.integers(0, vals.size, 3)][::step], rng.standard_normal(9).astype(dt)[::step]]
    for a in picks:
        bad = not _reference(a, lo, hi)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = xp.astype(xp.asarray(a, device="cpu"), getattr(xp, t))
        ours = [m for m in w if "invalid value" in str(m.message)]
        assert bool(ours) is bad, (a, t)
        assert r.dtype == getattr(xp, t)
        if not bad:
            assert np.asarray(r).tobytes() == a.astype(t).tobytes()
