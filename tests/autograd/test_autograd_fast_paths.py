"""The plain-backward fast paths of autograd (issue 15, item 3) against PyTorch,
finite differences and NumPy.

A plain backward (``create_graph=False``) takes shortcuts that a recorded
backward does not: reductions' gradients broadcast as raw stride-0 views,
``sum_to`` with cached axes, 2-D matmul gradients as backend products on
transposed views, a masked-out select as one bit mask, elementwise recording
through cached per-argument-pattern plans, and leaves' accumulators found
through a weak reference. Each is compared here with a reference that does
not take it.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided import autograd as ag
from strided.autograd._function import _bit_select

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def _pair(a, requires_grad=True):
    """The same values as a strided leaf and a torch leaf."""
    s = xp.asarray(a.copy())
    t = torch.tensor(a.copy())
    if requires_grad:
        s.requires_grad_()
        t.requires_grad_()
    return s, t


def _np(x):
    """A strided array's values on the host (under a cuda default too)."""
    return np.asarray(x.detach().cpu().numpy() if hasattr(x, "detach") else x)


def _close(s, t, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(_np(s), t.detach().numpy(), rtol=rtol, atol=atol)


def _mlp_loss(mod, x, onehot, W1, b1, W2, b2, amax):
    z = mod.maximum(x @ W1 + b1, mod.zeros_like(x @ W1 + b1) if mod is torch else 0.0) @ W2 + b2
    m = amax(z)
    # z and m are each used twice: their gradients are the sums of two contributions
    return mod.sum(onehot * (mod.log(mod.sum(mod.exp(z - m), axis=1, keepdims=True)) + m - z)) / x.shape[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mlp_step_gradients_match_torch(dtype):
    """The benchmark's MLP step (broadcast biases, ReLU as maximum, a kept-dims max, inputs
    used twice): every parameter's gradient equals PyTorch's, over several steps."""
    B, d_in, d_h, d_out = 16, 12, 9, 4
    x = RNG.standard_normal((B, d_in)).astype(dtype)
    onehot = np.eye(d_out, dtype=dtype)[RNG.integers(0, d_out, B)]
    init = [RNG.standard_normal(s).astype(dtype) for s in ((d_in, d_h), (d_h,), (d_h, d_out), (d_out,))]
    ps = [_pair(a) for a in init]
    sp, tp = [p[0] for p in ps], [p[1] for p in ps]
    sx, tx = xp.asarray(x), torch.tensor(x)
    so, to = xp.asarray(onehot), torch.tensor(onehot)
    tol = dict(rtol=2e-4, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    for _ in range(3):
        ls = _mlp_loss(xp, sx, so, *sp, lambda z: xp.max(z, axis=1, keepdims=True))
        lt = _mlp_loss(torch, tx, to, *tp, lambda z: torch.amax(z, dim=1, keepdim=True))
        ls.backward()
        lt.backward()
        _close(ls, lt, **tol)
        for s, t in zip(sp, tp):
            _close(s.grad, t.grad, **tol)
        with xp.no_grad():
            for p in sp:
                p -= 0.1 * p.grad
                p.grad = None
        with torch.no_grad():
            for p in tp:
                p -= 0.1 * p.grad
                p.grad = None


def _dims(a, ax):
    return tuple(range(a.ndim)) if ax is None else ax


REDUCTIONS = [
    ("sum", lambda m, a, ax, kd: m.sum(a, axis=ax, keepdims=kd) if m is xp else a.sum(dim=_dims(a, ax), keepdim=kd)),
    ("mean", lambda m, a, ax, kd: m.mean(a, axis=ax, keepdims=kd) if m is xp else a.mean(dim=_dims(a, ax), keepdim=kd)),
    ("max", lambda m, a, ax, kd: m.max(a, axis=ax, keepdims=kd) if m is xp else torch.amax(a, dim=_dims(a, ax), keepdim=kd)),
]


@pytest.mark.parametrize("name,f", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_gradients_match_torch(name, f, axis, keepdims):
    """The stride-0 expansion of a reduction's gradient, for every axis pattern, kept
    dimensions or not, followed by an operation that reads it (a weighted sum)."""
    a = RNG.standard_normal((3, 4, 5))
    s, t = _pair(a)
    rs, rt = f(xp, s, axis, keepdims), f(torch, t, axis, keepdims)
    w = RNG.standard_normal(tuple(rt.shape))
    (xp.sum(rs * xp.asarray(w))).backward()
    (rt * torch.tensor(w)).sum().backward()
    _close(s.grad, t.grad, rtol=1e-12, atol=1e-12)


def test_max_ties_share_the_gradient_with_kept_dims():
    a = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [0.0, -1.0, 5.0]])
    s, t = _pair(a)
    xp.sum(xp.max(s, axis=1, keepdims=True) * xp.asarray([[1.0], [2.0], [3.0]])).backward()
    (torch.amax(t, dim=1, keepdim=True) * torch.tensor([[1.0], [2.0], [3.0]])).sum().backward()
    _close(s.grad, t.grad, rtol=0, atol=1e-15)


@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((3, 4), (3, 1)), ((3, 1), (1, 4)),
                                    ((2, 3, 4), (3, 1)), ((2, 3, 4), (1, 1, 4)), ((3, 4), ()),
                                    ((5,), (2, 3, 5))])
