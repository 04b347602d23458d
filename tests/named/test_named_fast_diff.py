"""The compiled named hot paths (strided/_csrc/_chot/names.c and chot.h: fast_named, the
views' name caches) against the Python definitions they stand in front of, on random
names, shapes, layouts and operands.

The fast form (the operator, the namespace function, the view as a user calls it) is
called three times (the first sight fills the caches; the calls after it are answered
from the call site's last outcome, by identity), the Python definition (``__wrapped__``:
the dispatch hook, the names handler and its rules) once; both must give the same names,
values (bytes), dtype, shape and strides, or the same error (type and message). Both
auto_align() settings: names that differ are lined up by name under it, except where
lining up changes nothing (``X + bias``: x2's names the last of x1's, every dim of x1
named), which the compiled path answers itself.

These run with and without the C extension (STRIDED_NO_CEXT=1): without it the fast form
is the Python definition itself, and the comparison holds trivially.
"""

import operator

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import strided as xp
from strided._core import array as _array_mod

pytestmark = pytest.mark.usefixtures("on_cpu")

NAMES = ["A", "B", "C", "D", "E", "F"]
COMPILED = type(xp.Array.__add__).__name__ == "Fast"


def _slow(f):
    return getattr(f, "__wrapped__", f)


# (label, fast form, reference form): binary forms take (x1, x2), unary ones (x,)
BINARY = [
    ("x1 + x2", operator.add, lambda a, b: _slow(xp.Array.__add__)(a, b)),
    ("x1 * x2", operator.mul, lambda a, b: _slow(xp.Array.__mul__)(a, b)),
    ("x1 - x2", operator.sub, lambda a, b: _slow(xp.Array.__sub__)(a, b)),
    ("add(x1, x2)", xp.add, _slow(xp.add)),
    ("multiply(x1, x2)", xp.multiply, _slow(xp.multiply)),
    ("less(x1, x2)", xp.less, _slow(xp.less)),
]
REFLECTED = [  # a Python scalar on the left: the reflected operator
    ("s + x", lambda s, x: s + x, lambda s, x: _slow(xp.Array.__radd__)(x, s)),
    ("s * x", lambda s, x: s * x, lambda s, x: _slow(xp.Array.__rmul__)(x, s)),
]
UNARY = [
    ("exp(x)", xp.exp, _slow(xp.exp)),
    ("negative(x)", xp.negative, _slow(xp.negative)),
    ("-x", operator.neg, lambda x: _slow(xp.Array.__neg__)(x)),
    ("abs(x)", xp.abs, _slow(xp.abs)),
]


def _outcome(fn, *args):
    """What a call gives: ('array', names, dtype, shape, strides, bytes) or ('raises', type, message)."""
    try:
        with np.errstate(all="ignore"):
            r = fn(*args)
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return ("raises", type(e), str(e))
    n = np.asarray(r.rename(None).cpu()) if r.names is not None else np.asarray(r.cpu())
    return ("array", r.names, str(r.dtype), tuple(r.shape), r._str if r._str is None else tuple(r._str),
            np.ascontiguousarray(n).tobytes())


