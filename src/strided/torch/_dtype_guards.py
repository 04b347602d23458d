"""PyTorch's refusals and result dtypes by input dtype, for the words whose strided composition
accepted what PyTorch 2.13 refuses (or gave another dtype).

strided composes these words from float arithmetic, so an integer or bool input was computed
in float32 (``x.softmax(0)`` of an int64 array, ``x.quantile(0.5)``, ``x.lerp(y, 0.5)``) or sorted
as numbers (``x.median()`` of a bool array). PyTorch refuses them, each with its own error: a
row of ``GUARDS`` names the word, the dtype kinds PyTorch refuses and the error. ``guard``
wraps a method or a function with the row's check of its first argument; ``install_methods``
wraps Array's methods (at import, from ``_tensor_methods``), and ``strided.torch._functions``
wraps the namespace functions. ``x.trace()`` of an unsigned array is int64, as PyTorch's.

Invariant: for an input of a dtype PyTorch accepts, a guarded word is the word it wraps (same
call, same result); the check costs one dtype-kind test.
"""

from __future__ import annotations

import functools

from .._core import dtypes as _dtypes
from .._core.array import Array

__all__ = ["GUARDS", "PRODUCTS", "guard", "same_dtype", "same_dtype_product", "install_methods"]


def _scalar_type(d) -> str:
    from ._shape_functions import _TENSOR_TYPE
    return _TENSOR_TYPE.get(d.name, d.name)


def _not_implemented(kernel):
    return lambda d: _dtypes.DTypeError(f'"{kernel}" not implemented for \'{_scalar_type(d)}\'')


# word -> (the dtype kinds PyTorch refuses, the error of the refused dtype, the positional index
# (after the input) and keyword of a ``dtype`` argument that lifts the refusal, or None)
GUARDS = {
    "softmax": ("biu", _not_implemented("softmax_lastdim_kernel_impl"), (1, "dtype")),
    "log_softmax": ("biu", _not_implemented("log_softmax_lastdim_kernel_impl"), (1, "dtype")),
    "quantile": ("biu", lambda d: RuntimeError("quantile() input tensor must be either float or double dtype"),
                 None),
    "lerp": ("biu", _not_implemented("lerp_kernel_scalar"), None),
    "median": ("bc", _not_implemented("median_cpu"), None),
    "nansum": ("c", lambda d: _dtypes.DTypeError("nansum on CPU does not support complex inputs"), None),
    "kthvalue": ("b", _not_implemented("kthvalue_cpu"), None),
    "topk": ("b", lambda d: RuntimeError("topk does not support bool dtypes on CPU"), None),
    "trace": ("b", _not_implemented("trace"), None),
}


def guard(name: str, f):
    """``f`` (a method or a function whose first argument is the input) with PyTorch's refusal of
    the dtypes ``GUARDS[name]`` names."""
    kinds, error, lift = GUARDS[name]

    @functools.wraps(f)
    def call(input, *args, **kwargs):
        if type(input) is Array and input._dtype.kind in kinds:
            lifted = lift is not None and (kwargs.get(lift[1]) is not None
                                           or (len(args) > lift[0] and args[lift[0]] is not None))
            if not lifted:
                raise error(input._dtype)
        r = f(input, *args, **kwargs)
        if name == "trace" and type(input) is Array and input._dtype.kind == "u":
            return r.to(_dtypes.int64)  # (PyTorch's trace of an unsigned array: int64)
        return r
    call._guarded = True
    return call


def _masked_fill_value(f, name):
    """PyTorch's ``masked_fill``: a value array must be 0-d."""
    @functools.wraps(f)
    def call(self, mask, value, *args, **kwargs):
        if type(value) is Array and value.ndim:
            raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return f(self, mask, value, *args, **kwargs)
    return call


def same_dtype(f, name):
    """PyTorch's ``isclose``/``allclose``: both arrays of one dtype (its RuntimeError "Long did not
    match Float"; strided's composition promoted them)."""
    @functools.wraps(f)
    def call(input, other, *args, **kwargs):
        if type(input) is Array and type(other) is Array and input._dtype is not other._dtype:
            raise RuntimeError(f"{_scalar_type(input._dtype)} did not match {_scalar_type(other._dtype)} "
                               f"({name}(): the two arrays must have one dtype)")
        return f(input, other, *args, **kwargs)
    call._guarded = True
    return call


