"""PyTorch's function semantics over strided's core: the functions of ``strided.torch`` whose
meaning differs from the standard namespace's of the same name, or that the standard lacks.

DESIGN (fourth round, "Two namespaces, one core"): nothing here computes. Each function is
one row of ``SIGNATURES``: PyTorch's documented signature (as ``torch.<name>``'s
docstring spells it, a schema) and the core call it becomes. The binding stage's
``Binder`` (_core/call/bind.py) binds the declared signature: positional dims
(``torch.sum(x, 0)``, ``torch.mean(x, (0, 1), True)``), ``dim``/``keepdim``, PyTorch's
defaults (``std``/``var`` unbiased), and calls the core (``strided.sum(x, axis=0)``),
so gradients and dimension names come from the core's rules.

Results with values and indices are PyTorch's named tuples (``return_types.max`` with
``values`` and ``indices``, indexed and unpacked as a tuple). ``__all__`` lists every name:
``strided.torch`` re-exports strided's namespace and then these (so these win).
"""

from __future__ import annotations

import builtins
import inspect
import sys
import types
from collections import namedtuple

from .._core.array import Array
from .._core.call.bind import Binder, torch_axis, torch_keepdim
from .._api import elementwise as _elementwise
from .._core import dtypes as _dtypes, layout as _layout
from .._core.dispatch import quiet
from ._checks import floating_dtype, one_element_1d, tensor as _input
from ._methods import check_integer_divisor, sort_ as _sort_pair, torch_sign as sign  # noqa: F401
from ._methods import NO_DECIMALS as _NO_DECIMALS, cast_first as _cast_first, check_round_decimals, \
    promoted_float as _promoted_float, torch_function as _torch_function
from ._memory_format import flipped, like_input, quantile_layout, row_major

_P = inspect.Parameter


def _ns():
    return sys.modules["strided"]


# --- PyTorch's return types ----------------------------------------------------------------

from ._return_types import _return_type, return_types  # noqa: E402,F401


# --- the declared signatures -------------------------------------------------------------

def _signature(spec: str) -> inspect.Signature:
    """``"input, dim=None, keepdim=False, *, dtype=None"`` as an ``inspect.Signature``
    (defaults are Python literals; a name without ``=`` is required)."""
    import ast  # (literal defaults only: ast.literal_eval, no code is compiled)

    params, kind = [], _P.POSITIONAL_OR_KEYWORD
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part == "*":
            kind = _P.KEYWORD_ONLY
            continue
        name, eq, default = part.partition("=")
        params.append(_P(name.strip(), kind, default=ast.literal_eval(default.strip()) if eq else _P.empty))
    return inspect.Signature(params)


class _TorchBinder(Binder):
    """A ``Binder`` of a declared PyTorch signature: ``bind_torch(args, kwargs)`` is the
    arguments by PyTorch's parameter names, defaults filled (TypeError as Python's for a
    call that doesn't fit)."""

    __slots__ = ("pos", "kwonly", "defaults", "sig")

    def __init__(self, name: str, sig: inspect.Signature):
        ps = list(sig.parameters.values())
        self.sig = sig
        self.pos = tuple(p.name for p in ps if p.kind is _P.POSITIONAL_OR_KEYWORD)
        self.kwonly = frozenset(p.name for p in ps if p.kind is _P.KEYWORD_ONLY)
        self.defaults = {p.name: p.default for p in ps if p.default is not _P.empty}
        self.name = name
        self.keywords = ()
        self.renamed = {}
        self.npos = len(self.pos)
        self.params = frozenset(sig.parameters)
        self.refuse = None
        self.axis_kw = None
        self.out = False
        self.native = False
        self.numpy = None

    def bind_torch(self, args: tuple, kwargs: dict) -> dict:
        pos = self.pos
        if len(args) > len(pos):
            raise TypeError(f"{self.name}() takes at most {len(pos)} positional arguments "
                            f"({', '.join(pos)}); got {len(args)}")
        p = dict(zip(pos, args))
        for k, v in kwargs.items():
            if k in p:
                raise TypeError(f"{self.name}() got multiple values for argument {k!r}")
            if k not in self.params:
                raise TypeError(f"{self.name}() got an unexpected keyword argument {k!r}")
            p[k] = v
        for k, v in self.defaults.items():
            if k not in p:
                p[k] = v
        for k in self.params:
            if k not in p:
                raise TypeError(f"{self.name}() missing required argument {k!r}")
        kd = p.get("keepdim", False)
        if type(kd) is not bool:
            torch_keepdim(self.name, kd)
        return p


def _axis(dim):
    """PyTorch's dim (an int, a tuple or list of ints, or None) as the standard's axis."""
    return tuple(dim) if type(dim) is list else dim


# Each row: name -> (PyTorch's signature, the core call of the bound arguments ``p``).
SIGNATURES: dict = {}


def _row(name: str, spec: str):
    def deco(core):
        SIGNATURES[name] = (spec, core)
        return core
    return deco


# The reductions' rows whose core is ``strided.<core name>(input, axis=dim, keepdims=keepdim)``:
# name -> core name. Their function takes ``torch.sum(x, 0)``, ``torch.sum(x, dim=0,
# keepdim=True)`` as its own parameters and makes that core call at once (``_bound``).
DIRECT: dict = {}


