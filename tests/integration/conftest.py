"""Integration tests: strided inside array-api-compat, array-api-extra, SciPy and scikit-learn.

SciPy (and scikit-learn, through SciPy) read ``SCIPY_ARRAY_API`` once, when
SciPy is first imported, so it is set here, at import time, before any test
module of this directory imports them. The variable then holds for the whole
test session; no other test of ours imports SciPy, and NumPy inputs keep their
behaviour under it (SciPy only validates array-likes more strictly).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import strided as xp
from strided._core.backends._numpy import NumpyBackend
from strided._core.device import register_backend

os.environ["SCIPY_ARRAY_API"] = "1"

if "scipy" in sys.modules:  # imported before this file by something else in the session
    from scipy._lib import _array_api_override

    if not _array_api_override.SCIPY_ARRAY_API:
        raise pytest.UsageError(
            "SciPy was imported before tests/integration/conftest.py could set "
            "SCIPY_ARRAY_API=1; run with SCIPY_ARRAY_API=1 in the environment")


@pytest.fixture(params=["float32", "float64"])
def dtype_name(request):
    """The floating dtype under test, by name (the same name in NumPy and strided)."""
    return request.param



class _FarBackend(NumpyBackend):
    """A NumPy backend for device type ``far``: memory that is not the host's.

    Host transfers copy and ``np.asarray`` refuses ``far`` arrays (as it refuses
    GPU arrays), so a library that silently falls back to ``np.asarray``, or
    allocates on the default device instead of its input's, fails here as it
    would on a GPU. (DLPack still exports ``far`` memory as host memory, which it
    physically is; on CUDA, DLPack reports the GPU.)
    """

    name = "far"

    def to_host(self, arr):
        return np.array(arr, copy=True)

    def from_host(self, arr, device=None):
        return np.array(arr, copy=True)


register_backend("far", _FarBackend("far"))


@pytest.fixture(params=["cpu", "far:0"])
def device(request):
    """The device of the inputs: the host, or the simulated non-host device ``far``."""
    return xp.Device(request.param)


@pytest.fixture(autouse=True)
def _host_default_device(on_cpu):
    """These tests are about the ecosystem on host memory (SciPy and scikit-learn
    support array API namespaces on CPU only) and on the simulated non-host device
    ``far``, which each test names. So under ``STRIDED_DEFAULT_DEVICE=cuda`` their
    arrays are still created on the cpu, where the libraries under test run."""
    yield
