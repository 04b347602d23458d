"""Shared fixtures: a simulated GPU, the suite's device, and NumPy-mirror helpers.

The ``sim`` device type stands in for a second kind of GPU (two devices,
``sim:0`` and ``sim:1``) on every machine. Its arrays are the CuPy stand-in's
(tests/cupy_standin, loaded here as a private module, so they are a type of
their own beside ``cuda``'s when the stand-in is on PYTHONPATH) and behave like
``cupy.ndarray`` where it matters for finding host round-trips and CPU-only code:

- ``numpy.asarray(a)`` / ``a.__array__()`` raise TypeError (CuPy's message);
- a NumPy array mixed with a device array in a kernel, an operator or a
  NumPy function raises TypeError, as CuPy does;
- full reductions and scalar indexing give 0-d device arrays, not scalars;
- ufunc ``reduce``/``accumulate`` exist for ``add`` and ``multiply`` only;
- ``item()``, ``tolist()``, ``get()``, ``tobytes()``, ``bool()``, ``int()``,
  ``float()``, ``complex()`` and printing copy to the host, and count in
  ``SIM.d2h_copies`` like the backend's own ``to_host``;
- its memory has no DLPack device type, so no other library imports it.

So the tests of device logic (propagation, transfers, mixed devices, save
with ``map_location``) and the tests that no operation copies to the host
run on every CI machine.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pathlib
import sys

import numpy as np
import pytest

# ``STRIDED_DEFAULT_DEVICE=sim`` runs the tests with the simulated device as the
# default. strided applies the variable when imported, before this file registers
# ``sim``; so for ``sim`` it is taken out of strided's sight and applied below.
_ENV_DEVICE = os.environ.get("STRIDED_DEFAULT_DEVICE", "").strip()
if _ENV_DEVICE.partition(":")[0] == "sim":
    del os.environ["STRIDED_DEFAULT_DEVICE"]

import strided as xp  # noqa: E402
from strided._core.backends import RENAMES  # noqa: E402
from strided._core.backends._cupy import CupyBackend, DeviceRng  # noqa: E402
from strided._core.device import Device, register_backend  # noqa: E402


def _load_standin(name: str):
    """A private copy of the CuPy stand-in (tests/cupy_standin/cupy) as module ``name``:
    its arrays are their own type and count their own host copies, and ``import cupy``
    still finds no CuPy when the stand-in is not on PYTHONPATH."""
    path = pathlib.Path(__file__).resolve().parent / "cupy_standin" / "cupy"
    spec = importlib.util.spec_from_file_location(name, path / "__init__.py",
                                                  submodule_search_locations=[str(path)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


simcupy = _load_standin("_sim_cupy")
simcupy._SIM_DLPACK_DEVICE = 99  # not a DLPack device type: its memory can't be exported
SimArray = simcupy.ndarray


class SimBackend:
    """The backend of the simulated device type ``sim``: two devices over the stand-in's arrays."""

    name = "sim"
    xp = simcupy
    ndarray = SimArray

    def __init__(self, device_type: str = "sim"):
        self.device_type = device_type
        self.allocations = 0
        self.d2h_bytes = 0  # test hook: bytes copied from the device to the host

    @property
    def d2h_copies(self) -> int:
        """Test hook: copies from the device to the host (the stand-in's count)."""
        return simcupy.cuda.d2h_copies

    @d2h_copies.setter
    def d2h_copies(self, n: int) -> None:
        simcupy.cuda.d2h_copies = n

    def check_device(self, device) -> None:
        if device.type != self.device_type:
            raise ValueError(f"backend {self.name} does not serve device {device}")
        if device.index > 1:
            raise ValueError(f"device {device} does not exist: 2 sim device(s) found")

    kernel = CupyBackend.kernel  # CuPy's kernels with the backend's corrections
    fill = CupyBackend.fill
    lapack = CupyBackend.lapack

    @contextlib.contextmanager
    def _linalg_raise(self):
        # cupyx.errstate(linalg="raise") of the sim's own copy of the stand-in
        d = simcupy._cupy_differences
        old = d.linalg_errors()
        d.set_linalg_errors("raise")
        try:
            yield
        finally:
            d.set_linalg_errors(old)

    def empty(self, n: int, np_dtype, device=None):
        self.allocations += 1
        return simcupy.empty(n, dtype=np_dtype)

    def view(self, data, offset: int, shape: tuple, strides: tuple):
        isz = data.itemsize
        return SimArray(shape, data.dtype, data.data + offset * isz, tuple(s * isz for s in strides))

    # CupyBackend's own conversions (scalars and 0-d host data byte for byte)
    asarray = CupyBackend.asarray
    from_host = CupyBackend.from_host

    def to_host(self, arr) -> np.ndarray:
        self.d2h_bytes += arr.nbytes
        return arr.get()


    def copy_to_device(self, arr, device):
        return arr.copy()

    def ctx(self, device):
        return contextlib.nullcontext()

    def from_dlpack(self, obj, device=None, copy=None):
        dev = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else None
        if type(obj) is SimArray:
            return obj
        raise BufferError(f"the simulated device can't import DLPack data from device type {dev}")

    def data_ptr(self, arr) -> int:
        return arr.data.ptr

    def rng(self, seed: int, device=None):
        return DeviceRng(simcupy.random.default_rng(seed), self, device)

    def synchronize(self, device=None) -> None:
        pass

    def devices(self):
        return [Device("sim", 0), Device("sim", 1)]


