"""PyTorch's argument names and defaults on the torch-style methods, the
standard's on the namespace functions; and float -> integer casts of NaN/inf.

References are NumPy (ddof for the corrections, explicit formulas for alpha and
rounding modes) and PyTorch when it is installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from conftest import to_np

A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.5]])
B = np.array([[0.5, -1.0, 2.0], [3.0, 2.0, -4.0]])


def arr(a, dtype=xp.float64):
    return xp.asarray(np.array(a, copy=True), dtype=dtype)


# --- alpha on add / sub and their in-place forms --------------------------------

@pytest.mark.parametrize("name,sign", [("add", 1), ("sub", -1), ("subtract", -1)])
@pytest.mark.parametrize("alpha", [2, 0.5, -3])
def test_alpha(name, sign, alpha):
    x, y = arr(A), arr(B)
    ref = A + sign * alpha * B
    np.testing.assert_allclose(to_np(getattr(x, name)(y, alpha=alpha)), ref)
    np.testing.assert_allclose(to_np(getattr(x, name)(2.0, alpha=alpha)), A + sign * alpha * 2.0)
    z = x.clone()
    r = getattr(z, name + "_")(y, alpha=alpha)
    assert r is z
    np.testing.assert_allclose(to_np(z), ref)


def test_add_inplace_alpha_is_not_a_closure_error():
    # The report: x.add_(y, alpha=2) raised a TypeError naming an internal closure.
    x = arr(A)
    x.add_(arr(B), alpha=2)
    np.testing.assert_allclose(to_np(x), A + 2 * B)
    with pytest.raises(TypeError, match="add_"):
        arr(A).add_(arr(B), alfa=2)


def test_alpha_float_on_integers_raises():
    x = xp.asarray([1, 2, 3])
    with pytest.raises(TypeError, match="alpha must be an integer"):
        x.add(x, alpha=0.5)
    assert x.add(x, alpha=3).tolist() == [4, 8, 12]


def test_alpha_gradient():
    x = xp.asarray(A, requires_grad=True)
    y = xp.asarray(B, requires_grad=True)
    x.sub(y, alpha=3).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), np.ones_like(A))
    np.testing.assert_allclose(to_np(y.grad), -3 * np.ones_like(B))


def test_namespace_keeps_the_standards_signature():
    # PyTorch's alpha= is accepted (tests/_torch/test_torch_spellings.py); the standard's
    # names and defaults stay: std/var default to correction=0
    np.testing.assert_allclose(to_np(xp.std(arr(A))), np.std(A))
    np.testing.assert_allclose(to_np(xp.var(arr(A), axis=0)), np.var(A, axis=0))


# --- std / var: unbiased by default, unbiased= and correction= ---------------------

@pytest.mark.parametrize("name", ["std", "var"])
def test_std_var_defaults_and_spellings(name):
    x, f = arr(A), getattr(np, name)
    np.testing.assert_allclose(to_np(getattr(x, name)()), f(A, ddof=1))
    np.testing.assert_allclose(to_np(getattr(x, name)(0)), f(A, axis=0, ddof=1))
    np.testing.assert_allclose(to_np(getattr(x, name)(1, False)), f(A, axis=1, ddof=0))
    np.testing.assert_allclose(to_np(getattr(x, name)(False)), f(A, ddof=0))
    np.testing.assert_allclose(to_np(getattr(x, name)(dim=1, unbiased=True, keepdim=True)),
                               f(A, axis=1, ddof=1, keepdims=True))
    np.testing.assert_allclose(to_np(getattr(x, name)(dim=(0, 1), correction=2)), f(A, ddof=2))
    np.testing.assert_allclose(to_np(getattr(x, name)(axis=0, keepdims=True, correction=0)),
                               f(A, axis=0, keepdims=True))
    with pytest.raises(TypeError, match="not both"):
        getattr(x, name)(unbiased=True, correction=1)


# --- dim / keepdim / dtype on the reductions ----------------------------------------

@pytest.mark.parametrize("name,ref", [("sum", np.sum), ("prod", np.prod), ("mean", np.mean),
                                      ("amax", np.max), ("amin", np.min)])
def test_reduction_positional_keepdim(name, ref):
    x = arr(A)
    np.testing.assert_allclose(to_np(getattr(x, name)(1, True)), ref(A, axis=1, keepdims=True))
    np.testing.assert_allclose(to_np(getattr(x, name)(dim=[0, 1])), ref(A))
    assert getattr(x, name)(0, keepdim=True).shape == (1, 3)


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "cumsum", "cumprod"])
def test_reduction_dtype(name):
    x = arr(A, xp.float32)
    r = getattr(x, name)(dim=0, dtype=xp.float64) if name.startswith("cum") else getattr(x, name)(dtype=xp.float64)
    assert r.dtype == xp.float64
    ref = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "cumsum": np.cumsum, "cumprod": np.cumprod}[name]
    np.testing.assert_allclose(to_np(r), ref(A.astype(np.float32).astype(np.float64), **(
        {"axis": 0} if name.startswith("cum") else {})), rtol=1e-6)


def test_too_many_positional_arguments():
    with pytest.raises(TypeError, match="sum\\(\\) takes at most 3"):
        arr(A).sum(0, True, xp.float64, 1)
    with pytest.raises(TypeError, match="multiple values"):
        arr(A).sum(0, dim=1)


# --- div's rounding_mode ---------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=8), st.integers(1, 9), st.booleans())
def test_div_rounding_modes(vals, d, neg):
    d = -d if neg else d
    a = np.array(vals, dtype=np.int64)
    x = xp.asarray(a)
    trunc = (np.trunc(a / d)).astype(np.int64)
    assert x.div(d, rounding_mode="trunc").tolist() == trunc.tolist()
    assert x.div(d, rounding_mode="floor").tolist() == (a // d).tolist()
    np.testing.assert_allclose(to_np(x.div(d)), a / d)
    f = xp.asarray(a.astype(np.float64))
    f.div_(float(d), rounding_mode="trunc")
    np.testing.assert_array_equal(to_np(f), np.trunc(a / d))
    with pytest.raises(ValueError, match="rounding_mode"):
        x.div(d, rounding_mode="round")


def _trunc_div(a: int, b: int) -> int:
    """C's (and PyTorch's) integer division: the quotient rounded toward zero, exactly."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-2**62, 2**62), min_size=1, max_size=6),
       st.lists(st.integers(-2**40, 2**40).filter(bool), min_size=1, max_size=1))
