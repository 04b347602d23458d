"""The binding stage of the call pipeline: a call as the user spelled it -> the canonical call.

Each namespace function declares once (``declare``) which of PyTorch's keywords it accepts
beyond its own parameters; its definition (the Python function) declares the rest. One
``Binder`` per function turns ``(args, kwargs)`` into the call of the definition:

- ``dim``/``dims`` and ``keepdim`` stand for the standard's ``axis`` and ``keepdims``;
  giving both spellings of one argument is a TypeError naming both;
- ``out`` (where the definition has none: PyTorch's composites) is an ordinary parameter
  of the bound call: it goes through the dispatch handlers (autograd refuses it with
  grad, as PyTorch does; names are checked and kept) and is written by the one writer;
- ``alpha`` (``add``, ``subtract``) is the elementwise rows' own parameter: applied after
  promotion, in the compute dtype (stage 2, _api/elementwise.py), so it is only declared here.

The standard namespace stays the standard's (DESIGN, fourth round, "Two namespaces, one
core"): a PyTorch spelling is accepted only where the result equals PyTorch's. Where it
would differ the binder raises a TypeError naming the difference and the ``strided.torch``
function that has PyTorch's meaning (``REFUSED``): ``strided.std(x, dim=0)`` without
``correction`` (torch divides by n - 1), ``strided.max(x, 1)`` (torch returns values and
indices), a positional dim (``strided.sum(x, 0)``).

Invariants: no function's source is read or compiled again; the definition is called
as it is, with the standard's keywords; a call that spells nothing of PyTorch's reaches
the definition unchanged (``bound`` adds one Python frame, taken only by the functions
declared here; the compiled hot path can skip it: docs/design.md, "the pipeline").
``strided.torch`` binds PyTorch's own signatures with the same class (``Binder`` with
``positional``: the dims PyTorch takes positionally).
"""

from __future__ import annotations

import functools
import inspect

# "Not given": the default of a parameter told apart from the standard's default (the hot
# reductions' axis/keepdims/dim/keepdim, see ``axis_keywords``). Ellipsis, as a constant
# the definitions test with ``is ...`` (a LOAD_CONST, cheaper than a global).
UNSET = ...

# The standard's name of each renamed PyTorch keyword.
RENAMED = {"dim": "axis", "dims": "axis", "keepdim": "keepdims"}
_TORCH = frozenset(RENAMED) | {"out", "alpha"}

_DK = ("dim", "keepdim")
# name -> the PyTorch keywords it accepts beyond its definition's parameters, as
# torch.<name>'s documented signature spells them. The elementwise rows declare theirs
# in the registry (``Elementwise.torch``), which adds them here when built.
DECLARED: dict[str, tuple] = {
    # reductions: torch.<name>(input, dim, keepdim=False, ...)
    "sum": _DK, "prod": _DK, "mean": _DK, "std": _DK, "var": _DK, "max": _DK, "min": _DK,
    "all": _DK, "any": _DK, "argmax": _DK, "argmin": _DK, "nansum": _DK,
    "count_nonzero": ("dim",),
    "median": _DK + ("out",), "nanmedian": _DK + ("out",), "nanmean": _DK + ("out",),
    "quantile": _DK + ("out",), "nanquantile": _DK + ("out",),
    # along one dimension: torch.<name>(input, dim, ...)
    "concat": ("dim",), "stack": ("dim",), "sort": ("dim",), "argsort": ("dim",),
    "squeeze": ("dim",), "diff": ("dim",),
    "flip": ("dims",), "roll": ("dims",),
    # out= where PyTorch's twin has one and the function does not
    "clamp": ("out",), "cross": ("out",), "gather": ("out",), "index_select": ("out",),
    "inverse": ("out",), "kron": ("out",), "lerp": ("out",), "logsumexp": ("out",),
    "masked_select": ("out",), "addmm": ("out",), "baddbmm": ("out",),
    "logspace": ("out",),
    # ... and where it returns a pair, out= is a pair: torch.topk(..., out=(values, indices))
    "topk": ("out",), "std_mean": ("out",), "var_mean": ("out",), "histogram": ("out",),
}

_REDUCTIONS = frozenset(("sum", "prod", "mean", "std", "var", "max", "min", "all", "any",
                         "nansum", "nanmean", "median", "nanmedian", "count_nonzero"))


