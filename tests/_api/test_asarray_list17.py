"""``asarray`` of a flat list of Python floats, ints or bools (creation.py's hot path,
``_flat_list``) against the general path it skips (``_from_sequence``, the reference):
the same dtype, the same bits (NaN payloads, -0.0, overflow to inf, float16/float32
rounding), the same errors, on every drawn list and dtype; and PyTorch's dtype inference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

import strided as xp
from strided._api import creation
from strided._core.device import as_device

from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_FLOATS = hs.floats(allow_nan=True, allow_infinity=True, width=64) | hs.sampled_from(
    [-0.0, 5e-324, 1e300, -1e300, 3.4028235e38, 3.4028236e38, 65504.0, 65520.0, 2.0 ** 63, math.nan])
_INTS = hs.integers(-(1 << 63), (1 << 63) - 1) | hs.integers(-(1 << 70), 1 << 70) | hs.sampled_from(
    [(1 << 63) - 1, 1 << 63, -(1 << 63), -(1 << 63) - 1, 0])
_LISTS = (hs.lists(_FLOATS, max_size=6) | hs.lists(_INTS, max_size=6) | hs.lists(hs.booleans(), max_size=6)
          | hs.lists(hs.one_of(_FLOATS, _INTS, hs.booleans()), max_size=6))
_DTYPES = hs.sampled_from([None, "float16", "float32", "float64", "int32", "int64", "bool", "complex64"])


def outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 -- compared between the two paths
        return type(e), str(e)
    v = host(r)
    return r.dtype, v.shape, v.tobytes()


@settings(max_examples=400, deadline=None)
@given(data=_LISTS, dtype=_DTYPES)
def test_the_hot_path_is_the_general_paths_value(data, dtype):
    dt = None if dtype is None else getattr(xp, dtype)
    with np.errstate(all="ignore"):  # (as asarray's door runs it: quiet, overflow to inf)
        want = outcome(lambda: creation._from_sequence(list(data), dt, as_device("cpu")))
    got = outcome(lambda: xp.asarray(list(data), dtype=dt, device="cpu"))
    assert got == want


def test_the_hot_path_answers_flat_lists():
    # (the general path takes ~4 us; this one a call to numpy.array: seen as _from_sequence
    # not being entered)
    from _frames import python_calls
    for data, dtype in (([1.0, 2.5], None), ([1, 2], None), ([True, False], None), ([0.1], xp.float64)):
        r, calls = python_calls(lambda: xp.asarray(data, dtype=dtype, device="cpu"))
        assert "_from_sequence" not in calls, (data, calls)
        assert host(r).flags.writeable


def test_others_take_the_general_path():
    from _frames import python_calls
    for data, dtype in (([1, 2.5], None), ([1.0], xp.int32), ([1], xp.float32), ([np.float64(1.0)], None),
                        ([1 << 63], None), ([[1.0]], None), ([], None)):
        _, calls = python_calls(lambda: outcome(lambda: xp.asarray(data, dtype=dtype, device="cpu")))
        assert "_from_sequence" in calls, (data, dtype)


@pytest.mark.parametrize("data", [[1.0, -2.5], [3, -4], [True, False], [1e300]])
def test_pytorchs_inference(data):
    torch = pytest.importorskip("torch")
    want = torch.tensor(data)
    got = xp.asarray(data, device="cpu")
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(host(got), want.numpy())
