"""Intra-op threads and the large-result path of elementwise kernels on the CPU.

Large operations split into chunks run on several cores. With the C
extension (``strided._csrc._ckernels``, see ``_cfast``) the threads are a
persistent pool of pthreads in C that never take the GIL: the calling thread
releases the GIL, takes chunks itself and waits for the workers, which spin
for about 2 ms after a job (so operations separated by a little Python find
them awake) and then sleep. It runs:

- add, subtract, multiply, divide, maximum, minimum (the C table
  SD_EW_BINARY_OPS) of two C-contiguous float32/float64 arrays of the same
  shape and dtype, and add, subtract, multiply, divide of one such array and a
  Python float or int: NumPy's own loop of that ufunc per chunk (NumPy's
  results bit for bit, NaN payloads and signed zeros included);
- the unary float ufuncs of ``_LOOP_UFUNCS`` (exp, log, sqrt, ...) through
  NumPy's own inner loop (``ufunc._get_strided_loop``): the same loop per
  chunk, so the same values;
- float32/float64 sums, max and min over all axes or one run of adjacent
  axes (``reduce``: NumPy's summation order, a whole-array sum split along
  NumPy's own pairwise tree, bit for bit the one-thread sum and NumPy's; axis
  reductions split by rows or column tiles, each output computed as in one
  thread; a NaN sum declined, since its payload is NumPy's loop's business).

Everything else (broadcasting, scalars, other dtypes, non-contiguous inputs,
other reductions), and everything when the extension is absent or
``STRIDED_NO_CEXT=1``, takes the Python path: a small ThreadPoolExecutor
splitting NumPy's own ufunc calls along the first axis (NumPy releases the
GIL in its loops); each output element is computed by the same loop on the
same inputs as in one thread, so results are identical in value.

``set_num_threads(n)`` / ``get_num_threads()`` set the number of threads (the
default is the number of cores this process may run on,
``os.sched_getaffinity``, as PyTorch's default; 1 uses no pool at all; counts
above ``MAX_THREADS`` (256, the C pool's crew plus the caller) are taken as
256); operations whose result is smaller than ``get_thread_threshold()`` bytes,
and reductions of inputs smaller than 4x that, stay on the calling thread
(1 splits everything that can be split). The default threshold is 2 MiB
(``_C_SPLIT_FROM``: 1 MiB per thread on 2 cores, measured; below that a pre-empted
worker costs more than the split saves), with the C pool and with the Python one. Each operation reads the count once: a
``set_num_threads`` from another thread applies to the operations that start
after it, never to one that is running.

The rule for both pools: a result never depends on the thread count, NaN
payloads and signed zeros included. An element is computed by the same NumPy
loop as in one call over the whole array, at the same place in that loop:
pieces start on multiples of 64 elements (of NumPy's buffer size, 8192, where
it buffers), so every element meets the loop's vector body or its tail as it
would in one call (NumPy's add and multiply return a different operand's NaN
in the two). A reduction is split where that changes no bit: along a kept
axis, along a reduced one only where the pieces combine exactly (integers,
max/min whose result is neither a zero nor a NaN, a float sum cut along
NumPy's own pairwise tree); elsewhere it runs in one piece.

``large_ufunc`` is what the elementwise functions call for results of at
least the buffer pool's threshold: the result buffer comes from the caching
pool (``strided._core.pool``) instead of freshly faulted-in memory, and is filled
in chunks by the threads.
"""

from __future__ import annotations

import math
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _npcompat, cext as _cext, cfast as _cfast, pool as _pool

__all__ = ["set_num_threads", "get_num_threads", "set_thread_threshold",
           "get_thread_threshold", "large_ufunc", "large_c_order", "ufunc_into", "unary_into"]


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


