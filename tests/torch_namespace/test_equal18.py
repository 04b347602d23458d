"""``strided.torch.equal`` is PyTorch's ``torch.equal``: one Python bool, True when the shapes
are the same and every element equal; it was the standard's elementwise ``strided.equal``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import strided
import strided.torch as st
from _parity import to_numpy

torch = pytest.importorskip("torch")

CASES = [
    ([1.0, 2.0], [1.0, 2.0]), ([1.0, 2.0], [1, 2]), ([1.0, 2.0], [1.0, 3.0]), ([math.nan], [math.nan]),
    ([1.0, 2.0], [1.0, 2.0, 3.0]), ([1.0, 2.0], [[1.0, 2.0]]), ([], []), (3.0, 3.0), ([True, False], [1, 0]),
    ([[1, 2], [3, 4]], [[1, 2], [3, 4]]), ([0.0], [-0.0]),
]


@pytest.mark.parametrize("a, b", CASES)
def test_equal_is_pytorchs(a, b):
    want = torch.equal(torch.tensor(a), torch.tensor(b))
    got = st.equal(st.tensor(a), st.tensor(b))
    assert type(got) is bool and got == want
    assert st.tensor(a).equal(st.tensor(b)) == want


def test_equal_refuses_a_number_and_the_standard_keeps_its_meaning():
    with pytest.raises(TypeError, match="strided array"):
        st.equal(st.tensor([1.0]), 1.0)
    with pytest.raises(TypeError, match="strided array"):
        st.equal(1.0, st.tensor([1.0]))
    r = strided.equal(strided.asarray([1.0, 2.0]), strided.asarray([1.0, 3.0]))
    np.testing.assert_array_equal(to_numpy(r), [True, False])
