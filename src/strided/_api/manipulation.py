"""Manipulation functions: joining, splitting, rolling, repeating and tiling.

The standard's view functions (reshape, permute_dims, expand_dims, squeeze,
flip, moveaxis, broadcast_*) live in ``_views``. Here, functions that return
pieces of an array (``unstack``, ``split``, ``chunk``, ``narrow``) return
views made by basic indexing; functions that build a new array (``concat``,
``stack``, ``roll``, ``repeat``, ``tile``) allocate their result once and
copy into it. ``repeat`` and ``tile`` are a broadcast view (stride 0 on the
repeated axis) copied by one ``clone``.
"""

from __future__ import annotations

import builtins
import itertools
import operator

import numpy as np

from .._core import _npcompat, layout as _layout, pool as _pool
from .._core.array import _LATE, Array
from .creation import _finish, wrap_new
from .._core.dispatch import api, check_devices
from .._core.dtypes import PROMOTION
from .._core.device import CPU as _CPU
from .views import broadcast_to, clone, expand_dims, moveaxis, permute_dims, reshape

_new_array = Array._new
_np_concatenate = _npcompat.concatenate  # (ndarrays of our own: no __array_function__ to ask)

__all__ = [
    "concat", "stack", "unstack", "roll", "repeat", "tile",
    "cat", "split", "chunk", "narrow", "unfold", "movedim", "swapdims",
]


def _check(x, func):
    if type(x) is not Array:
        raise TypeError(f"{func}(): expected a strided array; got {type(x).__name__}")


def _axis_of(x, axis, func) -> int:
    """``axis`` (an int or a dimension name) as a position in ``x``, which must not be 0-d."""
    if type(axis) is str:
        axis = _LATE["name_to_axis"](x, axis)
    if x.ndim == 0:
        raise IndexError(f"{func}(): axis {axis} is out of bounds for a 0-d array")
    return _layout.normalize_axis(axis, x.ndim, func)


def _int(v, func, what) -> int:
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{func}(): {what} must be an int; got {type(v).__name__}") from None


def _slice_along(x, axis: int, start: int, stop: int) -> Array:
    """``x[:, ..., start:stop]`` on ``axis``: a view."""
    return x[(slice(None),) * axis + (slice(start, stop),)]


def _sequence(arrays, func):
    """Validate a list/tuple of arrays; return (arrays, device, promoted dtype)."""
    if type(arrays) is Array or not isinstance(arrays, (list, tuple)):
        raise TypeError(f"{func}(): expected a list or tuple of arrays; got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{func}(): needs at least one array")
    for a in arrays:
        if type(a) is not Array:
            raise TypeError(f"{func}(): every element must be a strided array; got {type(a).__name__}")
    dev = check_devices(func, *arrays)
    dt = arrays[0]._dtype
    for a in arrays[1:]:
        dt = PROMOTION[dt, a._dtype]
    return tuple(arrays), dev, dt


def _join(func, arrays, axis, dev, dt) -> Array:
    """Concatenate same-ndim ``arrays`` along ``axis`` into one new array of dtype ``dt``."""
    first = arrays[0]._shape
    for a in arrays[1:]:
        s = a._shape
        if len(s) != len(first) or s[:axis] + s[axis + 1:] != first[:axis] + first[axis + 1:]:
            raise _layout.ShapeError(f"{func}(): arrays must have the same shape except on axis {axis}; "
                             f"got {first} and {s}")
    total = 0
    for a in arrays:
        total += a._shape[axis]
    shape = first[:axis] + (total,) + first[axis + 1:]
    if dev.type == "cpu":
        # One NumPy call into the C-order result (the pieces' layout would choose the
        # result's strides without ``out=``): each piece cast by assignment's unsafe
        # casting, as the loop below writes it.
        r = np.empty(shape, dtype=dt._np)
        np.concatenate([a._np if a._np is not None else a._get_native() for a in arrays],
                       axis=axis, out=r, casting="unsafe")
        return wrap_new(r, dt, dev)
    xp = dev.backend.xp
    with dev.backend.ctx(dev):
        r = xp.empty(shape, dtype=dt._np)
        lead = (slice(None),) * axis
        start = 0
        for a in arrays:
            n = a._shape[axis]
            if n:
                r[lead + (slice(start, start + n),)] = a._get_native()
            start += n
    return wrap_new(r, dt, dev)


