"""The kernels of the activation rows (``relu``, ``sigmoid``, ``silu``; with parameters:
``leaky_relu``, ``elu``, ``celu``, ``selu``, ``hardtanh``, ``softplus``, ``gelu``) of the
elementwise registry (``strided._api.elementwise.ROWS``), and the parameter checks of
the parametric ones (see the second half of this file).

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

from .._core import backends as _backends, layout as _layout, threads as _threads
from .._core.pool import MIN_BYTES as _BIG
from .._core.pool import empty as _pool_empty

_ND = np.ndarray
_CK = _threads._CK  # the compiled kernels (strided._csrc._ckernels), or None
_C_RELU = frozenset([np.dtype(np.float32), np.dtype(np.float64)])
_BLOCK = 32768  # elements per block (128-256 KiB: in the second-level cache; 4096 cost 2x in calls)
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


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
        if xp is not np or dt.itemsize < 4:
            # (another backend's maximum need not keep -0.0: where does, and NaN. Note: so
            # does NumPy's float16 maximum, which returns its first operand on a tie:
            # maximum(0.0, -0.0) is +0 there, PyTorch's relu(-0.0) is -0.0)
            return xp.where(a < 0, xp.zeros_like(a), a)
        if a.size < 4096:  # one NumPy call: less overhead than the compiled pass's checks
            return np.maximum(0.0, a)
        if _CK is not None and type(a) is _ND and dt in _C_RELU and a.flags.c_contiguous:
            out = _result(a)
            nt = _threads._NUM[0] if a.nbytes >= _threads._THREAD_MIN[0] else 1
            if _CK.relu(a, out, nt):
                return out
        return maximum_kernel(xp, 0.0, a)
    # The compiled hot path's own loop of this kernel (strided/_csrc/_chot/loops.c, "loops of
    # strided's own"): float32/float64 operands of any size on the CPU, the same values.
    relu._c_loop = "relu"
    return relu


def _exp_into(t):
    """``exp(t, out=t)`` for a C-contiguous float array: through the thread pool's capsule of
    NumPy's loop (``threads._loop_info``), which carries strided's vector exp where _chot has
    verified that it gives NumPy's values (_chot/loops.c, "exp and log"), else NumPy's call."""
    info = _threads._loop_info(np.exp, t.dtype) if _CK is not None else None
    if info is None or not _CK.ew_loop(info, (t,), t, 1):
        np.exp(t, out=t)


_OWN: dict = {}  # (name, dtype) -> the capsule of _chot's own loop, or None


def _own_loop(name, dt):
    """The call info of _chot's own loop ``name`` for float32/float64 (loops.c, "loops of
    strided's own": the kernel's operations per element in one pass), or None."""
    key = (name, dt)
    try:
        return _OWN[key]
    except KeyError:
        chot = _threads._CHOT
        cap = None
        if _CK is not None and chot is not None and hasattr(chot, "own_loop_info") and dt in _C_RELU:
            cap = chot.own_loop_info(name, dt.itemsize)
        _OWN[key] = cap
        return cap


def _logistic(a, silu: bool):
    """``1 / (1 + exp(-a))`` (``a / (1 + exp(-a))`` for silu) of a NumPy float array, in
    ``a``'s memory order (NumPy's ufuncs' layout, and so strided's on every device)."""
    if a.ndim > 1 and not a.flags.c_contiguous:
        return _backends.in_order(lambda m: _logistic_rows(m, silu), a)
    return _logistic_rows(a, silu)


def _logistic_rows(a, silu: bool):
    """``_logistic`` with a row-major result."""
    if a.dtype == _F16:
        return _logistic_rows(a.astype(_F32, order="C"), silu).astype(_F16)
    out = _result(a)
    if a.flags.c_contiguous and a.flags.aligned:
        # one pass of _chot's loop (the same operations per element, on the thread pool
        # when large), where its vector exp is NumPy's exp here
        cap = _own_loop("silu" if silu else "sigmoid", a.dtype)
        nt = _threads._NUM[0] if a.nbytes >= _threads._THREAD_MIN[0] else 1
        if cap is not None and _CK.ew_loop(cap, (a,), out, nt):
            return out
    neg, exp, add, rec, div = np.negative, _exp_into, np.add, np.reciprocal, np.divide
    if a.size <= _BLOCK or not a.flags.c_contiguous:
        neg(a, out=out)
        exp(out)
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
        exp(t)
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


# The compiled hot path's own loops of these kernels (_chot/loops.c, "loops of strided's
# own"), for float32/float64 operands where its vector exp is NumPy's.
sigmoid._c_loop = "sigmoid"
silu._c_loop = "silu"


# --- the parametric activations: kernels ``kernel(xp, a, *params)`` -----------------------
# Each takes its row's parameters positionally, in the row's declared order, with
# PyTorch's defaults (the compiled hot path calls ``kernel(xp, a)``: the defaults).
# The formulas are PyTorch's CPU kernels' (aten/src/ATen/native/cpu/Activation.cpp),
# written with the array namespace ``xp`` only (NumPy on cpu, CuPy on cuda); float16
# is computed in float32 and rounded once, as PyTorch's CPU kernels do (opmath).
# ``where`` picks the branch, so NaN goes to the branch PyTorch's comparison sends it to.

import math as _math
import numbers as _numbers

_SQRT1_2 = 1.0 / _math.sqrt(2.0)
_GELU_TANH_BETA = _math.sqrt(2.0) * (2.0 / _math.sqrt(_math.pi)) * 0.5  # sqrt(2 / pi)
_GELU_TANH_KAPPA = 0.044715
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _in_float32(kernel):
    """``kernel`` computed in float32 for a float16 input, rounded once to float16."""
    def k(xp, a, *params):
        if a.dtype == _F16:
            return kernel(xp, a.astype(_F32), *params).astype(_F16)
        return kernel(xp, a, *params)
    k.__name__ = kernel.__name__
    k.__doc__ = kernel.__doc__
    return k


def native_erf(xp, a):
    """erf of a native float array on its own device: float32 on the host ``erf32`` (SciPy's
    float64 erf rounded once, but where that lies within ~1e-14 of a rounding boundary), other
    dtypes SciPy's ufunc (else ``math.erf`` per element), ``cupyx.scipy.special.erf`` on CuPy
    (else one host round trip)."""
    if xp is np:
        if a.dtype == _F32:  # strided's own erf32 (the same values as gelu's; one compiled pass)
            r = _act(7, a if a.flags.c_contiguous else np.ascontiguousarray(a), 0.0) \
                if type(a) is _ND else None
            return r if r is not None else erf32(a)
        try:
            from scipy.special import erf
        except ImportError:  # pragma: no cover (SciPy is installed where the tests run)
            return np.vectorize(_math.erf, otypes=[a.dtype])(a).astype(a.dtype, copy=False)
        return np.asarray(erf(a), dtype=a.dtype)
    try:
        from cupyx.scipy.special import erf
    except ImportError:  # a CuPy without cupyx.scipy (the stand-in): one host round trip
        host = np.asarray(xp.asnumpy(a)) if hasattr(xp, "asnumpy") else np.asarray(a)
        return xp.asarray(native_erf(np, host))
    return erf(a)


# erf of a float32 value, computed in float64 by a polynomial per half-unit interval of |t|
# and rounded once (SciPy's erf, the float64 path, is a scalar loop: gelu of 1e5 float32 cost 4
# ms against PyTorch's 0.22). k = min(floor(2|t|), 7): k = 0 (|t| < 0.5): t * P0(t**2); 1 <= k
# <= 7: Pk(|t| - (k / 2 + 0.25)) (|t| clamped to 4, whose value rounds to 1 in float32).
# Twelve coefficients each, fitted in Chebyshev nodes to mpmath's erf (mpmath.chebyfit):
# relative error below 5e-15 over [0, 4] against SciPy's erf (4.9e-15 on [0.5, 1), 2.5e-15
# on [1, 1.5), below 1e-15 elsewhere), so that a float32 rounding of it differs from
# SciPy's only where SciPy's own float64 value lies within ~1e-14 of a rounding boundary.
# Eight intervals, not four of width 1 with sixteen coefficients (stop 51's): the compiled
# kernel picks a coefficient for eight lanes with one permute (vpermpd) instead of three
# selects, with four vectors in flight. _ckernels.act's op 4 runs the same operations in
# the same order (Estrin's scheme, no fused multiply-add): the same bits.
_ERF_COEF = np.array((
    (1.1283791670955126, -0.37612638903183754, 0.11283791670955126, -0.026866170645131242, 0.005223977625441806, -0.0008548327023363943, 0.00012055332969230665, -1.4925649162903559e-05, 1.6462038363970583e-06, -1.636264690374604e-07, 1.4721521176389801e-08, -1.0958654538847351e-09),
    (0.7111556336535181, 0.6429310691952095, -0.4821983018998296, 0.02678879454730521, 0.15068696998239123, -0.0532427287017783, -0.026872553292873545, 0.01843520334097901, 0.00230314367006075, -0.003967276391241565, 0.00016660193996439915, 0.0006099377902781329),
    (0.9229001282564597, 0.2365211224472892, -0.29565140306089954, 0.16753579506866303, -0.006159403897076177, -0.04718103674700974, 0.02130125021969763, 0.0036260059926181156, -0.005696976904484913, 0.0008769131561911635, 0.0007835596462556801, -0.00031362872546460645),
    (0.9866716712191804, 0.05277499593015087, -0.09235624287548982, 0.09015728471343301, -0.048102210256654246, 0.006624361575530852, 0.008963074095448189, -0.006058758802372549, 0.0007291554017542642, 0.0008944087432204974, -0.0004299765455474491, -8.69684696263109e-06),
    (0.9985372834133195, 0.0071423190220180266, -0.01607021780027986, 0.021724553691921413, -0.01908338349883803, 0.010657679174968014, -0.002904366513263192, -0.0006704566015481165, 0.0009997858665201566, -0.0003693611248127416, -1.564581012825583e-05, 6.486654060015188e-05),
    (0.9998993780778804, 0.0005862772470937142, -0.0016122624295494868, 0.002760388705156704, -0.0032581136518982476, 0.0027558083972551804, -0.00165732792797319, 0.0006460421048297036, -8.899560262969834e-05, -7.125854428691467e-05, 5.477627862383016e-05, -1.5339902089340584e-05),
    (0.9999956972205363, 2.918902538359729e-05, -9.486433243279061e-05, 0.00019580971193023053, -0.0002865693496689663, 0.00031379722884593725, -0.0002635276905594633, 0.00016999118520779564, -8.16727378688544e-05, 2.592093832258929e-05, -1.9717813120931633e-06, -2.965628680054704e-06),
    (0.9999998862727434, 8.814321912335496e-07, -3.30537071987407e-06, 7.969616060377052e-06, -1.3841239362501154e-05, 1.8370975373089447e-05, -1.9272756804312935e-05, 1.6275277203802863e-05, -1.1127126373843726e-05, 6.109665384252861e-06, -2.6192729501426734e-06, 7.642880305561756e-07),
))


def erf32(s):
    """erf of a float32 NumPy array (see ``_ERF_COEF``), float32; a NaN is returned as it is."""
    with np.errstate(all="ignore"):  # (a signalling NaN's cast to float64 raises "invalid")
        return _erf32(np.asarray(s))


def _erf32(s):
    t = s.astype(_F64)
    a = np.abs(t)
    k = np.minimum(np.floor(a * 2.0), 7.0)
    a = np.minimum(a, 4.0)
    first = k == 0
    v = np.where(first, a * a, a - (k * 0.5 + 0.25))
    r = np.zeros_like(a)
    for i in range(8):  # each interval's polynomial over its elements (a NaN is in none)
        m = k == i
        if not m.any():
            continue
        vi = v[m]
        c = _ERF_COEF[i].tolist()
        # Estrin's scheme, as the C loops (_ckernels.c's SD_ESTRIN): pairs, then v^2, v^4, v^8
        v2 = vi * vi
        v4 = v2 * v2
        p = [c[j] + c[j + 1] * vi for j in range(0, 12, 2)]
        q0, q1, q2 = p[0] + p[1] * v2, p[2] + p[3] * v2, p[4] + p[5] * v2
        acc = (q0 + q1 * v4) + q2 * (v4 * v4)
        r[m] = a[m] * acc if i == 0 else acc
    e = np.copysign(r, t).astype(_F32)
    return np.where(np.isnan(s), s, e)


_F32_MAX = float(np.finfo(np.float32).max)


def _act(op, a, p, q=0.0):
    """_ckernels.act's one pass (hardtanh, leaky_relu: the formulas below, operation for
    operation) for a C-contiguous float32/float64 NumPy array, or None. p and q are
    converted to the array's dtype as NumPy converts a Python float next to it (a finite
    value beyond float32's range takes the formula)."""
    if _CK is None or type(a) is not _ND or not a.flags.c_contiguous:
        return None
    dt = a.dtype
    if dt == _F32:
        # (the pass converts p and q to float32 as C converts a double, which is NumPy's
        # conversion of a Python float, round to nearest even, but for a finite value
        # beyond float32's range: NumPy's overflows to inf where C's is undefined)
        if (abs(p) > _F32_MAX and p - p == 0) or (abs(q) > _F32_MAX and q - q == 0):
            return None
    elif dt != _F64:
        return None
    out = _result(a)
    nt = _threads._NUM[0] if a.nbytes >= _threads._THREAD_MIN[0] else 1
    return out if _CK.act(op, a, out, p, q, nt) else None


