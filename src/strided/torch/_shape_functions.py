"""PyTorch's shape, indexing and creation functions that ``strided.torch`` had no word for.

Each function here means what PyTorch 2.13's of the same name means (parameters, defaults,
result dtype and shape, views where PyTorch documents a view) and is composed of strided's
own namespace functions, views and methods: gradients, dimension names and devices come
from those calls. ``out=`` is passed to the last core call where that call takes it
(``hstack`` and friends: ``concat``; ``msort``: ``sort``) and refused with TypeError
elsewhere. Writes into a caller's array go through Array's in-place methods (``copy_``)
or ``__setitem__`` (the one writer, _core/call/write.py).

The module also attaches Array's methods of the indexing functions that Array lacked
(``x.index_add_``, ``x.scatter_reduce``, ...), and generates the top-level in-place forms
(``torch.exp_(x)`` is ``x.exp_()``) from PyTorch's list of them, for those Array has.
It reads strided's namespace only when a function runs (``_ns()``), because
``strided/__init__`` imports it half-way through its own initialisation.
"""

from __future__ import annotations

import builtins
import itertools
import math
import sys

from .._core import dtypes as _dtypes, layout as _layout
from .._core.array import _LATE, Array
from .._core.dispatch import method_signature
from ._checks import no_out as _no_out, tensor as _tensor
from ._memory_format import flipped as _flip_copy, like_input as _like_input, row_major as _row_major


def _ns():
    return sys.modules["strided"]


def _tensors(func: str, tensors) -> list:
    """PyTorch's ``*tensors`` argument: arrays given one by one, or one sequence of them."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return [_tensor(func, t, "each argument") for t in tensors]


def _seq(func: str, tensors) -> list:
    """PyTorch's ``tensors`` argument of the stacking functions: a sequence of arrays."""
    if type(tensors) is Array or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{func}(): tensors must be a tuple or list of arrays; got {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{func}(): expects a non-empty sequence of tensors")
    return [_tensor(func, t, "each tensor") for t in tensors]


def _dim(func: str, dim, ndim: int) -> int:
    return _layout.normalize_axis(dim, ndim, func)


# --- at least n dimensions, broadcasting ------------------------------------------------------

def _atleast(func: str, n: int, tensors):
    one = len(tensors) == 1 and type(tensors[0]) is Array
    ts = _tensors(func, tensors)
    out = []
    for t in ts:
        nd = t.ndim
        if nd >= n:
            out.append(t)
        elif n == 3 and nd == 2:
            out.append(t.unsqueeze(2))  # (m, n) -> (m, n, 1), as PyTorch's atleast_3d
        elif n == 3 and nd == 1:
            out.append(t.reshape(1, t.shape[0], 1))
        else:
            out.append(t.reshape((1,) * (n - nd) + tuple(t.shape)))
    return out[0] if one else tuple(out)


def atleast_1d(*tensors):
    """``torch.atleast_1d(*tensors)``: a 0-d array as a 1-d view; others as they are.

    One array gives one array; several (or one sequence) give a tuple.

    >>> import strided.torch as torch
    >>> torch.atleast_1d(torch.tensor(1.5))
    tensor([1.5000])
    """
    return _atleast("atleast_1d", 1, tensors)


def atleast_2d(*tensors):
    """``torch.atleast_2d(*tensors)``: 0-d and 1-d arrays as 2-d views (``(n,)`` -> ``(1, n)``).

    >>> import strided.torch as torch
    >>> torch.atleast_2d(torch.arange(3)).shape
    strided.Size([1, 3])
    """
    return _atleast("atleast_2d", 2, tensors)


def atleast_3d(*tensors):
    """``torch.atleast_3d(*tensors)``: arrays as 3-d views (``(n,)`` -> ``(1, n, 1)``,
    ``(m, n)`` -> ``(m, n, 1)``).

    >>> import strided.torch as torch
    >>> torch.atleast_3d(torch.ones(2, 3)).shape
    strided.Size([2, 3, 1])
    """
    return _atleast("atleast_3d", 3, tensors)


def broadcast_shapes(*shapes):
    """``torch.broadcast_shapes(*shapes)``: the shape the ``shapes`` broadcast to, each a
    sequence of ints or an int ``n`` (the shape ``(n,)``, as PyTorch reads it).

    >>> import strided.torch as torch
    >>> torch.broadcast_shapes(3, (2, 1))
    strided.Size([2, 3])
    """
    full = []
    for s in shapes:
        if isinstance(s, (tuple, list)):  # (Size is a tuple)
            if not builtins.all(type(n) is int or type(n) is bool for n in s):
                raise RuntimeError(f"broadcast_shapes(): Input shapes should be of type ints, a tuple of "
                                   f"ints, or a list of ints, got {s!r}")
            full.append(tuple(builtins.int(n) for n in s))
        elif type(s) is int or type(s) is bool:
            full.append((builtins.int(s),))
        else:
            raise RuntimeError(f"broadcast_shapes(): Input shapes should be of type ints, a tuple of "
                               f"ints, or a list of ints, got {s!r}")
        if builtins.any(n < 0 for n in full[-1]):
            raise ValueError("broadcast_shapes(): Attempting to broadcast a dimension with negative length!")
    try:
        return _ns().broadcast_shapes(*full)
    except ValueError as e:  # (ShapeError: PyTorch's RuntimeError, and the ValueError it was)
        raise _layout.ShapeError(str(e)) from None


def broadcast_tensors(*tensors) -> tuple:
    """``torch.broadcast_tensors(*tensors)``: the arrays broadcast to one shape (views).

    >>> import strided.torch as torch
    >>> a, b = torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))
    >>> a.shape, b.shape
    (strided.Size([2, 3]), strided.Size([2, 3]))
    """
    ts = [_tensor("broadcast_tensors", t, "each argument") for t in tensors]
    if not any(t.names is not None and any(t.names) for t in ts):
        # (PyTorch's: each input already of the common shape is itself, each other one an
        # expand of it (ExpandBackward0), so an input that no used result depends on keeps
        # grad None; the standard's broadcast_arrays is one node of views)
        ns = _ns()
        shape = tuple(ns.broadcast_shapes(*(t.shape for t in ts)))
        return tuple(t if tuple(t.shape) == shape else ns.broadcast_to(t, shape) for t in ts)
    return tuple(_ns().broadcast_arrays(*ts))


# --- stacking and splitting --------------------------------------------------------------------

def hstack(tensors, *, out=None) -> Array:
    """``torch.hstack(tensors, *, out=None)``: concatenate along dim 1 (dim 0 for 1-d arrays).

    >>> import strided.torch as torch
    >>> torch.hstack((torch.tensor([1, 2]), torch.tensor([3])))
    tensor([1, 2, 3])
    """
    ts = atleast_1d(_seq("hstack", tensors))
    return _ns().concat(list(ts), axis=0 if ts[0].ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None) -> Array:
    """``torch.vstack(tensors, *, out=None)``: concatenate along dim 0, 1-d arrays as rows.

    >>> import strided.torch as torch
    >>> torch.vstack((torch.tensor([1, 2]), torch.tensor([3, 4])))
    tensor([[1, 2],
            [3, 4]])
    """
    return _ns().concat(list(atleast_2d(_seq("vstack", tensors))), axis=0, out=out)


def row_stack(tensors, *, out=None) -> Array:
    """``torch.row_stack(tensors, *, out=None)``: PyTorch's alias of ``vstack``.

    >>> import strided.torch as torch
    >>> torch.row_stack((torch.tensor([1]), torch.tensor([2]))).shape
    strided.Size([2, 1])
    """
    return _ns().concat(list(atleast_2d(_seq("row_stack", tensors))), axis=0, out=out)


def dstack(tensors, *, out=None) -> Array:
    """``torch.dstack(tensors, *, out=None)``: concatenate along dim 2 (after ``atleast_3d``).

    >>> import strided.torch as torch
    >>> torch.dstack((torch.tensor([1, 2]), torch.tensor([3, 4]))).shape
    strided.Size([1, 2, 2])
    """
    return _ns().concat(list(atleast_3d(_seq("dstack", tensors))), axis=2, out=out)


def column_stack(tensors, *, out=None) -> Array:
    """``torch.column_stack(tensors, *, out=None)``: 0-d and 1-d arrays as columns, then
    concatenated along dim 1.

    >>> import strided.torch as torch
    >>> torch.column_stack((torch.tensor([1, 2]), torch.tensor([3, 4])))
    tensor([[1, 3],
            [2, 4]])
    """
    ts = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in _seq("column_stack", tensors)]
    return _ns().concat(ts, axis=1, out=out)


