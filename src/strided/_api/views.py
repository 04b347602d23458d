"""View functions (no data moves) and the basic copies they fall back on.

Every view here is layout arithmetic from ``_layout`` applied to the input's
(offset, shape, strides); the result shares the input's Storage.
"""

from __future__ import annotations

import builtins
import operator
import sys
import warnings

import numpy as np

from .._core import dtypes as _dtypes, layout as _layout, pool as _pool, threads as _threads
from .._core.array import _CVIEWS, _LATE, Array, Ext, Size, _native
from .creation import _as_dtype, wrap_new
from .._core.device import as_device
from .._core import dispatch as _dispatch
from .._core.dispatch import api, check_out, out_native
from .._core.dtypes import DType

_object_new = object.__new__
_MISS = object()
_SHAPES = _layout._SHAPES
_RANGES = [list(range(n)) for n in range(65)]  # sorted(axes) of a permutation of n axes
_PERMUTED: dict = {}  # (axes, shape, strides) -> permuted (shape, strides, axes, token)
_BROADCAST: dict = {}  # (shape, old shape, old strides) -> (shape, strides)
_UNSQUEEZED: dict = {}  # (axis, shape, strides) -> (shape, strides, native key)
# (shape with a -1, old shape) -> (that shape tuple, its resolved _SHAPES entry): a hit
# counts only for the very tuple it was made from (a call site's constant ``(-1, 1)``),
# as (True, -1) and (2.0, -1) are equal keys that the general path refuses.
_MINUS_ONE: dict = {}

__all__ = [
    "reshape", "view", "broadcast_to", "broadcast_arrays", "broadcast_shapes", "permute_dims",
    "matrix_transpose", "expand_dims", "unsqueeze", "squeeze", "flip", "diagonal",
    "flatten", "astype", "clone", "to_device", "moveaxis", "unflatten", "transpose", "t",
]


def _check(x, func):
    if type(x) is not Array:
        raise TypeError(f"{func}(): expected a strided array; got {type(x).__name__}")


def _axis(x, a):
    return _LATE["name_to_axis"](x, a) if type(a) is str else a


def reshape(x, /, shape, *, copy=None) -> Array:
    """New shape for the same elements: a view when strides allow, else a copy.

    ``copy=False`` raises when a view is impossible; ``copy=True`` always copies.
    """
    if type(x) is Array and x._ext is None and copy is None and type(shape) is tuple:
        # Hot path, inlined (no dispatch wrapper: no extension metadata to dispatch on):
        # a contiguous array viewed with a shape of plain ints. Two cached lookups decide
        # it; the child's native view is NumPy's reshape of the parent's when that is cached.
        try:
            new = _SHAPES.get(shape)
        except TypeError:  # an unhashable entry: the general path raises
            return _reshape(x, shape)
        if new is None:
            # (a -1 shape seen before first: _adopt_shape refuses every shape _MINUS_ONE
            # holds, and array-api-compat's reshape(x, (-1,)) comes several times a call)
            hit = _MINUS_ONE.get((shape, x._shape))
            if hit is not None and hit[0] is shape:
                new = hit[1]  # (the same tuple object: a call site's constant)
            elif (new := _adopt_shape(shape)) is None:
                new = _resolve_minus_one(shape, x._shape)
                if new is not None:
                    if len(_MINUS_ONE) >= 4096:
                        _MINUS_ONE.clear()
                    _MINUS_ONE[(shape, x._shape)] = (shape, new)
        elif new[0] is not shape:
            # An equal tuple's entry: (2.0, 5) equals (2, 5) as a key, but its sum is a
            # float; (True, 5) equals (1, 5), and a bool is refused (NumPy and PyTorch's
            # factories raise TypeError). A tuple that can hold no bool (no 0 or 1 in it)
            # becomes the entry's own, so a loop passing it again takes the identity test.
            if type(sum(shape)) is not builtins.int:
                new = None
            elif 1 not in shape and 0 not in shape:
                new = _SHAPES[shape] = (shape, new[1], new[2])
            elif any(type(n) is builtins.bool for n in shape):
                new = None  # (True equals 1 as a key; a bool is no size: the general path raises)
        if new is not None:
            st = x._st
            if st is None:
                x._materialize()
                st = x._st
            old = _SHAPES.get(x._shape) or _layout.shape_info(x._shape)  # (our own ints)
            if new[1] == old[1] and x._str == old[2]:
                p = x._np
                out = _object_new(Array)
                out._np = None if p is None else p.reshape(new[0])  # (the entry's ints)
                out._st = st
                out._off = x._off
                out._shape = new[0]
                out._str = new[2]
                out._dtype = x._dtype
                out._device = x._device
                out._ext = None
                return out
            if new[0] == x._shape:
                # Its own shape (SciPy reshapes a moved-axis view back to the shape it has):
                # a view with the same strides, whatever they are.
                out = _object_new(Array)
                out._np = x._np
                out._st = st
                out._off = x._off
                out._shape = x._shape
                out._str = x._str
                out._dtype = x._dtype
                out._device = x._device
                out._ext = None
                return out
            if new[1] == old[1]:
                # Any other layout: _reshape's view or copy, without its entry and its
                # shape normalisation (the entry's shape is resolved: plain ints, one size)
                strides = _layout.view_strides(x._shape, x._str, new[0])
                if strides is None:
                    return _from_copy(x, new[0])
                return x._view(x._off, new[0], strides)
    if copy is None:
        return _reshape(x, shape)
    return _reshape(x, shape, copy=copy)


def _adopt_shape(shape: tuple):
    """A new ``_SHAPES`` entry ``(shape, size, contiguous strides)``, or None unless
    ``shape`` holds non-negative Python ints only."""
    for n in shape:
        if type(n) is not builtins.int or n < 0:
            return None
    return _layout.shape_info(shape)


