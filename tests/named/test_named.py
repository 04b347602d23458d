"""Named dimensions (strided.named): names on arrays, name rules through every operation.

References are NumPy (values, shapes, indexing) and the name rules spelled out
in issue 6 / PyTorch's named tensors. The registry tests enumerate the
namespace, so a new function without a name rule, or a new axis-taking
function that doesn't accept names, fails here.
"""

from __future__ import annotations

import copy
import inspect
import io
import pickle
import subprocess
import sys

import numpy as np
import pytest

import strided as xp
from strided import named
from strided._core.dispatch import _HANDLERS
from strided._api.elementwise import REGISTRY
from strided.named import DimensionNameError
from strided.named._handler import handler
from strided.named._rules import index_names

from conftest import assert_close


def arange(*shape, names=None, dtype=xp.float64):
    n = int(np.prod(shape))
    return xp.asarray(np.arange(1, n + 1, dtype=np.float64).reshape(shape), dtype=dtype).rename(
        *(names or (None,) * len(shape)))


def np_of(x) -> np.ndarray:
    return np.array(x._host(), copy=True)


NCH = ("N", "C", "H")


# --- the seed example of issue 6, as written --------------------------------------------------

def test_seed_example_runs_as_written():
    img_t = xp.rand(3, 5, 5)
    batch_t = xp.rand(2, 3, 5, 5)
    weights_named = xp.tensor([0.2126, 0.7152, 0.0722], names=['channels'])
    assert weights_named.names == ('channels',)
    assert "names=('channels',)" in repr(weights_named)

    img_named = img_t.refine_names(..., 'channels', 'rows', 'columns')
    batch_named = batch_t.refine_names(..., 'channels', 'rows', 'columns')
    assert img_named.names == ('channels', 'rows', 'columns')
    assert batch_named.names == (None, 'channels', 'rows', 'columns')
    assert img_named.rename(..., 'height', 'width').names == ('channels', 'height', 'width')
    assert batch_named.rename(..., None).names == (None, 'channels', 'rows', None)

    weights_aligned = weights_named.align_as(img_named)
    assert weights_aligned.shape == (3, 1, 1)
    assert weights_aligned.names == ('channels', 'rows', 'columns')

    gray_named = (img_named * weights_aligned).sum('channels')
    assert gray_named.shape == (5, 5) and gray_named.names == ('rows', 'columns')
    ref = (np_of(img_t) * np.array([0.2126, 0.7152, 0.0722], np.float32)[:, None, None]).sum(0)
    np.testing.assert_allclose(np_of(gray_named), ref, rtol=1e-6)

    gray_batch = (batch_named * weights_aligned).sum('channels')
    assert gray_batch.shape == (2, 5, 5) and gray_batch.names == (None, 'rows', 'columns')

    with pytest.raises(ValueError) as e:
        img_named[..., :3] * weights_named
    assert str(e.value) == (
        "Error when attempting to broadcast dims ['channels', 'rows', 'columns'] and dims "
        "['channels']: dim 'columns' and dim 'channels' are at the same position from the right "
        "but do not match.")
    assert isinstance(e.value, RuntimeError)  # PyTorch's exception type works too

    gray_plain = gray_named.rename(None)
    assert gray_plain.names == (None, None) and gray_plain._ext is None
    assert "names=" not in repr(gray_plain)


# --- names on arrays --------------------------------------------------------------------------

CREATION = {
    "asarray": lambda n: xp.asarray([[1, 2], [3, 4]], names=n),
    "tensor": lambda n: xp.tensor([[1.0, 2.0], [3.0, 4.0]], names=n),
    "zeros": lambda n: xp.zeros(2, 2, names=n),
    "ones": lambda n: xp.ones((2, 2), names=n),
    "empty": lambda n: xp.empty(2, 2, names=n),
    "full": lambda n: xp.full((2, 2), 7, names=n),
    "arange": lambda n: xp.arange(4, names=n[:1]),
    "linspace": lambda n: xp.linspace(0, 1, 4, names=n[:1]),
    "eye": lambda n: xp.eye(2, names=n),
    "zeros_like": lambda n: xp.zeros_like(xp.ones(2, 2), names=n),
    "ones_like": lambda n: xp.ones_like(xp.ones(2, 2), names=n),
    "empty_like": lambda n: xp.empty_like(xp.ones(2, 2), names=n),
    "full_like": lambda n: xp.full_like(xp.ones(2, 2), 3, names=n),
    "rand": lambda n: xp.rand(2, 2, names=n),
    "randn": lambda n: xp.randn(2, 2, names=n),
    "randint": lambda n: xp.randint(0, 5, (2, 2), names=n),
    "randperm": lambda n: xp.randperm(4, names=n[:1]),
    "normal": lambda n: xp.normal(0.0, 1.0, (2, 2), names=n),
    "rand_like": lambda n: xp.rand_like(xp.ones(2, 2), names=n),
    "randn_like": lambda n: xp.randn_like(xp.ones(2, 2), names=n),
}


def _with_names_param():
    out = set()
    for n in dir(xp):
        f = getattr(xp, n)
        if callable(f) and not isinstance(f, type):
            try:
                if "names" in inspect.signature(f).parameters:
                    out.add(n)
            except (TypeError, ValueError):
                pass
    return out


def test_every_function_with_names_is_tested():
    assert _with_names_param() == set(CREATION)


@pytest.mark.parametrize("func", sorted(CREATION))
def test_creation_names(func):
    x = CREATION[func](("rows", None))
    assert x.names == ("rows", None)[:x.ndim]
    assert x._ext.names == ("rows", None)[:x.ndim]


@pytest.mark.parametrize("func", ["zeros_like", "ones_like", "empty_like", "full_like",
                                  "rand_like", "randn_like"])
def test_like_functions_keep_names(func):
    x = xp.ones(2, 3, names=["N", "C"])
    args = (1.5,) if func == "full_like" else ()
    assert getattr(xp, func)(x, *args).names == ("N", "C")
    assert getattr(xp, func)(x, *args, names=[None, "D"]).names == (None, "D")


def test_creation_with_out_and_names_leaves_out_named():
    out = xp.zeros(2, 2)
    r = xp.ones(2, 2, out=out, names=["a", "b"])
    assert r.names == ("a", "b") and np_of(out).tolist() == [[1, 1], [1, 1]]
    assert r.storage() is out.storage()


def test_unnamed_arrays_carry_nothing():
    x = xp.ones(2, 3)
    assert x.names == (None, None) and x._ext is None and not x.has_names()
    y = (x + 1).sum(0)[1:]
    assert y._ext is None
    assert xp.zeros(3, names=[None])._ext is None


