"""Linear algebra functions of the main namespace, and PyTorch's extras.

The standard's ``matmul``, ``tensordot`` and ``vecdot`` (``matrix_transpose``
is a view, in ``_views``), plus PyTorch's ``einsum``, ``outer``, ``dot``,
``mm``, ``bmm``, ``diag`` and ``trace``. Operands promote through
``_dtypes.PROMOTION`` (an integer with a floating operand gives the floating
dtype, as in PyTorch); integer products are computed exactly in the promoted
integer dtype (wrapping on overflow). Every function returning one array takes
``out=``. This module also gives ``Array`` its ``@`` operators.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from .._core import dispatch as _dispatch, dtypes as _dtypes, layout as _layout
from .._core.array import _LATE, Array
from .creation import _as_dtype, _finish, wrap_new
from .._core.dispatch import api, check_devices
from .._core.dtypes import CATEGORIES, PROMOTION
from .views import clone, diagonal as _diagonal_view


__all__ = ["matmul", "tensordot", "vecdot", "einsum", "outer", "dot", "mm", "bmm", "diag", "trace"]


# --- helpers shared with strided.linalg ----------------------------------------

def check_array(x, func: str) -> None:
    if type(x) is not Array:
        raise TypeError(f"{func}(): expected a strided array; got {type(x).__name__}")


def promote_pair(func: str, x1, x2, category: str = "numeric"):
    """Natives of ``x1`` and ``x2`` cast to their promoted dtype, that dtype and the device."""
    check_array(x1, func)
    check_array(x2, func)
    dev = check_devices(func, x1, x2)
    d1, d2 = x1._dtype, x2._dtype
    allowed = CATEGORIES[category]
    if d1 not in allowed or d2 not in allowed:
        raise _dtypes.DTypeError(f"{func}() accepts only {category} data types; got {d1.name} and {d2.name}")
    dt = PROMOTION[d1, d2]
    return native_as(x1, dt), native_as(x2, dt), dt, dev


def native_as(x: Array, dt):
    """``x``'s native array (a view), cast to ``dt`` when it differs."""
    a = x._get_native()
    return a if a.dtype == dt._np else a.astype(dt._np)


def new_array(r, dtype, dev) -> Array:
    """Adopt a fresh native result, which may be a backend scalar (0-d results)."""
    if not isinstance(r, dev.backend.ndarray):
        r = dev.backend.xp.asarray(r)
    return wrap_new(r, dtype, dev)


def broadcast_batch(func: str, s1: tuple, s2: tuple) -> tuple:
    """Broadcast two batch shapes; the ValueError names ``func``."""
    try:
        return _layout.broadcast_shapes(s1, s2)
    except ValueError:
        raise _layout.ShapeError(f"{func}(): batch shapes {s1} and {s2} cannot be broadcast together") from None


def _check_ndim(func: str, x: Array, ndim: int, what: str) -> None:
    if x.ndim != ndim:
        raise _layout.ShapeError(f"{func}(): {what} must be {ndim}-D; got shape {x._shape}")


# --- matmul and the @ operators -------------------------------------------------

# Result bytes from which a product of matrices skips ndarray.dot's zero fill (below).
NO_FILL_BYTES = 32768
_BLAS_REAL = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def host_product(a, b):
    """``a @ b`` of two host NumPy arrays of one dtype, each 1-D or 2-D: ``ndarray.dot``,
    or ``numpy.matmul`` for a large product of blasable real matrices -- the same bits.

    Note: NumPy's ``dot`` (``cblas_matrixproduct``) zero-fills its result with ``memset``
    before BLAS overwrites it (``beta = 0``); ``matmul`` does not. For float32/float64
    matrices with every dimension > 1, aligned and C- or F-contiguous, both make the
    same BLAS call (``?gemm``, or ``?syrk`` for ``a @ a.T``) with the same arguments, so
    the same bits (tests/autograd/test_host_product.py checks it on the installed BLAS;
    they differ for non-blasable vector-shaped operands, where dot copies and matmul
    loops, and for complex k = 1): those stay on ``dot``. From NO_FILL_BYTES of result
    the fill costs more than ``matmul``'s call (the MLP step, 784-256-10, batch 128:
    ~2.2M of ~17.7M instructions per step were ``memset``); below it ``dot``'s cheaper
    call wins (4x4: ~0.3 vs ~0.9 us). ``autograd._fused.linear`` uses this too, so that
    ``nn.functional.linear`` and ``matmul`` keep giving the same bits."""
    if a.ndim == 2 and b.ndim == 2:
        m, k = a.shape
        n = b.shape[1]
        if m * n * a.itemsize >= NO_FILL_BYTES and m > 1 and n > 1 and k > 1 \
                and a.dtype in _BLAS_REAL and b.dtype == a.dtype:
            fa, fb = a.flags, b.flags
            if fa.aligned and fb.aligned and (fa.c_contiguous or fa.f_contiguous) \
                    and (fb.c_contiguous or fb.f_contiguous):
                return _np_matmul(a, b)
    return a.dot(b)