def _split_points(func: str, n: int, indices_or_sections, dim_size_check=False):
    """The slices of a dimension of size ``n``: PyTorch's ``tensor_split`` rule (an int is
    a number of sections, the first ``n % k`` one longer; a sequence holds split indices)."""
    ios = indices_or_sections
    if type(ios) is Array:
        if ios.dtype != _dtypes.int64:
            raise RuntimeError(f"{func}(): tensor_indices_or_sections must be of dtype int64 (torch.long); "
                               f"got {ios.dtype.name}")
        if ios.ndim > 1:
            raise RuntimeError(f"{func}(): tensor_indices_or_sections must be a 0-d or 1-d tensor; "
                               f"got {ios.ndim} dimensions")
        ios = ios.item() if ios.ndim == 0 else ios.tolist()
    if isinstance(ios, (list, tuple)):
        cuts = [builtins.int(i) for i in ios]
        bounds = [None] + cuts + [None]
        return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    if type(ios) is bool or not isinstance(ios, builtins.int):
        raise TypeError(f"{func}(): indices_or_sections must be an int, a sequence of ints or a tensor; "
                        f"got {type(ios).__name__}")
    if ios <= 0:
        raise RuntimeError(f"{func}(): number of sections must be larger than 0, got {ios}")
    if dim_size_check and n % ios:
        raise RuntimeError(f"{func}(): the size of the dimension {n} is not divisible by the number "
                           f"of sections {ios}")
    q, r = divmod(n, ios)
    starts = [i * q + builtins.min(i, r) for i in range(ios + 1)]
    return [slice(a, b) for a, b in zip(starts[:-1], starts[1:])]


def _split(func: str, input, indices_or_sections, dim, even=False) -> tuple:
    d = _dim(func, dim, input.ndim)
    lead = (slice(None),) * d
    return tuple(input[lead + (s,)] for s in _split_points(func, input.shape[d], indices_or_sections, even))


def tensor_split(input, indices_or_sections, dim=0) -> tuple:
    """``torch.tensor_split(input, indices_or_sections, dim=0)``: views of ``input`` split
    into ``k`` near-equal sections (an int) or at the given indices (a sequence, or an int64
    tensor: 0-d sections, 1-d indices).

    >>> import strided.torch as torch
    >>> [t.tolist() for t in torch.tensor_split(torch.arange(7), 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    """
    _tensor("tensor_split", input)
    if input.ndim == 0:
        raise RuntimeError("tensor_split(): expected at least a 1-dimensional tensor, but got a 0-d tensor")
    return _split("tensor_split", input, indices_or_sections, dim)


def _xsplit(func: str, need: int, dim: int, input, indices_or_sections) -> tuple:
    _tensor(func, input)
    if input.ndim < need:
        raise RuntimeError(f"{func}(): requires a tensor with at least {need} dimension(s), but got a "
                           f"tensor with {input.ndim} dimensions")
    return _split(func, input, indices_or_sections, dim, even=True)


def hsplit(input, indices_or_sections) -> tuple:
    """``torch.hsplit(input, indices_or_sections)``: ``tensor_split`` along dim 1 (dim 0
    for a 1-d array); an int must divide the dimension evenly.

    >>> import strided.torch as torch
    >>> [t.shape for t in torch.hsplit(torch.zeros(2, 4), 2)]
    [strided.Size([2, 2]), strided.Size([2, 2])]
    """
    return _xsplit("hsplit", 1, 0 if getattr(input, "ndim", 0) == 1 else 1, input, indices_or_sections)


def vsplit(input, indices_or_sections) -> tuple:
    """``torch.vsplit(input, indices_or_sections)``: ``tensor_split`` along dim 0 of an
    array of 2 or more dimensions; an int must divide the dimension evenly.

    >>> import strided.torch as torch
    >>> len(torch.vsplit(torch.zeros(4, 2), [1, 3]))
    3
    """
    return _xsplit("vsplit", 2, 0, input, indices_or_sections)


def dsplit(input, indices_or_sections) -> tuple:
    """``torch.dsplit(input, indices_or_sections)``: ``tensor_split`` along dim 2 of an
    array of 3 or more dimensions; an int must divide the dimension evenly.

    >>> import strided.torch as torch
    >>> torch.dsplit(torch.zeros(1, 2, 4), 2)[0].shape
    strided.Size([1, 2, 2])
    """
    return _xsplit("dsplit", 3, 2, input, indices_or_sections)


def unbind(input, dim=0) -> tuple:
    """``torch.unbind(input, dim=0)``: the slices along ``dim``, as views.

    >>> import strided.torch as torch
    >>> [t.tolist() for t in torch.unbind(torch.tensor([[1, 2], [3, 4]]), 1)]
    [[1, 3], [2, 4]]
    """
    return tuple(_tensor("unbind", input).unbind(dim))


def swapaxes(input, axis0, axis1) -> Array:
    """``torch.swapaxes(input, axis0, axis1)``: PyTorch's alias of ``transpose`` (a view).

    >>> import strided.torch as torch
    >>> torch.swapaxes(torch.zeros(2, 3), 0, 1).shape
    strided.Size([3, 2])
    """
    return _tensor("swapaxes", input).swapaxes(axis0, axis1)


def select(input, dim, index) -> Array:
    """``torch.select(input, dim, index)``: the slice at ``index`` along ``dim`` (a view
    with that dimension removed).

    >>> import strided.torch as torch
    >>> torch.select(torch.tensor([[1, 2], [3, 4]]), 1, -1)
    tensor([2, 4])
    """
    _tensor("select", input)
    d = _dim("select", dim, input.ndim)
    if input.ndim == 0:
        raise IndexError("select(): cannot be applied to a 0-dim tensor")
    n = input.shape[d]
    if type(index) is bool or not isinstance(index, builtins.int):
        raise TypeError(f"select(): index must be an int; got {type(index).__name__}")
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    return input[(slice(None),) * d + (index,)]


# --- flips and rotations (copies, as PyTorch's flip) -------------------------------------------

def fliplr(input) -> Array:
    """``torch.fliplr(input)``: a copy with dim 1 reversed (needs 2 or more dimensions).

    >>> import strided.torch as torch
    >>> torch.fliplr(torch.tensor([[1, 2], [3, 4]]))
    tensor([[2, 1],
            [4, 3]])
    """
    if _tensor("fliplr", input).ndim < 2:
        raise RuntimeError(f"fliplr(): input must be >= 2-d; got {input.ndim} dimensions")
    return _flip_copy(input, (1,))


def flipud(input) -> Array:
    """``torch.flipud(input)``: a copy with dim 0 reversed (needs 1 or more dimensions).

    >>> import strided.torch as torch
    >>> torch.flipud(torch.tensor([1, 2, 3]))
    tensor([3, 2, 1])
    """
    if _tensor("flipud", input).ndim < 1:
        raise RuntimeError("flipud(): input must be >= 1-d; got a 0-d tensor")
    return _flip_copy(input, (0,))


