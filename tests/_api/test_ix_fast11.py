"""The round-11 fast paths of manipulation, indexing and copies (benchmarks/ix_survey.py)
against the general paths they stand in front of and against NumPy and PyTorch:

- ``x[slice or ...] = value`` (array.py ``_slice_from_array``, and ``x[...] = scalar``):
  vs ``array._setitem`` (the general path) and NumPy's assignment: values, the version
  counter bumped once, nothing written on an error, the same error text;
- ``concat``/``stack`` of one dtype on the CPU (manipulation.py ``_join_plain``) vs the same
  call with ``_join_plain`` declining and vs ``numpy.concatenate``/``numpy.stack``: values,
  dtype, a C-order result of its own memory, errors, gradients through the hook;
- ``take_along_axis`` (NumPy wraps and refuses indices itself) vs NumPy and PyTorch;
- ``asarray(x, copy=True)``'s small copy, ``reshape`` of a non-contiguous layout and
  ``nonzero`` of a 1-D array vs their general paths and NumPy.

The compiled paths are CPU-only: arrays are made with ``device="cpu"`` (the ``on_cpu``
fixture). ``STRIDED_NO_CEXT=1`` runs the same tests on the Python definitions.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided._api import indexing as _indexing
from strided._api import manipulation as _manip
from strided._api import searching as _searching
from strided._api import views as _views
from strided._core import array as _array

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

_DTYPES = ["float32", "float64", "int32", "bool", "complex64", "float16"]


def _base(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * 4
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


@hs.composite
def _layouts(draw, min_ndim=1, max_ndim=3):
    """(NumPy array, strided array over the same values in the same layout)."""
    shape = tuple(draw(hs.lists(hs.integers(0, 5), min_size=min_ndim, max_size=max_ndim)))
    dtype = draw(hs.sampled_from(_DTYPES))
    how = draw(hs.sampled_from(["plain", "reversed", "strided", "transposed"]))
    big = tuple(2 * n + 1 for n in shape)
    a = _base(big, dtype, draw(hs.integers(0, 3)))
    x = st.asarray(a.copy(), device="cpu")
    if how == "reversed":
        key = tuple(slice(None, None, -2) for _ in shape)
    elif how == "strided":
        key = tuple(slice(1, None, 2) for _ in shape)
    else:
        key = tuple(slice(0, n) for n in shape)
    a, x = a[key], x[key]
    if how == "transposed":
        a, x = a.T, st.permute_dims(x, tuple(reversed(range(len(shape)))))
    return a, x


# --- x[slice or ...] = value ----------------------------------------------------------

@hs.composite
def _setitem_cases(draw):
    n = draw(hs.integers(0, 7))
    tdt = draw(hs.sampled_from(_DTYPES))
    if draw(hs.booleans()):
        key = Ellipsis
    else:
        key = slice(draw(hs.none() | hs.integers(-n - 2, n + 2)), draw(hs.none() | hs.integers(-n - 2, n + 2)),
                    draw(hs.none() | hs.sampled_from([-3, -1, 1, 2])))
    sel = len(range(n)[key]) if key is not Ellipsis else n
    vdt = draw(hs.sampled_from(_DTYPES))
    vlen = draw(hs.sampled_from([sel, 1, sel + 1, 0]))  # (sel + 1 and 0: no broadcast, mostly)
    vview = draw(hs.sampled_from(["plain", "reversed", "strided", "alias"]))
    scalar = draw(hs.sampled_from([None, None, 2.5, -0.0, 3, True]))
    return n, tdt, key, vdt, vlen, vview, scalar


def _value(n, tdt, vdt, vlen, vview, x):
    if vview == "alias":  # the target's own memory, read as it was before the write
        return x[:vlen] if vlen <= n else st.asarray(_base(vlen, vdt, 5), device="cpu")
    if vview == "reversed":
        return st.asarray(_base(vlen, vdt, 5), device="cpu")[::-1]
    if vview == "strided":
        return st.asarray(_base(2 * vlen, vdt, 5), device="cpu")[::2]
    return st.asarray(_base(vlen, vdt, 5), device="cpu")


@settings(max_examples=150, deadline=None)
@given(case=_setitem_cases(), target_view=hs.booleans())
def test_slice_setitem_matches_the_general_path_and_numpy(case, target_view):
    n, tdt, key, vdt, vlen, vview, scalar = case
    base = _base(2 * n + 1, tdt, 1)
    x = st.asarray(base.copy(), device="cpu")
    y = st.asarray(base.copy(), device="cpu")  # the general path's target
    if target_view:
        x, y = x[::-2][:n], y[::-2][:n]
        ref = base.copy()[::-2][:n]
    else:
        x, y = x[:n], y[:n]
        ref = base.copy()[:n]
    if scalar is not None:
        v, vy, vref = scalar, scalar, scalar
    else:
        v = _value(n, tdt, vdt, vlen, vview, x)
        vy = _value(n, tdt, vdt, vlen, vview, y)
        vref = np.asarray(vy).copy()  # (NumPy's side reads the value as it was)
    before = np.asarray(x).copy()
    try:
        with np.errstate(all="ignore"):
            _array._setitem(y, key, vy)
        general = None
    except Exception as e:  # noqa: BLE001 (the general path's error, compared below)
        general = e
    v0 = x._layout()[0]._version
    with np.errstate(all="ignore"):
        if general is None:
            x[key] = v
        else:
            with pytest.raises(type(general)) as got:
                x[key] = v
            assert str(got.value) == str(general)
    if general is None:
        with np.errstate(all="ignore"):
            if np.iscomplexobj(vref) and ref.dtype.kind != "c":
                raise AssertionError("a complex value was written into a real array")
            ref[key] = vref
        np.testing.assert_array_equal(np.asarray(x), ref)
        np.testing.assert_array_equal(np.asarray(y), ref)
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes()  # (NaN payloads, -0.0)
        assert x._st._version == v0 + 1
    else:
        np.testing.assert_array_equal(np.asarray(x), before)  # nothing written
        assert x._st._version == v0


def test_slice_setitem_errors_name_the_shapes_and_dtypes():
    x = st.zeros(6, dtype=st.float64, device="cpu")
    with pytest.raises(ValueError, match=r"value of shape \(2,\) can't be broadcast to shape \(3,\)"):
        x[::2] = st.ones(2, dtype=st.float64, device="cpu")
    with pytest.raises(TypeError, match="can't assign complex complex64 values into float64"):
        x[...] = st.ones(6, dtype=st.complex64, device="cpu")
    with pytest.raises(ValueError, match="step"):
        x[::0] = st.ones(1, dtype=st.float64, device="cpu")
    assert np.asarray(x).tolist() == [0.0] * 6


def test_slice_setitem_of_a_value_that_requires_grad_records_the_write():
    torch = pytest.importorskip("torch")
    v = st.asarray([1.0, 2.0, 3.0], device="cpu", requires_grad=True)
    w = st.asarray([0.5, -1.0, 2.0, 4.0, 3.0, 1.5], device="cpu")
    y = st.zeros(6, dtype=st.float32, device="cpu") * 1.0
    y[::2] = v
    st.sum(y * w).backward()
    tv = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ty = torch.zeros(6) * 1.0
    ty[::2] = tv
    (ty * torch.tensor([0.5, -1.0, 2.0, 4.0, 3.0, 1.5])).sum().backward()
    np.testing.assert_array_equal(np.asarray(v.grad), tv.grad.numpy())


def test_ellipsis_scalar_fill_bumps_the_version_and_reaches_every_view():
    x = st.arange(8, dtype=st.float32, device="cpu")
    v = x[::-3]
    v0 = x._layout()[0]._version
    v[...] = 1.5
    assert x._layout()[0]._version == v0 + 1
    assert np.asarray(x).tolist() == [0, 1.5, 2, 3, 1.5, 5, 6, 1.5]
    z = st.asarray(np.float64(2.0), device="cpu") * 1.0  # 0-d
    z[...] = -0.0
    assert np.signbit(np.asarray(z))


# --- concat and stack --------------------------------------------------------------------

def _general(monkeypatch):
    monkeypatch.setattr(_manip, "_join_plain", lambda arrays, axis, new_axis: None)


@settings(max_examples=60, deadline=None)
@given(data=hs.data(), k=hs.integers(1, 3), stack=hs.booleans())
def test_concat_and_stack_match_numpy_and_the_general_path(data, k, stack):
    a0, x0 = data.draw(_layouts())
    pieces = [(a0, x0)]
    for i in range(k - 1):
        shape = list(a0.shape)
        if not stack:
            shape[0] = data.draw(hs.integers(0, 4))
        a = _base(tuple(shape), a0.dtype, 10 + i)
        if data.draw(hs.booleans()) and a.ndim:
            x = st.asarray(a[::-1].copy(), device="cpu")[::-1]  # negative strides
        else:
            x = st.asarray(a, device="cpu")
        pieces.append((a, x))
    nd = a0.ndim + stack
    axis = data.draw(hs.integers(-nd, nd - 1))
    if not stack and axis % nd:
        # the joined axis must be the one that differs: move it
        arrs = [np.moveaxis(a, 0, axis % nd) for a, _ in pieces]
        xs = [st.moveaxis(x, 0, axis % nd) for _, x in pieces]
    else:
        arrs = [a for a, _ in pieces]
        xs = [x for _, x in pieces]
    f, g = (st.stack, np.stack) if stack else (st.concat, np.concatenate)
    want = g(arrs, axis=axis)
    got = f(xs, axis=axis)
    assert got.dtype == st.asarray(want).dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    n = np.asarray(got)
    assert n.flags.c_contiguous
    for x in xs:
        assert not np.shares_memory(n, np.asarray(x))
    general = _manip._join("stack" if stack else "concat",
                           tuple(st.expand_dims(x, axis=axis % nd) for x in xs) if stack else tuple(xs),
                           axis % nd, xs[0]._device, xs[0]._dtype)
    assert np.asarray(general).tobytes() == n.tobytes()
    assert got.shape == general.shape and got.stride() == general.stride()


@pytest.mark.parametrize("func", ["concat", "stack"])
@pytest.mark.parametrize("args", [
    lambda x: ([x, x[:2]], {"axis": 1}),      # shapes differ off the axis
    lambda x: ([x, x], {"axis": 3}),          # axis out of range
    lambda x: ([x, x[0]], {"axis": 0}),       # ndims differ
    lambda x: ([x, 1.0], {"axis": 0}),        # not an array
    lambda x: ([], {"axis": 0}),              # nothing to join
    lambda x: (x, {"axis": 0}),               # an array, not a sequence
    lambda x: ([x, x], {"axis": 1.0}),        # a float axis
])
def test_concat_and_stack_errors_are_the_general_paths(func, args, monkeypatch):
    x = st.ones((3, 4), dtype=st.float32, device="cpu")
    arrays, kw = args(x)
    try:
        getattr(st, func)(arrays, **kw)
        fast = None
    except Exception as e:  # noqa: BLE001
        fast = e
    _general(monkeypatch)
    try:
        getattr(st, func)(arrays, **kw)
        general = None
    except Exception as e:  # noqa: BLE001
        general = e
    assert type(fast) is type(general) and str(fast) == str(general)
    if func == "concat" and general is None:
        pytest.fail("every case above is an error")


def test_concat_of_mixed_dtypes_and_out_take_the_general_path():
    a = st.asarray([1, 2], dtype=st.int32, device="cpu")
    b = st.asarray([0.5], dtype=st.float64, device="cpu")
    r = st.concat([a, b])
    assert r.dtype == st.float64 and np.asarray(r).tolist() == [1.0, 2.0, 0.5]
    out = st.zeros(3, dtype=st.float64, device="cpu")
    st.concat([b, b, b], out=out)
    assert np.asarray(out).tolist() == [0.5] * 3


def test_concat_and_stack_gradients_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    w = rng.standard_normal((2, 2, 3))
    for f, tf in ((st.stack, torch.stack), (st.concat, torch.cat)):
        x = st.asarray(a, device="cpu", requires_grad=True)
        y = st.asarray(b, device="cpu", requires_grad=True)
        tx = torch.tensor(a, requires_grad=True)
        ty = torch.tensor(b, requires_grad=True)
        r, tr = f([x, y], axis=1), tf([tx, ty], 1)
        ww = w.reshape(tuple(tr.shape))
        st.sum(r * st.asarray(ww, device="cpu")).backward()
        (tr * torch.tensor(ww)).sum().backward()
        np.testing.assert_allclose(np.asarray(x.grad), tx.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(y.grad), ty.grad.numpy(), rtol=1e-12)


def test_concat_keeps_names_through_the_hook():
    x = st.ones((2, 3), dtype=st.float32, device="cpu").refine_names("N", "C")
    r = st.concat([x, x], axis=0)
    assert r.names == ("N", "C") and r.shape == (4, 3)


# --- take_along_axis -------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(data=hs.data(), idt=hs.sampled_from(["int64", "int32", "uint8", "int16"]))
def test_take_along_axis_matches_numpy_and_pytorch(data, idt):
    a, x = data.draw(_layouts(min_ndim=1, max_ndim=3))
    axis = data.draw(hs.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    ishape = list(a.shape)
    ishape[axis] = data.draw(hs.integers(0, 4))
    lo = 0 if np.dtype(idt).kind == "u" else -n
    if n == 0:
        ishape[axis] = 0
    idx = np.random.default_rng(data.draw(hs.integers(0, 9))).integers(lo, max(n, 1), ishape).astype(idt)
    got = st.take_along_axis(x, st.asarray(idx, device="cpu"), axis=axis)
    want = np.take_along_axis(a, idx.astype(np.int64) % max(n, 1), axis=axis)
    assert got.dtype == st.asarray(a).dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    assert np.asarray(got).flags.c_contiguous


def test_take_along_axis_against_pytorch_and_its_errors():
    torch = pytest.importorskip("torch")
    a = np.arange(12.0).reshape(3, 4)
    i = np.array([[-1, 0], [3, -4], [2, 1]])
    got = st.take_along_axis(st.asarray(a, device="cpu"), st.asarray(i, device="cpu"), axis=1)
    want = torch.take_along_dim(torch.tensor(a), torch.tensor(i) % 4, 1)
    np.testing.assert_array_equal(np.asarray(got), want.numpy())
    x = st.asarray(a, device="cpu")
    for bad in ([[4]], [[-5]]):
        with pytest.raises(IndexError, match=r"^take_along_axis\(\): index out of range for axis 1 with size 4$"):
            st.take_along_axis(x, st.asarray(np.array(bad * 3), device="cpu"), axis=1)
    with pytest.raises(TypeError, match="integer dtype"):
        st.take_along_axis(x, st.asarray(a, device="cpu"), axis=1)
    with pytest.raises(ValueError, match="dims"):
        st.take_along_axis(x, st.asarray(np.array([0]), device="cpu"), axis=1)


def test_take_along_axis_gradient_matches_pytorch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(1).standard_normal((3, 4))
    i = np.array([[-1, 0, 0], [3, -4, 1], [2, 1, 2]])
    x = st.asarray(a, device="cpu", requires_grad=True)
    st.sum(st.take_along_axis(x, st.asarray(i, device="cpu"), axis=1) ** 2).backward()
    tx = torch.tensor(a, requires_grad=True)
    (torch.take_along_dim(tx, torch.tensor(i) % 4, 1) ** 2).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), tx.grad.numpy(), rtol=1e-12)


# --- copies, reshape, nonzero ---------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(layout=_layouts(min_ndim=0))
def test_asarray_copy_is_clones_and_keeps_order(layout):
    a, x = layout
    c = st.asarray(x, copy=True)
    np.testing.assert_array_equal(np.asarray(c), a)
    assert c.dtype == x.dtype and c.storage() is not x.storage()
    assert not np.shares_memory(np.asarray(c), np.asarray(x))
    # the general definition: NumPy's order "K" (x's own axis order, dense or not), C order
    # where x is C-contiguous or broadcast (a stride-0 axis: _views._keep_order)
    n = np.asarray(x)
    if n.flags.c_contiguous or (not _views._layout.dense_order(a.shape, n.strides, a.itemsize)
                                and _views._keep_order(n.shape, n.strides) is None):
        assert c.stride() == _views.clone._impl(x).stride()
    else:
        k = np.array(n, copy=True)  # (order "K"; size-1 axes' strides address nothing)
        assert [s for s, m in zip(c.stride(), a.shape) if m > 1] == \
            [s // a.itemsize for s, m in zip(k.strides, a.shape) if m > 1]
    assert np.asarray(st.astype(x, x.dtype)).tobytes() == np.asarray(c).tobytes()


@settings(max_examples=50, deadline=None)
@given(layout=_layouts(min_ndim=1), data=hs.data())
def test_reshape_of_any_layout_is_the_general_paths(layout, data):
    a, x = layout
    size = a.size
    shapes = [(-1,), (size,), (1, size), (size, 1)] + ([(2, size // 2)] if size % 2 == 0 else [])
    shape = data.draw(hs.sampled_from(shapes))
    got = st.reshape(x, shape)
    general = _views._reshape._impl(x, shape)
    np.testing.assert_array_equal(np.asarray(got), a.reshape(shape))
    assert got.shape == general.shape
    if got.shape != x.shape:  # (its own shape: the hot path's older branch keeps x's strides)
        assert got.stride() == general.stride()
    assert (got.storage() is x.storage()) == (general.storage() is x.storage())
    try:
        np_view = np.shares_memory(a.reshape(shape), a) or a.size == 0
    except ValueError:
        np_view = False
    if a.size and np_view:
        assert got.storage() is x.storage()  # a view wherever NumPy's is one


@settings(max_examples=60, deadline=None)
@given(layout=_layouts(min_ndim=1, max_ndim=1), zeros=hs.floats(0, 1))
def test_nonzero_1d_matches_numpy_and_the_general_path(layout, zeros):
    a, x = layout
    a = a.copy()
    a[: int(a.size * zeros)] = 0
    x[...] = st.asarray(a.copy(), device="cpu")
    (got,) = st.nonzero(x)
    (want,) = np.nonzero(a)
    assert got.dtype == st.int64 and np.asarray(got).flags.c_contiguous
    np.testing.assert_array_equal(np.asarray(got), want)
    x2 = st.reshape(x, (1, -1))
    _, general = st.nonzero(x2)  # the n-D general path
    np.testing.assert_array_equal(np.asarray(general), np.asarray(got))


def test_nonzero_of_a_0d_array_raises_as_before():
    with pytest.raises(ValueError, match="0-d arrays are not supported"):
        st.nonzero(st.asarray(1.0, device="cpu"))


def test_survey_cases_run_and_agree_with_numpy():
    """Every statement of benchmarks/ix_survey.py runs on strided and gives NumPy's values
    where the two statements compute the same thing (no time is measured)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "ix_survey.py"
    spec = importlib.util.spec_from_file_location("ix_survey", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    nss = mod.namespaces(100, "float64")
    for name, (np_stmt, st_stmt, _) in mod.CASES.items():
        if "=" in st_stmt.replace("==", ""):
            exec(st_stmt, nss[1])
            exec(np_stmt, nss[0])
            np.testing.assert_array_equal(np.asarray(nss[1]["a"]), nss[0]["a"], err_msg=name)
            continue
        got = eval(st_stmt, nss[1])
        want = eval(np_stmt, nss[0])
        if isinstance(want, tuple) or name in ("meshgrid", "unique_counts", "unique_values", "tile"):
            continue
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=name)


