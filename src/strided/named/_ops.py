"""The named-tensor API: set, refine, rename and align names; flatten and unflatten by name.

Every function here returns a view of its input (same storage, no copy);
when the input requires grad the view is made by recorded view operations,
so gradients flow through it.
"""

from __future__ import annotations

import operator

from .._core.array import Array
from .._core.layout import normalize_axis
from .._api.views import flatten as _flatten
from .._api.views import unflatten as _unflatten
from ._core import (DimensionNameError, _tracked, check_names, full_names, name_to_axis, names_of,
                    relayout, remember_view, renamed, tag)

# The bodies of flatten and unflatten, without dispatch: a call whose outcome is cached
# (_SHAPES) on an array autograd does not track needs no handler (the names handler would
# only compute the names again, which _retag then replaces), so it runs the body and names
# the result once. A tracked array goes through dispatch, so that autograd records the view.
_flatten_impl = getattr(_flatten, "_impl", _flatten)
_unflatten_impl = getattr(_unflatten, "_impl", _unflatten)

__all__ = ["set_names", "refine_names", "rename", "align_to", "align_as", "align",
           "flatten", "unflatten"]


def _check_array(x, func):
    if type(x) is not Array:
        raise TypeError(f"{func}(): expected a strided array; got {type(x).__name__}")


def set_names(x: Array, names) -> Array:
    """``x`` viewed with ``names`` (one per dimension, str or None): the ``names=`` of creation."""
    _check_array(x, "names")
    names = check_names(names, x.ndim, "names")
    if names == full_names(x):
        return x
    return renamed(x, names)


def _expand_ellipsis(names, old: tuple, func: str) -> tuple:
    """``names`` with one ``...`` replaced by the entries of ``old`` it stands for."""
    names = tuple(names)
    where = [i for i, n in enumerate(names) if _is_ell(n)]
    if len(where) > 1:
        raise DimensionNameError(f"{func}(): at most one '...' is allowed; got {list(names)}")
    if not where:
        if len(names) != len(old):
            raise DimensionNameError(f"{func}(): {len(names)} names {_show(names)} given for an "
                                     f"array with {len(old)} dimensions")
        return names
    i = where[0]
    before, after = names[:i], names[i + 1:]
    k = len(old) - len(before) - len(after)
    if k < 0:
        raise DimensionNameError(f"{func}(): {len(names) - 1} names {_show(names)} plus '...' given "
                                 f"for an array with {len(old)} dimensions")
    return before + old[len(before):len(before) + k] + after


def _show(names) -> list:
    return ["..." if n is Ellipsis else n for n in names]


def refine_names(x: Array, *names) -> Array:
    """Name the unnamed dimensions of ``x``: named ones must keep their names (a view).

    ``...`` stands for the dimensions not listed, which keep their names.

    >>> import strided as xp
    >>> xp.ones(2, 3, 4).refine_names(..., "rows", "columns").names
    (None, 'rows', 'columns')
    """
    _check_array(x, "refine_names")
    if len(names) == 1 and isinstance(names[0], (list, tuple)):
        names = tuple(names[0])
    old = full_names(x)
    new = _expand_ellipsis(names, old, "refine_names")
    for i, (a, b) in enumerate(zip(old, new)):
        if a is not None and a != b:
            raise DimensionNameError(f"refine_names(): cannot coerce names {list(old)} to "
                                     f"{list(new)}: {a!r} is different from {b!r} at index {i}")
    new = check_names(new, x.ndim, "refine_names")
    _remember("refine_names", x, names, new)
    return x if new == old else renamed(x, new)


