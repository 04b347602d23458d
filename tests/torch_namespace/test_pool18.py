"""Pooling (max, average, adaptive, power-average, max_unpool) against PyTorch 2.13:
values, indices (the flat index into each input plane) and gradients over kernel sizes,
strides, paddings, dilations, ``ceil_mode``, ``count_include_pad``, ``divisor_override``,
batched and unbatched inputs, float32 and float64; the modules' reprs and outputs; the
torch-level names; errors for bad input."""

from __future__ import annotations

import re

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import to_numpy

TF = torch.nn.functional
SF = storch.nn.functional
TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-11, atol=1e-13)}


def compare(fname, x, args, kwargs, dtype, tlib=TF, slib=SF, positive=False):
    """``fname(x, *args, **kwargs)`` in both libraries: values (and indices, where a tuple
    comes back), then the gradient of a random weighting of the values."""
    rng = np.random.default_rng(1)
    if positive:
        x = np.abs(x) + 0.5
    tx = torch.tensor(x.astype(dtype), requires_grad=True)
    sx = strided.asarray(x.astype(dtype)).requires_grad_()
    rt = getattr(tlib, fname)(tx, *args, **kwargs)
    rs = getattr(slib, fname)(sx, *args, **kwargs)
    if isinstance(rt, tuple):
        assert isinstance(rs, tuple) and len(rs) == 2
        (rt, it), (rs, is_) = rt, rs
        assert str(is_.dtype) == "int64" and tuple(is_.shape) == tuple(it.shape)
        np.testing.assert_array_equal(to_numpy(is_), to_numpy(it), err_msg="indices")
    assert tuple(rs.shape) == tuple(rt.shape)
    assert str(rs.dtype) == str(rt.dtype).removeprefix("torch.")
    np.testing.assert_allclose(to_numpy(rs), to_numpy(rt), **TOL[dtype], err_msg="values")
    w = rng.standard_normal(tuple(rt.shape)).astype(dtype)
    (rt * torch.tensor(w)).sum().backward()
    (rs * strided.asarray(w)).sum().backward()
    np.testing.assert_allclose(to_numpy(sx.grad), to_numpy(tx.grad), **TOL[dtype],
                               err_msg="gradient")
    return rs, rt


