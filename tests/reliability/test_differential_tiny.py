"""The compiled small-array path (_chot.c: NumPy's inner loops called directly) against
the Python definitions and against NumPy, bit for bit.

Hypothesis draws one elementwise call at a time -- a registry row, as a namespace
function, an operator or with ``out=`` -- on operands of every dtype strided has, of
the shapes that decide whether NumPy makes one loop call or runs its iterator (0-d,
empty, 1-D with any stride, C- and F-ordered, broadcasting), holding special values
(NaNs with payloads, signed zeros, infinities, integer extremes), or Python scalars of
each type (in and out of the dtype's range). The call runs here (compiled) and in a
worker process started with ``STRIDED_NO_CEXT=1`` (the Python definitions); the two
must agree on the value's bytes, dtype, shape, the ``out=`` array's bytes, the error
(type and message) and the warnings issued, and leave the inputs as they were. Where the row's kernel is
NumPy's ufunc itself, NumPy's own answer on the same operands must match too.

The processor's floating-point status flags: a compiled call that takes NumPy's loop
directly leaves them as it found them (checked through libm's fetestexcept), so a
NumPy loop of the user's around strided calls does not warn afterwards.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import operator
import os
import struct
import sys
import warnings

import numpy as np

import strided as xp
from strided._api.elementwise import REGISTRY
from strided._core.backends._numpy import RENAMES

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]

# Bit patterns besides random values: NaNs with payloads, infinities, signed zeros, a
# subnormal, the largest finite value.
_F64_SPECIAL = np.array([0x7FF8000000000001, 0x7FF0000000000123, 0xFFF800000000BEEF,
                         0x7FF0000000000000, 0xFFF0000000000000, 0x8000000000000000,
                         0x0000000000000000, 0x0000000000000001, 0x7FEFFFFFFFFFFFFF],
                        dtype=np.uint64).view(np.float64)
_F32_SPECIAL = np.array([0x7FC00001, 0x7F800123, 0xFFC0BEEF, 0x7F800000, 0xFF800000,
                         0x80000000, 0x00000000, 0x00000001, 0x7F7FFFFF],
                        dtype=np.uint32).view(np.float32)

# Shapes of the two operands: equal (NumPy's one loop call) or broadcasting (its iterator).
SHAPES = [((), ()), ((0,), (0,)), ((1,), (1,)), ((7,), (7,)), ((7,), ()), ((), (7,)),
          ((2, 3), (2, 3)), ((2, 0), (2, 0)), ((3, 1), (1, 4)), ((4,), (3, 4)),
          ((2, 3, 2), (2, 3, 2)), ((1, 5), (1, 5))]
# How an operand is laid out: contiguous, every other element, reversed, transposed
# (F-ordered for 2-D), a broadcast view (stride 0).
LAYOUTS = ["c", "step", "rev", "T", "bcast"]

BINARY = [r.name for r in REGISTRY.values() if r.nargs == 2]
UNARY = [r.name for r in REGISTRY.values() if r.nargs == 1]

SCALARS = [True, False, 0, 1, -1, 7, 127, 128, 255, 256, -129, 300, 2**31, 2**53 + 1, 2**63 - 1,
           2**63, 2**64 - 1, 2**64, -2**63, -2**63 - 1, 10**30, 1.5, -0.0, 0.0, 1e-46, 3.4e38,
           3.5e38, 1e300, float("inf"), float("-inf"), float("nan"),
           struct.unpack("<d", struct.pack("<Q", 0x7FF800000000BEEF))[0],
           1 + 2j, complex(float("nan"), -0.0), complex(1e300, 1.0), -0.5j]


def _values(dtype: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        pool = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dt)
        a = rng.integers(info.min // 2 if info.min else 0, info.max // 2, n, dtype=dt, endpoint=True)
        k = rng.random(n) < 0.4
        a[k] = pool[rng.integers(0, len(pool), int(k.sum()))]
        if dt.kind == "i":  # small values too (shifts, powers, divisors)
            a[rng.random(n) < 0.3] = rng.integers(-3, 4)
        return a
    real = np.float32 if dt in (np.float32, np.complex64) else np.float64
    special = _F32_SPECIAL if real is np.float32 else _F64_SPECIAL
    parts = []
    for _ in range(2 if dt.kind == "c" else 1):
        a = rng.standard_normal(n).astype(real) * real(4)
        k = rng.random(n) < 0.35
        a[k] = special[rng.integers(0, len(special), int(k.sum()))]
        parts.append(a)
    if dt.kind == "c":
        out = np.empty(n, dt)
        out.real, out.imag = parts
        return out
    with np.errstate(all="ignore"):
        return parts[0].astype(dt)  # (float16: the float32 specials, rounded)


def native(spec):
    """An operand spec -> a NumPy array (its layout as described) or a Python scalar."""
    if spec[0] == "scalar":
        return spec[1]
    _, dtype, shape, seed, layout = spec
    n = int(np.prod(shape)) if shape else 1
    if layout == "step" and shape:
        base = _values(dtype, 2 * n, seed).reshape(shape[:-1] + (2 * shape[-1],))
        return base[..., ::2]
    if layout == "rev" and shape:
        return _values(dtype, n, seed).reshape(shape)[..., ::-1]
    if layout == "T" and len(shape) >= 2:
        return _values(dtype, n, seed).reshape(shape[::-1]).T
    if layout == "bcast" and shape:
        return np.broadcast_to(_values(dtype, shape[-1], seed), shape)
    return _values(dtype, n, seed).reshape(shape)


def _operator(name):
    d = REGISTRY[name].dunder
    return None if d is None else getattr(operator, d + "_" if d in ("and", "or") else d)


def _record(v):
    if isinstance(v, BaseException):
        return ("err", type(v).__name__, str(v))
    a = np.asarray(v)
    shape = tuple(v.shape) if isinstance(v, xp.Array) else a.shape  # (what strided says)
    return ("ok", str(a.dtype), shape, a.shape, np.ascontiguousarray(a).tobytes())


def run_index(case) -> dict:
    """``x[key]`` (form "get") or ``x[key] = value`` ("set") for an index array or a slice."""
    _, form, xspec, key, value = case
    x = xp.asarray(native(xspec))
    k = xp.asarray(native(key)) if isinstance(key, tuple) and key[0] == "array" else \
        slice(*key[1]) if isinstance(key, tuple) else key
    v = xp.asarray(native(value)) if isinstance(value, tuple) else value
    held = [a for a in (k, v) if isinstance(a, xp.Array)]
    before = [np.asarray(a).tobytes() for a in held]
    version = x._version
    try:
        if form == "get":
            r = _record(x[k])
        else:
            x[k] = v
            r = ("set", x._version != version)
    except Exception as e:  # noqa: BLE001 (the error is the result)
        r = _record(e)
    return {"result": r, "x": _record(x), "inputs": [np.asarray(a).tobytes() for a in held] == before}


def run_case(case) -> dict:
    """Run one call on strided arrays; plain, picklable values describing what it did,
    with the warnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = run_index(case) if case[0] == "index" else run_call(case)
    # (a ResourceWarning is the collector finalising some other test's unclosed file while
    # this call ran, not something the call said: the 3.12 CI leg caught one)
    r["warnings"] = [(w.category.__name__, str(w.message)) for w in caught
                     if not issubclass(w.category, ResourceWarning)]
    return r


