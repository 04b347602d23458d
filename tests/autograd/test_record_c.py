"""The compiled recorder of elementwise rows (``_cgrad.record_ew``) against its Python
definition (``_record._record_ew``, what STRIDED_NO_CEXT=1 runs).

Each case calls one elementwise row out of place on inputs of many kinds (leaves that
require grad, recorded results, views of leaves and of results, constants, integer
arrays, Python scalars, arrays with a Storage and lazy ones), once through each
recorder, from the same starting state, and compares everything the recording leaves:
the node's class, sequence order, slots, metadata, needed parameters, edges (by the
identity of the nodes they lead to), output metadata, the saved values (kind, version,
output number, producer) and the result's autograd record; then the gradients a
backward through each graph gives (bit for bit), the version-counter error after an
in-place write to a saved input, hooks and ``retain_graph``, and errors raised by the
kernel. The gradients themselves are checked against PyTorch in the other files of
this folder; here the two recorders must agree exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strided as xp
from conftest import cpu_only
from strided.autograd import _graph, _record
from strided.autograd._graph import SavedVar, ViewInfo

C = _record._record_ew
PY = _record._record_ew_py

pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(C is PY, reason="the compiled recorder is not built (or "
                                 "STRIDED_NO_CEXT=1): there is nothing to compare"), cpu_only]

UNARY = ("exp", "tanh", "negative", "square", "relu", "abs", "sqrt", "log1p")
BINARY = ("add", "subtract", "multiply", "divide", "maximum", "pow", "atan2")
KINDS = ("leaf", "result", "leaf_view", "result_view", "const", "const_view", "int", "scalar",
         "stored_result")


def _make(kind, seed, dtype):
    """A fresh operand of ``kind`` (and the leaves it hangs from)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 2.0, (3, 4)).astype(dtype)
    if kind == "scalar":
        return 1.5, []
    if kind == "int":
        return xp.asarray(rng.integers(1, 4, (3, 4))), []
    if kind.startswith("const"):
        c = xp.asarray(a)
        return (c[:, 1:2] if kind == "const_view" else c), []
    leaf = xp.asarray(a).requires_grad_()
    if kind == "leaf":
        return leaf, [leaf]
    if kind == "leaf_view":
        return leaf[:, 1:2], [leaf]
    r = leaf * 1.25
    if kind == "result_view":
        return r[1:2, :], [leaf]
    if kind == "stored_result":
        _ = r[0]  # (a view of it gives the result a Storage)
    return r, [leaf]


def _saved(v, nodes):
    if type(v) is SavedVar:
        x = v._x
        return ("saved", v._ver, v._nr, v._st is None, x._shape, x._dtype.name,
                type(v._producer).__name__, x._ext is None)
    if type(v) in (list, tuple):
        return type(v)(_saved(a, nodes) for a in v)
    return ("value", repr(v))


def _record_of(result, args, seq0):
    """What a recording left, with nodes named by class and by creation order."""
    e = result._ext if type(result) is xp.Array else None
    if e is None or e.grad_fn is None:
        return ("no node", e is not None and e.requires_grad)
    n = e.grad_fn
    ids = {}

    def nid(node):
        if node is None:
            return None
        if node is n:
            return "self"
        return (type(node).__name__, node._seq - seq0 if node._seq >= seq0 else "old")

    iv = e.is_view
    view = None
    if type(iv) is ViewInfo:
        base = [k for k, a in enumerate(args) if a is iv.base or
                (type(a) is xp.Array and a._ext is not None and type(a._ext.is_view) is ViewInfo
                 and a._ext.is_view.base is iv.base)]
        view = ("view", base, iv.version)
    del ids
    return (type(n).__name__, n._seq - seq0, n._rule.name, n._slots, n._metas, sorted(n._needs),
            [(nid(c), nr) for c, nr in n.next_functions], n._out_metas, n._nout,
            sorted((k, _saved(v, None)) for k, v in n._vals.items()),
            e.requires_grad, e.output_nr, view, e.grad is None, e.retains_grad, e.hooks)


