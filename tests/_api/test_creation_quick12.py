"""zeros/ones/empty's short path (``creation._quick_filled``: a plain shape tuple or int, a DType
or None, the host) against the general path it skips (``creation._filled`` after
``_shape_args``): the same dtype, shape, device, values (empty: dtype and shape), a fresh
writable array each call, and the general path's errors for anything it declines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._api import creation

from conftest import host

_DTYPES = [None, xp.float32, xp.float64, xp.int8, xp.int64, xp.uint16, xp.bool, xp.complex64]


@settings(max_examples=60, deadline=None)
@given(shape=hs.one_of(hs.integers(0, 5), hs.lists(hs.integers(0, 4), max_size=3).map(tuple)),
       dt=hs.sampled_from(_DTYPES), device=hs.sampled_from([None, "cpu", "device"]),
       name=hs.sampled_from(["zeros", "ones", "empty"]))
def test_short_path_is_the_general_path(shape, dt, device, name):
    dev = xp.Device("cpu") if device == "device" else device
    got = getattr(xp, name)(shape, dtype=dt, device=dev)
    fill = {"zeros": 0, "ones": 1, "empty": None}[name]
    want = creation._filled(name, fill, creation._shape_args((shape,), name), dt, dev, None, False, None)
    assert got.dtype == want.dtype and got.shape == want.shape and got.device == want.device
    if name != "empty":
        assert host(got).tobytes() == host(want).tobytes()
    g = host(got)
    assert g.flags.writeable and g.flags.c_contiguous
    again = getattr(xp, name)(shape, dtype=dt, device=dev)
    assert not np.shares_memory(host(again), g) or g.size == 0


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_errors_are_the_general_paths(name):
    f = getattr(xp, name)
    for bad, err in (((-1, 2), ValueError), (-3, ValueError), ((True, 2), TypeError), ((2.0, 2), TypeError),
                     ("3", TypeError)):
        with pytest.raises(err):
            f(bad)
    assert f(np.int64(3)).shape == (3,) and f([2, 3]).shape == (2, 3) and f(2, 3).shape == (2, 3)
    assert f((2,), dtype="float64").dtype == xp.float64


@settings(max_examples=80, deadline=None)
@given(start=hs.one_of(hs.integers(-25, 25), hs.integers(-2**64, 2**64),
                       hs.builds(int.__add__, hs.sampled_from([-2**63, 2**63 - 1, 2**64]), hs.integers(-12, 2))),
       length=hs.integers(-3, 40), skew=hs.integers(0, 4), step=hs.integers(-5, 5).filter(bool),
       one_arg=hs.booleans())
@example(start=2**63 - 3, length=5, skew=0, step=1, one_arg=False)   # runs off int64's top
@example(start=-2**63 + 2, length=4, skew=0, step=-1, one_arg=False)  # and off its bottom
@example(start=-2**63 - 2, length=4, skew=0, step=1, one_arg=False)   # starts below, ends inside
def test_arange_short_path_is_the_general_path(start, length, skew, step, one_arg):
    # Short ranges only (a few dozen values), wherever they start: one beyond int64 at either
    # end must give the general path's error; a range of billions would only test the machine's
    # memory (a worker killed for it is what CI saw when this drew one)
    stop = start + length * step - (skew % abs(step)) * (1 if step > 0 else -1)
    if one_arg:
        start, stop = start % 50 - 25, None
    args = (start,) if stop is None else (start, stop)
    def run(**kw):
        try:
            r = xp.arange(*args, step=step, **kw) if stop is not None else xp.arange(start, step=step, **kw)
            return r.dtype, host(r).tobytes()
        except Exception as e:  # noqa: BLE001 - the same error either way
            return type(e), str(e)
    assert run() == run(dtype=xp.int64)  # (an explicit dtype takes the general path)


@settings(max_examples=60, deadline=None)
@given(shape=hs.one_of(hs.integers(0, 5), hs.lists(hs.integers(0, 4), max_size=3).map(tuple)),
       fill=hs.floats(allow_nan=True, allow_infinity=True), dt=hs.sampled_from([None, xp.float32, xp.float64]))
def test_full_short_path_is_the_general_path(shape, fill, dt):
    import warnings
    with warnings.catch_warnings():  # (a float beyond float32's range: NumPy's cast may warn)
        warnings.simplefilter("ignore", RuntimeWarning)
        got = xp.full(shape, fill, dtype=dt)
        f, d = creation._fill_dtype(fill, dt, "full")
        want = creation._filled("full", f, creation._shape_args((shape,), "full"), d, None, None, False, None)
    assert got.dtype == want.dtype and got.shape == want.shape and got.device == want.device
    assert host(got).tobytes() == host(want).tobytes()


@settings(max_examples=60, deadline=None)
@given(shape=hs.one_of(hs.integers(0, 5), hs.lists(hs.integers(0, 4), max_size=3).map(tuple)),
       fill=hs.one_of(hs.booleans(), hs.integers(-2**63, 2**63 - 1), hs.integers(-5, 5)))
def test_full_of_an_int_or_bool_is_the_general_path(shape, fill):
    got = xp.full(shape, fill)
    f, d = creation._fill_dtype(fill, None, "full")
    want = creation._filled("full", f, creation._shape_args((shape,), "full"), d, None, None, False, None)
    assert got.dtype == want.dtype and got.shape == want.shape and got.device == want.device
    assert host(got).tobytes() == host(want).tobytes()
    with pytest.raises(Exception) as big:
        xp.full(2, 2**70)
    with pytest.raises(type(big.value)):
        creation._filled("full", 2**70, (2,), xp.int64, None, None, False, None)
