"""``unique(dim=)`` and ``unique_consecutive(dim=)`` (function and Tensor method) against PyTorch
2.13: the unique slices, inverse and counts, dtypes and shapes, over drawn shapes, dims, dtypes and
strided (transposed, sliced) inputs; PyTorch's errors; and PyTorch's missing derivative."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

from hypothesis import given, settings, strategies as hs

import strided
import strided.torch as st
from _parity import to_numpy

DTYPES = ["int64", "float32", "float64", "bool", "int32"]


def _same(s, t):
    assert str(s.dtype) == str(t.dtype).removeprefix("torch."), (s.dtype, t.dtype)
    assert tuple(s.shape) == tuple(t.shape), (s.shape, t.shape)
    np.testing.assert_array_equal(to_numpy(s), to_numpy(t))


def _both(a, layout):
    """The same (possibly non-contiguous) view of ``a`` in both libraries."""
    out = []
    for t in (torch.from_numpy(a.copy()), strided.asarray(a.copy())):
        if layout == "transposed" and t.ndim >= 2:
            t = t.transpose(0, t.ndim - 1)
        elif layout == "sliced":
            t = t[::2]
        out.append(t)
    return out


def _compare(name, a, layout, method=False, **kw):
    tt, ss = _both(a, layout)
    r = getattr(tt, name)(**kw) if method else getattr(torch, name)(tt, **kw)
    s = getattr(ss, name)(**kw) if method else getattr(st, name)(ss, **kw)
    r = r if isinstance(r, tuple) else (r,)
    s = s if isinstance(s, tuple) else (s,)
    assert type(s) is tuple and len(s) == len(r)
    for x, y in zip(s, r):
        _same(x, y)


@settings(max_examples=60, deadline=None)
@given(shape=hs.lists(hs.integers(1, 4), min_size=1, max_size=3), data=hs.data(),
       dtype=hs.sampled_from(DTYPES), layout=hs.sampled_from(["contiguous", "transposed", "sliced"]),
       high=hs.integers(1, 3), name=hs.sampled_from(["unique", "unique_consecutive"]),
       method=hs.booleans())
def test_dim_drawn(shape, data, dtype, layout, high, name, method):
    a = np.random.default_rng(len(shape) * 10 + high).integers(0, high + 1, size=shape).astype(dtype)
    nd = len(shape)
    dim = data.draw(hs.integers(-nd, nd - 1))
    for inv, cnt in itertools.product([False, True], repeat=2):
        kw = dict(return_inverse=inv, return_counts=cnt, dim=dim)
        if name == "unique":
            kw["sorted"] = data.draw(hs.booleans())
        _compare(name, a, layout, method, **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_rows_with_repeats(dtype, dim):
    a = np.array([[1, 0, 1], [0, 1, 1], [1, 0, 1], [0, 0, 0], [0, 1, 1], [0, 1, 0]]).astype(dtype)
    _compare("unique", a, "contiguous", return_inverse=True, return_counts=True, dim=dim)
    _compare("unique_consecutive", a, "contiguous", return_inverse=True, return_counts=True, dim=dim)


def test_float_rows_sort_lexicographically_including_negative_zero_and_inf():
    a = np.array([[0.5, -np.inf], [-0.0, 2.0], [0.0, 2.0], [0.5, -3.0], [-1e300, 7.0], [0.5, -np.inf]])
    _compare("unique", a, "contiguous", return_inverse=True, return_counts=True, dim=0)


def test_positional_arguments_and_method():
    a = np.array([[3, 1], [1, 2], [3, 1]])
    t, s = torch.from_numpy(a), strided.asarray(a)
    for x, y in zip(st.unique(s, True, True, True, 0), torch.unique(t, True, True, True, 0)):
        _same(x, y)
    for x, y in zip(s.unique(True, True, False, 0), t.unique(True, True, False, 0)):
        _same(x, y)
    for x, y in zip(st.unique_consecutive(s, True, True, 1), torch.unique_consecutive(t, True, True, 1)):
        _same(x, y)
    _same(s.unique_consecutive(dim=0), t.unique_consecutive(dim=0))


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
def test_empty_selected_dim(name):
    r = getattr(torch, name)(torch.zeros(0, 3), dim=0, return_inverse=True, return_counts=True)
    s = getattr(st, name)(st.zeros(0, 3), dim=0, return_inverse=True, return_counts=True)
    for x, y in zip(s, r):
        _same(x, y)


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("make,dim,exc,fragment", [
    (lambda lib: lib.zeros(3, 0), 0, RuntimeError,
     "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"),
    (lambda lib: lib.zeros(0, 3), 1, RuntimeError, "There are 0 sized dimensions"),
    (lambda lib: lib.tensor(3.0), 0, IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda lib: lib.zeros(2, 3), 2, IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda lib: lib.zeros(2, 3), -3, IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
])
def test_errors(name, make, dim, exc, fragment):
    for lib in (torch, st):
        with pytest.raises(exc) as e:
            getattr(lib, name)(make(lib), dim=dim)
        assert fragment in str(e.value), (lib.__name__, str(e.value))


@pytest.mark.parametrize("call,op", [
    (lambda lib, x: lib.unique(x, dim=0), "unique_dim"),
    (lambda lib, x: lib.unique(x, dim=1, return_counts=True)[0], "unique_dim"),
    (lambda lib, x: lib.unique(x), "_unique2"),
    (lambda lib, x: lib.unique_consecutive(x, dim=0), "unique_consecutive"),
    (lambda lib, x: lib.unique_consecutive(x), "unique_consecutive"),
    (lambda lib, x: x.unique(dim=0), "unique_dim"),
])
def test_not_differentiable_as_pytorch(call, op):
    a = np.array([[1.0, 2.0], [1.0, 2.0], [0.5, 3.0]])
    for lib in (torch, st):
        x = torch.tensor(a, requires_grad=True) if lib is torch else st.tensor(a, requires_grad=True)
        y = call(lib, x)
        assert y.requires_grad
        with pytest.raises(NotImplementedError, match=f"the derivative for '{op}' is not implemented"):
            y.sum().backward()
        with lib.no_grad():
            assert not call(lib, x).requires_grad
