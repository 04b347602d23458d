"""Row sums of buffers streamed from memory are NumPy's bits (issue 38, round 22;
strided/_csrc/_ckernels.c, ``row_f32/f64``'s and ``SD_SHORT_ROWS_IN``'s choices).

Three choices depend on the whole buffer's size (its span), not on a row's:

- a row of more than 1024 elements in a buffer of at least ``SD_PF_FROM`` (1 MiB float64,
  2 MiB float32) is summed one leaf at a time (``seqrow_*``), however short the row;
- a float64 row of 129 to 1024 elements in a buffer of at least ``SD_STREAM_FROM`` (4 MiB)
  by NumPy's own recursion (``leaf_f64``) instead of the side-by-side tree;
- float64 rows of 8 to 256 elements in a buffer of at least ``SD_ROWS4_STREAM_FROM``
  (16 MiB) one at a time instead of four side by side.

Each is another schedule of the same additions, so every row sum is compared bit for bit
with ``numpy.add.reduce(a, axis=1)``, at widths on both sides of each row-length cut and
buffers on both sides of each span threshold, through ``sum_rows``, ``sum_into``,
``reduce`` (1, 2 and 3 threads) and the namespace's ``sum``/``mean``, on the AVX-512 and
the AVX2 paths. Skipped without the C kernels (STRIDED_NO_CEXT=1)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._core import cfast as _cfast

from conftest import host
from _isa import isa  # noqa: F401 (the fixture)

C = _cfast._ckernels if _cfast.AVAILABLE else None
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(C is None, reason="the C kernels are not built (or STRIDED_NO_CEXT=1)")]
MiB = 1 << 20
PF_FROM = {np.float32: 2 * MiB, np.float64: 1 * MiB}  # SD_PF_FROM
STREAM_FROM = 4 * MiB  # SD_STREAM_FROM (float64)
ROWS4_STREAM_FROM = 16 * MiB  # SD_ROWS4_STREAM_FROM (float64)




def _rows(nbytes, cols, dt, seed, *, above=True):
    """A C-contiguous (rows, cols) array of just above (or just under) nbytes: magnitudes
    over many binades with cancelling signs (another order of additions shows in the bits)."""
    isz = np.dtype(dt).itemsize
    rows = -(-nbytes // (cols * isz)) if above else max(1, (nbytes - 1) // (cols * isz))
    rng = np.random.default_rng(seed)
    n = rows * cols
    a = (rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n))).astype(dt)
    a[rng.permutation(n)[: n // 4]] *= -1
    a = a.reshape(rows, cols)
    assert (a.nbytes >= nbytes) == above
    return a


def _check_all_doors(a):
    rows, cols = a.shape
    want = np.add.reduce(a, axis=1).tobytes()
    bad = []
    out = np.empty(rows, a.dtype)
    C.sum_rows(a, out, cols)
    if out.tobytes() != want:
        bad.append("sum_rows")
    out = np.empty(rows, a.dtype)
    if not C.sum_into(a, out, cols) or out.tobytes() != want:
        bad.append("sum_into")
    for nt in (1, 2, 3):
        r = np.empty(rows, a.dtype)
        if not C.reduce(C.REDUCE_OPS["sum"], a, r, rows, cols, 1, nt) or r.tobytes() != want:
            bad.append(f"reduce nt={nt}")
    return bad


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("cols", [1025, 1031, 2048, 4099, 16_383])
@pytest.mark.parametrize("above", [False, True], ids=["under", "over"])
def test_rows_longer_than_a_node_around_the_prefetch_span(isa, dt, cols, above):
    a = _rows(PF_FROM[dt], cols, dt, cols, above=above)
    assert not (bad := _check_all_doors(a)), f"{isa} {a.shape} {a.dtype}: not NumPy's bits via {bad}"


@pytest.mark.parametrize("cols", [129, 255, 257, 500, 777, 1000, 1024])
@pytest.mark.parametrize("above", [False, True], ids=["under", "over"])
def test_float64_rows_of_a_node_around_4_mib(isa, cols, above):
    a = _rows(STREAM_FROM, cols, np.float64, 3 * cols, above=above)
    assert not (bad := _check_all_doors(a)), f"{isa} {a.shape}: not NumPy's bits via {bad}"


@pytest.mark.parametrize("cols", [8, 31, 100, 128, 200, 256])
@pytest.mark.parametrize("above", [False, True], ids=["under", "over"])
def test_short_float64_rows_around_16_mib(isa, cols, above):
    a = _rows(ROWS4_STREAM_FROM, cols, np.float64, 5 * cols, above=above)
    assert not (bad := _check_all_doors(a)), f"{isa} {a.shape}: not NumPy's bits via {bad}"


@settings(max_examples=15, deadline=None)
@given(cols=hs.integers(8, 5000), span=hs.sampled_from([STREAM_FROM, ROWS4_STREAM_FROM]),
       seed=hs.integers(0, 2**32 - 1), f64=hs.booleans())
def test_any_width_in_a_streamed_buffer(cols, span, seed, f64):
    dt = np.float64 if f64 else np.float32
    a = _rows(span, cols, dt, seed)
    assert not (bad := _check_all_doors(a)), f"{a.shape} {a.dtype}: not NumPy's bits via {bad}"


@pytest.mark.parametrize("shape", [(16_400, 128), (4200, 500), (420, 1300)])
def test_the_namespace_sum_and_mean_of_streamed_rows(shape):
    a = np.random.default_rng(shape[0]).standard_normal(shape) * 1e3
    a[3, 5] = -0.0
    before = a.tobytes()
    x = xp.asarray(a, device="cpu")
    assert host(xp.sum(x, axis=1)).tobytes() == np.add.reduce(a, axis=1).tobytes()
    assert host(xp.mean(x, axis=1)).tobytes() == np.mean(a, axis=1).tobytes()
    assert host(xp.sum(x)).tobytes() == np.add.reduce(a, axis=None).tobytes()
    assert a.tobytes() == before  # the input untouched
