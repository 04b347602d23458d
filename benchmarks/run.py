#!/usr/bin/env python
"""Time strided side by side with NumPy, array-api-strict and PyTorch.

    python benchmarks/run.py                  # every group (about 10 minutes)
    python benchmarks/run.py --quick          # every group, tiny sizes and repeats (CI smoke test)
    python benchmarks/run.py --group tiny --group matmul
    python benchmarks/run.py --threads 4      # pin every library to 4 threads (default 1)
    python benchmarks/run.py --readme         # full run, then refresh benchmarks/README.md
    python -m benchmarks --list               # the groups and their cases

Writes ``results.md`` (also printed), ``results.json`` and PNG plots to
``benchmarks/results/`` (``results/quick/`` for --quick, ``results/partial/``
for a selection). Nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def parse_args(argv):
    from benchmarks.cases import GROUPS  # stdlib-only until main() has pinned the threads

    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="every group with small sizes and tiny repeat counts (< 1 minute; no timing is asserted)")
    p.add_argument("--group", action="append", default=[], metavar="NAME",
                   help=f"run only these groups (repeat or comma-separate): {', '.join(GROUPS)}")
    p.add_argument("--filter", default="", metavar="TEXT", help="run only cases whose label contains TEXT")
    p.add_argument("--threads", type=int, default=1,
                   help="threads for every library: OMP/OpenBLAS/MKL env and torch.set_num_threads (default 1)")
    p.add_argument("--stat", choices=("median", "min"), default="median",
                   help="statistic of the repeats shown and used for ratios (default median; on a loaded "
                        "machine the minimum is the more robust estimate, both are in results.json)")
    p.add_argument("--out", default=None, help="output folder (default benchmarks/results[/quick|/partial])")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--no-gpu", action="store_true", help="leave out CuPy and PyTorch CUDA even when a GPU is present")
    p.add_argument("--readme", action="store_true", help="rewrite the results section of benchmarks/README.md")
    p.add_argument("--list", action="store_true", help="list the groups and cases, then exit")
    args = p.parse_args(argv)
    groups = [g for item in args.group for g in item.split(",") if g]
    bad = [g for g in groups if g not in GROUPS]
    if bad:
        p.error(f"unknown group(s) {', '.join(bad)}; choose from {', '.join(GROUPS)}")
    args.groups = groups or list(GROUPS)
    if args.threads < 1:
        p.error("--threads must be at least 1")
    if args.readme and (args.quick or groups or args.filter):
        p.error("--readme needs a full run of every group (no --quick, --group or --filter)")
    return args


def pin_threads(n: int, argv: list) -> None:
    """Set the thread environment before NumPy loads its BLAS; re-exec if it already has."""
    want = str(n)
    stale = [v for v in THREAD_VARS if os.environ.get(v) != want]
    for v in THREAD_VARS:
        os.environ[v] = want
    if stale and "numpy" in sys.modules:
        # The thread pools read the environment once, at import: start afresh.
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
        os.execv(sys.executable, [sys.executable, "-m", "benchmarks", *argv])


def main(argv=None) -> int:
    t0 = time.perf_counter()
    load0 = _loadavg()
    argv = list(sys.argv[1:] if argv is None else argv)
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    args = parse_args(argv)
    pin_threads(args.threads, argv)
    # The workload group runs SciPy and scikit-learn on each library's own arrays:
    # SciPy reads this before its first import (else it converts every input to NumPy).
    os.environ.setdefault("SCIPY_ARRAY_API", "1")

    import numpy as np  # noqa: F401 - first import, after pin_threads

    try:
        import strided  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.join(ROOT, "src"))  # a fresh clone run without installing
    from benchmarks import _libs, _report, _timing, cases

    if args.list:
        for key in args.groups:
            title, make = cases.GROUPS[key]
            print(f"{key}: {title}")
            for c in make(args.quick):
                if args.filter in c.label:
                    print(f"    {c.label}")
        return 0

    limiter = _limit_pools(args.threads)  # noqa: F841 - keeps the limit active for the run
    libs, missing = _libs.discover(gpu=not args.no_gpu)
    for torch in {lib.xp for lib in libs if lib.kind == "torch"}:
        torch.set_num_threads(args.threads)
    for lib in libs:  # strided's intra-op threads (its default is the cores available)
        if lib.is_strided and hasattr(lib.xp, "set_num_threads"):
            lib.xp.set_num_threads(args.threads)
    settings = _timing.QUICK if args.quick else _timing.FULL
    stat = f"{args.stat}_ns"
    default_out = "quick" if args.quick else ("partial" if (args.filter or len(args.groups) < len(cases.GROUPS)) else "")
    outdir = args.out or os.path.join(HERE, "results", default_out)
    os.makedirs(outdir, exist_ok=True)

    print(f"strided benchmarks: {'quick' if args.quick else 'full'} run, {args.threads} thread(s)")
    for lib in libs:
        print(f"  {lib.name:<18} {lib.version}")
    for name, why in missing:
        print(f"  {name:<18} not run: {why}")

    records = []
    runner = Runner(libs, settings, np, _timing, cases)
    try:
        for key in args.groups:
            title, make = cases.GROUPS[key]
            selected = [c for c in make(args.quick) if args.filter in c.label]
            if not selected:
                continue
            print(f"\n== {title}")
            for case in selected:
                rec = runner.run(case)
                rec["ratios"] = _report.compute_ratios(rec, stat)
                records.append(rec)
                print(_line(rec, _timing.fmt_time, stat), flush=True)
            runner.clear()
    finally:
        runner.close()

    meta = machine_meta(libs, missing, args, time.perf_counter() - t0)
    meta["load_average"] = [load0, _loadavg()]
    meta["stat"] = stat
    groups = [(k, cases.GROUPS[k][0]) for k in args.groups]
    plots, why = ({}, "--no-plots given") if args.no_plots else _report.plot_all(outdir, groups, records, libs, stat)
    if why:
        print(f"\nplots not written: {why}")
    named_md = ""
    if "named" in args.groups and not args.quick and not args.filter and any(
            lib.name == "strided" for lib in libs):
        # the one 1.1x measure of names: each named case and its unnamed twin interleaved in
        # one process (the group's rows above time them minutes apart)
        from benchmarks import named_overhead
        strided_xp = next(lib.xp for lib in libs if lib.name == "strided")
        named_rows, named_md = named_overhead.interleaved_table(strided_xp)
        meta["named_interleaved"] = named_rows
        print("\n" + named_md)
    md = _report.markdown(meta, groups, records, libs, "", plots) + named_md
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(md)
    _report.write_json(os.path.join(outdir, "results.json"), meta, records)
    print("\n" + md)
    if args.readme:
        rel = os.path.relpath(outdir, HERE).replace(os.sep, "/") + "/"
        _report.update_readme(os.path.join(HERE, "README.md"),
                              _report.markdown(meta, groups, records, libs, rel, plots) + named_md)
        print("README.md updated")
    print(f"results written to {outdir} ({meta['wall_s']:.0f} s)")
    return 0


def _loadavg():
    """The 1-minute load average (other jobs on the machine), or None."""
    try:
        return round(os.getloadavg()[0], 1)
    except OSError:
        return None


def _limit_pools(n: int):
    """Belt and braces: also cap already-loaded BLAS/OpenMP pools (threadpoolctl, if present)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return threadpool_limits(limits=n)


