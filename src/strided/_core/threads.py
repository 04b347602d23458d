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
  axes (``reduce``: a whole-array sum split along its own pairwise tree, bit
  for bit the one-thread sum; axis reductions split by rows or column tiles,
  each output computed as in one thread).

Everything else (broadcasting, scalars, other dtypes, non-contiguous inputs,
other reductions), and everything when the extension is absent or
``STRIDED_NO_CEXT=1``, takes the Python path: a small ThreadPoolExecutor
splitting NumPy's own ufunc calls along the first axis (NumPy releases the
GIL in its loops); each output element is computed by the same loop on the
same inputs as in one thread, so results are identical in value.

``set_num_threads(n)`` / ``get_num_threads()`` set the number of threads (the
default is the number of cores this process may run on,
``os.sched_getaffinity``, as PyTorch's default; 1 uses no pool at all);
operations whose result is smaller than ``get_thread_threshold()`` bytes, and
reductions of inputs smaller than 4x that, stay on the calling thread. The
default threshold is 256 KiB with the C pool (a hand-off costs a few
microseconds) and 2 MiB with the Python pool (tens of microseconds).

``large_ufunc`` is what the elementwise functions call for results of at
least the buffer pool's threshold: the result buffer comes from the caching
pool (``strided._core.pool``) instead of freshly faulted-in memory, and is filled
in chunks by the threads.
"""

from __future__ import annotations

import math
import operator
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import cfast as _cfast, pool as _pool

__all__ = ["set_num_threads", "get_num_threads", "set_thread_threshold",
           "get_thread_threshold", "large_ufunc", "ufunc_into"]


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


_CK = _cfast._ckernels if _cfast.AVAILABLE else None  # the C pool, or None
_NUM = [_default_threads()]
_THREAD_MIN = [(256 << 10) if _CK is not None else (2 << 20)]
_REDUCE_FACTOR = 4  # a reduction reads its input once: split from 4x the threshold
_EXEC: list = [None, 0]  # executor, its worker count
_ND = np.ndarray


def _forget_executor() -> None:
    # A forked child has none of its parent's worker threads: start a fresh pool there.
    _EXEC[0] = None
    _EXEC[1] = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_executor)


def _quiet_worker():
    """A pool thread runs strided's kernels only: NumPy's "ignore" error state for
    good (its own context; see _dispatch.quiet)."""
    from .dispatch import ERRSTATE, QUIET
    if ERRSTATE is not None:
        ERRSTATE.set(QUIET)


def _executor():
    n = _NUM[0]
    ex = _EXEC[0]
    if ex is None or _EXEC[1] != n:
        if ex is not None:
            ex.shutdown(wait=False)
        ex = _EXEC[0] = ThreadPoolExecutor(max_workers=n - 1, thread_name_prefix="strided",
                                           initializer=_quiet_worker)
        _EXEC[1] = n
    return ex


def _arg(func: str, v, least: int) -> int:
    try:
        n = operator.index(v)
    except TypeError:
        raise TypeError(f"{func}(): expected an int; got {type(v).__name__}") from None
    if n < least:
        raise ValueError(f"{func}(): expected an int >= {least}; got {n}")
    return n


def set_num_threads(n: int) -> None:
    """Use ``n`` threads (``n >= 1``) for large elementwise operations and reductions."""
    _NUM[0] = _arg("set_num_threads", n, 1)


def get_num_threads() -> int:
    """The number of threads large operations use (default: the cores available)."""
    return _NUM[0]


def set_thread_threshold(nbytes: int) -> None:
    """Split elementwise operations across threads only when their result has at least
    ``nbytes`` bytes (reductions: when their input has at least 4x that)."""
    _THREAD_MIN[0] = _arg("set_thread_threshold", nbytes, 1)


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


def parallel(fn, ranges: list) -> list:
    """``[fn(lo, hi) for lo, hi in ranges]``, the first range on this thread, the rest on the pool."""
    ex = _executor()
    futs = [ex.submit(fn, lo, hi) for lo, hi in ranges[1:]]
    first = fn(*ranges[0])
    return [first] + [f.result() for f in futs]


# ufunc -> ew_binary's op code: the C table SD_EW_BINARY_OPS, exported by name (each op runs
# NumPy's own loop of that ufunc per chunk, so NaN payloads and signed zeros are NumPy's)
_C_BINARY = {getattr(np, name): code for name, code in _CK.EW_BINARY_OPS.items()} if _CK is not None else {}
# Unary float ufuncs whose NumPy inner loop the C pool runs per chunk (each tested for
# identical values across chunk boundaries in tests/_csrc/test_threads_c.py).
_LOOP_UFUNCS = frozenset([np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p,
                          np.sqrt, np.cbrt, np.sin, np.cos, np.tan, np.arcsin, np.arccos,
                          np.arctan, np.sinh, np.cosh, np.tanh, np.arcsinh, np.arccosh,
                          np.arctanh, np.negative, np.absolute, np.square, np.reciprocal,
                          np.floor, np.ceil, np.trunc, np.rint])
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
        try:
            dts, info = k._resolve_dtypes_and_context((dt, None))
            if tuple(dts) != (dt, dt):
                info = None
            else:
                k._get_strided_loop(info, fixed_strides=(dt.itemsize, dt.itemsize))
        except Exception:  # an older NumPy, or a loop it won't hand out: the Python path
            info = None
    _LOOPS[key] = info
    return info


def ufunc_into(k, x, y, out) -> None:
    """``k(x, y, out=out)`` where ``out`` is ``x`` or ``y`` itself (temporary elision): on the
    C pool when it is large and everything is one float dtype and size, else NumPy's call."""
    nt = _NUM[0]
    if nt > 1 and _CK is not None and out.nbytes >= _THREAD_MIN[0]:
        op = _C_BINARY.get(k)
        if op is not None and _CK.ew_binary(op, x, y, out, nt):
            return
    k(x, y, out=out)


def large_ufunc(k, args: tuple, np_dtype):
    """``k(*args)`` for a result of at least the pool threshold: pooled buffer, threads.

    Falls back to ``k(*args)`` when an input is not C-contiguous (NumPy then
    picks the result's layout) or the kernel cannot write ``np_dtype``.
    """
    shape = None
    mixed = False
    for x in args:
        if type(x) is _ND:
            if not x.flags.c_contiguous:
                return k(*args)
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
    if nt > 1 and nbytes >= _THREAD_MIN[0] and shape[0] >= nt:
        nd = len(shape)
        d0 = shape[0]
        split = [type(x) is _ND and x.ndim == nd and x.shape[0] == d0 for x in args]

        def part(lo, hi):
            k(*[x[lo:hi] if s else x for x, s in zip(args, split)], out=buf[lo:hi])
        try:
            parallel(part, chunks(d0, nt))
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


def _flat_parts(n: int, itemsize: int) -> list:
    """Ranges of a flat reduction's input, one per thread when it is large enough to split."""
    nt = _NUM[0]
    if nt > 1 and n * itemsize >= _REDUCE_FACTOR * _THREAD_MIN[0]:
        return chunks(n, nt)
    return [(0, n)]


def sum_sq_dev(a, m) -> float:
    """``sum((a - m)**2)`` over all of C-contiguous float ``a`` (``m`` a scalar of its dtype),
    as a Python float, without a full-size temporary.

    The input is read once, in steps of ``_DEV_CHUNK`` elements whose deviations
    stay in one small buffer in cache; each step is summed pairwise (the C kernel
    of strided._core.cfast, or NumPy's) and the step sums are added exactly
    (``math.fsum``): the error bound is the pairwise bound over one step, no
    worse than NumPy's over the whole array.
    """
    flat = a.reshape(-1)
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
        return _exact_sum(out)
    parts = _flat_parts(flat.shape[0], flat.itemsize)
    if len(parts) == 1:
        return part(0, flat.shape[0])
    return _exact_sum(parallel(part, parts))


_np_max, _np_min = np.max, np.min
_c_max, _c_min = _cfast.max_reduce, _cfast.min_reduce
# the kernels reduce() in C runs: their op codes (the C table SD_REDUCE_OPS, by name)
_RED = _CK.REDUCE_OPS if _CK is not None else {}
_C_OPS = {_c_add_reduce: _RED["sum"], _c_max: _RED["max"], _c_min: _RED["min"]} if _CK is not None else {}
_layout = _cfast.layout
_empty = np.empty


_prod = math.prod


def reduce1(op, a, axis, keepdims):
    """The C reduction (op 0 sum, 1 max, 2 min) of ndarray ``a`` over all axes (``axis``
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
    if not _CK.reduce(op, a, r, outer, nred, inner, nt if big else 1):
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


def large_reduce(kern, a, axes, keepdims: bool, **kw):
    """``kern(a, axis=axes, keepdims=keepdims, **kw)``, split across threads when ``a`` is large.

    ``kern`` is an associative reduction (``add.reduce``, ``multiply.reduce``,
    ``max``, ``min``). Sums, max and min of a C-contiguous float32/float64
    array over all axes or one run of adjacent axes run in C (``_ckernels``'s
    ``reduce``), on the C pool when the input is large: each output computed
    as in one thread (a whole-array sum split along its own pairwise tree),
    so the values don't depend on the thread count. Elsewhere, split along a
    kept axis, every result element is computed as in one thread (identical
    values); split along a reduced axis, each thread reduces its chunk and
    the partial results are reduced once more, which for sums regroups the
    additions (each chunk is still summed pairwise, so the error bound stays
    NumPy's).
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
            or not a.flags.c_contiguous
            or a.ndim == 0):
        return kern(a, axis=axes, keepdims=keepdims, **kw)
    nd = a.ndim
    red = tuple(range(nd)) if axes is None else tuple(sorted(axes))
    for ax in range(nd):
        if ax not in red and a.shape[ax] >= nt:  # a kept axis: identical values
            head = (slice(None),) * ax
            pos = ax if keepdims else ax - len([r for r in red if r < ax])
            parts = parallel(lambda lo, hi: kern(a[head + (slice(lo, hi),)], axis=axes,
                                                 keepdims=keepdims, **kw), chunks(a.shape[ax], nt))
            return np.concatenate(parts, axis=pos)
    ax = red[0]
    if a.shape[ax] < nt:
        return kern(a, axis=axes, keepdims=keepdims, **kw)
    head = (slice(None),) * ax
    parts = parallel(lambda lo, hi: kern(a[head + (slice(lo, hi),)], axis=red, keepdims=True, **kw),
                     chunks(a.shape[ax], nt))
    shape = [1 if i in red else n for i, n in enumerate(a.shape)]
    if len(red) == nd and (kern == _R or kern is _c_add_reduce) and parts[0].dtype.kind == "f":
        # A full float sum: add the partial sums exactly, rounding once.
        r = np.asarray(_exact_sum([float(p.reshape(())) for p in parts]), dtype=parts[0].dtype)
        r = r.reshape(shape)
    else:
        r = kern(np.concatenate(parts, axis=ax), axis=ax, keepdims=True, **kw)
        if kern in (_np_max, _np_min, _c_max, _c_min) and r.dtype.kind == "f" and not np.all(r != 0):
            # A zero (or NaN) extremum: its sign (payload) is the one NumPy's whole-array
            # order picks, which the chunks' order need not: ask NumPy for it.
            return kern(a, axis=axes, keepdims=keepdims, **kw)
    return r if keepdims else r.reshape([n for i, n in enumerate(a.shape) if i not in red])
