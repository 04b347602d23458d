"""Round 4's compiled view paths (strided/_csrc/_chot/views.c): keys with None and "..."
answered in C (``view_getitem``'s newaxes), and Array objects from a free list
(``setup_array_free``). Each against NumPy and the Python definition: values, shape,
strides, offset, the shared Storage and version counter, writes through the view,
errors; both with and without the C extension (the Python path then answers both sides).
"""

import gc
import warnings
import sys
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._core import array as _array

A = xp.Array
GETITEM = getattr(A.__getitem__, "__wrapped__", A.__getitem__)
COMPILED = _array._CVIEWS is not None


def _items(ndim):
    """One key item: an int (maybe out of range), a slice, None or Ellipsis."""
    ints = st.integers(-5, 5)
    sl = st.builds(slice, st.one_of(st.none(), ints), st.one_of(st.none(), ints),
                   st.one_of(st.none(), st.sampled_from([1, 2, -1, -3])))
    return st.one_of(ints, sl, st.none(), st.just(Ellipsis))


@st.composite
def shapes_and_keys(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    items = draw(st.lists(_items(len(shape)), min_size=0, max_size=5))
    single = len(items) == 1 and draw(st.booleans())
    key = items[0] if single else tuple(items)
    layout = draw(st.sampled_from(["plain", "lazy", "reversed", "transposed"]))
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int64, np.bool_]))
    return shape, key, layout, dtype


def _make(shape, layout, dtype, device="cpu"):
    base = (np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 7).astype(dtype)
    x = xp.asarray(base.copy(), device=device)
    if layout == "lazy":  # a kernel result without a Storage yet
        x = x + xp.zeros_like(x) if dtype != np.bool_ else x & True
    elif layout == "reversed" and shape and shape[0]:
        x, base = x[::-1], base[::-1]
    elif layout == "transposed" and len(shape) >= 2:
        x, base = xp.permute_dims(x, tuple(range(len(shape)))[::-1]), base.transpose()
    return x, base


@settings(max_examples=400, deadline=None)
@given(shapes_and_keys())
def test_basic_keys_with_newaxis_and_ellipsis_equal_numpy_and_the_python_path(case):
    shape, key, layout, dtype = case
    x, base = _make(shape, layout, dtype)
    try:
        ref = base[key]
    except IndexError:
        with pytest.raises(IndexError):
            x[key]
        with pytest.raises(IndexError):
            GETITEM(x, key)
        return
    got, want = x[key], GETITEM(x, key)
    for r in (got, want):
        assert type(r) is A
        assert tuple(r.shape) == ref.shape
        assert r.dtype == xp.asarray(ref).dtype
        np.testing.assert_array_equal(np.asarray(r), ref)
        assert r.storage() is x.storage()
    assert (got.storage_offset(), got.stride()) == (want.storage_offset(), want.stride())
    # NumPy's strides, in elements (a new axis: stride 0 in both)
    if ref.size:
        assert got.stride() == tuple(s // ref.itemsize for s in ref.strides) or ref.ndim == 0 \
            or any(n == 1 for n in ref.shape)


@pytest.mark.parametrize("device", ["cpu", None])
def test_newaxis_views_share_memory_and_the_version_counter(device):
    x = xp.asarray(np.arange(12.0).reshape(3, 4), device=device)
    for key in [(slice(None), None), (None,), None, (Ellipsis, None), (1, None, Ellipsis),
                Ellipsis, (None, slice(1, 3), Ellipsis, None)]:
        v = x[key]
        before = x._version if hasattr(x, "_version") else None
        n = np.asarray(v.to_device("cpu") if device is None else v)
        np.testing.assert_array_equal(n, np.arange(12.0).reshape(3, 4)[key])
        v0 = x.storage()._version
        idx = (0,) * v.ndim
        if v.size:
            v[idx] = -7.0
            assert x.storage()._version == v0 + 1
            assert v.storage() is x.storage()
            assert float(v[idx]) == -7.0
            # the write landed where NumPy's view of the same key points
            ref = np.arange(12.0).reshape(3, 4)
            ref[key][idx] = -7.0
            np.testing.assert_array_equal(np.asarray(x.to_device("cpu")), ref)
            x = xp.asarray(np.arange(12.0).reshape(3, 4), device=device)
        del before


def test_newaxis_errors_are_the_python_paths():
    x = xp.asarray(np.arange(6.0).reshape(2, 3), device="cpu")
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., None, ...]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, None, 0, 0]
    with pytest.raises(IndexError, match="out of bounds"):
        x[None, 5]
    with pytest.raises(ValueError, match="step"):
        x[None, ::0]
    with pytest.raises(IndexError):
        x[None, 1.5]