def rot90(input, k=1, dims=(0, 1)) -> Array:
    """``torch.rot90(input, k=1, dims=(0, 1))``: a copy rotated by 90 degrees ``k`` times,
    from the first towards the second of ``dims``.

    >>> import strided.torch as torch
    >>> torch.rot90(torch.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    _tensor("rot90", input)
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"rot90(): expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"rot90(): expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (_dim("rot90", d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"rot90(): expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return _flip_copy(input, (d1,)).swapaxes(d0, d1)
    if k == 2:
        return _flip_copy(input, (d0, d1))
    if k == 3:
        return _flip_copy(input, (d0,)).swapaxes(d0, d1)
    return _ns().clone(input)


# --- diagonals and blocks -------------------------------------------------------------------------

def diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Array:
    """``torch.diag_embed(input, offset=0, dim1=-2, dim2=-1)``: arrays whose ``offset``
    diagonals (over ``dim1``, ``dim2`` of the result) hold the last dimension of ``input``;
    zeros elsewhere.

    >>> import strided.torch as torch
    >>> torch.diag_embed(torch.tensor([1, 2]))
    tensor([[1, 0],
            [0, 2]])
    """
    ns = _ns()
    _tensor("diag_embed", input)
    nd = input.ndim + 1
    d1, d2 = _dim("diag_embed", dim1, nd), _dim("diag_embed", dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diag_embed(): diagonal dimensions cannot be identical {dim1}, {dim2}")
    x = input if input.ndim else input.reshape(1)
    n = x.shape[-1]
    m = n + abs(offset)
    zeros = ns.zeros(tuple(x.shape[:-1]) + (abs(offset),), dtype=x.dtype, device=x.device)
    padded = ns.concat([x, zeros], axis=-1)  # (..., m)
    i = ns.arange(m, device=x.device)
    mask = ns.reshape(i, (m, 1)) + offset == ns.reshape(i, (1, m))
    # (on the diagonal (i, i + offset) the value is padded[i] above the main one, padded[j] below)
    vals = ns.expand_dims(padded, axis=-1 if offset >= 0 else -2)
    r = ns.where(mask, vals, ns.zeros((), dtype=x.dtype, device=x.device))
    return ns.movedim(r, (nd - 2, nd - 1), (d1, d2))


def diagflat(input, offset=0) -> Array:
    """``torch.diagflat(input, offset=0)``: a 2-d array with the flattened ``input`` on its
    ``offset`` diagonal.

    >>> import strided.torch as torch
    >>> torch.diagflat(torch.tensor([[1, 2]]), 1)
    tensor([[0, 1, 0],
            [0, 0, 2],
            [0, 0, 0]])
    """
    return diag_embed(_tensor("diagflat", input).reshape(-1), offset)


def block_diag(*tensors) -> Array:
    """``torch.block_diag(*tensors)``: the arrays (0-d, 1-d as one row, or 2-d) as the blocks
    of a block-diagonal matrix, in their promoted dtype.

    >>> import strided.torch as torch
    >>> torch.block_diag(torch.tensor([[1, 2]]), torch.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    ns = _ns()
    blocks = []
    for t in tensors:
        _tensor("block_diag", t, "each argument")
        if t.ndim > 2:
            raise RuntimeError(f"block_diag(): Input tensors must have 2 or fewer dimensions. "
                               f"Input {len(blocks)} has {t.ndim} dimensions")
        blocks.append(t.reshape((1,) * (2 - t.ndim) + tuple(t.shape)))
    if not blocks:
        return ns.empty((1, 0))
    dt = ns.result_type(*blocks)
    dev = blocks[0].device
    ncols = builtins.sum(b.shape[1] for b in blocks)
    rows, before = [], 0
    for b in blocks:
        r, c = b.shape
        left = ns.zeros((r, before), dtype=dt, device=dev)
        right = ns.zeros((r, ncols - before - c), dtype=dt, device=dev)
        rows.append(ns.concat([left, ns.astype(b, dt), right], axis=1))
        before += c
    return ns.concat(rows, axis=0)


def cartesian_prod(*tensors) -> Array:
    """``torch.cartesian_prod(*tensors)``: the cartesian product of 1-d arrays of one dtype,
    as rows of a 2-d array (one array: itself).

    >>> import strided.torch as torch
    >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    ns = _ns()
    ts = [_tensor("cartesian_prod", t, "each argument") for t in tensors]
    for t in ts:
        if t.ndim != 1:
            raise RuntimeError(f"cartesian_prod(): expects 1D tensors, but got a tensor with {t.ndim} dimensions")
    if len({t.dtype for t in ts}) > 1:
        raise RuntimeError("cartesian_prod(): meshgrid expects all tensors to have the same dtype")
    if len(ts) == 1:
        return ts[0]
    grids = ns.meshgrid(*ts, indexing="ij")
    return ns.stack([g.reshape(-1) for g in grids], axis=1)


def combinations(input, r=2, with_replacement=False) -> Array:
    """``torch.combinations(input, r=2, with_replacement=False)``: the length-``r``
    combinations of a 1-d array's elements, as rows (as ``itertools.combinations``).

    >>> import strided.torch as torch
    >>> torch.combinations(torch.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    ns = _ns()
    _tensor("combinations", input)
    if input.ndim != 1:
        raise RuntimeError(f"combinations(): Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"combinations(): Expect a non-negative number, but got {r}")
    if r == 0:
        return ns.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = [i for c in pick(range(input.shape[0]), r) for i in c]  # (positions only, no values)
    flat = ns.take(input, ns.asarray(idx, dtype=_dtypes.int64, device=input.device), axis=0)
    return flat.reshape(len(idx) // r, r)


# --- indices, sorting, gathering ------------------------------------------------------------------

def take_along_dim(input, indices, dim=None, *, out=None) -> Array:
    """``torch.take_along_dim(input, indices, dim=None, *, out=None)``: values of ``input``
    at ``indices`` along ``dim`` (the two broadcast in the other dimensions); without a
    ``dim``, of the flattened ``input``. ``out=`` is refused.

    >>> import strided.torch as torch
    >>> x = torch.tensor([[10, 30, 20]])
    >>> torch.take_along_dim(x, torch.argsort(x, dim=1), dim=1)
    tensor([[10, 20, 30]])
    """
    ns = _ns()
    _no_out("take_along_dim", out)
    _tensor("take_along_dim", input)
    _tensor("take_along_dim", indices, "indices")
    if indices.dtype.kind not in "iu":
        raise RuntimeError(f"take_along_dim(): dtype of indices should be Long but got {indices.dtype.name}")
    if dim is None:
        return ns.take_along_axis(input.reshape(-1), indices.reshape(-1), axis=0)
    if input.ndim != indices.ndim:
        raise RuntimeError(f"take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {input.ndim} and {indices.ndim}")
    d = _dim("take_along_dim", dim, input.ndim)
    shape_x, shape_i = list(input.shape), list(indices.shape)
    shape_x[d] = shape_i[d] = 1
    common = list(ns.broadcast_shapes(tuple(shape_x), tuple(shape_i)))
    xs, is_ = list(common), list(common)
    xs[d], is_[d] = input.shape[d], indices.shape[d]
    return ns.take_along_axis(ns.broadcast_to(input, tuple(xs)), ns.broadcast_to(indices, tuple(is_)), axis=d)


def msort(input, *, out=None) -> Array:
    """``torch.msort(input, *, out=None)``: ``input`` sorted along dim 0 (the values).

    >>> import strided.torch as torch
    >>> torch.msort(torch.tensor([[3, 1], [2, 4]]))
    tensor([[2, 1],
            [3, 4]])
    """
    if out is not None:
        return _ns().sort(_tensor("msort", input), axis=0, out=out)
    # (laid out as PyTorch's, empty_like(input))
    return _like_input(_ns().sort(_tensor("msort", input), axis=0), input)


def argwhere(input) -> Array:
    """``torch.argwhere(input)``: the indices of the nonzero elements, one row each
    (shape ``(count, input.ndim)``, int64).

    >>> import strided.torch as torch
    >>> torch.argwhere(torch.tensor([[0, 1], [1, 0]]))
    tensor([[0, 1],
            [1, 0]])
    """
    ns = _ns()
    _tensor("argwhere", input)
    if input.ndim == 0:
        n = builtins.int(ns.count_nonzero(input))
        return ns.zeros((n, 0), dtype=_dtypes.int64, device=input.device)
    return ns.astype(ns.stack(list(ns.nonzero(input)), axis=0), _dtypes.int64, copy=False).T  # (nonzero's layout)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Array:
    """``torch.repeat_interleave(input, repeats, dim=None, *, output_size=None)``: each
    element (or slice along ``dim``) repeated ``repeats`` times; ``repeat_interleave(repeats)``
    alone repeats ``arange(len(repeats))``.

    >>> import strided.torch as torch
    >>> torch.repeat_interleave(torch.tensor([1, 2]), 2)
    tensor([1, 1, 2, 2])
    >>> torch.repeat_interleave(torch.tensor([2, 1]))
    tensor([0, 0, 1])
    """
    ns = _ns()
    _tensor("repeat_interleave", input)
    if repeats is None:
        if dim is not None:
            raise TypeError("repeat_interleave(): the one-argument form repeat_interleave(repeats) takes no dim")
        if input.ndim != 1 or input.dtype.kind not in "iu":
            raise RuntimeError(f"repeat_interleave(): repeats must be a 1-d integer tensor; got "
                               f"{input.ndim}-d {input.dtype.name}")
        repeats, input = input, ns.arange(input.shape[0], dtype=input.dtype, device=input.device)
    r = ns.repeat(input, repeats, axis=dim)
    if output_size is not None and _size_along(r, dim) != output_size:
        raise RuntimeError(f"repeat_interleave(): output_size={output_size} but the result has "
                           f"{_size_along(r, dim)} elements along the repeated dimension")
    return r


def _size_along(r: Array, dim) -> builtins.int:
    return r.numel() if dim is None else r.shape[_dim("repeat_interleave", dim, r.ndim)]


def unravel_index(indices, shape) -> tuple:
    """``torch.unravel_index(indices, shape)``: the coordinates in an array of ``shape`` of
    the flat ``indices`` (a tuple of int64 arrays shaped like ``indices``; as PyTorch's,
    an index outside the shape wraps around).

    >>> import strided.torch as torch
    >>> torch.unravel_index(torch.tensor([4, 1]), (2, 3))
    (tensor([1, 0]), tensor([1, 1]))
    """
    ns = _ns()
    _tensor("unravel_index", indices, "indices")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"unravel_index(): expected 'indices' to be integer dtype, but got {indices.dtype.name}")
    if isinstance(shape, builtins.int) and type(shape) is not bool:
        shape = (shape,)
    if not isinstance(shape, (list, tuple)) or not builtins.all(
            isinstance(s, builtins.int) and type(s) is not bool for s in shape):
        raise TypeError(f"unravel_index(): expected 'shape' to be int or sequence of ints, but got {shape!r}")
    if builtins.any(s < 0 for s in shape):
        raise ValueError(f"unravel_index(): 'shape' cannot have negative values, but got {tuple(shape)}")
    coefs = list(itertools.accumulate(reversed(list(shape[1:]) + [1]), lambda a, b: a * b))[::-1]
    dev = indices.device
    flat = ns.astype(ns.expand_dims(indices, axis=-1), _dtypes.int64)
    r = ns.remainder(ns.floor_divide(flat, ns.asarray(coefs, dtype=_dtypes.int64, device=dev)),
                     ns.asarray(list(shape), dtype=_dtypes.int64, device=dev))
    return tuple(r.unbind(-1))


def _tri_indices(func: str, row, col, offset, dtype, device, lower: bool) -> Array:
    ns = _ns()
    if dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"{func}(): dtype must be torch.long or torch.int; got {dtype}")
    if row < 0 or col < 0:
        raise RuntimeError(f"{func}(): row and col must be non-negative; got row={row}, col={col}")
    i = ns.reshape(ns.arange(row, dtype=_dtypes.int64, device=device), (row, 1))
    j = ns.reshape(ns.arange(col, dtype=_dtypes.int64, device=device), (1, col))
    mask = j - i <= offset if lower else j - i >= offset
    if row == 0 or col == 0:
        return ns.zeros((2, 0), dtype=dtype, device=device)
    return ns.astype(ns.stack(list(ns.nonzero(mask)), axis=0), dtype)


def tril_indices(row, col, offset=0, *, dtype=_dtypes.int64, device=None, layout=None) -> Array:
    """``torch.tril_indices(row, col, offset=0, *, dtype=torch.long, device=None)``: the
    (row, column) coordinates of the lower triangle of a ``row`` x ``col`` matrix, as a
    2 x N array in row-major order.

    >>> import strided.torch as torch
    >>> torch.tril_indices(2, 2)
    tensor([[0, 1, 1],
            [0, 0, 1]])
    """
    return _tri_indices("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(row, col, offset=0, *, dtype=_dtypes.int64, device=None, layout=None) -> Array:
    """``torch.triu_indices(row, col, offset=0, *, dtype=torch.long, device=None)``: the
    (row, column) coordinates of the upper triangle of a ``row`` x ``col`` matrix.

    >>> import strided.torch as torch
    >>> torch.triu_indices(2, 2)
    tensor([[0, 0, 1],
            [0, 1, 1]])
    """
    return _tri_indices("triu_indices", row, col, offset, dtype, device, False)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``torch.unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)``:
    the flattened ``input`` with each run of equal elements kept once; with
    ``return_inverse``/``return_counts``, a tuple adding each element's run index (shaped
    like ``input``) and the runs' lengths. With ``dim``, runs of equal slices along ``dim``
    (the inverse then has one entry per slice). Not differentiable: where ``input`` requires
    grad, backward raises PyTorch's NotImplementedError.

    >>> import strided.torch as torch
    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 1]), return_counts=True)
    (tensor([1, 2, 1]), tensor([2, 2, 1]))
    >>> torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 0]]), dim=0)
    tensor([[1, 1],
            [2, 0]])
    """
    from ._composites import _no_derivative, _unique_dim
    ns = _ns()
    _tensor("unique_consecutive", input)
    if dim is not None:
        output, inverse, counts = _unique_dim(input, dim, return_inverse, return_counts, True)
    else:
        flat = input.detach().reshape(-1)
        n = flat.shape[0]
        dev = input.device
        first = ns.ones(builtins.min(n, 1), dtype=_dtypes.bool, device=dev)
        starts = ns.concat([first, flat[1:] != flat[:-1]], axis=0)  # (a run starts here)
        output = flat[starts]
        if return_inverse:
            run = ns.cumsum(ns.astype(starts, _dtypes.int64), axis=0) - 1
            inverse = run.reshape(tuple(input.shape))
        if return_counts:
            pos = ns.nonzero(starts)[0]
            end = ns.full((1,), n, dtype=_dtypes.int64, device=dev)
            counts = ns.diff(ns.astype(pos, _dtypes.int64), axis=0, append=end)
    output = _no_derivative(input, output, "unique_consecutive")
    if not (return_inverse or return_counts):
        return output
    result = [output]
    if return_inverse:
        result.append(inverse)
    if return_counts:
        result.append(counts)
    return tuple(result)


# --- indexed writes: index_add, index_copy, index_fill, scatter_add, scatter_reduce, ... ---------
#
# Each out-of-place form works on a copy (``clone``); its in-place method is
# ``self.copy_(<the out-of-place form>)``, so autograd and the version counter see one
# in-place write. Accumulation (``index_add``, ``scatter_add``, ``scatter_reduce``) is
# exact and in PyTorch's CPU order: the k-th occurrence of each target position is
# combined in the k-th round of writes, each round writing distinct positions
# (``_accumulate``); rounds = the largest number of repeats of one position.

def _check_index(func: str, index: Array, size: builtins.int, dim: builtins.int, exc=RuntimeError,
                 dtypes=(_dtypes.int64, _dtypes.int32)) -> None:
    if index.dtype not in dtypes:
        raise RuntimeError(
            f"{func}(): Expected dtype {'/'.join(d.name for d in dtypes)} for index; got {index.dtype.name}")
    if index.numel():
        ns = _ns()
        lo, hi = builtins.int(ns.min(index)), builtins.int(ns.max(index))
        if lo < 0 or hi >= size:
            bad = lo if lo < 0 else hi
            raise exc(f"{func}(): index {bad} is out of bounds for dimension {dim} with size {size}")


def _same_dtype(func: str, self: Array, src: Array, what: str = "source") -> None:
    _tensor(func, src, what)
    if src.dtype != self.dtype:
        raise RuntimeError(f"{func}(): self ({self.dtype.name}) and {what} ({src.dtype.name}) must have "
                           f"the same dtype")


def _linear_targets(self_shape: tuple, dim: builtins.int, index: Array) -> Array:
    """The flat positions (row-major in ``self_shape``) that ``index`` along ``dim``
    addresses, one per element of ``index`` (scatter's ``self[index[i][j]][j]``), 1-d."""
    ns = _ns()
    nd = len(self_shape)
    pos = ns.zeros((), dtype=_dtypes.int64, device=index.device)
    step = 1
    for i in reversed(range(nd)):
        if i == dim:
            coord = ns.astype(index, _dtypes.int64)
        else:
            shape = [1] * nd
            shape[i] = index.shape[i]
            coord = ns.reshape(ns.arange(index.shape[i], dtype=_dtypes.int64, device=index.device), tuple(shape))
        pos = pos + coord * step
        step *= self_shape[i]
    return ns.reshape(ns.broadcast_to(pos, tuple(index.shape)), (-1,))


def _combine_fn(reduce: str, dtype):
    ns = _ns()
    if dtype == _dtypes.bool:  # (PyTorch's bool sum is "or", its product "and")
        return ns.logical_or if reduce in ("sum", "amax") else ns.logical_and
    return {"sum": ns.add, "prod": ns.multiply, "amax": ns.maximum, "amin": ns.minimum}[reduce]


def _accumulate(base: Array, targets: Array, values: Array, reduce: str, include_self: bool) -> Array:
    """A copy of ``base`` with ``values`` combined (``reduce``) into the flat ``targets``."""
    ns = _ns()
    r = ns.clone(base.reshape(-1))
    n = targets.shape[0]
    if n:
        combine = _combine_fn(reduce, base.dtype)
        order = ns.argsort(targets, stable=True)
        sorted_t = ns.take(targets, order, axis=0)
        # the rank of each occurrence among the earlier ones of its position (0, 1, ...)
        rank_sorted = ns.arange(n, dtype=_dtypes.int64, device=targets.device) - ns.searchsorted(sorted_t, sorted_t)
        rank = ns.take(rank_sorted, ns.argsort(order, stable=True), axis=0)
        for k in range(builtins.int(ns.max(rank)) + 1):
            m = rank == k
            t, v = targets[m], values[m]
            r[t] = v if (k == 0 and not include_self) else combine(r[t], v)
    return r.reshape(tuple(base.shape))


def _scatter_args(func: str, input, dim, index, src):
    """Checked (dim, index) of a scatter, and ``src`` cut to ``index``'s shape."""
    _tensor(func, input)
    _tensor(func, index, "index")
    nd = input.ndim
    d = _dim(func, dim, builtins.max(nd, 1))
    if index.ndim != nd:
        raise RuntimeError(f"{func}(): Index tensor must have the same number of dimensions as self tensor "
                           f"({index.ndim} and {nd})")
    if type(src) is Array and src.ndim != nd:
        raise RuntimeError(f"{func}(): Index tensor must have the same number of dimensions as src tensor "
                           f"({index.ndim} and {src.ndim})")
    for i in range(nd):
        if (i != d and index.shape[i] > input.shape[i]) or (type(src) is Array and index.shape[i] > src.shape[i]):
            raise RuntimeError(f"{func}(): Expected index {list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {d} and to be no larger size than "
                               f"src {list(src.shape)}")
    _check_index(func, index, input.shape[d] if nd else 1, d)
    if type(src) is Array:
        src = src[tuple(slice(0, s) for s in index.shape)]
    return d, src


def scatter_add(input, dim, index, src, *, out=None) -> Array:
    """``torch.scatter_add(input, dim, index, src)``: a copy of ``input`` with ``src`` added at
    ``index`` along ``dim`` (``out[index[i][j]][j] += src[i][j]`` for ``dim=0``; repeats
    accumulate). ``out=`` is refused.

    >>> import strided.torch as torch
    >>> torch.scatter_add(torch.zeros(3), 0, torch.tensor([0, 0, 2]), torch.tensor([1., 2., 3.]))
    tensor([3., 0., 3.])
    """
    return scatter_reduce(input, dim, index, src, "sum", out=out, _func="scatter_add")


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None, _func="scatter_reduce") -> Array:
    """``torch.scatter_reduce(input, dim, index, src, reduce, *, include_self=True)``: a copy of
    ``input`` with ``src`` reduced into it at ``index`` along ``dim``; ``reduce`` is "sum",
    "prod", "mean", "amax" or "amin"; ``include_self=False`` leaves the old values of the
    written positions out. "mean" of integers rounds down, as PyTorch's. ``out=`` is refused.

    >>> import strided.torch as torch
    >>> x = torch.tensor([1., 5.])
    >>> torch.scatter_reduce(x, 0, torch.tensor([0, 0, 1]), torch.tensor([4., 2., 3.]), "amax")
    tensor([4., 5.])
    """
    ns = _ns()
    _no_out(_func, out)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"{_func}(): reduce argument must be one of {', '.join(_REDUCTIONS)}; got {reduce!r}")
    _tensor(_func, src, "src")
    d, src = _scatter_args(_func, input, dim, index, src)
    _same_dtype("scatter", input, src, "src")
    targets = _linear_targets(tuple(input.shape), d, index)
    values = src.reshape(-1)
    if reduce != "mean":
        return _accumulate(input, targets, values, reduce, include_self)
    total = _accumulate(input, targets, values, "sum", include_self)
    start = ns.ones_like(input) if include_self else ns.zeros_like(input)
    count = _accumulate(start, targets, ns.ones_like(values), "sum", True)
    count = ns.where(count == 0, ns.ones_like(count), count)
    if input.dtype.kind in "iu":
        return ns.floor_divide(total, count)
    return ns.divide(total, count)


