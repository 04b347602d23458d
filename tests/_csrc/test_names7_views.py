"""The last-outcome caches of the compiled named views (views.c, names7): ``x.flatten(s, e)``
of a named array keeps its result names per (names, s, e); flatten / unflatten by names find
their checked outcome by the identity of the last call's objects and keep the result's shape
tuple per (x's shape, outcome); ``x.rename(...)`` and ``refine_names`` find theirs without
building a key. A cache may only make a call cheaper: every call below is checked against
the Python definitions behind the compiled objects (``_plain_flatten``, ``_ops_flatten``,
``_unflatten_method``, ``named._ops.rename``), against NumPy for layout and values,
and against PyTorch's named-tensor rules written out (PyTorch 2.13 has no named tensors:
flatten(dims, out_name) names the merged dim out_name, unflatten(dim, ((name, size), ...))
names the new dims, rename to the same names is the tensor itself), in random interleavings
that make each cache see another array, other dims or other names between two calls."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
import strided.named as named
from strided.named import _ops as _named_ops
from strided._core import array as _array

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

COMPILED = _array._CVIEWS is not None
SHAPES = [(2, 3, 4), (3, 4), (2, 1, 3, 2), (4, 6)]


def _fresh(s):
    """``s`` as a str object of its own (not the interned literal): a cache that compared
    names by identity only would miss, one that compared wrongly would answer wrongly."""
    return "".join(list(s)) if s is not None else None


def _make(shape, names, layout="plain"):
    base = (np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 13).astype(np.float32)
    x = xp.asarray(base.copy(), device="cpu")
    if layout == "sliced":
        x, base = x[..., ::2], base[..., ::2]
    return x.rename(*names), base


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return None, (type(e), str(e))


def _state(r, x):
    if r is None:
        return None
    return (tuple(r.shape), r._layout()[3], r.names, r.storage() is x.storage(),
            np.asarray(r).tobytes())


def _names_for(nd, draw):
    pool = ["N", "C", "H", "W", "Q", None]
    out = []
    for _ in range(nd):
        out.append(draw(st.sampled_from([p for p in pool if p is None or p not in out])))
    if all(n is None for n in out):
        out[0] = "Z"
    return tuple(out)


@st.composite
def flatten_calls(draw):
    """A program of x.flatten(s, e) calls on a few named arrays (names sometimes equal in
    value, other str objects)."""
    arrays = []
    for _ in range(draw(st.integers(1, 3))):
        shape = draw(st.sampled_from(SHAPES))
        names = _names_for(len(shape), draw)
        if draw(st.booleans()):
            names = tuple(_fresh(n) for n in names)
        arrays.append((shape, names, draw(st.sampled_from(["plain", "sliced"]))))
    calls = draw(st.lists(st.tuples(st.integers(0, len(arrays) - 1),
                                    st.lists(st.integers(-5, 5), max_size=2)), min_size=1, max_size=8))
    return arrays, calls


@settings(max_examples=150, deadline=None)
@given(flatten_calls())
def test_flatten_ints_interleaved_equals_the_python_path_numpy_and_the_rule(prog):
    arrays, calls = prog
    xs = [_make(*a) for a in arrays]
    for i, dims in calls:
        (x, base), (shape, names, _) = xs[i], arrays[i]
        v0 = x._version
        got, err = _outcome(lambda: x.flatten(*dims))
        ref, rerr = _outcome(lambda: named._plain_flatten(x, *dims))
        assert (err is None) == (rerr is None)
        if err is not None:
            assert err == rerr
            continue
        assert _state(got, x)[:3] + _state(got, x)[4:] == _state(ref, x)[:3] + _state(ref, x)[4:]
        nd = len(shape)
        s, e = [(d + nd if d < 0 else d) for d in (list(dims) + [0, -1][len(dims):])]
        want = base.reshape(base.shape[:s] + (int(np.prod(base.shape[s:e + 1])),) + base.shape[e + 1:])
        assert tuple(got.shape) == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)
        rule = names[:s] + ((names[s] if s == e else None),) + names[e + 1:]
        assert got.names == (rule if any(n is not None for n in rule) else (None,) * len(rule))
        assert x._version == v0 and x.names == names  # (the input untouched)


@st.composite
def by_name_calls(draw):
    shape = draw(st.sampled_from([(2, 3, 4), (2, 2, 6), (3, 4, 2)]))
    calls = []
    for _ in range(draw(st.integers(2, 8))):
        kind = draw(st.sampled_from(["flatten", "unflatten", "rename", "same", "refine"]))
        fresh = draw(st.booleans())
        s = draw(st.integers(0, 2))
        e = draw(st.integers(s, 2))
        calls.append((kind, fresh, s, e, draw(st.sampled_from(["M", "K"]))))
    return shape, calls


@settings(max_examples=150, deadline=None)
@given(by_name_calls(), st.booleans())
def test_by_names_and_rename_interleaved_equal_the_python_path_and_pytorchs_rules(prog, two):
    shape, calls = prog
    names = ("N", "H", "W")
    arrs = [_make(shape, names)] + ([_make(tuple(reversed(shape)), names)] if two else [])
    dims_list = [list(names[0:2]), list(names[1:3])]  # (one list object, mutated between calls)
    for k, (kind, fresh, s, e, out) in enumerate(calls):
        x, base = arrs[k % len(arrs)]
        nm = tuple(_fresh(n) for n in names) if fresh else names
        if kind == "flatten":
            dims = dims_list[k % 2]
            dims[:] = [(_fresh(n) if fresh else n) for n in nm[s:e + 1]]
            got, err = _outcome(lambda: named.flatten(x, dims, out))
            ref, rerr = _outcome(lambda: named._ops_flatten(x, list(dims), out))
            assert _state(got, x) == _state(ref, x) and err == rerr
            want = base.reshape(base.shape[:s] + (int(np.prod(base.shape[s:e + 1])),) + base.shape[e + 1:])
            np.testing.assert_array_equal(np.asarray(got), want)
            assert got.names == names[:s] + (out,) + names[e + 1:]  # (PyTorch's rule)
            assert got.storage() is x.storage()
        elif kind == "unflatten":
            d = x.shape[s]
            sizes = ((out, 1), ("P", d)) if fresh else (("P", d), (out, 1))
            got, err = _outcome(lambda: x.unflatten(nm[s], sizes))
            ref, rerr = _outcome(lambda: named._unflatten_method(x, nm[s], sizes))
            assert _state(got, x) == _state(ref, x) and err == rerr
            new = tuple(n for n, _ in sizes)
            assert got.names == names[:s] + new + names[s + 1:]  # (PyTorch's rule)
            np.testing.assert_array_equal(np.asarray(got), base.reshape(got.shape))
        elif kind in ("rename", "same"):
            to = nm if kind == "same" else (out, None, _fresh("Q") if fresh else "Q")
            got = x.rename(*to)
            ref = _named_ops.rename(x, *to)  # (the Python definition)
            if kind == "same":
                assert got is x  # (the same names, equal in value: the array itself)
            else:
                assert got is not x and got.names == (out, None, "Q")
                assert got.storage() is x.storage() and got._layout() == x._layout()
            assert (ref is x) == (got is x) and ref.names == got.names
        else:  # refine_names of a partly named view
            p = x.rename(None, "H", None)
            got = p.refine_names(*nm)
            assert got.names == names and got.storage() is x.storage()
            np.testing.assert_array_equal(np.asarray(got), base)
        assert x.names == names  # (the input's names untouched)


def test_a_write_through_a_cached_named_view_is_seen_and_counted():
    x, _ = _make((2, 3, 4), ("N", "H", "W"))
    for _ in range(3):  # (the third call is answered from the kept outcome and shape)
        y = named.flatten(x, ["H", "W"], "HW")
        z = x.flatten(1, 2)
        u = y.unflatten("HW", (("H", 3), ("W", 4)))
    v = x._version
    y[0, 5] = 100.0
    assert x._version > v and float(x[0, 1, 1]) == 100.0 and float(z[0, 5]) == 100.0
    assert float(u[0, 1, 1]) == 100.0
    assert y.names == ("N", "HW") and z.names == ("N", None) and u.names == ("N", "H", "W")


def test_cached_outcomes_of_one_array_do_not_leak_into_another():
    """Two arrays of the same names and shapes but different layouts (one needs a copy to
    flatten): the kept shape of one is never the other's view."""
    a, abase = _make((2, 3, 4), ("N", "H", "W"))
    b, bbase = _make((2, 3, 8), ("N", "H", "W"), "sliced")
    for _ in range(2):
        ra = named.flatten(a, ["H", "W"], "HW")
        rb = named.flatten(b, ["H", "W"], "HW")
    np.testing.assert_array_equal(np.asarray(ra), abase.reshape(2, 12))
    np.testing.assert_array_equal(np.asarray(rb), bbase.reshape(2, 12))
    assert ra.storage() is a.storage() and rb.names == ("N", "HW")