def _reduction(name: str, core_name: str, spec: str, dtype: bool = False):
    from ._methods import _INT64_RESULT, _FLOAT_ONLY, torch_reduction_dtype

    ruled = name in _INT64_RESULT or name in _FLOAT_ONLY

    def core(p):
        kw = {"axis": torch_axis(name, p["dim"]), "keepdims": p["keepdim"]}
        x = p["input"]
        given = p.get("dtype") if dtype else None
        if ruled and type(x) is Array and (x._dtype.kind in "biu" or (given is not None and name == "mean")):
            given = torch_reduction_dtype(name, x, given)
        if given is not None:
            kw["dtype"] = given
        r = getattr(_ns(), core_name)(x, **kw)
        if name in ("all", "any") and type(x) is Array and x._dtype is _dtypes.uint8:
            r = r.to(_dtypes.uint8)  # (PyTorch's all/any of uint8: uint8)
        return _write(name, r, p.get("out"))
    SIGNATURES[name] = (spec, core)
    DIRECT[name] = core_name


def _write(name, r, out):
    if out is None:
        return r
    from .._core.dispatch import _write_result
    return _write_result(name, out, r)


for _n in ("sum", "prod", "mean", "nansum", "nanmean"):
    _reduction(_n, _n, "input, dim=None, keepdim=False, *, dtype=None, out=None", dtype=True)
for _n, _core in (("all", "all"), ("any", "any"), ("amax", "max"), ("amin", "min")):
    _reduction(_n, _core, "input, dim=None, keepdim=False, *, out=None")
for _n in ("argmax", "argmin"):
    _reduction(_n, _n, "input, dim=None, keepdim=False")


@_row("logsumexp", "input, dim, keepdim=False, *, out=None")
def _logsumexp(p):
    return _write("logsumexp", _ns().logsumexp(p["input"], torch_axis("logsumexp", p["dim"]), p["keepdim"]),
                  p["out"])


@_row("count_nonzero", "input, dim=None")
def _count_nonzero(p):
    return _ns().count_nonzero(p["input"], axis=torch_axis("count_nonzero", p["dim"]))


def _std_var(name):
    # torch.std(input, dim=None, *, correction=1, keepdim=False) and its legacy forms
    # std(input, dim, unbiased, keepdim=False), std(input, unbiased): PyTorch's method
    # (Array.std) already takes all of them with PyTorch's defaults; the function is the
    # method's body (torch/_methods.py, ``_torch_reduction``), its input checked first.
    from ._methods import TORCH_SIGNATURES, _torch_reduction

    call = _torch_reduction(name, TORCH_SIGNATURES[name][0], TORCH_SIGNATURES[name][1], function=True)
    call.__name__ = call.__qualname__ = name
    call.__module__ = __name__  # (pickled by reference, as this module's)
    call.__doc__ = (f"PyTorch's ``torch.{name}``: unbiased (``correction=1``) by default; "
                    f"``unbiased=`` and ``correction=`` as in PyTorch.")
    call.__signature__ = _signature("input, dim=None, *, correction=1, keepdim=False")
    # (quiet, as the method is: strided.__init__'s quiet_entry_points; compiled, no frame)
    return quiet(call)


std = _std_var("std")
var = _std_var("var")


def _values_indices(name, vname, iname):
    rt = getattr(return_types, name)

    def core(x, dim, keepdim):
        # (the values gathered at the indices: PyTorch's gradient flows to those elements;
        # strided/torch/_methods.py, _values_indices)
        from ._methods import _values_indices as pair
        return rt(*pair(x, vname, iname, {"axis": dim, "keepdims": keepdim}))
    return core


_max_pair = _values_indices("max", "max", "argmax")
_min_pair = _values_indices("min", "min", "argmin")


def _extremum(name, pair, elementwise):
    binder = _TorchBinder(name, _signature("input, dim=None, keepdim=False, *, out=None"))

    def call(input, *args, **kwargs):
        """torch.max(input) -> the maximum; torch.max(input, dim, keepdim=False) ->
        (values, indices); torch.max(input, other) -> maximum(input, other)."""
        if args and type(args[0]) is Array or "other" in kwargs:
            other = args[0] if args else kwargs.pop("other")
            return getattr(_ns(), elementwise)(input, other, **kwargs)
        p = binder.bind_torch((input,) + args, kwargs)
        if p["dim"] is None:
            if p["keepdim"]:
                raise TypeError(f"{name}(): keepdim needs a dim")
            from ._methods import _all_extremum  # (PyTorch's gradient: shared by the ties, the NaNs)
            return _write(name, _all_extremum(p["input"], name, {}), p["out"])
        dim = p["dim"]
        if type(dim) is not int:
            dim = torch_axis(name, dim)  # (an empty dim: PyTorch's refusal)
            if type(dim) is tuple:
                raise TypeError(f"{name}(): dim must be an int (PyTorch's {name}(input, dim) "
                                f"reduces one dimension; amax/amin take several); got {dim}")
        return _write(name, pair(p["input"], dim, p["keepdim"]), p["out"])
    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"PyTorch's ``torch.{name}``: of all elements; with a ``dim``, "
                    f"``return_types.{name}(values, indices)``; with another array, "
                    f"``{elementwise}``.")
    call.__signature__ = binder.sig
    return call


max = _extremum("max", _max_pair, "maximum")
min = _extremum("min", _min_pair, "minimum")


@_row("aminmax", "input, *, dim=None, keepdim=False, out=None")
def _aminmax(p):
    ns = _ns()
    kw = {"axis": p["dim"], "keepdims": p["keepdim"]}
    return _write("aminmax", return_types.aminmax(ns.min(p["input"], **kw), ns.max(p["input"], **kw)), p["out"])


@_row("sort", "input, dim=-1, descending=False, *, stable=False, out=None")
def _sort(p):
    # (the method's values and indices, layout included)
    return _write("sort", return_types.sort(*_sort_pair(p["input"], p["dim"], p["descending"])), p["out"])