def _index_args(func: str, input, dim, index, exc):
    """Checked dim and 1-d index of ``index_add``/``index_copy`` (index along ``dim``)."""
    _tensor(func, input)
    _tensor(func, index, "index")
    d = _dim(func, dim, builtins.max(input.ndim, 1))
    if index.ndim > 1:
        raise IndexError(f"{func}(): Index is supposed to be a vector, but got dim: {index.ndim}")
    _check_index(func, index, input.shape[d] if input.ndim else 1, d, exc)
    return d, index.reshape(-1)


def _index_targets(func: str, input, d, index, source):
    """The scatter index (``index`` along ``d``, broadcast to ``source``'s shape) of an
    ``index_add``/``index_copy`` of ``source`` into the (at least 1-d) ``input``."""
    ns = _ns()
    _same_dtype(func, input, source)
    want = list(input.shape)
    want[d] = index.shape[0]
    if list(source.shape) != want:
        raise RuntimeError(f"{func}(): source has shape {list(source.shape)}; expected {want} (self's shape with "
                           f"dim {d} of the index's length {index.shape[0]})")
    shape = [1] * input.ndim
    shape[d] = index.shape[0]
    return ns.broadcast_to(ns.reshape(index, tuple(shape)), tuple(source.shape))


def index_add(input, dim, index, source, *, alpha=1, out=None) -> Array:
    """``torch.index_add(input, dim, index, source, *, alpha=1)``: a copy of ``input`` with
    ``alpha * source`` added at the 1-d ``index`` along ``dim`` (repeated indices
    accumulate). ``out=`` is refused.

    >>> import strided.torch as torch
    >>> torch.index_add(torch.zeros(3), 0, torch.tensor([2, 0, 2]), torch.tensor([1., 2., 3.]))
    tensor([2., 0., 4.])
    """
    _no_out("index_add", out)
    d, index = _index_args("index_add", input, dim, index, IndexError)
    _tensor("index_add", source, "source")
    if input.dtype.kind in "iub" and not isinstance(alpha, builtins.int):
        raise TypeError(f"index_add(): alpha must be an int for an integer or bool input; got {alpha!r}")
    if input.ndim == 0:  # (a 0-d input and source: as 1-d of one element)
        return index_add(input.reshape(1), d, index, source.reshape(-1), alpha=alpha).reshape(())
    idx = _index_targets("index_add", input, d, index, source)
    if alpha != 1:
        source = source * alpha
    return _accumulate(input, _linear_targets(tuple(input.shape), d, idx), source.reshape(-1), "sum", True)


