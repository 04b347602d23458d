"""strided.torch's shape, indexing, creation, in-place and predicate functions
(src/strided/torch/_shape_functions.py) against PyTorch 2.13: values, dtypes, shapes,
views where PyTorch returns views (a write through the result reaches the input), copies
where it copies, gradients, and the exception types of its refusals."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as hs  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

RNG = np.random.default_rng(16)


def pair(a):
    a = np.asarray(a)
    return xp.asarray(a), torch.tensor(a)


def same(got, want, rtol=1e-6, atol=0.0):
    """``got`` (strided) equals ``want`` (PyTorch): types, shapes, dtypes and values."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, tuple), type(got)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, rtol, atol)
        return
    if not isinstance(want, torch.Tensor):
        assert got == want and type(got) is type(want)
        return
    assert type(got) is xp.Array
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    np.testing.assert_allclose(host(got.detach()), want.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)


def call_both(name, *args, **kwargs):
    """``st.<name>`` and ``torch.<name>`` of the same arguments (NumPy arrays become each
    library's arrays; lists of them too)."""
    def conv(a, lib):
        if isinstance(a, np.ndarray):
            return xp.asarray(a) if lib == "st" else torch.tensor(a)
        if isinstance(a, list) and a and isinstance(a[0], np.ndarray):
            return [conv(b, lib) for b in a]
        return a
    g = getattr(st, name)(*[conv(a, "st") for a in args], **{k: conv(v, "st") for k, v in kwargs.items()})
    w = getattr(torch, name)(*[conv(a, "t") for a in args], **{k: conv(v, "t") for k, v in kwargs.items()})
    return g, w


# --- every name is new, and PyTorch's -----------------------------------------------------------------

def test_names_are_pytorchs_and_exported():
    from strided.torch import _shape_functions as sf
    from strided.torch._keyword_names import unnamed
    for name in sf.__all__:
        assert hasattr(torch, name), name
        assert unnamed(getattr(st, name)) is getattr(sf, name)  # (behind PyTorch's names: _keyword_names)
        assert name in st.__all__
        assert getattr(st, name).__doc__.lstrip().startswith(("``torch.", "PyTorch")), name
    assert {"abs_", "exp_", "sqrt_", "clamp_", "relu_", "sigmoid_", "zero_", "fill_", "detach_"} <= set(sf.__all__)


# --- shapes (Hypothesis) ------------------------------------------------------------------------------

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)


def values(shape):
    return RNG.standard_normal(shape).astype(np.float32)


@settings(max_examples=30, deadline=None)
@given(shapes, hs.sampled_from(["atleast_1d", "atleast_2d", "atleast_3d", "argwhere", "flipud",
                                "unbind", "msort", "unique_consecutive"]))
def test_one_array_functions(shape, name):
    a = values(shape)
    if name in ("argwhere", "unique_consecutive"):
        a = RNG.integers(0, 2, shape)
    if name in ("flipud", "unbind", "msort") and not shape:
        return
    g, w = call_both(name, a)
    same(g, w)


@settings(max_examples=30, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3), hs.integers(1, 3),
       hs.sampled_from(["hstack", "vstack", "row_stack", "dstack", "column_stack"]))
def test_stacks(shape, k, name):
    if name == "column_stack" and len(shape) > 2:
        shape = shape[:2]
    arrays = [values(shape) for _ in range(k)]
    g, w = call_both(name, arrays)
    same(g, w)


@settings(max_examples=30, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=7), hs.data())
def test_tensor_split(shape, data):
    a = values(shape)
    dim = data.draw(hs.integers(-len(shape), len(shape) - 1))
    sections = data.draw(hs.one_of(hs.integers(1, 5), hs.lists(hs.integers(-8, 8), max_size=3)))
    g, w = call_both("tensor_split", a, sections, dim)
    same(g, w)


@settings(max_examples=30, deadline=None)
@given(hnp.array_shapes(min_dims=3, max_dims=3, min_side=1, max_side=6), hs.sampled_from([1, 2, 3]),
       hs.sampled_from(["hsplit", "vsplit", "dsplit"]))
