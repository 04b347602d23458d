"""strided.torch's cholesky, cholesky_inverse, cholesky_solve, lu, lu_unpack, lu_solve,
triangular_solve, matrix_exp, addbmm (+ addbmm_/baddbmm_), ger, chain_matmul, renorm (+ renorm_),
frobenius_norm and nuclear_norm against PyTorch 2.13: values, dtypes, gradients, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import strided
import strided.torch as st
from _parity import to_numpy

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # (PyTorch's deprecation notes)


def same(got, want, tol=1e-10):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=tol, atol=tol)


def check(fs, ft, arrays, tol=1e-9, seed=0, grad=True):
    """fs and ft over the same inputs: outputs (one array or a tuple) compared; then a
    random weighting of the float outputs backward and every input's .grad compared."""
    ss = [strided.asarray(a.copy()) for a in arrays]
    ts = [torch.from_numpy(a.copy()) for a in arrays]
    if grad:
        for s, t in zip(ss, ts):
            if t.dtype.is_floating_point:
                s.requires_grad_()
                t.requires_grad_()
    rs, rt = fs(*ss), ft(*ts)
    rs = rs if isinstance(rs, tuple) else (rs,)
    rt = rt if isinstance(rt, tuple) else (rt,)
    assert len(rs) == len(rt)
    for a, b in zip(rs, rt):
        same(a, b, tol)
    if not grad:
        return
    rng = np.random.default_rng(seed)
    ls, lt = 0, 0
    for a, b in zip(rs, rt):
        if b.dtype.is_floating_point and b.requires_grad:
            w = rng.standard_normal(tuple(b.shape))
            ls = ls + (a * strided.asarray(w)).sum()
            lt = lt + (b * torch.from_numpy(w)).sum()
    ls.backward()
    lt.backward()
    for s, t in zip(ss, ts):
        if t.grad is not None:
            same(s.grad, t.grad, tol)