@_in_float32
def leaky_relu(xp, a, negative_slope=0.01):
    """``x > 0 ? x : x * negative_slope`` (NaN: NaN * slope)."""
    if xp is np:
        r = _act(1 if 0 < negative_slope < 1 else 2, a, negative_slope)
        if r is not None:
            return r
    if 0 < negative_slope < 1:
        # the same values in two passes: max(x, slope * x) is x for x > 0 and slope * x
        # below (NaN propagates; -0.0 and the infinities give the formula's)
        return xp.maximum(a, a * negative_slope)
    return _where(xp, a > 0, a, a * negative_slope)


def _where(xp, c, x, y):
    """``xp.where(c, x, y)``; NumPy's without branches where it applies (threads.select: its
    where branches per element, ~4 ns an element on a random condition)."""
    if xp is np:
        r = _threads.select(c, x, y)
        if r is not None:
            return r
    return xp.where(c, x, y)


@_in_float32
def elu(xp, a, alpha=1.0, scale=1.0, input_scale=1.0):
    """``x <= 0 ? expm1(x * input_scale) * alpha * scale : x * scale`` (PyTorch's elu;
    celu and selu are elu with their constants)."""
    return _where(xp, a <= 0, xp.expm1(a * input_scale) * (alpha * scale), a * scale)


