"""The ``isa`` fixture of the sum kernels' tests: each test on each instruction-set path.

``_ckernels.sum_isa("avx512" | "avx2" | "generic")`` picks the kernels (as far as the processor
has the instruction set); each test runs on each (skipped where the processor lacks it; the
generic kernels are those of processors without AVX2), and the module's setting is restored
after. Import it into a test module
(``from _isa import isa  # noqa: F401``)."""

from __future__ import annotations

import pytest

from strided._core import cfast as _cfast

_C = _cfast._ckernels if _cfast.AVAILABLE else None


@pytest.fixture(params=["avx512", "avx2", "generic"])
def isa(request):
    if _C is None:
        pytest.skip("the C kernels are not built (or STRIDED_NO_CEXT=1)")
    was = _C.sum_isa()
    got = _C.sum_isa(request.param)
    try:
        if got != request.param:
            pytest.skip(f"no {request.param} here (the sums run on {got})")
        yield got
    finally:
        _C.sum_isa(was)