def test_errors_name_the_dimension_after_a_cached_call():
    x, _ = _make((2, 3, 4), ("N", "H", "W"))
    for _ in range(2):
        named.flatten(x, ["H", "W"], "HW"), x.unflatten("W", (("P", 2), ("Q", 2))), x.rename("A", "B", "C")
    with pytest.raises(ValueError, match="must be consecutive"):
        named.flatten(x, ["W", "H"], "HW")
    with pytest.raises(named.DimensionNameError, match="'Z' not found"):
        x.unflatten("Z", (("P", 2), ("Q", 2)))
    with pytest.raises(named.DimensionNameError, match="'Z' not found"):
        named.flatten(x, ["H", "Z"], "HZ")
    with pytest.raises(Exception, match="names"):
        x.rename("A", "B")  # (two names for three dims)


def test_named_results_records_are_recycled_cleanly():
    """A named view's record goes back to the free list when the view dies; a record taken
    again carries only its new names (no gradient state, no old names)."""
    x, _ = _make((2, 3, 4), ("N", "H", "W"))
    for _ in range(50):
        y = x.flatten(1, 2)
        del y
    w = xp.asarray(np.ones((2, 3), np.float32), device="cpu")
    w.requires_grad_(True)
    z = x.flatten(1, 2)
    assert z.names == ("N", None) and not z.requires_grad and z.grad is None and z.grad_fn is None
    assert w.names == (None, None) and w.requires_grad


