"""Layout arithmetic: views as integer arithmetic on (offset, shape, strides).

Everything here is pure Python on tuples of ints, counted in elements. No
data moves and no backend is called. Each function returns the new
``(offset, shape, strides)`` or raises a clear error.
"""

from __future__ import annotations

import operator

_CSTRIDES: dict = {}



class ShapeError(ValueError, RuntimeError):
    """Shapes that do not fit together (broadcasting, reshaping, joining, contracting): a
    ValueError, as NumPy's, and the RuntimeError PyTorch raises for the same calls."""


class ArgumentError(ValueError, RuntimeError):
    """An argument's value refused (a repeated axis, axes of different lengths, an unknown mode,
    a negative delta): the ValueError of the standard and NumPy, and the RuntimeError PyTorch
    raises for the same call, so that either ``except`` catches it."""


def contiguous_strides(shape: tuple) -> tuple:
    """Row-major strides (in elements) of ``shape``."""
    st = _CSTRIDES.get(shape)
    if st is None:
        acc = 1
        out = []
        for n in reversed(shape):
            out.append(acc)
            acc *= n if n > 1 else 1
        st = tuple(reversed(out))
        if len(_CSTRIDES) > 8192:
            _CSTRIDES.clear()
        _CSTRIDES[shape] = st
    return st


_SHAPES: dict = {}


def shape_info(shape):
    """``(shape, size, contiguous strides)`` for a tuple of non-negative Python ints, else None.

    Cached per shape: the reshape hot path decides a contiguous view with two
    dict lookups. The entry's own ``shape`` is returned because keys that merely
    compare equal (``np.int64(2)``) must not leak into a result."""
    r = _SHAPES.get(shape)
    if r is not None:
        if r[0] is not shape:
            for n in shape:
                if type(n) is not int and not _integral(shape):
                    return None  # (2.0, 5) equals the key (2, 5); the general path refuses it
        return r
    else:
        if type(shape) is not tuple:
            return None
        for n in shape:
            if type(n) is not int or n < 0:
                return None
        r = (shape, prod(shape), contiguous_strides(shape))
        if len(_SHAPES) > 8192:
            _SHAPES.clear()
        _SHAPES[shape] = r
    return r


def _integral(seq) -> bool:
    """Whether every entry is an int or has ``__index__`` (NumPy's integers), not a float."""
    for n in seq:
        if type(n) is not int:
            try:
                operator.index(n)
            except TypeError:
                return False
    return True


def prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def is_contiguous(shape: tuple, strides: tuple) -> bool:
    """True when the layout is row-major contiguous (size-1 dims ignored; an array of no
    elements is, whatever its strides, as PyTorch's ``is_contiguous``)."""
    if 0 in shape:
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != expected:
                return False
            expected *= n
    return True


def dense_order(shape: tuple, strides: tuple, unit: int = 1):
    """The axis order (a permutation) in which a layout is row-major contiguous, for a
    dense array stored in another axis order (a transpose, ``moveaxis``); None when
    there is none (gaps, negative or zero strides, no elements). ``unit`` is the
    stride of one element (1 in elements, the itemsize in bytes)."""
    perm = sorted(range(len(shape)), key=lambda i: -strides[i])
    expected = unit
    for i in reversed(perm):
        n = shape[i]
        if n == 0:
            return None
        if n != 1:
            if strides[i] != expected:
                return None
            expected *= n
    return tuple(perm)


def elementwise_order(shape: tuple, operands) -> tuple | None:
    """The axis order (outermost first) of NumPy's result of an elementwise call (a ufunc,
    ``where``) of result shape ``shape`` on ``operands``, a list of ``(shape, strides)`` of
    the array operands (strides in elements; aligned right, as broadcasting aligns them);
    None when it is
    row-major. The result is then dense with positive strides in that order.

    NumPy's rule, which strided's CPU results have: when every operand of at least one axis
    has the result's shape and is column-major (and not all are row-major), the result is
    column-major (``ufunc_object.c``, ``try_trivial_single_output_loop``); otherwise the
    iterator's order (``nditer_constr.c``, ``npyiter_find_best_axis_ordering``): a stable
    insertion sort of the axes by absolute stride, where an operand takes part in comparing
    two axes only where neither stride is 0 (broadcast, or an axis of size 1), the first
    such operand decides, and where operands disagree the row-major order wins. Backends
    whose kernels always give row-major results (CuPy's) use it to give the same layout.
    """
    nd = len(shape)
    if nd < 2:
        return None
    ops = []
    fortran = True
    for s, st in operands:
        k = nd - len(s)
        if k < 0:
            return None  # (not a broadcast of these operands: the kernel reports it)
        if len(s) and fortran and (k or tuple(s) != tuple(shape) or len(s) > 1 and not (
                _is_f_contiguous(s, st) and not is_contiguous(s, st))):
            fortran = False
        ops.append([0] * k + [0 if n == 1 else x for n, x in zip(s, st)])
    if fortran and any(len(s) > 1 for s, _ in operands):
        return tuple(range(nd - 1, -1, -1))
    # NumPy's iterator sorts from the innermost axis: perm[0] is the innermost
    perm = list(range(nd - 1, -1, -1))
    for i0 in range(1, nd):
        ipos = i0
        j0 = perm[i0]
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            ambig, swap = True, False
            for st in ops:
                s0, s1 = st[j0], st[j1]
                if s0 != 0 and s1 != 0:
                    if abs(s1) <= abs(s0):
                        swap = False  # (set even when decided already: row-major wins conflicts)
                    elif ambig:
                        swap = True
                    ambig = False
            if not ambig:
                if swap:
                    ipos = i1
                else:
                    break
        if ipos != i0:
            del perm[i0]
            perm.insert(ipos, j0)
    perm.reverse()
    return None if perm == list(range(nd)) else tuple(perm)


