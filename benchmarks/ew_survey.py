#!/usr/bin/env python
"""Every elementwise function against NumPy's nearest call (and PyTorch's), one thread.

    PYTHONPATH=src python benchmarks/ew_survey.py                    # everything (~15 minutes)
    PYTHONPATH=src python benchmarks/ew_survey.py --sizes 1 100      # small sizes only
    PYTHONPATH=src python benchmarks/ew_survey.py --funcs pow floor_divide --dtypes float32
    PYTHONPATH=src python benchmarks/ew_survey.py --forms scalar out --top 40 --json s.json
    PYTHONPATH=src python benchmarks/ew_survey.py --callgrind pow floor_divide   # instructions

Issue 38 asks for every elementwise op at every size at or below min(NumPy, PyTorch).
The ``midsize`` group sweeps a handful of them; this script covers the rest: every row
of the elementwise registry (``strided._api.elementwise.ROWS``) without parameters,
unary and binary, in float32 and float64, int32 and int64 where the row takes integers,
bool for the boolean rows and complex64 for the unary rows the standard gives complex
(``floating-point`` and ``numeric``), at n = 1, 100, 1e4 and 1e6 elements, in these
forms:

- unary: ``f(a)``; ``out``: ``f(a, out=o)``; ``inplace``: ``a.f_()`` against NumPy's
  ``np.f(a, out=a)`` (the values drift call after call, the same way in every library:
  every library makes the same number of calls);
- binary: ``array`` (two arrays of one shape), ``scalar`` (a Python scalar second
  operand), ``zerod`` (a 0-d array), ``row`` (an (n/k, k) array and a (k,) row),
  ``out`` (two arrays, ``out=o``) and ``inplace`` (the operator, ``a += b``, for the rows
  with one).

NumPy's call is ``np.<row.numpy or row.name>`` on NumPy arrays (``relu``:
``np.maximum(a, 0.0)``; rows NumPy lacks are compared with PyTorch only); PyTorch's is
``torch.<name or alias>`` on tensors where PyTorch has it (0-d: a 0-d tensor). The
libraries are timed in turn, round-robin, in short batches (auto-ranged to ~0.3 ms; at
least one call), ``--repeats`` batches each, and the table gives per-call medians and the
ratios ``strided/numpy``, ``strided/torch``, sorted worst first by strided over the
faster of the two. Nothing here asserts a time.

``--callgrind`` counts instructions per call instead (valgrind's callgrind; each
statement run N1 and N2 times in its own process: (Ir(N2) - Ir(N1)) / (N2 - N1)), for
the small sizes of the named functions: the firm numbers on a shared machine.
"""

from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"  # before NumPy loads its BLAS

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402

import numpy as np  # noqa: E402

np.seterr(all="ignore")  # (in-place forms overflow call after call, in every library)

SIZES = (1, 100, 10_000, 1_000_000)
DTYPES = ("float32", "float64", "int32", "int64", "complex64", "bool")
UNARY_FORMS = ("plain", "out", "inplace")
BINARY_FORMS = ("array", "scalar", "zerod", "row", "out", "inplace")
# the rows NumPy has no ufunc for: NumPy's nearest call, or None (PyTorch only)
# (real and imag copy, as strided's do: np.real/np.imag return views, or the array itself)
NUMPY_STMT = {"relu": "np.maximum(a, 0.0)", "real": "np.real(a).copy()", "imag": "np.imag(a).copy()"}
# PyTorch's spelling where neither the row's name nor its aliases are torch functions
TORCH_NAME = {"bitwise_invert": "bitwise_not", "conj": "conj_physical", "silu": "nn.functional.silu"}
_OPS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "floor_divide": "//",
        "remainder": "%", "pow": "**", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
        "bitwise_left_shift": "<<", "bitwise_right_shift": ">>"}
# domains: (low, high) of the uniform float inputs
_DOMAIN = {"acosh": (1.1, 3.0), "acos": (-0.9, 0.9), "asin": (-0.9, 0.9), "atanh": (-0.9, 0.9)}


def rows():
    from strided._api import elementwise as ew
    return [r for r in ew.ROWS if not r.params]