def test_broadcast_gradients_summed_back_match_torch(shapes):
    """sum_to (cached axes, keepdims shortcut when the input's 1s are the summed axes) for
    each operand of add, subtract, multiply and divide."""
    sa, sb = shapes
    a, b = RNG.standard_normal(sa) + 3.0, RNG.standard_normal(sb) + 3.0
    for op in (lambda u, v: u + v, lambda u, v: u - v, lambda u, v: u * v, lambda u, v: u / v):
        s1, t1 = _pair(np.asarray(a))
        s2, t2 = _pair(np.asarray(b))
        rs, rt = op(s1, s2), op(t1, t2)
        w = RNG.standard_normal(tuple(rt.shape))
        xp.sum(rs * xp.asarray(w)).backward()
        (rt * torch.tensor(w)).sum().backward()
        _close(s1.grad, t1.grad, rtol=1e-12, atol=1e-12)
        _close(s2.grad, t2.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("which", ["both", "x1", "x2"])
def test_matmul_gradients_match_torch(dtype, layout, which):
    """2-D matmul: the backend-product fast path (real dtypes) and the recorded formula
    (complex), on contiguous, transposed and sliced operands, with one or both needed."""
    def mk(shape):
        a = RNG.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            a = a + 1j * RNG.standard_normal(shape)
        return a.astype(dtype)

    a, b = mk((5, 6)), mk((6, 3))
    s1, t1 = _pair(a, which in ("both", "x1"))
    s2, t2 = _pair(b, which in ("both", "x2"))
    if layout == "transposed":  # the same values, through a transposed view of a leaf
        s1, t1 = _pair(a.T.copy(), which in ("both", "x1"))
        u1, v1, u2, v2 = s1.mT, t1.mT, s2, t2
    elif layout == "strided":
        s1, t1 = _pair(np.repeat(a, 2, axis=1), which in ("both", "x1"))
        u1, v1 = s1[:, ::2], t1[:, ::2]
        u2, v2 = s2, t2
    else:
        u1, v1, u2, v2 = s1, t1, s2, t2
    w = mk((5, 3))
    rs, rt = u1 @ u2, v1 @ v2
    loss_s = xp.sum(xp.real(rs * xp.asarray(w))) if np.dtype(dtype).kind == "c" else xp.sum(rs * xp.asarray(w))
    loss_t = (rt * torch.tensor(w)).real.sum() if np.dtype(dtype).kind == "c" else (rt * torch.tensor(w)).sum()
    loss_s.backward()
    loss_t.backward()
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for s, t in ((s1, t1), (s2, t2)):
        if t.grad is None:
            assert s.grad is None
        else:
            _close(s.grad, t.grad, **tol)


def test_double_backward_keeps_the_recorded_formulas():
    """With create_graph=True none of the fast paths may run: second derivatives of a
    graph that uses each of them equal finite differences."""
    def f(a, b, c):
        z = xp.maximum(a @ b + c, 0.0)
        m = xp.max(z, axis=1, keepdims=True)
        return xp.sum(xp.exp(z - m) * xp.sum(z, axis=0)) + xp.mean(z * z)

    a = xp.asarray(RNG.standard_normal((4, 3)) + 0.5, dtype=xp.float64).requires_grad_()
    b = xp.asarray(RNG.standard_normal((3, 5)), dtype=xp.float64).requires_grad_()
    c = xp.asarray(RNG.standard_normal(5) + 2.0, dtype=xp.float64).requires_grad_()
    assert ag.gradcheck(f, (a, b, c))
    assert ag.gradgradcheck(f, (a, b, c))


_F = {np.float16: np.int16, np.float32: np.int32, np.float64: np.int64}


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float16, np.float32, np.float64]),
       n=st.integers(1, 5000), seed=st.integers(0, 2**31 - 1))
