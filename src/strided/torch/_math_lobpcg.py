# Adapted from PyTorch 2.13's torch/_lobpcg.py and torch/_linalg_utils.py (BSD-3-Clause; Copyright (c)
# 2016- Facebook, Inc and the PyTorch contributors; see LICENSES/PyTorch.txt).
"""``torch.lobpcg`` (PyTorch's ``torch/_lobpcg.py``, line for line, over ``strided.torch``): the
LOBPCG eigensolver ("basic" and "ortho" methods, trackers, the ortho parameters, batches) and its
backward (the symmetric eigenproblem's, with the Sylvester-equation term of a partial
eigenspace). The random start (``X`` not given) and the backward's random complement come from
strided's generators: the same algorithm as PyTorch, not the same random numbers.

>>> import strided.torch as torch
>>> A = torch.diag(torch.arange(1.0, 10.0, dtype=torch.float64))
>>> E, X = torch.lobpcg(A, k=2, X=torch.eye(9, 2, dtype=torch.float64) + 0.1)
>>> [round(e, 6) for e in E.tolist()]
[9.0, 8.0]
"""

from __future__ import annotations

import sys

__all__ = ["lobpcg"]


class _Torch:
    """``strided.torch``, read when used (this module is imported while it initialises)."""

    def __getattr__(self, name):
        return getattr(sys.modules["strided.torch"], name)


torch = _Torch()


# --- torch/_linalg_utils.py (strided has no sparse tensors) -----------------------------------

def _get_floating_dtype(A):
    dtype = A.dtype
    if dtype in (torch.float16, torch.float32, torch.float64):
        return dtype
    return torch.float32


def _matmul(A, B):
    if A is None:
        return B
    return torch.matmul(A, B)


def _bform(X, A, Y):
    return _matmul(X.mT, _matmul(A, Y))


def _qform(A, S):
    return _bform(S, A, S)


def _basis(A):
    return torch.linalg.qr(A).Q


def _symeig(A, largest=False):
    if largest is None:
        largest = False
    E, Z = torch.linalg.eigh(A, UPLO="U")
    if largest:
        E = torch.flip(E, dims=(-1,))
        Z = torch.flip(Z, dims=(-1,))
    return E, Z


# --- the backward -------------------------------------------------------------------------------

def _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U):
    # F_ij = (d_j - d_i)^{-1} for i != j, F_ii = 0
    F = D.unsqueeze(-2) - D.unsqueeze(-1)
    F.diagonal(dim1=-2, dim2=-1).fill_(float("inf"))
    F.pow_(-1)
    # A.grad = U (D.grad + (U^T U.grad * F)) U^T
    Ut = U.mT.contiguous()
    return torch.matmul(U, torch.matmul(torch.diag_embed(D_grad) + torch.matmul(Ut, U_grad) * F, Ut))


def _polynomial_coefficients_given_roots(roots):
    """The coefficients ``(a_0, ..., a_n (== 1))`` of ``(x - r_1) ... (x - r_n)``."""
    poly_order = roots.shape[-1]
    poly_coeffs_shape = list(roots.shape)
    poly_coeffs_shape[-1] += 2
    poly_coeffs = roots.new_zeros(poly_coeffs_shape)
    poly_coeffs[..., 0] = 1
    poly_coeffs[..., -1] = 1
    for i in range(1, poly_order + 1):  # (Horner's rule)
        poly_coeffs_new = poly_coeffs.clone() if roots.requires_grad else poly_coeffs
        out = poly_coeffs_new.narrow(-1, poly_order - i, i + 1)
        out -= roots.narrow(-1, i - 1, 1) * poly_coeffs.narrow(-1, poly_order - i + 1, i + 1)
        poly_coeffs = poly_coeffs_new
    return poly_coeffs.narrow(-1, 1, poly_order + 1)


