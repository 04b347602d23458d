"""Module hooks against PyTorch 2.13: ``register_full_backward_hook``,
``register_full_backward_pre_hook`` and the deprecated ``register_backward_hook`` (what the hooks
receive, replacing gradients, the order, non-array arguments, inputs that do not require grad,
the errors), and the forward hooks' ``prepend`` / ``with_kwargs`` / ``always_call`` options and
handles."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

LIBS = (torch, st)


def T(lib, a, grad=False):
    a = np.asarray(a)
    t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
    if grad:
        t.requires_grad_(True)
    return t


def np_or_none(gs):
    return [None if g is None else to_numpy(g).copy() for g in gs]


def assert_same(a, b, **tol):
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_same(x, y, **tol)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), (a, b)
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, **tol)
    else:
        assert a == b


def linear(lib, dtype, rng, n_in=3, n_out=2):
    m = lib.nn.Linear(n_in, n_out, dtype=getattr(lib, dtype))
    with lib.no_grad():
        m.weight.copy_(T(lib, rng.standard_normal((n_out, n_in)).astype(dtype)))
        m.bias.copy_(T(lib, rng.standard_normal(n_out).astype(dtype)))
    return m


TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-12, atol=1e-13)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3,), (4, 3), (2, 2, 3)])
@pytest.mark.parametrize("scale_in", [None, 2.0])
def test_full_backward_hook_and_pre_hook(dtype, shape, scale_in):
    res = []
    for lib in LIBS:
        rng = np.random.default_rng(0)
        m = linear(lib, dtype, rng)
        log = []

        def pre(mod, grad_output):
            assert mod is m
            log.append(("pre", np_or_none(grad_output)))
            return (grad_output[0] * 3,)

        def full(mod, grad_input, grad_output):
            log.append(("full", np_or_none(grad_input), np_or_none(grad_output)))
            if scale_in is not None:
                return tuple(None if g is None else g * scale_in for g in grad_input)
            return None

        m.register_full_backward_pre_hook(pre)
        m.register_full_backward_hook(full)
        x = T(lib, rng.standard_normal(shape).astype(dtype), grad=True)
        y = m(x)
        w = T(lib, rng.standard_normal(tuple(y.shape)).astype(dtype))
        (y * w).sum().backward()
        res.append((log, to_numpy(x.grad).copy(), to_numpy(m.weight.grad).copy(),
                    type(y.grad_fn).__name__))
    assert_same(res[1], res[0], **TOL[dtype])
    assert res[1][3] == "BackwardHookFunctionBackward"


def two_in_two_out(lib):
    class M(lib.nn.Module):
        def forward(self, a, k, b, scale=1.0):
            return a * b * scale, k, (a + b).sum() * k

    return M()


@pytest.mark.parametrize("b_grad", [True, False])
def test_non_array_arguments_outputs_and_keywords(b_grad):
    res = []
    for lib in LIBS:
        rng = np.random.default_rng(1)
        m = two_in_two_out(lib)
        log = []
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", np_or_none(go))))
        m.register_full_backward_hook(
            lambda mod, gi, go: log.append(("full", np_or_none(gi), np_or_none(go))))
        a = T(lib, rng.standard_normal(3), grad=True)
        b = T(lib, rng.standard_normal(3), grad=b_grad)
        p, k, q = m(a, 2, b, scale=T(lib, 0.5))
        assert k == 2
        (p.sum() + q).backward()
        res.append((log, to_numpy(a.grad).copy(), b.grad is None))
    assert_same(res[1], res[0], rtol=1e-12)
    assert res[1][0][1][1][1] is None  # (the int argument's grad_input)


def test_inputs_not_requiring_grad_fire_on_outputs_and_must_return_none():
    res = []
    for lib in LIBS:
        rng = np.random.default_rng(2)
        m = linear(lib, "float64", rng)
        log = []
        m.register_full_backward_hook(
            lambda mod, gi, go: log.append((np_or_none(gi), np_or_none(go))))
        x = T(lib, rng.standard_normal((2, 3)))
        with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are "
                                             "computed with respect to module outputs"):
            m(x).sum().backward()
        m2 = linear(lib, "float64", rng)
        m2.register_full_backward_hook(lambda mod, gi, go: (T(lib, np.ones((2, 3))),))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match="should always return None or None for all"):
                m2(x).sum().backward()
        res.append((log, to_numpy(m.weight.grad).copy()))
    assert_same(res[1], res[0], rtol=1e-12)


def test_no_hook_when_nothing_requires_grad_and_under_no_grad():
    for lib in LIBS:
        m = lib.nn.Tanh()
        log = []
        m.register_full_backward_hook(lambda *a: log.append(1))
        m.register_full_backward_pre_hook(lambda *a: log.append(2))
        x = T(lib, np.ones(3), grad=True)
        with lib.no_grad():
            y = m(x)
        assert y.grad_fn is None
        assert m(T(lib, np.ones(3))).grad_fn is None
        assert log == []


def test_hook_errors_and_mixing():
    for lib in LIBS:
        m = lib.nn.Tanh()
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        x = T(lib, np.ones(3), grad=True)
        with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of "
                                               "grad_input, got 2, but expected 1"):
            m(x).sum().backward()
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full"):
            m.register_backward_hook(lambda *a: None)
        m2 = lib.nn.Tanh()
        m2.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
        with pytest.raises(RuntimeError, match="Backward pre hook returned an invalid number of "
                                               "grad_output, got 2, but expected 1"):
            m2(x).sum().backward()
        m3 = lib.nn.Tanh()
        m3.register_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full"):
            m3.register_full_backward_hook(lambda *a: None)


def test_order_prepend_and_remove():
    res = []
    for lib in LIBS:
        m = lib.nn.Sigmoid()
        log = []
        hs = [m.register_full_backward_hook(lambda mod, gi, go, i=i: log.append(("b", i)))
              for i in range(3)]
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("b", "first")),
                                      prepend=True)
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("p", 0)))
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("p", "first")),
                                          prepend=True)
        hs[1].remove()
        x = T(lib, np.ones(2), grad=True)
        m(x).sum().backward()
        with hs[2]:
            pass
        m(x).sum().backward()
        res.append(log)
    assert res[0] == res[1]


def test_nested_modules_hook_order():
    res = []
    for lib in LIBS:
        rng = np.random.default_rng(3)
        net = lib.nn.Sequential(linear(lib, "float64", rng, 3, 4), lib.nn.Tanh(),
                                linear(lib, "float64", rng, 4, 2))
        log = []
        for name, mod in [("net", net), ("0", net[0]), ("1", net[1]), ("2", net[2])]:
            mod.register_full_backward_pre_hook(lambda m, go, n=name: log.append(("pre", n)))
            mod.register_full_backward_hook(
                lambda m, gi, go, n=name: log.append(("full", n, np_or_none(gi))))
        x = T(lib, rng.standard_normal((2, 3)), grad=True)
        net(x).pow(2).sum().backward()
        res.append((log, to_numpy(x.grad).copy()))
    assert_same(res[1], res[0], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mod", ["Sigmoid", "Tanh", "ReLU"])
def test_deprecated_backward_hook_on_a_one_node_module(mod):
    res = []
    for lib in LIBS:
        rng = np.random.default_rng(4)
        m = getattr(lib.nn, mod)()
        log = []

        def hook(module, grad_input, grad_output):
            assert module is m
            log.append((np_or_none(grad_input), np_or_none(grad_output)))
            return (grad_input[0] * 2,)

        m.register_backward_hook(hook)
        x0 = T(lib, rng.standard_normal((2, 3)), grad=True)
        x = x0 * 1.0
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = m(x)
        y.sum().backward()
        res.append((log, to_numpy(x0.grad).copy(), [str(i.message)[:40] for i in w]))
    assert_same(res[1], res[0], rtol=1e-12)


def test_deprecated_backward_hook_warns_for_a_tuple_input_of_non_arrays():
    for lib in LIBS:
        m = two_in_two_out(lib)
        m.register_backward_hook(lambda *a: None)
        a = T(lib, np.ones(2), grad=True)
        with pytest.warns(FutureWarning, match="Using non-full backward hooks on a Module that "
                                               "does not return a single Tensor"):
            m(a, 2, a)
        m2 = lib.nn.Tanh()
        m2.register_backward_hook(lambda *a: None)
        with pytest.warns(FutureWarning, match="Using a non-full backward hook when the forward "
                                               "contains multiple autograd Nodes"):
            m2(a)  # (a leaf input: no grad_fn, the node's next function is its AccumulateGrad)


# --- forward hooks: options and handles -------------------------------------------------------

def test_forward_hook_options():
    res = []
    for lib in LIBS:
        m = lib.nn.Linear(2, 2, dtype=lib.float64)
        with lib.no_grad():
            m.weight.copy_(T(lib, np.array([[1.0, 2.0], [-3.0, 0.5]])))
            m.bias.copy_(T(lib, np.array([0.25, -1.0])))
        log = []
        m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args))))
        m.register_forward_pre_hook(lambda mod, args: log.append(("pre-first",)), prepend=True)

        def pre_kw(mod, args, kwargs):
            log.append(("pre-kw", sorted(kwargs)))
            return (args[0] * 2,), kwargs

        h = m.register_forward_pre_hook(pre_kw, with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: log.append(("post",)))
        m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("post-kw", kwargs)),
                                with_kwargs=True, prepend=True)
        x = T(lib, np.ones((1, 2)))
        y1 = to_numpy(m(x)).copy()
        h.remove()
        assert h.id not in m._forward_pre_hooks_with_kwargs
        y2 = to_numpy(m(x)).copy()
        m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
        with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of "
                                               "\\(new_args, new_kwargs\\), but got 5"):
            m(x)
        res.append((log, y1, y2))
    assert_same(res[1], res[0], rtol=1e-12)


def test_forward_hook_always_call():
    res = []
    for lib in LIBS:
        class Boom(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        m = Boom()
        log = []
        m.register_forward_hook(lambda mod, args, out: log.append(("always", out)),
                                always_call=True)
        m.register_forward_hook(lambda mod, args, out: log.append(("plain",)))

        def bad(mod, args, out):
            raise KeyError("inner")

        m.register_forward_hook(bad, always_call=True)
        with pytest.warns(UserWarning, match="raised an exception that was silenced"):
            with pytest.raises(ValueError, match="boom"):
                m(T(lib, np.ones(1)))
        res.append(log)
    assert res[0] == res[1] == [("always", None)]
