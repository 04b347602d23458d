"""Autograd over the whole namespace, driven by one table (SAMPLES).

- ``test_every_function_is_classified``: every public function of ``strided``,
  ``strided.linalg`` and ``strided.fft`` either has a derivative rule, is
  declared non-differentiable (with the reason, in ``autograd.NONDIFF``), or is
  listed below as taking no differentiable array input (with the reason). A
  new function that is none of these fails the test.
- ``test_every_rule_has_samples``: every function with a rule has samples here.
- ``test_gradcheck``: analytic gradients against central differences in
  float64 (``strided.autograd.gradcheck``) for every sample: noncontiguous,
  negative-stride, broadcast, 0-d and complex inputs where they apply.
- ``test_gradgradcheck``: second derivatives for a representative subset.
"""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

import strided as xp
from strided import autograd as ag
from strided._api.elementwise import REGISTRY
from strided.autograd._record import lookup

RNG = np.random.default_rng(1234)


def r(*shape, lo=-2.0, hi=2.0, dtype=np.float64):
    a = RNG.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.uniform(lo, hi, shape)
    return a.astype(dtype)


def c(*shape, lo=-2.0, hi=2.0):
    return r(*shape, lo=lo, hi=hi, dtype=np.complex128)


def away(*shape, lo=-3.0, hi=3.0, gap=0.15):
    """Values at least ``gap`` away from integers (and from each other's ties)."""
    a = r(*shape, lo=lo, hi=hi)
    frac = a - np.floor(a)
    return np.where(frac < gap, a + gap, np.where(frac > 1 - gap, a - gap, a))


def distinct(*shape, lo=-3.0, hi=3.0):
    n = int(np.prod(shape))
    vals = np.linspace(lo, hi, n) + RNG.uniform(-0.1, 0.1, n) * (hi - lo) / (n + 1)
    return RNG.permutation(vals).reshape(shape)


def pd(n, batch=(), dtype=np.float64):
    a = r(*batch, n, n, dtype=dtype)
    return a + n * np.eye(n)


class S:
    """One sample: positional ``args`` (NumPy float arrays are differentiated,
    other NumPy arrays are passed as constant arrays), keyword ``kw``,
    ``view`` applied inside the function to each differentiated array (a
    noncontiguous or otherwise transformed view), and ``post`` applied to the
    output (e.g. a gauge-invariant function of eigenvectors)."""

    def __init__(self, *args, view=None, post=None, grad2=True, **kw):
        self.args, self.kw, self.view, self.post, self.grad2 = args, kw, view, post, grad2

    def __repr__(self):
        def d(a):
            if isinstance(a, np.ndarray):
                return f"{a.dtype}{list(a.shape)}"
            if isinstance(a, list):
                return "[" + ", ".join(d(b) for b in a) + "]"
            return repr(a)
        return f"S({', '.join(d(a) for a in self.args)}, {self.kw})"


def _is_diff(a):
    return isinstance(a, np.ndarray) and a.dtype.kind in "fc"


def build(fn, s: S):
    """(f, inputs) for gradcheck from a sample."""
    leaves, slots = [], []
    for i, a in enumerate(s.args):
        if _is_diff(a):
            slots.append((i, None))
            leaves.append(xp.asarray(a.copy()).requires_grad_())
        elif isinstance(a, list):
            for j, b in enumerate(a):
                if _is_diff(b):
                    slots.append((i, j))
                    leaves.append(xp.asarray(b.copy()).requires_grad_())

    def const(a):
        return xp.asarray(a) if isinstance(a, np.ndarray) else a

    def f(*ts):
        args = [list(map(const, a)) if isinstance(a, list) else const(a) for a in s.args]
        for (i, j), t in zip(slots, ts):
            t = s.view(t) if s.view is not None else t
            if j is None:
                args[i] = t
            else:
                args[i][j] = t
        kw = {k: const(v) for k, v in s.kw.items()}
        out = fn(*args, **kw)
        return s.post(out) if s.post is not None else out

    return f, tuple(leaves)


def T(t):
    """A transposed (noncontiguous) view holding the same values: t.mT.mT-style via a copy."""
    return xp.matrix_transpose(xp.matrix_transpose(t) + 0.0) if t.ndim >= 2 else t


