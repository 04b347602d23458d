#!/usr/bin/env python
"""A training step side by side: strided.torch against PyTorch.

    PYTHONPATH=src python benchmarks/train.py            # both sizes, both optimizers
    PYTHONPATH=src python benchmarks/train.py --quick    # a smoke run (seconds)

One step is PyTorch's usual loop body: ``opt.zero_grad()``, an MLP of
``nn.Linear`` layers with ``F.relu``, ``F.cross_entropy``, ``loss.backward()``,
``opt.step()``, with ``optim.SGD`` (momentum) or ``optim.Adam``. The same
program text runs on both libraries (only the module differs), from the same
initial weights and data. Each repeat times a batch of steps of one library,
then of the other, the first library alternating (interleaved, so both see
the same drift of a noisy machine); the medians of the per-step times and
their ratio (strided / PyTorch, below 1.0 is faster) are printed. Both run on
one thread (``--threads`` to change). Nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def _threads(argv) -> str:
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--threads="):
            return a.split("=", 1)[1]
    return "1"


# Before NumPy loads its BLAS: every library gets the same thread count.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = _threads(sys.argv[1:])

import numpy as np  # noqa: E402


def build(lib, sizes, opt_name, init, data):
    nn, F = lib.nn, lib.nn.functional
    layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
    model = nn.Sequential(*layers)
    T = (lambda a: lib.from_numpy(a.copy())) if lib.__name__ == "torch" else \
        (lambda a: lib.asarray(a.copy(), device="cpu"))
    model.load_state_dict({k: T(v) for k, v in init.items()})
    x, y = T(data[0]), T(data[1])
    opt = (lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if opt_name == "SGD"
           else lib.optim.Adam(model.parameters(), lr=1e-3))

    def forward(inp):
        for i, layer in enumerate(layers):
            inp = layer(inp)
            if i < len(layers) - 1:
                inp = F.relu(inp)
        return inp

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(forward(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny repeat counts (a smoke run)")
    p.add_argument("--threads", type=int, default=1, help="threads for both libraries (default 1)")
    p.add_argument("--repeats", type=int, default=15, help="interleaved repeats per case")
    args = p.parse_args(argv)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))
    import torch

    import strided
    import strided.torch as storch

    torch.set_num_threads(args.threads)
    if hasattr(strided, "set_num_threads"):
        strided.set_num_threads(args.threads)
    repeats = 3 if args.quick else args.repeats
    cases = [("small", (64, 128, 128, 10), 32), ("medium", (784, 512, 256, 10), 256)]
    print(f"| case | optimizer | strided ms/step | PyTorch ms/step | ratio |\n|---|---|---|---|---|")
    for label, sizes, batch in cases:
        rng = np.random.default_rng(0)
        init = {}
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            bound = 1 / np.sqrt(a)
            init[f"{i}.weight"] = rng.uniform(-bound, bound, (b, a)).astype(np.float32)
            init[f"{i}.bias"] = rng.uniform(-bound, bound, b).astype(np.float32)
        data = (rng.standard_normal((batch, sizes[0])).astype(np.float32),
                rng.integers(0, sizes[-1], batch))
        for opt_name in ("SGD", "Adam"):
            steps = {lib: build(lib, sizes, opt_name, init, data) for lib in (storch, torch)}
            losses = {lib: float(steps[lib]().detach()) for lib in steps}  # warm up, and check
            if abs(losses[storch] - losses[torch]) > 1e-4 * abs(losses[torch]):
                print(f"warning: first losses differ: {losses}", file=sys.stderr)
            t0 = time.perf_counter()
            steps[storch]()
            per = max(time.perf_counter() - t0, 1e-5)
            n = 2 if args.quick else max(3, int(0.05 / per))
            times = {storch: [], torch: []}
            for r in range(repeats):
                order = (storch, torch) if r % 2 == 0 else (torch, storch)
                for lib in order:
                    t0 = time.perf_counter()
                    for _ in range(n):
                        steps[lib]()
                    times[lib].append((time.perf_counter() - t0) / n)
            ms = {lib: 1e3 * statistics.median(v) for lib, v in times.items()}
            print(f"| {label} {sizes} batch {batch} | {opt_name} | {ms[storch]:.3f} | {ms[torch]:.3f} | "
                  f"{ms[storch] / ms[torch]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
