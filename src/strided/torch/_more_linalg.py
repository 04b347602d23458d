"""PyTorch's older top-level linear-algebra functions that ``strided.torch`` still lacked:
``cholesky``, ``cholesky_inverse``, ``cholesky_solve``, ``lu``, ``lu_unpack``, ``lu_solve``,
``triangular_solve``, ``matrix_exp``, ``addbmm``, ``ger``, ``chain_matmul``, ``renorm``,
``frobenius_norm`` and ``nuclear_norm``.

Each is composed of strided's differentiable functions (``linalg.solve``, ``linalg.cholesky``,
``matmul``, ``tril``, ``concat``, ...), so gradients are the derivatives of the composition:
the same functions PyTorch differentiates, with the same triangle read (``tril``/``triu`` of
the coefficient) where PyTorch's solver reads one. The LU factorisation is partial-pivoting
Gaussian elimination written with those functions, one column a step (LAPACK getrf's pivots: the
largest magnitude in the column, ``|re| + |im|`` for complex, the first of equal ones), so it
costs ``min(m, n)`` steps of array calls: meant for small matrices. ``out=`` is refused.
"""

from __future__ import annotations

import math
import sys

from .._core import dtypes as _dtypes
from .._core.array import Array
from ._checks import blas_scalar, no_out as _no_out, tensor as _tensor

__all__ = [
    "cholesky", "cholesky_inverse", "cholesky_solve", "lu", "lu_unpack", "lu_solve", "triangular_solve",
    "matrix_exp", "addbmm", "ger", "chain_matmul", "renorm", "frobenius_norm", "nuclear_norm",
]


def _ns():
    return sys.modules["strided"]


def _matrix(name: str, x, arg: str = "input", square: bool = False) -> Array:
    _tensor(name, x, arg)
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {x.shape[-2]} by "
                           f"{x.shape[-1]} matrices")
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {x.dtype.name}")
    return x


def _mT(x):
    return x.transpose(-2, -1)


def _mH(x):
    t = x.transpose(-2, -1)
    return _ns().conj(t) if x.dtype.kind == "c" else t


def _eye_like(x, n: int, m: int | None = None):
    return _ns().eye(n, n if m is None else m, dtype=x.dtype, device=x.device)


def _triangle(x, upper: bool):
    """``x``'s upper or lower triangle in value; its gradient reaches all of ``x`` (PyTorch's
    derivatives of the Cholesky solvers are the full-matrix formulas)."""
    ns = _ns()
    t = ns.triu(x) if upper else ns.tril(x)
    return x + (t - x).detach()


def _tri_solve(T, B, upper: bool):
    """``X`` with ``T X = B`` for a triangular ``T`` (zeros off its triangle; batch dimensions
    already broadcast). A singular ``T`` gives inf and NaN as LAPACK's trtrs/trsm do (and
    PyTorch's triangular solvers), where ``linalg.solve`` would raise: then by substitution,
    one row a step; otherwise by ``linalg.solve``."""
    ns = _ns()
    n = T.shape[-1]
    d = ns.linalg.diagonal(T.detach())
    if n == 0 or bool(ns.all(ns.logical_and(d != 0, ns.isfinite(d)))):
        return ns.linalg.solve(T, B)
    rows = []  # solved rows, in the order they are found
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        acc = B[..., i:i + 1, :]
        if rows:
            done = ns.concat(rows, axis=-2)
            cols = T[..., i:i + 1, i + 1:] if upper else T[..., i:i + 1, :i]
            acc = acc - cols @ done
        x = acc / T[..., i:i + 1, i:i + 1]
        rows = [x] + rows if upper else rows + [x]
    return ns.concat(rows, axis=-2)


