"""Name rules: how each operation's output names follow from its inputs' names.

``RULES[op]`` is a function of the operation's bound arguments ``p`` (a dict,
defaults applied). It turns dimension names given as axes into positions (in
``p``, so the operation, and autograd after it, see plain ints) and returns
the output names:

- a tuple: the names of the one array returned;
- None: the outputs are unnamed;
- ``Each(names)``: every array of a returned sequence gets ``names``;
- a list: one entry (tuple or None) per array of a returned sequence.

A rule raises DimensionNameError when the names don't fit. The keys are the
elementwise registry's row names, every ``@api`` name of the namespace, and
the few names the Array methods dispatch under (``getitem``, ``setitem``,
``t``, ``real_view``, ``zero_``, ``fill_``, ``copy_``). An operation with no
entry raises an error naming it instead of dropping names silently;
``UNHOOKED`` lists the public functions that never reach dispatch, and why.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from .._core.array import Array
from .._api.elementwise import REGISTRY
from .._core.layout import normalize_axis
from ._core import DimensionNameError, axis_of, full_names, unify_right, unify_same
from ._ops import flatten_dims, split_sizes

__all__ = ["RULES", "Each", "UNHOOKED", "index_names"]

RULES: dict = {}


class Each:
    """Output names for every array of a returned sequence."""

    __slots__ = ("names",)

    def __init__(self, names):
        self.names = names


def rule(*ops):
    def deco(fn):
        for op in ops:
            if op in RULES:
                raise ValueError(f"duplicate name rule for {op}")
            RULES[op] = fn
        return fn
    return deco


def N(a):
    """Full names of an array; None for anything else (a Python scalar)."""
    return full_names(a) if type(a) is Array else None


def _pos(x: Array, a) -> int:
    """Axis ``a`` (int or name) of ``x`` as a position in ``[0, ndim)``."""
    return normalize_axis(axis_of(x, a), x.ndim)


def _axes_param(p: dict, key: str, x: Array):
    """Turn names in ``p[key]`` (None, an axis or a sequence of them) into positions."""
    a = p[key]
    if isinstance(a, (tuple, list)):
        p[key] = tuple(axis_of(x, v) for v in a)
    else:
        p[key] = axis_of(x, a)
    return p[key]


def _positions(x: Array, axes) -> tuple:
    if axes is None:
        return tuple(range(x.ndim))
    if not isinstance(axes, (tuple, list)):
        axes = (axes,)
    return tuple(normalize_axis(a, x.ndim) for a in axes)


def _unify_all(values) -> tuple:
    out = None
    for v in values:
        if type(v) is Array:
            n = full_names(v)
            out = n if out is None else unify_right(out, n)
    return out if out is not None else ()


def _without(names: tuple, drop) -> tuple:
    return tuple(n for i, n in enumerate(names) if i not in drop)


def _contract(func: str, a, b, what: str) -> None:
    if a is not None and b is not None and a != b:
        raise DimensionNameError(f"{func}(): can't contract {what}: dims named {a!r} and {b!r} "
                                 f"differ (contracted dims must have the same name, or None)")


# --- elementwise registry rows ----------------------------------------------------------

def _ew_unary(p):
    return N(p["x"])


def _ew_binary(p):
    n1, n2 = N(p["x1"]), N(p["x2"])
    if n1 is None:
        return n2
    if n2 is None:
        return n1
    return unify_right(n1, n2)


for _row in REGISTRY.values():
    RULES[_row.name] = _ew_binary if _row.nargs == 2 else _ew_unary


@rule("clip")
def _clip(p):
    return _unify_all((p["x"], p["min"], p["max"]))


@rule("where")
def _where(p):
    return _unify_all((p["condition"], p["x1"], p["x2"]))


# --- same names as x (axes may be names) ----------------------------------------------------

@rule("clone", "astype", "to_device", "tril", "triu", "real_view", "t", "linalg.cholesky",
      "linalg.matrix_power", "fft.fft", "fft.ifft", "fft.rfft", "fft.irfft", "fft.hfft",
      "fft.ihfft", "cumulative_sum", "cumulative_prod", "sort", "argsort", "narrow", "roll",
      "flip", "fft.fftn", "fft.ifftn", "fft.rfftn", "fft.irfftn", "fft.fftshift", "fft.ifftshift")
def _same(p):
    x = p["x"]
    for key in ("axis", "axes", "dim"):
        if key in p:
            _axes_param(p, key, x)
    return N(x)


@rule("unfold")
def _unfold(p):
    x = p["x"]
    _axes_param(p, "dim", x)
    return N(x) + (None,)  # the windowed dim keeps its name (it counts windows now)


@rule("diff")
def _diff(p):
    x = p["x"]
    _axes_param(p, "axis", x)
    names = N(x)
    for key in ("prepend", "append"):
        v = p[key]
        if type(v) is Array and v.ndim == x.ndim:
            names = unify_same(names, N(v), "diff", f"x and {key}")
    return names


@rule("take_along_axis")
def _take_along_axis(p):
    x, idx = p["x"], p["indices"]
    _axes_param(p, "axis", x)
    if idx.ndim != x.ndim:
        return N(x)
    return unify_right(N(x), N(idx))


@rule("take")
def _take(p):
    x, idx = p["x"], p["indices"]
    ax = _axes_param(p, "axis", x)
    ax = 0 if ax is None else normalize_axis(ax, x.ndim)
    names = N(x)
    if type(idx) is not Array:  # a Python int (NumPy's take): the axis goes
        return names[:ax] + names[ax + 1:]
    if idx.ndim == 1:
        kept = names[ax] if names[ax] is not None else N(idx)[0]
        return names[:ax] + (kept,) + names[ax + 1:]
    return names[:ax] + N(idx) + names[ax + 1:]


@rule("split", "chunk")
def _pieces(p):
    x = p["x"]
    _axes_param(p, "dim", x)
    if p["axis"] is not None:
        _axes_param(p, "axis", x)
    return Each(N(x))


@rule("unstack")
def _unstack(p):
    x = p["x"]
    ax = _pos(x, _axes_param(p, "axis", x))
    return Each(_without(N(x), (ax,)))


@rule("repeat")
def _repeat(p):
    x = p["x"]
    if p["axis"] is None:
        return None
    _axes_param(p, "axis", x)
    return N(x)


# --- reductions ---------------------------------------------------------------------------------

@rule("sum", "prod", "max", "min", "mean", "var", "std", "all", "any", "count_nonzero",
      "argmax", "argmin", "linalg.vector_norm")
def _reduction(p):
    x = p["x"]
    axis = _axes_param(p, "axis", x)
    names = N(x)
    if p["keepdims"] or not names:
        return names
    return _without(names, _positions(x, axis))


@rule("linalg.matrix_norm")
def _matrix_norm(p):
    names = N(p["x"])
    return names if p["keepdims"] else names[:-2]


@rule("linalg.det", "linalg.matrix_rank", "linalg.trace")
def _batch(p):
    return N(p["x"])[:-2]


@rule("trace")
def _trace(p):
    return ()


@rule("linalg.slogdet")
def _slogdet(p):
    return Each(N(p["x"])[:-2])


# --- shapes and views ---------------------------------------------------------------------------

@rule("reshape", "view", "diag")
def _unnamed(p):
    # Note: reshaping mixes dims, so the result is unnamed (use flatten/unflatten by name).
    return None


@rule("flatten")
def _flatten(p):
    x = p["x"]
    names = N(x)
    if isinstance(p["start_dim"], (list, tuple)):
        # the named form: flatten(dims, out_name)
        out_name = p["end_dim"]
        s, e = flatten_dims(x, p["start_dim"], out_name)
        p["start_dim"], p["end_dim"] = s, e
        return names[:s] + (out_name,) + names[e + 1:]
    if not names:
        return None
    s = _pos(x, _axes_param(p, "start_dim", x))
    e = _pos(x, _axes_param(p, "end_dim", x))
    merged = names[s] if s == e else None
    return names[:s] + (merged,) + names[e + 1:]


@rule("unflatten")
def _unflatten(p):
    x = p["x"]
    d = _pos(x, _axes_param(p, "dim", x))
    ints, new = split_sizes(p["sizes"])
    p["sizes"] = ints
    names = N(x)
    return names[:d] + (new if new is not None else (None,) * len(ints)) + names[d + 1:]


@rule("permute_dims")
def _permute(p):
    x = p["x"]
    axes = tuple(axis_of(x, a) for a in p["axes"])
    p["axes"] = axes
    names = N(x)
    return tuple(names[normalize_axis(a, x.ndim)] for a in axes)


@rule("matrix_transpose")
def _matrix_transpose(p):
    n = N(p["x"])
    return n[:-2] + (n[-1], n[-2])


@rule("linalg.inv", "linalg.pinv")
def _swap_last(p):
    n = N(p["x"])
    return n[:-2] + (n[-1], n[-2])


@rule("moveaxis")
def _moveaxis(p):
    x = p["x"]
    src, dst = p["source"], p["destination"]
    seq = isinstance(src, (tuple, list))
    src = tuple(axis_of(x, a) for a in (src if seq else (src,)))
    p["source"] = src if seq else src[0]
    dst = dst if isinstance(dst, (tuple, list)) else (dst,)
    nd = x.ndim
    src = tuple(normalize_axis(a, nd) for a in src)
    dst = tuple(normalize_axis(a, nd) for a in dst)
    order = [n for n in range(nd) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    names = N(x)
    return tuple(names[i] for i in order)


@rule("expand_dims")
def _expand_dims(p):
    # Note: axis is a position in the result, where no name exists yet: ints only.
    x, axis = p["x"], p["axis"]
    names = list(N(x))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    nd = x.ndim + len(axes)
    for a in sorted(normalize_axis(a, nd) for a in axes):
        names.insert(a, None)
    return tuple(names)


@rule("squeeze")
def _squeeze(p):
    x = p["x"]
    axis = p["axis"]
    if axis is None:
        drop = tuple(i for i, n in enumerate(x._shape) if n == 1)
    else:
        drop = _positions(x, _axes_param(p, "axis", x))
    return _without(N(x), drop)


@rule("diagonal")
def _diagonal(p):
    x = p["x"]
    a1 = _pos(x, _axes_param(p, "axis1", x))
    a2 = _pos(x, _axes_param(p, "axis2", x))
    return _without(N(x), (a1, a2)) + (None,)


@rule("linalg.diagonal")
def _linalg_diagonal(p):
    return N(p["x"])[:-2] + (None,)


@rule("broadcast_to")
def _broadcast_to(p):
    x = p["x"]
    k = len(tuple(p["shape"])) - x.ndim
    if k < 0:
        raise ValueError("broadcast_to(): the target has fewer dimensions")
    return (None,) * k + N(x)


@rule("broadcast_arrays")
def _broadcast_arrays(p):
    arrays = p["arrays"]
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = arrays[0]
    return Each(_unify_all(arrays))


@rule("tile")
def _tile(p):
    x = p["x"]
    reps = p["repetitions"]
    k = 1 if isinstance(reps, (builtins.int, np.integer)) else len(tuple(reps))
    return (None,) * max(k - x.ndim, 0) + N(x)


def _same_names(arrays, func):
    """The names shared by every named array of ``arrays`` (None when none is named)."""
    names = None
    for a in arrays:
        n = N(a)
        if n is not None:
            names = n if names is None else unify_same(names, n, func, "the arrays' names")
    return names


@rule("concat")
def _concat(p):
    arrays = p["arrays"]
    names = _same_names(arrays, "concat")
    if p["axis"] is None:
        return None
    if type(p["axis"]) is str:
        if p["axis"] not in names:
            axis_of(next(a for a in arrays if type(a) is Array), p["axis"])  # raises: not found
        p["axis"] = names.index(p["axis"])
    return names


@rule("stack")
def _stack(p):
    arrays = p["arrays"]
    names = _same_names(arrays, "stack")
    names = list(names)
    # Note: axis is a position in the result, where no name exists yet: ints only.
    names.insert(normalize_axis(p["axis"], len(names) + 1), None)
    return tuple(names)


@rule("meshgrid")
def _meshgrid(p):
    arrays = p["arrays"]
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = arrays[0]
    names = [N(a)[0] if type(a) is Array and a.ndim == 1 else None for a in arrays]
    if p["indexing"] == "xy" and len(names) >= 2:
        names[0], names[1] = names[1], names[0]
    return Each(tuple(names))


# --- indexing ----------------------------------------------------------------------------------

def _index_kind(k):
    """(kind, dims consumed, dims of the advanced index) of one entry of an index key."""
    t = type(k)
    if k is None:
        return "new", 0, 0
    if k is Ellipsis:
        return "ell", 0, 0
    if t is slice:
        return "slice", 1, 0
    if t is builtins.bool or t is np.bool_:
        return "adv", 0, 1
    if t is Array:
        kind, nd = k._dtype.kind, k.ndim
    elif t is list or t is np.ndarray:
        a = np.asarray(k)
        kind, nd = ("i" if a.size == 0 and t is list else a.dtype.kind), a.ndim
    else:
        return "int", 1, 0
    if kind == "b":
        return "adv", nd, 1
    if nd == 0:
        return "int", 1, 0  # a 0-d integer array indexes like an int
    return "adv", 1, nd


def index_names(names: tuple, key) -> tuple:
    """The names of ``x[key]`` for ``x`` named ``names`` (NumPy's indexing rules).

    Sliced dims keep their names, integer-indexed ones go, ``None`` adds an unnamed
    dim. Advanced (array) indices give unnamed dims, except that one 1-D integer
    array or 1-D mask (with no other array index) keeps the name of the dim it indexes.
    """
    if type(key) is not tuple:
        key = (key,)
    entries = [_index_kind(k) for k in key]
    adv = any(e[0] == "adv" for e in entries)
    if adv:
        entries = [("adv", 1, 0) if e[0] == "int" else e for e in entries]
    n_ell = len(names) - builtins.sum(e[1] for e in entries)
    out: list = []
    d = 0
    insert_at = None
    broken = False
    basic_since = False
    adv_entries = []
    for kind, c, a in entries:
        if kind == "adv":
            if insert_at is None:
                insert_at = len(out)
            elif basic_since:
                broken = True
            adv_entries.append((d, c, a))
            d += c
            continue
        if insert_at is not None:
            basic_since = True
        if kind == "new":
            out.append(None)
        elif kind == "ell":
            out.extend(names[d:d + n_ell])
            d += n_ell
        elif kind == "slice":
            out.append(names[d])
            d += 1
        else:  # an int without advanced indices
            d += 1
    out.extend(names[d:])
    if not adv:
        return tuple(out)
    arrays = [e for e in adv_entries if e[2]]  # the others are ints: they add no dims
    if len(arrays) == 1 and arrays[0][1:] == (1, 1):
        adv_names = [names[arrays[0][0]]]
    else:
        adv_names = [None] * max(a for _, _, a in adv_entries)
    if broken:
        return tuple(adv_names + out)
    return tuple(out[:insert_at] + adv_names + out[insert_at:])


@rule("getitem")
def _getitem(p):
    return index_names(N(p["self"]), p["key"])


@rule("setitem")
def _setitem(p):
    value = p["value"]
    if type(value) is Array:
        target = index_names(N(p["self"]), p["key"])
        unify_right(target, N(value))
    return None


@rule("copy_")
def _copy_(p):
    src = p["src"]
    if type(src) is Array:
        unify_right(N(p["self"]), N(src))
    return None


@rule("zero_", "fill_")
def _inplace_fill(p):
    return None


# --- searching and sets --------------------------------------------------------------------------

@rule("nonzero", "unique_values", "unique_counts")
def _flat(p):
    return None


@rule("unique_inverse")
def _unique_inverse(p):
    return [None, N(p["x"])]


@rule("unique_all")
def _unique_all(p):
    return [None, None, N(p["x"]), None]


@rule("searchsorted")
def _searchsorted(p):
    x2 = p["x2"]
    return N(x2) if type(x2) is Array else ()


@rule("isin")
def _isin(p):
    x1 = p["x1"]
    return N(x1) if type(x1) is Array else ()


# --- linear algebra ------------------------------------------------------------------------------

@rule("matmul", "mm", "bmm", "dot")
def _matmul(p):
    n1, n2 = N(p["x1"]), N(p["x2"])
    if not n1 or not n2:
        raise ValueError("matmul(): 0-d operands")
    f = "matmul"
    if len(n1) == 1 and len(n2) == 1:
        _contract(f, n1[0], n2[0], "the two vectors")
        return ()
    if len(n1) == 1:
        _contract(f, n1[0], n2[-2], "x1 (a vector) with the rows of x2")
        return n2[:-2] + (n2[-1],)
    if len(n2) == 1:
        _contract(f, n1[-1], n2[0], "the columns of x1 with x2 (a vector)")
        return n1[:-1]
    _contract(f, n1[-1], n2[-2], "the columns of x1 with the rows of x2")
    return unify_right(n1[:-2], n2[:-2]) + (n1[-2], n2[-1])


@rule("outer")
def _outer(p):
    return N(p["x1"]) + N(p["x2"])


@rule("tensordot")
def _tensordot(p):
    x1, x2, axes = p["x1"], p["x2"], p["axes"]
    n1, n2 = N(x1), N(x2)
    if isinstance(axes, (tuple, list)):
        a1, a2 = axes
        a1 = tuple(axis_of(x1, a) for a in (a1 if isinstance(a1, (tuple, list)) else (a1,)))
        a2 = tuple(axis_of(x2, a) for a in (a2 if isinstance(a2, (tuple, list)) else (a2,)))
        p["axes"] = (a1, a2)
        a1 = tuple(normalize_axis(a, x1.ndim) for a in a1)
        a2 = tuple(normalize_axis(a, x2.ndim) for a in a2)
    else:
        k = operator.index(axes)
        a1, a2 = tuple(range(x1.ndim - k, x1.ndim)), tuple(range(k))
    for i, j in zip(a1, a2):
        _contract("tensordot", n1[i], n2[j], f"axis {i} of x1 with axis {j} of x2")
    return _without(n1, a1) + _without(n2, a2)


def _vector_axis(p) -> tuple:
    """(broadcast names, axis as a negative position) of vecdot/cross; a name becomes that position."""
    n = unify_right(N(p["x1"]), N(p["x2"]))
    axis = p["axis"]
    if type(axis) is str:
        if axis not in n:
            axis_of(p["x1"], axis)  # raises: not found
        p["axis"] = n.index(axis) - len(n)
    return n, p["axis"]


@rule("vecdot")
def _vecdot(p):
    n, axis = _vector_axis(p)
    return _without(n, (normalize_axis(axis, len(n)),))


@rule("linalg.cross")
def _cross(p):
    return _vector_axis(p)[0]


@rule("einsum")
def _einsum(p):
    subs = p["subscripts"].replace(" ", "")
    ops = p["operands"]
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = tuple(ops[0])
    ins, arrow, outs = subs.partition("->")
    terms = ins.split(",")
    if len(terms) != len(ops):
        raise ValueError("einsum(): operand count")
    letters: dict = {}
    counts: dict = {}
    ell: tuple = ()
    for term, x in zip(terms, ops):
        names = N(x)
        if "..." in term:
            left, right = term.split("...")
            k = len(names) - len(left) - len(right)
            ell = unify_right(ell, names[len(left):len(left) + k])
            labels = list(left) + [None] * k + list(right)
        else:
            labels = list(term)
        if len(labels) != len(names):
            raise ValueError("einsum(): subscripts don't match the operand")
        for c, n in zip(labels, names):
            if c is None:
                continue
            counts[c] = counts.get(c, 0) + 1
            prev = letters.get(c)
            if prev is not None and n is not None and prev != n:
                raise DimensionNameError(f"einsum(): subscript {c!r} labels dims named {prev!r} and "
                                         f"{n!r}; dims joined or contracted by one subscript must "
                                         f"have the same name (or None)")
            if prev is None:
                letters[c] = n
    if not arrow:
        outs = ("..." if "..." in ins else "") + "".join(sorted(c for c, k in counts.items() if k == 1))
    out: list = []
    left, dots, right = outs.partition("...")
    out.extend(letters.get(c) for c in left)
    if dots:
        out.extend(ell)
    out.extend(letters.get(c) for c in right)
    return tuple(out)


@rule("linalg.solve")
def _solve(p):
    n1, n2 = N(p["x1"]), N(p["x2"])
    if len(n1) < 2 or not n2:
        raise ValueError("linalg.solve(): shapes")
    if len(n2) == 1:
        _contract("linalg.solve", n1[-2], n2[0], "the rows of x1 with x2 (a vector)")
        return n1[:-2] + (n1[-1],)
    _contract("linalg.solve", n1[-2], n2[-2], "the rows of x1 with the rows of x2")
    return unify_right(n1[:-2], n2[:-2]) + (n1[-1], n2[-1])


@rule("linalg.eigh", "linalg.eig")
def _eig(p):
    n = N(p["x"])
    return [n[:-2] + (None,), n[:-2] + (n[-2], None)]


@rule("linalg.eigvals", "linalg.eigvalsh", "linalg.svdvals")
def _eigvals(p):
    return N(p["x"])[:-2] + (None,)


@rule("linalg.svd")
def _svd(p):
    n = N(p["x"])
    b = n[:-2]
    return [b + (n[-2], None), b + (None,), b + (None, n[-1])]


@rule("linalg.qr")
def _qr(p):
    n = N(p["x"])
    b = n[:-2]
    return [b + (n[-2], None), b + (None, n[-1])]


@rule("fft.fftfreq", "fft.rfftfreq")
def _fresh(p):
    return None


# --- public functions that never reach dispatch ---------------------------------------------------

_FRESH = "creates a new array from Python values or a shape: unnamed unless names= is given"
_CONVERTS = ("an array argument keeps its names (returned as is, or copied or cast through "
             "dispatch); other data gives an unnamed array unless names= is given")
_DELEGATES = "calls a dispatched function (its rule applies): "
_NO_ARRAY = "returns no array"

UNHOOKED = {
    **{f: _FRESH for f in ("arange", "empty", "eye", "full", "linspace", "ones", "zeros", "rand",
                           "randn", "randint", "randperm", "normal", "randint_like")},
    **{f: _CONVERTS for f in ("tensor", "asarray", "as_tensor")},
    **{f: "keeps x's names (names= overrides)" for f in ("zeros_like", "ones_like", "empty_like",
                                                         "full_like", "rand_like", "randn_like")},
    "from_numpy": "shares a NumPy array's memory: NumPy has no names",
    "from_dlpack": "imports through DLPack, which carries no names",
    "bernoulli": "samples a new array: unnamed",
    "multinomial": "samples a new array of indices: unnamed",
    "load": "names are restored from the file (through set_names)",
    "cat": _DELEGATES + "concat",
    "movedim": _DELEGATES + "moveaxis",
    "swapdims": _DELEGATES + "permute_dims",
    "transpose": _DELEGATES + "permute_dims (Array.transpose)",
    "t": _DELEGATES + "permute_dims or t (Array.t)",
    "unsqueeze": _DELEGATES + "expand_dims",
    **{f: _NO_ARRAY for f in ("broadcast_shapes", "can_cast", "finfo", "iinfo", "isdtype",
                              "result_type", "get_default_device", "get_default_dtype",
                              "set_default_device", "set_default_dtype", "get_rng_state",
                              "set_rng_state", "manual_seed", "seed", "initial_seed",
                              "default_generator", "save", "is_grad_enabled",
                              # the CPU buffer pool and intra-op threads
                              "empty_cache", "memory_stats", "set_cache_limit",
                              "get_cache_limit", "set_pool_threshold", "get_pool_threshold",
                              "set_num_threads", "get_num_threads", "set_thread_threshold",
                              "get_thread_threshold")},
}
