"""The in-place kernel path (``x += y``, ``x.add_(y)``, ``add(x, y, out=x)`` with no
extension) against NumPy's in-place operators and against strided's general out= path:
dtypes, broadcasting, overlap, views, version counters and errors."""

import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp
from conftest import flush_subnormals, host

DEVICE = xp.get_default_device()
DTYPES = ["int8", "int32", "int64", "uint8", "float32", "float64", "complex64", "bool"]
OPS = {"add": operator.iadd, "subtract": operator.isub, "multiply": operator.imul,
       "bitwise_and": operator.iand, "maximum": None}


def _values(draw, dtype, shape):
    if dtype == "bool":
        return draw(hnp.arrays(np.bool_, shape))
    if dtype.startswith(("float", "complex")):
        return draw(hnp.arrays(dtype, shape, elements=st.floats(-50, 50, width=32)))
    info = np.iinfo(dtype)
    return draw(hnp.arrays(dtype, shape, elements=st.integers(max(info.min, -50), min(info.max, 50))))


@settings(max_examples=120, deadline=None)
@given(st.data(), st.sampled_from(sorted(OPS)), st.sampled_from(DTYPES), st.sampled_from(DTYPES),
       hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4),
       st.sampled_from(["operator", "method", "out"]))
def test_inplace_matches_the_out_of_place_result(data, name, d1, d2, shapes, spelling):
    a = _values(data.draw, d1, shapes.result_shape)  # the target holds the result's shape
    b = _values(data.draw, d2, shapes.input_shapes[1])
    a_before = a.copy()  # x shares a's memory on the CPU
    x, y = xp.asarray(a, device=DEVICE), xp.asarray(b, device=DEVICE)
    try:
        expected = getattr(xp, name)(xp.asarray(a, device=DEVICE), y)  # the general path
    except TypeError:
        expected = None
    op = OPS[name]
    call = {"operator": (lambda: op(x, y)) if op else (lambda: getattr(x, name + "_")(y)),
            "method": lambda: getattr(x, name + "_")(y),
            "out": lambda: getattr(xp, name)(x, y, out=x)}[spelling]
    try:
        r = call()
    except TypeError:
        # refused: the operands, or a result dtype the target can't hold; nothing written
        assert expected is None or expected.dtype != x.dtype
        np.testing.assert_array_equal(host(x), a_before)
        return
    assert r is x and expected is not None
    np.testing.assert_array_equal(host(r), host(expected).astype(a.dtype))
    if expected.dtype == x.dtype and d1 == d2:  # and NumPy's own in-place operator agrees
        # (on cuda float32 subnormals read and write as zeros: CuPy's -ftz; flush_subnormals)
        fa, fb = flush_subnormals(a_before, DEVICE), flush_subnormals(b, DEVICE)
        with np.errstate(all="ignore"):
            want = getattr(np, name)(fa, fb, out=fa.copy())
        np.testing.assert_array_equal(flush_subnormals(host(r), DEVICE), flush_subnormals(want, DEVICE))


@pytest.mark.parametrize("spelling", ["operator", "method", "out"])
def test_overlapping_operand_and_views_see_the_write(spelling, device):
    a = np.arange(8.0)
    x = xp.asarray(a, device=device)
    view = x[2:5]
    {"operator": lambda: operator.iadd(x[1:], x[:-1]),
     "method": lambda: x[1:].add_(x[:-1]),
     "out": lambda: xp.add(x[1:], x[:-1], out=x[1:])}[spelling]()
    ref = np.arange(8.0)  # (x shares a's memory on the CPU)
    np.add(ref[1:], ref[:-1], out=ref[1:])  # NumPy resolves the overlap (it copies the operand)
    np.testing.assert_array_equal(host(x), ref)
    np.testing.assert_array_equal(host(view), ref[2:5])


def test_writes_bump_the_version_that_autograd_checks(device):
    w = xp.asarray([1.0, 2.0], device=device, requires_grad=True)
    x = xp.asarray([3.0, 4.0], device=device)
    y = w * x  # saves x for backward
    x += 1.0  # the fast path: no extension on x
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_self_overlapping_target_is_refused(device):
    x = xp.zeros(1, device=device).expand(3)
    for write in (lambda: operator.iadd(x, 1.0), lambda: x.add_(xp.ones(3, device=device)),
                  lambda: xp.add(x, x, out=x)):
        with pytest.raises(RuntimeError, match="single memory location"):
            write()


def test_errors_name_the_dtypes(device):
    i = xp.asarray([1, 2], device=device)
    with pytest.raises(TypeError, match="float"):
        i += 1.5
    with pytest.raises(TypeError, match="float32"):
        i.add_(xp.asarray([1.0, 2.0], device=device))
    assert host(i).tolist() == [1, 2]


@settings(max_examples=80, deadline=None)
@given(st.data(), st.sampled_from(sorted(OPS)), st.sampled_from(DTYPES), st.sampled_from(DTYPES),
       st.sampled_from(DTYPES), hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
def test_out_into_another_array_matches_the_out_of_place_result(data, name, d1, d2, dout, shapes):
    s1, s2 = shapes.input_shapes
    x = xp.asarray(_values(data.draw, d1, s1), device=DEVICE)
    y = xp.asarray(_values(data.draw, d2, s2), device=DEVICE)
    out = xp.full(shapes.result_shape, 7, dtype=getattr(xp, dout), device=DEVICE)
    before = host(out).copy()
    try:
        expected = getattr(xp, name)(x, y)
    except TypeError:
        expected = None
    try:
        r = getattr(xp, name)(x, y, out=out)
    except TypeError:  # the operands, or a result out can't hold: nothing written
        assert expected is None or not xp.can_cast(expected.dtype, out.dtype)
        np.testing.assert_array_equal(host(out), before)
        return
    assert r is out and expected is not None
    np.testing.assert_array_equal(host(out), host(expected).astype(np.dtype(dout)))


@pytest.mark.parametrize("name", ["exp", "negative", "abs", "sqrt"])
def test_unary_out_matches_and_resolves_overlap(name, device):
    a = np.linspace(0.5, 4.0, 8)
    x = xp.asarray(a.copy(), device=device)  # (asarray shares memory on the CPU)
    out = xp.empty(8, dtype=xp.float64, device=device)
    assert getattr(xp, name)(x, out=out) is out
    np.testing.assert_allclose(host(out), getattr(np, name)(a))
    rev = x[::-1]  # out overlapping its own input, reversed
    getattr(xp, name)(x, out=rev)
    np.testing.assert_allclose(host(x), getattr(np, name)(a)[::-1])
    low = xp.empty(8, dtype=xp.float32, device=device)  # a cast: the general path
    getattr(xp, name)(xp.asarray(a, device=device), out=low)
    np.testing.assert_allclose(host(low), getattr(np, name)(a).astype(np.float32), rtol=1e-6)
    with pytest.raises(TypeError):
        getattr(xp, name)(xp.asarray(a, device=device), out=xp.empty(8, dtype=xp.int64, device=device))
    with pytest.raises(ValueError):
        getattr(xp, name)(xp.asarray(a, device=device), out=xp.empty(7, dtype=xp.float64, device=device))