# --- repeat, count_nonzero, astype's range check ---------------------------------------------

@settings(max_examples=60, deadline=None)
@given(layout=_layouts(min_ndim=0), k=hs.integers(0, 3), data=hs.data())
def test_repeat_matches_numpy_and_the_broadcast_copy(layout, k, data):
    a, x = layout
    axis = data.draw(hs.none() | (hs.integers(-a.ndim, a.ndim - 1) if a.ndim else hs.none()))
    got = st.repeat(x, k, axis=axis)
    want = np.repeat(a, k, axis=axis)
    assert got.dtype == x.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
    assert np.asarray(got).flags.c_contiguous and got.storage() is not x.storage()
    # the general path: the broadcast view copied (what large results still take)
    ax = None if axis is None else axis % a.ndim
    src = st.reshape(x, (-1,)) if ax is None else x
    ax = 0 if ax is None else ax
    v = st.broadcast_to(st.expand_dims(src, axis=ax + 1),
                        src.shape[:ax + 1] + (k,) + src.shape[ax + 1:])
    assert np.asarray(st.reshape(_views.clone(v), want.shape)).tobytes() == np.asarray(got).tobytes()


def test_repeat_gradient_and_errors_are_as_before():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(2).standard_normal((2, 3))
    x = st.asarray(a, device="cpu", requires_grad=True)
    st.sum(st.repeat(x, 3, axis=1) ** 2).backward()
    tx = torch.tensor(a, requires_grad=True)
    (torch.repeat_interleave(tx, 3, 1) ** 2).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), tx.grad.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="repeats must be non-negative; got -1"):
        st.repeat(st.asarray(a, device="cpu"), -1)
    with pytest.raises(TypeError, match="got bool"):
        st.repeat(st.asarray(a, device="cpu"), True)


