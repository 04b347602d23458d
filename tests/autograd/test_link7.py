"""The autograd link's compiled twin (_cgrad.link_ew) against the Python link it stands
for (_record._make_link(_run_impl)): the same results, graphs, version counters and
errors for every kind of call the dispatch chain hands it; and the MLP step's gradients
through the compiled link against PyTorch 2.13."""

import numpy as np
import pytest

import strided as xp
from strided._core.dispatch import _run_impl
from strided.autograd import _record

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not _record._LINK_C, reason="the compiled link is not built")


def _host(a):
    return np.asarray(a.detach().cpu())


def _impl(name):
    f = getattr(xp, name)
    return getattr(f, "_impl", None) or getattr(getattr(f, "__wrapped__", f), "_impl", None)


def _graph(y):
    """The graph below y as (node class, slots) in a walk order, for comparison."""
    out, seen, todo = [], set(), [y.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append((type(n).__name__, len(n.next_functions)))
        todo.extend(f for f, _ in n.next_functions)
    return out


def _links():
    py = _record._make_link(_run_impl)
    _record._entry(_run_impl)  # (sets the compiled link's fallback up, as register_handler does)
    return py, _record._cgrad.link_ew


CASES = [
    ("add", lambda a, b: (a, b, None)),
    ("multiply", lambda a, b: (a, 2.5, None)),
    ("subtract", lambda a, b: (b, a, None)),
    ("exp", lambda a, b: (a, None)),
    ("relu", lambda a, b: (a, None)),
    ("maximum", lambda a, b: (a, 0.0, None)),
    ("divide", lambda a, b: (b, b, None)),  # (no operand requires grad)
]


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("name,make", CASES)
def test_same_results_and_graphs(name, make, enabled):
    impl = _impl(name)
    if impl is None:
        pytest.skip(f"{name} has no row impl")
    py, c = _links()
    rng = np.random.default_rng(0)
    an, bn = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    res = []
    for link in (py, c):
        a = xp.asarray(an.copy()).requires_grad_()
        b = xp.asarray(bn.copy())
        with xp.autograd.set_grad_enabled(enabled):
            y = link(name, impl, make(a, b), {})
        g = None
        if y.requires_grad:
            xp.sum(y * y).backward()
            g = None if a.grad is None else _host(a.grad)
        res.append((_host(y), y.requires_grad, _graph(y) if y.requires_grad else None, g, a._version))
    (y0, rg0, gr0, g0, v0), (y1, rg1, gr1, g1, v1) = res
    np.testing.assert_array_equal(y0, y1)
    assert (rg0, gr0, v0) == (rg1, gr1, v1)
    assert (g0 is None) == (g1 is None)
    if g0 is not None:
        np.testing.assert_array_equal(g0, g1)


def test_fallbacks_give_the_python_links_errors_and_writes():
    py, c = _links()
    impl = _impl("add")
    for link in (py, c):
        a = xp.asarray(np.ones(3, np.float32)).requires_grad_()
        o = xp.asarray(np.zeros(3, np.float32))
        with pytest.raises(RuntimeError, match="out="):
            link("add", impl, (a, a, o), {})  # out= with grad
        with pytest.raises(RuntimeError, match="leaf"):
            link("add", impl, (a, a, a), {})  # in place into a leaf
        np.testing.assert_array_equal(_host(a), np.ones(3, np.float32))
        b = xp.asarray(np.ones(3, np.float32))
        with xp.no_grad():
            link("add", impl, (a, b, a), {})  # in place, recording off: written, version bumped
        np.testing.assert_array_equal(_host(a), np.full(3, 2, np.float32))
        assert a._version == 1
        s = link("sum", xp.sum.__wrapped__ if hasattr(xp.sum, "__wrapped__") else xp.sum, (a,), {})
        assert type(s.grad_fn).__name__ == "SumBackward0"


def test_mlp_step_through_the_compiled_link_matches_torch():
    rng = np.random.default_rng(5)
    W1n, b1n = rng.uniform(-0.3, 0.3, (12, 8)).astype(np.float32), rng.uniform(-0.3, 0.3, 8).astype(np.float32)
    W2n, b2n = rng.uniform(-0.3, 0.3, (8, 4)).astype(np.float32), rng.uniform(-0.3, 0.3, 4).astype(np.float32)
    xn = rng.standard_normal((6, 12)).astype(np.float32)
    oh = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 6)]
    grads = []
    for lib, T in ((xp, xp.asarray), (torch, torch.from_numpy)):
        ps = [T(v.copy()).requires_grad_() for v in (W1n, b1n, W2n, b2n)]
        for _ in range(3):
            z = lib.maximum(T(xn) @ ps[0] + ps[1], T(np.zeros((), np.float32))) @ ps[2] + ps[3] \
                if lib is torch else xp.relu(T(xn) @ ps[0] + ps[1]) @ ps[2] + ps[3]
            m = (lib.amax if lib is torch else xp.max)(z, axis=1, keepdims=True) if lib is xp else \
                torch.amax(z, dim=1, keepdim=True)
            s = lib.sum(lib.exp(z - m), axis=1, keepdims=True) if lib is xp else torch.sum(torch.exp(z - m), dim=1, keepdim=True)
            loss = lib.sum(T(oh) * (lib.log(s) + m - z)) / 6
            loss.backward()
            with lib.no_grad():
                for p in ps:
                    p -= 0.1 * p.grad
                    p.grad = None
        grads.append([_host(p) if lib is xp else p.detach().numpy() for p in ps])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_recorded_call_restores_grad_mode_on_error_and_records_nothing_inside():
    # record_call's inlined _run_off: recording is off while the function runs and back on
    # after it, whether it returns or raises (PyTorch's message for the shapes differs;
    # the reference for the error is the same call without autograd)
    a = xp.asarray(np.ones((2, 3), np.float32)).requires_grad_()
    b = xp.asarray(np.ones((4, 5), np.float32))
    with pytest.raises(ValueError) as plain:
        xp.matmul(a.detach(), b)
    with pytest.raises(ValueError) as recorded:
        xp.matmul(a, b)
    assert str(recorded.value) == str(plain.value)
    assert xp.autograd.is_grad_enabled()
    with xp.no_grad():
        with pytest.raises(ValueError):
            xp.matmul(a, b)
        assert not xp.autograd.is_grad_enabled()
    assert xp.autograd.is_grad_enabled()
    # keywords through the recorded call: sum(axis=, keepdims=) vs PyTorch's gradient
    an = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = xp.asarray(an.copy()).requires_grad_()
    tx = torch.from_numpy(an.copy()).requires_grad_()
    y = xp.sum(x * x, axis=1, keepdims=True)
    ty = torch.sum(tx * tx, dim=1, keepdim=True)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ == "SumBackward1"
    xp.sum(y).backward()
    ty.sum().backward()
    np.testing.assert_array_equal(_host(x.grad), tx.grad.numpy())
