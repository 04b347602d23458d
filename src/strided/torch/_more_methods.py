"""More of ``torch.Tensor``'s methods, each meaning what PyTorch 2.13's means on a dense
strided tensor, or raising where strided has no such thing.

- ``x.apply_(f)``, ``x.map_(y, f)``, ``x.map2_(y, z, f)``: Python's ``f`` called on each
  element in row-major order and its result stored back with PyTorch's conversions
  (``torch/csrc/utils/tensor_apply.cpp`` and ``python_scalars.h``: a float into an integer
  array truncates, ``uint8`` takes -255..255, NaN into an integer raises ...). CPU only,
  refused for any operand that requires grad (even under ``no_grad``), as PyTorch's. They
  write through strided's one writer (``_core.call.write.target``): a target whose elements
  share memory is refused and the version counter is bumped (# Note: PyTorch bumps none,
  so a saved operand changed this way gives a silently wrong gradient there; here its
  backward raises).
- ``x.stft(...)``, ``x.istft(...)``, ``x.nonzero_static(size=, fill_value=)``: the
  functions; ``x.const_data_ptr()`` is ``x.data_ptr()``; ``x.dim_order(ambiguity_check=)``
  and ``x.is_set_to(y)`` are PyTorch's rules (``torch/_tensor.py``, ATen's ``is_set_to``).
- ``x.pin_memory()``: PyTorch's error where no accelerator is available (strided
  allocates no page-locked memory: ``is_pinned()`` is always False). ``x.share_memory_()``
  and ``x.storage_type()`` raise: strided's storage is this process's NumPy or CuPy memory,
  which views hold directly, so it cannot move to shared memory (``is_shared()`` stays
  False), and it has no per-dtype legacy storage classes (``torch.FloatStorage``).
- The sparse tensors' accessors raise PyTorch's errors for a strided tensor
  (``sparse_dim()`` is 0 and ``dense_dim()`` is ``ndim``, as PyTorch's); ``to_sparse*`` check
  their arguments as PyTorch does and then refuse the sparse layout (strided has none);
  ``to_mkldnn`` likewise. The quantized accessors raise PyTorch's NotImplementedError, and
  ``dequantize()`` of an unquantized tensor is ``x.to(torch.float32)`` (``x`` itself when
  already float32), not differentiable, as PyTorch's.
- Shapes, strides and storage are immutable by design (views share memory, never
  geometry): ``resize_``, ``resize_as_``, ``set_`` and ``as_strided_`` do exactly the calls
  that leave ``x`` as it is (``out.resize_(shape)`` before writing ``out`` is common) and
  raise for the rest, after PyTorch's own argument checks. The deprecated out-of-place
  ``x.resize(*sizes)`` and ``x.resize_as(y)`` make a new array (PyTorch's autograd
  ``Resize``: same number of elements, a contiguous view).

>>> import strided.torch as torch
>>> torch.tensor([1.0, 2.0, 3.0], device="cpu").apply_(lambda v: v * 10).tolist()
[10.0, 20.0, 30.0]
>>> torch.empty(2, 3, 4).transpose(1, 2).dim_order()
(0, 2, 1)
"""

from __future__ import annotations

import inspect
import math
import operator
import sys
import warnings
from functools import reduce

import numpy as np

from .._core.array import Array
from .._core.call.write import target as _target
from .._core.caller import stacklevel
from .._core.storage import Storage
from ._layouts import check_factory as _check_layout
from ._memory_format import (
    _channels_last_strides, channels_last, contiguous_format, memory_format as _memory_format,
    memory_order as _memory_order, preserve_format, suggest_memory_format as _suggest)

__all__: list = []  # (methods only)


def _t():
    return sys.modules["strided.torch"]


def _is_cpu(x) -> bool:
    return x._device.type == "cpu"


def _backend(x) -> str:
    return "CPU" if _is_cpu(x) else "CUDA"


