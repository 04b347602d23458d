"""PyTorch's math, linear-algebra and statistics functions that the standard lacks, composed
from strided's namespace.

Nothing here computes on its own: each function is a short composition of strided's
namespace functions (``_ns().multiply(...)``, ``_ns().where(...)``, ``_ns().linalg.svd(...)``),
so autograd, dimension names, devices and ``out=`` go through the library's one call
pipeline, and a gradient is the composition's. ``out=`` is passed to the last core call
where that call makes the whole result; where it cannot (a result made by a cast, a tuple
of results), ``out=`` raises TypeError rather than copy outside the pipeline.

Each function means what PyTorch 2.13's function of the same name means: its parameters
(names, order, keyword-only ones, defaults), its result dtype (integer inputs of a
floating function give the default float dtype; Python scalars are weak), its shapes and
its named tuples. What it does not support it refuses by name. PyTorch's error types are
kept where a caller may catch them (``RuntimeError`` for a shape or dtype PyTorch refuses,
``NotImplementedError`` for a dtype with no kernel in PyTorch).

strided's namespace is read when a function is called (``_ns()``), never at import: this
module is imported by ``_functions``, which ``strided.torch`` loads on first use.
"""

from __future__ import annotations

import builtins
import math
import sys
import warnings

from .._core import dtypes as _dtypes
from .._core.array import Array
from ..autograd._function import Function
from .._core.caller import stacklevel
from ._checks import alpha_check, blas_scalar, floating_dtype, no_out as _no_out, tensor as _tensor
from ._methods import check_integer_divisor

__all__ = [
    # elementwise
    "fmod", "addcmul", "addcdiv", "rsub", "xlogy", "float_power", "fmax", "fmin",
    "heaviside", "gcd", "lcm", "deg2rad", "rad2deg", "frac", "fix", "sgn", "rsqrt", "exp2",
    "logit", "logaddexp2", "sinc", "nan_to_num", "isposinf", "isneginf", "isreal", "ldexp",
    # linear algebra
    "mv", "addmv", "addr", "inner", "vdot", "dist", "matrix_power", "logdet", "slogdet",
    "pinverse", "svd", "qr",
    # statistics
    "cov", "corrcoef", "cummax", "cummin", "logcumsumexp", "histc", "bucketize",
    "trapezoid", "trapz", "cumulative_trapezoid",
]

def _ns():
    return sys.modules["strided"]


# --- argument checks shared by the functions below -------------------------------------------

def _floating(name: str, x) -> Array:
    """``x`` for a floating function: integer and bool arrays become the default float dtype
    (PyTorch's promotion for ``torch.rsqrt(int_tensor)`` and the like)."""
    _tensor(name, x, "input")
    if x.dtype.kind in "biu":
        ns = _ns()
        return ns.astype(x, floating_dtype(x))
    return x


def _float_only(name: str, *xs) -> None:
    """PyTorch's NotImplementedError for a function with no integer kernel (``frac``, ...)."""
    for x in xs:
        if x.dtype.kind not in "fc":
            raise NotImplementedError(f"{name}(): not implemented for integer or bool dtype "
                                      f"{x.dtype.name}; expected a floating-point input")


def _real_only(name: str, *xs) -> None:
    for x in xs:
        if isinstance(x, Array) and x.dtype.kind == "c":
            raise _dtypes.DTypeError(f"{name}(): complex inputs are not supported; got {x.dtype.name}")


def _same_dtype(name: str, *xs) -> None:
    """PyTorch's RuntimeError where it requires one dtype (``mv``, ``vdot``, ``inner``, ...)."""
    if len({x.dtype for x in xs}) > 1:
        raise RuntimeError(f"{name}(): expected inputs of one dtype; got "
                           f"{', '.join(x.dtype.name for x in xs)}")


def _ndim(name: str, arg: str, x, n: int) -> None:
    if x.ndim != n:
        raise RuntimeError(f"{name}(): expected {arg} to be {n}-D; got {x.ndim}-D (shape {tuple(x.shape)})")


def _dim(name: str, x, dim) -> int:
    """``dim`` as a non-negative axis of ``x`` (a 0-d array has dims -1 and 0), with
    PyTorch's IndexError otherwise."""
    n = builtins.max(x.ndim, 1)
    if type(dim) is not int:
        raise TypeError(f"{name}(): dim must be an int; got {type(dim).__name__}")
    if not -n <= dim < n:
        raise IndexError(f"{name}(): dim {dim} is out of range for a {x.ndim}-D input "
                         f"(expected to be in range of [{-n}, {n - 1}])")
    return dim % n


def _value_for(value, dtype):
    """A scalar multiplier (``value=``, ``alpha=``, ``beta=``) as PyTorch converts it to an
    integer result's dtype: a float truncated (``addcmul(ints, ..., value=0.5)`` adds 0)."""
    if dtype.kind in "iu" and isinstance(value, builtins.float):
        return builtins.int(value)
    return value


# --- elementwise ---------------------------------------------------------------------------

def fmod(input, other, *, out=None):
    """``torch.fmod(input, other, *, out=None)``: the C-style remainder, with the sign of the dividend.

    Integer inputs with a zero divisor raise PyTorch's ``RuntimeError: ZeroDivisionError``.

    >>> import strided.torch as torch
    >>> torch.fmod(torch.tensor([-3.0, 3.0, 5.5]), 2)
    tensor([-1.0000,  1.0000,  1.5000])
    >>> torch.fmod(torch.tensor([-7, 7]), -3)
    tensor([-1,  1])
    """
    _tensor("fmod", input, "input")
    ns = _ns()
    dt = ns.result_type(input, other)
    if dt.kind in "iu":
        check_integer_divisor(input, other)
        # Python's remainder has the divisor's sign: move it to the dividend's (exact in integers)
        r = ns.remainder(input, other)
        wrong = ns.logical_and(ns.not_equal(r, 0), ns.not_equal(ns.less(r, 0), ns.less(input, 0)))
        return ns.where(wrong, ns.subtract(r, other), r, out=out)
    # Note: floats take |input| mod |other| (exactly C's fmod of the magnitudes) with the sign
    # of input; subtracting the divisor from Python's remainder would round.
    x = input if input.dtype == dt else ns.astype(input, dt)
    if isinstance(other, Array) and other.dtype != dt and other.dtype == ns.bool:
        other = ns.astype(other, dt)  # (a bool divisor: PyTorch's fmod(x, mask) computes in x's dtype)
    if (input.requires_grad or isinstance(other, Array) and other.requires_grad) and out is None:
        # (the composition's derivative is wrong where |x| or the remainder is 0: PyTorch's
        # is 1 for input and -trunc(input / other) for other)
        return _Fmod.apply(x, other)
    return _fmod_values(ns, x, other, out)


