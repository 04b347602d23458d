"""Spellings PyTorch 2.13 accepts that strided.torch refused (a differential sweep of
PyTorch's OpInfo samples), each compared with PyTorch itself:

- the conversion methods' ``memory_format=`` (``x.float(memory_format=torch.channels_last)``);
- ``einsum``'s sublist form, ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (NumPy's too);
- ``x.scatter(..., reduce='add')`` and ``x.scatter_(..., reduce='multiply')`` (the function had it);
- ``x.repeat_interleave(..., output_size=)``;
- ``torch.normal(..., layout=, pin_memory=)``;
- ``F.hardtanh``/``F.relu6`` of integers (a clamp to the truncated bounds, in the dtype) and
  ``F.softsign``/``F.tanhshrink`` of integers (in float32);
- complex inputs of ``sigmoid``, ``silu``, ``logsumexp``, ``F.tanhshrink``/``softsign``/``normalize``;
- the dropouts that drop nothing (``training=False`` or ``p=0``) return any input, as PyTorch's.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402
from _parity import to_numpy  # noqa: E402


def _both(f):
    """The same dtype, shape, strides and values, or the same error type."""
    out = []
    for L in (torch, S):
        try:
            r = f(L)
        except Exception as e:  # noqa: BLE001 -- compared below
            out.append(type(e))
            continue
        out.append((str(r.dtype).rsplit(".", 1)[-1], tuple(r.shape), tuple(r.stride()), to_numpy(r)))
    if isinstance(out[0], type) or isinstance(out[1], type):
        assert out[1] == out[0]
        return
    (d0, s0, st0, v0), (d1, s1, st1, v1) = out
    assert (d1, s1, st1) == (d0, s0, st0)
    np.testing.assert_allclose(v1, v0, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("conv", ["float", "double", "int", "long", "short", "bool", "byte", "char", "cfloat"])
@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format", "preserve_format"])
def test_conversions_take_memory_format(conv, fmt):
    _both(lambda L: getattr(L.arange(120.).reshape(2, 3, 4, 5), conv)(memory_format=getattr(L, fmt)))
    _both(lambda L: getattr(L.arange(120.).reshape(2, 3, 4, 5).permute(0, 2, 3, 1), conv)(
        memory_format=getattr(L, fmt)))
    with pytest.raises(TypeError):
        getattr(S.ones(2), conv)(S.channels_last)  # (keyword-only, as PyTorch's)


@pytest.mark.parametrize("form", [
    lambda L, a, b: L.einsum(a, [0, 1], b, [1, 2], [0, 2]),
    lambda L, a, b: L.einsum(a, [0, 1], b, [1, 2]),
    lambda L, a, b: L.einsum(a, [Ellipsis, 1], [Ellipsis]),
    lambda L, a, b: L.einsum(a, [5, 51], b, [51, 30], [30, 5]),
    lambda L, a, b: L.einsum(a, [0, 0]) if a.shape[0] == a.shape[1] else L.einsum(a, [0, 1], [1]),
])
def test_einsum_sublist_form(form):
    def run(L):
        a = L.arange(6.0).reshape(2, 3).requires_grad_(True)
        b = L.arange(12.0).reshape(3, 4)
        r = form(L, a, b)
        (r * r).sum().backward()
        return a.grad
    _both(lambda L: form(L, L.arange(6.0).reshape(2, 3), L.arange(12.0).reshape(3, 4)))
    _both(run)


def test_einsum_sublist_errors():
    a = S.ones(2, 2)
    with pytest.raises(ValueError, match="52"):
        S.einsum(a, [0, 52])
    with pytest.raises(TypeError):
        S.einsum(a, "ij")


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("src", ["array", "number"])
def test_scatter_methods_take_reduce(reduce, src):
    def index(L):
        return L.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])

    def value(L):
        return L.full((2, 4), 3.0) if src == "array" else 3.0
    _both(lambda L: L.ones(3, 4).scatter(0, index(L), value(L), reduce=reduce))

    def inplace(L):
        x = L.ones(3, 4)
        v = x._version
        r = x.scatter_(0, index(L), value(L), reduce=reduce)
        assert r is x and x._version > v
        return x
    _both(inplace)


def test_repeat_interleave_method_takes_output_size():
    _both(lambda L: L.arange(4.0).reshape(4, 1).repeat_interleave(L.tensor([0, 1, 2, 3]), dim=0, output_size=6))
    _both(lambda L: L.arange(3).repeat_interleave(2, output_size=6))
    for L in (torch, S):
        with pytest.raises(RuntimeError):
            L.arange(3).repeat_interleave(2, output_size=5)


def test_normal_takes_layout_and_pin_memory():
    r = S.normal(0.3, 1.0, [2, 2], dtype=S.float64, layout=S.strided, device="cpu", pin_memory=False)
    t = torch.normal(0.3, 1.0, [2, 2], dtype=torch.float64, layout=torch.strided, device="cpu", pin_memory=False)
    assert (str(r.dtype).rsplit(".")[-1], tuple(r.shape)) == (str(t.dtype).rsplit(".")[-1], tuple(t.shape))
    with pytest.raises(RuntimeError, match="layout"):
        S.normal(0.0, 1.0, (2,), layout=S.sparse_coo)


@pytest.mark.parametrize("d", ["int64", "int32", "int16", "uint8", "int8"])
@pytest.mark.parametrize("form", [
    lambda F, x: F.hardtanh(x),
    lambda F, x: F.hardtanh(x, -0.5, 0.5),
    lambda F, x: F.hardtanh(x, -2.7, 3.9),
    lambda F, x: F.relu6(x),
    lambda F, x: F.softsign(x),
    lambda F, x: F.tanhshrink(x),
])
def test_activations_of_integers(d, form):
    _both(lambda L: form(L.nn.functional, L.tensor([-3, -1, 0, 1, 2, 7, 100]).to(getattr(L, d))))


@pytest.mark.parametrize("d", ["int64", "uint8"])
def test_inplace_integer_hardtanh(d):
    def run(L):
        x = L.tensor([-3, -1, 0, 1, 2, 7]).to(getattr(L, d))
        r = L.nn.functional.relu6(x, inplace=True)
        assert r is x
        return x
    _both(run)
    for L in (torch, S):
        with pytest.raises((ValueError, RuntimeError)):
            L.nn.functional.hardtanh(L.tensor([1, 2]), 0.7, 0.2)


_COMPLEX = {
    "sigmoid": lambda L, x: L.sigmoid(x),
    "sigmoid_method": lambda L, x: x.sigmoid(),
    "F.sigmoid": lambda L, x: L.nn.functional.sigmoid(x),
    "logsumexp": lambda L, x: L.logsumexp(x, 1),
    "logsumexp_keepdim": lambda L, x: x.logsumexp(0, keepdim=True),
    "tanhshrink": lambda L, x: L.nn.functional.tanhshrink(x),
    "softsign": lambda L, x: L.nn.functional.softsign(x),
    "normalize": lambda L, x: L.nn.functional.normalize(x),
    "normalize_p1": lambda L, x: L.nn.functional.normalize(x, p=1, dim=0),
}


@pytest.mark.parametrize("name", sorted(_COMPLEX))
@pytest.mark.parametrize("d", ["complex64", "complex128"])
def test_complex_inputs_and_gradients(name, d):
    """Functions PyTorch computes (and differentiates) for complex inputs, that strided
    refused: values, and the gradient of Re(sum(out * c)) for a complex c."""
    z = np.array([[0.5 + 1j, -1 + 0.3j, 2 - 1j], [0.1j, 1, -0.5 - 0.5j]])
    got = []
    for L in (torch, S):
        x = L.tensor(z).to(getattr(L, d)).requires_grad_(True)
        r = _COMPLEX[name](L, x)
        (r * L.tensor(np.full(tuple(r.shape), 1 + 2j)).to(r.dtype)).real.sum().backward()
        got.append((str(r.dtype).rsplit(".", 1)[-1], to_numpy(r.resolve_conj() if L is torch else r),
                    to_numpy(x.grad.resolve_conj() if L is torch else x.grad)))
    assert got[1][0] == got[0][0]
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(got[1][2], got[0][2], rtol=2e-4, atol=1e-5)


@pytest.mark.parametrize("d", ["complex64", "complex128"])
def test_complex_silu(d):
    # (PyTorch computes silu of complex numbers but refuses their gradient; strided's is the
    # holomorphic derivative, checked by finite differences)
    z = np.array([0.5 + 1j, -1 + 0.3j, 2 - 1j])
    _both(lambda L: L.nn.functional.silu(L.tensor(z).to(getattr(L, d))))
    if d == "complex128":
        x = S.tensor(z).requires_grad_(True)
        c = np.array([1 + 2j, -0.5j, 2.0])
        (S.nn.functional.silu(x) * S.tensor(c)).real.sum().backward()
        f = lambda v: v / (1 + np.exp(-v))  # noqa: E731
        h = 1e-6
        fd = [(np.real((f(z + h * e) - f(z - h * e)) * c) + 1j * np.real((f(z + 1j * h * e) - f(z - 1j * h * e)) * c)).sum()
              / (2 * h) for e in np.eye(3)]
        np.testing.assert_allclose(to_numpy(x.grad), fd, rtol=1e-6)


def test_sigmoid_of_a_mask():
    _both(lambda L: L.nn.functional.sigmoid(L.tensor([True, False])))


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d"])
@pytest.mark.parametrize("d", ["int64", "complex128", "bool"])
@pytest.mark.parametrize("training, p", [(False, 0.5), (True, 0.0)])
def test_dropout_that_drops_nothing_returns_any_input(name, d, training, p):
    # (PyTorch's _dropout_impl returns the input before looking at its dtype)
    for L in (torch, S):
        x = L.ones(2, 3, 4, dtype=getattr(L, d))
        assert getattr(L.nn.functional, name)(x, p=p, training=training) is x
    with pytest.raises((TypeError, RuntimeError, NotImplementedError)):
        getattr(S.nn.functional, name)(S.ones(2, 3, 4, dtype=getattr(S, d)), p=0.5, training=True)
