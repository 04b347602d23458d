"""Pickle and ``copy`` support for arrays: what crosses a process boundary.

``Array.__reduce__`` comes here (through ``_LATE["reduce_array"]``): a view
pickles what it reaches, and the unpickler checks that the view lies inside
its storage (a pickle is untrusted input). ``copy.copy`` / ``copy.deepcopy``
come here too. ``strided.save`` does not: it writes arrays through its own
tables (``_native.py``, docs/format.md).
"""

from __future__ import annotations

import builtins

from .._core import layout as _layout
from .._core.array import _LATE, Array, _native
from .._core.storage import Storage
from ._native import FormatError


def _ext_state(x: Array):
    ext = x._ext
    if ext is None:
        return None, False
    names = ext.names
    if names is not None and not any(n is not None for n in names):
        names = None
    return (tuple(names) if names is not None else None), builtins.bool(ext.requires_grad)


def _rebuild_array(storage, offset, shape, strides, names=None, requires_grad=False):
    """Unpickle an array: a view of an (already unpickled, maybe shared) storage.

    A pickle is untrusted input: the view must lie inside its storage."""
    if not isinstance(storage, Storage):
        raise FormatError(f"unpickling a strided array: expected a Storage; got {type(storage).__name__}")
    shape, strides = tuple(shape), tuple(strides)
    if type(offset) is not builtins.int or len(shape) != len(strides) or any(
            type(v) is not builtins.int for v in shape + strides) or any(n < 0 for n in shape):
        raise FormatError(f"unpickling a strided array: bad layout (offset {offset!r}, shape {shape!r}, "
                          f"strides {strides!r})")
    lo, hi = _layout.extent(offset, shape, strides)
    if hi >= lo and (lo < 0 or hi >= len(storage)):
        raise FormatError(f"unpickling a strided array: the view (offset {offset}, shape {shape}, "
                          f"strides {strides}) reaches outside its storage of {len(storage)} elements")
    if offset < 0 or (hi < lo and offset > len(storage)):
        raise FormatError(f"unpickling a strided array: offset {offset} is outside its storage of "
                          f"{len(storage)} elements")
    arr = Array._from_storage(storage, offset, shape, strides)
    if names is not None and "set_names" in _LATE:
        arr = _LATE["set_names"](arr, names)
    if requires_grad and "set_requires_grad" in _LATE:
        arr = _LATE["set_requires_grad"](arr, True)
    return arr


def _reduce_array(x: Array):
    """Pickle for transport: what crosses is proportional to the view.

    A view that reaches at least half of its storage pickles the storage itself
    (so views pickled together keep sharing it, through the pickle's memo); any
    other view (an empty one too) pickles only the elements it reaches, as a fresh compact storage
    (a broadcast axis stays stride 0). ``save`` does not come here: it writes
    arrays through its own tables and keeps storage sharing (docs/format.md)."""
    st, off, shape, strides = x._layout()
    names, requires_grad = _ext_state(x)
    shape, strides = tuple(shape), tuple(strides)
    # Elements reached (broadcast axes count once; an empty view reaches none).
    reached = _layout.prod(n for n, s in zip(shape, strides) if s != 0) if all(shape) else 0
    if reached == 0 or len(st) > 2 * reached:
        # Note: as NumPy pickles a view (its elements, not its base), so a 10x10 view of a
        # 1000x1000 array crosses a process boundary as 100 elements.
        sub = tuple(n if s != 0 else min(n, 1) for n, s in zip(shape, strides))
        backend = st.device.backend
        with backend.ctx(st.device):
            dense = backend.xp.ascontiguousarray(_native(st, off, sub, strides)).reshape(-1)
        cs = _layout.contiguous_strides(sub)
        strides = tuple(c if s != 0 else 0 for c, s in zip(cs, strides))
        st, off = Storage(dense, st.dtype, st.device), 0
    return (_rebuild_array, (st, off, shape, strides, names, requires_grad))


def _copy_array(x: Array, memo):
    """``copy.copy`` (memo None): a new array viewing the same storage, as PyTorch.
    ``copy.deepcopy``: new storage, shared by the views copied in one call."""
    st, off, shape, strides = x._layout()
    if memo is not None:
        new = memo.get(id(st))
        if new is None:
            backend = st.device.backend
            with backend.ctx(st.device):
                data = backend.xp.array(st._data, copy=True)
            new = memo[id(st)] = Storage(data, st.dtype, st.device)
            memo.setdefault(id(memo), []).append(st)  # keep st alive, as copy.deepcopy does
        st = new
    names, requires_grad = _ext_state(x)
    arr = _rebuild_array(st, off, shape, strides, names, requires_grad)
    if memo is not None:
        memo[id(x)] = arr
    return arr


_LATE["reduce_array"] = _reduce_array
_LATE["copy_array"] = _copy_array