@_row("argsort", "input, dim=-1, descending=False, *, stable=False")
def _argsort(p):
    x = p["input"]  # (laid out as PyTorch's, empty_like(input))
    return like_input(_ns().argsort(x, axis=p["dim"], descending=p["descending"], stable=True), x)


@_row("topk", "input, k, dim=-1, largest=True, sorted=True, *, out=None")
def _topk(p):
    v, i = _ns().topk(p["input"], p["k"], p["dim"], p["largest"], p["sorted"])
    return _write("topk", return_types.topk(v, i), p["out"])


@_row("kthvalue", "input, k, dim=-1, keepdim=False, *, out=None")
def _kthvalue(p):
    x, k, d = p["input"], p["k"], p["dim"]
    ns = _ns()
    n = x.shape[d] if x.ndim else 1
    if not 1 <= k <= n:
        raise IndexError(f"kthvalue(): k={k} is out of range for a dimension of size {n}")
    if not x.ndim:
        return return_types.kthvalue(x, ns.zeros((), dtype=ns.int64, device=x.device))
    idx = row_major(ns.argsort(x, axis=d, stable=True).narrow(d, k - 1, 1))
    vals = ns.take_along_axis(x, idx, axis=d)
    if not p["keepdim"]:
        vals, idx = ns.squeeze(vals, axis=d), ns.squeeze(idx, axis=d)
    return _write("kthvalue", return_types.kthvalue(vals, idx), p["out"])


def _median(p, nan):
    x, d = p["input"], p["dim"]
    if d is None:
        if nan:
            raise TypeError("nanmedian(): only with a dim in strided.torch")
        return x.median()
    v, i = x.median(dim=d, keepdim=p["keepdim"])
    return _write("median", return_types.median(v, i), p["out"])


SIGNATURES["median"] = ("input, dim=None, keepdim=False, *, out=None", lambda p: _median(p, False))


@_row("mode", "input, dim=-1, keepdim=False, *, out=None")
def _mode(p):
    # (the tie rule and NaN: the method's, strided/torch/_composites.py)
    if type(p["input"]) is not Array:
        raise TypeError(f"mode(): input must be a strided array; got {type(p['input']).__name__}")
    v, i = p["input"].mode(p["dim"], p["keepdim"])
    return _write("mode", return_types.mode(v, i), p["out"])


@_row("cat", "tensors, dim=0, *, out=None")
def _cat(p):
    for i, t in enumerate(p["tensors"]):
        if type(t) is Array and not t.shape:
            raise _layout.ShapeError(f"cat(): zero-dimensional tensor (at position {i}) cannot be concatenated")
    ts = list(p["tensors"])
    # (PyTorch's legacy rule: a 1-d tensor without elements, torch.tensor([]), is skipped
    # beside tensors of other shapes, yet its dtype takes part in the result's)
    keep = [t for t in ts if not (type(t) is Array and t.shape == (0,))]
    if keep and len(keep) < len(ts) and builtins.all(type(t) is Array for t in ts):
        ns = _ns()
        dt = ns.result_type(*ts)
        keep = [t if t.dtype == dt else ns.astype(t, dt) for t in keep]
        _layout.normalize_axis(p["dim"], keep[0].ndim, "cat")  # (PyTorch's IndexError, also for one)
        return _write("cat", keep[0].clone() if len(keep) == 1 else ns.concat(keep, axis=p["dim"]), p["out"])
    return _write("cat", _ns().concat(ts, axis=p["dim"]), p["out"])


SIGNATURES["concat"] = SIGNATURES["concatenate"] = SIGNATURES["cat"]


@_row("stack", "tensors, dim=0, *, out=None")
def _stack(p):
    return _write("stack", _ns().stack(list(p["tensors"]), axis=p["dim"]), p["out"])


# --- names the standard's namespace gives another meaning (docs/torch-differences.md): here
# PyTorch's, the Tensor method's body --------------------------------------------------------

@_row("nonzero", "input, *, out=None, as_tuple=False")
def _nonzero(p):
    x = _input("nonzero", p["input"])
    if p["as_tuple"] and p["out"] is not None:
        raise TypeError("nonzero(): out= can't be given with as_tuple=True")
    return _write("nonzero", x.nonzero(as_tuple=p["as_tuple"]), p["out"])


@_row("diagonal", "input, offset=0, dim1=0, dim2=1")
def _diagonal(p):
    return _input("diagonal", p["input"]).diagonal(p["offset"], p["dim1"], p["dim2"])


@_row("tril", "input, diagonal=0, *, out=None")
def _tril(p):
    return _write("tril", _input("tril", p["input"]).tril(p["diagonal"]), p["out"])


@_row("triu", "input, diagonal=0, *, out=None")
def _triu(p):
    return _write("triu", _input("triu", p["input"]).triu(p["diagonal"]), p["out"])


@_row("take", "input, index, *, out=None")
def _take(p):
    return _write("take", _input("take", p["input"]).take(p["index"]), p["out"])


@_row("tensordot", "a, b, dims=2, out=None")
def _tensordot(p):
    a, b, dims = _input("tensordot", p["a"]), p["b"], p["dims"]
    if type(dims) is Array:  # (PyTorch takes the dims as a tensor too: an int, or 2 rows)
        dims = dims.tolist()
    if type(dims) is not int:
        dims = tuple(tuple(d) if isinstance(d, (list, tuple)) else (d,) for d in dims)
    if type(b) is Array:
        a, b = _contracted_ones(a, b, dims)
    return _write("tensordot", _ns().tensordot(a, b, axes=dims), p["out"])