def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# (n, input shape, kwargs)
MAX_CASES = [
    (1, (2, 3, 9), dict(kernel_size=2)),
    (1, (3, 10), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (1, (2, 2, 11), dict(kernel_size=3, stride=2, padding=1, dilation=2)),
    (1, (1, 2, 8), dict(kernel_size=4, stride=3, padding=2, dilation=1, ceil_mode=True)),
    (2, (2, 3, 7, 6), dict(kernel_size=2)),
    (2, (3, 7, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (2, (1, 2, 9, 8), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(2, 1))),
    (2, (2, 1, 6, 7), dict(kernel_size=(2, 3), stride=(3, 2), ceil_mode=True)),
    (2, (1, 2, 5, 5), dict(kernel_size=3, stride=1, padding=1, dilation=2)),
    (3, (1, 2, 5, 4, 6), dict(kernel_size=2)),
    (3, (2, 5, 5, 5), dict(kernel_size=(3, 2, 2), stride=2, padding=1, ceil_mode=True)),
    (3, (1, 1, 6, 5, 5), dict(kernel_size=2, stride=(1, 2, 2), dilation=(2, 1, 2))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize("case", MAX_CASES, ids=lambda c: f"{c[0]}d-{c[1]}-{c[2]}")
def test_max_pool(case, return_indices, dtype):
    n, shape, kw = case
    compare(f"max_pool{n}d", _x(shape), (), dict(kw, return_indices=return_indices), dtype)


@pytest.mark.parametrize("case", MAX_CASES[::3], ids=lambda c: f"{c[0]}d-{c[1]}")
def test_max_pool_with_indices_names(case):
    n, shape, kw = case
    compare(f"max_pool{n}d_with_indices", _x(shape), (), kw, "float64")


AVG_CASES = [
    (1, (2, 3, 9), dict(kernel_size=2)),
    (1, (3, 10), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (1, (2, 2, 8), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)),
    (2, (2, 3, 7, 6), dict(kernel_size=2)),
    (2, (3, 7, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (2, (1, 2, 9, 8), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1))),
    (2, (2, 1, 6, 7), dict(kernel_size=(2, 3), stride=(3, 2), padding=(1, 0), ceil_mode=True)),
    (3, (1, 2, 5, 4, 6), dict(kernel_size=2)),
    (3, (2, 5, 5, 5), dict(kernel_size=(3, 2, 2), stride=2, padding=1, ceil_mode=True)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("case", AVG_CASES, ids=lambda c: f"{c[0]}d-{c[1]}-{c[2]}")
def test_avg_pool(case, count_include_pad, dtype):
    n, shape, kw = case
    compare(f"avg_pool{n}d", _x(shape), (), dict(kw, count_include_pad=count_include_pad), dtype)


@pytest.mark.parametrize("n,shape", [(2, (2, 7, 6)), (3, (1, 1, 5, 4, 5))])
def test_avg_pool_divisor_override(n, shape):
    compare(f"avg_pool{n}d", _x(shape), (3,), dict(stride=2, padding=1, ceil_mode=True,
                                                   divisor_override=5), "float64")


ADAPTIVE_CASES = [
    (1, (2, 3, 9), 4), (1, (3, 7), 7), (1, (2, 2, 5), 8), (1, (2, 10), 1),
    (2, (2, 3, 7, 6), (3, 4)), (2, (3, 7, 7), (5, None)), (2, (1, 2, 5, 9), 1),
    (2, (2, 2, 4, 3), (7, 6)),
    (3, (1, 2, 5, 4, 6), (2, 3, 4)), (3, (2, 5, 5, 5), (None, 2, 3)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ADAPTIVE_CASES, ids=lambda c: f"{c[0]}d-{c[1]}-{c[2]}")
def test_adaptive_avg_pool(case, dtype):
    n, shape, out = case
    compare(f"adaptive_avg_pool{n}d", _x(shape), (out,), {}, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize("case", ADAPTIVE_CASES, ids=lambda c: f"{c[0]}d-{c[1]}-{c[2]}")
def test_adaptive_max_pool(case, return_indices, dtype):
    n, shape, out = case
    compare(f"adaptive_max_pool{n}d", _x(shape), (out,), dict(return_indices=return_indices),
            dtype)
    if return_indices:
        compare(f"adaptive_max_pool{n}d_with_indices", _x(shape), (out,), {}, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm", [1, 2.0, 3.5, float("inf")])
@pytest.mark.parametrize("case", [
    (1, (2, 3, 9), dict(kernel_size=3)), (1, (3, 10), dict(kernel_size=3, stride=2,
                                                           ceil_mode=True)),
    (2, (2, 2, 7, 6), dict(kernel_size=2)), (2, (3, 7, 7), dict(kernel_size=(3, 2), stride=2,
                                                                ceil_mode=True)),
    (3, (1, 2, 4, 4, 5), dict(kernel_size=2, stride=(1, 2, 2))),
], ids=lambda c: f"{c[0]}d-{c[2]}")
def test_lp_pool(case, norm, dtype):
    n, shape, kw = case
    compare(f"lp_pool{n}d", _x(shape), (norm,), kw, dtype, positive=norm not in (1, 2.0))


@pytest.mark.parametrize("n,shape,kw", [
    (1, (2, 3, 9), dict(kernel_size=2)),
    (1, (3, 9), dict(kernel_size=3, stride=2, padding=1)),
    (2, (2, 3, 7, 6), dict(kernel_size=2)),
    (2, (3, 7, 7), dict(kernel_size=3, stride=2, padding=1)),
    (3, (1, 2, 5, 4, 6), dict(kernel_size=2)),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_unpool_inverts_max_pool_like_pytorch(n, shape, kw, dtype):
    x = _x(shape)
    tv, ti = getattr(TF, f"max_pool{n}d")(torch.tensor(x.astype(dtype)), return_indices=True,
                                          **kw)
    sv, si = getattr(SF, f"max_pool{n}d")(strided.asarray(x.astype(dtype)),
                                          return_indices=True, **kw)
    unpool_kw = dict(kernel_size=kw["kernel_size"], stride=kw.get("stride"),
                     padding=kw.get("padding", 0))
    tv.requires_grad_()
    sv.requires_grad_()
    rt = getattr(TF, f"max_unpool{n}d")(tv, ti, **unpool_kw)
    rs = getattr(SF, f"max_unpool{n}d")(sv, si, **unpool_kw)
    assert tuple(rs.shape) == tuple(rt.shape)
    np.testing.assert_array_equal(to_numpy(rs), to_numpy(rt))
    sizes = list(x.shape[-n:])  # the original size (PyTorch's output_size= form)
    rt2 = getattr(TF, f"max_unpool{n}d")(tv, ti, output_size=sizes, **unpool_kw)
    rs2 = getattr(SF, f"max_unpool{n}d")(sv, si, output_size=sizes, **unpool_kw)
    np.testing.assert_array_equal(to_numpy(rs2), to_numpy(rt2))
    w = np.random.default_rng(2).standard_normal(tuple(rt2.shape)).astype(dtype)
    (rt2 * torch.tensor(w)).sum().backward()
    (rs2 * strided.asarray(w)).sum().backward()
    np.testing.assert_allclose(to_numpy(sv.grad), to_numpy(tv.grad), **TOL[dtype])


def test_torch_level_names():
    x = _x((2, 3, 9))
    compare("max_pool1d", x, (3, 2, 1), {}, "float64", torch, storch)
    compare("max_pool1d", x, (3,), {}, "float64", torch, storch)  # stride=() is kernel_size
    compare("max_pool2d", _x((2, 5, 6)), (2,), dict(ceil_mode=True), "float64", torch, storch)
    compare("max_pool3d", _x((2, 3, 4, 5)), (2, 1), {}, "float64", torch, storch)
    compare("max_pool1d_with_indices", x, (2,), dict(padding=1), "float64", torch, storch)
    compare("avg_pool1d", x, (3, 2, 1), dict(count_include_pad=False), "float64", torch, storch)
    compare("adaptive_avg_pool1d", x, (4,), {}, "float64", torch, storch)
    compare("adaptive_max_pool1d", x, (4,), {}, "float64", torch, storch)
    with pytest.raises(TypeError):
        storch.max_pool2d(strided.zeros((1, 4, 4)), 2, return_indices=True)


# --- modules -------------------------------------------------------------------------------

@pytest.mark.parametrize("name,args,kwargs,shape", [
    ("MaxPool1d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 9)),
    ("MaxPool2d", (2,), {}, (2, 3, 6, 6)),
    ("MaxPool2d", ((3, 2),), dict(stride=1, dilation=(1, 2), return_indices=True), (3, 7, 7)),
    ("MaxPool3d", (2,), dict(stride=1), (1, 2, 3, 3, 3)),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False), (2, 3, 9)),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 2, 7, 7)),
    ("AvgPool2d", (2,), dict(divisor_override=3), (2, 6, 6)),
    ("AvgPool3d", ((2, 1, 2),), {}, (1, 1, 4, 3, 4)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveAvgPool2d", ((3, None),), {}, (2, 3, 7, 6)),
    ("AdaptiveAvgPool3d", (2,), {}, (1, 3, 5, 5)),
    ("AdaptiveMaxPool1d", (4,), dict(return_indices=True), (2, 3, 9)),
    ("AdaptiveMaxPool2d", ((None, 2),), {}, (2, 3, 7, 6)),
    ("AdaptiveMaxPool3d", (2,), {}, (1, 3, 5, 5)),
    ("LPPool1d", (2, 3), dict(stride=2), (2, 3, 9)),
    ("LPPool2d", (1, 2), {}, (2, 2, 6, 6)),
    ("LPPool3d", (2, 2), dict(ceil_mode=True), (1, 2, 3, 5, 5)),
])
def test_modules(name, args, kwargs, shape):
    ref, got = getattr(torch.nn, name)(*args, **kwargs), getattr(storch.nn, name)(*args, **kwargs)
    assert repr(got) == repr(ref)
    for attr in ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "output_size",
                 "return_indices", "count_include_pad", "divisor_override", "norm_type"):
        assert getattr(got, attr, None) == getattr(ref, attr, None), attr
    x = _x(shape)
    rt, rs = ref(torch.tensor(x)), got(strided.asarray(x))
    if isinstance(rt, tuple):
        np.testing.assert_array_equal(to_numpy(rs[1]), to_numpy(rt[1]))
        rt, rs = rt[0], rs[0]
    np.testing.assert_allclose(to_numpy(rs), to_numpy(rt), rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_modules(n):
    shape = (1, 2) + (4,) * n
    ref_p = getattr(torch.nn, f"MaxPool{n}d")(2, return_indices=True)
    ref_u, got_u = getattr(torch.nn, f"MaxUnpool{n}d")(2), getattr(storch.nn, f"MaxUnpool{n}d")(2)
    assert repr(got_u) == repr(ref_u)
    assert (got_u.kernel_size, got_u.stride, got_u.padding) == \
        (ref_u.kernel_size, ref_u.stride, ref_u.padding)
    v, i = ref_p(torch.tensor(_x(shape)))
    rt = ref_u(v, i)
    rs = got_u(strided.asarray(v.numpy()), strided.asarray(i.numpy()))
    np.testing.assert_array_equal(to_numpy(rs), to_numpy(rt))


# --- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("call,exc,fragment", [
    (lambda F, z: F.max_pool2d(z(1, 4, 4), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size"),
    (lambda F, z: F.avg_pool2d(z(1, 4, 4), 2, padding=2), RuntimeError,
     "pad should be at most half"),
    (lambda F, z: F.max_pool2d(z(1, 2, 2), 3), RuntimeError, "Output size is too small"),
    (lambda F, z: F.avg_pool1d(z(1, 2), 3), RuntimeError, "Output size is too small"),
    (lambda F, z: F.max_pool2d(z(4, 4), 2), RuntimeError, "input"),
    (lambda F, z: F.max_pool2d(z(1, 4, 4), 2, stride=0), RuntimeError, "stride"),
    (lambda F, z: F.avg_pool2d(z(1, 4, 4), 2, divisor_override=0), RuntimeError,
     "divisor must be not zero"),
    (lambda F, z: F.adaptive_avg_pool2d(z(1, 0, 4), 2), RuntimeError, "non-zero size"),
    (lambda F, z: F.adaptive_max_pool2d(z(2, 3, 4), (1, 2, 3)), (ValueError, RuntimeError),
     "output_size"),
])
def test_errors_match_pytorch(call, exc, fragment):
    with pytest.raises(exc):
        call(TF, torch.zeros)
    with pytest.raises(exc, match=re.escape(fragment)):
        call(SF, lambda *s: strided.zeros(s))


def test_max_unpool_refuses_bad_indices():
    v = strided.ones((1, 1, 2))
    with pytest.raises(RuntimeError, match="Found an invalid max index"):
        SF.max_unpool1d(v, strided.asarray(np.array([[[0, 9]]])), 2)
    with pytest.raises(RuntimeError, match="invalid max index"):
        TF.max_unpool1d(torch.ones(1, 1, 2), torch.tensor([[[0, 9]]]), 2)
    with pytest.raises(RuntimeError, match="int64"):
        SF.max_unpool1d(v, strided.asarray(np.array([[[0, 1]]], dtype=np.int32)), 2)


def test_integer_input_is_refused_with_a_message():
    with pytest.raises(NotImplementedError):
        TF.max_pool1d(torch.arange(6).reshape(1, 6), 2)
    with pytest.raises(NotImplementedError, match="does not support int64"):
        SF.max_pool1d(strided.asarray(np.arange(6).reshape(1, 6)), 2)
    # (int64 average pooling, which PyTorch computes: test_int_pooling29.py)
    with pytest.raises(NotImplementedError, match="does not support int32"):
        SF.avg_pool1d(strided.asarray(np.arange(6, dtype=np.int32).reshape(1, 6)), 2)
    with pytest.raises(NotImplementedError):
        TF.avg_pool1d(torch.arange(6, dtype=torch.int32).reshape(1, 6), 2)


@pytest.mark.parametrize("fill", [np.nan, -np.inf])
@pytest.mark.parametrize("name,args,kw", [
    ("max_pool1d", (3,), dict(stride=2, padding=1, ceil_mode=True)),
    ("max_pool2d", (2,), dict(padding=1, ceil_mode=True)),
    ("max_pool2d", (3,), dict(stride=1, padding=1, dilation=2)),
    ("adaptive_max_pool2d", ((2, 3),), {}),
])
def test_nan_and_all_minus_inf_windows_pick_pytorchs_index(fill, name, args, kw):
    # PyTorch's kernels: the last NaN of a window; in a window of -inf, its first real element
    x = _x((2, 5, 5))
    x[0, 1:3, 1:4] = fill
    x[1, :, 2] = fill
    x[1, 4, 4] = fill
    compare(name, x[..., :5] if "1d" not in name else x[0], args,
            dict(kw, return_indices=True), "float64")


def test_pool_of_an_empty_batch():
    for name, args in [("max_pool2d", (2,)), ("avg_pool2d", (2,)),
                       ("adaptive_avg_pool2d", (3,)), ("adaptive_max_pool2d", (3,))]:
        rt = getattr(TF, name)(torch.zeros(0, 2, 4, 4), *args)
        rs = getattr(SF, name)(strided.zeros((0, 2, 4, 4)), *args)
        assert tuple(rs.shape) == tuple(rt.shape)