# ATen's TensorBase::toString: the legacy name for the dtypes that have one, else the
# dispatch key and the scalar type ("CPUBoolType"), as PyTorch's messages print a tensor.
_SCALAR_NAME = {"bool": "Bool", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
                "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
# caffe2's TypeMeta names, which set_'s dtype message prints
_C_TYPE = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
           "int32": "int", "int64": "long int", "uint16": "short unsigned int",
           "uint32": "unsigned int", "uint64": "long unsigned int", "float16": "c10::Half",
           "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}


def _type_string(x) -> str:
    name = _SCALAR_NAME.get(x._dtype.name)
    return x.type() if name is None else f"{_backend(x)}{name}Type"


def _tensor_arg(func: str, arg: str, pos: int, x) -> Array:
    if type(x) is not Array:
        raise TypeError(f"{func}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")
    return x


def _grad_on() -> bool:
    return _t().is_grad_enabled()


# --- apply_, map_, map2_ ------------------------------------------------------------------
# PyTorch's store_scalar (torch/csrc/utils/python_scalars.h): how a Python result becomes an
# element of each dtype. Integers: a float is checked (c10::checked_convert from double) and
# truncated; anything else goes through __index__ into int64, and an unsigned target takes a
# negative value whose magnitude fits (c10::overflows: two's complement wrap).

def _overflow(name):
    return RuntimeError(f"value cannot be converted to type {name} without overflow")


def _as_double(obj) -> float:
    # (PyFloat_AsDouble, as THPUtils_unpackDouble: __float__ or __index__, and Python's own
    # "must be real number, not str"; math.ldexp's argument is converted by it, x * 2**0 is x)
    return obj if type(obj) is float else math.ldexp(obj, 0)


def _store_integer(name: str, lo: int, hi: int):
    unsigned = lo == 0

    def store(obj):
        if isinstance(obj, float):
            f = float(obj)
            # Note: PyTorch compares with the limit rounded to double, so 2.0**63 passes into
            # int64 and lands as an undefined cast (INT64_MIN measured); compared exactly here,
            # it raises.
            if f != f or f < lo or f > hi:
                raise _overflow(name)
            return int(f)
        v = operator.index(obj)
        if not -2 ** 63 <= v < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        if v > hi or (v < 0 and (-v > hi if unsigned else v < lo)):
            raise _overflow(name)
        return v % (hi + 1) if unsigned else v
    return store


def _store_uint64(obj):
    # (PyLong_AsUnsignedLongLong and its messages)
    if not isinstance(obj, int):
        raise TypeError("an integer is required")
    if obj < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if obj >= 2 ** 64:
        raise OverflowError("int too big to convert")
    return obj


def _store_bool(obj):
    if isinstance(obj, float):
        return bool(float(obj))
    if isinstance(obj, complex):
        return not (obj.real == 0 and obj.imag == 0)
    return bool(operator.index(obj))


def _store_complex(obj):
    if isinstance(obj, complex) or hasattr(type(obj), "__complex__"):
        return complex(obj)
    return complex(_as_double(obj), 0.0)


_STORE = {n: _store_integer(n, int(np.iinfo(n).min), int(np.iinfo(n).max))
          for n in ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32")}
_STORE.update({
    "uint64": _store_uint64, "bool": _store_bool, "complex64": _store_complex, "complex128": _store_complex,
    "float64": _as_double, "float32": lambda o: np.float32(_as_double(o)),
    # (at::convert<Half, double>: double to float, then float to half)
    "float16": lambda o: np.float32(_as_double(o)),
})


def _expand_to(func: str, src: Array, shape: tuple):
    """``src``'s native broadcast to ``shape``, or PyTorch's ``expand_inplace`` error."""
    have = tuple(src._shape)
    if len(shape) < len(have):
        raise RuntimeError(f"expand({_type_string(src)}{{{list(have)}}}, size={list(shape)}): the number of "
                           f"sizes provided ({len(shape)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(have)})")
    for i in range(len(shape) - 1, -1, -1):
        j = i - (len(shape) - len(have))
        size = have[j] if j >= 0 else 1
        if size != shape[i] and size != 1:
            raise RuntimeError(f"The expanded size of the tensor ({shape[i]}) must match the existing size "
                               f"({size}) at non-singleton dimension {i}.  Target sizes: {list(shape)}.  "
                               f"Tensor sizes: {list(have)}")
    r = src._get_native()
    return r if have == shape else np.broadcast_to(r, shape)


def _run(func: str, self: Array, others: tuple, fn) -> Array:
    """Call ``fn`` on each element (with the others' elements at the same index) in row-major
    order, storing each result as it comes, as PyTorch's recursive_apply: a later call sees
    the earlier writes, and an exception leaves them written."""
    shape = tuple(self._shape)
    srcs = [_expand_to(func, o, shape) for o in others]
    dst = _target(self, f"{func}()")
    store = _STORE[self._dtype.name]
    with np.errstate(over="ignore", invalid="ignore"):
        for idx in np.ndindex(shape):
            args = [dst.item(*idx)]
            args.extend(s.item(*idx) for s in srcs)
            dst[idx] = store(fn(*args))
    return self


def _no_grad_operands(func: str, *xs) -> None:
    if any(x.requires_grad for x in xs):
        raise RuntimeError(f"Can't call {func}() on Variable that requires grad. Use "
                           f"var.detach().{func}() instead.")


def _same_type(func: str, self: Array, other: Array, what: str) -> None:
    if other._dtype is not self._dtype or other._device.type != self._device.type:
        raise TypeError(f"{func}: expected {_type_string(self)} for {what} (got {_type_string(other)})")


def _apply_(self, callable):  # noqa: A002 - PyTorch's parameter name
    """PyTorch's ``x.apply_(callable)``: each element replaced by ``callable(element)`` (a
    Python number; converted to ``x``'s dtype as PyTorch converts it), in row-major order;
    returns ``x``. CPU only; refused where ``x`` requires grad."""
    _no_grad_operands("apply_", self)
    if not _is_cpu(self):
        raise TypeError("apply_ is only implemented on CPU tensors")
    return _run("apply_", self, (), callable)


def _map_(self, other, callable):  # noqa: A002
    """PyTorch's ``x.map_(other, callable)``: each element replaced by
    ``callable(element, other's element)``, ``other`` (of ``x``'s dtype) broadcast to ``x``'s
    shape; returns ``x``. CPU only; refused where either requires grad."""
    _tensor_arg("map_", "other", 1, other)
    _no_grad_operands("map_", self, other)
    _same_type("map_", self, other, "'other'")
    if not _is_cpu(self):
        raise TypeError("map_ is only implemented on CPU tensors")
    return _run("map_", self, (other,), callable)


def _map2_(self, x, y, callable):  # noqa: A002
    """PyTorch's ``self.map2_(x, y, callable)``: each element replaced by
    ``callable(element, x's element, y's element)``, ``x`` and ``y`` (of ``self``'s dtype)
    broadcast to ``self``'s shape; returns ``self``. CPU only; refused where any requires grad."""
    _tensor_arg("map2_", "x", 1, x)
    _tensor_arg("map2_", "y", 2, y)
    _no_grad_operands("map2_", self, x, y)
    _same_type("map2_", self, x, "argument 'x'")
    _same_type("map2_", self, y, "argument 'y'")
    if not (_is_cpu(self) and _is_cpu(x) and _is_cpu(y)):
        raise TypeError("map2_ is only implemented on CPU tensors")
    return _run("map2_", self, (x, y), callable)


# --- the functions as methods, and the layout questions ----------------------------------------

def _stft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
          normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """PyTorch's ``x.stft(n_fft, ...)``: ``torch.stft(x, n_fft, ...)``."""
    return _t().stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                     return_complex=return_complex, align_to_window=align_to_window)


def _istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
           onesided=None, length=None, return_complex=False):
    """PyTorch's ``x.istft(n_fft, ...)``: ``torch.istft(x, n_fft, ...)``."""
    return _t().istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
                      return_complex=return_complex)