def dtypes_of(row, wanted):
    from strided._core.dtypes import CATEGORIES
    import strided as st
    allowed = CATEGORIES[row.category]
    out = []
    for name in wanted:
        d = getattr(st, name)
        if d not in allowed:
            continue
        if name == "bool" and row.category not in ("boolean", "integer or boolean"):
            continue
        if name == "complex64" and row.nargs == 2:
            continue
        out.append(name)
    return out


def inputs(row, dtype: str, n: int, rng):
    """NumPy operands: (a, b, scalar) for one case."""
    lo, hi = _DOMAIN.get(row.name, (0.5, 2.0))
    if dtype == "bool":
        return rng.random(n) < 0.5, rng.random(n) < 0.5, True
    if dtype.startswith("int"):
        a = rng.integers(1, 10, n).astype(dtype)
        b = rng.integers(1, 4, n).astype(dtype)
        return a, b, 3 if row.name != "pow" else 2
    a = rng.uniform(lo, hi, n)
    b = rng.uniform(0.5, 2.0, n)
    if dtype.startswith("complex"):
        a = a + 1j * rng.uniform(lo, hi, n)
    return a.astype(dtype), b.astype(dtype), 1.5


def _shape2(n):
    k = {1: 1, 100: 10, 10_000: 100, 1_000_000: 1000}.get(n, 1)
    return (n // k, k)


def torch_name(row, torch):
    for cand in (TORCH_NAME.get(row.name), row.name) + tuple(row.aliases):
        if not cand:
            continue
        obj = torch
        for part in cand.split("."):
            obj = getattr(obj, part, None)
        if obj is not None:
            return "torch." + cand
    return None


def cases(args, torch):
    """(label, statements {lib: stmt}, namespaces {lib: dict}) for every case selected."""
    import strided as st
    rng = np.random.default_rng(0)
    for row in rows():
        if args.funcs and row.name not in args.funcs:
            continue
        npf = NUMPY_STMT.get(row.name)
        if npf is None and hasattr(np, row.numpy or row.name):
            npf = f"np.{row.numpy or row.name}"
        tf = torch_name(row, torch) if torch is not None else None
        forms = UNARY_FORMS if row.nargs == 1 else BINARY_FORMS
        for dtype in dtypes_of(row, args.dtypes):
            for n in args.sizes:
                a, b, s = inputs(row, dtype, n, rng)
                for form in forms:
                    if args.forms and form not in args.forms:
                        continue
                    got = _case(row, dtype, n, form, a, b, s, npf, tf, st, torch)
                    if got is not None:
                        yield (row.name, dtype, n, form), *got


def _case(row, dtype, n, form, a, b, s, npf, tf, st, torch):
    """The statements and namespaces of one case, or None where it has no such form."""
    name = row.name
    if form == "row":
        a = a.reshape(_shape2(n))
        b = b[:_shape2(n)[1]].copy()
    elif form == "zerod":
        b = np.asarray(b[0]).copy()
    if row.nargs == 1:
        whole = name in NUMPY_STMT  # (NumPy's statement as a whole: no out= form)
        if form == "plain":
            stmts = {"strided": f"xp.{name}(a)", "numpy": npf if whole else npf and f"{npf}(a)",
                     "torch": tf and f"{tf}(a)"}
        elif form == "out":
            stmts = {"strided": f"xp.{name}(a, out=o)", "numpy": npf and not whole and f"{npf}(a, out=o)",
                     "torch": tf and f"{tf}(a, out=o)"}
        else:  # inplace
            if not hasattr(st.Array, name + "_"):
                return None
            stmts = {"strided": f"a.{name}_()", "numpy": npf and not whole and f"{npf}(a, out=a)",
                     "torch": tf and f"a.{tf[6:]}_()" if tf and hasattr(torch.Tensor, tf[6:] + "_") else None}
    else:
        sb = repr(s) if form == "scalar" else "b"
        if form in ("array", "scalar", "zerod", "row"):
            stmts = {"strided": f"xp.{name}(a, {sb})", "numpy": npf and f"{npf}(a, {sb})",
                     "torch": tf and f"{tf}(a, {sb})"}
        elif form == "out":
            stmts = {"strided": f"xp.{name}(a, b, out=o)", "numpy": npf and f"{npf}(a, b, out=o)",
                     "torch": tf and f"{tf}(a, b, out=o)"}
        else:  # inplace
            op = _OPS.get(name)
            if op is None:
                return None
            stmts = {lib: f"a {op}= b" for lib in ("strided", "numpy", "torch") if lib != "torch" or torch}
    stmts = {k: v for k, v in stmts.items() if v}
    # the result of the plain call gives out='s dtype and shape
    try:
        ref = eval(stmts["strided"].replace("out=o", "").replace(", )", ")") if form != "inplace" else "0",
                   {"xp": st, "a": st.asarray(a), "b": st.asarray(b) if isinstance(b, np.ndarray) else b})
    except Exception:  # noqa: BLE001 - a form this row does not take (int floor_divide by 0-d ...)
        return None
    nss = {}
    for lib in list(stmts):
        conv = {"strided": lambda v: st.asarray(v.copy()), "numpy": lambda v: v.copy(),
                "torch": lambda v: torch.from_numpy(v.copy())}[lib]
        ns = {"a": conv(a), "b": conv(b) if isinstance(b, np.ndarray) else b, "xp": st, "np": np,
              "torch": torch}
        if form == "out":
            r = np.asarray(ref)
            ns["o"] = conv(np.empty(r.shape, r.dtype))
        nss[lib] = ns
    return stmts, nss


def _timer(stmt, ns):
    setup = "global a" if re.match(r"a \S+= b", stmt) else "pass"
    return timeit.Timer(stmt, setup=setup, globals=ns, timer=time.perf_counter_ns)


def measure(stmts, nss, repeats: int, batch_ns: int, same_inner: bool = False):
    """Per-call medians, library -> ns. ``same_inner``: one inner count for every library
    (the in-place forms: each library's operand then goes through the same values, call for
    call -- they compute the same bits -- so that none times another's overflowed or
    subnormal data)."""
    timers, inner = {}, {}
    for lib, stmt in stmts.items():
        t = _timer(stmt, nss[lib])
        try:
            t.timeit(1)
            one = t.timeit(1)
        except Exception as e:  # noqa: BLE001 - a library without this form
            if lib == "strided":
                print(f"(strided: {stmt}: {type(e).__name__}: {e})", file=sys.stderr)
            continue
        timers[lib] = t
        k = 1
        while k * max(one, 1) < batch_ns and k < 100_000:
            k *= 2
        inner[lib] = k
    if same_inner and inner:
        inner = dict.fromkeys(inner, max(inner.values()))
    samples = {lib: [] for lib in timers}
    names = list(timers)
    if not names:
        return {}
    for r in range(repeats):
        for lib in names[r % len(names):] + names[:r % len(names)]:
            samples[lib].append(timers[lib].timeit(inner[lib]) / inner[lib])
    return {lib: statistics.median(xs) for lib, xs in samples.items()}


def fmt(ns):
    if ns is None:
        return "-"
    return f"{ns / 1000:.3g} us" if ns < 1e6 else f"{ns / 1e6:.3g} ms"


def table(results, top):
    def key(r):
        peers = [v for v in (r["numpy"], r["torch"]) if v]
        return -(r["strided"] / min(peers)) if peers else 0.0
    rows_ = sorted((r for r in results if r.get("strided")), key=key)
    if top:
        rows_ = rows_[:top]
    print("| function | dtype | n | form | strided | numpy | torch | /numpy | /torch | /min |")
    print("|:--|:--|--:|:--|--:|--:|--:|--:|--:|--:|")
    for r in rows_:
        s, nn, tt = r["strided"], r["numpy"], r["torch"]
        peers = [v for v in (nn, tt) if v]
        print(f"| {r['func']} | {r['dtype']} | {r['n']:g} | {r['form']} | {fmt(s)} | {fmt(nn)} | {fmt(tt)} | "
              f"{s / nn if nn else float('nan'):.2f} | {s / tt if tt else float('nan'):.2f} | "
              f"{s / min(peers) if peers else float('nan'):.2f} |")


_CHILD = r"""
import gc, os, sys, pickle
import numpy as np
sys.path.insert(0, os.getcwd())
import benchmarks.ew_survey as S
label, lib, n_calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
func, dtype, size, form = label.split("|")
args = S.parse([ "--funcs", func, "--dtypes", dtype, "--sizes", size, "--forms", form])
torch = None
if lib == "torch":
    import torch
    torch.set_num_threads(1)
import strided
strided.set_num_threads(1)
(_, stmts, nss), = S.cases(args, torch)
g = nss[lib]
stmt = stmts[lib]
exec(compile(f"for _ in range(200):\n    {stmt}\n", "<warm>", "exec"), g)
code = compile(f"for _ in range({n_calls}):\n    {stmt}\n", "<calls>", "exec")
gc.collect()
gc.disable()
exec(code, g)
"""


def instructions(label: str, lib: str, n: int) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        sys.executable, "-c", _CHILD, label, lib, str(n)],
                       env=env, capture_output=True, text=True, check=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return int(re.search(r"Collected : (\d+)", p.stderr).group(1))