def matmul_shape(func: str, s1: tuple, s2: tuple) -> tuple:
    """The result shape of ``matmul`` (PEP 465); ValueError for incompatible shapes."""
    if not s1 or not s2:
        raise _layout.ShapeError(f"{func}(): both operands need at least one dimension; got shapes {s1} and {s2}")
    k1 = s1[-1]
    k2 = s2[-2] if len(s2) >= 2 else s2[0]
    if k1 != k2:
        raise _layout.ShapeError(f"{func}(): shapes {s1} and {s2} are not aligned: the contracted "
                         f"dimensions have sizes {k1} and {k2}")
    batch = broadcast_batch(func, s1[:-2], s2[:-2])
    return batch + s1[-2:-1] + s2[-1:] if len(s2) >= 2 else batch + s1[-2:-1]


@api("matmul")
def matmul(x1, x2, /, *, out=None) -> Array:
    """Matrix product (the ``@`` operator): stacks broadcast, 1-D operands act as vectors.

    >>> import strided as xp
    >>> xp.matmul(xp.asarray([[1, 2], [3, 4]]), xp.asarray([1, 1])).tolist()
    [3, 7]
    """
    if type(x1) is Array and type(x2) is Array and x1._dtype is x2._dtype \
            and x1._device is x2._device and x1._dtype.kind != "b":
        # Fast path (one dtype, one device): the backend checks the shapes.
        dt, dev = x1._dtype, x1._device
        a = x1._np if x1._np is not None else x1._get_native()
        b = x2._np if x2._np is not None else x2._get_native()
        backend = dev._backend or dev.backend
        try:
            if dev.type == "cpu":  # no device context to enter
                # Note: for matrices and vectors, ndarray.dot is the same product as
                # matmul (no stacks to broadcast) at a third of its call cost (4x4:
                # ~300 vs ~900 ns); both hand large float products to BLAS. A large
                # product of blasable matrices goes to matmul (host_product).
                r = host_product(a, b) if 0 < a.ndim <= 2 and 0 < b.ndim <= 2 else _np_matmul(a, b)
            else:
                with backend.ctx(dev):
                    r = backend.xp.matmul(a, b)
        except ValueError:
            matmul_shape("matmul", x1._shape, x2._shape)  # raises our error
            raise
        if out is None:
            if type(r) is not backend.ndarray:  # (vectors: NumPy's dot gives a scalar)
                r = backend.xp.asarray(r)
            return Array._new(r, None, 0, r.shape, None, dt, dev)
    else:
        a, b, dt, dev = promote_pair("matmul", x1, x2)
        matmul_shape("matmul", x1._shape, x2._shape)
        with dev.backend.ctx(dev):
            r = dev.backend.xp.matmul(a, b)
    return _finish(new_array(r, dt, dev), "matmul", out)


def _matmul_op(self, other):
    if type(other) is not Array:
        if type(other) is not np.ndarray:
            return NotImplemented
        return matmul(self, _LATE["ndarray_operand"](other, self._device))  # the mixing rule
    if self._ext is None and other._ext is None:
        return _matmul_impl(self, other)  # no extension: straight to the function's body
    return matmul(self, other)


_np_matmul = np.matmul


def _rmatmul_op(self, other):
    if type(other) is not Array:
        return NotImplemented
    return matmul(other, self)


def _imatmul_op(self, other):
    # Note: ``x @= y`` writes into ``x``; ``out=`` raises when the product's
    # shape differs from x's (the standard forbids an in-place shape change).
    if type(other) is np.ndarray:
        other = _LATE["ndarray_operand"](other, self._device)  # the mixing rule
    elif type(other) is not Array:
        return NotImplemented
    matmul(self, other, out=self)
    return self


_matmul_impl = matmul._impl
Array.__matmul__ = _matmul_op
Array.__rmatmul__ = _rmatmul_op
Array.__imatmul__ = _imatmul_op

