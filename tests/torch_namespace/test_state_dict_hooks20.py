"""``Module.state_dict`` / ``load_state_dict`` against PyTorch 2.13: the ``_metadata`` versions,
the per-module ``_load_from_state_dict`` that subclasses override, the state-dict and
load-state-dict hooks (their order, arguments, return-value rules), ``_IncompatibleKeys``,
extra state, ``assign=``, the error messages, and the places PyTorch uses them: lazy modules
(also as descendants), ``parametrizations.weight_norm`` loading an old ``weight_g/weight_v``
checkpoint, and BatchNorm / InstanceNorm loading old-version checkpoints."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = pytest.mark.usefixtures("on_cpu")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

LIBS = (torch, st)


def T(lib, a):
    a = np.asarray(a)
    return torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())


def nested(lib, dtype="float64"):
    """Linear, BatchNorm1d, and a Sequential holding a Linear, with fixed weights."""
    dt = getattr(lib, dtype)
    m = lib.nn.Sequential(lib.nn.Linear(3, 2, dtype=dt), lib.nn.BatchNorm1d(2, dtype=dt),
                          lib.nn.Sequential(lib.nn.Linear(2, 2, dtype=dt)))
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(T(lib, rng.standard_normal(tuple(p.shape)).astype(dtype)))
    return m


def numpy_sd(sd):
    return OrderedDict((k, to_numpy(v).copy()) for k, v in sd.items())


def assert_same_state(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        np.testing.assert_array_equal(to_numpy(sa[k]), to_numpy(sb[k]), err_msg=k)


# --- state_dict -------------------------------------------------------------------------------

@pytest.mark.parametrize("prefix", ["", "net."])
def test_state_dict_metadata_versions(prefix):
    got, ref = nested(st).state_dict(prefix=prefix), nested(torch).state_dict(prefix=prefix)
    assert list(got) == list(ref)
    assert type(got) is OrderedDict
    assert dict(got._metadata) == dict(ref._metadata)
    assert list(got._metadata) == list(ref._metadata)
    assert st.nn.Module._version == torch.nn.Module._version == 1
    assert st.nn.BatchNorm2d._version == torch.nn.BatchNorm2d._version == 2
    assert st.nn.InstanceNorm1d._version == torch.nn.InstanceNorm1d._version == 2


def test_state_dict_destination_without_metadata_and_positional_warning():
    for lib in LIBS:
        d = {}
        out = nested(lib).state_dict(destination=d, prefix="p.")
        assert out is d and not hasattr(d, "_metadata")
        assert list(d)[0] == "p.0.weight"
        with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
            out = nested(lib).state_dict(OrderedDict(), "q.")
        assert list(out)[0] == "q.0.weight"


def record_state_dict_hooks(lib):
    m = nested(lib)
    calls = []

    def pre(module, prefix, keep_vars):
        calls.append(("pre", type(module).__name__, prefix, keep_vars))

    def post(module, sd, prefix, local_metadata):
        calls.append(("post", type(module).__name__, prefix, dict(local_metadata), len(sd)))
        local_metadata["seen"] = True
        sd[prefix + "added"] = T(lib, np.zeros(1))

    for mod in (m, m[0], m[2], m[2][0]):
        mod.register_state_dict_pre_hook(pre)
        mod.register_state_dict_post_hook(post)
    sd = m.state_dict(keep_vars=True)
    return calls, list(sd), {k: dict(v) for k, v in sd._metadata.items()}


def test_state_dict_pre_and_post_hooks_order_and_arguments():
    assert record_state_dict_hooks(st) == record_state_dict_hooks(torch)


def test_state_dict_post_hook_rules():
    for lib in LIBS:
        m = lib.nn.Linear(2, 2)
        h = m.register_state_dict_post_hook(lambda mod, sd, p, md: {})
        with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
            m.state_dict()
        h.remove()
        assert list(m.state_dict()) == ["weight", "bias"]

        def replace(mod, sd, prefix, md):
            return OrderedDict(only=1)
        m._register_state_dict_hook(replace)
        assert dict(m.state_dict()) == {"only": 1}  # (the private hook's result, at the root)
        parent = lib.nn.Sequential(m)
        assert list(parent.state_dict()) == ["0.weight", "0.bias"]  # (not at a child)
        hook = lambda mod, sd, p, md: None  # noqa: E731
        m.register_state_dict_post_hook(hook)
        with pytest.raises(RuntimeError, match="Cannot register the same function"):
            m._register_state_dict_hook(hook)


# --- load_state_dict: order, hooks, overrides -------------------------------------------------

def record_load(lib, with_metadata):
    m = nested(lib)
    src = nested(lib).state_dict() if with_metadata else dict(nested(lib).state_dict())
    calls = []

    def pre(module, sd, prefix, local_metadata, strict, missing, unexpected, errors):
        calls.append(("pre", type(module).__name__, prefix, sorted(sd), dict(local_metadata),
                      strict, list(missing), list(unexpected), list(errors)))

    def pre_private(sd, prefix, local_metadata, strict, missing, unexpected, errors):
        calls.append(("private", prefix, sorted(sd)))

    def pre_with_module(module, sd, prefix, *rest):
        calls.append(("with_module", type(module).__name__, prefix))

    def post(module, keys):
        calls.append(("post", type(module).__name__, list(keys.missing_keys),
                      list(keys.unexpected_keys), type(keys).__name__))

    for mod in (m, m[0], m[1], m[2], m[2][0]):
        mod.register_load_state_dict_pre_hook(pre)
        mod._register_load_state_dict_pre_hook(pre_private)
        mod._register_load_state_dict_pre_hook(pre_with_module, with_module=True)
        mod.register_load_state_dict_post_hook(post)
    src["2.extra"] = T(lib, np.zeros(1))
    del src["0.bias"]
    out = m.load_state_dict(src, strict=False)
    return calls, list(out.missing_keys), list(out.unexpected_keys), type(out).__name__


@pytest.mark.parametrize("with_metadata", [True, False])
def test_load_hooks_order_arguments_and_result(with_metadata):
    got = record_load(st, with_metadata)
    ref = record_load(torch, with_metadata)
    assert got == ref
    assert got[1:] == (["0.bias"], ["2.extra"], "_IncompatibleKeys")


def test_load_post_hook_changes_what_strict_sees_and_must_return_none():
    for lib in LIBS:
        m = lib.nn.Linear(2, 2)
        sd = dict(m.state_dict())
        sd["junk"] = T(lib, np.zeros(1))
        with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "junk"'):
            m.load_state_dict(sd)
        h = m.register_load_state_dict_post_hook(lambda mod, keys: keys.unexpected_keys.clear())
        out = m.load_state_dict(sd)
        assert out.missing_keys == [] and out.unexpected_keys == []
        assert repr(out) == str(out) == "<All keys matched successfully>"
        h.remove()
        m.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.append("x"))
        with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "x"'):
            m.load_state_dict(dict(m.state_dict()))
        m2 = lib.nn.Linear(2, 2)
        m2.register_load_state_dict_post_hook(lambda mod, keys: keys)
        with pytest.raises(AssertionError, match="not expected to return new values"):
            m2.load_state_dict(m2.state_dict())


def test_incompatible_keys_repr():
    outs = []
    for lib in LIBS:
        m = lib.nn.Linear(2, 2)
        sd = dict(m.state_dict())
        del sd["bias"]
        sd["zz"] = T(lib, np.zeros(1))
        out = m.load_state_dict(sd, strict=False)
        outs.append((repr(out), out.missing_keys, out.unexpected_keys, tuple(out)))
    assert outs[0] == outs[1]
    assert outs[0][0] == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['zz'])"


def make_renaming(lib):
    """A subclass that reads its version-1 checkpoint's old name ``w`` as ``weight``."""

    class Renamed(lib.nn.Module):
        _version = 3

        def __init__(self):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.zeros(2, dtype=lib.float64))

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing,
                                  unexpected, errors):
            self.seen = local_metadata.get("version")
            if local_metadata.get("version", 0) < 3 and prefix + "w" in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing,
                                          unexpected, errors)

    return Renamed