def _fmod_values(ns, x, other, out=None):
    d = ns.abs(other) if isinstance(other, Array) else builtins.abs(other)
    return ns.copysign(ns.remainder(ns.abs(x), d), x, out=out)


class _Fmod(Function):
    """fmod's exact values with PyTorch's derivatives (FmodBackward0/1): ``g`` for input,
    ``-g * trunc(input / other)`` for other."""

    @staticmethod
    def forward(ctx, x, other):
        ctx.save_for_backward(x, other if isinstance(other, Array) else None)
        ctx.other = other
        return _fmod_values(_ns(), x, other)

    @staticmethod
    def backward(ctx, g):
        x, o = ctx.saved_tensors
        ns = _ns()
        if o is None:
            return g, None
        return g, -g * ns.trunc(x / o)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """``torch.addcmul(input, tensor1, tensor2, *, value=1, out=None)``: ``input + value * tensor1 * tensor2``.

    >>> import strided.torch as torch
    >>> torch.addcmul(torch.ones(2), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), value=0.5)
    tensor([2.5000, 5.0000])
    """
    ns = _ns()
    dt = ns.result_type(input, tensor1, tensor2)
    if dt == ns.bool:  # (PyTorch's kernel has no bool loop)
        from ._dtype_guards import _not_implemented
        raise _not_implemented("addcmul_cpu_out")(dt)
    value = _value_for(value, dt)
    if isinstance(tensor1, Array) and tensor1.dtype == ns.bool and value != 1:
        tensor1 = ns.astype(tensor1, dt)  # (value * a mask: in the three tensors' dtype, as PyTorch)
    t = tensor1 if value == 1 else ns.multiply(tensor1, value)
    return ns.add(input, ns.multiply(t, tensor2), out=out)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """``torch.addcdiv(input, tensor1, tensor2, *, value=1, out=None)``: ``input + value * tensor1 / tensor2``.

    Integer ``tensor1`` and ``tensor2`` both raise RuntimeError, as in PyTorch.

    >>> import strided.torch as torch
    >>> torch.addcdiv(torch.ones(2), torch.tensor([1.0, 2.0]), torch.tensor([4.0, 4.0]), value=2)
    tensor([1.5000, 2.0000])
    """
    if tensor1.dtype.kind in "biu" and tensor2.dtype.kind in "biu":
        raise RuntimeError(f"addcdiv(): integer division of tensor1 ({tensor1.dtype.name}) by tensor2 "
                           f"({tensor2.dtype.name}) is not supported; use floating-point tensors")
    ns = _ns()
    t = tensor1 if value == 1 else ns.multiply(tensor1, value)
    return ns.add(input, ns.divide(t, tensor2), out=out)


def rsub(input, other, *, alpha=1):
    """``torch.rsub(input, other, *, alpha=1)``: ``other - alpha * input``.

    >>> import strided.torch as torch
    >>> torch.rsub(torch.tensor([1.0, 2.0]), 10, alpha=2)
    tensor([8., 6.])
    """
    _tensor("rsub", input, "input")
    ns = _ns()
    if ns.result_type(input, other).kind in "biu" and isinstance(alpha, builtins.float):
        raise RuntimeError(f"rsub(): for integral inputs alpha must not be a floating point "
                           f"number; got alpha={alpha!r}")
    return ns.subtract(other, input, alpha=alpha)


def _float_pair(name: str, a, b):
    """Two operands (one may be a Python scalar) as arrays of their promoted dtype, the
    default float dtype for integers; for the functions whose result is floating."""
    ns = _ns()
    if not isinstance(a, Array) and not isinstance(b, Array):
        raise TypeError(f"{name}(): expected at least one tensor argument; got "
                        f"{type(a).__name__} and {type(b).__name__}")
    dt = floating_dtype(a, b)
    dev = (a if isinstance(a, Array) else b).device
    return tuple(ns.astype(v, dt) if isinstance(v, Array) else ns.asarray(v, dtype=dt, device=dev)
                 for v in (a, b))


def xlogy(input, other, *, out=None):
    """``torch.xlogy(input, other, *, out=None)``: ``input * log(other)``, 0 where ``input`` is 0 and ``other`` is not NaN.

    >>> import strided.torch as torch
    >>> torch.xlogy(torch.tensor([0.0, 2.0, 0.0]), torch.tensor([0.0, 1.0, float("nan")]))
    tensor([0., 0., nan])
    """
    return x_times_log("xlogy", "log", input, other, out)


def x_times_log(name: str, log: str, input, other, out):
    """``input * log(other)`` (``log``: ``"log"``, or ``"log1p"`` for ``special.xlog1py``),
    0 where ``input`` is 0 and ``other`` is not NaN."""
    ns = _ns()
    x, y = _float_pair(name, input, other)
    zero = ns.logical_and(ns.equal(x, 0), ns.logical_not(ns.isnan(y)))
    # log(y) replaced by 0 where the result is 0 and log(y) is not finite, so that 0 * log(y)
    # is 0 there; where log(y) is finite it stays, as the gradient in x is PyTorch's log(y).
    finite = ns.logical_and(ns.greater(y, 0 if log == "log" else -1), ns.less(y, math.inf))
    ly = ns.where(ns.logical_and(zero, ns.logical_not(finite)), 0.0, getattr(ns, log)(y))
    return ns.multiply(x, ly, out=out)


def float_power(input, exponent, *, out=None):
    """``torch.float_power(input, exponent, *, out=None)``: ``input ** exponent`` in float64 (complex128 for complex inputs).

    >>> import strided.torch as torch
    >>> torch.float_power(torch.tensor([1, 2, 3]), 2)
    tensor([1., 4., 9.], dtype=strided.float64)
    """
    ns = _ns()
    if not isinstance(input, Array):
        _tensor("float_power", exponent, "exponent")
    cplx = builtins.any(isinstance(v, builtins.complex) or isinstance(v, Array) and v.dtype.kind == "c"
                        for v in (input, exponent))
    dt = ns.complex128 if cplx else ns.float64
    cast = builtins.complex if cplx else builtins.float
    a, b = (ns.astype(v, dt) if isinstance(v, Array) else cast(v) for v in (input, exponent))
    return ns.pow(a, b, out=out)


