"""Reductions over a leading axis read a row at a time below SD_ROWS_MAX (issue 38).

``_ckernels.reduce`` sums, maxes and mins (and sums the squared deviations of) the columns of
an (outer, nred, inner) buffer. Rows narrower than 12,288 bytes (1,536 float64, 3,072 float32)
now run down the rows in order, each read across its whole width, on one thread (the caller;
other outer blocks still go to the pool); wider rows keep blocks of rows (8 now) with their
columns split among the threads. Both paths
must give NumPy's values bit for bit: max/min exactly (NaN propagation and the sign of a zero
included, or declined where NumPy's order decides), sums and squared deviations in NumPy's
order (each column's rows added one after another), whatever the thread count. The widths
below straddle the boundary, and the specials put NaNs, zeros and infinities in random rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided as st
from strided._core import cfast as _cfast

from conftest import bits, cpu, host
from _specials import put_special
from _isa import isa  # noqa: F401  (each test below on AVX-512, AVX2 and the generic kernels)

C = _cfast._ckernels if _cfast.AVAILABLE else None
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")]

SUM, MAX, MIN, SQDEV = 0, 1, 2, 3
# the rows' boundary in elements (12,288 bytes) and around it, the narrow widths (one vector
# of lanes and more: float64 has 4, float32 8), and the blocks' side
WIDTHS = {np.float64: [4, 5, 7, 8, 13, 16, 17, 33, 200, 1535, 1536, 1537, 1601],
          np.float32: [8, 9, 15, 16, 17, 33, 100, 3071, 3072, 3073, 3101]}
NPF = {SUM: np.add.reduce, MAX: np.maximum.reduce, MIN: np.minimum.reduce}


@pytest.fixture(autouse=True)
def _restore_threads():
    cfg = C.pool_config() if C is not None else None
    nt, tthr = st.get_num_threads(), st.get_thread_threshold()
    yield
    st.set_num_threads(nt)
    st.set_thread_threshold(tthr)
    if C is not None:
        C.pool_config(cfg[0], cfg[1])


@hs.composite
def columns(draw):
    dtype = draw(hs.sampled_from([np.float64, np.float32]))
    inner = draw(hs.sampled_from(WIDTHS[dtype]))
    nred = draw(hs.sampled_from([1, 2, 3, 7, 8, 9, 16, 17, 40, 133]))
    outer = draw(hs.sampled_from([1, 1, 3]))
    rng = np.random.default_rng(draw(hs.integers(0, 2**16)))
    a = rng.standard_normal((outer, nred, inner)).astype(dtype)
    special = draw(hs.sampled_from([None, "nan", "negnan", "zeros", "negzeros", "inf"]))
    mask = rng.random(a.shape) < draw(hs.sampled_from([0.0005, 0.02, 0.3]))
    a = put_special(draw, a, special, mask)
    return a, draw(hs.sampled_from([1, 2, 3, 4]))


# (the isa fixture sets the kernels once for all the examples)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=columns())
def test_leading_axis_reductions_are_numpys_bits(isa, case):
    a, nt = case
    outer, nred, inner = a.shape
    C.pool_config(-1, 64)  # many small chunks on the threads
    for op in (SUM, MAX, MIN):
        out = np.full((outer, inner), 7.0, a.dtype)
        done = C.reduce(op, a, out, outer, nred, inner, nt)
        want = NPF[op](a, axis=1)
        if not done:  # declined: a NaN sum, or zeros of both signs whose order NumPy's loop picks
            assert op == SUM and np.isnan(want).any() or op != SUM and (
                np.isnan(a).any() or ((a == 0) & np.signbit(a)).any()), (op, a.shape)
            continue
        np.testing.assert_array_equal(bits(out), bits(want), err_msg=f"op {op} {a.dtype} {a.shape} nt={nt}")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=columns())
def test_squared_deviations_are_numpys_bits(isa, case):
    a, nt = case
    outer, nred, inner = a.shape
    with np.errstate(all="ignore"):  # inf - inf
        mean = (np.add.reduce(a, axis=1) / a.dtype.type(nred)).astype(a.dtype)
        d = a - mean[:, None, :]
        want = np.add.reduce(d * d, axis=1)
    out = np.empty((outer, inner), a.dtype)
    if C.reduce(SQDEV, a, out, outer, nred, inner, nt, mean):
        np.testing.assert_array_equal(bits(out), bits(want), err_msg=f"{a.dtype} {a.shape} nt={nt}")
    else:
        assert np.isnan(want).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("inner", ["narrow", "boundary", "wide"])
def test_the_namespace_gives_numpys_bits_on_the_threads(dtype, inner):
    # through st.sum/max/min/var with the pool on (the narrow rows run on the caller alone,
    # the wide ones split their columns among the threads)
    n = {"narrow": 200, "boundary": 12288 // np.dtype(dtype).itemsize, "wide": 5000}[inner]
    rng = np.random.default_rng(n)
    x = rng.standard_normal((300, n)).astype(dtype)
    x[rng.integers(0, 300, 5), rng.integers(0, n, 5)] = -0.0
    st.set_num_threads(2)
    st.set_thread_threshold(64)
    sx = cpu(x)
    for f, g in ((st.sum, np.sum), (st.max, np.max), (st.min, np.min)):
        np.testing.assert_array_equal(bits(host(f(sx, axis=0))), bits(g(x, axis=0)), err_msg=f.__name__)
    np.testing.assert_allclose(host(st.var(sx, axis=0)), np.var(x, axis=0), rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_a_column_of_floats_added_in_sequence_down_narrow_and_wide_rows():
    # 0.1 added 5,000 times in float32 drifts with the order: NumPy adds the rows one after
    # another, and so must both paths (cumsum's last row is that sequence, computed otherwise)
    for inner in (8, 3072, 3080):
        x = np.full((5_003, inner), 0.1, np.float32)
        x[:, 1::2] = 0.3
        out = np.empty(inner, np.float32)
        assert C.reduce(SUM, x, out, 1, x.shape[0], inner, 2)
        np.testing.assert_array_equal(bits(out), bits(np.cumsum(x, axis=0)[-1]), err_msg=str(inner))
