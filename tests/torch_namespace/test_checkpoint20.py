"""``torch.utils.checkpoint`` against PyTorch 2.13: ``checkpoint`` (both ``use_reentrant``
variants) and ``checkpoint_sequential`` give the plain call's values and gradients (inputs and
the parameters read inside), drop the forward's intermediates (recomputed in backward), warn
when ``use_reentrant`` is not passed, restore the random state for the recompute (dropout's
mask: the same gradients as without checkpointing), and raise as PyTorch does for bad options."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = pytest.mark.usefixtures("on_cpu")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402
from strided.torch.utils.checkpoint import checkpoint, checkpoint_sequential  # noqa: E402
import torch.utils.checkpoint as TC  # noqa: E402

from _parity import to_numpy  # noqa: E402

RNG = np.random.default_rng(200)


def T(lib, a, grad=False, dtype="float64"):
    a = np.asarray(a, dtype=dtype)
    t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
    if grad:
        t.requires_grad_(True)
    return t


def close(s, t, tol=1e-10):
    if t is None:
        assert s is None
        return
    assert s is not None
    assert tuple(s.shape) == tuple(t.shape)
    assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(to_numpy(s.detach()), t.detach().numpy(), rtol=tol, atol=tol)


def mlp(lib, dtype="float64"):
    nn = lib.nn
    m = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3), nn.Sigmoid(), nn.Linear(3, 2))
    m = m.double() if dtype == "float64" else m.float()
    rng = np.random.default_rng(5)
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(T(lib, rng.uniform(-1, 1, tuple(p.shape)), dtype=dtype))
    return m


def ckpt(lib):
    return TC.checkpoint if lib is torch else checkpoint


def ckpt_seq(lib):
    return TC.checkpoint_sequential if lib is torch else checkpoint_sequential


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reentrant", [True, False])
def test_values_and_gradients_equal_the_plain_call(reentrant, dtype):
    x0 = RNG.uniform(-1, 1, (3, 4))
    res = {}
    for lib in (torch, st):
        for mode in ("plain", "ckpt"):
            m = mlp(lib, dtype)
            x = T(lib, x0, grad=True, dtype=dtype)
            fn = lambda a, s: (m(a) * s).sin()  # noqa: E731
            y = fn(x, 2.0) if mode == "plain" else ckpt(lib)(fn, x, 2.0, use_reentrant=reentrant)
            (y ** 2).sum().backward()
            res[lib, mode] = (y, x.grad, [p.grad for p in m.parameters()])
    tol = 1e-5 if dtype == "float32" else 1e-10
    for mode in ("plain", "ckpt"):
        y, xg, pg = res[st, mode]
        ty, txg, tpg = res[torch, mode]
        close(y, ty, tol)
        close(xg, txg, tol)
        for a, b in zip(pg, tpg):
            close(a, b, tol)
    # (and strided's checkpointed call equals strided's plain call)
    for a, b in zip([res[st, "ckpt"][0], res[st, "ckpt"][1]] + res[st, "ckpt"][2],
                    [res[st, "plain"][0], res[st, "plain"][1]] + res[st, "plain"][2]):
        np.testing.assert_allclose(to_numpy(a.detach()), to_numpy(b.detach()), rtol=tol, atol=tol)


@pytest.mark.parametrize("reentrant", [True, False])
def test_intermediates_are_not_kept(reentrant):
    """The forward's intermediates die when checkpoint returns (the plain call's graph keeps them);
    the function runs again in backward."""
    calls = []
    kept = []

    def fn(a):
        calls.append(1)
        h = a.sin()
        kept.append(weakref.ref(h))
        return h * h

    x = st.tensor([0.5, 1.0], requires_grad=True)
    y_plain = fn(x)
    gc.collect()
    assert kept[-1]() is not None  # (saved by the product for backward)
    y = checkpoint(fn, x, use_reentrant=reentrant)
    gc.collect()
    assert kept[-1]() is None
    assert len(calls) == 2
    nodes = [n for n, _ in y.grad_fn.next_functions if n is not None]
    assert [type(n).__name__ for n in nodes] == ["AccumulateGrad"]  # (only the input: no inner graph)
    y.sum().backward()
    assert len(calls) == 3
    g_plain = st.autograd.grad(y_plain.sum(), x)[0]
    np.testing.assert_allclose(to_numpy(x.grad), to_numpy(g_plain), rtol=1e-6)


def test_warning_without_use_reentrant_as_pytorch():
    for lib in (torch, st):
        x = T(lib, [1.0], grad=True)
        with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly") as rec:
            ckpt(lib)(lambda a: a * 2, x)
        if lib is st:
            assert rec[0].filename == __file__  # (points at the caller)
        with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
            ckpt_seq(lib)([lambda a: a * 2, lambda a: a + 1], 2, x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ckpt(lib)(lambda a: a * 2, x, use_reentrant=False)
            ckpt(lib)(lambda a: a * 2, x, use_reentrant=True)


def test_no_input_requires_grad():
    """Reentrant: PyTorch's warning, an output without grad, no gradient for the parameters inside.
    Non-reentrant: the parameters read inside get their gradients."""
    out = {}
    x0 = RNG.uniform(-1, 1, (2, 4))
    for lib in (torch, st):
        m = mlp(lib)
        x = T(lib, x0)
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
            y = ckpt(lib)(m, x, use_reentrant=True)
        assert not y.requires_grad
        y2 = ckpt(lib)(m, x, use_reentrant=False)
        assert y2.requires_grad
        y2.sum().backward()
        out[lib] = (y, y2, [p.grad for p in m.parameters()])
    close(out[st][0], out[torch][0])
    close(out[st][1], out[torch][1])
    for a, b in zip(out[st][2], out[torch][2]):
        close(a, b)


def test_keyword_arguments_and_structured_outputs():
    def fn(a, b, *, scale):
        return {"p": a * b * scale, "q": (a.exp(), 3)}

    res = {}
    for lib in (torch, st):
        a, b = T(lib, [1.0, 2.0], grad=True), T(lib, [0.5, -1.0], grad=True)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
            ckpt(lib)(fn, a, b, use_reentrant=True, scale=2.0)
        out = ckpt(lib)(fn, a, b, use_reentrant=False, scale=2.0)
        assert out["q"][1] == 3
        (out["p"].sum() + out["q"][0].sum()).backward()
        res[lib] = (out["p"], out["q"][0], a.grad, b.grad)
    for s, t in zip(res[st], res[torch]):
        close(s, t)


def test_tuple_outputs_reentrant():
    res = {}
    for lib in (torch, st):
        a = T(lib, [1.0, 2.0, 3.0], grad=True)
        p, q = ckpt(lib)(lambda x: (x.sin(), x * x), a, use_reentrant=True)
        (p * q).sum().backward()
        res[lib] = (p, q, a.grad)
    for s, t in zip(res[st], res[torch]):
        close(s, t)


@pytest.mark.parametrize("reentrant", [True, False])
def test_dropout_mask_is_replayed(reentrant):
    """preserve_rng_state=True: the recompute draws the forward's mask, so the gradients equal the
    non-checkpointed call's under the same seed; the generator ends where the plain call leaves it."""
    F = st.nn.functional
    x0 = RNG.uniform(0.5, 1.5, 200)

    def run(mode, preserve=True):
        st.manual_seed(11)
        x = st.asarray(x0.copy()).requires_grad_(True)
        fn = lambda a: F.dropout(a * 3, p=0.5, training=True) ** 2  # noqa: E731
        y = fn(x) if mode == "plain" else checkpoint(fn, x, use_reentrant=reentrant, preserve_rng_state=preserve)
        y.sum().backward()
        return to_numpy(y).copy(), to_numpy(x.grad).copy(), to_numpy(st.rand(3)).copy()

    y0, g0, next0 = run("plain")
    y1, g1, next1 = run("ckpt")
    np.testing.assert_array_equal(y1, y0)
    np.testing.assert_array_equal(g1, g0)
    zeroed = y0 == 0
    assert 50 < zeroed.sum() < 150  # (a dropout mask: about half zeroed)
    np.testing.assert_array_equal(g0 == 0, zeroed)
    np.testing.assert_allclose(g0[~zeroed], 2 * (x0 * 3 * 2)[~zeroed] * 6)  # (kept values scaled by 1/(1-p))
    np.testing.assert_array_equal(next1, next0)
    y2, g2, _ = run("ckpt", preserve=False)
    np.testing.assert_array_equal(y2, y0)  # (the forward draws the same mask)
    assert not np.array_equal(g2 == 0, zeroed)  # (the recompute draws a new one: PyTorch's behaviour too)