def _contracted_ones(a, b, dims):
    """``(a, b)`` with each contracted dimension of size n paired with one of size 1 summed to 1
    (PyTorch's tensordot sums it: ``(1, 1, 1)`` with ``(2, 1, 2)`` over ``([0, 1], [2, 0])``;
    the standard's refuses), and a ShapeError (PyTorch's RuntimeError, the standard's
    ValueError) for other sizes that differ."""
    if type(dims) is int:
        if not 0 <= dims <= builtins.min(a.ndim, b.ndim):
            return a, b  # (the core's error)
        pairs = zip(range(a.ndim - dims, a.ndim), range(dims))
    elif len(dims) == 2 and len(dims[0]) == len(dims[1]):
        try:
            pairs = [(_layout.normalize_axis(i, a.ndim, "tensordot"), _layout.normalize_axis(j, b.ndim, "tensordot"))
                     for i, j in zip(*dims)]
        except (IndexError, TypeError):
            return a, b  # (the core's error)
    else:
        return a, b
    ns = _ns()
    for i, j in pairs:
        m, n = a.shape[i], b.shape[j]
        if m == n:
            continue
        if m != 1 and n != 1:
            raise _layout.ShapeError(f"tensordot(): contracted dimensions need to match, but first has size {m} "
                               f"in dim {i} and second has size {n} in dim {j}")
        if m == 1:
            b = ns.sum(b, axis=j, keepdims=True, dtype=b.dtype)
        else:
            a = ns.sum(a, axis=i, keepdims=True, dtype=a.dtype)
    return a, b


def where(condition, input=None, other=None, *, out=None):
    """PyTorch's ``torch.where``: ``where(condition, input, other)`` chooses elementwise (either
    of ``input`` and ``other`` may be a Python scalar; two scalars give PyTorch's dtype for
    them); ``where(condition)`` is ``condition.nonzero(as_tuple=True)``.

    >>> import strided.torch as torch
    >>> torch.where(torch.tensor([True, False]), 1.0, 0.0)
    tensor([1., 0.])
    """
    ns = _ns()
    if out is None and (type(input) is Array or type(other) is Array):
        return ns.where(condition, input, other)  # (the standard's where: the same meaning here)
    if input is None and other is None:
        if out is not None:
            raise TypeError("where(condition): out= can't be given without input and other")
        return _input("where", condition).nonzero(as_tuple=True)
    if input is None or other is None:
        raise TypeError("where(): give both input and other, or neither")
    if type(input) is not Array and type(other) is not Array:
        # two Python scalars: PyTorch's result_type of the two (float32 for floats, int64 for
        # ints, the default float for an int and a float)
        input = ns.asarray(input, dtype=ns.result_type(ns.asarray(input), other) if type(input) is not type(other)
                           else None, device=condition.device if type(condition) is Array else None)
    return _write("where", ns.where(condition, input, other), out)


def round(input, *, decimals=_NO_DECIMALS, out=None):
    """PyTorch's ``torch.round``: half to even, to ``decimals`` decimal places (the standard's
    ``strided.round`` takes no ``decimals``).

    >>> import strided.torch as torch
    >>> torch.round(torch.tensor([0.125, 2.5]), decimals=2), torch.round(torch.tensor([2.5]))
    (tensor([0.1200, 2.5000]), tensor([2.]))
    """
    check_round_decimals(input, decimals)  # (an integer input with decimals given: PyTorch's error)
    if decimals == 0:
        return _ns().round(input) if out is None else _ns().round(input, out=out)
    return _write("round", _input("round", input).round(decimals=decimals), out)


@_row("flip", "input, dims")
def _flip(p):
    return flipped(p["input"], p["dims"])


@_row("roll", "input, shifts, dims=None")
def _roll(p):
    return _ns().roll(p["input"], _axis(p["shifts"]), axis=_axis(p["dims"]))


@_row("squeeze", "input, dim=None")
def _squeeze(p):
    return p["input"].squeeze() if p["dim"] is None else p["input"].squeeze(p["dim"])


@_row("diff", "input, n=1, dim=-1, prepend=None, append=None")
def _diff(p):
    return _ns().diff(p["input"], n=p["n"], axis=p["dim"], prepend=p["prepend"], append=p["append"])


@_row("quantile", "input, q, dim=None, keepdim=False, *, interpolation='linear', out=None")
def _quantile(p):
    r = _ns().quantile(p["input"], p["q"], axis=p["dim"], keepdims=p["keepdim"],
                       method=p["interpolation"])
    r = quantile_layout(r, type(p["q"]) is Array and p["q"].ndim == 1)
    return _write("quantile", r, p["out"])


_NO = object()  # (not given)


