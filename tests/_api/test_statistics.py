"""Statistical functions against NumPy: values, the standard's dtype rules,
empty and 0-d inputs, strided layouts, ``out=`` and every error path."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp

from conftest import assert_same, to_np


def layouts(ref: np.ndarray):
    """(name, strided view, NumPy view) for contiguous, transposed, negative-stride and stepped views."""
    x = xp.asarray(ref.copy())
    yield "contiguous", x, ref
    nd = ref.ndim
    if nd >= 2:
        perm = tuple(reversed(range(nd)))
        yield "transposed", xp.permute_dims(x, perm), ref.transpose(perm)
    if nd >= 1:
        yield "flipped", xp.flip(x, axis=0), np.flip(ref, 0)
        yield "stepped", x[::2], ref[::2]
        yield "reversed-stepped", x[::-2], ref[::-2]


def base(shape=(4, 3, 5), dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 7, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


AXES = [None, 0, -1, (0, 2), (), (2, 0, 1)]

# The standard's accumulation dtype of sum/prod with dtype=None.
ACC = {
    np.bool_: np.int64, np.int8: np.int64, np.int16: np.int64, np.int32: np.int64,
    np.int64: np.int64, np.uint8: np.uint64, np.uint16: np.uint64, np.uint32: np.uint64,
    np.uint64: np.uint64, np.float16: np.float16, np.float32: np.float32,
    np.float64: np.float64, np.complex64: np.complex64, np.complex128: np.complex128,
}


# --- sum and prod ------------------------------------------------------------------

@pytest.mark.parametrize("func", ["sum", "prod"])
@pytest.mark.parametrize("dtype", list(ACC), ids=lambda d: np.dtype(d).name)
def test_sum_prod_default_dtype_and_values(func, dtype):
    ref = base((3, 4), dtype)
    r = getattr(xp, func)(xp.asarray(ref))
    expected = getattr(np, func)(ref, dtype=ACC[dtype])
    assert r.dtype._np == np.dtype(ACC[dtype])
    assert r.shape == ()
    np.testing.assert_allclose(to_np(r), expected, rtol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("func", ["sum", "prod"])
@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_prod_axes_and_layouts(func, axis, keepdims):
    for name, x, ref in layouts(base((4, 3, 5), np.float64)):
        r = getattr(xp, func)(x, axis=axis, keepdims=keepdims)
        expected = getattr(np, func)(ref, axis=axis, keepdims=keepdims)
        assert r.shape == expected.shape, name
        np.testing.assert_allclose(to_np(r), expected, rtol=1e-12, err_msg=name)


def test_sum_integers_exact_on_strided_views():
    for name, x, ref in layouts(base((6, 5), np.int32)):
        assert_same(xp.sum(x, axis=0), np.sum(ref, axis=0, dtype=np.int64))
        assert_same(xp.prod(x, axis=1, keepdims=True), np.prod(ref, axis=1, dtype=np.int64, keepdims=True))


@pytest.mark.parametrize("func", ["sum", "prod"])
def test_sum_prod_dtype_keyword(func):
    ref = np.array([100, 100, 3], dtype=np.int8)
    r = getattr(xp, func)(xp.asarray(ref), dtype=xp.int16)
    assert_same(r, getattr(np, func)(ref, dtype=np.int16))
    r = getattr(xp, func)(xp.asarray(ref), dtype=xp.float64)
    assert_same(r, getattr(np, func)(ref, dtype=np.float64))
    # float32 stays float32 (2023.12 rule), no promotion to float64
    assert getattr(xp, func)(xp.ones(3, dtype=xp.float32)).dtype == xp.float32


@pytest.mark.parametrize("func", ["sum", "prod", "cumulative_sum", "cumulative_prod"])
def test_complex_cannot_accumulate_in_real(func):
    x = xp.asarray(np.array([1 + 1j, 2], dtype=np.complex64))
    with pytest.raises(TypeError, match=func):
        getattr(xp, func)(x, dtype=xp.float32)


def test_sum_prod_empty():
    x = xp.asarray(np.zeros((0, 3), dtype=np.float32))
    assert_same(xp.sum(x), np.float32(0).reshape(()))
    assert_same(xp.prod(x), np.float32(1).reshape(()))
    assert_same(xp.sum(x, axis=0), np.zeros(3, np.float32))
    assert_same(xp.prod(x, axis=1), np.ones(0, np.float32))
    assert_same(xp.sum(xp.asarray(np.zeros(0, dtype=np.int8))), np.int64(0).reshape(()))


def test_sum_0d_and_axis_0_on_0d():
    x = xp.asarray(np.float64(2.5))
    assert_same(xp.sum(x), np.array(2.5))
    # Note: like PyTorch, axis 0 or -1 is accepted on a 0-d array.
    assert_same(xp.sum(x, axis=0), np.array(2.5))
    assert_same(xp.prod(x, axis=(-1,), keepdims=True), np.array(2.5))
    assert_same(xp.max(x, axis=-1), np.array(2.5))
    assert_same(xp.cumulative_sum(x, axis=-1), np.array(2.5))
    with pytest.raises(IndexError, match="out of bounds"):
        xp.sum(x, axis=1)


def test_sum_special_values_follow_add():
    ref = np.array([np.inf, -np.inf, 1.0])
    assert math.isnan(xp.sum(xp.asarray(ref)).item())
    assert xp.prod(xp.asarray(np.array([np.inf, -2.0]))).item() == -np.inf


def test_sum_large_float32_is_pairwise_accurate():
    ref = np.full(10_000_000, 0.1, dtype=np.float32)
    r = xp.sum(xp.asarray(ref)).item()
    exact = 10_000_000 * float(np.float32(0.1))  # a naive float32 loop stops at 2**21
    assert r == pytest.approx(exact, rel=1e-5)
    assert abs(r - exact) <= abs(np.sum(ref).item() - exact)  # no worse than NumPy's pairwise sum


# --- max and min ---------------------------------------------------------------------

@pytest.mark.parametrize("func", ["max", "min"])
@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_max_min_values(func, axis, keepdims):
    for dtype in (np.float32, np.int16, np.uint8, np.bool_):
        for name, x, ref in layouts(base((4, 3, 5), dtype)):
            r = getattr(xp, func)(x, axis=axis, keepdims=keepdims)
            assert_same(r, np.asarray(getattr(np, func)(ref, axis=axis, keepdims=keepdims)))


@pytest.mark.parametrize("func", ["max", "min"])
def test_max_min_nan_propagates(func):
    ref = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]])
    r = to_np(getattr(xp, func)(xp.asarray(ref), axis=1))
    assert np.isnan(r[0]) and r[1] == (3.0 if func == "max" else 1.0)


@pytest.mark.parametrize("func", ["max", "min"])
def test_max_min_empty(func):
    x = xp.asarray(np.zeros((0, 3)))
    with pytest.raises(ValueError, match=f"{func}.*no elements"):
        getattr(xp, func)(x)
    with pytest.raises(ValueError, match="no elements"):
        getattr(xp, func)(x, axis=0)
    # reducing a non-empty axis of an empty array is fine: the result is empty
    assert_same(getattr(xp, func)(x, axis=1), np.zeros(0))


@pytest.mark.parametrize("func", ["max", "min"])
def test_max_min_reject_complex(func):
    with pytest.raises(TypeError, match="real-valued"):
        getattr(xp, func)(xp.asarray(np.ones(2, np.complex64)))


# --- mean, var, std ---------------------------------------------------------------------

@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_mean_values(axis, keepdims):
    for dtype in (np.float32, np.float64, np.complex128):
        for name, x, ref in layouts(base((4, 3, 5), dtype)):
            r = xp.mean(x, axis=axis, keepdims=keepdims)
            expected = np.mean(ref, axis=axis, keepdims=keepdims)
            assert r.dtype._np == ref.dtype and r.shape == expected.shape
            np.testing.assert_allclose(to_np(r), expected, rtol=1e-5, err_msg=name)


def test_mean_integers_give_default_float(default_float64):
    ref = np.array([1, 2, 4], dtype=np.int32)
    assert_same(xp.mean(xp.asarray(ref)), np.array(7 / 3))


def test_mean_integers_give_float32_by_default():
    r = xp.mean(xp.asarray(np.array([1, 2], dtype=np.uint8)))
    assert_same(r, np.array(1.5, dtype=np.float32))


def test_mean_float16_accumulates_in_float32():
    ref = np.full(4096, 60.0, dtype=np.float16)  # the float16 sum overflows
    assert_same(xp.mean(xp.asarray(ref)), np.array(60.0, dtype=np.float16))


def test_mean_empty_is_nan():
    r = xp.mean(xp.asarray(np.zeros((0, 2), np.float32)), axis=0)
    assert r.dtype == xp.float32 and np.isnan(to_np(r)).all() and r.shape == (2,)
    c = xp.mean(xp.asarray(np.zeros(0, np.complex64))).item()
    assert math.isnan(c.real) and math.isnan(c.imag)


def test_mean_rejects_bool():
    with pytest.raises(TypeError, match="mean"):
        xp.mean(xp.asarray([True, False]))


@pytest.mark.parametrize("func", ["var", "std"])
@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("correction", [0, 1, 1.5])
def test_var_std_values(func, axis, correction):
    for name, x, ref in layouts(base((4, 3, 5), np.float64)):
        r = getattr(xp, func)(x, axis=axis, correction=correction, keepdims=True)
        n = ref.size if axis is None else np.prod([ref.shape[a] for a in np.atleast_1d(axis)]).astype(int)
        if n - correction <= 0:
            assert np.isnan(to_np(r)).all()
            continue
        expected = getattr(np, func)(ref, axis=axis, ddof=correction, keepdims=True)
        np.testing.assert_allclose(to_np(r), expected, rtol=1e-10, err_msg=name)


@pytest.mark.parametrize("func", ["var", "std"])
def test_var_std_nan_when_correction_too_large(func):
    x = xp.asarray(np.arange(6.0).reshape(2, 3))
    r = getattr(xp, func)(x, axis=1, correction=3)
    assert np.isnan(to_np(r)).all()
    r = getattr(xp, func)(x, axis=0, correction=1)
    np.testing.assert_allclose(to_np(r), getattr(np, func)(np.arange(6.0).reshape(2, 3), axis=0, ddof=1))


@pytest.mark.parametrize("func", ["var", "std"])
def test_var_std_dtypes(func):
    assert getattr(xp, func)(xp.ones(3, dtype=xp.float32)).dtype == xp.float32
    assert getattr(xp, func)(xp.ones(3, dtype=xp.int64)).dtype == xp.float32
    ref = np.array([1 + 1j, 2 - 1j, 0.5j], dtype=np.complex128)
    r = getattr(xp, func)(xp.asarray(ref))
    assert_same(r, np.asarray(getattr(np, func)(ref)))  # complex input, real result
    ref16 = np.array([1, 2, 3, 4], dtype=np.float16)
    assert getattr(xp, func)(xp.asarray(ref16)).dtype == xp.float16


@pytest.mark.parametrize("func", ["var", "std"])
def test_var_std_errors(func):
    x = xp.ones(3)
    with pytest.raises(TypeError, match="correction"):
        getattr(xp, func)(x, correction="1")
    with pytest.raises(TypeError, match="correction"):
        getattr(xp, func)(x, correction=True)
    with pytest.raises(TypeError, match=func):
        getattr(xp, func)(xp.asarray([True]))


def test_var_nan_propagates():
    r = xp.var(xp.asarray(np.array([1.0, np.nan, 2.0])))
    assert math.isnan(r.item())


# --- cumulative_sum / cumulative_prod ----------------------------------------------------

@pytest.mark.parametrize("func,ref_func", [("cumulative_sum", np.cumsum), ("cumulative_prod", np.cumprod)])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_values(func, ref_func, axis, include_initial):
    for name, x, ref in layouts(base((4, 5), np.int32)):
        r = getattr(xp, func)(x, axis=axis, include_initial=include_initial)
        expected = ref_func(ref, axis=axis, dtype=np.int64)
        if include_initial:
            ident = np.full_like(np.take(expected, [0], axis=axis), 0 if func == "cumulative_sum" else 1)
            expected = np.concatenate([ident, expected], axis=axis)
        assert_same(r, expected)


@pytest.mark.parametrize("func", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_dtypes(func):
    assert getattr(xp, func)(xp.ones(3, dtype=xp.uint16)).dtype == xp.uint64
    assert getattr(xp, func)(xp.ones(3, dtype=xp.int8)).dtype == xp.int64
    assert getattr(xp, func)(xp.ones(3, dtype=xp.float32)).dtype == xp.float32
    assert getattr(xp, func)(xp.ones(3, dtype=xp.int64), dtype=xp.float64).dtype == xp.float64
    assert getattr(xp, func)(xp.asarray([True, True])).dtype == xp.int64


def test_cumulative_sum_1d_axis_optional_and_empty():
    assert_same(xp.cumulative_sum(xp.asarray([1.0, 2.0, 3.0])), np.array([1.0, 3.0, 6.0], np.float32))
    assert_same(xp.cumulative_sum(xp.asarray(np.zeros(0)), include_initial=True), np.zeros(1))
    assert_same(xp.cumulative_prod(xp.asarray(np.zeros((2, 0))), axis=1, include_initial=True),
                np.ones((2, 1)))


def test_cumulative_special_values_follow_add():
    r = to_np(xp.cumulative_sum(xp.asarray(np.array([1.0, np.inf, -np.inf, 2.0]))))
    np.testing.assert_array_equal(r, [1.0, np.inf, np.nan, np.nan])


def test_cumulative_0d():
    x = xp.asarray(np.float64(3.0))
    assert_same(xp.cumulative_sum(x), np.array(3.0))
    with pytest.raises(ValueError, match="include_initial"):
        xp.cumulative_prod(x, include_initial=True)


@pytest.mark.parametrize("func", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_errors(func):
    x = xp.ones((2, 3))
    with pytest.raises(ValueError, match="axis is required"):
        getattr(xp, func)(x)
    with pytest.raises(IndexError, match="out of bounds"):
        getattr(xp, func)(x, axis=2)
    with pytest.raises(TypeError, match="axis must be an int"):
        getattr(xp, func)(x, axis=(0,))
    with pytest.raises(TypeError, match="strided array"):
        getattr(xp, func)(np.ones(3))


# --- out= -------------------------------------------------------------------------------

def test_out_writes_through_a_noncontiguous_view():
    ref = base((4, 3), np.float64)
    target = xp.zeros((3, 6), dtype=xp.float64)
    view = target[:, ::2]  # noncontiguous
    r = xp.sum(xp.asarray(ref), axis=0, keepdims=False, out=view[:, 0])
    assert r is not None
    np.testing.assert_allclose(to_np(target)[:, 0], ref.sum(axis=0))
    np.testing.assert_array_equal(to_np(target)[:, 1:], 0)


@pytest.mark.parametrize("call", [
    lambda x, out: xp.sum(x, axis=1, out=out),
    lambda x, out: xp.prod(x, axis=1, out=out),
    lambda x, out: xp.max(x, axis=1, out=out),
    lambda x, out: xp.min(x, axis=1, out=out),
    lambda x, out: xp.mean(x, axis=1, out=out),
    lambda x, out: xp.var(x, axis=1, out=out),
    lambda x, out: xp.std(x, axis=1, out=out),
])
def test_out_returns_out_and_checks_it(call):
    ref = base((2, 3), np.float32)
    x = xp.asarray(ref)
    out = xp.empty(2, dtype=xp.float32)
    assert call(x, out) is out
    expected = to_np(call(x, None))
    np.testing.assert_array_equal(to_np(out), expected)
    with pytest.raises(ValueError, match="shape"):
        call(x, xp.empty(3, dtype=xp.float32))
    with pytest.raises(TypeError, match="cast"):
        call(x, xp.empty(2, dtype=xp.int32))


def test_cumulative_out():
    out = xp.empty(4, dtype=xp.int64)
    assert xp.cumulative_sum(xp.asarray([1, 2, 3]), include_initial=True, out=out) is out
    assert out.tolist() == [0, 1, 3, 6]


# --- axis and argument errors --------------------------------------------------------------

@pytest.mark.parametrize("func", ["sum", "prod", "max", "min", "mean", "var", "std"])
def test_axis_errors(func):
    x = xp.ones((2, 3))
    f = getattr(xp, func)
    with pytest.raises(IndexError, match=f"{func}.*out of bounds"):
        f(x, axis=2)
    with pytest.raises(IndexError, match="out of bounds"):
        f(x, axis=(0, -3))
    with pytest.raises(ValueError, match="repeated axis"):
        f(x, axis=(1, -1))
    with pytest.raises(TypeError, match="axis must be an int"):
        f(x, axis=1.0)
    with pytest.raises(TypeError, match="strided array"):
        f([1.0, 2.0])


# --- property tests -------------------------------------------------------------------------

@st.composite
def array_and_axes(draw, dtype):
    ref = draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
                          elements=st.integers(-20, 20) if np.dtype(dtype).kind == "i"
                          else st.floats(-100, 100, width=64)))
    axes = draw(st.none() | st.lists(st.integers(0, max(ref.ndim - 1, 0)), unique=True).map(tuple)
                if ref.ndim else st.none())
    flip = draw(st.booleans()) and ref.ndim > 0
    return ref, axes, flip, draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(array_and_axes(np.float64))
def test_float_reductions_match_numpy(case):
    ref, axes, flip, keepdims = case
    x = xp.asarray(ref.copy())
    if flip:
        x, ref = xp.flip(x, axis=0), np.flip(ref, 0)
    kw = dict(axis=axes, keepdims=keepdims)
    np.testing.assert_allclose(to_np(xp.sum(x, **kw)), np.sum(ref, **kw), rtol=1e-12, atol=1e-9)
    with np.errstate(all="ignore"):  # the reference may overflow to inf (41.0 ** 256), as strided does
        want = np.prod(ref, **kw)
    np.testing.assert_allclose(to_np(xp.prod(x, **kw)), want, rtol=1e-12)
    n = ref.size if axes is None else math.prod(ref.shape[a] for a in axes)
    if n:
        assert_same(xp.max(x, **kw), np.asarray(np.max(ref, **kw)))
        assert_same(xp.min(x, **kw), np.asarray(np.min(ref, **kw)))
        np.testing.assert_allclose(to_np(xp.mean(x, **kw)), np.mean(ref, **kw), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(to_np(xp.var(x, **kw)), np.var(ref, **kw), rtol=1e-9, atol=1e-9)
    if n > 1:
        np.testing.assert_allclose(to_np(xp.std(x, correction=1, **kw)),
                                   np.std(ref, ddof=1, **kw), rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(array_and_axes(np.int16))
def test_integer_reductions_match_numpy(case):
    ref, axes, flip, keepdims = case
    x = xp.asarray(ref.copy())
    if flip:
        x, ref = xp.flip(x, axis=0), np.flip(ref, 0)
    kw = dict(axis=axes, keepdims=keepdims)
    assert_same(xp.sum(x, **kw), np.asarray(np.sum(ref, dtype=np.int64, **kw)))
    assert_same(xp.prod(x, **kw), np.asarray(np.prod(ref, dtype=np.int64, **kw)))
    if ref.ndim:
        ax = axes[0] if axes else 0
        assert_same(xp.cumulative_sum(x, axis=ax), np.cumsum(ref, axis=ax, dtype=np.int64))


# --- docstring examples ----------------------------------------------------------------------

@pytest.mark.parametrize("module", ["strided._api.statistics", "strided._api.sorting", "strided._api.sets",
                                    "strided._api.utility", "strided._api.data_type_functions"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    mod = importlib.import_module(module)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    ran = 0
    for name in mod.__all__:
        doc = getattr(mod, name).__doc__ or ""
        test = parser.get_doctest(doc, {}, f"{module}.{name}", module, 0)
        assert test.examples, f"{module}.{name} has no example"
        ran += len(test.examples)
        runner.run(test)
    assert ran and runner.failures == 0


def test_sum_of_a_0d_array_with_keepdims_is_an_array(device):
    # the small-array fast path reduced a 0-d input to a NumPy scalar when keepdims=True
    for axis in (None, 0, -1):
        r = xp.sum(xp.asarray(2.5, device=device), axis=axis, keepdims=True)
        assert r.shape == () and np.asarray(r.to_device("cpu")).tolist() == 2.5
