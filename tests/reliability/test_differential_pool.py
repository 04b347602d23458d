"""The buffer pool in C against its Python definition and against no pool at all.

Hypothesis writes small programs whose temporaries are large (above the pool's
threshold, lowered here, and above temporary elision's 256 KiB): chains of
operators and namespace functions (``a * b + c``, ``add(multiply(a, b), c)``,
``maximum(...) * (a > b)``), scalars, unary functions, in-place operators on
results, views that keep a pooled block alive, and ``del``. Inputs hold NaNs
with payloads, infinities and signed zeros. Each program runs three ways:

- here, with the C pool (strided/_csrc/_cpool.c);
- in a worker started with ``STRIDED_NO_CEXT=_cpool`` (everything else compiled
  as here): the Python pool, strided/_core/pool.py;
- here again with the pool off (threshold above every size: NumPy's allocator).

The runs must agree bit for bit on every value, dtype and shape. In each run
every array the program holds (its inputs, each value it bound) must be
unchanged when each statement ends, and the pool's accounting must be exact
after each: ``cached_bytes`` never above the limit and equal to what the
cache holds, and once the program's arrays are gone, ``allocated_bytes`` back
where it started. The programs also run on 3 threads at once (each on its own
inputs, the thread pool splitting large operations too), with the same checks.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strided as xp
from strided._core import pool as _pool

try:
    from . import _worker
except ImportError:  # imported by its plain name, in the worker process
    import _worker

# The compiled paths under test serve CPU arrays (on another device they decline at once):
# with another default device (the cuda stand-in run) there is nothing of theirs to compare.
pytestmark = pytest.mark.skipif(str(xp.asarray(0).device) != "cpu", reason="the C pool serves CPU arrays")

N = {"float32": 70_000, "float64": 40_000}  # 280 and 320 KB: pooled and elided
THRESHOLD = 4096  # the pool serves every result of these programs (bool ones too)


# --- the programs ---------------------------------------------------------------------

def _inputs(seed: int, dtype: str):
    """Three arrays with NaN payloads, infinities and signed zeros sprinkled in."""
    rng = np.random.default_rng(seed)
    n = N[dtype]
    out = []
    for _ in range(3):
        a = rng.uniform(-3.0, 3.0, n).astype(dtype)
        bits = a.view(np.uint32 if dtype == "float32" else np.uint64)
        idx = rng.integers(0, n, 40)
        nan = np.array(np.nan, dtype).view(bits.dtype)
        bits[idx[:10]] = nan | rng.integers(1, 1 << 20, 10).astype(bits.dtype)  # payloads
        a[idx[10:20]] = np.inf
        a[idx[20:30]] = -0.0
        a[idx[30:]] = -np.inf
        out.append(a)
    return out


def _expr(draw, names, depth):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(names))
    kind = draw(st.integers(0, 6))
    left = _expr(draw, names, depth - 1)
    if kind == 0:
        op = draw(st.sampled_from(["+", "-", "*", "/"]))
        return f"({left} {op} {_expr(draw, names, depth - 1)})"
    if kind == 1:
        fn = draw(st.sampled_from(["add", "subtract", "multiply", "maximum", "minimum"]))
        return f"xp.{fn}({left}, {_expr(draw, names, depth - 1)})"
    if kind == 2:
        return draw(st.sampled_from([f"({left} * 0.5)", f"(2.0 - {left})", f"(-{left})", f"({left} + 1)"]))
    if kind == 3:
        return f"xp.{draw(st.sampled_from(['exp', 'sqrt', 'abs', 'negative']))}({left})"
    if kind == 4:  # a mask: a pooled bool temporary, then a float one times it
        return f"({left} * ({_expr(draw, names, depth - 1)} > {draw(st.sampled_from(names))}))"
    if kind == 5:
        return f"xp.where({left} > 0, {left}, {_expr(draw, names, depth - 1)})"
    return f"xp.sum({left}) * {left}"  # a 0-d result times a large one


@st.composite
def programs(draw):
    dtype = draw(st.sampled_from(["float32", "float64"]))
    names = ["x0", "x1", "x2"]
    bound = []
    mutable = []  # results that nothing else aliases: the targets of in-place operators
    lines = []
    for i in range(draw(st.integers(1, 6))):
        kind = draw(st.integers(0, 5))
        if kind == 3 and mutable:
            lines.append(f"{draw(st.sampled_from(mutable))} += {_expr(draw, names, 2)}")
        elif kind == 4 and bound:
            v = draw(st.sampled_from(bound))
            # a view keeps its block alive; held to the end, never an operand (other shapes)
            lines.append(f"w{i} = {v}[{draw(st.sampled_from(['::2', '1:', '::-3']))}]")
            if v in mutable:
                mutable.remove(v)
        elif kind == 5 and bound:
            v = draw(st.sampled_from(bound))
            lines.append(f"del {v}")
            bound.remove(v)
            if v in mutable:
                mutable.remove(v)
        else:
            e = _expr(draw, names + bound, 3)
            lines.append(f"v{i} = {e}")
            bound.append(f"v{i}")
            if e in mutable:  # a bare name: an alias
                mutable.remove(e)
            elif e not in names + bound:
                mutable.append(f"v{i}")
    limit = draw(st.sampled_from([0, 300_000, 1 << 20, 64 << 20]))
    return {"dtype": dtype, "seed": draw(st.integers(0, 2**16)), "lines": lines, "limit": limit}


# --- one run (here, or in the worker) ------------------------------------------------

def _raw(a) -> tuple:
    n = np.asarray(a)
    return (n.dtype.str, n.shape, np.ascontiguousarray(n).tobytes())


def _check_accounting(limit: int, where: str) -> None:
    s = xp.memory_stats()
    assert s["cached_bytes"] <= limit, (where, s)
    assert s["cached_bytes"] == sum(_pool._cached_sizes()), (where, s)


def run(prog: dict, pool: bool = True) -> list:
    """The program's values, in order (each bound value when bound, and all of them at
    the end), as (dtype, shape, bytes); asserts the held arrays and the accounting."""
    old = (xp.get_pool_threshold(), xp.get_cache_limit())
    xp.set_pool_threshold(THRESHOLD if pool else 1 << 62)
    xp.set_cache_limit(prog["limit"])
    try:
        gc.collect()
        start = xp.memory_stats()["allocated_bytes"]
        out = _run_lines(prog)
        gc.collect()
        _check_accounting(prog["limit"], "end")
        if pool:
            assert xp.memory_stats()["allocated_bytes"] == start, "a block was not returned"
        return out
    finally:
        xp.set_pool_threshold(old[0])
        xp.set_cache_limit(old[1])


def _run_lines(prog: dict) -> list:
    ns = {"xp": xp}
    for i, a in enumerate(_inputs(prog["seed"], prog["dtype"])):
        ns[f"x{i}"] = xp.asarray(a)
    out = []
    held = {k: _raw(v) for k, v in ns.items() if k != "xp"}
    with np.errstate(all="ignore"):
        for line in prog["lines"]:
            exec(line, ns)
            target = line.split()[0]
            if line.startswith("del "):
                held.pop(line.split()[1])
            else:  # a new value, or one the line wrote in place (nothing else aliases it)
                held[target] = _raw(ns[target])
                out.append((line, held[target]))
            for k, want in held.items():  # every array the program holds is as it was
                assert _raw(ns[k]) == want, f"{k} changed by {line!r}"
            _check_accounting(prog["limit"], line)
    out += sorted(held.items())
    return out


def run_threads(prog: dict, nthreads: int = 3) -> list:
    """The program on ``nthreads`` threads at once (the thread pool splitting too): each
    thread's values, which must all equal one run's."""
    old = (xp.get_num_threads(), xp.get_thread_threshold(), xp.get_pool_threshold(), xp.get_cache_limit())
    xp.set_num_threads(2)
    xp.set_thread_threshold(65536)
    xp.set_pool_threshold(THRESHOLD)
    xp.set_cache_limit(prog["limit"])
    results, errors = [None] * nthreads, []
    gc.collect()
    start = xp.memory_stats()["allocated_bytes"]

    def work(i):
        try:
            results[i] = _run_lines(prog)
        except BaseException as e:  # reported by the caller
            errors.append(e)
    try:
        ts = [threading.Thread(target=work, args=(i,)) for i in range(nthreads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        if errors:
            raise errors[0]
        gc.collect()
        _check_accounting(prog["limit"], "end")
        assert xp.memory_stats()["allocated_bytes"] == start, "a block was not returned"
    finally:
        xp.set_num_threads(old[0])
        xp.set_thread_threshold(old[1])
        xp.set_pool_threshold(old[2])
        xp.set_cache_limit(old[3])
    return results


# --- the Python pool's worker ---------------------------------------------------------

def _handle(prog):  # pragma: no cover - runs in the worker process
    """A program's run there, or the error it raised."""
    try:
        return ("ok", run(prog))
    except BaseException as e:
        return ("error", f"{type(e).__name__}: {e}")