def spd(rng, batch, n):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("batch", [(), (2,)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(batch, upper):
    rng = np.random.default_rng(1)
    check(lambda a: st.cholesky(a, upper), lambda a: torch.cholesky(a, upper), [spd(rng, batch, 3)])
    s = strided.asarray(spd(rng, batch, 3))
    same(s.cholesky(upper=upper), torch.from_numpy(to_numpy(s)).cholesky(upper=upper))


@pytest.mark.parametrize("batch", [(), (2,)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_and_solve(batch, upper):
    rng = np.random.default_rng(2)
    L = np.linalg.cholesky(spd(rng, batch, 3))
    L = np.swapaxes(L, -1, -2) if upper else L
    check(lambda l: st.cholesky_inverse(l, upper), lambda l: torch.cholesky_inverse(l, upper), [L])
    B = rng.standard_normal(batch + (3, 2))
    check(lambda b, l: st.cholesky_solve(b, l, upper), lambda b, l: torch.cholesky_solve(b, l, upper), [B, L])
    # batch dimensions broadcast
    B2 = rng.standard_normal((2, 1) + batch + (3, 2))
    check(lambda b, l: st.cholesky_solve(b, l, upper), lambda b, l: torch.cholesky_solve(b, l, upper), [B2, L])


def test_cholesky_solve_reads_one_triangle_and_errors():
    rng = np.random.default_rng(3)
    L = np.linalg.cholesky(spd(rng, (), 3)) + np.triu(np.ones((3, 3)), 1) * 9.0  # junk above
    B = rng.standard_normal((3, 1))
    check(lambda b, l: st.cholesky_solve(b, l), lambda b, l: torch.cholesky_solve(b, l), [B, L], grad=False)
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes"):
        st.cholesky_solve(strided.ones((2, 1), dtype=strided.float64), strided.asarray(L))
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes"):
        torch.cholesky_solve(torch.ones(2, 1, dtype=torch.float64), torch.from_numpy(L))


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3), (1, 5, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lu_and_lu_unpack(shape, dtype):
    rng = np.random.default_rng(4)
    a = rng.standard_normal(shape).astype(dtype)
    tol = 2e-5 if dtype == np.float32 else 1e-10
    check(lambda x: st.lu(x), lambda x: torch.lu(x), [a], tol=tol * 10 if dtype == np.float32 else tol)
    check(lambda x: tuple(st.lu_unpack(*st.lu(x))), lambda x: tuple(torch.lu_unpack(*torch.lu(x))), [a],
          tol=tol * 10 if dtype == np.float32 else tol)
    LU, piv, info = st.lu(strided.asarray(a), get_infos=True)
    tLU, tpiv, tinfo = torch.lu(torch.from_numpy(a), get_infos=True)
    same(piv, tpiv, 0)
    same(info, tinfo, 0)
    P, L, U = st.lu_unpack(LU, piv)
    np.testing.assert_allclose(to_numpy(P @ L @ U), a, rtol=tol * 10, atol=tol * 10)


def test_lu_singular_info_pivot_false_and_unpack_flags():
    a = np.array([[[0.0, 1.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]]])
    check(lambda x: tuple(st.lu(x, get_infos=True)), lambda x: tuple(torch.lu(x, get_infos=True)), [a], grad=False)
    s, t = strided.asarray(a), torch.from_numpy(a)
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        st.lu(s, pivot=False)
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        torch.lu(t, pivot=False)
    LU, piv = st.lu(s)
    tLU, tpiv = torch.lu(t)
    for ud, up in [(False, True), (True, False)]:
        r, q = st.lu_unpack(LU, piv, ud, up), torch.lu_unpack(tLU, tpiv, ud, up)
        for x, y in zip(r, q):
            same(x, y)
    with pytest.raises(RuntimeError, match="int32"):
        st.lu_unpack(LU, piv.astype(strided.int64))


@pytest.mark.parametrize("batch_b,batch_a", [((), ()), ((2,), (2,)), ((2,), ()), ((), (3,))])
def test_lu_solve(batch_b, batch_a):
    rng = np.random.default_rng(5)
    A = rng.standard_normal(batch_a + (3, 3))
    B = rng.standard_normal(batch_b + (3, 2))

    def fs(b, a):
        return st.lu_solve(b, *st.lu(a))

    def ft(b, a):
        return torch.lu_solve(b, *torch.lu(a))
    check(fs, ft, [B, A])
    # the packed factor's own gradient (PyTorch's lu_solve derivative in LU_data)
    LU, piv = torch.lu(torch.from_numpy(A))
    check(lambda b, lu: st.lu_solve(b, lu, strided.asarray(piv.numpy())),
          lambda b, lu: torch.lu_solve(b, lu, piv), [B, LU.numpy()])


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_triangular_solve(upper, transpose, unitriangular):
    rng = np.random.default_rng(6)
    A = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    B = rng.standard_normal((2, 3, 2))
    check(lambda b, a: tuple(st.triangular_solve(b, a, upper, transpose, unitriangular)),
          lambda b, a: tuple(torch.triangular_solve(b, a, upper, transpose, unitriangular)), [B, A])
    r = st.triangular_solve(strided.asarray(B), strided.asarray(A), upper)
    assert r.solution is r[0] and r.cloned_coefficient is r[1]
    assert r.cloned_coefficient.storage() is not None
    same(strided.asarray(B).triangular_solve(strided.asarray(A), upper)[0],
         torch.from_numpy(B).triangular_solve(torch.from_numpy(A), upper)[0])


def test_triangular_solve_broadcast_and_errors():
    rng = np.random.default_rng(7)
    A = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    B = rng.standard_normal((4, 3, 1))
    check(lambda b, a: tuple(st.triangular_solve(b, a)), lambda b, a: tuple(torch.triangular_solve(b, a)), [B, A])
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes"):
        st.triangular_solve(strided.ones((2, 1), dtype=strided.float64), strided.asarray(A))
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes"):
        torch.triangular_solve(torch.ones(2, 1, dtype=torch.float64), torch.from_numpy(A))


@pytest.mark.parametrize("scale", [0.1, 1.0, 8.0, 40.0])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_matrix_exp(scale, batch):
    rng = np.random.default_rng(8)
    a = rng.standard_normal(batch + (3, 3)) * scale / 3
    ref = torch.matrix_exp(torch.from_numpy(a))
    tol = 1e-10 * float(ref.abs().max())
    check(lambda x: st.matrix_exp(x), lambda x: torch.matrix_exp(x), [a], tol=builtins_max(tol, 1e-11))
    same(strided.asarray(a).matrix_exp(), ref, builtins_max(tol, 1e-11))


def builtins_max(a, b):
    return a if a > b else b


def test_matrix_exp_float32_and_empty():
    a = np.random.default_rng(9).standard_normal((4, 4)).astype(np.float32)
    same(st.matrix_exp(strided.asarray(a)), torch.matrix_exp(torch.from_numpy(a)), 2e-5)
    same(st.matrix_exp(strided.zeros((0, 0))), torch.matrix_exp(torch.zeros(0, 0)))
    with pytest.raises(RuntimeError, match="square"):
        st.matrix_exp(strided.zeros((2, 3)))


@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1)])
@pytest.mark.parametrize("inshape", [(2, 4), (4,), (1, 1)])
def test_addbmm(beta, alpha, inshape):
    rng = np.random.default_rng(10)
    x, b1, b2 = rng.standard_normal(inshape), rng.standard_normal((3, 2, 5)), rng.standard_normal((3, 5, 4))
    check(lambda x, b1, b2: st.addbmm(x, b1, b2, beta=beta, alpha=alpha),
          lambda x, b1, b2: torch.addbmm(x, b1, b2, beta=beta, alpha=alpha), [x, b1, b2])


def test_addbmm_beta0_ignores_nan_and_in_place_forms():
    b1, b2 = np.ones((2, 2, 3)), np.ones((2, 3, 2))
    x = np.full((2, 2), np.nan)
    check(lambda x, b1, b2: st.addbmm(x, b1, b2, beta=0), lambda x, b1, b2: torch.addbmm(x, b1, b2, beta=0),
          [x, b1, b2], grad=False)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 2))
    s, t = strided.asarray(x.copy()), torch.from_numpy(x.copy())
    assert s.addbmm_(strided.asarray(b1), strided.asarray(b2), alpha=0.5) is s
    t.addbmm_(torch.from_numpy(b1), torch.from_numpy(b2), alpha=0.5)
    same(s, t)
    x3 = rng.standard_normal((2, 2, 2))
    s, t = strided.asarray(x3.copy()), torch.from_numpy(x3.copy())
    assert s.baddbmm_(strided.asarray(b1), strided.asarray(b2), beta=2.0) is s
    t.baddbmm_(torch.from_numpy(b1), torch.from_numpy(b2), beta=2.0)
    same(s, t)


