"""PyTorch-style repr: aligned nested brackets, summarised when large.

A port of the rules of ``torch/_tensor_str.py`` (precision 4, threshold 1000,
edge items 3, line width 80): floats whose values are all integral print as
``4.``, otherwise with 4 decimals; scientific notation when the nonzero
magnitudes span more than 1000x, exceed 1e8, or (non-integral) fall below
1e-4. Formatting runs on the host copy of the (summarised) values only.
``set_printoptions`` (``strided.torch.set_printoptions``) changes the module's
options, read at each print.
"""

from __future__ import annotations

import math

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import _LATE, Array

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
SCI_MODE = None  # None: chosen from the values (PyTorch's rule); True/False: forced

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:
    """Set how arrays print (PyTorch's ``torch.set_printoptions``).

    ``precision`` digits after the point (4), ``threshold`` the element count
    above which a print is summarised (1000), ``edgeitems`` the items kept at
    each end of a summarised axis (3), ``linewidth`` the characters per line
    (80); ``profile`` ("default", "short", "full") sets all four first;
    ``sci_mode`` True/False forces or forbids scientific notation, None lets
    the values decide. Options left None keep their value (except
    ``sci_mode``, which is always set, as in PyTorch).

    >>> import strided as xp
    >>> from strided.torch import set_printoptions
    >>> set_printoptions(precision=2)
    >>> xp.asarray([1.2345, 2.0])
    tensor([1.23, 2.00])
    >>> set_printoptions(profile="default")
    """
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions(): profile must be one of "
                             f"{sorted(_PROFILES)}; got {profile!r}")
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = _PROFILES[profile]
    for name, v in (("precision", precision), ("edgeitems", edgeitems),
                    ("linewidth", linewidth)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise ValueError(f"set_printoptions(): {name} must be an int >= 0; got {v!r}")
    if threshold is not None and (isinstance(threshold, bool) or
                                  not isinstance(threshold, (int, float)) or threshold < 0):
        raise ValueError(f"set_printoptions(): threshold must be a number >= 0; got {threshold!r}")
    if precision is not None:
        PRECISION = precision
    if threshold is not None:
        THRESHOLD = threshold
    if edgeitems is not None:
        EDGEITEMS = edgeitems
    if linewidth is not None:
        LINEWIDTH = linewidth
    SCI_MODE = None if sci_mode is None else bool(sci_mode)


def get_printoptions() -> dict:
    """The current print options, as ``set_printoptions`` takes them.

    >>> from strided.torch import get_printoptions
    >>> get_printoptions()
    {'precision': 4, 'threshold': 1000, 'edgeitems': 3, 'linewidth': 80, 'sci_mode': None}
    """
    return {"precision": PRECISION, "threshold": THRESHOLD, "edgeitems": EDGEITEMS,
            "linewidth": LINEWIDTH, "sci_mode": SCI_MODE}


class _Formatter:
    """Chooses a common width and notation for every value of one array."""

    def __init__(self, a: np.ndarray):
        self.floating = a.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = a.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        vals = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if vals.size == 0:
            return
        absv = np.abs(vals)
        lo, hi = float(absv.min()), float(absv.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        if SCI_MODE is not None:
            self.sci_mode = SCI_MODE
        for v in vals.tolist():
            if self.sci_mode:
                w = len(f"{v:.{PRECISION}e}")
            elif self.int_mode:
                w = len(f"{v:.0f}") + 1
            else:
                w = len(f"{v:.{PRECISION}f}")
            self.max_width = max(self.max_width, w)

    def format(self, v) -> str:
        if self.floating:
            if self.sci_mode:
                s = f"{v:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    s += "."
            else:
                s = f"{v:.{PRECISION}f}"
        else:
            s = f"{v}"
        return (self.max_width - len(s)) * " " + s


def _summarized(a: np.ndarray) -> np.ndarray:
    """The values that a summarised print shows (edge items of every axis)."""
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        if a.shape[0] > 2 * EDGEITEMS:
            return np.concatenate((a[:EDGEITEMS], a[-EDGEITEMS:]))
        return a
    rows = range(a.shape[0])
    if a.shape[0] > 2 * EDGEITEMS:
        rows = list(range(EDGEITEMS)) + list(range(a.shape[0] - EDGEITEMS, a.shape[0]))
    return np.stack([_summarized(a[i]) for i in rows])


def _join_complex(real_str: str, imag_str: str) -> str:
    imag_str = (imag_str + "j").lstrip()
    if imag_str[0] in "+-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _vector(a, indent, summarize, f1, f2):
    element_length = f1.max_width + 2
    if f2 is not None:
        element_length += f2.max_width + 1
    per_line = max(1, (LINEWIDTH - indent) // element_length)

    def fmt(v):
        if f2 is not None:
            return _join_complex(f1.format(v.real), f2.format(v.imag))
        return f1.format(v)

    if summarize and a.shape[0] > 2 * EDGEITEMS:
        data = ([fmt(v) for v in a[:EDGEITEMS].tolist()] + [" ..."]
                + [fmt(v) for v in a[-EDGEITEMS:].tolist()])
    else:
        data = [fmt(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(a, indent, summarize, f1, f2):
    if a.ndim == 0:
        v = a.item()
        if f2 is not None:
            return _join_complex(f1.format(v.real), f2.format(v.imag))
        return f1.format(v)
    if a.ndim == 1:
        return _vector(a, indent, summarize, f1, f2)
    n = a.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        slices = ([_tensor_str(a[i], indent + 1, summarize, f1, f2) for i in range(EDGEITEMS)]
                  + ["..."]
                  + [_tensor_str(a[i], indent + 1, summarize, f1, f2) for i in range(n - EDGEITEMS, n)])
    else:
        slices = [_tensor_str(a[i], indent + 1, summarize, f1, f2) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _host_values(x: Array):
    """The host copy a print needs, and whether it is summarised. A large array is
    first cut down, on its own device, to the edge items of every long axis (plus
    one filler where "..." goes), so that only those are copied to the host."""
    a = x._get_native()
    summarize = a.size > THRESHOLD
    if summarize:
        xp = x._device.backend.xp
        for ax, n in enumerate(a.shape):
            if n > 2 * EDGEITEMS:
                head = (slice(None),) * ax + (slice(0, EDGEITEMS + 1),)
                tail = (slice(None),) * ax + (slice(n - EDGEITEMS, n),)
                a = xp.concatenate((a[head], a[tail]), axis=ax)
    return x._device.backend.to_host(a), summarize


def _body(a: np.ndarray, indent: int, summarize: bool) -> str:
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    shown = _summarized(a) if summarize else a
    if a.dtype.kind == "c":
        return _tensor_str(a, indent, summarize, _Formatter(shown.real), _Formatter(shown.imag))
    return _tensor_str(a, indent, summarize, _Formatter(shown), None)


def _add_suffixes(text: str, suffixes: list, indent: int) -> str:
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


# Whole reprs that other modules own, tried in order before the tensor's: each takes the array
# and returns its repr or None (``nn.parameter``: PyTorch's "Parameter containing:" heading;
# ``nn._lazy``: "<UninitializedParameter>"). Modules append theirs when imported.
REPR_OVERRIDES: list = []


def array_repr(x: Array) -> str:
    for override in REPR_OVERRIDES:
        r = override(x)
        if r is not None:
            return r
    return tensor_repr(x)


def tensor_repr(x: Array) -> str:
    """PyTorch's ``tensor(...)`` printout of ``x``, its values and suffixes."""
    prefix = "tensor("
    indent = len(prefix)
    d = x._dtype
    default = _dtypes.get_default_dtype()
    suffixes = []
    if x._device.type != "cpu":
        suffixes.append(f"device='{x._device}'")
    if 0 in x._shape:
        # Note: as PyTorch, an empty array shows its size unless 1-D, and its dtype
        # unless it is the default float (there are no values to infer it from).
        if len(x._shape) != 1:
            suffixes.append(f"size={tuple(x._shape)}")
        if d is not default:
            suffixes.append(f"dtype=strided.{d.name}")
        body = "[]"
    else:
        if d not in (default, _dtypes.default_complex(), _dtypes.int64, _dtypes.bool):
            suffixes.append(f"dtype=strided.{d.name}")
        values, summarize = _host_values(x)
        body = _body(values, indent, summarize)
    ext = x._ext
    if ext is not None:
        if ext.names is not None and any(n is not None for n in ext.names):
            suffixes.append(f"names={tuple(ext.names)}")
        if ext.grad_fn is not None:
            suffixes.append(f"grad_fn=<{type(ext.grad_fn).__name__}>")
        elif ext.requires_grad:
            suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


_LATE["repr"] = array_repr