if _dispatch.CHOT is not None:
    # The compiled hot path (strided/_csrc/_chot.c) of ``a @ b`` and ``matmul(a, b)``: matrices
    # and vectors of one non-bool dtype, small, on the CPU -- numpy.dot, as the fast path
    # above; anything else calls the Python definitions above.
    _MATMUL_TABLE = [[None if d.kind == "b" else d for d in sorted(_dtypes.ALL_DTYPES, key=lambda d: d._index)],
                     np.dot]
    assert all(d._index == i for i, d in enumerate(sorted(_dtypes.ALL_DTYPES, key=lambda d: d._index)))
    # (kimpl: two Arrays, one with an extension, go from C to the namespace's matmul, as
    # ``_matmul_op`` sends them: a recorded ``x @ W`` without that frame)
    Array.__matmul__ = _dispatch.CHOT.Fast(_matmul_op, 3, _MATMUL_TABLE, kimpl=matmul)
    matmul = _dispatch.CHOT.Fast(matmul, 3, _MATMUL_TABLE)


# --- tensordot, vecdot, einsum ---------------------------------------------------

def _tensordot_axes(s1: tuple, s2: tuple, axes) -> tuple:
    n1, n2 = len(s1), len(s2)
    if isinstance(axes, bool):
        raise TypeError("tensordot(): axes must be an int or a pair of sequences of ints; got a bool")
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError(f"tensordot(): axes must be a pair (x1_axes, x2_axes); got {axes!r}")
        a1, a2 = axes
        a1 = (a1,) if not isinstance(a1, (tuple, list)) else a1
        a2 = (a2,) if not isinstance(a2, (tuple, list)) else a2
        if len(a1) != len(a2):
            raise _layout.ArgumentError(f"tensordot(): x1_axes and x2_axes differ in length: {tuple(a1)} and {tuple(a2)}")
        a1 = tuple(_layout.normalize_axis(a, n1, "tensordot") for a in a1)
        a2 = tuple(_layout.normalize_axis(a, n2, "tensordot") for a in a2)
        for a, orig in ((a1, axes[0]), (a2, axes[1])):
            if len(set(a)) != len(a):
                raise _layout.ArgumentError(f"tensordot(): repeated axis in {orig!r}")
    else:
        try:
            n = operator.index(axes)
        except TypeError:
            raise TypeError(f"tensordot(): axes must be an int or a pair of sequences of ints; "
                            f"got {type(axes).__name__}") from None
        if n < 0:
            raise ValueError(f"tensordot(): axes must be nonnegative; got {n}")
        if n > n1 or n > n2:
            raise ValueError(f"tensordot(): can't contract {n} axes of arrays with shapes {s1} and {s2}")
        a1, a2 = tuple(range(n1 - n, n1)), tuple(range(n))
    for i, j in zip(a1, a2):
        if s1[i] != s2[j]:
            # Note: the standard forbids broadcasting contracted axes.
            raise ValueError(f"tensordot(): axis {i} of x1 (size {s1[i]}) and axis {j} of x2 "
                             f"(size {s2[j]}) differ in size; shapes {s1} and {s2}")
    return a1, a2


@api("tensordot")
def tensordot(x1, x2, /, *, axes=2, out=None) -> Array:
    """Contract ``x1`` and ``x2`` over ``axes`` (an int N: x1's last N with x2's first N).

    >>> import strided as xp
    >>> xp.tensordot(xp.ones((2, 3)), xp.ones((3, 4)), axes=1).shape
    strided.Size([2, 4])
    """
    a, b, dt, dev = promote_pair("tensordot", x1, x2)
    ax = _tensordot_axes(x1._shape, x2._shape, axes)
    with dev.backend.ctx(dev):
        r = dev.backend.xp.tensordot(a, b, axes=ax)
    return _finish(new_array(r, dt, dev), "tensordot", out)


