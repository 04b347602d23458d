"""Instructions per call of the ops the ``realwork`` cases spend their calls in, strided vs
NumPy's same op, under callgrind (issue 38).

``benchmarks/realwork.py`` times whole scikit-learn and SciPy calls; at 1000x20 they are
dozens of small ops each, and their wall-clock medians drift by 10-30% on a shared
machine. Instruction counts do not. Each library runs twice under ``valgrind
--tool=callgrind`` (every case N1 times, then every case N2 times, after the same warm-up);
``--dump-before=time_sleep`` cuts the count at a ``time.sleep(0)`` between cases, so one
process measures them all, and (Ir(N2) - Ir(N1)) / (N2 - N1) is one call, the loop
included (the same for both libraries). The inputs are the shapes the cases see (1000x20
float64 data, its moved-axis view as SciPy's stats make it, (1000, 1) and (1000, 3)
columns, 20-element vectors).

    python benchmarks/realwork_ops.py                 # every case below
    python benchmarks/realwork_ops.py where reshape   # those whose name contains a word
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tempfile

# name: (NumPy statement, strided statement) over the inputs _CHILD makes
CASES = {
    "asarray(X)": ("np.asarray(X)", "xp.asarray(SX)"),
    "asarray(ndarray of 60)": ("np.asarray(n60)", "xp.asarray(n60)"),
    "asarray(v, copy=True)": ("np.asarray(v, copy=True)", "xp.asarray(sv, copy=True)"),
    "asarray(True, device=)": ("np.asarray(True)", "xp.asarray(True, device=d)"),
    "arange(20, device=)": ("np.arange(20)", "xp.arange(20, device=d)"),
    "full((), nan)": ("np.full((), np.nan)", "xp.full((), xp.nan, dtype=xp.float64, device=d)"),
    "squeeze(c, axis=1)": ("np.squeeze(c, axis=1)", "xp.squeeze(sc, axis=1)"),
    "reshape(v, (-1, 1))": ("np.reshape(v, (-1, 1))", "xp.reshape(sv, (-1, 1))"),
    "reshape(X, (-1,))": ("np.reshape(X, (-1,))", "xp.reshape(SX, (-1,))"),
    "reshape(T, (-1,)) (a copy)": ("np.reshape(T, (-1,))", "xp.reshape(ST, (-1,))"),
    "where(b, nan, v)": ("np.where(b, np.nan, v)", "xp.where(sb, xp.nan, sv)"),
    "where(m, c, 0)": ("np.where(m, c, 0)", "xp.where(sm, sc, 0)"),
    "mean(T, axis=-1)": ("np.mean(T, axis=-1)", "xp.mean(ST, axis=-1)"),
    "max(T, axis=-1, keepdims=True)": ("np.max(T, axis=-1, keepdims=True)",
                                       "xp.max(ST, axis=-1, keepdims=True)"),
    "mean(X, axis=0, keepdims=True)": ("np.mean(X, axis=0, keepdims=True)",
                                       "xp.mean(SX, axis=0, keepdims=True)"),
    "sum(L, axis=1, keepdims=True)": ("np.sum(L, axis=1, keepdims=True)",
                                      "xp.sum(SL, axis=1, keepdims=True)"),
    "argmax(M, axis=1)": ("np.argmax(M, axis=1)", "xp.argmax(SM, axis=1)"),
    "min(v)": ("np.min(v)", "xp.min(sv)"),
    "v ** 0.5": ("v ** 0.5", "sv ** 0.5"),
    "X - X[:1]": ("X - X[:1]", "SX - SX[:1]"),
    "L /= 1000": ("np.divide(L, 1000, out=L)", "SL.__itruediv__(1000)"),
    "result_type(X, 1.0)": ("np.result_type(X, 1.0)", "xp.result_type(SX, 1.0)"),
    "take(v, i)": ("np.take(v, i)", "xp.take(sv, si)"),
    "v[:, None]": ("v[:, None]", "sv[:, None]"),
}

_CHILD = r'''
import sys, time
import numpy as np
rng = np.random.default_rng(0)
X = rng.random((1000, 20)); T = np.moveaxis(X, 0, -1)
c = rng.random((1000, 1)); m = c > 0.5
v = rng.random(20); b = v > 0.5
n60 = rng.random(60); M = rng.random((20, 20)); L = rng.random((1000, 3)); i = np.arange(20)
lib, n = sys.argv[1], int(sys.argv[2])
stmts = sys.argv[3:]
g = dict(np=np, X=X, T=T, c=c, m=m, v=v, b=b, n60=n60, M=M, L=L, i=i)
if lib == "strided":
    import strided as xp
    xp.set_num_threads(1)
    g.update(xp=xp, SX=xp.asarray(X.copy()), ST=xp.moveaxis(xp.asarray(X.copy()), 0, -1),
             sc=xp.asarray(c.copy()), sm=xp.asarray(m.copy()), sv=xp.asarray(v.copy()),
             sb=xp.asarray(b.copy()), SM=xp.asarray(M.copy()), SL=xp.asarray(L.copy()),
             si=xp.asarray(i.copy()), d=xp.asarray(v).device)
codes = []
for s in stmts:
    exec(compile(f"for _ in range(50):\n    {s}\n", "<warm>", "exec"), g)
    codes.append(compile(f"for _ in range({n}):\n    {s}\n", "<calls>", "exec"))
import gc
gc.collect()
gc.disable()
for code in codes:
    time.sleep(0)  # (callgrind dumps here: the count so far is the previous case's)
    exec(code, g)
time.sleep(0)
'''


def _segments(lib: str, stmts: list, n: int) -> list:
    """Instructions of each statement's ``n`` calls, in order."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=time_sleep",
                        f"--callgrind-out-file={d}/cg.out", sys.executable, "-c", _CHILD, lib,
                        str(n), *stmts], env=env, capture_output=True, text=True, check=True)
        parts = sorted(glob.glob(f"{d}/cg.out.*"), key=lambda f: int(f.rsplit(".", 1)[1]))
        counts = [int(re.search(r"^summary: (\d+)", open(f).read(), re.M).group(1)) for f in parts]
    # dump 1: start-up to the first sleep; dump k+1: case k (the last ends at the final sleep)
    return counts[1:1 + len(stmts)]


def main(words) -> None:
    names = [k for k in CASES if not words or any(w in k for w in words)]
    n1, n2 = 200, 1200
    per = {}
    for lib, col in (("numpy", 0), ("strided", 1)):
        stmts = [CASES[k][col] for k in names]
        a, b = _segments(lib, stmts, n1), _segments(lib, stmts, n2)
        per[lib] = [(y - x) / (n2 - n1) for x, y in zip(a, b)]
    print("| op (realwork inputs) | strided (Ir/call) | NumPy (Ir/call) | strided/NumPy |")
    print("|:--|--:|--:|--:|")
    for k, s, n in zip(names, per["strided"], per["numpy"]):
        print(f"| {k} | {s:,.0f} | {n:,.0f} | {s / n:.2f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