def test_div_trunc_of_large_integers_is_exact(vals, ds):
    # The quotient went through PyTorch's float32 true division: 2**24 + 1 came out 2**24.
    a = xp.asarray(np.array(vals, dtype=np.int64))
    d = ds[0]
    want = [_trunc_div(v, d) for v in vals]
    assert a.div(d, rounding_mode="trunc").tolist() == want
    dd = xp.asarray(np.full(len(vals), d, dtype=np.int64))
    r = a.div(dd, rounding_mode="trunc")
    assert r.dtype == xp.int64 and r.tolist() == want
    out = xp.empty((len(vals),), dtype=xp.int64)
    assert a.div(dd, rounding_mode="trunc", out=out) is out and out.tolist() == want


def test_div_trunc_small_integer_dtypes_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for dt in ("int8", "int16", "int32", "uint8"):
        a = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, 300, endpoint=True).astype(dt)
        b = rng.integers(1 if dt == "uint8" else -9, 10, 300).astype(dt)
        b[b == 0] = 1
        for other in (b, 7):
            t = torch.from_numpy(a).div(torch.from_numpy(b) if other is b else other, rounding_mode="trunc")
            r = xp.asarray(a).div(xp.asarray(b) if other is b else other, rounding_mode="trunc")
            assert str(t.dtype).removeprefix("torch.") == r.dtype.name
            np.testing.assert_array_equal(to_np(r), t.numpy())


# --- norm -------------------------------------------------------------------------------

