"""PyTorch functions ``strided.torch`` still lacked: views and scatters of views (``as_strided``,
``diagonal_scatter``, ...), indexed writes (``index_put``, ``put``, ``index_reduce``), small
conveniences (``angle``, ``frexp``, ``adjoint``, ``split_with_sizes``, ...), PyTorch's process-wide
settings that scripts call at the top, and the in-place random samplers.

Each means what PyTorch 2.13's function of the same name means, composed of strided's own
namespace functions, views and methods (gradients, devices and dtypes come from those calls).
The one new view, ``as_strided``, is a namespace function (``@api("as_strided")``) with its own
derivative rule (``rule("as_strided", ...)``): the recorder then tracks its result as a view of its
input's root, as it does ``diagonal``'s or ``unfold``'s, so in-place writes through it rebase the
base's history. Writes into a caller's array go through ``__setitem__`` or ``copy_`` (the one
writer). The module reads strided's namespace only when a function runs (``_ns()``), because
``strided/__init__`` imports it half-way through its own initialisation (to attach Array's methods).
"""

from __future__ import annotations

import builtins
import math
import operator
import sys
import warnings

import numpy as np

from .._core import dtypes as _dtypes, layout as _layout
from .._core.array import Array
from .._core.dispatch import api as _api, method_signature as _method_signature
from .._api.creation import wrap_new as _wrap_new
from ..autograd._function import index_add as _grad_index_add
from ..autograd._record import rule as _rule
from ._checks import no_out as _no_out, tensor as _tensor

__all__ = [
    "angle", "frexp", "adjoint", "split_with_sizes", "unsafe_chunk", "unsafe_split",
    "diagonal_scatter", "select_scatter", "slice_scatter", "as_strided", "as_strided_scatter",
    "empty_strided", "index_put", "put", "index_reduce",
]


def _ns():
    return sys.modules["strided"]


def _int(name: str, arg: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) and not (
            type(v) is Array and v.ndim == 0 and v.dtype.kind in "iu"):
        raise TypeError(f"{name}(): argument {arg!r} must be an int; got {type(v).__name__}")
    return operator.index(v) if not isinstance(v, Array) else int(v.item())


def _ints(name: str, arg: str, v) -> tuple:
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (operator.index(v),)
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"{name}(): argument {arg!r} must be a tuple of ints; got {type(v).__name__}")
    return tuple(_int(name, arg, e) for e in v)


