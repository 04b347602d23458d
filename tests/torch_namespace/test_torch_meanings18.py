"""The names ``strided``'s standard namespace gives another meaning (docs/torch-differences.md)
mean PyTorch's in ``strided.torch``: ``nonzero`` (a (count, ndim) array), ``diagonal`` (the
first two dimensions), ``tril``/``triu`` (``diagonal``), ``take`` (of the flattened input),
``round`` (``decimals``), ``tensordot`` (``dims``), ``where`` (one argument; two scalars),
``meshgrid`` ('ij' by default), the ``logical_*`` functions (of any dtype), ``searchsorted``
(``right``, ``out_int32``, batched), ``std_mean``/``var_mean`` (legacy positional ``unbiased``),
``scatter`` (``reduce``), ``bincount`` (float32 weights stay float32), ``histogram`` (float
counts and edges), ``nanmedian`` (the lower middle value) and ``nanquantile``. They were the standard's functions, re-exported: ``torch.diagonal(x)`` of a 3-d ``x`` took the last
two dimensions, ``torch.nonzero`` gave a tuple, without a word."""

from __future__ import annotations

import numpy as np
import pytest

import strided
import strided.torch as st
from _parity import to_numpy

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:torch.meshgrid:UserWarning")  # (PyTorch's, for 'ij' unsaid)

X = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]])