def _run(recorder, name, kinds, dtype, seed, monkeypatch):
    monkeypatch.setattr(_record, "_record_ew", recorder)
    args, leaves = [], []
    for k, kind in enumerate(kinds):
        v, ls = _make(kind, seed + k, dtype)
        args.append(v)
        leaves += ls
    seq0 = next(_graph._SEQ) + 1
    try:
        r = getattr(xp, name)(*args)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return [("error", type(e).__name__, str(e))]
    log = [_record_of(r, args, seq0)]
    if r.requires_grad:
        xp.sum(r * r).backward(retain_graph=True)
        log.append([None if x.grad is None else (x.grad._shape, np.asarray(x.grad).tobytes())
                    for x in leaves])
    return log


@settings(max_examples=250, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(UNARY + BINARY), k1=st.sampled_from(KINDS), k2=st.sampled_from(KINDS),
       dtype=st.sampled_from(("float32", "float64")), seed=st.integers(0, 50))
def test_compiled_recorder_leaves_what_the_python_one_leaves(name, k1, k2, dtype, seed, monkeypatch):
    kinds = (k1,) if name in UNARY else (k1, k2)
    if all(k in ("scalar", "int", "const", "const_view") for k in kinds):
        kinds = ("leaf",) + kinds[1:]
    if kinds == ("scalar", "scalar"):
        kinds = ("leaf", "scalar")
    ref = _run(PY, name, kinds, dtype, seed, monkeypatch)
    fast = _run(C, name, kinds, dtype, seed, monkeypatch)
    assert fast == ref
    assert ref[0][0] != "error"


def test_the_compiled_recorder_is_called(monkeypatch):
    """The comparison above compares two recorders: the compiled one is what link calls."""
    calls = []
    monkeypatch.setattr(_record, "_record_ew", lambda *a: (calls.append(a[0].name), C(*a))[1])
    x = xp.asarray([1.0, 2.0]).requires_grad_()
    y = x * x
    assert calls == ["multiply"] and type(y.grad_fn).__name__ == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("rec", ["C", "PY"])
def test_saved_input_modified_in_place_raises_the_same(rec, monkeypatch):
    """A saved input written in place after recording: the version check of backward
    (the message of PyTorch's, naming the node and the versions) is the same."""
    def go(recorder):
        monkeypatch.setattr(_record, "_record_ew", recorder)
        w = xp.asarray([1.0, 2.0, 3.0]).requires_grad_()
        a = w * 2.0
        y = a * a  # saves a twice
        with xp.no_grad():
            a += 1.0
        with pytest.raises(RuntimeError) as ei:
            y.sum().backward()
        return str(ei.value)
    msg = go(C if rec == "C" else PY)
    assert msg == go(PY)
    assert "modified by an inplace operation" in msg and "MulBackward0" in msg


def test_hooks_and_retain_graph_through_both_recorders(monkeypatch):
    def go(recorder):
        monkeypatch.setattr(_record, "_record_ew", recorder)
        w = xp.asarray([0.5, -1.0, 2.0], dtype=xp.float64).requires_grad_()
        seen = []
        h = xp.exp(w)
        h.register_hook(lambda g: seen.append(np.asarray(g).tolist()))
        h.retain_grad()
        z = xp.sum(h * w)
        z.backward(retain_graph=True)
        z.backward()
        out = [seen, np.asarray(h.grad).tolist(), np.asarray(w.grad).tolist()]
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            z.backward()
        return out
    assert go(C) == go(PY)
    # and against the formula: d/dw sum(exp(w) * w) = exp(w) (1 + w), twice
    w = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(go(C)[2], 2 * np.exp(w) * (1 + w), rtol=1e-12)


def test_kernel_errors_and_unneeded_gradients(monkeypatch):
    """A kernel's error propagates unchanged through both; with no gradient needed (an
    input that requires grad but is an integer array cannot be made here, so a constant
    and a detached value) no node is made."""
    def err(recorder):
        monkeypatch.setattr(_record, "_record_ew", recorder)
        x = xp.asarray([1.0, 2.0]).requires_grad_()
        try:
            xp.add(x, xp.asarray([1.0, 2.0, 3.0]))
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
        return None
    assert err(C) == err(PY) and err(PY) is not None

    def kernel_raises(recorder):
        monkeypatch.setattr(_record, "_record_ew", recorder)
        r = _record.RULES["exp"]
        x = xp.asarray([1.0]).requires_grad_()

        def boom(*a):
            raise ZeroDivisionError("kernel failed")
        with pytest.raises(ZeroDivisionError, match="kernel failed"):
            recorder(r, boom, (x, None))
        return x._ext.grad_fn, x._ext.requires_grad
    assert kernel_raises(C) == kernel_raises(PY) == (None, True)