def _bound(name: str, spec: str, core):
    binder = _TorchBinder(name, _signature(spec))

    def call(*args, **kwargs):
        return core(binder.bind_torch(args, kwargs))

    if name in DIRECT:
        # A reduction: ``input``, ``dim``, ``keepdim`` bound by Python itself (its TypeError
        # for a dim given twice is the binder's text), and the core call made at once: one
        # frame in front of the core's definition (issue 38, round 8: was seven). Anything
        # else given (dtype=, out=, an extra positional, an unknown keyword, no input) goes
        # to the binder as it came: its checks, errors and defaults.
        f = getattr(_ns(), DIRECT[name])
        from ._methods import _INT64_RESULT, _FLOAT_ONLY, _UINT8_KEPT
        # (an input of these dtype kinds goes to the core: PyTorch's dtype rules)
        ruled = "biu" if name in _INT64_RESULT or name in _FLOAT_ONLY else "u" if name in _UINT8_KEPT else ""

        def call(input=_NO, dim=_NO, keepdim=_NO, *rest, **kw):
            if rest or kw or input is _NO or (ruled and type(input) is Array and input._dtype.kind in ruled):
                if rest:
                    return core(binder.bind_torch((input, dim, keepdim) + rest, kw))
                given = {k: v for k, v in (("input", input), ("dim", dim), ("keepdim", keepdim)) if v is not _NO}
                return core(binder.bind_torch((), {**given, **kw}))
            if dim is _NO:
                dim = None
            elif type(dim) is list or type(dim) is tuple:  # (torch_axis's rule, inlined)
                dim = tuple(dim) if dim else torch_axis(name, ())
            if keepdim is _NO:
                keepdim = False
            elif type(keepdim) is not bool:
                torch_keepdim(name, keepdim)
            return f(input, axis=dim, keepdims=keepdim)
    call.__name__ = call.__qualname__ = name
    call.__module__ = "strided.torch"
    call.__signature__ = binder.sig
    call.__doc__ = f"PyTorch's ``torch.{name}({spec})``, over strided's core."
    call._binder = binder
    return call


for _n, (_spec, _core) in list(SIGNATURES.items()):
    globals()[_n] = _bound(_n, _spec, _core)


# --- PyTorch's names for the standard's functions ----------------------------------------------

ALIASES = {
    "lt": "less", "gt": "greater", "le": "less_equal", "ge": "greater_equal", "eq": "equal",
    "ne": "not_equal", "greater": "greater", "less": "less",
    "mul": "multiply", "sub": "subtract", "true_divide": "divide", "absolute": "abs",
    "neg": "negative", "arccos": "acos", "arcsin": "asin", "arctan": "atan",
    "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh", "arctan2": "atan2",
    "bitwise_not": "bitwise_invert", "conj_physical": "conj",
}


def _alias(name: str, target: str):
    f = _INT_TO_FLOAT.get(target) or getattr(_ns(), target)

    def call(*args, **kwargs):
        return f(*args, **kwargs)
    return _torch_function(call, name, f"PyTorch's ``torch.{name}``: ``strided.{target}``.", f)


# --- PyTorch's integer -> float promotion of the floating-point functions -------------------
# The standard's floating-point functions refuse integer and boolean arrays (TypeError);
# PyTorch's compute them in the default float dtype (``torch.sqrt(torch.arange(4))`` is
# float32), as strided's methods (``x.sqrt()``) already do. PyTorch refuses integers in
# hypot, logaddexp and silu too.

def _floats(ops: tuple) -> tuple:
    """The operands of a floating-point function as PyTorch computes them: integer and
    boolean arrays in the operands' promoted dtype, or the default float if that is integral."""
    ns = _ns()
    dt = floating_dtype(*ops)
    return tuple(ns.astype(a, dt) if type(a) is Array and a._dtype.kind in "biu" else a for a in ops)


def _int_to_float(name: str, f, nargs: int):
    # (the rows' signatures: (x, /, *, out=None) and (x1, x2, /, *, out=None))
    if nargs == 1:
        def call(input, /, *, out=None):
            if type(input) is Array and input._dtype.kind in "biu":
                input = _ns().astype(input, _dtypes.get_default_dtype())
            return f(input) if out is None else f(input, out=out)
    else:
        def call(input, other, /, *, out=None):
            if (type(input) is Array and input._dtype.kind in "biu") or (
                    type(other) is Array and other._dtype.kind in "biu"):
                input, other = _floats((input, other))
            return f(input, other) if out is None else f(input, other, out=out)
    return _torch_function(call, name, f"PyTorch's ``torch.{name}``: ``strided.{name}``, an integer or boolean "
                           f"input first converted to the default float dtype (as PyTorch does).", f)


_INT_TO_FLOAT = {r.name: _int_to_float(r.name, getattr(_ns(), r.name), r.nargs) for r in _elementwise.ROWS
                 if r.method_float and r.name not in ("hypot", "logaddexp", "silu")}
globals().update(_INT_TO_FLOAT)


# (no integer loop: computed in the operands' promoted dtype, refused where it is not floating)
hypot, logaddexp, nextafter = (_promoted_float(n, getattr(_ns(), n)) for n in ("hypot", "logaddexp", "nextafter"))
# (PyTorch's dtypes the standard's refuse: square of a mask, signbit of integers)
square, signbit = (_cast_first(n, getattr(_ns(), n)) for n in ("square", "signbit"))


def div(input, other, *, rounding_mode=None, out=None):
    """PyTorch's ``torch.div``: true division, or ``rounding_mode='trunc'``/``'floor'``."""
    if type(input) is not Array:
        input = _ns().asarray(input, device=other.device if type(other) is Array else None)
    return input.div(other, rounding_mode=rounding_mode, out=out)


divide = div


def floor_divide(input, other, *, out=None):
    """PyTorch's ``torch.floor_divide``: the floor of the quotient; an integer divisor of
    zero raises RuntimeError("ZeroDivisionError"), as PyTorch does (``strided.floor_divide``
    gives NumPy's 0)."""
    check_integer_divisor(input, other)
    return _ns().floor_divide(input, other, out=out)


def remainder(input, other, *, out=None):
    """PyTorch's ``torch.remainder``: Python's modulus (the sign of the divisor); an integer
    divisor of zero raises RuntimeError("ZeroDivisionError"), as PyTorch does
    (``strided.remainder`` gives NumPy's 0)."""
    check_integer_divisor(input, other)
    return _ns().remainder(input, other, out=out)


