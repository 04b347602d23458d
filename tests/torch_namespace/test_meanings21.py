"""PyTorch words that meant something else in strided.torch, against PyTorch 2.13: ``torch.norm``'s
``p``/``dim`` combinations, ``copy.deepcopy`` of non-leaves, lazy (uninitialized) parameters,
inference tensors, ``F.embedding``'s index dtype, ``nn.init`` on empty tensors, a parameter's
repr, and a differential sweep of the Tensor methods a training script calls."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import to_numpy


def _both(arr):
    return torch.tensor(arr), storch.tensor(arr)


def _outcome(lib, fn):
    """("ok", numpy value, dtype name) or ("err", exception type name, message)."""
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 (compared with the other library's)
        return ("err", type(e).__name__, str(e))
    return ("ok", to_numpy(r), str(r.dtype).split(".")[-1])


def _same(fn, rtol=1e-5, atol=1e-6, fragment=True):
    t, s = _outcome(torch, fn), _outcome(storch, fn)
    assert t[0] == s[0], (t, s)
    if t[0] == "err":
        assert s[1] == t[1], (t, s)
        if fragment:  # PyTorch's message, less its leading "op: " name, is in strided's
            assert t[2].split(": ", 1)[-1][:40] in s[2], (t, s)
    else:
        assert s[2] == t[2], (t, s)
        assert s[1].shape == t[1].shape, (t, s)
        np.testing.assert_allclose(s[1], t[1], rtol=rtol, atol=atol)


# --- 1. torch.norm ------------------------------------------------------------------------------

_P = ["fro", "nuc", 1, 2, 0, 3.5, math.inf, -math.inf, None, "abc"]
_DIMS = [None, (), [], 0, -1, (0,), [1, 0], (0, 1), (0, 1, 2), (0, -3), (0, 5)]


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("p", _P)
@pytest.mark.parametrize("dim", _DIMS)
def test_norm_p_dim_combinations(shape, p, dim):
    a = np.random.default_rng(0).standard_normal(shape)
    for keepdim in (False, True):
        _same(lambda lib: lib.norm(lib.tensor(a), p, dim, keepdim))
        _same(lambda lib: lib.tensor(a.astype("float32")).norm(p=p, dim=dim, keepdim=keepdim))


@pytest.mark.parametrize("p", ["fro", "nuc", 2, math.inf])
@pytest.mark.parametrize("dtype_in,dtype", [("float32", "float64"), ("float64", "complex128"),
                                            ("complex64", None), ("complex64", "complex128"),
                                            ("complex64", "float32"), ("int64", None),
                                            ("int64", "float32")])
def test_norm_dtype(p, dtype_in, dtype):
    a = np.random.default_rng(1).standard_normal((3, 4)) * 3
    a = (a + 1j * a[::-1]) if dtype_in.startswith("complex") else a
    a = a.astype(dtype_in)

    def f(lib):
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        return lib.norm(lib.tensor(a), p, **kw)
    _same(f)


def test_norm_fro_over_three_dims_raises_as_pytorch():
    x = storch.ones(2, 3, 4)
    assert float(storch.norm(x)) == pytest.approx(math.sqrt(24))  # (dim=None: the 2-norm of all)
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple. Got 0 1 2"):
        storch.norm(x, dim=(0, 1, 2))
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        storch.norm(x, "nuc")
    with pytest.raises(RuntimeError, match="dims must be different"):
        storch.norm(storch.ones(2, 3), "nuc", (1, -1))


@pytest.mark.parametrize("p,dim", [("fro", None), ("fro", (0, 1)), ("nuc", None), (3, 1),
                                   (math.inf, (0, 1)), (1, None)])
def test_norm_gradient_and_out(p, dim):
    a = np.random.default_rng(2).standard_normal((3, 4))
    t = torch.tensor(a, requires_grad=True)
    s = storch.tensor(a, requires_grad=True)
    rt, rs = torch.norm(t, p, dim), storch.norm(s, p, dim)
    (rt * torch.arange(rt.numel(), dtype=rt.dtype).reshape(rt.shape)).sum().backward()
    (rs * storch.arange(rs.numel(), dtype=rs.dtype).reshape(rs.shape)).sum().backward()
    np.testing.assert_allclose(to_numpy(rs), rt.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(to_numpy(s.grad), t.grad.numpy(), rtol=1e-9, atol=1e-12)
    out_t, out_s = torch.empty(rt.shape, dtype=torch.float64), storch.empty(rs.shape, dtype=storch.float64)
    torch.norm(t.detach(), p, dim, False, out_t)  # (the fifth positional is out, as PyTorch's)
    storch.norm(s.detach(), p, dim, False, out_s)
    np.testing.assert_allclose(to_numpy(out_s), out_t.numpy(), rtol=1e-10)


# --- 3. uninitialized (lazy) parameters and buffers ---------------------------------------------

def _lazy_pair(kind):
    if kind == "param":
        return torch.nn.LazyLinear(3).weight, storch.nn.LazyLinear(3).weight
    return torch.nn.LazyBatchNorm1d().running_mean, storch.nn.LazyBatchNorm1d().running_mean


@pytest.mark.parametrize("kind", ["param", "buffer"])
def test_uninitialized_repr_isinstance_is_lazy(kind):
    t, s = _lazy_pair(kind)
    assert repr(s) == repr(t) and str(s) == str(t)
    for cls in ("UninitializedParameter", "UninitializedBuffer"):
        assert isinstance(s, getattr(storch.nn.parameter, cls)) == isinstance(t, getattr(torch.nn.parameter, cls))
    assert isinstance(s, storch.nn.Parameter) == isinstance(t, torch.nn.Parameter)
    assert storch.nn.parameter.is_lazy(s) and torch.nn.parameter.is_lazy(t)
    assert not storch.nn.parameter.is_lazy(storch.ones(1))


def test_uninitialized_state_dict_and_materialize():
    mt, ms = torch.nn.LazyLinear(3), storch.nn.LazyLinear(3)
    assert repr(ms.state_dict()).replace("OrderedDict", "") == repr(mt.state_dict()).replace("OrderedDict", "")
    assert repr(ms) == repr(mt)
    opt_t, opt_s = torch.optim.SGD(mt.parameters(), lr=0.1), storch.optim.SGD(ms.parameters(), lr=0.1)
    assert len(opt_s.param_groups[0]["params"]) == len(opt_t.param_groups[0]["params"]) == 2
    for m, lib in ((mt, torch), (ms, storch)):
        m(lib.ones(2, 5))
    assert tuple(ms.weight.shape) == tuple(mt.weight.shape) == (3, 5)
    assert repr(ms.weight).startswith("Parameter containing:\ntensor([[")
    assert not storch.nn.parameter.is_lazy(ms.weight)
    p = storch.nn.UninitializedParameter(dtype=storch.float64)
    p.materialize((2, 4))
    assert tuple(p.shape) == (2, 4) and p.dtype == storch.float64 and repr(p).startswith("Parameter containing:")


@pytest.mark.parametrize("name", ["uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
                                  "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"])
@pytest.mark.parametrize("kind", ["param", "buffer"])
def test_init_of_uninitialized_raises(name, kind):
    t, s = _lazy_pair(kind)
    args = (0.5,) if name == "constant_" else ()
    if name == "kaiming_normal_":  # (PyTorch's reads the shape first)
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized") as et:
            getattr(torch.nn.init, name)(t, *args)
        with pytest.raises(RuntimeError) as es:
            getattr(storch.nn.init, name)(s, *args)
        assert str(es.value) == str(et.value)
        return
    with pytest.raises(ValueError) as et:
        getattr(torch.nn.init, name)(t, *args)
    with pytest.raises(ValueError) as es:
        getattr(storch.nn.init, name)(s, *args)
    msg_t, msg_s = str(et.value), str(es.value)
    assert msg_s.startswith("Attempted to use an uninitialized parameter in <function ")
    assert msg_s.split(">", 1)[1] == msg_t.split(">", 1)[1]  # (PyTorch names its own function object)


# --- 6. nn.init of zero-element tensors ---------------------------------------------------------

_INITS = ["uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "xavier_uniform_",
          "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]


def _init_outcome(lib, name, shape, kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x = lib.full(shape, 7.0)
        args = (0.5,) if name == "constant_" else ()
        try:
            getattr(lib.nn.init, name)(x, *args, **kw)
            r = ("ok", to_numpy(x).shape, bool((to_numpy(x) == 7.0).all()) if 0 in shape else None)
        except Exception as e:  # noqa: BLE001
            r = ("err", type(e).__name__, str(e))
    return r, [(x.category.__name__, str(x.message)) for x in w]


@pytest.mark.parametrize("name", _INITS)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4), (), (3,), (2, 3)])
def test_init_zero_element_and_ranks(name, shape):
    kws = [{}]
    if name.startswith("kaiming"):
        kws += [{"mode": "fan_out"}, {"nonlinearity": "relu"}]
    for kw in kws:
        (rt, wt), (rs, ws) = _init_outcome(torch, name, shape, kw), _init_outcome(storch, name, shape, kw)
        assert ws == wt, (name, shape)
        assert rs[:2] == rt[:2], (rt, rs)
        if rt[0] == "err":
            assert rt[2] in rs[2]
        else:
            assert rs[2] == rt[2]


# --- 7. a parameter's repr ----------------------------------------------------------------------

@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("shape,dtype", [((2,), "float32"), ((2, 3), "float64"), ((), "float32"), ((0, 2), "float32")])
def test_parameter_repr(requires_grad, shape, dtype):
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) / 4
    t = torch.nn.Parameter(torch.tensor(a), requires_grad=requires_grad)
    s = storch.nn.Parameter(storch.tensor(a, device="cpu"), requires_grad=requires_grad)  # (torch's: cpu)
    # ("strided.float64" is longer than "torch.float64": the suffixes may wrap elsewhere)
    norm = lambda text: " ".join(text.replace("torch.", "strided.").split())  # noqa: E731
    assert norm(repr(s)) == norm(repr(t)) and norm(str(s)) == norm(str(t))
    if shape:  # (f"{p}" of a 0-d parameter: see the report; strided formats its value)
        assert norm(f"{s}") == norm(f"{t}")
    assert repr(s).startswith("Parameter containing:\ntensor(")
    # what is made from a parameter is a tensor again
    for f in (lambda x: x.detach(), lambda x: x * 2, lambda x: x.data):
        assert norm(repr(f(s))) == norm(repr(f(t)))


def test_module_weight_prints_as_parameter():
    lin = storch.nn.Linear(2, 2)
    assert str(lin.weight).startswith("Parameter containing:\ntensor([[")
    assert str(lin.weight).endswith("requires_grad=True)")


# --- 5. embedding's index dtype -----------------------------------------------------------------

@pytest.mark.parametrize("fn", ["embedding", "embedding_bag", "module"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint8", "int8", "int32", "int64"])
def test_embedding_index_dtypes(fn, dtype):
    idx = np.array([[1, 2], [0, 4]], dtype=dtype)
    w = np.random.default_rng(3).standard_normal((5, 3))

    def run(lib):
        W = lib.tensor(w)
        if fn == "module":
            m = lib.nn.Embedding(5, 3)
            with lib.no_grad():
                m.weight.copy_(W)
            return m(lib.tensor(idx))
        return getattr(lib.nn.functional, fn)(lib.tensor(idx), W)
    t, s = _outcome(torch, run), _outcome(storch, run)
    assert t[0] == s[0], (t, s)
    if t[0] == "err":
        assert t[1] == "RuntimeError"
        with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types: Long, Int"):
            run(storch)
        with pytest.raises(TypeError):  # (also a TypeError, strided's earlier error)
            run(storch)
    else:
        np.testing.assert_allclose(s[1], t[1], rtol=1e-12)


def test_embedding_bool_indices_raise():
    with pytest.raises(RuntimeError, match="but got torch.BoolTensor instead .while checking arguments for embedding"):
        # (on the host: a cuda index's legacy type name is torch.cuda.BoolTensor, as PyTorch's)
        storch.nn.functional.embedding(storch.tensor([True, False], device="cpu"), storch.ones(3, 2, device="cpu"))
    with pytest.raises(RuntimeError):
        torch.nn.functional.embedding(torch.tensor([True, False]), torch.ones(3, 2))


# --- 2. copy.deepcopy of a non-leaf -------------------------------------------------------------

_DEEPCOPY_CASES = {
    "leaf": lambda lib, x: x,
    "result": lambda lib, x: x * 2,
    "view of a leaf": lambda lib, x: x[0],
    "view(3) of a leaf": lambda lib, x: x.view(3),
    "clone": lambda lib, x: x.clone(),
    "detached result": lambda lib, x: (x * 2).detach(),
    "list holding a result": lambda lib, x: [x, x * 2],
    "dict holding a result": lambda lib, x: {"a": x.exp()},
    "result of no-grad inputs": lambda lib, x: lib.ones(3) * 2,
    "parameter": lambda lib, x: lib.nn.Parameter(lib.ones(3)),
    "view of a parameter": lambda lib, x: lib.nn.Parameter(lib.ones(3))[1:],
}


@pytest.mark.parametrize("case", list(_DEEPCOPY_CASES))
def test_deepcopy_graph_leaves_only(case):
    outcomes = []
    for lib in (torch, storch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        obj = _DEEPCOPY_CASES[case](lib, x)
        try:
            c = copy.deepcopy(obj)
            first = c if not isinstance(c, (list, dict)) else (c[0] if isinstance(c, list) else c["a"])
            outcomes.append(("ok", first.requires_grad, first.grad_fn is None, to_numpy(first).tolist()))
        except RuntimeError as e:
            outcomes.append(("err", str(e)))
        copy.copy(obj)  # (a shallow copy works for every case, as PyTorch's)
    assert outcomes[1] == outcomes[0]
    if case in ("result", "view of a leaf", "clone"):
        assert outcomes[1][0] == "err" and "(graph leaves) support the deepcopy protocol" in outcomes[1][1]


@pytest.mark.parametrize("what", ["pruned", "holding an activation", "plain"])
def test_deepcopy_module_with_computed_tensor(what):
    import importlib
    outcomes = []
    for lib in (torch, storch):
        prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        if what == "pruned":
            prune.l1_unstructured(m, "weight", amount=0.5)  # (m.weight = weight_orig * weight_mask)
        elif what == "holding an activation":
            m.last = m(lib.ones(1, 3))
        try:
            c = copy.deepcopy(m)
            outcomes.append(("ok", sorted(n for n, _ in c.named_parameters())))
        except RuntimeError as e:
            outcomes.append(("err", str(e)))
    assert outcomes[1] == outcomes[0]
    if what == "pruned":
        assert outcomes[1][0] == "err"
        mod = storch.nn.Linear(3, 2)
        storch.nn.utils.prune.l1_unstructured(mod, "weight", amount=0.5)
        storch.nn.utils.prune.remove(mod, "weight")  # (PyTorch's way out: make the pruning permanent)
        assert sorted(n for n, _ in copy.deepcopy(mod).named_parameters()) == ["bias", "weight"]


def test_init_warning_names_the_callers_line():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        storch.nn.init.kaiming_uniform_(storch.empty(0, 3))
    assert len(w) == 1 and w[0].filename == __file__


# --- 8. a differential sweep: the words a training script calls, across dtypes ------------------

_SWEEP_DTYPES = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _array(dtype, shape=(3, 4), seed=0):
    r = np.random.default_rng(seed)
    if dtype == "bool":
        return r.random(shape) > 0.5
    if dtype.startswith("float"):
        return r.standard_normal(shape).astype(dtype)
    if dtype == "uint8":
        return r.integers(0, 9, shape).astype(dtype)
    return r.integers(-5, 6, shape).astype(dtype)


# name -> f(lib, numpy array): the same program through both libraries
_REDUCTIONS = {
    "sum": lambda L, a: L.tensor(a).sum(),
    "sum(1)": lambda L, a: L.tensor(a).sum(1),
    "sum(dim=(0, 1), keepdim)": lambda L, a: L.tensor(a).sum((0, 1), keepdim=True),
    "torch.sum": lambda L, a: L.sum(L.tensor(a)),
    "torch.sum(x, 0)": lambda L, a: L.sum(L.tensor(a), 0),
    "torch.sum(dtype=)": lambda L, a: L.sum(L.tensor(a), dtype=L.float64),
    "prod": lambda L, a: L.tensor(a).prod(),
    "prod(1)": lambda L, a: L.tensor(a).prod(1),
    "torch.prod(x, 0)": lambda L, a: L.prod(L.tensor(a), 0),
    "nansum": lambda L, a: L.tensor(a).nansum(),
    "torch.nansum": lambda L, a: L.nansum(L.tensor(a), 1),
    "cumsum": lambda L, a: L.tensor(a).cumsum(1),
    "cumsum(dtype=)": lambda L, a: L.tensor(a).cumsum(0, dtype=L.float64),
    "torch.cumsum": lambda L, a: L.cumsum(L.tensor(a), 0),
    "torch.cumsum(dim=)": lambda L, a: L.cumsum(L.tensor(a), dim=1, dtype=L.int32),
    "cumprod": lambda L, a: L.tensor(a).cumprod(1),
    "torch.cumprod": lambda L, a: L.cumprod(L.tensor(a), 0),
    "mean": lambda L, a: L.tensor(a).mean(),
    "mean(1)": lambda L, a: L.tensor(a).mean(1),
    "mean(dtype=float64)": lambda L, a: L.tensor(a).mean(dtype=L.float64),
    "mean(dtype=int32)": lambda L, a: L.tensor(a).mean(dtype=L.int32),
    "torch.mean": lambda L, a: L.mean(L.tensor(a)),
    "torch.mean(x, 1, True)": lambda L, a: L.mean(L.tensor(a), 1, True),
    "nanmean": lambda L, a: L.tensor(a).nanmean(),
    "torch.nanmean": lambda L, a: L.nanmean(L.tensor(a), 0),
    "std": lambda L, a: L.tensor(a).std(),
    "std(correction=0)": lambda L, a: L.tensor(a).std(correction=0),
    "std(1, unbiased=False)": lambda L, a: L.tensor(a).std(1, unbiased=False),
    "var(dim=1, correction=2, keepdim)": lambda L, a: L.tensor(a).var(dim=1, correction=2, keepdim=True),
    "var(0, True)": lambda L, a: L.tensor(a).var(0, True),
    "torch.std": lambda L, a: L.std(L.tensor(a), 0),
    "torch.var": lambda L, a: L.var(L.tensor(a)),
    "torch.var_mean": lambda L, a: L.var_mean(L.tensor(a), 1),
    "torch.std_mean": lambda L, a: L.std_mean(L.tensor(a), dim=0, correction=0),
    "all": lambda L, a: L.tensor(a).all(),
    "any(1)": lambda L, a: L.tensor(a).any(1),
    "all(dim=0, keepdim)": lambda L, a: L.tensor(a).all(dim=0, keepdim=True),
    "torch.all": lambda L, a: L.all(L.tensor(a)),
    "torch.any(x, 0)": lambda L, a: L.any(L.tensor(a), 0),
    "max(1)": lambda L, a: tuple(L.tensor(a).max(1)) if a.dtype != bool else L.tensor(a).amax(1),
    "amax": lambda L, a: L.tensor(a).amax((0, 1)),
}


def _sweep_compare(f, dtype, seed=0):
    a = _array(dtype, seed=seed)
    t, s = _outcome(torch, lambda L: f(L, a)), _outcome(storch, lambda L: f(L, a))
    if t[0] == "err":
        # PyTorch refuses: strided raises too (RuntimeError where PyTorch's is one)
        assert s[0] == "err", (t, s)
        if t[1] == "RuntimeError":  # (a subclass is one too: NotImplementedError, IndexDtypeError)
            import builtins
            assert issubclass(getattr(builtins, s[1], RuntimeError), RuntimeError), (t, s)
        return
    assert s[0] == "ok", (t, s)
    assert s[2] == t[2], (t, s)  # the dtype
    assert s[1].shape == t[1].shape
    if dtype.startswith("float") or t[2].startswith("float"):
        np.testing.assert_allclose(s[1].astype("float64"), t[1].astype("float64"), rtol=2e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(s[1], t[1])


def _outcome_multi(lib, fn):
    """As ``_outcome``, a tuple result's arrays stacked after their dtype check."""
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001
        return ("err", type(e).__name__, str(e))
    if isinstance(r, tuple):
        return ("ok", np.stack([to_numpy(v).astype("float64") for v in r]), ",".join(str(v.dtype).split(".")[-1] for v in r))
    return ("ok", to_numpy(r), str(r.dtype).split(".")[-1])


