#!/usr/bin/env python
"""Per-op overhead of strided against NumPy (and PyTorch) on 10 elements.

    python benchmarks/profile_hot_path.py            # the table: add, slice, transpose
    python benchmarks/profile_hot_path.py --cprofile # + cProfile of the strided add path
    python benchmarks/profile_hot_path.py --lines    # + per-line times of the add path (needs line_profiler)

One thread, medians of 7 timeit repeats. "overhead" is strided's time less
NumPy's: what strided adds on top of the kernel it calls.
"""

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"  # before NumPy loads its BLAS

import argparse  # noqa: E402
import statistics  # noqa: E402
import timeit  # noqa: E402

import numpy as np  # noqa: E402

import strided  # noqa: E402

OPS = {"add": "a + b", "slice": "a[2:8]", "transpose": "m.T"}


def median_ns(stmt: str, ns: dict, number: int = 20000) -> float:
    t = timeit.Timer(stmt, globals=ns)
    return statistics.median(t.repeat(repeat=7, number=number)) / number * 1e9


def inputs(convert) -> dict:
    a = np.linspace(0.5, 2.0, 10, dtype=np.float32)
    return {"a": convert(a), "b": convert(a[::-1].copy()), "m": convert(a.reshape(2, 5).copy())}


def table() -> None:
    libs = {"numpy": lambda x: x.copy(), "strided": lambda x: strided.asarray(x.copy())}
    try:
        import torch
        torch.set_num_threads(1)
        libs["torch"] = lambda x: torch.from_numpy(x.copy())
    except ImportError:
        pass
    data = {name: inputs(conv) for name, conv in libs.items()}
    head = f"{'op':<10}" + "".join(f"{n:>10}" for n in libs) + f"{'overhead':>10}{'/numpy':>8}"
    if "torch" in libs:
        head += f"{'/torch':>8}"
    print(head + "   (ns per call)")
    for op, stmt in OPS.items():
        t = {name: median_ns(stmt, data[name]) for name in libs}
        line = f"{op:<10}" + "".join(f"{t[n]:>10.0f}" for n in libs)
        line += f"{t['strided'] - t['numpy']:>10.0f}{t['strided'] / t['numpy']:>8.2f}"
        if "torch" in t:
            line += f"{t['strided'] / t['torch']:>8.2f}"
        print(line)


def cprofile(n: int = 200_000) -> None:
    import cProfile
    import pstats

    ns = inputs(lambda x: strided.asarray(x.copy()))
    code = compile(f"for _ in range({n}):\n    a + b", "<add loop>", "exec")
    print(f"\ncProfile of {n} strided adds (a + b), top functions by own time:")
    prof = cProfile.Profile()
    prof.runctx(code, ns, {})
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


def lines(n: int = 200_000) -> None:
    try:
        from line_profiler import LineProfiler
    except ImportError:
        print("\n--lines needs line_profiler: pip install line_profiler")
        return
    ns = inputs(lambda x: strided.asarray(x.copy()))
    add = strided.add
    funcs = [strided.Array.__add__, add, getattr(add, "_impl", None)]
    lp = LineProfiler(*[f for f in funcs if f is not None])
    a, b = ns["a"], ns["b"]
    lp.runcall(lambda: [a + b for _ in range(n)])
    print(f"\nPer-line times of the strided add path ({n} calls):")
    lp.print_stats(output_unit=1e-9)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cprofile", action="store_true", help="cProfile the strided add path")
    p.add_argument("--lines", action="store_true", help="per-line times of the add path (line_profiler)")
    args = p.parse_args(argv)
    table()
    if args.cprofile:
        cprofile()
    if args.lines:
        lines()
    return 0


if __name__ == "__main__":
    sys.exit(main())