def test_newaxis_on_a_0d_array_and_an_empty_one():
    z = xp.asarray(np.float64(3.0), device="cpu")
    for key in [None, (None, None), Ellipsis, (Ellipsis, None), ()]:
        r = z[key]
        assert tuple(r.shape) == np.float64(3.0)[key].shape if key != () else r.shape == ()
        assert float(xp.reshape(r, ())) == 3.0
    e = xp.asarray(np.zeros((0, 3)), device="cpu")
    r = e[:, None, 1:]
    assert tuple(r.shape) == (0, 1, 2)


def test_named_arrays_keep_the_python_path_for_newaxis():
    x = xp.asarray(np.arange(6.0).reshape(2, 3), device="cpu")
    try:
        named = x.rename("a", "b")
    except AttributeError:
        pytest.skip("no named dimensions")
    r = named[:, None]
    assert tuple(r.shape) == (2, 1, 3)
    assert r.names == ("a", None, "b")


# --- the free list of Array objects --------------------------------------------------

@pytest.mark.skipif(not COMPILED, reason="the compiled view paths are not active")
def test_the_free_list_is_in_use():
    # on CPython 3.11; 3.12 manages __weakref__ itself (managed weakrefs): setup declines
    # there and Arrays are allocated as before
    assert _array._CVIEWS.setup_array_free() is (sys.version_info < (3, 12))


def test_freed_arrays_clear_weak_references_and_run_their_callbacks():
    x = xp.asarray(np.arange(10.0), device="cpu")
    seen = []
    for _ in range(200):  # more than the list holds
        v = x[2:8]
        r = weakref.ref(v, seen.append)
        del v
        assert r() is None
    assert len(seen) == 200
    # a reused object is a fresh array: its fields are the new view's, not the old one's
    views = [x[i:i + 1] for i in range(10)]
    assert [float(v[0]) for v in views] == list(np.arange(10.0))
    assert all(v.storage() is x.storage() for v in views)


class _Sub(A):
    __slots__ = ("extra",)


def test_a_subclass_of_array_is_freed_through_the_base_and_keeps_its_fields():
    x = xp.asarray(np.arange(4.0), device="cpu")
    before = _Sub.__dict__.get("extra")
    holder = []
    for i in range(100):
        s = object.__new__(_Sub)
        s._np, s._st, s._off, s._shape, s._str = None, x.storage(), 0, (4,), (1,)
        s._dtype, s._device, s._ext = x.dtype, x.device, None
        s.extra = [i]
        wr = weakref.ref(s, holder.append)
        assert float(s[3]) == 3.0 and s.extra == [i]
        del s
        assert wr() is None
    assert len(holder) == 100
    assert _Sub.__dict__.get("extra") is before


def test_arrays_in_a_reference_cycle_are_collected():
    x = xp.asarray(np.arange(4.0), device="cpu")
    gc.collect()
    seen = []
    for _ in range(10):
        v = x[1:3]
        cyc = [v]
        cyc.append(cyc)  # (the list is in a cycle; v is freed when the collector breaks it)
        weakref.finalize(v, seen.append, 1)
        del v, cyc
    gc.collect()
    assert len(seen) == 10
    assert float(x[1:3][0]) == 1.0


def test_many_views_alive_at_once_then_freed():
    x = xp.asarray(np.arange(1000.0), device="cpu")
    views = [x[i:i + 2] for i in range(999)]
    assert all(float(v[1]) == i + 1 for i, v in enumerate(views))
    del views
    again = [x[i] for i in range(1000)]
    assert [float(v) for v in again] == list(np.arange(1000.0))