def _sizes(name: str, size) -> tuple:
    """PyTorch's ``*size`` argument: ints one by one, or one sequence of them."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(_int(name, "size", s) for s in size)


# --- small conveniences -----------------------------------------------------------------------

def angle(input, *, out=None):
    """``torch.angle(input, *, out=None)``: the argument of each element, in radians.

    Complex: ``atan2(imag, real)`` (a real result); real: ``pi`` for negative elements, 0
    otherwise, NaN for NaN (integers compute in the default float dtype). The derivative of
    a real input's angle is 0, as PyTorch's.

    >>> import strided.torch as torch
    >>> torch.angle(torch.tensor([-2.0, 0.0, 3.0]))
    tensor([3.1416, 0.0000, 0.0000])
    """
    x = _tensor("angle", input)
    _no_out("angle", out)
    ns = _ns()
    if x.dtype.kind == "c":
        return ns.atan2(ns.imag(x), ns.real(x))
    dt = x.dtype if x.dtype.kind == "f" else _dtypes.get_default_dtype()
    xd = ns.astype(x.detach(), dt)
    val = ns.where(ns.isnan(xd), xd, ns.where(ns.less(xd, 0), ns.asarray(math.pi, dtype=dt, device=x.device),
                                               ns.asarray(0.0, dtype=dt, device=x.device)))
    if x.requires_grad and x.dtype.kind == "f":
        # (a zero gradient: x where nothing is selected)
        val = ns.where(ns.zeros(x.shape, dtype=ns.bool, device=x.device), x, val)
    return val


def frexp(input, *, out=None):
    """``torch.frexp(input, *, out=None)``: ``return_types.frexp(mantissa, exponent)`` with
    ``input = mantissa * 2 ** exponent``, ``0.5 <= |mantissa| < 1`` (0 for 0) and an int32
    exponent. Floating-point inputs only; the mantissa's derivative is ``2 ** -exponent``.

    >>> import strided.torch as torch
    >>> m, e = torch.frexp(torch.tensor([8.0, -0.75]))
    >>> m.tolist(), e.tolist(), e.dtype == torch.int32
    ([0.5, -0.75], [4, 0], True)
    """
    x = _tensor("frexp", input)
    _no_out("frexp", out)
    if x.dtype.kind != "f":
        raise RuntimeError(f"torch.frexp() only supports floating-point dtypes; got {x.dtype.name}")
    ns = _ns()
    xp = x.device.backend.xp
    _, e = xp.frexp(x.detach()._get_native())
    exponent = _wrap_new(xp.asarray(e, dtype=np.int32), _dtypes.int32, x.device)
    mantissa = ns.divide(x, ns.torch.exp2(ns.astype(exponent, x.dtype)))
    return return_types.frexp(mantissa, exponent)


def _adjoint_of(name: str, x, only_2d: bool = False):
    if only_2d and x.ndim != 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices (2-D tensors). Got {x.ndim}-D tensor.")
    if x.ndim < 2:
        what = "tensor.adjoint()" if name == "adjoint" else f"tensor.{name}"
        raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. "
                           f"Got {x.ndim}-D tensor.")
    t = x.transpose(-2, -1)
    return _ns().conj(t) if x.dtype.kind == "c" else t


def adjoint(input):
    """``torch.adjoint(input)``: the conjugate transpose of the last two dimensions.

    A view for real dtypes (``input.transpose(-2, -1)``); a complex input's is a copy
    (strided has no lazily conjugated view), so writes into it do not reach ``input``.

    >>> import strided.torch as torch
    >>> torch.adjoint(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[1., 3.],
            [2., 4.]])
    """
    return _adjoint_of("adjoint", _tensor("adjoint", input))


def split_with_sizes(input, split_sizes, dim=0):
    """``torch.split_with_sizes(input, split_sizes, dim=0)``: views of ``input`` along ``dim``
    of the given sizes, which must add up to the dimension's size.

    >>> import strided.torch as torch
    >>> [t.tolist() for t in torch.split_with_sizes(torch.arange(5), [2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    x = _tensor("split_with_sizes", input)
    sizes = _ints("split_with_sizes", "split_sizes", split_sizes)
    d = _layout.normalize_axis(_int("split_with_sizes", "dim", dim), builtins.max(x.ndim, 1), "split_with_sizes")
    if x.ndim == 0:
        raise RuntimeError("split_with_sizes expects a tensor of at least 1 dimension")
    n = x.shape[d]
    if builtins.sum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                           f"at dimension {d}), but got split_sizes={list(sizes)}")
    out, start = [], 0
    for s in sizes:
        out.append(x.narrow(d, start, s))
        start += s
    return tuple(out)


def unsafe_chunk(input, chunks, dim=0):
    """``torch.unsafe_chunk(input, chunks, dim=0)``: ``torch.chunk``'s pieces (PyTorch's
    "unsafe" form differs only in not tracking them as views for autograd's checks).

    >>> import strided.torch as torch
    >>> [t.tolist() for t in torch.unsafe_chunk(torch.arange(5), 2)]
    [[0, 1, 2], [3, 4]]
    """
    x = _tensor("unsafe_chunk", input)
    return tuple(_ns().torch.chunk(x, chunks, dim))


def unsafe_split(input, split_size_or_sections, dim=0):
    """``torch.unsafe_split(input, split_size, dim=0)``: ``torch.split``'s pieces (see
    ``unsafe_chunk``).

    >>> import strided.torch as torch
    >>> [t.tolist() for t in torch.unsafe_split(torch.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    """
    x = _tensor("unsafe_split", input)
    if isinstance(split_size_or_sections, (list, tuple)):
        return split_with_sizes(x, split_size_or_sections, dim)
    return tuple(_ns().torch.split(x, split_size_or_sections, dim))


# --- scatters into a copy -----------------------------------------------------------------------

def _scatter_into(name: str, x, src, view):
    ns = _ns()
    _tensor(name, src, "src")
    r = ns.clone(x)
    v = view(r)
    if tuple(src.shape) != tuple(v.shape):
        raise RuntimeError(f"{name}(): expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(v.shape)}")
    if src.dtype != x.dtype:
        raise RuntimeError(f"{name}(): expected src to have the dtype of input ({x.dtype.name}); got "
                           f"{src.dtype.name}")
    v.copy_(src)
    return r


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``torch.diagonal_scatter(input, src, offset=0, dim1=0, dim2=1)``: a copy of ``input``
    whose diagonal ``input.diagonal(offset, dim1, dim2)`` holds ``src``.

    >>> import strided.torch as torch
    >>> torch.diagonal_scatter(torch.zeros(2, 2), torch.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    x = _tensor("diagonal_scatter", input)
    return _scatter_into("diagonal_scatter", x, src, lambda r: r.diagonal(offset, dim1, dim2))


def select_scatter(input, src, dim, index):
    """``torch.select_scatter(input, src, dim, index)``: a copy of ``input`` whose
    ``input.select(dim, index)`` holds ``src``.

    >>> import strided.torch as torch
    >>> torch.select_scatter(torch.zeros(2, 2), torch.ones(2), 0, 1)
    tensor([[0., 0.],
            [1., 1.]])
    """
    x = _tensor("select_scatter", input)
    if x.ndim == 0:
        raise IndexError("select_scatter(): select() cannot be applied to a 0-dim tensor.")
    d = _layout.normalize_axis(_int("select_scatter", "dim", dim), x.ndim, "select_scatter")
    i = _int("select_scatter", "index", index)
    n = x.shape[d]
    if not -n <= i < n:
        raise IndexError(f"select_scatter(): index {i} out of range for tensor of size {list(x.shape)} at "
                         f"dimension {d}")
    key = (slice(None),) * d + (i % n,)
    return _scatter_into("select_scatter", x, src, lambda r: r[key])


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``torch.slice_scatter(input, src, dim=0, start=None, end=None, step=1)``: a copy of
    ``input`` whose slice ``start:end:step`` along ``dim`` holds ``src``.

    >>> import strided.torch as torch
    >>> torch.slice_scatter(torch.zeros(4), torch.ones(2), start=1, step=2)
    tensor([0., 1., 0., 1.])
    """
    x = _tensor("slice_scatter", input)
    d = _layout.normalize_axis(_int("slice_scatter", "dim", dim), x.ndim, "slice_scatter")
    step = _int("slice_scatter", "step", step)
    if step <= 0:
        raise RuntimeError("slice_scatter(): slice step must be positive")
    key = (slice(None),) * d + (slice(start, end, step),)
    return _scatter_into("slice_scatter", x, src, lambda r: r[key])


# --- as_strided --------------------------------------------------------------------------------

def _storage_size(x) -> int:
    st = x._layout()[0]
    return len(st)


def _check_geometry(name: str, x, size, stride, offset) -> None:
    if len(size) != len(stride):
        raise RuntimeError(f"{name}(): mismatch in length of strides and shape ({len(size)} sizes, "
                           f"{len(stride)} strides)")
    if any(s < 0 for s in size):
        raise RuntimeError(f"{name}(): negative dimension in size {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"{name}(): Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    if offset < 0:
        raise RuntimeError(f"{name}(): Tensor: invalid storage offset {offset}")
    need = 0 if 0 in size else offset + 1 + builtins.sum((n - 1) * s for n, s in zip(size, stride))
    have = _storage_size(x)
    if need > have:
        it = x.dtype.itemsize
        raise RuntimeError(f"{name}(): setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                           f"{offset}, and itemsize {it} requiring a storage size of {need * it} are out of "
                           f"bounds for storage of size {have * it}")


@_api("as_strided")
def _as_strided_view(x, size, stride, storage_offset, geometry):
    """The view of ``x``'s storage with layout (storage_offset, size, stride); ``geometry`` (the
    input's storage length and layout) is for the derivative."""
    _layout.note_overlap(size, stride)  # (an overlapping view caches no native view)
    return x._view(storage_offset, size, stride)


def _offsets(offset, shape, strides):
    """The storage offsets of a layout's elements, in row-major order (a host int64 array)."""
    o = np.full((1,), offset, dtype=np.int64)
    for n, s in zip(shape, strides):
        o = (o[:, None] + np.arange(n, dtype=np.int64) * s).reshape(-1)
    return o


def _as_strided_grad(g, size, stride, storage_offset, geometry):
    # PyTorch's as_strided_backward: the output's gradient added into a storage-sized buffer
    # (repeats accumulate), shared evenly among the input's elements that read one location,
    # and read back at the input's layout. (The offsets are index arithmetic on the host.)
    ns = _ns()
    n, ioff, ishape, istr = geometry
    dev = g.device
    xp = dev.backend.xp
    on_device = (lambda a: _wrap_new(xp.asarray(a), _dtypes.from_numpy_dtype(a.dtype), dev))
    oo = on_device(_offsets(storage_offset, size, stride))
    io = _offsets(ioff, ishape, istr)
    flat = _grad_index_add(g.reshape(-1), (n,), (oo,))
    if _layout.has_internal_overlap(tuple(ishape), tuple(istr)):
        count = np.bincount(io, minlength=n).astype(g.dtype._np)
        count[count == 0] = 1
        flat = flat / on_device(count)
    return flat[on_device(io)].reshape(tuple(ishape))


_rule("as_strided", "x, size, stride, storage_offset, geometry", "AsStridedBackward0",
      x=_as_strided_grad)


def as_strided(input, size, stride, storage_offset=None):
    """``torch.as_strided(input, size, stride, storage_offset=None)``: a view of ``input``'s
    storage with the given shape, strides and storage offset (in elements; ``input``'s own
    offset where None).

    The view must lie within the storage (a RuntimeError otherwise) and strides must be
    non-negative, as PyTorch's. Elements of the view may share memory (then it can be read,
    not written). The gradient follows PyTorch's: the output's gradient summed into the
    storage, read back at ``input``'s layout.

    >>> import strided.torch as torch
    >>> torch.as_strided(torch.arange(6), (2, 2), (1, 2), 1).tolist()
    [[1, 3], [2, 4]]
    """
    x = _tensor("as_strided", input)
    size = _ints("as_strided", "size", size)
    stride = _ints("as_strided", "stride", stride)
    st, off, shape, strides = x._layout()
    offset = off if storage_offset is None else _int("as_strided", "storage_offset", storage_offset)
    _check_geometry("as_strided", x, size, stride, offset)
    return _as_strided_view(x, size, stride, offset, (len(st), off, tuple(shape), tuple(strides)))


def _dense_strides(x):
    """``x``'s strides where ``x`` is dense and non-overlapping with positive strides (what
    PyTorch's ``clone`` keeps), else None."""
    dims = sorted((s, n) for n, s in zip(x.shape, x.stride()) if n != 1)
    span = 1
    for s, n in dims:
        if s != span:
            return None
        span *= n
    return tuple(x.stride())


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``torch.as_strided_scatter(input, src, size, stride, storage_offset=None)``: a copy of
    ``input`` (PyTorch's ``clone``: its strides where dense, else contiguous, offset 0) whose
    ``as_strided(size, stride, storage_offset)`` view holds ``src``.

    >>> import strided.torch as torch
    >>> torch.as_strided_scatter(torch.zeros(4), torch.ones(2), (2,), (2,))
    tensor([1., 0., 1., 0.])
    """
    x = _tensor("as_strided_scatter", input)
    _tensor("as_strided_scatter", src, "src")
    ns = _ns()
    keep = _dense_strides(x)
    r = empty_strided(x.shape, keep, dtype=x.dtype, device=x.device) if keep is not None else ns.empty(
        x.shape, dtype=x.dtype, device=x.device)
    r.copy_(x)
    v = as_strided(r, size, stride, 0 if storage_offset is None else storage_offset)
    if tuple(v.shape) != tuple(src.shape):
        raise RuntimeError(f"as_strided_scatter(): expected src to have a size equal to the slice of self. "
                           f"src size = {list(src.shape)}, slice size = {list(v.shape)}")
    v.copy_(src)
    return r


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """``torch.empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False)``:
    an uninitialised array with the given shape and strides, over a storage just large
    enough for them.

    >>> import strided.torch as torch
    >>> torch.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    size = _ints("empty_strided", "size", size)
    stride = _ints("empty_strided", "stride", stride)
    if len(size) != len(stride):
        raise RuntimeError(f"empty_strided(): dimensionality of sizes ({len(size)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"empty_strided(): sizes {list(size)} and strides {list(stride)} must be "
                           "non-negative")
    ns = _ns()
    n = 0 if 0 in size else 1 + builtins.sum((m - 1) * s for m, s in zip(size, stride))
    base = ns.empty(n, dtype=dtype, device=device)
    r = base._view(0, size, stride)
    _layout.note_overlap(size, stride)
    if requires_grad:
        r.requires_grad_()
    return r


# --- indexed writes --------------------------------------------------------------------------

def _index_tuple(name: str, x, indices) -> tuple:
    if type(indices) is Array or not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' must be a tuple of tensors; got {type(indices).__name__}")
    if len(indices) > x.ndim:
        raise IndexError(f"{name}(): too many indices for tensor of dimension {x.ndim} (got {len(indices)})")
    out = []
    for n, i in enumerate(indices):
        if type(i) is Array:
            if i.dtype.kind not in "biu":
                raise IndexError(f"{name}(): tensors used as indices must be long, int, byte or bool tensors; "
                                 f"got {i.dtype.name}")
            if i.dtype == _dtypes.uint8:  # (PyTorch's deprecated byte masks: refused, not read as indices)
                raise IndexError(f"{name}(): uint8 (byte) index tensors are not supported by strided; use a bool "
                                 "mask or integer indices")
            out.append(i)
        else:
            raise TypeError(f"{name}(): expected Tensor as element {n} in argument 1, but got "
                            f"{type(i).__name__}")
    return tuple(out)


def _accumulate(name: str, x, key: tuple, values):
    """``x`` (a copy) with ``values`` added at the advanced index ``key`` (repeats accumulate)."""
    ns = _ns()
    # bool masks become their nonzero() indices; None (a whole dimension) becomes an arange,
    # broadcast across the others, so that one linear index addresses every written element.
    parts, dim = [], 0
    for k in key:
        if type(k) is Array and k.dtype.kind == "b":
            nz = ns.nonzero(k)
            for j, t in enumerate(nz):
                parts.append((dim + j, t))
            dim += k.ndim
        else:
            parts.append((dim, k))
            dim += 1
    tensors = [k for _, k in parts]
    bshape = ns.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    lin = None
    for d, k in parts:
        size = x.shape[d]
        t = ns.astype(k, ns.int64)
        if t.numel():
            hi, lo = int(ns.max(t).item()), int(ns.min(t).item())
            if hi >= size or lo < -size:
                bad = hi if hi >= size else lo
                raise IndexError(f"{name}(): index {bad} is out of bounds for dimension {d} with size {size}")
        t = ns.remainder(t, size) if size else t
        lin = t if lin is None else lin * size + t
    covered = len(parts)
    rest = tuple(x.shape[covered:])
    lead = 1
    for d in range(covered):
        lead *= x.shape[d]
    lin = ns.broadcast_to(lin, bshape)
    vshape = tuple(lin.shape) + rest
    v = values if type(values) is Array else ns.asarray(values, dtype=x.dtype, device=x.device)
    v = ns.broadcast_to(ns.astype(v, x.dtype), vshape)
    flat = ns.reshape(x, (lead,) + rest)
    r = ns.torch.index_add(flat, 0, ns.reshape(lin, (-1,)), ns.reshape(v, (-1,) + rest))
    return ns.reshape(r, tuple(x.shape))


def index_put(input, indices, values, accumulate=False):
    """``torch.index_put(input, indices, values, accumulate=False)``: a copy of ``input`` with
    ``values`` written at ``input[indices]`` (a tuple of index tensors: long, int, byte or
    bool); with ``accumulate`` added there, repeated indices adding up.

    >>> import strided.torch as torch
    >>> i = torch.tensor([0, 0, 2])
    >>> torch.index_put(torch.zeros(3), (i,), torch.ones(3), accumulate=True)
    tensor([2., 0., 1.])
    """
    x = _tensor("index_put", input)
    _tensor("index_put", values, "values")
    if values.dtype != x.dtype:
        raise RuntimeError(f"index_put(): Index put requires the source and destination dtypes match, got "
                           f"{x.dtype.name} for the destination and {values.dtype.name} for the source.")
    key = _index_tuple("index_put", x, indices)
    if accumulate:
        return _accumulate("index_put", x, key, values)
    r = _ns().clone(x)
    r[key] = values
    return r


def _index_put_(input, indices, values, accumulate=False):
    """``index_put`` written into ``input``; returns ``input`` (``x.index_put_``, and through
    ``_shape_functions``' generated forms ``torch.index_put_``)."""
    x = _tensor("index_put_", input)
    _tensor("index_put_", values, "values")
    if values.dtype != x.dtype:
        raise RuntimeError(f"index_put_(): Index put requires the source and destination dtypes match, got "
                           f"{x.dtype.name} for the destination and {values.dtype.name} for the source.")
    key = _index_tuple("index_put_", x, indices)
    if accumulate:
        return x.copy_(_accumulate("index_put_", x, key, values))
    x[key] = values
    return x


def _put(name, x, index, source, accumulate):
    _tensor(name, index, "index")
    _tensor(name, source, "source")
    if index.dtype != _dtypes.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {index.dtype.name}")
    if source.dtype != x.dtype:
        raise RuntimeError(f"{name}(): self ({x.dtype.name}) and source ({source.dtype.name}) must have the "
                           "same scalar type")
    if index.numel() != source.numel():
        raise IndexError(f"{name}(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = x.numel()
    ns = _ns()
    idx = ns.reshape(index, (-1,))
    if idx.numel():
        hi, lo = int(ns.max(idx).item()), int(ns.min(idx).item())
        bad = hi if hi >= n else lo if lo < -n else None
        if bad is not None:
            raise IndexError(f"{name}(): out of range: tried to access index {bad} on a tensor of {n} elements.")
    flat = ns.reshape(x, (-1,))
    r = index_put(flat, (idx,), ns.reshape(source, (-1,)), accumulate)
    return ns.reshape(r, tuple(x.shape))


def put(input, index, source, accumulate=False):
    """``torch.put(input, index, source, accumulate=False)``: a copy of ``input`` with
    ``source``'s elements written at the flat (row-major) positions ``index``; with
    ``accumulate`` added there.

    >>> import strided.torch as torch
    >>> torch.put(torch.zeros(2, 2), torch.tensor([3, 0]), torch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 1.]])
    """
    return _put("put", _tensor("put", input), index, source, accumulate)


_REDUCES = ("prod", "mean", "amax", "amin")


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """``torch.index_reduce(input, dim, index, source, reduce, *, include_self=True)``: a copy
    of ``input`` whose slices ``index[i]`` along ``dim`` are reduced ("prod", "mean", "amax"
    or "amin") with ``source``'s slice ``i`` (and with themselves where ``include_self``).

    >>> import strided.torch as torch
    >>> torch.index_reduce(torch.ones(3), 0, torch.tensor([0, 0]), torch.tensor([2.0, 3.0]), "prod")
    tensor([6., 1., 1.])
    """
    x = _tensor("index_reduce", input)
    _tensor("index_reduce", index, "index")
    _tensor("index_reduce", source, "source")
    _no_out("index_reduce", out)
    if reduce not in _REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {index.dtype.name}")
    if source.dtype != x.dtype:
        raise RuntimeError(f"index_reduce_(): self ({x.dtype.name}) and source ({source.dtype.name}) must have "
                           "the same scalar type")
    ns = _ns()
    nd = builtins.max(x.ndim, 1)
    d = _layout.normalize_axis(_int("index_reduce", "dim", dim), nd, "index_reduce")
    src = source if source.ndim else ns.reshape(source, (1,))
    xx = x if x.ndim else ns.reshape(x, (1,))
    idx = ns.reshape(index, (-1,))
    if src.ndim != xx.ndim:
        raise IndexError(f"index_reduce_(): Source/destination tensor must have same slice shapes. Destination "
                         f"slice shape: {list(x.shape)} and source slice shape: {list(source.shape)}")
    if src.shape[d] != idx.numel():
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.numel()}) should be equal to "
                           f"source.size(dim) ({src.shape[d]})")
    for k in range(xx.ndim):
        if k != d and xx.shape[k] != src.shape[k]:
            raise IndexError(f"index_reduce_(): Source/destination tensor must have same slice shapes. "
                             f"Destination slice shape: {list(x.shape)} and source slice shape: "
                             f"{list(source.shape)}")
    n = xx.shape[d]
    if idx.numel():
        hi, lo = int(ns.max(idx).item()), int(ns.min(idx).item())
        if hi >= n or lo < -n:
            bad = hi if hi >= n else lo
            raise IndexError(f"index_reduce_(): index out of range in self: index {bad} for dimension {d} of "
                             f"size {n}")
    idx = ns.remainder(ns.astype(idx, ns.int64), n) if n else ns.astype(idx, ns.int64)
    shp = [1] * src.ndim
    shp[d] = src.shape[d]
    full = ns.broadcast_to(ns.reshape(idx, tuple(shp)), tuple(src.shape))
    r = ns.torch.scatter_reduce(xx, d, full, src, reduce, include_self=include_self)
    return ns.reshape(r, tuple(x.shape)) if x.ndim == 0 else r


# --- Array's methods ---------------------------------------------------------------------------

def _nelement(self) -> int:
    """``x.nelement()``: ``x.numel()``, the number of elements."""
    return self.numel()


def _sum_to_size(self, *size):
    """``x.sum_to_size(*size)``: ``x`` summed down to ``size``, which must be expandable to
    ``x``'s shape (a leading dimension summed away, a 1 kept as 1)."""
    size = _sizes("sum_to_size", size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"sum_to_size(): size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    ns = _ns()
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    if not axes and size:
        return self
    # (PyTorch's sum_to: a sum of integers or bools is int64; size () always sums, a 0-d x too)
    r = ns.sum(self, axis=axes, keepdims=True, dtype=ns.int64 if self.dtype.kind in "biu" else None)
    return ns.reshape(r, size)


def _fill_diagonal_(self, fill_value, wrap=False):
    """``x.fill_diagonal_(fill_value, wrap=False)``: writes ``fill_value`` on the main diagonal
    (all dimensions of equal length beyond 2-D); a tall matrix with ``wrap`` restarts the
    diagonal every ``ncols + 1`` rows, as PyTorch's. Returns ``x``."""
    nd = self.ndim
    if nd < 2:
        raise RuntimeError("fill_diagonal_(): dimensions must larger than 1")
    shape = tuple(self.shape)
    if nd > 2 and any(s != shape[0] for s in shape):
        raise RuntimeError("fill_diagonal_(): all dimensions of input must be of equal length")
    ns = _ns()
    h, w = shape[0], shape[1]
    m = builtins.min(shape)
    rows = list(range(m))
    cols = list(range(m))
    if wrap and nd == 2 and h > w + 1:
        step = w + 1
        extra = (h * w + step - 1) // step - m
        # (PyTorch's as_strided continuation of the diagonal over row-major memory: flat
        # positions (w + 1) * (w + k), which wrap into the next row past the last column)
        flat = [(w + 1) * (w + k) for k in range(extra)]
        rows += [q // w for q in flat]
        cols += [q % w for q in flat]
    idx = ns.asarray(rows, dtype=ns.int64, device=self.device)
    if nd == 2:
        key = (idx, ns.asarray(cols, dtype=ns.int64, device=self.device))
    else:
        key = (idx,) * nd
    self[key] = fill_value
    return self


def _mH(self):
    """``x.mH``: the conjugate transpose of the last two dimensions (``torch.adjoint``)."""
    return _adjoint_of("mH", self)


def _H(self):
    """``x.H``: the conjugate transpose of a matrix (2-D only)."""
    return _adjoint_of("H", self, only_2d=True)


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                       pin_memory=False):
    """``x.new_empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False)``:
    ``torch.empty_strided`` with ``x``'s dtype and device unless given."""
    return empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                         device=self.device if device is None else device, requires_grad=requires_grad)


def _method(f, name=None):
    name = name or f.__name__

    def m(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = f"Method form of ``torch.{name}``."
    sig = _method_signature(f)
    m.__signature__ = sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "out"])
    return m


