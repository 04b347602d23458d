"""strided.torch's angle, frexp, adjoint/H/mH, nelement, sum_to_size, split_with_sizes,
unsafe_chunk/split, fill_diagonal_, the *_scatter functions, as_strided (a view with
PyTorch's gradient), empty_strided, index_put, put and index_reduce against PyTorch 2.13:
values, dtypes, views, gradients and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as hs

import strided
import strided.torch as st
from _parity import to_numpy

torch = pytest.importorskip("torch")

DT = {"float32": (np.float32, 2e-5), "float64": (np.float64, 1e-12)}


def pair(a, grad=False):
    a = np.asarray(a)
    s, t = strided.asarray(a.copy()), torch.from_numpy(a.copy())
    if grad:
        s.requires_grad_()
        t.requires_grad_()
    return s, t


def same(got, want, tol=1e-12):
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=tol, atol=tol, equal_nan=True)


def grads_match(fs, ft, arrays, tol=1e-12, seed=0):
    """fs/ft over the same float64 inputs; their outputs weighted by a random tensor summed,
    backward, and every input's .grad compared."""
    ps = [pair(a, True) for a in arrays]
    ys, yt = fs(*[p[0] for p in ps]), ft(*[p[1] for p in ps])
    same(ys, yt, tol)
    w = np.random.default_rng(seed).standard_normal(tuple(yt.shape))
    (ys * strided.asarray(w)).sum().backward()
    (yt * torch.from_numpy(w)).sum().backward()
    for s, t in ps:
        if t.grad is None:
            assert s.grad is None or not np.any(to_numpy(s.grad))
        else:
            same(s.grad, t.grad, tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_angle_real_values_and_zero_gradient(dtype):
    a = np.array([-2.0, -0.0, 0.0, 3.0, np.nan, -np.inf, np.inf], DT[dtype][0])
    s, t = pair(a, True)
    same(st.angle(s), torch.angle(t), DT[dtype][1])
    st.angle(s).sum().backward()
    torch.angle(t).sum().backward()
    same(s.grad, t.grad)
    same(s.angle(), t.angle(), DT[dtype][1])


def test_angle_int_and_complex():
    s, t = pair(np.array([-3, 0, 2]))
    same(st.angle(s), torch.angle(t), 1e-6)
    z = np.array([1 + 1j, -2 + 0.5j, -1 - 1j, 0j])
    s, t = pair(z)
    same(st.angle(s), torch.angle(t))
    grads_match(lambda x: st.angle(x), lambda x: torch.angle(x), [z[:3]])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_frexp_values_dtypes_and_gradient(dtype):
    a = np.array([8.0, -0.75, 0.0, 1e-30, 3.5e20, -1.0, 0.1], DT[dtype][0])
    s, t = pair(a, True)
    ms, es = st.frexp(s)
    mt, et = torch.frexp(t)
    same(ms, mt, 0)
    same(es, et, 0)
    r = st.frexp(s)
    assert r.mantissa is r[0] and r.exponent is r[1]
    (ms * strided.asarray(np.arange(7.0, dtype=a.dtype))).sum().backward()
    (mt * torch.arange(7.0, dtype=t.dtype)).sum().backward()
    same(s.grad, t.grad, 0)


def test_frexp_refuses_integers():
    with pytest.raises(RuntimeError, match="floating-point"):
        st.frexp(strided.asarray([1, 2]))
    with pytest.raises(RuntimeError, match="floating-point"):
        torch.frexp(torch.tensor([1, 2]))


@pytest.mark.parametrize("shape", [(2, 3), (4, 2, 3)])
def test_adjoint_mH_H_views(shape):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    s, t = pair(a)
    same(st.adjoint(s), torch.adjoint(t))
    same(s.mH, t.mH)
    same(s.adjoint(), t.adjoint())
    assert st.adjoint(s).storage() is s.storage()  # a view for a real dtype
    if len(shape) == 2:
        same(s.H, t.H)
    else:
        with pytest.raises(RuntimeError, match="only supported on matrices"):
            s.H
        with pytest.raises(RuntimeError):
            t.H
    z = a + 1j * a[..., ::-1]
    s, t = pair(z)
    same(st.adjoint(s), torch.adjoint(t).resolve_conj())
    same(s.mH, t.mH.resolve_conj())


def test_adjoint_errors():
    s, t = pair(np.ones(3))
    for f in (lambda x: x.mH, lambda x: x.adjoint(), lambda x: x.H):
        with pytest.raises(RuntimeError, match="only supported on matrices"):
            f(s)
        with pytest.raises(RuntimeError, match="only supported on matrices"):
            f(t)


def test_nelement_and_sum_to_size():
    a = np.random.default_rng(1).standard_normal((2, 3, 4))
    s, t = pair(a)
    assert s.nelement() == t.nelement() == 24
    for size in [(3, 1), (1, 3, 4), (4,), (2, 1, 1), (1,), (2, 3, 4)]:
        grads_match(lambda x, size=size: x.sum_to_size(size), lambda x, size=size: x.sum_to_size(size), [a])
        same(s.sum_to_size(*size), t.sum_to_size(*size))
    for bad in [(2,), (3, 3), (5, 2, 3, 4)]:
        with pytest.raises(RuntimeError, match="is not expandable to size"):
            s.sum_to_size(bad)
        with pytest.raises(RuntimeError, match="is not expandable to size"):
            t.sum_to_size(bad)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_split_with_sizes_and_unsafe_forms(dim):
    a = np.random.default_rng(2).standard_normal((5, 5))
    s, t = pair(a)
    for got, want in zip(st.split_with_sizes(s, [2, 0, 3], dim), torch.split_with_sizes(t, [2, 0, 3], dim)):
        same(got, want)
        assert got.storage() is s.storage()
    for got, want in zip(s.split_with_sizes([1, 4], dim=dim), t.split_with_sizes([1, 4], dim=dim)):
        same(got, want)
    for k in (1, 2, 3, 6):
        gs, gt = st.unsafe_chunk(s, k, dim), torch.unsafe_chunk(t, k, dim)
        assert len(gs) == len(gt)
        for got, want in zip(gs, gt):
            same(got, want)
        gs, gt = st.unsafe_split(s, k, dim), torch.unsafe_split(t, k, dim)
        assert len(gs) == len(gt)
        for got, want in zip(gs, gt):
            same(got, want)
    grads_match(lambda x: st.split_with_sizes(x, [2, 3], dim)[1] * 2,
                lambda x: torch.split_with_sizes(x, [2, 3], dim)[1] * 2, [a])
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 5"):
        st.split_with_sizes(s, [2, 2], dim)
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 5"):
        torch.split_with_sizes(t, [2, 2], dim)


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((5, 3), False), ((7, 3), True), ((8, 2), True),
                                        ((3, 5), True), ((3, 3, 3), False), ((4, 3), True)])