# --- x[bool mask] = a Python scalar (setitem.c, mask_setitem) ---------------------------

SETITEM = getattr(A.__setitem__, "__wrapped__", A.__setitem__)
VALUES = [0.5, -0.0, float("nan"), float("inf"), -float("inf"), 1e300, -3.4e38, 3.4028236e38,
          65520.0, 5e-324, 2**53 + 1, -(2**63), 2**64, True, False, 7]


@settings(max_examples=300, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple),
       seed=st.integers(0, 2**31),
       value=st.one_of(st.sampled_from(VALUES), st.floats(allow_nan=True), st.integers(-2**70, 2**70)),
       dtype=st.sampled_from([np.float16, np.float32, np.float64, np.int32]),
       layout=st.sampled_from(["plain", "reversed", "lazy", "transposed", "every-other"]),
       mask_shape=st.sampled_from(["same", "leading"]))
def test_mask_writes_equal_numpy_and_the_python_path(shape, seed, value, dtype, layout, mask_shape):
    rng = np.random.default_rng(seed)
    base = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    mshape = shape if mask_shape == "same" else shape[:1]
    maskn = rng.random(mshape) < 0.5
    views = {"plain": lambda a: a, "reversed": lambda a: a[::-1], "lazy": lambda a: a,
             "transposed": lambda a: a.T if a.ndim == 2 else a, "every-other": lambda a: a[::2]}
    out = []
    for how in ("numpy", "compiled", "python"):
        if how == "numpy":
            whole = base.copy()
            tgt = views[layout](whole)
            m = maskn if mask_shape == "leading" else views[layout](maskn.copy())
            if m.shape != tgt.shape[:m.ndim]:
                return  # ("every-other" of a mask of another length)
            try:
                with np.errstate(all="ignore"):
                    tgt[m] = value
            except (OverflowError, ValueError, TypeError) as e:
                out.append(type(e))
                continue
            out.append(whole)
            continue
        whole = xp.asarray(base.copy(), device="cpu")
        tgt = views[layout](whole)
        if layout == "lazy":
            tgt = tgt + xp.zeros_like(tgt)
            whole = tgt
        mk = xp.asarray(maskn.copy(), device="cpu")
        mk = mk if mask_shape == "leading" else views[layout](mk)
        v0 = tgt.storage()._version if layout != "lazy" else None
        try:
            with warnings.catch_warnings():  # (NumPy's cast warns of an overflow on both paths)
                warnings.simplefilter("ignore", RuntimeWarning)
                if how == "compiled":
                    tgt[mk] = value
                else:
                    SETITEM(tgt, mk, value)
        except (OverflowError, ValueError, TypeError) as e:
            out.append(type(e))
            continue
        if v0 is not None:
            assert tgt.storage()._version == v0 + 1
            assert whole.storage() is tgt.storage()
        out.append(np.asarray(whole).copy())
    if isinstance(out[0], type):
        assert out[1] is out[0] or issubclass(out[1], (OverflowError, ValueError, TypeError))
        assert out[2] is out[1]
        return
    for got in out[1:]:
        assert got.dtype == out[0].dtype
        np.testing.assert_array_equal(got.view(np.uint8), out[0].view(np.uint8))


def test_mask_write_of_another_shape_or_device_raises_as_the_python_path():
    x = xp.asarray(np.arange(6.0), device="cpu")
    with pytest.raises(IndexError):
        x[xp.asarray(np.array([True, False]), device="cpu")] = 1.0
    v0 = x.storage()._version
    with pytest.raises(IndexError):
        SETITEM(x, xp.asarray(np.array([True, False]), device="cpu"), 1.0)
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0))
    empty = xp.asarray(np.zeros(6, dtype=bool), device="cpu")
    x[empty] = 5.0  # nothing selected: nothing written, the version still counts the write
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0))
    assert x.storage()._version >= v0 + 1


