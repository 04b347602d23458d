"""Which mid-size results the buffer pool should serve: one-library programs (issue 38).

The sweep's remaining add/multiply/less losses at 6e4-1e6 elements under glibc's default
malloc are a harness effect (``pool_cache_sim.py``: the other libraries share the block glibc
just freed, strided's pool keeps its own). Handing those sizes to glibc would match the
harness; this script checks what it does to a program that uses strided alone. Each
measurement is a fresh interpreter (glibc's dynamic mmap threshold starts at 128 KiB in
every process) running one statement in a loop with the pool's threshold at ``pool`` (the
default) or ``heap`` (raised to 32 MiB: glibc's own maximum mmap threshold, so that every
size glibc keeps on its heap after a free goes to glibc), and reports per call:

- ``first``: the first call's time (a fresh process: glibc maps the result);
- ``min`` / ``med``: over the loop after three warm-up calls;
- ``flt``: minor page faults per call over the loop (getrusage: exact, not noise).

Ops: ``add`` (a + b), ``fma`` (a * b + c: one temporary, elided), ``exp``, and ``chain3``
(x = a*b, y = b*c, z = a*c alive together, then x*y + z*x): several live temporaries, so
that glibc's heap holds more than its trim threshold when they are freed.

Scenarios: ``plain`` (inputs made, then the loop) and ``bigfree`` (a 16 MiB NumPy array made
and freed first: glibc's threshold rises to 16 MiB, its trim threshold to 32 MiB).
The policies alternate round by round; the table shows the minimum over rounds.

Measured (issue 38, 2-core EPYC VM under load 3-4: times are noisy, faults are exact),
glibc's default malloc: add/fma/exp at 6e4-1e7 0 faults per call under either policy, times
within noise (heap/pool medians 0.74-1.73, both ways); chain3 at 1e5-1e6 float32/float64
``heap`` 457-3,874 faults per call, 2.2-9.6x the pool's median time. Under
MALLOC_MMAP_THRESHOLD_=131072 (where the pool already starts at 128 KiB) ``heap`` faults
every result: add 1e5-1e6 3.9-28x, chain3 2.6-33x. In the benchmark harness (``midsize``,
``add``, default malloc, medians) ``heap`` would have taken strided/min(NumPy, PyTorch) at
6e4-1e6 from 0.97-1.15 to 0.92-1.03: the harness effect, not a program's. The pool's policy
was kept.

    python benchmarks/pool_policy.py                       # the default sizes, both policies
    python benchmarks/pool_policy.py --rounds 3 --n 100000 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_CHILD = r"""
import json, resource, sys, time
import numpy as np
import strided as st
op, n, dt, policy, scen, loops = sys.argv[1:7]
n, loops = int(n), int(loops)
st.set_num_threads(1)
if policy == "heap":
    st.set_pool_threshold(32 << 20)
rng = np.random.default_rng(0)
if scen == "bigfree":
    big = np.ones(2 << 20); del big
a = st.asarray(rng.uniform(0.5, 2.0, n).astype(dt))
b = st.asarray(rng.uniform(0.5, 2.0, n).astype(dt))
c = st.asarray(rng.uniform(0.5, 2.0, n).astype(dt))
def chain3():
    x = a * b; y = b * c; z = a * c  # three live temporaries, then two more
    return x * y + z * x
f = {"add": lambda: a + b, "fma": lambda: a * b + c, "exp": lambda: st.exp(a), "chain3": chain3}[op]
pc = time.perf_counter_ns
t0 = pc(); r = f(); first = pc() - t0; del r
for _ in range(3):
    r = f(); del r
ts = []
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(loops):
    t0 = pc(); r = f(); t1 = pc(); del r
    ts.append(t1 - t0)
flt = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) / loops
ts.sort()
print(json.dumps({"first": first / 1e3, "min": ts[0] / 1e3, "med": ts[len(ts) // 2] / 1e3, "flt": flt}))
"""


def run(op, n, dt, policy, scen, loops, env):
    out = subprocess.run([sys.executable, "-c", _CHILD, op, str(n), dt, policy, scen, str(loops)],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="*",
                    default=[60000, 100000, 200000, 500000, 1000000, 2000000, 10000000])
    ap.add_argument("--ops", nargs="*", default=["add", "fma", "exp"])
    ap.add_argument("--dtypes", nargs="*", default=["float32", "float64"])
    ap.add_argument("--scen", nargs="*", default=["plain", "bigfree"])
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args(argv)
    env = dict(os.environ)
    env["PYTHONPATH"] = "src" + os.pathsep + env.get("PYTHONPATH", "")
    print(f"malloc: {env.get('MALLOC_MMAP_THRESHOLD_') or 'glibc default'}; times in us, flt = faults/call")
    print("| op | dtype | n | scenario | pool first | heap first | pool min | heap min | pool med | "
          "heap med | heap/pool med | pool flt | heap flt |")
    print("|" + "--|" * 13)
    for op in a.ops:
        for dt in a.dtypes:
            for n in a.n:
                loops = max(20, min(400, int(4e8 // (n * 8))))
                for scen in a.scen:
                    best = {}
                    for _ in range(a.rounds):
                        for pol in ("pool", "heap"):
                            r = run(op, n, dt, pol, scen, loops, env)
                            b = best.setdefault(pol, r)
                            for k in r:
                                b[k] = min(b[k], r[k])
                    p, h = best["pool"], best["heap"]
                    print(f"| {op} | {dt} | {n} | {scen} | {p['first']:.0f} | {h['first']:.0f} | "
                          f"{p['min']:.1f} | {h['min']:.1f} | {p['med']:.1f} | {h['med']:.1f} | "
                          f"{h['med'] / p['med']:.2f} | {p['flt']:.1f} | {h['flt']:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