def _join_plain(arrays, axis: int, new_axis: bool):
    """``concat(arrays, axis=axis)`` (``stack`` when ``new_axis``) in one NumPy call, for
    the plain case: a list or tuple of extension-free CPU arrays of one dtype and one
    shape but on the joined axis (an int in range), or None, nothing done, for anything
    else (the general path then checks, promotes and raises as it does). The result is
    ``_join``'s: a new C-order array, every element copied as it is."""
    t = type(arrays)
    if (t is not list and t is not tuple) or not arrays:
        return None
    a0 = arrays[0]
    if type(a0) is not Array:
        return None
    dt = a0._dtype
    dev = a0._device
    first = a0._shape
    nd = len(first) + new_axis
    if dev.type != "cpu" or not -nd <= axis < nd or not nd:
        return None
    if nd == 1 and not new_axis:
        # vectors joined: the loop below without its shape bookkeeping (one axis to match)
        natives = []
        for a in arrays:
            if type(a) is not Array or a._ext is not None or a._dtype is not dt \
                    or a._device is not dev or len(a._shape) != 1:
                return None
            natives.append(a._np if a._np is not None else a._get_native())
        r = _np_concatenate(natives)  # (a fresh vector is C-order whatever its pieces' steps)
        return _new_array(r, None, 0, r.shape, None, dt, dev)
    if axis < 0:
        axis += nd
    lead, rest = first[:axis], first[axis + (not new_axis):]
    natives = []
    total = 0
    for a in arrays:
        if type(a) is not Array or a._ext is not None or a._dtype is not dt or a._device is not dev:
            return None
        s = a._shape
        if new_axis:
            if s != first:
                return None
            total += 1
        else:
            if len(s) != nd or s[:axis] != lead or s[axis + 1:] != rest:
                return None
            total += s[axis]
        natives.append(a._np if a._np is not None else a._get_native())
    if new_axis:
        key = (slice(None),) * axis + (None,)
        natives = [p[key] for p in natives]
    if nd == 1:  # (a fresh vector is C-order whatever its pieces' steps)
        r = _np_concatenate(natives)
    else:  # (``out=``: the pieces' own layout would choose the result's strides)
        r = np.empty(lead + (total,) + rest, dtype=dt._np)
        _np_concatenate(natives, axis=axis, out=r)
    return Array._new(r, None, 0, r.shape, None, dt, dev)


def _join_flat(arrays, dev, dt) -> Array:
    """The elements of ``arrays``, each in row-major order, one after another (one copy)."""
    sizes = [_layout.prod(a._shape) for a in arrays]
    xp = dev.backend.xp
    with dev.backend.ctx(dev):
        r = xp.empty((builtins.sum(sizes),), dtype=dt._np)
        start = 0
        for a, n in zip(arrays, sizes):
            if n:
                # a contiguous 1-D slice reshapes to a view, so no temporary is made
                r[start:start + n].reshape(a._shape)[...] = a._get_native()
            start += n
    return wrap_new(r, dt, dev)


@api("concat")
def concat(arrays, /, axis=0, *, out=None) -> Array:
    """Join arrays along an existing axis (flattened first when ``axis`` is None).

    Mixed dtypes promote.

    >>> import strided as xp
    >>> xp.concat([xp.asarray([1, 2]), xp.asarray([3])]).tolist()
    [1, 2, 3]
    """
    if out is None and type(axis) is int:
        r = _join_plain(arrays, axis, False)
        if r is not None:
            return r
    arrays, dev, dt = _sequence(arrays, "concat")
    if axis is None:
        return _finish(_join_flat(arrays, dev, dt), "concat", out)
    nd = arrays[0].ndim
    for a in arrays:
        if a.ndim != nd:
            raise _layout.ShapeError(f"concat(): arrays must have the same number of dimensions; "
                             f"got shapes {arrays[0]._shape} and {a._shape}")
    ax = _axis_of(arrays[0], axis, "concat")
    return _finish(_join("concat", arrays, ax, dev, dt), "concat", out)


def cat(tensors, dim=0, *, out=None) -> Array:
    """PyTorch's name for ``concat`` (``dim`` is the axis)."""
    return concat(tensors, axis=dim, out=out)


