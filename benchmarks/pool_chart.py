"""Chart: the buffer pool's effect on chained expressions.

    python benchmarks/pool_chart.py                 # writes benchmarks/results/pool.png
    MALLOC_MMAP_THRESHOLD_=131072 python benchmarks/pool_chart.py   # ... results/pool-mmap.png

Times ``a * b + c`` and the MLP step's elementwise chain (float32, one
thread) from 1e4 to 1e7 elements for strided with its buffer pool, strided
with the pool off (``set_pool_threshold`` above every size: NumPy's
allocator, fresh pages for every multi-MB result), NumPy and PyTorch, and
plots time per element. Each point is the minimum over interleaved batches
(the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXPRS = {"a * b + c": "a * b + c",
         "MLP chain": "xp.maximum(a * b + c, o) * (a > one) - 0.01 * c"}


def _time(fn, reps: int) -> float:
    n = 1
    while True:  # batches of at least 2 ms
        t = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t
        if dt >= 0.002:
            break
        n *= 2
    best = dt / n
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    return best


def measure(sizes, reps):
    import numpy as np

    import strided

    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    strided.set_num_threads(1)
    threshold = strided.get_pool_threshold()
    out = {}
    for label, expr in EXPRS.items():
        rows = {"strided (pool)": [], "strided (no pool)": [], "numpy": [], "torch": []}
        for n in sizes:
            rng = np.random.default_rng(0)
            arrs = {k: rng.uniform(0.5, 2.0, n).astype(np.float32) for k in "abc"}
            arrs["o"] = np.zeros(n, np.float32)
            arrs["one"] = np.ones(n, np.float32)
            envs = {"numpy": ({k: v for k, v in arrs.items()}, np),
                    "strided": ({k: strided.asarray(v) for k, v in arrs.items()}, strided)}
            if torch is not None:
                envs["torch"] = ({k: torch.from_numpy(v.copy()) for k, v in arrs.items()}, torch)
            code = compile(expr, "<expr>", "eval")
            fns = {name: (lambda ns=dict(ns, xp=mod): eval(code, ns)) for name, (ns, mod) in envs.items()}
            best = {k: float("inf") for k in rows}
            for _ in range(3):  # interleave the variants
                strided.set_pool_threshold(threshold)
                best["strided (pool)"] = min(best["strided (pool)"], _time(fns["strided"], reps))
                strided.set_pool_threshold(1 << 62)
                best["strided (no pool)"] = min(best["strided (no pool)"], _time(fns["strided"], reps))
                strided.set_pool_threshold(threshold)
                best["numpy"] = min(best["numpy"], _time(fns["numpy"], reps))
                if torch is not None:
                    best["torch"] = min(best["torch"], _time(fns["torch"], reps))
            for k in rows:
                rows[k].append(best[k] / n * 1e9)
            print(f"{label} n={n:.0e}: " + ", ".join(f"{k} {best[k] * 1e3:.3f} ms" for k in rows
                                                     if best[k] < float("inf")), flush=True)
        out[label] = {k: v for k, v in rows.items() if all(x < float("inf") for x in v)}
    return out


def plot(data, sizes, path, title_extra):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(data), figsize=(6 * len(data), 4.2), squeeze=False)
    style = {"strided (pool)": "o-", "strided (no pool)": "o--", "numpy": "s-", "torch": "^-"}
    for ax, (label, rows) in zip(axes[0], data.items()):
        for k, ys in rows.items():
            ax.plot(sizes, ys, style[k], label=k)
        ax.set_xscale("log")
        ax.set_xlabel("elements (float32)")
        ax.set_ylabel("ns per element (min)")
        ax.set_title(f"{label}{title_extra}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mmap = os.environ.get("MALLOC_MMAP_THRESHOLD_")
    p.add_argument("--out", default=os.path.join(HERE, "results", "pool-mmap.png" if mmap else "pool.png"))
    p.add_argument("--quick", action="store_true", help="three sizes, few repeats")
    args = p.parse_args(argv)
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
    sizes = [10**4, 10**5, 10**6] if args.quick else [10**4, 10**5, 3 * 10**5, 10**6, 3 * 10**6, 10**7]
    data = measure(sizes, 3 if args.quick else 7)
    plot(data, sizes, args.out, f" (MALLOC_MMAP_THRESHOLD_={mmap})" if mmap else "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