def rename(x: Array, *names, **rename_map) -> Array:
    """Rename dimensions (a view): positionally (``...`` keeps the rest; ``rename(None)``
    drops every name) or by keyword (``rename(channels="C")``).

    >>> import strided as xp
    >>> x = xp.ones(3, 2, names=["C", None])
    >>> x.rename(C="channels").names, x.rename(None).names
    (('channels', None), (None, None))
    """
    _check_array(x, "rename")
    old = full_names(x)
    if names and rename_map:
        raise TypeError("rename(): give names positionally or as keywords, not both")
    if rename_map:
        new = list(old)
        for k, v in rename_map.items():
            if k not in old:
                raise DimensionNameError(f"rename(): dimension name {k!r} not found: the array's "
                                         f"names are {list(old)}")
            new[old.index(k)] = v
        new = tuple(new)
    elif len(names) == 1 and names[0] is None:
        new = (None,) * x.ndim
    else:
        if len(names) == 1 and isinstance(names[0], (list, tuple)):
            names = tuple(names[0])
        new = _expand_ellipsis(names, old, "rename")
    new = check_names(new, x.ndim, "rename")
    if not rename_map:
        _remember("rename", x, names, new)
    return x if new == old else renamed(x, new)


def _remember(op, x, names, outcome) -> None:
    """Cache the outcome of ``op(x, *names)`` for the compiled ``Array.rename``,
    ``refine_names`` and ``align_to`` (_core.VIEW_NAMES): x named, names of str, None
    and ``...``."""
    key = names_of(x)
    if key is None:
        return
    for n in names:
        if n is not None and n is not Ellipsis and type(n) is not str:
            return
    remember_view((op, key, names), outcome)


def _is_ell(n) -> bool:
    return n is Ellipsis or (type(n) is str and n == "...")


def align_to(x: Array, *names) -> Array:
    """Permute ``x`` to the order ``names``, adding size-1 dims for new names (a view).

    ``...`` stands for the dimensions of ``x`` not listed, in their order; without it
    every dimension of ``x`` must be named and listed.

    >>> import strided as xp
    >>> x = xp.ones(2, 3, names=["N", "C"])
    >>> x.align_to("C", "H", "N").shape
    strided.Size([3, 1, 2])
    """
    _check_array(x, "align_to")
    if len(names) == 1 and isinstance(names[0], (list, tuple)):
        names = tuple(names[0])
    old = full_names(x)
    ell = [i for i, n in enumerate(names) if _is_ell(n)]
    if len(ell) > 1:
        raise DimensionNameError(f"align_to(): at most one '...' is allowed; got {_show(names)}")
    listed = [n for n in names if not _is_ell(n)]
    for n in listed:
        if type(n) is not str:
            raise DimensionNameError(f"align_to(): names must be str; got {_show(names)}")
    if ell:
        rest = [i for i, n in enumerate(old) if n is None or n not in listed]
    elif any(n is None for n in old):
        raise DimensionNameError(f"align_to(): all dims of the array must be named to align "
                                 f"without '...'; its names are {list(old)}")
    else:
        rest = []
    pos = {n: i for i, n in enumerate(old) if n is not None}
    perm, new_dims, target = [], [], []
    for n in names:
        if _is_ell(n):
            perm.extend(rest)
            target.extend(old[i] for i in rest)
            continue
        i = pos.get(n)
        if i is None:
            new_dims.append(len(target))
        else:
            perm.append(i)
        target.append(n)
    target = check_names(target, len(target), "align_to")
    if len(perm) != len(old):
        missing = [n for n in old if n not in target]
        raise DimensionNameError(f"align_to(): dims {missing} of the array (names {list(old)}) are "
                                 f"not among the target names {list(target)}")
    perm, new_dims = tuple(perm), tuple(new_dims)
    # (the compiled Array.align_to: the layout and the names from this outcome)
    _remember("align_to", x, names, (target if target.count(None) != len(target) else None, perm,
                                     new_dims))
    return relayout(x, perm, new_dims, target)


def align_as(x: Array, other: Array) -> Array:
    """``x`` permuted and with size-1 dims added to line up with ``other``'s names (a view).

    Unnamed dims of ``x`` must lead; they line up with ``other``'s leading unnamed dims.

    >>> import strided as xp
    >>> w = xp.ones(3, names=["channels"])
    >>> w.align_as(xp.ones(3, 5, 5, names=["channels", "rows", "columns"])).shape
    strided.Size([3, 1, 1])
    """
    _check_array(x, "align_as")
    _check_array(other, "align_as")
    return _align_to_target(x, full_names(other), "align_as")


