"""``strided.torch.mode`` (and ``x.mode()``) against PyTorch 2.13 CPU.

PyTorch's tie rule, measured: of equally frequent values the smallest; its index is the
last occurrence for a dimension of up to 16 elements (beyond, PyTorch's CPU sort is not
stable and its index is any occurrence; strided keeps the last). NaN: PyTorch's result
depends on where its sort meets NaN; strided counts each NaN once, as greater than every
number (checked against a reference written from that rule).
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import strided.torch as storch

from conftest import host

torch = pytest.importorskip("torch")


def _ours(a, *args, **kwargs):
    return storch.mode(storch.tensor(a), *args, **kwargs)


@settings(max_examples=80, deadline=None)
@given(a=hnp.arrays(st.sampled_from([np.int64, np.float32, np.float64, np.int8]),
                    hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                    elements=st.integers(-3, 3)),
       data=st.data())
def test_small_dims_match_torch_values_and_indices(a, data):
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    keepdim = data.draw(st.booleans())
    want = torch.mode(torch.from_numpy(a.copy()), dim, keepdim)
    got = _ours(a, dim, keepdim)
    assert type(got).__name__ == "mode" and got._fields == ("values", "indices")
    np.testing.assert_array_equal(host(got.values), want.values.numpy())
    np.testing.assert_array_equal(host(got.indices), want.indices.numpy())
    assert got.values.dtype.name == str(want.values.dtype).split(".")[1]
    assert got.indices.dtype.name == "int64"


@settings(max_examples=60, deadline=None)
@given(a=hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(17, 200)), elements=st.integers(0, 5)))
def test_long_dims_match_torch_values_and_index_the_last_occurrence(a):
    want = torch.mode(torch.from_numpy(a.copy()))
    got = _ours(a)
    np.testing.assert_array_equal(host(got.values), want.values.numpy())
    for row, v, i in zip(a, host(got.values), host(got.indices)):
        assert i == np.flatnonzero(row == v)[-1]  # (PyTorch's: any occurrence)


def _reference(row):
    """The documented rule, from a Counter: NaNs count once each and sort after numbers."""
    counts = collections.Counter(float(v) for v in row if not math.isnan(v))
    best = max(counts.values(), default=0)
    if best >= 1:
        v = min(k for k, c in counts.items() if c == best)
        return v, int(np.flatnonzero(row == v)[-1])
    return math.nan, int(np.flatnonzero(np.isnan(row))[0])


@settings(max_examples=100, deadline=None)
@given(a=hnp.arrays(np.float64, st.integers(1, 30), elements=st.sampled_from([0.0, 1.0, 2.0, math.nan, -0.0])))
def test_nan_follows_the_documented_rule(a):
    got = _ours(a)
    v, i = _reference(a)
    gv = float(host(got.values))
    assert (math.isnan(v) and math.isnan(gv)) or gv == v
    assert int(host(got.indices)) == i


def test_measured_cases():
    nan = math.nan
    # ties: the smallest value, its last occurrence (PyTorch 2.13 CPU)
    for a, v, i in [([3., 1, 2, 2, 1, 3], 1, 4), ([1, 2, 2, 1, 5, 5], 1, 3), ([5, 3, 5, 3, 7], 3, 3),
                    ([-0.0, 0.0, 1.0], 0.0, 1), ([nan, nan, nan], nan, 0), ([1., nan], 1.0, 0),
                    ([nan, 1., 1.], 1.0, 2)]:
        got = _ours(a)
        want = torch.mode(torch.tensor(a))
        assert (float(host(got.values)) == v or math.isnan(v)) and int(host(got.indices)) == i
        assert int(want.indices) == i
    # where PyTorch's sort meets NaN its answer is unspecified; ours is the documented rule
    got = _ours([nan, 1., nan, 1.])
    assert float(host(got.values)) == 1.0 and int(host(got.indices)) == 3


def test_forms_out_method_zero_d_and_errors():
    x = storch.tensor([[1., 2., 2.], [3., 3., 1.]])
    v, i = storch.mode(x, dim=0)
    vm, im = x.mode(0)
    np.testing.assert_array_equal(host(v), host(vm))
    np.testing.assert_array_equal(host(i), [0, 0, 1])
    ov, oi = storch.empty(3), storch.empty(3, dtype=storch.int64)
    r = storch.mode(x, 0, out=(ov, oi))
    np.testing.assert_array_equal(host(ov), [1., 2., 1.])
    np.testing.assert_array_equal(host(oi), [0, 0, 1])
    assert r.values is ov and r.indices is oi
    z = storch.mode(storch.tensor(5.0))
    assert float(host(z.values)) == 5.0 and int(host(z.indices)) == 0 and z.values.shape == ()
    e = storch.mode(storch.empty((0, 3)), 1)
    assert e.values.shape == (0,) and e.indices.shape == (0,)
    with pytest.raises(IndexError, match="empty"):
        storch.mode(storch.empty(0))
    with pytest.raises(IndexError):
        storch.mode(x, 2)
    with pytest.raises(TypeError, match="strided array"):
        storch.mode([1, 2, 2])


def test_gradient_goes_to_the_index_as_torch():
    a = np.array([[1., 2., 2., 0.5], [3., 3., 1., 1.]])
    t = torch.from_numpy(a.copy()).requires_grad_()
    torch.mode(t, 1).values.sum().backward()
    x = storch.tensor(a, requires_grad=True)
    storch.mode(x, 1).values.sum().backward()
    np.testing.assert_array_equal(host(x.grad), t.grad.numpy())