def run_call(case) -> dict:
    name, form, specs, out_dtype = case
    args = [native(s) for s in specs]
    xs = [xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    before = [np.asarray(x).tobytes() for x in xs if isinstance(x, xp.Array)]
    out = None
    try:
        if name == "astype":
            r = xp.astype(*xs, getattr(xp, out_dtype))
        elif form == "fn":
            r = getattr(xp, name)(*xs)
        elif form == "op":
            r = _operator(name)(*xs)
        else:  # out=: into a fresh array of the result's dtype
            out = xp.zeros(xp.broadcast_shapes(*(x.shape for x in xs if isinstance(x, xp.Array))),
                           dtype=getattr(xp, out_dtype))
            r = getattr(xp, name)(*xs, out=out)
            r = "out" if r is out else ("not out", _record(r))
    except Exception as e:  # noqa: BLE001 (the error is the result)
        r = e
    return {"result": r if isinstance(r, (str, tuple)) else _record(r),
            "out": None if out is None else _record(out),
            "inputs": [np.asarray(x).tobytes() for x in xs if isinstance(x, xp.Array)] == before}


# --- the worker: the Python definitions ----------------------------------------------

def _handle(case):  # pragma: no cover - runs in the worker process
    import strided._core.cext as cext
    assert cext.DISABLED
    return run_case(case)


if __name__ == "__main__":
    import _worker

    _worker.serve(_handle)
    sys.exit(0)


# --- the tests -------------------------------------------------------------------------

import pytest  # noqa: E402
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from conftest import cpu_only  # noqa: E402
from strided._api import elementwise as _ew  # noqa: E402

# The compiled paths under test serve CPU arrays (on another device they decline at once):
# with another default device (the cuda stand-in run) there is nothing of theirs to compare.
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(not _ew.COMPILED, reason="the compiled path is not built"), cpu_only]


