"""Instructions per call of small reductions, strided and NumPy, under callgrind.

The method of ``callgrind_tiny.py`` (two runs of N1 and N2 calls after the same setup,
hash seed fixed, the garbage collector off; (Ir(N2) - Ir(N1)) / (N2 - N1) per call),
over the reductions of issue 38's per-call point: a float32 4x4 ``m``, 2x3x4 ``a3``,
a boolean 4x4 ``c`` and a float32 1000-element ``v``.

    python benchmarks/callgrind_reduce.py                 # every case below
    python benchmarks/callgrind_reduce.py max var         # cases whose name contains one
    python benchmarks/callgrind_reduce.py --strided-only  # skip NumPy's runs
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

# name: (strided statement, NumPy statement)
CASES = {
    "sum(m, axis=1)": ("xp.sum(m, axis=1)", "np.sum(m, axis=1)"),
    "sum(m, dtype=float64)": ("xp.sum(m, dtype=xp.float64)", "np.sum(m, dtype=np.float64)"),
    "sum(a3, axis=(1, 2))": ("xp.sum(a3, axis=(1, 2))", "np.sum(a3, axis=(1, 2))"),
    "prod(m, axis=0)": ("xp.prod(m, axis=0)", "np.prod(m, axis=0)"),
    "mean(m, axis=1)": ("xp.mean(m, axis=1)", "np.mean(m, axis=1)"),
    "max(m, axis=1)": ("xp.max(m, axis=1)", "np.max(m, axis=1)"),
    "min(m)": ("xp.min(m)", "np.min(m)"),
    "max(v)": ("xp.max(v)", "np.max(v)"),
    "var(m, axis=1, correction=1)": ("xp.var(m, axis=1, correction=1)", "np.var(m, axis=1, ddof=1)"),
    "std(m)": ("xp.std(m)", "np.std(m)"),
    "argmax(m, axis=1)": ("xp.argmax(m, axis=1)", "np.argmax(m, axis=1)"),
    "argmin(m)": ("xp.argmin(m)", "np.argmin(m)"),
    "any(c, axis=1)": ("xp.any(c, axis=1)", "np.any(c, axis=1)"),
    "all(c)": ("xp.all(c)", "np.all(c)"),
    "cumulative_sum(m, axis=1)": ("xp.cumulative_sum(m, axis=1)", "np.cumulative_sum(m, axis=1)"),
}

_CHILD = r'''
import gc, sys
import numpy as np
rng = np.random.default_rng(12345)
m = rng.standard_normal((4, 4)).astype(np.float32)
a3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
c = m > 0
v = rng.standard_normal(1000).astype(np.float32)
lib, stmt, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if lib == "strided":
    import strided as xp
    m, a3, c, v = (xp.asarray(t) for t in (m, a3, c, v))
else:
    xp = np
g = dict(m=m, a3=a3, c=c, v=v, xp=xp, np=np)
exec(compile(f"for _ in range(200):\n    {stmt}\n", "<warm>", "exec"), g)
code = compile(f"for _ in range({n}):\n    {stmt}\n", "<calls>", "exec")
gc.collect()
gc.disable()
exec(code, g)
'''


def instructions(lib: str, stmt: str, n: int) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        sys.executable, "-c", _CHILD, lib, stmt, str(n)],
                       env=env, capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", p.stderr).group(1))


def per_call(lib: str, stmt: str, n1: int = 1000, n2: int = 6000) -> float:
    return (instructions(lib, stmt, n2) - instructions(lib, stmt, n1)) / (n2 - n1)


def main(argv) -> None:
    only = "--strided-only" in argv
    sel = [a for a in argv if not a.startswith("--")]
    print("| case | strided (Ir/call) | NumPy (Ir/call) | strided/NumPy |")
    print("|:--|--:|--:|--:|")
    for name, (s_stmt, n_stmt) in CASES.items():
        if sel and not any(s in name for s in sel):
            continue
        s = per_call("strided", s_stmt)
        if only:
            print(f"| {name} | {s:,.0f} | | |", flush=True)
            continue
        n = per_call("numpy", n_stmt)
        print(f"| {name} | {s:,.0f} | {n:,.0f} | {s / n:.2f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
