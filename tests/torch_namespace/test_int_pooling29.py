"""Integer images through pooling and nearest resizing, as PyTorch 2.13's CPU kernels take them:
max pooling of every integer dtype (values and indices), average pooling of int64 (the window's
sum divided toward zero, as C divides), ``interpolate``'s nearest modes of uint8 (torchvision's
images), and ``poisson_nll_loss`` of integer counts. Each case runs through torch and strided.torch; values, dtypes and indices must be
equal. Where PyTorch refuses and strided does not follow (uint8 bilinear/bicubic round in fixed
point; integer ``lp_pool`` promotes by norm_type's Python type), strided raises."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import given, settings, strategies as st  # noqa: E402

import strided.torch as S  # noqa: E402

from _parity import to_numpy  # noqa: E402

F, G = torch.nn.functional, S.nn.functional
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def _image(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    lo, hi = (0, 256) if dtype == "uint8" else (-120, 120)
    if dtype == "int64":
        lo, hi = -(2**40), 2**40
    return rng.integers(lo, hi, shape).astype(dtype)


def _same(got, ref):
    if isinstance(ref, tuple):
        assert isinstance(got, tuple) and len(got) == len(ref)
        for g, r in zip(got, ref):
            _same(g, r)
        return
    assert str(got.dtype) == str(ref.dtype).removeprefix("torch."), (got.dtype, ref.dtype)
    assert tuple(got.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(to_numpy(got), ref.numpy())


_MAX_KW = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
           dict(kernel_size=2, stride=1, dilation=2, padding=1)]


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("kw", _MAX_KW, ids=lambda k: "-".join(f"{a}{b}" for a, b in k.items()))
def test_max_pool_of_integers_is_pytorchs(dtype, n, kw):
    x = _image(dtype, (2, 3) + (7, 6, 5)[:n], seed=n)
    ref = getattr(F, f"max_pool{n}d")(torch.from_numpy(x), return_indices=True, **kw)
    got = getattr(G, f"max_pool{n}d")(S.asarray(x), return_indices=True, **kw)
    _same(got, ref)
    if n > 1:
        _same(getattr(G, f"max_pool{n}d")(S.asarray(x), **kw), ref[0])
    else:  # PyTorch's max_pool1d without indices refuses integers (with them it computes)
        with pytest.raises(NotImplementedError):
            F.max_pool1d(torch.from_numpy(x), **kw)
        with pytest.raises(NotImplementedError, match=dtype):
            G.max_pool1d(S.asarray(x), **kw)
    # unbatched
    ref = getattr(F, f"max_pool{n}d")(torch.from_numpy(x[0]), return_indices=True, **kw)
    _same(getattr(G, f"max_pool{n}d")(S.asarray(x[0]), return_indices=True, **kw), ref)


@pytest.mark.parametrize("dtype", INTS)
def test_max_pool_padding_never_wins_over_the_dtype_minimum(dtype):
    # a window of only padding and the dtype's minimum: the real element's index, not the pad's
    lo = np.iinfo(dtype).min
    x = np.full((1, 1, 3, 3), lo, dtype=dtype)
    ref = F.max_pool2d(torch.from_numpy(x), 2, stride=2, padding=1, return_indices=True)
    _same(G.max_pool2d(S.asarray(x), 2, stride=2, padding=1, return_indices=True), ref)


_AVG_KW = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
           dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("kw", _AVG_KW, ids=lambda k: "-".join(f"{a}{b}" for a, b in k.items()))
def test_int64_avg_pool_divides_toward_zero(n, kw):
    x = np.random.default_rng(n).integers(-50, 50, (2, 3) + (7, 6, 5)[:n])
    ref = getattr(F, f"avg_pool{n}d")(torch.from_numpy(x), **kw)
    _same(getattr(G, f"avg_pool{n}d")(S.asarray(x), **kw), ref)


@pytest.mark.parametrize("divisor", [3, -3, 7])
@pytest.mark.parametrize("n", [2, 3])
def test_int64_avg_pool_divisor_override(n, divisor):
    x = np.random.default_rng(7).integers(-50, 50, (1, 2) + (4, 5, 3)[:n])
    ref = getattr(F, f"avg_pool{n}d")(torch.from_numpy(x), 2, divisor_override=divisor)
    _same(getattr(G, f"avg_pool{n}d")(S.asarray(x), 2, divisor_override=divisor), ref)


def test_int64_avg_pool_wraps_as_int64_sums_do():
    x = np.full((1, 1, 2, 2), 2**62, dtype=np.int64)
    _same(G.avg_pool2d(S.asarray(x), 2), F.avg_pool2d(torch.from_numpy(x), 2))


@settings(max_examples=60, deadline=None)
@given(h=st.integers(1, 9), w=st.integers(1, 9), k=st.integers(1, 4), s=st.integers(1, 3),
       p=st.integers(0, 2), ceil=st.booleans(), incl=st.booleans(), seed=st.integers(0, 2**16))
def test_int_pooling_geometry_is_pytorchs(h, w, k, s, p, ceil, incl, seed):
    x = np.random.default_rng(seed).integers(-1000, 1000, (1, 2, h, w))
    kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil)
    try:
        ref = F.max_pool2d(torch.from_numpy(x.astype(np.int16)), return_indices=True, **kw)
    except RuntimeError:  # (a window larger than the input or padding over half the kernel)
        with pytest.raises(RuntimeError):
            G.max_pool2d(S.asarray(x.astype(np.int16)), return_indices=True, **kw)
        return
    _same(G.max_pool2d(S.asarray(x.astype(np.int16)), return_indices=True, **kw), ref)
    ref = F.avg_pool2d(torch.from_numpy(x), count_include_pad=incl, **kw)
    _same(G.avg_pool2d(S.asarray(x), count_include_pad=incl, **kw), ref)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("how", [dict(scale_factor=1.5), dict(scale_factor=0.6), dict(scale_factor=2),
                                 "size"], ids=str)
def test_uint8_nearest_interpolate_is_pytorchs(mode, n, how):
    x = _image("uint8", (2, 3) + (5, 4, 6)[:n], seed=n)
    kw = dict(size=(7, 3, 4)[:n]) if how == "size" else how
    ref = F.interpolate(torch.from_numpy(x), mode=mode, **kw)
    _same(G.interpolate(S.asarray(x), mode=mode, **kw), ref)


def test_what_strided_does_not_follow_raises():
    x8 = _image("uint8", (1, 3, 5, 4), seed=1)
    for mode in ("bilinear", "bicubic"):  # PyTorch: fixed-point rounding of uint8
        with pytest.raises(NotImplementedError, match="uint8"):
            G.interpolate(S.asarray(x8), scale_factor=2, mode=mode)
    with pytest.raises(NotImplementedError, match="int64"):
        G.lp_pool2d(S.asarray(x8.astype(np.int64)), 2, 2)
    # PyTorch refuses these too
    with pytest.raises(NotImplementedError, match="int32"):  # nearest: uint8 the one integer
        G.interpolate(S.asarray(x8.astype(np.int32)), scale_factor=2)
    with pytest.raises(NotImplementedError):
        F.interpolate(torch.from_numpy(x8.astype(np.int32)), scale_factor=2)
    for dt in ("int32", "uint8"):
        with pytest.raises(NotImplementedError, match=dt):
            G.avg_pool2d(S.asarray(x8.astype(dt)), 2)
        with pytest.raises(NotImplementedError):
            F.avg_pool2d(torch.from_numpy(x8.astype(dt)), 2)
    with pytest.raises(NotImplementedError, match="bool"):
        G.max_pool2d(S.asarray(x8 > 3), 2)
    with pytest.raises(RuntimeError):
        F.max_pool2d(torch.from_numpy(x8 > 3), 2)
    with pytest.raises(NotImplementedError, match="uint8"):
        G.adaptive_max_pool2d(S.asarray(x8), 2)


@pytest.mark.parametrize("dtypes", [("int64", "float32"), ("int64", "int64"), ("float32", "int64"),
                                    ("int32", "float64"), ("uint8", "float32"), ("bool", "float32")],
                         ids="-".join)
@pytest.mark.parametrize("log_input", [True, False])
@pytest.mark.parametrize("full", [False, True])
def test_poisson_nll_loss_of_integer_counts_is_pytorchs(dtypes, log_input, full):
    # (integer inputs and targets: PyTorch's composite computes exp and log in the default
    # float dtype; a bool input minus a float is refused by both)
    a, b = dtypes
    x, y = np.array([1, 2, 3, 0]), np.array([1, 0, 2, 5])
    call = dict(log_input=log_input, full=full)
    if a == "bool" and not log_input:
        with pytest.raises(RuntimeError):
            F.poisson_nll_loss(torch.tensor(x.astype(a)), torch.tensor(y.astype(b)), **call)
        with pytest.raises(TypeError):
            G.poisson_nll_loss(S.tensor(x.astype(a)), S.tensor(y.astype(b)), **call)
        return
    want = F.poisson_nll_loss(torch.tensor(x.astype(a)), torch.tensor(y.astype(b)), **call)
    got = G.poisson_nll_loss(S.tensor(x.astype(a)), S.tensor(y.astype(b)), **call)
    assert str(got.dtype) == str(want.dtype).removeprefix("torch.")
    # (float32 exp: NumPy's SIMD loop, which strided uses, and PyTorch's differ by an ulp)
    np.testing.assert_allclose(to_numpy(got), want.numpy(), rtol=4e-7)