def _line(rec: dict, fmt, stat: str) -> str:
    parts = []
    for name, e in rec["libs"].items():
        if stat in e:
            parts.append(f"{name} {fmt(e[stat])}")
        elif "skipped" in e:
            parts.append(f"{name} skipped ({e['skipped']})")
        else:
            parts.append(f"{name} ERROR ({e['error']})")
    ratios = "  ".join(f"{k} {v:.2f}" for k, v in rec["ratios"].items())
    bad = [f"{n}: {c}" for n, c in rec.get("check", {}).items() if c != "ok"]
    return (f"  {rec['case']:<42} " + " | ".join(parts) + (f"  ||  {ratios}" if ratios else "")
            + (f"  !! {'; '.join(bad)}" if bad else ""))


class Runner:
    """Prepares each library's statement for a case, checks results, times them."""

    def __init__(self, libs, settings, np, timing, cases):
        import tempfile

        self.libs, self.settings, self.np, self.timing, self.cases = libs, settings, np, timing, cases
        self.ctx = {"tmpdir": tempfile.mkdtemp(prefix="strided-bench-")}
        self._inputs = (None, None)  # (key, NumPy inputs): one entry, cases come grouped by size
        self._conv = {}  # library name -> (key, converted inputs)

    def clear(self):
        import gc

        self._inputs, self._conv = (None, None), {}
        gc.collect()

    def close(self):
        import shutil

        self.clear()
        shutil.rmtree(self.ctx["tmpdir"], ignore_errors=True)

    def inputs(self, key):
        if self._inputs[0] != key:
            self._inputs = (None, None)
            self._inputs = (key, self.cases.make_inputs(key))
        return self._inputs[1]

    def convert(self, lib, key, names, fresh):
        """``lib``'s copies of the inputs named ``names`` (all when None)."""
        src = self.inputs(key)
        names = [n for n in src if names is None or n in names]
        if fresh:
            return {n: lib.asarray(src[n]) for n in names}
        k, conv = self._conv.get(lib.name, (None, None))
        if k != key:
            conv = {}
            self._conv[lib.name] = (key, conv)
        for n in names:
            if n not in conv:
                conv[n] = lib.asarray(src[n])
        return {n: conv[n] for n in names}

    def prepare(self, case, lib):
        """(code, globals, warm-up result) for one library; raises Skip."""
        cs = self.cases
        if case.build is not None:
            stmt, extra = case.build(lib, self.convert(lib, case.inputs, None, True), self.ctx)
        else:
            stmt = cs.statement(case, lib)
            extra = self.convert(lib, case.inputs, cs.names_in(stmt + "\n" + case.prep), case.mutates)
        ns = lib.namespace() | extra
        if case.prep:
            exec(case.prep, ns)
        try:
            code = compile(stmt, "<bench>", "eval")
            value = eval(code, ns)
        except SyntaxError:  # a statement, not an expression
            exec(stmt, ns)
            value = None
        if lib.sync is not None:
            lib.sync()
            stmt = f"{stmt}\n_sync()"
        return stmt, ns, value

    def run(self, case) -> dict:
        rec = {"group": case.group, "case": case.label, "op": case.op, "params": case.params,
               "note": case.note, "libs": {}, "check": {}}
        timers, values, prepared = {}, {}, {}
        for lib in self.libs:
            try:
                stmt, ns, values[lib.name] = self.prepare(case, lib)
            except self.cases.Skip as e:
                rec["libs"][lib.name] = {"skipped": str(e)}
                continue
            except Exception as e:  # noqa: BLE001 - report and go on with the other libraries
                rec["libs"][lib.name] = {"error": f"{type(e).__name__}: {e}".strip()[:300]}
                continue
            timers[lib.name] = self.timing.make_timer(stmt, ns)
            prepared[lib.name] = (stmt, ns)
        if case.check:
            rec["check"] = self.check(values)
        settings = self.settings if not case.settle_ms else \
            dataclasses.replace(self.settings, settle_s=case.settle_ms / 1000)
        rec["libs"].update(self.timing.measure(timers, settings))
        rec["libs"] = {lib.name: rec["libs"][lib.name] for lib in self.libs if lib.name in rec["libs"]}
        after = getattr(case.build, "after", None)  # counters a build kept over the calls (threads)
        if after is not None and (said := after()):
            rec["counters"] = said
        if case.alloc:
            rec["bytes"] = {name: self.bytes_per_call(lib, *prepared[name])
                            for lib in self.libs if (name := lib.name) in prepared}
            if any(lib.kind == "torch" and lib.name in prepared for lib in self.libs):
                rec["note"] = "bytes/call n/a: PyTorch's allocator is not visible to tracemalloc"
        return rec

    def check(self, values: dict) -> dict:
        """Compare each library's warm-up result with NumPy's."""
        np = self.np
        if "numpy" not in values or values["numpy"] is None:
            return {}
        ref = np.asarray(values["numpy"])
        out = {}
        for lib in self.libs:
            if lib.name == "numpy" or values.get(lib.name) is None:
                continue
            try:
                out[lib.name] = compare(np, np.asarray(lib.to_numpy(values[lib.name])), ref)
            except Exception as e:  # noqa: BLE001
                out[lib.name] = f"could not compare ({type(e).__name__}: {e})"
        return out

    @staticmethod
    def bytes_per_call(lib, stmt, ns):
        """Peak bytes above the baseline during one call (tracemalloc), or None
        where the library's allocations are invisible to it (PyTorch, GPUs)."""
        import tracemalloc

        if lib.kind == "torch" or lib.device != "cpu":
            return None
        code = compile(stmt, "<bench>", "exec")
        empty = compile("pass", "<bench>", "exec")

        def peak(c):
            exec(c, ns)
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            exec(c, ns)
            return tracemalloc.get_traced_memory()[1] - base

        tracemalloc.start()
        try:
            return max(0, peak(code) - peak(empty))  # less what exec itself costs
        finally:
            tracemalloc.stop()


