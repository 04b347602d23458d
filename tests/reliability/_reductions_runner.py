"""One reduction case, run the same way in the test process (the compiled paths) and
in a ``STRIDED_NO_CEXT=1`` worker (the Python definitions): see
test_differential_reductions.py. As a script it is that worker: it reads pickled
cases (a 4-byte length, then the pickle) on stdin and writes their results back."""

from __future__ import annotations


import numpy as np

import strided as xp

FUNCS = ("sum", "mean", "var", "std", "prod", "max", "min", "cumulative_sum")
_NAN_PAYLOADS = (0x1, 0x123, 0xBEEF, 0x7FFFF)  # quiet NaNs told apart by payload (and sign)


def data(dtype: str, shape: tuple, seed: int, kind: str, nspecial: int) -> np.ndarray:
    """A deterministic input: ``kind`` picks values whose sum depends on the order of
    the additions (``drift``: 0.1 many times; ``wide``: magnitudes 1 to 1e8 with both
    signs), then ``nspecial`` elements are replaced by NaNs of distinct payloads and
    signs, signed zeros and infinities."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if kind == "drift":
        a = np.full(n, 0.1) + rng.standard_normal(n) * 1e-3
    elif kind == "wide":
        a = rng.standard_normal(n) * 10.0 ** rng.integers(0, 9, n)
    else:
        a = rng.standard_normal(n)
    a = a.astype(dtype)
    if n and nspecial:
        u = np.uint32 if dtype == "float32" else np.uint64
        quiet = 0x7FC00000 if dtype == "float32" else 0x7FF8000000000000
        sign = 1 << (31 if dtype == "float32" else 63)
        bits = a.view(u)
        for i in range(nspecial):
            j = int(rng.integers(0, n))
            pick = int(rng.integers(0, 8))
            if pick < 4:
                bits[j] = quiet | _NAN_PAYLOADS[pick] | (sign if rng.integers(0, 2) else 0)
            elif pick < 6:
                a[j] = -0.0 if pick == 4 else 0.0
            else:
                a[j] = -np.inf if pick == 6 else np.inf
    return a.reshape(shape)


def compute(case: dict):
    """The case's result: ("ok", dtype, shape, bytes) or ("error", type, message)."""
    a = data(case["dtype"], case["shape"], case["seed"], case["kind"], case["nspecial"])
    x = xp.asarray(a)
    if case["view"]:  # a strided view (not C-contiguous): the C kernels decline it
        x = x[..., ::2] if x.ndim else x
    nt, thresh = xp.get_num_threads(), xp.get_thread_threshold()
    try:
        xp.set_num_threads(case["nt"])
        xp.set_thread_threshold(case["thresh"])
        kw = {"axis": case["axis"]}
        if case["fn"] != "cumulative_sum":
            kw["keepdims"] = case["keepdims"]
        r = getattr(xp, case["fn"])(x, **kw)
        r = np.asarray(r)
        return ("ok", r.dtype.str, r.shape, r.tobytes())
    except Exception as e:  # the error itself is compared
        return ("error", type(e).__name__, str(e))
    finally:
        xp.set_num_threads(nt)
        xp.set_thread_threshold(thresh)


if __name__ == "__main__":  # pragma: no cover
    import _worker

    _worker.serve(compute)
