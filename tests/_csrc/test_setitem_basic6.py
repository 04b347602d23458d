"""``x[key] = a Python real scalar`` for basic keys (an int, a tuple of ints and slices) in C
(``_chot/setitem.c``, ``basic_key``; fresh results materialized first by ``storage.c``)
against NumPy's assignment on the same values and against the Python definition
(``array._setitem``): the values, the version counter bumped once, nothing else written, and
the Python path's own errors (out of range, too many indices, a zero step).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided._core import array as _array

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


@hs.composite
def _case(draw):
    shape = tuple(draw(hs.lists(hs.integers(1, 5), min_size=1, max_size=3)))
    parts = []
    for n in shape[:draw(hs.integers(1, len(shape)))]:
        if draw(hs.booleans()):
            parts.append(draw(hs.integers(-n - 1, n)))  # (n and -n-1: out of range)
        else:
            parts.append(slice(draw(hs.none() | hs.integers(-n - 1, n + 1)),
                               draw(hs.none() | hs.integers(-n - 1, n + 1)),
                               draw(hs.none() | hs.sampled_from([-2, -1, 1, 2, 3]))))
    key = parts[0] if len(parts) == 1 and type(parts[0]) is int and draw(hs.booleans()) else tuple(parts)
    value = draw(hs.sampled_from([1.5, -0.0, float("nan"), float("inf"), 7, True, 2 ** 70, 1e300]))
    return shape, key, value


@settings(max_examples=400, deadline=None)
@given(case=_case(), dtype=hs.sampled_from(["float16", "float32", "float64"]),
       fresh=hs.booleans(), view=hs.booleans())
def test_basic_key_writes_are_numpys_and_the_python_paths(case, dtype, fresh, view):
    shape, key, value = case
    base = np.arange(np.prod(shape) * 2, dtype=dtype).reshape((2,) + shape)
    x = st.asarray(base, device="cpu")
    x = x + 0 if fresh else st.asarray(base.copy(), device="cpu")  # (a kernel result, or stored)
    if view:
        x = x[1]
    ref = (base + 0)[1] if view else base + 0
    y = st.asarray(np.array(ref), device="cpu")  # the Python definition's target
    try:
        with np.errstate(all="ignore"):
            ref[key] = value
        want = None
    except (IndexError, ValueError, OverflowError, TypeError) as e:
        want = e
    with np.errstate(all="ignore"):
        try:
            _array._setitem(y, key, value)
            python_error = None
        except Exception as e:  # noqa: BLE001 (the Python path's error, compared below)
            python_error = e
        v0 = x._layout()[0]._version
        if python_error is None:
            x[key] = value
        else:
            with pytest.raises(type(python_error)) as got:
                x[key] = value
            assert str(got.value) == str(python_error)
    if python_error is None:
        assert want is None
        np.testing.assert_array_equal(np.asarray(x), ref)
        np.testing.assert_array_equal(np.asarray(y), ref)
        assert x._st._version == v0 + 1
    else:
        np.testing.assert_array_equal(np.asarray(x), (base + 0)[1] if view else base)  # nothing written


def test_a_fresh_result_is_written_where_numpy_writes():
    a = st.ones((3, 4), dtype=st.float32, device="cpu")
    x = a * 2
    assert x._st is None
    x[1] = 5.0
    x[0, 2] = -1
    x[2, 1:3] = 7.5
    want = np.full((3, 4), 2, np.float32)
    want[1] = 5.0
    want[0, 2] = -1
    want[2, 1:3] = 7.5
    np.testing.assert_array_equal(np.asarray(x), want)
    assert x._st._version == 3
    np.testing.assert_array_equal(np.asarray(a), np.ones((3, 4), np.float32))


@pytest.mark.parametrize("how", ["ellipsis", "copy_", "slice"])
def test_an_overlapping_strided_source_is_read_as_it_was(how):
    # NumPy's own n[6:12] = n[4:16:2] reverses its loop for the overlap and reads an element
    # it has already written (n[9] becomes 1); the values as they were give n[10] = 1 only.
    buf = np.zeros(24, np.float32)
    buf[12] = 1
    want = buf.copy()
    want[6:12] = buf[4:16:2].copy()
    base = st.asarray(buf.copy(), device="cpu")
    x, y = base[6:12], base[4:16:2]
    if how == "ellipsis":
        x[...] = y
    elif how == "copy_":
        x.copy_(y)
    else:
        base[6:12] = y
    np.testing.assert_array_equal(np.asarray(base), want)
