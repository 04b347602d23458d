"""The lazy modules against PyTorch 2.13: ``LazyLinear``, ``LazyConv*``, ``LazyConvTranspose*``,
``LazyBatchNorm*``, ``LazyInstanceNorm*`` before and after their first call (reprs, parameter and
buffer names, shapes, dtypes, the class they become, the attributes they infer), the
initialization's bounds, outputs and gradients once both hold the same weights,
``UninitializedParameter`` / ``UninitializedBuffer``, ``LazyModuleMixin``'s rules, an optimizer
built before the first call, ``state_dict`` / ``load_state_dict`` / ``deepcopy``, and errors."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-10, atol=1e-12)}

# (class, constructor args, kwargs, input shape)
CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (4,), dict(bias=False), (2, 3, 6)),
    ("LazyLinear", (2,), {}, (7,)),
    ("LazyConv1d", (4, 3), {}, (2, 3, 8)),
    ("LazyConv1d", (4, 2), dict(groups=2, padding=1, bias=False), (6, 5)),
    ("LazyConv2d", (2, 3), dict(stride=2), (1, 3, 7, 6)),
    ("LazyConv2d", (4, (2, 3)), dict(groups=2, dilation=2, padding_mode="reflect", padding=1), (4, 6, 7)),
    ("LazyConv3d", (2, 2), {}, (1, 2, 4, 4, 3)),
    ("LazyConvTranspose1d", (3, 3), dict(stride=2, output_padding=1), (2, 4, 5)),
    ("LazyConvTranspose2d", (4, 3), dict(groups=2), (2, 6, 4, 4)),
    ("LazyConvTranspose2d", (2, 2), dict(bias=False, dilation=2), (3, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 2)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm1d", (), dict(affine=False, momentum=None), (4, 3, 5)),
    ("LazyBatchNorm2d", (), dict(eps=1e-3), (3, 2, 4, 4)),
    ("LazyBatchNorm3d", (), dict(track_running_stats=False), (2, 2, 3, 3, 3)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 6)),
    ("LazyInstanceNorm2d", (), dict(affine=False, track_running_stats=False), (2, 3, 4, 4)),
    ("LazyInstanceNorm2d", (), dict(bias=False), (2, 3, 4, 5)),
    ("LazyInstanceNorm3d", (), {}, (2, 2, 3, 3, 3)),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]
INFERRED = ("in_features", "in_channels", "num_features")


def build(lib, name, args, kwargs, dtype):
    return getattr(lib.nn, name)(*args, dtype=getattr(lib, dtype), **kwargs)


def data(shape, dtype, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.from_numpy(a.copy()), strided.asarray(a.copy())


def names(m):
    return ([k for k, _ in m.named_parameters()], [k for k, _ in m.named_buffers()],
            list(m.state_dict()))


@pytest.mark.filterwarnings("ignore:input's size at dim")  # (both warn: affine=False, num_features 0)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_lazy_module_equals_pytorch(case, dtype):
    name, args, kwargs, shape = case
    tm, sm = build(torch, name, args, kwargs, dtype), build(st, name, args, kwargs, dtype)
    # before the first call
    assert repr(sm) == repr(tm)
    assert type(sm).__name__ == name
    assert sm.has_uninitialized_params() == tm.has_uninitialized_params()
    assert names(sm) == names(tm)
    for (k, tp), (_, sp) in zip(tm.named_parameters(), sm.named_parameters()):
        assert isinstance(tp, torch.nn.UninitializedParameter)
        assert isinstance(sp, st.nn.UninitializedParameter) and isinstance(sp, st.nn.Parameter)
        assert sp.requires_grad and str(sp.dtype).split(".")[-1] == dtype
    for (k, tb), (_, sb) in zip(tm.named_buffers(), sm.named_buffers()):
        assert isinstance(sb, st.nn.UninitializedBuffer) == isinstance(tb, torch.nn.UninitializedBuffer)
    tx, sx = data(shape, dtype)
    to, so = tm(tx), sm(sx)
    # after the first call: the non-lazy class, the inferred sizes, the shapes
    assert type(sm) is getattr(st.nn, type(tm).__name__)
    assert type(tm).__name__ == name[4:]
    assert not sm.has_uninitialized_params() if hasattr(sm, "has_uninitialized_params") else True
    assert not hasattr(sm, "_initialize_hook")
    for attr in INFERRED:
        assert getattr(sm, attr, None) == getattr(tm, attr, None)
    assert repr(sm) == repr(tm)
    assert names(sm) == names(tm)
    for (k, t), (_, s) in zip(tm.state_dict().items(), sm.state_dict().items()):
        assert tuple(s.shape) == tuple(t.shape), k
        assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], k
    for _, p in sm.named_parameters():
        assert isinstance(p, st.nn.Parameter) and not isinstance(p, st.nn.UninitializedParameter)
    assert tuple(so.shape) == tuple(to.shape)
    if "Norm" in name:
        # deterministic initialization (weight 1, bias 0, running stats 0 / 1 then updated)
        np.testing.assert_allclose(to_numpy(so), to_numpy(to), **TOL[dtype])
        for (k, t), (_, s) in zip(tm.state_dict().items(), sm.state_dict().items()):
            np.testing.assert_allclose(to_numpy(s), to_numpy(t), **TOL[dtype], err_msg=k)
    else:
        # reset_parameters' bounds: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias
        w = to_numpy(sm.weight)
        fan_in = w.shape[1] * int(np.prod(w.shape[2:]))
        bound = 1 / math.sqrt(fan_in)
        a = np.concatenate([to_numpy(p).ravel() for p in sm.parameters()])
        assert np.abs(a).max() <= bound + 1e-7
        assert np.abs(a).max() > 0.3 * bound  # (not left empty or zero; >= 12 draws)
        assert all(np.abs(to_numpy(p)).max() > 0 for p in sm.parameters())
    # with the same weights, the same values and gradients
    with torch.no_grad():
        sm.load_state_dict({k: v.numpy().copy() for k, v in tm.state_dict().items()})
    tx, sx = data(shape, dtype, seed=1)
    tx.requires_grad_(True), sx.requires_grad_(True)
    to, so = tm(tx), sm(sx)
    np.testing.assert_allclose(to_numpy(so), to_numpy(to), **TOL[dtype])
    (to * to).sum().backward()
    (so * so).sum().backward()
    np.testing.assert_allclose(to_numpy(sx.grad), to_numpy(tx.grad), rtol=1e-4 if dtype == "float32"
                               else 1e-9, atol=1e-4 if dtype == "float32" else 1e-10)
    for (k, tp), (_, sp) in zip(tm.named_parameters(), sm.named_parameters()):
        np.testing.assert_allclose(to_numpy(sp.grad), to_numpy(tp.grad), rtol=1e-4 if dtype == "float32"
                                   else 1e-9, atol=1e-4 if dtype == "float32" else 1e-10, err_msg=k)


def test_initialization_distribution():
    # many draws: the weights fill [-bound, bound] uniformly (mean ~0, var ~bound^2/3)
    m = st.nn.LazyLinear(200, dtype=st.float64)
    m(st.ones(1, 25, dtype=st.float64))
    w = to_numpy(m.weight)
    bound = 1 / 5
    assert np.abs(w).max() <= bound
    assert abs(w.mean()) < 0.01 and abs(w.var() - bound ** 2 / 3) < 0.1 * bound ** 2 / 3
    c = st.nn.LazyConv2d(50, 3)
    c(st.ones(1, 4, 5, 5))
    bound = 1 / math.sqrt(4 * 9)
    b = to_numpy(c.weight)
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.9 * bound


@pytest.mark.parametrize("lib", [torch, st], ids=["torch", "strided"])
def test_optimizer_built_before_first_call(lib):
    m = lib.nn.LazyLinear(3)
    params = list(m.parameters())
    opt = lib.optim.SGD(m.parameters(), lr=0.5)  # no error, as PyTorch
    out = m(lib.ones(2, 4))
    assert [p is q for p, q in zip(m.parameters(), params)] == [True, True]
    before = [to_numpy(p).copy() for p in params]
    out.sum().backward()
    grads = [to_numpy(p.grad).copy() for p in params]
    opt.step()
    for p, b, g in zip(params, before, grads):
        np.testing.assert_allclose(to_numpy(p), b - 0.5 * g, rtol=1e-6)


def test_dtype_and_to_before_first_call():
    for lib in (torch, st):
        m = lib.nn.LazyLinear(3).double()
        m(lib.ones(2, 4, dtype=lib.float64))
        assert str(m.weight.dtype).endswith("float64") and str(m.bias.dtype).endswith("float64")
        b = lib.nn.LazyBatchNorm1d(dtype=lib.float64)
        b(lib.ones(3, 2, dtype=lib.float64))
        assert str(b.running_mean.dtype).endswith("float64")
        assert str(b.num_batches_tracked.dtype).endswith("int64")
        assert int(b.num_batches_tracked) == 1


def test_uninitialized_parameter_and_buffer():
    p = st.nn.UninitializedParameter(requires_grad=False, dtype=st.float64)
    assert isinstance(p, st.nn.UninitializedParameter) and isinstance(p, st.nn.Parameter)
    assert not isinstance(p, st.nn.UninitializedBuffer)
    assert st.nn.parameter.is_lazy(p) and not p.requires_grad
    assert st.nn.UninitializedParameter.cls_to_become is st.nn.Parameter
    p.materialize((2, 3), dtype=st.float32)
    assert tuple(p.shape) == (2, 3) and p.dtype == st.float32
    assert not st.nn.parameter.is_lazy(p) and isinstance(p, st.nn.Parameter)
    assert not isinstance(p, st.nn.UninitializedParameter)
    b = st.nn.UninitializedBuffer()
    assert isinstance(b, st.nn.UninitializedBuffer) and not isinstance(b, st.nn.Parameter)
    b.materialize(4)
    assert tuple(b.shape) == (4,) and b.dtype == st.get_default_dtype()
    assert not isinstance(b, st.nn.UninitializedBuffer)
    assert not hasattr(st.ones(2), "materialize") and not hasattr(torch.ones(2), "materialize")
    with pytest.raises(AttributeError, match="materialize"):
        st.ones(2).materialize((3,))
    tb = torch.nn.UninitializedBuffer(persistent=False)
    sb = st.nn.UninitializedBuffer(persistent=False)
    assert isinstance(tb, torch.nn.UninitializedBuffer) and isinstance(sb, st.nn.UninitializedBuffer)
    assert st.nn.modules.lazy.LazyModuleMixin is st.nn._lazy.LazyModuleMixin
    # assigned as an attribute, an uninitialized buffer is registered (persistent or not)
    for lib in (torch, st):
        m = lib.nn.Module()
        m.a = lib.nn.UninitializedBuffer(persistent=False)
        m.b = lib.nn.UninitializedBuffer()
        assert [k for k, _ in m.named_buffers()] == ["a", "b"]
        assert m._non_persistent_buffers_set == {"a"}


def test_mixin_rules():
    for lib in (torch, st):
        Mixin = lib.nn.modules.lazy.LazyModuleMixin

        class NoInit(Mixin, lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.UninitializedParameter()

            def forward(self, x):
                return x

        with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented for NoInit"):
            NoInit()(lib.ones(2))

        class Half(NoInit):
            def initialize_parameters(self, x):
                pass

        with pytest.raises(RuntimeError, match="module Half has not been fully initialized"):
            Half()(lib.ones(2))

        class Good(Half):
            def initialize_parameters(self, x):
                self.w.materialize(x.shape)

        g = Good()
        g(lib.ones(3))
        assert type(g) is Good and tuple(g.w.shape) == (3,) and not g.has_uninitialized_params()


def test_state_dict_load_and_deepcopy():
    for lib in (torch, st):
        m = lib.nn.LazyLinear(3)
        sd = m.state_dict()
        assert all(isinstance(v, lib.nn.UninitializedParameter) for v in sd.values())
        m2 = copy.deepcopy(m)
        assert m2.has_uninitialized_params() and m2.weight is not m.weight
        m2(lib.ones(2, 4))
        assert type(m2) is lib.nn.Linear and m.has_uninitialized_params()
        # an uninitialized module loads an initialized state, stays lazy until its first call
        full = lib.nn.Linear(5, 3)
        m3 = lib.nn.LazyLinear(3)
        m3.load_state_dict(full.state_dict())
        assert not m3.has_uninitialized_params() and type(m3) is lib.nn.LazyLinear
        np.testing.assert_array_equal(to_numpy(m3.weight), to_numpy(full.weight))
        out = m3(lib.ones(2, 5))
        assert type(m3) is lib.nn.Linear and m3.in_features == 5
        np.testing.assert_allclose(to_numpy(out), to_numpy(full(lib.ones(2, 5))), rtol=1e-6)
        # an uninitialized state into an uninitialized module keeps it uninitialized
        m4 = lib.nn.LazyLinear(3)
        m4.load_state_dict(lib.nn.LazyLinear(3).state_dict())
        assert m4.has_uninitialized_params()


def test_errors_equal_pytorch():
    for lib in (torch, st):
        with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
            lib.nn.LazyConv2d(2, 3)(lib.ones(4, 4))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.nn.LazyConv1d(4, 3, groups=2)(lib.ones(1, 3, 5))
        with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
            lib.nn.LazyBatchNorm1d()(lib.ones(2, 3, 4, 4))
        with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for LazyConvTranspose2d'):
            lib.nn.LazyConvTranspose2d(2, 3, padding_mode="reflect")
        # (PyTorch's quirk: num_features is shape[1], also for an unbatched input)
        with pytest.raises(ValueError, match=r"expected input's size at dim=0 to match num_features \(5\)"):
            lib.nn.LazyInstanceNorm1d()(lib.ones(3, 5))
        with pytest.raises(AssertionError, match="in_features inferred from input: 4 is not equal"):
            m = lib.nn.LazyLinear(2)
            m.load_state_dict(lib.nn.Linear(3, 2).state_dict())
            m(lib.ones(1, 4))
