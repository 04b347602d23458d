"""Writes into overlapping memory, one version counter per storage, and the
autograd rules that depend on them (issue 17).

References: PyTorch's behaviour (checked against torch itself where it is
installed, in ``test_hypothesis_torch.py``) and NumPy's answers for ``out=``
that partly overlaps an input.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import strided as xp
from strided._core import layout as _layout

OVERLAP = "single memory location"


def host(a):
    return np.asarray(a.cpu().numpy())


# --- the overlap rule ------------------------------------------------------------------

@pytest.mark.parametrize("shape, strides, expected", [
    ((3,), (1,), False), ((3,), (0,), True), ((1,), (0,), False), ((0, 3), (0, 1), False),
    ((2, 3), (3, 1), False), ((2, 3), (1, 2), False), ((2, 3), (0, 1), True),
    ((3, 2), (2, 3), False),   # interleaved, no shared element (exact check)
    ((2, 2), (1, 1), True),    # [0,1],[1,2]: element 1 twice
    ((3, 3), (-1, 3), False), ((4,), (-2,), False), ((2, 2), (2, -1), False),
    ((2, 2, 2), (4, 1, 1), True),
])
def test_has_internal_overlap_matches_an_exact_count(shape, strides, expected):
    offsets = {sum(i * s for i, s in zip(idx, strides)) for idx in np.ndindex(*shape)}
    assert (len(offsets) < math.prod(shape)) == expected  # the reference: count the offsets
    assert _layout.has_internal_overlap(shape, strides) is expected


def _expanded():
    base = xp.zeros(3)
    return base, base[None].expand(2, 3)


WRITES = {
    "add_": lambda v: v.add_(1),
    "mul_ (operator)": lambda v: v.__imul__(2),
    "out=": lambda v: xp.add(xp.ones((2, 3)), 1, out=v),
    "copy_": lambda v: v.copy_(xp.ones((2, 3))),
    "setitem slice": lambda v: v.__setitem__(slice(None), 1.0),
    "setitem array": lambda v: v.__setitem__(Ellipsis, xp.ones((2, 3))),
    "setitem mask": lambda v: v.__setitem__(xp.ones((2, 3), dtype=xp.bool), 1.0),
    "setitem index array": lambda v: v.__setitem__(xp.asarray([0]), 1.0),
    "uniform_": lambda v: v.uniform_(),
    "normal_": lambda v: v.normal_(),
    "bernoulli_": lambda v: v.bernoulli_(0.5),
    "random_": lambda v: v.random_(0, 5),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_writes_into_a_stride0_view_are_refused_and_write_nothing(name):
    base, v = _expanded()
    with pytest.raises(RuntimeError, match=OVERLAP):
        WRITES[name](v)
    assert host(base).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("name", ["fill_", "zero_"])
def test_fill_and_zero_of_a_stride0_view_are_allowed_as_in_pytorch(name):
    base, v = _expanded()
    base[...] = 5.0
    (v.fill_(2.0) if name == "fill_" else v.zero_())
    assert host(base).tolist() == ([2.0] * 3 if name == "fill_" else [0.0] * 3)


def test_a_single_element_of_a_stride0_view_can_be_written():
    base, v = _expanded()
    v[1, 2] = 4.0  # one location: no ambiguity
    v[0] = xp.asarray([1.0, 2.0, 3.0])  # row 0 has strides (1,): no overlap
    assert host(base).tolist() == [1.0, 2.0, 3.0]


def test_self_overlapping_view_from_a_reinterpreted_layout_is_refused():
    base = xp.zeros(4)
    st = base.storage()
    v = xp.Array._from_storage(st, 0, (2, 2), (1, 1)) if hasattr(xp, "Array") else None
    if v is None:
        from strided._core.array import Array
        v = Array._from_storage(st, 0, (2, 2), (1, 1))
    with pytest.raises(RuntimeError, match=OVERLAP):
        v.add_(1)
    assert host(base).tolist() == [0.0] * 4


@pytest.mark.parametrize("shift", [1, -1, 2])
def test_out_partly_overlapping_an_input_gives_numpys_answer(shift):
    ref = np.arange(8.0)
    a = xp.asarray(ref.copy())
    n = 8 - abs(shift)
    src = slice(0, n) if shift > 0 else slice(-shift, 8)
    dst = slice(shift, 8) if shift > 0 else slice(0, n)
    np.add(ref[src], ref[::-1][src], out=ref[dst])
    xp.add(a[src], xp.flip(a)[src], out=a[dst])
    assert host(a).tolist() == ref.tolist()


def test_inplace_operator_on_overlapping_slices_gives_numpys_answer():
    ref = np.arange(10.0)
    a = xp.asarray(ref.copy())
    ref[1:] += ref[:-1]
    a[1:] += a[:-1]
    assert host(a).tolist() == ref.tolist()


# --- one version counter per storage -------------------------------------------------------

def _bumps(view_of, write):
    x = xp.zeros(4, dtype=xp.complex64)
    before = x._version if hasattr(x, "_version") else x.storage().version()
    write(view_of(x))
    return x.storage().version() - before


@pytest.mark.parametrize("view_of", [
    lambda x: x.real, lambda x: x.imag, lambda x: x.view(xp.float64), lambda x: x.view(xp.int64),
    lambda x: x.real.view(xp.int32), lambda x: x[1:], lambda x: x.detach(),
], ids=["real", "imag", "view(float64)", "view(int64)", "real.view(int32)", "slice", "detach"])
def test_a_write_through_any_view_bumps_the_one_counter(view_of):
    assert _bumps(view_of, lambda v: v.__setitem__(0, 1)) >= 1
    assert _bumps(view_of, lambda v: v.add_(1)) >= 1


def test_reinterpretations_share_one_storage_object_per_dtype():
    x = xp.zeros(3, dtype=xp.complex64)
    assert x.real.storage() is x.imag.storage()
    assert x.view(xp.int64).storage() is x.view(xp.int64).storage()
    assert x.view(xp.complex64).storage() is x.storage()


def test_freed_reinterpretations_keep_their_writes_counted():
    import gc
    x = xp.zeros(3, dtype=xp.complex64)
    v0 = x.storage().version()
    r = x.real
    r.add_(1)
    del r
    gc.collect()
    assert x.storage().version() > v0
    assert host(x).tolist() == [1, 1, 1]


@pytest.mark.parametrize("via", ["real", "imag", "view"])
def test_autograd_sees_a_write_through_a_reinterpreted_view(via):
    w = xp.asarray([1.0, 2.0], dtype=xp.complex64, requires_grad=True)
    y = w * 1
    z = (y * y).sum()  # saves y
    with xp.autograd.no_grad():
        if via == "view":
            y.view(xp.float64)[0] = 3.0
        else:
            getattr(y, via)[0] = 3.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.real.backward()


def test_autograd_sees_a_write_through_detach():
    w = xp.ones(3, requires_grad=True)
    y = w * 2
    z = (y * y).sum()
    y.detach().add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_inplace_op_on_expanded_view_of_a_nonleaf_raises():
    w = xp.ones(3, requires_grad=True)
    y = w * 2
    with pytest.raises(RuntimeError, match=OVERLAP):
        y[None].expand(2, 3).add_(1)


# --- in-place random fills under autograd ---------------------------------------------------

@pytest.mark.parametrize("fill", ["uniform_", "normal_", "bernoulli_", "random_"])
def test_random_fill_of_a_leaf_that_requires_grad_raises(fill):
    w = xp.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        getattr(w, fill)()
    assert host(w.detach()).tolist() == [0, 0, 0]
    with xp.autograd.no_grad():
        getattr(w, fill)()  # initialisation under no_grad is how weights are set


def test_random_fill_of_a_nonleaf_cuts_its_gradient_as_pytorch():
    w = xp.ones(3, requires_grad=True)
    y = w * 2
    y.normal_()
    (y * 3).sum().backward()
    assert host(w.grad).tolist() == [0.0, 0.0, 0.0]  # PyTorch: the new values don't depend on w


# --- random fill arguments ---------------------------------------------------------------------

@pytest.mark.parametrize("call, match", [
    (lambda x: x.uniform_(2, 1), "from=2.0 > to=1.0"),
    (lambda x: x.uniform_(0, math.inf), "finite"),
    (lambda x: x.uniform_(math.nan, 1), "finite"),
    (lambda x: x.uniform_(-3e38, 3e38), "overflows"),
    (lambda x: x.normal_(0, -1), "std >= 0.0"),
    (lambda x: x.normal_(math.nan, 1), "finite"),
    (lambda x: x.bernoulli_(1.5), r"p to be in \[0, 1\]"),
    (lambda x: x.bernoulli_(-0.1), r"p to be in \[0, 1\]"),
    (lambda x: x.bernoulli_(math.nan), "finite"),
    (lambda x: x.bernoulli_(xp.asarray([0.5, 2.0, 0.1], device=x.device)), r"\[0, 1\]"),
    (lambda x: x.random_(5, 3), "from=5 >= to=3"),
    (lambda x: xp.zeros(3, dtype=xp.int8).random_(0, 1000), "outside the range of int8"),
    (lambda x: xp.zeros(3, dtype=xp.uint8).random_(-1, 5), "outside the range of uint8"),
    (lambda x: xp.randint(0, 300, (3,), dtype=xp.uint8), "outside the range of uint8"),
    (lambda x: xp.normal(0.0, -1.0, (3,)), "non-negative"),
    (lambda x: xp.normal(xp.zeros(3, device=x.device), xp.asarray([1.0, -1.0, 1.0], device=x.device)),
     "non-negative"),
    (lambda x: xp.bernoulli(x, 2.0), r"\[0, 1\]"),
])
def test_random_fills_check_their_arguments(call, match):
    # Note: probability and std arrays are checked on the CPU only (on a GPU the check
    # would copy them to the host on every call), so this runs on the CPU.
    x = xp.zeros(3, dtype=xp.float32, device="cpu")
    with pytest.raises(ValueError, match=match):
        call(x)
    assert host(x).tolist() == [0, 0, 0]


def test_random_fill_defaults_cover_the_dtype_range():
    for d in (xp.int8, xp.uint8, xp.int16):
        info = np.iinfo(np.dtype(str(d)))
        v = host(xp.zeros(4000, dtype=d).random_())
        assert v.min() >= 0 and v.max() <= info.max and v.max() > info.max // 2
    v = host(xp.zeros(1000, dtype=xp.float32).random_(-3, 3))
    assert set(np.unique(v)) <= {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0}


# --- hooks ----------------------------------------------------------------------------------

@pytest.mark.parametrize("leaf", [True, False])
@pytest.mark.parametrize("bad, match", [
    (lambda g: xp.ones(4), "changed the size"),
    (lambda g: xp.ones(3, dtype=xp.float64), "changed the type"),
    (lambda g: [1.0, 1.0, 1.0], "expected an array"),
])
def test_a_hook_returning_a_wrong_gradient_raises(leaf, bad, match):
    w = xp.ones(3, requires_grad=True)
    target = w if leaf else w * 1
    target.register_hook(bad)
    with pytest.raises((RuntimeError, TypeError), match=match):
        (target * 2).sum().backward()


def test_a_node_hook_returning_the_wrong_count_raises():
    w = xp.ones(3, requires_grad=True)
    y = w * 2
    y.grad_fn.register_prehook(lambda grads: (grads[0], grads[0]))
    with pytest.raises(RuntimeError, match="incorrect number of values"):
        y.sum().backward()


def test_a_hook_returning_a_right_gradient_is_used():
    w = xp.ones(3, requires_grad=True)
    w.register_hook(lambda g: g * 10)
    (w * 2).sum().backward()
    assert host(w.grad).tolist() == [20.0] * 3


# --- threads -------------------------------------------------------------------------------

def test_backward_on_many_threads_sharing_a_leaf_loses_nothing():
    w = xp.ones(64, requires_grad=True)
    n_threads, rounds = 8, 25
    barrier = threading.Barrier(n_threads)
    errors = []

    def work():
        try:
            barrier.wait()
            for _ in range(rounds):
                (w * 3).sum().backward()
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert host(w.grad).tolist() == [3.0 * n_threads * rounds] * 64


def test_storage_of_a_lazy_result_is_one_object_for_every_thread():
    for _ in range(30):
        y = xp.ones(1000) + 1  # a kernel result: its Storage is made on first request
        n = 6
        barrier = threading.Barrier(n)
        got = [None] * n

        def ask(i):
            barrier.wait()
            got[i] = y.storage()

        ts = [threading.Thread(target=ask, args=(i,)) for i in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert all(s is got[0] for s in got)
        assert y.storage() is got[0]
        y[0] = 7.0
        assert got[0][0] == 7.0


# --- Storage slicing --------------------------------------------------------------------------

def test_slicing_a_storage_reads_only_the_slice(monkeypatch):
    x = xp.arange(100000, dtype=xp.int32)
    st = x.storage()
    monkeypatch.setattr(type(st), "tolist", lambda self: pytest.fail("whole storage converted"))
    assert st[5:9] == [5, 6, 7, 8]
    assert st[-3:] == [99997, 99998, 99999]
    assert st[10:2:-3] == [10, 7, 4]
    assert st[::50000] == [0, 50000]
    assert "size 100000" in repr(st)
    assert list(st)[:3] == [0, 1, 2]


# --- wrong values --------------------------------------------------------------------------------

@pytest.mark.parametrize("value, exc", [(math.nan, ValueError), (math.inf, OverflowError),
                                        (-math.inf, OverflowError), (1e20, OverflowError),
                                        (2 ** 40, OverflowError), (-(2 ** 31) - 1, OverflowError)])
@pytest.mark.parametrize("make", ["full", "full_like", "fill_", "setitem", "setitem slice"])
def test_values_an_int32_cannot_hold_raise(make, value, exc):
    # Note: PyTorch's rule for floats (NumPy 2 fills NaN with garbage and warns); NumPy 2's
    # OverflowError for Python ints.
    x = xp.zeros(3, dtype=xp.int32)
    with pytest.raises(exc):
        if make == "full":
            xp.full((3,), value, dtype=xp.int32)
        elif make == "full_like":
            xp.full_like(x, value)
        elif make == "fill_":
            x.fill_(value)
        elif make == "setitem":
            x[0] = value
        else:
            x[:] = value
    assert host(x).tolist() == [0, 0, 0]


@pytest.mark.parametrize("expr", [
    lambda a: a + 2 ** 40, lambda a: 2 ** 40 + a, lambda a: a * 2 ** 70, lambda a: a - (-(2 ** 40)),
    lambda a: a.add_(2 ** 40), lambda a: xp.add(a, 2 ** 40), lambda a: xp.asarray(2 ** 40, dtype=xp.int32),
    lambda a: xp.asarray([2 ** 40], dtype=xp.int32), lambda a: xp.arange(0, 2 ** 40, 2 ** 39, dtype=xp.int32),
    lambda a: xp.arange(0, 300, 100, dtype=xp.int8), lambda a: xp.where(a == 0, a, 2 ** 40),
    lambda a: a.storage().__setitem__(0, 2 ** 40), lambda a: xp.full(3, 2 ** 40, out=a),
])
def test_a_python_int_too_large_for_the_dtype_raises_overflow_error(expr):
    a = xp.zeros(3, dtype=xp.int32)
    with pytest.raises(OverflowError):
        expr(a)
    assert host(a).tolist() == [0, 0, 0]


def test_comparisons_with_out_of_range_ints_are_exact_as_numpy():
    a = xp.asarray([0, 1], dtype=xp.int32)
    assert host(a == 2 ** 40).tolist() == (np.array([0, 1], np.int32) == 2 ** 40).tolist()
    assert host(a < 2 ** 40).tolist() == [True, True]
