"""``strided.torch.nn.utils.fusion`` against PyTorch 2.13: the fused weights and biases, their
dtypes and ``requires_grad``, the fused module's output and gradients, the errors."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]


def _np(x):
    if x is None:  # (a gradient PyTorch leaves None: compared as None)
        return None
    return x.detach().numpy() if isinstance(x, torch.Tensor) else to_numpy(x)


def _pair(make, dtype, seed):
    """The same module in both libraries: PyTorch's, with random running statistics and affine
    parameters, copied into strided's."""
    torch.manual_seed(seed)
    tm = make(torch).to(getattr(torch, dtype))
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, buf in tm.named_buffers():
            if name.endswith("running_mean"):
                buf.copy_(torch.from_numpy(rng.standard_normal(buf.shape)))
            elif name.endswith("running_var"):
                buf.copy_(torch.from_numpy(rng.uniform(0.5, 2.0, buf.shape)))
        for name, p in tm.named_parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(p.shape)))
    sm = make(st).to(getattr(st, dtype))
    sm.load_state_dict({k: st.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm.eval(), sm.eval()


CONVS = [
    ("Conv1d", lambda lib, bias: lib.nn.Conv1d(2, 3, 3, bias=bias), "BatchNorm1d", 3, (2, 2, 6), False),
    ("Conv2d", lambda lib, bias: lib.nn.Conv2d(2, 4, (2, 3), stride=2, bias=bias), "BatchNorm2d", 4, (2, 2, 5, 6), False),
    ("Conv3d", lambda lib, bias: lib.nn.Conv3d(1, 2, 2, bias=bias), "BatchNorm3d", 2, (1, 1, 3, 3, 3), False),
    ("ConvTranspose2d", lambda lib, bias: lib.nn.ConvTranspose2d(2, 3, 2, bias=bias), "BatchNorm2d", 3,
     (2, 2, 3, 3), True),
    ("ConvTranspose1d", lambda lib, bias: lib.nn.ConvTranspose1d(2, 4, 3, stride=2, bias=bias),
     "BatchNorm1d", 4, (1, 2, 4), True),
]


@pytest.mark.parametrize("case", CONVS, ids=[c[0] for c in CONVS])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fuse_conv_bn_eval_matches_pytorch(case, bias, affine, dtype):
    _, make_conv, bn_name, ch, xshape, transpose = case
    make = lambda lib: lib.nn.Sequential(make_conv(lib, bias), getattr(lib.nn, bn_name)(ch, eps=1e-3, affine=affine))  # noqa: E731
    tm, sm = _pair(make, dtype, seed=len(xshape) + bias + 2 * affine)
    x = np.random.default_rng(5).standard_normal(xshape)
    res = {}
    for lib, m in ((torch, tm), (st, sm)):
        before = _np(m[0].weight).copy()
        fused = lib.nn.utils.fuse_conv_bn_eval(m[0], m[1], transpose=transpose)
        assert fused is not m[0] and type(fused) is type(m[0])
        np.testing.assert_array_equal(_np(m[0].weight), before)  # the original is untouched
        assert isinstance(fused.weight, lib.nn.Parameter) and isinstance(fused.bias, lib.nn.Parameter)
        X = lib.tensor(x, dtype=getattr(lib, dtype))
        y = fused(X)
        y.pow(2).sum().backward()
        res[lib] = dict(w=_np(fused.weight), b=_np(fused.bias), y=_np(y), ref=_np(m(X)),
                        gw=_np(fused.weight.grad), gb=_np(fused.bias.grad),
                        flags=(fused.weight.requires_grad, fused.bias.requires_grad, fused.weight.is_leaf,
                               str(fused.weight.dtype).rsplit(".")[-1], str(fused.bias.dtype).rsplit(".")[-1],
                               fused.training))
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=2e-5)
    assert res[st]["flags"] == res[torch]["flags"]
    for k in ("w", "b", "y", "ref", "gw", "gb"):
        assert (res[st][k] is None) == (res[torch][k] is None)
        if res[torch][k] is None:
            continue
        assert res[st][k].shape == res[torch][k].shape
        np.testing.assert_allclose(res[st][k], res[torch][k], **tol)
    np.testing.assert_allclose(res[st]["y"], res[st]["ref"], rtol=1e-9 if dtype == "float64" else 1e-4,
                               atol=1e-9 if dtype == "float64" else 1e-4)


@pytest.mark.parametrize("nones", [(), ("conv_b",), ("bn_w", "bn_b"), ("conv_b", "bn_w", "bn_b")])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("grad", [True, False])
def test_fuse_conv_bn_weights_matches_pytorch(nones, transpose, grad):
    rng = np.random.default_rng(len(nones) + 3 * transpose)
    vals = dict(conv_w=rng.standard_normal((3, 3, 2, 2)), conv_b=rng.standard_normal(3),
                bn_rm=rng.standard_normal(3), bn_rv=rng.uniform(0.5, 2, 3),
                bn_w=rng.standard_normal(3), bn_b=rng.standard_normal(3))
    res = {}
    for lib in (torch, st):
        args = {k: None if k in nones else lib.tensor(v, dtype=lib.float64, requires_grad=grad and k.startswith("conv"))
                for k, v in vals.items()}
        w, b = lib.nn.utils.fuse_conv_bn_weights(args["conv_w"], args["conv_b"], args["bn_rm"], args["bn_rv"],
                                                 1e-5, args["bn_w"], args["bn_b"], transpose=transpose)
        res[lib] = (_np(w), _np(b), w.requires_grad, b.requires_grad, isinstance(w, lib.nn.Parameter),
                    isinstance(b, lib.nn.Parameter), w.is_leaf, b.is_leaf)
    np.testing.assert_allclose(res[st][0], res[torch][0], rtol=1e-13)
    np.testing.assert_allclose(res[st][1], res[torch][1], rtol=1e-13, atol=1e-14)
    assert res[st][2:] == res[torch][2:]


@pytest.mark.parametrize("num_features", [4, 1])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("xshape", [(5, 3), (2, 3)])
def test_fuse_linear_bn_eval_matches_pytorch(num_features, bias, dtype, xshape):
    make = lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4, bias=bias), lib.nn.BatchNorm1d(num_features))  # noqa: E731
    tm, sm = _pair(make, dtype, seed=num_features + bias)
    x = np.random.default_rng(7).standard_normal(xshape)
    res = {}
    for lib, m in ((torch, tm), (st, sm)):
        fused = lib.nn.utils.fuse_linear_bn_eval(m[0], m[1])
        assert fused is not m[0] and isinstance(fused, lib.nn.Linear)
        X = lib.tensor(x, dtype=getattr(lib, dtype))
        y = fused(X)
        (y * y).sum().backward()
        res[lib] = [_np(fused.weight), _np(fused.bias), _np(y), _np(fused.weight.grad), _np(fused.bias.grad)]
        if num_features == 4:
            res[lib].append(_np(m(X)))
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=2e-5)
    for g, r in zip(res[st], res[torch]):
        assert (g is None) == (r is None)
        if r is None:
            continue
        assert g.shape == r.shape and g.dtype == r.dtype
        np.testing.assert_allclose(g, r, **tol)