def celu(xp, a, alpha=1.0):
    """PyTorch's celu: ``elu(x, alpha, scale=1, input_scale=1/alpha)``."""
    return elu(xp, a, alpha, 1.0, 1.0 / alpha)


def selu(xp, a):
    """PyTorch's selu: ``elu`` with the constants of Klambauer et al. (2017)."""
    return elu(xp, a, _SELU_ALPHA, _SELU_SCALE, 1.0)


def hardtanh(xp, a, min_val=-1.0, max_val=1.0):
    """``x`` clamped to ``[min_val, max_val]`` as PyTorch's clamp: NaN stays NaN, a zero
    keeps its sign (``hardtanh(-0.0, 0.0, 6.0)`` is -0.0; NumPy's maximum would give +0)."""
    if xp is np:
        r = _act(0, a, min_val, max_val)
        if r is not None:
            return r
    lo = xp.where(a < min_val, min_val, a)
    return xp.where(lo > max_val, max_val, lo).astype(a.dtype, copy=False)


def _softplus_one_call(a, beta, threshold):
    """softplus's steps below in one compiled call (``_ckernels.softplus_run``: the same
    operations, exp and log1p by the loops strided's exp and log1p run) for a C-contiguous
    float32/float64 array under the thread threshold and parameters that convert to its
    dtype as NumPy converts them; else None (the steps run)."""
    if type(a) is not _ND or not a.flags.c_contiguous or a.nbytes >= _threads._THREAD_MIN[0]:
        return None
    dt = a.dtype
    if dt != _F32 and dt != _F64:
        return None
    for v in (beta, threshold):
        if type(v) is not float and (type(v) is not int or abs(v) > 2**53):
            return None
        if v != v or (dt == _F32 and abs(v) > _F32_MAX) or abs(v) == _math.inf:
            return None
    ex, lp = _threads._loop_info(np.exp, dt), _threads._loop_info(np.log1p, dt)
    if ex is None or lp is None:
        return None
    out = np.empty(a.shape, dt)
    return out if _CK.softplus_run(a, out, float(beta), float(threshold), ex, lp) else None


