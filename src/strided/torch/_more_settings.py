"""PyTorch's process-wide settings that scripts call at the top, ``torch.compile``,
``kaiser_window`` and ``frombuffer``.

What each setting means in strided:

* ``set_float32_matmul_precision``: PyTorch's value is a hint ("internal computations *may*
  use lower precision"); strided's float32 matmul always computes in full float32 precision,
  i.e. what "highest" asks for, whatever is set. The value set is kept and returned by
  ``get_float32_matmul_precision``, as PyTorch's; an unknown value warns and is ignored.
* ``use_deterministic_algorithms``: strided's kernels (NumPy's, CuPy's with no atomics in
  strided's own) give the same result for the same input on every run, so every mode is
  honoured; the flags are kept and reported as PyTorch's.
* ``set_flush_denormal``: strided can't switch the CPU's flush-to-zero mode (NumPy offers no
  control) and always keeps denormals: ``set_flush_denormal(True)`` returns False (PyTorch's
  answer where it can't be set), ``set_flush_denormal(False)`` True (the mode asked for holds).
* ``set_num_interop_threads``: strided runs no inter-op thread pool (its one pool is
  ``set_num_threads``'); the number is kept and reported, once, as PyTorch's.
* ``is_inference_mode_enabled`` and ``Tensor.is_inference``: strided's ``inference_mode`` is
  ``no_grad`` and tracks no inference tensors, so both raise NotImplementedError rather than
  answer wrongly.
"""

from __future__ import annotations

import math
import os
import sys
import warnings

import numpy as np

from .._core import dtypes as _dtypes
from .._core.caller import stacklevel
from .._core.array import Array

__all__ = [
    "set_float32_matmul_precision", "get_float32_matmul_precision", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
    "set_flush_denormal", "is_inference_mode_enabled", "get_num_interop_threads", "set_num_interop_threads",
    "compile", "kaiser_window", "frombuffer",
]

_STATE = {"matmul_precision": "highest", "deterministic": False, "warn_only": False, "interop": None}


def _ns():
    return sys.modules["strided"]