def _put_(self, index, source, accumulate=False):
    """``x.put_(index, source, accumulate=False)``: ``torch.put`` written into ``x``; returns ``x``."""
    return self.copy_(_put("put_", self, index, source, accumulate))


def _index_put_method(self, indices, values, accumulate=False):
    """``x.index_put(indices, values, accumulate=False)``: ``torch.index_put``."""
    return index_put(self, indices, values, accumulate)


def _index_put_inplace(self, indices, values, accumulate=False):
    """``x.index_put_(indices, values, accumulate=False)``: ``torch.index_put`` written into ``x``;
    returns ``x``.

    >>> import strided.torch as torch
    >>> x = torch.zeros(3)
    >>> x.index_put_((torch.tensor([1]),), torch.tensor(5.0))
    tensor([0., 5., 0.])
    """
    return _index_put_(self, indices, values, accumulate)


def _as_strided_method(self, size, stride, storage_offset=None):
    """``x.as_strided(size, stride, storage_offset=None)``: ``torch.as_strided``."""
    return as_strided(self, size, stride, storage_offset)


def _frexp_method(self):
    """``x.frexp()``: ``torch.frexp``."""
    return frexp(self)


def _angle_method(self):
    """``x.angle()``: ``torch.angle``."""
    return angle(self)


