"""Differential testing of the backward engine: the compiled loop (and the compiled
recorder of elementwise rows, ``_cgrad.record_ew``) against the Python ones.

``run_backward`` (strided/autograd/_graph.py) is the definition; ``_csrc/_cgrad.c``
runs its walk and its loop for a plain backward. Hypothesis writes small
differentiable programs -- elementwise operations with broadcasting, reductions with
and without kept dimensions, matmul, views, in-place writes under ``no_grad()``,
tensor and node hooks, ``retain_grad()``, two backward passes (accumulated with
``retain_graph=True``, or refused without it) -- and each program runs twice in this
process, once with the compiled loop and once with ``_graph._cgrad = None`` (the Python
loop, as under STRIDED_NO_CEXT=1). The runs must agree bit for bit on every gradient
(``.grad`` of the leaves, retained gradients, what hooks saw, in the order they saw
it), on the graph (``grad_fn`` names and the edges of ``next_functions``) and on every
error (type and message). Further tests hand the compiled loop nodes it does not
expect (edges that are lists, odd output counts, a failing ``apply``) and check that it
gives them to the Python loop with the same outcome.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strided as xp
from conftest import cpu_only
from strided.autograd import _graph, _record, _rules

CGRAD = _graph._cgrad
RECORD_EW = _record._record_ew  # (the compiled recorder when CGRAD is built)
# The compiled paths under test serve CPU arrays (on another device they decline at once):
# with another default device (the cuda stand-in run) there is nothing of theirs to compare.
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(CGRAD is None, reason="the compiled engine is not built "
                                "(or STRIDED_NO_CEXT=1): there is nothing to compare"), cpu_only]

SHAPES = {"m": (3, 4), "r": (4,), "c": (3, 1), "k": (4, 2)}

# --- programs ------------------------------------------------------------------------------
# A program is a list of steps on a list of values ``vals`` (arrays, leaves first); each
# step appends what it makes. Steps name values by index modulo len(vals).

BINARY = ("add", "subtract", "multiply", "divide", "maximum")
UNARY = ("exp", "tanh", "negative", "sin", "abs", "square")


@st.composite
def steps(draw):
    kind = draw(st.sampled_from(("bin", "bin", "un", "un", "red", "mm", "view", "scalar", "relu",
                                 "inplace", "hook", "retain", "detach")))
    i, j = draw(st.integers(0, 63)), draw(st.integers(0, 63))
    if kind == "bin":
        return ("bin", draw(st.sampled_from(BINARY)), i, j)
    if kind == "un":
        return ("un", draw(st.sampled_from(UNARY)), i)
    if kind == "red":
        return ("red", draw(st.sampled_from(("sum", "mean", "max"))), i,
                draw(st.sampled_from((None, 0, 1, -1))), draw(st.booleans()))
    if kind == "scalar":
        return ("scalar", draw(st.sampled_from(("mul", "add", "rdiv", "pow"))), i,
                draw(st.sampled_from((0.5, 2.0, -1.5, 3))))
    if kind == "relu":
        return ("relu", draw(st.sampled_from(("maximum", "minimum"))), i,
                draw(st.sampled_from((0.0, -0.0, 0, 0.5))), draw(st.booleans()))
    if kind == "view":
        return ("view", draw(st.sampled_from(("T", "slice", "reshape", "expand", "flip"))), i)
    if kind == "inplace":
        return ("inplace", draw(st.sampled_from(("mul_", "add_", "zero_"))), i)
    return (kind, i)


@st.composite
def programs(draw):
    dtype = draw(st.sampled_from(("float32", "float64")))
    leaves = draw(st.lists(st.sampled_from(tuple(SHAPES)), min_size=1, max_size=3))
    body = draw(st.lists(steps(), min_size=1, max_size=12))
    passes = draw(st.sampled_from(("one", "retain_twice", "twice", "grad_arg")))
    node_hook = draw(st.booleans())
    return dtype, leaves, body, passes, node_hook


def _bits(a) -> tuple:
    n = np.asarray(a.detach() if hasattr(a, "detach") else a)
    return (str(n.dtype), n.shape, n.tobytes())


def _graph_of(root) -> list:
    """The graph from ``root``: (name, edges as (index of node or None, output_nr)) per node,
    nodes numbered in the order a depth-first walk meets them."""
    index, out, todo = {}, [], [root]
    while todo:
        n = todo.pop()
        if n is None or n in index:
            continue
        index[n] = len(index)
        todo.extend(c for c, _ in reversed(n.next_functions))
    for n in index:
        out.append((type(n).__name__, tuple((None if c is None else index[c], nr)
                                            for c, nr in n.next_functions)))
    return out


def _err(e: BaseException) -> tuple:
    return ("error", type(e).__name__, str(e))


def run(program) -> list:
    """Run ``program`` on fresh inputs; everything that must not differ between the loops."""
    dtype, leaves, body, passes, node_hook = program
    rng = np.random.default_rng(7)
    log = []
    vals = [xp.asarray(rng.standard_normal(SHAPES[s]).astype(dtype)).requires_grad_() for s in leaves]
    leaf_arrays = list(vals)
    vals.append(xp.asarray(rng.standard_normal((3, 4)).astype(dtype)))  # a constant
    retained = []

    def pick(i):
        return vals[i % len(vals)]

    def hook(name):
        def h(g):
            log.append((name, _bits(g)))
            return g * 0.5 if name.endswith("!") else None
        return h

    for step in body:
        try:
            kind = step[0]
            if kind == "bin":
                r = getattr(xp, step[1])(pick(step[2]), pick(step[3]))
            elif kind == "un":
                r = getattr(xp, step[1])(pick(step[2]))
            elif kind == "red":
                a = pick(step[2])
                axis = step[3] if step[3] is None or a.ndim > 1 or step[3] in (0, -1) else None
                r = getattr(xp, step[1])(a, axis=axis, keepdims=step[4])
            elif kind == "mm":
                a = pick(step[1])
                b = vals[[k for k, s in enumerate(leaves) if s == "k"][0]] if "k" in leaves else \
                    xp.asarray(np.ones((a.shape[-1], 2), dtype))
                r = a @ b if a.ndim >= 1 and a.shape[-1] == b.shape[0] else a * 2
            elif kind == "scalar":
                a, s = pick(step[2]), step[3]
                r = {"mul": lambda: a * s, "add": lambda: s + a, "rdiv": lambda: s / (xp.abs(a) + 1),
                     "pow": lambda: a ** 2 if s == 3 else xp.abs(a) ** s}[step[1]]()
            elif kind == "relu":
                a, s = pick(step[2]), step[3]
                r = getattr(xp, step[1])(*((a, s) if step[4] else (s, a)))
            elif kind == "view":
                a = pick(step[2])
                r = {"T": lambda: a.T if a.ndim == 2 else a[None],
                     "slice": lambda: a[1:] if a.shape and a.shape[0] > 1 else a[...],
                     "reshape": lambda: xp.reshape(a, (-1,)),
                     "expand": lambda: xp.broadcast_to(a, (2,) + a.shape),
                     "flip": lambda: xp.flip(a, axis=0) if a.ndim else a}[step[1]]()
            elif kind == "inplace":
                a = pick(step[2])
                with xp.no_grad():
                    getattr(a, step[1])(*(() if step[1] == "zero_" else (1.5,)))
                r = None
            elif kind == "hook":
                a = pick(step[1])
                if a.requires_grad:
                    a.register_hook(hook(f"hook{len(vals)}{'!' if step[1] % 2 else ''}"))
                r = None
            elif kind == "retain":
                a = pick(step[1])
                if a.requires_grad and a.grad_fn is not None:
                    a.retain_grad()
                    retained.append(a)
                r = None
            else:
                r = pick(step[1]).detach()
            log.append(("step", step, None if r is None else _bits(r)))
            if r is not None:
                vals.append(r)
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            log.append(("step", step, _err(e)))

    # The loss: a sum of every value that requires grad (so every branch has a gradient).
    try:
        used = [v for v in vals if v.requires_grad]
        loss = xp.sum(used[-1] * 1.0) if used else None
        for v in used[:-1]:
            loss = loss + xp.sum(v)
    except Exception as e:  # noqa: BLE001
        log.append(("loss", _err(e)))
        return log
    if loss is None:
        return log
    log.append(("graph", _graph_of(loss.grad_fn)))
    if node_hook and loss.grad_fn is not None:
        loss.grad_fn.register_hook(lambda gi, go: log.append(("node hook", [_bits(g) for g in gi
                                                                            if g is not None])))
    for p in range(2 if passes in ("retain_twice", "twice") else 1):
        try:
            if passes == "grad_arg":
                loss.backward(xp.asarray(np.array(2.0, dtype)))
            else:
                loss.backward(retain_graph=passes == "retain_twice")
            log.append(("backward", p, "ok"))
        except Exception as e:  # noqa: BLE001
            log.append(("backward", p, _err(e)))
        log.append(("grads", p, [None if x.grad is None else _bits(x.grad) for x in leaf_arrays]))
        log.append(("retained", p, [None if x.grad is None else _bits(x.grad) for x in retained]))
    return log


def both(program, monkeypatch):
    """The program's record with the compiled engine and kernels, and without them."""
    for mod in (_graph, _rules):
        monkeypatch.setattr(mod, "_cgrad", None)
    monkeypatch.setattr(_record, "_record_ew", _record._record_ew_py)  # (the recorder too)
    ref = run(program)
    for mod in (_graph, _rules):
        monkeypatch.setattr(mod, "_cgrad", CGRAD)
    monkeypatch.setattr(_record, "_record_ew", RECORD_EW)
    fast = run(program)
    return fast, ref