@pytest.mark.skipif(not COMPILED, reason="the compiled views are not active")
def test_the_kept_outcomes_answer_without_python_frames():
    from _frames import python_calls
    x, _ = _make((2, 3, 4), ("N", "H", "W"))
    for _ in range(2):
        named.flatten(x, ["H", "W"], "HW"), x.unflatten("W", (("P", 2), ("Q", 2))), x.rename("A", "B", "C")
        x.flatten(1, 2)
    r, seen = python_calls(lambda: (named.flatten(x, ["H", "W"], "HW"), x.unflatten("W", (("P", 2), ("Q", 2))),
                                    x.rename("A", "B", "C"), x.flatten(1, 2)))
    assert [t.names for t in r] == [("N", "HW"), ("N", "H", "P", "Q"), ("A", "B", "C"), ("N", None)]
    assert not seen, seen


def test_a_record_held_elsewhere_outlives_its_array_intact():
    """An Array's release recycles its names record only when nothing else holds it: a
    record the user keeps (or a weak reference to it) stays as it was."""
    import gc
    import weakref
    x, _ = _make((2, 3, 4), ("N", "H", "W"))
    for _ in range(3):
        y = x.flatten(1, 2)
    e = y._ext
    ref = weakref.ref(x.mT._ext)  # (the view dies at once: its record is freed, the ref dead)
    del y
    gc.collect()
    assert e.names == ("N", None) and e.requires_grad is False and e.grad_fn is None
    for _ in range(5):  # (the free list is used again: e is not on it)
        z = x.flatten(0, 1)
        assert z._ext is not e and z.names == (None, "W")
    assert e.names == ("N", None)
    assert ref() is None


def test_a_tracked_named_result_keeps_its_graph_through_release():
    """A named result that autograd tracks is not a names-only record: it is released by its
    own rules, and the gradient of a later named view is right (d/dx sum(flatten(x)) = 1)."""
    w = xp.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4), device="cpu").rename("N", "H", "W")
    w.requires_grad_(True)
    for _ in range(3):
        y = w.flatten(1, 2)
        assert y.names == ("N", None) and y.grad_fn is not None
        del y
    out = xp.sum(w.rename(None).flatten(1, 2))
    out.backward()
    np.testing.assert_array_equal(np.asarray(w.grad), np.ones((2, 3, 4), np.float32))