@pytest.mark.parametrize("names, err, msg", [
    (["a", "a"], DimensionNameError, "duplicate"),
    (["a"], DimensionNameError, "1 names"),
    (["a", 1], TypeError, "must be a str or None"),
    (["a", "not valid"], DimensionNameError, "invalid dimension name"),
    (["_a", None], DimensionNameError, "invalid dimension name"),
    ("ab", TypeError, "list or tuple"),
])
def test_bad_names_are_refused(names, err, msg):
    with pytest.raises(err, match=msg):
        xp.zeros(2, 3, names=names)


def test_names_setter_and_rename_in_place():
    x = xp.ones(2, 3)
    x.names = ["N", None]
    assert x.names == ("N", None)
    x.rename_(N="B")
    assert x.names == ("B", None)
    x.names = None
    assert x.names == (None, None)
    with pytest.raises(DimensionNameError):
        x.names = ["a", "a"]


def test_view_by_dtype_keeps_names():
    x = xp.zeros(2, 3, dtype=xp.float32, names=["N", "C"])
    assert x.view(xp.int32).names == ("N", "C")


# --- refine_names, rename, align_to, align_as, align ---------------------------------------------

def _is_view(v, x):
    return v.storage() is x.storage()


def test_refine_names():
    x = arange(2, 3, 4)
    y = x.refine_names("N", ..., "H")
    assert y.names == ("N", None, "H") and _is_view(y, x)
    assert y.refine_names(..., "C", "H").names == NCH
    assert y.refine_names(["N", "C", "H"]).names == NCH
    with pytest.raises(DimensionNameError, match="cannot coerce"):
        y.refine_names("M", "C", "H")
    with pytest.raises(DimensionNameError, match="cannot coerce"):
        y.refine_names(None, "C", "H")
    with pytest.raises(DimensionNameError, match="at most one"):
        x.refine_names(..., "a", ...)
    with pytest.raises(DimensionNameError, match="3 dimensions"):
        x.refine_names("a", "b")
    with pytest.raises(DimensionNameError, match="3 dimensions"):
        x.refine_names("a", "b", ..., "c", "d")
    with pytest.raises(DimensionNameError, match="duplicate"):
        x.refine_names("a", ..., "a")


def test_rename_forms():
    x = arange(2, 3, 4, names=NCH)
    assert x.rename("a", "b", "c").names == ("a", "b", "c")
    assert x.rename(..., "W").names == ("N", "C", "W")
    assert x.rename("B", ...).names == ("B", "C", "H")
    assert x.rename(C="channels", H=None).names == ("N", "channels", None)
    assert x.rename(None).names == (None, None, None)
    assert x.rename(..., None).names == ("N", "C", None)
    y = x.rename(N="B")
    assert _is_view(y, x) and x.names == NCH
    y[0, 0, 0] = -5.0
    assert np_of(x)[0, 0, 0] == -5.0
    with pytest.raises(DimensionNameError, match="not found"):
        x.rename(Q="q")
    with pytest.raises(TypeError, match="not both"):
        x.rename("a", ..., C="c")
    with pytest.raises(DimensionNameError, match="duplicate"):
        x.rename(C="N")


def test_align_to():
    x = arange(2, 3, names=["N", "C"])
    y = x.align_to("C", "H", "N")
    assert y.shape == (3, 1, 2) and y.names == ("C", "H", "N") and _is_view(y, x)
    np.testing.assert_array_equal(np_of(y)[:, 0, :], np_of(x).T)
    assert x.align_to("C", ...).names == ("C", "N")
    z = arange(2, 3, 4, names=[None, "C", "H"])
    w = z.align_to("H", ...)
    assert w.names == ("H", None, "C") and w.shape == (4, 2, 3)
    np.testing.assert_array_equal(np_of(w), np_of(z).transpose(2, 0, 1))
    assert z.align_to(..., "W", "C").names == (None, "H", "W", "C")
    with pytest.raises(DimensionNameError, match="must be named"):
        z.align_to("H", "C")
    with pytest.raises(DimensionNameError, match="not among"):
        x.align_to("C")
    with pytest.raises(DimensionNameError, match="at most one"):
        x.align_to(..., "C", ...)
    with pytest.raises(DimensionNameError, match="must be str"):
        x.align_to("C", None, "N")


def test_align_as():
    img = arange(3, 5, 5, names=["channels", "rows", "columns"])
    batch = arange(2, 3, 5, 5, names=[None, "channels", "rows", "columns"])
    w = xp.tensor([1.0, 2.0, 3.0], names=["channels"])
    wb = w.align_as(batch)
    assert wb.shape == (1, 3, 1, 1) and wb.names == (None, "channels", "rows", "columns")
    assert _is_view(wb, w)
    t = img.align_as(xp.ones(5, 3, 5, names=["columns", "channels", "rows"]))
    np.testing.assert_array_equal(np_of(t), np_of(img).transpose(2, 0, 1))
    with pytest.raises(DimensionNameError, match="not among"):
        img.align_as(w)
    with pytest.raises(DimensionNameError, match="leading unnamed"):
        batch.align_as(img)
    with pytest.raises(DimensionNameError, match="before the named"):
        w.align_as(xp.ones(3, 2, names=["channels", None]))


def test_align_several_arrays():
    a = arange(2, 3, names=["N", "C"])
    b = arange(4, 3, names=["H", "C"])
    c = arange(5, 3, names=[None, "C"])
    ra, rb, rc = named.align(a, b, c)
    assert ra.names == rb.names == rc.names == (None, "N", "C", "H")
    assert ra.shape == (1, 2, 3, 1) and rb.shape == (1, 1, 3, 4) and rc.shape == (5, 1, 3, 1)
    assert all(_is_view(r, s) for r, s in ((ra, a), (rb, b), (rc, c)))
    s = ra + rb + rc
    ref = (np_of(a)[None, :, :, None] + np_of(b).T[None, None] + np_of(c)[:, None, :, None])
    np.testing.assert_array_equal(np_of(s), ref)
    assert named.align([a])[0].names == ("N", "C") and named.align()  == ()


def test_auto_align():
    a = arange(2, 3, names=["N", "C"])
    b = arange(3, 2, names=["C", "N"])
    with pytest.raises(DimensionNameError):
        a + b
    with named.auto_align():
        s = a + b
        assert s.names == ("N", "C")
        np.testing.assert_array_equal(np_of(s), np_of(a) + np_of(b).T)
        h = arange(4, 3, names=["H", "C"])
        p = a * h
        assert p.names == ("N", "C", "H") and p.shape == (2, 3, 4)
        with named.auto_align(False):
            with pytest.raises(DimensionNameError):
                a + b
        a2 = a.clone()
        a2 += b
        np.testing.assert_array_equal(np_of(a2), np_of(a) + np_of(b).T)
        with pytest.raises(ValueError):
            a2 += h  # in place can't grow a new dim
    with pytest.raises(DimensionNameError):
        a + b


