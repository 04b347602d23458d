"""The dispatch handler of named dimensions (priority 10, outside autograd's 20).

It runs only for operations with an argument that carries extension
metadata, and does nothing more than pass the call on unless some argument
has names. Then it binds the arguments, lets the operation's rule (``RULES``)
turn dimension names given as axes into positions and compute the output
names, runs the operation (through autograd when that is active), names the
outputs, and checks and updates the names of ``out=``.
"""

from __future__ import annotations

import contextvars
import inspect

from .._core.array import Array, Ext
from .._core.dtypes import DType
from .._core.call import bind as _bind
from .._core.dispatch import CHOT, OUT_NAMES, _run_impl, register_handler
from .._api.elementwise import REGISTRY
from ._core import (VIEW_NAMES, DimensionNameError, full_names, remember_view, renamed, tag,
                    unify_same)
from ._ops import align
from ._rules import RULES, Each, _expand_dims, _flatten, _reduction, _squeeze, _unflatten

__all__ = ["handler", "install", "AUTO_ALIGN"]

AUTO_ALIGN = contextvars.ContextVar("strided_named_auto_align", default=False)

_ELEMENTWISE = {r.name: r.nargs for r in REGISTRY.values()}
_BINARY = frozenset(n for n, k in _ELEMENTWISE.items() if k == 2)
_UNARY = frozenset(n for n, k in _ELEMENTWISE.items() if k == 1)
_BINDERS: dict = {}
_P = inspect.Parameter


class _Binder:
    """A fast ``inspect.Signature.bind`` (defaults applied) for one operation's signature."""

    __slots__ = ("pos", "posonly", "var", "kwonly", "defaults", "known")

    def __init__(self, impl):
        self.pos, self.kwonly, self.posonly = [], [], set()
        self.var = None
        self.defaults = {}
        for p in inspect.signature(impl).parameters.values():
            if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD):
                self.pos.append(p.name)
                if p.kind is _P.POSITIONAL_ONLY:
                    self.posonly.add(p.name)
            elif p.kind is _P.VAR_POSITIONAL:
                self.var = p.name
            elif p.kind is _P.KEYWORD_ONLY:
                self.kwonly.append(p.name)
            else:
                raise TypeError(f"{impl}: **kwargs in a dispatched operation's signature")
            if p.default is not _P.empty:
                self.defaults[p.name] = p.default
        self.known = set(self.pos) | set(self.kwonly)

    def bind(self, args, kwargs):
        """The arguments by parameter name, or None when they don't fit the signature."""
        npos = len(self.pos)
        if len(args) > npos and self.var is None:
            return None
        p = dict(zip(self.pos, args))
        if self.var is not None:
            p[self.var] = tuple(args[npos:])
        for k, v in kwargs.items():
            if k in p or k not in self.known or k in self.posonly:
                return None
            p[k] = v
        for k in self.pos + self.kwonly:
            if k not in p:
                if k not in self.defaults:
                    return None
                p[k] = self.defaults[k]
        return p

    def call_args(self, p):
        args = tuple([p[k] for k in self.pos])
        if self.var is not None:
            args += tuple(p[self.var])
        return args, {k: p[k] for k in self.kwonly}


def _out_names(name, out, result):
    """The names ``out`` keeps when ``result`` is written into it (dispatch.with_out)."""
    return unify_same(full_names(result), full_names(out), name, "the result's names and out's names")


def install() -> None:
    register_handler(handler, priority=10)
    OUT_NAMES[:] = [_out_names, tag]
    if CHOT is not None:
        # The compiled hot path names the results of elementwise calls, reductions and the
        # views it computes itself, from the outcomes cached below (the same outcomes as
        # this module's own fast links; strided/_csrc/_chot.c, "named dimensions").
        CHOT.setup_named(Ext, _EW_NAMES, _RED, _VIEW_NAMES, AUTO_ALIGN, SPELLED, _spelled)


def _named(a) -> bool:
    e = a._ext
    return e is not None and e.names is not None


