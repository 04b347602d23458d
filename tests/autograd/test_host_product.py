"""``linalg_functions.host_product``: the host's product of 1-D/2-D operands behind
``matmul``, ``@`` and ``nn.functional.linear`` (forward and backward), which skips
``ndarray.dot``'s zero fill by calling ``numpy.matmul`` for large products of blasable
real matrices.

The claim under test: the switch changes no bit. References are NumPy's own calls on the
installed BLAS: ``ndarray.dot`` (what every product was before) and ``numpy.matmul``
(NumPy's ``@``); the fused linear against strided's ``matmul`` composite and against the
products written by hand in NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
import strided.torch as storch
from strided._api import linalg_functions as lf

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

F = storch.nn.functional
DTYPES = ["float32", "float64", "complex64", "complex128", "float16", "int64"]
LAYOUTS = ["C", "F", "padded", "strided", "reversed"]


def _laid_out(v, layout):
    """``v``'s values in a new array of the given memory layout."""
    m, n = v.shape
    if layout == "C":
        return v.copy()
    if layout == "F":
        return np.asfortranarray(v)
    if layout == "padded":  # rows longer than the matrix (blasable, not contiguous)
        r = np.zeros((m, n + 3), v.dtype)[:, :n]
    elif layout == "strided":  # every other element (not blasable)
        r = np.zeros((2 * m, 2 * n), v.dtype)[::2, ::2]
    else:  # negative row stride (not blasable)
        r = np.zeros((m, n), v.dtype)[::-1]
    r[...] = v
    return r


def _values(rng, shape, dtype):
    v = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.standard_normal(shape)
    elif np.dtype(dtype).kind == "i":
        v = np.round(v * 10)
    return v.astype(dtype)


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    np.testing.assert_array_equal(np.ascontiguousarray(a).view(np.uint8),
                                  np.ascontiguousarray(b).view(np.uint8))


@settings(max_examples=150, deadline=None)
@given(m=st.integers(1, 9), k=st.integers(1, 9), n=st.integers(1, 9), dtype=st.sampled_from(DTYPES),
       la=st.sampled_from(LAYOUTS), lb=st.sampled_from(LAYOUTS), seed=st.integers(0, 2**16))
def test_host_product_gives_the_bits_of_dot_and_of_numpy_matmul(m, k, n, dtype, la, lb, seed):
    rng = np.random.default_rng(seed)
    va, vb = _values(rng, (m, k), dtype), _values(rng, (k, n), dtype)
    a, b = _laid_out(va, la), _laid_out(vb, lb)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lf, "NO_FILL_BYTES", 0)  # the matmul branch from the first byte
        got = lf.host_product(a, b)
    _same_bits(got, a.dot(b))
    if np.dtype(dtype).kind == "f" and dtype != "float16" and min(m, k, n) > 1 \
            and la in ("C", "F") and lb in ("C", "F"):
        _same_bits(got, np.matmul(a, b))  # (the branch taken: NumPy's @ itself)
    # vectors: dot, as before
    v = _values(rng, (k,), dtype)
    _same_bits(lf.host_product(a, v), a.dot(v))
    _same_bits(lf.host_product(v, b), v.dot(b))
    np.testing.assert_array_equal(va, a)  # the operands are not written
    np.testing.assert_array_equal(vb, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(128, 100, 256), (128, 10, 256), (256, 128, 100), (10, 128, 256), (91, 3, 91)])
def test_large_products_have_numpys_bits(shape, dtype):
    m, k, n = shape
    rng = np.random.default_rng(1)
    a, b = _values(rng, (m, k), dtype), _values(rng, (k, n), dtype)
    for x, y in ((a, b), (np.asfortranarray(a), b), (a, np.asfortranarray(b)), (b.T, a.T)):
        want = x.dot(y)
        _same_bits(lf.host_product(x, y), want)
        _same_bits(np.matmul(x, y), want)
        X, Y = xp.asarray(x, device="cpu"), xp.asarray(y, device="cpu")
        _same_bits(np.asarray(X @ Y), want)
    s = rng.standard_normal((m, k)).astype(dtype)  # a @ a.T: ?syrk in both
    _same_bits(lf.host_product(s, s.T), s.dot(s.T))