def cholesky(input, upper=False, *, out=None):
    """``torch.cholesky(input, upper=False, *, out=None)``: the Cholesky factor of a Hermitian
    positive-definite matrix (or batch): lower ``L`` with ``input = L L^H``, or upper ``U``
    with ``input = U^H U``.

    >>> import strided.torch as torch
    >>> torch.cholesky(torch.tensor([[4.0, 2.0], [2.0, 2.0]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    x = _matrix("cholesky", input, square=True)
    _no_out("cholesky", out)
    return _ns().linalg.cholesky(x, upper=bool(upper))


def _solve_chol(name, b, L, upper):
    T = _triangle(L, upper)
    lower = _mH(T) if upper else T  # A = lower lower^H
    y = _tri_solve(lower, b, False)
    return _tri_solve(_mH(lower), y, True)


def cholesky_inverse(L, upper=False, *, out=None):
    """``torch.cholesky_inverse(L, upper=False, *, out=None)``: the inverse of ``A = L L^H``
    (``U^H U`` where ``upper``) from its Cholesky factor (only its triangle is read).

    >>> import strided.torch as torch
    >>> torch.cholesky_inverse(torch.tensor([[2.0, 0.0], [1.0, 1.0]]))
    tensor([[ 0.5000, -0.5000],
            [-0.5000,  1.0000]])
    """
    x = _matrix("cholesky_inverse", L, "L", square=True)
    _no_out("cholesky_inverse", out)
    n = x.shape[-1]
    ns = _ns()
    if n:
        d = ns.reshape(ns.linalg.diagonal(x.detach()), (-1, n))
        zero = ns.nonzero(d == 0)
        if zero[0].shape[0]:
            b, i = int(zero[0][0].item()), int(zero[1][0].item())
            where = f"(Batch element {b}): " if x.ndim > 2 else ""
            raise RuntimeError(f"cholesky_inverse: {where}The diagonal element {i + 1} is zero, the inversion "
                               "could not be completed because the input matrix is singular.")
    eye = _ns().broadcast_to(_eye_like(x, n), tuple(x.shape))
    return _solve_chol("cholesky_inverse", eye, x, upper)


def _batch_pair(name, b, A):
    ns = _ns()
    batch = ns.broadcast_shapes(tuple(b.shape[:-2]), tuple(A.shape[:-2]))
    return (ns.broadcast_to(b, batch + tuple(b.shape[-2:])), ns.broadcast_to(A, batch + tuple(A.shape[-2:])))


def cholesky_solve(B, L, upper=False, *, out=None):
    """``torch.cholesky_solve(B, L, upper=False, *, out=None)``: ``X`` with ``A X = B`` where
    ``A = L L^H`` (``U^H U`` where ``upper``); batch dimensions broadcast.

    >>> import strided.torch as torch
    >>> L = torch.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> torch.cholesky_solve(torch.tensor([[4.0], [3.0]]), L)
    tensor([[0.5000],
            [1.0000]])
    """
    b = _matrix("cholesky_solve", B, "B")
    x = _matrix("cholesky_solve", L, "L", square=True)
    _no_out("cholesky_solve", out)
    if b.dtype != x.dtype:
        raise RuntimeError(f"cholesky_solve: Expected b and A to have the same dtype, but found b of type "
                           f"{b.dtype.name} and A of type {x.dtype.name} instead.")
    if b.shape[-2] != x.shape[-1]:
        raise RuntimeError(f"cholesky_solve: Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{x.shape[-1]} by {x.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    b, x = _batch_pair("cholesky_solve", b, x)
    return _solve_chol("cholesky_solve", b, x, upper)


# --- LU ----------------------------------------------------------------------------------------

def _lu_factor(A):
    """(LU, pivots (int32, 1-based), info (int32)) of A (..., m, n) by partial pivoting."""
    ns = _ns()
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    batch = tuple(A.shape[:-2])
    LU = A
    pivs = []
    info = ns.zeros(batch, dtype=ns.int32, device=A.device)
    rows = ns.arange(m, dtype=ns.int64, device=A.device)
    for j in range(k):
        col = LU[..., j:, j].detach()
        mag = ns.abs(ns.real(col)) + ns.abs(ns.imag(col)) if col.dtype.kind == "c" else ns.abs(col)
        p = ns.argmax(mag, axis=-1) + j  # (the first of equal magnitudes, as idamax)
        pivs.append(p)
        pe = p[..., None]
        perm = ns.where(rows == j, pe, ns.where(rows == pe, j, rows))
        LU = ns.take_along_axis(LU, ns.broadcast_to(perm[..., None], batch + (m, n)), axis=-2)
        pivot = LU[..., j, j]
        zero = pivot == 0
        info = ns.where(ns.logical_and(zero, info == 0), j + 1, info).astype(ns.int32)
        if j + 1 < m:
            safe = ns.where(zero, ns.ones_like(pivot), pivot)
            l = LU[..., j + 1:, j] / safe[..., None]
            upd = LU[..., j + 1:, j + 1:] - l[..., :, None] * LU[..., j, None, j + 1:]
            lower = ns.concat([LU[..., j + 1:, :j], l[..., None], upd], axis=-1)
            LU = ns.concat([LU[..., :j + 1, :], lower], axis=-2)
    if pivs:
        pivots = ns.stack(pivs, axis=-1) + 1
    else:
        pivots = ns.zeros(batch + (0,), dtype=ns.int64, device=A.device)
    return LU, pivots.astype(ns.int32), info


def lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu(A, pivot=True, get_infos=False, out=None)``: ``(A_LU, pivots)`` or, with
    ``get_infos``, ``(A_LU, pivots, infos)``: the LU factorisation with partial pivoting of a
    matrix or batch, packed as LAPACK's getrf (``L``'s unit diagonal implied), pivots 1-based
    int32, infos the first zero pivot (1-based; 0 where none). ``pivot=False`` raises, as on
    PyTorch's CPU.

    >>> import strided.torch as torch
    >>> LU, piv = torch.lu(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> piv.tolist()
    [2, 2]
    """
    x = _matrix("linalg.lu_factor", A, "A")
    _no_out("lu", out)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, piv, info = _lu_factor(x)
    if get_infos:
        return return_types._lu_with_info(LU, piv, info)
    return LU, piv


