"""The calls SciPy's and scikit-learn's array-API code makes on every call (real9, issue 38),
with fewer Python frames: ``x.__array_namespace__()`` (views.c, V_NAMESPACE), ``Array._new``
(module.c's ``new``), ``finfo`` and two-array ``result_type`` (by the dtype's index, no
``DType.__hash__`` frame), ``DType.__ne__``, ``bool(x)``, ``np.asarray(x)`` of an array
already handed out. Each against its Python definition or an independent reference
(NumPy's promotion and finfo), errors with their text, and the frames it no longer enters."""

import itertools

import numpy as np
import pytest

import strided as xp
from strided._core import dtypes as _dtypes
from strided._core.array import Array

from _frames import python_calls
from _outcome import outcome as _err

# (the compiled answers are the CPU's: arrays made without a device are the CPU's here too)
pytestmark = pytest.mark.usefixtures("on_cpu")
COMPILED = type(Array.__dict__["__array_namespace__"]).__name__ == "View"
compiled = pytest.mark.skipif(not COMPILED, reason="the compiled path is not active")
FLOATS = [xp.float16, xp.float32, xp.float64, xp.complex64, xp.complex128]


@pytest.mark.parametrize("x", [xp.asarray([1.0, 2.0]), xp.asarray(3), xp.ones((2, 3))[:, 1],
                               xp.asarray([1.0], requires_grad=True)])
def test_array_namespace_is_the_methods_answer(x):
    m = Array.__array_namespace__
    py = getattr(m, "__wrapped__", m)
    for args, kw in [((), {}), ((), {"api_version": None}), ((), {"api_version": "2023.12"}),
                     ((), {"api_version": "1999.01"}), ((), {"api_version": 2023}), (("2023.12",), {}),
                     ((), {"version": None})]:
        got = _err(lambda: x.__array_namespace__(*args, **kw))
        assert got == _err(lambda: py(x, *args, **kw)), (args, kw)
        if got[1] is None:
            assert got[0] is xp
    with pytest.raises(ValueError, match=r"strided does not support Array API version '1999'"):
        x.__array_namespace__(api_version="1999")


@compiled
def test_array_namespace_enters_no_python_frame():
    x = xp.asarray([1.0, 2.0])
    for fn in (lambda: x.__array_namespace__(), lambda: x.__array_namespace__(api_version=None)):
        r, seen = python_calls(fn)
        assert r is xp and "__array_namespace__" not in seen


@compiled
def test_new_is_the_python_constructor():
    """Array._new in C stores what the Python definition stores, _ext None."""
    st = xp.asarray([1.0, 2.0, 3.0]).storage()
    nat = np.arange(3.0)
    for args in [(None, st, 1, (2,), (1,), xp.float64, st.device), (nat, None, 0, (3,), None, xp.float64, st.device)]:
        a, b = Array._new(*args), Array._new_python(*args)
        assert type(a) is Array is type(b)
        for slot in ("_np", "_st", "_off", "_shape", "_str", "_dtype", "_device", "_ext"):
            assert getattr(a, slot) is getattr(b, slot), slot
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(TypeError, match="seven arguments"):
        Array._new(None, st)
    r, seen = python_calls(lambda: Array._new(None, st, 0, (3,), (1,), xp.float64, st.device))
    assert "_new" not in seen


@pytest.mark.parametrize("d", FLOATS + [xp.int8, xp.uint32, xp.bool])
def test_finfo_by_index_is_numpys(d):
    for arg in (d, xp.zeros(2, dtype=d), d._np, d.name):
        got = _err(lambda: xp.finfo(arg))
        if d.kind not in "fc":
            assert got[1] == (TypeError, f"finfo() accepts only floating-point data types; got {d.name} (use iinfo)")
            continue
        f, ref = got[0], np.finfo(d._np)
        assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (ref.bits, ref.eps, ref.max, ref.min,
                                                                    ref.smallest_normal)
        assert f.dtype is _dtypes.real_of(d) and f is xp.finfo(d)
    assert xp.finfo().dtype is xp.get_default_dtype()
    with pytest.raises(TypeError, match="finfo\\(\\): type must be a strided dtype or array; got 'nope'"):
        xp.finfo("nope")
    r, seen = python_calls(lambda: xp.finfo(xp.float32))
    assert "_dtype_of" not in seen and "__hash__" not in seen


def test_result_type_short_paths_are_the_general_rule():
    """Two arrays (one device), one array: the table by index gives what the general loop
    gives, and NumPy's promotion where the standard and NumPy agree (no int/float mixing)."""
    general = xp.result_type.__wrapped__ if hasattr(xp.result_type, "__wrapped__") else None
    for a, b in itertools.product(_dtypes.ALL_DTYPES, repeat=2):
        x, y = xp.zeros(1, dtype=a), xp.zeros(2, dtype=b)
        r = xp.result_type(x, y)
        assert r is _dtypes.PROMOTION[a, b] is xp.result_type(a, b) is xp.result_type(x, b)
        if general is not None:
            assert r is general(x, y)
        if (a.kind in "iu") == (b.kind in "iu") and "b" not in (a.kind + b.kind):
            assert r._np == np.promote_types(a._np, b._np)
        assert xp.result_type(x) is a
    r, seen = python_calls(lambda: xp.result_type(x, y))
    assert not {"check_devices", "_dtype_of", "__hash__"} & set(seen)