def meshgrid(*tensors, indexing=None) -> tuple:
    """PyTorch's ``torch.meshgrid``: ``indexing='ij'`` unless given (the standard's
    ``strided.meshgrid`` defaults to ``'xy'``); the arrays one by one or as one list.

    >>> import strided.torch as torch
    >>> torch.meshgrid(torch.arange(2), torch.arange(3))[0].shape
    strided.Size([2, 3])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    # (a 0-d tensor is a grid axis of one element, as PyTorch's; the standard's takes 1-d only)
    tensors = tuple(one_element_1d(t) if type(t) is Array else t for t in tensors)
    return tuple(_ns().meshgrid(*tensors, indexing="ij" if indexing is None else indexing))


def _truth(name: str, x, arg: str) -> Array:
    x = _input(name, x, arg)
    return x if x._dtype.kind == "b" else _ns().not_equal(x, 0)


def _logical(name: str):
    core = getattr(_elementwise, name)

    def call(input, other, *, out=None):
        return core(_truth(name, input, "input"), _truth(name, other, "other"), out=out)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"PyTorch's ``torch.{name}``: of any dtypes, an element being true when it "
                    f"is not zero (the standard's ``strided.{name}`` takes booleans only).")
    return call


logical_and, logical_or, logical_xor = (_logical(n) for n in ("logical_and", "logical_or", "logical_xor"))


def logical_not(input, *, out=None) -> Array:
    """PyTorch's ``torch.logical_not``: of any dtype, True where an element is zero."""
    return _elementwise.logical_not(_truth("logical_not", input, "input"), out=out)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, out=None,
                 sorter=None) -> Array:
    """PyTorch's ``torch.searchsorted``: the insertion points of ``input`` (an array or a Python
    number) in the last dimension of ``sorted_sequence`` (1-d, or with ``input``'s leading
    dimensions); ``right=True`` or ``side='right'`` after equal elements; int32 with
    ``out_int32``.

    >>> import strided.torch as torch
    >>> torch.searchsorted(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0, 2.5]), right=True)
    tensor([2, 2])
    """
    ns = _ns()
    _input("searchsorted", sorted_sequence, "sorted_sequence")
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted(): side must be 'left' or 'right'; got {side!r}")
        if right and side == "left":
            raise RuntimeError("searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = ns.take_along_axis(seq, sorter, axis=-1)
    scalar = type(input) is not Array
    v = ns.asarray(input, device=seq.device) if scalar else input
    kw = {"side": "right" if right else "left"}
    if seq.ndim <= 1:
        r = ns.searchsorted(ns.reshape(seq, (-1,)), v, **kw)
    else:
        if v.ndim != seq.ndim or v.shape[:-1] != seq.shape[:-1]:
            raise RuntimeError(f"searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                               f"dimensions of boundaries tensor and input value tensor must match; got "
                               f"{tuple(seq.shape)} and {tuple(v.shape)}")
        lead = seq.shape[:-1]
        rows_s, rows_v = ns.reshape(seq, (-1, seq.shape[-1])), ns.reshape(v, (-1, v.shape[-1]))
        r = ns.reshape(ns.stack([ns.searchsorted(rows_s[i], rows_v[i], **kw) for i in range(rows_s.shape[0])])
                       if rows_s.shape[0] else ns.zeros((0, v.shape[-1]), dtype=ns.int64, device=v.device),
                       lead + (v.shape[-1],))
    if out_int32:
        r = ns.astype(r, ns.int32)
    return _write("searchsorted", r, out)


def _legacy_moments(name: str):
    base = getattr(_strided_composites(), name)

    def call(input, *args, **kwargs):
        if type(input) is Array and input._dtype.kind in "biu":
            from ._methods import torch_reduction_dtype
            torch_reduction_dtype(name, input, None)  # (PyTorch's error: floats and complex only)
        # torch.std_mean(input, dim, unbiased, keepdim=False) and std_mean(input, unbiased):
        # PyTorch's legacy positional forms, besides (input, dim=None, *, correction, keepdim)
        if len(args) == 1 and type(args[0]) is builtins.bool:
            kwargs["unbiased"] = args[0]
            args = ()
        elif len(args) >= 2:
            if len(args) > 3:
                raise TypeError(f"{name}() takes at most 4 positional arguments; got {len(args) + 1}")
            kwargs["unbiased"] = args[1]
            if len(args) == 3:
                kwargs["keepdim"] = args[2]
            args = args[:1]
        return base(input, *args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = base.__doc__
    call.__signature__ = _signature("input, dim=None, *, correction=1, keepdim=False")
    return call


def _strided_composites():
    from . import _composites
    return _composites


std_mean, var_mean = _legacy_moments("std_mean"), _legacy_moments("var_mean")


def scatter(input, dim, index, src=None, *, value=None, reduce=None) -> Array:
    """PyTorch's ``torch.scatter``: ``input`` with ``src`` (or ``value``) written at ``index``
    along ``dim``; ``reduce='add'`` or ``'multiply'`` combines with what is there.

    >>> import strided.torch as torch
    >>> torch.scatter(torch.zeros(3), 0, torch.tensor([2, 2]), torch.tensor([1.0, 2.0]), reduce="add")
    tensor([0., 0., 3.])
    """
    ns = _ns()
    if src is not None and type(src) is not Array:  # (torch.scatter(x, d, i, 1.5): the value form)
        src, value = None, src
    if reduce is None:
        return ns.scatter(input, dim, index, src, value=value)
    if reduce not in ("add", "multiply"):
        raise RuntimeError(f"scatter(): reduce argument must be either add or multiply; got {reduce!r}")
    if src is None:
        if value is None:
            raise TypeError("scatter(): give src or value")
        src = ns.full(tuple(index.shape), value, dtype=input.dtype, device=input.device)
    from ._shape_functions import scatter_reduce
    return scatter_reduce(input, dim, index, src, "sum" if reduce == "add" else "prod", include_self=True)

# (strided's bincount, histogram, nanmedian and nanquantile are NumPy's: float64 weighted counts,
# integer histograms, the mean of the middle two; PyTorch's are the Tensor methods')

def bincount(input, weights=None, minlength=0) -> Array:
    """PyTorch's ``torch.bincount``: int64 counts, or the sums of ``weights`` in their float
    dtype (``strided.bincount``, NumPy's, gives float64)."""
    return _input("bincount", input).bincount(weights, minlength)


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    """PyTorch's ``torch.histogram``: ``(hist, bin_edges)`` in ``input``'s float dtype
    (``strided.histogram``, NumPy's, counts in integers)."""
    r = _input("histogram", input).histogram(bins, range=range, weight=weight, density=density)
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("histogram(): out must be a (hist, bin_edges) pair of arrays")
        _write("histogram", r[0], out[0])
        _write("histogram", r[1], out[1])
        return type(r)(out[0], out[1])
    return r


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """PyTorch's ``torch.nanmedian``: the lower of the two middle values not NaN; with a ``dim``,
    ``(values, indices)`` (``strided.nanmedian``, NumPy's, averages the middle two)."""
    x = _input("nanmedian", input)
    r = x.nanmedian() if dim is None else x.nanmedian(dim, keepdim)
    return _write("nanmedian", r, out)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None) -> Array:
    """PyTorch's ``torch.nanquantile``: ``q`` in [0, 1], NaN ignored, PyTorch's ``interpolation``
    and errors."""
    r = _input("nanquantile", input).nanquantile(q, dim, keepdim, interpolation=interpolation)
    return _write("nanquantile", r, out)

def clamp(input, min=None, max=None, *, out=None) -> Array:  # noqa: A002
    """PyTorch's ``torch.clamp(input, min=None, max=None, *, out=None)``: in PyTorch's promoted
    dtype of ``input`` and the bounds (``torch.clamp(int_array, min=0.5)`` is float32; the
    standard's ``strided.clip`` keeps ``input``'s dtype); neither bound given raises.

    >>> import strided.torch as torch
    >>> torch.clamp(torch.tensor([-3, 0, 5]), min=-0.5)
    tensor([-0.5000,  0.0000,  5.0000])
    """
    from ._methods import torch_clamp
    return torch_clamp("clamp", input, min, max, out=out)


def clip(input, min=None, max=None, *, out=None) -> Array:  # noqa: A002
    """PyTorch's ``torch.clip``: ``torch.clamp``."""
    from ._methods import torch_clamp
    return torch_clamp("clip", input, min, max, out=out)


def clamp_min(input, min, *, out=None) -> Array:  # noqa: A002
    """PyTorch's ``torch.clamp_min(input, min, *, out=None)``: ``torch.clamp(input, min=min)``."""
    from ._methods import torch_clamp
    return torch_clamp("clamp_min", input, min, None, out=out)


def clamp_max(input, max, *, out=None) -> Array:  # noqa: A002
    """PyTorch's ``torch.clamp_max(input, max, *, out=None)``: ``torch.clamp(input, max=max)``."""
    from ._methods import torch_clamp
    return torch_clamp("clamp_max", input, None, max, out=out)


def result_type(tensor1, tensor2) -> "_dtypes.DType":
    """PyTorch's ``torch.result_type(tensor1, tensor2)``: dimensioned arrays over 0-d arrays
    over Python numbers, each only where its kind is higher (a float32 array with a float64 0-d
    array is float32; the standard's ``strided.result_type`` promotes them alike).

    >>> import strided.torch as torch
    >>> torch.result_type(torch.ones(2), torch.tensor(1.0, dtype=torch.float64))
    strided.float32
    """
    from ._methods import torch_result_type
    return torch_result_type(tensor1, tensor2)


def _cumulative(name: str):
    from ._methods import torch_reduction_dtype

    def call(input, dim, *, dtype=None, out=None):
        x = _input(name, input)
        if x._dtype.kind in "biu":
            dtype = torch_reduction_dtype(name, x, dtype)  # (every integer or bool: int64)
        return getattr(_strided_composites(), name)(x, dim, dtype=dtype, out=out)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"PyTorch's ``torch.{name}(input, dim, *, dtype=None, out=None)``: ``dim`` required, "
                    f"an integer or bool input's result int64 (``strided.{name}``, NumPy's, keeps "
                    f"unsigned integers unsigned and flattens without a dim).")
    return call