# --- elementwise: every registry row -------------------------------------------------------------

def _sample(row, shape, names, seed):
    rng = np.random.default_rng(seed)
    cat = row.category
    if cat == "boolean":
        v = rng.random(shape) > 0.5
    elif "integer" in cat and "floating" not in cat:
        v = rng.integers(1, 4, shape).astype(np.int64)
    else:
        v = rng.random(shape) * 0.8 + (1.1 if row.name == "acosh" else 0.1)
    if cat.startswith("complex"):
        v = v + 0.5j
    return xp.asarray(v).rename(*names)


@pytest.mark.parametrize("row", list(REGISTRY.values()), ids=lambda r: r.name)
def test_elementwise_row_names(row):
    f = row.func
    if row.nargs == 1:
        x = _sample(row, (2, 3), ("N", "C"), 0)
        r = f(x)
        assert r.names == ("N", "C")
        np.testing.assert_array_equal(np_of(r), np_of(f(x.rename(None))))
        return
    x1 = _sample(row, (2, 3, 4), (None, "C", "H"), 1)
    x2 = _sample(row, (3, 4), ("C", None), 2)
    r = f(x1, x2)
    assert r.names == (None, "C", "H")
    np.testing.assert_array_equal(np_of(r), np_of(f(x1.rename(None), x2.rename(None))))
    scalar = True if row.category == "boolean" else 2
    assert f(x1, scalar).names == x1.names and f(scalar, x2).names == x2.names
    with pytest.raises(DimensionNameError, match="same position from the right"):
        f(x1, x2.rename("C", "W"))
    # the same name at different positions from the right
    with pytest.raises(DimensionNameError, match="different position"):
        f(_sample(row, (3, 3), ("C", None), 3), _sample(row, (3, 3), (None, "C"), 4))


def test_elementwise_out_and_in_place_check_names():
    x = arange(2, 3, names=["N", "C"])
    out = xp.empty(2, 3)
    r = xp.add(x, 1.0, out=out)
    assert r is out and out.names == ("N", "C")
    with pytest.raises(DimensionNameError, match="out"):
        xp.add(x, 1.0, out=xp.empty(2, 3, names=["C", None]))
    with pytest.raises(DimensionNameError, match="out"):
        xp.exp(x, out=xp.empty(2, 3, names=["N", "D"]))
    y = xp.zeros(2, 3)
    y += x
    assert y.names == ("N", "C")
    z = arange(2, 3, names=["N", "D"])
    with pytest.raises(DimensionNameError):
        z += x
    assert z.names == ("N", "D")
    z.mul_(arange(3, names=["D"]))
    assert z.names == ("N", "D")
    with pytest.raises(DimensionNameError):
        z.add_(x)


def test_broadcasting_from_the_right_and_none_matches():
    a = arange(2, 3, 4, names=["N", None, "H"])
    b = arange(3, 1, names=["C", None])
    assert (a * b).names == ("N", "C", "H")
    assert (b - a).names == ("N", "C", "H")
    assert (arange(4) + a).names == ("N", None, "H")
    assert xp.where(a > 2, b, 0.0).names == ("N", "C", "H")
    assert xp.clip(a, b, 10.0).names == ("N", "C", "H")


# --- the rule table covers the namespace ----------------------------------------------------------

DISPATCHED_METHODS = {"getitem", "setitem", "t", "real_view", "zero_", "fill_", "copy_"}


def _public_functions():
    """The namespace's functions: strided's public callables, linalg's and fft's ``__all__``."""
    out = {}
    for prefix, mod in (("", xp), ("linalg.", xp.linalg), ("fft.", xp.fft)):
        for n in (getattr(mod, "__all__") if prefix else dir(mod)):
            f = getattr(mod, n)
            if n.startswith("_") or isinstance(f, type) or not callable(f) or inspect.ismodule(f):
                continue
            if getattr(f, "_composite", False):
                continue  # composites (strided.torch._composites): names checked by what they call
            out[prefix + n] = f
    return out


def test_every_namespace_function_has_a_name_rule():
    missing = []
    for qual, f in _public_functions().items():
        if hasattr(f, "_api_name"):
            if f._api_name not in named.RULES:
                missing.append(qual)
        elif hasattr(f, "_row"):
            if f._row.name not in named.RULES:
                missing.append(qual)
        elif qual.split(".")[-1] not in named.UNHOOKED:
            missing.append(qual)
    assert not missing, f"no name rule (strided.named.RULES) or UNHOOKED entry for {missing}"


def test_rule_table_has_no_stale_entries():
    known = set(REGISTRY) | DISPATCHED_METHODS
    for f in _public_functions().values():
        known.add(getattr(f, "_api_name", None))
    assert set(named.RULES) - known == set()


def test_an_operation_without_a_rule_raises_naming_it():
    x = arange(2, names=["N"])
    with pytest.raises(NotImplementedError, match="frobnicate"):
        handler("frobnicate", lambda x: x, (x,), {}, lambda *a: None)


# --- every axis-taking function accepts names -----------------------------------------------------

AXIS_PARAMS = {"axis", "axes", "dim", "axis1", "axis2", "source", "start_dim", "end_dim",
               "dim0", "dim1"}
# Their axis is a position in the result, where no name exists yet.
POSITIONAL = {"expand_dims", "unsqueeze", "stack"}


def _x():
    return arange(2, 3, 4, names=NCH)


def _idx():
    return xp.asarray([0, 2])


def _order():
    return xp.argsort(arange(2, 3, 4), axis=1)


def _y():
    return arange(3, 4, names=["C", "H"])


def _v3():
    return arange(2, 3, names=["N", "V"])


