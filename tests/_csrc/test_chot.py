"""The compiled hot path (strided/_csrc/_chot/) against NumPy and against the Python
definition it stands in front of (``Fast.__wrapped__``).

Skipped where the extension is not built or STRIDED_NO_CEXT=1; the rest of the
suite covers the same behaviour through whichever path is active.
"""

import inspect
import operator
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._api import elementwise as E

from conftest import assert_close, run_concurrently

pytestmark = pytest.mark.skipif(not E.COMPILED, reason="the compiled hot path is not active")

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float32", "float64", "complex64"]
BINARY = [r for r in E.ROWS if r.nargs == 2 and r.dunder]
UNARY = [r for r in E.ROWS if r.nargs == 1 and r.dunder]


def _np(x):
    return np.asarray(x.cpu())


def _same(got, want):
    """Same type, dtype, shape and values (NaN equal to NaN)."""
    assert type(got) is xp.Array
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(_np(got), _np(want))


def _agrees_with_python(op, *args):
    """``op(*args)`` (the compiled path) gives what the Python definition gives: the same
    array, the same error type, or NotImplemented. Returns the Python path's answer."""
    try:
        with np.errstate(all="ignore"):  # the bare definition (strided's entry points set it)
            want = op.__wrapped__(*args)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as e:
        with pytest.raises(type(e)):
            op(*args)
        return e
    if want is NotImplemented:
        assert op(*args) is NotImplemented
    else:
        _same(op(*args), want)
    return want


def _value(dt, n, seed):
    rng = np.random.default_rng(seed)
    if dt == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dt.startswith(("int", "uint")):
        return rng.integers(1, 5, n).astype(dt)
    v = rng.uniform(-3, 3, n).astype(dt)
    if n > 2:
        v[1] = np.nan if dt.startswith("float") else v[1]
    return v


@settings(max_examples=150, deadline=None)
@given(row=st.sampled_from(BINARY), d1=st.sampled_from(DTYPES), d2=st.sampled_from(DTYPES),
       n=st.integers(1, 6), sliced=st.booleans())
def test_binary_operators_equal_the_python_path(row, d1, d2, n, sliced):
    a0, b0 = _value(d1, 2 * n, 1), _value(d2, 2 * n, 2)
    a, b = xp.asarray(a0), xp.asarray(b0)
    if sliced:  # views whose native arrays are built on first use
        a, b = a[::2], b[::2]
    want = _agrees_with_python(getattr(xp.Array, f"__{row.dunder}__"), a, b)
    if type(want) is xp.Array:
        _same(getattr(xp, row.name)(a, b), want)  # the namespace function's fast path


@settings(max_examples=100, deadline=None)
@given(row=st.sampled_from(BINARY), dt=st.sampled_from(DTYPES),
       s=st.sampled_from([True, 0, 3, -2, 1.5, -0.0, float("inf"), 2 + 1j]), reflect=st.booleans())
def test_scalar_operands_equal_the_python_path(row, dt, s, reflect):
    a = xp.asarray(_value(dt, 5, 3))
    name = f"__r{row.dunder}__" if reflect else f"__{row.dunder}__"
    op = getattr(xp.Array, name, None)
    if op is not None:
        _agrees_with_python(op, a, s)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("row", UNARY, ids=lambda r: r.name)
def test_unary_operators_equal_numpy(row, dt):
    a0 = _value(dt, 5, 4)
    a = xp.asarray(a0)
    op = getattr(xp.Array, f"__{row.dunder}__")
    try:
        want = op.__wrapped__(a)
    except TypeError:
        with pytest.raises(TypeError):
            op(a)
        return
    _same(op(a), want)
    ref = {"neg": np.negative, "pos": np.positive, "abs": np.abs, "invert": np.invert}[row.dunder](a0)
    np.testing.assert_array_equal(_np(op(a)), ref)


