"""More of PyTorch's special functions: ``torch.mvlgamma``, ``torch.igamma``, ``torch.igammac``
and ``torch.special``'s ``gammainc``, ``gammaincc``, ``multigammaln``, ``log_ndtr``, ``ndtri``,
``erfcx``, ``zeta``, the Bessel functions ``bessel_j0/j1/y0/y1``, ``modified_bessel_i0/i1/k0/k1``,
``scaled_modified_bessel_k0/k1``, ``spherical_bessel_j0`` and ``airy_ai``.

As ``_special``'s: SciPy's ``scipy.special`` ufuncs on the CPU (``cupyx.scipy.special`` on a
GPU; through the host where CuPy lacks it) as ``strided.autograd.Function``s with PyTorch's
derivatives where PyTorch has one (``log_ndtr``, ``ndtri``, ``erfcx``; ``igamma``/``igammac``
and ``zeta`` in their second argument). Where PyTorch has none the result is not differentiable
as PyTorch's (the Bessel functions and ``airy_ai`` return results that do not require grad;
``igamma``'s first argument and ``zeta``'s first raise PyTorch's NotImplementedError in
backward). ``mvlgamma`` is a sum of ``lgamma``s, differentiable through them. Integer inputs
compute in the default float dtype (``igamma``/``igammac`` refuse them, as PyTorch's CPU
kernel); float16 is refused as PyTorch's CPU kernels refuse it.
"""

from __future__ import annotations

import importlib
import math
import sys

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import Array
from .._api.creation import wrap_new as _wrap_new
from ..autograd._function import Function
from ._checks import floating_dtype as _floating_dtype, tensor as _tensor

__all__ = ["mvlgamma", "igamma", "igammac"]

# the special-module names defined here (strided.torch.special imports them)
SPECIAL = ["gammainc", "gammaincc", "multigammaln", "log_ndtr", "ndtri", "erfcx", "zeta", "bessel_j0",
           "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai"]

# PyTorch's name -> scipy.special's
_SCIPY = {"bessel_j0": "j0", "bessel_j1": "j1", "bessel_y0": "y0", "bessel_y1": "y1",
          "modified_bessel_i0": "i0", "modified_bessel_i1": "i1", "modified_bessel_k0": "k0",
          "modified_bessel_k1": "k1", "scaled_modified_bessel_k0": "k0e", "scaled_modified_bessel_k1": "k1e",
          "log_ndtr": "log_ndtr", "ndtri": "ndtri", "erfcx": "erfcx", "igamma": "gammainc",
          "igammac": "gammaincc", "zeta": "zeta", "airy_ai": "airy", "spherical_bessel_j0": "spherical_jn"}


def _ns():
    return sys.modules["strided"]


def _ufunc(module: str, name: str):
    try:
        special = importlib.import_module(module)
    except ImportError:
        return None
    f = getattr(special, _SCIPY[name], None)
    if f is None:
        return None
    if name == "airy_ai":
        return lambda a: f(a)[0]
    if name == "spherical_bessel_j0":
        return lambda a: f(0, a)
    return f


def _native(name: str, *xs: Array) -> Array:
    """``name`` of the float arrays ``xs`` (one dtype, one device, broadcast), a new array."""
    dev = xs[0].device
    xp = dev.backend.xp
    arrays = [x._get_native() for x in xs]
    if xp is np:
        f = _ufunc("scipy.special", name)
        if f is None:
            raise NotImplementedError(f"{name}(): needs SciPy (scipy.special) on the CPU; pip install scipy")
        with np.errstate(all="ignore"):
            r = f(*arrays)
    else:
        f = _ufunc("cupyx.scipy.special", name)
        if f is None:  # (a CuPy without cupyx.scipy.special: through the host)
            cpu = _ns().Device("cpu")
            hosts = [_ns().asarray(x, device=cpu) for x in xs]
            return _ns().asarray(_native(name, *hosts), device=dev)
        with dev.backend.ctx(dev):
            r = f(*arrays)
    with dev.backend.ctx(dev):
        r = xp.asarray(r, dtype=arrays[0].dtype)
    return _wrap_new(r, xs[0].dtype, dev)


def _floats(name: str, *xs, ints_ok=True, half_ok=False):
    """``xs`` (arrays or Python numbers, at least one array) in the dtype PyTorch computes
    ``name`` in, broadcast, as arrays on the first array's device."""
    ns = _ns()
    arrays = [x for x in xs if type(x) is Array]
    for x in arrays:
        if x.dtype.kind == "c":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{x.dtype.name}'")
    dt = _floating_dtype(*xs)
    src = ns.result_type(*xs)
    if not ints_ok and src.kind in "biu":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Long'"
                                  if src == _dtypes.int64 else f"\"{name}_cpu\" not implemented for '{src.name}'")
    if dt == _dtypes.float16 and not half_ok:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Half'")
    dev = arrays[0].device
    out = [ns.astype(x, dt) if type(x) is Array else ns.asarray(x, dtype=dt, device=dev) for x in xs]
    if len(out) > 1:  # (each broadcast alone: only an input that requires grad gives a result that does)
        shape = ns.broadcast_shapes(*[tuple(o.shape) for o in out])
        out = [o if tuple(o.shape) == shape else ns.broadcast_to(o, shape) for o in out]
    return out


