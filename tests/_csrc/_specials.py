"""The special values the reduction kernels' tests put into their inputs (Hypothesis).

``put_special(draw, a, special, mask)`` returns ``a`` with ``special`` at ``mask``: NaNs of
either sign, zeros of both signs (ties NumPy's order decides), zeros of one sign under
negative values (a max that is a zero), infinities, or all values negative. Shared by
test_reduce_c.py and test_column_rows38.py."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as hs


def put_special(draw, a, special, mask):
    if special == "nan":
        a[mask] = np.nan
    elif special == "negnan":
        a[mask] = -np.nan
    elif special == "zeros":  # ties between zeros of both signs
        a[:] = 0.0
        a[mask] = -0.0
    elif special == "negzeros":  # a max that is a zero of one sign
        a = -np.abs(a)
        a[mask] = draw(hs.sampled_from([0.0, -0.0]))
    elif special == "inf":
        a[mask] = draw(hs.sampled_from([np.inf, -np.inf]))
    elif special == "allneg":
        a = -np.abs(a) - 1
    return a