@settings(max_examples=40, deadline=None)
@given(layout=_layouts(min_ndim=0))
def test_count_nonzero_of_all_elements_matches_numpy(layout):
    a, x = layout
    got = st.count_nonzero(x)
    assert got.dtype == st.int64 and got.shape == ()
    assert int(got) == np.count_nonzero(a)
    kept = st.count_nonzero(x, keepdims=True)  # (the general path)
    assert int(st.reshape(kept, (-1,))[0]) == int(got)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "uint64", "int64"])
def test_astype_warns_for_every_value_outside_the_integer_range(dtype):
    info = np.iinfo(dtype)
    for vals, bad in (([1.5, -0.5], False), ([float(info.max) * 2 + 1e3], True),
                      ([float(info.min) * 1.5 - 1e3], True), ([np.nan], True),
                      ([np.inf, 1.0], True), ([], False)):
        x = st.asarray(np.array(vals, dtype=np.float64), device="cpu")
        with pytest.warns(RuntimeWarning, match="invalid value") if bad else _no_warning():
            r = st.astype(x, getattr(st, dtype))
        assert r.dtype == getattr(st, dtype) and r.shape == x.shape
        if not bad:
            np.testing.assert_array_equal(np.asarray(r), np.array(vals).astype(dtype))


class _no_warning:
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        self._w.__exit__(*exc)
        return False