def NEG(t):
    """A negative-stride view with the same values (flip of a flipped copy)."""
    return xp.flip(xp.flip(t, axis=0) * 1.0, axis=0) if t.ndim >= 1 else t


def STRIDED(t):
    """A view with stride 2 holding t's values."""
    if t.ndim == 0:
        return t
    wide = xp.stack([t, t * 0.0], axis=-1)
    return wide[..., 0]


UNARY_REAL = {
    "abs": dict(lo=0.2, hi=2.0), "acos": dict(lo=-0.9, hi=0.9), "acosh": dict(lo=1.2, hi=3.0),
    "asin": dict(lo=-0.9, hi=0.9), "asinh": {}, "atan": {}, "atanh": dict(lo=-0.9, hi=0.9),
    "cos": {}, "cosh": {}, "exp": {}, "expm1": {}, "log": dict(lo=0.2, hi=3.0),
    "log1p": dict(lo=-0.8, hi=3.0), "log2": dict(lo=0.2, hi=3.0), "log10": dict(lo=0.2, hi=3.0),
    "negative": {}, "positive": {}, "reciprocal": dict(lo=0.3, hi=3.0), "sin": {}, "sinh": {},
    "square": {}, "sqrt": dict(lo=0.2, hi=3.0), "tan": dict(lo=-1.2, hi=1.2), "tanh": {},
    "real": {}, "conj": {}, "sigmoid": dict(lo=-6.0, hi=6.0), "silu": dict(lo=-6.0, hi=6.0),
}
UNARY_COMPLEX = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "conj", "cos", "cosh",
                 "exp", "expm1", "imag", "log", "log1p", "log2", "log10", "negative", "positive",
                 "real", "reciprocal", "sign", "sin", "sinh", "square", "sqrt", "tan", "tanh"]

SAMPLES: dict = {}


def add(name, *samples):
    SAMPLES.setdefault(name, []).extend(samples)


for _n, _dom in UNARY_REAL.items():
    add(_n, S(r(3, 4, **_dom)), S(r(3, 4, **_dom), view=T), S(r(5, **_dom), view=NEG),
        S(r(**_dom)))
for _n in UNARY_COMPLEX:
    lo, hi = (0.3, 1.5) if _n in ("acosh", "log", "log1p", "log2", "log10", "sqrt", "reciprocal",
                                   "abs", "sign") else (-0.8, 0.8)
    add(_n, S(c(2, 3, lo=lo, hi=hi)), S(c(4, lo=lo, hi=hi), view=NEG))
for _n in ("ceil", "floor", "round", "trunc"):
    add(_n, S(away(3, 4)), S(away(5), view=NEG))
add("sign", S(away(3, 4)))
add("relu", S(away(3, 4)), S(away(5), view=NEG), S(away(4), view=T))
# the parametric activation rows (kinks at 0, hardtanh's at its bounds: samples away from them)
add("leaky_relu", S(away(3, 4)), S(away(5), 0.2, view=NEG), S(away(4), negative_slope=-0.5))
add("elu", S(away(3, 4)), S(away(5), 0.5, view=NEG), S(away(4), alpha=2.0, view=T))
add("celu", S(away(3, 4)), S(away(5), 0.5, view=NEG), S(away(4), alpha=2.0))
add("selu", S(away(3, 4)), S(away(5), view=NEG))
add("hardtanh", S(away(3, 4)), S(away(5, lo=-0.95, hi=0.95), view=NEG), S(away(4), -2.5, 1.5))
add("softplus", S(r(3, 4, lo=-6, hi=6)), S(r(5), 2.0, 1.0, view=NEG), S(r(4), beta=0.5, threshold=3.0))
add("gelu", S(r(3, 4, lo=-4, hi=4)), S(r(5), "tanh", view=NEG), S(r(4), approximate="tanh"))

