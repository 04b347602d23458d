"""``strided.torch.linalg``: PyTorch 2.13's ``torch.linalg`` over strided's arrays.

PyTorch's signatures (``vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None,
out=None)``, ``eigh(A, UPLO='L')``, ``solve(A, B, *, left=True)``, ...), named results
(``slogdet`` -> ``(sign, logabsdet)``, ``lstsq`` -> ``(solution, residuals, rank,
singular_values)``, ``*_ex`` -> with ``info``), dtypes (integer input refused with PyTorch's
RuntimeError where PyTorch refuses it) and errors, composed from ``strided.linalg`` (the Array
API's ``linalg``: LAPACK-backed and differentiable) and ``_more_torch_linalg``'s helpers, so
gradients come from strided's autograd. ``strided.linalg`` stays the standard's namespace.

Invariants: nothing here reads an array's memory directly; every result is made by
strided's differentiable functions. What strided can't do as PyTorch does (``driver=`` values
that name a CUDA solver, the LDL^T factorisation, a meaningless factor of a failed
``*_ex`` factorisation) raises or is documented on the function.

>>> import strided.torch as torch
>>> from strided.torch import linalg
>>> linalg.vector_norm(torch.tensor([[3.0, 4.0], [6.0, 8.0]]), 2, 1).tolist()
[5.0, 10.0]
"""

from __future__ import annotations

import builtins
import math
import operator
import sys

from .._core.array import Array
from ..autograd._function import Function
from ._checks import tensor as _tensor
from ._functions import _return_type, _write, return_types
from ._more_linalg import _batch_pair, _eye_like, _matrix, _mH, _mT
from ._more_torch_linalg import (lu, lu_factor, lu_factor_ex, lu_solve, matrix_exp, multi_dot,  # noqa: F401
                                 solve_triangular, vander)

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
    "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq",
    "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
    "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular",
    "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm",
]


def _ns():
    return sys.modules["strided"]


def _std():
    return sys.modules["strided"].linalg


class LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a factorisation failed (a singular matrix, one that is not
    positive-definite). A RuntimeError, as PyTorch's."""


