"""softmax and log_softmax along the last axis in one compiled call (``_ckernels.softmax_rows``)
for arrays autograd and names do not follow: the composites' operations in their order (max,
subtract, strided's exp loop, NumPy's pairwise row sum, divide; log_softmax: (x - m) - log(s)).
References: the composite itself (the same call on an array that requires grad takes it) and
the same steps written with NumPy, bit for bit; PyTorch's values to rounding. Rows whose
maximum is NaN or infinite, other axes and other layouts run the composite."""

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


def _numpy(name, a):
    with np.errstate(all="ignore"):
        m = np.max(a, axis=-1, keepdims=True)
        if name == "softmax":
            e = np.exp(a - m)
            return e / np.add.reduce(e, axis=-1, keepdims=True)
        t = a - m  # (PyTorch's: a row whose maximum is +inf is NaN throughout)
        return t - np.log(np.add.reduce(np.exp(t), axis=-1, keepdims=True))


def _composite(name, a, dim):
    return np.asarray(getattr(F, name)(st.asarray(a, device="cpu").requires_grad_(), dim=dim).detach())


@settings(max_examples=60, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), rows=hs.integers(1, 40), cols=hs.integers(1, 300),
       lead=hs.sampled_from([(), (2,)]), dt=hs.sampled_from([np.float32, np.float64]),
       name=hs.sampled_from(["softmax", "log_softmax"]), scale=hs.sampled_from([1.0, 30.0, 1e4]))
def test_fused_is_the_composite(seed, rows, cols, lead, dt, name, scale):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(lead + (rows, cols)) * scale).astype(dt)
    if cols > 2:
        a[..., 0, 1] = -np.inf  # (a finite maximum beside it: exp gives 0)
        a[..., -1, :] = a[..., -1, :1]  # a row of equal values
    before = a.tobytes()
    x = st.asarray(a, device="cpu")
    for dim in (-1, a.ndim - 1):
        g = np.asarray(getattr(F, name)(x, dim=dim))
        assert g.dtype == a.dtype and g.tobytes() == _composite(name, a, dim).tobytes(), (name, dim)
        assert g.tobytes() == _numpy(name, a).tobytes()
    assert np.asarray(x).tobytes() == before
    if torch is not None:
        fin = np.isfinite(a)
        t = getattr(torch.nn.functional, name)(torch.from_numpy(a.copy()), dim=-1).numpy()
        tol = 3e-6 if dt == np.float32 else 1e-13
        np.testing.assert_allclose(g[fin], t[fin], rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_rows_the_composite_keeps_and_other_axes(name, dt):
    a = np.random.default_rng(1).standard_normal((6, 9)).astype(dt)
    a[1, 3] = np.nan
    a[2, 4] = np.inf
    a[3] = -np.inf
    x = st.asarray(a, device="cpu")
    g = np.asarray(getattr(F, name)(x, dim=-1))
    assert g.tobytes() == _composite(name, a, -1).tobytes()
    np.testing.assert_array_equal(np.isnan(g), np.isnan(_numpy(name, a)))
    if torch is not None:
        t = getattr(torch.nn.functional, name)(torch.from_numpy(a.copy()), dim=-1).numpy()
        np.testing.assert_array_equal(np.isnan(g), np.isnan(t))
    for dim, v in ((0, a), (-1, a[:, ::2]), (-1, a.T)):  # other axes, other layouts
        y = st.asarray(v, device="cpu") if v is a else st.asarray(a, device="cpu")[:, ::2] if v.shape[1] == 5 \
            else st.asarray(a, device="cpu").T
        assert np.asarray(getattr(F, name)(y, dim=dim)).tobytes() == _composite(name, np.ascontiguousarray(v), dim).tobytes()


def test_large_and_grad_and_dtype_keyword(nthreads):
    a = np.random.default_rng(2).standard_normal((300, 1200)).astype(np.float32)  # over the thread threshold
    x = st.asarray(a, device="cpu")
    assert np.asarray(F.softmax(x, dim=-1)).tobytes() == _numpy("softmax", a).tobytes()
    assert np.asarray(F.log_softmax(x, dim=1, dtype=st.float64)).tobytes() == _numpy("log_softmax", a.astype(np.float64)).tobytes()
    if torch is None:
        return
    w = st.asarray(a[:4, :7].astype(np.float64), device="cpu").requires_grad_()
    (F.log_softmax(w, dim=-1) * st.arange(7.0, device="cpu")).sum().backward()
    tw = torch.from_numpy(a[:4, :7].astype(np.float64)).requires_grad_()
    (torch.nn.functional.log_softmax(tw, dim=-1) * torch.arange(7.0)).sum().backward()
    np.testing.assert_allclose(np.asarray(w.grad), tw.grad.numpy(), rtol=1e-12, atol=1e-14)