def _nonzero_static(self, *, size, fill_value=-1):
    """PyTorch's ``x.nonzero_static(*, size, fill_value=-1)``: ``torch.nonzero_static``."""
    # (the method's argument checks, in PyTorch 2.13's words)
    if type(size) is not int:
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not {type(size).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    return _t().nonzero_static(self, size=size, fill_value=fill_value)


def _const_data_ptr(self) -> int:
    """PyTorch's ``x.const_data_ptr()``: ``x.data_ptr()`` (strided has no read-only pointers)."""
    return self.data_ptr()


def _pin_memory(self, device=None):
    """PyTorch's ``x.pin_memory()``: raises, as PyTorch does without an accelerator (strided
    allocates no page-locked memory; ``x.is_pinned()`` is always False)."""
    if device is not None:
        warnings.warn("The argument 'device' of Tensor.pin_memory() is deprecated. Please do not pass "
                      "this argument.", DeprecationWarning, stacklevel=stacklevel())
    if not _is_cpu(self):
        raise RuntimeError(f"cannot pin '{_type_string(self)}' only dense CPU tensors can be pinned")
    if device is not None and _t().device(device).type == "cpu":
        raise RuntimeError("CPU device type not an accelerator.")
    if not _t().cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    raise RuntimeError("pin_memory(): strided allocates no page-locked (pinned) host memory, so "
                       "is_pinned() is always False; copy to the device with x.to('cuda') instead")


def _share_memory_(self):
    """PyTorch's ``x.share_memory_()`` moves the storage to shared memory; strided can't (its
    storage is this process's NumPy or CuPy memory, which views hold directly), so it raises
    rather than return ``x`` unshared (``x.is_shared()`` is always False)."""
    raise RuntimeError("share_memory_(): strided can't move an array's storage to shared memory: the "
                       "storage is this process's NumPy/CuPy memory, which every view holds directly, so "
                       "x.is_shared() stays False; send the values instead (pickle, or x.numpy())")


def _storage_type(self):
    """PyTorch's ``x.storage_type()`` returns a legacy per-dtype class (``torch.FloatStorage``);
    strided has none, so it raises (``x.untyped_storage()`` is the storage, its dtype
    ``x.dtype``)."""
    raise RuntimeError(f"storage_type(): strided has no legacy typed storage classes (torch.FloatStorage, "
                       f"...); x.untyped_storage() is a strided.Storage of dtype {self._dtype.name}")


def _has_multiple_dim_order(shape, strides) -> bool:
    return any(a == b for a, b in zip(strides, strides[1:])) or 1 in shape


def _logical_to_physical(x, shape, strides, ambiguity_check):
    """torch._prims_common.compute_elementwise_output_logical_to_physical_perm of one tensor."""
    nd = len(shape)
    if nd == 0:
        return [], False
    if nd == 1:
        return [0], False
    contig = x.is_contiguous()
    last = x.is_contiguous(memory_format=channels_last)
    if contig and not last:
        return list(range(nd)), False
    if last and not contig:
        return [0, *range(2, nd), 1], False

    def ge(a, b):
        return True if b == 0 else False if a == 0 else (a >= b or a % b == 0)

    def should_swap(a, b):
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if ge(shape[b], shape[a]) else 1
        if ge(sb, sa):
            return -1
        return 1 if ge(sa, sb) else 0

    perm = _memory_order(nd, should_swap)
    ambiguous = bool(ambiguity_check) and any(should_swap(perm[i], perm[i + 1]) != -1 for i in range(nd - 1))
    return perm[::-1], ambiguous


def _dim_order(self, *, ambiguity_check=False):
    """PyTorch's ``x.dim_order(ambiguity_check=False)``: the dimensions from outermost to
    innermost in memory. ``ambiguity_check=True`` raises where more than one order fits (a
    size-1 dimension, equal strides); a list of memory formats accepts such a tensor when
    exactly one of them fits it."""
    if not isinstance(ambiguity_check, bool) and (
            not isinstance(ambiguity_check, list)
            or any(type(m) is not _memory_format for m in ambiguity_check)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    shape, strides = tuple(self._shape), tuple(self.stride())
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    if check and _has_multiple_dim_order(shape, strides) and \
            sum(bool(self.is_contiguous(memory_format=m)) for m in formats) != 1:
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                           "memory formats.")
    perm, ambiguous = _logical_to_physical(self, shape, strides, ambiguity_check)
    if ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(perm)


def _same_memory(a_st, b_st) -> bool:
    # (view(dtype), .real and .imag: one memory, one Storage per dtype in one family)
    return a_st is b_st or (a_st._family is not None and a_st._family is b_st._family)


def _is_set_to(self, tensor) -> bool:
    """PyTorch's ``x.is_set_to(tensor)``: True when both view the same memory with the same
    storage offset, shape and strides."""
    _tensor_arg("is_set_to", "tensor", 1, tensor)
    st, off, shape, strides = self._layout()
    st2, off2, shape2, strides2 = tensor._layout()
    return _same_memory(st, st2) and off == off2 and tuple(shape) == tuple(shape2) \
        and tuple(strides) == tuple(strides2)


# --- sparse, nested, mkldnn and quantized tensors: strided has none ---------------------------

def _no_kernel(op: str, x, kind: str):
    """PyTorch's dispatcher error for an operator with no kernel for a dense tensor (its first
    sentences; PyTorch lists its backends after them)."""
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the '{_backend(x)}' backend. This could be because "
        f"the operator doesn't exist for this backend, or was omitted during the selective/custom build "
        f"process (if using custom build). 'aten::{op}' runs on {kind} tensors only, and strided has "
        f"dense strided arrays only.")