def test_dropout_mask_pytorch_behaves_alike():
    """The same property holds in PyTorch (the test above is not about strided alone)."""
    x0 = RNG.uniform(0.5, 1.5, 200)

    def run(mode):
        torch.manual_seed(11)
        x = torch.from_numpy(x0.copy()).requires_grad_(True)
        fn = lambda a: torch.nn.functional.dropout(a * 3, p=0.5, training=True) ** 2  # noqa: E731
        y = fn(x) if mode == "plain" else TC.checkpoint(fn, x, use_reentrant=False)
        y.sum().backward()
        return x.grad.numpy().copy()
    np.testing.assert_array_equal(run("plain"), run("ckpt"))


@pytest.mark.parametrize("segments", [1, 2, 3, 5])
@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_sequential(segments, reentrant):
    res = {}
    x0 = RNG.uniform(-1, 1, (2, 4))
    for lib in (torch, st):
        m = mlp(lib)
        x = T(lib, x0, grad=True)
        y = ckpt_seq(lib)(m, segments, x, use_reentrant=reentrant)
        (y ** 2).sum().backward()
        res[lib] = [y, x.grad] + [p.grad for p in m.parameters()]
        with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
            ckpt_seq(lib)(m, 2, x, use_reentrant=reentrant, foo=1)
    for s, t in zip(res[st], res[torch]):
        close(s, t)


