"""The flat tree and the AVX-512 float64 leaves (issue 38, sum12): sums are still NumPy's bits.

``strided/_csrc/_ckernels.c`` sums a float32 row of more than 1024 elements (in cache) as
NumPy's pairwise tree cut where its nodes first have at most 1024 elements, those nodes
one after another (eight leaves side by side, ``eight_f32``) and their sums added as the
tree adds them (``flat_f32``; rows 16 bytes off a 32-byte boundary from aligned loads,
``eighta_f32``); with AVX-512 a float64 row the same way, each leaf's eight accumulators
one 512-bit vector fed by aligned loads (``eightz_f64``, ``flatz_f64``).
``_ckernels.sum_isa`` switches the AVX-512 path off and on, so both paths run here:

- every length 1 .. 2100 and a spread of lengths to 3e5 (the tree's cut depths, the sizes
  whose leaves sit at two depths, powers of two and their neighbours), float32 and
  float64, starts 0-7 elements past an aligned allocation, values over many binades and
  cancelling pairs (a changed order of additions shows in the bits), compared bit for bit
  with ``numpy.add.reduce``; whole sums on 1-4 threads, row sums, the namespace's ``sum``;
- rows that end at a page no process may read, and start just after one: the aligned
  loads of ``eightz_f64`` and ``eighta_f32`` reach past a node's leaves, never past the row.

The kernels are host-only: arrays are made on ``device="cpu"``. Without the C kernels
(``STRIDED_NO_CEXT=1``) the kernel tests skip and the namespace test checks NumPy's answer.
"""

from __future__ import annotations

import ctypes
import mmap

import numpy as np
import pytest

import strided as xp
from strided._core import cfast as _cfast

from conftest import host
from _isa import isa  # noqa: F401 (the fixture)

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

C = _cfast._ckernels if _cfast.AVAILABLE else None
needs_c = pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")
DTYPES = [np.float32, np.float64]
# the tree's cut depths and their edges: nodes of 1024, 1025+ (one level deeper); sizes
# whose leaves sit at two depths (n / 2**k in (128, 136) units); powers of two +- 1; the
# float64 in-cache limit (2**17 elements = 1 MiB) and the midsize sweep's sizes
SPREAD = sorted({1025, 1031, 1032, 1033, 2047, 2048, 2049, 2053, 4095, 4097, 8191, 8193, 8704, 8711,
                 16_383, 16_385, 17_000, 33_000, 60_000, 65_535, 65_536, 65_537, 66_000, 69_000,
                 100_000, 100_003, 131_071, 131_072, 131_073, 139_000, 200_000, 262_143, 262_145,
                 300_000} | {int(x) for x in np.geomspace(1100, 3e5, 24)})


@pytest.fixture(autouse=True)
def _quiet_references():
    with np.errstate(all="ignore"):
        yield




def _data(n, dt, seed, offset=0):
    """n elements of dt starting `offset` elements past a 64-byte aligned allocation:
    magnitudes over 16 binades either way, and one element in four the negative of another
    (sums of cancelling pairs: the order of additions shows in the last bits)."""
    rng = np.random.default_rng(seed)
    raw = np.empty((n + offset) * np.dtype(dt).itemsize + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    base = raw[start:start + (n + offset) * np.dtype(dt).itemsize].view(dt)
    a = base[offset:]
    a[...] = rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n)) * 1e3
    k = n // 4
    if k:
        a[rng.permutation(n)[:k]] = -a[rng.permutation(n)[:k]]
    return a