def test_xsplit(shape, k, name):
    a = values(shape)
    dim = {"hsplit": 1, "vsplit": 0, "dsplit": 2}[name]
    if shape[dim] % k:
        with pytest.raises(RuntimeError):
            getattr(st, name)(xp.asarray(a), k)
        with pytest.raises(RuntimeError):
            getattr(torch, name)(torch.tensor(a), k)
        return
    same(*call_both(name, a, k))
    same(*call_both(name, a, [1, 2]))


@settings(max_examples=30, deadline=None)
@given(hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=4), hs.integers(-5, 5), hs.data())
def test_rot90_select_swapaxes(shape, k, data):
    a = values(shape)
    nd = len(shape)
    d0, d1 = data.draw(hs.lists(hs.integers(-nd, nd - 1), min_size=2, max_size=2,
                                unique_by=lambda d: d % nd))
    same(*call_both("rot90", a, k, [d0, d1]))
    same(*call_both("swapaxes", a, d0, d1))
    i = data.draw(hs.integers(-shape[d0], shape[d0] - 1))
    same(*call_both("select", a, d0, i))
    same(*call_both("fliplr", a))


@settings(max_examples=30, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4), hs.integers(-3, 3), hs.data())
def test_diag_embed_diagflat(shape, offset, data):
    a = values(shape)
    nd = len(shape) + 1
    d1, d2 = data.draw(hs.lists(hs.integers(-nd, nd - 1), min_size=2, max_size=2,
                                unique_by=lambda d: d % nd))
    same(*call_both("diag_embed", a, offset, d1, d2))
    same(*call_both("diagflat", a, offset))


@settings(max_examples=30, deadline=None)
@given(hs.lists(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3), min_size=1, max_size=3))
def test_block_diag(shapes_):
    arrays = [values(s) for s in shapes_]
    arrays[0] = arrays[0].astype(np.int32)  # (the promoted dtype)
    g, w = call_both("block_diag", *arrays)
    same(g, w)


@settings(max_examples=30, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), hs.data())
def test_take_along_dim_broadcasts(shape, data):
    a = values(shape)
    d = data.draw(hs.integers(-len(shape), len(shape) - 1))
    ishape = [data.draw(hs.sampled_from([1, s])) for s in shape]
    ishape[d] = data.draw(hs.integers(0, 4))
    idx = RNG.integers(0, shape[d], ishape)
    same(*call_both("take_along_dim", a, idx, d))
    same(*call_both("take_along_dim", a, RNG.integers(0, a.size, (3,))))


@settings(max_examples=30, deadline=None)
@given(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))
def test_broadcast_tensors(shape):
    a, b = values(shape), values(shape[-1:])
    same(*call_both("broadcast_tensors", a, b))


# --- the other shape functions --------------------------------------------------------------------------

def test_atleast_forms():
    a, b = np.float32(1.5), np.arange(3.0)
    same(*call_both("atleast_2d", np.asarray(a)))
    same(*call_both("atleast_3d", np.asarray(a), b))
    same(*call_both("atleast_1d", [np.asarray(a), b]))
    g = st.atleast_1d((xp.asarray(1.0),))
    assert type(g) is tuple and len(g) == 1
    assert st.atleast_1d() == torch.atleast_1d() == ()