def _is_f_contiguous(shape: tuple, strides: tuple) -> bool:
    """True when the layout is column-major contiguous (size-1 axes ignored)."""
    return is_contiguous(shape[::-1], strides[::-1])


def extent(offset: int, shape: tuple, strides: tuple) -> tuple[int, int]:
    """Lowest and highest storage index a view touches (``hi < lo`` when empty)."""
    lo = hi = offset
    for n, s in zip(shape, strides):
        if n == 0:
            return offset, offset - 1
        if s > 0:
            hi += s * (n - 1)
        else:
            lo += s * (n - 1)
    return lo, hi


_OVERLAP: dict = {}
# Whether a view whose elements share memory without a stride 0 (``unfold``,
# ``sliding_window_view``, a NumPy ``as_strided`` view adopted) was ever made. Until
# then no array can have one, and the native-view caches skip the check; after, an
# array with such a layout never caches its native view (``Array._np``), so the
# compiled and Python ``x[slice] = scalar`` fast paths (which need the cached view and
# check only for stride 0) leave it to the general path, which refuses the write.
OVERLAP_SEEN = [False]


def note_overlap(shape: tuple, strides: tuple) -> None:
    """Record that a view with this layout was made (see ``OVERLAP_SEEN``)."""
    if not OVERLAP_SEEN[0] and 0 not in strides and has_internal_overlap(shape, strides):
        OVERLAP_SEEN[0] = True
_EXACT_OVERLAP_LIMIT = 1 << 22  # most elements whose offsets are compared one by one


def has_internal_overlap(shape: tuple, strides: tuple) -> bool:
    """True when two elements of the layout refer to one storage location.

    Stride 0 on a dimension of size > 1 overlaps; a contiguous layout, or one
    whose dimensions sorted by |stride| each step past the span of the
    smaller ones, does not. Other layouts (rare: ``as_strided`` views) are
    decided exactly by listing their offsets, up to 4M elements; larger ones
    are taken as not overlapping (PyTorch's "too hard" answer).
    Results are cached per (shape, strides).
    """
    key = (shape, strides)
    r = _OVERLAP.get(key)
    if r is None:
        r = _overlap(shape, strides)
        if len(_OVERLAP) > 8192:
            _OVERLAP.clear()
        _OVERLAP[key] = r
    return r


def _overlap(shape, strides) -> bool:
    dims = sorted((abs(s), n) for n, s in zip(shape, strides) if n != 1)
    if not dims or any(n == 0 for _, n in dims):
        return False
    if dims[0][0] == 0:
        return True
    span = 1
    for s, n in dims:
        if s < span:
            break
        span += s * (n - 1)
    else:
        return False
    total = prod(n for _, n in dims)
    if total > _EXACT_OVERLAP_LIMIT:
        return False
    import numpy as np
    offs = np.zeros(1, dtype=np.int64)
    for s, n in dims:
        offs = (offs[:, None] + np.arange(n, dtype=np.int64) * s).ravel()
    return len(np.unique(offs)) != len(offs)


def check_no_internal_overlap(shape: tuple, strides: tuple, func: str) -> None:
    """Refuse a write into a layout whose elements share memory (PyTorch's rule)."""
    if has_internal_overlap(shape, strides):
        raise RuntimeError(
            f"{func}: unsupported operation: more than one element of the written-to array "
            f"(shape {shape}, strides {strides}) refers to a single memory location. Please clone() "
            f"the array before performing the operation.")