def test_fill_diagonal_(shape, wrap):
    a = np.random.default_rng(3).standard_normal(shape)
    s, t = pair(a)
    r = s.fill_diagonal_(7.5, wrap=wrap)
    t.fill_diagonal_(7.5, wrap=wrap)
    assert r is s
    same(s, t)


def test_fill_diagonal_errors_and_gradient():
    s, t = pair(np.ones(3))
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        s.fill_diagonal_(1.0)
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        t.fill_diagonal_(1.0)
    s, t = pair(np.ones((2, 3, 3)))
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        s.fill_diagonal_(1.0)
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        t.fill_diagonal_(1.0)
    grads_match(lambda x: (x * 1).fill_diagonal_(2.0), lambda x: (x * 1).fill_diagonal_(2.0),
                [np.random.default_rng(4).standard_normal((3, 4))])


@pytest.mark.parametrize("offset,d1,d2", [(0, 0, 1), (1, 0, 1), (-1, 1, 0), (0, 1, 2), (2, 0, 2)])
def test_diagonal_scatter(offset, d1, d2):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4, 4))
    n = torch.zeros(3, 4, 4).diagonal(offset, d1, d2).shape
    b = rng.standard_normal(tuple(n))
    grads_match(lambda x, y: st.diagonal_scatter(x, y, offset, d1, d2),
                lambda x, y: torch.diagonal_scatter(x, y, offset, d1, d2), [a, b])
    s, t = pair(a)
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice of self"):
        st.diagonal_scatter(s, strided.ones(9, dtype=strided.float64), offset, d1, d2)
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice of self"):
        torch.diagonal_scatter(t, torch.ones(9, dtype=torch.float64), offset, d1, d2)


