"""An empty ``dim`` (``dim=()``, ``dim=[]``) means what PyTorch means by it.

PyTorch 2.13 reduces *every* dimension for ``sum``, ``mean``, ``amax``, ``amin``,
``nansum``, ``nanmean``, ``std``, ``var``, ``std_mean``, ``var_mean``, ``count_nonzero``
and ``norm`` given an empty dim, and *none* for ``all``/``any`` (as the standard's
``axis=()`` does). strided took an empty dim as "no dimension" everywhere: a silently
unreduced result. The reference is PyTorch itself, through each door: strided.torch's
function, the method, and the standard namespace's ``dim=`` keyword. The standard's
``axis=()`` keeps its meaning (no dimension).
"""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
import strided.torch as st

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

torch = pytest.importorskip("torch")

NAMES = ["sum", "mean", "amax", "amin", "nansum", "nanmean", "std", "var", "all", "any",
         "count_nonzero", "norm", "var_mean", "std_mean"]


def _inputs(name):
    a = np.arange(24.0).reshape(2, 3, 4) - 7.5
    if name in ("all", "any"):
        a = a > 0
    return xp.asarray(a, device="cpu"), torch.from_numpy(a.copy())


def _first(r):
    return r[0] if isinstance(r, tuple) else r


def _check(got, want, what):
    got, want = _first(got), _first(want)
    assert tuple(got.shape) == tuple(want.shape), (what, tuple(got.shape), tuple(want.shape))
    np.testing.assert_allclose(np.asarray(xp.asarray(got, device="cpu"), dtype=float), want.double().numpy(),
                               rtol=1e-12, err_msg=str(what))


@pytest.mark.parametrize("name,keepdim", [(n, k) for n in NAMES for k in (None, False, True)
                                          if k is None or n != "count_nonzero"])  # (no keepdim)
@pytest.mark.parametrize("dim", [(), []], ids=["tuple", "list"])
def test_strided_torch_function_and_method(name, dim, keepdim):
    x, t = _inputs(name)
    kw = {"dim": dim} if keepdim is None else {"dim": dim, "keepdim": keepdim}
    want = getattr(torch, name)(t, **kw)
    _check(getattr(st, name)(x, **kw), want, ("strided.torch", name, kw))
    if hasattr(x, name):
        _check(getattr(x, name)(**kw), want, ("method", name, kw))


@pytest.mark.parametrize("name", ["sum", "mean", "all", "any", "std", "var"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_the_namespace_dim_keyword_is_pytorchs_and_axis_the_standards(name, keepdim):
    x, t = _inputs(name)
    extra = {"correction": 1} if name in ("std", "var") else {}
    want = getattr(torch, name)(t, dim=(), keepdim=keepdim)
    _check(getattr(xp, name)(x, dim=(), keepdim=keepdim, **extra), want, (name, "dim=()"))
    # the standard's axis=(): no dimension reduced (a copy of x for sum/mean/all/any)
    r = getattr(xp, name)(x, axis=(), keepdims=keepdim, **extra)
    assert tuple(r.shape) == tuple(x.shape), (name, "axis=()")


def test_a_given_dim_is_unchanged():
    x, t = _inputs("sum")
    for dim in (0, -1, (0, 2), [1, 2]):
        _check(st.sum(x, dim=dim), torch.sum(t, dim=dim), dim)
        _check(x.mean(dim=dim, keepdim=True), t.mean(dim=dim, keepdim=True), dim)
