# Adapted from PyTorch 2.13's torch/nn/utils/parametrizations.py (BSD-3-Clause; Copyright (c) 2016- Facebook, Inc and the
# PyTorch contributors; see LICENSES/PyTorch.txt).
"""PyTorch's ``torch.nn.utils.parametrizations``: ``weight_norm``, ``spectral_norm`` and
``orthogonal`` as parametrizations (``parametrize.register_parametrization``).

* ``weight_norm(module, name, dim)``: ``original0`` is ``g`` (the norm of ``weight`` over every
  dimension but ``dim``; the whole norm for ``dim=None``, PyTorch's ``-1``), ``original1`` is
  ``v``; ``weight = v * (g / norm_except_dim(v, 2, dim))``, PyTorch's ``_weight_norm``.
* ``spectral_norm(module, name, n_power_iterations, eps, dim)``: the buffers ``_u`` and ``_v``
  of ``parametrizations.<name>.0`` (drawn from strided's normal generator, normalized, then 15
  power iterations, as PyTorch; the same distribution, not its numbers); in training mode every
  access runs ``n_power_iterations`` in-place updates of them, in eval mode none;
  ``weight / vdot(u, W v)`` (a 1-D weight is just normalized).
* ``orthogonal(module, name, orthogonal_map, *, use_trivialization)``: ``"matrix_exp"``,
  ``"cayley"`` or ``"householder"`` of the lower triangle of ``original``, times the buffer
  ``base`` with the trivialization, as PyTorch's ``_Orthogonal``. ``_make_orthogonal`` (the
  Q of the QR decomposition with ``R``'s diagonal made positive) is computed from
  ``linalg.qr``; ``geqrf`` (for ``householder`` without the trivialization) is LAPACK's
  Householder algorithm (``dgeqrf``'s reflector convention) written with strided's operations.

Not here: PyTorch's load hook in ``weight_norm`` that renames the deprecated ``weight_g`` /
``weight_v`` keys of an old state dict (strided's modules have no load hooks): such a state dict
is refused by a strict ``load_state_dict`` (missing and unexpected keys).

>>> import strided.torch as torch
>>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(4, 3))
>>> sorted(m.state_dict())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""

from __future__ import annotations

import enum
import sys

from ...._core.array import Array
from ..modules import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _torch():
    return sys.modules["strided.torch"]


def _norm_except_dim(v, dim: int):
    """PyTorch's ``norm_except_dim(v, 2, dim)``: ``dim=-1`` is the whole 2-norm (0-d); any other
    ``dim`` the norm over the other dimensions, kept as size-1 dimensions."""
    torch = _torch()
    if dim == -1:
        return torch.linalg.vector_norm(v)
    nd = v.ndim
    if not -max(nd, 1) <= dim < max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {dim})")
    dim = dim % max(nd, 1)
    others = tuple(i for i in range(nd) if i != dim)
    if not others:
        return v.abs()
    return torch.linalg.vector_norm(v, dim=others, keepdim=True)


def _is_orthogonal(Q, eps=None):
    torch = _torch()
    n, k = Q.size(-2), Q.size(-1)
    Id = torch.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * torch.finfo(Q.dtype).eps
    return torch.allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """The Q of ``A``'s QR decomposition with ``R``'s diagonal made non-negative (PyTorch's
    ``geqrf`` + ``householder_product`` + ``Q *= sgn(diag)``, the same LAPACK Q)."""
    torch = _torch()
    Q, R = torch.linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _geqrf(A):
    """LAPACK's ``geqrf`` of a real ``A`` (``*, m, n``): the reflectors below the diagonal, R on
    and above it, and ``tau`` (``*, min(m, n)``), as ``dlarfg`` computes them."""
    torch = _torch()
    A = A.clone()
    m, n = A.size(-2), A.size(-1)
    batch = tuple(A.shape[:-2])
    taus = []
    for j in range(min(m, n)):
        x = A[..., j:, j]
        alpha = x[..., 0]
        xnorm = torch.linalg.vector_norm(x[..., 1:], dim=-1)
        zero = xnorm == 0
        beta = -torch.copysign(torch.hypot(alpha, xnorm), alpha)
        safe_beta = torch.where(zero, torch.ones_like(beta), beta)
        tau = torch.where(zero, torch.zeros_like(beta), (beta - alpha) / safe_beta)
        denom = torch.where(zero, torch.ones_like(beta), alpha - beta)
        tail = torch.where(zero.unsqueeze(-1), x[..., 1:], x[..., 1:] / denom.unsqueeze(-1))
        v = torch.cat([torch.ones(batch + (1,), dtype=A.dtype, device=A.device), tail], dim=-1)
        if j + 1 < n:
            sub = A[..., j:, j + 1:]
            w = (v.unsqueeze(-2) @ sub)  # (*, 1, n - j - 1)
            A[..., j:, j + 1:] = sub - tau[..., None, None] * (v.unsqueeze(-1) @ w)
        A[..., j, j] = torch.where(zero, alpha, beta)
        A[..., j + 1:, j] = tail
        taus.append(tau)
    tau = torch.stack(taus, dim=-1) if taus else torch.zeros(batch + (0,), dtype=A.dtype,
                                                             device=A.device)
    return A, tau


class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


class _Orthogonal(Module):
    """The parametrization ``orthogonal`` registers (PyTorch's ``_Orthogonal``)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        """The orthogonal (unitary) matrix that ``X`` parametrizes."""
        torch = _torch()
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = torch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = torch.matrix_exp(A)
            else:
                Id = torch.eye(n, dtype=A.dtype, device=A.device)
                Q = torch.linalg.solve(torch.add(Id, A, alpha=-0.5), torch.add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = torch.linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        """The ``original`` for the orthogonal ``Q`` (and, with the trivialization, ``base``)."""
        torch = _torch()
        with torch.no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix "
                                              "exponential or the Cayley parametrizations when "
                                              "use_trivialization=False.")
                A, tau = _geqrf(Q)
                d = A.diagonal(dim1=-2, dim2=-1).sign()
                d = torch.where(tau == 0.0, -d, d)
                A.diagonal(dim1=-2, dim2=-1).copy_(d)
                return A.mT if transpose else A
            if n == k:
                if not _is_orthogonal(Q):
                    Q = _make_orthogonal(Q)
                else:
                    Q = Q.clone()
            else:
                N = torch.randn(*(tuple(Q.size()[:-2]) + (n, n - k)), dtype=Q.dtype,
                                device=Q.device)
                Q = torch.cat([Q, N], dim=-1)
                Q = _make_orthogonal(Q)
            self.base = Q
            neg_Id = torch.zeros_like(Q_init)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def orthogonal(module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True):
    """Make ``module``'s matrix (or batch of matrices) ``name`` orthogonal or unitary
    (PyTorch's ``parametrizations.orthogonal``); returns ``module``.

    ``orthogonal_map`` is ``"matrix_exp"`` (the default for square or complex matrices),
    ``"cayley"`` or ``"householder"`` (the default otherwise); ``use_trivialization`` keeps the
    starting orthogonal matrix in the buffer ``base``. The matrix's value is kept: ``original``
    is set by the parametrization's ``right_inverse``.

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(3, 3, dtype=torch.float64))
    >>> bool(torch.allclose(m.weight @ m.weight.T, torch.eye(3, dtype=torch.float64)))
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Array):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex()
                          else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None) if isinstance(orthogonal_map, str) \
        else None
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    """The parametrization ``weight_norm`` registers (PyTorch's ``_WeightNorm``)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        """``weight_v * (weight_g / norm_except_dim(weight_v, 2, dim))``."""
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        """``(g, v)``: ``weight``'s norm over the other dimensions, and ``weight``."""
        weight_g = _norm_except_dim(weight, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name: str = "weight", dim: int = 0):
    """Weight normalization of ``module``'s parameter ``name`` as a parametrization (PyTorch's
    ``parametrizations.weight_norm``): ``original0`` (g, the magnitude) and ``original1`` (v,
    the direction); returns ``module``. A state dict of the old ``nn.utils.weight_norm``
    (``weight_g``/``weight_v``) loads into them (a load-state-dict pre-hook, as PyTorch's).

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(4, 3))
    >>> m.parametrizations.weight.original0.shape
    strided.Size([3, 1])
    """
    _weight_norm = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs) -> None:
        # (a checkpoint of the old hook-based weight_norm: name_g / name_v)
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    """The parametrization ``spectral_norm`` registers (PyTorch's ``_SpectralNorm``)."""

    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        torch = _torch()
        F = torch.nn.functional
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            with torch.no_grad():
                u = weight_mat.new_empty(h).normal_(0, 1)
                v = weight_mat.new_empty(w).normal_(0, 1)
                self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
                self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        torch = _torch()
        F = torch.nn.functional
        with torch.no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(torch.mv(weight_mat, self._v), dim=0, eps=self.eps,
                                      out=self._u)
                self._v = F.normalize(torch.mv(weight_mat.H, self._u), dim=0, eps=self.eps,
                                      out=self._v)

    def forward(self, weight):
        """``weight / sigma`` (after the power iterations in training mode)."""
        torch = _torch()
        F = torch.nn.functional
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = torch.vdot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        """``value`` itself (assigning a weight keeps it as ``original``)."""
        return value


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None):
    """Spectral normalization of ``module``'s parameter ``name`` as a parametrization (PyTorch's
    ``parametrizations.spectral_norm``); returns ``module``. ``dim`` defaults to 1 for the
    ``ConvTranspose`` modules and 0 otherwise.

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(5, 4))
    >>> sorted(m.state_dict())
    ['bias', 'parametrizations.weight.0._u', 'parametrizations.weight.0._v', 'parametrizations.weight.original']
    """
    torch = _torch()
    weight = getattr(module, name, None)
    if not isinstance(weight, Array):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        if isinstance(module, (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d,
                               torch.nn.ConvTranspose3d)):
            dim = 1
        else:
            dim = 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
