"""The rules a hostile review broke, each checked by rule rather than case by case.

Every reference here is independent of strided: NumPy's own result (one call, one
thread), PyTorch's, h5py + NumPy on the same data. The thread tests shrink the
thresholds so that small arrays are split into many pieces, on whichever pool
serves (the C pool, or the Python one with STRIDED_NO_CEXT=1).

1. ``set_num_threads`` from another thread never breaks a running operation.
2. The thread and threshold setters validate (TypeError, ValueError naming the
   value) and clamp huge values.
3. A result never depends on the thread count: NumPy's bits, NaN payloads
   included, at 1, 2 and 3 threads.
4. ``memory_stats()`` stays exact when the allocator fails.
5. Any valid threshold works for 0-d, empty and 1-element arrays.
6. No strided entry point reports a NumPy floating-point RuntimeWarning.
7. A bool is never an axis (TypeError); indexing with bools is NumPy's.
8. Python ints beyond int64 in ``asarray`` lists: PyTorch's answers.
9. A lazy HDF5 dataset indexed with bools gives NumPy's result.
"""

from __future__ import annotations

import inspect
import sys
import threading
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided as xp
import strided.fft
import strided.linalg
from strided._api import elementwise as _elementwise
from strided._core import cfast as _cfast
from strided._core import pool as _pool
from strided._core import threads as _threads

from conftest import bits, cpu, host

C = _cfast._ckernels if _cfast.AVAILABLE else None


@pytest.fixture
def small_pieces():
    """Tiny thresholds and chunks: a few thousand elements are cut into many pieces."""
    saved = (xp.get_pool_threshold(), xp.get_thread_threshold(), xp.get_num_threads())
    cfg = C.pool_config() if C is not None else None
    xp.set_pool_threshold(64)
    xp.set_thread_threshold(64)
    if C is not None:
        C.pool_config(-1, 64)
    yield
    xp.set_pool_threshold(saved[0])
    xp.set_thread_threshold(saved[1])
    xp.set_num_threads(saved[2])
    if C is not None:
        C.pool_config(cfg[0], cfg[1])


def _nan_payloads(rng, n, dtype, frac=0.4):
    """Standard normal values, a fraction of them NaNs with random payloads and signs."""
    a = rng.standard_normal(n).astype(dtype)
    u = np.uint32 if dtype == np.float32 else np.uint64
    quiet = 0x7FC00000 if dtype == np.float32 else 0x7FF8000000000000
    sign = 0x80000000 if dtype == np.float32 else 0x8000000000000000
    mask = rng.random(n) < frac
    payload = rng.integers(0, 1 << 20, n).astype(u) | u(quiet)
    payload[rng.random(n) < 0.5] |= u(sign)
    a.view(u)[mask] = payload[mask]
    return a


# --- 1. set_num_threads racing running operations -------------------------------------------

def test_set_num_threads_never_stops_a_running_operation(small_pieces):
    # The Python pool serves arctan2 and int64 additions (the C pool takes neither): a
    # count changed meanwhile applies to the next operations, the running ones finish.
    rng = np.random.default_rng(1)
    a = rng.standard_normal(40_000).astype(np.float32)
    b = rng.standard_normal(40_000).astype(np.float32)
    i = rng.integers(-1000, 1000, 40_000)
    want = (np.arctan2(a, b), i + i, a * b)
    sa, sb, si = cpu(a), cpu(b), cpu(i)
    stop = threading.Event()
    errors = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)

    def flip():
        n = 0
        while not stop.is_set():
            xp.set_num_threads(1 + n % 4)
            n += 1

    def work():
        try:
            for _ in range(30):
                got = (host(xp.atan2(sa, sb)), host(si + si), host(sa * sb))
                for g, w in zip(got, want):
                    np.testing.assert_array_equal(g, w)
        except BaseException as e:  # reported below
            errors.append(e)
    try:
        flipper = threading.Thread(target=flip)
        workers = [threading.Thread(target=work) for _ in range(3)]
        flipper.start()
        for t in workers:
            t.start()
        for t in workers:
            t.join()
    finally:
        stop.set()
        flipper.join()
        sys.setswitchinterval(old)
    assert not errors, errors[:2]


def test_a_piece_that_changes_the_count_does_not_break_its_own_operation(small_pieces):
    # The first piece runs on this thread after the others were handed out; it sets
    # another count and starts another operation, which must not shut the pool under them.
    xp.set_num_threads(3)
    a = np.arange(300_000, dtype=np.int64)
    calls = []

    def kernel(x, y, out=None):
        if not calls:
            calls.append(1)
            xp.set_num_threads(2)
            np.testing.assert_array_equal(host(cpu(a) + cpu(a)), a + a)
            xp.set_num_threads(4)
        return np.add(x, y, out=out)
    got = _threads.large_ufunc(kernel, (a, a), a.dtype)
    np.testing.assert_array_equal(got, a + a)


# --- 2. the setters ------------------------------------------------------------------------

SETTERS = [xp.set_num_threads, xp.set_thread_threshold, xp.set_pool_threshold, xp.set_cache_limit]


@pytest.fixture
def restore_settings():
    saved = (xp.get_num_threads(), xp.get_thread_threshold(), xp.get_pool_threshold(),
             xp.get_cache_limit())
    yield
    xp.set_num_threads(saved[0])
    xp.set_thread_threshold(saved[1])
    xp.set_pool_threshold(saved[2])
    xp.set_cache_limit(saved[3])