@api("stack")
def stack(arrays, /, axis=0, *, out=None) -> Array:
    """Join arrays of one shape along a new axis (position ``axis`` in the result)."""
    if out is None and type(axis) is int:
        r = _join_plain(arrays, axis, True)
        if r is not None:
            return r
    arrays, dev, dt = _sequence(arrays, "stack")
    shape = arrays[0]._shape
    for a in arrays:
        if a._shape != shape:
            raise _layout.ShapeError(f"stack(): arrays must have the same shape; got {shape} and {a._shape}")
    ax = _layout.normalize_axis(axis, len(shape) + 1, "stack")
    views = tuple(expand_dims(a, axis=ax) for a in arrays)
    return _finish(_join("stack", views, ax, dev, dt), "stack", out)


@api("unstack")
def unstack(x, /, axis=0) -> tuple:
    """Split ``x`` along ``axis`` into a tuple of views, one per index."""
    _check(x, "unstack")
    ax = _axis_of(x, axis, "unstack")
    lead = (slice(None),) * ax
    return tuple(x[lead + (i,)] for i in range(x._shape[ax]))


# --- roll ----------------------------------------------------------------------

def _rolled(x: Array, shifts: dict) -> Array:
    """A new array: ``x`` rolled by ``shifts[axis]`` (in ``[1, n)``) on each axis."""
    dev = x._device
    a = x._get_native()
    xp = dev.backend.xp
    with dev.backend.ctx(dev):
        r = xp.empty(x._shape, dtype=x._dtype._np)
        # Each rolled axis splits into two blocks; copy every combination of blocks
        # (with no rolled axis, the one combination is the whole array).
        pieces = []
        for ax, s in shifts.items():
            n = x._shape[ax]
            pieces.append(((ax, slice(s, n), slice(0, n - s)), (ax, slice(0, s), slice(n - s, n))))
        for combo in itertools.product(*pieces):
            dst = [slice(None)] * x.ndim
            src = [slice(None)] * x.ndim
            for ax, d, s in combo:
                dst[ax] = d
                src[ax] = s
            r[tuple(dst)] = a[tuple(src)]
    return wrap_new(r, x._dtype, dev)


@api("roll")
def roll(x, /, shift, axis=None, *, out=None) -> Array:
    """Shift elements along ``axis`` cyclically (over the flattened array when ``axis`` is None).

    ``shift`` and ``axis`` may be tuples of one length; a repeated axis adds its shifts.
    """
    _check(x, "roll")
    if axis is None:
        if isinstance(shift, (tuple, list)):
            raise _layout.ArgumentError("roll(): a tuple shift needs a tuple axis of the same length")
        s = _int(shift, "roll", "shift")
        n = _layout.prod(x._shape)
        flat = reshape(x, (n,))
        r = _rolled(flat, {0: s % n} if n and s % n else {})
        return _finish(reshape(r, x._shape), "roll", out)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    if isinstance(shift, (tuple, list)):
        shifts = tuple(_int(s, "roll", "shift") for s in shift)
        if len(shifts) != len(axes):
            raise _layout.ArgumentError(f"roll(): shift {tuple(shift)} and axis {axes} differ in length")
    else:
        shifts = (_int(shift, "roll", "shift"),) * len(axes)
    total: dict = {}
    for a, s in zip(axes, shifts):
        ax = _axis_of(x, a, "roll")
        total[ax] = total.get(ax, 0) + s
    norm = {}
    for ax, s in total.items():
        n = x._shape[ax]
        if n and s % n:
            norm[ax] = s % n
    return _finish(_rolled(x, norm), "roll", out)


# --- repeat and tile ---------------------------------------------------------------