@api("vecdot")
def vecdot(x1, x2, /, *, axis=-1, out=None) -> Array:
    """Dot products of vectors along ``axis``: ``sum(conj(x1) * x2, axis)``, batch dims broadcast.

    >>> import strided as xp
    >>> xp.vecdot(xp.asarray([1j, 2j]), xp.asarray([1, 1j])).item()
    (2-1j)
    """
    if type(x1) is Array and type(x2) is Array and out is None and type(axis) is builtins.int \
            and axis == -1:
        # The common call (one real dtype, one host device, one shape, the last axis): what
        # the checks below let through, NumPy's vecdot as there, without their frames (10
        # elements: 43.6k -> 18.7k instructions a call; NumPy's 9.3k)
        dt, dev = x1._dtype, x1._device
        if x2._dtype is dt and x2._device is dev and dt.kind in "iuf" and dev.type == "cpu" \
                and x1._shape == x2._shape and x1._shape:
            r = np.vecdot(x1._get_native(), x2._get_native())
            # (new_array's adoption inline: its two frames were 1.5k of the 18.7k)
            return wrap_new(r if type(r) is np.ndarray else np.asarray(r), dt, dev)
    a, b, dt, dev = promote_pair("vecdot", x1, x2)
    s1, s2 = x1._shape, x2._shape
    nmin = min(len(s1), len(s2))
    if nmin == 0:
        raise ValueError(f"vecdot(): both operands need at least one dimension; got shapes {s1} and {s2}")
    if type(axis) is builtins.bool:  # an index, but never an axis
        raise TypeError(f"vecdot(): axis must be an int; got bool")
    ax = operator.index(axis)
    nd = max(len(s1), len(s2))
    # Note: the standard asks for a negative axis; a nonnegative one counts in
    # the broadcast shape, as in PyTorch.
    neg = ax - nd if ax >= 0 else ax
    if not -nmin <= neg <= -1:
        raise IndexError(f"vecdot(): axis {axis} is out of bounds for shapes {s1} and {s2}")
    if s1[neg] != s2[neg]:
        raise ValueError(f"vecdot(): the contracted axis has sizes {s1[neg]} and {s2[neg]} "
                         f"(shapes {s1} and {s2}); it is not broadcast")
    broadcast_batch("vecdot", s1[:neg] + s1[len(s1) + neg + 1:], s2[:neg] + s2[len(s2) + neg + 1:])
    xp = dev.backend.xp
    if xp is np and dt.kind != "c":
        # NumPy's vecdot: its loop is the dot that matmul runs for (1, n) @ (n, 1) (the same
        # bits: tests/_api/test_vector_products14.py), without the views, the moved axes and
        # matmul's 1 x 1 core. (Not complex: its conjugating dot differs from matmul's of the
        # conjugate in the last bit on reversed operands.)
        return _finish(new_array(np.vecdot(a, b, axis=neg), dt, dev), "vecdot", out)
    with dev.backend.ctx(dev):
        if neg != -1:  # (moveaxis to where it is: ~6 us of nothing each, NumPy's Python)
            a, b = xp.moveaxis(a, neg, -1), xp.moveaxis(b, neg, -1)
        a = a[..., None, :]
        b = b[..., :, None]
        if dt.kind == "c":
            a = xp.conj(a)
        r = xp.matmul(a, b)[..., 0, 0]
    return _finish(new_array(r, dt, dev), "vecdot", out)


