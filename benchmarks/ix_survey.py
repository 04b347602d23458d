"""Survey: manipulation, creation-from-array, searching and indexing against NumPy and PyTorch.

Each case is one statement per library on the same data (float64 and float32, 1-D ``n``
elements or an ``(n/100, 100)`` matrix, ``n`` in 100, 1e4, 1e6), timed by ``timeit``'s
compiled loop, in batches interleaved across the libraries (the first library rotating),
and reported as the median per call. Rows are sorted worst first by
strided / min(NumPy, PyTorch). Nothing asserts a time: this prints a table.

    PYTHONPATH=src python benchmarks/ix_survey.py                 # everything, ~5 minutes
    PYTHONPATH=src python benchmarks/ix_survey.py --sizes 100 --dtypes float64 --filter concat
    PYTHONPATH=src python benchmarks/ix_survey.py --top 20 --repeats 9
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import timeit

import numpy as np

import strided as st

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # PyTorch is an optional peer
    torch = None

# name: (NumPy statement, strided statement, PyTorch statement or None)
# In each statement: a/b 1-D, m (n/100, 100) matrix (1 x n below 1e4), k bool mask, i int
# index (n/2 of them), s sorted a, v values to search, c/t 2-D condition; the library's
# module is x.
CASES = {
    "concat": ("x.concatenate([a, a])", "x.concat([a, a])", "x.cat([a, a])"),
    "concat_ax1": ("x.concatenate([m, m], axis=1)", "x.concat([m, m], axis=1)", "x.cat([m, m], 1)"),
    "stack": ("x.stack([a, a])", "x.stack([a, a])", "x.stack([a, a])"),
    "reshape_view": ("m.reshape(-1)", "x.reshape(m, (-1,))", "m.reshape(-1)"),
    "reshape_copy": ("mT.reshape(-1)", "x.reshape(mT, (-1,))", "mT.reshape(-1)"),
    "flip": ("x.flip(a)", "x.flip(a)", "x.flip(a, (0,))"),
    "roll": ("x.roll(a, 3)", "x.roll(a, 3)", "x.roll(a, 3)"),
    "repeat": ("x.repeat(a, 2)", "x.repeat(a, 2)", "x.repeat_interleave(a, 2)"),
    "tile": ("x.tile(a, 2)", "x.tile(a, (2,))", "a.repeat(2)"),
    "expand_dims": ("x.expand_dims(a, 0)", "x.expand_dims(a, axis=0)", "x.unsqueeze(a, 0)"),
    "moveaxis": ("x.moveaxis(m, 0, 1)", "x.moveaxis(m, 0, 1)", "x.movedim(m, 0, 1)"),
    "permute_dims": ("x.permute_dims(m, (1, 0))", "x.permute_dims(m, (1, 0))", "x.permute(m, (1, 0))"),
    "squeeze": ("x.squeeze(a1, 0)", "x.squeeze(a1, 0)", "x.squeeze(a1, 0)"),
    "broadcast_to": ("x.broadcast_to(a, (2, n))", "x.broadcast_to(a, (2, n))", "a.expand(2, n)"),
    "take": ("x.take(a, i)", "x.take(a, i)", "x.index_select(a, 0, i)"),
    "take_along_axis": ("x.take_along_axis(a, i, 0)", "x.take_along_axis(a, i, axis=0)",
                        "x.take_along_dim(a, i, 0)"),
    "searchsorted": ("x.searchsorted(s, v)", "x.searchsorted(s, v)", "x.searchsorted(s, v)"),
    "where3": ("x.where(k, a, b)", "x.where(k, a, b)", "x.where(k, a, b)"),
    "where_scalar": ("x.where(k, a, 0.0)", "x.where(k, a, 0.0)", "x.where(k, a, 0.0)"),
    "nonzero": ("x.nonzero(k)", "x.nonzero(k)", "x.nonzero(k)"),
    "unique_values": ("x.unique_values(i)", "x.unique_values(i)", "x.unique(i)"),
    "unique_counts": ("x.unique_counts(i)", "x.unique_counts(i)", "x.unique(i, return_counts=True)"),
    "tril": ("x.tril(m)", "x.tril(m)", "x.tril(m)"),
    "triu": ("x.triu(m)", "x.triu(m)", "x.triu(m)"),
    "meshgrid": ("x.meshgrid(a100, a100)", "x.meshgrid(a100, a100)", "x.meshgrid(a100, a100, indexing='xy')"),
    "copyT": ("mT.copy()", "x.asarray(mT, copy=True)", "mT.contiguous()"),
    "copy_view": ("a2.copy()", "x.asarray(a2, copy=True)", "a2.clone()"),
    "astype_f32": ("a.astype(x.float32)", "x.astype(a, x.float32)", "a.to(x.float32)"),
    "astype_f16": ("a.astype(x.float16)", "x.astype(a, x.float16)", "a.to(x.float16)"),
    "astype_i64": ("a.astype(x.int64)", "x.astype(a, x.int64)", "a.to(x.int64)"),
    "get_int": ("a[3]", "a[3]", "a[3]"),
    "get_slice": ("a[1:-1:2]", "a[1:-1:2]", "a[1:-1:2]"),
    "get_2int": ("m[0, 3]", "m[0, 3]", "m[0, 3]"),
    "get_row": ("m[0]", "m[0]", "m[0]"),
    "get_none": ("a[None]", "a[None]", "a[None]"),
    "get_ellipsis": ("m[..., 0]", "m[..., 0]", "m[..., 0]"),
    "get_intarr": ("a[i]", "a[i]", "a[i]"),
    "get_mask": ("a[k]", "a[k]", "a[k]"),
    "set_scalar_slice": ("a[::2] = 1.0", "a[::2] = 1.0", "a[::2] = 1.0"),
    "set_scalar_all": ("a[...] = 1.0", "a[...] = 1.0", "a[...] = 1.0"),
    "set_array_slice": ("a[::2] = h", "a[::2] = h", "a[::2] = h"),
    "set_int": ("a[3] = 1.0", "a[3] = 1.0", "a[3] = 1.0"),
    "set_mask": ("a[k] = 0.0", "a[k] = 0.0", "a[k] = 0.0"),
    "set_intarr": ("a[i] = 0.0", "a[i] = 0.0", "a[i] = 0.0"),
    "clip": ("x.clip(a, -0.5, 0.5)", "x.clip(a, -0.5, 0.5)", "x.clip(a, -0.5, 0.5)"),
    "cumulative_sum": ("x.cumulative_sum(a)", "x.cumulative_sum(a)", "x.cumsum(a, 0)"),
    "count_nonzero": ("x.count_nonzero(a)", "x.count_nonzero(a)", "x.count_nonzero(a)"),
    "diff": ("x.diff(a)", "x.diff(a)", "x.diff(a)"),
}


def data(n: int, dtype: str, seed: int = 0) -> dict:
    """The NumPy inputs of every case for size ``n``."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(dtype)
    m = a.reshape(-1, 100) if n >= 10_000 else a.reshape(1, -1)
    return {
        "n": n, "a": a, "b": rng.standard_normal(n).astype(dtype), "m": m,
        "mT": m.T, "a1": a[None], "a2": a[::2], "h": a[: (n + 1) // 2].copy(),
        "k": a > 0, "i": rng.integers(0, n, n // 2), "s": np.sort(a),
        "v": rng.standard_normal(max(1, n // 10)).astype(dtype),
        "a100": a[:100],
    }


def namespaces(n: int, dtype: str) -> list[dict]:
    """(NumPy, strided, PyTorch) globals for the statements: fresh copies per library."""
    d = data(n, dtype)
    conv = (lambda v: v.copy() if isinstance(v, np.ndarray) else v,
            lambda v: st.asarray(v) if isinstance(v, np.ndarray) else v,
            lambda v: torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v)
    out = []
    for lib, f in zip((np, st, torch), conv):
        if lib is None:
            out.append(None)
            continue
        ns = {k: f(v) for k, v in d.items()}
        # views stay views: rebuild the derived ones from the converted base
        ns["m"] = ns["a"].reshape(d["m"].shape) if lib is not st else st.reshape(ns["a"], d["m"].shape)
        ns["mT"] = ns["m"].T
        ns["a1"] = ns["a"][None]
        ns["a2"] = ns["a"][::2]
        ns["a100"] = ns["a"][:100]
        ns["x"] = lib
        out.append(ns)
    return out


def time_case(stmts, nss, repeats: int, min_batch_ns: int = 200_000):
    """Median ns per call of each statement (None where a library lacks it)."""
    timers = []
    for stmt, ns in zip(stmts, nss):
        if stmt is None or ns is None:
            timers.append(None)
            continue
        t = timeit.Timer(stmt, globals=ns, timer=time.perf_counter_ns)
        try:
            t.timeit(1)
        except Exception as e:  # a peer that cannot run the case is left out
            print(f"  ({stmt!r}: {type(e).__name__}: {e})", file=sys.stderr)
            timers.append(None)
            continue
        k = 1
        while t.timeit(k) < min_batch_ns:
            k *= 2
        timers.append((t, k))
    samples = [[] for _ in timers]
    order = [i for i, t in enumerate(timers) if t is not None]
    for rep in range(repeats):
        rot = order[rep % len(order):] + order[:rep % len(order)]
        for i in rot:
            t, k = timers[i]
            samples[i].append(t.timeit(k) / k)
    return [statistics.median(s) if s else None for s in samples]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="100,10000,1000000")
    p.add_argument("--dtypes", default="float64,float32")
    p.add_argument("--filter", default="")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--top", type=int, default=0, help="print only the worst TOP rows")
    args = p.parse_args(argv)
    rows = []
    for dtype in args.dtypes.split(","):
        for n in map(int, args.sizes.split(",")):
            nss = namespaces(n, dtype)
            for name, stmts in CASES.items():
                if args.filter and args.filter not in name:
                    continue
                md = time_case(stmts, nss, args.repeats)
                if md[1] is None:
                    continue
                peers = [v for v in (md[0], md[2]) if v is not None]
                rows.append((md[1] / min(peers), name, dtype, n, md))
    rows.sort(key=lambda r: -r[0])
    if args.top:
        rows = rows[:args.top]
    fmt = lambda v: "%10.2f" % (v / 1e3) if v is not None else "%10s" % "-"
    print("%-18s %-8s %8s %10s %10s %10s %7s %7s" % ("case", "dtype", "n", "numpy us", "strided", "torch",
                                                     "/min", "/numpy"))
    for q, name, dtype, n, md in rows:
        print("%-18s %-8s %8d %s %s %s %7.2f %7.2f" % (name, dtype, n, fmt(md[0]), fmt(md[1]), fmt(md[2]),
                                                      q, md[1] / md[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
