#!/usr/bin/env python
"""Memory of the autograd MLP step (784-256-10, batch 128, float32) over many steps.

    python benchmarks/mlp_memory.py [STEPS]      # default 10000

Runs the same step as the benchmark's group (g) (``cases._mlp_autograd``) and
prints the process's resident memory (from /proc/self/statm) every tenth of
the run, and the growth from the end of the first tenth to the end: a graph
or gradient kept alive by mistake grows it by ~1 MB per step. Exit status 1
when the growth is above 16 MiB.
"""

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import time  # noqa: E402

import strided as xp  # noqa: E402
from benchmarks import cases  # noqa: E402


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main(steps: int = 10_000) -> int:
    inp = {k: xp.asarray(v) for k, v in cases.make_inputs(cases.MLP).items()}
    step = cases._mlp_autograd(xp, lambda z: xp.max(z, axis=1, keepdims=True),
                               lambda h: xp.maximum(h, 0.0), xp.no_grad, inp)
    marks = []
    t0 = time.perf_counter()
    for i in range(1, steps + 1):
        step()
        if i % max(steps // 10, 1) == 0:
            marks.append((i, rss_mib()))
            print(f"step {i:6d}  rss {marks[-1][1]:8.1f} MiB  {(time.perf_counter() - t0) / i * 1e6:7.0f} us/step")
    growth = marks[-1][1] - marks[0][1]
    print(f"growth from step {marks[0][0]} to {marks[-1][0]}: {growth:+.1f} MiB")
    return 0 if growth <= 16 else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