def test_norm():
    x = arr(A)
    np.testing.assert_allclose(x.norm().item(), np.linalg.norm(A))
    np.testing.assert_allclose(to_np(x.norm(1, 1)), np.abs(A).sum(1))
    np.testing.assert_allclose(to_np(x.norm(float("inf"), dim=0, keepdim=True)), np.abs(A).max(0, keepdims=True))
    np.testing.assert_allclose(x.norm("nuc").item(), np.linalg.norm(A, "nuc"))
    np.testing.assert_allclose(x.norm("fro", dim=(0, 1)).item(), np.linalg.norm(A, "fro"))


# --- against PyTorch ---------------------------------------------------------------------

def test_against_pytorch():
    torch = pytest.importorskip("torch")
    x, y = arr(A), arr(B)
    t, u = torch.tensor(A), torch.tensor(B)
    cases = [
        (lambda v, w: v.add(w, alpha=2), None),
        (lambda v, w: v.sub(w, alpha=-1.5), None),
        (lambda v, w: v.std(), None), (lambda v, w: v.var(1), None),
        (lambda v, w: v.std(0, False, True), None),
        (lambda v, w: v.var(dim=1, correction=0), None),
        (lambda v, w: v.sum(1, True), None), (lambda v, w: v.mean(0), None),
        (lambda v, w: v.div(w, rounding_mode="floor"), None),
        (lambda v, w: v.div(w, rounding_mode="trunc"), None),
        (lambda v, w: v.norm(), None), (lambda v, w: v.norm(1, 0), None),
        (lambda v, w: v.cumsum(1), None), (lambda v, w: v.argmax(1, True), None),
        (lambda v, w: v.amax(0, True), None), (lambda v, w: v.prod(1), None),
    ]
    for fn, _ in cases:
        np.testing.assert_allclose(to_np(fn(x, y)), fn(t, u).numpy(), rtol=1e-12)


