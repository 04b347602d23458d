"""PyTorch's keyword spellings, accepted by the namespace functions.

DESIGN (third round): "PyTorch's ``dim``/``keepdim``/``alpha`` are accepted wherever
PyTorch's twin takes them". ``TORCH_KEYWORDS`` is the one table: for each namespace
function whose PyTorch twin (``torch.<name>``, as its documented signature reads)
takes ``dim``, ``keepdim``, ``dims``, ``alpha`` or ``out`` and the function does not,
the keywords it accepts:

- ``dim``/``dims`` and ``keepdim`` stand for the standard's ``axis`` and ``keepdims``;
- ``alpha`` (``add``, ``subtract``) scales the second operand, as in PyTorch:
  ``add(x1, x2, alpha=a)`` is ``x1 + a * x2``;
- ``out`` writes the result into an existing array, as the standard functions'
  ``out=`` does (same shape; a dtype the result can be cast to).

Giving both spellings of one argument is a TypeError naming both. The standard's
names and defaults stay: ``strided.std(x, dim=0)`` is the population value, as
``strided.std(x, axis=0)`` (docs/torch-differences.md lists what differs).

How: ``accepting(name, fn)`` returns ``fn`` made to take them; ``strided/__init__``
applies it to the namespace (``install``), ``_api.elementwise`` to its rows, and the
dispatch chain's head translates them (``translate``) so that extensions see the
standard's names. Where only renamed keywords are involved and ``fn`` is a
module-level function, the result is ``fn``'s own definition compiled again with
the PyTorch keywords added as keyword-only parameters: no extra call, so the compiled
hot path, which calls the definition directly, pays two identity tests (a wrapper
adds a Python frame: +17% on ``xp.sum`` of a 10-element array). Otherwise a wrapper
translates.
"""

from __future__ import annotations

import __future__
import ast
import builtins
import functools
import inspect
import sys
import textwrap
import types

# The standard's name of each renamed PyTorch keyword.
RENAMED = {"dim": "axis", "dims": "axis", "keepdim": "keepdims"}

_DK = ("dim", "keepdim")
TORCH_KEYWORDS: dict[str, tuple] = {
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
    # torch.add(input, other, *, alpha=1, out=None)
    "add": ("alpha",), "subtract": ("alpha",),
    # out= where PyTorch's twin has one and the function does not
    "clamp": ("out",), "cross": ("out",), "gather": ("out",), "index_select": ("out",),
    "inverse": ("out",), "kron": ("out",), "lerp": ("out",), "logsumexp": ("out",),
    "masked_select": ("out",), "addmm": ("out",), "baddbmm": ("out",),
    "logspace": ("out",),
    # ... and where it returns a pair, out= is a pair: torch.topk(..., out=(values, indices))
    "topk": ("out",), "std_mean": ("out",), "var_mean": ("out",), "histogram": ("out",),
}


def _both(name: str, std: str, torch_kw: str) -> TypeError:
    return TypeError(f"{name}() got both {std}= and {torch_kw}= ({torch_kw} is PyTorch's name for "
                     f"{std}); give one")


def translate(name: str, kwargs: dict) -> dict:
    """``kwargs`` with PyTorch's renamed keywords of ``name`` spelled as the standard's."""
    for k in TORCH_KEYWORDS.get(name, ()):
        std = RENAMED.get(k)
        if std is not None and k in kwargs:
            if std in kwargs:
                raise _both(name, std, k)
            kwargs = dict(kwargs)
            kwargs[std] = kwargs.pop(k)
    return kwargs


def scaled(name: str, x1, x2, alpha):
    """``x2 * alpha`` for ``add``/``subtract`` (PyTorch's rule: an integer ``alpha`` for
    integer operands)."""
    if alpha == 1:
        return x2
    ns = sys.modules["strided"]
    ints = "biu"

    def kind(v):
        return v._dtype.kind if type(v).__name__ == "Array" else (
            "f" if isinstance(v, builtins.float) else "c" if isinstance(v, builtins.complex) else "i")
    if isinstance(alpha, builtins.float) and kind(x1) in ints and kind(x2) in ints:
        raise TypeError(f"{name}(): alpha must be an integer for integer arrays; got {alpha!r}")
    return ns.multiply(x2, alpha) if type(x2).__name__ == "Array" else x2 * alpha