def _sparse_accessor(name: str, layout: str):
    from ._copy_variants import _sparse
    refuse = _sparse(name + "_copy", layout)  # (its message: PyTorch's "<name> expected <layout> ...")

    def method(self):
        refuse(self)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"PyTorch's ``x.{name}()``: of a {layout} tensor only (strided has none: it raises)."
    return method


def _no_kernel_method(name: str, kind: str, doc_args: str = ""):
    def method(self, *args, **kwargs):
        raise _no_kernel(name, self, kind)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"PyTorch's ``x.{name}({doc_args})``: of a {kind} tensor only (strided has none): "
                      f"PyTorch's NotImplementedError.")
    # (shown with PyTorch's parameters: "padding, output_size=None" -- defaults are None)
    P = inspect.Parameter
    method.__signature__ = inspect.Signature(
        [P("self", P.POSITIONAL_OR_KEYWORD)]
        + [P(a.partition("=")[0], P.POSITIONAL_OR_KEYWORD, default=None if "=" in a else P.empty)
           for a in doc_args.split(", ") if a])
    return method


def _sparse_dim(self) -> int:
    """PyTorch's ``x.sparse_dim()``: 0 for a strided tensor."""
    return 0


def _dense_dim(self) -> int:
    """PyTorch's ``x.dense_dim()``: ``x.ndim`` for a strided tensor."""
    return len(self._shape)


