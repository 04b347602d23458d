"""float64 exp at AVX-512 width (strided/_csrc/_chot/loops.c, exp8 and exp_f64): where NumPy's
DOUBLE_exp runs its X86_V4 loop, each vector of eight is SVML's ``__svml_exp8_ha``, and strided
runs the same operations four vectors in flight (a vector with a lane beyond SVML's bound for its
scalar path is answered by SVML itself). The reference is NumPy's own ``np.exp`` on the same
operands: every lane position of a special value, the four-vector step's remainders, strides,
reversed operands (NumPy 2.4 takes those one element at a time through the C library's exp: the
probe finds out), overlapping ``out=``, in place, and sigmoid and silu, which build on it. On
machines where NumPy's loop is another (no AVX-512, no SVML) the loop is refused and the same
tests check NumPy's loop through strided."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided._core import dispatch

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_SPECIAL = np.array([
    0x40861DA04CBAFE44, 0x40861DA04CBAFE43, 0xC0861DA04CBAFE44, 0xC0861DA04CBAFE43,  # SVML's bound, both sides
    0x40862E42FEFA39EF, 0x40862E42FEFA39F0,  # the largest finite result, the first inf
    0xC0874910D52D3051, 0xC0874910D52D3052, 0xC086232BDD7ABCD2,  # the last subnormal results, 0
    0x7FF0000000000000, 0xFFF0000000000000,  # infinities
    0x7FF8000000000000, 0xFFF8000000ABCDEF, 0x7FF0000000000001, 0xFFF4000000000ABC,  # NaN payloads, signalling
    0x0000000000000001, 0x8000000000000000,  # the smallest subnormal, -0.0
], np.uint64).view(np.float64)


def _same(got, want, what):
    g = np.ascontiguousarray(host(got)).view(np.uint64).reshape(-1)
    w = np.ascontiguousarray(want).view(np.uint64).reshape(-1)
    bad = np.flatnonzero(g != w)
    assert bad.size == 0, f"{what}: {bad.size} values differ from NumPy's, first at index {bad[0]}"


@pytest.fixture(autouse=True)
def _quiet():
    with np.errstate(all="ignore"):
        yield


def test_a_special_value_in_every_lane_and_every_part_of_the_loop():
    """One special value among ordinary ones, at each lane of a vector, in the four-vector
    step, the one-vector step and the masked remainder: the whole vector is SVML's then."""
    rng = np.random.default_rng(20261130)
    for v in _SPECIAL:
        for n in (8, 13, 40, 77):
            base = rng.uniform(-30, 30, n)
            for p in range(n):
                a = base.copy()
                a[p] = v
                _same(xp.exp(xp.asarray(a, device="cpu")), np.exp(a), f"x[{p}]={v!r} n={n}")


def test_every_length_offset_and_layout():
    rng = np.random.default_rng(7)
    big = np.concatenate([rng.uniform(-720, 720, 500), rng.standard_normal(500) * 1e-8, _SPECIAL])
    rng.shuffle(big)
    for n in list(range(0, 70)) + [95, 96, 97, 127, 128, 129, 1000]:
        for off in (0, 1, 3):
            a = big[off:off + n]
            x = xp.asarray(big, device="cpu")[off:off + n]
            _same(xp.exp(x), np.exp(a), f"n={n} offset={off}")
            _same(xp.exp(x[::3]), np.exp(a[::3]), f"n={n} offset={off} step 3")
            _same(xp.exp(x[::-1]), np.exp(a[::-1]), f"n={n} offset={off} reversed")
            _same(xp.exp(x[::-2]), np.exp(a[::-2]), f"n={n} offset={off} step -2")


def test_out_in_place_and_overlapping():
    rng = np.random.default_rng(11)
    a = rng.uniform(-1, 1, 1001)
    cases = [("in place", lambda v: (v, v)), ("shifted down", lambda v: (v[1:], v[:-1])),
             ("shifted up", lambda v: (v[:-1], v[1:])), ("reversed out", lambda v: (v[::2], v[::-2])),
             ("into its reverse", lambda v: (v, v[::-1]))]
    for what, pick in cases:
        b = a.copy()
        src, dst = pick(b)
        np.exp(src, out=dst)
        x = xp.asarray(a.copy(), device="cpu")
        s, d = pick(x)
        r = xp.exp(s, out=d)
        assert r is d
        _same(x, b, what)
    o = np.empty(1001)
    np.exp(a, out=o[::-1])
    y = xp.empty(1001, dtype=xp.float64, device="cpu")
    xp.exp(xp.asarray(a, device="cpu"), out=y[::-1])
    _same(y, o, "out reversed")