def _repeat_counts(x, repeats, size):
    """``repeats`` as an int, or as a host array of ``size`` non-negative counts."""
    if type(repeats) is Array:
        if repeats._dtype.kind not in "iu":
            raise TypeError(f"repeat(): repeats must have an integer dtype; got {repeats._dtype.name}")
        if repeats._device is not x._device:
            raise ValueError(f"repeat(): repeats is on {repeats._device} but x is on {x._device}")
        if repeats.ndim > 1 or (repeats.ndim == 1 and repeats._shape[0] not in (1, size)):
            raise ValueError(f"repeat(): repeats of shape {repeats._shape} can't be broadcast "
                             f"to ({size},)")
        counts = repeats._host().reshape(-1)
        if counts.size and counts.min() < 0:
            raise ValueError("repeat(): repeats must be non-negative")
        counts = counts.astype(np.int64)
        if counts.size == 1:
            return builtins.int(counts[0])
        return counts
    if isinstance(repeats, (builtins.bool, np.bool_)):
        raise TypeError("repeat(): repeats must be an int or an integer array; got bool")
    try:
        r = operator.index(repeats)
    except TypeError:
        raise TypeError(f"repeat(): repeats must be an int or an integer array; "
                        f"got {type(repeats).__name__}") from None
    if r < 0:
        raise ValueError(f"repeat(): repeats must be non-negative; got {r}")
    return r


@api("repeat")
def repeat(x, repeats, /, *, axis=None, out=None) -> Array:
    """Repeat each element ``repeats`` times along ``axis`` (of the flattened array when None).

    ``repeats`` is an int or a 1-D integer array with one count per element.
    """
    # Note: PyTorch calls this ``repeat_interleave``; its ``Tensor.repeat`` is ``tile``.
    _check(x, "repeat")
    if axis is None:
        src, ax = x, None
        size = _layout.prod(x._shape)
    else:
        ax = _axis_of(x, axis, "repeat")
        src, size = x, x._shape[ax]
    counts = _repeat_counts(x, repeats, size)
    if type(counts) is builtins.int and x._ext is None and x._device.type == "cpu" \
            and _layout.prod(x._shape) * counts * x._dtype._np.itemsize < _pool.MIN_BYTES[0]:
        # A small result on the CPU: NumPy's repeat copies runs where the broadcast view's
        # copy below steps through a stride-0 axis of ``counts`` elements (2.6x NumPy at
        # 1e4); the same elements, a new C-order array (large ones stay the pool's).
        r = np.repeat(x._get_native(), counts, axis=ax)
        return _finish(wrap_new(r, x._dtype, x._device), "repeat", out)
    if type(counts) is builtins.int:
        if ax is None:
            v = broadcast_to(expand_dims(src, axis=src.ndim), src._shape + (counts,))
            return _finish(reshape(clone(v), (size * counts,)), "repeat", out)
        shape = src._shape
        v = broadcast_to(expand_dims(src, axis=ax + 1), shape[:ax + 1] + (counts,) + shape[ax + 1:])
        new_shape = shape[:ax] + (shape[ax] * counts,) + shape[ax + 1:]
        return _finish(reshape(clone(v), new_shape), "repeat", out)
    if ax is None:
        src, ax = reshape(x, (size,)), 0
    dev = x._device
    index = dev.backend.from_host(np.repeat(np.arange(size, dtype=np.int64), counts), dev)
    with dev.backend.ctx(dev):
        r = dev.backend.xp.take(src._get_native(), index, axis=ax)
    return _finish(wrap_new(r, x._dtype, dev), "repeat", out)


def _tile_small(x, reps):
    """``tile(x, reps)`` for an extension-free host ``x``, ``reps`` a tuple of non-negative
    Python ints and a result below the pool threshold (what the general path's clone copies
    with NumPy's own allocation there), or None, nothing done: the general path's copy of
    ``x`` (leading singleton axes added) seen with a new axis before each of its axes,
    broadcast by assignment into the result's C-order buffer seen as the (rep, n) pairs.
    The same elements, copied, in a new C-order array of its own memory."""
    for r in reps:
        if type(r) is not builtins.int or r < 0:
            return None
    shape = x._shape
    k = len(reps) - len(shape)
    if k > 0:
        shape = (1,) * k + shape
    elif k < 0:
        reps = (1,) * -k + reps
    pairs = []
    new_shape = []
    count = 1
    for r, n in zip(reps, shape):
        pairs += (r, n)
        new_shape.append(r * n)
        count *= r * n
    dt = x._dtype._np
    if count * dt.itemsize >= _pool.MIN_BYTES[0]:
        return None
    a = x._np if x._np is not None else x._get_native()
    key = (None,) * (2 * k if k > 0 else 0) + (None, slice(None)) * len(x._shape) + (Ellipsis,)
    r = np.empty(new_shape, dt)  # (its own memory, seen as the pairs to write it)
    r.reshape(pairs)[...] = a[key]
    return _new_array(r, None, 0, r.shape, None, x._dtype, _CPU)


