"""PyTorch's memory formats: ``torch.memory_format`` and its four values, and the strides
they give.

``contiguous_format`` is row-major; ``channels_last`` (rank 4, NCHW stored as NHWC) and
``channels_last_3d`` (rank 5) put the channel axis last in memory; ``preserve_format`` (the
default of ``clone``, ``*_like`` and ``to``) keeps the source's strides when the source is
non-overlapping and dense, and otherwise the dense strides in the order of the source's
(PyTorch's ``infer_dense_strides``, ``aten/src/ATen/ExpandUtils.cpp``).

# Note: strided has negative strides (a flipped view) where PyTorch has none: the order of
# such an axis is read from the absolute stride, and every result has positive strides.

>>> import strided.torch as torch
>>> torch.zeros(2, 3, 4, 5).clone(memory_format=torch.channels_last).stride()
(60, 1, 15, 3)
>>> torch.zeros(3, 4).t().clone().stride()
(1, 4)
"""

from __future__ import annotations

import sys as _sys

from .._core.array import _LATE, _SHAPES, Array
from .._core import layout as _layout


class TorchConstant:
    """The base of PyTorch's types of named constants (``torch.memory_format``,
    ``torch.layout``): instances only as the module's constants, shown and pickled by name."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name  # (pickled by name: the module's global of that name)

    @classmethod
    def _make(cls, name: str):
        c = object.__new__(cls)
        c._name = name
        return c


class memory_format(TorchConstant):
    """PyTorch's ``torch.memory_format``: the type of ``contiguous_format``,
    ``preserve_format``, ``channels_last`` and ``channels_last_3d``."""

    __slots__ = ()


contiguous_format = memory_format._make("contiguous_format")
preserve_format = memory_format._make("preserve_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")

_RANK = {"channels_last": 4, "channels_last_3d": 5}


def _check_format(fmt, fname: str) -> memory_format:
    if fmt is None:
        return preserve_format
    if type(fmt) is not memory_format:
        raise TypeError(f"{fname}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {type(fmt).__name__}")
    return fmt


def _channels_last_strides(shape: tuple, fname: str, name: str) -> tuple:
    rank = _RANK[name]
    if len(shape) != rank:
        raise RuntimeError(f"{fname}(): required rank {rank} tensor to use {name} format; "
                           f"got a tensor of shape {tuple(shape)}")
    # (c10/core/MemoryFormat.h, get_channels_last_strides_2d/_3d: sizes as they are, so an
    # empty axis gives zero strides)
    s = [0] * rank
    s[1] = 1
    s[-1] = shape[1]
    for d in range(rank - 2, 1, -1):
        s[d] = s[d + 1] * shape[d + 1]
    s[0] = s[2] * shape[2]
    return tuple(s)


def _non_overlapping_and_dense(shape: tuple, strides: tuple) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense`` (``c10/core/Contiguity.h``), here with
    positive strides only."""
    if any(s < 0 for s in strides):
        return False
    if 0 in shape:
        return True  # (an empty tensor is contiguous, so dense: its strides are kept)
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    # (axes of fewer than 2 elements address nothing and go last, as c10's sort puts them)
    order = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: (strides[d], d))
    expected = 1
    for d in order:
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def memory_order(nd: int, should_swap) -> list:
    """The dims from outermost to innermost in memory, by PyTorch's insertion sort (its
    ``infer_dense_strides`` and ``compute_elementwise_output_logical_to_physical_perm``):
    starting from the reversed dims, a dim moves outward past each neighbour that
    ``should_swap(neighbour, dim)`` (1: swap, 0: no opinion, -1: stop) puts after it."""
    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def dense_strides(shape: tuple, strides: tuple) -> tuple:
    """PyTorch's ``infer_dense_strides``: dense strides in the memory order of ``strides``
    (a zero stride keeps its axis where a contiguous array has it)."""
    nd = len(shape)
    st = [abs(s) for s in strides]

    def should_swap(d0, d1):
        s0, s1 = st[d0], st[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 < s1:
            return -1
        if s0 > s1:
            return 1
        return 1 if shape[d0] > shape[d1] else 0

    perm = memory_order(nd, should_swap)
    out = [0] * nd
    cur = 1
    for d in perm:
        out[d] = cur
        if shape[d] > 1:
            cur *= shape[d]
    return tuple(out)


def format_strides(x, fmt, fname: str) -> tuple:
    """The strides ``x`` copied in memory format ``fmt`` has, as PyTorch's."""
    fmt = _check_format(fmt, fname)
    shape = tuple(x._shape)
    if fmt is contiguous_format:
        return _layout.contiguous_strides(shape)
    if fmt is preserve_format:
        s = tuple(x.stride())
        return s if _non_overlapping_and_dense(shape, s) else dense_strides(shape, s)
    return _channels_last_strides(shape, fname, fmt._name)


def copy_with_strides(x, strides: tuple):
    """A copy of ``x`` with its own storage and the dense strides ``strides`` (recorded by
    autograd as a copy and a permutation)."""
    shape = tuple(x._shape)
    if strides == _layout.contiguous_strides(shape):
        return _LATE["clone"](x)
    # memory order: the largest stride first (ties: the axis of more elements first, then
    # the later axis, which a size-1 axis's stride does not decide)
    order = sorted(range(len(shape)), key=lambda d: (-strides[d], -shape[d], d))
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    r = _LATE["permute_dims"](_LATE["clone"](_LATE["permute_dims"](x, tuple(order))), tuple(inverse))
    if tuple(r.stride()) != strides:  # (size-0/size-1 axes, whose strides address nothing)
        import strided.torch
        r = strided.torch.as_strided(r, shape, strides, r.storage_offset())
    return r


def clone(x, *, memory_format=None):
    """PyTorch's ``clone``: a copy with its own storage, in ``memory_format`` (by default
    ``preserve_format``: the source's strides when it is dense, as PyTorch's)."""
    return copy_with_strides(x, format_strides(x, memory_format, "clone"))


def contiguous(x, memory_format=contiguous_format):
    """PyTorch's ``contiguous``: ``x`` when already contiguous in ``memory_format``, else a copy
    that is."""
    fmt = _check_format(memory_format, "contiguous")
    if fmt is preserve_format:
        if is_contiguous(x):  # (PyTorch's: a row-major x is returned before the check)
            return x
        raise RuntimeError("contiguous(): preserve memory format is unsupported by the "
                           "contiguous operator")
    if is_contiguous(x, fmt):
        return x
    return copy_with_strides(x, format_strides(x, fmt, "contiguous"))


def is_contiguous(x, memory_format=contiguous_format) -> bool:
    """PyTorch's ``is_contiguous``: whether ``x``'s strides are those of ``memory_format``
    (a size-1 axis takes any stride; an empty array is contiguous in every format)."""
    fmt = _check_format(memory_format, "is_contiguous")
    shape, s = tuple(x._shape), tuple(x.stride())
    if fmt is contiguous_format or fmt is preserve_format:  # (c10's is_contiguous_default)
        return 0 in shape or _layout.is_contiguous(shape, s)  # (empty: contiguous, as PyTorch's)
    if len(shape) != _RANK[fmt._name]:
        return False  # (PyTorch: False for a tensor of another rank)
    # (c10's compute_channels_last_contiguous_2d/_3d: innermost C, then W (and D), H, N; a
    # size-1 axis takes any stride; no exception for an empty tensor)
    expected = 1
    for d in [1] + list(range(len(shape) - 1, 1, -1)) + [0]:
        if shape[d] != 1:
            if s[d] != expected:
                return False
            expected *= shape[d]
    return True


_LATE["torch_clone"] = clone
_LATE["torch_contiguous"] = contiguous
_LATE["torch_is_contiguous"] = is_contiguous


def quantile_layout(r, q_is_1d: bool):
    """PyTorch's strides for ``quantile``/``nanquantile``: row-major for a scalar ``q``; with a
    1-D ``q`` the result is computed with the quantiles as the last axis, then moved to the
    front (``Sorting.cpp``, ``quantile_impl``), so the front axis has stride 1."""
    shape = tuple(r._shape)
    if q_is_1d and len(shape) >= 2:
        c = _layout.contiguous_strides(shape[1:] + shape[:1])
        want = (c[-1],) + tuple(c[:-1])
    else:
        want = _layout.contiguous_strides(shape)
    return with_layout(r, want)


def with_layout(r, want: tuple):
    """``r`` with the strides ``want`` (dense): ``r`` itself when it has them, else a copy."""
    return r if tuple(r.stride()) == want else copy_with_strides(r, want)


def plain(x) -> bool:
    """Whether ``x`` has its shape's row-major strides (size-1 axes' too, but for a lazy kernel
    result): the common case, answered without computing a layout (a few attribute reads)."""
    s = x._str
    if s is None:  # (a lazy kernel result: its native's flag, which size-1 axes don't decide)
        n = x._np
        return n.flags.c_contiguous if n is not None else x.is_contiguous()
    info = _SHAPES.get(x._shape) or _layout.shape_info(x._shape)
    # (no layout: nn's UninitializedParameter, which answers is_contiguous itself)
    return s == info[2] if info is not None else x.is_contiguous()


def like_input(r, x):
    """``r``, a result of ``x``'s shape, laid out as PyTorch's ``empty_like(x)`` is (the
    output of its ``sort``, ``argsort``, ``flip``...): ``x``'s strides where ``x`` is dense and
    non-overlapping, else dense ones in ``x``'s order."""
    if plain(x) and plain(r):
        return r
    return with_layout(r, format_strides(x, preserve_format, "like_input"))


def flipped(x, dims):
    """PyTorch's ``flip(x, dims)`` (and ``fliplr``'s, ``flipud``'s, ``rot90``'s): a copy with
    ``dims`` (an int or a sequence) reversed, laid out as ``empty_like(x)`` -- strided's own
    ``flip`` is the standard's view with negative strides, whose writes would reach ``x``."""
    axis = (dims,) if isinstance(dims, int) else tuple(dims)
    nd = len(x._shape)
    norm = [d % nd if type(d) is int and -nd <= d < nd else None for d in axis]
    for i, d in enumerate(norm):
        if d is not None and d in norm[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")  # (PyTorch's words)
    return like_input(_sys.modules["strided"].flip(x, axis=axis), x)


def row_major(r):
    """``r`` row-major (PyTorch's ``topk``, ``kthvalue``, ``layer_norm``... write a fresh
    contiguous output whatever their input's layout)."""
    return r if plain(r) else with_layout(r, _layout.contiguous_strides(tuple(r._shape)))


def fresh_with_strides(make, x, strides: tuple):
    """``make(view)`` -- a fill of ``view``'s shape (``zeros_like`` and its kin, no autograd
    history) -- as an array of ``x``'s shape with the dense ``strides``."""
    shape = tuple(x._shape)
    if strides == _layout.contiguous_strides(shape):
        return make(x)
    order = sorted(range(len(shape)), key=lambda d: (-strides[d], -shape[d], d))
    r0 = make(_LATE["permute_dims"](x, tuple(order)))  # (contiguous, in memory order)
    st = r0.storage()
    return Array._from_storage(st, r0.storage_offset(), shape, strides)


def like(fname: str, base):
    """PyTorch's ``fname`` (``zeros_like``...): ``base``'s result, in ``memory_format``
    (``preserve_format`` by default: the strides ``clone`` gives)."""

    def f(input, *args, memory_format=None, requires_grad=False, layout=None, pin_memory=False, **kwargs):
        from ._layouts import check_factory
        check_factory(fname, layout, pin_memory)
        if type(input) is not Array or kwargs.get("shape") is not None or kwargs.get("out") is not None \
                or kwargs.get("names") is not None:
            if memory_format not in (None, preserve_format, contiguous_format):
                raise ValueError(f"{fname}(): memory_format={memory_format!r} with strided's "
                                 f"shape=, out= or names= is not supported")
            return base(input, *args, requires_grad=requires_grad, **kwargs)
        strides = format_strides(input, memory_format, fname)
        r = fresh_with_strides(lambda v: base(v, *args, **kwargs), input, strides)
        return r.requires_grad_(True) if requires_grad else r

    f.__name__ = f.__qualname__ = fname
    f.__doc__ = (f"PyTorch's ``torch.{fname}``: strided's ``{fname}`` in ``memory_format`` "
                 f"(by default ``preserve_format``: a dense input's strides, as PyTorch's).")
    import inspect
    params = list(inspect.signature(base).parameters.values())
    params[0] = params[0].replace(name="input")
    at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    for k, d in (("memory_format", None), ("layout", None), ("pin_memory", False)):
        params.insert(at, inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=d))
        at += 1
    f.__signature__ = inspect.Signature(params)
    return f


def _strides_like_channels_last(shape: tuple, strides: tuple, order: tuple) -> bool:
    """c10's ``is_channels_last_strides_2d_s4`` / ``_3d_s5`` (``c10/core/MemoryFormat.h``)."""
    low = 0
    if strides[1] == 0:
        return False  # (a trivial channel axis: NCHW by default)
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False  # (ambiguous: PyTorch falls back to NCHW)
        low = strides[d]
        if shape[d] > 1:
            low *= shape[d]
    return True


def suggest_memory_format(x) -> memory_format:
    """PyTorch's ``suggest_memory_format``: ``channels_last`` (``_3d``) for a rank-4 (5) array
    whose strides order its channel axis last, else ``contiguous_format``."""
    shape, s = tuple(x._shape), tuple(x.stride())
    if len(shape) == 4 and _strides_like_channels_last(shape, s, (1, 3, 2, 0)):
        return channels_last
    if len(shape) == 5 and _strides_like_channels_last(shape, s, (1, 4, 3, 2, 0)):
        return channels_last_3d
    return contiguous_format


def to_format(out, x, fmt):
    """The end of PyTorch's ``x.to(..., memory_format=fmt)``, ``out`` the converted ``x`` (or
    ``x`` itself): ``x`` when nothing was converted and it already suggests ``fmt``
    (``to_will_alias``), else ``out`` with the strides of ``x`` copied in ``fmt``."""
    fmt = _check_format(fmt, "to")
    if out is x and (fmt is preserve_format or suggest_memory_format(x) is fmt):
        return x
    strides = format_strides(x, fmt, "to")
    if out is not x and tuple(out.stride()) == strides:
        return out
    return copy_with_strides(out, strides)