def _unary_function(name: str, derivative):
    def forward(ctx, x):
        r = _native(name, x)
        ctx.save_for_backward(x, r)
        return r

    def backward(ctx, g):
        x, r = ctx.saved_tensors
        return g * derivative(x, r)
    node = "Special" + "".join(p.capitalize() for p in name.split("_"))
    return type(node, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                    "__doc__": f"{name} with PyTorch's derivative."})


_SQRT_2PI = math.sqrt(2.0 * math.pi)

_UNARY = {
    # PyTorch's derivatives (tools/autograd/derivatives.yaml)
    "log_ndtr": _unary_function("log_ndtr", lambda x, r: _ns().exp(-(x * x) / 2.0 - r) / _SQRT_2PI),
    "ndtri": _unary_function("ndtri", lambda x, r: _ns().exp(r * r / 2.0) * _SQRT_2PI),
    "erfcx": _unary_function("erfcx", lambda x, r: x * r * 2.0 - 2.0 / math.sqrt(math.pi)),
}


def _unary(name: str, doc: str):
    fn = _UNARY.get(name)

    def call(input, *, out=None):
        x = _tensor(name, input)
        (xf,) = _floats(name, x)
        r = fn.apply(xf) if fn is not None else _native(name, xf.detach())
        return r if out is None else _ns().positive(r, out=out)
    call.__name__ = call.__qualname__ = name
    call.__module__ = "strided.torch.special"
    grad = ("differentiable, PyTorch's derivative" if fn is not None
            else "not differentiable (the result never requires grad), as PyTorch's")
    call.__doc__ = (f"``torch.special.{name}(input, *, out=None)``: {doc}, elementwise; {grad}. Integer "
                    f"inputs compute in the default float dtype.\n\n"
                    f"    >>> import strided.torch as torch\n"
                    f"    >>> torch.special.{name}(torch.tensor([0.5])).shape\n"
                    f"    strided.Size([1])\n")
    return call


log_ndtr = _unary("log_ndtr", "the log of the standard normal CDF")
ndtri = _unary("ndtri", "the inverse of the standard normal CDF")
erfcx = _unary("erfcx", "the scaled complementary error function ``exp(x**2) * erfc(x)``")
bessel_j0 = _unary("bessel_j0", "the Bessel function of the first kind of order 0")
bessel_j1 = _unary("bessel_j1", "the Bessel function of the first kind of order 1")
bessel_y0 = _unary("bessel_y0", "the Bessel function of the second kind of order 0")
bessel_y1 = _unary("bessel_y1", "the Bessel function of the second kind of order 1")
modified_bessel_i0 = _unary("modified_bessel_i0", "the modified Bessel function of the first kind of order 0")
modified_bessel_i1 = _unary("modified_bessel_i1", "the modified Bessel function of the first kind of order 1")
modified_bessel_k0 = _unary("modified_bessel_k0", "the modified Bessel function of the second kind of order 0")
modified_bessel_k1 = _unary("modified_bessel_k1", "the modified Bessel function of the second kind of order 1")
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0", "``exp(x) * modified_bessel_k0(x)``")
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1", "``exp(x) * modified_bessel_k1(x)``")
spherical_bessel_j0 = _unary("spherical_bessel_j0", "the spherical Bessel function of the first kind of order 0")
airy_ai = _unary("airy_ai", "the Airy function Ai")


# --- two arguments -------------------------------------------------------------------------

def _not_implemented(what: str):
    raise NotImplementedError(f"the derivative for '{what}' is not implemented.")


class _IGamma(Function):
    """igamma (regularised lower incomplete gamma) or igammac (upper), differentiable in ``x``."""

    @staticmethod
    def forward(ctx, a, x, name):
        ctx.name = name
        ctx.save_for_backward(a, x)
        return _native(name, a, x)

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            _not_implemented(f"{ctx.name}: input")
        ns = _ns()
        d = ns.exp((a - 1.0) * ns.log(x) - x - ns.torch.lgamma(a))
        return None, (g * d if ctx.name == "igamma" else -(g * d)), None


