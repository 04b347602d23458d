"""The named cases of the Python views' hot paths against the dispatched definition.

``squeeze(x, axis=k)`` of a named array whose Ext tracks no gradient is answered in
``strided/_api/views.py``'s hot path from the outcome the dispatched call (the named
handler's rule) gave for the same (names, position) the first time. Each call below is
made several times, so that the later ones come from that cache, and compared with:

- the definition: the dispatched function (``views._squeeze``, the handlers' path), and
  PyTorch's named-tensor rule for ``squeeze(dim)`` (the squeezed dim's name is dropped;
  ``torch/csrc/autograd/...``: ``namedinference::propagate_names_except``), written out
  here by hand since PyTorch 2.13 has no named tensors any more;
- NumPy's ``squeeze`` for the values and shape;
- the same errors (type and message) as the dispatched path.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from strided._api import views as _views

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _names_or_none(r):
    return r.names if r.has_names() else None


def _outcome(f, x, axis):
    try:
        r = f(x, axis=axis)
    except Exception as e:  # (compared by type and message)
        return ("raises", type(e).__name__, str(e))
    return ("array", tuple(r.shape), r.names, r.has_names(), np.asarray(r.rename(None).cpu()).tolist())


@st.composite
def _named_arrays(draw):
    nd = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.sampled_from([1, 1, 2, 3]), min_size=nd, max_size=nd)))
    pool = ["A", "B", "C", "D"]
    names = tuple(draw(st.sampled_from(pool + [None])) for _ in range(nd))
    seen = [n for n in names if n is not None]
    if len(set(seen)) != len(seen) or not seen:
        names = tuple(pool[:nd])
    axis = draw(st.integers(-nd - 1, nd))
    return shape, names, axis


@settings(max_examples=150, deadline=None)
@given(_named_arrays())
def test_named_squeeze_hot_path_matches_the_dispatched_definition(case):
    shape, names, axis = case
    base = xp.reshape(xp.arange(int(np.prod(shape)), dtype=xp.float64, device="cpu"), shape)
    x = base.rename(*names)
    want = _outcome(_views._squeeze, x, axis)
    for _ in range(3):  # the second call on is answered from the cache
        assert _outcome(xp.squeeze, x, axis) == want
    if want[0] == "array":
        a = axis + len(shape) if axis < 0 else axis
        rule = names[:a] + names[a + 1:]  # PyTorch: the squeezed dim's name is dropped
        assert want[2] == rule
        assert want[3] == any(n is not None for n in rule)
        assert want[4] == np.squeeze(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape),
                                     axis=a).tolist()


def test_named_squeeze_result_is_a_view_with_its_own_record():
    x = xp.zeros((1, 3), device="cpu").rename("O", "C")
    ys = [xp.squeeze(x, axis=0) for _ in range(3)]
    for y in ys:
        assert y.names == ("C",) and y._ext is not x._ext
        assert y.storage() is x.storage()
    ys[2][1] = 5.0  # a view: written through
    assert float(x[0, 1]) == 5.0
    ys[1].rename_("Z")  # one result's names are its own
    assert ys[1].names == ("Z",) and ys[2].names == ("C",) and x.names == ("O", "C")
    assert xp.squeeze(x, axis=0).names == ("C",)


def test_named_squeeze_follows_a_renamed_input():
    x = xp.zeros((1, 3), device="cpu").rename("O", "C")
    assert xp.squeeze(x, axis=0).names == ("C",)
    assert xp.squeeze(x, axis=0).names == ("C",)
    x.rename_("P", "Q")  # the same array, new names: a new key
    assert xp.squeeze(x, axis=0).names == ("Q",)
    x.rename_(None, "Q")
    assert xp.squeeze(x, axis=0).names == ("Q",)
    x.rename_("P", None)
    y = xp.squeeze(x, axis=0)
    assert not y.has_names() and y.names == (None,)


def test_named_squeeze_of_a_tracked_array_is_recorded():
    x = xp.ones((1, 3), dtype=xp.float64, device="cpu").rename("O", "C").requires_grad_()
    for _ in range(3):
        y = xp.squeeze(x, axis=0)
        assert y.names == ("C",) and y.requires_grad and y.grad_fn is not None
    (y * xp.asarray([1.0, 2.0, 3.0], dtype=xp.float64, device="cpu")).sum().backward()
    assert x.grad.rename(None).tolist() == [[1.0, 2.0, 3.0]]


def test_named_squeeze_errors_match_the_dispatched_path():
    x = xp.zeros((1, 3), device="cpu").rename("O", "C")
    for axis in (1, 2, -3):
        for _ in range(2):
            with pytest.raises((ValueError, IndexError)) as hot:
                xp.squeeze(x, axis=axis)
            with pytest.raises(type(hot.value)) as ref:
                _views._squeeze(x, axis=axis)
            assert str(hot.value) == str(ref.value)