@pytest.mark.parametrize("dtype", _SWEEP_DTYPES)
@pytest.mark.parametrize("name", list(_REDUCTIONS))
def test_reduction_dtypes_and_refusals(name, dtype):
    global _outcome
    saved = _outcome
    _outcome = _outcome_multi
    try:
        _sweep_compare(_REDUCTIONS[name], dtype)
    finally:
        _outcome = saved


@pytest.mark.parametrize("name,fragment", [
    ("mean", "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long"),
    ("mean(dtype=int32)", "Optional dtype must be either a floating point or complex dtype. Got: Int"),
    ("nanmean", "nanmean(): expected input to have floating point or complex dtype but got Long"),
    ("std", "std and var only support floating point and complex dtypes"),
    ("torch.std_mean", "std_mean only support floating point and complex dtypes"),
])
def test_reduction_refusal_messages(name, fragment):
    with pytest.raises(RuntimeError, match=fragment.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        _REDUCTIONS[name](storch, _array("int64"))


def test_cumsum_requires_dim_as_pytorch():
    with pytest.raises(TypeError, match="dim"):
        storch.cumsum(storch.ones(3))
    with pytest.raises(TypeError):
        torch.cumsum(torch.ones(3))


# clamp in PyTorch's promoted dtype; torch.result_type's categories

_CLAMPS = {
    "torch.clamp(int, min=-0.5)": lambda L, a: L.clamp(L.tensor(a), min=-0.5),
    "torch.clamp(x, max=2.5)": lambda L, a: L.clamp(L.tensor(a), max=2.5),
    "torch.clamp(x, -1, 2)": lambda L, a: L.clamp(L.tensor(a), -1, 2),
    "x.clamp(-0.5, 2.5)": lambda L, a: L.tensor(a).clamp(-0.5, 2.5),
    "x.clip(min=0)": lambda L, a: L.tensor(a).clip(min=0),
    "x.clamp_min(0.5)": lambda L, a: L.tensor(a).clamp_min(0.5),
    "torch.clamp_max(x, 1)": lambda L, a: L.clamp_max(L.tensor(a), 1),
    "torch.clip(x, float64 array)": lambda L, a: L.clip(L.tensor(a), min=L.full((4,), 0.25, dtype=L.float64)),
    "clamp(x, float64 0-d)": lambda L, a: L.clamp(L.tensor(a), min=L.tensor(0.25, dtype=L.float64)),
    "clamp(x, int32 array)": lambda L, a: L.clamp(L.tensor(a), max=L.ones(3, 1, dtype=L.int32)),
    "clamp(x, -200)": lambda L, a: L.clamp(L.tensor(a), -200),
    "clamp(x, max=300)": lambda L, a: L.clamp(L.tensor(a), max=300),
    "clamp(x, -1, 2) (uint8 wraps)": lambda L, a: L.clamp(L.tensor(a), -1, 2),
    "clamp(x, nan)": lambda L, a: L.clamp(L.tensor(a), float("nan")),
    "x.clamp_(-0.5)": lambda L, a: L.tensor(a).clamp_(-0.5),
    "x.clamp_(0, 3)": lambda L, a: L.tensor(a).clamp_(0, 3),
    "x.clip_(max=0.5)": lambda L, a: L.tensor(a).clip_(max=0.5),
    "clamp(x, -0.5, out=int64)": lambda L, a: L.clamp(L.tensor(a), -0.5, out=L.empty(3, 4, dtype=L.int64)),
    "clamp(x)": lambda L, a: L.clamp(L.tensor(a)),
}


@pytest.mark.parametrize("dtype", _SWEEP_DTYPES)
@pytest.mark.parametrize("name", list(_CLAMPS))
def test_clamp_promotes_as_pytorch(name, dtype):
    _sweep_compare(_CLAMPS[name], dtype)


def test_clamp_refusal_messages_and_gradient():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        storch.tensor([1, 2]).clamp_(0.5)
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        storch.clamp(storch.ones(2))
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        storch.tensor([1], dtype=storch.uint8).clamp(max=300)
    a = np.array([-1.5, 0.2, 0.7, 3.0])
    t, s = torch.tensor(a, requires_grad=True), storch.tensor(a, requires_grad=True)
    (torch.clamp(t, min=torch.tensor(0.0), max=torch.full((4,), 1.0, dtype=torch.float64)) * torch.arange(4.0)).sum().backward()
    (storch.clamp(s, min=storch.tensor(0.0), max=storch.full((4,), 1.0, dtype=storch.float64)) * storch.arange(4.0)).sum().backward()
    np.testing.assert_allclose(to_numpy(s.grad), t.grad.numpy())


def _scalar_or_array(lib, spec):
    kind, dtype, ndim = spec
    if kind == "py":
        return {"bool": True, "int": 2, "float": 0.5, "complex": 1 + 2j}[dtype]
    return lib.ones((2,) * ndim, dtype=getattr(lib, dtype))


_OPERANDS = [("py", k, 0) for k in ("bool", "int", "float", "complex")] + [
    ("t", d, n) for d in ("bool", "uint8", "int8", "int32", "int64", "float32", "float64", "complex64") for n in (0, 1)]


@pytest.mark.parametrize("first", [o for o in _OPERANDS if o[0] == "t"])
def test_result_type_categories(first):
    for second in _OPERANDS:
        t = torch.result_type(_scalar_or_array(torch, first), _scalar_or_array(torch, second))
        s = storch.result_type(_scalar_or_array(storch, first), _scalar_or_array(storch, second))
        assert str(s).split(".")[-1] == str(t).split(".")[-1], (first, second)


# refusals by dtype, PyTorch's (strided computed them in float32), and other words

_WORDS = {
    "x.softmax(1)": lambda L, a: L.tensor(a).softmax(1),
    "x.softmax(1, float64)": lambda L, a: L.tensor(a).softmax(1, L.float64),
    "torch.softmax": lambda L, a: L.softmax(L.tensor(a), 0),
    "torch.softmax(dtype=)": lambda L, a: L.softmax(L.tensor(a), 0, dtype=L.float64),
    "x.log_softmax(0)": lambda L, a: L.tensor(a).log_softmax(0),
    "torch.log_softmax": lambda L, a: L.log_softmax(L.tensor(a), 1),
    "F.softmax": lambda L, a: L.nn.functional.softmax(L.tensor(a), 1),
    "F.softmax(dtype=)": lambda L, a: L.nn.functional.softmax(L.tensor(a), 1, dtype=L.float64),
    "F.log_softmax": lambda L, a: L.nn.functional.log_softmax(L.tensor(a), 0),
    "F.softmin": lambda L, a: L.nn.functional.softmin(L.tensor(a), 0),
    "x.quantile(0.3)": lambda L, a: L.tensor(a).quantile(0.3),
    "torch.quantile": lambda L, a: L.quantile(L.tensor(a), 0.5, dim=1),
    "x.lerp(y, 0.3)": lambda L, a: L.tensor(a).lerp(L.tensor(a).flip(0), 0.3),
    "torch.lerp": lambda L, a: L.lerp(L.tensor(a), L.tensor(a).flip(1), 0.5),
    "x.median()": lambda L, a: L.tensor(a).median(),
    "x.median(1)": lambda L, a: tuple(L.tensor(a).median(1)),
    "torch.median": lambda L, a: L.median(L.tensor(a)),
    "x.kthvalue(2, 0)": lambda L, a: L.tensor(a).kthvalue(2, 0)[0],
    "torch.kthvalue": lambda L, a: L.kthvalue(L.tensor(a), 1)[0],
    "x.topk(2)": lambda L, a: L.tensor(a).topk(2)[0],
    "torch.topk(largest=False)": lambda L, a: L.topk(L.tensor(a), 2, largest=False)[0],
    "x.trace()": lambda L, a: L.tensor(a).trace(),
    "torch.trace": lambda L, a: L.trace(L.tensor(a)),
    "x.hypot(x)": lambda L, a: L.tensor(a).hypot(L.tensor(a)),
    "x.round()": lambda L, a: L.tensor(a).round(),
    "x.round(decimals=1)": lambda L, a: L.tensor(a).round(decimals=1),
    "x.round(decimals=0)": lambda L, a: L.tensor(a).round(decimals=0),
    "torch.round(decimals=2)": lambda L, a: L.round(L.tensor(a), decimals=2),
    "x.remainder(0)": lambda L, a: L.tensor(a).remainder(0),
    "x.floor_divide(0)": lambda L, a: L.tensor(a).floor_divide(0),
    "x.remainder(zeros)": lambda L, a: L.tensor(a).remainder(L.zeros(4, dtype=L.tensor(a).dtype)),
    "x.remainder_(0)": lambda L, a: L.tensor(a).remainder_(0),
    "x.floor_divide_(3)": lambda L, a: L.tensor(a).floor_divide_(3),
    "x.remainder(-3)": lambda L, a: L.tensor(a).remainder(-3),
    "masked_fill(1-d value)": lambda L, a: L.tensor(a).masked_fill(L.tensor(a) != 0, L.ones(1, dtype=L.tensor(a).dtype)),
    "masked_fill(0-d value)": lambda L, a: L.tensor(a).masked_fill(L.tensor(a) != 0, L.tensor(1, dtype=L.tensor(a).dtype)),
    "masked_fill_(1-d value)": lambda L, a: L.tensor(a).masked_fill_(L.tensor(a) != 0, L.ones(1, dtype=L.tensor(a).dtype)),
    "torch.masked_fill(1-d value)": lambda L, a: L.masked_fill(L.tensor(a), L.tensor(a) != 0, L.ones(4, dtype=L.tensor(a).dtype)),
}


# (strided's integer division refuses bool and a negative Python divisor of a uint8 array, with
# a TypeError / OverflowError where PyTorch computes: a refusal, not a different meaning)
_DIVISION_DTYPES = [d for d in _SWEEP_DTYPES if d not in ("bool", "uint8")]
_WORD_CASES = [(n, d) for n in _WORDS for d in (_DIVISION_DTYPES if "remainder" in n or "floor_divide" in n
                                                else _SWEEP_DTYPES)]


@pytest.mark.parametrize("name,dtype", _WORD_CASES)
def test_words_by_dtype(name, dtype):
    global _outcome
    saved = _outcome
    _outcome = _outcome_multi
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _sweep_compare(_WORDS[name], dtype)
    finally:
        _outcome = saved


@pytest.mark.parametrize("word,dtype,error,fragment", [
    ("x.softmax(1)", "int64", NotImplementedError, "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    ("F.log_softmax", "uint8", NotImplementedError, "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Byte'"),
    ("x.quantile(0.3)", "int32", RuntimeError, "quantile() input tensor must be either float or double dtype"),
    ("torch.lerp", "int16", NotImplementedError, "\"lerp_kernel_scalar\" not implemented for 'Short'"),
    ("x.median()", "bool", NotImplementedError, "not implemented for 'Bool'"),
    ("x.topk(2)", "bool", RuntimeError, "topk does not support bool dtypes on CPU"),
    ("x.round(decimals=1)", "int64", NotImplementedError, "\"round_cpu\" not implemented for 'Long'"),
    ("x.remainder(0)", "int64", RuntimeError, "ZeroDivisionError"),
    ("masked_fill(1-d value)", "float32", RuntimeError, "only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)"),
])
def test_word_refusal_messages(word, dtype, error, fragment):
    import re
    with pytest.raises(error, match=re.escape(fragment)):
        _WORDS[word](storch, _array(dtype))


@pytest.mark.parametrize("shape,dim,correction", [((2,), None, 3), ((2,), None, 2), ((1,), None, 1), ((3, 1), 1, 1),
                                                  ((2, 3), 0, 2), ((2, 3), 1, 2), ((4,), 0, 1)])
@pytest.mark.parametrize("name", ["var", "std"])
def test_std_var_without_degrees_of_freedom(name, shape, dim, correction):
    a = np.random.default_rng(4).standard_normal(shape)
    a[..., 0] = a[..., -1] if shape == (2,) and correction == 2 else a[..., 0]  # (a zero sum of squares: NaN)
    results = []
    for lib in (torch, storch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = getattr(lib.tensor(a), name)(dim, correction=correction)
            r2 = getattr(lib, name)(lib.tensor(a), dim, correction=correction, keepdim=True)
        results.append((to_numpy(r), to_numpy(r2), [str(x.message) for x in w]))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)
    assert [m.split(" (Triggered")[0] for m in results[0][2]] == results[1][2]


# --- a differential Hypothesis test: random shapes, views, dtypes, dims and keywords -------------

from hypothesis import given, settings, strategies as hst  # noqa: E402

_HYP_WORDS = {
    "sum": lambda L, x, d, k: x.sum(d, keepdim=k),
    "prod": lambda L, x, d, k: x.prod(d, keepdim=k) if d is not None else x.prod(),
    "cumsum": lambda L, x, d, k: L.cumsum(x, 0 if d is None else d),
    "mean": lambda L, x, d, k: x.mean(d, keepdim=k),
    "std": lambda L, x, d, k: x.std(d, correction=0 if k else 1, keepdim=k),
    "var_mean": lambda L, x, d, k: L.var_mean(x, d, keepdim=k),
    "all": lambda L, x, d, k: x.all(d, keepdim=k) if d is not None else x.all(),
    "any": lambda L, x, d, k: L.any(x, d, keepdim=k) if d is not None else L.any(x),
    "norm": lambda L, x, d, k: L.norm(x, 2 if k else "fro", d, k),
    "norm(p=1)": lambda L, x, d, k: x.norm(1, d, k),
    "clamp": lambda L, x, d, k: L.clamp(x, -0.5 if k else -1, 2),
    "clamp(array)": lambda L, x, d, k: x.clamp(min=L.zeros(x.shape[-1:], dtype=L.float64)),
    "softmax": lambda L, x, d, k: L.softmax(x, -1 if d is None else d),
    "median": lambda L, x, d, k: x.median() if d is None else x.median(d, k)[0],
    "topk": lambda L, x, d, k: x.topk(1, -1 if d is None else d)[0] if x.numel() else x.sum(),
    "round(decimals)": lambda L, x, d, k: x.round(decimals=1 if k else 0),
}


@settings(max_examples=400, deadline=None)
@given(word=hst.sampled_from(sorted(_HYP_WORDS)), dtype=hst.sampled_from(_SWEEP_DTYPES),
       shape=hst.lists(hst.integers(1, 4), min_size=1, max_size=3), view=hst.sampled_from(["plain", "t", "slice"]),
       dim=hst.sampled_from([None, 0, -1]), keepdim=hst.booleans(), seed=hst.integers(0, 2**16))
def test_differential_words(word, dtype, shape, view, dim, keepdim, seed):
    a = _array(dtype, tuple(shape), seed)

    def run(L):
        x = L.tensor(a)
        if view == "t":
            x = x.mT if x.ndim >= 2 else x
        elif view == "slice":
            x = x[..., ::2]
        return _HYP_WORDS[word](L, x, dim, keepdim)
    global _outcome
    saved = _outcome
    _outcome = _outcome_multi
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t, s = _outcome(torch, run), _outcome(storch, run)
    finally:
        _outcome = saved
    if t[0] == "err":
        assert s[0] == "err", (t, s)
        return
    assert s[0] == "ok", (t, s)
    assert s[2] == t[2] and s[1].shape == t[1].shape, (t, s)
    np.testing.assert_allclose(np.asarray(s[1], dtype="float64"), np.asarray(t[1], dtype="float64"),
                               rtol=1e-4, atol=1e-5, equal_nan=True)


# --- losses' target dtypes, one_hot, isclose/allclose ---------------------------------------------

_LOGITS = np.array([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]], dtype="float32")

_TARGET_WORDS = {
    "cross_entropy": lambda L, d: L.nn.functional.cross_entropy(L.tensor(_LOGITS), L.tensor([0, 2], dtype=getattr(L, d))),
    "cross_entropy 3-d": lambda L, d: L.nn.functional.cross_entropy(L.ones(2, 3, 4), L.zeros(2, 4, dtype=getattr(L, d))),
    "nll_loss": lambda L, d: L.nn.functional.nll_loss(L.tensor(_LOGITS), L.tensor([0, 2], dtype=getattr(L, d))),
    "CrossEntropyLoss": lambda L, d: L.nn.CrossEntropyLoss()(L.tensor(_LOGITS), L.tensor([1, 0], dtype=getattr(L, d))),
    "one_hot": lambda L, d: L.nn.functional.one_hot(L.tensor([0, 2], dtype=getattr(L, d)), 3),
    "binary_cross_entropy": lambda L, d: L.nn.functional.binary_cross_entropy(L.tensor([0.5, 0.25]), L.tensor([1, 0], dtype=getattr(L, d))),
    "bce_with_logits": lambda L, d: L.nn.functional.binary_cross_entropy_with_logits(L.tensor([0.5, -1.0]), L.tensor([1, 0], dtype=getattr(L, d))),
    "mse_loss(x, x)": lambda L, d: L.nn.functional.mse_loss(L.tensor([1, 2], dtype=getattr(L, d)), L.tensor([1, 4], dtype=getattr(L, d))),
    "mse_loss(x, float)": lambda L, d: L.nn.functional.mse_loss(L.tensor([1, 2], dtype=getattr(L, d)), L.tensor([1.0, 4.0])),
    "torch.isclose": lambda L, d: L.isclose(L.tensor([1, 2], dtype=getattr(L, d)), L.tensor([1.0, 2.5])),
    "x.allclose": lambda L, d: L.tensor(L.tensor([1, 2], dtype=getattr(L, d)).allclose(L.tensor([1.0, 2.0], dtype=L.float64))),
    "torch.allclose(same)": lambda L, d: L.tensor(L.allclose(L.tensor([1, 2], dtype=getattr(L, d)), L.tensor([1, 2], dtype=getattr(L, d)))),
}


# (a bool array minus a float one: strided's subtraction refuses bool, PyTorch promotes)
_TARGET_CASES = [(n, d) for n in _TARGET_WORDS for d in ("int64", "int32", "int16", "uint8", "bool", "float32", "float64")
                 if not (n == "mse_loss(x, float)" and d == "bool")]


@pytest.mark.parametrize("name,dtype", _TARGET_CASES)
def test_target_dtypes(name, dtype):
    f = _TARGET_WORDS[name]
    t, s = _outcome(torch, lambda L: f(L, dtype)), _outcome(storch, lambda L: f(L, dtype))
    if t[0] == "err":
        assert s[0] == "err", (t, s)
        if t[1] == "RuntimeError" and dtype[0] in "biu" and ("target dtype" in t[2] or "scalar type Long" in t[2] or "LongTensor" in t[2] or "Found dtype" in t[2]
                                       or "did not match" in t[2] or "can't be cast" in t[2]):
            assert isinstance(getattr(__import__("builtins"), s[1], None), type) or s[1].startswith("_"), (t, s)
            assert t[2][:30] in s[2], (t, s)  # (PyTorch's words)
        return
    assert s[0] == "ok", (t, s)
    assert s[2] == t[2], (t, s)
    np.testing.assert_allclose(s[1].astype("float64"), t[1].astype("float64"), rtol=1e-5)


# --- matrix products: one dtype, as PyTorch's (no promotion) --------------------------------------

_PRODUCTS = {
    "torch.matmul": lambda L, a, b: L.matmul(a, b),
    "x.matmul(1-d)": lambda L, a, b: a[0].matmul(b[0]),
    "x.mm": lambda L, a, b: a.mm(b),
    "torch.bmm": lambda L, a, b: L.bmm(a[None], b[None]),
    "torch.dot": lambda L, a, b: L.dot(a[0], b[0]),
    "torch.einsum": lambda L, a, b: L.einsum("ij,jk->ik", a, b),
    "torch.einsum(list)": lambda L, a, b: L.einsum("ij,jk->ik", [a, b]),
    "torch.tensordot": lambda L, a, b: L.tensordot(a, b, 1),
    "torch.addmm": lambda L, a, b: L.addmm(a, a, b),
    "x.addmm": lambda L, a, b: a.addmm(b, b),
}


@pytest.mark.parametrize("da,db", [("float32", "float64"), ("float64", "float32"), ("float32", "float32"),
                                   ("int64", "float32"), ("int64", "int64"), ("float64", "float64")])
@pytest.mark.parametrize("name", list(_PRODUCTS))
def test_products_refuse_two_dtypes(name, da, db):
    a = np.arange(4.0).reshape(2, 2) + 1

    def run(L):
        return _PRODUCTS[name](L, L.tensor(a.astype(da)), L.tensor(a.astype(db)))
    t, s = _outcome(torch, run), _outcome(storch, run)
    if t[0] == "err":
        assert s[0] == "err" and s[1] == "RuntimeError", (t, s)
        assert t[2][:25] in s[2], (t, s)
    else:
        assert s[0] == "ok" and s[2] == t[2], (t, s)
        np.testing.assert_allclose(s[1], t[1], rtol=1e-6)