def index_copy(input, dim, index, source, *, out=None) -> Array:
    """``torch.index_copy(input, dim, index, source)``: a copy of ``input`` whose slices at the
    1-d ``index`` along ``dim`` are ``source``'s (for a repeated index, which slice lands is
    unspecified, as in PyTorch). ``out=`` is refused.

    >>> import strided.torch as torch
    >>> torch.index_copy(torch.zeros(3), 0, torch.tensor([2, 0]), torch.tensor([1., 2.]))
    tensor([2., 0., 1.])
    """
    _no_out("index_copy", out)
    d, index = _index_args("index_copy", input, dim, index, IndexError)
    _tensor("index_copy", source, "source")
    if input.ndim == 0:  # (a 0-d input and source: as 1-d of one element)
        return index_copy(input.reshape(1), d, index, source.reshape(-1)).reshape(())
    idx = _index_targets("index_copy", input, d, index, source)
    return _ns().clone(input).scatter_(d, idx, source)


def index_fill(input, dim, index, value) -> Array:
    """``torch.index_fill(input, dim, index, value)``: a copy of ``input`` with ``value`` (a
    number or a 0-d array) in the slices at the int64 ``index`` along ``dim``.

    >>> import strided.torch as torch
    >>> torch.index_fill(torch.zeros(2, 3), 1, torch.tensor([0, 2]), 7.)
    tensor([[7., 0., 7.],
            [7., 0., 7.]])
    """
    _tensor("index_fill", input)
    _tensor("index_fill", index, "index")
    d = _dim("index_fill", dim, builtins.max(input.ndim, 1))
    if index.ndim > 1:
        raise IndexError(f"index_fill(): Index has to be a vector/scalar; got {index.ndim} dimensions")
    if index.dtype != _dtypes.int64:
        raise IndexError(f"index_fill(): Expected dtype int64 for index; got {index.dtype.name}")
    if type(value) is Array and value.ndim:
        raise RuntimeError(f"index_fill(): only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value.ndim} dimension(s)")
    n = input.shape[d] if input.ndim else 1
    ns = _ns()
    index = index.reshape(-1)
    if index.numel():
        lo, hi = builtins.int(ns.min(index)), builtins.int(ns.max(index))
        if lo < -n or hi >= n:  # (negative indices count from the end, as in PyTorch)
            raise IndexError(f"index_fill(): index {lo if lo < -n else hi} is out of bounds for dimension "
                             f"{d} with size {n}")
    r = ns.clone(input)
    if r.ndim == 0:
        if index.numel():
            r[...] = value
        return r
    # (each index once, as PyTorch's derivative of value, grad.index_select(dim,
    # _unique(index)).sum(): a repeated index fills its slice once)
    r[(slice(None),) * d + (ns.unique_values(index),)] = value
    return r


