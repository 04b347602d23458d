"""strided.torch's glu, hardshrink, softshrink, threshold(_), rrelu(_), prelu, celu_, selu_,
gumbel_softmax and their modules against PyTorch 2.13: deterministic ones by values and
gradients (_parity.check), the random ones (rrelu while training, gumbel_softmax) by their
properties and distributions."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch
from _parity import check, to_numpy

DTYPES = ["float32", "float64"]


def _x(rng, shape, scale=2.0):
    x = rng.standard_normal(shape) * scale
    return np.where(np.abs(np.abs(x) - 0.5) < 1e-3, 0.7, x)  # off the kinks at +-0.5


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((4,), -1), ((3, 4), 1), ((4, 3), 0), ((2, 6, 2), -2),
                                       ((2, 2, 4), 2)])
def test_glu(shape, dim, dtype):
    check(lambda lib, T, rng: lib.nn.functional.glu(T(_x(rng, shape), grad=True), dim), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["hardshrink", "softshrink"])
@pytest.mark.parametrize("lambd", [0.5, 0.0, 1.3])
@pytest.mark.parametrize("shape", [(7,), (3, 4), ()])
def test_shrinks(name, lambd, shape, dtype):
    def build(lib, T, rng):
        x = _x(rng, shape)
        if x.ndim and lambd:
            x.flat[0] = lambd  # at the threshold itself: 0, gradient 0 (both kernels)
        return getattr(lib.nn.functional, name)(T(x, grad=True), lambd)
    check(build, dtype)


def test_hardshrink_negative_lambda_and_noncontiguous():
    def build(lib, T, rng):
        x = T(_x(rng, (4, 6)), grad=True)
        return lib.nn.functional.hardshrink(x[:, ::2].T, -0.3) + lib.hardshrink(x[::2], 0.9).sum()
    check(build, "float64")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("th,value", [(0.5, 20.0), (-1.0, -3.0), (0.0, 0.0)])
def test_threshold(th, value, dtype):
    def build(lib, T, rng):
        x = _x(rng, (3, 5))
        x[0, 0] = th  # x <= threshold takes value
        return lib.nn.functional.threshold(T(x, grad=True), th, value)
    check(build, dtype)


def test_threshold_integer_and_inplace():
    for x in ([1, 2, 3, -4], [1.5, -2.0, 0.5]):
        tr = torch.tensor(x)
        st = storch.tensor(x)
        r_t = torch.nn.functional.threshold(tr, 1.5, 7.9)
        r_s = storch.nn.functional.threshold(st, 1.5, 7.9)
        assert str(r_s.dtype) == str(r_t.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(to_numpy(r_s), to_numpy(r_t))
        out = storch.nn.functional.threshold_(st, 1.5, 7.9)
        torch.nn.functional.threshold_(tr, 1.5, 7.9)
        assert out is st
        np.testing.assert_array_equal(to_numpy(st), to_numpy(tr))

    def build(lib, T, rng):  # in place on a non-leaf: gradients through the write
        x = T(_x(rng, (3, 4)), grad=True)
        y = x * 2.0
        lib.nn.functional.threshold(y, 0.3, -1.0, inplace=True)
        z = x + 1.0
        lib.threshold_(z, 0.5, 0.0)
        return y + z
    check(build, "float64")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower,upper", [(1 / 8, 1 / 3), (0.1, 0.1), (0.0, 0.9)])
def test_rrelu_eval(lower, upper, dtype):
    def build(lib, T, rng):
        x = T(_x(rng, (4, 5)), grad=True)
        return lib.nn.functional.rrelu(x, lower, upper) + lib.rrelu(x * 2, lower, upper, False)
    check(build, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rrelu_training_properties(dtype):
    lower, upper = 0.1, 0.4
    rng = np.random.default_rng(0)
    xn = _x(rng, (200, 50)).astype(dtype)
    xn[0, :3] = 0.0
    x = storch.tensor(xn, requires_grad=True)
    y = storch.nn.functional.rrelu(x, lower, upper, training=True)
    y.sum().backward()
    yv, g = to_numpy(y), to_numpy(x.grad)
    pos = xn > 0
    np.testing.assert_array_equal(yv[pos], xn[pos])  # positive: unchanged, gradient 1
    np.testing.assert_array_equal(g[pos], 1.0)
    slope = yv[xn < 0] / xn[xn < 0]
    assert slope.min() >= lower - 1e-6 and slope.max() <= upper + 1e-6
    # the gradient is the drawn slope itself (PyTorch's noise); x == 0 gets a slope too
    np.testing.assert_allclose(g[xn < 0], slope, rtol=1e-5)
    assert np.all((g[0, :3] >= lower) & (g[0, :3] <= upper))
    # U(lower, upper): mean and spread of ~5000 draws
    assert abs(slope.mean() - (lower + upper) / 2) < 0.01
    assert abs(slope.std() - (upper - lower) / np.sqrt(12)) < 0.01
    assert len(np.unique(slope)) > 0.9 * slope.size  # one draw per element


def test_rrelu_inplace_and_module():
    x = storch.tensor([-1.0, 2.0, -3.0])
    r = storch.nn.functional.rrelu_(x, 0.2, 0.4, training=True)
    assert r is x and x[1].item() == 2.0 and -1.2 - 1e-6 <= x[2].item() <= -0.6 + 1e-6
    for L in (torch, storch):
        m = L.nn.RReLU(0.2, 0.4)
        xe = L.tensor([-1.0, 2.0])
        m.eval()
        np.testing.assert_allclose(to_numpy(m(xe)), [-0.3, 2.0], rtol=1e-6)
        m.train()
        v = to_numpy(m(L.full((100,), -1.0)))
        assert np.all((v <= -0.2 + 1e-6) & (v >= -0.4 - 1e-6)) and np.std(v) > 0
        assert repr(m) == repr(torch.nn.RReLU(0.2, 0.4))
        assert repr(L.nn.RReLU(inplace=True)) == repr(torch.nn.RReLU(inplace=True))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,nw", [((5,), 1), ((3, 4), 1), ((3, 4), 4), ((2, 3, 4), 3),
                                      ((2, 3, 2, 2), 3), ((), 1)])
def test_prelu(shape, nw, dtype):
    def build(lib, T, rng):
        x = T(_x(rng, shape), grad=True)
        w = T(rng.uniform(-0.5, 0.5, nw), grad=True)
        return lib.nn.functional.prelu(x, w) + lib.prelu(x, w) * 0.5
    check(build, dtype)


def test_prelu_module():
    def build(lib, T, rng):
        m = lib.nn.PReLU(3, init=0.1, dtype=lib.float64)
        x = T(_x(rng, (2, 3, 4)), grad=True)
        out = m(x)
        out.sum().backward()
        return lib.cat([out.flatten(), m.weight.grad, m.weight.detach()])
    check(build, "float64", backward=False)
    for L in (torch, storch):
        m = L.nn.PReLU()
        assert list(m.state_dict()) == ["weight"] and tuple(m.weight.shape) == (1,)
        assert abs(m.weight.item() - 0.25) < 1e-7 and repr(m) == "PReLU(num_parameters=1)"
        assert str(m.weight.dtype).removeprefix("torch.") == "float32"


@pytest.mark.parametrize("inplace_name,kw", [("celu_", {"alpha": 1.5}), ("selu_", {})])
def test_celu_selu_inplace(inplace_name, kw):
    def build(lib, T, rng):
        x = T(_x(rng, (3, 4)), grad=True)
        y = x * 1.0
        r = getattr(lib.nn.functional, inplace_name)(y, **kw)
        assert r is y
        return y
    check(build, "float64")


@pytest.mark.parametrize("dtype", DTYPES)
def test_modules(dtype):
    def build(lib, T, rng):
        nn = lib.nn
        x = T(_x(rng, (2, 4, 3, 2)), grad=True)
        return lib.cat([nn.GLU(1)(x).flatten(), nn.Hardshrink(0.3)(x).flatten(),
                        nn.Softshrink(0.7)(x).flatten(), nn.Threshold(0.2, -2.0)(x).flatten(),
                        nn.Softmax2d()(x).flatten(), nn.Softmax2d()(x[0]).flatten()])
    check(build, dtype)
    for name, args in [("GLU", ()), ("Hardshrink", ()), ("Softshrink", (0.25,)),
                       ("Threshold", (0.1, 20)), ("Threshold", (0.1, 20, True)),
                       ("Softmax2d", ())]:
        assert repr(getattr(storch.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


def test_gumbel_softmax_soft_and_hard():
    rng = np.random.default_rng(1)
    for dtype in (storch.float32, storch.float64):
        logits = storch.tensor(rng.standard_normal((6, 5)), dtype=dtype, requires_grad=True)
        y = storch.nn.functional.gumbel_softmax(logits, tau=0.5)
        assert y.dtype == dtype and tuple(y.shape) == (6, 5)
        np.testing.assert_allclose(to_numpy(y).sum(-1), 1.0, rtol=1e-5)
        assert np.all(to_numpy(y) >= 0)
        h = storch.nn.functional.gumbel_softmax(logits, tau=2.0, hard=True, dim=0)
        hv = to_numpy(h)
        np.testing.assert_allclose(np.sort(hv, 0)[-1], 1.0, rtol=1e-6)
        np.testing.assert_array_equal((np.abs(hv) > 1e-6).sum(0), 1)  # one-hot along dim 0
        # straight through: the gradient is the soft sample's, d sum(w * y_soft) / d logits
        w = storch.tensor(rng.standard_normal((6, 5)), dtype=dtype)
        (h * w).sum().backward()
        g = to_numpy(logits.grad)
        assert np.all(np.isfinite(g)) and np.abs(g).sum() > 0
        np.testing.assert_allclose(g.sum(0), 0.0, atol=1e-5)  # softmax's Jacobian along dim 0


def test_gumbel_softmax_distribution():
    # The argmax of a Gumbel-softmax sample is Categorical(softmax(logits)).
    p = np.array([0.1, 0.2, 0.3, 0.4])
    logits = storch.tensor(np.log(np.tile(p, (20000, 1))))
    h = to_numpy(storch.nn.functional.gumbel_softmax(logits, hard=True))
    freq = h.mean(0)
    np.testing.assert_allclose(freq, p, atol=0.015)
    ref = to_numpy(torch.nn.functional.gumbel_softmax(torch.log(torch.tensor(
        np.tile(p, (20000, 1)))), hard=True)).mean(0)
    np.testing.assert_allclose(freq, ref, atol=0.02)


def test_gumbel_softmax_eps_warns():
    with pytest.warns(UserWarning, match="deprecated"):
        storch.nn.functional.gumbel_softmax(storch.zeros(3), eps=1e-3)


def _errors():
    return [
        ("glu", lambda L: (L.randn(3, 3),), {}, RuntimeError, "Halving dimension must be even"),
        ("glu", lambda L: (L.tensor(1.0),), {}, RuntimeError, "glu does not support scalars"),
        ("softshrink", lambda L: (L.randn(3), -1.0), {}, RuntimeError, "lambda must be in range"),
        ("rrelu", lambda L: (L.randn(3), 0.5, 0.1, True), {}, RuntimeError,
         "Lower bound should be less than or equal to the upper bound"),
        ("prelu", lambda L: (L.randn(2, 5), L.randn(3)), {}, RuntimeError,
         "Mismatch of parameter numbers and input channel size"),
        ("prelu", lambda L: (L.randn(5), L.randn(5)), {}, RuntimeError,
         "Mismatch of parameter numbers and input channel size"),
        ("prelu", lambda L: (L.randn(2, 5), L.randn(5, 1)), {}, RuntimeError,
         "Expected `weight` to be a scalar or 1D tensor"),
        ("prelu", lambda L: (L.randn(2, 5), L.randn(5, dtype=L.float64)), {}, RuntimeError,
         "Type promoting not supported"),
    ]


@pytest.mark.parametrize("i", range(len(_errors())))
def test_errors_as_pytorch(i):
    name, make, kw, exc, frag = _errors()[i]
    for L in (torch, storch):
        with pytest.raises(exc, match=frag):
            getattr(L.nn.functional, name)(*make(L), **kw)
    for L in (torch, storch):
        with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D"):
            L.nn.Softmax2d()(L.zeros(2, 2))


def test_torch_level_signatures():
    x = storch.tensor([-1.0, 0.2, 3.0])
    np.testing.assert_allclose(to_numpy(storch.hardshrink(input=x, lambd=0.1)), [-1.0, 0.2, 3.0])
    with pytest.raises(TypeError, match="out="):
        storch.threshold(x, 0.0, 1.0, out=storch.empty(3))
    with pytest.raises(TypeError, match="generator"):
        storch.rrelu(x, generator=storch.Generator())
