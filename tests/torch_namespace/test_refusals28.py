"""Calls PyTorch 2.13 answers that strided.torch refused or crashed on (a differential sweep of
PyTorch's OpInfo samples): each case runs through torch and strided.torch, and the values,
dtypes, shapes, errors and gradients must agree."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import given, settings, strategies as st  # noqa: E402

import strided.torch as S  # noqa: E402

from _parity import to_numpy  # noqa: E402


def _leaf(L, value, dtype="float64"):
    return L.tensor(value, dtype=getattr(L, dtype), requires_grad=True)


def _same(got, ref):
    """Values, dtype and shape of one result (an array, or a tuple of arrays) as PyTorch's."""
    if isinstance(ref, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(ref)
        for g, r in zip(got, ref):
            _same(g, r)
        return
    if not isinstance(ref, torch.Tensor):
        assert got == ref
        return
    assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], (got.dtype, ref.dtype)
    assert tuple(got.shape) == tuple(ref.shape)
    np.testing.assert_allclose(to_numpy(got), ref.detach().numpy(), rtol=1e-12, atol=1e-12)


def _outcome(f, L):
    try:
        return f(L)
    except Exception as e:  # noqa: BLE001
        return e


def _agree(f):
    """f(torch) and f(strided.torch): the same values, or the same type of error."""
    ref, got = _outcome(f, torch), _outcome(f, S)
    if isinstance(ref, Exception):
        assert isinstance(got, type(ref)), (type(got), got, ref)
        return None, None
    assert not isinstance(got, Exception), got
    _same(got, ref)
    return got, ref


def _grads_agree(f, value=2.5, dtype="float64"):
    """f(L, leaf) through both libraries: values as above and the leaf's gradient as PyTorch's."""
    leaves = {}

    def run(L):
        leaves[L] = _leaf(L, value, dtype)
        return f(L, leaves[L])
    got, ref = _agree(run)
    (ref if isinstance(ref, torch.Tensor) else ref[0]).sum().backward()
    (got if not isinstance(got, tuple) else got[0]).sum().backward()
    _same(leaves[S].grad, leaves[torch].grad)


# --- 12. gradients through a 0-d input's dim 0 / -1 (ZeroDivisionError before) ------------------

@pytest.mark.parametrize("f", [
    lambda L, x: L.cumprod(x, 0), lambda L, x: L.cumprod(x, -1),
    lambda L, x: L.cumprod(x, 0, dtype=L.float64), lambda L, x: x.cumprod(dim=-1),
    lambda L, x: L.topk(x, 1, 0), lambda L, x: L.topk(x, 0),
    lambda L, x: L.sort(x, 0), lambda L, x: L.sort(x, -1, descending=True),
    lambda L, x: L.gather(x, 0, L.tensor(0)), lambda L, x: L.gather(x, -1, L.tensor(0)),
    lambda L, x: L.take_along_dim(x, L.tensor(0)),
    lambda L, x: L.mean(x, 0), lambda L, x: L.var(x, 0, correction=0), lambda L, x: L.var(x, -1, keepdim=True),
    lambda L, x: L.var_mean(x, 0, correction=0),
], ids=lambda f: None)
def test_zero_d_dim_gradients(f):
    _grads_agree(f)


# --- 2. a 0-d tensor's dim 0 / -1 in the forward (IndexError before) -------------------------

ZERO_D = [
    lambda L: L.index_select(L.tensor(3.0), 0, L.tensor([0])),
    lambda L: L.index_select(L.tensor(3.0), -1, L.tensor(0)),
    lambda L: L.index_select(L.tensor(3.0), 0, L.tensor([0, 0])),  # (PyTorch: RuntimeError)
    lambda L: L.index_select(L.tensor(3.0), 1, L.tensor([0])),  # (both: IndexError)
    lambda L: L.nn.functional.normalize(L.tensor(-3.0), dim=0),
    lambda L: L.nn.functional.normalize(L.tensor(3.0), p=1.0, dim=-1),
    lambda L: L.nn.functional.normalize(L.tensor(0.0), dim=0),
    lambda L: L.transpose(L.tensor(3.0), 0, -1), lambda L: L.tensor(3.0).transpose(0, 0),
    lambda L: L.swapaxes(L.tensor(3.0), -1, 0), lambda L: L.transpose_copy(L.tensor(3.0), 0, -1),
    lambda L: L.transpose(L.tensor(3.0), 0, 1),  # (both: IndexError)
    lambda L: L.tensor(3.0).unfold(0, 1, 1), lambda L: L.tensor(3.0).unfold(-1, 0, 2),
    lambda L: L.unfold_copy(L.tensor(3.0), 0, 1, 1),
    lambda L: L.tensor(3.0).unfold(0, 2, 1),  # (both: RuntimeError)
    lambda L: L.meshgrid(L.tensor(3.0), L.tensor([1.0, 2.0]), indexing="ij"),
    lambda L: L.meshgrid(L.tensor(3.0), L.tensor(4.0), indexing="xy"),
    lambda L: L.meshgrid([L.tensor(3), L.tensor([1, 2]), L.tensor([5, 6, 7])], indexing="xy"),
]


