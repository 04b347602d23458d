"""The compiled view paths (strided/_csrc/_chot/views.c) against NumPy's views and against
the Python definitions they stand in front of (``__wrapped__``; for ``T``/``mT`` the
property's getter).

Parents come in the layouts the C code has to read: fresh arrays, lazy kernel results
(``x + 0``, no Storage yet), transposed and reversed views, views with an offset.
Skipped where the extension is not built or STRIDED_NO_CEXT=1 (the rest of the suite
covers the same behaviour through whichever path is active).
"""

import inspect
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._core import array as _array

pytestmark = pytest.mark.skipif(_array._CVIEWS is None, reason="the compiled view paths are not active")

A = xp.Array
GETITEM = getattr(A.__getitem__, "__wrapped__", A.__getitem__)  # (no C path: skipped below)
PARENTS = ("plain", "lazy", "transposed", "reversed", "offset")


@st.composite
def parents(draw, min_dims=0, max_dims=4):
    """(strided array, NumPy array with the same elements and the same kind of layout)."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=min_dims, max_size=max_dims)))
    kind = draw(st.sampled_from(PARENTS))
    dtype = draw(st.sampled_from([np.float64, np.int32, np.float32]))
    if kind == "offset":  # a view that starts inside a bigger storage
        big = np.arange(math.prod(shape) + 3, dtype=dtype)
        x, r = xp.asarray(big.copy())[3:], big.copy()[3:]
        return xp.reshape(x, shape), r.reshape(shape)
    base = np.arange(math.prod(shape), dtype=dtype).reshape(shape)
    x, r = xp.asarray(base.copy()), base.copy()
    if kind == "lazy":
        x, r = x + 0, r + 0
        assert x._st is None
    elif kind == "transposed":
        axes = tuple(reversed(range(len(shape))))
        x, r = xp.permute_dims(x, axes), r.transpose(axes)
    elif kind == "reversed" and shape:
        x, r = x[::-1], r[::-1]
    return x, r


def H(a):
    """Host values of an array, a native view or a NumPy array (any default device)."""
    if type(a) is A:
        return np.asarray(a.cpu())
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _bound(n):
    return st.one_of(st.none(), st.integers(-n - 3, n + 3))


@st.composite
def basic_keys(draw, shape):
    """A slice, an int or a tuple of them (one per leading axis), in and out of range,
    with zero steps: what the C path answers or declines."""
    nd = len(shape)
    parts = []
    for d in range(draw(st.integers(0, nd + 1))):
        n = shape[d] if d < nd else 1
        if draw(st.booleans()):
            parts.append(draw(st.integers(-n - 2, n + 1)))
        else:
            step = draw(st.one_of(st.none(), st.integers(-3, 3)))
            parts.append(slice(draw(_bound(n)), draw(_bound(n)), step))
    form = draw(st.sampled_from(["tuple", "single"]))
    if form == "single" and len(parts) == 1:
        return parts[0]
    return tuple(parts)


def _fields(v):
    return v.storage(), v.storage_offset(), tuple(v.shape), v.stride(), v.dtype, v.device


def _same_view(got, want, parent, cached):
    """got (C) and want (Python) are the same view of parent's storage; cached: whether
    each had its native view cached when it was made."""
    assert type(got) is A and got._ext is None
    if want.storage() is not parent.storage():  # (a copy, as reshape makes of a strided array)
        assert got.storage() is not parent.storage()
        np.testing.assert_array_equal(H(got), H(want))
        return
    assert _fields(got) == _fields(want)
    assert got.storage() is parent.storage()
    assert cached[0] == cached[1]
    if cached[0]:  # the cached native view is exactly the memory described
        assert got._np.shape == tuple(got.shape)
        np.testing.assert_array_equal(H(got._np), H(want))


def _outcome(f, *args, **kw):
    try:
        return f(*args, **kw), None
    except Exception as e:  # noqa: BLE001 - the type is compared
        return None, type(e)


# Where strided raises, NumPy must raise an error of the same family: TypeError for a wrong
# type, ValueError or IndexError for a wrong value (NumPy's AxisError is both). The only
# other pairs accepted are listed here, each with NumPy's message and the reason.
_FAMILIES = (TypeError, (ValueError, IndexError))
_DEPARTURES = [
    # (strided's error, NumPy's error, NumPy's message, why)
    (ValueError, TypeError, "an integer is required",
     "a bool in a shape: strided takes it for 0 or 1 and then finds the size wrong "
     "(NumPy and PyTorch refuse the bool with TypeError)"),
]


def _same_family(err, ref_err, ref_msg) -> bool:
    if issubclass(err, ref_err) or issubclass(ref_err, err):
        return True
    if any(issubclass(err, f) and issubclass(ref_err, f) for f in _FAMILIES):
        return True
    return any(issubclass(err, a) and issubclass(ref_err, b) and m in ref_msg
               for a, b, m, _ in _DEPARTURES)


def _check(c_call, py_call, numpy_call, x):
    got, gerr = _outcome(c_call)
    want, werr = _outcome(py_call)
    assert gerr is werr
    cached = (got is not None and got._np is not None, want is not None and want._np is not None)
    ref, rerr = _outcome(numpy_call)
    if werr is not None:
        # a one-sided error check asks NumPy too: strided may not refuse what NumPy does
        assert rerr is not None, f"strided raised {werr.__name__}; NumPy gave shape {ref.shape}"
        try:
            numpy_call()
        except Exception as e:  # noqa: BLE001 - the type is compared
            msg = str(e)
        assert _same_family(werr, rerr, msg), (
            f"strided raised {werr.__name__}, NumPy {rerr.__name__} ({msg})")
        return None
    if rerr is None:  # (NumPy refuses some keys the standard takes, e.g. an int past a 0-d)
        assert tuple(got.shape) == ref.shape
        np.testing.assert_array_equal(H(got), ref)
    _same_view(got, want, x, cached)
    return got


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_getitem_equals_numpy_and_the_python_path(data):
    x, r = data.draw(parents())
    key = data.draw(basic_keys(tuple(x.shape)))
    _check(lambda: x[key], lambda: GETITEM(x, key), lambda: r[key], x)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), native=st.booleans())
def test_writes_through_a_c_made_view_reach_the_parent(data, native):
    x, r = data.draw(parents(min_dims=1))
    if native:
        x._get_native() if x._st is not None else None  # a cached parent native view
    key = data.draw(basic_keys(tuple(x.shape)))
    v, err = _outcome(lambda: x[key])
    if err is not None or v.size == 0:
        return
    rv = r[(key if type(key) is tuple else (key,)) + (Ellipsis,)]  # (a 0-d view, not a scalar)
    v[...] = 7  # through the view's own (C-made) layout
    rv[...] = 7
    np.testing.assert_array_equal(H(x), r)
    # and a write into the parent shows in the view (its cached native view included)
    x[...] = -1
    np.testing.assert_array_equal(H(v), np.full(rv.shape, -1, r.dtype))


@pytest.mark.parametrize("key", [Ellipsis, None, True, False, 1.0, np.int64(1), [0, 1],
                                 (Ellipsis, 0), (0, None), (slice(0, 2), Ellipsis),
                                 slice(0, 2, 0), slice(0.0, 2), slice(np.int64(0), 2), (True,),
                                 (0, 0, 0), 5, -6, (slice(None), 9), slice(True, None)])
@pytest.mark.parametrize("kind", PARENTS)
def test_other_keys_take_the_python_path(key, kind):
    base = np.arange(20.0).reshape(5, 4)
    x = xp.asarray(base.copy())
    if kind == "lazy":
        x = x + 0
    elif kind == "transposed":
        x, base = xp.asarray(base.T.copy()).T, base  # same elements, transposed layout
    elif kind == "reversed":
        x, base = xp.asarray(base[::-1].copy())[::-1], base
    got, gerr = _outcome(lambda: x[key])
    want, werr = _outcome(lambda: GETITEM(x, key))
    assert gerr is werr
    if gerr is None:
        np.testing.assert_array_equal(H(got), H(want))
        np.testing.assert_array_equal(H(got), base[key] if key is not True else base[None])


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_reshape_equals_numpy_and_the_python_path(data):
    x, r = data.draw(parents())
    n = math.prod(tuple(x.shape))
    # a factorization of n (or not: a size mismatch, -1, a bool, a float)
    dims = []
    left = n
    for _ in range(data.draw(st.integers(0, 3))):
        f = data.draw(st.sampled_from([d for d in range(1, left + 1) if left % d == 0] or [0]))
        dims.append(f)
        left = left // f if f else 0
    if left != 1 or not dims:
        dims.append(left)
    shape = tuple(dims)
    if data.draw(st.integers(0, 9)) == 0:
        shape = data.draw(st.sampled_from([shape + (2,), (-1,), (True,) * len(shape), (float(n),)]))
    _check(lambda: xp.reshape(x, shape), lambda: xp.reshape.__wrapped__(x, shape),
           lambda: r.reshape(shape), x)
    _check(lambda: xp.reshape(x, shape, copy=None),
           lambda: xp.reshape.__wrapped__(x, shape, copy=None), lambda: r.reshape(shape), x)
    _check(lambda: x.reshape(*shape), lambda: A.reshape.__wrapped__(x, *shape),
           lambda: r.reshape(shape), x)
    _check(lambda: x.reshape(shape), lambda: A.reshape.__wrapped__(x, shape),
           lambda: r.reshape(shape), x)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_permute_equals_numpy_and_the_python_path(data):
    x, r = data.draw(parents())
    nd = x.ndim
    axes = tuple(data.draw(st.permutations(range(nd))))
    if data.draw(st.booleans()):  # negative axes, out-of-range axes, repeats
        axes = tuple(data.draw(st.integers(-nd - 1, nd)) if data.draw(st.booleans()) else a
                     for a in axes)
    _check(lambda: xp.permute_dims(x, axes), lambda: xp.permute_dims.__wrapped__(x, axes),
           lambda: r.transpose(axes), x)
    _check(lambda: x.permute(*axes), lambda: A.permute.__wrapped__(x, *axes),
           lambda: r.transpose(axes), x)
    _check(lambda: x.permute(axes), lambda: A.permute.__wrapped__(x, axes),
           lambda: r.transpose(axes), x)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_expand_dims_equals_numpy_and_the_python_path(data):
    x, r = data.draw(parents())
    nd = x.ndim
    axis = data.draw(st.integers(-nd - 2, nd + 1))
    ex, un = xp.expand_dims, xp.unsqueeze
    _check(lambda: ex(x, axis=axis), lambda: ex.__wrapped__(x, axis=axis),
           lambda: np.expand_dims(r, axis), x)
    _check(lambda: ex(x, axis), lambda: ex.__wrapped__(x, axis), lambda: np.expand_dims(r, axis), x)
    _check(lambda: un(x, axis), lambda: un.__wrapped__(x, axis), lambda: np.expand_dims(r, axis), x)
    _check(lambda: un(x, dim=axis), lambda: un.__wrapped__(x, dim=axis),
           lambda: np.expand_dims(r, axis), x)
    _check(lambda: x.unsqueeze(axis), lambda: un.__wrapped__(x, axis), lambda: np.expand_dims(r, axis), x)
    _check(lambda: ex(x), lambda: ex.__wrapped__(x), lambda: np.expand_dims(r, 0), x)


def _standard_2d_only():
    # Note: the standard's ``T`` is for 2-D arrays only ("should raise an error" otherwise);
    # NumPy reverses the axes of any array.
    raise ValueError("the standard's T of an array that is not 2-D")


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_transposes_equal_numpy_and_the_properties(data):
    x, r = data.draw(parents())
    t, mt = inspect.getattr_static(A, "T"), inspect.getattr_static(A, "mT")
    _check(lambda: x.T, lambda: t.fget(x), lambda: r.T if r.ndim == 2 else _standard_2d_only(), x)
    _check(lambda: x.mT, lambda: mt.fget(x), lambda: np.swapaxes(r, -1, -2), x)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_contiguous_is_self_exactly_when_the_python_path_says_so(data):
    x, r = data.draw(parents())
    key = data.draw(basic_keys(tuple(x.shape)))
    v, err = _outcome(lambda: x[key])
    for y in (x, v) if err is None else (x,):
        got = y.contiguous()
        want = A.contiguous.__wrapped__(y)
        assert (got is y) == (want is y)
        np.testing.assert_array_equal(H(got), H(y))
        if y.size and y.device.type == "cpu":  # (empty: _layout.is_contiguous decides)
            assert (got is y) == bool(H(y).flags.c_contiguous)


def test_views_of_arrays_with_extensions_take_the_python_path():
    x = xp.ones(3, 4, requires_grad=True)
    for v in (x[1:], x[1, ::2], x[0], x.T, x.mT, xp.reshape(x, (12,)), x.reshape(2, 6),
              xp.permute_dims(x, (1, 0)), x.permute(1, 0), xp.expand_dims(x, axis=0), x.unsqueeze(1)):
        assert v.grad_fn is not None and v.storage() is x.storage()
    (x[1:] * 2).sum().backward()
    np.testing.assert_array_equal(H(x.grad), np.array([[0.0] * 4] + [[2.0] * 4] * 2))


def test_a_lazy_parent_is_materialized_once_and_shared():
    x = xp.asarray(np.arange(12.0)) * 2
    assert x._st is None
    v = x[2:5]
    assert x._st is not None and v.storage() is x.storage()
    w = xp.reshape(x, (3, 4))
    assert w.storage() is x.storage()
    w[0, 0] = 100
    assert float(x[0]) == 100.0 and x.contiguous() is x


def test_the_objects_stand_in_for_their_functions():
    for f, name in ((xp.reshape, "reshape"), (xp.permute_dims, "permute_dims"),
                    (xp.expand_dims, "expand_dims"), (xp.unsqueeze, "unsqueeze")):
        assert type(f).__name__ == "View" and f.__name__ == name
        assert f.__doc__ == f.__wrapped__.__doc__
        assert inspect.signature(f) == inspect.signature(f.__wrapped__)
        assert pickle.loads(pickle.dumps(f)) is f
    for name in ("T", "mT"):
        p = inspect.getattr_static(A, name)
        assert isinstance(p, property) and p.__doc__ == p.fget.__doc__
        with pytest.raises(AttributeError):
            setattr(xp.ones(2, 2), name, None)
    assert A.__getitem__.__name__ == "__getitem__" and A.contiguous.__doc__


def test_bad_view_objects_are_refused():
    c = _array._CVIEWS
    with pytest.raises(TypeError):
        c.View(len, 99)
    with pytest.raises(TypeError):
        c.View(None, c.RESHAPE)
    with pytest.raises(TypeError):
        c.ViewProp(len, c.T)
    with pytest.raises(ValueError):
        c.ViewProp(property(len), c.GETITEM)
    # a View called with anything but an array is its Python function
    assert c.View(lambda *a: a, c.GETITEM)(1, 2) == (1, 2)
