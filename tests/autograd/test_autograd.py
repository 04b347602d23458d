"""Autograd semantics: tracking, backward, grad modes, escapes, safety, hooks, Function.

The per-function derivative rules are checked in test_autograd_ops.py; this
file checks the engine and the PyTorch-compatible API around it, with
PyTorch itself as the reference where it is installed.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import tracemalloc
import weakref

import numpy as np
import pytest

import strided as xp
from strided import autograd as ag
from strided._core.dispatch import api

try:
    import torch
except ImportError:  # pragma: no cover - torch is installed in our environment
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")


def leaf(values, dtype=xp.float64):
    return xp.tensor(values, dtype=dtype, requires_grad=True)


def close(a, b, tol=1e-12):
    np.testing.assert_allclose(np.asarray(a._host() if isinstance(a, xp.Array) else a),
                               np.asarray(b), rtol=tol, atol=tol)


# --- the seed documents' examples ------------------------------------------------------

def test_seed_example_mean_then_sum_then_zero():
    x = xp.ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()
    assert type(out.grad_fn).__name__ == "MeanBackward0"
    out.backward()
    assert x.grad.tolist() == [[4.5, 4.5], [4.5, 4.5]]
    x.sum().backward()
    assert x.grad.tolist() == [[5.5, 5.5], [5.5, 5.5]]
    x.grad.zero_()
    x.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_seed_example_view():
    x = xp.tensor([1., 2., 3., 4.], requires_grad=True)
    z = (2 * x).view(2, 2)
    assert type(z.grad_fn).__name__ == "ViewBackward0"
    z.backward(xp.tensor([[1., .01], [.01, .001]]))
    assert x.grad.dtype == xp.float32
    assert x.grad.tolist() == np.array([2, 0.02, 0.02, 0.002], dtype=np.float32).tolist()


def test_seed_example_no_grad():
    x = xp.tensor([1., 2., 3.], requires_grad=True)
    y1 = x ** 2
    with ag.no_grad():
        y2 = x ** 3
    assert not y2.requires_grad and y2.grad_fn is None
    (y1 + y2).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        y2.backward(xp.ones(3))


def test_seed_example_data_is_not_recorded():
    x = xp.tensor([1., 2., 3.], requires_grad=True)
    y = 2 * x
    x.data *= 100
    y.backward(xp.ones(3))
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    assert x.tolist() == [100.0, 200.0, 300.0]


# --- tracking ------------------------------------------------------------------------------

def test_requires_grad_flags_and_repr(device):
    dev = "" if device.type == "cpu" else f", device='{device}'"  # PyTorch's repr
    x = xp.ones(2)
    assert not x.requires_grad and x.is_leaf and x.grad_fn is None and x.grad is None
    assert x.requires_grad_() is x
    assert x.requires_grad and x.is_leaf
    assert repr(x) == f"tensor([1., 1.]{dev}, requires_grad=True)"
    y = x + 1
    assert y.requires_grad and not y.is_leaf
    assert repr(y) == f"tensor([2., 2.]{dev}, grad_fn=<AddBackward0>)"
    x.requires_grad = False
    assert not x.requires_grad
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad = False
    y.requires_grad_(True)  # already requires grad: allowed
    for f in (xp.zeros, xp.ones, xp.empty):
        assert f(2, 3, requires_grad=True).requires_grad
    assert xp.asarray([1.0], requires_grad=True).requires_grad
    assert xp.full((2,), 3.0, requires_grad=True).requires_grad
    assert xp.zeros_like(x, requires_grad=True).requires_grad
    assert xp.arange(3.0, requires_grad=True).requires_grad
    assert xp.linspace(0, 1, 3, requires_grad=True).requires_grad


def test_only_floating_arrays_require_grad():
    with pytest.raises(RuntimeError, match="floating point and complex"):
        xp.arange(3).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point and complex"):
        xp.tensor([True], requires_grad=True)
    assert xp.tensor([1j], requires_grad=True).requires_grad


def test_node_names_and_next_functions():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    assert type((x + w).grad_fn).__name__ == "AddBackward0"
    assert type((x * w).grad_fn).__name__ == "MulBackward0"
    assert type((x - w).grad_fn).__name__ == "SubBackward0"
    assert type((x / w).grad_fn).__name__ == "DivBackward0"
    assert type((x ** 2).grad_fn).__name__ == "PowBackward0"
    assert type((x ** w).grad_fn).__name__ == "PowBackward1"
    assert type(x.sum().grad_fn).__name__ == "SumBackward0"
    assert type(x.sum(0).grad_fn).__name__ == "SumBackward1"
    assert type(x.mean().grad_fn).__name__ == "MeanBackward0"
    assert type(x.view(2, 1).grad_fn).__name__ == "ViewBackward0"
    assert type(x[0].grad_fn).__name__ == "SelectBackward0"
    assert type(x[1:].grad_fn).__name__ == "SliceBackward0"
    assert type(x[xp.tensor([0, 0])].grad_fn).__name__ == "IndexBackward0"
    assert type(xp.exp(x).grad_fn).__name__ == "ExpBackward0"
    y = x * w + x
    add = y.grad_fn
    (mul, _), (acc, _) = add.next_functions
    assert type(mul).__name__ == "MulBackward0"
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x
    assert [type(n).__name__ for n, _ in mul.next_functions] == ["AccumulateGrad", "AccumulateGrad"]
    assert mul.next_functions[0][0] is acc  # one accumulator per leaf
    assert (x * 2).grad_fn.next_functions == ((acc, 0),)
    c = xp.ones(2)
    assert (x * c).grad_fn.next_functions[1] == (None, 0)


def test_integer_and_boolean_outputs_do_not_require_grad():
    x = leaf([1.0, 3.0, 2.0])
    for y in (x > 1, xp.argmax(x), xp.argsort(x), xp.isnan(x), xp.nonzero(x)[0], xp.unique_values(x)):
        assert not y.requires_grad
    i = xp.searchsorted(xp.sort(x), x)
    assert not i.requires_grad


# --- backward --------------------------------------------------------------------------------

def test_backward_needs_gradient_for_nonscalar():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(xp.ones(3, dtype=xp.float64))
    z = leaf([1j], dtype=xp.complex128)
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        (z * 2).sum().backward()


def test_graph_is_freed_unless_retained():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    z = xp.exp(x).sum()
    z.backward()
    with pytest.raises(RuntimeError, match="second time"):
        z.grad_fn.next_functions[0][0].saved_values


def test_grad_accumulates_and_resets():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    g = x.grad
    (x * 3).sum().backward()
    assert x.grad is g and x.grad.tolist() == [6.0, 6.0]  # accumulated in place
    x.grad = None
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="shape"):
        x.grad = xp.zeros(3, dtype=xp.float64)
    with pytest.raises(RuntimeError, match="dtype"):
        x.grad = xp.zeros(2, dtype=xp.float32)


def test_input_used_twice_gets_both_contributions_and_grad_never_aliases():
    x = leaf([1.0, 2.0])
    w = leaf([5.0, 7.0])
    (x + w).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0] and w.grad.tolist() == [1.0, 1.0]
    assert x.grad.storage() is not w.grad.storage()
    x.grad.zero_()
    assert w.grad.tolist() == [1.0, 1.0]
    y = x * x * x + x
    y.backward(xp.ones(2, dtype=xp.float64))
    assert x.grad.tolist() == [4.0, 13.0]


def test_backward_of_leaf_and_of_several_roots():
    x = leaf(3.0)
    x.backward()
    assert x.grad.item() == 1.0
    a = leaf([1.0, 2.0])
    ag.backward([(a * 2).sum(), (a * a).sum()])
    assert a.grad.tolist() == [4.0, 6.0]
    b = leaf([1.0, 2.0])
    ag.backward([b * 2, b * 3], [xp.ones(2, dtype=xp.float64), xp.full((2,), 2.0, dtype=xp.float64)])
    assert b.grad.tolist() == [8.0, 8.0]


def test_backward_inputs_restricts_accumulation():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    h = x * w
    h.retain_grad()
    (h * h).sum().backward(inputs=[w])
    assert x.grad is None and w.grad.tolist() == [6.0, 32.0]
    (h * h).sum().backward(inputs=[h]) if False else None
    y = x * w
    (y * 2).sum().backward(inputs=[y])
    assert y.grad.tolist() == [2.0, 2.0] and x.grad is None


def test_broadcast_gradients_are_summed_back_by_the_engine():
    a = leaf(np.ones((3, 1)))
    b = leaf(np.arange(4.0))
    c = leaf(2.0)
    (a * b + c).sum().backward()
    assert a.grad.shape == (3, 1) and a.grad.tolist() == [[6.0], [6.0], [6.0]]
    assert b.grad.tolist() == [3.0, 3.0, 3.0, 3.0]
    assert c.grad.shape == () and c.grad.item() == 12.0


def test_grad_dtype_is_the_inputs():
    x = leaf([1.0, 2.0], dtype=xp.float32)
    w = leaf([1.0, 2.0], dtype=xp.float64)
    (x * w).sum().backward()
    assert x.grad.dtype == xp.float32 and w.grad.dtype == xp.float64
    z = leaf([1.0, -2.0])
    (xp.abs(z * 1j) ** 2).sum().backward()  # complex intermediate, real leaf
    assert z.grad.dtype == xp.float64
    close(z.grad, [2.0, -4.0])
    y = leaf([1.0, 2.0], dtype=xp.float32)
    xp.astype(y, xp.float64).sum().backward()
    assert y.grad.dtype == xp.float32 and y.grad.tolist() == [1.0, 1.0]


def test_autograd_grad_leaves_grad_untouched_and_allow_unused():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = (x * x * w).sum()
    gx, gw = ag.grad(y, [x, w])
    assert gx.tolist() == [6.0, 16.0] and gw.tolist() == [1.0, 4.0]
    assert x.grad is None and w.grad is None
    u = leaf([0.0])
    with pytest.raises(RuntimeError, match="allow_unused"):
        ag.grad((x * 2).sum(), [x, u])
    gx, gu = ag.grad((x * 2).sum(), [x, u], allow_unused=True)
    assert gu is None
    (gu,) = ag.grad((x * 2).sum(), [u], allow_unused=True, materialize_grads=True)
    assert gu.tolist() == [0.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        ag.grad((x * 2).sum(), [xp.ones(2)])
    h = x * w  # gradient with respect to a non-leaf
    (gh,) = ag.grad((h * h).sum(), [h])
    assert gh.tolist() == [6.0, 16.0]


def test_double_backward_and_hessian_vector_product():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((4, 4))
    A = xp.asarray(A + A.T)

    def f(x):
        return (xp.sin(x) * xp.matmul(A, x)).sum() + (x ** 4).sum() / 4

    x0 = rng.standard_normal(4)
    v = xp.asarray(rng.standard_normal(4))
    x = xp.asarray(x0.copy(), requires_grad=True)
    (g,) = ag.grad(f(x), [x], create_graph=True)
    assert g.requires_grad
    (hv,) = ag.grad((g * v).sum(), [x])

    def grad_at(p):
        t = xp.asarray(p, requires_grad=True)
        return ag.grad(f(t), [t])[0]._host()

    eps = 1e-6
    vv = v._host()
    fd = (grad_at(x0 + eps * vv) - grad_at(x0 - eps * vv)) / (2 * eps)
    close(hv, fd, tol=1e-6)
    # x.grad keeps history with create_graph=True (second derivative of x**3)
    y = leaf([2.0])
    (y ** 3).sum().backward(create_graph=True)
    assert y.grad.requires_grad
    (g2,) = ag.grad(y.grad.sum(), [y])
    assert g2.tolist() == [12.0]


# --- grad modes ---------------------------------------------------------------------------------

def test_no_grad_enable_grad_set_grad_enabled():
    x = leaf([1.0])
    with ag.no_grad():
        assert not ag.is_grad_enabled()
        assert not (x * 2).requires_grad
        with ag.enable_grad():
            assert (x * 2).requires_grad
    assert ag.is_grad_enabled()

    @ag.no_grad()
    def f(t):
        return t * 2

    @ag.enable_grad()
    def g(t):
        return t * 2

    assert not f(x).requires_grad
    with ag.no_grad():
        assert g(x).requires_grad
    ag.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    ag.set_grad_enabled(True)
    with ag.set_grad_enabled(False):
        assert not ag.is_grad_enabled()
    assert ag.is_grad_enabled()

    @ag.set_grad_enabled(False)
    def h(t):
        return t * 2

    assert ag.is_grad_enabled() and not h(x).requires_grad
    with ag.inference_mode():
        assert not (x * 2).requires_grad


def test_grad_modes_at_top_level():
    assert xp.no_grad is ag.no_grad and xp.enable_grad is ag.enable_grad
    assert xp.set_grad_enabled is ag.set_grad_enabled and xp.is_grad_enabled is ag.is_grad_enabled
    with xp.no_grad():
        assert not xp.is_grad_enabled()


def test_docstring_examples_run():
    import doctest
    import importlib

    for name in ("strided.autograd", "strided.autograd._function", "strided.autograd._gradcheck",
                 "strided.autograd._mode"):
        r = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert r.failed == 0 and r.attempted > 0, name


def test_inplace_into_integer_array_is_not_recorded():
    x = leaf([1.5, 2.5])
    i = xp.zeros(2, dtype=xp.int64)
    i[0] = x[1]
    assert i.tolist() == [2, 0] and not i.requires_grad


def test_grad_mode_is_per_thread():
    seen = []

    def worker():
        seen.append(ag.is_grad_enabled())

    with ag.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not ag.is_grad_enabled()
    assert seen == [True]


def test_handler_is_installed_lazily():
    code = ("import strided as xp\nfrom strided._core.array import HOOK\nfrom strided._core.dispatch import _HANDLERS\n"
            "assert not any(h.__module__.startswith('strided.autograd') for _, h in _HANDLERS)\n"
            "x = xp.ones(2) + 1\n"
            "y = xp.ones(2, requires_grad=True)\n"
            "assert any(h.__module__.startswith('strided.autograd') for _, h in _HANDLERS)\n"
            "assert HOOK[0] is not None\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# --- escapes ------------------------------------------------------------------------------------

def test_detach_shares_storage_and_version():
    x = leaf([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.storage() is y.storage()
    d[0] = 10.0
    assert y.tolist() == [10.0, 4.0]
    assert y._version == d._version == 1
    x2 = leaf([1.0])
    z = x2 * 3
    z.detach_()
    assert z.is_leaf and not z.requires_grad
    v = (x * 1)[0:1]
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        v.detach_()


def test_data_has_its_own_version_counter():
    x = leaf([1.0, 2.0])
    y = xp.exp(x)
    d = x.data
    assert not d.requires_grad
    d.mul_(2)
    assert x._version == 0
    y.backward(xp.ones(2, dtype=xp.float64))  # exp saved its result, not x: no error
    x.data = xp.tensor([7.0], dtype=xp.float64)
    assert x.tolist() == [7.0] and x.requires_grad


def test_clone_is_recorded():
    x = leaf([1.0, 2.0])
    c = x.clone()
    assert type(c.grad_fn).__name__ == "CloneBackward0"
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_tensor_of_an_array_is_detached():
    x = leaf([1.0])
    assert not xp.tensor(x).requires_grad


# --- safety -----------------------------------------------------------------------------------

def test_saved_value_modified_in_place_raises_naming_the_op():
    x = leaf([1.0, 2.0])
    y = xp.exp(x)
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*ExpBackward0.*MulBackward0"):
        z.sum().backward()
    # a value that was not saved can change: add saves nothing
    a = leaf([1.0])
    b = a * 1
    c = b + 1
    b.mul_(3)
    c.backward(xp.ones(1, dtype=xp.float64))
    assert a.grad.tolist() == [1.0]


def test_inplace_on_leaf_requires_no_grad():
    x = leaf([1.0, 2.0])
    for op in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.__iadd__(1),
               lambda: x.__setitem__(0, 5.0), lambda: x.zero_(), lambda: x.fill_(1.0),
               lambda: x.copy_(xp.ones(2)), lambda: x.clamp_(0, 1)):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            op()
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        x[0:1].mul_(2)
    with ag.no_grad():
        x.mul_(2)
        x[0] = 7.0
        x.zero_()
    assert x.tolist() == [0.0, 0.0] and x.is_leaf


def test_out_with_grad_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"add\(\): .*out=.*requires grad"):
        xp.add(x, 1, out=xp.zeros(2, dtype=xp.float64))
    with pytest.raises(RuntimeError, match=r"sum\(\): .*out="):
        xp.sum(x, out=xp.zeros((), dtype=xp.float64))
    with pytest.raises(RuntimeError, match="out="):
        xp.add(xp.ones(2), 1, out=leaf([0.0, 0.0]))
    with pytest.raises(RuntimeError, match="out="):
        xp.zeros(2, out=leaf([0.0, 0.0]), dtype=xp.float64)
    with ag.no_grad():
        xp.add(x, 1, out=xp.zeros(2, dtype=xp.float64))


def test_inplace_on_nonleaf_is_recorded():
    x = leaf([1.0, 2.0])
    y = x * 1
    y.mul_(2)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y += x
    y.exp_()
    y.sum().backward()
    e = np.exp(3 * np.array([1.0, 2.0]))
    close(x.grad, 3 * e)
    a = leaf([1.0, 2.0])
    b = leaf([3.0, 4.0])
    h = a * 1
    h.mul_(b)  # needs h's old value for b's gradient: saved before the write
    h.sum().backward()
    assert a.grad.tolist() == [3.0, 4.0] and b.grad.tolist() == [1.0, 2.0]
    p = xp.zeros(2, dtype=xp.float64)
    p.add_(a)  # a plain array becomes part of the graph
    assert p.requires_grad and not p.is_leaf
    q = a * 1
    q.clamp_(1.5, 3.0)
    q.sum().backward()
    assert a.grad.tolist() == [3.0, 5.0]  # accumulated: [3, 4] + clamp's [0, 1]


def test_setitem_and_fill_are_recorded():
    x = leaf([1.0, 2.0, 3.0])
    v = leaf(10.0)
    y = x * 2
    y[1] = v
    assert type(y.grad_fn).__name__ == "CopySlices"
    (y * xp.tensor([1.0, 2.0, 3.0], dtype=xp.float64)).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 6.0] and v.grad.item() == 2.0
    z = x * 1
    z[xp.tensor([0, 0])] = xp.tensor([5.0, 6.0], dtype=xp.float64)
    assert type(z.grad_fn).__name__ == "IndexPutBackward0"
    w = x * 1
    w.zero_()
    w.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 6.0]  # zero_ sends zeros back
    u = x * 1
    u.copy_(v * xp.ones(3, dtype=xp.float64))
    u.sum().backward()
    assert v.grad.item() == 5.0


@needs_torch
def test_inplace_through_views_matches_torch():
    def run(lib, ten):
        a = ten([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = a * 1
        b[:, 0] += 1
        b[0] *= a[1]
        v = b[1, 1:]
        v.mul_(3)
        c = b.t()
        c[2] = c[0] + c[1] * 2
        (b * b).sum().backward()
        return a.grad.tolist(), b.tolist()

    ours = run(xp, lambda v: xp.tensor(v, dtype=xp.float64, requires_grad=True))
    theirs = run(torch, lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True))
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1])


def test_inplace_histories_check_numerically_to_second_order():
    def views(x):
        y = x * 1
        v = y[1:]
        v.mul_(x[:2])
        y[0] = y[2] * 2 + x[1]
        return y * y

    def chain(x):
        y = xp.exp(x) * 1
        y.sin_()
        y += x
        return y.sum() * y

    for f in (views, chain):
        x = leaf([0.5, 1.5, -0.7])
        assert ag.gradcheck(f, (x,)) and ag.gradgradcheck(f, (x,))


@needs_torch
def test_stale_views_are_regenerated_like_torch():
    def run(ten):
        x = ten([1.0, 2.0, 3.0, 4.0])
        y = x * 1
        a = y[0:2]
        b = y[1:]
        y.mul_(2)  # in-place on the base: a and b now see new values
        b.add_(a[0:1] * 0 + 5)  # in-place through another view
        (a * 3).sum().backward(retain_graph=True)
        first = x.grad.tolist()
        ((b * b).sum() + (y * y).sum()).backward()
        return first, x.grad.tolist(), type(a.grad_fn).__name__

    ours = run(lambda v: xp.tensor(v, dtype=xp.float64, requires_grad=True))
    theirs = run(lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True))
    assert ours == theirs


# --- hooks ----------------------------------------------------------------------------------------

def test_hooks_and_retain_grad():
    x = leaf([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()))
    y = x * 3
    y.register_hook(lambda g: g * 10)
    y.retain_grad()
    assert y.retains_grad
    y.sum().backward()
    assert y.grad.tolist() == [10.0, 10.0]
    assert seen == [[30.0, 30.0]] and x.grad.tolist() == [30.0, 30.0]
    h.remove()
    (x * 1).sum().backward()
    assert seen == [[30.0, 30.0]]
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        xp.ones(2).register_hook(lambda g: g)
    with pytest.warns(UserWarning, match="not a leaf"):
        assert (x * 2).grad is None
    r = x * 1
    r.retain_grad()
    r.mul_(3)  # retain_grad follows the array to its new history
    (r * 2).sum().backward()
    assert r.grad.tolist() == [2.0, 2.0]
    z = x * 2
    calls = []
    z.grad_fn.register_hook(lambda gi, go: calls.append(len(gi)))
    z.sum().backward()
    assert calls == [1]


# --- custom functions ------------------------------------------------------------------------------

class Exp(ag.Function):
    @staticmethod
    def forward(ctx, x):
        r = xp.exp(x)
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx, g):
        (r,) = ctx.saved_tensors
        return g * r


class Scale(ag.Function):
    @staticmethod
    def forward(ctx, x, k, w):
        ctx.k = k
        ctx.save_for_backward(x, w)
        return x * k * w, xp.argmax(x)

    @staticmethod
    def backward(ctx, g, _):
        x, w = ctx.saved_tensors
        assert ctx.needs_input_grad == (True, False, False)
        return g * ctx.k * w, None, None


def test_custom_function():
    x = leaf([0.0, 1.0])
    y = Exp.apply(x)
    assert type(y.grad_fn).__name__ == "ExpBackward" and y.grad_fn.next_functions[0][0].variable is x
    y.sum().backward()
    close(x.grad, np.exp([0.0, 1.0]))
    assert ag.gradcheck(lambda t: Exp.apply(t) * t, (leaf([0.3, -0.2]),))
    assert ag.gradgradcheck(lambda t: Exp.apply(t) * t, (leaf([0.3, -0.2]),))
    w = xp.tensor([2.0, 3.0], dtype=xp.float64)
    out, idx = Scale.apply(x, 5.0, w)
    assert out.requires_grad and not idx.requires_grad
    out.sum().backward()
    close(x.grad, np.exp([0.0, 1.0]) + np.array([10.0, 15.0]))
    y = Exp.apply(x)
    y.add_(1)  # y was saved (as an output)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    with ag.no_grad():
        assert not Exp.apply(x).requires_grad

    class Bad(ag.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Bad.apply(x).sum().backward()


class MulInPlace(ag.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        x.mul_(k)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


class WithMask(ag.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        mask = x > 0
        m = xp.astype(mask, x.dtype)
        ctx.mark_non_differentiable(m)
        return x * 2, m

    @staticmethod
    def backward(ctx, g, gm):
        assert gm is None
        return g * 2


def test_custom_function_dirty_and_non_differentiable():
    x = leaf([1.0, -2.0])
    y = x * 1
    z = MulInPlace.apply(y, 3.0)
    assert z is y and type(y.grad_fn).__name__ == "MulInPlaceBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="leaf Variable"):
        MulInPlace.apply(x, 2.0)
    out, m = WithMask.apply(x)
    assert out.requires_grad and not m.requires_grad and m.tolist() == [1.0, 0.0]
    out.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_missing_rule_raises_naming_the_op():
    @api("my_new_op")
    def my_new_op(x):
        return x + 0.0

    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="derivative for 'my_new_op' is not implemented"):
        my_new_op(x)
    with ag.no_grad():
        assert my_new_op(x).tolist() == [1.0]
    assert my_new_op(x.detach()).tolist() == [1.0]


# --- conventions against PyTorch ----------------------------------------------------------------------

def _torch_at_least(version: str) -> bool:
    import re as _re

    if torch is None:
        return False
    have = tuple(int(v) for v in _re.findall(r"\d+", torch.__version__)[:2])
    return have >= tuple(int(v) for v in version.split("."))


# Note: PyTorch 2.14 changed clamp's gradient at the bounds (0 there for number bounds, 0.5
# for tensor bounds); PyTorch 2.13 and earlier, and strided, pass the gradient through
# (1). Found when CI started installing PyTorch (2.14.1); the case xfails there so that
# the change is seen, not hidden.
_CLIP_EDGES = pytest.param("clip_edges", marks=pytest.mark.xfail(
    _torch_at_least("2.14"), strict=True,
    reason="PyTorch 2.14 gives clamp a zero gradient at the bounds; strided keeps 2.13's"))


@needs_torch
@pytest.mark.parametrize("case", [
    "maximum_tie", "max_tie", "abs_zero", "sign", "floor", _CLIP_EDGES, "norm_zero", "where",
    "complex_mul", "complex_abs", "complex_sgn", "complex_real_imag", "prod_zeros", "cumprod_zeros",
    "median_like_sort", "take_dupes", "amin_ties_axis",
])
def test_gradients_match_torch(case):
    T = torch.tensor
    cases = {
        "maximum_tie": (lambda m, a, b: m.maximum(a, b), [[1.0, 2.0, 3.0], [1.0, 5.0, 0.0]]),
        "max_tie": (lambda m, a: (m.max(a) if m is xp else a.max()), [[1.0, 3.0, 3.0, 2.0]]),
        "amin_ties_axis": (lambda m, a: (m.min(a, axis=1) if m is xp else a.amin(dim=1)),
                           [[[1.0, 1.0, 2.0], [0.0, 4.0, 0.0]]]),
        "abs_zero": (lambda m, a: m.abs(a), [[-1.0, 0.0, 2.0]]),
        "sign": (lambda m, a: m.sign(a), [[-1.0, 0.5, 2.0]]),
        "floor": (lambda m, a: m.floor(a), [[-1.5, 0.5, 2.0]]),
        "clip_edges": (lambda m, a: (m.clip(a, -1.0, 1.0) if m is xp else a.clamp(-1.0, 1.0)),
                       [[-1.0, 0.0, 1.0, 2.0]]),
        "norm_zero": (lambda m, a: (m.linalg.vector_norm(a) if m is xp else m.linalg.vector_norm(a)),
                      [[0.0, 0.0]]),
        "where": (lambda m, a, b: m.where(a > b, a * 2, b * 3), [[1.0, 5.0], [2.0, 3.0]]),
        "complex_mul": (lambda m, a, b: a * b * a, [[1 + 2j, -0.5j], [3 - 1j, 2 + 0j]]),
        "complex_abs": (lambda m, a: m.abs(a), [[3 + 4j, -1j]]),
        "complex_sgn": (lambda m, a: (m.sign(a) if m is xp else a.sgn()), [[3 + 4j, -1j]]),
        "complex_real_imag": (lambda m, a: (m.real(a) * 2 + m.imag(a) * 3), [[3 + 4j, -1j]]),
        "prod_zeros": (lambda m, a: (m.prod(a, axis=1) if m is xp else a.prod(dim=1)),
                       [[[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [2.0, 3.0, 4.0]]]),
        "cumprod_zeros": (lambda m, a: (m.cumulative_prod(a, axis=1) if m is xp else a.cumprod(dim=1)),
                          [[[1.0, 0.0, 2.0, 3.0], [2.0, 3.0, 0.0, 0.0]]]),
        "median_like_sort": (lambda m, a: (m.sort(a) if m is xp else a.sort()[0])[1:3] * 1.0,
                             [[3.0, 1.0, 2.0, 0.5]]),
        "take_dupes": (lambda m, a: (m.take(a, m.tensor([0, 2, 0])) if m is xp
                                     else a[torch.tensor([0, 2, 0])]), [[1.0, 2.0, 3.0]]),
    }
    fn, data = cases[case]
    cx = any(isinstance(v, complex) for d in data for v in np.ravel(d))
    dt = (xp.complex128, torch.complex128) if cx else (xp.float64, torch.float64)
    ours = [xp.tensor(d, dtype=dt[0], requires_grad=True) for d in data]
    theirs = [T(d, dtype=dt[1], requires_grad=True) for d in data]
    yo, yt = fn(xp, *ours), fn(torch, *theirs)
    rng = np.random.default_rng(0)
    shape = tuple(yt.shape)
    u = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if yt.is_complex() else 0)
    yo.backward(xp.asarray(u.astype(dt[0]._np)))
    yt.backward(T(u, dtype=yt.dtype))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad._host(), b.grad.numpy(), rtol=1e-12, atol=1e-12)


# --- memory -------------------------------------------------------------------------------------------

def _train_step(params, X, Y):
    """One SGD step of least-squares linear regression (a small model, few ops)."""
    w, b = params
    loss = xp.mean((xp.matmul(X, w) + b - Y) ** 2)
    loss.backward()
    with ag.no_grad():
        for q in params:
            q -= 0.1 * q.grad
            q.grad = None
    return loss


def test_graphs_are_freed():
    x = leaf(np.ones(3))
    y = xp.exp(x * 2).sum()
    node = weakref.ref(y.grad_fn)
    inner = weakref.ref(y.grad_fn.next_functions[0][0])
    y.backward()
    del y
    assert node() is None and inner() is None  # freed by reference counting, no cycles
    gc.collect()


def _live():
    """Live autograd and array objects, by type."""
    counts = {}
    for o in gc.get_objects():
        t = type(o)
        if t is xp.Array or t is xp.Storage or issubclass(t, ag.Node):
            k = t.__name__
            counts[k] = counts.get(k, 0) + 1
    return counts


def test_ten_thousand_steps_do_not_grow_memory():
    rng = np.random.default_rng(0)
    X = xp.asarray(rng.standard_normal((8, 3)))
    Y = xp.matmul(X, xp.asarray([1.0, -2.0, 0.5])) + 0.25
    params = [xp.zeros(3, dtype=xp.float64, requires_grad=True),
              xp.zeros((), dtype=xp.float64, requires_grad=True)]
    _train_step(params, X, Y)
    gc.collect()
    before = _live()
    graphs = []
    for i in range(10_000):
        loss = _train_step(params, X, Y)
        if i % 1000 == 0:
            graphs.append(weakref.ref(loss.grad_fn))
    last = weakref.ref(loss.grad_fn)
    del loss
    # every step's graph was freed by reference counting (no collection needed) ...
    assert all(g() is None for g in graphs) and last() is None
    gc.collect()
    # ... and nothing else accumulated
    assert _live() == before
    tracemalloc.start()
    try:
        for _ in range(200):
            _train_step(params, X, Y)
        gc.collect()
        start = tracemalloc.get_traced_memory()[0]
        for _ in range(300):
            _train_step(params, X, Y)
        gc.collect()
        end = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert end - start < 2048, (start, end)
    assert _train_step(params, X, Y).item() < 1e-3  # it did train
