"""The Array API ``linalg`` extension (``strided.linalg``).

All functions act on stacks: the last two axes hold the matrices (the last
axis the vectors) and leading axes are batch axes. Factorisations run on the
backend's LAPACK (``numpy.linalg`` on the CPU, ``cupy.linalg`` on CUDA).

- Floating-point functions reject integer and boolean inputs with TypeError;
  results keep the input's precision (float32 in, float32 out). float16 is
  computed in float32 (LAPACK has no half precision) and cast back.
- A matrix that the factorisation cannot handle — a singular matrix in
  ``inv`` or ``solve``, a matrix that is not positive-definite in
  ``cholesky`` — raises ``strided.linalg.LinAlgError`` (a ValueError) on the
  CPU. ``det`` and ``slogdet`` of a singular matrix give 0 and (0, -inf).
  Nearly singular matrices are not detected: their results are large.
- Functions returning one array take ``out=``; factorisations return named
  tuples.
"""

from __future__ import annotations

import builtins
import contextlib
import math
import operator
from typing import NamedTuple

import numpy as np

from ._core import device as _device, dtypes as _dtypes, layout as _layout
from ._core.array import Array
from ._core.backends._numpy import NumpyBackend as _NumpyBackend
from ._api.creation import _finish
from ._core.dispatch import api, check_devices
from ._core.dtypes import CATEGORIES
from ._api.linalg_functions import (
    broadcast_batch, check_array, matmul, new_array, outer, promote_pair, sum_diagonal,
    tensordot, trace_dtype, vecdot,
)
from ._api.views import diagonal as _diagonal_view, matrix_transpose, moveaxis

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
    "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
    "vector_norm", "LinAlgError",
]


class LinAlgError(ValueError):
    """A factorisation failed on its input: a singular matrix, or one that is not positive-definite."""


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


# --- helpers ----------------------------------------------------------------------

def _floating(x, func: str):
    """x's native array in a dtype LAPACK computes in (float16 -> float32)."""
    check_array(x, func)
    if x._dtype.kind not in "fc":
        raise _dtypes.DTypeError(f"linalg.{func}() accepts only floating-point data types; got {x._dtype.name}")
    a = x._get_native()
    if x._dtype is _dtypes.float16:
        a = a.astype(np.float32)  # Note: LAPACK has no half precision.
    return a


def _matrix(x, func: str, square: bool = False):
    a = _floating(x, func)
    if x.ndim < 2:
        raise ValueError(f"linalg.{func}() needs an array of at least 2 dimensions (matrices); got shape {x._shape}")
    if square and x._shape[-1] != x._shape[-2]:
        raise ValueError(f"linalg.{func}() needs square matrices; got shape {x._shape}")
    return a


@contextlib.contextmanager
def _lapack_ctx(func: str, dev):
    """Run a backend factorisation on ``dev``, turning its LinAlgError into ours."""
    with dev.backend.ctx(dev):
        try:
            with dev.backend.lapack(func):
                yield dev.backend.xp
        except np.linalg.LinAlgError as e:
            raise _linalg_error(func, e) from None


def _linalg_error(func: str, e) -> LinAlgError:
    msg = str(e)
    return LinAlgError(f"linalg.{func}(): {msg[:1].lower()}{msg[1:]}")


class _HostLapack:
    """``_lapack_ctx`` on the host, where NumPy's backend has a null device context and a
    null ``lapack`` context: only NumPy's LinAlgError turned into ours. Stateless, one per
    function name. (A class, not a generator: a factorisation of a small matrix -- a 20x20
    ``cholesky`` or ``solve``, 7-14 us in NumPy -- paid ~2 us for the generator's frames.)"""

    __slots__ = ("func",)

    def __init__(self, func: str):
        self.func = func

    def __enter__(self):
        return np

    def __exit__(self, et, e, tb):
        if et is not None and issubclass(et, np.linalg.LinAlgError):
            raise _linalg_error(self.func, e) from None
        return False


_HOST_LAPACK: dict = {}


def _lapack(func: str, dev):
    """Run a backend factorisation on ``dev``, turning its LinAlgError into ours; the
    context gives the backend's array module."""
    backend = dev.backend
    if backend.xp is np and type(backend) is _NumpyBackend:
        ctx = _HOST_LAPACK.get(func)
        if ctx is None:
            ctx = _HOST_LAPACK[func] = _HostLapack(func)
        return ctx
    return _lapack_ctx(func, dev)


