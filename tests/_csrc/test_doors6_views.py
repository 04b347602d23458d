"""The compiled ``squeeze(x, axis)`` (views.c, view_squeeze: one int axis of size 1 of an
unnamed array, positional or ``axis=``; in front of the binding of PyTorch's ``dim=``)
against NumPy and the Python definition (``__wrapped__``): shape, strides, offset, the
shared Storage (a write through the view is seen, the version counter is shared), values,
errors with the same type and message, names and autograd on the Python path."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from strided._core import array as _array

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

try:  # (PyTorch is the second reference where installed; the CI leg without it compares the two paths)
    import torch
except ImportError:
    torch = None

COMPILED = _array._CVIEWS is not None


def _definition():
    """The Python squeeze behind the compiled views, with the binding of ``dim=`` in front
    (the namespace's ``squeeze`` without the extension)."""
    from strided._core.call import bind
    f = xp.squeeze
    while hasattr(f, "__wrapped__"):
        f = f.__wrapped__
    return bind.bound("squeeze", f)


@st.composite
def cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=4)))
    axis = draw(st.one_of(st.integers(-5, 5), st.just(True), st.just(None), st.just((0,)), st.just(1.0)))
    layout = draw(st.sampled_from(["plain", "lazy", "reversed", "transposed", "sliced"]))
    spell = draw(st.sampled_from(["positional", "axis=", "dim="]))
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int64, np.bool_]))
    return shape, axis, layout, spell, dtype


def _make(shape, layout, dtype):
    base = (np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 7).astype(dtype)
    x = xp.asarray(base.copy(), device="cpu")
    if layout == "lazy":
        pass  # (asarray's result has no Storage yet)
    elif layout == "reversed" and shape and shape[0]:
        x, base = x[::-1], base[::-1]
    elif layout == "transposed" and len(shape) >= 2:
        x, base = xp.permute_dims(x, tuple(range(len(shape)))[::-1]), base.transpose()
    elif layout == "sliced" and shape:
        x, base = x[..., ::2], base[..., ::2]
    return x, base


def _call(f, x, axis, spell):
    if spell == "positional":
        return f(x, axis)
    if spell == "axis=":
        return f(x, axis=axis)
    return f(x, dim=axis)


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return None, (type(e), str(e))


@settings(max_examples=500, deadline=None)
@given(cases())
def test_squeeze_equals_numpy_and_the_python_definition(case):
    shape, axis, layout, spell, dtype = case
    got = []
    for f in (xp.squeeze, _definition()):
        x, base = _make(shape, layout, dtype)
        r, err = _outcome(lambda: _call(f, x, axis, spell))
        if err is None:
            assert type(r) is xp.Array
            got.append((None, r.shape, r._layout()[1:], r.dtype, np.asarray(r).tobytes()))
            # a view: the same Storage, a write through it is seen by x
            if r.size and dtype != np.bool_:
                assert r.storage() is x.storage()
                v = x.storage()._version
                r[(0,) * r.ndim] = 5
                assert x.storage()._version == v + 1
                assert np.asarray(x).reshape(-1).tolist().count(5) >= 1
        else:
            got.append((err,))
    assert got[0] == got[1]
    if got[0][0] is None and type(axis) is int and not isinstance(axis, bool):
        ref = np.squeeze(_make(shape, layout, dtype)[1], axis=axis)
        assert got[0][1] == ref.shape
        np.testing.assert_array_equal(np.frombuffer(got[0][4], dtype=dtype).reshape(ref.shape), ref)


@pytest.mark.skipif(not COMPILED, reason="the compiled views are not active")
def test_the_compiled_squeeze_is_in_front_of_the_binder():
    assert type(xp.squeeze).__name__ == "View"
    assert xp.squeeze._binder is not None  # (dim= still bound: found through the View)
    x = xp.asarray(np.ones((1, 3, 1)), device="cpu")
    assert xp.squeeze(x, axis=0).shape == (3, 1)
    assert xp.squeeze(x, dim=-1).shape == (1, 3)
    assert xp.squeeze(x).shape == (3,)
    with pytest.raises(ValueError, match="cannot squeeze axis 1"):
        xp.squeeze(x, axis=1)


def test_named_and_tracked_squeeze_keep_the_python_rules():
    x = xp.asarray(np.ones((1, 3)), device="cpu").rename("O", "C")
    r = xp.squeeze(x, axis=0)
    assert r.names == ("C",)
    w = xp.asarray(np.ones((1, 3)), device="cpu")
    w.requires_grad_(True)
    y = xp.squeeze(w, axis=0)
    (y * xp.asarray(np.arange(3.0), device="cpu")).sum().backward()
    np.testing.assert_array_equal(np.asarray(w.grad), [[0.0, 1.0, 2.0]])