def test_mask_write_reaches_every_view_of_the_storage():
    x = xp.asarray(np.arange(8.0, dtype=np.float32), device="cpu")
    v = x[2:6]
    w = x[::2]
    v[v > 3] = -1.0
    np.testing.assert_array_equal(np.asarray(x), np.array([0, 1, 2, 3, -1, -1, 6, 7], np.float32))
    np.testing.assert_array_equal(np.asarray(w), np.array([0, 2, -1, 6], np.float32))


# --- x ** 0.5 of a small host array (views.c, pow_half) -----------------------------------

def _pow_half_reference(a):
    """The standard's x ** 0.5 by NumPy (the Python path's steps): sqrt, + 0.0, -inf -> +inf."""
    with np.errstate(all="ignore"):
        r = np.sqrt(a)
        r = r + a.dtype.type(0.0)
    r[a == -np.inf] = np.inf
    return r


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 4.0, 2.0, 1e-310, 5e-324,
           3.4e38, 1e-45, -1e-300]


@settings(max_examples=200, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**32 - 1),
       n=st.integers(0, 70), layout=st.sampled_from(["plain", "reversed", "2-D", "every-other"]))
def test_pow_half_equals_the_numpy_steps_bit_for_bit(dtype, seed, n, layout):
    rng = np.random.default_rng(seed)
    uint = np.uint32 if dtype == np.float32 else np.uint64
    bits = rng.integers(0, np.iinfo(uint).max, size=n, dtype=uint, endpoint=True)
    a = bits.view(dtype)  # any bit pattern: NaN payloads, subnormals, negatives
    a[: min(n, len(SPECIAL))] = np.array(SPECIAL[:n], dtype=dtype)
    if layout == "reversed":
        a = a[::-1]
    elif layout == "every-other":
        a = a[::2]
    elif layout == "2-D" and n % 2 == 0:
        a = a.reshape(2, -1)
    want = _pow_half_reference(a)
    x = xp.asarray(a.copy(), device="cpu")
    if layout == "reversed":  # a strided view of its storage, as the sample
        x = xp.asarray(a[::-1].copy(), device="cpu")[::-1]
    got = np.asarray(x ** 0.5)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(uint), want.view(uint))
    got2 = np.asarray(xp.pow(x, 0.5))
    np.testing.assert_array_equal(got2.view(uint), want.view(uint))


@pytest.mark.skipif(_array._CVIEWS is None, reason="the compiled paths are not active")
def test_pow_half_declines_what_it_does_not_compute():
    from strided._csrc import _chot
    assert _chot.pow_half(np.arange(4, dtype=np.float16)) is None
    assert _chot.pow_half(np.arange(4, dtype=">f8")) is None
    assert _chot.pow_half(np.arange(4, dtype=np.int64)) is None
    assert _chot.pow_half(np.float64(4.0)) is None
    assert _chot.pow_half(np.zeros((3, 4)).T) is None  # (F order: NumPy's result is F order)
    assert _chot.pow_half([1.0]) is None
    r = _chot.pow_half(np.array([4.0, 9.0]))
    assert r.flags.c_contiguous and r.flags.owndata and r.tolist() == [2.0, 3.0]


# --- take(x, indices, axis=...) (indexing.take: NumPy's own bounds check on the CPU) -----

@settings(max_examples=300, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple),
       idx=st.lists(st.integers(-6, 6), min_size=0, max_size=5), zero_d=st.booleans(),
       idtype=st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64]),
       axis=st.integers(-3, 2), layout=st.sampled_from(["plain", "reversed", "transposed", "lazy"]))