# name: (call with names, the same call with positions)
AXIS_CALLS = {
    "sum": (lambda x: xp.sum(x, axis="C"), lambda x: xp.sum(x, axis=1)),
    "prod": (lambda x: xp.prod(x, axis=("N", "H")), lambda x: xp.prod(x, axis=(0, 2))),
    "max": (lambda x: xp.max(x, axis="H", keepdims=True), lambda x: xp.max(x, axis=2, keepdims=True)),
    "min": (lambda x: xp.min(x, axis=["C"]), lambda x: xp.min(x, axis=(1,))),
    "mean": (lambda x: xp.mean(x, axis="N"), lambda x: xp.mean(x, axis=0)),
    "std": (lambda x: xp.std(x, axis="C", correction=1), lambda x: xp.std(x, axis=1, correction=1)),
    "var": (lambda x: xp.var(x, axis=("C", "H")), lambda x: xp.var(x, axis=(1, 2))),
    "all": (lambda x: xp.all(x > 3, axis="C"), lambda x: xp.all(x > 3, axis=1)),
    "any": (lambda x: xp.any(x > 20, axis="H"), lambda x: xp.any(x > 20, axis=2)),
    "count_nonzero": (lambda x: xp.count_nonzero(x > 5, axis="C"),
                      lambda x: xp.count_nonzero(x > 5, axis=1)),
    "argmax": (lambda x: xp.argmax(x, axis="C"), lambda x: xp.argmax(x, axis=1)),
    "argmin": (lambda x: xp.argmin(x, axis="H", keepdims=True),
               lambda x: xp.argmin(x, axis=2, keepdims=True)),
    "argsort": (lambda x: xp.argsort(x, axis="C", descending=True),
                lambda x: xp.argsort(x, axis=1, descending=True)),
    "sort": (lambda x: xp.sort(x, axis="N"), lambda x: xp.sort(x, axis=0)),
    "cumulative_sum": (lambda x: xp.cumulative_sum(x, axis="C"), lambda x: xp.cumulative_sum(x, axis=1)),
    "cumulative_prod": (lambda x: xp.cumulative_prod(x, axis="H", include_initial=True),
                        lambda x: xp.cumulative_prod(x, axis=2, include_initial=True)),
    "diff": (lambda x: xp.diff(x, axis="C"), lambda x: xp.diff(x, axis=1)),
    "flip": (lambda x: xp.flip(x, axis=("C", "N")), lambda x: xp.flip(x, axis=(1, 0))),
    "roll": (lambda x: xp.roll(x, 1, axis="H"), lambda x: xp.roll(x, 1, axis=2)),
    "repeat": (lambda x: xp.repeat(x, 2, axis="C"), lambda x: xp.repeat(x, 2, axis=1)),
    "take": (lambda x: xp.take(x, _idx(), axis="C"), lambda x: xp.take(x, _idx(), axis=1)),
    "take_along_axis": (lambda x: xp.take_along_axis(x, _order(), axis="C"),
                        lambda x: xp.take_along_axis(x, _order(), axis=1)),
    "concat": (lambda x: xp.concat([x, x], axis="C"), lambda x: xp.concat([x, x], axis=1)),
    "cat": (lambda x: xp.cat([x, x], dim="H"), lambda x: xp.cat([x, x], dim=2)),
    "unstack": (lambda x: xp.unstack(x, axis="C"), lambda x: xp.unstack(x, axis=1)),
    "split": (lambda x: xp.split(x, 2, dim="H"), lambda x: xp.split(x, 2, dim=2)),
    "chunk": (lambda x: xp.chunk(x, 2, axis="N"), lambda x: xp.chunk(x, 2, axis=0)),
    "narrow": (lambda x: xp.narrow(x, "H", 1, 2), lambda x: xp.narrow(x, 2, 1, 2)),
    "unfold": (lambda x: xp.unfold(x, "H", 2, 1), lambda x: xp.unfold(x, 2, 2, 1)),
    "squeeze": (lambda x: xp.squeeze(x[:, :1], axis="C"), lambda x: xp.squeeze(x[:, :1], axis=1)),
    "permute_dims": (lambda x: xp.permute_dims(x, ("H", "N", "C")), lambda x: xp.permute_dims(x, (2, 0, 1))),
    "moveaxis": (lambda x: xp.moveaxis(x, "H", 0), lambda x: xp.moveaxis(x, 2, 0)),
    "movedim": (lambda x: xp.movedim(x, ("N", "C"), (2, 1)), lambda x: xp.movedim(x, (0, 1), (2, 1))),
    "swapdims": (lambda x: xp.swapdims(x, "N", "H"), lambda x: xp.swapdims(x, 0, 2)),
    "transpose": (lambda x: xp.transpose(x, "C", "H"), lambda x: xp.transpose(x, 1, 2)),
    "diagonal": (lambda x: xp.diagonal(x, axis1="N", axis2="H"), lambda x: xp.diagonal(x, axis1=0, axis2=2)),
    "flatten": (lambda x: xp.flatten(x, "C", "H"), lambda x: xp.flatten(x, 1, 2)),
    "unflatten": (lambda x: xp.unflatten(x, "H", (2, 2)), lambda x: xp.unflatten(x, 2, (2, 2))),
    "tensordot": (lambda x: xp.tensordot(x, _y(), axes=(("C", "H"), ("C", "H"))),
                  lambda x: xp.tensordot(x, _y(), axes=((1, 2), (0, 1)))),
    "vecdot": (lambda x: xp.vecdot(x, x, axis="C"), lambda x: xp.vecdot(x, x, axis=-2)),
    "linalg.tensordot": (lambda x: xp.linalg.tensordot(x, _y().rename(C="K"), axes=(["H"], ["H"])),
                         lambda x: xp.linalg.tensordot(x, _y().rename(C="K"), axes=([2], [1]))),
    "linalg.vecdot": (lambda x: xp.linalg.vecdot(x, _y(), axis="H"),
                      lambda x: xp.linalg.vecdot(x, _y(), axis=-1)),
    "linalg.cross": (lambda x: xp.linalg.cross(_v3(), _v3() * 2 + 1, axis="V"),
                     lambda x: xp.linalg.cross(_v3(), _v3() * 2 + 1, axis=-1)),
    "linalg.vector_norm": (lambda x: xp.linalg.vector_norm(x, axis=("N", "C")),
                           lambda x: xp.linalg.vector_norm(x, axis=(0, 1))),
    "fft.fft": (lambda x: xp.fft.fft(x, axis="C"), lambda x: xp.fft.fft(x, axis=1)),
    "fft.ifft": (lambda x: xp.fft.ifft(x, axis="N"), lambda x: xp.fft.ifft(x, axis=0)),
    "fft.rfft": (lambda x: xp.fft.rfft(x, axis="H"), lambda x: xp.fft.rfft(x, axis=2)),
    "fft.irfft": (lambda x: xp.fft.irfft(x, axis="C"), lambda x: xp.fft.irfft(x, axis=1)),
    "fft.hfft": (lambda x: xp.fft.hfft(x, axis="C"), lambda x: xp.fft.hfft(x, axis=1)),
    "fft.ihfft": (lambda x: xp.fft.ihfft(x, axis="H"), lambda x: xp.fft.ihfft(x, axis=2)),
    "fft.fftn": (lambda x: xp.fft.fftn(x, axes=("C", "H")), lambda x: xp.fft.fftn(x, axes=(1, 2))),
    "fft.ifftn": (lambda x: xp.fft.ifftn(x, axes=["N"]), lambda x: xp.fft.ifftn(x, axes=[0])),
    "fft.rfftn": (lambda x: xp.fft.rfftn(x, axes=("N", "H")), lambda x: xp.fft.rfftn(x, axes=(0, 2))),
    "fft.irfftn": (lambda x: xp.fft.irfftn(x, axes=("C",)), lambda x: xp.fft.irfftn(x, axes=(1,))),
    "fft.fftshift": (lambda x: xp.fft.fftshift(x, axes="C"), lambda x: xp.fft.fftshift(x, axes=1)),
    "fft.ifftshift": (lambda x: xp.fft.ifftshift(x, axes=("N", "H")),
                      lambda x: xp.fft.ifftshift(x, axes=(0, 2))),
}