for _n, _f in (("linalg_cholesky_ex", ("L", "info")), ("linalg_inv_ex", ("inverse", "info")),
               ("linalg_solve_ex", ("result", "info")), ("linalg_eigh", ("eigenvalues", "eigenvectors")),
               ("linalg_eig", ("eigenvalues", "eigenvectors")), ("linalg_qr", ("Q", "R")),
               ("linalg_svd", ("U", "S", "Vh")), ("linalg_slogdet", ("sign", "logabsdet")),
               ("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))):
    setattr(return_types, _n, _return_type(_n, _f))


def _run(name, fn, *args, **kw):
    """``fn(*args, **kw)`` (a ``strided.linalg`` function) with its LinAlgError as PyTorch's."""
    try:
        return fn(*args, **kw)
    except _std().LinAlgError as e:
        msg = str(e)
        if "positive" in msg.lower():
            msg = "The factorization could not be completed because the input is not positive-definite."
        elif "singular" in msg.lower():
            msg = "The input matrix is singular, the operation could not be completed."
        raise LinAlgError(f"{name}: {msg}") from None


_LOW = {"float16": "Half", "bfloat16": "BFloat16"}


def _lapack(name, A):
    """``A``, or PyTorch's refusal of half precision in a LAPACK function."""
    if A.dtype.name in _LOW:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {_LOW[A.dtype.name]}")
    return A


def _square(name, A, arg="A"):
    return _lapack(name, _matrix(name, A, arg, square=True))


def _same_dtype(name, a, b, an="A", bn="B"):
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected {an} and {bn} to have the same dtype, but found {an} of type "
                           f"{a.dtype.name} and {bn} of type {b.dtype.name} instead")


def _no_driver(name, driver):
    if driver is not None:
        raise RuntimeError(f"{name}: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER "
                           f"backend (strided computes on the CPU's LAPACK)")


def _dims(dim, ndim, name):
    """``dim`` (an int, a sequence or None) as a tuple of nonnegative axes."""
    if dim is None:
        return tuple(range(ndim))
    ds = (dim,) if isinstance(dim, int) else tuple(dim)
    out = []
    for d in ds:
        d = operator.index(d)
        lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
        if not lo <= d <= hi:
            raise IndexError(f"{name}: Dimension out of range (expected to be in range of [{lo}, {hi}], "
                             f"but got {d})")
        d = d % builtins.max(ndim, 1)
        if d in out:
            raise RuntimeError(f"{name}: dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(out)


def _info_nonzero(name, info, what):
    ns = _ns()
    flat = ns.reshape(info, (-1,))
    bad = ns.nonzero(flat > 0)[0]
    if bad.shape[0]:
        b = int(bad[0].item())
        where = f"(Batch element {b}): " if info.ndim > 0 else ""
        raise LinAlgError(f"{name}: {where}{what(int(flat[b].item()))}")


# --- norms ---------------------------------------------------------------------------------------

def _float_input(name, x, dtype):
    x = _tensor(name, x, "x" if name.endswith("vector_norm") else "A")
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {x.dtype.name}")
    if dtype is not None:
        if dtype.kind not in "fc":
            raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {dtype.name}")
        if x.dtype.kind == "c" and dtype.kind != "c":
            raise RuntimeError(f"{name}: dtype should be complex for complex inputs, but got {dtype.name}")
        if x.dtype.kind == "f" and dtype.kind == "c":
            raise RuntimeError(f"{name}: dtype should be real for real inputs, but got {dtype.name}")
        x = x.to(dtype)
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """``torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None)``:
    the vector ``ord``-norm over ``dim`` (all dimensions where None); a real result.

    >>> import strided.torch as torch
    >>> torch.linalg.vector_norm(torch.tensor([3.0, -4.0]), 1).item()
    7.0
    """
    x = _float_input("linalg.vector_norm", x, dtype)
    if isinstance(ord, builtins.bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type(ord).__name__}")
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        dim = None  # (PyTorch's vector_norm: an empty dim reduces every dimension)
    axes = _dims(dim, x.ndim, "linalg.vector_norm")
    if x.ndim and any(x.shape[a] == 0 for a in axes) and (ord < 0 or ord == math.inf):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                           f"operation does not have an identity")
    if x.ndim == 0:
        r = _std().vector_norm(x, ord=ord)
    else:
        r = _std().vector_norm(x, axis=axes, keepdims=bool(keepdim), ord=ord)
    return _write("linalg.vector_norm", r, out)


def _matrix_order(name, ord):
    valid = ord in ("fro", "nuc") if isinstance(ord, str) else (
        not isinstance(ord, builtins.bool) and isinstance(ord, (int, float))
        and ord in (1, -1, 2, -2, math.inf, -math.inf))
    if not valid:
        raise RuntimeError(f"{name}: Order {ord} not supported.")


def _matrix_norm(name, A, ord, dim, keepdim):
    ns = _ns()
    # (PyTorch's order of checks: the order, then two dims, then their range, then distinct)
    _matrix_order(name, ord)
    given = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(given) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got {' '.join(str(g) for g in given)}")
    try:
        d = _dims(given, A.ndim, name)
    except RuntimeError:  # (a repeated dim: PyTorch's message for matrix norms)
        wrapped = tuple(operator.index(g) % A.ndim for g in given)
        raise RuntimeError(f"{name}: dims must be different. Got {wrapped}") from None
    if ord in (2, -2, "nuc"):  # (by the SVD)
        _lapack(name, A)
    m = ns.moveaxis(A, d, (-2, -1))
    rows, cols = m.shape[-2], m.shape[-1]
    # PyTorch's minimum over an empty dimension (its amin's IndexError): -1 takes the least
    # column sum, -inf the least row sum, -2 the least singular value
    empty = {-1: cols == 0, -math.inf: rows == 0, -2: rows == 0 or cols == 0}
    if not isinstance(ord, str) and empty.get(ord, False):
        raise IndexError(f"{name}: amin(): Expected reduction dim to have non-zero size (order {ord} of "
                         f"{rows}x{cols} matrices)")
    r = _std().matrix_norm(m, ord=ord)
    if keepdim:
        for a in sorted(d):
            r = ns.expand_dims(r, axis=a)
    return r


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """``torch.linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None,
    out=None)``: the matrix norm ('fro', 'nuc', 1, -1, 2, -2, inf, -inf) over ``dim``.

    >>> import strided.torch as torch
    >>> torch.linalg.matrix_norm(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 1).item()
    6.0
    """
    _matrix_order("linalg.matrix_norm", ord)  # (PyTorch checks the order first)
    A = _float_input("linalg.matrix_norm", A, dtype)
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    return _write("linalg.matrix_norm", _matrix_norm("linalg.matrix_norm", A, ord, dim, keepdim), out)


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """``torch.linalg.norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None)``: a
    vector norm where ``dim`` is an int (or ``A`` is 1-D), a matrix norm where ``dim`` is a
    2-tuple (or ``A`` is 2-D and ``ord`` given); the 2-norm of the flattened ``A`` where
    ``ord`` and ``dim`` are both None.

    >>> import strided.torch as torch
    >>> torch.linalg.norm(torch.tensor([[3.0, 0.0], [0.0, 4.0]])).item()
    5.0
    """
    A = _float_input("linalg.norm", A, dtype)
    if dim is not None:
        d = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(d) == 1:
            if isinstance(ord, str):  # (PyTorch's: a matrix norm over one dimension)
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {d[0]}")
            r = vector_norm(A, 2 if ord is None else ord, d, keepdim)
        elif len(d) == 2:
            r = _matrix_norm("linalg.matrix_norm", A, "fro" if ord is None else ord, d, keepdim)
        else:
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(d)}")
    elif ord is None:
        r = vector_norm(A, 2, None, keepdim)
    elif A.ndim == 1:
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.vector_norm: ord={ord!r} is a matrix norm; the input is 1-D")
        r = vector_norm(A, ord, None, keepdim)
    elif A.ndim == 2:
        r = _matrix_norm("linalg.matrix_norm", A, ord, (-2, -1), keepdim)
    else:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.ndim}D.")
    return _write("linalg.norm", r, out)


def cond(A, p=None, *, out=None):
    """``torch.linalg.cond(A, p=None, *, out=None)``: the condition number ``norm(A, p) *
    norm(inv(A), p)`` (for None, 2, -2 the ratio of extreme singular values); a real result.

    >>> import strided.torch as torch
    >>> torch.linalg.cond(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).item()
    2.0
    """
    A = _lapack("linalg.cond", _matrix("linalg.cond", A, "A"))
    ns = _ns()
    if p is None or p in (2, -2) and not isinstance(p, str):
        s = _std().svdvals(A)
        r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
        return _write("linalg.cond", r, out)
    if not (p in ("fro", "nuc") if isinstance(p, str) else p in (1, -1, math.inf, -math.inf)):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    _square("linalg.cond", A)
    r = _std().matrix_norm(A, ord=p) * _std().matrix_norm(_run("linalg.cond", _std().inv, A), ord=p)
    return _write("linalg.cond", ns.astype(r, r.dtype), out)