def _polynomial_value(poly, x, zero_power, transition):
    res = zero_power.clone()
    for k in range(poly.size(-1) - 2, -1, -1):
        res = transition(res, x, poly[..., k])
    return res


def _matrix_polynomial_value(poly, x, zero_power=None):
    def transition(curr_poly_val, x, poly_coeff):
        res = x.matmul(curr_poly_val)
        res.diagonal(dim1=-2, dim2=-1).add_(poly_coeff.unsqueeze(-1))
        return res

    if zero_power is None:
        zero_power = torch.eye(x.size(-1), x.size(-1), dtype=x.dtype, device=x.device).view(
            *([1] * len(list(x.shape[:-2]))), x.size(-1), x.size(-1))
    return _polynomial_value(poly, x, zero_power, transition)


def _vector_polynomial_value(poly, x, zero_power=None):
    def transition(curr_poly_val, x, poly_coeff):
        return torch.addcmul(poly_coeff.unsqueeze(-1), x, curr_poly_val)

    if zero_power is None:
        zero_power = x.new_ones(1).expand(x.shape)
    return _polynomial_value(poly, x, zero_power, transition)


def _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest):
    # the projection onto the orthogonal complement of span(U): I - U U^T
    Ut = U.mT.contiguous()
    proj_U_ortho = -U.matmul(Ut)
    proj_U_ortho.diagonal(dim1=-2, dim2=-1).add_(1)
    # a basis of the complement: a random (..., m, m - k) matrix projected (a fresh generator,
    # as PyTorch's, for determinism)
    gen = torch.Generator(A.device)
    U_ortho = proj_U_ortho.matmul(torch.randn((*A.shape[:-1], A.size(-1) - D.size(-1)), dtype=A.dtype,
                                              device=A.device, generator=gen))
    U_ortho_t = U_ortho.mT.contiguous()
    # the characteristic polynomial of D (its roots: D's diagonal)
    chr_poly_D = _polynomial_coefficients_given_roots(D)
    # the explicit solution of the Sylvester equation U_ortho^T A U_ortho dX - dX D = -U_ortho^T A U
    # (Hu and Cheng, 2006)
    U_grad_projected = U_grad
    series_acc = U_grad_projected.new_zeros(U_grad_projected.shape)
    for k in range(1, chr_poly_D.size(-1)):
        poly_D = _vector_polynomial_value(chr_poly_D[..., k:], D)
        series_acc += U_grad_projected * poly_D.unsqueeze(-2)
        U_grad_projected = A.matmul(U_grad_projected)
    chr_poly_D_at_A = _matrix_polynomial_value(chr_poly_D, A)
    chr_poly_D_at_A_to_U_ortho = torch.matmul(U_ortho_t, torch.matmul(chr_poly_D_at_A, U_ortho))
    # positive-definite if not largest, or largest with k even (distinct eigenvalues)
    chr_poly_D_at_A_to_U_ortho_sign = -1 if (largest and (k % 2 == 1)) else +1
    chr_poly_D_at_A_to_U_ortho_L = torch.linalg.cholesky(chr_poly_D_at_A_to_U_ortho_sign * chr_poly_D_at_A_to_U_ortho)
    res = _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    res -= U_ortho.matmul(chr_poly_D_at_A_to_U_ortho_sign * torch.cholesky_solve(
        U_ortho_t.matmul(series_acc), chr_poly_D_at_A_to_U_ortho_L)).matmul(Ut)
    return res


def _symeig_backward(D_grad, U_grad, A, D, U, largest):
    if U.size(-1) == U.size(-2):  # (U's columns: a complete eigenspace)
        return _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    return _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest)


_FUNCTION = []