@pytest.mark.parametrize("setter", SETTERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("value", [True, False, np.True_, 1.0, 2.5, "4", None, [2]])
def test_setters_refuse_what_is_not_an_int(setter, value, restore_settings):
    with pytest.raises(TypeError, match=setter.__name__):
        setter(value)


@pytest.mark.parametrize("setter", SETTERS, ids=lambda f: f.__name__)
def test_setters_refuse_negatives_naming_the_value(setter, restore_settings):
    with pytest.raises(ValueError, match=f"{setter.__name__}.*-7"):
        setter(-7)


@pytest.mark.parametrize("huge", [2**31, 2**63, 2**64, 10**30])
def test_huge_settings_are_clamped_and_large_operations_still_run(huge, restore_settings):
    xp.set_num_threads(huge)
    assert xp.get_num_threads() == _threads.MAX_THREADS == 256
    xp.set_thread_threshold(1)
    a = np.random.default_rng(3).standard_normal(300_000)
    np.testing.assert_array_equal(host(cpu(a) + cpu(a)), a + a)
    np.testing.assert_array_equal(host(xp.exp(cpu(a))), np.exp(a))
    assert host(xp.max(cpu(a))) == a.max()
    for setter, getter in ((xp.set_thread_threshold, xp.get_thread_threshold),
                           (xp.set_pool_threshold, xp.get_pool_threshold),
                           (xp.set_cache_limit, xp.get_cache_limit)):
        setter(huge)
        assert getter() == min(huge, sys.maxsize)
    np.testing.assert_array_equal(host(cpu(a) * 2.0), a * 2.0)


@pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")
@pytest.mark.parametrize("nt", [2**63, 2**64, -5, 0])
def test_c_entry_points_clamp_any_thread_count(nt):
    a = np.ones(1000, np.float32)
    out = np.empty_like(a)
    assert C.ew_binary(0, a, a, out, nt) is True
    np.testing.assert_array_equal(out, 2.0)
    assert C.sum_all(a, nt) == 1000.0
    assert C.extremum_all(a, True, nt) == 1.0


# --- 3. results never depend on the thread count ---------------------------------------------

BINARY = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
          ("divide", np.divide), ("maximum", np.maximum), ("minimum", np.minimum),
          ("pow", np.power), ("atan2", np.arctan2), ("hypot", np.hypot),
          ("copysign", np.copysign), ("logaddexp", np.logaddexp)]
UNARY = [("exp", np.exp), ("sqrt", np.sqrt), ("negative", np.negative), ("abs", np.abs),
         ("sin", np.sin), ("log1p", np.log1p), ("square", np.square)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=hs.integers(1, 6000), dtype=hs.sampled_from([np.float32, np.float64]),
       seed=hs.integers(0, 2**16),
       layout=hs.sampled_from(["arrays", "scalar right", "scalar left", "row", "nan scalar"]))
