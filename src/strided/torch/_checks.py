"""The argument checks strided.torch's composed functions share (``_shape_functions``,
``_math_functions``, ``_special``): PyTorch's TypeError where a tensor is required, and the
refusal of an ``out=`` that no single core call could write, and the dtype PyTorch computes a
floating-point function of integer operands in, and the 1-d view through which a function
along ``dim`` reads a 0-d tensor as PyTorch does."""

from __future__ import annotations

import sys

from .._core import dtypes as _dtypes
from .._core.array import Array


def tensor(name: str, x, arg: str = "input") -> Array:
    """``x``, or PyTorch's TypeError naming ``name``'s argument ``arg`` where ``x`` is not a
    strided array (a Python scalar, a list, ...)."""
    if not isinstance(x, Array):
        raise TypeError(f"{name}(): argument {arg!r} must be a tensor (a strided array); "
                        f"got {type(x).__name__}")
    return x


def no_out(name: str, out) -> None:
    """A TypeError for an ``out=`` the function can't write exactly (its result is not made by
    one core call that could write it)."""
    if out is not None:
        raise TypeError(f"{name}(): out= is not supported by strided.torch's {name} (the result is "
                        f"not made by one core call that could write it); assign the result instead")


def floating_dtype(*ops):
    """The dtype PyTorch computes a floating-point function of ``ops`` (arrays and Python
    scalars) in: their promoted dtype, or the default float dtype where that is integral
    (``torch.sqrt(int_tensor)``, ``torch.xlogy(ints, ints)``: float32)."""
    dt = sys.modules["strided"].result_type(*ops)
    return _dtypes.get_default_dtype() if dt.kind in "biu" else dt


# (the C++ type names in c10's Scalar conversion error, as PyTorch 2.13 prints them)
_C_NAMES = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t",
            "uint8": "uint8_t", "float32": "float", "float64": "double", "float16": "c10::Half"}


def blas_scalar(value, dtype):
    """``alpha=``/``beta=`` of ``addmm``, ``addbmm``, ``baddbmm`` and ``addmv`` as PyTorch's
    kernels read them (``Scalar::to<scalar_t>()`` in the result's dtype): a float truncated
    toward zero into an integer dtype (``addmm(ints, ..., alpha=0.5)`` multiplies by 0), a bool
    as 0 or 1, a complex number refused by a real dtype unless its imaginary part is 0
    (PyTorch's RuntimeError)."""
    if isinstance(value, complex) and dtype.kind != "c":
        if value.imag:
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_C_NAMES.get(dtype.name, dtype.name)} without overflow")
        value = value.real
    if dtype.kind in "iu" and isinstance(value, (bool, float)):
        return int(value)
    return value


def alpha_check(dtype, **scalars) -> None:
    """PyTorch's ``alpha_check`` (BinaryOps.h) of each multiplier in the order given (``addr``
    checks ``beta``, then ``alpha``): a bool only for a bool result, a float or complex number
    not for an integral one."""
    for arg, v in scalars.items():
        if isinstance(v, bool):
            if dtype.kind != "b":
                raise RuntimeError(f"Boolean {arg} only supported for Boolean results.")
        elif isinstance(v, (float, complex)) and dtype.kind in "biu":
            raise RuntimeError(f"For integral input tensors, argument {arg} must not be a floating "
                               f"point number.")


def one_element_1d(x):
    """A 0-d ``x`` as a 1-d view of its one element; any other array as it is.

    PyTorch reads a 0-d tensor's dim 0 or -1 as its one element (``maybe_wrap_dim`` wraps a
    scalar's dims as a 1-d tensor's), so a function along ``dim`` computes on this view and
    reads its result back 0-d: one place for what each function would otherwise special-case
    (``index_select``, ``gather``, ``F.normalize``, ``meshgrid``)."""
    return sys.modules["strided"].reshape(x, (1,)) if x.ndim == 0 else x