def _autograd_function():
    if not _FUNCTION:
        from ..autograd import Function

        class LOBPCGAutogradFunction(Function):
            @staticmethod
            def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
                        method=None, tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
                A = A.contiguous()
                if B is not None:
                    B = B.contiguous()
                D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
                               ortho_fparams, ortho_bparams)
                ctx.save_for_backward(A, B, D, U)
                ctx.largest = largest
                return D, U

            @staticmethod
            def backward(ctx, D_grad, U_grad):
                A_grad = B_grad = None
                grads = [None] * 14
                A, B, D, U = ctx.saved_tensors
                largest = ctx.largest
                if A.dtype in (torch.complex64, torch.complex128) or (
                        B is not None and B.dtype in (torch.complex64, torch.complex128)):
                    raise ValueError("lobpcg.backward does not support complex input yet. "
                                     "Note that lobpcg.forward does though.")
                if B is not None:
                    raise ValueError("lobpcg.backward does not support backward with B != I yet.")
                if largest is None:
                    largest = True
                if B is None:
                    A_grad = _symeig_backward(D_grad, U_grad, A, D, U, largest)
                grads[0] = A_grad
                grads[2] = B_grad
                return tuple(grads)
        _FUNCTION.append(LOBPCGAutogradFunction)
    return _FUNCTION[0]


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """``torch.lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None,
    largest=None, method=None, tracker=None, ...)``: the ``k`` largest (``largest=False``:
    smallest) eigenpairs ``(E, X)`` of the symmetric positive definite generalized problem
    ``A x = lambda B x`` (``B`` the identity by default) by PyTorch's LOBPCG ("ortho" by
    default, or "basic"), from ``X`` (``(*, m, n)``) or a random start of ``n`` columns; ``m``
    must be at least ``3 n``. Differentiable in ``A`` (symmetrized first, as PyTorch's).

    >>> import strided.torch as torch
    >>> A = torch.diag(torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=torch.float64))
    >>> E, X = torch.lobpcg(A, k=1, largest=False, X=torch.ones(6, 1, dtype=torch.float64))
    >>> round(E.item(), 6)
    1.0
    """
    if A.requires_grad or (B is not None and B.requires_grad):
        # (A's gradient made symmetric: (A + A^T) / 2 first, as PyTorch)
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if (B is not None) else None
        return _autograd_function().apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest, method, tracker,
                                          ortho_iparams, ortho_fparams, ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                   ortho_bparams)


def _lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
            tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape torch.Size({list(A.shape)})")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got torch.Size({list(A.shape)}) vs "
                             f"torch.Size({list(B.shape)})")
    dtype = _get_floating_dtype(A)
    device = A.device
    if tol is None:
        feps = {torch.float32: 1.2e-07, torch.float64: 2.23e-16}[dtype]
        tol = feps**0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        if ortho_iparams is not None:
            iparams.update(ortho_iparams)
        if ortho_fparams is not None:
            fparams.update(ortho_fparams)
        if ortho_bparams is not None:
            bparams.update(ortho_bparams)
        iparams["ortho_i_max"] = iparams.get("ortho_i_max", 3)
        iparams["ortho_j_max"] = iparams.get("ortho_j_max", 3)
        fparams["ortho_tol"] = fparams.get("ortho_tol", tol)
        fparams["ortho_tol_drop"] = fparams.get("ortho_tol_drop", tol)
        fparams["ortho_tol_replace"] = fparams.get("ortho_tol_replace", tol)
        bparams["ortho_use_drop"] = bparams.get("ortho_use_drop", False)
    if len(A.shape) > 2:
        N = 1
        for s in A.shape[:-2]:
            N *= int(s)
        bA = A.reshape((N,) + tuple(A.shape[-2:]))
        bB = B.reshape((N,) + tuple(A.shape[-2:])) if B is not None else None
        bX = X.reshape((N,) + tuple(X.shape[-2:])) if X is not None else None
        bE = torch.empty((N, k), dtype=dtype, device=device)
        bXret = torch.empty((N, m, k), dtype=dtype, device=device)
        for i in range(N):
            A_ = bA[i]
            B_ = bB[i] if bB is not None else None
            X_ = torch.randn((m, n), dtype=dtype, device=device) if bX is None else bX[i]
            if not (len(X_.shape) == 2 and tuple(X_.shape) == (m, n)):
                raise AssertionError(f"X_ shape mismatch: got torch.Size({list(X_.shape)}), expected {(m, n)}")
            iparams["batch_index"] = i
            worker = LOBPCG(A_, B_, X_, iK, iparams, fparams, bparams, method, tracker)
            worker.run()
            bE[i] = worker.E[:k]
            bXret[i] = worker.X[:, :k]
        return bE.reshape(tuple(A.shape[:-2]) + (k,)), bXret.reshape(tuple(A.shape[:-2]) + (m, k))
    X = torch.randn((m, n), dtype=dtype, device=device) if X is None else X
    if not (len(X.shape) == 2 and tuple(X.shape) == (m, n)):
        raise AssertionError(f"X shape mismatch: got torch.Size({list(X.shape)}), expected {(m, n)}")
    worker = LOBPCG(A, B, X, iK, iparams, fparams, bparams, method, tracker)
    worker.run()
    return worker.E[:k], worker.X[:, :k]


