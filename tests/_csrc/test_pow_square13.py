"""``x ** 2`` and ``pow(x, 2)`` through the compiled square case (fast.c, pow_square) against
the Python definitions it skips (``Array.__pow__.__wrapped__`` and ``strided.pow.__wrapped__``:
the pow row's kernels, ``_pow_float``/``_pow_int``) and against NumPy's own ``a ** 2``:
the same dtype and bits (NaN payloads, infinities, integer wraparound), for every real
dtype, both exponent spellings, every layout; and the cases it must leave to the pow path
(a bool, a complex, an integer array with 2.0, a huge int, named and recorded operands)
giving that path's answers and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core.array import Array

from conftest import host

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

_REAL = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
         "uint32", "uint64"]


def _values(dt, n, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "f":
        bits = rng.integers(0, 256, n * np.dtype(dt).itemsize, dtype=np.uint8).view(dt)  # any bits
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 3.0e19]).astype(dt) if dt != "float16" \
            else np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 300.0], dtype=dt)
        return np.concatenate([bits, special])
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)  # (wraps when squared)


# the Python operator and function (without the compiled path, STRIDED_NO_CEXT=1, they are
# the operator and function themselves: the comparisons with NumPy below still hold)
_OP = getattr(Array.__pow__, "__wrapped__", Array.__pow__)
_FN = getattr(xp.pow, "__wrapped__", xp.pow)


def _op(x, e):  # (under the error state the Fast runs them in)
    with np.errstate(all="ignore"):
        return _OP(x, e)


def _fn(x, e):
    with np.errstate(all="ignore"):
        return _FN(x, e)


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    g, w = host(got), host(want)
    assert g.dtype == w.dtype
    np.testing.assert_array_equal(np.ascontiguousarray(g).view(np.uint8), np.ascontiguousarray(w).view(np.uint8))


@settings(max_examples=60, deadline=None)
@given(dt=hs.sampled_from(_REAL), n=hs.integers(0, 40), seed=hs.integers(0, 2**31),
       e=hs.sampled_from([2, 2.0]), layout=hs.sampled_from(["c", "strided", "2d-t"]))
def test_square_case_is_the_pow_path(dt, n, seed, e, layout):
    if np.dtype(dt).kind != "f" and type(e) is float:
        e = 2  # (an integer array with 2.0 promotes: the pow path's, tested below)
    a = _values(dt, n, seed)
    if layout == "strided":
        a = a[::2]
    elif layout == "2d-t" and a.size >= 2:
        a = a[: a.size // 2 * 2].reshape(2, -1).T
    x = xp.asarray(a)
    with np.errstate(all="ignore"):
        want_np = a ** e  # NumPy's ndarray.__pow__ (it squares)
    ref_op, ref_fn = _op(x, e), _fn(x, e)  # the Python operator and function
    for got in (x ** e, xp.pow(x, e)):
        _same(got, ref_op)
        _same(got, ref_fn)
        assert host(got).dtype == want_np.dtype
        np.testing.assert_array_equal(np.ascontiguousarray(host(got)).view(np.uint8),
                                      np.ascontiguousarray(want_np).view(np.uint8))
    assert host(x).tobytes() == a.tobytes()  # (the operand as it was)


@pytest.mark.parametrize("dt", ["int8", "int64", "uint8"])
def test_integer_array_with_float_two_promotes_as_before(dt):
    x = xp.asarray(np.arange(-3, 4).astype(dt) if dt[0] == "i" else np.arange(7).astype(dt))
    _same(x ** 2.0, _op(x, 2.0))
    _same(xp.pow(x, 2.0), _fn(x, 2.0))


def test_cases_left_to_the_pow_path():
    b = xp.asarray(np.array([True, False]))
    for got in (b ** 2, xp.pow(b, 2)):  # (a mask squared: PyTorch's int64, by the pow path)
        _same(got, _op(b, 2))
        assert str(got.dtype) == "int64" and host(got).tolist() == [1, 0]
    z = xp.asarray(np.array([1 + 2j, -3.5 + 0.25j, np.inf + 1j]))
    _same(z ** 2, _op(z, 2))
    x = xp.asarray(np.array([1.5, -2.0]))
    _same(x ** (2**70), _op(x, 2**70))  # (a huge int: no square)
    _same(x ** True, _op(x, True))  # (True is 1, not 2)
    for e in (3, -2, 1, 0, 2.5, 0.5, -2.0, 3.0):  # other exponents: not a square
        _same(x ** e, _op(x, e))
        _same(xp.pow(x, e), _fn(x, e))
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(host(x ** e), np.power(np.array([1.5, -2.0]), e))
    _same(x ** np.float64(2.0), _op(x, np.float64(2.0)))


def test_recorded_and_named_operands_keep_their_graph_and_names():
    x = xp.asarray(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    y = x ** 2
    assert y.requires_grad
    xp.sum(y).backward()
    np.testing.assert_array_equal(host(x.grad), np.array([2.0, -4.0, 6.0]))
    n = xp.asarray(np.ones((2, 3)), names=("a", "b"))
    assert (n ** 2).names == ("a", "b") and xp.pow(n, 2.0).names == ("a", "b")
