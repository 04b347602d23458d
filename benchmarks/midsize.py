"""The size sweep (the ``midsize`` group) in both malloc regimes, one after the other.

glibc's default malloc serves a freed block again from its heap (its mmap threshold rises
to each freed mapping's size), while ``MALLOC_MMAP_THRESHOLD_=131072`` (a fixed 128 KiB,
as many services run) maps and faults every block from 128 KiB on: the buffer pool's worth
differs, so issue 38's criterion asks for the sweep under both. Each run is
``python -m benchmarks --group midsize`` with the options given here passed on, its
results in ``<out>/default`` and ``<out>/mmap131072``; then ``sweep_chart.py`` draws both
into ``benchmarks/results/midsize.png`` (unless ``--no-plots``).

    python benchmarks/midsize.py                     # both regimes, medians
    python benchmarks/midsize.py --stat min --filter float32
"""

from __future__ import annotations

import os
import subprocess
import sys


def main(argv: list[str]) -> int:
    out = "benchmarks/results/midsize"
    if "--out" in argv:
        i = argv.index("--out")
        out = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    rc = 0
    for tag, extra in (("default", {}), ("mmap131072", {"MALLOC_MMAP_THRESHOLD_": "131072"})):
        env = dict(os.environ)
        env.pop("MALLOC_MMAP_THRESHOLD_", None)
        env.update(extra)
        print(f"== midsize, malloc {tag}", flush=True)
        rc |= subprocess.call([sys.executable, "-m", "benchmarks", "--group", "midsize", "--no-plots",
                               "--out", os.path.join(out, tag), *argv], env=env)
    if "--no-plots" not in argv:
        from sweep_chart import main as chart  # strided / min(NumPy, PyTorch) against size, both regimes

        chart([os.path.join(out, "default"), os.path.join(out, "mmap131072"),
               "--out", os.path.join(out, "..", "midsize.png")])
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