_CPU = _device.CPU
_F32, _F64 = _dtypes.float32, _dtypes.float64
_np_abs, _np_sqrt, _np_add_reduce = np.abs, np.sqrt, np.add.reduce
try:
    from ._core.threads import sq_dev_reduce as _sq_dev_reduce, sum_sq_all as _sum_sq_all
except ImportError:  # (no such functions without the C kernels' module: the ufuncs answer)
    _sq_dev_reduce = _sum_sq_all = None
_new_array = Array._new


def _real(dt):
    return _dtypes.real_of(dt)


def _svdvals(xp, a):
    return xp.linalg.svd(a, compute_uv=False)


def _tolerance(func: str, x: Array, rtol, smax, dev):
    """``rtol * largest singular value`` as a native array broadcasting against S."""
    xp = dev.backend.xp
    rdt = _real(x._dtype)
    if rtol is None:
        rtol = max(x._shape[-2:]) * float(np.finfo(rdt._np).eps)
    elif type(rtol) is Array:
        check_devices(f"linalg.{func}", x, rtol)
        if rtol._dtype not in CATEGORIES["real floating-point"]:
            raise TypeError(f"linalg.{func}(): rtol must have a real floating-point data type; "
                            f"got {rtol._dtype.name}")
        broadcast_batch(f"linalg.{func}", x._shape[:-2], rtol._shape)
        rtol = rtol._get_native()[..., None]
    elif isinstance(rtol, (builtins.int, builtins.float)) and not isinstance(rtol, builtins.bool):
        rtol = float(rtol)
    else:
        raise TypeError(f"linalg.{func}(): rtol must be a float, an array or None; got {type(rtol).__name__}")
    return xp.multiply(rtol, smax)


# --- decompositions ---------------------------------------------------------------

@api("linalg.cholesky")
def cholesky(x, /, *, upper=False, out=None) -> Array:
    """Cholesky factor of Hermitian positive-definite matrices: lower ``L`` (x = L L^H) or upper ``U``.

    >>> import strided as xp
    >>> xp.linalg.cholesky(xp.asarray([[4., 2.], [2., 5.]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    a = _matrix(x, "cholesky", square=True)
    dev = x._device
    with _lapack("cholesky", dev) as xp:
        r = xp.linalg.cholesky(a)
        if upper:
            r = xp.conj(xp.swapaxes(r, -1, -2))
    return _finish(new_array(r, x._dtype, dev), "linalg.cholesky", out)


@api("linalg.qr")
def qr(x, /, *, mode="reduced") -> QRResult:
    """QR decomposition ``x = Q R`` (``mode`` 'reduced' or 'complete'); a named tuple ``(Q, R)``."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr(): mode must be 'reduced' or 'complete'; got {mode!r}")
    a = _matrix(x, "qr")
    dev = x._device
    with _lapack("qr", dev) as xp:
        q, r = xp.linalg.qr(a, mode=mode)
    return QRResult(new_array(q, x._dtype, dev), new_array(r, x._dtype, dev))


@api("linalg.svd")
def svd(x, /, *, full_matrices=True) -> SVDResult:
    """Singular value decomposition ``x = U diag(S) Vh``; S descending; a named tuple ``(U, S, Vh)``."""
    a = _matrix(x, "svd")
    dev = x._device
    with _lapack("svd", dev) as xp:
        u, s, vh = xp.linalg.svd(a, full_matrices=builtins.bool(full_matrices))
    dt = x._dtype
    return SVDResult(new_array(u, dt, dev), new_array(s, _real(dt), dev), new_array(vh, dt, dev))


@api("linalg.svdvals")
def svdvals(x, /, *, out=None) -> Array:
    """Singular values of matrices, in descending order (real dtype of x's precision)."""
    a = _matrix(x, "svdvals")
    dev = x._device
    with _lapack("svdvals", dev) as xp:
        s = _svdvals(xp, a)
    return _finish(new_array(s, _real(x._dtype), dev), "linalg.svdvals", out)


@api("linalg.eigh")
def eigh(x, /) -> EighResult:
    """Eigenvalues (ascending, real) and eigenvectors (columns) of Hermitian/symmetric matrices.

    Only the lower triangle of each matrix is read.
    """
    a = _matrix(x, "eigh", square=True)
    dev = x._device
    with _lapack("eigh", dev) as xp:
        w, v = xp.linalg.eigh(a)
    return EighResult(new_array(w, _real(x._dtype), dev), new_array(v, x._dtype, dev))