@pytest.mark.parametrize("name", ["exp", "sqrt", "sin", "log1p", "isnan", "abs"])
def test_unary_functions_equal_numpy(name):
    a0 = np.array([0.5, 2.0, np.nan, -1.0, np.inf], dtype=np.float32)
    got = getattr(xp, name)(xp.asarray(a0))
    with np.errstate(all="ignore"):
        want = getattr(np, {"abs": "absolute"}.get(name, name))(a0)
    assert got.dtype == want.dtype
    # NumPy's bits on the CPU; a GPU's exp and sin are within their documented ulps
    assert_close(got, want, ulps=name)


def test_arithmetic_against_numpy_reference():
    a0 = np.array([1.0, -2.0, 0.0, np.inf], np.float32)
    b0 = np.array([3.0, 0.0, 0.0, np.inf], np.float32)
    a, b = xp.asarray(a0), xp.asarray(b0)
    with np.errstate(all="ignore"):
        for f in (operator.add, operator.sub, operator.mul, operator.truediv, operator.lt,
                  operator.eq, operator.ge):
            np.testing.assert_array_equal(_np(f(a, b)), f(a0, b0))
            np.testing.assert_array_equal(_np(f(a, 2.5)), f(a0, np.float32(2.5)))
            np.testing.assert_array_equal(_np(f(2.5, a)), f(np.float32(2.5), a0))


def test_no_floating_point_warnings_reach_the_caller():
    # The standard specifies IEEE results; NumPy would warn (in the caller's frame).
    a = xp.asarray([1.0, 0.0, -1.0, 3e38], dtype=xp.float32)
    z = xp.zeros(4, dtype=xp.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q = a / z
        p = a * a
        d = (a / z) - (a / z)
        xp.log(z)
    np.testing.assert_array_equal(_np(q), [np.inf, np.nan, -np.inf, np.inf])
    assert _np(p)[3] == np.inf and np.isnan(_np(d)).all()


def test_numpy_error_state_is_restored():
    before = np.geterr()
    a = xp.asarray([1.0], dtype=xp.float32)
    _ = a / xp.zeros(1, dtype=xp.float32)
    assert np.geterr() == before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            np.array([1.0]) / np.array([0.0])  # NumPy's own calls still warn


def test_mixed_devices_and_extensions_take_the_python_path():
    a = xp.asarray([1.0, 2.0], requires_grad=True)
    y = (a * a + 1.0).sum()
    y.backward()
    np.testing.assert_allclose(_np(a.grad), [2.0, 4.0])
    n = xp.named.refine_names(xp.asarray([1.0, 2.0]), "N") if hasattr(xp, "named") else None
    if n is not None:
        assert (n + n).names == ("N",)


def test_errors_are_the_python_paths():
    a = xp.asarray([1, 2], dtype=xp.int64)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        a + xp.ones(3, dtype=xp.int64)
    with pytest.raises(TypeError, match="bitwise_and"):
        xp.asarray([1.0]) & xp.asarray([2.0])
    assert a.__add__("x") is NotImplemented


def test_large_operands_keep_the_pool_path():
    n = 1 << 18  # 1 MiB of float32: pooled result buffers and threads, in Python
    a = xp.ones(n, dtype=xp.float32)
    r = a + a
    assert r.dtype == xp.float32 and float(r[-1]) == 2.0


def test_concurrent_threads():
    # One thread holds the prepared error-state context while NumPy releases the GIL;
    # the others set the variable in their own context instead.
    a0 = np.linspace(-1, 1, 30000).astype(np.float32)
    a = xp.asarray(a0)

    def work():
        for _ in range(200):
            np.testing.assert_array_equal(_np(a * a + a), a0 * a0 + a0)

    run_concurrently(work)
    assert np.geterr()["divide"] == "warn"


def test_functions_look_like_their_definitions():
    for name in ("add", "exp", "less"):
        f = getattr(xp, name)
        assert f.__name__ == name and f.__doc__ == f.__wrapped__.__doc__
        assert inspect.signature(f) == inspect.signature(f.__wrapped__)
        assert pickle.loads(pickle.dumps(f)) is f
    a = xp.asarray([1.0, 2.0])
    assert xp.add(a, a, out=xp.empty(2)).tolist() == [2.0, 4.0]  # keywords: the Python path
    assert a.__add__(a).tolist() == [2.0, 4.0]  # bound as a method


@settings(max_examples=80, deadline=None)
@given(dt=st.sampled_from(DTYPES), shapes=st.sampled_from(
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((1, 1), (1, 1)), ((2, 3), (2, 3)),
     ((0, 3), (3, 2)), ((2, 2, 3), (3, 2))]), transposed=st.booleans())
