"""Every door of the everyday reductions against the Python definitions, NumPy and PyTorch
(issue 38, round 8: ``var``/``std`` became native definitions like ``sum``, the short paths
of ``mean``/``max``/``min``/``var``/``std`` were inlined, and ``strided.torch``'s reductions
call their core at once).

Hypothesis draws a function (sum, mean, max, min, var, std), a door (the standard's
function with ``axis=``, with PyTorch's ``dim=``/``keepdim=``, with NumPy's ``ddof=``; the
method; ``strided.torch``'s function by keyword and positionally, ``unbiased=`` included), a
float32/float64 input (0-d, empty, size-1 axes; contiguous, transposed, reversed or
stepped; sometimes with NaN, signed zeros, infinities), an axis (None, negative, a tuple)
and a correction. Each call must give

- the same bits, dtype and shape, or the same error (type and text), here (compiled) and
  in a ``STRIDED_NO_CEXT=1`` worker (the Python definitions);
- NumPy's bits (``np.sum``/``np.mean``/``np.max``/``np.var``/``np.std`` with the call's
  meaning; NaN where ``M - correction <= 0``, as the standard says);
- for PyTorch's doors, ``torch``'s values (to rounding: PyTorch sums in its own order),
  dtype and shape.

Autograd and named inputs take the general path (the handlers): their values equal the
plain call's, their gradients PyTorch's, their names PyTorch's rule.
"""

from __future__ import annotations

import inspect
import pathlib
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import strided as xp

from . import _doors8_runner as runner, _worker

# The compiled doors are the CPU's: the test process makes its arrays there whatever the
# suite's default device (the cuda leg's), as the worker does (_doors8_runner.compute).
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

torch = pytest.importorskip("torch")

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def worker():
    w = _worker.Worker(HERE / "_doors8_runner.py")
    yield w
    w.close()


@st.composite
def cases(draw):
    nd = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=nd, max_size=nd)))
    kinds = ["none", "int"] + (["tuple"] if nd else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        axis = draw(st.sampled_from(["-", None]))
    elif kind == "int":
        # (out of range now and then: the error's text is compared too)
        axis = draw(st.integers(-nd - 1, nd)) if nd else draw(st.sampled_from([0, -1, 1]))
    else:
        axis = tuple(draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd)))
    return {
        "fn": draw(st.sampled_from(runner.FUNCS)), "door": draw(st.sampled_from(runner.DOORS)),
        "shape": shape, "dtype": draw(st.sampled_from(["float32", "float64"])),
        "seed": draw(st.integers(0, 2**32 - 1)), "special": draw(st.booleans()),
        "layout": draw(st.sampled_from(["contiguous", "transposed", "reversed", "step"])),
        "axis": axis, "keepdims": draw(st.sampled_from([None, False, True])),
        "correction": draw(st.sampled_from([None, 0, 1, 2, 0.5])),
    }


def _numpy(case, a):
    """NumPy's answer to the case's meaning (None: the call is refused)."""
    m = runner.meaning(case)
    if m is None:
        return None
    axis, keepdims, correction = m
    if a.ndim == 0 and axis in (0, -1):
        axis = None  # Note: like PyTorch, a 0-d array takes dim 0 or -1 (NumPy: none)
    fn = case["fn"]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's for nothing to average)
        if fn in ("var", "std"):
            r = np.asarray(getattr(np, fn)(a, axis=axis, keepdims=keepdims, ddof=correction))
            n = a.size // max(np.asarray(np.sum(a, axis=axis, keepdims=keepdims)).size, 1)
            if n - correction <= 0:
                r = np.full(r.shape, np.nan, r.dtype)  # Note: the standard's NaN (NumPy: inf)
            return r
        return np.asarray(getattr(np, fn)(a, axis=axis, keepdims=keepdims))


def _torch(case, a):
    """PyTorch's answer for PyTorch's doors (the call as torch.<name> takes it)."""
    axis, keepdims, correction = runner.meaning(case)
    name = runner.TORCH_NAME[case["fn"]]
    t = torch.from_numpy(a.copy())
    kw = {} if axis is None else {"dim": axis}
    if keepdims:
        kw = {"dim": axis if axis is not None else tuple(range(a.ndim)), "keepdim": True}
    if correction is not None:
        kw["correction"] = correction
    return getattr(torch, name)(t, **kw).numpy()


def _check(case, ours, theirs):
    assert ours == theirs, case
    a = runner.data(case)
    if runner.meaning(case) is None:
        assert ours[0] == "error" and ours[1] == "TypeError" and "PyTorch" in ours[2], (case, ours)
        return
    if ours[0] == "error":
        # NumPy must fail too (no maximum of nothing; an axis out of range, repeated)
        with pytest.raises((ValueError, IndexError, TypeError)):
            _numpy(case, a)
        return
    want = _numpy(case, a)
    got = np.frombuffer(ours[3], dtype=np.dtype(ours[1])).reshape(ours[2])
    assert got.dtype == want.dtype and got.shape == want.shape, (case, got, want)
    np.testing.assert_array_equal(got, want, err_msg=str(case), strict=True)
    m = runner.meaning(case)
    if case["door"] in ("method", "method_pos", "torch", "torch_pos") and a.size \
            and (m[2] is None or a.size // max(got.size, 1) - m[2] > 0) and m[0] != ():
        ref = _torch(case, a)
        assert ref.dtype == got.dtype and ref.shape == got.shape, (case, got, ref)
        tol = 1e-5 if got.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, equal_nan=True, err_msg=str(case))


