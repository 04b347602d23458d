"""Eight leaves side by side (issue 38, round 7): sums are still NumPy's bits.

On AVX2 machines ``strided/_csrc/_ckernels.c`` sums a node of NumPy's pairwise tree whose
eight great-grandchildren are leaves (nodes of 544-1024 elements) of an in-cache float64
buffer as eight leaves side by side (``eight_f64``), and the other nodes (float32, the
prefetching tree, squared deviations, irregular nodes) as four, two or one leaf at a time;
float64 buffers of 1-2 MiB now take the prefetching tree (one leaf at a time before).
Every addition must stay NumPy's, in NumPy's order: the reference is ``numpy.add.reduce``
itself (and ``numpy.var``/``add.reduce((a - m) * (a - m))`` for the squared deviations),
compared bit for bit, over

- every size 0 .. 1e5 (Hypothesis), unaligned starts (offsets of 1-7 elements), magnitudes
  over many binades (a changed order shows in the bits), signed zeros, infinities and NaN;
- fixed sizes at the tree's boundaries (nodes of eight leaves: 544 to 1024 elements; float64 prefetches
  from 1 MiB, float32 from 2 MiB) and beyond (3e6 elements);
- whole sums through the thread pool (1-3 threads), row sums, and the namespace's ``sum``,
  ``mean``, ``var``, ``std``.

The C kernels are host-only: everything here runs on ``device="cpu"`` (the CuPy stand-in leg
runs it too). Without the C kernels (``STRIDED_NO_CEXT=1``) the kernel-level tests skip and
the namespace tests check NumPy's own answers.
"""

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
SPECIALS = (-0.0, 0.0, np.inf, -np.inf, np.nan)


@pytest.fixture(autouse=True)
def _quiet_references():
    with np.errstate(all="ignore"):  # NumPy's references (inf - inf) warn
        yield


def _data(n, dt, seed, specials=0, offset=0, wide=True):
    """n elements of dt starting `offset` elements past an aligned allocation, magnitudes
    over 16 binades either way (wide; else standard normal: no few elements dominate the
    sum, so that a changed order of the leaves' additions shows in its last bits),
    `specials` of them replaced by signed zeros, infinities or NaN."""
    rng = np.random.default_rng(seed)
    base = np.empty(n + offset, dt)
    a = base[offset:]
    a[...] = rng.standard_normal(n) * (np.exp(rng.uniform(-8, 8, n)) * 1e3 if wide else 1.0)
    if specials and n:
        k = min(n, specials)
        a[rng.integers(0, n, k)] = rng.choice(np.array(SPECIALS, dt), k)
    return a


def _same(got, want, dt):
    """Bit-equal, or both NaN (a NaN's payload is the loop order's: the kernels decline it)."""
    g, w = np.asarray(got, dt), np.asarray(want, dt)
    if np.isnan(w):
        return bool(np.isnan(g))
    return g.tobytes() == w.tobytes()


def _sums_agree(a, dt):
    n = a.shape[0]
    want = np.add.reduce(a)
    assert _same(host(xp.sum(xp.asarray(a, device="cpu"))), want, dt), f"xp.sum n={n}"
    if n == 0:
        return  # (the kernels take rows of at least one element)
    out = np.empty((), dt)
    done = C.sum_into(a, out, n)
    if np.isnan(want):
        assert not done or np.isnan(out)  # declined (NumPy's payload) or a NaN
    else:
        assert done, f"sum_into declined n={n}"
        assert _same(out, want, dt), f"sum_into n={n} {np.dtype(dt).name}: {out!r} != NumPy's {want!r}"
    if n > 128:
        for nt in (1, 2, 3):
            r = C.sum_all(a, nt)
            if np.isnan(want):
                assert r is None, f"sum_all n={n} nt={nt}: {r} for a NaN sum"
            else:
                assert r is not None and _same(r, want, dt), f"sum_all n={n} nt={nt}: {r!r} != {want!r}"


@needs_c
@settings(max_examples=300, deadline=None)
@given(n=hs.one_of(hs.integers(0, 4096), hs.integers(0, 100_000)), dt=hs.sampled_from(DTYPES),
       seed=hs.integers(0, 2**32 - 1), offset=hs.integers(0, 7), specials=hs.sampled_from([0, 0, 1, 3]),
       wide=hs.booleans())
def test_whole_sums_any_size_any_start(n, dt, seed, offset, specials, wide):
    _sums_agree(_data(n, dt, seed, specials, offset, wide), dt)


# Sizes at the tree's seams: nodes of eight leaves are 544 .. 1024 elements (quarters of
# more than 128, eighths of at most 128: 543 and 1025 are not), sizes whose leaves are 120,
# 128 and 136 side by side, the float64 tree's limit (2**17 elements) and the prefetching
# tree's start (2 MiB: 2**19 float32, 2**18 float64), an odd tail on the last leaf.
_SEAMS = [512, 543, 544, 545, 551, 552, 600, 1000, 1023, 1024, 1025, 1031, 1032, 2047, 2048, 2049, 4104,
          8191, 8200, 65_536, 131_071, 131_072, 131_073, 262_143, 262_144, 262_151,
          524_287, 524_288, 524_295, 1_000_000, 1_048_583, 3_000_001]