@pytest.mark.parametrize("f", ZERO_D, ids=lambda f: None)
def test_zero_d_dim_forward(f):
    _agree(f)


@pytest.mark.parametrize("f", [
    lambda L, x: L.index_select(x, 0, L.tensor([0])), lambda L, x: L.nn.functional.normalize(x, dim=0),
    lambda L, x: L.transpose(x, 0, -1) * 3, lambda L, x: x.unfold(0, 1, 1) * 2,
    lambda L, x: L.meshgrid(x, L.tensor([1.0, 2.0], dtype=L.float64), indexing="ij")[0],
], ids=lambda f: None)
def test_zero_d_dim_forward_gradients(f):
    _grads_agree(f, value=-1.5)


def test_transpose_of_zero_d_is_a_view():
    x = S.tensor(3.0)
    assert S.transpose(x, 0, -1).data_ptr() == x.data_ptr()
    assert x.unfold(0, 1, 1).data_ptr() == x.data_ptr()


# --- 4. gather's index: PyTorch's shape rule -----------------------------------------------------

GATHER = [
    lambda L: L.gather(L.tensor(3.0), 0, L.tensor([0, 0])),  # (0-d input, 1-d index)
    lambda L: L.gather(L.tensor([3.0, 4.0]), 0, L.tensor(1)),  # (1-d input, 0-d index)
    lambda L: L.gather(L.tensor(3.0), -1, L.tensor(0)),
    lambda L: L.gather(L.tensor([3.0, 4.0, 5.0]), 0, L.zeros(2, 0, dtype=L.int64)),  # (no elements)
    lambda L: L.gather(L.arange(12.0).reshape(3, 4), 1, L.zeros(0, dtype=L.int64)),
    lambda L: L.gather(L.arange(12.0).reshape(3, 4), 1, L.tensor([[0], [3]])),
    lambda L: L.gather(L.arange(12.0).reshape(3, 4), 0, L.tensor([[0, 1, 2, 0, 1]])),  # (RuntimeError)
    lambda L: L.gather(L.arange(12.0).reshape(3, 4), 0, L.tensor([0, 1])),  # (RuntimeError)
    lambda L: L.gather(L.arange(12.0).reshape(3, 4), 2, L.tensor([[0]])),  # (IndexError)
]


@pytest.mark.parametrize("f", GATHER, ids=lambda f: None)
def test_gather_index_shapes(f):
    _agree(f)


@given(st.lists(st.integers(0, 3), min_size=0, max_size=3), st.data())
@settings(max_examples=20, deadline=None)
def test_gather_smaller_index(shape, data):
    """An index no larger than the input apart from ``dim`` (a 0-d input or index as 1-d of one
    element, an index without elements of any shape): values and gradient as PyTorch's."""
    nd = max(len(shape), 1)
    dim = data.draw(st.integers(-nd, nd - 1))
    d = dim % nd
    full = shape or [1]
    ishape = [data.draw(st.integers(0, n)) if k != d else data.draw(st.integers(0, 3))
              for k, n in enumerate(full)]
    if full[d] == 0:
        ishape[d] = 0
    if len(ishape) == 1 and ishape[0] == 1 and data.draw(st.booleans()):
        ishape = []  # (a 0-d index)
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape)
    idx = rng.integers(0, max(full[d], 1), ishape)
    leaves = {}

    def run(L):
        leaves[L] = L.tensor(x, requires_grad=True)
        return L.gather(leaves[L], dim, L.tensor(idx))
    got, ref = _agree(run)
    ref.sum().backward()
    got.sum().backward()
    _same(leaves[S].grad, leaves[torch].grad)


