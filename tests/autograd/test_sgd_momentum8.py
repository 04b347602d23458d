"""SGD with momentum in C (``_cgrad.sgd_run``'s momentum form: the buffer's step, Nesterov,
weight decay and maximize per element in one pass) against the Python loop it replaces
(``SGD._one``: ``host``, the writer's ``target``, NumPy's calls and ``axpy``), bit for bit
with the same version counters; against PyTorch's ``torch.optim.SGD`` within roundings
after several steps; and what it declines (a missing buffer, a lazy or named buffer, int
options) left to the definition. Runs on the host only (``device="cpu"``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
import strided.torch as storch
from strided.torch.optim import sgd as _sgd

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

sgd_run = _sgd._sgd_run  # (None without the C extension, or under STRIDED_NO_CEXT=1)

_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _bits(a):
    a = np.asarray(a)
    return a.view(_UINT[a.dtype])


def _params(rng, dtype, shapes):
    ps = []
    for s in shapes:
        p = storch.nn.Parameter(xp.asarray(rng.standard_normal(s).astype(dtype), device="cpu"))
        ps.append(p)
    return ps


def _run(compiled, dtype, shapes, kw, seed=0, steps=4, calls=None):
    """``steps`` SGD steps with fresh gradients each step; the parameters, the buffers and
    the versions after each step."""
    rng = np.random.default_rng(seed)
    ps = _params(rng, dtype, shapes)
    grads = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(steps)]
    mp = pytest.MonkeyPatch()
    if not compiled:
        mp.setattr(_sgd, "_sgd_run", None)
    elif calls is not None and sgd_run is not None:
        mp.setattr(_sgd, "_sgd_run", lambda *a: calls.append(a[1]) or sgd_run(*a))
    try:
        opt = storch.optim.SGD(ps, **kw)
        versions = []
        for k in range(steps):
            for p, g in zip(ps, grads[k]):
                p.grad = xp.asarray(g.copy(), device="cpu")
            opt.step()
            versions.append([p._version for p in ps])
    finally:
        mp.undo()
    bufs = [np.array(opt.state[p]["momentum_buffer"].numpy()) for p in ps]
    return [np.array(p.detach().numpy()) for p in ps], bufs, versions, grads


_OPTS = st.fixed_dictionaries({
    "lr": st.floats(1e-3, 2.0), "momentum": st.floats(0.05, 0.99),
    "dampening": st.sampled_from([0, 0.0, 0.1, 0.5]), "weight_decay": st.sampled_from([0, 0.0, 1e-3, 0.3]),
    "maximize": st.booleans(), "nesterov": st.booleans()})


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([np.float32, np.float64]),
       st.lists(st.lists(st.integers(0, 5), max_size=3).map(tuple), min_size=1, max_size=3),
       _OPTS, st.integers(0, 2**31))
def test_momentum_bit_for_bit_with_the_python_loop(dtype, shapes, kw, seed):
    if kw["nesterov"]:
        kw["dampening"] = 0
    calls = []
    pf, bf, vf, _ = _run(True, dtype, shapes, kw, seed, calls=calls)
    pr, br, vr, _ = _run(False, dtype, shapes, kw, seed)
    for a, b in zip(pf + bf, pr + br):
        np.testing.assert_array_equal(_bits(a), _bits(b))
    assert vf == vr  # (the writer's bumps: the buffer's and p's, or p's alone while lazy)
    if sgd_run is not None:
        # the first step makes the buffers (the definition, one parameter at a time);
        # every later step is one compiled call for the whole group
        n = len(shapes)
        assert calls == list(range(n + 1)) + [0, 0, 0], calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.9, dampening=0.3,
                                                                 weight_decay=0.01),
                                dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1),
                                dict(lr=0.05, momentum=0.7, maximize=True)],
                         ids=["plain", "dampening-wd", "nesterov-wd", "maximize"])
def test_against_pytorch(dtype, kw):
    torch = pytest.importorskip("torch")
    shapes = [(7, 4), (4,)]
    pf, bf, _, grads = _run(True, dtype, shapes, kw, seed=5, steps=6)
    rng = np.random.default_rng(5)
    tp = [torch.nn.Parameter(torch.from_numpy(rng.standard_normal(s).astype(dtype))) for s in shapes]
    opt = torch.optim.SGD(tp, **kw)
    for gs in grads:
        for p, g in zip(tp, gs):
            p.grad = torch.from_numpy(g.copy())
        opt.step()
    eps = np.finfo(dtype).eps
    for a, t in zip(pf, tp):
        np.testing.assert_allclose(a, t.detach().numpy(), rtol=64 * eps, atol=64 * eps)
    for b, t in zip(bf, tp):
        np.testing.assert_allclose(b, opt.state[t]["momentum_buffer"].numpy(), rtol=64 * eps, atol=64 * eps)


def test_the_numpy_calls_it_stands_for():
    """One step with a buffer, float32: NumPy's calls of the definition, in order."""
    rng = np.random.default_rng(3)
    w0, g0, b0 = (rng.standard_normal(9).astype(np.float32) for _ in range(3))
    w = storch.nn.Parameter(xp.asarray(w0.copy(), device="cpu"))
    opt = storch.optim.SGD([w], lr=0.1, momentum=0.9, dampening=0.25, weight_decay=0.01, maximize=True)
    opt.state[w]["momentum_buffer"] = xp.asarray(b0.copy(), device="cpu")
    w.grad = xp.asarray(g0.copy(), device="cpu")
    opt.step()
    g = np.add(np.negative(g0), np.multiply(w0, 0.01))
    b = b0.copy()
    np.multiply(b, 0.9, out=b)
    np.add(b, np.multiply(g, 0.75), out=b)
    ref = w0.copy()
    np.add(ref, np.multiply(b, -0.1), out=ref)
    np.testing.assert_array_equal(_bits(opt.state[w]["momentum_buffer"].numpy()), _bits(b))
    np.testing.assert_array_equal(_bits(w.detach().numpy()), _bits(ref))


