"""strided.torch's normalization functions and layers against PyTorch 2.13: values and
gradients (input and every parameter) for a grid of shapes and options in float32 and
float64, running statistics after several training steps, eval mode, state dicts, the
torch-level ATen signatures, and PyTorch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import check, to_numpy
from hypothesis import given, settings, strategies as hs  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

DTYPES = ["float32", "float64"]
TOL32 = dict(rtol=1e-4, atol=1e-5)


def _tol(dtype):
    return TOL32 if dtype == "float32" else None


def _weights(lib, T, rng, c, affine, bias=True):
    if not affine:
        return None, None
    w = T(rng.uniform(0.5, 1.5, c), grad=True)
    b = T(rng.standard_normal(c), grad=True) if bias else None
    return w, b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 5), (2, 3, 2, 3), (2, 2, 2, 2, 3)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_values_and_gradients(dtype, shape, affine, training):
    def build(lib, T, rng):
        x = T(rng.standard_normal(shape) * 2 + 1, grad=True)
        c = shape[1]
        rm = T(rng.standard_normal(c))
        rv = T(rng.uniform(0.5, 2.0, c))
        w, b = _weights(lib, T, rng, c, affine)
        return lib.nn.functional.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3,
                                            eps=1e-3)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_without_running_stats_and_noncontiguous_input(dtype):
    def build(lib, T, rng):
        x = T(rng.standard_normal((5, 6, 3)), grad=True)
        xt = x.transpose(0, 2)  # (3, 6, 5), strided
        w, b = _weights(lib, T, rng, 6, True)
        return lib.nn.functional.batch_norm(xt[:, ::2], None, None, w[::2], b[::2], training=True)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
@pytest.mark.parametrize("cls", ["BatchNorm1d", "BatchNorm2d"])
def test_running_statistics_after_training_steps_then_eval(momentum, cls):
    shape = (4, 3, 5) if cls == "BatchNorm1d" else (3, 3, 2, 4)
    ref = getattr(torch.nn, cls)(3, momentum=momentum).double()
    got = getattr(storch.nn, cls)(3, momentum=momentum).double()
    rng = np.random.default_rng(1)
    for _ in range(4):
        x = rng.standard_normal(shape) * 3 + 2
        yr = ref(torch.from_numpy(x))
        ys = got(strided.asarray(x))
        np.testing.assert_allclose(to_numpy(ys), yr.detach().numpy(), rtol=1e-10, atol=1e-12)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(to_numpy(getattr(got, name)), getattr(ref, name).numpy(),
                                   rtol=1e-12, atol=1e-14, err_msg=name)
    assert int(got.num_batches_tracked) == int(ref.num_batches_tracked) == 4
    assert str(got.num_batches_tracked.dtype) == "int64"
    ref.eval(), got.eval()
    x = rng.standard_normal(shape)
    np.testing.assert_allclose(to_numpy(got(strided.asarray(x))),
                               ref(torch.from_numpy(x)).detach().numpy(), rtol=1e-10, atol=1e-12)
    assert int(got.num_batches_tracked) == 4  # eval does not count


def test_functional_batch_norm_updates_running_stats_in_place_without_history():
    rm, rv = storch.zeros(3), storch.ones(3)
    rm_t, rv_t = torch.zeros(3), torch.ones(3)
    x = np.random.default_rng(2).standard_normal((6, 3)).astype("float32")
    xs = strided.asarray(x).requires_grad_()
    storage = rm.storage()
    storch.nn.functional.batch_norm(xs, rm, rv, training=True, momentum=0.2)
    torch.nn.functional.batch_norm(torch.from_numpy(x), rm_t, rv_t, training=True, momentum=0.2)
    assert rm.storage() is storage and not rm.requires_grad and not rv.requires_grad
    np.testing.assert_allclose(to_numpy(rm), rm_t.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(rv), rv_t.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("track", [True, False])
def test_batchnorm_module_options_eval_and_state_dict(track):
    ref = torch.nn.BatchNorm2d(4, affine=True, track_running_stats=track, bias=False)
    got = storch.nn.BatchNorm2d(4, affine=True, track_running_stats=track, bias=False)
    assert list(got.state_dict()) == list(ref.state_dict())
    assert [n for n, _ in got.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert repr(got) == repr(ref)
    rng = np.random.default_rng(3)
    with torch.no_grad():
        ref.weight.copy_(torch.from_numpy(rng.uniform(0.5, 2, 4).astype("float32")))
        if track:
            ref.running_mean.copy_(torch.from_numpy(rng.standard_normal(4).astype("float32")))
            ref.running_var.fill_(2.5)
            ref.num_batches_tracked.fill_(7)
    got.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    x = rng.standard_normal((2, 4, 3, 3)).astype("float32")
    for mode in ("train", "eval"):
        getattr(ref, mode)(), getattr(got, mode)()
        xr = torch.from_numpy(x).requires_grad_()
        xs = strided.asarray(x).requires_grad_()
        yr, ys = ref(xr), got(xs)
        np.testing.assert_allclose(to_numpy(ys), yr.detach().numpy(), rtol=1e-4, atol=1e-5)
        yr.pow(2).sum().backward()
        (ys * ys).sum().backward()
        np.testing.assert_allclose(to_numpy(xs.grad), xr.grad.numpy(), rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(to_numpy(got.weight.grad), ref.weight.grad.numpy(), rtol=1e-3,
                                   atol=1e-4)
        got.weight.grad = None
        ref.weight.grad = None
    if track:
        np.testing.assert_allclose(to_numpy(got.running_mean), ref.running_mean.numpy(),
                                   rtol=1e-5, atol=1e-6)
        assert int(got.num_batches_tracked) == int(ref.num_batches_tracked) == 8


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 2, 3, 3), (1, 2, 2, 2, 3)])
@pytest.mark.parametrize("affine", [True, False])
def test_instance_norm_values_and_gradients(dtype, shape, affine):
    def build(lib, T, rng):
        x = T(rng.standard_normal(shape), grad=True)
        w, b = _weights(lib, T, rng, shape[1], affine)
        return lib.nn.functional.instance_norm(x, weight=w, bias=b, eps=1e-4)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("cls,shape", [("InstanceNorm1d", (3, 5)), ("InstanceNorm1d", (2, 3, 5)),
                                       ("InstanceNorm2d", (2, 3, 2, 4)),
                                       ("InstanceNorm3d", (3, 2, 2, 3))])
def test_instance_norm_modules_running_stats_and_unbatched(cls, shape):
    ref = getattr(torch.nn, cls)(3, affine=True, track_running_stats=True).double()
    got = getattr(storch.nn, cls)(3, affine=True, track_running_stats=True).double()
    assert list(got.state_dict()) == list(ref.state_dict())
    rng = np.random.default_rng(4)
    for _ in range(3):
        x = rng.standard_normal(shape) + 1
        np.testing.assert_allclose(to_numpy(got(strided.asarray(x))),
                                   ref(torch.from_numpy(x)).detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(got.running_mean), ref.running_mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(got.running_var), ref.running_var.numpy(), rtol=1e-12)
    ref.eval(), got.eval()
    x = rng.standard_normal(shape)
    np.testing.assert_allclose(to_numpy(got(strided.asarray(x))),
                               ref(torch.from_numpy(x)).detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns", [((2, 5), (5,)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)),
                                      ((3, 2, 2, 3), (2, 3))])
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm_values_and_gradients(dtype, shape, ns, affine):
    def build(lib, T, rng):
        x = T(rng.standard_normal(shape) * 3, grad=True)
        w = T(rng.uniform(0.5, 1.5, ns), grad=True) if affine != "none" else None
        b = T(rng.standard_normal(ns), grad=True) if affine == "both" else None
        return lib.nn.functional.layer_norm(x, ns, w, b, eps=1e-5)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,groups", [((2, 4), 2), ((2, 6, 3), 3), ((2, 4, 2, 3), 1),
                                          ((1, 4, 2, 2, 2), 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_values_and_gradients(dtype, shape, groups, affine):
    def build(lib, T, rng):
        x = T(rng.standard_normal(shape) + 0.5, grad=True)
        w, b = _weights(lib, T, rng, shape[1], affine)
        return lib.nn.functional.group_norm(x, groups, w, b, eps=1e-4)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns", [((2, 5), (5,)), ((2, 3, 4), (3, 4))])
@pytest.mark.parametrize("eps", [None, 1e-3])
@pytest.mark.parametrize("weight", [True, False])
def test_rms_norm_values_and_gradients(dtype, shape, ns, eps, weight):
    def build(lib, T, rng):
        x = T(rng.standard_normal(shape), grad=True)
        w = T(rng.uniform(0.5, 1.5, ns), grad=True) if weight else None
        return lib.nn.functional.rms_norm(x, ns, w, eps)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 4, 2, 3), (1, 6, 2, 2, 2)])
@pytest.mark.parametrize("size,alpha,beta,k", [(2, 1e-4, 0.75, 1.0), (3, 0.5, 0.6, 2.0),
                                               (1, 1.0, 1.0, 1.0), (6, 0.3, 0.75, 1.5)])
def test_local_response_norm_values_and_gradients(dtype, shape, size, alpha, beta, k):
    def build(lib, T, rng):
        x = T(rng.standard_normal(shape), grad=True)
        return lib.nn.functional.local_response_norm(x, size, alpha, beta, k)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("make", [
    lambda nn: nn.LayerNorm((3, 4), elementwise_affine=True, bias=False),
    lambda nn: nn.LayerNorm(4, eps=1e-3),
    lambda nn: nn.GroupNorm(2, 4),
    lambda nn: nn.GroupNorm(4, 4, affine=False),
    lambda nn: nn.RMSNorm(4),
    lambda nn: nn.RMSNorm((3, 4), eps=1e-2, elementwise_affine=False),
    lambda nn: nn.LocalResponseNorm(3, alpha=0.1),
    lambda nn: nn.InstanceNorm1d(4, affine=True),
    lambda nn: nn.BatchNorm3d(4, momentum=None, affine=False),
])
def test_modules_load_pytorch_state_and_match(make):
    ref, got = make(torch.nn).double(), make(storch.nn).double()
    assert repr(got) == repr(ref)
    assert list(got.state_dict()) == list(ref.state_dict())
    rng = np.random.default_rng(5)
    with torch.no_grad():
        for p in ref.parameters():
            p.copy_(torch.from_numpy(rng.uniform(0.5, 1.5, tuple(p.shape))))
    got.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    shape = (2, 4, 2, 2, 3) if isinstance(ref, torch.nn.BatchNorm3d) else (2, 3, 4) \
        if not isinstance(ref, (torch.nn.GroupNorm, torch.nn.InstanceNorm1d,
                                torch.nn.LocalResponseNorm)) else (2, 4, 3)
    x = rng.standard_normal(shape)
    xr, xs = torch.from_numpy(x).requires_grad_(), strided.asarray(x).requires_grad_()
    yr, ys = ref(xr), got(xs)
    np.testing.assert_allclose(to_numpy(ys), yr.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(shape)
    (yr * torch.from_numpy(g)).sum().backward()
    (ys * strided.asarray(g)).sum().backward()
    np.testing.assert_allclose(to_numpy(xs.grad), xr.grad.numpy(), rtol=1e-9, atol=1e-11)
    for (n, p), (_, q) in zip(got.named_parameters(), ref.named_parameters()):
        np.testing.assert_allclose(to_numpy(p.grad), q.grad.numpy(), rtol=1e-9, atol=1e-11,
                                   err_msg=n)


def test_default_parameters_and_dtypes():
    for make in (lambda nn: nn.BatchNorm1d(3), lambda nn: nn.LayerNorm(3),
                 lambda nn: nn.GroupNorm(1, 3), lambda nn: nn.RMSNorm(3),
                 lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True)):
        ref, got = make(torch.nn), make(storch.nn)
        for (k, a), (_, b) in zip(got.state_dict().items(), ref.state_dict().items()):
            np.testing.assert_array_equal(to_numpy(a), b.numpy(), err_msg=k)
            assert str(a.dtype) == str(b.dtype).removeprefix("torch."), k
    bn = storch.nn.BatchNorm1d(3, dtype=storch.float64)
    assert bn.weight.dtype == storch.float64 and bn.num_batches_tracked.dtype == storch.int64
    assert storch.nn.BatchNorm1d(3, affine=False).weight is None


def test_torch_level_signatures():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 2, 4))
    xs, xt = strided.asarray(x), torch.from_numpy(x)
    w = rng.uniform(0.5, 1.5, 2)
    rm_s, rv_s = strided.asarray(np.zeros(2)), strided.asarray(np.ones(2))
    rm_t, rv_t = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    pairs = [
        (storch.batch_norm(xs, strided.asarray(w), None, rm_s, rv_s, True, 0.2, 1e-5, False),
         torch.batch_norm(xt, torch.from_numpy(w), None, rm_t, rv_t, True, 0.2, 1e-5, False)),
        (storch.instance_norm(xs, None, None, None, None, True, 0.1, 1e-5, False),
         torch.instance_norm(xt, None, None, None, None, True, 0.1, 1e-5, False)),
        (storch.layer_norm(xs, [4], None, None, 1e-5, True), torch.layer_norm(xt, [4], None, None,
                                                                               1e-5, True)),
        (storch.group_norm(xs, 2, None, None, 1e-5, True), torch.group_norm(xt, 2, None, None,
                                                                             1e-5, True)),
        (storch.rms_norm(xs, [2, 4], eps=1e-6), torch.rms_norm(xt, [2, 4], eps=1e-6)),
    ]
    for a, b in pairs:
        np.testing.assert_allclose(to_numpy(a), b.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(rm_s), rm_t.numpy(), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(rv_s), rv_t.numpy(), rtol=1e-12)
    # torch.batch_norm has no Python-level "more than 1 value" check: a NaN running variance.
    rv1, rv1_t = storch.ones(3), torch.ones(3)
    storch.batch_norm(storch.ones(1, 3), None, None, storch.zeros(3), rv1, True, 0.1, 1e-5, False)
    torch.batch_norm(torch.ones(1, 3), None, None, torch.zeros(3), rv1_t, True, 0.1, 1e-5, False)
    assert np.isnan(to_numpy(rv1)).all() and rv1_t.isnan().all()
    with pytest.raises(TypeError):
        storch.batch_norm(xs, None, None, None, None, True)  # every argument is required


def _both(fn):
    """Run ``fn(lib)`` for PyTorch and strided; both must raise the same exception type
    and message fragment (returned)."""
    with pytest.raises(Exception) as er:
        fn(torch)
    with pytest.raises(type(er.value)) as es:
        fn(storch)
    return str(er.value), str(es.value)


def _arr(lib, shape, dtype="float32"):
    a = np.ones(shape, dtype=dtype)
    return torch.from_numpy(a) if lib is torch else strided.asarray(a)


@pytest.mark.parametrize("fn,fragment", [
    (lambda L: L.nn.functional.batch_norm(_arr(L, (2, 3, 4)), _arr(L, 4), _arr(L, 4)),
     "running_mean should contain 3 elements not 4"),
    (lambda L: L.nn.functional.batch_norm(_arr(L, (2, 3)), _arr(L, 3), _arr(L, 3),
                                          weight=_arr(L, 4)), "weight should contain 3 elements"),
    (lambda L: L.nn.functional.batch_norm(_arr(L, (1, 3)), _arr(L, 3), _arr(L, 3), training=True),
     "Expected more than 1 value per channel when training"),
    (lambda L: L.nn.functional.batch_norm(_arr(L, (2, 3)), None, None),
     "running_mean must be defined in evaluation mode"),
    (lambda L: L.nn.functional.batch_norm(_arr(L, (2, 3), "float64"), _arr(L, 3), _arr(L, 3),
                                          training=True), "mixed dtype"),
    (lambda L: L.nn.functional.instance_norm(_arr(L, (2, 3, 1))),
     "Expected more than 1 spatial element"),
    (lambda L: L.nn.functional.instance_norm(_arr(L, (2, 3, 4)), use_input_stats=False),
     "Expected running_mean and running_var to be defined"),
    (lambda L: L.nn.functional.layer_norm(_arr(L, (2, 3, 4)), (3,)),
     "Given normalized_shape=[3], expected input with shape [*, 3], but got input of size"),
    (lambda L: L.nn.functional.layer_norm(_arr(L, (2, 3, 4)), (3, 4), _arr(L, 4)),
     "Expected weight to be of same shape as normalized_shape"),
    (lambda L: L.nn.functional.group_norm(_arr(L, (2, 3, 4)), 2),
     "Expected number of channels in input to be divisible by num_groups"),
    (lambda L: L.nn.functional.group_norm(_arr(L, (1, 3)), 3),
     "Expected more than 1 value per channel when training"),
    (lambda L: L.nn.functional.rms_norm(_arr(L, (2, 3, 4)), (5,)),
     "Given normalized_shape=[5], expected input with shape [*5]"),
    (lambda L: L.nn.functional.layer_norm(_arr(L, (2, 3, 4)), (4,), _arr(L, 4, "float64")),
     "mixed dtype (CPU)"),
    (lambda L: L.nn.functional.group_norm(_arr(L, (2, 3, 4)), 3, _arr(L, 3, "float64")),
     "mixed dtype (CPU)"),
    (lambda L: L.nn.functional.layer_norm(_arr(L, (2, 3)), ()),
     "Expected normalized_shape to be at least 1-dimensional"),
    (lambda L: L.nn.functional.layer_norm(_arr(L, (2, 3), "int64"), (3,)),
     "\"LayerNormKernelImpl\" not implemented for 'Long'"),
    (lambda L: L.nn.functional.batch_norm(_arr(L, (2, 3), "int64"), None, None, training=True),
     "\"batch_norm\" not implemented for 'Long'"),
    (lambda L: L.nn.functional.group_norm(_arr(L, (2, 3), "int64"), 1),
     "\"GroupNormKernelImpl\" not implemented for 'Long'"),
    (lambda L: L.nn.functional.local_response_norm(_arr(L, (2, 3)), 2),
     "Expected 3D or higher dimensionality"),
    (lambda L: L.nn.BatchNorm1d(3)(_arr(L, (2, 3, 4, 5))), "expected 2D or 3D input (got 4D input)"),
    (lambda L: L.nn.BatchNorm2d(3)(_arr(L, (2, 4, 4, 5))), "running_mean should contain 4 elements"),
    (lambda L: L.nn.BatchNorm3d(3)(_arr(L, (2, 3, 4, 5))), "expected 5D input (got 4D input)"),
    (lambda L: L.nn.GroupNorm(2, 3), "num_channels (3) must be divisible by num_groups (2)"),
    (lambda L: L.nn.InstanceNorm1d(3, affine=True)(_arr(L, (2, 4, 5))),
     "expected input's size at dim=1 to match num_features (3), but got: 4."),
    (lambda L: L.nn.InstanceNorm2d(3)(_arr(L, (2, 3))), "expected 3D or 4D input (got 2D input)"),
])
def test_errors_match_pytorch(fn, fragment):
    ref, got = _both(fn)
    assert fragment in ref
    assert fragment.replace("torch.", "strided.") in got


def test_rms_norm_weight_of_another_dtype_keeps_the_input_dtype():
    x = np.random.default_rng(8).standard_normal((2, 3)).astype("float32")
    w = np.array([0.5, 1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch: "Cannot dispatch to fused implementation")
        ref = torch.nn.functional.rms_norm(torch.from_numpy(x), (3,), torch.from_numpy(w))
    got = storch.nn.functional.rms_norm(strided.asarray(x), (3,), strided.asarray(w))
    assert str(got.dtype) == "float32" and ref.dtype == torch.float32
    np.testing.assert_allclose(to_numpy(got), ref.numpy(), rtol=1e-6, atol=1e-7)


def test_instance_norm_without_affine_warns_on_feature_mismatch():
    with pytest.warns(UserWarning, match="does not match num_features"):
        storch.nn.InstanceNorm1d(3)(storch.ones(2, 4, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        storch.nn.InstanceNorm1d(4)(storch.ones(2, 4, 5))


@settings(max_examples=25, deadline=None)
@given(hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=4), hs.data())
def test_hypothesis_layer_and_batch_norm_over_shapes(shape, data):
    k = data.draw(hs.integers(1, len(shape)), label="normalized dims")
    ns = shape[len(shape) - k:]
    n_per_channel = shape[0] * int(np.prod(shape[2:]))

    def build(lib, T, rng):
        x = T(rng.standard_normal(shape), grad=True)
        w = T(rng.uniform(0.5, 1.5, ns), grad=True)
        y = lib.nn.functional.layer_norm(x, ns, w, None, 1e-3)
        if n_per_channel > 1:
            y = y + lib.nn.functional.batch_norm(x, None, None, training=True, eps=1e-3)
        return y
    check(build, "float64")