@api("linalg.eigvalsh")
def eigvalsh(x, /, *, out=None) -> Array:
    """Eigenvalues (ascending, real) of Hermitian/symmetric matrices; reads the lower triangle."""
    a = _matrix(x, "eigvalsh", square=True)
    dev = x._device
    with _lapack("eigvalsh", dev) as xp:
        w = xp.linalg.eigvalsh(a)
    return _finish(new_array(w, _real(x._dtype), dev), "linalg.eigvalsh", out)


@api("linalg.eig")
def eig(x, /) -> EigResult:
    """Eigenvalues and eigenvectors (columns) of general square matrices, always complex."""
    a = _matrix(x, "eig", square=True)
    dev = x._device
    with _lapack("eig", dev) as xp:
        w, v = xp.linalg.eig(a)
    cdt = _dtypes.complex_of(x._dtype)
    return EigResult(new_array(w, cdt, dev), new_array(v, cdt, dev))


@api("linalg.eigvals")
def eigvals(x, /, *, out=None) -> Array:
    """Eigenvalues of general square matrices, always complex."""
    a = _matrix(x, "eigvals", square=True)
    dev = x._device
    with _lapack("eigvals", dev) as xp:
        w = xp.linalg.eigvals(a)
    return _finish(new_array(w, _dtypes.complex_of(x._dtype), dev), "linalg.eigvals", out)


# --- inverses and solvers ------------------------------------------------------------

@api("linalg.inv")
def inv(x, /, *, out=None) -> Array:
    """Inverse of square matrices; LinAlgError for a singular matrix."""
    a = _matrix(x, "inv", square=True)
    dev = x._device
    with _lapack("inv", dev) as xp:
        r = xp.linalg.inv(a)
    return _finish(new_array(r, x._dtype, dev), "linalg.inv", out)


@api("linalg.solve")
def solve(x1, x2, /, *, out=None) -> Array:
    """Solve ``x1 @ X = x2`` for square ``x1``; a 1-D ``x2`` of shape (M,) is one right-hand side.

    Batch axes broadcast. LinAlgError for a singular ``x1``.

    >>> import strided as xp
    >>> xp.linalg.solve(xp.asarray([[2., 0.], [0., 4.]]), xp.asarray([2., 2.])).tolist()
    [1.0, 0.5]
    """
    a, b, dt, dev = promote_pair("linalg.solve", x1, x2, "floating-point")
    s1, s2 = x1._shape, x2._shape
    if len(s1) < 2 or s1[-1] != s1[-2]:
        raise ValueError(f"linalg.solve(): x1 must be a stack of square matrices; got shape {s1}")
    m = s1[-1]
    if len(s2) == 0:
        raise ValueError("linalg.solve(): x2 must have at least one dimension; got a 0-d array")
    vector = len(s2) == 1
    if (s2[0] if vector else s2[-2]) != m:
        raise ValueError(f"linalg.solve(): x1 of shape {s1} and x2 of shape {s2} don't match: "
                         f"x2 needs {m} rows" + ("" if vector else " in its second-to-last axis"))
    if vector:
        b = b[:, None]
        batch = s1[:-2]
    else:
        batch = broadcast_batch("linalg.solve", s1[:-2], s2[:-2])
    if dt is _dtypes.float16:
        a, b = a.astype(np.float32), b.astype(np.float32)  # Note: LAPACK has no half precision.
    with _lapack("solve", dev) as xp:
        # (numpy.broadcast_to costs ~4 us a call in Python: skipped where the batch
        # axes already agree, as for two matrices)
        if a.shape[:-2] != batch:
            a = xp.broadcast_to(a, batch + (m, m))
        if b.shape[:-2] != batch:
            b = xp.broadcast_to(b, batch + b.shape[-2:])
        r = xp.linalg.solve(a, b)
    if vector:
        r = r[..., 0]
    return _finish(new_array(r, dt, dev), "linalg.solve", out)