BINARY = {
    "add": (r(3, 4), r(4)), "subtract": (r(3, 4), r(3, 1)), "multiply": (r(3, 4), r(1, 4)),
    "divide": (r(3, 4), r(4, lo=0.5, hi=2.0)), "atan2": (r(3, 4), r(3, 4, lo=0.3, hi=2)),
    "hypot": (r(3, 4), r(4)), "logaddexp": (r(3, 4), r(3, 4)),
    "maximum": (distinct(3, 4), distinct(4)), "minimum": (distinct(3, 4), distinct(4)),
    "pow": (r(3, 4, lo=0.5, hi=2.0), r(4)), "copysign": (r(3, 4, lo=0.3, hi=2.0), away(3, 4)),
    "remainder": (away(3, 4, lo=-5, hi=5), np.full((4,), 1.0 + 1e-3) * np.array([1.5, 2.5, -1.5, 3.5])),
    "nextafter": (r(3, 4), r(3, 4)),
    "floor_divide": (away(3, 4, lo=-5, hi=5), np.array([1.3, 2.7, -1.3, 3.1])),
}
for _n, (_a, _b) in BINARY.items():
    add(_n, S(_a, _b), S(_a, _b, view=T))
for _n in ("add", "subtract", "multiply", "divide", "pow"):
    add(_n, S(c(3, 2, lo=0.5, hi=1.5), c(2, lo=0.5, hi=1.5)))
add("add", S(r(3), 2.5), S(1.5, r(2, 3)), S(r(), r(2)))
add("multiply", S(r(3), 2.5), S(r(2, 2), 1j))
add("subtract", S(2.0, r(3)))
add("divide", S(2.0, r(3, lo=0.5, hi=2)), S(r(3), 4.0))
add("pow", S(r(3, lo=0.5, hi=2), 3), S(r(3, lo=0.5, hi=2), 0.5), S(2.0, r(3)),
    S(r(3, lo=0.5, hi=2), 0))
add("maximum", S(distinct(4), 0.1))
add("minimum", S(distinct(4), 0.1))

# --- copies, views, manipulation -------------------------------------------------------
add("clone", S(r(3, 4)), S(r(3, 4), view=T))
add("astype", S(r(3, 2), xp.complex128), S(c(3, 2), xp.complex128), S(r(2), xp.float64, copy=False))
add("to_device", S(r(3), "cpu"))
add("reshape", S(r(3, 4), (2, 6)), S(r(3, 4), (12,), view=T), S(r(3, 4), (-1, 3), copy=True))
add("view", S(r(3, 4), (4, 3)))
add("flatten", S(r(2, 3, 2)), S(r(2, 3, 2), 1))
add("unflatten", S(r(6, 2), 0, (2, 3)))
add("expand_dims", S(r(3, 4), axis=1), S(r(3), axis=(0, 2)))
add("unsqueeze", S(r(3, 4), 0))
add("squeeze", S(r(3, 1, 4)), S(r(1, 3, 1), axis=0))
add("broadcast_to", S(r(3, 1), (2, 3, 4)), S(r(), (2, 2)))
add("broadcast_arrays", S(r(3, 1), r(4)))
add("permute_dims", S(r(2, 3, 4), (2, 0, 1)), S(r(2, 3, 4), (-1, 0, 1), view=T))
add("matrix_transpose", S(r(2, 3, 4)))
add("linalg.matrix_transpose", S(r(3, 2), view=NEG))
add("t", S(r(2, 3)), S(r(3)))
add("transpose", S(r(2, 3, 4), 0, 2))
add("swapdims", S(r(2, 3, 4), 0, -1))
add("moveaxis", S(r(2, 3, 4), 0, -1), S(r(2, 3, 4), (0, 1), (2, 0)))
add("movedim", S(r(2, 3, 4), 1, 0))
add("flip", S(r(3, 4)), S(r(3, 4), axis=1), S(r(2, 3, 2), axis=(0, 2), view=T))
add("diagonal", S(r(3, 4)), S(r(2, 3, 4), offset=1, axis1=0, axis2=2), S(r(4, 3), offset=-1, view=NEG))
add("tril", S(r(3, 4)), S(r(2, 3, 3), k=-1))
add("triu", S(r(3, 4)), S(r(2, 3, 3), k=1, view=T))
add("narrow", S(r(4, 3), 0, 1, 2))
add("unfold", S(r(7), 0, 3, 2), S(r(3, 5), 1, 2, 1), S(r(4, 3), 0, 2, 1, view=T))
add("diag", S(r(3)), S(r(3, 4)), S(r(3), 1), S(r(4, 4), -1))
add("concat", S([r(2, 3), r(1, 3)]), S([r(2, 3), r(2, 2)], axis=1), S([r(2), r(3, 1)], axis=None))
add("cat", S([r(2, 3), r(1, 3)]))
add("stack", S([r(2, 3), r(2, 3)]), S([r(2, 3), r(2, 3), r(2, 3)], axis=-1))
add("unstack", S(r(3, 2)), S(r(3, 2), axis=1, view=T))
add("roll", S(r(3, 4), 1), S(r(3, 4), (1, -2), axis=(0, 1)), S(r(3, 4), 2, axis=1, view=NEG))
add("repeat", S(r(3), 2), S(r(2, 3), np.array([1, 0, 2]), axis=1), S(r(2, 2), 3, axis=None))
add("tile", S(r(2, 3), (2, 1)), S(r(3), (2, 2)), S(r(2, 2), (3,)))
add("split", S(r(5, 2), 2), S(r(4, 3), [1, 2], 1))
add("chunk", S(r(5, 2), 2), S(r(2, 6), 3, dim=1))
add("meshgrid", S([r(3), r(2)]), S([r(3), r(2), r(2)], indexing="ij"))

