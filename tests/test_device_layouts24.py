"""A result's layout does not depend on the device: each call is made on the suite's default
device (``cuda`` over the CuPy stand-in on that leg) and on ``cpu``, with the same values laid
out the same way (transposed, sliced with positive or negative steps, broadcast), and the
strides must be equal; where PyTorch has the call and the views, also PyTorch's (CPU; PyTorch
CUDA keeps the same layouts, TensorIterator's rules being the device's own), so the test can
fail on the cpu leg too.

Calls: elementwise functions of one and two arrays (an array of the same layout, a row-major
array, a broadcast row, a Python scalar), comparisons, ``where``, ``clip``, ``astype``,
reductions with ``keepdims``, ``clone``/``contiguous`` and the ``*_like`` constructors.

Strides are compared on the axes of more than one element (a size-1 axis's stride addresses
nothing, and PyTorch's choice for it differs); row-major and column-major contiguity too.
Against PyTorch only where both libraries define the layout alike: inputs without size-1 axes
(their strides take part in PyTorch's order), operands that do not disagree on the order
(``x.T + y`` with a row-major ``y``: NumPy's, and so strided's, order is row-major where
operands conflict -- ``nditer_constr.c``, ``npyiter_find_best_axis_ordering`` -- PyTorch's is
the first operand's, ``TensorIterator::reorder_dimensions``), and inputs without a broadcast
(stride-0) axis: NumPy's sort inserts an axis past the stride-0 axes it cannot compare, PyTorch's
swaps the two axes it compares, which moves the stride-0 axis (``exp`` of a permuted view
broadcast along its middle axis: strides (1, 4, 2) items in NumPy, (1, 2, 4) in PyTorch), and
NumPy's ``astype`` puts stride-0 axes innermost. Those are compared between devices only.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as hs

import strided as xp
import strided.torch as st

try:
    import torch
except ImportError:  # (the PyTorch half is skipped; the devices are still compared)
    torch = None

DEV = xp.asarray(0).device
DTYPES = ["float32", "float64", "int32", "bool", "complex64"]


# --- inputs -------------------------------------------------------------------------------

@hs.composite
def _views(draw):
    """(base shape, dtype, seed, view recipe): the recipe is a list of steps, each applied to
    a strided array (either device) and, where PyTorch has it, to a PyTorch tensor."""
    nd = draw(hs.integers(2, 3))
    shape = tuple(draw(hs.lists(hs.integers(1, 4), min_size=nd, max_size=nd)))
    steps = []
    for _ in range(draw(hs.integers(1, 3))):
        kind = draw(hs.sampled_from(["permute", "slice", "broadcast"]))
        if kind == "permute":
            steps.append(("permute", tuple(draw(hs.permutations(range(nd))))))
        elif kind == "slice":
            ax = draw(hs.integers(0, nd - 1))
            steps.append(("slice", ax, draw(hs.sampled_from([2, -1, -2])), draw(hs.integers(0, 1))))
        else:
            steps.append(("broadcast", draw(hs.integers(0, nd - 1)), draw(hs.integers(2, 3))))
    return shape, draw(hs.sampled_from(DTYPES)), draw(hs.integers(0, 2**32 - 1)), steps


def _values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int32":
        return rng.integers(-5, 6, shape).astype(np.int32)
    v = rng.standard_normal(shape)
    if dtype == "complex64":
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


def _apply(x, steps, lib):
    """The view of ``x`` the steps make, in ``lib``'s words (None: PyTorch has no such view,
    a negative step)."""
    for s in steps:
        nd = len(x.shape)
        if s[0] == "permute":
            x = xp.permute_dims(x, s[1]) if lib is None else x.permute(*s[1])
        elif s[0] == "slice":
            _, ax, step, start = s
            if step < 0 and lib is not None:
                return None
            key = [slice(None)] * nd
            key[ax] = slice(start if step > 0 else None, None, step)
            x = x[tuple(key)]
        elif x.shape[s[1]]:  # (an axis emptied by a slice is not broadcast)
            _, ax, n = s
            key = [slice(None)] * nd
            key[ax] = slice(0, 1)
            shape = list(x.shape)
            shape[ax] = n
            x = xp.broadcast_to(x[tuple(key)], tuple(shape)) if lib is None else x[tuple(key)].expand(*shape)
    return x


# --- the calls: name -> (strided call, PyTorch call or None, dtypes it takes) ---------------
# Each call is f(L, x, other); ``other`` is the second operand the test draws (or None).

_F = ("float32", "float64")
_R = ("float32", "float64", "int32")
_N = ("float32", "float64", "int32", "complex64")
UNARY = {
    "exp": (lambda x: xp.exp(x), lambda t: torch.exp(t), _F + ("complex64",)),
    "negative": (lambda x: -x, lambda t: -t, _N),
    "abs": (lambda x: xp.abs(x), lambda t: torch.abs(t), _R),
    "sqrt": (lambda x: xp.sqrt(xp.abs(x)), lambda t: torch.sqrt(torch.abs(t)), _F),
    "expm1": (lambda x: st.expm1(x), lambda t: torch.expm1(t), _F + ("complex64",)),
    "sigmoid": (lambda x: st.sigmoid(x), lambda t: torch.sigmoid(t), _F),
    "gelu": (lambda x: st.nn.functional.gelu(x), lambda t: torch.nn.functional.gelu(t), _F),
    "relu": (lambda x: st.relu(x), lambda t: torch.relu(t), _R),
    "round": (lambda x: xp.round(x), lambda t: torch.round(t), _F),
    "logical_not": (lambda x: xp.logical_not(x), lambda t: torch.logical_not(t), ("bool",)),
    "bitwise_invert": (lambda x: ~x, lambda t: ~t, ("int32", "bool")),
    "isnan": (lambda x: xp.isnan(x), lambda t: torch.isnan(t), _N),
    "clip": (lambda x: xp.clip(x, -1, 1), lambda t: torch.clamp(t, -1, 1), _R),
    "astype": (lambda x: xp.astype(x, xp.float64), lambda t: t.to(torch.float64, copy=True), _R + ("bool",)),
    # (strided's copy to the same dtype is row-major for a non-dense input, where PyTorch's
    # ``to(copy=True)`` and NumPy's ``astype`` keep the input's order: devices compared only)
    "astype_same": (lambda x: xp.astype(x, x.dtype), None, DTYPES),
    "where_scalar": (lambda x: xp.where(xp.real(x) > 0 if x.dtype == xp.complex64 else x != 0, x, 0),
                     None, _R),
    "clone": (lambda x: st.clone(x), lambda t: torch.clone(t), DTYPES),
    "contiguous": (lambda x: x.contiguous(), lambda t: t.contiguous(), DTYPES),
    "empty_like": (lambda x: st.empty_like(x), lambda t: torch.empty_like(t), DTYPES),
    "zeros_like": (lambda x: st.zeros_like(x), lambda t: torch.zeros_like(t), DTYPES),
    "ones_like": (lambda x: st.ones_like(x), lambda t: torch.ones_like(t), DTYPES),
    "full_like": (lambda x: st.full_like(x, 2), lambda t: torch.full_like(t, 2), DTYPES),
    "rand_like": (lambda x: st.rand_like(x), lambda t: torch.rand_like(t), _F),
    "xp.zeros_like": (lambda x: xp.zeros_like(x), None, DTYPES),
    "sum_keep": (lambda x: xp.sum(x, axis=1, keepdims=True), lambda t: t.sum(1, keepdim=True), _N),
    "max_keep": (lambda x: xp.max(x, axis=0, keepdims=True), lambda t: t.amax(0, keepdim=True), _R),
    "mean_keep": (lambda x: xp.mean(x, axis=-1, keepdims=True), lambda t: t.mean(-1, keepdim=True), _F),
    "argmax_keep": (lambda x: xp.argmax(x, axis=0, keepdims=True), lambda t: t.argmax(0, keepdim=True), _R),
    "any_keep": (lambda x: xp.any(x, axis=1, keepdims=True), lambda t: t.any(1, keepdim=True), DTYPES),
}
BINARY = {
    "add": (lambda x, y: x + y, lambda t, u: t + u, _N),
    "multiply": (lambda x, y: xp.multiply(x, y), lambda t, u: torch.mul(t, u), _N),
    "subtract": (lambda x, y: x - y, lambda t, u: t - u, _N),
    "divide": (lambda x, y: x / y, lambda t, u: t / u, _F),
    "maximum": (lambda x, y: xp.maximum(x, y), lambda t, u: torch.maximum(t, u), _R),
    "equal": (lambda x, y: x == y, lambda t, u: t == u, DTYPES),
    "less": (lambda x, y: x < y, lambda t, u: t < u, _R),
    "logical_and": (lambda x, y: xp.logical_and(x, y), lambda t, u: torch.logical_and(t, u), ("bool",)),
    "where": (lambda x, y: xp.where(x == y, x, y), lambda t, u: torch.where(t == u, t, u), DTYPES),
    "atan2": (lambda x, y: xp.atan2(x, y), lambda t, u: torch.atan2(t, u), _F),
    "copysign": (lambda x, y: xp.copysign(x, y), lambda t, u: torch.copysign(t, u), _F),
}
OTHERS = ["same", "row-major", "row", "scalar"]


def _other(kind, x, L, dtype):
    """The second operand: ``x`` itself (the same layout), a row-major array of x's shape,
    a row-major array of x's last axis (broadcast), or a Python scalar."""
    if kind == "same":
        return x
    if kind == "scalar":
        return {"bool": True, "int32": 3}.get(dtype, 1.5)
    v = np.asarray(_values(tuple(x.shape) if kind == "row-major" else tuple(x.shape)[-1:], dtype, 7))
    if L == "torch":
        return torch.tensor(v)
    return xp.asarray(v, device=L)


