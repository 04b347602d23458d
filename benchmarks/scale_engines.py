#!/usr/bin/env python
"""``sum(a @ a.T)`` on cubed's processes executor and on a dask.distributed LocalCluster,
strided chunks against NumPy chunks (docs/ecosystem.md, "Cubed, Dask and xarray").

    python benchmarks/scale_engines.py --n 4000 --rounds 3

Each (engine, backend) run is a fresh process (cubed reads its backend from
``CUBED_BACKEND_ARRAY_API_MODULE`` at import), 2 workers of 1 BLAS thread each,
chunks of n/2 x n/2. The runs are interleaved round by round; the figure per
configuration is the median of its rounds' wall times (array creation, the
product, the reduction and the transfer of the result; cubed's executor also
starts its worker pool within each compute). Nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def one(engine, backend, n, work_dir):
    """One timed ``sum(a @ a.T)``; returns (seconds, value, result type)."""
    c = n // 2
    if engine == "cubed":
        import cubed
        import cubed.array_api as cxp

        spec = cubed.Spec(work_dir=work_dir, allowed_mem="2GB", executor_name="processes",
                          executor_options={"max_workers": 2})
        t = time.perf_counter()
        a = cubed.random.random((n, n), chunks=(c, c), spec=spec)
        r = cxp.sum(a @ a.T).compute()
        return time.perf_counter() - t, float(np.asarray(r)), type(r).__module__
    import dask.array as da
    import distributed

    import strided as xp

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, worker_dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        client.run(lambda: __import__("strided"))  # workers import strided before the clock starts
        t = time.perf_counter()
        a = da.random.default_rng(0).random((n, n), chunks=(c, c))
        if backend == "strided":
            a = a.map_blocks(xp.asarray, meta=xp.empty((0, 0), dtype=xp.float64, device="cpu"))
        r = client.compute((a @ a.T).sum(), sync=True)
        return time.perf_counter() - t, float(np.asarray(r)), type(r).__module__


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=4000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--one", nargs=2, metavar=("ENGINE", "BACKEND"))
    args = p.parse_args()
    if args.one:
        with tempfile.TemporaryDirectory() as d:
            print(json.dumps(one(*args.one, args.n, d)))
        return
    configs = [(e, b) for e in ("cubed", "dask") for b in ("numpy", "strided")]
    times = {cfg: [] for cfg in configs}
    for _ in range(args.rounds):
        for e, b in configs:
            env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
            if e == "cubed":
                env["CUBED_BACKEND_ARRAY_API_MODULE"] = "strided" if b == "strided" else "array_api_compat.numpy"
            out = subprocess.run([sys.executable, __file__, "--n", str(args.n), "--one", e, b],
                                 capture_output=True, text=True, env=env, check=True).stdout
            s, value, kind = json.loads(out.strip().splitlines()[-1])
            times[(e, b)].append(s)
            print(f"{e:6s} {b:8s} {s:7.2f} s  sum={value:.6e}  result: {kind}", flush=True)
    print(f"\nn={args.n}, {args.rounds} rounds, median seconds (strided / NumPy):")
    for e in ("cubed", "dask"):
        mn, ms = statistics.median(times[(e, "numpy")]), statistics.median(times[(e, "strided")])
        print(f"{e:6s} numpy {mn:.2f}  strided {ms:.2f}  ratio {ms / mn:.2f}")


if __name__ == "__main__":
    main()
