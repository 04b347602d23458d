"""Integer division by zero in ``strided.torch``: PyTorch's words for integer division
(``torch.floor_divide``, ``torch.remainder``, ``torch.div`` with a ``rounding_mode``, the
method ``x.div(y, rounding_mode=...)`` and ``div_``) raise PyTorch's
``RuntimeError("ZeroDivisionError")`` where a divisor that reaches the result is zero,
before anything is written; everywhere else they give PyTorch 2.13's values and dtypes.
The standard's functions and the operators keep NumPy's 0 (checked against NumPy)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st_
from hypothesis.extra import numpy as hnp

import strided as xp
import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]

# (the call for strided.torch, the same call for PyTorch): a, b are the two operands
CALLS = {
    "floor_divide": (lambda lib, a, b: lib.floor_divide(a, b)),
    "remainder": (lambda lib, a, b: lib.remainder(a, b)),
    "div trunc": (lambda lib, a, b: lib.div(a, b, rounding_mode="trunc")),
    "div floor": (lambda lib, a, b: lib.div(a, b, rounding_mode="floor")),
    "divide floor": (lambda lib, a, b: lib.divide(a, b, rounding_mode="floor")),
    "method div trunc": (lambda lib, a, b: a.div(b, rounding_mode="trunc")),
    "method divide floor": (lambda lib, a, b: a.divide(b, rounding_mode="floor")),
}


def outcome(f):
    """The result, or (the exception's type, its message)."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001 -- compared between the libraries
        return (type(e), str(e))


def same(got, want):
    if isinstance(want, tuple):
        assert got == want
        return
    assert not isinstance(got, tuple), got
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(host(got), want.numpy())


def operands(a, b, dtype):
    """strided.torch's and PyTorch's operands: arrays from NumPy arrays, Python ints as they are."""
    def ours(v):
        return st.tensor(v.tolist(), dtype=getattr(st, dtype)) if isinstance(v, np.ndarray) else v

    def theirs(v):
        return torch.tensor(v.tolist(), dtype=getattr(torch, dtype)) if isinstance(v, np.ndarray) else v
    return (ours(a), ours(b)), (theirs(a), theirs(b))


@settings(max_examples=60, deadline=None)
@given(data=st_.data(), name=st_.sampled_from(sorted(CALLS)), dtype=st_.sampled_from(INT_DTYPES),
       form=st_.sampled_from(["arrays", "array, int", "broadcast"]))
def test_as_pytorch(data, name, dtype, form):
    lo = 0 if dtype == "uint8" else -20
    elems = st_.integers(lo, 20)
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, max_side=4), label="shape")
    a = data.draw(hnp.arrays(dtype, shape, elements=elems), label="a")
    if form == "array, int":
        b = data.draw(st_.integers(max(lo, -3), 3), label="b")
    else:
        bshape = shape[-1:] if form == "broadcast" else shape
        b = data.draw(hnp.arrays(dtype, bshape, elements=st_.integers(max(lo, -3), 3)), label="b")
    if name.startswith("method") and not isinstance(a, np.ndarray):
        return
    (sa, sb), (ta, tb) = operands(a, b, dtype)
    f = CALLS[name]
    same(outcome(lambda: f(st, sa, sb)), outcome(lambda: f(torch, ta, tb)))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_zero_raises_pytorchs_error(name):
    f = CALLS[name]
    for b in ([2, 0, 1], 0):
        got = outcome(lambda: f(st, st.tensor([5, -7, 3]), st.tensor(b) if isinstance(b, list) else b))
        want = outcome(lambda: f(torch, torch.tensor([5, -7, 3]), torch.tensor(b) if isinstance(b, list) else b))
        assert want == (RuntimeError, "ZeroDivisionError")
        assert got == want


def test_a_scalar_dividend():
    # torch.remainder(5, tensor): PyTorch's Scalar-self overload
    for b in ([2, 3], [2, 0]):
        same(outcome(lambda: st.remainder(5, st.tensor(b))), outcome(lambda: torch.remainder(5, torch.tensor(b))))


def test_empty_results_and_float_operands_do_not_raise():
    b = [0, 1, 2]
    for f in (lambda lib: lib.floor_divide(lib.zeros((0, 3), dtype=lib.int64), lib.tensor(b)),
              lambda lib: lib.remainder(lib.tensor([5, 6, 7]), lib.tensor([0.0, 1.0, 2.0])),
              lambda lib: lib.floor_divide(lib.tensor([5, 6, 7]), 0.0),
              lambda lib: lib.div(lib.tensor([5.0, 6.0, 7.0]), lib.tensor(b), rounding_mode="trunc"),
              lambda lib: lib.div(lib.tensor([5, 6, 7]), lib.tensor(b))):
        same(outcome(lambda: f(st)), outcome(lambda: f(torch)))


def test_nothing_is_written_before_the_error():
    out = st.full((3,), 9)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        st.floor_divide(st.tensor([5, -7, 3]), st.tensor([2, 0, 1]), out=out)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        st.remainder(st.tensor([5, -7, 3]), st.tensor([2, 0, 1]), out=out)
    x = st.tensor([5, -7, 3])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        x.div_(st.tensor([2, 0, 1]), rounding_mode="floor")
    assert host(out).tolist() == [9, 9, 9]
    assert host(x).tolist() == [5, -7, 3]


def test_out_gets_pytorchs_values():
    out = st.empty((3,), dtype=st.int64)
    r = st.floor_divide(st.tensor([5, -7, 3]), st.tensor([2, 2, -2]), out=out)
    assert r is out
    assert host(out).tolist() == torch.floor_divide(torch.tensor([5, -7, 3]), torch.tensor([2, 2, -2])).tolist()


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_the_standard_and_the_operators_keep_numpys_zero(dtype):
    a = np.array([5, 7, 3], dtype=dtype)
    b = np.array([2, 0, 1], dtype=dtype)
    x, y = xp.asarray(a), xp.asarray(b)
    with np.errstate(divide="ignore"):
        want_q, want_r = np.floor_divide(a, b), np.remainder(a, b)
    for got, want in ((xp.floor_divide(x, y), want_q), (x // y, want_q),
                      (xp.remainder(x, y), want_r), (x % y, want_r)):
        assert str(got.dtype) == str(want.dtype) or got.dtype == xp.asarray(want).dtype
        np.testing.assert_array_equal(host(got), want)