# --- indexing ---------------------------------------------------------------------------------


class Item:
    """``x[key]`` (and ``x[key] = value`` on a copy of x) as samples."""

    def __init__(self, key):
        self.key = key


def _getitem(x, key):
    return x[key]


def _setitem(x, key, value):
    y = x * 1.0
    y[key] = value
    return y


add("getitem",
    S(r(4, 3), 1), S(r(4, 3), (slice(1, None), 0)), S(r(4, 3), (Ellipsis, None, slice(None, None, -1))),
    S(r(4, 3), np.array([0, 2, 0])), S(r(4, 3), (np.array([1, 3]), np.array([2, 2]))),
    S(r(4, 3), np.array([True, False, True, True])), S(r(4, 3), (slice(None), [0, 0, 2])),
    S(r(4, 3), (slice(1, 3), 1), view=T))
add("setitem",
    S(r(4, 3), 1, r(3)), S(r(4, 3), (slice(None), 0), r(4)), S(r(4, 3), np.array([0, 2]), r(2, 1)),
    S(r(4, 3), (slice(1, 3),), r(3)), S(r(4, 3), np.array([True, False, False, True]), r(2, 3)),
    S(r(3, 3), 0, 2.5))
add("take", S(r(5), np.array([0, 3, 3, -1])), S(r(3, 4), np.array([1, 1, 0]), axis=1))
add("take_along_axis", S(r(3, 4), np.array([[0, 1], [3, 3], [2, 0]]), axis=1),
    S(r(3, 4), np.array([[0, 1, 2, 0]]), axis=0))

# --- searching, sorting, clipping ---------------------------------------------------------------
add("where", S(np.array([True, False, True]), r(3), r(2, 3)), S(np.array([[True], [False]]), r(2, 3), 0.5),
    S(np.array(False), 1.5, r(2)))
add("clip", S(distinct(3, 4), -1.0, 1.0), S(distinct(6), None, 0.5),
    S(distinct(2, 3, lo=-3, hi=3), distinct(3, lo=-5, hi=-4), distinct(2, 3, lo=0.05, hi=0.3)))
add("sort", S(distinct(5)), S(distinct(3, 4), axis=0), S(distinct(3, 4), descending=True, view=T))

# --- reductions -------------------------------------------------------------------------------
for _n in ("sum", "mean"):
    add(_n, S(r(3, 4)), S(r(3, 4), axis=1), S(r(2, 3, 4), axis=(0, 2), keepdims=True, view=T), S(r()))
add("sum", S(r(3, 4), axis=0, dtype=xp.float64), S(c(3, 2), axis=1))
add("mean", S(c(3, 2)))
add("prod", S(r(3, 4, lo=0.5, hi=1.5)), S(r(3, 4), axis=1),
    S(np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [1.2, 0.7, -1.1]]), axis=1),
    S(np.array([2.0, 0.0, 3.0, -1.5])), S(c(2, 3), axis=0))
