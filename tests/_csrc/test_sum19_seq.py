"""Sums one leaf at a time are still NumPy's bits (issue 38, round 19; strided/_csrc/_ckernels.c,
``seq8_f32``/``seq8_f64``/``seq8z_f64`` under ``seqrow_f32/f64``).

A float32/float64 row of more than 1024 elements and at least 128 KiB (``SD_SEQ_FROM``) is
summed as NumPy's pairwise tree cut into nodes of eight leaves, each node read front to back
one leaf at a time (round 22: never prefetching; a buffer of 20 MiB or more, where a
prefetching twin ran until then, is still tested as its own size). Compared bit for bit
with ``numpy.add.reduce``: lengths at those sizes and at 4 MiB (``SD_SEQZ_MAX``) and the tree's cut points beyond them,
unaligned starts (64-byte aligned ones included), 1-4 threads (each thread's share a subtree), row sums of long rows
(``sum_rows``, ``reduce``) in buffers on both sides of 20 MiB, on the AVX-512 path and the
AVX2 path (``sum_isa``), and the namespace's ``sum``. Skipped without the C kernels (STRIDED_NO_CEXT=1)."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided._core import cfast as _cfast

from conftest import host
from _isa import isa  # noqa: F401 (the fixture)

C = _cfast._ckernels if _cfast.AVAILABLE else None
pytestmark = [pytest.mark.host_pinned,  # (the same test whatever the default device: not on the stand-in leg)
              pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")]
DTYPES = [np.float32, np.float64]
SEQ_FROM = 128 << 10  # bytes (SD_SEQ_FROM)
BIG = 20 << 20  # bytes (a buffer beyond L2 and most of L3)
SEQZ_MAX = 4 << 20  # bytes (SD_SEQZ_MAX: float64 from here on AVX2 nodes on every processor)
SIZES = {"seq": SEQ_FROM, "zmax": SEQZ_MAX, "big": BIG}




def _data(n, dt, seed, offset=0):
    """n elements of dt, `offset` elements past a 64-byte boundary: magnitudes over many
    binades and cancelling pairs (another order of the additions shows in the bits)."""
    rng = np.random.default_rng(seed)
    isz = np.dtype(dt).itemsize
    raw = np.empty((n + offset) * isz + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    a = raw[start:start + (n + offset) * isz].view(dt)[offset:]
    a[...] = rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n)) * 1e3
    k = n // 4
    a[rng.permutation(n)[:k]] = -a[rng.permutation(n)[:k]]
    return a


def _lengths(dt, nbytes):
    e = nbytes // np.dtype(dt).itemsize
    return [e - 9, e - 1, e, e + 1, e + 8, e + 1031]


def _bits(x, dt):
    return np.asarray(x, dt).tobytes()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("where", list(SIZES))
def test_whole_sums_at_the_thresholds(isa, dt, where):
    bad = []
    for i, n in enumerate(_lengths(dt, SIZES[where])):
        offset = i % 8
        a = _data(n, dt, n, offset)
        want = _bits(np.add.reduce(a), dt)
        out = np.empty((), dt)
        assert C.sum_into(a, out, n)
        if _bits(out, dt) != want:
            bad.append((n, offset, "sum_into"))
        for nt in (1, 2, 3, 4):
            if _bits(C.sum_all(a, nt), dt) != want:
                bad.append((n, offset, nt))
    assert not bad, f"{isa} {np.dtype(dt).name}: not NumPy's bits at {bad}"


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_a_spread_beyond_the_threshold(isa, dt):
    bad = []
    start = SEQ_FROM // np.dtype(dt).itemsize
    for i, n in enumerate(sorted({int(x) for x in np.geomspace(start, 40 * start, 15)} | {65536, 100_000})):
        a = _data(n, dt, 7 * n, i % 3)
        if _bits(C.sum_all(a, 1), dt) != _bits(np.add.reduce(a), dt):
            bad.append(n)
    assert not bad, f"{isa} {np.dtype(dt).name}: not NumPy's bits at {bad}"


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("rows", [3, 80])
def test_long_rows(isa, dt, rows):
    """Rows of more than 128 KiB, in a buffer under 20 MiB (3 rows) and over it (80 rows)."""
    ncols = SEQ_FROM // np.dtype(dt).itemsize * 2 + 13
    a = _data(rows * ncols, dt, rows, offset=1).reshape(rows, ncols)
    assert (a.nbytes >= BIG) == (rows == 80)
    want = np.add.reduce(a, axis=-1).tobytes()
    out = np.empty(rows, dt)
    C.sum_rows(a, out, ncols)
    assert out.tobytes() == want, f"sum_rows {isa} {rows}x{ncols}"
    r = np.empty(rows, dt)
    assert C.reduce(0, a, r, rows, ncols, 1, 1)
    assert r.tobytes() == want, f"reduce {isa} {rows}x{ncols}"


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_the_namespace_sum(dt):
    for n in _lengths(dt, SEQ_FROM)[1:4] + _lengths(dt, BIG)[2:3]:
        a = _data(n, dt, n, offset=n % 3)
        got = host(xp.sum(xp.asarray(a, device="cpu")))
        assert _bits(got, dt) == _bits(np.add.reduce(a), dt), f"xp.sum n={n}"
