"""What the engines and libraries that call strided's extension functions expect of them.

scikit-learn (``sklearn.utils._array_api._median``) calls ``xp.median(x, axis=,
keepdims=)`` on any namespace but PyTorch's and reads NumPy's median: for an even
count, the mean of the two middle values. xarray calls ``xp.median``,
``xp.quantile`` and ``xp.cumsum(x, axis=)`` the same way. So the *namespace*
functions follow NumPy's semantics with the standard's keywords (``axis``,
``keepdims``), while the PyTorch-style *methods* (``x.median()``, lower median,
``(values, indices)`` with a dim) follow PyTorch, as everywhere else in strided
(docs/torch-differences.md). These tests hold the namespace side to NumPy.
"""

import numpy as np
import pytest

import strided as xp
from conftest import host


def _namespace(name):
    return getattr(xp, name)


EVEN = np.array([[4.0, 1.0, 3.0, 2.0], [8.0, 6.0, 5.0, 7.0]])


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_median_is_numpys_as_scikit_learn_calls_it(device, axis, keepdims):
    median = _namespace("median")
    x = xp.asarray(EVEN, device=device)
    r = median(x, axis=axis, keepdims=keepdims)
    expected = np.median(EVEN, axis=axis, keepdims=keepdims)  # averages the middle pair
    assert type(r) is xp.Array and r.dtype == xp.float64
    np.testing.assert_array_equal(host(r), expected)


def test_median_of_an_even_count_averages_unlike_the_torch_method(device):
    median = _namespace("median")
    x = xp.asarray([1.0, 2.0, 3.0, 4.0], device=device)
    assert float(median(x)) == 2.5
    assert float(x.median()) == 2.0  # PyTorch's method: the lower median


@pytest.mark.parametrize("q", [0.0, 0.25, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_quantile_is_numpys_with_the_standards_keywords(device, q, axis):
    quantile = _namespace("quantile")
    x = xp.asarray(EVEN, device=device)
    r = quantile(x, q, axis=axis, keepdims=False)
    np.testing.assert_allclose(host(r), np.quantile(EVEN, q, axis=axis), rtol=1e-12)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumulative_functions_take_numpys_axis(device, name, axis):
    f = _namespace(name)
    x = xp.asarray(EVEN, device=device)
    r = f(x, axis=axis)
    np.testing.assert_allclose(host(r), getattr(np, name)(EVEN, axis=axis))


@pytest.mark.parametrize("index", [0, 2, -1, np.int64(1)])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_with_an_int_drops_the_axis_as_numpys(device, index, axis):
    # cubed's var/std combine step calls nxp.take(a, 0, axis=...) on its backend
    a = np.arange(24.0).reshape(2, 3, 4)
    if not -a.shape[axis] <= index < a.shape[axis]:
        index = 0
    r = xp.take(xp.asarray(a, device=device), index, axis=axis)
    np.testing.assert_array_equal(host(r), np.take(a, index, axis=axis))


def test_take_with_an_int_keeps_gradients_and_refuses_other_scalars(device):
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=xp.float64, device=device, requires_grad=True)
    xp.sum(xp.take(x, 1, axis=1) * xp.asarray([10.0, 20.0], dtype=xp.float64, device=device)).backward()
    np.testing.assert_array_equal(host(x.grad), [[0.0, 10.0], [0.0, 20.0]])
    for bad in (True, 1.0, "1"):
        with pytest.raises(TypeError, match="take"):
            xp.take(x.detach(), bad, axis=0)


def test_take_with_an_int_drops_the_axis_name(device):
    x = xp.asarray(np.arange(6.0).reshape(2, 3), device=device, names=("N", "C"))
    assert xp.take(x, 1, axis="C").names == ("N",)
    assert xp.take(x, 0, axis=0).names == ("C",)
