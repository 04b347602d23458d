"""Instructions per call of small reductions, strided and NumPy, under callgrind.

The method of ``callgrind_tiny.py`` ((Ir(N2) - Ir(N1)) / (N2 - N1) per call, hash seed
fixed, the garbage collector off), with every case in one valgrind run per library:
``os.getppid()`` marks the segments (``--dump-before=getppid``: one profile dump per
mark), so the interpreter's start and imports are paid once. Inputs: a float32 4x4
``m``, 2x3x4 ``a3``, a boolean 4x4 ``c`` and a float32 1000-element ``v``.

    python benchmarks/callgrind_reduce.py                  # every case below
    python benchmarks/callgrind_reduce.py max var          # cases whose name contains one
    python benchmarks/callgrind_reduce.py --strided-only   # skip NumPy's run
    python benchmarks/callgrind_reduce.py --src /tmp/base/src --strided-only   # another tree
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tempfile

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
import gc, os, sys
import numpy as np
rng = np.random.default_rng(12345)
m = rng.standard_normal((4, 4)).astype(np.float32)
a3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
c = m > 0
v = rng.standard_normal(1000).astype(np.float32)
lib, n1, n2, stmts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
if lib == "strided":
    import strided as xp
    m, a3, c, v = (xp.asarray(t) for t in (m, a3, c, v))
else:
    xp = np
g = dict(m=m, a3=a3, c=c, v=v, xp=xp, np=np)
for stmt in stmts:
    exec(compile(f"for _ in range(200):\n    {stmt}\n", "<warm>", "exec"), g)
    codes = [compile(f"for _ in range({n}):\n    {stmt}\n", "<calls>", "exec") for n in (n1, n2)]
    gc.collect()
    gc.disable()
    for code in codes:
        os.getppid()
        exec(code, g)
    os.getppid()
    gc.enable()
'''


def per_call(lib: str, stmts: list, src: str | None = None, n1: int = 1000, n2: int = 6000) -> list:
    """Instructions per call of each statement (one valgrind run)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    if src is not None:
        env["PYTHONPATH"] = src
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg",
                        "--dump-before=getppid", sys.executable, "-c", _CHILD, lib, str(n1), str(n2),
                        *stmts], env=env, capture_output=True, text=True, check=True)
        ir = {}
        for f in glob.glob(f"{d}/cg.*"):
            k = int(f.rsplit(".", 1)[1])
            ir[k] = int(re.search(r"^summary: (\d+)", open(f).read(), re.M).group(1))
    # dump 1: start-up; then per statement: mark, N1 calls, mark, N2 calls, mark (3 dumps)
    out = []
    for i in range(len(stmts)):
        a, b = ir[2 + 3 * i], ir[3 + 3 * i]
        out.append((b - a) / (n2 - n1))
    return out


def main(argv) -> None:
    only = "--strided-only" in argv
    src = None
    if "--src" in argv:
        src = argv[argv.index("--src") + 1]
        argv = [a for a in argv if a not in ("--src", src)]
    sel = [a for a in argv if not a.startswith("--")]
    names = [k for k in CASES if not sel or any(s in k for s in sel)]
    s = per_call("strided", [CASES[k][0] for k in names], src)
    n = None if only else per_call("numpy", [CASES[k][1] for k in names])
    print("| case | strided (Ir/call) | NumPy (Ir/call) | strided/NumPy |")
    print("|:--|--:|--:|--:|")
    for i, name in enumerate(names):
        if n is None:
            print(f"| {name} | {s[i]:,.0f} | | |")
        else:
            print(f"| {name} | {s[i]:,.0f} | {n[i]:,.0f} | {s[i] / n[i]:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
