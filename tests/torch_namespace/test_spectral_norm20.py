"""The hook-based ``nn.utils.spectral_norm`` against PyTorch 2.13: the default ``dim`` (1 for
``ConvTranspose1d/2d/3d``, 0 otherwise), its state-dict hooks (the ``spectral_norm`` version in
the metadata; loading a state dict saved before PyTorch 1.0, which holds ``weight`` and no
``weight_v``), ``remove_spectral_norm``; and the old ``weight_norm``'s default ``dim``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

LIBS = (torch, st)

MODULES = {
    "Linear": (lambda lib: lib.nn.Linear(4, 3, dtype=lib.float64), (2, 4)),
    "Conv1d": (lambda lib: lib.nn.Conv1d(2, 5, 2, dtype=lib.float64), (1, 2, 4)),
    "Conv2d": (lambda lib: lib.nn.Conv2d(2, 5, 2, dtype=lib.float64), (1, 2, 3, 3)),
    "ConvTranspose1d": (lambda lib: lib.nn.ConvTranspose1d(2, 5, 2, dtype=lib.float64), (1, 2, 4)),
    "ConvTranspose2d": (lambda lib: lib.nn.ConvTranspose2d(2, 5, 2, dtype=lib.float64),
                        (1, 2, 3, 3)),
    "ConvTranspose3d": (lambda lib: lib.nn.ConvTranspose3d(3, 2, 2, dtype=lib.float64),
                        (1, 3, 2, 2, 2)),
}


def T(lib, a):
    a = np.asarray(a)
    return torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())


def same_values(m, lib, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    with lib.no_grad():
        for name, t in list(m.named_parameters()) + list(m.named_buffers()):
            t.copy_(T(lib, rng.standard_normal(tuple(t.shape))))


@pytest.mark.parametrize("kind", sorted(MODULES))
def test_default_dim_and_forward(kind):
    make, shape = MODULES[kind]
    x = np.random.default_rng(9).standard_normal(shape)
    res = []
    for lib in LIBS:
        m = lib.nn.utils.spectral_norm(make(lib))
        same_values(m, lib)
        hook = next(h for h in m._forward_pre_hooks.values()
                    if type(h).__name__ == "SpectralNorm")
        y = m(T(lib, x))
        res.append((hook.dim, tuple(m.weight_u.shape), tuple(m.weight_v.shape), to_numpy(y).copy(),
                    to_numpy(m.weight_u).copy()))
    assert res[0][:3] == res[1][:3]
    assert res[0][0] == (1 if kind.startswith("ConvTranspose") else 0)
    np.testing.assert_allclose(res[1][3], res[0][3], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[1][4], res[0][4], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dim", [0, 1])
def test_explicit_dim_is_kept(dim):
    shapes = [tuple(lib.nn.utils.spectral_norm(lib.nn.ConvTranspose1d(2, 5, 2), dim=dim)
                    .weight_u.shape) for lib in LIBS]
    assert shapes[0] == shapes[1] == ((2,) if dim == 0 else (5,))


def test_state_dict_metadata_and_round_trip():
    res = []
    for lib in LIBS:
        outer = lib.nn.Sequential(lib.nn.utils.spectral_norm(MODULES["Conv1d"][0](lib)))
        sd = outer.state_dict()
        other = lib.nn.Sequential(lib.nn.utils.spectral_norm(MODULES["Conv1d"][0](lib)))
        out = other.load_state_dict(sd)
        res.append(({k: dict(v) for k, v in sd._metadata.items()}, list(sd), tuple(out)))
    assert res[0] == res[1]
    assert res[0][0]["0"]["spectral_norm"] == {"weight.version": 1}


@pytest.mark.parametrize("kind", ["Linear", "ConvTranspose1d"])
def test_loads_a_state_dict_saved_before_pytorch_1_0(kind):
    make, shape = MODULES[kind]
    ref = torch.nn.utils.spectral_norm(make(torch), n_power_iterations=3)
    same_values(ref, torch, 1)
    ref(torch.from_numpy(np.random.default_rng(2).standard_normal(shape)))
    old = {k: v.detach().numpy().copy() for k, v in ref.state_dict().items() if k != "weight_v"}
    old["weight"] = ref.weight.detach().numpy().copy()  # (pre-1.0: the weight, no weight_v)
    x = np.random.default_rng(3).standard_normal(shape)
    res = []
    for lib in LIBS:
        m = lib.nn.utils.spectral_norm(make(lib), n_power_iterations=3)
        out = m.load_state_dict({k: T(lib, v) for k, v in old.items()})
        m.eval()
        res.append((tuple(out), to_numpy(m.weight_v).copy(), to_numpy(m(T(lib, x))).copy()))
    assert res[0][0] == res[1][0] == ([], [])
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-8, atol=1e-10)


def test_old_state_dict_missing_keys_and_removal():
    res = []
    for lib in LIBS:
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(3, 2))
        sd = {k: v for k, v in m.state_dict().items() if k != "weight_v"}
        with pytest.raises(RuntimeError) as e:
            m.load_state_dict(sd)  # (no version, no weight: weight reported missing)
        lib.nn.utils.remove_spectral_norm(m)
        assert not m._state_dict_hooks
        with pytest.raises(RuntimeError) as e2:  # (PyTorch's load pre-hook stays after removal)
            m.load_state_dict(m.state_dict())
        with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
            lib.nn.utils.remove_spectral_norm(m)
        res.append((str(e.value), str(e2.value), list(m.state_dict())))
    assert res[0] == res[1]


def test_uninitialized_parameter_refused():
    for lib in LIBS:
        with pytest.raises(ValueError, match="can't have uninitialized parameters"):
            lib.nn.utils.spectral_norm(lib.nn.LazyLinear(3))


@pytest.mark.parametrize("kind", ["Linear", "Conv2d", "ConvTranspose2d"])
def test_old_weight_norm_default_dim(kind):
    make, _ = MODULES[kind]
    shapes = []
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            m = lib.nn.utils.weight_norm(make(lib))
        shapes.append((tuple(m.weight_g.shape), tuple(m.weight_v.shape)))
    assert shapes[0] == shapes[1]