def accepting(name: str, fn):
    """``fn`` (the Python definition of namespace function ``name``) taking PyTorch's
    keywords of ``TORCH_KEYWORDS[name]``; ``fn`` itself when it has none."""
    keywords = TORCH_KEYWORDS.get(name)
    if not keywords or getattr(fn, "_torch_keywords", None) is not None:
        return fn
    renamed = {k: RENAMED[k] for k in keywords if k in RENAMED}
    extra = [k for k in keywords if k not in RENAMED]
    g = None
    if "out" not in extra:  # (out= post-processes the result: a wrapper)
        g = _recompiled(name, fn, renamed, alpha="alpha" in extra)
    if g is None:
        g = _wrapper(name, fn, renamed, extra)
    g._torch_keywords = keywords
    spelled = ", ".join(f"``{k}``" + (f" (``{RENAMED[k]}``)" if k in RENAMED else "") for k in keywords)
    if g.__doc__ and "PyTorch's spellings" not in g.__doc__:
        g.__doc__ = g.__doc__.rstrip() + f"\n\nPyTorch's spellings accepted too: {spelled}.\n"
    return g


def _wrapper(name, fn, renamed, extra):
    """A Python wrapper: renamed keywords translated, ``alpha`` and ``out`` applied."""
    alpha = "alpha" in extra
    out_kw = "out" in extra

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            if renamed:
                kwargs = translate(name, kwargs)
            if alpha and "alpha" in kwargs:
                kwargs = dict(kwargs)
                a = kwargs.pop("alpha")
                if len(args) == 2:
                    args = (args[0], scaled(name, args[0], args[1], a))
            if out_kw and "out" in kwargs:
                kwargs = dict(kwargs)
                out = kwargs.pop("out")
                r = fn(*args, **kwargs)
                if out is None:
                    return r
                return _write(name, out, r)
        return fn(*args, **kwargs)
    return call


