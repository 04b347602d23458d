"""PyTorch's mathematical top-level names that ``strided.torch`` lacked, each meaning what
PyTorch 2.13's does and composed of strided's functions (gradients, devices and dtypes come
from those calls):

- the removed ``torch.solve``, ``lstsq``, ``eig``, ``symeig``, ``matrix_rank`` (and the
  methods ``x.solve``, ``x.lstsq``, ``x.eig``, ``x.symeig``): PyTorch keeps them as callables
  that raise RuntimeError pointing at ``torch.linalg``; so do these, with PyTorch's words;
- ``torch.histogramdd``; the randomized ``torch.svd_lowrank`` and ``torch.pca_lowrank``
  (PyTorch's ``torch/_lowrank.py``, step for step) and ``torch.lobpcg`` (``_math_lobpcg``);
- LAPACK's compact QR: ``torch.geqrf`` (Householder reflectors with ``dlarfg``'s signs),
  ``torch.orgqr`` (``linalg.householder_product``), ``torch.ormqr``, and their methods;
- the ATen entry points ``native_layer_norm``, ``native_batch_norm``, ``native_group_norm``
  (the result and the saved mean and reciprocal standard deviation), ``native_dropout`` (the
  result and the mask), ``native_norm`` (sparse-only in PyTorch: it raises here as on dense
  tensors there), ``torch.convolution`` (the generic one), ``torch.ctc_loss`` (reduction an
  int) and ``torch.embedding_bag`` (its four results), ``torch.unsafe_split_with_sizes``.

Where PyTorch's CPU kernels and CUDA kernels disagree (the saved statistics' dtypes of a
float16 ``native_layer_norm``, ``embedding_bag``'s auxiliary results), these follow the CPU's.

>>> import strided.torch as torch
>>> a, tau = torch.geqrf(torch.tensor([[3.0], [4.0]], dtype=torch.float64))
>>> a.tolist(), tau.tolist()
([[-5.0], [0.5]], [1.6])
"""

from __future__ import annotations

import builtins
import math
import sys
from fractions import Fraction

from .._core import dtypes as _dtypes
from .._core.array import Array
from ._checks import tensor as _tensor
from ._functions import _return_type, _write, return_types
from ._memory_format import copy_with_strides, row_major
from ._shape_functions import _TENSOR_TYPE
from ._more_methods import _C_TYPE
from ._math_lobpcg import lobpcg  # noqa: F401  (PyTorch's LOBPCG, its own module)

__all__ = ["solve", "lstsq", "eig", "symeig", "matrix_rank", "histogramdd", "svd_lowrank", "pca_lowrank", "lobpcg",
           "geqrf", "orgqr", "ormqr", "native_layer_norm", "native_batch_norm", "native_group_norm",
           "native_dropout", "native_norm", "convolution", "ctc_loss", "embedding_bag",
           "unsafe_split_with_sizes"]

return_types.histogramdd = _return_type("histogramdd", ("hist", "bin_edges"))
return_types.geqrf = _return_type("geqrf", ("a", "tau"))


def _t():
    return sys.modules["strided.torch"]


def _tname(dt) -> str:
    """PyTorch's scalar type name (``Float``, ``Long``, ...) of a dtype."""
    return _TENSOR_TYPE.get(dt.name, dt.name)


# --- removed in PyTorch 1.9: callables that say where to go ----------------------------------
# (PyTorch 2.13's torch/_linalg_utils.py, word for word)

_SOLVE = (
    "This function was deprecated since version 1.9 and is now removed. "
    "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
    "`torch.linalg.solve` has its arguments reversed and does not return the LU factorization.\n\n"
    "To get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\n"
    "X = torch.solve(B, A).solution "
    "should be replaced with:\n"
    "X = torch.linalg.solve(A, B)")
_LSTSQ = (
    "This function was deprecated since version 1.9 and is now removed. "
    "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
    "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in "
    "the returned tuple (although it returns other information about the problem).\n\n"
    "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
    "The returned solution in `torch.lstsq` stored the residuals of the solution in the "
    "last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, "
    "the residuals are in the field 'residuals' of the returned named tuple.\n\n"
    "The unpacking of the solution, as in\n"
    "X, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
    "should be replaced with:\n"
    "X = torch.linalg.lstsq(A, B).solution")
_EIG = (
    "This function was deprecated since version 1.9 and is now removed. "
    "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
    "mimicking complex tensors.\n\n"
    "L, _ = torch.eig(A) "
    "should be replaced with:\n"
    "L_complex = torch.linalg.eigvals(A)\n\n"
    "and\n\n"
    "L, V = torch.eig(A, eigenvectors=True) "
    "should be replaced with:\n"
    "L_complex, V_complex = torch.linalg.eig(A)")
_SYMEIG = (
    "This function was deprecated since version 1.9 and is now removed. "
    "The default behavior has changed from using the upper triangular portion of the matrix by default "
    "to using the lower triangular portion.\n\n"
    "L, _ = torch.symeig(A, upper=upper) "
    "should be replaced with:\n"
    "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\n"
    "and\n\n"
    "L, V = torch.symeig(A, eigenvectors=True) "
    "should be replaced with:\n"
    "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")
_MATRIX_RANK = (
    "This function was deprecated since version 1.9 and is now removed.\n"
    "Please use the `torch.linalg.matrix_rank` function instead. "
    "The parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")


def solve(input, A, *, out=None):
    """``torch.solve`` (removed in PyTorch 1.9): raises PyTorch's RuntimeError, which points
    at ``torch.linalg.solve(A, B)``.

    >>> import strided.torch as torch
    >>> torch.solve(torch.ones(2, 1), torch.eye(2))
    Traceback (most recent call last):
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(_SOLVE)


def lstsq(input, A, *, out=None):
    """``torch.lstsq`` (removed in PyTorch 1.9): raises PyTorch's RuntimeError, which points
    at ``torch.linalg.lstsq(A, B)``.

    >>> import strided.torch as torch
    >>> torch.lstsq(torch.ones(2, 1), torch.eye(2))
    Traceback (most recent call last):
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(_LSTSQ)


def eig(self, eigenvectors=False, *, e=None, v=None):
    """``torch.eig`` (removed in PyTorch 1.9): raises PyTorch's RuntimeError, which points at
    ``torch.linalg.eig`` / ``eigvals``.

    >>> import strided.torch as torch
    >>> torch.eig(torch.eye(2))
    Traceback (most recent call last):
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(_EIG)


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """``torch.symeig`` (removed in PyTorch 1.9): raises PyTorch's RuntimeError, which points
    at ``torch.linalg.eigh`` / ``eigvalsh``.

    >>> import strided.torch as torch
    >>> torch.symeig(torch.eye(2))
    Traceback (most recent call last):
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(_SYMEIG)


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """``torch.matrix_rank`` (removed in PyTorch 1.9): raises PyTorch's RuntimeError, which
    points at ``torch.linalg.matrix_rank``.

    >>> import strided.torch as torch
    >>> torch.matrix_rank(torch.eye(2))
    Traceback (most recent call last):
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(_MATRIX_RANK)


def _solve_method(self, other):
    """PyTorch's ``x.solve(other)`` (removed): raises as ``torch.solve``."""
    raise RuntimeError(_SOLVE)


