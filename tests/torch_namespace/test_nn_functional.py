"""``strided.torch.nn.functional`` against PyTorch 2.13: the same program through both
libraries (tests/torch_namespace/_parity.py), values and gradients, float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import check, to_numpy

DTYPES = ["float32", "float64"]


def _x(rng, shape=(4, 5), scale=3.0):
    x = rng.standard_normal(shape) * scale
    return np.where(np.abs(x) < 1e-3, 0.5, x)  # no value on a kink


ACTIVATIONS = [
    ("relu", {}), ("relu6", {}), ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}),
    ("elu", {}), ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {"alpha": 2.0}),
    ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("mish", {}),
    ("sigmoid", {}), ("tanh", {}), ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 5.0}),
    ("softsign", {}), ("hardtanh", {}), ("hardtanh", {"min_val": -2.0, "max_val": 0.5}),
    ("hardsigmoid", {}), ("hardswish", {}), ("logsigmoid", {}), ("tanhshrink", {}),
    ("softmax", {"dim": 0}), ("softmax", {"dim": 1}), ("softmax", {"dim": -1}),
    ("log_softmax", {"dim": 1}), ("log_softmax", {"dim": 0}), ("softmin", {"dim": 1}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,kw", ACTIVATIONS)
def test_activation(name, kw, dtype):
    tol = None
    if name in ("hardsigmoid", "hardswish") and dtype == "float64":
        # PyTorch's backward multiplies by a float32 1/6 (1.0f / 6.0f) in every dtype:
        # its float64 gradient is 3e-8 off the exact one, which strided computes.
        tol = dict(rtol=1e-7, atol=1e-9)
    check(lambda lib, T, rng: getattr(lib.nn.functional, name)(T(_x(rng), grad=True), **kw), dtype,
          tol=tol)


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "softplus", "mish", "silu", "logsigmoid"])
def test_activation_extremes_keep_gradients_finite(name):
    data = np.array([-800.0, -50.0, -1.0, 1.0, 50.0, 800.0])
    check(lambda lib, T, rng: getattr(lib.nn.functional, name)(T(data, grad=True)), "float64")


@pytest.mark.parametrize("name,kw", [("relu", {}), ("leaky_relu", {"negative_slope": 0.1}),
                                     ("elu", {}), ("hardtanh", {}), ("silu", {}), ("relu6", {})])
def test_inplace_activation(name, kw):
    def build(lib, T, rng):
        x = T(_x(rng), grad=True) * 1.0
        y = getattr(lib.nn.functional, name)(x, inplace=True, **kw)
        assert y is x
        return y
    check(build)


@pytest.mark.parametrize("dtype", DTYPES)
def test_activations_at_their_kinks_take_pytorchs_gradient(dtype):
    kinks = np.array([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0])
    for name, kw in [("relu", {}), ("leaky_relu", {}), ("hardtanh", {}), ("relu6", {}),
                     ("elu", {}), ("hardsigmoid", {}), ("hardswish", {})]:
        check(lambda lib, T, rng: getattr(lib.nn.functional, name)(T(kinks, grad=True), **kw), dtype,
              tol=dict(rtol=1e-7, atol=1e-9) if dtype == "float64" else None)


def test_softmax_without_dim_warns_and_picks_pytorchs_dim():
    for shape in [(5,), (2, 5), (2, 3, 4)]:
        x = np.random.default_rng(0).standard_normal(shape)
        with pytest.warns(UserWarning, match="Implicit dimension"):
            got = storch.nn.functional.softmax(strided.asarray(x))
        with pytest.warns(UserWarning):
            ref = torch.nn.functional.softmax(torch.from_numpy(x))
        np.testing.assert_allclose(to_numpy(got), ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("xshape", [(3, 4), (2, 3, 4), (4,)])
def test_linear(dtype, bias, xshape):
    def build(lib, T, rng):
        x = T(rng.standard_normal(xshape), grad=True)
        w = T(rng.standard_normal((5, 4)), grad=True)
        b = T(rng.standard_normal(5), grad=True) if bias else None
        return lib.nn.functional.linear(x, w, b)
    check(build, dtype)


def test_linear_and_bilinear_shape_errors():
    F = storch.nn.functional
    with pytest.raises(ValueError, match="cannot be multiplied"):
        F.linear(storch.ones(2, 3), storch.ones(4, 5))
    with pytest.raises(ValueError, match="bilinear"):
        F.bilinear(storch.ones(2, 3), storch.ones(2, 2), storch.ones(4, 2, 2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_bilinear(dtype):
    def build(lib, T, rng):
        return lib.nn.functional.bilinear(T(rng.standard_normal((3, 2)), grad=True),
                                          T(rng.standard_normal((3, 4)), grad=True),
                                          T(rng.standard_normal((5, 2, 4)), grad=True),
                                          T(rng.standard_normal(5), grad=True))
    check(build, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding(dtype, padding_idx):
    def build(lib, T, rng):
        idx = T(np.array([[0, 1, 2], [1, 3, 1]]))
        return lib.nn.functional.embedding(idx, T(rng.standard_normal((4, 3)), grad=True),
                                           padding_idx=padding_idx)
    check(build, dtype)


# --- dropout ----------------------------------------------------------------------------

def test_dropout_identity_cases_return_the_input():
    x = storch.randn(10)
    F = storch.nn.functional
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 0.5, training=False) is x
    np.testing.assert_array_equal(to_numpy(F.dropout(x, 1.0)), np.zeros(10, dtype=np.float32))
    for p in (-0.1, 1.5, True):
        with pytest.raises(ValueError, match="probability"):
            F.dropout(x, p)


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_scales_kept_values_and_their_gradient(p):
    storch.manual_seed(0)
    x = storch.ones(20000, dtype=storch.float64, requires_grad=True)
    y = storch.nn.functional.dropout(x, p)
    y.sum().backward()
    v = to_numpy(y)
    kept = v != 0
    np.testing.assert_allclose(v[kept], 1.0 / (1.0 - p), rtol=1e-12)
    np.testing.assert_array_equal(to_numpy(x.grad), v)  # d(x * mask)/dx = mask
    frac = kept.mean()
    assert abs(frac - (1 - p)) < 5 * np.sqrt(p * (1 - p) / v.size)


def test_dropout_inplace_writes_the_input():
    x = storch.ones(1000)
    v = x._version
    y = storch.nn.functional.dropout(x, 0.5, inplace=True)
    assert y is x and x._version > v
    assert set(np.unique(to_numpy(x)).tolist()) <= {0.0, 2.0}


# --- losses -----------------------------------------------------------------------------

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kw", [("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {}),
                                     ("smooth_l1_loss", {"beta": 0.5}), ("smooth_l1_loss", {"beta": 0.0}),
                                     ("huber_loss", {}), ("huber_loss", {"delta": 0.3})])
def test_regression_losses(name, kw, reduction, dtype):
    def build(lib, T, rng):
        return getattr(lib.nn.functional, name)(T(rng.standard_normal((4, 3)), grad=True),
                                                T(rng.standard_normal((4, 3)), grad=True),
                                                reduction=reduction, **kw)
    check(build, dtype)


def test_bad_reduction_and_legacy_arguments():
    F = storch.nn.functional
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(storch.ones(2), storch.ones(2), reduction="avg")
    a, b = np.array([1.0, 3.0]), np.array([0.0, 1.0])
    for sa, red in [(False, None), (None, False)]:
        with pytest.warns(UserWarning):
            got = F.mse_loss(strided.asarray(a), strided.asarray(b), size_average=sa, reduce=red)
        with pytest.warns(UserWarning):
            ref = torch.nn.functional.mse_loss(torch.from_numpy(a), torch.from_numpy(b),
                                               size_average=sa, reduce=red)
        np.testing.assert_allclose(to_numpy(got), ref.numpy())


def _targets(rng, n, c, ignore=None):
    t = rng.integers(0, c, n)
    if ignore is not None:
        t[::3] = ignore
    return t


CE_CASES = [
    dict(), dict(weight=True), dict(ignore_index=2), dict(ignore=-100),
    dict(weight=True, ignore=-100), dict(label_smoothing=0.1), dict(label_smoothing=0.3, weight=True),
    dict(label_smoothing=0.2, ignore=-100), dict(label_smoothing=0.2, ignore=-100, weight=True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", CE_CASES, ids=str)
@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 5), (4,)], ids=str)
def test_cross_entropy_with_class_indices(case, reduction, dtype, shape):
    case = dict(case)
    ignore = case.pop("ignore", None)
    use_w = case.pop("weight", False)

    def build(lib, T, rng):
        c = shape[0] if len(shape) == 1 else shape[1]
        tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
        t = rng.integers(0, c, tshape)
        if ignore is not None and t.ndim:
            t.reshape(-1)[::3] = ignore
        kw = dict(case)
        if use_w:
            kw["weight"] = T(rng.uniform(0.5, 2.0, c))
        if ignore is not None:
            kw["ignore_index"] = ignore
        return lib.nn.functional.cross_entropy(T(rng.standard_normal(shape) * 2, grad=True),
                                               T(t), reduction=reduction, **kw)
    check(build, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", [dict(), dict(weight=True), dict(label_smoothing=0.25),
                                  dict(weight=True, label_smoothing=0.1)], ids=str)
@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 4)], ids=str)
def test_cross_entropy_with_probabilities(case, reduction, dtype, shape):
    def build(lib, T, rng):
        p = rng.uniform(size=shape)
        p = p / p.sum(axis=1, keepdims=True)
        kw = dict(label_smoothing=case.get("label_smoothing", 0.0))
        if case.get("weight"):
            kw["weight"] = T(rng.uniform(0.5, 2.0, shape[1]))
        return lib.nn.functional.cross_entropy(T(rng.standard_normal(shape), grad=True),
                                               T(p, grad=True), reduction=reduction, **kw)
    check(build, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", [dict(), dict(weight=True), dict(ignore=1), dict(ignore=1, weight=True)],
                         ids=str)
def test_nll_loss(case, reduction, dtype):
    def build(lib, T, rng):
        t = rng.integers(0, 4, (6, 3))
        kw = {}
        if "ignore" in case:
            kw["ignore_index"] = case["ignore"]
        if case.get("weight"):
            kw["weight"] = T(rng.uniform(0.5, 2.0, 4))
        logp = lib.log_softmax(T(rng.standard_normal((6, 4, 3)), grad=True), 1)
        return lib.nn.functional.nll_loss(logp, T(t), reduction=reduction, **kw)
    check(build, dtype)


def test_nll_loss_all_ignored_is_nan_like_pytorch():
    def build(lib, T, rng):
        return lib.nn.functional.nll_loss(T(rng.standard_normal((3, 2)), grad=True),
                                          T(np.array([-100, -100, -100])))
    (rv, _, _), (sv, _, _) = __import__("_parity").run(build, backward=False)
    assert np.isnan(rv) and np.isnan(sv)


def test_class_target_errors():
    F = storch.nn.functional
    x = storch.zeros(3, 4)
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(x, storch.tensor([0, 4, 1]))
    with pytest.raises(IndexError, match="out of bounds"):
        F.nll_loss(x, storch.tensor([0, -1, 1]))
    with pytest.raises(ValueError, match="shape"):
        F.cross_entropy(x, storch.tensor([0, 1]))
    with pytest.raises(ValueError, match="shape"):
        F.cross_entropy(x, storch.zeros(3, 5))
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(x, storch.tensor([0, 1, 2]), label_smoothing=1.5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [False, True])
def test_binary_cross_entropy(reduction, weight, dtype):
    def build(lib, T, rng):
        x = T(rng.uniform(0.02, 0.98, (4, 3)), grad=True)
        kw = {"weight": T(rng.uniform(0.5, 2, (4, 3)))} if weight else {}
        return lib.nn.functional.binary_cross_entropy(x, T(rng.uniform(size=(4, 3)), grad=True),
                                                      reduction=reduction, **kw)
    check(build, dtype)


def test_binary_cross_entropy_clamps_logs_and_checks_its_input():
    def build(lib, T, rng):
        return lib.nn.functional.binary_cross_entropy(T(np.array([0.0, 1.0, 0.5])),
                                                      T(np.array([1.0, 0.0, 0.5])), reduction="none")
    check(build, backward=False)
    with pytest.raises(ValueError, match="between 0 and 1"):
        storch.nn.functional.binary_cross_entropy(storch.tensor([1.5]), storch.tensor([1.0]))
    with pytest.raises(ValueError, match="size"):
        storch.nn.functional.binary_cross_entropy(storch.tensor([0.5]), storch.tensor([1.0, 0.0]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", [dict(), dict(weight=True), dict(pos_weight=True),
                                  dict(weight=True, pos_weight=True)], ids=str)
def test_binary_cross_entropy_with_logits(case, reduction, dtype):
    def build(lib, T, rng):
        x = T(rng.standard_normal((4, 3)) * 5, grad=True)
        kw = {}
        if case.get("weight"):
            kw["weight"] = T(rng.uniform(0.5, 2, (4, 3)))
        if case.get("pos_weight"):
            kw["pos_weight"] = T(rng.uniform(0.5, 3, 3))  # not differentiable in PyTorch
        return lib.nn.functional.binary_cross_entropy_with_logits(
            x, T(rng.uniform(size=(4, 3)), grad=True), reduction=reduction, **kw)
    check(build, dtype)


# --- utilities --------------------------------------------------------------------------

@pytest.mark.parametrize("data,nc", [([0, 2, 1], -1), ([[0, 1], [3, 2]], 5), ([], 3)])
def test_one_hot(data, nc):
    t = np.array(data, dtype=np.int64)
    ref = torch.nn.functional.one_hot(torch.from_numpy(t), nc)
    got = storch.nn.functional.one_hot(strided.asarray(t), nc)
    assert got.dtype == storch.int64
    np.testing.assert_array_equal(to_numpy(got), ref.numpy())


def test_one_hot_errors():
    F = storch.nn.functional
    with pytest.raises(ValueError, match="smaller than num_classes"):
        F.one_hot(storch.tensor([0, 3]), 3)
    with pytest.raises(ValueError, match="non-negative"):
        F.one_hot(storch.tensor([-1, 0]))
    with pytest.raises(TypeError, match="integers"):
        F.one_hot(storch.tensor([0.0]))


PADS = [("constant", (1, 2), {}), ("constant", (1, 2, 0, 3), {"value": 2.5}),
        ("constant", (-1, 1), {}), ("constant", (2, -2, 1, 0), {}),
        ("reflect", (2, 1), {}), ("reflect", (1, 3, 2, 0), {}),
        ("replicate", (3, 1), {}), ("replicate", (2, 2, 1, 1), {}),
        ("circular", (2, 1), {}), ("circular", (1, 4, 2, 1), {})]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode,pad,kw", PADS, ids=str)
def test_pad(mode, pad, kw, dtype):
    shape = (2, 3, 4) if mode == "constant" else ((2, 3, 4) if len(pad) == 2 else (1, 2, 3, 4))
    check(lambda lib, T, rng: lib.nn.functional.pad(T(rng.standard_normal(shape), grad=True), pad,
                                                   mode=mode, **kw), dtype)


def test_pad_errors():
    F = storch.nn.functional
    with pytest.raises(RuntimeError, match="even"):
        F.pad(storch.ones(3), (1,))
    with pytest.raises(RuntimeError, match="smaller than the size"):
        F.pad(storch.ones(1, 3), (3, 0), mode="reflect")
    with pytest.raises(ValueError, match="mode"):
        F.pad(storch.ones(3), (1, 1), mode="wrap")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0), (3.0, 1), (float("inf"), 1), (2.0, -1)])
def test_normalize(p, dim, dtype):
    check(lambda lib, T, rng: lib.nn.functional.normalize(T(rng.standard_normal((4, 5)), grad=True),
                                                         p=p, dim=dim), dtype)


def test_normalize_out_as_pytorch():
    # out= is the division's own (it was a copy after the call, which recorded a graph
    # PyTorch refuses to record)
    x = np.array([[3.0, 4.0], [0.0, 1e-20]], dtype=np.float32)
    for lib, T in ((torch, torch.from_numpy), (storch, strided.asarray)):
        out = lib.empty(2, 2)
        assert lib.nn.functional.normalize(T(x.copy()), out=out) is out
        np.testing.assert_allclose(to_numpy(out), torch.nn.functional.normalize(torch.from_numpy(x)).numpy())
        a = T(x.copy()).requires_grad_()
        with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
            lib.nn.functional.normalize(a, out=lib.empty(2, 2))


def test_signs_of_zero_follow_pytorch():
    x = np.array([-4.0, -3.0, -0.0, 0.0, 4.0])
    # (relu is strided.relu, whose -0. is +0.: the "speed" work's registry row decides it.)
    for name in ("hardswish", "hardsigmoid", "leaky_relu", "elu", "silu", "hardtanh"):
        ref = getattr(torch.nn.functional, name)(torch.from_numpy(x)).numpy()
        got = to_numpy(getattr(storch.nn.functional, name)(strided.asarray(x)))
        np.testing.assert_array_equal(np.signbit(got), np.signbit(ref), err_msg=name)