def test_elementwise_bits_are_numpys_at_any_thread_count(small_pieces, n, dtype, seed, layout):
    rng = np.random.default_rng(seed)
    a = _nan_payloads(rng, n, dtype)
    b = _nan_payloads(rng, n, dtype)
    if layout == "row":  # a broadcast operand: (rows, 64) op (64,)
        a = _nan_payloads(rng, 64 * (n // 64 + 1), dtype).reshape(-1, 64)
        b = b[:64] if n >= 64 else _nan_payloads(rng, 64, dtype)
    cases = {"arrays": (a, b), "scalar right": (a, 0.75), "scalar left": (-2.5, a),
             "row": (a, b), "nan scalar": (a, float("nan"))}[layout]
    with np.errstate(all="ignore"):
        want = {name: f(*cases) for name, f in BINARY}
        want.update({name: f(a) for name, f in UNARY})
    for nt in (1, 2, 3):
        xp.set_num_threads(nt)
        args = [cpu(x) if isinstance(x, np.ndarray) else x for x in cases]
        for name, _ in BINARY:
            got = host(getattr(xp, name)(*args))
            assert got.dtype == want[name].dtype, (name, nt)
            np.testing.assert_array_equal(bits(got), bits(want[name]), err_msg=f"{name} at {nt} threads")
        for name, _ in UNARY:
            got = host(getattr(xp, name)(cpu(a)))
            np.testing.assert_array_equal(bits(got), bits(want[name]), err_msg=f"{name} at {nt} threads")
        # an elided temporary (written in place) on the pool
        got = host(cpu(a) * 1.0 + args[-1] if layout != "scalar left" else cpu(a) * 1.0 + 2.0)
        with np.errstate(all="ignore"):
            ref = (a * 1.0 + cases[-1]) if layout != "scalar left" else (a * 1.0 + 2.0)
        np.testing.assert_array_equal(bits(got), bits(np.asarray(ref, dtype=want["add"].dtype)))


def test_x_plus_nan_is_numpys_payload_at_any_thread_count(small_pieces):
    # The review's case: NumPy's add with a NaN scalar returns the scalar's NaN in its
    # vector loop and the array's in its tail; every thread count must give NumPy's.
    x = np.full(100_003, np.nan, np.float32)
    x.view(np.uint32)[:] = 0x7FC00123
    want = x + np.float32("nan")
    for nt in (1, 2, 3, 4):
        xp.set_num_threads(nt)
        np.testing.assert_array_equal(bits(host(cpu(x) + float("nan"))), bits(want))
        np.testing.assert_array_equal(bits(host(cpu(x) + cpu(x[::-1].copy()))), bits(x + x[::-1]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=hs.integers(1, 300), cols=hs.integers(1, 300), dtype=hs.sampled_from([np.float32, np.float64]),
       seed=hs.integers(0, 2**16), axis=hs.sampled_from([None, 0, 1]),
       extra=hs.sampled_from(["nans", "zeros", "plain", "ints"]))
def test_reductions_do_not_depend_on_the_thread_count(small_pieces, rows, cols, dtype, seed, axis, extra):
    rng = np.random.default_rng(seed)
    a = _nan_payloads(rng, rows * cols, dtype, 0.02 if extra == "nans" else 0.0).reshape(rows, cols)
    if extra == "zeros":
        a[rng.random(a.shape) < 0.5] = 0.0
        a[rng.random(a.shape) < 0.3] = -0.0
    if extra == "ints":
        a = rng.integers(-2**40, 2**40, (rows, cols))
    funcs = [xp.sum, xp.max, xp.min, xp.prod] + ([xp.mean, xp.var, xp.std] if extra != "ints" else [])
    ref = None
    for nt in (1, 2, 3):
        xp.set_num_threads(nt)
        got = [host(f(cpu(a), axis=axis)) for f in funcs]
        if ref is None:
            ref = got
            # and the values are NumPy's (within the pairwise bound for sums)
            with np.errstate(all="ignore"):
                scale = np.sum(np.abs(a), axis=axis).astype(np.float64)
                for g, nf in zip(got, (np.sum, np.max, np.min)):
                    want = nf(a, axis=axis)
                    err = np.abs(g.astype(np.float64) - want)
                    ok = (err <= 1e-5 * scale) | (g == want) | (np.isnan(g) & np.isnan(want))
                    assert ok.all(), (nf.__name__, g, want)
        for f, g, r in zip(funcs, got, ref):
            assert g.dtype == r.dtype
            np.testing.assert_array_equal(_raw(g), _raw(r), err_msg=f"{f.__name__} at {nt} threads")


def _raw(a):
    """An array's bytes (every bit, NaN payloads and zero signs included)."""
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


# --- 4. memory_stats after allocation failures ---------------------------------------------

def _counters():
    s = xp.memory_stats()
    assert s["cached_bytes"] == sum(_pool._cached_sizes())  # the cache's count is what it holds
    return {k: s[k] for k in ("allocated_bytes", "allocated_peak_bytes", "num_allocs", "hits", "misses")}


@pytest.fixture
def pool_on(restore_settings):
    xp.set_pool_threshold(1024)
    xp.set_cache_limit(64 << 20)
    xp.empty_cache()
    yield


@pytest.fixture
def refuse(monkeypatch):
    """``refuse(allocs, arrays=0)``: the pool that serves (C or Python) fails its next
    ``allocs`` system allocations and ``arrays`` array constructions over a block with
    MemoryError; returns the list of sizes it was asked for (the Python pool's only)."""
    tries = []

    def arm(allocs, arrays=0):
        if _pool._C is not None:
            _pool._C.fail_next(allocs, arrays)
            return tries
        real, left = _pool._alloc, [allocs]

        def alloc(size):
            tries.append(size)
            if left[0] > 0:
                left[0] -= 1
                raise MemoryError("simulated")
            return real(size)
        monkeypatch.setattr(_pool, "_alloc", alloc)
        if arrays:
            class _NoArrays:
                def __getattr__(self, name):
                    if name == "asarray":
                        def fail(*args, **kwargs):
                            if arrays_left[0] > 0:
                                arrays_left[0] -= 1
                                raise MemoryError("simulated")
                            return np.asarray(*args, **kwargs)
                        return fail
                    return getattr(np, name)
            arrays_left = [arrays]
            monkeypatch.setattr(_pool, "np", _NoArrays())
        return tries
    yield arm
    if _pool._C is not None:
        _pool._C.fail_next(0, 0)


def test_memory_stats_are_exact_when_the_system_refuses_memory(pool_on, refuse):
    a = np.arange(100_000.0)
    before = _counters()
    refuse(1 << 40)
    for _ in range(3):
        with pytest.raises(MemoryError):
            cpu(a) + 1.0
        with pytest.raises(MemoryError):
            _pool.empty((1000,), np.dtype(np.float64), 8000)
    assert _counters() == before  # nothing was handed out: nothing counted


def test_both_pools_say_what_they_could_not_allocate(pool_on, refuse):
    # The Python definition on a real refusal (2**62 bytes), the C pool on a simulated one:
    # the same message.
    with pytest.raises(MemoryError, match=f"^the buffer pool cannot allocate {1 << 62} bytes$"):
        _pool._alloc(1 << 62)
    if _pool._C is not None:
        refuse(2)
        with pytest.raises(MemoryError, match="^the buffer pool cannot allocate 8192 bytes$"):
            _pool.empty((1000,), np.dtype(np.float64), 8000)


def test_memory_stats_count_an_allocation_that_succeeds_on_the_retry(pool_on, refuse):
    before = _counters()
    tries = refuse(1)
    r = _pool.empty((1000,), np.dtype(np.float64), 8000)
    after = _counters()
    assert type(r.base) is _pool._Block and r.base.size == 8192
    if _pool._C is None:
        assert tries == [8192, 8192]
    assert after["num_allocs"] == before["num_allocs"] + 1 and after["misses"] == before["misses"] + 1
    assert after["allocated_bytes"] == before["allocated_bytes"] + 8192
    del r
    assert _counters()["allocated_bytes"] == before["allocated_bytes"]


def test_memory_stats_are_exact_when_the_array_cannot_be_made(pool_on, refuse):
    # The block is served, then making the array over it fails: the block goes back.
    before = _counters()
    keep = _pool.empty((1000,), np.dtype(np.float64), 8000)  # a cached block to be hit next
    del keep
    refuse(0, 2)
    for _ in range(2):  # a hit, then (cache emptied) a miss
        with pytest.raises(MemoryError):
            _pool.empty((1000,), np.dtype(np.float64), 8000)
        xp.empty_cache()
    after = _counters()
    assert after["allocated_bytes"] == before["allocated_bytes"]


# --- 5. tiny thresholds on 0-d, empty and 1-element arrays ---------------------------------

_NP_NAMES = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
             "atan": "arctan", "atanh": "arctanh", "atan2": "arctan2", "pow": "power",
             "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
             "bitwise_invert": "invert", "conj": "conjugate"}
_SAMPLES = {"float64": 0.5, "int64": 3, "bool": True, "complex128": 0.5 + 0.25j}
# The standard's dtype categories (its words, as the rows name them) as ``isdtype`` kinds:
# a dtype outside its row's category raises TypeError, one inside computes.
_CATEGORY_KINDS = {
    "any": ("bool", "numeric"),
    "boolean": "bool",
    "complex floating-point": "complex floating",
    "floating-point": ("real floating", "complex floating"),
    "integer": "integral",
    "integer or boolean": ("integral", "bool"),
    "numeric": "numeric",
    "real floating-point": "real floating",
    "real-valued": ("integral", "real floating"),
}


_BOOL_COMPUTED = {"add", "multiply", "maximum", "minimum", "less", "less_equal", "greater", "greater_equal",
                  "divide", "isnan", "isinf", "isfinite", "signbit"}


@pytest.mark.parametrize("row", [r for r in _elementwise.ROWS if r.nargs in (1, 2)], ids=lambda r: r.name)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (0, 3), (1, 1)], ids=str)
def test_every_elementwise_function_takes_tiny_thresholds(row, shape, restore_settings):
    f = getattr(xp, row.name)
    nf = getattr(np, _NP_NAMES.get(row.name, row.name), None)
    for thr in (1, 2, 8):
        xp.set_pool_threshold(thr)
        xp.set_thread_threshold(thr)
        for nt in (1, 2, 3):
            xp.set_num_threads(nt)
            for dtype, v in _SAMPLES.items():
                a = np.full(shape, v, dtype=dtype)
                # (bool arrays also compute where PyTorch's kernels take them: test_elementwise's
                # BOOL_COMPUTED; compared with NumPy's bool loops below)
                if not xp.isdtype(getattr(xp, dtype), _CATEGORY_KINDS[row.category]) and not (
                        dtype == "bool" and row.name in _BOOL_COMPUTED):
                    with pytest.raises(TypeError, match=row.name):  # a dtype the row doesn't take
                        f(*[cpu(a)] * row.nargs)
                    continue
                got = host(f(*[cpu(a)] * row.nargs))
                assert got.shape == a.shape, (row.name, dtype, thr, nt)
                if nf is not None and row.name not in ("round", "sign", "remainder", "floor_divide",
                                                       "divide", "pow", "copysign", "nextafter"):
                    with np.errstate(all="ignore"):
                        want = nf(*[a] * row.nargs)
                    np.testing.assert_array_equal(got, np.asarray(want, dtype=got.dtype),
                                                  err_msg=f"{row.name} {dtype} at threshold {thr}, {nt} threads")