def _odd_buffers(rng):
    def lazy():  # (a kernel result never viewed: no Storage, written without a version)
        return xp.asarray(rng.standard_normal(5).astype(np.float32), device="cpu") * 1.0

    def named():
        return xp.asarray(rng.standard_normal(5).astype(np.float32), device="cpu").refine_names("a")

    def float64():  # (another dtype than the parameter's: host() declines, the methods run)
        return xp.asarray(rng.standard_normal(5), device="cpu")

    def strided_view():
        return xp.asarray(rng.standard_normal(10).astype(np.float32), device="cpu")[::2]

    return {"lazy": lazy, "named": named, "float64": float64, "strided view": strided_view}


@pytest.mark.parametrize("case", sorted(_odd_buffers(np.random.default_rng(0))))
def test_odd_buffers_as_the_definition(case):
    """A parameter whose buffer the C loop does not take (or takes as the writer would),
    between two it takes: the same values, versions (or error) as the Python loop."""
    outcomes = []
    for compiled in (True, False):
        rng = np.random.default_rng(7)
        ps = _params(rng, np.float32, [(3,), (5,), (4,)])
        opt = storch.optim.SGD(ps, lr=0.2, momentum=0.5)
        for p in ps:
            p.grad = xp.asarray(rng.standard_normal(p.shape).astype(np.float32), device="cpu")
            opt.state[p]["momentum_buffer"] = xp.asarray(rng.standard_normal(p.shape).astype(np.float32),
                                                         device="cpu")
        odd = opt.state[ps[1]]["momentum_buffer"] = _odd_buffers(rng)[case]()
        mp = pytest.MonkeyPatch()
        if not compiled:
            mp.setattr(_sgd, "_sgd_run", None)
        try:
            opt.step()
            outcomes.append(("ok", [np.array(p.detach().numpy()) for p in ps],
                             [np.array(opt.state[p]["momentum_buffer"].numpy()) for p in ps],
                             [p._version for p in ps], odd._version if odd._st is not None else None))
        except Exception as e:  # (the definition's own error, the same both ways)
            outcomes.append(("error", type(e), str(e)))
        finally:
            mp.undo()
    assert outcomes[0][0] == outcomes[1][0]
    if outcomes[0][0] == "error":
        assert outcomes[0][1:] == outcomes[1][1:]
        return
    for a, b in zip(outcomes[0][1] + outcomes[0][2], outcomes[1][1] + outcomes[1][2]):
        np.testing.assert_array_equal(_bits(a), _bits(b))
    assert outcomes[0][3:] == outcomes[1][3:]


@pytest.mark.skipif(sgd_run is None, reason="the C extension _cgrad is not built (STRIDED_NO_CEXT=1)")
def test_direct_calls_decline_what_they_should():
    rng = np.random.default_rng(4)
    ps = _params(rng, np.float32, [(3,), (3,)])
    state = {}
    for p in ps:
        p.grad = xp.asarray(rng.standard_normal(3).astype(np.float32), device="cpu")
        state[p] = {"momentum_buffer": xp.asarray(np.zeros(3, np.float32), device="cpu")}
    before = [np.array(p.detach().numpy()) for p in ps]
    with xp.no_grad():
        # int or NaN options, non-bool flags: nothing taken
        assert sgd_run(ps, 0, -0.1, state, 1, 1.0, 0.0, False, False) == 0
        assert sgd_run(ps, 0, -0.1, state, 0.9, 1.0, 0, False, False) == 0
        assert sgd_run(ps, 0, -0.1, state, float("nan"), 1.0, 0.0, False, False) == 0
        assert sgd_run(ps, 0, -0.1, state, 0.9, 1.0, 0.0, 1, False) == 0
        # a parameter without a buffer: left to the caller
        del state[ps[1]]["momentum_buffer"]
        with pytest.raises(KeyError):  # (a plain dict: the lookup's own error)
            sgd_run(ps, 0, -0.1, {}, 0.9, 1.0, 0.0, False, False)
        for p, b in zip(ps, before):
            np.testing.assert_array_equal(p.detach().numpy(), b)
            assert p._version == 0
        assert sgd_run(ps, 0, -0.1, state, 0.9, 1.0, 0.0, False, False) == 1
    assert ps[0]._version == 1 and ps[1]._version == 0
    # recording on: the writer's autograd check belongs to the definition
    assert sgd_run(ps, 0, -0.1, state, 0.9, 1.0, 0.0, False, False) == 0
    with pytest.raises(TypeError):
        sgd_run(ps, 0, -0.1, state, 0.9)