def test_ger_and_chain_matmul():
    rng = np.random.default_rng(12)
    u, v = rng.standard_normal(3), rng.standard_normal(4)
    check(lambda a, b: st.ger(a, b), lambda a, b: torch.ger(a, b), [u, v])
    same(strided.asarray(u).ger(strided.asarray(v)), torch.from_numpy(u).ger(torch.from_numpy(v)))
    ms = [rng.standard_normal(s) for s in [(2, 3), (3, 4), (4, 1)]]
    check(lambda *m: st.chain_matmul(*m), lambda *m: torch.chain_matmul(*m), ms)
    check(lambda m: st.chain_matmul(m), lambda m: torch.chain_matmul(m), ms[:1])
    with pytest.raises(RuntimeError, match="Expected one or more matrices"):
        st.chain_matmul()
    with pytest.raises(RuntimeError, match="Expected one or more matrices"):
        torch.chain_matmul()


@pytest.mark.parametrize("p", [1, 2, 3.5])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("maxnorm", [0.5, 2.0, 100.0])
def test_renorm(p, dim, maxnorm):
    a = np.random.default_rng(13).standard_normal((3, 4, 2))
    check(lambda x: st.renorm(x, p, dim, maxnorm), lambda x: torch.renorm(x, p, dim, maxnorm), [a])
    s, t = strided.asarray(a.copy()), torch.from_numpy(a.copy())
    assert s.renorm_(p, dim, maxnorm) is s
    t.renorm_(p, dim, maxnorm)
    same(s, t)


