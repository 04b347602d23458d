"""``sum(x)``'s compiled plain case (issue 38; strided/_csrc/_chot/fast.c, ``fast_sum``, K_SUM).

``xp.sum(x)`` of an extension-free float32/float64 CPU array with at least one dimension,
which one thread sums, is answered in C: the kernel the Python definition calls first
(``_ckernels.sum_into``, NumPy's pairwise sum) into a fresh 0-d result, without the API
wrapper's error state and frame. Everything else is passed on to the Python definition
(``xp.sum.__wrapped__``). Checked here:

- the compiled call against the Python definition, bit for bit (NaN payloads and zero
  signs), dtype, shape, device and type, over drawn shapes, dtypes, layouts and values; and
  against ``numpy.add.reduce``'s bits where NumPy sums the same row;
- which calls it answers (a profiler sees no Python frame of the definition) and which it
  passes on: other dtypes, 0-d and empty arrays, keywords, recorded and named arrays, and the
  sizes that more than one thread splits (the same bound as ``threads.one_thread_reduce``);
- that its result is fresh (no memory shared with the input) and the input is unchanged;
- bad input gets the Python definition's error.

Skipped where the compiled module or the C kernels are not built (STRIDED_NO_CEXT=1).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._api import statistics as S
from strided._core import threads as T

from conftest import bits

pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(S._SUM_C is None or not hasattr(xp.sum, "__wrapped__")
                                or type(xp.sum).__name__ != "Fast",
                                reason="the compiled hot path or the C kernels are not built")]
DEF = xp.sum.__wrapped__  # the Python definition behind the compiled case


@pytest.fixture(autouse=True)
def _wrapper_error_state():
    """The definition called directly runs under the error state the API wrapper sets."""
    with np.errstate(all="ignore"):
        yield


def _frames(fn, *args, **kwargs):
    """fn(*args, **kwargs) and how many times the Python definition of sum was entered."""
    code = DEF.__code__
    seen = []

    def prof(frame, event, arg):
        if event == "call" and frame.f_code is code:
            seen.append(1)

    sys.setprofile(prof)
    try:
        r = fn(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return r, len(seen)


def _same(got, want):
    assert type(got) is xp.Array and type(want) is xp.Array
    assert got.dtype == want.dtype and got.shape == want.shape and got.device == want.device
    g, w = np.asarray(got.to_device("cpu")), np.asarray(want.to_device("cpu"))
    if g.dtype in (np.float32, np.float64):
        np.testing.assert_array_equal(bits(g), bits(w))
    else:
        np.testing.assert_array_equal(g, w)


_VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=32),
                    st.sampled_from([0.0, -0.0, 1e30, -1e30, 3.0e38, 1e-40, float("nan")]))


@st.composite
def _arrays(draw):
    dt = draw(st.sampled_from(["float32", "float64"]))
    n = draw(st.one_of(st.integers(1, 40), st.integers(100, 3000), st.sampled_from([4096, 4097, 65536, 100_003])))
    kind = draw(st.sampled_from(["flat", "rows", "strided", "transposed", "offset"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20, n)).astype(dt)
    if draw(st.booleans()):
        k = draw(st.integers(0, min(n, 8)))
        idx = rng.integers(0, n, k)
        a[idx] = np.array(draw(st.lists(_VALUES, min_size=k, max_size=k)), dtype=dt)
    x = xp.asarray(a, device="cpu")
    if kind == "rows" and n % 4 == 0:
        x = xp.reshape(x, (4, n // 4))
    elif kind == "strided" and n > 2:
        x = x[::2]
    elif kind == "transposed" and n % 4 == 0:
        x = xp.reshape(x, (4, n // 4)).T
    elif kind == "offset" and n > 3:
        x = x[3:]
    return x


@settings(max_examples=150, deadline=None)
@given(_arrays())
def test_compiled_sum_is_the_definitions(x):
    before = np.asarray(x).copy()
    got = xp.sum(x)
    _same(got, DEF(x))
    np.testing.assert_array_equal(bits(np.asarray(x)), bits(before))  # the input unchanged


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 8, 129, 1024, 1025, 4096, 4097, 65536, 100_000])
def test_numpy_bits_and_the_compiled_case_taken(dt, n):
    a = np.random.default_rng(n).standard_normal(n).astype(dt) * 1e3
    x = xp.asarray(a, device="cpu")
    was = T.get_num_threads()
    T.set_num_threads(1)
    try:
        r, entered = _frames(xp.sum, x)
    finally:
        T.set_num_threads(was)
    assert entered == 0  # answered in C: no frame of the Python definition
    assert r.dtype == x.dtype and r.shape == () and r.device == x.device
    np.testing.assert_array_equal(bits(np.asarray(r)), bits(np.add.reduce(a)))
    assert not np.shares_memory(np.asarray(r), a)


@pytest.mark.parametrize("make", [
    lambda: xp.asarray(np.ones(10, np.float16), device="cpu"),
    lambda: xp.asarray(np.ones(10, np.complex64), device="cpu"),
    lambda: xp.asarray(np.arange(10, dtype=np.int32), device="cpu"),
    lambda: xp.asarray(np.float32(2.5), device="cpu"),          # 0-d
    lambda: xp.asarray(np.ones(0, np.float32), device="cpu"),    # empty
    lambda: xp.asarray(np.ones((3, 0), np.float64), device="cpu"),
], ids=["float16", "complex64", "int32", "0-d", "empty", "empty-2d"])
def test_passed_on(make):
    x = make()
    r, entered = _frames(xp.sum, x)
    assert entered == 1
    _same(r, DEF(x))


def test_keywords_passed_on():
    x = xp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device="cpu")
    for kw in ({"axis": 0}, {"axis": None}, {"keepdims": True}, {"dtype": xp.float64}):
        r, entered = _frames(xp.sum, x, **kw)
        assert entered == 1
        _same(r, DEF(x, **kw))


def test_recorded_arrays_passed_on():
    a = np.random.default_rng(1).standard_normal(300)
    x = xp.asarray(a, device="cpu", requires_grad=True)
    r, entered = _frames(xp.sum, x)
    assert entered == 1
    assert r.grad_fn is not None
    r.backward()
    np.testing.assert_array_equal(np.asarray(x.grad), np.ones(300))
    np.testing.assert_array_equal(bits(np.asarray(r.detach())), bits(np.add.reduce(a)))


def test_named_arrays_answered_as_the_plain_call():
    """sum over every axis of a named array is the plain sum (the names handler's unnamed
    0-d result): answered in C; with autograd's record beside the names, passed on."""
    a = np.random.default_rng(5).standard_normal((40, 30)).astype(np.float32)
    x = xp.asarray(a, device="cpu").rename("a", "b")
    r, entered = _frames(xp.sum, x)
    assert entered == 0
    assert r._ext is None and r.names == ()
    _same(r, DEF(xp.asarray(a, device="cpu")))
    g = xp.asarray(a, device="cpu", requires_grad=True).rename("a", "b")
    r, entered = _frames(xp.sum, g)
    assert entered == 1 and r.grad_fn is not None


