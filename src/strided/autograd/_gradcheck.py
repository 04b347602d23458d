"""Numerical gradient checks: analytic (autograd) against central differences in float64.

>>> import strided as xp
>>> x = xp.tensor([0.3, 1.2], dtype=xp.float64, requires_grad=True)
>>> xp.autograd.gradcheck(lambda t: xp.sin(t) * t, (x,))
True
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import Array
from ._mode import no_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytic and numerical gradients disagree."""


def _wide(a: Array) -> Array:
    from .. import astype
    d = _dtypes.complex128 if a._dtype.kind == "c" else _dtypes.float64
    with no_grad():
        c = astype(a.detach(), d, copy=True)
    return c.requires_grad_(True)


def _prepare(inputs):
    if type(inputs) is Array:
        inputs = (inputs,)
    return tuple(_wide(a) if type(a) is Array and a.requires_grad else a for a in inputs)


def _outputs(res):
    items = res if isinstance(res, (tuple, list)) else (res,)
    return [o for o in items if type(o) is Array and o._dtype.kind in "fc"]


def _random_like(o: Array, rng) -> np.ndarray:
    v = rng.standard_normal(o._shape)
    if o._dtype.kind == "c":
        v = v + 1j * rng.standard_normal(o._shape)
    return np.asarray(v, dtype=o._dtype._np)


def _loss(fn, xs, us) -> float:
    outs = _outputs(fn(*xs))  # with grad mode on: fn may itself differentiate (gradgradcheck)
    total = 0.0
    for o, u in zip(outs, us):
        total += float(np.real(np.sum(np.conj(u) * o._host())))
    return total


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              n_directions=2, seed=0) -> bool:
    """Compare ``fn``'s autograd gradients with central differences, in float64.

    The inputs that require grad are copied to float64 (complex128). For
    ``n_directions`` random output directions ``u`` the analytic gradient of
    ``L = sum(real(conj(u) * fn(*inputs)))`` is compared element by element
    with ``(L(x + eps e) - L(x - eps e)) / (2 eps)`` (and ``i eps`` for
    complex inputs, PyTorch's convention ``dL/da + i dL/db``).
    """
    from . import grad
    from .. import asarray
    xs = _prepare(inputs)
    diff = [i for i, a in enumerate(xs) if type(a) is Array and a.requires_grad]
    if not diff:
        raise ValueError("gradcheck(): no input requires grad")
    rng = np.random.default_rng(seed)
    for _ in range(n_directions):
        outs = _outputs(fn(*xs))
        if not outs:
            raise ValueError("gradcheck(): fn returned no floating-point array")
        us = [_random_like(o, rng) for o in outs]
        live = [(o, u) for o, u in zip(outs, us) if o.requires_grad]
        if live:
            analytic = grad([o for o, _ in live],
                            [xs[i] for i in diff],
                            [asarray(u, device=o._device) for o, u in live], allow_unused=True)
        else:
            analytic = [None] * len(diff)
        for k, i in enumerate(diff):
            x = xs[i]
            a = analytic[k]
            if a is not None and (a._shape != x._shape or a._dtype is not x._dtype):
                return _fail(raise_exception, f"input {i}: gradient has shape {a._shape} and dtype "
                                              f"{a._dtype.name}; expected {x._shape} and {x._dtype.name}")
            an = np.zeros(x._shape, dtype=x._dtype._np) if a is None else a._host()
            num = _numeric(fn, xs, us, x, eps)
            bad = ~(np.abs(an - num) <= atol + rtol * np.abs(num))
            if bad.any():
                j = np.unravel_index(int(np.argmax(np.abs(an - num) * bad)), x._shape) if x._shape else ()
                return _fail(raise_exception,
                             f"gradcheck failed for input {i} (shape {tuple(x._shape)}): analytic "
                             f"{an[j]!r} vs numerical {num[j]!r} at index {j}; max abs error "
                             f"{float(np.max(np.abs(an - num))):.3g}\nanalytic:\n{an}\nnumerical:\n{num}")
    return True


def _numeric(fn, xs, us, x, eps):
    nat = x._get_native()
    flat = nat.reshape(-1)
    out = np.zeros(flat.shape, dtype=x._dtype._np)
    steps = (eps, 1j * eps) if x._dtype.kind == "c" else (eps,)
    for j in range(flat.shape[0]):
        orig = flat[j].item()
        val = 0
        for s in steps:
            flat[j] = orig + s
            hi = _loss(fn, xs, us)
            flat[j] = orig - s
            lo = _loss(fn, xs, us)
            flat[j] = orig
            d = (hi - lo) / (2 * eps)
            val = val + (d if s == eps else 1j * d)
        out[j] = val
    return out.reshape(x._shape)


def _fail(raise_exception, msg):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradgradcheck(fn, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, n_directions=2, seed=0) -> bool:
    """``gradcheck`` of the first derivatives: checks second derivatives (``create_graph=True``)."""
    from . import grad
    from .. import asarray
    xs = _prepare(inputs)
    diff = [i for i, a in enumerate(xs) if type(a) is Array and a.requires_grad]
    outs = _outputs(fn(*xs))
    rng = np.random.default_rng(seed + 1)
    if grad_outputs is None:
        us = [_wide(asarray(_random_like(o, rng), device=o._device)) for o in outs]
    else:
        us = [_wide(u) for u in grad_outputs]
    n = len(xs)

    def first(*args):
        ins, gos = args[:n], args[n:]
        o = _outputs(fn(*ins))
        live = [(a, b) for a, b in zip(o, gos) if a.requires_grad]
        gs = grad([a for a, _ in live], [ins[i] for i in diff], [b for _, b in live],
                  create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first, tuple(xs) + tuple(us), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, n_directions=n_directions, seed=seed)
