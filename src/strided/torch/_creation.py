"""PyTorch's spellings of the creation functions: ``zeros``, ``ones`` and ``empty`` take the
shape as ``*size``, one sequence, or ``size=`` (``torch.zeros(size=(2, 3))``), and ``full``'s
first parameter is ``size``; ``arange(start=0, end, step=1)``, ``linspace(start, end, steps)``
and ``eye(n, m=None)`` take PyTorch's parameter names (``torch.linspace(0, 1, steps=5)``,
``torch.arange(end=5)``, ``torch.eye(3, m=2)``: the standard's are ``stop``, ``num`` and
``n_cols``); every factory takes ``layout=`` and ``pin_memory=`` (``_layouts.check_factory``).
Each calls strided's own function (the same result, dtype, device and errors); only the
keywords are PyTorch's. A size given twice (positionally and as ``size=``), or a ``size``
that is not a sequence of ints, is PyTorch's TypeError.
"""

from __future__ import annotations

import math

import sys

from .._core.layout import ArgumentError as _ArgumentError
from ._layouts import check_factory
from ._random import _UNSET, _size_keyword

__all__ = ["zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like",
           "arange", "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm", "rand_like",
           "randn_like", "randint_like", "normal"]


def _ns():
    return sys.modules["strided"]


def zeros(*sizes, size=_UNSET, shape=_UNSET, dtype=None, layout=None, device=None, out=None, requires_grad=False,
          names=None, pin_memory=False):
    """An array of zeros: ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``."""
    check_factory("zeros", layout, pin_memory)
    return _ns().zeros(*_sizes("zeros", sizes, size, shape), dtype=dtype, device=device, out=out,
                       requires_grad=requires_grad, names=names)


def ones(*sizes, size=_UNSET, shape=_UNSET, dtype=None, layout=None, device=None, out=None, requires_grad=False,
         names=None, pin_memory=False):
    """An array of ones: ``ones(2, 3)``, ``ones((2, 3))`` or ``ones(size=(2, 3))``."""
    check_factory("ones", layout, pin_memory)
    return _ns().ones(*_sizes("ones", sizes, size, shape), dtype=dtype, device=device, out=out,
                      requires_grad=requires_grad, names=names)


def empty(*sizes, size=_UNSET, shape=_UNSET, dtype=None, layout=None, device=None, out=None, requires_grad=False,
          names=None, pin_memory=False):
    """An uninitialised array: ``empty(2, 3)``, ``empty((2, 3))`` or ``empty(size=(2, 3))``."""
    check_factory("empty", layout, pin_memory)
    return _ns().empty(*_sizes("empty", sizes, size, shape), dtype=dtype, device=device, out=out,
                       requires_grad=requires_grad, names=names)


def full(size, fill_value, *, dtype=None, layout=None, device=None, out=None, requires_grad=False, names=None,
         pin_memory=False):
    """An array of shape ``size`` filled with ``fill_value`` (``full((2, 3), 1.5)``,
    ``full(size=(2, 3), fill_value=1.5)``); the dtype is inferred from the scalar by default."""
    check_factory("full", layout, pin_memory)
    return _ns().full(size, fill_value, dtype=dtype, device=device, out=out,
                      requires_grad=requires_grad, names=names)


def _sizes(func: str, sizes: tuple, size, shape) -> tuple:
    """The positional sizes, with ``size=`` (PyTorch's) or ``shape=`` (strided's) folded in."""
    if shape is not _UNSET:  # (strided's own keyword, taken as strided.zeros takes it)
        if size is not _UNSET:
            raise TypeError(f"{func}() got both size= and shape= (the same argument); give one")
        if sizes:
            raise TypeError(f"{func}() got multiple values for argument 'shape'")
        return (shape,)
    if not sizes and size is _UNSET:
        # (PyTorch's: the size is required; a 0-d array is zeros(()))
        raise TypeError(f'{func}() missing 1 required positional arguments: "size"')
    return sizes if size is _UNSET else _size_keyword(func, sizes, size)