@pytest.mark.parametrize("dim,index", [(0, 1), (1, -1), (2, 0)])
def test_select_scatter(dim, index):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 3, 4))
    b = rng.standard_normal(tuple(torch.zeros(2, 3, 4).select(dim, index).shape))
    grads_match(lambda x, y: st.select_scatter(x, y, dim, index),
                lambda x, y: torch.select_scatter(x, y, dim, index), [a, b])
    s, _ = pair(a)
    same(s.select_scatter(strided.asarray(b), dim, index),
         torch.from_numpy(a).select_scatter(torch.from_numpy(b), dim, index))


@pytest.mark.parametrize("dim,start,end,step", [(0, None, None, 1), (1, 1, None, 2), (1, -3, -1, 1),
                                                (0, 0, 1, 3), (1, 2, 100, 1)])
def test_slice_scatter(dim, start, end, step):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 5))
    n = tuple(torch.zeros(3, 5)[(slice(None),) * dim + (slice(start, end, step),)].shape)
    b = rng.standard_normal(n)
    grads_match(lambda x, y: st.slice_scatter(x, y, dim, start, end, step),
                lambda x, y: torch.slice_scatter(x, y, dim, start, end, step), [a, b])


GEOMETRIES = [((2, 2), (1, 2), 1), ((3, 2), (1, 1), 0), ((2, 3), (3, 1), 0), ((4,), (0,), 2),
              ((2, 2, 2), (4, 2, 1), None), ((0, 3), (1, 1), 5), ((), (), 3), ((3, 3), (2, 1), 1)]


@pytest.mark.parametrize("size,stride,offset", GEOMETRIES)
def test_as_strided_values_view_and_gradient(size, stride, offset):
    a = np.random.default_rng(8).standard_normal(10)
    s, t = pair(a)
    v = st.as_strided(s, size, stride, offset)
    same(v, torch.as_strided(t, size, stride, offset))
    assert v.storage() is s.storage() and v.stride() == tuple(stride)
    same(s.as_strided(size, stride, offset), t.as_strided(size, stride, offset))
    grads_match(lambda x: st.as_strided(x * 1, size, stride, offset),
                lambda x: torch.as_strided(x * 1, size, stride, offset), [a])
    grads_match(lambda x: st.as_strided(x, size, stride, offset) * 3,
                lambda x: torch.as_strided(x, size, stride, offset) * 3, [a])


def test_as_strided_of_a_view_and_of_an_overlapping_input():
    a = np.random.default_rng(9).standard_normal((3, 4))
    # a view's as_strided addresses the whole storage, from the view's offset by default
    grads_match(lambda x: (x * 1)[1:, 1:].as_strided((2, 2), (1, 4)),
                lambda x: (x * 1)[1:, 1:].as_strided((2, 2), (1, 4)), [a])
    grads_match(lambda x: (x * 1).t().as_strided((3,), (5,), 0),
                lambda x: (x * 1).t().as_strided((3,), (5,), 0), [a])
    # an input whose elements share memory: the gradient is shared among them, as PyTorch's
    b = np.random.default_rng(10).standard_normal(6)
    grads_match(lambda x: (x * 1).as_strided((3, 3), (1, 1)).as_strided((2, 2), (2, 1), 1),
                lambda x: (x * 1).as_strided((3, 3), (1, 1)).as_strided((2, 2), (2, 1), 1), [b])


