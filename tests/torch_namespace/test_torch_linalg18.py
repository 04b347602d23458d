"""strided.torch.linalg (PyTorch's torch.linalg namespace over strided) against torch.linalg
(PyTorch 2.13): values, dtypes, named results, batched inputs, positional and keyword forms,
out=, gradients (float64, against PyTorch's .grad) and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import strided
import strided.torch as storch
from strided.torch import linalg as LA
from _parity import to_numpy

torch = pytest.importorskip("torch")

TOL = {"float32": 2e-4, "float64": 1e-9, "complex64": 2e-4, "complex128": 1e-9}


def dtname(dt):
    return str(dt).split(".")[-1]


def to_np(x):
    return x.detach().resolve_conj().numpy() if isinstance(x, torch.Tensor) else to_numpy(x)


def same(got, want, tol=1e-9):
    assert tuple(got.shape) == tuple(want.shape), (tuple(got.shape), tuple(want.shape))
    assert dtname(got.dtype) == dtname(want.dtype), (got.dtype, want.dtype)
    np.testing.assert_allclose(to_np(got), to_np(want), rtol=tol, atol=tol)


def rand(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def spd(rng, shape, dtype):
    a = rand(rng, shape, dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def conv(args, lib, grad):
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            x = strided.asarray(a.copy()) if lib == "s" else torch.from_numpy(a.copy())
            if grad and a.dtype.kind in "fc":
                x.requires_grad_()
            out.append(x)
        elif isinstance(a, list) and a and isinstance(a[0], np.ndarray):
            out.append(conv(a, lib, grad))
        else:
            out.append(a)
    return out


def leaves(args):
    flat = []
    for a in args:
        if isinstance(a, list):
            flat += leaves(a)
        elif getattr(a, "requires_grad", False):
            flat.append(a)
    return flat


def compare(name, args, kwargs=None, *, tol=1e-9, grad=False, field=None, fields=None):
    """``LA.<name>`` and ``torch.linalg.<name>`` of the same inputs: each result (or named
    field) compared; with ``grad`` the gradients of a weighted sum of ``field`` (or the result)."""
    kwargs = kwargs or {}
    sa, ta = conv(args, "s", grad), conv(args, "t", grad)
    rs = getattr(LA, name)(*sa, **kwargs)
    rt = getattr(torch.linalg, name)(*ta, **kwargs)
    if isinstance(rt, tuple):
        assert isinstance(rs, tuple) and len(rs) == len(rt)
        if fields is not None:
            assert set(fields) <= set(rs._fields)
        for f in (fields or range(len(rt))):
            g = getattr(rs, f) if isinstance(f, str) else rs[f]
            w = getattr(rt, f) if isinstance(f, str) else rt[f]
            same(g, w, tol)
    else:
        same(rs, rt, tol)
    if grad:
        gs = getattr(rs, field) if field else rs
        gt = getattr(rt, field) if field else rt
        w = np.random.default_rng(7).standard_normal(tuple(gt.shape))
        if gt.dtype.is_complex:
            (storch.real(gs) * strided.asarray(w)).sum().backward()
            (gt.real * torch.from_numpy(w)).sum().backward()
        else:
            (gs * strided.asarray(w).to(gs.dtype)).sum().backward()
            (gt * torch.from_numpy(w).to(gt.dtype)).sum().backward()
        for s, t in zip(leaves(sa), leaves(ta)):
            same(s.grad, t.grad, tol * 10)
    return rs, rt


RNG = np.random.default_rng(18)
FLOATS = ["float32", "float64", "complex64", "complex128"]


def test_namespace_is_pytorchs_and_the_standards_stays():
    import strided.torch.linalg as LA2
    from strided.torch import linalg as LA3
    assert LA2 is LA3 is storch.linalg is LA
    assert strided.linalg is not LA and strided.linalg.__name__ == "strided.linalg"
    public = {n for n in dir(torch.linalg) if not n.startswith("_") and n != "common_notes"}
    assert public <= set(LA.__all__)
    for n in LA.__all__:
        assert getattr(LA, n).__doc__, n
    assert issubclass(LA.LinAlgError, RuntimeError)


# --- norms ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("args,kw", [((), {}), ((1, 0), {}), ((), {"dim": 1, "keepdim": True}),
                                     ((math.inf,), {"dim": (0, 2)}), ((-math.inf, -1), {}), ((0,), {}),
                                     ((3.5, [1, 2], True), {}), ((), {"ord": -1.5, "dim": -1})])
def test_vector_norm(dtype, args, kw):
    x = rand(RNG, (2, 3, 4), dtype)
    compare("vector_norm", [x, *args], kw, tol=TOL[dtype], grad=dtype in ("float64", "complex128") and
            (args[:1] or [2])[0] not in (0,))


def test_vector_norm_dtype_and_integer_input():
    x = rand(RNG, (3, 4), "float32")
    r = LA.vector_norm(strided.asarray(x), dtype=storch.float64)
    same(r, torch.linalg.vector_norm(torch.from_numpy(x), dtype=torch.float64), 1e-6)
    r = LA.vector_norm(strided.asarray(x.astype(np.complex64)), 1, dtype=storch.complex128)
    same(r, torch.linalg.vector_norm(torch.from_numpy(x.astype(np.complex64)), 1, dtype=torch.complex128), 1e-6)
    for L, T, dt in ((LA, strided.asarray, storch), (torch.linalg, torch.from_numpy, torch)):
        with pytest.raises(RuntimeError, match="floating point or complex"):
            L.vector_norm(T(np.array([1, 2])))
        with pytest.raises(RuntimeError, match="dtype should be floating point or complex, but got"):
            L.vector_norm(T(x), dtype=dt.int64)
        with pytest.raises(RuntimeError, match="dtype should be complex for complex inputs"):
            L.vector_norm(T(x.astype(np.complex64)), dtype=dt.float32)
        with pytest.raises(RuntimeError, match="dtype should be real for real inputs"):
            L.vector_norm(T(x), dtype=dt.complex64)
        with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
            L.vector_norm(T(np.zeros(0)), math.inf)
        with pytest.raises(TypeError, match="must be Number, not str"):
            L.vector_norm(T(x), "fro")
        with pytest.raises(RuntimeError, match="dim must be a 2-tuple. Got 0"):
            L.norm(T(x), "fro", dim=0)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norm_of_empty_matrices(ord):
    for shape in ((0, 3), (3, 0), (2, 0, 0)):
        A = np.zeros(shape)
        try:
            want = torch.linalg.matrix_norm(torch.from_numpy(A), ord)
        except IndexError:
            with pytest.raises(IndexError, match="non-zero size"):
                LA.matrix_norm(strided.asarray(A), ord)
            continue
        same(LA.matrix_norm(strided.asarray(A), ord), want)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norm(dtype, ord):
    A = rand(RNG, (2, 3, 4), dtype)
    compare("matrix_norm", [A, ord], tol=TOL[dtype], grad=dtype == "float64")
    compare("matrix_norm", [A], {"ord": ord, "dim": (0, 2), "keepdim": True}, tol=TOL[dtype])


def test_matrix_norm_bad_ord_and_dim():
    A = rand(RNG, (3, 3), "float64")
    for L, x in ((LA, strided.asarray(A)), (torch.linalg, torch.from_numpy(A))):
        with pytest.raises(RuntimeError, match="Order 3 not supported"):
            L.matrix_norm(x, 3)
        with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
            L.matrix_norm(x, dim=(0,))


@pytest.mark.parametrize("args,kw", [((), {}), ((2,), {}), (("fro",), {}), (("nuc",), {"keepdim": True}),
                                     ((None, 1), {}), ((3, (0,)), {}), ((-2, (0, 1)), {}), ((math.inf,), {}),
                                     ((), {"dim": (1, 0)})])
def test_norm(args, kw):
    compare("norm", [rand(RNG, (3, 4), "float64"), *args], kw, grad=True)


def test_norm_forms_and_errors():
    compare("norm", [rand(RNG, (2, 3, 4), "float64")], {"dim": 2, "ord": 1})
    compare("norm", [rand(RNG, (2, 3, 4), "complex128"), None, (1, 2)])
    compare("norm", [rand(RNG, (5,), "float32"), 1])
    r = LA.norm(strided.asarray(rand(RNG, (2, 3), "float32")), dtype=storch.float64)
    assert r.dtype == storch.float64
    x3 = rand(RNG, (2, 2, 2), "float64")
    for L, x in ((LA, strided.asarray(x3)), (torch.linalg, torch.from_numpy(x3))):
        with pytest.raises(RuntimeError, match="input must be 1D or 2D"):
            L.norm(x, 2)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_cond(p, dtype):
    A = spd(RNG, (2, 3, 3), dtype)
    # (PyTorch's own backward of cond for p not in (None, 2, -2) fails: an in-place write in it)
    compare("cond", [A, p], tol=TOL[dtype] * 10, grad=dtype == "float64" and p in (None, 2, -2))


# --- factorisations ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_det_slogdet_inv(dtype, shape):
    A = rand(RNG, shape, dtype) + 2 * np.eye(shape[-1], dtype=dtype)
    g = dtype in ("float64", "complex128")
    compare("det", [A], tol=TOL[dtype], grad=g)
    compare("slogdet", [A], tol=TOL[dtype], grad=g, field="logabsdet", fields=("sign", "logabsdet"))
    compare("inv", [A], tol=TOL[dtype], grad=g)
    compare("inv_ex", [A], tol=TOL[dtype], grad=g, field="inverse", fields=("inverse", "info"))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, upper):
    A = spd(RNG, (2, 3, 3), dtype)
    g = dtype == "float64"
    if g:  # a symmetric input built inside the graph: PyTorch's and strided's gradients agree there
        sa = strided.asarray(A.copy()).requires_grad_()
        ta = torch.from_numpy(A.copy()).requires_grad_()
        rs = LA.cholesky((sa + sa.mT) / 2, upper=upper)
        rt = torch.linalg.cholesky((ta + ta.mT) / 2, upper=upper)
        same(rs, rt)
        w = RNG.standard_normal((2, 3, 3))
        (rs * strided.asarray(w)).sum().backward()
        (rt * torch.from_numpy(w)).sum().backward()
        same(sa.grad, ta.grad, 1e-8)
    compare("cholesky", [A], {"upper": upper}, tol=TOL[dtype])
    compare("cholesky_ex", [A], {"upper": upper}, tol=TOL[dtype], fields=("L", "info"))


def test_ex_functions_report_info_as_pytorch():
    bad = np.array([[[1.0, 0, 0], [0, -1, 0], [0, 0, 1]], [[4.0, 2, 0], [2, 2, 0], [0, 0, 1]]])
    si, ti = LA.cholesky_ex(strided.asarray(bad)), torch.linalg.cholesky_ex(torch.from_numpy(bad))
    same(si.info, ti.info, 0)
    same(si.L[1], ti.L[1])
    assert np.isnan(to_numpy(si.L[0])).all()
    with pytest.raises(LA.LinAlgError, match="leading minor of order 2 is not positive-definite"):
        LA.cholesky_ex(strided.asarray(bad), check_errors=True)
    with pytest.raises(torch.linalg.LinAlgError, match="leading minor of order 2 is not positive-definite"):
        torch.linalg.cholesky_ex(torch.from_numpy(bad), check_errors=True)
    for L, T in ((LA, strided.asarray), (torch.linalg, torch.from_numpy)):
        with pytest.raises(L.LinAlgError, match=r"\(Batch element 0\): .*minor of order 2 is not positive-def"):
            L.cholesky(T(bad))
    sing = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 1.0]]])
    si, ti = LA.inv_ex(strided.asarray(sing)), torch.linalg.inv_ex(torch.from_numpy(sing))
    same(si.info, ti.info, 0)
    same(si.inverse[1], ti.inverse[1])
    B = np.ones((2, 2, 1))
    si = LA.solve_ex(strided.asarray(sing), strided.asarray(B))
    ti = torch.linalg.solve_ex(torch.from_numpy(sing), torch.from_numpy(B))
    assert si._fields == ("result", "info")
    same(si.info, ti.info, 0)
    same(si.result[1], ti.result[1])
    si = LA.solve_ex(strided.asarray(sing), strided.asarray(np.ones((3, 1, 2, 1))))  # B's batch broadcasts
    ti = torch.linalg.solve_ex(torch.from_numpy(sing), torch.from_numpy(np.ones((3, 1, 2, 1))))
    same(si.info, ti.info, 0)  # (A's batch only)
    same(si.result[:, 1], ti.result[:, 1])
    for L, x in ((LA, strided.asarray(sing)), (torch.linalg, torch.from_numpy(sing))):
        with pytest.raises(L.LinAlgError, match=r"\(Batch element 0\): The diagonal element 2 is zero"):
            L.matrix_power(x, -1)
        with pytest.raises(L.LinAlgError, match="singular"):
            L.inv(x)
        with pytest.raises(L.LinAlgError, match="singular"):
            L.inv_ex(x, check_errors=True)
        with pytest.raises(L.LinAlgError, match="singular"):
            L.solve(x, x)
        with pytest.raises(RuntimeError, match="not positive-definite"):
            L.cholesky(-x)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("UPLO", ["L", "U"])
def test_eigh_eigvalsh(dtype, UPLO):
    A = rand(RNG, (2, 4, 4), dtype)  # not Hermitian: only the UPLO triangle may be read
    rs, rt = compare("eigvalsh", [A, UPLO], tol=TOL[dtype])
    rs, rt = compare("eigh", [A], {"UPLO": UPLO}, tol=TOL[dtype], fields=("eigenvalues",))
    assert rs._fields == ("eigenvalues", "eigenvectors")
    vs, vt = to_numpy(rs.eigenvectors), to_numpy(rt.eigenvectors)
    overlap = np.abs(np.einsum("...ij,...ij->...j", np.conj(vs), vt))  # 1 up to sign/phase
    np.testing.assert_allclose(overlap, 1, atol=TOL[dtype] * 10)
    assert dtname(rs.eigenvectors.dtype) == dtname(rt.eigenvectors.dtype)


def test_eigh_gradients_on_symmetric_input():
    A = rand(RNG, (3, 3), "float64")
    for fn in (lambda L, a: L.eigvalsh(a + a.mT), lambda L, a: L.eigh(a + a.mT).eigenvalues,
               lambda L, a: L.eigh(a + a.mT, "U").eigenvectors ** 2):
        sa = strided.asarray(A.copy()).requires_grad_()
        ta = torch.from_numpy(A.copy()).requires_grad_()
        rs, rt = fn(LA, sa), fn(torch.linalg, ta)
        same(rs, rt, 1e-8)
        rs.sum().backward()
        rt.sum().backward()
        same(sa.grad, ta.grad, 1e-7)


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig_eigvals(dtype):
    A = rand(RNG, (2, 3, 3), dtype)
    ws, wt = LA.eigvals(strided.asarray(A)), torch.linalg.eigvals(torch.from_numpy(A))
    assert dtname(ws.dtype) == dtname(wt.dtype)
    key = lambda w: np.sort_complex(np.round(to_numpy(w), 4))  # noqa: E731
    np.testing.assert_allclose(key(ws), key(wt), atol=TOL[dtype] * 10)
    r = LA.eig(strided.asarray(A))
    assert r._fields == ("eigenvalues", "eigenvectors")
    V, w = to_numpy(r.eigenvectors), to_numpy(r.eigenvalues)
    assert dtname(r.eigenvectors.dtype) == dtname(torch.linalg.eig(torch.from_numpy(A)).eigenvectors.dtype)
    np.testing.assert_allclose(A @ V, V * w[..., None, :], atol=TOL[dtype] * 10)
    np.testing.assert_allclose(np.linalg.norm(V, axis=-2), 1, atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(dtype, shape, mode):
    A = rand(RNG, shape, dtype)
    rs, rt = LA.qr(strided.asarray(A), mode), torch.linalg.qr(torch.from_numpy(A), mode=mode)
    assert rs._fields == ("Q", "R")
    for g, w in zip(rs, rt):
        assert tuple(g.shape) == tuple(w.shape) and dtname(g.dtype) == dtname(w.dtype)
    # LAPACK geqrf's signs on both sides: R's rows and Q's columns agree up to sign
    sign = np.sign(np.real(np.diagonal(to_numpy(rs.R), axis1=-2, axis2=-1)) *
                   np.real(np.diagonal(to_numpy(rt.R), axis1=-2, axis2=-1)))
    k = sign.shape[-1]
    np.testing.assert_allclose(to_numpy(rs.R)[..., :k, :] * sign[..., :, None], to_numpy(rt.R)[..., :k, :],
                               atol=TOL[dtype] * 10)
    if mode != "r":
        np.testing.assert_allclose(to_numpy(rs.Q @ rs.R), A, atol=TOL[dtype] * 10)


def test_qr_gradient_and_bad_mode():
    compare("qr", [rand(RNG, (4, 3), "float64")], grad=True, field="R", tol=1e-8)
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        LA.qr(strided.ones((2, 2)), "full")
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        torch.linalg.qr(torch.ones(2, 2), "full")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("full", [True, False])
def test_svd_svdvals(dtype, full):
    A = rand(RNG, (2, 4, 3), dtype)
    compare("svdvals", [A], tol=TOL[dtype], grad=dtype == "float64")
    rs, rt = LA.svd(strided.asarray(A), full), torch.linalg.svd(torch.from_numpy(A), full_matrices=full)
    assert rs._fields == ("U", "S", "Vh")
    for g, w in zip(rs, rt):
        assert tuple(g.shape) == tuple(w.shape) and dtname(g.dtype) == dtname(w.dtype)
    same(rs.S, rt.S, TOL[dtype])
    Us, Ut = to_numpy(rs.U)[..., :3], to_numpy(rt.U)[..., :3]
    np.testing.assert_allclose(np.abs(np.einsum("...ij,...ij->...j", np.conj(Us), Ut)), 1, atol=TOL[dtype] * 10)
    recon = (Us * to_numpy(rs.S)[..., None, :]) @ to_numpy(rs.Vh)
    np.testing.assert_allclose(recon, A, atol=TOL[dtype] * 10)
    for L, x in ((LA, strided.asarray(A)), (torch.linalg, torch.from_numpy(A))):
        with pytest.raises(RuntimeError, match="driver="):
            L.svd(x, driver="gesvd")
        with pytest.raises(RuntimeError, match="driver="):
            L.svdvals(x, driver="gesvd")


# --- solvers ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("a_shape,b_shape", [((3, 3), (3, 2)), ((2, 3, 3), (3, 2)), ((3, 3), (2, 3, 3)),
                                             ((2, 3, 3), (2, 3)), ((3, 3), (3,))])
def test_solve(dtype, left, a_shape, b_shape):
    A = rand(RNG, a_shape, dtype) + 3 * np.eye(3, dtype=dtype)
    B = rand(RNG, b_shape, dtype)
    if not left and len(b_shape) >= 2 and b_shape != (2, 3):
        B = np.swapaxes(B, -1, -2).copy()
    if not left and len(b_shape) == len(a_shape) - 1:  # a batch of vectors is a column: XA = B can't hold
        for L, T in ((LA, strided.asarray), (torch.linalg, torch.from_numpy)):
            with pytest.raises(RuntimeError, match=r"Incompatible shapes .* XA = B \(3x3 and 3x1\)"):
                L.solve(T(A), T(B), left=False)
        return
    g = dtype in ("float64", "complex128")
    compare("solve", [A, B], {"left": left}, tol=TOL[dtype], grad=g)
    compare("solve_ex", [A, B], {"left": left}, tol=TOL[dtype], fields=("result", "info"))


def test_solve_errors():
    A, B = np.eye(3), np.ones((3, 2))
    for L, T in ((LA, strided.asarray), (torch.linalg, torch.from_numpy)):
        with pytest.raises(RuntimeError, match="square"):
            L.solve(T(np.ones((2, 3))), T(B[:2]))
        with pytest.raises(RuntimeError, match="Incompatible shapes"):
            L.solve(T(A), T(np.ones((2, 2))))
        with pytest.raises(RuntimeError, match="same dtype"):
            L.solve(T(A), T(B.astype(np.float32)))
        with pytest.raises(RuntimeError):
            L.solve(T(np.ones((2, 3, 3)) + np.eye(3)), T(np.ones((3, 3, 1))))  # batches 2 and 3
        with pytest.raises(RuntimeError, match="floating point or complex"):
            L.inv(T(np.eye(2, dtype=np.int64)))
        with pytest.raises(RuntimeError, match="floating point or complex"):
            L.det(T(np.eye(2, dtype=np.int64)))
        with pytest.raises(RuntimeError, match="square matrices"):
            L.inv(T(np.ones((2, 3))))
        with pytest.raises(RuntimeError, match="square matrices"):
            L.eigh(T(np.ones((2, 3))))
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            L.det(T(np.ones(3)))
        for f in ("inv", "det", "slogdet", "cholesky", "svdvals", "qr", "eigvalsh", "eig", "pinv", "matrix_rank",
                  "cond"):
            # (PyTorch's wordings vary: "not implemented for 'Half'", "Low precision dtypes not supported")
            msg = "Half|float and double" if L is torch.linalg else "Low precision dtypes not supported. Got Half"
            with pytest.raises(RuntimeError, match=msg):
                getattr(L, f)(T(np.eye(2, dtype=np.float16)))
        with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
            L.matrix_norm(T(np.eye(2, dtype=np.float16)), "nuc")
    same(LA.matrix_norm(strided.asarray(np.eye(2, dtype=np.float16))),
         torch.linalg.matrix_norm(torch.from_numpy(np.eye(2, dtype=np.float16))), 1e-3)
    same(LA.vector_norm(strided.asarray(np.ones(3, dtype=np.float16)), 1),
         torch.linalg.vector_norm(torch.from_numpy(np.ones(3, dtype=np.float16)), 1), 1e-3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_and_matrix_rank(dtype, hermitian):
    # (its own generator: pinv's gradient at a rank-deficient A is compared at a tolerance that
    # some draws of the shared RNG, whose state depends on the tests a worker ran before, missed)
    X = rand(np.random.default_rng(433), (2, 4, 2), dtype)
    A = X @ np.swapaxes(X, -1, -2)  # rank 2 of 4, symmetric
    if not hermitian:
        A = A[..., :3]
    compare("pinv", [A], {"hermitian": hermitian}, tol=TOL[dtype] * 10, grad=dtype == "float64" and not hermitian)
    compare("matrix_rank", [A], {"hermitian": hermitian})
    compare("matrix_rank", [A], {"atol": 1.0, "rtol": 0.0, "hermitian": hermitian})
    compare("matrix_rank", [A], {"rtol": 0.5})
    compare("pinv", [A], {"atol": 0.5, "hermitian": hermitian}, tol=TOL[dtype] * 10)
    compare("pinv", [A, 0.3, hermitian], tol=TOL[dtype] * 10)  # the older overload: rcond, hermitian
    compare("matrix_rank", [A, 1.0, hermitian])  # the older overload: tol, hermitian
    compare("matrix_rank", [A], {"tol": 0.1})


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("a_shape,b_shape", [((2, 5, 3), (2, 5, 2)), ((3, 3), (3, 1)), ((3, 4), (3, 2)),
                                             ((2, 4, 2), (2, 4)), ((4, 2), (4,))])
def test_lstsq(driver, dtype, a_shape, b_shape):
    A, B = rand(RNG, a_shape, dtype), rand(RNG, b_shape, dtype)
    rs = LA.lstsq(strided.asarray(A), strided.asarray(B), driver=driver)
    rt = torch.linalg.lstsq(torch.from_numpy(A), torch.from_numpy(B), driver=driver)
    assert rs._fields == ("solution", "residuals", "rank", "singular_values")
    for f in rs._fields:
        same(getattr(rs, f), getattr(rt, f), TOL[dtype] * 10)


def test_lstsq_gradient_rank_deficiency_and_errors():
    A, B = rand(RNG, (5, 3), "float64"), rand(RNG, (5, 2), "float64")
    compare("lstsq", [A, B, None], {"driver": "gelsd"}, grad=True, field="solution", tol=1e-8)
    D = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])
    Bd = np.array([[1.0], [2.0], [3.0]])
    for drv in ("gelsd", "gelss", "gelsy"):
        rs = LA.lstsq(strided.asarray(D), strided.asarray(Bd), driver=drv)
        rt = torch.linalg.lstsq(torch.from_numpy(D), torch.from_numpy(Bd), driver=drv)
        for f in rs._fields:
            same(getattr(rs, f), getattr(rt, f))
    with pytest.raises(RuntimeError, match="rank-deficient"):
        LA.lstsq(strided.asarray(D), strided.asarray(Bd), driver="gels")
    for L, T in ((LA, strided.asarray), (torch.linalg, torch.from_numpy)):
        with pytest.raises(RuntimeError, match="driver"):
            L.lstsq(T(A), T(B), driver="gesv")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,k", [((4, 3), 2), ((2, 3, 3), 3), ((5, 2), 0)])
def test_householder_product(dtype, shape, k):
    A = rand(RNG, shape, dtype)
    tau = rand(RNG, shape[:-2] + (k,), dtype)
    # (with k = 0 PyTorch's result is the identity's columns, not connected to the graph)
    compare("householder_product", [A, tau], tol=TOL[dtype], grad=dtype in ("float64", "complex128") and k > 0)


def test_householder_product_from_geqrf_and_errors():
    A = torch.randn(4, 3, dtype=torch.float64)
    a, tau = torch.geqrf(A)
    Q = LA.householder_product(strided.asarray(a.numpy()), strided.asarray(tau.numpy()))
    np.testing.assert_allclose(to_numpy(Q), torch.linalg.qr(A).Q.numpy(), atol=1e-12)
    for L, T in ((LA, strided.asarray), (torch.linalg, torch.from_numpy)):
        with pytest.raises(RuntimeError, match=r"input.shape\[-2\] must be greater than or equal"):
            L.householder_product(T(np.ones((2, 3))), T(np.ones(1)))
        with pytest.raises(RuntimeError, match=r"input.shape\[-1\] must be greater than or equal"):
            L.householder_product(T(np.ones((3, 2))), T(np.ones(3)))


# --- products and the rest --------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 3, -2])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_matrix_power(n, dtype):
    A = rand(RNG, (2, 3, 3), dtype) + 2 * np.eye(3, dtype=dtype)
    compare("matrix_power", [A, n], tol=TOL[dtype] * 10, grad=dtype == "float64")
    compare("matrix_power", [np.arange(4).reshape(2, 2), 3])
    with pytest.raises(RuntimeError, match="floating point or complex"):
        LA.matrix_power(storch.tensor([[1, 2], [3, 4]]), -1)


@pytest.mark.parametrize("dtype", FLOATS)
def test_cross_vecdot_diagonal_matmul(dtype):
    x, y = rand(RNG, (2, 1, 3), dtype), rand(RNG, (4, 3), dtype)[None]
    g = dtype in ("float64", "complex128")
    compare("cross", [x, y], tol=TOL[dtype], grad=g)
    compare("cross", [rand(RNG, (3, 2), dtype), rand(RNG, (3, 2), dtype)], {"dim": 0}, tol=TOL[dtype])
    compare("vecdot", [x, y], tol=TOL[dtype], grad=g)
    compare("vecdot", [rand(RNG, (3, 2), dtype), rand(RNG, (3, 2), dtype)], {"dim": 0}, tol=TOL[dtype])
    A = rand(RNG, (2, 3, 4), dtype)
    compare("diagonal", [A], tol=0)
    compare("diagonal", [A], {"offset": 1, "dim1": 0, "dim2": 2}, tol=0)
    compare("matmul", [A, rand(RNG, (4, 2), dtype)], tol=TOL[dtype], grad=g)
    compare("multi_dot", [[rand(RNG, (2, 3), dtype), rand(RNG, (3, 3), dtype), rand(RNG, (3,), dtype)]],
            tol=TOL[dtype], grad=g)


def test_vecdot_and_cross_errors():
    for L, T in ((LA, strided.asarray), (torch.linalg, torch.from_numpy)):
        with pytest.raises(RuntimeError, match="same dtype"):
            L.vecdot(T(np.ones(3, np.float32)), T(np.ones(3)))
        with pytest.raises(RuntimeError, match="floating point or complex"):
            L.vecdot(T(np.ones(3, np.int64)), T(np.ones(3, np.int64)))
        with pytest.raises(RuntimeError, match="must have length 3"):
            L.cross(T(np.ones((2, 4))), T(np.ones((2, 4))))


def test_tensorinv_tensorsolve():
    A = rand(RNG, (4, 2, 2), "float64") + np.eye(4).reshape(4, 2, 2)
    compare("tensorinv", [A], {"ind": 1}, grad=True)
    A2 = rand(RNG, (2, 3, 6), "float64") + np.eye(6).reshape(2, 3, 6)
    compare("tensorinv", [A2, 2])
    B = rand(RNG, (2, 3), "float64")
    compare("tensorsolve", [A2, B], grad=True)
    A3 = rand(RNG, (6, 2, 3), "float64") + np.eye(6).reshape(6, 2, 3)
    compare("tensorsolve", [A3, B], {"dims": (0,)})
    for L, T in ((LA, strided.asarray), (torch.linalg, torch.from_numpy)):
        with pytest.raises(RuntimeError, match="prod"):
            L.tensorinv(T(np.ones((2, 3))), ind=1)


def test_out_writes_and_named_results():
    x = rand(RNG, (3, 4), "float64")
    o = strided.empty((3,), dtype=strided.float64)
    r = LA.vector_norm(strided.asarray(x), 2, 1, out=o)
    assert r is o or np.shares_memory(to_numpy(r), to_numpy(o))
    same(o, torch.linalg.vector_norm(torch.from_numpy(x), 2, 1))
    A = spd(RNG, (3, 3), "float64")
    o = strided.empty((3, 3), dtype=strided.float64)
    LA.inv(strided.asarray(A), out=o)
    same(o, torch.linalg.inv(torch.from_numpy(A)))
    s, l = strided.empty((), dtype=strided.float64), strided.empty((), dtype=strided.float64)
    res = LA.slogdet(strided.asarray(A), out=(s, l))
    want = torch.linalg.slogdet(torch.from_numpy(A))
    same(s, want.sign)
    same(l, want.logabsdet)
    assert res._fields == ("sign", "logabsdet")
    with pytest.raises((RuntimeError, ValueError, TypeError)):
        LA.inv(strided.asarray(A), out=strided.empty((2, 2), dtype=strided.float64))


def test_ldl_is_refused_with_a_reason():
    for f, args in (("ldl_factor", 1), ("ldl_factor_ex", 1), ("ldl_solve", 3)):
        with pytest.raises(NotImplementedError, match="LDL"):
            getattr(LA, f)(*[strided.eye(2)] * args)