def _same(got, want, dt):
    return np.asarray(got, dt).tobytes() == np.asarray(want, dt).tobytes()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_length_to_2100(isa, dt):
    bad = []
    for n in range(1, 2101):
        a = _data(n, dt, n, offset=n % 8)
        want = np.add.reduce(a)
        out = np.empty((), dt)
        assert C.sum_into(a, out, n), f"sum_into declined n={n}"
        if not _same(out, want, dt):
            bad.append((n, "sum_into"))
        if n > 128 and not _same(C.sum_all(a, 1), want, dt):
            bad.append((n, "sum_all"))
    assert not bad, f"{isa} {np.dtype(dt).name}: not NumPy's bits at {bad[:10]} ({len(bad)} in all)"


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_a_spread_of_lengths_to_3e5(isa, dt):
    bad = []
    for i, n in enumerate(SPREAD):
        for offset in (0, 4, 1 + i % 7) if i % 2 else (0, 1 + i % 7):
            a = _data(n, dt, n + offset, offset)
            want = np.add.reduce(a)
            for nt in (1, 3) if offset else (1, 2, 4):
                if not _same(C.sum_all(a, nt), want, dt):
                    bad.append((n, offset, nt))
    assert not bad, f"{isa} {np.dtype(dt).name}: not NumPy's bits at (n, offset, threads) {bad[:10]}"


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_row_sums(isa, dt):
    for rows, ncols in ((3, 1025), (2, 5000), (4, 9000), (2, 70_001)):
        a = _data(rows * ncols, dt, ncols, offset=rows).reshape(rows, ncols)
        want = np.add.reduce(a, axis=-1)
        out = np.empty(rows, dt)
        C.sum_rows(a, out, ncols)
        assert out.tobytes() == want.tobytes(), f"{isa} {rows}x{ncols} {np.dtype(dt).name}"
        r = np.empty(rows, dt)
        assert C.reduce(0, a, r, rows, ncols, 1, 1)
        assert r.tobytes() == want.tobytes(), f"reduce {isa} {rows}x{ncols} {np.dtype(dt).name}"


def _guarded(nbytes):
    """A writable region of nbytes (a whole number of pages) between two pages no one may
    read (mprotect PROT_NONE): a read past either end of it is a segmentation fault."""
    page = mmap.PAGESIZE
    m = mmap.mmap(-1, nbytes + 2 * page, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    buf = np.frombuffer(m, np.uint8)
    base = buf.ctypes.data
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    for addr in (base, base + page + nbytes):
        assert libc.mprotect(addr, page, 0) == 0, f"mprotect: errno {ctypes.get_errno()}"
    return m, buf[page:page + nbytes]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_rows_at_unreadable_pages(isa, dt):
    page = mmap.PAGESIZE
    size = np.dtype(dt).itemsize
    for n in (1100, 5000, 70_003, 100_000):
        nbytes = -(-(n + 8) * size // page) * page
        m, region = _guarded(nbytes)
        try:
            mem = region.view(dt)
            src = _data(n, dt, n)
            for head in (0, 3, 4):  # the row starts after the first guard page (+ head elements)
                a = mem[head:head + n]
                a[...] = src
                assert _same(C.sum_all(a, 1), np.add.reduce(src), dt), f"{isa} n={n} head={head}"
            a = mem[mem.size - n:]  # and ends at the second
            a[...] = src
            assert _same(C.sum_all(a, 1), np.add.reduce(src), dt), f"{isa} n={n} at the end"
            del a, mem
        finally:
            del region
            m.close()


def test_the_isa_switch():
    if C is None:
        pytest.skip("the C kernels are not built (or STRIDED_NO_CEXT=1)")
    from numpy._core import _multiarray_umath as mu

    was = C.sum_isa()
    try:
        assert C.sum_isa(False) in ("avx2", "generic")
        on = C.sum_isa(True)
        if mu.__cpu_features__.get("AVX512F") and mu.__cpu_features__.get("AVX2"):
            assert on == "avx512", "AVX-512F here (NumPy says so), but the sums do not use it"
        else:
            assert on in ("avx2", "generic")
        # by name: generic always; avx2 where NumPy sees AVX2; an unknown name refused
        assert C.sum_isa("generic") == "generic"
        assert C.sum_isa(True) == "generic"  # (AVX-512 needs AVX2 on)
        want = "avx2" if mu.__cpu_features__.get("AVX2") else "generic"
        assert C.sum_isa("avx2") == want
        with pytest.raises(ValueError, match="sse9"):
            C.sum_isa("sse9")
    finally:
        C.sum_isa(was)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_the_namespace_sum_is_numpys(dt):
    for n in (1500, 60_000, 100_003):
        a = _data(n, dt, n, offset=n % 5)
        got = host(xp.sum(xp.asarray(a, device="cpu")))
        assert _same(got, np.sum(a), dt), f"xp.sum n={n} {np.dtype(dt).name}"
        got = host(xp.mean(xp.asarray(a, device="cpu")))
        assert _same(got, np.mean(a), dt), f"xp.mean n={n} {np.dtype(dt).name}"