def _broadcasts(steps) -> bool:
    return any(s[0] == "broadcast" for s in steps)


def _kept_strides(r):
    shape = tuple(r.shape)
    strides = tuple(r.stride())
    return tuple((i, s) for i, (n, s) in enumerate(zip(shape, strides)) if n != 1)


def _flags(r):
    """(row-major, column-major) contiguity, from the shape and strides (size-1 axes and empty
    arrays count as contiguous, as NumPy's flags)."""
    shape, strides = tuple(r.shape), tuple(r.stride())
    if 0 in shape:
        return True, True

    def dense(order):
        expected = 1
        for i in order:
            if shape[i] != 1:
                if strides[i] != expected:
                    return False
                expected *= shape[i]
        return True
    nd = len(shape)
    return dense(range(nd - 1, -1, -1)), dense(range(nd))


def _outcome(f, *args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", f(*args)
    except Exception as e:  # noqa: BLE001 (the devices' outcomes are compared)
        return "err", e


def _check(name, case, on_dev, on_cpu, theirs):
    """The default device's result has the CPU's strides, and PyTorch's where given."""
    assert on_dev[0] == on_cpu[0], (f"{name} {case}: on {DEV} {on_dev[0]} {on_dev[1]!r}, "
                                    f"on cpu {on_cpu[0]} {on_cpu[1]!r}")
    if on_dev[0] == "err":
        assert type(on_dev[1]) is type(on_cpu[1]), (name, case, on_dev[1], on_cpu[1])
        return
    r, c = on_dev[1], on_cpu[1]
    assert str(r.device).split(":")[0] == str(DEV).split(":")[0], (name, case, r.device)
    assert tuple(r.shape) == tuple(c.shape), (name, case, r.shape, c.shape)
    assert _kept_strides(r) == _kept_strides(c), (
        f"{name} {case}: strides on {DEV} {tuple(r.stride())}, on cpu {tuple(c.stride())} "
        f"(shape {tuple(r.shape)})")
    assert _flags(r) == _flags(c), (name, case, _flags(r), _flags(c))
    if theirs is not None and theirs[0] == "ok":
        t = theirs[1]
        assert tuple(t.shape) == tuple(r.shape), (name, case, t.shape, r.shape)
        assert _kept_strides(r) == _kept_strides(t), (
            f"{name} {case}: strides on {DEV} {tuple(r.stride())}, PyTorch's {tuple(t.stride())} "
            f"(shape {tuple(r.shape)})")


_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", sorted(UNARY))
@_SETTINGS
@given(inp=_views())
def test_unary_layout_is_the_cpus(name, inp):
    shape, dtype, seed, steps = inp
    f, tf, dtypes = UNARY[name]
    if dtype not in dtypes:
        dtype = dtypes[seed % len(dtypes)]
    a = _values(shape, dtype, seed)
    x_dev = _apply(xp.asarray(a, device=DEV), steps, None)
    x_cpu = _apply(xp.asarray(a, device="cpu"), steps, None)
    theirs = None
    if torch is not None and tf is not None and 1 not in shape and not _broadcasts(steps):
        t = _apply(torch.tensor(a), steps, torch)
        if t is not None and 1 not in tuple(t.shape):
            theirs = _outcome(tf, t)
    _check(name, (shape, dtype, steps), _outcome(f, x_dev), _outcome(f, x_cpu), theirs)


@pytest.mark.parametrize("name", sorted(BINARY))
@_SETTINGS
@given(inp=_views(), other=hs.sampled_from(OTHERS), swap=hs.booleans())
def test_binary_layout_is_the_cpus(name, inp, other, swap):
    shape, dtype, seed, steps = inp
    f, tf, dtypes = BINARY[name]
    if dtype not in dtypes:
        dtype = dtypes[seed % len(dtypes)]
    a = _values(shape, dtype, seed)
    outs = []
    for L in (DEV, "cpu"):
        x = _apply(xp.asarray(a, device=L), steps, None)
        y = _other(other, x, L, dtype)
        outs.append(_outcome(f, *((y, x) if swap else (x, y))))
    theirs = None
    # (a row-major operand beside a permuted one: the orders conflict, and the rules differ)
    if torch is not None and tf is not None and other != "row-major" and 1 not in shape \
            and not _broadcasts(steps):
        t = _apply(torch.tensor(a), steps, torch)
        if t is not None and 1 not in tuple(t.shape):
            u = _other(other, t, "torch", dtype)
            theirs = _outcome(tf, *((u, t) if swap else (t, u)))
    _check(name, (shape, dtype, steps, other, swap), outs[0], outs[1], theirs)


# --- the rule itself, against NumPy ------------------------------------------------------

@hs.composite
def _operands(draw):
    """(result shape, NumPy operands): up to three arrays of the result's trailing axes (some
    of size 1), row-major, permuted, sliced with negative steps or broadcast, and maybe a
    Python scalar."""
    nd = draw(hs.integers(2, 4))
    shape = tuple(draw(hs.lists(hs.sampled_from([1, 2, 3]), min_size=nd, max_size=nd)))
    ops = []
    for _ in range(draw(hs.integers(1, 3))):
        k = draw(hs.integers(0, nd))
        sh = [1 if draw(hs.integers(0, 3)) == 0 else n for n in shape[nd - k:]]
        perm = draw(hs.permutations(range(k)))
        a = np.zeros([2 * sh[p] for p in perm] or [1]).transpose(np.argsort(perm)) if k else np.zeros(())
        a = a[tuple(slice(None, None, draw(hs.sampled_from([1, 2, -1, -2]))) for _ in range(k))]
        a = a[tuple(slice(0, n) for n in sh)]
        if k and draw(hs.booleans()):
            a = np.broadcast_to(a[:1], a.shape)
        ops.append(a)
    if len(ops) < 3 and draw(hs.booleans()):
        ops.append(1.5)
    return shape, ops


@settings(max_examples=400, deadline=None)
@given(_operands())
def test_elementwise_order_is_numpys(case):
    """``layout.elementwise_order`` (what the CuPy backend lays its results out by) gives the
    strides NumPy's ufuncs and ``where`` give, on the axes of more than one element."""
    from strided._core import layout as _layout
    shape, ops = case
    if len(ops) == 3:
        ops[0] = np.asarray(ops[0]) != 0  # (where's condition: a fresh comparison, as users make it)
        call = np.where
    else:
        call = np.add if len(ops) == 2 else np.positive
    try:
        want = np.asarray(call(*ops))
    except ValueError:
        return  # (shapes that don't broadcast)
    if want.shape != shape:
        return
    arrays = [a for a in ops if isinstance(a, np.ndarray)]
    perm = _layout.elementwise_order(shape, [(a.shape, tuple(s // a.itemsize for s in a.strides))
                                             for a in arrays]) or tuple(range(len(shape)))
    got = np.empty([shape[p] for p in perm], want.dtype).transpose(np.argsort(perm))
    keep = [i for i, n in enumerate(shape) if n != 1]
    assert [got.strides[i] for i in keep] == [want.strides[i] for i in keep], (
        f"{call.__name__} of {[(a.shape, a.strides) for a in arrays]}: NumPy's strides {want.strides}, "
        f"elementwise_order {perm} gives {got.strides}")