def _method_definition(name):
    """The Python method behind the compiled view (``Array.flatten.__wrapped__``)."""
    f = getattr(xp.Array, name)
    return getattr(f, "__wrapped__", f)


@st.composite
def flatten_cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    dims = draw(st.lists(st.one_of(st.integers(-5, 5), st.just(True), st.just(1.0)), min_size=0, max_size=2))
    layout = draw(st.sampled_from(["plain", "lazy", "reversed", "transposed", "sliced"]))
    return shape, tuple(dims), layout


@settings(max_examples=500, deadline=None)
@given(flatten_cases())
def test_flatten_method_equals_torch_and_the_python_method(case):
    shape, dims, layout = case
    got = []
    for f in (xp.Array.flatten, _method_definition("flatten")):
        x, base = _make(shape, layout, np.float32)
        r, err = _outcome(lambda: f(x, *dims))
        if err is None:
            assert type(r) is xp.Array
            got.append((None, r.shape, r._layout()[1:], np.asarray(r).tobytes(),
                        r._st is not None and r._st is x._st))
        else:
            got.append((err,))
    assert got[0] == got[1]
    # (a 0-d x: strided's flatten ignores the dims, PyTorch range-checks them against 1-D)
    if torch is not None and got[0][0] is None and all(type(d) is int for d in dims) and shape:
        ref = torch.from_numpy(_make(shape, layout, np.float32)[1].copy()).flatten(*dims)
        assert got[0][1] == tuple(ref.shape)
        np.testing.assert_array_equal(np.frombuffer(got[0][3], np.float32).reshape(tuple(ref.shape)), ref.numpy())


@st.composite
def unflatten_cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=1, max_size=3)))
    dim = draw(st.one_of(st.integers(-4, 4), st.just(True)))
    sizes = draw(st.one_of(
        st.lists(st.integers(-1, 6), min_size=0, max_size=3).map(tuple),
        st.lists(st.integers(1, 3), min_size=1, max_size=2),  # (a list: the Python method)
        st.sampled_from([(2, 3), (3, 2), (1, 6, 1), (6,), (2, -1)])))
    layout = draw(st.sampled_from(["plain", "lazy", "reversed", "transposed", "sliced"]))
    return shape, dim, sizes, layout


@settings(max_examples=500, deadline=None)
@given(unflatten_cases())
def test_unflatten_method_equals_torch_and_the_python_method(case):
    shape, dim, sizes, layout = case
    got = []
    for f in (xp.Array.unflatten, _method_definition("unflatten")):
        x, base = _make(shape, layout, np.float32)
        r, err = _outcome(lambda: f(x, dim, sizes))
        if err is None:
            got.append((None, r.shape, r._layout()[1:], np.asarray(r).tobytes(),
                        r._st is not None and r._st is x._st))
        else:
            got.append((err,))
    assert got[0] == got[1]
    # (sizes (): strided's unflatten of a length-1 dim drops it, PyTorch's raises)
    if torch is not None and got[0][0] is None and type(dim) is int and len(sizes):
        ref = torch.from_numpy(_make(shape, layout, np.float32)[1].copy()).unflatten(dim, sizes)
        assert got[0][1] == tuple(ref.shape)
        np.testing.assert_array_equal(np.frombuffer(got[0][3], np.float32).reshape(tuple(ref.shape)), ref.numpy())


def test_flatten_of_a_named_array_keeps_its_rules():
    x = xp.asarray(np.ones((2, 3, 4)), device="cpu").rename("N", "H", "W")
    r = x.flatten(1, 2)
    assert r.shape == (2, 12)
    u = xp.asarray(np.ones((2, 12)), device="cpu").unflatten(1, (3, 4))
    assert u.shape == (2, 3, 4) and u.names == (None, None, None)


@pytest.mark.parametrize("spell", ["positional", "axis=", "dim="])
@pytest.mark.parametrize("axis", [0, -1, 1, 2, -3])
def test_named_squeeze_equals_the_python_definition(spell, axis):
    """A named array: the compiled view hands it to the definition (or the binder, for
    dim=); names, shape and errors as the Python path's, twice (the names' cache)."""
    got = []
    for f in (xp.squeeze, _definition(), xp.squeeze):
        x = xp.asarray(np.arange(3.0).reshape(1, 3, 1), device="cpu").rename("A", "B", "C")
        r, err = _outcome(lambda: _call(f, x, axis, spell))
        got.append((err,) if err else (None, r.shape, r.names, np.asarray(r.rename(None)).tolist()))
    assert got[0] == got[1] == got[2]