MAX_THREADS = 256  # a larger count is taken as this (the C pool's 255 workers and the caller)
_CK = _cfast._ckernels if _cfast.AVAILABLE else None  # the C pool, or None
_NUM = [min(_default_threads(), MAX_THREADS)]
# From how many result bytes the C pool splits an elementwise call: 1 MiB per thread on the
# default 2 threads of the machine this was measured on. Measured (issue 38; 2-core EPYC
# shared with other work, float32, interleaved minima/medians of 41 batches, one thread vs
# two through the C pool, the result from the buffer pool either way): add 256 KiB 1.37x
# (min) / 1.41x (median) slower on two, 512 KiB 1.17x/1.18x, 1 MiB 1.11x/1.27x, 2 MiB
# 1.08x/1.08x, 4 MiB 1.06x/1.01x; exp 256 KiB-2 MiB 0.93-1.03x (min) but medians up to
# 3.7x at 1 MiB (the caller waits for a pre-empted worker). Under 1 MiB a thread's half is
# shorter than a pre-emption; the old 256 KiB split made a 100k float32 add bimodal
# (20-46 us). Unloaded machines split memory-bound work profitably from a few MiB.
_C_SPLIT_FROM = 2 << 20
_THREAD_MIN = [_C_SPLIT_FROM if _CK is not None else (2 << 20)]
# A reduction splits from this many times the threshold (bytes of input). Measured (issue 38,
# 2-core EPYC, quiet, 2 threads, medians of 31 batches; AVX2 sums): split from 2 MiB instead of
# 8 MiB, 1e6 float32 sum 133 -> 76 us and max 85 -> 41 us (PyTorch 39 and 97), 4e6 sum 704 -> 538
# us; below 2 MiB (250k float32) no split either way.
_REDUCE_FACTOR = 1
_EXEC: list = [None]  # the Python pool (one for the process; made on first use)
_ND = np.ndarray
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _forget_executor() -> None:
    # A forked child has none of its parent's worker threads: start a fresh pool there
    # (and a fresh lock: another thread of the parent may have held it at the fork).
    global _EXEC_LOCK
    _EXEC[0] = None
    _EXEC_LOCK = threading.Lock()


_EXEC_LOCK = threading.Lock()

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_executor)


def _quiet_worker():
    """A pool thread runs strided's kernels only: NumPy's "ignore" error state for
    good (its own context; see _dispatch.quiet)."""
    from .dispatch import ERRSTATE, QUIET
    if ERRSTATE is not None:
        ERRSTATE.set(QUIET)
    else:  # a NumPy without the variable (_npcompat): the same, through the public call
        np.seterr(all="ignore")


def _executor():
    """The Python pool: one executor for the process, never shut down or replaced while
    the process lives (an operation that is running keeps submitting to it whatever
    ``set_num_threads`` does meanwhile). Its threads start as work needs them, at most
    ``MAX_THREADS - 1``: an operation on ``n`` threads submits ``n - 1`` pieces."""
    ex = _EXEC[0]
    if ex is None:
        with _EXEC_LOCK:
            ex = _EXEC[0]
            if ex is None:
                ex = _EXEC[0] = ThreadPoolExecutor(max_workers=MAX_THREADS - 1, thread_name_prefix="strided",
                                                   initializer=_quiet_worker)
    return ex


def set_num_threads(n: int) -> None:
    """Use ``n`` threads (``n >= 1``; more than ``MAX_THREADS``, 256, is taken as 256) for
    large elementwise operations and reductions, from the next operation on."""
    _NUM[0] = _pool.int_setting("set_num_threads", n, 1, MAX_THREADS)


def get_num_threads() -> int:
    """The number of threads large operations use (default: the cores available)."""
    return _NUM[0]


def set_thread_threshold(nbytes: int) -> None:
    """Split elementwise operations across threads only when their result has at least
    ``nbytes`` bytes (reductions: when their input has at least 4x that); ``nbytes >= 1``
    (1: everything that can be split), above ``sys.maxsize`` taken as ``sys.maxsize``."""
    _THREAD_MIN[0] = _pool.int_setting("set_thread_threshold", nbytes, 1, sys.maxsize)


def get_thread_threshold() -> int:
    """The smallest result, in bytes, that is split across threads."""
    return _THREAD_MIN[0]


def chunks(n: int, parts: int) -> list:
    """``parts`` nearly equal ``(start, stop)`` ranges covering ``range(n)``."""
    q, r = divmod(n, parts)
    out, lo = [], 0
    for i in range(parts):
        hi = lo + q + (i < r)
        out.append((lo, hi))
        lo = hi
    return out


