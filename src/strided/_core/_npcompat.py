"""Every private NumPy attribute strided reads, each behind its fallback.

NumPy's private names (``numpy._core...``, ``ufunc._get_strided_loop``, ``np._NoValue``)
move between releases without deprecation. strided reads them for speed or for exact
agreement with NumPy, never for correctness, so each one is read here, once, inside a
``try``; when NumPy no longer has it, the name below holds a fallback built on public
NumPy that computes the same values (more slowly, or without NumPy's tuning). The
invariant: ``import strided`` never fails because NumPy moved a private attribute,
and results are the same with or without it (tests/_core/test_npcompat.py deletes each
attribute in a subprocess before ``import strided`` and checks against NumPy).

Names (what strided reads -> the fallback):

- ``umath_clip``: ``numpy._core.umath.clip``, the clip ufunc without ``np.clip``'s
  Python wrapper -> ``minimum(maximum(a, lo), hi)`` with public ufuncs (NumPy's
  documented definition of clip).
- ``madvise_hugepage()``: ``numpy._core.multiarray._get_madvise_hugepage()``, whether
  NumPy advises huge pages for its large buffers (the C pool follows it) -> NumPy's own
  rule (``numpy/__init__.py``, ``hugepage_setup``): ``NUMPY_MADVISE_HUGEPAGE`` if set,
  else on for Linux >= 4.6 and elsewhere.
- ``errstate_var()``: ``numpy._core._ufunc_config._extobj_contextvar``, NumPy's
  error-state context variable (set directly: ~40 ns instead of ``np.errstate``'s
  ~1 us) -> None, and callers use ``np.errstate``.
- ``strided_loop_info(ufunc, dtype)``: ``ufunc._resolve_dtypes_and_context`` and
  ``ufunc._get_strided_loop`` (NumPy >= 1.24), NumPy's inner loop as a capsule that the
  C thread pool runs per chunk -> None, and callers call the ufunc.
- ``array_api()``: ``numpy._core._multiarray_umath._ARRAY_API`` (``numpy.core.multiarray``
  before NumPy 2), the capsule of NumPy's C API table that ``import_array()`` reads; the
  compiled take (``_chot``, views.c) makes its small results with the table's
  ``PyArray_NewFromDescr`` -> None, and that path calls ``numpy.empty``.
- ``count_nonzero``: ``numpy._core.multiarray.count_nonzero``, the count of every nonzero
  element that ``np.count_nonzero(a)`` (no axis, no keepdims) returns after its dispatcher
  and Python frame (strided's count of 10 elements: 9.2k -> 7.3k instructions a call)
  -> ``np.count_nonzero``.
- ``concatenate``: ``numpy.concatenate._implementation`` (NEP 18's name for a function
  without its ``__array_function__`` dispatch), for pieces strided made itself (ndarrays:
  nothing to dispatch to; the dispatcher looks at every piece first: 20.9k -> 19.6k
  instructions a strided concat of two 10-element vectors) -> ``np.concatenate``.
- ``NoValue``: ``numpy._NoValue`` (defined in ``numpy._globals``), the default NumPy's
  functions pass through ``__array_function__`` for an argument not given -> the
  default of ``np.sum``'s ``keepdims`` (that very object), else a sentinel of our own.

The C extensions read two more by name at run time, each guarded there:
``_chot.c`` and ``_ckernels.c`` call ``_resolve_dtypes_and_context`` and
``_get_strided_loop`` and check the capsule's name ("numpy_1.24_ufunc_call_info");
when either is missing or the capsule differs they decline and the Python path runs.
"""

from __future__ import annotations

import os
import sys

import numpy as np


def _attr(path: str):
    """The object at dotted ``path`` below ``numpy`` (imported as needed), or None."""
    import importlib

    parts = path.split(".")
    obj = np
    for i, part in enumerate(parts):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module("numpy." + ".".join(parts[:i + 1]))
            except ImportError:
                return None
    return obj


# --- clip ---------------------------------------------------------------------------

def _clip_fallback(a, lo, hi, out=None, **kwargs):
    """``numpy._core.umath.clip(a, lo, hi, out=)`` with public ufuncs:
    ``minimum(maximum(a, lo), hi)`` (NaN anywhere gives NaN, as clip)."""
    r = np.maximum(a, lo, out=out, **kwargs)
    return np.minimum(r, hi, out=r if out is None else out, **kwargs)


def _umath_clip():
    k = _attr("_core.umath.clip")
    return k if isinstance(k, np.ufunc) and k.nin == 3 else _clip_fallback


umath_clip = _umath_clip()


# --- count_nonzero ------------------------------------------------------------------

def _count_nonzero():
    k = _attr("_core.multiarray.count_nonzero")
    if not callable(k):
        return np.count_nonzero
    try:  # it must count as np.count_nonzero does (NaN counted, -0.0 not), of its type
        a = np.array([0.0, -0.0, np.nan, 2.0])[::-1]
        ok = k(a) == 2 and type(k(a)) is type(np.count_nonzero(a))
    except Exception:
        ok = False
    return k if ok else np.count_nonzero


