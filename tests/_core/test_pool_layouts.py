"""Large results of permuted (transposed, ``moveaxis``) inputs: pooled buffers in the
inputs' own axis order, as NumPy lays them out ("K" order), and copies that keep it.

SciPy's ``stats`` functions move the reduced axis last before computing, so their
multi-MB temporaries are transposed arrays: these must come from the buffer pool
(not NumPy's allocator, whose fresh buffers fault in on every call) and be laid
out as NumPy would, so that the next operation on them reads memory in order.
The pool threshold is lowered so that small arrays take the large-array path.
Values are compared with NumPy on the same inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st_

import strided as st

from conftest import cpu
from strided._core import layout as _layout


@pytest.fixture(autouse=True)
def _small_pool_threshold():
    thr, nt = st.get_pool_threshold(), st.get_num_threads()
    st.set_pool_threshold(8)  # every float64 array is "large"
    yield
    st.set_pool_threshold(thr)
    st.set_num_threads(nt)


def host(x):
    return np.asarray(x)


def big_strides(shape, strides):
    """The strides of the dimensions longer than 1 (the others' strides carry no layout)."""
    return tuple(s for n, s in zip(shape, strides) if n > 1)


@st_.composite
def permuted(draw, min_dims=2, max_dims=4):
    """(NumPy array, permutation): a C-contiguous array seen through ``transpose(perm)``."""
    nd = draw(st_.integers(min_dims, max_dims))
    shape = tuple(draw(st_.lists(st_.integers(1, 6), min_size=nd, max_size=nd)))
    perm = tuple(draw(st_.permutations(range(nd))))
    seed = draw(st_.integers(0, 2**32 - 1))
    base = np.random.default_rng(seed).standard_normal(shape)
    return base.transpose(perm), perm


# --- the layout helper --------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(permuted(min_dims=1))
def test_dense_order_finds_the_permutation_that_makes_the_array_contiguous(case):
    a, _ = case
    perm = _layout.dense_order(a.shape, a.strides, a.itemsize)
    assert perm is not None
    assert a.transpose(perm).flags.c_contiguous


@pytest.mark.parametrize("make", [
    lambda: np.zeros((4, 6))[:, ::2],           # gaps
    lambda: np.zeros((4, 6))[::-1],             # negative stride
    lambda: np.broadcast_to(np.zeros(6), (4, 6)),  # stride 0
    lambda: np.zeros((0, 3)).T,                 # no elements
])
def test_dense_order_refuses_layouts_that_are_not_dense(make):
    a = make()
    assert _layout.dense_order(a.shape, a.strides, a.itemsize) is None


# --- elementwise results ------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(permuted(), st_.sampled_from(["add", "subtract", "multiply", "exp", "scalar", "keepdims"]),
       st_.sampled_from([1, 2]))