def _install_like():
    from . import _memory_format
    g = globals()
    for name in ("zeros_like", "ones_like", "empty_like", "full_like"):
        g[name] = _memory_format.like(name, getattr(_ns(), name))


_install_like()


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False, names=None):
    """PyTorch's ``torch.arange(end)`` / ``arange(start, end, step=1)``: ``start, start + step, ...``
    below ``end`` (int64 for integer arguments, else the default float dtype)."""
    check_factory("arange", layout, pin_memory)
    if end is None:
        start, end = 0, start
    start, end, step = _arange_bounds(start, end, step, dtype)
    if not step:  # (float bounds into an integer dtype whose step truncates to 0: n copies of start)
        return _ns().full((end,), start, dtype=dtype, device=device, out=out, requires_grad=requires_grad,
                          names=names)
    return _ns().arange(start, end, step, dtype=dtype, device=device, out=out, requires_grad=requires_grad,
                        names=names)


def _arange_bounds(start, end, step, dtype):
    """PyTorch's checks of ``arange``'s bounds (in double precision: a zero step, a
    non-finite bound, a step whose sign leads away from ``end`` raise RuntimeError), and its
    reading of float bounds into an integer dtype, as exact integers that strided's
    ``arange`` counts the same: every value is ``int(start) + int(step) * i``, the float
    bounds truncated first; there are ``ceil((end - start) / step)`` of them, in double, except
    into int64, where PyTorch counts in the truncated integers,
    ``(int(end) - int(start) + int(step) - sign) / int(step)``, and a step that truncates to
    zero raises. (Into another integer dtype such a step gives ``n`` copies of ``int(start)``:
    returned as ``(int(start), n, 0)``.)"""
    from .._core.array import Array
    vals = [v.item() if type(v) is Array and v.ndim == 0 else v for v in (start, end, step)]
    if not all(isinstance(v, (int, float)) for v in vals):
        return start, end, step  # (strided's arange names what is wrong)
    ds, de, dst = (float(v) for v in vals)
    if not dst:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(ds) and math.isfinite(de)):
        raise RuntimeError(f"unsupported range: {ds} -> {de}")
    if not ((dst > 0 and de >= ds) or (dst < 0 and de <= ds)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    from .._api.creation import _as_dtype
    dt = _as_dtype(dtype, "arange")
    if dt is None or dt.kind not in "iu" or all(type(v) is not float for v in vals):
        return start, end, step
    xs, xe, xst = (int(v) for v in vals)  # (C's truncation toward zero)
    if dt.name == "int64":
        if not xst:
            raise ValueError("step must be nonzero")  # (PyTorch's type here, measured)
        num = xe - xs + xst - (1 if xst > 0 else -1)
        n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)  # (C's division)
    else:
        n = math.ceil((de - ds) / dst)
    n = max(n, 0)
    return (xs, xs + xst * n, xst) if xst else (xs, n, 0)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             names=None):
    """PyTorch's ``torch.linspace(start, end, steps)``: ``steps`` evenly spaced values from
    ``start`` to ``end`` included."""
    check_factory("linspace", layout, False)
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise _ArgumentError("linspace(): number of steps must be non-negative")
    if dtype is not None and getattr(dtype, "kind", None) in ("b", "i", "u"):
        r = _integer_linspace(start, end, steps, dtype, device)
        if names is not None:
            r = r.refine_names(*names)
        if requires_grad:
            r.requires_grad_()  # (PyTorch's error: an integer array can't require grad)
        if out is None:
            return r
        from .._core.dispatch import _write_result
        return _write_result("linspace", out, r)
    return _ns().linspace(start, end, steps, dtype=dtype, device=device, out=out, requires_grad=requires_grad,
                          names=names)