def _lstsq_method(self, other):
    """PyTorch's ``x.lstsq(other)`` (removed): raises as ``torch.lstsq``."""
    raise RuntimeError(_LSTSQ)


def _eig_method(self, eigenvectors=False):
    """PyTorch's ``x.eig(eigenvectors=False)`` (removed): raises as ``torch.eig``."""
    raise RuntimeError(_EIG)


def _symeig_method(self, eigenvectors=False):
    """PyTorch's ``x.symeig(eigenvectors=False)`` (removed): raises as ``torch.symeig``."""
    raise RuntimeError(_SYMEIG)


# --- histogramdd -----------------------------------------------------------------------------

def _cname(dt) -> str:
    """The C++ type name PyTorch's messages print for a dtype (``float``, ``double``)."""
    return _C_TYPE.get(dt.name, dt.name)


def _round_to(r, np_dt):
    """The float of ``np_dt`` nearest the exact rational ``r`` (ties to even)."""
    import numpy as np
    f = np_dt(float(r))  # (float32: the nearest double, then a neighbour if that rounded twice)
    if np_dt is np.float64 or not np.isfinite(f):
        return f
    best = f
    for c in (np.nextafter(f, np_dt(-np.inf)), np.nextafter(f, np_dt(np.inf))):
        d, db = abs(Fraction(float(c)) - r), abs(Fraction(float(best)) - r)
        if d < db or (d == db and int(c.view(np.int32)) % 2 == 0):
            best = c
    return best


def _cpu_linspace(lo: float, hi: float, steps: int, dt):
    """PyTorch's CPU ``linspace(lo, hi, steps)`` in ``dt``, bit for bit (host NumPy): ``step =
    (end - start) / (steps - 1)`` in ``dt``, then ``fma(step, i, start)`` for the first half
    and ``fma(-step, steps - 1 - i, end)`` for the rest (measured: every value of 300 random
    cases of float32 and float64 on PyTorch 2.13, AVX2 and AVX-512)."""
    import numpy as np
    np_dt = np.float32 if dt == _dtypes.float32 else np.float64
    start, end = np_dt(lo), np_dt(hi)
    if steps == 1:
        return np.array([start], np_dt)
    step = (end - start) / np_dt(steps - 1)
    fs, fa, fe = Fraction(float(step)), Fraction(float(start)), Fraction(float(end))
    half = steps // 2
    return np.array([_round_to(fa + fs * i if i < half else fe - fs * (steps - 1 - i), np_dt)
                     for i in builtins.range(steps)], np_dt)


def _upper_bound(e, col):
    """The index of the first edge of ``e`` above each of ``col``, found by ``std::upper_bound``'s
    steps, as PyTorch's histogramdd finds it: ``searchsorted(e, col, side='right')`` where ``e``
    is sorted, and PyTorch's bins, bit for bit, where the edges go down (which it does not check)."""
    t = _t()
    n = e.shape[0]
    first = t.zeros(col.shape[0], dtype=t.int64, device=col.device)
    length = t.full((col.shape[0],), n, dtype=t.int64, device=col.device)
    while bool((length > 0).any()):
        half = length // 2
        middle = first + half
        left = col < e[t.clamp(middle, 0, n - 1)]
        active = length > 0
        first = t.where(active & ~left, middle + 1, first)
        length = t.where(active, t.where(left, half, length - half - 1), length)
    return first


def histogramdd(input, bins, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    """``torch.histogramdd(input, bins, *, range=None, weight=None, density=False)``: the
    histogram of the points that are the rows of ``input`` (``(..., N)``, ``N`` coordinates
    each), as ``return_types.histogramdd(hist, bin_edges)``: ``hist`` of ``input``'s float
    dtype, ``bin_edges`` a tuple of ``N`` 1-D arrays. ``bins``: an int (that many equal bins
    per coordinate), ``N`` ints, or ``N`` 1-D arrays of edges (non-decreasing; others are
    searched as PyTorch searches them). Each bin holds its left edge, the last also its right;
    points outside the first and last edges (and NaN) are not counted.

    >>> import strided.torch as torch
    >>> r = torch.histogramdd(torch.tensor([[0., 0.], [1., 1.], [1., 0.]]), bins=2)
    >>> r.hist.tolist(), r.bin_edges[0].tolist()
    ([[1.0, 0.0], [1.0, 1.0]], [0.0, 0.5, 1.0])
    """
    name = "torch.histogramdd"
    x = _tensor("histogramdd", input)
    if out is not None:
        raise TypeError("histogramdd(): out= is not supported by strided.torch's histogramdd; assign the "
                        "result instead")
    if x.ndim < 2:
        raise RuntimeError(f"{name}: input tensor should have at least 2 dimensions")
    dt = x.dtype
    if dt not in (_dtypes.float32, _dtypes.float64):
        raise NotImplementedError(f'"histogramdd" not implemented for \'{_tname(dt)}\'')
    t = _t()
    N = x.shape[-1]
    dev = x.device
    pts = x.detach().reshape(math.prod(x.shape[:-1]), N)
    # bins: an int, a sequence of ints, or a sequence of 1-D arrays (the edges)
    if type(bins) is int:
        counts, given = [bins] * N, None
    elif isinstance(bins, (list, tuple)):
        if all(type(b) is int for b in bins):
            counts, given = list(bins), None
        else:
            for i, b in enumerate(bins):
                if type(b) is not Array:
                    raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(b).__name__}")
            counts, given = None, list(bins)
    else:
        raise TypeError(f"histogramdd(): bins must be an int, a sequence of ints or a sequence of 1-D "
                        f"tensors (the edges); got {type(bins).__name__}")
    if weight is not None:
        if type(weight) is not Array:
            raise TypeError(f"histogramdd(): argument 'weight' must be Tensor, not {type(weight).__name__}")
        if tuple(weight.shape) != tuple(x.shape[:-1]):
            raise RuntimeError(f"{name}: if weight tensor is provided it should have the same shape as the "
                               f"input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(x.shape)} and weight with shape {list(weight.shape)}")
        if weight.dtype != dt:
            raise RuntimeError(f"{name}: if weight tensor is provided, input tensor and weight tensor should "
                               f"have the same dtype, but got input({_cname(dt)}), and weight"
                               f"({_cname(weight.dtype)})")
    edges = []
    if given is None:
        if len(counts) != N:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of "
                               "the input.")
        if range is not None:
            rng = [float(v) for v in range]
            if len(rng) != 2 * N:
                raise RuntimeError(f"{name}: for a {N}-dimensional histogram range should have {2 * N} "
                                   f"elements, but got {len(rng)}")
        elif pts.shape[0]:
            lows = pts.amin(0).tolist()
            highs = pts.amax(0).tolist()
            rng = [v for pair in zip(lows, highs) for v in pair]
        else:
            rng = [0.0, 1.0] * N
        for d, b in enumerate(counts):
            if b == 0:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got 0 for dimension {d}")
            if b == -1:
                raise RuntimeError(f"{name}: bins tensor should have at least 1 element, but got 0 elements "
                                   f"in the bins tensor for dimension {d}")
            if b < 0:
                raise RuntimeError("number of steps must be non-negative")
            lo, hi = rng[2 * d], rng[2 * d + 1]
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise RuntimeError(f"{name}: dimension {d}'s range [{lo:g}, {hi:g}] is not finite")
            if lo > hi:
                raise RuntimeError(f"{name}: min should not exceed max, but got min {lo:g} max {hi:g} for "
                                   f"dimension {d}")
            if lo == hi:  # (NumPy's and PyTorch's widening of an empty range)
                lo, hi = lo - 0.5, hi + 0.5
            edges.append(t.tensor(_cpu_linspace(lo, hi, b + 1, dt), dtype=dt, device=dev))
    else:
        if len(given) != N:
            raise RuntimeError(f"{name}: expected {N} sequences of bin edges for a {N}-dimensional histogram "
                               f"but got {len(given)}")
        for d, e in enumerate(given):
            if e.dtype != dt:
                raise RuntimeError(f"{name}: input tensor and bins tensors should have the same dtype, but got "
                                   f"input with dtype {_cname(dt)} and bins for dimension {d} with dtype "
                                   f"{_cname(e.dtype)}")
            if e.ndim != 1:
                raise RuntimeError(f"{name}: bins tensor should have one dimension, but got {e.ndim} dimensions "
                                   f"in the bins tensor for dimension {d}")
            if e.shape[0] < 1:
                raise RuntimeError(f"{name}: bins tensor should have at least 1 element, but got 0 elements in "
                                   f"the bins tensor for dimension {d}")
            if e.shape[0] == 1:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got 0 for dimension {d}")
            # (edges that go down are taken as PyTorch takes them: its binary search, below)
            edges.append(e.detach().clone())
    nbs = [e.shape[0] - 1 for e in edges]
    total = math.prod(nbs)
    if N == 0 or total == 0 or pts.shape[0] == 0:
        hist = t.zeros(tuple(nbs), dtype=dt, device=dev)
    else:
        flat = t.zeros(pts.shape[0], dtype=t.int64, device=dev)
        inside = None
        for d, (e, nb) in enumerate(zip(edges, nbs)):
            col = pts[:, d].contiguous()
            ok = (col >= e[0]) & (col <= e[-1])
            inside = ok if inside is None else inside & ok
            idx = t.clamp(_upper_bound(e, col) - 1, 0, nb - 1)
            flat = flat * nb + idx
        w = t.ones(pts.shape[0], dtype=dt, device=dev) if weight is None else weight.detach().reshape(-1)
        w = t.where(inside, w, t.zeros((), dtype=dt, device=dev))
        hist = t.bincount(flat, w, minlength=total).to(dt).reshape(tuple(nbs))
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * N
            shape[d] = nbs[d]
            hist = hist / (e[1:] - e[:-1]).reshape(shape)
    return return_types.histogramdd(hist, tuple(edges))


