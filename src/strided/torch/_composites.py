"""PyTorch functions and methods that the standard lacks, built from its functions.

Each is a *composite*: a few calls of strided's namespace functions, so it
works on every device, records gradients through those calls (autograd needs
no rule of its own) and checks dimension names through them. Each function is
also an Array method where PyTorch has one (``x.softmax(1)``, ``x.masked_fill_``).
docs/torch-parity.md lists which of PyTorch's most used names exist.
"""

from __future__ import annotations

import builtins
import math
import sys
from collections import namedtuple

import numpy as _np

from .._core import dtypes as _dtypes, layout as _layout, threads as _threads
from .._core.array import Array
from .._core.call.bind import torch_axis, torch_keepdim
from ._checks import one_element_1d
from ._memory_format import row_major
from .._core.dispatch import method_signature

__all__ = [
    "addmm", "allclose", "baddbmm", "cdist", "clamp", "clamp_max", "clamp_min", "cross", "cumprod", "cumsum", "det",
    "gather", "index_select", "inverse", "isclose", "kron", "lerp", "log_softmax", "logspace",
    "logsumexp", "masked_fill", "masked_select", "norm", "numel", "permute",
    "scatter", "softmax", "std_mean", "topk", "unique", "var_mean",
]

# Note: the tests of autograd's and names' coverage skip functions marked here;
# their gradients and names come from the namespace functions they call.
COMPOSITES: dict = {}

_ValuesIndices = namedtuple("values_indices", ["values", "indices"])


def _ns():
    return sys.modules["strided"]


def _composite(f):
    f._composite = True
    COMPOSITES[f.__name__] = f
    return f


def _layout_axis(dim, ndim: int) -> None:
    from .._core.layout import normalize_axis
    normalize_axis(dim, ndim, "softmax")


from .._core.layout import ArgumentError  # noqa: E402  (cdist's negative p, ...)


_C_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _c_type(d) -> str:
    """PyTorch's name of a dtype in its dtype-check messages (``float``, ``double``)."""
    return _C_TYPES.get(d.name, d.name)


def _scalar_type(d) -> str:
    from ._shape_functions import _TENSOR_TYPE
    return _TENSOR_TYPE.get(d.name, d.name)


def _floating(x: Array) -> Array:
    """PyTorch's promotion of integer and bool inputs to the default float."""
    if x._dtype.kind in "biu":
        return _ns().astype(x, _dtypes.get_default_dtype())
    return x


def _stop(x: Array) -> Array:
    """``x`` without gradient history (for shifts that cancel mathematically)."""
    return x.detach() if x.requires_grad else x


# --- activations and log-sum-exp -------------------------------------------------

# sigmoid, relu (and silu) are rows of the elementwise registry (strided._api.elementwise,
# kernels in strided._api.activations), with derivative rules of their own.


@_composite
def logsumexp(input, /, dim, keepdim=False) -> Array:
    """``log(sum(exp(x), dim))``, shifted by the maximum so that it does not overflow.

    >>> import strided as xp
    >>> xp.logsumexp(xp.tensor([1000.0, 1000.0]), 0)
    tensor(1000.6932)
    """
    ns = _ns()
    x = _floating(input)
    dim = torch_axis("logsumexp", dim)
    if type(keepdim) is not bool:
        torch_keepdim("logsumexp", keepdim)
    # (a complex input shifted by the maximum of its real parts, as PyTorch's)
    m = _stop(ns.max(ns.real(x) if x.dtype.kind == "c" else x, axis=dim, keepdims=True))
    m = ns.where(ns.isfinite(m), m, 0.0)
    r = ns.log(ns.sum(ns.exp(x - m), axis=dim, keepdims=True)) + m
    return r if keepdim else ns.squeeze(r, axis=dim if dim is not None else tuple(range(r.ndim)))


def _fused_softmax(x, dim, log: bool):
    """``softmax``/``log_softmax`` of ``x`` along its last axis in one compiled call
    (``_ckernels.softmax_rows``: the composites' operations, the loops strided's exp and log
    run), for an array with nothing for autograd or names to follow, C-contiguous float32 or
    float64 on the host and under the thread threshold (larger ones split over threads as the
    composites' operations); else None: the composite runs."""
    ck = _threads._CK
    if ck is None or x._ext is not None or type(dim) is not int or not x._shape:
        return None
    nd = len(x._shape)
    if dim != nd - 1 and dim != -1:
        return None
    a = x._get_native()
    if type(a) is not _np.ndarray or a.dtype not in _threads._C_FLOATS or not a.flags.c_contiguous \
            or a.size == 0 or a.nbytes >= _threads._THREAD_MIN[0]:
        return None
    ex = _threads._loop_info(_np.exp, a.dtype)
    lg = _threads._loop_info(_np.log, a.dtype) if log else None
    if ex is None or (log and lg is None):
        return None
    out = _np.empty(a.shape, a.dtype)
    if not ck.softmax_rows(a, out, a.shape[-1], ex, lg):
        return None
    return Array._new(out, None, 0, out.shape, None, x._dtype, x._device)