def test_as_strided_in_place_write_reaches_the_base_and_its_history():
    a = np.random.default_rng(11).standard_normal(6)
    res = []
    for lib, T in ((st, strided.asarray), (torch, torch.from_numpy)):
        x = T(a.copy()).requires_grad_()
        b = x * 2
        v = b.as_strided((2,), (2,), 1)
        v.mul_(3)
        (b * lib.arange(6.0, dtype=b.dtype)).sum().backward()
        res.append((b.detach(), x.grad))
    same(res[0][0], res[1][0])
    same(res[0][1], res[1][1])


@pytest.mark.parametrize("size,stride,offset,frag", [
    ((3, 3), (3, 1), 2, "out of bounds for storage of size"),
    ((2,), (-1,), 1, "Negative strides are not supported"),
    ((2,), (1,), -1, "invalid storage offset"),
    ((2, 2), (1,), 0, "mismatch in length of strides and shape"),
])
def test_as_strided_errors(size, stride, offset, frag):
    s, t = pair(np.zeros(9, np.float32))
    with pytest.raises(RuntimeError, match=frag):
        st.as_strided(s, size, stride, offset)
    with pytest.raises(RuntimeError, match=frag):
        torch.as_strided(t, size, stride, offset)


@pytest.mark.parametrize("size,stride,offset", [((2,), (2,), None), ((2, 2), (1, 3), 1), ((3,), (4,), 0)])
@pytest.mark.parametrize("transposed", [False, True])
def test_as_strided_scatter(size, stride, offset, transposed):
    rng = np.random.default_rng(12)
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal(size)

    # (the input's own layout matters: a view of the leaf, the same on every device)
    def f(x, y):
        x = x.t() if transposed else x
        return st.as_strided_scatter(x, y, size, stride, offset)

    def reference(x, y):
        # Note: PyTorch 2.13's own as_strided_scatter gives input the gradient of the scattered
        # positions (where it should give every other position's) and refuses a non-contiguous
        # input that requires grad; its clone-and-copy_ composition is differentiated correctly.
        x = x.t() if transposed else x
        r = x.clone()
        r.as_strided(size, stride, 0 if offset is None else offset).copy_(y)
        return r
    grads_match(f, reference, [a, b])
    s = st.as_strided_scatter(strided.asarray(a).t() if transposed else strided.asarray(a), strided.asarray(b),
                              size, stride, offset)
    t = torch.as_strided_scatter(torch.from_numpy(a).t() if transposed else torch.from_numpy(a),
                                 torch.from_numpy(b), size, stride, offset)
    assert s.stride() == t.stride()


def test_empty_strided_and_new_empty_strided():
    for size, stride in [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((3,), (0,)), ((0, 2), (1, 1))]:
        e = st.empty_strided(size, stride, dtype=st.float64)
        te = torch.empty_strided(size, stride, dtype=torch.float64)
        assert tuple(e.shape) == tuple(te.shape) and e.stride() == te.stride() and e.dtype == st.float64
        x = strided.ones(2, dtype=strided.int32)
        n = x.new_empty_strided(size, stride)
        assert n.dtype == strided.int32 and n.stride() == tuple(stride)
    e = st.empty_strided((2,), (1,), requires_grad=True)
    assert e.requires_grad and e.dtype == st.float32
    with pytest.raises(RuntimeError, match="dimensionality of sizes"):
        st.empty_strided((2, 2), (1,))
    with pytest.raises(RuntimeError, match="dimensionality of sizes"):
        torch.empty_strided((2, 2), (1,))