@pytest.mark.parametrize("r", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(r, with_replacement):
    same(*call_both("combinations", np.array([3, 1, 2]), r, with_replacement))


def test_cartesian_prod():
    same(*call_both("cartesian_prod", np.array([1, 2]), np.array([3, 4, 5]), np.array([6])))
    same(*call_both("cartesian_prod", np.array([1.0, 2.0])))
    same(*call_both("cartesian_prod", np.array([1, 2]), np.array([], dtype=np.int64)))


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.bool_])
def test_repeat_interleave(dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    same(*call_both("repeat_interleave", a, 2))
    same(*call_both("repeat_interleave", a, np.array([1, 0, 2]), 1))
    same(*call_both("repeat_interleave", a, 3, dim=0, output_size=6))
    same(*call_both("repeat_interleave", np.array([2, 0, 3])))


def test_unravel_index():
    same(*call_both("unravel_index", np.array([7, -1, 8, 0]), (2, 4)))
    same(*call_both("unravel_index", np.array([[5, 3]], dtype=np.int32), 6))
    same(*call_both("unravel_index", np.array(4), (2, 3, 1)))


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (4, 2, 1), (2, 5, -1), (0, 3, 0), (3, 4, 7), (3, 4, -9)])
def test_tri_indices(name, row, col, offset):
    same(*call_both(name, row, col, offset))
    same(getattr(st, name)(row, col, offset, dtype=xp.int32), getattr(torch, name)(row, col, offset, dtype=torch.int32))


@pytest.mark.parametrize("data", [[1, 1, 2, 2, 3, 1, 1], [], [5], [[1.0, 1.0], [np.nan, np.nan]]])
def test_unique_consecutive(data):
    a = np.asarray(data, dtype=np.float64)
    for inv in (False, True):
        for cnt in (False, True):
            same(*call_both("unique_consecutive", a, return_inverse=inv, return_counts=cnt))


def test_vander():
    same(*call_both("vander", np.array([1, 2, 3])))
    same(*call_both("vander", np.array([0.5, -2.0, 3.0], dtype=np.float32), 4, True))
    same(*call_both("vander", np.array([True, False]), 3))
    same(*call_both("vander", np.array([1.0, 2.0]), 0))


# --- views and copies ---------------------------------------------------------------------------------

VIEWS = [
    ("atleast_2d", lambda lib, x: lib.atleast_2d(x[0])),
    ("atleast_3d", lambda lib, x: lib.atleast_3d(x)),
    ("broadcast_tensors", lambda lib, x: lib.broadcast_tensors(x, x[:1])[0]),
    ("tensor_split", lambda lib, x: lib.tensor_split(x, 2, 1)[1]),
    ("hsplit", lambda lib, x: lib.hsplit(x, [1])[1]),
    ("vsplit", lambda lib, x: lib.vsplit(x, 2)[1]),
    ("unbind", lambda lib, x: lib.unbind(x, 1)[2]),
    ("swapaxes", lambda lib, x: lib.swapaxes(x, 0, 1)),
    ("select", lambda lib, x: lib.select(x, 1, -1)),
    ("unravel_index", None),
]
COPIES = [
    ("fliplr", lambda lib, x: lib.fliplr(x)),
    ("flipud", lambda lib, x: lib.flipud(x)),
    ("rot90", lambda lib, x: lib.rot90(x, 1, [0, 1])),
    ("rot90k0", lambda lib, x: lib.rot90(x, 0)),
    ("diagflat", lambda lib, x: lib.diagflat(x)),
    ("msort", lambda lib, x: lib.msort(x)),
    ("index_fill", lambda lib, x: lib.index_fill(x, 0, lib.tensor([0]), 1.0)),
]


def _shares(f):
    """Whether writing into ``f``'s result changes its input, in strided and in PyTorch."""
    out = []
    for lib, make in ((st, lambda a: xp.asarray(a)), (torch, torch.tensor)):
        x = make(np.arange(12.0).reshape(2, 3, 2)[:, :, 0].copy())
        before = x.clone()
        r = f(lib, x)
        r.fill_(-7.0)
        out.append(not bool((x == before).all()))
    return out


@pytest.mark.parametrize("name,f", [v for v in VIEWS if v[1]] + COPIES, ids=lambda v: v if isinstance(v, str) else "")
def test_view_or_copy_as_pytorch(name, f):
    ours, theirs = _shares(f)
    assert ours == theirs == (name in dict(VIEWS))


