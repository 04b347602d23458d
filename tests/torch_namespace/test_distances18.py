"""strided.torch's cosine_similarity, pairwise_distance and pdist (nn.functional, torch.* and
the CosineSimilarity / PairwiseDistance modules) against PyTorch 2.13: values and gradients
over shapes, broadcasting, dims, norms and float32/float64, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch
from _parity import check

DTYPES = ["float32", "float64"]
TOL32 = dict(rtol=1e-4, atol=1e-5)


def _tol(dtype):
    return TOL32 if dtype == "float32" else None


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("s1,s2,dim", [((3, 4), (3, 4), 1), ((3, 4), (3, 4), 0), ((4,), (4,), 0),
                                       ((3, 4), (4,), 1), ((2, 1, 4), (3, 4), -1),
                                       ((2, 3, 4), (2, 3, 4), -2)])
@pytest.mark.parametrize("eps", [1e-8, 0.5])
def test_cosine_similarity(s1, s2, dim, eps, dtype):
    def build(lib, T, rng):
        a = T(rng.standard_normal(s1) * 0.4, grad=True)
        b = T(rng.standard_normal(s2), grad=True)
        return lib.nn.functional.cosine_similarity(a, b, dim=dim, eps=eps)
    check(build, dtype, tol=_tol(dtype))


def test_cosine_similarity_small_norms_and_torch_form():
    # Norms below eps: clamped in value, the gradient passed through (PyTorch's no_grad clamp).
    def build(lib, T, rng):
        a = T(np.array([[1e-5, 2e-5], [3.0, 4.0], [1e-4, -1e-4]]), grad=True)
        b = T(np.array([[1e-6, 1.0], [1.0, 1.0], [2.0, 1e-5]]), grad=True)
        return lib.cosine_similarity(a, b, 1, 1e-3) + lib.nn.CosineSimilarity(1, 1e-3)(b, a)
    check(build, "float64")


def test_cosine_similarity_integer_operand():
    def build(lib, T, rng):
        a = T(rng.standard_normal((3, 4)), grad=True)
        return lib.nn.functional.cosine_similarity(a, T(np.arange(12).reshape(3, 4)))
    check(build, "float64")
    for L in (torch, storch):
        with pytest.raises(RuntimeError, match="expected common dtype to be floating point"):
            L.nn.functional.cosine_similarity(L.ones(2, 3, dtype=L.int64), L.ones(2, 3, dtype=L.int64))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("s1,s2", [((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (4,)), ((), ()),
                                   ((2, 3, 4), (3, 4))])
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf"), 0.5])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(s1, s2, p, keepdim, dtype):
    def build(lib, T, rng):
        a = T(rng.standard_normal(s1), grad=True)
        b = T(rng.standard_normal(s2), grad=True)
        return lib.nn.functional.pairwise_distance(a, b, p=p, eps=1e-6, keepdim=keepdim)
    check(build, dtype, tol=_tol(dtype))


def test_pairwise_distance_module_and_torch_form():
    def build(lib, T, rng):
        a = T(rng.standard_normal((5, 3)), grad=True)
        b = T(rng.standard_normal((5, 3)), grad=True)
        return (lib.nn.PairwiseDistance(p=1.0, eps=0.1, keepdim=True)(a, b).flatten()
                + lib.pairwise_distance(a, b, 3, 1e-6, False)
                + lib.pairwise_distance(x1=a, x2=b))
    check(build, "float64")
    assert repr(storch.nn.PairwiseDistance()) == repr(torch.nn.PairwiseDistance())
    assert repr(storch.nn.CosineSimilarity()) == repr(torch.nn.CosineSimilarity())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (2, 5), (6, 1)])
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf"), 0.5])
def test_pdist(shape, p, dtype):
    def build(lib, T, rng):
        x = T(rng.standard_normal(shape), grad=True)
        return lib.nn.functional.pdist(x, p) + lib.pdist(x, p=p) * 0.5
    check(build, dtype, tol=_tol(dtype))


def test_pdist_edges():
    # (values only: PyTorch 2.13's pdist backward crashes the process on an empty result or
    # on rows of no columns)
    for shape in [(1, 4), (0, 3), (3, 0)]:
        def build(lib, T, rng, shape=shape):
            return lib.nn.functional.pdist(T(np.ones(shape), grad=True))
        check(build, "float64", backward=False)
        x = storch.ones(shape, dtype=storch.float64, requires_grad=True)
        storch.nn.functional.pdist(x).sum().backward()
        assert x.grad is not None and not x.grad.any()
    check(lambda lib, T, rng: lib.nn.functional.pdist(T(rng.standard_normal((3, 2)), grad=True), 0),
          "float64")


def _errors():
    return [
        ("pdist", lambda L: (L.randn(3),), RuntimeError, "pdist only supports 2D tensors"),
        ("pdist", lambda L: (L.randn(3, 2, 2),), RuntimeError, "pdist only supports 2D tensors"),
        ("pdist", lambda L: (L.randn(3, 4), -1.0), RuntimeError, "non-negative p values"),
    ]


@pytest.mark.parametrize("i", range(len(_errors())))
def test_errors_as_pytorch(i):
    name, make, exc, frag = _errors()[i]
    for L in (torch, storch):
        with pytest.raises(exc, match=frag):
            getattr(L.nn.functional, name)(*make(L))