def _adjoint_method(self):
    """``x.adjoint()``: ``torch.adjoint``."""
    return adjoint(self)


def _index_reduce_method(self, dim, index, source, reduce, *, include_self=True):
    """``x.index_reduce(dim, index, source, reduce, *, include_self=True)``: ``torch.index_reduce``."""
    return index_reduce(self, dim, index, source, reduce, include_self=include_self)


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """``x.index_reduce_(dim, index, source, reduce, *, include_self=True)``: ``torch.index_reduce``
    written into ``x``; returns ``x``."""
    return self.copy_(index_reduce(self, dim, index, source, reduce, include_self=include_self))


def _install_methods() -> None:
    """Array's methods of the functions above that Array lacks (never replacing one)."""
    table = {
        "nelement": _nelement, "sum_to_size": _sum_to_size, "fill_diagonal_": _fill_diagonal_,
        "new_empty_strided": _new_empty_strided, "put_": _put_, "put": _method(put),
        "index_put": _index_put_method, "index_put_": _index_put_inplace,
        "as_strided": _as_strided_method, "frexp": _frexp_method, "angle": _angle_method,
        "adjoint": _adjoint_method, "index_reduce": _index_reduce_method, "index_reduce_": _index_reduce_,
        "split_with_sizes": _method(split_with_sizes), "unsafe_chunk": _method(unsafe_chunk),
        "unsafe_split": _method(unsafe_split), "diagonal_scatter": _method(diagonal_scatter),
        "select_scatter": _method(select_scatter), "slice_scatter": _method(slice_scatter),
        "as_strided_scatter": _method(as_strided_scatter),
    }
    for name, f in table.items():
        if not hasattr(Array, name):
            if f.__name__ != name:
                f.__name__ = f.__qualname__ = name
            setattr(Array, name, f)
    for name, f in (("mH", _mH), ("H", _H)):
        if not hasattr(Array, name):
            setattr(Array, name, property(f, doc=f.__doc__))


_install_methods()

from ._functions import _return_type, return_types  # noqa: E402

return_types.frexp = _return_type("frexp", ("mantissa", "exponent"))