@pytest.mark.parametrize("shape", [(), (0,), (1,), (1, 1), (0, 4)], ids=str)
def test_reductions_and_scalars_take_tiny_thresholds(shape, restore_settings):
    a = np.full(shape, 2.5)
    for thr in (1, 3):
        xp.set_pool_threshold(thr)
        xp.set_thread_threshold(thr)
        for nt in (1, 2, 3):
            xp.set_num_threads(nt)
            x = cpu(a)
            for f, nf in ((xp.sum, np.sum), (xp.prod, np.prod), (xp.cumulative_sum, None)):
                got = host(f(x) if nf is not None or a.ndim == 1 else f(x, axis=0) if a.ndim else f(x))
                if nf is not None:
                    np.testing.assert_array_equal(got, nf(a))
            if a.size:
                assert host(xp.max(x)) == 2.5 and host(xp.mean(x)) == 2.5
            np.testing.assert_array_equal(host(x * 2 + 1), a * 2 + 1)
            np.testing.assert_array_equal(host(xp.where(x > 1, x, -x)), np.where(a > 1, a, -a))
            np.testing.assert_array_equal(host(xp.astype(x, xp.float32)), a.astype(np.float32))


# --- 6. no NumPy floating-point warning from any entry point -------------------------------

_SIDE_EFFECTS = {"save", "load", "manual_seed", "seed", "empty_cache", "set_printoptions",
                 "open_hdf5", "load_hdf5", "save_hdf5"}


def _inputs():
    big = cpu(np.array([[3e38, -3e38, 0.0], [1e-45, 0.0, 88.0], [-1.0, 1e38, 2.0]], np.float32))
    zero = cpu(np.zeros((3, 3), np.float32))
    ints = cpu(np.array([[2**62, -2**63, 0], [1, 0, -1], [3, 2, 1]], np.int64))
    return [(big,), (big, big), (big, zero), (zero, zero), (ints, ints), (big, 1e38), (ints, 0)]


# What a call with arguments that don't fit may raise (the standard's and PyTorch's
# classes for a wrong type, value or index; LinAlgError is a ValueError; RuntimeError is
# PyTorch's for a wrong state, e.g. ``backward()`` of an array that needs no grad):
# anything else (AttributeError, ZeroDivisionError, ...) is a crash and fails the test.
_FITTING_ERRORS = (TypeError, ValueError, IndexError, RuntimeError)


def _numpy_fp_warnings(call, inputs=None):
    """The NumPy floating-point RuntimeWarnings ``call`` raised under simplefilter("error")
    (strided's own warnings, such as astype's of a NaN to an integer dtype, are allowed),
    and how many of the input sets it ran on (a wrong fit raises one of _FITTING_ERRORS)."""
    found = []
    ran = 0
    for args in (_inputs() if inputs is None else inputs):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                call(*args)
                ran += 1
            except RuntimeWarning as w:
                ran += 1
                if "encountered in" in str(w):
                    found.append(str(w))
            except _FITTING_ERRORS:  # wrong arguments for this function: the next set
                pass
    return found, ran


def _public_functions():
    for mod in (xp, strided.linalg, strided.fft):
        names = getattr(mod, "__all__", None) or dir(mod)  # (not the modules' own imports)
        for name in sorted(names):
            f = getattr(mod, name)
            if (name.startswith("_") or name.startswith("set_") or name in _SIDE_EFFECTS
                    or not callable(f) or isinstance(f, type) or inspect.ismodule(f)):
                continue
            yield f"{mod.__name__}.{name}", f