SIM = SimBackend("sim")
register_backend("sim", SIM)
if _ENV_DEVICE.partition(":")[0] == "sim":
    xp.set_default_device(_ENV_DEVICE)
    os.environ["STRIDED_DEFAULT_DEVICE"] = _ENV_DEVICE  # for subprocesses (pytest-xdist workers)


@pytest.fixture
def sim():
    """The simulated device ``sim:0``."""
    return xp.Device("sim:0")


@pytest.fixture
def device():
    """The device the suite runs on: ``cpu``, or ``STRIDED_DEFAULT_DEVICE`` (e.g. ``cuda``
    over the CuPy stand-in in tests/cupy_standin, or a real GPU)."""
    return xp.get_default_device() if hasattr(xp, "get_default_device") else xp.asarray(0).device


ON_CPU = str(xp.asarray(0).device) == "cpu"
cpu_only = pytest.mark.skipif(not ON_CPU, reason="about host (NumPy) memory: the default device is not cpu")


@pytest.fixture
def on_cpu():
    """The namespace's default device is the CPU during the test, whatever the suite's is."""
    saved = xp.get_default_device()
    xp.set_default_device("cpu")
    try:
        yield
    finally:
        xp.set_default_device(saved)


def host(x) -> np.ndarray:
    """A strided array's values read on the host as NumPy (an explicit ``.cpu()``)."""
    return np.asarray(x.to_device("cpu"))


def cpu(a):
    """NumPy data as a strided array on the CPU, whatever the suite's device."""
    return xp.asarray(a, device="cpu")


def bits(a) -> np.ndarray:
    """A float32/float64 array's bit patterns (NaN payloads and zero signs compared)."""
    a = np.asarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def run_concurrently(fn, threads: int = 4) -> None:
    """``fn()`` on ``threads`` threads at once; the first exception any of them raised
    is raised here (a failed assertion on a worker thread would otherwise be lost)."""
    import threading

    errors = []

    def work():
        try:
            fn()
        except BaseException as e:  # reported below
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]


def shares_memory(a, b) -> bool:
    """Whether two strided arrays on one device share memory (``numpy.shares_memory``,
    or the device array module's own, e.g. ``cupy.shares_memory``), read without a copy."""
    na, nb = a._get_native(), b._get_native()
    if type(na) is np.ndarray:
        return bool(np.shares_memory(na, nb))
    import sys

    return bool(sys.modules[type(na).__module__.partition(".")[0]].shares_memory(na, nb))


@pytest.fixture
def default_float64():
    """Run a test with float64 as the default dtype, restoring float32 after."""
    xp.set_default_dtype(xp.float64)
    try:
        yield
    finally:
        xp.set_default_dtype(xp.float32)


def to_np(x) -> np.ndarray:
    """An independent NumPy copy of a strided array (via tolist-free host copy)."""
    return np.array(x._host(), copy=True)


def assert_same(x, ref: np.ndarray) -> None:
    """``x`` equals the NumPy reference in shape, dtype and every element."""
    assert isinstance(x, xp.Array), type(x)
    assert tuple(x.shape) == ref.shape
    assert x.dtype._np == ref.dtype, (x.dtype, ref.dtype)
    np.testing.assert_array_equal(to_np(x), ref)


LAYOUTS = ["contiguous", "strided", "negative", "transposed"]


def layout(ref: np.ndarray, name: str):
    """A strided array holding ``ref``'s values in the memory layout ``name``:
    contiguous, strided (every other element of a wider buffer), negative
    (negative strides) or transposed (last two axes swapped in memory)."""
    if name == "contiguous":
        x = xp.asarray(ref.copy())
    elif name == "strided":
        wide = np.zeros(ref.shape[:-1] + (2 * ref.shape[-1],), ref.dtype)
        wide[..., ::2] = ref
        x = xp.asarray(wide)[..., ::2]
    elif name == "negative":
        x = xp.flip(xp.asarray(np.flip(ref).copy()))
    elif name == "transposed":
        x = xp.matrix_transpose(xp.asarray(np.swapaxes(ref, -1, -2).copy()))
    else:
        raise ValueError(f"unknown layout {name!r}")
    np.testing.assert_array_equal(to_np(x), ref, err_msg=name)
    return x


def layouts(ref: np.ndarray) -> dict:
    """Every layout ``ref``'s dimensions allow, by name."""
    names = LAYOUTS[:1] + (LAYOUTS[1:3] if ref.ndim else []) + (LAYOUTS[3:] if ref.ndim >= 2 else [])
    return {name: layout(ref, name) for name in names}
