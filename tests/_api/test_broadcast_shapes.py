"""_layout.broadcast_shapes against NumPy's: a short path for two shapes (every binary
operation and where), the general loop for more; both NumPy's rules, a tuple, and a
ValueError naming the shapes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._core.layout import broadcast_shapes

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=4), st.lists(st.integers(0, 3), max_size=4),
       st.lists(st.integers(0, 3), max_size=3), st.booleans())
def test_broadcast_shapes_matches_numpy(s1, s2, s3, three):
    shapes = (tuple(s1), tuple(s2)) + ((tuple(s3),) if three else ())
    try:
        want = np.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(ValueError, match="cannot be broadcast together"):
            broadcast_shapes(*shapes)
        with pytest.raises(ValueError):
            xp.add(*(xp.zeros(s, device="cpu") for s in shapes[:2])) if not three else \
                xp.broadcast_shapes(*shapes)
        return
    got = broadcast_shapes(*shapes)
    assert type(got) is tuple and got == tuple(want)