@pytest.mark.parametrize("version", [None, 1, 3])
def test_overridden_load_from_state_dict_in_a_child(version):
    res = []
    for lib in LIBS:
        outer = lib.nn.Sequential(lib.nn.Linear(1, 1), make_renaming(lib)())
        sd = OrderedDict(outer.state_dict())
        sd._metadata = OrderedDict(outer.state_dict()._metadata)
        if version is None:
            del sd._metadata
        else:
            sd._metadata["1"] = {"version": version}
        sd["1.w"] = sd.pop("1.weight") * 0 + T(lib, np.array([1.5, -2.0]))
        if version == 3:
            with pytest.raises(RuntimeError) as e:
                outer.load_state_dict(sd)
            res.append((str(e.value).split("for ")[1], outer[1].seen))
            continue
        out = outer.load_state_dict(sd)
        res.append((tuple(out), outer[1].seen, to_numpy(outer[1].weight).tolist()))
    assert res[0] == res[1]


def make_extra(lib):
    class WithExtra(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(1, 1)
            self.note = "start"

        def get_extra_state(self):
            return {"note": self.note}

        def set_extra_state(self, state):
            self.note = state["note"] + "!"

    return WithExtra


def test_extra_state():
    res = []
    for lib in LIBS:
        cls = make_extra(lib)
        a, b = cls(), cls()
        a.note = "saved"
        sd = a.state_dict()
        b.load_state_dict(sd)
        del sd["_extra_state"]
        with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
            b.load_state_dict(sd)
        plain = lib.nn.Linear(1, 1)
        with pytest.raises(RuntimeError, match='Unexpected key\\(s\\).*"_extra_state"'):
            plain.load_state_dict({**plain.state_dict(), "_extra_state": 1})
        res.append((list(a.state_dict()), b.note))
    assert res[0] == res[1] == (["_extra_state", "lin.weight", "lin.bias"], "saved!")


# --- load_state_dict: values, assign, errors --------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_load_copies_values_assign_keeps_requires_grad(dtype):
    src = numpy_sd(nested(torch, dtype).state_dict())
    res = []
    for lib in LIBS:
        m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2),
                              lib.nn.Sequential(lib.nn.Linear(2, 2)))
        m[0].weight.requires_grad_(False)
        w = m[0].weight
        m.load_state_dict({k: T(lib, v) for k, v in src.items()})
        assert m[0].weight is w  # (copied into)
        assert m[0].weight.dtype == lib.float32
        m.load_state_dict({k: T(lib, v) for k, v in src.items()}, assign=True)
        assert m[0].weight is not w and isinstance(m[0].weight, lib.nn.Parameter)
        res.append((str(m[0].weight.dtype).split(".")[-1], m[0].weight.requires_grad,
                    m[2][0].weight.requires_grad, isinstance(m[1].running_mean, lib.nn.Parameter),
                    numpy_sd(m.state_dict())))
    assert res[0][:4] == res[1][:4] == (dtype, False, True, False)
    for k in res[0][4]:
        np.testing.assert_array_equal(res[0][4][k], res[1][4][k])