def _leading_unnamed(names: tuple, func: str) -> int:
    k = 0
    while k < len(names) and names[k] is None:
        k += 1
    if any(n is None for n in names[k:]):
        raise DimensionNameError(f"{func}(): unnamed dims must come before the named ones to align "
                                 f"by name; got names {list(names)}")
    return k


def _align_to_target(x: Array, target: tuple, func: str) -> Array:
    """``x`` lined up with ``target`` (leading unnamed dims aligned from the right)."""
    old = full_names(x)
    k = _leading_unnamed(old, func)
    kt = _leading_unnamed(target, func)
    if k > kt:
        raise DimensionNameError(f"{func}(): the array has {k} leading unnamed dims (names "
                                 f"{list(old)}) but the target has {kt} (names {list(target)})")
    pos = {n: i for i, n in enumerate(old) if n is not None}
    perm = list(range(k))
    new_dims = list(range(kt - k))
    for j in range(kt, len(target)):
        i = pos.pop(target[j], None)
        if i is None:
            new_dims.append(j)
        else:
            perm.append(i)
    if pos:
        raise DimensionNameError(f"{func}(): dims {sorted(pos, key=pos.get)} of the array (names "
                                 f"{list(old)}) are not among the target names {list(target)}")
    return relayout(x, tuple(perm), tuple(new_dims), target)


def align(*arrays) -> tuple:
    """Views of ``arrays`` lined up by name: the same dims in the same order, size 1 where absent.

    Named dims come in order of first appearance; unnamed dims must lead and are aligned
    from the right (as broadcasting does).

    >>> import strided as xp
    >>> a, b = xp.named.align(xp.ones(2, 3, names=["N", "C"]), xp.ones(4, 3, names=["H", "C"]))
    >>> a.shape, b.shape, a.names
    (strided.Size([2, 3, 1]), strided.Size([1, 3, 4]), ('N', 'C', 'H'))
    """
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    for a in arrays:
        _check_array(a, "align")
    return tuple(_align_to_target(a, t, "align") for a, t in zip(arrays, align_targets(arrays)))


def align_targets(arrays) -> list:
    """The names each of ``arrays`` gets when aligned with the others."""
    lead = 0
    order: list = []
    seen = set()
    for a in arrays:
        names = full_names(a)
        k = _leading_unnamed(names, "align")
        lead = max(lead, k)
        for n in names[k:]:
            if n not in seen:
                seen.add(n)
                order.append(n)
    target = (None,) * lead + tuple(order)
    return [target] * len(arrays)


# --- flatten and unflatten by name ----------------------------------------------------

def flatten_dims(x: Array, dims, out_name, func: str = "flatten") -> tuple:
    """(start, end) of the consecutive ``dims`` (names or ints) of ``x``, checking ``out_name``."""
    if out_name is not None and type(out_name) is not str:
        raise TypeError(f"{func}(): out_name must be a str; got {out_name!r}")
    if not dims:
        raise ValueError(f"{func}(): dims must name at least one dimension")
    nd = x.ndim
    pos = [normalize_axis(name_to_axis(x, d) if type(d) is str else operator.index(d), nd, func)
           for d in dims]
    if pos != list(range(pos[0], pos[0] + len(pos))):
        raise ValueError(f"{func}(): dims {list(dims)} must be consecutive and in order "
                         f"(positions {pos})")
    return pos[0], pos[-1]


def flatten(x: Array, dims, out_name: str) -> Array:
    """Merge the consecutive dimensions ``dims`` into one named ``out_name``.

    >>> import strided as xp
    >>> x = xp.ones(2, 3, 4, names=["N", "H", "W"])
    >>> y = xp.named.flatten(x, ["H", "W"], "HW")
    >>> y.shape, y.names
    (strided.Size([2, 12]), ('N', 'HW'))
    """
    _check_array(x, "flatten")
    key = _shape_key("flatten", x, dims, out_name)
    hit = _SHAPES.get(key) if key is not None else None
    if hit is None:
        s, e = flatten_dims(x, dims, out_name)
        names = full_names(x)
        new = names[:s] + (out_name,) + names[e + 1:]
        check_names(new, len(new), "flatten")
        hit = (s, e, new)
        if key is not None:
            _remember_shape(key, hit)
    s, e, new = hit
    y = _flatten_impl(x, s, e) if not _tracked(x) else _flatten(x, s, e)
    return _retag(y, x, new)


