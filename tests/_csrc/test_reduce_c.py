"""Reductions in C (``_ckernels.reduce`` through strided/_core/cfast.py and _threads.py).

Sums, means, max/min and var/std of float32/float64 arrays over all axes or a
run of adjacent axes run in C when the input is C-contiguous; everything else
goes to NumPy. Compared with NumPy on many shapes, axes and layouts: max/min
bit for bit (NaN propagation and the sign of a zero included), sums within the
pairwise error bound and NumPy's bits where the order matters (the kernels run
NumPy's summation order; tests/reliability/test_differential_reductions.py
compares every bit with the Python path), var/std within theirs; the same bits
on 1 to 4 threads. Everything here also runs with STRIDED_NO_CEXT=1 (NumPy serves);
the tests of the C function itself skip there.
"""

from __future__ import annotations

import math

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided._core import cfast as _cfast

from conftest import bits, cpu, host
from _specials import put_special

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

C = _cfast._ckernels if _cfast.AVAILABLE else None
needs_c = pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")


@pytest.fixture(autouse=True)
def _restore_threads():
    nt, tthr = st.get_num_threads(), st.get_thread_threshold()
    cfg = C.pool_config() if C is not None else None
    yield
    st.set_num_threads(nt)
    st.set_thread_threshold(tthr)
    if C is not None:
        C.pool_config(cfg[0], cfg[1])


# --- inputs -----------------------------------------------------------------------------

DIMS = [1, 2, 3, 5, 7, 8, 9, 16, 17, 31, 33, 64, 65, 130]


