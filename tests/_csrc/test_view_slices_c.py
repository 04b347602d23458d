"""Slices in the compiled view path (strided/_csrc/_chot/views.c, ``slice_unpack``): bounds
and steps of every magnitude, read directly when they fit a Py_ssize_t and by
``PySlice_Unpack`` (which clips) when they do not, against NumPy and the Python definition;
and children that share their parent's shape or strides tuple (``same_ints``)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._core import array as _array

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

A = xp.Array
GETITEM = getattr(A.__getitem__, "__wrapped__", A.__getitem__)
BIG = [0, 1, -1, 3, -4, 2**31, -2**31, 2**62, 2**63 - 1, -2**63, -2**63 + 1, 2**63, 2**64, -2**70, 2**100]
bounds = st.one_of(st.none(), st.sampled_from(BIG), st.integers(-12, 12))
steps = st.one_of(st.none(), st.sampled_from([b for b in BIG if b]), st.integers(-4, 4))


@settings(max_examples=300, deadline=None)
@given(start=bounds, stop=bounds, step=steps, n=st.integers(0, 9), lazy=st.booleans())
def test_slices_of_any_magnitude_equal_numpy_and_the_python_path(start, stop, step, n, lazy):
    base = np.arange(n, dtype=np.float64)
    x = xp.asarray(base.copy(), device="cpu")
    if lazy:
        x = x + 0.0
    key = slice(start, stop, step)
    try:
        ref = base[key]
    except ValueError:  # a zero step
        with pytest.raises(ValueError):
            x[key]
        return
    got, want = x[key], GETITEM(x, key)
    np.testing.assert_array_equal(np.asarray(got), ref)
    np.testing.assert_array_equal(np.asarray(want), ref)
    assert (got.storage_offset(), tuple(got.shape), got.stride()) == \
        (want.storage_offset(), tuple(want.shape), want.stride())
    assert got.storage() is x.storage()


@pytest.mark.skipif(_array._CVIEWS is None, reason="the compiled view paths are not active")
def test_children_share_equal_layout_tuples_and_stay_correct():
    x = xp.asarray(np.arange(10.0), device="cpu")
    v = x[2:8]
    assert v._str is x._str and v._shape == (6,)
    m = xp.asarray(np.arange(16.0).reshape(4, 4), device="cpu")
    t = m.T
    assert t._shape is m._shape and t._str == (1, 4)
    np.testing.assert_array_equal(np.asarray(t), np.arange(16.0).reshape(4, 4).T)
    t[0, 1] = -1.0  # a write through the child lands where the parent's layout says
    assert float(m[1, 0]) == -1.0


SETITEM = getattr(A.__setitem__, "__wrapped__", A.__setitem__)
VALUES = [0.5, -0.0, float("nan"), float("inf"), -float("inf"), 1e300, -3.4e38, 3.4028235e38,
          3.4028236e38, 65504.0, 65520.0, 1e-45, 5e-324, 2**53 + 1, -(2**63), 2**64, 10**400, True, False, 7]


@settings(max_examples=300, deadline=None)
@given(start=bounds, stop=st.one_of(st.none(), st.integers(-12, 12)), step=steps,
       value=st.one_of(st.sampled_from(VALUES), st.floats(allow_nan=True), st.integers(-2**70, 2**70)),
       dtype=st.sampled_from([np.float16, np.float32, np.float64]),
       layout=st.sampled_from(["plain", "offset", "reversed", "lazy", "every-other"]))
def test_slice_writes_equal_numpy_and_the_python_path(start, stop, step, value, dtype, layout):
    """x[slice] = a Python scalar (the compiled write fills a 1-D float32/float64 slice
    itself): the same bits as NumPy's write and the Python path's, one version bump."""
    base = np.arange(12, dtype=dtype)
    views = {"plain": lambda a: a, "offset": lambda a: a[3:], "reversed": lambda a: a[::-1],
             "lazy": lambda a: a, "every-other": lambda a: a[::2]}
    key = slice(start, stop, step)
    results = []
    for how in ("numpy", "compiled", "python"):
        if how == "numpy":
            whole = base.copy()
            tgt = views[layout](whole)
        else:
            whole = xp.asarray(base.copy(), device="cpu")
            if layout == "lazy":
                whole = whole + xp.zeros((), dtype=whole.dtype, device="cpu")
            tgt = views[layout](whole)
            if how == "compiled":
                tgt._get_native()  # (a cached native: the compiled write's case)
        before = None if how == "numpy" else whole._version
        try:
            with np.errstate(all="ignore"):
                if how == "python":
                    SETITEM(tgt, key, value)
                else:
                    tgt[key] = value
            err = None
        except Exception as e:  # noqa: BLE001 - the type is compared
            err = type(e)
        bumps = None if how == "numpy" else whole._version - before
        results.append((np.asarray(whole).view(np.uint8).tobytes(), err, bumps))
    (nb, nerr, _), (cb, cerr, cbump), (pb, perr, pbump) = results
    assert cerr is perr and cb == pb and cbump == pbump
    if nerr is None and cerr is None:
        assert cb == nb and cbump == 1


def _native_fields(a):
    f = a.__array_interface__
    return (f["data"][0], f["shape"], a.strides, a.dtype, a.flags.c_contiguous, a.flags.f_contiguous,
            a.flags.writeable, a.flags.aligned, a.flags.owndata, id(a.base))


@pytest.mark.skipif(_array._CVIEWS is None, reason="the compiled view paths are not active")
@settings(max_examples=300, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=3), data=st.data(),
       writeable=st.booleans(), owner=st.booleans())
def test_views_build_their_native_on_use_as_numpy_indexes(shape, data, writeable, owner):
    """A compiled slice or .T makes no native view (views.c); the one native_build makes
    when a kernel needs it is, field for field, NumPy's own indexing (or .T) of the
    parent's native: data pointer, shape, strides, dtype, flags (writeability: the
    storage's flat array's); and its base too is the one array._native gives it (NumPy
    collapses a base chain to the array that owns the memory); and it is cached."""
    base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = xp.asarray(base if owner else base[...], device="cpu")
    flat = x.storage()._data
    if not writeable:
        flat.flags.writeable = False
    p = flat.reshape(shape)  # NumPy's own view of the storage (its writeability)
    parts = []
    for n in shape[:data.draw(st.integers(0, len(shape)))]:
        if data.draw(st.booleans()) and n:
            parts.append(data.draw(st.integers(-n, n - 1)))
        else:
            parts.append(slice(data.draw(bounds), data.draw(st.one_of(st.none(), st.integers(-6, 6))),
                               data.draw(st.one_of(st.none(), st.sampled_from([1, 2, -1, -3])))))
    key = tuple(parts)
    views = [(x[key], p[key + (Ellipsis,)] if len(parts) == len(shape)
              and all(type(k) is int for k in parts) else p[key])]
    if len(shape) == 2:
        views.append((x.T, p.T))
    for v, want in views:
        assert v._np is None  # (none made with the view)
        got = v._get_native()
        assert v._np is got  # (cached)
        assert got.shape == want.shape
        if got.size:  # (an empty view's offset and strides are _native's own choice)
            assert _native_fields(got)[:-1] == _native_fields(want)[:-1]
            py = _array._native(v.storage(), v._off, v._shape, v._str)  # the Python builder
            assert _native_fields(got) == _native_fields(py)