def _to_sparse(self, *args, sparse_dim=None, layout=None, blocksize=None, dense_dim=None):
    """PyTorch's ``x.to_sparse(sparse_dim)`` or ``x.to_sparse(*, layout=None, blocksize=None,
    dense_dim=None)``: ``x`` itself for ``layout=torch.strided``; otherwise PyTorch's argument
    checks, then a refusal (strided has no sparse layouts)."""
    t = _t()
    nd = len(self._shape)
    if sparse_dim is not None:
        args = (*args, sparse_dim)
    if args:
        if len(args) > 1 or layout is not None or blocksize is not None or dense_dim is not None:
            raise TypeError("to_sparse() takes either one positional sparse_dim or the keyword arguments "
                            "layout, blocksize and dense_dim")
        d = operator.index(args[0])
        if not 0 <= d <= nd:
            raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{nd}] range, but {d} is given")
        if d == 0 and nd > 0:
            raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
        _check_layout("to_sparse", t.sparse_coo, False)
    if layout is t.strided:
        return self
    if layout is None or layout is t.sparse_coo:
        if blocksize is not None:
            raise RuntimeError("dense_to_sparse: conversion from Strided to Sparse with blocksize argument "
                               "given is not supported")
        _check_layout("to_sparse", t.sparse_coo, False)
    if layout is t.sparse_csr:
        return _to_compressed(self, "csr", dense_dim)
    if layout is t.sparse_csc:
        return _to_compressed(self, "csc", dense_dim)
    if layout in (t.sparse_bsr, t.sparse_bsc):
        name = "bsr" if layout is t.sparse_bsr else "bsc"
        if blocksize is None:
            raise RuntimeError(f"dense_to_sparse: conversion from Strided to Sparse{name.capitalize()} without "
                               f"blocksize argument given is not supported")
        return _to_compressed(self, name, dense_dim, blocksize)
    _check_layout("to_sparse", layout, False)  # (a non-layout: its TypeError)
    raise AssertionError("unreachable")


def _to_sparse_coo(self):
    """PyTorch's ``x.to_sparse_coo()``: refused (strided has no sparse layouts)."""
    _check_layout("to_sparse_coo", _t().sparse_coo, False)


def _to_compressed(self, name: str, dense_dim=None, blocksize=None):
    nd = len(self._shape)
    fn = f"dense_to_sparse_{name}"
    if nd < 2:
        # (PyTorch's own errors here, from the first index it takes)
        if name == "csr":
            raise IndexError(f"select(): index 1 out of range for tensor of size "
                             f"{[self._shape[0], 1] if nd else [1, 0]} at dimension 1")
        if name == "csc" or nd == 1:
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got "
                             f"{1 if name == 'csc' else -2})")
        raise IndexError("Dimension specified as -2 but tensor has no dimensions")
    if blocksize is not None and len(blocksize) != 2:
        raise RuntimeError(f"{fn}: blocksize needs to be a tuple of size 2, but got {len(blocksize)}")
    d = 0 if dense_dim is None else operator.index(dense_dim)
    if d < 0 or (d > nd - 2 and blocksize is None):
        raise RuntimeError(f"{fn}: dense_dim argument must be in [0,{nd - 2}] range, but {d} is given")
    if d > nd - 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {-2 - d})")
    if blocksize is not None:
        rows, cols = self._shape[nd - 2 - d], self._shape[nd - 1 - d]
        if rows % blocksize[0] or cols % blocksize[1]:
            raise RuntimeError(f"{fn}: tensor sparse size ({rows},{cols}) must be divisible by given blocksize "
                               f"({blocksize[0]},{blocksize[1]})")
    _check_layout(f"to_sparse_{name}", getattr(_t(), f"sparse_{name}"), False)