@_in_float32
def softplus(xp, a, beta=1.0, threshold=20.0):
    """``x * beta > threshold ? x : log1p(exp(x * beta)) / beta``."""
    if xp is np and _CK is not None:
        r = _softplus_one_call(a, beta, threshold)
        if r is not None:
            return r
    bx = a * beta
    linear = bx > threshold
    r = xp.log1p(xp.exp(bx))
    r /= beta
    return _where(xp, linear, a, r)


@_in_float32
def gelu(xp, a, approximate="none"):
    """``x * Phi(x)``: ``x/2 * (1 + erf(x / sqrt 2))`` (``approximate="none"``) or
    ``x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`` (``"tanh"``)."""
    if approximate != "tanh" and xp is np and a.dtype == _F32 and type(a) is _ND:
        # one pass in C (the formula below with erf32, the same bits)
        # (a row-major result; of another layout in its memory order, as NumPy's ufuncs)
        r = _act(4, a, 0.0) if a.flags.c_contiguous else _backends.in_order(
            lambda m: _act(4, np.ascontiguousarray(m), 0.0), a)
        if r is not None:
            return r
    h = a * 0.5
    if approximate == "tanh":
        # beta * (x + kappa x^3), then h * (1 + tanh), in place on fresh temporaries
        t = a * a
        t *= a
        t *= _GELU_TANH_KAPPA
        t += a
        t *= _GELU_TANH_BETA
        t = xp.tanh(t)
        t += 1.0
        t *= h
        return t
    if xp is np and a.dtype == _F32:
        # erf32: the compiled kernel's erf (without the compiled kernels, STRIDED_NO_CEXT=1)
        return h * erf32(a * _SQRT1_2) + h
    e = native_erf(xp, a * _SQRT1_2)
    if a.dtype == _F32:
        # Note: PyTorch 2.13's float32 CPU gelu of a contiguous tensor of two or more
        # elements is oneDNN's; its AVX2 kernel computes h * erf + h (a fused multiply-add):
        # +0.0 where the formula gives -0.0 (at -0.0, and below about -5.9 where erf is -1);
        # measured. Its AVX-512 kernel gives -0.0 there and NaN at +inf (measured on a Xeon);
        # its scalar path (a one-element tensor) and its float64 kernel compute h * (1 + erf),
        # as strided does for float64.
        return h * e + h
    return h * (1.0 + e)


