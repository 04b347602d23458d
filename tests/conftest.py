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

# PyTorch's float32 CPU kernels give other bits on an AVX-512 processor than on an AVX2 one
# (gelu, oneDNN's for a contiguous tensor and ATen's vectorised one otherwise: NaN at +inf and
# -0.0 at -0.0 and below about -5.9 on AVX-512; inf and +0.0 on AVX2): the suite's PyTorch
# references are PyTorch's AVX2 kernels on every machine (set before anything imports torch;
# a value already set is kept).
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
import sys

import numpy as np
import pytest

# Under CI, a skip for a missing installed extra fails the run (tests/_skip_policy.py).
from _skip_policy import pytest_make_collect_report, pytest_runtest_makereport  # noqa: E402,F401
# The summary counts docstring-presence checks apart from behaviour tests (tests/_counts.py).
from _counts import pytest_terminal_summary  # noqa: E402,F401
from _hypothesis_scale import pytest_collection_modifyitems  # noqa: E402,F401


def pytest_configure(config):
    # (here, not in pyproject: the wheel's test run copies the suite without it)
    config.addinivalue_line(
        "markers", "host_pinned: the same test whatever the default device (no test of the module touches "
        "it: measured by tests/cupy_standin/device_use.py): CI's stand-in leg deselects it")


def pytest_collection_finish(session):
    """Move every object alive after collection (some 36,000 test items, their parameters,
    the imported modules) out of the garbage collector's sight (``gc.freeze``): they live to
    the end of the run, and each full collection walked them all again -- a test calling
    ``gc.collect()`` paid ~1 s for it in a worker of the whole suite, against ~10 ms alone.
    Objects the tests create are collected as before."""
    import gc

    gc.collect()
    gc.freeze()

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
        self._kept = {}  # (keep_order's wrapped kernels)

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
    keep_order = CupyBackend.keep_order  # (results in NumPy's layout, as CuPy's backend gives)
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


# --- NumPy's answer on any device: its bits on the CPU, documented error bounds elsewhere ---------
#
# On the CPU strided computes with NumPy's own kernels in NumPy's operand order, so a test
# may hold it to NumPy's bits. Another device computes with its own kernels, and the
# standard fixes the bits of only some operations (data-apis.org/array-api, "Accuracy"):
# + - * / % and reciprocal, sqrt are correctly rounded; the other mathematical functions
# are not precisely defined; and "conforming implementations may vary in their support for
# subnormal numbers" (flush-to-zero: CuPy compiles every kernel with -ftz=true,
# cupy/cuda/compiler.py, so a float32 result that would be subnormal is a zero there).
#
# The bound for a function is the sum of the two libraries' documented maximum errors
# against the correctly rounded result (either may be off in either direction):
# - CUDA, whose math library CuPy's kernels call: CUDA C++ Programming Guide, appendix
#   "Mathematical Functions", tables "Single-Precision (Double-Precision) Mathematical
#   Standard Library Functions with Maximum ULP Error" (the libdevice guide's __nv_expf etc.
#   refer to them);
# - NumPy: the tolerance its own accuracy test grants each function
#   (numpy/_core/tests/test_umath_accuracy.py over data/umath-validation-set-<ufunc>.csv,
#   column ulperrortol); for a function without such a file (atan2, hypot, pow), the
#   largest tolerance granted there: 4 for float32, 2 for float64.
# float16: NumPy and CuPy both compute a float16 function in float32 and round the result,
# and two float32 values a few float32 ulps apart round to the same or adjacent halves: one ulp.
# The H100 run of 2026-11-26 (../shared/gpu-runs/2026-11-26-h100) found differences of one
# ulp (exp, sin, cos, cosh, tan, log10, acosh, asinh, atan2), well inside these bounds.

#            (float32, float64)   CUDA's maximum ulp error
_CUDA_ULPS = {"acos": (2, 2), "acosh": (4, 3), "asin": (2, 2), "asinh": (3, 3), "atan": (2, 2),
              "atan2": (3, 2), "atanh": (3, 2), "cos": (2, 2), "cosh": (2, 1), "exp": (2, 1),
              "expm1": (1, 1), "hypot": (3, 2), "log": (1, 1), "log10": (2, 1), "log1p": (1, 1),
              "log2": (1, 1), "pow": (4, 2), "sin": (2, 2), "sinh": (3, 2), "tan": (4, 2),
              "tanh": (2, 1)}
