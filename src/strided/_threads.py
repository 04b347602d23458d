"""Intra-op threads and the large-result path of elementwise kernels on the CPU.

NumPy releases the GIL inside its ufunc loops, so a large elementwise
operation split into chunks along its first axis runs on several cores from
a small pool of Python threads. Each output element is computed by the same
loop on the same inputs as in one thread, so results are identical in value.

``set_num_threads(n)`` / ``get_num_threads()`` set the number of threads (the
default is the number of cores this process may run on,
``os.sched_getaffinity``, as PyTorch's default); operations whose result is
smaller than ``get_thread_threshold()`` bytes (default 2 MiB), and
reductions of inputs smaller than 4x that, stay on the calling thread (a
hand-off to a pool thread costs tens of microseconds).

``large_ufunc`` is what the elementwise functions call for results of at
least the pool's threshold: the result buffer comes from the caching pool
(``strided._pool``) instead of freshly faulted-in memory, and is filled in
chunks by the thread pool.
"""

from __future__ import annotations

import math
import operator
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _cfast, _pool

__all__ = ["set_num_threads", "get_num_threads", "set_thread_threshold",
           "get_thread_threshold", "large_ufunc"]


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


_NUM = [_default_threads()]
_THREAD_MIN = [2 << 20]
_REDUCE_FACTOR = 4  # a reduction reads its input once: split from 4x the threshold
_EXEC: list = [None, 0]  # executor, its worker count
_ND = np.ndarray


def _forget_executor() -> None:
    # A forked child has none of its parent's worker threads: start a fresh pool there.
    _EXEC[0] = None
    _EXEC[1] = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_executor)


def _executor():
    n = _NUM[0]
    ex = _EXEC[0]
    if ex is None or _EXEC[1] != n:
        if ex is not None:
            ex.shutdown(wait=False)
        ex = _EXEC[0] = ThreadPoolExecutor(max_workers=n - 1, thread_name_prefix="strided")
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
    of strided._cfast, or NumPy's) and the step sums are added exactly
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


def large_reduce(kern, a, axes, keepdims: bool, **kw):
    """``kern(a, axis=axes, keepdims=keepdims, **kw)``, split across threads when ``a`` is large.

    ``kern`` is an associative reduction (``add.reduce``, ``multiply.reduce``,
    ``max``, ``min``). Split along a kept axis, every result element is
    computed as in one thread (identical values); split along a reduced axis,
    each thread reduces its chunk and the partial results are reduced once
    more, which for sums regroups the additions (each chunk is still summed
    pairwise, so the error bound stays NumPy's).
    """
    if kern == _R:  # the C pairwise sum where it applies (strided._cfast)
        kern = _c_add_reduce
    nt = _NUM[0]
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
    return r if keepdims else r.reshape([n for i, n in enumerate(a.shape) if i not in red])
