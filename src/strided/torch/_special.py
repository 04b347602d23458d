"""PyTorch's special functions over strided's arrays: ``erf``, ``erfc``, ``erfinv``,
``lgamma`` and ``digamma``, with their derivatives.

Each is a ``strided.autograd.Function`` over a native kernel: on the CPU strided's own erf
for float32 (gelu's: ``activations.native_erf``) and SciPy's ``scipy.special`` ufuncs
(``math``'s scalar functions per element where SciPy is missing: erf, erfc and lgamma only);
on a GPU ``cupyx.scipy.special`` (a CuPy without it: one round trip through the host). As
PyTorch: integer and bool inputs compute in the default float dtype, float16 in float32
rounded once, complex inputs raise; ``out=`` is written by the writer (``positive``'s
``out=``), so a result that requires grad refuses it as every ``out=`` does.
"""

from __future__ import annotations

import importlib
import math
import sys

import numpy as np

from .._api import activations as _act
from .._core import dtypes as _dtypes
from .._core.array import Array
from ..autograd._function import Function
from ._checks import floating_dtype, tensor as _tensor

__all__ = ["erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "i0"]

_SCIPY = {"erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "lgamma": "gammaln", "digamma": "psi",
          "polygamma": "polygamma", "i0": "i0", "i0e": "i0e", "i1": "i1", "i1e": "i1e"}
_MATH = {"erf": math.erf, "erfc": math.erfc, "lgamma": math.lgamma}
_SQRT_PI = math.sqrt(math.pi)


def _ns():
    return sys.modules["strided"]


def _scipy_ufunc(module: str, name: str, n=None):
    """``module``'s ufunc for ``name`` (``scipy.special.erfinv``; ``polygamma(n, .)``), or None."""
    try:
        special = importlib.import_module(module)
    except ImportError:
        return None
    if name == "polygamma":
        return lambda a: special.polygamma(n, a)
    return getattr(special, _SCIPY[name])


def _native(name: str, x: Array, n=None) -> Array:
    """``name`` (of order ``n``: polygamma) of each element of the float array ``x`` (float32
    or float64), a new array of ``x``'s dtype on ``x``'s device."""
    dev = x._device
    xp = dev.backend.xp
    a = x._get_native()
    if name == "erf":
        r = _act.native_erf(xp, a)
    elif xp is np:
        f = _scipy_ufunc("scipy.special", name, n)
        if f is not None:
            with np.errstate(all="ignore"):
                r = f(a)
                if name == "lgamma":  # (SciPy's gammaln of a subnormal is inf; C's: -log|x|)
                    r = np.where(np.abs(a) < np.finfo(a.dtype).tiny, -np.log(np.abs(a)), r)
        elif name in _MATH:
            r = np.vectorize(_MATH[name], otypes=[np.float64])(a)
        else:
            raise NotImplementedError(f"{name}(): needs SciPy (scipy.special) on the CPU; "
                                      f"pip install scipy")
    else:
        f = _scipy_ufunc("cupyx.scipy.special", name, n)
        if f is None:  # (a CuPy without cupyx.scipy, the stand-in: through the host)
            host = Array._wrap(xp.asnumpy(a) if hasattr(xp, "asnumpy") else np.asarray(a), x._dtype,
                               _ns().Device("cpu"))
            return _ns().asarray(_native(name, host, n), device=dev)
        with dev.backend.ctx(dev):
            r = f(a)
    with dev.backend.ctx(dev):
        r = xp.asarray(r, dtype=a.dtype)
        if name == "lgamma":  # (SciPy's gammaln(-inf) is -inf; C's lgamma and PyTorch's: inf)
            r = xp.where(xp.isneginf(a), xp.asarray(np.inf, dtype=a.dtype), r)
    return _ns().asarray(r, device=dev)


def _function(name: str, node: str, derivative, values=None, n=None):
    """A Function computing ``name`` (by ``values(x)``, else the native kernel; ``n``:
    polygamma's order), whose backward is ``g * derivative(x, result)`` (its graph node
    ``<node>Backward``)."""
    def forward(ctx, x):
        r = _native(name, x, n) if values is None else values(x)
        ctx.save_for_backward(x, r)
        return r

    def backward(ctx, g):
        x, r = ctx.saved_tensors
        return g * derivative(x, r)
    return type(node, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                    "__doc__": f"{name} with its derivative."})


_POLYGAMMA = {}