def test_bit_select_of_zero_equals_numpy_where(dtype, n, seed):
    """where(c, 0, b) as one mask: bit-exact with numpy.where, NaN, inf and -0.0 included."""
    rng = np.random.default_rng(seed)
    b = rng.standard_normal(n).astype(dtype)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=dtype)
    k = min(n, 5)
    b[rng.choice(n, k, replace=False)] = special[:k]
    c = rng.random(n) < 0.5
    r = _bit_select(c, np.zeros((), dtype), b, _F[dtype])
    want = np.where(c, dtype(0), b)
    assert r.dtype == want.dtype and r.shape == want.shape
    np.testing.assert_array_equal(r.view(_F[dtype]), want.view(_F[dtype]))


def test_relu_gradient_masks_exactly_like_torch():
    """maximum(h, 0.0)'s gradient (the zero bit-select path, above the size threshold):
    zero where h < 0, half on a tie, the gradient elsewhere, infinities passed through."""
    h = RNG.standard_normal((64, 128)).astype(np.float32)
    h[0, :5] = 0.0
    g = RNG.standard_normal((64, 128)).astype(np.float32)
    g[1, :3] = [np.inf, -np.inf, -0.0]
    s, t = _pair(h)
    xp.maximum(s, 0.0).backward(xp.asarray(g))
    torch.maximum(t, torch.zeros(())).backward(torch.tensor(g))
    np.testing.assert_array_equal(_np(s.grad), t.grad.numpy())


def test_recording_plans_per_argument_pattern():
    """Elementwise recording caches its bookkeeping per pattern of (float array, needs
    grad): each pattern still gets its own slots and gradients."""
    a = xp.asarray([1.0, 2.0, 3.0]).requires_grad_()
    b = xp.asarray([4.0, 5.0, 6.0])
    n = xp.asarray([1, 2, 3])  # an integer operand takes no slot
    outs = [a * b, b * a, a * a, a * 2.0, 2.0 * a, a * n, n * a]
    xp.sum(xp.stack(outs)).backward()
    want = 2 * np.array([4.0, 5.0, 6.0]) + 2 * np.array([1.0, 2.0, 3.0]) + 4.0 + 2 * np.array([1, 2, 3])
    np.testing.assert_allclose(_np(a.grad), want)
    # the same patterns again (cached plans), with b requiring grad now
    a.grad = None
    b.requires_grad_()
    xp.sum(a * b + b * a).backward()
    np.testing.assert_allclose(_np(a.grad), 2 * np.array([4.0, 5.0, 6.0]))
    np.testing.assert_allclose(_np(b.grad), 2 * np.array([1.0, 2.0, 3.0]))


def test_leaf_accumulator_is_shared_while_alive_and_freed_with_its_graphs():
    a = xp.asarray([1.0, 2.0]).requires_grad_()
    y1, y2 = a * 2.0, xp.exp(a)
    acc = y1.grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is a
    assert y2.grad_fn.next_functions[0][0] is acc  # one node per leaf
    ref = weakref.ref(acc)
    del y1, y2, acc
    assert ref() is None  # the leaf holds its accumulator weakly: no cycle
    y3 = a * 3.0
    assert y3.grad_fn.next_functions[0][0].variable is a
    y3.sum().backward()
    np.testing.assert_allclose(_np(a.grad), [3.0, 3.0])
    gc.collect()