@api("linalg.pinv")
def pinv(x, /, *, rtol=None, out=None) -> Array:
    """Moore-Penrose pseudo-inverse, through the SVD; singular values <= rtol * largest count as zero.

    ``rtol`` defaults to ``max(M, N) * eps``; an array ``rtol`` broadcasts against the batch axes.
    """
    a = _matrix(x, "pinv")
    dev = x._device
    *batch, m, n = x._shape
    with _lapack("pinv", dev) as xp:
        if m == 0 or n == 0:
            tol = _tolerance("pinv", x, rtol, xp.zeros(tuple(batch) + (1,), a.real.dtype), dev)
            r = xp.zeros(tol.shape[:-1] + (n, m), a.dtype)
        else:
            u, s, vh = xp.linalg.svd(a, full_matrices=False)
            tol = _tolerance("pinv", x, rtol, xp.max(s, axis=-1, keepdims=True), dev)
            keep = s > tol
            sinv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(s.dtype)
            v = xp.conj(xp.swapaxes(vh, -1, -2))
            uh = xp.conj(xp.swapaxes(u, -1, -2))
            r = xp.matmul(v * sinv[..., None, :], uh)
    return _finish(new_array(r, x._dtype, dev), "linalg.pinv", out)


@api("linalg.matrix_power")
def matrix_power(x, n, /, *, out=None) -> Array:
    """``x`` multiplied by itself ``n`` times; ``n = 0`` gives identities, ``n < 0`` powers of the inverse.

    Integer matrices are allowed for ``n >= 0`` (PyTorch).
    """
    check_array(x, "linalg.matrix_power")
    if isinstance(n, builtins.bool):
        raise TypeError("linalg.matrix_power(): n must be an int; got a bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"linalg.matrix_power(): n must be an int; got {type(n).__name__}") from None
    if n < 0:
        a = _matrix(x, "matrix_power", square=True)
    else:
        _dtypes.check_category("linalg.matrix_power", x._dtype, "numeric")
        if x.ndim < 2 or x._shape[-1] != x._shape[-2]:
            raise ValueError(f"linalg.matrix_power() needs square matrices; got shape {x._shape}")
        a = x._get_native()
    dev = x._device
    with _lapack("matrix_power", dev) as xp:
        if n == 0:
            r = xp.broadcast_to(xp.eye(x._shape[-1], dtype=a.dtype), x._shape).copy()
        else:
            if n < 0:
                a = xp.linalg.inv(a)
            r = None
            p = a
            k = abs(n)
            while True:  # binary exponentiation
                if k & 1:
                    r = p.copy() if r is None else xp.matmul(r, p)
                k >>= 1
                if not k:
                    break
                p = xp.matmul(p, p)
    return _finish(new_array(r, x._dtype, dev), "linalg.matrix_power", out)


# --- determinants, norms, rank ----------------------------------------------------

@api("linalg.det")
def det(x, /, *, out=None) -> Array:
    """Determinants of square matrices (0 for a singular matrix)."""
    a = _matrix(x, "det", square=True)
    dev = x._device
    with _lapack("det", dev) as xp:
        r = xp.linalg.det(a)
    return _finish(new_array(r, x._dtype, dev), "linalg.det", out)


@api("linalg.slogdet")
def slogdet(x, /) -> SlogdetResult:
    """Sign and log of the absolute determinant, a named tuple ``(sign, logabsdet)``; (0, -inf) when singular."""
    a = _matrix(x, "slogdet", square=True)
    dev = x._device
    with _lapack("slogdet", dev) as xp:
        sign, logabs = xp.linalg.slogdet(a)
    return SlogdetResult(new_array(sign, x._dtype, dev), new_array(logabs, _real(x._dtype), dev))


@api("linalg.matrix_rank")
def matrix_rank(x, /, *, rtol=None, out=None) -> Array:
    """Number of singular values above ``rtol * largest`` (default ``rtol``: ``max(M, N) * eps``); int64."""
    a = _matrix(x, "matrix_rank")
    dev = x._device
    with _lapack("matrix_rank", dev) as xp:
        if 0 in x._shape[-2:]:
            tol = _tolerance("matrix_rank", x, rtol, xp.zeros(x._shape[:-2] + (1,), a.real.dtype), dev)
            r = xp.zeros(tol.shape[:-1], dtype=np.int64)
        else:
            s = _svdvals(xp, a)
            tol = _tolerance("matrix_rank", x, rtol, xp.max(s, axis=-1, keepdims=True), dev)
            r = xp.count_nonzero(s > tol, axis=-1)
    return _finish(new_array(r, _dtypes.int64, dev), "linalg.matrix_rank", out)


@api("linalg.matrix_norm")
def matrix_norm(x, /, *, keepdims=False, ord="fro", out=None) -> Array:
    """Matrix norms of the last two axes: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf.

    The result is real, of x's precision. Every norm of an empty matrix is 0.
    """
    if type(ord) is str:
        valid = ord in ("fro", "nuc")
    else:
        valid = isinstance(ord, (builtins.int, builtins.float)) and not isinstance(ord, builtins.bool) \
            and ord in (1, -1, 2, -2, math.inf, -math.inf)
    if not valid:
        raise ValueError(f"linalg.matrix_norm(): ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; "
                         f"got {ord!r}")
    a = _matrix(x, "matrix_norm")
    dev = x._device
    batch = x._shape[:-2]
    with _lapack("matrix_norm", dev) as xp:
        if 0 in x._shape[-2:]:
            # Note: we define every norm of an empty matrix as 0 (the zero operator).
            r = xp.zeros(batch, dtype=a.real.dtype)
        elif ord == "fro":
            r = xp.sqrt(xp.sum(xp.square(xp.abs(a)), axis=(-2, -1)))
        elif ord in ("nuc", 2, -2):
            s = _svdvals(xp, a)
            r = xp.sum(s, axis=-1) if ord == "nuc" else (xp.max if ord == 2 else xp.min)(s, axis=-1)
        else:
            sums = xp.sum(xp.abs(a), axis=-2 if ord in (1, -1) else -1)
            r = (xp.max if ord > 0 else xp.min)(sums, axis=-1)
        if keepdims:
            r = xp.asarray(r)[..., None, None]
    return _finish(new_array(r, _real(x._dtype), dev), "linalg.matrix_norm", out)


def _sq_sum(a, axes):
    """The sum of ``a * a`` over ``axes`` (None: all) of a host float32/float64 ndarray in one
    pass (the C reductions' sum of squared deviations from 0: every square and every addition
    the ones ``add.reduce(abs(a) * abs(a), axes)`` makes, in NumPy's order, so the same bits),
    as an ndarray of the kept axes; None where the C kernel declines (another layout or dtype,
    a NaN sum) and the ufuncs answer."""
    if _sq_dev_reduce is None or type(a) is not np.ndarray:
        return None
    if axes is None or len(axes) == a.ndim:
        return _sum_sq_all(a)
    if a.dtype.kind != "f" or a.itemsize < 4:
        return None
    kept = () if axes is None else tuple(n for i, n in enumerate(a.shape) if i not in axes)
    return _sq_dev_reduce(a, None if axes is None or len(axes) == a.ndim else axes,
                          np.zeros(kept, a.dtype))


@api("linalg.vector_norm")
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2, out=None) -> Array:
    """Vector p-norms over ``axis`` (all axes by default): ord 2, 1, inf, -inf, 0 (count of nonzeros), any p.

    The result is real, of x's precision.

    >>> import strided as xp
    >>> xp.linalg.vector_norm(xp.asarray([3., -4.])).item()
    5.0
    """
    if axis is None and out is None and keepdims is False and type(x) is Array \
            and x._device is _CPU and (x._dtype is _F32 or x._dtype is _F64) and x._shape \
            and (type(ord) is builtins.int or type(ord) is builtins.float) and ord == 2:
        # Short path: the 2-norm of every element of a float32/float64 host array of one or
        # more dimensions, what the general path below ends in: the same NumPy ufuncs
        # (np.sum's own reduce, over the same axes), without its checks and context
        a = x._np if x._np is not None else x._get_native()
        r = _sq_sum(a, None)
        if r is None:
            m = _np_abs(a)
            r = _np_add_reduce(m * m, tuple(range(a.ndim)), keepdims=False)
        r = _np_sqrt(r)
        if type(r) is not np.ndarray:
            r = np.asarray(r)
        if r.dtype is not x._dtype._np:  # (wrap_new's test)
            r = r.astype(x._dtype._np)
        return _new_array(r, None, 0, r.shape, None, x._dtype, _CPU)
    check_array(x, "linalg.vector_norm")
    if x._dtype.kind not in "fc":
        raise _dtypes.DTypeError(f"linalg.vector_norm() accepts only floating-point data types; got {x._dtype.name}")
    if isinstance(ord, builtins.bool) or not isinstance(ord, (builtins.int, builtins.float)) or ord != ord:
        raise ValueError(f"linalg.vector_norm(): ord must be an int or a float (not nan); got {ord!r}")
    nd = x.ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        if isinstance(axis, (tuple, list)):
            axis = tuple(x._axis(a) for a in axis)
        else:
            axis = x._axis(axis)
        axes = _layout.normalize_axes(axis, nd, "linalg.vector_norm")
    dev = x._device
    xp = dev.backend.xp
    a = x._get_native()
    if x._dtype is _dtypes.float16:
        a = a.astype(np.float32)  # Note: accumulate half precision in float32.
    with dev.backend.ctx(dev):
        m = xp.abs(a)
        empty = any(x._shape[i] == 0 for i in axes)
        if ord == math.inf or ord == -math.inf:
            if empty:
                # Note: over no elements, max(|x|) is 0 and min(|x|) is inf.
                shape = tuple(1 if i in axes else n for i, n in enumerate(x._shape))
                r = xp.full(shape, 0.0 if ord > 0 else math.inf, dtype=m.dtype)
                r = r if keepdims else r.reshape(tuple(n for i, n in enumerate(shape) if i not in axes))
            else:
                r = (xp.max if ord > 0 else xp.min)(m, axis=axes, keepdims=keepdims)
        elif ord == 0:
            r = xp.sum(m != 0, axis=axes, keepdims=keepdims, dtype=m.dtype)
        elif ord == 1:
            r = xp.sum(m, axis=axes, keepdims=keepdims)
        elif ord == 2:
            s = _sq_sum(a, axes) if a.dtype.kind == "f" and not empty else None
            if s is None:
                s = xp.sum(m * m, axis=axes, keepdims=keepdims)
            elif keepdims:
                s = s.reshape(tuple(1 if i in axes else n for i, n in enumerate(x._shape)))
            r = xp.sqrt(s)
        else:
            p = float(ord)
            r = xp.power(xp.sum(xp.power(m, p), axis=axes, keepdims=keepdims), 1.0 / p)
        if type(r) is xp.ndarray and not r.flags.c_contiguous:
            r = r.copy(order="C")  # (a reduction's result is C-ordered, as PyTorch's)
    return _finish(new_array(r, _real(x._dtype), dev), "linalg.vector_norm", out)