count_nonzero = _count_nonzero()


# --- concatenate --------------------------------------------------------------------

def _concatenate():
    k = getattr(np.concatenate, "_implementation", None)
    if not callable(k):
        return np.concatenate
    try:  # it must be NumPy's concatenate: the same values and result
        a, b = np.arange(3.0), np.arange(2, dtype=np.int8)[::-1]
        ok = np.array_equal(k([a, b]), np.concatenate([a, b])) and k([a, b]).dtype == np.float64
    except Exception:
        ok = False
    return k if ok else np.concatenate


concatenate = _concatenate()


# --- huge pages ---------------------------------------------------------------------

def _hugepage_rule() -> bool:
    """NumPy's own default (numpy/__init__.py, ``hugepage_setup``)."""
    env = os.environ.get("NUMPY_MADVISE_HUGEPAGE")
    if env is not None:
        try:
            return bool(int(env))
        except ValueError:
            return False
    if sys.platform != "linux":
        return True
    try:
        return tuple(int(v) for v in os.uname().release.split(".")[:2]) >= (4, 6)
    except ValueError:
        return False


def madvise_hugepage() -> bool:
    """Whether NumPy advises huge pages for large buffers (its setting, else its rule)."""
    get = _attr("_core.multiarray._get_madvise_hugepage")
    if callable(get):
        try:
            return bool(get())
        except Exception:  # a changed signature: the rule below
            pass
    return _hugepage_rule()


# --- error state --------------------------------------------------------------------

def errstate_var():
    """NumPy's error-state ``ContextVar`` (``np.errstate`` sets it), or None."""
    var = _attr("_core._ufunc_config._extobj_contextvar")
    if var is None:
        var = _attr("_core.umath._extobj_contextvar")
    if var is None or not all(hasattr(var, m) for m in ("get", "set", "reset")):
        return None
    try:  # it must be the variable np.errstate sets: its value changes under errstate
        before = var.get()
        with np.errstate(all="ignore"):
            inside = var.get()
    except Exception:
        return None
    return var if inside is not before else None


# --- NumPy's inner loops ------------------------------------------------------------

def strided_loop_info(k, dt):
    """NumPy's call-info capsule of unary ufunc ``k`` on contiguous ``dt`` arrays (its
    loop resolved for ``dt -> dt``), or None: a NumPy without those private methods, a
    loop resolved for other dtypes, or one it does not hand out."""
    try:
        dts, info = k._resolve_dtypes_and_context((dt, None))
        if tuple(dts) != (dt, dt):
            return None
        k._get_strided_loop(info, fixed_strides=(dt.itemsize, dt.itemsize))
    except Exception:  # an older or newer NumPy without them: the Python path
        return None
    return info


def exp_table() -> bytes:
    """The table of the C library's exp (glibc's e_exp.c, 128 entries): for k in 0..127
    the bits of T[k] and of H[k] minus k << 45, where H[k] is 2^(k/128) rounded to a
    float64 and T[k] = 2^(k/128)/H[k] - 1 rounded. 2^(k/128) is the k-th power of
    2^(1/128) in decimal arithmetic of 60 digits (relative error below 1e-55 after 127
    products; Python's decimal exp and ln are correctly rounded, and float() of a Decimal
    rounds correctly). _chot's exp of float64 (loops.c) reads it and checks its values
    against NumPy's loop before any use."""
    import decimal
    import struct

    ctx = decimal.Context(prec=60)
    root = ctx.exp(ctx.divide(ctx.ln(decimal.Decimal(2)), 128))
    v = decimal.Decimal(1)
    out = []
    for k in range(128):
        h = float(v)
        t = float(ctx.subtract(ctx.divide(v, decimal.Decimal(h)), 1))
        hb = struct.unpack("<q", struct.pack("<d", h))[0] - (k << 45)
        out += [struct.pack("<d", t), struct.pack("<q", hb)]
        v = ctx.multiply(v, root)
    return b"".join(out)


# --- NumPy's C API table ------------------------------------------------------------

def array_api():
    """The ``_ARRAY_API`` capsule (NumPy's C API table, as ``import_array()`` finds it),
    or None."""
    for path in ("_core._multiarray_umath._ARRAY_API", "core.multiarray._ARRAY_API"):
        c = _attr(path)
        if c is not None and type(c).__name__ == "PyCapsule":
            return c
    return None


# --- the "not given" default --------------------------------------------------------

class _NoValueType:
    """A "no value" sentinel of our own, for a NumPy without ``_NoValue``."""

    def __repr__(self):
        return "<no value>"


def _no_value():
    v = getattr(np, "_NoValue", None)
    if v is None:
        v = _attr("_globals._NoValue")
    if v is None:  # what NumPy's own functions pass for "not given": np.sum's keepdims default
        import inspect

        try:
            v = inspect.signature(np.sum).parameters["keepdims"].default
        except (TypeError, ValueError, KeyError):
            v = None
        if v is None or "NoValue" not in type(v).__name__:
            v = None
    return _NoValueType() if v is None else v


NoValue = _no_value()