def normalize_axis(axis, ndim: int, func: str = "") -> int:
    if type(axis) is int and -ndim <= axis < ndim:
        return axis + ndim if axis < 0 else axis
    try:
        if type(axis) is bool:  # an index, but never an axis (NumPy and PyTorch agree)
            raise TypeError
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{func + '(): ' if func else ''}axis must be an int; got {type(axis).__name__}") from None
    if ndim == 0 and a in (0, -1):
        return 0  # Note: like PyTorch, a 0-d array takes axis 0 or -1.
    if not -ndim <= a < ndim:
        raise IndexError(
            f"{func + '(): ' if func else ''}axis {axis} is out of bounds for an array of dimension {ndim}")
    return a + ndim if a < 0 else a


def normalize_axes(axes, ndim: int, func: str = "") -> tuple:
    if axes is None:
        return tuple(range(ndim))
    if not isinstance(axes, (tuple, list)):
        axes = (axes,)
    out = tuple(normalize_axis(a, ndim, func) for a in axes)
    if len(set(out)) != len(out):
        raise ArgumentError(f"{func + '(): ' if func else ''}repeated axis in {tuple(axes)}")
    return out


def broadcast_shapes(*shapes: tuple) -> tuple:
    """The standard's broadcasting of shapes; ValueError naming them otherwise."""
    if len(shapes) == 2:
        a, b = shapes
        if a == b:
            return a
        # Two shapes (every binary operation): one pass over the shorter, no generator
        # (about 6x less than the general loop below; the same rules and error).
        if len(a) < len(b):
            a, b = b, a
        off = len(a) - len(b)
        out = None
        for i, n in enumerate(b):
            m = a[off + i]
            if n == m or n == 1:
                continue
            if m == 1:
                if out is None:
                    out = list(a)
                out[off + i] = n
            else:
                raise ShapeError(
                    "shapes " + ", ".join(str(tuple(x)) for x in shapes)
                    + " cannot be broadcast together")
        if out is None:
            return a if type(a) is tuple else tuple(a)
        return tuple(out)
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        off = ndim - len(s)
        for i, n in enumerate(s):
            cur = out[off + i]
            if n == cur or n == 1:
                continue
            if cur == 1:
                out[off + i] = n
            else:
                raise ShapeError(
                    "shapes " + ", ".join(str(tuple(x)) for x in shapes)
                    + " cannot be broadcast together")
    return tuple(out)


def broadcast_to(shape: tuple, strides: tuple, new_shape: tuple) -> tuple:
    """Strides of a broadcast view (stride 0 on stretched dims)."""
    nd = len(new_shape)
    if len(shape) > nd:
        raise ShapeError(f"cannot broadcast shape {shape} to {new_shape}: target has fewer dimensions")
    off = nd - len(shape)
    out = [0] * nd
    for i, n in enumerate(new_shape):
        if n < 0:
            raise ValueError(f"broadcast_to(): negative dimension in {new_shape}")
        j = i - off
        if j < 0:
            continue
        if shape[j] == n:
            out[i] = strides[j]
        elif shape[j] == 1:
            out[i] = 0
        else:
            raise ShapeError(f"cannot broadcast shape {shape} to {new_shape}")
    return tuple(out)


def permute(shape: tuple, strides: tuple, dims) -> tuple:
    nd = len(shape)
    dims = tuple([normalize_axis(d, nd, "permute") for d in dims])
    if len(dims) != nd or len(set(dims)) != nd:
        raise ValueError(f"permute(): dims {dims} are not a permutation of {nd} dimensions")
    return tuple([shape[d] for d in dims]), tuple([strides[d] for d in dims])


def squeeze(shape: tuple, strides: tuple, axes) -> tuple:
    axes = normalize_axes(axes, len(shape), "squeeze")
    if not shape:
        return shape, strides  # (a 0-d array: axis 0 / -1 named it, as PyTorch's; nothing to squeeze)
    for a in axes:
        if shape[a] != 1:
            raise ValueError(f"squeeze(): cannot squeeze axis {a} of size {shape[a]} (shape {shape})")
    keep = [i for i in range(len(shape)) if i not in axes]
    return tuple(shape[i] for i in keep), tuple(strides[i] for i in keep)


def unsqueeze(shape: tuple, strides: tuple, axis: int) -> tuple:
    nd = len(shape) + 1
    a = normalize_axis(axis, nd, "expand_dims")
    st = strides[a] * shape[a] if a < len(shape) else 1
    return shape[:a] + (1,) + shape[a:], strides[:a] + (st,) + strides[a:]


def flip(offset: int, shape: tuple, strides: tuple, axes) -> tuple:
    axes = normalize_axes(axes, len(shape), "flip")
    if not shape:
        return offset, shape, strides  # (a 0-d array: axis 0 / -1 named it, as PyTorch's; one element)
    st = list(strides)
    for a in axes:
        if shape[a] > 0:
            offset += st[a] * (shape[a] - 1)
        st[a] = -st[a]
    return offset, shape, tuple(st)


