"""The ``isa`` fixture of the sum kernels' tests: each test on both instruction-set paths.

``_ckernels.sum_isa(True/False)`` turns the AVX-512 float64 kernels on or off (on only where
the processor has AVX-512F); each test runs with them on (skipped where the processor has
none) and off, and the module's setting is restored after. Import it into a test module
(``from _isa import isa  # noqa: F401``)."""

from __future__ import annotations

import pytest

from strided._core import cfast as _cfast

_C = _cfast._ckernels if _cfast.AVAILABLE else None


@pytest.fixture(params=["avx512", "avx2"])
def isa(request):
    if _C is None:
        pytest.skip("the C kernels are not built (or STRIDED_NO_CEXT=1)")
    was = _C.sum_isa()
    got = _C.sum_isa(request.param == "avx512")
    try:
        if request.param == "avx512" and got != "avx512":
            pytest.skip(f"no AVX-512 here (the sums run on {got})")
        yield got
    finally:
        _C.sum_isa(was == "avx512")
