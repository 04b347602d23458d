"""The formulas' conjugate (autograd/_rules.py ``_conj``): compiled, ``_cgrad.conj`` answers an
Array of a real dtype itself (its own conjugate) and hands anything else to the Python
definition. Both against the definition of a conjugate: NumPy's ``conjugate`` of the values,
and identity for what is real."""

from __future__ import annotations

import numpy as np
import pytest

import strided as st
from strided.autograd import _rules as R

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dt", _DTYPES)
@pytest.mark.parametrize("named", [False, True])
def test_conj_of_arrays(dt, named):
    v = (np.arange(6).reshape(2, 3) * (1 + 2j if dt.startswith("complex") else 1)).astype(dt)
    x = st.asarray(v, device="cpu", names=("a", "b") if named else None)
    for f in {R._conj, getattr(R, "_conj_py", R._conj)}:
        r = f(x)
        if np.dtype(dt).kind == "c":
            assert r is not x and r.dtype == x.dtype
            assert host(r).tobytes() == np.conjugate(v).tobytes()
        else:
            assert r is x  # (real: its own conjugate, the same object as the definition gives)


@pytest.mark.parametrize("v", [2.5, 3, True, 1 - 2j, np.float32(2.5), np.complex64(1 + 1j),
                               np.complex128(2 - 3j), None, "text"])
def test_conj_of_other_values(v):
    r = R._conj(v)
    if isinstance(v, (complex, np.complexfloating)):
        assert r == np.conjugate(v) and type(r) is type(v)
    else:
        assert r is v


def test_conj_in_a_complex_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j])
    b = np.array([0.5 - 1j, 2 + 0j, -1 + 1j])
    x = st.asarray(a, device="cpu", requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y = st.sum(st.abs(x * st.asarray(b, device="cpu")) ** 2)
    ty = (torch.abs(tx * torch.tensor(b)) ** 2).sum()
    y.backward()
    ty.backward()
    np.testing.assert_allclose(host(x.grad.detach()), tx.grad.numpy(), rtol=1e-13)


@pytest.mark.parametrize("s", [2j, np.complex64(2j), np.complex128(0.5 - 1.5j), np.complex64(-1 + 0.5j)])
def test_a_numpy_complex_scalar_factor_is_conjugated(s):
    # d/dx sum |x s + 1|^2 = 2 (x s + 1) conj(s) (PyTorch's convention for a real loss);
    # a NumPy complex64 scalar was taken as real: the gradient came out with conj(s) -> s
    a = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j])
    x = st.asarray(a, device="cpu", requires_grad=True)
    st.sum(st.abs(x * s + 1) ** 2).backward()
    sc = complex(s)
    want = 2 * (a * sc + 1) * np.conjugate(sc)
    np.testing.assert_allclose(host(x.grad.detach()), want, rtol=1e-6)


@pytest.mark.parametrize("base", [1.5 + 0.5j, np.complex64(1.5 + 0.5j), np.complex128(-2 + 1j)])
def test_a_numpy_complex_base_of_pow(base):
    # d/dx sum |b ** x|^2 for a complex scalar base: the formula's log(b) must be complex
    torch = pytest.importorskip("torch")
    a = np.array([1 + 2j, -0.5 + 0.25j])
    x = st.asarray(a, device="cpu", requires_grad=True)
    st.sum(st.abs(base ** x) ** 2).backward()
    tx = torch.tensor(a, requires_grad=True)
    (torch.abs(complex(base) ** tx) ** 2).sum().backward()
    np.testing.assert_allclose(host(x.grad.detach()), tx.grad.numpy(), rtol=1e-6)