def aligned_chunks(n: int, parts: int, step: int) -> list:
    """At most ``parts`` ranges covering ``range(n)`` whose boundaries are multiples of
    ``step``, each at least ``step`` long (the last one takes the ``n % step`` left over);
    ``[(0, n)]`` when ``n`` holds fewer than two steps."""
    blocks = n // step
    parts = min(parts, blocks)
    if parts < 2:
        return [(0, n)]
    cuts = [step * (blocks * i // parts) for i in range(parts)] + [n]
    return list(zip(cuts[:-1], cuts[1:]))


def _loop_align() -> int:
    """Where a piece of a flat elementwise loop may start without moving any element to
    another part of NumPy's loop: multiples of 64 elements (every vector block), and of
    NumPy's buffer size, in which it runs a loop that casts."""
    return math.lcm(64, np.getbufsize())


def parallel(fn, ranges: list) -> list:
    """``[fn(lo, hi) for lo, hi in ranges]``, the first range on this thread, the rest on the pool.

    Every piece is submitted before the first runs here, to the one executor, which
    is never shut down: a concurrent ``set_num_threads`` cannot stop a running operation."""
    ex = _executor()
    futs = [ex.submit(fn, lo, hi) for lo, hi in ranges[1:]]
    try:
        first = fn(*ranges[0])
    finally:
        done = [f.result() for f in futs]  # (an error in this thread's piece waits for the rest)
    return [first] + done


# ufunc -> ew_binary's op code: the C table SD_EW_BINARY_OPS, exported by name (each op runs
# NumPy's own loop of that ufunc per chunk, so NaN payloads and signed zeros are NumPy's)
_C_BINARY = {getattr(np, name): code for name, code in _CK.EW_BINARY_OPS.items()} if _CK is not None else {}
# Unary float ufuncs whose NumPy inner loop the C pool runs per chunk (each tested for
# identical values across chunk boundaries in tests/_csrc/test_threads_c.py): the
# elementwise rows marked ``threaded`` add theirs (add_loop_ufuncs), these are the others.
_LOOP_UFUNCS = frozenset([np.exp2, np.cbrt, np.rint])


def add_loop_ufuncs(ufuncs) -> None:
    """Add the registry's threaded rows' ufuncs (_api/elementwise.py, ``threaded``)."""
    global _LOOP_UFUNCS
    _LOOP_UFUNCS = _LOOP_UFUNCS | frozenset(ufuncs)


_LOOPS: dict = {}  # (ufunc, dtype) -> NumPy's call-info capsule, or None (no usable loop)
_C_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _loop_info(k, dt):
    """NumPy's strided-loop capsule for unary ufunc ``k`` on C-contiguous ``dt`` arrays, or None."""
    key = (k, dt)
    try:
        return _LOOPS[key]
    except KeyError:
        pass
    info = None
    if k in _LOOP_UFUNCS and dt in _C_FLOATS and dt.isnative:
        info = _npcompat.strided_loop_info(k, dt)  # None: the Python path
        if info is not None and _CHOT is not None and hasattr(_CHOT, "prefer_loop"):
            # the same values by a faster loop where _chot has one (exp of float64)
            _CHOT.prefer_loop(k, info, (dt, dt))
    _LOOPS[key] = info
    return info


def select(c, a, b):
    """``numpy.where(c, a, b)`` for host ndarrays ``a`` and ``b`` of one dtype, C-contiguous and
    of ``c``'s shape (or 0-d: one value for all), ``c`` a C-contiguous bool array: by
    ``_ckernels.select``, a mask and two ands per element (NumPy's where branches per
    element: with a random condition 1e5 float32 took 430 us, against ~27 here), the same
    bits. None where that does not apply (NumPy's where then runs)."""
    if _CK is None or type(c) is not np.ndarray or type(a) is not np.ndarray or type(b) is not np.ndarray:
        return None
    dt = a.dtype
    if b.dtype != dt or c.dtype != np.bool_ or not c.flags.c_contiguous or dt.hasobject or not dt.isnative:
        return None
    shape = c.shape
    if (a.shape != shape and a.ndim) or (b.shape != shape and b.ndim) or not a.flags.c_contiguous \
            or not b.flags.c_contiguous:
        return None
    out = np.empty(shape, dt)
    nt = _NUM[0] if out.nbytes >= _THREAD_MIN[0] else 1
    return out if _CK.select(c, a, b, out, nt) else None


def ufunc_into(k, x, y, out) -> None:
    """``k(x, y, out=out)`` where ``out`` is ``x`` or ``y`` itself (temporary elision): on the
    C pool when it is large and everything is one float dtype and size, else NumPy's call."""
    nt = _NUM[0]
    if nt > 1 and _CK is not None and out.nbytes >= _THREAD_MIN[0]:
        op = _C_BINARY.get(k)
        if op is not None and _CK.ew_binary(op, x, y, out, nt):
            return
    k(x, y, out=out)


def unary_into(k, a, out) -> None:
    """``k(a, out=out)``: where ``k`` has a strided loop on C-contiguous float32/float64 arrays
    of one dtype (``_loop_info``: strided's own where it has one, NumPy's values), that loop,
    on the C pool from the thread threshold on; else NumPy's call. (ew_loop itself declines
    an output that shares memory with the input other than exactly: NumPy's call then
    copies as it must.)"""
    if _CK is not None and type(a) is _ND and type(out) is _ND and a.dtype is out.dtype:
        info = _loop_info(k, a.dtype)
        if info is not None:
            nt = _NUM[0] if out.nbytes >= _THREAD_MIN[0] else 1
            if _CK.ew_loop(info, (a,), out, nt):
                return
    k(a, out=out)


def _ew_pieces(k, args, shape, n, nt, buf):
    """How the Python pool splits ``k(*args, out=buf)`` (C-contiguous arrays): ``(part,
    ranges)``, one range when it doesn't.

    Operands of the result's shape or of one element: cut flat, on multiples of 64
    elements and of NumPy's buffer size (``_loop_align``), so that every element meets
    NumPy's loop as in one call. Operands broadcast along some axes: cut along the
    first axis, where NumPy runs its inner loop row by row whatever the rows are, and
    only without casts (a cast loop runs in buffers that may span rows)."""
    full = True
    dt = None
    for x in args:
        if type(x) is _ND:
            if x.shape != shape and x.size != 1:
                full = False
            if dt is None:
                dt = x.dtype
            elif x.dtype != dt:
                dt = False
    if full:
        ranges = aligned_chunks(n, nt, _loop_align())
        if len(ranges) < 2:
            return None, ranges
        flat = [x if type(x) is not _ND else (x.reshape(-1) if x.shape == shape else x.reshape(()))
                for x in args]
        cut = [type(x) is _ND and x.ndim == 1 for x in flat]
        out = buf.reshape(-1)

        def part(lo, hi):
            k(*[x[lo:hi] if c else x for x, c in zip(flat, cut)], out=out[lo:hi])
        return part, ranges
    if dt is False or not shape or shape[0] < 2:
        return None, [(0, n)]
    nd = len(shape)
    d0 = shape[0]
    split = [type(x) is _ND and x.ndim == nd and x.shape[0] == d0 for x in args]

    def part(lo, hi):
        k(*[x[lo:hi] if s else x for x, s in zip(args, split)], out=buf[lo:hi])
    return part, chunks(d0, min(nt, d0))


def large_ufunc(k, args: tuple, np_dtype):
    """``k(*args)`` for a result of at least the pool threshold: pooled buffer, threads.

    Falls back to ``k(*args)`` when an input is not C-contiguous (NumPy then
    picks the result's layout) or the kernel cannot write ``np_dtype``.
    """
    r = large_c_order(k, args, np_dtype)
    return k(*args) if r is None else r


def large_c_order(k, args: tuple, np_dtype):
    """``large_ufunc`` where every array operand is C-contiguous; None (nothing done)
    where one is not: the caller picks the layout (one pass over the operands for
    both questions: a multi-MB kernel leaves the caches cold for this code)."""
    shape = None
    mixed = False
    for x in args:
        if type(x) is _ND:
            if not x.flags.c_contiguous:
                return None
            if shape is None:
                shape = x.shape
            elif x.shape != shape:
                mixed = True
    if mixed:  # operands of equal shapes (the common case) skip the broadcast (~1.5 us)
        shape = np.broadcast_shapes(*[x.shape for x in args if type(x) is _ND])
    n = 1
    for s in shape:
        n *= s
    nbytes = n * np_dtype.itemsize
    buf = _pool.empty(shape, np_dtype, nbytes)
    nt = _NUM[0]
    if nt > 1 and nbytes >= _THREAD_MIN[0] and _CK is not None and not mixed:
        # The C pool: its kernels check dtypes, sizes and layouts, and say False otherwise.
        if len(args) == 2:
            op = _C_BINARY.get(k)
            if op is not None and _CK.ew_binary(op, args[0], args[1], buf, nt):
                return buf
        elif len(args) == 1:
            info = _loop_info(k, np_dtype)
            if info is not None and _CK.ew_loop(info, args, buf, nt):
                return buf
    if nt > 1 and nbytes >= _THREAD_MIN[0]:
        part, ranges = _ew_pieces(k, args, shape, n, nt, buf)
        if len(ranges) > 1:
            try:
                parallel(part, ranges)
            except TypeError:  # the kernel's natural dtype does not cast to np_dtype
                return k(*args)
            return buf
    try:
        k(*args, out=buf)
    except TypeError:
        return k(*args)
    return buf


_R = np.add.reduce
_c_add_reduce = _cfast.add_reduce
_F64 = np.dtype(np.float64)
_DEV_CHUNK = 1 << 15  # elements per cache-sized step of the fused sum of squared deviations


def _exact_sum(xs) -> float:
    """``math.fsum`` (one rounding), or the plain sum where fsum refuses (an overflow: inf)."""
    try:
        return math.fsum(xs)
    except (OverflowError, ValueError):
        return float(np.sum(np.asarray(xs, dtype=_F64)))


def _flat_parts(n: int, itemsize: int, step: int) -> list:
    """Ranges of a flat reduction's input on multiples of ``step`` elements, one per
    thread when it is large enough to split."""
    nt = _NUM[0]
    if nt > 1 and n * itemsize >= _REDUCE_FACTOR * _THREAD_MIN[0]:
        return aligned_chunks(n, nt, step)
    return [(0, n)]


def sum_sq_dev(a, m) -> float:
    """``sum((a - m)**2)`` over all of C-contiguous float ``a`` (``m`` a scalar of its dtype),
    as a Python float, without a full-size temporary.

    The input is read once, in steps of ``_DEV_CHUNK`` elements whose deviations
    stay in one small buffer in cache (or, with the C kernels, in registers:
    ``_c_step_sums``, the same bits); each step is summed as NumPy's add.reduce
    sums it and the step sums are added exactly
    (``math.fsum``): the error bound is the pairwise bound over one step, no
    worse than NumPy's over the whole array. The steps are the same whatever the
    thread count (the threads take whole steps), and so is the result.
    """
    flat = a.reshape(-1)
    sums = _c_step_sums(flat, m)
    if sums is not None:
        return _exact_sum(sums)
    sub, mul = np.subtract, np.multiply

    def part(lo, hi):
        buf = np.empty(min(_DEV_CHUNK, hi - lo), flat.dtype)
        out = []
        for i in range(lo, hi, _DEV_CHUNK):
            c = flat[i:min(i + _DEV_CHUNK, hi)]
            d = buf[:c.shape[0]]
            sub(c, m, out=d)
            mul(d, d, out=d)
            out.append(float(_c_add_reduce(d)))
        return out
    parts = _flat_parts(flat.shape[0], flat.itemsize, _DEV_CHUNK)
    if len(parts) == 1:
        return _exact_sum(part(0, flat.shape[0]))
    return _exact_sum([s for p in parallel(part, parts) for s in p])


def _c_step_sums(flat, m):
    """``sum_sq_dev``'s step sums from the C kernel (each step a row of ``reduce``'s
    sq_dev: NumPy's a - m, d * d and add.reduce, bit for bit, without the temporaries),
    or None where it declines (no kernel, a NaN)."""
    if _CK is None:
        return None
    n = flat.shape[0]
    full = n // _DEV_CHUNK
    nt = _NUM[0]
    big = nt > 1 and flat.nbytes >= _REDUCE_FACTOR * _THREAD_MIN[0]
    sums = []
    for lo, rows, width in ((0, full, _DEV_CHUNK), (full * _DEV_CHUNK, int(n % _DEV_CHUNK > 0), n % _DEV_CHUNK)):
        if rows:
            out = _empty(rows, flat.dtype)
            means = np.full(rows, m, flat.dtype)
            if not _CK.reduce(_RED["sq_dev"], flat[lo:lo + rows * width], out, rows, width, 1,
                              nt if big else 1, means):
                return None
            sums.extend(out.tolist())
    return sums


def _pairwise_tree(lo: int, n: int, depth: int):
    """NumPy's pairwise summation of ``n`` elements from ``lo``, cut ``depth`` levels
    down: a leaf ``(lo, n)`` or a pair of subtrees (its rule: halves, the first a
    multiple of 8 long, until at most 128 elements)."""
    if depth == 0 or n <= 128:
        return (lo, n)
    n2 = n // 2
    n2 -= n2 % 8
    return (_pairwise_tree(lo, n2, depth - 1), _pairwise_tree(lo + n2, n - n2, depth - 1))


def _pairwise_sum(flat, nt):
    """``numpy.add.reduce(flat)`` of a 1-d contiguous float32/float64 array on ``nt``
    threads, bit for bit: the top of NumPy's own pairwise tree is cut into leaves
    (at least ``nt``), each leaf summed by NumPy, the leaves added as the tree adds them
    in the array's dtype (then NumPy's identity, +0). None where that is not certain:
    a NaN result (which of several NaNs a sum returns is the loop's business)."""
    depth = max(1, (nt - 1).bit_length())
    tree = _pairwise_tree(0, flat.shape[0], depth)
    leaves = []

    def collect(t):
        if type(t[0]) is tuple:
            collect(t[0])
            collect(t[1])
        else:
            leaves.append(t)
    collect(tree)
    if len(leaves) < 2:
        return None
    sums = iter(parallel(lambda i, _: _R(flat[leaves[i][0]:leaves[i][0] + leaves[i][1]]),
                         [(i, i + 1) for i in range(len(leaves))]))

    def combine(t):
        if type(t[0]) is tuple:
            left = combine(t[0])
            return left + combine(t[1])
        return next(sums)
    total = flat.dtype.type(0) + combine(tree)
    return None if total != total else total


_np_max, _np_min = np.max, np.min
_c_max, _c_min = _cfast.max_reduce, _cfast.min_reduce
# the kernels reduce() in C runs: their op codes (the C table SD_REDUCE_OPS, by name)
_RED = _CK.REDUCE_OPS if _CK is not None else {}
_C_OPS = {_c_add_reduce: _RED["sum"], _c_max: _RED["max"], _c_min: _RED["min"]} if _CK is not None else {}
_layout = _cfast.layout
_empty = np.empty
# Reductions whose pieces combine exactly on integers and bools (modular sums and products,
# max/min, any/all), and the float extrema (exact but for a zero's sign and a NaN's payload).
_EXTREMA = (_np_max, _np_min, _c_max, _c_min, np.maximum.reduce, np.minimum.reduce)
_EXACT_INT = _EXTREMA + (_R, _c_add_reduce, np.multiply.reduce, np.logical_or.reduce,
                         np.logical_and.reduce, np.bitwise_or.reduce, np.bitwise_and.reduce,
                         np.bitwise_xor.reduce)


_prod = math.prod


def one_thread_reduce(nbytes: int) -> bool:
    """Whether a reduction reading ``nbytes`` runs on the calling thread alone (the thread
    count is 1, or the input is under the reductions' split threshold): the namespace's
    hot paths then call the one-thread kernels without the pool's bookkeeping."""
    return _NUM[0] == 1 or nbytes < _REDUCE_FACTOR * _THREAD_MIN[0]


def reduce1(op, a, axis, keepdims):
    """The C reduction ``op`` (a name in REDUCE_OPS: "sum", "max", "min") of ndarray ``a`` over all axes (``axis``
    None) or one int axis (``-a.ndim <= axis < a.ndim``, the caller checks), as an
    ndarray; None where the C kernels don't take it: the large reductions' short
    path from the namespace functions (threads as in ``large_reduce``)."""
    if _CK is None or type(a) is not _ND:
        return None
    # (the C function checks the layout, the dtype and its byte order, and declines)
    shape = a.shape
    if axis is None:
        outer = inner = 1
        nred = a.size
        rshape = ()
    else:
        ax = axis % len(shape)
        outer, nred, inner = _prod(shape[:ax]), shape[ax], _prod(shape[ax + 1:])
        rshape = shape[:ax] + shape[ax + 1:]
    if not nred or not a.size:
        return None
    r = _empty(rshape, a.dtype)
    nt = _NUM[0]
    big = nt > 1 and a.nbytes >= _REDUCE_FACTOR * _THREAD_MIN[0]
    if not _CK.reduce(_RED[op], a, r, outer, nred, inner, nt if big else 1):
        return None
    if keepdims:
        r = r.reshape((1,) * len(shape) if axis is None else shape[:ax] + (1,) + shape[ax + 1:])
    return r


def sq_dev_reduce(a, axes, m):
    """``sum((a - m)**2)`` over ``axes`` (None: all) in C, in one pass over ``a``
    (``m``: a's means over those axes, as with keepdims, in a's dtype), shaped as the
    kept axes; None where the C kernel doesn't take it (see ``_cfast.layout``)."""
    if _CK is None or type(a) is not _ND:
        return None
    if type(m) is not _ND:
        m = np.asarray(m)  # a full reduction's mean: a NumPy scalar
    if m.dtype != a.dtype:
        return None
    lay = _layout(a, axes)
    if lay is None:
        return None
    shape, outer, nred, inner = lay
    r = _empty(shape, a.dtype)
    nt = _NUM[0]
    big = nt > 1 and a.nbytes >= _REDUCE_FACTOR * _THREAD_MIN[0]
    means = np.ascontiguousarray(m).reshape(shape)
    return r if _CK.reduce(_RED["sq_dev"], a, r, outer, nred, inner, nt if big else 1, means) else None


# (0-d zeros of float32 and float64: the means of sum_sq_all's sum of squared deviations)
_SQ_ZEROS = {np.dtype(t): np.zeros((), t) for t in (np.float32, np.float64)}


def sum_sq_all(a):
    """``add.reduce(a * a)`` over all of ndarray ``a`` in one pass in C (the sum of squared
    deviations from 0: the same squares and additions in NumPy's order, so the same bits),
    as a 0-d ndarray; None where the C kernel declines (not a non-empty C-contiguous native
    float32/float64 ndarray, or a NaN sum)."""
    z = _SQ_ZEROS.get(a.dtype) if _CK is not None else None
    if z is None:
        return None
    r = _empty((), a.dtype)
    nt = _NUM[0]
    big = nt > 1 and a.nbytes >= _REDUCE_FACTOR * _THREAD_MIN[0]
    return r if _CK.reduce(_RED["sq_dev"], a, r, 1, a.size, 1, nt if big else 1, z) else None


def large_reduce(kern, a, axes, keepdims: bool, **kw):
    """``kern(a, axis=axes, keepdims=keepdims, **kw)``, split across threads when ``a`` is large.

    ``kern`` is an associative reduction (``add.reduce``, ``multiply.reduce``,
    ``max``, ``min``). Sums, max and min of a C-contiguous float32/float64
    array over all axes or one run of adjacent axes run in C (``_ckernels``'s
    ``reduce``), on the C pool when the input is large: each output computed
    as in one thread (a whole-array sum split along NumPy's pairwise tree),
    so the values don't depend on the thread count. Elsewhere (the Python
    pool) the same rule holds, bit for bit: split along a kept axis, every
    result element is computed by the same loop as in one call; along a
    reduced axis only where the pieces combine exactly (integers and bools;
    float max/min unless the result holds a zero or a NaN; a whole float32/
    float64 sum cut along NumPy's own pairwise tree). Anything else runs in
    one call.
    """
    if kern == _R:  # the C kernels where they apply (strided._core.cfast)
        kern = _c_add_reduce
    elif kern is _np_max:
        kern = _c_max
    elif kern is _np_min:
        kern = _c_min
    nt = _NUM[0]
    op = _C_OPS.get(kern)
    if op is not None and (not kw or (len(kw) == 1 and "dtype" in kw
                                      and (kw["dtype"] is None or kw["dtype"] == a.dtype))):
        lay = _layout(a, axes)
        if lay is not None:
            shape, outer, nred, inner = lay
            r = _empty(shape, a.dtype)
            big = nt > 1 and a.nbytes >= _REDUCE_FACTOR * _THREAD_MIN[0]
            if _CK.reduce(op, a, r, outer, nred, inner, nt if big else 1):
                if keepdims:
                    red = range(a.ndim) if axes is None else axes
                    r = r.reshape(tuple(1 if i in red else n for i, n in enumerate(a.shape)))
                return r
    if (nt < 2 or type(a) is not _ND or a.nbytes < _REDUCE_FACTOR * _THREAD_MIN[0]
            or not a.flags.c_contiguous or a.ndim == 0 or a.size == 0):
        return kern(a, axis=axes, keepdims=keepdims, **kw)
    nd = a.ndim
    red = tuple(range(nd)) if axes is None else tuple(sorted(axes))
    if not red:
        return kern(a, axis=axes, keepdims=keepdims, **kw)
    want = kw.get("dtype")
    want = None if want is None else np.dtype(want)
    uncast = want is None or want == a.dtype
    # A kept axis: every output element is reduced by the same loop as in one call,
    # provided the axis is not in NumPy's inner loop (a reduced axis follows it) or is
    # cut on multiples of 64 elements of that loop (no casts: no buffers).
    for ax in range(nd):
        if ax in red or a.shape[ax] < 2:
            continue
        if red[-1] > ax:
            ranges = chunks(a.shape[ax], min(nt, a.shape[ax]))
        elif uncast:
            unit = _prod(a.shape[ax + 1:])
            ranges = aligned_chunks(a.shape[ax], nt, 64 // math.gcd(64, unit) if unit else 1)
        else:
            continue
        if len(ranges) < 2:
            continue
        head = (slice(None),) * ax
        pos = ax if keepdims else ax - len([r for r in red if r < ax])
        parts = parallel(lambda lo, hi: kern(a[head + (slice(lo, hi),)], axis=axes,
                                             keepdims=keepdims, **kw), ranges)
        return np.concatenate(parts, axis=pos)
    # A reduced axis: only where the pieces' results combine exactly.
    exact_int = a.dtype.kind in "biu" and (want is None or want.kind in "biu") and kern in _EXACT_INT
    extremum = kern in _EXTREMA and uncast
    if len(red) == nd and uncast and a.dtype in _C_FLOATS and (kern == _R or kern is _c_add_reduce):
        total = _pairwise_sum(a.reshape(-1), nt)  # NumPy's own tree, cut at its top
        if total is not None:
            r = np.asarray(total, dtype=a.dtype)
            return r.reshape((1,) * nd) if keepdims else r
        return kern(a, axis=axes, keepdims=keepdims, **kw)
    ax = red[0]
    if not (exact_int or extremum) or a.shape[ax] < nt:
        return kern(a, axis=axes, keepdims=keepdims, **kw)
    head = (slice(None),) * ax
    parts = parallel(lambda lo, hi: kern(a[head + (slice(lo, hi),)], axis=red, keepdims=True, **kw),
                     chunks(a.shape[ax], nt))
    r = kern(np.concatenate(parts, axis=ax), axis=ax, keepdims=True, **kw)
    if r.dtype.kind in "fc" and (not np.all(r != 0) or np.isnan(r).any()):
        # A zero or NaN extremum: its sign (payload) is the one NumPy's whole-array
        # order picks, which the pieces' order need not: ask NumPy for it.
        return kern(a, axis=axes, keepdims=keepdims, **kw)
    return r if keepdims else r.reshape([n for i, n in enumerate(a.shape) if i not in red])


_SCALAR_SPLIT = frozenset([np.add, np.subtract, np.multiply, np.divide])  # ew_binary's with a scalar


def c_splits(k, dt, binary: bool, scalar: bool) -> bool:
    """Whether ``large_c_order`` hands ``k``'s call (result dtype ``dt``; two operands or
    one; one of them a Python scalar) to the C pool, which splits it from the thread
    threshold on: SD_EW_BINARY_OPS (with a scalar: add, subtract, multiply, divide) and
    the unary loop ufuncs, on float32/float64."""
    if _CK is None or dt not in _C_FLOATS:
        return False
    if binary:
        return k in _C_BINARY and (not scalar or k in _SCALAR_SPLIT)
    return k in _LOOP_UFUNCS


# The compiled hot path (strided/_csrc/_chot/loops.c, "large results") makes the results of
# NumPy's loops and of ``where`` itself at every size, taking large ones from the pool as
# ``large_c_order`` does; from the thread threshold on (more than one thread) it leaves the
# calls ``c_splits`` names to ``large_c_order``, which splits them on the C pool. (The
# others run on one thread there: the Python pool lost to one thread at every size
# measured, 256 KiB to 8 MiB, 1.4-7x on ``a < b``, on this loaded 2-core machine.)
_CHOT = _cext.load("_chot")
if _CHOT is not None and hasattr(_CHOT, "setup_large"):
    _CHOT.setup_large(_pool.empty, _THREAD_MIN, _NUM, c_splits)
