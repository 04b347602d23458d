"""``strided.torch.nn`` modules against PyTorch 2.13's: registration, walking, state
dicts (PyTorch's weights loaded through NumPy give the same outputs and gradients),
modes, moves, reprs, default initialisations."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import to_numpy


def build(lib, dtype=None):
    nn = lib.nn
    net = nn.Sequential(OrderedDict([
        ("fc1", nn.Linear(4, 8)), ("act", nn.Tanh()),
        ("block", nn.Sequential(nn.Linear(8, 8), nn.GELU(), nn.Dropout(0.0))),
        ("fc2", nn.Linear(8, 3)),
    ]))
    return net if dtype is None else net.to(dtype)


def copy_weights(src: torch.nn.Module, dst):
    return dst.load_state_dict({k: v.detach().numpy() for k, v in src.state_dict().items()})


def test_names_orders_and_generators_match_pytorch():
    ref, got = build(torch), build(storch)
    gen = got.parameters()
    assert iter(gen) is gen  # a generator, not a list
    assert [n for n, _ in got.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert [n for n, _ in got.named_modules()] == [n for n, _ in ref.named_modules()]
    assert [n for n, _ in got.named_children()] == [n for n, _ in ref.named_children()]
    assert list(got.state_dict()) == list(ref.state_dict())
    assert len(list(got.modules())) == len(list(ref.modules()))
    assert [tuple(p.shape) for p in got.parameters()] == [tuple(p.shape) for p in ref.parameters()]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_loaded_pytorch_weights_give_pytorchs_outputs_and_gradients(dtype):
    tdt, sdt = getattr(torch, dtype), getattr(storch, dtype)
    ref, got = build(torch, tdt), build(storch, sdt)
    keys = copy_weights(ref, got)
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(dtype)
    y = np.array([0, 2, 1, 1, 0])
    lt = torch.nn.functional.cross_entropy(ref(torch.from_numpy(x)), torch.from_numpy(y))
    ls = storch.nn.functional.cross_entropy(got(strided.asarray(x)), strided.asarray(y))
    lt.backward()
    ls.backward()
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(to_numpy(ls), lt.detach().numpy(), **tol)
    for (n, p), (_, q) in zip(got.named_parameters(), ref.named_parameters()):
        assert p.dtype == sdt
        np.testing.assert_allclose(to_numpy(p.grad), q.grad.numpy(), **tol, err_msg=n)


def test_state_dict_shares_memory_and_loads_strictly():
    net = build(storch)
    sd = net.state_dict()
    assert not sd["fc1.weight"].requires_grad
    assert sd["fc1.weight"].storage() is net.fc1.weight.storage()
    before = to_numpy(net.fc1.weight).copy()
    bad = {k: to_numpy(v) for k, v in sd.items()}
    bad["fc2.weight"] = np.zeros((2, 8), dtype=np.float32)
    bad["fc1.weight"] = np.ones((8, 4), dtype=np.float32)
    with pytest.raises(RuntimeError, match=r"size mismatch for fc2\.weight"):
        net.load_state_dict(bad)
    # (as PyTorch's: the entries that fit were copied before the error was raised)
    assert not np.array_equal(before, np.ones((8, 4), dtype=np.float32))
    np.testing.assert_array_equal(to_numpy(net.fc1.weight), np.ones((8, 4), dtype=np.float32))
    partial = {k: to_numpy(v) for k, v in sd.items() if k != "fc1.bias"}
    partial["extra"] = np.zeros(1)
    with pytest.raises(RuntimeError, match='Missing key.*"fc1.bias"'):
        net.load_state_dict(partial)
    with pytest.raises(RuntimeError, match='Unexpected key.*"extra"'):
        net.load_state_dict(partial)
    keys = net.load_state_dict(partial, strict=False)
    assert keys.missing_keys == ["fc1.bias"] and keys.unexpected_keys == ["extra"]


def test_state_dict_round_trips_through_save_load(tmp_path):
    a, b = build(storch), build(storch)
    storch.save(a.state_dict(), tmp_path / "m.pt")
    b.load_state_dict(storch.load(tmp_path / "m.pt"))
    x = storch.randn(3, 4)
    np.testing.assert_array_equal(to_numpy(a(x)), to_numpy(b(x)))


def test_buffers_and_registration_rules():
    for lib in (torch, storch):
        m = lib.nn.Module()
        m.register_buffer("running", lib.zeros(3))
        m.register_buffer("tmp", lib.ones(2), persistent=False)
        m.w = lib.nn.Parameter(lib.ones(2))
        m.plain = lib.ones(2)  # a plain array: an attribute, not a parameter
        assert list(m.state_dict()) == ["w", "running"]
        assert [n for n, _ in m.named_buffers()] == ["running", "tmp"]
        assert [n for n, _ in m.named_parameters()] == ["w"]
        with pytest.raises(TypeError):
            m.w = lib.ones(2)
        with pytest.raises(KeyError):
            m.register_buffer("a.b", lib.ones(1))
        m.w = None
        assert list(m.named_parameters()) == []
        with pytest.raises(AttributeError, match="nothing"):
            m.nothing  # noqa: B018


def test_shared_parameters_are_listed_once():
    for lib in (torch, storch):
        lin = lib.nn.Linear(2, 2)
        net = lib.nn.Sequential(lin, lin)
        assert len(list(net.parameters())) == 2
        assert len(list(net.named_parameters(remove_duplicate=False))) == 4


def test_train_eval_zero_grad_requires_grad_apply():
    net = build(storch)
    assert net.training and net.block[2].training
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net(storch.randn(2, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    ref = []
    build(torch).apply(lambda m: ref.append(type(m).__name__))
    assert seen == ref


def test_to_keeps_parameter_objects_and_casts_floats_only():
    net = build(storch)
    net.register_buffer("steps", storch.zeros(1, dtype=storch.int64))
    params = list(net.parameters())
    net(storch.randn(2, 4)).sum().backward()
    assert net.double() is net
    assert [id(p) for p in net.parameters()] == [id(p) for p in params]
    assert all(p.dtype == storch.float64 and p.grad.dtype == storch.float64 for p in params)
    assert net.steps.dtype == storch.int64
    assert all(p.requires_grad and p.is_leaf for p in params)
    net.float()
    assert all(p.dtype == storch.float32 for p in params)
    with pytest.raises(TypeError, match="floating point"):
        net.to(storch.int32)


def test_to_device_moves_parameters(device):
    net = build(storch).to("cpu")
    assert all(p.device == "cpu" for p in net.parameters())
    net.to(device)
    assert all(p.device == device for p in net.parameters())
    x = storch.randn(2, 4, device=device)
    assert net(x).device == device
    assert all(p.device == "cpu" for p in net.cpu().parameters())


def test_forward_hooks():
    for lib in (torch, storch):
        lin = lib.nn.Linear(2, 2)
        calls = []
        h1 = lin.register_forward_pre_hook(lambda m, args: calls.append("pre"))
        h2 = lin.register_forward_hook(lambda m, args, out: out * 0)
        out = lin(lib.ones(1, 2))
        assert calls == ["pre"] and float(out.detach().abs().sum()) == 0
        h1.remove()
        h2.remove()
        assert float(lin(lib.ones(1, 2)).detach().abs().sum()) != 0


def _reprs(lib):
    nn = lib.nn
    return [
        build(lib),
        nn.ModuleList([nn.Linear(2, 3), nn.Linear(2, 3), nn.ReLU(), nn.Linear(2, 3)]),
        nn.ModuleDict({"a": nn.ReLU(inplace=True), "b": nn.Sequential(nn.Flatten(), nn.Identity())}),
        nn.Linear(3, 1, bias=False), nn.Bilinear(2, 3, 4), nn.Embedding(10, 3, padding_idx=0),
        nn.Hardtanh(), nn.Hardtanh(-2.0, 2.0, True), nn.ReLU6(), nn.ReLU6(True), nn.Softplus(beta=2.0),
        nn.LeakyReLU(0.2), nn.LeakyReLU(inplace=True), nn.GELU(), nn.GELU("tanh"), nn.SiLU(),
        nn.ELU(alpha=0.5), nn.SELU(), nn.CELU(), nn.Softmax(dim=1), nn.LogSoftmax(dim=-1),
        nn.Softmin(0), nn.Sigmoid(), nn.Tanh(), nn.Mish(), nn.Softsign(), nn.Hardsigmoid(),
        nn.Hardswish(), nn.LogSigmoid(), nn.Tanhshrink(),
        nn.MSELoss(), nn.L1Loss(), nn.CrossEntropyLoss(), nn.NLLLoss(), nn.BCELoss(),
        nn.BCEWithLogitsLoss(), nn.SmoothL1Loss(), nn.HuberLoss(), nn.Flatten(0, 2),
        nn.Unflatten(1, (2, 3)), nn.Dropout(), nn.Dropout(0.1, True), nn.Identity(),
        nn.ModuleList(), nn.Sequential(),
    ]


def test_reprs_equal_pytorchs():
    for got, ref in zip(_reprs(storch), _reprs(torch)):
        assert repr(got) == repr(ref)


def test_sequential_and_module_list_behave_as_lists():
    for lib in (torch, storch):
        nn = lib.nn
        seq = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
        assert len(seq) == 3 and isinstance(seq[-1], nn.Sigmoid)
        assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
        seq.append(nn.Identity())
        del seq[0]
        assert [type(m).__name__ for m in seq] == ["Tanh", "Sigmoid", "Identity"]
        assert list(seq._modules) == ["0", "1", "2"]
        with pytest.raises(IndexError):
            seq[5]
        ml = nn.ModuleList([nn.ReLU()])
        ml.append(nn.Tanh())
        ml.insert(0, nn.Sigmoid())
        assert [type(m).__name__ for m in ml] == ["Sigmoid", "ReLU", "Tanh"]
        md = nn.ModuleDict({"x": nn.ReLU()})
        md["y"] = nn.Tanh()
        assert list(md.keys()) == ["x", "y"] and "y" in md and len(md) == 2


def test_linear_default_initialisation_follows_pytorch():
    storch.manual_seed(0)
    lin = storch.nn.Linear(400, 300)
    w, b = to_numpy(lin.weight), to_numpy(lin.bias)
    bound = 1 / np.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) and the bias's bound
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.01 * bound  # U(-bound, bound)
    assert abs(w.mean()) < 0.01 * bound
    assert lin.weight.requires_grad and lin.weight.is_leaf
    assert isinstance(lin.weight, storch.nn.Parameter)
    assert not isinstance(storch.ones(1), storch.nn.Parameter)


def test_init_functions_gains_and_bounds():
    for nl, p in [("relu", None), ("tanh", None), ("leaky_relu", 0.2), ("selu", None), ("linear", None)]:
        assert storch.nn.init.calculate_gain(nl, p) == torch.nn.init.calculate_gain(nl, p)
    init = storch.nn.init
    w = storch.empty(50, 70)
    a = np.sqrt(6 / 120)
    assert np.abs(to_numpy(init.xavier_uniform_(w))).max() <= a
    assert np.abs(to_numpy(init.kaiming_uniform_(w, nonlinearity="relu"))).max() <= np.sqrt(6 / 70)
    np.testing.assert_array_equal(to_numpy(init.constant_(w, 0.25)), 0.25)
    np.testing.assert_array_equal(to_numpy(init.zeros_(w)), 0.0)
    np.testing.assert_array_equal(to_numpy(init.ones_(w)), 1.0)
    np.testing.assert_array_equal(to_numpy(init.eye_(storch.empty(3, 3))), np.eye(3))
    assert abs(to_numpy(init.normal_(storch.empty(20000), 1.0, 2.0)).std() - 2.0) < 0.05
    with pytest.raises(ValueError, match="fewer than 2"):
        init.xavier_uniform_(storch.empty(3))
    p = storch.nn.Parameter(storch.zeros(3))
    init.uniform_(p)  # under no_grad: a leaf that requires grad can be initialised
    assert p.requires_grad and p.is_leaf


LOSSES = [("MSELoss", {}, "reg"), ("L1Loss", {"reduction": "sum"}, "reg"),
          ("SmoothL1Loss", {"beta": 0.5}, "reg"), ("HuberLoss", {"delta": 0.5}, "reg"),
          ("CrossEntropyLoss", {"label_smoothing": 0.1}, "cls"), ("NLLLoss", {}, "cls"),
          ("BCELoss", {}, "prob"), ("BCEWithLogitsLoss", {}, "bin")]


@pytest.mark.parametrize("name,kw,kind", LOSSES)
def test_loss_modules_match_pytorch(name, kw, kind):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 3))
    if kind == "prob":
        x = 1 / (1 + np.exp(-x))
    t = {"reg": rng.standard_normal((5, 3)), "cls": rng.integers(0, 3, 5),
         "prob": rng.uniform(size=(5, 3)), "bin": rng.uniform(size=(5, 3))}[kind]
    ref = getattr(torch.nn, name)(**kw)(torch.from_numpy(x), torch.from_numpy(t))
    got = getattr(storch.nn, name)(**kw)(strided.asarray(x), strided.asarray(t))
    np.testing.assert_allclose(to_numpy(got), ref.numpy(), rtol=1e-12)


def test_weighted_loss_modules_keep_weight_as_a_buffer():
    w = storch.tensor([1.0, 2.0, 3.0])
    m = storch.nn.CrossEntropyLoss(weight=w)
    assert m.weight is w and list(m.state_dict()) == ["weight"]
    assert list(torch.nn.CrossEntropyLoss(weight=torch.ones(3)).state_dict()) == ["weight"]


@pytest.mark.parametrize("name,args", [("ReLU", ()), ("LeakyReLU", (0.3,)), ("Softplus", (2.0, 5.0)),
                                       ("GELU", ("tanh",)), ("ELU", (0.7,)), ("Softmax", (1,)),
                                       ("LogSoftmax", (0,)), ("Hardtanh", (-0.5, 0.5)), ("SiLU", ())])
def test_activation_modules_match_pytorch(name, args):
    x = np.random.default_rng(2).standard_normal((4, 5)) * 2
    ref = getattr(torch.nn, name)(*args)(torch.from_numpy(x))
    got = getattr(storch.nn, name)(*args)(strided.asarray(x))
    np.testing.assert_allclose(to_numpy(got), ref.numpy(), rtol=1e-12, atol=1e-15)


def test_dropout_module_follows_training_flag():
    d = storch.nn.Dropout(0.5)
    x = storch.ones(1000)
    assert (to_numpy(d(x)) == 0).any()
    d.eval()
    assert d(x) is x


def test_custom_module_and_errors():
    class Net(storch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = storch.nn.ModuleList([storch.nn.Linear(3, 3) for _ in range(2)])
            self.scale = storch.nn.Parameter(storch.ones(1))

        def forward(self, x):
            for layer in self.layers:
                x = storch.nn.functional.relu(layer(x))
            return x * self.scale

    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
    assert net.get_submodule("layers.1") is net.layers[1]
    assert net.get_parameter("layers.0.bias") is net.layers[0].bias
    with pytest.raises(NotImplementedError, match="forward"):
        storch.nn.Module()(1)

    class Early(storch.nn.Module):
        def __init__(self):
            self.x = 1

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()
    with pytest.raises(ValueError, match="non-leaf"):
        storch.nn.Module().register_parameter("p", _nonleaf_param())


def _nonleaf_param():
    p = storch.nn.Parameter(storch.ones(1))
    q = p * 2
    storch.nn.parameter._PARAMS[id(q)] = q  # a registered array that has history
    return q