def declare(name: str, keywords: tuple) -> None:
    """Declare the PyTorch keywords namespace function ``name`` accepts (a registry row's)."""
    if keywords:
        DECLARED[name] = tuple(keywords)


def _both(name: str, std: str, torch_kw: str) -> TypeError:
    return TypeError(f"{name}() got both {std}= and {torch_kw}= ({torch_kw} is PyTorch's name for "
                     f"{std}); give one")


# --- the standard namespace's refusals: where PyTorch's spelling would mean something else ----

def _refuse_std_var(name, kwargs, torch_given):
    if "dim" in torch_given and "correction" not in kwargs and "ddof" not in kwargs:
        raise TypeError(
            f"{name}(x, dim=...): strided.{name} is the standard's, which divides by n "
            f"(correction=0) where torch.{name} divides by n - 1; give correction= (0: the "
            f"standard's value, 1: PyTorch's), or call strided.torch.{name} for PyTorch's meaning")
    if "unbiased" in kwargs:
        raise TypeError(f"{name}(): unbiased= is PyTorch's; strided.{name} takes the standard's "
                        f"correction= (unbiased=True is correction=1), or call strided.torch.{name}")


def _refuse_max_min(name, kwargs, torch_given):
    if "dim" in torch_given:
        raise TypeError(
            f"{name}(x, dim=...): torch.{name} with a dim returns (values, indices), "
            f"strided.{name} (the standard's) the values only; give axis= for the values, or "
            f"call strided.torch.{name} for PyTorch's (values, indices)")


# (a refusal reads PyTorch's keywords alone, those bind renames and REFUSED_ONLY's: a call
# without them needs no binding, Binder.passkw)
REFUSED = {"std": _refuse_std_var, "var": _refuse_std_var,
           "max": _refuse_max_min, "min": _refuse_max_min}
# Keywords a definition declares only to refuse them with REFUSED's message (``var``'s and
# ``std``'s ``unbiased``): not part of its standard signature.
REFUSED_ONLY = frozenset(("unbiased",))
# NumPy's names of the standard's parameters, taken where the definition has the standard's
# (``var(x, ddof=1)``): folded in by the binding stage, so the handlers see the standard's.
NUMPY_ALIASES = {"ddof": "correction"}


# PyTorch's reductions that take an empty dim (``dim=()``, ``dim=[]``) as every dimension
# (PyTorch 2.13, measured: sum, mean, amax, amin, nansum, nanmean, std, var, their method
# forms, std_mean, var_mean, count_nonzero, norm); ``all``/``any`` take it as none, as the
# standard's ``axis=()`` is. The standard's ``axis`` keeps its meaning everywhere.
_EMPTY_DIM_IS_ALL = frozenset(("sum", "mean", "amax", "amin", "nansum", "nanmean", "std", "var",
                               "count_nonzero", "norm"))


# ... and the reductions PyTorch refuses an empty dim for (``prod``, ``argmax``, ``argmin``
# take one int dim; ``logsumexp`` raises): strided raises too rather than reduce nothing.
_EMPTY_DIM_REFUSED = frozenset(("prod", "argmax", "argmin", "logsumexp", "max", "min"))


def torch_axis(name: str, dim):
    """PyTorch's ``dim`` of the reduction ``name`` as the standard's axis: a list as a
    tuple, an empty one as None (every dimension) where PyTorch reduces them all, and
    refused where PyTorch refuses it."""
    if type(dim) is list:
        dim = tuple(dim)
    if type(dim) is tuple and not dim:
        if name in _EMPTY_DIM_IS_ALL:
            return None
        if name in _EMPTY_DIM_REFUSED:
            raise TypeError(f"{name}(): dim=() is refused, as PyTorch refuses it for {name} "
                            f"(give dim=None for every dimension)")
    return dim


def torch_keepdim(name: str, keepdim) -> bool:
    """PyTorch's ``keepdim``: a bool and nothing else (PyTorch: "argument 'keepdim' must be
    bool, not int"); the standard's ``keepdims`` is not checked here."""
    if type(keepdim) is not bool:
        raise TypeError(f"{name}(): argument 'keepdim' must be bool, not {type(keepdim).__name__}")
    return keepdim