def _first_difference(a, b) -> str:
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"entry {k}: compiled {x!r}\n  python {y!r}"
    return f"lengths {len(a)} and {len(b)}"


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(program=programs())
def test_compiled_and_python_loops_agree(program, monkeypatch):
    fast, ref = both(program, monkeypatch)
    assert fast == ref, _first_difference(fast, ref)


def test_the_compiled_loop_runs(monkeypatch):
    """The comparison above compares two loops: the compiled one does run a backward."""
    calls = []
    real = CGRAD.drain
    monkeypatch.setattr(_graph, "_cgrad", type("Spy", (), {
        "drain": staticmethod(lambda *a: (calls.append(1), real(*a))[1]),
        "discover": staticmethod(CGRAD.discover)}))
    x = xp.asarray([1.0, 2.0]).requires_grad_()
    (x * x).sum().backward()
    assert calls and x.grad.tolist() == [2.0, 4.0]


# --- what the compiled loop does not expect ---------------------------------------------------

def _mlp(dtype="float32"):
    rng = np.random.default_rng(3)
    W = xp.asarray(rng.standard_normal((4, 3)).astype(dtype)).requires_grad_()
    b = xp.asarray(rng.standard_normal(3).astype(dtype)).requires_grad_()
    x = xp.asarray(rng.standard_normal((5, 4)).astype(dtype))
    return W, b, x


