"""One call of a reduction through one of its doors, run the same way in the test process
(the compiled paths) and in a ``STRIDED_NO_CEXT=1`` worker (the Python definitions): see
test_differential_doors8.py. As a script it is that worker (``_worker.serve``).

A case names the input (shape, dtype, seed, layout), the door and the arguments as the user
spells them; ``call(x, case)`` makes that call, ``compute(case)`` returns ("ok", dtype,
shape, bytes) or ("error", type, message)."""

from __future__ import annotations

import numpy as np

import strided as xp

# The doors: the standard's function (axis=/keepdims=, PyTorch's dim=/keepdim= it accepts,
# NumPy's ddof=), the method (PyTorch's), and strided.torch's function (keywords, positional).
DOORS = ("ns", "ns_dim", "ns_ddof", "method", "method_pos", "torch", "torch_pos")
# function -> its name at each door (the standard's max/min are PyTorch's amax/amin)
TORCH_NAME = {"sum": "sum", "mean": "mean", "max": "amax", "min": "amin", "var": "var", "std": "std"}
FUNCS = tuple(TORCH_NAME)


def data(case) -> np.ndarray:
    """The case's input values: normal values, a few of them specials when asked (NaN of
    another payload, signed zeros, infinities), laid out as ``layout`` says."""
    shape, dtype = case["shape"], case["dtype"]
    rng = np.random.default_rng(case["seed"])
    n = int(np.prod(shape)) * (2 if case["layout"] == "step" and shape else 1)
    a = rng.standard_normal(n) * 3
    if case["special"] and n:
        k = int(rng.integers(1, 3))
        a[rng.integers(0, n, k)] = rng.choice([np.nan, -0.0, 0.0, np.inf, -np.inf], k)
    a = a.astype(dtype)
    if case["layout"] == "step":
        return a.reshape(shape[:-1] + (2 * shape[-1],))[..., ::2] if shape else a.reshape(())
    a = a.reshape(shape)
    if case["layout"] == "transposed":
        return a.T
    if case["layout"] == "reversed" and a.ndim:
        return a[..., ::-1]
    return a


def call(x, case):
    """The case's call of ``x`` through its door."""
    fn, door, axis, kd, c = case["fn"], case["door"], case["axis"], case["keepdims"], case["correction"]
    moment = fn in ("var", "std")
    if door == "ns":
        kw = {} if axis == "-" else {"axis": axis}
        if kd is not None:
            kw["keepdims"] = kd
        if moment and c is not None:
            kw["correction"] = c
        return getattr(xp, fn)(x, **kw)
    if door == "ns_dim":
        kw = {} if axis == "-" else {"dim": axis}
        if kd is not None:
            kw["keepdim"] = kd
        if moment and c is not None:
            kw["correction"] = c
        return getattr(xp, fn)(x, **kw)
    if door == "ns_ddof":
        kw = {} if axis == "-" else {"axis": axis}
        if kd is not None:
            kw["keepdims"] = kd
        if moment:
            kw["ddof"] = 1 if c is None else c
        return getattr(xp, fn)(x, **kw)
    name = TORCH_NAME[fn]
    if door in ("method", "torch"):
        kw = {} if axis == "-" else {"dim": axis}
        if kd is not None:
            kw["keepdim"] = kd
        if moment and c is not None:
            if c in (0, 1) and case["seed"] % 2:
                kw["unbiased"] = bool(c)  # PyTorch's legacy spelling
            else:
                kw["correction"] = c
        return getattr(x, name)(**kw) if door == "method" else getattr(xp.torch, name)(x, **kw)
    # positional: torch.sum(x, dim, keepdim), torch.std(x, dim, unbiased, keepdim)
    args = () if axis == "-" else (axis,)
    if moment and c in (0, 1) and args:
        args += (bool(c),)
    if kd is not None and len(args) == (2 if moment else 1):
        args += (kd,)
    return getattr(x, name)(*args) if door == "method_pos" else getattr(xp.torch, name)(x, *args)


def compute(case):
    """The case's result: ("ok", dtype, shape, bytes) or ("error", type, message)."""
    x = xp.asarray(data(case), device="cpu")  # (the compiled doors are the CPU's)
    try:
        r = call(x, case)
    except Exception as e:  # the error itself is compared
        return ("error", type(e).__name__, str(e))
    r = np.asarray(r)
    return ("ok", r.dtype.str, r.shape, r.tobytes())


if __name__ == "__main__":  # pragma: no cover
    import _worker

    _worker.serve(compute)


def meaning(case):
    """What the case's call means: ``(axis, keepdims, correction)`` as NumPy's reduction
    would be asked (axis None: all; correction None for sum/mean/max/min), or None where
    the call is refused (the standard's var/std with dim= and no correction, its max/min
    with dim=: PyTorch's meaning differs)."""
    fn, door, axis, kd, c = case["fn"], case["door"], case["axis"], case["keepdims"], case["correction"]
    moment = fn in ("var", "std")
    ax = None if axis == "-" else axis
    if door == "ns":
        return ax, bool(kd), ((0 if c is None else c) if moment else None)
    if door == "ns_dim":
        if axis != "-" and (fn in ("max", "min") or (moment and c is None)):
            return None
        return ax, bool(kd), ((0 if c is None else c) if moment else None)
    if door == "ns_ddof":
        return ax, bool(kd), ((1 if c is None else c) if moment else None)
    if door in ("method", "torch"):
        return ax, bool(kd), ((1 if c is None else c) if moment else None)
    if moment:
        given_c = c in (0, 1) and axis != "-"
        return ax, bool(kd) and given_c, (c if given_c else 1)
    return ax, bool(kd) and axis != "-", None
