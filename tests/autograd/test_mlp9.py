"""The standard-namespace autograd step's compiled pieces (mlp9, issue 38) against what they
stand for:

- the handlers' elementwise kernel path (``f._kimpl``: _chot's ``Fast(kernel=True)``)
  against the row's Python ``impl``, bit for bit, on operands that carry autograd and
  names metadata, broadcast and scalar operands, casts (declined);
- the chain's compiled head (K_HEAD) and the compiled link's branch for calls that are
  neither elementwise rows nor in place (``link_ew`` -> ``record_call``) against the
  Python link: results, node names, gradients, errors;
- the engine's compiled broadcast sum (fit_grad's case) against the Python fit_grad (the
  cache emptied: every lookup misses) and NumPy's reduce, and its compiled release();
- the in-place operators' case of a target autograd tracks under no_grad();
- the MLP step of both programs after three steps: compiled vs STRIDED_NO_CEXT=1 bit for
  bit (a subprocess each), and against PyTorch 2.13 within float32 tolerance.
"""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from strided._core import array as _array
from strided._core.dispatch import CHOT, _run_impl
from strided.autograd import _function, _record

from _frames import python_calls
from test_link7 import _graph

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]
compiled = pytest.mark.skipif(not _record._LINK_C or CHOT is None,
                              reason="the compiled paths are not built (or STRIDED_NO_CEXT=1)")

_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _bits(a):
    a = np.asarray(a.detach() if hasattr(a, "detach") else a)
    return a.view(_UINT[a.dtype]) if a.dtype in _UINT else a


def _same(a, b):
    assert type(a) is type(b)
    assert a.shape == b.shape and a.dtype == b.dtype and a.device == b.device
    np.testing.assert_array_equal(_bits(a), _bits(b))


# --- the handlers' kernel path -------------------------------------------------------------------

_BINARY = ["add", "subtract", "multiply", "divide", "maximum"]
_UNARY = ["exp", "log", "relu", "negative"]
_SHAPES = [((4, 16), (16,)), ((4, 16), (4, 16)), ((4, 4), (4, 1)), ((3, 1, 5), (2, 5)), ((), (3,)),
           ((0, 3), (3,))]


def _operand(rng, shape, dtype, meta):
    a = xp.asarray(rng.standard_normal(shape).astype(dtype) + 0.5)
    if meta == "grad":
        a.requires_grad_()
    elif meta == "names" and shape:
        a = a.rename(*[f"d{i}" for i in range(len(shape))])
    return a


@compiled
@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(_BINARY), shapes=st.sampled_from(_SHAPES), swap=st.booleans(),
       dtype=st.sampled_from([np.float32, np.float64]), meta=st.sampled_from(["grad", "names", "none"]),
       scalar=st.sampled_from([None, 2.5, 3, True]), seed=st.integers(0, 2**16))
def test_kernel_path_is_impl(name, shapes, swap, dtype, meta, scalar, seed):
    rng = np.random.default_rng(seed)
    f = getattr(xp, name)
    s1, s2 = shapes[::-1] if swap else shapes
    x1 = _operand(rng, s1, dtype, meta)
    x2 = _operand(rng, s2, dtype, "none") if scalar is None else scalar
    for args in ((x1, x2, None), (x2, x1, None)):
        with np.errstate(all="ignore"):  # (the bare impl: its callers run it quiet)
            try:
                ref = f._impl(*args)
            except TypeError as e:  # (subtract with a bool scalar: the same refusal)
                with pytest.raises(TypeError, match=re.escape(str(e))):
                    f._kimpl(*args)
                continue
            r = f._kimpl(*args)
        _same(r, ref)
        assert r._ext is None  # (a fresh kernel result: the handlers add what they add)