CASES = {
    "nonzero": lambda L, x: L.nonzero(x),
    "nonzero as_tuple": lambda L, x: L.nonzero(x, as_tuple=True)[1],
    "diagonal of 3-d": lambda L, x: L.diagonal(x.reshape(1, 2, 3)),
    "diagonal offset dims": lambda L, x: L.diagonal(x.reshape(1, 2, 3), 1, 1, 2),
    "diagonal keywords": lambda L, x: L.diagonal(x.reshape(2, 1, 3), offset=-1, dim1=2, dim2=0),
    "tril positional": lambda L, x: L.tril(x, 1),
    "triu diagonal=": lambda L, x: L.triu(x, diagonal=-1),
    "take of 2-d": lambda L, x: L.take(x, L.tensor([[0, 4], [5, 1]])),
    "round decimals": lambda L, x: L.round(x / 3, decimals=2),
    "round negative decimals": lambda L, x: L.round(x * 37, decimals=-1),
    "round": lambda L, x: L.round(x / 2),
    "where(condition)": lambda L, x: L.where(x > 2)[1],
    "where floats": lambda L, x: L.where(x > 2, 1.0, 0.0),
    "where ints": lambda L, x: L.where(x > 2, 1, 0),
    "where int, float": lambda L, x: L.where(x > 2, 1, 2.5),
    "where bool, int": lambda L, x: L.where(x > 2, True, 0),
    "where array, int": lambda L, x: L.where(x > 2, x, 0),
    "tensordot lists": lambda L, x: L.tensordot(x, x, dims=([1], [1])),
    "tensordot int": lambda L, x: L.tensordot(x, x.T, dims=1),
    "tensordot 0": lambda L, x: L.tensordot(x, x, dims=0),
    "tensordot tensor": lambda L, x: L.tensordot(x, x, dims=L.tensor([[1], [1]])),
    "meshgrid default ij": lambda L, x: L.meshgrid(L.arange(2), L.arange(3))[0],
    "meshgrid list": lambda L, x: L.meshgrid([L.arange(2), L.arange(3)], indexing="xy")[1],
    "logical_and floats": lambda L, x: L.logical_and(x, x - 3),
    "logical_or float, int": lambda L, x: L.logical_or(x - 3, L.tensor([0, 0, 1])),
    "logical_xor": lambda L, x: L.logical_xor(x, x - 5),
    "logical_not float": lambda L, x: L.logical_not(x - 3),
    "searchsorted right": lambda L, x: L.searchsorted(L.tensor([1.0, 2.0, 3.0]), L.tensor([2.0, 0.5]), right=True),
    "searchsorted side": lambda L, x: L.searchsorted(L.tensor([1.0, 2.0, 3.0]), L.tensor([[2.0, 9.0]]), side="right"),
    "searchsorted int32": lambda L, x: L.searchsorted(L.tensor([1.0, 2.0, 3.0]), L.tensor([2.5]), out_int32=True),
    "searchsorted scalar": lambda L, x: L.searchsorted(L.tensor([1.0, 2.0, 3.0]), 2.0),
    "searchsorted batched": lambda L, x: L.searchsorted(L.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]), L.tensor([[2.0], [5.0]])),
    "searchsorted sorter": lambda L, x: L.searchsorted(L.tensor([3.0, 1.0, 2.0]), L.tensor([2.5]), sorter=L.tensor([1, 2, 0])),
    "std_mean legacy": lambda L, x: L.std_mean(x, 1, False, True)[0],
    "var_mean legacy": lambda L, x: L.var_mean(x, 0, True)[1],
    "std_mean unbiased only": lambda L, x: L.std_mean(x, False)[0],
    "scatter add": lambda L, x: L.scatter(x, 1, L.tensor([[0], [2]]), x * 3, reduce="add"),
    "scatter multiply value": lambda L, x: L.scatter(x, 1, L.tensor([[0, 0], [2, 1]]), 2.0, reduce="multiply"),
    "scatter value": lambda L, x: L.scatter(x, 0, L.tensor([[1, 0, 1]]), 7.5),
    "bincount float32 weights": lambda L, x: L.bincount(L.tensor([0, 1, 1, 3]), L.tensor([0.5, 1.0, 2.0, 1.0])),
    "bincount": lambda L, x: L.bincount(L.tensor([0, 1, 1, 3]), minlength=6),
    "histogram": lambda L, x: L.histogram(x, 3)[0],
    "histogram edges weight": lambda L, x: L.histogram(x, 4, range=(0.0, 4.0), weight=x, density=True)[1],
    "nanmedian": lambda L, x: L.nanmedian(x),
    "nanmedian dim": lambda L, x: L.nanmedian(x, 1, True)[1],
    "nanquantile": lambda L, x: L.nanquantile(x, 0.4, dim=0, interpolation="lower"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_value_and_dtype_are_pytorchs(case):
    f = CASES[case]
    want = f(torch, torch.tensor(X)).numpy()
    got = to_numpy(f(st, st.tensor(X)))
    assert got.dtype == want.dtype
    # (exact, but for the last bit of a square root: std's)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def test_out_is_written():
    for name, args in (("tril", (1,)), ("triu", (0,)), ("nonzero", ())):
        o = getattr(st, name)(st.tensor(X), *args)
        buf = st.empty(o.shape, dtype=o.dtype)
        r = getattr(st, name)(st.tensor(X), *args, out=buf)
        assert r is buf
        np.testing.assert_array_equal(to_numpy(buf), getattr(torch, name)(torch.tensor(X), *args).numpy())
    buf = st.empty((2, 3))
    st.where(st.tensor(X) > 2, 1.0, 0.0, out=buf)
    np.testing.assert_array_equal(to_numpy(buf), np.where(X > 2, 1.0, 0.0))


@pytest.mark.parametrize("case", ["diagonal keywords", "tril positional", "take of 2-d", "where array, int",
                                  "tensordot lists", "round decimals"])
def test_gradients_are_pytorchs(case):
    f = CASES[case]
    tx = torch.tensor(X, requires_grad=True)
    f(torch, tx).sum().backward()
    sx = strided.asarray(X)
    sx.requires_grad_()
    f(st, sx).sum().backward()
    np.testing.assert_array_equal(to_numpy(sx.grad), tx.grad.numpy())


def test_the_standards_functions_keep_theirs():
    x = strided.asarray(X.reshape(1, 2, 3))
    assert strided.diagonal(x).shape == (1, 2)  # the last two dimensions
    assert isinstance(strided.nonzero(strided.asarray(X)), tuple)
    with pytest.raises(TypeError):
        strided.where(strided.asarray(X) > 2)
