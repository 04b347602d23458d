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
    f = getattr(xp, name, None)
    if f is None:  # added by issue 18, item 4
        pytest.skip(f"strided has no {name} yet")
    return f


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
    try:
        r = f(x, axis=axis)
    except TypeError as e:
        if "axis" in str(e):
            pytest.skip(f"strided's {name} takes no axis= yet")
        raise
    np.testing.assert_allclose(host(r), getattr(np, name)(EVEN, axis=axis))
