"""PyTorch's keyword spellings in the namespace functions (the binding stage,
src/strided/_core/call/bind.py): every function whose PyTorch twin takes dim/keepdim/dims/
alpha/out accepts them, with the same result as the standard's spelling; both spellings at
once is a TypeError naming both; where PyTorch's spelling would give another result than
PyTorch's (std/var's default, max/min's pair) it is refused, naming strided.torch. And
Tensor.equal is PyTorch's (a bool)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import strided as xp
from strided._core.call import bind as spellings
from conftest import host

RNG = np.random.default_rng(3)
A = RNG.random((3, 4)) + 0.5
I = RNG.integers(0, 5, (3, 4))


def arr(a=A, device=None):
    return xp.asarray(a, device=device)


# name -> (positional arguments, the standard's keywords, PyTorch's keywords of the same call)
CALLS = {
    "sum": ((arr(),), dict(axis=1, keepdims=True), dict(dim=1, keepdim=True)),
    "prod": ((arr(),), dict(axis=0), dict(dim=0)),
    "mean": ((arr(),), dict(axis=(0, 1), keepdims=True), dict(dim=(0, 1), keepdim=True)),
    # (correction given: without it dim= is refused, see test_refused_where_pytorch_differs)
    "std": ((arr(),), dict(axis=0, correction=1), dict(dim=0, correction=1)),
    "var": ((arr(),), dict(axis=1, keepdims=True, correction=0), dict(dim=1, keepdim=True, correction=0)),
    "all": ((arr() > 0.7,), dict(axis=1), dict(dim=1)),
    "any": ((arr() > 0.7,), dict(axis=0, keepdims=True), dict(dim=0, keepdim=True)),
    "argmax": ((arr(),), dict(axis=1), dict(dim=1)),
    "argmin": ((arr(),), dict(axis=0, keepdims=True), dict(dim=0, keepdim=True)),
    "nansum": ((arr(),), dict(axis=1), dict(dim=1)),
    "count_nonzero": ((arr(I),), dict(axis=1), dict(dim=1)),
    "median": ((arr(),), dict(axis=1), dict(dim=1)),
    "nanmedian": ((arr(),), dict(axis=0, keepdims=True), dict(dim=0, keepdim=True)),
    "nanmean": ((arr(),), dict(axis=1), dict(dim=1)),
    "quantile": ((arr(), 0.3), dict(axis=1), dict(dim=1)),
    "nanquantile": ((arr(), 0.3), dict(axis=0, keepdims=True), dict(dim=0, keepdim=True)),
    "concat": (([arr(), arr()],), dict(axis=1), dict(dim=1)),
    "stack": (([arr(), arr()],), dict(axis=2), dict(dim=2)),
    "sort": ((arr(),), dict(axis=0), dict(dim=0)),
    "argsort": ((arr(),), dict(axis=0), dict(dim=0)),
    "squeeze": ((xp.ones((3, 1)),), dict(axis=1), dict(dim=1)),
    "diff": ((arr(),), dict(axis=0), dict(dim=0)),
    "flip": ((arr(),), dict(axis=1), dict(dims=1)),
    "roll": ((arr(), 1), dict(axis=0), dict(dims=0)),
}


# name -> a call with PyTorch's spelling whose PyTorch meaning differs from the standard's
REFUSED = {
    "max": lambda: xp.max(arr(), dim=1),  # torch.max(x, dim=1) is (values, indices)
    "min": lambda: xp.min(arr(), dim=0, keepdim=True),
}


def test_every_table_entry_is_checked():
    renamed = {n for n, kws in spellings.DECLARED.items() if set(kws) & set(spellings.RENAMED)}
    assert renamed == set(CALLS) | set(REFUSED)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_pytorch_spelling_is_the_standards(name):
    args, std, torch_kw = CALLS[name]
    f = getattr(xp, name)
    want, got = f(*args, **std), f(*args, **torch_kw)
    np.testing.assert_array_equal(host(got), host(want))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_both_spellings_is_a_type_error_naming_both(name):
    args, std, torch_kw = CALLS[name]
    k, s = next((k, spellings.RENAMED[k]) for k in torch_kw if k in spellings.RENAMED)
    kwargs = {**torch_kw, s: std.get(s, 0)}
    with pytest.raises(TypeError, match=rf"{name}\(\) got both {s}= and {k}="):
        getattr(xp, name)(*args, **kwargs)


def test_a_pytorch_keyword_given_as_the_standards_default_still_counts_as_both():
    with pytest.raises(TypeError, match="both axis= and dim="):
        xp.concat([arr(), arr()], axis=0, dim=0)
    with pytest.raises(TypeError, match="both keepdims= and keepdim="):
        xp.sum(arr(), keepdims=False, keepdim=True)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_where_pytorch_differs(name):
    with pytest.raises(TypeError, match=rf"strided\.torch\.{name}"):
        REFUSED[name]()


def test_standard_names_and_defaults_stay():
    np.testing.assert_allclose(host(xp.std(arr(), axis=0)), np.std(A, axis=0))  # population
    with pytest.raises(TypeError, match=r"torch\.std divides by n - 1.*strided\.torch\.std"):
        xp.std(arr(), dim=0)  # torch.std(x, dim=0) is unbiased: not silently the population value
    with pytest.raises(TypeError, match=r"strided\.torch\.var"):
        xp.var(arr(), dim=1, keepdim=True)
    with pytest.raises(TypeError, match=r"correction="):
        xp.var(arr(), unbiased=True)
    assert xp.max(arr(), axis=1).shape == (3,)  # values
    with pytest.raises(TypeError, match=r"strided\.torch\.max\(x, 1\)"):
        xp.max(arr(), 1)
    with pytest.raises(TypeError, match=r"axis by keyword.*strided\.torch\.sum"):
        xp.sum(arr(), 1)  # axis stays keyword-only, with a hint
    with pytest.raises(TypeError, match=r"strided\.torch\.mean"):
        xp.mean(arr(), (0, 1), True)


def test_alpha_scales_the_second_operand():
    a, b = arr(), arr(A[::-1])
    np.testing.assert_allclose(host(xp.add(a, b, alpha=2)), A + 2 * A[::-1])
    np.testing.assert_allclose(host(xp.subtract(a, 1.5, alpha=-2)), A + 3.0)
    out = xp.empty((3, 4), dtype=xp.float64)
    assert xp.add(a, b, alpha=0.5, out=out) is out
    np.testing.assert_allclose(host(out), A + 0.5 * A[::-1])
    with pytest.raises(TypeError, match="alpha must be an integer"):
        xp.add(arr(I), arr(I), alpha=0.5)
    np.testing.assert_array_equal(host(xp.add(arr(I), arr(I), alpha=3)), I + 3 * I)


OUT_CALLS = {
    "clamp": lambda out: xp.clamp(arr(), 0.7, 1.0, out=out),
    "logsumexp": lambda out: xp.logsumexp(arr(), 1, out=out),
    "median": lambda out: xp.median(arr(), dim=1, out=out),
    "nanmean": lambda out: xp.nanmean(arr(), dim=1, out=out),
    "quantile": lambda out: xp.quantile(arr(), 0.5, dim=1, out=out),
    "sigmoid": lambda out: xp.sigmoid(arr(A[:, 0]), out=out),
    "kron": lambda out: xp.kron(arr(A[:, :1]), arr(A[:1, :1]), out=out),
}


def test_out_pairs_for_functions_that_return_pairs():
    v, i = xp.topk(arr(), 2)
    out = (xp.empty_like(v), xp.empty_like(i))
    r = xp.topk(arr(), 2, out=out)
    assert r[0] is out[0] and r[1] is out[1] and r.values is out[0]
    assert host(out[1]).tolist() == host(i).tolist()
    with pytest.raises(TypeError, match="tuple of 2"):
        xp.topk(arr(), 2, out=xp.empty_like(v))


@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_out_writes_into_an_existing_array(name):
    want = OUT_CALLS[name](None)
    out = xp.empty(tuple(want.shape), dtype=want.dtype)
    assert OUT_CALLS[name](out) is out
    np.testing.assert_allclose(host(out), host(want))
    with pytest.raises(ValueError, match="shape"):
        OUT_CALLS[name](xp.empty((7,), dtype=want.dtype))


def test_out_entries_are_all_callable_with_out():
    import inspect

    for name, kws in spellings.DECLARED.items():
        if "out" in kws:
            f = getattr(xp, name)
            assert getattr(f, "_torch_keywords", None) == kws, name
            assert "out" in inspect.signature(f).parameters, f"{name}'s signature lacks out="


def test_extensions_see_the_standards_names():
    x = xp.asarray(A, requires_grad=True)
    xp.sum(xp.sum(x * x, dim=1, keepdim=True)).backward()
    np.testing.assert_allclose(host(x.grad), 2 * A)
    named = xp.asarray(A, names=("N", "C"))
    assert xp.sum(named, dim="C").names == ("N",)
    assert xp.mean(named, dim=0, keepdim=True).names == ("N", "C")


def test_no_source_is_compiled_again():
    # The definition is called as written (its code is its module's), and the signature
    # shows the PyTorch keywords the function accepts (the docs are generated from it).
    import inspect
    from strided._api import statistics

    from strided._api import searching

    impl = xp.count_nonzero._impl  # bound by its declaration (bind.DECLARED)
    assert "dim" not in impl.__code__.co_varnames
    assert impl.__code__ is inspect.unwrap(searching.count_nonzero._impl).__code__
    assert xp.count_nonzero(arr(), dim=1).shape == (3,)
    # argmax/argmin and all/any declare dim/keepdim themselves, as the hot reductions do
    assert xp.argmax._impl.__code__ is searching.argmax._impl.__code__
    assert xp.argmax(arr(), dim=1).shape == (3,)
    # the hot reductions declare dim/keepdim in their definitions (no binding frame)
    assert xp.sum._impl.__code__ is statistics.sum._impl.__code__
    assert "dim" not in inspect.signature(xp.sum._impl).parameters  # what handlers bind against
    params = inspect.signature(xp.sum).parameters
    assert {"axis", "keepdims", "dim", "keepdim"} <= set(params)
    assert params["dim"].kind is inspect.Parameter.KEYWORD_ONLY and params["keepdim"].default is False
    assert "alpha" in inspect.signature(xp.add).parameters
    assert "alpha" not in inspect.signature(xp.multiply).parameters
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        xp.multiply(arr(), arr(), alpha=2)


def test_docstrings_name_the_spellings():
    assert "PyTorch's spellings accepted too: ``dim`` (``axis``)" in xp.sum.__doc__


# --- the table is complete: PyTorch's documented signatures -----------------------------------

def _torch_keywords(torch, name):
    """The dim/keepdim/dims/alpha/out keywords of torch.<name>'s documented signatures."""
    doc = getattr(getattr(torch, name, None), "__doc__", None) or ""
    sigs = [line for line in doc.splitlines()[:40] if re.match(rf"\s*{name}\(", line)]
    found = set()
    for line in sigs:
        params = line[line.index("(") + 1:line.rfind(")")]
        found |= {p for p in ("dim", "keepdim", "dims", "alpha", "out")
                  if re.search(rf"\b{p}\b\s*[=:,)]", params + ")")}
    return found