def test_the_matmul_branch_is_taken_only_where_the_bits_are_known(monkeypatch):
    calls = []
    real = np.matmul
    monkeypatch.setattr(lf, "_np_matmul", lambda a, b: calls.append((a.shape, b.shape)) or real(a, b))
    rng = np.random.default_rng(2)
    big = lambda *s: _values(rng, s, "float32")  # noqa: E731
    a, b = big(128, 16), big(16, 256)
    lf.host_product(a, b)
    lf.host_product(a, np.asfortranarray(b))
    assert len(calls) == 2
    # below the threshold, vector shapes, non-blasable layouts, other dtypes: dot
    lf.host_product(big(4, 4), big(4, 4))
    lf.host_product(big(1, 16), b)
    lf.host_product(a, big(16, 1))
    lf.host_product(big(20000, 1), big(1, 2))
    lf.host_product(a[:, ::2], b[::2])
    lf.host_product(a[::-1], b)
    lf.host_product(a.astype(np.complex64), b.astype(np.complex64))
    lf.host_product(a.astype(np.float16), b.astype(np.float16))
    lf.host_product(a, b.astype(np.float64))
    assert len(calls) == 2, calls


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_fused_linear_keeps_matmuls_bits_and_numpys_gradients(dtype, bias):
    """The MLP's first layer (784 -> 256, batch 128): the fused node's value is the
    composite's and NumPy's ``x @ w.T + b``; its gradients NumPy's ``g @ w``, ``g.T @ x``
    and ``g.sum(0)``, bit for bit."""
    rng = np.random.default_rng(3)
    a, w, b = _values(rng, (128, 784), dtype), _values(rng, (256, 784), dtype), _values(rng, (256,), dtype)
    g = _values(rng, (128, 256), dtype)
    x = xp.asarray(a.copy(), device="cpu").requires_grad_()
    W = xp.asarray(w.copy(), device="cpu").requires_grad_()
    B = xp.asarray(b.copy(), device="cpu").requires_grad_()
    out = F.linear(x, W, B if bias else None)
    assert out.grad_fn.name() == ("AddmmBackward0" if bias else "MmBackward0")
    want = a @ w.T
    if bias:
        want += b
    _same_bits(np.asarray(out.detach()), want)
    ref = xp.matmul(x, xp.matrix_transpose(W))
    if bias:
        ref = ref + B
    _same_bits(np.asarray(ref.detach()), want)
    out.backward(xp.asarray(g, device="cpu"))
    _same_bits(np.asarray(x.grad), g @ w)
    _same_bits(np.asarray(W.grad), g.T @ a)
    if bias:
        np.testing.assert_allclose(np.asarray(B.grad), g.sum(0), rtol=1e-5 if dtype == "float32" else 1e-12)
    # the composite's gradients through matmul's rule: the same products
    x2 = xp.asarray(a.copy(), device="cpu").requires_grad_()
    W2 = xp.asarray(w.copy(), device="cpu").requires_grad_()
    xp.matmul(x2, xp.matrix_transpose(W2)).backward(xp.asarray(g, device="cpu"))
    _same_bits(np.asarray(x2.grad), np.asarray(x.grad))
    _same_bits(np.asarray(W2.grad), np.asarray(W.grad))


@settings(max_examples=120, deadline=None)
@given(m=st.sampled_from([1, 2, 3, 8, 64]), k=st.sampled_from([1, 2, 5, 64]), n=st.sampled_from([1, 2, 7, 64]),
       dtype=st.sampled_from(["float32", "float64"]), wt=st.booleans(), seed=st.integers(0, 2**16))
def test_matmuls_gradients_are_the_host_products(m, k, n, dtype, wt, seed):
    """matmul's rule (``_matmul_grads``, a plain backward on the host) makes its two
    products as the forward product does: ``ndarray.dot``'s bits (NumPy's, the reference),
    with the weight's gradient of a transposed weight as ``(g.T @ x).T``; so a composite
    ``x @ w.T`` and the fused ``linear`` give the same gradients at every shape, rows and
    columns of one included."""
    rng = np.random.default_rng(seed)
    a, g = _values(rng, (m, k), dtype), _values(rng, (m, n), dtype)
    w = _values(rng, (n, k), dtype) if wt else _values(rng, (k, n), dtype)
    x = xp.asarray(a.copy(), device="cpu").requires_grad_()
    W = xp.asarray(w.copy(), device="cpu").requires_grad_()
    out = xp.matmul(x, xp.matrix_transpose(W) if wt else W)
    out.backward(xp.asarray(g, device="cpu"))
    if wt:
        _same_bits(np.asarray(x.grad), g.dot(w))
        _same_bits(np.asarray(W.grad), g.T.dot(a))
        x2 = xp.asarray(a.copy(), device="cpu").requires_grad_()
        W2 = xp.asarray(w.copy(), device="cpu").requires_grad_()
        F.linear(x2, W2).backward(xp.asarray(g, device="cpu"))
        _same_bits(np.asarray(x2.grad), np.asarray(x.grad))
        _same_bits(np.asarray(W2.grad), np.asarray(W.grad))
    else:
        _same_bits(np.asarray(x.grad), g.dot(w.T))
        _same_bits(np.asarray(W.grad), a.T.dot(g))
