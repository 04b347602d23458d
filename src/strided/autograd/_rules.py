"""Derivative rules: one table (``RULES``) keyed by the namespace function's name.

Each rule gives, for each differentiable parameter, a formula for its
gradient written with strided's own namespace functions (so it runs on any
device and is itself recorded when ``create_graph=True``). Formulas name what
they need: ``g`` (the output's gradient), ``result``, ``ctx`` and the forward
call's parameters; only what a needed formula names is saved. The engine,
not the formulas, sums broadcast gradients back to each input's shape, drops
the imaginary part for a real input and casts to the input's dtype.

Complex functions follow PyTorch's convention: the gradient of a real loss L
with respect to z = a + ib is dL/da + i dL/db, so for a holomorphic f the
formula is ``g * conj(f'(z))``.
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

import strided as xp

from .._core import layout as _layout
from .._api import activations as _act, views as _views
from .._api.linalg_functions import host_product as _host_product
from .._core.array import Array, _normalize_key
from ._function import Function, embed, index_add, sum_to, tie_zero, where
from ._graph import _cgrad
from ._mode import STATE
from ._record import ZERO, RuleNode, ew_rule, node_by_ndim, node_by_none, nondiff, rule

E = ew_rule


# --- helpers ------------------------------------------------------------------------

def _conj(x):
    if type(x) is Array:
        return xp.conj(x) if x._dtype.kind == "c" else x
    return x.conjugate() if isinstance(x, (complex, np.complexfloating)) else x


if _cgrad is not None and hasattr(_cgrad, "conj"):
    # (compiled: a real Array answered without this frame, ~1.2k instructions a call of the
    # formulas; anything else calls the definition above)
    _conj_py = _conj
    _cgrad.setup_conj(_conj_py)
    _conj = _cgrad.conj


def _mH(a):
    return _conj(xp.matrix_transpose(a))


def _is_complex(x) -> bool:
    return (type(x) is Array and x._dtype.kind == "c") or isinstance(x, (complex, np.complexfloating))


def _axes(axis, nd):
    if axis is None:
        return tuple(range(nd))
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    # (a 0-d array's axis 0 or -1, which the forward accepted, is its one element: no axis
    # of its shape to reduce or count, as PyTorch's reductions of a 0-d tensor over dim 0)
    return tuple(operator.index(a) % nd for a in axis) if nd else ()


def _zero_d_as_1d(grad):
    """``grad`` for an axis-taking op whose input ``x`` may be 0-d: a 0-d ``x`` (its axis 0 or -1,
    PyTorch's reading of a scalar's one element) is taken as 1-d of one element, and the gradient
    read back 0-d -- the rules below index ``x``'s shape by the axis (``axis % x.ndim`` would
    divide by zero)."""
    @functools.wraps(grad)  # (its parameter names: the record binds the rule's arguments by them)
    def lifted(g, x, result, axis, *args):
        if x.ndim:
            return grad(g, x, result, axis, *args)
        one = (1,) if g.ndim == 0 else tuple(g.shape)
        r = grad(xp.reshape(g, one), xp.reshape(x, (1,)), xp.reshape(result, one), 0, *args)
        return xp.reshape(r, ())
    return lifted


_EXPAND: dict = {}  # (shape, axis, keepdims, g's shape and strides) -> (kept shape, view strides)


def _expand(g, shape, axis, keepdims):
    """A reduction's gradient (or result) broadcast back to the input's shape."""
    if not STATE.enabled and type(g) is Array and type(g._np) is np.ndarray:
        # A plain backward on the host: the stretch built straight over g's memory (a
        # stride-0 view, as xp.broadcast_to gives; np.broadcast_to costs 10x).
        n = g._np
        key = (shape, axis if type(axis) is not list else tuple(axis), keepdims, n.shape, n.strides)
        hit = _EXPAND.get(key)
        if hit is None and n.flags.c_contiguous:
            ks = n.shape
            if not keepdims:
                axes = _axes(axis, len(shape))
                ks = tuple(1 if i in axes else d for i, d in enumerate(shape))
            if len(ks) == len(shape):
                kst = np.empty(ks, n.dtype).strides  # (the contiguous strides of the kept shape)
                hit = (ks, tuple(0 if k == 1 and d != 1 else sd for k, d, sd in zip(ks, shape, kst)))
                if len(_EXPAND) > 4096:
                    _EXPAND.clear()
                _EXPAND[key] = hit
        if hit is not None and n.flags.c_contiguous:
            # (writes into it are refused as into any stride-0 view: out_native's overlap check;
            # note that setting flags.writeable here would leak memory in NumPy 2.x)
            r = np.ndarray(shape, n.dtype, n.reshape(hit[0]), 0, hit[1])
            return Array._new(r, None, 0, tuple(shape), None, g._dtype, g._device)
    if not keepdims:
        axes = _axes(axis, len(shape))
        g = xp.reshape(g, tuple(1 if i in axes else n for i, n in enumerate(shape)))
    return xp.broadcast_to(g, shape)


def _count(shape, axis):
    return _layout.prod(shape[a] for a in _axes(axis, len(shape)))


def _zeros(meta_like):
    return xp.zeros_like(meta_like)


def _eye(n, like):
    return xp.eye(n, dtype=like._dtype, device=like._device)


def _inv(a):
    return xp.linalg.inv(a)


def _col(x, axis, idx):
    """``x[..., idx, ...]`` along ``axis`` (basic index)."""
    return x[(slice(None),) * (axis % x.ndim) + (idx,)]


class _FillZero(Function):
    """A copy of ``g`` with ``g[key] = 0`` (the history of a ``__setitem__`` target)."""

    @staticmethod
    def forward(ctx, g, key):
        ctx.key = key
        c = xp.clone(g)
        c[key] = 0
        return c

    @staticmethod
    def backward(ctx, gg):
        return _FillZero.apply(gg, ctx.key), None


def _same(g):
    """The formula of a gradient that passes through unchanged (add, subtract's x1, clone, ...):
    the compiled apply (_csrc/_cgrad.c, rule_apply) takes g itself without calling it."""
    return g


if _cgrad is not None and hasattr(_cgrad, "setup_same"):
    _cgrad.setup_same(_same)


# --- elementwise (rows of strided._api.elementwise.REGISTRY) ------------------------------

def _sgn(x):
    return xp.sign(x)


def _sign_backward(g, x, result):
    if x._dtype.kind != "c":
        return xp.zeros_like(g)
    # d sgn(z): only the phase changes; the derivative is tangent to the unit circle.
    r = xp.abs(x)
    safe = where(r == 0, 1.0, r)
    return where(r == 0, 0.0, (g - result * xp.real(g * _conj(result))) / safe)


E("abs", "AbsBackward0", x=lambda g, x: g * _sgn(x))
E("acos", "AcosBackward0", x=lambda g, x: -g * _conj(1 / xp.sqrt(1 - x * x)))
E("acosh", "AcoshBackward0", x=lambda g, x: g * _conj(1 / (xp.sqrt(x - 1) * xp.sqrt(x + 1))))
E("add", "AddBackward0", x1=_same, x2=_same)
E("asin", "AsinBackward0", x=lambda g, x: g * _conj(1 / xp.sqrt(1 - x * x)))
E("asinh", "AsinhBackward0", x=lambda g, x: g * _conj(1 / xp.sqrt(x * x + 1)))
E("atan", "AtanBackward0", x=lambda g, x: g * _conj(1 / (1 + x * x)))
def _atan2_grad(g, num, x1, x2):
    # (PyTorch's: 0 at the origin, where the denominator is 0)
    d = x1 * x1 + x2 * x2
    return where(d == 0, 0.0, g * num / d)


E("atan2", "Atan2Backward0",
  x1=lambda g, x1, x2: _atan2_grad(g, x2, x1, x2),
  x2=lambda g, x1, x2: _atan2_grad(g, -x1, x1, x2))
E("atanh", "AtanhBackward0", x=lambda g, x: g * _conj(1 / (1 - x * x)))
E("ceil", "CeilBackward0", x=ZERO)
E("conj", "ConjBackward0", x=lambda g: _conj(g))
E("copysign", "CopysignBackward0",
  x1=lambda g, x1, result: g * _sgn(x1) * _sgn(result), x2=ZERO)
E("cos", "CosBackward0", x=lambda g, x: g * _conj(-xp.sin(x)))
E("cosh", "CoshBackward0", x=lambda g, x: g * _conj(xp.sinh(x)))
# (x2's gradient from x1 and x2, not the quotient: PyTorch's div_tensor_other_backward, the same
# value, -g * ((x1 / x2) / x2); saving the result made an in-place write into the quotient, as
# torch.distributions' Gamma.rsample clamps it, fail the backward where PyTorch's runs)
E("divide", "DivBackward0",
  x1=lambda g, x2: g / _conj(x2),
  x2=lambda g, x1, x2: -g * _conj((x1 / x2) / x2))
E("exp", "ExpBackward0", x=lambda g, result: g * _conj(result))
E("expm1", "Expm1Backward0", x=lambda g, result: g * _conj(result + 1))
E("floor", "FloorBackward0", x=ZERO)
E("floor_divide", "FloorDivideBackward0", x1=ZERO, x2=ZERO)
E("hypot", "HypotBackward0",
  x1=lambda g, x1, result: g * x1 / result,
  x2=lambda g, x2, result: g * x2 / result)
E("imag", "ImagBackward0", x=lambda g: g * 1j)
E("log", "LogBackward0", x=lambda g, x: g / _conj(x))
E("log1p", "Log1PBackward0", x=lambda g, x: g / _conj(x + 1))
E("log2", "Log2Backward0", x=lambda g, x: g / _conj(x * math.log(2.0)))
E("log10", "Log10Backward0", x=lambda g, x: g / _conj(x * math.log(10.0)))
E("logaddexp", "LogaddexpBackward0",
  x1=lambda g, x1, result: g * xp.exp(x1 - result),
  x2=lambda g, x2, result: g * xp.exp(x2 - result))


def _count_true(mask) -> int:
    """The number of True elements of a boolean CPU array (a host-side decision only)."""
    return int(np.count_nonzero(mask._get_native()))


def _pick(g, loses, x1, x2):
    """0 where ``loses``, half of g on a tie (x1 == x2), else g (PyTorch's formula: a NaN
    operand, which neither loses nor ties, gets the gradient)."""
    tie = x1 == x2
    # Note: on the host a tie-free input (a ReLU's, almost always) skips the second
    # select; elsewhere the general formula runs rather than copy the answer back.
    if tie._device.type == "cpu" and not _count_true(tie):
        return where(loses, 0.0, g)
    return where(loses, 0.0, where(tie, g * 0.5, g))


def _pick_zero(g, x1, x2, upper):
    """``_pick(g, x1 < x2, x1, x2)`` (``x1 > x2`` when ``upper``) for a ReLU, ``x2`` a
    Python zero, in one pass of the compiled kernel (``_cgrad.pick``): a plain backward
    on the host, g and x1 contiguous float32 or float64 of one shape and dtype. None
    where that does not hold (the formula runs)."""
    if type(x2) not in (float, int) or x2 != 0:
        return None
    return _one_pass(_cgrad.pick if _cgrad is not None else None, g, x1, upper)


def _one_pass(kernel, g, x, *extra):
    """``kernel(g, x, out, *extra)`` (one of _cgrad's, declining with False) into a fresh
    array: a plain backward (no graph recorded) on the host, g and x of one shape, dtype
    and device. None where that does not hold or the kernel declines (the formula runs)."""
    if kernel is None or STATE.enabled or type(g) is not Array or type(x) is not Array \
            or g._dtype is not x._dtype or g._shape != x._shape or g._device is not x._device \
            or g._device.type != "cpu":
        return None
    gn = g._np if g._np is not None else g._get_native()
    xn = x._np if x._np is not None else x._get_native()
    if type(gn) is not np.ndarray or type(xn) is not np.ndarray:
        return None
    out = np.empty(gn.shape, gn.dtype)
    if not kernel(gn, xn, out, *extra):
        return None
    return Array._new(out, None, 0, out.shape, None, g._dtype, g._device)


def _pick_first(g, x1, x2, upper):
    r = _pick_zero(g, x1, x2, upper)
    if r is not None:
        return r
    return _pick(g, x1 > x2 if upper else x1 < x2, x1, x2)


# Note: like PyTorch, a tie sends half the gradient to each argument.
E("maximum", "MaximumBackward0",
  x1=lambda g, x1, x2: _pick_first(g, x1, x2, False),
  x2=lambda g, x1, x2: _pick(g, x2 < x1, x1, x2))
E("minimum", "MinimumBackward0",
  x1=lambda g, x1, x2: _pick_first(g, x1, x2, True),
  x2=lambda g, x1, x2: _pick(g, x2 > x1, x1, x2))
E("multiply", "MulBackward0", x1=lambda g, x2: g * _conj(x2), x2=lambda g, x1: g * _conj(x1))
E("negative", "NegBackward0", x=lambda g: -g)
E("nextafter", "NextafterBackward0", x1=_same, x2=ZERO)
E("positive", "PositiveBackward0", x=_same)


def _pow_base(g, x1, x2):
    if type(x2) is not Array:
        if x2 == 0:
            return xp.zeros_like(g)
        return g * _conj(x2 * x1 ** (x2 - 1))
    return where(x2 == 0, 0.0, g * _conj(x2 * x1 ** (x2 - 1)))


def _pow_exponent(g, x1, result):
    if type(x1) is not Array:
        if x1 == 0:
            return xp.zeros_like(g)  # like PyTorch: 0 ** y has no gradient in y
        import cmath
        lg = cmath.log(x1) if isinstance(x1, (complex, np.complexfloating)) or x1 < 0 else math.log(x1)
        return g * _conj(result * lg)
    term = g * _conj(result * xp.log(x1))
    return where(x1 == 0, 0.0, term) if not _is_complex(x1) else term


def _pow_node(p):
    if type(p["x2"]) is not Array:
        return "PowBackward0"
    return "PowBackward1" if type(p["x1"]) is Array else "PowBackward2"


E("pow", _pow_node, x1=_pow_base, x2=_pow_exponent)
E("real", "RealBackward0", x=_same)
E("reciprocal", "ReciprocalBackward0", x=lambda g, result: -g * _conj(result * result))
# Note: PyTorch's threshold_backward: the gradient is 0 where the result is <= 0 (at x = 0
# too) and passes where it is not (x > 0, and NaN: NaN <= 0 is false).
# On the host, a plain backward makes it in one pass (``_cgrad.threshold``, bit for bit
# this formula) instead of a comparison and a select.
# Under create_graph the gradients of relu, leaky_relu and hardtanh depend on their input
# with derivative zero (tie_zero), as PyTorch's *_backward do: a second derivative is zeros.
def _relu_backward(g, result):
    r = _one_pass(_cgrad.threshold if _cgrad is not None else None, g, result)
    return r if r is not None else tie_zero(where(result <= 0, 0.0, g), result)


E("relu", "ReluBackward0", x=_relu_backward)
E("remainder", "RemainderBackward0",
  x1=_same, x2=lambda g, x1, x2: -g * xp.floor_divide(x1, x2))
E("round", "RoundBackward0", x=ZERO)
E("sigmoid", "SigmoidBackward0", x=lambda g, result: g * _conj(result * (1 - result)))
E("sign", "SgnBackward0", x=_sign_backward)


def _silu_backward(g, x):
    # PyTorch's silu_backward: g * s * (1 + x * (1 - s)), s = sigmoid(x)
    s = xp.sigmoid(x)
    return g * _conj(s * (1 + x * (1 - s)))


E("silu", "SiluBackward0", x=_silu_backward)
E("sin", "SinBackward0", x=lambda g, x: g * _conj(xp.cos(x)))

# --- the parametric activations (rows with ``params``): PyTorch's backward formulas
# (tools/autograd/derivatives.yaml and aten/src/ATen/native/cpu/Activation.cpp), in
# terms of the input (an in-place call saves a copy of it: _record's target rule).
# Note: PyTorch's in-place forms (leaky_relu_, elu_, celu_) take theirs from the result
# and refuse a non-positive slope/alpha with grad; the input's formula has no such limit.
E("leaky_relu", "LeakyReluBackward0",
  x=lambda g, x, negative_slope: tie_zero(where(x > 0, g, g * negative_slope), x))
# elu's gradient: x <= 0 ? g * input_scale * alpha * scale * exp(x * input_scale) : g * scale.
# Note: at NaN PyTorch's CPU gradient depends on the element's position (its vectorised
# loop gives NaN for elu/celu/selu and 0 for hardtanh, its scalar tail g and g); strided
# gives the vectorised loop's everywhere, the values a large array gets.
# Their second derivatives follow PyTorch's elu_double_backward, which keeps the exponential
# branch's only where x < 0 (strictly): at x = 0 the first derivative takes the exponential
# branch (x <= 0) but the second is 0. _neg_part(x) is x with no gradient at x == 0 (its value
# there is 0 either way), so the rules' own derivative gives exactly that; NaN passes through.
def _neg_part(x):
    return where(x == 0, 0.0, x) if STATE.enabled and x._ext is not None else x


E("elu", "EluBackward0", x=lambda g, x, alpha: where(x > 0, g, g * (xp.exp(_neg_part(x)) * alpha)))
E("celu", "CeluBackward0", x=lambda g, x, alpha: where(x > 0, g, g * xp.exp(_neg_part(x) * (1.0 / alpha))))
E("selu", "EluBackward0",
  x=lambda g, x: where(x > 0, g * _act._SELU_SCALE,
                       g * (xp.exp(_neg_part(x)) * (_act._SELU_ALPHA * _act._SELU_SCALE))))
# (0 at and beyond the bounds, and at NaN: (x > min) & (x < max) passes g)
E("hardtanh", "HardtanhBackward0",
  x=lambda g, x, min_val, max_val: tie_zero(where((x > min_val) & (x < max_val), g, 0.0), x))


def _softplus_backward(g, x, beta, threshold):
    # softplus_backward: z = exp(x * beta); x * beta > threshold ? g : g * z / (z + 1)
    bx = x * beta
    z = xp.exp(where(bx > threshold, 0.0, bx))  # (the unused branch stays finite)
    return where(bx > threshold, g, g * (z / (z + 1.0)))


E("softplus", "SoftplusBackward0", x=_softplus_backward)


class _Erf(Function):
    """The error function of a float array (the exact GELU's backward), with its
    derivative ``2/sqrt(pi) * exp(-x**2)`` (so that gelu's gradient has one too)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        r = _act.native_erf(x._device.backend.xp, x._get_native())
        return xp.asarray(r, dtype=x._dtype, device=x._device)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (xp.exp(-(x * x)) * (2.0 / math.sqrt(math.pi)))


_GELU_PDF = 0.5 * (2.0 / math.sqrt(math.pi)) * (1.0 / math.sqrt(2.0))  # 1 / sqrt(2 pi)


def _gelu_backward(g, x, approximate):
    if x._dtype is xp.float16:  # (PyTorch's CPU kernel: in float32, rounded once)
        return xp.astype(_gelu_backward(xp.astype(g, xp.float32), xp.astype(x, xp.float32), approximate),
                         xp.float16)
    if approximate == "tanh":
        # GeluBackward (tanh): 0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa x^2)
        kappa, beta = _act._GELU_TANH_KAPPA, _act._GELU_TANH_BETA
        t = xp.tanh((x + (x * x * x) * kappa) * beta)
        return g * ((1.0 + t) * 0.5 + (x * 0.5) * ((1.0 - t * t) * ((1.0 + (x * x) * (3.0 * kappa)) * beta)))
    # GeluBackward (none): cdf + x * pdf, cdf = (1 + erf(x / sqrt 2)) / 2, pdf = exp(-x^2 / 2) / sqrt(2 pi)
    cdf = (_Erf.apply(x * (1.0 / math.sqrt(2.0))) + 1.0) * 0.5
    return g * (cdf + x * (xp.exp((x * x) * -0.5) * _GELU_PDF))


E("gelu", "GeluBackward0", x=_gelu_backward)
E("sinh", "SinhBackward0", x=lambda g, x: g * _conj(xp.cosh(x)))
E("square", "PowBackward0", x=lambda g, x: 2 * g * _conj(x))
E("sqrt", "SqrtBackward0", x=lambda g, result: g / _conj(2 * result))
E("subtract", "SubBackward0", x1=_same, x2=lambda g: -g)
E("tan", "TanBackward0", x=lambda g, result: g * _conj(1 + result * result))
E("tanh", "TanhBackward0", x=lambda g, result: g * _conj(1 - result * result))
E("trunc", "TruncBackward0", x=ZERO)

nondiff("integer or boolean inputs and outputs",
        "bitwise_and", "bitwise_left_shift", "bitwise_invert", "bitwise_or", "bitwise_right_shift",
        "bitwise_xor", "logical_and", "logical_not", "logical_or", "logical_xor")
nondiff("boolean output (a comparison or a test): piecewise constant, zero gradient",
        "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
        "isfinite", "isinf", "isnan", "signbit")

# --- copies, casts, views ------------------------------------------------------------------

rule("clone", "x, **kw", "CloneBackward0", x=_same)
rule("astype", "x, dtype, copy=True, device=None, **kw", "ToCopyBackward0", x=_same)
rule("to_device", "x, device, stream=None, copy=None", "ToCopyBackward0", x=_same)
def _back_to_shape(g, ctx):
    return xp.reshape(g, ctx.shape("x"))


def _squeeze_node(p):
    """PyTorch's node of each squeeze overload: all size-1 dims, one dim, a tuple of dims."""
    a = p["args"][0] if p["args"] else p["kw"].get("axis", p["kw"].get("dim"))
    return "SqueezeBackward0" if a is None else "SqueezeBackward2" if type(a) in (tuple, list) \
        else "SqueezeBackward1"


rule(("reshape", "view", "flatten", "unflatten"), "x, *args, **kw", "ViewBackward0", x=_back_to_shape)
rule("expand_dims", "x, *args, **kw", "UnsqueezeBackward0", x=_back_to_shape)
rule("squeeze", "x, *args, **kw", _squeeze_node, x=_back_to_shape)
rule("broadcast_to", "x, shape", "ExpandBackward0", x=_same)
# (PyTorch's derivatives.yaml: each is the other's view of the contiguous gradient)
rule("view_as_real", "x", "ViewAsRealBackward0",
     x=lambda g: _views.view_as_complex(g if g.is_contiguous() else g.contiguous()))
rule("view_as_complex", "x", "ViewAsComplexBackward0",
     x=lambda g: _views.view_as_real(g if g.is_contiguous() else g.contiguous()))
def _outs_grads(g):
    """A multi-output rule's gradients as a list: one output's node is given its gradient
    alone (RuleNode.apply and its compiled twin pass grads[0] when there is one output)."""
    return list(g) if type(g) in (list, tuple) else [g]


rule("broadcast_arrays", "*arrays", "BroadcastTensorsBackward0", multi=True, arrays=_outs_grads)


def _inverse_perm(axes, nd):
    axes = [operator.index(a) % nd for a in axes]
    inv = [0] * nd
    for i, a in enumerate(axes):
        inv[a] = i
    return tuple(inv)


rule("permute_dims", "x, axes", "PermuteBackward0",
     x=lambda g, axes: xp.permute_dims(g, _inverse_perm(axes, g.ndim)))
rule("matrix_transpose", "x", "TransposeBackward0", x=lambda g: xp.matrix_transpose(g))
rule("t", "x", "TBackward0", x=_same)
rule("moveaxis", "x, source, destination", "PermuteBackward0",
     x=lambda g, source, destination: xp.moveaxis(g, destination, source))
rule("flip", "x, axis=None", "FlipBackward0", x=lambda g, axis: xp.flip(g, axis=axis))
rule("diagonal", "x, offset=0, axis1=-2, axis2=-1", "DiagonalBackward0",
     x=lambda g, ctx, offset, axis1, axis2: embed(
         g, ctx.shape("x"), lambda a: xp.diagonal(a, offset=offset, axis1=axis1, axis2=axis2)))
rule("narrow", "x, dim, start, length", "NarrowBackward0",
     x=lambda g, ctx, dim, start, length: embed(g, ctx.shape("x"), lambda a: xp.narrow(a, dim, start, length)))
def _unfold_grad(g, ctx, dim, size, step):
    # Window j's element k is x[j * step + k] along dim: the gradient sums, for each k,
    # the k-th element of every window into those positions (windows may overlap).
    shape = ctx.shape("x")
    if not shape:  # (a 0-d x: its one element, in the one window of 0 or 1 elements)
        return xp.sum(g)
    d = operator.index(dim) % len(shape)
    count = g.shape[d]
    total = None
    for k in range(size):
        key = (slice(None),) * d + (slice(k, k + (count - 1) * step + 1, step),)
        part = embed(g[..., k], shape, lambda a, key=key: a[key])
        total = part if total is None else total + part
    return total if total is not None else xp.zeros(shape, dtype=g.dtype, device=g.device)


rule("unfold", "x, dim, size, step", "UnfoldBackward0", x=_unfold_grad)
rule("real_view", "x, part", "RealBackward0", x=lambda g, part: g if part == 0 else g * 1j)


def _diag_grad(g, ctx, diagonal):
    shape = ctx.shape("x")
    if len(shape) == 1:
        return xp.diagonal(g, offset=diagonal)
    return embed(g, shape, lambda a: xp.diagonal(a, offset=diagonal))


rule("diag", "x, diagonal=0", "DiagBackward0", x=_diag_grad)


def _pieces_grad(g, dim, axis):
    return xp.concat(_outs_grads(g), axis=dim if axis is None else axis)


rule("split", "x, split_size_or_sections, dim=0, axis=None", "SplitBackward0", multi=True, x=_pieces_grad)
rule("chunk", "x, chunks, dim=0, axis=None", "SplitBackward0", multi=True, x=_pieces_grad)
rule(("tril",), "x, k=0", "TrilBackward0", x=lambda g, k: xp.tril(g, k=k))
rule(("triu",), "x, k=0", "TriuBackward0", x=lambda g, k: xp.triu(g, k=k))


rule("zero_", "x", "ZeroBackward0", x=ZERO)
rule("fill_", "x, value", "FillBackward0", x=ZERO, value=lambda g: xp.sum(g))
rule("copy_", "x, src, non_blocking=False", "CopyBackwards", x=ZERO, src=_same)

# --- indexing -----------------------------------------------------------------------------

def _is_basic(key) -> bool:
    return _normalize_key(key) is not None


def _getitem_node(p):
    """PyTorch's node of a basic index: that of the last step its indexing takes, applying the
    key's items left to right (an int selects, None unsqueezes, a slice of the whole axis is
    skipped, a lone slice always slices), or AliasBackward0 when no step changed anything."""
    key = p["key"]
    if not _is_basic(key):
        return "IndexBackward0"
    if type(key) is slice:
        return "SliceBackward0"
    items = key if type(key) is tuple else (key,)
    shape = p["x"].shape
    rest = len(shape) - sum(1 for k in items if k is not None and k is not Ellipsis)
    node, d = "AliasBackward0", 0
    for k in items:
        if k is None:
            node = "UnsqueezeBackward0"
        elif k is Ellipsis:
            d += rest
        elif type(k) is slice:
            if k.indices(shape[d]) != (0, shape[d], 1):
                node = "SliceBackward0"
            d += 1
        else:
            node, d = "SelectBackward0", d + 1
    return node


def _getitem_grad(g, ctx, key):
    shape = ctx.shape("x")
    if _is_basic(key):
        return embed(g, shape, lambda a: a[key])
    return index_add(g, shape, key)


rule("getitem", "x, key", _getitem_node, x=_getitem_grad)
rule("setitem", "x, key, value", lambda p: "CopySlices" if _is_basic(p["key"]) else "IndexPutBackward0",
     x=lambda g, key: _FillZero.apply(g, key), value=lambda g, key: g[key])


def _take_grad(g, ctx, indices, axis):
    shape = ctx.shape("x")
    if not shape:  # (a 0-d x: every index is its one element)
        return xp.sum(g)
    ax = 0 if axis is None else operator.index(axis) % len(shape)
    return index_add(g, shape, (slice(None),) * ax + (indices,))


def _take_along_grad(g, ctx, indices, axis):
    shape = ctx.shape("x")
    nd = len(shape)
    if nd == 0:  # (a 0-d x, its axis 0 or -1: every index is its one element)
        return xp.sum(g)
    ax = operator.index(axis) % nd
    key = []
    for d in range(nd):
        if d == ax:
            key.append(indices)
        else:
            r = xp.arange(shape[d], device=g._device)
            key.append(xp.reshape(r, tuple(shape[d] if i == d else 1 for i in range(nd))))
    return index_add(g, shape, tuple(key))


rule("take", "x, indices, axis=None", "TakeBackward0", x=_take_grad)
rule("take_along_axis", "x, indices, axis=-1", "TakeAlongDimBackward0", x=_take_along_grad)


# --- manipulation --------------------------------------------------------------------------

def _concat_grad(g, ctx, axis):
    shapes = ctx.shape("arrays")
    out, start = [], 0
    if axis is None:
        for s in shapes:
            n = _layout.prod(s)
            out.append(xp.reshape(g[start:start + n], s))
            start += n
        return out
    ax = operator.index(axis) % g.ndim
    for s in shapes:
        out.append(_col(g, ax, slice(start, start + s[ax])))
        start += s[ax]
    return out


rule("concat", "arrays, axis=0", "CatBackward0", arrays=_concat_grad)
rule("stack", "arrays, axis=0", "StackBackward0",
     arrays=lambda g, ctx, axis: [_col(g, axis, i) for i in range(len(ctx.shape("arrays")))])
rule("unstack", "x, axis=0", "UnbindBackward0", multi=True,
     x=lambda g, axis: xp.stack(list(g), axis=axis))


def _neg_shift(shift):
    if isinstance(shift, (tuple, list)):
        return tuple(-operator.index(s) for s in shift)
    return -operator.index(shift)


rule("roll", "x, shift, axis=None", "RollBackward0",
     x=lambda g, shift, axis: xp.roll(g, _neg_shift(shift), axis=axis))


def _repeat_grad(g, ctx, repeats, axis):
    shape = ctx.shape("x")
    dev = g._device
    if axis is None:
        n = _layout.prod(shape)
        idx = xp.repeat(xp.arange(n, device=dev), repeats)
        return xp.reshape(index_add(g, (n,), (idx,)), shape)
    ax = operator.index(axis) % len(shape)
    idx = xp.repeat(xp.arange(shape[ax], device=dev), repeats)
    return index_add(g, shape, (slice(None),) * ax + (idx,))


rule("repeat", "x, repeats, axis=None", "RepeatInterleaveBackward0", x=_repeat_grad)


def _tile_grad(g, ctx, repetitions):
    shape = ctx.shape("x")
    reps = tuple(operator.index(r) for r in repetitions)
    nd = max(len(reps), len(shape))
    reps = (1,) * (nd - len(reps)) + reps
    xs = (1,) * (nd - len(shape)) + tuple(shape)
    inter = tuple(v for r, n in zip(reps, xs) for v in (r, n))
    kept = tuple(v for n in xs for v in (1, n))
    return xp.reshape(sum_to(xp.reshape(g, inter), kept, "TileBackward0"), shape)


rule("tile", "x, repetitions", "RepeatBackward0", x=_tile_grad)


def _meshgrid_grad(g, ctx, indexing):
    shapes = ctx.shape("arrays")
    nd = len(shapes)
    out = []
    for i, gi in enumerate(g):
        pos = (1 - i) if indexing == "xy" and nd >= 2 and i < 2 else i
        kept = tuple(gi.shape[d] if d == pos else 1 for d in range(nd))
        out.append(xp.reshape(sum_to(gi, kept, "MeshgridBackward0"), shapes[i]))
    return out


rule("meshgrid", "*arrays, indexing='xy'", "MeshgridBackward0", multi=True, arrays=_meshgrid_grad)

# --- searching, sorting, clipping ------------------------------------------------------------

rule("where", "condition, x1, x2", "WhereBackward0",
     x1=lambda g, condition: where(condition, g, 0.0),
     x2=lambda g, condition: where(condition, 0.0, g))


def _clip_x(g, x, min, max):
    keep = None
    if min is not None:
        keep = x >= min
    if max is not None:
        c = x <= max
        keep = c if keep is None else xp.logical_and(keep, c)
    return g if keep is None else where(keep, g, 0.0)


def _clip_min(g, x, min, max):
    # (PyTorch's clamp_backward_min_max: where min > max the result is max, and only max
    # receives the gradient; where min == max, neither bound does)
    keep = x < min
    return where(keep if max is None else xp.logical_and(keep, min < max), g, 0.0)


def _clip_max(g, x, min, max):
    keep = x > max
    return where(keep if min is None else xp.logical_or(keep, max < min), g, 0.0)


rule("clip", "x, min=None, max=None", "ClampBackward1", x=_clip_x, min=_clip_min, max=_clip_max)


def _sort_grad(g, x, axis, descending, stable):
    idx = xp.argsort(x, axis=axis, descending=descending, stable=True)
    inv = xp.argsort(idx, axis=axis, stable=True)
    return xp.take_along_axis(g, inv, axis=axis)


rule("sort", "x, axis=-1, descending=False, stable=True", "SortBackward0", x=_sort_grad)

nondiff("integer index output", "argmax", "argmin", "argsort", "nonzero", "searchsorted",
        "count_nonzero", "matrix_rank")
nondiff("boolean output", "all", "any", "isin")
nondiff("counts: piecewise constant in the values, as PyTorch's bincount", "bincount")
nondiff("set functions: the result's structure (which values are unique) is piecewise constant "
        "and PyTorch does not differentiate them either",
        "unique_all", "unique_counts", "unique_inverse", "unique_values")

# --- reductions --------------------------------------------------------------------------------


def _red_node(base):
    return node_by_none("axis", f"{base}Backward0", f"{base}Backward1")


rule("sum", "x, axis=None, dtype=None, keepdims=False, **kw", _red_node("Sum"),
     x=lambda g, ctx, axis, keepdims: _expand(g, ctx.shape("x"), axis, keepdims))
rule("mean", "x, axis=None, keepdims=False, **kw", _red_node("Mean"),
     x=lambda g, ctx, axis, keepdims: _expand(
         g / _count(ctx.shape("x"), axis), ctx.shape("x"), axis, keepdims))


def _prod_grad(g, x, result, axis, keepdims):
    shape = x.shape
    ge = _expand(g, shape, axis, keepdims)
    re = _expand(result, shape, axis, keepdims)
    zero = x == 0
    # Note: the shortcut asks the host whether x holds a zero; on other devices the
    # general formula (exact without zeros too) runs instead of copying that answer.
    if x._device.type == "cpu" and not bool(xp.any(zero)):
        return ge * _conj(re / x)
    ax = _axes(axis, x.ndim)
    nz = xp.sum(zero, axis=ax, keepdims=True)
    safe = where(zero, 1.0, x)
    others = xp.prod(safe, axis=ax, keepdims=True)  # product of the non-zero entries
    no_zero = ge * _conj(re / safe)
    one_zero = where(xp.logical_and(zero, nz == 1), ge * _conj(others), 0.0)
    return where(nz == 0, no_zero, one_zero)


rule("prod", "x, axis=None, dtype=None, keepdims=False, **kw", _red_node("Prod"), x=_prod_grad)


def _one_hit(g, x, result, axis):
    """max's or min's gradient in one pass of ``_cgrad.one_hit``: a plain backward on the
    host over the last axis (or all of a 1-D x), g, x and the result contiguous float32 or
    float64 of one dtype, each row holding its result exactly once. None where that does
    not hold (the formula runs: ties share, NaNs)."""
    if _cgrad is None or STATE.enabled or type(g) is not Array or type(x) is not Array \
            or type(result) is not Array or g._dtype is not x._dtype or result._dtype is not x._dtype \
            or x._device.type != "cpu" or g._device is not x._device or result._device is not x._device:
        return None
    nd = len(x._shape)
    if nd == 0 or not (axis is None and nd == 1 or axis == nd - 1 or axis == -1 or axis == (nd - 1,)
                       or axis == (-1,)):
        return None
    gn = g._np if g._np is not None else g._get_native()
    xn = x._np if x._np is not None else x._get_native()
    rn = result._np if result._np is not None else result._get_native()
    if type(gn) is not np.ndarray or type(xn) is not np.ndarray or type(rn) is not np.ndarray \
            or gn.size != rn.size or xn.size != rn.size * x._shape[-1]:
        return None
    out = np.empty(xn.shape, xn.dtype)
    if not _cgrad.one_hit(gn, xn, rn, out):
        return None
    return Array._new(out, None, 0, out.shape, None, x._dtype, x._device)


def _minmax_grad(g, x, result, axis, keepdims):
    # Note: ties share the gradient evenly (PyTorch's amax/amin and full max/min).
    r = _one_hit(g, x, result, axis)
    if r is not None:
        return r
    shape = x.shape
    if keepdims:  # (the elementwise operations broadcast the kept dimensions themselves)
        mask = x == result
        ge = g
    else:
        mask = x == _expand(result, shape, axis, keepdims)
        ge = _expand(g, shape, axis, keepdims)
    # Note: on the host, one hit per reduced slice (no ties, no NaN) means every count
    # is 1: one whole-array count replaces the per-slice counts and the division. A NaN
    # extremum equals nothing (its slice counts 0), so NaN is ruled out first: a NaN slice
    # beside a tied one made the total look right and doubled the tied gradient.
    if x._device.type == "cpu" and _count_true(mask) == _layout.prod(result._shape) and (
            x._dtype.kind not in "fc" or not bool(xp.any(xp.isnan(result)))):
        return where(mask, ge, 0.0)
    cnt = xp.sum(mask, axis=_axes(axis, x.ndim), keepdims=True)
    r = where(mask, ge / cnt, 0.0)
    if x._dtype.kind in "fc":
        # a NaN extremum: PyTorch's amax/amin gradient, grad / count * mask, is NaN along
        # its slice (count 0); max()/min() of all elements share it among the NaNs instead
        # (strided/torch/_methods.py)
        r = where(cnt == 0, math.nan, r)
    return r


rule("max", "x, axis=None, keepdims=False, **kw", "MaxBackward1", x=_minmax_grad)
rule("min", "x, axis=None, keepdims=False, **kw", "MinBackward1", x=_minmax_grad)


def _var_grad(g, x, axis, correction, keepdims):
    ax = _axes(axis, x.ndim)
    m = xp.mean(x, axis=ax, keepdims=True)
    return _expand(g, x.shape, axis, keepdims) * 2 * (x - m) / (_count(x.shape, axis) - correction)


def _std_grad(g, x, result, axis, correction, keepdims):
    ax = _axes(axis, x.ndim)
    m = xp.mean(x, axis=ax, keepdims=True)
    ge = _expand(g, x.shape, axis, keepdims)
    re = _expand(result, x.shape, axis, keepdims)
    # (PyTorch's std_backward: 0 where the deviation is 0, not 0 / 0)
    return where(re == 0, 0.0, ge * (x - m) / ((_count(x.shape, axis) - correction) * re))


rule("var", "x, axis=None, correction=0.0, keepdims=False, **kw", "VarBackward0", x=_var_grad)
rule("std", "x, axis=None, correction=0.0, keepdims=False, **kw", "StdBackward0", x=_std_grad)


def _revcumsum(g, ax):
    return xp.flip(xp.cumulative_sum(xp.flip(g, axis=ax), axis=ax), axis=ax)


def _cumsum_grad(g, axis, include_initial):
    ax = 0 if axis is None else axis
    if include_initial:
        g = _col(g, ax, slice(1, None))
    return _revcumsum(g, ax)


rule("cumulative_sum", "x, axis=None, dtype=None, include_initial=False, **kw", "CumsumBackward0",
     x=_cumsum_grad)


@_zero_d_as_1d
def _cumprod_grad(g, x, result, axis, include_initial):
    ax = 0 if axis is None else operator.index(axis) % x.ndim
    if include_initial:
        g = _col(g, ax, slice(1, None))
        result = _col(result, ax, slice(1, None))
    zero = x == 0
    if x._device.type == "cpu" and not bool(xp.any(zero)):  # (as in _prod_grad)
        return _revcumsum(g * _conj(result), ax) / _conj(x)
    n = x.shape[ax]
    pos = xp.reshape(xp.arange(n, device=x._device), tuple(n if d == ax else 1 for d in range(x.ndim)))
    z = xp.min(where(zero, pos, n), axis=ax, keepdims=True)  # first zero (n when none)
    before = pos < z
    safe = where(before, x, 1.0)
    g_before = _revcumsum(g * _conj(result), ax) / _conj(safe)
    pz = xp.prod(where(before, x, 1.0), axis=ax, keepdims=True)
    q = xp.cumulative_prod(where(pos <= z, 1.0, x), axis=ax)
    term = xp.sum(where(pos >= z, g * _conj(q), 0.0), axis=ax, keepdims=True)
    return where(before, g_before, where(pos == z, _conj(pz) * term, 0.0))


rule("cumulative_prod", "x, axis=None, dtype=None, include_initial=False, **kw", "CumprodBackward0",
     x=_cumprod_grad)


def _diff_grad(g, ctx, axis, n, prepend, append):
    ax = operator.index(axis) % g.ndim
    for _ in range(n):
        shape = list(g.shape)
        shape[ax] += 1
        shape = tuple(shape)
        # adjoint of one difference: gf[i] = g[i-1] - g[i] (zero outside)
        lo = embed(g, shape, lambda a: _col(a, ax, slice(1, None)))
        hi = embed(g, shape, lambda a: _col(a, ax, slice(0, -1)))
        g = lo - hi
    parts = []
    start = 0
    names = ("prepend", "x", "append")
    vals = (prepend, None, append)
    out = {}
    for nm, v in zip(names, vals):
        if nm != "x" and type(v) is not Array:
            continue
        s = ctx.shape(nm)
        k = s[ax] if len(s) == g.ndim else 1
        out[nm] = _col(g, ax, slice(start, start + k))
        start += k
    parts = [out.get(nm) for nm in names]
    return tuple(parts)


rule("diff", "x, axis=-1, n=1, prepend=None, append=None", "DiffBackward0",
     diff=("prepend", "x", "append"), joint=_diff_grad)

# --- linear algebra ---------------------------------------------------------------------------------


_NEEDS = RuleNode.needs


def _matmul_grads(g, x1, x2, ctx):
    if not STATE.enabled and type(g) is Array and len(x1._shape) == 2 and len(x2._shape) == 2 \
            and g._dtype is x1._dtype is x2._dtype and g._dtype.kind == "f" \
            and g._device is x1._device is x2._device and g._device.type == "cpu":
        # A plain backward of a real 2-D product on the host: the two products straight
        # from the backend, on transposed views (no namespace calls, no temporaries).
        # (Array._get_native and RuleNode.needs, inlined: a frame each, nine a tiny MLP step)
        gn = g._np if g._np is not None else g._get_native()
        an = x1._np if x1._np is not None else x1._get_native()
        bn = x2._np if x2._np is not None else x2._get_native()
        # (host_product: the products forward matmul and the fused linear make, dot below
        # NO_FILL_BYTES of result, the same bits, a third of numpy.matmul's call cost)
        mm = _host_product
        dt, dev = g._dtype, g._device
        g1 = g2 = None
        needs = ctx._needs if type(ctx).needs is _NEEDS else None
        if ("x1" in needs) if needs is not None else ctx.needs("x1"):
            r = mm(gn, bn.T)
            g1 = Array._new(r, None, 0, r.shape, None, dt, dev)
        if ("x2" in needs) if needs is not None else ctx.needs("x2"):
            # Note: x2 is often a transposed view (``linear``'s ``weight.mT``): its gradient
            # is then computed as (g.T @ x1).T, so that it is the transpose of a C-ordered
            # product, as PyTorch's AddmmBackward0 computes the weight's (``g.T @ x1``); the
            # gradient of the weight itself is then contiguous and no copy is made for .grad.
            if bn.ndim == 2 and bn.flags.f_contiguous and not bn.flags.c_contiguous:
                r = mm(gn.T, an).T
            else:
                r = mm(an.T, gn)
            g2 = Array._new(r, None, 0, r.shape, None, dt, dev)
        return g1, g2
    v1, v2 = x1.ndim == 1, x2.ndim == 1
    a = xp.reshape(x1, (1, x1.shape[0])) if v1 else x1
    b = xp.reshape(x2, (x2.shape[0], 1)) if v2 else x2
    if v1 and v2:
        g = xp.reshape(g, (1, 1))
    elif v1:
        g = xp.expand_dims(g, axis=-2)
    elif v2:
        g = xp.expand_dims(g, axis=-1)
    g1 = xp.matmul(g, _mH(b)) if ctx.needs("x1") else None
    g2 = xp.matmul(_mH(a), g) if ctx.needs("x2") else None
    if v1 and g1 is not None:
        g1 = g1[..., 0, :]
    if v2 and g2 is not None:
        g2 = g2[..., 0]
    return g1, g2


rule(("matmul", "mm", "bmm", "dot"), "x1, x2", node_by_ndim("x1", "x2", "MmBackward0", "DotBackward0", "MatmulBackward0"),
     diff=("x1", "x2"), joint=_matmul_grads)


def _tensordot_axes(axes, nd1, nd2):
    if isinstance(axes, int):
        return tuple(range(nd1 - axes, nd1)), tuple(range(axes))
    a1, a2 = axes
    return (tuple(operator.index(a) % nd1 for a in a1), tuple(operator.index(a) % nd2 for a in a2))


def _tensordot_grads(g, x1, x2, axes, ctx):
    a1, a2 = _tensordot_axes(axes, x1.ndim, x2.ndim)
    f1 = [d for d in range(x1.ndim) if d not in a1]
    f2 = [d for d in range(x2.ndim) if d not in a2]
    g1 = g2 = None
    if ctx.needs("x1"):
        # tensordot keeps the uncontracted axes of its second operand in their own order
        t = xp.tensordot(g, _conj(x2), axes=(tuple(range(len(f1), g.ndim)), tuple(f2)))
        g1 = xp.permute_dims(t, _inverse_perm(f1 + [a1[a2.index(d)] for d in sorted(a2)], x1.ndim))
    if ctx.needs("x2"):
        t = xp.tensordot(_conj(x1), g, axes=(tuple(f1), tuple(range(len(f1)))))
        g2 = xp.permute_dims(t, _inverse_perm([a2[a1.index(d)] for d in sorted(a1)] + f2, x2.ndim))
    return g1, g2


rule("tensordot", "x1, x2, axes=2", "TensordotBackward0", diff=("x1", "x2"), joint=_tensordot_grads)


def _vecdot_g(g, axis):
    return xp.expand_dims(g, axis=axis)


rule("vecdot", "x1, x2, axis=-1", "LinalgVecdotBackward0",
     x1=lambda g, x2, axis: _conj(_vecdot_g(g, axis)) * x2,
     x2=lambda g, x1, axis: _vecdot_g(g, axis) * x1)
rule("outer", "x1, x2", "OuterBackward0",
     x1=lambda g, x2: xp.matmul(g, _conj(x2)),
     x2=lambda g, x1: xp.matmul(_conj(x1), g))
rule("cross", "x1, x2, axis=-1", "LinalgCrossBackward0",
     x1=lambda g, x2, axis: xp.linalg.cross(_conj(x2), g, axis=axis),
     x2=lambda g, x1, axis: xp.linalg.cross(g, _conj(x1), axis=axis))
rule("trace", "x, offset=0, dtype=None, **kw", "TraceBackward0",
     x=lambda g, ctx, offset: embed(xp.expand_dims(g, axis=-1), ctx.shape("x"),
                                    lambda a: xp.diagonal(a, offset=offset, axis1=-2, axis2=-1)))
rule("inv", "x", "LinalgInvExBackward0",
     x=lambda g, result: -xp.matmul(xp.matmul(_mH(result), g), _mH(result)))
rule("det", "x", "LinalgDetBackward0",
     x=lambda g, x, result: (g * _conj(result))[..., None, None] * _mH(_inv(x)))


def _slogdet_grad(g, x, result):
    sign, _ = result
    gs, gl = g
    if x._dtype.kind == "c":
        factor = gl - 1j * xp.imag(_conj(gs) * sign)
    else:
        factor = gl
    return factor[..., None, None] * _mH(_inv(x))


rule("slogdet", "x", "LinalgSlogdetBackward0", multi=True, x=_slogdet_grad)


def _solve_grads(g, x1, x2, result, ctx):
    vec = x2.ndim == 1
    gm = g[..., None] if vec else g
    rm = result[..., None] if vec else result
    gb = xp.linalg.solve(_mH(x1), gm)
    ga = -xp.matmul(gb, _mH(rm)) if ctx.needs("x1") else None
    return ga, (gb[..., 0] if vec else gb)


rule("solve", "x1, x2", "LinalgSolveExBackward0", diff=("x1", "x2"), joint=_solve_grads)


def _cholesky_grad(g, result, upper):
    L = _mH(result) if upper else result
    gL = xp.tril(_mH(g) if upper else g)
    # (PyTorch's cholesky_backward, Murray 2016: phi = tril(L^H gL) made "Hermitian" from its
    # lower triangle, its diagonal halved but kept complex; then L^-H phi L^-1. For a complex
    # input the result is not Hermitian -- its anti-Hermitian part is zero along every Hermitian
    # direction -- and is PyTorch's value; for a real one it is symmetric)
    phi = xp.tril(xp.matmul(_mH(L), gL))
    phi = 0.5 * (phi + _mH(xp.tril(phi, k=-1)))
    Linv = _inv(L)
    return xp.matmul(xp.matmul(_mH(Linv), phi), Linv)


rule("cholesky", "x, upper=False", "LinalgCholeskyExBackward0", x=_cholesky_grad)


def _copyltu(m):
    low = xp.tril(m, k=-1)
    d = xp.real(m) if m._dtype.kind == "c" else m
    return low + _mH(low) + (d - xp.tril(d, k=-1) - xp.triu(d, k=1))


def _qr_square(gQ, gR, Q, R):
    M = xp.matmul(R, _mH(gR)) - xp.matmul(_mH(gQ), Q)
    b = gQ + xp.matmul(Q, _copyltu(M))
    return xp.matmul(b, _mH(_inv(R)))


def _qr_grad(g, x, result, mode):
    Q, R = result
    gQ, gR = g
    m, n = x.shape[-2], x.shape[-1]
    if m > n and mode == "complete":
        raise RuntimeError("qr(mode='complete') is not differentiable when the matrix has more rows "
                           "than columns; use mode='reduced'")
    if m >= n:
        return _qr_square(gQ, gR, Q, R)
    U, V = R[..., :, :m], R[..., :, m:]
    gU, gV = gR[..., :, :m], gR[..., :, m:]
    Y = x[..., :, m:]
    gX = _qr_square(gQ + xp.matmul(Y, _mH(gV)), gU, Q, U)
    gY = xp.matmul(Q, gV)
    shape = x.shape
    return (embed(gX, shape, lambda a: a[..., :, :m]) + embed(gY, shape, lambda a: a[..., :, m:]))


rule("qr", "x, mode='reduced'", "LinalgQrBackward0", multi=True, x=_qr_grad)


def _offdiag_inv(d):
    """1 / d off the diagonal of the last two axes, 0 on it."""
    n = d.shape[-1]
    eye = _eye(n, d) != 0
    return where(eye, 0.0, 1 / where(eye, 1.0, d))


def _eigh_grad(g, result):
    L, V = result
    gL, gV = g
    inner = xp.matmul(_mH(V), gV)
    F = _offdiag_inv(L[..., None, :] - L[..., :, None])
    mid = F * inner + gL[..., :, None] * _eye(L.shape[-1], inner)
    gA = xp.matmul(xp.matmul(V, mid), _mH(V))
    # (the gradient with respect to a Hermitian matrix, as PyTorch's linalg_eigh backward:
    # the Hermitian part; eigh reads one triangle, so for a Hermitian input this is the
    # gradient every element of it shares)
    return (gA + _mH(gA)) * 0.5


rule("eigh", "x", "LinalgEighBackward0", multi=True, x=_eigh_grad)


def _eigvalsh_grad(g, x):
    V = xp.linalg.eigh(x)[1]
    return xp.matmul(V, g[..., :, None] * _mH(V))


rule("eigvalsh", "x, **kw", "LinalgEighBackward0", x=_eigvalsh_grad)


def _eig_grad(g, result):
    L, V = result
    gL, gV = g
    Vh = _mH(V)
    inner = xp.matmul(Vh, gV)
    n = L.shape[-1]
    eye = _eye(n, inner)
    d = xp.real(xp.sum(inner * eye, axis=-1))  # Re diag(V^H gV)
    ret = inner - xp.matmul(Vh, V * d[..., None, :])
    Lc = _conj(L)
    ret = ret * _offdiag_inv(Lc[..., None, :] - Lc[..., :, None]) + gL[..., :, None] * eye
    return xp.linalg.solve(Vh, xp.matmul(ret, Vh))


rule("eig", "x", "LinalgEigBackward0", multi=True, x=_eig_grad)


def _eigvals_grad(g, x):
    V = xp.linalg.eig(x)[1]
    Vh = _mH(V)
    return xp.linalg.solve(Vh, g[..., :, None] * Vh)


rule("eigvals", "x", "LinalgEigBackward0", x=_eigvals_grad)


def _svd_grad(g, x, result, full_matrices, ctx):
    U, S, Vh = result
    gU, gS, gVh = g
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    if full_matrices and m != n:
        U, gU = U[..., :, :k], gU[..., :, :k]
        Vh, gVh = Vh[..., :k, :], gVh[..., :k, :]
    useU, useV = ctx.grad_defined[0], ctx.grad_defined[2]
    if not useU and not useV:
        return xp.matmul(U * gS[..., None, :], Vh)
    skew = lambda a: a - _mH(a)  # noqa: E731
    S2 = S * S
    E = _offdiag_inv(S2[..., None, :] - S2[..., :, None])
    ga = 0.0
    UhgU = skew(xp.matmul(_mH(U), gU))
    VhgV = skew(xp.matmul(Vh, _mH(gVh)))
    ga = (UhgU * S[..., None, :] + S[..., :, None] * VhgV) * E
    ga = ga + gS[..., :, None] * _eye(k, ga)
    if U._dtype.kind == "c":
        d = xp.sum(UhgU * _eye(k, UhgU), axis=-1)
        ga = ga + (d / (2 * S))[..., :, None] * _eye(k, ga)
    if m > n:
        ga = xp.matmul(U, ga)
        gUS = gU / S[..., None, :]
        ga = ga + gUS - xp.matmul(U, xp.matmul(_mH(U), gUS))
        return xp.matmul(ga, Vh)
    if m < n:
        ga = xp.matmul(ga, Vh)
        SgV = gVh / S[..., :, None]
        ga = ga + SgV - xp.matmul(xp.matmul(SgV, _mH(Vh)), Vh)
        return xp.matmul(U, ga)
    return xp.matmul(U, xp.matmul(ga, Vh))


rule("svd", "x, full_matrices=True", "LinalgSvdBackward0", multi=True, x=_svd_grad)


def _svdvals_grad(g, x):
    U, _, Vh = xp.linalg.svd(x, full_matrices=False)
    return xp.matmul(U * g[..., None, :], Vh)


rule("svdvals", "x", "LinalgSvdBackward0", x=_svdvals_grad)


def _pinv_grad(g, x, result):
    P = result
    m, n = x.shape[-2], x.shape[-1]
    Ph = _mH(P)
    gh = _mH(g)
    mm = xp.matmul
    if m <= n:
        K = mm(gh, P)
        KPh = mm(K, Ph)
        return -_mH(mm(P, K)) + KPh - mm(mm(x, P), KPh) + mm(mm(Ph, P), gh - mm(K, x))
    K = mm(P, gh)
    PhK = mm(Ph, K)
    return -_mH(mm(K, P)) + mm(mm(gh - mm(x, K), P), Ph) + PhK - mm(mm(PhK, P), x)


rule("pinv", "x, rtol=None, **kw", "LinalgPinvBackward0", x=_pinv_grad)


def _matrix_power_grad(g, x, n):
    n = operator.index(n)
    if n == 0:
        return xp.zeros_like(x)
    if n < 0:
        B = _inv(x)
        gB = _power_sum(g, _mH(B), -n)
        return -xp.matmul(xp.matmul(_mH(B), gB), _mH(B))
    return _power_sum(g, _mH(x), n)


def _power_sum(g, aH, n):
    pw = [None]
    for _ in range(1, n):
        pw.append(aH if pw[-1] is None else xp.matmul(pw[-1], aH))
    acc = None
    for k in range(n):
        t = g if pw[k] is None else xp.matmul(pw[k], g)
        j = n - 1 - k
        t = t if pw[j] is None else xp.matmul(t, pw[j])
        acc = t if acc is None else acc + t
    return acc


rule("matrix_power", "x, n", "LinalgMatrixPowerBackward0", x=_matrix_power_grad)


def _vector_norm_grad(g, x, result, axis, keepdims, ord):
    shape = x.shape
    ge = _expand(g, shape, axis, keepdims)
    re = _expand(result, shape, axis, keepdims)
    if ord == 0:
        return xp.zeros_like(x, dtype=ge.dtype)
    if ord == 1:
        return ge * _sgn(x)
    if ord in (math.inf, -math.inf):
        mask = xp.abs(x) == re
        cnt = xp.sum(mask, axis=_axes(axis, x.ndim), keepdims=True)
        return _sgn(x) * where(mask, ge / cnt, 0.0)
    if ord == 2:
        return x * where(re == 0, 0.0, ge / where(re == 0, 1.0, re))
    p = float(ord)
    a = xp.abs(x)
    scale = where(re == 0, 0.0, ge / where(re == 0, 1.0, re) ** (p - 1))
    ap = a ** (p - 1)
    if p < 1:  # (PyTorch's norm_backward: a zero element's |x|^(p-1), inf, counts as 0)
        ap = where(a == 0, 0.0, ap)
    return _sgn(x) * ap * scale


rule("vector_norm", "x, axis=None, keepdims=False, ord=2", "LinalgVectorNormBackward0",
     x=_vector_norm_grad)


def _matrix_norm_grad(g, x, result, keepdims, ord):
    ge = g if keepdims else g[..., None, None]
    re = result if keepdims else result[..., None, None]
    if ord in ("fro", None):
        return x * where(re == 0, 0.0, ge / where(re == 0, 1.0, re))
    if ord == "nuc":
        U, _, Vh = xp.linalg.svd(x, full_matrices=False)
        return ge * xp.matmul(U, Vh)
    if ord in (2, -2):
        U, _, Vh = xp.linalg.svd(x, full_matrices=False)
        k = 0 if ord == 2 else -1
        kk = slice(k, None) if k == -1 else slice(0, 1)
        return ge * xp.matmul(U[..., :, kk], Vh[..., kk, :])
    if ord in (1, -1):
        s = xp.sum(xp.abs(x), axis=-2, keepdims=True)
        mask = s == re
        cnt = xp.sum(mask, axis=-1, keepdims=True)
        return _sgn(x) * where(mask, ge / cnt, 0.0)
    if ord in (math.inf, -math.inf):
        s = xp.sum(xp.abs(x), axis=-1, keepdims=True)
        mask = s == re
        cnt = xp.sum(mask, axis=-2, keepdims=True)
        return _sgn(x) * where(mask, ge / cnt, 0.0)
    raise RuntimeError(f"matrix_norm(): no derivative for ord={ord!r}")


rule("matrix_norm", "x, keepdims=False, ord='fro'", "LinalgMatrixNormBackward0", x=_matrix_norm_grad)


# --- einsum (PyTorch's extension; not in the standard) -------------------------------------

def _einsum_parse(subscripts, ndims):
    s = subscripts.replace(" ", "")
    if "->" in s:
        ins, out = s.split("->")
    else:
        ins, out = s, None
    terms = ins.split(",")
    letters = sorted(set(c for t in terms for c in t if c.isalpha()))
    free = [c for c in map(chr, range(65, 123)) if c.isalpha() and c not in letters]
    ell_n = max((nd - len(t.replace("...", "")) for t, nd in zip(terms, ndims) if "..." in t), default=0)
    ell = "".join(free[:ell_n])
    exp = []
    for t, nd in zip(terms, ndims):
        if "..." in t:
            k = nd - len(t.replace("...", ""))
            t = t.replace("...", ell[ell_n - k:])
        exp.append(t)
    if out is None:
        counts = {}
        for t in exp:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
    return exp, out


def _einsum_grads(g, ctx, subscripts, operands):
    shapes = ctx.shape("operands")
    ndims = [len(s) for s in shapes]
    terms, out = _einsum_parse(subscripts, ndims)
    grads = []
    for i, (t, shape) in enumerate(zip(terms, shapes)):
        if len(set(t)) != len(t):
            raise RuntimeError(f"einsum(): no derivative for repeated subscripts in one operand ({t!r})")
        others = [(terms[j], _conj(operands[j])) for j in range(len(terms)) if j != i]
        avail = set(out).union(*[set(o) for o, _ in others])
        kept = "".join(c for c in t if c in avail)
        spec = ",".join([out] + [o for o, _ in others]) + "->" + kept
        r = xp.einsum(spec, g, *[v for _, v in others])
        if kept != t:
            r = xp.reshape(r, tuple(r.shape[kept.index(c)] if c in kept else 1 for c in t))
        if r.shape != tuple(shape):  # labels of size 1 broadcast in the forward pass
            r = xp.broadcast_to(r, tuple(n if m == 1 else m for n, m in zip(shape, r.shape)))
        grads.append(r)
    return grads


rule("einsum", "subscripts, *operands", "EinsumBackward0", operands=_einsum_grads)

# --- fft ----------------------------------------------------------------------------------------

_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho", None: "forward"}


def _resize(g, axis, length):
    """Crop or zero-pad ``g`` along ``axis`` to ``length`` (adjoint of the transform's own)."""
    n = g.shape[axis]
    if n == length:
        return g
    if n > length:
        return _col(g, axis, slice(0, length))
    shape = tuple(length if d == axis % g.ndim else s for d, s in enumerate(g.shape))
    return embed(g, shape, lambda a: _col(a, axis, slice(0, n)))


def _fft_axes(shape, s, axes):
    nd = len(shape)
    if axes is None:
        axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    return tuple(operator.index(a) % nd for a in axes)


def _c2c(adjoint):
    def grad(g, ctx, axis, norm):
        r = adjoint(g, axis=axis, norm=_DUAL[norm])
        return _resize(r, axis, ctx.shape("x")[axis])
    return grad


def _c2cn(adjoint):
    def grad(g, ctx, s, axes, norm):
        shape = ctx.shape("x")
        ax = _fft_axes(shape, s, axes)
        r = adjoint(g, axes=ax, norm=_DUAL[norm])
        for a in ax:
            r = _resize(r, a, shape[a])
        return r
    return grad


def _rfft_grad(g, ctx, n, axis, norm):
    shape = ctx.shape("x")
    full = n if n is not None else shape[axis]
    r = xp.fft.ifft(_resize(g, axis, full), axis=axis, norm=_DUAL[norm])
    return _resize(r, axis, shape[axis])


def _double(gI, axis, nfull):
    m = gI.shape[axis]
    dl = nfull - m
    if dl <= 0:
        return gI
    w = [1.0] * m
    for i in range(1, 1 + dl):
        w[i] = 2.0
    wa = xp.asarray(w, dtype=xp.real(gI).dtype if gI._dtype.kind == "c" else gI.dtype, device=gI._device)
    return gI * xp.reshape(wa, tuple(m if d == axis % gI.ndim else 1 for d in range(gI.ndim)))


def _irfft_grad(g, ctx, axis, norm):
    shape = ctx.shape("x")
    nfull = g.shape[axis]
    gI = _double(xp.fft.rfft(g, axis=axis, norm=_DUAL[norm]), axis, nfull)
    return _resize(gI, axis, shape[axis])


def _rfftn_grad(g, ctx, s, axes, norm):
    shape = ctx.shape("x")
    ax = _fft_axes(shape, s, axes)
    last = ax[-1]
    full = s[-1] if s is not None else shape[last]
    r = xp.fft.ifftn(_resize(g, last, full), axes=ax, norm=_DUAL[norm])
    for a in ax:
        r = _resize(r, a, shape[a])
    return r


def _irfftn_grad(g, ctx, s, axes, norm):
    shape = ctx.shape("x")
    ax = _fft_axes(g.shape, s, axes)
    gI = _double(xp.fft.rfftn(g, axes=ax, norm=_DUAL[norm]), ax[-1], g.shape[ax[-1]])
    for a in ax:
        gI = _resize(gI, a, shape[a])
    return gI


_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho", None: "forward"}


def _hfft_grad(g, ctx, axis, norm):
    return _conj(_irfft_grad(g, ctx, axis, _SWAP[norm]))


def _ihfft_grad(g, ctx, n, axis, norm):
    return _rfft_grad(_conj(g), ctx, n, axis, _SWAP[norm])


_FFT1 = "x, n=None, axis=-1, norm='backward'"
_FFTN = "x, s=None, axes=None, norm='backward'"
rule("fft", _FFT1, "FftC2CBackward0", x=lambda g, ctx, axis, norm: _c2c(xp.fft.ifft)(g, ctx, axis, norm))
rule("ifft", _FFT1, "FftC2CBackward0", x=lambda g, ctx, axis, norm: _c2c(xp.fft.fft)(g, ctx, axis, norm))
rule("fftn", _FFTN, "FftC2CBackward0",
     x=lambda g, ctx, s, axes, norm: _c2cn(xp.fft.ifftn)(g, ctx, s, axes, norm))
rule("ifftn", _FFTN, "FftC2CBackward0",
     x=lambda g, ctx, s, axes, norm: _c2cn(xp.fft.fftn)(g, ctx, s, axes, norm))
rule("rfft", _FFT1, "FftR2CBackward0", x=_rfft_grad)
rule("irfft", _FFT1, "FftC2RBackward0", x=_irfft_grad)
rule("rfftn", _FFTN, "FftR2CBackward0", x=_rfftn_grad)
rule("irfftn", _FFTN, "FftC2RBackward0", x=_irfftn_grad)
rule("hfft", _FFT1, "FftC2RBackward0", x=_hfft_grad)
rule("ihfft", _FFT1, "FftR2CBackward0", x=_ihfft_grad)
rule("fftshift", "x, axes=None", "RollBackward0", x=lambda g, axes: xp.fft.ifftshift(g, axes=axes))
rule("ifftshift", "x, axes=None", "RollBackward0", x=lambda g, axes: xp.fft.fftshift(g, axes=axes))
