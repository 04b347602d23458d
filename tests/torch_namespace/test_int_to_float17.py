"""PyTorch's floating-point functions take integer and boolean tensors: ``torch.sqrt``,
``torch.exp``, ``torch.sin``, ... (and their aliases ``arccos``, ...) compute in the default
float dtype, as PyTorch 2.13 does and as strided's methods already did; where PyTorch refuses
integers (``hypot``, ``logaddexp``) strided refuses them too. The standard's functions keep
refusing integers (the standard's "floating-point" category)."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")

UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1", "log",
         "log1p", "log2", "log10", "reciprocal", "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh",
         "arccos", "arcsin", "arctan", "arccosh", "arcsinh", "arctanh"]
BINARY = ["atan2", "copysign", "arctan2"]


def same(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    np.testing.assert_allclose(host(got), want.numpy(), rtol=2e-6, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_as_pytorch(name, dtype):
    a = np.array([0, 1, 2, 3], dtype=dtype) if dtype != "bool" else np.array([True, False, True])
    got = getattr(st, name)(st.tensor(a))
    want = getattr(torch, name)(torch.tensor(a))
    same(got, want)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int32", "float64"), ("int16", "float32"), ("float64", "int64")])
def test_binary_as_pytorch(name, dtypes):
    a, b = np.array([1, -2, 3], dtype=dtypes[0]), np.array([2, 2, -1], dtype=dtypes[1])
    same(getattr(st, name)(st.tensor(a), st.tensor(b)), getattr(torch, name)(torch.tensor(a), torch.tensor(b)))


def test_out_and_float_inputs_as_before():
    out = st.empty(3)
    r = st.sqrt(st.tensor([1, 4, 9]), out=out)
    assert r is out and host(out).tolist() == [1.0, 2.0, 3.0]
    x = st.tensor([0.5, 2.0], dtype=st.float64, requires_grad=True)
    y = st.exp(x)
    assert y.dtype is st.float64 and y.grad_fn is not None


@pytest.mark.parametrize("name", ["hypot", "logaddexp"])
def test_where_pytorch_refuses_integers_so_does_strided(name):
    with pytest.raises(RuntimeError):
        getattr(torch, name)(torch.tensor([1, 2]), torch.tensor([1, 2]))
    with pytest.raises(TypeError):
        getattr(st, name)(st.tensor([1, 2]), st.tensor([1, 2]))


def test_the_standards_functions_refuse_integers():
    with pytest.raises(TypeError):
        xp.sqrt(xp.asarray([1, 4]))