def _nan_ignoring(name: str, keep_input):
    """``fmax``/``fmin``: ``input`` where ``keep_input(input, other)`` or ``other`` is NaN,
    else ``other`` -- PyTorch's choice, ties and gradients included."""
    def f(input, other, *, out=None):
        _tensor(name, input, "input")
        _tensor(name, other, "other")
        ns = _ns()
        take = ns.logical_or(ns.isnan(other), keep_input(input, other))
        return ns.where(take, input, other, out=out)
    f.__name__ = f.__qualname__ = name
    return f


fmax = _nan_ignoring("fmax", lambda a, b: _ns().greater_equal(a, b))
fmax.__doc__ = """``torch.fmax(input, other, *, out=None)``: the elementwise maximum, ignoring NaN (NaN only where both are).

    >>> import strided.torch as torch
    >>> torch.fmax(torch.tensor([1.0, float("nan"), 3.0]), torch.tensor([2.0, 2.0, float("nan")]))
    tensor([2., 2., 3.])
    """
fmin = _nan_ignoring("fmin", lambda a, b: _ns().less_equal(a, b))
fmin.__doc__ = """``torch.fmin(input, other, *, out=None)``: the elementwise minimum, ignoring NaN (NaN only where both are).

    >>> import strided.torch as torch
    >>> torch.fmin(torch.tensor([1.0, float("nan"), 3.0]), torch.tensor([2.0, 2.0, float("nan")]))
    tensor([1., 2., 3.])
    """


def heaviside(input, values, *, out=None):
    """``torch.heaviside(input, values, *, out=None)``: 0 where ``input < 0``, ``values`` where it is 0, 1 where ``> 0``.

    >>> import strided.torch as torch
    >>> torch.heaviside(torch.tensor([-1.5, 0.0, 2.0]), torch.tensor([0.5]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    _tensor("heaviside", input, "input")
    _tensor("heaviside", values, "values")
    _real_only("heaviside", input, values)
    _same_dtype("heaviside", input, values)
    ns = _ns()
    return ns.where(ns.equal(input, 0), values, ns.astype(ns.greater(input, 0), input.dtype), out=out)


def _integer_pair(name: str, input, other):
    _tensor(name, input, "input")
    _tensor(name, other, "other")
    for x in (input, other):
        if x.dtype.kind not in "iu":
            raise NotImplementedError(f"{name}(): expected integer inputs; got {x.dtype.name}")
    ns = _ns()
    dt = ns.result_type(input, other)
    return ns.broadcast_arrays(ns.astype(input, dt), ns.astype(other, dt))


def _euclid(a, b):
    """gcd up to sign, by Euclid's algorithm on every element at once (a round per step)."""
    ns = _ns()
    while builtins.bool(ns.any(ns.not_equal(b, 0))):
        nz = ns.not_equal(b, 0)
        r = ns.remainder(a, ns.where(nz, b, 1))
        a, b = ns.where(nz, b, a), ns.where(nz, r, 0)
    return a


def gcd(input, other, *, out=None):
    """``torch.gcd(input, other, *, out=None)``: the elementwise greatest common divisor of integers (non-negative).

    >>> import strided.torch as torch
    >>> torch.gcd(torch.tensor([12, -18, 0]), torch.tensor([8, 12, 0]))
    tensor([4, 6, 0])
    """
    a, b = _integer_pair("gcd", input, other)
    return _ns().abs(_euclid(a, b), out=out)


def lcm(input, other, *, out=None):
    """``torch.lcm(input, other, *, out=None)``: the elementwise least common multiple of integers (non-negative).

    >>> import strided.torch as torch
    >>> torch.lcm(torch.tensor([4, -6, 0]), torch.tensor([6, 4, 5]))
    tensor([12, 12,  0])
    """
    a, b = _integer_pair("lcm", input, other)
    ns = _ns()
    g = ns.abs(_euclid(a, b))
    none = ns.equal(g, 0)
    m = ns.multiply(ns.floor_divide(a, ns.where(none, 1, g)), b)
    return ns.abs(ns.where(none, 0, m), out=out)


