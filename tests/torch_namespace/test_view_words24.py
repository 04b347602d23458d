"""PyTorch's words for views mean views: every function and method PyTorch documents as
returning a view (and ``conj`` of a real tensor, which returns the tensor) shares memory in
strided.torch exactly where PyTorch's does (a write through the result reaches the input).

``torch.real`` and ``torch.imag`` against PyTorch 2.13: views of a complex tensor's memory
(a write through one reaches the tensor, as PyTorch's), the same layouts, ``real`` of a real
tensor is the tensor itself, ``imag`` of a real tensor is refused, and gradients flow.

(``strided.real``/``strided.imag`` are the standard's functions: new arrays; only the PyTorch
namespace's are views.)"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402


def layout(x):
    return tuple(x.shape), tuple(x.stride()), x.storage_offset()


@settings(max_examples=60, deadline=None)
@given(shape=hs.lists(hs.integers(2, 4), min_size=1, max_size=3), dtype=hs.sampled_from(["complex64", "complex128"]),
       start=hs.integers(0, 1), step=hs.integers(1, 2), transpose=hs.booleans(), part=hs.sampled_from(["real", "imag"]),
       seed=hs.integers(0, 2**16))
def test_parts_are_views_as_pytorchs(shape, dtype, start, step, transpose, part, seed):
    # (non-empty views: an empty one's storage offset is strided's own, 0, where PyTorch keeps
    # the slice's start)
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    s, t = st.tensor(a), torch.tensor(a)
    sl = (slice(start, None, step),)
    s, t = s[sl], t[sl]
    if transpose and s.ndim > 1:
        s, t = s.transpose(0, -1), t.transpose(0, -1)
    ps, pt = getattr(st, part)(s), getattr(torch, part)(t)
    assert layout(ps) == layout(pt)
    assert str(ps.dtype).split(".")[-1] == str(pt.dtype).split(".")[-1]
    np.testing.assert_array_equal(to_numpy(ps), pt.numpy())
    # a write through the part reaches the complex tensor, as PyTorch's
    ps.fill_(7.5)
    pt.fill_(7.5)
    np.testing.assert_array_equal(to_numpy(s), t.numpy())


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_real_of_a_real_tensor_is_the_tensor(dtype):
    s = st.tensor(np.array([1, 0, 2], dtype=dtype))
    t = torch.tensor(np.array([1, 0, 2], dtype=dtype))
    assert (torch.real(t) is t) and (st.real(s) is s)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_imag_of_a_real_tensor_is_refused(dtype):
    with pytest.raises(RuntimeError, match="non-complex"):
        torch.imag(torch.tensor(np.array([1, 0], dtype=dtype)))
    with pytest.raises(RuntimeError, match=f"non-complex.*{dtype}"):
        st.imag(st.tensor(np.array([1, 0], dtype=dtype)))


def test_non_tensor_input_is_refused():
    for f in (st.real, st.imag):
        with pytest.raises(TypeError, match="must be a tensor"):
            f([1.0, 2.0])
    with pytest.raises(TypeError):
        torch.real([1.0, 2.0])


def test_gradients_are_pytorchs():
    a = np.array([1 + 2j, 3 - 4j, -0.5 + 0.25j])
    zs = st.tensor(a, requires_grad=True)
    zt = torch.tensor(a, requires_grad=True)
    for z, lib in ((zs, st), (zt, torch)):
        (lib.real(z) ** 2 * 3 + lib.imag(z) * lib.real(z)).sum().backward()
    np.testing.assert_allclose(to_numpy(zs.grad), zt.grad.numpy(), rtol=1e-12)


def test_standard_namespace_keeps_new_arrays():
    """``strided.real`` (the standard's) is a new array: a write into it leaves ``z`` alone."""
    z = strided.asarray([1 + 2j, 3 + 4j])
    r = strided.real(z)
    r[0] = 9.0
    assert complex(z[0]) == 1 + 2j


# (name, call): PyTorch's "Tensor Views" list, plus the calls that return a view when they can
VIEW_CALLS = {
    "adjoint": lambda L, x: L.adjoint(x), "detach": lambda L, x: x.detach(), "diagonal": lambda L, x: L.diagonal(x),
    "diagonal method": lambda L, x: x.diagonal(1), "expand_as": lambda L, x: x[:1].expand_as(x),
    "expand": lambda L, x: x[:, :1].expand(-1, 5), "broadcast_to": lambda L, x: L.broadcast_to(x[:1], (3, 4)),
    "movedim": lambda L, x: L.movedim(x, 0, 1), "moveaxis": lambda L, x: L.moveaxis(x, 0, 1),
    "narrow": lambda L, x: L.narrow(x, 0, 1, 2), "narrow method": lambda L, x: x.narrow(1, 0, 2),
    "permute": lambda L, x: L.permute(x, (1, 0)), "select": lambda L, x: L.select(x, 0, 1), "select method": lambda L, x: x.select(1, 1),
    "squeeze": lambda L, x: L.squeeze(x[None]), "squeeze dim": lambda L, x: L.squeeze(x[:, None], 1),
    "transpose": lambda L, x: L.transpose(x, 0, 1), "t": lambda L, x: L.t(x), "T": lambda L, x: x.T, "H": lambda L, x: x.H,
    "mT": lambda L, x: x.mT, "mH": lambda L, x: x.mH, "unflatten": lambda L, x: L.unflatten(x, 1, (2, 2)),
    "unfold": lambda L, x: x.unfold(1, 2, 1), "unsqueeze": lambda L, x: L.unsqueeze(x, 0), "unsqueeze method": lambda L, x: x.unsqueeze(-1),
    "view": lambda L, x: x.view(16), "view -1": lambda L, x: x.view(-1, 2), "view_as": lambda L, x: x.view_as(x),
    "view dtype": lambda L, x: x.view(L.int32), "unbind": lambda L, x: L.unbind(x)[1], "unbind method": lambda L, x: x.unbind(1)[0],
    "split": lambda L, x: L.split(x, 2)[1], "split sizes": lambda L, x: x.split([1, 3])[0],
    "split_with_sizes": lambda L, x: L.split_with_sizes(x, [1, 3])[1], "hsplit": lambda L, x: L.hsplit(x, 2)[1],
    "vsplit": lambda L, x: L.vsplit(x, 2)[1], "tensor_split": lambda L, x: L.tensor_split(x, 2)[1],
    "chunk": lambda L, x: L.chunk(x, 2)[1], "chunk method": lambda L, x: x.chunk(2, 1)[0],
    "swapaxes": lambda L, x: L.swapaxes(x, 0, 1), "swapdims": lambda L, x: L.swapdims(x, 0, 1),
    "reshape": lambda L, x: L.reshape(x, (16,)), "reshape method": lambda L, x: x.reshape(2, 8), "flatten": lambda L, x: L.flatten(x),
    "ravel": lambda L, x: L.ravel(x), "contiguous": lambda L, x: x.contiguous(), "as_strided": lambda L, x: L.as_strided(x, (2, 2), (1, 2)),
    "atleast_2d": lambda L, x: L.atleast_2d(x), "atleast_3d": lambda L, x: L.atleast_3d(x),
    "basic index": lambda L, x: x[1, :], "ellipsis": lambda L, x: x[..., 1], "None": lambda L, x: x[None, 1:], ".data": lambda L, x: x.data,
    "to same dtype": lambda L, x: x.to(L.float32), "type_as": lambda L, x: x.type_as(x), "float()": lambda L, x: x.float(),
    "conj": lambda L, x: L.conj(x), "conj method": lambda L, x: x.conj(), "conj_physical": lambda L, x: L.conj_physical(x),
    "resolve_conj": lambda L, x: L.resolve_conj(x), "real": lambda L, x: L.real(x),
    # and calls that copy, to show the test tells the two apart
    "flip": lambda L, x: L.flip(x, (0,)), "clone": lambda L, x: x.clone(), "hstack": lambda L, x: L.hstack([x]),
    "reshape of a transpose": lambda L, x: x.T.reshape(16), "to float64": lambda L, x: x.to(L.float64),
}


def _shares(L, call):
    x = L.tensor(np.arange(16.0, dtype=np.float32).reshape(4, 4))
    before = x.clone()
    r = call(L, x)
    r.fill_(-1)
    return not bool(L.equal(x, before))


@pytest.mark.parametrize("name", list(VIEW_CALLS))
def test_shares_memory_where_pytorchs_does(name):
    assert _shares(st, VIEW_CALLS[name]) == _shares(torch, VIEW_CALLS[name])


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_conj_of_a_real_tensor_is_the_tensor(dtype):
    a = np.array([1, 0, 2], dtype=dtype)
    for L in (st, torch):
        x = L.tensor(a)
        assert L.conj(x) is x and x.conj() is x and L.conj_physical(x) is x and x.conj_physical() is x


def test_conj_values_and_out():
    a = np.array([1 + 2j, -3 - 0.5j], dtype="complex64")
    s, t = st.tensor(a), torch.tensor(a)
    np.testing.assert_array_equal(to_numpy(st.conj(s)), torch.conj(t).resolve_conj().numpy())
    os_, ot = st.empty(2, dtype=st.complex64), torch.empty(2, dtype=torch.complex64)
    assert st.conj_physical(s, out=os_) is os_
    torch.conj_physical(t, out=ot)
    np.testing.assert_array_equal(to_numpy(os_), ot.numpy())
    r = st.tensor([1.0, 2.0])
    o = st.empty(2)
    assert st.conj_physical(r, out=o) is o and to_numpy(o).tolist() == [1.0, 2.0]
