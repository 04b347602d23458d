"""``strided.torch.nn.utils.prune`` against PyTorch 2.13's ``torch.nn.utils.prune``: masks of the
deterministic methods (L1, Ln structured, custom, global L1), the reparametrization (``_orig``
parameter, ``_mask`` buffer, forward pre-hook), forward values and gradients through the pruned
parameter, iterative pruning (``PruningContainer``), state dicts, ``remove``, ``is_pruned`` and
errors; the random methods by counts and structure, and statistically."""

from __future__ import annotations

import math

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch
from strided.torch.nn.utils import prune as sprune
from torch.nn.utils import prune as tprune
from _parity import to_numpy

DT = {"float32": (torch.float32, storch.float32, 1e-5), "float64": (torch.float64, storch.float64, 1e-12)}


def _pair(kind, dtype="float64", seed=0):
    """The same module in PyTorch and strided, with distinct (tie-free) weights."""
    tdt, sdt, _ = DT[dtype]
    rng = np.random.default_rng(seed)
    if kind == "linear":
        t, s = torch.nn.Linear(5, 4), storch.nn.Linear(5, 4)
    elif kind == "conv":
        t, s = torch.nn.Conv2d(2, 3, 3), storch.nn.Conv2d(2, 3, 3)
    else:
        t, s = torch.nn.Conv1d(3, 4, 2), storch.nn.Conv1d(3, 4, 2)
    t, s = t.to(tdt), s.to(sdt)
    with torch.no_grad():
        for p in t.parameters():
            n = p.numel()
            vals = rng.permutation(np.arange(1, n + 1)) * rng.choice([-1.0, 1.0], n) / n
            p.copy_(torch.tensor(vals.reshape(p.shape), dtype=tdt))
    s.load_state_dict({k: v.detach().numpy() for k, v in t.state_dict().items()})
    return t, s


def _inp(kind, dtype, seed=1):
    tdt, sdt, _ = DT[dtype]
    shape = {"linear": (3, 5), "conv": (2, 2, 5, 5), "conv1d": (2, 3, 6)}[kind]
    x = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(x, dtype=tdt), storch.tensor(x, dtype=sdt)


def _same_state(t, s, tol=1e-12):
    tsd, ssd = t.state_dict(), s.state_dict()
    assert list(tsd) == list(ssd)
    for k in tsd:
        np.testing.assert_allclose(to_numpy(ssd[k]), tsd[k].detach().numpy(), rtol=tol, atol=tol)
        assert str(ssd[k].dtype).split(".")[-1] == str(tsd[k].dtype).split(".")[-1]


def _same_forward_backward(t, s, kind, dtype):
    tol = DT[dtype][2]
    tx, sx = _inp(kind, dtype)
    ty, sy = t(tx), s(sx)
    np.testing.assert_allclose(to_numpy(sy), ty.detach().numpy(), rtol=tol, atol=tol)
    (ty * ty).sum().backward()
    (sy * sy).sum().backward()
    tparams, sparams = dict(t.named_parameters()), dict(s.named_parameters())
    assert list(tparams) == list(sparams)
    for k in tparams:
        np.testing.assert_allclose(to_numpy(sparams[k].grad), tparams[k].grad.numpy(), rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["linear", "conv", "conv1d"])
@pytest.mark.parametrize("amount", [0, 1, 7, 0.0, 0.3, 0.75, 1.0])
def test_l1_unstructured(kind, dtype, amount):
    t, s = _pair(kind, dtype)
    rt = tprune.l1_unstructured(t, "weight", amount=amount)
    rs = sprune.l1_unstructured(s, "weight", amount=amount)
    assert rs is s and rt is t
    np.testing.assert_array_equal(to_numpy(s.weight_mask), t.weight_mask.numpy())
    assert sorted(n for n, _ in s.named_parameters()) == sorted(n for n, _ in t.named_parameters())
    assert sorted(n for n, _ in s.named_buffers()) == sorted(n for n, _ in t.named_buffers())
    _same_state(t, s)
    np.testing.assert_array_equal(to_numpy(s.weight), t.weight.detach().numpy())
    assert sprune.is_pruned(s) and tprune.is_pruned(t)
    _same_forward_backward(t, s, kind, dtype)


