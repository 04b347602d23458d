"""Complex inputs of PyTorch's words, against PyTorch 2.13: ``nan_to_num`` replaces NaN and
infinities in each part by the part's dtype's extremes (signed zeros kept), ``abs_`` of a
complex tensor and ``logit`` of one are refused, as PyTorch's."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

PARTS = [0.0, -0.0, 1.5, -2.25, float("nan"), float("inf"), -float("inf"), 3e38]


@settings(max_examples=80, deadline=None)
@given(re=hs.lists(hs.sampled_from(PARTS), min_size=1, max_size=6), data=hs.data(),
       dtype=hs.sampled_from(["complex64", "complex128"]),
       kw=hs.sampled_from([{}, {"nan": 1.0}, {"nan": 1.0, "posinf": 2.0, "neginf": -3.0}, {"posinf": -0.0}]))
def test_nan_to_num_of_complex_is_pytorchs(re, data, dtype, kw):
    im = data.draw(hs.lists(hs.sampled_from(PARTS), min_size=len(re), max_size=len(re)))
    a = np.array([complex(r, i) for r, i in zip(re, im)], dtype=dtype)
    rs, rt = st.nan_to_num(st.tensor(a), **kw), torch.nan_to_num(torch.tensor(a), **kw)
    assert to_numpy(rs).dtype == rt.numpy().dtype
    np.testing.assert_array_equal(_bits(to_numpy(rs)), _bits(rt.numpy()))
    xs, xt = st.tensor(a), torch.tensor(a)
    xs.nan_to_num_(**kw)
    xt.nan_to_num_(**kw)
    np.testing.assert_array_equal(_bits(to_numpy(xs)), _bits(xt.numpy()))


def _bits(a):
    """The parts' bits: the same bits, signed zeros included."""
    return a.view(f"u{a.itemsize // 2}")


@pytest.mark.parametrize("call", [lambda L, x: x.abs_(), lambda L, x: x.absolute_(), lambda L, x: L.abs_(x),
                                  lambda L, x: L.logit(x), lambda L, x: x.logit(), lambda L, x: L.special.logit(x),
                                  lambda L, x: x.logit_()])
def test_refused_for_complex_as_pytorchs(call):
    a = np.array([0.25 + 1j, 0.5 - 0.5j], dtype="complex64")
    with pytest.raises(RuntimeError):
        call(torch, torch.tensor(a))
    x = st.tensor(a)
    with pytest.raises(RuntimeError, match="complex"):
        call(st, x)
    np.testing.assert_array_equal(to_numpy(x), a)  # and the data is as it was


def test_out_of_place_abs_of_complex_into_complex_out_is_pytorchs():
    """``torch.abs(z, out=z)`` is allowed (only the in-place method is refused)."""
    a = np.array([3 + 4j, -1j], dtype="complex64")
    xs, xt = st.tensor(a), torch.tensor(a)
    st.abs(xs, out=xs)
    torch.abs(xt, out=xt)
    np.testing.assert_array_equal(to_numpy(xs), xt.numpy())