#            (float32, float64)   NumPy's umath-validation-set-*.csv tolerance
_NUMPY_ULPS = {"acos": (3, 1), "acosh": (2, 1), "asin": (4, 1), "asinh": (2, 1), "atan": (3, 1),
               "atan2": (4, 2), "atanh": (2, 1), "cos": (2, 1), "cosh": (3, 1), "exp": (3, 1),
               "expm1": (3, 1), "hypot": (4, 2), "log": (4, 1), "log10": (4, 1), "log1p": (2, 1),
               "log2": (3, 1), "pow": (4, 2), "sin": (2, 1), "sinh": (2, 1), "tan": (4, 1),
               "tanh": (2, 2)}
# logaddexp(a, b) is max(a, b) + log1p(exp(-|a - b|)) in both (cupy/_math/explog.py,
# npy_logaddexp): exp's and log1p's errors, plus one for the two roundings around them (the
# bound holds where the result is at least the log1p term, as for inputs >= 0).
_CUDA_ULPS["logaddexp"] = tuple(e + l + 1 for e, l in zip(_CUDA_ULPS["exp"], _CUDA_ULPS["log1p"]))
_NUMPY_ULPS["logaddexp"] = tuple(e + l + 1 for e, l in zip(_NUMPY_ULPS["exp"], _NUMPY_ULPS["log1p"]))
# Exact, or correctly rounded, on every device (the standard's list, and operations that
# only move bits or compare).
EXACT = frozenset({
    "abs", "add", "ceil", "conj", "copysign", "divide", "floor", "floor_divide", "maximum",
    "minimum", "multiply", "negative", "nextafter", "positive", "reciprocal", "remainder",
    "round", "sign", "signbit", "sqrt", "square", "subtract", "trunc", "isnan", "isinf",
    "isfinite", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not"})


# Complex functions that CuPy (thrust, cupy/_core/include/cupy/complex.cuh) computes as a
# composition whose relative error is unbounded near 0: expm1(z) = exp(z) - 1, log1p(z) =
# log(z + 1), pow(z, w) = exp(w log z). No ulp count bounds them; complex_tolerance does.
COMPOSED_COMPLEX = frozenset({"expm1", "log1p", "pow"})


def ulp_bound(name: str, dtype) -> int:
    """How many units in the last place of ``dtype`` a device's ``name`` (the standard's
    name) may differ from NumPy's (0 for the exact ones; KeyError for a function without a
    documented bound here; ValueError for a complex function of COMPOSED_COMPLEX)."""
    if name in EXACT:
        return 0
    dt = np.dtype(dtype)
    if dt.kind == "c":
        if name in COMPOSED_COMPLEX:
            raise ValueError(f"complex {name} has no ulp bound off the CPU (its relative error "
                             f"is unbounded near 0): compare with atol=complex_tolerance(...)")
        dt = np.finfo(dt).dtype
    if dt.kind != "f":
        return 0
    if dt == np.float16:
        return 1
    i = 0 if dt == np.float32 else 1
    return _CUDA_ULPS[name][i] + _NUMPY_ULPS[name][i]


def complex_tolerance(name: str, want, z, w=None):
    """The absolute error (per element, as float64) by which a GPU's complex ``name`` may
    differ from NumPy's ``want`` at the inputs ``z`` (and ``w`` for pow), for
    ``assert_close(..., atol=...)``: a bound on each part.

    The basis is the error of a composition (Higham, Accuracy and Stability of Numerical
    Algorithms, 2nd ed., sections 2.2-2.3: each floating-point operation is exact times
    (1 + d), |d| <= u = eps/2), with thrust's formulas (cupy/_core/include/cupy/complex.cuh)
    on one side and NumPy's (npy_math: nc_expm1 accurate, nc_log1p = log(hypot(1 + x, y)) +
    i atan2(y, 1 + x), nc_pow = cpow) on the other, and each real function within its
    documented ulps (``ulp_bound``):

    - expm1: exp(z) - 1. exp(z) is off by n_exp ulps of |exp(z)|, the subtraction by u of
      the result: |error| <= (n_exp + 1) eps |exp(z)| <= (n_exp + 1) eps (1 + |want|),
      plus NumPy's own n ulps of |want|.
    - log1p: log(1 + z). Rounding 1 + z moves it by at most u |1 + z| per part, which moves
      the logarithm by at most sqrt(2) u (|d log w| = |dw| / |w|); NumPy's hypot form loses
      as much. Both: 2 eps absolute, plus n_log ulps of |want| each.
    - pow: exp(w log z). log z is off by n_log ulps of |log z|, the product w log z by u of
      itself more, and exp turns an absolute error e of its argument into a relative error
      e of its result (d exp(t) = exp(t) dt), adding its own n_exp ulps; NumPy's cpow is
      within n_pow ulps: |error| <= (n_exp + n_pow + (n_log + 2) |w| |log z|) eps |want|.
      Near z = 0 |log z| grows without bound: the relative error does too.
    """
    want = np.asarray(want)
    dt = np.finfo(want.dtype).dtype
    eps = float(np.finfo(dt).eps)
    i = 0 if dt == np.float32 else 1
    mag = np.abs(want.astype(np.complex128))
    n = lambda f: _CUDA_ULPS[f][i] + _NUMPY_ULPS[f][i]  # noqa: E731
    if name == "expm1":
        return (_CUDA_ULPS["exp"][i] + 1) * eps * (1.0 + mag) + n("expm1") * eps * mag
    if name == "log1p":
        return 2 * eps + (n("log") + n("log1p")) * eps * mag
    if name == "pow":
        zz = np.asarray(z).astype(np.complex128)
        ww = np.asarray(1.0 if w is None else w).astype(np.complex128)
        with np.errstate(all="ignore"):
            lg = np.abs(np.log(np.where(zz == 0, 1.0, zz)))
        return (n("exp") + n("pow") + (n("log") + 2) * np.abs(ww) * lg) * eps * mag
    raise KeyError(f"no complex tolerance for {name}")


def flush_subnormals(a, device=None):
    """``a`` as a device that flushes float32 subnormals reads it: CuPy compiles every
    kernel with -ftz=true (cupy/cuda/compiler.py, _compile_with_cache_cuda), so on ``cuda``
    (and ``sim``) a float32 / complex64 subnormal *input* is a zero of its sign (log(1e-40f) is -inf
    there, -92.1 in NumPy: no ulp bound covers it). A test computes NumPy's reference from
    ``flush_subnormals(inputs, device)`` when its inputs may hold subnormals; the CPU reads
    them as they are. (Subnormal *results* are assert_close's business.)"""
    dev = xp.get_default_device() if device is None else device
    dev = xp.Device(dev) if isinstance(dev, str) else dev
    a = np.asarray(a)
    # (every device but the CPU is CuPy's, or its stand-in's, which models the flush)
    if dev.type == "cpu" or a.dtype not in (np.float32, np.complex64):
        return a
    a = a.copy()
    parts = (a.real, a.imag) if a.dtype.kind == "c" else (a,)
    tiny = np.finfo(np.float32).tiny
    for p in parts:
        np.copyto(p, np.copysign(np.float32(0), p), where=(np.abs(p) < tiny) & (p != 0))
    return a


def sum_ulps(n: int) -> int:
    """The bound, in ulps of ``sum(|x|)``, between two sums of ``n`` terms added in different
    orders (NumPy's pairwise leaf and a GPU's tree): any order of the n - 1 additions is
    within (n - 1) u sum(|x|) + O(u^2) of the exact sum, u = eps/2 (Higham, Accuracy and
    Stability of Numerical Algorithms, 2nd ed., section 4.2), so two orders differ by at most
    (n - 1) eps sum(|x|); one ulp of sum(|x|) is at least eps/2 * sum(|x|): 2(n - 1) ulps,
    and 2n covers the O(u^2) terms."""
    return 2 * n


def _device_and_host(actual, device):
    if isinstance(actual, xp.Array):
        return actual.device, np.asarray(actual._host())
    return (xp.get_default_device() if device is None else xp.Device(device)), np.asarray(actual)


def _ordered(a: np.ndarray) -> np.ndarray:
    """Float bits as integers that count ulps: consecutive floats differ by one, +0 == -0."""
    it = np.dtype(f"i{a.dtype.itemsize}")
    i = a.view(it).astype(np.int64)
    return np.where(i < 0, -(i & np.int64(np.iinfo(it).max)), i)


def _close_parts(got, want, n_ulps, scale, signed_zeros, err_msg, atol=None):
    """``got`` against ``want`` (flat real floats of one dtype) off the CPU: see assert_close."""
    err_msg = f" {err_msg}" if err_msg else ""
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg=f"NaN positions differ{err_msg}")
    inf = np.isinf(want) | np.isinf(got)
    np.testing.assert_array_equal(got[inf], want[inf], err_msg=f"infinities differ{err_msg}")
    fin = ~(nan | inf)
    g, w = got[fin], want[fin]
    flushed = (g == 0) & (np.abs(w) < np.finfo(w.dtype).tiny) & (np.signbit(g) == np.signbit(w))
    if scale is None:
        big = np.int64(1) << 40  # distances across zero saturate: none that large passes
        og, ow = _ordered(g), _ordered(w)
        dist = np.where((og < 0) == (ow < 0), np.abs(og - ow),
                        np.minimum(np.abs(og), big) + np.minimum(np.abs(ow), big))
        ok = dist <= n_ulps
        unit = "ulps"
    else:
        tol = n_ulps * np.spacing(np.abs(scale[fin]).astype(w.dtype)).astype(np.float64)
        ok = np.abs(g.astype(np.float64) - w.astype(np.float64)) <= tol
        unit = "ulps of sum(|x|)"
    if atol is not None:
        ok = ok | (np.abs(g.astype(np.float64) - w.astype(np.float64)) <= atol[fin])
        unit += " nor the absolute tolerance"
    bad = ~(ok | flushed)
    assert not bad.any(), (f"not within {n_ulps} {unit}{err_msg}: got {g[bad][:5].tolist()}, "
                           f"NumPy {w[bad][:5].tolist()}")
    if signed_zeros:
        z = (g == 0) & (w == 0)
        assert (np.signbit(g[z]) == np.signbit(w[z])).all(), f"signs of zeros differ{err_msg}"


def assert_close(actual, expected, *, ulps=0, scale=None, atol=None, signed_zeros=True, device=None,
                 err_msg="") -> None:
    """``actual`` is NumPy's ``expected`` as strided promises it on ``actual``'s device.

    ``actual``: a strided array, or host data computed on ``device`` (default: the suite's
    device). Shapes and dtypes must be equal; integers and booleans equal everywhere.

    - On the CPU: NumPy's values bit for bit, NaN positions and the signs of zeros included
      (NaN payloads are not compared), whatever the other arguments say.
    - On another device: NaN and infinity positions equal; finite values within ``ulps``
      units in the last place of their dtype (a number, or the standard's name of the
      function: its ``ulp_bound``) of ``expected``, or with ``scale`` (broadcastable to
      ``expected``; complex for complex values: its parts scale the parts) of ``scale``: for
      sums, sum(|x|), where cancellation leaves the result's own ulp meaningless; an expected
      subnormal may come back as a zero of its sign (flush to zero); zeros have NumPy's sign
      unless ``signed_zeros=False`` (where the standard leaves the sign to the implementation).
      ``atol`` (broadcastable to ``expected``, real): an absolute error also accepted in each
      part, for the complex compositions of COMPOSED_COMPLEX (``complex_tolerance``).
      A subnormal float32 *input* is read as zero on cuda: compute ``expected`` from
      ``flush_subnormals(inputs)``.
    """
    dev, got = _device_and_host(actual, device)
    want = np.asarray(expected)
    assert got.shape == want.shape, (got.shape, want.shape, err_msg)
    assert got.dtype == want.dtype, (got.dtype, want.dtype, err_msg)
    if want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want, err_msg=err_msg)
        return
    parts = [(got.real, want.real), (got.imag, want.imag)] if want.dtype.kind == "c" else [(got, want)]
    if dev.type == "cpu":
        np.testing.assert_array_equal(got, want, err_msg=err_msg)
        for g, w in parts:
            z = (g == 0) & (w == 0)
            assert (np.signbit(g[z]) == np.signbit(w[z])).all(), ("signs of zeros differ " + err_msg).strip()
        return
    if isinstance(ulps, str) and atol is not None and ulps in COMPOSED_COMPLEX and want.dtype.kind == "c":
        n_ulps = 0  # (the tolerance is atol's)
    else:
        n_ulps = ulp_bound(ulps, want.dtype) if isinstance(ulps, str) else int(ulps)
    at = None if atol is None else np.broadcast_to(np.asarray(atol, dtype=np.float64), want.shape).reshape(-1)
    s = None if scale is None else np.broadcast_to(np.asarray(scale), want.shape)
    scales = [None, None] if s is None else ([s.real, s.imag] if want.dtype.kind == "c" else [s.real])
    for (g, w), sc, what in zip(parts, scales, ["(real parts)", "(imaginary parts)"]
                                if len(parts) == 2 else [""]):
        _close_parts(g.reshape(-1), w.reshape(-1), n_ulps,
                     None if sc is None else sc.astype(np.float64).reshape(-1), signed_zeros,
                     f"{what} {err_msg}".strip(), at)


@pytest.fixture(params=[1, 2], ids=["1 thread", "2 threads"])
def nthreads(request):
    """The test under one thread, then two (the compiled pool's split); the count restored."""
    old = xp.get_num_threads()
    xp.set_num_threads(request.param)
    yield request.param
    xp.set_num_threads(old)

