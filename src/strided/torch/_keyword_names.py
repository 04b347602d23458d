"""PyTorch's parameter names for every function of ``strided.torch`` and every method of Array.

A PyTorch program spells arguments by PyTorch's names (``torch.matmul(input=a, other=b)``,
``x.view(size=(2, 3))``); strided's definitions are the standard's (``matmul(x1, x2, /)``).
One table, ``_torch_parameters`` (generated offline from PyTorch 2.13's own signatures by
``docs/_tools/gen_torch_parameters.py``; torch is never imported here), holds each name's
overloads as (positional names, keyword-only names). One binding step, ``named``, gives a
callable those names, in the cheapest form its kind allows:

- it already accepts them (``torch.sum``, declared with PyTorch's signature): itself;
- a Python function whose positional parameters PyTorch names otherwise, or takes
  positionally only (``def call(input, /, *, out=None)``, ``def call(a, b, /, ...)``): the
  same function under PyTorch's names (its code object with its parameters renamed and no
  ``/``). Positional calls run the very same code: no frame, no test;
- anything else (a compiled entry point, a name no renaming can give, as a second
  overload's): a door that binds only a call with keywords (``bind``) and passes any
  other call on as it came -- compiled (``_chot.Keywords``, _csrc/_chot/keywords.c: one
  vectorcall, no Python frame), or a Python wrapper where strided runs without its C.

``bind`` picks the first overload whose positional names take the call's keywords the
callable lacks, and passes those arguments positionally (PyTorch's binding is by position
too); a keyword neither PyTorch nor the callable has raises TypeError naming the function.

Invariants: a call spelled with PyTorch's keywords binds to the arguments of the same call
spelled positionally; a positional call reaches the same code as before.
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import types

from ._torch_parameters import FFT, FUNCTIONAL, FUNCTIONS, LINALG, METHODS, SPECIAL  # noqa: F401

_P = inspect.Parameter
_POSITIONAL = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
_KEYWORD = (_P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY)
_NO = _P.empty


def _signature(f):
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        return None


def _keywords(f, skip: int) -> frozenset | None:
    """The names ``f`` takes by keyword; None: any name, or no signature to read. A Python
    function's own code says (its ``**kwargs`` adds the names of what it wraps, or of the
    signature it declares; without either, any name); any other callable's signature."""
    if type(f) is types.FunctionType:
        code = f.__code__
        n = code.co_argcount + code.co_kwonlyargcount
        own = frozenset(code.co_varnames[builtins.max(code.co_posonlyargcount, skip):n])
        if not code.co_flags & inspect.CO_VARKEYWORDS:
            return own
        inner = f.__dict__.get("__wrapped__")
        if inner is not None:
            rest = _keywords(inner, skip)
        elif "__signature__" in f.__dict__:
            rest = _declared(f.__signature__, skip)  # (what it declares it takes)
        else:
            return None
        return None if rest is None else own | rest
    sig = _signature(f)
    return None if sig is None else _declared(sig, skip)


def _declared(sig, skip: int) -> frozenset | None:
    ps = list(sig.parameters.values())[skip:]
    if any(p.kind is _P.VAR_KEYWORD for p in ps):
        return None
    return frozenset(p.name for p in ps if p.kind in _KEYWORD)


def _spellable(name: str) -> bool:
    """A name a parameter can have (not ``from``, ``Tensor.random_``'s, a Python keyword)."""
    return name.isidentifier() and not keyword.iskeyword(name)


def _position_names(overloads) -> list:
    """Position i -> the name the first overload with an i-th positional parameter gives it."""
    names: list = []
    for pos, _ in overloads:
        names.extend(pos[len(names):])
    return names


