"""Per-call costs of the ops scikit-learn's and SciPy's array-API paths call many times
(issue 38, ``benchmarks/realwork.py``), made cheaper without changing what they do:
``arange`` (integer bounds checked without ``numpy.iinfo``), ``squeeze(x, axis=k)`` (a view
without the dispatch wrapper), ``asarray`` of a C-contiguous NumPy array (its Storage made
when first asked). Each is checked against NumPy: values, dtypes, shapes, memory sharing,
errors, and the inputs left as they were."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp

from conftest import host

# --- arange ----------------------------------------------------------------------------

_I64 = (-(1 << 63), (1 << 63) - 1)


@settings(max_examples=300, deadline=None)
@given(start=st.integers(-50, 50), stop=st.one_of(st.none(), st.integers(-50, 50)),
       step=st.integers(-7, 7).filter(bool),
       dtype=st.sampled_from([None, "int8", "int32", "uint8", "int64", "float32", "float64"]))
def test_arange_of_ints_matches_numpy(start, stop, step, dtype):
    args = (start,) if stop is None else (start, stop, step)
    vals = list(range(*args))  # Python's own count: the reference
    want_dt = np.dtype(np.int64) if dtype is None else np.dtype(dtype)
    if want_dt.kind in "iu" and vals:
        info = np.iinfo(want_dt)
        if not (info.min <= vals[0] <= info.max and info.min <= vals[-1] <= info.max):
            with pytest.raises(OverflowError, match="out of bounds"):
                xp.arange(*args, dtype=getattr(xp, dtype))
            return
    want = np.arange(*args, dtype=want_dt)
    assert want.tolist() == np.array(vals, dtype=want_dt).tolist()
    got = xp.arange(*args, dtype=None if dtype is None else getattr(xp, dtype))
    g = host(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("args", [(0, 1 << 62, 1 << 61), (-(1 << 63), -(1 << 63) + 3),
                                  ((1 << 63) - 3, (1 << 63) - 1), (10**30, 10**30 + 2),
                                  (5, -(10**25), -(10**24)), (3, 3), (3, 1), (1, 3, -1)])
def test_arange_with_large_ints_counts_exactly_and_refuses_int64_overflow(args):
    start, stop = args[0], args[1]
    step = args[2] if len(args) > 2 else 1
    n = max(0, -((start - stop) // step))
    vals = [start + i * step for i in range(n)]
    if any(not _I64[0] <= v <= _I64[1] for v in vals):
        with pytest.raises(OverflowError, match="out of bounds for int64"):
            xp.arange(*args)
        return
    g = host(xp.arange(*args))
    assert g.dtype == np.int64 and g.tolist() == vals
    np.testing.assert_array_equal(g, np.arange(*args, dtype=np.int64))


def test_arange_errors_and_float_steps_as_before():
    with pytest.raises(ValueError, match="step must be nonzero"):
        xp.arange(0, 5, 0)
    with pytest.raises(TypeError, match="complex"):
        xp.arange(3, dtype=xp.complex128)
    with pytest.raises(TypeError, match="Python scalar"):
        xp.arange("3")
    g = host(xp.arange(0, 1, 0.25))
    assert g.tolist() == [0.0, 0.25, 0.5, 0.75]  # (in the default floating dtype)
    assert g.dtype == np.dtype(xp.get_default_dtype().name)
    g = host(xp.arange(True, 4))  # a bool bound: int64, as NumPy's arange(True, 4)
    assert g.dtype == np.int64 and g.tolist() == np.arange(True, 4).tolist()
    g = host(xp.arange(np.int64(2), 7, 2))  # a NumPy integer acts as the int it holds
    assert g.dtype == np.int64 and g.tolist() == [2, 4, 6]


# --- squeeze ---------------------------------------------------------------------------

_LAYOUTS = {  # (NumPy's side of each layout below)
    "contiguous": lambda a: a,
    "transposed": lambda a: np.moveaxis(a, 0, -1),
    "sliced": lambda a: a[::-2],
}


@settings(max_examples=150, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple), data=st.data(),
       layout=st.sampled_from(sorted(_LAYOUTS)), lazy=st.booleans())
def test_squeeze_one_axis_matches_numpy_and_is_a_view(shape, data, layout, lazy):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    src = _LAYOUTS[layout](a)
    if layout == "transposed":
        x = xp.moveaxis(xp.asarray(a.copy()), 0, -1)
    elif layout == "sliced":
        x = xp.asarray(a.copy())[::-2]
    elif lazy:
        x = xp.asarray(a.copy()) + 0.0  # a kernel's result: no Storage yet
    else:
        x = xp.asarray(a.copy())
    nd = src.ndim
    axis = data.draw(st.integers(-nd - 1, nd))
    before = host(x).copy()
    if not -nd <= axis < nd:
        with pytest.raises((ValueError, IndexError), match="axis|dim"):
            xp.squeeze(x, axis=axis)
        return
    if src.shape[axis] != 1:
        with pytest.raises(ValueError, match="squeeze"):
            xp.squeeze(x, axis=axis)
        return
    want = np.squeeze(src, axis=axis)
    for got in (xp.squeeze(x, axis=axis), xp.squeeze(x, axis), x.squeeze(axis),
                xp.squeeze(x, dim=axis)):
        g = host(got)
        assert g.shape == want.shape and g.dtype == want.dtype
        np.testing.assert_array_equal(g, want)
        assert got.storage() is x.storage()  # a view of the same memory
    assert host(x).tobytes() == before.tobytes()
    if want.size:
        v = xp.squeeze(x, axis=axis)
        v[(0,) * v.ndim] = -7.0  # writes through the view
        assert host(x)[(0,) * nd] == -7.0


def test_squeeze_of_named_and_grad_arrays_takes_the_general_path():
    x = xp.asarray(np.ones((3, 1)), requires_grad=True)
    y = xp.squeeze(x, axis=1)
    assert y.grad_fn is not None
    xp.sum(y * 2.0).backward()
    np.testing.assert_array_equal(host(x.grad), np.full((3, 1), 2.0))
    with pytest.raises(TypeError):
        xp.squeeze(np.ones((3, 1)), axis=1)  # not a strided array


# --- asarray of NumPy arrays -------------------------------------------------------------

@pytest.mark.parametrize("dt", ["float64", "float32", "int64", "bool", "complex128"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_asarray_of_a_numpy_array_shares_its_memory_both_ways(dt, order):
    n = np.asarray(np.arange(12).reshape(3, 4) % 3, dtype=dt, order=order)
    keep = n.copy()
    x = xp.asarray(n, device="cpu")
    assert x.dtype == getattr(xp, dt) and x.shape == (3, 4)
    np.testing.assert_array_equal(host(x), keep)
    v0 = x._version
    n[0, 0] = 1  # NumPy's write is seen
    assert host(x)[0, 0] == 1
    x[2, 3] = 0  # strided's write lands in NumPy's memory and is counted
    assert n[2, 3] == 0 and x._version > v0
    view = x[1]
    assert view.storage() is x.storage()  # one Storage for the array and its views
    assert np.shares_memory(np.asarray(x), n)
    view[0] = 1
    assert n[1, 0] == 1


@pytest.mark.parametrize("n_elems", [10, 300_000])  # either side of the elision threshold
def test_a_numpy_array_the_caller_holds_is_never_a_temporary(n_elems):
    # (temporary elision reuses a buffer nothing else references: the caller's NumPy
    # array must come through every expression unchanged)
    n = np.linspace(0.0, 1.0, n_elems)
    keep = n.copy()
    r = xp.asarray(n, device="cpu") + 1.0
    r2 = xp.multiply(xp.asarray(n, device="cpu"), 2.0)
    r3 = xp.exp(xp.asarray(n, device="cpu") * 1.0) - 1.0
    np.testing.assert_array_equal(n, keep)
    np.testing.assert_array_equal(host(r), keep + 1.0)
    np.testing.assert_array_equal(host(r2), keep * 2.0)
    np.testing.assert_allclose(host(r3), np.exp(keep) - 1.0, rtol=0, atol=0)
    # a temporary NumPy array nobody holds may lend its buffer; the values are the same
    r4 = xp.asarray(np.linspace(0.0, 1.0, n_elems), device="cpu") + 1.0
    np.testing.assert_array_equal(host(r4), keep + 1.0)


def test_asarray_of_non_native_and_strided_numpy_arrays_as_before():
    be = np.arange(6, dtype=">f8")
    x = xp.asarray(be, device="cpu")
    assert x.dtype == xp.float64 and host(x).tolist() == be.tolist()
    s = np.arange(20.0)[::3]
    y = xp.asarray(s, device="cpu")
    y[0] = -1.0  # a strided NumPy view is shared, as before
    assert s[0] == -1.0 and np.shares_memory(np.asarray(y), s)
    with pytest.raises(TypeError):
        xp.asarray(np.array(["a"]), device="cpu")
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(np.arange(3), dtype=xp.float64, copy=False, device="cpu")


# --- asarray of our own arrays, where with a Python scalar --------------------------------

def test_asarray_of_an_array_as_it_is_returns_it_and_anything_else_as_before():
    x = xp.asarray(np.arange(6.0).reshape(2, 3))
    for kw in ({}, {"dtype": x.dtype}, {"device": x.device}, {"copy": None}):
        assert xp.asarray(x, **kw) is x
    c = xp.asarray(x, copy=True)
    assert c is not x and c.storage() is not x.storage()
    np.testing.assert_array_equal(host(c), host(x))
    f = xp.asarray(x, dtype=xp.float32)
    assert f.dtype == xp.float32 and host(f).tolist() == host(x).astype(np.float32).tolist()
    g = xp.asarray(x, requires_grad=True)
    assert g.requires_grad  # (the general path, as before)
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(x, dtype=xp.int64, copy=False)


_FLOATS = ["float16", "float32", "float64"]


@settings(max_examples=120, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=0, max_size=3).map(tuple), data=st.data(),
       dt=st.sampled_from(_FLOATS), first=st.booleans(),
       scalar=st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                        st.integers(-(1 << 70), 1 << 70)))
def test_where_with_a_python_scalar_matches_numpy(shape, data, dt, first, scalar):
    rng = np.random.default_rng(len(shape))
    a = rng.standard_normal(shape).astype(dt)
    cshape = data.draw(st.sampled_from([shape, shape[1:], ()]))
    c = rng.random(cshape) < 0.5
    # (the host path; on a GPU a 0-d array made from -0.0 is +0: CuPy's, tests/cupy_standin)
    x, cond = xp.asarray(a.copy(), device="cpu"), xp.asarray(c.copy(), device="cpu")
    args = (cond, x, scalar) if first else (cond, scalar, x)
    # NumPy's answer with the scalar converted to the array's dtype (a Python scalar is
    # weak in the standard: the result has the array's dtype)
    try:
        with np.errstate(all="ignore"):
            v = np.asarray(scalar, dtype=dt)
    except OverflowError:
        with pytest.raises(OverflowError):
            xp.where(*args)
        return
    want = np.where(c, a, v) if first else np.where(c, v, a)
    got = xp.where(*args)
    g = host(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    assert g.tobytes() == want.tobytes()
    assert host(x).tobytes() == a.tobytes() and host(cond).tobytes() == c.tobytes()


def test_where_with_a_python_scalar_errors_and_other_dtypes_as_before():
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError, match="broadcast|shape"):
        xp.where(xp.asarray(np.ones(4, dtype=bool)), x, 0.0)
    with pytest.raises(TypeError, match="bool"):
        xp.where(xp.asarray(np.ones((2, 3))), x, 0.0)
    i = xp.where(xp.asarray(np.array([True, False])), xp.asarray(np.array([1, 2])), 7)
    assert host(i).tolist() == [1, 7] and i.dtype == xp.int64
    f = xp.where(xp.asarray(np.array([True, False])), xp.asarray(np.array([1, 2])), 0.5)
    assert f.dtype == xp.get_default_dtype() and host(f).tolist() == [1.0, 0.5]  # (as PyTorch)
    z = xp.where(xp.asarray(np.array([True, False])), xp.asarray(np.array([1.0, 2.0], np.float32)), 1j)
    assert z.dtype == xp.complex64 and host(z).tolist() == [1.0, 1j]


# --- reshape with a -1 -------------------------------------------------------------------

def test_reshape_with_minus_one_from_one_call_site_matches_numpy_every_time():
    # (the resolved shape is remembered per call site's tuple: the same tuple against
    # other shapes, and equal tuples of other types, must still be answered afresh)
    for n in (6, 12, 6, 30, 12):
        a = np.arange(float(n))
        x = xp.asarray(a.copy())
        for shape in ((-1, 1), (-1,), (2, -1), (-1, 3)):
            want = a.reshape(shape)
            got = xp.reshape(x, shape)
            assert got.shape == want.shape and host(got).tolist() == want.tolist()
            assert got.storage() is x.storage()
    x = xp.asarray(np.arange(6.0))
    xp.reshape(x, (1, -1))
    with pytest.raises(TypeError):
        xp.reshape(x, (True, -1))  # a bool is no size, though (True, -1) == (1, -1)
    with pytest.raises((TypeError, ValueError)):
        xp.reshape(x, (2.0, -1))
    with pytest.raises(ValueError):
        xp.reshape(x, (4, -1))  # 6 elements don't split into rows of 4


# --- reductions of a transposed matrix -----------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(rows=st.integers(1, 300), cols=st.integers(1, 40), data=st.data(),
       func=st.sampled_from(["sum", "mean", "max", "min", "prod"]),
       dt=st.sampled_from(["float32", "float64"]), keepdims=st.booleans(),
       fortran=st.booleans(), specials=st.booleans())
def test_reductions_of_a_transposed_matrix_are_numpys_bits(rows, cols, data, func, dt,
                                                           keepdims, fortran, specials):
    # (statistics._backend_reduce: an F-contiguous matrix reduced over one axis goes to
    # the C kernels as its C-contiguous transpose; the sizes cross statistics._SMALL)
    rng = np.random.default_rng(rows * 41 + cols)
    b = rng.uniform(-2, 2, (cols * 40, rows)).astype(dt)  # (cols*40) x rows, C order
    if specials:
        flat = b.reshape(-1)
        idx = rng.integers(0, flat.size, 6)
        flat[idx] = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, -0.0], dtype=dt)
    a = b.T  # F-contiguous
    x = xp.permute_dims(xp.asarray(b.copy(), device="cpu"), (1, 0))
    if fortran:  # the same layout from NumPy's own Fortran-order array
        a = np.asfortranarray(b.T)
        x = xp.asarray(a, device="cpu")
    axis = data.draw(st.sampled_from([0, 1, -1, -2]))
    with np.errstate(all="ignore"):
        want = np.asarray(getattr(np, func)(a, axis=axis, keepdims=keepdims))
    before = host(x).copy()
    g = host(getattr(xp, func)(x, axis=axis, keepdims=keepdims))
    assert g.dtype == want.dtype and g.shape == want.shape
    assert g.tobytes() == want.tobytes()
    assert host(x).tobytes() == before.tobytes()


@pytest.mark.parametrize("layout", ["transposed", "sliced", "negative", "broadcast"])
def test_reshape_to_its_own_shape_is_a_view_with_the_same_strides(layout):
    a = np.arange(24.0).reshape(4, 6)
    base = xp.asarray(a.copy())
    x, na = {"transposed": (xp.permute_dims(base, (1, 0)), a.T),
             "sliced": (base[:, ::2], a[:, ::2]),
             "negative": (xp.flip(base, axis=1), a[:, ::-1]),
             "broadcast": (xp.broadcast_to(base[:1], (3, 6)), np.broadcast_to(a[:1], (3, 6)))}[layout]
    shape = tuple(int(n) for n in na.shape)
    r = xp.reshape(x, shape)
    assert r.shape == na.shape and host(r).tolist() == na.tolist()
    assert r.storage() is base.storage() and r.stride() == x.stride()
    if layout != "broadcast":
        r[0, 0] = -5.0  # a view: the write lands in the base
        assert host(base).tolist() != a.tolist()
    flat = xp.reshape(x, (-1,))  # another shape: as before (a view or a copy, NumPy's values)
    assert host(flat).tolist() == np.reshape(host(x), (-1,)).tolist()


@pytest.mark.parametrize("value", [1.5, -0.0, float("nan"), float("inf"), 1e300, True, False])
@pytest.mark.parametrize("dtype", [None, "float16", "float32", "float64", "complex64", "bool",
                                   "int32", "uint8"])
def test_asarray_of_a_python_float_or_bool_matches_the_rule_of_each_dtype(value, dtype):
    # (a 0-d array on the host; the reference: NumPy's conversion into the dtype strided
    # picks, and the general path's errors for a float into an integer dtype)
    dt = None if dtype is None else getattr(xp, dtype)
    into_int = dtype is not None and np.dtype(dtype).kind in "biu" and type(value) is float
    if into_int and not np.isfinite(value):
        with pytest.raises(ValueError, match="convert"):
            xp.asarray(value, dtype=dt, device="cpu")
        return
    want_dt = (np.dtype(xp.get_default_dtype().name) if type(value) is float else np.dtype(bool)) \
        if dtype is None else np.dtype(dtype)
    try:  # (a float into an integer or bool dtype truncates first, as in PyTorch)
        with np.errstate(all="ignore"):
            want = np.asarray(int(value) if into_int else value, dtype=want_dt)
    except OverflowError:
        with pytest.raises(OverflowError):
            xp.asarray(value, dtype=dt, device="cpu")
        return
    got = xp.asarray(value, dtype=dt, device="cpu")
    g = host(got)
    assert got.shape == () and g.dtype == want_dt
    assert g.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"])
def test_full_with_an_integer_dtype_takes_exactly_its_range(dtype):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    for v in (lo, hi, 0):
        g = host(xp.full((3,), v, dtype=getattr(xp, dtype), device="cpu"))
        assert g.dtype == np.dtype(dtype) and g.tolist() == [v] * 3
    for v in (lo - 1, hi + 1):
        with pytest.raises(OverflowError, match=f"out of bounds for {dtype}"):
            xp.full((3,), v, dtype=getattr(xp, dtype), device="cpu")
    with pytest.raises(ValueError, match="NaN"):
        xp.full((3,), float("nan"), dtype=getattr(xp, dtype), device="cpu")
