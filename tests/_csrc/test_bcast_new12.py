"""A new result of operands that broadcast (``X - row``, ``row + X``, ``X * column``, size-1
axes, 0-d operands) in the compiled path (``_chot/loops.c``, ``bcast_new``: loop_bcast writing
a fresh C-contiguous result of the largest operand's shape, whichever operand that is):
NumPy's ufunc is the reference, bit for bit (NaN payloads from either operand, signed zeros),
with its dtype, shape and C order -- except where both operands are NaN: which of the two an
addition returns is not a function of the values in NumPy either (its SIMD loops return the
stride-0 operand's, the scalar tail the first's; float32 ``add`` of two arrays of 17 elements
gives both), and the loop's blocking here is NumPy's buffered iterator's, not its unbuffered
one's, so there the result is one of the two operands' payloads (quieted or as they are); the operands untouched and not aliased; other layouts, and
shapes that no one operand holds (``column + row``), take NumPy's iterator."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_OPS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv,
        "less": operator.lt, "maximum": None, "atan2": None, "bitwise_and": None}


def _data(rng, dt, shape):
    dt = np.dtype(dt)
    if dt.kind == "f":
        v = (rng.standard_normal(shape) * 4).astype(dt)
        flat = v.reshape(-1)
        if flat.size > 3:  # NaN payloads, -0.0, infinities
            bits = np.array([0x7FA00001, 0xFFC00123, 0x80000000, 0x7F800000], np.uint32).view(np.float32).astype(dt) \
                if dt == np.float32 else np.array([0x7FF4000000000001, 0xFFF8000000000123, 0x8000000000000000,
                                                   0x7FF0000000000000], np.uint64).view(np.float64)
            flat[rng.integers(0, flat.size, 4)] = bits
        return v
    return rng.integers(-50, 50, shape).astype(dt)


def _assert_numpys_bits(got, want, a, b, what):
    """Bit for bit, or where both operands are NaN, one of their payloads (quieted or not)."""
    want = np.ascontiguousarray(want)
    if got.tobytes() == want.tobytes():
        return
    assert want.dtype.kind == "f", what
    u = np.dtype(f"u{want.itemsize}")
    quiet = u.type(1 << (np.finfo(want.dtype).nmant - 1))
    x, y = (np.broadcast_to(v, want.shape) for v in (a, b))
    both = np.isnan(x) & np.isnan(y)
    gb, wb, xb, yb = got.view(u), want.view(u), x.view(u), y.view(u)
    assert ((gb == wb) | both).all(), what  # bit for bit wherever at most one operand is NaN
    assert ((gb == xb) | (gb == xb | quiet) | (gb == yb) | (gb == yb | quiet))[both].all(), what


def test_two_nans_give_one_of_their_payloads():
    """The case the random examples met once (float32 ``add`` of (2, 5, 3) and (5, 1), a quiet
    NaN meeting a signalling one): the result is a NaN of one of the two payloads, and the
    check above refuses anything else (a third payload, a NaN where one operand was not)."""
    nan = np.array([0xFFC00123, 0x7FA00001], np.uint32).view(np.float32)
    a = np.full((2, 5, 3), 1.5, np.float32)
    a[1, 4, 2] = nan[0]
    b = np.full((5, 1), 2.0, np.float32)
    b[4, 0] = nan[1]
    got = host(xp.asarray(a, device="cpu") + xp.asarray(b, device="cpu"))
    with np.errstate(invalid="ignore"):
        want = a + b
    _assert_numpys_bits(got, want, a, b, "add")
    bad = got.copy()
    bad.view(np.uint32)[1, 4, 2] = 0x7FC00000  # the default NaN: neither operand's payload
    with pytest.raises(AssertionError):
        _assert_numpys_bits(bad, want, a, b, "add")
    bad = got.copy()
    bad.view(np.uint32)[0, 0, 0] = 0x7FE00001  # a NaN where neither operand was
    with pytest.raises(AssertionError):
        _assert_numpys_bits(bad, want, a, b, "add")


@settings(max_examples=120, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), dims=hs.lists(hs.integers(1, 9), min_size=1, max_size=3),
       dt=hs.sampled_from(["float32", "float64", "int32", "int64"]), op=hs.sampled_from(sorted(_OPS)),
       mask=hs.integers(0, 7), drop=hs.integers(0, 2), zerod=hs.booleans(), other_first=hs.booleans())
def test_broadcast_new_results_are_numpys(seed, dims, dt, op, mask, drop, zerod, other_first):
    rng = np.random.default_rng(seed)
    shape = tuple(dims)
    if op == "bitwise_and" and dt.startswith("float") or op in ("atan2", "divide") and dt.startswith("int"):
        return  # (integer division's dtype is strided's, not NumPy's: float32 as PyTorch)
    oshape = () if zerod else tuple(1 if (mask >> i) & 1 else n for i, n in enumerate(shape))[drop:]
    a, b = _data(rng, dt, shape), _data(rng, dt, oshape)
    if other_first:
        a, b = b, a
    x, y = xp.asarray(a, device="cpu"), xp.asarray(b, device="cpu")
    ab, bb = a.tobytes(), b.tobytes()
    f = _OPS[op]
    with np.errstate(all="ignore"):
        want = getattr(np, op)(a, b)
    for got in ((f(x, y),) if f is not None else ()) + (getattr(xp, op)(x, y),):
        g = host(got)
        assert g.dtype == want.dtype and g.shape == want.shape, (op, shape, oshape)
        _assert_numpys_bits(g, want, a, b, (op, shape, oshape))
        assert g.flags.c_contiguous
        assert not np.shares_memory(g, host(x)) and not np.shares_memory(g, host(y))
    assert host(x).tobytes() == ab and host(y).tobytes() == bb


def test_other_layouts_take_numpys_iterator():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 5))
    for x in (xp.asarray(a, device="cpu").T, xp.asarray(a, device="cpu")[:, ::2], xp.asarray(a, device="cpu")[::2]):
        v = host(x)
        r = rng.standard_normal(v.shape[1])
        for got, want in ((host(x - xp.asarray(r, device="cpu")), v - r),
                          (host(xp.asarray(r, device="cpu") - x), r - v)):
            assert got.tobytes() == np.ascontiguousarray(want).tobytes()
            assert got.strides == want.strides  # (NumPy's order for an F-ordered operand, as before)
    col, row = rng.standard_normal((4, 1)), rng.standard_normal(3)  # no operand of the result's shape
    got = host(xp.asarray(col, device="cpu") - xp.asarray(row, device="cpu"))
    assert got.shape == (4, 3) and got.tobytes() == (col - row).tobytes()


def test_the_compiled_path_takes_them():
    from strided._core import dispatch

    from _frames import python_calls
    if dispatch.CHOT is None:
        return  # (STRIDED_NO_CEXT=1: the Python path, checked above)
    x = xp.asarray(np.arange(12.0).reshape(3, 4), device="cpu")
    row, col = xp.asarray(np.arange(4.0), device="cpu"), xp.asarray(np.arange(3.0).reshape(3, 1), device="cpu")
    for f in (lambda: x - row, lambda: x * col, lambda: xp.add(x, row),
              lambda: row + x, lambda: col * x, lambda: xp.subtract(row, x)):
        f()
        assert python_calls(f)[1] == []


def test_the_compiled_path_writes_its_own_result_whichever_operand_is_full():
    # From 16 KiB the compiled path's results are 64-byte aligned (loops.c, result_empty);
    # NumPy's ufunc returns malloc's 16-byte alignment: eight results kept alive at once
    # are all aligned only where bcast_new made them.
    from strided._core import dispatch
    if dispatch.CHOT is None:
        return  # (STRIDED_NO_CEXT=1: the Python path, checked above)
    rng = np.random.default_rng(3)
    x = xp.asarray(rng.standard_normal((64, 64)), device="cpu")
    row, col = xp.asarray(rng.standard_normal(64), device="cpu"), xp.asarray(rng.standard_normal((64, 1)), device="cpu")
    for f in (lambda: x - row, lambda: row + x, lambda: col * x, lambda: xp.maximum(row, x)):
        keep = [f() for _ in range(8)]
        assert [host(r).ctypes.data % 64 for r in keep] == [0] * 8