# --- randomized low-rank SVD and PCA (torch/_lowrank.py) ---------------------------------------

def _floating_dtype(A):
    # (torch/_linalg_utils.py get_floating_dtype)
    return A.dtype if A.dtype in (_dtypes.float16, _dtypes.float32, _dtypes.float64) else _dtypes.float32


def _check_lowrank(A, M=None):
    A = _tensor("svd_lowrank", A, "A")
    dt = A.dtype if A.dtype.kind == "c" else _floating_dtype(A)
    for X in (A,) if M is None else (A, M):
        if X.dtype != dt:  # (PyTorch's matmul of A, or M, with the random matrix of dtype dt)
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(X.dtype)} != "
                               f"{_cname(dt)}")
    if dt == _dtypes.float16:
        raise NotImplementedError("\"geqrf_cpu\" not implemented for 'Half'")
    return A


def _approximate_basis(A, q, niter, M):
    """``Q`` with ``q`` orthonormal columns such that ``Q Q^H (A - M)`` approximates ``A - M``
    (Halko et al., 2009, Algorithm 4.4; PyTorch's ``get_approximate_basis``)."""
    t = _t()
    niter = 2 if niter is None else niter
    dtype = _floating_dtype(A) if not A.is_complex() else A.dtype
    R = t.randn(A.shape[-1], q, dtype=dtype, device=A.device)
    X = t.matmul(A, R)
    if M is not None:
        X = X - t.matmul(M, R)
    Q = t.linalg.qr(X).Q
    for _ in builtins.range(niter):
        X = t.matmul(A.mH, Q)
        if M is not None:
            X = X - t.matmul(M.mH, Q)
        Q = t.linalg.qr(X).Q
        X = t.matmul(A, Q)
        if M is not None:
            X = X - t.matmul(M, Q)
        Q = t.linalg.qr(X).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    # Algorithm 5.1 in Halko et al., 2009 (PyTorch's _svd_lowrank)
    t = _t()
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:  # (the algorithm assumes a tall A)
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = t.matmul(Q.mH, A)
    if M is not None:
        B = B - t.matmul(Q.mH, M)
    U, S, Vh = t.linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def svd_lowrank(A, q=6, niter=2, M=None):
    """``torch.svd_lowrank(A, q=6, niter=2, M=None)``: a randomized SVD ``(U, S, V)`` of ``A``
    (or of ``A - M``), ``A ~ U diag(S) V^H`` with ``q`` columns (Halko et al., 2009, as PyTorch:
    a random ``(n, q)`` start from ``torch.randn``, ``niter`` subspace iterations). With ``q``
    at least the rank of ``A`` the factors are the SVD's, up to the signs of the columns.

    >>> import strided.torch as torch
    >>> U, S, V = torch.svd_lowrank(torch.tensor([[3.0, 0.0], [0.0, 2.0], [0.0, 0.0]]), q=2)
    >>> [round(s, 4) for s in S.tolist()]
    [3.0, 2.0]
    """
    A = _check_lowrank(A, M)
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """``torch.pca_lowrank(A, q=None, center=True, niter=2)``: ``svd_lowrank`` of ``A`` with
    its column means subtracted (``center``), ``q`` by default ``min(6, m, n)``: ``V``'s
    columns are the principal directions, ``S ** 2 / (m - 1)`` the variances along them.

    >>> import strided.torch as torch
    >>> A = torch.tensor([[1.0, 1.0], [3.0, 3.0], [5.0, 5.0]])
    >>> U, S, V = torch.pca_lowrank(A, q=1)
    >>> round(S.item() ** 2 / 2, 4)
    8.0
    """
    A = _tensor("pca_lowrank", A, "A")
    (m, n) = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if type(q) is not int:
        raise TypeError(f"pca_lowrank(): q must be an int; got {type(q).__name__}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(_check_lowrank(A), q, niter=niter, M=None)
    if A.dtype.kind not in "fc":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {_tname(A.dtype)}")
    A = _check_lowrank(A)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)


