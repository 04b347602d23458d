"""PyTorch's ``*_copy`` functions: each view operation's result as a new row-major array.

``torch.diagonal_copy(x)`` is ``torch.diagonal(x)`` copied: the same values in a storage of
its own, laid out row-major whatever ``x``'s layout (PyTorch 2.13's, measured: the copy of a
transposed input's ``permute`` or ``select`` is row-major too), differentiable as the view and a
copy are. A function of several views (``split_copy``, ``unbind_copy``) returns a tuple of
copies. ``out=`` takes the copy (one array, or a list for the tuples). The sparse tensors'
``values_copy``, ``indices_copy``, ... refuse a strided array with PyTorch's message (strided
has no sparse layouts).

>>> import strided.torch as torch
>>> x = torch.arange(6.0).reshape(2, 3)
>>> y = torch.t_copy(x)
>>> y.stride(), y.data_ptr() != x.data_ptr()
((2, 1), True)
"""

from __future__ import annotations

import inspect
import sys

from .._core import layout as _layout
from ._checks import tensor as _tensor
from ._memory_format import copy_with_strides

__all__ = [
    "alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy", "narrow_copy",
    "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy",
    "t_copy", "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy",
    "view_as_real_copy", "view_as_complex_copy",
    "values_copy", "indices_copy", "crow_indices_copy", "col_indices_copy", "ccol_indices_copy",
    "row_indices_copy",
]


def _t():
    return sys.modules["strided.torch"]


def _copy(v):
    """A row-major copy of the view ``v`` in a storage of its own (recorded as a copy)."""
    return copy_with_strides(v, _layout.contiguous_strides(tuple(v.shape)))


def _done(name, r, out):
    """``r`` (an array, or a tuple of them) written into ``out`` when given."""
    if out is None:
        return r
    if isinstance(r, tuple):
        if not isinstance(out, (list, tuple)) or len(out) != len(r):
            raise RuntimeError(f"{name}(): out must be a list of {len(r)} tensors")
        for o, a in zip(out, r):
            _done(name, a, o)
        return None  # (PyTorch's split_copy(..., out=) returns None)
    from ._functions import _write
    return _write(name, r, out)


def _signed(f, name, view):
    """``f`` named ``name`` with the signature ``(input, <the view's parameters>, *, out=None)``."""
    P = inspect.Parameter
    params = list(inspect.signature(view).parameters.values())[1:]
    f.__name__ = f.__qualname__ = name
    f.__signature__ = inspect.Signature([P("input", P.POSITIONAL_OR_KEYWORD)] + params
                                        + [P("out", P.KEYWORD_ONLY, default=None)])
    return f


def _one(name, view):
    def f(input, *args, out=None, **kwargs):
        return _done(name, _copy(view(_tensor(name, input), *args, **kwargs)), out)
    return _signed(f, name, view)


def _many(name, views):
    def f(input, *args, out=None, **kwargs):
        return _done(name, tuple(_copy(v) for v in views(_tensor(name, input), *args, **kwargs)), out)
    return _signed(f, name, views)


def _slice(x, dim=0, start=None, end=None, step=1):
    d = _layout.normalize_axis(dim, x.ndim, "slice_copy")
    if step < 1:
        raise RuntimeError("slice step must be positive")
    return x[(slice(None),) * d + (slice(start, end, step),)]


alias_copy = _one("alias_copy", lambda x: x[...])
as_strided_copy = _one("as_strided_copy", lambda x, size, stride, storage_offset=None:
                       _t().as_strided(x, size, stride, storage_offset))
detach_copy = _one("detach_copy", lambda x: x.detach())
diagonal_copy = _one("diagonal_copy", lambda x, offset=0, dim1=0, dim2=1: _t().diagonal(x, offset, dim1, dim2))
expand_copy = _one("expand_copy", lambda x, size, *, implicit=False: x.expand(*size))
narrow_copy = _one("narrow_copy", lambda x, dim, start, length: _t().narrow(x, dim, start, length))
permute_copy = _one("permute_copy", lambda x, dims: _t().permute(x, dims))
select_copy = _one("select_copy", lambda x, dim, index: _t().select(x, dim, index))
slice_copy = _one("slice_copy", _slice)
squeeze_copy = _one("squeeze_copy", lambda x, dim=None: x.squeeze() if dim is None else x.squeeze(dim))
t_copy = _one("t_copy", lambda x: _t().t(x))
transpose_copy = _one("transpose_copy", lambda x, dim0, dim1: _t().transpose(x, dim0, dim1))
unfold_copy = _one("unfold_copy", lambda x, dimension, size, step: x.unfold(dimension, size, step))
unsqueeze_copy = _one("unsqueeze_copy", lambda x, dim: _t().unsqueeze(x, dim))
view_copy = _one("view_copy", lambda x, size: x.view(size))
view_as_real_copy = _one("view_as_real_copy", lambda x: _t().view_as_real(x))
view_as_complex_copy = _one("view_as_complex_copy", lambda x: _t().view_as_complex(x))
split_copy = _many("split_copy", lambda x, split_size, dim=0: _t().split(x, split_size, dim))
split_with_sizes_copy = _many("split_with_sizes_copy",
                              lambda x, split_sizes, dim=0: _t().split_with_sizes(x, split_sizes, dim))
unbind_copy = _many("unbind_copy", lambda x, dim=0: _t().unbind(x, dim))


def _sparse(name, layout):
    def f(input, *, out=None):
        _tensor(name, input)
        raise RuntimeError(f"{name[:-5]} expected {layout} tensor layout but got Strided")
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"PyTorch's ``torch.{name}``: of a sparse tensor only (strided has none: it raises)."
    return f


values_copy = _sparse("values_copy", "sparse")
indices_copy = _sparse("indices_copy", "sparse coordinate")
crow_indices_copy = _sparse("crow_indices_copy", "sparse row compressed")
col_indices_copy = _sparse("col_indices_copy", "sparse row compressed")
ccol_indices_copy = _sparse("ccol_indices_copy", "sparse column compressed")
row_indices_copy = _sparse("row_indices_copy", "sparse column compressed")

for _n in __all__:
    _f = globals()[_n]
    if _f.__doc__ is None:
        _f.__doc__ = (f"PyTorch's ``torch.{_n}``: ``torch.{_n[:-5]}``'s result copied into a new "
                      f"row-major array.")