class _Worker(_worker.Worker):
    def __init__(self):
        here = os.path.dirname(os.path.abspath(__file__))
        super().__init__(("-c", f"import sys; sys.path.insert(0, {here!r}); import _worker, "
                                "test_differential_pool as t; _worker.serve(t._handle)"), no_cext="_cpool")
        assert self.call(None) == "python pool", "the worker runs the C pool"

    def call(self, prog):
        if prog is None:  # the handshake: which pool serves there
            prog = {"dtype": "float32", "seed": 0, "lines": [], "limit": 0}
        status, value = self.ask(prog)
        if status != "ok":
            raise AssertionError(f"the Python pool's run failed: {value}")
        return "python pool" if not prog["lines"] else value


@pytest.fixture(autouse=True, scope="module")
def _frozen_heap():
    # Every run collects garbage (a block held by a cycle would read as "not returned"),
    # several times per program; in a test process that has imported the whole suite each
    # full collection walked every object there: this module took 315 s in the full run and
    # 32 s alone. Frozen, the collections walk only what the programs made.
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture(scope="module")
def worker():
    w = _Worker()
    yield w
    w.close()


needs_c = pytest.mark.skipif(_pool._C is None, reason="the C pool is not built (or STRIDED_NO_CEXT)")


@needs_c
def test_the_worker_runs_the_python_pool():
    code = "import strided._core.pool as p; print(p._C is None, p._Block.__module__)"
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, STRIDED_NO_CEXT="_cpool"),
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "strided._core.pool"]


