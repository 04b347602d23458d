"""A lazy kernel result's Storage built in C (``_chot/storage.c``, ``materialize``) against
``Array._materialize``'s Python steps on the same native array: the Storage's slots, the
strides, the offset, the memory shared with the native, the Storage count, and what views
and writes of the result then see. Declined cases (another memory order, a device array)
must leave the array to the Python method.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided._core import array as _array
from strided._core.array import Array
from strided._core.storage import Storage

_COMPILED = _array._CVIEWS is not None


def _lazy(native, dtype):
    return Array._wrap(native, dtype, _array.CPU)


def _python_materialize(x, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(_array, "_c_materialize", lambda x: False)
        x._materialize()


def _state(x):
    s = x._st
    return (type(s), s._data.shape, s._data.dtype, s.dtype, s.device, s._version, s._family,
            x._off, x._str, x._shape, x._np.shape)


@settings(max_examples=200, deadline=None)
@given(shape=hs.lists(hs.integers(0, 4), max_size=5),
       dtype=hs.sampled_from(["float32", "float64", "int16", "bool", "complex128"]),
       order=hs.sampled_from(["C", "F", "perm"]))
def test_the_c_storage_is_the_python_one(shape, dtype, order):
    import _pytest.monkeypatch

    mp = _pytest.monkeypatch.MonkeyPatch()
    base = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape).astype(dtype)
    native = {"C": base, "F": np.asfortranarray(base),
              "perm": np.transpose(base, tuple(reversed(range(base.ndim))))}[order]
    sd = st.asarray(base).dtype
    a, b = _lazy(native, sd), _lazy(native, sd)
    before = Storage.allocated
    a._materialize()  # (C where it takes the case)
    mid = Storage.allocated
    _python_materialize(b, mp)
    assert mid - before == 1 and Storage.allocated - mid == 1
    assert _state(a) == _state(b)
    assert np.shares_memory(a._st._data, native) == np.shares_memory(b._st._data, native)
    np.testing.assert_array_equal(np.asarray(a), native)
    # a view and a write through the built layout
    if native.size:
        a[(0,) * native.ndim] = 1
        assert a._st._version == 1
        np.testing.assert_array_equal(np.asarray(a).ravel()[:1].astype(dtype), np.asarray([1]).astype(dtype))
        if native.ndim >= 2:
            np.testing.assert_array_equal(np.asarray(a.mT), np.swapaxes(np.asarray(a), -1, -2))


@pytest.mark.skipif(not _COMPILED, reason="the compiled materialize is not built (STRIDED_NO_CEXT=1)")
def test_the_c_case_and_the_declined_ones():
    c = _array._CVIEWS
    x = st.ones((3, 4), device="cpu") + 1
    assert x._st is None and c.materialize(x) is True and x._st is not None
    st0 = x._st
    assert c.materialize(x) is True and x._st is st0  # (already: untouched)
    f = _lazy(np.asfortranarray(np.ones((3, 4), np.float32)), st.float32)
    assert c.materialize(f) is False and f._st is None  # (another order: the Python method)
    assert c.materialize(3) is False and c.materialize(np.ones(2)) is False
    with pytest.raises(TypeError, match="_ALLOCATED"):
        c.materialize_setup([1, 2])


def test_fresh_results_viewed_and_indexed_match_numpy():
    rng = np.random.default_rng(0)
    for shape in [(4, 5), (1, 7), (0, 3), (2, 3, 4), ()]:
        an = rng.standard_normal(shape)
        a = st.asarray(an, device="cpu")
        np.testing.assert_array_equal(np.asarray((a + a).mT if len(shape) >= 2 else (a + a)),
                                      np.swapaxes(an + an, -1, -2) if len(shape) >= 2 else an + an)
        if shape and shape[0]:
            np.testing.assert_array_equal(np.asarray((a * 2)[0]), (an * 2)[0])


@pytest.mark.skipif(not _COMPILED, reason="the compiled materialize is not built (STRIDED_NO_CEXT=1)")
def test_a_device_array_is_the_python_methods():
    dev = st.ones(1).device  # (the default device: cuda under the CuPy stand-in)
    x = st.ones((2, 3), device=dev) + 1
    assert _array._CVIEWS.materialize(x) is (dev.type == "cpu")
    x._layout()
    assert x._st is not None and x._str == (3, 1) and x._off == 0