# --- LAPACK's compact QR: geqrf, orgqr, ormqr ---------------------------------------------------

def _lapack_dtype(fname: str, x) -> None:
    if x.dtype not in (_dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128):
        raise NotImplementedError(f'"{fname}_cpu" not implemented for \'{_tname(x.dtype)}\'')


def _column_major(x):
    """``x`` with LAPACK's layout: each matrix column-major (PyTorch's geqrf/orgqr/ormqr)."""
    shape = tuple(x.shape)
    m, n = shape[-2], shape[-1]
    strides = [1, max(m, 1)]
    acc = max(m, 1) * max(n, 1)
    for s in reversed(shape[:-2]):
        strides.insert(0, acc)
        acc *= max(s, 1)
    strides = tuple(strides[-len(shape):])
    return x if tuple(x.stride()) == strides else copy_with_strides(x, strides)


_NO_DERIVATIVE = []


def _no_derivative(inputs, results, error):
    """``results`` (computed without history) given history from ``inputs`` whose backward
    raises ``error``, as PyTorch's ops without a derivative do (``geqrf``)."""
    if not _NO_DERIVATIVE:
        from ..autograd import Function

        class NoDerivative(Function):
            @staticmethod
            def forward(ctx, error, n, *args):
                ctx.error = error
                return tuple(r.clone() for r in args[n:])

            @staticmethod
            def backward(ctx, *grads):
                raise ctx.error
        _NO_DERIVATIVE.append(NoDerivative)
    out = _NO_DERIVATIVE[0].apply(error, len(inputs), *inputs, *results)
    return out if isinstance(out, tuple) else (out,)


def _needs_history(*xs) -> bool:
    return _t().is_grad_enabled() and any(type(x) is Array and x.requires_grad for x in xs)


def _householder_qr(A):
    """LAPACK's unblocked ``geqr2`` of ``A`` (``*, m, n``, no history): ``(a, tau)`` with R on
    and above the diagonal and the reflectors ``v_j`` (``v_j[j] = 1`` implied) below it, each
    ``H_j = I - tau_j v_j v_j^H`` made by ``dlarfg``/``zlarfg`` (``beta = -sign(Re alpha) *
    norm``, real), applied to the columns to its right as ``H_j^H``."""
    t = _t()
    A = A.detach().clone()
    m, n = A.shape[-2], A.shape[-1]
    batch = tuple(A.shape[:-2])
    cplx = A.dtype.kind == "c"
    rdt = _dtypes.float32 if A.dtype in (_dtypes.float32, _dtypes.complex64) else _dtypes.float64
    taus = []
    for j in builtins.range(min(m, n)):
        alpha = A[..., j, j].clone()
        tail = A[..., j + 1:, j]
        xnorm = t.linalg.vector_norm(tail, dim=-1) if m - j > 1 else t.zeros(batch, dtype=rdt, device=A.device)
        if cplx:
            ar, ai = alpha.real, alpha.imag
            zero = (xnorm == 0) & (ai == 0)
            beta = -t.copysign(t.sqrt(ar * ar + ai * ai + xnorm * xnorm), ar)
            safe = t.where(zero, t.ones_like(beta), beta)
            tau = t.complex((beta - ar) / safe, -ai / safe)
            tau = t.where(zero, t.zeros_like(tau), tau)
        else:
            zero = xnorm == 0
            beta = -t.copysign(t.hypot(alpha, xnorm), alpha)
            safe = t.where(zero, t.ones_like(beta), beta)
            tau = t.where(zero, t.zeros_like(beta), (beta - alpha) / safe)
        denom = t.where(zero, t.ones_like(alpha), alpha - beta)
        scale = 1 / denom  # (LAPACK scales by the reciprocal)
        vt = t.where(zero.unsqueeze(-1), tail, tail * scale.unsqueeze(-1))
        one = t.ones(batch + (1,), dtype=A.dtype, device=A.device)
        v = t.cat([one, vt], dim=-1)  # (*, m - j)
        if j + 1 < n:
            sub = A[..., j:, j + 1:]
            w = t.matmul(v.conj().unsqueeze(-2), sub)  # (*, 1, n - j - 1)
            A[..., j:, j + 1:] = sub - tau.conj()[..., None, None] * t.matmul(v.unsqueeze(-1), w)
        A[..., j, j] = t.where(zero, alpha, beta.to(A.dtype))
        A[..., j + 1:, j] = vt
        taus.append(tau)
    tau = t.stack(taus, dim=-1) if taus else t.zeros(batch + (0,), dtype=A.dtype, device=A.device)
    return A, tau


def geqrf(input, *, out=None):
    """``torch.geqrf(input)``: LAPACK's compact QR, ``return_types.geqrf(a, tau)``: ``R`` on
    and above ``a``'s diagonal, below it the Householder vectors whose product with ``tau`` is
    ``Q`` (``orgqr``, ``ormqr``); the reflectors' signs are LAPACK's (``dlarfg``). Like
    PyTorch's, it has no derivative (backward raises).

    >>> import strided.torch as torch
    >>> a, tau = torch.geqrf(torch.tensor([[0.0, 1.0], [2.0, 0.0]]))
    >>> a.tolist(), tau.tolist()
    ([[-2.0, 0.0], [1.0, -1.0]], [1.0, 0.0])
    """
    x = _tensor("geqrf", input)
    if x.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _lapack_dtype("geqrf", x)
    a, tau = _householder_qr(x)
    a = _column_major(a)
    if _needs_history(x):
        a, tau = _no_derivative((x,), (a, tau), NotImplementedError("the derivative for 'geqrf' is not implemented."))
        a = _column_major(a)
    return _write("geqrf", return_types.geqrf(a, tau), out)


def orgqr(input, tau):
    """``torch.orgqr(input, tau)``: ``torch.linalg.householder_product`` -- the first ``n``
    columns of the product of the reflectors ``H_1``, ..., ``H_k`` (``Q`` of ``geqrf``'s compact form).

    >>> import strided.torch as torch
    >>> A = torch.tensor([[3.0, 1.0], [4.0, 2.0]])
    >>> Q = torch.orgqr(*torch.geqrf(A))
    >>> [[round(v, 4) for v in r] for r in Q.tolist()]
    [[-0.6, -0.8], [-0.8, 0.6]]
    """
    if (type(input) is Array and type(tau) is Array and input.ndim >= 2 and tau.ndim >= 1
            and input.shape[-2] >= input.shape[-1] >= tau.shape[-1] and input.dtype != tau.dtype):
        raise RuntimeError(f"torch.linalg.householder_product: tau dtype {_tname(tau.dtype)} does not match "
                           f"input dtype {_tname(input.dtype)}")
    return _column_major(_t().linalg.householder_product(input, tau))