INDEX_CASES = [
    lambda L, a: (L.tensor([0, 2, 0]),),
    lambda L, a: (L.tensor([0, 2, 0]), L.tensor([1, 1, 1])),
    lambda L, a: (L.tensor([[1], [0]]), L.tensor([0, -1])),
    lambda L, a: (L.tensor([True, False, True]),),
    lambda L, a: (L.tensor([-1, -3]),),
]


@pytest.mark.parametrize("case", range(len(INDEX_CASES)))
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(case, accumulate):
    rng = np.random.default_rng(13)
    a = rng.standard_normal((3, 4))
    its, itt = INDEX_CASES[case](st, a), INDEX_CASES[case](torch, a)
    n = tuple(torch.zeros(3, 4)[itt].shape)
    # (no repeated positions without accumulate: PyTorch leaves which write wins undefined)
    vals = rng.standard_normal(n)
    if not accumulate and case in (0, 1):
        its, itt = (i[:2] for i in its), (i[:2] for i in itt)
        its, itt = tuple(its), tuple(itt)
        vals = rng.standard_normal(tuple(torch.zeros(3, 4)[itt].shape))
    grads_match(lambda x, v: st.index_put(x, its, v, accumulate),
                lambda x, v: torch.index_put(x, itt, v, accumulate), [a, vals])
    s, t = pair(a)
    r = s.index_put_(its, strided.asarray(vals), accumulate)
    t.index_put_(itt, torch.from_numpy(vals), accumulate)
    assert r is s
    same(s, t)
    same(strided.asarray(a).index_put(its, strided.asarray(vals), accumulate),
         torch.from_numpy(a).index_put(itt, torch.from_numpy(vals), accumulate))


def test_index_put_broadcast_values_none_and_errors():
    a = np.zeros((3, 4))
    s, t = pair(a)
    v = strided.asarray(np.ones(4))
    assert st.index_put_(s, (st.tensor([2]),), v) is s  # (the top-level in-place form)
    torch.index_put_(t, (torch.tensor([2]),), torch.ones(4, dtype=torch.float64))
    same(s, t)
    same(st.index_put(s, (st.tensor([0, 0]),), st.tensor(2.0, dtype=st.float64), accumulate=True),
         torch.index_put(t, (torch.tensor([0, 0]),), torch.tensor(2.0, dtype=torch.float64), accumulate=True))
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 1, but got NoneType"):
        st.index_put(s, (None, st.tensor([1, 3])), st.tensor(5.0, dtype=st.float64))
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 1, but got NoneType"):
        torch.index_put(t, (None, torch.tensor([1, 3])), torch.tensor(5.0, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        st.index_put(s, (st.tensor([0]),), st.tensor([1.0], dtype=st.float32))
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        torch.index_put(t, (torch.tensor([0]),), torch.tensor([1.0], dtype=torch.float32))
    with pytest.raises(IndexError, match="out of bounds"):
        st.index_put(s, (st.tensor([3]),), st.tensor([1.0], dtype=st.float64), accumulate=True)
    with pytest.raises(IndexError, match="out of bounds"):
        torch.index_put(t, (torch.tensor([3]),), torch.tensor([1.0], dtype=torch.float64), accumulate=True)


@pytest.mark.parametrize("accumulate", [False, True])
def test_put(accumulate):
    rng = np.random.default_rng(14)
    a = rng.standard_normal((3, 4))
    idx = [11, 0, -1, 5] if accumulate else [11, 0, 5]
    src = rng.standard_normal(len(idx))
    grads_match(lambda x, v: st.put(x, st.tensor(idx), v, accumulate),
                lambda x, v: torch.put(x, torch.tensor(idx), v, accumulate), [a, src])
    # a transposed input: flat positions in its logical (row-major) order
    grads_match(lambda x, v: st.put(x.t(), st.tensor(idx), v, accumulate),
                lambda x, v: torch.put(x.t(), torch.tensor(idx), v, accumulate), [a, src])
    s, t = pair(a)
    assert s.put_(st.tensor(idx), strided.asarray(src), accumulate) is s
    t.put_(torch.tensor(idx), torch.from_numpy(src), accumulate)
    same(s, t)
    with pytest.raises(IndexError, match="out of range: tried to access index 12 on a tensor of 12 elements"):
        st.put(s, st.tensor([12]), st.tensor([1.0], dtype=st.float64))
    with pytest.raises(IndexError, match="out of range: tried to access index 12 on a tensor of 12 elements"):
        torch.put(t, torch.tensor([12]), torch.tensor([1.0], dtype=torch.float64))
    with pytest.raises(IndexError, match="Expected source and index to have the same number of elements"):
        st.put(s, st.tensor([1, 2]), st.tensor([1.0], dtype=st.float64))
    with pytest.raises(IndexError, match="Expected source and index to have the same number of elements"):
        torch.put(t, torch.tensor([1, 2]), torch.tensor([1.0], dtype=torch.float64))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1])