def test_every_function_whose_pytorch_twin_takes_them_accepts_them():
    torch = pytest.importorskip("torch")
    import inspect

    missing = []
    for name in dir(xp):
        f = getattr(xp, name)
        if name.startswith("_") or not callable(f) or isinstance(f, type) or not hasattr(torch, name):
            continue
        try:
            ours = set(inspect.signature(f).parameters)
        except (TypeError, ValueError):
            continue
        ours |= set(getattr(f, "_torch_keywords", None) or ())
        if "axis" in ours:
            ours |= {"dim", "dims"}
        if "keepdims" in ours:
            ours |= {"keepdim"}
        lacking = _torch_keywords(torch, name) - ours
        if lacking and name not in NOT_TWINS:
            missing.append(f"{name}: {sorted(lacking)}")
    assert not missing, "namespace functions lacking their PyTorch twin's keywords:\n" + "\n".join(missing)


# Same name, another function: the keyword means something else there (recorded in
# docs/torch-differences.md).
NOT_TWINS = {
    "nonzero": "the standard's nonzero returns a tuple of index arrays (PyTorch's out= is one (n, ndim) array)",
    "take": "the standard's take(x, indices, axis=) gathers along an axis; torch.take indexes the flattened input",
    "unique": "strided.unique is PyTorch's (sorted, return_inverse, ...), no dim=",
    "tile": "torch.tile's dims are the repetitions (the standard's reps), not dimensions",
}


# --- Tensor.equal ----------------------------------------------------------------------------

def test_tensor_equal_is_pytorchs_bool():
    a = arr(I)
    assert a.equal(arr(I)) is True and a.equal(arr(I.astype(float))) is True
    assert a.equal(arr(I + 1)) is False and a.equal(arr(I[None])) is False
    assert xp.asarray([float("nan")]).equal(xp.asarray([float("nan")])) is False
    assert xp.asarray([]).equal(xp.asarray([])) is True
    assert type(a.eq(a)) is xp.Array and type(xp.equal(a, a)) is xp.Array  # elementwise
    with pytest.raises(TypeError, match="strided array"):
        a.equal(1)
    torch = pytest.importorskip("torch")
    assert torch.tensor(I).equal(torch.tensor(I.astype(float))) is True


def test_if_a_equal_b_works():
    a = arr()
    if a.equal(arr()):
        pass
    else:
        pytest.fail("equal arrays")