# --- indexing -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_index_add_copy_fill(dtype):
    x = RNG.integers(-5, 5, (4, 3)).astype(dtype)
    src = RNG.integers(-5, 5, (4, 5)).astype(dtype)
    idx = np.array([2, 0, 2, 1, 2])
    same(*call_both("index_add", x.T.copy(), 0, idx, src.T.copy()))
    same(*call_both("index_add", x.T.copy(), 0, idx, src.T.copy(), alpha=3))
    same(*call_both("index_copy", x, 1, np.array([2, 0, 1]), src[:, :3].copy()))
    same(*call_both("index_fill", x, 1, np.array([0, -1]), 9))
    same(*call_both("index_fill", x, 0, np.array(3), np.asarray(-2, dtype=dtype)))


def test_index_add_zero_dim_and_complex_alpha():
    same(*call_both("index_add", np.asarray(1.0), 0, np.array([0]), np.asarray(2.0)))
    same(*call_both("index_copy", np.asarray(1.0), 0, np.array([0]), np.asarray(2.0)))
    c = np.zeros(3, dtype=np.complex64)
    same(*call_both("index_add", c, 0, np.array([0, 0]), np.ones(2, dtype=np.complex64), alpha=1j))


def test_index_add_accumulates_in_order():
    # float32 sums whose value depends on the order of accumulation
    src = np.array([1e8, 1.0, -1e8, 1.0], dtype=np.float32)
    same(*call_both("index_add", np.zeros(2, np.float32), 0, np.array([0, 0, 0, 1]), src), rtol=0)
    same(*call_both("scatter_add", np.zeros(2, np.float32), 0, np.array([0, 0, 0, 1]), src), rtol=0)


@settings(max_examples=40, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), hs.data(),
       hs.sampled_from(["sum", "prod", "mean", "amax", "amin"]), hs.booleans(),
       hs.sampled_from([np.float64, np.int64]))
def test_scatter_reduce(shape, data, reduce, include_self, dtype):
    nd = len(shape)
    d = data.draw(hs.integers(-nd, nd - 1))
    ishape = [data.draw(hs.integers(0, s)) for s in shape]
    ishape[d] = data.draw(hs.integers(0, 6))
    idx = RNG.integers(0, shape[d], ishape)
    x = RNG.integers(-4, 5, shape).astype(dtype)
    src = RNG.integers(-4, 5, [i + 1 for i in ishape]).astype(dtype)
    same(*call_both("scatter_reduce", x, d, idx, src, reduce, include_self=include_self), rtol=1e-12)
    if reduce == "sum" and include_self:
        same(*call_both("scatter_add", x, d, idx, src))


def test_masked_scatter():
    x = np.zeros((2, 3), np.float32)
    mask = np.array([True, False, True])
    same(*call_both("masked_scatter", x, mask, np.arange(10, dtype=np.float32)))
    same(*call_both("masked_scatter", x[0], np.array([[True], [False]]) | mask, np.arange(6, dtype=np.float32)))


@pytest.mark.parametrize("name,args", [
    ("index_add_", (0, [0, 0, 2], [1.0, 2.0, 3.0])),
    ("index_copy_", (0, [2, 0], [1.0, 2.0])),
    ("index_fill_", (0, [1], 5.0)),
    ("scatter_add_", (0, [1, 1], [4.0, 5.0])),
    ("scatter_reduce_", (0, [1, 1], [4.0, 5.0], "amax")),
    ("masked_scatter_", ([True, False, True], [8.0, 9.0])),
])
def test_indexing_methods(name, args):
    def conv(a, lib):
        if isinstance(a, list):
            return xp.asarray(a) if lib is st else torch.tensor(a)
        return a
    for inplace in (True, False):
        n = name if inplace else name[:-1]
        x, t = xp.asarray([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0])
        g = getattr(x, n)(*[conv(a, st) for a in args])
        w = getattr(t, n)(*[conv(a, torch) for a in args])
        same(g, w)
        same(x, t)
        assert (g is x) == inplace


# --- creation and complex ------------------------------------------------------------------------------