@_composite
def softmax(input, /, dim, dtype=None) -> Array:
    """``exp(x) / sum(exp(x), dim)``, shifted by the maximum along ``dim``.

    >>> import strided as xp
    >>> xp.softmax(xp.tensor([[1.0, 2.0, 3.0]]), dim=1)
    tensor([[0.0900, 0.2447, 0.6652]])
    """
    ns = _ns()
    # (a contiguous result whatever the input's strides, as PyTorch's softmax kernels write)
    x = _floating(input if dtype is None else ns.astype(input, dtype)).contiguous()
    if 0 in x.shape:  # (no elements: an empty result, as PyTorch's; max() would refuse)
        _layout_axis(dim, x.ndim)
        return ns.clone(x)
    r = _fused_softmax(x, dim, False) if type(x) is Array else None
    if r is not None:
        return r
    e = ns.exp(x - _stop(ns.max(x, axis=dim, keepdims=True)))
    return e / ns.sum(e, axis=dim, keepdims=True)


@_composite
def log_softmax(input, /, dim, dtype=None) -> Array:
    """``log(softmax(x, dim))``, computed as ``(x - m) - log(sum(exp(x - m), dim))`` with ``m``
    the maximum along ``dim`` (PyTorch's order).

    >>> import strided as xp
    >>> xp.log_softmax(xp.tensor([0.0, 0.0]), dim=0)
    tensor([-0.6931, -0.6931])
    """
    ns = _ns()
    # (a contiguous result whatever the input's strides, as PyTorch's softmax kernels write)
    x = _floating(input if dtype is None else ns.astype(input, dtype)).contiguous()
    if 0 in x.shape:  # (no elements: an empty result, as PyTorch's; max() would refuse)
        _layout_axis(dim, x.ndim)
        return ns.clone(x)
    r = _fused_softmax(x, dim, True) if type(x) is Array else None
    if r is not None:
        return r
    # (x - m) - log(sum(exp(x - m))), PyTorch's order: x - logsumexp(x) would round the
    # large m + log(s) first (1e4 in float32: errors of ~2e-5 where these are ~1e-7)
    # A row whose maximum is +inf is NaN throughout, as PyTorch's (inf - inf in t, then in the
    # sum): it was shifted by 0 instead, giving [nan, -inf, ...] (SciPy's answer, not PyTorch's).
    t = x - _stop(ns.max(x, axis=dim, keepdims=True))
    return t - ns.log(ns.sum(ns.exp(t), axis=dim, keepdims=True))


# --- indexing ---------------------------------------------------------------------

@_composite
def gather(input, /, dim, index) -> Array:
    """Values of ``input`` along ``dim`` at ``index`` (PyTorch's ``gather``).

    ``out[i][j] = input[index[i][j]][j]`` for ``dim=0``; ``index`` may be smaller
    than ``input`` in the other dimensions.

    >>> import strided as xp
    >>> x = xp.tensor([[1, 2], [3, 4]])
    >>> xp.gather(x, 1, xp.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
    """
    ns = _ns()
    # (PyTorch's checks: a 0-d input or index counts as 1-d of one element, and an index with
    # no elements gathers nothing whatever its shape)
    x, i = one_element_1d(input), one_element_1d(index)
    nd = x.ndim
    d = _layout.normalize_axis(dim, nd, "gather")
    if index.size == 0:
        return ns.reshape(ns.reshape(input, (-1,))[:0], tuple(index.shape))
    if i.ndim != nd:
        # (ShapeError: PyTorch's RuntimeError, and the ValueError strided raised before)
        raise _layout.ShapeError(f"gather(): index has {index.ndim} dimensions but input has {input.ndim} "
                           f"(Index tensor must have the same number of dimensions as input tensor)")
    if any(i.shape[k] > x.shape[k] for k in range(nd) if k != d):
        raise _layout.ShapeError(f"gather(): Size does not match at dimension {d}: expected index "
                           f"{list(index.shape)} to be no larger than self {list(input.shape)} "
                           f"apart from dimension {d}")
    key = tuple(slice(None) if k == d else slice(0, i.shape[k]) for k in range(nd))
    r = ns.take_along_axis(x[key], i, axis=d)
    return r if index.ndim else ns.reshape(r, ())


@_composite
def index_select(input, /, dim, index) -> Array:
    """The entries of ``input`` at the 1-d ``index`` along ``dim`` (a copy).

    >>> import strided as xp
    >>> xp.index_select(xp.tensor([[1, 2, 3], [4, 5, 6]]), 1, xp.tensor([2, 0]))
    tensor([[3, 1],
            [6, 4]])
    """
    if index.ndim > 1:
        raise ValueError(f"index_select(): index must be 0-d or 1-d; got shape {tuple(index.shape)}")
    if input.ndim == 0:  # (its dim 0 or -1 is its one element: one index, a 0-d result)
        _layout.normalize_axis(dim, 0, "index_select")
        if index.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.size} value(s)")
        return _ns().reshape(_ns().take(one_element_1d(input), _ns().reshape(index, (-1,)), axis=0), ())
    return _ns().take(input, _ns().reshape(index, (-1,)), axis=dim)


@_composite
def masked_select(input, /, mask) -> Array:
    """The elements of ``input`` where the boolean ``mask`` (broadcast) is True, as 1-d.

    >>> import strided as xp
    >>> x = xp.tensor([[1.0, -2.0], [3.0, -4.0]])
    >>> xp.masked_select(x, x > 0)
    tensor([1., 3.])
    """
    x, m = _ns().broadcast_arrays(input, mask)
    return x[m]


def _masked_fill_(self, mask, value):
    """Write ``value`` where the boolean ``mask`` (broadcast to this shape) is True; returns self."""
    if mask._dtype is not _dtypes.bool:
        raise TypeError(f"masked_fill_(): mask must be bool; got {mask._dtype.name}")
    if self._dtype.kind != "c" and (type(value) is builtins.complex
                                    or (type(value) is Array and value._dtype.kind == "c")):
        # (PyTorch's: a complex value does not fit a real array; the assignment would have
        # dropped the imaginary part of an array value)
        raise RuntimeError(f"masked_fill_(): value cannot be converted to type {self._dtype.name} "
                           f"without overflow")
    self[_ns().broadcast_to(mask, tuple(self.shape))] = value
    return self


