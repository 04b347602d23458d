"""Shared fixtures: a simulated second device, and NumPy-mirror helpers.

The ``sim`` device type is served by a NumPy backend whose host transfers
copy, so it behaves like a separate device (memory is never shared with the
host) and lets the tests exercise device checks and transfers without a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
from strided._backends._numpy import NumpyBackend
from strided._device import register_backend


class SimBackend(NumpyBackend):
    """A NumPy backend for the simulated device type ``sim``."""

    name = "sim"

    def to_host(self, arr):
        return np.array(arr, copy=True)

    def from_host(self, arr, device=None):
        return np.array(arr, copy=True)


SIM = SimBackend("sim")
register_backend("sim", SIM)


@pytest.fixture
def sim():
    """The simulated device ``sim:0``."""
    return xp.Device("sim:0")


@pytest.fixture
def default_float64():
    """Run a test with float64 as the default dtype, restoring float32 after."""
    xp.set_default_dtype(xp.float64)
    try:
        yield
    finally:
        xp.set_default_dtype(xp.float32)


def to_np(x) -> np.ndarray:
    """An independent NumPy copy of a strided array (via tolist-free host copy)."""
    return np.array(x._host(), copy=True)


def assert_same(x, ref: np.ndarray) -> None:
    """``x`` equals the NumPy reference in shape, dtype and every element."""
    assert isinstance(x, xp.Array), type(x)
    assert tuple(x.shape) == ref.shape
    assert x.dtype._np == ref.dtype, (x.dtype, ref.dtype)
    np.testing.assert_array_equal(to_np(x), ref)