def _grads_after(monkeypatch, engine, build):
    monkeypatch.setattr(_graph, "_cgrad", engine)
    W, b, x = _mlp()
    try:
        loss = build(W, b, x)
        loss.backward()
        return [_bits(W.grad), _bits(b.grad)]
    except Exception as e:  # noqa: BLE001
        return _err(e)


ODD_GRAPHS = {
    # next_functions replaced by a list: the walk and the loop leave that node to Python
    "edges as a list": lambda n: setattr(n, "next_functions", list(n.next_functions)),
    # an edge that is a list, not a 2-tuple: that node's edges go to _distribute
    "an edge as a list": lambda n: setattr(n, "next_functions",
                                           tuple(list(e) for e in n.next_functions)),
    # output counts that are not plain ints
    "a bool output count": lambda n: setattr(n, "_nout", True),
    "a float output count": lambda n: setattr(n, "_nout", 1.0),
    "a huge output count": lambda n: setattr(n, "_nout", 1 << 40),
    # an output index as a bool (an int subclass)
    "a bool output index": lambda n: setattr(n, "next_functions",
                                             tuple((c, bool(nr) if c is not None else nr)
                                                   for c, nr in n.next_functions)),
    # hooks held in containers of other types
    "hooks as a tuple": lambda n: setattr(n, "_prehooks", ()),
    # apply raises
    "apply raises": lambda n: setattr(n, "apply", lambda grads: 1 / 0),
    # apply returns a tuple, or a shorter list than the edges
    "apply returns a tuple": lambda n: setattr(n, "apply", (lambda f: lambda g: tuple(f(g)))(n.apply)),
    "apply returns fewer": lambda n: setattr(n, "apply", (lambda f: lambda g: list(f(g))[:1])(n.apply)),
    "a sequence number that is a float": lambda n: setattr(n, "_seq", n._seq + 0.5),
}


