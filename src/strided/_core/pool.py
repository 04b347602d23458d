"""A bounded caching allocator for large CPU buffers.

Every fresh multi-megabyte result NumPy allocates is new memory from the
system (glibc serves large blocks with ``mmap``), so each element is first
touched through a page fault: at 1e6 float64 elements that costs more than
the arithmetic. PyTorch and CuPy keep freed device memory in a cache and hand
it out again; this module does the same for host memory.

A pool block is a raw ``uint8`` NumPy buffer owned by the pool. An array
handed out views it through a small ``_Block`` object that exposes
``__array_interface__``; NumPy ends every view's ``base`` chain at that
object, so ``_Block.__del__`` runs when the last view of the result dies and
puts the raw buffer back in the pool (binned by size) for the next
allocation of about the same size.

The pool holds at most ``get_cache_limit()`` bytes of free blocks (default
``min(1 GiB, physical memory / 8)``, or ``STRIDED_CACHE_LIMIT`` bytes from the
environment); when a freed block would exceed it, the largest cached blocks
are released to the system first. Buffers smaller than
``get_pool_threshold()`` bytes (default 256 KiB, or glibc's mmap threshold when the
environment fixes a smaller one: ``_default_threshold``) keep NumPy's allocator, which
already caches small blocks (and so do empty buffers, whatever the threshold).

``memory_stats()`` is exact on every path: a request counts only once its
array exists (an allocation that fails, even after the cache was emptied for
it, leaves the counters as they were), and a block is in ``allocated_bytes``
exactly while an array may use it.

The code below is the definition. With the C extension built
(``strided._csrc._cpool``, unless ``STRIDED_NO_CEXT`` is ``1`` or names
``_cpool``) the same pool runs in C: ``empty`` and the blocks' finalizer run no
Python (the Python ones cost ~20,000 instructions per pooled result: 5-10% of
``a * b + c`` at 1e6 float32), and ``_Block`` is the C block type.
"""

from __future__ import annotations

import collections
import operator
import os
import sys
import threading
import warnings

import numpy as np

from . import _npcompat, cext as _cext
from .caller import stacklevel

__all__ = ["empty", "empty_cache", "memory_stats", "set_cache_limit", "get_cache_limit",
           "set_pool_threshold", "get_pool_threshold"]


