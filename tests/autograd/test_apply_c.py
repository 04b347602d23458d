"""The compiled ``RuleNode.apply`` (``_cgrad.rule_apply``, which the engine's compiled loop
runs for rule nodes) against its Python definition (``_record.RuleNode.apply``, what
STRIDED_NO_CEXT=1 runs).

Two ways: node by node, ``rule_apply(node, grads)`` and ``RuleNode.apply(node, grads)``
on every node of recorded graphs (results bit for bit, ``None`` where the definition
gives ``None``, the same error for a freed node and for a saved value written since);
and whole programs run once with the compiled apply and once with it turned off (the
engine then calls the definition), comparing every gradient bit for bit: saved inputs
and outputs, joint and per-parameter formulas, ZERO gradients, list arguments (indexed
slots), broadcasting (``fit_grad``), several outputs (the definition runs), tensor and
node hooks, ``retain_grad``, ``retain_graph``, ``create_graph`` (double backward), and
the errors. The gradients themselves are checked against PyTorch and finite differences
in the other files of this folder.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from conftest import cpu_only
from strided import autograd as ag
from strided.autograd import _graph, _record
from strided.autograd._function import fit_grad
from strided.autograd._mode import STATE

CG = _graph._cgrad
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(CG is None or not hasattr(CG, "rule_apply"), reason="the compiled "
                                 "apply is not built (or STRIDED_NO_CEXT=1): nothing to compare"), cpu_only]

PY_APPLY = _record.RuleNode.apply


def _off():
    pass


def _setup(on: bool):
    CG.setup_apply(PY_APPLY if on else _off, _record.ZERO, STATE, _graph.FREED, _graph.unpack, fit_grad,
                   _record._zeros_if_none, object.__new__)


@pytest.fixture
def compiled_off():
    """The engine with the definition (a function that is not RuleNode.apply turns the
    compiled one off); restored after."""
    _setup(False)
    try:
        yield
    finally:
        _setup(True)


def _bits(a):
    if a is None:
        return None
    n = np.asarray(a.detach() if hasattr(a, "detach") else a)
    return n.dtype.str, n.shape, np.ascontiguousarray(n).tobytes()


def _program(kind, seed, dtype):
    """(loss, leaves) of one program; every call builds a fresh graph from the same values."""
    rng = np.random.default_rng(seed)
    A = rng.uniform(0.5, 2.0, (4, 5)).astype(dtype)
    B = rng.uniform(-1.0, 1.0, (5, 3)).astype(dtype)
    c = rng.uniform(-1.0, 1.0, (3,)).astype(dtype)
    a, b, bias = (xp.asarray(v, device="cpu").requires_grad_() for v in (A, B, c))
    if kind == "mlp":  # the standard namespace's MLP step: joint matmul, relu, max, log-sum-exp
        z = xp.relu(a @ b + bias)
        m = xp.max(z, axis=1, keepdims=True)
        loss = xp.sum(xp.log(xp.sum(xp.exp(z - m), axis=1, keepdims=True)) + m - z) / 4
    elif kind == "broadcast":  # fit_grad: sums down to the input's shape
        loss = xp.sum(xp.tanh(a[:, :3] * bias) * xp.sin(b[1:2, :]))
    elif kind == "lists":  # saved lists and indexed slots
        s = xp.stack([a[:, 0], a[:, 1] * 2.0, xp.exp(a[:, 2])])
        cc = xp.concat([s, xp.expand_dims(bias[:1] * a[:, 3], axis=0)], axis=0)
        loss = xp.sum(cc * cc)
    elif kind == "zero":  # ZERO formulas next to others
        loss = xp.sum(xp.floor(a) * a) + xp.sum(xp.sign(b) @ xp.square(bias)[:, None]) + xp.sum(xp.abs(b))
    elif kind == "multi":  # a node of several outputs (the definition runs)
        vals, vecs = xp.linalg.eigh(a @ a.mT + xp.eye(4, dtype=a.dtype))
        loss = xp.sum(vals * vals) + xp.sum(xp.abs(vecs[:, 0]) * b[0, 0])
    else:  # "hooks": tensor hook, retain_grad, node hooks
        h = a @ b
        h.register_hook(lambda g: g * 2.0)
        h.retain_grad()
        r = xp.exp(h) + bias
        r.grad_fn.register_hook(lambda gi, go: None)
        r.grad_fn.register_prehook(lambda go: (go[0] * 0.5,))
        loss = xp.sum(r * r)
    return loss, [a, b, bias]


KINDS = ["mlp", "broadcast", "lists", "zero", "multi", "hooks"]


def _run(kind, seed, dtype, mode):
    loss, leaves = _program(kind, seed, dtype)
    if mode == "plain":
        loss.backward()
        out = [x.grad for x in leaves]
    elif mode == "retain":  # twice, accumulating, through one graph
        loss.backward(retain_graph=True)
        loss.backward()
        out = [x.grad for x in leaves]
    else:  # "double": create_graph, then a backward of the gradients
        gs = ag.grad(loss, leaves, create_graph=True, allow_unused=True)
        total = sum(xp.sum(g * g) for g in gs if g is not None)
        out = list(gs) + list(ag.grad(total, leaves, allow_unused=True))
    return [_bits(g) for g in out]


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 2**16), dtype=st.sampled_from(["float32", "float64"]),
       mode=st.sampled_from(["plain", "retain", "double"]))
def test_programs_give_the_same_gradients_with_either_apply(kind, seed, dtype, mode):
    if kind == "multi" and mode == "double":
        mode = "plain"  # (eigh's double backward is not the point here)
    got = _run(kind, seed, dtype, mode)
    _setup(False)
    try:
        want = _run(kind, seed, dtype, mode)
    finally:
        _setup(True)
    assert got == want


def _nodes(loss):
    seen, todo, out = set(), [loss.grad_fn], []
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n)
        todo.extend(e[0] for e in n.next_functions)
    return out


@pytest.mark.parametrize("kind", ["mlp", "broadcast", "lists", "zero", "multi"])
@pytest.mark.parametrize("create", [False, True])
def test_each_node_applies_to_the_same_result(kind, create):
    loss, _ = _program(kind, 7, "float64")
    checked = 0
    for node in _nodes(loss):
        if not isinstance(node, _record.RuleNode):
            continue
        grads = [xp.ones(m[0], dtype=m[1], device=m[2]) for m in node._out_metas]
        with ag.enable_grad() if create else ag.no_grad():
            got = CG.rule_apply(node, list(grads))
            want = PY_APPLY(node, list(grads))
        assert type(got) is list and len(got) == len(want)
        assert [_bits(g) for g in got] == [_bits(g) for g in want], type(node).__name__
        checked += 1
    assert checked >= 3


def test_the_same_errors():
    # a saved input written since: the version-counter error, word for word
    a = xp.asarray(np.linspace(0.5, 2.0, 6), device="cpu").requires_grad_()
    b = a * 1.0
    loss = xp.sum(xp.exp(b) * b)
    node = loss.grad_fn.next_functions[0][0]  # MulBackward0, saving exp(b) and b
    with xp.no_grad():
        b += 1.0
    errs = []
    for f in (CG.rule_apply, PY_APPLY):
        with pytest.raises(RuntimeError) as e:
            f(node, [xp.ones(6, dtype=a.dtype, device="cpu")])
        errs.append(str(e.value))
    assert errs[0] == errs[1] and "modified by an inplace operation" in errs[0]
    # a freed node
    loss = xp.sum(xp.exp(a) * a)
    loss.backward()
    node = loss.grad_fn.next_functions[0][0]
    errs = []
    for f in (CG.rule_apply, PY_APPLY):
        with pytest.raises(RuntimeError) as e:
            f(node, [xp.ones(6, dtype=a.dtype, device="cpu")])
        errs.append(str(e.value))
    assert errs[0] == errs[1] == _graph.FREED
    # the engine's error for the same program, either apply
    msgs = []
    for on in (True, False):
        _setup(on)
        try:
            x = xp.asarray(np.linspace(0.5, 2.0, 6), device="cpu").requires_grad_()
            y = x * 1.0
            s = xp.sum(xp.exp(y) * y)
            with xp.no_grad():
                y += 1.0
            with pytest.raises(RuntimeError) as e:
                s.backward()
            msgs.append(str(e.value))
        finally:
            _setup(True)
    assert msgs[0] == msgs[1]


def test_an_error_in_a_formula_propagates_unchanged(compiled_off):
    _setup(True)
    r = ag.Function  # (a custom Function's node is not a RuleNode: untouched)
    assert r is not None
    a = xp.asarray([1.0, 2.0], device="cpu").requires_grad_()
    y = xp.sum(xp.exp(a))
    node = y.grad_fn
    with pytest.raises(Exception) as e1:
        CG.rule_apply(node, ["not an array"])
    with pytest.raises(Exception) as e2:
        PY_APPLY(node, ["not an array"])
    assert type(e1.value) is type(e2.value) and str(e1.value) == str(e2.value)
