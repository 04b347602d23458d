"""Names on arrays: where they live, how they are checked, looked up and unified.

Names live in ``x._ext.names`` (the ``Ext`` object shared with autograd): a
tuple with one entry per dimension, a ``str`` or None, or None itself when no
dimension is named. Unnamed arrays keep ``_ext`` None, so they never reach
the dispatch hook. Nothing here copies data.
"""

from __future__ import annotations

from .._core import layout as _layout
from .._core.array import Array, Ext
from .._api.views import expand_dims, permute_dims, view

__all__ = ["DimensionNameError", "names_of", "full_names", "tag", "check_names",
           "name_to_axis", "axis_of", "unify_right", "unify_same", "renamed", "relayout"]


class DimensionNameError(ValueError, RuntimeError):
    """Dimension names that don't fit: a mismatch, a duplicate or an unknown name.

    # Note: PyTorch raises RuntimeError for these; our convention for wrong
    # shapes and values is ValueError. The error is both, so either catches it.
    """


_ACTIVE = [False]


def _activate() -> None:
    """Install the dispatch handler: done the first time an array gets names."""
    if not _ACTIVE[0]:
        from ._handler import install
        install()
        _ACTIVE[0] = True


def names_of(x: Array):
    """``x``'s names tuple, or None when no dimension is named."""
    e = x._ext
    return None if e is None else e.names


def full_names(x: Array) -> tuple:
    """One entry per dimension: the name, or None."""
    e = x._ext
    n = None if e is None else e.names
    return n if n is not None else (None,) * len(x._shape)


# (op, x's names, the view's arguments) -> the names of the view's result (None: unnamed),
# for the views whose name outcome depends on nothing else: filled by the named handler
# (_handler._VIEW_KEYS) and by rename/refine_names/align_to (align_to's outcome is
# (names, permutation, new dims)), read there and by the compiled views (_chot.c, "named
# dimensions"). An outcome is a function of its key: it never goes stale.
VIEW_NAMES: dict = {}


def remember_view(key, outcome) -> None:
    """Cache a view's outcome under ``key``: the names of its result (a tuple; all None
    is stored as None), or align_to's (names, permutation, new dims)."""
    if len(VIEW_NAMES) > 4096:
        VIEW_NAMES.clear()
    if key[0] != "align_to" and outcome is not None and outcome.count(None) == len(outcome):
        outcome = None
    VIEW_NAMES[key] = outcome


def tag(x: Array, names) -> Array:
    """Set ``x``'s names in place (``x`` must be an array this library just made)."""
    if names is None or names.count(None) == len(names):
        if x._ext is not None:
            x._ext.names = None
        return x
    if not _ACTIVE[0]:
        _activate()
    e = x._ext
    if e is None:
        e = x._ext = Ext()
    e.names = tuple(names)
    return x


def check_names(names, ndim: int, func: str) -> tuple:
    """Validate a full list of names for an array of ``ndim`` dimensions."""
    if isinstance(names, str) or not isinstance(names, (tuple, list)):
        raise TypeError(f"{func}(): names must be a list or tuple of str or None; got {names!r}")
    names = tuple(names)
    if len(names) != ndim:
        raise DimensionNameError(f"{func}(): {len(names)} names {list(names)} given for an array "
                                 f"with {ndim} dimensions")
    for n in names:
        if n is None:
            continue
        if type(n) is not str:
            raise TypeError(f"{func}(): a dimension name must be a str or None; got {n!r}")
        if not n.isidentifier() or n.startswith("_"):
            raise DimensionNameError(f"{func}(): invalid dimension name {n!r}: names must be Python "
                                     f"identifiers that don't start with an underscore")
    _no_duplicates(names, func)
    return names


def _no_duplicates(names, func: str) -> None:
    seen = set()
    for n in names:
        if n is None:
            continue
        if n in seen:
            raise DimensionNameError(f"{func}(): duplicate dimension name {n!r} in {list(names)}; "
                                     f"the names of an array must be unique")
        seen.add(n)


def name_to_axis(x: Array, name: str) -> int:
    """The position of dimension ``name`` in ``x`` (the core's hook for ``str`` axes)."""
    names = names_of(x)
    if names is not None:
        for i, n in enumerate(names):
            if n == name:
                return i
    raise DimensionNameError(f"dimension name {name!r} not found: the array's names are "
                             f"{list(full_names(x))}")


def axis_of(x: Array, a):
    """``a`` as a position if it is a dimension name; anything else unchanged."""
    return name_to_axis(x, a) if type(a) is str else a


def _broadcast_error(n1, n2, msg):
    return DimensionNameError(f"Error when attempting to broadcast dims {list(n1)} and dims "
                              f"{list(n2)}: {msg}")


def unify_right(n1: tuple, n2: tuple) -> tuple:
    """The names of the broadcast of arrays named ``n1`` and ``n2`` (aligned from the right).

    None matches anything; two different names at one position, or one name at
    two different positions, raise DimensionNameError.
    """
    if n1 == n2:
        return n1
    l1, l2 = len(n1), len(n2)
    if l1 < l2:
        out = list(n2)
        short, off = n1, l2 - l1
    else:
        out = list(n1)
        short, off = n2, l1 - l2
    for i, b in enumerate(short):
        a = out[off + i]
        if b is None or a == b:
            continue
        if a is None:
            out[off + i] = b
            continue
        a, b = (n1[i + l1 - len(short)], n2[i + l2 - len(short)])
        raise _broadcast_error(n1, n2, f"dim {a!r} and dim {b!r} are at the same position from "
                                       f"the right but do not match.")
    seen = {}
    for i, n in enumerate(out):
        if n is None:
            continue
        if n in seen:
            raise _broadcast_error(n1, n2, f"dim {n!r} appears in a different position from the "
                                           f"right across both lists.")
        seen[n] = i
    return tuple(out)


def unify_same(n1: tuple, n2: tuple, func: str, what: str) -> tuple:
    """Position-by-position unification of two equally long name tuples."""
    if n1 == n2:
        return n1
    out = []
    for a, b in zip(n1, n2):
        if a is None or a == b:
            out.append(b)
        elif b is None:
            out.append(a)
        else:
            raise DimensionNameError(f"{func}(): {what}: names {list(n1)} and {list(n2)} differ "
                                     f"({a!r} and {b!r} at the same position)")
    _no_duplicates(out, func)
    return tuple(out)


def _tracked(x: Array) -> bool:
    e = x._ext
    return e is not None and e.requires_grad


def renamed(x: Array, names) -> Array:
    """A new array viewing ``x``'s memory with ``names`` (recorded by autograd when tracked)."""
    if _tracked(x):
        y = view(x, x._shape)
    else:
        st, off, shape, strides = x._layout()
        y = Array._new(x._np, st, off, shape, strides, x._dtype, x._device)
    return tag(y, names)


def relayout(x: Array, perm: tuple, new_dims: tuple, names) -> Array:
    """``x`` with its axes permuted by ``perm`` and size-1 axes inserted at the (sorted)
    positions ``new_dims`` of the result, named ``names``: a view, no data copied."""
    if _tracked(x):
        y = permute_dims(x, perm)
        if new_dims:
            y = expand_dims(y, axis=new_dims)
        return tag(y, names)
    st, off, shape, strides = x._layout()
    shape, strides = _layout.permute(shape, strides, perm)
    for a in new_dims:
        shape, strides = _layout.unsqueeze(shape, strides, a)
    return tag(Array._new(None, st, off, shape, strides, x._dtype, x._device), names)
