"""``x[index_array]``: the compiled take (strided/_csrc/_chot/views.c, ``take_rows``) against
NumPy's advanced indexing and against the Python definition it stands in front of
(``Array.__getitem__.__wrapped__`` -> ``indexing.advanced_getitem``).

Sources come in the layouts the C code reads or declines: fresh, lazy kernel results
(``x + 0``), reversed and strided 1-D views (a negative or larger stride along the first
axis: gathered in C), transposed and offset views; keys of every integer width, signed and
unsigned, and boolean masks (NumPy's path), 0-d to 2-d, empty, in and out of bounds.
Checked: values bit for bit (NaN payloads, signed zeros), dtype, shape, errors, that the
result owns fresh memory, and that neither the source nor the key nor an earlier result
changes. The compiled-vs-Python tests are skipped where the extension is not active
(STRIDED_NO_CEXT=1); the NumPy comparisons run on either path.
"""

import gc
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._core import array as _array

A = xp.Array
GETITEM = getattr(A.__getitem__, "__wrapped__", A.__getitem__)
compiled = pytest.mark.skipif(_array._CVIEWS is None, reason="the compiled view paths are not active")

DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int64, np.uint16, np.complex128, np.bool_]
KEY_DTYPES = [np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8]
LAYOUTS = ("plain", "lazy", "reversed", "every-other", "transposed", "offset")


def _values(shape, dtype, rng):
    """Elements with NaNs of several payloads, signed zeros and infinities among them."""
    n = math.prod(shape)
    if np.dtype(dtype).kind in "fc":
        v = rng.standard_normal(n).astype(dtype)
        if n:
            special = np.array([np.nan, -0.0, np.inf, -np.inf], dtype)
            v[rng.integers(0, n, min(n, 3))] = special[rng.integers(0, 4, min(n, 3))]
        if np.dtype(dtype) == np.float32 and n > 1:  # a NaN with a payload (quiet bit set)
            v[-1:] = np.array([0x7FC12345], np.uint32).view(np.float32)
        return v.reshape(shape)
    if np.dtype(dtype).kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    return rng.integers(-100 if np.dtype(dtype).kind == "i" else 0, 100, n).astype(dtype).reshape(shape)


@st.composite
def sources(draw, device="cpu"):
    """(strided array, NumPy array with the same elements) in one of LAYOUTS."""
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=nd, max_size=nd)))
    dtype = draw(st.sampled_from(DTYPES))
    layout = draw(st.sampled_from(LAYOUTS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if layout == "every-other":
        big = _values((2 * shape[0],) + shape[1:], dtype, rng)
        return xp.asarray(big.copy(), device=device)[::2], big[::2].copy()
    if layout == "offset":
        big = _values((shape[0] + 2,) + shape[1:], dtype, rng)
        return xp.asarray(big.copy(), device=device)[2:], big[2:].copy()
    base = _values(shape, dtype, rng)
    x = xp.asarray(base.copy(), device=device)
    if layout == "lazy":  # (a kernel result, no Storage yet; NumPy computes the same)
        if dtype == np.bool_:
            x, base = x | False, base | False
        else:
            x, base = x + xp.zeros((), dtype=x.dtype, device=device), base + np.zeros((), dtype)
    elif layout == "reversed":
        x, base = x[::-1], base[::-1].copy()
    elif layout == "transposed":
        axes = tuple(reversed(range(nd)))
        x, base = xp.permute_dims(xp.asarray(base.transpose(axes).copy(), device=device), axes), base
    return x, base


@st.composite
def keys(draw, shape, device="cpu"):
    """(strided index array, the same as NumPy's): integers of any width, mostly in
    [-n, n), sometimes out of bounds; or a boolean mask of x's leading axes (sometimes of
    a wrong shape)."""
    n = shape[0]
    if draw(st.integers(0, 3)) == 0:
        mshape = list(shape[:draw(st.integers(1, len(shape)))])
        if draw(st.integers(0, 7)) == 0:  # a mask of another shape: NumPy's IndexError
            mshape[-1] += 1
        mask = np.array(draw(st.lists(st.booleans(), min_size=math.prod(mshape),
                                      max_size=math.prod(mshape))), dtype=bool).reshape(mshape)
        return xp.asarray(mask, device=device), mask
    kdt = np.dtype(draw(st.sampled_from(KEY_DTYPES)))
    kshape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=2)))
    lo = -n if kdt.kind == "i" else 0
    hi = min(n, np.iinfo(kdt).max + 1)
    out = draw(st.integers(0, 7)) == 0
    if out or hi <= lo:  # out of bounds (or no valid index at all)
        vals = st.sampled_from([v for v in (n, n + 3, -n - 1, np.iinfo(kdt).max, np.iinfo(kdt).min)
                                if np.iinfo(kdt).min <= v <= np.iinfo(kdt).max])
    else:
        vals = st.integers(max(lo, np.iinfo(kdt).min), hi - 1)
    k = np.array(draw(st.lists(vals, min_size=math.prod(kshape), max_size=math.prod(kshape))),
                 dtype=kdt).reshape(kshape)
    return xp.asarray(k, device=device), k


