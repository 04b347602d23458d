"""In-place methods on a leaf that requires grad, against PyTorch 2.13: with recording on, the
leaf's error comes before the method's own checks of arguments and dtypes (PyTorch's autograd
layer runs before its kernels; ``float_power_``, a composite, checks its dtype first), and under
``no_grad`` every such write goes through (optimizers write parameters so), with PyTorch's
values.

One difference is strided's on purpose: PyTorch lets ``logical_not_``/``logical_and_``/...
write a float leaf that requires grad (those ops have no derivative, so its autograd layer
skips the leaf check); strided refuses them with the leaf's error like every other write."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

CALLS = {
    "float_power_": lambda x: x.float_power_(2), "round_": lambda x: x.round_(), "round_ decimals": lambda x: x.round_(decimals=1),
    "sign_": lambda x: x.sign_(), "sgn_": lambda x: x.sgn_(), "remainder_": lambda x: x.remainder_(0.75),
    "cumsum_": lambda x: x.cumsum_(0), "cumsum_ dtype": lambda x: x.cumsum_(0, dtype=st.float64 if isinstance(x, st.Tensor) else torch.float64),
    "logit_": lambda x: x.logit_(), "add_": lambda x: x.add_(1), "sqrt_": lambda x: x.sqrt_(), "clamp_": lambda x: x.clamp_(0),
    "fill_": lambda x: x.fill_(1), "zero_": lambda x: x.zero_(), "copy_": lambda x: x.copy_(x * 2),
    "setitem": lambda x: x.__setitem__(0, 1.0), "tril_": lambda x: x.tril_(), "triu_ 2-d": lambda x: x.view(2, 2).triu_(),
    "lerp_": lambda x: x.lerp_(x * 3, 0.5), "exp_": lambda x: x.exp_(), "gcd_": lambda x: x.gcd_(x), "lcm_": lambda x: x.lcm_(x),
    "heaviside_": lambda x: x.heaviside_(x), "nan_to_num_": lambda x: x.nan_to_num_(), "polygamma_": lambda x: x.polygamma_(1),
    "frac_": lambda x: x.frac_(), "atan2_": lambda x: x.atan2_(x), "div_ floor": lambda x: x.div_(2, rounding_mode="floor"),
    "pow_": lambda x: x.pow_(2), "masked_fill_": lambda x: x.masked_fill_(x.real > 2, 1.0), "abs_": lambda x: x.abs_(),
    "relu_": lambda x: x.relu_(), "iadd": lambda x: x.__iadd__(1), "ifloordiv": lambda x: x.__ifloordiv__(2),
    "ipow": lambda x: x.__ipow__(2), "fmod_": lambda x: x.fmod_(1.5), "xlogy_": lambda x: x.xlogy_(2), "ldexp_": lambda x: x.ldexp_(x),
    "erfinv_": lambda x: x.erfinv_(), "deg2rad_": lambda x: x.deg2rad_(), "hypot_": lambda x: x.hypot_(x), "clamp_min_": lambda x: x.clamp_min_(0.5),
    "floor_": lambda x: x.floor_(), "trunc_": lambda x: x.trunc_(), "sigmoid_": lambda x: x.sigmoid_(), "mul_ complex": lambda x: x.mul_(1j),
}
DTYPES = ["float32", "float64", "complex64"]
# PyTorch computes these; strided refuses them (a PyTorch word means what PyTorch means or
# raises): none now (complex sigmoid, refused until the sigmoid row took complex numbers, is
# compared as every other case)
REFUSED: set = set()


def _outcome(lib, dtype, call, grad_mode):
    x = lib.tensor(np.array([1.25, 2.5, -0.75, 3.0], dtype=dtype), requires_grad=True)
    try:
        with grad_mode(lib):
            call(x)
    except Exception as e:  # noqa: BLE001 - the outcome compared
        return ("leaf" if "leaf Variable" in str(e) else "other error"), None
    return "ok", x.detach()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CALLS))
def test_the_leaf_is_refused_before_the_methods_own_checks(name, dtype):
    s, _ = _outcome(st, dtype, CALLS[name], lambda lib: lib.enable_grad())
    t, _ = _outcome(torch, dtype, CALLS[name], lambda lib: lib.enable_grad())
    assert s == t


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CALLS))
def test_under_no_grad_the_write_goes_through(name, dtype):
    s, vs = _outcome(st, dtype, CALLS[name], lambda lib: lib.no_grad())
    t, vt = _outcome(torch, dtype, CALLS[name], lambda lib: lib.no_grad())
    if (name, dtype) in REFUSED:
        assert (s, t) == ("other error", "ok")
        return
    assert s == t
    if s == "ok":
        np.testing.assert_allclose(to_numpy(vs), vt.numpy(), rtol=2e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["logical_not_", "logical_and_", "logical_or_", "logical_xor_"])
def test_logical_writes_into_a_grad_leaf_are_refused(name):
    x = st.tensor([1.5, 0.0], requires_grad=True)
    args = () if name == "logical_not_" else (x.detach(),)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        getattr(x, name)(*args)