# --- products and views over the last axes ----------------------------------------------

@api("linalg.cross")
def cross(x1, x2, /, *, axis=-1, out=None) -> Array:
    """Cross products of 3-element vectors along ``axis``; the other axes broadcast.

    >>> import strided as xp
    >>> xp.linalg.cross(xp.asarray([1, 0, 0]), xp.asarray([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    a, b, dt, dev = promote_pair("linalg.cross", x1, x2)
    s1, s2 = x1._shape, x2._shape
    nmin = min(len(s1), len(s2))
    ax = operator.index(axis)
    if not -nmin <= ax <= -1:
        raise IndexError(f"linalg.cross(): axis must be in [-{nmin}, -1] for shapes {s1} and {s2}; got {axis}")
    if s1[ax] != 3 or s2[ax] != 3:
        raise ValueError(f"linalg.cross(): the vectors along axis {axis} must have 3 elements; "
                         f"got shapes {s1} and {s2}")
    xp = dev.backend.xp
    with dev.backend.ctx(dev):
        a = xp.moveaxis(a, ax, -1)
        b = xp.moveaxis(b, ax, -1)
        batch = broadcast_batch("linalg.cross", a.shape[:-1], b.shape[:-1])
        r = xp.empty(batch + (3,), dtype=dt._np)
        for i, j, k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
            xp.subtract(a[..., j] * b[..., k], a[..., k] * b[..., j], out=r[..., i])
    return _finish(moveaxis(new_array(r, dt, dev), -1, ax), "linalg.cross", out)


@api("linalg.diagonal")
def diagonal(x, /, *, offset=0) -> Array:
    """Diagonal ``offset`` of the matrices in the last two axes (a view)."""
    check_array(x, "linalg.diagonal")
    if x.ndim < 2:
        raise ValueError(f"linalg.diagonal() needs at least 2 dimensions; got shape {x._shape}")
    return _diagonal_view(x, offset=operator.index(offset))


@api("linalg.trace")
def trace(x, /, *, offset=0, dtype=None, out=None) -> Array:
    """Sums of diagonal ``offset`` of the matrices in the last two axes.

    Without ``dtype``, signed integers narrower than int64 sum as int64 and
    unsigned ones as uint64; other dtypes are kept.
    """
    check_array(x, "linalg.trace")
    _dtypes.check_category("linalg.trace", x._dtype, "numeric")
    if x.ndim < 2:
        raise ValueError(f"linalg.trace() needs at least 2 dimensions; got shape {x._shape}")
    dt = trace_dtype("linalg.trace", x, dtype)
    return _finish(sum_diagonal(x, operator.index(offset), dt), "linalg.trace", out)