def _any_names(args, kwargs) -> bool:
    for a in args:
        t = type(a)
        if t is Array:
            if _named(a):
                return True
        elif t is list or t is tuple:
            for b in a:
                if type(b) is Array and _named(b):
                    return True
    for a in kwargs.values():
        if type(a) is Array and _named(a):
            return True
    return False


def handler(name, impl, args, kwargs, call_next):
    """Compute, check and attach dimension names around the operation ``name``."""
    nargs = _ELEMENTWISE.get(name)
    if nargs is not None:
        for a in args:  # _any_names, inlined for an elementwise row's (x[, x2], out)
            if type(a) is Array:
                e = a._ext
                if e is not None and e.names is not None:
                    return _elementwise(name, nargs, impl, args, call_next)
        return call_next(name, impl, args, kwargs)
    if not _any_names(args, kwargs):
        return call_next(name, impl, args, kwargs)
    r = RULES.get(name)
    if r is None:
        if getattr(impl, "_names_from_body", False):  # (dispatch.with_out: a composite's out=)
            return call_next(name, impl, args, kwargs)
        raise NotImplementedError(
            f"{name}(): strided.named has no dimension-name rule for this operation, so it can't "
            f"tell the names of its result; drop the names first with rename(None)")
    # Array methods pass the namespace function itself (its @api wrapper), which would
    # dispatch a second time: run the function's body instead.
    impl = getattr(impl, "_impl", impl)
    if name in _VIEW_KEYS:
        return _cached_view(name, r, impl, args, kwargs, call_next)
    if r in _CACHED_RULES:
        return _cached_call(name, r, impl, args, kwargs, call_next)
    return _named_call(name, r, impl, args, kwargs, call_next)


def _named_call(name, r, impl, args, kwargs, call_next):
    """Run the name rule ``r``, then the operation, then name its result."""
    hit = _rule_outcome(name, r, impl, args, kwargs, call_next)
    if hit is None:
        return call_next(name, impl, args, kwargs)  # the operation reports the caller's mistake
    p, a, k, spec = hit
    out = p.get("out")
    if type(out) is Array and type(spec) in (tuple, list):
        _check_out_first(name, spec, out)
    return _finish(name, call_next(name, impl, a, k), spec, out, args)


# (op, key of each input) -> the result's checked names (None: unnamed). An input's
# key is its names, or its ndim when it has none (-1: not an array). The name rule
# of an elementwise row depends on nothing else, so it runs once per combination;
# a call then costs one dict lookup before the kernel.
_EW_NAMES: dict = {}
_MISS = object()


def _key(x):
    if type(x) is not Array:
        return -1
    e = x._ext
    if e is None or e.names is None:
        return len(x._shape)
    return e.names


def _elementwise(name, nargs, impl, args, call_next):
    """An elementwise registry row: arguments ``(x, out)`` or ``(x1, x2, out)``."""
    if nargs == 1:
        key = (name, _key(args[0]))
    else:
        x1, x2, out = args
        k1, k2 = _key(x1), _key(x2)
        if type(k1) is tuple and type(k2) is tuple and k1 != k2 and AUTO_ALIGN.get():
            x1, x2 = align(x1, x2)
            args = (x1, x2, out)
            k1, k2 = x1._ext.names, x2._ext.names
        key = (name, k1, k2)
    names = _EW_NAMES.get(key, _MISS)
    if names is _MISS:
        names = _ew_names(name, nargs, args, key)
    out = args[-1]
    if out is not None:
        _check_out_first(name, names, out)
    # the last link of the chain runs the kernel path: call it without the link
    result = impl(*args) if call_next is _run_impl else call_next(name, impl, args, {})
    if out is None and type(result) is Array and result is not args[0] and result is not args[-2]:
        return _attach(name, result, names)
    return _finish(name, result, names, out, args)


