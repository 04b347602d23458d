"""Stage 4 of the call pipeline: the one writer into user memory.

Every write into memory a user can hold (``out=``, in-place operators and ``op_``
methods, ``__setitem__``, ``copy_``/``fill_``/``zero_``, the random ``x.uniform_()``
family, NumPy's ``out=`` and NumPy functions that write an argument) asks this module
for its target. Invariants, for a target ``dst`` (an Array):

- **Overlap.** A target whose elements share memory (stride 0, ``unfold`` and
  ``sliding_window_view`` windows, ``as_strided``) is refused before anything is
  written (PyTorch's rule), except for a write of one value everywhere
  (``same_value``: ``fill_``, ``zero_``), which aliasing cannot make ambiguous.
  A source that overlaps ``dst`` is read as it was before the write: NumPy buffers
  an overlapping assignment itself; on any other backend the source is copied first.
- **Version counter.** The write bumps ``_version`` of the Storage that owns the
  memory (views, ``view(dtype)`` and ``.real``/``.imag`` share it through the
  Storage's family), so autograd's saved values see it.
- **Autograd.** With gradient recording on, a write into an array that requires
  grad must be recorded by autograd's handler (which turns recording off while the
  kernel runs): a write reaching here with recording on is refused, a leaf with
  PyTorch's message. Outside the handler chain nothing can record it.
- **Names.** A named source written into a named target must agree (``None``
  matches any name, broadcasting aligns from the right): DimensionNameError.

``target(dst, ...)`` returns the checked native to write into (kernels take it as
their ``out=``); ``write_into(dst, src, ...)`` also does the copy.
"""

from __future__ import annotations

from .. import dtypes as _dtypes, layout as _layout
from ..array import _LATE, Array

__all__ = ["target", "write_into", "check_out", "write_out", "check_names", "unaliased", "leaf_first"]


def check_out(func: str, out, shape: tuple, dtype, device) -> None:
    """Validate ``out=`` against the result's shape, dtype and device."""
    if type(out) is not Array:
        raise TypeError(f"{func}(): out must be a strided array; got {type(out).__name__}")
    if out._device is not device:
        raise ValueError(f"{func}(): out is on {out._device} but the result is on {device}")
    if out._shape != tuple(shape):
        raise _layout.ShapeError(f"{func}(): out has shape {out._shape} but the result has shape {tuple(shape)}")
    if not _dtypes.same_kind_castable(dtype, out._dtype):
        raise _dtypes.CastError(f"{func}(): result type {dtype.name} can't be cast to the desired output type "
                        f"{out._dtype.name}")
    if out._ext is not None and out._ext.requires_grad:
        enabled = _LATE.get("grad_enabled")  # (_LATE is this module's import: no import per call)
        if enabled is not None and enabled():
            raise RuntimeError(f"{func}(): out= arguments don't support automatic differentiation, "
                               f"but out requires grad")


def _check_autograd(dst: Array, func: str) -> None:
    """A write into an array autograd tracks, reached with recording on: not recorded."""
    enabled = _LATE.get("grad_enabled")
    if enabled is None or not enabled():
        return
    chk = _LATE.get("check_inplace")
    if chk is not None:
        chk(dst, func.rstrip("()") if func.endswith("()") else func)  # the leaf's error first
    e = dst._ext
    if e.requires_grad:
        raise RuntimeError(
            f"{func}: this write into an array that requires grad is not recorded by autograd "
            f"(it does not go through strided's operations); do it under strided.autograd.no_grad() "
            f"on detach()ed data, or with strided's own functions")


def leaf_first(dst: Array, func: str) -> None:
    """An in-place door's first check after its arguments are bound: with recording on, a
    write into a leaf that requires grad (or a view of one) is refused before the door
    checks the arguments' values and dtypes, as PyTorch's autograd layer runs before its
    kernels (``x.gcd_(y)`` of a float leaf: the leaf's error, not the dtype's). Under
    ``no_grad`` it lets the write through, as the writer (``target``) does."""
    e = dst._ext
    if e is None or not e.requires_grad:
        return
    enabled = _LATE.get("grad_enabled")
    chk = _LATE.get("check_inplace")
    if enabled is not None and enabled() and chk is not None:
        chk(dst, func)


