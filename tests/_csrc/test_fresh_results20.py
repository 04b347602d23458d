"""Small results of the compiled elementwise path come from NumPy's C API and a free list
(strided/_csrc/_chot/views.c, ``fresh_result``; loops.c, ``result_empty``).

A result of at most 4 KiB whose ndarray nobody refers to any more -- no Array, view,
Storage, NumPy array, buffer export, DLPack capsule, saved tensor or weak reference -- is
written again by a later call of the same dtype and shape. These tests hold earlier results
in each of those ways, run many calls of the same shape that write other values, and
compare every held result with NumPy's value of it: a reuse of a result anybody still
reaches shows up as changed values. The Hypothesis test interleaves calls, drops and holds
at random against NumPy. Run with and without the C extension (the Python path then
answers both sides, and the tests still compare with NumPy).
"""

import gc
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

A = xp.Array


def H(a):
    return np.asarray(a.cpu()) if type(a) is A else np.asarray(a)


def _churn(x, y, times=40):
    """Results of x's shape and dtype, computed and dropped: each would be written into a
    held result's buffer if that buffer were wrongly free."""
    for k in range(times):
        r = x * float(k + 7) + y
        r = xp.exp(r * 0.0) - 5.0
        s = x < y
        del r, s
    gc.collect(0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_results_held_in_every_way_keep_their_values(dtype):
    rng = np.random.default_rng(20)
    a = rng.integers(-50, 50, 16).astype(dtype)
    b = rng.integers(-50, 50, 16).astype(dtype)
    x, y = xp.asarray(a, device="cpu"), xp.asarray(b, device="cpu")
    want = a + b
    held = x + y  # the Array itself
    view = (x + y)[3:9]  # a view of a dropped result
    via_numpy = np.asarray(x + y)  # NumPy's array of a dropped result
    st_res = x + y
    storage = st_res.storage()  # a Storage of a result, the result then dropped
    st_view = st_res[::2]
    del st_res
    mv = memoryview(np.asarray(x + y))  # a buffer export only
    dl = np.from_dlpack(x + y)  # a DLPack import only
    ref_res = x + y
    native_ref = weakref.ref(ref_res._np) if hasattr(ref_res, "_np") and ref_res._np is not None else None
    weak_only = weakref.ref(np.asarray(x + y))  # only a weak reference to a dropped result's array
    _churn(x, y)
    np.testing.assert_array_equal(H(held), want)
    np.testing.assert_array_equal(H(view), want[3:9])
    np.testing.assert_array_equal(via_numpy, want)
    np.testing.assert_array_equal(H(st_view), want[::2])
    assert storage is st_view.storage()
    np.testing.assert_array_equal(np.frombuffer(mv, dtype=dtype), want)
    np.testing.assert_array_equal(dl, want)
    np.testing.assert_array_equal(H(ref_res), want)
    if native_ref is not None:
        assert native_ref() is not None
    w = weak_only()  # (gone, or -- kept by the free list -- still the values it had)
    if w is not None:
        np.testing.assert_array_equal(w, want)


def test_a_result_written_in_place_is_not_another_result():
    x = xp.asarray(np.arange(8.0), device="cpu")
    a = x + 1.0
    a += 100.0
    del a
    b = x + 1.0  # may reuse a's dropped buffer: must be the new value, every element
    c = x + 1.0
    np.testing.assert_array_equal(H(b), np.arange(8.0) + 1.0)
    np.testing.assert_array_equal(H(c), np.arange(8.0) + 1.0)
    assert b._np is not c._np
    b[0] = -3.0
    assert float(c[0]) == 1.0


def test_saved_tensors_of_autograd_keep_their_values():
    """A result saved for backward (held by the graph only) is never reused: the gradient
    reads the values it was computed with."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal(12)
    w = xp.asarray(a, device="cpu", requires_grad=True)
    h = xp.exp(w * 0.5)  # saved by the multiply below
    out = xp.sum(h * h)
    del h
    for _ in range(30):  # results of w's shape and dtype, dropped
        r = xp.asarray(a, device="cpu") * 3.0 - 1.0
        del r
    out.backward()
    want = 2 * np.exp(a * 0.5) ** 2 * 0.5  # d/dw sum(exp(w/2)^2) = exp(w)
    np.testing.assert_allclose(H(w.grad), want, rtol=1e-12)


def test_small_gradients_are_right_and_fresh():
    """Gradients of small parameters (a result the engine could steal, now also held by the
    free list) are right, and .grad never aliases a later result."""
    a = np.linspace(-1, 1, 10)
    w = xp.asarray(a, device="cpu", requires_grad=True)
    for step in range(3):
        loss = xp.sum(w * w * float(step + 1))
        loss.backward()
    g = H(w.grad).copy()
    np.testing.assert_allclose(g, 2 * a * (1 + 2 + 3), rtol=1e-12)
    for _ in range(20):
        r = xp.asarray(a, device="cpu") * 7.0
        del r
    np.testing.assert_array_equal(H(w.grad), g)


_OPS = {
    "add": (lambda p, q: p + q, np.add),
    "multiply": (lambda p, q: p * q, np.multiply),
    "less": (lambda p, q: p < q, np.less),
    "exp": (lambda p, q: xp.exp(p), lambda p, q: np.exp(p)),
    "where": (lambda p, q: xp.where(p < q, p, q), lambda p, q: np.where(p < q, p, q)),
    "sum": (lambda p, q: xp.sum(p), lambda p, q: np.add.reduce(p, axis=None)),
}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(_OPS)), st.integers(0, 3), st.booleans(),
                          st.sampled_from(["keep", "drop", "view", "numpy"])),
                min_size=1, max_size=40),
       st.sampled_from([(1,), (5,), (3, 4), (512,)]), st.sampled_from([np.float32, np.float64]))
def test_any_sequence_of_calls_drops_and_holds_agrees_with_numpy(steps, shape, dtype):
    rng = np.random.default_rng(0)
    ins = [rng.standard_normal(shape).astype(dtype) for _ in range(4)]
    xs = [xp.asarray(v, device="cpu") for v in ins]
    kept = []
    for op, i, swap, how in steps:
        p, q = (i, (i + 1) % 4) if not swap else ((i + 1) % 4, i)
        ours, theirs = _OPS[op]
        with np.errstate(all="ignore"):
            want = np.asarray(theirs(ins[p], ins[q]))
        r = ours(xs[p], xs[q])
        if how == "keep":
            kept.append((r, want))
        elif how == "view" and r.ndim:
            kept.append((r[..., ::2], want[..., ::2]))
        elif how == "numpy":
            kept.append((np.asarray(r), want))
        del r
    for got, want in kept:
        np.testing.assert_array_equal(H(got), want)
    for x, v in zip(xs, ins):
        np.testing.assert_array_equal(H(x), v)


def test_a_result_made_read_only_through_numpy_is_not_handed_out_again():
    """np.asarray(r) is r's own ndarray; a user may mark it read-only. Once dropped, a later
    result must still be a fresh, writable array."""
    x = xp.asarray(np.arange(4.0), device="cpu")
    for _ in range(8):
        n = np.asarray(x + 1.0)
        n.flags.writeable = False
        del n
        s = x + 1.0
        s += 1.0
        s[0] = 5.0
        np.testing.assert_array_equal(H(s), [5.0, 3.0, 4.0, 5.0])


def test_free_held_names_the_arrays_the_free_list_holds():
    from strided._core import cext
    chot = cext.load("_chot")
    if chot is None or not hasattr(chot, "free_held"):
        pytest.skip("the compiled module is not active")
    x = xp.asarray(np.arange(6.0), device="cpu")
    r = x * 2.0
    a = r._np
    assert chot.free_held(a) is True  # (a small compiled result is listed as it is made)
    del r  # (the list and ``a`` hold it now)
    assert chot.free_held(a) is True
    b = a.copy()
    assert chot.free_held(b) is False
    big = xp.asarray(np.arange(100_000.0), device="cpu") * 2.0
    assert chot.free_held(big._np) is False  # (over 4 KiB: never listed)
    assert chot.free_held(np.zeros(3)) is False


def test_results_of_every_contiguity_class_are_listed():
    """A fresh (2, 3) array is C-contiguous only, a (6,) or (1, 6) one also F-contiguous: the
    list keeps each slot's own flags (one set for all, taken from the first result a process
    made, once listed only that class: the test above failed after another file's 2-d result)."""
    from strided._core import cext
    chot = cext.load("_chot")
    if chot is None or not hasattr(chot, "free_held"):
        pytest.skip("the compiled module is not active")
    for shape in [(2, 3), (6,), (1, 6), (3, 2), (2, 3)]:
        x = xp.asarray(np.ones(shape), device="cpu")
        r = x * 2.0
        assert chot.free_held(r._np) is True, shape
        np.testing.assert_array_equal(H(r), np.full(shape, 2.0))


def test_a_stolen_small_gradient_is_never_handed_out_while_it_is_a_grad():
    """A leaf's first gradient that only the engine (and the free list) holds becomes its
    .grad; later results of its shape must not be written into it."""
    a = np.linspace(-2, 2, 7)
    w = xp.asarray(a, device="cpu", requires_grad=True)
    (w * 3.0).sum().backward()  # the gradient: a fresh small result, stolen
    g = w.grad
    for _ in range(30):
        r = xp.asarray(a, device="cpu") * -1.0 + 5.0
        del r
    np.testing.assert_array_equal(H(g), np.full(7, 3.0))
    np.testing.assert_array_equal(H(w.grad), np.full(7, 3.0))


@pytest.mark.parametrize("case", ["elementwise", "take"])
def test_the_free_list_neither_leaks_nor_drops_references(case):
    """Results made while others of their shape are alive, then dropped, many times: memory
    stays flat (a slot index evaluated twice by CPython 3.11's Py_XSETREF once overwrote a
    slot without releasing it, leaking one array per call, and released another slot's array
    while it stayed listed)."""
    import tracemalloc

    w = xp.asarray(np.arange(3.0), device="cpu")
    g0 = xp.asarray(np.float64(1.0), device="cpu")
    idx = xp.asarray(np.array([2, 0, 1]), device="cpu")

    def step():
        if case == "elementwise":
            g1 = g0 * w
            g2 = g0 * w
            s = g1 + g2
        else:
            g1 = w[idx]
            g2 = w[idx]
            s = g1[idx]
        return float(s[0])

    for _ in range(200):
        step()
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        vals = {step() for _ in range(2000)}
        gc.collect()
        end = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert end - start < 4096, (start, end)
    assert vals == ({0.0} if case == "elementwise" else {1.0})
