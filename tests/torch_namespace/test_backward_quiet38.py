"""Every door into the backward engine runs quiet, as every door into an operation does.

Found by a sweep of PyTorch's OpInfo samples run twice, under ``np.errstate(all="ignore")`` and
``all="raise"``: ``autograd.grad`` through ``multi_head_attention_forward`` raised
``FloatingPointError: underflow encountered in matmul``. The derivative rules run NumPy
themselves (``_fused``'s linear rule calls ``matmul``), and only ``Array.backward`` (a method:
quiet) set the error state; ``autograd.grad``/``backward`` (strided's and strided.torch's) and
``autograd.functional`` ran the rules under the user's. Each door here under the user's
``np.errstate(all="raise")`` and ``simplefilter("error")`` against PyTorch's gradients (PyTorch
never raises for floating point), with products that underflow, overflow and make ``inf * 0``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as S  # noqa: E402

from _parity import to_numpy  # noqa: E402

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

# (x scale, weight scale, cotangent scale): products of 1e-160 * 1e-160 underflow, of 1e200 *
# 1e200 overflow; an infinite weight times a zero cotangent is NaN (the invalid flag)
_SCALES = {"underflow": (1e-160, 1e-160, 1e-160), "overflow": (1e200, 1e200, 1e200),
           "invalid": (1.0, np.inf, 0.0)}


def _data(kind):
    rng = np.random.default_rng(0)
    sx, sw, sc = _SCALES[kind]
    x = rng.standard_normal((3, 4)) * sx
    w = rng.standard_normal((5, 4)) * sw
    c = rng.standard_normal((3, 5)) * sc
    if kind == "overflow":  # (one sign: every sum is +inf; sums of +inf and -inf products are
        # BLAS's to order: OpenBLAS's small-matrix gemm gives inf where a loop gives NaN)
        x, w, c = np.abs(x), np.abs(w), np.abs(c)
    if kind == "invalid":
        w = np.where(np.arange(4) == 1, np.inf, rng.standard_normal((5, 4)))
        c[:, 0] = 0.0
    return x, w, c


def _torch_grads(kind):
    x, w, c = (torch.from_numpy(a.copy()) for a in _data(kind))
    x.requires_grad_(True)
    w.requires_grad_(True)
    (torch.nn.functional.linear(x, w) * c).sum().backward()
    return x.grad.numpy(), w.grad.numpy()


def _door(door, x, w, c):
    """d(sum(linear(x, w) * c)) / d(x, w) through one door of the engine."""
    F = S.nn.functional
    if door == "jacobian":  # (autograd.functional: the engine through vjp's)
        jx, jw = S.autograd.functional.jacobian(lambda a, b: (F.linear(a, b) * c).sum(), (x, w))
        return jx, jw
    loss = (F.linear(x, w) * c).sum()
    if door == "strided.autograd.grad":
        return strided.autograd.grad(loss, [x, w])
    if door == "torch.autograd.grad":
        return S.autograd.grad(loss, [x, w])
    if door == "strided.autograd.backward":
        strided.autograd.backward(loss)
    elif door == "torch.autograd.backward":
        S.autograd.backward([loss], inputs=[x, w])
    else:
        loss.backward()
    return x.grad, w.grad


@pytest.mark.parametrize("kind", sorted(_SCALES))
@pytest.mark.parametrize("door", ["Array.backward", "strided.autograd.grad", "torch.autograd.grad",
                                  "strided.autograd.backward", "torch.autograd.backward", "jacobian"])
def test_backward_is_quiet_through_every_door(door, kind):
    x, w, c = _data(kind)
    sx, sw = S.from_numpy(x.copy()).requires_grad_(True), S.from_numpy(w.copy()).requires_grad_(True)
    sc = S.from_numpy(c.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            gx, gw = _door(door, sx, sw, sc)
    want_x, want_w = _torch_grads(kind)
    np.testing.assert_allclose(to_numpy(gx), want_x, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(to_numpy(gw), want_w, rtol=1e-12, atol=1e-300)


def test_the_users_error_state_is_back_after_a_backward():
    x, w, c = _data("underflow")
    sx = S.from_numpy(x).requires_grad_(True)
    with np.errstate(all="raise"):
        (S.nn.functional.linear(sx, S.from_numpy(w)) * S.from_numpy(c)).sum().backward()
        assert np.geterr()["under"] == "raise"
        with pytest.raises(FloatingPointError):
            np.multiply(np.float64(1e-160), np.float64(1e-160))


# --- the forward doors of strided.torch.nn.functional ----------------------------------------
# The same sweep (each sample's floats given inf, NaN, -inf, a huge and a subnormal value) found
# ``F.cross_entropy`` raising "underflow encountered in exp" under ``all="raise"``: its fused
# loss (``_fused.log_softmax_nll``) calls NumPy itself. Every function of the module now runs
# quiet, as the namespace's do.

def _logits():
    z = np.array([[0.0, -1000.0, 3.0], [np.inf, 1.0, 2.0], [5.0, 5.0, -np.inf], [1e308, -1e308, 0.0]])
    return z, np.array([0, 2, 1, 2])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("fn", ["cross_entropy", "log_softmax_nll"])
def test_cross_entropy_is_quiet_and_pytorchs(fn, grad, reduction):
    z, t = _logits()
    tz = torch.from_numpy(z.copy()).requires_grad_(grad)

    def loss(L, F, x, target):
        if fn == "cross_entropy":
            return F.cross_entropy(x, target, reduction=reduction)
        return F.nll_loss(F.log_softmax(x, 1), target, reduction=reduction)
    want = loss(torch, torch.nn.functional, tz, torch.from_numpy(t))
    sz = S.from_numpy(z.copy()).requires_grad_(grad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            got = loss(S, S.nn.functional, sz, S.from_numpy(t))
            if grad:
                got.sum().backward()
    np.testing.assert_allclose(to_numpy(got), want.detach().numpy(), rtol=1e-12)
    if grad:
        want.sum().backward()
        np.testing.assert_allclose(to_numpy(sz.grad), tz.grad.numpy(), rtol=1e-12)


# Found beside it: ``log_softmax`` of a row whose maximum is +inf gave [nan, -inf, ...] (the
# composite shifted such a row by 0: SciPy's answer); PyTorch's is NaN throughout, as its
# ``softmax`` (and strided's) is.
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("grad", [False, True])
def test_log_softmax_of_rows_with_infinities_is_pytorchs(dtype, dim, grad):
    inf = np.inf
    z = np.array([[inf, 1.0, 2.0], [-inf, -inf, -inf], [inf, inf, 0.0], [np.nan, 1.0, 2.0],
                  [-inf, 1.0, 2.0], [3.0, -1.0, 0.5]], dtype)
    z = z if dim == 1 else np.ascontiguousarray(z.T)
    for fn in ("log_softmax", "softmax"):
        want = getattr(torch.nn.functional, fn)(torch.from_numpy(z.copy()), dim).numpy()
        sz = S.from_numpy(z.copy()).requires_grad_(grad)
        got = getattr(S.nn.functional, fn)(sz, dim)
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-6)
        np.testing.assert_allclose(to_numpy(getattr(strided, fn)(S.from_numpy(z.copy()), dim=dim)), want, rtol=1e-6)
