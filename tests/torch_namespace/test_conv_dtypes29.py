"""Convolutions of the dtypes PyTorch 2.13's CPU kernels take beside floats: every integer dtype
(exact, wrapping as the dtype wraps), int64 transposed, and complex (values and gradients).
Each case runs through torch and strided.torch. Where PyTorch refuses (a transposed
convolution of integers other than int64, bool), strided refuses too."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

from _parity import to_numpy  # noqa: E402

F, G = torch.nn.functional, S.nn.functional
INTS = ["uint8", "int8", "int16", "int32", "int64"]
_CASES = [  # (function, input shape, weight shape, keywords)
    ("conv1d", (2, 4, 9), (6, 2, 3), dict(groups=2, padding=1, stride=2)),
    ("conv1d", (4, 7), (3, 4, 2), dict(padding="same")),  # unbatched
    ("conv2d", (2, 2, 6, 5), (3, 2, 2, 3), dict(padding=(1, 0), stride=(2, 1))),
    ("conv3d", (1, 2, 4, 4, 4), (2, 2, 2, 2, 2), dict(stride=(1, 2, 1), padding=1)),
]
_TRANSPOSED = [
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), dict(stride=2, output_padding=1)),
    ("conv_transpose2d", (2, 4, 4, 3), (4, 3, 2, 2), dict(stride=2, output_padding=1, groups=2, padding=1)),
    ("conv_transpose3d", (1, 2, 3, 2, 3), (2, 2, 2, 2, 2), dict(dilation=(1, 2, 1))),
]


def _data(dtype, shape, wshape, seed):
    rng = np.random.default_rng(seed)
    if dtype.startswith("complex"):
        x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        w = rng.standard_normal(wshape) + 1j * rng.standard_normal(wshape)
    else:  # (sums that overflow the small dtypes: they must wrap as PyTorch's do)
        x, w = rng.integers(-60, 60, shape), rng.integers(-9, 9, wshape)
    return x.astype(dtype), w.astype(dtype)


def _check(name, x, w, kw, bias=None):
    want = getattr(F, name)(torch.tensor(x), torch.tensor(w),
                            None if bias is None else torch.tensor(bias), **kw).numpy()
    got = to_numpy(getattr(G, name)(S.tensor(x), S.tensor(w), None if bias is None else S.tensor(bias), **kw))
    assert got.dtype == want.dtype and got.shape == want.shape
    if x.dtype.kind == "c":
        tol = 1e-13 if x.dtype == np.complex128 else 2e-5
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("case", _CASES, ids=lambda c: c[0] + str(len(c[1])))
def test_integer_convolutions_are_pytorchs(dtype, case):
    name, shape, wshape, kw = case
    x, w = _data(dtype, shape, wshape, seed=len(shape))
    _check(name, x, w, kw)
    _check(name, x, w, kw, bias=np.arange(wshape[0]).astype(dtype))


def test_int64_dilated_and_transposed_convolutions_are_pytorchs():
    x, w = _data("int64", (2, 2, 6, 5), (3, 2, 2, 3), seed=1)
    _check("conv2d", x, w, dict(dilation=2, padding="same"))
    for name, shape, wshape, kw in _TRANSPOSED:
        x, w = _data("int64", shape, wshape, seed=2)
        _check(name, x, w, kw)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("case", _CASES + _TRANSPOSED, ids=lambda c: c[0] + str(len(c[1])))
def test_complex_convolutions_are_pytorchs(dtype, case):
    name, shape, wshape, kw = case
    x, w = _data(dtype, shape, wshape, seed=3)
    _check(name, x, w, kw)


@pytest.mark.parametrize("case", _CASES[:1] + _CASES[2:] + _TRANSPOSED[1:2], ids=lambda c: c[0])
def test_complex_convolution_gradients_are_pytorchs(case):
    name, shape, wshape, kw = case
    x, w = _data("complex128", shape, wshape, seed=4)
    c_out = wshape[1] * kw.get("groups", 1) if "transpose" in name else wshape[0]
    b = _data("complex128", (c_out,), (1,), 5)[0]
    grads = []
    for L, f in ((torch, F), (S, G)):
        leaves = [L.tensor(v, requires_grad=True) for v in (x, w, b)]
        r = getattr(f, name)(*leaves, **kw)
        (r.real.sum() - 2 * r.imag.sum() + (r * r.conj()).real.sum()).backward()
        grads.append([to_numpy(t.grad) if L is S else t.grad.numpy() for t in leaves])
    for g, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)


def test_complex_conv_module():
    torch.manual_seed(0)
    m = torch.nn.Conv2d(2, 3, 3, padding=1, dtype=torch.complex64)
    s = S.nn.Conv2d(2, 3, 3, padding=1, dtype=S.complex64)
    s.load_state_dict({k: S.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    x = _data("complex64", (1, 2, 5, 5), (1,), 6)[0]
    np.testing.assert_allclose(to_numpy(s(S.tensor(x)).detach()), m(torch.tensor(x)).detach().numpy(),
                               rtol=2e-5, atol=2e-5)


def test_what_pytorch_refuses_is_refused():
    for dtype in ("int32", "uint8"):
        x, w = _data(dtype, (1, 2, 4, 4), (2, 3, 2, 2), seed=7)
        with pytest.raises(NotImplementedError):
            F.conv_transpose2d(torch.tensor(x), torch.tensor(w))
        with pytest.raises(NotImplementedError, match=dtype):
            G.conv_transpose2d(S.tensor(x), S.tensor(w))
    x, w = np.ones((1, 2, 4, 4), bool), np.ones((3, 2, 2, 2), bool)
    with pytest.raises(NotImplementedError):
        F.conv2d(torch.tensor(x), torch.tensor(w))
    with pytest.raises(NotImplementedError, match="bool"):
        G.conv2d(S.tensor(x), S.tensor(w))
