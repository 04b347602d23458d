"""The compiled binding test (_csrc/_chot/fast.c, api_call: a Fast's ``direct``, ``npos`` and
``passkw``): a call whose keywords ``Binder.bind`` would return as they came, with at most
``npos`` positional arguments, calls the definition without the binder's frame. Checked:
``Binder.passkw`` against ``Binder.bind`` itself for every bound namespace function (each
keyword it names comes back unchanged, with any value), and calls through the compiled entry
against the same calls through the binder (``bind.entry``'s Python function): the same
results, names, graphs and errors, PyTorch's spellings still renamed."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided._core.call import bind as _bind

from conftest import host

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

_BOUND = sorted(k for k in dir(xp) if getattr(getattr(xp, k), "_binder", None) is not None)


def test_there_are_bound_functions():
    assert len(_BOUND) >= 30 and {"flip", "concat", "argmax", "sort", "squeeze"} <= set(_BOUND)


@pytest.mark.parametrize("name", _BOUND)
def test_passthrough_keywords_come_back_unchanged_from_bind(name):
    b = getattr(xp, name)._binder
    keep = b.passkw
    if keep is None:
        return  # (nothing is called directly with a keyword)
    assert not keep & set(b.renamed) and not keep & _bind.REFUSED_ONLY
    sentinel = object()
    for k in keep:
        args, kwargs = b.bind((sentinel,), {k: sentinel})
        assert args == (sentinel,) and kwargs == {k: sentinel}, (name, k)
    # and every keyword bind changes is outside it
    for k in b.renamed:
        assert k not in keep


def _via_binder(name, *args, **kwargs):
    """The same call through the binder's Python entry (what the compiled test skips)."""
    f = getattr(xp, name)
    entry = _bind.entry(f._binder, f.__wrapped__)
    with np.errstate(all="ignore"):
        return entry(*args, **kwargs)


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - compared below
        return ("raised", type(e), str(e))
    if isinstance(r, tuple):
        return tuple(_outcome(lambda v=v: v) for v in r)
    return ("value", r.dtype, tuple(r.shape), host(r).tobytes(), getattr(r, "names", None))


_X = np.arange(24, dtype=np.float64).reshape(2, 3, 4) % 5


@pytest.mark.parametrize("name, args, kwargs", [
    ("flip", (), {"axis": 0}), ("flip", (), {"axis": (0, 2)}), ("flip", (), {"dims": 1}),
    ("flip", (), {"axis": 7}), ("flip", (), {"axis": 0, "dims": 1}),
    ("argmax", (), {"axis": 1}), ("argmax", (), {"axis": 1, "keepdims": True}), ("argmax", (), {"dim": -1}),
    ("argmax", (), {"axis": 3}), ("sort", (), {"axis": 0, "descending": True}), ("sort", (), {"dim": 0}),
    ("squeeze", (), {"axis": 0}), ("roll", (2,), {"axis": 1}), ("roll", (2,), {"dims": 1}),
    ("diff", (), {"axis": 0, "n": 1}), ("count_nonzero", (), {"axis": (0, 1)}),
    ("any", (), {"axis": 2}), ("all", (), {"dim": 2, "keepdim": True}), ("flip", (), {"bogus": 1}),
    # more positional arguments than the definition takes: bind's hint for a reduction
    ("median", (1,), {}), ("nansum", (1,), {}), ("nanmean", (1,), {"keepdims": True}), ("flip", (0,), {}),
])
def test_compiled_entry_is_the_binders(name, args, kwargs):
    x = xp.asarray(_X if name != "squeeze" else _X[:1])
    f = getattr(xp, name)
    got = _outcome(lambda: f(x, *args, **kwargs))
    want = _outcome(lambda: _via_binder(name, x, *args, **kwargs))
    assert got == want


@pytest.mark.parametrize("recorded", [False, True])
def test_refusals_still_refuse_and_standard_calls_pass(recorded):
    # (recorded operands reach the handlers' chain head, which takes the same test in C)
    x = xp.asarray(_X, requires_grad=recorded)
    for call in (lambda: xp.std(x, dim=0), lambda: xp.var(x, unbiased=True), lambda: xp.max(x, dim=1),
                 lambda: xp.min(x, dim=1, keepdim=True)):
        with pytest.raises(TypeError, match="PyTorch|torch"):
            call()
    for name, kw in (("std", {"axis": 0, "correction": 1}), ("var", {"axis": (0, 2), "keepdims": True}),
                     ("max", {"axis": 1, "keepdims": True}), ("std", {"dim": 0, "correction": 1}),
                     ("var", {"axis": 1, "ddof": 1}), ("sum", {"dim": 1, "keepdim": True})):
        got = getattr(xp, name)(x, **kw)
        want = getattr(np, name)(_X, **{"axis" if k == "dim" else "keepdims" if k == "keepdim"
                                        else "ddof" if k == "correction" else k: v for k, v in kw.items()})
        np.testing.assert_allclose(host(got.detach()), want, rtol=1e-12)
        assert got.requires_grad == recorded


def test_join_functions_and_extensions_keep_their_doors():
    a, b = xp.asarray(np.ones((2, 3))), xp.asarray(np.zeros((2, 3)))
    assert _outcome(lambda: xp.concat([a, b], axis=1)) == _outcome(lambda: _via_binder("concat", [a, b], axis=1))
    assert _outcome(lambda: xp.stack([a, b], axis=0)) == _outcome(lambda: _via_binder("stack", [a, b], axis=0))
    # a recorded operand: the graph through the direct call
    g = xp.asarray(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = xp.flip(g, axis=1)
    xp.sum(y * xp.asarray(np.arange(6.0).reshape(2, 3))).backward()
    np.testing.assert_array_equal(host(g.grad), np.flip(np.arange(6.0).reshape(2, 3), axis=1))
    # PyTorch's spellings on recorded operands: the chain's head renames them before the
    # autograd handler records the call (its rule reads axis=)
    for kw in ({"dims": 1}, {"axis": 1}):
        g = xp.asarray(np.arange(6.0).reshape(2, 3), requires_grad=True)
        xp.sum(xp.flip(g, **kw) * xp.asarray(np.arange(6.0).reshape(2, 3))).backward()
        np.testing.assert_array_equal(host(g.grad), np.flip(np.arange(6.0).reshape(2, 3), axis=1))
    g = xp.asarray(np.arange(6.0).reshape(2, 3), requires_grad=True)
    r = xp.sort(g, dim=1, descending=True)
    xp.sum(r * xp.asarray(np.arange(6.0).reshape(2, 3))).backward()
    np.testing.assert_array_equal(host(g.grad), np.arange(6.0).reshape(2, 3)[:, ::-1])
    # named operands: the names handler's rule
    n = xp.asarray(np.ones((2, 3)), names=("a", "b"))
    assert xp.flip(n, axis=0).names == ("a", "b")