def _own_inputs():
    """Arguments for the functions the shared input sets don't fit (axes, shapes, indices,
    several arrays), with the same extreme values; name -> list of argument tuples."""
    big = cpu(np.array([[3e38, -3e38, 0.0], [1e-45, 0.0, 88.0], [-1.0, 1e38, 2.0]], np.float32))
    v = cpu(np.array([3e38, -3e38, 1e38], np.float32))
    srt = cpu(np.array([-3e38, 0.0, 3e38], np.float32))
    pos = cpu(np.array([1e38, 2e38, 3e38], np.float32))  # (-3e38..3e38 has no finite bins)
    ints = cpu(np.array([[2**62, -2**63, 0], [1, 0, -1], [3, 2, 1]], np.int64))
    idx = cpu(np.array([[0, 2, 1], [2, 2, 0]], np.int64))
    row = cpu(np.array([2, 0], np.int64))
    mask = big > 0
    b3 = xp.reshape(big, (1, 3, 3))
    spd = cpu(np.array([[3e38, 1e38], [1e38, 3e38]], np.float32))
    f32 = xp.float32
    return {
        "addmm": [(big, big, big)], "baddbmm": [(b3, b3, b3)], "bmm": [(b3, b3)],
        "astype": [(big, xp.float16), (big, xp.int32), (ints, f32)],
        "bincount": [(cpu(np.array([0, 3, 1], np.int64)), v)], "bitwise_invert": [(ints,)],
        "broadcast_to": [(big, (2, 3, 3))], "cat": [([big, big],)], "concat": [([big, big],)],
        "stack": [([big, big],)], "chunk": [(big, 3)], "split": [(big, 1)],
        "cumulative_prod": [(v,)], "cumulative_sum": [(v,), (ints[0],)],
        "digitize": [(v, srt)], "searchsorted": [(srt, v)], "dot": [(v, v)], "outer": [(v, v)],
        "einsum": [("ij,jk->ik", big, big)], "gather": [(big, 0, idx)],
        "index_select": [(big, 0, row)], "take": [(v, row)],
        "take_along_axis": [(v, row)], "masked_fill": [(big, mask, 3e38)],
        "masked_select": [(big, mask)], "where": [(mask, big, -big)],
        "histogram": [(pos,), (pos, 4)], "histogram_bin_edges": [(pos,), (pos, 4)],
        "imag": [(big + 1j * big,)], "interp": [(v, srt, srt)], "lerp": [(big, -big, 0.5)],
        "logical_and": [(mask, mask)], "logical_or": [(mask, mask)],
        "logical_xor": [(mask, mask)], "logical_not": [(mask,)],
        "meshgrid": [(v, v)], "moveaxis": [(big, 0, 1)], "movedim": [(big, 0, 1)],
        "permute": [(big, (1, 0))], "permute_dims": [(big, (1, 0))],
        "swapdims": [(big, 0, 1)], "transpose": [(big, 0, 1)], "narrow": [(big, 0, 1, 2)],
        "reshape": [(big, (9,))], "view": [(big, (9,))], "unflatten": [(big, 1, (3, 1))],
        "unfold": [(big, 0, 2, 1)], "to_device": [(big, "cpu")],
        "scatter": [(big, 0, idx, big)], "multinomial": [(cpu(np.array([3e38, 1e38], np.float32)), 1)],
        "randint_like": [(ints, 0, 5)], "strided.linalg.cholesky": [(spd,)],
        "strided.linalg.outer": [(v, v)],
        # creation from Python numbers, at the float32 limits
        "arange": [(-3e38, 3e38, 1e38)], "full": [((2,), 1e39), ((2,), 1e5)],
        "linspace": [(-3e38, 3e38, 5)], "logspace": [(0, 40, 5)], "eye": [(3,)],
        "empty": [((2,),)], "ones": [((2,),)], "zeros": [((2,),)], "rand": [(3,)],
        "randn": [(3,)], "randint": [(0, 5, (3,))], "randperm": [(4,)],
        "broadcast_shapes": [((3, 1), (1, 3))], "from_numpy": [(np.array([3e38], np.float32),)],
        "iinfo": [(xp.int8,)], "isdtype": [(f32, "real floating")],
        "strided.fft.fftfreq": [(5,)], "strided.fft.rfftfreq": [(5,)],
        # getters: no arguments
        **{n: [()] for n in ("default_generator", "get_cache_limit", "get_default_device",
                             "get_default_dtype", "get_num_threads", "get_pool_threshold",
                             "get_rng_state", "get_thread_threshold", "initial_seed",
                             "is_grad_enabled", "memory_stats")},
    }


_OPERATORS = ["__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__",
              "__matmul__", "__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__",
              "__rmod__", "__rpow__", "__rmatmul__", "__iadd__", "__isub__", "__imul__",
              "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__imatmul__", "__neg__",
              "__pos__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
              "__setitem__", "__float__", "__int__", "__bool__", "__complex__", "__array__"]


def test_no_public_function_reports_a_numpy_warning():
    own = _own_inputs()
    bad, never = {}, []
    for name, f in _public_functions():
        w, ran = _numpy_fp_warnings(f)
        short = name.removeprefix("strided.")
        mine = own.get(short, own.get(name))
        if mine is not None:
            w2, ran2 = _numpy_fp_warnings(f, mine)
            w, ran = w + w2, ran + ran2
            assert ran2 == len(mine), f"{name}: its own arguments don't fit"
        if w:
            bad[name] = w
        if not ran:  # no input set fits: nothing was tested
            never.append(name)
    assert not bad, bad
    assert not never, f"add arguments to _own_inputs() for {never}"


# Methods the warning scan does not call, with the reason (they compute nothing in NumPy)
_METHODS_NOT_CALLED = {
    "backward": "needs a graph (tests/autograd)", "register_hook": "needs a graph (tests/autograd)",
    "retain_grad": "needs a graph (tests/autograd)", "cuda": "a copy to a GPU (tests/_core)",
    "register_post_accumulate_grad_hook": "needs a graph (tests/torch_namespace/test_post_accumulate_hook24)",
    "align_to": "dimension names only (tests/named)", "refine_names": "dimension names only",
    "rename": "dimension names only", "rename_": "dimension names only",
    "is_inference": "raises NotImplementedError (strided has no inference tensors)",
    "materialize": "only on an uninitialized parameter or buffer (tests/torch_namespace/test_lazy18)",
    # (strided/torch/_more_methods.py; tests/torch_namespace/test_more_methods27)
    **{n: "raises (strided has no sparse, nested, mkldnn or quantized tensors, no pinned or shared memory)"
       for n in ("values", "indices", "crow_indices", "col_indices", "ccol_indices", "row_indices", "coalesce",
                 "is_coalesced", "to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc",
                 "to_sparse_bsr", "to_sparse_bsc", "sparse_mask", "sparse_resize_", "sparse_resize_and_clear_",
                 "to_padded_tensor", "to_mkldnn", "int_repr", "q_scale", "q_zero_point", "q_per_channel_scales",
                 "q_per_channel_zero_points", "q_per_channel_axis", "qscheme", "pin_memory", "share_memory_",
                 "storage_type")},
    "set_": "a no-op on the array's own geometry only, else it raises", "nonzero_static": "size is keyword-only",
    "resize": "warns its deprecation (PyTorch's)", "resize_as": "warns its deprecation (PyTorch's)",
    # (strided/torch/_math_names.py: removed in PyTorch 1.9, kept as callables that raise its RuntimeError)
    **{n: "raises PyTorch's RuntimeError (tests/torch_namespace/test_math_names27)"
       for n in ("solve", "lstsq", "eig", "symeig")},
}


