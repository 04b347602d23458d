"""The compiled out= door (fast.c, fast_out): ``f(x, out=y)``, ``f(x1, x2, out=y)`` of the
namespace's elementwise functions and the unary in-place methods (``x.exp_()``), written
by the loop into out's own memory, against the Python definition (``__wrapped__``) and
NumPy's ufunc with out=: the same bytes everywhere in the buffers involved, the same
result identity, one version bump or the same error (type and message), operands unchanged
where they are not out, with operands that alias out exactly, partly or not at all."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from strided.autograd import no_grad

CPU = "cpu"
compiled = pytest.mark.skipif(type(xp.add).__name__ != "Fast", reason="the compiled path is not active")

BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
          "floor_divide": np.floor_divide, "pow": np.power, "maximum": np.maximum,
          "less": np.less, "logical_and": np.logical_and, "bitwise_and": np.bitwise_and,
          "atan2": np.arctan2}
# rows whose values are NumPy's ufunc's (floor_divide and pow follow PyTorch at inf and
# integer powers; atan2 of integers computes in another float dtype)
SAME_AS_NUMPY = {"add", "subtract", "multiply", "divide", "maximum", "less", "logical_and", "bitwise_and"}
UNARY = {"exp": np.exp, "negative": np.negative, "abs": np.absolute, "sqrt": np.sqrt,
         "sin": np.sin, "square": np.square, "floor": np.floor, "logical_not": np.logical_not,
         "sigmoid": None, "tanh": np.tanh}
DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool", "complex64"]
VALUES = [0, 1, -1, 2, 3, -7, 0.5, -0.0, np.nan, np.inf, -np.inf, 1e30]


def _values(draw, dtype, n):
    vals = draw(st.lists(st.sampled_from(VALUES), min_size=n, max_size=n))
    with np.errstate(all="ignore"):
        a = np.array(vals, dtype=np.float64)
        if dtype == "bool":
            return a > 0
        if dtype[0] in "iu":
            a = np.nan_to_num(a, nan=0, posinf=5, neginf=-5)
            a = np.clip(a, -100, 100)
            if dtype[0] == "u":
                a = np.abs(a)
        return a.astype(dtype)


def _bytes(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def _outcome(fn):
    try:
        with np.errstate(all="ignore"):  # (the state a Fast runs its definition under)
            return fn(), None
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return None, (type(e), str(e))


@st.composite
def independent(draw, nargs):
    """Operands and out each of their own buffer (some views, some of other shapes)."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    n = int(np.prod(shape)) if shape else 1
    ops = []
    for j in range(nargs):
        kind = draw(st.sampled_from(["array", "array", "0-d", "scalar", "reversed"])) if j else \
            draw(st.sampled_from(["array", "array", "reversed", "0-d"] + (["scalar"] if nargs == 2 else [])))
        if kind == "scalar":
            ops.append(("scalar", draw(st.sampled_from([2, -1, 0, 1.5, -0.0, True, 3j]))))
        else:
            d = draw(st.sampled_from(DTYPES))
            s = () if kind == "0-d" else shape
            ops.append((kind, _values(draw, d, int(np.prod(s)) if s else 1).reshape(s)))
    od = draw(st.sampled_from(DTYPES))
    oshape = draw(st.sampled_from([shape, shape, shape, (), (n + 1,)]))
    okind = draw(st.sampled_from(["array", "array", "reversed", "lazy", "readonly"]))
    out = _values(draw, od, int(np.prod(oshape)) if oshape else 1).reshape(oshape)
    return ops, (okind, out)


def _make_independent(case):
    ops, (okind, out) = case
    xs, keep = [], []
    for kind, v in ops:
        if kind == "scalar":
            xs.append(v if not isinstance(v, bool) else v)
            continue
        a = xp.asarray(v[::-1].copy() if kind == "reversed" and v.ndim else v.copy(), device=CPU)
        x = a[::-1] if kind == "reversed" and v.ndim else a
        xs.append(x)
        keep.append(x)
    if okind == "lazy":  # no Storage asked for yet (no version to bump)
        base = y = xp.asarray(out.copy(), device=CPU)
        assert y._st is None
        return xs, y, base, keep
    if okind == "readonly":
        r = out.copy()
        r.flags.writeable = False
        base = y = xp.asarray(r, device=CPU)
    elif okind == "reversed" and out.ndim:
        base = xp.asarray(out[::-1].copy(), device=CPU)
        y = base[::-1]
    else:
        base = y = xp.asarray(out.copy(), device=CPU)
    base.storage()  # (a Storage, whose version the write bumps)
    return xs, y, base, keep


