"""The C thread pool (strided/_csrc/_ckernels.c through strided/_core/threads.py).

Large elementwise operations and whole-array reductions on C-contiguous
float32/float64 arrays run on a pool of pthreads in C. These tests shrink the
thresholds and the chunk size so that small arrays are cut into many chunks,
and compare with NumPy on the same inputs: bit for bit for the elementwise
operations (NaN positions only where two NaNs meet: NumPy itself does not fix
which NaN an addition of two returns), bit for bit with the one-thread sum for
sums (and within the pairwise bound of math.fsum), NumPy's values for max/min.
Everything here also runs with STRIDED_NO_CEXT=1 (the Python pool serves
then); the tests of the C functions themselves skip there.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided._core import cfast as _cfast
from strided._core import threads as _threads

from conftest import bits, cpu, host, run_concurrently

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

C = _cfast._ckernels if _cfast.AVAILABLE else None
needs_c = pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")


@pytest.fixture(autouse=True)
def _small_chunks():
    thr, nt, tthr = st.get_pool_threshold(), st.get_num_threads(), st.get_thread_threshold()
    cfg = C.pool_config() if C is not None else None
    st.set_pool_threshold(64)
    st.set_thread_threshold(64)
    if C is not None:
        C.pool_config(-1, 64)  # 64-byte chunks: a few hundred elements make many chunks
    yield
    st.set_pool_threshold(thr)
    st.set_num_threads(nt)
    st.set_thread_threshold(tthr)
    if C is not None:
        C.pool_config(cfg[0], cfg[1])


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 5e-324, 1.0, -1.0, 3e38, 1e308]


def _operands(n, dtype, seed, special):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 10).astype(dtype)
    b = (rng.standard_normal(n) * 10).astype(dtype)
    if special and n:
        with np.errstate(over="ignore"):
            sp = np.asarray(SPECIAL).astype(dtype)
        a[rng.integers(0, n, n // 3 + 1)] = rng.choice(sp, n // 3 + 1)
        b[rng.integers(0, n, n // 3 + 1)] = rng.choice(sp, n // 3 + 1)
    return a, b


def assert_same(got, want):
    """Bit for bit, except where NumPy itself does not fix the NaN (a NaN result)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(bits(got)[~nan], bits(want)[~nan])


BINARY = [(st.add, np.add), (st.subtract, np.subtract), (st.multiply, np.multiply),
          (st.divide, np.divide), (st.maximum, np.maximum), (st.minimum, np.minimum)]


@settings(max_examples=60, deadline=None)
@given(n=hs.integers(1, 3000), dtype=hs.sampled_from(["float32", "float64"]),
       nt=hs.integers(1, 4), special=hs.booleans(), seed=hs.integers(0, 2**16))
def test_binary_ops_are_numpys_bit_for_bit(n, dtype, nt, special, seed):
    st.set_num_threads(nt)
    a, b = _operands(n, dtype, seed, special)
    sa, sb = cpu(a), cpu(b)
    with np.errstate(all="ignore"):
        for sf, nf in BINARY:
            assert_same(host(sf(sa, sb)), nf(a, b))


SCALARS = [0.0, -0.0, 2.5, -1e-3, 1e300, -1e-320, float("nan"), float("inf"), 3, -7, 2**53 + 1,
           2**70, 16777217, 1e38 * 4]


@settings(max_examples=60, deadline=None)
@given(n=hs.integers(1, 3000), dtype=hs.sampled_from(["float32", "float64"]),
       nt=hs.integers(1, 4), seed=hs.integers(0, 2**16), s=hs.sampled_from(SCALARS),
       left=hs.booleans())