@pytest.mark.parametrize("kind", ["linear", "conv", "conv1d"])
@pytest.mark.parametrize("n", [1, 2, 3, math.inf, -math.inf, "fro", "nuc"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("amount", [1, 0.5, 0])
def test_ln_structured(kind, n, dim, amount):
    t, s = _pair(kind)
    if (n == "fro" and kind == "conv") or (n == "nuc" and kind != "conv1d"):
        # 'fro' over three dims, 'nuc' over other than two: PyTorch's torch.norm refuses
        _both_raise(lambda: tprune.ln_structured(t, "weight", amount=amount, n=n, dim=dim),
                    lambda: sprune.ln_structured(s, "weight", amount=amount, n=n, dim=dim),
                    RuntimeError, "dim must be a 2-tuple")
        assert not sprune.is_pruned(s)
        return
    tprune.ln_structured(t, "weight", amount=amount, n=n, dim=dim)
    sprune.ln_structured(s, "weight", amount=amount, n=n, dim=dim)
    np.testing.assert_array_equal(to_numpy(s.weight_mask), t.weight_mask.numpy())
    _same_state(t, s)
    _same_forward_backward(t, s, kind, "float64")


@pytest.mark.parametrize("kind", ["linear", "conv"])
def test_importance_scores(kind):
    t, s = _pair(kind)
    scores = np.random.default_rng(5).permutation(t.weight.numel()).reshape(t.weight.shape).astype(np.float64)
    tprune.l1_unstructured(t, "weight", amount=0.4, importance_scores=torch.tensor(scores))
    sprune.l1_unstructured(s, "weight", amount=0.4, importance_scores=storch.tensor(scores))
    np.testing.assert_array_equal(to_numpy(s.weight_mask), t.weight_mask.numpy())
    tprune.ln_structured(t, "weight", amount=1, n=1, dim=0, importance_scores=torch.tensor(scores))
    sprune.ln_structured(s, "weight", amount=1, n=1, dim=0, importance_scores=storch.tensor(scores))
    np.testing.assert_array_equal(to_numpy(s.weight_mask), t.weight_mask.numpy())
    _same_state(t, s)


@pytest.mark.parametrize("kind", ["linear", "conv"])
def test_custom_from_mask_and_bias(kind):
    t, s = _pair(kind)
    mask = np.random.default_rng(3).integers(0, 2, t.bias.shape).astype(np.float64)
    tprune.custom_from_mask(t, "bias", torch.tensor(mask))
    sprune.custom_from_mask(s, "bias", storch.tensor(mask))
    np.testing.assert_array_equal(to_numpy(s.bias_mask), t.bias_mask.numpy())
    tprune.identity(t, "weight")
    sprune.identity(s, "weight")
    np.testing.assert_array_equal(to_numpy(s.weight_mask), t.weight_mask.numpy())
    _same_state(t, s)
    _same_forward_backward(t, s, kind, "float64")


def test_iterative_pruning_combines_masks_in_a_container():
    t, s = _pair("conv")
    steps = [("l1_unstructured", dict(amount=5)), ("ln_structured", dict(amount=1, n=2, dim=0)),
             ("l1_unstructured", dict(amount=0.3)), ("ln_structured", dict(amount=1, n=1, dim=1)),
             ("custom_from_mask", None)]
    mask = (np.arange(t.weight.numel()) % 3 != 0).reshape(t.weight.shape).astype(np.float64)
    for name, kw in steps:
        if kw is None:
            getattr(tprune, name)(t, "weight", torch.tensor(mask))
            getattr(sprune, name)(s, "weight", storch.tensor(mask))
        else:
            getattr(tprune, name)(t, "weight", **kw)
            getattr(sprune, name)(s, "weight", **kw)
        np.testing.assert_array_equal(to_numpy(s.weight_mask), t.weight_mask.numpy())
    thooks = [h for h in t._forward_pre_hooks.values() if isinstance(h, tprune.BasePruningMethod)]
    shooks = [h for h in s._forward_pre_hooks.values() if isinstance(h, sprune.BasePruningMethod)]
    assert len(thooks) == len(shooks) == 1
    assert isinstance(shooks[0], sprune.PruningContainer)
    assert [type(m).__name__ for m in shooks[0]] == [type(m).__name__ for m in thooks[0]]
    assert len(shooks[0]) == len(thooks[0]) == 5
    _same_state(t, s)
    _same_forward_backward(t, s, "conv", "float64")


@pytest.mark.parametrize("amount", [3, 10, 0.25])
def test_global_unstructured(amount):
    t1, s1 = _pair("linear", seed=1)
    t2, s2 = _pair("conv", seed=2)
    tprune.l1_unstructured(t2, "weight", amount=4)  # an existing mask joins the global one
    sprune.l1_unstructured(s2, "weight", amount=4)
    scores = np.random.default_rng(7).permutation(t1.bias.numel()).astype(np.float64) * 0.01
    tprune.global_unstructured([(t1, "weight"), (t2, "weight"), (t1, "bias")],
                               pruning_method=tprune.L1Unstructured, amount=amount,
                               importance_scores={(t1, "bias"): torch.tensor(scores)})
    sprune.global_unstructured([(s1, "weight"), (s2, "weight"), (s1, "bias")],
                               pruning_method=sprune.L1Unstructured, amount=amount,
                               importance_scores={(s1, "bias"): storch.tensor(scores)})
    for tm, sm in ((t1, s1), (t2, s2)):
        _same_state(tm, sm)
    np.testing.assert_array_equal(to_numpy(s1.bias_mask), t1.bias_mask.numpy())
    _same_forward_backward(t1, s1, "linear", "float64")
    _same_forward_backward(t2, s2, "conv", "float64")


def test_global_random_unstructured_counts():
    _, s1 = _pair("linear", seed=1)
    _, s2 = _pair("conv", seed=2)
    sprune.global_unstructured([(s1, "weight"), (s2, "weight")], pruning_method=sprune.RandomUnstructured,
                               amount=17)
    zeros = int((to_numpy(s1.weight_mask) == 0).sum() + (to_numpy(s2.weight_mask) == 0).sum())
    assert zeros == 17


@pytest.mark.parametrize("kind", ["linear", "conv"])
def test_remove_makes_pruning_permanent(kind):
    t, s = _pair(kind)
    for m, p in ((t, tprune), (s, sprune)):
        p.l1_unstructured(m, "weight", amount=0.5)
        p.ln_structured(m, "weight", amount=1, n=2, dim=0)
        p.random_unstructured(m, "bias", amount=0)
        orig = m.weight_orig
        p.remove(m, "weight")
        assert m.weight is orig  # PyTorch keeps the _orig parameter object, with the masked data
    assert list(s.state_dict()) == list(t.state_dict())
    np.testing.assert_array_equal(to_numpy(s.weight), t.weight.detach().numpy())
    assert isinstance(s.weight, storch.nn.Parameter) and s.weight.requires_grad
    assert "weight" in dict(s.named_parameters()) and "weight_orig" not in dict(s.named_parameters())
    assert sprune.is_pruned(s) and tprune.is_pruned(t)
    for m, p in ((t, tprune), (s, sprune)):
        p.remove(m, "bias")
    assert not sprune.is_pruned(s) and not tprune.is_pruned(t)
    assert len(s._forward_pre_hooks) == len(t._forward_pre_hooks) == 0
    _same_state(t, s)
    _same_forward_backward(t, s, kind, "float64")


def test_is_pruned_on_submodules_and_state_dict_round_trip():
    t = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)).double()
    s = storch.nn.Sequential(storch.nn.Linear(5, 4), storch.nn.ReLU(), storch.nn.Linear(4, 2)).double()
    assert not sprune.is_pruned(s)
    tprune.l1_unstructured(t[2], "weight", amount=3)
    sprune.l1_unstructured(s[2], "weight", amount=3)  # random weights: the mask comes from the load below
    assert sprune.is_pruned(s) and tprune.is_pruned(t)
    s.load_state_dict({k: v.detach().numpy() for k, v in t.state_dict().items()})
    assert list(s.state_dict()) == list(t.state_dict())
    tx = torch.tensor(np.random.default_rng(0).standard_normal((3, 5)))
    np.testing.assert_allclose(to_numpy(s(storch.tensor(tx.numpy()))), t(tx).detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("amount", [0, 1, 9, 0.5, 1.0])
def test_random_unstructured_counts(amount):
    _, s = _pair("conv")
    n = s.weight.numel()
    sprune.random_unstructured(s, "weight", amount=amount)
    k = round(amount * n) if isinstance(amount, float) else amount
    mask = to_numpy(s.weight_mask)
    assert set(np.unique(mask)) <= {0.0, 1.0} and int((mask == 0).sum()) == k
    np.testing.assert_array_equal(to_numpy(s.weight), to_numpy(s.weight_orig) * mask)
    # pruning again prunes k among those still unpruned
    sprune.random_unstructured(s, "weight", amount=3 if k + 3 <= n else 0)
    mask2 = to_numpy(s.weight_mask)
    assert np.all(mask2[mask == 0] == 0)
    assert int((mask2 == 0).sum()) == k + (3 if k + 3 <= n else 0)


def test_random_unstructured_is_uniform():
    hits = np.zeros(12)
    trials = 400
    for _ in range(trials):
        m = storch.nn.Linear(3, 4)
        sprune.random_unstructured(m, "weight", amount=3)
        hits += (to_numpy(m.weight_mask) == 0).reshape(-1)
    p = 3 / 12
    sd = math.sqrt(trials * p * (1 - p))
    assert np.all(np.abs(hits - trials * p) < 5 * sd)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("amount", [1, 2, 0.5])
def test_random_structured_prunes_whole_channels(dim, amount):
    _, s = _pair("conv")
    shape = tuple(s.weight.shape)
    sprune.random_structured(s, "weight", amount=amount, dim=dim)
    mask = to_numpy(s.weight_mask)
    d = dim % len(shape)
    k = round(amount * shape[d]) if isinstance(amount, float) else amount
    moved = np.moveaxis(mask, d, 0).reshape(shape[d], -1)
    assert all(np.all(row == row[0]) for row in moved)  # whole slices along dim
    assert int((moved[:, 0] == 0).sum()) == k


def test_random_structured_is_uniform():
    hits = np.zeros(4)
    trials = 400
    for _ in range(trials):
        m = storch.nn.Linear(3, 4)
        sprune.random_structured(m, "weight", amount=1, dim=0)
        hits += to_numpy(m.weight_mask)[:, 0] == 0
    sd = math.sqrt(trials * 0.25 * 0.75)
    assert np.all(np.abs(hits - trials * 0.25) < 5 * sd)


def test_method_objects_prune_and_compute_mask():
    rng = np.random.default_rng(11)
    w = rng.permutation(24).reshape(4, 6).astype(np.float64) - 11.5
    tw, sw = torch.tensor(w), storch.tensor(w)
    pairs = [(tprune.L1Unstructured(0.4), sprune.L1Unstructured(0.4)),
             (tprune.LnStructured(2, n=1, dim=1), sprune.LnStructured(2, n=1, dim=1)),
             (tprune.Identity(), sprune.Identity()),
             (tprune.CustomFromMask(torch.tensor(w > 0).double()), sprune.CustomFromMask(storch.tensor(w > 0).double()))]
    for tm, sm in pairs:
        np.testing.assert_array_equal(to_numpy(sm.prune(sw)), tm.prune(tw).numpy())
        dm = (np.arange(24) % 5 != 0).reshape(4, 6).astype(np.float64)
        np.testing.assert_array_equal(to_numpy(sm.compute_mask(sw, default_mask=storch.tensor(dm))),
                                      tm.compute_mask(tw, default_mask=torch.tensor(dm)).numpy())
        assert sm.PRUNING_TYPE == tm.PRUNING_TYPE
    cont_t = tprune.PruningContainer(_named(tprune.L1Unstructured(3)))
    cont_s = sprune.PruningContainer(_named(sprune.L1Unstructured(3)))
    cont_t.add_pruning_method(_named(tprune.LnStructured(1, n=2, dim=0)))
    cont_s.add_pruning_method(_named(sprune.LnStructured(1, n=2, dim=0)))
    np.testing.assert_array_equal(
        to_numpy(cont_s.compute_mask(sw, default_mask=storch.ones_like(sw))),
        cont_t.compute_mask(tw, default_mask=torch.ones_like(tw)).numpy())


def test_gradient_flows_only_through_unpruned_entries():
    t, s = _pair("linear")
    tprune.l1_unstructured(t, "weight", amount=8)
    sprune.l1_unstructured(s, "weight", amount=8)
    _same_forward_backward(t, s, "linear", "float64")
    g = to_numpy(s.weight_orig.grad)
    assert np.all(g[to_numpy(s.weight_mask) == 0] == 0)
    assert s.weight_mask.grad is None and not s.weight_mask.requires_grad


def _named(method, name="weight"):
    method._tensor_name = name
    return method


def _both_raise(fn_t, fn_s, exc, fragment):
    with pytest.raises(exc) as et:
        fn_t()
    assert fragment in str(et.value)
    with pytest.raises(exc) as es:
        fn_s()
    assert fragment in str(es.value)


@pytest.mark.parametrize("call, exc, fragment", [
    (lambda p, m, lib: p.l1_unstructured(m, "weight", amount=-1), ValueError, "non-negative"),
    (lambda p, m, lib: p.l1_unstructured(m, "weight", amount=1.5), ValueError, "in the range [0, 1]"),
    (lambda p, m, lib: p.l1_unstructured(m, "weight", amount="a"), TypeError, "Invalid type for amount"),
    (lambda p, m, lib: p.l1_unstructured(m, "weight", amount=21), ValueError,
     "should be smaller than the number of parameters to prune"),
    (lambda p, m, lib: p.l1_unstructured(m, "nope", amount=1), AttributeError, "has no attribute 'nope'"),
    (lambda p, m, lib: p.ln_structured(m, "weight", amount=1, n=2, dim=2), IndexError, "Invalid index 2"),
    (lambda p, m, lib: p.ln_structured(m, "bias", amount=1, n=2, dim=0), ValueError,
     "Structured pruning can only be applied to multidimensional tensors"),
    (lambda p, m, lib: p.random_structured(m, "weight", amount=5, dim=0), ValueError,
     "should be smaller than the number of parameters to prune"),
    (lambda p, m, lib: p.l1_unstructured(m, "weight", amount=2, importance_scores=lib.ones(3)), AssertionError,
     "importance_scores should have the same shape as parameter weight"),
    (lambda p, m, lib: p.remove(m, "weight"), ValueError, "has to be pruned before pruning can be removed"),
    (lambda p, m, lib: p.global_unstructured(m, pruning_method=p.L1Unstructured, amount=1), TypeError,
     "global_unstructured(): parameters is not an Iterable"),
    (lambda p, m, lib: p.global_unstructured([(m, "weight")], pruning_method=p.L1Unstructured, amount=1,
                                             importance_scores=[1]), TypeError, "importance_scores must be of type dict"),
    (lambda p, m, lib: p.global_unstructured([(m, "weight")], pruning_method=p.LnStructured, amount=1, n=2, dim=0),
     TypeError, 'Only "unstructured" PRUNING_TYPE supported'),
    (lambda p, m, lib: p.PruningContainer(_named(p.L1Unstructured(1))).add_pruning_method(3), TypeError,
     "is not a BasePruningMethod subclass"),
])
def test_errors_match_pytorch(call, exc, fragment):
    t, s = _pair("linear")
    _both_raise(lambda: call(tprune, t, torch), lambda: call(sprune, s, storch), exc, fragment)
    assert not sprune.is_pruned(s)  # a failed prune leaves the module as it was
    assert list(s.state_dict()) == list(t.state_dict())


def test_error_on_pruning_a_tensor_twice_in_one_hook_and_mismatched_types():
    t, s = _pair("linear")
    tc = tprune.PruningContainer(_named(tprune.L1Unstructured(1)))
    sc = sprune.PruningContainer(_named(sprune.L1Unstructured(1)))
    m_t, m_s = _named(tprune.L1Unstructured(1), "bias"), _named(sprune.L1Unstructured(1), "bias")
    _both_raise(lambda: tc.add_pruning_method(m_t), lambda: sc.add_pruning_method(m_s), ValueError,
                "Can only add pruning methods acting on the parameter named")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_training_steps_keep_pruned_entries_zero(dtype):
    t, s = _pair("conv", dtype)
    tprune.ln_structured(t, "weight", amount=1, n=2, dim=0)
    sprune.ln_structured(s, "weight", amount=1, n=2, dim=0)
    tprune.l1_unstructured(t, "bias", amount=1)
    sprune.l1_unstructured(s, "bias", amount=1)
    topt = torch.optim.SGD(t.parameters(), lr=0.1, momentum=0.9)
    sopt = storch.optim.SGD(s.parameters(), lr=0.1, momentum=0.9)
    tol = DT[dtype][2] * 100
    for step in range(3):
        tx, sx = _inp("conv", dtype, seed=step)
        topt.zero_grad()
        sopt.zero_grad()
        ty, sy = t(tx), s(sx)
        np.testing.assert_allclose(to_numpy(sy), ty.detach().numpy(), rtol=tol, atol=tol)
        ty.square().mean().backward()
        sy.square().mean().backward()
        topt.step()
        sopt.step()
        _same_state(t, s, tol=tol)
    np.testing.assert_array_equal(to_numpy(s.weight)[to_numpy(s.weight_mask) == 0], 0)


def test_dtype_move_of_a_pruned_module():
    t, s = _pair("linear")
    tprune.l1_unstructured(t, "weight", amount=6)
    sprune.l1_unstructured(s, "weight", amount=6)
    t2, s2 = t.float(), s.float()
    assert sprune.is_pruned(s2)
    assert s2.weight_mask.dtype == storch.float32 and s2.weight_orig.dtype == storch.float32
    _same_state(t2, s2, tol=1e-6)
    _same_forward_backward(t2, s2, "linear", "float32")
    with storch.no_grad():
        s2.weight_orig.fill_(1.0)
    s2(storch.ones(1, 5))  # the hook recomputes weight from the changed weight_orig
    np.testing.assert_array_equal(to_numpy(s2.weight), to_numpy(s2.weight_mask))


from hypothesis import assume, given, settings, strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=3), seed=st.integers(0, 2**16),
       frac=st.floats(0.0, 1.0), n=st.sampled_from([1, 2, math.inf]), transpose=st.booleans())
