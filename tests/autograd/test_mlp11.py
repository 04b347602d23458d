"""The standard-namespace autograd step's fourth round (mlp11, issue 38) against what it
stands for:

- ``_cgrad.NodeBase`` (a node's fields in C, read by the engine at fixed offsets) against
  ``_graph._NodeFields``, Node's base without the extension: the same defaults, the same
  errors for a field never set, every field read, written and deleted as an attribute,
  anything else in the node's ``__dict__``, weak references; and the engine's reads going
  through the attribute API wherever a class or an instance could answer differently (a
  field shadowed by a subclass's class attribute, a class changed after the engine met it,
  an instance's own ``apply``/``release``): hooks still called, in order, as the Python
  loop calls them;
- ``_cgrad.GradState`` (the grad mode in a C thread-local flag) against ``_mode._State``
  (the threading.local it stands for): per thread, True in a new thread, no_grad /
  enable_grad / set_grad_enabled in two threads at once;
- Rule's slots (read by the compiled recorders and apply): a rule given another formula,
  and the Rule class changed, seen at once;
- the whole step: gradients and parameters after k steps of the MLP with the compiled engine
  and with the Python loop (``_graph._cgrad`` None) equal bit for bit (test_mlp9.py compares
  the whole program with STRIDED_NO_CEXT=1 in a subprocess, and with PyTorch).
"""

import threading
import weakref

import numpy as np
import pytest

import strided as xp
from strided.autograd import _graph, _mode

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]
CG = _graph._cgrad
compiled = pytest.mark.skipif(CG is None or not hasattr(CG, "NodeBase") or not hasattr(CG, "GradState"),
                              reason="the compiled paths are not built (or STRIDED_NO_CEXT=1)")

_DEFAULTS = {"_nout": 1, "next_functions": (), "_pre": None, "_retains": None, "_prehooks": None,
             "_hooks": None}
_UNSET = ("_seq", "_rule", "_slots", "_metas", "_needs", "_out_metas", "_vals", "variable")


def _bases():
    """Node's base as built (NodeBase where compiled) and the definition (_NodeFields)."""
    out = [_graph._NodeFields]
    if CG is not None and hasattr(CG, "NodeBase"):
        out.append(CG.NodeBase)
    return out


@pytest.mark.parametrize("base", _bases(), ids=lambda b: b.__name__)
def test_node_fields_read_write_delete_as_the_definition(base):
    cls = type("SomeBackward0", (base,), {})
    n = object.__new__(cls)  # (as the recorders make nodes: no __init__)
    for k, v in _DEFAULTS.items():
        assert getattr(n, k) == v, k
    for k in _UNSET:
        with pytest.raises(AttributeError, match=k):
            getattr(n, k)
    for k in tuple(_DEFAULTS) + _UNSET:
        setattr(n, k, [k])
        assert getattr(n, k) == [k]
        delattr(n, k)
        assert getattr(n, k, "missing") == _DEFAULTS.get(k, "missing"), k
    n.other = 5
    assert n.__dict__ == {"other": 5}
    r = weakref.ref(n)
    assert r() is n
    del n
    assert r() is None


@compiled
def test_node_is_nodebase_and_its_fields_are_not_in_the_dict():
    assert _graph.Node.__mro__[1] is CG.NodeBase
    x = xp.asarray(np.arange(3.0), device="cpu").requires_grad_()
    y = (x * 2).sum()
    n = y.grad_fn
    assert n.next_functions[0][0].next_functions[0][0].variable is x
    assert n._nout == 1 and n._rule is not None and "_rule" not in n.__dict__
    assert n.metadata == {} and n.__dict__ == {"_metadata": {}}


def _graph_with_hooks(log):
    """y = sum(relu(x * w) + x) with a tensor hook, a node pre-hook, a node hook and
    retain_grad on the way; every hook appends its name to log."""
    x = xp.asarray(np.array([1.0, -2.0, 3.0], np.float32), device="cpu").requires_grad_()
    w = xp.asarray(np.array([0.5, 0.25, -1.0], np.float32), device="cpu").requires_grad_()
    t = x * w
    t.retain_grad()
    t.register_hook(lambda g: log.append("tensor") or g * 2)
    r = xp.relu(t)
    r.grad_fn.register_prehook(lambda gs: log.append("pre") or None)
    r.grad_fn.register_hook(lambda gi, go: log.append("post") or None)
    x.register_hook(lambda g: log.append("leaf") or None)
    y = xp.sum(r + x)
    return x, w, t, y