def _reflector(a, i, rows):
    """Householder vector ``i`` of the compact form ``a`` (``*, m, k``): 0 above row ``i``,
    1 at it, ``a``'s column ``i`` below."""
    t = _t()
    col = a[..., :, i]
    return t.where(rows > i, col, t.where(rows == i, t.ones_like(col), t.zeros_like(col)))


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """``torch.ormqr(input, tau, other, left=True, transpose=False)``: ``other`` multiplied by
    ``Q`` (the product of the Householder reflectors of ``geqrf``'s ``(input, tau)``), ``Q``
    conjugate-transposed where ``transpose``, from the left where ``left``, without forming
    ``Q``; composed, so differentiable in all three arguments.

    >>> import strided.torch as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3.0], [4.0]]))
    >>> [[round(v, 4) for v in r] for r in torch.ormqr(a, tau, torch.eye(2)).tolist()]
    [[-0.6, -0.8], [-0.8, 0.6]]
    """
    name = "torch.ormqr"
    a = _tensor("ormqr", input)
    tau = _tensor("ormqr", tau, "tau")
    c = _tensor("ormqr", other, "other")
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if c.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if c.shape[side] != a.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim < 1 or tau.shape[-1] != min(c.shape[side], a.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if a.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal "
                           f"to {tau.ndim} and input.ndim is equal to {a.ndim}")
    if a.ndim != c.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {c.ndim} and input.ndim is equal to {a.ndim}")
    if a.ndim > 2:
        if tuple(tau.shape[:-1]) != tuple(a.shape[:-2]):
            raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but "
                               f"got {list(tau.shape[:-1])}")
        if tuple(c.shape[:-2]) != tuple(a.shape[:-2]):
            raise RuntimeError(f"{name}: Expected batch dimensions of other to be equal to input.shape[:-2], "
                               f"but got {list(c.shape[:-2])}")
    if tau.dtype != a.dtype:
        raise RuntimeError(f"{name}: Expected input and tau to have the same dtype, but input has dtype"
                           f"{_tname(a.dtype)} and tau has dtype {_tname(tau.dtype)}")
    if c.dtype != a.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but input has dtype"
                           f"{_tname(a.dtype)} and other has dtype {_tname(c.dtype)}")
    _lapack_dtype("ormqr", a)
    t = _t()
    k = tau.shape[-1]
    rows = t.arange(a.shape[-2], device=a.device)
    # Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H; H_i^H has conj(tau_i)
    forward = left == bool(transpose)  # (Q^H C and C Q apply H_1 first)
    for i in (builtins.range(k) if forward else builtins.range(k - 1, -1, -1)):
        v = _reflector(a, i, rows)
        ti = tau[..., i]
        if transpose:
            ti = ti.conj()
        if left:  # C - tau v (v^H C)
            w = t.matmul(v.conj().unsqueeze(-2), c)
            c = c - ti[..., None, None] * t.matmul(v.unsqueeze(-1), w)
        else:  # C - tau (C v) v^H
            w = t.matmul(c, v.unsqueeze(-1))
            c = c - ti[..., None, None] * t.matmul(w, v.conj().unsqueeze(-2))
    return _write("ormqr", _column_major(c), out)


def _geqrf_method(self):
    """PyTorch's ``x.geqrf()``: ``torch.geqrf``."""
    return geqrf(self)


def _orgqr_method(self, input2):
    """PyTorch's ``x.orgqr(tau)``: ``torch.orgqr``."""
    return orgqr(self, input2)


def _ormqr_method(self, input2, input3, left=True, transpose=False):
    """PyTorch's ``x.ormqr(tau, other, left=True, transpose=False)``: ``torch.ormqr``."""
    return ormqr(self, input2, input3, left, transpose)


# --- ATen's normalizations with their saved statistics ----------------------------------------

_REDUCED = (_dtypes.float16,)


def _norm_input(kernel: str, x):
    if x.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_tname(x.dtype)}\'')


def _param_dtype(x, params) -> object:
    """The dtype of the saved statistics (ATen's ``param_scalar_type``): ``input``'s, or float32
    for a float16 input whose parameters are float32 (CPU's "mixed dtype"); other mixes raise
    PyTorch's errors (measured on PyTorch 2.13's CPU kernels)."""
    defined = [p for p in params if p is not None]
    dt = x.dtype
    if not defined:
        return dt
    p0 = defined[0].dtype
    if dt in _REDUCED and p0 == _dtypes.float32:
        if any(p.dtype != _dtypes.float32 for p in defined):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        return _dtypes.float32
    if p0 == dt:
        for p in defined:
            if p.dtype != dt:
                raise RuntimeError(f"expected scalar type {_tname(dt)} but found {_tname(p.dtype)}")
        return dt
    if dt == _dtypes.float64 and all(p.dtype == _dtypes.float32 for p in defined):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")