def test_complex_and_polar():
    re = np.array([1.0, -0.0, np.inf, 2.0], dtype=np.float32)
    im = np.array([np.inf, 3.0, 0.0, -1.0], dtype=np.float32)
    g, w = call_both("complex", re, im)
    same(g, w)
    np.testing.assert_array_equal(host(g).imag, w.numpy().imag)
    np.testing.assert_array_equal(np.signbit(host(g).real), np.signbit(w.numpy().real))
    same(*call_both("complex", re.astype(np.float64)[:, None], im.astype(np.float64)))
    same(*call_both("polar", np.array([1.0, 2.0]), np.array([0.5, -3.0])), rtol=1e-12)


# (complex's and polar's gradients: test_programs21.py's test_complex_and_polar_gradients)


@pytest.mark.parametrize("s,kw", [(3, {}), (True, {}), (2.5, {"dtype": "float64"}), (7, {"dtype": "int32"}),
                                  (1 + 2j, {"dtype": "complex64"})])
def test_scalar_tensor(s, kw):
    g = st.scalar_tensor(s, **{k: getattr(xp, v) for k, v in kw.items()})
    w = torch.scalar_tensor(s, **{k: getattr(torch, v) for k, v in kw.items()})
    same(g, w)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows(name, n, periodic, dtype):
    g = getattr(st, name)(n, periodic, dtype=getattr(xp, dtype))
    w = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
    same(g, w, rtol=1e-5, atol=1e-6 if dtype == "float32" else 1e-12)
    same(st.hamming_window(n, periodic, 0.6, 0.3), torch.hamming_window(n, periodic, 0.6, 0.3), rtol=1e-5, atol=1e-6)


# --- in-place forms, predicates -----------------------------------------------------------------------

@pytest.mark.parametrize("name,args", [("abs_", ()), ("exp_", ()), ("sqrt_", ()), ("clamp_", (-0.5, 0.5)),
                                       ("relu_", ()), ("sigmoid_", ()), ("zero_", ()), ("fill_", (3.0,)),
                                       ("round_", ()), ("square_", ())])
def test_inplace_forms(name, args):
    a = RNG.standard_normal(5)
    if name == "sqrt_":
        a = np.abs(a)
    x, t = pair(a)
    r = getattr(st, name)(x, *args)
    getattr(torch, name)(t, *args)
    assert r is x
    same(x, t, rtol=1e-12)


def test_inplace_forms_are_generated_from_pytorchs_list():
    from strided.torch import _shape_functions as sf
    torch_names = {n for n in dir(torch) if n.endswith("_") and not n.startswith("_")}
    assert set(sf._TORCH_INPLACE) == torch_names
    assert set(sf._INPLACE_FORMS) == {n for n in torch_names if hasattr(xp.Array, n)}


def test_detach():
    x = xp.ones(2, requires_grad=True)
    d = st.detach(x)
    assert not d.requires_grad
    d.fill_(3.0)
    assert host(x.detach()).tolist() == [3.0, 3.0]
    y = x * 2
    assert st.detach_(y) is y and not y.requires_grad


def test_predicates():
    for a in ([0.0], [2], [[True]], [1j]):
        same(*call_both("is_nonzero", np.asarray(a)))
    same(*call_both("is_same_size", np.zeros((2, 3)), np.ones((2, 3))))
    same(*call_both("is_same_size", np.zeros((2, 3)), np.ones((3, 2))))
    for dt in ("bool", "uint8", "int8", "int64", "float16", "float32", "complex128", "uint16"):
        x, t = xp.zeros(1, dtype=getattr(xp, dt)), torch.zeros(1, dtype=getattr(torch, dt))
        assert st.is_signed(x) == torch.is_signed(t), dt
        assert st.typename(xp.zeros(1, dtype=getattr(xp, dt), device="cpu")) == torch.typename(t)
    x, t = pair([1 + 2j])
    for name in ("is_conj", "is_neg"):
        assert getattr(st, name)(st.conj(x)) == getattr(torch, name)(torch.conj(t).resolve_conj())
    assert st.resolve_conj(x) is x and st.resolve_neg(x) is x
    assert st.get_device(xp.ones(1, device="cpu")) == torch.get_device(torch.ones(1)) == -1
    for obj in (1.0, torch.nn.Linear, np.float32):
        assert st.typename(obj) == torch.typename(obj)


