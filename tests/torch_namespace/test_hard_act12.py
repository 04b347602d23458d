"""hardsigmoid and hardswish of an array with nothing for autograd or names to follow run in
one compiled pass (``_ckernels.act`` ops 5 and 6) instead of the composite's where's. The pass
must be the composite, bit for bit: the reference is the composite itself (the same call on an
array that requires grad, which takes it) and the where's written in NumPy; PyTorch's values
agree to rounding (PyTorch computes ``relu6(x + 3) / 6``, strided ``x / 6 + 0.5``)."""

from __future__ import annotations

import numpy as np
import pytest
try:  # (PyTorch, a reference where installed: CI's 3.12 leg has none)
    import torch
except ImportError:
    torch = None
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided.torch as st
import strided.torch.nn.functional as F

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_SPECIAL = [-3.0, 3.0, -0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 2.9999998, -3.0000002, 1e-30, -1e30]


def _numpy(name, v):
    dt = v.dtype.type
    with np.errstate(all="ignore"):
        if name == "hardsigmoid":
            return np.where(v <= -3.0, dt(0), np.where(v >= 3.0, dt(1), v / dt(6) + dt(0.5)))
        return np.where(v <= -3.0, v * dt(0), np.where(v >= 3.0, v, v * (v + dt(3)) / dt(6)))


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), n=hs.integers(0, 3000), dt=hs.sampled_from([np.float32, np.float64]),
       name=hs.sampled_from(["hardsigmoid", "hardswish"]), step=hs.sampled_from([1, 1, 3]))
def test_one_pass_is_the_composite(seed, n, dt, name, step):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 5).astype(dt)
    a[: min(n, len(_SPECIAL))] = np.array(_SPECIAL, dt)[: min(n, len(_SPECIAL))]
    a = a[::step]
    x = st.asarray(a, device="cpu")
    before = a.tobytes()
    got = getattr(F, name)(x)
    ref = getattr(F, name)(st.asarray(a, device="cpu").requires_grad_()).detach()  # the composite
    g = np.asarray(got)
    assert got.dtype == x.dtype and g.tobytes() == np.asarray(ref).tobytes()
    assert g.tobytes() == _numpy(name, a).tobytes()
    assert np.asarray(x).tobytes() == before
    if torch is not None:
        fin = np.isfinite(a)
        t = getattr(torch.nn.functional, name)(torch.from_numpy(a.copy())).numpy()
        np.testing.assert_allclose(g[fin], t[fin], rtol=2e-7 if dt == np.float32 else 1e-15,
                                   atol=1e-7 if dt == np.float32 else 1e-16)


@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish"])
def test_large_threaded_in_place_and_gradients_unchanged(name, nthreads):
    a = np.random.default_rng(3).standard_normal(300_001).astype(np.float32) * 5
    x = st.asarray(a, device="cpu")
    assert np.asarray(getattr(F, name)(x)).tobytes() == _numpy(name, a).tobytes()
    b = a[:1000].copy()
    y = st.asarray(b.copy(), device="cpu")
    v = y._version
    r = getattr(F, name)(y, inplace=True)
    assert r is y and y._version > v and np.asarray(y).tobytes() == _numpy(name, b).tobytes()
    if torch is None:
        return
    w = st.asarray(a[:50].astype(np.float64), device="cpu").requires_grad_()
    getattr(F, name)(w).sum().backward()
    tw = torch.from_numpy(a[:50].astype(np.float64)).requires_grad_()
    getattr(torch.nn.functional, name)(tw).sum().backward()
    # (PyTorch's float64 hardsigmoid gradient is float32(1/6): agreement to float32 rounding)
    np.testing.assert_allclose(np.asarray(w.grad), tw.grad.numpy(), rtol=1e-7, atol=1e-15)
