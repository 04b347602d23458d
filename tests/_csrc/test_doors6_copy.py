"""The compiled ``x[...] = y`` and ``x.copy_(y)`` (setitem.c, copy_same: an array of x's
dtype and shape copied into x's C-contiguous memory) against the Python definitions
(``__wrapped__``) and NumPy's assignment: the same bytes in every buffer involved, the same
version bumps, the same errors (type and message), with sources that alias the target
exactly, partly or not at all, strided, reversed, 0-d, of other dtypes and shapes."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp

CPU = "cpu"
compiled = pytest.mark.skipif(type(xp.Array.__dict__["copy_"]).__name__ != "View",
                              reason="the compiled path is not active")
DTYPES = ["float32", "float64", "int64", "uint8", "bool", "complex64", "float16"]


def _vals(draw, dtype, n):
    v = np.array(draw(st.lists(st.sampled_from([0, 1, -2, 3.5, -0.0, np.nan, 7]), min_size=n, max_size=n)),
                 dtype=np.float64)
    with np.errstate(all="ignore"):
        if dtype == "bool":
            return v > 0
        if dtype[0] in "iu":
            return np.abs(np.nan_to_num(v)).astype(dtype)
        return v.astype(dtype)


def _outcome(fn):
    try:
        with np.errstate(all="ignore"):
            return fn(), None
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return None, (type(e), str(e))


def _spell(how, slow):
    if how == "setitem":
        f = xp.Array.__dict__["__setitem__"]
        g = f.__wrapped__ if slow else f
        return lambda x, y: g(x, Ellipsis, y)
    f = xp.Array.__dict__["copy_"]
    g = f.__wrapped__ if slow else f
    return lambda x, y: g(x, y)


@st.composite
def aliased(draw):
    """A target and a source as windows of one buffer (or the source of its own buffer)."""
    d = draw(st.sampled_from(DTYPES))
    n = draw(st.integers(0, 7))
    L = 3 * n + 6
    buf = _vals(draw, d, L)
    to = (draw(st.integers(0, L - n)), 1)
    kind = draw(st.sampled_from(["window", "window", "reversed", "step2", "same", "own", "0-d", "2-d"]))
    if kind == "step2":
        frm = (draw(st.integers(0, max(0, L - 2 * n))), 2)
    elif kind == "reversed":
        frm = (draw(st.integers(n, L)) - 1 if n else 0, -1)
    else:
        frm = (draw(st.integers(0, L - n)), 1)
    od = draw(st.sampled_from([d, d, d] + DTYPES))
    return buf, n, to, kind, frm, od, _vals(draw, od, max(n, 1))


def _build(case):
    buf, n, (o, _), kind, (fo, fs), od, own = case
    base = xp.asarray(buf.copy(), device=CPU)
    base.storage()
    x = base[o:o + n]
    if kind == "same":
        y = base[o:o + n]
    elif kind == "own":
        y = xp.asarray(own[:n].copy(), device=CPU)
    elif kind == "0-d":
        y = xp.asarray(own[0].copy(), device=CPU)
    elif kind == "2-d":
        y = xp.asarray(own[:n].copy(), device=CPU)[None] if n else xp.asarray(own[:0], device=CPU)[None]
    elif fs == -1:
        y = base[fo::-1][:n] if n else base[0:0]
    else:
        y = base[fo:fo + fs * n:fs]
    if kind in ("window", "reversed", "step2") and od != str(base.dtype):
        with warnings.catch_warnings():  # (NaN into an integer: strided's warning)
            warnings.simplefilter("ignore")
            if y.dtype.kind == "c" and od[0] != "c":
                y = xp.real(y)
            y = xp.astype(y, getattr(xp, od))  # (another dtype: its own buffer)
    return base, x, y


@compiled
@settings(max_examples=600, deadline=None)
@given(case=aliased(), how=st.sampled_from(["setitem", "copy_"]))
def test_copy_equals_the_python_definition_and_numpy(case, how):
    res = []
    for slow in (False, True):
        base, x, y = _build(case)
        ybytes = None if y._st is base._st else np.asarray(y).tobytes()
        v0 = base.storage()._version
        r, err = _outcome(lambda: _spell(how, slow)(x, y))
        if err is None and how == "copy_":
            assert r is x
        if ybytes is not None:
            assert np.asarray(y).tobytes() == ybytes  # the source is read, never written
        res.append((err, np.asarray(base).tobytes(), base.storage()._version - v0))
    assert res[0] == res[1]
    err, got, bump = res[0]
    if err is None:
        assert bump == 1
        base, x, y = _build(case)
        ref = np.asarray(base).copy()
        n, o = case[1], case[2][0]
        src = np.asarray(y).copy()  # (NumPy's assignment reads an overlapping source as it was)
        with np.errstate(all="ignore"):
            if src.dtype.kind == "c" and ref.dtype.kind != "c":
                src = src.real
            ref[o:o + n][...] = src
        assert got == ref.tobytes()


@compiled
@pytest.mark.parametrize("how", ["setitem", "copy_"])
def test_copy_engages_and_bumps_once(how):
    a = xp.asarray(np.arange(6.0), device=CPU)
    st_ = a.storage()
    v = st_._version
    src = xp.asarray(np.arange(6.0)[::-1].copy(), device=CPU)
    _spell(how, False)(a, src)
    assert st_._version == v + 1
    np.testing.assert_array_equal(np.asarray(a), np.arange(6.0)[::-1])
    # the overlap NumPy buffers: a[1:] = a[:-1] reads the old values
    b = xp.asarray(np.arange(6.0), device=CPU)
    _spell(how, False)(b[1:], b[:-1])
    np.testing.assert_array_equal(np.asarray(b), [0, 0, 1, 2, 3, 4])
    c = xp.asarray(np.arange(6.0), device=CPU)
    _spell(how, False)(c[:-1], c[1:])
    np.testing.assert_array_equal(np.asarray(c), [1, 2, 3, 4, 5, 5])


@compiled
@pytest.mark.parametrize("how", ["setitem", "copy_"])
def test_read_only_and_overlapping_targets_raise_as_before(how):
    r = np.zeros(4)
    r.flags.writeable = False
    x = xp.asarray(r, device=CPU)
    y = xp.asarray(np.ones(4), device=CPU)
    errs = []
    for slow in (False, True):
        errs.append(_outcome(lambda: _spell(how, slow)(x, y))[1])
    assert errs[0] is not None and errs[0] == errs[1]
    np.testing.assert_array_equal(r, 0)
    z = xp.broadcast_to(xp.asarray(np.zeros(1), device=CPU), (4,))  # (stride 0: refused)
    errs = [_outcome(lambda: _spell(how, slow)(z, y))[1] for slow in (False, True)]
    assert errs[0] is not None and errs[0] == errs[1]


@compiled
def test_autograd_and_names_keep_the_python_rules():
    w = xp.asarray(np.ones(3), device=CPU)
    w.requires_grad_(True)
    with pytest.raises(RuntimeError):
        w.copy_(xp.asarray(np.zeros(3), device=CPU))  # (a leaf that requires grad)
    x = xp.asarray(np.zeros(3), device=CPU)
    x.copy_(w * 2.0)  # recorded: CopyBackwards, the gradient flows to w
    x.sum().backward()
    np.testing.assert_array_equal(np.asarray(w.grad), 2.0)
    a = xp.asarray(np.zeros((2, 3)), device=CPU).rename("N", "C")
    b = xp.asarray(np.ones((2, 3)), device=CPU).rename("C", "N")
    with pytest.raises(Exception, match="do not match|names"):
        a.copy_(b)
    with pytest.raises(Exception, match="do not match|names"):
        a[...] = b
    np.testing.assert_array_equal(np.asarray(a.rename(None)), 0)


def test_copy_on_the_default_device(monkeypatch):
    """Not pinned: under the CUDA stand-in a device array is copied by the Python path."""
    a = xp.asarray(np.arange(5.0))
    y = xp.asarray(np.zeros(5))
    assert y.copy_(a) is y
    np.testing.assert_array_equal(np.asarray(xp.to_device(y, "cpu")), np.arange(5.0))
    y[...] = xp.asarray(np.ones(5))
    np.testing.assert_array_equal(np.asarray(xp.to_device(y, "cpu")), 1.0)


@st.composite
def fills(draw):
    d = draw(st.sampled_from(DTYPES + ["int32"]))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    layout = draw(st.sampled_from(["plain", "plain", "lazy", "reversed", "step2", "readonly", "broadcast"]))
    value = draw(st.sampled_from([None, 0, 1, -3, 2.5, -0.0, float("nan"), float("inf"), 1e300, 3e38,
                                  True, False, 2 ** 70, 2 ** 31, 1j, "x", "0-d"]))
    return d, shape, layout, value


def _fill_target(d, shape, layout):
    n = int(np.prod(shape)) if shape else 1
    buf = (np.arange(2 * n + 2) % 5).astype(d)
    if layout == "readonly":
        r = buf[:n].reshape(shape).copy()
        r.flags.writeable = False
        x = base = xp.asarray(r, device=CPU)
        return base, x
    if layout == "broadcast":
        base = xp.asarray(buf[:1].copy(), device=CPU)
        base.storage()
        return base, xp.broadcast_to(base, shape) if shape else base[0]
    base = xp.asarray(buf.copy(), device=CPU)
    if layout != "lazy":
        base.storage()
    if layout == "reversed":
        x = xp.reshape(base[n - 1::-1] if n else base[0:0], shape) if len(shape) <= 1 else base[:n].reshape(shape)
    elif layout == "step2":
        x = base[::2][:n].reshape(shape) if len(shape) <= 1 else base[:n].reshape(shape)
    else:
        x = base[:n].reshape(shape) if layout != "lazy" else base
    return base, x


@compiled
@settings(max_examples=600, deadline=None)
@given(case=fills())
def test_zero_and_fill_equal_the_python_definition(case):
    d, shape, layout, value = case
    res = []
    for slow in (False, True):
        base, x = _fill_target(d, shape, layout)
        if value is None:
            f = xp.Array.__dict__["zero_"]
            call = lambda: (f.__wrapped__ if slow else f)(x)  # noqa: E731
        else:
            f = xp.Array.__dict__["fill_"]
            v = xp.asarray(np.array(2.0, dtype=d), device=CPU) if value == "0-d" else value
            call = lambda: (f.__wrapped__ if slow else f)(x, v)  # noqa: E731
        v0 = base.storage()._version if base._st is not None else None
        r, err = _outcome(call)
        if err is None:
            assert r is x
        res.append((err, np.asarray(base).tobytes(),
                    None if v0 is None else base.storage()._version - v0))
    assert res[0] == res[1]
    err, got, bump = res[0]
    if err is None and bump is not None:
        assert bump == 1
    if err is None and layout in ("plain", "lazy") and value is not None and value != "0-d":
        ref = (np.arange(len(got) // np.dtype(d).itemsize) % 5).astype(d)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            n = int(np.prod(shape)) if shape else 1
            ref[:n if layout == "plain" else len(ref)] = value
        assert got == ref.tobytes()


@compiled
def test_zero_and_fill_engage_and_keep_autograd_rules():
    w = xp.asarray(np.ones(3), device=CPU)
    w.requires_grad_(True)
    with pytest.raises(RuntimeError):
        w.zero_()
    with pytest.raises(RuntimeError):
        w.fill_(2.0)
    x = xp.asarray(np.ones(3), device=CPU)
    z = w * x  # saves x
    x.fill_(3.0)  # bumps x's version: backward must refuse
    with pytest.raises(RuntimeError):
        z.sum().backward()
    a = xp.asarray(np.arange(6.0).reshape(2, 3), device=CPU).rename("N", "C")
    a.zero_()
    assert a.names == ("N", "C")
    np.testing.assert_array_equal(np.asarray(a.rename(None)), 0.0)


def test_zero_and_fill_on_the_default_device():
    """Not pinned: under the CUDA stand-in a device array is filled by the Python path."""
    y = xp.asarray(np.arange(5.0))
    assert y.fill_(2.5) is y
    np.testing.assert_array_equal(np.asarray(xp.to_device(y, "cpu")), 2.5)
    assert y.zero_() is y
    np.testing.assert_array_equal(np.asarray(xp.to_device(y, "cpu")), 0.0)