def test_wrong_arguments_are_refused():
    with pytest.raises(TypeError, match="record_ew"):
        C(_record.RULES["exp"], xp.exp, [xp.asarray([1.0]), None])
    with pytest.raises(TypeError, match="record_ew"):
        C(_record.RULES["exp"], xp.exp)


# --- the fused operations' recorder (_fused._record: nn.functional.linear, cross_entropy) ---

from strided.autograd import _fused  # noqa: E402

FC, FPY = _fused._record, _fused._record_py


def _fused_run(recorder, seed, dtype, bias, x_rg, modify, monkeypatch):
    import strided.torch as storch
    F = storch.nn.functional
    monkeypatch.setattr(_fused, "_record", recorder)
    rng = np.random.default_rng(seed)
    x = xp.asarray(rng.standard_normal((5, 4)).astype(dtype))
    if x_rg:
        x.requires_grad_()
    W = xp.asarray(rng.standard_normal((3, 4)).astype(dtype)).requires_grad_()
    b = xp.asarray(rng.standard_normal(3).astype(dtype)).requires_grad_() if bias else None
    y = xp.asarray(rng.integers(0, 3, 5))
    seq0 = next(_graph._SEQ) + 1
    h = F.linear(x, W, b)
    loss = F.cross_entropy(h, y)
    log = [_record_of(h, (x, W, b), seq0), _record_of(loss, (h,), seq0)]
    if modify:
        with xp.no_grad():
            x += 1.0  # x is saved by the linear node
    try:
        loss.backward()
    except RuntimeError as e:
        return log + [("error", str(e))]
    return log + [[None if a is None or a.grad is None else np.asarray(a.grad).tobytes() for a in (x, W, b)]]


@pytest.mark.skipif(FC is FPY, reason="the compiled recorder is not built")
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 20), dtype=st.sampled_from(("float32", "float64")), bias=st.booleans(),
       x_rg=st.booleans(), modify=st.booleans())
def test_compiled_fused_recorder_leaves_what_the_python_one_leaves(seed, dtype, bias, x_rg, modify,
                                                                    monkeypatch):
    ref = _fused_run(FPY, seed, dtype, bias, x_rg, modify, monkeypatch)
    fast = _fused_run(FC, seed, dtype, bias, x_rg, modify, monkeypatch)
    assert fast == ref
    assert ref[0][0] == ("AddmmBackward0" if bias else "MmBackward0")
    if modify and x_rg:
        assert ref[-1][0] == "error" and "modified by an inplace operation" in ref[-1][1]


