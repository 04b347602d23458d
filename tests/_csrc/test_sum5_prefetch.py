"""Sums of large buffers are NumPy's bits (issue 38, strided/_csrc/_ckernels.c,
``row_f32/f64``'s choice): a float32 or float64 buffer of 2 MiB or more (``SD_PF_FROM``) is
summed by the side-by-side tree with software prefetch, rows of such a buffer too, float64
rows of any width included (one leaf at a time before: rows over 1 MiB); smaller buffers
keep their paths. Every addition is NumPy's, in NumPy's order, so every
entry point -- whole sums on 1-4 threads (``sum_all``, ``reduce``), row sums
(``sum_rows``, ``sum_into``, ``reduce`` with inner == 1, on threads too), the squared
deviations of var/std (``reduce``'s sq_dev) and the namespace's ``sum``/``mean``/``var``
-- is compared bit for bit with ``numpy.add.reduce`` at lengths around the tree's cut
points and the 2 MiB boundary, at unaligned starts, with infinities and signed zeros;
a NaN sum is declined (its payload is NumPy's loop order's). Without the C kernels
(STRIDED_NO_CEXT=1) the namespace tests check NumPy's own answers."""

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
F64 = np.float64
DTYPES = [np.float32, np.float64]
PF_BYTES = 2 << 20  # a buffer from which the sums prefetch (SD_PF_FROM)
PF = PF_BYTES // 8  # in float64 elements


def _data(n, seed, dt=F64):
    rng = np.random.default_rng(seed)
    # magnitudes spread over many binades: any other order of the additions shows in the bits
    return (rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n))).astype(dt)


def _unaligned(a, shift):
    """a's values in a buffer starting ``shift`` elements past an allocation's start."""
    b = np.empty(a.size + shift, a.dtype)[shift:]
    b[...] = a
    return b


@needs_c
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("k", [-1, 0, 1, 7, 129, 8 * PF // 3 + 5, 16 * PF + 17])
def test_whole_sums_from_2_mib(dt, k):
    n = PF_BYTES // np.dtype(dt).itemsize + k
    a = _data(n, n, dt)
    for shift in (0, 1):
        b = _unaligned(a, shift) if shift else a
        want = np.add.reduce(b).tobytes()
        for nt in (1, 2, 3, 4):
            assert np.asarray(C.sum_all(b, nt), dt).tobytes() == want, f"sum_all n={n} shift={shift} nt={nt}"
            r = np.empty((), dt)
            assert C.reduce(C.REDUCE_OPS["sum"], b, r, 1, n, 1, nt)
            assert r.tobytes() == want, f"reduce n={n} shift={shift} nt={nt}"
        out = np.empty((), dt)
        assert C.sum_into(b, out, n) and out.tobytes() == want


@needs_c
@pytest.mark.parametrize("rows,cols", [(1024, 257), (2048, 129), (375, 700), (257, 1023),
                                       (3, 123_457), (2, 131_075), (1, 2 * PF + 3)])
def test_float64_row_sums_of_a_2_mib_buffer(rows, cols):
    a = _data(rows * cols, rows + cols).reshape(rows, cols)
    assert a.nbytes >= PF_BYTES
    want = np.add.reduce(a, axis=1)
    out = np.empty(rows, F64)
    C.sum_rows(a, out, cols)
    assert out.tobytes() == want.tobytes(), f"sum_rows {rows}x{cols}"
    assert C.sum_into(a, out, cols) and out.tobytes() == want.tobytes()
    for nt in (1, 2, 4):
        r = np.empty(rows, F64)
        assert C.reduce(C.REDUCE_OPS["sum"], a, r, rows, cols, 1, nt)
        assert r.tobytes() == want.tobytes(), f"reduce {rows}x{cols} nt={nt}"


@needs_c
@settings(max_examples=12, deadline=None)
@given(cols=hs.integers(129, 4200), seed=hs.integers(0, 2**32 - 1))
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_any_row_width_in_a_2_mib_buffer(dt, cols, seed):
    rows = -(-PF_BYTES // (cols * np.dtype(dt).itemsize))  # just enough rows for 2 MiB
    a = _data(rows * cols, seed, dt).reshape(rows, cols)
    want = np.add.reduce(a, axis=1)
    r = np.empty(rows, dt)
    assert C.reduce(C.REDUCE_OPS["sum"], a, r, rows, cols, 1, 2)
    assert r.tobytes() == want.tobytes(), f"{rows}x{cols}"
    out = np.empty(rows, dt)
    C.sum_rows(a, out, cols)
    assert out.tobytes() == want.tobytes(), f"sum_rows {rows}x{cols}"


@needs_c
@pytest.mark.parametrize("rows,cols", [(1, PF + 3), (4, PF // 4 + 9), (270, 1000), (1, 20 * PF + 1)])
def test_float64_squared_deviations_from_2_mib(rows, cols):
    a = _data(rows * cols, cols).reshape(rows, cols)
    m = np.add.reduce(a, axis=1, keepdims=True) / F64(cols)
    d = a - m
    want = np.add.reduce(d * d, axis=1)
    for nt in (1, 2):
        r = np.empty(rows, F64)
        assert C.reduce(C.REDUCE_OPS["sq_dev"], a, r, rows, cols, 1, nt, np.ascontiguousarray(m.reshape(rows)))
        assert r.tobytes() == want.tobytes(), f"{rows}x{cols} nt={nt}"


@needs_c
def test_infinities_zeros_and_nans_from_2_mib():
    n = PF + 17
    z = np.full(n, -0.0)
    assert np.float64(C.sum_all(z, 2)).tobytes() == np.add.reduce(z).tobytes()  # +0.0, NumPy's
    a = _data(n, 7)
    a[n // 3] = np.inf
    assert np.float64(C.sum_all(a, 1)).tobytes() == np.add.reduce(a).tobytes()
    a[-1] = -np.inf  # inf - inf: a NaN sum, declined
    assert C.sum_all(a, 1) is None
    out = np.empty((), F64)
    assert not C.sum_into(a, out, n)


@pytest.mark.parametrize("n", [PF - 1, PF + 129, 2 * PF + 9])
def test_namespace_sum_mean_var_of_2_mib(n):
    a = _data(n, n)
    a[5] = -0.0
    x = xp.asarray(a, device="cpu")
    before = a.tobytes()
    assert host(xp.sum(x)).tobytes() == np.add.reduce(a).tobytes()
    assert host(xp.mean(x)).tobytes() == np.mean(a).tobytes()
    np.testing.assert_allclose(host(xp.var(x)), np.var(a), rtol=1e-12)
    m = a[: n - n % 8].reshape(8, -1)
    assert host(xp.sum(xp.asarray(m, device="cpu"), axis=1)).tobytes() == np.add.reduce(m, axis=1).tobytes()
    assert host(x).tobytes() == before  # the input untouched
