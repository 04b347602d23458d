"""Runs one program of the differential test (test_differential.py) and describes what
it did, in plain picklable values, so that two runs can be compared bit for bit.

The same file runs in the test's process (the compiled paths, where built) and in a
worker process started with ``STRIDED_NO_CEXT=1`` (the Python definitions): the worker
reads ``(program, inputs)`` pickles on stdin and writes result pickles on stdout.

A program is a list of ``(name, source)`` statements run with ``exec`` in one
namespace holding ``xp``, ``np``, ``functools``, ``itertools``, ``operator``, ``obj1`` (a 1-item
object array), ``tstarmap`` (``ThreadPool(2).starmap``) and the inputs ``I0``, ``I1``, ...
Each statement binds ``name``. Every value a statement binds is recorded right after
the statement (values as raw bytes, so NaN payloads and signed zeros count; dtype,
shape, names, ``requires_grad``, the ``grad_fn``'s class) or its error (type and
message). At the end every input and every bound value is recorded again: a value
that changed is an array the user held that something overwrote. Then the sum of
every result that requires grad runs backward, and the inputs' gradients are recorded.
"""

from __future__ import annotations

import functools
import itertools
import operator
import warnings

import numpy as np

import strided as xp

def tstarmap(f, pairs):
    """``ThreadPool(2).starmap(f, pairs)``: f runs on the pool's threads, each call's
    arguments borrowed from ``pairs``.

    When more than one call raises, the pool reports whichever finished first, so the
    error of the first failing *pair* is raised instead: both runs of a program must
    report the same one."""
    from multiprocessing.pool import ThreadPool

    def guarded(*args):
        try:
            return True, f(*args)
        except Exception as e:  # re-raised below, in pair order
            return False, e

    with ThreadPool(2) as p:
        outcomes = p.starmap(guarded, pairs)
    for ok, value in outcomes:
        if not ok:
            raise value
    return [value for _, value in outcomes]


def obj1(v):
    """A 1-item object array holding ``v``: NumPy's object loop borrows its item."""
    o = np.empty(1, object)
    o[0] = v
    return o


# Bit patterns the float inputs carry besides random values: NaNs with payloads (quiet,
# signalling-looking, negative), infinities, signed zeros, a subnormal.
_F64_SPECIAL = np.array([0x7FF8000000000001, 0x7FF0000000000123, 0xFFF800000000BEEF,
                         0x7FF0000000000000, 0xFFF0000000000000, 0x8000000000000000,
                         0x0000000000000000, 0x0000000000000001], dtype=np.uint64).view(np.float64)


def _data(dtype: str, shape: tuple, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        a = rng.integers(0, 2, n).astype(bool)
    elif dtype.startswith("int"):
        a = rng.integers(-6, 7, n).astype(dtype)
    else:
        a = rng.standard_normal(n).astype(dtype)
        k = min(n, 16)
        where = rng.choice(n, k, replace=False)
        with np.errstate(all="ignore"):  # (float64 NaN payloads cast to float32)
            a[where] = _F64_SPECIAL[rng.integers(0, len(_F64_SPECIAL), k)].astype(dtype)
    return a.reshape(shape)


def make_inputs(spec) -> list:
    """spec: [(dtype, shape, seed, requires_grad, names or None)] -> strided arrays."""
    out = []
    for dtype, shape, seed, rg, names in spec:
        x = xp.asarray(_data(dtype, shape, seed))
        if names is not None:
            x = x.rename(*names)
        if rg:
            x.requires_grad_(True)
        out.append(x)
    return out


def record(v, depth=0):
    """What ``v`` is, as plain values (arrays by their bytes)."""
    if isinstance(v, xp.Array):
        h = np.ascontiguousarray(v._host())
        fn = v.grad_fn
        return ("array", str(v.dtype), tuple(v.shape), h.tobytes(), tuple(v.names),
                bool(v.requires_grad), None if fn is None else type(fn).__name__)
    if depth > 3:
        return ("deep",)
    if isinstance(v, (tuple, list)):
        return (type(v).__name__,) + tuple(record(u, depth + 1) for u in v)
    if isinstance(v, np.ndarray) and v.dtype == object:
        return ("objects",) + tuple(record(u, depth + 1) for u in v.ravel())
    if isinstance(v, functools.partial):
        return ("partial",) + tuple(record(u, depth + 1) for u in v.args)
    if isinstance(v, (bool, int, float, complex, str, type(None))):
        return ("value", repr(v))
    return ("other", type(v).__name__)


def _error(e: BaseException) -> tuple:
    return ("error", type(e).__name__, str(e))


def run(program, spec) -> dict:
    inputs = make_inputs(spec)
    ns = {"xp": xp, "np": np, "functools": functools, "itertools": itertools, "obj1": obj1,
          "tstarmap": tstarmap, "operator": operator}
    held = {}
    for i, x in enumerate(inputs):
        ns[f"I{i}"] = x
        held[f"I{i}"] = record(x)
    steps = []
    for name, src in program:
        try:
            # Note: NumPy's own loops around strided calls (np.frompyfunc, the object
            # loop) check the FPU's status flags when they end, in the caller's error
            # state; strided's kernels run under "ignore" and leave the flags as the
            # kernel set them, in whichever thread ran the last chunk, so such a loop may
            # warn ("invalid value encountered in add (vectorized)") after one path and
            # not the other. Those are NumPy's warnings about NumPy's loop, not strided's:
            # the programs run under np.errstate(all="ignore"), and strided's own
            # promise (no RuntimeWarning from its arithmetic) is tested where it is made.
            # (``(2 + 2)[0]``: the compiler's SyntaxWarning, then the TypeError compared)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                exec(src, ns)
            rec = record(ns[name])
            held[name] = rec
        except Exception as e:  # noqa: BLE001 - the error is part of what is compared
            ns[name] = None
            rec = _error(e)
        steps.append((name, rec))
    changed = sorted(k for k, rec in held.items() if record(ns[k]) != rec)
    # backward through every result that requires grad
    outs = [ns[k] for k in held if k[0] != "I" and isinstance(ns[k], xp.Array)
            and ns[k].requires_grad and ns[k].dtype in (xp.float32, xp.float64)]
    if outs:
        try:
            loss = outs[0].sum()
            for o in outs[1:]:
                loss = loss + o.sum().astype(loss.dtype)
            loss.backward()
            grads = tuple(record(x.grad) for x in inputs)
        except Exception as e:  # noqa: BLE001
            grads = _error(e)
    else:
        grads = ()
    return {"steps": steps, "changed": changed, "grads": grads}


def _handle(message) -> dict:  # pragma: no cover - runs in the worker process
    program, spec = message
    try:
        return run(program, spec)
    except BaseException as e:  # noqa: BLE001
        return {"crash": _error(e)}


if __name__ == "__main__":  # pragma: no cover
    import _worker

    warnings.simplefilter("error", RuntimeWarning)  # as the test suite runs
    _worker.serve(_handle)