@compiled
@pytest.mark.parametrize("name", _UNARY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_kernel_path_is_impl_unary(name, dtype):
    f = getattr(xp, name)
    x = xp.asarray((np.arange(12).reshape(3, 4) - 3).astype(dtype))
    if dtype is not np.int64:
        x.requires_grad_()
    for a in (x, x.T, x[:, ::2]):  # (views: the kernel path builds their natives)
        with np.errstate(all="ignore"):  # (the bare impl: its callers run it quiet)
            try:
                ref = f._impl(a, None)
            except TypeError as e:  # (a row that takes no integers: the same error)
                with pytest.raises(TypeError, match=re.escape(str(e))):
                    f._kimpl(a, None)
                continue
            _same(f._kimpl(a, None), ref)


@compiled
def test_kernel_path_declines_what_it_does_not_answer():
    x = xp.asarray(np.ones((2, 3), np.float32)).requires_grad_()
    i = xp.asarray(np.arange(6).reshape(2, 3))
    _same(xp.add._kimpl(x, i, None), xp.add._impl(x, i, None))  # (a cast: the Python impl)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        xp.add._kimpl(x, xp.ones((4,)), None)
    out = xp.zeros((2, 3))
    assert xp.add._kimpl(x.detach(), x.detach(), out) is out  # (out=: the Python impl)


@compiled
def test_recorded_op_runs_no_python_kernel():
    x = xp.asarray(np.ones((4, 16), np.float32)).requires_grad_()
    b = xp.asarray(np.ones(16, np.float32)).requires_grad_()
    y, calls = python_calls(lambda: x + b)
    assert y.grad_fn.name() == "AddBackward0"
    assert "impl" not in calls and "head" not in calls and "__hash__" not in calls, calls


# --- the head and the link's non-elementwise branch ----------------------------------------------

def _graph_names(y):
    return sorted(name for name, _ in _graph(y))  # (test_link7's walk)


def _api_impl(name):
    f = getattr(xp, name)
    return getattr(f, "_impl", None) or f.__wrapped__._impl


CALLS = [
    ("matmul", lambda a, w: ((a, w), {})),
    ("matmul", lambda a, w: ((a.detach(), w), {})),
    ("sum", lambda a, w: ((a,), {"axis": 1, "keepdims": True})),
    ("sum", lambda a, w: ((a,), {})),
    ("max", lambda a, w: ((a,), {"axis": 1, "keepdims": True})),
    ("mean", lambda a, w: ((a,), {"axis": 0})),
    ("concat", lambda a, w: (([a, a],), {"axis": 0})),  # (a list: the Python recorder)
    ("matmul", lambda a, w: ((a.detach(), w.detach()), {})),  # (nothing requires grad)
]


@compiled
@pytest.mark.parametrize("name,make", CALLS)
def test_link_call_is_the_python_link(name, make):
    py = _record._make_link(_run_impl)
    _record._entry(_run_impl)  # (sets the compiled link's fallback up, as register_handler does)
    c = _record._cgrad.link_ew
    rng = np.random.default_rng(5)
    an, wn = rng.standard_normal((4, 8)).astype(np.float32), rng.standard_normal((8, 3)).astype(np.float32)
    outs = []
    for link in (py, c):
        a, w = xp.asarray(an.copy()).requires_grad_(), xp.asarray(wn.copy()).requires_grad_()
        args, kw = make(a, w)
        r = link(name, _api_impl(name), args, kw)
        grads = None
        if r.requires_grad:
            r.backward(xp.asarray(np.linspace(-1, 1, r.size, dtype=np.float32).reshape(r.shape)))
            grads = (a.grad, w.grad)
        outs.append((r, _graph_names(r) if r.grad_fn is not None else None, grads))
    (r1, g1, d1), (r2, g2, d2) = outs
    _same(r1.detach(), r2.detach())
    assert g1 == g2 and r1.requires_grad == r2.requires_grad
    for u, v in zip(d1 or (), d2 or ()):
        assert (u is None) == (v is None)
        if u is not None:
            _same(u, v)


def test_link_call_errors_are_the_python_links():
    x = xp.asarray([1.0, 2.0]).requires_grad_()
    with pytest.raises(RuntimeError, match=r"clip\(\): a leaf Variable that requires grad"):
        x.clamp_(0, 1)
    np.testing.assert_array_equal(np.asarray(x.detach()), [1.0, 2.0])
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        xp.clip(x, 0, 1, out=xp.zeros(2))


@compiled
def test_head_binds_pytorch_keywords():
    rng = np.random.default_rng(6)
    n = rng.standard_normal((3, 4)).astype(np.float32)
    assert type(_array.HOOK[0]).__name__ == "Fast"  # (the compiled head)
    res = []
    for kw in ({"dim": 1, "keepdim": True}, {"axis": 1, "keepdims": True}):
        x = xp.asarray(n.copy()).requires_grad_()
        y, calls = python_calls(lambda: xp.sum(x, **kw))
        assert "head" not in calls
        (y * y).sum().backward()
        res.append((y, x.grad))
    _same(res[0][0].detach(), res[1][0].detach())
    _same(res[0][1], res[1][1])
    t = torch.from_numpy(n.copy()).requires_grad_()
    (t.sum(1, keepdim=True) ** 2).sum().backward()
    np.testing.assert_allclose(np.asarray(res[0][1]), t.grad.numpy(), rtol=1e-6)
    x = xp.asarray(n.copy()).requires_grad_()
    with pytest.raises(TypeError, match="keepdims"):
        xp.sum(x, dim=1, keepdims=True, keepdim=True)


# --- the engine: broadcast sums, release -------------------------------------------------------

@compiled
@settings(max_examples=30, deadline=None)
@given(case=st.sampled_from([((4, 16), (16,)), ((4, 4), (4, 1)), ((2, 3, 5), (3, 1)), ((2, 3, 5), (1, 5)),
                             ((3, 5), ()), ((2, 3), (1, 1, 3))]),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_broadcast_grad_sum_is_fit_grad(case, dtype, seed):
    xs, bs = case
    rng = np.random.default_rng(seed)
    xn, bn = rng.standard_normal(xs).astype(dtype), rng.standard_normal(bs).astype(dtype)
    out = np.broadcast_shapes(xs, bs)
    gn = rng.standard_normal(out).astype(dtype)

    def run():
        x, b = xp.asarray(xn.copy()).requires_grad_(), xp.asarray(bn.copy()).requires_grad_()
        (x + b).backward(xp.asarray(gn.copy()))
        return x.grad, b.grad

    compiled = run()
    _record._cgrad.setup_sum_to({}, np.add.reduce, np.asarray)  # every lookup misses: fit_grad
    try:
        python = run()
    finally:
        _record._cgrad.setup_sum_to(_function._SUM_AXES, np.add.reduce, np.asarray)
    for u, v in zip(compiled, python):
        _same(u, v)
    lead = len(out) - len(bs)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(bs) if n == 1 and out[lead + i] != 1)
    ref = np.add.reduce(gn, axes).reshape(bs) if axes else gn
    np.testing.assert_array_equal(_bits(compiled[1]), _bits(ref.astype(dtype)))


def test_broadcast_grad_sum_keeps_the_graph_when_recording():
    x = xp.asarray(np.ones((3, 2), np.float64)).requires_grad_()
    b = xp.asarray(np.ones(2, np.float64)).requires_grad_()
    (g,) = xp.autograd.grad(((x * b) ** 2).sum(), [b], create_graph=True)
    assert g.requires_grad  # (create_graph: the recorded sum, not the compiled one)
    (gg,) = xp.autograd.grad(g.sum(), [b])
    tx, tb = torch.ones(3, 2, dtype=torch.float64, requires_grad=True), torch.ones(2, dtype=torch.float64,
                                                                                requires_grad=True)
    (tg,) = torch.autograd.grad(((tx * tb) ** 2).sum(), [tb], create_graph=True)
    (tgg,) = torch.autograd.grad(tg.sum(), [tb])
    np.testing.assert_allclose(np.asarray(gg), tgg.numpy())


def test_release_frees_saved_values_and_retain_keeps_them():
    w = xp.asarray(np.full(3, 2.0, np.float32)).requires_grad_()
    y = (w * w).sum()
    y.backward(retain_graph=True)
    y.backward()  # (kept: the second run accumulates)
    np.testing.assert_array_equal(np.asarray(w.grad), np.full(3, 8.0, np.float32))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()

    released = []

    class Own(_record.RuleNode):
        def release(self):
            released.append(type(self).__name__)
            super().release()

    z = xp.exp(w)
    z.grad_fn.__class__ = Own  # (a node whose release() is its own: called, not inlined)
    z.sum().backward()
    assert released == ["Own"]


# --- in place under no_grad ----------------------------------------------------------------------

@compiled
def test_tracked_target_under_no_grad_is_written_in_c():
    rng = np.random.default_rng(7)
    pn, gn = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((5, 3)).astype(np.float32)
    p = xp.asarray(pn.copy()).requires_grad_()
    p._layout()  # (a Storage: the compiled case)
    v = p._version
    t = xp.asarray(gn.copy())
    with xp.no_grad():
        _, calls = python_calls(lambda: p.__isub__(t))
    assert "iop" not in calls and "into" not in calls, calls
    np.testing.assert_array_equal(_bits(p), _bits(pn - gn))
    assert p._version == v + 1 and p.requires_grad and p.is_leaf
    # a named target takes the Python operator (its names are unified there)
    with xp.no_grad():
        n = xp.asarray(pn.copy()).rename("a", "b").requires_grad_()
        _, calls = python_calls(lambda: n.__isub__(xp.asarray(gn.copy())))
    assert "iop" in calls and n.names == ("a", "b")
    np.testing.assert_array_equal(_bits(n), _bits(pn - gn))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        p -= t  # (recording on: the leaf's error, nothing written)
    np.testing.assert_array_equal(_bits(p), _bits(pn - gn))


# --- the MLP step, both programs -------------------------------------------------------------------

_PROGRAM = r"""
import hashlib, sys
import numpy as np
import strided as xp
import strided.torch as st
sizes, B, L = (8, 16, 16, 4), 4, 3
rng = np.random.default_rng(0)
init = {}
for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
    init[f"{i}.weight"] = rng.uniform(-0.3, 0.3, (b, a)).astype(np.float32)
    init[f"{i}.bias"] = rng.uniform(-0.3, 0.3, b).astype(np.float32)
xn = rng.standard_normal((B, sizes[0])).astype(np.float32)
yn = rng.integers(0, sizes[-1], B)
h = hashlib.sha256()
ps = [xp.asarray(init[f"{i}.{k}"].T.copy() if k == "weight" else init[f"{i}.{k}"], device="cpu").requires_grad_()
      for i in range(L) for k in ("weight", "bias")]
x = xp.asarray(xn, device="cpu")
onehot = xp.asarray(np.eye(sizes[-1], dtype=np.float32)[yn], device="cpu")
for _ in range(3):
    z = x
    for i in range(L):
        z = z @ ps[2 * i] + ps[2 * i + 1]
        if i < L - 1:
            z = xp.relu(z)
    m = xp.max(z, axis=1, keepdims=True)
    loss = xp.sum(onehot * (xp.log(xp.sum(xp.exp(z - m), axis=1, keepdims=True)) + m - z)) / B
    loss.backward()
    for p in ps:
        h.update(np.asarray(p.grad).tobytes())
    with xp.no_grad():
        for p in ps:
            p -= 0.01 * p.grad
            p.grad = None
    h.update(np.asarray(loss.detach()).tobytes())
for p in ps:
    h.update(np.asarray(p.detach()).tobytes())
layers = [st.nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
model = st.nn.Sequential(*layers)
model.load_state_dict({k: st.asarray(v.copy(), device="cpu") for k, v in init.items()})
opt = st.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
xt, yt = st.asarray(xn.copy(), device="cpu"), st.asarray(yn.copy(), device="cpu")
for _ in range(3):
    opt.zero_grad()
    hh = xt
    for i, layer in enumerate(layers):
        hh = layer(hh)
        if i < L - 1:
            hh = st.nn.functional.relu(hh)
    loss = st.nn.functional.cross_entropy(hh, yt)
    loss.backward()
    opt.step()
    h.update(np.asarray(loss.detach()).tobytes())
for p in model.parameters():
    h.update(np.asarray(p.detach()).tobytes())
print(h.hexdigest())
print(" ".join(repr(float(v)) for p in ps for v in np.asarray(p.detach()).ravel()))
"""


def _run_program(no_cext: bool):
    env = dict(os.environ)
    env.pop("STRIDED_DEFAULT_DEVICE", None)
    env["STRIDED_NO_CEXT"] = "1" if no_cext else "0"
    if not no_cext:
        env.pop("STRIDED_NO_CEXT")
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    digest, values = out.stdout.split("\n")[:2]
    return digest, np.array([float(v) for v in values.split()], np.float32)


@compiled
def test_mlp_steps_compiled_are_the_python_paths_bit_for_bit():
    (d1, v1), (d2, v2) = _run_program(False), _run_program(True)
    assert d1 == d2, "the compiled paths changed a gradient, a parameter or a loss"
    np.testing.assert_array_equal(v1, v2)


def test_mlp_step_matches_torch():
    rng = np.random.default_rng(0)
    sizes, B = (8, 16, 16, 4), 4
    ws = [rng.uniform(-0.3, 0.3, (a, b)).astype(np.float32) for a, b in zip(sizes[:-1], sizes[1:])]
    bs = [rng.uniform(-0.3, 0.3, b).astype(np.float32) for b in sizes[1:]]
    xn = rng.standard_normal((B, sizes[0])).astype(np.float32)
    onehot = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], B)]
    res = []
    for lib, T in ((xp, lambda a: xp.asarray(a.copy(), device="cpu")), (torch, lambda a: torch.from_numpy(a.copy()))):
        ps = [T(a).requires_grad_() for pair in zip(ws, bs) for a in pair]
        x, oh = T(xn), T(onehot)
        for _ in range(3):
            z = x
            for i in range(3):
                z = z @ ps[2 * i] + ps[2 * i + 1]
                if i < 2:
                    z = lib.relu(z)
            m = lib.amax(z, 1, keepdim=True) if lib is torch else xp.max(z, axis=1, keepdims=True)
            loss = lib.sum(oh * (lib.log(lib.sum(lib.exp(z - m), 1, keepdim=True) if lib is torch else
                                         xp.sum(xp.exp(z - m), axis=1, keepdims=True)) + m - z)) / B
            loss.backward()
            with lib.no_grad():
                for p in ps:
                    p -= 0.01 * p.grad
                    p.grad = None
        res.append([np.asarray(p.detach()) for p in ps])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