def masked_scatter(input, mask, source) -> Array:
    """``torch.masked_scatter(input, mask, source)``: a copy of ``input`` (broadcast with the
    boolean ``mask``) whose elements where ``mask`` is True are ``source``'s first elements,
    in row-major order.

    >>> import strided.torch as torch
    >>> torch.masked_scatter(torch.zeros(3), torch.tensor([True, False, True]), torch.tensor([1., 2., 3.]))
    tensor([1., 0., 2.])
    """
    ns = _ns()
    _tensor("masked_scatter", input)
    _tensor("masked_scatter", mask, "mask")
    _tensor("masked_scatter", source, "source")
    if mask.dtype != _dtypes.bool:
        raise RuntimeError(f"masked_scatter(): only supports boolean masks, but got mask with dtype {mask.dtype.name}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"masked_scatter(): expected self and source to have same dtypes but got "
                           f"{input.dtype.name} and {source.dtype.name}")
    x, m = ns.broadcast_arrays(input, mask)
    n = builtins.int(ns.count_nonzero(m))
    if source.numel() < n:
        raise RuntimeError(f"masked_scatter(): Number of elements of source ({source.numel()}) < number of "
                           f"ones in mask ({n})")
    r = ns.clone(x)
    r[m] = source.reshape(-1)[:n]
    return r


def _indexing_methods() -> None:
    """Array's methods ``x.index_add(...)`` and ``x.index_add_(...)`` (``self.copy_`` of the
    out-of-place result) for each indexing function above that Array lacks."""
    for f in (index_add, index_copy, index_fill, scatter_add, scatter_reduce, masked_scatter):
        name = f.__name__

        def method(self, *args, _f=f, **kwargs):
            return _f(self, *args, **kwargs)

        def inplace(self, *args, _f=f, **kwargs):
            return self.copy_(_f(self, *args, **kwargs))

        sig = method_signature(f)
        shown = [p for p in sig.parameters.values() if not p.name.startswith("_") and p.name != "out"]
        sig = sig.replace(parameters=shown)
        for m, n, doc in ((method, name, f"Method form of ``torch.{name}``."),
                          (inplace, name + "_", f"In-place ``torch.{name}``: ``self.copy_(torch.{name}(self, ...))``; "
                                                f"returns self.")):
            if not hasattr(Array, n):
                m.__name__ = m.__qualname__ = n
                m.__doc__ = doc
                m.__signature__ = sig
                setattr(Array, n, m)


_indexing_methods()


# --- creation and complex numbers ----------------------------------------------------------------

def _two_parts(name, a, a_name, b, b_name, out):
    """complex's and polar's checks: no ``out=``, two arrays, one dtype (PyTorch's errors)."""
    _no_out(name, out)
    _tensor(name, a, a_name)
    _tensor(name, b, b_name)
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}(): Expected object of scalar type {a.dtype.name} but got scalar type "
                           f"{b.dtype.name} for second argument")


def complex(real, imag, *, out=None) -> Array:  # noqa: A001 - PyTorch's name
    """``torch.complex(real, imag)``: the complex array ``real + imag * 1j`` of two float32
    (complex64) or float64 (complex128) arrays of one dtype, each part exact (an infinite
    imaginary part stays so), differentiable as PyTorch's (``real(grad)``, ``imag(grad)``).
    ``out=`` is refused.

    >>> import strided.torch as torch
    >>> torch.complex(torch.tensor([1.]), torch.tensor([2.]))
    tensor([1.+2.j])
    """
    ns = _ns()
    _two_parts("complex", real, "real", imag, "imag", out)
    if real.dtype not in (_dtypes.float32, _dtypes.float64):  # (no complex32: Half is refused)
        raise RuntimeError(f"complex(): Expected both inputs to be Half, Float or Double tensors but got "
                           f"{real.dtype.name} and {imag.dtype.name}")
    if (real.requires_grad or imag.requires_grad) and ns.is_grad_enabled():
        # Note: real + imag * 1j would be differentiable, but an infinite imag then gives a
        # NaN real part (inf * 0); the exact parts are written by _Complex, whose backward
        # is PyTorch's (ComplexBackward0).
        return _complex_function().apply(real, imag)
    return _complex_parts(ns, real, imag)


def _complex_parts(ns, real, imag) -> Array:
    """The complex array whose parts are ``real`` and ``imag`` (broadcast), written exactly."""
    shape = tuple(ns.broadcast_shapes(tuple(real.shape), tuple(imag.shape)))
    r = ns.zeros(shape, dtype=_dtypes.complex_of(real.dtype), device=real.device)
    r.real[...] = real
    r.imag[...] = imag
    return r


_COMPLEX_FUNCTIONS = []


def _complex_function(polar=False):
    """``complex``'s and ``polar``'s autograd Functions (made on first use: the autograd
    package imports this module's namespace), with PyTorch's derivatives (the engine sums a
    broadcast gradient down to each input's shape). complex (ComplexBackward0): ``real(grad)``
    for real, ``imag(grad)`` for imag. polar (PolarBackward0, ``polar_backward``):
    ``real(conj(grad) * sgn(result))`` for abs, ``real(conj(grad) * result * 1j)`` for angle.

    Note: polar's abs gradient is PyTorch's, which assumes ``abs >= 0``: a negative abs gets the
    negated derivative, and a zero abs a zero gradient."""
    if not _COMPLEX_FUNCTIONS:
        from ..autograd._function import Function

        class _Complex(Function):
            @staticmethod
            def forward(ctx, real, imag):
                return _complex_parts(_ns(), real, imag)

            @staticmethod
            def backward(ctx, g):
                return g.real.clone(), g.imag.clone()

        class _Polar(Function):
            @staticmethod
            def forward(ctx, abs, angle):  # noqa: A002 - PyTorch's parameter name
                ns = _ns()
                r = _complex_parts(ns, abs * ns.cos(angle), abs * ns.sin(angle))
                ctx.save_for_backward(r)
                return r

            @staticmethod
            def backward(ctx, g):
                (r,) = ctx.saved_tensors
                ns = _ns()
                gc = ns.conj(g)
                return (gc * ns.sign(r)).real.clone(), (gc * (r * 1j)).real.clone()

        _COMPLEX_FUNCTIONS.extend([_Complex, _Polar])
    return _COMPLEX_FUNCTIONS[1 if polar else 0]


