"""The parametric activation rows (``leaky_relu``, ``elu``, ``celu``, ``selu``, ``hardtanh``,
``softplus``, ``gelu``: rows of the elementwise registry whose PyTorch parameters are
declared in the row): values and gradients against PyTorch 2.13 for float32/float64 at
several parameter values, with NaN, signed zeros, infinities, softplus's threshold branch
and gelu's two forms; any shape and layout (Hypothesis); the binding of the parameters
(positional, keyword, inspect.signature, errors); the in-place forms (``x.leaky_relu_()``,
``F.leaky_relu(x, inplace=True)``) through the one writer (version counter, autograd)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp

from conftest import host

torch = pytest.importorskip("torch")
F = torch.nn.functional
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# name -> [(positional parameters, PyTorch's call)]
CASES = {
    "leaky_relu": [((), F.leaky_relu), ((0.2,), lambda t: F.leaky_relu(t, 0.2)),
                   ((-0.5,), lambda t: F.leaky_relu(t, -0.5)), ((0.0,), lambda t: F.leaky_relu(t, 0.0))],
    "elu": [((), F.elu), ((0.5,), lambda t: F.elu(t, 0.5)), ((2.0,), lambda t: F.elu(t, 2.0))],
    "celu": [((), F.celu), ((0.5,), lambda t: F.celu(t, 0.5)), ((-2.0,), lambda t: F.celu(t, -2.0))],
    "selu": [((), F.selu)],
    "hardtanh": [((), F.hardtanh), ((0.0, 6.0), lambda t: F.hardtanh(t, 0.0, 6.0)),
                 ((-2.5, -0.5), lambda t: F.hardtanh(t, -2.5, -0.5)), ((1.0, 1.0), lambda t: F.hardtanh(t, 1.0, 1.0))],
    "softplus": [((), F.softplus), ((2.0, 1.0), lambda t: F.softplus(t, 2.0, 1.0)),
                 ((0.5, 20.0), lambda t: F.softplus(t, 0.5, 20.0)), ((-1.0, 5.0), lambda t: F.softplus(t, -1.0, 5.0))],
    "gelu": [((), F.gelu), (("tanh",), lambda t: F.gelu(t, approximate="tanh"))],
}
FLAT = [(n, p, tf) for n, cases in CASES.items() for p, tf in cases]
IDS = [f"{n}{list(p)}" for n, p, _ in FLAT]

SPECIAL = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -1.0, 0.5, -0.5, 6.0, -2.5, 2.0, 10.0,
           20.0, 20.5, 19.5, 40.0, -40.0, 88.0, -88.0, 100.0, -100.0, 1e-30, -1e-30, 3e38, -3e38, -6.0]
# (a float32 subnormal only on the host: a GPU flushes them, as the CuPy stand-in does)
SUBNORMAL = [1e-40, -1e-40] if xp.get_default_device().type == "cpu" else []
SPECIAL += SUBNORMAL


def _same(got, want, dt, what, ulps=8, x=None, zeros=True):
    """Equal to PyTorch's: NaN where it has NaN, the sign of every zero, a few ulp elsewhere.
    ``x``: the input, where the formula cancels (gelu's ``1 + erf`` for x < 0): then the
    error bound is a few ulp of ``|x|`` (PyTorch's float erf/tanh are not SciPy's/NumPy's)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg=f"{what}: NaN positions")
    g, w = got[~nan], want[~nan]
    eps = np.finfo(dt).eps
    if x is not None:
        scale = np.abs(np.asarray(x, dtype=np.float64)[~nan])
        scale[~np.isfinite(scale)] = 0
        ok = (g == w) | (np.abs(g.astype(np.float64) - w) <= ulps * eps * np.maximum(np.abs(w), scale))
        assert ok.all(), (what, np.asarray(x)[~nan][~ok], g[~ok], w[~ok])
    else:
        np.testing.assert_allclose(g, w, rtol=ulps * eps, atol=np.finfo(dt).tiny * 4, err_msg=what)
    if zeros:
        zero = w == 0
        np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]), err_msg=f"{what}: signed zeros")


def _torch_grad(tf, a, u):
    t = torch.from_numpy(a.copy()).requires_grad_()
    tf(t).backward(torch.from_numpy(u.copy()))
    return t.grad.numpy()


def _our_grad(name, params, a, u):
    x = xp.asarray(a.copy(), device="cpu").requires_grad_()
    getattr(xp, name)(x, *params).backward(xp.asarray(u, device="cpu"))
    return host(x.grad)