@pytest.mark.parametrize("what", sorted(ODD_GRAPHS))
def test_odd_nodes_take_the_python_loop(what, monkeypatch):
    def build(W, b, x):
        h = xp.maximum(x @ W + b, 0.0)
        loss = xp.sum(h * h)
        # the add node (its edges lead to matmul and b's AccumulateGrad)
        ODD_GRAPHS[what](h.grad_fn.next_functions[0][0])
        return loss

    ref = _grads_after(monkeypatch, None, build)
    fast = _grads_after(monkeypatch, CGRAD, build)
    assert fast == ref


def test_engine_entry_points_refuse_wrong_arguments():
    with pytest.raises(TypeError):
        CGRAD.drain([], {}, {})
    with pytest.raises(TypeError):
        CGRAD.drain((), {}, {}, False)
    with pytest.raises(TypeError):
        CGRAD.discover(())
    # a heap entry that is not (seq, node): drain leaves it to the Python loop
    heap = [("not", "an entry", "of three")]
    assert CGRAD.drain(heap, {}, {}, False) is None and len(heap) == 1
    # roots that are not edges: the walk declines
    assert CGRAD.discover([None]) is None


def test_gradient_stealing_survives_the_compiled_loop(monkeypatch):
    """A leaf's first .grad is the engine's own gradient (no copy) on both loops: the
    compiled loop holds no reference of its own while AccumulateGrad runs."""
    for engine in (None, CGRAD):
        monkeypatch.setattr(_graph, "_cgrad", engine)
        W, b, x = _mlp("float64")
        seen = {}
        for name, leaf in (("W", W), ("b", b)):  # (a hook keeps no reference to g)
            leaf.register_hook(lambda g, name=name: seen.__setitem__(name, id(g)))
        xp.sum(x @ W + b).backward()
        assert (id(W.grad), id(b.grad)) == (seen["W"], seen["b"]), engine


# --- the gradient of maximum(x, 0) and minimum(x, 0) in one pass (_cgrad.pick) ---------------

SPECIAL = (0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 1.0, -1.0, 5e-324)