@api("tile")
def tile(x, repetitions, /, *, out=None) -> Array:
    """Tile ``x``: repeat the whole array ``repetitions[i]`` times along axis ``i``.

    Shorter ``repetitions`` are padded with leading ones, a shorter shape with leading
    singleton axes.
    """
    if type(repetitions) is builtins.int:
        repetitions = (repetitions,)
    if type(repetitions) is builtins.tuple and out is None and type(x) is Array and x._ext is None \
            and x._device is _CPU:
        r = _tile_small(x, repetitions)
        if r is not None:
            return r
    _check(x, "tile")
    if isinstance(repetitions, (builtins.int, np.integer)) and not isinstance(repetitions, builtins.bool):
        repetitions = (repetitions,)
    try:
        reps = tuple(operator.index(r) for r in repetitions)
    except TypeError:
        raise TypeError(f"tile(): repetitions must be a tuple of ints; got {repetitions!r}") from None
    if any(r < 0 for r in reps):
        raise ValueError(f"tile(): repetitions must be non-negative; got {reps}")
    nd = builtins.max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    shape = (1,) * (nd - x.ndim) + x._shape
    v = reshape(x, shape)
    v = expand_dims(v, axis=tuple(range(0, 2 * nd, 2)))
    v = broadcast_to(v, tuple(n for pair in zip(reps, shape) for n in pair))
    new_shape = tuple(r * n for r, n in zip(reps, shape))
    return _finish(reshape(clone(v), new_shape), "tile", out)


# --- PyTorch's splitting views and axis aliases --------------------------------

def _dim(dim, axis):
    # Note: Array methods pass PyTorch's ``dim=`` on as ``axis=``; both spellings work.
    return dim if axis is None else axis


