"""SGD's group loop in C (``_cgrad.sgd_run``, SGD without momentum, weight decay or
maximize) against the Python loop it replaces (``SGD._one``: ``host2``, the writer's
``target``, ``axpy``), and against PyTorch's values within a rounding: the same
parameters bit for bit, the same version counters, the same order of writes, and the
parameters it declines (names, a non-leaf, a lazy array, a noncontiguous view, a
float16 buffer, recording on, a NaN rate) left to the definition,
which gives what it gives without the extension. Runs on the host only (``device="cpu"``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
import strided.torch as storch
from strided.torch.optim import sgd as _sgd

sgd_run = _sgd._sgd_run  # (None without the C extension, or under STRIDED_NO_CEXT=1)
pytestmark = pytest.mark.skipif(sgd_run is None, reason="the C extension _cgrad is not built (STRIDED_NO_CEXT=1)")

_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _bits(a):
    a = np.asarray(a)
    return a.view(_UINT[a.dtype])


def _params(rng, dtype, shapes):
    ps = []
    for s in shapes:
        p = storch.nn.Parameter(xp.asarray(rng.standard_normal(s).astype(dtype), device="cpu"))
        p.grad = xp.asarray(rng.standard_normal(s).astype(dtype), device="cpu")
        ps.append(p)
    return ps


def _run(monkeypatch, compiled, dtype, shapes, lr, seed=0, steps=3, calls=None):
    rng = np.random.default_rng(seed)
    ps = _params(rng, dtype, shapes)
    if compiled:
        if calls is not None:
            real = sgd_run
            monkeypatch.setattr(_sgd, "_sgd_run", lambda *a: calls.append(a[1]) or real(*a))
    else:
        monkeypatch.setattr(_sgd, "_sgd_run", None)
    opt = storch.optim.SGD(ps, lr=lr)
    versions = []
    for _ in range(steps):
        opt.step()
        versions.append([p._version for p in ps])
    monkeypatch.undo()
    return [np.array(p.detach().numpy()) for p in ps], versions


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([np.float32, np.float64]),
       st.lists(st.lists(st.integers(0, 5), min_size=0, max_size=3).map(tuple), min_size=1, max_size=4),
       st.floats(1e-4, 10.0), st.integers(0, 2**31))
def test_group_loop_bit_for_bit_with_the_python_loop(dtype, shapes, lr, seed):
    mp = pytest.MonkeyPatch()
    calls = []
    fast, vf = _run(mp, True, dtype, shapes, lr, seed, calls=calls)
    ref, vr = _run(mp, False, dtype, shapes, lr, seed)
    for a, b in zip(fast, ref):
        np.testing.assert_array_equal(_bits(a), _bits(b))
    assert vf == vr  # one version bump per write, as the writer does
    assert vf[-1] == [3] * len(shapes)
    assert calls == [0, 0, 0]  # (every parameter taken: one call per step)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_against_pytorch_and_numpy(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    w0 = rng.standard_normal((7, 4)).astype(dtype)
    g0 = rng.standard_normal((7, 4)).astype(dtype)
    w = storch.nn.Parameter(xp.asarray(w0.copy(), device="cpu"))
    w.grad = xp.asarray(g0.copy(), device="cpu")
    storch.optim.SGD([w], lr=0.1).step()
    # NumPy's two roundings (the host path's promise) ...
    ref = w0.copy()
    np.add(ref, np.multiply(g0, -0.1), out=ref)
    np.testing.assert_array_equal(_bits(w.detach().numpy()), _bits(ref))
    # ... and PyTorch's value within one rounding of each element
    tw = torch.nn.Parameter(torch.from_numpy(w0.copy()))
    tw.grad = torch.from_numpy(g0.copy())
    torch.optim.SGD([tw], lr=0.1).step()
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=4 * np.finfo(dtype).eps,
                               atol=4 * np.finfo(dtype).eps)


def test_grad_none_skipped_and_order_kept(monkeypatch):
    rng = np.random.default_rng(1)
    ps = _params(rng, np.float32, [(3,), (4,), (2, 2)])
    ps[1].grad = None
    before = np.array(ps[1].detach().numpy())
    v1 = ps[1]._version
    storch.optim.SGD(ps, lr=0.5).step()
    np.testing.assert_array_equal(ps[1].detach().numpy(), before)
    assert ps[1]._version == v1
    assert ps[0]._version == 1 and ps[2]._version == 1


def _declined_cases():
    rng = np.random.default_rng(2)

    def named():
        p = _params(rng, np.float32, [(2, 3)])[0]
        p.grad = p.grad.refine_names("a", "b")
        return p

    def half():  # (a float16 buffer: axpy's loop takes float32 and float64 only)
        return _params(rng, np.float16, [(2, 3)])[0]

    def broadcast_grad():
        p = _params(rng, np.float32, [(2, 3)])[0]
        p.grad = xp.asarray(rng.standard_normal((2, 3)).astype(np.float32).T.copy().T, device="cpu")
        return p

    def noncontiguous():
        base = xp.asarray(rng.standard_normal((4, 6)).astype(np.float32), device="cpu")
        p = storch.nn.Parameter(base[:, ::2])
        p.grad = xp.asarray(rng.standard_normal((4, 3)).astype(np.float32), device="cpu")
        return p

    return {"named": named, "float16": half, "transposed grad": broadcast_grad,
            "noncontiguous": noncontiguous}


@pytest.mark.parametrize("case", sorted(_declined_cases()))
def test_declined_parameters_take_the_definition(case, monkeypatch):
    """A parameter it does not take, between two it takes: the same result as the Python
    loop (or the same error), in order."""
    def build(seed):
        rng = np.random.default_rng(seed)
        a, b = _params(rng, np.float32, [(3,), (5,)])
        odd = _declined_cases()[case]()
        return [a, odd, b]

    outcomes = []
    for compiled in (True, False):
        ps = build(9)
        mp = pytest.MonkeyPatch()
        starts = []
        if compiled:
            real = sgd_run
            mp.setattr(_sgd, "_sgd_run", lambda *a: starts.append(a[1]) or real(*a))
        else:
            mp.setattr(_sgd, "_sgd_run", None)
        try:
            storch.optim.SGD(ps, lr=0.25).step()
            outcomes.append(("ok", [np.array(p.detach().numpy()) for p in ps], [p._version for p in ps]))
        except Exception as e:  # (the definition's own error, the same both ways)
            outcomes.append(("error", type(e), str(e)))
        finally:
            mp.undo()
        if compiled:
            assert starts == [0, 2]  # (it stopped at the odd one, then went on)
    assert outcomes[0][0] == outcomes[1][0]
    if outcomes[0][0] == "ok":
        for a, b in zip(outcomes[0][1], outcomes[1][1]):
            np.testing.assert_array_equal(a, b)
        assert outcomes[0][2] == outcomes[1][2]
    else:
        assert outcomes[0][1:] == outcomes[1][1:]


def test_direct_calls_decline_what_they_should():
    rng = np.random.default_rng(4)
    ps = _params(rng, np.float32, [(3,), (3,)])
    before = [np.array(p.detach().numpy()) for p in ps]
    # a NaN or non-float rate: nothing taken
    assert sgd_run(ps, 0, float("nan")) == 0
    assert sgd_run(ps, 0, 1) == 0
    # recording on: the writer's autograd check belongs to the definition
    assert xp.is_grad_enabled() if hasattr(xp, "is_grad_enabled") else True
    assert sgd_run(ps, 0, -0.1) == 0
    for p, b in zip(ps, before):
        np.testing.assert_array_equal(p.detach().numpy(), b)
        assert p._version == 0
    with xp.no_grad():
        assert sgd_run(ps, 1, -0.1) == 2  # from the start index on
    np.testing.assert_array_equal(ps[0].detach().numpy(), before[0])
    assert ps[1]._version == 1
    with pytest.raises(TypeError):
        sgd_run(tuple(ps), 0, -0.1)
    # a non-leaf (its .grad getter warns) and a non-array: declined
    x = xp.asarray(np.ones(3, np.float32), device="cpu").requires_grad_()
    y = x * 2.0
    with xp.no_grad():
        assert sgd_run([y], 0, -0.1) == 0
        assert sgd_run([np.ones(3, np.float32)], 0, -0.1) == 0


def test_step_with_a_closure_and_no_grad_state(monkeypatch):
    """step() runs the update under no_grad and the graph of the next step is unaffected:
    a training loop gives the same losses with and without the compiled loop."""
    def train(compiled):
        mp = pytest.MonkeyPatch()
        if not compiled:
            mp.setattr(_sgd, "_sgd_run", None)
        rng = np.random.default_rng(11)
        x = xp.asarray(rng.standard_normal((8, 5)).astype(np.float32), device="cpu")
        y = xp.asarray(rng.integers(0, 3, 8), device="cpu")
        model = storch.nn.Sequential(storch.nn.Linear(5, 4), storch.nn.ReLU(), storch.nn.Linear(4, 3)).to("cpu")
        model.load_state_dict({k: xp.asarray(rng.uniform(-0.5, 0.5, tuple(v.shape)).astype(np.float32),
                                             device="cpu") for k, v in model.state_dict().items()})
        opt = storch.optim.SGD(model.parameters(), lr=0.05)
        losses = []
        for _ in range(5):
            def closure():
                opt.zero_grad()
                loss = storch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                return loss
            losses.append(float(opt.step(closure)))
        mp.undo()
        return losses, [np.array(p.detach().numpy()) for p in model.parameters()]

    la, pa = train(True)
    lb, pb = train(False)
    assert la == lb
    for a, b in zip(pa, pb):
        np.testing.assert_array_equal(_bits(a), _bits(b))