# The compiled hot path's own loops of these kernels with their defaults (_chot/loops.c,
# "loops of strided's own"): the same values for float32/float64 operands.
hardtanh._c_loop = "hardtanh"
leaky_relu._c_loop = "leaky_relu"


# --- the rows' parameter checks: ``check(*values) -> values`` (bind.Params) ---------------

def _number(func: str, name: str, v) -> float:
    if isinstance(v, (_numbers.Real, np.bool_)):  # (PyTorch's Number: a bool is 0 or 1 too)
        return float(v)
    raise TypeError(f"{func}(): {name} must be a real number; got {type(v).__name__}")


def check_leaky_relu(negative_slope):
    return (_number("leaky_relu", "negative_slope", negative_slope),)


def check_elu(alpha):
    return (_number("elu", "alpha", alpha),)


def check_celu(alpha):
    alpha = _number("celu", "alpha", alpha)
    if alpha == 0:
        # Note: PyTorch raises RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU");
        # a ValueError here (a bad argument value).
        raise ValueError("celu(): alpha must not be 0 (x is divided by it)")
    return (alpha,)


def check_hardtanh(min_val, max_val):
    lo, hi = _number("hardtanh", "min_val", min_val), _number("hardtanh", "max_val", max_val)
    if lo > hi:
        raise ValueError(f"hardtanh(): min_val cannot be greater than max_val; got min_val={lo}, "
                         f"max_val={hi}")
    return lo, hi


def check_softplus(beta, threshold):
    return _number("softplus", "beta", beta), _number("softplus", "threshold", threshold)


def check_gelu(approximate):
    if approximate not in ("none", "tanh") or type(approximate) is not str:
        raise _layout.ArgumentError(f"gelu(): approximate must be 'none' or 'tanh'; got {approximate!r}")
    return (approximate,)