def test_option_errors_as_pytorch():
    for lib in (torch, st):
        x = T(lib, [1.0], grad=True)
        ctx = TC.noop_context_fn if lib is torch else st.utils.checkpoint.noop_context_fn
        with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported when "
                                             "use_reentrant=False"):
            ckpt(lib)(lambda a: a, x, use_reentrant=True, debug=True)
        with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
            ckpt(lib)(lambda a: a, x, use_reentrant=True, context_fn=lambda: ctx())
    with pytest.raises(NotImplementedError, match="context_fn"):
        checkpoint(lambda a: a, st.ones(1), use_reentrant=False, context_fn=lambda: (None, None))


def test_double_backward():
    """use_reentrant=False: second derivatives through the checkpoint, as PyTorch's (inputs and a
    parameter read inside); use_reentrant=True: strided says it does not support them."""
    res = {}
    for lib in (torch, st):
        x = T(lib, [0.5, 1.0, -0.3], grad=True)
        w = T(lib, [1.5, -2.0, 0.7], grad=True)
        y = ckpt(lib)(lambda a: (a ** 3 * w).sin(), x, use_reentrant=False)
        gx, gw = lib.autograd.grad(y.sum(), (x, w), create_graph=True)
        (gx.sum() + (gw * gw).sum()).backward()
        res[lib] = (y, gx, gw, x.grad, w.grad)
    for s, t in zip(res[st], res[torch]):
        close(s, t)
    x = st.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda a: a ** 3, x, use_reentrant=True)
    with pytest.raises(NotImplementedError, match="create_graph=True"):
        y.sum().backward(create_graph=True)


def test_outside_non_leaf_array_still_gives_the_plain_gradients():
    res = {}
    for lib in (torch, st):
        w = T(lib, [2.0, 3.0], grad=True)
        w2 = w * w  # (computed outside, requires grad, not a leaf)
        x = T(lib, [1.0, -1.0], grad=True)
        y = ckpt(lib)(lambda a: (a * w2).sin(), x, use_reentrant=False)
        y.sum().backward()
        res[lib] = (y, x.grad, w.grad)
    for s, t in zip(res[st], res[torch]):
        close(s, t)


def test_no_grad_mode_runs_the_function():
    for lib in (torch, st):
        x = T(lib, [1.0], grad=True)
        with lib.no_grad():
            y = ckpt(lib)(lambda a: a * 2, x, use_reentrant=False)
        assert not y.requires_grad and float(y[0]) == 2.0


def test_namespace():
    assert st.utils.checkpoint.checkpoint is checkpoint
    assert "checkpoint" in st.utils.__all__
    for name in ("checkpoint", "checkpoint_sequential", "noop_context_fn"):
        assert getattr(st.utils.checkpoint, name).__doc__


def test_unsupported_names_say_so():
    with pytest.raises(AttributeError, match="strided does not support it"):
        st.utils.checkpoint.create_selective_checkpoint_contexts
    assert hasattr(TC, "create_selective_checkpoint_contexts")


def test_on_the_simulated_device(sim):
    """On another device (the suite's stand-in GPU): the same values and gradients as on the CPU,
    and the device's generator replayed for a dropout mask drawn there."""
    F = st.nn.functional
    x0 = RNG.uniform(0.5, 1.5, 64)
    out = {}
    for dev in ("cpu", sim):
        st.rand(1, device=dev)  # (the device's default generator exists before manual_seed seeds it)
        for mode in ("plain", "ckpt"):
            st.manual_seed(3)
            x = st.asarray(x0.copy(), device=dev).requires_grad_(True)
            fn = lambda a: (F.dropout(a.sin(), p=0.5, training=True) * a).exp()  # noqa: E731
            y = fn(x) if mode == "plain" else checkpoint(fn, x, use_reentrant=False)
            y.sum().backward()
            assert y.device == x.grad.device == x.device
            out[str(dev), mode] = (to_numpy(y.cpu()).copy(), to_numpy(x.grad.cpu()).copy())
    for dev in ("cpu", str(sim)):
        np.testing.assert_array_equal(out[dev, "ckpt"][0], out[dev, "plain"][0])
        np.testing.assert_allclose(out[dev, "ckpt"][1], out[dev, "plain"][1], rtol=1e-12)


def test_reentrant_refuses_grad_and_backward_inputs_as_pytorch():
    for lib in (torch, st):
        x = T(lib, [1.0, 2.0], grad=True)
        y = ckpt(lib)(lambda a: a.sin(), x, use_reentrant=True)
        with pytest.raises(RuntimeError, match="incompatible with .grad\\(\\) or passing an `inputs`") as info:
            lib.autograd.grad(y.sum(), x)
        y = ckpt(lib)(lambda a: a.sin(), x, use_reentrant=True)
        with pytest.raises(RuntimeError, match="use_reentrant=True, torch.utils.checkpoint is incompatible"):
            y.sum().backward(inputs=[x])
        y = ckpt(lib)(lambda a: a.sin(), x, use_reentrant=False)
        g = lib.autograd.grad(y.sum(), x)[0]  # (use_reentrant=False: fine)
        np.testing.assert_allclose(np.asarray(g.tolist()), np.cos([1.0, 2.0]), rtol=1e-12)