def _default_limit() -> int:
    try:
        phys = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        phys = 8 << 30
    default = min(1 << 30, phys // 8)
    env = os.environ.get("STRIDED_CACHE_LIMIT", "").strip()
    if not env:
        return default
    try:
        n = int(env, 10)
    except ValueError:
        n = -1
    if n < 0:
        # as STRIDED_DEFAULT_DEVICE: a bad setting must not stop ``import strided``
        warnings.warn(f"STRIDED_CACHE_LIMIT={env!r} ignored (not a whole number of bytes >= 0); "
                      f"the pool keeps at most {default} bytes", RuntimeWarning, stacklevel=stacklevel())
        return default
    return min(n, sys.maxsize)  # as set_cache_limit clamps


_THRESHOLD = 256 << 10  # the default pool threshold (NumPy's own elision threshold)

# Alignment. Every block starts a page. malloc aligns to 16 bytes, so NumPy's results start
# anywhere in a cache line: a result whose stores do not start one runs at about half speed
# from ~16 KB on where the loop stores whole 64-byte lines (AVX-512; measured with
# ``np.add(a, b, out=o)`` at 65,536 float32: 7.5 us with ``o`` 64-aligned, 17-18 us 16 or 48
# bytes off), and a result 64-448 bytes above an operand modulo 4096 makes its stores alias
# the next loads (9-11 us). Page-aligned blocks are both aligned and at distance 0 from each
# other (7.5 us). Before, the pool's blocks came from malloc like NumPy's: ``a + b`` of
# 65,536-1e5 float32 was 1.7-2.4x NumPy's time (the "cliff at the threshold", issue 38).
_ALIGN = 4096


def _mmap_threshold():
    """glibc's mmap threshold when the environment fixes it (``MALLOC_MMAP_THRESHOLD_``, or
    ``glibc.malloc.mmap_threshold`` in ``GLIBC_TUNABLES``), else None (glibc's dynamic one)."""
    v = os.environ.get("MALLOC_MMAP_THRESHOLD_", "").strip()
    for item in os.environ.get("GLIBC_TUNABLES", "").split(":"):
        key, _, val = item.partition("=")
        if key.strip() == "glibc.malloc.mmap_threshold":
            v = val.strip()
    if not v:
        return None
    try:
        n = int(v, 0)
    except ValueError:
        return None
    return n if 0 <= n <= (32 << 20) else None  # (glibc ignores values above its 32 MiB maximum)


def _default_threshold() -> int:
    """The smallest buffer the pool serves: 256 KiB, or glibc's mmap threshold when the
    environment fixes a smaller one.

    Why relative to glibc: below its mmap threshold glibc serves a block from the heap,
    where a freed block is handed out again still mapped (and often still in cache): NumPy's
    own allocation costs nothing there. From the threshold on each block is a fresh
    ``mmap``, faulted in page by page on first touch and unmapped on free: that is what
    the pool saves. By default the threshold is dynamic (it rises to the size of each
    mmapped block freed, up to 32 MiB) and the pool serves from 256 KiB, where strided's
    large-result path (elision, threads) starts anyway. With ``MALLOC_MMAP_THRESHOLD_=131072``
    (a fixed 128 KiB: dynamic adjustment off, as in many long-running services) NumPy
    maps and faults every result from 128 KiB on (a 240 KB float32 add cost ~170 us instead
    of ~12 us): the pool then starts there too.

    Note: pooling only what glibc would map (blocks under its dynamic threshold, up to
    32 MiB, left to malloc, as NumPy's are) was measured and rejected (issue 38,
    ``benchmarks/pool_policy.py``, fresh processes, one library): a loop of ``a + b``,
    ``a * b + c`` or ``exp`` ties (0 page faults per call either way: glibc's heap reuses
    the one freed block as the pool does), but a loop holding a few temporaries at once
    (``x = a*b; y = b*c; z = a*c; x*y + z*x``) makes glibc's heap exceed its trim threshold
    and give the pages back at every free: 450-3,900 faults per call and 2.2-9.6x the time
    at 1e5-1e6 elements, where the pool faults none. The sweep's 1.7-2.4x at 65,536-1e5
    float32 (the "cliff at the threshold") was not the policy but the blocks' alignment
    (``_ALIGN`` below): malloc's 16 bytes, where NumPy's results happened to start a line.
    """
    m = _mmap_threshold()
    return _THRESHOLD if m is None else max(4096, min(m, _THRESHOLD))


# Mutable settings, read on the hot path as list items (no global statement there).
MIN_BYTES = [_default_threshold()]  # smaller buffers keep NumPy's allocator
_LIMIT = [_default_limit()]

_lock = threading.Lock()
_pending: collections.deque = collections.deque()  # blocks freed while the lock was held
_bins: dict = {}  # binned size -> list of (raw, address)
_stats = {"allocated_bytes": 0, "allocated_peak_bytes": 0, "cached_bytes": 0,
          "num_allocs": 0, "hits": 0, "misses": 0, "releases": 0, "evictions": 0,
          "dropped": 0}


def _after_fork() -> None:
    # The lock may have been held by another thread of the parent at the fork.
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _bin(nbytes: int) -> int:
    """Round a request up to one of 8 sizes per power of two (at most 12.5% slack), page-aligned."""
    step = max(4096, 1 << max(0, nbytes.bit_length() - 4))
    return -(-nbytes // step) * step


# Request size -> binned size, and NumPy dtype -> its ``typestr``: the hot path's
# lookups (a program asks for a few sizes and dtypes over and over).
_SIZES: dict = {}
_TYPESTR: dict = {}


def _binned(nbytes: int) -> int:
    size = _bin(nbytes)
    if len(_SIZES) >= 4096:
        _SIZES.clear()
    _SIZES[nbytes] = size
    return size


class _Block:
    """The owner at the end of a pooled array's base chain; returns its buffer on death."""

    __slots__ = ("__array_interface__", "raw", "addr", "size")

    def __del__(self):
        # ``_release`` inlined (one Python call less per pooled result). A finalizer
        # may run while this thread already holds the lock (garbage collected inside
        # ``empty``): never block here, queue the block instead.
        try:
            self.size
        except AttributeError:  # made by ``empty`` but never handed a buffer (it failed first)
            return
        if _lock.acquire(False):
            try:
                if _pending:
                    _drain()
                _put(self.raw, self.addr, self.size)
            finally:
                _lock.release()
        else:
            _pending.append((self.raw, self.addr, self.size))


def _put(raw, addr, size) -> None:
    """File a freed block (lock held)."""
    s = _stats
    s["allocated_bytes"] -= size
    limit = _LIMIT[0]
    if size > limit:
        s["dropped"] += 1
        return
    if s["cached_bytes"] + size > limit:
        _evict_to(limit - size)
    lst = _bins.get(size)
    if lst is None:
        _bins[size] = [(raw, addr)]
    else:
        lst.append((raw, addr))
    s["cached_bytes"] += size
    s["releases"] += 1


def _evict_to(target: int) -> None:
    """Release cached blocks, largest first, until at most ``target`` bytes stay (lock held)."""
    s = _stats
    while s["cached_bytes"] > target:
        big = max(_bins)
        lst = _bins[big]
        lst.pop()
        if not lst:
            del _bins[big]
        s["cached_bytes"] -= big
        s["evictions"] += 1


def _drain() -> None:
    while _pending:
        _put(*_pending.popleft())


def _release(raw, addr, size) -> None:
    # A finalizer may run while this thread already holds the lock (garbage
    # collected inside ``empty``): never block here, queue the block instead.
    if _lock.acquire(blocking=False):
        try:
            _drain()
            _put(raw, addr, size)
        finally:
            _lock.release()
    else:
        _pending.append((raw, addr, size))


def _alloc(size: int):
    """A fresh raw buffer from the system (NumPy's allocator) and the page-aligned address of
    ``size`` bytes in it (``_ALIGN``; the C pool asks ``posix_memalign``)."""
    try:
        raw = np.empty(size + _ALIGN - 1, np.uint8)
    except MemoryError:
        raise MemoryError(f"the buffer pool cannot allocate {size} bytes") from None
    addr = raw.ctypes.data
    return raw, addr + (-addr) % _ALIGN


def empty(shape: tuple, dtype, nbytes: int):
    """An uninitialised C-contiguous NumPy array of ``shape``/``dtype`` from the pool.

    ``nbytes`` is the array's size in bytes; below the pool threshold (and for an
    empty array) this is plain ``numpy.empty``.
    """
    if nbytes < MIN_BYTES[0] or not nbytes:
        return np.empty(shape, dtype)
    size = _SIZES.get(nbytes)
    if size is None:
        size = _binned(nbytes)
    typestr = _TYPESTR.get(dtype)
    if typestr is None:
        typestr = _TYPESTR[dtype] = np.dtype(dtype).str
    # Made first: once it holds the buffer, its finalizer gives the buffer back (and the
    # counters with it) whatever fails later.
    blk = _Block()
    s = _stats
    with _lock:
        if _pending:
            _drain()
        lst = _bins.get(size)
        if lst:
            raw, addr = lst.pop()
            if not lst:
                del _bins[size]
            s["cached_bytes"] -= size
            s["hits"] += 1
            _count_alloc(s, size)
        else:
            raw = None
    if raw is None:
        # A miss: counted only once the system has handed out the memory.
        try:
            raw, addr = _alloc(size)
        except MemoryError:
            empty_cache()
            raw, addr = _alloc(size)  # (a second MemoryError leaves the counters untouched)
        with _lock:
            s["misses"] += 1
            _count_alloc(s, size)
    blk.raw = raw
    blk.addr = addr
    blk.size = size
    # The interface describes the result itself, so that its ``base`` is the block
    # (one link: temporary elision checks who else holds the buffer there).
    blk.__array_interface__ = {"data": (addr, False), "shape": shape if type(shape) is tuple else tuple(shape),
                               "typestr": typestr, "version": 3}
    return np.asarray(blk)


def _count_alloc(s: dict, size: int) -> None:
    """A request served with a block of ``size`` bytes (lock held)."""
    s["num_allocs"] += 1
    cur = s["allocated_bytes"] = s["allocated_bytes"] + size
    if cur > s["allocated_peak_bytes"]:
        s["allocated_peak_bytes"] = cur


def empty_cache() -> None:
    """Release every cached (free) block to the system; arrays in use are untouched."""
    if _C is not None:
        return _C.empty_cache()
    with _lock:
        _drain()
        _bins.clear()
        _stats["cached_bytes"] = 0


def memory_stats() -> dict:
    """Counters of the CPU buffer pool, like ``torch.cuda.memory_stats()``.

    ``allocated_bytes`` (pooled buffers in use, with ``allocated_peak_bytes``),
    ``cached_bytes`` (free blocks kept for reuse, at most ``limit_bytes``),
    ``num_allocs``, ``hits`` / ``misses`` (requests served from the cache or
    from the system), ``releases`` (blocks returned to the cache),
    ``evictions`` (cached blocks released to stay under the limit),
    ``dropped`` (freed blocks larger than the limit), ``limit_bytes`` and
    ``threshold_bytes`` (the smallest buffer the pool serves).
    """
    if _C is not None:
        out = _C.stats()
    else:
        with _lock:
            _drain()
            out = dict(_stats)
    out["limit_bytes"] = _LIMIT[0]
    out["threshold_bytes"] = MIN_BYTES[0]
    return out


def int_setting(func: str, v, least: int, most: int) -> int:
    """A size or count handed to a setter (this module's, and threads'): an int (not a
    bool: TypeError) of at least ``least`` (ValueError naming it), taken as ``most``
    when larger (a huge value means "everything": no buffer or count is that large)."""
    if type(v) is bool or isinstance(v, np.bool_):
        raise TypeError(f"{func}(): expected an int; got a bool ({v!r})")
    try:
        n = operator.index(v)
    except TypeError:
        raise TypeError(f"{func}(): expected an int; got {type(v).__name__} {v!r}") from None
    if n < least:
        raise ValueError(f"{func}(): expected an int >= {least}; got {n}")
    return min(n, most)


def set_cache_limit(nbytes: int) -> None:
    """Keep at most ``nbytes`` of free blocks (0 turns caching off; above ``sys.maxsize``,
    ``sys.maxsize``); evicts down to it now."""
    n = int_setting("set_cache_limit", nbytes, 0, sys.maxsize)
    if _C is not None:
        _LIMIT[0] = n
        return _C.set_limit(n)
    with _lock:
        _LIMIT[0] = n
        _drain()
        _evict_to(n)


def get_cache_limit() -> int:
    """The most bytes of free blocks the pool keeps."""
    return _LIMIT[0]


def set_pool_threshold(nbytes: int) -> None:
    """Serve buffers of at least ``nbytes`` from the pool (smaller ones, and empty ones, use
    NumPy's allocator); ``nbytes >= 1`` (1: every non-empty buffer), above ``sys.maxsize``
    taken as ``sys.maxsize``."""
    n = int_setting("set_pool_threshold", nbytes, 1, sys.maxsize)
    MIN_BYTES[0] = n


def get_pool_threshold() -> int:
    """The smallest buffer, in bytes, the pool serves."""
    return MIN_BYTES[0]


def _cached_sizes() -> list:
    """The size of every cached block (for tests: the cache's count is what it holds)."""
    if _C is not None:
        return _C.cached_sizes()
    with _lock:
        _drain()
        return [size for size, blocks in _bins.items() for _ in blocks]


# The pool in C (strided/_csrc/_cpool.c), in front of the definitions above.
_C = _cext.load("_cpool")
if _C is not None:
    _C.setup(np.ndarray, np.empty, MIN_BYTES, _npcompat.madvise_hugepage())
    _C.set_limit(_LIMIT[0])
    _py_empty = empty
    empty = _C.empty  # noqa: F811
    _Block = _C.Block  # noqa: F811 (what a pooled array's ``base`` is)
