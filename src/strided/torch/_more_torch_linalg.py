"""``torch.linalg`` names that ``strided.linalg`` (the standard's namespace) lacks:
``solve_triangular``, ``lu_factor``, ``lu_factor_ex``, ``lu``, ``lu_solve``, ``matrix_exp``,
``multi_dot`` and ``vander``, composed as ``_more_linalg``'s functions; ``strided.torch.linalg``
(PyTorch's namespace) re-exports them.
"""

from __future__ import annotations

import sys

from ._checks import one_element_1d, tensor as _tensor
from ._more_linalg import (_batch_pair, _eye_like, _lu_factor, _matrix, _mH, _mT, _permutation, _tri_solve,
                           lu_unpack as _lu_unpack, matrix_exp)
from ._checks import no_out as _no_out

__all__ = ["solve_triangular", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "matrix_exp", "multi_dot", "vander"]


def _ns():
    return sys.modules["strided"]


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``torch.linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None)``:
    ``X`` with ``A X = B`` (``X A = B`` where not ``left``) for ``A``'s upper (or lower)
    triangle, its diagonal taken as ones where ``unitriangular``; batch dimensions broadcast.

    >>> from strided.torch import _more_torch_linalg as linalg
    >>> import strided.torch as torch
    >>> linalg.solve_triangular(torch.tensor([[2.0, 1.0], [0.0, 4.0]]), torch.tensor([[4.0], [8.0]]),
    ...                         upper=True).tolist()
    [[1.0], [2.0]]
    """
    M = _matrix("linalg.solve_triangular", A, "A", square=True)
    b = _matrix("linalg.solve_triangular", B, "B")
    _no_out("linalg.solve_triangular", out)
    if M.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{M.dtype.name} and B of type {b.dtype.name} instead")
    n = M.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({M.shape[-2]}x{M.shape[-1]} and "
                           f"{b.shape[-2]}x{b.shape[-1]})")
    ns = _ns()
    bb, Mb = _batch_pair("linalg.solve_triangular", b, M)
    T = ns.triu(Mb, k=1 if unitriangular else 0) if upper else ns.tril(Mb, k=-1 if unitriangular else 0)
    if unitriangular:
        T = T + _eye_like(M, n)
    if left:
        return _tri_solve(T, bb, bool(upper))
    return _mT(_tri_solve(_mT(T), _mT(bb), not upper))


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``torch.linalg.lu_factor_ex(A, *, pivot=True, check_errors=False, out=None)``:
    ``(LU, pivots, info)``: ``torch.lu(A, get_infos=True)``'s factorisation.

    >>> from strided.torch import _more_torch_linalg as linalg
    >>> import strided.torch as torch
    >>> linalg.lu_factor_ex(torch.tensor([[1.0, 2.0], [3.0, 4.0]])).pivots.tolist()
    [2, 2]
    """
    x = _matrix("linalg.lu_factor_ex", A, "A")
    _no_out("linalg.lu_factor_ex", out)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, piv, info = _lu_factor(x)
    if check_errors:
        _raise_singular("linalg.lu_factor_ex", info, LU.ndim)
    return return_types.linalg_lu_factor_ex(LU, piv, info)