def test_promote_types_all_pairs():
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
             "complex64", "complex128", "uint16", "uint32", "uint64"]
    for a in names:
        for b in names:
            try:
                want = torch.promote_types(getattr(torch, a), getattr(torch, b))
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    st.promote_types(getattr(xp, a), getattr(xp, b))
                continue
            assert st.promote_types(getattr(xp, a), getattr(xp, b)).name == str(want)[6:], (a, b)


# --- out= -------------------------------------------------------------------------------------------------

def test_out():
    a = np.arange(6.0).reshape(2, 3)
    for name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
        want = getattr(torch, name)([torch.tensor(a), torch.tensor(a)])
        out = xp.zeros(tuple(want.shape), dtype=xp.float64)
        r = getattr(st, name)([xp.asarray(a), xp.asarray(a)], out=out)
        assert r is out
        same(out, want)
    out = xp.zeros((2, 3), dtype=xp.float64)
    assert st.msort(xp.asarray(a[::-1].copy()), out=out) is out
    same(out, torch.msort(torch.tensor(a[::-1].copy())))
    with pytest.raises(TypeError, match="out="):
        st.take_along_dim(xp.asarray(a), xp.asarray([0]), out=out)
    with pytest.raises(TypeError, match="out="):
        st.index_add(xp.asarray(a), 0, xp.asarray([0]), xp.asarray(a[:1]), out=out)


# --- gradients against PyTorch's ------------------------------------------------------------------

def _idx(lib, v):
    return (xp.asarray if lib is st else torch.tensor)(np.asarray(v))


GRADS = [
    ("hstack", lambda lib, a, b: lib.hstack([a, b])),
    ("column_stack", lambda lib, a, b: lib.column_stack([a, b[:, 0]])),
    ("tensor_split", lambda lib, a, b: lib.tensor_split(a, [1], 1)[1] * 2),
    ("rot90", lambda lib, a, b: lib.rot90(a, 3, [1, 0])),
    ("diag_embed", lambda lib, a, b: lib.diag_embed(a, 1, 0, 2)),
    ("block_diag", lambda lib, a, b: lib.block_diag(a, b[0])),
    ("cartesian_prod", lambda lib, a, b: lib.cartesian_prod(a[0], b[1])),
    ("combinations", lambda lib, a, b: lib.combinations(a[1], 2, True)),
    ("take_along_dim", lambda lib, a, b: lib.take_along_dim(a, _idx(lib, [[2, 2, 0]]), 1)),
    ("index_add", lambda lib, a, b: lib.index_add(a, 1, _idx(lib, [1, 1, 0]), b, alpha=2.0)),
    ("index_copy", lambda lib, a, b: lib.index_copy(a, 1, _idx(lib, [2, 0, 1]), b)),
    ("index_fill", lambda lib, a, b: lib.index_fill(a, 1, _idx(lib, [2]), 0.5)),
    ("scatter_add", lambda lib, a, b: lib.scatter_add(a, 0, _idx(lib, [[1, 0, 1]]), b[:1] * 1)),
    ("scatter_reduce_prod", lambda lib, a, b: lib.scatter_reduce(a, 1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), b, "prod")),
    ("scatter_reduce_mean", lambda lib, a, b: lib.scatter_reduce(a, 1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), b, "mean",
                                                                 include_self=False)),
    ("scatter_reduce_amax", lambda lib, a, b: lib.scatter_reduce(a, 1, _idx(lib, [[0, 0, 2]]), b, "amax")),
    ("masked_scatter", lambda lib, a, b: lib.masked_scatter(a, _idx(lib, [True, False, True]), b)),
]