@hs.composite
def arrays(draw, max_size=6000):
    nd = draw(hs.integers(1, 4))
    shape = tuple(draw(hs.sampled_from(DIMS)) for _ in range(nd))
    while math.prod(shape) > max_size:
        shape = shape[1:] if len(shape) > 1 else (shape[0] // 2,)
    dtype = draw(hs.sampled_from(["float32", "float64"]))
    rng = np.random.default_rng(draw(hs.integers(0, 2**16)))
    a = rng.standard_normal(shape).astype(dtype)
    special = draw(hs.sampled_from([None, None, "nan", "negnan", "zeros", "negzeros", "inf", "allneg"]))
    mask = rng.random(shape) < draw(hs.sampled_from([0.001, 0.05, 0.5]))
    a = put_special(draw, a, special, mask)
    layout = draw(hs.sampled_from(["c", "c", "c", "t", "step", "neg", "f"]))
    if layout == "t":
        a = a.T
    elif layout == "step":
        a = a[..., ::2] if a.shape[-1] > 1 else a
    elif layout == "neg":
        a = a[::-1]
    elif layout == "f":
        a = np.asfortranarray(a)
    nd = a.ndim
    kind = draw(hs.sampled_from(["none", "int", "neg", "run", "any"]))
    if kind == "none":
        axis = None
    elif kind == "int":
        axis = draw(hs.integers(0, nd - 1))
    elif kind == "neg":
        axis = draw(hs.integers(-nd, -1))
    elif kind == "run":
        p = draw(hs.integers(0, nd - 1))
        q = draw(hs.integers(p + 1, nd))
        axis = tuple(range(p, q))
    else:
        axis = tuple(sorted(set(draw(hs.lists(hs.integers(0, nd - 1), min_size=1, max_size=nd)))))
    return a, axis, draw(hs.booleans())


def _abs_bound(a, axis, keepdims=False):
    """A pairwise-summation error bound for sum(a, axis): 64 eps * sum|a| (plus a tiny floor)."""
    eps = np.finfo(a.dtype).eps
    return 64 * eps * np.sum(np.abs(a.astype(np.float64)), axis=axis, keepdims=keepdims) + 1e-30


def _close(got, want, bound):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    both_nan = np.isnan(got) & np.isnan(want)
    same_inf = np.isinf(want) & (got == want)
    with np.errstate(all="ignore"):  # inf - inf where the first two tests answer
        ok = both_nan | same_inf | (np.abs(got - want) <= bound)
    return bool(np.all(ok))


# --- values against NumPy ---------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(case=arrays())
def test_max_min_are_numpys_bit_for_bit(case):
    a, axis, keepdims = case
    if a.size == 0:
        return
    for sf, nf in ((st.max, np.max), (st.min, np.min)):
        got = host(sf(cpu(a), axis=axis, keepdims=keepdims))
        want = np.asarray(nf(a, axis=axis, keepdims=keepdims))
        assert got.shape == want.shape and got.dtype == want.dtype, (a.shape, a.dtype, axis)
        np.testing.assert_array_equal(bits(got), bits(want),
                                      err_msg=f"{nf.__name__} of {a.dtype} {a.shape} axis={axis}")


@settings(max_examples=300, deadline=None)
@given(case=arrays())
def test_sum_and_mean_match_numpy_within_the_pairwise_bound(case):
    a, axis, keepdims = case
    got = host(st.sum(cpu(a), axis=axis, keepdims=keepdims))
    want = np.sum(a, axis=axis, keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == want.dtype, (a.shape, a.dtype, axis)
    assert _close(got, want, _abs_bound(a, axis, keepdims)), (a.dtype, a.shape, axis)
    if a.size:
        n = a.size // max(want.size, 1)
        got = host(st.mean(cpu(a), axis=axis))
        want = np.mean(a, axis=axis)
        assert got.dtype == want.dtype
        assert _close(got, want, _abs_bound(a, axis) / n + 2 * np.finfo(a.dtype).eps * np.abs(want)), \
            (a.dtype, a.shape, axis)


@settings(max_examples=200, deadline=None)
@given(case=arrays(), correction=hs.sampled_from([0, 1]))
def test_var_and_std_match_numpy(case, correction):
    a, axis, keepdims = case
    if a.size == 0 or not np.all(np.isfinite(a)):
        return
    got = host(st.var(cpu(a), axis=axis, correction=correction, keepdims=keepdims))
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Degrees of freedom <= 0"
        want = np.var(a, axis=axis, ddof=correction, keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == want.dtype
    # the standard's NaN where NumPy divides by zero
    want = np.where(np.isinf(want), np.nan, want)
    scale = np.var(a.astype(np.float64), axis=axis, keepdims=keepdims) + np.mean(
        np.abs(a.astype(np.float64)), axis=axis, keepdims=keepdims) ** 2
    tol = 200 * np.finfo(a.dtype).eps * scale + 1e-30
    assert _close(got, want, tol), (a.dtype, a.shape, axis, correction)
    got = host(st.std(cpu(a), axis=axis, correction=correction, keepdims=keepdims))
    assert _close(got ** 2, want, 2 * tol), (a.dtype, a.shape, axis, correction)


# --- threads ---------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(case=arrays(max_size=20000), nt=hs.integers(2, 4))
def test_threads_give_the_one_thread_bits(case, nt):
    a, axis, keepdims = case
    if a.size == 0:
        return
    a = np.ascontiguousarray(a)
    funcs = [st.sum, st.max, st.min, st.mean, st.var]
    st.set_num_threads(1)
    one = [host(f(cpu(a), axis=axis)) for f in funcs]
    st.set_num_threads(nt)
    st.set_thread_threshold(64)
    if C is not None:
        C.pool_config(-1, 64)  # many small chunks
    many = [host(f(cpu(a), axis=axis)) for f in funcs]
    for f, x, y in zip(funcs, one, many):
        if _in_c(a, axis) or f in (st.max, st.min):
            np.testing.assert_array_equal(bits(y), bits(x), err_msg=f"{f.__name__} {a.shape} axis={axis}")
        else:  # the Python pool may regroup a split sum: within the bound
            assert _close(y, x, _abs_bound(a, axis) + 1e-12 * np.abs(x)), (f.__name__, a.shape, axis)


def _in_c(a, axis):
    """Whether the C kernel takes this reduction (C-contiguous, adjacent axes, a whole
    vector of columns or none)."""
    if C is None or not a.flags.c_contiguous:
        return False
    nd = a.ndim
    axes = None if axis is None else tuple(sorted(ax % nd for ax in ((axis,) if type(axis) is int else axis)))
    lay = _cfast.layout(a, axes)
    return lay is not None and (lay[3] == 1 or lay[3] >= 32 // a.itemsize)


# --- accuracy ---------------------------------------------------------------------------

def _ulp(dtype, x):
    return float(np.spacing(np.asarray(abs(x), dtype)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_one_large_value_then_many_small_no_worse_than_numpy(dtype, axis):
    # Many small values after one large: a sequential sum loses them all; pairwise
    # sums keep them. Column sums (axis 0) are pairwise over the rows here, where
    # NumPy adds the rows one after another.
    shape = (4000, 64)
    x = np.full(shape, 1e-3 if dtype == np.float32 else 1e-9, dtype)
    x[0, :] = 1e4
    x[:, 7] = np.linspace(0, 1, shape[0]).astype(dtype)
    ref = np.sum(x.astype(np.longdouble), axis=axis)
    ours = host(st.sum(cpu(x), axis=axis)).astype(np.longdouble)
    theirs = np.sum(x, axis=axis).astype(np.longdouble)
    err_ours, err_theirs = np.abs(ours - ref), np.abs(theirs - ref)
    ulp = np.vectorize(lambda v: _ulp(dtype, float(v)))(ref)
    assert np.all(err_ours <= err_theirs + 2 * ulp), (axis, float(np.max(err_ours)), float(np.max(err_theirs)))
    exact = math.fsum(x.astype(np.float64).ravel().tolist())
    if axis is None:
        assert abs(float(ours) - exact) <= 2 * _ulp(dtype, exact)


@needs_c
def test_column_sums_add_the_rows_in_order_as_numpy():
    # 0.1 added 2**17 times in one float32 column: the sum depends on the order (it
    # drifts by ~1e-3 relative in sequence). NumPy adds the rows one after another, and
    # so must the C kernel (a fast path changes no value): cumsum's last row is that
    # sequence, computed another way.
    x = np.full((1 << 17, 16), 0.1, np.float32)
    got = host(st.sum(cpu(x), axis=0))
    assert np.array_equal(bits(got), bits(np.add.reduce(x, axis=0)))
    assert np.array_equal(bits(got), bits(np.cumsum(x, axis=0)[-1]))


def test_whole_sums_are_numpys_bits():
    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float64):
        for n in (129, 511, 512, 513, 4097, 100_003, 1 << 20):
            x = rng.standard_normal(n).astype(dtype)
            got = host(st.sum(cpu(x)))
            assert np.array_equal(bits(got), bits(np.add.reduce(x))), (dtype, n)


# --- the C function itself ---------------------------------------------------------------

@needs_c
def test_reduce_declines_what_it_does_not_take():
    f4 = np.ones(64, np.float32)
    out = np.empty(8, np.float32)
    assert C.reduce(0, f4, out, 8, 8, 1, 1) is True
    np.testing.assert_array_equal(out, 8.0)
    assert C.reduce(0, f4[::2], out[:4], 4, 8, 1, 1) is False  # not contiguous
    assert C.reduce(0, f4.astype(">f4"), out, 8, 8, 1, 1) is False  # byte-swapped
    assert C.reduce(0, f4.astype(np.int32), out.astype(np.int32), 8, 8, 1, 1) is False
    assert C.reduce(0, f4, out.astype(np.float64), 8, 8, 1, 1) is False  # mixed types
    assert C.reduce(0, f4, out, 8, 9, 1, 1) is False  # sizes that don't fit
    assert C.reduce(0, f4, out, 4, 8, 1, 1) is False
    assert C.reduce(0, f4, out[:2], 2, 2, 16, 1) is False
    assert C.reduce(0, f4, np.empty(32, np.float32), 1, 2, 32, 1) is True
    assert C.reduce(0, f4, np.empty(16, np.float32), 1, 4, 16, 1) is True
    assert C.reduce(0, f4, np.empty(4, np.float32), 1, 16, 4, 1) is False  # 1 < inner < 8 lanes
    assert C.reduce(0, f4, out, 2**62, 2**62, 8, 1) is False  # overflowing sizes
    assert C.reduce(0, f4, out, 0, 8, 8, 1) is False
    assert C.reduce(0, f4, out, -1, -8, 8, 1) is False
    assert C.reduce(0, np.ones(0, np.float32), np.empty(0, np.float32), 1, 0, 1, 1) is False
    big = np.ones(128, np.float32)
    assert C.reduce(0, big, big[:8], 8, 16, 1, 1) is False  # out overlaps src
    ro = np.ones(8, np.float32)
    ro.flags.writeable = False
    assert C.reduce(0, f4, ro, 8, 8, 1, 1) is False
    unaligned = np.frombuffer(np.zeros(65 * 4 + 1, np.uint8)[1:].tobytes(), np.float32)
    assert C.reduce(0, np.ones(64, np.float32).view(np.uint8)[1:].view(np.uint8), out, 8, 8, 1, 1) is False
    assert C.reduce(1, unaligned[:64], np.empty(1, np.float32), 1, 64, 1, 1) is True
    with pytest.raises(ValueError, match="op must be"):
        C.reduce(7, f4, out, 8, 8, 1, 1)
    with pytest.raises(TypeError, match="7 or 8 arguments"):
        C.reduce(0, f4, out)
    with pytest.raises(TypeError, match="op 3"):
        C.reduce(3, f4, out, 8, 8, 1, 1)
    with pytest.raises(TypeError, match="op 3"):
        C.reduce(0, f4, out, 8, 8, 1, 1, out)
    assert C.reduce(3, f4, out, 8, 8, 1, 1, np.ones(7, np.float32)) is False  # means don't fit
    assert C.reduce(3, f4, out, 8, 8, 1, 1, np.ones(8, np.float64)) is False
    assert C.reduce(3, f4, out, 8, 8, 1, 1, np.ones(8, np.float32)) is True
    np.testing.assert_array_equal(out, 0.0)


@needs_c
def test_reduce_on_unaligned_and_odd_sizes_matches_numpy():
    rng = np.random.default_rng(8)
    for dtype in (np.float32, np.float64):
        raw = np.zeros(3 * 1000 * 37 * np.dtype(dtype).itemsize + 1, np.uint8)
        a = np.frombuffer(raw.data, dtype, offset=1, count=3 * 1000 * 37).reshape(3, 1000, 37).copy()
        a[...] = rng.standard_normal(a.shape)
        buf = np.frombuffer(bytearray(a.nbytes + 1), np.uint8)[1:]
        u = buf.view(dtype).reshape(a.shape)  # an unaligned view
        u[...] = a
        for op, f in ((0, np.add.reduce), (1, np.max), (2, np.min)):
            out = np.empty((3, 37), dtype)
            assert C.reduce(op, u, out, 3, 1000, 37, 2)
            want = f(a, axis=1)
            if op:
                np.testing.assert_array_equal(out, want)
            else:
                np.testing.assert_allclose(out, want, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-3)


@needs_c
def test_extremum_all_and_sum_all_keep_their_contracts():
    a = np.arange(1000, dtype=np.float64) - 500
    assert C.extremum_all(a, True, 2) == 499.0 and C.extremum_all(a, False, 1) == -500.0
    a[17] = np.nan
    assert math.isnan(C.extremum_all(a, True, 2))
    z = np.zeros(1000, np.float32)
    z[::3] = -0.0
    assert C.extremum_all(z, True, 2) is None  # zeros of both signs: NumPy's order decides
    assert C.extremum_all(-np.abs(z), True, 2) is not None
    x = np.random.default_rng(1).standard_normal(100_000).astype(np.float32)
    out = np.empty((), np.float32)
    C.sum_rows(x, out, x.size)
    assert all(C.sum_all(x, nt) == float(out) for nt in (1, 2, 3, 4))