def test_ops_with_a_python_scalar_are_numpys(n, dtype, nt, seed, s, left):
    st.set_num_threads(nt)
    a, _ = _operands(n, dtype, seed, True)
    sa = cpu(a)
    with np.errstate(all="ignore"):
        for sf, nf in BINARY:
            want = nf(s, a) if left else nf(a, s)  # NumPy 2: the Python scalar is "weak"
            assert_same(host(sf(s, sa) if left else sf(sa, s)), want)
        # and as operators, with an elided temporary on the array side
        assert_same(host(sa * 1.0 + s), (a * 1.0) + s)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [63, 64, 65, 127, 128, 129, 64 * 8 - 1, 64 * 8, 64 * 8 + 1, 4095, 4096, 4097])
def test_sizes_around_chunk_boundaries(dtype, n):
    a, b = _operands(n, dtype, n, True)
    for nt in (2, 3, 4):
        st.set_num_threads(nt)
        with np.errstate(all="ignore"):
            for sf, nf in BINARY:
                assert_same(host(sf(cpu(a), cpu(b))), nf(a, b))
            assert_same(host(st.exp(cpu(a))), np.exp(a))


def test_signed_zeros_and_nans_of_maximum_minimum():
    st.set_num_threads(2)
    for dtype in ("float32", "float64"):
        z = np.zeros(1000, dtype)
        a, b = z.copy(), z.copy()
        a[::2] = -0.0
        b[1::3] = -0.0
        a[5::17] = np.nan
        b[7::13] = -np.nan
        for sf, nf in ((st.maximum, np.maximum), (st.minimum, np.minimum)):
            for x, y in ((a, b), (b, a)):
                got, want = host(sf(cpu(x), cpu(y))), nf(x, y)
                np.testing.assert_array_equal(bits(got), bits(want))  # NaN signs included


UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "sin", "cos", "tan",
         "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
         "negative", "absolute", "square", "reciprocal", "floor", "ceil", "trunc", "rint"]
_ST_NAMES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
             "arccosh": "acosh", "arctanh": "atanh", "absolute": "abs", "rint": "round"}


@settings(max_examples=40, deadline=None)
@given(n=hs.integers(1, 2000), dtype=hs.sampled_from(["float32", "float64"]),
       nt=hs.integers(2, 4), seed=hs.integers(0, 2**16), special=hs.booleans())
def test_numpy_loops_per_chunk_give_numpys_values(n, dtype, nt, seed, special):
    st.set_num_threads(nt)
    a, _ = _operands(n, dtype, seed, special)
    with np.errstate(all="ignore"):
        for name in UNARY:
            sf = getattr(st, _ST_NAMES.get(name, name), None)
            if sf is None:
                continue
            want = getattr(np, name)(a)
            if name == "reciprocal":
                want = np.divide(np.asarray(1, dtype), a)
            assert_same(host(sf(cpu(a))), want)


@needs_c
@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_listed_loop_is_numpys_across_chunks(name, dtype):
    # The C function directly, for the ufuncs strided reaches through other rows too.
    uf = getattr(np, name)
    info = _threads._loop_info(uf, np.dtype(dtype))
    assert info is not None, f"NumPy handed out no loop for {name} {dtype}"
    for n in (1, 17, 1000, 4099):
        a, _ = _operands(n, dtype, n, True)
        out = np.empty_like(a)
        assert C.ew_loop(info, (a,), out, 3)
        with np.errstate(all="ignore"):
            assert_same(out, uf(a))


@settings(max_examples=40, deadline=None)
@given(n=hs.integers(129, 20000), dtype=hs.sampled_from(["float32", "float64"]),
       seed=hs.integers(0, 2**16), scale=hs.sampled_from([1.0, 1e-3, 1e6]))