@api("split")
def split(x, split_size_or_sections, dim=0, *, axis=None) -> tuple:
    """Views of ``x`` in pieces along ``dim`` (PyTorch's ``split``).

    An int gives pieces of that size (the last may be smaller); a list gives the sizes.
    """
    _check(x, "split")
    if not x._shape:  # (PyTorch's RuntimeError for a 0-d input, a ShapeError here)
        raise _layout.ShapeError("split(): expects at least a 1-dimensional tensor; got a 0-d array")
    d = _axis_of(x, _dim(dim, axis), "split")
    n = x._shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = tuple(_int(s, "split", "a section size") for s in split_size_or_sections)
        if any(s < 0 for s in sizes) or builtins.sum(sizes) != n:
            raise ValueError(f"split(): sizes {sizes} must be non-negative and add up to {n}, "
                             f"the size of dimension {d}")
    else:
        size = _int(split_size_or_sections, "split", "split_size_or_sections")
        if size < 0 or (size == 0 and n):
            raise ValueError(f"split(): split size must be positive; got {size} "
                             f"for a dimension of size {n}")
        if n == 0:
            sizes = (0,)
        else:
            sizes = (size,) * (n // size) + ((n % size,) if n % size else ())
    out = []
    start = 0
    for s in sizes:
        out.append(_slice_along(x, d, start, start + s))
        start += s
    return tuple(out)


@api("chunk")
def chunk(x, chunks, dim=0, *, axis=None) -> tuple:
    """Split ``x`` into at most ``chunks`` views of equal size (the last may be smaller)."""
    _check(x, "chunk")
    if not x._shape:  # (PyTorch's RuntimeError for a 0-d input, a ShapeError here)
        raise _layout.ShapeError("chunk(): expects at least a 1-dimensional tensor; got a 0-d array")
    chunks = _int(chunks, "chunk", "chunks")
    if chunks <= 0:
        raise ValueError(f"chunk(): chunks must be positive; got {chunks}")
    d = _axis_of(x, _dim(dim, axis), "chunk")
    n = x._shape[d]
    if n == 0:
        return tuple(_slice_along(x, d, 0, 0) for _ in range(chunks))
    return split(x, -(-n // chunks), d)


@api("narrow")
def narrow(x, dim, start, length) -> Array:
    """The view ``x[..., start:start + length, ...]`` along ``dim`` (``start`` may be negative)."""
    _check(x, "narrow")
    if not x._shape:  # (PyTorch's RuntimeError for a 0-d input, a ShapeError here)
        raise _layout.ShapeError("narrow(): cannot be applied to a 0-d array")
    d = _axis_of(x, dim, "narrow")
    n = x._shape[d]
    start = _int(start, "narrow", "start")
    length = _int(length, "narrow", "length")
    if not -n <= start <= n:
        raise IndexError(f"narrow(): start {start} is out of range for dimension {d} of size {n}")
    if start < 0:
        start += n
    if length < 0 or start + length > n:
        raise _layout.ShapeError(f"narrow(): start {start} + length {length} exceeds dimension {d} "
                         f"of size {n}")
    return _slice_along(x, d, start, start + length)


@api("unfold")
def unfold(x, dim, size, step) -> Array:
    """Every window of ``size`` elements along ``dim``, ``step`` apart: a view, PyTorch's
    ``x.unfold(dim, size, step)``.

    ``dim`` becomes the window count, ``(n - size) // step + 1``, and a last axis of
    length ``size`` holds each window. Windows that overlap share memory, so the view
    can be read, not written (a write into a self-overlapping view raises).

    >>> import strided as xp
    >>> xp.arange(6).unfold(0, 3, 2).tolist()
    [[0, 1, 2], [2, 3, 4]]
    """
    _check(x, "unfold")
    if x.ndim == 0:  # Note: PyTorch's 0-d tensor: dim 0 or -1 is its one element, no window count
        _layout.normalize_axis(_LATE["name_to_axis"](x, dim) if type(dim) is str else dim, 0, "unfold")
        size, step = _int(size, "unfold", "size"), _int(step, "unfold", "step")
        if not 0 <= size <= 1:
            raise RuntimeError(f"unfold(): maximum size for a 0-d tensor is 1 but size is {size}")
        if step <= 0:
            raise RuntimeError(f"unfold(): step must be positive; got {step}")
        return x._view(x._layout()[1], (size,), (1,))  # (as PyTorch's: stride 1)
    d = _axis_of(x, dim, "unfold")
    size = _int(size, "unfold", "size")
    step = _int(step, "unfold", "step")
    n = x._shape[d]
    if size < 0 or size > n:
        raise _layout.ShapeError(f"unfold(): size {size} must be between 0 and the size {n} of dimension {d}")
    if step <= 0:
        raise ValueError(f"unfold(): step must be positive; got {step}")
    st, off, shape, strides = x._layout()
    shape = shape[:d] + ((n - size) // step + 1,) + shape[d + 1:] + (size,)
    strides = strides[:d] + (strides[d] * step,) + strides[d + 1:] + (strides[d],)
    if step < size:
        _layout.note_overlap(shape, strides)  # (overlapping windows: no cached native view)
    return x._view(off, shape, strides)


def movedim(x, source, destination) -> Array:
    """PyTorch's name for ``moveaxis``, with PyTorch's meaning for a 0-d array: its one
    "dimension" is 0 or -1 (``movedim(tensor(3.), 0, 0)`` is a view of it), where the
    standard's ``moveaxis`` has no axis to move."""
    if type(x) is Array and x.ndim == 0:
        for d in (source if isinstance(source, (tuple, list)) else (source,)) + tuple(
                destination if isinstance(destination, (tuple, list)) else (destination,)):
            if not isinstance(d, int) or d not in (0, -1):
                raise IndexError(f"movedim(): dimension {d!r} out of range (expected to be in range "
                                 f"of [-1, 0] for a 0-d array)")
        return permute_dims(x, ())  # (a view, as PyTorch's permute of its no dimensions)
    return moveaxis(x, source, destination)


def swapdims(x, dim0, dim1) -> Array:
    """Swap two dimensions (a view); PyTorch's ``swapdims``/``transpose``."""
    _check(x, "swapdims")
    nd = x.ndim
    named = (_LATE["name_to_axis"](x, d) if type(d) is str else d for d in (dim0, dim1))
    d0, d1 = (_layout.normalize_axis(d, nd, "swapdims") for d in named)
    perm = list(range(nd))
    if nd:
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return permute_dims(x, tuple(perm))