def _polygamma(n: int):
    """The Function of polygamma of order ``n`` >= 1, whose derivative is order ``n + 1``'s."""
    f = _POLYGAMMA.get(n)
    if f is None:
        f = _POLYGAMMA[n] = _function("polygamma", "Polygamma", lambda x, r: _polygamma(n + 1).apply(x), n=n)
    return f


def _where_zero(x, at_zero, elsewhere):
    """``elsewhere(x')`` with ``at_zero`` where ``x`` is 0 (``x'``: x, 1 where x is 0)."""
    ns = _ns()
    zero = ns.equal(x, 0)
    return ns.where(zero, at_zero, elsewhere(ns.where(zero, 1.0, x)))


def _i1_derivative(x, r):  # i0(x) - i1(x) / x, 1/2 at 0 (PyTorch's)
    return _where_zero(x, 0.5, lambda xs: _FUNCTIONS["i0"].apply(x) - _FUNCTIONS["i1"].apply(xs) / xs)


def _i1e_derivative(x, r):  # i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 at 0
    ns = _ns()
    return _where_zero(x, 0.5, lambda xs: _FUNCTIONS["i0e"].apply(x)
                       - _FUNCTIONS["i1e"].apply(xs) * (ns.sign(xs) + 1.0 / xs))


_FUNCTIONS = {
    "erf": _function("erf", "Erf", lambda x, r: _ns().exp(-(x * x)) * (2.0 / _SQRT_PI)),
    "erfc": _function("erfc", "Erfc", lambda x, r: _ns().exp(-(x * x)) * (-2.0 / _SQRT_PI)),
    "erfinv": _function("erfinv", "Erfinv", lambda x, r: _ns().exp(r * r) * (_SQRT_PI / 2.0)),
    "lgamma": _function("lgamma", "Lgamma", lambda x, r: _FUNCTIONS["digamma"].apply(x)),
    "digamma": _function("digamma", "Digamma", lambda x, r: _polygamma(1).apply(x)),
    "i0": _function("i0", "I0", lambda x, r: _FUNCTIONS["i1"].apply(x)),
    "i0e": _function("i0e", "SpecialI0e",
                     lambda x, r: _FUNCTIONS["i1e"].apply(x) - _ns().sign(x) * _FUNCTIONS["i0e"].apply(x)),
    "i1": _function("i1", "SpecialI1", _i1_derivative),
    "i1e": _function("i1e", "SpecialI1e", _i1e_derivative),
}


def _public(name: str, fn=None):
    """PyTorch's ``torch.<name>`` over the Function ``fn`` (``_FUNCTIONS[name]`` by default)."""
    fn = _FUNCTIONS[name] if fn is None else fn

    def call(input, *, out=None):
        _tensor(name, input)
        ns = _ns()
        k = input._dtype.kind
        if k == "c":
            raise _dtypes.DTypeError(f"{name}(): not implemented for complex dtype {input._dtype.name}")
        x = input if k == "f" else ns.astype(input, floating_dtype(input))
        if x._dtype is _dtypes.float16:  # (PyTorch's CPU kernel: in float32, rounded once)
            r = ns.astype(fn.apply(ns.astype(x, _dtypes.float32)), _dtypes.float16)
        else:
            r = fn.apply(x)
        if input.ndim > 1 and not input.is_contiguous():  # (the input's layout, as TensorIterator's)
            from ._memory_format import copy_with_strides, format_strides
            want = format_strides(input, None, name)
            if tuple(r.stride()) != want:
                r = copy_with_strides(r, want)
        names = input.names
        if any(n is not None for n in names):
            r = r.refine_names(*names)
        return r if out is None else ns.positive(r, out=out)
    call.__name__ = call.__qualname__ = name
    call.__module__ = "strided.torch"
    call.__doc__ = (f"PyTorch's ``torch.{name}(input, *, out=None)``, elementwise; integer inputs in "
                    f"the default float dtype, float16 in float32 rounded once. Differentiable.")
    return call


def polygamma(n, input, *, out=None):
    """PyTorch's ``torch.polygamma(n, input, *, out=None)``: the ``n``-th derivative of digamma
    (``n = 0``: digamma), elementwise; differentiable in ``input`` (order ``n + 1``)."""
    if type(n) is not int or n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n; got n={n!r}") if type(n) is int \
            else TypeError(f"polygamma(): n must be an int; got {type(n).__name__}")
    return _public("polygamma", _FUNCTIONS["digamma"] if n == 0 else _polygamma(n))(input, out=out)


erf = _public("erf")
erfc = _public("erfc")
erfinv = _public("erfinv")
lgamma = _public("lgamma")
digamma = _public("digamma")
i0 = _public("i0")
