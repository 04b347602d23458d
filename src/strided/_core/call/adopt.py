"""Stage 5 of the call pipeline: a native array (NumPy's or CuPy's) that a kernel or
NumPy returned becomes an Array over the Storage that owns its bytes.

Invariant: **never a second Storage over the same memory.** A native whose bytes lie
inside the memory of a Storage the caller names (``owners``: the call's strided
inputs), or of a Storage whose memory was handed to NumPy (``x.numpy()``,
``np.asarray(x)``: ``exported``), is returned as a view of THAT Storage, at the
offset and strides the native has (reinterpreted through the Storage's family when
its dtype differs, as ``view(dtype)``), so it shares the version counter autograd
checks. A native that only partly overlaps such memory is copied (a second Storage
over part of it would count writes apart). Anything else is fresh memory: a new
Storage (lazily, as every kernel result).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from .. import dtypes as _dtypes, layout as _layout
from ..array import _LATE, Array
from ..device import CPU

__all__ = ["adopt", "owner_of", "exported"]

# id(the object at the end of a native's ``.base`` chain) -> weak references to the
# Storages over its memory that were handed to NumPy. While a Storage lives, its
# memory's root object lives (the Storage holds it), so an id here is not reused.
_EXPORTED: dict = {}
_LOCK = threading.Lock()
# Keys whose Storage died. A weakref callback may run inside a garbage collection that an
# allocation under _LOCK set off (in this very thread), so callbacks never take the lock:
# they only append here (atomic), and the next ``exported`` purges under the lock.
_DEAD: list = []


def _root(a):
    """The object that owns a native's memory (NumPy and CuPy collapse ``.base`` chains
    to it; a buffer an ndarray was made from ends the chain)."""
    b = getattr(a, "base", None)
    while b is not None:
        a = b
        b = getattr(a, "base", None)
    return a


def exported(st) -> None:
    """Remember that ``st``'s memory was handed out as a native array (so a native
    built from it later, ``np.asarray(x)[::-1]`` or ``as_strided``, finds it again)."""
    a = st._data  # (_root inlined: SciPy converts its inputs so on every call)
    b = getattr(a, "base", None)
    while b is not None:
        a = b
        b = getattr(a, "base", None)
    key = id(a)
    refs = _EXPORTED.get(key)
    if refs is not None:
        # Already handed out (``np.asarray(x)`` of the same array again: SciPy converts its
        # inputs on every call): found without a new weakref or the lock. (A list another
        # thread changes meanwhile may be missed here, never wrongly found: the locked path
        # below then decides.)
        for r in refs:
            if r() is st:
                return
    ref = weakref.ref(st, lambda _r, key=key: _DEAD.append(key))
    with _LOCK:
        _purge()
        refs = _EXPORTED.get(key)
        if refs is None:
            _EXPORTED[key] = [ref]
            return
        for r in refs:
            if r() is st:
                return
        refs.append(ref)


def _purge() -> None:
    """Drop the entries of Storages that died (called with _LOCK held)."""
    while _DEAD:
        key = _DEAD.pop()
        refs = _EXPORTED.get(key)
        if refs is not None:
            refs[:] = [r for r in refs if r() is not None]
            if not refs:
                del _EXPORTED[key]


def _address(a) -> int:
    if type(a) is np.ndarray:
        return a.__array_interface__["data"][0]
    return a.data.ptr  # (CuPy: a MemoryPointer)


def _byte_extent(native):
    """(lowest, highest + 1) byte address the native touches, or None when empty."""
    if native.size == 0:
        return None
    lo = hi = _address(native)
    for n, s in zip(native.shape, native.strides):
        if s > 0:
            hi += s * (n - 1)
        else:
            lo += s * (n - 1)
    return lo, hi + native.itemsize


def _within(st, native, ext):
    """The Array over ``st`` viewing exactly ``native``'s elements; "partial" when the
    native overlaps ``st``'s memory without lying inside it as whole elements; None
    when it does not touch that memory."""
    data = st._data
    if type(data) is not type(native):
        return None
    base = _address(data)
    end = base + data.nbytes
    lo, hi = ext
    if hi <= base or lo >= end:
        return None
    if lo < base or hi > end:
        return "partial"
    try:
        dtype = _dtypes.from_numpy_dtype(native.dtype)
    except TypeError:
        return "partial"
    isz = native.itemsize
    off = _address(native) - base
    if off % isz or any(s % isz for s in native.strides) or data.nbytes % isz:
        return "partial"
    if dtype is not st.dtype:
        if dtype.kind != st.dtype.kind and not native.dtype.isnative:
            return "partial"
        st = st._reinterpret(dtype, data.view(dtype._np))
    shape = tuple(native.shape)
    strides = tuple(s // isz for s in native.strides)
    _layout.note_overlap(shape, strides)  # (an as_strided view may overlap itself)
    return Array._new(None, st, off // isz, shape, strides, st.dtype, st.device)


def owner_of(native, owners=()):
    """The Array over an existing Storage that views ``native``, "partial", or None."""
    seen = set()
    ext = ()  # (its byte extent, found when a Storage is there to compare it with)
    for o in owners:
        st = o._st if type(o) is Array else o
        if st is None or id(st) in seen:
            continue
        seen.add(id(st))
        if ext == ():
            ext = _byte_extent(native)
            if ext is None:
                return None
        r = _within(st, native, ext)
        if r is not None:
            return r
    if _EXPORTED:
        # (the root's entry first: a NumPy array strided never handed out, asarray's
        # common case, then costs no extent, whose __array_interface__ builds a dict)
        root = _root(native)
        refs = _EXPORTED.get(id(root))
        if refs is None and type(root) is memoryview:
            # Note: from Python 3.12 np.asarray(x) takes x.__buffer__ (PEP 688), and the
            # chain ends at a memoryview of Python's buffer wrapper, which leads back to
            # nothing: every exported Storage is then a candidate, its extent decides.
            with _LOCK:
                refs = [r for rs in _EXPORTED.values() for r in rs]
        if refs and ext == ():
            ext = _byte_extent(native)
        if ext is None:
            return None
        for ref in list(refs or ()):
            st = ref()
            if st is not None and id(st) not in seen:
                r = _within(st, native, ext)
                if r is not None:
                    return r
    return None


def adopt(native, owners=(), device=None):
    """``native`` as an Array: a view of the Storage that owns its bytes when one does
    (see the module's invariant), else a fresh lazy array on ``device`` (the first
    owner's, or the CPU)."""
    hit = owner_of(native, owners)
    if type(hit) is Array:
        return hit
    if hit == "partial":
        native = native.copy()
    if device is None:
        for o in owners:
            if type(o) is Array:
                device = o._device
                break
        else:
            device = CPU
    return Array._wrap(native, _dtypes.from_numpy_dtype(native.dtype), device)


_LATE["exported"] = exported