@_composite
def masked_fill(input, /, mask, value) -> Array:
    """A copy of ``input`` with ``value`` where the boolean ``mask`` is True.

    >>> import strided as xp
    >>> x = xp.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> xp.masked_fill(x, x > 2.5, 0.0)
    tensor([[1., 2.],
            [0., 0.]])
    """
    ns = _ns()
    if type(input) is Array and type(mask) is Array:
        # (PyTorch's out-of-place form broadcasts self with mask first: expand_outplace)
        shape = tuple(ns.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
        if shape != tuple(input.shape):
            return _masked_fill_(row_major(ns.broadcast_to(input, shape)), mask, value)
    # (a row-major copy, as PyTorch's: masked_fill clones self in contiguous format)
    return _masked_fill_(ns.clone(input) if type(input) is Array else ns.asarray(input, copy=True),
                         mask, value)


def _scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    """Write ``src`` (an array or a scalar ``value``) at ``index`` along ``dim``; returns self.

    ``self[index[i][j]][j] = src[i][j]`` for ``dim=0`` (PyTorch's ``scatter_``);
    ``reduce='add'`` or ``'multiply'`` combines with what is there (``torch.scatter``'s).
    """
    if reduce is not None:
        return self.copy_(_ns().torch.scatter(self, dim, index, src, value=value, reduce=reduce))
    ns = _ns()
    if src is None:
        src = value
    nd = self.ndim
    d = _layout.normalize_axis(dim, nd, "gather")
    if index.ndim != nd:
        raise _layout.ShapeError(f"scatter_(): index has {index.ndim} dimensions but self has {nd}")
    coords = []
    for i in range(nd):
        if i == d:
            coords.append(index)
        else:
            shape = [1] * nd
            shape[i] = index.shape[i]
            coords.append(ns.reshape(ns.arange(index.shape[i], device=self.device), tuple(shape)))
    if type(src) is Array:
        if src._dtype is not self._dtype:  # (PyTorch's scatter does not cast src)
            raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype; got "
                               f"{self._dtype.name} and {src._dtype.name}")
        src = src[tuple(slice(0, n) for n in index.shape)]
    self[tuple(coords)] = src
    return self


@_composite
def scatter(input, /, dim, index, src=None, *, value=None) -> Array:
    """A copy of ``input`` with ``src`` written at ``index`` along ``dim``.

    >>> import strided as xp
    >>> xp.scatter(xp.zeros(2, 3), 1, xp.tensor([[2], [0]]), xp.tensor([[5.0], [7.0]]))
    tensor([[0., 0., 5.],
            [7., 0., 0.]])
    """
    # (into a row-major copy, as PyTorch's scatter allocates its result whatever the input's layout)
    from ._memory_format import copy_with_strides
    return _scatter_(copy_with_strides(input, _layout.contiguous_strides(tuple(input.shape))), dim, index, src,
                     value=value)


@_composite
def topk(input, /, k, dim=-1, largest=True, sorted=True) -> tuple:
    """The ``k`` largest (or smallest) entries along ``dim``: ``(values, indices)``.

    >>> import strided as xp
    >>> xp.topk(xp.tensor([1.0, 5.0, 3.0, 4.0]), 2)
    values_indices(values=tensor([5., 4.]), indices=tensor([1, 3]))
    """
    ns = _ns()
    n = input.shape[dim] if input.ndim else 1
    if not 0 <= k <= n:
        raise ValueError(f"topk(): k={k} is out of range for a dimension of size {n}")
    idx = ns.argsort(input, axis=dim, descending=largest, stable=True)
    # (PyTorch's topk writes fresh row-major values and indices: the first k of the sorted
    # indices are copied, not a view, so that view() of them works as PyTorch's does)
    idx = row_major(idx.narrow(dim, 0, k)) if input.ndim else idx
    return _ValuesIndices(row_major(ns.take_along_axis(input, idx, axis=dim)), idx)


# --- statistics ---------------------------------------------------------------------

