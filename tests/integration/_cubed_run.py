"""Run by tests/integration/test_cubed.py in a fresh process (never collected by pytest).

Cubed reads ``CUBED_BACKEND_ARRAY_API_MODULE`` once, when it is imported, so the
test starts this script with the variable set instead of importing cubed
itself: other tests in the same (xdist) process are never affected. The
processes executor spawns its workers, which import this module again; hence
the ``__main__`` guard.

Usage: python _cubed_run.py WORK_DIR EXECUTOR MAX_WORKERS
Prints one JSON object: the backend's name and, per operation, the result's
type, dtype, shape and values (as nested lists).
"""

import json
import sys

import numpy as np


def data():
    """The input, as NumPy: the test computes its reference from the same values."""
    return np.random.default_rng(0).standard_normal((40, 30))


# name: (the operation on a cubed array ``a`` (16x16 chunks), given cubed and its
# array namespace; the same operation in NumPy, the test's reference)
OPERATIONS = {
    "sum(a @ a.T)": (lambda c, cxp, a: cxp.sum(a @ a.T), lambda a: np.sum(a @ a.T)),
    "max(a, axis=0)": (lambda c, cxp, a: cxp.max(a, axis=0), lambda a: np.max(a, axis=0)),
    "mean(a, axis=1)": (lambda c, cxp, a: cxp.mean(a, axis=1), lambda a: np.mean(a, axis=1)),
    "sin(a.T)[2:9]": (lambda c, cxp, a: cxp.sin(a.T)[2:9], lambda a: np.sin(a.T)[2:9]),
    "a[::2, 3]": (lambda c, cxp, a: a[::2, 3], lambda a: a[::2, 3]),
    "where(a > 0, a, 0)": (lambda c, cxp, a: cxp.where(a > 0, a, 0.0), lambda a: np.where(a > 0, a, 0.0)),
    "astype(a, float32) * 2": (lambda c, cxp, a: cxp.astype(a, cxp.float32) * 2,
                               lambda a: a.astype(np.float32) * 2),
    # 1 where the task's block was a strided array: every block is.
    "chunk types": (lambda c, cxp, a: c.map_blocks(_is_strided_block, a, dtype=a.dtype), np.ones_like),
}


def _is_strided_block(b):
    """1 where the block handed to the task is a strided array, 0 otherwise (ones of its shape)."""
    import strided

    return strided.ones(b.shape, dtype=b.dtype) * (1.0 if isinstance(b, strided.Array) else 0.0)


def main(work_dir, executor, max_workers):
    import cubed
    import cubed.array_api as cxp
    from cubed.backend_array_api import namespace

    spec = cubed.Spec(work_dir=work_dir, allowed_mem="200MB", executor_name=executor,
                      executor_options={"max_workers": max_workers})
    a = cxp.asarray(data(), chunks=(16, 16), spec=spec)
    results = cubed.compute(*(f(cubed, cxp, a) for f, _ in OPERATIONS.values()))
    out = {"backend": namespace.__name__, "results": {}}
    for name, r in zip(OPERATIONS, results):
        out["results"][name] = {"type": f"{type(r).__module__}.{type(r).__name__}",
                                "dtype": str(r.dtype), "shape": list(r.shape),
                                "values": np.asarray(r.to_device("cpu") if hasattr(r, "to_device") else r).tolist()}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
