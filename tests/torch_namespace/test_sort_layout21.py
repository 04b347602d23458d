"""Sorts along any axis give C-contiguous results, as PyTorch's and NumPy's do, on every
device: CuPy's sort of an inner axis is a rolled view (its _routines_sorting.pyx; the stand-in
models it), whose ``view(-1)`` raised on the cuda leg only."""

import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("what", ["argsort", "sort values", "sort indices"])
def test_sort_results_are_contiguous_as_pytorchs(dim, descending, what):
    def run(L):
        x = L.arange(24.0).reshape(2, 3, 4).flip(1)
        if what == "argsort":
            return L.argsort(x, dim=dim, descending=descending)
        r = L.sort(x, dim=dim, descending=descending)
        return r.values if what == "sort values" else r.indices
    got, want = run(st), run(torch)
    assert got.stride() == want.stride()
    assert got.view(-1).tolist() == want.view(-1).tolist()
