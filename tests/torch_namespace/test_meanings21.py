"""PyTorch words that meant something else in strided.torch, against PyTorch 2.13: ``torch.norm``'s
``p``/``dim`` combinations, ``copy.deepcopy`` of non-leaves, lazy (uninitialized) parameters,
inference tensors, ``F.embedding``'s index dtype, ``nn.init`` on empty tensors, a parameter's
repr, and a differential sweep of the Tensor methods a training script calls."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import to_numpy


def _both(arr):
    return torch.tensor(arr), storch.tensor(arr)


def _outcome(lib, fn):
    """("ok", numpy value, dtype name) or ("err", exception type name, message)."""
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 (compared with the other library's)
        return ("err", type(e).__name__, str(e))
    return ("ok", to_numpy(r), str(r.dtype).split(".")[-1])


def _same(fn, rtol=1e-5, atol=1e-6, fragment=True):
    t, s = _outcome(torch, fn), _outcome(storch, fn)
    assert t[0] == s[0], (t, s)
    if t[0] == "err":
        assert s[1] == t[1], (t, s)
        if fragment:  # PyTorch's message, less its leading "op: " name, is in strided's
            assert t[2].split(": ", 1)[-1][:40] in s[2], (t, s)
    else:
        assert s[2] == t[2], (t, s)
        assert s[1].shape == t[1].shape, (t, s)
        np.testing.assert_allclose(s[1], t[1], rtol=rtol, atol=atol)


# --- 1. torch.norm ------------------------------------------------------------------------------

_P = ["fro", "nuc", 1, 2, 0, 3.5, math.inf, -math.inf, None, "abc"]
_DIMS = [None, 0, -1, (0,), [1, 0], (0, 1), (0, 1, 2), (0, -3), (0, 5)]


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("p", _P)
@pytest.mark.parametrize("dim", _DIMS)
def test_norm_p_dim_combinations(shape, p, dim):
    a = np.random.default_rng(0).standard_normal(shape)
    for keepdim in (False, True):
        _same(lambda lib: lib.norm(lib.tensor(a), p, dim, keepdim))
        _same(lambda lib: lib.tensor(a.astype("float32")).norm(p=p, dim=dim, keepdim=keepdim))


@pytest.mark.parametrize("p", ["fro", "nuc", 2, math.inf])
@pytest.mark.parametrize("dtype_in,dtype", [("float32", "float64"), ("float64", "complex128"),
                                            ("complex64", None), ("complex64", "complex128"),
                                            ("complex64", "float32"), ("int64", None),
                                            ("int64", "float32")])
def test_norm_dtype(p, dtype_in, dtype):
    a = np.random.default_rng(1).standard_normal((3, 4)) * 3
    a = (a + 1j * a[::-1]) if dtype_in.startswith("complex") else a
    a = a.astype(dtype_in)

    def f(lib):
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        return lib.norm(lib.tensor(a), p, **kw)
    _same(f)


def test_norm_fro_over_three_dims_raises_as_pytorch():
    x = storch.ones(2, 3, 4)
    assert float(storch.norm(x)) == pytest.approx(math.sqrt(24))  # (dim=None: the 2-norm of all)
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple. Got 0 1 2"):
        storch.norm(x, dim=(0, 1, 2))
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        storch.norm(x, "nuc")
    with pytest.raises(RuntimeError, match="dims must be different"):
        storch.norm(storch.ones(2, 3), "nuc", (1, -1))


@pytest.mark.parametrize("p,dim", [("fro", None), ("fro", (0, 1)), ("nuc", None), (3, 1),
                                   (math.inf, (0, 1)), (1, None)])
def test_norm_gradient_and_out(p, dim):
    a = np.random.default_rng(2).standard_normal((3, 4))
    t = torch.tensor(a, requires_grad=True)
    s = storch.tensor(a, requires_grad=True)
    rt, rs = torch.norm(t, p, dim), storch.norm(s, p, dim)
    (rt * torch.arange(rt.numel(), dtype=rt.dtype).reshape(rt.shape)).sum().backward()
    (rs * storch.arange(rs.numel(), dtype=rs.dtype).reshape(rs.shape)).sum().backward()
    np.testing.assert_allclose(to_numpy(rs), rt.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(to_numpy(s.grad), t.grad.numpy(), rtol=1e-9, atol=1e-12)
    out_t, out_s = torch.empty(rt.shape, dtype=torch.float64), storch.empty(rs.shape, dtype=storch.float64)
    torch.norm(t.detach(), p, dim, False, out_t)  # (the fifth positional is out, as PyTorch's)
    storch.norm(s.detach(), p, dim, False, out_s)
    np.testing.assert_allclose(to_numpy(out_s), out_t.numpy(), rtol=1e-10)
