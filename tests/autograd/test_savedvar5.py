"""The inputs the recorders save (compiled: ``_cgrad.record_ew`` and friends) against
``SavedVar(x)`` built in Python: the same slots for a leaf with a Storage, a view, a
lazy recorded result, a lazy array without metadata (materialized), and a Storage with a
dtype family (``view(dtype)``: the shared version counter); and the version check on
unpack still refuses a saved input written in place. (A compiled ``SavedVar(x)`` was
measured: no fewer instructions than the class call, so the recorders call the class.)"""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided.autograd._graph import SavedVar

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _inputs():
    leaf = xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device="cpu").requires_grad_()
    yield "leaf", lambda: (leaf, xp.asarray(np.ones((2, 3), np.float32), device="cpu"))
    yield "view", lambda: (leaf[:, 1:], xp.ones((2, 2), dtype=xp.float32, device="cpu"))
    yield "lazy result", lambda: (leaf * 2.0, xp.ones((2, 3), dtype=xp.float32, device="cpu") * 3.0)

    def family():
        a = xp.asarray(np.arange(6, dtype=np.float32), device="cpu")
        _ = a.view(xp.int32)  # a family of two Storages: one version counter
        a.add_(1.0)
        return leaf.reshape(-1), a
    yield "family", family


def _slots(sv):
    return (sv._x, sv._st, sv._ver, sv._nr, sv._producer)


@pytest.mark.parametrize("kind", [k for k, _ in _inputs()])
def test_saved_inputs_equal_the_definition(kind):
    make = dict(_inputs())[kind]
    a, b = make()
    if b.grad_fn is None:
        b.requires_grad_()
    y = a * b  # multiply saves both inputs when both need gradients (through the recorder)
    vals = y.grad_fn._vals
    saved = [v for v in vals.values() if type(v) is SavedVar]
    assert len(saved) == 2
    for sv in saved:
        x = sv._x
        ref = SavedVar(x)
        assert _slots(sv) == _slots(ref)
        st = x._st
        if st is not None:
            assert sv._ver == st.version()


def test_a_written_saved_input_is_refused():
    w = xp.asarray(np.ones(3, np.float32), device="cpu").requires_grad_()
    c = xp.asarray(np.full(3, 2.0, np.float32), device="cpu")
    y = (w * c).sum()
    c += 1.0  # c was saved for w's gradient
    with pytest.raises(RuntimeError, match="modified by an inplace operation|version"):
        y.backward()


def test_a_lazy_input_without_metadata_is_materialized_as_before():
    w = xp.asarray(np.ones(3, np.float32), device="cpu").requires_grad_()
    c = xp.ones(3, dtype=xp.float32, device="cpu") * 2.0  # lazy, no metadata
    y = w * c
    sv = [v for v in y.grad_fn._vals.values() if type(v) is SavedVar and v._x is c][0]
    assert c._st is not None and sv._st is c._st and sv._ver == c._st.version()
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0, 2.0])
