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