def _resolve_minus_one(shape: tuple, old: tuple):
    """The ``_SHAPES`` entry of ``shape`` with its one ``-1`` resolved against the size of
    ``old`` (``reshape(x, (-1,))``: scikit-learn's and SciPy's ravel), or None: anything
    else (two -1s, other negatives, non-ints, a size that doesn't divide) takes the general
    path, which raises what it raises."""
    neg = -1
    known = 1
    for i, n in enumerate(shape):
        if type(n) is not builtins.int:
            return None
        if n < 0:
            if n != -1 or neg >= 0:
                return None
            neg = i
        else:
            known *= n
    if neg < 0 or not known:
        return None
    info = _SHAPES.get(old) or _layout.shape_info(old)
    if info is None:
        return None
    size = info[1]
    if size % known:
        return None
    return _layout.shape_info(shape[:neg] + (size // known,) + shape[neg + 1:])


@api("reshape")
def _reshape(x, /, shape, *, copy=None) -> Array:
    """``reshape`` past its hot path (and the function extensions dispatch to)."""
    _check(x, "reshape")
    if isinstance(shape, (builtins.int, np.integer)):
        shape = (shape,)
    shape = _layout.infer_shape(shape, _layout.prod(x._shape), "reshape")
    if copy:
        return _from_copy(x, shape)
    st, off, old, strides = x._layout()
    new_strides = _layout.view_strides(old, strides, shape)
    if new_strides is None:
        if copy is False:
            raise ValueError(f"reshape(copy=False): an array of shape {old} and strides {strides} "
                             f"can't be viewed as shape {shape} without a copy")
        return _from_copy(x, shape)
    return x._view(off, shape, new_strides)


reshape._impl = _reshape._impl
reshape._api_name = "reshape"


def _from_copy(x, shape):
    c = clone(x)
    if c._st is None and c._ext is None:
        # clone's fresh C-order result: its native reshaped, still without a Storage
        # (reshape(c) would make one for the view; ``shape`` is resolved already)
        r = c._np.reshape(shape)
        return Array._new(r, None, 0, r.shape, None, c._dtype, c._device)
    return reshape(c, shape)


@api("view")
def view(x, shape) -> Array:
    """The same data with a new shape (``-1`` inferred); never copies."""
    _check(x, "view")
    shape = _layout.infer_shape(shape, _layout.prod(x._shape), "view")
    st, off, old, strides = x._layout()
    new_strides = _layout.view_strides(old, strides, shape)
    if new_strides is None:
        raise RuntimeError(
            f"view size is not compatible with input array's size and stride (shape {old}, "
            f"strides {strides}): at least one dimension spans across two contiguous subspaces. "
            f"Use .reshape(...) instead.")
    return x._view(off, shape, new_strides)


class ViewDtypeError(ValueError, RuntimeError):
    """A reinterpretation (``view(dtype)``, ``view_as_complex``) the layout does not allow:
    a ValueError, and the RuntimeError PyTorch raises."""


def view_dtype(x, dtype: DType) -> Array:
    """Reinterpret the bytes as another dtype (a view), as PyTorch's ``x.view(dtype)``.

    A dtype of another size changes the last axis: it must have stride 1, and its length,
    the offset and every other stride must be whole numbers of the larger element (float32
    ``(2, 4)`` as float64 is ``(2, 2)``; float64 ``(3,)`` as int16 is ``(12,)``).
    """
    old, new = x._dtype.itemsize, dtype.itemsize
    st, off, shape, strides = x._layout()
    if new == old:
        if dtype is st.dtype:
            return x._view(off, shape, strides)
        # Note: the reinterpreted memory gets its own Storage object (its dtype differs),
        # one per dtype, sharing the memory's version counter.
        return Array._from_storage(st._reinterpret(dtype, st._data.view(dtype._np)), off, shape, strides)
    what = f"to view {x._dtype.name} as {dtype.name} (different element sizes)"
    if not shape:
        raise ViewDtypeError(f"view(dtype): a 0-d array has no last axis {what}")
    if strides[-1] != 1:
        raise ViewDtypeError(f"view(dtype): the last axis must have stride 1 {what}, but it has "
                             f"stride {strides[-1]} (strides {strides})")
    if new > old:
        k = new // old
        for what_is, v in ((f"the last axis's length (shape {shape})", shape[-1]),
                           ("the storage offset", off),
                           *((f"the stride of axis {i} (strides {strides})", s)
                             for i, s in enumerate(strides[:-1]))):
            if v % k:
                raise ViewDtypeError(f"view(dtype): {what_is} must be divisible by {k} {what}, "
                                     f"but it is {v}")
        off, shape = off // k, shape[:-1] + (shape[-1] // k,)
        strides = tuple(s // k for s in strides[:-1]) + (1,)
    else:
        k = old // new
        off, shape = off * k, shape[:-1] + (shape[-1] * k,)
        strides = tuple(s * k for s in strides[:-1]) + (1,)
    return Array._from_storage(_reinterpreted(st, dtype), off, shape, strides)


def _reinterpreted(st, dtype: DType):
    """The Storage of ``st``'s memory seen as ``dtype``, of another element size: its last
    bytes, short of one element, are not seen."""
    data = st._data
    if data.nbytes % dtype.itemsize:
        data = data.view(np.uint8)[:data.nbytes - data.nbytes % dtype.itemsize]
    return st._reinterpret(dtype, data.view(dtype._np))


@api("view_as_real")
def view_as_real(x) -> Array:
    """PyTorch's ``view_as_real``: a complex array's memory as its real dtype, shape
    ``(*x.shape, 2)`` (the real and imaginary parts last; a view, differentiable)."""
    _check(x, "view_as_real")
    if x._dtype.kind != "c":
        raise ViewDtypeError(f"view_as_real is only supported for complex arrays, got {x._dtype.name}")
    real = _dtypes.real_of(x._dtype)
    st, off, shape, strides = x._layout()
    fst = st._reinterpret(real, st._data.view(real._np))
    return Array._from_storage(fst, 2 * off, shape + (2,), tuple(2 * s for s in strides) + (1,))


@api("view_as_complex")
def view_as_complex(x) -> Array:
    """PyTorch's ``view_as_complex``: a float32/float64 array whose last axis is (real,
    imaginary) pairs, of length 2 and stride 1, as complex64/complex128 of shape
    ``x.shape[:-1]`` (a view, differentiable; the other strides and the offset must be even)."""
    _check(x, "view_as_complex")
    if x._dtype.name not in ("float32", "float64"):
        raise ViewDtypeError(f"view_as_complex is only supported for float32 and float64 arrays, "
                             f"got {x._dtype.name}")
    st, off, shape, strides = x._layout()
    if not shape:
        raise ViewDtypeError("view_as_complex: the input must have one or more dimensions, got a 0-d array")
    if shape[-1] != 2:
        raise ViewDtypeError(f"view_as_complex: the last axis must have length 2, got shape {shape}")
    if strides[-1] != 1:
        raise ViewDtypeError(f"view_as_complex: the last axis must have stride 1, got strides {strides}")
    if any(s % 2 for s in strides[:-1]):
        raise ViewDtypeError(f"view_as_complex: every stride but the last must be divisible by 2, "
                             f"got strides {strides}")
    if off % 2:
        raise ViewDtypeError(f"view_as_complex: the storage offset must be divisible by 2, got {off}")
    return Array._from_storage(_reinterpreted(st, _dtypes.complex_of(x._dtype)), off // 2, shape[:-1],
                               tuple(s // 2 for s in strides[:-1]))


def broadcast_shapes(*shapes) -> tuple:
    """The shape that ``shapes`` broadcast to (ValueError naming them otherwise)."""
    return Size(_layout.broadcast_shapes(*(tuple(s) for s in shapes)))


def broadcast_to(x, /, shape) -> Array:
    """A view of ``x`` with ``shape`` (stretched dimensions get stride 0)."""
    if type(x) is Array and x._ext is None and type(shape) is tuple:
        # Hot path, inlined: the new (shape, strides) cached per (shape, old shape, old
        # strides) for a shape of non-negative Python ints; a mismatch takes the general
        # path (its error). The child's native view is built when a kernel needs it
        # (NumPy's broadcast_to costs several times the view).
        st = x._st
        if st is None:
            x._materialize()
            st = x._st
        try:
            hit = _BROADCAST.get((shape, x._shape, x._str))
        except TypeError:  # an unhashable entry: the general path raises
            return _broadcast_to(x, shape)
        if hit is None:
            hit = _broadcast_layout(shape, x._shape, x._str)
        elif hit[0] is not shape:  # an equal tuple (see reshape)
            if type(sum(shape)) is not builtins.int:
                hit = None
            elif 1 not in shape and 0 not in shape:
                hit = _BROADCAST[shape, x._shape, x._str] = (shape, hit[1])
            elif any(type(n) is builtins.bool for n in shape):
                hit = None  # (see reshape)
        if hit is not None:
            out = _object_new(Array)
            out._np = None
            out._st = st
            out._off = x._off
            out._shape = hit[0]
            out._str = hit[1]
            out._dtype = x._dtype
            out._device = x._device
            out._ext = None
            return out
    return _broadcast_to(x, shape)


def _broadcast_layout(shape: tuple, old: tuple, strides: tuple):
    """``(shape, strides)`` of ``old`` broadcast to ``shape``, cached; None for anything
    but non-negative Python ints or a shape that ``old`` does not broadcast to."""
    for n in shape:
        if type(n) is not builtins.int or n < 0:
            return None
    lead = len(shape) - len(old)
    if lead < 0:
        return None
    new = [0] * lead
    for n, m, sd in zip(shape[lead:], old, strides):
        if n == m:
            new.append(sd)
        elif m == 1:
            new.append(0)
        else:
            return None
    hit = (shape, tuple(new))
    if len(_BROADCAST) > 4096:
        _BROADCAST.clear()
    _BROADCAST[shape, old, strides] = hit
    return hit


@api("broadcast_to")
def _broadcast_to(x, /, shape) -> Array:
    """``broadcast_to`` past its hot path (and the function extensions dispatch to)."""
    _check(x, "broadcast_to")
    shape = _layout.shape_ints(shape, "broadcast_to")
    st, off, old, strides = x._layout()
    new_strides = _layout.broadcast_to(old, strides, shape)
    return x._view(off, shape, new_strides)


broadcast_to._impl = _broadcast_to._impl
broadcast_to._api_name = "broadcast_to"


@api("broadcast_arrays")
def broadcast_arrays(*arrays) -> tuple:
    """Views of ``arrays`` broadcast to their common shape (a tuple, as in the 2025.12 standard)."""
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    for i, a in enumerate(arrays):
        if not isinstance(a, Array):  # (PyTorch's broadcast_tensors raises TypeError too)
            raise TypeError(f"broadcast_arrays(): expected an array as argument {i}; "
                            f"got {type(a).__name__}")
    shape = _layout.broadcast_shapes(*(a._shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


def permute_dims(x, /, axes) -> Array:
    """A view with the axes permuted."""
    if type(x) is Array and x._ext is None and type(axes) is tuple:
        # Hot path, inlined: the permuted (shape, strides) cached per (axes, shape, strides)
        # for non-negative Python int axes that are a permutation of range(ndim); the
        # child's native view is NumPy's transpose of the parent's when that is cached.
        st = x._st
        if st is None:
            x._materialize()
            st = x._st
        try:
            hit = _PERMUTED.get((axes, x._shape, x._str))
        except TypeError:  # an unhashable entry: the general path raises
            return _permute_dims(x, axes)
        if hit is None:
            hit = _permuted_layout(axes, x._shape, x._str)
        elif hit[3] is not axes:
            # An equal tuple (see reshape): the entry keeps its own ints for NumPy and
            # takes this tuple as its identity token.
            if not all(type(a) is builtins.int for a in axes):  # (bools are no axes)
                hit = None
            else:
                hit = _PERMUTED[axes, x._shape, x._str] = (hit[0], hit[1], hit[2], axes)
        if hit is not None:
            p = x._np
            out = _object_new(Array)
            out._np = None if p is None else p.transpose(hit[2])  # (the entry's ints)
            out._st = st
            out._off = x._off
            out._shape = hit[0]
            out._str = hit[1]
            out._dtype = x._dtype
            out._device = x._device
            out._ext = None
            return out
    return _permute_dims(x, axes)


def _permuted_layout(axes: tuple, shape: tuple, strides: tuple):
    """``(shape, strides, axes, token)`` permuted by ``axes`` (Python ints), cached; the
    token is the last equal tuple seen, for the hot path's identity test (``(2.0, 0, 1)``
    equals ``(2, 0, 1)`` as a key). None unless ``axes`` is a permutation of
    ``range(len(shape))`` in Python ints."""
    for a in axes:
        if type(a) is not builtins.int:
            return None
    if len(axes) != len(shape) or sorted(axes) != _RANGES[len(shape)]:
        return None
    hit = (tuple([shape[a] for a in axes]), tuple([strides[a] for a in axes]), axes, axes)
    if len(_PERMUTED) > 4096:
        _PERMUTED.clear()
    _PERMUTED[axes, shape, strides] = hit
    return hit


@api("permute_dims")
def _permute_dims(x, /, axes) -> Array:
    """``permute_dims`` past its hot path (and the function extensions dispatch to)."""
    _check(x, "permute_dims")
    axes = tuple(_axis(x, a) for a in axes)
    st, off, shape, strides = x._layout()
    shape, strides = _layout.permute(shape, strides, axes)
    return x._view(off, shape, strides)


permute_dims._impl = _permute_dims._impl
permute_dims._api_name = "permute_dims"


@api("matrix_transpose")
def matrix_transpose(x, /) -> Array:
    """Swap the last two axes (a view)."""
    _check(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose(): needs at least 2 dimensions; got shape {x._shape}")
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return permute_dims(x, tuple(axes))


def expand_dims(x, /, axis=0) -> Array:
    """Insert size-1 dimensions at ``axis`` (an int or tuple of ints); a view."""
    if type(x) is Array and x._ext is None and type(axis) is builtins.int:
        # Hot path, inlined: one int axis; the new (shape, strides) cached per (axis,
        # shape, strides), and the child's native view NumPy's own of the parent's
        # (``p[None]`` for axis 0) when that is cached.
        st = x._st
        if st is None:
            x._materialize()
            st = x._st
        hit = _UNSQUEEZED.get((axis, x._shape, x._str)) or _unsqueezed_layout(axis, x._shape, x._str)
        if hit is not None:
            p = x._np
            out = _object_new(Array)
            out._np = None if p is None else p[hit[2]]
            out._st = st
            out._off = x._off
            out._shape = hit[0]
            out._str = hit[1]
            out._dtype = x._dtype
            out._device = x._device
            out._ext = None
            return out
    return _expand_dims(x, axis=axis)


def unsqueeze(x, dim) -> Array:
    """PyTorch's name for ``expand_dims`` with one axis (also the method ``x.unsqueeze``)."""
    if type(dim) is builtins.int:
        return expand_dims(x, dim)  # its hot path
    return _expand_dims(x, axis=dim)


def _unsqueezed_layout(axis: int, shape: tuple, strides: tuple):
    """``(shape, strides, native key)`` with a size-1 dimension inserted at ``axis`` (an
    int), cached; None when ``axis`` is out of range (the general path raises). The
    native key makes the backend's own view of the parent (``None``: ``p[None]``)."""
    nd = len(shape)
    if not -nd - 1 <= axis <= nd:
        return None
    a = axis + nd + 1 if axis < 0 else axis
    hit = (shape[:a] + (1,) + shape[a:],
           strides[:a] + (strides[a] * shape[a] if a < nd else 1,) + strides[a:],
           None if a == 0 else (slice(None),) * a + (None, Ellipsis))
    if len(_UNSQUEEZED) > 4096:
        _UNSQUEEZED.clear()
    _UNSQUEEZED[axis, shape, strides] = hit
    return hit


@api("expand_dims")
def _expand_dims(x, /, axis=0) -> Array:
    """``expand_dims`` past its hot path (and the function extensions dispatch to)."""
    _check(x, "expand_dims")
    st, off, shape, strides = x._layout()
    if isinstance(axis, (tuple, list)):
        nd = len(shape) + len(axis)
        axes = sorted(_layout.normalize_axis(a, nd, "expand_dims") for a in axis)
        if len(set(axes)) != len(axes):
            raise _layout.ArgumentError(f"expand_dims(): repeated axis in {tuple(axis)}")
        for a in axes:
            shape, strides = _layout.unsqueeze(shape, strides, a)
        return x._view(off, shape, strides)
    shape, strides = _layout.unsqueeze(shape, strides, axis)
    return x._view(off, shape, strides)


expand_dims._impl = _expand_dims._impl
expand_dims._api_name = "expand_dims"


@api("squeeze")
def squeeze(x, /, axis=None) -> Array:
    """Remove size-1 dimensions (all of them when ``axis`` is None); a view."""
    _check(x, "squeeze")
    st, off, shape, strides = x._layout()
    if axis is None:
        axis = tuple(i for i, n in enumerate(shape) if n == 1)
    elif isinstance(axis, (tuple, list)):
        axis = tuple(_axis(x, a) for a in axis)
    else:
        axis = (_axis(x, axis),)
    shape, strides = _layout.squeeze(shape, strides, axis)
    return x._view(off, shape, strides)


_squeeze = squeeze  # (the hookable definition, with its binding of PyTorch's dim=)


# (x's names, the squeezed axis as a position) -> the names of the result (None:
# unnamed), for arrays whose Ext tracks no gradient: the outcome of the dispatched
# ``squeeze`` (the named handler's rule, strided.named), kept by the hot path below the
# first time it meets the pair. Names of an untracked array are all the handlers read
# (autograd passes such an array through), so an outcome is a function of its key and
# never goes stale (as _handler._VIEW_NAMES's). _SQUEEZED_LAST[0]: the last one found,
# (names, position, outcome), which a loop over one array finds by identity (one tuple,
# read once: another thread replaces it whole).
_SQUEEZED_NAMES: dict = {}
_SQUEEZED_LAST = [(_MISS, -1, None)]


def squeeze(x, /, axis=None, *, dim=None) -> Array:
    """Remove size-1 dimensions (all of them when ``axis`` is None); a view."""
    if dim is None and type(x) is Array and type(axis) is builtins.int:
        # Hot path (as reshape's, no dispatch wrapper): one axis of size 1 given as an int
        # (scikit-learn's and SciPy's ``squeeze(x, axis=1)`` of a keepdims reduction); the
        # child's native view is NumPy's squeeze of the parent's when that is cached. On
        # an array with extension metadata only when it tracks no gradient and the name
        # outcome was seen before (_SQUEEZED_NAMES); the result gets its own Ext.
        shape = x._shape
        nd = len(shape)
        a = axis + nd if axis < 0 else axis
        e = x._ext
        if e is None:
            names = None
        else:
            last = _SQUEEZED_LAST[0]
            if e.names is last[0] and a == last[1] and type(e) is Ext \
                    and e.requires_grad is False and e.grad_fn is None:
                names = last[2]
            else:
                names = _squeezed_names(e, a)
                if names is _MISS:
                    return _squeeze_seen(x, axis, a, e)
        if 0 <= a < nd and shape[a] == 1:
            st = x._st
            if st is None:
                x._materialize()
                st = x._st
            p = x._np
            s = x._str
            out = _object_new(Array)
            out._np = None if p is None else p.squeeze(a)
            out._st = st
            out._off = x._off
            out._shape = shape[:a] + shape[a + 1:]
            out._str = s[:a] + s[a + 1:]
            out._dtype = x._dtype
            out._device = x._device
            out._ext = None if names is None else _named_ext(names)
            return out
    if dim is None:
        return _squeeze(x, axis)
    return _squeeze(x, axis, dim=dim)


def _squeezed_names(e, a):
    """The cached names of the squeeze at position ``a`` of an array whose extension
    metadata is ``e`` (kept as the last outcome too), or _MISS: not cached yet, or an
    array that tracks a gradient or has no names (dispatch decides)."""
    names = e.names
    if type(e) is not Ext or e.requires_grad is not False or e.grad_fn is not None \
            or type(names) is not tuple:
        return _MISS
    hit = _SQUEEZED_NAMES.get((names, a), _MISS)
    if hit is not _MISS:
        _SQUEEZED_LAST[0] = (names, a, hit)
    return hit


def _squeeze_seen(x, axis, a, e):
    """``squeeze(x, axis)`` through dispatch (``a``: the axis's position, ``e``: x's
    extension metadata); when x tracks no gradient and has names, the result's names are
    kept in _SQUEEZED_NAMES for the hot path (a fresh view whose Ext holds names alone)."""
    names = e.names
    r = _squeeze(x, axis)
    if type(e) is not Ext or e.requires_grad is not False or e.grad_fn is not None \
            or type(names) is not tuple or e.names is not names:
        return r
    if type(r) is Array and r is not x and 0 <= a < len(x._shape):
        e = r._ext
        if e is None:
            hit = None
        elif type(e) is Ext and e.requires_grad is False and e.grad_fn is None \
                and type(e.names) is tuple and len(e.names) == len(r._shape):
            hit = e.names
        else:
            return r
        if len(_SQUEEZED_NAMES) > 4096:
            _SQUEEZED_NAMES.clear()
        _SQUEEZED_NAMES[(names, a)] = hit
        if _CVIEWS is not None and (hit is None or hit.count(None) != len(hit)):
            # (the compiled squeeze, views.c, reads the same outcome from the named views'
            # cache, under ("squeeze", x's names, the axis's position))
            from ..named._core import remember_view
            remember_view(("squeeze", names, a), hit)
    return r


def _named_ext(names):
    """A fresh Ext holding ``names`` (its other fields the defaults)."""
    e = Ext()
    e.names = names
    return e


if _CVIEWS is not None and Ext is getattr(_CVIEWS, "Ext", None) and hasattr(_CVIEWS, "named_ext"):
    _named_ext = _CVIEWS.named_ext  # (the same, compiled: names.c, from the Ext free list)


squeeze._impl = _squeeze._impl
squeeze._api_name = "squeeze"


@api("flip")
def flip(x, /, *, axis=None) -> Array:
    """Reverse the order of elements along ``axis``: a view with negative strides."""
    if axis is None and type(x) is Array:
        # Short path: every axis reversed, _layout.flip's arithmetic for all axes and
        # x._view inline
        if x._st is None:
            x._materialize()
        off, shape, strides = x._off, x._shape, x._str
        for n, s in zip(shape, strides):
            if n > 0:
                off += s * (n - 1)
        return Array._new(None, x._st, off, shape, tuple([-s for s in strides]), x._dtype, x._device)
    _check(x, "flip")
    if isinstance(axis, (tuple, list)):
        axis = tuple(_axis(x, a) for a in axis)
    elif axis is not None:
        axis = _axis(x, axis)
    st, off, shape, strides = x._layout()
    off, shape, strides = _layout.flip(off, shape, strides, axis)
    return x._view(off, shape, strides)


@api("diagonal")
def diagonal(x, /, *, offset=0, axis1=-2, axis2=-1) -> Array:
    """The diagonal of the matrices formed by ``axis1`` and ``axis2`` (a view, last axis)."""
    _check(x, "diagonal")
    st, off, shape, strides = x._layout()
    off, shape, strides = _layout.diagonal(off, shape, strides, operator.index(offset),
                                           _axis(x, axis1), _axis(x, axis2))
    return x._view(off, shape, strides)


def transpose(x, dim0, dim1) -> Array:
    """Swap two dimensions (a view), as ``torch.transpose``."""
    _check(x, "transpose")
    return x.transpose(dim0, dim1)


def t(x) -> Array:
    """Transpose a 0-, 1- or 2-D array (a view), as ``torch.t``."""
    _check(x, "t")
    return x.t()


@api("moveaxis")
def moveaxis(x, source, destination, /) -> Array:
    """Move axes to new positions (a view)."""
    _check(x, "moveaxis")
    nd = x.ndim
    src = source if isinstance(source, (tuple, list)) else (source,)
    dst = destination if isinstance(destination, (tuple, list)) else (destination,)
    src = _layout.normalize_axes(tuple(_axis(x, a) for a in src), nd, "moveaxis")
    dst = _layout.normalize_axes(dst, nd, "moveaxis")
    if len(src) != len(dst):
        raise _layout.ArgumentError(f"moveaxis(): source {source} and destination {destination} differ in length")
    order = [n for n in range(nd) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


@api("flatten")
def flatten(x, start_dim=0, end_dim=-1) -> Array:
    """Merge dimensions ``start_dim..end_dim`` into one (a view when possible)."""
    _check(x, "flatten")
    nd = x.ndim
    s = _layout.normalize_axis(_axis(x, start_dim), nd, "flatten")
    e = _layout.normalize_axis(_axis(x, end_dim), nd, "flatten")
    if nd == 0:  # (its dims 0 or -1, checked above, as PyTorch checks them)
        return reshape(x, (1,))
    if s > e:
        raise ValueError(f"flatten(): start_dim {start_dim} comes after end_dim {end_dim}")
    shape = x._shape[:s] + (_layout.prod(x._shape[s:e + 1]),) + x._shape[e + 1:]
    return reshape(x, shape)


@api("unflatten")
def unflatten(x, dim, sizes) -> Array:
    """Split dimension ``dim`` into ``sizes`` (a view when possible)."""
    _check(x, "unflatten")
    d = _layout.normalize_axis(_axis(x, dim), x.ndim, "unflatten")
    sizes = tuple(sizes)
    if not sizes:  # (PyTorch: "unflatten: sizes must be non-empty", for any length)
        raise ValueError(f"unflatten(): sizes must be non-empty (dim {dim} of shape {tuple(x._shape)})")
    inner = _layout.infer_shape(sizes, x._shape[d], "unflatten")
    return reshape(x, x._shape[:d] + inner + x._shape[d + 1:])


@api("real_view")
def complex_part(x, part: int) -> Array:
    """``x.real`` (part 0) or ``x.imag`` (part 1) of a complex array, as a view.

    The complex storage is reinterpreted as a float storage of twice the
    length over the same memory; offsets and strides double.
    """
    _check(x, "real" if part == 0 else "imag")
    if x._dtype.kind != "c":
        if part == 0:
            return x
        return _zero_imag(x)
    real = _dtypes.real_of(x._dtype)
    st, off, shape, strides = x._layout()
    # Note: the float reinterpretation gets its own Storage object (its dtype differs),
    # sharing the memory's version counter.
    fst = st._reinterpret(real, st._data.view(real._np))
    return Array._from_storage(fst, 2 * off + part, shape, tuple(2 * s for s in strides))


def _zero_imag(x) -> Array:
    """``x.imag`` of a real array: NumPy's read-only zeros (PyTorch raises).

    One zero broadcast to ``x``'s shape (stride 0): a write into it raises, as into
    NumPy's (a self-overlapping view is refused; on the CPU the one element is
    read-only too). Code written for NumPy arrays (xarray's ``.imag``) reads it.
    """
    dev = x._device
    with dev.backend.ctx(dev):
        z = Array._wrap(dev.backend.xp.zeros((), dtype=x._dtype._np), x._dtype, dev)
    st = z.storage()
    if type(st._data) is np.ndarray:
        st._data.flags.writeable = False
    r = Array._from_storage(st, 0, x._shape, (0,) * len(x._shape))
    names = x.names
    return r.refine_names(*names) if any(n is not None for n in names) else r


# --- copies ---------------------------------------------------------------------

@api("clone")
def clone(x, /) -> Array:
    """A contiguous copy of ``x`` with its own storage."""
    _check(x, "clone")
    xp = x._device.backend.xp
    a = x._get_native()
    if type(a) is np.ndarray:
        if a.nbytes >= _pool.MIN_BYTES[0]:  # large: a pooled buffer
            r = _pool.empty(a.shape, a.dtype, a.nbytes)
            copy_into_c(r, a)
        else:
            # (NumPy's own C-order copy: the host has no device context to enter, and
            # ``numpy.array(a, copy=True)`` under one cost twice ``a.copy()`` at 160 KB)
            r = a.copy()
        return Array._new(r, None, 0, r.shape, None, x._dtype, x._device)
    with x._device.backend.ctx(x._device):
        r = xp.array(a, copy=True, order="C")
    return Array._new(r, None, 0, r.shape, None, x._dtype, x._device)


# A transposing copy (a 2-D source whose first axis is the one adjacent in memory, into a
# C-order buffer) of at least _TILE_FROM bytes is made in tiles of _TILE columns.
_TILE = 512
_TILE_FROM = 1 << 20


def copy_into_c(r: np.ndarray, a: np.ndarray) -> None:
    """``numpy.copyto(r, a)`` for a C-contiguous ``r`` of ``a``'s shape and dtype.

    Note: NumPy copies a transposed matrix into C order row by row of the result, reading
    the source down a column, a cache line per element; by tiles of 512 columns the source
    rows a tile reads stay in cache (5000x200 float64 transposed: 1.5 ms -> 0.8 ms here,
    2000x2000 10.7 -> 6.7 ms). The same elements are copied: a copy has no rounding."""
    if a.ndim == 2 and a.nbytes >= _TILE_FROM and a.shape[1] > _TILE and a.strides[0] == a.itemsize:
        for j in range(0, a.shape[1], _TILE):
            np.copyto(r[:, j:j + _TILE], a[:, j:j + _TILE])
        return
    np.copyto(r, a)


def _keep_order(shape: tuple, strides: tuple):
    """The axis order (outermost first) of NumPy's order-"K" copy of a layout that is not
    dense (``PyArray_NewLikeArray``: the axes sorted by absolute stride, largest first,
    ties in axis order -- ``PyArray_CreateSortedStridePerm``); None where that is
    row-major, or where an axis of more than one element has stride 0 (a broadcast: NumPy
    puts it innermost, PyTorch's ``preserve_format`` leaves it in place; the copy stays
    row-major, as ``clone``), or no element."""
    # Note: ``x[::2].T`` copied was row-major (clone's), where NumPy's ``astype`` and
    # ``array(copy=True)``, and PyTorch's ``clone``, keep the transposed order.
    for n, st in zip(shape, strides):
        if n == 0 or (st == 0 and n > 1):
            return None
    perm = sorted(range(len(shape)), key=lambda i: -abs(strides[i]))
    return None if perm == list(range(len(shape))) else tuple(perm)


def copy_keep_order(x) -> Array:
    """A copy of ``x`` with its own storage, for ``asarray(x, copy=True)`` and
    ``astype(x, x.dtype)``: in ``x``'s own axis order (NumPy's ``copy(order="K")``, which
    ``astype`` to another dtype has too): a straight memory copy when ``x`` is dense in
    another order (a transpose), the axes sorted by their strides when it is not (a
    transpose of a slice with a step, negative steps: ``_keep_order``); else C-contiguous
    like ``clone``. Arrays with extension metadata go through ``clone`` (autograd records
    it)."""
    if x._ext is None:
        a = x._np
        if a is None:
            a = x._get_native()
        if type(a) is np.ndarray:
            if len(a.shape) > 1 and not a.flags.c_contiguous:
                perm = _layout.dense_order(a.shape, a.strides, a.itemsize) or _keep_order(a.shape, a.strides)
                if perm is not None:
                    shape = tuple(a.shape[i] for i in perm)
                    r = (_pool.empty(shape, a.dtype, a.nbytes) if a.nbytes >= _pool.MIN_BYTES[0]
                         else np.empty(shape, a.dtype))
                    r = r.transpose(_layout.inverse_order(perm))
                    np.copyto(r, a)
                    return Array._new(r, None, 0, r.shape, None, x._dtype, x._device)
            if a.nbytes < _pool.MIN_BYTES[0]:
                # clone's small CPU copy, without its entry (an extension-free array: no
                # hook to run, and a copy raises no floating-point error)
                r = a.copy()
                return Array._new(r, None, 0, r.shape, None, x._dtype, x._device)
        elif len(a.shape) > 1 and not a.flags.c_contiguous:
            # A device's array dense in another order: the same layout as on the CPU above
            # (CuPy's ``copy()`` would be row-major)
            perm = _layout.dense_order(a.shape, a.strides, a.itemsize) or _keep_order(a.shape, a.strides)
            if perm is not None:
                dev = x._device
                with dev.backend.ctx(dev):
                    xp = dev.backend.xp
                    r = xp.empty(tuple(a.shape[i] for i in perm), a.dtype)
                    r = r.transpose(_layout.inverse_order(perm))
                    xp.copyto(r, a)
                return Array._new(r, None, 0, r.shape, None, x._dtype, dev)
    return clone(x)


_MIN, _MAX = np.minimum.reduce, np.maximum.reduce
_CAST_RANGE: dict = {}  # (keyed by the NumPy dtype: hashed in C, a DType's __hash__ is Python)
_CK = _threads._CK  # the compiled kernels (strided._csrc._ckernels), or None


def _cast_range(dtype) -> tuple:
    """(lowest value, first value past the highest) of integer ``dtype``, as floats."""
    info = np.iinfo(dtype._np)
    r = _CAST_RANGE[dtype._np] = (builtins.float(info.min), 2.0 ** (info.bits - (dtype.kind == "i")))
    return r


@api("astype")
def astype(x, dtype, /, *, copy=True, device=None) -> Array:
    """Cast ``x`` to ``dtype`` (the standard's ``astype``); ``copy=False`` may return ``x``."""
    _check(x, "astype")
    dtype = _as_dtype(dtype, "astype")
    if dtype is None:
        raise TypeError("astype(): dtype is required")
    if device is not None and as_device(device) is not x._device:
        x = to_device(x, device)
        copy = False
    if dtype is x._dtype:
        return copy_keep_order(x) if copy else x
    if x._dtype.kind == "c" and dtype.kind != "c":
        raise TypeError(f"astype(): can't cast complex {x._dtype.name} to {dtype.name}; "
                        f"take real(), imag() or abs() first")
    a = x._get_native()
    if x._dtype.kind == "f" and dtype.kind in "iu" and type(a) is np.ndarray and a.size:
        # Note: NaN, infinity or a value out of the target's range has no integer
        # value. NumPy warns ("invalid value encountered in cast") when the CPU flags
        # it, which depends on the kernel NumPy picks (a 2-element float32 array
        # doesn't warn); we check the range explicitly and always warn, at the
        # caller's line (strided's own RuntimeWarnings are filtered). CuPy and
        # PyTorch give no warning, and a GPU array is not checked either.
        lo, hi = _CAST_RANGE.get(dtype._np) or _cast_range(dtype)  # (NumPy dtype keys: hashed in C)
        # one compiled pass over a contiguous float32/float64 operand (_ckernels.cast_ok);
        # else the ufuncs' reductions themselves (ndarray.min/max's Python wrappers cost
        # more than the reduction of 100 elements)
        ok = None if _CK is None else _CK.cast_ok(a, lo, hi)
        if ok is None:
            mn, mx = _MIN(a, axis=None), _MAX(a, axis=None)  # NaN propagates into both
            ok = np.trunc(mn) >= lo and mx < hi
        if ok:
            r = a.astype(dtype._np)  # (every value in range: no invalid cast to flag)
        else:
            with np.errstate(invalid="ignore"):
                r = a.astype(dtype._np)
            _warn_at_caller(f"astype(): invalid value (NaN, infinity or out of range) in the cast "
                            f"from {x._dtype.name} to {dtype.name}; those elements are undefined")
    else:
        r = a.astype(dtype._np)
    return wrap_new(r, dtype, x._device)


if _dispatch.CHOT is not None:
    # The same wrapper compiled, with a fast case of its own (strided/_csrc/_chot.c,
    # fast_astype): a small CPU array into a dtype whose cast needs no check of ours.
    _astype = astype
    astype = _dispatch.CHOT.Fast(_astype._impl, 6, [np.ndarray.astype], hook=_dispatch.HOOK, name="astype")
    astype.__dict__.update(_astype.__dict__)


def _warn_at_caller(message: str, category=RuntimeWarning) -> None:
    """Warn at the first frame outside strided, so that strided's filter of its own
    RuntimeWarnings does not hide a warning meant for the user."""
    f = sys._getframe(1)
    while f is not None and (f.f_globals.get("__name__") or "").partition(".")[0] == "strided":
        f = f.f_back
    if f is None:
        warnings.warn(message, category, stacklevel=2)
        return
    # Note: a module is always given; warn_explicit drops the warning when it derives one
    # from a pseudo-filename such as doctest's "<doctest ...>".
    warnings.warn_explicit(message, category, f.f_code.co_filename, f.f_lineno,
                           module=f.f_globals.get("__name__") or "__main__",
                           registry=f.f_globals.setdefault("__warningregistry__", {}))


@api("to_device")
def to_device(x, device, /, *, stream=None, copy=None) -> Array:
    """Copy ``x`` to ``device`` (returns ``x`` when already there unless ``copy=True``)."""
    _check(x, "to_device")
    dev = as_device(device)
    if dev is x._device:
        return clone(x) if copy else x
    if copy is False:
        raise ValueError(f"to_device(copy=False): moving {x._device} -> {dev} needs a copy")
    src = x._device.backend
    if src is dev.backend:
        # Another device of the same backend (cuda:0 -> cuda:1): no trip through the host.
        r = src.copy_to_device(x._get_native(), dev)
    else:
        host = src.to_host(x._get_native())
        # Note: np.asarray(order="C"), not np.ascontiguousarray, which makes 0-d arrays 1-d.
        r = dev.backend.from_host(np.asarray(host, order="C"), dev)
        if r is host and x._device.type == "cpu":
            r = r.copy()
    return Array._new(r, None, 0, r.shape, None, x._dtype, dev)


def source_as_it_was(target, src):
    """``src``, or a copy of it where it shares memory with the native ``target`` it is to be
    written into: the values are read as they were before the write.

    Note: NumPy's assignment copies an overlapping source only for some layouts; for a 1-D
    target it reverses the loop instead, which is right for equal strides only
    (``n[6:12] = n[4:16:2]`` reads elements it has already written)."""
    if type(src) is np.ndarray and type(target) is np.ndarray and src is not target \
            and np.may_share_memory(target, src):
        return src.copy()
    return src


def assign(target, value, dtype, device, func):
    """Write ``value`` (array or scalar) into the native view ``target``, broadcasting."""
    t = type(value)
    if t is Array:
        if value._device is not device:
            raise ValueError(f"{func}(): value is on {value._device} but the array is on {device}")
        if value._dtype.kind == "c" and dtype.kind != "c":
            raise TypeError(f"{func}(): can't assign complex {value._dtype.name} values into {dtype.name}")
        src = source_as_it_was(target, value._get_native())
        try:
            target[...] = src
        except ValueError:
            raise _layout.ShapeError(f"{func}(): value of shape {value._shape} can't be broadcast to "
                             f"shape {tuple(target.shape)}") from None
        return
    if t in (builtins.bool, builtins.int, builtins.float, builtins.complex):
        if t is builtins.complex and dtype.kind != "c":
            raise TypeError(f"{func}(): can't assign complex {value} into a {dtype.name} array")
        if t is builtins.int and dtype.kind in "iu":
            info = np.iinfo(dtype._np)
            if not info.min <= value <= info.max:
                raise OverflowError(f"{func}(): {value} is out of bounds for {dtype.name}")
        device.backend.fill(target, value)
        return
    if isinstance(value, (np.ndarray, np.generic, list, tuple)):
        from .creation import asarray
        assign(target, asarray(value, dtype=dtype, device=device), dtype, device, func)
        return
    raise TypeError(f"{func}(): can't assign a {t.__name__}; expected an array or a Python scalar")


# The compiled view paths (strided/_csrc/_chot.c, "views"; see the end of _array.py): each
# namespace function below is a ``_chot.View`` in front of its Python definition.
def _install_compiled_views() -> bool:
    global reshape, permute_dims, expand_dims, unsqueeze, squeeze
    c = _CVIEWS
    if c is None:
        return False
    reshape = c.View(reshape, c.RESHAPE)
    permute_dims = c.View(permute_dims, c.PERMUTE)
    expand_dims = c.View(expand_dims, c.EXPAND, "axis")
    unsqueeze = c.View(unsqueeze, c.EXPAND, "dim")
    # (one int axis of an unnamed array: views.c, view_squeeze; the named and every other
    # case run the definition above, with its own hot path for names)
    d = squeeze.__dict__  # (_impl, _api_name: what dispatch and the binder read)
    squeeze = c.View(squeeze, c.SQUEEZE)
    squeeze.__dict__.update(d)
    squeeze._cview = (c.SQUEEZE,)  # (bind.bound keeps it in front of the binding of dim=)
    return True


COMPILED_VIEWS = _install_compiled_views()

_LATE.update(
    clone=clone, copy_keep_order=copy_keep_order, reshape=reshape, view=view, view_dtype=view_dtype, broadcast_to=broadcast_to,
    permute_dims=permute_dims, astype=astype, to_device=to_device, assign=assign,
    source_as_it_was=source_as_it_was,
    complex_part=complex_part, view_as_real=view_as_real, view_as_complex=view_as_complex,
    t=lambda x: x._view(*x._layout()[1:]),
)
