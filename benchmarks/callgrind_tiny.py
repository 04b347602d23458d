"""Instructions per call of the tiny cases, strided and NumPy, under callgrind.

Wall-clock timings of 100-ns calls drift by 10-30% on a shared machine; instruction
counts do not. Each (library, case) runs twice under ``valgrind --tool=callgrind``,
with N1 and N2 calls of the case after the same setup (hash seed fixed, the garbage
collector off for the timed loop); (Ir(N2) - Ir(N1)) / (N2 - N1) is what one call
costs, the loop's own ``FOR_ITER``/``STORE`` included (the same for both libraries).

    python benchmarks/callgrind_tiny.py                 # every case below
    python benchmarks/callgrind_tiny.py add exp         # some of them
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

# name: (strided statement, NumPy statement) over the `tiny` group's inputs
CASES = {
    "add": ("a + b", None),
    "add scalar": ("a + 1.5", None),
    "multiply": ("a * b", None),
    "exp": ("xp.exp(a)", None),
    "less": ("a < b", None),
    "where": ("xp.where(c, a, b)", None),
    "astype float64": ("xp.astype(a, xp.float64)", "a.astype(np.float64)"),
    "slice view": ("a[2:8]", None),
    "slice views, then add": ("a[2:8] + b[2:8]", None),
    "transpose view": ("m.T", None),
    "relu": ("xp.relu(a)", "np.maximum(a, 0.0)"),
    "integer-array index": ("a[idx]", None),
    "boolean index": ("a[c]", None),
    "__setitem__ slice": ("a[2:5] = 0.5", None),
    "int index view": ("m[1]", None),
    "slice, int view": ("m[1:3, 0]", None),
    "newaxis view": ("a[:, None]", None),
    "boolean-mask setitem": ("a[c] = xp.nan", "a[c] = np.nan"),
    "take along an axis": ("xp.take(m, i2, axis=1)", "np.take(m, i2, axis=1)"),
    "full((), nan)": ("xp.full((), xp.nan, dtype=xp.float64)", "np.full((), np.nan)"),
    "power by 0.5": ("a ** 0.5", None),
    "result_type": ("xp.result_type(a, 1.0)", "np.result_type(a, 1.0)"),
    # the doors (issue 38, doors6): out=, in-place methods, copies, squeeze, flatten/unflatten
    "add out=": ("xp.add(a, b, out=d)", None),
    "exp out=": ("xp.exp(a, out=d)", None),
    "neg_ in place": ("d.neg_()", "np.negative(d, out=d)"),
    "exp_ in place": ("e.exp_()", "np.exp(e, out=e)"),
    "copy_": ("d.copy_(a)", "np.copyto(d, a)"),
    "a[...] = b": ("d[...] = a", None),
    "squeeze(x, axis=0)": ("xp.squeeze(m1, axis=0)", "np.squeeze(m1, axis=0)"),
    "flatten(1, 2)": ("a3.flatten(1, 2)", "a3.reshape(2, 16)"),
    "unflatten(2, (2, 2))": ("a3.unflatten(2, (2, 2))", "a3.reshape(2, 4, 2, 2)"),
    "zero_": ("d.zero_()", "d.fill(0)"),
    "fill_": ("d.fill_(1.5)", "d.fill(1.5)"),
    "sort": ("xp.sort(a)", "np.sort(a)"),
    "argsort": ("xp.argsort(a)", "np.argsort(a)"),
    # beyond the elementwise rows (stop 54): linear algebra, creation, joining, counting
    "vecdot": ("xp.vecdot(a, b)", "np.vecdot(a, b)"),
    "matmul of vectors": ("a @ b", None),
    "concat": ("xp.concat([a, b])", "np.concatenate([a, b])"),
    "zeros": ("xp.zeros(10)", "np.zeros(10, dtype=np.float32)"),
    "arange": ("xp.arange(10)", None),
    "count_nonzero": ("xp.count_nonzero(c)", "np.count_nonzero(c)"),
    "flip": ("xp.flip(a)", "np.flip(a)"),
    "searchsorted": ("xp.searchsorted(d, b)", "np.searchsorted(d, b)"),
    # the rest of issue 38's small-call list (small18): a norm, tiling, a flat take
    "vector_norm": ("xp.linalg.vector_norm(a)", "np.linalg.vector_norm(a)"),
    "tile": ("xp.tile(a, (2,))", "np.tile(a, (2,))"),
    "take": ("xp.take(a, idx)", "np.take(a, idx)"),
    # where beside a Python number and with operands that broadcast (stop 55): the gradients'
    # and scikit-learn's where(mask, x, 0.0)
    "where with a number": ("xp.where(c, a, 0.0)", None),
    "where, broadcast": ("xp.where(mc, m, col)", None),
}

_CHILD = r'''
import gc, sys
import numpy as np
rng = np.random.default_rng(12345)
a = rng.uniform(0.5, 2.0, 10).astype(np.float32)
b = rng.uniform(0.5, 2.0, 10).astype(np.float32)
c = a > b
m = rng.standard_normal((4, 4)).astype(np.float32)
idx = np.array([1, 3, 5, 7], dtype=np.int64)
i2 = np.array([0, 2], dtype=np.int64)
d = a.copy()
e = np.zeros(10, dtype=np.float32)  # (exp_ in place: exp(0) = 1, then e, e**e, ... inf)
m1 = np.ones((1, 10), dtype=np.float32)
a3 = np.ones((2, 4, 4), dtype=np.float32)
mc = m > 0
col = m[:, :1].copy()
lib, stmt, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if lib == "strided":
    import strided as xp
    a, b, c, m, idx, i2, d, e, m1, a3, mc, col = (xp.asarray(v) for v in (a, b, c, m, idx, i2, d, e, m1, a3, mc, col))
else:
    xp = np
g = dict(a=a, b=b, c=c, m=m, idx=idx, i2=i2, d=d, e=e, m1=m1, a3=a3, mc=mc, col=col, xp=xp, np=np)
exec(compile(f"for _ in range(200):\n    {stmt}\n", "<warm>", "exec"), g)
code = compile(f"for _ in range({n}):\n    {stmt}\n", "<calls>", "exec")
gc.collect()
gc.disable()
exec(code, g)
'''


def instructions(lib: str, stmt: str, n: int) -> int:
    # (one BLAS thread: OpenBLAS's idle threads added thousands of instructions per call)
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        sys.executable, "-c", _CHILD, lib, stmt, str(n)],
                       env=env, capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", p.stderr).group(1))


def per_call(lib: str, stmt: str, n1: int = 2000, n2: int = 22000) -> float:
    return (instructions(lib, stmt, n2) - instructions(lib, stmt, n1)) / (n2 - n1)


def main(names) -> None:
    print("| case | strided (Ir/call) | NumPy (Ir/call) | strided/NumPy |")
    print("|:--|--:|--:|--:|")
    for name in names or CASES:
        s_stmt, n_stmt = CASES[name]
        s = per_call("strided", s_stmt)
        n = per_call("numpy", n_stmt or s_stmt)
        print(f"| {name} | {s:,.0f} | {n:,.0f} | {s / n:.2f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