def _outcome(f):
    try:
        return f(), None
    except Exception as e:  # noqa: BLE001 - the type is compared
        return None, e


def H(a):
    return np.asarray(a.cpu()) if type(a) is A else np.asarray(a)


def _bits(a):
    """The bytes of each element (NaN payloads and signed zeros compared too)."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).reshape(a.shape + (a.itemsize,)) if a.size else a


def _snapshot(x):
    return H(x).copy(), x._version if x._st is not None else None


def _check_against_numpy(x, r, k, kn):
    before_x, before_k = _snapshot(x), _snapshot(k)
    got, err = _outcome(lambda: x[k])
    ref, rerr = _outcome(lambda: r[kn])
    if rerr is not None or (ref is not None and ref.ndim == 0 and kn.ndim == 0):
        # NumPy refuses (out of bounds), or takes a 0-d integer array as an int (a view)
        if rerr is not None:  # (NumPy's own error type: an OverflowError for a 0-d uint64 key)
            assert isinstance(err, (IndexError, type(rerr))), (err, rerr)
            assert "out of bounds" in str(err) or "index" in str(err) or type(err) is type(rerr)
        return got, err
    assert err is None, err
    assert got.dtype == x.dtype and tuple(got.shape) == ref.shape
    np.testing.assert_array_equal(_bits(H(got)), _bits(ref))
    # a fresh array: no memory shared with the source, nothing written to it or the key
    if got.size and x.size:
        assert not np.shares_memory(H(got), H(x)) or x.device.type != "cpu"
        if x._st is not None and got._st is not None:
            assert got.storage() is not x.storage()
    for a, (vals, version) in ((x, before_x), (k, before_k)):
        np.testing.assert_array_equal(_bits(H(a)), _bits(vals))
        assert (a._version if a._st is not None else None) == version
    return got, err


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_take_equals_numpy(data):
    """On either path (compiled or STRIDED_NO_CEXT=1), on the cpu."""
    x, r = data.draw(sources())
    k, kn = data.draw(keys(tuple(x.shape)))
    _check_against_numpy(x, r, k, kn)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_take_equals_numpy_on_the_default_device(data):
    """The same on the default device (the cuda stand-in in CI's cuda leg)."""
    dev = xp.asarray(0).device
    x, r = data.draw(sources(device=dev))
    k, kn = data.draw(keys(tuple(x.shape), device=dev))
    got, err = _outcome(lambda: x[k])
    ref, rerr = _outcome(lambda: r[kn])
    if rerr is not None:
        if dev.type == "cpu":  # (off the cpu a device index is not checked: the standard's choice)
            assert isinstance(err, (IndexError, type(rerr))), (err, rerr)
        return
    if ref.ndim == 0 and kn.ndim == 0:
        return
    assert err is None, err
    assert got.device == dev and got.dtype == x.dtype and tuple(got.shape) == ref.shape
    np.testing.assert_array_equal(_bits(H(got)), _bits(ref))


@compiled
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_compiled_take_equals_the_python_definition(data):
    x, r = data.draw(sources())
    k, kn = data.draw(keys(tuple(x.shape)))
    got, err = _check_against_numpy(x, r, k, kn)
    want, werr = _outcome(lambda: GETITEM(x, k))
    assert type(err) is type(werr)
    if err is not None:
        assert str(err) == str(werr)  # (the Python path's message, the array's shape in it)
        return
    assert type(got) is A and got._ext is None and got.device == want.device
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(_bits(H(got)), _bits(H(want)))
    # the same kind of result: lazy (no Storage yet) over its own native array
    assert (got._st is None) == (want._st is None)
    if got._np is not None:
        assert got._np.shape == tuple(got.shape) and got._np.dtype == got.dtype
        assert got._np.flags.writeable and got._np.flags.owndata == want._np.flags.owndata
        if got.size > 1:  # (NumPy's memory order: F for some masks of transposed sources)
            # (the strides of the axes that have more than one element: an axis of length 1
            # may carry any stride -- NumPy's take gives one of a (1, 2, 1) permuted source's
            # 8 bytes where a C-ordered result has 4; the memory order is the same)
            def steps(a):
                return tuple(s for n, s in zip(a.shape, a.strides) if n > 1)
            assert steps(got._np) == steps(want._np)


@compiled
@pytest.mark.parametrize("kdt", KEY_DTYPES)
@pytest.mark.parametrize("bad", ["high", "low"])
def test_an_index_out_of_bounds_raises_the_python_paths_error(kdt, bad):
    x = xp.asarray(np.arange(6.0), device="cpu")
    info = np.iinfo(kdt)
    v = 6 if bad == "high" else (-7 if info.min < 0 else 7)
    k = xp.asarray(np.array([0, v, 1], dtype=kdt), device="cpu")
    with pytest.raises(IndexError) as c_err:
        x[k]
    with pytest.raises(IndexError) as py_err:
        GETITEM(x, k)
    assert str(c_err.value) == str(py_err.value)
    assert "(array shape (6,))" in str(c_err.value)
    np.testing.assert_array_equal(H(x), np.arange(6.0))


def test_uint64_indices_past_int64_agree_with_numpy():
    """NumPy reads such an index as an intp (2**64 - 1 is -1): the compiled take leaves
    them to NumPy's indexing, whatever it does with them."""
    a = np.arange(6.0)
    k = np.array([0, 2**64 - 1, 2**63, 1], dtype=np.uint64)
    x = xp.asarray(a, device="cpu")
    for kk in (k[:2], k):
        got, err = _outcome(lambda: x[xp.asarray(kk, device="cpu")])
        ref, rerr = _outcome(lambda: a[kk])
        assert type(err) is type(rerr)
        if rerr is None:
            np.testing.assert_array_equal(H(got), ref)


def test_earlier_results_never_change():
    """Results are fresh arrays: one still held (directly, through a view, a NumPy array
    or a materialized Storage) is never written by a later take."""
    x = xp.asarray(np.arange(10, dtype=np.float32), device="cpu")
    i = xp.asarray(np.array([1, 3, 5, 7]), device="cpu")
    j = xp.asarray(np.array([0, 2, 4, 6]), device="cpu")
    held = [x[i] for _ in range(6)]
    view = x[i][1:]  # the result itself dropped, a view of it kept
    native = np.asarray(x[i])  # only NumPy's view of a dropped result kept
    for _ in range(20):
        r = x[j]
        r[...] = -1.0  # writes into each new result
        del r
        gc.collect(0)  # (a cycle made here is young; a full collection costs seconds in a long session)
    for h in held:
        np.testing.assert_array_equal(H(h), [1, 3, 5, 7])
    np.testing.assert_array_equal(H(view), [3, 5, 7])
    np.testing.assert_array_equal(native, [1, 3, 5, 7])
    np.testing.assert_array_equal(H(x), np.arange(10, dtype=np.float32))
    # results taken one after another and dropped are each right
    for k in range(10):
        np.testing.assert_array_equal(H(x[xp.asarray(np.array([k, 9 - k]), device="cpu")]), [k, 9 - k])


def test_results_written_in_place_are_independent():
    x = xp.asarray(np.arange(8.0), device="cpu")
    i = xp.asarray(np.array([2, 4]), device="cpu")
    a = x[i]
    a += 100.0
    b = x[i]
    np.testing.assert_array_equal(H(a), [102.0, 104.0])
    np.testing.assert_array_equal(H(b), [2.0, 4.0])
    assert a._np is not b._np


@pytest.mark.parametrize("n", [1, 100, 70_000, 300_000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_takes_equal_numpy(n, dtype):
    """Sizes across the buffer pool's threshold (the large results come from the pool)."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(dtype)
    idx = rng.integers(-n, n, n)
    x, k = xp.asarray(a, device="cpu"), xp.asarray(idx, device="cpu")
    got = x[k]
    np.testing.assert_array_equal(H(got), a[idx])
    assert got.dtype == x.dtype and tuple(got.shape) == (n,)
    again = x[k]  # a second result, while the first is held
    np.testing.assert_array_equal(H(got), a[idx])
    np.testing.assert_array_equal(H(again), a[idx])
    np.testing.assert_array_equal(H(x), a)


def test_rows_of_a_matrix_and_a_2d_key():
    m = np.arange(24, dtype=np.int32).reshape(4, 3, 2)
    k = np.array([[3, -1], [0, 2]], dtype=np.int16)
    got = xp.asarray(m, device="cpu")[xp.asarray(k, device="cpu")]
    np.testing.assert_array_equal(H(got), m[k])
    assert tuple(got.shape) == (2, 2, 3, 2)


@compiled
def test_a_named_array_or_a_tracked_one_takes_the_python_path():
    """Arrays with extensions are not the compiled take's: results keep names/gradients."""
    x = xp.asarray(np.arange(5.0), device="cpu")
    x.requires_grad_(True)
    i = xp.asarray(np.array([4, 0]), device="cpu")
    y = x[i]
    assert y.grad_fn is not None
    xp.sum(y).backward()
    np.testing.assert_array_equal(H(x.grad), [1.0, 0.0, 0.0, 0.0, 1.0])


@compiled
def test_setup_take_checks_what_it_is_given():
    c = _array._CVIEWS
    assert c.setup_take(None, np.ndarray, np.dtype(np.float64)) is False
    assert c.setup_take(_array._npcompat.array_api(), np.ndarray, np.dtype(np.float64)) is True
    with pytest.raises(TypeError):
        c.setup_take(None, 5, None)
    # (off: the takes still agree with NumPy, through numpy.empty)
    assert c.setup_take(None, np.ndarray, np.dtype(np.float64)) is False
    try:
        x = xp.asarray(np.arange(6.0), device="cpu")
        np.testing.assert_array_equal(H(x[xp.asarray(np.array([5, 0]), device="cpu")]), [5.0, 0.0])
    finally:
        assert c.setup_take(_array._npcompat.array_api(), np.ndarray, np.dtype(np.float64)) is True
