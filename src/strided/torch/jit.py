"""``strided.torch.jit``: the TorchScript words eager code reads, with PyTorch's eager meaning.

strided has no TorchScript compiler. What library code written for PyTorch asks of
``torch.jit`` while running eagerly is answered as PyTorch answers it outside a script:

- ``is_scripting()`` and ``is_tracing()`` are False (nothing here is ever scripted or
  traced), so the eager branch of ``if torch.jit.is_scripting(): ...`` runs, as in PyTorch;
- ``annotate(type, value)`` is ``value``; ``Final`` is ``typing.Final``;
- the decorators ``ignore`` (with or without ``drop=``), ``unused``, ``export`` and
  ``interface`` return what they decorate: eagerly a decorated function or method runs
  unchanged, as in PyTorch.

Compiling is refused by name: ``script``, ``trace``, ``trace_module``, ``freeze``,
``optimize_for_inference``, ``save`` and ``load`` raise ``NotImplementedError`` (a scripted
or traced function is a different program -- a trace replays one path of the control flow
-- so running the Python function in its place would not mean what PyTorch means).

>>> import strided.torch as torch
>>> torch.jit.is_scripting(), torch.jit.annotate(list, [1])
(False, [1])
>>> @torch.jit.ignore
... def helper(x):
...     return x + 1
>>> helper(torch.tensor([1.0]))
tensor([2.])
"""

from __future__ import annotations

import typing as _typing
import warnings as _warnings

from .._core.caller import stacklevel

__all__ = ["Final", "annotate", "export", "freeze", "ignore", "interface", "is_scripting", "is_tracing",
           "load", "optimize_for_inference", "save", "script", "trace", "trace_module", "unused"]

Final = _typing.Final


def is_scripting() -> bool:
    """False: strided runs every function eagerly (PyTorch's answer outside a script)."""
    return False


def is_tracing() -> bool:
    """False: strided never traces (PyTorch's answer outside ``torch.jit.trace``)."""
    return False


def annotate(the_type, the_value):
    """``the_value`` (a type hint for the TorchScript compiler; eagerly, PyTorch returns the value)."""
    return the_value


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` / ``@torch.jit.ignore(drop=True)``: the function, unchanged (the
    compiler would leave it to Python; eagerly it runs as written). ``drop=True`` and
    ``drop_on_export=True`` give PyTorch's FutureWarning (deprecated: ``unused``)."""
    if callable(drop):  # used bare: @torch.jit.ignore
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if kwargs:
        raise TypeError(f"ignore() got an unexpected keyword argument {next(iter(kwargs))!r}")
    if drop_on_export:
        _warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now drop the function "
                       "call on compilation. Use torch.jit.unused now. {}", FutureWarning, stacklevel=stacklevel())
    elif drop:
        _warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                       "call on compilation. Use torch.jit.unused now. {}", FutureWarning, stacklevel=stacklevel())
    return lambda fn: fn


def unused(fn):
    """``@torch.jit.unused``: the function (or property), unchanged (a script would raise in its place)."""
    return fn


def export(fn):
    """``@torch.jit.export``: the method, unchanged (it marks a method for compilation)."""
    return fn


def interface(obj):
    """``@torch.jit.interface``: the class, unchanged (a TorchScript interface type)."""
    if not isinstance(obj, type):
        raise RuntimeError("interface must be applied to a class")
    return obj


def _refuse(name):
    def refused(*args, **kwargs):
        raise NotImplementedError(
            f"torch.jit.{name}: strided has no TorchScript compiler; run the function or module "
            "eagerly instead (strided.torch.compile returns it unchanged)")
    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = f"Raises NotImplementedError: strided does not compile TorchScript ({name})."
    return refused


script = _refuse("script")
trace = _refuse("trace")
trace_module = _refuse("trace_module")
freeze = _refuse("freeze")
optimize_for_inference = _refuse("optimize_for_inference")
save = _refuse("save")
load = _refuse("load")
