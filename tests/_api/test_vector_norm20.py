"""``linalg.vector_norm(x)`` (ord 2) of host float32/float64 arrays sums the squares in one C
pass (``linalg._sq_sum``: the C reductions' sum of squared deviations from 0). Its value must
be the reference's bits, ``sqrt(add.reduce(abs(a) * abs(a), axes))`` -- NumPy's own
``vector_norm`` computes the same sums -- for every shape, axis choice, keepdims, layout and
value (NaN, infinities, signed zeros, huge and tiny values), with and without the C kernels."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided import linalg as _linalg

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _ref(a, axes, keepdims):
    m = np.abs(a)
    ax = tuple(range(a.ndim)) if axes is None else axes
    with np.errstate(all="ignore"):  # (squares of huge values overflow to inf, as strided's)
        return np.sqrt(np.add.reduce(m * m, axis=ax, keepdims=keepdims))


def _bits(r):
    r = np.ascontiguousarray(r)
    return r.view(np.uint8).tobytes(), r.dtype, r.shape


@st.composite
def cases(draw):
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 40 if nd > 1 else 3000), min_size=nd, max_size=nd)))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    n = int(np.prod(shape))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = (rng.standard_normal(n) * draw(st.sampled_from([1.0, 1e-20, 1e20]))).astype(dtype)
    special = draw(st.lists(st.tuples(st.integers(0, n - 1),
                                      st.sampled_from([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0])),
                            max_size=3))
    for i, v in special:
        a[i] = v
    a = a.reshape(shape)
    layout = draw(st.sampled_from(["c", "t", "step"]))
    if layout == "t":
        a = a.T
    elif layout == "step" and shape[0] > 1:
        a = a[::2]
    axes = draw(st.one_of(st.none(), st.sets(st.integers(0, a.ndim - 1), min_size=1).map(lambda s: tuple(sorted(s)))))
    return a, axes, draw(st.booleans())


@settings(max_examples=150, deadline=None)
@given(cases())
def test_the_2_norm_is_the_references_bits(case):
    a, axes, keepdims = case
    want = _ref(a, axes, keepdims)
    got = xp.linalg.vector_norm(xp.asarray(a, device="cpu"), axis=axes, keepdims=keepdims)
    got = np.asarray(got)
    if np.isnan(want).any():  # (the sign of a NaN norm: the reference's abs, then any NaN)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        assert _bits(got[ok]) == _bits(want[ok])
    else:
        assert _bits(got) == _bits(want)


def test_the_one_pass_sum_is_taken_and_declines_what_it_must():
    a = np.random.default_rng(0).standard_normal((50, 70))
    if _linalg._sq_dev_reduce is None:
        pytest.skip("no C kernels")
    s = _linalg._sq_sum(a, None)
    if s is None:
        pytest.skip("the C reductions are not active (STRIDED_NO_CEXT)")
    assert _bits(s) == _bits(np.asarray(np.add.reduce(a * a, axis=(0, 1))))
    assert _bits(_linalg._sq_sum(a, (1,))) == _bits(np.add.reduce(a * a, axis=1))
    b = a.copy()
    b[3, 4] = np.nan
    assert _linalg._sq_sum(b, None) is None  # (a NaN sum: the ufuncs answer)
    assert _linalg._sq_sum(a.T, None) is None  # (not C-contiguous)
    assert _linalg._sq_sum(a.astype(np.float16), None) is None