_BASE = {"shape": (4, 5), "dtype": "float64", "seed": 3, "special": False, "layout": "step",
         "keepdims": None, "correction": None}


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=cases())
@example(case=dict(_BASE, fn="std", door="torch", axis=0))  # unbiased by default
@example(case=dict(_BASE, fn="var", door="ns", axis=0, layout="contiguous", correction=1))  # the C kernels
@example(case=dict(_BASE, fn="std", door="method", axis=(1, 2), layout="contiguous", shape=(2, 3, 5),
                   dtype="float32", keepdims=True))
@example(case=dict(_BASE, fn="var", door="torch_pos", axis=None, layout="contiguous", shape=(3, 1, 4)))
@example(case=dict(_BASE, fn="var", door="torch", axis=-1, correction=0, seed=4))  # unbiased=False
@example(case=dict(_BASE, fn="var", door="ns_dim", axis=0))  # refused: PyTorch's meaning differs
@example(case=dict(_BASE, fn="std", door="ns_dim", axis=(0, 1), correction=1, keepdims=True))
@example(case=dict(_BASE, fn="max", door="ns_dim", axis=1))  # refused: torch.max(x, 1) is a pair
@example(case=dict(_BASE, fn="mean", door="torch_pos", axis=1, keepdims=True, dtype="float32"))
@example(case=dict(_BASE, fn="std", door="torch_pos", axis=1, correction=0, keepdims=True))
@example(case=dict(_BASE, fn="var", door="ns", axis=2))  # dim out of range
@example(case=dict(_BASE, fn="var", door="ns", axis=(0, 0)))  # a repeated axis
@example(case=dict(_BASE, fn="std", door="ns", axis=None, shape=(0, 3), correction=1))  # empty
@example(case=dict(_BASE, fn="var", door="method", axis=0, shape=(1, 3)))  # M - correction = 0
@example(case=dict(_BASE, fn="max", door="torch", axis=0, shape=(0, 3)))  # no maximum of nothing
def test_doors_agree_with_python_numpy_and_torch(worker, case):
    _check(case, runner.compute(case), worker.ask(case))


_ERRORS = [
    # (call, the error's type, its text) -- each as the Python definitions raise it
    (lambda x: xp.var(x, ddof=1, correction=1), TypeError,
     "var(): give correction or ddof (NumPy's name for it), not both"),
    (lambda x: xp.std(x, unbiased=True), TypeError,
     "std(): unbiased= is PyTorch's; strided.std takes the standard's correction= "
     "(unbiased=True is correction=1), or call strided.torch.std"),
    (lambda x: xp.var(x, 0), TypeError,
     "var() takes 1 positional argument but 2 were given: the standard's var takes axis by "
     "keyword (var(x, axis=...)); strided.torch.var takes the dim positionally, as PyTorch does"),
    (lambda x: xp.std(x, dim=0, axis=0, correction=1), TypeError,
     "std() got both axis= and dim= (dim is PyTorch's name for axis); give one"),
    (lambda x: xp.var(x, axis=0, correction="1"), TypeError,
     "var(): correction must be a real number; got str"),
    (lambda x: xp.var(xp.asarray([True]), axis=0), TypeError,
     "var() accepts only numeric data types; got bool"),
    (lambda x: xp.torch.std(x, dim=0, unbiased=False, correction=0), TypeError,
     "std(): give one of unbiased, correction and ddof, not both"),
    (lambda x: xp.torch.std(np.ones(3)), TypeError, "std(): input must be a strided array; got ndarray"),
    (lambda x: xp.torch.sum(x, 0, True, None), TypeError,
     "sum() takes at most 3 positional arguments (input, dim, keepdim); got 4"),
    (lambda x: xp.torch.sum(x, 0, dim=1), TypeError, "sum() got multiple values for argument 'dim'"),
    (lambda x: xp.torch.mean(x, axis=0), TypeError, "mean() got an unexpected keyword argument 'axis'"),
    (lambda x: xp.torch.amax(), TypeError, "amax() missing required argument 'input'"),
    (lambda x: xp.torch.amin(x, dim=5), IndexError, "min(): axis 5 is out of bounds for an array of dimension 2"),
]


@pytest.mark.parametrize("i", range(len(_ERRORS)))
def test_errors_keep_their_text(i):
    f, etype, text = _ERRORS[i]
    x = xp.asarray(np.arange(12.0).reshape(3, 4))
    with pytest.raises(etype) as e:
        f(x)
    assert str(e.value) == text