def _run(fn, xs, y, base, keep):
    before = [_bytes(np.asarray(k)) for k in keep if k is not y]
    v0 = base.storage()._version if base._st is not None else None
    r, err = _outcome(lambda: fn(*xs, y))
    if err is None:
        assert r is y
    for k, b in zip([k for k in keep if k is not y], before):
        if not np.shares_memory(np.asarray(k), np.asarray(base)):
            assert _bytes(np.asarray(k)) == b  # an operand that is not out stays as it was
    bump = None if v0 is None else base.storage()._version - v0
    return err, _bytes(np.asarray(base)), str(base.dtype), bump


def _ns_fn(name, slow):
    f = getattr(xp, name)
    g = f.__wrapped__ if slow else f
    return lambda *a: g(*a[:-1], out=a[-1])


@compiled
@settings(max_examples=500, deadline=None)
@given(name=st.sampled_from(sorted(BINARY)), case=independent(2))
def test_binary_out_equals_the_python_definition(name, case):
    res = [_run(_ns_fn(name, slow), *_make_independent(case)) for slow in (False, True)]
    assert res[0] == res[1]


@compiled
@settings(max_examples=500, deadline=None)
@given(name=st.sampled_from(sorted(UNARY)), case=independent(1))
def test_unary_out_equals_the_python_definition(name, case):
    res = [_run(_ns_fn(name, slow), *_make_independent(case)) for slow in (False, True)]
    assert res[0] == res[1]


@st.composite
def aliased(draw, nargs):
    """Operands and out as windows of one buffer: exact, partial or no overlap, step 1 or 2."""
    d = draw(st.sampled_from(["float32", "float64", "int64", "uint8"]))
    n = draw(st.integers(0, 6))
    step = draw(st.sampled_from([1, 1, 2]))
    L = 3 * n * step + 8
    buf = _values(draw, d, L)
    wins = []
    for _ in range(nargs + 1):
        if wins and draw(st.booleans()):
            wins.append(draw(st.sampled_from(wins)))  # the same window (exact alias)
        else:
            wins.append((draw(st.integers(0, L - n * step - 1)), draw(st.sampled_from([1, step]))))
    scal = draw(st.sampled_from([None, 2, -0.5])) if nargs == 2 else None
    return buf, n, wins, scal


def _make_aliased(case):
    buf, n, wins, scal = case
    base = xp.asarray(buf.copy(), device=CPU)
    views = [base[o:o + n * s:s] for o, s in wins]
    xs = views[:-1]
    if scal is not None:
        xs[1] = scal
    return xs, views[-1], base, []


@compiled
@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from(sorted(BINARY)), case=aliased(2))
def test_binary_out_aliasing_equals_python_and_numpy(name, case):
    res = [_run(_ns_fn(name, slow), *_make_aliased(case)) for slow in (False, True)]
    assert res[0] == res[1]
    err, got, dt, bump = res[0]
    buf, n, wins, scal = case
    ref = buf.copy()
    views = [ref[o:o + n * s:s] for o, s in wins]
    args = views[:-1] if scal is None else [views[0], scal]
    try:
        with np.errstate(all="ignore"):
            BINARY[name](*args, out=views[-1], casting="same_kind")
    except (TypeError, ValueError, OverflowError, np._core._exceptions._UFuncNoLoopError):
        assert err is not None or name in ("pow",)  # (NumPy's own cast rules differ for pow)
        return
    if err is None:
        assert bump == 1
        if name in SAME_AS_NUMPY:
            assert got == _bytes(ref), (name, case)


@compiled
@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from(sorted(UNARY)), case=aliased(1))
def test_unary_out_aliasing_equals_python_and_numpy(name, case):
    res = [_run(_ns_fn(name, slow), *_make_aliased(case)) for slow in (False, True)]
    assert res[0] == res[1]
    err, got, dt, bump = res[0]
    if err is None:
        assert bump == 1
        buf, n, wins, _ = case
        ref = buf.copy()
        views = [ref[o:o + n * s:s] for o, s in wins]
        if UNARY[name] is not None and buf.dtype.kind == "f":
            with np.errstate(all="ignore"):
                UNARY[name](views[0], out=views[1])
            assert got == _bytes(ref), (name, case)


