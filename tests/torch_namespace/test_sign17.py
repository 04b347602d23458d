"""PyTorch's ``sign``: ``torch.sign``, ``x.sign()``, ``x.sign_()`` and ``out=`` give PyTorch
2.13's bits (0 for NaN, signed zeros as PyTorch's), its dtypes and its gradient, and refuse
a complex input as PyTorch's (``sgn`` takes it); the standard's ``strided.sign`` keeps NaN and
gives a complex input ``z / |z|``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs
from hypothesis.extra import numpy as hnp

import strided as xp
import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")

CALLS = {
    "function": lambda lib, x: lib.sign(x),
    "method": lambda lib, x: x.sign(),
    "in-place": lambda lib, x: x.sign_(),
    "out=": lambda lib, x: lib.sign(x, out=lib.empty(x.shape, dtype=x.dtype, device=x.device)),
}


@settings(max_examples=80, deadline=None)
@given(data=hs.data(), dtype=hs.sampled_from([np.float32, np.float64, np.int32, np.int64]),
       call=hs.sampled_from(sorted(CALLS)))
def test_bits_and_dtype_are_pytorchs(data, dtype, call):
    elems = (hs.floats(width=32, allow_nan=True) | hs.sampled_from([0.0, -0.0])) if dtype in (np.float32, np.float64) \
        else hs.integers(-5, 5)
    a = data.draw(hnp.arrays(dtype, hnp.array_shapes(max_dims=2), elements=elems), label="a")
    f = CALLS[call]
    # (on the CPU: a GPU flushes float32 subnormals to zero, so its sign of 1e-41 is 0)
    got, want = f(st, st.tensor(a, device="cpu")), f(torch, torch.tensor(a))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert host(got).tobytes() == want.numpy().tobytes()


def test_the_gradient_is_pytorchs():
    a = np.array([float("nan"), -2.0, 0.0, 3.0])
    x, t = st.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (st.sign(x) * st.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    (torch.sign(t) * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(host(x.grad), t.grad.numpy())


def test_complex_is_refused_as_pytorchs_and_sgn_takes_it():
    # (PyTorch's sign refuses complex numbers, NotImplementedError: "use torch.sgn"; the
    # standard's strided.sign gives z / |z|, sgn's value)
    a = np.array([3 + 4j, 0j, -2j], np.complex64)
    for lib in (torch, st):
        with pytest.raises(NotImplementedError, match="sgn"):
            lib.sign(lib.tensor(a))
        with pytest.raises(NotImplementedError, match="sgn"):
            lib.tensor(a).sign_()
    np.testing.assert_allclose(host(st.sgn(st.tensor(a))), torch.sgn(torch.tensor(a)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(host(xp.sign(xp.asarray(a))), torch.sgn(torch.tensor(a)).numpy(), rtol=1e-6)


def test_the_standards_sign_keeps_nan():
    assert np.isnan(host(xp.sign(xp.asarray([float("nan")])))).all()


def test_sign_in_place_with_nan_writes_once_and_backpropagates_as_pytorchs():
    # (x.sign_() on a float array holding NaN wrote twice, the sign and then the NaN fix: two
    # version bumps for one in-place operation; under autograd the second write raised)
    x = st.tensor([0.0, float("nan"), -2.0], device="cpu")
    v = x.storage()._version
    assert x.sign_() is x
    assert x.storage()._version - v == 1
    grads = []
    for lib in (st, torch):
        a = lib.tensor([1.0, -2.0, float("nan")], requires_grad=True)
        y = a * 1
        y.sign_()
        (y * lib.tensor([1.0, 2.0, 3.0]) + a).sum().backward()
        grads.append(np.asarray(a.grad.tolist()))
    np.testing.assert_array_equal(grads[0], grads[1])