def callgrind(args, torch):
    print("| function | dtype | n | form | strided Ir/call | numpy Ir/call | strided/numpy |")
    print("|:--|:--|--:|:--|--:|--:|--:|")
    for (func, dtype, n, form), stmts, _ in cases(args, torch):
        label = f"{func}|{dtype}|{n}|{form}"
        got = {}
        for lib in ("strided", "numpy"):
            if lib in stmts:
                got[lib] = (instructions(label, lib, 2200) - instructions(label, lib, 200)) / 2000
        s, nn = got.get("strided"), got.get("numpy")
        print(f"| {func} | {dtype} | {n} | {form} | {s:,.0f} | {nn:,.0f} | {s / nn:.2f} |" if nn else
              f"| {func} | {dtype} | {n} | {form} | {s:,.0f} | - | - |", flush=True)


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--funcs", nargs="*", default=[], help="rows to time (default: every row)")
    p.add_argument("--dtypes", nargs="*", default=list(DTYPES))
    p.add_argument("--sizes", nargs="*", type=int, default=list(SIZES))
    p.add_argument("--forms", nargs="*", default=[], help="of " + ", ".join(UNARY_FORMS + BINARY_FORMS))
    p.add_argument("--repeats", type=int, default=9, help="interleaved batches per library (default 9)")
    p.add_argument("--batch-us", type=float, default=300.0, help="a batch lasts at least this (default 300)")
    p.add_argument("--top", type=int, default=0, help="print only the worst N rows")
    p.add_argument("--json", help="write every result here")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--callgrind", nargs="*", metavar="FUNC",
                   help="instructions per call instead (sizes 1 and 100 unless --sizes)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    torch = None
    if not args.no_torch:
        try:
            import torch
            torch.set_num_threads(1)
        except ImportError:
            print("(PyTorch is not installed: NumPy only)")
    import strided as st
    st.set_num_threads(1)
    if args.callgrind is not None:
        args.funcs = args.funcs + args.callgrind
        if args.sizes == list(SIZES):
            args.sizes = [1, 100]
        callgrind(args, None)
        return 0
    results = []
    t0 = time.perf_counter()
    for (func, dtype, n, form), stmts, nss in cases(args, torch):
        med = measure(stmts, nss, args.repeats, int(args.batch_us * 1000), same_inner=form == "inplace")
        if "strided" not in med:
            print(f"(skipped: {func} {dtype} {n} {form}: strided raised)", file=sys.stderr)
            continue
        results.append({"func": func, "dtype": dtype, "n": n, "form": form,
                         "strided": med.get("strided"), "numpy": med.get("numpy"), "torch": med.get("torch")})
    print(f"{len(results)} cases in {time.perf_counter() - t0:.0f} s, one thread, medians of "
          f"{args.repeats} interleaved batches", file=sys.stderr)
    table(results, args.top)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
