"""The compiled recorder's own steps for a rule with arguments (_cgrad.c, record_call): its
binding of the call's arguments (``layout_bind``: the rule's ``layout``) and its choice of
the node class by a parameter being None or by the operands' dimensions (``node_by_none``,
``node_by_ndim``), each against the Python definition: the rule's generated binder (the
same dict, the same objects in the same order; declined exactly where Python raises) and
``Rule.node_name``, and the node names against the PyTorch names they stand for."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core import cext
from strided.autograd import _record

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_cgrad = cext.load("_cgrad")
needs_c = pytest.mark.skipif(_cgrad is None or not hasattr(_cgrad, "layout_bind"),
                             reason="the compiled recorder is not built (STRIDED_NO_CEXT=1)")

_LAID = sorted({id(r): r for r in _record.RULES.values() if r.layout is not None}.values(), key=lambda r: r.name)
_VALUES = [object() for _ in range(8)]


def test_the_recorded_reductions_and_products_have_a_layout():
    # (the rules record_call binds on the MLP step's path; a rule of *arrays keeps the binder)
    assert {"sum", "max", "matmul", "mean", "prod"} <= {r.name for r in _LAID}
    assert _record.RULES["broadcast_arrays"].layout is None


def _python(r, args, kw):
    try:
        return r._binder(*args, **kw)
    except TypeError:
        return None


@needs_c
@settings(max_examples=400, deadline=None)
@given(data=hs.data())
def test_layout_bind_is_the_binder(data):
    r = data.draw(hs.sampled_from(_LAID))
    names = list(r.layout[0])
    npos = data.draw(hs.integers(0, len(names) + 1))
    args = tuple(data.draw(hs.sampled_from(_VALUES)) for _ in range(npos))
    keys = data.draw(hs.lists(hs.sampled_from(names + ["kw", "kwargs", "other", "out"]), unique=True,
                              max_size=len(names) + 2))
    kw = {k: data.draw(hs.sampled_from(_VALUES + [None])) for k in keys}
    want = _python(r, args, kw)
    got = _cgrad.layout_bind(r.layout, args, kw)
    if want is None:
        assert got is None, (r.name, args, kw)
        return
    assert got is not None, (r.name, args, kw)  # (it declines only where Python refuses)
    assert list(got) == list(want)
    for k in want:
        if type(want[k]) is dict:  # (the ** parameter's dict: a new one, the same items)
            assert type(got[k]) is dict and list(got[k].items()) == list(want[k].items())
            assert all(got[k][j] is want[k][j] for j in want[k])
        else:
            assert got[k] is want[k], (r.name, k)


@needs_c
def test_layout_bind_declines_what_it_does_not_read():
    r = _record.RULES["sum"]
    x = object()
    assert _cgrad.layout_bind(None, (x,), {}) is None
    assert _cgrad.layout_bind(("x",), (x,), {}) is None
    assert _cgrad.layout_bind(r.layout, (x,), {"axis": 1})["axis"] == 1

    class S(str):
        pass
    assert _cgrad.layout_bind(r.layout, (x,), {S("foo"): 1}) is None  # (the binder binds it)
    with pytest.raises(TypeError):
        _cgrad.layout_bind(r.layout, [x], {})


def _leaf(shape, seed=0):
    return xp.asarray(np.random.default_rng(seed).standard_normal(shape).astype(np.float32),
                      device="cpu").requires_grad_()


@pytest.mark.parametrize("name,base", [("sum", "Sum"), ("mean", "Mean"), ("prod", "Prod")])
@pytest.mark.parametrize("kwargs", [{}, {"axis": None}, {"axis": 1}, {"axis": (0, 1)}, {"axis": -1, "keepdims": True}])
def test_reduction_nodes_by_axis(name, base, kwargs):
    x = _leaf((3, 4))
    r = getattr(xp, name)(x, **kwargs)
    want = f"{base}Backward{0 if kwargs.get('axis') is None else 1}"  # (PyTorch's names)
    assert type(r.grad_fn).__name__ == want
    assert _record.RULES[name].node_name({"x": x, **kwargs}) == want
    r.sum().backward()
    assert x.grad.shape == x.shape


@pytest.mark.parametrize("s1,s2,want", [((3, 4), (4, 5), "MmBackward0"), ((4,), (4,), "DotBackward0"),
                                        ((3, 4), (4,), "MatmulBackward0"), ((4,), (4, 5), "MatmulBackward0"),
                                        ((2, 3, 4), (2, 4, 5), "MatmulBackward0"),
                                        ((2, 3, 4), (4, 5), "MatmulBackward0")])
@pytest.mark.parametrize("spelling", ["function", "operator"])
def test_matmul_nodes_by_ndim(s1, s2, want, spelling):
    a, b = _leaf(s1, 1), _leaf(s2, 2)
    r = xp.matmul(a, b) if spelling == "function" else a @ b
    assert type(r.grad_fn).__name__ == want
    assert _record.RULES["matmul"].node_name({"x1": a, "x2": b}) == want
    xp.sum(r).backward()
    gn = np.ones(r.shape, np.float32)
    an, bn = np.asarray(a.detach()), np.asarray(b.detach())
    if len(s1) == len(s2) == 2:
        np.testing.assert_allclose(np.asarray(a.grad), gn @ bn.T, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(b.grad), an.T @ gn, rtol=1e-5)


def test_node_names_are_pytorchs():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    w = np.random.default_rng(4).standard_normal((4, 5)).astype(np.float32)
    v = np.random.default_rng(5).standard_normal(4).astype(np.float32)
    tx, tw, tv = (torch.tensor(a, requires_grad=True) for a in (x, w, v))
    sx, sw, sv = (xp.asarray(a, device="cpu").requires_grad_() for a in (x, w, v))
    for t, s in [(lambda: tx.sum(), lambda: xp.sum(sx)), (lambda: tx.sum(1), lambda: xp.sum(sx, axis=1)),
                 (lambda: tx.mean(), lambda: xp.mean(sx)), (lambda: tx.mean(0), lambda: xp.mean(sx, axis=0)),
                 (lambda: tx.prod(1), lambda: xp.prod(sx, axis=1)),
                 (lambda: tx @ tw, lambda: sx @ sw), (lambda: tv @ tv, lambda: sv @ sv)]:
        assert type(s().grad_fn).__name__ == type(t().grad_fn).__name__