@st.composite
def relu_cases(draw):
    dtype = draw(st.sampled_from((np.float32, np.float64)))
    n = draw(st.integers(0, 40))
    x = np.array(draw(st.lists(st.sampled_from(SPECIAL) | st.floats(-3, 3), min_size=n, max_size=n)),
                 dtype)
    g = np.array(draw(st.lists(st.sampled_from(SPECIAL) | st.floats(-3, 3), min_size=n, max_size=n)),
                 dtype)
    if draw(st.booleans()):  # a NaN gradient with a payload of its own
        g = g.copy()
        g.view(np.uint32 if dtype is np.float32 else np.uint64)[:1] |= 0x3
    layout = draw(st.sampled_from(("plain", "2d", "transposed", "strided")))
    return x, g, layout, draw(st.sampled_from(("maximum", "minimum"))), \
        draw(st.sampled_from((0.0, -0.0, 0, 0.25))), draw(st.booleans())


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=relu_cases())
def test_relu_gradient_kernel_matches_the_formula(case, monkeypatch):
    """Bit for bit the formula's answer (ties halve, NaN passes, +0.0 where x loses), for
    either zero, both dtypes, and layouts the kernel declines (transposed, strided)."""
    x, g, layout, fn, s, first = case
    view = lambda a: a  # noqa: E731
    if layout == "2d" and x.size % 2 == 0:
        x, g = x.reshape(2, -1), g.reshape(2, -1)
    elif layout == "transposed" and x.size % 2 == 0:  # the kernel's input is a transposed view
        x, g, view = x.reshape(2, -1), g.reshape(-1, 2), (lambda a: a.T)
    elif layout == "strided":  # every other element of the leaf
        x, view = np.repeat(x, 2), (lambda a: a[::2])
    out = []
    for engine in (None, CGRAD):
        monkeypatch.setattr(_rules, "_cgrad", engine)
        a = xp.asarray(x.copy()).requires_grad_()
        v = view(a)
        y = getattr(xp, fn)(*((v, s) if first else (s, v)))
        y.backward(xp.asarray(g.copy()))
        out.append((a.grad.dtype, a.grad.shape, np.asarray(a.grad).tobytes(), type(y.grad_fn).__name__))
    assert out[0] == out[1]


def test_relu_gradient_kernel_runs_and_agrees_with_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((128, 256)).astype(np.float32)
    x[0, :8] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 0.0]
    g = rng.standard_normal((128, 256)).astype(np.float32)
    calls = []
    real = CGRAD.pick
    _rules._cgrad = type("Spy", (), {"pick": staticmethod(lambda *a: calls.append(1) or real(*a))})
    try:
        a = xp.asarray(x).requires_grad_()
        xp.maximum(a, 0.0).backward(xp.asarray(g))
    finally:
        _rules._cgrad = CGRAD
    assert calls
    t = torch.from_numpy(x).requires_grad_()
    torch.maximum(t, torch.tensor(0.0)).backward(torch.from_numpy(g))
    np.testing.assert_array_equal(np.asarray(a.grad), t.grad.numpy())


def test_relu_gradient_kernel_declines_what_it_does_not_take():
    f32 = np.ones(4, np.float32)
    assert CGRAD.pick(f32, f32.astype(np.float64), np.empty(4, np.float32), False) is False
    assert CGRAD.pick(f32, f32, np.empty(3, np.float32), False) is False
    assert CGRAD.pick(f32, f32, f32, False) is False  # out overlaps an input
    assert CGRAD.pick(f32.astype(np.float16), f32.astype(np.float16), np.empty(4, np.float16), False) is False
    assert CGRAD.pick(np.ones((4, 2), np.float32)[:, 0], f32, np.empty(4, np.float32), False) is False
    assert CGRAD.pick(f32, f32, np.ones(4, np.float32).view(np.int32), False) is False
    ro = np.empty(4, np.float32)
    ro.flags.writeable = False
    assert CGRAD.pick(f32, f32, ro, False) is False
    assert CGRAD.pick(f32, [1.0] * 4, np.empty(4, np.float32), False) is False
    with pytest.raises(TypeError):
        CGRAD.pick(f32, f32, f32)


# --- relu's gradient in one pass (_cgrad.threshold) ------------------------------------------