def _permutation(pivots, m: int):
    """The row order ``perm`` (int64, (..., m)) that the pivots' swaps give ``arange(m)``."""
    ns = _ns()
    batch = tuple(pivots.shape[:-1])
    rows = ns.arange(m, dtype=ns.int64, device=pivots.device)
    perm = ns.broadcast_to(rows, batch + (m,))
    piv = pivots.astype(ns.int64) - 1
    for j in range(pivots.shape[-1]):
        p = piv[..., j:j + 1]
        a = ns.take_along_axis(perm, p, axis=-1)           # perm[p]
        b = perm[..., j:j + 1]                              # perm[j]
        perm = ns.where(rows == j, a, ns.where(rows == p, b, perm))
    return perm


def _check_pivots(name, LU, pivots):
    _tensor(name, pivots, "LU_pivots")
    if pivots.dtype != _dtypes.int32:
        raise RuntimeError(f"{name}: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. "
                           f"Note: this function is intended to be used with the output produced by "
                           f"torch.linalg.lu_factor; got {pivots.dtype.name}")
    k = min(LU.shape[-2], LU.shape[-1])
    if tuple(pivots.shape) != tuple(LU.shape[:-2]) + (k,):
        raise RuntimeError(f"{name}: Expected LU_pivots of shape {list(LU.shape[:-2]) + [k]} for LU_data of "
                           f"shape {list(LU.shape)}; got {list(pivots.shape)}")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``torch.lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *,
    out=None)``: ``return_types.lu_unpack(P, L, U)`` with ``A = P L U`` from ``torch.lu``'s
    packed result; a part not unpacked is an empty array.

    >>> import strided.torch as torch
    >>> P, L, U = torch.lu_unpack(*torch.lu(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
    >>> (P @ L @ U).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    LU = _matrix("lu_unpack", LU_data, "LU_data")
    _no_out("lu_unpack", out)
    _check_pivots("lu_unpack", LU, LU_pivots)
    ns = _ns()
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    empty = ns.empty(0, dtype=LU.dtype, device=LU.device)
    if unpack_data:
        L = ns.tril(LU[..., :, :k], k=-1) + _eye_like(LU, m, k)
        U = ns.triu(LU[..., :k, :])
    else:
        L = U = empty
    if unpack_pivots:
        perm = _permutation(LU_pivots, m)
        # P[..., perm[i], i] = 1 (A's row perm[i] is LU's row i)
        cols = ns.arange(m, dtype=ns.int64, device=LU.device)
        P = ns.astype(perm[..., None, :] == cols[:, None], LU.dtype)
    else:
        P = empty
    return return_types.lu_unpack(P, L, U)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve(b, LU_data, LU_pivots, *, out=None)``: ``X`` with ``A X = b`` from
    ``torch.lu``'s factorisation of square ``A``; batch dimensions broadcast.

    >>> import strided.torch as torch
    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> torch.lu_solve(torch.tensor([[5.0], [11.0]]), *torch.lu(A)).tolist()
    [[1.0], [2.0]]
    """
    B = _matrix("linalg.lu_solve", b, "B")
    LU = _matrix("linalg.lu_solve", LU_data, "LU", square=True)
    _no_out("lu_solve", out)
    _check_pivots("lu_solve", LU, LU_pivots)
    if B.dtype != LU.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{LU.dtype.name} and B of type {B.dtype.name} instead")
    if B.shape[-2] != LU.shape[-1]:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({LU.shape[-2]}x{LU.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    ns = _ns()
    n = LU.shape[-1]
    perm = _permutation(LU_pivots, n)
    batch = ns.broadcast_shapes(tuple(B.shape[:-2]), tuple(LU.shape[:-2]))
    B = ns.broadcast_to(B, batch + tuple(B.shape[-2:]))
    LU = ns.broadcast_to(LU, batch + (n, n))
    perm = ns.broadcast_to(perm, batch + (n,))
    pb = ns.take_along_axis(B, ns.broadcast_to(perm[..., None], tuple(B.shape)), axis=-2)
    L = ns.tril(LU, k=-1) + _eye_like(LU, n)
    U = ns.triu(LU)
    return _tri_solve(U, _tri_solve(L, pb, False), True)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``torch.triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *,
    out=None)``: ``return_types.triangular_solve(solution, cloned_coefficient)``: ``X`` with
    ``T X = b`` where ``T`` is ``A``'s upper (or lower) triangle, transposed where
    ``transpose``, its diagonal taken as ones where ``unitriangular``; and a copy of ``A``.

    >>> import strided.torch as torch
    >>> A = torch.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> torch.triangular_solve(torch.tensor([[4.0], [8.0]]), A).solution.tolist()
    [[1.0], [2.0]]
    """
    B = _matrix("triangular_solve", b, "b")
    M = _matrix("triangular_solve", A, "A", square=True)
    _no_out("triangular_solve", out)
    if B.dtype != M.dtype:
        raise RuntimeError(f"triangular_solve: Expected b and A to have the same dtype, but found b of type "
                           f"{B.dtype.name} and A of type {M.dtype.name} instead.")
    if B.shape[-2] != M.shape[-1]:
        raise RuntimeError(f"triangular_solve: Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{M.shape[-1]} by {M.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    ns = _ns()
    Bb, Mb = _batch_pair("triangular_solve", B, M)
    T = ns.triu(Mb) if upper else ns.tril(Mb)
    if unitriangular:
        n = M.shape[-1]
        T = (ns.triu(Mb, k=1) if upper else ns.tril(Mb, k=-1)) + _eye_like(M, n)
    if transpose:
        T = _mT(T)
    x = _tri_solve(T, Bb, bool(upper) != bool(transpose))
    return return_types.triangular_solve(x, ns.clone(Mb))


# Higham (2005), "The scaling and squaring method for the matrix exponential revisited":
# the [13/13] Pade approximant's coefficients and its threshold theta_13 on the 1-norm.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp(A):
    """``torch.matrix_exp(A)``: the matrix exponential of a square matrix (or batch).

    Scaling and squaring over the [13/13] Pade approximant (Higham 2005), one scaling for
    the whole batch (that of its largest 1-norm); PyTorch's own method is a Taylor
    polynomial, so results agree to rounding, not bit for bit.

    >>> import strided.torch as torch
    >>> torch.matrix_exp(torch.tensor([[0.0, 1.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [0., 1.]])
    """
    x = _matrix("linalg.matrix_exp", A, "A", square=True)
    ns = _ns()
    n = x.shape[-1]
    if x.numel() == 0:
        return ns.clone(x)
    norm = float(ns.max(ns.sum(ns.abs(x.detach()), axis=-2)).item())
    s = 0 if not math.isfinite(norm) or norm <= _THETA13 else int(math.ceil(math.log2(norm / _THETA13)))
    X = x / (2.0 ** s) if s else x
    b = _PADE13
    eye = _eye_like(x, n)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (X6 * b[13] + X4 * b[11] + X2 * b[9]) + X6 * b[7] + X4 * b[5] + X2 * b[3] + eye * b[1])
    V = X6 @ (X6 * b[12] + X4 * b[10] + X2 * b[8]) + X6 * b[6] + X4 * b[4] + X2 * b[2] + eye * b[0]
    R = ns.linalg.solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``torch.addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None)``:
    ``beta * input + alpha * sum_i batch1[i] @ batch2[i]`` (``input`` broadcast; with
    ``beta=0`` its NaN and inf are ignored).

    >>> import strided.torch as torch
    >>> torch.addbmm(torch.zeros(2, 2), torch.ones(3, 2, 1), torch.ones(3, 1, 2))
    tensor([[3., 3.],
            [3., 3.]])
    """
    x = _tensor("addbmm", input)
    b1 = _tensor("addbmm", batch1, "batch1")
    b2 = _tensor("addbmm", batch2, "batch2")
    _no_out("addbmm", out)
    if b1.ndim != 3:
        raise RuntimeError(f"addbmm: batch1 must be a 3D tensor; got {b1.ndim}D")
    if b2.ndim != 3:
        raise RuntimeError(f"addbmm: batch2 must be a 3D tensor; got {b2.ndim}D")
    if b1.shape[0] != b2.shape[0] or b1.shape[2] != b2.shape[1]:
        raise RuntimeError(f"addbmm: incompatible batch shapes {list(b1.shape)} and {list(b2.shape)}")
    ns = _ns()
    prod = ns.matmul(b1, b2)
    prod = ns.sum(prod, axis=0, dtype=prod.dtype)  # (in the operands' dtype: int32 stays int32)
    beta, alpha = blas_scalar(beta, prod.dtype), blas_scalar(alpha, prod.dtype)
    if alpha != 1:
        prod = prod * alpha
    want = (b1.shape[1], b2.shape[2])
    if tuple(ns.broadcast_shapes(tuple(x.shape), want)) != want:
        raise RuntimeError(f"addbmm: the size of input {list(x.shape)} can't be broadcast to "
                           f"{list(want)}")
    if beta == 0:
        # (input's NaN and inf ignored; its gradient zero, as PyTorch's: selected nowhere)
        never = ns.zeros(want, dtype=ns.bool, device=prod.device)
        return ns.where(never, ns.broadcast_to(x, want), ns.broadcast_to(prod, want))
    base = x if beta == 1 else x * beta
    return ns.broadcast_to(base, want) + prod


def ger(input, vec2, *, out=None):
    """``torch.ger(input, vec2, *, out=None)``: the outer product (``torch.outer``).

    >>> import strided.torch as torch
    >>> torch.ger(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    _tensor("ger", input)
    _tensor("ger", vec2, "vec2")
    return _ns().torch.outer(input, vec2, out=out) if out is not None else _ns().torch.outer(input, vec2)


def chain_matmul(*matrices, out=None):
    """``torch.chain_matmul(*matrices, out=None)``: the product of the 2-D matrices, in order
    (``linalg.multi_dot``; one matrix gives a copy).

    >>> import strided.torch as torch
    >>> torch.chain_matmul(torch.eye(2), torch.ones(2, 3), torch.ones(3, 1))
    tensor([[3.],
            [3.]])
    """
    _no_out("chain_matmul", out)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    ms = [_tensor("chain_matmul", m, "matrices") for m in matrices]
    for i, m in enumerate(ms):
        if m.ndim != 2:
            raise RuntimeError(f"chain_matmul(): Tensor {i} must be 2D; got {m.ndim}D")
    ns = _ns()
    if len(ms) == 1:
        return ns.clone(ms[0])
    r = ms[0]
    for m in ms[1:]:
        if r.shape[1] != m.shape[0]:
            raise RuntimeError(f"chain_matmul(): mat1 and mat2 shapes cannot be multiplied ({r.shape[0]}x"
                               f"{r.shape[1]} and {m.shape[0]}x{m.shape[1]})")
        r = ns.matmul(r, m)
    return r


def renorm(input, p, dim, maxnorm, *, out=None):
    """``torch.renorm(input, p, dim, maxnorm, *, out=None)``: each slice of ``input`` along
    ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled by ``maxnorm / (norm + 1e-7)``.

    >>> import strided.torch as torch
    >>> torch.renorm(torch.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    x = _tensor("renorm", input)
    _no_out("renorm", out)
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"renorm: Expected a floating point or complex tensor as input. Got {x.dtype.name}")
    if isinstance(p, complex) or p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if x.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {x.ndim} dimensions")
    ns = _ns()
    from .._core import layout as _layout
    d = _layout.normalize_axis(dim, x.ndim, "renorm")
    axes = tuple(i for i in range(x.ndim) if i != d)
    norm = ns.linalg.vector_norm(x, axis=axes, keepdims=True, ord=p)
    factor = ns.where(norm > maxnorm, maxnorm / (norm + 1e-7), ns.ones_like(norm))
    from ._memory_format import row_major  # (PyTorch's renorm: a row-major result)
    return row_major(x * factor.astype(x.dtype) if x.dtype.kind == "c" else x * factor)


def frobenius_norm(input, dim=(), keepdim=False, *, out=None):
    """``torch.frobenius_norm(input, dim, keepdim=False, *, out=None)``: the 2-norm of
    ``input``'s elements over ``dim`` (PyTorch's deprecated spelling of
    ``linalg.vector_norm(input, 2, dim, keepdim)``; ``dim=()`` is every dimension).

    >>> import strided.torch as torch
    >>> torch.frobenius_norm(torch.ones(2, 2), (0, 1))
    tensor(2.)
    """
    x = _tensor("frobenius_norm", input)
    _no_out("frobenius_norm", out)
    if isinstance(dim, int):
        dim = (dim,)
    dim = tuple(dim)
    if len(dim) > 2:
        raise RuntimeError(f"frobenius_norm: Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    return _ns().linalg.vector_norm(x, axis=dim if dim else None, keepdims=keepdim, ord=2)


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """``torch.nuclear_norm(input, keepdim=False)`` / ``nuclear_norm(input, dim, keepdim=False)``:
    the sum of the singular values of the matrices in ``dim`` (the last two dimensions of a
    2-D input where not given).

    >>> import strided.torch as torch
    >>> torch.nuclear_norm(torch.tensor([[3.0, 0.0], [0.0, -2.0]]))
    tensor(5.)
    """
    x = _tensor("nuclear_norm", input)
    _no_out("nuclear_norm", out)
    if isinstance(dim, bool):  # (nuclear_norm(input, keepdim): PyTorch's first overload)
        dim, keepdim = None, dim
    ns = _ns()
    if dim is None:
        if x.ndim != 2:
            raise RuntimeError(f"nuclear_norm: Expected a 2D tensor, but got a {x.ndim}D tensor")
        dim = (0, 1)
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"nuclear_norm: dim must be a 2-tuple. Got {list(dim)}")
    from .._core import layout as _layout
    d0, d1 = (_layout.normalize_axis(d, x.ndim, "nuclear_norm") for d in dim)
    y = ns.moveaxis(x, (d0, d1), (-2, -1))
    r = ns.sum(ns.linalg.svdvals(y), axis=-1)
    if keepdim:
        for d in sorted((d0, d1)):
            r = ns.expand_dims(r, axis=d)
    return r


# --- Array's methods ---------------------------------------------------------------------------

def _install_methods() -> None:
    from ._tensor_methods import install_function_methods

    def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
        return _ns().torch.baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)

    install_function_methods(
        {"cholesky": cholesky, "cholesky_inverse": cholesky_inverse, "cholesky_solve": cholesky_solve,
         "lu": lu, "lu_solve": lu_solve, "triangular_solve": triangular_solve, "matrix_exp": matrix_exp,
         "addbmm": addbmm, "ger": ger, "renorm": renorm},
        {"addbmm_": addbmm, "baddbmm_": baddbmm, "renorm_": renorm})


_install_methods()

from ._functions import _return_type, return_types  # noqa: E402

return_types._lu_with_info = _return_type("_lu_with_info", ("LU", "pivots", "info"))
return_types.lu_unpack = _return_type("lu_unpack", ("P", "L", "U"))
return_types.triangular_solve = _return_type("triangular_solve", ("solution", "cloned_coefficient"))