add("max", S(distinct(3, 4)), S(distinct(3, 4), axis=1), S(distinct(2, 3, 4), axis=(0, 2), keepdims=True))
add("min", S(distinct(3, 4)), S(distinct(3, 4), axis=0, keepdims=True))
add("std", S(r(3, 4)), S(r(3, 4), axis=1, correction=1), S(r(2, 3, 4), axis=(0, 2), keepdims=True))
add("var", S(r(3, 4)), S(r(3, 4), axis=0, correction=1.0, keepdims=True), S(c(3, 4), axis=1))
add("cumulative_sum", S(r(5)), S(r(3, 4), axis=1), S(r(3, 4), axis=0, include_initial=True, view=NEG))
add("cumulative_prod", S(r(5, lo=0.5, hi=1.5)), S(r(3, 4), axis=1),
    S(np.array([1.5, 0.0, 2.0, -0.7, 1.1])), S(np.array([[0.5, 2.0, 0.0], [0.0, 1.2, 3.0], [1.1, 0.0, 0.0]]), axis=1),
    S(r(3, 4), axis=0, include_initial=True), S(c(4)))
add("diff", S(r(5)), S(r(3, 5), axis=0, n=2), S(r(2, 5), axis=1, prepend=r(2, 1), append=r(2, 2)))

# --- linear algebra ----------------------------------------------------------------------------
for _n in ("matmul", "linalg.matmul"):
    add(_n, S(r(3, 4), r(4, 2)), S(r(2, 3, 4), r(4, 2)), S(r(4), r(2, 4, 3)), S(r(3, 4), r(4)),
        S(r(4), r(4)), S(c(2, 3), c(3, 2)), S(r(1, 3, 4), r(2, 4, 2), view=T))
add("mm", S(r(3, 4), r(4, 2)))
add("bmm", S(r(2, 3, 4), r(2, 4, 2)))
add("dot", S(r(4), r(4)))
for _n in ("tensordot", "linalg.tensordot"):
    add(_n, S(r(2, 3, 4), r(3, 4, 2)), S(r(2, 3, 4), r(4, 3), axes=((1, 2), (1, 0))),
        S(r(2, 3), r(3, 2), axes=0))
for _n in ("vecdot", "linalg.vecdot"):
    add(_n, S(r(3, 4), r(4)), S(c(2, 3), c(2, 3)), S(r(3, 4), r(3, 4), axis=0))
for _n in ("outer", "linalg.outer"):
    add(_n, S(r(3), r(4)), S(c(2), c(3)))
add("linalg.cross", S(r(3), r(3)), S(r(2, 3), r(3)), S(r(3, 2), r(3, 2), axis=-2))
add("trace", S(r(3, 3)))
add("linalg.trace", S(r(2, 3, 3)), S(r(3, 4), offset=1))
add("linalg.diagonal", S(r(2, 3, 4)), S(r(3, 3), offset=-1))
add("linalg.inv", S(pd(3)), S(pd(2, (2,))), S(pd(2, dtype=np.complex128)))
add("linalg.det", S(pd(3)), S(pd(2, (3,))), S(pd(2, dtype=np.complex128)))
add("linalg.slogdet", S(pd(3)), S(-pd(3)), S(pd(2, dtype=np.complex128)))
add("linalg.solve", S(pd(3), r(3, 2)), S(pd(3), r(3)), S(pd(2, (2,)), r(2, 2, 1)),
    S(pd(2, dtype=np.complex128), c(2, 2)))


def _sym(t):
    return 0.5 * (t + ag_mH(t))


def ag_mH(t):
    return xp.conj(xp.matrix_transpose(t)) if t.dtype.kind == "c" else xp.matrix_transpose(t)


def _spd(t):
    n = t.shape[-1]
    return xp.matmul(t, ag_mH(t)) + n * xp.eye(n, dtype=t.dtype)


def _abs2(v):
    return xp.real(v * xp.conj(v)) if v.dtype.kind == "c" else v * v


add("linalg.cholesky", S(r(3, 3), view=_spd), S(r(2, 2, 2), view=_spd), S(r(3, 3), upper=True, view=_spd),
    S(c(2, 2), view=_spd))