# --- 1. broadcast_shapes of ints -----------------------------------------------------------------

@pytest.mark.parametrize("shapes", [
    (3, (2, 3)), (3, 3), (1, [4]), (0, (5, 1)), (True, (2, 1)), ((2, 1), 3, [1, 1, 3]), (), ((),),
    (2, (3,)), ((2,), (3,)), (-1,), ((2, -1),), (3.0,), (np.int64(3),),
], ids=repr)
def test_broadcast_shapes_of_ints(shapes):
    ref = _outcome(lambda L: L.broadcast_shapes(*shapes), torch)
    got = _outcome(lambda L: L.broadcast_shapes(*shapes), S)
    if isinstance(ref, Exception):
        assert isinstance(got, type(ref)), (got, ref)
    else:
        assert type(got).__name__ == "Size" and tuple(got) == tuple(ref)


def test_broadcast_shapes_of_a_size_and_an_int():
    assert tuple(S.broadcast_shapes(S.Size([2, 1]), 3)) == tuple(torch.broadcast_shapes(torch.Size([2, 1]), 3))


# --- 3. masked_fill with a mask of more dimensions (out of place: broadcast, as PyTorch's) -------

@given(st.lists(st.integers(1, 3), min_size=0, max_size=2), st.lists(st.integers(1, 3), min_size=1, max_size=2),
       st.booleans())
@settings(max_examples=15, deadline=None)
def test_masked_fill_broadcasts_input(xshape, extra, tensor_value):
    """The mask has more (or larger) dimensions than the input: values, layout and gradient as PyTorch's."""
    mshape = extra + [n if i % 2 else 1 for i, n in enumerate(xshape)]
    rng = np.random.default_rng(len(mshape))
    x, m = rng.standard_normal(xshape), rng.random(mshape) < 0.5
    leaves = {}

    def run(L):
        leaves[L] = L.tensor(x, requires_grad=True)
        v = L.tensor(-7.0, dtype=L.float64) if tensor_value else -7.0
        return L.masked_fill(leaves[L], L.tensor(m), v)
    got, ref = _agree(run)
    assert got.stride() == ref.stride()
    (ref * 3).sum().backward()
    (got * 3).sum().backward()
    _same(leaves[S].grad, leaves[torch].grad)


@pytest.mark.parametrize("f", [
    lambda L: L.tensor([1.0, 2.0, 3.0]).masked_fill(L.tensor([[True], [False]]), 0.0),
    lambda L: L.masked_fill(L.tensor(1), L.tensor([True, False]), 5),
    lambda L: L.ones(3).masked_fill_(L.tensor([[True, False, True]] * 2), 0.0),  # (in place: RuntimeError)
], ids=lambda f: None)
def test_masked_fill_shapes(f):
    _agree(f)


# --- 5. tensordot: a contracted dimension of size 1 against one of size n ----------------------

@pytest.mark.parametrize("case", [
    ((1, 1, 1), (2, 1, 2), ([0, 1], [2, 0])), ((2, 1), (3, 4), ([1], [0])), ((2, 1), (3, 4), 1),
    ((2, 3), (1, 4), ([1], [0])), ((2, 3, 1), (1, 3, 2), 2), ((2, 3), (3, 4), S.tensor([[1], [0]])),
    ((2, 3), (2, 4), ([1], [0])),  # (sizes 3 and 2: RuntimeError)
], ids=repr)
def test_tensordot_contracted_size_one(case):
    sa, sb, dims = case
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    leaves = {}

    def run(L):
        leaves[L] = (L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True))
        d = L.tensor(dims.tolist()) if isinstance(dims, S.Tensor) else dims
        return L.tensordot(*leaves[L], dims=d)
    got, ref = _agree(run)
    if ref is None:
        return
    ref.sum().backward()
    got.sum().backward()
    for g, r in zip(leaves[S], leaves[torch]):
        _same(g.grad, r.grad)


def test_tensordot_contracted_size_one_keeps_an_integer_dtype():
    _agree(lambda L: L.tensordot(L.ones(1, 1, 1, dtype=L.uint8), L.full((2, 1, 2), 200, dtype=L.uint8),
                                 dims=([0, 1], [2, 0])))


# --- 6. linalg.vander of a 0-d tensor ------------------------------------------------------------

