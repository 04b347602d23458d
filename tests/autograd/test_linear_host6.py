"""``nn.functional.linear``'s recorded host case in C (``_cgrad.linear_host``) against
the Python definition it replaces (``autograd._fused.linear``): the same output bits (both
of host_product's branches: ``matmul`` from NO_FILL_BYTES of result, ``dot`` below), the
same node (class, edges, metadata, saved values), the same gradients bit for bit (and
PyTorch's within a rounding), retain_graph, hooks, a parameter used twice, the version
check; and NotImplemented, nothing computed, for every case it leaves to Python (no
recording, no operand requiring grad, names, a 3-D input, mixed dtypes, vectors, a
registered handler, a non-contiguous or other-device operand). Host only (``device="cpu"``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
import strided.torch as storch
from strided import autograd as ag
from strided.autograd import _fused

linear_host = _fused.linear_host
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(linear_host is None, reason="the C extension _cgrad is not built (STRIDED_NO_CEXT=1)")]
F = storch.nn.functional


def _leaf(a):
    return xp.asarray(a.copy(), device="cpu").requires_grad_()


def _np(a):
    return np.array(a.detach().numpy())


def _graph(out):
    n = out.grad_fn
    return (type(n).__name__, [(type(f).__name__ if f is not None else None, nr) for f, nr in n.next_functions],
            n._metas, sorted(n._needs), sorted(n.saved_values), n._out_metas, out._ext.output_nr)


def _layout(a, how):
    """a with the same values in another layout: C order, F order, or every other column."""
    if how == "f":
        return np.asfortranarray(a)
    if how == "step":
        wide = np.zeros((a.shape[0], 2 * a.shape[1]), a.dtype)
        wide[:, ::2] = a
        return wide[:, ::2]
    return a


def _case(rng, m, k, n, dtype, bias, rg, lay=("c", "c")):
    a, w, b = (rng.standard_normal(s).astype(dtype) for s in ((m, k), (n, k), (n,)))
    a, w = _layout(a, lay[0]), _layout(w, lay[1])
    x = _leaf(a) if rg[0] else xp.asarray(a, device="cpu")
    W = _leaf(w) if rg[1] else xp.asarray(w, device="cpu")
    B = (_leaf(b) if rg[2] else xp.asarray(b, device="cpu")) if bias else None
    return x, W, B


@settings(max_examples=40, deadline=None)
@given(m=st.sampled_from([1, 2, 5, 64, 130]), k=st.sampled_from([1, 3, 40]), n=st.sampled_from([1, 4, 70]),
       dtype=st.sampled_from([np.float32, np.float64]), bias=st.booleans(),
       rg=st.tuples(st.booleans(), st.booleans(), st.booleans()).filter(any), seed=st.integers(0, 2**16),
       lay=st.tuples(st.sampled_from(["c", "f", "step"]), st.sampled_from(["c", "f", "step"])))
def test_compiled_equals_the_definition(m, k, n, dtype, bias, rg, seed, lay):
    if not bias and not (rg[0] or rg[1]):
        rg = (True, rg[1], rg[2])
    results = []
    for compiled in (True, False):
        x, W, B = _case(np.random.default_rng(seed), m, k, n, dtype, bias, rg, lay)
        if compiled:
            out = linear_host(x, W, B)
            if out is NotImplemented:  # (a view without a cached native: Python's case)
                assert "step" in lay or "f" in lay
                return
        else:
            out = _fused.linear(x, W, B)
        graph = _graph(out)
        g = xp.asarray(np.random.default_rng(seed + 1).standard_normal((m, n)).astype(dtype), device="cpu")
        leaves = [v for v, r in zip((x, W, B), rg) if v is not None and r]
        grads = ag.grad(out, leaves, grad_outputs=g, retain_graph=True)
        again = ag.grad(out, leaves, grad_outputs=g)  # (retain_graph kept the saved values)
        results.append((_np(out), graph, [_np(v) for v in grads], [_np(v) for v in again], out))
    (o1, g1, d1, a1, out1), (o2, g2, d2, a2, out2) = results
    np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8))
    assert g1 == g2
    assert out1.dtype == out2.dtype and out1.shape == out2.shape and out1.device == out2.device
    assert out1.requires_grad and out1.is_leaf is False
    for u, v in zip(d1 + a1, d2 + a2):
        np.testing.assert_array_equal(u.view(np.uint8), v.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_module_against_pytorch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    a, w, b = (rng.standard_normal(s).astype(dtype) for s in ((128, 96), (80, 96), (80,)))
    lin = storch.nn.Linear(96, 80, dtype=getattr(xp, np.dtype(dtype).name), device="cpu")
    lin.load_state_dict({"weight": xp.asarray(w, device="cpu"), "bias": xp.asarray(b, device="cpu")})
    tl = torch.nn.Linear(96, 80, dtype=getattr(torch, np.dtype(dtype).name))
    tl.load_state_dict({"weight": torch.from_numpy(w.copy()), "bias": torch.from_numpy(b.copy())})
    x = xp.asarray(a, device="cpu")
    out = lin(x)
    assert out.grad_fn.name() == "AddmmBackward0"
    tout = tl(torch.from_numpy(a.copy()))
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(out), tout.detach().numpy(), **tol)
    (out * out).sum().backward()
    (tout * tout).sum().backward()
    for got, want in ((lin.weight.grad, tl.weight.grad), (lin.bias.grad, tl.bias.grad)):
        want = want.numpy()  # (sums of 128 products: an error relative to the largest)
        np.testing.assert_allclose(_np(got), want, rtol=0, atol=tol["rtol"] * 4 * np.abs(want).max())


def test_finite_differences():
    rng = np.random.default_rng(7)
    x, W, B = (_leaf(rng.standard_normal(s)) for s in ((3, 4), (2, 4), (2,)))
    assert linear_host(x, W, B) is not NotImplemented
    assert ag.gradcheck(lambda a, w, b: F.linear(a, w, b), (x, W, B))


def test_a_parameter_used_twice_and_hooks():
    rng = np.random.default_rng(8)
    for compiled in (True, False):
        W = _leaf(rng.standard_normal((6, 6)).astype(np.float32))
        seen = []
        W.register_hook(lambda g: seen.append(_np(g)))
        out = linear_host(W, W, None) if compiled else _fused.linear(W, W, None)
        out.sum().backward()
        ref = np.ones((6, 6), np.float32) @ _np(W) + (np.ones((6, 6), np.float32).T @ _np(W))
        np.testing.assert_allclose(_np(W.grad), ref, rtol=1e-5)
        assert len(seen) == 1  # the hook sees the leaf's summed gradient once


def test_version_check_and_no_grad():
    x = _leaf(np.ones((2, 3), np.float32)) * 1.0
    W = _leaf(np.ones((4, 3), np.float32))
    out = linear_host(x, W, None)
    assert out.grad_fn.name() == "MmBackward0"
    x.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    with xp.no_grad():
        assert linear_host(x, W, None) is NotImplemented
        assert F.linear(x, W).grad_fn is None


def test_declines():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    w = rng.standard_normal((5, 4)).astype(np.float32)
    x, W = _leaf(a), _leaf(w)
    plain = xp.asarray(w, device="cpu")
    declined = [
        (xp.asarray(a, device="cpu"), plain, None),  # nothing requires grad
        (x.refine_names("n", "f"), W, None),  # names
        (_leaf(a[None]), W, None),  # 3-D input
        (_leaf(a.astype(np.float64)), W, None),  # mixed dtypes
        (_leaf(a[0]), W, None),  # a vector
        (x, W, _leaf(np.ones(4, np.float32))),  # a bias of the wrong length
        (x, _leaf(w)[:, :4:1].mT.mT, xp.ones(5, dtype=xp.float64, device="cpu")),  # bias of another dtype
        (x, W, "bias"),  # not an array
        (a, W, None),  # a NumPy array
    ]
    for args in declined:
        assert linear_host(*args) is NotImplemented
    with pytest.raises(TypeError):
        linear_host(x, W)
    # what it declines, nn.functional.linear still computes (or refuses) as before
    with pytest.raises(ValueError, match="cannot be multiplied"):
        F.linear(_leaf(np.ones((3, 2), np.float32)), W)


def test_a_third_handler_takes_python():
    """With a handler beyond strided's two (names, autograd), the call goes through
    dispatch so that the extension sees it: the compiled case steps aside (the list's
    length is what both read; the entry is removed again at once)."""
    from strided._core import dispatch
    x, W = _leaf(np.ones((2, 3), np.float32)), _leaf(np.ones((4, 3), np.float32))
    assert linear_host(x, W, None) is not NotImplemented
    extra = (99, lambda *a: None)
    n = len(dispatch._HANDLERS)
    dispatch._HANDLERS.extend([extra] * (3 - min(n, 3)) if n < 3 else [extra])
    try:
        assert linear_host(x, W, None) is NotImplemented
    finally:
        while dispatch._HANDLERS and dispatch._HANDLERS[-1] is extra:
            dispatch._HANDLERS.pop()
    assert len(dispatch._HANDLERS) == n
    assert linear_host(x, W, None) is not NotImplemented


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 70), n=st.integers(1, 40), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2**16))
def test_bias_gradient_is_sum_to_bit_for_bit(m, n, dtype, seed):
    """The backward's bias gradient (np.add.reduce over the batch axis, inlined) against
    the engine's sum_to, which it stands for."""
    from strided.autograd._function import sum_to
    rng = np.random.default_rng(seed)
    x, W, B = _case(rng, m, 3, n, dtype, True, (False, False, True))
    g = rng.standard_normal((m, n)).astype(dtype)
    out = F.linear(x, W, B)
    gb, = ag.grad(out, [B], grad_outputs=xp.asarray(g, device="cpu"))
    ref = sum_to(xp.asarray(g, device="cpu"), (n,))
    assert gb.shape == ref.shape == (n,) and gb.dtype == ref.dtype
    np.testing.assert_array_equal(_np(gb).view(np.uint8), _np(ref).view(np.uint8))
    np.testing.assert_array_equal(_np(gb), np.add.reduce(g, axis=0))