def test_permuted_inputs_give_pooled_results_in_their_order(case, op, threads):
    st.set_num_threads(threads)
    a, _ = case
    x = cpu(a)
    if op in ("add", "subtract", "multiply"):
        b = a * 0.5 + 1.0  # NumPy keeps a's layout
        want = getattr(np, op)(a, b)
        run = lambda: getattr(st, op)(x, cpu(b))  # noqa: E731
    elif op == "exp":
        want = np.exp(a)
        run = lambda: st.exp(x)  # noqa: E731
    elif op == "scalar":
        want = a * 3.0
        run = lambda: x * 3.0  # noqa: E731
    else:  # the demeaning SciPy does: a (permuted) minus its mean over the last axis
        m = a.mean(axis=-1, keepdims=True)
        want = a - m
        run = lambda: x - cpu(m)  # noqa: E731
    before = st.memory_stats()["num_allocs"]
    r = run()
    after = st.memory_stats()["num_allocs"]
    np.testing.assert_array_equal(host(r), want)
    assert tuple(r.shape) == want.shape
    # the result follows the operands' axis order, as NumPy's does
    assert big_strides(r.shape, r.stride()) == big_strides(a.shape, tuple(s // 8 for s in a.strides))
    if op in ("exp", "scalar"):
        assert big_strides(want.shape, want.strides) == big_strides(a.shape, a.strides)
    assert after - before == 1, "the result should come from the buffer pool"


def test_transposed_result_can_be_written_viewed_and_returned_to_the_pool():
    st.empty_cache()
    a = np.arange(24.0).reshape(4, 6)
    x = cpu(a).T  # (6, 4), strides (1, 6)
    r = x + 1.0
    assert r.stride() == (1, 6)
    v = r[2]  # a view keeps the block alive
    r[0, 0] = -5.0  # materialized in place: the memory is r's own
    np.testing.assert_array_equal(host(r), np.where(np.arange(24).reshape(4, 6).T == 0, -5.0, a.T + 1.0))
    assert r.storage() is v.storage()
    cached = st.memory_stats()["cached_bytes"]
    del r
    assert st.memory_stats()["cached_bytes"] == cached  # v still holds the block
    np.testing.assert_array_equal(host(v), a.T[2] + 1.0)
    del v
    assert st.memory_stats()["cached_bytes"] > cached


def test_mixed_layouts_still_match_numpy():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((30, 20))
    b = rng.standard_normal((20, 30))
    for left, right in ((a.T, b), (b, a.T), (a.T, a.T[::-1]), (a[::2].T, b[:, ::2])):
        np.testing.assert_array_equal(host(cpu(left) * cpu(right)), left * right)
        np.testing.assert_array_equal(host(st.maximum(cpu(left), cpu(right))), np.maximum(left, right))


# --- copies that keep the layout ----------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(permuted(), st_.sampled_from(["asarray", "astype"]))
def test_copy_of_a_permuted_array_keeps_its_order_and_owns_its_memory(case, how):
    a, perm = case
    x = st.permute_dims(cpu(a.base if a.base is not None else a), perm)  # a's layout, in strided
    np.testing.assert_array_equal(host(x), a)
    c = st.asarray(x, copy=True) if how == "asarray" else st.astype(x, x.dtype)
    np.testing.assert_array_equal(host(c), a)
    assert big_strides(c.shape, c.stride()) == big_strides(x.shape, x.stride())
    assert c.storage() is not x.storage()
    c[(0,) * a.ndim] = 1e9
    np.testing.assert_array_equal(host(x), a)


def test_copy_of_a_non_dense_array_keeps_its_axis_order():
    # NumPy's order "K" (np.array(a[:, ::2].T, copy=True) is column-major), as astype to
    # another dtype and PyTorch's clone (preserve_format) lay it out
    a = np.arange(60.0).reshape(6, 10)
    x = cpu(a)[:, ::2].T
    c = st.asarray(x, copy=True)
    np.testing.assert_array_equal(host(c), a[:, ::2].T)
    assert c.stride() == (1, 5)
    assert c.stride() == tuple(s // 8 for s in np.array(a[:, ::2].T, copy=True).strides)


def test_copy_of_a_permuted_array_that_requires_grad_still_records_the_copy():
    from strided import autograd  # noqa: F401 (the extension)
    a = np.arange(12.0).reshape(3, 4)
    x = cpu(a)
    x.requires_grad_(True)
    c = st.asarray(x.T, copy=True)
    assert c.requires_grad
    (c * c).sum().backward()
    np.testing.assert_allclose(host(x.grad), 2 * a)


# --- clip: NumPy's ufuncs called directly, large results pooled -----------------------

_BOUND = st_.one_of(st_.none(), st_.floats(-2, 2), st_.integers(-3, 3), st_.just(float("nan")))


@settings(max_examples=150, deadline=None)
@given(st_.sampled_from(["float32", "float64", "int16", "int64", "uint8"]),
       st_.integers(1, 40), _BOUND, _BOUND, st_.booleans(), st_.booleans(), st_.integers(0, 2**32 - 1))
def test_clip_matches_numpy(dtype, n, lo, hi, array_bounds, large, seed):
    if not large:
        st.set_pool_threshold(1 << 30)
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((n, 3)) * 3).astype(dtype) if dtype[0] == "f" else \
        rng.integers(0, 6, (n, 3)).astype(dtype)
    np_dtype = np.dtype(dtype)
    if np_dtype.kind in "iu" and any(isinstance(v, float) and v != v for v in (lo, hi)):
        lo = hi = None  # a NaN bound is refused for integer arrays (tested elsewhere)
    if np_dtype.kind == "u":
        lo = None if lo is None else abs(lo)
        hi = None if hi is None else abs(hi)
    if array_bounds:
        blo = None if lo is None else np.full((1, 3), lo, dtype=np.result_type(np_dtype, np.float64)
                                              if isinstance(lo, float) else np_dtype)
        bhi = None if hi is None else np.full((n, 1), hi, dtype=np.result_type(np_dtype, np.float64)
                                              if isinstance(hi, float) else np_dtype)
        want = np.clip(a, blo, bhi).astype(np_dtype) if (blo is not None or bhi is not None) else a
        got = st.clip(cpu(a), None if blo is None else cpu(blo), None if bhi is None else cpu(bhi))
    else:
        if np_dtype.kind in "iu" and (isinstance(lo, float) or isinstance(hi, float)):
            lo = None if lo is None else int(np.ceil(lo))
            hi = None if hi is None else int(np.floor(hi))
        want = np.clip(a, lo, hi) if (lo is not None or hi is not None) else a
        got = st.clip(cpu(a), lo, hi)
    assert got.dtype == st.asarray(a).dtype
    np.testing.assert_array_equal(host(got), want)


def test_large_clip_comes_from_the_pool():
    a = np.linspace(-2, 2, 5000).reshape(100, 50)
    for x, want in ((cpu(a), np.clip(a, -1.0, 0.5)), (cpu(a).T, np.clip(a.T, -1.0, 0.5))):
        before = st.memory_stats()["num_allocs"]
        r = st.clip(x, -1.0, 0.5)
        assert st.memory_stats()["num_allocs"] - before == 1
        np.testing.assert_array_equal(host(r), want)
        assert r.stride() == x.stride()
    out = cpu(np.zeros_like(a))
    st.clip(cpu(a), max=0.5, out=out)
    np.testing.assert_array_equal(host(out), np.minimum(a, 0.5))