def _own_method_inputs():
    """(array, *arguments) for the methods the shared input sets don't fit."""
    big = cpu(np.array([[3e38, -3e38, 0.0], [1e-45, 0.0, 88.0], [-1.0, 1e38, 2.0]], np.float32))
    one = cpu(np.array([3e38], np.float32))
    v = cpu(np.array([3e38, -3e38, 1e38], np.float32))
    srt = cpu(np.array([-3e38, 0.0, 3e38], np.float32))
    ints = cpu(np.array([[7, 1, 0], [1, 0, -1], [3, 2, 1]], np.int64))
    idx = cpu(np.array([[0, 2, 1], [2, 2, 0]], np.int64))
    row = cpu(np.array([2, 0], np.int64))
    mask = big > 0
    b3 = xp.reshape(big, (1, 3, 3))
    spd = cpu(np.array([[4.0, 2.0, 0.0], [2.0, 3.0, 0.0], [0.0, 0.0, 1e38]], np.float32))
    out = {n: [(one,)] for n in ("__bool__", "__complex__", "__float__", "__int__", "item")}
    out.update({
        "addmm": [(big, big, big)], "baddbmm": [(b3, b3, b3)], "bmm": [(b3, b3)],
        "astype": [(big, xp.float16), (ints, xp.float32)], "broadcast_to": [(big, (2, 3, 3))],
        "chunk": [(big, 3)], "split": [(big, 1)], "dot": [(v, v)], "outer": [(v, v)],
        "expand": [(v, 2, 3)], "gather": [(big, 0, idx)], "index_select": [(big, 0, row)],
        "lerp": [(big, -big, 0.5)], "lerp_": [(big, -big, 0.5)],
        "softmax": [(big, 1)], "log_softmax": [(big, 1)], "quantile": [(big, 0.5)],
        "logical_and": [(mask, mask)], "logical_and_": [(mask, mask)],
        "logical_or": [(mask, mask)], "logical_or_": [(mask, mask)],
        "logical_xor": [(mask, mask)], "logical_xor_": [(mask, mask)],
        "logical_not": [(mask,)], "logical_not_": [(mask,)],
        "bitwise_invert": [(ints,)], "bitwise_invert_": [(ints,)],
        "bitwise_not": [(ints,)], "bitwise_not_": [(ints,)],
        "masked_fill": [(big, mask, 3e38)], "masked_fill_": [(big, mask, 3e38)],
        "masked_select": [(big, mask)], "moveaxis": [(big, 0, 1)], "movedim": [(big, 0, 1)],
        "narrow": [(big, 0, 1, 2)], "narrow_copy": [(big, 0, 1, 2)], "prelu": [(big, one)],
        "new_full": [(big, (2,), 1e38)], "permute": [(big, 1, 0)],
        "permute_dims": [(big, (1, 0))], "reshape": [(big, 9)], "view": [(big, 9)],
        "scatter": [(big, 0, idx, big)], "scatter_": [(big, 0, idx, big)],
        "searchsorted": [(srt, v)], "swapaxes": [(big, 0, 1)], "swapdims": [(big, 0, 1)],
        "transpose": [(big, 0, 1)], "transpose_": [(big, 0, 1)],
        "swapaxes_": [(big, 0, 1)], "swapdims_": [(big, 0, 1)],
        "addcmul_": [(big, big, big)], "addcdiv_": [(big, big, big)], "take": [(big, row)], "take_along_axis": [(v, row)],
        "to_device": [(big, "cpu")], "unflatten": [(big, 1, (3, 1))], "unfold": [(big, 0, 2, 1)],
        "where": [(big, mask, -big)],
        "index_add": [(big, 0, row, big[:2])], "index_add_": [(big, 0, row, big[:2])],
        "index_copy": [(big, 0, row, big[:2])], "index_copy_": [(big, 0, row, big[:2])],
        "index_fill": [(big, 0, row, 3e38)], "index_fill_": [(big, 0, row, 3e38)],
        "masked_scatter": [(big, mask, big)], "masked_scatter_": [(big, mask, big)],
        "scatter_add": [(big, 0, idx, big)], "scatter_add_": [(big, 0, idx, big)],
        "scatter_reduce": [(big, 0, idx, big, "prod")], "scatter_reduce_": [(big, 0, idx, big, "prod")],
        # (strided.torch._more_functions, _more_linalg, _more_special)
        "addbmm": [(big, b3, b3)], "addbmm_": [(big, b3, b3)], "baddbmm_": [(b3, b3, b3)],
        "as_strided": [(big, (2, 2), (1, 2), 1)], "as_strided_scatter": [(big, v[:2], (2,), (4,), 0)],
        "cholesky": [(spd,)], "cholesky_inverse": [(spd,)], "cholesky_solve": [(big, big)],
        "diagonal_scatter": [(big, v)], "select_scatter": [(big, v, 0, 1)], "ger": [(v, v)],
        "index_put": [(big, (row,), big[:2])], "index_put_": [(big, (row,), big[:2], True)],
        "index_reduce": [(big, 0, row, big[:2], "prod")], "index_reduce_": [(big, 0, row, big[:2], "amax")],
        "lu_solve": [(big, big, xp.astype(xp.asarray([1, 2, 3], device=big.device), xp.int32))],
        "mvlgamma": [(big, 2)], "mvlgamma_": [(big, 2)], "new_empty_strided": [(big, (2,), (1,))],
        "put": [(big, row, big[0, :2])], "put_": [(big, row, big[0, :2], True)],
        "renorm": [(big, 2, 0, 1.0)], "renorm_": [(big, 2, 0, 1.0)], "split_with_sizes": [(big, [1, 2])],
        "geometric_": [(big, 0.5)], "triangular_solve": [(big, big)], "unsafe_chunk": [(big, 3)], "unsafe_split": [(big, 1)],
        # (strided/torch/_tensor_methods.py: PyTorch's Tensor methods of strided.torch's functions)
        "addcdiv": [(big, big, big)], "addcmul": [(big, big, big)], "addmm_": [(big, big, big)],
        "addmv": [(v, big, v)], "addmv_": [(v, big, v)], "addr": [(big, v, v)], "addr_": [(big, v, v)],
        "baddbmm_": [(b3, b3, b3)], "bincount": [(ints[0],), (ints[0], v)], "dsplit": [(b3, 3)],
        "hsplit": [(big, 3)], "vsplit": [(big, 3)], "tensor_split": [(big, 2)],
        "float_power_": [(xp.astype(big, xp.float64), 2.0)], "is_nonzero": [(one,)], "kthvalue": [(big, 2)],
        "logcumsumexp": [(big, 1)], "multinomial": [(cpu(np.array([3e38, 1e38], np.float32)), 1)],
        "mv": [(big, v)], "nanquantile": [(big, 0.5)], "polygamma_": [(big, 1)], "select": [(big, 0, 1)],
        "take_along_dim": [(big, row)], "vdot": [(v, v)],
        # (strided/torch/_math_names.py)
        "orgqr": [(big, v)], "ormqr": [(big, v, big), (big, v, big, False, True)],
        "unsafe_split_with_sizes": [(big, [1, 2])],
        # (strided/torch/_more_methods.py)
        "apply_": [(big, float)], "map_": [(big, big, max)], "map2_": [(big, big, big, max)],
        "stft": [(v, 2, 1, None, xp.ones(2, device=big.device), True, "reflect", False, None, True)],
        "istft": [(v.stft(2, 1, None, xp.ones(2, device=big.device), return_complex=True), 2, 1, None,
                   xp.ones(2, device=big.device))],
        "resize_": [(big, 3, 3)], "resize_as_": [(big, big)], "as_strided_": [(big, (3, 3), (3, 1), 0)],
    })
    return out


