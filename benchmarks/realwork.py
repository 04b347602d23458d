"""The ``realwork`` cases, one process, interleaved: strided vs NumPy vs array-api-strict.

Each case (``cases._REALWORK``: scikit-learn estimators with ``array_api_dispatch=True`` and
SciPy functions under ``SCIPY_ARRAY_API=1``) runs on strided's arrays, NumPy's and
array-api-strict's, one library after the other inside every repeat (so that the machine's
load falls on all three alike), and each library's figure is the median over the repeats of
the *per-thread CPU time* of one call (``time.thread_time``: time other processes take from
this one's core is not counted; the figure is noisy under load all the same).

Not every case runs the same code on every library. scikit-learn and SciPy test
``is_numpy_namespace(xp)`` and hand NumPy arrays to other code (``numpy.nanmin`` where the
array-API path spells isnan/where/min/all/any; a Cython loss where it writes the loss in the
namespace's functions); for strided, array-api-strict and every other namespace they take the
generic path. Where that is so (``NOT_SAME_CODE`` below, checked by reading scikit-learn 1.9 and
SciPy 1.17), the table says so, and the fair comparison is strided vs array-api-strict (a
pure-Python wrapper over NumPy: the same code path, the same NumPy kernels underneath) or,
for scikit-learn, strided vs ``numpy-generic``: NumPy's own arrays with scikit-learn's NumPy
special cases switched off for the call (its ``_NUMPY_NAMESPACE_NAMES`` emptied, so that
``_is_numpy_namespace`` is False: the generic path strided takes, on NumPy's arrays through
array-api-compat's NumPy namespace). SciPy's special cases (its own pocketfft, ``is_lazy_array``
answering False for an ndarray without looking) test the array's class and have no such switch.

What the profiles say (realwork5, callgrind, 1000x20, one call, instructions strided/NumPy):
PCA 1.00, Ridge 1.03, LDA 0.96, zscore 0.92, skew 0.85, StandardScaler 0.91, detrend 1.03,
rfft 1.03 (SciPy's path; numpy.fft itself 1.01), MinMaxScaler 1.15 and LogisticRegression
1.92 against NumPy's own path but 0.93 and 1.03 against numpy-generic (the same code on
NumPy's arrays: 4.90M and 83.8M instructions, NumPy's Cython loss 44.9M). Where the wall
clock still says more than the instructions (zscore 1000x20: 0.92x the instructions, ~1.1-1.2x
the time), the difference is branch prediction and the instruction cache, in CPython's eval
loop: --cache-sim/--branch-sim, 4 calls: indirect mispredictions 80.5k vs 46.2k, conditional
96.1k vs 62.7k, I1 misses 189k vs 152k; the largest share of each excess is in
_PyEval_EvalFrameDefault (half the indirect, a quarter of the conditional, a third of the I1:
strided's Python frames on the way to a kernel), then frame and tuple teardown, _chot's call
path and the errstate context variable set per call (hamt_node_*, PyContextVar_Set). The lever left is fewer Python frames (C entries),
not kernels.

Round 6 (real6, callgrind, one call after three, 1000x20, instructions strided/NumPy): Ridge
9.02M/8.80M (1.025), PCA 5.69M/5.68M (1.00), LDA 9.95M/10.45M (0.95), zscore 2.08M/2.25M
(0.93); the host linalg's generator context and solve's broadcast_to were gone by then (20x20
cholesky 82.3k -> 68.7k instructions a call, NumPy 52.1k; solve 225.6k -> 162.5k, NumPy
132.9k), a few ten thousand instructions a fit. What is left per case is spread over
~100-400 Python frames of strided's per call, none large: the properties ``shape`` (13-53 a
call, a Python getter building a ``Size``: 174 ns vs NumPy's 62), ``dtype``/``device``/``ndim``
(58-66 ns vs 23), ``asarray`` of an array of ours (3,940 instructions vs NumPy's 1,171: the
compiled entry then the Python hot path), ``Array._materialize`` (9.5k instructions, ~115 a
LogisticRegression fit: reshape/squeeze of fresh results, advanced setitem), ``__iter__``
(NumPy's ``iterable()`` in SciPy's xp_promote). float64 ``exp`` of LogisticRegression's
(1000, 3) operands is 39k instructions a call vs NumPy's 187k (the 1.64M vs 1.03M of
realwork5 compared NumPy's Cython path, not the same calls).

Round 7 (real7, ``benchmarks/realwork_callgrind.py``: instructions of one whole call, 1000x20,
strided before -> after / NumPy): PCA 5.47M -> 5.47M / 5.60M, Ridge 8.77 -> 8.71 / 8.76, LDA 9.72
-> 9.68 / 10.37, zscore 1.97 -> 1.89 / 2.22, skew 3.11 -> 2.99 / 3.79, StandardScaler 5.22 ->
5.15 / 5.88, MinMaxScaler 4.48 -> 4.47 / 3.97 (NumPy's own nanmin path), LogisticRegression
84.7 -> 84.5 / 44.9 (NumPy's Cython loss), rfft 0.955 -> 0.955 / 0.923, detrend 2.09 -> 2.09
/ 2.04. Cut: ``asarray`` of an array of ours answered in C before the error state and the
Python frame (_chot's K_ASARRAY; 10-80 calls a case: 3,940 -> 852 instructions, NumPy's
1,171), ``np.asarray`` of an array already exported found in the export registry without a
new weakref and the lock (15,484 -> 11,106; NumPy's of an ndarray: a few hundred),
``__array_namespace__`` one frame, the inspection API's ``dtypes(kind=)`` cached, one int
axis of a reduction normalised without ``normalize_axes``' frames. Ruled out as the wall-clock excess: garbage
collection (gc.get_stats: <= 0.06 gen-0 collections a call on either library) and page
faults at 1000x20 (getrusage: 0 minor faults a call on both). At 5000x200 skew's excess is
array-api-compat's ``is_lazy_array`` (``xp.reshape(x, (-1,))[0]`` of the moved-axis
deviations: a whole 8 MB transposing copy, ~1.1 ms, twice a call; strided's copy is already
faster than NumPy's 1.7 ms for the same reshape); rfft's is SciPy's array-API dispatch for a
non-NumPy class and numpy.fft's Python wrapper around the same pocketfft kernel (SciPy's own
pocketfft gives the same bits, tested at 100x10, 1000x20, 5000x200).

    PYTHONPATH=src python -m benchmarks.realwork                  # all cases, 7 repeats
    PYTHONPATH=src python -m benchmarks.realwork --filter MinMax --repeats 11
    PYTHONPATH=src python -m benchmarks.realwork --profile "stats.skew" --shape 5000x200
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings

os.environ.setdefault("SCIPY_ARRAY_API", "1")
# One thread everywhere (BLAS, strided's pool), set before NumPy loads its BLAS: the
# per-thread CPU time is then all the work of a call.
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
           "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_v] = "1"

# Where scikit-learn/SciPy run other code on NumPy's arrays than on any other namespace's.
NOT_SAME_CODE = {
    "MinMaxScaler fit_transform": "NumPy: numpy.nanmin/nanmax; others: isnan, where, min, all, any",
    "LogisticRegression fit": "NumPy: the Cython loss and gradient; others: the loss in the namespace",
    "fft.rfft": "NumPy: SciPy's own pocketfft; others: the namespace's fft (strided's: numpy.fft)",
    # array_api_compat.is_lazy_array answers False for an ndarray by its class; for any other
    # array it reads one element of xp.reshape(x, (-1,)): a copy of the whole moved-axis
    # deviations (5000x200 float64: 8 MB), twice a call (_demean, once for each moment; the input itself,
    # C-contiguous, reshapes to a view)
    "stats.skew": "NumPy: is_lazy_array by class; others: is_lazy_array reshapes (copies) the input",
}

LIBS = ("strided", "numpy", "numpy-generic", "array-api-strict")


def _libs(names):
    import numpy as np
    out = {}
    for name in names:
        if name == "strided":
            import strided as xp
            xp.set_num_threads(1)
            out[name] = (xp, xp.asarray)
        elif name in ("numpy", "numpy-generic"):
            out[name] = (np, np.array)
        elif name == "array-api-strict":
            try:
                import array_api_strict as xp
            except ImportError:
                continue
            out[name] = (xp, xp.asarray)
    return out


def _case(op: str, shape: tuple, lib: str, xp, conv):
    """A thunk that runs case ``op`` at ``shape`` on ``lib``'s arrays."""
    import numpy as np

    from .cases import _REALWORK, _with_array_api_dispatch, make_inputs
    imp, stmt = _REALWORK[op]
    ns = {"xp": xp, "np": np}
    exec(imp, ns)
    for k, v in make_inputs(("fit", shape)).items():
        ns[k] = conv(np.ascontiguousarray(v))
    code = compile(stmt, f"<{op}>", "eval")
    if op.split()[0][0].isupper():  # a scikit-learn estimator
        if lib == "numpy-generic":
            return lambda: _with_array_api_dispatch(lambda: _generic(lambda: eval(code, ns)))
        return lambda: _with_array_api_dispatch(lambda: eval(code, ns))
    if lib == "numpy-generic":
        raise LookupError("SciPy's NumPy special cases have no switch: the numpy column is it")
    return lambda: eval(code, ns)


