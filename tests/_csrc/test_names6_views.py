"""The compiled views of a named array (views.c, names6): ``squeeze(x, axis)`` with one int
axis (its names from the outcome views.py's _squeeze_seen caches in _core.VIEW_NAMES), the
method ``x.flatten(start_dim, end_dim)`` with int dims (view_flatten_named_ints: strided.named's
_flatten rule), and flatten/unflatten by names (the native view now built on use), each against
the Python path (the definitions behind the compiled objects: ``__wrapped__``, named's
``_plain_flatten`` / ``_ops_flatten``), against NumPy for the layout and values, and against
PyTorch's named-tensor rules written out (PyTorch 2.13 has no named tensors any more:
squeeze drops the dim's name, flatten(dims, out_name) names the merged dim out_name,
unflatten(dim, ((name, size), ...)) names the new dims). Each call is made twice: the
first fills the caches, the second is the one the compiled path answers."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
import strided.named as named
from strided._core import array as _array

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

COMPILED = _array._CVIEWS is not None
NAMES = ("N", "C", "H", "W", None)


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return None, (type(e), str(e))


def _make(shape, names, layout):
    base = (np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 11).astype(np.float32)
    x = xp.asarray(base.copy(), device="cpu")
    if layout == "sliced" and shape:
        x, base = x[..., ::2], base[..., ::2]
    elif layout == "transposed" and len(shape) >= 2:
        perm = tuple(range(len(shape)))[::-1]
        x, base = xp.permute_dims(x, perm), base.transpose(perm)
    return x.rename(*names) if names else x, base


@st.composite
def named_shapes(draw, min_dims=1):
    nd = draw(st.integers(min_dims, 4))
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=nd, max_size=nd)))
    names = []
    for _ in range(nd):  # (distinct strs, None anywhere; at least one str: a named array)
        n = draw(st.sampled_from([v for v in NAMES if v is None or v not in names]))
        names.append(n)
    if all(n is None for n in names):
        names[0] = "Z"
    layout = draw(st.sampled_from(["plain", "sliced", "transposed"]))
    return shape, tuple(names), layout


def _state(r, x):
    """What a result is made of: shape, strides, offset, shared Storage, names, values."""
    return (tuple(r.shape), r._layout()[3], r._layout()[1], r.storage() is x.storage(), r.names,
            np.asarray(r).tobytes())


def _python_squeeze():
    f = xp.squeeze
    while hasattr(f, "__wrapped__"):
        f = f.__wrapped__
    return f


@settings(max_examples=300, deadline=None)
@given(named_shapes(), st.integers(-5, 5), st.booleans())
def test_named_squeeze_equals_the_python_path_numpy_and_pytorchs_rule(case, axis, keyword):
    shape, names, layout = case
    got = []
    for f in (xp.squeeze, xp.squeeze, _python_squeeze()):
        x, base = _make(shape, names, layout)
        r, err = _outcome(lambda: f(x, axis=axis) if keyword else f(x, axis))
        got.append(_state(r, x) if err is None else err)
    assert got[0] == got[1] == got[2]
    if isinstance(got[0], tuple) and len(got[0]) == 6:
        ref = np.squeeze(base, axis=axis)
        assert got[0][0] == ref.shape
        np.testing.assert_array_equal(np.frombuffer(got[0][5], np.float32).reshape(ref.shape), ref)
        a = axis % len(shape)
        want = names[:a] + names[a + 1:]  # (PyTorch's rule: the squeezed dim's name dropped)
        assert got[0][4] == (want if any(n is not None for n in want) else (None,) * len(want))
    else:
        with pytest.raises(Exception):
            np.squeeze(base, axis=axis)


def test_named_squeeze_of_a_tracked_array_keeps_autograd():
    w = xp.asarray(np.ones((1, 3)), device="cpu").rename("O", "C")
    w.requires_grad_(True)
    for _ in range(2):
        y = xp.squeeze(w, 0)
        assert y.names == ("C",) and y.grad_fn is not None


@settings(max_examples=300, deadline=None)
@given(named_shapes(), st.lists(st.integers(-5, 5), max_size=2))
def test_named_flatten_ints_equals_the_python_path_and_numpy(case, dims):
    shape, names, layout = case
    got = []
    for f in (xp.Array.flatten, xp.Array.flatten, named._plain_flatten):
        x, base = _make(shape, names, layout)
        r, err = _outcome(lambda: f(x, *dims))
        got.append(_state(r, x)[:2] + _state(r, x)[3:] if err is None else err)
        # (the offset and storage of a copy (non-contiguous x) may differ: compared above
        # only through shape, strides, names and values)
    assert got[0] == got[1] == got[2]
    if isinstance(got[0], tuple) and len(got[0]) == 5:
        nd = len(shape)
        s, e = [(d + nd if d < 0 else d) for d in (list(dims) + [0, -1][len(dims):])]
        ref = base.reshape(base.shape[:s] + (int(np.prod(base.shape[s:e + 1])),) + base.shape[e + 1:])
        assert got[0][0] == ref.shape
        np.testing.assert_array_equal(np.frombuffer(got[0][4], np.float32).reshape(ref.shape), ref)
        # strided.named's rule (PyTorch refuses int dims on a named tensor): the merged
        # dims' name when one dim is flattened, else None
        want = names[:s] + ((names[s] if s == e else None),) + names[e + 1:]
        assert got[0][3] == (want if any(n is not None for n in want) else (None,) * len(want))


@settings(max_examples=200, deadline=None)
@given(named_shapes(min_dims=2), st.data())
def test_flatten_and_unflatten_by_names_equal_the_python_path_and_pytorchs_rules(case, data):
    shape, names, layout = case
    names = tuple(n if n is not None else f"D{i}" for i, n in enumerate(names))  # (PyTorch's rule: all named)
    s = data.draw(st.integers(0, len(shape) - 1))
    e = data.draw(st.integers(s, len(shape) - 1))
    dims = list(names[s:e + 1])
    got = []
    for f in (named.flatten, named.flatten, named._ops_flatten):
        x, base = _make(shape, names, layout)
        r, err = _outcome(lambda: f(x, dims, "M"))
        got.append((tuple(r.shape), r._layout()[3], r.names, np.asarray(r).tobytes()) if err is None else err)
    assert got[0] == got[1] == got[2]
    ref = base.reshape(base.shape[:s] + (int(np.prod(base.shape[s:e + 1])),) + base.shape[e + 1:])
    assert got[0][0] == ref.shape and got[0][2] == names[:s] + ("M",) + names[e + 1:]
    np.testing.assert_array_equal(np.frombuffer(got[0][3], np.float32).reshape(ref.shape), ref)
    # unflatten back by names, through the method (compiled) and named.unflatten's Python body
    sizes = tuple((n, shape[s + i]) for i, n in enumerate(names[s:e + 1]))
    back = []
    for f in (xp.Array.unflatten, xp.Array.unflatten, named._unflatten_method):
        x2, _ = _make(shape, names, "plain")
        y2 = named.flatten(x2, dims, "M")
        z, err = _outcome(lambda: f(y2, "M", sizes))
        back.append((tuple(z.shape), z._layout()[3], z.names, np.asarray(z).tobytes()) if err is None else err)
    assert back[0] == back[1] == back[2]
    if not isinstance(back[0], tuple) or len(back[0]) != 4:
        return
    assert back[0][0] == shape and back[0][2] == names
    np.testing.assert_array_equal(np.frombuffer(back[0][3], np.float32).reshape(shape),
                                  _make(shape, (), "plain")[1])


@pytest.mark.skipif(not COMPILED, reason="the compiled views are not active")
def test_the_compiled_named_views_answer():
    """The named cases are answered by the compiled objects (no Python frame of the
    definitions on the second call): the Python squeeze and flatten are not entered."""
    from _frames import python_calls
    x = xp.asarray(np.ones((2, 1, 3, 4), np.float32), device="cpu").rename("N", "O", "H", "W")
    xp.squeeze(x, 1), x.flatten(2, 3)  # (fills the caches)
    (a, b), seen = python_calls(lambda: (xp.squeeze(x, 1), x.flatten(2, 3)))
    assert a.names == ("N", "H", "W") and b.names == ("N", "O", None)
    assert not {"squeeze", "flatten", "_flatten_method"} & set(seen), seen