def _positional_hint(name: str, npos: int, given: int, axis_kw: str) -> TypeError:
    s = "" if npos == 1 else "s"
    if name in ("max", "min"):
        return TypeError(
            f"{name}() takes {npos} positional argument{s} but {given} were given: a dim "
            f"given positionally is PyTorch's spelling, where torch.{name}(x, dim) returns "
            f"(values, indices); give axis= for the values (strided.{name}(x, axis=1)), or "
            f"call strided.torch.{name}(x, 1) for PyTorch's pair")
    return TypeError(
        f"{name}() takes {npos} positional argument{s} but {given} were given: the standard's "
        f"{name} takes {axis_kw} by keyword ({name}(x, {axis_kw}=...)); strided.torch.{name} "
        f"takes the dim positionally, as PyTorch does")


def axis_keywords(name: str, dims: tuple, axis, keepdims, dim, keepdim, given: tuple = ()) -> tuple:
    """The standard's ``(axis, keepdims)`` of a hot reduction whose definition declares
    PyTorch's ``dim``/``keepdim`` and a positional dim itself (_api/statistics.py: ``sum``,
    ``prod``, ``mean``, ``max``, ``min``, ``var``, ``std``; searching.py: ``argmax``,
    ``argmin``; utility.py: ``all``, ``any``), when one of them was given (``UNSET``: not
    given). ``given``: the names of the call's other keywords the refusals read (``var``'s
    and ``std``'s ``correction``, ``ddof``, ``unbiased``), as ``Binder.bind`` passes them."""
    if dims:
        raise _positional_hint(name, 1, 1 + len(dims), "axis")
    torch_given = (() if dim is UNSET else ("dim",)) + (() if keepdim is UNSET else ("keepdim",))
    refuse = REFUSED.get(name)
    if refuse is not None:
        refuse(name, given, torch_given)
    if dim is not UNSET:
        if axis is not UNSET:
            raise _both(name, "axis", "dim")
        # (torch_axis's rule, inlined: no frame for an int or a non-empty dim)
        axis = (tuple(dim) if dim else torch_axis(name, ())) if type(dim) is list or type(dim) is tuple else dim
    if keepdim is not UNSET:
        if keepdims is not UNSET:
            raise _both(name, "keepdims", "keepdim")
        keepdims = keepdim if type(keepdim) is bool else torch_keepdim(name, keepdim)
    return (None if axis is UNSET else axis), (False if keepdims is UNSET else keepdims)


def _standard_signature(fn) -> inspect.Signature:
    """The signature of a definition that declares PyTorch's keywords itself, as the
    standard's: no positional dims, no ``dim``/``keepdim``, ``UNSET`` defaults shown as
    the standard's (what the handlers bind against)."""
    sig = inspect.signature(fn)
    std_defaults = {"axis": None, "keepdims": False}
    ps = [p.replace(default=std_defaults.get(p.name, p.default)) if p.default is UNSET else p
          for p in sig.parameters.values()
          if p.kind is not p.VAR_POSITIONAL and p.name not in RENAMED and p.name not in REFUSED_ONLY]
    return sig.replace(parameters=ps)