@pytest.mark.parametrize("offset", [-4, 0, 4])
def test_thread_split_bound_is_one_thread_reduce(offset):
    """With two threads a sum from the split threshold on is the Python definition's (which
    splits it); below it the compiled case answers: the same bound, byte for byte."""
    was_n, was_t = T.get_num_threads(), T.get_thread_threshold()
    T.set_num_threads(2)
    T.set_thread_threshold(1 << 16)
    try:
        nbytes = (1 << 16) + offset * 4
        a = np.random.default_rng(2).standard_normal(nbytes // 4).astype(np.float32)
        x = xp.asarray(a, device="cpu")
        r, entered = _frames(xp.sum, x)
        assert entered == (0 if T.one_thread_reduce(nbytes) else 1)
        np.testing.assert_array_equal(bits(np.asarray(r)), bits(np.add.reduce(a)))
    finally:
        T.set_num_threads(was_n)
        T.set_thread_threshold(was_t)


@pytest.mark.parametrize("bad", ["abc", [1.0, 2.0], 3.0, None])
def test_bad_input_gets_the_definitions_error(bad):
    with pytest.raises(Exception) as compiled:
        xp.sum(bad)
    with pytest.raises(Exception) as python:
        DEF(bad)
    assert type(compiled.value) is type(python.value) and str(compiled.value) == str(python.value)


def test_fast_refuses_a_bad_table():
    Fast = type(xp.sum)
    with pytest.raises(TypeError, match="9 "):
        Fast(DEF, 9, [1, 2], hook=[None], name="sum")