@pytest.mark.parametrize("name,params,tf", FLAT, ids=IDS)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_special_values_match_torch(name, params, tf, dt):
    a = np.array(SPECIAL, dtype=dt)
    want = tf(torch.from_numpy(a.copy())).numpy()
    _same(host(getattr(xp, name)(xp.asarray(a), *params)), want, dt, name, x=a if name == "gelu" else None)


@pytest.mark.parametrize("name,params,tf", FLAT, ids=IDS)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_gradients_match_torch(name, params, tf, dt):
    # the special values too: the gradient at the kinks, at NaN and at the infinities is PyTorch's
    # (at NaN: its vectorised loop's, where the special values lie; its scalar tail differs)
    rng = np.random.default_rng(5)
    a = np.concatenate([np.array(SPECIAL, dtype=dt), rng.uniform(-8, 8, 64).astype(dt)])
    u = rng.standard_normal(a.shape).astype(dt)
    # (the gradient's formulas cancel too: compared relative to |x| + 1 times |u|)
    _same(_our_grad(name, params, a, u), _torch_grad(tf, a, u), dt, f"{name} gradient", ulps=16,
          x=(np.abs(a) + 1) * np.abs(u), zeros=False)  # (an underflowed gradient's sign is noise)


@settings(max_examples=40, deadline=None)
@given(a=hnp.arrays(st.sampled_from([np.float32, np.float64]), hnp.array_shapes(min_dims=0, max_dims=4, max_side=5),
                    elements=st.floats(-50, 50, width=32, allow_subnormal=bool(SUBNORMAL))),
       case=st.sampled_from(FLAT), view=st.sampled_from(["plain", "T", "flip", "step"]))
def test_any_shape_and_layout_matches_torch(a, case, view):
    name, params, tf = case
    x = xp.asarray(a)
    t = torch.from_numpy(a.copy())
    if view == "T" and a.ndim >= 2:
        x, t = xp.matrix_transpose(x), t.mT
    elif view == "flip" and a.ndim >= 1:
        x, t = xp.flip(x, axis=0), torch.flip(t, (0,))
    elif view == "step" and a.ndim >= 1:
        x, t = x[::2], t[::2]
    got = getattr(xp, name)(x, *params)
    assert got.shape == tuple(t.shape)
    want = tf(t).numpy()
    if not SUBNORMAL:  # (a device that flushes subnormal results to zero, as a GPU does)
        want = np.where(np.abs(want) < np.finfo(a.dtype).tiny, np.copysign(0, want), want).astype(a.dtype)
    # (PyTorch's float32 gelu of one element takes its scalar path, and of a non-contiguous
    # tensor ATen's loop, whose zeros' signs differ from the oneDNN loop's that it runs on a
    # contiguous tensor, which strided follows)
    _same(host(got), want, a.dtype.type, name, x=t.numpy() if name == "gelu" else None,
          zeros=not (name == "gelu" and a.dtype == np.float32 and (a.size < 2 or not t.is_contiguous())))


def test_float16_is_computed_in_float32_and_rounded_once():
    a = np.linspace(-6, 6, 97).astype(np.float16)
    for name, params, tf in FLAT:
        got = host(getattr(xp, name)(xp.asarray(a), *params))
        assert got.dtype == np.float16
        np.testing.assert_allclose(got.astype(np.float32), tf(torch.from_numpy(a.copy())).numpy().astype(np.float32),
                                   rtol=2e-3, atol=1e-3, err_msg=name)


def test_parameters_bind_positionally_and_by_keyword():
    x = xp.asarray([-2.0, 0.5, 30.0])
    assert str(inspect.signature(xp.leaky_relu)) == "(x, /, negative_slope=0.01, *, out=None)"
    assert str(inspect.signature(xp.softplus)) == "(x, /, beta=1.0, threshold=20.0, *, out=None)"
    assert str(inspect.signature(xp.gelu)) == "(x, /, approximate='none', *, out=None)"
    assert str(inspect.signature(xp.hardtanh)) == "(x, /, min_val=-1.0, max_val=1.0, *, out=None)"
    want = F.softplus(torch.tensor([-2.0, 0.5, 30.0]), 2.0, 1.0).numpy()
    for got in (xp.softplus(x, 2.0, 1.0), xp.softplus(x, 2.0, threshold=1.0), xp.softplus(x, beta=2, threshold=1)):
        np.testing.assert_allclose(host(got), want, rtol=1e-6)
    np.testing.assert_array_equal(host(x.leaky_relu(0.5)), [-1.0, 0.5, 30.0])
    np.testing.assert_array_equal(host(x.hardtanh(min_val=0.0, max_val=6.0)), [0.0, 0.5, 6.0])


