"""``pad`` and ``gradient`` (NumPy's, extensions beyond the standard) against NumPy,
finite differences and PyTorch; they are composites, so devices, autograd and
names come from the namespace functions they call.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided.autograd import gradcheck
from conftest import host

MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]


def _values(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _on(a):
    """A NumPy array as a strided array on the default device."""
    return xp.asarray(a)


# --- pad -------------------------------------------------------------------------------------

@st.composite
def _pad_case(draw):
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)))
    widths = tuple((draw(st.integers(0, 7)), draw(st.integers(0, 7))) for _ in range(nd))
    mode = draw(st.sampled_from(MODES))
    return shape, widths, mode


@settings(max_examples=80, deadline=None)
@given(_pad_case())
def test_pad_matches_numpy(case):
    shape, widths, mode = case
    a = _values(shape)
    try:
        expected = np.pad(a, widths, mode=mode)
    except ValueError:  # NumPy refuses to extend an empty axis except in constant mode
        with pytest.raises(ValueError, match="empty axis"):
            xp.pad(_on(a), widths, mode=mode)
        return
    r = xp.pad(_on(a), widths, mode=mode)
    assert r.shape == expected.shape
    assert r.dtype == xp.float64
    np.testing.assert_array_equal(host(r), expected)


@pytest.mark.parametrize("pad_width", [0, 2, (3,), (1, 2), ((1, 2),), ((1,), (2,)), [[0, 3], [2, 1]],
                                       np.array([[1, 0], [0, 4]])])
@pytest.mark.parametrize("mode", MODES)
def test_pad_width_spellings(pad_width, mode):
    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(host(xp.pad(_on(a), pad_width, mode=mode)), np.pad(a, pad_width, mode=mode))


@pytest.mark.parametrize("pad_width", [{0: 2}, {1: (0, 3)}, {-1: (1, 2), 0: (3, 0)}, {}])
@pytest.mark.parametrize("mode", MODES)
def test_pad_width_as_a_dict(pad_width, mode):
    a = np.arange(12.0).reshape(3, 4)
    # The reference: NumPy's pad with the dict spelled as the per-axis sequence it stands for
    # (NumPy >= 2.4 takes the dict itself; the oldest supported NumPy does not).
    widths = [(0, 0)] * a.ndim
    for ax, w in pad_width.items():
        widths[ax % a.ndim] = (w, w) if isinstance(w, int) else tuple(w)
    ref = np.pad(a, widths, mode=mode)
    np.testing.assert_array_equal(host(xp.pad(_on(a), pad_width, mode=mode)), ref)
    np.testing.assert_array_equal(host(np.pad(_on(a), pad_width, mode=mode)), ref)


def test_pad_width_dict_by_dimension_name():
    x = xp.asarray(np.arange(6.0).reshape(2, 3), names=("y", "x"))
    r = xp.pad(x, {"x": (1, 0)}, mode="edge")
    assert r.names == ("y", "x")
    np.testing.assert_array_equal(host(r), np.pad(np.arange(6.0).reshape(2, 3), ((0, 0), (1, 0)), mode="edge"))
    with pytest.raises(IndexError):
        xp.pad(x, {2: 1})


@pytest.mark.parametrize("values", [1.5, (1, 2), ((1, 2), (3, 4)), [[-1], [7]]])
def test_pad_constant_values(values):
    a = np.arange(6).reshape(2, 3)
    r = xp.pad(_on(a), ((1, 2), (2, 1)), constant_values=values)
    assert r.dtype == xp.int64  # the values are cast to x's dtype, as NumPy (1.5 -> 1)
    np.testing.assert_array_equal(host(r), np.pad(a, ((1, 2), (2, 1)), constant_values=values))


def test_pad_keeps_dtype_and_noncontiguous_input():
    a = np.arange(24, dtype=np.int16).reshape(4, 6)
    x = _on(a)[::-2, 1::2]  # a negative-stride, non-contiguous view
    for mode in MODES:
        r = xp.pad(x, ((2, 3), (4, 1)), mode=mode)
        assert r.dtype == xp.int16
        np.testing.assert_array_equal(host(r), np.pad(a[::-2, 1::2], ((2, 3), (4, 1)), mode=mode))
    b = _on(np.array([True, False]))
    np.testing.assert_array_equal(host(xp.pad(b, 2, mode="wrap")), np.pad([True, False], 2, mode="wrap"))


def test_pad_returns_a_copy_and_pads_0d():
    x = _on(np.arange(3.0))
    r = xp.pad(x, 0)
    r[0] = 9.0
    assert host(x)[0] == 0.0
    np.testing.assert_array_equal(host(xp.pad(_on(np.float64(2.5)), 3)), np.pad(np.float64(2.5), 3))


@pytest.mark.parametrize("mode", MODES)
def test_pad_large_array(mode):
    # past the size where one value is filled everywhere at once: each side written apart
    a = _values((300, 250), seed=2)
    np.testing.assert_array_equal(host(xp.pad(_on(a), ((3, 1), (2, 4)), mode=mode)),
                                  np.pad(a, ((3, 1), (2, 4)), mode=mode))


def test_pad_empty_mode_shape_and_interior():
    a = np.arange(6.0).reshape(2, 3)
    r = xp.pad(_on(a), ((1, 2), (0, 1)), mode="empty")
    assert r.shape == (5, 4)
    np.testing.assert_array_equal(host(r)[1:3, 0:3], a)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"pad_width": -1}, ValueError, r"axis 0 is \(-1, -1\)"),
    ({"pad_width": ((0, 0), (2, -3))}, ValueError, r"axis 1 is \(2, -3\)"),
    ({"pad_width": ((1, 2), (3, 4), (5, 6))}, ValueError, "2 dimensions"),
    ({"pad_width": 1.5}, TypeError, "integers"),
    ({"pad_width": 1, "mode": "mean"}, ValueError, "mode 'mean' is not supported"),
    ({"pad_width": 1, "mode": "edge", "constant_values": 3}, ValueError, "mode='constant' only"),
    ({"pad_width": 1, "constant_values": "a"}, TypeError, "numbers"),
])
def test_pad_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        xp.pad(_on(np.zeros((2, 3))), **kwargs)


def test_pad_empty_axis_error_names_the_axis():
    with pytest.raises(ValueError, match="empty axis 1"):
        xp.pad(_on(np.zeros((2, 0))), 1, mode="reflect")
    # padding only the non-empty axis is fine, as in NumPy
    assert xp.pad(_on(np.zeros((2, 0))), ((1, 1), (0, 0)), mode="edge").shape == (4, 0)
    with pytest.raises(TypeError, match="strided array"):
        xp.pad(np.zeros(3), 1)


@pytest.mark.parametrize("mode", MODES)
def test_pad_gradient_by_finite_differences(mode):
    x = _on(_values((3, 4), seed=1)).requires_grad_()
    assert gradcheck(lambda t: xp.pad(t, ((2, 5), (1, 3)), mode=mode), (x,))


def test_pad_keeps_names_and_records_autograd():
    x = xp.zeros((2, 3), names=("a", "b"), dtype=xp.float64).requires_grad_()
    for mode in MODES:
        r = xp.pad(x, 2, mode=mode)
        assert r.names == ("a", "b")
        assert r.requires_grad


def test_pad_matches_array_api_extra():
    xpx = pytest.importorskip("array_api_extra")
    a = np.arange(6.0).reshape(2, 3)
    for args, kw in [((2,), {"constant_values": 1.5}), ((((1, 0), (0, 2)),), {})]:
        np.testing.assert_array_equal(host(xp.pad(_on(a), *args, **kw)), host(xpx.pad(_on(a), *args, **kw)))


_TORCH_MODES = {"constant": "constant", "edge": "replicate", "reflect": "reflect", "wrap": "circular"}


@pytest.mark.parametrize("mode", list(_TORCH_MODES))
def test_pad_matches_torch_values_and_gradients(mode):
    torch = pytest.importorskip("torch")
    a = _values((2, 3, 5), seed=3)
    u = _values((2, 3, 5 + 3 + 2), seed=4)
    t = torch.tensor(a, requires_grad=True)
    out_t = torch.nn.functional.pad(t, (3, 2), mode=_TORCH_MODES[mode])
    (out_t * torch.tensor(u)).sum().backward()
    x = _on(a).requires_grad_()
    out = xp.pad(x, ((0, 0), (0, 0), (3, 2)), mode=mode)
    xp.sum(out * _on(u)).backward()
    np.testing.assert_allclose(host(out.detach()), out_t.detach().numpy())
    np.testing.assert_allclose(host(x.grad), t.grad.numpy(), rtol=1e-12)


def test_numpy_pad_reaches_strided():
    a = np.arange(6.0).reshape(2, 3)
    for kw in ({}, {"mode": "symmetric"}, {"mode": "constant", "constant_values": 7},
               {"mode": "reflect", "reflect_type": "even"}):
        r = np.pad(_on(a), 2, **kw)
        assert isinstance(r, xp.Array)
        np.testing.assert_array_equal(host(r), np.pad(a, 2, **kw))
    # A mode strided does not implement: NumPy's own pad on the CPU (through __array__),
    # a TypeError naming the argument on another device.
    x = _on(a)
    if x.device != "cpu":
        with pytest.raises(TypeError, match="stat_length"):
            np.pad(x, 1, mode="maximum", stat_length=2)
        return
    r = np.pad(x, 1, mode="maximum", stat_length=2)
    assert isinstance(r, xp.Array)
    np.testing.assert_array_equal(host(r), np.pad(a, 1, mode="maximum", stat_length=2))


# --- gradient ----------------------------------------------------------------------------------

@st.composite
def _gradient_case(draw):
    edge_order = draw(st.sampled_from([1, 2]))
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(edge_order + 1, 5), min_size=nd, max_size=nd)))
    axis = draw(st.sampled_from([None, 0, -1, tuple(range(nd))[::-1]]))
    axes = tuple(range(nd)) if axis is None else ((axis % nd,) if type(axis) is int else axis)
    kind = draw(st.sampled_from(["none", "scalar", "per-axis", "coordinates"]))
    if kind == "none":
        spacing = ()
    elif kind == "scalar":
        spacing = (draw(st.sampled_from([0.5, 2.0, 3])),)
    else:
        spacing = []
        for ax in axes:
            if kind == "per-axis" or draw(st.booleans()):
                spacing.append(draw(st.sampled_from([0.25, 1.5, 2])))
            else:
                steps = draw(st.lists(st.floats(0.1, 2.0), min_size=shape[ax] - 1, max_size=shape[ax] - 1))
                spacing.append(np.concatenate([[0.0], np.cumsum(steps)]))
        spacing = tuple(spacing)
    return shape, axis, spacing, edge_order


@settings(max_examples=80, deadline=None)
@given(_gradient_case())
def test_gradient_matches_numpy(case):
    shape, axis, spacing, edge_order = case
    a = _values(shape, seed=5)
    expected = np.gradient(a, *spacing, axis=axis, edge_order=edge_order)
    ours = xp.gradient(_on(a), *(_on(s) if isinstance(s, np.ndarray) else s for s in spacing),
                       axis=axis, edge_order=edge_order)
    if isinstance(expected, np.ndarray):
        assert isinstance(ours, xp.Array)  # one axis: one array, as NumPy
        expected, ours = (expected,), (ours,)
    assert type(ours) is tuple and len(ours) == len(expected)
    for r, e in zip(ours, expected):
        assert r.dtype == xp.float64
        np.testing.assert_allclose(host(r), e, rtol=1e-12, atol=1e-12)


def test_gradient_coordinates_as_lists_and_integer_coordinates():
    a = np.array([1.0, 4.0, 9.0, 16.0, 30.0])
    coords = [0, 1, 3, 4, 7]
    np.testing.assert_allclose(host(xp.gradient(_on(a), coords)), np.gradient(a, coords))
    np.testing.assert_allclose(host(xp.gradient(_on(a), _on(np.array(coords)), edge_order=2)),
                               np.gradient(a, np.array(coords), edge_order=2))


def test_gradient_dtypes():
    f32 = np.array([1.0, 3.0, 2.0, 8.0], dtype=np.float32)
    r = xp.gradient(_on(f32), _on(np.array([0.0, 0.5, 2.0, 2.5])))
    assert r.dtype == xp.float32  # f's dtype, as NumPy (coordinates don't promote the result)
    np.testing.assert_allclose(host(r), np.gradient(f32, np.array([0.0, 0.5, 2.0, 2.5])), rtol=1e-6)
    r = xp.gradient(_on(np.array([1, 4, 9, 16])))
    assert r.dtype == xp.get_default_dtype()  # integer input: the default floating dtype
    np.testing.assert_allclose(host(r), np.gradient(np.array([1, 4, 9, 16])))
    c = np.array([1 + 2j, 3 - 1j, 0.5j])
    np.testing.assert_allclose(host(xp.gradient(_on(c))), np.gradient(c))


@pytest.mark.parametrize("call, error, match", [
    (lambda f: xp.gradient(f[:1]), ValueError, "axis 0 has 1 elements"),
    (lambda f: xp.gradient(f[:2], edge_order=2), ValueError, "at least 3"),
    (lambda f: xp.gradient(f, edge_order=3), ValueError, "edge_order must be 1 or 2"),
    (lambda f: xp.gradient(f, [0.0, 1.0]), ValueError, "length 2; the axis has 4"),
    (lambda f: xp.gradient(f, _on(np.zeros((2, 2)))), ValueError, "1-D coordinates"),
    (lambda f: xp.gradient(f, 1.0, 2.0), TypeError, "one spacing per axis"),
    (lambda f: xp.gradient(f, axis=0, dim=0), TypeError, "not both"),
    (lambda f: xp.gradient(f, 1.0, spacing=1.0), TypeError, "not both"),
    (lambda f: xp.gradient(f, axis=1), IndexError, "axis 1 is out of bounds"),
    (lambda f: xp.gradient(f[0]), ValueError, "0-d"),
])
def test_gradient_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(_on(np.array([1.0, 2.0, 4.0, 8.0])))


def test_gradient_autograd_by_finite_differences():
    f = _on(_values((4, 5), seed=6)).requires_grad_()
    for edge_order in (1, 2):
        assert gradcheck(lambda t: xp.gradient(t, 0.5, axis=1, edge_order=edge_order), (f,))
        assert gradcheck(lambda t: xp.gradient(t, edge_order=edge_order), (f,))
    coords = _on(np.array([0.0, 0.3, 1.0, 1.2, 2.0])).requires_grad_()
    assert gradcheck(lambda t, c: xp.gradient(t, c, axis=1, edge_order=2), (f, coords))


def test_gradient_keeps_names():
    f = xp.asarray(_values((3, 4)), names=("y", "x"))
    gy, gx = xp.gradient(f)
    assert gy.names == gx.names == ("y", "x")
    np.testing.assert_allclose(host(xp.gradient(f, axis="x")), np.gradient(_values((3, 4)), axis=1))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_torch(edge_order):
    torch = pytest.importorskip("torch")
    a = _values((4, 6), seed=7)
    coords = np.array([0.0, 0.5, 1.5, 1.75, 3.0, 4.0])
    cases = [({}, {}), ({"spacing": 2.0}, {"spacing": 2.0}), ({"spacing": [0.5, 3.0]}, {"spacing": [0.5, 3.0]}),
             ({"spacing": (_on(coords),), "dim": 1}, {"spacing": (torch.tensor(coords),), "dim": 1}),
             ({"dim": 0}, {"dim": 0}), ({"dim": [1, 0]}, {"dim": [1, 0]})]
    for ours_kw, torch_kw in cases:
        expected = torch.gradient(torch.tensor(a), edge_order=edge_order, **torch_kw)
        ours = xp.gradient(_on(a), edge_order=edge_order, **ours_kw)
        assert type(ours) is tuple and len(ours) == len(expected)  # always a tuple, as torch
        for r, e in zip(ours, expected):
            np.testing.assert_allclose(host(r), e.numpy(), rtol=1e-12, atol=1e-12)


def test_numpy_gradient_reaches_strided():
    a = _values((3, 5), seed=8)
    r = np.gradient(_on(a), 2.0, [0.0, 1.0, 1.5, 3.0, 4.0], edge_order=2)
    e = np.gradient(a, 2.0, [0.0, 1.0, 1.5, 3.0, 4.0], edge_order=2)
    assert type(r) is tuple and all(isinstance(v, xp.Array) for v in r)
    for v, w in zip(r, e):
        np.testing.assert_allclose(host(v), w, rtol=1e-12)
    r = np.gradient(_on(a), axis=1)
    assert isinstance(r, xp.Array)
    np.testing.assert_allclose(host(r), np.gradient(a, axis=1))


def test_gradient_with_evenly_spaced_coordinates():
    # NumPy takes the uniform formulas for them (strided too, on the host); on other
    # devices the general formulas agree up to rounding
    a = _values((3, 6), seed=9)
    coords = np.arange(6) * 0.5
    for edge_order in (1, 2):
        np.testing.assert_allclose(host(xp.gradient(_on(a), _on(coords), axis=1, edge_order=edge_order)),
                                   np.gradient(a, coords, axis=1, edge_order=edge_order), rtol=1e-12)


@pytest.mark.skipif(str(xp.asarray(0).device) == "cpu", reason="host copies are counted on a cuda device only")
def test_no_host_copies_on_a_device():
    cupy = pytest.importorskip("cupy")
    backend = xp.asarray(0).device.backend
    x = _on(_values((5, 6), seed=10)).requires_grad_()
    coords = _on(np.array([0.0, 0.5, 1.5, 2.0, 3.5, 4.0]))
    backend.d2h_copies = 0
    if hasattr(cupy.cuda, "d2h_copies"):
        cupy.cuda.d2h_copies = 0
    outs = [xp.pad(x, ((1, 7), (2, 0)), mode=m) for m in MODES]
    outs += list(xp.gradient(x, 0.5, coords, edge_order=2))
    xp.sum(xp.stack([xp.sum(o) for o in outs])).backward()
    assert getattr(cupy.cuda, "d2h_copies", backend.d2h_copies) == 0