@pytest.mark.parametrize("name,f", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_pytorch(name, f):
    a0, b0 = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    a, b = xp.asarray(a0, requires_grad=True), xp.asarray(b0, requires_grad=True)
    ta, tb = torch.tensor(a0, requires_grad=True), torch.tensor(b0, requires_grad=True)
    r, tr = f(st, a, b), f(torch, ta, tb)
    same(r, tr, rtol=1e-12)
    w0 = RNG.standard_normal(tuple(tr.shape))
    (r * xp.asarray(w0)).sum().backward()
    (tr * torch.tensor(w0)).sum().backward()
    for g, tg in ((a.grad, ta.grad), (b.grad, tb.grad)):
        if tg is None:
            assert g is None or not host(g).any()
        else:
            same(g, tg, rtol=1e-12, atol=1e-14)


# --- refusals: the exception types PyTorch raises -----------------------------------------------------

def T(lib, v, dtype=None):
    a = np.asarray(v)
    if lib is st:
        return xp.asarray(a, dtype=getattr(xp, dtype) if dtype else None)
    return torch.tensor(a, dtype=getattr(torch, dtype) if dtype else None)


ERRORS = [
    ("vsplit 1-d", lambda lib: lib.vsplit(T(lib, [1.0, 2.0]), 2)),
    ("hsplit uneven", lambda lib: lib.hsplit(T(lib, [[1.0, 2.0, 3.0]]), 2)),
    ("tensor_split 0-d", lambda lib: lib.tensor_split(T(lib, 1.0), 2)),
    ("tensor_split 0 sections", lambda lib: lib.tensor_split(T(lib, [1.0]), 0)),
    ("tensor_split float tensor", lambda lib: lib.tensor_split(T(lib, [1.0]), T(lib, [1.0]))),
    ("tensor_split dim", lambda lib: lib.tensor_split(T(lib, [1.0]), 2, 1)),
    ("select index", lambda lib: lib.select(T(lib, [1.0, 2.0]), 0, 2)),
    ("select dim", lambda lib: lib.select(T(lib, [1.0, 2.0]), 1, 0)),
    ("fliplr 1-d", lambda lib: lib.fliplr(T(lib, [1.0]))),
    ("flipud 0-d", lambda lib: lib.flipud(T(lib, 1.0))),
    ("rot90 same dims", lambda lib: lib.rot90(T(lib, [[1.0]]), 1, [0, 0])),
    ("rot90 3 dims", lambda lib: lib.rot90(T(lib, [[1.0]]), 1, [0, 1, 0])),
    ("rot90 1-d", lambda lib: lib.rot90(T(lib, [1.0]))),
    ("diag_embed same dims", lambda lib: lib.diag_embed(T(lib, [1.0]), 0, 0, 0)),
    ("block_diag 3-d", lambda lib: lib.block_diag(T(lib, [[[1.0]]]))),
    ("cartesian_prod 2-d", lambda lib: lib.cartesian_prod(T(lib, [[1.0]]), T(lib, [1.0]))),
    ("cartesian_prod dtypes", lambda lib: lib.cartesian_prod(T(lib, [1]), T(lib, [1.0]))),
    ("combinations 2-d", lambda lib: lib.combinations(T(lib, [[1.0]]))),
    ("take_along_dim float", lambda lib: lib.take_along_dim(T(lib, [1.0]), T(lib, [0.0]), 0)),
    ("take_along_dim ndim", lambda lib: lib.take_along_dim(T(lib, [[1.0]]), T(lib, [0]), 0)),
    ("unravel_index float", lambda lib: lib.unravel_index(T(lib, [1.0]), (2,))),
    ("unravel_index shape", lambda lib: lib.unravel_index(T(lib, [1]), (2, -1))),
    ("scatter_add dtype", lambda lib: lib.scatter_add(T(lib, [0.0]), 0, T(lib, [0]), T(lib, [1.0], "float32"))),
    ("scatter_add oob", lambda lib: lib.scatter_add(T(lib, [0.0]), 0, T(lib, [1]), T(lib, [1.0]))),
    ("scatter_add negative", lambda lib: lib.scatter_add(T(lib, [0.0]), 0, T(lib, [-1]), T(lib, [1.0]))),
    ("scatter_add ndim", lambda lib: lib.scatter_add(T(lib, [[0.0]]), 0, T(lib, [0]), T(lib, [1.0]))),
    ("scatter_add index size", lambda lib: lib.scatter_add(T(lib, [0.0, 1.0]), 0, T(lib, [0, 1]), T(lib, [1.0]))),
    ("scatter_reduce reduce", lambda lib: lib.scatter_reduce(T(lib, [0.0]), 0, T(lib, [0]), T(lib, [1.0]), "median")),
    ("index_add oob", lambda lib: lib.index_add(T(lib, [0.0]), 0, T(lib, [1]), T(lib, [1.0]))),
    ("index_add negative", lambda lib: lib.index_add(T(lib, [0.0]), 0, T(lib, [-1]), T(lib, [1.0]))),
    ("index_add float index", lambda lib: lib.index_add(T(lib, [0.0]), 0, T(lib, [0.0]), T(lib, [1.0]))),
    ("index_add 2-d index", lambda lib: lib.index_add(T(lib, [0.0]), 0, T(lib, [[0]]), T(lib, [[1.0]]))),
    ("index_add dtype", lambda lib: lib.index_add(T(lib, [0.0]), 0, T(lib, [0]), T(lib, [1.0], "float32"))),
    ("index_add source shape", lambda lib: lib.index_add(T(lib, [0.0]), 0, T(lib, [0]), T(lib, [1.0, 2.0]))),
    ("index_copy oob", lambda lib: lib.index_copy(T(lib, [0.0]), 0, T(lib, [3]), T(lib, [1.0]))),
    ("index_copy dtype", lambda lib: lib.index_copy(T(lib, [0.0]), 0, T(lib, [0]), T(lib, [1.0], "float32"))),
    ("index_fill oob", lambda lib: lib.index_fill(T(lib, [0.0]), 0, T(lib, [1]), 1.0)),
    ("index_fill int32 index", lambda lib: lib.index_fill(T(lib, [0.0]), 0, T(lib, [0], "int32"), 1.0)),
    ("index_fill 1-d value", lambda lib: lib.index_fill(T(lib, [0.0]), 0, T(lib, [0]), T(lib, [1.0]))),
    ("masked_scatter mask dtype", lambda lib: lib.masked_scatter(T(lib, [0.0]), T(lib, [1]), T(lib, [1.0]))),
    ("masked_scatter short", lambda lib: lib.masked_scatter(T(lib, [0.0, 0.0]), T(lib, [True, True]), T(lib, [1.0]))),
    ("masked_scatter dtype", lambda lib: lib.masked_scatter(T(lib, [0.0]), T(lib, [True]), T(lib, [1.0], "float32"))),
    ("complex dtypes", lambda lib: lib.complex(T(lib, [0.0]), T(lib, [1.0], "float32"))),
    ("complex ints", lambda lib: lib.complex(T(lib, [0]), T(lib, [1]))),
    ("scalar_tensor complex", lambda lib: lib.scalar_tensor(1 + 2j)),
    ("vander 2-d", lambda lib: lib.vander(T(lib, [[1.0]]))),
    ("window int dtype", lambda lib: lib.hann_window(3, dtype=lib.int64)),
    ("window negative", lambda lib: lib.bartlett_window(-1)),
    ("is_nonzero empty", lambda lib: lib.is_nonzero(T(lib, []))),
    ("is_nonzero two", lambda lib: lib.is_nonzero(T(lib, [1, 2]))),
    ("promote uint16", lambda lib: lib.promote_types(lib.uint16, lib.int8)),
]


@pytest.mark.parametrize("name,f", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_pytorch(name, f):
    with pytest.raises(Exception) as want:
        f(torch)
    with pytest.raises(Exception) as got:
        f(st)
    assert issubclass(got.type, want.type) or got.type is want.type, (got.type, want.type, str(got.value))