def test_the_doors_with_torch_keywords_are_one_definition():
    # The standard's var/std declare dim/keepdim like sum (the compiled door calls the
    # definition); strided.torch's reductions call the core with axis= (no binder frames).
    for f in (xp.sum, xp.mean, xp.max, xp.min, xp.var, xp.std):
        assert f._binder.native, f
    assert "unbiased" not in str(inspect.signature(xp.var))
    x = xp.asarray(np.arange(6.0).reshape(2, 3))
    assert np.array_equal(np.asarray(xp.torch.std(input=x, dim=1)), np.std(np.arange(6.0).reshape(2, 3), 1, ddof=1))


@pytest.mark.parametrize("door", ["ns", "ns_ddof", "method", "torch", "torch_pos"])
@pytest.mark.parametrize("fn", ["sum", "mean", "var", "std", "max"])
def test_autograd_takes_the_general_path(door, fn):
    # An input that requires grad goes through the handlers: the values are the plain
    # call's bits, the gradient PyTorch's (ddof and unbiased reach the rule as correction).
    case = dict(_BASE, fn=fn, door=door, axis=-1, correction=1 if door != "ns" else 2)
    a = runner.data(case)
    plain = runner.call(xp.asarray(a), case)
    x = xp.asarray(a)
    x.requires_grad_()
    r = runner.call(x, case)
    assert r.grad_fn is not None
    assert np.asarray(r.detach()).tobytes() == np.asarray(plain).tobytes()
    r.sum().backward()
    axis, keepdims, correction = runner.meaning(case)
    t = torch.from_numpy(a.copy()).requires_grad_()
    kw = {"dim": axis, "keepdim": keepdims}
    if correction is not None:
        kw["correction"] = correction
    getattr(torch, runner.TORCH_NAME[fn])(t, **kw).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), t.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("door", ["ns", "ns_dim", "ns_ddof", "method", "torch", "torch_pos"])
@pytest.mark.parametrize("fn", ["mean", "var", "std", "sum"])
def test_named_inputs_take_the_general_path(door, fn):
    case = dict(_BASE, fn=fn, door=door, axis=0, correction=1, layout="contiguous")
    a = runner.data(case)
    plain = runner.call(xp.asarray(a), case)
    x = xp.asarray(a).refine_names("N", "C")
    r = runner.call(x, case)
    assert r.names == ("C",)
    assert np.asarray(r.rename(None)).tobytes() == np.asarray(plain).tobytes()
    r2 = runner.call(x, dict(case, axis="N"))
    assert r2.names == ("C",) and np.asarray(r2.rename(None)).tobytes() == np.asarray(plain).tobytes()


_FRAMES = [
    # (the call, the Python functions it enters once warm: one definition, and the method or
    # strided.torch's function in front of it)
    (lambda x: xp.sum(x, axis=0), ["sum"]),
    (lambda x: xp.mean(x, axis=0), ["mean"]),
    (lambda x: xp.max(x, axis=-1, keepdims=True), ["max"]),
    (lambda x: xp.var(x, axis=0, correction=1), ["var"]),
    (lambda x: xp.std(x, axis=(0, 1)), ["std", "plain_axis"]),
    (lambda x: xp.std(x, axis=0, ddof=1), ["std"]),
    (lambda x: x.std(0), ["method", "std"]),
    (lambda x: x.var(dim=0), ["method", "var"]),
    (lambda x: xp.torch.std(x, dim=0), ["method", "std"]),
    (lambda x: xp.torch.var(x, 0, False), ["method", "var"]),
    (lambda x: xp.torch.sum(x, dim=0), ["call", "sum"]),
    (lambda x: xp.torch.mean(x, 1, True), ["call", "mean"]),
    (lambda x: xp.torch.amax(x, dim=0), ["call", "max"]),
    (lambda x: xp.torch.amin(x, dim=[0, 1], keepdim=True), ["call", "min", "plain_axis"]),
]


@pytest.mark.skipif(xp._core.dispatch.CHOT is None, reason="the compiled doors are not built (or STRIDED_NO_CEXT=1)")
@pytest.mark.parametrize("i", range(len(_FRAMES)))
def test_the_everyday_reductions_enter_one_definition(i):
    # Issue 38, round 8: sum's cost, not the binder's, the short path's helpers or a second
    # door's (st.sum(x, dim=0) entered seven Python functions, xp.var(x, axis=0) nine).
    from _frames import python_calls

    f, want = _FRAMES[i]
    for a in (np.arange(12.0).reshape(3, 4), np.arange(24.0, dtype=np.float32).reshape(3, 8)[:, ::2]):
        x = xp.asarray(a)
        f(x)
        r, seen = python_calls(lambda: f(x))
        assert seen == ["<lambda>", *want], seen  # (the case's own lambda first)
        assert np.asarray(r).tobytes() == np.asarray(f(x)).tobytes()