def diagonal(offset: int, shape: tuple, strides: tuple, k: int = 0, d1: int = -2, d2: int = -1):
    nd = len(shape)
    if nd < 2:
        raise ValueError(f"diagonal() needs at least 2 dimensions; got shape {shape}")
    d1 = normalize_axis(d1, nd, "diagonal")
    d2 = normalize_axis(d2, nd, "diagonal")
    if d1 == d2:
        raise ArgumentError(f"diagonal(): axis1 and axis2 must differ; both are {d1}")
    n1, n2 = shape[d1], shape[d2]
    if k >= 0:
        n = max(0, min(n1, n2 - k))
        if n:
            offset += k * strides[d2]
    else:
        n = max(0, min(n1 + k, n2))
        if n:
            offset -= k * strides[d1]
    keep = [i for i in range(nd) if i not in (d1, d2)]
    return (offset, tuple(shape[i] for i in keep) + (n,),
            tuple(strides[i] for i in keep) + (strides[d1] + strides[d2],))


def shape_ints(shape, func: str) -> tuple:
    """``shape`` as a tuple of Python ints (``operator.index`` of each entry).

    Note: a bool is an int to Python but not a size: NumPy (``np.zeros((True, 2))``) and
    PyTorch's factories raise TypeError, and so does strided (it took True as 1)."""
    try:
        out = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"{func}(): shape must be a tuple of ints; got {tuple(shape)!r}") from None
    for n in shape:
        if type(n) is bool:
            raise TypeError(f"{func}(): shape must be a tuple of ints; got a bool ({n}) in "
                            f"{tuple(shape)!r}")
    return out


def infer_shape(new_shape, size: int, func: str = "reshape") -> tuple:
    """Resolve one ``-1`` in ``new_shape`` against ``size``."""
    new_shape = shape_ints(new_shape, func)
    neg = [i for i, n in enumerate(new_shape) if n < 0]
    if len(neg) > 1 or any(new_shape[i] != -1 for i in neg):
        raise ValueError(f"{func}(): invalid shape {new_shape}: only one dimension may be -1")
    if neg:
        known = prod(n for n in new_shape if n != -1)
        if known == 0 or size % known:
            raise ShapeError(f"{func}(): cannot reshape array of size {size} into shape {new_shape}")
        i = neg[0]
        new_shape = new_shape[:i] + (size // known,) + new_shape[i + 1:]
    elif prod(new_shape) != size:
        raise ShapeError(f"{func}(): cannot reshape array of size {size} into shape {new_shape}")
    return new_shape


def view_strides(shape: tuple, strides: tuple, new_shape: tuple):
    """Strides that let ``new_shape`` view the same elements, or None (PyTorch's computeStride)."""
    if prod(shape) == 0 or not shape:
        return contiguous_strides(new_shape)
    if not new_shape:
        return ()
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        if tensor_d == 0 or (shape[tensor_d - 1] != 1 and
                             strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def inverse_order(perm) -> list:
    """The permutation that undoes ``perm`` (``x.transpose(perm).transpose(inverse_order(perm))``
    is ``x``)."""
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def slice_start(start: int, step: int, length: int, stride: int) -> int:
    """How far (in elements) a slice's view starts past its axis's start: ``start * stride``
    (``slice.indices``' start), also for an empty slice (``x[5:5]`` at offset 5, ``x[12:]`` of 10
    elements at 10, as PyTorch's ``storage_offset()``); 0 for an empty one that runs backwards
    or along a negative stride (which could start outside the storage)."""
    return start * stride if length or (step > 0 and stride >= 0) else 0


def basic_index(offset: int, shape: tuple, strides: tuple, key: tuple):
    """Apply a tuple of ints/slices/None/Ellipsis. Returns (offset, shape, strides)."""
    n_ell = 0
    n_real = 0
    for k in key:
        if k is Ellipsis:
            n_ell += 1
        elif k is not None:
            n_real += 1
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    nd = len(shape)
    if n_real > nd:
        raise IndexError(f"too many indices for array: array is {nd}-dimensional, but {n_real} were indexed")
    out_shape = []
    out_strides = []
    d = 0
    for k in key:
        if k is None:
            out_shape.append(1)
            out_strides.append(0)
        elif k is Ellipsis:
            for _ in range(nd - n_real):
                out_shape.append(shape[d])
                out_strides.append(strides[d])
                d += 1
        elif type(k) is slice:
            n = shape[d]
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            offset += slice_start(start, step, length, strides[d])
            out_shape.append(length)
            out_strides.append(strides[d] * step)
            d += 1
        else:
            n = shape[d]
            i = k
            if i < 0:
                i += n
            if not 0 <= i < n:
                raise IndexError(f"index {k} is out of bounds for axis {d} with size {n}")
            offset += i * strides[d]
            d += 1
    while d < nd:
        out_shape.append(shape[d])
        out_strides.append(strides[d])
        d += 1
    return offset, tuple(out_shape), tuple(out_strides)
