"""torch.autograd.detect_anomaly / set_detect_anomaly on strided.torch against PyTorch 2.13:
the NaN check names the node and output, check_nan=False turns it off, the modes are
restored on exit, and the warning on entering detect_anomaly."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch

LIBS = [torch, storch]


def _nan_backward(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    return (x.sqrt() * 0).sum(), x  # sqrt's backward: 0 / (2 * sqrt(0)) = NaN


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "strided"])
def test_detect_anomaly_raises_naming_the_node(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            assert lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
            y, _ = _nan_backward(lib)
            with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' returned nan values in its "
                                                   r"0th output\."):
                y.backward()
    assert not lib.is_anomaly_enabled()


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "strided"])
def test_set_detect_anomaly_function_and_context(lib):
    lib.autograd.set_detect_anomaly(True)
    try:
        assert lib.is_anomaly_enabled()
    finally:
        lib.autograd.set_detect_anomaly(False)
    assert not lib.is_anomaly_enabled()
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        y, x = _nan_backward(lib)
        y.backward()  # no check: the NaN reaches .grad
        assert x.grad.isnan().tolist() == [True, False]
    assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()


def test_detect_anomaly_warns_as_torch():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with storch.autograd.detect_anomaly():
            pass


def test_anomaly_mode_leaves_finite_gradients_alone():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grads = []
        for lib in LIBS:
            with lib.autograd.detect_anomaly():
                a = lib.tensor([1.0, 2.0], requires_grad=True)
                w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
                (w @ a).tanh().pow(2).sum().backward()
                grads.append((a.grad.tolist(), w.grad.tolist()))
    # (float32: 1 - tanh^2 near tanh = +-1 loses digits to cancellation; a few ulps of the
    # inputs' rounding become ~1e-6 relative there)
    np.testing.assert_allclose(np.array(grads[1][0]), np.array(grads[0][0]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.array(grads[1][1]), np.array(grads[0][1]), rtol=1e-5, atol=1e-6)