def test_matmul_equals_numpy(dt, shapes, transposed):
    s1, s2 = shapes
    a0 = np.nan_to_num(_value(dt, int(np.prod(s1)), 5)).reshape(s1)
    b0 = np.nan_to_num(_value(dt, int(np.prod(s2)), 6)).reshape(s2)
    a, b = xp.asarray(a0), xp.asarray(b0)
    if transposed and len(s1) == 2:  # a transposed view's native is built on first use
        a = xp.asarray(np.ascontiguousarray(a0.T)).mT
    if dt == "bool":
        with pytest.raises(TypeError):
            a @ b
        return
    try:
        want = np.matmul(a0, b0)
    except ValueError:
        with pytest.raises(ValueError, match="matmul"):
            a @ b
        return
    for got in (a @ b, xp.matmul(a, b), xp.Array.__matmul__.__wrapped__(a, b)):
        assert type(got) is xp.Array and got.dtype == want.dtype and tuple(got.shape) == want.shape
        np.testing.assert_allclose(_np(got), want, rtol=1e-5)


@settings(max_examples=80, deadline=None)
@given(d1=st.sampled_from(DTYPES), d2=st.sampled_from(DTYPES),
       shapes=st.sampled_from([((4,), (4,), (4,)), ((2, 1), (1, 3), (3,)), ((4,), (3,), (4,))]),
       cond_dt=st.sampled_from(["bool", "int8"]))
def test_where_equals_numpy_and_the_python_path(d1, d2, shapes, cond_dt):
    sc, s1, s2 = shapes
    c0 = _value("bool", int(np.prod(sc)), 7).reshape(sc).astype(cond_dt)
    a0 = _value(d1, int(np.prod(s1)), 8).reshape(s1)
    b0 = _value(d2, int(np.prod(s2)), 9).reshape(s2)
    c, a, b = xp.asarray(c0), xp.asarray(a0), xp.asarray(b0)
    want = _agrees_with_python(xp.where, c, a, b)
    if type(want) is not xp.Array:
        return  # the same error as the Python path's
    if d1 == d2 and cond_dt == "bool":
        np.testing.assert_array_equal(_np(xp.where(c, a, b)), np.where(c0, a0, b0))
    else:
        assert want.dtype == xp.result_type(a, b)


def test_namespace_wrapper_hands_extensions_to_the_hook():
    # _dispatch.api compiled: an argument with autograd (also inside a list) reaches the hook
    a = xp.asarray([1.0, 2.0], requires_grad=True)
    b = xp.asarray([3.0, 4.0])
    y = xp.sum(xp.stack([a, b]) * 2.0) + xp.sum(xp.where(b > 3.5, a, b))
    y.backward()
    np.testing.assert_array_equal(_np(a.grad), [2.0, 3.0])
    z = xp.matmul(a, b)  # and a keyword-free matmul of a tracked vector
    z.backward()
    np.testing.assert_array_equal(_np(a.grad), [5.0, 7.0])
    f = xp.stack
    assert f._api_name == "stack" and f.__name__ == "stack"
    # the definition's parameters, then the PyTorch keywords the binder accepts (dim=)
    own, shown = inspect.signature(f.__wrapped__).parameters, inspect.signature(f).parameters
    assert list(shown)[:len(own)] == list(own)
    assert list(shown)[len(own):] == ["dim"]
    assert pickle.loads(pickle.dumps(f)) is f