def median(input, /, dim=None, keepdim=False):
    """PyTorch's ``x.median()``: the lower median of all elements (``dim=None``),
    else ``(values, indices)`` along ``dim``.

    For an even count it is the smaller of the two middle values, as in PyTorch
    (NumPy averages them); NaN propagates.

    >>> import strided as xp
    >>> xp.tensor([4.0, 1.0, 3.0, 2.0]).median()
    tensor(2.)
    >>> xp.tensor([[3.0, 1.0, 2.0]]).median(dim=1)
    strided.torch.return_types.median(
    values=tensor([2.]),
    indices=tensor([2]))
    """
    # Note: a method only. Array-API code reads ``xp.median(x, axis=)`` as NumPy's
    # median (scikit-learn's _median does when the namespace has one), which
    # averages the two middle values; PyTorch's takes the lower one.
    ns = _ns()
    if type(keepdim) is not bool:
        torch_keepdim("median", keepdim)
    x = ns.reshape(input, (-1,)) if dim is None else input
    d = 0 if dim is None else dim
    n = x.shape[d] if x.ndim else 1
    if n == 0:
        raise ValueError("median(): the dimension is empty")
    idx = ns.argsort(x, axis=d, stable=True) if x.ndim else ns.reshape(ns.asarray(0), ())
    if x.ndim:
        idx = row_major(idx.narrow(d, (n - 1) // 2, 1))
        if x.dtype.kind == "f":
            # NaN propagates: a slice with one gives its first NaN and that NaN's index, as
            # PyTorch's (whose gradient then flows to that element)
            nan = ns.isnan(x)
            first = ns.argmax(ns.astype(nan, ns.int8), axis=d, keepdims=True)
            idx = ns.where(ns.any(nan, axis=d, keepdims=True), first, idx)
    vals = ns.take_along_axis(x, idx, axis=d) if x.ndim else x
    if dim is None:
        v = ns.reshape(vals, ())
        e = input._ext
        if e is not None and e.requires_grad:
            # PyTorch's median() of all elements shares the gradient evenly among the elements
            # equal to it (NaN: among the NaNs), its evenly_distribute_backward
            from ._tensor_methods import EVENLY
            return EVENLY["median"].apply(x, v.detach())
        return v
    if not keepdim and x.ndim:
        vals, idx = ns.squeeze(vals, axis=d), ns.squeeze(idx, axis=d)
    return _ValuesIndices(vals, idx)


def mode(input, /, dim=-1, keepdim=False):
    """PyTorch's ``x.mode(dim=-1, keepdim=False)``: ``(values, indices)``, the most frequent
    value along ``dim`` and the index of one of its occurrences.

    Ties (PyTorch 2.13 CPU, measured): of several values equally frequent, the smallest;
    its index is its last occurrence (PyTorch's CPU kernel returns the last occurrence
    for a dimension of up to 16 elements and an unspecified one beyond: its sort is not
    stable). NaN: each NaN counts once, as a value greater than every number (PyTorch's
    kernel counts runs of ``!=``-equal sorted values, so NaNs never pool; where its sort
    meets NaN its order is unspecified): NaN is the mode only where no number repeats
    and every element is NaN. The gradient of ``values`` flows to the element at
    ``indices``, as PyTorch's ``ModeBackward0``.

    >>> import strided as xp
    >>> xp.tensor([[3, 1, 2, 2, 1, 3]]).mode(dim=1)
    strided.torch.return_types.mode(
    values=tensor([1]),
    indices=tensor([4]))
    """
    ns = _ns()
    if type(input) is not Array:
        raise TypeError(f"mode(): input must be a strided array; got {type(input).__name__}")
    if type(keepdim) is not bool:
        torch_keepdim("mode", keepdim)
    nd = input.ndim
    d = _layout.normalize_axis(dim, builtins.max(nd, 1), "mode()")  # (a 0-d array: dim 0 or -1)
    if not nd:
        return _ValuesIndices(input * 1 if input.dtype.kind in "fc" else ns.asarray(input, copy=True),
                              ns.zeros((), dtype=ns.int64, device=input.device))
    n = input.shape[d]
    if n == 0:
        raise IndexError(f"mode(): the dimension {dim} is empty (size 0): it has no mode")
    x = ns.moveaxis(input, d, -1)
    dev = input.device
    order = ns.argsort(x, axis=-1, stable=True)  # (NaN last; equal values in index order)
    s = ns.take_along_axis(x, order, axis=-1)
    # runs of equal values in the sorted rows (NaN != NaN: every NaN a run of its own)
    first = ns.ones(s.shape[:-1] + (1,), dtype=ns.bool, device=dev)
    new = ns.concat([first, s[..., 1:] != s[..., :-1]], axis=-1)
    end = ns.concat([new[..., 1:], first], axis=-1)
    run = ns.cumulative_sum(ns.astype(new, ns.int64), axis=-1) - 1
    # the start of each run: the k-th True of ``new`` (a stable sort brings them first, in order)
    starts = ns.argsort(ns.astype(ns.logical_not(new), ns.int8), axis=-1, stable=True)
    pos = ns.arange(n, dtype=ns.int64, device=dev)
    count = ns.where(end, pos - ns.take_along_axis(starts, run, axis=-1) + 1, 0)
    # the longest run, the first (smallest value) of equally long ones; its end is the last
    # occurrence of the value (the sort is stable)
    e = ns.argmax(count, axis=-1, keepdims=True)
    idx = ns.take_along_axis(order, e, axis=-1)
    vals = ns.take_along_axis(x, idx, axis=-1)
    if keepdim:
        return _ValuesIndices(row_major(ns.moveaxis(vals, -1, d)), row_major(ns.moveaxis(idx, -1, d)))
    return _ValuesIndices(ns.squeeze(vals, axis=-1), ns.squeeze(idx, axis=-1))


@_composite
def var_mean(input, /, dim=None, *, correction=None, keepdim=False, unbiased=None, ddof=None) -> tuple:
    """``(var, mean)`` along ``dim``; unbiased (``correction=1``) by default, as in PyTorch.

    ``ddof=`` (NumPy's name for ``correction``) is accepted too; give one of
    ``unbiased``, ``correction`` and ``ddof``.

    >>> import strided as xp
    >>> xp.var_mean(xp.tensor([1.0, 2.0, 3.0, 4.0]))
    (tensor(1.6667), tensor(2.5000))
    """
    return (input.var(dim, correction=correction, keepdim=keepdim, unbiased=unbiased, ddof=ddof),
            input.mean(dim, keepdim=keepdim))


@_composite
def std_mean(input, /, dim=None, *, correction=None, keepdim=False, unbiased=None, ddof=None) -> tuple:
    """``(std, mean)`` along ``dim``; unbiased (``correction=1``) by default, as in PyTorch.

    ``ddof=`` (NumPy's name for ``correction``) is accepted too; give one of
    ``unbiased``, ``correction`` and ``ddof``.

    >>> import strided as xp
    >>> xp.std_mean(xp.tensor([1.0, 3.0]))
    (tensor(1.4142), tensor(2.))
    """
    return (input.std(dim, correction=correction, keepdim=keepdim, unbiased=unbiased, ddof=ddof),
            input.mean(dim, keepdim=keepdim))


class _NoDerivative:
    """Made on first use (``strided.autograd`` imports after this module): a Function whose
    output is ``values`` and whose backward raises PyTorch's NotImplementedError for ``name``."""

    fn = None

    @classmethod
    def get(cls):
        if cls.fn is None:
            from ..autograd import Function

            class NoDerivative(Function):
                @staticmethod
                def forward(ctx, x, *, values, name):
                    ctx.name = name
                    return values

                @staticmethod
                def backward(ctx, g):
                    raise NotImplementedError(f"the derivative for '{ctx.name}' is not implemented.")

            cls.fn = NoDerivative
        return cls.fn


def _no_derivative(input, values, name: str):
    """``values`` recorded as PyTorch records ``name``'s result: where ``input`` requires grad
    (and grad mode is on) it requires grad too, and its backward raises PyTorch's
    NotImplementedError (``the derivative for 'unique_dim' is not implemented.``)."""
    if values.dtype.kind not in "fc":
        return values
    return _NoDerivative.get().apply(input, values=values, name=name)


def _unique_dim(input, dim, return_inverse: bool, return_counts: bool, consecutive: bool):
    """``unique(dim=)`` / ``unique_consecutive(dim=)``: the slices of ``input`` along ``dim``
    (lexicographically sorted unless ``consecutive``) with each run of equal slices kept once;
    returns ``(values, inverse, counts)`` (int64 arrays of ``input.shape[dim]`` and of the
    number of kept slices)."""
    ns = _ns()
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"unique(): argument 'dim' must be int, not {type(dim).__name__}")
    nd = input.ndim
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")
    d = dim % nd
    n = input.shape[d]
    dev = input.device
    if any(size == 0 for i, size in enumerate(input.shape) if i != d):
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot "
                           "be applied")
    x = input.detach()
    if n == 0:
        empty = ns.zeros((0,), dtype=_dtypes.int64, device=dev)
        return x.clone(), empty, empty
    rows = ns.reshape(ns.moveaxis(x, d, 0), (n, -1))
    order = ns.arange(n, dtype=_dtypes.int64, device=dev)
    if not consecutive:  # (a lexicographic sort: stable sorts by the last column first)
        for col in range(rows.shape[1] - 1, -1, -1):
            order = ns.take(order, ns.argsort(ns.take(rows[:, col], order), stable=True))
        rows = ns.take(rows, order, axis=0)
    changed = ns.any(rows[1:] != rows[:-1], axis=1)
    starts = ns.concat([ns.ones((1,), dtype=_dtypes.bool, device=dev), changed], axis=0)
    first = ns.astype(ns.nonzero(starts)[0], _dtypes.int64)
    values = ns.take(x, ns.take(order, first), axis=d)
    run = ns.cumsum(ns.astype(starts, _dtypes.int64), axis=0) - 1
    inverse = run if consecutive else ns.take(run, ns.argsort(order, stable=True))
    end = ns.full((1,), n, dtype=_dtypes.int64, device=dev)
    counts = ns.diff(first, axis=0, append=end)
    return values, inverse, counts


