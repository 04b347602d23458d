"""The max/min of a row on both instruction-set paths (issue 38).

``_ckernels``' row max/min (``max_into``/``min_into``, the whole-array and row reductions of
``reduce``) runs eight 512-bit accumulators where the processor has AVX-512F and
``sum_isa()`` leaves it on, else AVX2's four. A max has no rounding, so every path must give
NumPy's own ``max``/``min`` bit for bit: the value, a NaN's payload where NumPy's is the one
NaN present, the sign of a zero result, and a decline (``False``/``None``) exactly where
NumPy's order picks among zeros or NaNs. Each length around the vector block's edges
(16, 64, 128, 256 elements), each position of a special value in it, and each start from a
64-byte boundary to 15 elements past it (the loop's aligned start) are checked.
"""

from __future__ import annotations

import numpy as np
import pytest

from strided._core import cfast as _cfast

from _isa import isa  # noqa: F401 (the fixture)

C = _cfast._ckernels if _cfast.AVAILABLE else None
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")]

LENGTHS = [1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 255, 256, 257,
           383, 511, 512, 513, 1000, 4097]


def _bits(x):
    x = np.asarray(x)
    return x.view(np.uint32 if x.dtype == np.float32 else np.uint64)


def _kernel(name, a, offset=0):
    """The kernel's max/min of ``a`` copied ``offset`` elements past a 64-byte boundary (the
    loop's aligned start: SD_HEAD); None where it declines."""
    raw = np.empty(a.nbytes + 256, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset * a.itemsize
    b = raw[start:start + a.nbytes].view(a.dtype)
    b[...] = a
    out = np.empty(1, a.dtype)
    ok = getattr(C, f"{name}_into")(b, out, b.size)
    return out[0] if ok else None


def _numpys(name, a):
    """NumPy's value, or None where strided's kernels decline: a zero result with zeros of
    both signs present, or NaNs of more than one payload (NumPy's order picks them)."""
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a)
    nans = a[np.isnan(a)]
    if nans.size and len(set(_bits(nans).tolist())) > 1:
        return None
    if nans.size:
        quiet = np.array(np.nan, a.dtype)
        return want if _bits(nans[:1])[0] == _bits(quiet) else None
    if want == 0 and (np.signbit(a[a == 0]).any() and (~np.signbit(a[a == 0])).any()):
        return None
    return want


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", ["max", "min"])
def test_every_length_and_position(isa, dt, name):
    rng = np.random.default_rng(25)
    bad = []
    for n in LENGTHS:
        base = (rng.standard_normal(n) * 4).astype(dt)
        positions = sorted({0, n // 2, n - 1} | ({15, 16, 63, 64, 127, 128} & set(range(n))))
        for pos in positions:
            for special in ("extreme", "inf", "nan", "-nan", "payload"):
                a = base.copy()
                if special == "extreme":
                    a[pos] = 1e30 if name == "max" else -1e30
                elif special == "inf":
                    a[pos] = np.inf if name == "max" else -np.inf
                elif special == "nan":
                    a[pos] = np.nan
                elif special == "-nan":
                    a[pos] = -np.nan
                else:
                    raw = np.array(0x7FC00001 if dt == "float32" else 0x7FF8000000000001,
                                   np.uint32 if dt == "float32" else np.uint64)
                    a[pos] = raw.view(dt)
                want = _numpys(name, a)
                for offset in (0, 1, 3, 4, 8, 15):
                    got = _kernel(name, a, offset)
                    if (got is None) != (want is None) or (
                            got is not None and _bits(got) != _bits(want)):
                        bad.append((n, pos, special, offset, got, want))
    assert not bad, f"{isa} {name} {dt}: {bad[:8]} ({len(bad)} in all)"


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("zeros", ["+0", "-0", "both"])
def test_zero_results(isa, dt, name, zeros):
    """A max/min that is a zero: its sign is NumPy's when the zeros agree, declined when not."""
    for n in (64, 129, 513):
        a = (-np.abs(np.arange(1, n + 1)) if name == "max" else np.arange(1, n + 1)).astype(dt)
        a[n // 3] = -0.0 if zeros == "-0" else 0.0
        if zeros == "both":
            a[n // 2] = -0.0
        got, want = _kernel(name, a), _numpys(name, a)
        assert (got is None) == (want is None), (n, got, want)
        if got is not None:
            assert _bits(got) == _bits(want), (n, got, want)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_row_reductions(isa, dt):
    """``reduce``'s rows (the last axis of a C-contiguous array) take the same row kernel."""
    rng = np.random.default_rng(7)
    for rows, cols in ((3, 128), (5, 300), (2, 4097), (9, 17)):
        a = rng.standard_normal((rows, cols)).astype(dt)
        a[1, cols // 2] = np.inf
        for name in ("max", "min"):
            for nt in (1, 2):
                out = np.empty(rows, dt)
                assert C.reduce(1 if name == "max" else 2, a, out, rows, cols, 1, nt), (rows, cols)
                np.testing.assert_array_equal(_bits(out), _bits(getattr(np, name)(a, axis=1)))


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", ["max", "min"])
def test_rows_read_as_four_streams(isa, dt, name):
    """From 4 MiB a row is read as its four quarters side by side (SD_RX_STREAMS_FROM): a special
    value in each quarter, at the quarters' edges and in the rest after them, is found."""
    isz = np.dtype(dt).itemsize
    rng = np.random.default_rng(4)
    for n in ((4 << 20) // isz + 37, (6 << 20) // isz + 1):
        base = (rng.standard_normal(n) * 4).astype(dt)
        q = n // 4
        bad = []
        for pos in (0, 1, q - 1, q, q + 1, 2 * q - 3, 2 * q + 7, 3 * q, 3 * q + 1, 4 * q - 1, 4 * q, n - 2, n - 1):
            for special in ("extreme", "nan"):
                a = base.copy()
                a[pos] = np.nan if special == "nan" else (1e30 if name == "max" else -1e30)
                want = _numpys(name, a)
                for offset in (0, 3):
                    got = _kernel(name, a, offset)
                    if (got is None) != (want is None) or (
                            got is not None and _bits(got) != _bits(want)):
                        bad.append((n, pos, special, offset, got, want))
        assert not bad, f"{isa} {name} {dt}: {bad[:8]} ({len(bad)} in all)"