def _ew_names(name, nargs, args, key):
    """Run an elementwise row's name rule and cache its checked outcome under ``key``."""
    p = {"x": args[0], "out": args[1]} if nargs == 1 else {"x1": args[0], "x2": args[1], "out": args[2]}
    spec = RULES[name](p)
    if spec is not None:
        _check_unique(name, spec)
    names = None if spec is None or spec.count(None) == len(spec) else tuple(spec)
    if len(_EW_NAMES) > 4096:
        _EW_NAMES.clear()
    _EW_NAMES[key] = names
    return names


def _attach(name, result, names):
    """Name a fresh result with the cached ``names`` (checked when they were cached)."""
    if names is not None:
        if len(names) != len(result._shape):
            raise RuntimeError(f"{name}(): the dimension-name rule gave {len(names)} names "
                               f"{list(names)} for a result with {result.ndim} dimensions "
                               f"(a bug in strided.named)")
        e = result._ext
        if e is None:
            e = result._ext = Ext()
        e.names = names
    elif _named(result):
        tag(result, None)
    return result


def _entry(call_next):
    """This handler's link in the dispatch chain (see ``register_handler``).

    An elementwise call without ``out=`` on inputs whose names were seen before
    goes from here to the kernel: one key, one dict lookup, one Ext for the result.
    Everything else (and every first sight) takes ``handler``.
    """
    last = call_next is _run_impl
    binary, unary = _BINARY, _UNARY

    def entry(name, impl, args, kwargs):
        n = len(args)
        if n == 3:
            if name in binary and args[2] is None:
                x1, x2, _ = args
                # _key, inlined for both inputs
                if type(x1) is Array:
                    e = x1._ext
                    k1 = len(x1._shape) if e is None or e.names is None else e.names
                else:
                    k1 = -1
                if type(x2) is Array:
                    e = x2._ext
                    k2 = len(x2._shape) if e is None or e.names is None else e.names
                else:
                    k2 = -1
                if type(k1) is tuple:
                    if type(k2) is tuple and k1 != k2 and AUTO_ALIGN.get():
                        return handler(name, impl, args, kwargs, call_next)
                elif type(k2) is not tuple:  # no names: nothing to do here
                    return impl(x1, x2, None) if last else call_next(name, impl, args, kwargs)
                names = _EW_NAMES.get((name, k1, k2), _MISS)
                if names is not _MISS:
                    result = impl(x1, x2, None) if last else call_next(name, impl, args, kwargs)
                    if type(result) is Array and result is not x1 and result is not x2:
                        if names is not None and len(names) == len(result._shape):
                            e = result._ext
                            if e is None:
                                e = result._ext = Ext()
                            e.names = names
                            return result
                        return _attach(name, result, names)
                    return _finish(name, result, names, None, args)
        elif n == 2 and name in unary and args[1] is None:
            x = args[0]
            k = _key(x)
            if type(k) is tuple:
                names = _EW_NAMES.get((name, k), _MISS)
                if names is not _MISS:
                    result = impl(x, None) if last else call_next(name, impl, args, kwargs)
                    if type(result) is Array and result is not x:
                        return _attach(name, result, names)
                    return _finish(name, result, names, None, args)
        elif n == 1 and type(args[0]) is Array:
            x = args[0]
            e = x._ext
            if e is not None and e.names is not None:
                axis = kwargs.get("axis") if len(kwargs) == 1 else None
                if type(axis) is str:  # reduce(x, axis='C'): seen before?
                    hit = _RED_AXIS.get((name, e.names, axis))
                    if hit is not None:
                        _, kw, names = hit
                        impl = getattr(impl, "_impl", impl)
                        result = impl(x, **kw) if last else call_next(name, impl, args, dict(kw))
                        if type(result) is Array and result is not x and result._ext is None \
                                and names is not None and len(names) == len(result._shape) \
                                and names.count(None) != len(names):
                            e = result._ext = Ext()
                            e.names = names
                            return result
                        return _finish(name, result, names, None, args)
                if RULES.get(name) is _reduction:
                    return _cached_call(name, _reduction, getattr(impl, "_impl", impl), args,
                                        kwargs, call_next)
        return handler(name, impl, args, kwargs, call_next)

    return entry


