"""PyTorch-style repr: aligned nested brackets, summarised when large."""

from __future__ import annotations

import numpy as np

from . import _dtypes
from ._array import _LATE, Array

_DEFAULT_SHOWN = {"int64", "bool"}


def _hidden_dtype(d) -> bool:
    if d.name in _DEFAULT_SHOWN:
        return True
    return d is _dtypes.get_default_dtype() or d is _dtypes.default_complex()


def _all_integral(a: np.ndarray) -> bool:
    finite = a[np.isfinite(a)]
    return bool(finite.size) and bool(np.all(finite == np.round(finite))) and float(np.abs(finite).max()) < 1e8


def array_repr(x: Array) -> str:
    a = x._host()
    prefix = "tensor("
    kw = dict(separator=", ", prefix=prefix, threshold=1000, edgeitems=3, precision=4,
              suppress_small=False, max_line_width=80)
    if a.dtype.kind == "f":
        # PyTorch prints "4." when every value is integral, else 4 fixed decimals.
        kw["floatmode"] = "fixed"
        kw["precision"] = 0 if _all_integral(a) else 4
    if a.size == 0:
        body = "[]" if a.ndim == 1 else f"size={tuple(a.shape)}"
    else:
        body = np.array2string(a, **kw)
    extras = []
    if a.size == 0 and a.ndim != 1:
        extras.append(body)
        body = "[]"
    if x._device.type != "cpu":
        extras.append(f"device='{x._device}'")
    if not _hidden_dtype(x._dtype) or (a.size == 0 and x._dtype is not _dtypes.get_default_dtype()):
        extras.append(f"dtype=strided.{x._dtype.name}")
    ext = x._ext
    if ext is not None:
        if ext.names is not None and any(n is not None for n in ext.names):
            extras.append(f"names={tuple(ext.names)}")
        if ext.grad_fn is not None:
            extras.append(f"grad_fn=<{type(ext.grad_fn).__name__}>")
        elif ext.requires_grad:
            extras.append("requires_grad=True")
    tail = "".join(", " + e for e in extras)
    return f"{prefix}{body}{tail})"


_LATE["repr"] = array_repr