INPLACE = ["exp_", "neg_", "abs_", "sqrt_", "sin_", "square_", "floor_", "sigmoid_", "tanh_",
           "relu_", "logical_not_", "reciprocal_", "sign_", "trunc_"]


@compiled
@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from(INPLACE), d=st.sampled_from(DTYPES), data=st.data(),
       view=st.sampled_from(["whole", "slice", "reversed", "0-d"]))
def test_unary_inplace_methods_equal_the_python_method(name, d, data, view):
    if not hasattr(xp.Array, name):
        pytest.skip(f"no {name}")
    m = getattr(xp.Array, name)
    assert type(m).__name__ == "Fast"
    n = data.draw(st.integers(0, 8))
    buf = _values(data.draw, d, n + 2)
    res = []
    for fn in (m, m.__wrapped__):
        base = xp.asarray(buf.copy(), device=CPU)
        x = {"whole": base, "slice": base[1:n + 1], "reversed": base[::-1], "0-d": base[1]}[view]
        v0 = base.storage()._version
        r, err = _outcome(lambda: fn(x))
        if err is None:
            assert r is x
        res.append((err, _bytes(np.asarray(base)), base.storage()._version - v0))
    assert res[0] == res[1]
    if res[0][0] is None:
        assert res[0][2] == 1
        ref = buf.copy()
        npf = {"exp_": np.exp, "neg_": np.negative, "sqrt_": np.sqrt, "sin_": np.sin,
               "floor_": np.floor, "tanh_": np.tanh}.get(name)
        if npf is not None and view != "0-d":
            rv = {"whole": ref, "slice": ref[1:n + 1], "reversed": ref[::-1]}[view]
            with np.errstate(all="ignore"):
                npf(rv, out=rv)
            assert res[0][1] == _bytes(ref)


@compiled
def test_the_door_engages_for_plain_host_arrays(monkeypatch):
    """The cases the door answers never reach the Python writer (``out_native``): made to
    raise, it leaves them working, while the Python definition meets it."""
    from strided._api import elementwise as E

    def refuse(*a, **k):
        raise AssertionError("the Python out= door ran")
    a = xp.asarray(np.arange(5.0), device=CPU)
    b = xp.asarray(np.ones(5), device=CPU)
    y = xp.asarray(np.zeros(5), device=CPU)
    st_ = y.storage()
    monkeypatch.setattr(E, "out_native", refuse)
    monkeypatch.setattr(E, "_write_direct", refuse)
    v = st_._version
    assert xp.add(a, b, out=y) is y and xp.multiply(a, 2.0, out=y) is y
    assert xp.exp(a, out=y) is y and y.exp_() is y and y.neg_() is y
    assert xp.add(y, b, out=y) is y  # (out is an operand: an exact alias)
    assert st_._version == v + 6
    np.testing.assert_array_equal(np.asarray(y), -np.exp(np.exp(np.arange(5.0))) + 1)
    with pytest.raises(AssertionError, match="the Python out= door ran"):
        xp.add.__wrapped__(a, b, out=y)
    with pytest.raises(AssertionError, match="the Python out= door ran"):
        xp.add(a[::2], b[::2], out=y[::2])  # (a strided out: the Python path)
    with pytest.raises(AssertionError, match="the Python out= door ran"):
        xp.add(y[1:], b[:4], out=y[:4])  # (a partial overlap: the Python path)


@compiled
def test_out_that_requires_grad_raises_as_before():
    a = xp.asarray(np.ones(3), device=CPU)
    y = xp.asarray(np.zeros(3), device=CPU)
    y.requires_grad_(True)
    with pytest.raises(RuntimeError, match="arguments don't support automatic differentiation"):
        xp.add(a, a, out=y)
    with pytest.raises(RuntimeError, match="arguments don't support automatic differentiation"):
        xp.exp(a, out=y)
    with no_grad():
        xp.add(a, a, out=y)
    np.testing.assert_array_equal(np.asarray(y.detach()), 2.0)


