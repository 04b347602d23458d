"""The standard-namespace autograd step's compiled pieces (mlp10, issue 38) against what they
stand for:

- ``_cgrad.saved_var`` (the recorders' SavedVar, saved_new) against the class itself
  (``SavedVar.__init__``, what STRIDED_NO_CEXT=1 runs): every slot, for lazy and
  materialized arrays, inputs with and without autograd metadata, outputs (a bare alias),
  views; and the version check of a saved value written afterwards (the same error);
- ``x.grad`` read and set through ``_chot.ViewProp``'s A_GRAD kind against the property it
  stands in front of (autograd's getter and setter behind strided.named's): values,
  the non-leaf warning, names on gradients, the setter's errors, no Python frame;
- a leaf's edge made in C (``leaf_edge``) against ``edge_of``: one AccumulateGrad per leaf
  while a graph holds it, a new one after, the same node ``edge_of`` then finds;
- the pass-through formula (``_rules._same``) taken without a call, and the whole MLP
  step (tests/autograd/test_mlp9.py compares it bit for bit with STRIDED_NO_CEXT=1 and
  with PyTorch) with fewer Python frames.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from strided._core.array import Array
from strided.autograd import _graph, _record, _rules

from _frames import python_calls

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]
CG = _graph._cgrad
compiled = pytest.mark.skipif(CG is None or not hasattr(CG, "saved_var") or _rules._cgrad is None,
                              reason="the compiled paths are not built (or STRIDED_NO_CEXT=1)")
_SV = ("_st", "_ver", "_nr", "_producer")


def _slots_equal(a, b):
    """Two SavedVars hold the same: the same Storage, version, output number and producer;
    the same array, or (an output) bare aliases of the same memory and layout."""
    for k in _SV:
        assert getattr(a, k) is getattr(b, k) or getattr(a, k) == getattr(b, k), k
    xa, xb = a._x, b._x
    if a._nr is None:
        assert xa is xb
    else:
        assert xa is not xb and type(xa) is Array and xa._ext is None and xb._ext is None
        for k in ("_np", "_st", "_off", "_shape", "_str", "_dtype", "_device"):
            assert getattr(xa, k) is getattr(xb, k) or getattr(xa, k) == getattr(xb, k), k


def _arrays(kind, shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = xp.asarray(rng.standard_normal(shape).astype(dtype))
    if kind == "leaf":
        return a.requires_grad_()
    if kind == "lazy_plain":
        return a + 1.0  # (a kernel result without Storage nor metadata)
    if kind == "lazy_recorded":
        return xp.exp(a.requires_grad_())  # (a recorded result: lazy, metadata)
    if kind == "view":
        return a.requires_grad_()[..., :1] if shape else a.requires_grad_()
    return a  # "plain": an asarray result, with its Storage


@compiled
@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(["leaf", "lazy_plain", "lazy_recorded", "view", "plain"]),
       shape=st.sampled_from([(), (3,), (2, 4), (0, 3)]), dtype=st.sampled_from([np.float32, np.float64]),
       output=st.booleans(), seed=st.integers(0, 2**16))
def test_saved_var_is_the_class(kind, shape, dtype, output, seed):
    # Two equal arrays (the first SavedVar may materialize its array: each gets its own)
    x1, x2 = _arrays(kind, shape, dtype, seed), _arrays(kind, shape, dtype, seed)
    nr = 0 if output else None
    c = CG.saved_var(x1, nr) if output else CG.saved_var(x1)
    p = _graph.SavedVar(x2, nr) if output else _graph.SavedVar(x2)
    assert type(c) is _graph.SavedVar
    assert (c._st is None) == (p._st is None) and (x1._st is None) == (x2._st is None)
    assert c._ver == p._ver and c._nr == p._nr
    assert (c._producer is None) == (p._producer is None)
    if c._producer is not None:
        assert type(c._producer) is type(p._producer)
    same = CG.saved_var(x1, nr) if output else CG.saved_var(x1)  # (the same array twice: slots equal)
    _slots_equal(same, _graph.SavedVar(x1, nr) if output else _graph.SavedVar(x1))
    # unpacked as the definition unpacks it
    node = _record.node_class("ExpBackward0")
    np.testing.assert_array_equal(np.asarray(c.unpack(object.__new__(node), False).detach()),
                                  np.asarray(p.unpack(object.__new__(node), False).detach()))


@compiled
def test_saved_var_declines_to_the_class():
    class Sub(Array):
        __slots__ = ()
    a = xp.ones(3)
    s = object.__new__(Sub)
    for k in ("_np", "_st", "_off", "_shape", "_str", "_dtype", "_device", "_ext"):
        setattr(s, k, getattr(a, k))
    _slots_equal(CG.saved_var(s), _graph.SavedVar(s))
    with pytest.raises(AttributeError):  # (what the class raises: not an array)
        _graph.SavedVar(object())
    with pytest.raises(AttributeError):
        CG.saved_var(object())


@pytest.mark.parametrize("where", ["input", "output"])
def test_saved_value_written_after_is_refused(where):
    x = xp.asarray(np.linspace(0.5, 2.0, 6, dtype=np.float32)).requires_grad_()
    h = x * 1.0
    y = xp.log(h) if where == "input" else xp.exp(h)  # (log saves its input, exp its result)
    with xp.no_grad():
        (h if where == "input" else y).__imul__(2.0)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*is at version 1; "
                                           r"expected version 0 instead \(needed by "
                                           + ("LogBackward0" if where == "input" else "ExpBackward0")):
        xp.sum(y).backward()


# --- x.grad ----------------------------------------------------------------------------------------

def _prop():
    p = Array.__dict__["grad"]
    return p.fget, p.fset


def test_grad_property_is_the_definition():
    fget, fset = _prop()
    x = xp.asarray(np.arange(4, dtype=np.float32)).requires_grad_()
    plain = xp.ones(4)
    assert x.grad is None and fget(x) is None and plain.grad is None
    xp.sum(x * x).backward()
    assert x.grad is fget(x) and x.grad is x._ext.grad
    np.testing.assert_array_equal(np.asarray(x.grad), 2 * np.arange(4, dtype=np.float32))
    g = xp.full((4,), 3.0, dtype=xp.float32)
    x.grad = g
    assert x.grad is g
    x.grad = None
    assert x.grad is None and x._ext.grad is None
    plain.grad = None  # (no metadata made for None)
    assert plain._ext is None
    plain.grad = xp.zeros(4)  # (metadata made by the setter)
    assert plain._ext is not None and plain.grad is plain._ext.grad
    for bad, err, msg in ((xp.ones(3), RuntimeError, "assigned grad has shape"),
                          (xp.ones(4, dtype=xp.float64), RuntimeError, "assigned grad has dtype"),
                          (np.ones(4, np.float32), TypeError, "assigned grad must be an array")):
        with pytest.raises(err, match=msg):
            x.grad = bad
        with pytest.raises(err, match=msg):
            fset(x, bad)
    with pytest.raises(AttributeError):
        del x.grad


def test_grad_of_a_non_leaf_warns_and_retain_grad_keeps_it():
    x = xp.asarray(np.ones(3, np.float32)).requires_grad_()
    y = x * 2.0
    with pytest.warns(UserWarning, match="not a leaf"):
        assert y.grad is None
    z = x * 3.0
    z.retain_grad()
    xp.sum(z * z).backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(np.asarray(z.grad), np.full(3, 6.0, np.float32))  # (d z^2 / dz at z = 3)


def test_grad_of_a_named_array_is_named():
    x = xp.asarray(np.ones((2, 3), np.float32)).rename("N", "C").requires_grad_()
    xp.sum(x * 2.0).backward()
    assert x.grad.names == ("N", "C")
    np.testing.assert_array_equal(np.asarray(x.grad.rename(None)), np.full((2, 3), 2.0, np.float32))


@compiled
def test_grad_read_and_cleared_without_python_frames():
    x = xp.asarray(np.ones(3, np.float32)).requires_grad_()
    xp.sum(x * 2.0).backward()
    g, calls = python_calls(lambda: x.grad)
    assert g is not None and calls == []
    _, calls = python_calls(lambda: setattr(x, "grad", None))
    assert calls == []


# --- a leaf's edge -----------------------------------------------------------------------------------

@compiled
def test_leaf_edge_is_edge_of():
    w = xp.asarray(np.ones((3, 2), np.float32)).requires_grad_()
    x = xp.ones((4, 3))
    y = x @ w
    acc = y.grad_fn.next_functions[1][0]
    assert type(acc) is _graph.AccumulateGrad and acc.variable is w
    assert _graph.edge_of(w) == (acc, 0)  # (the definition finds the node made in C)
    y2 = xp.exp(w)  # (another graph while the first is alive: the same node)
    assert y2.grad_fn.next_functions[0][0] is acc
    seq = acc._seq
    del y, y2, acc
    y3 = x @ w  # (the graphs gone: a new node, a later sequence number)
    acc3 = y3.grad_fn.next_functions[1][0]
    assert type(acc3) is _graph.AccumulateGrad and acc3.variable is w and acc3._seq > seq
    xp.sum(y3).backward()
    np.testing.assert_array_equal(np.asarray(w.grad), np.full((3, 2), 4.0, np.float32))


@compiled
def test_backward_of_add_calls_no_pass_through_formula():
    a = xp.asarray(np.ones(3, np.float32)).requires_grad_()
    b = xp.asarray(np.ones(3, np.float32)).requires_grad_()
    s = xp.sum(a + b - a * 0.0)
    _, calls = python_calls(lambda: s.backward())
    assert "_same" not in calls
    np.testing.assert_array_equal(np.asarray(a.grad), np.ones(3, np.float32))
    np.testing.assert_array_equal(np.asarray(b.grad), np.ones(3, np.float32))


@compiled
def test_mlp_step_python_frames():
    """The tiny MLP step of benchmarks/mlp_callgrind.py enters none of the Python functions
    this round compiled (accumulator, edge_of, the grad property's getter and setter,
    _same, needs)."""
    rng = np.random.default_rng(0)
    sizes, B = (8, 16, 16, 4), 4
    ps = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        ps.append(xp.asarray(rng.uniform(-.3, .3, (a, b)).astype(np.float32)).requires_grad_())
        ps.append(xp.asarray(rng.uniform(-.3, .3, b).astype(np.float32)).requires_grad_())
    x = xp.asarray(rng.standard_normal((B, 8)).astype(np.float32))
    onehot = xp.asarray(np.eye(4, dtype=np.float32)[rng.integers(0, 4, B)])

    def step():
        z = x
        for i in range(3):
            z = z @ ps[2 * i] + ps[2 * i + 1]
            if i < 2:
                z = xp.relu(z)
        m = xp.max(z, axis=1, keepdims=True)
        loss = xp.sum(onehot * (xp.log(xp.sum(xp.exp(z - m), axis=1, keepdims=True)) + m - z)) / B
        loss.backward()
        with xp.no_grad():
            for p in ps:
                p -= 0.01 * p.grad
                p.grad = None
        return loss.detach()

    step()
    _, calls = python_calls(step)
    # (names checked by function name: the names handler, when a test before this one
    # registered it, runs frames of its own that this round did not touch)
    gone = {"accumulator", "edge_of", "_get_grad", "_set_grad", "_same", "needs"}
    assert not gone & set(calls), sorted(gone & set(calls))


def test_leaf_edge_one_node_per_leaf_across_threads():
    """Threads recording on one leaf at once (the collector on, so allocations may switch
    threads) all find one AccumulateGrad while their graphs hold it."""
    import gc
    import threading
    w = xp.asarray(np.ones(8, np.float32)).requires_grad_()
    keep, lock = [], threading.Lock()
    start = threading.Barrier(4)

    def work():
        start.wait()
        ys = [xp.exp(w) for _ in range(50)]
        with lock:
            keep.extend(ys)

    was = gc.get_threshold()
    gc.set_threshold(1, 1, 1)  # (a collection at almost every allocation)
    try:
        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    finally:
        gc.set_threshold(*was)
    accs = {id(y.grad_fn.next_functions[0][0]) for y in keep}
    assert len(keep) == 200 and len(accs) == 1