def _to_sparse_csr(self, dense_dim=None):
    """PyTorch's ``x.to_sparse_csr(dense_dim=None)``: its argument checks, then a refusal
    (strided has no sparse layouts)."""
    _to_compressed(self, "csr", dense_dim)


def _to_sparse_csc(self, dense_dim=None):
    """PyTorch's ``x.to_sparse_csc(dense_dim=None)``: its argument checks, then a refusal
    (strided has no sparse layouts)."""
    _to_compressed(self, "csc", dense_dim)


def _to_sparse_bsr(self, blocksize, dense_dim=None):
    """PyTorch's ``x.to_sparse_bsr(blocksize, dense_dim=None)``: its argument checks, then a
    refusal (strided has no sparse layouts)."""
    _to_compressed(self, "bsr", dense_dim, blocksize)


def _to_sparse_bsc(self, blocksize, dense_dim=None):
    """PyTorch's ``x.to_sparse_bsc(blocksize, dense_dim=None)``: its argument checks, then a
    refusal (strided has no sparse layouts)."""
    _to_compressed(self, "bsc", dense_dim, blocksize)


_MKLDNN_DTYPES = ("float32", "float16", "uint8", "int8")  # (and bfloat16, which strided lacks)


def _to_mkldnn(self, dtype=None):
    """PyTorch's ``x.to_mkldnn(dtype=None)``: its dtype checks, then a refusal (strided has no
    mkldnn layout)."""
    if self._dtype.name not in _MKLDNN_DTYPES:
        raise RuntimeError("dense_to_mkldnn expects float, bfloat16, half, uint8, int8 tensor input")
    if dtype is not None and getattr(dtype, "name", None) not in _MKLDNN_DTYPES:
        raise RuntimeError("cpu tensor only can be converted to be a float, bfloat16, half, uint8, int8 mkldnn "
                           "tensor")
    raise RuntimeError("to_mkldnn(): layout=torch._mkldnn is not supported: strided arrays have the strided "
                       "layout only (no mkldnn, sparse or nested tensors)")


def _sparse_mask(self, mask):
    """PyTorch's ``x.sparse_mask(mask)``: of a sparse ``mask`` only (strided has none):
    PyTorch's NotImplementedError."""
    _tensor_arg("sparse_mask", "mask", 1, mask)
    raise _no_kernel("sparse_mask", self, "sparse")


def _dequantize(self):
    """PyTorch's ``x.dequantize()`` of an unquantized tensor: ``x.to(torch.float32)`` (``x``
    itself when already float32); not differentiable (backward raises PyTorch's error)."""
    t = _t()
    r = self if self._dtype is t.float32 else self.to(t.float32)
    if self.requires_grad and _grad_on():
        from ..autograd.function import _DelayedError
        r = _DelayedError.apply("derivative for dequantize is not implemented", r)[0]
    return r


# --- shapes are immutable: resize_, resize_as_, set_, as_strided_ -------------------------------

def _fixed(func: str, what: str):
    return RuntimeError(f"{func}: strided arrays have an immutable shape, strides and storage (by design: views "
                        f"share memory, never geometry), so {func} can only leave the array as it is; {what}. "
                        f"Make a new array instead (x.new_empty(size), x.reshape(...), x.as_strided(...))")


def _sizes(func: str, sizes, size) -> tuple:
    if size is not None:
        if sizes:
            raise TypeError(f"{func}() got multiple values for argument 'size'")
        sizes = (size,)
    if not sizes:
        raise TypeError(f'{func}() missing 1 required positional arguments: "size"')
    arg = sizes[0] if len(sizes) == 1 else sizes
    seq = arg if isinstance(arg, (tuple, list)) else sizes
    try:
        return tuple(operator.index(s) for s in seq)
    except TypeError:
        raise TypeError(f"{func}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(arg).__name__}") from None


