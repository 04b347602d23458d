"""strided.torch.vmap against torch.vmap (PyTorch 2.13): in_dims/out_dims (ints, None, nested
structures), nesting, kwargs, gradients through the map, randomness flags and errors."""

from __future__ import annotations

import numpy as np
import pytest

import strided
import strided.torch as st
from _parity import to_numpy

torch = pytest.importorskip("torch")


def same(got, want, tol=1e-12):
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=tol, atol=tol)


def both(a):
    a = np.asarray(a)
    return strided.asarray(a.copy()), torch.from_numpy(a.copy())


RNG = np.random.default_rng(0)
A, B, C = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 3)), RNG.standard_normal(4)


@pytest.mark.parametrize("in_dims,out_dims", [(0, 0), ((0, 1), 0), ((1, 0), 1), ((0, None), -1), ((-1, -2), 0)])
def test_vmap_dims(in_dims, out_dims):
    def f(lib):
        return lambda x, y: lib.sin(x) * y.sum() + x * 2
    a = A if (in_dims if isinstance(in_dims, int) else in_dims[0]) in (0, -2) else A.T.copy()
    y = {0: B.T.copy(), 1: B, None: C, -2: B.T.copy().T.copy()}[in_dims if isinstance(in_dims, int) else in_dims[1]]
    if isinstance(in_dims, tuple) and in_dims[0] == -1:
        a, y = A.T.copy(), B.T.copy()
    (sa, ta), (sy, ty) = both(a), both(y)
    same(st.vmap(f(st), in_dims, out_dims)(sa, sy), torch.vmap(f(torch), in_dims, out_dims)(ta, ty))


def test_vmap_matches_batched_functions_and_gradients():
    (sa, ta), (sb, tb) = both(A), both(RNG.standard_normal((3, 4)))
    for t in (sa, ta, sb, tb):
        t.requires_grad_()
    rs = st.vmap(st.dot)(sa, sb)
    rt = torch.vmap(torch.dot)(ta, tb)
    same(rs, rt)
    w = RNG.standard_normal(3)
    (rs * strided.asarray(w)).sum().backward()
    (rt * torch.from_numpy(w)).sum().backward()
    same(sa.grad, ta.grad)
    same(sb.grad, tb.grad)


def test_vmap_nested_structures_kwargs_and_tuple_outputs():
    def f(lib):
        def g(pair, d, *, scale):
            x, y = pair["x"], pair["y"]
            return x * scale + y, (x.sum(), d["k"] * 2)
        return g
    (sa, ta), (sb, tb), (sc, tc) = both(A), both(RNG.standard_normal((3, 4))), both(C)
    in_dims = ({"x": 0, "y": 0}, {"k": None})
    rs = st.vmap(f(st), in_dims=in_dims, out_dims=(1, (0, None)))({"x": sa, "y": sb}, {"k": sc}, scale=3.0)
    rt = torch.vmap(f(torch), in_dims=in_dims, out_dims=(1, (0, None)))({"x": ta, "y": tb}, {"k": tc}, scale=3.0)
    same(rs[0], rt[0])
    same(rs[1][0], rt[1][0])
    same(rs[1][1], rt[1][1])


def test_vmap_nested():
    (sa, ta) = both(RNG.standard_normal((2, 3, 4)))
    rs = st.vmap(st.vmap(lambda x: x.max() - x, in_dims=1), in_dims=0)(sa)
    rt = torch.vmap(torch.vmap(lambda x: x.max() - x, in_dims=1), in_dims=0)(ta)
    same(rs, rt)


def test_vmap_empty_batch():
    s, t = both(np.zeros((0, 3)))
    same(st.vmap(lambda x: x * 2)(s), torch.vmap(lambda x: x * 2)(t))


def test_vmap_randomness():
    x = strided.ones((4, 3))
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        st.vmap(lambda v: v + st.rand(3))(x)
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        torch.vmap(lambda v: v + torch.rand(3))(torch.ones(4, 3))
    st.manual_seed(3)
    same_rows = to_numpy(st.vmap(lambda v: v + st.rand(3), randomness="same")(x))
    assert np.all(same_rows == same_rows[0])
    diff_rows = to_numpy(st.vmap(lambda v: v + st.rand(3), randomness="different")(x))
    assert len({tuple(r) for r in diff_rows}) == 4
    assert st.rand(1).shape == (1,)  # (the generators work again after the map)


@pytest.mark.parametrize("call,err,frag", [
    (lambda L: L.vmap(lambda x, y: x + y)(L.ones(2, 3), L.ones(3, 3)), ValueError,
     "Expected all tensors to have the same size in the mapped dimension"),
    (lambda L: L.vmap(lambda x: x, in_dims=(None,))(L.ones(2)), ValueError, "Expected at least one Tensor to vmap over"),
    (lambda L: L.vmap(lambda x: 1.0)(L.ones(2)), ValueError, "must only return Tensors"),
    (lambda L: L.vmap(lambda x: x, in_dims=(0, 0))(L.ones(2)), ValueError, "in_dims is not compatible with the structure"),
    (lambda L: L.vmap(lambda x: x, in_dims=2)(L.ones(2)), ValueError, "Got in_dim=2 for some input"),
    (lambda L: L.vmap(lambda x: x.sum(), out_dims=1)(L.ones(2, 3)), IndexError, "Dimension out of range"),
    (lambda L: L.vmap(lambda x: x, randomness="bad")(L.ones(2)), RuntimeError, "Only allowed values for randomness"),
    (lambda L: L.vmap(lambda x, y: x, in_dims=(0, 0))(L.ones(2), 1.0), ValueError, "cannot vmap over non-Tensor"),
])
def test_vmap_errors(call, err, frag):
    with pytest.raises(err, match=frag):
        call(st)
    with pytest.raises(err, match=frag):
        call(torch)