class Binder:
    """One function's declared signature: its definition's parameters (read once, from
    ``inspect.signature``) plus the PyTorch keywords ``keywords``.

    ``bind(args, kwargs)`` is the canonical ``(args, kwargs)`` of the definition: PyTorch's
    renamed keywords spelled as the standard's, refusals raised (``REFUSED``).
    ``out`` in ``keywords`` where the definition has none: kept in kwargs (the bound
    function's own parameter, see ``bound``).
    """

    __slots__ = ("name", "keywords", "renamed", "npos", "params", "refuse", "axis_kw", "out", "native", "numpy",
                 "passkw")

    def __init__(self, name: str, fn, keywords: tuple):
        self.name = name
        self.keywords = tuple(keywords)
        code = getattr(fn, "__code__", None)
        # A definition that declares PyTorch's keywords itself (the hot reductions): it binds
        # them in its own body; its signature is shown, and bound against, as the standard's.
        declared = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount] if code is not None else ()
        self.native = "dim" in declared and "axis" in declared
        if self.native:
            fn.__signature__ = _standard_signature(fn)
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
        params = dict(sig.parameters) if sig is not None else {}
        self.params = frozenset(params)
        self.npos = (None if sig is None or any(p.kind is p.VAR_POSITIONAL for p in params.values())
                     else sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                              for p in params.values()))
        self.renamed = {k: RENAMED[k] for k in self.keywords if k in RENAMED}
        self.refuse = REFUSED.get(name)
        self.axis_kw = "axis" if "axis" in params else None
        self.out = "out" in self.keywords and "out" not in params
        self.numpy = tuple((k, std) for k, std in NUMPY_ALIASES.items() if k in params and std in params) or None
        # The keywords bind returns as they came, whatever their values: the definition's own
        # parameters but those it renames, takes NumPy's spelling of or declares only to
        # refuse (a refusal reads PyTorch's keywords alone: REFUSED). A call with only these
        # and at most npos positional arguments needs no binding: the compiled entry and the
        # chain's head then skip it (_csrc/_chot/fast.c, unbound). None: no keyword passes.
        skip = set(self.renamed) | {k for k, _ in self.numpy or ()} | REFUSED_ONLY
        self.passkw = frozenset(k for k in params if k not in skip) or None

    def bind(self, args: tuple, kwargs: dict) -> tuple:
        name = self.name
        npos = self.npos
        if npos is not None and len(args) > npos and (name in _REDUCTIONS or name in ("max", "min")) \
                and self.axis_kw is not None:
            raise _positional_hint(name, npos, len(args), self.axis_kw)
        if not kwargs:
            return args, kwargs
        torch_given = ()
        renamed = self.renamed
        for k in kwargs:
            if k in renamed:
                torch_given += (k,)
        if self.refuse is not None:
            self.refuse(name, kwargs, torch_given)
        if self.numpy is not None:
            for k, std in self.numpy:
                if k in kwargs:
                    kwargs = dict(kwargs)
                    v = kwargs.pop(k)
                    if std in kwargs:
                        raise TypeError(f"{name}(): give {std} or {k} (NumPy's name for it), not both")
                    kwargs[std] = v
        if torch_given:
            kwargs = dict(kwargs)
            for k in torch_given:
                std = renamed[k]
                if std in kwargs:
                    raise _both(name, std, k)
                v = kwargs.pop(k)
                if std == "axis":
                    v = torch_axis(name, v)  # (dim=[0, 1] as a tuple; dim=() as PyTorch means it)
                elif std == "keepdims":
                    v = torch_keepdim(name, v)
                kwargs[std] = v
        return args, kwargs

    def signature(self, fn) -> inspect.Signature | None:
        """``fn``'s signature with the PyTorch keywords it accepts, keyword-only, with
        PyTorch's defaults (what ``inspect.signature`` and the docs show)."""
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            return None
        ps = list(sig.parameters.values())
        have = {p.name for p in ps}
        var_kw = [p for p in ps if p.kind is p.VAR_KEYWORD]
        ps = [p for p in ps if p.kind is not p.VAR_KEYWORD]
        for k in self.keywords:
            if k in have:
                continue
            default = False if k == "keepdim" else 1 if k == "alpha" else None
            ps.append(inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=default))
        return sig.replace(parameters=ps + var_kw)


class Params:
    """The keyword parameters of a parametric registry row (``leaky_relu``'s
    ``negative_slope``, ``softplus``'s ``beta`` and ``threshold``, ``gelu``'s
    ``approximate``): declared once, as ``((name, default), ...)`` in the row
    (``Elementwise.params``), in PyTorch's order and with PyTorch's defaults.

    ``bind(args, kwargs)`` is the tuple of their values in that order (given
    positionally after the array, as PyTorch's ``F.leaky_relu(x, 0.2)``, or by keyword;
    defaults filled in), checked by ``check(*values)`` (the row's: types and ranges,
    raising with the row's name) -- what the row's kernel, its derivative rule and
    every handler receive, positionally, between the array and ``out``.
    ``parameters()``: them as ``inspect.Parameter`` objects (the row's signature).
    """

    __slots__ = ("name", "names", "defaults", "index", "check")

    def __init__(self, name: str, params: tuple, check=None):
        self.name = name
        self.names = tuple(p[0] for p in params)
        self.defaults = tuple(p[1] for p in params)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.check = check

    def bind(self, args: tuple, kwargs: dict) -> tuple:
        n = len(self.names)
        if len(args) > n:
            raise TypeError(f"{self.name}() takes {n + 1} positional argument{'s' if n else ''} "
                            f"(the array and {', '.join(self.names) or 'nothing else'}) but "
                            f"{len(args) + 1} were given")
        vals = list(args) + list(self.defaults[len(args):])
        for k, v in kwargs.items():
            i = self.index.get(k)
            if i is None:
                raise TypeError(f"{self.name}() got an unexpected keyword argument {k!r}")
            if i < len(args):
                raise TypeError(f"{self.name}() got multiple values for argument {k!r}")
            vals[i] = v
        vals = tuple(vals)
        return self.check(*vals) if self.check is not None else vals

    def parameters(self) -> list:
        return [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
                for k, d in zip(self.names, self.defaults)]