handler.entry = _entry


# --- views ----------------------------------------------------------------------------

# _core.VIEW_NAMES: (op, x's names, the view's arguments) -> the result's names. The name
# rules of the views in _VIEW_KEYS depend on nothing else (for indexing: on which entries
# of the key are ints and which are slices, not on their values), so each runs once per
# combination. The compiled views (_chot.c, "views") compute the view itself and take
# its names from there; they build the same keys for the calls they answer.
_VIEW_NAMES = VIEW_NAMES


def _index_signature(x, key):
    """x[key]'s key in _VIEW_NAMES for a key of ints and slices, one per leading axis:
    ``1 << len(key)``, plus bit i when entry i is an int; None for any other key."""
    if type(key) is not tuple:
        key = (key,)
    if len(key) > len(x._shape):
        return None
    sig = 1 << len(key)
    for i, k in enumerate(key):
        t = type(k)
        if t is int:
            sig |= 1 << i
        elif t is not slice:
            return None
    return sig


def _int_axes(x, args, kwargs):
    """permute_dims's axes as ints (a name as its position), or None."""
    axes = args[1] if len(args) == 2 and not kwargs else None
    if type(axes) is not tuple:
        return None
    names = x._ext.names
    for a in axes:
        if type(a) is not int:
            if type(a) is not str or a not in names:
                return None  # (the rule reports an unknown name)
            return tuple(names.index(a) if type(a) is str else a for a in axes)
    return axes


def _expand_axis(x, args, kwargs):
    if len(args) == 2 and not kwargs:
        axis = args[1]
    elif len(args) == 1 and len(kwargs) <= 1:
        axis = kwargs.get("axis", 0) if not kwargs or "axis" in kwargs else None
    else:
        return None
    return axis if type(axis) is int else None


def _reshape_args(x, args, kwargs):
    return None if len(args) != 2 or kwargs.get("copy", None) is not None or len(kwargs) > 1 \
        or (kwargs and "copy" not in kwargs) else ()


# op -> the part of a call's arguments that its view's key holds (None: not cached).
# ``x.T`` and ``x.mT`` are ``permute_dims`` with the swap of the last two axes.
_VIEW_KEYS = {
    "getitem": lambda x, args, kwargs: _index_signature(x, args[1]) if len(args) == 2 and not kwargs else None,
    "permute_dims": _int_axes,
    "expand_dims": _expand_axis,
    "reshape": _reshape_args,  # (reshaping drops the names, whatever the shape)
}


def _cached_view(name, r, impl, args, kwargs, call_next):
    x = args[0]
    sig = _VIEW_KEYS[name](x, args, kwargs) if type(x) is Array else None
    if sig is None:  # (expand_dims(x, axis=(0, 2)): _RED's)
        return (_cached_call if r in _CACHED_RULES else _named_call)(name, r, impl, args, kwargs,
                                                                       call_next)
    key = (name, x._ext.names, sig)
    names = _VIEW_NAMES.get(key, _MISS)
    if names is _MISS:
        result = _named_call(name, r, impl, args, kwargs, call_next)
        if type(result) is Array and result is not x:
            e = result._ext
            remember_view(key, None if e is None else e.names)
        return result
    result = call_next(name, impl, args, kwargs)
    if type(result) is Array and result is not x:
        return _attach(name, result, names)
    return _finish(name, result, names, None, args)


# --- reductions ---------------------------------------------------------------------------

_SIMPLE = (str, int, bool, float, type(None), DType)
# (op, x's names, ndim, the number of positional arguments, the type and value of each
# after x, then for each keyword argument: its name, type and value) -> (positional
# arguments after x, keywords for the kernel, result names), for the ops of
# _CACHED_RULES (reductions, and views whose names follow from the arguments): their
# name rules depend on nothing else, so each runs once per combination. The compiled
# namespace functions (_chot.c's named_call) build the same key. A tuple value holds
# str and int only (its items' types are not in the key, and True == 1).
_RED: dict = {}
# (op, x's names, the dimension name given as axis=) -> the same entry, for the commonest
# call, ``reduce(x, axis='C')``, found without building the general key.
_RED_AXIS: dict = {}


