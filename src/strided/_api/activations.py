"""The kernels of the activation rows (``relu``, ``sigmoid``, ``silu``) of the elementwise
registry (``strided._api.elementwise.ROWS``).

Each kernel is ``kernel(xp, a) -> native`` on one backend array of a floating dtype
(``relu`` also takes integers); the row's tables have already promoted integers to
the default float where the row says so. The values are PyTorch's:

- ``relu(x) = max(0, x)`` with NaN propagated and ``relu(-0.0) = -0.0``: for
  C-contiguous float32/float64 arrays one compiled pass, ``x < 0 ? +0 : x``
  (``_ckernels.relu``, on the thread pool when large); elsewhere NumPy's
  ``maximum(0.0, x)`` (the constant first: NumPy returns its second operand on a
  tie, as PyTorch's ``clamp_min`` does; ``maximum(x, 0.0)`` gives +0).
- ``sigmoid(x) = 1 / (1 + exp(-x))``, PyTorch's formula in the array's dtype (no
  overflow: exp(-x) = inf gives 0); float16 is computed in float32 (PyTorch's CPU
  kernel does the same) and rounded once.
- ``silu(x) = x / (1 + exp(-x))``, PyTorch's formula (silu(-1000) = -0).

Why kernels of their own: as composites (``where(x <= 0, 0, x)``, ``where(x >= 0, 1, z)
/ (1 + z)`` with ``z = exp(-|x|)``) each call made 3-5 full-size temporaries and as many
passes over memory. Here ``relu`` is one pass (NumPy's maximum against a cached
constant block, ``_extremum_kernel``, from 4096 elements), and ``sigmoid``/``silu``
run their four steps in place over blocks of ``_BLOCK`` elements that stay in the
second-level cache, writing the one result buffer (pooled when large).
"""

from __future__ import annotations

import numpy as np

from .._core import threads as _threads
from .._core.pool import MIN_BYTES as _BIG
from .._core.pool import empty as _pool_empty

_ND = np.ndarray
_CK = _threads._CK  # the compiled kernels (strided._csrc._ckernels), or None
_C_RELU = frozenset([np.dtype(np.float32), np.dtype(np.float64)])
_BLOCK = 32768  # elements per block (128-256 KiB: in the second-level cache; 4096 cost 2x in calls)
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _result(a):
    """An uninitialised C-contiguous result of ``a``'s shape and dtype (pooled when large)."""
    if a.nbytes >= _BIG[0]:
        return _pool_empty(a.shape, a.dtype, a.nbytes)
    return np.empty(a.shape, a.dtype)


def relu_kernel(maximum_kernel):
    """``relu``'s kernel on top of the ``maximum`` row's float kernel (the constant-block path)."""
    def relu(xp, a):
        dt = a.dtype
        if dt.kind != "f":
            return xp.maximum(a, 0)  # integers: 0 is a weak scalar, the dtype stays
        if xp is not np:
            # (another backend's maximum need not keep -0.0: where does, and NaN)
            return xp.where(a < 0, xp.zeros_like(a), a)
        if a.size < 4096:  # one NumPy call: less overhead than the compiled pass's checks
            return np.maximum(0.0, a)
        if _CK is not None and type(a) is _ND and dt in _C_RELU and a.flags.c_contiguous:
            out = _result(a)
            nt = _threads._NUM[0] if a.nbytes >= _threads._THREAD_MIN[0] else 1
            if _CK.relu(a, out, nt):
                return out
        return maximum_kernel(xp, 0.0, a)
    return relu


def _logistic(a, silu: bool):
    """``1 / (1 + exp(-a))`` (``a / (1 + exp(-a))`` for silu) of a NumPy float array."""
    if a.dtype == _F16:
        return _logistic(a.astype(_F32), silu).astype(_F16)
    out = _result(a)
    neg, exp, add, rec, div = np.negative, np.exp, np.add, np.reciprocal, np.divide
    if a.size <= _BLOCK or not a.flags.c_contiguous:
        neg(a, out=out)
        exp(out, out=out)
        add(out, 1.0, out=out)
        if silu:
            div(a, out, out=out)
        else:
            rec(out, out=out)
        return out
    src, dst, n = a.reshape(-1), out.reshape(-1), a.size
    for i in range(0, n, _BLOCK):
        j = i + _BLOCK
        t = dst[i:j]
        neg(src[i:j], out=t)
        exp(t, out=t)
        add(t, 1.0, out=t)
        if silu:
            div(src[i:j], t, out=t)
        else:
            rec(t, out=t)
    return out


def sigmoid(xp, a):
    if xp is np and type(a) is _ND:
        return _logistic(a, False)
    return 1.0 / (1.0 + xp.exp(-a))


def silu(xp, a):
    if xp is np and type(a) is _ND:
        return _logistic(a, True)
    return a / (1.0 + xp.exp(-a))
