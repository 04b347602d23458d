"""PyTorch programs run unchanged on strided.torch (``_programs.py``): each runs once with
PyTorch 2.13 and once with strided.torch, from the same data and initial weights, and
every loss, parameter, gradient and optimizer/scheduler value it returns is compared.

Tolerances. The float32 programs chain tens of operations (sums over up to ~100 terms,
in an order that differs between the libraries' kernels) through several optimizer
steps, each of which carries the previous step's rounding forward; float32's epsilon
is 1.2e-7, and the largest relative difference seen is 2e-5 (an LSTM's recurrent
weights after three Adagrad steps). rtol 1e-4 leaves a 5x margin over that while a
wrong formula (a missing term, a wrong default, a step skipped) moves results by far
more than 1e-4; atol 1e-5 covers the values near zero (differences of two rounded
numbers), where a relative tolerance means nothing. The float64 programs are held to
1e-10 (they agree to ~1e-15).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import _programs as P

FLOAT64 = {"tensor_math_program", "lbfgs_regression", "autograd_grad_and_jacobian", "spectral_program",
           "gaussian_process_mll"}


@pytest.mark.parametrize("prog", P.PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_torch(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's own warnings about nested tensors etc.)
        ref, got = P.run_both(prog)
    assert ref, f"{prog.__name__} returned nothing to compare"
    if prog.__name__ in FLOAT64:
        P.compare(prog.__name__, ref, got, rtol=1e-10, atol=1e-12)
    else:
        P.compare(prog.__name__, ref, got, rtol=1e-4, atol=1e-5)


def test_there_are_twenty_programs_with_distinct_names():
    names = [p.__name__ for p in P.PROGRAMS]
    assert len(names) >= 20 and len(set(names)) == len(names), names


def test_compare_catches_a_difference():
    # The harness can fail: one parameter off by 1e-3 relative, a result missing, an
    # integer result off by one.
    ref, got = P.run_both(P.mlp_sgd_momentum)
    P.compare("same", ref, got, rtol=1e-4, atol=1e-5)
    bad = dict(got)
    bad["0.weight"] = got["0.weight"] * (1 + 1e-3)
    with pytest.raises(AssertionError, match=r"0\.weight: max abs difference"):
        P.compare("perturbed", ref, bad, rtol=1e-4, atol=1e-5)
    with pytest.raises(AssertionError, match="results"):
        P.compare("missing", ref, {k: v for k, v in got.items() if k != "acc"}, rtol=1e-4, atol=1e-5)
    r2, g2 = P.run_both(P.custom_function_setup_context)
    g2 = dict(g2)
    g2["idx"] = g2["idx"] + 1
    with pytest.raises(AssertionError, match="idx"):
        P.compare("ints", r2, g2, rtol=1e-4, atol=1e-5)


def test_weights_are_copied_across_not_reinitialised():
    # The strided run must take PyTorch's initial weights: with a different seed for its
    # own initialisation the results still agree, and the recorded weights are PyTorch's.
    import torch
    import strided.torch as storch
    torch.manual_seed(0)
    ctx = P.Ctx(torch, 0)
    lin = ctx.init(torch.nn.Linear(3, 2))
    storch.manual_seed(12345)
    sctx = P.Ctx(storch, 0, weights=ctx.recorded)
    slin = sctx.init(storch.nn.Linear(3, 2))
    np.testing.assert_array_equal(slin.weight.detach().cpu().numpy(), lin.weight.detach().numpy())