def test_result_type_of_two_devices_still_refuses():
    x = xp.zeros(2, device="cpu")
    devs = [d for d in ("cuda", "meta") if _err(lambda: xp.zeros(1, device=d))[1] is None]
    if not devs:
        pytest.skip("one device here")
    y = xp.zeros(2, device=devs[0])
    got = _err(lambda: xp.result_type(x, y))
    assert got[1] is not None and issubclass(got[1][0], (ValueError, RuntimeError, TypeError))


def test_dtype_ne_is_not_eq():
    others = list(_dtypes.ALL_DTYPES) + [np.dtype("float32"), "float64", "int8", None, 3, np.float32, object()]
    for a in _dtypes.ALL_DTYPES:
        for b in others:
            assert (a != b) is (not (a == b)), (a, b)
    r, seen = python_calls(lambda: xp.float32 != xp.float64)
    assert "__eq__" not in seen


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
@pytest.mark.parametrize("d", [xp.bool, xp.int32, xp.float64, xp.complex64])
def test_bool_of_one_element_is_numpys(shape, d):
    for v in ((0, 1, -0.0, float("nan"), 2.5) if d.kind in "fc" else (0, 1, 2)):
        a = np.full(shape, v).astype(d._np)
        for x in (xp.asarray(a), xp.asarray(np.full((3,) + shape, v).astype(d._np))[1]):
            assert bool(x) is bool(a)
    r, seen = python_calls(lambda: bool(xp.asarray(1.0)))
    assert r is True and "_scalar" not in seen and "_item" not in seen


def test_bool_of_many_elements_names_the_shape():
    for shape in [(2,), (0,), (2, 3)]:
        with pytest.raises(TypeError, match=rf"only arrays with one element can be converted to Python bool; "
                                            rf"got shape \({shape[0]},"):
            bool(xp.zeros(shape))


def test_asarray_of_an_exported_array_finds_its_storage_again():
    x = xp.asarray(np.arange(6.0).reshape(2, 3))
    a1, a2 = np.asarray(x), np.asarray(x)  # (the second: found without a new registry entry)
    assert np.shares_memory(a1, a2)
    v = x[::-1]  # a view of the same Storage
    b = np.asarray(v)
    y = xp.asarray(b[::-1])  # a native over exported memory: a view of that Storage
    assert y.storage() is x.storage()
    y[0, 0] = 7.0
    assert float(x[0, 0]) == 7.0


def test_reshape_minus_one_again_is_numpys_without_adopt_shape():
    a = np.arange(24.0).reshape(4, 6)
    x = xp.asarray(a)
    for shape in [(-1,), (3, -1), (-1, 2, 2), (24,), (2, 12)]:
        for _ in range(2):  # (the second call finds the cached -1 resolution)
            np.testing.assert_array_equal(np.asarray(xp.reshape(x, shape)), a.reshape(shape))
    for bad, err in [((-1, -1), "only one dimension may be -1"), ((5, -1), "cannot reshape array of size 24"),
                     ((-1.0,), "shape must be a tuple of ints")]:
        for _ in range(2):
            with pytest.raises((ValueError, TypeError), match=err):
                xp.reshape(x, bad)
    s = (-1,)
    r, seen = python_calls(lambda: xp.reshape(x, s))
    assert r.shape == (24,) and "_adopt_shape" not in seen


@pytest.mark.parametrize("fn,ref", [(xp.any, np.any), (xp.all, np.all)])
def test_any_all_short_path_axes_are_numpys(fn, ref):
    a = np.array([[1, 0, 2], [0, 0, 3]])
    x = xp.asarray(a)
    for axis in [None, 0, 1, -1, -2, (0, 1), (1,), ()]:
        for kd in (False, True):
            np.testing.assert_array_equal(np.asarray(fn(x, axis=axis, keepdims=kd)), ref(a, axis=axis, keepdims=kd))
    for axis in [2, -3, (0, 0)]:
        with pytest.raises((IndexError, ValueError)):
            fn(x, axis=axis)
    for axis in (None, 1):
        r, seen = python_calls(lambda: fn(x, axis=axis))
        assert "plain_axis" not in seen


def test_iter_is_the_methods_map():
    m = Array.__dict__["__iter__"]
    py = getattr(m, "__wrapped__", m)
    base = np.arange(24.0).reshape(4, 6)
    cases = [xp.asarray(base), xp.asarray(base)[::-1, 1:], xp.asarray(base).T, xp.zeros((0, 3)),
             xp.asarray([1, 2, 3]), xp.asarray(base, requires_grad=True), xp.asarray(base)[None]]
    for x in cases:
        it = iter(x)
        assert type(it) is type(py(x)) is map
        got, ref = list(it), list(py(x))
        assert len(got) == len(ref) == x.shape[0]
        for g, r in zip(got, ref):
            assert g.shape == r.shape and g.dtype == r.dtype
            assert np.asarray(g.detach() if g.requires_grad else g).tobytes() == \
                np.asarray(r.detach() if r.requires_grad else r).tobytes()
    zero = xp.asarray(1.0)
    assert _err(lambda: iter(zero)) == _err(lambda: py(zero))
    assert _err(lambda: iter(zero))[1] == (TypeError, "iteration over a 0-d array")
    assert np.iterable(cases[0]) and not np.iterable(zero)
    x = cases[0]
    r, seen = python_calls(lambda: iter(x))
    assert "__iter__" not in seen or not COMPILED