def _write(name: str, out, r):
    """``r`` written into ``out`` (a pair of arrays where ``r`` is a pair), returned as ``out``."""
    from .dispatch import write_out

    if isinstance(r, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(r):
            raise TypeError(f"{name}(): out must be a tuple of {len(r)} arrays (the result is); "
                            f"got {type(out).__name__}")
        written = tuple(write_out(f"{name}()", o, v) for o, v in zip(out, r))
        return type(r)(*written) if hasattr(r, "_fields") else written
    return write_out(f"{name}()", out, r)


_HELPER = "_torch_scaled_"  # the name ``scaled`` has inside a recompiled function (a closure cell)


def _recompiled(name, fn, renamed: dict, alpha: bool = False):
    """``fn``'s definition compiled again with PyTorch's keywords added as keyword-only
    parameters: ``renamed``'s (default ``...``, "not given") stand in for the standard's,
    ``alpha`` (default 1) scales the second operand. None where that can't be done (no
    source; a signature without the standard's parameter).

    The definition is compiled inside a function that holds ``fn``'s free variables
    (and ``scaled``), and the new function gets ``fn``'s own closure cells: a function
    made inside another (an elementwise row) is recompiled as well as a module-level one.
    """
    code = getattr(fn, "__code__", None)
    if type(fn) is not types.FunctionType:
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    fdef = tree.body[0] if len(tree.body) == 1 else None
    if type(fdef) is not ast.FunctionDef or fdef.name != code.co_name:
        return None
    ast.increment_lineno(tree, first - 1)
    fdef.decorator_list = []
    a = fdef.args
    positional = a.posonlyargs + a.args
    free = set(code.co_freevars)
    defaults = a.defaults + [d for d in a.kw_defaults if d is not None]
    if any(type(n) is ast.Name and n.id in free for d in defaults for n in ast.walk(d)):
        return None  # a default that reads a free variable: not evaluated here
    prologue = []
    for torch_kw, std in renamed.items():
        if any(p.arg == torch_kw for p in positional + a.kwonlyargs):
            return None
        # The standard's parameter: its default moves into the body, "..." marks it not given.
        for i, p in enumerate(a.kwonlyargs):
            if p.arg == std:
                default, a.kw_defaults[i] = a.kw_defaults[i], ast.Constant(...)
                break
        else:
            idx = [i for i, p in enumerate(positional) if p.arg == std]
            if not idx:
                return None
            j = idx[0] - (len(positional) - len(a.defaults))
            if j >= 0:
                default, a.defaults[j] = a.defaults[j], ast.Constant(...)
            elif j == -1:  # required, the last such: given a default, checked below
                default = None
                a.defaults.insert(0, ast.Constant(...))
            else:
                return None
        a.kwonlyargs.append(ast.arg(arg=torch_kw))
        a.kw_defaults.append(ast.Constant(...))
        missing = (f"raise TypeError(\"{name}() missing required argument '{std}'\")"
                   if default is None else f"{std} = {ast.unparse(default)}")
        prologue += ast.parse(textwrap.dedent(f"""\
            if {torch_kw} is not ...:
                if {std} is not ...:
                    raise TypeError({str(_both(name, std, torch_kw))!r})
                {std} = {torch_kw}
            elif {std} is ...:
                {missing}
            """)).body
    if alpha:
        if len(positional) < 2 or any(p.arg == "alpha" for p in positional + a.kwonlyargs):
            return None
        x1, x2 = positional[0].arg, positional[1].arg
        a.kwonlyargs.append(ast.arg(arg="alpha"))
        a.kw_defaults.append(ast.Constant(1))
        prologue += ast.parse(f"if alpha != 1:\n    {x2} = {_HELPER}({name!r}, {x1}, {x2}, alpha)").body
    line = fdef.body[0].lineno
    for stmt in prologue:
        for node in ast.walk(stmt):
            if hasattr(node, "lineno"):
                node.lineno = node.end_lineno = line
                node.col_offset = node.end_col_offset = 0
    body = fdef.body
    doc = 1 if body and type(body[0]) is ast.Expr and type(getattr(body[0], "value", None)) is ast.Constant \
        and isinstance(body[0].value.value, str) else 0
    fdef.body = body[:doc] + prologue + body[doc:]
    # def __outer(): <free variables> = None; def fn(...): ...; return fn
    cells = sorted(free | ({_HELPER} if alpha else set()))
    outer = ast.FunctionDef(
        name="__outer", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                           defaults=[]),
        body=[ast.Assign(targets=[ast.Name(id=c, ctx=ast.Store())], value=ast.Constant(None))
              for c in cells] + [fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[], returns=None)
    module = ast.Module(body=[outer], type_ignores=[])
    ast.fix_missing_locations(module)
    flags = code.co_flags & __future__.annotations.compiler_flag
    compiled = compile(module, code.co_filename, "exec", flags=flags, dont_inherit=True)
    scope: dict = {}
    exec(compiled, fn.__globals__, scope)
    made = scope["__outer"]()
    by_name = dict(zip(code.co_freevars, fn.__closure__ or ()))
    if alpha:
        by_name[_HELPER] = types.CellType(scaled)
    if not set(made.__code__.co_freevars) <= set(by_name):
        return None
    g = types.FunctionType(made.__code__, fn.__globals__, fn.__name__, made.__defaults__,
                           tuple(by_name[c] for c in made.__code__.co_freevars) or None)
    g.__kwdefaults__ = made.__kwdefaults__
    g.__module__, g.__qualname__, g.__doc__ = fn.__module__, fn.__qualname__, fn.__doc__
    g.__annotations__ = fn.__annotations__
    g.__dict__.update(fn.__dict__)
    g.__signature__ = inspect.signature(fn)  # the standard's signature (the spellings are extra)
    g.__wrapped__ = fn
    return g


def install(namespace: dict) -> None:
    """Give the namespace functions of ``TORCH_KEYWORDS`` PyTorch's keywords (plain Python
    functions and ``api`` functions; the elementwise rows get theirs when built)."""
    from . import dispatch

    for name in TORCH_KEYWORDS:
        obj = namespace.get(name)
        if obj is None or getattr(obj, "_torch_keywords", None) is not None:
            continue
        api_name = getattr(obj, "_api_name", None)
        if api_name is not None and getattr(obj, "__wrapped__", None) is getattr(obj, "_impl", None):
            # an ``api`` function: its definition, re-dressed
            new = dispatch.api(api_name)(accepting(name, obj._impl))
        elif type(obj) is types.FunctionType:
            new = accepting(name, obj)
        else:
            continue
        module = sys.modules.get(getattr(obj, "__module__", ""), None)
        for k, v in list(namespace.items()):
            if v is obj:
                namespace[k] = new
        if module is not None and getattr(module, name, None) is obj:
            setattr(module, name, new)  # (pickled by reference: found where it's defined)