@needs_c
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(prog=programs())
def test_c_pool_python_pool_and_no_pool_agree(worker, prog):
    c_pool = run(prog)
    assert worker.call(prog) == c_pool
    assert run(prog, pool=False) == c_pool


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(prog=programs())
def test_threads_share_the_pool_exactly(prog):
    # Whichever pool serves (the C one, or the Python one under STRIDED_NO_CEXT).
    want = run(prog)
    for got in run_threads(prog):
        assert got == want


def test_the_pool_hands_back_the_block_freed_last():
    # LIFO: of several free blocks of one size, the most recently freed (the one most
    # likely still in cache) serves the next request.
    old = (xp.get_pool_threshold(), xp.get_cache_limit())
    xp.set_pool_threshold(THRESHOLD)
    xp.set_cache_limit(64 << 20)
    try:
        xp.empty_cache()
        a, b, c = (_pool.empty((50_000,), np.dtype(np.float64), 400_000) for _ in range(3))
        addr = b.ctypes.data
        del a, c
        del b  # freed last
        assert _pool.empty((50_000,), np.dtype(np.float64), 400_000).ctypes.data == addr
    finally:
        xp.set_pool_threshold(old[0])
        xp.set_cache_limit(old[1])
        xp.empty_cache()


@needs_c
def test_a_broken_threshold_list_raises_what_python_raises():
    # The C pool reads MIN_BYTES[0] as contract.h declares; anything else there and it
    # compares as Python does (Python's error, no crash).
    old = list(_pool.MIN_BYTES)
    try:
        _pool.MIN_BYTES[0] = "x"
        with pytest.raises(TypeError, match="'<' not supported"):
            _pool.empty((10,), np.dtype(np.float64), 80)
        _pool.MIN_BYTES.clear()
        with pytest.raises(IndexError):
            _pool.empty((10,), np.dtype(np.float64), 80)
    finally:
        _pool.MIN_BYTES[:] = old
    with pytest.raises(TypeError, match="nbytes must be an int"):
        _pool.empty((10,), np.dtype(np.float64), 80.0)
    with pytest.raises(TypeError):  # the Block type is the pool's alone
        _pool._Block()