add("linalg.qr", S(r(4, 3)), S(r(3, 3)), S(r(2, 4)), S(r(2, 3, 2)), S(c(3, 2)))
add("linalg.eigh", S(r(3, 3), view=_sym, post=lambda o: (o[0], _abs2(o[1]))),
    S(c(3, 3), view=_sym, post=lambda o: (o[0], _abs2(o[1]))))
add("linalg.eigvalsh", S(r(3, 3), view=_sym), S(r(2, 3, 3), view=_sym))
add("linalg.eig", S(r(3, 3), post=lambda o: (o[0], _abs2(o[1]))), S(c(2, 2), post=lambda o: (o[0], _abs2(o[1]))))
add("linalg.eigvals", S(r(3, 3)), S(c(3, 3)))
add("linalg.svd", S(r(3, 3), post=lambda o: (_abs2(o[0]), o[1], _abs2(o[2]))),
    S(r(4, 2), full_matrices=False, post=lambda o: (_abs2(o[0]), o[1], _abs2(o[2]))),
    S(r(2, 4), full_matrices=False, post=lambda o: (_abs2(o[0]), o[1], _abs2(o[2]))),
    S(r(4, 2), post=lambda o: (o[1], _abs2(o[2]))),
    S(c(3, 2), full_matrices=False, post=lambda o: (_abs2(o[0]), o[1], _abs2(o[2]))))
add("linalg.svdvals", S(r(3, 4)), S(r(2, 3, 2)), S(c(2, 3)))
add("linalg.pinv", S(r(3, 2)), S(r(2, 3)), S(pd(3)))
add("linalg.matrix_power", S(r(3, 3), 3), S(r(3, 3), 1), S(r(3, 3), 0), S(pd(3), -2))
add("linalg.matrix_norm", S(r(3, 4)), S(r(3, 4), ord="nuc"), S(r(3, 4), ord=2), S(r(3, 4), ord=-2),
    S(distinct(3, 4), ord=1), S(distinct(3, 4), ord=-1), S(distinct(3, 4), ord=math.inf),
    S(distinct(3, 4), ord=-math.inf), S(r(2, 3, 3), keepdims=True), S(c(2, 3)))
add("linalg.vector_norm", S(r(3, 4)), S(r(3, 4), axis=1, ord=1), S(distinct(3, 4), ord=math.inf),
    S(distinct(3, 4), ord=-math.inf, axis=0), S(r(3, 4), ord=3, keepdims=True, axis=(0, 1)),
    S(r(4), ord=0.5), S(c(3)), S(r(3, 4), ord=0))
add("einsum", S("ij,jk->ik", r(2, 3), r(3, 2)), S("ij->", r(2, 3)), S("i,j", r(3), r(2)),
    S("bij,bjk->bik", r(2, 2, 3), r(2, 3, 2)), S("...ij,jk", r(2, 2, 3), r(3, 2)),
    S("ij,j->i", r(2, 3), r(1)))

# --- fft ------------------------------------------------------------------------------------------
for _n in ("fft.fft", "fft.ifft"):
    add(_n, S(c(5)), S(r(2, 4)), S(c(6), n=4), S(c(3), n=5, norm="ortho"), S(c(2, 3), axis=0, norm="forward"))
for _n in ("fft.fftn", "fft.ifftn"):
    add(_n, S(c(2, 3)), S(r(2, 3, 2), axes=(0, 2)), S(c(3, 3), s=(2, 4), norm="ortho"))
add("fft.rfft", S(r(6)), S(r(5)), S(r(2, 5), n=4, axis=1), S(r(4), n=7, norm="ortho"), S(r(3, 2), axis=0, norm="forward"))
add("fft.irfft", S(c(4)), S(c(4), n=7), S(c(2, 3), n=3, norm="ortho"), S(c(3, 2), axis=0, norm="forward"))
add("fft.rfftn", S(r(3, 4)), S(r(2, 3, 3), axes=(0, 2)), S(r(3, 3), s=(2, 5), norm="ortho"))
add("fft.irfftn", S(c(3, 3)), S(c(2, 3), s=(3, 5)), S(c(2, 2, 3), axes=(0, 2), norm="forward"))
add("fft.hfft", S(c(4)), S(c(3), n=5, norm="ortho"))
add("fft.ihfft", S(r(5)), S(r(6), n=4, norm="forward"))
add("fft.fftshift", S(r(5)), S(r(3, 4), axes=1))
add("fft.ifftshift", S(r(5)), S(r(3, 4), axes=(0, 1)))