@pytest.fixture(scope="module")
def worker():
    from ._worker import Worker

    w = Worker(__file__)
    yield w
    w.close()


@st.composite
def cases(draw):
    unary = draw(st.booleans())
    name = draw(st.sampled_from(UNARY if unary else BINARY))
    shapes = draw(st.sampled_from(SHAPES))
    dtypes = [draw(st.sampled_from(DTYPES))]
    dtypes.append(dtypes[0] if draw(st.integers(0, 3)) else draw(st.sampled_from(DTYPES)))
    specs = []
    for i in range(1 if unary else 2):
        if not unary and draw(st.integers(0, 3)) == 0:
            specs.append(("scalar", draw(st.sampled_from(SCALARS))))
        else:
            specs.append(("array", dtypes[i], shapes[i], draw(st.integers(0, 2**16)),
                          draw(st.sampled_from(LAYOUTS))))
    if all(s[0] == "scalar" for s in specs):
        specs[0] = ("array", dtypes[0], shapes[0], 1, "c")
    forms = ["fn", "out"] + (["op"] if REGISTRY[name].dunder else [])
    form = draw(st.sampled_from(forms))
    return name, form, specs, draw(st.sampled_from(DTYPES))


@st.composite
def where_cases(draw):
    shapes = draw(st.sampled_from([((), (), ()), ((7,), (7,), (7,)), ((7,), (), (7,)), ((0,), (0,), (0,)),
                                   ((2, 3), (2, 3), (2, 3)), ((3, 1), (1, 4), (3, 4)), ((2, 3), (3,), ())]))
    dt = draw(st.sampled_from(DTYPES))
    specs = [("array", "bool", shapes[0], draw(st.integers(0, 2**16)), draw(st.sampled_from(LAYOUTS)))]
    for s in shapes[1:]:
        if draw(st.integers(0, 5)) == 0:
            specs.append(("scalar", draw(st.sampled_from(SCALARS))))
        else:
            d = dt if draw(st.integers(0, 4)) else draw(st.sampled_from(DTYPES))
            specs.append(("array", d, s, draw(st.integers(0, 2**16)), draw(st.sampled_from(LAYOUTS))))
    return "where", draw(st.sampled_from(["fn", "fn", "out"])), specs, draw(st.sampled_from(DTYPES))


@st.composite
def astype_cases(draw):
    shape = draw(st.sampled_from([(), (0,), (7,), (2, 3), (3, 1, 2)]))
    x = ("array", draw(st.sampled_from(DTYPES)), shape, draw(st.integers(0, 2**16)),
         draw(st.sampled_from(LAYOUTS)))
    return "astype", "fn", [x], draw(st.sampled_from(DTYPES))