def view_as_real(input) -> Array:  # noqa: A002 - PyTorch's parameter name
    """``torch.view_as_real(input)``: a complex array's memory as its real dtype, shape
    ``(*input.shape, 2)`` (a view; differentiable).

    >>> import strided.torch as torch
    >>> torch.view_as_real(torch.tensor([1 + 2j, 3 - 4j]))
    tensor([[ 1.,  2.],
            [ 3., -4.]])
    """
    return _LATE["view_as_real"](input)


def real(input) -> Array:  # noqa: A002 - PyTorch's parameter name
    """``torch.real(input)``: a complex array's real part as a view of its memory (a write
    into it writes ``input``; differentiable), or ``input`` itself when it is not complex.

    >>> import strided.torch as torch
    >>> z = torch.tensor([1 + 2j, 3 - 4j])
    >>> torch.real(z)[0] = 5.0
    >>> z
    tensor([5.+2.j, 3.-4.j])
    """
    return _tensor("real", input).real


def conj(input) -> Array:  # noqa: A002 - PyTorch's parameter name
    """``torch.conj(input)``: the complex conjugate; ``input`` itself when it is not complex,
    as PyTorch's. (PyTorch's of a complex tensor is a lazy view, its conjugate bit;
    strided's is a new array: docs/torch-differences.md.)"""
    return _tensor("conj", input).conj()


def conj_physical(input, *, out=None) -> Array:  # noqa: A002 - PyTorch's parameter name
    """``torch.conj_physical(input, *, out=None)``: the complex conjugate as a new array, or
    ``input`` itself when it is not complex (and no ``out=``), as PyTorch's."""
    x = _tensor("conj_physical", input)
    if out is None:
        return x.conj_physical()
    return _ns().conj(x, out=out)


def imag(input) -> Array:  # noqa: A002 - PyTorch's parameter name
    """``torch.imag(input)``: a complex array's imaginary part as a view of its memory
    (differentiable). PyTorch refuses an array that is not complex (RuntimeError), where
    ``strided.imag`` and NumPy's give zeros.

    >>> import strided.torch as torch
    >>> torch.imag(torch.tensor([1 + 2j, 3 - 4j]))
    tensor([ 2., -4.])
    """
    x = _tensor("imag", input)
    if x.dtype.kind != "c":
        raise _dtypes.DTypeError(f"imag is not implemented for tensors with non-complex dtypes "
                                 f"(got {x.dtype.name})")
    return x.imag


def view_as_complex(input) -> Array:  # noqa: A002 - PyTorch's parameter name
    """``torch.view_as_complex(input)``: float32/float64 (real, imaginary) pairs along a last
    axis of length 2 and stride 1 as complex64/complex128 (a view; differentiable).

    >>> import strided.torch as torch
    >>> torch.view_as_complex(torch.tensor([[1., 2.], [3., -4.]]))
    tensor([1.+2.j, 3.-4.j])
    """
    return _LATE["view_as_complex"](input)


def polar(abs, angle, *, out=None) -> Array:  # noqa: A002 - PyTorch's parameter name
    """``torch.polar(abs, angle)``: ``complex(abs * cos(angle), abs * sin(angle))``,
    differentiable through ``complex``. ``out=`` is refused.

    >>> import strided.torch as torch
    >>> torch.polar(torch.tensor([2.]), torch.tensor([0.]))
    tensor([2.+0.j])
    """
    ns = _ns()
    _two_parts("polar", abs, "abs", angle, "angle", out)
    if (abs.requires_grad or angle.requires_grad) and ns.is_grad_enabled():
        return _complex_function(polar=True).apply(abs, angle)
    return complex(abs * ns.cos(angle), abs * ns.sin(angle))


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False) -> Array:
    """``torch.scalar_tensor(s, *, dtype=None, device=None, requires_grad=False)``: a 0-d array
    holding the number ``s``, of the default float dtype unless ``dtype`` is given.

    >>> import strided.torch as torch
    >>> torch.scalar_tensor(3)
    tensor(3.)
    """
    ns = _ns()
    if type(s) is Array or not isinstance(s, (builtins.bool, builtins.int, builtins.float, builtins.complex)):
        raise TypeError(f"scalar_tensor(): s must be a Python number; got {type(s).__name__}")
    dt = dtype or _dtypes.get_default_dtype()
    if isinstance(s, builtins.complex) and dt.kind != "c":
        raise RuntimeError(f"scalar_tensor(): value cannot be converted to type {dt.name} without overflow")
    r = ns.asarray(s, dtype=dt, device=device)
    return r.requires_grad_() if requires_grad else r


def vander(x, N=None, increasing=False) -> Array:
    """``torch.vander(x, N=None, increasing=False)``: the Vandermonde matrix of the 1-d ``x``
    (columns ``x**(N-1), ..., x, 1``, or increasing powers), computed as PyTorch's, by a
    running product; integer and bool inputs give int64.

    >>> import strided.torch as torch
    >>> torch.vander(torch.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    ns = _ns()
    _tensor("vander", x, "x")
    if x.ndim != 1:
        raise RuntimeError(f"vander(): x must be a one-dimensional tensor; got {x.ndim} dimensions")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError(f"vander(): N must be non-negative; got {n}")
    if x.dtype.kind in "biu":
        x = ns.astype(x, _dtypes.int64)
    if n == 0:
        return ns.empty((x.shape[0], 0), dtype=x.dtype, device=x.device)
    cols = ns.concat([ns.ones((x.shape[0], 1), dtype=x.dtype, device=x.device),
                      ns.broadcast_to(ns.expand_dims(x, axis=1), (x.shape[0], n - 1))], axis=1)
    r = ns.cumprod(cols, axis=1)
    # (PyTorch's: row-major; ns.flip is a view)
    return r if increasing else _row_major(ns.flip(r, axis=1))


def _window(func: str, window_length, periodic, dtype, device, requires_grad, body) -> Array:
    """PyTorch's window functions: ``body(n, dtype, device)`` of ``n = window_length + 1``
    points for a periodic window (the last dropped), of ``window_length`` otherwise."""
    ns = _ns()
    dt = dtype or _dtypes.get_default_dtype()
    if dt.kind != "f":
        raise RuntimeError(f"{func}(): expects floating point dtypes, got: {dt.name}")
    if window_length < 0:
        raise RuntimeError(f"{func}(): requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        r = ns.ones(window_length, dtype=dt, device=device)
    else:
        n = window_length + 1 if periodic else window_length
        r = body(n, dt, device)
        if periodic:
            r = r[:window_length]
    return r.requires_grad_() if requires_grad else r


def _hamming(alpha, beta):
    def body(n, dt, device):
        ns = _ns()
        w = ns.arange(n, dtype=dt, device=device) * (2 * math.pi / (n - 1))
        return ns.cos(w) * -beta + alpha
    return body


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """``torch.hann_window(window_length, periodic=True, *, dtype=None, device=None,
    requires_grad=False)``: the Hann window, ``0.5 - 0.5 cos(2 pi n / (N - 1))``.

    >>> import strided.torch as torch
    >>> torch.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, _hamming(0.5, 0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """``torch.hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *,
    dtype=None, device=None, requires_grad=False)``: ``alpha - beta cos(2 pi n / (N - 1))``.

    >>> import strided.torch as torch
    >>> torch.hamming_window(3, periodic=False)
    tensor([0.0800, 1.0000, 0.0800])
    """
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, _hamming(alpha, beta))


def _blackman(n, dt, device):
    ns = _ns()
    w = ns.arange(n, dtype=dt, device=device) * (math.pi / (n - 1))
    return ns.cos(w * 4) * 0.08 - ns.cos(w * 2) * 0.5 + 0.42


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """``torch.blackman_window(window_length, periodic=True, *, dtype=None, device=None,
    requires_grad=False)``: ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    >>> import strided.torch as torch
    >>> torch.blackman_window(3, periodic=False).abs().round(decimals=4)
    tensor([0., 1., 0.])
    """
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, _blackman)