def set_float32_matmul_precision(precision):
    """``torch.set_float32_matmul_precision(precision)``: "highest", "high" or "medium" (kept
    and returned by ``get_float32_matmul_precision``); strided's float32 matmul computes in
    full precision under every value (PyTorch's "highest"), which each value allows.

    >>> import strided.torch as torch
    >>> torch.set_float32_matmul_precision("high")
    >>> torch.get_float32_matmul_precision()
    'high'
    >>> torch.set_float32_matmul_precision("highest")
    """
    if not isinstance(precision, str):
        raise TypeError(f"set_float32_matmul_precision(): argument 'precision' must be str, not "
                        f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=stacklevel())
        return
    _STATE["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """``torch.get_float32_matmul_precision()``: the value last set ("highest" at start).

    >>> import strided.torch as torch
    >>> torch.get_float32_matmul_precision()
    'highest'
    """
    return _STATE["matmul_precision"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """``torch.use_deterministic_algorithms(mode, *, warn_only=False)``: strided's operations
    are deterministic under every mode (no nondeterministic kernel to refuse or warn about);
    the flags are kept for ``are_deterministic_algorithms_enabled`` and
    ``is_deterministic_algorithms_warn_only_enabled``.

    >>> import strided.torch as torch
    >>> torch.use_deterministic_algorithms(True)
    >>> torch.are_deterministic_algorithms_enabled()
    True
    >>> torch.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _STATE["deterministic"] = mode
    _STATE["warn_only"] = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """``torch.are_deterministic_algorithms_enabled()``: the mode last set (False at start).

    >>> import strided.torch as torch
    >>> torch.are_deterministic_algorithms_enabled()
    False
    """
    return _STATE["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """``torch.is_deterministic_algorithms_warn_only_enabled()``: the ``warn_only`` last set.

    >>> import strided.torch as torch
    >>> torch.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _STATE["warn_only"]


def set_flush_denormal(mode) -> bool:
    """``torch.set_flush_denormal(mode)``: whether the mode asked for holds. strided can't
    make the CPU flush denormal floats to zero (NumPy has no control for it) and always keeps
    them: ``True`` gives False (PyTorch's answer on a CPU without support), ``False`` True.

    >>> import strided.torch as torch
    >>> torch.set_flush_denormal(True), torch.set_flush_denormal(False)
    (False, True)
    """
    if not isinstance(mode, bool):
        raise TypeError(f"set_flush_denormal(): argument 'mode' must be bool, not {type(mode).__name__}")
    return not mode


def is_inference_mode_enabled():
    """``torch.is_inference_mode_enabled()``: not supported: strided's ``inference_mode`` is
    ``no_grad`` and is not told apart from it (use ``is_grad_enabled``).

    >>> import strided.torch as torch
    >>> torch.is_grad_enabled()
    True
    """
    raise NotImplementedError("is_inference_mode_enabled(): strided's inference_mode is no_grad and is not "
                              "tracked apart from it; use torch.is_grad_enabled()")


def _is_inference(self):
    """``x.is_inference()``: not supported: strided makes no inference tensors (its
    ``inference_mode`` is ``no_grad``), and can't tell which arrays PyTorch would mark."""
    raise NotImplementedError("is_inference(): strided's inference_mode is no_grad and makes no inference "
                              "tensors; an array's requires_grad says whether autograd tracks it")


def get_num_interop_threads() -> int:
    """``torch.get_num_interop_threads()``: the number set, else the CPU count (PyTorch's
    default); strided runs no inter-op pool.

    >>> import strided.torch as torch
    >>> torch.get_num_interop_threads() >= 1
    True
    """
    n = _STATE["interop"]
    return n if n is not None else (os.cpu_count() or 1)


def set_num_interop_threads(num):
    """``torch.set_num_interop_threads(num)``: kept for ``get_num_interop_threads``; strided
    runs no inter-op pool. As PyTorch's, it can be called once, with a positive number."""
    if isinstance(num, bool) or not isinstance(num, int):
        raise TypeError(f"set_num_interop_threads(): argument 'num' must be int, not {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("Expected positive number of threads")
    if _STATE["interop"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _STATE["interop"] = num


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """``torch.compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor",
    mode=None, options=None, disable=False)``: strided compiles nothing: ``model`` (a module
    or function) is returned as it is, meaning what it meant; without ``model``, a decorator
    that does the same. The keyword arguments are accepted and checked for type only.

    >>> import strided.torch as torch
    >>> f = torch.compile(lambda x: x * 2, mode="max-autotune")
    >>> f(torch.tensor([1.0]))
    tensor([2.])
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: default, reduce-overhead, max-autotune, "
                           "max-autotune-no-cudagraphs")
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if not callable(model):
        raise RuntimeError("The torch.compile argument must be callable (a function or a module)")
    return model


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """``torch.kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None,
    device=None, requires_grad=False)``: ``i0(beta sqrt(1 - ((n - N/2) / (N/2))**2)) / i0(beta)``
    for ``n < N``, ``N = window_length`` (+ 1, the last dropped, where ``periodic``).

    >>> import strided.torch as torch
    >>> torch.kaiser_window(3, periodic=False, beta=0.0)
    tensor([1., 1., 1.])
    """
    from ._shape_functions import _window

    def body(n, dt, dev):
        ns = _ns()
        alpha = (n - 1) / 2.0
        k = (ns.arange(n, dtype=dt, device=dev) - alpha) / alpha
        arg = ns.sqrt(ns.clip(1.0 - k * k, 0.0, None)) * beta
        return ns.torch.i0(arg) / ns.torch.i0(ns.asarray(beta, dtype=dt, device=dev))
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, body)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """``torch.frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False)``: a 1-D
    CPU array over the memory of an object with the buffer protocol (no copy: writes through
    either show in the other); ``count`` elements from byte ``offset`` (-1: all that fit).

    >>> import strided.torch as torch
    >>> b = bytearray(8)
    >>> x = torch.frombuffer(b, dtype=torch.int32)
    >>> x[1] = 7
    >>> b[4]
    7
    """
    ns = _ns()
    dt = dtype if isinstance(dtype, _dtypes.DType) else None
    if dt is None:
        raise TypeError(f"frombuffer(): argument 'dtype' must be a strided dtype; got {type(dtype).__name__}")
    try:
        mv = memoryview(buffer)
    except TypeError:
        raise ValueError(f"frombuffer(): object {type(buffer).__name__} does not implement the buffer "
                         f"protocol") from None
    nbytes = mv.nbytes
    item = dt.itemsize
    if nbytes <= 0 or count == 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if not 0 <= offset < nbytes:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({nbytes} bytes) minus 1")
    if count < 0:
        if (nbytes - offset) % item:
            raise ValueError(f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({item})")
        count = (nbytes - offset) // item
    elif offset + count * item > nbytes:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({nbytes} bytes)")
    arr = np.frombuffer(buffer, dtype=dt._np, count=count, offset=offset)
    if not arr.flags.writeable:
        warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
                      "means you can write to the underlying (supposedly non-writable) buffer using the tensor. "
                      "You may want to copy the buffer to protect its data or make it writable before converting "
                      "it to a tensor. This type of warning will be suppressed for the rest of this program.",
                      UserWarning, stacklevel=stacklevel())
    r = ns.asarray(arr, copy=False, device="cpu")  # (PyTorch's frombuffer: a CPU tensor)
    if requires_grad:
        r.requires_grad_()
    return r


if not hasattr(Array, "is_inference"):
    Array.is_inference = _is_inference