def test_an_output_right_after_a_strided_input_is_not_an_overlap():
    """NumPy's own overlap test reaches one step past a strided input's last element, so
    NumPy answers an output that begins there with the C library's exp; strided gives the
    values NumPy gives for the same inputs anywhere else (the result does not depend on
    where the output happens to lie)."""
    rng = np.random.default_rng(3)
    for n, step in ((1000, 2), (999, 3), (64, 2)):
        buf = rng.uniform(-5, 5, n * (step + 1))
        last = step * (n - 1)
        b = xp.asarray(buf.copy(), device="cpu")
        src, dst = b[: last + 1: step], b[last + 1: last + 1 + n]
        xp.exp(src, out=dst)
        _same(dst, np.exp(buf[: last + 1: step].copy()), f"n={n} step={step}")
        _same(b[: last + 1], buf[: last + 1], "the input's memory")


def test_steps_past_numpys_bounds():
    """NumPy's SVML loop takes steps up to a bound (0x7fffffff / 16 elements in NumPy 2.4; a
    version that compares the step's bytes stops at an eighth of it) and answers longer ones
    one element at a time with the C library's exp; the probe finds the bound. Steps either
    side of the eighth, over lazily allocated zeros (three elements touched)."""
    v = -2.7196975652571345e-08  # (SVML's exp and the C library's differ in the last bit)
    for step in (16777215, 16777216, 16777217):
        big = np.zeros(step * 2 + 1)
        big[::step] = [v, 1e-3, v]
        w = big[::step]
        _same(xp.exp(xp.asarray(w, device="cpu")), np.exp(w), f"step {step}")
        del big, w


def test_sigmoid_and_silu_on_it():
    """activations' NumPy steps (negative, exp, add 1, reciprocal or divide) in float64."""
    rng = np.random.default_rng(5)
    a = np.concatenate([rng.uniform(-800, 800, 3000), rng.standard_normal(3000), -_SPECIAL, _SPECIAL])
    for sl in (slice(None), slice(None, None, -1), slice(1, None, 3)):
        v = a[sl]
        d = np.exp(-v) + 1.0
        x = xp.asarray(a, device="cpu")[sl]
        _same(xp.sigmoid(x), np.reciprocal(d), f"sigmoid {sl}")
        _same(xp.silu(x), v / d, f"silu {sl}")


_CHILD = r"""
import sys, numpy as np, strided as xp
from strided._core import dispatch
rng = np.random.default_rng(int(sys.argv[1]))
b = rng.integers(0, 2**64, 200_000, dtype=np.uint64)
e = rng.integers(0x3C3, 0x40B, 150_000, dtype=np.uint64)
b[:150_000] = (b[:150_000] & np.uint64(0x800FFFFFFFFFFFFF)) | (e << np.uint64(52))
a = np.concatenate([np.array(sys.argv[2].split(","), np.uint64), b]).view(np.float64)
a = np.concatenate([a, np.arange(-750, 720, 2**-7)])
bad = 0
with np.errstate(all="ignore"):
    for n in (0, 1, 7, 8, 9, 31, 32, 33, 1000, a.size):
        for sl in (slice(None), slice(None, None, 3), slice(None, None, -1)):
            v = a[:n][sl]
            x = xp.asarray(v, device="cpu")
            d = np.exp(-v) + 1.0
            for name, ref in (("exp", np.exp(v)), ("sigmoid", np.reciprocal(d)), ("silu", v / d)):
                bad += np.asarray(getattr(xp, name)(x)).tobytes() != np.ascontiguousarray(ref).tobytes()
print(dispatch.CHOT.vector_width() if dispatch.CHOT is not None else 0, bad)
"""


@pytest.mark.skipif(dispatch.CHOT is None or not hasattr(dispatch.CHOT, "vector_width"),
                    reason="the compiled hot path is not built (or STRIDED_NO_CEXT=1)")
def test_float64_gives_numpys_bits_at_either_width():
    """In a fresh process each (the width and the float64 exp are decided once): AVX-512
    where the processor has it, else (STRIDED_NO_AVX512=1) the AVX2 loop of the C library's
    exp, refused where NumPy's loop is SVML's."""
    from _widths import at_both_widths
    edges = ",".join(str(int(u)) for u in _SPECIAL.view(np.uint64))
    for no512, width, bad in at_both_widths(_CHILD, "20261130", edges):
        assert bad == 0, f"STRIDED_NO_AVX512={no512} (width {width}): {bad} results differ from NumPy's"