def test_masks_on_random_shapes_and_strides(shape, seed, frac, n, transpose):
    # (on the CPU: whether abs() of a transposed parameter can be view()ed is a matter of the
    # result's layout, which PyTorch's CPU kernels and NumPy's keep and the CuPy stand-in's
    # C-ordered results do not)
    saved = storch.get_default_device()
    storch.set_default_device("cpu")
    try:
        _masks_on_random_shapes_and_strides(shape, seed, frac, n, transpose)
    finally:
        storch.set_default_device(saved)


def _masks_on_random_shapes_and_strides(shape, seed, frac, n, transpose):
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    w = (rng.permutation(size) + 1.0).reshape(shape) * rng.choice([-1.0, 1.0], shape)
    tw, sw = torch.tensor(w), storch.tensor(w)
    if transpose:  # a noncontiguous parameter
        tw, sw = tw.transpose(0, -1), sw.transpose(0, -1)
    dim = int(rng.integers(-len(shape), len(shape)))
    dm = (rng.random(shape) > 0.3).astype(np.float64)
    tdm, sdm = torch.tensor(dm), storch.tensor(dm)
    if transpose:
        tdm, sdm = tdm.transpose(0, -1), sdm.transpose(0, -1)
    try:
        tm = tprune.L1Unstructured(frac).compute_mask(tw, tdm)
    except RuntimeError as e:  # PyTorch's abs(t).view(-1) refuses a transposed t
        assert transpose and "view" in str(e)
        with pytest.raises(RuntimeError, match="view"):
            sprune.L1Unstructured(frac).compute_mask(sw, sdm)
    else:
        sm = sprune.L1Unstructured(frac).compute_mask(sw, sdm)
        np.testing.assert_array_equal(to_numpy(sm), tm.numpy())
    # Ranked channel norms must not tie: which of two equal channels PyTorch's topk keeps is
    # its kernel's accident (found at shape (4, 3) transposed, dim 1: |4|+|2|+|12| = |9|+|3|+|6|).
    # The weights are integers: the norms' orders are exact in integers (n=2 before the root).
    wt = tw.numpy().astype(np.int64)
    others = tuple(k for k in range(wt.ndim) if k != dim % wt.ndim)
    key = (np.abs(wt).max(axis=others) if n == math.inf
           else (np.abs(wt) ** (1 if n == 1 else 2)).sum(axis=others))
    assume(len(set(key.tolist())) == key.size)
    for a in (frac, int(rng.integers(0, tw.shape[dim] + 1))):
        tm = tprune.LnStructured(a, n=n, dim=dim).compute_mask(tw, tdm)
        sm = sprune.LnStructured(a, n=n, dim=dim).compute_mask(sw, sdm)
        np.testing.assert_array_equal(to_numpy(sm), tm.numpy())