@_composite
def unique(input, /, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """PyTorch's ``unique``: the sorted unique elements, with the inverse indices
    (shaped like ``input``) and the counts when asked.

    With ``dim``, the unique slices along ``dim`` (sorted lexicographically, whatever
    ``sorted`` says, as PyTorch's), the inverse index of each slice and the counts. The result
    is not differentiable: where ``input`` requires grad, backward raises PyTorch's
    NotImplementedError.

    >>> import strided as xp
    >>> xp.unique(xp.tensor([3, 1, 3, 2]), return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 1, 2]))
    >>> xp.unique(xp.tensor([[1, 2], [0, 5], [1, 2]]), dim=0, return_inverse=True)
    (tensor([[0, 5],
            [1, 2]]), tensor([1, 0, 1]))
    """
    ns = _ns()
    if dim is not None:
        values, inverse, counts = _unique_dim(input, dim, return_inverse, return_counts, False)
        out = [_no_derivative(input, values, "unique_dim")]
        if return_inverse:
            out.append(inverse)
        if return_counts:
            out.append(counts)
        return out[0] if len(out) == 1 else tuple(out)
    r = ns.unique_all(ns.reshape(input, (-1,)))
    order = ns.argsort(r.values, stable=True)
    values = ns.take(r.values, order)
    out = [_no_derivative(input, values, "_unique2")]
    if return_inverse:
        rank = ns.argsort(order, stable=True)
        out.append(ns.reshape(ns.take(rank, r.inverse_indices), tuple(input.shape)))
    if return_counts:
        out.append(ns.take(r.counts, order))
    return out[0] if len(out) == 1 else tuple(out)


@_composite
def isclose(input, other, /, rtol=1e-05, atol=1e-08, equal_nan=False) -> Array:
    """``|input - other| <= atol + rtol * |other|`` element-wise; equal infinities are close.

    >>> import strided as xp
    >>> xp.isclose(xp.tensor([1.0, 2.0, float("inf")]), xp.tensor([1.0 + 1e-7, 2.1, float("inf")]))
    tensor([ True, False,  True])
    """
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:  # (as PyTorch: a negative tolerance would make nothing but equality close)
            raise RuntimeError(f"isclose(): {name} must be greater than or equal to zero, but got {tol}")
    ns = _ns()
    a, b = _floating(input) if type(input) is Array else input, _floating(other) if type(other) is Array else other
    close = (a == b) | (ns.isfinite(a) & ns.isfinite(b) & (ns.abs(a - b) <= atol + rtol * ns.abs(b)))
    if equal_nan:
        close = close | (ns.isnan(a) & ns.isnan(b))
    return close


@_composite
def allclose(input, other, /, rtol=1e-05, atol=1e-08, equal_nan=False) -> builtins.bool:
    """Whether every element of ``input`` is close to ``other`` (see ``isclose``); a Python bool.

    >>> import strided as xp
    >>> xp.allclose(xp.tensor([1.0, 2.0]), xp.tensor([1.0, 2.0000001]))
    True
    """
    return builtins.bool(_ns().all(isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)))