def test_fuse_linear_bn_weights_matches_pytorch():
    rng = np.random.default_rng(11)
    vals = [rng.standard_normal((4, 3)), None, rng.standard_normal(4), rng.uniform(0.5, 2, 4),
            rng.standard_normal(4), rng.standard_normal(4)]
    res = {}
    for lib in (torch, st):
        args = [None if v is None else lib.tensor(v, dtype=lib.float64) for v in vals]
        args[0].requires_grad_(True)
        w, b = lib.nn.utils.fusion.fuse_linear_bn_weights(*args[:4], 0.1, *args[4:])
        res[lib] = (_np(w), _np(b), w.requires_grad, b.requires_grad, isinstance(w, lib.nn.Parameter), w.is_leaf)
    np.testing.assert_allclose(res[st][0], res[torch][0], rtol=1e-13)
    np.testing.assert_allclose(res[st][1], res[torch][1], rtol=1e-13)
    assert res[st][2:] == res[torch][2:]


@pytest.mark.parametrize("lib", [torch, st], ids=["torch", "strided"])
def test_errors_are_pytorchs(lib):
    conv, bn = lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        lib.nn.utils.fuse_conv_bn_eval(conv, bn.eval())
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(2, 2).eval(), lib.nn.BatchNorm1d(2))
    with pytest.raises(AssertionError, match="running_mean and bn.running_var must not be None"):
        lib.nn.utils.fuse_conv_bn_eval(conv.eval(), lib.nn.BatchNorm2d(2, track_running_stats=False).eval())
    with pytest.raises(AssertionError, match="got linear.out_features=3 and bn.num_features=2"):
        lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval())
