#!/usr/bin/env python
"""Where the time of a 10-element ``a + b`` goes, before and after the hot-path work.

    python benchmarks/hot_path_chart.py measure LABEL OUT.json   # with PYTHONPATH at a strided tree
    python benchmarks/hot_path_chart.py plot RUN.json [RUN.json ...] OUT.png

``measure`` times, on float32 arrays of 10 elements (1 thread, minimum over 15
repeats of 5000 calls), four nested calls of the same add: NumPy's kernel alone
(``np.add`` on the native views), the row's kernel path (``strided.add._impl``),
the namespace function (``strided.add``) and the operator (``a + b``). The
differences are the stages: the kernel, strided's checks and result wrapping,
the function layer, and the operator layer. ``plot`` draws them as stacked bars
(one per tree, in the order given) with PyTorch's ``a + b`` as a reference line.

To reproduce the README chart::

    git archive bb24699 src | tar -x -C /tmp/before        # the tree before issue 15
    git archive 812b94c src | tar -x -C /tmp/round1        # after its first round
    PYTHONPATH=/tmp/before/src python benchmarks/hot_path_chart.py measure before /tmp/before.json
    PYTHONPATH=/tmp/round1/src python benchmarks/hot_path_chart.py measure "round 1" /tmp/round1.json
    git archive e1faf13 src | tar -x -C /tmp/round2        # after its second
    PYTHONPATH=/tmp/round2/src python benchmarks/hot_path_chart.py measure "round 2" /tmp/round2.json
    PYTHONPATH=src python benchmarks/hot_path_chart.py measure "round 3 (C)" /tmp/after.json
    python benchmarks/hot_path_chart.py plot /tmp/before.json /tmp/round1.json /tmp/round2.json \
        /tmp/after.json benchmarks/results/hot_path.png

(``round 3 (C)`` needs the compiled hot path built in that tree: ``pip install -e .``.)
"""

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import json  # noqa: E402
import timeit  # noqa: E402

STAGES = ("NumPy kernel", "checks, dtype lookup, result wrap", "namespace function layer",
          "operator layer")


def _ns(stmt, g, number=5000, repeat=15):
    return min(timeit.repeat(stmt, globals=g, number=number, repeat=repeat)) / number * 1e9


def measure(label, out):
    import numpy as np

    import strided
    a = strided.asarray(np.linspace(0.5, 2.0, 10, dtype=np.float32))
    b = strided.asarray(np.linspace(2.0, 0.5, 10, dtype=np.float32))
    a + b  # noqa: B018 - warm the kernel tables
    g = {"a": a, "b": b, "na": a._get_native(), "nb": b._get_native(), "np": np,
         "impl": strided.add._impl, "add": strided.add}
    t = {"kernel": _ns("np.add(na, nb)", g), "impl": _ns("impl(a, b, None)", g),
         "function": _ns("add(a, b)", g), "operator": _ns("a + b", g)}
    try:
        import torch
        torch.set_num_threads(1)
        ta = torch.from_numpy(np.linspace(0.5, 2.0, 10, dtype=np.float32))
        t["torch"] = _ns("ta + ta", {"ta": ta})
    except ImportError:
        pass
    res = {"label": label, "ns": t, "stages": [t["kernel"], max(t["impl"] - t["kernel"], 0.0),
                                               max(t["function"] - t["impl"], 0.0),
                                               max(t["operator"] - t["function"], 0.0)]}
    # Note: since issue 15 the operator skips the function layer when no operand has an
    # extension, so "operator" < "function" is possible; the stage is then 0 and the
    # operator's own cost is what remains above the kernel path.
    if t["operator"] < t["function"]:
        res["stages"][2] = 0.0
        res["stages"][3] = max(t["operator"] - t["impl"], 0.0)
    # With the compiled hot path (strided/_csrc/_chot.c) the function and the operator do the
    # checks, lookup and wrap in C without calling the Python impl: the stage is the
    # function's time above the kernel, and the operator's layer what it adds to that.
    compiled = getattr(sys.modules.get("strided._api.elementwise"), "COMPILED", False)
    if compiled:
        res["stages"] = [t["kernel"], max(t["function"] - t["kernel"], 0.0), 0.0,
                         max(t["operator"] - t["function"], 0.0)]
    res["compiled"] = bool(compiled)
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res))


def plot(*paths_and_out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    *paths, out = paths_and_out
    runs = [json.load(open(p)) for p in paths]
    fig, ax = plt.subplots(figsize=(9.5, 1.2 + 0.9 * len(runs)))
    colors = ("#4c72b0", "#dd8452", "#55a868", "#c44e52")
    for y, r in enumerate(runs):
        left = 0.0
        for s, w, c in zip(STAGES, r["stages"], colors):
            ax.barh(y, w, left=left, color=c, label=s if y == 0 else None)
            left += w
        ax.text(left + 10, y, f"{left:.0f} ns", va="center")
    torch_ns = [r["ns"].get("torch") for r in runs if r["ns"].get("torch")]
    if torch_ns:
        ax.axvline(min(torch_ns), color="black", ls="--", lw=1, label="PyTorch a + b")
    ax.set_yticks(range(len(runs)), [r["label"] for r in runs])
    ax.invert_yaxis()  # the first run on top
    ax.set_xlabel("ns per call (10-element float32 a + b, 1 thread, min of 15 x 5000)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_xlim(0, max(sum(r["stages"]) for r in runs) * 1.25)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "measure" and len(sys.argv) == 4:
        measure(sys.argv[2], sys.argv[3])
    elif cmd == "plot" and len(sys.argv) >= 5:
        plot(*sys.argv[2:])
    else:
        sys.exit(__doc__)