class _Zeta(Function):
    """The Hurwitz zeta function, differentiable in ``q``."""

    @staticmethod
    def forward(ctx, x, q):
        ctx.save_for_backward(x, q)
        return _native("zeta", x, q)

    @staticmethod
    def backward(ctx, g):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            _not_implemented("zeta")
        return None, g * -x * _Zeta.apply(x + 1.0, q)


def _igamma(name: str, input, other, out):
    _tensor(name, input)
    _tensor(name, other, "other")
    a, x = _floats(name, input, other, ints_ok=False)
    r = _IGamma.apply(a, x, name)
    return r if out is None else _ns().positive(r, out=out)


def igamma(input, other, *, out=None):
    """``torch.igamma(input, other, *, out=None)``: the regularised lower incomplete gamma
    function ``P(input, other)`` (``special.gammainc``); differentiable in ``other`` only (the
    derivative in ``input`` raises, as PyTorch's).

    >>> import strided.torch as torch
    >>> torch.igamma(torch.tensor([1.0]), torch.tensor([1.0]))
    tensor([0.6321])
    """
    return _igamma("igamma", input, other, out)


def igammac(input, other, *, out=None):
    """``torch.igammac(input, other, *, out=None)``: the regularised upper incomplete gamma
    function ``Q(input, other) = 1 - P(input, other)`` (``special.gammaincc``).

    >>> import strided.torch as torch
    >>> torch.igammac(torch.tensor([1.0]), torch.tensor([1.0]))
    tensor([0.3679])
    """
    return _igamma("igammac", input, other, out)


def gammainc(input, other, *, out=None):
    """``torch.special.gammainc(input, other, *, out=None)``: ``torch.igamma``.

    >>> import strided.torch as torch
    >>> torch.special.gammainc(torch.tensor([1.0]), torch.tensor([1.0]))
    tensor([0.6321])
    """
    return _igamma("igamma", input, other, out)


def gammaincc(input, other, *, out=None):
    """``torch.special.gammaincc(input, other, *, out=None)``: ``torch.igammac``.

    >>> import strided.torch as torch
    >>> torch.special.gammaincc(torch.tensor([1.0]), torch.tensor([1.0]))
    tensor([0.3679])
    """
    return _igamma("igammac", input, other, out)


def zeta(input, other, *, out=None):
    """``torch.special.zeta(input, other, *, out=None)``: the Hurwitz zeta function
    ``sum_k (k + other) ** -input``; either argument may be a Python number; differentiable in
    ``other`` only (in ``input`` it raises, as PyTorch's).

    >>> import strided.torch as torch
    >>> torch.special.zeta(torch.tensor([2.0]), 1.0)
    tensor([1.6449])
    """
    if type(input) is not Array and type(other) is not Array:
        raise TypeError("zeta(): at least one of input and other must be a tensor")
    for v, arg in ((input, "input"), (other, "other")):
        if type(v) is not Array and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise TypeError(f"zeta(): argument {arg!r} must be a tensor or a number; got {type(v).__name__}")
    x, q = _floats("zeta", input, other)
    r = _Zeta.apply(x, q)
    return r if out is None else _ns().positive(r, out=out)


def mvlgamma(input, p, *, out=None):
    """``torch.mvlgamma(input, p, *, out=None)``: the multivariate log-gamma function of
    dimension ``p``, ``p (p - 1) / 4 log(pi) + sum_{i < p} lgamma(input - i / 2)``
    (``special.multigammaln``); differentiable through ``lgamma``.

    >>> import strided.torch as torch
    >>> torch.mvlgamma(torch.tensor([2.0]), 1)
    tensor([0.])
    """
    x = _tensor("mvlgamma", input)
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"mvlgamma(): argument 'p' must be an int; got {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if x.dtype.kind == "c":
        raise RuntimeError(f"mvlgamma(): not implemented for complex dtype {x.dtype.name}")
    ns = _ns()
    xf = x if x.dtype.kind == "f" else ns.astype(x, _dtypes.get_default_dtype())
    r = None
    for i in range(p):
        t = ns.torch.lgamma(xf - i / 2.0 if i else xf)
        r = t if r is None else r + t
    r = r + p * (p - 1) / 4.0 * math.log(math.pi)
    return r if out is None else _ns().positive(r, out=out)


def multigammaln(input, p, *, out=None):
    """``torch.special.multigammaln(input, p, *, out=None)``: ``torch.mvlgamma``.

    >>> import strided.torch as torch
    >>> torch.special.multigammaln(torch.tensor([2.0]), 1)
    tensor([0.])
    """
    return mvlgamma(input, p, out=out)


def _install_methods() -> None:
    from ._tensor_methods import install_function_methods

    fs = {f.__name__: f for f in (mvlgamma, igamma, igammac)}
    install_function_methods(fs, {n + "_": f for n, f in fs.items()})


_install_methods()