@needs_c
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", _SEAMS)
def test_whole_sums_at_the_seams(n, dt):
    for offset in (0, 3):
        for seed in range(3):
            _sums_agree(_data(n, dt, n + offset + 10 * seed, 0, offset, wide=False), dt)
        _sums_agree(_data(n, dt, n + offset, 0, offset), dt)
    _sums_agree(_data(n, dt, n, specials=2), dt)  # zeros and infinities (or a NaN)


@needs_c
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_signed_zero_sums(dt):
    # all -0.0: NumPy's +0.0 (its identity added last); the leaves' sums stay -0.0 until then
    for n in (600, 1024, 4096, 131_073):
        z = np.full(n, -0.0, dt)
        _sums_agree(z, dt)
        z[n // 2] = 0.0
        _sums_agree(z, dt)


@needs_c
@settings(max_examples=60, deadline=None)
@given(rows=hs.integers(1, 5), ncols=hs.integers(500, 12_000), dt=hs.sampled_from(DTYPES),
       seed=hs.integers(0, 2**32 - 1), specials=hs.sampled_from([0, 2]))
def test_row_sums_and_squared_deviations(rows, ncols, dt, seed, specials):
    a = _data(rows * ncols, dt, seed, specials).reshape(rows, ncols)
    want = np.add.reduce(a, axis=-1)
    ok = ~np.isnan(want)
    out = np.empty(rows, dt)
    C.sum_rows(a, out, ncols)
    assert out[ok].tobytes() == want[ok].tobytes()
    r = np.empty(rows, dt)
    if C.reduce(0, a, r, rows, ncols, 1, 2):
        assert r[ok].tobytes() == want[ok].tobytes()
    # the squared deviations (var/std's kernel): NumPy's a - m, d * d, add.reduce
    m = (np.add.reduce(a, axis=-1, keepdims=True) / dt(ncols)).astype(dt)
    d = a - m
    want_sq = np.add.reduce(d * d, axis=-1)
    sq = np.empty(rows, dt)
    if C.reduce(C.REDUCE_OPS["sq_dev"], a, sq, rows, ncols, 1, 1, np.ascontiguousarray(m.reshape(rows))):
        fin = np.isfinite(want_sq)
        assert sq[fin].tobytes() == want_sq[fin].tobytes(), f"{rows}x{ncols} {np.dtype(dt).name}"
    else:
        assert not np.isfinite(want_sq).all() or specials  # declined only for a NaN


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [600, 1024, 5000, 32_768, 100_003, 1_000_003])
def test_namespace_sum_mean_var_are_numpys(dt, n):
    a = _data(n, dt, n, offset=1)
    x = xp.asarray(a, device="cpu")
    before = a.tobytes()
    assert host(xp.sum(x)).tobytes() == np.add.reduce(a).tobytes()
    assert host(xp.mean(x)).tobytes() == np.mean(a).tobytes()
    # rows: var/std over the last axis are NumPy's bits (each row summed as NumPy sums it)
    m = a[: n - n % 4].reshape(4, -1)
    xm = xp.asarray(m, device="cpu")
    assert host(xp.var(xm, axis=-1)).tobytes() == np.var(m, axis=-1).tobytes()
    assert host(xp.std(xm, axis=-1, correction=1)).tobytes() == np.std(m, axis=-1, ddof=1).tobytes()
    # whole: up to 2**15 elements one step, NumPy's bits; beyond, the steps' sums are added
    # exactly (threads.sum_sq_dev): within NumPy's pairwise error bound of numpy.var
    v, w = host(xp.var(x)), np.var(a)
    if n <= 1 << 15:
        assert v.tobytes() == w.tobytes()
    else:
        eps = np.finfo(dt).eps
        assert abs(float(v) - float(w)) <= 8 * eps * np.log2(n) * float(w)
    assert a.tobytes() == before  # the input untouched


@needs_c
@pytest.mark.parametrize("rows,cols", [(1, 131_073), (1, 200_003), (2, 65_600), (130, 1024),
                                       (300, 500), (257, 777), (1, 262_143)])
def test_float64_rows_of_1_to_2_mib(rows, cols):
    # float64 buffers of 1-2 MiB: the prefetching tree (one leaf at a time before)
    dt = np.float64
    a = _data(rows * cols, dt, rows * cols, wide=False).reshape(rows, cols)
    assert 1 << 20 <= a.nbytes < 2 << 20
    want = np.add.reduce(a, axis=1)
    out = np.empty(rows, dt)
    C.sum_rows(a, out, cols)
    assert out.tobytes() == want.tobytes(), f"sum_rows {rows}x{cols}"
    for nt in (1, 2):
        r = np.empty(rows, dt)
        assert C.reduce(C.REDUCE_OPS["sum"], a, r, rows, cols, 1, nt)
        assert r.tobytes() == want.tobytes(), f"reduce {rows}x{cols} nt={nt}"
    m = (np.add.reduce(a, axis=1, keepdims=True) / dt(cols))
    d = a - m
    sq = np.empty(rows, dt)
    assert C.reduce(C.REDUCE_OPS["sq_dev"], a, sq, rows, cols, 1, 1, np.ascontiguousarray(m.reshape(rows)))
    assert sq.tobytes() == np.add.reduce(d * d, axis=1).tobytes()
    if rows == 1:
        _sums_agree(a.reshape(-1), dt)