def _integer_linspace(start, end, steps, dtype, device):
    """PyTorch's CPU ``linspace`` of an integer dtype: ``start`` and ``end`` truncated to it, a
    float64 ``step = (end - start) / (steps - 1)``, then ``start + step * i`` for the first half
    and ``end - step * (steps - 1 - i)`` for the rest, each truncated toward zero
    (``linspace(0, 10, 4, dtype=int64)`` is ``[0, 3, 6, 10]``), each value rounded once, as its
    fused multiply-add rounds it (measured: 2,500 random cases of five integer dtypes on PyTorch
    2.13, AVX-512). On every device (PyTorch's CUDA kernel takes a float32 step instead)."""
    import numpy as np
    if dtype.kind == "b":
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    info = np.iinfo(np.dtype(dtype.name))

    def scalar(v):
        # (c10's checked conversion: an int within the type's range, an unsigned type's also
        # down to -max, wrapping; a float within the range, truncated toward zero)
        v = v.item() if hasattr(v, "item") and not isinstance(v, (int, float, complex)) else v
        if isinstance(v, complex):
            raise RuntimeError(f"value cannot be converted to type {dtype.name}_t without overflow")
        if isinstance(v, int):
            ok = -info.max <= v <= info.max if info.min == 0 else info.min <= v <= info.max
            if ok:
                return v % (info.max + 1) if info.min == 0 else v
        elif not (v != v) and info.min <= v <= info.max:
            return int(v)
        raise RuntimeError(f"value cannot be converted to type {dtype.name}_t without overflow")
    if steps == 0:
        vals = np.array([], np.int64)
    elif steps == 1:
        vals = np.array([scalar(start)])
    else:
        lo, hi = scalar(start), scalar(end)
        step = (float(hi) - float(lo)) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        first = i < steps // 2
        vals = np.where(first, lo + step * i, hi - step * (steps - 1 - i))
        # (PyTorch's kernel is compiled to fused multiply-adds: each value is the exact
        # start + step * i rounded once; the float64 above rounds twice, which can only move
        # a value across an integer where it lies within a few ulps of one: those exactly)
        from fractions import Fraction
        fs, flo, fhi = Fraction(step), Fraction(float(lo)), Fraction(float(hi))
        for k in np.nonzero(np.abs(vals - np.round(vals)) <= 1e-9 * np.maximum(np.abs(vals), 1.0))[0]:
            k = int(k)
            vals[k] = float(flo + fs * k if first[k] else fhi - fs * (steps - 1 - k))
        vals = np.trunc(vals)
    return _ns().asarray(vals.astype(np.dtype(dtype.name)), dtype=dtype, device=device)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
        names=None):
    """PyTorch's ``torch.eye(n, m=None)``: ``n`` x ``m`` (``n`` x ``n``) with ones on the diagonal."""
    check_factory("eye", layout, pin_memory)
    return _ns().eye(n, m, dtype=dtype, device=device, out=out, requires_grad=requires_grad, names=names)


def _factory(name, base):
    """``base`` (a factory of strided's) with PyTorch's ``layout=`` and ``pin_memory=`` too."""
    import functools
    import inspect

    @functools.wraps(base)
    def f(*args, layout=None, pin_memory=False, **kwargs):
        check_factory(name, layout, pin_memory)
        return base(*args, **kwargs)
    P = inspect.Parameter
    params = list(inspect.signature(base).parameters.values())
    at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    params[at:at] = [P("layout", P.KEYWORD_ONLY, default=None), P("pin_memory", P.KEYWORD_ONLY, default=False)]
    f.__signature__ = inspect.Signature(params)
    f.__name__ = f.__qualname__ = name
    return f


def _install_factories():
    from . import _random
    g = globals()
    g["logspace"] = _factory("logspace", getattr(_ns(), "logspace"))
    for name in ("rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal"):
        g[name] = _factory(name, getattr(_random, name))


_install_factories()