def _generic(thunk):
    """``thunk()`` with scikit-learn's NumPy special cases off (see the module's docstring)."""
    from sklearn.utils import _array_api
    names = _array_api._NUMPY_NAMESPACE_NAMES
    saved = set(names)
    names.clear()
    try:
        return thunk()
    finally:
        names.update(saved)


def _time(thunk, inner: int) -> float:
    t0 = time.thread_time_ns()
    for _ in range(inner):
        thunk()
    return (time.thread_time_ns() - t0) / inner


def run(ops, shapes, repeats: int, libs) -> list[dict]:
    rows = []
    for shape in shapes:
        for op in ops:
            thunks = {}
            for name, (xp, conv) in libs.items():
                try:
                    th = _case(op, shape, name, xp, conv)
                    th()  # warm up (imports, caches)
                    thunks[name] = th
                except LookupError:
                    pass  # (numpy-generic of a SciPy case: the numpy column)
                except Exception as e:  # a library the path does not take
                    print(f"  {op} {shape} on {name}: not run ({type(e).__name__}: {e})"[:160],
                          file=sys.stderr)
            # inner loop: about 20 ms of CPU per sample for the slowest library
            one = max(_time(th, 1) for th in thunks.values())
            inner = max(1, int(20e6 / max(one, 1)))
            samples = {k: [] for k in thunks}
            for _ in range(repeats):
                for k, th in thunks.items():
                    samples[k].append(_time(th, inner))
            med = {k: statistics.median(v) for k, v in samples.items()}
            rows.append({"op": op, "shape": shape, "median_ns": med, "inner": inner})
            s = med.get("strided")
            line = f"{op:30s} {shape[0]}x{shape[1]:<5d}"
            for k in libs:
                line += f" {k}={med[k] / 1e3:9.1f}us" if k in med else f" {k}=     n/a   "
            if s and "numpy" in med:
                line += f"  vs numpy {s / med['numpy']:.2f}"
            if s and "numpy-generic" in med:
                line += f"  vs numpy-generic {s / med['numpy-generic']:.2f}"
            if s and "array-api-strict" in med:
                line += f"  vs strict {s / med['array-api-strict']:.2f}"
            if op in NOT_SAME_CODE:
                line += f"  [not the same code: {NOT_SAME_CODE[op]}]"
            print(line, flush=True)
    return rows


def main(argv=None) -> int:
    from .cases import _REALWORK
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--filter", default="", help="only cases whose name contains this")
    p.add_argument("--shape", action="append", help="e.g. 1000x20 (default: 1000x20 and 5000x200)")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--libs", default=",".join(LIBS))
    p.add_argument("--profile", help="cProfile this case on strided (with --shape), top 30 by tottime")
    a = p.parse_args(argv)
    # (LogisticRegression(max_iter=20) stops before convergence on purpose: same work on each)
    warnings.filterwarnings("ignore", message=".*failed to converge.*")
    shapes = [tuple(int(v) for v in s.split("x")) for s in (a.shape or ["1000x20", "5000x200"])]
    libs = _libs(a.libs.split(","))
    if a.profile:
        import cProfile
        import pstats
        xp, conv = libs["strided"]
        th = _case(a.profile, shapes[0], "strided", xp, conv)
        th()
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(20):
            th()
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(30)
        return 0
    ops = [k for k in _REALWORK if a.filter in k]
    print(f"realwork: median of {a.repeats} interleaved repeats, per-thread CPU time per call; "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    run(ops, shapes, a.repeats, libs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
