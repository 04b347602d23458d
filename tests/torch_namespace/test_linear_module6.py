"""``nn.Linear.forward`` reads its registered parameters without ``Module.__getattr__``'s
frames where attribute lookup would find exactly them; every other case (an instance
attribute after ``del``, a subclass's property, no bias, hooks) resolves ``self.weight``
as before, as PyTorch's Linear does. Host only (``device="cpu"``)."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
import strided.torch as storch

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

torch = pytest.importorskip("torch")


def _np(a):
    return np.array(a.detach().numpy())


def _pair(bias=True):
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    lin = storch.nn.Linear(4, 3, bias=bias, device="cpu")
    tl = torch.nn.Linear(4, 3, bias=bias)
    sd = {"weight": w} | ({"bias": b} if bias else {})
    lin.load_state_dict({k: xp.asarray(v, device="cpu") for k, v in sd.items()})
    tl.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in sd.items()})
    x = rng.standard_normal((5, 4)).astype(np.float32)
    return lin, tl, x


@pytest.mark.parametrize("bias", [True, False])
def test_values_and_gradients_as_pytorch(bias):
    lin, tl, x = _pair(bias)
    out, tout = lin(xp.asarray(x, device="cpu")), tl(torch.from_numpy(x))
    np.testing.assert_allclose(_np(out), tout.detach().numpy(), rtol=1e-6, atol=1e-6)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(_np(lin.weight.grad), tl.weight.grad.numpy(), rtol=1e-6, atol=1e-6)
    if bias:
        np.testing.assert_allclose(_np(lin.bias.grad), tl.bias.grad.numpy(), rtol=1e-6, atol=1e-6)
    else:
        assert lin.bias is None


def test_an_instance_attribute_after_del_is_used():
    """``del lin.weight; lin.weight = array`` (what parametrizations do): forward uses the
    plain attribute, as in PyTorch."""
    lin, tl, x = _pair()
    w2 = np.full((3, 4), 0.5, np.float32)
    del lin.weight
    lin.weight = xp.asarray(w2, device="cpu")
    del tl.weight
    tl.weight = torch.from_numpy(w2.copy())
    np.testing.assert_allclose(_np(lin(xp.asarray(x, device="cpu"))), tl(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-6)
    assert "weight" not in lin._parameters


def test_a_subclass_property_is_used():
    class Scaled(storch.nn.Linear):
        @property
        def weight(self):
            return self._parameters["weight"] * 2.0

    rng = np.random.default_rng(1)
    lin = storch.nn.Linear(4, 3, device="cpu")
    lin.__class__ = Scaled  # (after __init__, which registers the parameter)
    x = xp.asarray(rng.standard_normal((2, 4)).astype(np.float32), device="cpu")
    w, b = _np(lin._parameters["weight"]), _np(lin.bias)
    np.testing.assert_allclose(_np(lin(x)), _np(x) @ (2 * w).T + b, rtol=1e-5)


def test_hooks_still_run():
    lin, _, x = _pair()
    seen = []
    lin.register_forward_hook(lambda m, args, out: seen.append(out.shape))
    lin(xp.asarray(x, device="cpu"))
    assert seen == [(5, 3)]