def test_index_reduce(reduce, include_self, dim):
    rng = np.random.default_rng(15)
    a = rng.standard_normal((3, 4))
    idx = [0, 2, 0, 1, 0][: 3 if dim == 0 else 5]
    src_shape = (len(idx), 4) if dim == 0 else (3, len(idx))
    src = rng.standard_normal(src_shape)
    grads_match(lambda x, v: st.index_reduce(x, dim, st.tensor(idx), v, reduce, include_self=include_self),
                lambda x, v: torch.index_reduce(x, dim, torch.tensor(idx), v, reduce, include_self=include_self),
                [a, src])
    s, t = pair(a)
    assert s.index_reduce_(dim, st.tensor(idx), strided.asarray(src), reduce, include_self=include_self) is s
    t.index_reduce_(dim, torch.tensor(idx), torch.from_numpy(src), reduce, include_self=include_self)
    same(s, t)


def test_index_reduce_integers_and_errors():
    s, t = pair(np.array([[4, 9], [1, 1]]))
    si, ti = pair(np.array([[3, 2], [5, 5]]))
    same(st.index_reduce(s, 0, st.tensor([0, 0]), si, "mean"), torch.index_reduce(t, 0, torch.tensor([0, 0]), ti, "mean"))
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum"):
        st.index_reduce(s, 0, st.tensor([0, 0]), si, "sum")
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum"):
        torch.index_reduce(t, 0, torch.tensor([0, 0]), ti, "sum")


# --- random samplers: the same distributions as PyTorch's (two-sample KS, fixed seeds) -----

def _ks_same(a, b):
    stats = pytest.importorskip("scipy.stats")
    assert stats.ks_2samp(a, b).pvalue > 1e-3