def target(out: Array, func: str = "in-place write", same_value: bool = False):
    """The native view of ``out`` to write into, after the checks above; bumps its version.

    A lazy array (a kernel result whose Storage was never asked for) has no views
    and no saved versions yet, so it is written as is (unless it carries extension
    metadata: autograd may have saved it without its Storage).
    """
    st = out._st
    e = out._ext
    if e is not None:
        if e.requires_grad or e.is_view is not False:  # (names alone: nothing to check)
            _check_autograd(out, func)
        if st is None:
            # An array with extension metadata may be saved for backward while lazy
            # (autograd's SavedVar): it gets its Storage, so the write below is counted.
            out._materialize()
            st = out._st
    if st is None:
        r = out._np
        if not same_value and not r.flags.c_contiguous and r.size > 1:
            isz = r.itemsize
            _layout.check_no_internal_overlap(r.shape, tuple(s // isz for s in r.strides), func)
        return r
    if not same_value and _layout.has_internal_overlap(out._shape, out._str):
        _layout.check_no_internal_overlap(out._shape, out._str, func)
    st._version += 1
    r = out._np
    if r is None:
        r = out._get_native()  # (cached unless it overlaps itself: _layout.OVERLAP_SEEN)
    return r


def _names(a):
    e = a._ext if type(a) is Array else None
    return None if e is None else e.names


def check_names(dst: Array, src, func: str) -> None:
    """A named ``src`` written into a named ``dst``: the names must agree (from the right)."""
    dn, sn = _names(dst), _names(src)
    if dn is None or sn is None:
        return
    for a, b in zip(reversed(dn), reversed(sn)):
        if a is not None and b is not None and a != b:
            from ...named._core import DimensionNameError
            raise DimensionNameError(
                f"{func}: the value's dimension names {list(sn)} don't match the target's "
                f"{list(dn)} (rename one, or drop names with rename(None))")


def unaliased(src, dst, backend):
    """``src`` safe to copy into ``dst``: NumPy buffers an overlapping assignment itself;
    another backend (CuPy's copy kernel reads while it writes) gets a copy first."""
    xp = backend.xp
    if xp.__name__ == "numpy" or not hasattr(src, "shape"):
        return src
    try:
        overlap = xp.may_share_memory(src, dst)
    except Exception:  # noqa: BLE001 - a backend without the query: copy to be safe
        overlap = True
    return src.copy() if overlap else src


def write_into(dst: Array, src, func: str = "in-place write", *, same_value: bool = False):
    """Write ``src`` (an Array, a native of ``dst``'s device, or a scalar) into ``dst``,
    broadcasting, after every check above; returns ``dst``."""
    if type(src) is Array:
        check_names(dst, src, func)
        if src._device is not dst._device:
            raise ValueError(f"{func}: the value is on {src._device} but the target is on {dst._device}")
        src = src._get_native()
    r = target(dst, func, same_value)
    r[...] = unaliased(src, r, dst._device.backend)
    return dst


def write_out(func: str, out: Array, result) -> Array:
    """Copy ``result`` (an Array or native array) into ``out`` after ``check_out``: the
    ``out=`` of an op computed out of place first (the PyTorch-spellings layer).

    As the ops that take ``out=`` themselves: a result that autograd tracks is refused
    while grad mode is on (PyTorch: "functions with out=... arguments don't support
    automatic differentiation"), and ``out`` takes the result's names (a clash raises
    DimensionNameError)."""
    name = func[:-2] if func.endswith("()") else func
    what = f"{name}()"
    if type(result) is Array:
        check_out(name, out, result._shape, result._dtype, result._device)
        check_names(out, result, what)
        e = result._ext
        if e is not None and e.requires_grad:
            enabled = _LATE.get("grad_enabled")
            if enabled is not None and enabled():
                raise RuntimeError(f"{what}: functions with out=... arguments don't support automatic "
                                   f"differentiation, but one of the arguments requires grad")
        write_into(out, result, what)
        rn = _names(result)
        if rn is not None and _names(out) != rn:
            from ...named._core import tag, unify_right
            tag(out, unify_right(_names(out) or (None,) * len(rn), rn))
        return out
    return write_into(out, result, what)


_LATE["out_native"] = target
_LATE["write_into"] = write_into
