"""``maximum``/``minimum`` with a Python scalar in the compiled path: NumPy's loop, the
scalar read from a block of copies of it (``_chot/loops.c``, ``run_loop``).

NumPy's SIMD maximum/minimum loops take contiguous operands only; with a stride-0 scalar
they run the scalar loop (6.5 us at 1e4 float32, against 1.8 from the block). The row's
Python kernel (``elementwise._extremum_kernel``) makes the same block; the compiled path
must give NumPy's own ``np.maximum(x, s)`` bit for bit: NaN payloads of either operand,
signed zeros, infinities, every size across the block's length, both operand orders,
non-contiguous operands (no block there: the stride-0 loop), and ``out=``. (It found the
Python kernel's blocks keyed by value, one block for every NaN: a payload scalar got another
NaN's bits from 4096 elements on.)
"""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st_

import strided as st

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

NAN_PAYLOAD = struct.unpack("<d", struct.pack("<Q", 0x7FF800000000BEEF))[0]
SCALARS = [0.0, -0.0, 1.5, -2.25, float("inf"), float("-inf"), float("nan"), NAN_PAYLOAD, 3, -7]


def _bits(x):
    x = np.asarray(x)
    return x.view(f"u{x.itemsize}")


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(dt)
    if n:
        k = rng.integers(0, n, size=max(1, n // 7))
        a[k] = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dt), size=k.size)
        # a NaN with a payload of its own, and one with the sign bit set
        a[rng.integers(0, n)] = np.array([0x7FC0ABCD], np.uint32).view(np.float32)[0] if dt == np.float32 \
            else np.array([0x7FF800000000ABCD], np.uint64).view(np.float64)[0]
        a[rng.integers(0, n)] = np.copysign(np.nan, -1.0)
    return a


@pytest.mark.parametrize("fn", ["maximum", "minimum"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 7, 100, 1023, 1024, 1025, 2048, 2049, 4096, 10_000, 70_001])
def test_each_size_and_scalar_gives_numpys_bits_on_both_sides(fn, dt, n):
    an = _data(n, dt, n)
    a = st.asarray(an, device="cpu")
    uf = getattr(np, fn)
    for s in SCALARS:
        np.testing.assert_array_equal(_bits(getattr(st, fn)(a, s)), _bits(uf(an, s)), err_msg=f"{fn}(a, {s!r})")
        np.testing.assert_array_equal(_bits(getattr(st, fn)(s, a)), _bits(uf(s, an)), err_msg=f"{fn}({s!r}, a)")


@settings(max_examples=40, deadline=None)
@given(n=st_.integers(0, 6000), step=st_.sampled_from([1, 1, 2, -1, 3]),
       s=st_.sampled_from(SCALARS), dt=st_.sampled_from([np.float32, np.float64]),
       fn=st_.sampled_from(["maximum", "minimum"]), two_d=st_.booleans())
def test_views_and_shapes_give_numpys_bits(n, step, s, dt, fn, two_d):
    base = _data(n * abs(step) + 1, dt, n)
    an = base[::step][:n] if step > 0 else base[::-1][:n]
    if two_d and n % 4 == 0 and n:
        an = an.reshape(4, -1)
    a = st.asarray(base, device="cpu")
    a = a[::step][:n] if step > 0 else st.flip(a)[:n]
    if two_d and n % 4 == 0 and n:
        a = st.reshape(a, (4, -1))
    uf = getattr(np, fn)
    np.testing.assert_array_equal(_bits(getattr(st, fn)(a, s)), _bits(uf(an, s)))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_out_and_the_0d_and_integer_cases_are_numpys(dt):
    an = _data(5000, dt, 1)
    a = st.asarray(an, device="cpu")
    o = st.empty((5000,), dtype=a.dtype, device="cpu")
    r = st.maximum(a, 0.0, out=o)
    np.testing.assert_array_equal(_bits(o), _bits(np.maximum(an, 0.0)))
    assert r is o
    z = st.asarray(np.array(-0.0, dt), device="cpu")
    np.testing.assert_array_equal(_bits(st.maximum(a, z)), _bits(np.maximum(an, np.array(-0.0, dt))))
    ints = np.arange(-3000, 3000, dtype=np.int32)
    np.testing.assert_array_equal(np.asarray(st.minimum(st.asarray(ints, device="cpu"), 5)), np.minimum(ints, 5))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [100, 4095, 4096, 10_000, 70_001])
def test_one_sided_clip_is_numpys_bits(dt, n):
    # NumPy's clip with one bound is maximum or minimum (numpy/_core/_methods.py, _clip);
    # strided's reads the bound from the same constant block from 4096 elements on.
    an = _data(n, dt, n + 1)
    a = st.asarray(an, device="cpu")
    for s in SCALARS:
        np.testing.assert_array_equal(_bits(st.clip(a, min=s)), _bits(np.clip(an, s, None)), err_msg=f"min={s!r}")
        np.testing.assert_array_equal(_bits(st.clip(a, max=s)), _bits(np.clip(an, None, s)), err_msg=f"max={s!r}")


@pytest.mark.parametrize("fn", ["maximum", "minimum"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [5, 2049, 70_001])
def test_a_0d_array_or_a_stride_0_view_operand_is_numpys_bits(fn, dt, n):
    an = _data(n, dt, n + 2)
    a = st.asarray(an, device="cpu")
    uf = getattr(np, fn)
    for v in SCALARS:
        zn = np.array(v, dt)
        z = st.asarray(zn, device="cpu")
        np.testing.assert_array_equal(_bits(getattr(st, fn)(a, z)), _bits(uf(an, zn)))
        np.testing.assert_array_equal(_bits(getattr(st, fn)(z, a)), _bits(uf(zn, an)))
        e = st.broadcast_to(st.reshape(z, (1,)), (n,))  # a stride-0 view of one value
        np.testing.assert_array_equal(_bits(getattr(st, fn)(a, e)), _bits(uf(an, np.broadcast_to(zn, (n,)))))