def test_partial_copy_before_the_error_and_messages():
    msgs = []
    for lib in LIBS:
        m = nested(lib)
        sd = dict(m.state_dict())
        sd["0.weight"] = T(lib, np.ones((2, 3)))
        sd["2.0.weight"] = T(lib, np.ones((3, 3)))
        sd["1.bias"] = [1.0, 2.0]
        with pytest.raises(RuntimeError) as e:
            m.load_state_dict(sd)
        np.testing.assert_array_equal(to_numpy(m[0].weight), np.ones((2, 3)))  # (copied)
        msgs.append(str(e.value).replace("torch.Size", "Size").replace("strided.Size", "Size"))
    assert msgs[0] == msgs[1]
    assert "size mismatch for 2.0.weight" in msgs[0]
    assert "expected torch.Tensor or Tensor-like object" in msgs[0]


def test_one_element_into_0d_and_not_a_mapping():
    res = []
    for lib in LIBS:
        m = lib.nn.BatchNorm1d(2)
        sd = dict(m.state_dict())
        sd["num_batches_tracked"] = T(lib, np.array([7], dtype=np.int64))
        m.load_state_dict(sd)
        with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
            m.load_state_dict([("weight", m.weight)])
        res.append(int(m.num_batches_tracked))
    assert res == [7, 7]


def test_numpy_values_still_load():
    m = st.nn.Linear(2, 3, dtype=st.float64)
    m.load_state_dict({"weight": np.ones((3, 2)), "bias": np.arange(3.0)})
    np.testing.assert_array_equal(to_numpy(m.bias), np.arange(3.0))


# --- where PyTorch uses the hooks ---------------------------------------------------------------