@compiled
def test_inplace_method_on_a_leaf_raises_and_a_saved_operand_is_seen():
    w = xp.asarray(np.ones(3), device=CPU)
    w.requires_grad_(True)
    with pytest.raises(RuntimeError):
        w.exp_()  # (a leaf that requires grad: autograd's own error, from the Python path)
    x = xp.asarray(np.ones(3), device=CPU)
    z = w * x  # saves x for backward
    x.exp_()  # the compiled door bumps x's version: backward must see the change
    with pytest.raises(RuntimeError):
        z.sum().backward()
    x2 = xp.asarray(np.ones(3), device=CPU)
    z2 = w * x2
    xp.exp(x2, out=x2)
    with pytest.raises(RuntimeError):
        z2.sum().backward()


@compiled
def test_named_out_keeps_the_python_rules():
    a = xp.asarray(np.arange(6.0).reshape(2, 3), device=CPU).rename("N", "C")
    y = xp.asarray(np.zeros((2, 3)), device=CPU).rename("N", "C")
    xp.exp(a, out=y)
    np.testing.assert_array_equal(np.asarray(y.rename(None)), np.exp(np.arange(6.0).reshape(2, 3)))
    assert y.names == ("N", "C")
    b = xp.asarray(np.arange(6.0).reshape(2, 3), device=CPU)
    b.exp_()
    np.testing.assert_array_equal(np.asarray(b), np.exp(np.arange(6.0).reshape(2, 3)))


def test_out_on_the_default_device_matches_numpy():
    """Not pinned to the host: under the CUDA stand-in the door must leave device arrays to
    the Python path, which writes the same values."""
    a = xp.asarray(np.linspace(-2, 2, 7))
    b = xp.asarray(np.linspace(3, -3, 7))
    y = xp.empty((7,), dtype=xp.float64)
    assert xp.add(a, b, out=y) is y
    np.testing.assert_array_equal(xp.asnumpy(y) if hasattr(xp, "asnumpy") else np.asarray(xp.to_device(y, "cpu")),
                                  np.linspace(-2, 2, 7) + np.linspace(3, -3, 7))
    assert xp.exp(a, out=y) is y
    np.testing.assert_array_equal(np.asarray(xp.to_device(y, "cpu")), np.exp(np.linspace(-2, 2, 7)))
    y.neg_()
    np.testing.assert_array_equal(np.asarray(xp.to_device(y, "cpu")), -np.exp(np.linspace(-2, 2, 7)))


def test_device_arrays_take_the_python_door(monkeypatch):
    """Under the CUDA stand-in (CI's cuda leg): arrays of a device reach the Python writer,
    never the compiled loop."""
    a = xp.asarray(np.arange(5.0))
    if str(a.device).startswith("cpu"):
        pytest.skip("host arrays: run under STRIDED_DEFAULT_DEVICE=cuda and the stand-in")
    from strided._api import elementwise as E
    y = xp.asarray(np.zeros(5))

    def refuse(*a, **k):
        raise AssertionError("the Python out= door ran")
    monkeypatch.setattr(E, "out_native", refuse)
    monkeypatch.setattr(E, "_write_direct", refuse)
    for call in (lambda: xp.add(a, a, out=y), lambda: xp.exp(a, out=y), lambda: y.neg_(),
                 lambda: xp.multiply(a, 2.0, out=y)):
        with pytest.raises(AssertionError, match="the Python out= door ran"):
            call()


@compiled
def test_out_over_the_same_numpy_memory_through_another_storage():
    """Two Storages over one NumPy buffer (asarray without a copy): a partial overlap of an
    operand and out is seen from the memory itself, and NumPy's answer is kept."""
    buf = np.arange(10.0)
    ref = buf.copy()
    x = xp.asarray(buf[1:], device=CPU)
    y = xp.asarray(buf[:-1], device=CPU)
    assert x.storage() is not y.storage() and np.shares_memory(np.asarray(x), np.asarray(y))
    xp.add(x, x, out=y)
    np.add(ref[1:], ref[1:], out=ref[:-1])
    np.testing.assert_array_equal(buf, ref)
    xp.exp(y, out=x)
    np.exp(ref[:-1], out=ref[1:])
    np.testing.assert_array_equal(buf, ref)