def _renamed(f, names: list, skip: int, wanted: set):
    """``f`` (a Python function) with its positional parameters after ``skip`` named as
    ``names`` and none positional-only; None where renaming is not safe (a parameter a
    caller may name already, a name taken, a parameter a closure captures) or changes
    nothing. A method's positional-only parameters only: no call spelled before changes; a
    namespace function's others too (the renamed function is ``strided.torch``'s alone,
    ``strided``'s own keeps its names), unless the old name is one of PyTorch's."""
    if type(f) is not types.FunctionType:
        return None
    code = f.__code__
    npos = code.co_argcount
    varnames = list(code.co_varnames)
    k = min(npos, skip + len(names))
    changed = code.co_posonlyargcount > skip
    for i in range(skip, k):
        new = names[i - skip]
        if varnames[i] == new:
            continue
        if not _spellable(new) or (i >= code.co_posonlyargcount and (skip or varnames[i] in wanted)):
            # (a method's parameter callers may name, or one of PyTorch's names: kept; the
            # door binds PyTorch's)
            return None
        if new in varnames or new in code.co_cellvars or new in code.co_freevars or varnames[i] in code.co_cellvars:
            return None
        varnames[i] = new
        changed = True
    if not changed:
        return None
    if code.co_posonlyargcount > k:
        return None  # (a positional-only parameter past those PyTorch names)
    g = types.FunctionType(code.replace(co_varnames=tuple(varnames), co_posonlyargcount=min(skip, npos)),
                           f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    g.__kwdefaults__ = f.__kwdefaults__
    g.__dict__.update(f.__dict__)
    g.__qualname__, g.__module__, g.__doc__ = f.__qualname__, f.__module__, f.__doc__
    g.__annotations__ = dict(f.__annotations__)
    sig = _signature(f)  # (what inspect showed, as its wrapped function's or declared: renamed too)
    if sig is not None:
        ps = list(sig.parameters.values())
        for i, p in enumerate(ps):
            if skip <= i < k and p.kind in _POSITIONAL:
                ps[i] = p.replace(name=names[i - skip], kind=_P.POSITIONAL_OR_KEYWORD)
        try:
            g.__signature__ = sig.replace(parameters=ps)
        except ValueError:
            g.__dict__.pop("__signature__", None)
    return g


class _Binding:
    """How a call with keywords reaches a callable that lacks some of PyTorch's names."""

    __slots__ = ("name", "overloads", "accepts", "defaults", "skip", "theirs")

    def __init__(self, name, f, overloads, skip):
        self.name = name
        self.overloads = overloads
        self.skip = skip
        self.accepts = _keywords(f, skip)
        self.theirs = frozenset(k for pos, kw in overloads for k in pos + kw)  # (PyTorch's names)
        sig = _signature(f)
        ps = [p for p in sig.parameters.values()][skip:] if sig is not None else []
        # (position -> the callable's default there, to fill a gap before a later keyword)
        self.defaults = [p.default for p in ps if p.kind in _POSITIONAL]

    def bind(self, args: tuple, kwargs: dict) -> tuple:
        accepts, theirs = self.accepts, self.theirs
        # (a keyword that is none of PyTorch's names goes on as it came: the callable's own,
        # ``keepdims=``, or the callable's own TypeError)
        foreign = [k for k in kwargs if accepts is not None and k not in accepts and k in theirs]
        if not foreign:
            return args, kwargs
        n = len(args) - self.skip
        # (the overload that takes every one of PyTorch's keywords the call gives -- as
        # PyTorch's overload resolution: ``std(x, dim=0, unbiased=True)`` is the dim overload,
        # not ``std(input, unbiased)``; of those, the one that places them earliest;
        # keyword-only names stay keywords)
        given = [k for k in kwargs if k in theirs]
        best = None
        for pos, kwonly in self.overloads:
            if all(k in pos or k in kwonly for k in given):
                moved = [k for k in foreign if k in pos and k not in kwonly]
                last = builtins.max((pos.index(k) for k in moved), default=-1)
                if best is None or last < best[0]:
                    best = (last, pos, moved)
        if best is None:
            # (no overload of PyTorch's takes these keywords together, ``std(x, unbiased=True,
            # correction=1)``: the callable's own error says what is wrong)
            return args, kwargs
        last, pos, moved = best
        if not moved:
            return args, kwargs
        for k in moved:
            if pos.index(k) < n:
                raise TypeError(f"{self.name}() got multiple values for argument {k!r}")
        kwargs = dict(kwargs)
        args = list(args)
        for j in range(n, last + 1):
            if pos[j] in kwargs:
                args.append(kwargs.pop(pos[j]))
            elif j < len(self.defaults) and self.defaults[j] is not _NO:
                args.append(self.defaults[j])
            else:
                raise TypeError(f"{self.name}() missing required argument {pos[j]!r}")
        return tuple(args), kwargs


def _wrapper(name, f, overloads, skip):
    binding = _Binding(name, f, overloads, skip)
    bind = binding.bind

    def call(*args, **kwargs):
        if kwargs:
            args, kwargs = bind(args, kwargs)
        return f(*args, **kwargs)

    for a in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            setattr(call, a, getattr(f, a))
        except (AttributeError, TypeError):
            pass
    call.__wrapped__ = f
    sig = _signature(f)
    if sig is not None:
        # (shown: the names every overload gives a position; where they differ, the callable's)
        names = _position_names(overloads)
        names = [k if all(len(pos) <= j or pos[j] == k for pos, _ in overloads) else None
                 for j, k in enumerate(names)]
        ps = list(sig.parameters.values())
        j = 0
        for i, p in enumerate(ps):
            if i >= skip and p.kind in _POSITIONAL and j < len(names):
                if names[j] is not None and (names[j] not in sig.parameters or names[j] == p.name) \
                        and _spellable(names[j]):
                    ps[i] = p.replace(name=names[j], kind=_P.POSITIONAL_OR_KEYWORD)
                j += 1
        try:
            call.__signature__ = sig.replace(parameters=ps)
        except ValueError:
            pass
    call._keyword_binding = binding
    from .._core.dispatch import CHOT
    keywords = getattr(CHOT, "Keywords", None)
    if keywords is None:
        return call
    # (compiled: a call without keywords goes to ``f`` itself, by one vectorcall, no frame)
    door = keywords(f, call, binding.accepts)
    for a in ("__module__", "__name__", "__qualname__", "__doc__", "__signature__", "_keyword_binding"):
        if a in call.__dict__ or hasattr(call, a):
            setattr(door, a, getattr(call, a))
    return door


def named(name: str, f, overloads, skip: int = 0):
    """``f`` (the function or method ``name``; ``skip``: 1 for a method's ``self``) taking
    PyTorch's names of ``overloads`` (the module's docstring); ``f`` itself if it does."""
    if not callable(f) or isinstance(f, type) or getattr(f, "_unnamed", None) is not None:
        return f
    wanted = {k for pos, _ in overloads for k in pos}
    original = f
    # (a wrapper's positional-only parameters, ``call(a, b, /, **kwargs)``, take no keyword
    # whatever the function it wraps takes)
    posonly = type(f) is types.FunctionType and f.__code__.co_posonlyargcount > skip
    if not posonly and _takes(f, skip, wanted):
        return f
    g = _renamed(f, _position_names(overloads), skip, wanted)
    if g is None or not _takes(g, skip, wanted):
        g = _wrapper(name, g or f, overloads, skip)
    g._unnamed = original
    return g


def _takes(f, skip: int, wanted: set) -> bool:
    accepts = _keywords(f, skip)
    return accepts is None or wanted <= accepts


def unnamed(f):
    """The callable ``named`` gave PyTorch's names (``f`` itself if it made nothing)."""
    return getattr(f, "_unnamed", f)


def install(namespace: dict, table: dict, module: str | None = None) -> None:
    """Give each function of ``namespace`` (a module's globals) named in ``table`` PyTorch's
    names; the new callables are the namespace's own (``module``: pickled by reference there)."""
    for name, overloads in table.items():
        f = namespace.get(name)
        if f is None:
            continue
        g = named(name, f, overloads)
        if g is not f:
            if module is not None:
                g.__module__, g.__qualname__ = module, name
            namespace[name] = g


def install_methods(cls) -> None:
    """Give each method of ``cls`` (Array) named in ``METHODS`` PyTorch's names (once)."""
    for name, overloads in METHODS.items():
        if name.startswith("__"):
            continue
        f = cls.__dict__.get(name)
        if f is None or isinstance(f, (property, staticmethod, classmethod)):
            continue
        g = named(name, f, overloads, skip=1)
        if g is not f:
            setattr(cls, name, g)
