#!/usr/bin/env python
"""PyTorch's activations on strided.torch and on PyTorch, side by side, one thread.

    PYTHONPATH=src python benchmarks/activations.py [--sizes 1000,100000] [--repeats 15]
        [--backward] [--only gelu,softmax]

Each case times ``F.<name>(x)`` (``--backward``: the forward, ``sum()`` and ``backward()``
on an input that requires grad) for both libraries in turn inside every repeat (the order
alternating), over a float32 vector of each size; printed: the medians of the per-call
times and strided / PyTorch, worst first. Issue 38 asks the activations PyTorch users call
to be no slower than PyTorch's: this is the table that says where they are not. Nothing
here asserts a timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import numpy as np  # noqa: E402

NAMES = ("relu", "sigmoid", "tanh", "silu", "gelu", "softplus", "leaky_relu", "elu", "selu",
         "celu", "hardtanh", "hardswish", "hardsigmoid", "mish", "logsigmoid", "softmax",
         "log_softmax")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1000,100000")
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--backward", action="store_true")
    p.add_argument("--only", default="")
    args = p.parse_args(argv)
    import torch

    import strided
    import strided.torch as st

    torch.set_num_threads(1)
    strided.set_num_threads(1)
    names = args.only.split(",") if args.only else NAMES
    rng = np.random.default_rng(0)
    rows = []
    for n in (int(float(s)) for s in args.sizes.split(",")):
        a = rng.standard_normal(n).astype(np.float32)
        for name in names:
            kw = {"dim": 0} if "softmax" in name else {}
            f, g = getattr(st.nn.functional, name, None), getattr(torch.nn.functional, name)
            if f is None:
                rows.append((float("inf"), name, n, None, None))
                continue
            calls = []
            for lib, fn in ((st, f), (torch, g)):
                x = lib.asarray(a.copy()) if lib is st else torch.from_numpy(a.copy())
                if args.backward:
                    x.requires_grad_()

                    def call(fn=fn, x=x):
                        fn(x, **kw).sum().backward()
                else:
                    def call(fn=fn, x=x):
                        fn(x, **kw)
                call()
                calls.append(call)
            k = max(1, int(2e5 / n))
            times = [[], []]
            for r in range(args.repeats):
                for i in ((0, 1) if r % 2 == 0 else (1, 0)):
                    t0 = time.perf_counter_ns()
                    for _ in range(k):
                        calls[i]()
                    times[i].append((time.perf_counter_ns() - t0) / k / 1e3)
            ms, mt = statistics.median(times[0]), statistics.median(times[1])
            rows.append((ms / mt, name, n, ms, mt))
    print(f"{'forward and backward' if args.backward else 'forward'}, float32, one thread, medians of "
          f"{args.repeats} interleaved repeats; load {os.getloadavg()[0]:.2f}")
    print("| activation | n | strided.torch (us) | PyTorch (us) | strided / PyTorch |\n|---|---|---|---|---|")
    for q, name, n, ms, mt in sorted(rows, key=lambda r: -r[0]):
        if ms is None:
            print(f"| {name} | {n} | missing | | |")
        else:
            print(f"| {name} | {n} | {ms:.2f} | {mt:.2f} | {q:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
