"""Row sums of short rows are NumPy's bits (issue 38, strided/_csrc/_ckernels.c,
``rows4_f32/f64``, ``rows2_f32/f64``): on AVX2 machines rows of 8 to 128 elements -- each
one leaf of NumPy's pairwise tree -- are summed four at a time side by side, and rows of
129 to 256 that are one node of two leaves (not 249-255: their right half is 129 long)
two at a time, each row's accumulators and leftovers added exactly as one row alone. Compared bit for bit with
``numpy.add.reduce(a, axis=-1)``: every row length 1..300, row counts that are and are not
multiples of four, every entry point (``sum_rows``, ``sum_into`` with a divisor: a mean,
``reduce`` on 1-4 threads), unaligned starts, signed zeros and infinities; a NaN row is
declined by the entry points that may decline (its payload is NumPy's loop order's).
Without the C kernels (STRIDED_NO_CEXT=1) the namespace tests check NumPy's own answers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core import cfast as _cfast

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

C = _cfast._ckernels if _cfast.AVAILABLE else None
needs_c = pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")
DTYPES = [np.float32, np.float64]
SUM = C.REDUCE_OPS["sum"] if C is not None else None


def _data(shape, dt, seed, special=False):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    # magnitudes spread over many binades: any other order of the additions shows in the bits
    a = (rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n)) * 1e3).astype(dt)
    if special and n:
        k = min(n, 3)
        a[rng.integers(0, n, k)] = np.resize(np.array([-0.0, np.inf, 0.0], dt), k)
    return a.reshape(shape)


def _check_all_entry_points(a):
    rows, cols = a.shape
    dt = a.dtype
    want = np.add.reduce(a, axis=-1)
    ok = ~np.isnan(want)
    out = np.empty(rows, dt)
    C.sum_rows(a, out, cols)
    assert out[ok].tobytes() == want[ok].tobytes(), f"sum_rows {rows}x{cols} {dt}"
    for nt in (1, 2, 3, 4):
        r = np.empty(rows, dt)
        if C.reduce(SUM, a, r, rows, cols, 1, nt):
            assert r.tobytes() == want.tobytes(), f"reduce {rows}x{cols} {dt} nt={nt}"
        else:
            assert not ok.all(), f"reduce declined {rows}x{cols} {dt} nt={nt} without a NaN"
    m = np.empty(rows, dt)
    if C.sum_into(a, m, cols, float(cols)):
        assert m.tobytes() == (want / dt.type(cols)).tobytes(), f"sum_into (mean) {rows}x{cols} {dt}"
    else:
        assert not ok.all()


@needs_c
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_row_length_to_300(dt):
    for cols in range(1, 301):
        for rows in (1, 3, 4, 5, 8, 11):
            _check_all_entry_points(_data((rows, cols), dt, 1000 * cols + rows))


@needs_c
@settings(max_examples=60, deadline=None)
@given(rows=hs.integers(1, 700), cols=hs.integers(1, 160), dt=hs.sampled_from(DTYPES),
       seed=hs.integers(0, 2**32 - 1), special=hs.booleans(), shift=hs.integers(0, 3))
def test_short_rows_any_shape(rows, cols, dt, seed, special, shift):
    a = _data((rows, cols), dt, seed, special)
    if shift:  # an unaligned start: the rows' vector loads are unaligned
        b = np.empty(a.size + shift, dt)[shift:].reshape(rows, cols)
        b[...] = a
        a = b
    _check_all_entry_points(a)


@needs_c
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_many_short_rows_on_threads(dt):
    # large enough for the reduce() task split (several chunks of rows on the pool)
    for rows, cols in ((200_003, 8), (60_001, 33), (20_000, 100), (16_384, 128), (9, 127)):
        _check_all_entry_points(_data((rows, cols), dt, rows + cols))


@needs_c
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_signed_zeros_infinities_and_nans(dt):
    z = np.full((8, 40), -0.0, dt)
    out = np.empty(8, dt)
    C.sum_rows(z, out, 40)
    assert out.tobytes() == np.add.reduce(z, axis=-1).tobytes()  # +0.0: NumPy adds its identity
    a = _data((8, 40), dt, 3)
    a[2, 5] = np.inf
    a[6, 39] = -np.inf
    _check_all_entry_points(a)
    a[2, 7] = -np.inf  # inf - inf: a NaN row, declined where the entry point may decline
    r = np.empty(8, dt)
    assert not C.reduce(SUM, a, r, 8, 40, 1, 1)
    assert not C.sum_into(a, r, 40)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(4, 8), (7, 9), (1000, 100), (4097, 31), (64, 128)])
def test_namespace_row_sums_and_means(dt, shape):
    a = _data(shape, dt, shape[0] * shape[1], special=True)
    x = xp.asarray(a, device="cpu")
    before = a.tobytes()
    assert host(xp.sum(x, axis=-1)).tobytes() == np.add.reduce(a, axis=-1).tobytes()
    assert host(xp.sum(x, axis=1, keepdims=True)).tobytes() == np.add.reduce(a, axis=1, keepdims=True).tobytes()
    assert host(xp.mean(x, axis=-1)).tobytes() == np.mean(a, axis=-1).tobytes()
    assert host(x).tobytes() == before  # the input untouched


def _check_sq_dev(a, nt=1):
    rows, cols = a.shape
    dt = a.dtype
    # any per-row mean in a's dtype (NumPy's own mean, as var computes it)
    m = (np.add.reduce(a, axis=-1, keepdims=True) / dt.type(cols)).astype(dt)
    d = a - m
    want = np.add.reduce(d * d, axis=-1)
    r = np.empty(rows, dt)
    done = C.reduce(C.REDUCE_OPS["sq_dev"], a, r, rows, cols, 1, nt, np.ascontiguousarray(m.reshape(rows)))
    if np.isnan(want).any():
        return
    assert done and r.tobytes() == want.tobytes(), f"sq_dev {rows}x{cols} {dt} nt={nt}"


@needs_c
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_squared_deviations_every_row_length_to_300(dt):
    for cols in range(1, 301):
        for rows in (1, 4, 7):
            _check_sq_dev(_data((rows, cols), dt, 7 * cols + rows))
    for rows, cols in ((60_001, 33), (20_000, 100)):
        for nt in (1, 2, 4):
            _check_sq_dev(_data((rows, cols), dt, rows), nt)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(8, 8), (1000, 100), (4097, 31)])
def test_namespace_row_var_and_std(dt, shape):
    a = _data(shape, dt, shape[0] + shape[1])
    x = xp.asarray(a, device="cpu")
    tol = 1e-5 if dt == np.float32 else 1e-12
    np.testing.assert_allclose(host(xp.var(x, axis=-1)), np.var(a, axis=-1), rtol=tol)
    np.testing.assert_allclose(host(xp.std(x, axis=-1, correction=1)), np.std(a, axis=-1, ddof=1), rtol=tol)