def test_no_references_leak():
    # Every object the compiled path creates or borrows is released: after a warm-up, 5,000
    # more calls of each fast case leave traced memory where it was (a leak of one 10-element
    # result or one tuple per call would hold megabytes).
    import gc
    import tracemalloc
    a = xp.asarray(np.linspace(0.5, 1.5, 10, dtype=np.float32))
    m = xp.asarray(np.eye(3, dtype=np.float32))
    c = a > 1.0
    cases = [lambda: a + a, lambda: a + 1.5, lambda: 2.0 * a, lambda: -a, lambda: a < a,
             lambda: xp.exp(a), lambda: xp.add(a, a), lambda: m @ m, lambda: xp.where(c, a, a),
             lambda: xp.sum(a), lambda: a + xp.ones(3)]  # the last: an error, rerun in Python

    def run(n):
        for f in cases:
            for _ in range(n):
                try:
                    f()
                except ValueError:
                    pass

    run(200)
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        run(5000)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 100_000, f"{grown} bytes still held after 55,000 calls"


_NAMES = st.sampled_from([[None, None], ["A", None], [None, "A"], ["A", "B"], ["B", "A"], ["B", None]])


@settings(max_examples=120, deadline=None)
@given(row=st.sampled_from([r for r in E.ROWS if r.dunder]), shape1=st.sampled_from([(2, 3), (3,), (1, 3)]),
       shape2=st.sampled_from([(2, 3), (3,), ()]), n1=_NAMES, n2=_NAMES, scalar=st.booleans())
def test_named_elementwise_equals_the_python_path(row, shape1, shape2, n1, n2, scalar):
    # The compiled named case (a cached name outcome, strided/_csrc/_chot/names.c) against the named
    # handler's own path: the same names, values and errors, on the first call (which
    # fills the cache) and on the second (which the compiled path answers).
    a = xp.asarray(_value("float64", int(np.prod(shape1)), 10).reshape(shape1))
    a = a.rename(*n1[:a.ndim]) if any(n1[:a.ndim]) else a.rename("B", *([None] * (a.ndim - 1)))
    if row.nargs == 1:
        args = (a,)
    elif scalar:
        args = (a, 2.5)
    else:
        b = xp.asarray(_value("float64", int(np.prod(shape2)), 11).reshape(shape2))
        if b.ndim and any(n2[:b.ndim]):
            b = b.rename(*n2[:b.ndim])
        args = (a, b)
    op = getattr(xp.Array, f"__{row.dunder}__")
    for _ in range(2):
        try:
            with np.errstate(all="ignore"):  # the bare definition (strided's entry points set it)
                want = op.__wrapped__(*args)
        except Exception as e:  # the named handler's own error (or the dtype's)
            with pytest.raises(type(e)):
                op(*args)
            continue
        got = op(*args)
        if want is NotImplemented:
            assert got is NotImplemented
            continue
        assert got.names == want.names
        _same(got, want)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod", "std", "var"])
@pytest.mark.parametrize("axis", ["R", "C"])
def test_named_reductions_over_one_axis(name, axis):
    # The second call is answered by the compiled path from the handler's cached outcome
    # (_RED_AXIS); both must name and compute what NumPy and the names say.
    m0 = np.arange(1.0, 13.0).reshape(3, 4)
    m = xp.asarray(m0).rename("R", "C")
    ax = ("R", "C").index(axis)
    want = getattr(np, name)(m0, axis=ax)
    for _ in range(3):
        got = getattr(xp, name)(m, axis=axis)
        assert got.names == (("C",) if axis == "R" else ("R",))
        np.testing.assert_allclose(_np(got), want, rtol=1e-12)
    assert m.names == ("R", "C")  # the input keeps its names
    with pytest.raises(Exception, match="X"):  # a name the array does not have
        getattr(xp, name)(m, axis="X")
    leaf = xp.asarray(m0, requires_grad=True)
    getattr(xp, name)(leaf.rename("R", "C"), axis=axis).sum().backward()  # autograd: Python's path
    assert leaf.grad is not None and tuple(leaf.grad.shape) == (3, 4)
    if name == "sum":
        np.testing.assert_array_equal(_np(leaf.grad), np.ones((3, 4)))