def _cached_call(name, r, impl, args, kwargs, call_next):
    """``op(x, *args, **kwargs)`` for an op whose rule is in _CACHED_RULES: the rule's
    outcome comes from _RED, or is put there."""
    x = args[0]
    key = _red_key(name, r, x, args, kwargs)
    if key is None:
        return _named_call(name, r, impl, args, kwargs, call_next)
    hit = _RED.get(key)
    if hit is None:
        hit = _rule_outcome(name, r, impl, args, kwargs, call_next)
        if hit is None:
            return call_next(name, impl, args, kwargs)  # the operation reports the mistake
        _, a, k, spec = hit
        if spec is not None:
            _check_unique(name, spec)
            spec = tuple(spec)
        hit = (a[1:], k, spec)
        if len(_RED) > 4096:
            _RED.clear()
            _RED_AXIS.clear()
        _RED[key] = hit
        axis = kwargs.get("axis")
        if len(args) == 1 and len(kwargs) == 1 and type(axis) is str and not hit[0]:
            _RED_AXIS[(name, x._ext.names, axis)] = hit
    tail, kw, names = hit
    if call_next is _run_impl:  # the last link: run the function's body without it
        result = impl(x, *tail, **kw)
    else:
        result = call_next(name, impl, (x,) + tail, dict(kw))
    if type(result) is Array and result is not x and result._ext is None \
            and names is not None and len(names) == len(result._shape):
        # A fresh result: the cached names were checked when they were cached.
        if names.count(None) != len(names):
            e = result._ext = Ext()
            e.names = names
        return result
    return _finish(name, result, names, None, (x,))


def _red_key(name, r, x, args, kwargs):
    """The _RED key of ``op(x, *args[1:], **kwargs)`` (op's rule ``r``), or None when the
    call is not one whose outcome is cached."""
    if type(x) is not Array or not _SHAPE_FREE.get(r, _always)(args, kwargs):
        return None
    key = [name, x._ext.names, len(x._shape), len(args)]
    for v in args[1:]:
        t = type(v)
        if not _simple(t, v):
            return None
        key += (t, v)
    for k, v in kwargs.items():  # the values' types too: axis=True is not axis=1
        t = type(v)
        if not _simple(t, v):
            return None
        key += (k, t, v)
    return tuple(key)


# The keywords the binding stage renames (dim=, dims=, keepdim=): a call that spells one
# reaches the handlers bound (dispatch's chain head), so its _RED key holds the
# standard's names; the compiled named_call (names.c) keys on the call as spelled.
SPELLED = frozenset(_bind.RENAMED)


def _spelled(x, key):
    """The _RED outcome of a call spelled with a keyword of SPELLED (``sum(x, dim='C')``),
    given its key as spelled (names.c's named_call missed it): the call bound as the chain's
    head binds it (_core/call/bind.py), the bound call's outcome looked up, and kept under
    the spelled key too, so the compiled path finds it at once from then on. None when the
    bound call's outcome is not cached yet or the call does not bind (the Python path then
    runs: it caches the outcome, or raises the binding error)."""
    name, npos = key[0], key[3]
    r = RULES.get(name)
    b = _bind.BINDERS.get(name)
    if b is None or r not in _CACHED_RULES:
        return None
    at = 4 + 2 * (npos - 1)
    args = (x,) + key[5:at:2]
    kwargs = {key[i]: key[i + 2] for i in range(at, len(key), 3)}
    try:
        args, kwargs = b.bind(args, kwargs)
    except Exception:  # (the Python path raises it, from the user's call)
        return None
    bound = _red_key(name, r, x, args, kwargs)
    hit = None if bound is None else _RED.get(bound)
    if hit is not None:
        if len(_RED) > 4096:
            _RED.clear()
            _RED_AXIS.clear()
        _RED[key] = hit
    return hit