@pytest.mark.parametrize("N", [None, 0, 1, 2, 3])
@pytest.mark.parametrize("shape", [(), (1,), (0,)])
def test_vander_of_zero_d(N, shape):
    value = np.full(shape, 3.0)
    leaves = {}

    def run(L):
        leaves[L] = L.tensor(value, requires_grad=True)
        return L.linalg.vander(leaves[L], N=N)
    got, ref = _agree(run)
    if ref is not None:
        ref.sum().backward()
        got.sum().backward()
        _same(leaves[S].grad, leaves[torch].grad)


def test_vander_of_zero_d_int():
    _agree(lambda L: L.linalg.vander(L.tensor(3), N=4))


# --- 7. max/min of a bool tensor along a dim: bool values, int64 indices --------------------------

@given(st.lists(st.integers(1, 3), min_size=0, max_size=3), st.data())
@settings(max_examples=15, deadline=None)
def test_max_min_of_bool_along_a_dim(shape, data):
    nd = max(len(shape), 1)
    dim = data.draw(st.integers(-nd, nd - 1))
    keepdim = data.draw(st.booleans())
    which = data.draw(st.sampled_from(["max", "min"]))
    m = np.random.default_rng(len(shape) + dim % nd).random(shape) < 0.5
    _agree(lambda L: getattr(L, which)(L.tensor(m), dim, keepdim=keepdim))
    _agree(lambda L: getattr(L.tensor(m), which)(dim=dim, keepdim=keepdim))


def test_argmax_of_bool_still_refused_as_pytorch():
    _agree(lambda L: L.argmax(L.tensor([True, False])))


# --- 8. histogramdd with bins as a list of tensors (edges in any order, as PyTorch searches them) --