@pytest.mark.skipif(FC is FPY, reason="the compiled recorder is not built")
def test_compiled_fused_recorder_gradients_match_torch():
    torch = pytest.importorskip("torch")  # (the 3.12 CI leg has no PyTorch)

    import strided.torch as storch
    rng = np.random.default_rng(5)
    xn, Wn, bn = (rng.standard_normal(s) for s in ((6, 4), (3, 4), (3,)))
    yn = rng.integers(0, 3, 6)
    x, W, b = (xp.asarray(v).requires_grad_() for v in (xn, Wn, bn))
    loss = storch.nn.functional.cross_entropy(storch.nn.functional.linear(x, W, b), xp.asarray(yn))
    loss.backward()
    tx, tW, tb = (torch.tensor(v, requires_grad=True) for v in (xn, Wn, bn))
    torch.nn.functional.cross_entropy(torch.nn.functional.linear(tx, tW, tb), torch.tensor(yn)).backward()
    for a, t in ((x, tx), (W, tW), (b, tb)):
        np.testing.assert_allclose(np.asarray(a.grad), t.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_record_node_refuses_wrong_arguments():
    if FC is FPY:
        pytest.skip("the compiled recorder is not built")
    r = _fused._NLL
    with pytest.raises(TypeError, match="record_node"):
        FC(r, r.cls, (("x",),), (), xp.asarray([1.0]))
    with pytest.raises(TypeError, match="record_node"):
        FC(r, "not a class", (), (), xp.asarray([1.0]))


# --- the generic recorder (_record._record, compiled as record_call) ----------------------

CALL = _record._record_call

OPS = {
    "matmul": lambda a, b: xp.matmul(a, xp.permute_dims(b, (1, 0))),
    "sum": lambda a, b: xp.sum(a, axis=1, keepdims=True),
    "sum_all": lambda a, b: xp.sum(a),
    "max": lambda a, b: xp.max(a, axis=0),
    "mean": lambda a, b: xp.mean(a, axis=-1),
    "permute_dims": lambda a, b: xp.permute_dims(a, (1, 0)),
    "reshape": lambda a, b: xp.reshape(a, (4, 3)),
    "flip": lambda a, b: xp.flip(a, axis=0),
    "expand_dims": lambda a, b: xp.expand_dims(a, axis=0),
    "concat": lambda a, b: xp.concat([a, b], axis=0),
    "stack": lambda a, b: xp.stack((a, b)),
    "where": lambda a, b: xp.where(a > 1.0, a, b),
    "cumulative_sum": lambda a, b: xp.cumulative_sum(a, axis=1),
    "clip": lambda a, b: xp.clip(a, 0.8, 1.5),
    "vecdot": lambda a, b: xp.vecdot(a, b),
    "bad axis": lambda a, b: xp.sum(a, axis=5),
    "bad keyword": lambda a, b: xp.sum(a, axes=1),
}


def _call_run(recorder, op, k1, k2, dtype, seed, monkeypatch):
    monkeypatch.setattr(_record, "_record_call", recorder)
    (a, la), (b, lb) = _make(k1, seed, dtype), _make(k2, seed + 1, dtype)
    if type(a) is not xp.Array:
        a = xp.asarray(np.full((3, 4), a, dtype))
    if type(b) is not xp.Array:
        b = xp.asarray(np.full((3, 4), b, dtype))
    seq0 = next(_graph._SEQ) + 1
    try:
        r = OPS[op](a, b)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return [("error", type(e).__name__, str(e))]
    log = [_record_of(r, (a, b), seq0)]
    if r.requires_grad:
        try:
            xp.sum(r * r).backward()
        except Exception as e:  # noqa: BLE001
            log.append(("error", type(e).__name__, str(e)))
        log.append([None if x.grad is None else (x.grad._shape, np.asarray(x.grad).tobytes())
                    for x in la + lb])
    return log


@pytest.mark.skipif(CALL is None, reason="the compiled recorder is not built")
@settings(max_examples=250, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(op=st.sampled_from(sorted(OPS)), k1=st.sampled_from(KINDS), k2=st.sampled_from(KINDS),
       dtype=st.sampled_from(("float32", "float64")), seed=st.integers(0, 50))
def test_compiled_generic_recorder_leaves_what_the_python_one_leaves(op, k1, k2, dtype, seed, monkeypatch):
    if k1 == "leaf_view" or k2 == "leaf_view" or k1 == "result_view" or k2 == "result_view":
        k1, k2 = ("leaf", k2) if k1.endswith("_view") else (k1, k2)
        k2 = "result" if k2.endswith("_view") else k2
    ref = _call_run(None, op, k1, k2, dtype, seed, monkeypatch)
    fast = _call_run(CALL, op, k1, k2, dtype, seed, monkeypatch)
    assert fast == ref
    if op.startswith("bad"):
        assert ref[0][0] == "error"


@pytest.mark.skipif(CALL is None, reason="the compiled recorder is not built")
def test_the_compiled_generic_recorder_is_called(monkeypatch):
    calls = []
    monkeypatch.setattr(_record, "_record_call", lambda *a: (calls.append(a[0]), CALL(*a))[1])
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=xp.float64).requires_grad_()
    y = xp.sum(x @ x, axis=0)
    assert calls == ["matmul", "sum"] and type(y.grad_fn).__name__ == "SumBackward1"
    y.sum().backward()
    # d/dx sum(x @ x) = 1 1^T x^T + x^T 1 1^T
    xn = np.array([[1.0, 2.0], [3.0, 4.0]])
    one = np.ones((2, 2))
    np.testing.assert_allclose(np.asarray(x.grad), one @ xn.T + xn.T @ one, rtol=1e-15)


@pytest.mark.skipif(CALL is None, reason="the compiled recorder is not built")
def test_record_call_refuses_wrong_arguments():
    r = _record.RULES["matmul"]
    with pytest.raises(TypeError, match="record_call"):
        CALL("matmul", r, xp.matmul, [1], {}, None)
    with pytest.raises(TypeError, match="record_call"):
        CALL("matmul", r)
