"""Exhaustive check of the standard's special cases for elementwise functions.

The suite's ``test_special_cases.py`` parses every "Special cases" line of the
standard and checks each with ONE randomly drawn value per run, so a NumPy
deviation can pass on one run and fail on the next. This tool takes the same
parsed cases and checks them on a fixed grid of special and ordinary values,
for every floating dtype (float16/32/64 and complex64/complex128), both as
one vectorized array and element by element as 0-d arrays::

    ARRAY_API_TESTS_DIR=/path/to/array-api-tests python conformance/special_values.py [-v] [name ...]

Exits non-zero when any case fails; prints one line per failing case.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import warnings


def _grid():
    base = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.25, 0.75, 4.0, 5.5, 10.0,
            math.pi / 4, math.pi / 2, math.pi, 3 * math.pi / 4, 2 * math.pi,
            1e-300, 1e-40, 1e-8, 1e8, 1e30, 1e300, math.inf]
    vals = [v for b in base for v in (b, -b)] + [math.nan]
    return vals


def _cast(values, np_dtype):
    import numpy as np
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [np_dtype.type(v).item() for v in values]


def check(names=None, verbose=False) -> int:
    import numpy as np

    import strided as xp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the suite warns about unparsed cases at import
        from array_api_tests import test_special_cases as sc

    grid = _grid()
    failures = 0
    checked = 0

    def run_unary(fname, func, case, dtypes):
        nonlocal failures, checked
        for dt in dtypes:
            fdt = np.zeros((), dt._np).real.dtype  # the real dtype of dt's components
            g = _cast(grid, fdt)
            vals = ([complex(a, b) for a, b in itertools.product(g, g)] if case.is_complex else g)
            vals = [v for v in vals if _cond(case.cond, v)]
            if not vals:
                continue
            vec = [complex(o) if case.is_complex else float(o)
                   for o in func(xp.asarray(vals, dtype=dt)).tolist()]
            bad = []
            for v, o in zip(vals, vec):
                checked += 1
                o0 = func(xp.asarray(v, dtype=dt))
                o0 = complex(o0) if case.is_complex else float(o0)
                if not case.check_result(v, o) or not case.check_result(v, o0):
                    bad.append((v, o, o0))
            _report(f"{fname}({case}) [{dt.name}]", bad, len(vals))

    def run_binary(fname, func, case, dtypes):
        nonlocal failures, checked
        for dt in dtypes:
            g = _cast(grid, dt._np)
            pairs = [(a, b) for a, b in itertools.product(g, g) if _cond(case.cond, a, b)]
            if not pairs:
                continue
            x1 = xp.asarray([a for a, _ in pairs], dtype=dt)
            x2 = xp.asarray([b for _, b in pairs], dtype=dt)
            vec = func(x1, x2).tolist()  # in-place operators return x1
            bad = []
            for (a, b), o in zip(pairs, vec):
                checked += 1
                o0 = float(func(xp.asarray(a, dtype=dt), xp.asarray(b, dtype=dt)))
                if not case.check_result(a, b, float(o)) or not case.check_result(a, b, o0):
                    bad.append(((a, b), o, o0))
            _report(f"{fname}({case}) [{dt.name}]", bad, len(pairs))

    def _report(label, bad, n):
        nonlocal failures
        if bad:
            failures += 1
            ex = "; ".join(f"in={v!r} vector={o!r} 0-d={o0!r}" for v, o, o0 in bad[:3])
            print(f"FAIL {label}: {len(bad)}/{n} values, e.g. {ex}")
        elif verbose:
            print(f"ok   {label}: {n} values")

    def _guard(run, fname, func, case, dtypes):
        nonlocal failures
        try:
            run(fname, func, case, dtypes)
        except Exception as e:  # report and go on with the other cases
            failures += 1
            print(f"FAIL {fname}({case}): raised {type(e).__name__}: {e}")

    real = (xp.float16, xp.float32, xp.float64)
    cplx = (xp.complex64, xp.complex128)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for p in sc.unary_params:
            fname, func, case = p.values
            if names and fname not in names:
                continue
            if func is None:
                print(f"MISSING {fname}")
                failures += 1
                continue
            _guard(run_unary, fname, func, case, cplx if case.is_complex else real)
        for p in list(sc.binary_params) + list(sc.iop_params):
            fname, func, case = p.values
            if names and fname not in names:
                continue
            _guard(run_binary, fname, func, case, real)
    print(f"{checked} values checked, {failures} failing cases")
    return 1 if failures else 0


def _cond(cond, *args) -> bool:
    try:
        return bool(cond(*args))
    except (ValueError, OverflowError, ZeroDivisionError, TypeError):
        return False


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help="only these functions/operators (e.g. tanh __floordiv__)")
    p.add_argument("-v", "--verbose", action="store_true", help="list passing cases too")
    p.add_argument("--suite", default=os.environ.get("ARRAY_API_TESTS_DIR"),
                   help="array-api-tests checkout (default $ARRAY_API_TESTS_DIR)")
    args = p.parse_args(argv)
    if not args.suite:
        print("set ARRAY_API_TESTS_DIR to an array-api-tests checkout", file=sys.stderr)
        return 2
    os.environ["ARRAY_API_TESTS_MODULE"] = "strided"
    sys.path.insert(0, os.path.abspath(args.suite))
    return check(set(args.names) or None, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
