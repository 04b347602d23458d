"""Timing: auto-ranged inner loops, interleaved repeats, medians.

Each library's statement is compiled by ``timeit`` into a tight loop (no
per-call function-call overhead of the harness), timed with
``time.perf_counter_ns``. The inner loop count is chosen per library so that
one batch lasts at least ``min_batch_ns``; then the libraries are timed in
turn, round-robin, ``repeats`` times, the first library rotating. Interleaving
makes the *ratios* robust to the slow drift of a noisy machine: every library
sees the same drift.
"""

from __future__ import annotations

import ast
import statistics
import time
import timeit
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """How long and how often to time one case."""

    min_batch_ns: int  # one inner loop lasts at least this long
    min_repeats: int  # batches per library, at least ...
    max_repeats: int  # ... and at most
    budget_ns: int  # aim for this much timing per case (all libraries together)
    settle_s: float = 0.0  # sleep before each timed batch (Case.settle_ms)


# Short batches, many of them: on a shared machine most short batches run
# unpreempted, so their median is stable; long calls get at least 5 samples.
FULL = Settings(min_batch_ns=500_000, min_repeats=5, max_repeats=31, budget_ns=1_000_000_000)
QUICK = Settings(min_batch_ns=50_000, min_repeats=1, max_repeats=2, budget_ns=5_000_000)


def make_timer(stmt: str, ns: dict) -> timeit.Timer:
    """A timer running ``stmt`` with ``ns`` as its globals.

    ``timeit`` runs the statement inside a function, so names it assigns
    (``a += b``) are declared global to keep meaning the inputs in ``ns``.
    """
    assigned = sorted({node.id for node in ast.walk(ast.parse(stmt))
                       if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)})
    setup = f"global {', '.join(assigned)}" if assigned else "pass"
    return timeit.Timer(stmt, setup=setup, globals=ns, timer=time.perf_counter_ns)


def autorange(timer: timeit.Timer, min_batch_ns: int) -> tuple[int, int]:
    """An inner-loop count ``n`` (in 1-2-5 steps) whose batch lasts at least
    ``min_batch_ns``; returns ``(n, batch_ns)``."""
    n = 1
    while True:
        t = timer.timeit(n)
        if t >= min_batch_ns:
            return n, t
        n = max(_nice_ceil(1.1 * n * min_batch_ns / max(t, 1)), n + 1)


def _nice_ceil(x: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that is >= x."""
    p = 1
    while True:
        for m in (1, 2, 5):
            if p * m >= x:
                return p * m
        p *= 10


def measure(timers: dict, s: Settings) -> dict:
    """Time each timer in ``timers`` (name -> Timer), interleaved.

    Returns name -> {"median_ns", "min_ns", "samples_ns", "inner", "repeats"}
    with per-call times in nanoseconds; a timer that raises gives
    {"error": message}.

    The first call of each library is not timed (one-time costs). A preemption
    during auto-ranging can make a fast call look slow and so choose too few
    inner loops (then every batch is dominated by its cold
    first call). A library whose median batch came out shorter than half of
    ``min_batch_ns`` is measured again with the inner count its median implies.
    """
    out, inner, batch = {}, {}, {}
    for name, t in timers.items():
        try:
            # One untimed call first: a case's first call pays one-time costs (fresh
            # memory faulted in, a buffer pool's first miss, lazy imports) that would
            # otherwise pick one inner loop for a library whose calls are no slower
            # than its peer's, and single-call batches read slower than longer ones.
            t.timeit(1)
            inner[name], batch[name] = autorange(t, s.min_batch_ns)
        except Exception as e:  # noqa: BLE001 - one library's failure must not stop the run
            out[name] = {"error": f"{type(e).__name__}: {e}"}
    for _ in range(3):
        if not inner:
            break
        samples = _rounds(timers, inner, batch, s, out)
        redo = {}
        for name, xs in samples.items():
            med = statistics.median(xs)
            if med * inner[name] < s.min_batch_ns / 2:
                redo[name] = _nice_ceil(1.1 * s.min_batch_ns / max(med, 1e-3))
            out[name] = {"median_ns": med, "min_ns": min(xs), "samples_ns": [round(x, 1) for x in xs],
                         "inner": inner[name], "repeats": len(xs)}
        inner = redo
        batch = {name: n * out[name]["median_ns"] for name, n in redo.items()}
    return out


def _rounds(timers, inner, batch, s, out) -> dict:
    """Round-robin batches over the libraries; per-call samples in ns.

    A batch of fewer than 10 calls (under 50 ms) is preceded by one untimed
    call: its first call would otherwise carry the cold caches and trimmed
    heap that the previous library left, which longer batches amortise.
    """
    repeats = max(s.min_repeats, min(s.max_repeats, int(s.budget_ns // max(sum(batch.values()), 1))))
    samples = {name: [] for name in inner}
    names = list(samples)
    for r in range(repeats):
        # Rotate who goes first: the library after another one's large frees can
        # find the heap trimmed and pay its page faults (seen at 1e6 elements).
        for name in names[r % len(names):] + names[:r % len(names)]:
            if name not in samples:
                continue
            try:
                if s.settle_s:
                    time.sleep(s.settle_s)  # (the other library's worker threads go idle)
                if inner[name] < 10 and batch[name] < 50_000_000:
                    timers[name].timeit(1)  # re-warm: the other libraries just ran
                samples[name].append(timers[name].timeit(inner[name]) / inner[name])
            except Exception as e:  # noqa: BLE001
                out[name] = {"error": f"{type(e).__name__}: {e}"}
                del samples[name]
    return samples


def fmt_time(ns: float | None) -> str:
    """``1234.5`` -> ``"1.23 µs"``."""
    if ns is None:
        return "—"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"
