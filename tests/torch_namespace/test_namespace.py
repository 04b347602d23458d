"""``strided.torch``'s function semantics (src/strided/torch/_functions.py) against PyTorch
2.13: values, dtypes, return types (named tuples of values and indices), positional dims,
PyTorch's defaults (std/var unbiased), names and aliases, and gradients for a few."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
A = RNG.permutation(24).reshape(2, 3, 4).astype(np.float64) / 7 - 1.5  # distinct values
B = RNG.standard_normal((2, 3, 4))
I = RNG.integers(-5, 5, (3, 4))


def pair(a):
    return xp.asarray(a), torch.tensor(a)


def check(got, want, rtol=1e-12):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        if hasattr(want, "_fields") or hasattr(want, "n_fields"):
            assert type(got).__name__ == type(want).__name__
            for f in ("values", "indices", "min", "max"):
                if hasattr(want, f):
                    check(getattr(got, f), getattr(want, f), rtol)
        for g, w in zip(got, want):
            check(g, w, rtol)
        return
    if isinstance(want, torch.Tensor):
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
        assert tuple(got.shape) == tuple(want.shape)
        w = want.detach().numpy()
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(host(got), w)
        else:
            np.testing.assert_allclose(host(got), w, rtol=rtol, atol=1e-14)
    else:
        assert got == want


# (name, args after the input, kwargs): the same call spelled for both libraries
CALLS = [
    ("sum", (0,), {}), ("sum", ((0, 1), True), {}), ("sum", (), {"dim": 2, "keepdim": True}),
    ("sum", ([0, 2],), {}), ("prod", (1,), {}), ("mean", ((0, 1), True), {}), ("mean", (), {}),
    ("nansum", (1,), {}), ("amax", (1,), {}), ("amin", ((0, 2),), {"keepdim": True}),
    ("argmax", (2,), {}), ("argmin", (1, True), {}), ("argmax", (), {}),
    ("std", (0,), {}), ("std", (), {}), ("var", (1,), {"keepdim": True}), ("var", (1, False), {}),
    ("std", (), {"dim": 2, "correction": 0}), ("var", (), {"unbiased": False}),
    ("max", (1,), {}), ("max", (), {"dim": 2, "keepdim": True}), ("min", (0,), {}), ("max", (), {}),
    ("min", (), {}), ("sort", (1,), {}), ("sort", (), {"descending": True}), ("argsort", (0,), {}),
    ("topk", (2,), {}), ("topk", (2, 1, False), {}), ("kthvalue", (2, 1), {}),
    ("kthvalue", (3,), {"keepdim": True}), ("median", (1,), {}), ("median", (), {}),
    ("aminmax", (), {}), ("aminmax", (), {"dim": 1}), ("logsumexp", (1,), {}),
    ("count_nonzero", (1,), {}), ("flip", ((0, 2),), {}), ("roll", (1, 2), {}),
    ("diff", (), {"dim": 1}), ("quantile", (0.3,), {"dim": 1}), ("std_mean", (1,), {}),
    ("var_mean", (), {"dim": 0}),
]


@pytest.mark.parametrize("name, args, kwargs", CALLS, ids=[f"{c[0]}{c[1]}{c[2]}" for c in CALLS])
def test_function_matches_pytorch(name, args, kwargs):
    src = B if name in ("quantile", "std", "var", "std_mean", "var_mean", "logsumexp") else A
    x, t = pair(src)
    want = getattr(torch, name)(t, *args, **kwargs)
    got = getattr(st, name)(x, *args, **kwargs)
    check(got, want)


def test_named_tuples_index_and_unpack_as_pytorch():
    x, t = pair(A)
    r = st.max(x, 1)
    w = torch.max(t, 1)
    values, indices = r
    assert r[0] is values and r.values is values and r.indices is indices and len(r) == 2
    check(values, w.values)
    check(r[1], w[1])
    _, index = st.max(x, 1)  # the classic
    check(index, torch.max(t, 1)[1])
    assert "return_types.max" in repr(r)
    assert st.return_types.max is type(r)


def test_squeeze_is_pytorchs():
    x, t = pair(np.ones((2, 1, 3)))
    check(st.squeeze(x, 0), torch.squeeze(t, 0))  # size 2: left as is (the standard raises)
    check(st.squeeze(x, 1), torch.squeeze(t, 1))
    check(st.squeeze(x), torch.squeeze(t))


def test_cat_stack_and_aliases():
    x, t = pair(A)
    y, u = pair(B)
    for name in ("cat", "concat", "concatenate"):
        check(getattr(st, name)([x, y], 1), getattr(torch, name)([t, u], 1))
    check(st.stack([x, y], dim=2), torch.stack([t, u], dim=2))
    for name in ("lt", "gt", "le", "ge", "eq", "ne", "mul", "sub", "true_divide", "div", "multiply",
                 "subtract", "divide"):
        check(getattr(st, name)(x, y), getattr(torch, name)(t, u))
    for name in ("absolute", "neg", "arctan", "arcsinh"):
        check(getattr(st, name)(y), getattr(torch, name)(u))
    check(st.clip(y, -0.5, 0.5), torch.clip(u, -0.5, 0.5))
    check(st.sub(x, y, alpha=2), torch.sub(t, u, alpha=2))
    xi, ti = pair(I)
    check(st.div(xi, 3, rounding_mode="floor"), torch.div(ti, 3, rounding_mode="floor"))
    check(st.div(xi, 3, rounding_mode="trunc"), torch.div(ti, 3, rounding_mode="trunc"))
    check(st.div(xi, 3), torch.div(ti, 3))


def test_numel_and_is_tensor():
    x, t = pair(A)
    assert st.numel(x) == torch.numel(t) == 24
    assert st.is_tensor(x) is True and st.is_tensor(A) is False and st.is_tensor(3) is False


def test_max_with_another_array_is_maximum():
    x, t = pair(A)
    y, u = pair(B)
    check(st.max(x, y), torch.max(t, u))
    check(st.min(x, other=y), torch.min(t, other=u))


def test_out_pairs_and_out():
    x, t = pair(A)
    v, i = xp.empty((2, 4), dtype=xp.float64), xp.empty((2, 4), dtype=xp.int64)
    r = st.max(x, 1, out=(v, i))
    w = torch.max(t, 1)
    assert r[0] is v and r[1] is i
    check(v, w.values)
    check(i, w.indices)
    o = xp.empty((3, 4), dtype=xp.float64)
    assert st.sum(x, 0, out=o) is o
    check(o, torch.sum(t, 0))


def test_gradients_match_pytorch():
    x = xp.asarray(B, requires_grad=True)
    t = torch.tensor(B, requires_grad=True)
    (st.max(x, 1).values.sum() + st.std(x, 0).sum() + st.sum(x, (0, 2)).prod()
     + st.kthvalue(x, 2, 2).values.sum() + st.sort(x, 0, True).values[0].sum()).backward()
    (torch.max(t, 1).values.sum() + torch.std(t, 0).sum() + torch.sum(t, (0, 2)).prod()
     + torch.kthvalue(t, 2, 2).values.sum() + torch.sort(t, 0, True).values[0].sum()).backward()
    np.testing.assert_allclose(host(x.grad), t.grad.numpy(), rtol=1e-10)


def test_the_standard_namespace_stays_the_standards():
    x = xp.asarray(B)
    np.testing.assert_allclose(host(xp.std(x, axis=0)), np.std(B, axis=0))
    with pytest.raises(TypeError, match="strided.torch.std"):
        xp.std(x, dim=0)
    np.testing.assert_allclose(host(st.std(x, dim=0)), np.std(B, axis=0, ddof=1))


def test_every_name_is_exported_and_torchs():
    from strided.torch import _functions
    from strided.torch._keyword_names import unnamed

    for name in _functions.__all__:
        assert hasattr(st, name), name
        if name != "return_types":
            got = unnamed(getattr(st, name))  # (behind PyTorch's parameter names: _keyword_names)
            # (or _functions' under the wrapper that promotes 0-d operands as PyTorch does)
            assert (got.__wrapped__ if hasattr(got, "__wrapped_promotion__") else got) \
                is getattr(_functions, name), name
            assert hasattr(torch, name), f"{name} is not one of PyTorch's names"


def test_wrong_calls_are_type_errors():
    x = xp.asarray(A)
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        st.sum(x, axis=0)
    with pytest.raises(TypeError, match="multiple values"):
        st.sum(x, 0, dim=1)
    with pytest.raises(TypeError, match="missing required argument 'k'"):
        st.topk(x)


@pytest.mark.parametrize("same_dtype", [True, False])
@pytest.mark.parametrize("flags", [(), (False,), (True,), (False, False), (False, True)])
def test_to_takes_pytorchs_positional_non_blocking_and_copy(same_dtype, flags):
    # Tensor.to(device, dtype, non_blocking=False, copy=False): a copy exactly where PyTorch makes one
    x, xt = st.ones(3, device="cpu"), torch.ones(3)
    got = x.to("cpu", st.float32 if same_dtype else st.float64, *flags)
    want = xt.to("cpu", torch.float32 if same_dtype else torch.float64, *flags)
    assert (got is x) == (want is xt)
    assert got.tolist() == want.tolist()