@pytest.mark.parametrize("kind", ["Linear", "Conv1d", "BatchNorm1d"])
def test_lazy_descendant_materializes_on_load(kind):
    rng = np.random.default_rng(1)
    make = {"Linear": lambda lib: lib.nn.Linear(4, 3),
            "Conv1d": lambda lib: lib.nn.Conv1d(2, 3, 2),
            "BatchNorm1d": lambda lib: lib.nn.BatchNorm1d(3)}[kind]
    lazy = {"Linear": lambda lib: lib.nn.LazyLinear(3),
            "Conv1d": lambda lib: lib.nn.LazyConv1d(3, 2),
            "BatchNorm1d": lambda lib: lib.nn.LazyBatchNorm1d()}[kind]
    src = {f"body.{k}": (rng.standard_normal(tuple(v.shape)).astype(np.float32)
                         if v.dtype == torch.float32 else v.numpy())
           for k, v in make(torch).state_dict().items()}
    res = []
    for lib in LIBS:
        outer = lib.nn.Module()
        outer.body = lazy(lib)
        assert outer.body.has_uninitialized_params()
        outer.load_state_dict({k: T(lib, v) for k, v in src.items()})
        res.append((type(outer.body).__name__, outer.body.has_uninitialized_params(),
                    numpy_sd(outer.state_dict())))
    assert res[0][:2] == res[1][:2]
    assert res[0][1] is False
    assert list(res[0][2]) == list(res[1][2]) == list(src)
    for k in src:
        np.testing.assert_array_equal(res[1][2][k], src[k])


def test_lazy_loads_a_lazy_state_dict():
    for lib in LIBS:
        m = lib.nn.LazyLinear(3)
        m.load_state_dict(lib.nn.LazyLinear(3).state_dict())
        assert m.has_uninitialized_params()


@pytest.mark.filterwarnings("ignore:.*torch.nn.utils.weight_norm. is deprecated")
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization_loads_old_checkpoint(dim):
    rng = np.random.default_rng(2)
    old = torch.nn.utils.weight_norm(torch.nn.Linear(4, 3, dtype=torch.float64), dim=dim)
    with torch.no_grad():
        for p in old.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape))))
    src = {"lin." + k: v.numpy().copy() for k, v in old.state_dict().items()}
    x = rng.standard_normal((2, 4))
    res = []
    for lib in LIBS:
        outer = lib.nn.Module()
        outer.lin = lib.nn.utils.parametrizations.weight_norm(
            lib.nn.Linear(4, 3, dtype=lib.float64), dim=dim)
        out = outer.load_state_dict({k: T(lib, v) for k, v in src.items()})
        res.append((tuple(out), list(outer.state_dict()), to_numpy(outer.lin(T(lib, x)))))
    assert res[0][:2] == res[1][:2]
    assert "lin.parametrizations.weight.original0" in res[1][1]
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(res[1][2], to_numpy(old(torch.from_numpy(x))), rtol=1e-12)


@pytest.mark.parametrize("version", [None, 1, 2])
def test_batchnorm_old_checkpoint_without_num_batches_tracked(version):
    res = []
    for lib in LIBS:
        src = lib.nn.BatchNorm2d(3)
        src.num_batches_tracked.fill_(5)
        sd = src.state_dict()
        del sd["num_batches_tracked"]
        if version is None:
            sd = dict(sd)
        else:
            sd._metadata[""] = {"version": version}
        m = lib.nn.BatchNorm2d(3)
        m.num_batches_tracked.fill_(4)
        try:
            out = tuple(m.load_state_dict(sd))
        except RuntimeError as e:
            out = str(e)
        res.append((out, int(m.num_batches_tracked)))
    assert res[0] == res[1]
    assert (res[0][0] == ([], [])) == (version != 2)


@pytest.mark.parametrize("version", [None, 1])
def test_instancenorm_running_stats_from_an_old_checkpoint(version):
    res = []
    for lib in LIBS:
        m = lib.nn.InstanceNorm1d(2)
        sd = OrderedDict(running_mean=T(lib, np.zeros(2, np.float32)),
                         running_var=T(lib, np.ones(2, np.float32)))
        if version is not None:
            sd._metadata = {"": {"version": version}}
        try:
            out = tuple(m.load_state_dict(sd))
        except RuntimeError as e:
            out = str(e)
        res.append(out)
    assert res[0] == res[1]
    assert ("Unexpected running stats buffer(s)" in res[0]) == (version is None)


def test_numpy_and_cpu_values_load_onto_the_parameters_device():
    devices = ["cpu"] + (["cuda"] if st.cuda.is_available() else [])
    for dev in devices:
        m = st.nn.Linear(2, 3, dtype=st.float64, device=dev)
        w = m.weight
        m.load_state_dict({"weight": np.ones((3, 2)), "bias": st.arange(3.0, dtype=st.float64)})
        assert m.weight is w and m.weight.device == w.device and m.bias.device == w.device
        np.testing.assert_array_equal(to_numpy(m.bias), np.arange(3.0))