@st.composite
def index_cases(draw):
    shape = draw(st.sampled_from([(), (0,), (1,), (7,), (2, 3), (3, 4, 2)]))
    x = ("array", draw(st.sampled_from(DTYPES)), shape, draw(st.integers(0, 2**16)),
         draw(st.sampled_from(LAYOUTS)))
    kind = draw(st.sampled_from(["int", "bool", "slice", "bad"]))
    n = shape[0] if shape else 0
    if kind == "int":
        kshape = draw(st.sampled_from([(), (0,), (3,), (2, 2)]))
        key = ("array", draw(st.sampled_from(["int8", "int64", "uint8", "uint64", "int32"])), kshape,
               draw(st.integers(0, 2**16)), "c")
        # (values from the generator: extremes, mostly out of bounds, and small ones)
    elif kind == "bool":
        kshape = draw(st.sampled_from([shape, shape[:1], (n + 1,), ()]))
        key = ("array", "bool", kshape, draw(st.integers(0, 2**16)), draw(st.sampled_from(["c", "rev"])))
    elif kind == "slice":
        part = st.one_of(st.none(), st.integers(-9, 9))
        key = ("slice", (draw(part), draw(part), draw(st.sampled_from([None, 1, 2, -1, -3]))))
    else:
        key = ("array", draw(st.sampled_from(["float32", "complex64"])), (2,), 1, "c")
    if draw(st.booleans()):
        return "index", "get", x, key, None
    value = draw(st.one_of(st.sampled_from(SCALARS),
                           st.builds(lambda d, s: ("array", d, s, 3, "c"), st.sampled_from(DTYPES),
                                     st.sampled_from([(), (1,), (2,), (3,)]))))
    return "index", "set", x, key, value


def _numpy_reference(case):
    """NumPy's ufunc on the same operands, where the row's kernel is that ufunc for
    every dtype (no kernel or correction of strided's own), else None."""
    name, form, specs, _ = case
    row = REGISTRY.get(name)
    if name == "astype":
        uf = lambda a: a.astype(case[3])  # noqa: E731
    elif name == "where":
        uf = np.where
    elif row.kernel is not None or row.fix is not None or form == "out":
        return None
    else:
        uf = getattr(np, RENAMES.get(name, name))
    try:
        with np.errstate(all="ignore"):
            return _record(uf(*(native(s) for s in specs)))
    except Exception:  # noqa: BLE001 (strided raises its own errors)
        return None


@settings(max_examples=int(os.environ.get("STRIDED_DIFFERENTIAL_EXAMPLES", 1500)), deadline=None,
          derandomize=True, suppress_health_check=list(HealthCheck))
@given(cases())
def test_compiled_and_python_paths_agree(worker, case):
    _agree(worker, case)


def _agree(worker, case):
    mine = run_case(case)
    ref = worker.ask(case)
    assert mine == ref, (case, mine, ref)
    assert mine["inputs"], case  # no input overwritten
    want = _numpy_reference(case)
    got = mine["result"]
    if want is not None and got[0] == "ok" and got[1] == want[1]:
        assert got == want, (case, got, want)


@settings(max_examples=int(os.environ.get("STRIDED_DIFFERENTIAL_EXAMPLES", 1500)) // 3, deadline=None,
          derandomize=True, suppress_health_check=list(HealthCheck))
@given(astype_cases())
def test_astype_agrees(worker, case):
    _agree(worker, case)


@settings(max_examples=int(os.environ.get("STRIDED_DIFFERENTIAL_EXAMPLES", 1500)) // 3, deadline=None,
          derandomize=True, suppress_health_check=list(HealthCheck))
@given(where_cases())
def test_where_agrees(worker, case):
    _agree(worker, case)


@settings(max_examples=int(os.environ.get("STRIDED_DIFFERENTIAL_EXAMPLES", 1500)) // 2, deadline=None,
          derandomize=True, suppress_health_check=list(HealthCheck))
