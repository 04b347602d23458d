"""torch.autograd.graph on strided.torch against PyTorch 2.13: Node (the type of every
grad_fn, with name() and next_functions), saved_tensors_hooks (pack at save, unpack at
backward, for recorded operations and custom Functions, nested, with create_graph),
save_on_cpu and disable_saved_tensors_hooks. Each scenario runs the same code on both."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch

LIBS = [torch, storch]


def _both(fn):
    return fn(torch), fn(storch)


def _ls(t):
    return np.asarray(t.detach().tolist())


def test_node_type_name_and_next_functions():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.sin().sum()
        fn = y.grad_fn
        sin = fn.next_functions[0][0]
        acc = sin.next_functions[0][0]
        return (isinstance(fn, lib.autograd.graph.Node), isinstance(acc, lib.autograd.graph.Node),
                fn.name(), sin.name(), type(acc).__name__, acc.variable is x, len(sin.next_functions))
    t, s = _both(run)
    assert s == t, (s, t)


def _hooked(lib):
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    packed, unpacked = [], []

    def pack(t):
        packed.append(tuple(t.shape))
        return t.detach() * 10  # (what is saved is changed: backward must see it)

    def unpack(t):
        unpacked.append(tuple(t.shape))
        return t / 10

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).exp().sum()
    n_packed = len(packed)
    y.backward()
    return n_packed, len(unpacked), _ls(x.grad)


def test_saved_tensors_hooks_pack_at_save_unpack_at_backward():
    t, s = _both(_hooked)
    assert s[0] == t[0] and s[1] == t[1], (s[:2], t[:2])
    np.testing.assert_allclose(s[2], t[2], rtol=1e-12)


def _what_unpack_returns_is_used(lib):
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t * 0 + 3):
        y = (x * x).sum()  # backward: x_saved * g twice = 3 + 3
    y.backward()
    return _ls(x.grad)


def test_the_unpacked_value_is_what_backward_uses():
    t, s = _both(_what_unpack_returns_is_used)
    np.testing.assert_array_equal(s, t)
    np.testing.assert_array_equal(s, [6.0, 6.0])


def _custom_function(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    n = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: n.append(1) or t * 10, lambda t: t):
        y = Scale.apply(x).sum()
    y.backward()
    return len(n), _ls(x.grad)


def test_hooks_apply_to_custom_function_saves():
    t, s = _both(_custom_function)
    assert s[0] == t[0]
    np.testing.assert_array_equal(s[1], t[1])


def _double_backward(lib):
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = (x ** 3).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    return _ls(g), _ls(x.grad)


def test_create_graph_through_unpacked_values():
    t, s = _both(_double_backward)
    for a, b in zip(s, t):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def _nested_and_no_version_check(lib):
    outer, inner = [], []
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    a = x * 1
    with lib.autograd.graph.saved_tensors_hooks(lambda t: outer.append(1) or t.detach().clone(), lambda t: t):
        with lib.autograd.graph.saved_tensors_hooks(lambda t: inner.append(1) or t.detach().clone(),
                                                    lambda t: t):
            y = (a * a).sum()
        z = a.exp().sum()
    with lib.no_grad():
        a.add_(1)  # the hooks hold copies: no version error, the old values are used
    (y + z).backward()
    return len(outer), len(inner), _ls(x.grad)


def test_nested_hooks_innermost_wins_and_copies_skip_the_version_check():
    t, s = _both(_nested_and_no_version_check)
    assert s[:2] == t[:2], (s[:2], t[:2])
    np.testing.assert_allclose(s[2], t[2], rtol=1e-12)


def test_unpack_must_return_an_array():
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = (x * x).sum()
        with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
            y.backward()


def test_save_on_cpu():
    def run(lib):
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.save_on_cpu():
            y = (x.exp() * x).sum()
        y.backward()
        return _ls(x.grad)
    t, s = _both(run)
    np.testing.assert_allclose(s, t, rtol=1e-12)


def test_disable_saved_tensors_hooks():
    for lib in LIBS:
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            x = lib.tensor([1.0], requires_grad=True)
            (x * x).sum().backward()  # saving itself is fine
            with pytest.raises(RuntimeError, match="no hooks here"):
                with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        with pytest.raises(RuntimeError, match="inside hooks"):
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                with lib.autograd.graph.disable_saved_tensors_hooks("inside hooks"):
                    pass
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # (usable again)
            pass


def test_hooks_leave_no_trace_after_the_context():
    # After the context, saving is plain again: an in-place change is detected as usual.
    x = storch.tensor([1.0, 2.0], requires_grad=True)
    with storch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        pass
    a = x * 1
    y = (a * a).sum()
    with storch.no_grad():
        a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_hooks_are_per_thread():
    # As PyTorch's: hooks entered in one thread do not pack what another thread saves.
    import threading
    packed = []
    started, release = threading.Event(), threading.Event()

    def other():
        with storch.autograd.graph.saved_tensors_hooks(lambda t: packed.append("other") or t, lambda t: t):
            started.set()
            release.wait(10)

    th = threading.Thread(target=other)
    th.start()
    started.wait(10)
    try:
        x = storch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()  # saved in this thread, with no hooks of its own
        y.backward()
        assert packed == [] and x.grad.tolist() == [2.0, 4.0]
        with storch.autograd.graph.saved_tensors_hooks(lambda t: packed.append("main") or t, lambda t: t):
            (x * x).sum()
        assert packed == ["main", "main"]
    finally:
        release.set()
        th.join()
