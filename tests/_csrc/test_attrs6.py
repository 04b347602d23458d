"""The compiled attribute getters (``_chot.ViewProp`` kinds A_DTYPE, A_DEVICE, A_NDIM,
A_SHAPE, A_SIZE; views.c, ``attr_get``) against the properties they stand in front of
(array.py's Python getters) and against NumPy's attributes of the same data.

Every array kind the getters meet: fresh kernel results (no Storage yet), views (no native
view yet), 0-d, empty, named, autograd leaves and results, permuted and sliced layouts, a
subclass (which must reach the Python getter), and the cuda stand-in's device arrays.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided._core.array import Array, Size, _SizeAttr

_ATTRS = ("dtype", "device", "ndim", "shape", "size")
_COMPILED = type(Array.__dict__["shape"]).__name__ == "ViewProp"


def _python(x, name):
    """The Python definition's answer (the property's getter, behind the compiled one)."""
    return Array.__dict__[name].fget(x)


def _check(x, ref=None):
    for name in _ATTRS:
        got, want = getattr(x, name), _python(x, name)
        assert type(got) is type(want), name
        assert got == want, name
    shape = x.shape
    assert type(shape) is Size and repr(shape).startswith("strided.Size(")
    size = x.size
    assert type(size) is _SizeAttr and size() == shape and int(size) == int(np.prod(shape, dtype=np.int64))
    for d in range(x.ndim):
        assert size(d) == shape[d] and size(-1 - d) == shape[-1 - d]
    if ref is not None:  # NumPy's attributes of the same values
        assert tuple(shape) == ref.shape and x.ndim == ref.ndim and int(size) == ref.size
        assert x.dtype == ref.dtype


@settings(max_examples=150, deadline=None)
@given(shape=hs.lists(hs.integers(0, 4), max_size=5),
       dtype=hs.sampled_from(["float32", "float64", "int8", "int64", "bool", "complex64"]),
       kind=hs.sampled_from(["fresh", "stored", "slice", "T", "perm", "index"]))
def test_the_compiled_attributes_are_the_properties(shape, dtype, kind):
    ref = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape).astype(dtype)
    x = st.asarray(ref)
    if kind == "fresh":  # a kernel result, materialized by nothing yet
        x = st.where(st.ones(x.shape, dtype=st.bool), x, x)  # (the dtype of every kind)
    elif kind == "stored":
        x._layout()
    elif kind == "slice" and ref.ndim:
        x, ref = x[::2], ref[::2]
    elif kind == "T" and ref.ndim >= 2:
        x, ref = x.mT, np.swapaxes(ref, -1, -2)
    elif kind == "perm" and ref.ndim:
        p = tuple(reversed(range(ref.ndim)))
        x, ref = st.permute_dims(x, p), np.transpose(ref, p)
    elif kind == "index" and ref.ndim and ref.shape[0]:
        x, ref = x[0], ref[0]
    _check(x, ref)


def test_named_autograd_and_0d_arrays():
    x = st.ones((2, 3, 4), names=("N", "C", "L"))
    _check(x, np.ones((2, 3, 4), np.float32))
    _check(x[0], np.ones((3, 4), np.float32))
    w = st.ones((3,), dtype=st.float64, requires_grad=True)
    y = (w * 2).sum()
    _check(w, np.ones(3))
    _check(y, np.float64(6.0))
    _check(st.asarray(3.5), np.float32(3.5))  # (the default float dtype)
    _check(st.zeros((0, 5)), np.zeros((0, 5), np.float32))


def test_a_subclass_reaches_the_python_getter():
    seen = []

    class Sub(Array):
        __slots__ = ()

        @property
        def shape(self):
            seen.append("shape")
            return super().shape

    x = st.ones((2, 3))
    s = Array._new(None, *x._layout(), x.dtype, x.device)
    s.__class__ = Sub  # (the same layout: a subclass instance over x's memory)
    assert s.shape == (2, 3) and seen == ["shape"]
    assert s.dtype == x.dtype and s.ndim == 2 and s.size == 6 and s.size(1) == 3


@pytest.mark.parametrize("name", _ATTRS + ("T", "mT"))
def test_the_attributes_are_read_only_with_the_propertys_message(name):
    x = st.ones((2, 3))
    with pytest.raises(AttributeError, match=f"property '{name}' of 'Array' object has no setter"):
        setattr(x, name, 1)
    with pytest.raises(AttributeError, match=f"property '{name}' of 'Array' object has no deleter"):
        delattr(x, name)
    assert getattr(Array, name).__doc__ == Array.__dict__[name].fget.__doc__
    assert (x.shape, x.dtype) == ((2, 3), st.float32)


@pytest.mark.skipif(not _COMPILED, reason="the compiled getters are not built (STRIDED_NO_CEXT=1)")
def test_viewprop_refuses_a_class_it_cannot_build():
    from strided._core.array import _CVIEWS as chot

    d = Array.__dict__
    with pytest.raises(TypeError, match="tuple subclass"):
        chot.ViewProp(property(d["shape"].fget), chot.A_SHAPE, list)
    with pytest.raises(TypeError, match="int subclass"):
        chot.ViewProp(property(d["size"].fget), chot.A_SIZE, float)
    with pytest.raises(ValueError, match="kind"):
        chot.ViewProp(property(d["size"].fget), 10_000)
    with pytest.raises(TypeError, match="builds"):  # (the class the getters build is fixed)
        chot.ViewProp(property(d["shape"].fget), chot.A_SHAPE, type("Other", (tuple,), {"__slots__": ()}))
    assert type(st.ones(2).shape) is Size
