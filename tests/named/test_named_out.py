"""out= whose names clash with the result's is refused before anything is written into it
(docs/reliability.md, the single-writer rule): the error leaves user memory as it was."""

import numpy as np
import pytest

import strided as xp
from strided.named import DimensionNameError


@pytest.mark.parametrize("call", [
    lambda x, o: xp.exp(x, out=o),
    lambda x, o: xp.add(x, x, out=o),
    lambda x, o: xp.sigmoid(x, out=o),
    lambda x, o: xp.multiply(x, 2.0, out=o),
    lambda x, o: xp.clamp(x, -0.5, 0.5, out=o),
])
def test_clashing_out_names_leave_out_unwritten(call):
    x = xp.asarray(np.ones((2, 3)), names=("N", "C"))
    bad = xp.full((2, 3), 5.0, names=("C", "N"))
    version = bad._version
    with pytest.raises(DimensionNameError):
        call(x, bad)
    np.testing.assert_array_equal(np.asarray(bad.rename(None).cpu()), np.full((2, 3), 5.0))
    assert bad.names == ("C", "N")
    assert bad._version == version  # no write was counted either


def test_matching_out_names_are_kept_and_written():
    x = xp.asarray(np.ones((2, 3)), names=("N", "C"))
    o = xp.empty((2, 3), names=("N", None))
    assert xp.exp(x, out=o) is o
    assert o.names == ("N", "C")
    np.testing.assert_allclose(np.asarray(o.rename(None).cpu()), np.exp(np.ones((2, 3))), rtol=1e-6)