def test_no_method_or_operator_reports_a_numpy_warning():
    names = sorted({n for n in dir(xp.Array) if not n.startswith("_")} | set(_OPERATORS))
    own = _own_method_inputs()
    bad, never = {}, []
    for name in names:
        if isinstance(inspect.getattr_static(xp.Array, name, None), property) or name in _METHODS_NOT_CALLED:
            continue  # an attribute: nothing to call

        def call(x, *rest, name=name):
            target = xp.asarray(x, copy=True)  # a fresh array: in-place methods are fine
            if name == "__setitem__":
                return target.__setitem__(slice(None), *rest[:1])
            return getattr(target, name)(*rest)
        w, ran = _numpy_fp_warnings(call)
        if name in own:
            w2, ran2 = _numpy_fp_warnings(call, own[name])
            assert ran2 == len(own[name]), f"{name}: its own arguments don't fit"
            w, ran = w + w2, ran + ran2
        if w:
            bad[name] = w
        if not ran:
            never.append(name)
    assert not bad, bad
    assert not never, f"add arguments to _own_method_inputs() for {never}"


def test_matmul_operator_is_quiet_on_both_paths():
    # The review's case: ``a @ b`` without the C extension missed the quiet state.
    a = cpu(np.full((4, 4), 3e38, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = host(a @ a)
        a @= a
    assert np.isinf(r).all() and np.isinf(host(a)).all()


def test_user_numpy_code_still_warns_after_strided_calls():
    x = cpu(np.array([1e38], np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x @ cpu(np.array([1e38], np.float32))
        with pytest.raises(RuntimeWarning):
            np.array([1e38], np.float32) * np.float32(1e38)


# --- 7. a bool is never an axis ------------------------------------------------------------

_x3 = None


def _x():
    global _x3
    if _x3 is None:
        _x3 = cpu(np.arange(24.0).reshape(2, 3, 4))
    return _x3


AXIS_CALLS = {
    "sum(axis=True)": lambda: xp.sum(_x(), axis=True),
    "sum(axis=(0, True))": lambda: xp.sum(_x(), axis=(0, True)),
    "mean(axis=False)": lambda: xp.mean(_x(), axis=False),
    "max(axis=True)": lambda: xp.max(_x(), axis=True),
    "squeeze(axis=False)": lambda: xp.squeeze(cpu(np.ones((1, 3))), axis=False),
    "expand_dims(axis=True)": lambda: xp.expand_dims(_x(), axis=True),
    "moveaxis(True, 0)": lambda: xp.moveaxis(_x(), True, 0),
    "moveaxis(0, False)": lambda: xp.moveaxis(_x(), 0, False),
    "flip(axis=True)": lambda: xp.flip(_x(), axis=True),
    "roll(axis=True)": lambda: xp.roll(_x(), 1, axis=True),
    "concat(axis=True)": lambda: xp.concat([_x(), _x()], axis=True),
    "stack(axis=False)": lambda: xp.stack([_x(), _x()], axis=False),
    "argmax(axis=True)": lambda: xp.argmax(_x(), axis=True),
    "sort(axis=True)": lambda: xp.sort(_x(), axis=True),
    "cumulative_sum(axis=True)": lambda: xp.cumulative_sum(_x(), axis=True),
    "take(axis=True)": lambda: xp.take(_x(), cpu(np.array([0])), axis=True),
    "diff(axis=True)": lambda: xp.diff(_x(), axis=True),
    "fft.fft(axis=True)": lambda: strided.fft.fft(_x(), axis=True),
    "vector_norm(axis=True)": lambda: strided.linalg.vector_norm(_x(), axis=True),
    "x.sum(dim=True)": lambda: _x().sum(dim=True),
    "x.flip(True)": lambda: _x().flip(True),
    "x.transpose(True, 0)": lambda: _x().transpose(True, 0),
    "x.unsqueeze(True)": lambda: _x().unsqueeze(True),
    "x.movedim(True, 0)": lambda: _x().movedim(True, 0),
    "x.size(True)": lambda: _x().size(True),
}


@pytest.mark.parametrize("name", sorted(AXIS_CALLS))
def test_a_bool_is_never_an_axis(name):
    with pytest.raises(TypeError):
        AXIS_CALLS[name]()


BOOL_KEYS = [True, False, (0, True), (True, 0), (Ellipsis, True), (None, True), (True, True),
             (False, 0), (slice(None), True, 0), (0, slice(None), True), (-1, True),
             (True, Ellipsis, -1), (slice(None, None, -1), True), np.True_, np.bool_(False)]


@pytest.mark.parametrize("key", BOOL_KEYS, ids=repr)
def test_indexing_with_bools_is_numpys(key):
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(host(cpu(a)[key]), a[key])


# --- 8. Python ints beyond int64 in asarray ---------------------------------------------------

BIG_INT_LISTS = [[2**63], [2**64], [-2**63 - 1], [2**63, -1], [[1], [2**63]], [True, 2**63],
                 [2**100, 3]]
MIXED_LISTS = [[2**63, 1.5], [1.5, 2**64], [-2**63 - 1, 0.25], [[2**70], [1.0]]]


@pytest.mark.parametrize("data", BIG_INT_LISTS, ids=str)
def test_ints_beyond_int64_are_refused_as_pytorch_refuses_them(data):
    torch = pytest.importorskip("torch")
    with pytest.raises((ValueError, OverflowError, RuntimeError)):  # torch: "Overflow when unpacking"
        torch.tensor(data)
    with pytest.raises(OverflowError, match=str(next(v for v in np.ravel(np.array(data, dtype=object))
                                                     if type(v) is int and not -2**63 <= v < 2**63))):
        xp.asarray(data)


@pytest.mark.parametrize("data", MIXED_LISTS, ids=str)
def test_ints_beyond_int64_among_floats_are_floats_as_in_pytorch(data):
    torch = pytest.importorskip("torch")
    want = torch.tensor(data)
    got = xp.asarray(data, device="cpu")
    assert str(got.dtype) == str(want.dtype).replace("torch.", "")
    np.testing.assert_array_equal(host(got), want.numpy())


@pytest.mark.parametrize("data,dtype", [([2**63], "uint64"), ([2**64], "uint64"), ([-1], "uint64"),
                                        ([2**64], "float64"), ([2**63, 5], "float32"),
                                        ([2**63], "int64"), ([300], "int8"), ([2**64, 1], "int64")],
                         ids=str)
def test_ints_beyond_int64_with_a_dtype_are_pytorchs(data, dtype):
    torch = pytest.importorskip("torch")
    try:
        want = torch.tensor(data, dtype=getattr(torch, dtype)).numpy()
    except (OverflowError, RuntimeError, ValueError, TypeError):
        want = None
    if want is None:
        with pytest.raises(OverflowError):
            xp.asarray(data, dtype=getattr(xp, dtype))
    else:
        np.testing.assert_array_equal(host(xp.asarray(data, dtype=getattr(xp, dtype), device="cpu")), want)


# --- 9. HDF5 datasets indexed with bools -------------------------------------------------------

HDF5_KEYS = BOOL_KEYS + [(0, True, slice(1, None), 2), ([0, 1], True), (True, [1, 0]), np.array(True),
                         (True, np.array([[True, False, True], [False, True, True]])),
                         1, (0, 1), (slice(None), 1)]


@pytest.mark.parametrize("key", HDF5_KEYS, ids=repr)
def test_hdf5_dataset_indexes_as_numpy(key, tmp_path):
    h5py = pytest.importorskip("h5py")
    a = np.arange(24.0).reshape(2, 3, 4)
    with h5py.File(tmp_path / "d.h5", "w") as f:
        f["x"] = a
        f["s"] = np.float64(7.0)
    with xp.io.open_hdf5(tmp_path / "d.h5") as f:
        np.testing.assert_array_equal(host(f["x"][key]), a[key])
        if not isinstance(key, tuple) and _is_bool(key):  # a 0-d dataset takes a bool too
            np.testing.assert_array_equal(host(f["s"][key]), np.float64(7.0).reshape(())[key])


def test_hdf5_bool_out_of_range_int_is_numpys_error(tmp_path):
    h5py = pytest.importorskip("h5py")
    with h5py.File(tmp_path / "d.h5", "w") as f:
        f["x"] = np.zeros((2, 3))
    with xp.io.open_hdf5(tmp_path / "d.h5") as f:
        with pytest.raises(IndexError):
            f["x"][5, True]
        with pytest.raises(IndexError):
            f["x"][True, 0, 0, 0]


def _is_bool(k):
    return isinstance(k, (bool, np.bool_)) or (isinstance(k, np.ndarray) and k.dtype == bool and k.ndim == 0)


# The five places the review's files did not cover (the permute layout cache, the compiled
# permute, gather, vecdot, the squeeze method): NumPy and PyTorch refuse a bool axis there too.
BOOL_AXES_ELSEWHERE = {
    "permute_dims after (1, 0, 2)": lambda: (xp.permute_dims(_x(), (1, 0, 2)),
                                             xp.permute_dims(_x(), (1, False, 2))),
    "x.permute(1, False, 2)": lambda: _x().permute(1, False, 2),
    "gather(dim=True)": lambda: xp.gather(_x(), True, cpu(np.zeros((2, 3, 4), np.int64))),
    "vecdot(axis=True)": lambda: xp.vecdot(_x(), _x(), axis=True),
    "x.squeeze(False)": lambda: _x().squeeze(False),
}


@pytest.mark.parametrize("name", sorted(BOOL_AXES_ELSEWHERE))
def test_a_bool_is_never_an_axis_anywhere(name):
    with pytest.raises(TypeError):
        BOOL_AXES_ELSEWHERE[name]()
