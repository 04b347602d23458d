"""strided.torch.fft (PyTorch's torch.fft namespace over strided) against torch.fft (PyTorch
2.13): values, dtypes (integer input promoted to the default float), positional and keyword
forms, batched and noncontiguous inputs, out=, gradients (float64, against PyTorch's .grad)
and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import strided
import strided.torch as storch
from strided.torch import fft as F
from _parity import to_numpy

torch = pytest.importorskip("torch")

TOL = {"float32": 1e-4, "float64": 1e-10, "complex64": 1e-4, "complex128": 1e-10, "int64": 1e-4, "bool": 1e-4}


def dtname(dt):
    return str(dt).split(".")[-1]


def to_np(x):
    return x.detach().resolve_conj().numpy() if isinstance(x, torch.Tensor) else to_numpy(x)


def same(got, want, tol):
    assert tuple(got.shape) == tuple(want.shape), (tuple(got.shape), tuple(want.shape))
    assert dtname(got.dtype) == dtname(want.dtype), (got.dtype, want.dtype)
    np.testing.assert_allclose(to_np(got), to_np(want), rtol=tol, atol=tol)


def rand(rng, shape, dtype):
    if dtype == "int64":
        return rng.integers(-5, 5, shape)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def compare(name, x, *args, grad=False, transpose=False, **kw):
    """``F.<name>`` and ``torch.fft.<name>`` of the same input (transposed first where asked: a
    noncontiguous view); with ``grad`` the gradients of a weighted sum of the real and
    imaginary parts."""
    dt = str(x.dtype)
    xs = strided.asarray(x.copy())
    xt = torch.from_numpy(x.copy())
    g = grad and x.dtype.kind in "fc"
    if g:
        xs.requires_grad_()
        xt.requires_grad_()
    ins, int_ = (xs.mT, xt.mT) if transpose else (xs, xt)
    rs, rt = getattr(F, name)(ins, *args, **kw), getattr(torch.fft, name)(int_, *args, **kw)
    same(rs, rt, TOL[dt])
    if g:
        w = np.random.default_rng(3).standard_normal(tuple(rt.shape))
        if rt.dtype.is_complex:
            w2 = w[::-1].copy()
            ls = (storch.real(rs) * strided.asarray(w)).sum() + (storch.imag(rs) * strided.asarray(w2)).sum()
            lt = (rt.real * torch.from_numpy(w)).sum() + (rt.imag * torch.from_numpy(w2)).sum()
        else:
            ls, lt = (rs * strided.asarray(w)).sum(), (rt * torch.from_numpy(w)).sum()
        ls.backward()
        lt.backward()
        same(xs.grad, xt.grad, TOL[dt] * 10)


RNG = np.random.default_rng(18)
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
REAL_ONLY = {"rfft", "ihfft", "rfftn", "ihfftn", "rfft2", "ihfft2"}


def dtypes_of(name):
    return ["float32", "float64", "int64"] if name in REAL_ONLY else ["float32", "float64", "complex64",
                                                                      "complex128", "int64"]


def test_namespace():
    import strided.torch.fft as F2
    from strided.torch import fft as F3
    assert F2 is F3 is storch.fft is F
    assert strided.fft is not F and strided.fft.__name__ == "strided.fft"
    public = {n for n in dir(torch.fft) if not n.startswith("_") and n not in ("Tensor", "torch")
              and callable(getattr(torch.fft, n))}
    assert public <= set(F.__all__)
    for n in F.__all__:
        assert getattr(F, n).__doc__, n


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("args,kw", [((), {}), ((6, 0), {}), ((), {"dim": 0}), ((None, -1, "ortho"), {}),
                                     ((), {"n": 3, "norm": "forward"}), ((5,), {"norm": "backward"})])
def test_one_d(name, args, kw):
    for dt in dtypes_of(name):
        compare(name, rand(RNG, (4, 5), dt), *args, grad=dt in ("float64", "complex128"), **kw)
    compare(name, rand(RNG, (3, 4), "float64"), *args, transpose=True, **kw)


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("args,kw", [((), {}), ((), {"dim": [0]}), (((4, 6),), {}), ((None, (0, 2)), {}),
                                     (((3, -1), (2, 0), "ortho"), {}), ((), {"s": (5,), "norm": "forward"}),
                                     ((), {"dim": (-1, 0)})])
def test_n_d(name, args, kw):
    for dt in dtypes_of(name):
        compare(name, rand(RNG, (2, 3, 4), dt), *args, grad=dt in ("float64", "complex128"), **kw)


@pytest.mark.parametrize("name", TWO_D)
@pytest.mark.parametrize("args,kw", [((), {}), (((4, 6),), {}), ((None, (0, 1)), {}), ((), {"norm": "ortho"}),
                                     ((), {"s": (3, 5), "dim": (2, 0), "norm": "forward"})])
def test_two_d(name, args, kw):
    for dt in dtypes_of(name):
        compare(name, rand(RNG, (2, 3, 4), dt), *args, grad=dt in ("float64", "complex128"), **kw)
    compare(name, rand(RNG, (3, 4), "float64"), *args[:1], transpose=True)


def test_bool_input_is_promoted():
    compare("fft", rand(RNG, (4,), "bool"))
    compare("rfftn", rand(RNG, (2, 4), "bool"))


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_freqs(name):
    for args, kw in (((5,), {}), ((5, 0.1), {}), ((4,), {"d": 2.0}), ((6,), {"dtype": torch.float64}),
                     ((1,), {})):
        kw_s = dict(kw)
        if "dtype" in kw:
            kw_s["dtype"] = storch.float64
        same(getattr(F, name)(*args, **kw_s), getattr(torch.fft, name)(*args, **kw), 1e-7)
    assert getattr(F, name)(4, requires_grad=True).requires_grad


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("args,kw", [((), {}), ((1,), {}), ((), {"dim": (0, 2)}), ((), {"dim": -1})])
def test_shifts(name, args, kw):
    for dt in ("float64", "int64", "complex64"):
        compare(name, rand(RNG, (3, 4, 5), dt), *args, grad=dt == "float64", **kw)


def test_out():
    x = rand(RNG, (3, 4), "float64")
    o = strided.empty((3, 4), dtype=strided.complex128)
    F.fft(strided.asarray(x), out=o)
    same(o, torch.fft.fft(torch.from_numpy(x)), 1e-12)
    o = strided.empty((3, 3), dtype=strided.complex128)
    F.rfft2(strided.asarray(x), out=o)
    same(o, torch.fft.rfft2(torch.from_numpy(x)), 1e-12)
    o = strided.empty((5,), dtype=strided.float32)
    F.fftfreq(5, 0.1, out=o)
    same(o, torch.fft.fftfreq(5, 0.1), 1e-7)
    with pytest.raises((RuntimeError, ValueError, TypeError)):
        F.fft(strided.asarray(x), out=strided.empty((3, 4), dtype=strided.float64))


def test_errors():
    x = rand(RNG, (3, 4), "complex64")
    for lib, T in ((F, strided.asarray), (torch.fft, torch.from_numpy)):
        for name, msg in (("rfft", "rfft expects a real input tensor"), ("ihfft", "ihfft expects a real input"),
                          ("rfftn", "rfftn expects a real-valued input"), ("rfft2", "rfftn expects a real-valued"),
                          ("ihfftn", "Only supports floating-point dtypes, but found: ComplexFloat"),
                          ("ihfft2", "Only supports floating-point dtypes")):
            with pytest.raises(RuntimeError, match=msg):
                getattr(lib, name)(T(x))
        for name in ("fft", "rfft", "ifftn", "hfft2"):
            with pytest.raises(RuntimeError, match="Unsupported dtype Half"):
                getattr(lib, name)(T(np.ones((2, 2), np.float16)))
        with pytest.raises(RuntimeError, match="Invalid number of data points"):
            lib.fft(T(x), 0)
        with pytest.raises(RuntimeError, match="Invalid normalization mode"):
            lib.fft(T(x), norm="sideways")
        with pytest.raises(IndexError, match="Dimension out of range"):
            lib.fft(T(x), dim=2)
        with pytest.raises(RuntimeError, match="same length"):
            lib.fftn(T(x), s=(2, 2), dim=(0,))
        with pytest.raises(RuntimeError, match="dims must be unique"):
            lib.fftn(T(x), dim=(0, 0))
