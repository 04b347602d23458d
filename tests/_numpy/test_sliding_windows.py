"""``Array.unfold`` (PyTorch's) and ``strided.lib.stride_tricks.sliding_window_view``
(NumPy's, which xarray's rolling windows call): views, checked against NumPy and
PyTorch, with gradients against finite differences."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from numpy.lib.stride_tricks import sliding_window_view as np_swv

import strided as xp
from strided.lib.stride_tricks import sliding_window_view
from conftest import host

DEVICE = xp.get_default_device()


@st.composite
def _windows(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    axes = draw(st.one_of(st.none(), st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1,
                                               max_size=3)))
    if axes is None:
        window = tuple(draw(st.integers(0, n)) for n in shape)
    else:
        left = list(shape)
        window = []
        for a in axes:  # a repeated axis shrinks as NumPy's does
            w = draw(st.integers(0, left[a]))
            left[a] -= max(w - 1, 0) if w else -1
            window.append(w)
        window = tuple(window)
    return shape, window, axes


@settings(max_examples=80, deadline=None)
@given(_windows())
def test_sliding_window_view_matches_numpy(case):
    shape, window, axes = case
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    try:
        ref = np_swv(a, window, axis=None if axes is None else tuple(axes))
    except ValueError:
        with pytest.raises(ValueError):
            sliding_window_view(xp.asarray(a, device=DEVICE), window, axis=axes)
        return
    x = xp.asarray(a, device=DEVICE)
    r = sliding_window_view(x, window, axis=axes)
    assert tuple(r.shape) == ref.shape
    np.testing.assert_array_equal(host(r), ref)
    if r.size:
        assert r.storage() is x.storage()  # a view, never a copy


def test_numpy_and_the_namespace_reach_the_same_view(device):
    x = xp.asarray(np.arange(12.0).reshape(3, 4), device=device)
    r = np_swv(x, 2, axis=1)  # NumPy's function on a strided array: strided's view
    assert type(r) is xp.Array and r.storage() is x.storage()
    assert xp.lib.stride_tricks.sliding_window_view is sliding_window_view
    np.testing.assert_array_equal(host(r), np_swv(np.arange(12.0).reshape(3, 4), 2, axis=1))


@pytest.mark.parametrize("shape,dim,size,step", [
    ((7,), 0, 3, 1), ((7,), 0, 3, 2), ((7,), 0, 7, 1), ((7,), 0, 0, 3), ((3, 8), 1, 4, 3),
    ((3, 8), 0, 2, 1), ((2, 3, 5), -1, 2, 2), ((2, 3, 5), 1, 1, 5),
])
def test_unfold_matches_pytorch(shape, dim, size, step, device):
    torch = pytest.importorskip("torch")
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = xp.asarray(a, device=device)
    r = x.unfold(dim, size, step)
    ref = torch.from_numpy(a).unfold(dim, size, step).numpy()
    assert tuple(r.shape) == ref.shape
    np.testing.assert_array_equal(host(r), ref)
    assert r.storage() is x.storage()


def test_unfold_gradient_sums_overlapping_windows(device):
    rng = np.random.default_rng(0)
    for shape, dim, size, step in [((6,), 0, 3, 1), ((6,), 0, 2, 3), ((3, 7), 1, 3, 2), ((4, 3), 0, 2, 1)]:
        x = xp.asarray(rng.normal(size=shape), dtype=xp.float64, device=device, requires_grad=True)
        assert xp.autograd.gradcheck(lambda t: t.unfold(dim, size, step), (x,))
        assert xp.autograd.gradgradcheck(lambda t: t.unfold(dim, size, step) ** 2, (x,))


def test_sliding_window_gradient_counts_each_element_once_per_window(device):
    x = xp.asarray(np.arange(5.0), dtype=xp.float64, device=device, requires_grad=True)
    xp.sum(sliding_window_view(x, 3)).backward()
    np.testing.assert_array_equal(host(x.grad), [1.0, 2.0, 3.0, 2.0, 1.0])


def test_overlapping_windows_are_read_only(device):
    x = xp.zeros(6, device=device)
    w = x.unfold(0, 3, 1)
    with pytest.raises(RuntimeError, match="single memory location"):  # PyTorch's error
        w[...] = 1.0
    with pytest.raises(ValueError, match="writeable"):
        sliding_window_view(x, 2, writeable=True)


def test_unfold_keeps_the_dim_name(device):
    x = xp.asarray(np.arange(12.0).reshape(3, 4), device=device, names=("N", "T"))
    r = x.unfold("T", 2, 2)
    assert r.names == ("N", "T", None) and tuple(r.shape) == (3, 2, 2)
    assert sliding_window_view(x, 2, axis="T").names == ("N", "T", None)


@pytest.mark.parametrize("call,exc,match", [
    (lambda x: x.unfold(0, 7, 1), ValueError, "size 7"),
    (lambda x: x.unfold(0, 2, 0), ValueError, "step"),
    (lambda x: x.unfold(2, 2, 1), (IndexError, ValueError), "2"),
    (lambda x: x.unfold(0, 2.0, 1), TypeError, "size"),
    (lambda x: sliding_window_view(x, (2, 2)), ValueError, "one entry per axis"),
    (lambda x: sliding_window_view(x, -1), ValueError, "negative"),
    (lambda x: sliding_window_view(x, 9, axis=0), ValueError, "larger than axis 0"),
    (lambda x: sliding_window_view(x, 2, axis=(0, 0)), ValueError, "same length"),
    (lambda x: sliding_window_view(x.tolist(), 2), TypeError, "strided array"),
])
def test_bad_windows_name_what_was_wrong(call, exc, match, device):
    with pytest.raises(exc, match=match):
        call(xp.arange(6.0, device=device))