BINDERS: dict[str, Binder] = {}


def binder(name: str, fn=None) -> Binder | None:
    """The ``Binder`` of namespace function ``name`` (made from its definition ``fn`` on
    first use), or None when it declares no PyTorch keywords."""
    b = BINDERS.get(name)
    if b is None and fn is not None:
        keywords = DECLARED.get(name)
        if not keywords:
            return None
        b = BINDERS[name] = Binder(name, fn, keywords)
    return b


def entry(b: Binder, fn):
    """The compiled hot path's entry into ``fn`` (an ``api`` function's definition) for a
    function that declares PyTorch keywords: binds a call with a keyword or an extra
    positional argument, calls ``fn`` at once otherwise.

    Note: one Python frame before the definition (the definition itself is called with
    CPython's inlined call); the compiled ``Fast`` takes this test in C and calls ``fn``
    directly when no argument needs binding (_csrc/_chot/fast.c, api_call: ``direct``)."""
    bind = b.bind
    npos = b.npos if b.npos is not None else 1 << 30
    if npos == 1:
        def call(x, /, *args, **kwargs):
            if args or kwargs:
                args, kwargs = bind((x,) + args, kwargs)
                return fn(*args, **kwargs)
            return fn(x)
    else:
        def call(*args, **kwargs):
            if kwargs or len(args) > npos:
                args, kwargs = bind(args, kwargs)
            return fn(*args, **kwargs)
    functools.update_wrapper(call, fn)
    call._impl = fn
    return call


def _spelled_doc(doc: str | None, keywords: tuple) -> str | None:
    spelled = ", ".join(f"``{k}``" + (f" (``{RENAMED[k]}``)" if k in RENAMED else "") for k in keywords)
    if doc and "PyTorch's spellings" not in doc:
        return doc.rstrip() + f"\n\nPyTorch's spellings accepted too: {spelled}.\n"
    return doc


def bound(name: str, fn, write=None):
    """Namespace function ``name`` (its callable ``fn``: a definition, an ``api``
    function or a compiled entry point) taking the PyTorch keywords it declares; ``fn``
    itself when it declares none.

    ``write(name, out, result)``: the writer, for ``out`` where ``fn`` has none; the
    handlers see ``out`` first (``dispatch.with_out``).
    """
    keywords = DECLARED.get(name)
    if not keywords or getattr(fn, "_binder", None) is not None:
        return fn
    b = binder(name, getattr(fn, "_impl", fn))
    if b.out and write is not None:
        fn = write(name, fn)  # out= an ordinary parameter (dispatch.with_out)
    bind = b.bind
    npos = b.npos if b.npos is not None else 1 << 30

    # Note: one Python frame in front of the definition (the price of binding without
    # rewriting it); a call with no keyword and no extra positional argument goes
    # straight on. The compiled hot path can take that test in C (docs/design.md).
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs or len(args) > npos:
            args, kwargs = bind(args, kwargs)
        return fn(*args, **kwargs)

    call._binder = b
    call._torch_keywords = b.keywords
    sig = b.signature(fn)
    if sig is not None:
        call.__signature__ = sig
    call.__doc__ = _spelled_doc(call.__doc__, b.keywords)
    cview = getattr(fn, "_cview", None)
    if cview is not None:
        # A compiled view (``squeeze``: _csrc/_chot/views.c) stays in front: it answers only
        # its plain case (no PyTorch keyword there) and hands a named array's to ``fn``
        # itself; every other call reaches the binder.
        return type(fn)(call, *cview, fn)
    return call


def install(namespace: dict, write=None) -> None:
    """Bind every declared function of ``namespace`` (where it is defined too: pickled
    by reference)."""
    import sys

    for name in DECLARED:
        obj = namespace.get(name)
        if obj is None or getattr(obj, "_binder", None) is not None or getattr(obj, "_row", None) is not None:
            continue
        new = bound(name, obj, write)
        if new is obj:
            continue
        module = sys.modules.get(getattr(obj, "__module__", "") or "", None)
        for k, v in list(namespace.items()):
            if v is obj:
                namespace[k] = new
        if module is not None and getattr(module, name, None) is obj:
            setattr(module, name, new)
