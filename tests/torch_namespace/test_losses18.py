"""strided.torch's remaining losses (nn.functional, nn modules and the torch.* forms) against
PyTorch 2.13: the same program through both libraries (_parity.check: dtype, shape, values and
the gradients of every leaf), over shapes, options, reductions and float32/float64; and the
errors PyTorch raises for bad shapes, targets and reductions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch
from _parity import check, to_numpy

DTYPES = ["float32", "float64"]
REDUCTIONS = ["none", "mean", "sum"]
TOL32 = dict(rtol=1e-4, atol=1e-5)


def _tol(dtype):
    return TOL32 if dtype == "float32" else None


def _x(rng, shape, scale=1.0):
    x = rng.standard_normal(shape) * scale
    return np.where(np.abs(x) < 1e-3, 0.5, x)


def _quiet(fn):
    def run(lib, T, rng):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib, T, rng)
    return run


# --- kl_div --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 2)])
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(shape, reduction, log_target, dtype):
    def build(lib, T, rng):
        x = T(np.log(rng.uniform(0.1, 1.0, shape)), grad=True)
        t = rng.uniform(0.0, 1.0, shape)
        t.flat[0] = 0.0  # xlogy's 0 at a zero target (its gradient: PyTorch's too)
        t = T(np.log(t + 0.05) if log_target else t, grad=True)
        return lib.nn.functional.kl_div(x, t, reduction=reduction, log_target=log_target)
    check(_quiet(build), dtype, tol=_tol(dtype))


def test_kl_div_mean_warns_and_legacy():
    x, t = storch.zeros(2, 3), storch.full((2, 3), 0.5)
    with pytest.warns(UserWarning, match="batchmean"):
        storch.nn.functional.kl_div(x, t)
    with pytest.warns(UserWarning, match="size_average"):
        r = storch.nn.functional.kl_div(x, t, size_average=False)
    rt = torch.nn.functional.kl_div(torch.zeros(2, 3), torch.full((2, 3), 0.5), size_average=False)
    np.testing.assert_allclose(to_numpy(r), to_numpy(rt), rtol=1e-6)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        storch.nn.functional.kl_div(x, t, reduction="avg")


# --- poisson / gaussian -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("log_input", [True, False])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_poisson_nll_loss(log_input, full, reduction, dtype):
    def build(lib, T, rng):
        x = _x(rng, (3, 4)) if log_input else rng.uniform(0.2, 3.0, (3, 4))
        x = T(x, grad=True)
        t = T(np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 0.0, 7.0, 1.0, 2.5, 0.2]).reshape(3, 4),
              grad=True)
        return lib.nn.functional.poisson_nll_loss(x, t, log_input=log_input, full=full,
                                                  reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("vshape", ["same", "short", "bcast", "float"])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gaussian_nll_loss(vshape, full, reduction, dtype):
    def build(lib, T, rng):
        x = T(_x(rng, (3, 4)), grad=True)
        t = T(_x(rng, (3, 4)), grad=True)
        if vshape == "float":
            var = 0.7
        else:
            shp = {"same": (3, 4), "short": (3,), "bcast": (3, 1)}[vshape]
            v = rng.uniform(0.1, 2.0, shp)
            v.flat[0] = 1e-9  # below eps: clamped, its gradient passed through (PyTorch)
            var = T(v, grad=True)
        return lib.nn.functional.gaussian_nll_loss(x, t, var, full=full, reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


def test_gaussian_nll_loss_errors():
    F = storch.nn.functional
    x = storch.zeros(3, 4)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(x, x, storch.ones(2, 1))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, x, -1.0)
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, x, -storch.ones(3, 4))
    with pytest.raises(ValueError, match="is not valid"):
        F.gaussian_nll_loss(x, x, 1.0, reduction="avg")


# --- embedding, ranking and hinge losses -------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("margin", [0.0, 0.3, -0.2])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding_loss(batched, margin, reduction, dtype):
    def build(lib, T, rng):
        shape = (5, 3) if batched else (3,)
        a, b = T(_x(rng, shape), grad=True), T(_x(rng, shape), grad=True)
        t = T(np.array([1, -1, 1, -1, 0])) if batched else T(np.array(-1))
        return lib.nn.functional.cosine_embedding_loss(a, b, t, margin=margin, reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6,), (2, 3)])
@pytest.mark.parametrize("margin", [0.0, 0.5])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_ranking_loss(shape, margin, reduction, dtype):
    def build(lib, T, rng):
        a, b = T(_x(rng, shape), grad=True), T(_x(rng, shape), grad=True)
        t = T(np.where(rng.random(shape) < 0.5, -1.0, 1.0))
        return lib.nn.functional.margin_ranking_loss(a, b, t, margin=margin, reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("margin", [1.0, 0.5])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_hinge_embedding_loss(margin, reduction, dtype):
    def build(lib, T, rng):
        x = T(_x(rng, (3, 4)), grad=True)
        t = T(np.where(rng.random((3, 4)) < 0.5, -1.0, 1.0))
        return lib.nn.functional.hinge_embedding_loss(x, t, margin=margin, reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(reduction, dtype):
    def build(lib, T, rng):
        x = T(_x(rng, (3, 4), 2.0), grad=True)
        t = T(np.where(rng.random((3, 4)) < 0.5, -1.0, 1.0))
        return lib.nn.functional.soft_margin_loss(x, t, reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


# --- triplet losses ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3,)])
@pytest.mark.parametrize("p,swap", [(2, False), (1, True), (3, False), (2, True)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_loss(shape, p, swap, reduction, dtype):
    def build(lib, T, rng):
        a, pos, neg = (T(_x(rng, shape), grad=True) for _ in range(3))
        return lib.nn.functional.triplet_margin_loss(a, pos, neg, margin=1.5, p=p, swap=swap,
                                                     reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("custom", [False, True])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_with_distance_loss(custom, swap, reduction, dtype):
    def build(lib, T, rng):
        a, pos, neg = (T(_x(rng, (4, 3)), grad=True) for _ in range(3))
        fn = (lambda x, y: 1.0 - lib.nn.functional.cosine_similarity(x, y)) if custom else None
        return lib.nn.functional.triplet_margin_with_distance_loss(
            a, pos, neg, distance_function=fn, margin=0.7, swap=swap, reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


# --- multi-class margins -----------------------------------------------------------------------

def _multilabel_targets(rng, n, c):
    t = np.full((n, c), -1, dtype=np.int64)
    for i in range(n):
        k = rng.integers(0, c + 1)
        t[i, :k] = rng.choice(c, size=k, replace=False)
        if k < c - 1:
            t[i, k + 1:] = rng.integers(-1, c, size=c - k - 1)  # (after the -1: ignored)
    return t


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(batched, reduction, dtype):
    def build(lib, T, rng):
        t = _multilabel_targets(rng, 5, 4)
        x = _x(rng, (5, 4))
        if not batched:
            t, x = t[1], x[1]
        return lib.nn.functional.multilabel_margin_loss(T(x, grad=True), T(t), reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(3, 4), (4,), (2, 3, 4)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_soft_margin_loss(weighted, shape, reduction, dtype):
    def build(lib, T, rng):
        x = T(_x(rng, shape), grad=True)
        t = T((rng.random(shape) < 0.5).astype(float))
        w = T(rng.uniform(0.5, 2.0, shape[-1:]), grad=True) if weighted else None
        return lib.nn.functional.multilabel_soft_margin_loss(x, t, weight=w, reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", ["batched", "vector", "scalar_target"])
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 0.5, False), (1, 2.0, True),
                                               (2, 1.0, True)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_margin_loss(form, p, margin, weighted, reduction, dtype):
    def build(lib, T, rng):
        x = _x(rng, (5, 4))
        t = rng.integers(0, 4, 5)
        if form == "vector":
            x, t = x[0], t[:1]
        elif form == "scalar_target":
            x, t = x[0], t[0]
        w = T(rng.uniform(0.5, 2.0, 4)) if weighted else None
        return lib.nn.functional.multi_margin_loss(T(x, grad=True), T(np.asarray(t)), p=p,
                                                   margin=margin, weight=w, reduction=reduction)
    check(build, dtype, tol=_tol(dtype))


@pytest.mark.parametrize("name,args", [
    ("soft_margin_loss", "xt"), ("hinge_embedding_loss", "xt"), ("kl_div", "xt"),
    ("poisson_nll_loss", "xt"), ("multilabel_soft_margin_loss", "xt")])
@pytest.mark.parametrize("size_average,reduce", [(False, None), (None, False), (True, True)])
def test_legacy_reduction(name, args, size_average, reduce):
    def build(lib, T, rng):
        x = T(rng.uniform(0.1, 1.0, (3, 4)), grad=True)
        t = T(np.where(rng.random((3, 4)) < 0.5, 1.0, -1.0) if "margin" in name or "hinge" in name
              else rng.uniform(0.1, 1.0, (3, 4)))
        return getattr(lib.nn.functional, name)(x, t, size_average=size_average, reduce=reduce)
    check(_quiet(build), "float64")


# --- modules ------------------------------------------------------------------------------------

MODULES = [
    ("KLDivLoss", dict(reduction="batchmean", log_target=True), "xt"),
    ("PoissonNLLLoss", dict(log_input=False, full=True), "pt"),
    ("SoftMarginLoss", dict(reduction="sum"), "xs"),
    ("HingeEmbeddingLoss", dict(margin=0.5), "xs"),
    ("MultiLabelSoftMarginLoss", dict(reduction="none"), "xb"),
    ("MultiMarginLoss", dict(p=2, margin=0.5), "xc"),
    ("MultiLabelMarginLoss", dict(), "xm"),
]


@pytest.mark.parametrize("name,kw,form", MODULES)
def test_loss_modules(name, kw, form):
    def build(lib, T, rng):
        m = getattr(lib.nn, name)(**kw)
        x = T(rng.uniform(0.1, 2.0, (5, 4)), grad=True)
        t = {"xt": lambda: T(rng.uniform(0.1, 1.0, (5, 4))),
             "pt": lambda: T(rng.integers(0, 4, (5, 4)).astype(float)),
             "xs": lambda: T(np.where(rng.random((5, 4)) < 0.5, 1.0, -1.0)),
             "xb": lambda: T((rng.random((5, 4)) < 0.5).astype(float)),
             "xc": lambda: T(rng.integers(0, 4, 5)),
             "xm": lambda: T(_multilabel_targets(rng, 5, 4))}[form]()
        return m(x, t)
    check(build, "float64")


def test_loss_modules_three_inputs():
    def build(lib, T, rng):
        nn = lib.nn
        a, b, c = (T(_x(rng, (4, 3)), grad=True) for _ in range(3))
        t = T(np.array([1, -1, 1, -1]))
        r = T(np.array([1.0, -1.0, -1.0, 1.0]))
        v = T(rng.uniform(0.5, 1.5, (4, 3)), grad=True)
        return (nn.CosineEmbeddingLoss(margin=0.1)(a, b, t)
                + nn.MarginRankingLoss(margin=0.2)(a[:, 0], b[:, 0], r)
                + nn.TripletMarginLoss(margin=2.0, p=1.0, swap=True)(a, b, c)
                + nn.TripletMarginWithDistanceLoss(margin=1.5)(a, b, c)
                + nn.GaussianNLLLoss(full=True)(a, b, v))
    check(build, "float64")


def test_module_reprs_and_state():
    for name, kw in [("KLDivLoss", {}), ("TripletMarginWithDistanceLoss", {}),
                     ("MultiMarginLoss", {"weight": None}), ("GaussianNLLLoss", {"full": True})]:
        assert repr(getattr(storch.nn, name)(**kw)) == repr(getattr(torch.nn, name)(**kw))
    assert list(storch.nn.MultiLabelSoftMarginLoss(weight=storch.ones(3)).state_dict()) == \
        list(torch.nn.MultiLabelSoftMarginLoss(weight=torch.ones(3)).state_dict())
    with pytest.raises(TypeError):
        storch.nn.GaussianNLLLoss(True)  # (keyword-only, as PyTorch)
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        storch.nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="margin to be greater than 0"):
        storch.nn.TripletMarginLoss(margin=0.0)


# --- errors ---------------------------------------------------------------------------------------

def _errors():
    x, t = "x34", "t34"
    return [
        ("cosine_embedding_loss", lambda L: (L.randn(3, 4), L.randn(3, 4), L.ones(3, 1)),
         RuntimeError, "0D or 1D target tensor expected"),
        ("cosine_embedding_loss", lambda L: (L.randn(3, 4), L.randn(3, 4), L.ones(())),
         RuntimeError, "0D target tensor expects 1D input"),
        ("cosine_embedding_loss", lambda L: (L.randn(4), L.randn(4), L.ones(2)),
         RuntimeError, "1D target tensor expects 2D input"),
        ("margin_ranking_loss", lambda L: (L.randn(3), L.randn(3), L.ones(3, 1)),
         RuntimeError, "All input tensors should have same dimension"),
        ("triplet_margin_loss", lambda L: (L.randn(3, 4), L.randn(3, 4), L.randn(4)),
         RuntimeError, "same number of dimensions"),
        ("multilabel_margin_loss", lambda L: (L.randn(3, 4), L.ones(3, 4, dtype=L.int64) * 5),
         RuntimeError, "out of range"),
        ("multilabel_margin_loss", lambda L: (L.randn(3, 4), L.ones(3, 4, dtype=L.int64) * -2),
         RuntimeError, "out of range"),
        ("multilabel_margin_loss", lambda L: (L.randn(3, 4), L.ones(3, 3, dtype=L.int64)),
         RuntimeError, "inconsistent target size"),
        ("multilabel_margin_loss", lambda L: (L.randn(3, 4), L.ones(3, 4)),
         RuntimeError, "expected scalar type Long"),
        ("multilabel_margin_loss", lambda L: (L.randn(2, 3, 4), L.ones(2, 3, 4, dtype=L.int64)),
         RuntimeError, "Expected non-empty vector or matrix"),
        ("multi_margin_loss", lambda L: (L.randn(3, 4), L.tensor([0, 1, 4])),
         RuntimeError, "target out of range"),
        ("multi_margin_loss", lambda L: (L.randn(3, 4), L.tensor([0, 1])),
         RuntimeError, "target tensor should be 1-D with size equal"),
        ("multi_margin_loss", lambda L: (L.randn(3, 4), L.tensor([0, 1, 2], dtype=L.int32)),
         RuntimeError, "expected scalar type Long"),
        ("multi_margin_loss", lambda L: (L.randn(3, 4), L.tensor([0, 1, 2]), 3),
         ValueError, "only p == 1 and p == 2 supported"),
    ]


@pytest.mark.parametrize("i", range(len(_errors())))
def test_errors_as_pytorch(i):
    name, make, exc, frag = _errors()[i]
    for L in (torch, storch):
        with pytest.raises(exc, match=frag):
            getattr(L.nn.functional, name)(*make(L))


@pytest.mark.parametrize("name,nargs", [
    ("poisson_nll_loss", 2), ("cosine_embedding_loss", 3), ("margin_ranking_loss", 3),
    ("hinge_embedding_loss", 2), ("triplet_margin_loss", 3), ("soft_margin_loss", 2),
    ("multilabel_soft_margin_loss", 2), ("triplet_margin_with_distance_loss", 3)])
def test_bad_reduction(name, nargs):
    for L in (torch, storch):
        args = [L.ones(3, 4)] * nargs
        if name == "cosine_embedding_loss":
            args[2] = L.ones(3)
        with pytest.raises(ValueError, match="is not"):
            getattr(L.nn.functional, name)(*args, reduction="avg")


def test_not_differentiable_as_pytorch():
    for L in (torch, storch):
        w = L.ones(4, requires_grad=True)
        x, t = L.zeros(3, 4), L.tensor([0, 1, 2])
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
            L.nn.functional.multi_margin_loss(x, t, weight=w)
        with pytest.raises(RuntimeError, match="argument 'pos_weight'"):
            L.binary_cross_entropy_with_logits(x, x, None, w, 1)
        with L.no_grad():
            L.nn.functional.multi_margin_loss(x, t, weight=w)


def test_triplet_margin_must_be_positive():
    for L in (torch, storch):
        with pytest.raises(ValueError, match="margin must be greater than 0"):
            L.nn.functional.triplet_margin_loss(L.ones(2, 3), L.ones(2, 3), L.ones(2, 3), margin=0)


# --- torch.* forms ------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", [0, 1, 2, 7])
def test_torch_level_losses(reduction):
    def build(lib, T, rng):
        x = T(_x(rng, (3, 4)), grad=True)
        y = T(_x(rng, (3, 4)), grad=True)
        p = T(rng.uniform(0.1, 1.0, (3, 4)), grad=True)
        s = T(np.where(rng.random((3, 4)) < 0.5, 1.0, -1.0))
        c = T(np.array([1, -1, 1]))
        out = [lib.kl_div(x, p, reduction), lib.kl_div(x, x, reduction, log_target=True),
               lib.poisson_nll_loss(x, p, True, True, 1e-8, reduction),
               lib.hinge_embedding_loss(x, s, 0.5, reduction),
               lib.margin_ranking_loss(x, y[0], s, 0.1, reduction),
               lib.cosine_embedding_loss(x, y, c, 0.1, reduction),
               lib.triplet_margin_loss(x, y, p, -0.5, 1, 1e-6, True, reduction),
               lib.binary_cross_entropy_with_logits(x, p, y.detach()[0], y.detach()[1].abs(),
                                                    reduction)]
        return lib.stack([o.sum() for o in out])
    check(build, "float64")


def test_torch_level_losses_reduce_nothing_when_reduction_is_omitted():
    """ATen's schemas say ``reduction=Mean``, but PyTorch's Python binding reads that default
    as 0: ``torch.kl_div(a, b)`` is elementwise (measured, not read from the schema)."""
    rng = np.random.default_rng(38)
    a, b, c = (rng.random((3, 4)) for _ in range(3))
    lp = np.log(rng.dirichlet(np.ones(5), size=(6, 2)))
    calls = {
        "binary_cross_entropy_with_logits": (a, b), "hinge_embedding_loss": (a, b),
        "kl_div": (a, b), "cosine_embedding_loss": (a, b, np.array([1.0, -1.0, 1.0])),
        "margin_ranking_loss": (a[0], b[0], np.sign(c[0] - 0.5)), "triplet_margin_loss": (a, b, c),
        "ctc_loss": (lp, np.array([[1, 2], [3, 1]]), np.array([6, 6]), np.array([2, 2])),
    }
    for name, args in calls.items():
        want = getattr(torch, name)(*(torch.from_numpy(x) for x in args)).numpy()
        got = to_numpy(getattr(storch, name)(*(storch.tensor(x) for x in args)))
        assert want.ndim >= 1 and got.shape == want.shape, name
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)


def test_torch_level_reduction_type():
    x = storch.zeros(3)
    with pytest.raises(TypeError, match="must be int"):
        storch.kl_div(x, x, "mean")
    with pytest.raises(TypeError, match="must be int"):
        torch.kl_div(torch.zeros(3), torch.zeros(3), "mean")
    with pytest.raises(TypeError):
        storch.kl_div(x, x, 1, True)  # (log_target is keyword-only)
    with pytest.raises(TypeError):
        storch.poisson_nll_loss(x, x, True, False, 1e-8)  # (every argument required)


# --- ParameterDict and nn.Buffer (module plumbing the loss modules' users reach for) -------------

def test_parameter_dict_as_pytorch():
    for L in (torch, storch):
        d = L.nn.ParameterDict({"b": L.nn.Parameter(L.ones(2)), "a": L.zeros(3)})
        d["c"] = L.nn.Parameter(L.ones(1))
        # (a plain dict is taken sorted by key, an OrderedDict in its order: PyTorch's update)
        assert list(d.keys()) == ["a", "b", "c"] and len(d) == 3 and "a" in d
        assert isinstance(d["a"], L.nn.Parameter) and d["a"].requires_grad  # (made a Parameter)
        assert [n for n, _ in d.named_parameters()] == ["a", "b", "c"]
        assert list(d.state_dict()) == ["a", "b", "c"]
        from collections import OrderedDict
        assert list(L.nn.ParameterDict(OrderedDict([("y", L.ones(1)), ("x", L.ones(1))]))) == ["y", "x"]
        p = d.pop("b")
        assert tuple(p.shape) == (2,) and list(d) == ["a", "c"]
        d.update([("z", L.nn.Parameter(L.ones(4)))])
        assert list(d.keys()) == ["a", "c", "z"] and d.get("q") is None
        del d["a"]
        assert [tuple(v.shape) for v in d.values()] == [(1,), (4,)]
        holder = L.nn.Module()
        holder.params = d
        assert [n for n, _ in holder.named_parameters()] == ["params.c", "params.z"]


def test_buffer_registers_as_pytorch():
    for L in (torch, storch):
        m = L.nn.Module()
        t = L.ones(2)
        m.x = L.nn.Buffer(t)
        m.y = L.nn.Buffer(L.zeros(1), persistent=False)
        m.z = L.ones(3)  # a plain array: an attribute, not a buffer
        assert [n for n, _ in m.named_buffers()] == ["x", "y"]
        assert list(m.state_dict()) == ["x"]
        assert not m.x.requires_grad and not isinstance(m.x, L.nn.Parameter)
        assert m.x.data_ptr() == t.data_ptr()  # (the same memory)
        m.x = L.full((2,), 5.0)  # reassigning a registered buffer keeps it a buffer
        assert to_numpy(m.state_dict()["x"]).tolist() == [5.0, 5.0]
        b = L.nn.Buffer(L.ones(2))
        assert isinstance(b, L.nn.Buffer)
        m.w = b
        assert "w" in dict(m.named_buffers())


# --- embedding_bag -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("form", ["2d", "offsets", "last_offset", "empty_bags"])
@pytest.mark.parametrize("padding_idx", [None, 3, -1])
def test_embedding_bag(mode, form, padding_idx, dtype):
    def build(lib, T, rng):
        w = T(rng.standard_normal((7, 3)), grad=True)
        kw = dict(mode=mode, padding_idx=padding_idx)
        if form == "2d":
            return lib.nn.functional.embedding_bag(T(rng.integers(0, 7, (4, 3))), w, **kw)
        idx = T(np.array([3, 1, 6, 6, 3, 0, 2, 6, 5]))
        offs = {"offsets": [0, 2, 5], "last_offset": [0, 4, 6, 9],
                "empty_bags": [0, 0, 3, 3, 9]}[form]
        return lib.nn.functional.embedding_bag(idx, w, T(np.array(offs)),
                                               include_last_offset=form == "last_offset", **kw)
    check(build, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_embedding_bag_per_sample_weights(dtype):
    def build(lib, T, rng):
        w = T(rng.standard_normal((6, 4)), grad=True)
        psw = T(rng.standard_normal(7), grad=True)
        idx = T(np.array([1, 2, 5, 0, 0, 4, 2]))
        m = lib.nn.EmbeddingBag(6, 4, mode="sum", _weight=w.detach() * 1.0, padding_idx=0)
        return (lib.nn.functional.embedding_bag(idx, w, T(np.array([0, 3, 3])), mode="sum",
                                                per_sample_weights=psw)
                + m(idx, T(np.array([0, 3, 3])), per_sample_weights=psw))
    check(build, dtype)


def test_embedding_bag_module_and_errors():
    for L in (torch, storch):
        m = L.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=-2)
        assert repr(m) == "EmbeddingBag(10, 3, mode='sum', padding_idx=8)"
        assert np.all(to_numpy(m.weight)[8] == 0) and list(m.state_dict()) == ["weight"]
        F, w = L.nn.functional, L.randn(5, 2)
        i = L.tensor([1, 2, 3])
        for args, kw, exc, frag in [
            ((i, w, L.tensor([1, 2])), {}, RuntimeError, "offsets\\[0\\] has to be 0"),
            ((i, w, L.tensor([0, 5])), {}, RuntimeError, "offsets\\[-1\\] can not be greater"),
            ((i, w), {}, ValueError, "offsets has to be a 1D Tensor but got None"),
            ((L.tensor([[1, 2]]), w, L.tensor([0])), {}, ValueError, "offsets has to be None"),
            ((i, w, L.tensor([0])), {"mode": "median"}, ValueError, "mode has to be one of"),
            ((i, w, L.tensor([0])), {"mode": "mean", "per_sample_weights": L.ones(3)},
             NotImplementedError, "only supported for mode='sum'"),
            ((i, w, L.tensor([0])), {"per_sample_weights": L.ones(2)}, ValueError,
             "must have the same shape as the input"),
            ((i, L.randn(5), L.tensor([0])), {}, ValueError, "weight has to be a 2D Tensor"),
            ((i, w, L.tensor([0])), {"padding_idx": 9}, RuntimeError,
             "padding_idx must be within the number of embeddings"),
            ((L.tensor([1.0, 2.0]), w, L.tensor([0])), {}, RuntimeError,
             "'indices' to have one of the following scalar types"),
        ]:
            with pytest.raises(exc, match=frag):
                F.embedding_bag(*args, **kw)
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq"):
        storch.nn.functional.embedding_bag(storch.tensor([1]), storch.ones(3, 2),
                                           storch.tensor([0]), scale_grad_by_freq=True)


# --- ctc_loss ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", ["padded", "concatenated", "tuple_lengths", "unbatched"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("blank", [0, 4])
def test_ctc_loss(form, reduction, blank, dtype):
    def build(lib, T, rng):
        logits = T(rng.standard_normal((7, 3, 5)), grad=True)
        lp = logits.log_softmax(2)
        labels = [c for c in range(5) if c != blank]
        tg = np.array([[labels[0], labels[1], labels[1], labels[2]],
                       [labels[3], labels[3], labels[0], labels[0]],
                       [labels[2], labels[0], labels[1], labels[3]]])
        in_len, tg_len = np.array([7, 6, 5]), np.array([4, 2, 0])
        F = lib.nn.functional
        if form == "unbatched":
            return F.ctc_loss(lp[:, 0], T(tg[0, :3]), T(np.array(7)), T(np.array(3)), blank=blank,
                              reduction=reduction)
        if form == "concatenated":
            tgt = T(np.concatenate([tg[n, :k] for n, k in enumerate(tg_len)]))
        else:
            tgt = T(tg)
        if form == "tuple_lengths":
            il, tl = tuple(int(v) for v in in_len), tuple(int(v) for v in tg_len)
        else:
            il, tl = T(in_len), T(tg_len)
        return F.ctc_loss(lp, tgt, il, tl, blank=blank, reduction=reduction)
    check(build, dtype, tol=dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else
          dict(rtol=1e-9, atol=1e-11))


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_log_prob_gradient_and_infinity(zero_infinity):
    # The gradient with respect to log_probs themselves (PyTorch's exp(lp) - posterior) and
    # an impossible alignment (three repeated labels need 5 steps; only 4 given).
    def build(lib, T, rng):
        lp = T(np.log(rng.dirichlet(np.ones(4), size=(6, 2))), grad=True)
        tgt = T(np.array([[1, 2, 3], [2, 2, 2]]))
        out = lib.nn.functional.ctc_loss(lp, tgt, T(np.array([6, 4])), T(np.array([3, 3])),
                                         reduction="none", zero_infinity=zero_infinity)
        return out
    # (without zero_infinity the infinite loss's gradient is PyTorch's NaN and strided's 0:
    # values only there)
    check(build, "float64", backward=zero_infinity)


def test_ctc_loss_errors():
    for L in (torch, storch):
        assert repr(L.nn.CTCLoss()) == "CTCLoss()"
        lp = L.log(L.full((2, 1, 2), 0.5, dtype=L.float64))
        v = L.nn.CTCLoss(blank=1, reduction="sum")(lp, L.tensor([[0]]), [2], [1])
        assert abs(v.item() + np.log(0.75)) < 1e-12
        lp = L.randn(5, 2, 4).log_softmax(2)
        tg = L.tensor([[1, 2], [3, 3]])
        with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 5"):
            L.nn.functional.ctc_loss(lp, tg, L.tensor([5, 6]), L.tensor([2, 2]))
        with pytest.raises(RuntimeError, match="Expected tensor to have size at least 3"):
            L.nn.functional.ctc_loss(lp, tg, L.tensor([5, 5]), L.tensor([2, 3]))
        with pytest.raises(RuntimeError, match="blank must be in label range"):
            L.nn.functional.ctc_loss(lp, tg, L.tensor([5, 5]), L.tensor([2, 2]), blank=4)
        with pytest.raises(ValueError, match="is not a valid value for reduction"):
            L.nn.functional.ctc_loss(lp, tg, L.tensor([5, 5]), L.tensor([2, 2]), reduction="x")


@pytest.mark.parametrize("dtype", DTYPES)
def test_noncontiguous_inputs(dtype):
    # Transposed, strided and negative-stride views through the losses.
    def build(lib, T, rng):
        F = lib.nn.functional
        base = T(_x(rng, (6, 8)), grad=True)
        x = base.T[::2]  # (4, 6), strides of a transposed view
        # (strided: a negative-stride view; PyTorch has none, its flip copies)
        y = (base[1:].flip(1) if lib is torch else base[1:, ::-1])[:4, :6]
        t = T(rng.uniform(0.1, 1.0, (6, 4))).T
        parts = [F.kl_div(x, t, reduction="sum"), F.soft_margin_loss(x, t.sign()),
                 F.multi_margin_loss(x, T(np.array([0, 5, 2, 3])), p=2),
                 F.multilabel_soft_margin_loss(x, t),
                 F.triplet_margin_loss(x, y, x * 0.5),
                 F.cosine_embedding_loss(x, y, T(np.array([1, -1, 1, -1]))),
                 F.gaussian_nll_loss(x, y, t), F.hinge_embedding_loss(x, t.sign() * -1)]
        return lib.stack(parts)
    check(build, dtype, tol=dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else None)