def test_renorm_errors():
    for f in (st.renorm, torch.renorm):
        x = strided.ones((2, 2)) if f is st.renorm else torch.ones(2, 2)
        with pytest.raises(RuntimeError, match="non-positive-norm not supported"):
            f(x, 0, 0, 1.0)
        with pytest.raises(RuntimeError, match="expected maxnorm to be >= 0"):
            f(x, 2, 0, -1.0)


def test_frobenius_and_nuclear_norm():
    rng = np.random.default_rng(14)
    a = rng.standard_normal((2, 3, 4))
    for dim, keep in [((0, 1), False), ((1, 2), True), ((2,), False)]:
        check(lambda x: st.frobenius_norm(x, dim, keep), lambda x: torch.frobenius_norm(x, dim, keep), [a])
    m = rng.standard_normal((3, 4))
    check(lambda x: st.nuclear_norm(x), lambda x: torch.nuclear_norm(x), [m])
    check(lambda x: st.nuclear_norm(x, True), lambda x: torch.nuclear_norm(x, True), [m])
    check(lambda x: st.nuclear_norm(x, (0, 2)), lambda x: torch.nuclear_norm(x, (0, 2)), [a])
    check(lambda x: st.nuclear_norm(x, (2, 1), keepdim=True), lambda x: torch.nuclear_norm(x, (2, 1), keepdim=True),
          [a])


def test_singular_triangles_give_inf_as_pytorch_and_cholesky_inverse_refuses():
    A = np.array([[1.0, 2.0, 0.5], [0.0, 0.0, 1.0], [0.0, 0.0, 3.0]])
    B = np.array([[1.0, 2.0], [1.0, 0.0], [2.0, 1.0]])
    for upper in (True, False):
        for transpose in (False, True):
            a = A if upper else A.T.copy()
            check(lambda b, a: st.triangular_solve(b, a, upper, transpose).solution,
                  lambda b, a: torch.triangular_solve(b, a, upper, transpose).solution, [B, a], grad=False)
    check(lambda b, l: st.cholesky_solve(b, l), lambda b, l: torch.cholesky_solve(b, l), [B, A.T.copy()],
          grad=False)
    piv = np.array([1, 2, 3], np.int32)
    check(lambda b, lu, p: st.lu_solve(b, lu, p), lambda b, lu, p: torch.lu_solve(b, lu, p), [B, A, piv],
          grad=False)
    with pytest.raises(RuntimeError, match="The diagonal element 2 is zero"):
        st.cholesky_inverse(strided.asarray(A.T.copy()))
    with pytest.raises(RuntimeError, match="The diagonal element 2 is zero"):
        torch.cholesky_inverse(torch.from_numpy(A.T.copy()))


def test_complex_factorisations_and_solves():
    rng = np.random.default_rng(15)
    a = rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3))
    b = rng.standard_normal((2, 3, 2)) + 1j * rng.standard_normal((2, 3, 2))
    L = np.linalg.cholesky(a @ np.conj(np.swapaxes(a, -1, -2)) + 3 * np.eye(3))
    check(lambda x: st.lu(x), lambda x: torch.lu(x), [a], grad=False)
    check(lambda y, x: st.lu_solve(y, *st.lu(x)), lambda y, x: torch.lu_solve(y, *torch.lu(x)), [b, a], grad=False)
    check(lambda y, l: st.cholesky_solve(y, l), lambda y, l: torch.cholesky_solve(y, l), [b, L], grad=False)
    check(lambda l: st.cholesky_inverse(l), lambda l: torch.cholesky_inverse(l), [L], grad=False)
    check(lambda y, l: tuple(st.triangular_solve(y, l, False)), lambda y, l: tuple(torch.triangular_solve(y, l, False)),
          [b, L], grad=False)
    check(lambda x: st.matrix_exp(x), lambda x: torch.matrix_exp(x), [a], grad=False)
    # gradients through a real loss of the complex results
    ss, ts = strided.asarray(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()
    st.abs(st.lu_solve(strided.asarray(b), *st.lu(ss))).sum().backward()
    torch.lu_solve(torch.from_numpy(b), *torch.lu(ts)).abs().sum().backward()
    same(ss.grad, ts.grad, 1e-9)