# --- decompositions ----------------------------------------------------------------------------

def cholesky(A, *, upper=False, out=None):
    """``torch.linalg.cholesky(A, *, upper=False, out=None)``: ``L`` with ``A = L L^H`` (``U``
    with ``A = U^H U`` where ``upper``) of a Hermitian positive-definite ``A``.

    >>> import strided.torch as torch
    >>> torch.linalg.cholesky(torch.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    A = _square("linalg.cholesky", A)
    try:
        L = _std().cholesky(A, upper=bool(upper))
    except _std().LinAlgError:  # (then potrf's info, for PyTorch's message)
        _info_nonzero("linalg.cholesky", _chol_info(A), _CHOL_MSG)
        raise LinAlgError("linalg.cholesky: The factorization could not be completed because the input is not "
                          "positive-definite.") from None
    return _write("linalg.cholesky", L, out)


def _CHOL_MSG(i):
    return (f"The factorization could not be completed because the input is not positive-definite (the leading "
            f"minor of order {i} is not positive-definite).")


def _chol_info(A):
    """int32 ``info`` per matrix: 0, or the order of the first leading minor that is not
    positive-definite (LAPACK potrf's)."""
    ns = _ns()
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    flat = ns.reshape(A.detach(), (-1, n, n))
    infos = []
    for b in range(flat.shape[0]):
        k = 0
        for j in range(1, n + 1):
            try:
                _std().cholesky(flat[b, :j, :j])
            except _std().LinAlgError:
                k = j
                break
        infos.append(k)
    return ns.reshape(ns.asarray(infos, dtype=ns.int32, device=A.device), batch)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``torch.linalg.cholesky_ex(A, *, upper=False, check_errors=False, out=None)``: ``(L,
    info)``; ``info`` is 0 or the order of the first leading minor that is not
    positive-definite. Note: where ``info > 0`` PyTorch's ``L`` is LAPACK's partial work (not
    meaningful); strided's is NaN there.

    >>> import strided.torch as torch
    >>> torch.linalg.cholesky_ex(torch.tensor([[4.0, 2.0], [2.0, 2.0]])).info.item()
    0
    """
    A = _square("linalg.cholesky_ex", A)
    ns = _ns()
    try:
        L = _std().cholesky(A, upper=bool(upper))
        info = ns.zeros(tuple(A.shape[:-2]), dtype=ns.int32, device=A.device)
    except _std().LinAlgError:
        info = _chol_info(A)
        if check_errors:
            _info_nonzero("linalg.cholesky_ex", info, _CHOL_MSG)
        ok = (info == 0)[..., None, None]
        safe = ns.where(ok, A, _eye_like(A, A.shape[-1]))
        L = ns.where(ok, _std().cholesky(safe, upper=bool(upper)), ns.full_like(A, math.nan))
    return _write("linalg.cholesky_ex", return_types.linalg_cholesky_ex(L, info), out)


def _lu_info(A):
    return lu_factor_ex(A.detach()).info


def inv(A, *, out=None):
    """``torch.linalg.inv(A, *, out=None)``: the inverse of a square matrix (or batch); a
    singular matrix raises ``LinAlgError``.

    >>> import strided.torch as torch
    >>> torch.linalg.inv(torch.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    A = _square("linalg.inv", A)
    try:
        X = _std().inv(A)
    except _std().LinAlgError:  # (then LAPACK getrf's info, for PyTorch's message)
        _info_nonzero("linalg.inv", _lu_info(A), _INV_MSG)
        raise LinAlgError("linalg.inv: the input matrix is singular") from None
    return _write("linalg.inv", X, out)


def _INV_MSG(i):
    return (f"The diagonal element {i} is zero, the inversion could not be completed because the input matrix "
            f"is singular.")


def _SOLVE_MSG(i):
    return "The solver failed because the input matrix is singular."


def _zero_info(A, batch=None):
    ns = _ns()
    return ns.zeros(tuple(A.shape[:-2]) if batch is None else batch, dtype=ns.int32, device=A.device)


def inv_ex(A, *, check_errors=False, out=None):
    """``torch.linalg.inv_ex(A, *, check_errors=False, out=None)``: ``(inverse, info)``;
    ``info`` is 0 or LAPACK getrf's index of the first zero pivot. Note: where ``info > 0``
    PyTorch's inverse is LAPACK's (often inf); strided's is NaN there.

    >>> import strided.torch as torch
    >>> torch.linalg.inv_ex(torch.tensor([[2.0, 0.0], [0.0, 4.0]])).inverse.tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    A = _square("linalg.inv_ex", A)
    try:
        return _write("linalg.inv_ex", return_types.linalg_inv_ex(_std().inv(A), _zero_info(A)), out)
    except _std().LinAlgError:
        info = _lu_info(A)
    if check_errors:
        _info_nonzero("linalg.inv_ex", info, _INV_MSG)
    ns = _ns()
    ok = (info == 0)[..., None, None]
    safe = ns.where(ok, A, _eye_like(A, A.shape[-1]))
    X = ns.where(ok, _std().inv(safe), ns.full_like(A, math.nan))
    return _write("linalg.inv_ex", return_types.linalg_inv_ex(X, info), out)


def _solve_shapes(name, A, B, left):
    """(A broadcast, B as matrices broadcast, vector_case)."""
    n = A.shape[-1]
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if vector:  # a column, also where not ``left`` (PyTorch's: then XA = B is incompatible)
        Bm = B[..., None]
    else:
        if B.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
        Bm = B
    k = Bm.shape[-2] if left else Bm.shape[-1]
    if k != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{n} and {Bm.shape[-2]}x{Bm.shape[-1]})")
    try:
        Bb, Ab = _batch_pair(name, Bm, A)
    except ValueError as e:
        raise RuntimeError(f"{name}: the batch dimensions of A {tuple(A.shape[:-2])} and B "
                           f"{tuple(Bm.shape[:-2])} do not broadcast ({e})") from None
    return Ab, Bb, vector


def _solve(name, A, B, left):
    A = _square(name, A)
    B = _tensor(name, B, "B")
    _same_dtype(name, A, B)
    A, Bm, vector = _solve_shapes(name, A, B, left)
    if left:
        X = _std().solve(A, Bm)
    else:
        X = _mT(_std().solve(_mT(A), _mT(Bm)))
    if vector:
        X = X[..., 0]
    return A, X


def solve(A, B, *, left=True, out=None):
    """``torch.linalg.solve(A, B, *, left=True, out=None)``: ``X`` with ``A X = B`` (``X A =
    B`` where not ``left``); ``B`` is a batch of vectors where it is 1-D or has ``A``'s shape
    without the last dimension. A singular ``A`` raises ``LinAlgError``.

    >>> import strided.torch as torch
    >>> torch.linalg.solve(torch.tensor([[2.0, 0.0], [0.0, 4.0]]), torch.tensor([2.0, 8.0])).tolist()
    [1.0, 2.0]
    """
    A = _square("linalg.solve", A)
    try:
        X = _solve("linalg.solve", A, B, left)[1]
    except _std().LinAlgError:
        _info_nonzero("linalg.solve", _lu_info(A), _SOLVE_MSG)
        raise LinAlgError("linalg.solve: The solver failed because the input matrix is singular.") from None
    return _write("linalg.solve", X, out)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``torch.linalg.solve_ex(A, B, *, left=True, check_errors=False, out=None)``: ``(result,
    info)``. Note: where ``info > 0`` (a singular ``A``) strided's result is NaN (PyTorch's is
    LAPACK's partial work).

    >>> import strided.torch as torch
    >>> torch.linalg.solve_ex(torch.tensor([[2.0]]), torch.tensor([[4.0]])).result.tolist()
    [[2.0]]
    """
    A = _square("linalg.solve_ex", A)
    ns = _ns()
    try:
        Ab, X = _solve("linalg.solve_ex", A, B, left)
        return _write("linalg.solve_ex", return_types.linalg_solve_ex(X, _zero_info(A)), out)  # (A's batch)
    except _std().LinAlgError:
        info = _lu_info(A)
    if check_errors:
        _info_nonzero("linalg.solve_ex", info, _SOLVE_MSG)
    ok = (info == 0)[..., None, None]
    safe = ns.where(ok, A, _eye_like(A, A.shape[-1]))
    Ab, X = _solve("linalg.solve_ex", safe, B, left)
    okb = ns.broadcast_to(info == 0, tuple(Ab.shape[:-2]))
    okx = okb[..., None] if X.ndim == okb.ndim + 1 else okb[..., None, None]
    X = ns.where(okx, X, ns.full_like(X, math.nan))
    return _write("linalg.solve_ex", return_types.linalg_solve_ex(X, info), out)


def det(A, *, out=None):
    """``torch.linalg.det(A, *, out=None)``: the determinant of a square matrix (or batch).

    >>> import strided.torch as torch
    >>> torch.linalg.det(torch.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0
    """
    A = _square("linalg.det", A)
    return _write("linalg.det", _std().det(A), out)


def slogdet(A, *, out=None):
    """``torch.linalg.slogdet(A, *, out=None)``: ``(sign, logabsdet)`` with ``det = sign *
    exp(logabsdet)``; ``sign`` has ``A``'s dtype, ``logabsdet`` is real.

    >>> import strided.torch as torch
    >>> torch.linalg.slogdet(torch.tensor([[-2.0, 0.0], [0.0, 1.0]])).sign.item()
    -1.0
    """
    A = _square("linalg.slogdet", A)
    s, l = _std().slogdet(A)
    return _write("linalg.slogdet", return_types.linalg_slogdet(s, l), out)


def _hermitian(A, UPLO, name):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{name}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return A if UPLO == "L" else _mH(A)


def eigh(A, UPLO="L", *, out=None):
    """``torch.linalg.eigh(A, UPLO='L', *, out=None)``: ``(eigenvalues, eigenvectors)`` of a
    Hermitian matrix given by its lower (``'L'``) or upper (``'U'``) triangle; eigenvalues
    real and ascending.

    >>> import strided.torch as torch
    >>> torch.linalg.eigh(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.tolist()
    [1.0, 2.0]
    """
    A = _square("linalg.eigh", A)
    w, v = _run("linalg.eigh", _std().eigh, _hermitian(A, UPLO, "linalg.eigh"))
    return _write("linalg.eigh", return_types.linalg_eigh(w, v), out)


def eigvalsh(A, UPLO="L", *, out=None):
    """``torch.linalg.eigvalsh(A, UPLO='L', *, out=None)``: the real, ascending eigenvalues of a
    Hermitian matrix given by one triangle.

    >>> import strided.torch as torch
    >>> torch.linalg.eigvalsh(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    A = _square("linalg.eigvalsh", A)
    return _write("linalg.eigvalsh", _run("linalg.eigvalsh", _std().eigvalsh,
                                          _hermitian(A, UPLO, "linalg.eigvalsh")), out)


def eig(A, *, out=None):
    """``torch.linalg.eig(A, *, out=None)``: complex ``(eigenvalues, eigenvectors)`` of a square
    matrix; eigenvectors of norm 1 (their phase is LAPACK's, as PyTorch's).

    >>> import strided.torch as torch
    >>> torch.linalg.eig(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.dtype == torch.complex64
    True
    """
    A = _square("linalg.eig", A)
    w, v = _run("linalg.eig", _std().eig, A)
    return _write("linalg.eig", return_types.linalg_eig(w, v), out)


def eigvals(A, *, out=None):
    """``torch.linalg.eigvals(A, *, out=None)``: the complex eigenvalues of a square matrix.

    >>> import strided.torch as torch
    >>> torch.linalg.eigvals(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).real.tolist()
    [2.0, 1.0]
    """
    A = _square("linalg.eigvals", A)
    return _write("linalg.eigvals", _run("linalg.eigvals", _std().eigvals, A), out)


def qr(A, mode="reduced", *, out=None):
    """``torch.linalg.qr(A, mode='reduced', *, out=None)``: ``(Q, R)`` with ``A = Q R``;
    ``mode`` 'reduced', 'complete' or 'r' (``Q`` empty).

    >>> import strided.torch as torch
    >>> Q, R = torch.linalg.qr(torch.tensor([[3.0], [4.0]]))
    >>> round(abs(R.item()), 4)
    5.0
    """
    A = _lapack("linalg.qr", _matrix("linalg.qr", A, "A"))
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           f"'r', or 'complete'")
    Q, R = _std().qr(A, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        Q = _ns().empty((0,), dtype=A.dtype, device=A.device)
    return _write("linalg.qr", return_types.linalg_qr(Q, R), out)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """``torch.linalg.svd(A, full_matrices=True, *, driver=None, out=None)``: ``(U, S, Vh)``
    with ``A = U diag(S) Vh``, ``S`` real and descending. ``driver=`` (CUDA's cuSOLVER) raises,
    as on PyTorch's CPU.

    >>> import strided.torch as torch
    >>> torch.linalg.svd(torch.tensor([[3.0, 0.0], [0.0, 4.0]])).S.tolist()
    [4.0, 3.0]
    """
    A = _lapack("linalg.svd", _matrix("linalg.svd", A, "A"))
    _no_driver("torch.linalg.svd", driver)
    U, S, Vh = _run("linalg.svd", _std().svd, A, full_matrices=bool(full_matrices))
    return _write("linalg.svd", return_types.linalg_svd(U, S, Vh), out)


def svdvals(A, *, driver=None, out=None):
    """``torch.linalg.svdvals(A, *, driver=None, out=None)``: the singular values, real and
    descending.

    >>> import strided.torch as torch
    >>> torch.linalg.svdvals(torch.tensor([[3.0, 0.0], [0.0, 4.0]])).tolist()
    [4.0, 3.0]
    """
    A = _lapack("linalg.svdvals", _matrix("linalg.svdvals", A, "A"))
    _no_driver("torch.linalg.svdvals", driver)
    return _write("linalg.svdvals", _run("linalg.svdvals", _std().svdvals, A), out)


def _tol(name, S, smax, A, atol, rtol, hermitian):
    """PyTorch's ``max(atol, rtol * smax)``: ``rtol`` defaults to ``eps * max(m, n)`` where
    ``atol`` is None or not positive, else to 0."""
    ns = _ns()
    rdt = S.dtype
    eps = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}[rdt.name]
    if rtol is None:
        if atol is None or (not isinstance(atol, Array) and atol <= 0):
            rtol = eps * builtins.max(A.shape[-2], A.shape[-1])
        else:
            rtol = 0.0
    if atol is None:
        atol = 0.0
    a = atol[..., None] if isinstance(atol, Array) else atol
    r = rtol[..., None] if isinstance(rtol, Array) else rtol
    return ns.maximum(ns.asarray(a, dtype=rdt, device=A.device) if not isinstance(a, Array) else a.to(rdt),
                      r * smax)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """``torch.linalg.pinv(A, *, atol=None, rtol=None, hermitian=False, out=None)``: the
    Moore-Penrose pseudo-inverse, singular values at most ``max(atol, rtol * sigma_max)``
    dropped; ``hermitian`` uses ``eigh`` of the lower triangle. PyTorch's older overload
    ``pinv(A, rcond, hermitian=False)`` too (``rcond`` is ``rtol``).

    >>> import strided.torch as torch
    >>> torch.linalg.pinv(torch.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    A = _lapack("linalg.pinv", _matrix("linalg.pinv", A, "A"))
    if rcond is not None:
        if rtol is not None or atol is not None:
            raise TypeError("linalg.pinv(): rcond (the older overload's rtol) with atol= or rtol=")
        rtol = rcond
    if hermitian:
        _square("linalg.pinv", A)
    return _write("linalg.pinv", _Pinv.apply(A, atol, rtol, hermitian), out)


def _pinv_values(A, atol, rtol, hermitian):
    ns = _ns()
    if hermitian:
        w, V = _std().eigh(A)
        S = ns.abs(w)
        smax = ns.max(S, axis=-1, keepdims=True) if S.shape[-1] else S[..., :1]
        keep = S > _tol("linalg.pinv", S, smax, A, atol, rtol, True)
        winv = ns.where(keep, 1 / ns.where(keep, w, ns.ones_like(w)), ns.zeros_like(w))
        return (V * winv.to(V.dtype)[..., None, :]) @ _mH(V)
    if A.shape[-1] == 0 or A.shape[-2] == 0:
        return ns.zeros(tuple(A.shape[:-2]) + (A.shape[-1], A.shape[-2]), dtype=A.dtype, device=A.device)
    U, S, Vh = _std().svd(A, full_matrices=False)
    smax = S[..., :1]
    keep = S > _tol("linalg.pinv", S, smax, A, atol, rtol, False)
    sinv = ns.where(keep, 1 / ns.where(keep, S, ns.ones_like(S)), ns.zeros_like(S))
    return (_mH(Vh) * sinv.to(A.dtype)[..., None, :]) @ _mH(U)


def _pinv_backward(g, pinvA, A):
    """PyTorch's ``pinv_backward`` (FunctionsManual.cpp): the derivative of the pseudo-inverse
    as a function of the whole matrix ``A`` (``hermitian`` or not), in the smaller dimension."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gh = _mH(pinvA), _mH(g)
    if m <= n:
        K = gh @ pinvA
        KpinvAh = K @ pinvAh
        return -_mH(pinvA @ K) + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gh - K @ A)
    K = pinvA @ gh
    pinvAhK = pinvAh @ K
    return -_mH(K @ pinvA) + (gh - A @ K) @ pinvA @ pinvAh + pinvAhK - pinvAhK @ pinvA @ A


class _Pinv(Function):
    """``linalg.pinv`` with PyTorch's derivative (``LinalgPinvBackward0``: ``pinv_backward``,
    the same for ``hermitian``; the tolerances are not differentiated)."""

    _node_name = "LinalgPinvBackward0"

    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        r = _pinv_values(A, atol, rtol, hermitian)
        ctx.save_for_backward(A, r)
        return r

    @staticmethod
    def backward(ctx, g):
        A, r = ctx.saved_tensors
        return _pinv_backward(g, r, A), None, None, None


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """``torch.linalg.matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None)``: the
    number of singular values (the absolute eigenvalues where ``hermitian``) above ``max(atol, rtol *
    sigma_max)``; int64. PyTorch's older overload ``matrix_rank(A, tol, hermitian=False)`` too
    (``tol`` is ``atol``, with ``rtol`` 0).

    >>> import strided.torch as torch
    >>> torch.linalg.matrix_rank(torch.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    A = _lapack("linalg.matrix_rank", _matrix("linalg.matrix_rank", A, "A"))
    ns = _ns()
    if tol is not None:
        if rtol is not None or atol is not None:
            raise TypeError("linalg.matrix_rank(): tol (the older overload's atol) with atol= or rtol=")
        atol, rtol = tol, 0.0
    A = A.detach()
    S = ns.abs(_std().eigvalsh(A)) if hermitian else _std().svdvals(A)
    if S.shape[-1] == 0:
        return _write("linalg.matrix_rank", ns.zeros(tuple(A.shape[:-2]), dtype=ns.int64, device=A.device), out)
    smax = ns.max(S, axis=-1, keepdims=True)
    r = ns.sum(ns.astype(S > _tol("linalg.matrix_rank", S, smax, A, atol, rtol, hermitian), ns.int64), axis=-1)
    return _write("linalg.matrix_rank", r, out)


_GELS_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A, B, rcond=None, *, driver=None):
    """``torch.linalg.lstsq(A, B, rcond=None, *, driver=None)``: ``(solution, residuals, rank,
    singular_values)`` minimising the norm of ``A X - B``; on the CPU ``driver`` is 'gelsy' (default),
    'gels', 'gelsd' or 'gelss', and which fields are empty follows PyTorch: ``rank`` for all
    but 'gels', ``singular_values`` for 'gelsd'/'gelss', ``residuals`` (squared, per column)
    where ``m > n`` and every matrix has full rank, for all but 'gelsy' (always for 'gels').
    strided solves through the SVD (the minimum-norm solution, as every driver gives for
    full rank). Note: 'gelsy' finds the rank from a pivoted QR's condition estimate, strided
    from the singular values (``sigma_i > rcond * sigma_max``): they can differ only for a
    singular value near the threshold. A rank-deficient matrix with 'gels' (no rank check in
    LAPACK) raises.

    >>> import strided.torch as torch
    >>> A = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> torch.linalg.lstsq(A, torch.tensor([[1.0], [2.0], [3.0]])).solution.tolist()
    [[1.0], [2.0]]
    """
    A = _lapack("linalg.lstsq", _matrix("linalg.lstsq", A, "A"))
    B = _tensor("linalg.lstsq", B, "B")
    ns = _ns()
    if driver is None:
        driver = "gelsy"
    if driver not in _GELS_DRIVERS:
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    _same_dtype("torch.linalg.lstsq", A, B, "input", "other")
    vector = B.ndim == A.ndim - 1
    Bm = B[..., None] if vector else B
    if Bm.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    m, n = A.shape[-2], A.shape[-1]
    if Bm.shape[-2] != m:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    Bb, Ab = _batch_pair("linalg.lstsq", Bm, A)
    rdt = ns.real(ns.zeros((), dtype=A.dtype)).dtype if A.dtype.kind == "c" else A.dtype
    eps = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}[rdt.name]
    rc = eps * builtins.max(m, n) if rcond is None or rcond < 0 else float(rcond)
    batch = tuple(Ab.shape[:-2])
    if m == 0 or n == 0:
        S = ns.zeros(batch + (0,), dtype=rdt, device=A.device)
        X = ns.zeros(batch + (n, Bb.shape[-1]), dtype=A.dtype, device=A.device)
        rank = ns.zeros(batch, dtype=ns.int64, device=A.device)
    else:
        U, S, Vh = _std().svd(Ab, full_matrices=False)
        keep = S > rc * S[..., :1]
        rank = ns.sum(ns.astype(keep.detach(), ns.int64), axis=-1)
        k = builtins.min(m, n)
        if driver == "gels" and bool(ns.any(rank < k)):
            raise RuntimeError("torch.linalg.lstsq: driver='gels' assumes full rank, and of a rank-deficient "
                               "matrix gives LAPACK's unchecked result, which strided does not reproduce; use "
                               "driver='gelsd', 'gelss' or 'gelsy' (the minimum-norm solution)")
        sinv = ns.where(keep, 1 / ns.where(keep, S, ns.ones_like(S)), ns.zeros_like(S))
        X = (_mH(Vh) * sinv.to(A.dtype)[..., None, :]) @ (_mH(U) @ Bb)
    full = m > n and driver != "gelsy" and (driver == "gels" or bool(ns.all(rank == n)))
    if full:
        d = Ab @ X - Bb
        res = ns.sum(ns.real(d * ns.conj(d)) if d.dtype.kind == "c" else d * d, axis=-2)
    else:
        res = ns.empty((0,), dtype=rdt, device=A.device)
    if vector:  # (residuals keep their column dimension, as PyTorch's)
        X = X[..., 0]
    rank_out = rank if driver != "gels" else ns.empty((0,), dtype=ns.int64, device=A.device)
    sv = S if driver in ("gelsd", "gelss") else ns.empty((0,), dtype=rdt, device=A.device)
    return return_types.linalg_lstsq(X, res, rank_out, sv)


def householder_product(A, tau, *, out=None):
    """``torch.linalg.householder_product(A, tau, *, out=None)``: the first ``n`` columns of
    the product of ``H_1`` to ``H_k``, ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` column ``i`` of ``A`` below the
    diagonal and 1 on it (LAPACK's orgqr/ungqr).

    >>> import strided.torch as torch
    >>> torch.linalg.householder_product(torch.tensor([[1.0], [0.0]]), torch.tensor([2.0])).tolist()
    [[-1.0], [0.0]]
    """
    name = "torch.linalg.householder_product"
    A = _matrix(name, A, "input")
    tau = _tensor(name, tau, "tau")
    m, n = A.shape[-2], A.shape[-1]
    if tau.ndim < 1:
        raise RuntimeError(f"{name}: tau must have at least 1 dimension.")
    k = tau.shape[-1]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < k:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
                           f"equal to {tau.ndim} and input.ndim is equal to {A.ndim}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{tuple(tau.shape[:-1])}")
    _same_dtype(name, A, tau, "input", "tau")
    ns = _ns()
    rows = ns.arange(m, device=A.device)
    Q = ns.broadcast_to(_eye_like(A, m, n), tuple(A.shape[:-2]) + (m, n))
    for i in range(k - 1, -1, -1):
        col = A[..., :, i]
        v = ns.where(rows > i, col, ns.where(rows == i, ns.ones_like(col), ns.zeros_like(col)))
        vhq = ns.sum(ns.conj(v)[..., :, None] * Q, axis=-2) if A.dtype.kind == "c" else ns.sum(v[..., :, None] * Q,
                                                                                                 axis=-2)
        Q = Q - tau[..., i, None, None] * v[..., :, None] * vhq[..., None, :]
    return _write("linalg.householder_product", Q, out)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``torch.linalg.ldl_factor_ex``: not supported; strided has no Bunch-Kaufman (LAPACK
    sytrf) factorisation, whose compact ``LD`` and pivots PyTorch returns."""
    raise NotImplementedError("linalg.ldl_factor_ex: strided has no LDL^T (Bunch-Kaufman, LAPACK sytrf) "
                              "factorisation; use linalg.lu_factor / linalg.cholesky")


def ldl_factor(A, *, hermitian=False, out=None):
    """``torch.linalg.ldl_factor``: not supported; strided has no Bunch-Kaufman (LAPACK sytrf)
    factorisation, whose compact ``LD`` and pivots PyTorch returns."""
    raise NotImplementedError("linalg.ldl_factor: strided has no LDL^T (Bunch-Kaufman, LAPACK sytrf) "
                              "factorisation; use linalg.lu_factor / linalg.cholesky")


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """``torch.linalg.ldl_solve``: not supported (it reads ``ldl_factor``'s compact result,
    which strided does not compute)."""
    raise NotImplementedError("linalg.ldl_solve: strided has no LDL^T (Bunch-Kaufman, LAPACK sytrf) "
                              "factorisation; use linalg.lu_solve / torch.cholesky_solve")


# --- products and others -----------------------------------------------------------------------

def matmul(input, other, *, out=None):
    """``torch.linalg.matmul(input, other, *, out=None)``: ``torch.matmul``.

    >>> import strided.torch as torch
    >>> torch.linalg.matmul(torch.ones(2, 3), torch.ones(3)).tolist()
    [3.0, 3.0]
    """
    return _ns().torch.matmul(input, other, out=out) if out is not None else \
        _ns().torch.matmul(input, other)


def matrix_power(A, n, *, out=None):
    """``torch.linalg.matrix_power(A, n, *, out=None)``: ``A`` to the integer power ``n``
    (``n < 0``: of the inverse; integer matrices for ``n >= 0``).

    >>> import strided.torch as torch
    >>> torch.linalg.matrix_power(torch.tensor([[1, 1], [0, 1]]), 3).tolist()
    [[1, 3], [0, 1]]
    """
    A = _tensor("linalg.matrix_power", A, "A")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.ndim > 1 else A.ndim} by {A.shape[-1] if A.ndim else 0} matrices")
    if n < 0:
        A = _square("linalg.matrix_power", A)
    try:
        r = _std().matrix_power(A, n)
    except _std().LinAlgError:
        _info_nonzero("linalg.inv", _lu_info(A), _INV_MSG)
        raise LinAlgError("linalg.inv: the input matrix is singular") from None
    return _write("linalg.matrix_power", r, out)


def cross(input, other, *, dim=-1, out=None):
    """``torch.linalg.cross(input, other, *, dim=-1, out=None)``: the cross product of
    3-vectors along ``dim``; batch dimensions broadcast.

    >>> import strided.torch as torch
    >>> torch.linalg.cross(torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    a = _tensor("linalg.cross", input, "input")
    b = _tensor("linalg.cross", other, "other")
    if a.ndim != b.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    d = _dims(dim, a.ndim, "linalg.cross")[0]
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
                           f"{b.shape[d]}")
    _same_dtype("linalg.cross", a, b, "input", "other")
    return _write("linalg.cross", _std().cross(a, b, axis=d - a.ndim), out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.linalg.diagonal(A, *, offset=0, dim1=-2, dim2=-1)``: a view of the diagonal of
    the matrices over ``dim1`` and ``dim2``.

    >>> import strided.torch as torch
    >>> torch.linalg.diagonal(torch.tensor([[1, 2], [3, 4]])).tolist()
    [1, 4]
    """
    A = _tensor("linalg.diagonal", A, "A")
    return _ns().torch.diagonal(A, offset, dim1, dim2)


def vecdot(x, y, *, dim=-1, out=None):
    """``torch.linalg.vecdot(x, y, *, dim=-1, out=None)``: ``sum(conj(x) * y, dim)`` with
    broadcasting; floating-point or complex ``x`` and ``y`` of one dtype.

    >>> import strided.torch as torch
    >>> torch.linalg.vecdot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])).item()
    11.0
    """
    x = _tensor("linalg.vecdot", x, "x")
    y = _tensor("linalg.vecdot", y, "y")
    _same_dtype("linalg.vecdot", x, y, "x", "y")
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{x.dtype.name}")
    ns = _ns()
    p = (ns.conj(x) if x.dtype.kind == "c" else x) * y
    d = _dims(dim, p.ndim, "linalg.vecdot")[0]
    return _write("linalg.vecdot", ns.sum(p, axis=d), out)


def tensorinv(A, ind=2, *, out=None):
    """``torch.linalg.tensorinv(A, ind=2, *, out=None)``: the inverse of ``A`` read as the
    matrix ``prod(A.shape[:ind]) x prod(A.shape[ind:])``, of shape ``A.shape[ind:] +
    A.shape[:ind]``.

    >>> import strided.torch as torch
    >>> tuple(torch.linalg.tensorinv(torch.eye(4).reshape(4, 2, 2), ind=1).shape)
    (2, 2, 4)
    """
    A = _tensor("linalg.tensorinv", A, "A")
    if not isinstance(ind, int) or ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape, in_shape = tuple(A.shape[ind:]), tuple(A.shape[:ind])
    p, q = math.prod(out_shape), math.prod(in_shape)
    if p != q:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {p} != {q}")
    r = inv(A.reshape(q, p)).reshape(*(out_shape + in_shape))
    return _write("linalg.tensorinv", r, out)


def tensorsolve(A, B, dims=None, *, out=None):
    """``torch.linalg.tensorsolve(A, B, dims=None, *, out=None)``: ``X`` with
    ``tensordot(A, X, X.ndim) = B``, ``X`` of shape ``A.shape[B.ndim:]`` (after moving the
    dimensions ``dims`` of ``A`` to the end).

    >>> import strided.torch as torch
    >>> tuple(torch.linalg.tensorsolve(torch.eye(4).reshape(2, 2, 4), torch.ones(2, 2)).shape)
    (4,)
    """
    A = _tensor("linalg.tensorsolve", A, "A")
    B = _tensor("linalg.tensorsolve", B, "B")
    ns = _ns()
    if dims is not None:
        ds = _dims(dims, A.ndim, "linalg.tensorsolve")
        A = ns.moveaxis(A, ds, tuple(range(A.ndim - len(ds), A.ndim)))
    rest = tuple(A.shape[B.ndim:])
    p = math.prod(rest)
    q = math.prod(tuple(A.shape[:B.ndim]))
    if p != q:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {p} != {q}")
    r = solve(A.reshape(math.prod(tuple(B.shape)), p), B.reshape(-1)).reshape(*rest)
    return _write("linalg.tensorsolve", r, out)


# (PyTorch's parameter names, ``torch.linalg.<name>(input=...)``: strided/torch/_keyword_names.py)
from . import _keyword_names  # noqa: E402

_keyword_names.install(globals(), _keyword_names.LINALG, __name__)
del _keyword_names