# --- namespace walk -----------------------------------------------------------------------------

# Public callables that never see a differentiable array argument, with the reason.
NO_ARRAY_INPUT = {
    **dict.fromkeys(["arange", "empty", "eye", "full", "linspace", "ones", "zeros",
                     "fft.fftfreq", "fft.rfftfreq"], "creation from Python values"),
    **dict.fromkeys(["empty_like", "full_like", "ones_like", "zeros_like"],
                    "creation: the result does not depend on the input's values (PyTorch: no grad)"),
    **dict.fromkeys(["asarray", "as_tensor", "from_numpy", "from_dlpack"],
                    "conversion: returns its input array itself or casts it through astype (recorded)"),
    "tensor": "copies and detaches, as torch.tensor does",
    **dict.fromkeys(["bernoulli", "multinomial", "normal", "rand", "rand_like", "randint",
                     "randint_like", "randn", "randn_like", "randperm", "manual_seed", "seed",
                     "initial_seed", "get_rng_state", "set_rng_state", "default_generator"],
                    "random sampling: the samples are not differentiable functions of the inputs"),
    **dict.fromkeys(["broadcast_shapes", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
                     "get_default_device", "get_default_dtype", "set_default_device",
                     "set_default_dtype"], "dtype, device and shape utilities"),
    **dict.fromkeys(["load", "save"], "serialization"),
    "is_grad_enabled": "grad-mode query (strided.autograd's, also at the top level like torch's)",
    **dict.fromkeys(["empty_cache", "memory_stats", "set_cache_limit", "get_cache_limit",
                     "set_pool_threshold", "get_pool_threshold", "set_num_threads",
                     "get_num_threads", "set_thread_threshold", "get_thread_threshold"],
                    "buffer pool and thread settings"),
}
# Public callables that are thin aliases of recorded functions (their gradient is checked
# through SAMPLES like any other function).
ALIASES = {"cat": "concat", "movedim": "moveaxis", "swapdims": "permute_dims", "t": "t",
           "transpose": "permute_dims", "unsqueeze": "expand_dims"}


def namespace_functions() -> dict:
    """name -> function for every public function of strided, strided.linalg, strided.fft."""
    out = {}
    for n in dir(xp):
        f = getattr(xp, n)
        if n.startswith("_") or isinstance(f, (types.ModuleType, type)) or not callable(f):
            continue
        if isinstance(f, (xp.DType, xp.Device)) or getattr(f, "_composite", False):
            continue  # composites (strided.torch._composites) record through the functions they call
        out[n] = f
    for mod, pre in ((xp.linalg, "linalg."), (xp.fft, "fft.")):
        for n in mod.__all__:
            f = getattr(mod, n)
            if not isinstance(f, type):
                out[pre + n] = f
    return out


def _key(name, f):
    if hasattr(f, "_row"):
        return f._row.name
    return getattr(f, "_api_name", None)


def test_every_function_is_classified():
    missing = []
    for name, f in namespace_functions().items():
        key = _key(name, f)
        if name in NO_ARRAY_INPUT or name in ALIASES:
            continue
        if key is None:
            missing.append(f"{name} (not dispatched: autograd can't see it)")
        elif lookup(key) is None and key not in ag.NONDIFF and key.rsplit(".", 1)[-1] not in ag.NONDIFF:
            missing.append(f"{name} (dispatched as {key!r}: no rule and not declared non-differentiable)")
    assert not missing, "functions autograd does not cover:\n" + "\n".join(missing)


def test_registry_rows_are_covered():
    """Every elementwise registry row has a rule or a reason; floating rows have rules."""
    for name, row in REGISTRY.items():
        assert (name in ag.RULES) != (name in ag.NONDIFF), name
        if row.category in ("floating-point", "real floating-point") and row.result != "bool":
            assert name in ag.RULES, name


def _differentiable():
    out = {}
    for name, f in namespace_functions().items():
        key = _key(name, f)
        if name in ALIASES or (key is not None and lookup(key) is not None):
            out[name] = f
    return out