# ("flatten" or "unflatten", x's names, ndim, the dims or dim, out_name or the sizes) -> the
# checked outcome: flatten's (start, end, result names), unflatten's (dim, sizes, result
# names or None). The checks depend on nothing else, so each runs once per combination (a
# named flatten was 2x the plain one). Keys hold exact str and int only (flatten's list of
# dims as a tuple): hashing and comparing them runs no user code (a str subclass, an int-like
# object, a list of sizes: not cached).
_SHAPES: dict = {}


def _plain_dims(v) -> bool:
    """An exact str or int, or a tuple of them."""
    t = type(v)
    if t is str or t is int:
        return True
    if t is not tuple:
        return False
    for a in v:
        if type(a) is not str and type(a) is not int:
            return False
    return True


def _plain_sizes(v) -> bool:
    """An exact str or int, or a tuple of exact ints and (str, int) tuples."""
    t = type(v)
    if t is str or t is int:
        return True
    if t is not tuple:
        return False
    for a in v:
        if type(a) is not int:
            if type(a) is not tuple or len(a) != 2 or type(a[0]) is not str or type(a[1]) is not int:
                return False
    return True


def _shape_key(op, x, dim, arg):
    if type(dim) is list:
        dim = tuple(dim)
    if type(x) is not Array or not _plain_dims(dim) or not _plain_sizes(arg):
        return None  # (lists of sizes, other types: checked each time)
    e = x._ext
    return (op, None if e is None else e.names, len(x._shape), dim, arg)


def _remember_shape(key, hit) -> None:
    if len(_SHAPES) > 4096:
        _SHAPES.clear()
    _SHAPES[key] = hit


def _retag(y: Array, x: Array, names) -> Array:
    if y is x:
        return renamed(x, names)
    return tag(y, names)


def split_sizes(sizes, func: str = "unflatten"):
    """``sizes`` as (ints, names): ``(("C", 2), ("D", 3))`` names them, plain ints don't."""
    sizes = tuple(sizes)
    if sizes and all(isinstance(s, (tuple, list)) and len(s) == 2 for s in sizes):
        names = tuple(s[0] for s in sizes)
        return tuple(s[1] for s in sizes), names
    if any(isinstance(s, (tuple, list)) for s in sizes):
        raise TypeError(f"{func}(): sizes must be ints or (name, size) pairs; got {sizes!r}")
    return sizes, None


def unflatten(x: Array, dim, sizes) -> Array:
    """Split dimension ``dim`` into ``sizes``; ``(("C", 2), ("D", 3))`` names the new dims.

    >>> import strided as xp
    >>> y = xp.named.unflatten(xp.ones(2, 6, names=["N", "F"]), "F", (("C", 2), ("D", 3)))
    >>> y.shape, y.names
    (strided.Size([2, 2, 3]), ('N', 'C', 'D'))
    """
    _check_array(x, "unflatten")
    key = _shape_key("unflatten", x, dim, sizes)
    hit = _SHAPES.get(key) if key is not None else None
    if hit is not None:
        d, ints, names = hit
        y = _unflatten_impl(x, d, ints) if not _tracked(x) else _unflatten(x, d, ints)
        return y if names is None else _retag(y, x, names)
    ints, new = split_sizes(sizes)
    d = normalize_axis(name_to_axis(x, dim) if type(dim) is str else dim, x.ndim, "unflatten")
    y = _unflatten(x, d, ints)
    if new is None and names_of(x) is None:
        names = None
    else:
        old = full_names(x)
        names = old[:d] + (new if new is not None else (None,) * len(ints)) + old[d + 1:]
        check_names(names, len(names), "unflatten")
    if key is not None:
        _remember_shape(key, (d, ints, names))
    return y if names is None else _retag(y, x, names)