@given(st.integers(1, 3), st.integers(0, 6), st.data())
@settings(max_examples=20, deadline=None)
def test_histogramdd_bins_as_tensors(ndim, npoints, data):
    rng = np.random.default_rng(ndim * 10 + npoints)
    pts = rng.uniform(-5, 5, (npoints, ndim)).astype(np.float32)
    edges = [np.round(rng.uniform(-6, 6, data.draw(st.integers(2, 5))), 1).astype(np.float32)
             for _ in range(ndim)]
    if data.draw(st.booleans()):
        edges = [np.sort(e) for e in edges]
    w = rng.uniform(0, 2, npoints).astype(np.float32) if data.draw(st.booleans()) else None
    density = data.draw(st.booleans())

    def run(L):
        r = L.histogramdd(L.tensor(pts), [L.tensor(e) for e in edges],
                          weight=None if w is None else L.tensor(w), density=density)
        return (r.hist,) + tuple(r.bin_edges)
    ref, got = run(torch), run(S)
    assert len(ref) == len(got)
    for g, r in zip(got, ref):
        assert str(g.dtype).split(".")[-1] == str(r.dtype).split(".")[-1] and tuple(g.shape) == tuple(r.shape)
        np.testing.assert_allclose(to_numpy(g), r.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


# --- 9. linspace of an integer dtype ---------------------------------------------------------------

@given(st.one_of(st.integers(-300, 300), st.floats(-300, 300)), st.one_of(st.integers(-300, 300), st.floats(-300, 300)),
       st.integers(0, 40), st.sampled_from(["int64", "int32", "int16", "int8", "uint8"]))
@settings(max_examples=40, deadline=None)
def test_integer_linspace(start, end, steps, dtype):
    _agree(lambda L: L.linspace(start, end, steps, dtype=getattr(L, dtype)))


@pytest.mark.parametrize("f", [
    lambda L: L.linspace(0, 10, 5, dtype=L.int64), lambda L: L.linspace(10, -3, 7, dtype=L.int32),
    lambda L: L.linspace(0.5, 9.7, 6, dtype=L.int64), lambda L: L.linspace(0, 255, 7, dtype=L.uint8),
    lambda L: L.linspace(L.tensor(0), L.tensor(10.9), 5, dtype=L.int64),
    lambda L: L.linspace(0, 1, 5, dtype=L.bool),  # (PyTorch: NotImplementedError)
    lambda L: L.linspace(0, 10, 3, dtype=L.int64, requires_grad=True),  # (RuntimeError)
    lambda L: L.linspace(0, 10, 3, dtype=L.int64, out=L.empty(3, dtype=L.int64)),
], ids=lambda f: None)
def test_integer_linspace_cases(f):
    _agree(f)


# --- 10. cat with a legacy empty 1-d tensor, torch.tensor([]) -------------------------------------

@pytest.mark.parametrize("f", [
    lambda L: L.cat([L.ones(2, 3), L.tensor([]), L.zeros(1, 3)]),
    lambda L: L.cat([L.tensor([]), L.ones(2, 3)], dim=1), lambda L: L.cat([L.tensor([]), L.ones(2, 3)], dim=-1),
    lambda L: L.cat([L.ones(2, 3, dtype=L.int64), L.tensor([])]),  # (float32: its dtype counts)
    lambda L: L.cat([L.tensor([], dtype=L.float64), L.ones(2, 3)]),
    lambda L: L.cat([L.tensor([]), L.tensor([])]), lambda L: L.cat([L.zeros(2), L.tensor([])]),
    lambda L: L.cat([L.tensor([]), L.zeros(0, 3)]), lambda L: L.concat([L.ones(2, 3), L.tensor([])]),
    lambda L: L.concatenate([L.tensor([]), L.ones(2, 3)], 0),
    lambda L: L.cat([L.ones(2, 3), L.tensor([])], dim=2),  # (IndexError)
    lambda L: L.cat([L.ones(2, 3), L.tensor([])], out=L.empty(2, 3)),
], ids=lambda f: None)
def test_cat_skips_legacy_empty(f):
    _agree(f)


def test_cat_skips_legacy_empty_gradient():
    leaves = {}

    def run(L):
        leaves[L] = L.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        return L.cat([leaves[L], L.tensor([], dtype=L.float64), leaves[L] * 2])
    got, ref = _agree(run)
    (ref * ref).sum().backward()
    (got * got).sum().backward()
    _same(leaves[S].grad, leaves[torch].grad)


# --- 11. signbit of integers, square of a mask, clamp_min/clamp_max of a mask --------------------

@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool"])
def test_signbit_of_integers(dtype):
    values = [-128, -1, 0, 1, 127] if dtype != "uint8" else [0, 1, 255]
    if dtype == "bool":
        values = [True, False]
    _agree(lambda L: L.signbit(L.tensor(values, dtype=getattr(L, dtype))))
    _agree(lambda L: L.tensor(values, dtype=getattr(L, dtype)).signbit())
    _agree(lambda L: L.signbit(L.tensor(values, dtype=getattr(L, dtype)), out=L.empty(len(values), dtype=L.bool)))


@pytest.mark.parametrize("f", [
    lambda L: L.square(L.tensor([True, False])), lambda L: L.tensor([[True], [False]]).square(),
    lambda L: L.square(L.tensor(True)), lambda L: L.square(L.tensor([True, False]), out=L.empty(2, dtype=L.int64)),
    lambda L: L.tensor([True]).square_(),  # (int64 can't be written back: RuntimeError)
    lambda L: L.square(L.tensor([3], dtype=L.int8)),
], ids=lambda f: None)
def test_square_of_a_mask(f):
    _agree(f)


MASK, OTHER = [True, False, True, False], [False, False, True, True]


@pytest.mark.parametrize("f", [
    lambda L: L.clamp_min(L.tensor(MASK), L.tensor(OTHER)), lambda L: L.clamp_max(L.tensor(MASK), L.tensor(OTHER)),
    lambda L: L.tensor(MASK).clamp_min(L.tensor(True)), lambda L: L.tensor(MASK).clamp_max(L.tensor(OTHER)),
    lambda L: L.clamp(L.tensor(MASK), min=L.tensor(OTHER)), lambda L: L.clamp(L.tensor(MASK), max=L.tensor(OTHER)),
    lambda L: L.tensor(MASK).clamp_min_(L.tensor(OTHER)),
    lambda L: L.clamp_min(L.tensor(MASK), L.tensor(OTHER), out=L.empty(4, dtype=L.bool)),
    lambda L: L.clamp_min(L.tensor(MASK), True),  # (scalar bound: NotImplementedError)
    lambda L: L.clamp_max(L.tensor(MASK), False), lambda L: L.clamp(L.tensor(MASK), L.tensor(OTHER), L.tensor(OTHER)),
    lambda L: L.clamp_min(L.tensor(MASK), 1), lambda L: L.clamp_min(L.tensor(MASK), 0.5),
], ids=lambda f: None)
def test_clamp_of_a_mask(f):
    _agree(f)
