"""In-place arithmetic with a broadcasting operand (issue 38, iop8): ``X -= row``.

scikit-learn's scalers write ``X -= mean_; X /= scale_`` (StandardScaler.transform) and
``X *= scale_; X += min_`` (MinMaxScaler): a row operand broadcast over the rows. For each
case this prints the Python frames one call runs after warm-up (``sys.setprofile``'s
"call" events) and the instructions one call costs under callgrind, strided and NumPy
(as benchmarks/callgrind_tiny.py: two runs of N1 and N2 calls after the same setup,
(Ir(N2) - Ir(N1)) / (N2 - N1)).

    python benchmarks/iop_broadcast.py                  # every case
    python benchmarks/iop_broadcast.py "100x20 float64 row"
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

# name: (shape of X, dtype, statement, operand's shape)
CASES = {
    "100x20 float64 row": ((100, 20), "float64", "x -= y", (20,)),
    "100x20 float32 row": ((100, 20), "float32", "x -= y", (20,)),
    "1000x200 float64 row": ((1000, 200), "float64", "x -= y", (200,)),
    "1000x200 float32 row": ((1000, 200), "float32", "x -= y", (200,)),
    "100x20 float64 column": ((100, 20), "float64", "x -= y", (100, 1)),
    "100x20 float64 sub_ row": ((100, 20), "float64", "x.sub_(y)", (20,)),
    "100x20 float64 subtract out=": ((100, 20), "float64", "xp.subtract(x, y, out=x)", (20,)),
}
NUMPY = {"x.sub_(y)": "x -= y", "xp.subtract(x, y, out=x)": "np.subtract(x, y, out=x)"}

_CHILD = r'''
import gc, sys
import numpy as np
lib, shape, dt, stmt, yshape, n = sys.argv[1], eval(sys.argv[2]), sys.argv[3], sys.argv[4], eval(sys.argv[5]), int(sys.argv[6])
rng = np.random.default_rng(12345)
x = rng.uniform(0.5, 2.0, shape).astype(dt)
y = rng.uniform(-1e-9, 1e-9, yshape).astype(dt)  # (small: x stays finite over the calls)
if lib == "strided":
    import strided as xp
    x, y = xp.asarray(x), xp.asarray(y)
else:
    xp = np
g = dict(x=x, y=y, xp=xp, np=np)
exec(compile(f"for _ in range(20):\n    {stmt}\n", "<warm>", "exec"), g)
if n < 0:  # the frames of one call
    frames = []
    def prof(frame, event, arg):
        if event == "call":
            c = frame.f_code
            frames.append(f"{c.co_filename.split('src/strided/')[-1]}:{c.co_name}")
    code = compile(stmt, "<call>", "exec")
    sys.setprofile(prof)
    exec(code, g)
    sys.setprofile(None)
    frames = [f for f in frames if not f.startswith("<")]
    print(len(frames), " ".join(frames))
    raise SystemExit
code = compile(f"for _ in range({n}):\n    {stmt}\n", "<calls>", "exec")
gc.collect()
gc.disable()
exec(code, g)
'''


def _args(lib, case, n):
    shape, dt, stmt, yshape = CASES[case]
    if lib == "numpy":
        stmt = NUMPY.get(stmt, stmt)
    return [sys.executable, "-c", _CHILD, lib, repr(shape), dt, stmt, repr(yshape), str(n)]


def _env():
    return dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                MKL_NUM_THREADS="1", STRIDED_NUM_THREADS="1")


def frames(case: str) -> str:
    p = subprocess.run(_args("strided", case, -1), env=_env(), capture_output=True, text=True, check=True)
    return p.stdout.strip()


def instructions(lib: str, case: str, n: int) -> int:
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *_args(lib, case, n)],
                       env=_env(), capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", p.stderr).group(1))


def per_call(lib: str, case: str) -> float:
    big = CASES[case][0][0] >= 1000
    n1, n2 = (20, 220) if big else (500, 5500)
    return (instructions(lib, case, n2) - instructions(lib, case, n1)) / (n2 - n1)


def main(names) -> None:
    print("| case | frames | strided (Ir/call) | NumPy (Ir/call) | strided/NumPy |")
    print("|:--|:--|--:|--:|--:|")
    for name in names or CASES:
        s = per_call("strided", name)
        n = per_call("numpy", name)
        print(f"| {name} | {frames(name)} | {s:,.0f} | {n:,.0f} | {s / n:.3f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
