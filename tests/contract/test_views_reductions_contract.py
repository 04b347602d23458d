"""Contract tests for a few non-elementwise ops: reductions and views, through their
doors (namespace function, method, NumPy function), on Hypothesis inputs: values and dtype
as NumPy (PyTorch for a method PyTorch has), names kept by rule, a graph kept, inputs
unchanged, and views sharing the Storage that owns their memory (a write through one bumps
that Storage's version counter)."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)
from hypothesis import HealthCheck, given, settings, strategies as st

import strided as xp
from conftest import host

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
NAMES = ("A", "B", "C")


@st.composite
def _array(draw):
    shape = draw(st.sampled_from([(3,), (2, 3), (2, 1, 3), (3, 2)]))
    dt = draw(st.sampled_from([np.float32, np.float64]))
    seed = draw(st.integers(0, 2**16))
    v = np.random.default_rng(seed).uniform(-3, 3, shape).astype(dt)
    axis = draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    named = draw(st.booleans())
    return v, axis, named


REDUCTIONS = ["sum", "prod", "mean", "max", "min", "var", "std"]


@pytest.mark.parametrize("name", REDUCTIONS)
@SETTINGS
@given(_array())
def test_reductions_keep_the_rules(name, case):
    v, axis, named = case
    x = xp.asarray(v.copy())
    if named:
        x = x.rename(*NAMES[3 - v.ndim:])
    before = host(x).tobytes()
    want = getattr(np, name)(v, axis=axis)
    tol = 1e-5 if v.dtype == np.float32 else 1e-12
    for door, got in [("function", getattr(xp, name)(x, axis=axis)),
                      ("numpy", getattr(np, name)(x.rename(None) if named else x, axis=axis))]:
        g = host(got.rename(None) if got.names and any(got.names) else got)
        assert g.dtype == want.dtype, (door, g.dtype, want.dtype)
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol, err_msg=door)
    r = getattr(xp, name)(x, axis=axis)
    if named:
        kept = () if axis is None else tuple(n for i, n in enumerate(NAMES[3 - v.ndim:])
                                             if i != axis % v.ndim)
        assert tuple(r.names) == kept
    # the PyTorch method (its defaults: std/var unbiased, max/min over dim give (values, indices))
    if axis is not None and name in ("sum", "prod", "mean"):
        t = getattr(torch.from_numpy(v.copy()), name)(dim=axis)
        m = getattr(x.rename(None) if named else x, name)(dim=axis)
        np.testing.assert_allclose(host(m), t.numpy(), rtol=tol, atol=tol)
    assert host(x).tobytes() == before
    # a graph is kept
    w = xp.asarray(v.copy(), requires_grad=True)
    assert getattr(xp, name)(w, axis=axis).requires_grad


VIEWS = {
    "T (mT)": (lambda a: a.mT if a.ndim >= 2 else a[::-1], lambda n: np.swapaxes(n, -1, -2) if n.ndim >= 2 else n[::-1]),
    "permute_dims": (lambda a: xp.permute_dims(a, tuple(reversed(range(a.ndim)))), lambda n: n.transpose()),
    "reshape": (lambda a: xp.reshape(a, (-1,)), lambda n: n.reshape(-1)),
    "flip": (lambda a: xp.flip(a, axis=0), lambda n: np.flip(n, axis=0)),
    "expand_dims": (lambda a: xp.expand_dims(a, axis=0), lambda n: n[None]),
    "slice": (lambda a: a[..., ::2], lambda n: n[..., ::2]),
    "unfold": (lambda a: a.unfold(-1, 2, 1), None),
    "diagonal": (lambda a: xp.linalg.diagonal(a) if a.ndim >= 2 else a, lambda n: np.diagonal(n, axis1=-2, axis2=-1) if n.ndim >= 2 else n),
}


@pytest.mark.parametrize("name", VIEWS)
@SETTINGS
@given(_array())
def test_views_share_the_owners_storage(name, case):
    v, _, _ = case
    make, ref = VIEWS[name]
    base = xp.asarray(v.copy())
    r = make(base)
    if ref is not None:
        np.testing.assert_array_equal(host(r), ref(v))
    else:  # unfold: torch's
        np.testing.assert_array_equal(host(r), torch.from_numpy(v.copy()).unfold(-1, 2, 1).numpy())
    assert r.storage() is base.storage()
    v0 = base._version
    overlapping = name == "unfold"
    if overlapping:
        with pytest.raises(RuntimeError, match="single memory location"):
            r[...] = 0.5
        assert base._version == v0
    else:
        r[...] = 0.5
        assert base._version > v0
        assert (host(base) == 0.5).sum() == r.size
