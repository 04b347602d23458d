"""The benchmark harness's settle option (benchmarks/_timing.py): a threaded case idles
before each batch and re-warms with one untimed call, so that the previous library's
spinning worker threads are asleep and the library's own are awake."""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchmarks import _timing  # noqa: E402


class _Counting:
    """A timeit.Timer stand-in: records each timeit(n) call and when it started."""

    def __init__(self):
        self.calls = []

    def timeit(self, number):
        self.calls.append((number, time.perf_counter()))
        return 1e-6 * number


def _settings(settle_ns):
    return _timing.Settings(min_batch_ns=1_000, min_repeats=3, max_repeats=3, budget_ns=1, settle_ns=settle_ns)


def test_settle_idles_then_rewarms_before_every_batch():
    a, b = _Counting(), _Counting()
    _timing._rounds({"a": a, "b": b}, {"a": 50, "b": 50}, {"a": 5e4, "b": 5e4}, _settings(20_000_000), {})
    for t in (a, b):
        numbers = [n for n, _ in t.calls]
        assert numbers == [1, 50] * 3  # an untimed call, then the batch, three rounds
    # between one library's batch and the next library's untimed call: the idle time
    starts = sorted([(s, "a", n) for n, s in a.calls] + [(s, "b", n) for n, s in b.calls])
    gaps = [s2 - s1 for (s1, l1, n1), (s2, l2, n2) in zip(starts, starts[1:]) if n1 == 50 and n2 == 1]
    assert gaps and min(gaps) >= 0.02


def test_without_settle_long_batches_are_not_rewarmed():
    a = _Counting()
    _timing._rounds({"a": a}, {"a": 50}, {"a": 5e4}, _settings(0), {})
    assert [n for n, _ in a.calls] == [50, 50, 50]