def _acc(x):
    """``x`` in the dtype PyTorch's kernels compute in (float32 for float16)."""
    return x.to(_dtypes.float32) if x.dtype in _REDUCED else x


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``torch.native_layer_norm(input, normalized_shape, weight, bias, eps)``: ``(out, mean,
    rstd)``, ``out`` layer norm's result, ``mean`` and ``rstd`` (``1 / sqrt(var + eps)``, the
    biased variance) of each normalized slice, of shape ``input.shape[:-k] + (1,) * k``
    (without history, as PyTorch's: only ``out`` is differentiable).

    >>> import strided.torch as torch
    >>> out, mean, rstd = torch.native_layer_norm(torch.tensor([[1.0, 3.0]]), [2], None, None, 0.0)
    >>> out.tolist(), mean.tolist(), rstd.tolist()
    ([[-1.0, 1.0]], [[2.0]], [[1.0]])
    """
    x = _tensor("native_layer_norm", input)
    if not isinstance(normalized_shape, (list, tuple, _t().Size)):
        raise TypeError(f"native_layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, "
                        f"not {type(normalized_shape).__name__}")
    shape = tuple(int(s) for s in normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    for nm, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(_tensor("native_layer_norm", p, nm).shape) != shape:
            raise RuntimeError(f"Expected {nm} to be of same shape as normalized_shape, but got {nm} of shape "
                               f"{list(p.shape)} and normalized_shape = {list(shape)}")
    k = len(shape)
    if x.ndim < k or tuple(x.shape[x.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(x.shape)}")
    _norm_input("LayerNormKernelImpl", x)
    pdt = _param_dtype(x, (weight, bias))
    axes = tuple(builtins.range(x.ndim - k, x.ndim))
    xs = _acc(x)
    mean = xs.mean(dim=axes, keepdim=True)
    var = xs.var(dim=axes, correction=0, keepdim=True)
    rstd = 1 / (var + eps).sqrt()
    y = (xs - mean) * rstd
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    # (PyTorch's mean and rstd have no derivative: native_layer_norm's output_differentiability)
    return row_major(y.to(x.dtype)), mean.detach().to(pdt), rstd.detach().to(pdt)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """``torch.native_group_norm(input, weight, bias, N, C, HxW, group, eps)``: ``(out, mean,
    rstd)`` of group norm over ``input`` read as ``(N, C, HxW)``; ``mean`` and ``rstd`` are
    ``(N, group)`` (all three differentiable, as PyTorch's).

    >>> import strided.torch as torch
    >>> out, mean, rstd = torch.native_group_norm(torch.tensor([[1.0, 3.0]]), None, None, 1, 2, 1, 1, 0.0)
    >>> out.tolist(), mean.tolist(), rstd.tolist()
    ([[-1.0, 1.0]], [[2.0]], [[1.0]])
    """
    x = _tensor("native_group_norm", input)
    shape = list(x.shape)
    if group <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {group}")
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {shape} and num_groups={group}")
    for nm, p in (("weight", weight), ("bias", bias)):
        if p is not None and (_tensor("native_group_norm", p, nm).ndim != 1 or p.shape[0] != C):
            raise RuntimeError(f"Expected {nm} to be a vector of size equal to the number of channels in input, "
                               f"but got {nm} of shape {list(p.shape)} and input of shape {shape}")
    t = _t()
    fmt = {4: t.channels_last, 5: t.channels_last_3d}.get(x.ndim) if not x.is_contiguous() else None
    if not x.is_contiguous() and (fmt is None or not x.is_contiguous(memory_format=fmt)):
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    pdt = _param_dtype(x, (weight, bias))
    if x.numel() != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    _norm_input("GroupNormKernelImpl", x)
    xs = _acc(x).reshape(N, group, (C // group) * HxW)
    mean = xs.mean(dim=2, keepdim=True)
    var = xs.var(dim=2, correction=0, keepdim=True)
    rstd = 1 / (var + eps).sqrt()
    y = ((xs - mean) * rstd).reshape(N, C, HxW)
    if weight is not None:
        y = y * weight.reshape(1, C, 1)
    if bias is not None:
        y = y + bias.reshape(1, C, 1)
    y = y.reshape(tuple(shape)).to(x.dtype)
    # (PyTorch's output: the input's memory format, row-major or channels-last)
    y = row_major(y) if fmt is None else y.contiguous(memory_format=fmt)
    return y, mean.reshape(N, group).to(pdt), rstd.reshape(N, group).to(pdt)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``torch.native_batch_norm(input, weight, bias, running_mean, running_var, training,
    momentum, eps)``: ``(out, save_mean, save_invstd)``. Training: the batch's per-channel mean
    and ``1 / sqrt(biased var + eps)`` (saved), the running statistics (when given) updated in
    place with ``momentum`` and the unbiased variance; evaluation: the running statistics
    normalise and the saved ones are empty. Only ``out`` is differentiable, as PyTorch's.

    >>> import strided.torch as torch
    >>> rm, rv = torch.zeros(1), torch.ones(1)
    >>> out, m, s = torch.native_batch_norm(torch.tensor([[1.0], [3.0]]), None, None, rm, rv, True, 0.5, 0.0)
    >>> out.tolist(), m.tolist(), s.tolist(), rm.tolist(), rv.tolist()
    ([[-1.0], [1.0]], [2.0], [1.0], [1.0], [1.5])
    """
    x = _tensor("native_batch_norm", input)
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if x.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(x.ndim, 1)}, "
                         f"{max(x.ndim, 1) - 1}], but got 1)")
    _norm_input("batch_norm", x)
    pdt = _param_dtype(x, (weight, bias, running_mean, running_var))
    c = x.shape[1]
    for nm, p in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if p is not None and _tensor("native_batch_norm", p, nm).numel() != c:
            # (PyTorch reads past a short parameter; strided refuses it)
            raise RuntimeError(f"native_batch_norm(): {nm} should contain {c} elements not {p.numel()}")
    t = _t()
    cs = (1, c) + (1,) * (x.ndim - 2)
    xs = _acc(x)
    if training:
        if x.numel() == 0:
            raise RuntimeError(f"input tensor must have at least one element, but got input_sizes = "
                               f"{list(x.shape)}")
        axes = (0,) + tuple(builtins.range(2, x.ndim))
        mean = xs.mean(dim=axes)
        var = xs.var(dim=axes, correction=0)
        invstd = 1 / (var + eps).sqrt()
        if running_mean is not None:
            n = x.numel() // c
            with t.no_grad():
                m = mean.detach()
                v = var.detach()
                unbiased = v * (n / (n - 1)) if n > 1 else t.full_like(v, math.nan)
                running_mean.copy_((m * momentum + running_mean.to(m.dtype) * (1 - momentum)).reshape(
                    running_mean.shape).to(running_mean.dtype))
                running_var.copy_((unbiased * momentum + running_var.to(v.dtype) * (1 - momentum)).reshape(
                    running_var.shape).to(running_var.dtype))
        y = (xs - mean.reshape(cs)) * invstd.reshape(cs)
        save = (mean.detach().to(pdt), invstd.detach().to(pdt))  # (no derivative, as PyTorch's)
    else:
        if running_mean is None:
            # Note: PyTorch 2.13 crashes here (a segmentation fault); evaluation needs them.
            raise RuntimeError("native_batch_norm(): running_mean and running_var must be given when training "
                               "is False")
        rm = _acc(running_mean).reshape(cs)
        rv = _acc(running_var).reshape(cs)
        y = (xs - rm) / (rv + eps).sqrt()
        save = (t.empty(0, dtype=pdt, device=x.device), t.empty(0, dtype=pdt, device=x.device))
    if weight is not None:
        y = y * weight.reshape(cs)
    if bias is not None:
        y = y + bias.reshape(cs)
    y = y.to(x.dtype)
    # (PyTorch's output: the input's memory format, row-major or channels-last)
    fmt = {4: t.channels_last, 5: t.channels_last_3d}.get(x.ndim)
    if not x.is_contiguous() and fmt is not None and x.is_contiguous(memory_format=fmt):
        return (y.contiguous(memory_format=fmt),) + save
    return (row_major(y),) + save


def native_dropout(input, p, train):
    """``torch.native_dropout(input, p, train)``: ``(out, mask)``; where ``train`` (or None)
    each element is kept with probability ``1 - p`` (``mask`` True) and scaled by
    ``1 / (1 - p)``, else ``out`` is a copy and ``mask`` all True.

    >>> import strided.torch as torch
    >>> out, mask = torch.native_dropout(torch.tensor([1.0, 2.0]), 0.0, True)
    >>> out.tolist(), mask.tolist()
    ([1.0, 2.0], [True, True])
    """
    x = _tensor("native_dropout", input)
    t = _t()
    if x.numel() == 0:  # (PyTorch's: the input itself, and a mask of its dtype)
        return x, t.empty_like(x)
    if train is None or train:
        p1m = 1.0 - p
        if not 0 <= p1m <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p1m:g}")
        if x.dtype.kind not in "fc":
            raise RuntimeError(f"result type Float can't be cast to the desired output type {_tname(x.dtype)}")
        scale = 0.0 if p1m == 0 else 1.0 / p1m
        mask = t.rand_like(x, dtype=t.float32) < p1m  # (x's layout, as PyTorch's empty_like)
        return x * mask * scale, mask
    return x.clone(), t.ones_like(x, dtype=t.bool)


_NO = object()