def compare(np, x, ref) -> str:
    """"ok", or what differs between a result and NumPy's."""
    if x.shape != ref.shape:
        return f"shape {x.shape} != NumPy's {ref.shape}"
    if x.dtype.kind != ref.dtype.kind:
        return f"dtype {x.dtype} != NumPy's {ref.dtype}"
    if x.dtype.kind not in "fc":
        return "ok" if np.array_equal(x, ref) else "values differ"
    tol = 1e-9 if min(x.dtype.itemsize, ref.dtype.itemsize) >= 8 else 1e-3
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(x.astype(np.float64) - ref.astype(np.float64)))) if ref.size else 0.0
    if not np.isfinite(err) or err > tol * max(scale, 1e-30):
        return f"max abs error {err:.3g} (scale {scale:.3g})"
    return "ok"


def machine_meta(libs, missing, args, wall_s) -> dict:
    import datetime
    import platform
    import subprocess

    def read(path, key):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(key):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return None

    mem = read("/proc/meminfo", "MemTotal")
    versions = {}
    for lib in libs:
        versions.setdefault(lib.name.replace("-cuda", ""), lib.version)
    try:
        import matplotlib
        versions["matplotlib"] = matplotlib.__version__
    except ImportError:
        pass
    pkg = os.path.dirname(next(lib.xp.__file__ for lib in libs if lib.name == "strided"))
    try:  # the commit of the strided that was imported, and whether its sources differ from it
        commit = subprocess.run(["git", "-C", pkg, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", pkg, "status", "--porcelain", "--", "."], capture_output=True,
                               text=True, timeout=10).stdout.strip()
        if commit:
            versions["strided"] += f" (git {commit}{'+uncommitted' if dirty else ''})"
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        from threadpoolctl import threadpool_info
        blas = ", ".join(f"{p.get('internal_api')} {p.get('version') or ''} x{p.get('num_threads')}".replace("  ", " ")
                         for p in threadpool_info()) or "unknown"
    except ImportError:
        blas = "unknown (threadpoolctl not installed)"
    return {
        "cpu": read("/proc/cpuinfo", "model name") or platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "memory": f"{int(mem.split()[0]) / 2**20:.0f} GiB RAM" if mem else "RAM unknown",
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
        "blas": blas,
        "threads": args.threads,
        "quick": args.quick,
        "groups": args.groups,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "wall_s": wall_s,
        "skipped_libs": missing,
        "command": "python benchmarks/run.py " + " ".join(sys.argv[1:]),
    }


if __name__ == "__main__":
    raise SystemExit(main())