# --- linear algebra -------------------------------------------------------------------

@_composite
def addmm(input, mat1, mat2, /, *, beta=1, alpha=1) -> Array:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` is ignored when ``beta`` is 0.

    >>> import strided as xp
    >>> xp.addmm(xp.ones(2, 2), xp.eye(2), xp.tensor([[1.0, 2.0], [3.0, 4.0]]), alpha=2)
    tensor([[3., 5.],
            [7., 9.]])
    """
    from ._checks import blas_scalar
    r = mat1 @ mat2
    beta, alpha = blas_scalar(beta, r.dtype), blas_scalar(alpha, r.dtype)
    if alpha != 1:
        r = alpha * r
    if beta == 0:
        return r
    return (input if beta == 1 else beta * input) + r


@_composite
def baddbmm(input, batch1, batch2, /, *, beta=1, alpha=1) -> Array:
    """``beta * input + alpha * (batch1 @ batch2)`` for stacks of matrices.

    >>> import strided as xp
    >>> xp.baddbmm(xp.zeros(2, 1, 1), xp.ones(2, 1, 3), xp.ones(2, 3, 1)).shape
    strided.Size([2, 1, 1])
    """
    return addmm(input, batch1, batch2, beta=beta, alpha=alpha)


@_composite
def cdist(x1, x2, /, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary") -> Array:
    """The ``p``-norm distance between each row of ``x1`` and each row of ``x2``.

    PyTorch's checks: floating arrays of one dtype, at least 2-D, the same number of
    columns, ``p >= 0``, and a ``compute_mode`` of PyTorch's three. Note: every mode computes
    the differences directly (PyTorch's matrix-product modes for ``p=2`` round differently,
    within float rounding).

    >>> import strided as xp
    >>> xp.cdist(xp.tensor([[0.0, 0.0]]), xp.tensor([[3.0, 4.0], [0.0, 1.0]]))
    tensor([[5., 1.]])
    """
    ns = _ns()
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    _arrays("cdist", x1=x1, x2=x2)
    for name, a in (("X1", x1), ("X2", x2)):
        if a._dtype.kind != "f":
            raise _dtypes.DTypeError(f"cdist only supports floating-point dtypes, {name} got: "
                                     f"{_scalar_type(a._dtype)}")
    if x1._dtype is not x2._dtype:
        raise _dtypes.DTypeError(f"cdist(): expected scalar type {_scalar_type(x1._dtype)} but found "
                                 f"{_scalar_type(x2._dtype)} (x1 is {x1._dtype.name}, x2 {x2._dtype.name})")
    for name, a in (("X1", x1), ("X2", x2)):
        if a.ndim < 2:
            raise _layout.ShapeError(f"cdist only supports at least 2D tensors, {name} got: {a.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise _layout.ShapeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
                         f"X2: {x2.shape[-1]}")
    if not isinstance(p, (builtins.int, builtins.float)) or isinstance(p, builtins.bool):
        raise TypeError(f"cdist(): argument 'p' must be a number; got {type(p).__name__}")
    if p < 0:
        raise ArgumentError(f"cdist only supports non-negative p values; got p={p}")
    diff = ns.expand_dims(x1, axis=-2) - ns.expand_dims(x2, axis=-3)
    return ns.linalg.vector_norm(diff, axis=-1, ord=p)


def _arrays(fname, **args):
    """TypeError (PyTorch's) for an argument that is not an array."""
    for name, a in args.items():
        if not isinstance(a, Array):
            raise TypeError(f"{fname}(): argument '{name}' must be an array, not {type(a).__name__}")


@_composite
def cross(input, other, /, dim=None) -> Array:
    """The cross product along ``dim`` (by default the first dimension of size 3, as in PyTorch).

    >>> import strided as xp
    >>> xp.cross(xp.tensor([1.0, 0.0, 0.0]), xp.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    ns = _ns()
    _arrays("cross", input=input, other=other)
    shape = ns.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    if dim is None:
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise ValueError(f"cross(): no dimension of size 3 in shape {shape}")
    if dim >= 0:
        dim -= len(shape)  # linalg.cross counts axes from the end
    return ns.linalg.cross(input, other, axis=dim)


@_composite
def kron(input, other, /) -> Array:
    """The Kronecker product: every element of ``input`` times the whole of ``other``.

    >>> import strided as xp
    >>> xp.kron(xp.tensor([[1, 2]]), xp.tensor([[1, 10], [100, 1000]]))
    tensor([[   1,   10,    2,   20],
            [ 100, 1000,  200, 2000]])
    """
    ns = _ns()
    _arrays("kron", input=input, other=other)
    nd = builtins.max(input.ndim, other.ndim)
    a = ns.reshape(input, (1,) * (nd - input.ndim) + tuple(input.shape))
    b = ns.reshape(other, (1,) * (nd - other.ndim) + tuple(other.shape))
    # interleave: a's dims at even positions, b's at odd ones, then merge each pair
    a = ns.reshape(a, tuple(n for d in a.shape for n in (d, 1)))
    b = ns.reshape(b, tuple(n for d in b.shape for n in (1, d)))
    return ns.reshape(a * b, tuple(p * q for p, q in zip(a.shape[::2], b.shape[1::2])))


@_composite
def inverse(input, /) -> Array:
    """The inverse of a square matrix or stack of them (``strided.linalg.inv``).

    >>> import strided as xp
    >>> xp.inverse(xp.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return _ns().linalg.inv(input)


@_composite
def det(input, /) -> Array:
    """The determinant of a square matrix or stack of them (``strided.linalg.det``).

    >>> import strided as xp
    >>> xp.det(xp.tensor([[2.0, 1.0], [1.0, 3.0]]))
    tensor(5.)
    """
    return _ns().linalg.det(input)


# --- PyTorch's names for namespace functions ----------------------------------------------

@_composite
def clamp(input, /, min=None, max=None) -> Array:
    """Clamp to ``[min, max]`` (PyTorch's name for ``clip``).

    >>> import strided as xp
    >>> xp.clamp(xp.tensor([-2.0, 0.5, 3.0]), min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """
    return _ns().clip(input, min, max)


@_composite
def clamp_min(input, /, min) -> Array:  # noqa: A002 - PyTorch's parameter name
    """``clamp`` with a lower bound alone (PyTorch's ``clamp_min``): ``min`` a Python scalar
    or an array broadcasting with ``input``; NaN in either gives NaN.

    >>> import strided as xp
    >>> xp.clamp_min(xp.tensor([-2.0, 0.5, 3.0]), 0.0)
    tensor([0.0000, 0.5000, 3.0000])
    """
    if min is None:
        raise TypeError("clamp_min(): min must be a number or an array, not None")
    return _ns().clip(input, min, None)


@_composite
def clamp_max(input, /, max) -> Array:  # noqa: A002 - PyTorch's parameter name
    """``clamp`` with an upper bound alone (PyTorch's ``clamp_max``): ``max`` a Python scalar
    or an array broadcasting with ``input``; NaN in either gives NaN.

    >>> import strided as xp
    >>> xp.clamp_max(xp.tensor([-2.0, 0.5, 3.0]), 1.0)
    tensor([-2.0000,  0.5000,  1.0000])
    """
    if max is None:
        raise TypeError("clamp_max(): max must be a number or an array, not None")
    return _ns().clip(input, None, max)


def _running(func: str, fname: str, input, dim, axis, dtype, out):
    """PyTorch's ``dim`` or NumPy's ``axis`` (None: the flattened array, as NumPy)."""
    ns = _ns()
    if dim is not None:
        if axis is not None:
            raise TypeError(f"{func}(): give dim (PyTorch's name) or axis (NumPy's), not both")
        axis = dim
    if axis is None:
        if type(input) is not Array:
            raise TypeError(f"{func}(): expected a strided array; got {type(input).__name__}")
        input, axis = ns.reshape(input, (-1,)), 0
    return getattr(ns, fname)(input, axis=axis, dtype=dtype, out=out)


@_composite
def cumsum(input, /, dim=None, *, dtype=None, axis=None, out=None) -> Array:
    """Cumulative sum along ``dim`` (PyTorch's name for ``cumulative_sum``).

    An extension beyond the standard, with PyTorch's ``dim`` and NumPy's ``axis``
    (give one): without either the array is flattened first, as in NumPy's
    ``cumsum`` (PyTorch requires ``dim``).

    >>> import strided as xp
    >>> xp.cumsum(xp.tensor([1, 2, 3]), 0)
    tensor([1, 3, 6])
    >>> xp.cumsum(xp.tensor([[1, 2], [3, 4]]), axis=1)
    tensor([[1, 3],
            [3, 7]])
    >>> xp.cumsum(xp.tensor([[1, 2], [3, 4]]))
    tensor([ 1,  3,  6, 10])
    """
    return _running("cumsum", "cumulative_sum", input, dim, axis, dtype, out)


@_composite
def cumprod(input, /, dim=None, *, dtype=None, axis=None, out=None) -> Array:
    """Cumulative product along ``dim`` (PyTorch's name for ``cumulative_prod``).

    An extension beyond the standard, with PyTorch's ``dim`` and NumPy's ``axis``
    (give one): without either the array is flattened first, as in NumPy's
    ``cumprod`` (PyTorch requires ``dim``).

    >>> import strided as xp
    >>> xp.cumprod(xp.tensor([1, 2, 3]), 0)
    tensor([1, 2, 6])
    >>> xp.cumprod(xp.tensor([[1, 2], [3, 4]]), axis=0)
    tensor([[1, 2],
            [3, 8]])
    """
    return _running("cumprod", "cumulative_prod", input, dim, axis, dtype, out)


@_composite
def permute(input, /, dims) -> Array:
    """Reorder the dimensions, as a view (PyTorch's name for ``permute_dims``).

    >>> import strided as xp
    >>> xp.permute(xp.zeros(2, 3, 4), (2, 0, 1)).shape
    strided.Size([4, 2, 3])
    """
    return _ns().permute_dims(input, tuple(dims))


@_composite
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None) -> Array:
    """PyTorch's ``torch.norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)``:
    the vector ``p``-norm, or ``'fro'``/``'nuc'``, with PyTorch's errors (see
    ``strided.torch._methods.torch_norm``).

    >>> import strided as xp
    >>> xp.norm(xp.tensor([3.0, 4.0]))
    tensor(5.)
    """
    from ._methods import torch_norm
    return torch_norm(input, p, dim, keepdim, out, dtype)


@_composite
def numel(input, /) -> builtins.int:
    """The number of elements of ``input``.

    >>> import strided as xp
    >>> xp.numel(xp.zeros(2, 3))
    6
    """
    return input.numel()



@_composite
def lerp(input, end, weight, /) -> Array:
    """Linear interpolation ``input + weight * (end - input)``.

    >>> import strided as xp
    >>> xp.lerp(xp.tensor([0.0, 10.0]), xp.tensor([1.0, 20.0]), 0.5)
    tensor([ 0.5000, 15.0000])
    """
    ns = _ns()
    _arrays("lerp", input=input, end=end)
    if end._dtype is not input._dtype:
        raise _dtypes.DTypeError(f"lerp(): expected dtype {_c_type(input._dtype)} for `end` but got "
                                 f"dtype {_c_type(end._dtype)}")
    if type(weight) is Array and weight._dtype is not input._dtype and weight.ndim:
        raise _dtypes.DTypeError(f"lerp(): expected dtype {_c_type(input._dtype)} for `weight` but got "
                                 f"dtype {_c_type(weight._dtype)}")
    # PyTorch's formula (ATen/native/Lerp.h): from the start for |weight| < 0.5, else from the
    # end, so that lerp(a, b, 1) is b exactly; float16 in float32 (its opmath type)
    half = input._dtype is _dtypes.float16
    a, b = (ns.astype(input, _dtypes.float32), ns.astype(end, _dtypes.float32)) if half else (input, end)
    w = weight
    if type(w) is Array and w._dtype is not a._dtype:  # (a 0-d weight: in the compute dtype)
        w = ns.astype(w, a._dtype)
    diff = b - a
    if type(w) is Array:
        r = ns.where(ns.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))
    else:
        r = a + w * diff if abs(w) < 0.5 else b - diff * (1 - w)
    return ns.astype(r, _dtypes.float16) if half else r


@_composite
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False) -> Array:
    """``steps`` numbers from ``base**start`` to ``base**end``, evenly spaced in the exponent.

    >>> import strided as xp
    >>> xp.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    ns = _ns()
    exps = ns.linspace(start, end, steps, dtype=_dtypes.float64, device=device)
    r = ns.astype(ns.pow(ns.asarray(builtins.float(base), dtype=_dtypes.float64, device=device), exps),
                  dtype or _dtypes.get_default_dtype())
    return r.requires_grad_() if requires_grad else r


# --- methods ---------------------------------------------------------------------------------

def _method(f, name=None):
    def method(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    method.__name__ = name or f.__name__
    method.__doc__ = f"Method form of ``strided.{f.__name__}``."
    method.__signature__ = method_signature(f)
    return method


for _name in ("softmax", "log_softmax", "logsumexp", "gather", "index_select",
              "masked_select", "masked_fill", "topk", "isclose", "allclose",
              "addmm", "baddbmm", "cross", "inverse", "det", "lerp"):
    setattr(Array, _name, _method(globals()[_name]))


def _scatter_method(self, dim, index, src=None, *, value=None, reduce=None):
    """PyTorch's ``x.scatter(dim, index, src)`` (``value=`` or a number for ``src``;
    ``reduce='add'`` or ``'multiply'``): ``torch.scatter(x, ...)``."""
    return _ns().torch.scatter(self, dim, index, src, value=value, reduce=reduce)


_scatter_method.__name__ = _scatter_method.__qualname__ = "scatter"
Array.scatter = _scatter_method


def unique_(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """PyTorch's ``x.unique()``: see ``strided.unique``."""
    return unique(self, sorted, return_inverse, return_counts, dim)


def type_as(self, other):
    """This array cast to ``other``'s dtype (self when it already has it)."""
    _arrays("type_as", other=other)
    return self.to(other.dtype)


def lerp_(self, end, weight):
    """In-place ``lerp``; returns self."""
    return self.copy_(lerp(self, end, weight))


Array.median = median


def _named_result(name: str, method):
    """``method`` returning PyTorch's ``return_types.<name>`` where it returned the plain
    ``values_indices`` pair (``x.sort()``, ``x.max(0)``: PyTorch's Tensor methods return the
    same named tuples as its functions)."""
    from ._return_types import return_types
    rt = getattr(return_types, name)

    def call(self, *args, **kwargs):
        r = method(self, *args, **kwargs)
        return rt(*r) if type(r).__name__ == "values_indices" else r
    call.__name__ = call.__qualname__ = name
    call.__doc__ = method.__doc__
    call.__wrapped__ = method
    return call
Array.mode = mode
Array.unique = unique_
Array.type_as = type_as
Array.masked_fill_ = _masked_fill_
Array.scatter_ = _scatter_
Array.lerp_ = lerp_

for _name in ("sort", "max", "min", "topk", "median", "mode"):
    setattr(Array, _name, _named_result(_name, Array.__dict__[_name]))