def _run(python_loop, monkeypatch, shadow=None):
    log = []
    x, w, t, y = _graph_with_hooks(log)
    if shadow is not None:
        shadow(y, log)
    with monkeypatch.context() as m:
        if python_loop:
            m.setattr(_graph, "_cgrad", None)
        y.backward()
    return log, [np.asarray(a).tobytes() for a in (x.grad, w.grad, t.grad)]


@compiled
def test_hooks_run_in_the_python_loops_order(monkeypatch):
    c, p = _run(False, monkeypatch), _run(True, monkeypatch)
    assert c == p
    assert c[0] == ["pre", "tensor", "post", "leaf"] or "tensor" in c[0]


def _shadow_hooks_by_class(y, log):
    # add's node (no hooks of its own) gets a class of its own whose _hooks is a class
    # attribute: the field's descriptor is shadowed, so the engine must read the
    # attribute, not the empty field
    n = y.grad_fn.next_functions[0][0]
    sub = type(type(n).__name__, (type(n),), {"_hooks": [lambda gi, go: log.append("class hook") or None]})
    n.__class__ = sub


def _own_apply(y, log):
    n = y.grad_fn.next_functions[0][0]  # AddBackward0
    cls_apply = type(n).apply
    n.apply = lambda grads: log.append("own apply") or cls_apply(n, grads)
    n.release = lambda: log.append("own release")


@compiled
@pytest.mark.parametrize("shadow", [_shadow_hooks_by_class, _own_apply])
def test_shadowed_fields_and_methods_are_read_as_attributes(monkeypatch, shadow):
    c, p = _run(False, monkeypatch, shadow), _run(True, monkeypatch, shadow)
    assert c == p
    assert any(e in c[0] for e in ("class hook", "own apply"))


@compiled
def test_a_class_changed_after_the_engine_met_it():
    log = []
    sub = type("ChangedBackward", (_graph.Node,), {"apply": lambda self, grads: log.append("apply") or [grads[0]]})

    def backward():
        x = xp.asarray(np.ones(2, np.float32), device="cpu").requires_grad_()
        n = sub()  # a root node of our own, in front of x * 3's
        n.next_functions = (((x * 3).grad_fn, 0),)
        _graph.run_backward([(n, 0)], [xp.ones(2, dtype=xp.float32, device="cpu")], False, False)
        return x

    backward()  # (the engine meets ChangedBackward: its layout is kept)
    assert log == ["apply"]
    sub._pre = {0: [lambda g: log.append("class pre") or None]}  # (a class attribute now)
    x = backward()
    assert log == ["apply", "class pre", "apply"]
    np.testing.assert_array_equal(np.asarray(x.grad), np.full(2, 3, np.float32))


