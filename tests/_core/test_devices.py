"""Devices and the backend registry: parsing, transfers, and never mixing devices.

The ``sim`` device type (see conftest) is a NumPy backend that copies on every
host transfer, standing in for a GPU.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import strided as xp
from strided._core import device as _device
from strided._core.backends._cupy import CupyBackend
from strided._core.backends._numpy import NumpyBackend

HAS_CUPY = importlib.util.find_spec("cupy") is not None


# --- Device objects ------------------------------------------------------------------

def test_cpu_device():
    d = xp.Device("cpu")
    assert d.type == "cpu" and d.index is None
    assert str(d) == "cpu" and repr(d) == "device(type='cpu')"
    assert d is xp.Device("cpu") is xp.Device("cpu:0") is xp.Device(d)
    assert xp.zeros(1, device="cpu").device is d and xp.zeros(1, device=d).device is d


@pytest.mark.parametrize("spec,index,want", [("cuda:0", None, "cuda:0"), ("cuda", None, "cuda:0"),
                                             ("cuda", 1, "cuda:1"), ("cuda:3", None, "cuda:3"),
                                             (" cuda:2 ", None, "cuda:2"), ("sim", None, "sim:0")])
def test_device_parsing(spec, index, want):
    d = xp.Device(spec, index)
    assert str(d) == want
    t, i = want.split(":")
    assert d.type == t and d.index == int(i)
    assert repr(d) == f"device(type='{t}', index={i})"
    assert d is xp.Device(want)
    assert d == xp.Device(want) and d != xp.Device("cpu")


@pytest.mark.parametrize("spec,index", [("cuda:x", None), ("cuda:-1", None), ("cuda", -1), ("cpu:1", None),
                                        ("cuda:0", 1), ("", None), ("cu da", None), (":0", None),
                                        ("cuda", "0")])
def test_device_parsing_errors(spec, index):
    with pytest.raises(ValueError):
        xp.Device(spec, index)


@pytest.mark.parametrize("spec", [0, None, 1.5, ["cpu"]])
def test_device_type_errors(spec):
    with pytest.raises(TypeError):
        xp.Device(spec)


def test_device_pickles_to_the_same_object():
    import pickle
    for d in (xp.Device("cpu"), xp.Device("cuda:1")):
        assert pickle.loads(pickle.dumps(d)) is d


def test_device_argument_forms(sim):
    for dev in ("sim", "sim:0", sim):
        assert xp.zeros(2, device=dev).device is sim
    with pytest.raises(TypeError):
        xp.zeros(2, device=0)


# --- backends ----------------------------------------------------------------------------

def test_unknown_device_type_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown device type 'tpu'"):
        xp.zeros(2, device="tpu")


@pytest.mark.skipif(HAS_CUPY, reason="CuPy is installed")
def test_cuda_without_cupy_names_cupy():
    before = xp.get_default_device()
    with pytest.raises(ValueError, match="device 'cuda' needs CuPy and an NVIDIA GPU"):
        xp.zeros(2, device="cuda")
    with pytest.raises(ValueError, match="CuPy"):
        xp.asarray([1.0]).to_device("cuda:0")
    with pytest.raises(ValueError, match="CuPy"):
        xp.asarray([1.0]).cuda()
    with pytest.raises(ValueError, match="CuPy"):
        xp.set_default_device("cuda")
    assert xp.get_default_device() is before  # the failed call changed nothing


def test_cupy_backend_mirrors_the_numpy_backend():
    methods = {n for n in dir(NumpyBackend) if not n.startswith("_") and callable(getattr(NumpyBackend, n))}
    methods -= {"xp", "ndarray"}  # module and array type: instance attributes of CupyBackend
    assert methods <= {n for n in dir(CupyBackend) if not n.startswith("_")}


def test_lazy_loader_runs_once_and_errors_propagate():
    calls = []

    def loader():
        calls.append(1)
        return NumpyBackend("lazy")

    _device.register_backend("lazy", loader=loader)
    try:
        assert xp.zeros(2, device="lazy").device.type == "lazy"
        xp.ones(2, device="lazy")
        assert calls == [1]
    finally:
        _device.unregister_backend("lazy")

    def failing():
        raise ValueError("device 'broken' needs a thing")

    _device.register_backend("broken", loader=failing)
    try:
        with pytest.raises(ValueError, match="needs a thing"):
            xp.zeros(1, device="broken")
    finally:
        _device.unregister_backend("broken")
    with pytest.raises(ValueError, match="unknown device type"):
        xp.zeros(1, device="broken")


def test_backend_serves_only_its_device_type():
    with pytest.raises(ValueError):
        NumpyBackend("cpu").check_device(xp.Device("sim"))


def test_default_device(sim):
    old = xp.get_default_device()  # cpu, unless the run sets STRIDED_DEFAULT_DEVICE
    xp.set_default_device(sim)
    try:
        assert xp.get_default_device() is sim
        assert xp.zeros(2).device is sim
        assert xp.asarray([1, 2]).device is sim
        assert xp.arange(3).device is sim
    finally:
        xp.set_default_device(old)
    assert xp.zeros(2).device is old


# --- arrays on the simulated device -------------------------------------------------------

def test_creation_and_views_on_sim(sim):
    x = xp.arange(12.0, device=sim).reshape((3, 4))
    assert x.device is sim
    for v in (x.t(), x[1:, ::-1], x[None], xp.flip(x), xp.broadcast_to(x[0], (2, 4)), x.mT):
        assert v.device is sim and v.storage() is x.storage()
    np.testing.assert_array_equal(x.t()._host(), np.arange(12.0, dtype=np.float32).reshape(3, 4).T)
    assert x.storage().device is sim


def test_kernels_on_sim_stay_on_sim(sim):
    x = xp.asarray([1.0, 2.0, 3.0], device=sim)
    y = x * 2 + x
    assert y.device is sim
    assert y.tolist() == [3.0, 6.0, 9.0]
    assert (x > 1.5).device is sim


def test_to_device_round_trip_copies(sim):
    ref = np.arange(6.0).reshape(2, 3)
    c = xp.asarray(ref.copy())
    s = c.t().to_device(sim)
    assert s.device is sim and s.shape == (3, 2)
    assert s.tolist() == ref.T.tolist()
    assert s.storage() is not c.storage()
    back = s.to_device("cpu")
    assert back.device is xp.Device("cpu")
    np.testing.assert_array_equal(back.numpy(), ref.T)
    back[0, 0] = 100.0
    assert s[0, 0].item() == 0.0 and c[0, 0].item() == 0.0
    assert xp.to_device(s, "cpu").tolist() == ref.T.tolist()


def test_to_device_same_device(sim):
    x = xp.ones(2, device=sim)
    assert x.to_device(sim) is x
    c = xp.to_device(x, sim, copy=True)
    assert c is not x and c.storage() is not x.storage() and c.device is sim
    with pytest.raises(ValueError):
        xp.to_device(x, "cpu", copy=False)


def test_to_cpu_to_method(sim):
    x = xp.asarray([1, 2], device=sim)
    assert x.cpu().device is xp.Device("cpu")
    y = xp.asarray([1, 2]).to("sim")
    assert y.device is sim
    z = y.to("cpu", xp.float64)
    assert z.device is xp.Device("cpu") and z.dtype is xp.float64


def test_asarray_moves_between_devices(sim):
    x = xp.asarray([1.0, 2.0], device=sim)
    c = xp.asarray(x, device="cpu")
    assert c.device is xp.Device("cpu") and c.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError):
        xp.asarray(x, device="cpu", copy=False)
    n = np.arange(3.0)
    s = xp.asarray(n, device=sim)
    assert s.device is sim and s.tolist() == [0.0, 1.0, 2.0]
    s[0] = 9.0
    assert n[0] == 0.0  # the simulated device does not share host memory
    with pytest.raises(ValueError):
        xp.asarray(n, device=sim, copy=False)


def test_numpy_conversion_refuses_other_devices(sim):
    x = xp.ones(2, device=sim)
    with pytest.raises(TypeError, match=r"cpu\(\)"):
        x.numpy()
    with pytest.raises(TypeError, match=r"cpu\(\)"):
        np.asarray(x)
    assert x.numpy(force=True).tolist() == [1.0, 1.0]
    assert x.tolist() == [1.0, 1.0] and x[0].item() == 1.0


@pytest.mark.parametrize("op", ["add", "mul", "lt", "setitem", "where"])
def test_mixing_devices_is_a_value_error_naming_both(sim, device, op):
    a = xp.ones(3)  # on the suite's device
    b = xp.ones(3, device=sim)
    with pytest.raises(ValueError) as e:
        if op == "add":
            a + b
        elif op == "mul":
            b * a
        elif op == "lt":
            a < b
        elif op == "setitem":
            a[:] = b
        else:
            xp.where(a > 0, a, b)
    msg = str(e.value)
    assert str(device) in msg and "sim:0" in msg


def test_repr_shows_the_device(sim):
    assert repr(xp.asarray([1.0, 2.0], device=sim)) == "tensor([1., 2.], device='sim:0')"
    assert repr(xp.asarray([1, 2], dtype=xp.int8, device=sim)) == \
        "tensor([1, 2], device='sim:0', dtype=strided.int8)"


# --- real GPUs, where CuPy and one are present ----------------------------------------------

@pytest.mark.skipif(not HAS_CUPY, reason="needs CuPy and an NVIDIA GPU")
def test_cuda_round_trip():
    ref = np.arange(12.0).reshape(3, 4)
    g = xp.asarray(ref.copy(), device="cuda")
    assert g.device is xp.Device("cuda:0")
    v = xp.flip(g.t(), axis=0)[1:]
    np.testing.assert_array_equal(v.cpu().numpy(), ref.T[::-1][1:])
    v[0, 0] = -1.0  # v[0, 0] is g.t()[2, 0], i.e. g[0, 2]
    assert g.cpu().numpy()[0, 2] == -1.0
    ref[0, 2] = -1.0
    np.testing.assert_array_equal((g * 2 + 1).cpu().numpy(), ref * 2 + 1)
    with pytest.raises(ValueError):
        g + xp.asarray(ref, device="cpu")
    with pytest.raises(TypeError):
        g.numpy()