@st.composite
def threshold_cases(draw):
    x, g, layout, *_ = draw(relu_cases())
    return x, g, layout


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=threshold_cases())
def test_relu_backward_kernel_matches_the_formula(case, monkeypatch):
    """Bit for bit ``where(relu(x) <= 0, 0.0, g)`` (relu(-0.0) is -0.0: no gradient; NaN
    passes g with its payload), both dtypes, and layouts the kernel declines."""
    x, g, layout = case
    view = lambda a: a  # noqa: E731
    if layout == "2d" and x.size % 2 == 0:
        x, g = x.reshape(2, -1), g.reshape(2, -1)
    elif layout == "transposed" and x.size % 2 == 0:  # relu of a transposed view: g is not
        x, g, view = x.reshape(2, -1), g.reshape(-1, 2), (lambda a: a.T)
    elif layout == "strided":
        x, view = np.repeat(x, 2), (lambda a: a[::2])
    out = []
    for engine in (None, CGRAD):
        monkeypatch.setattr(_rules, "_cgrad", engine)
        a = xp.asarray(x.copy()).requires_grad_()
        y = xp.relu(view(a))
        gy = xp.asarray(g.copy())
        if layout == "transposed" and x.size % 2 == 0:
            gy = xp.asarray(g.T.copy()).mT  # (a transposed gradient: the kernel declines it)
        y.backward(gy)
        out.append((a.grad.dtype, a.grad.shape, np.asarray(a.grad).tobytes(), type(y.grad_fn).__name__))
    assert out[0] == out[1]


def test_relu_backward_kernel_runs_and_agrees_with_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((128, 256)).astype(dtype)
        x[0, :8] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, -np.nan]
        g = rng.standard_normal((128, 256)).astype(dtype)
        g[1, :4] = [np.nan, np.inf, -np.inf, -0.0]
        calls = []
        real = CGRAD.threshold
        _rules._cgrad = type("Spy", (), {"threshold": staticmethod(lambda *a: calls.append(1) or real(*a))})
        try:
            a = xp.asarray(x).requires_grad_()
            xp.relu(a).backward(xp.asarray(g))
        finally:
            _rules._cgrad = CGRAD
        assert calls, dtype
        t = torch.from_numpy(x).requires_grad_()
        torch.relu(t).backward(torch.from_numpy(g))
        np.testing.assert_array_equal(np.asarray(a.grad), t.grad.numpy())
        assert np.asarray(a.grad).tobytes() == t.grad.numpy().tobytes()  # (zeros' signs, NaN bits)


def test_relu_backward_kernel_under_create_graph_records_the_formula():
    """With a graph being built the formula runs (its own nodes: second derivatives)."""
    a = xp.asarray(np.array([-1.0, 0.5, 2.0], np.float32)).requires_grad_()
    (ga,) = xp.autograd.grad(xp.sum(xp.relu(a) ** 2), a, create_graph=True)
    assert ga.grad_fn is not None
    (gga,) = xp.autograd.grad(xp.sum(ga), a)
    np.testing.assert_array_equal(np.asarray(gga), [0.0, 2.0, 2.0])


def test_relu_backward_kernel_declines_what_it_does_not_take():
    f32 = np.ones(4, np.float32)
    assert CGRAD.threshold(f32, f32.astype(np.float64), np.empty(4, np.float32)) is False
    assert CGRAD.threshold(f32, f32, np.empty(3, np.float32)) is False
    assert CGRAD.threshold(f32, f32, f32) is False  # out overlaps an input
    h = f32.astype(np.float16)
    assert CGRAD.threshold(h, h, np.empty(4, np.float16)) is False
    assert CGRAD.threshold(np.ones((4, 2), np.float32)[:, 0], f32, np.empty(4, np.float32)) is False
    assert CGRAD.threshold(f32, f32, np.ones(4, np.float32).view(np.int32)) is False
    ro = np.empty(4, np.float32)
    ro.flags.writeable = False
    assert CGRAD.threshold(f32, f32, ro) is False
    assert CGRAD.threshold(f32, [1.0] * 4, np.empty(4, np.float32)) is False
    with pytest.raises(TypeError):
        CGRAD.threshold(f32, f32)
