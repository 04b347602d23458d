"""Reports: the Markdown tables, the JSON file, the plots and the README section."""

from __future__ import annotations

import json
import os
import re

from ._timing import fmt_time

README_START = "<!-- results:start (written by benchmarks/run.py --readme) -->"
README_END = "<!-- results:end -->"


def lib_order(records: list, libs: list) -> list[str]:
    """Library columns, in discovery order, that appear in ``records``."""
    seen = {name for r in records for name in r["libs"]}
    return [lib.name for lib in libs if lib.name in seen]


def ratio_columns(names: list[str]) -> list[str]:
    cols = []
    for n in names:
        if n.startswith("strided"):
            continue
        subject = "strided-cuda" if n in ("cupy", "torch-cuda") else "strided"
        if subject in names:
            cols.append(f"{subject}/{n}")
    if "strided" in names and "numpy" in names and "torch" in names:
        cols.append(BEST)  # the issue-38 target: at or below the faster of the two
    return cols


BEST = "strided/min(numpy,torch)"


def compute_ratios(rec: dict, stat: str = "median_ns") -> dict:
    """``{"strided/numpy": 1.23, ...}`` from one record's medians (or ``stat``)."""
    libs = rec["libs"]
    out = {}
    for col in ratio_columns(list(libs)):
        if col == BEST:
            a = libs["strided"].get(stat)
            peers = [libs[p].get(stat) for p in ("numpy", "torch")]
            b = min(peers) if all(peers) else None
        else:
            s, p = col.split("/")
            a, b = libs[s].get(stat), libs[p].get(stat)
        if a is not None and b:
            out[col] = a / b
    return out


def _fmt_bytes(b) -> str:
    if b is None:
        return "n/a"
    for unit, scale in (("MB", 2**20), ("kB", 2**10)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b} B"


def _cell(entry: dict, stat: str) -> str:
    if stat in entry:
        return fmt_time(entry[stat])
    return "skip" if "skipped" in entry else "error"


def group_markdown(title: str, records: list, libs: list, img: str | None, stat: str = "median_ns") -> str:
    """One group's table, with its skip reasons, check results and plot."""
    names = lib_order(records, libs)
    rcols = ratio_columns(names)
    has_bytes = any(r.get("bytes") for r in records)
    head = ["case"] + names + rcols + ([f"{n} bytes/call" for n in names] if has_bytes else [])
    lines = [f"### {title}", "", "| " + " | ".join(head) + " |",
             "|" + "|".join([":--"] + ["--:"] * (len(head) - 1)) + "|"]
    notes: dict = {}
    for r in records:
        row = [r["case"]] + [_cell(r["libs"].get(n, {"skipped": "n/a"}), stat) for n in names]
        row += [f"{r['ratios'][c]:.2f}" if c in r["ratios"] else "—" for c in rcols]
        if has_bytes:
            row += [_fmt_bytes(r.get("bytes", {}).get(n)) if n in r.get("bytes", {}) else "—" for n in names]
        lines.append("| " + " | ".join(row) + " |")
        for n, e in r["libs"].items():
            why = e.get("skipped") or e.get("error")
            if why:
                notes.setdefault((n, "skipped" if "skipped" in e else "error", why), []).append(r["case"])
        for n, c in r.get("check", {}).items():
            if c != "ok":
                notes.setdefault((n, "result differs from NumPy", c), []).append(r["case"])
    extra = sorted({r["note"] for r in records if r.get("note")})
    extra += [f"{r['case']}: {r['counters']}" for r in records if r.get("counters")]
    if notes or extra:
        lines.append("")
    for e in extra:
        lines.append(f"- {e}")
    for (n, what, why), cases in notes.items():
        shown = ", ".join(cases[:3]) + (f", … ({len(cases)} cases)" if len(cases) > 3 else "")
        lines.append(f"- {n} {what}: {why} — {shown}")
    if img:
        lines += ["", f"![{title}]({img})"]
    return "\n".join(lines) + "\n"


def meta_markdown(meta: dict) -> str:
    v = meta["versions"]
    lines = [f"Machine: {meta['cpu']} ({meta['cpus']} CPUs), {meta['memory']}, {meta['platform']}",
             f"Python {meta['python']}; " + ", ".join(f"{k} {v[k]}" for k in v),
             f"Threads pinned to {meta['threads']} for every library (BLAS: {meta['blas']}); "
             f"{'--quick' if meta['quick'] else 'full'} run, {meta['date']}, {meta['wall_s']:.0f} s; "
             "load average {} at start, {} at end (other jobs sharing the {} CPUs).".format(
                 *(meta.get("load_average") or [None, None]), meta["cpus"]),
             f"Times are the {'medians' if meta['stat'] == 'median_ns' else 'minima'} of interleaved repeats "
             "(auto-ranged inner loops, `time.perf_counter_ns`); ratios are strided / peer "
             "(below 1: strided is faster)."]
    if meta.get("skipped_libs"):
        lines.append("Not run: " + "; ".join(f"{n} ({why})" for n, why in meta["skipped_libs"]) + ".")
    return "  \n".join(lines) + "\n"