def _scaled(name: str, factor: float, doc: str):
    def f(input, *, out=None):
        if type(input) is Array and input.dtype.kind == "c":
            raise _dtypes.DTypeError(f"{name} is not supported for complex tensors.")
        return _ns().multiply(_floating(name, input), factor, out=out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


deg2rad = _scaled("deg2rad", math.pi / 180.0, """``torch.deg2rad(input, *, out=None)``: degrees to radians.

    >>> import strided.torch as torch
    >>> torch.deg2rad(torch.tensor([180, 90]))
    tensor([3.1416, 1.5708])
    """)
rad2deg = _scaled("rad2deg", 180.0 / math.pi, """``torch.rad2deg(input, *, out=None)``: radians to degrees.

    >>> import strided.torch as torch
    >>> torch.rad2deg(torch.tensor([3.141592653589793, -1.5707963267948966]))
    tensor([180., -90.])
    """)


def frac(input, *, out=None):
    """``torch.frac(input, *, out=None)``: the fractional part, ``input - trunc(input)`` (floating inputs only).

    >>> import strided.torch as torch
    >>> torch.frac(torch.tensor([1.5, -2.25]))
    tensor([ 0.5000, -0.2500])
    """
    _tensor("frac", input, "input")
    _float_only("frac", input)
    ns = _ns()
    return ns.subtract(input, ns.trunc(input), out=out)


def fix(input, *, out=None):
    """``torch.fix(input, *, out=None)``: rounds toward zero (PyTorch's alias of ``trunc``).

    >>> import strided.torch as torch
    >>> torch.fix(torch.tensor([1.7, -1.7]))
    tensor([ 1., -1.])
    """
    _tensor("fix", input, "input")
    return _ns().trunc(input, out=out)


def sgn(input, *, out=None):
    """``torch.sgn(input, *, out=None)``: ``sign`` for real inputs, ``input / |input|`` (0 at 0) for complex ones.

    >>> import strided.torch as torch
    >>> torch.sgn(torch.tensor([3+4j, 0j]))
    tensor([0.6000+0.8000j, 0.0000+0.0000j])
    """
    _tensor("sgn", input, "input")
    ns = _ns()
    if input.dtype.kind == "b":
        return ns.logical_or(input, False, out=out)  # (PyTorch: a bool's sign is itself)
    if input.dtype.kind == "f":
        # Note: PyTorch's sign of NaN is 0 ((0 < x) - (x < 0)); the standard's (strided.sign) NaN
        return ns.where(ns.isnan(input), 0, ns.sign(input), out=out)
    return ns.sign(input, out=out)


def rsqrt(input, *, out=None):
    """``torch.rsqrt(input, *, out=None)``: ``1 / sqrt(input)``.

    >>> import strided.torch as torch
    >>> torch.rsqrt(torch.tensor([4.0, 0.25]))
    tensor([0.5000, 2.0000])
    """
    ns = _ns()
    return ns.reciprocal(ns.sqrt(_floating("rsqrt", input)), out=out)


def exp2(input, *, out=None):
    """``torch.exp2(input, *, out=None)``: ``2 ** input``.

    >>> import strided.torch as torch
    >>> torch.exp2(torch.tensor([0, 3, -1]))
    tensor([1.0000, 8.0000, 0.5000])
    """
    return _ns().pow(2.0, _floating("exp2", input), out=out)


def logit(input, eps=None, *, out=None):
    """``torch.logit(input, eps=None, *, out=None)``: ``log(p / (1 - p))``, ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.

    >>> import strided.torch as torch
    >>> torch.logit(torch.tensor([0.5, 0.0]), eps=1e-6)
    tensor([  0.0000, -13.8155])
    """
    ns = _ns()
    p = _floating("logit", input)
    if p.dtype.kind == "c":  # (PyTorch's logit has no complex kernel)
        raise _dtypes.DTypeError(f"logit(): not implemented for complex dtype {p.dtype.name}")
    if eps is not None and eps > 0.5:
        # (an empty range, eps > 1 - eps: PyTorch's kernel tests x < eps first, then
        # x > 1 - eps, where clamp would give 1 - eps everywhere)
        p = ns.where(p < eps, ns.astype(ns.asarray(eps), p.dtype), ns.where(p > 1.0 - eps, 1.0 - eps, p))
    elif eps is not None:
        p = ns.clamp(p, eps, 1.0 - eps)
    return ns.log(ns.divide(p, ns.subtract(1.0, p)), out=out)


def logaddexp2(input, other, *, out=None):
    """``torch.logaddexp2(input, other, *, out=None)``: ``log2(2 ** input + 2 ** other)``, without overflow.

    >>> import strided.torch as torch
    >>> torch.logaddexp2(torch.tensor([1.0, 1000.0]), torch.tensor([1.0, 1000.0]))
    tensor([   2., 1001.])
    """
    _tensor("logaddexp2", input, "input")
    _tensor("logaddexp2", other, "other")
    _float_only("logaddexp2", input, other)
    ns = _ns()
    # PyTorch's formula: max + log1p(2 ** -|a - b|) / log(2), and a itself for equal infinities
    m = ns.maximum(input, other)
    r = ns.add(m, ns.multiply(ns.log1p(ns.pow(2.0, ns.negative(ns.abs(ns.subtract(input, other))))),
                              1.0 / math.log(2.0)))
    same_inf = ns.logical_and(ns.isinf(input), ns.equal(input, other))
    return ns.where(same_inf, input, r, out=out)


def sinc(input, *, out=None):
    """``torch.sinc(input, *, out=None)``: the normalized sinc, ``sin(pi x) / (pi x)``, 1 at 0.

    >>> import strided.torch as torch
    >>> torch.sinc(torch.tensor([0.0, 0.5, 1.0]))
    tensor([ 1.0000e+00,  6.3662e-01, -2.7828e-08])
    """
    ns = _ns()
    x = _floating("sinc", input)
    zero = ns.equal(x, 0)
    # (pi * 1 where x is 0: the branch not taken stays finite, and so does its gradient)
    px = ns.multiply(ns.where(zero, 1.0, x), math.pi)
    return ns.where(zero, 1.0, ns.divide(ns.sin(px), px), out=out)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """``torch.nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None)``: NaN, +inf and -inf replaced (infinities by the dtype's extremes by default; a complex array's parts each).

    >>> import strided.torch as torch
    >>> torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]), posinf=9.0)
    tensor([ 0.0000e+00,  9.0000e+00, -3.4028e+38,  1.0000e+00])
    """
    _tensor("nan_to_num", input, "input")
    ns = _ns()
    if input.dtype.kind == "c":
        # (PyTorch's: the real and imaginary parts each, by the part's dtype's extremes, the
        # result in the input's layout: a dense input in another axis order is computed
        # permuted to row-major and permuted back, as views)
        from ._shape_functions import complex as _complex
        from .._core import layout as _layout
        perm = _layout.dense_order(tuple(input.shape), tuple(input.stride()))
        x = input if perm is None else input.permute(perm)
        r = _complex(nan_to_num(x.real, nan, posinf, neginf), nan_to_num(x.imag, nan, posinf, neginf))
        if perm is not None:
            r = r.permute(_layout.inverse_order(perm))
        return r if out is None else out.copy_(r)
    if input.dtype.kind in "biu":
        # (no NaN or infinity: PyTorch returns a copy; the condition is all False)
        return ns.where(ns.isnan(input), input, input, out=out)
    big = ns.finfo(input.dtype).max
    r = ns.where(ns.isnan(input), nan, input)
    r = ns.where(ns.equal(input, math.inf), big if posinf is None else posinf, r)
    return ns.where(ns.equal(input, -math.inf), -big if neginf is None else neginf, r, out=out)


def _signed_inf(name: str, positive: bool):
    def f(input, *, out=None):
        _tensor(name, input, "input")
        _real_only(name, input)
        ns = _ns()
        side = ns.greater(input, 0) if positive else ns.less(input, 0)
        return ns.logical_and(ns.isinf(input), side, out=out)
    f.__name__ = f.__qualname__ = name
    sign = "+" if positive else "-"
    f.__doc__ = f"""``torch.{name}(input, *, out=None)``: True where ``input`` is {sign}inf.

    >>> import strided.torch as torch
    >>> torch.{name}(torch.tensor([float("inf"), -float("inf"), 1.0]))
    tensor([{" True, False" if positive else "False,  True"}, False])
    """
    return f


isposinf = _signed_inf("isposinf", True)
isneginf = _signed_inf("isneginf", False)


def isreal(input):
    """``torch.isreal(input)``: True where ``input``'s imaginary part is 0 (everywhere for a real dtype).

    >>> import strided.torch as torch
    >>> torch.isreal(torch.tensor([1+0j, 1+1j]))
    tensor([ True, False])
    """
    _tensor("isreal", input, "input")
    ns = _ns()
    if input.dtype.kind != "c":
        return ns.full_like(input, True, dtype=ns.bool)
    return ns.equal(ns.imag(input), 0)


def ldexp(input, other, *, out=None):
    """``torch.ldexp(input, other, *, out=None)``: ``input * 2 ** other``.

    The gradient in ``input`` is ``2 ** other``; PyTorch 2.13's is 0 where an integer
    ``other`` is negative (its derivative takes an integer power of 2).

    >>> import strided.torch as torch
    >>> torch.ldexp(torch.tensor([1.0, 3.0]), torch.tensor([3, -1]))
    tensor([8.0000, 1.5000])
    """
    _tensor("ldexp", input, "input")
    _tensor("ldexp", other, "other")
    ns = _ns()
    if other.dtype.kind not in "biu":
        return ns.multiply(input, ns.pow(2.0, other), out=out)
    if other.dtype.kind == "b" and input.dtype.kind == "f":
        # (PyTorch 2.13: a floating input with a bool exponent has no kernel; an integer or
        # complex input takes it)
        raise _dtypes.DTypeError("ldexp(): \"ldexp_cpu_exp\" not implemented for 'Bool' (a bool exponent "
                                 "of a floating input)")
    # An integer exponent: PyTorch's result has the input's floating dtype (float16 stays
    # float16; an integer input gives the default float), the power taken in float64 for a
    # float64/complex128 input and in float32 otherwise.
    k = input.dtype.kind
    dt = input.dtype if k in "fc" else _dtypes.get_default_dtype()
    wide = dt in (_dtypes.float64, _dtypes.complex128)
    p = ns.pow(2.0, ns.astype(other, _dtypes.float64 if wide else _dtypes.float32))
    r = ns.multiply(input if k in "fc" else ns.astype(input, dt), p)
    if r.dtype is not dt:
        r = ns.astype(r, dt)
    return r if out is None else out.copy_(r)


# --- linear algebra ------------------------------------------------------------------------

def mv(input, vec, *, out=None):
    """``torch.mv(input, vec, *, out=None)``: the product of a matrix and a vector.

    >>> import strided.torch as torch
    >>> torch.mv(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([1.0, -1.0]))
    tensor([-1., -1.])
    """
    _tensor("mv", input, "input")
    _tensor("mv", vec, "vec")
    _ndim("mv", "input", input, 2)
    _ndim("mv", "vec", vec, 1)
    _same_dtype("mv", input, vec)
    return _ns().matmul(input, vec, out=out)


def _scaled_sum(name, input, product, beta, alpha, out):
    """``beta * input + alpha * product``, ``input`` broadcast to the product's shape and
    ignored (NaN included) when ``beta`` is 0, as PyTorch's ``addmv``/``addr``/``addmm``."""
    ns = _ns()
    dt = ns.result_type(input, product)
    if name == "addr":
        alpha_check(dt, beta=beta, alpha=alpha)
    beta, alpha = blas_scalar(beta, dt), blas_scalar(alpha, dt)
    try:
        fits = ns.broadcast_shapes(tuple(input.shape), tuple(product.shape)) == tuple(product.shape)
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"{name}(): input of shape {tuple(input.shape)} does not broadcast to "
                           f"the product's shape {tuple(product.shape)}")
    if alpha != 1:
        product = ns.multiply(product, alpha)
    if beta == 0:
        input = ns.zeros_like(input)
    elif beta != 1:
        input = ns.multiply(input, beta)
    return ns.add(input, product, out=out)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``torch.addmv(input, mat, vec, *, beta=1, alpha=1, out=None)``: ``beta * input + alpha * (mat @ vec)``.

    >>> import strided.torch as torch
    >>> torch.addmv(torch.ones(2), torch.eye(2), torch.tensor([2.0, 3.0]), beta=0.5, alpha=2)
    tensor([4.5000, 6.5000])
    """
    for arg, x in (("input", input), ("mat", mat), ("vec", vec)):
        _tensor("addmv", x, arg)
    _ndim("addmv", "mat", mat, 2)
    _ndim("addmv", "vec", vec, 1)
    _same_dtype("addmv", input, mat, vec)
    return _scaled_sum("addmv", input, _ns().matmul(mat, vec), beta, alpha, out)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``torch.addr(input, vec1, vec2, *, beta=1, alpha=1, out=None)``: ``beta * input + alpha * outer(vec1, vec2)``.

    >>> import strided.torch as torch
    >>> torch.addr(torch.zeros(2, 2), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    for arg, x in (("input", input), ("vec1", vec1), ("vec2", vec2)):
        _tensor("addr", x, arg)
    _ndim("addr", "vec1", vec1, 1)
    _ndim("addr", "vec2", vec2, 1)
    return _scaled_sum("addr", input, _ns().outer(vec1, vec2), beta, alpha, out)


def inner(input, other, *, out=None):
    """``torch.inner(input, other, *, out=None)``: the sum of products over the last dimensions (a product for a 0-d input).

    >>> import strided.torch as torch
    >>> torch.inner(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """
    _tensor("inner", input, "input")
    _tensor("inner", other, "other")
    _same_dtype("inner", input, other)
    ns = _ns()
    if input.ndim == 0 or other.ndim == 0:
        return ns.multiply(input, other, out=out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner(): the last dimension must match on both inputs; got shapes "
                           f"{tuple(input.shape)} and {tuple(other.shape)}")
    return ns.tensordot(input, other, axes=([-1], [-1]), out=out)


def vdot(input, other, *, out=None):
    """``torch.vdot(input, other, *, out=None)``: the dot product of two 1-D tensors, the first conjugated.

    >>> import strided.torch as torch
    >>> torch.vdot(torch.tensor([1j, 2]), torch.tensor([1j, 1]))
    tensor(3.+0.j)
    """
    _tensor("vdot", input, "input")
    _tensor("vdot", other, "other")
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"vdot(): 1-D tensors expected; got {input.ndim}-D and {other.ndim}-D")
    _same_dtype("vdot", input, other)
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"vdot(): inputs of {input.shape[0]} and {other.shape[0]} elements")
    return _ns().vecdot(input, other, out=out)


def dist(input, other, p=2):
    """``torch.dist(input, other, p=2)``: the ``p``-norm of ``input - other``.

    >>> import strided.torch as torch
    >>> torch.dist(torch.tensor([1.0, 1.0]), torch.tensor([4.0, 5.0]))
    tensor(5.)
    """
    _tensor("dist", input, "input")
    _tensor("dist", other, "other")
    ns = _ns()
    return ns.linalg.vector_norm(ns.subtract(input, other), ord=p)


def matrix_power(input, n, *, out=None):
    """``torch.matrix_power(input, n, *, out=None)``: the ``n``-th power of a square matrix (or a batch); ``n < 0`` inverts.

    >>> import strided.torch as torch
    >>> torch.matrix_power(torch.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    _tensor("matrix_power", input, "input")
    return _ns().linalg.matrix_power(input, n, out=out)


def slogdet(input):
    """``torch.slogdet(input)``: ``return_types.slogdet(sign, logabsdet)`` of a square matrix (or a batch).

    >>> import strided.torch as torch
    >>> torch.slogdet(torch.tensor([[0.0, 2.0], [1.0, 0.0]]))
    strided.torch.return_types.slogdet(
    sign=tensor(-1.),
    logabsdet=tensor(0.6931))
    """
    _tensor("slogdet", input, "input")
    s, l = _ns().linalg.slogdet(input)
    return return_types.slogdet(s, l)


def logdet(input):
    """``torch.logdet(input)``: ``log(det(input))``: NaN for a negative determinant, -inf for 0.

    >>> import strided.torch as torch
    >>> torch.logdet(torch.tensor([[2.0, 0.0], [0.0, 3.0]]))
    tensor(1.7918)
    """
    _tensor("logdet", input, "input")
    ns = _ns()
    s, l = ns.linalg.slogdet(input)
    if input.dtype.kind == "c":
        return ns.add(ns.log(s), l)
    return ns.where(ns.less(s, 0), math.nan, l)


def pinverse(input, rcond=1e-15):
    """``torch.pinverse(input, rcond=1e-15)``: the pseudo-inverse; singular values below ``rcond`` times the largest are 0.

    >>> import strided.torch as torch
    >>> torch.pinverse(torch.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    _tensor("pinverse", input, "input")
    return _ns().linalg.pinv(input, rtol=rcond)


def svd(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd(input, some=True, compute_uv=True, *, out=None)``: ``return_types.svd(U, S, V)`` with ``input = U diag(S) V^H``.

    PyTorch's older SVD: ``V``, not ``Vh`` (``torch.linalg.svd``'s); ``some=True`` reduced.
    ``compute_uv=False`` and ``out=`` raise.

    >>> import strided.torch as torch
    >>> U, S, V = torch.svd(torch.tensor([[3.0, 0.0], [0.0, -2.0], [0.0, 0.0]]))
    >>> U.shape, S, V.shape
    (strided.Size([3, 2]), tensor([3., 2.]), strided.Size([2, 2]))
    """
    _tensor("svd", input, "input")
    _no_out("svd", out)
    if not compute_uv:
        raise NotImplementedError("svd(): compute_uv=False (PyTorch's zero-filled U and V) is not "
                                  "supported; use strided.linalg.svdvals for the singular values")
    ns = _ns()
    U, S, Vh = ns.linalg.svd(input, full_matrices=not some)
    return return_types.svd(U, S, ns.conj(ns.matrix_transpose(Vh)))


def qr(input, some=True, *, out=None):
    """``torch.qr(input, some=True, *, out=None)``: ``return_types.qr(Q, R)``, reduced when ``some`` (else complete).

    >>> import strided.torch as torch
    >>> Q, R = torch.qr(torch.tensor([[3.0, 0.0], [4.0, 5.0], [0.0, 0.0]]))
    >>> Q.shape, R.shape
    (strided.Size([3, 2]), strided.Size([2, 2]))
    """
    _tensor("qr", input, "input")
    _no_out("qr", out)
    q, r = _ns().linalg.qr(input, mode="reduced" if some else "complete")
    return return_types.qr(q, r)


# --- statistics ----------------------------------------------------------------------------

def cov(input, *, correction=1, fweights=None, aweights=None):
    """``torch.cov(input, *, correction=1, fweights=None, aweights=None)``: the covariance matrix of the rows (variables) over the columns (observations).

    A 1-D input is one variable; the result is squeezed as PyTorch squeezes it (0-d for one variable).

    >>> import strided.torch as torch
    >>> torch.cov(torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    _tensor("cov", input, "input")
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions; got {input.ndim}")
    ns = _ns()
    x = ns.reshape(input, (1, -1)) if input.ndim < 2 else input
    n_obs = x.shape[1]
    w = None
    for arg, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        _tensor("cov", wt, arg)
        if wt.ndim > 1 or wt.shape[0] != n_obs:
            raise RuntimeError(f"cov(): expected {arg} to be 1-D with {n_obs} elements (one per "
                               f"observation); got shape {tuple(wt.shape)}")
        if arg == "fweights" and wt.dtype.kind not in "iu":
            raise RuntimeError(f"cov(): expected fweights to have an integral dtype; got {wt.dtype.name}")
        if arg == "aweights" and wt.dtype.kind != "f":
            raise RuntimeError(f"cov(): expected aweights to have a floating point dtype; got {wt.dtype.name}")
        if builtins.bool(ns.any(ns.less(wt, 0))):
            raise RuntimeError(f"cov(): {arg} cannot be negative")
        w = wt if w is None else ns.multiply(w, wt)
    # PyTorch's Correlation.cpp, step for step (its sums of integers are int64: the standard's
    # sum of uint8 is uint64, whose quotient by int64 would be float64, PyTorch's float32)
    def total(a, axis=None):
        return ns.sum(a, axis=axis, dtype=ns.int64 if a.dtype.kind in "iu" else None)
    if w is None:
        w_sum = ns.asarray(n_obs, dtype=ns.int64, device=x.device)
        avg = ns.divide(total(x, 1), w_sum)
    else:
        w_sum = total(w)
        avg = ns.divide(total(ns.multiply(x, w), 1), w_sum)
    if w is not None and aweights is not None and correction != 0:
        norm = ns.subtract(w_sum, ns.divide(ns.multiply(ns.sum(ns.multiply(w, aweights)), correction), w_sum))
    else:
        norm = ns.subtract(w_sum, correction)
    if builtins.bool(ns.less_equal(norm, 0)):
        warnings.warn("cov(): degrees of freedom is <= 0; correction should be strictly less "
                      "than the number of observations", UserWarning, stacklevel=stacklevel())
        norm = ns.zeros_like(norm)  # (PyTorch's: it divides by 0)
    xm = ns.subtract(x, ns.expand_dims(avg, axis=1))
    c = ns.matmul(xm, ns.conj(ns.matrix_transpose(xm if w is None else ns.multiply(xm, w))))
    return ns.squeeze(ns.divide(c, norm), axis=tuple(i for i in range(2) if c.shape[i] == 1))


def corrcoef(input):
    """``torch.corrcoef(input)``: Pearson's correlation coefficients of the rows (variables), clipped to [-1, 1].

    >>> import strided.torch as torch
    >>> torch.corrcoef(torch.tensor([[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]]))
    tensor([[1., 1.],
            [1., 1.]])
    """
    _tensor("corrcoef", input, "input")
    ns = _ns()
    c = cov(input)
    if c.ndim == 0:
        return ns.divide(c, c)
    d = ns.diagonal(c)
    sd = ns.sqrt(ns.real(d) if d.dtype.kind == "c" else d)
    c = ns.divide(ns.divide(c, ns.expand_dims(sd, axis=1)), ns.expand_dims(sd, axis=0))
    if c.dtype.kind == "c":  # PyTorch clips the real and the imaginary parts each to [-1, 1]
        from ._shape_functions import complex as _complex
        return _complex(ns.clip(ns.real(c), -1, 1), ns.clip(ns.imag(c), -1, 1))
    return ns.clip(c, -1, 1)


def _scan(state: list, dim: int, combine) -> list:
    """The inclusive scan of ``state`` (arrays of one shape) along ``dim``: after it, element
    ``i`` holds ``combine`` of elements ``0..i`` in order. By doubling (Hillis and Steele):
    round ``s`` combines each element with the one ``s`` before it, log2(n) rounds of
    whole-array operations. ``combine(earlier, later)`` must be associative."""
    ns = _ns()
    n = state[0].shape[dim]
    s = 1
    while s < n:
        earlier = [ns.narrow(a, dim, 0, n - s) for a in state]
        later = [ns.narrow(a, dim, s, n - s) for a in state]
        tail = combine(earlier, later)
        state = [ns.concat([ns.narrow(a, dim, 0, s), t], axis=dim) for a, t in zip(state, tail)]
        s *= 2
    return state


def _cumulative_extreme(name: str, later_wins):
    def f(input, dim, *, out=None):
        rt = getattr(return_types, name)
        _tensor(name, input, "input")
        _real_only(name, input)
        _no_out(name, out)
        ns = _ns()
        d = _dim(name, input, dim)
        if input.ndim == 0:
            return rt(ns.asarray(input, copy=True), ns.zeros((), dtype=ns.int64, device=input.device))
        n = input.shape[d]
        shape = [1] * input.ndim
        shape[d] = n
        idx = ns.broadcast_to(ns.reshape(ns.arange(n, dtype=ns.int64, device=input.device), tuple(shape)),
                              tuple(input.shape))

        def combine(earlier, later):
            # PyTorch's rule (aten cummax_cummin_helper): a later element takes over where it
            # is NaN or, with no NaN so far, where it ties or beats the running extreme.
            (ev, ei), (lv, li) = earlier, later
            take = ns.logical_or(ns.isnan(lv), ns.logical_and(ns.logical_not(ns.isnan(ev)), later_wins(lv, ev)))
            return ns.where(take, lv, ev), ns.where(take, li, ei)
        v, i = _scan([input, idx], d, combine)
        return rt(v, i)
    f.__name__ = f.__qualname__ = name
    return f


cummax = _cumulative_extreme("cummax", lambda a, b: _ns().greater_equal(a, b))
cummax.__doc__ = """``torch.cummax(input, dim, *, out=None)``: ``return_types.cummax(values, indices)``, the running maximum along ``dim``.

    Ties take the later index and NaN propagates, as in PyTorch. ``out=`` raises.

    >>> import strided.torch as torch
    >>> torch.cummax(torch.tensor([1, 3, 3, 2]), 0)
    strided.torch.return_types.cummax(
    values=tensor([1, 3, 3, 3]),
    indices=tensor([0, 1, 2, 2]))
    """
cummin = _cumulative_extreme("cummin", lambda a, b: _ns().less_equal(a, b))
cummin.__doc__ = """``torch.cummin(input, dim, *, out=None)``: ``return_types.cummin(values, indices)``, the running minimum along ``dim``.

    Ties take the later index and NaN propagates, as in PyTorch. ``out=`` raises.

    >>> import strided.torch as torch
    >>> torch.cummin(torch.tensor([3.0, 1.0, 2.0]), 0).values
    tensor([3., 1., 1.])
    """


def logcumsumexp(input, dim, *, out=None):
    """``torch.logcumsumexp(input, dim, *, out=None)``: ``log(cumsum(exp(input)))`` along ``dim``, without overflow.

    >>> import strided.torch as torch
    >>> torch.logcumsumexp(torch.tensor([0.0, 1000.0, 0.0]), 0)
    tensor([   0., 1000., 1000.])
    """
    _tensor("logcumsumexp", input, "input")
    _float_only("logcumsumexp", input)
    _real_only("logcumsumexp", input)
    _no_out("logcumsumexp", out)
    ns = _ns()
    d = _dim("logcumsumexp", input, dim)
    if input.ndim == 0:
        return ns.asarray(input, copy=True)
    return _scan([input], d, lambda e, l: [ns.logaddexp(e[0], l[0])])[0]


def histc(input, bins=100, min=0, max=0, *, out=None):  # noqa: A002 - PyTorch's names
    """``torch.histc(input, bins=100, min=0, max=0, *, out=None)``: counts in ``bins`` equal bins over ``[min, max]`` (the data's range when both are 0).

    Elements outside the range are not counted; the result has ``input``'s dtype. ``out=`` raises.

    >>> import strided.torch as torch
    >>> torch.histc(torch.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    _tensor("histc", input, "input")
    _float_only("histc", input)
    _real_only("histc", input)
    _no_out("histc", out)
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0; got {bins}")
    ns = _ns()
    lo, hi = builtins.float(min), builtins.float(max)
    if lo == hi and math.prod(input.shape):
        lo, hi = builtins.float(ns.min(input)), builtins.float(ns.max(input))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"histc(): range of [{lo}, {hi}] is not finite")
    if lo > hi:
        raise RuntimeError(f"histc(): max must be larger than min; got min={lo}, max={hi}")
    # PyTorch's arithmetic: the edges in input's dtype, the bin (x - lo) / (hi - lo) * bins
    # truncated, the last edge counted in the last bin
    x = ns.reshape(input, (-1,))
    lo_t = ns.asarray(lo, dtype=input.dtype, device=input.device)
    hi_t = ns.asarray(hi, dtype=input.dtype, device=input.device)
    pos = ns.astype(ns.multiply(ns.divide(ns.subtract(x, lo_t), ns.subtract(hi_t, lo_t)), bins), ns.int64)
    inside = ns.logical_and(ns.greater_equal(x, lo_t), ns.less_equal(x, hi_t))
    pos = ns.where(inside, ns.minimum(pos, bins - 1), 0)
    counts = ns.bincount(pos, weights=ns.astype(inside, input.dtype), minlength=bins)
    return ns.astype(counts, input.dtype)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """``torch.bucketize(input, boundaries, *, out_int32=False, right=False, out=None)``: the index of each element's bucket in the sorted 1-D ``boundaries``.

    ``right=False``: ``boundaries[i-1] < x <= boundaries[i]``; ``right=True``: ``boundaries[i-1] <= x < boundaries[i]``.

    >>> import strided.torch as torch
    >>> torch.bucketize(torch.tensor([1, 5, 9]), torch.tensor([1, 3, 5, 7]))
    tensor([0, 2, 4])
    """
    _tensor("bucketize", boundaries, "boundaries")
    if boundaries.ndim != 1:
        raise RuntimeError(f"bucketize(): boundaries must be 1-D; got {boundaries.ndim}-D")
    ns = _ns()
    side = "right" if right else "left"
    if out_int32:
        _no_out("bucketize (with out_int32=True)", out)
        return ns.astype(ns.searchsorted(boundaries, input, side=side), ns.int32)
    return ns.searchsorted(boundaries, input, side=side, out=out)


def _trapezoid_steps(name, y, x, dx, dim):
    """``(d, dx)``: ``y``'s dim and the step, a number or an array broadcasting against
    ``y``'s slices along ``d`` (PyTorch: a 1-D ``x`` lies along ``dim``; a lower-rank one
    is padded with leading dims)."""
    _tensor(name, y, "y")
    if x is not None and dx is not None:
        raise TypeError(f"{name}(): got both x and dx; give the sample points or the spacing")
    d = _dim(name, y, dim)
    if x is None:
        return d, 1 if dx is None else dx
    _tensor(name, x, "x")
    ns = _ns()
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}(): there must be one x value for each sample point: x has "
                               f"{x.shape[0]}, y has {y.shape[d]} along dim {dim}")
        shape = [1] * y.ndim
        shape[d] = x.shape[0]
        x = ns.reshape(x, tuple(shape))
    elif x.ndim < y.ndim:
        x = ns.reshape(x, (1,) * (y.ndim - x.ndim) + tuple(x.shape))
    n = x.shape[d]
    return d, ns.subtract(ns.narrow(x, d, 1, n - 1), ns.narrow(x, d, 0, n - 1))


def _pair_sums(y, d):
    """``y[1:] + y[:-1]`` along ``d``."""
    ns = _ns()
    n = y.shape[d]
    return ns.add(ns.narrow(y, d, 1, n - 1), ns.narrow(y, d, 0, n - 1))


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.trapezoid(y, x=None, *, dx=None, dim=-1)``: the trapezoidal rule along ``dim``, at sample points ``x`` or spacing ``dx`` (1 by default).

    >>> import strided.torch as torch
    >>> torch.trapezoid(torch.tensor([1.0, 2.0, 3.0]), dx=0.5)
    tensor(2.)
    >>> torch.trapezoid(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.0, 1.0, 3.0]))
    tensor(6.5000)
    """
    ns = _ns()
    d, step = _trapezoid_steps("trapezoid", y, x, dx, dim)
    if y.shape[d] == 0:
        return ns.zeros(tuple(s for i, s in enumerate(y.shape) if i != d), dtype=y.dtype, device=y.device)
    if isinstance(step, Array):
        return ns.divide(ns.sum(ns.multiply(step, _pair_sums(y, d)), axis=d), 2.0)
    # PyTorch's formula for a constant step: (sum - (first + last) / 2) * dx
    ends = ns.add(ns.take(y, ns.asarray([0], device=y.device), axis=d),
                  ns.take(y, ns.asarray([y.shape[d] - 1], device=y.device), axis=d))
    return ns.multiply(ns.subtract(ns.sum(y, axis=d), ns.multiply(ns.squeeze(ends, axis=d), 0.5)), step)


def trapz(y, x=None, *, dx=None, dim=-1):
    """``torch.trapz(y, x=None, *, dx=None, dim=-1)``: PyTorch's older name of ``trapezoid``.

    >>> import strided.torch as torch
    >>> torch.trapz(torch.tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.cumulative_trapezoid(y, x=None, *, dx=None, dim=-1)``: the running trapezoidal rule along ``dim`` (one element fewer).

    >>> import strided.torch as torch
    >>> torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 3.0]))
    tensor([1.5000, 4.0000])
    """
    ns = _ns()
    d, step = _trapezoid_steps("cumulative_trapezoid", y, x, dx, dim)
    if y.shape[d] == 0:
        return ns.asarray(y, copy=True)
    if isinstance(step, Array):
        areas = ns.divide(ns.multiply(step, _pair_sums(y, d)), 2.0)
    else:
        areas = ns.multiply(_pair_sums(y, d), step / 2.0)
    return ns.cumsum(areas, axis=d)


# PyTorch's named tuples of the linear-algebra results (torch.return_types.svd, ...), beside
# _functions' own. Imported last: _functions imports this module at its end, and this module
# may be imported first (the docs' module walk); either way every name above is defined
# before the other module reads it.
from ._functions import _return_type, return_types  # noqa: E402

return_types.svd = _return_type("svd", ("U", "S", "V"))
return_types.qr = _return_type("qr", ("Q", "R"))
return_types.slogdet = _return_type("slogdet", ("sign", "logabsdet"))
