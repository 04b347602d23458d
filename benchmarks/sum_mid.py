"""Whole-array float sums at mid sizes (issue 38, helper sum12): strided vs PyTorch vs NumPy.

One thread each (``torch.set_num_threads(1)``, ``strided.set_num_threads(1)``). For every
size and dtype, ``--batches`` rounds; in each round every library runs ``--calls`` calls
back to back (the order of the libraries rotates from round to round), and the round's time
per call is kept. Prints the min and the median per call (us) and strided / torch ratios.
Also times the bare kernel (``_ckernels.sum_all(a, 1)``: no namespace overhead) and the
call overhead at n=10. The arrays are made as the midsize sweep makes them
(``benchmarks/cases.py``: uniform(0.5, 2), each library's own copy), so run it twice for
the two malloc regimes:

    PYTHONPATH=src python benchmarks/sum_mid.py
    MALLOC_MMAP_THRESHOLD_=131072 PYTHONPATH=src python benchmarks/sum_mid.py
    PYTHONPATH=src python benchmarks/sum_mid.py --sizes 60000,100000 --dtypes float32
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch

import strided as st
from strided._core import cfast

SIZES = [1000, 10_000, 60_000, 65_536, 100_000, 200_000, 500_000, 1_000_000, 10_000_000]


def _placed(src, offset):
    """A copy of src starting `offset` bytes past a 64-byte boundary."""
    raw = np.empty(src.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    out = raw[start:start + src.nbytes].view(src.dtype)
    out[...] = src
    return out


def _batch(fn, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1e6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--batches", type=int, default=30)
    ap.add_argument("--calls", type=int, default=200, help="calls per batch (fewer for large n)")
    ap.add_argument("--no-kernel", action="store_true", help="skip the bare _ckernels.sum_all column")
    ap.add_argument("--offset", type=int, default=None,
                    help="place every library's data this many bytes past a 64-byte boundary "
                         "(default: where each library's allocator puts it; 'off' shows where)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    st.set_num_threads(1)
    ck = cfast._ckernels if cfast.AVAILABLE else None
    print(f"malloc: MALLOC_MMAP_THRESHOLD_={os.environ.get('MALLOC_MMAP_THRESHOLD_', 'default')}; "
          f"{args.batches} batches; us per call, min / median")
    print(f"{'dtype':8} {'n':>9} | {'strided':>15} | {'kernel':>15} | {'torch':>15} | {'numpy':>15} |"
          f" st/torch min med | off st torch")
    rng = np.random.default_rng(0)
    for dt in args.dtypes.split(","):
        for n in map(int, args.sizes.split(",")):
            src = rng.uniform(0.5, 2.0, n).astype(dt)
            if args.offset is None:
                a_st = st.asarray(np.array(src, copy=True))
                a_t = torch.from_numpy(np.array(src, copy=True))
                a_np = np.array(src, copy=True)
            else:
                a_st = st.from_dlpack(_placed(src, args.offset))
                a_t = torch.from_numpy(_placed(src, args.offset))
                a_np = _placed(src, args.offset)
            a_k = np.from_dlpack(a_st) if ck is not None else None
            fns = {"strided": lambda: st.sum(a_st), "torch": lambda: torch.sum(a_t),
                   "numpy": lambda: np.sum(a_np)}
            if ck is not None and not args.no_kernel and n > 128:
                fns["kernel"] = lambda: ck.sum_all(a_k, 1)
            calls = max(3, min(args.calls, int(2e7 // max(n, 1))))
            for f in fns.values():  # warm up
                _batch(f, calls)
            times = {k: [] for k in fns}
            names = list(fns)
            for b in range(args.batches):
                for k in names[b % len(names):] + names[:b % len(names)]:
                    times[k].append(_batch(fns[k], calls))

            def cell(k):
                if k not in times:
                    return f"{'-':>15}"
                return f"{min(times[k]):7.2f} {statistics.median(times[k]):7.2f}"
            r_min = min(times["strided"]) / min(times["torch"])
            r_med = statistics.median(times["strided"]) / statistics.median(times["torch"])
            print(f"{dt:8} {n:>9} | {cell('strided')} | {cell('kernel')} | {cell('torch')} | "
                  f"{cell('numpy')} | {r_min:5.2f} {r_med:5.2f} | {np.from_dlpack(a_st).ctypes.data % 64:3d}"
                  f" {a_t.data_ptr() % 64:3d}", flush=True)


if __name__ == "__main__":
    main()
