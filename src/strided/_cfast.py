"""The optional C kernels (``_ckernels.c``) behind NumPy-compatible signatures.

``add_reduce(a, axis, keepdims, dtype)`` is ``numpy.add.reduce`` for the CPU
backend: a C-contiguous float32/float64 array summed over all axes or its
trailing ones goes to the C pairwise sum (2-3x NumPy's speed for float32, see
the kernel's comment for the accuracy argument); everything else goes to NumPy.
With the extension missing (no compiler at install time) or ``STRIDED_NO_CEXT=1``
in the environment, it is ``numpy.add.reduce`` itself.
"""

from __future__ import annotations

import numpy as np

from . import _cext

__all__ = ["AVAILABLE", "add_reduce"]

_ckernels = _cext.load("_ckernels")  # None: the NumPy kernels serve

AVAILABLE = _ckernels is not None
_ND = np.ndarray
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_np_add_reduce = np.add.reduce


def _c_add_reduce(a, axis=None, dtype=None, out=None, keepdims=False):
    if (type(a) is _ND and out is None and a.dtype in _FLOATS and a.dtype.isnative
            and (dtype is None or a.dtype == dtype)
            and a.flags.c_contiguous and a.size):
        nd = a.ndim
        if axis is None:
            k = nd
        else:
            axes = sorted(ax % nd if type(ax) is int and -nd <= ax < nd else nd
                          for ax in ((axis,) if type(axis) is int else axis))
            k = len(axes)
            if axes != list(range(nd - k, nd)):  # not the trailing axes (or a bad axis: NumPy says)
                return _np_add_reduce(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
        if k:
            shape = a.shape
            lead = shape[:nd - k]
            r = np.empty(lead, a.dtype)
            _ckernels.sum_rows(a, r, a.size // r.size)
            return r.reshape(lead + (1,) * k) if keepdims else r
    return _np_add_reduce(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)


add_reduce = _c_add_reduce if AVAILABLE else _np_add_reduce
