"""Group (j)'s expressions, strided against NumPy and PyTorch, with page faults per call.

    python benchmarks/pool_temporaries.py                      # glibc's default threshold
    MALLOC_MMAP_THRESHOLD_=131072 python benchmarks/pool_temporaries.py
    python benchmarks/pool_temporaries.py --only strided --case "MLP chain" --n 1000000 \
        --dtype float32 --calls 50                             # one library, for callgrind

The same statements as ``benchmarks/cases.py``'s ``temporaries`` (one thread for
every library). The libraries are timed round-robin in one process: many short
batches each, the minimum per call reported (the machine may be shared: the
minimum is the batch that ran undisturbed). Page faults are the process's minor
faults (``getrusage``) over a batch, per call, the minimum over the batches.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

CASES = {"a*b+c": ("a * b + c", "a * b + c"),
         "add(multiply(a, b), c)": ("xp.add(xp.multiply(a, b), c)", "torch.add(torch.mul(a, b), c)"),
         "MLP chain": ("xp.maximum(a * b + c, o) * (a > one) - 0.01 * c",
                       "torch.maximum(a * b + c, o) * (a > one) - 0.01 * c")}


def _envs(n, dtype, libs):
    import numpy as np
    rng = np.random.default_rng(0)
    arrs = {k: rng.uniform(-1.0, 2.0, n).astype(dtype) for k in "abc"}
    arrs["o"] = np.zeros(n, dtype)
    arrs["one"] = np.ones(n, dtype)
    out = {}
    if "strided" in libs:
        import strided
        strided.set_num_threads(1)
        out["strided"] = dict({k: strided.asarray(v) for k, v in arrs.items()}, xp=strided)
    if "numpy" in libs:
        out["numpy"] = dict(arrs, xp=np)
    if "torch" in libs:
        try:
            import torch
        except ImportError:
            pass
        else:
            torch.set_num_threads(1)
            out["torch"] = dict({k: torch.from_numpy(v.copy()) for k, v in arrs.items()}, torch=torch)
    return out


def _batch(code, ns, calls):
    """(seconds per call, minor faults per call) of one batch of ``calls`` calls."""
    loop = compile(f"for _ in range({calls}):\n    {code}\n", "<batch>", "exec")
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t = time.perf_counter()
    exec(loop, ns)
    dt = time.perf_counter() - t
    return dt / calls, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) / calls


def measure(case, n, dtype, libs, rounds, target):
    stmt, tstmt = CASES[case]
    envs = _envs(n, dtype, libs)
    codes = {lib: (tstmt if lib == "torch" else stmt) for lib in envs}
    calls = {}
    for lib, ns in envs.items():  # warm up, then size a batch to about ``target`` seconds
        _batch(codes[lib], ns, 3)
        per, _ = _batch(codes[lib], ns, 3)
        calls[lib] = max(1, int(target / per))
    best = {lib: (float("inf"), float("inf")) for lib in envs}
    order = list(envs)
    for r in range(rounds):
        for lib in order[r % len(order):] + order[:r % len(order)]:  # the first one rotates
            t, f = _batch(codes[lib], envs[lib], calls[lib])
            bt, bf = best[lib]
            best[lib] = (min(bt, t), min(bf, f))
    return best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--case", action="append", choices=list(CASES))
    p.add_argument("--n", type=int, action="append")
    p.add_argument("--dtype", action="append", choices=["float32", "float64"])
    p.add_argument("--only", choices=["strided", "numpy", "torch"], help="one library, no comparison")
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--target", type=float, default=0.003, help="seconds per batch")
    p.add_argument("--calls", type=int, help="with --only: run this many calls and exit (callgrind)")
    a = p.parse_args(argv)
    cases = a.case or list(CASES)
    sizes = a.n or [10**6, 10**7]
    dtypes = a.dtype or ["float32", "float64"]
    libs = [a.only] if a.only else ["strided", "numpy", "torch"]
    if a.calls:
        for case in cases:
            for n in sizes:
                for dt in dtypes:
                    ns = _envs(n, dt, libs)[libs[0]]
                    stmt, tstmt = CASES[case]
                    _batch(tstmt if libs[0] == "torch" else stmt, ns, a.calls)
        return
    print(f"MALLOC_MMAP_THRESHOLD_={os.environ.get('MALLOC_MMAP_THRESHOLD_', '(glibc default)')}; "
          f"min of {a.rounds} interleaved batches of ~{a.target * 1e3:g} ms; load {os.getloadavg()[0]:.1f}")
    print(f"{'case':<28}{'n':>6} {'dtype':<8}" + "".join(f"{lib:>18}" for lib in libs)
          + ("   /min(np,torch)" if len(libs) > 1 else ""))
    for case in cases:
        for n in sizes:
            for dt in dtypes:
                best = measure(case, n, dt, libs, a.rounds, a.target)
                cells = "".join(f"{best[lib][0] * 1e6:>10.0f} us {best[lib][1]:>4.0f}pf" for lib in best)
                ratio = ""
                peers = [best[lib][0] for lib in best if lib != "strided"]
                if "strided" in best and peers:
                    ratio = f"   {best['strided'][0] / min(peers):.3f}"
                print(f"{case:<28}{n:>6.0e} {dt:<8}{cells}{ratio}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