def _thread_modes(state):
    """Two threads that each set their own mode and read it while the other holds the
    opposite one; a third, new, that reads the default."""
    seen = {}
    gate = threading.Barrier(2)

    def run(name, flag):
        state.enabled = flag
        gate.wait()
        seen[name] = state.enabled
        gate.wait()
        seen[name + " after"] = state.enabled

    ts = [threading.Thread(target=run, args=("off", False)), threading.Thread(target=run, args=("on", True))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    t = threading.Thread(target=lambda: seen.__setitem__("new", state.enabled))
    t.start()
    t.join()
    state.enabled = 0
    seen["zero"] = bool(state.enabled)
    state.enabled = True
    return seen


def test_grad_state_is_per_thread_as_the_definition():
    states = [_mode._State()]
    if CG is not None and hasattr(CG, "GradState"):
        states.append(CG.GradState())
        assert _mode.STATE.__class__ is CG.GradState
    want = {"off": False, "on": True, "off after": False, "on after": True, "new": True, "zero": False}
    for s in states:
        assert _thread_modes(s) == want, type(s).__name__


def test_grad_modes_in_two_threads_at_once():
    out = {}
    gate = threading.Barrier(2)
    x = xp.asarray(np.ones(3, np.float32), device="cpu").requires_grad_()

    def off():
        with xp.no_grad():
            gate.wait()
            out["off"] = (x * 2).requires_grad, xp.autograd.is_grad_enabled()
            gate.wait()

    def on():
        with xp.autograd.set_grad_enabled(False):
            with xp.autograd.enable_grad():
                gate.wait()
                out["on"] = (x * 2).requires_grad, xp.autograd.is_grad_enabled()
                gate.wait()

    ts = [threading.Thread(target=off), threading.Thread(target=on)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out == {"off": (False, False), "on": (True, True)}
    assert xp.autograd.is_grad_enabled()


def _mlp_steps(k=3):
    rng = np.random.default_rng(11)
    sizes, batch = (8, 16, 16, 4), 4
    ps = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        ps.append(xp.asarray(rng.uniform(-0.3, 0.3, (a, b)).astype(np.float32), device="cpu").requires_grad_())
        ps.append(xp.asarray(rng.uniform(-0.3, 0.3, b).astype(np.float32), device="cpu").requires_grad_())
    x = xp.asarray(rng.standard_normal((batch, 8)).astype(np.float32), device="cpu")
    onehot = xp.asarray(np.eye(4, dtype=np.float32)[rng.integers(0, 4, batch)], device="cpu")
    out = []
    for _ in range(k):
        z = x
        for i in range(3):
            z = z @ ps[2 * i] + ps[2 * i + 1]
            if i < 2:
                z = xp.relu(z)
        m = xp.max(z, axis=1, keepdims=True)
        loss = xp.sum(onehot * (xp.log(xp.sum(xp.exp(z - m), axis=1, keepdims=True)) + m - z)) / batch
        loss.backward()
        out += [np.asarray(p.grad).tobytes() for p in ps] + [np.asarray(loss.detach()).tobytes()]
        with xp.no_grad():
            for p in ps:
                p -= 0.01 * p.grad
                p.grad = None
    return out + [np.asarray(p.detach()).tobytes() for p in ps]


@compiled
def test_mlp_steps_with_the_compiled_engine_are_the_python_loops(monkeypatch):
    c = _mlp_steps()
    monkeypatch.setattr(_graph, "_cgrad", None)
    assert _mlp_steps() == c


def _exp_grad(x0):
    x = xp.asarray(np.array(x0, np.float32), device="cpu").requires_grad_()
    xp.sum(xp.exp(x)).backward()
    return np.asarray(x.grad)


def test_rule_attributes_are_read_as_they_are_now(monkeypatch):
    # The compiled recorders and apply read a rule's attributes from Rule's slots: a rule
    # given another formula, and the Rule class changed, are seen at once (as the Python
    # definition, STRIDED_NO_CEXT=1, sees them)
    from strided.autograd import _record
    r = _record.RULES["exp"]
    assert not hasattr(r, "__dict__")
    base = _exp_grad([0.0, 1.0])
    np.testing.assert_allclose(base, np.exp([0.0, 1.0]).astype(np.float32), rtol=1e-6)
    monkeypatch.setattr(r, "formulas", {"x": lambda g, result: g * 0 + 7})
    np.testing.assert_array_equal(_exp_grad([0.0, 1.0]), np.full(2, 7, np.float32))
    monkeypatch.setattr(_record.Rule, "unrelated", 1, raising=False)  # (Rule's version tag changes)
    np.testing.assert_array_equal(_exp_grad([0.0, 1.0]), np.full(2, 7, np.float32))
    monkeypatch.undo()
    np.testing.assert_array_equal(_exp_grad([0.0, 1.0]), base)


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_nodes_are_not_copied_or_pickled_as_pytorchs(how):
    import copy
    import pickle

    f = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": pickle.dumps}[how]
    x = xp.asarray(np.ones(2, np.float32), device="cpu").requires_grad_()
    with pytest.raises(TypeError, match="^cannot pickle 'MulBackward0' object$"):
        f((x * 2).grad_fn)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="^cannot pickle 'MulBackward0' object$"):
        f((torch.ones(2, requires_grad=True) * 2).grad_fn)
