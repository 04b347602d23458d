"""``nn.functional.pad``'s reflect, replicate and circular modes against PyTorch 2.13: which
input ranks each padding length is for (PyTorch refuses the others with NotImplementedError,
which strided accepted), negative amounts (circular crops first and wraps around what is left:
strided wrapped around the uncropped dimension, a silently different value), and the errors'
types. Values, or the exception type, for every drawn case; gradients for some."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

import strided
import strided.torch as st
from _parity import to_numpy

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _both(x: np.ndarray, pad, mode):
    try:
        want = F.pad(torch.from_numpy(x), pad, mode=mode).numpy()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        want = type(e)
    try:
        got = to_numpy(st.nn.functional.pad(strided.asarray(x), pad, mode=mode))
    except Exception as e:  # noqa: BLE001
        got = type(e)
    return got, want


@settings(max_examples=300, deadline=None)
@given(ndim=hs.integers(1, 5), npad=hs.integers(1, 3), mode=hs.sampled_from(["reflect", "replicate", "circular"]),
       data=hs.data())
def test_values_or_errors_are_pytorchs(ndim, npad, mode, data):
    shape = tuple(data.draw(hs.integers(1, 4)) for _ in range(ndim))
    pad = tuple(data.draw(hs.integers(-5, 4)) for _ in range(2 * npad))
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    got, want = _both(x, pad, mode)
    supported = npad in (ndim - 1, ndim - 2)  # (PyTorch's kernels: else NotImplementedError, compared below)
    cores = [shape[-1 - k] + min(pad[2 * k], 0) + min(pad[2 * k + 1], 0) for k in range(npad)] if supported else []
    if mode == "circular" and supported and want is not RuntimeError and any(c < max(pad[2 * k], pad[2 * k + 1], 0) and (min(pad[2 * k], pad[2 * k + 1]) < 0)
                                  for k, c in enumerate(cores)):
        # cropped to fewer elements than a pad wraps: PyTorch 2.13 reads uninitialised or
        # overlapping memory (a value, or an overlap error), or where nothing is left returns
        # an empty array for some amounts and raises for others; strided refuses
        assert got is RuntimeError
        return
    if isinstance(want, type):
        assert got is want, (shape, pad, mode, got)
    else:
        assert not isinstance(got, type), (shape, pad, mode, got)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("pad", [(-1, 1), (2, -2), (-3, 2), (1, -4), (-6, 0), (-7, 1)])
def test_circular_crops_then_wraps(pad):
    x = np.arange(12.0).reshape(1, 2, 6)
    got, want = _both(x, pad, "circular")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("pad", [(1, -4), (-4, 1), (2, -5), (3, -6)])
def test_circular_wrap_around_nothing_left_raises(pad):
    # (found by the Hypothesis test above: (1, -4) of 3 elements returned an empty array
    # where PyTorch raises; PyTorch returns one for (2, -5), which strided refuses as well,
    # as it refuses every wrap around fewer elements than the pad)
    x = np.arange(3.0).reshape(1, 3)
    if pad == (1, -4):
        assert _both(x, pad, "circular")[1] is RuntimeError  # (PyTorch's answer, the reference)
    with pytest.raises(RuntimeError, match="would wrap around that more than once"):
        st.nn.functional.pad(strided.asarray(x), pad, mode="circular")


@pytest.mark.parametrize("shape, pad", [((5,), (1, 1)), ((1, 2, 3, 5), (1, 1)), ((3, 5), (1, 1, 1, 1)),
                                        ((1, 1, 2, 3, 4, 5), (1,) * 6)])
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_unsupported_ranks_raise_not_implemented(shape, pad, mode):
    with pytest.raises(NotImplementedError, match=f"padding size {len(pad)} is not supported for {len(shape)}D"):
        st.nn.functional.pad(st.zeros(shape), pad, mode=mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_gradients_are_pytorchs(mode):
    x = np.random.default_rng(0).standard_normal((2, 3, 5))
    w = np.random.default_rng(1).standard_normal((2, 3, 7))
    pad = (-1, 3)
    tx = torch.tensor(x, requires_grad=True)
    (F.pad(tx, pad, mode=mode) * torch.from_numpy(w)).sum().backward()
    sx = strided.asarray(x)
    sx.requires_grad_()
    (st.nn.functional.pad(sx, pad, mode=mode) * strided.asarray(w)).sum().backward()
    np.testing.assert_allclose(to_numpy(sx.grad), tx.grad.numpy(), rtol=1e-12)
