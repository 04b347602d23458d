"""Instructions of one call of each ``realwork`` case, strided vs NumPy, under callgrind.

``benchmarks/realwork.py`` times the cases in per-thread CPU time; on a shared machine its
medians move by 5-20% from run to run. This counts instructions instead: each library runs
in one ``valgrind --tool=callgrind`` process, every case N1 times then N2 times after one
warm-up call (``--dump-before=time_sleep`` cuts the count at a ``time.sleep(0)`` between
segments), and (Ir(N2) - Ir(N1)) / (N2 - N1) is one call.

    PYTHONPATH=src python -m benchmarks.realwork_callgrind                    # 1000x20
    PYTHONPATH=src python -m benchmarks.realwork_callgrind --filter zscore --shape 5000x200
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

_CHILD = r'''
import sys, time, warnings, gc
warnings.filterwarnings("ignore")
from benchmarks.realwork import _case, _libs
lib, shape, n1, n2 = sys.argv[1], tuple(int(v) for v in sys.argv[2].split("x")), int(sys.argv[3]), int(sys.argv[4])
ops = sys.argv[5:]
(xp, conv), = _libs([lib]).values()
thunks = [_case(op, shape, lib, xp, conv) for op in ops]
for th in thunks:
    th(); th()
gc.collect()
for th in thunks:
    for n in (n1, n2):
        time.sleep(0)
        for _ in range(n):
            th()
time.sleep(0)
'''


def _counts(lib: str, shape: str, ops: list, n1: int, n2: int) -> list:
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                   SCIPY_ARRAY_API="1")
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), env.get("PYTHONPATH", "")])
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=time_sleep",
                        f"--callgrind-out-file={d}/cg.out", sys.executable, "-c", _CHILD, lib,
                        shape, str(n1), str(n2), *ops], env=env, capture_output=True, text=True,
                       check=True)
        parts = sorted(glob.glob(f"{d}/cg.out.*"), key=lambda f: int(f.rsplit(".", 1)[1]))
        c = [int(re.search(r"^summary: (\d+)", open(f).read(), re.M).group(1)) for f in parts]
    seg = c[1:1 + 2 * len(ops)]
    return [(seg[2 * k + 1] - seg[2 * k]) / (n2 - n1) for k in range(len(ops))]


def main(argv=None) -> int:
    from .cases import _REALWORK
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--filter", default="")
    p.add_argument("--shape", default="1000x20")
    p.add_argument("--n", default="1,3", help="N1,N2 calls")
    p.add_argument("--libs", default="strided,numpy")
    a = p.parse_args(argv)
    n1, n2 = (int(v) for v in a.n.split(","))
    ops = [k for k in _REALWORK if any(w in k for w in a.filter.split(","))]
    libs = a.libs.split(",")
    per = {lib: _counts(lib, a.shape, ops, n1, n2) for lib in libs}
    print(f"| case ({a.shape}) | " + " | ".join(f"{lib} (Ir/call)" for lib in libs)
          + " | strided/" + libs[-1] + " |")
    print("|:--|" + "--:|" * (len(libs) + 1))
    for k, op in enumerate(ops):
        vals = [per[lib][k] for lib in libs]
        print(f"| {op} | " + " | ".join(f"{v:,.0f}" for v in vals)
              + f" | {vals[0] / vals[-1]:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
