"""Run one program through PyTorch and through strided.torch and compare values and grads.

``build(lib, T, rng)`` writes the program once: ``lib`` is ``torch`` or
``strided.torch``, ``T(numpy_array, grad=False)`` makes an array of that
library (floats in the case's dtype; ``grad=True`` makes it a leaf that
requires grad), ``rng`` is a NumPy generator seeded the same for both runs.
"""

from __future__ import annotations

import numpy as np
import pytest

import strided
import strided.torch as storch

# (a module that imports this one is skipped where PyTorch is not installed: the CPython 3.12 leg)
torch = pytest.importorskip("torch")

TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-11, atol=1e-13)}


def to_numpy(x):
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x.detach().to_device("cpu"))


def run(build, dtype="float64", seed=0, backward=True):
    results = []
    for lib in (torch, storch):
        rng = np.random.default_rng(seed)
        leaves = []

        def T(a, grad=False, lib=lib, leaves=leaves):
            a = np.asarray(a)
            if a.dtype.kind == "f":
                a = a.astype(dtype)
            t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
            if grad:
                t.requires_grad_()
                leaves.append(t)
            return t

        out = build(lib, T, rng)
        grads = []
        if backward and leaves:
            w = np.random.default_rng(seed + 100).standard_normal(tuple(out.shape))
            (out * T(w)).sum().backward()
            grads = [to_numpy(t.grad) if t.grad is not None else None for t in leaves]
        results.append((to_numpy(out), grads, out))
    return results


def check(build, dtype="float64", seed=0, backward=True, tol=None):
    (rv, rg, rout), (sv, sg, sout) = run(build, dtype, seed, backward)
    tol = tol or TOL[dtype]
    assert str(sout.dtype) == str(rout.dtype).removeprefix("torch."), (sout.dtype, rout.dtype)
    assert tuple(sout.shape) == tuple(rout.shape)
    np.testing.assert_allclose(sv, rv, **tol, err_msg="values")
    assert len(sg) == len(rg)
    for i, (a, b) in enumerate(zip(sg, rg)):
        assert (a is None) == (b is None), f"grad {i}: one is None"
        if a is not None:
            np.testing.assert_allclose(a, b, **tol, err_msg=f"grad of leaf {i}")
    return sout, rout