def test_threaded_sum_is_the_one_thread_sum_bit_for_bit(n, dtype, seed, scale):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * scale + scale).astype(dtype)
    st.set_num_threads(1)
    one = host(st.sum(cpu(a)))
    exact = math.fsum(a.astype(np.float64).tolist())
    # The pairwise bound (as tests/_api/test_reduction_accuracy.py): NumPy's own error, a little slack.
    bound = abs(float(np.sum(a)) - exact) + 4 * float(np.spacing(np.asarray(exact, dtype)))
    for nt in (2, 3, 4):
        st.set_num_threads(nt)
        many = host(st.sum(cpu(a)))
        assert many.dtype == a.dtype
        if C is not None:
            np.testing.assert_array_equal(bits(many), bits(one))
        assert abs(float(many) - exact) <= bound + abs(float(one) - exact)
        np.testing.assert_allclose(host(st.mean(cpu(a))), np.mean(a), rtol=1e-5 if dtype == "float32" else 1e-12)


@settings(max_examples=40, deadline=None)
@given(n=hs.integers(1, 5000), dtype=hs.sampled_from(["float32", "float64"]),
       nt=hs.integers(2, 4), seed=hs.integers(0, 2**16),
       extra=hs.sampled_from([None, "nan", "zeros", "negzeros", "inf"]))