@st.composite
def named_array(draw, shape=None, dtype=None):
    """A float array of a drawn (or given) shape with names drawn per dim (None or a letter,
    unique), now and then a transposed or sliced view; sometimes unnamed."""
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    dtype = dtype or draw(st.sampled_from(["float32", "float64"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    layout = draw(st.sampled_from(["c", "c", "t", "s"])) if len(shape) >= 2 else "c"
    if layout == "t":  # a transposed view with this shape
        base = rng.standard_normal(shape[::-1]).astype(dtype)
        x = xp.permute_dims(xp.asarray(base), tuple(range(len(shape)))[::-1])
    elif layout == "s":  # every other row of a taller array
        base = rng.standard_normal((2 * shape[0],) + shape[1:]).astype(dtype)
        x = xp.asarray(base)[::2]
    else:
        x = xp.asarray(rng.standard_normal(shape).astype(dtype))
    kind = draw(st.sampled_from(["named", "named", "named", "partly", "unnamed"]))
    if kind == "unnamed":
        return x
    names = draw(st.lists(st.sampled_from(NAMES), min_size=len(shape), max_size=len(shape), unique=True))
    if kind == "partly":
        names = [n if draw(st.booleans()) else None for n in names]
    return x.rename(*names)


@st.composite
def binary_cases(draw):
    x1 = draw(named_array())
    how = draw(st.sampled_from(["same", "suffix", "suffix", "scalar", "any", "longer"]))
    if how == "scalar":
        x2 = draw(st.sampled_from([2.0, -1.5, 3, True]))
    elif how == "same":
        x2 = draw(named_array(shape=tuple(x1.shape)))
        if draw(st.booleans()) and x1.names is not None:  # x1's very names (one tuple, or equal ones)
            x2 = x2.rename(*x1.names) if draw(st.booleans()) else x2.rename(*[n for n in x1.names])
    elif how == "suffix":  # X + bias: x2 the last dims of x1 (its names the last of x1's, or others)
        k = draw(st.integers(1, x1.ndim))
        x2 = draw(named_array(shape=tuple(x1.shape)[x1.ndim - k:]))
        if draw(st.booleans()) and x1.names is not None:
            x2 = x2.rename(*x1.names[x1.ndim - k:])
    elif how == "longer":  # the other order: x2 has more dims
        x2 = draw(named_array(shape=tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
                              + tuple(x1.shape)))
    else:
        x2 = draw(named_array())
    swap = draw(st.booleans())
    return (x2, x1) if swap and how != "scalar" else (x1, x2)


def _repeat_equal(fast, ref, *args):
    want = _outcome(ref, *args)
    for _ in range(3):  # (the first sight, then the call site's last outcome)
        assert _outcome(fast, *args) == want
    return want


@settings(max_examples=300, deadline=None)
@given(c=binary_cases(), op=st.sampled_from(BINARY), first=st.booleans())
@example(c=(xp.ones((3, 4)).rename("R", "C"), xp.ones(4).rename("C")), op=BINARY[0], first=False)
@example(c=(xp.ones(4).rename("C"), xp.ones((3, 4)).rename("R", "C")), op=BINARY[0], first=False)
@example(c=(xp.ones((3, 4)).rename("R", "C"), xp.ones(4).rename("R")), op=BINARY[0], first=False)
@example(c=(xp.ones((3, 4)).rename(None, "C"), xp.ones(4).rename("C")), op=BINARY[0], first=False)
@example(c=(xp.ones((2, 3, 4)).rename("N", "R", "C"), xp.ones((3, 4)).rename("R", "C")), op=BINARY[1],
         first=True)
def test_named_elementwise_fast_equals_the_python_path(c, op, first):
    # (both auto_align() settings, one after the other, starting with either: a call site's
    # last outcome, and the handler's cache, are filled under one and read under the other)
    x1, x2 = c
    _, fast, ref = op
    for aligned in (first, not first, first):
        with xp.named.auto_align(aligned):
            _repeat_equal(fast, ref, x1, x2)


@settings(max_examples=100, deadline=None)
@given(x=named_array(), s=st.sampled_from([2.0, -0.5, 3, False]), op=st.sampled_from(REFLECTED))
def test_named_reflected_fast_equals_the_python_path(x, s, op):
    _, fast, ref = op
    _repeat_equal(fast, ref, s, x)


@settings(max_examples=100, deadline=None)
@given(x=named_array(), op=st.sampled_from(UNARY))
def test_named_unary_fast_equals_the_python_path(x, op):
    _, fast, ref = op
    _repeat_equal(fast, ref, x)


@st.composite
def index_keys(draw, ndim):
    def one():
        return draw(st.one_of(st.integers(-3, 3), st.builds(slice, st.integers(-3, 3) | st.none(),
                                                            st.integers(-3, 4) | st.none(),
                                                            st.sampled_from([None, 1, 2, -1]))))
    k = draw(st.integers(1, ndim + 1))
    return one() if k == 1 and draw(st.booleans()) else tuple(one() for _ in range(k))


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_named_views_fast_equal_the_python_path(data):
    x = data.draw(named_array())
    which = data.draw(st.sampled_from(["getitem", "squeeze", "T", "expand_dims"]))
    if which == "getitem":
        key = data.draw(index_keys(x.ndim))
        _repeat_equal(lambda a: a[key], lambda a: _slow(xp.Array.__getitem__)(a, key), x)
    elif which == "squeeze":
        axis = data.draw(st.integers(-x.ndim - 1, x.ndim))
        if data.draw(st.booleans()):  # (a size-1 dim to squeeze)
            x = xp.expand_dims(x, axis=0).rename(*((data.draw(st.sampled_from([None, "O"])),)
                                                  + (x.names or (None,) * x.ndim)))
        _repeat_equal(lambda a: xp.squeeze(a, axis=axis), lambda a: _slow(xp.squeeze)(a, axis=axis), x)
    elif which == "T":
        if x.ndim != 2:
            return
        _repeat_equal(lambda a: a.T, lambda a: _slow(type(a).T.fget)(a), x)
    else:
        axis = data.draw(st.integers(-x.ndim - 1, x.ndim))
        _repeat_equal(lambda a: xp.expand_dims(a, axis=axis), lambda a: _slow(xp.expand_dims)(a, axis=axis), x)


# --- what the compiled path answers itself ----------------------------------------------------

def _hook_calls(fn, times):
    hook = _array_mod.HOOK[0]
    calls = []

    def counting(*args):
        calls.append(args[0])
        return hook(*args)

    _array_mod.HOOK[0] = counting
    try:
        out = [fn() for _ in range(times)]
    finally:
        _array_mod.HOOK[0] = hook
    return out, calls


@pytest.mark.skipif(not COMPILED, reason="the compiled path (C extension not built)")
@pytest.mark.parametrize("aligned", [False, True])
def test_x_plus_bias_is_answered_in_c_under_either_setting(aligned):
    # (x2's names the last of x1's: lining up by name changes nothing, so the compiled path
    # answers without reading the setting's consequences from the handler; the other
    # order is lined up by name under auto_align(), by the handler)
    m = xp.reshape(xp.arange(12, dtype=xp.float32), (3, 4)).rename("R", "C")
    v = xp.arange(4, dtype=xp.float32).rename("C")
    with xp.named.auto_align(aligned):
        want = _slow(xp.Array.__add__)(m, v)
        out, calls = _hook_calls(lambda: m + v, 10)
        assert len(calls) <= 1  # (the first sight may take the Python path)
        assert all(r.names == ("R", "C") and r.tolist() == want.tolist() for r in out)
        out, calls = _hook_calls(lambda: v + m, 10)
        assert all(r.names == (("C", "R") if aligned else ("R", "C")) for r in out)
        if aligned:
            assert len(calls) == 10  # (every call lined up by the handler)


@pytest.mark.skipif(not COMPILED, reason="the compiled path (C extension not built)")
def test_names_that_clash_raise_on_every_call():
    m = xp.ones((3, 4)).rename("R", "C")
    w = xp.ones(4).rename("R")
    for _ in range(3):
        with pytest.raises(xp.named.DimensionNameError):
            m + w
    good = xp.ones(4).rename("C")
    for _ in range(3):  # (after a hit on other names, a clash still raises)
        assert (m + good).names == ("R", "C")
        with pytest.raises(xp.named.DimensionNameError):
            m + w