def native_norm(input, p=2, dim=_NO, keepdim=_NO, dtype=_NO):
    """``torch.native_norm``: PyTorch 2.13 has it for sparse tensors only and raises
    NotImplementedError for dense ones; strided has no sparse tensors, so it raises so.

    >>> import strided.torch as torch
    >>> torch.native_norm(torch.ones(2))
    Traceback (most recent call last):
    NotImplementedError: Could not run 'aten::native_norm' with arguments from the 'CPU' backend. ...
    """
    x = _tensor("native_norm", input)
    given = [a is not _NO for a in (dim, keepdim, dtype)]
    if any(given) and not all(given):
        raise TypeError("native_norm() received an invalid combination of arguments: expected (Tensor input, "
                        "Number p = 2) or (Tensor input, Number p, tuple of ints dim, bool keepdim, torch.dtype "
                        "dtype)")
    op = "aten::native_norm.ScalarOpt_dim_dtype" if all(given) else "aten::native_norm"
    backend = x.device.type.upper()
    raise NotImplementedError(f"Could not run '{op}' with arguments from the '{backend}' backend. This could be "
                              f"because the operator doesn't exist for this backend. '{op}' is only available "
                              f"for sparse tensors, which strided does not have.")


# --- convolution, ctc_loss, embedding_bag, unsafe_split_with_sizes ----------------------------

