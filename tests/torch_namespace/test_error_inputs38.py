"""Inputs PyTorch refuses that strided.torch accepted with an answer (found by running the
``error_inputs`` of PyTorch 2.13's OpInfos through strided.torch: 553 error inputs of 178 ops,
36 not refused). Each refused case is refused by PyTorch here first (the reference), then by
strided with the same exception type; beside each, a neighbouring valid input both accept,
with the same values. Some accepted inputs gave a wrong answer (``masked_fill`` of a complex
value into an int64 array dropped the imaginary part; ``gradient`` with one spacing for two
dims used it for both); the others an answer where PyTorch has none."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

from _parity import to_numpy  # noqa: E402

REFUSED = {
    "gradient: one spacing for two dims": lambda t: t.gradient(t.arange(9.0).reshape(3, 3), spacing=[0.1], dim=(1, 0)),
    "gradient: three spacings for two dims": lambda t: t.gradient(t.arange(9.0).reshape(3, 3), spacing=[1.0, 2.0, 3.0], dim=(1, 0)),
    "isclose: negative rtol": lambda t: t.isclose(t.tensor(1.0), t.tensor(1.1), rtol=-0.4),
    "isclose: negative atol": lambda t: t.isclose(t.tensor(1.0), t.tensor(1.1), atol=-0.4),
    "allclose: negative atol": lambda t: t.allclose(t.tensor(1.0), t.tensor(1.1), atol=-1.0),
    "masked_fill: complex array into int64": lambda t: t.masked_fill(t.tensor([1, 2]), t.tensor(True), t.tensor(1 + 2j)),
    "masked_fill: complex array into float32": lambda t: t.masked_fill(t.tensor([1.0, 2.0]), t.tensor([True, False]), t.tensor(2j)),
    "masked_fill: complex scalar into float32": lambda t: t.masked_fill(t.tensor([1.0, 2.0]), t.tensor([True, False]), 1j),
    "masked_fill_: complex array into int64": lambda t: t.tensor([1, 2]).masked_fill_(t.tensor(True), t.tensor(1 + 2j)),
    "max_pool1d: no channels": lambda t: t.nn.functional.max_pool1d(t.zeros(0, 10), kernel_size=1),
    "max_pool1d: no length": lambda t: t.nn.functional.max_pool1d(t.zeros(2, 3, 0), kernel_size=1),
    "max_pool2d: no channels": lambda t: t.nn.functional.max_pool2d(t.zeros(0, 2, 3), kernel_size=1),
    "max_pool2d: batched, no channels": lambda t: t.nn.functional.max_pool2d(t.zeros(1, 0, 2, 3), kernel_size=1),
    "max_pool3d: no channels": lambda t: t.nn.functional.max_pool3d(t.zeros(0, 1, 2, 10), kernel_size=1),
    "avg_pool1d: no channels": lambda t: t.nn.functional.avg_pool1d(t.zeros(0, 10), kernel_size=1),
    "avg_pool2d: batched, no channels": lambda t: t.nn.functional.avg_pool2d(t.zeros(1, 0, 2, 3), kernel_size=1),
    "avg_pool3d: batched, no depth": lambda t: t.nn.functional.avg_pool3d(t.zeros(1, 1, 0, 2, 10), kernel_size=1),
    "scatter: src of another dtype": lambda t: t.scatter(t.zeros(3, 5, dtype=t.float64), 0, t.tensor([[0, 1], [1, 2]]),
                                                         t.ones(2, 5, dtype=t.float32)),
    "scatter_: src of another dtype": lambda t: t.zeros(3, dtype=t.int64).scatter_(0, t.tensor([0, 1]), t.ones(2)),
    "normal: an array mean, a negative std": lambda t: t.normal(t.zeros(3), -1.0),
    "normal: scalars, a negative std": lambda t: t.normal(0.0, -1.0, size=(3,)),
    # (a std array is checked on the cpu only: on a GPU the check would copy to the host)
    "normal: a negative element of std": lambda t: t.normal(0.0, t.tensor([-1.0, 1.0], device="cpu")),
    "normal_: a negative std": lambda t: t.zeros(3).normal_(0.0, -1.0),
    "multinomial: int64 weights": lambda t: t.multinomial(t.tensor([[1, 2]]), 2),
    "multinomial: zero samples": lambda t: t.multinomial(t.tensor([1.0, 2.0]), 0),
    "multinomial: float64 out": lambda t: t.multinomial(t.tensor([[1.0, 2.0]]), 2, out=t.zeros(1, 2, dtype=t.float64)),
}

ACCEPTED = {
    "gradient: one spacing for one dim": lambda t: t.gradient(t.arange(4.0) ** 2, spacing=[2.0]),
    "gradient: a scalar spacing for two dims": lambda t: t.gradient(t.arange(9.0).reshape(3, 3) ** 2, spacing=2.0, dim=(0, 1)),
    "gradient: two spacings for two dims": lambda t: t.gradient(t.arange(9.0).reshape(3, 3) ** 2, spacing=[2.0, 0.5], dim=(1, 0)),
    "isclose: zero tolerances": lambda t: t.isclose(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.5]), rtol=0.0, atol=0.0),
    "masked_fill: float into int64": lambda t: t.masked_fill(t.tensor([1, 2]), t.tensor([True, False]), 1.5),
    "masked_fill: int array into float32": lambda t: t.masked_fill(t.tensor([1.0, 2.0]), t.tensor([True, False]), t.tensor(3)),
    "masked_fill: complex into complex": lambda t: t.masked_fill(t.tensor([1j, 2.0]), t.tensor([True, False]), t.tensor(3 + 1j)),
    "max_pool2d: an empty batch": lambda t: t.nn.functional.max_pool2d(t.zeros(0, 1, 2, 3), kernel_size=1),
    "avg_pool1d: an empty batch": lambda t: t.nn.functional.avg_pool1d(t.zeros(0, 2, 10), kernel_size=1),
    "scatter: src of the same dtype": lambda t: t.scatter(t.zeros(3, 5), 0, t.tensor([[0, 1], [1, 2]]), t.ones(2, 5)),
    "scatter_: a float value into int64": lambda t: t.zeros(3, dtype=t.int64).scatter_(0, t.tensor([0, 1]), 2.5),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_as_pytorch_refuses(case):
    with pytest.raises(RuntimeError):  # (the reference: PyTorch refuses it)
        REFUSED[case](torch)
    with pytest.raises(RuntimeError):
        REFUSED[case](S)


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_neighbours_still_give_pytorchs_values(case):
    want, got = ACCEPTED[case](torch), ACCEPTED[case](S)
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = to_numpy(g)
        w = w.numpy()
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)


def test_take_and_aminmax_write_into_out_as_pytorch():
    # (found beside the error inputs: torch.take and torch.aminmax take out=, strided.torch's
    # did not: TypeError for a PyTorch program that passes it)
    got, want = [], []
    for lib, res in ((torch, want), (S, got)):
        x = lib.tensor([[3.0, 1.0], [2.0, 5.0]])
        mn, mx = lib.empty(2), lib.empty(2)
        r = lib.aminmax(x, dim=0, out=(mn, mx))
        assert r.min is mn and r.max is mx
        o = lib.empty(3)
        assert lib.take(x, lib.tensor([0, 3, 1]), out=o) is o
        res.extend([to_numpy(mn) if lib is S else mn.numpy(), to_numpy(mx) if lib is S else mx.numpy(),
                    to_numpy(o) if lib is S else o.numpy()])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