def _simple(t, v) -> bool:
    """Whether an argument may be part of a _RED key (its type is there too; a tuple
    holds exact str and int only, since its items' types are not)."""
    if t is tuple:
        for a in v:
            if type(a) is not str and type(a) is not int:
                return False
        return True
    return t in _SIMPLE


def _always(args, kwargs) -> bool:
    return True


def _squeeze_axis_given(args, kwargs) -> bool:
    # squeeze(x) drops the size-1 dims: the shape decides, not the names
    return (args[1] if len(args) > 1 else kwargs.get("axis")) is not None


# The rules that read nothing but x's names, its ndim and the call's simple arguments
# (and turn names given as axes into positions): their outcomes are cached in _RED.
_CACHED_RULES = frozenset([_reduction, _squeeze, _flatten, _unflatten, _expand_dims])
_SHAPE_FREE = {_squeeze: _squeeze_axis_given}


def _rule_outcome(name, r, impl, args, kwargs, call_next):
    """(bound arguments, positional and keyword arguments with names turned into
    positions, the rule's result names), or None when the arguments don't fit the
    signature."""
    binder = _BINDERS.get(impl)
    if binder is None:
        binder = _BINDERS[impl] = _Binder(impl)
    p = binder.bind(args, kwargs)
    if p is None:
        return None
    try:
        spec = r(p)
    except DimensionNameError:
        raise
    except Exception as e:
        call_next(name, impl, args, kwargs)
        raise RuntimeError(f"{name}(): the dimension-name rule failed on arguments the operation "
                           f"accepted") from e
    a, k = binder.call_args(p)
    return p, a, k, spec


def _check_unique(name, names) -> None:
    seen = set()
    for n in names:
        if n is not None:
            if n in seen:
                raise DimensionNameError(f"{name}(): the result would have two dims named {n!r} "
                                         f"(names {list(names)}); rename one of the inputs' dims")
            seen.add(n)


def _is_input(r, args) -> bool:
    for a in args:
        if a is r:
            return True
        if type(a) is list or type(a) is tuple:
            for b in a:
                if b is r:
                    return True
    return False


def _check_out_first(name, spec, out):
    """Refuse ``out`` whose names clash with the result's before anything is written into
    it (the single-writer rule: an error leaves user memory as it was); ``_finish`` then
    gives ``out`` the merged names."""
    if type(out) is Array and (spec is None or len(spec) == out.ndim):
        unify_same(spec if spec is not None else (None,) * out.ndim, full_names(out),
                   name, "the result's names and out's names")


def _finish(name, result, spec, out, args):
    if type(result) is Array:
        if out is not None and result is out:
            merged = unify_same(spec if spec is not None else (None,) * out.ndim, full_names(out),
                                name, "the result's names and out's names")
            return tag(out, merged)
        return _name_one(name, result, spec, args)
    if isinstance(result, (tuple, list)):
        if spec is None:
            return result
        specs = [spec.names] * len(result) if type(spec) is Each else spec
        outs = [_name_one(name, r, s, args) if type(r) is Array else r for r, s in zip(result, specs)]
        if all(a is b for a, b in zip(outs, result)):
            return result
        return type(result)(*outs) if hasattr(result, "_fields") else type(result)(outs)
    return result


def _name_one(name, r, names, args):
    if names is None:
        if _named(r) and not _is_input(r, args):
            tag(r, None)
        return r
    if len(names) != r.ndim:
        raise RuntimeError(f"{name}(): the dimension-name rule gave {len(names)} names {list(names)} "
                           f"for a result with {r.ndim} dimensions (a bug in strided.named)")
    _check_unique(name, names)
    if _is_input(r, args):
        return r if full_names(r) == tuple(names) else renamed(r, names)
    return tag(r, names)
