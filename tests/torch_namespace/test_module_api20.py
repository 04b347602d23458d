"""The ``nn.Module`` and ``optim.Optimizer`` methods user code calls, against PyTorch 2.13:
``get_buffer``, ``set_submodule``, ``get_parameter``'s errors, ``type``, ``to_empty``,
``float``/``double``/``half`` leaving complex parameters alone, the class flags, the refusals
(``bfloat16``, ``share_memory``); the optimizer's step hooks, state-dict and load-state-dict
hooks, ``state_dict``/``load_state_dict`` round trips with parameter groups and per-parameter
state, ``add_param_group`` and ``zero_grad(set_to_none=)``."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

LIBS = (torch, st)


def T(lib, a, grad=False):
    a = np.asarray(a)
    t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
    if grad:
        t.requires_grad_(True)
    return t


def net(lib):
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4),
                          lib.nn.Sequential(lib.nn.Linear(4, 2)))
    m.extra = 5
    return m


# --- Module ------------------------------------------------------------------------------------

def test_get_buffer_get_parameter_and_errors():
    res = []
    for lib in LIBS:
        m = net(lib)
        assert m.get_buffer("1.running_mean") is m[1].running_mean
        assert m.get_parameter("2.0.bias") is m[2][0].bias
        errs = []
        for call in (lambda: m.get_buffer("1.weight"), lambda: m.get_buffer("1.nothing"),
                     lambda: m.get_parameter("1.running_var"), lambda: m.get_parameter("0.zz"),
                     lambda: m.get_buffer("9.running_mean"), lambda: m.get_parameter("extra")):
            with pytest.raises(AttributeError) as e:
                call()
            errs.append(str(e.value))
        res.append(errs)
    assert res[0] == res[1]


def test_set_submodule():
    res = []
    for lib in LIBS:
        m = net(lib)
        m.set_submodule("2.0", lib.nn.Tanh())
        m.set_submodule("2.new", lib.nn.ReLU())
        errs = []
        for call, exc in ((lambda: m.set_submodule("", lib.nn.ReLU()), ValueError),
                          (lambda: m.set_submodule("2.1", 3), ValueError),
                          (lambda: m.set_submodule("2.zz", lib.nn.ReLU(), strict=True),
                           AttributeError),
                          (lambda: m.set_submodule("extra", lib.nn.ReLU()), AttributeError),
                          (lambda: m.set_submodule("9.x", lib.nn.ReLU()), AttributeError)):
            with pytest.raises(exc) as e:
                call()
            errs.append(str(e.value).replace("torch.nn.modules.activation.", "").replace(
                "strided.torch.nn.modules.", "").split("found")[0])
        res.append((repr(m), errs))
    assert res[0] == res[1]


@pytest.mark.parametrize("dst", ["float64", "float16", "torch.DoubleTensor"])
def test_module_type(dst):
    res = []
    for lib in LIBS:
        m = lib.nn.Linear(2, 3)
        w = m.weight
        m.type(getattr(lib, dst) if not dst.startswith("torch.") else dst)
        res.append((str(m.weight.dtype).split(".")[-1], m.weight is w,
                    str(m.bias.dtype).split(".")[-1]))
    assert res[0] == res[1]


@pytest.mark.parametrize("recurse", [True, False])
def test_to_empty(recurse):
    res = []
    for lib in LIBS:
        m = net(lib).double()
        w = m[0].weight
        m.to_empty(device="cpu", recurse=recurse)
        res.append([(k, tuple(v.shape), str(v.dtype).split(".")[-1], str(v.device))
                    for k, v in m.state_dict().items()] + [m[0].weight is w])
    assert res[0] == res[1]


@pytest.mark.parametrize("cast", ["float", "double", "half"])
def test_float_casts_leave_complex_and_integer_arrays(cast):
    res = []
    for lib in LIBS:
        m = lib.nn.Module()
        m.c = lib.nn.Parameter(lib.ones(2, dtype=lib.complex64))
        m.f = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
        m.register_buffer("i", lib.ones(2, dtype=lib.int32))
        getattr(m, cast)()
        res.append([str(t.dtype).split(".")[-1] for t in (m.c, m.f, m.i)])
    assert res[0] == res[1]


def test_class_flags_and_refusals():
    for lib in LIBS:
        assert lib.nn.Module.call_super_init is False and lib.nn.Module.dump_patches is False
    with pytest.raises(TypeError, match="strided has no bfloat16 dtype"):
        st.nn.Linear(2, 2).bfloat16()
    with pytest.raises(RuntimeError, match="no shared-memory storage"):
        st.nn.Linear(2, 2).share_memory()


# --- Optimizer ---------------------------------------------------------------------------------

def model_and_opt(lib, name="Adam"):
    rng = np.random.default_rng(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4, dtype=lib.float64),
                          lib.nn.Linear(4, 1, dtype=lib.float64))
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(T(lib, rng.standard_normal(tuple(p.shape))))
    groups = [{"params": m[0].parameters()},
              {"params": m[1].parameters(), "lr": 0.05}]
    kw = dict(lr=0.01) if name != "SGD" else dict(lr=0.01, momentum=0.9)
    return m, getattr(lib.optim, name)(groups, **kw)


def train(lib, m, opt, steps=3, seed=1):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        x = T(lib, rng.standard_normal((5, 3)))
        opt.zero_grad()
        m(x).pow(2).mean().backward()
        opt.step()


def params_np(m):
    return [to_numpy(p).copy() for p in m.parameters()]


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
@pytest.mark.parametrize("through_numpy", [False, True])
def test_optimizer_state_dict_round_trip_with_groups(name, through_numpy):
    res = []
    for lib in LIBS:
        m, opt = model_and_opt(lib, name)
        train(lib, m, opt)
        sd = opt.state_dict()
        if through_numpy:  # (a checkpoint: nothing shared with the first optimizer)
            sd = {"state": {k: {n: T(lib, to_numpy(v).copy()) if hasattr(v, "shape") else v
                                for n, v in st_.items()} for k, st_ in sd["state"].items()},
                  "param_groups": copy.deepcopy(sd["param_groups"])}
        m2 = copy.deepcopy(m)
        opt2 = getattr(lib.optim, name)([{"params": m2[0].parameters()},
                                         {"params": m2[1].parameters(), "lr": 0.3}], lr=0.01)
        opt2.load_state_dict(sd)
        shared = [opt2.state[q][k] is opt.state[p][k]
                  for p, q in zip(m.parameters(), m2.parameters()) for k in opt.state[p]]
        train(lib, m, opt, seed=2)
        train(lib, m2, opt2, seed=2)
        res.append((sorted(sd["state"]), [g["params"] for g in sd["param_groups"]],
                    [g["lr"] for g in opt2.param_groups], sorted(sd["state"][0]), shared,
                    params_np(m), params_np(m2)))
    assert res[0][:5] == res[1][:5]
    for a, b in zip(res[0][5] + res[0][6], res[1][5] + res[1][6]):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)
    if through_numpy:
        for a, b in zip(res[1][5], res[1][6]):
            np.testing.assert_array_equal(a, b)


def test_optimizer_hooks():
    res = []
    for lib in LIBS:
        m, opt = model_and_opt(lib, "SGD")
        log = []

        def pre(o, args, kwargs):
            log.append(("pre", len(args), sorted(kwargs)))

        h = opt.register_step_pre_hook(pre)
        opt.register_step_post_hook(lambda o, a, k: log.append(("post", o is opt)))
        opt.register_state_dict_pre_hook(lambda o: log.append(("sd-pre",)))
        opt.register_state_dict_pre_hook(lambda o: log.append(("sd-pre-first",)), prepend=True)

        def sd_post(o, sd):
            log.append(("sd-post", sorted(sd)))
            sd["extra"] = 1
            return sd

        opt.register_state_dict_post_hook(sd_post)

        def load_pre(o, sd):
            log.append(("load-pre", sorted(sd)))
            sd = dict(sd)
            sd.pop("extra")
            return sd

        opt.register_load_state_dict_pre_hook(load_pre)
        opt.register_load_state_dict_post_hook(lambda o: log.append(("load-post",)))
        train(lib, m, opt, steps=1)
        h.remove()
        train(lib, m, opt, steps=1)
        sd = opt.state_dict()
        opt.load_state_dict(sd)
        assert "extra" in sd
        res.append((log, params_np(m)))
    assert res[0][0] == res[1][0]
    for a, b in zip(res[0][1], res[1][1]):
        np.testing.assert_allclose(b, a, rtol=1e-12)


def test_step_pre_hook_replaces_arguments_and_bad_result():
    res = []
    for lib in LIBS:
        m, opt = model_and_opt(lib, "SGD")
        calls = []

        def closure():
            calls.append(1)
            opt.zero_grad()
            loss = m(T(lib, np.ones((2, 3)))).sum()
            loss.backward()
            return loss

        opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": closure}))
        loss = opt.step()
        h = opt.register_step_pre_hook(lambda o, args, kwargs: 5)
        with pytest.raises(RuntimeError, match="must return None or a tuple of \\(new_args, "
                                               "new_kwargs\\), but got 5"):
            opt.step()
        h.remove()
        res.append((len(calls), float(loss.detach())))
    assert res[0][0] == res[1][0] == 1
    assert res[0][1] == pytest.approx(res[1][1], rel=1e-12)


def test_hooks_on_a_subclass_step_and_lbfgs():
    res = []
    for lib in LIBS:
        m = lib.nn.Linear(2, 1, dtype=lib.float64)
        with lib.no_grad():
            m.weight.fill_(0.5)
            m.bias.fill_(0.1)
        opt = lib.optim.LBFGS(m.parameters(), max_iter=3)
        log = []
        opt.register_step_post_hook(lambda o, a, k: log.append(sorted(k)))
        x = T(lib, np.array([[1.0, 2.0], [0.5, -1.0]]))

        def closure():
            opt.zero_grad()
            loss = (m(x) - 1).pow(2).sum()
            loss.backward()
            return loss

        opt.step(closure=closure)
        res.append((log, params_np(m)))
    assert res[0][0] == res[1][0] == [["closure"]]
    for a, b in zip(res[0][1], res[1][1]):
        np.testing.assert_allclose(b, a, rtol=1e-9)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_and_add_param_group(set_to_none):
    res = []
    for lib in LIBS:
        m, opt = model_and_opt(lib, "SGD")
        extra = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
        opt.add_param_group({"params": extra, "lr": 0.5})
        with pytest.raises(ValueError, match="some parameters appear in more than one "
                                             "parameter group"):
            opt.add_param_group({"params": [extra]})
        train(lib, m, opt, steps=1)
        (extra * 3).sum().backward()
        opt.step()
        opt.zero_grad(set_to_none=set_to_none)
        res.append(([sorted(k for k in g if k != "params") for g in opt.param_groups],
                    [g["lr"] for g in opt.param_groups],
                    [None if p.grad is None else to_numpy(p.grad).tolist()
                     for g in opt.param_groups for p in g["params"]],
                    to_numpy(extra).tolist()))
    assert res[0][1:] == res[1][1:]
    assert set(res[1][0][0]) <= set(res[0][0][0])


def test_compile_returns_none_and_keeps_the_meaning():
    res = []
    for lib in LIBS:
        m = lib.nn.Linear(2, 1, dtype=lib.float64)
        with lib.no_grad():
            m.weight.fill_(2.0)
            m.bias.fill_(-1.0)
        out = m.compile() if lib is st else None  # (PyTorch's would run inductor: not here)
        res.append((out, to_numpy(m(T(lib, np.array([[1.0, 3.0]])))).tolist()))
    assert res[0] == res[1]
    with pytest.raises(TypeError, match="bogus"):
        st.nn.Linear(2, 2).compile(bogus=1)


@pytest.mark.parametrize("kind", ["xpu", "ipu", "mtia"])
def test_devices_strided_lacks(kind):
    with pytest.raises(RuntimeError, match=f"strided has no {kind} devices"):
        getattr(st.nn.Linear(2, 2), kind)()


def make_lazy(lib):
    class LazyScaled(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = lib.nn.UninitializedParameter(dtype=lib.float64)
            self.seen = None

        def initialize_parameters(self, x, scale=1.0):
            self.seen = scale
            with lib.no_grad():
                self.weight.materialize((x.shape[-1],))
                self.weight.fill_(scale)

        def forward(self, x, scale=1.0):
            return x * self.weight

    return LazyScaled()


def test_lazy_first_call_passes_keyword_arguments():
    res = []
    for lib in LIBS:
        m = make_lazy(lib)
        y = m(T(lib, np.array([1.0, 2.0])), scale=3.0)
        res.append((m.seen, to_numpy(y).tolist(), m.has_uninitialized_params()))
    assert res[0] == res[1] == (3.0, [3.0, 6.0], False)


@pytest.mark.parametrize("remove_duplicate", [True, False])
def test_modules_remove_duplicate(remove_duplicate):
    res = []
    for lib in LIBS:
        shared = lib.nn.Linear(2, 2)
        m = lib.nn.Sequential(shared, lib.nn.Sequential(shared, lib.nn.ReLU()), shared)
        res.append([type(x).__name__ for x in m.modules(remove_duplicate=remove_duplicate)])
    assert res[0] == res[1]
    assert len(res[0]) == (4 if remove_duplicate else 6)
