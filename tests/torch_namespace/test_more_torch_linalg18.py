"""strided.torch.linalg (torch.linalg's solve_triangular, lu_factor(_ex), lu,
lu_solve, matrix_exp, multi_dot, vander, from _more_torch_linalg) against
torch.linalg (PyTorch 2.13): values, gradients and errors."""

from __future__ import annotations

import numpy as np
import pytest

import strided
from strided.torch import linalg
from _parity import to_numpy

torch = pytest.importorskip("torch")


def same(got, want, tol=1e-10):
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=tol, atol=tol)


def check(fs, ft, arrays, tol=1e-9):
    ss = [strided.asarray(a.copy()).requires_grad_() for a in arrays]
    ts = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    rs, rt = fs(*ss), ft(*ts)
    same(rs, rt, tol)
    w = np.random.default_rng(0).standard_normal(tuple(rt.shape))
    (rs * strided.asarray(w)).sum().backward()
    (rt * torch.from_numpy(w)).sum().backward()
    for s, t in zip(ss, ts):
        same(s.grad, t.grad, tol)


RNG = np.random.default_rng(1)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular(upper, left, unitriangular):
    A = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    B = RNG.standard_normal((2, 3, 4) if left else (2, 4, 3))
    check(lambda a, b: linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular),
          lambda a, b: torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular),
          [A, B])


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_factor_and_lu_solve(left, adjoint):
    A = RNG.standard_normal((2, 3, 3))
    B = RNG.standard_normal((2, 3, 2) if left else (2, 2, 3))
    check(lambda a, b: linalg.lu_solve(*linalg.lu_factor(a), b, left=left, adjoint=adjoint),
          lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, left=left, adjoint=adjoint), [A, B])


def test_lu_factor_ex_lu_and_singular_errors():
    A = RNG.standard_normal((4, 3))
    for got, want in zip(linalg.lu(strided.asarray(A)), torch.linalg.lu(torch.from_numpy(A))):
        same(got, want)
    S = np.array([[0.0, 1.0], [0.0, 0.0]])
    for got, want in zip(linalg.lu_factor_ex(strided.asarray(S)), torch.linalg.lu_factor_ex(torch.from_numpy(S))):
        same(got, want, 0)
    with pytest.raises(RuntimeError, match=r"U\[1,1\] is zero"):
        linalg.lu_factor(strided.asarray(S))
    with pytest.raises(RuntimeError, match=r"U\[1,1\] is zero"):
        torch.linalg.lu_factor(torch.from_numpy(S))


def test_matrix_exp_multi_dot_vander():
    a = RNG.standard_normal((3, 3))
    check(lambda x: linalg.matrix_exp(x), lambda x: torch.linalg.matrix_exp(x), [a])
    ms = [RNG.standard_normal(3), RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))]
    check(lambda *m: linalg.multi_dot(list(m)), lambda *m: torch.linalg.multi_dot(list(m)), ms)
    for L in (linalg, torch.linalg):
        with pytest.raises(RuntimeError, match="N must be greater than 1"):
            L.vander((strided if L is linalg else torch).ones(3), N=1)
    for N in (None, 2, 4):
        same(linalg.vander(strided.asarray([1, 2, 3]), N=N), torch.linalg.vander(torch.tensor([1, 2, 3]), N=N), 0)
    check(lambda x: linalg.vander(x, N=4), lambda x: torch.linalg.vander(x, N=4), [RNG.standard_normal(3)])
    with pytest.raises(RuntimeError, match="expected at least 2 tensors"):
        linalg.multi_dot([strided.ones((2, 2))])
    with pytest.raises(RuntimeError, match="expected at least 2 tensors"):
        torch.linalg.multi_dot([torch.ones(2, 2)])


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_of_a_singular_triangle_gives_pytorchs_inf_and_nan(upper, left):
    A = np.array([[1.0, 2.0, 0.5], [0.0, 0.0, 1.0], [0.0, 0.0, 3.0]])
    A = A if upper else A.T.copy()
    B = np.array([[1.0, 2.0, 0.0], [1.0, 0.0, 3.0], [2.0, 1.0, 1.0]])
    got = linalg.solve_triangular(strided.asarray(A), strided.asarray(B), upper=upper, left=left)
    want = torch.linalg.solve_triangular(torch.from_numpy(A), torch.from_numpy(B), upper=upper, left=left)
    g, w = to_numpy(got), to_numpy(want)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    np.testing.assert_array_equal(g[~np.isnan(w)], w[~np.isnan(w)])