@given(index_cases())
def test_indexing_agrees(worker, case):
    mine = run_case(case)
    ref = worker.ask(case)
    assert mine == ref, (case, mine, ref)
    assert mine["inputs"], case


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("value", [1e300, 3.5e38, 3.4e38, 70000.0, 65504.0, 65519.0, 65520.0, 10**400,
                                   2**64, 2**1023, -0.0, SCALARS[31], True, 7, float("inf")])
def test_slice_assignment_of_a_scalar_agrees(worker, dtype, value):
    # the values a floating dtype rounds, overflows or refuses (NumPy warns of an
    # overflow in the cast where strided's Python path does not)
    for layout in ("c", "step", "rev"):
        case = ("index", "set", ("array", dtype, (7,), 5, layout), ("slice", (1, 6, 2)), value)
        assert run_case(case) == worker.ask(case), case


def test_index_arrays_take_the_compiled_path():
    # (the differential test above is only as good as the cases the C code answers)
    from strided._csrc import _chot
    assert type(xp.Array.__dict__["__getitem__"]) is _chot.View
    x = xp.asarray(np.arange(10.0))
    assert x[xp.asarray(np.array([1, 3]))].tolist() == [1.0, 3.0]


def test_the_worker_runs_the_python_definitions(worker):
    # (a probe: the worker's strided has no compiled path, so its Fast objects are absent)
    case = ("add", "fn", [("array", "float32", (3,), 1, "c"), ("scalar", 1.5)], "float32")
    assert worker.ask(case) == run_case(case)
    assert _ew.COMPILED and type(xp.add).__name__ == "Fast"


# --- the floating-point status flags ----------------------------------------------------

_LIBM = ctypes.util.find_library("m")
_FE = {"invalid": 0x01, "divbyzero": 0x04, "overflow": 0x08, "underflow": 0x10, "inexact": 0x20}
_ALL = sum(_FE.values())


def _libm():
    if sys.platform != "linux" or _LIBM is None:
        pytest.skip("the x86/glibc flag values are used")
    import platform
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the x86 flag values are used")
    return ctypes.CDLL(_LIBM)


# Each raises one flag in NumPy's loop (a direct-loop case: contiguous, one shape).
FLAG_CALLS = [
    ("divbyzero", lambda ns, a, z: 1.0 / z),
    ("divbyzero", lambda ns, a, z: ns.log(z)),
    ("invalid", lambda ns, a, z: z / z),
    ("invalid", lambda ns, a, z: ns.sqrt(-a)),
    ("overflow", lambda ns, a, z: ns.exp(a * 1000.0)),
    ("overflow", lambda ns, a, z: a * 3e38 * 10.0),
]


@pytest.mark.parametrize("flag,call", FLAG_CALLS)
def test_the_direct_loop_leaves_the_flags_as_it_found_them(flag, call):
    m = _libm()
    a = xp.asarray(np.ones(5, np.float32))
    z = xp.asarray(np.zeros(5, np.float32))
    m.feclearexcept(_ALL)
    with np.errstate(all="ignore"):  # the reference: NumPy's own ufunc sets the flag
        call(np, np.ones(5, np.float32), np.zeros(5, np.float32))
    assert m.fetestexcept(_FE[flag]), "the call does not raise the flag in NumPy"
    for preset in (0, _FE["underflow"], _FE[flag]):
        m.feclearexcept(_ALL)
        if preset:
            m.feraiseexcept(preset)
        r = call(xp, a, z)
        assert m.fetestexcept(_ALL) == preset, (flag, preset, m.fetestexcept(_ALL))
        assert type(r) is xp.Array


def test_a_numpy_object_loop_around_strided_calls_does_not_warn():
    # NumPy checks the flags after its object loop in the caller's error state: a flag
    # left set by strided's arithmetic inside the loop would raise here.
    z = xp.asarray(np.zeros(4, np.float64))
    f = np.frompyfunc(lambda v: float(np.asarray(1.0 / z)[0] + v), 1, 1)
    with np.errstate(all="raise"):
        assert f(np.array([1.0, 2.0], dtype=object)).tolist() == [float("inf")] * 2