_C_NAME = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
           "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
           "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _product_error(name, a, b):
    """PyTorch's error for a matrix product of two dtypes (its words per kernel)."""
    if name in ("bmm", "einsum"):
        return RuntimeError(f"expected scalar type {_scalar_type(a)} but found {_scalar_type(b)}")
    if name == "tensordot":
        return RuntimeError("both inputs should have same dtype")
    if name == "dot" or name == "vdot":
        return RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                            f"{_scalar_type(a)} and {_scalar_type(b)}")
    if name == "addmm":
        return RuntimeError(f"self and mat2 must have the same dtype, but got {_scalar_type(a)} and "
                            f"{_scalar_type(b)}")
    return RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_C_NAME.get(a.name, a.name)} "
                        f"!= {_C_NAME.get(b.name, b.name)}")


# the matrix products PyTorch computes in one dtype only (no promotion): word -> where its
# operands start among the positional arguments (einsum's after the equation)
PRODUCTS = {"matmul": 0, "mm": 0, "bmm": 0, "dot": 0, "vdot": 0, "tensordot": 0, "addmm": 0, "einsum": 1}


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_sublists(args) -> tuple:
    """PyTorch's (and NumPy's) sublist form, ``einsum(a, [0, 1], b, [1, 2], [0, 2])``, as the
    equation form ``einsum("ab,bc->ac", a, b)``: each subscript an int in [0, 52) (a letter)
    or ``...``; the output's sublist optional."""
    def letters(sub) -> str:
        if not isinstance(sub, (list, tuple)):
            raise TypeError(f"einsum(): a sublist must be a list of ints (and ...); got "
                            f"{type(sub).__name__}")
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 52:
                out.append(_LETTERS[s])
            else:
                raise ValueError(f"einsum(): subscript in subscript list is not within the valid "
                                 f"range [0, 52); got {s!r}")
        return "".join(out)
    ops, subs = list(args[0::2]), [letters(s) for s in args[1::2]]
    if len(args) % 2:  # (the last argument: the output's sublist)
        eq = ",".join(subs) + "->" + letters(ops.pop())
    else:
        eq = ",".join(subs)
    if len(ops) != len(subs) or not all(type(o) is Array for o in ops):
        raise TypeError("einsum(): the sublist form alternates arrays and their sublists: "
                        "einsum(a, [0, 1], b, [1, 2], [0, 2])")
    return (eq, *ops)


def same_dtype_product(f, name):
    """A matrix product (``PRODUCTS``) refusing operands of two dtypes, as PyTorch's (strided's
    composition promoted them: a float32 array times a float64 one was float64)."""
    start = PRODUCTS[name]

    @functools.wraps(f)
    def call(*args, **kwargs):
        if name == "einsum" and args and type(args[0]) is Array:
            args = _einsum_sublists(args)
        ops = args[start:]
        if name == "einsum" and len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            ops = ops[0]
        first = None
        for o in ops[:3]:
            if type(o) is Array:
                if first is None:
                    first = o
                elif o._dtype is not first._dtype:
                    word = "dot" if name == "matmul" and first.ndim == 1 and o.ndim == 1 else name
                    raise _product_error(word, first._dtype, o._dtype)
        return f(*args, **kwargs)
    call._guarded = True
    return call


def install_methods() -> None:
    """Wrap Array's methods of the ``GUARDS`` words (once), and ``masked_fill``/``masked_fill_``'s
    check of a value array."""
    for name in GUARDS:
        m = Array.__dict__.get(name)
        if m is not None and not getattr(m, "_guarded", False):
            setattr(Array, name, guard(name, m))
    for name in PRODUCTS:
        m = Array.__dict__.get(name)
        if m is not None and not getattr(m, "_guarded", False):
            setattr(Array, name, same_dtype_product(m, name))
    for name in ("isclose", "allclose"):
        m = Array.__dict__.get(name)
        if m is not None and not getattr(m, "_guarded", False):
            setattr(Array, name, same_dtype(m, name))
    for name in ("masked_fill", "masked_fill_"):
        m = Array.__dict__.get(name)
        if m is not None and not getattr(m, "_guarded", False):
            w = _masked_fill_value(m, "masked_fill_")
            w._guarded = True
            setattr(Array, name, w)