class LOBPCG:
    """Worker class of LOBPCG methods (PyTorch's ``torch._lobpcg.LOBPCG``, which trackers see)."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker) -> None:
        # constant parameters
        self.A = A
        self.B = B
        self.iK = iK
        self.iparams = iparams
        self.fparams = fparams
        self.bparams = bparams
        self.method = method
        self.tracker = tracker
        m = iparams["m"]
        n = iparams["n"]
        # variable parameters
        self.X = X
        self.E = torch.zeros((n,), dtype=X.dtype, device=X.device)
        self.R = torch.zeros((m, n), dtype=X.dtype, device=X.device)
        self.S = torch.zeros((m, 3 * n), dtype=X.dtype, device=X.device)
        self.tvars = {}
        self.ivars = {"istep": 0}
        self.fvars = {"_": 0.0}
        self.bvars = {"_": False}

    def __str__(self):
        lines = ["LOBPCG:"]
        lines += [f"  iparams={self.iparams}"]
        lines += [f"  fparams={self.fparams}"]
        lines += [f"  bparams={self.bparams}"]
        lines += [f"  ivars={self.ivars}"]
        lines += [f"  fvars={self.fvars}"]
        lines += [f"  bvars={self.bvars}"]
        lines += [f"  tvars={self.tvars}"]
        lines += [f"  A={self.A}"]
        lines += [f"  B={self.B}"]
        lines += [f"  iK={self.iK}"]
        lines += [f"  X={self.X}"]
        lines += [f"  E={self.E}"]
        return "".join(line + "\n" for line in lines)

    def update(self):
        """Set and update iteration variables."""
        if self.ivars["istep"] == 0:
            X_norm = float(torch.norm(self.X))
            iX_norm = X_norm**-1
            A_norm = float(torch.norm(_matmul(self.A, self.X))) * iX_norm
            B_norm = float(torch.norm(_matmul(self.B, self.X))) * iX_norm
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = A_norm
            self.fvars["B_norm"] = B_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] = self.ivars["iterations_left"] - 1
        self.ivars["istep"] = self.ivars["istep"] + 1

    def update_residual(self):
        """Update residual R from A, B, X, E."""
        mm = _matmul
        self.R = mm(self.A, self.X) - mm(self.B, self.X) * self.E

    def update_converged_count(self):
        """The number of converged eigenpairs by the backward stable criterion (Duersch et al.,
        2018, Sec 4.3)."""
        prev_count = self.ivars["converged_count"]
        tol = self.fparams["tol"]
        A_norm = self.fvars["A_norm"]
        B_norm = self.fvars["B_norm"]
        E, X, R = self.E, self.X, self.R
        rerr = torch.norm(R, 2, (0,)) / (torch.norm(X, 2, (0,)) * (A_norm + torch.abs(E[: X.shape[-1]]) * B_norm))
        converged = rerr < tol
        count = 0
        for b in converged.tolist():
            if not b:
                # (the following pairs' convergence is ignored: eigenpairs in strict order)
                break
            count += 1
        if count < prev_count:
            raise AssertionError(f"the number of converged eigenpairs (was {prev_count}, got {count}) cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self):
        """Return True to stop iterations (a tracker may set ``worker.bvars['force_stop']``)."""
        return (self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def run(self):
        """Run LOBPCG iterations."""
        self.update()
        if self.tracker is not None:
            self.call_tracker()
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.call_tracker()

    def call_tracker(self):
        """Call the tracker with this worker."""
        self.tracker(self)

    # Internal methods

    def _update_basic(self):
        """Update or initialize iteration variables when ``method == "basic"``."""
        mm = torch.matmul
        ns = self.ivars["converged_end"]
        nc = self.ivars["converged_count"]
        n = self.iparams["n"]
        largest = self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            M = _qform(_qform(self.A, self.X), Ri)
            E, Z = _symeig(M, largest)
            self.X[:] = mm(self.X, mm(Ri, Z))
            self.E[:] = E
            np = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            W = _matmul(self.iK, self.R)
            self.ivars["converged_end"] = ns = n + np + W.shape[-1]
            self.S[:, n + np: ns] = W
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._get_rayleigh_ritz_transform(S_)
            M = _qform(_qform(self.A, S_), Ri)
            E_, Z = _symeig(M, largest)
            self.X[:, nc:] = mm(S_, mm(Ri, Z[:, : n - nc]))
            self.E[nc:] = E_[: n - nc]
            P = mm(S_, mm(Ri, Z[:, n: 2 * n - nc]))
            np = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n: n + np] = P
            W = _matmul(self.iK, self.R[:, nc:])
            self.ivars["converged_end"] = ns = n + np + W.shape[-1]
            self.S[:, n + np: ns] = W

    def _update_ortho(self):
        """Update or initialize iteration variables when ``method == "ortho"``."""
        mm = torch.matmul
        ns = self.ivars["converged_end"]
        nc = self.ivars["converged_count"]
        n = self.iparams["n"]
        largest = self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            M = _qform(_qform(self.A, self.X), Ri)
            _E, Z = _symeig(M, largest)
            self.X = mm(self.X, mm(Ri, Z))
            self.update_residual()
            np = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._get_ortho(self.R, self.X)
            ns = self.ivars["converged_end"] = n + np + W.shape[-1]
            self.S[:, n + np: ns] = W
        else:
            S_ = self.S[:, nc:ns]
            # Rayleigh-Ritz procedure
            E_, Z = _symeig(_qform(self.A, S_), largest)
            # Update E, X, P
            self.X[:, nc:] = mm(S_, Z[:, : n - nc])
            self.E[nc:] = E_[: n - nc]
            P = mm(S_, mm(Z[:, n - nc:], _basis(Z[: n - nc, n - nc:].mT)))
            np = P.shape[-1]
            # check convergence
            self.update_residual()
            nc = self.update_converged_count()
            # update S
            self.S[:, :n] = self.X
            self.S[:, n: n + np] = P
            W = self._get_ortho(self.R[:, nc:], self.S[:, : n + np])
            ns = self.ivars["converged_end"] = n + np + W.shape[-1]
            self.S[:, n + np: ns] = W

    def _get_rayleigh_ritz_transform(self, S):
        """The upper-triangular ``Ri`` reducing ``(S^T A S) C = (S^T B S) C E`` to the standard
        ``(Ri^T S^T A S Ri) Z = Z E`` with ``C = Ri Z`` (Duersch et al., 2018, with elementwise
        products for the diagonal scalings)."""
        B = self.B
        SBS = _qform(B, S)
        d_row = SBS.diagonal(0, -2, -1) ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = torch.linalg.cholesky((SBS * d_row) * d_col, upper=True)
        return torch.linalg.solve_triangular(R, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop, tau):
        """B-orthonormal ``U`` (Algorithm 4 of Duersch, 2015); ``drop``: the columns that
        contribute little to ``span([U])`` dropped."""
        if torch.numel(U) == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        # exact zero columns of U dropped first (d ** -0.5 below)
        nz = torch.where(abs(d) != 0.0)
        if len(nz) != 1:
            raise AssertionError(f"expected nz to have length 1, got {nz}")
        if len(nz[0]) < len(d):
            U = U[:, nz[0]]
            if torch.numel(U) == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
            nz = torch.where(abs(d) != 0.0)
            if len(nz[0]) != len(d):
                raise AssertionError(f"expected nz[0] length {len(d)}, got {len(nz[0])}")
        d_col = (d**-0.5).reshape(d.shape[0], 1)
        DUBUD = (UBU * d_col) * d_col.mT
        E, Z = _symeig(DUBUD)
        t = tau * abs(E).max()
        if drop:
            keep = torch.where(E > t)
            if len(keep) != 1:
                raise AssertionError(f"expected keep to have length 1, got {keep}")
            E = E[keep[0]]
            Z = Z[:, keep[0]]
            d_col = d_col[keep[0]]
        else:
            E[(torch.where(E < t))[0]] = t
        return torch.matmul(U * d_col.mT, Z * E**-0.5)

    def _get_ortho(self, U, V):
        """B-orthonormal ``U`` whose columns are B-orthogonal to ``V`` (Algorithm 3, or with
        ``ortho_use_drop`` Algorithm 6, of Duersch, 2015); empty where every column of ``U``
        is B-collinear to ``V``."""
        mm = torch.matmul
        mm_B = _matmul
        m = self.iparams["m"]
        tau_ortho = self.fparams["ortho_tol"]
        tau_drop = self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        i_max = self.iparams["ortho_i_max"]
        j_max = self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]
        # clean up variables from the previous call
        for vkey in list(self.fvars.keys()):
            if vkey.startswith("ortho_") and vkey.endswith("_rerr"):
                self.fvars.pop(vkey)
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = torch.norm(mm_B(self.B, V))
        BU = mm_B(self.B, U)
        VBU = mm(V.mT, BU)
        i = j = 0
        for i in range(i_max):
            U = U - mm(V, VBU)
            drop = False
            tau_svqb = tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop = True
                    tau_svqb = tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if torch.numel(U) == 0:
                    # all initial U columns are B-collinear to V
                    self.ivars["ortho_i"] = i
                    self.ivars["ortho_j"] = j
                    return U
                BU = mm_B(self.B, U)
                UBU = mm(U.mT, BU)
                U_norm = torch.norm(U)
                BU_norm = torch.norm(BU)
                R = UBU - torch.eye(UBU.shape[-1], device=UBU.device, dtype=UBU.dtype)
                R_norm = torch.norm(R)
                rerr = float(R_norm) * float(BU_norm * U_norm) ** -1
                vkey = f"ortho_UBUmI_rerr[{i}, {j}]"
                self.fvars[vkey] = rerr
                if rerr < tau_ortho:
                    break
            VBU = mm(V.mT, BU)
            VBU_norm = torch.norm(VBU)
            U_norm = torch.norm(U)
            rerr = float(VBU_norm) * float(BV_norm * U_norm) ** -1
            vkey = f"ortho_VBU_rerr[{i}]"
            self.fvars[vkey] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                B = self.B
                if B is None:
                    raise AssertionError("B must not be None")
                raise ValueError("Overdetermined shape of U:"
                                 f" #B-cols(={B.shape[-1]}) >= #U-cols(={U.shape[-1]}) + #V-cols(={V.shape[-1]}) "
                                 "must hold")
        self.ivars["ortho_i"] = i
        self.ivars["ortho_j"] = j
        return U
