"""A recorded binary operator runs under NumPy's "ignore" error state though it calls the
extension hook without setting it (elementwise.py's ``op``; compiled, ``_chot/fast.c``'s
hooked_operator): autograd's link reaches NumPy only through the row's kernel path, which is
quiet by itself. Checked where it shows: under ``numpy.errstate(all="raise")`` and a
warnings filter of "error", recorded operators and functions on values that raise every
floating-point exception give NumPy's values (computed under "ignore") and their gradients,
without an error or a warning; a handler in front of autograd sees each call, and its own
arithmetic meets each door's error state as the Python definitions set it (the functions
quiet, the binary operators not)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import strided as xp
from strided._core import dispatch

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_V = np.array([0.0, -1.0, 1e30, -np.inf, np.nan, 3.0, 1e-30, 700.0], np.float32)
_W = np.array([0.0, 0.0, 1e30, np.inf, 2.0, -0.0, 1e30, 0.5], np.float32)


def _bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ["div", "mul", "sub", "pow", "exp", "log", "sqrt", "reciprocal", "square",
                                  "rdiv"])
def test_recorded_operators_are_quiet_under_raise(case, dtype):
    vn, wn = _V.astype(dtype), _W.astype(dtype)
    ops = {"div": (lambda a, b: a / b, np.divide), "mul": (lambda a, b: a * b, np.multiply),
           "sub": (lambda a, b: a - b, np.subtract), "pow": (lambda a, b: a ** b, np.power),
           "rdiv": (lambda a, b: b / a, lambda a, b: b / a),
           "exp": (xp.exp, np.exp), "log": (xp.log, np.log), "sqrt": (xp.sqrt, np.sqrt),
           "reciprocal": (lambda a: 1.0 / a, lambda a: np.asarray(1.0, a.dtype) / a),
           "square": (lambda a: a * a, np.square)}
    f, ref = ops[case]
    two = case in ("div", "mul", "sub", "pow", "rdiv")
    with np.errstate(all="ignore"):
        want = ref(vn, wn) if two else ref(vn)
    x = xp.asarray(vn.copy(), device="cpu").requires_grad_()
    y = xp.asarray(wn.copy(), device="cpu").requires_grad_()
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        r = f(x, y) if two else f(x)
        assert r.grad_fn is not None  # (recorded)
        _bits(r.detach(), want)
        xp.sum(r).backward()
    assert x.grad is not None and x.grad.shape == x.shape


def _relink():
    """The chain linked again from dispatch._HANDLERS (as register_handler links it)."""
    hs = list(dispatch._HANDLERS)
    dispatch._HANDLERS.clear()
    for p, h in hs:
        dispatch.register_handler(h, p)


def test_a_handler_in_front_of_autograd_sees_the_calls_and_the_results_stay_quiet():
    """With another handler first in the chain, the handler sees each call and the results
    are NumPy's, without an error or a warning; with it gone, autograd alone records again."""
    calls = []

    def spy(name, impl, args, kwargs, call_next):
        calls.append(name)
        return call_next(name, impl, args, kwargs)

    dispatch.register_handler(spy, 5)
    try:
        x = xp.asarray(_V.copy(), device="cpu").requires_grad_()
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            r = x / xp.asarray(_W.copy(), device="cpu")
            e = xp.exp(x)
        assert calls == ["divide", "exp"]
        with np.errstate(all="ignore"):
            _bits(r.detach(), _V / _W)
            _bits(e.detach(), np.exp(_V))
    finally:
        dispatch._HANDLERS[:] = [(p, h) for p, h in dispatch._HANDLERS if h is not spy]
        _relink()
    x = xp.asarray(_V.copy(), device="cpu").requires_grad_()
    with np.errstate(all="raise"):
        r = x / xp.asarray(_W.copy(), device="cpu")  # (autograd alone again: quiet by itself)
    assert r.grad_fn is not None and calls == ["divide", "exp"]


def test_a_handlers_own_arithmetic_meets_each_doors_state():
    """A binary operator calls the handlers without a quiet state of its own (elementwise.py's
    ``op``, the definition; the compiled operators as well): a handler's own NumPy arithmetic
    meets the caller's error state, here "raise". A namespace function runs quiet (its
    Python function is quiet-wrapped; the compiled one sets the state around the hook): the
    same handler's arithmetic is quiet there. Both paths alike (STRIDED_NO_CEXT=1 runs the
    definitions)."""
    def loud(name, impl, args, kwargs, call_next):
        np.divide(np.float32(1), np.float32(0))
        return call_next(name, impl, args, kwargs)

    dispatch.register_handler(loud, 5)
    try:
        x = xp.asarray(_V.copy(), device="cpu").requires_grad_()
        w = xp.asarray(_W.copy(), device="cpu")
        with np.errstate(all="raise"):
            with pytest.raises(FloatingPointError):
                x / w
            e = xp.exp(x)  # (quiet: the handler's 1 / 0 gives inf, no error)
        with np.errstate(all="ignore"):
            _bits(e.detach(), np.exp(_V))
        with np.errstate(all="ignore"):
            _bits((x / w).detach(), _V / _W)  # (the handler's arithmetic is all that raised)
    finally:
        dispatch._HANDLERS[:] = [(p, h) for p, h in dispatch._HANDLERS if h is not loud]
        _relink()