@pytest.mark.parametrize("name,args", [("exponential_", (2.5,)), ("cauchy_", (1.0, 0.5)),
                                       ("log_normal_", (0.5, 0.75)), ("geometric_", (0.3,))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_in_place_samplers_match_pytorch_in_distribution(name, args, dtype):
    st.manual_seed(0)
    torch.manual_seed(0)
    s = strided.empty(20000, dtype=getattr(strided, dtype))
    t = torch.empty(20000, dtype=getattr(torch, dtype))
    assert getattr(s, name)(*args) is s
    getattr(t, name)(*args)
    a, b = to_numpy(s), to_numpy(t)
    assert s.dtype == getattr(strided, dtype)
    if name == "geometric_":
        assert a.min() >= 1 and np.all(a == np.round(a))
        assert abs(a.mean() - 1 / 0.3) < 0.1
        np.testing.assert_allclose(np.bincount(a.astype(int), minlength=30)[1:10] / a.size,
                                   np.bincount(b.astype(int), minlength=30)[1:10] / b.size, atol=0.015)
    else:
        _ks_same(a, b)


def test_geometric_on_integers_and_sampler_errors():
    s = strided.zeros(1000, dtype=strided.int64)
    s.geometric_(0.5)
    assert s.dtype == strided.int64 and int(s.min()) >= 1
    x, tx = strided.zeros(3), torch.zeros(3)
    for call, frag in [(lambda a: a.exponential_(0), "exponential_ expects lambda > 0.0"),
                       (lambda a: a.geometric_(1.0), "geometric_ expects p to be in \\(0, 1\\)"),
                       (lambda a: a.log_normal_(1.0, 0.0), "log_normal_ expects std > 0.0"),
                       (lambda a: a.cauchy_(0.0, -1.0), "cauchy_ expects sigma > 0.0")]:
        with pytest.raises(RuntimeError, match=frag):
            call(x)
        with pytest.raises(RuntimeError, match=frag):
            call(tx)
    for a in (strided.zeros(3, dtype=strided.int64), torch.zeros(3, dtype=torch.long)):
        with pytest.raises(RuntimeError, match="continuous probability distribution"):
            a.exponential_()
    w = strided.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.exponential_()


def test_poisson_and_binomial_match_pytorch_in_distribution():
    st.manual_seed(1)
    torch.manual_seed(1)
    rates = np.array([0.0, 0.5, 3.0, 40.0])
    s = st.poisson(strided.asarray(np.repeat(rates, 5000)))
    t = torch.poisson(torch.from_numpy(np.repeat(rates, 5000)))
    assert s.dtype == strided.float64
    a, b = to_numpy(s).reshape(4, -1), to_numpy(t).reshape(4, -1)
    assert np.all(a[0] == 0)
    for i in range(1, 4):
        assert abs(a[i].mean() - rates[i]) < 4 * np.sqrt(rates[i] / 5000)
        assert abs(a[i].var() - b[i].var()) < 0.15 * rates[i]
    n, p = np.array([10.0, 3.0, 0.0]), np.array([0.3, 0.9, 0.5])
    s = st.binomial(strided.asarray(np.repeat(n, 5000)), strided.asarray(np.repeat(p, 5000)))
    a = to_numpy(s).reshape(3, -1)
    for i in range(3):
        assert abs(a[i].mean() - n[i] * p[i]) < 4 * np.sqrt(n[i] * p[i] * (1 - p[i]) / 5000) + 1e-12
    assert np.all(a[2] == 0)
    same(st.binomial(strided.asarray([5.0]), strided.asarray([1.5])),
         torch.binomial(torch.tensor([5.0]), torch.tensor([1.5])))


def test_poisson_gradient_is_zero_and_errors():
    x = strided.asarray([2.0, 3.0]).requires_grad_()
    tx = torch.tensor([2.0, 3.0], requires_grad=True)
    y, ty = st.poisson(x), torch.poisson(tx)
    assert y.requires_grad and ty.requires_grad
    y.sum().backward()
    ty.sum().backward()
    same(x.grad, tx.grad)
    with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"):
        st.poisson(strided.asarray([-1.0]))
    with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"):
        torch.poisson(torch.tensor([-1.0]))
    with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count"):
        st.binomial(strided.asarray([5]), strided.asarray([0.5]))
    with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count"):
        torch.binomial(torch.tensor([5]), torch.tensor([0.5]))


# --- process-wide settings, compile, kaiser_window, frombuffer --------------------------------

def test_settings_round_trip_as_pytorch():
    for v in ("high", "medium", "highest"):
        st.set_float32_matmul_precision(v)
        torch.set_float32_matmul_precision(v)
        assert st.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == v
    with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
        st.set_float32_matmul_precision("low")
    assert st.get_float32_matmul_precision() == "highest"
    a = np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32)
    st.set_float32_matmul_precision("medium")
    try:  # (strided's float32 matmul stays full precision, PyTorch's "highest")
        same(strided.asarray(a) @ strided.asarray(a), torch.from_numpy(a) @ torch.from_numpy(a), 1e-5)
    finally:
        st.set_float32_matmul_precision("highest")
    for mode, warn in [(True, False), (True, True), (False, False)]:
        st.use_deterministic_algorithms(mode, warn_only=warn)
        torch.use_deterministic_algorithms(mode, warn_only=warn)
        assert st.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled() == mode
        assert (st.is_deterministic_algorithms_warn_only_enabled()
                == torch.is_deterministic_algorithms_warn_only_enabled() == warn)
    assert st.set_flush_denormal(False) is True
    assert st.set_flush_denormal(True) is False
    st.set_flush_denormal(False)
    assert st.get_num_interop_threads() >= 1
    with pytest.raises(NotImplementedError, match="inference_mode is no_grad"):
        st.is_inference_mode_enabled()
    with pytest.raises(NotImplementedError, match="inference_mode is no_grad"):
        strided.ones(2).is_inference()


def test_compile_returns_the_callable_in_meaning():
    lin = st.nn.Linear(3, 2)
    assert st.compile(lin, mode="reduce-overhead", fullgraph=True, dynamic=False) is lin

    @st.compile(backend="eager")
    def f(x):
        return x * 2 + 1
    same(f(strided.asarray([1.0, 2.0])), torch.compile(lambda x: x * 2 + 1, backend="eager")(
        torch.tensor([1.0, 2.0])))
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        st.compile(lin, mode="default", options={})
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        torch.compile(torch.nn.Linear(3, 2), mode="default", options={})


@pytest.mark.parametrize("n,periodic,beta", [(0, True, 12.0), (1, False, 12.0), (5, True, 12.0), (6, False, 5.0),
                                             (7, True, 0.0), (16, False, 30.0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kaiser_window(n, periodic, beta, dtype):
    same(st.kaiser_window(n, periodic, beta, dtype=getattr(st, dtype)),
         torch.kaiser_window(n, periodic, beta, dtype=getattr(torch, dtype)), 2e-6 if dtype == "float32" else 1e-12)
    assert st.kaiser_window(4, requires_grad=True).requires_grad


@pytest.mark.parametrize("count,offset", [(-1, 0), (2, 4), (1, 12), (-1, 8)])
def test_frombuffer_shares_memory(count, offset):
    b1, b2 = bytearray(np.arange(4, dtype=np.int32).tobytes()), bytearray(np.arange(4, dtype=np.int32).tobytes())
    s = st.frombuffer(b1, dtype=st.int32, count=count, offset=offset)
    t = torch.frombuffer(b2, dtype=torch.int32, count=count, offset=offset)
    same(s, t)
    s[0] = 99
    t[0] = 99
    assert b1 == b2
    with pytest.raises(ValueError, match="must be a multiple of element size"):
        st.frombuffer(bytearray(6), dtype=st.int32)
    with pytest.raises(ValueError, match="must be a multiple of element size"):
        torch.frombuffer(bytearray(6), dtype=torch.int32)


@settings(max_examples=40, deadline=None)
@given(hs.lists(hs.tuples(hs.integers(0, 3), hs.integers(0, 4)), min_size=0, max_size=3),
       hs.integers(0, 4), hs.booleans())
def test_as_strided_random_geometries(dims, offset, through_view):
    size = tuple(n for n, _ in dims)
    stride = tuple(s for _, s in dims)
    need = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in dims)
    assume(need <= 24)
    a = np.random.default_rng(len(dims) + offset).standard_normal(24)

    def f(lib):
        def g(x):
            y = x * 1
            if through_view:  # (an input that is itself a view: offsets stay the storage's)
                y = y.reshape(4, 6)[1:, ::2]
            return y.as_strided(size, stride, offset) * 2
        return g
    grads_match(f(st), f(torch), [a])
