"""Chart: the size sweep (group ``midsize``) as strided / min(NumPy, PyTorch) against size.

    python benchmarks/sweep_chart.py                       # from benchmarks/results/midsize/*
    python benchmarks/sweep_chart.py --stat min DIR...     # each DIR holds a results.json

One panel per dtype, one line per operation; solid lines from glibc's default malloc,
dashed from ``MALLOC_MMAP_THRESHOLD_=131072`` (``benchmarks/midsize.py`` writes both
runs). Below the line at 1.0 strided is faster than the faster of NumPy and PyTorch.
Writes ``benchmarks/results/midsize.png``. Nothing here times anything.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIRS = [os.path.join(HERE, "results", "midsize", tag) for tag in ("default", "mmap131072")]


def ratio_min(rec: dict, stat: str) -> float | None:
    """strided / min(NumPy, PyTorch) of one record, or None where a side is missing."""
    libs = rec["libs"]
    peers = [libs[p][stat] for p in ("numpy", "torch") if stat in libs.get(p, {})]
    if stat not in libs.get("strided", {}) or not peers:
        return None
    return libs["strided"][stat] / min(peers)


def series(paths: list[str], stat: str) -> dict:
    """{(dtype, op, regime): [(n, ratio), ...]} from the results.json files given."""
    out: dict = {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        regime = "mmap" if "MALLOC_MMAP_THRESHOLD_" in " ".join(data["meta"].get("command", "")) \
            or any("mmap" in r["params"].get("malloc", "") for r in data["results"]) else "default"
        for r in data["results"]:
            if r["group"] != "midsize":
                continue
            q = ratio_min(r, stat)
            if q is not None:
                out.setdefault((r["params"]["dtype"], r["op"], regime), []).append((r["params"]["n"], q))
    for pts in out.values():
        pts.sort()
    return out


def plot(data: dict, path: str, stat: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dtypes = sorted({k[0] for k in data})
    ops = sorted({k[1] for k in data})
    colors = {op: plt.cm.tab10(i % 10) for i, op in enumerate(ops)}
    fig, axes = plt.subplots(1, len(dtypes), figsize=(7 * len(dtypes), 5), squeeze=False)
    for ax, dt in zip(axes[0], dtypes):
        for (d, op, regime), pts in sorted(data.items()):
            if d != dt:
                continue
            ax.semilogx(*zip(*pts), marker="o", markersize=2.5, color=colors[op],
                        linestyle="-" if regime == "default" else "--",
                        label=op if regime == "default" else None)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel(f"strided / min(NumPy, PyTorch), {stat} (log)")
        ax.set_title(f"{dt}: solid glibc default malloc, dashed MALLOC_MMAP_THRESHOLD_=131072", fontsize=9)
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=8, ncol=2)
    fig.suptitle("(n) the size sweep: below 1 strided is faster than the faster peer", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="*", default=DEFAULT_DIRS, help="folders holding a results.json")
    p.add_argument("--stat", choices=("median_ns", "min_ns"), default="median_ns")
    p.add_argument("--out", default=os.path.join(HERE, "results", "midsize.png"))
    args = p.parse_args(argv)
    paths = [os.path.join(d, "results.json") for d in args.dirs if os.path.exists(os.path.join(d, "results.json"))]
    if not paths:
        p.error(f"no results.json in {', '.join(args.dirs)}: run benchmarks/midsize.py first")
    data = series(paths, args.stat)
    if not data:
        p.error("no midsize records in " + ", ".join(paths))
    plot(data, args.out, args.stat.replace("_ns", ""))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