def _int_list(fname: str, arg: str, pos: int, v) -> list:
    if not isinstance(v, (list, tuple, _t().Size)) or not all(type(e) is int for e in v):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be tuple of ints, not "
                        f"{type(v).__name__}")
    return list(v)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``torch.convolution(input, weight, bias, stride, padding, dilation, transposed,
    output_padding, groups)``: the 1-, 2- or 3-d convolution (``transposed``: the transposed
    one) of a batched ``input``, the spatial dimensions from ``weight``'s; each of ``stride``,
    ``padding``, ``dilation``, ``output_padding`` a list of one value per dimension (or one for
    all). ``output_padding`` counts only where ``transposed``.

    >>> import strided.torch as torch
    >>> torch.convolution(torch.ones(1, 1, 3), torch.ones(1, 1, 2), None, [1], [0], [1], False, [0], 1).tolist()
    [[[2.0, 2.0]]]
    """
    x = _tensor("convolution", input)
    w = _tensor("convolution", weight, "weight")
    args = {nm: _int_list("convolution", nm, pos, v) for nm, pos, v in
            (("stride", 4, stride), ("padding", 5, padding), ("dilation", 6, dilation),
             ("output_padding", 8, output_padding))}
    if w.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    k = w.ndim - 2
    if k > 3:
        raise RuntimeError(f"convolution(): strided has 1-, 2- and 3-d convolutions; got a weight of {w.ndim} "
                           f"dimensions")
    for nm in ("stride", "padding", "dilation", "output_padding"):
        v = args[nm]
        if len(v) == 1:
            args[nm] = v * k
        elif len(v) != k:
            raise RuntimeError(f"expected {nm} to be a single integer value or a list of {k} values to match the "
                               f"convolution dimensions, but got {nm}={v}")
    if x.ndim != w.ndim:
        raise RuntimeError(f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight {list(w.shape)}, "
                           f"but got {x.ndim}-dimensional input of size {list(x.shape)} instead")
    if any(s <= 0 for s in args["stride"]):
        raise RuntimeError("non-positive stride is not supported")
    if any(s < 0 for s in args["padding"]):
        raise RuntimeError("negative padding is not supported")
    if any(s < 0 for s in args["output_padding"]):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in args["dilation"]):
        raise RuntimeError("dilation should be greater than zero")
    if type(groups) is not int:
        raise TypeError(f"convolution(): argument 'groups' (position 9) must be int, not {type(groups).__name__}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    F = _t().nn.functional
    st, pd, dl, op = (tuple(args[n]) for n in ("stride", "padding", "dilation", "output_padding"))
    if transposed:
        return getattr(F, f"conv_transpose{k}d")(x, w, bias, st, pd, op, groups, dl)
    if any(op) and _needs_history(x, w, bias):
        # (PyTorch computes this forward, and its backward raises)
        with _t().no_grad():
            y = getattr(F, f"conv{k}d")(x, w, bias, st, pd, dl, groups)
        return _no_derivative(tuple(a for a in (x, w, bias) if a is not None), (y,), RuntimeError(
            f"output_padding is not supported for non-transposed convolutions; got: {' '.join(map(str, op))}"))[0]
    return getattr(F, f"conv{k}d")(x, w, bias, st, pd, dl, groups)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    """``torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
    reduction=0, zero_infinity=False)``: ``nn.functional.ctc_loss`` with ATen's reduction
    number (1 mean, 2 sum, any other none; omitted, 0: PyTorch's binding reads ATen's
    default ``Mean`` as 0); the lengths both lists of ints or both tensors.

    >>> import strided.torch as torch
    >>> lp = torch.log(torch.full((2, 1, 2), 0.5))
    >>> torch.ctc_loss(lp, torch.tensor([[1]]), [2], [1], 0, 2)  # (-log 3/4: three alignments of 1/4)
    tensor(0.2877)
    """
    if type(reduction) is not int:
        raise TypeError(f"ctc_loss(): argument 'reduction' must be int, not {type(reduction).__name__}")
    if (type(input_lengths) is Array) != (type(target_lengths) is Array):
        raise TypeError("ctc_loss(): input_lengths and target_lengths must both be tuples of ints or both be "
                        "tensors")
    red = {1: "mean", 2: "sum"}.get(reduction, "none")
    return _t().nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, red,
                                       zero_infinity)


def _index_dtype(*xs):
    return _dtypes.int32 if all(x.dtype == _dtypes.int32 for x in xs) else _dtypes.int64


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``torch.embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, ...)``:
    ATen's op, four results ``(output, offset2bag, bag_size, max_indices)``: ``output`` is
    ``nn.functional.embedding_bag``'s (``mode`` 0 sum, 1 mean, 2 max; a negative
    ``padding_idx`` counts from the end), the others what PyTorch's CPU kernel keeps for
    backward: each index's bag (empty for its fast float32 sum), the bags' sizes without
    ``padding_idx`` (zeros for sum), and for max the row each maximum came from (else a
    copy of ``bag_size``).

    >>> import strided.torch as torch
    >>> w = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    >>> out, o2b, size, imax = torch.embedding_bag(w, torch.tensor([0, 1, 2]), torch.tensor([0, 2]), False, 2)
    >>> out.tolist(), o2b.tolist(), size.tolist(), imax.tolist()
    ([[1.0, 1.0], [2.0, 2.0]], [0, 0, 1], [2, 1], [[0, 1], [2, 2]])
    """
    w = _tensor("embedding_bag", weight, "weight")
    idx = _tensor("embedding_bag", indices, "indices")
    if type(offsets) is not Array:
        raise TypeError(f"embedding_bag(): argument 'offsets' (position 3) must be Tensor, not "
                        f"{type(offsets).__name__}")
    if type(mode) is not int:
        raise TypeError(f"embedding_bag(): argument 'mode' must be int, not {type(mode).__name__}")
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    for nm, a in (("indices", idx), ("offsets", offsets)):
        if a.dtype not in (_dtypes.int32, _dtypes.int64):
            raise RuntimeError(f"Expected tensor for argument #1 '{nm}' to have one of the following scalar types: "
                               f"Long, Int; but got {_tname(a.dtype)} instead (while checking arguments for "
                               f"embedding_bag)")
    if idx.ndim != 1:
        raise RuntimeError(f"embedding_bag(): indices must be 1-D at torch.embedding_bag (2-D bags are "
                           f"nn.functional.embedding_bag's); got {idx.ndim} dimensions")
    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    if per_sample_weights is not None and per_sample_weights.dtype != w.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {w.dtype.name} does not equal "
                           f"{per_sample_weights.dtype.name} (while checking arguments for embedding_bag)")
    rows_n = w.shape[0]
    if padding_idx is not None:
        if not -rows_n <= padding_idx < rows_n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{rows_n} through "
                               f"{rows_n - 1}, but got {padding_idx}")
        padding_idx %= rows_n
    if offsets.ndim != 1 or offsets.shape[0] == 0:
        raise RuntimeError(f"embedding_bag(): offsets must be a 1-D tensor of at least one offset; got shape "
                           f"{tuple(offsets.shape)}")
    t = _t()
    F = t.nn.functional
    kind = ("sum", "mean", "max")[mode]
    n = idx.shape[0]
    dev = w.device
    idt = _index_dtype(idx, offsets)
    offs = [int(v) for v in offsets.tolist()]
    nbags = len(offs) - 1 if include_last_offset else len(offs)
    if mode != 2:
        out = F.embedding_bag(idx, w, offsets, scale_grad_by_freq=scale_grad_by_freq, mode=kind, sparse=sparse,
                              per_sample_weights=per_sample_weights, include_last_offset=include_last_offset,
                              padding_idx=padding_idx)
    else:
        # (the checks of F's; its max is NaN for a NaN anywhere in the bag, PyTorch's kernel
        # keeps the first of a bag's values unless a later one is greater)
        F.embedding_bag(idx, w.detach(), offsets, mode="max", scale_grad_by_freq=scale_grad_by_freq,
                        sparse=sparse, include_last_offset=include_last_offset, padding_idx=padding_idx)
    # each index's bag: the number of offsets at or before it, less one (ATen's make_offset2bag)
    bag_of = [0] * n
    j = 0
    for i in builtins.range(n):
        while j + 1 < len(offs) and offs[j + 1] <= i:
            j += 1
        bag_of[i] = j
    fast_sum = (mode == 0 and w.dtype in (_dtypes.float32, _dtypes.float16) and w.stride(1) == 1
                and padding_idx is None and (per_sample_weights is None or per_sample_weights.stride(0) == 1))
    offset2bag = t.tensor([] if fast_sum else bag_of, dtype=idt, device=dev)
    if mode == 0:  # (zeros: one per offset, or per bag where weight requires grad: ATen's two paths)
        zeros = t.zeros(nbags if w.requires_grad else len(offs), dtype=idt, device=dev)
        return out, offset2bag, zeros, zeros.clone()
    bag_t = t.tensor(bag_of, dtype=t.int64, device=dev)
    keep = t.ones(n, dtype=t.bool, device=dev) if padding_idx is None else idx != padding_idx
    size = t.zeros(nbags, dtype=t.int64, device=dev).index_add(0, bag_t, keep.to(t.int64)) if n else \
        t.zeros(nbags, dtype=t.int64, device=dev)
    size = size.to(idt)
    if mode == 1:
        return out, offset2bag, size, size.clone()
    dim = w.shape[1]
    lengths = [(offs[b + 1] if b + 1 < len(offs) else n) - offs[b] for b in builtins.range(nbags)]
    lmax = max(lengths, default=0)
    if lmax == 0 or dim == 0:
        out = t.zeros(nbags, dim, dtype=w.dtype, device=dev) + w.sum() * 0
        return out, offset2bag, size, t.zeros(nbags, dim, dtype=idt, device=dev)
    # a dense (bags, longest bag) table of positions into indices (n: none)
    table = [[n] * lmax for _ in builtins.range(nbags)]
    for i in builtins.range(n):
        b = bag_of[i]
        if b < nbags:
            table[b][i - offs[b]] = i
    table = t.tensor(table, dtype=t.int64, device=dev)
    idx_ext = t.cat([idx.to(t.int64), t.zeros(1, dtype=t.int64, device=dev)])
    keep_ext = t.cat([keep, t.zeros(1, dtype=t.bool, device=dev)])
    rows = idx_ext[table]  # (bags, lmax)
    valid = keep_ext[table]
    first = valid & (valid.to(t.int64).cumsum(1) == 1)
    vals = w.detach()[rows]  # (bags, lmax, dim)
    inf = t.full((), math.inf, dtype=w.dtype, device=dev)
    # the kernel's rule (x > current, from the first valid value) as an argmax: a NaN wins
    # only as the first value, a later NaN never; -inf marks what is not in the bag
    key = t.where(t.isnan(vals), t.where(first.unsqueeze(-1), inf, -inf), vals)
    key = t.where(valid.unsqueeze(-1), key, -inf)
    pos = key.argmax(1)  # (bags, dim): the first greatest
    first_pos = first.to(t.int64).argmax(1).unsqueeze(-1).expand(nbags, dim)
    pos = t.where(valid.gather(1, pos), pos, first_pos)  # (all -inf: the first valid one)
    imax = rows.gather(1, pos)  # (bags, dim): the rows of weight
    nonempty = (size > 0).unsqueeze(-1)
    imax = t.where(nonempty, imax, t.zeros((), dtype=t.int64, device=dev))
    cols = t.arange(dim, device=dev).unsqueeze(0).expand(nbags, dim)
    out = t.where(nonempty, w[imax, cols], t.zeros((), dtype=w.dtype, device=dev))
    return out, offset2bag, size, imax.to(idt)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``torch.unsafe_split_with_sizes(input, split_sizes, dim=0)``: ``split_with_sizes``
    (PyTorch's "unsafe" forms skip view tracking; strided's views are ordinary views).

    >>> import strided.torch as torch
    >>> [p.tolist() for p in torch.unsafe_split_with_sizes(torch.arange(5), [2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    x = _tensor("unsafe_split_with_sizes", input)
    sizes = _int_list("unsafe_split_with_sizes", "split_sizes", 2, split_sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={sizes}")
    return tuple(_t().split_with_sizes(x, sizes, dim))


def _unsafe_split_with_sizes_method(self, split_sizes, dim=0):
    """PyTorch's ``x.unsafe_split_with_sizes(split_sizes, dim=0)``: ``torch.unsafe_split_with_sizes``."""
    return unsafe_split_with_sizes(self, split_sizes, dim)


Array.solve = _solve_method
Array.lstsq = _lstsq_method
Array.eig = _eig_method
Array.symeig = _symeig_method
Array.geqrf = _geqrf_method
Array.orgqr = _orgqr_method
Array.ormqr = _ormqr_method
Array.unsafe_split_with_sizes = _unsafe_split_with_sizes_method