def _format_strides(shape: tuple, fmt, func: str):
    """The strides ATen's ``empty_tensor_restride(fmt)`` gives ``shape``."""
    if type(fmt) is not _memory_format:
        raise TypeError(f"{func}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}")
    if fmt is preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")
    if fmt is contiguous_format:
        from .._core import layout as _layout
        return _layout.contiguous_strides(shape)
    rank = 4 if fmt is channels_last else 5
    if len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
    return _channels_last_strides(shape, func, fmt._name)


def _resize_to(func: str, self, shape: tuple, fmt) -> Array:
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(s < 0 for s in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    strides = None if fmt is None else _format_strides(shape, fmt, func)
    if shape != tuple(self._shape):
        raise _fixed(func, f"asked to change shape {tuple(self._shape)} to {shape}")
    if strides is not None and tuple(strides) != tuple(self.stride()):
        raise _fixed(func, f"asked to change strides {tuple(self.stride())} to {tuple(strides)}")
    return self


def _resize_(self, *sizes, size=None, memory_format=None):
    """PyTorch's ``x.resize_(*sizes, memory_format=None)``: ``x`` itself where ``sizes`` is its
    shape (and ``memory_format``, if given, its strides' format); any other size raises, as
    strided arrays keep their shape."""
    return _resize_to("resize_", self, _sizes("resize_", sizes, size), memory_format)


def _resize_as_(self, the_template, memory_format=None):
    """PyTorch's ``x.resize_as_(template, memory_format=None)``: ``x`` itself where the
    template has its shape (and names); any other shape raises, as strided arrays keep theirs."""
    _tensor_arg("resize_as_", "the_template", 1, the_template)
    fmt = memory_format
    if fmt is preserve_format:
        fmt = _suggest(the_template)
    _resize_to("resize_as_", self, tuple(the_template._shape), fmt)
    if self.names != the_template.names:
        raise _fixed("resize_as_", f"asked to change names {self.names} to {the_template.names}")
    return self


def _resize_new(func: str, self, sizes):
    # (torch.autograd._functions.Resize, its message and its contiguous view)
    numel = reduce(operator.mul, sizes, 1)
    if self.numel() != numel:
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the "
                           f"given tensor has a size of {'x'.join(map(str, self.size()))} ({self.numel()} "
                           f"elements). autograd's resize can only change the shape of a given tensor, while "
                           f"preserving the number of elements. ")
    return self.contiguous().view(*sizes)


def _resize(self, *sizes):
    """PyTorch's deprecated ``x.resize(*sizes)``: a new array of ``sizes`` with ``x``'s
    elements (their number unchanged), a view of ``x`` where it is contiguous; it warns."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=stacklevel())
    return _resize_new("resize", self, sizes)


def _resize_as(self, tensor):
    """PyTorch's deprecated ``x.resize_as(y)``: ``x.resize(*y.size())``; it warns."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=stacklevel())
    return _resize_new("resize_as", self, tensor.size())


def _inplace_geometry_grad(func: str, self, source=None) -> None:
    """set_/as_strided_ under grad mode: PyTorch's leaf error; any other tracked operand is
    refused (PyTorch changes the graph there, which strided can't)."""
    if not _grad_on():
        return
    if self.requires_grad and self.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if func == "set_" and (self.requires_grad or (source is not None and source.requires_grad)):
        raise RuntimeError("set_(): strided can't record set_ for autograd (PyTorch gives the array a new "
                           "graph there); call it under torch.no_grad() or on detach()ed arrays")