cumsum, cumprod = _cumulative("cumsum"), _cumulative("cumprod")


def equal(input, other) -> builtins.bool:
    """PyTorch's ``torch.equal``: True when ``other`` has ``input``'s shape and every element
    equals it (after promotion; NaN equals nothing), a Python bool, as ``input.equal(other)``.
    The standard's ``strided.equal`` and ``torch.eq`` compare elementwise.

    >>> import strided.torch as torch
    >>> torch.equal(torch.tensor([1.0, 2.0]), torch.tensor([1, 2])), torch.equal(torch.ones(2), torch.ones(3))
    (True, False)
    """
    return _input("equal", input).equal(other)


def clone(input, *, memory_format=None) -> Array:
    """PyTorch's ``torch.clone``: a copy in ``memory_format`` (by default ``preserve_format``: a
    dense input's strides; ``strided.clone`` is row-major).

    >>> import strided.torch as torch
    >>> torch.clone(torch.zeros(3, 4).t()).stride()
    (1, 4)
    """
    return _input("clone", input).clone(memory_format=memory_format)


def numel(input, /) -> builtins.int:
    """PyTorch's ``torch.numel``: the number of elements."""
    if type(input) is not Array:
        raise TypeError(f"numel(): input must be a strided array; got {type(input).__name__}")
    n = 1
    for s in input.shape:
        n *= s
    return n