@api("einsum")
def einsum(subscripts, *operands, out=None) -> Array:
    """Einstein summation (``einsum("ij,jk->ik", a, b)``), contraction order optimised.

    Operands promote to one dtype; ``einsum(subscripts, [a, b])`` works too.

    >>> import strided as xp
    >>> xp.einsum("ii", xp.asarray([[1, 2], [3, 4]])).item()
    5
    """
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum(): subscripts must be a str; got {type(subscripts).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum(): needs at least one operand")
    for x in operands:
        check_array(x, "einsum")
    dev = check_devices("einsum", *operands)
    dt = operands[0]._dtype
    for x in operands:
        dt = PROMOTION[dt, x._dtype]
    # Note: a bool operand joins numeric ones by promotion, as in NumPy and PyTorch
    # (xarray's weighted reductions contract a bool mask with the weights).
    _dtypes.check_category("einsum", dt, "numeric")
    natives = [native_as(x, dt) for x in operands]
    xp = dev.backend.xp
    with dev.backend.ctx(dev):
        try:
            # Row-major, as NumPy's einsum without optimize and PyTorch's (optimize=True's
            # tensordot steps leave "ij,jk->ik" column-major: view() of it failed)
            r = xp.einsum(subscripts, *natives, optimize=True, **({"order": "C"} if xp is np else {}))
        except ValueError as e:
            raise ValueError(f"einsum(): {e} (subscripts {subscripts!r}, shapes "
                             f"{', '.join(str(x._shape) for x in operands)})") from None
        if isinstance(r, xp.ndarray) and any(xp.may_share_memory(r, a) for a in natives):
            r = r.copy()  # einsum returns views for pure transpositions/diagonals
        elif xp is not np and isinstance(r, xp.ndarray) and not r.flags.c_contiguous:
            r = xp.ascontiguousarray(r)  # (CuPy's einsum has no order)
    return _finish(new_array(r, dt, dev), "einsum", out)


# --- PyTorch's products ----------------------------------------------------------

@api("outer")
def outer(x1, x2, /, *, out=None) -> Array:
    """Outer product of two 1-D arrays: ``out[i, j] = x1[i] * x2[j]``."""
    a, b, dt, dev = promote_pair("outer", x1, x2)
    _check_ndim("outer", x1, 1, "x1")
    _check_ndim("outer", x2, 1, "x2")
    with dev.backend.ctx(dev):
        r = dev.backend.xp.multiply(a[:, None], b[None, :])
    return _finish(new_array(r, dt, dev), "outer", out)


@api("dot")
def dot(x1, x2, /, *, out=None) -> Array:
    """Inner product of two 1-D arrays of one length (no conjugation; see ``vecdot``)."""
    a, b, dt, dev = promote_pair("dot", x1, x2)
    _check_ndim("dot", x1, 1, "x1")
    _check_ndim("dot", x2, 1, "x2")
    if x1._shape != x2._shape:
        raise _layout.ShapeError(f"dot(): the vectors differ in length: {x1._shape[0]} and {x2._shape[0]}")
    with dev.backend.ctx(dev):
        r = dev.backend.xp.dot(a, b)
    return _finish(new_array(r, dt, dev), "dot", out)


@api("mm")
def mm(x1, x2, /, *, out=None) -> Array:
    """Product of two 2-D matrices (no broadcasting)."""
    a, b, dt, dev = promote_pair("mm", x1, x2)
    _check_ndim("mm", x1, 2, "x1")
    _check_ndim("mm", x2, 2, "x2")
    matmul_shape("mm", x1._shape, x2._shape)
    with dev.backend.ctx(dev):
        r = dev.backend.xp.matmul(a, b)
    return _finish(new_array(r, dt, dev), "mm", out)


@api("bmm")
def bmm(x1, x2, /, *, out=None) -> Array:
    """Batched product of 3-D arrays ``(b, n, m) @ (b, m, p)``; the batch sizes must match."""
    a, b, dt, dev = promote_pair("bmm", x1, x2)
    _check_ndim("bmm", x1, 3, "x1")
    _check_ndim("bmm", x2, 3, "x2")
    if x1._shape[0] != x2._shape[0]:
        raise ValueError(f"bmm(): batch sizes differ: shapes {x1._shape} and {x2._shape} (bmm does not broadcast)")
    matmul_shape("bmm", x1._shape, x2._shape)
    with dev.backend.ctx(dev):
        r = dev.backend.xp.matmul(a, b)
    return _finish(new_array(r, dt, dev), "bmm", out)


@api("diag")
def diag(x, /, diagonal=0, *, out=None) -> Array:
    """A 1-D array gives a matrix with it on diagonal ``diagonal``; a 2-D array gives a copy of that diagonal.

    >>> import strided as xp
    >>> xp.diag(xp.asarray([1, 2])).tolist()
    [[1, 0], [0, 2]]
    """
    check_array(x, "diag")
    k = operator.index(diagonal)
    if x.ndim == 2:
        return _finish(clone(_diagonal_view(x, offset=k)), "diag", out)
    if x.ndim != 1:
        raise _layout.ShapeError(f"diag(): expects a 1-D or 2-D array; got shape {x._shape}")
    dev = x._device
    with dev.backend.ctx(dev):
        r = dev.backend.xp.diag(x._get_native(), k)
    return _finish(new_array(r, x._dtype, dev), "diag", out)


def trace_dtype(func: str, x: Array, dtype):
    """The accumulation dtype of a trace: ``dtype``, else x's with small integers widened."""
    dtype = _as_dtype(dtype, func)
    if dtype is not None:
        if x._dtype.kind == "c" and dtype.kind != "c":
            raise TypeError(f"{func}(): can't sum complex {x._dtype.name} values as {dtype.name}")
        return dtype
    k = x._dtype.kind
    if k in "bi":
        return _dtypes.int64
    if k == "u":
        return _dtypes.uint64
    return x._dtype


def sum_diagonal(x: Array, offset: int, dtype) -> Array:
    """Sum of diagonal ``offset`` of the last two axes, accumulated in ``dtype``."""
    d = _diagonal_view(x, offset=offset)
    dev = x._device
    with dev.backend.ctx(dev):
        r = dev.backend.xp.sum(d._get_native(), axis=-1, dtype=dtype._np)
    return new_array(r, dtype, dev)


@api("trace")
def trace(x, /, *, out=None) -> Array:
    """Sum of the main diagonal of a 2-D array (PyTorch: integers and bools sum as int64)."""
    check_array(x, "trace")
    _check_ndim("trace", x, 2, "x")
    return _finish(sum_diagonal(x, 0, trace_dtype("trace", x, None)), "trace", out)
