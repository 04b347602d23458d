"""Resampling and rearranging against PyTorch 2.13: ``interpolate`` (nearest,
nearest-exact, linear, bilinear, bicubic, trilinear, area; ``size``/``scale_factor``,
``align_corners``, ``recompute_scale_factor``), ``upsample*``, ``fold``/``unfold``,
``pixel_shuffle``/``pixel_unshuffle``, ``channel_shuffle``, the padding modules over
``F.pad``'s modes, ``Upsample*``/``Fold``/``Unfold``/shuffle modules, the torch-level
names; values and gradients in float32 and float64, errors for bad input."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import to_numpy

TF = torch.nn.functional
SF = storch.nn.functional
TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-11, atol=1e-12)}


def compare(fn_t, fn_s, x, dtype, tol=None):
    """``fn_t(torch input)`` against ``fn_s(strided input)``: values, dtype, shape and the
    gradient of a random weighting."""
    tol = tol or TOL[dtype]
    tx = torch.tensor(x.astype(dtype), requires_grad=True)
    sx = strided.asarray(x.astype(dtype)).requires_grad_()
    rt, rs = fn_t(tx), fn_s(sx)
    assert tuple(rs.shape) == tuple(rt.shape)
    assert str(rs.dtype) == str(rt.dtype).removeprefix("torch.")
    np.testing.assert_allclose(to_numpy(rs), to_numpy(rt), **tol, err_msg="values")
    w = np.random.default_rng(1).standard_normal(tuple(rt.shape)).astype(dtype)
    (rt * torch.tensor(w)).sum().backward()
    (rs * strided.asarray(w)).sum().backward()
    np.testing.assert_allclose(to_numpy(sx.grad), to_numpy(tx.grad), **tol, err_msg="gradient")


def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def both(name, *args, **kwargs):
    return (lambda t: getattr(TF, name)(t, *args, **kwargs),
            lambda s: getattr(SF, name)(s, *args, **kwargs))


# (mode, input shape, kwargs)
INTERP_CASES = [
    ("nearest", (2, 3, 5), dict(size=9)),
    ("nearest", (2, 3, 6), dict(size=3)),
    ("nearest", (1, 2, 5), dict(scale_factor=2)),
    ("nearest", (1, 2, 4, 5), dict(scale_factor=(1.7, 0.6))),
    ("nearest", (1, 2, 3, 4, 5), dict(size=(5, 3, 7))),
    ("nearest", (1, 2, 5, 5), dict(scale_factor=1.5, recompute_scale_factor=True)),
    ("nearest-exact", (2, 3, 5), dict(size=8)),
    ("nearest-exact", (1, 2, 4, 7), dict(scale_factor=(2.5, 0.5))),
    ("nearest-exact", (1, 1, 3, 4, 5), dict(size=(2, 7, 5))),
    ("linear", (2, 3, 5), dict(size=9)),
    ("linear", (2, 3, 7), dict(scale_factor=0.6)),
    ("linear", (2, 3, 5), dict(size=9, align_corners=True)),
    ("linear", (1, 2, 6), dict(scale_factor=1.3, recompute_scale_factor=True)),
    ("bilinear", (1, 2, 4, 5), dict(size=(7, 3))),
    ("bilinear", (2, 1, 5, 4), dict(scale_factor=2, align_corners=True)),
    ("bilinear", (2, 1, 5, 6), dict(scale_factor=(0.7, 1.4))),
    ("bilinear", (1, 1, 4, 4), dict(size=1, align_corners=True)),
    ("bicubic", (1, 2, 4, 5), dict(size=(7, 3))),
    ("bicubic", (2, 1, 5, 4), dict(scale_factor=2, align_corners=True)),
    ("bicubic", (1, 1, 6, 5), dict(scale_factor=(0.6, 1.5))),
    ("trilinear", (1, 2, 3, 4, 5), dict(size=(5, 3, 7))),
    ("trilinear", (1, 1, 3, 3, 4), dict(scale_factor=1.5, align_corners=True)),
    ("area", (2, 3, 9), dict(size=4)),
    ("area", (1, 2, 5, 7), dict(scale_factor=(0.5, 0.7))),
    ("area", (1, 1, 4, 5, 6), dict(size=(2, 5, 3))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", INTERP_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_interpolate(case, dtype):
    mode, shape, kw = case
    ft, fs = both("interpolate", mode=mode, **kw)
    compare(ft, fs, _x(shape), dtype)


def test_upsample_names_warn_and_match():
    x = _x((1, 2, 3, 4))
    for name, kw in [("upsample", dict(scale_factor=2, mode="bilinear")),
                     ("upsample", dict(size=(5, 7))), ("upsample_nearest", dict(size=5)),
                     ("upsample_bilinear", dict(scale_factor=2))]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ft, fs = both(name, **kw)
            compare(ft, fs, x, "float64")
        with pytest.warns(UserWarning, match="deprecated"):
            getattr(SF, name)(strided.asarray(x), **kw)


@pytest.mark.parametrize("call,exc,fragment", [
    (lambda F, x: F.interpolate(x, size=3, scale_factor=2), ValueError,
     "only one of size or scale_factor"),
    (lambda F, x: F.interpolate(x), ValueError, "either size or scale_factor"),
    (lambda F, x: F.interpolate(x, size=3, mode="nearest", align_corners=True), ValueError,
     "align_corners option can only be set"),
    (lambda F, x: F.interpolate(x, size=3, mode="bilinear"), NotImplementedError,
     "bilinear mode needs 4D input"),
    (lambda F, x: F.interpolate(x, size=(3, 4)), ValueError,
     "same number of spatial dimensions"),
    (lambda F, x: F.interpolate(x, size=3, recompute_scale_factor=True), ValueError,
     "recompute_scale_factor is not meaningful with an explicit size"),
    (lambda F, x: F.interpolate(x[0], size=3), (ValueError, NotImplementedError), "2D"),
])
def test_interpolate_errors_match_pytorch(call, exc, fragment):
    with pytest.raises(exc):
        call(TF, torch.zeros(1, 2, 5))
    with pytest.raises(exc, match=re.escape(fragment)):
        call(SF, strided.zeros((1, 2, 5)))


def test_interpolate_of_integers_is_refused_as_pytorch():
    x = np.arange(6).reshape(1, 1, 6)
    with pytest.raises(NotImplementedError):
        TF.interpolate(torch.tensor(x), size=3)
    with pytest.raises(NotImplementedError, match="does not support int64"):
        SF.interpolate(strided.asarray(x), size=3)


def test_interpolate_lanczos_needs_antialias():
    # (antialias=True itself: test_programs21.py's test_interpolate_antialias_matches_pytorch)
    with pytest.raises(ValueError, match="Lanczos mode requires antialias=True"):
        SF.interpolate(strided.zeros((1, 1, 4, 4)), size=2, mode="lanczos")


# --- fold / unfold -------------------------------------------------------------------------

FOLD_CASES = [
    ((2, 3, 5, 6), dict(kernel_size=2)),
    ((3, 5, 6), dict(kernel_size=(2, 3), stride=(1, 2), padding=1)),
    ((1, 2, 7, 7), dict(kernel_size=3, stride=2, padding=(1, 0), dilation=(1, 2))),
    ((1, 1, 4, 5), dict(kernel_size=(1, 2), dilation=2, stride=(3, 1))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", FOLD_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_unfold_and_fold(case, dtype):
    shape, kw = case
    ft, fs = both("unfold", **kw)
    compare(ft, fs, _x(shape), dtype)
    cols = TF.unfold(torch.tensor(_x(shape)), **kw)
    ft, fs = both("fold", shape[-2:], **kw)
    compare(ft, fs, cols.numpy(), dtype)


def test_fold_unfold_errors():
    with pytest.raises(RuntimeError, match="divisible by the product of kernel_size"):
        SF.fold(strided.zeros((1, 5, 4)), (3, 3), 2)
    with pytest.raises(RuntimeError, match="calculated number of sliding blocks"):
        SF.fold(strided.zeros((1, 4, 5)), (3, 3), 2)
    with pytest.raises(NotImplementedError, match="Only 3D or 4D"):
        SF.unfold(strided.zeros((1, 1, 1, 4, 4)), 2)
    with pytest.raises(RuntimeError):
        TF.fold(torch.zeros(1, 5, 4), (3, 3), 2)
    with pytest.raises(RuntimeError):
        TF.fold(torch.zeros(1, 4, 5), (3, 3), 2)


# --- shuffles ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,shape,arg", [
    ("pixel_shuffle", (2, 8, 3, 2), 2), ("pixel_shuffle", (9, 2, 3), 3),
    ("pixel_shuffle", (2, 1, 4, 2, 2), 2),
    ("pixel_unshuffle", (2, 2, 4, 6), 2), ("pixel_unshuffle", (1, 6, 3), 3),
    ("channel_shuffle", (2, 6, 3), 3), ("channel_shuffle", (1, 4, 2, 3), 2),
    ("channel_shuffle", (2, 6, 2, 1, 2), 2),
])
def test_shuffles(name, shape, arg, dtype):
    ft, fs = both(name, arg)
    compare(ft, fs, _x(shape), dtype)
    compare(lambda t: getattr(torch, name)(t, arg), lambda s: getattr(storch, name)(s, arg),
            _x(shape), dtype)


@pytest.mark.parametrize("call,fragment", [
    (lambda F, z: F.pixel_shuffle(z(1, 3, 2, 2), 2), "divisible by the square of upscale_factor"),
    (lambda F, z: F.pixel_unshuffle(z(1, 1, 3, 4), 2), "divisible by downscale_factor"),
    (lambda F, z: F.channel_shuffle(z(1, 5, 2), 2), "divisible by groups"),
    (lambda F, z: F.pixel_shuffle(z(4, 2), 2), "at least 3 dimensions"),
])
def test_shuffle_errors_match_pytorch(call, fragment):
    with pytest.raises(RuntimeError):
        call(TF, torch.zeros)
    with pytest.raises(RuntimeError, match=re.escape(fragment)):
        call(SF, lambda *s: strided.zeros(s))


# --- padding modules and F.pad's modes -------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,args,shape", [
    ("ZeroPad1d", ((1, 2),), (2, 3, 5)), ("ZeroPad2d", (1,), (3, 4, 5)),
    ("ZeroPad2d", ((1, -1, 0, 2),), (1, 2, 4, 5)), ("ZeroPad3d", (1,), (1, 2, 3, 3)),
    ("ConstantPad1d", (2, 3.5), (3, 4)), ("ConstantPad2d", ((0, 1, 2, 0), -1.0), (2, 3, 3)),
    ("ConstantPad3d", ((1, 0, 0, 1, 1, 1), 2.0), (1, 1, 2, 3, 2)),
    ("ReflectionPad1d", ((2, 3),), (2, 3, 5)), ("ReflectionPad1d", (1,), (3, 4)),
    ("ReflectionPad2d", ((1, 2, 2, 1),), (1, 2, 4, 5)), ("ReflectionPad2d", (1,), (2, 3, 3)),
    ("ReflectionPad3d", (1,), (1, 1, 3, 3, 4)),
    ("ReplicationPad1d", ((3, 1),), (2, 3, 5)), ("ReplicationPad2d", ((1, 0, 2, 3),), (2, 3, 4)),
    ("ReplicationPad3d", ((1, 2, 0, 1, 2, 0),), (1, 2, 3, 2, 3)),
    ("CircularPad1d", ((2, 1),), (2, 3, 5)), ("CircularPad2d", ((1, 2, 2, 0),), (1, 2, 3, 4)),
    ("CircularPad3d", (1,), (2, 3, 3, 4)),
])
def test_padding_modules(name, args, shape, dtype):
    ref, got = getattr(torch.nn, name)(*args), getattr(storch.nn, name)(*args)
    assert repr(got) == repr(ref)
    assert got.padding == ref.padding
    compare(ref, got, _x(shape), dtype)


def test_circular_pad_checks_the_input_rank():
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        storch.nn.CircularPad2d(1)(strided.zeros((4, 4)))
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        torch.nn.CircularPad2d(1)(torch.zeros(4, 4))


def test_constant_pad_nd():
    compare(lambda t: torch.constant_pad_nd(t, (1, 2, 0, 1), 1.5),
            lambda s: storch.constant_pad_nd(s, (1, 2, 0, 1), 1.5), _x((2, 3, 4)), "float64")
    compare(lambda t: torch.constant_pad_nd(t, (2, -1)),
            lambda s: storch.constant_pad_nd(s, (2, -1)), _x((3, 4)), "float32")


# --- other modules -------------------------------------------------------------------------

@pytest.mark.parametrize("name,args,kwargs,shape", [
    ("Upsample", (), dict(scale_factor=2), (1, 2, 3, 4)),
    ("Upsample", (), dict(size=(5, 3), mode="bilinear", align_corners=True), (1, 2, 3, 4)),
    ("Upsample", (), dict(scale_factor=(2, 1.5), mode="bicubic"), (1, 1, 3, 4)),
    ("Upsample", (), dict(size=7, mode="linear"), (2, 3, 4)),
    ("Upsample", (), dict(scale_factor=1.5, mode="trilinear"), (1, 1, 2, 3, 2)),
    ("UpsamplingNearest2d", (), dict(scale_factor=3), (1, 2, 2, 3)),
    ("UpsamplingBilinear2d", (), dict(size=(4, 5)), (1, 2, 2, 3)),
    ("Fold", ((4, 5), 2), {}, (1, 8, 12)),
    ("Unfold", ((2, 3),), dict(stride=(1, 2), padding=1), (1, 2, 4, 5)),
    ("PixelShuffle", (2,), {}, (1, 8, 2, 3)),
    ("PixelUnshuffle", (2,), {}, (1, 2, 4, 6)),
    ("ChannelShuffle", (3,), {}, (1, 6, 2, 2)),
])
def test_modules(name, args, kwargs, shape):
    ref, got = getattr(torch.nn, name)(*args, **kwargs), getattr(storch.nn, name)(*args, **kwargs)
    assert repr(got) == repr(ref)
    for attr in ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor",
                 "output_size", "kernel_size", "dilation", "padding", "stride",
                 "upscale_factor", "downscale_factor", "groups", "name"):
        assert getattr(got, attr, None) == getattr(ref, attr, None), attr
    compare(ref, got, _x(shape), "float64")


# --- affine_grid / grid_sample -------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("n", [2, 3])
def test_grid_sample(n, mode, padding_mode, align_corners, dtype):
    rng = np.random.default_rng(n)
    shape = (2, 3, 4, 5) if n == 2 else (2, 2, 3, 4, 5)
    x = rng.standard_normal(shape).astype(dtype)
    g = rng.uniform(-1.4, 1.4, (2, 3, 4, n) if n == 2 else (2, 2, 3, 2, n)).astype(dtype)
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    sx, sg = strided.asarray(x).requires_grad_(), strided.asarray(g).requires_grad_()
    rt = TF.grid_sample(tx, tg, mode, padding_mode, align_corners)
    rs = SF.grid_sample(sx, sg, mode, padding_mode, align_corners)
    assert tuple(rs.shape) == tuple(rt.shape)
    tol = dict(rtol=1e-5, atol=2e-5) if dtype == "float32" else TOL[dtype]
    np.testing.assert_allclose(to_numpy(rs), to_numpy(rt), **tol)
    w = rng.standard_normal(tuple(rt.shape)).astype(dtype)
    (rt * torch.tensor(w)).sum().backward()
    (rs * strided.asarray(w)).sum().backward()
    np.testing.assert_allclose(to_numpy(sx.grad), to_numpy(tx.grad), **tol)
    np.testing.assert_allclose(to_numpy(sg.grad), to_numpy(tg.grad), **tol)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 3), (2, 3, 2, 4, 3)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(size, align_corners):
    n = len(size) - 2
    theta = np.random.default_rng(0).standard_normal((2, n, n + 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda t: TF.affine_grid(t, size, align_corners),
                lambda s: SF.affine_grid(s, size, align_corners), theta, "float64")


def test_affine_grid_then_grid_sample_rotates_like_pytorch():
    a = 0.3
    theta = np.array([[[np.cos(a), -np.sin(a), 0.1], [np.sin(a), np.cos(a), -0.2]]])
    x = _x((1, 2, 5, 6))
    rt = TF.grid_sample(torch.tensor(x), TF.affine_grid(torch.tensor(theta), (1, 2, 4, 4), False),
                        align_corners=False)
    rs = SF.grid_sample(strided.asarray(x),
                        SF.affine_grid(strided.asarray(theta), (1, 2, 4, 4), False),
                        align_corners=False)
    np.testing.assert_allclose(to_numpy(rs), to_numpy(rt), **TOL["float64"])


def test_grid_sample_and_affine_grid_errors_and_warnings():
    x, g = strided.zeros((1, 1, 3, 3)), strided.zeros((1, 2, 2, 2))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        SF.grid_sample(x, g)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        SF.affine_grid(strided.zeros((1, 2, 3)), (1, 1, 2, 2))
    with pytest.raises(ValueError, match="expected mode to be"):
        SF.grid_sample(x, g, mode="area", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode"):
        SF.grid_sample(x, g, padding_mode="wrap", align_corners=False)
    # (bicubic on a 5-D input: PyTorch's error; bicubic itself: test_programs21.py)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        SF.grid_sample(strided.zeros((1, 1, 2, 2, 2)), strided.zeros((1, 1, 1, 1, 3)),
                       mode="bicubic", align_corners=False)
    with pytest.raises(ValueError, match="Nx2x3"):
        SF.affine_grid(strided.zeros((1, 3, 4)), (1, 1, 2, 2), False)
    with pytest.raises(ValueError, match="Nx2x3"):
        TF.affine_grid(torch.zeros(1, 3, 4), (1, 1, 2, 2), False)
    with pytest.raises(RuntimeError, match="same batch size"):
        SF.grid_sample(x, strided.zeros((2, 2, 2, 2)), align_corners=False)
    with pytest.raises(RuntimeError):
        TF.grid_sample(torch.zeros(1, 1, 3, 3), torch.zeros(2, 2, 2, 2), align_corners=False)


@pytest.mark.parametrize("name,shape", [("ReflectionPad2d", (4, 4)), ("ReplicationPad1d", (4,)),
                                        ("ReplicationPad3d", (2, 2, 2))])
def test_reflection_and_replication_modules_refuse_pytorchs_unsupported_ranks(name, shape):
    with pytest.raises(NotImplementedError, match="is not supported for"):
        getattr(torch.nn, name)(1)(torch.zeros(shape))
    with pytest.raises(NotImplementedError, match="is not supported for"):
        getattr(storch.nn, name)(1)(strided.zeros(shape))