def _raise_singular(name, info, ndim):
    ns = _ns()
    flat = ns.reshape(info, (-1,))
    bad = ns.nonzero(flat > 0)[0]
    if bad.shape[0]:
        b = int(bad[0].item())
        i = int(flat[b].item())
        where = f"(Batch element {b}): " if ndim > 2 else ""
        raise RuntimeError(f"{name}: {where}U[{i},{i}] is zero and using it on lu_solve would result in a division "
                           f"by zero. If you still want to perform the factorization, consider calling "
                           f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor(A, *, pivot=True, out=None):
    """``torch.linalg.lu_factor(A, *, pivot=True, out=None)``: ``(LU, pivots)`` of partial
    pivoting; a zero pivot (a singular matrix) raises, as PyTorch's.

    >>> from strided.torch import _more_torch_linalg as linalg
    >>> import strided.torch as torch
    >>> linalg.lu_factor(torch.tensor([[1.0, 2.0], [3.0, 4.0]])).pivots.tolist()
    [2, 2]
    """
    x = _matrix("linalg.lu_factor", A, "A")
    _no_out("linalg.lu_factor", out)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, piv, info = _lu_factor(x)
    _raise_singular("torch.linalg.lu_factor", info, LU.ndim)
    return return_types.linalg_lu_factor(LU, piv)


def lu(A, *, pivot=True, out=None):
    """``torch.linalg.lu(A, *, pivot=True, out=None)``: ``(P, L, U)`` with ``A = P L U``.

    >>> from strided.torch import _more_torch_linalg as linalg
    >>> import strided.torch as torch
    >>> P, L, U = linalg.lu(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> (P @ L @ U).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    x = _matrix("linalg.lu", A, "A")
    _no_out("linalg.lu", out)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, piv, _ = _lu_factor(x)
    P, L, U = _lu_unpack(LU, piv)
    return return_types.linalg_lu(P, L, U)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """``torch.linalg.lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None)``: ``X``
    with ``A X = B`` (``X A = B`` where not ``left``; ``A^H`` for ``A`` where ``adjoint``)
    from ``lu_factor``'s result.

    >>> from strided.torch import _more_torch_linalg as linalg
    >>> import strided.torch as torch
    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> linalg.lu_solve(*linalg.lu_factor(A), torch.tensor([[5.0], [11.0]])).tolist()
    [[1.0], [2.0]]
    """
    M = _matrix("linalg.lu_solve", LU, "LU", square=True)
    b = _matrix("linalg.lu_solve", B, "B")
    _tensor("linalg.lu_solve", pivots, "pivots")
    _no_out("linalg.lu_solve", out)
    ns = _ns()
    n = M.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    L = ns.tril(M, k=-1) + _eye_like(M, n)
    U = ns.triu(M)
    perm = _permutation(pivots, n)  # A = P L U, P[perm[i], i] = 1
    cols = ns.arange(n, dtype=ns.int64, device=M.device)
    P = ns.astype(perm[..., None, :] == cols[:, None], M.dtype)

    def inverse_times(Bm, mode):
        """A^-1 Bm (mode None), A^-T Bm ("T") or A^-H Bm ("H"), with A = P L U."""
        if mode is None:
            y = _tri_solve(*_pair(L, _mT(P) @ Bm), False)
            return _tri_solve(*_pair(U, y), True)
        tr = _mH if mode == "H" else _mT
        y = _tri_solve(*_pair(tr(U), Bm), False)
        y = _tri_solve(*_pair(tr(L), y), True)
        return P @ y
    if left:
        return inverse_times(b, "H" if adjoint else None)
    if adjoint:  # X A^H = B  <=>  A X^H = B^H
        return _mH(inverse_times(_mH(b), None))
    return _mT(inverse_times(_mT(b), "T"))  # X A = B  <=>  A^T X^T = B^T


def _pair(T, b):
    bb, Tb = _batch_pair("linalg.lu_solve", b, T)
    return Tb, bb


def multi_dot(tensors, *, out=None):
    """``torch.linalg.multi_dot(tensors, *, out=None)``: the product of two or more arrays,
    the first and last of which may be 1-D (a row and a column vector).

    >>> from strided.torch import _more_torch_linalg as linalg
    >>> import strided.torch as torch
    >>> linalg.multi_dot([torch.ones(3), torch.ones(3, 2), torch.ones(2)])
    tensor(6.)
    """
    _no_out("linalg.multi_dot", out)
    if not isinstance(tensors, (list, tuple)) or len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got "
                           f"{len(tensors) if isinstance(tensors, (list, tuple)) else 1}")
    ts = [_tensor("linalg.multi_dot", t, "tensors") for t in tensors]
    for i, t in enumerate(ts):
        ok = t.ndim == 2 or (t.ndim == 1 and i in (0, len(ts) - 1))
        if not ok:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D"
                               + ("" if 0 < i < len(ts) - 1 else " or 1D") + f" but got {t.ndim}D")
    ns = _ns()
    r = ts[0]
    for t in ts[1:]:
        r = ns.matmul(r, t)
    return r


def vander(x, *, N=None):
    """``torch.linalg.vander(x, *, N=None)``: the Vandermonde matrix of increasing powers
    ``x**0, ..., x**(N - 1)`` (``N`` the length of ``x`` by default) along a new last axis.

    >>> from strided.torch import _more_torch_linalg as linalg
    >>> import strided.torch as torch
    >>> linalg.vander(torch.tensor([1, 2, 3]), N=3).tolist()
    [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    """
    # (a 0-d x is one element, as PyTorch reads it: a (1, N) result)
    v = one_element_1d(_tensor("linalg.vander", x, "x"))
    n = v.shape[-1] if N is None else N
    if n <= 1:  # (also a default N of 1 or 0, PyTorch's check of x.size(-1))
        raise RuntimeError("N must be greater than 1.")
    ns = _ns()
    dt = v.dtype if v.dtype.kind in "fc" else (ns.int64 if v.dtype.kind in "biu" else v.dtype)
    base = ns.astype(v, dt)
    cols = [ns.ones_like(base)]
    for _ in range(1, n):
        cols.append(cols[-1] * base)
    return ns.stack(cols[:n], axis=-1)


from ._functions import _return_type, return_types  # noqa: E402

return_types.linalg_lu_factor = _return_type("linalg_lu_factor", ("LU", "pivots"))
return_types.linalg_lu_factor_ex = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
return_types.linalg_lu = _return_type("linalg_lu", ("P", "L", "U"))