def _axis_taking():
    out = set()
    for qual, f in _public_functions().items():
        try:
            params = inspect.signature(f).parameters
        except (TypeError, ValueError):
            continue
        if AXIS_PARAMS & set(params):
            out.add(qual)
    return out


def test_every_axis_taking_function_is_checked_with_names():
    assert _axis_taking() - POSITIONAL == set(AXIS_CALLS)


def _results(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


@pytest.mark.parametrize("func", sorted(AXIS_CALLS))
def test_axis_taking_function_accepts_names(func):
    by_name, by_pos = AXIS_CALLS[func]
    x = _x()
    got, want = _results(by_name(x)), _results(by_pos(x))
    plain = _results(by_pos(x.rename(None)))
    assert len(got) == len(want) == len(plain)
    for g, w, p in zip(got, want, plain):
        assert g.names == w.names
        assert g.shape == p.shape
        np.testing.assert_allclose(np_of(g), np_of(p), rtol=1e-12)


def test_methods_accept_names():
    x = _x()
    assert x.sum("C").names == ("N", "H")
    assert x.sum(dim="H", keepdim=True).names == NCH
    assert x.mean(("N", "H")).names == ("C",)
    assert x.transpose("N", "H").names == ("H", "C", "N")
    assert x.permute("C", "H", "N").names == ("C", "H", "N")
    assert x.max("C").values.names == x.max("C").indices.names == ("N", "H")
    assert x.sort("C").values.names == NCH
    assert x[:, :1].squeeze("C").names == ("N", "H")
    assert x.argmax("H").names == ("N", "C")
    assert x.cumsum("C").names == NCH
    assert x.unbind("C")[0].names == ("N", "H")
    assert x.norm(dim="H").names == ("N", "C")


def test_unknown_names_raise():
    x = _x()
    with pytest.raises(DimensionNameError, match="'W' not found"):
        x.sum("W")
    with pytest.raises(DimensionNameError, match="not found"):
        xp.concat([x, x], axis="W")
    with pytest.raises(ValueError, match="not found"):
        arange(2, 3).sum("C")  # an unnamed array has no names to find


# --- reductions, shapes and views ------------------------------------------------------------------

def test_reductions_drop_or_keep_names():
    x = _x()
    assert xp.sum(x).names == ()
    assert xp.sum(x, keepdims=True).names == NCH
    assert xp.argmax(x).names == ()
    assert xp.argmax(x, keepdims=True).names == NCH
    assert xp.var(x, axis=(0, "H")).names == ("C",)
    assert xp.linalg.vector_norm(x).names == ()
    out = xp.empty(2, 4)
    assert xp.sum(x, axis="C", out=out) is out and out.names == ("N", "H")
    with pytest.raises(DimensionNameError, match="out"):
        xp.sum(x, axis="C", out=xp.empty(2, 4, names=["H", None]))


def test_shape_functions():
    x = _x()
    assert x.reshape(6, 4).names == (None, None)
    assert x.view(2, 12).names == (None, None)
    assert xp.reshape(x, (24,))._ext is None
    assert xp.flatten(x).names == (None,)
    assert xp.flatten(x, 0, 1).names == (None, "H")
    assert xp.flatten(x, "C", "C").names == NCH
    assert x.flatten(["C", "H"], "CH").names == ("N", "CH")
    assert xp.flatten(x, ["N", "C"], "NC").shape == (6, 4)
    with pytest.raises(ValueError, match="consecutive"):
        x.flatten(["N", "H"], "NH")
    u = x.unflatten("H", (("h1", 2), ("h2", 2)))
    assert u.names == ("N", "C", "h1", "h2") and u.shape == (2, 3, 2, 2) and _is_view(u, x)
    assert x.unflatten("H", (2, -1)).names == ("N", "C", None, None)
    assert xp.unflatten(x, 1, (("c1", 1), ("c2", 3))).names == ("N", "c1", "c2", "H")
    plain = arange(2, 6)
    assert plain.unflatten(1, (("a", 2), ("b", 3))).names == (None, "a", "b")
    assert named.flatten(plain, [0, 1], "all").names == ("all",)
    with pytest.raises(DimensionNameError, match="duplicate"):
        x.unflatten("H", (("N", 2), ("h2", 2)))
    assert xp.expand_dims(x, axis=(0, 2)).names == (None, "N", None, "C", "H")
    assert xp.stack([x, x], axis=-1).names == NCH + (None,)
    assert xp.broadcast_to(x, (5, 2, 3, 4)).names == (None,) + NCH
    assert [a.names for a in xp.broadcast_arrays(x, arange(4, names=["H"]))] == [NCH, NCH]
    assert xp.tile(x, (2, 1, 1, 1)).names == (None,) + NCH
    assert xp.repeat(x, 2).names == (None,)
    assert x.mT.names == ("N", "H", "C")
    assert xp.matrix_transpose(x).names == ("N", "H", "C")
    assert xp.moveaxis(x, ("N", "C"), (-1, -2)).names == ("H", "C", "N")
    assert xp.squeeze(arange(1, 3, 1, names=["a", "b", "c"])).names == ("b",)
    assert x[0].t().names == ("H", "C")
    assert arange(3, names=["a"]).t().names == ("a",)
    c = xp.asarray(np.ones((2, 3)) + 1j).rename("a", "b")
    assert c.real.names == c.imag.names == ("a", "b")
    assert xp.meshgrid(arange(2, names=["x"]), arange(3, names=["y"]))[0].names == ("y", "x")
    assert xp.meshgrid(arange(2, names=["x"]), arange(3), indexing="ij")[1].names == ("x", None)
    with pytest.raises(DimensionNameError):
        xp.concat([x, x.rename(N="B")])
    assert xp.concat([x, x.rename(None)], axis=None).names == (None,)
    assert xp.concat([x.rename(N=None), x.rename(C=None)], axis=0).names == NCH


def test_copies_and_casts_keep_names():
    x = _x()
    for y in (x.clone(), xp.astype(x, xp.float32), x.float(), x.to("cpu"), x.contiguous(),
              xp.tril(x), xp.triu(x), x.detach(), x.data, xp.asarray(x), xp.tensor(x),
              copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert y.names == NCH


# --- indexing ------------------------------------------------------------------------------------

SHAPE4 = (2, 3, 4, 5)
NAMES4 = ("a", "b", "c", "d")


def _mask(*shape):
    return np.arange(int(np.prod(shape))).reshape(shape) % 2 == 0


INDEX_KEYS = [
    0, -1, slice(1, None), (slice(None), 0), (Ellipsis, 0), (0, Ellipsis, 1), (None, 0),
    (Ellipsis, None), (slice(None), None, 1), (slice(None, None, -1), Ellipsis, slice(1, 3)),
    [0, 1], ([1, 0],), (slice(None), [0, 2, 1]), (slice(None), [0, 1], [1, 2]),
    ([0, 1], slice(None), [1, 2]), (0, slice(None), [0, 1]), (slice(None), [0, 1], 0),
    (Ellipsis, [1, 0, 1]), (slice(None), [0, 1, 0], Ellipsis, [1, 2, 3]),
    (slice(None), [0, 1, 0], None, [1, 2, 3]), ([[0, 1], [1, 0]],), (_mask(2),),
    (slice(None), _mask(3, 4)), True, (slice(None), True), (slice(None), False, 0),
    (np.array(1), slice(None)), (slice(None), np.array([2, 0])),
]


@pytest.mark.parametrize("key", INDEX_KEYS, ids=repr)
def test_indexing_names_follow_numpy(key):
    x = arange(*SHAPE4, names=NAMES4)
    r = x[key]
    probes = [np.indices(SHAPE4)[i][key] for i in range(4)]
    assert tuple(r.shape) == probes[0].shape
    assert len(r.names) == r.ndim
    if r.size == 0:
        return
    for j, n in enumerate(r.names):
        varies = [i for i in range(4) if np.ptp(probes[i], axis=j).any()]
        if n is not None:
            src = NAMES4.index(n)
            assert varies in ([src], []), (j, n, varies)
        elif len(varies) == 1 and r.shape[j] > 1:
            # a dim that comes from exactly one input dim keeps its name, unless
            # that input dim spread over several result dims
            others = [k for k in range(r.ndim) if k != j
                      and np.ptp(probes[varies[0]], axis=k).any()]
            assert others, (j, varies)


def test_index_names_basic_rules():
    assert index_names(NAMES4, (0,)) == ("b", "c", "d")
    assert index_names(NAMES4, (slice(None), 0, None)) == ("a", None, "c", "d")
    assert index_names(NAMES4, ([0, 1], slice(None), [0, 1])) == (None, "b", "d")
    assert index_names(NAMES4, (slice(None), [0, 1])) == ("a", "b", "c", "d")
    x = arange(3, 4, names=["r", "c"])
    assert x[xp.asarray([True, False, True])].names == ("r", "c")
    assert x[xp.asarray(np.ones((3, 4), bool))].names == (None,)
    assert x[:, xp.asarray(1)].names == ("r",)


def test_setitem_checks_names():
    x = arange(2, 3, names=["N", "C"])
    x[0] = arange(3, names=["C"])
    x[:, 1] = arange(2, names=["N"])
    x[...] = 0.0
    x[[0, 1]] = arange(3, names=[None])
    with pytest.raises(DimensionNameError, match="broadcast"):
        x[0] = arange(3, names=["N"])
    with pytest.raises(DimensionNameError):
        x[...] = arange(2, 3, names=["C", "N"])
    assert x.names == ("N", "C")
    y = xp.zeros(2, 3)
    y[...] = arange(2, 3, names=["N", "C"])
    assert y.names == (None, None)


def test_copy_fill_zero_in_place():
    x = arange(2, 3, names=["N", "C"])
    x.copy_(arange(3, names=["C"]))
    x.fill_(1.0)
    x.zero_()
    assert x.names == ("N", "C")
    with pytest.raises(DimensionNameError):
        x.copy_(arange(3, names=["N"]))


# --- linear algebra -------------------------------------------------------------------------------

def test_matmul_contracts_names():
    a = arange(2, 3, 4, names=["B", "i", "j"])
    b = arange(4, 5, names=["j", "k"])
    assert (a @ b).names == ("B", "i", "k")
    assert xp.matmul(a, b.rename(None)).names == ("B", "i", None)
    assert xp.matmul(arange(4, names=["j"]), b).names == ("k",)
    assert xp.matmul(a, arange(4, names=["j"])).names == ("B", "i")
    assert xp.matmul(arange(4, names=["j"]), arange(4, names=["j"])).names == ()
    with pytest.raises(DimensionNameError, match="'j' and 'q'"):
        a @ b.rename(j="q")
    with pytest.raises(DimensionNameError, match="two dims named 'i'"):
        arange(3, 4, names=["i", "j"]) @ arange(4, 3, names=["j", "i"])
    assert xp.mm(arange(3, 4, names=["i", "j"]), b).names == ("i", "k")
    assert xp.bmm(a, arange(2, 4, 5, names=["B", None, "k"])).names == ("B", "i", "k")
    assert xp.dot(arange(3, names=["i"]), arange(3)).names == ()
    with pytest.raises(DimensionNameError):
        xp.dot(arange(3, names=["i"]), arange(3, names=["j"]))
    assert xp.outer(arange(2, names=["i"]), arange(3, names=["j"])).names == ("i", "j")
    with pytest.raises(DimensionNameError, match="two dims"):
        xp.outer(arange(2, names=["i"]), arange(3, names=["i"]))
    np.testing.assert_allclose(np_of(a @ b), np_of(a) @ np_of(b))


def test_tensordot_vecdot_einsum_contract_names():
    a = arange(2, 3, 4, names=["N", "C", "H"])
    b = arange(3, 4, 5, names=["C", "H", "W"])
    assert xp.tensordot(a, b, axes=2).names == ("N", "W")
    with pytest.raises(DimensionNameError, match="can't contract"):
        xp.tensordot(a, b.rename(C="X"), axes=2)
    assert xp.vecdot(a, arange(3, 4, names=["C", "H"])).names == ("N", "C")
    with pytest.raises(DimensionNameError):
        xp.vecdot(a, arange(3, 4, names=["C", "W"]))
    e = xp.einsum("nch,chw->nw", a, b)
    assert e.names == ("N", "W")
    np.testing.assert_allclose(np_of(e), np.einsum("nch,chw->nw", np_of(a), np_of(b)))
    assert xp.einsum("nch,chw", a, b).names == ("N", "W")
    assert xp.einsum("...h,hw->...w", a, b[0]).names == ("N", "C", "W")
    assert xp.einsum("ij->ji", arange(2, 3, names=["i", None])).names == (None, "i")
    with pytest.raises(DimensionNameError, match="subscript 'c'"):
        xp.einsum("nch,chw->nw", a, b.rename(C="K"))
    with pytest.raises(DimensionNameError):
        xp.einsum("ii", arange(3, 3, names=["i", "j"]))


def test_linalg_names():
    m = xp.asarray(np.eye(3) * 2 + 0.1).rename("i", "j")
    s = xp.asarray(np.stack([np.eye(3) * 2 + 0.1] * 2)).rename("B", "i", "j")
    assert xp.linalg.inv(m).names == ("j", "i")
    assert xp.linalg.pinv(m).names == ("j", "i")
    assert xp.linalg.det(s).names == ("B",)
    assert [a.names for a in xp.linalg.slogdet(s)] == [("B",), ("B",)]
    assert xp.linalg.cholesky(s).names == ("B", "i", "j")
    assert xp.linalg.matrix_power(s, 2).names == ("B", "i", "j")
    assert xp.linalg.matrix_rank(s).names == ("B",)
    assert xp.linalg.matrix_norm(s).names == ("B",)
    assert xp.linalg.matrix_norm(s, keepdims=True).names == ("B", "i", "j")
    assert xp.linalg.trace(s).names == ("B",)
    assert xp.trace(m).names == ()
    assert xp.linalg.diagonal(s).names == ("B", None)
    assert xp.diag(m).names == (None,)
    q, r = xp.linalg.qr(s)
    assert q.names == ("B", "i", None) and r.names == ("B", None, "j")
    u, sv, vh = xp.linalg.svd(s)
    assert (u.names, sv.names, vh.names) == (("B", "i", None), ("B", None), ("B", None, "j"))
    assert xp.linalg.svdvals(s).names == ("B", None)
    w, v = xp.linalg.eigh(s)
    assert w.names == ("B", None) and v.names == ("B", "i", None)
    assert xp.linalg.eig(m)[1].names == ("i", None)
    assert xp.linalg.eigvals(m).names == xp.linalg.eigvalsh(m).names == (None,)
    rhs = arange(3, 2, names=["i", "k"])
    assert xp.linalg.solve(m, rhs).names == ("j", "k")
    assert xp.linalg.solve(m, arange(3, names=["i"])).names == ("j",)
    with pytest.raises(DimensionNameError):
        xp.linalg.solve(m, rhs.rename(i="z"))


def test_searching_and_sets():
    x = arange(2, 3, names=["N", "C"])
    assert xp.searchsorted(arange(5, names=["s"]), x).names == ("N", "C")
    assert xp.isin(x, arange(3)).names == ("N", "C")
    assert [a.names for a in xp.nonzero(x)] == [(None,), (None,)]
    assert xp.unique_values(x).names == (None,)
    r = xp.unique_all(x)
    assert r.inverse_indices.names == ("N", "C") and r.values.names == (None,)
    assert type(r).__name__ == "UniqueAllResult"
    assert xp.unique_inverse(x).inverse_indices.names == ("N", "C")
    assert xp.unique_counts(x).counts.names == (None,)
    assert xp.take(x, xp.asarray([[0, 1], [1, 1]]), axis="C").names == ("N", None, None)
    assert xp.take(arange(4), arange(2, dtype=xp.int64).rename("k") - 1).names == ("k",)


# --- autograd, save/load --------------------------------------------------------------------------

def test_gradients_carry_names():
    w = xp.rand(3, names=["C"], requires_grad=True)
    x = xp.rand(2, 3, 4, names=list(NCH), requires_grad=True)
    y = (x * w.align_as(x)).sum("C").mean()
    y.backward()
    assert w.grad.names == ("C",) and x.grad.names == NCH
    np.testing.assert_allclose(np_of(w.grad), np_of(x).sum((0, 2)) / 8, rtol=1e-6)


@pytest.mark.parametrize("op", [
    lambda x: x.flip("C").sum("H"),
    lambda x: xp.take(x, xp.asarray([0, 2]), axis="C"),
    lambda x: xp.roll(x, 1, axis="H").cumsum("C"),
    lambda x: x.transpose("N", "H").unflatten("H", (("a", 2), ("b", 2))),
    lambda x: x.align_to("H", "C", "N").flatten(["C", "N"], "CN"),
    lambda x: x.rename(C="K").refine_names(..., "K", "H")[0],
    lambda x: xp.concat([x, x], axis="C").mean(("N", "C")),
    lambda x: xp.linalg.vector_norm(x, axis="H"),
    lambda x: xp.sort(x, axis="C"),
])
def test_backward_through_named_axes(op):
    x = xp.rand(2, 3, 4, dtype=xp.float64, names=list(NCH), requires_grad=True)
    y = op(x)
    (y * y).sum().backward()
    g = np_of(x.grad)
    x0 = x.detach().rename(None)
    eps = 1e-6
    d = np.random.default_rng(0).standard_normal(x0.shape)
    num = 0.0
    for s in (1, -1):
        xs = (x0 + s * eps * xp.asarray(d)).refine_names(*NCH)
        num += s * float(xp.sum(op(xs) * op(xs)).rename(None)) / (2 * eps)
    np.testing.assert_allclose((g * d).sum(), num, rtol=1e-5)
    assert x.grad.names == NCH


def test_save_load_round_trip(tmp_path):
    x = arange(2, 3, names=["rows", None])
    p = tmp_path / "x.strided"
    xp.save({"x": x, "y": arange(2)}, p)
    d = xp.load(p)
    assert d["x"].names == ("rows", None) and d["y"]._ext is None
    np.testing.assert_array_equal(np_of(d["x"]), np_of(x))
    buf = io.BytesIO()
    xp.save(xp.ones(2, requires_grad=True, names=["k"]), buf)
    buf.seek(0)
    y = xp.load(buf)
    assert y.names == ("k",) and y.requires_grad and y.is_leaf


# --- zero cost when unused --------------------------------------------------------------------------

def test_handler_is_installed_on_first_names_only():
    code = (
        "import strided as xp\n"
        "from strided._core.array import HOOK\n"
        "from strided._core.dispatch import _HANDLERS\n"
        "x = xp.ones(2, 3); y = (x + 1).sum(0)[1:]; xp.zeros_like(x); x.t()\n"
        "assert HOOK[0] is None and not _HANDLERS and y._ext is None\n"
        "z = x.rename('a', 'b')\n"
        "assert [p for p, _ in _HANDLERS] == [10] and HOOK[0] is not None\n"
        "assert x._ext is None and (x + 1)._ext is None\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == "ok", r.stderr
    assert handler in [h for _, h in _HANDLERS]


def test_arrays_with_only_autograd_metadata_keep_working():
    a = xp.ones(2, 2, requires_grad=True)
    arange(2, names=["n"])  # handler installed
    b = (a * 2).sum(0)
    assert b._ext.names is None and b.names == (None,)
    b.sum().backward()
    assert a.grad.names == (None, None) and a.grad._ext is None


def test_hdf5_round_trip(tmp_path):
    pytest.importorskip("h5py")
    from strided import io as sio
    x = arange(2, 3, 4, names=["batch", None, "cols"])
    sio.save_hdf5(tmp_path / "n.h5", {"x": x})
    y = sio.load_hdf5(tmp_path / "n.h5")["x"]
    assert y.names == ("batch", None, "cols")
    np.testing.assert_array_equal(np_of(y), np_of(x))
    with sio.open_hdf5(tmp_path / "n.h5") as f:
        assert f["x"][0, :, 1:].names == (None, "cols")


def test_docstring_examples_run():
    import doctest

    import strided.named._ops as ops
    for mod in (named, ops):
        r = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert r.failed == 0 and r.attempted > 0, mod.__name__


def test_bad_arguments_get_the_operations_own_errors():
    x = _x()
    with pytest.raises(IndexError, match=r"sum\(\): axis 5 is out of bounds"):
        xp.sum(x, axis=5)
    with pytest.raises(TypeError):
        xp.sum(x, axis=1, bogus=True)
    with pytest.raises(ValueError, match="broadcast"):
        xp.broadcast_to(x, (4,))
    with pytest.raises(TypeError, match=r"exp\(\): expected an array"):
        xp.exp(2.0, out=xp.empty(3, names=["a"]))


def test_a_failing_rule_is_loud(monkeypatch):
    def broken(p):
        raise KeyError("oops")
    monkeypatch.setitem(named.RULES, "flip", broken)
    with pytest.raises(RuntimeError, match="flip.*rule failed"):
        xp.flip(_x())


def test_named_out_of_a_function_without_array_inputs():
    out = xp.empty(4, names=["freq"])
    assert xp.fft.fftfreq(4, out=out) is out and out.names == ("freq",)


# --- the cached fast paths (named/_handler.entry): every call after the first takes them ---

@pytest.mark.parametrize("op", ["add", "multiply", "less", "maximum", "atan2"])
def test_repeated_binary_call_keeps_names_and_values(op):
    """The first call runs the name rule; the repeats take the cache. Both must agree with
    NumPy's values and the broadcast-from-the-right name rule, for every operand kind."""
    x = arange(2, 3, names=("N", "C"))
    y = arange(3, names=("C",)) + 0.5
    u = arange(2, 3)  # unnamed: its dims take the other operand's names
    cases = [(x, x, ("N", "C")), (x, y, ("N", "C")), (y, x, ("N", "C")), (x, u, ("N", "C")),
             (u, y, (None, "C")), (x, 2.0, ("N", "C")), (3.0, y, ("C",))]
    f = getattr(xp, op)
    ref = getattr(np, {"atan2": "arctan2"}.get(op, op))
    for a, b, names in cases:
        na = np_of(a) if isinstance(a, xp.Array) else a
        nb = np_of(b) if isinstance(b, xp.Array) else b
        for _ in range(3):
            r = f(a, b)
            assert r.names == names
            assert_close(r, ref(na, nb), ulps=op)  # a GPU's atan2 within its documented ulps
    # the result's metadata is its own: marking it for autograd leaves the inputs alone
    r = x + x
    r.requires_grad_()
    assert not x.requires_grad and not (x + x).requires_grad and (x + x).names == ("N", "C")


def test_repeated_binary_call_with_conflicting_names_still_raises():
    x = arange(2, 3, names=("N", "C"))
    z = arange(2, 3, names=("N", "H"))
    for _ in range(3):
        with pytest.raises(DimensionNameError):
            x + z


@pytest.mark.parametrize("func", ["sum", "mean", "max", "prod", "std"])
def test_repeated_named_reduction_matches_numpy(func):
    x = arange(2, 3, 4, names=NCH)
    nx = np_of(x)
    for axis, pos in (("C", 1), ("N", 0), ("H", 2)):
        for _ in range(3):
            r = getattr(xp, func)(x, axis=axis)
            assert r.names == tuple(n for n in NCH if n != axis)
            np.testing.assert_allclose(np_of(r), getattr(np, func)(nx, axis=pos))
            k = getattr(xp, func)(x, axis=axis, keepdims=True)
            assert k.names == NCH and k.shape == tuple(1 if n == axis else s
                                                         for n, s in zip(NCH, x.shape))
    # a name the array lacks still raises after the cache has seen the valid ones
    with pytest.raises(DimensionNameError):
        getattr(xp, func)(x, axis="W")


def test_named_reduction_cache_tells_axis_types_apart():
    x = xp.asarray(np.arange(6.0).reshape(2, 3)).rename("N", "C")
    assert xp.sum(x, axis=1).names == ("N",)
    with pytest.raises(TypeError):  # a bool axis is an error, even after axis=1 was cached
        xp.sum(x, axis=True)
    assert xp.sum(x, axis=1).names == ("N",)


def test_named_fast_paths_under_autograd():
    """Names and gradients both flow when the autograd link sits behind the names link."""
    import strided.autograd  # noqa: F401  (installs its handler)
    w = xp.asarray(np.arange(1.0, 7.0).reshape(2, 3)).rename("N", "C").requires_grad_()
    for _ in range(2):
        y = w * w + w
        assert y.names == ("N", "C") and y.requires_grad
        s = xp.sum(y, axis="C")
        assert s.names == ("N",)
        s.sum().backward()
        np.testing.assert_allclose(np_of(w.grad.rename(None)), 2 * np.arange(1.0, 7.0).reshape(2, 3) + 1)
        w.grad = None
