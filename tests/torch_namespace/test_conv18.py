"""Convolutions (``conv1d``-``conv3d``, ``conv_transpose1d``-``3d``, ``Conv*d``,
``ConvTranspose*d``) against PyTorch 2.13: values and gradients (input, weight, bias) over
shapes, strides, paddings (ints, tuples, 'same', 'valid', the padding modes), dilations,
groups, batched and unbatched inputs, float32 and float64; modules loaded from PyTorch's
state dicts; a small CNN trained three SGD steps; errors for bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as hst
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import to_numpy

# (PyTorch's own note that it pads a copy for padding='same' with an even kernel)
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same':UserWarning")

TF = torch.nn.functional
SF = storch.nn.functional
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def compare(fname, arrays, kwargs, dtype, tlib=TF, slib=SF, positional=()):
    """Call ``fname`` of both libraries on the same arrays (leaves that require grad),
    compare the values, then backward a random weighting and compare every gradient."""
    rng = np.random.default_rng(1)
    tin = [None if a is None else torch.tensor(a.astype(dtype), requires_grad=True)
           for a in arrays]
    sin = [None if a is None else strided.asarray(a.astype(dtype)).requires_grad_()
           for a in arrays]
    rt = getattr(tlib, fname)(*tin, *positional, **kwargs)
    rs = getattr(slib, fname)(*sin, *positional, **kwargs)
    assert tuple(rs.shape) == tuple(rt.shape)
    assert str(rs.dtype) == str(rt.dtype).removeprefix("torch.")
    np.testing.assert_allclose(to_numpy(rs), to_numpy(rt), **TOL[dtype], err_msg="values")
    w = rng.standard_normal(tuple(rt.shape)).astype(dtype)
    (rt * torch.tensor(w)).sum().backward()
    (rs * strided.asarray(w)).sum().backward()
    for i, (a, b) in enumerate(zip(sin, tin)):
        if a is not None:
            np.testing.assert_allclose(to_numpy(a.grad), to_numpy(b.grad), **TOL[dtype],
                                       err_msg=f"grad of argument {i}")
    return rs, rt


def _arrays(rng, x_shape, w_shape, bias):
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal(w_shape)
    b = rng.standard_normal(w_shape[0]) if bias else None
    return [x, w, b]


# (n, N or None (unbatched), C_in, spatial, C_out, kernel, kwargs)
CONV_CASES = [
    (1, 2, 3, (9,), 4, (3,), {}),
    (1, None, 2, (8,), 4, (2,), dict(stride=2, padding=1)),
    (1, 2, 4, (10,), 6, (3,), dict(stride=3, padding=2, dilation=2, groups=2)),
    (1, 1, 2, (7,), 2, (4,), dict(padding="same")),
    (1, 1, 2, (7,), 2, (3,), dict(padding="same", dilation=3)),
    (1, 2, 2, (7,), 3, (3,), dict(padding="valid")),
    (2, 2, 3, (7, 6), 4, (3, 3), {}),
    (2, None, 3, (7, 6), 4, (3, 2), dict(stride=(2, 1), padding=(1, 0))),
    (2, 2, 4, (8, 9), 6, (3, 3), dict(stride=2, padding=1, dilation=(2, 1), groups=2)),
    (2, 1, 4, (6, 7), 4, (2, 3), dict(padding="same", groups=4)),
    (2, 2, 2, (5, 5), 2, (1, 1), dict(stride=(3, 2))),
    (2, 1, 2, (5, 6), 3, (4, 2), dict(padding="same", dilation=2)),
    (3, 1, 2, (4, 5, 4), 3, (2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
    (3, None, 4, (5, 4, 4), 2, (3, 2, 2), dict(groups=2, dilation=(1, 2, 1))),
    (3, 1, 2, (3, 4, 5), 2, (2, 2, 3), dict(padding="same")),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{c[0]}d-{c[6]}")
def test_conv_values_and_gradients(case, bias, dtype):
    n, nb, cin, sp, cout, k, kw = case
    groups = kw.get("groups", 1)
    rng = np.random.default_rng(0)
    x_shape = ((nb,) if nb else ()) + (cin,) + sp
    arrays = _arrays(rng, x_shape, (cout, cin // groups) + k, bias)
    compare(f"conv{n}d", arrays, kw, dtype)


@settings(max_examples=30, deadline=None)
@given(n=hst.integers(1, 3), nb=hst.sampled_from([None, 1, 2]), groups=hst.integers(1, 3),
       cg=hst.integers(1, 2), og=hst.integers(1, 2), data=hst.data())
def test_conv_random_geometry(n, nb, groups, cg, og, data):
    # random kernels, strides, paddings and dilations; float64 values and all gradients
    k = tuple(data.draw(hst.integers(1, 3)) for _ in range(n))
    s = tuple(data.draw(hst.integers(1, 3)) for _ in range(n))
    d = tuple(data.draw(hst.integers(1, 2)) for _ in range(n))
    p = tuple(data.draw(hst.integers(0, 2)) for _ in range(n))
    sp = tuple(data.draw(hst.integers(1, 7 if n < 3 else 4)) for _ in range(n))
    assume(all(sp[i] + 2 * p[i] >= d[i] * (k[i] - 1) + 1 for i in range(n)))
    rng = np.random.default_rng(data.draw(hst.integers(0, 2 ** 16)))
    x_shape = ((nb,) if nb else ()) + (cg * groups,) + sp
    arrays = _arrays(rng, x_shape, (og * groups, cg) + k, data.draw(hst.booleans()))
    compare(f"conv{n}d", arrays, dict(stride=s, padding=p, dilation=d, groups=groups), "float64")


# (n, N or None, C_in, spatial, C_out / groups, kernel, kwargs)
TRANSPOSE_CASES = [
    (1, 2, 3, (5,), 2, (3,), {}),
    (1, None, 2, (4,), 3, (2,), dict(stride=2, padding=1, output_padding=1)),
    (1, 2, 4, (5,), 2, (3,), dict(stride=3, padding=2, dilation=2, groups=2, output_padding=2)),
    (1, 1, 2, (6,), 1, (4,), dict(dilation=3, output_padding=2)),
    (2, 2, 3, (4, 5), 2, (3, 3), {}),
    (2, None, 2, (3, 4), 3, (3, 2), dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2))),
    (2, 2, 4, (4, 3), 1, (2, 3), dict(stride=2, groups=4, dilation=(1, 2))),
    (2, 1, 2, (5, 5), 2, (3, 3), dict(padding=2)),
    (3, 1, 2, (3, 2, 3), 2, (2, 2, 2), dict(stride=2, padding=(0, 1, 0), output_padding=1)),
    (3, None, 4, (2, 3, 2), 1, (2, 1, 2), dict(groups=2, dilation=(2, 1, 1))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=lambda c: f"{c[0]}d-{c[6]}")
def test_conv_transpose_values_and_gradients(case, bias, dtype):
    n, nb, cin, sp, og, k, kw = case
    groups = kw.get("groups", 1)
    rng = np.random.default_rng(0)
    x_shape = ((nb,) if nb else ()) + (cin,) + sp
    w = rng.standard_normal((cin, og) + k)
    b = rng.standard_normal(og * groups) if bias else None
    compare(f"conv_transpose{n}d", [rng.standard_normal(x_shape), w, b], kw, dtype)


def test_conv_of_a_noncontiguous_input_and_weight():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 6, 5))
    w = rng.standard_normal((4, 3, 2, 3))
    tx, sx = torch.tensor(x).transpose(-1, -2), strided.asarray(x).transpose(-1, -2)
    tw, sw = torch.tensor(w).transpose(-1, -2), strided.asarray(w).transpose(-1, -2)
    assert not sx.is_contiguous()
    ref = TF.conv2d(tx, tw, stride=(2, 1), padding=1)
    got = SF.conv2d(sx, sw, stride=(2, 1), padding=1)
    np.testing.assert_allclose(to_numpy(got), to_numpy(ref), rtol=1e-12, atol=1e-12)


def test_torch_level_names_match_pytorch():
    rng = np.random.default_rng(4)
    x, w, b = rng.standard_normal((2, 4, 7, 6)), rng.standard_normal((4, 2, 3, 3)), \
        rng.standard_normal(4)
    compare("conv2d", [x, w, b], {}, "float64", torch, storch, positional=(2, 1, 1, 2))
    compare("conv_transpose2d", [x, w, None], {}, "float64", torch, storch,
            positional=(2, 1, 1, 2, 1))
    compare("conv1d", [x[:, :, 0], w[:, :, 0], b], dict(groups=2), "float64", torch, storch)
    compare("conv3d", [x[..., None], w[..., None], b], dict(groups=2), "float64", torch, storch)
    compare("conv_transpose1d", [x[:, :, 0], w[:, :, 0], None], dict(stride=2), "float64", torch,
            storch)
    compare("conv_transpose3d", [x[..., None], w[..., None], None], dict(stride=2), "float64",
            torch, storch)


# --- modules -------------------------------------------------------------------------------

MODULE_CASES = [
    ("Conv1d", (3, 4, 3), dict(stride=2, padding=1), (2, 3, 9)),
    ("Conv1d", (2, 4, 3), dict(padding="same", padding_mode="circular"), (2, 5)),
    ("Conv2d", (4, 6, (3, 2)), dict(padding=(1, 2), padding_mode="reflect", groups=2),
     (2, 4, 6, 5)),
    ("Conv2d", (2, 3, 3), dict(padding=1, padding_mode="replicate", dilation=2), (1, 2, 6, 6)),
    ("Conv2d", (2, 3, 3), dict(padding="same", padding_mode="reflect", bias=False), (2, 5, 5)),
    ("Conv3d", (2, 2, 2), dict(padding=1, padding_mode="circular"), (1, 2, 3, 3, 3)),
    ("ConvTranspose1d", (3, 4, 3), dict(stride=2, output_padding=1), (2, 3, 5)),
    ("ConvTranspose2d", (4, 2, 3), dict(stride=2, padding=1, groups=2, bias=False),
     (1, 4, 3, 4)),
    ("ConvTranspose3d", (2, 2, 2), dict(dilation=2), (2, 2, 2, 2)),
]


@pytest.mark.parametrize("name,args,kwargs,x_shape", MODULE_CASES,
                         ids=lambda v: str(v) if isinstance(v, str) else None)
def test_module_loaded_from_pytorch_gives_pytorchs_outputs(name, args, kwargs, x_shape):
    torch.manual_seed(0)
    ref = getattr(torch.nn, name)(*args, **kwargs).double()
    got = getattr(storch.nn, name)(*args, **kwargs, dtype=strided.float64)
    assert list(got.state_dict()) == list(ref.state_dict())
    for (kn, p), (_, q) in zip(got.named_parameters(), ref.named_parameters()):
        assert tuple(p.shape) == tuple(q.shape), kn
    got.load_state_dict({k: v.detach().numpy() for k, v in ref.state_dict().items()})
    assert repr(got) == repr(ref)
    x = np.random.default_rng(0).standard_normal(x_shape)
    tx, sx = torch.tensor(x, requires_grad=True), strided.asarray(x).requires_grad_()
    rt, rs = ref(tx), got(sx)
    np.testing.assert_allclose(to_numpy(rs), to_numpy(rt), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(tuple(rt.shape))
    (rt * torch.tensor(w)).sum().backward()
    (rs * strided.asarray(w)).sum().backward()
    np.testing.assert_allclose(to_numpy(sx.grad), to_numpy(tx.grad), rtol=1e-10, atol=1e-12)
    for (kn, p), (_, q) in zip(got.named_parameters(), ref.named_parameters()):
        np.testing.assert_allclose(to_numpy(p.grad), to_numpy(q.grad), rtol=1e-10, atol=1e-12,
                                   err_msg=kn)


@pytest.mark.parametrize("name,args,kwargs", [
    ("Conv1d", (4, 8, 3), {}), ("Conv2d", (6, 4, (3, 2)), dict(groups=2)),
    ("Conv3d", (2, 3, 2), {}), ("ConvTranspose2d", (6, 4, 3), dict(groups=2)),
    ("ConvTranspose1d", (3, 5, 2), {}),
])
def test_default_init_has_pytorchs_bounds(name, args, kwargs):
    mod = getattr(storch.nn, name)(*args, **kwargs)
    ref = getattr(torch.nn, name)(*args, **kwargs)
    fan_in = ref.weight.shape[1] * math.prod(ref.weight.shape[2:])
    bound = 1 / math.sqrt(fan_in)
    w, b = to_numpy(mod.weight), to_numpy(mod.bias)
    assert w.shape == tuple(ref.weight.shape) and str(mod.weight.dtype) == "float32"
    # kaiming_uniform_(a=sqrt(5)) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in)): the same bound
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.5 * bound
    assert np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.35 * bound


@pytest.mark.parametrize("name,args,kwargs", [
    ("Conv2d", (16, 33, 3), dict(stride=2)),
    ("Conv2d", (16, 32, (3, 5)), dict(stride=(2, 1), padding=(4, 2), dilation=(3, 1))),
    ("Conv2d", (4, 4, 3), dict(padding="same", groups=2, bias=False, padding_mode="circular")),
    ("Conv1d", (4, 4, 3), dict(padding="valid")),
    ("Conv3d", (2, 4, 1), {}),
    ("ConvTranspose2d", (4, 8, 3), dict(stride=2, output_padding=1, dilation=2)),
    ("ConvTranspose1d", (4, 8, 3), dict(groups=4, bias=False)),
])
def test_reprs_and_attributes_match_pytorch(name, args, kwargs):
    got, ref = getattr(storch.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(got) == repr(ref)
    for attr in ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
                 "transposed", "output_padding", "groups", "padding_mode",
                 "_reversed_padding_repeated_twice"):
        assert getattr(got, attr) == getattr(ref, attr), attr


def test_conv_transpose_output_size_picks_output_padding():
    torch.manual_seed(0)
    ref = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    got = storch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, dtype=strided.float64)
    got.load_state_dict({k: v.detach().numpy() for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 4))
    for size in ([8, 8], [7, 8], [1, 3, 8, 7]):
        rt = ref(torch.tensor(x), output_size=size)
        rs = got(strided.asarray(x), output_size=size)
        assert tuple(rs.shape) == tuple(rt.shape)
        np.testing.assert_allclose(to_numpy(rs), to_numpy(rt), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="requested an output size"):
        got(strided.asarray(x), output_size=[10, 10])


def test_small_cnn_trains_like_pytorch():
    def build(nn):
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(4 * 4 * 4, 3))

    torch.manual_seed(0)
    ref = build(torch.nn)
    got = build(storch.nn)
    got.load_state_dict({k: v.detach().numpy() for k, v in ref.state_dict().items()})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 1, 8, 8)).astype("float32")
    y = rng.integers(0, 3, 5)
    t_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    s_opt = storch.optim.SGD(got.parameters(), lr=0.1)
    t_losses, s_losses = [], []
    for _ in range(3):
        t_opt.zero_grad()
        lt = TF.cross_entropy(ref(torch.tensor(x)), torch.tensor(y))
        lt.backward()
        t_opt.step()
        t_losses.append(lt.item())
        s_opt.zero_grad()
        ls = SF.cross_entropy(got(strided.asarray(x)), strided.asarray(y))
        ls.backward()
        s_opt.step()
        s_losses.append(float(ls))
    np.testing.assert_allclose(s_losses, t_losses, rtol=1e-5, atol=1e-5)
    assert s_losses[2] < s_losses[0]
    for (kn, p), (_, q) in zip(got.named_parameters(), ref.named_parameters()):
        np.testing.assert_allclose(to_numpy(p), to_numpy(q), rtol=1e-4, atol=1e-5, err_msg=kn)


# --- errors --------------------------------------------------------------------------------

def _s(*shape):
    return strided.zeros(shape)


@pytest.mark.parametrize("call,exc,fragment", [
    (lambda: SF.conv2d(_s(1, 3, 5, 5), _s(2, 4, 3, 3)), RuntimeError, "to have 4 channels"),
    (lambda: SF.conv2d(_s(1, 4, 5, 5), _s(3, 2, 3, 3), groups=2), RuntimeError,
     "divisible by 2"),
    (lambda: SF.conv2d(_s(1, 3, 2, 2), _s(2, 3, 3, 3)), RuntimeError,
     "Kernel size can't be greater than actual input size"),
    (lambda: SF.conv1d(_s(1, 3, 5), _s(2, 3, 3), padding="full"), RuntimeError,
     "Invalid padding string: 'full'"),
    (lambda: SF.conv1d(_s(1, 3, 5), _s(2, 3, 3), padding="same", stride=2), RuntimeError,
     "not supported for strided convolutions"),
    (lambda: SF.conv2d(_s(3, 5), _s(2, 3, 3, 3)), RuntimeError,
     "Expected 3D (unbatched) or 4D (batched) input to conv2d"),
    (lambda: SF.conv2d(_s(1, 3, 5, 5), _s(2, 3, 3)), RuntimeError, "weight must be 4-D"),
    (lambda: SF.conv2d(_s(1, 3, 5, 5), _s(2, 3, 3, 3), _s(3)), RuntimeError,
     "bias to be 1-dimensional with 2 elements"),
    (lambda: SF.conv2d(_s(1, 3, 5, 5), strided.zeros((2, 3, 3, 3), dtype=strided.float64)),
     RuntimeError, "should be the same"),
    (lambda: SF.conv2d(_s(1, 3, 5, 5), _s(2, 3, 3, 3), strided.zeros(2, dtype=strided.float64)),
     RuntimeError, "Input type (float32) and bias type (float64) should be the same"),
    # (integer and complex convolutions, which PyTorch computes: test_conv_dtypes29.py)
    (lambda: SF.conv1d(strided.zeros((1, 1, 4), dtype=strided.bool),
                       strided.zeros((1, 1, 2), dtype=strided.bool)), NotImplementedError,
     "does not support bool"),
    (lambda: SF.conv_transpose1d(_s(1, 3, 5), _s(2, 3, 3)), RuntimeError,
     "to have 2 channels"),
    (lambda: SF.conv_transpose1d(_s(1, 2, 5), _s(2, 3, 3), stride=2, output_padding=2),
     RuntimeError, "output padding must be smaller than either stride or dilation"),
    (lambda: storch.nn.Conv2d(3, 4, 3, groups=2), ValueError,
     "in_channels must be divisible by groups"),
    (lambda: storch.nn.Conv2d(4, 3, 3, groups=2), ValueError,
     "out_channels must be divisible by groups"),
    (lambda: storch.nn.Conv2d(4, 4, 3, padding="middle"), ValueError, "Invalid padding string"),
    (lambda: storch.nn.Conv2d(4, 4, 3, stride=2, padding="same"), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: storch.nn.Conv2d(4, 4, 3, padding_mode="mirror"), ValueError,
     "padding_mode must be one of"),
    (lambda: storch.nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose2d'),
])
def test_errors(call, exc, fragment):
    with pytest.raises(exc, match=__import__("re").escape(fragment)):
        call()


def test_pytorch_raises_the_same_types():
    # the error types above are PyTorch's own for the same inputs
    z = torch.zeros
    for call, exc in [
        (lambda: TF.conv2d(z(1, 3, 5, 5), z(2, 4, 3, 3)), RuntimeError),
        (lambda: TF.conv2d(z(1, 3, 2, 2), z(2, 3, 3, 3)), RuntimeError),
        (lambda: TF.conv1d(z(1, 3, 5), z(2, 3, 3), padding="full"), RuntimeError),
        (lambda: TF.conv1d(z(1, 3, 5), z(2, 3, 3), padding="same", stride=2), RuntimeError),
        (lambda: torch.nn.Conv2d(4, 4, 3, padding="middle"), ValueError),
        (lambda: torch.nn.Conv2d(3, 4, 3, groups=2), ValueError),
        (lambda: TF.conv_transpose1d(z(1, 2, 5), z(2, 3, 3), stride=2, output_padding=2),
         RuntimeError),
    ]:
        with pytest.raises(exc):
            call()


# --- another device ------------------------------------------------------------------------

DEVICE_CALLS = [
    ("conv2d", lambda F, x, w: F.conv2d(x, w, stride=2, padding=1)),
    ("conv1d_same", lambda F, x, w: F.conv1d(x[:, :, 0], w[:, :, 0], padding="same")),
    ("conv_transpose2d", lambda F, x, w: F.conv_transpose2d(x, w, stride=2, output_padding=1)),
    ("max_pool2d", lambda F, x, w: F.max_pool2d(x, 2, ceil_mode=True, padding=1)),
    ("avg_pool2d", lambda F, x, w: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
    ("adaptive_avg_pool2d", lambda F, x, w: F.adaptive_avg_pool2d(x, (2, 3))),
    ("adaptive_max_pool2d", lambda F, x, w: F.adaptive_max_pool2d(x, (2, 3))),
    ("interpolate", lambda F, x, w: F.interpolate(x, scale_factor=1.5, mode="bicubic")),
    ("interpolate_nearest", lambda F, x, w: F.interpolate(x, size=(7, 3))),
    ("fold", lambda F, x, w: F.fold(F.unfold(x, 2, padding=1), (5, 6), 2, padding=1)),
    ("pixel_shuffle", lambda F, x, w: F.pixel_shuffle(F.pixel_unshuffle(x[..., :4, :4], 2), 2)),
    ("grid_sample", lambda F, x, w: F.grid_sample(
        x, x[:, :2, :3, :3].permute(0, 2, 3, 1) * 0.5, padding_mode="reflection",
        align_corners=False)),
]


@pytest.mark.parametrize("name,call", DEVICE_CALLS, ids=[c[0] for c in DEVICE_CALLS])
def test_on_another_device_without_host_copies(name, call, sim):
    # the simulated GPU (tests/conftest.py): the results stay there, equal the host's (and
    # PyTorch's), gradients flow, and nothing is copied to the host on the way
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 2, 5, 6)), rng.standard_normal((2, 2, 3, 3))
    ref = call(TF, torch.tensor(x), torch.tensor(w))
    xs = strided.asarray(x, device=sim).requires_grad_()
    ws = strided.asarray(w, device=sim).requires_grad_()
    backend = xs.device.backend
    backend.d2h_copies = 0
    got = call(SF, xs, ws)
    (got * got).sum().backward()
    assert backend.d2h_copies == 0
    assert str(got.device) == str(sim) and str(xs.grad.device) == str(sim)
    np.testing.assert_allclose(to_numpy(got), to_numpy(ref), rtol=1e-10, atol=1e-12)