def test_take_equals_numpy_values_and_errors(shape, idx, zero_d, idtype, axis, layout):
    base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = xp.asarray(base.copy(), device="cpu")
    if layout == "reversed":
        x, base = x[::-1], base[::-1]
    elif layout == "transposed":
        x, base = xp.permute_dims(x, tuple(range(base.ndim))[::-1]), base.transpose()
    elif layout == "lazy":
        x = x + 0.0
    if idtype in (np.uint8, np.uint64):
        idx = [abs(i) for i in idx]
    ia = np.array(idx[:1] if zero_d and idx else idx, dtype=idtype)
    if zero_d and idx:
        ia = ia.reshape(())
    ind = xp.asarray(ia, device="cpu")
    if not -base.ndim <= axis < base.ndim:
        with pytest.raises((IndexError, ValueError)):
            xp.take(x, ind, axis=axis)
        return
    n = base.shape[axis]
    if ia.size and (ia.astype(np.int64).min() < -n or ia.astype(np.int64).max() >= n):
        with pytest.raises(IndexError, match="take\\(\\): index out of range"):
            xp.take(x, ind, axis=axis)
        return
    try:
        want = np.take(base, ia, axis=axis)
    except TypeError:  # (NumPy refuses uint64 indices)
        with pytest.raises(TypeError):
            xp.take(x, ind, axis=axis)
        return
    got = xp.take(x, ind, axis=axis)
    assert type(got) is A and got.dtype == xp.float32 and tuple(got.shape) == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
    # a fresh array: writing to it leaves x as it was
    if got.size:
        got[(0,) * got.ndim] = -1.0
        np.testing.assert_array_equal(np.asarray(x), base)


# --- full((), float) (creation.full's short path) ---------------------------------------

@settings(max_examples=300, deadline=None)
@given(value=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                       st.sampled_from([float("nan"), -0.0, 1e300, 65520.0, 3.4028236e38, 5e-324])),
       dtype=st.sampled_from(["float16", "float32", "float64"]),
       shape=st.sampled_from([(), 0, 1, 5]))
def test_full_of_a_float_equals_numpy_and_the_general_path(value, dtype, shape):
    dt = getattr(xp, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's cast warns of overflow)
        want = np.full(shape, value, dtype=dtype)
    cpu = xp.asarray(np.zeros(1), device="cpu").device
    short = xp.full(shape, value, dtype=dt, device=cpu)           # a Device: the short path
    general = xp.full(shape, value, dtype=dt, device="cpu")       # a str: the general path
    for got in (short, general):
        assert type(got) is A and got.dtype == dt and tuple(got.shape) == want.shape
        assert np.asarray(got).tobytes() == want.tobytes()
    # a fresh array each call, writable, with its own storage
    again = xp.full(shape, value, dtype=dt, device=cpu)
    if again.size:
        again[...] = 0.0
        assert np.asarray(short).tobytes() == want.tobytes()


def test_full_short_path_leaves_everything_else_to_the_general_path():
    cpu = xp.asarray(np.zeros(1), device="cpu").device
    assert xp.full((), 1.5, device=cpu).dtype == xp.float32  # (no dtype: the default float)
    assert xp.full((), 2.0, dtype=xp.int32, device=cpu).dtype == xp.int32
    with pytest.raises(ValueError):
        xp.full((), float("nan"), dtype=xp.int32, device=cpu)
    with pytest.raises(ValueError):
        xp.full(-1, 1.0, dtype=xp.float64, device=cpu)
    r = xp.full((), 1.0, dtype=xp.float64, device=cpu, requires_grad=True)
    assert r.requires_grad


# --- result_type(array, scalar) (data_type_functions.result_type's short path) -------------

@settings(max_examples=200, deadline=None)
@given(dtype=st.sampled_from(["bool", "int8", "uint8", "int32", "int64", "float16", "float32",
                              "float64", "complex64", "complex128"]),
       scalar=st.sampled_from([True, 0, -3, 2**40, 1.5, float("nan"), 1j]))
def test_result_type_of_an_array_and_a_scalar_equals_the_general_path(dtype, scalar):
    x = xp.asarray(np.zeros(2, dtype=dtype), device="cpu")
    got = xp.result_type(x, scalar)
    want = xp.result_type(x.dtype, scalar)  # (a dtype: the general path)
    also = xp.result_type(scalar, x)        # (scalar first: the general path)
    assert got == want == also


def test_result_type_short_path_keeps_the_errors():
    x = xp.asarray(np.zeros(2), device="cpu")
    with pytest.raises(TypeError):
        xp.result_type(x, "float32x")
    with pytest.raises(ValueError):
        xp.result_type(1, 2.0)