def _set_(self, source=None, storage_offset=0, size=None, stride=None):
    """PyTorch's ``x.set_(source, storage_offset=0, size=None, stride=None)``: ``x`` itself
    where ``source`` (an array, or a storage with that offset, size and stride) is already
    what ``x`` views; anything else raises, as strided arrays keep their geometry."""
    st, off, shape, strides = self._layout()
    if type(source) is Array:
        if source._dtype is not self._dtype:
            raise RuntimeError(f"Could not set tensor of type {_C_TYPE[source._dtype.name]} to a tensor of type "
                               f"{_C_TYPE[self._dtype.name]}")
        _inplace_geometry_grad("set_", self, source)
        if not _is_set_to(self, source):
            raise _fixed("set_", "asked to view another array's memory or geometry")
    elif source is None:
        _inplace_geometry_grad("set_", self)
        raise _fixed("set_", "asked to become an empty array of new storage")
    elif isinstance(source, Storage):
        _inplace_geometry_grad("set_", self)
        if size is None:
            want = (0, (source.nbytes // self._dtype.itemsize,), (1,))
        else:
            want_shape = tuple(operator.index(s) for s in size)
            want_strides = _format_strides(want_shape, contiguous_format, "set_") if stride is None \
                else tuple(operator.index(s) for s in stride)
            want = (operator.index(storage_offset), want_shape, tuple(want_strides))
        if not (_same_memory(st, source) and want == (off, tuple(shape), tuple(strides))):
            raise _fixed("set_", "asked to view other memory or another geometry")
    else:
        raise TypeError(f"set_(): source must be a tensor or a storage, not {type(source).__name__}")
    self._bump()  # (as PyTorch's set_: a new version)
    return self


def _as_strided_(self, size, stride, storage_offset=None):
    """PyTorch's ``x.as_strided_(size, stride, storage_offset=None)``: ``x`` itself where
    that is already its geometry (after PyTorch's checks of the arguments); any other
    geometry raises, as strided arrays keep theirs."""
    size = tuple(operator.index(s) for s in size)
    stride = tuple(operator.index(s) for s in stride)
    st, off, shape, strides = self._layout()
    offset = off if storage_offset is None else operator.index(storage_offset)
    _inplace_geometry_grad("as_strided_", self)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")
    isz = self._dtype.itemsize
    need = 0 if 0 in size else isz * (offset + 1 + sum(s * (n - 1) for n, s in zip(size, stride)))
    if need > st.nbytes:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {isz} requiring a storage size of {need} are out of bounds for storage of "
                           f"size {st.nbytes}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if (size, stride, offset) != (tuple(shape), tuple(strides), off):
        raise _fixed("as_strided_", f"asked to change (size, stride, offset) {(tuple(shape), tuple(strides), off)} "
                                    f"to {(size, stride, offset)}")
    self._bump()  # (as PyTorch's as_strided_: a new version)
    return self


# --- attach -----------------------------------------------------------------------------------

_SPARSE_ACCESSORS = {"values": "sparse", "indices": "sparse coordinate", "crow_indices": "sparse row compressed",
                     "col_indices": "sparse row compressed", "ccol_indices": "sparse column compressed",
                     "row_indices": "sparse column compressed", "coalesce": "sparse coordinate",
                     "is_coalesced": "sparse coordinate"}
_NO_KERNEL = {"int_repr": ("quantized", ""), "q_scale": ("quantized", ""), "q_zero_point": ("quantized", ""),
              "q_per_channel_scales": ("quantized", ""), "q_per_channel_zero_points": ("quantized", ""),
              "q_per_channel_axis": ("quantized", ""), "qscheme": ("quantized", ""),
              "sparse_resize_": ("sparse", "size, sparse_dim, dense_dim"),
              "sparse_resize_and_clear_": ("sparse", "size, sparse_dim, dense_dim"),
              "to_padded_tensor": ("nested", "padding, output_size=None")}

for _name, _layout_name in _SPARSE_ACCESSORS.items():
    setattr(Array, _name, _sparse_accessor(_name, _layout_name))
for _name, (_kind, _args) in _NO_KERNEL.items():
    setattr(Array, _name, _no_kernel_method(_name, _kind, _args))

for _name, _f in {
    "apply_": _apply_, "map_": _map_, "map2_": _map2_, "stft": _stft, "istft": _istft,
    "nonzero_static": _nonzero_static, "const_data_ptr": _const_data_ptr, "pin_memory": _pin_memory,
    "share_memory_": _share_memory_, "storage_type": _storage_type, "dim_order": _dim_order,
    "is_set_to": _is_set_to, "sparse_dim": _sparse_dim, "dense_dim": _dense_dim, "to_sparse": _to_sparse,
    "to_sparse_coo": _to_sparse_coo, "to_sparse_csr": _to_sparse_csr, "to_sparse_csc": _to_sparse_csc,
    "to_sparse_bsr": _to_sparse_bsr, "to_sparse_bsc": _to_sparse_bsc, "to_mkldnn": _to_mkldnn,
    "sparse_mask": _sparse_mask, "dequantize": _dequantize, "resize_": _resize_, "resize_as_": _resize_as_,
    "resize": _resize, "resize_as": _resize_as, "set_": _set_, "as_strided_": _as_strided_,
}.items():
    _f.__name__ = _f.__qualname__ = _name
    setattr(Array, _name, _f)
del _name, _f, _layout_name, _kind, _args