HEADLINES = (  # (group, case label) of the figures issue 10 sets targets for
    ("tiny", "add [n=10, float32]"), ("tiny", "slice view [n=10, float32]"),
    ("tiny", "transpose view [n=10, float32]"), ("elementwise", "add [n=1e6, float32]"),
    ("elementwise", "add [n=1e6, float64]"), ("reductions", "sum [1000x1000, float32, axis=None]"),
    ("matmul", "matmul [n=1024, float32]"), ("matmul", "matmul [n=1024, float64]"),
    ("inplace", "add out= [n=1e6, float32]"), ("autograd", "MLP SGD step, autograd [layers=784-256-10, batch=128, float32]"),
    ("io", "save [MB=100, float32]"), ("io", "load [MB=100, float32]"),
)


def headline_markdown(records: list, libs: list, stat: str) -> str:
    """The key figures, one row each, when they were run."""
    found = {(r["group"], r["case"]): r for r in records}
    recs = [found[k] for k in HEADLINES if k in found]
    if not recs:
        return ""
    names = lib_order(recs, libs)
    rcols = ratio_columns(names)
    lines = ["### Headline figures", "", "| case | " + " | ".join(names + rcols) + " |",
             "|" + "|".join([":--"] + ["--:"] * (len(names) + len(rcols))) + "|"]
    for r in recs:
        row = [f"{r['group']}: {r['case']}"] + [_cell(r["libs"].get(n, {"skipped": ""}), stat) for n in names]
        row += [f"{r['ratios'][c]:.2f}" if c in r["ratios"] else "—" for c in rcols]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def markdown(meta: dict, groups: list, records: list, libs: list, img_prefix: str, plots: dict) -> str:
    parts = [meta_markdown(meta)]
    head = headline_markdown(records, libs, meta["stat"])
    if head:
        parts.append(head)
    for key, title in groups:
        recs = [r for r in records if r["group"] == key]
        if recs:
            img = img_prefix + plots[key] if key in plots else None
            parts.append(group_markdown(title, recs, libs, img, meta["stat"]))
    return "\n".join(parts)


def write_json(path: str, meta: dict, records: list) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"meta": meta, "results": records}, f, indent=1, default=str)
    os.replace(tmp, path)


def update_readme(path: str, section: str) -> None:
    """Replace the generated section of the README (between the markers)."""
    text = open(path).read() if os.path.exists(path) else ""
    block = f"{README_START}\n\n{section}\n{README_END}"
    if README_START in text and README_END in text:
        text = re.sub(re.escape(README_START) + ".*?" + re.escape(README_END), lambda m: block, text,
                      flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


# --- plots ----------------------------------------------------------------------

def plot_all(outdir: str, groups: list, records: list, libs: list,
             stat: str = "median_ns") -> tuple[dict, str | None]:
    """Write the PNGs; returns ({group: file name}, reason when none were drawn)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return {}, f"matplotlib not installed ({e}); pip install -e '.[bench]'"
    files = {}
    for key, title in groups:
        recs = [r for r in records if r["group"] == key]
        if key == "growth":
            ok = _plot_growth(plt, os.path.join(outdir, "growth.png"), title, recs, libs, stat)
            name = "growth.png"
        else:
            name = f"{key}.png"
            ok = _plot_ratios(plt, os.path.join(outdir, name), title, recs)
        if ok:
            files[key] = name
    return files, None


def _plot_ratios(plt, path, title, recs) -> bool:
    """Horizontal bars, one group of bars per case (log scale, 1 = parity)."""
    recs = [r for r in recs if r["ratios"]]
    if not recs:
        return False
    cols = list(dict.fromkeys(c for r in recs for c in r["ratios"]))
    n, k = len(recs), len(cols)
    height = 0.8 / k
    fig, ax = plt.subplots(figsize=(9, max(3.0, 0.1 * n * max(k, 2) + 1.4)))
    for j, c in enumerate(cols):
        ys = [i + (j - (k - 1) / 2) * height for i in range(n)]
        ax.barh(ys, [r["ratios"].get(c, float("nan")) for r in recs], height, label=c)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(n))
    ax.set_yticklabels([r["case"] for r in recs], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time ratio strided / peer (log scale; < 1: strided faster)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True


def _plot_growth(plt, path, title, recs, libs, stat) -> bool:
    ops = sorted({r["op"] for r in recs})
    if not ops:
        return False
    fig, axes = plt.subplots(1, len(ops), figsize=(6 * len(ops), 4.5), squeeze=False)
    for ax, op in zip(axes[0], ops):
        rs = sorted((r for r in recs if r["op"] == op), key=lambda r: r["params"]["n"])
        for name in lib_order(rs, libs):
            pts = [(r["params"]["n"], r["libs"][name][stat] / 1e3)
                   for r in rs if stat in r["libs"].get(name, {})]
            if pts:
                ax.loglog(*zip(*pts), marker="o", markersize=3, label=name)
        ax.set_xlabel("elements")
        ax.set_ylabel("time per call (µs)")
        ax.set_title(f"{op}, float32", fontsize=10)
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True