def _bartlett(n, dt, device):
    ns = _ns()
    w = ns.arange(n, dtype=dt, device=device) * (2.0 / (n - 1))
    half = (n - 1) // 2 + 1  # (the second half falls: 2 - w)
    return ns.concat([w[:half], 2 - w[half:]], axis=0)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """``torch.bartlett_window(window_length, periodic=True, *, dtype=None, device=None,
    requires_grad=False)``: the triangular window ``1 - |2n / (N - 1) - 1|``.

    >>> import strided.torch as torch
    >>> torch.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, _bartlett)


# --- PyTorch's top-level in-place forms: torch.exp_(x) is x.exp_() ------------------------------

# PyTorch 2.13's top-level names ending in "_" (``[n for n in dir(torch) if n.endswith("_")]``);
# those Array has as methods become functions here.
_TORCH_INPLACE = (
    "abs_", "acos_", "acosh_", "addmv_", "alpha_dropout_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "celu_", "clamp_",
    "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_", "deg2rad_", "detach_", "dropout_",
    "embedding_renorm_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "feature_alpha_dropout_",
    "feature_dropout_", "fill_", "fix_", "floor_", "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_",
    "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_",
    "reciprocal_", "relu_", "resize_as_", "resize_as_sparse_", "round_", "rrelu_", "rsqrt_", "selu_",
    "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "threshold_", "trunc_",
    "xlogy_", "zero_",
)


def _inplace_form(name: str):
    def call(input, *args, **kwargs):
        return getattr(_tensor(name, input), name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"``torch.{name}(input, ...)``: PyTorch's top-level in-place form, "
                    f"``input.{name}(...)``; returns ``input``.")
    call.__signature__ = method_signature(getattr(Array, name), self="input")
    return call


from . import _more_methods  # noqa: E402,F401  (Array's resize_as_ and as_strided_ first)

_INPLACE_FORMS = [n for n in _TORCH_INPLACE if hasattr(Array, n)]
globals().update({n: _inplace_form(n) for n in _INPLACE_FORMS})


def detach(input) -> Array:
    """``torch.detach(input)``: ``input.detach()``, a view of the same memory with no history.

    >>> import strided.torch as torch
    >>> torch.detach(torch.ones(2, requires_grad=True)).requires_grad
    False
    """
    return _tensor("detach", input).detach()


# --- predicates and dtype helpers -----------------------------------------------------------------

def is_nonzero(input) -> builtins.bool:
    """``torch.is_nonzero(input)``: whether the one element of ``input`` is nonzero
    (RuntimeError for any other number of elements).

    >>> import strided.torch as torch
    >>> torch.is_nonzero(torch.tensor([0.5]))
    True
    """
    n = _tensor("is_nonzero", input).numel()
    if n == 0:
        raise RuntimeError("is_nonzero(): Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("is_nonzero(): Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item())


def is_same_size(input, other) -> builtins.bool:
    """``torch.is_same_size(input, other)``: whether the two arrays have the same shape.

    >>> import strided.torch as torch
    >>> torch.is_same_size(torch.ones(2, 3), torch.zeros(2, 3))
    True
    """
    return tuple(_tensor("is_same_size", input).shape) == tuple(_tensor("is_same_size", other, "other").shape)


def is_signed(input) -> builtins.bool:
    """``torch.is_signed(input)``: whether ``input``'s dtype is signed (not bool or unsigned).

    >>> import strided.torch as torch
    >>> torch.is_signed(torch.tensor([1])), torch.is_signed(torch.tensor([True]))
    (True, False)
    """
    return _tensor("is_signed", input).dtype.kind not in "bu"


def is_conj(input) -> builtins.bool:
    """``torch.is_conj(input)``: always False -- strided conjugates eagerly (``conj`` copies),
    so no array carries PyTorch's lazy conjugation bit.

    >>> import strided.torch as torch
    >>> torch.is_conj(torch.tensor([1j]).conj())
    False
    """
    _tensor("is_conj", input)
    return False


def is_neg(input) -> builtins.bool:
    """``torch.is_neg(input)``: always False -- strided has no lazy negation bit.

    >>> import strided.torch as torch
    >>> torch.is_neg(torch.ones(1))
    False
    """
    _tensor("is_neg", input)
    return False


def resolve_conj(input) -> Array:
    """``torch.resolve_conj(input)``: ``input`` itself (no array has a lazy conjugation bit).

    >>> import strided.torch as torch
    >>> x = torch.ones(2)
    >>> torch.resolve_conj(x) is x
    True
    """
    return _tensor("resolve_conj", input)


def resolve_neg(input) -> Array:
    """``torch.resolve_neg(input)``: ``input`` itself (no array has a lazy negation bit).

    >>> import strided.torch as torch
    >>> x = torch.ones(2)
    >>> torch.resolve_neg(x) is x
    True
    """
    return _tensor("resolve_neg", input)


_TENSOR_TYPE = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
    "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
}
# (PyTorch's CPU type names back to the dtypes' names: x.type('torch.DoubleTensor'))
TENSOR_TYPE_DTYPES = {f"torch.{v}Tensor": k for k, v in _TENSOR_TYPE.items()}


def typename(obj, /) -> str:
    """``torch.typename(obj)``: an array's PyTorch type name (``'torch.FloatTensor'``,
    ``'torch.cuda.LongTensor'``), else the object's qualified name.

    >>> import strided.torch as torch
    >>> torch.typename(torch.ones(2, device="cpu")), torch.typename(1.0)
    ('torch.FloatTensor', 'float')
    """
    if type(obj) is Array:
        where = "" if obj.device.type == "cpu" else f"{obj.device.type}."
        return f"torch.{where}{_TENSOR_TYPE[obj.dtype.name]}Tensor"
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def promote_types(type1, type2):
    """``torch.promote_types(type1, type2)``: the dtype PyTorch's type promotion gives two
    dtypes (RuntimeError for uint16/uint32/uint64 with another dtype, as PyTorch).

    >>> import strided.torch as torch
    >>> torch.promote_types(torch.int64, torch.float32)
    strided.float32
    """
    for t in (type1, type2):
        if not isinstance(t, _dtypes.DType):
            raise TypeError(f"promote_types(): expected dtypes; got {type(t).__name__}")
    wide = ("uint16", "uint32", "uint64")
    if type1 != type2 and (type1.name in wide or type2.name in wide):
        other = type2 if type1.name in wide else type1
        if other.kind == "f":  # (PyTorch: a float with a wide unsigned int is the float)
            return other
        raise RuntimeError(f"promote_types(): Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {type1.name} and {type2.name}")
    return _ns().result_type(type1, type2)


def get_device(input) -> builtins.int:
    """``torch.get_device(input)``: the device index of ``input``, -1 on the CPU.

    >>> import strided.torch as torch
    >>> torch.get_device(torch.ones(1, device="cpu"))
    -1
    """
    dev = _tensor("get_device", input).device
    if dev.type == "cpu":
        return -1
    return dev.index or 0


__all__ = sorted([
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "hstack", "vstack", "row_stack", "dstack",
    "column_stack", "tensor_split", "hsplit", "vsplit", "dsplit", "unbind", "swapaxes", "select", "fliplr",
    "flipud", "rot90", "diag_embed", "diagflat", "block_diag", "cartesian_prod", "combinations",
    "take_along_dim", "msort", "argwhere", "repeat_interleave", "unravel_index", "tril_indices",
    "triu_indices", "unique_consecutive",
    "index_add", "index_copy", "index_fill", "scatter_add", "scatter_reduce", "masked_scatter",
    "complex", "polar", "real", "imag", "conj", "conj_physical", "view_as_real", "view_as_complex", "scalar_tensor", "vander", "hann_window", "hamming_window", "blackman_window",
    "bartlett_window",
    "detach", "is_nonzero", "is_same_size", "is_signed", "is_conj", "is_neg", "resolve_conj", "resolve_neg",
    "typename", "promote_types", "get_device",
] + _INPLACE_FORMS)