@pytest.mark.parametrize("call,exc,words", [
    (lambda x: xp.leaky_relu(x, 0.1, 0.2), TypeError, "positional"),
    (lambda x: xp.leaky_relu(x, 0.1, negative_slope=0.2), TypeError, "multiple values"),
    (lambda x: xp.leaky_relu(x, slope=0.2), TypeError, "slope"),
    (lambda x: xp.leaky_relu(x, "a"), TypeError, "negative_slope must be a real number"),
    (lambda x: xp.gelu(x, "erf"), ValueError, "'none' or 'tanh'"),
    (lambda x: xp.gelu(x, approximate=None), ValueError, "'none' or 'tanh'"),
    (lambda x: xp.hardtanh(x, 2.0, 1.0), ValueError, "min_val cannot be greater than max_val"),
    (lambda x: xp.celu(x, 0.0), ValueError, "alpha must not be 0"),
    (lambda x: xp.elu(xp.asarray([1, 2])), TypeError, "int64"),
    (lambda x: x.softplus(beta=[1.0]), TypeError, "beta"),
])
def test_bad_parameters_raise_naming_them(call, exc, words):
    x = xp.asarray([1.0, -1.0])
    before = host(x).copy()
    with pytest.raises(exc, match=words):
        call(x)
    np.testing.assert_array_equal(host(x), before)


@pytest.mark.parametrize("name,params,tf", FLAT, ids=IDS)
def test_out_and_in_place_forms(name, params, tf):
    a = np.linspace(-4, 4, 12).reshape(3, 4)
    want = tf(torch.from_numpy(a.copy())).numpy()
    out = xp.empty((3, 4), dtype=xp.float64)
    r = getattr(xp, name)(xp.asarray(a), *params, out=out)
    assert r is out
    np.testing.assert_allclose(host(out), want, rtol=1e-14, atol=1e-15)
    x = xp.asarray(a.copy())
    v = x._version
    assert getattr(x, name + "_")(*params) is x
    assert x._version > v
    np.testing.assert_allclose(host(x), want, rtol=1e-14, atol=1e-15)
    # a view: written through into its base
    base = xp.asarray(np.zeros((3, 8)))
    base[:, ::2] = xp.asarray(a)
    getattr(base[:, ::2], name + "_")(*params)
    np.testing.assert_allclose(host(base[:, ::2]), want, rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(host(base[:, 1::2]), 0.0)


@pytest.mark.parametrize("fname,args", [("leaky_relu", (0.2,)), ("elu", (0.5,)), ("celu", (2.0,)),
                                        ("selu", ()), ("hardtanh", (-0.5, 0.5)), ("relu6", ())])
def test_functional_in_place_gradients_match_torch(fname, args):
    import strided.torch as storch
    a = np.random.default_rng(3).uniform(-3, 3, (4, 5))
    u = np.random.default_rng(4).standard_normal((4, 5))
    t = torch.from_numpy(a.copy()).requires_grad_()
    ty = getattr(F, fname)(t * 1.0, *args, inplace=True)
    ty.backward(torch.from_numpy(u))
    x = xp.asarray(a.copy()).requires_grad_()
    h = x * 1.0
    v = h._version
    y = getattr(storch.nn.functional, fname)(h, *args, inplace=True)
    assert y is h and h._version > v
    np.testing.assert_allclose(host(y.detach()), ty.detach().numpy(), rtol=1e-13)
    y.backward(xp.asarray(u))
    np.testing.assert_allclose(host(x.grad), t.grad.numpy(), rtol=1e-12)
    # a leaf that requires grad can't be written in place (PyTorch's error)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        getattr(storch.nn.functional, fname)(x, *args, inplace=True)


def test_second_derivatives_match_torch():
    a = np.linspace(-3, 3, 12)  # (not 0: the kink of elu and its kin)
    for name, params, tf in FLAT:
        if name in ("hardtanh", "leaky_relu"):
            continue  # piecewise linear: the second derivative is 0 (PyTorch's gradient has no graph)
        t = torch.from_numpy(a.copy()).requires_grad_()
        (gt,) = torch.autograd.grad(tf(t).sum(), t, create_graph=True)
        (ggt,) = torch.autograd.grad(gt.sum(), t)
        x = xp.asarray(a.copy()).requires_grad_()
        (g,) = xp.autograd.grad(getattr(xp, name)(x, *params).sum(), x, create_graph=True)
        (gg,) = xp.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(host(gg), ggt.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