def _install_aliases():
    g = globals()
    for name, target in ALIASES.items():
        g[name] = _alias(name, target)


_install_aliases()

__all__ = sorted(set(SIGNATURES) | set(ALIASES) | {
    "std", "var", "max", "min", "div", "divide", "floor_divide", "remainder", "sign", "numel", "equal", "clone",
    "where", "round", "meshgrid", "logical_and", "logical_or", "logical_xor", "logical_not", "searchsorted",
    "std_mean", "var_mean", "scatter", "bincount", "histogram", "nanmedian", "nanquantile",
    "return_types", "cumsum", "cumprod", "clamp", "clip", "clamp_min", "clamp_max", "result_type",
    "hypot", "logaddexp", "nextafter", "square", "signbit"} | set(_INT_TO_FLOAT))

from ._shape_functions import __all__ as _SHAPE_ALL  # noqa: E402
from ._shape_functions import *  # noqa: E402,F401,F403
from ._math_functions import __all__ as _MATH_ALL  # noqa: E402
from ._math_functions import *  # noqa: E402,F401,F403
from ._special import __all__ as _SPECIAL_ALL  # noqa: E402
from ._special import *  # noqa: E402,F401,F403
__all__ = sorted(set(__all__) | set(_SHAPE_ALL) | set(_MATH_ALL) | set(_SPECIAL_ALL))
from ._nn_norm_aliases import __all__ as _NN_NORM_ALL  # noqa: E402
from ._nn_norm_aliases import *  # noqa: E402,F401,F403
__all__ = sorted(set(__all__) | set(_NN_NORM_ALL))
from ._nn_loss_aliases import __all__ as _NN_LOSS_ALL  # noqa: E402
from ._nn_loss_aliases import *  # noqa: E402,F401,F403
__all__ = sorted(set(__all__) | set(_NN_LOSS_ALL))
from ._nn_conv_aliases import __all__ as _NN_CONV_ALL  # noqa: E402
from ._nn_conv_aliases import *  # noqa: E402,F401,F403
__all__ = sorted(set(__all__) | set(_NN_CONV_ALL))
from ._more_functions import __all__ as _MORE_ALL  # noqa: E402
from ._more_functions import *  # noqa: E402,F401,F403
from ._more_linalg import __all__ as _MORE_LINALG_ALL  # noqa: E402
from ._more_linalg import *  # noqa: E402,F401,F403
from ._more_special import __all__ as _MORE_SPECIAL_ALL  # noqa: E402
from ._more_special import *  # noqa: E402,F401,F403
from ._more_random import __all__ as _MORE_RANDOM_ALL  # noqa: E402
from ._more_random import *  # noqa: E402,F401,F403
from ._more_settings import __all__ as _MORE_SETTINGS_ALL  # noqa: E402
from ._more_settings import *  # noqa: E402,F401,F403
from ._more_vmap import vmap  # noqa: E402,F401
from ._creation import __all__ as _CREATION_ALL  # noqa: E402
from ._creation import *  # noqa: E402,F401,F403
from ._copy_variants import __all__ as _COPY_ALL  # noqa: E402
from ._copy_variants import *  # noqa: E402,F401,F403
# (Array's layout flags and a few methods; their functions, `range` and `strided` among them,
# are the namespace's through strided/torch/__init__'s _FROM_SUBMODULE, not names here)
from . import _layouts, _math_names, _more_methods, _more_names  # noqa: E402,F401
__all__ = sorted(set(__all__) | set(_MORE_ALL) | set(_MORE_LINALG_ALL) | set(_MORE_SPECIAL_ALL)
                 | set(_MORE_RANDOM_ALL) | set(_MORE_SETTINGS_ALL) | set(_CREATION_ALL) | set(_COPY_ALL)
                 | {"vmap"})


def _guard_functions() -> None:
    """PyTorch's refusals by dtype (``_dtype_guards``) on this namespace's functions of those
    words (``torch.softmax`` of an integer array raises, as PyTorch's) and the 0-d value of
    ``torch.masked_fill``."""
    from . import _dtype_guards
    g = globals()
    st = _ns()
    for name in _dtype_guards.GUARDS:
        f = g.get(name) or getattr(st, name)
        if not getattr(f, "_guarded", False):
            g[name] = _dtype_guards.guard(name, f)
    for name in _dtype_guards.PRODUCTS:
        f = g.get(name) or getattr(st, name)
        if not getattr(f, "_guarded", False):
            g[name] = _dtype_guards.same_dtype_product(f, name)
    for name in ("isclose", "allclose"):
        f = g.get(name) or getattr(st, name)
        if not getattr(f, "_guarded", False):
            g[name] = _dtype_guards.same_dtype(f, name)
    f = g.get("masked_fill") or st.masked_fill
    if not getattr(f, "_guarded", False):
        g["masked_fill"] = _dtype_guards._masked_fill_value(f, "masked_fill_")
        g["masked_fill"]._guarded = True


_guard_functions()
__all__ = sorted(set(__all__) | {
    "softmax", "log_softmax", "quantile", "lerp", "median", "kthvalue", "topk", "trace",
    "masked_fill", "isclose", "allclose", "matmul", "mm", "bmm", "dot", "vdot", "tensordot", "addmm", "einsum"})
