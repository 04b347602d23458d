"""Reductions and scans keep NumPy's bits and return PyTorch's (C-ordered) strides."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp

_FUNCS = {
    "sum": (xp.sum, np.sum), "prod": (xp.prod, np.prod), "mean": (xp.mean, np.mean),
    "max": (xp.max, np.max), "min": (xp.min, np.min), "std": (xp.std, np.std), "var": (xp.var, np.var),
    "any": (xp.any, np.any), "all": (xp.all, np.all),
}


@st.composite
def _case(draw):
    nd = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=nd, max_size=nd)))
    perm = tuple(draw(st.permutations(range(nd))))
    step = draw(st.sampled_from([1, 2]))
    dtype = draw(st.sampled_from(["float32", "float64", "int64", "bool"]))
    axis = draw(st.one_of(st.none(), st.integers(-nd, nd - 1),
                          st.lists(st.integers(0, nd - 1), unique=True, min_size=1, max_size=nd).map(tuple)))
    keep = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    return shape, perm, step, dtype, axis, keep, seed


def _inputs(shape, perm, step, dtype, seed):
    rng = np.random.default_rng(seed)
    base = (rng.standard_normal(shape) * 100)
    base = base > 0 if dtype == "bool" else base.astype(dtype)
    a = xp.asarray(base, device="cpu")  # (bits compared with NumPy on the host)
    v = a.permute(*perm)[..., ::step]
    nv = base.transpose(perm)[..., ::step]
    return v, nv


@settings(max_examples=150, deadline=None)
@given(_case(), st.sampled_from(sorted(_FUNCS)))
def test_values_bit_for_bit(case, name):
    shape, perm, step, dtype, axis, keep, seed = case
    v, nv = _inputs(shape, perm, step, dtype, seed)
    f, g = _FUNCS[name]
    if name in ("mean", "std", "var") and dtype in ("int64", "bool"):
        return
    if name in ("max", "min") and nv.size == 0:
        return
    r = f(v, axis=axis, keepdims=keep)
    with np.errstate(all="ignore"):
        e = np.asarray(g(nv, axis=axis, keepdims=keep))
    got = np.asarray(r)
    assert got.shape == e.shape
    if name in ("sum", "prod") and dtype == "bool":
        e = e.astype(np.int64)
    np.testing.assert_array_equal(got.astype(e.dtype).tobytes(), np.ascontiguousarray(e).tobytes())
    assert np.asarray(r).flags.c_contiguous


@settings(max_examples=60, deadline=None)
@given(_case())
def test_cumulative_sum_bits_and_layout(case):
    shape, perm, step, dtype, _, _, seed = case
    if dtype == "bool":
        return
    v, nv = _inputs(shape, perm, step, dtype, seed)
    for ax in range(v.ndim):
        r = xp.cumulative_sum(v, axis=ax)
        with np.errstate(all="ignore"):
            e = np.cumsum(nv, axis=ax)
        np.testing.assert_array_equal(np.asarray(r).tobytes(), np.ascontiguousarray(e).tobytes())
        assert np.asarray(r).flags.c_contiguous


def test_strides_match_pytorch():
    torch = pytest.importorskip("torch")
    import strided.torch as storch
    ops = [lambda t: t.sum(1), lambda t: t.sum((1, 3)), lambda t: t.sum(2, keepdim=True),
           lambda t: t.prod(1), lambda t: t.mean(1), lambda t: t.mean((0, 2), keepdim=True),
           lambda t: t.amax(1), lambda t: t.amin((0, 2)), lambda t: t.max(1).values,
           lambda t: t.argmax(1), lambda t: t.std(1), lambda t: t.var((1, 2)),
           lambda t: t.logsumexp(1), lambda t: (t > 3).all(1), lambda t: (t > 3).any(0),
           lambda t: t.norm(dim=1), lambda t: t.cumsum(0), lambda t: t.cumsum(2),
           lambda t: t.cumprod(1), lambda t: t.nansum(1), lambda t: t.count_nonzero(1),
           lambda t: t.long().sum(1), lambda t: t.long().cumsum(1)]
    for lib_views in [(lambda b: b.permute(2, 0, 3, 1)), (lambda b: b.transpose(1, 3)),
                      (lambda b: b[:, ::2, :, 1:4]), (lambda b: b.permute(3, 2, 1, 0))]:
        t = lib_views(torch.arange(120.0, dtype=torch.float64).reshape(2, 3, 4, 5))
        s = lib_views(storch.arange(120.0, dtype=storch.float64).reshape(2, 3, 4, 5))
        for op in ops:
            assert op(s).stride() == op(t).stride()
            op(s).view(-1)


def test_brief_reproducer():
    import strided.torch as storch
    y = storch.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2).sum(2)
    assert y.stride() == (2, 1)
    assert y.view(-1).shape == (6,)
