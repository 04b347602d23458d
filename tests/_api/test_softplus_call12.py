"""softplus's NumPy steps in one compiled call (``_ckernels.softplus_run``; activations.py,
``_softplus_one_call``): ``bx = x * beta``, ``log1p(exp(bx)) / beta``, ``x`` where
``bx > threshold``. The reference is those steps written with NumPy, bit for bit (NaN payloads,
infinities, both zeros, the threshold's neighbours), through the row (``strided.softplus`` and
``F.softplus``) for every parameter the call takes; PyTorch agrees to rounding."""

from __future__ import annotations

import numpy as np
try:  # (PyTorch, a reference where installed: CI's 3.12 leg has none)
    import torch
except ImportError:
    torch = None
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
import strided.torch.nn.functional as F

from conftest import host
import pytest

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _steps(a, beta, threshold):
    with np.errstate(all="ignore"):
        bx = a * beta
        r = np.log1p(np.exp(bx))
        r /= beta
        return np.where(bx > threshold, a, r)


@settings(max_examples=60, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), n=hs.integers(0, 2000), dt=hs.sampled_from([np.float32, np.float64]),
       beta=hs.sampled_from([1.0, 2.0, 0.1, 3, -1.5, 1e-3]), threshold=hs.sampled_from([20.0, 5.0, 0.0, 7, -2.5]),
       scale=hs.sampled_from([1.0, 30.0, 1e3]), step=hs.sampled_from([1, 1, 2]))
def test_one_call_is_the_steps(seed, n, dt, beta, threshold, scale, step):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * scale).astype(dt)
    special = np.array([np.nan, -np.inf, np.inf, 0.0, -0.0, threshold / beta if beta else 0.0], dt)
    a[: min(n, special.size)] = special[: min(n, special.size)]
    a = a[::step]
    x = xp.asarray(a, device="cpu")
    before = a.tobytes()
    got = host(xp.softplus(x, beta=beta, threshold=threshold))
    assert got.dtype == a.dtype and got.tobytes() == _steps(a, dt(beta), dt(threshold)).tobytes()
    assert host(x).tobytes() == before
    g2 = host(F.softplus(x, beta, threshold))
    assert g2.tobytes() == got.tobytes()
    if torch is not None:
        fin = np.isfinite(a)
        t = torch.nn.functional.softplus(torch.from_numpy(a.copy()), beta, threshold).numpy()
        np.testing.assert_allclose(got[fin], t[fin], rtol=5e-6 if dt == np.float32 else 1e-12, atol=1e-30)
