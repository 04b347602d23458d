"""relu, sigmoid and silu (rows of the elementwise registry with kernels of their own):
values and gradients against PyTorch, on every layout and size class (below and above the
buffer pool's and the threads' thresholds, the in-cache blocks of sigmoid/silu), with NaN,
signed zeros and infinities, and gradients against finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp

from conftest import host

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

@pytest.fixture
def restore_settings():
    saved = (xp.get_num_threads(), xp.get_thread_threshold(), xp.get_pool_threshold())
    yield
    xp.set_num_threads(saved[0])
    xp.set_thread_threshold(saved[1])
    xp.set_pool_threshold(saved[2])


TORCH = {"relu": torch.relu, "sigmoid": torch.sigmoid, "silu": torch.nn.functional.silu}
SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 88.0, -88.0, 1000.0, -1000.0, 30.0, -30.0,
           1e-30, -1e-30, 3e38, -3e38]


def _same(got, want, dt, name):
    """Equal to PyTorch's values: NaN where it has NaN (any sign), the sign of every zero,
    and within a few ulp elsewhere (PyTorch's vectorised exp is not NumPy's)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg=f"{name}: NaN positions")
    g, w = got[~nan], want[~nan]
    if name == "relu":  # exact, zeros' signs included
        np.testing.assert_array_equal(g, w, err_msg=name)
    else:
        tol = 4 * np.finfo(dt).eps
        np.testing.assert_allclose(g, w, rtol=tol, atol=np.finfo(dt).tiny, err_msg=name)
    zero = w == 0
    np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]), err_msg=f"{name}: signed zeros")


@pytest.mark.parametrize("name", sorted(TORCH))
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_special_values_match_torch(name, dt):
    a = np.array(SPECIAL, dtype=dt)
    _same(host(getattr(xp, name)(xp.asarray(a))), TORCH[name](torch.from_numpy(a.copy())).numpy(), dt, name)


@pytest.mark.parametrize("name", sorted(TORCH))
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 4095, 4097, 65536, 100_003])
def test_sizes_and_layouts_match_torch(name, dt, n, restore_settings):
    # sizes around the constant block (4096), the in-cache blocks and the pool threshold
    rng = np.random.default_rng(n)
    a = rng.standard_normal(2 * n).astype(dt) * 10
    a[::17] = -0.0
    a[::29] = np.nan
    for thr in (256 << 10, 1):
        xp.set_pool_threshold(thr)
        xp.set_thread_threshold(thr)
        for nt in (1, 2):
            xp.set_num_threads(nt)
            for view, ref in ((xp.asarray(a)[:n], a[:n]), (xp.asarray(a)[::2], a[::2]),
                              (xp.asarray(a)[::-1][:n], a[::-1][:n])):
                before = host(view).copy()
                got = host(getattr(xp, name)(view))
                _same(got, TORCH[name](torch.from_numpy(ref.copy())).numpy(), dt, f"{name} n={n} thr={thr}")
                np.testing.assert_array_equal(host(view), before)  # the input is untouched


@settings(max_examples=40, deadline=None)
@given(a=hnp.arrays(st.sampled_from([np.float32, np.float64]), hnp.array_shapes(min_dims=0, max_dims=3, max_side=6),
                    elements=st.floats(allow_nan=True, allow_infinity=True, width=32)),
       name=st.sampled_from(sorted(TORCH)))
def test_any_shape_matches_torch(a, name):
    _same(host(getattr(xp, name)(xp.asarray(a))), TORCH[name](torch.from_numpy(a.copy())).numpy(), a.dtype, name)


def test_integers_and_bools():
    i = np.arange(-3, 4, dtype=np.int32)
    r = xp.relu(xp.asarray(i))
    assert r.dtype == xp.int32 and host(r).tolist() == torch.relu(torch.from_numpy(i)).tolist()
    s = xp.sigmoid(xp.asarray(i))
    assert s.dtype == xp.get_default_dtype()  # PyTorch: integers give the default float
    np.testing.assert_allclose(host(s), torch.sigmoid(torch.from_numpy(i)).numpy(), rtol=1e-6)
    for name in TORCH:
        with pytest.raises(TypeError, match=name):
            getattr(xp, name)(xp.asarray([True, False]))


@pytest.mark.parametrize("name", sorted(TORCH))
def test_methods_and_in_place(name):
    a = np.array([-2.0, -0.0, 0.5, np.nan], dtype=np.float32)
    want = TORCH[name](torch.from_numpy(a.copy())).numpy()
    x = xp.asarray(a.copy())
    _same(host(getattr(x, name)()), want, np.float32, name)
    y = getattr(x, name + "_")()
    assert y is x
    _same(host(x), want, np.float32, name)


@pytest.mark.parametrize("name", sorted(TORCH))
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_gradients_match_torch(name, dt):
    # relu's gradient at 0 (either sign) is 0 and passes NaN's incoming gradient, as PyTorch's
    a = np.array([-3.0, -1e-3, -0.0, 0.0, 1e-3, 2.0, 40.0, -40.0, np.inf, -np.inf], dtype=dt)
    if name == "relu":
        a = np.append(a, np.nan).astype(dt)
    u = np.linspace(-1, 1, a.size).astype(dt)
    x = xp.asarray(a.copy(), requires_grad=True)
    getattr(xp, name)(x).backward(xp.asarray(u))
    t = torch.from_numpy(a.copy()).requires_grad_(True)
    TORCH[name](t).backward(torch.from_numpy(u))
    _same(host(x.grad), t.grad.numpy(), dt, f"d{name}")


@pytest.mark.parametrize("name", sorted(TORCH))
def test_gradients_match_finite_differences(name):
    rng = np.random.default_rng(5)
    a = rng.uniform(-5, 5, (3, 4))
    a[np.abs(a) < 0.05] += 0.2  # away from relu's kink
    x = xp.asarray(a, requires_grad=True)
    getattr(xp, name)(x).sum().backward()
    h = 1e-6
    f = {"relu": lambda v: np.maximum(v, 0), "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
         "silu": lambda v: v / (1 + np.exp(-v))}[name]
    fd = (f(a + h) - f(a - h)) / (2 * h)
    np.testing.assert_allclose(host(x.grad), fd, rtol=1e-6, atol=1e-8)


def test_second_derivative_of_sigmoid():
    a = np.linspace(-4, 4, 9)
    x = xp.asarray(a, requires_grad=True)
    (g,) = xp.autograd.grad(xp.sigmoid(x).sum(), x, create_graph=True)
    g.sum().backward()
    t = torch.from_numpy(a.copy()).requires_grad_(True)
    (tg,) = torch.autograd.grad(torch.sigmoid(t).sum(), t, create_graph=True)
    tg.sum().backward()
    np.testing.assert_allclose(host(x.grad), t.grad.numpy(), rtol=1e-12, atol=1e-14)