# --- NaN / inf to integer casts ---------------------------------------------------------

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e30, -1e30])
@pytest.mark.parametrize("dtype", [xp.int32, xp.int64])
def test_invalid_float_to_int_cast_warns_as_numpy_does(bad, dtype):
    a = np.array([1.5, bad, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    with pytest.warns(RuntimeWarning, match="invalid value") as rec:
        ref = a.astype(np.dtype(str(dtype)))
    with pytest.warns(RuntimeWarning, match=r"astype\(\): invalid value .* float64 to " + str(dtype)) as got:
        r = xp.asarray(a, device="cpu").astype(dtype)  # a GPU array is not checked (documented)
    assert got[0].filename == __file__  # at the caller's line, not inside strided
    assert r.dtype == dtype
    assert r.tolist()[0] == ref.tolist()[0] == 1  # the valid element is cast as NumPy casts it
    assert len(rec) == 1


@pytest.mark.parametrize("values,dtype,bad", [
    ([1.7, np.nan], xp.int32, True),  # NumPy's 2-element float32 kernel doesn't flag this one
    ([127.9, -128.9], xp.int8, False), ([128.0], xp.int8, True), ([-129.0], xp.int8, True),
    ([255.5, -0.5], xp.uint8, False), ([256.0], xp.uint8, True), ([-1.0], xp.uint8, True),
    ([2.0 ** 63], xp.int64, True), ([-2.0 ** 63], xp.int64, False), ([2.0 ** 64], xp.uint64, True),
    ([], xp.int32, False),
])
def test_cast_range_rule(values, dtype, bad):
    """Warn exactly when some value, truncated toward zero, is outside the target's range."""
    x = xp.asarray(np.array(values, dtype=np.float32 if len(values) == 2 else np.float64), device="cpu")
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        x.astype(dtype)
    assert (len(rec) == 1) is bad, rec


def test_valid_cast_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert xp.asarray([1.7, -2.2]).astype(xp.int32).tolist() == [1, -2]
        assert xp.asarray([np.nan]).astype(xp.bool).tolist() == [True]  # NumPy: no warning either
        assert xp.asarray([np.nan]).astype(xp.float32).tolist() != [0.0]


def test_cast_warning_can_be_made_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning, match="astype"):
            xp.asarray([np.nan], device="cpu").to(xp.int64)


# --- PyTorch's keyword names and positional orders, call by call, against PyTorch ------------

METHOD_CALLS = [
    "x.max(1, True)", "x.min(0, True)", "x.max(dim=1, keepdim=True).indices", "x.tril(1)",
    "x.triu(diagonal=-1)", "x.flip(dims=(0,))", "x.flip(0, 1)", "x.roll(shifts=1, dims=0)",
    "x.roll(1, 1)", "x.roll((1, 2), (0, 1))", "x.nonzero()", "x.nonzero(as_tuple=True)",
    "x.diagonal(1)", "x.diagonal(offset=0, dim1=1, dim2=0)", "x.diff(dim=0)", "x.diff(2)",
    "x.take(idx)", "x.squeeze(dim=0)", "x[None].squeeze(0)", "x[None, :, None].squeeze((0, 2))",
    "x.unsqueeze(dim=0)", "x.transpose(dim0=0, dim1=1)", "x.permute(dims=(1, 0))", "x.permute(1, 0)",
    "x.view(-1, 2)", "x.reshape(shape=(4, 3))", "x.sort(dim=0, descending=True, stable=True)",
    "x.argsort(dim=1, descending=True, stable=True)", "x.split(2, dim=1)", "x.chunk(2, dim=0)",
    "x.repeat_interleave(2, dim=0)", "x.clamp(min=2, max=5)", "x.pow(exponent=2)", "x.mul(other=2)",
    "x.clone().mul_(other=3)", "x.sub(other=x, alpha=2)", "x.cumsum(dim=1)",
    "x.narrow(dim=1, start=1, length=2)", "x.matmul(other=x.T)", "x.count_nonzero(dim=0)",
    "x.logsumexp(dim=1)", "x.any(dim=1)", "x.prod(dim=1, keepdim=True)", "x.sum(dim=(0, 1))",
    "x.mean(dim=-1)", "x.index_select(dim=0, index=sel)", "x.unbind(dim=1)", "x.amax(dim=(0, 1))",
    "x.argmax(dim=1, keepdim=True)", "x.div(other=2, rounding_mode='floor')", "x.where(x > 5, 0.0)",
    "x.masked_fill(mask=x > 3, value=1.0)", "x.flatten(start_dim=0)", "x.unflatten(1, (2, 2))",
    "x.topk(k=2, dim=0)", "x.var(dim=1, keepdim=True)", "x.std(unbiased=False)", "x.softmax(dim=1)",
    "x.log_softmax(dim=1)", "x.norm(p=2, dim=1)", "x.gather(dim=1, index=ix)", "x.size(dim=1)",
    "x.stride(dim=0)", "x.round(decimals=1)", "(x / 7).round(decimals=2)", "x.lerp(x * 2, 0.5)",
]


@pytest.mark.parametrize("call", METHOD_CALLS)
def test_method_spellings_against_pytorch(call):
    torch = pytest.importorskip("torch")
    base = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    got = []
    for lib in (torch, xp):
        env = {"x": lib.tensor(base.tolist()), "idx": lib.tensor([0, 5, 11]),
               "sel": lib.tensor([0, 2]), "ix": lib.tensor([[0], [1], [2]])}
        got.append(eval(call, env))  # noqa: S307

    def plain(v):
        if isinstance(v, (tuple, list)):
            return [plain(e) for e in v]
        if isinstance(v, torch.Tensor):
            return v.numpy()
        if isinstance(v, xp.Array):
            return to_np(v)
        return v

    def same(a, b):
        if isinstance(a, list):
            assert isinstance(b, list) and len(a) == len(b), call
            for p, q in zip(a, b):
                same(p, q)
        elif isinstance(a, np.ndarray):
            assert isinstance(b, np.ndarray) and (a.shape, a.dtype) == (b.shape, b.dtype), call
            np.testing.assert_allclose(b, a, rtol=1e-6, err_msg=call)
        else:
            assert a == b, call

    same(plain(got[0]), plain(got[1]))
