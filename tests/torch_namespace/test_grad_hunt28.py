"""Gradients PyTorch's own OpInfo samples found different (a sweep of ``op_db``'s float64
samples, backward of a random projection on PyTorch 2.13 and on strided.torch), each compared
here with PyTorch's measured gradients on inputs that reach the case:

- ``clamp(x, min, max)`` with array bounds where ``min > max`` (the result is ``max``: only
  ``max`` receives the gradient) or ``min == max`` (neither bound does);
- ``index_fill`` with a repeated index: the 0-d value's gradient counts each slice once;
- ``linalg.eigh`` (either ``UPLO``): the gradient is the Hermitian part, as PyTorch's;
- ``linalg.pinv``: PyTorch's ``pinv_backward`` (with ``hermitian`` too), an empty matrix's
  result in the graph;
- ``fill(x, value)``: in the graph (zero for ``x``, the sum for a 0-d ``value``);
- ``cholesky`` of a complex matrix: PyTorch's cholesky_backward (not Hermitian);
- ``std``/``var`` without degrees of freedom: PyTorch's NaN (one element) and finite (a
  correction beyond the count) gradients.

And one where PyTorch's gradient is not the derivative: ``as_strided_scatter``'s gradient
for ``input`` (PyTorch gives the scattered positions the gradient, where the derivative is
the untouched ones': albanD's review of pytorch#77128 said the formula "looks wrong"): strided
keeps the derivative, checked by finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402
from _parity import to_numpy  # noqa: E402


def _grads(L, make, fn, cot_seed=0):
    """The gradients of sum(fn(*leaves) * c) for leaves made by ``make(L)``."""
    leaves = [t.requires_grad_(True) for t in make(L)]
    out = fn(L, *leaves)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    rng = np.random.default_rng(cot_seed)
    loss = sum((o * L.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in outs)
    gs = (torch if L is torch else S).autograd.grad(loss, leaves, allow_unused=True)
    return [None if g is None else to_numpy(g) for g in gs]


def _same(make_np, fn, cot_seed=0, atol=1e-10):
    def make(L):
        return [L.tensor(a.copy()) for a in make_np()]
    want = _grads(torch, make, fn, cot_seed)
    got = _grads(S, make, fn, cot_seed)
    for w, g in zip(want, got):
        if w is None or g is None:
            assert (w is None or not w.any()) and (g is None or not g.any())
            continue
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=atol)


@settings(max_examples=25, deadline=None)
@given(seed=hs.integers(0, 2**31), n=hs.integers(1, 8), ties=hs.booleans())
def test_clamp_array_bounds_gradients(seed, n, ties):
    rng = np.random.default_rng(seed)

    def make():
        x, lo, hi = (np.round(rng.standard_normal(n), 1) for _ in range(3))
        if ties:  # (equal bounds somewhere, and x equal to a bound)
            hi[::2] = lo[::2]
            x[1::3] = lo[1::3]
        return [x, lo, hi]
    arrays = make()
    _same(lambda: arrays, lambda L, x, lo, hi: L.clamp(x, lo, hi), seed)
    _same(lambda: arrays[:2], lambda L, x, lo: L.clamp(x, min=lo), seed)
    _same(lambda: [arrays[0], arrays[2]], lambda L, x, hi: L.clamp(x, max=hi), seed)


def test_clamp_with_min_above_max_gives_max_the_gradient():
    x, lo, hi = np.array([0.0, 5.0, -5.0]), np.array([1.0, 1.0, 1.0]), np.array([-1.0, -1.0, -1.0])
    gx, glo, ghi = _grads(S, lambda L: [L.tensor(a) for a in (x, lo, hi)],
                          lambda L, a, b, c: L.clamp(a, b, c))
    c = np.random.default_rng(0).standard_normal(3)
    np.testing.assert_array_equal(glo, 0.0)
    np.testing.assert_allclose(ghi, c)
    np.testing.assert_array_equal(gx, 0.0)


@pytest.mark.parametrize("dim,index", [(-1, [0, 2, 2]), (0, [1, 3]), (1, [4, 1]), (0, [3, 3, 3])])
def test_index_fill_value_gradient(dim, index):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 5))

    def fn(L, a, v):
        return L.index_fill(a, dim, L.tensor(index), v)
    _same(lambda: [x, np.array(1.5)], fn)


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_eigh_gradient_is_pytorchs(uplo, symmetric, batch):
    rng = np.random.default_rng(2)
    A = rng.standard_normal(batch + (4, 4))
    if symmetric:
        A = A + np.swapaxes(A, -1, -2)

    def fn(L, a):
        w, v = L.linalg.eigh(a, UPLO=uplo)
        return w, v * v  # (|v|^2: independent of each eigenvector's sign)
    _same(lambda: [A], fn, atol=1e-8)


def test_eigh_gradient_of_a_hermitian_matrix_matches_finite_differences():
    """The Hermitian part is the gradient every symmetric perturbation sees."""
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, 4))
    A = A + A.T
    c = rng.standard_normal(4)
    a = S.tensor(A).requires_grad_(True)
    (S.linalg.eigvalsh(a) * S.tensor(c)).sum().backward()
    g = to_numpy(a.grad)
    np.testing.assert_allclose(g, g.T, atol=1e-12)
    E = rng.standard_normal((4, 4))
    E = E + E.T
    h = 1e-6
    fd = ((np.linalg.eigvalsh(A + h * E) - np.linalg.eigvalsh(A - h * E)) @ c) / (2 * h)
    np.testing.assert_allclose((g * E).sum(), fd, rtol=1e-6)


@pytest.mark.parametrize("shape,hermitian,rtol", [
    ((4, 4), False, None), ((3, 5), False, None), ((5, 3), False, None), ((4, 4), True, None),
    ((2, 4, 4), True, None), ((4, 4), False, 0.5), ((0, 0), False, None), ((0, 3), False, None)])
def test_pinv_gradient_is_pytorchs(shape, hermitian, rtol):
    rng = np.random.default_rng(4)
    A = rng.standard_normal(shape)
    if hermitian:
        A = A + np.swapaxes(A, -1, -2)
    _same(lambda: [A], lambda L, a: L.linalg.pinv(a, hermitian=hermitian, rtol=rtol), atol=1e-8)
    a = S.tensor(A).requires_grad_(True)
    r = S.linalg.pinv(a, hermitian=hermitian, rtol=rtol)
    assert r.requires_grad and type(r.grad_fn).__name__ == "LinalgPinvBackward0"


def test_pinv_hermitian_gradient_of_a_nonsymmetric_input_is_pytorchs():
    A = np.random.default_rng(5).standard_normal((4, 4))  # (one triangle read)
    _same(lambda: [A], lambda L, a: L.linalg.pinv(a, hermitian=True), atol=1e-8)


def test_fill_is_in_the_graph():
    x = np.array([1.0, np.inf, 3.0])
    _same(lambda: [x, np.array(2.0)], lambda L, a, v: L.fill(a, v))
    _same(lambda: [x], lambda L, a: L.fill(a, 5.0))
    for L in (torch, S):
        assert L.fill(L.tensor([1, 2]), 2.7).tolist() == [2, 2]
        assert not L.fill(L.tensor([1.0]), 2.0).requires_grad


def test_as_strided_scatter_input_gradient_is_the_derivative():
    rng = np.random.default_rng(6)
    x, src, c = rng.standard_normal((3, 3)), rng.standard_normal((2, 2)), rng.standard_normal((3, 3))

    def f(xv):
        return float((to_numpy(S.as_strided_scatter(S.tensor(xv), S.tensor(src), (2, 2), (1, 2), 0)) * c).sum())
    a = S.tensor(x).requires_grad_(True)
    (S.as_strided_scatter(a, S.tensor(src), (2, 2), (1, 2), 0) * S.tensor(c)).sum().backward()
    fd = np.zeros(9)
    for i in range(9):
        e = np.zeros(9)
        e[i] = 1e-6
        fd[i] = (f(x + e.reshape(3, 3)) - f(x - e.reshape(3, 3))) / 2e-6
    np.testing.assert_allclose(to_numpy(a.grad).ravel(), fd, atol=1e-8)
    # (PyTorch 2.13 gives the scattered positions the gradient instead: a known formula)
    t = torch.tensor(x, requires_grad=True)
    (torch.as_strided_scatter(t, torch.tensor(src), (2, 2), (1, 2), 0) * torch.tensor(c)).sum().backward()
    assert not np.allclose(t.grad.numpy().ravel(), fd, atol=1e-8)


@pytest.mark.parametrize("form", ["linalg.cholesky", "linalg.cholesky_upper", "cholesky", "linalg.cholesky_ex"])
@pytest.mark.parametrize("dtype", ["complex128", "float64"])
def test_cholesky_gradient_is_pytorchs(form, dtype):
    """PyTorch's cholesky_backward: for a complex input its gradient is not Hermitian (the
    diagonal of tril(L^H gL) keeps its imaginary part); strided took the Hermitian part."""
    rng = np.random.default_rng(7)
    A = rng.standard_normal((2, 3, 3)) + (1j * rng.standard_normal((2, 3, 3)) if dtype == "complex128" else 0)
    A = A @ np.conj(np.swapaxes(A, -1, -2)) + 3 * np.eye(3)
    G = rng.standard_normal((2, 3, 3)) + (1j * rng.standard_normal((2, 3, 3)) if dtype == "complex128" else 0)
    grads = []
    for L in (torch, S):
        a = L.tensor(A).requires_grad_(True)
        if form == "linalg.cholesky_upper":
            r = L.linalg.cholesky(a, upper=True)
        elif form == "linalg.cholesky_ex":
            r = L.linalg.cholesky_ex(a)[0]
        elif form == "cholesky":
            r = L.cholesky(a)
        else:
            r = L.linalg.cholesky(a)
        (r * L.tensor(G)).real.sum().backward()
        grads.append(to_numpy(a.grad))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-9, atol=1e-10)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("form", [
    lambda L, x: x.std(), lambda L, x: L.std(x, 0), lambda L, x: L.std(x, 0, keepdim=True),
    lambda L, x: L.std(x, correction=2), lambda L, x: L.std_mean(x)[0], lambda L, x: x.var(),
    lambda L, x: L.var(x, dim=0, correction=3),
])
@pytest.mark.parametrize("values", [[2.0], [1.0, 3.0], [1.0, 1.0]])
def test_std_without_degrees_of_freedom_has_pytorchs_nan_gradient(form, values):
    # (strided's std of one element had gradient 0: the square of the biased std, whose
    # derivative is masked to 0 where the std is 0, hid PyTorch's 0 * inf)
    got = []
    for L in (torch, S):
        x = L.tensor(values, dtype=L.float64, requires_grad=True)
        y = form(L, x)
        y.sum().backward()
        got.append((to_numpy(y), to_numpy(x.grad)))
    for a, b in zip(got[1], got[0]):
        np.testing.assert_allclose(a, b, rtol=1e-12, equal_nan=True)