DIFFERENTIABLE = _differentiable()


def test_every_rule_has_samples():
    assert sorted(set(DIFFERENTIABLE) - set(SAMPLES) - {"getitem", "setitem"}) == []
    assert sorted(set(SAMPLES) - set(DIFFERENTIABLE) - {"getitem", "setitem"}) == []


def test_rule_count():
    """The count quoted in the notes: namespace functions with a derivative rule."""
    assert len(DIFFERENTIABLE) >= 140


def func_of(name):
    if name == "getitem":
        return _getitem
    if name == "setitem":
        return _setitem
    return namespace_functions()[name]


CASES = [(n, i) for n in sorted(SAMPLES) for i in range(len(SAMPLES[n]))]


@pytest.mark.parametrize("name,i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_gradcheck(name, i):
    s = SAMPLES[name][i]
    f, inputs = build(func_of(name), s)
    assert ag.gradcheck(f, inputs)


# Second derivatives: a representative subset (elementwise, reductions, views,
# indexing, linear algebra, fft), first sample of each.
GRADGRAD = ["exp", "log", "sin", "tanh", "sqrt", "pow", "multiply", "divide", "maximum", "abs",
            "atan2", "logaddexp", "sum", "mean", "prod", "max", "std", "var", "cumulative_prod",
            "cumulative_sum", "reshape", "permute_dims", "getitem", "setitem", "concat", "stack",
            "where", "clip", "take", "matmul", "tensordot", "vecdot", "linalg.inv", "linalg.det",
            "linalg.solve", "linalg.cholesky", "linalg.vector_norm", "linalg.matrix_norm",
            "fft.fft", "fft.rfft", "fft.irfft", "tile", "repeat", "sort", "diff", "einsum",
            "linalg.eigh", "linalg.qr", "linalg.svdvals"]


@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(name):
    f, inputs = build(func_of(name), SAMPLES[name][0])
    assert ag.gradgradcheck(f, inputs, atol=1e-4, rtol=1e-3)


# --- against PyTorch ------------------------------------------------------------------------------

try:
    import torch
except ImportError:  # pragma: no cover - torch is installed in our environment
    torch = None

TORCH_NAMES = {n: n for n in list(UNARY_REAL) + UNARY_COMPLEX + list(BINARY)
               + ["ceil", "floor", "round", "trunc", "sign", "relu"]}
TORCH_NAMES.update(negative="neg", positive="positive", sign="sgn", conj="conj_physical")
del TORCH_NAMES["nextafter"]  # PyTorch has no derivative for nextafter
del TORCH_NAMES["floor_divide"]  # nor for floor_divide
TORCH_CASES = [(n, i) for n in sorted(TORCH_NAMES) for i, s in enumerate(SAMPLES[n])
               if s.view is None and all(isinstance(a, (np.ndarray, float, int)) for a in s.args)]


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
@pytest.mark.parametrize("name,i", TORCH_CASES, ids=[f"{n}-{i}" for n, i in TORCH_CASES])
def test_elementwise_gradients_match_torch(name, i):
    s = SAMPLES[name][i]
    tf = torch.nn.functional.silu if name == "silu" else getattr(torch, TORCH_NAMES[name])
    ours = [xp.asarray(a.copy(), requires_grad=True) if _is_diff(a) else a for a in s.args]
    theirs = [torch.tensor(a.copy(), requires_grad=True) if _is_diff(a) else a for a in s.args]
    if name in ("maximum", "minimum"):  # torch takes tensors only
        theirs = [t if isinstance(t, torch.Tensor) else torch.tensor(t, dtype=torch.float64)
                  for t in theirs]
    yo = func_of(name)(*ours)
    yt = tf(*theirs)
    u = RNG.standard_normal(tuple(yt.shape))
    if yt.is_complex():
        u = u + 1j * RNG.standard_normal(tuple(yt.shape))
    yo.backward(xp.asarray(u.astype(yo.dtype._np)))
    yt.backward(torch.tensor(u, dtype=yt.dtype))
    for a, b in zip(ours, theirs):
        if isinstance(a, xp.Array):
            np.testing.assert_allclose(a.grad._host(), b.grad.numpy(force=True), rtol=1e-10, atol=1e-12)