def _write_y(mod, y, how):
    """Modify ``y`` (a recorded result) in place in the way ``how`` names; returns an
    array to keep alive (a view or detached alias), if any."""
    no_grad = mod.no_grad
    if how == "add_":
        y.add_(1.0)
    elif how == "iadd":
        y += 1.0
    elif how == "fill_":
        y.fill_(0.5)
    elif how == "zero_":
        y.zero_()
    elif how == "copy_":
        y.copy_(mod.ones_like(y))
    elif how == "setitem":
        y[0] = 3.0
    elif how == "setitem_slice":
        y[0:1] = 3.0
    elif how == "no_grad_add_":
        with no_grad():
            y.add_(1.0)
    elif how == "no_grad_out":
        with no_grad():
            mod.multiply(y, 2.0, out=y)
    elif how == "view_write":
        v = y[0:2]
        v.mul_(2.0)
        return v
    elif how == "detach_write":
        d = y.detach()
        d.add_(1.0)
        return d
    elif how == "view_read":
        return y[0:2].sum()
    elif how == "none":
        return None
    else:  # pragma: no cover
        raise AssertionError(how)
    return None


@pytest.mark.parametrize("how", ["add_", "iadd", "fill_", "zero_", "copy_", "setitem", "setitem_slice",
                                 "no_grad_add_", "no_grad_out", "view_write", "detach_write",
                                 "view_read", "none"])
def test_saved_lazy_input_modified_in_place_raises_like_torch(how):
    """A fresh result saved as an input (sin saves its argument) is kept without its
    Storage; every later way of writing it must still be caught by the version check,
    exactly where PyTorch raises, and reading it (a view) must not be."""
    a = RNG.uniform(0.5, 2.0, 4)
    xs, xt = _pair(a)
    ys, yt = xs * 2.0, xt * 2.0
    zs, zt = xp.sin(ys), torch.sin(yt)
    assert ys._st is None  # saved without creating its Storage
    keep_s = _write_y(xp, ys, how)
    keep_t = _write_y(torch, yt, how)
    try:
        zt.sum().backward()
    except RuntimeError as e:
        assert "modified by an inplace operation" in str(e)
        with pytest.raises(RuntimeError, match="modified by an inplace operation.*needed by SinBackward0"):
            zs.sum().backward()
    else:
        zs.sum().backward()
        _close(xs.grad, xt.grad, rtol=1e-12, atol=1e-12)
    del keep_s, keep_t


def test_saved_lazy_input_then_second_order():
    """A lazy saved input gives the same first and second derivatives (create_graph)."""
    a = RNG.uniform(0.5, 2.0, 5)
    xs, xt = _pair(a)
    gs = xp.autograd.grad(xp.sum(xp.sin(xs * 3.0)), xs, create_graph=True)[0]
    gt = torch.autograd.grad(torch.sum(torch.sin(xt * 3.0)), xt, create_graph=True)[0]
    _close(gs, gt, rtol=1e-12, atol=1e-12)
    xp.sum(gs * gs).backward()
    torch.sum(gt * gt).backward()
    _close(xs.grad, xt.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("joint", [False, True])
def test_rule_with_keyword_only_formula_parameters(joint):
    """A formula with a keyword-only parameter is called with keywords (the positional
    fast call is for formulas whose parameters can all be given by position)."""
    from strided._core.dispatch import api
    from strided.autograd._record import RULES, rule

    name = f"_kwonly_scale_op_{int(joint)}"

    @api(name)
    def op(x, k=3.0):
        return x * k

    if joint:
        r = rule(name, "x, k=3.0", "KwScaleBackward0", diff=("x",), joint=lambda g, *, k: g * k)
    else:
        r = rule(name, "x, k=3.0", "KwScaleBackward0", x=lambda g, *, k: g * k)
    try:
        assert not r.positional
        a = xp.asarray([1.0, 2.0]).requires_grad_()
        op(a, k=5.0).sum().backward()
        np.testing.assert_allclose(_np(a.grad), [5.0, 5.0])  # d(5x)/dx, not the default's 3
    finally:
        del RULES[name]
