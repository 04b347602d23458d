"""Answers strided.torch gave silently different from PyTorch 2.13's (a differential sweep
of PyTorch's OpInfo samples), each compared here with PyTorch itself:

- ``arange`` with float bounds into an integer dtype: PyTorch truncates the bounds and the
  step first and counts int64 results in integers; strided counted and stepped in floats
  (``arange(-3.2, 7.9, 1.5, dtype=int64)``: PyTorch's 10 values -3 ... 6, strided's 8);
  and PyTorch's bound checks (a step whose sign leads away from ``end`` raised nothing);
- ``addmm``, ``addbmm``, ``baddbmm`` (functions and methods) of integer arrays with float
  ``alpha``/``beta``: PyTorch truncates them into the integer dtype (``alpha=0.2`` multiplies
  by 0) and keeps the dtype, strided computed in float32; ``addbmm`` of int32 summed into
  int64; ``addr`` refuses float multipliers of integers as PyTorch's ``alpha_check`` does; a
  complex multiplier of a real result raises, as PyTorch's;
- ``cov``/``corrcoef`` of uint8: float64 (the standard's sum of uint8 is uint64), PyTorch's
  float32;
- ``diff(x, n=0, prepend=, append=)``: ``x`` (NumPy's and PyTorch's), strided joined them;
- ``F.bilinear`` of int32: int32 (strided summed into int64);
- ``F.batch_norm`` of an empty 1-D input: its shape (strided broadcast it to (1, 0));
- ``x.sum_to_size(size)`` of integers or bools: int64, as PyTorch's ``sum``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402
from _parity import to_numpy  # noqa: E402


def _outcome(L, f):
    try:
        r = f(L)
    except Exception as e:  # noqa: BLE001 -- the error's type is compared
        return type(e).__name__
    return str(r.dtype).rsplit(".", 1)[-1], tuple(r.shape), to_numpy(r).tolist()


def _same(f, rtol=1e-6, any_error=False):
    """The same error type (any error where ``any_error``), or the same dtype, shape and
    values (floats up to rounding: PyTorch's vectorised loops add the step to a chunk's first
    value)."""
    want, got = _outcome(torch, f), _outcome(S, f)
    if any_error and isinstance(want, str):
        assert isinstance(got, str), (want, got)
    elif isinstance(want, str) or isinstance(got, str) or not want[0].startswith(("float", "complex")):
        assert got == want
    else:
        assert got[:2] == want[:2]
        np.testing.assert_allclose(got[2], want[2], rtol=rtol, atol=rtol)


_bound = hs.one_of(hs.integers(-20, 20), hs.floats(-20, 20, allow_nan=False).map(lambda v: round(v, 3)))


@settings(max_examples=300, deadline=None)
@given(a=_bound, b=_bound, step=hs.one_of(hs.sampled_from([1, 2, -1, -3]),
                                          hs.floats(-4, 4, allow_nan=False).map(lambda v: round(v, 2))),
       d=hs.sampled_from(["int64", "int32", "int16", "int8", "uint8", "float32", "float64", None]))
def test_arange_bounds_steps_and_integer_dtypes_as_pytorch(a, b, step, d):
    if d == "uint8" and min(a, b) < 0:
        return  # (PyTorch wraps a negative value into uint8; strided refuses it: not compared)
    if d in ("int8",) and max(abs(a), abs(b)) > 100:
        return
    _same(lambda L: L.arange(a, b, step, dtype=None if d is None else getattr(L, d)))


@pytest.mark.parametrize("args", [(-8.000001, -4), (-3.2, 7.9, 1.5), (10, -3.3, -2.6), (1.9, 7.1, 0.4),
                                  (5, 0), (0.5, 0.2), (1, 2, 0), (0, math.inf), (3, 3)])
@pytest.mark.parametrize("d", ["int64", "int32", None])
def test_arange_cases_the_sweep_found(args, d):
    _same(lambda L: L.arange(*args, dtype=None if d is None else getattr(L, d)))


def _ints(L, shape, d):
    return (L.arange(int(np.prod(shape))).reshape(shape) + 1).to(getattr(L, d))


_PRODUCTS = {
    "addmm": lambda L, d, a, b: L.addmm(_ints(L, (2, 2), d), _ints(L, (2, 3), d), _ints(L, (3, 2), d), beta=b, alpha=a),
    "addmm_method": lambda L, d, a, b: _ints(L, (2, 2), d).addmm(_ints(L, (2, 3), d), _ints(L, (3, 2), d), beta=b,
                                                                 alpha=a),
    "addbmm": lambda L, d, a, b: L.addbmm(_ints(L, (2, 2), d), _ints(L, (2, 2, 3), d), _ints(L, (2, 3, 2), d),
                                          beta=b, alpha=a),
    "baddbmm": lambda L, d, a, b: L.baddbmm(_ints(L, (1, 2, 2), d), _ints(L, (1, 2, 3), d), _ints(L, (1, 3, 2), d),
                                            beta=b, alpha=a),
    "baddbmm_method": lambda L, d, a, b: _ints(L, (1, 2, 2), d).baddbmm(_ints(L, (1, 2, 3), d),
                                                                        _ints(L, (1, 3, 2), d), beta=b, alpha=a),
    "addmv": lambda L, d, a, b: L.addmv(_ints(L, (2,), d), _ints(L, (2, 3), d), _ints(L, (3,), d), beta=b, alpha=a),
    "addr": lambda L, d, a, b: L.addr(_ints(L, (2, 3), d), _ints(L, (2,), d), _ints(L, (3,), d), beta=b, alpha=a),
}


@pytest.mark.parametrize("name", sorted(_PRODUCTS))
@pytest.mark.parametrize("d", ["int64", "int32", "uint8", "float32", "float64"])
@pytest.mark.parametrize("alpha, beta", [(2.2, 1.6), (0.2, 0.6), (2, 3), (True, False), (False, True),
                                         (1 + 1j, 1), (2 + 0j, 1), (1, 0.5)])
def test_products_read_alpha_and_beta_in_the_result_dtype_as_pytorch(name, d, alpha, beta):
    _same(lambda L: _PRODUCTS[name](L, d, alpha, beta), any_error=True)


@pytest.mark.parametrize("d", ["uint8", "int8", "int16", "int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("weights", [None, "f", "fa"])
@pytest.mark.parametrize("f", ["cov", "corrcoef"])
def test_cov_and_corrcoef_of_integers_as_pytorch(d, weights, f):
    # (uint8 computed in float64: the standard's sum of uint8 is uint64, PyTorch's int64)
    def run(L):
        x = L.tensor([[1, 5, 3, 9], [2, 2, 7, 1], [0, 4, 4, 1]]).to(getattr(L, d))
        if f == "corrcoef":
            return L.corrcoef(x) if weights is None else L.corrcoef(x[0])
        kw = {}
        if weights:
            kw["fweights"] = L.tensor([1, 2, 1, 3], dtype=L.uint8)
        if weights == "fa":
            kw["aweights"] = L.tensor([0.5, 1.0, 2.0, 1.0])
        return L.cov(x, **kw)
    _same(run, rtol=1e-5)


@pytest.mark.parametrize("n", [0, 1, 2])
@pytest.mark.parametrize("extra", [{}, {"prepend": [9.0]}, {"append": [7.0, 8.0]}, {"prepend": [1.0], "append": [2.0]}])
def test_diff_of_order_zero_is_the_input(n, extra):
    _same(lambda L: L.diff(L.tensor([1.0, 4.0, 2.0, 8.0]), n=n, **{k: L.tensor(v) for k, v in extra.items()}))
    _same(lambda L: L.tensor([[1, 4], [2, 8]]).diff(n=n, dim=0, **{k: L.tensor([v[:1] * 2]).long()
                                                                   for k, v in extra.items()}))


@pytest.mark.parametrize("d", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("bias", [False, True])
def test_bilinear_keeps_the_dtype(d, bias):
    def run(L):
        t = lambda *s: (L.arange(int(np.prod(s))).reshape(s) % 5 - 2).to(getattr(L, d))  # noqa: E731
        return L.nn.functional.bilinear(t(2, 3), t(2, 4), t(5, 3, 4), t(5) if bias else None)
    _same(run)


@pytest.mark.parametrize("shape", [(0,), (5,), (0, 3), (2, 0), (0, 3, 4)])
@pytest.mark.parametrize("training", [False, True])
def test_batch_norm_of_empty_and_one_dimensional_inputs(shape, training):
    c = shape[1] if len(shape) > 1 else 0

    def run(L):
        return L.nn.functional.batch_norm(L.ones(shape), L.zeros(c), L.ones(c), training=training)
    _same(run)


@pytest.mark.parametrize("d", ["int32", "uint8", "bool", "int64", "float32"])
@pytest.mark.parametrize("shape, size", [((), ()), ((2, 3), ()), ((2, 3), (2, 3)), ((2, 3), (1, 3)),
                                         ((2, 3), (2, 1)), ((2, 3), (3,)), ((5,), (1,)), ((1,), ())])
def test_sum_to_size_sums_integers_into_int64(d, shape, size):
    # (PyTorch's sum_to: x itself where nothing is summed, except to size (), which always sums)
    _same(lambda L: (L.arange(int(np.prod(shape))).reshape(shape) % 3).to(getattr(L, d)).sum_to_size(size))
