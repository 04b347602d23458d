"""strided.torch's channel-wise and alpha dropouts (nn.functional, torch.* and the modules),
tested by their properties, as PyTorch 2.13 defines them: which elements are zeroed (whole
channels), the fraction dropped, the scale of the kept ones, alpha dropout's affine values and
self-normalisation, the identity when not training, in-place writes, the gradient (the mask),
and PyTorch's warnings and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as storch
from _parity import to_numpy

ALPHA = 1.7580993408473766


def _ones(L, shape, dtype="float64", grad=False):
    return L.ones(shape, dtype=getattr(L, dtype), requires_grad=grad)


def _channel_masks(v, shape, batch_dims):
    """(the per-channel value set, reshaped (channels, rest)) after checking each channel is
    constant."""
    per = v.reshape(int(np.prod(shape[:batch_dims])), -1)
    assert np.all(per == per[:, :1]), "a channel is not dropped as a whole"
    return per[:, 0]


CASES = [  # (function, shape, number of leading (batch, channel) dims the mask spans)
    ("dropout1d", (40, 30, 3), 2), ("dropout1d", (600, 3), 1),
    ("dropout2d", (20, 30, 2, 2), 2), ("dropout2d", (20, 30, 3), 2),
    ("dropout3d", (10, 60, 2, 1, 2), 2), ("dropout3d", (600, 2, 1, 2), 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,shape,k", CASES)
@pytest.mark.parametrize("p", [0.2, 0.5])
def test_channel_dropout_masks(name, shape, k, p, dtype):
    x = _ones(storch, shape, dtype, grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = getattr(storch.nn.functional, name)(x, p)
    assert y.dtype == x.dtype and tuple(y.shape) == shape
    v = to_numpy(y)
    ch = _channel_masks(v, shape, k)
    assert set(np.unique(ch)).issubset({0.0, np.float32(1 / (1 - p)) if dtype == "float32"
                                        else 1 / (1 - p)})
    frac = np.mean(ch == 0)
    sd = math.sqrt(p * (1 - p) / ch.size)
    assert abs(frac - p) < 5 * sd, (frac, p)
    y.sum().backward()  # the gradient is the mask
    np.testing.assert_array_equal(to_numpy(x.grad), v)


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                                  "feature_alpha_dropout"])
def test_identity_when_not_training(name):
    shape = {"dropout1d": (2, 3, 4), "dropout2d": (2, 3, 4, 4), "dropout3d": (2, 3, 1, 2, 2)}.get(
        name, (2, 3, 4))
    for L in (torch, storch):
        x = L.ones(shape)
        assert getattr(L.nn.functional, name)(x, 0.5, False) is x
        assert getattr(L.nn.functional, name)(x, 0.0, True) is x
        if name.startswith("dropout"):
            assert getattr(L.nn.functional, name)(x, 0.0) is x
        else:  # (alpha dropouts default to training=False)
            assert getattr(L.nn.functional, name)(x, 0.5) is x


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                                  "feature_alpha_dropout"])
def test_p_one_zeroes(name):
    shape = {"dropout3d": (2, 3, 1, 2, 2)}.get(name, (2, 3, 4))
    for L in (torch, storch):
        x = -L.ones(shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = getattr(L.nn.functional, name)(x, 1.0, True)
        v = to_numpy(y)
        assert np.all(v == 0) and np.all(np.signbit(v))  # (x * 0: -0.0, as PyTorch)


@pytest.mark.parametrize("name,shape", [("dropout1d", (3, 50, 4)), ("dropout2d", (3, 50, 2, 2)),
                                        ("dropout3d", (50, 2, 2, 1)),
                                        ("alpha_dropout", (40, 40)),
                                        ("feature_alpha_dropout", (3, 50, 4))])
def test_inplace(name, shape):
    x = storch.ones(shape)
    base = x * 1.0
    y = getattr(storch.nn.functional, name)(base, 0.5, True, True)
    assert y is base
    assert np.any(to_numpy(base) != 1.0)
    # on a non-leaf: the gradient flows through the in-place write
    a = storch.ones(shape, requires_grad=True)
    b = a * 2.0
    getattr(storch.nn.functional, name)(b, 0.5, True, True)
    b.sum().backward()
    g = to_numpy(a.grad)
    scale = 2.0 / 0.5 if "alpha" not in name else 2.0 / math.sqrt((ALPHA ** 2 * 0.5 + 1) * 0.5)
    assert np.all(np.isclose(g, 0.0) | np.isclose(g, scale, rtol=1e-6))
    assert np.any(g == 0) and np.any(g != 0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.1, 0.5])
def test_alpha_dropout_values_and_moments(p, dtype):
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((400, 100)).astype(dtype)
    x = storch.tensor(xn, requires_grad=True)
    y = storch.nn.functional.alpha_dropout(x, p, training=True)
    a = 1.0 / math.sqrt((ALPHA ** 2 * p + 1) * (1 - p))
    v = to_numpy(y)
    dropped_value = -ALPHA * a * (1 - p)
    kept = np.abs(v - (a * xn + ALPHA * a * p)) < 1e-5
    dropped = np.abs(v - dropped_value) < 1e-5
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - p) < 5 * math.sqrt(p * (1 - p) / v.size)
    # self-normalising: zero mean, unit variance kept, as PyTorch's
    ref = to_numpy(torch.nn.functional.alpha_dropout(torch.tensor(xn), p, True))
    assert abs(v.mean() - ref.mean()) < 0.02 and abs(v.std() - ref.std()) < 0.02
    assert abs(v.mean()) < 0.03 and abs(v.std() - 1.0) < 0.03
    y.sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), np.where(kept, a, 0.0), rtol=1e-6)


def test_feature_alpha_dropout_channels():
    x = storch.zeros(30, 40, 5)
    y = to_numpy(storch.nn.functional.feature_alpha_dropout(x, 0.3, True))
    ch = _channel_masks(y, (30, 40, 5), 2)
    assert len(np.unique(ch)) == 2
    assert abs(np.mean(ch == ch.min()) - 0.3) < 0.06


def test_dropout2d_warnings_and_dims():
    for L in (torch, storch):
        with pytest.warns(UserWarning, match="assuming that channel-wise 1D dropout"):
            L.nn.functional.dropout2d(L.ones(2, 3, 4), 0.5)
        with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
            y = L.nn.functional.dropout2d(L.ones(50, 40), 0.5)
        assert tuple(y.shape) == (50, 40)
        with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
            y3 = L.nn.functional.dropout3d(L.ones(60, 2, 3), 0.5)
        _channel_masks(to_numpy(y3), (60, 2, 3), 1)  # (unsqueezed: channels are dimension 0)
        with pytest.warns(UserWarning):
            with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
                L.nn.functional.dropout2d(L.ones(3), 0.5)


def test_errors_as_pytorch():
    for L in (torch, storch):
        F = L.nn.functional
        for name in ("dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"):
            with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
                getattr(F, name)(L.ones(2, 3, 4, 4), 1.5)
        with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
            F.dropout1d(L.ones(4), 0.5)
        with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
            F.feature_alpha_dropout(L.ones(3), 0.5, True)
        with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
            L.dropout(L.ones(3), 1.5, True)
        with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
            L.feature_dropout(L.ones(3), 0.5, True)
        with pytest.raises(TypeError):
            L.dropout(L.ones(3), 0.5)  # (train is required)
        for name in ("Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
            with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
                getattr(L.nn, name)(2)


@pytest.mark.parametrize("name", ["dropout", "feature_dropout", "alpha_dropout",
                                  "feature_alpha_dropout"])
def test_torch_level(name):
    x = storch.ones(20, 50, 3)
    assert getattr(storch, name)(x, 0.5, False) is x
    assert getattr(storch, name)(input=x, p=0.5, train=False) is x
    y = to_numpy(getattr(storch, name)(x, 0.5, True))
    if name.startswith("feature"):
        _channel_masks(y, (20, 50, 3), 2)
    vals = np.unique(np.round(y, 5))
    assert len(vals) == 2
    if "alpha" not in name:
        assert set(vals) == {0.0, 2.0}
    b = x * 1.0
    assert getattr(storch, name + "_")(b, 0.5, True) is b and len(np.unique(to_numpy(b))) == 2


@pytest.mark.parametrize("name,shape", [("Dropout1d", (4, 30, 3)), ("Dropout2d", (4, 30, 2, 2)),
                                        ("Dropout3d", (4, 30, 1, 2, 2)),
                                        ("AlphaDropout", (30, 30)),
                                        ("FeatureAlphaDropout", (4, 30, 3))])
def test_modules(name, shape):
    m = getattr(storch.nn, name)(0.4)
    assert repr(m) == repr(getattr(torch.nn, name)(0.4))
    assert repr(getattr(storch.nn, name)(0.3, True)) == repr(getattr(torch.nn, name)(0.3, True))
    x = storch.ones(shape)
    y = to_numpy(m(x))
    assert len(np.unique(np.round(y, 5))) == 2
    m.eval()
    assert m(x) is x