def test_threaded_max_min_are_numpys(n, dtype, nt, seed, extra):
    st.set_num_threads(nt)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(dtype)
    if extra == "nan":
        a[rng.integers(0, n)] = np.nan
    elif extra == "zeros":
        a[:] = 0.0
        a[rng.integers(0, n, n // 2 + 1)] = -0.0
    elif extra == "negzeros":
        a = -np.abs(a)
        a[rng.integers(0, n)] = -0.0
    elif extra == "inf":
        a[rng.integers(0, n)] = -np.inf
    for sf, nf in ((st.max, np.max), (st.min, np.min)):
        got, want = host(sf(cpu(a))), nf(a)
        assert got.dtype == a.dtype and got.shape == ()
        np.testing.assert_array_equal(bits(got), bits(np.asarray(want)))
        got = host(sf(cpu(a.reshape(1, -1)), keepdims=True))
        assert got.shape == (1, 1)


def test_non_contiguous_broadcast_and_mixed_inputs_take_the_old_path():
    st.set_num_threads(3)
    rng = np.random.default_rng(9)
    a = rng.standard_normal((60, 70)).astype(np.float32)
    b = rng.standard_normal((60, 70)).astype(np.float64)
    row = rng.standard_normal(70).astype(np.float32)
    cases = [(lambda x: x[:, ::2] + x[:, 1::2], lambda x: x[:, ::2] + x[:, 1::2]),
             (lambda x: x.T * x.T, lambda x: x.T * x.T)]
    for sf, nf in cases:
        assert_same(host(sf(cpu(a))), nf(a))
    assert_same(host(cpu(a) + cpu(row)), a + row)  # broadcast
    assert_same(host(cpu(a) - cpu(b)), a - b)  # mixed dtypes: promoted
    assert_same(host(cpu(a) * 2.5), a * np.float32(2.5))  # a scalar
    assert_same(host(st.exp(cpu(a)[::3])), np.exp(a[::3]))  # a strided view
    assert_same(host(st.sum(cpu(a)[:, ::7])), np.asarray(np.sum(a[:, ::7], dtype=np.float32)))


def test_temporary_elision_writes_through_the_pool():
    st.set_num_threads(2)
    rng = np.random.default_rng(4)
    a, b, c = (rng.standard_normal(5000).astype(np.float32) for _ in range(3))
    sa, sb, sc = cpu(a), cpu(b), cpu(c)
    assert_same(host(sa * sb + sc), a * b + c)
    assert_same(host(st.add(st.multiply(sa, sb), sc)), a * b + c)
    assert_same(host(sc - sa * sb), c - a * b)
    assert_same(host(st.maximum(sa * sb, sc)), np.maximum(a * b, c))


def test_thread_counts_one_to_four_agree():
    rng = np.random.default_rng(2)
    a, b = _operands(100_000, "float64", 2, True)
    ref = None
    for nt in (1, 2, 3, 4):
        st.set_num_threads(nt)
        assert st.get_num_threads() == nt
        with np.errstate(all="ignore"):
            got = [host(cpu(a) / cpu(b)), host(st.exp(cpu(a))), host(st.sum(cpu(np.abs(b[b == b]))))]
        if ref is None:
            ref = got
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(bits(g), bits(r))


@needs_c
def test_c_functions_refuse_what_they_do_not_take():
    f4 = np.ones(100, np.float32)
    f8 = np.ones(100, np.float64)
    out = np.empty(100, np.float32)
    assert C.ew_binary(0, f4, f8, out, 2) is False  # mixed dtypes
    assert C.ew_binary(0, f4, f4[:50], out, 2) is False  # sizes
    assert C.ew_binary(0, f4[::2], f4[::2], out[:50], 2) is False  # not contiguous
    assert C.ew_binary(0, f4, "2.0", out, 2) is False  # not a buffer
    assert C.ew_binary(4, f4, 2.0, out, 2) is False  # maximum with a scalar: NumPy's own loop
    assert C.ew_binary(0, f4, True, out, 2) is False  # a bool is no "weak" float
    assert C.ew_binary(0, f4, 2**60, out, 2) is False  # would round twice
    assert C.ew_binary(0, f4, 1e300, out, 2) is False  # overflows float32: NumPy decides
    assert C.ew_binary(0, 2.0, 3.0, out, 2) is False  # two scalars
    assert C.ew_binary(0, f4, f4, np.ones(100, np.float32)[::1].view(np.int32), 2) is False
    big = np.ones(200, np.float32)
    assert C.ew_binary(0, big[:100], big[:100], big[50:150], 2) is False  # partial overlap
    assert C.ew_binary(0, np.ones(100, np.int32), np.ones(100, np.int32), np.empty(100, np.int32), 2) is False
    ro = np.ones(100, np.float32)
    ro.flags.writeable = False
    assert C.ew_binary(0, f4, f4, ro, 2) is False
    with pytest.raises(ValueError, match="op must be"):
        C.ew_binary(9, f4, f4, out, 2)
    with pytest.raises(TypeError, match="5 arguments"):
        C.ew_binary(0, f4, f4)
    with pytest.raises(TypeError, match="capsule"):
        C.ew_loop(object(), (f4,), out, 2)
    assert C.sum_all(np.ones(100, np.int64), 2) is None
    assert C.sum_all(np.ones(10, np.float32), 2) is None  # small sums: the hot path's
    assert C.extremum_all(np.ones(0, np.float32), True, 2) is None
    assert C.extremum_all(f8[::2], True, 2) is None


@needs_c
def test_many_python_threads_share_the_pool():
    # A second caller that finds the pool busy runs its job alone: no deadlock, same values.
    st.set_num_threads(2)
    a, b = _operands(50_000, "float32", 1, False)
    want = a * b

    def work():
        for _ in range(20):
            np.testing.assert_array_equal(host(cpu(a) * cpu(b)), want)

    run_concurrently(work)


def test_forked_child_recreates_the_pool_and_computes():
    import multiprocessing as mp
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    st.set_num_threads(2)
    a, b = _operands(200_000, "float32", 3, False)
    assert_same(host(cpu(a) + cpu(b)), a + b)  # the parent's crew is running
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as p:
        workers_before, got, s, m = p.apply_async(_child_work, (a, b)).get(timeout=120)  # a hang is the bug
    if C is not None:
        assert workers_before == 0  # the child starts with no crew and builds its own
    assert_same(got, a + b)
    assert s == float(host(st.sum(cpu(a))))
    assert m == float(np.max(a))


def _child_work(a, b):
    before = C.pool_config()[2] if C is not None else 0
    st.set_num_threads(2)
    got = host(cpu(a) + cpu(b))
    return before, got, float(host(st.sum(cpu(a)))), float(host(st.max(cpu(a))))


class _Counting:
    """The C module with a count of the calls that took the pool (returned True / a value)."""

    def __init__(self, mod):
        self.mod, self.taken = mod, []

    def __getattr__(self, name):
        f = getattr(self.mod, name)

        def call(*args):
            r = f(*args)
            if r is not False and r is not None:
                self.taken.append(name)
            return r
        return call


@needs_c
def test_the_c_pool_serves_the_cases_it_claims(monkeypatch):
    proxy = _Counting(C)
    monkeypatch.setattr(_threads, "_CK", proxy)
    st.set_num_threads(2)
    a, b = _operands(10_000, "float32", 5, False)
    sa, sb = cpu(a), cpu(b)
    _ = sa + sb, st.maximum(sa, sb), st.exp(sa), st.sum(sa), st.max(sa), st.min(sb)
    _ = sa * sb + sb  # the multiply, then the elided add
    _ = 2.0 - sa, sa * 3  # Python scalars
    assert proxy.taken == ["ew_binary", "ew_binary", "ew_loop", "reduce", "reduce",
                           "reduce", "ew_binary", "ew_binary", "ew_binary", "ew_binary"]
    proxy.taken.clear()
    st.set_num_threads(1)  # one thread: no pool at all (the C reductions run on this thread)
    chunks_before = C.pool_config()[3]
    _ = sa + sb, st.exp(sa), st.sum(sa), st.max(sa), sa * sb + sb
    assert [t for t in proxy.taken if t != "reduce"] == []
    assert C.pool_config()[3] == chunks_before


def test_fork_while_another_thread_is_inside_the_pool():
    # The fork may land while a job holds the pool's locks: the child must not deadlock.
    import multiprocessing as mp
    import threading
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    st.set_num_threads(2)
    a, b = _operands(100_000, "float64", 8, False)
    stop = threading.Event()

    def hammer():
        x, y = cpu(a), cpu(b)
        while not stop.is_set():
            _ = x * y
            _ = st.sum(x)
    t = threading.Thread(target=hammer)
    t.start()
    try:
        ctx = mp.get_context("fork")
        for _ in range(3):
            with ctx.Pool(1) as p:
                _, got, s, m = p.apply_async(_child_work, (a, b)).get(timeout=120)  # a hang is the bug
            assert_same(got, a + b)
            assert m == float(np.max(a))
    finally:
        stop.set()
        t.join()


@needs_c
def test_a_back_off_runs_the_same_chunks_on_the_caller_alone():
    # A stall (a worker losing its core mid-chunk) starts a back-off: the following jobs run
    # their chunks on the caller alone. The chunks are the same, so the bits are; no worker
    # runs any of them. pool_config's fourth argument starts one as a stall does.
    st.set_num_threads(2)
    a, b = _operands(20_000, np.float32, 11, special=True)
    m = a.reshape(200, 100)

    def work():
        x, y = cpu(a), cpu(b)
        return host(x + y), float(host(st.sum(x))), host(st.sum(cpu(m), axis=0)), float(host(st.max(x)))

    on_crew = work()
    try:
        cfg = C.pool_config(-1, -1, -1, 10**10)  # ten seconds
        assert cfg[6] > 0
        ran_before = cfg[3]
        alone = work()
        assert C.pool_config()[3] == ran_before  # the workers ran nothing
        assert C.pool_config()[6] > 0
    finally:
        C.pool_config(-1, -1, -1, 0)
    assert C.pool_config()[6] == 0
    for got, want in zip(alone, on_crew):
        if isinstance(got, float):
            assert bits(np.float64(got)) == bits(np.float64(want))
        else:
            assert_same(got, want)
    with np.errstate(over="ignore", invalid="ignore"):
        assert_same(alone[0], a + b)
        assert_same(alone[2], np.sum(m, axis=0))


@needs_c
def test_pool_config_names_its_settings_and_refuses_extra_arguments():
    cfg = C.pool_config()
    assert len(cfg) == 8 and cfg[4] >= 0 and cfg[5] >= 0 and cfg[7] >= 0
    with pytest.raises(TypeError, match="pool_config"):
        C.pool_config(-1, -1, -1, -1, -1, -1)
