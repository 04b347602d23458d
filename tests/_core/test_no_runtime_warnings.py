"""strided's own arithmetic reports no NumPy RuntimeWarning, whatever the user's
warnings filters: the standard specifies IEEE results (inf, nan), PyTorch does not
warn, and a test suite run with ``-W error`` (SciPy's is) must not fail on them.

Every case runs under ``warnings.simplefilter("error")`` set *after* strided was
imported (a user's filter goes in front of strided's own module filter) and is
compared with NumPy's result under ``np.errstate(all="ignore")``. CI runs this file
with the compiled hot path and with STRIDED_NO_CEXT=1 (the Python definitions).
"""

import warnings

import numpy as np
import pytest

import strided as xp

from conftest import assert_close, cpu_only

SPECIAL = [np.inf, -np.inf, np.nan, 0.0, -0.0, -1.0, 1.0, 1e38, -1e38, 3.0]
UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh",
         "exp", "expm1", "floor", "log", "log1p", "log2", "log10", "negative", "reciprocal",
         "round", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc"]
BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
          "divide": np.divide, "remainder": np.remainder,
          "pow": np.power, "atan2": np.arctan2, "hypot": np.hypot, "logaddexp": np.logaddexp,
          "maximum": np.maximum, "minimum": np.minimum}
NUMPY_NAME = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
              "atan": "arctan", "atanh": "arctanh"}


@pytest.fixture
def strict_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def expect(got, want, ulps=0, signed_zeros=True):
    """NumPy's answer: its bits on the CPU; on another device, within ``ulps`` (a number,
    or the function's name: its documented bound) where the standard leaves the bits open.
    ``want`` is taken in ``got``'s dtype and shape (a scalar or a float64 list says values)."""
    want = np.broadcast_to(np.asarray(want, dtype=got.dtype._np), tuple(got.shape))
    assert_close(got, want, ulps=ulps, signed_zeros=signed_zeros)


def numpy_quiet(f, *args):
    with np.errstate(all="ignore"):
        return f(*args)


@pytest.mark.parametrize("n", [len(SPECIAL), 300_000])  # the small path and the large one
@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_and_methods(strict_warnings, name, n):
    a = np.resize(np.array(SPECIAL, np.float32), n)
    want = numpy_quiet(getattr(np, NUMPY_NAME.get(name, name)), a)
    expect(getattr(xp, name)(xp.asarray(a)), want, ulps=name)
    if name == "sign":  # (the methods are PyTorch's sign: 0 for NaN)
        want = np.where(np.isnan(a), np.float32(0), want)
    expect(getattr(xp.asarray(a), name)(), want, ulps=name)
    x = xp.asarray(a)
    getattr(x, name + "_")()  # in place
    expect(x, want, ulps=name)


@pytest.mark.parametrize("n", [len(SPECIAL), 300_000])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_functions_and_operators(strict_warnings, name, n):
    a = np.resize(np.array(SPECIAL, np.float64), n)
    b = np.resize(np.array(SPECIAL[::-1], np.float64), n)
    want = numpy_quiet(BINARY[name], a, b)
    # the sign of maximum(-0., 0.) is the implementation's (NumPy's operand order on the CPU)
    zeros = name not in ("maximum", "minimum")
    expect(getattr(xp, name)(xp.asarray(a), xp.asarray(b)), want, ulps=name, signed_zeros=zeros)
    expect(getattr(xp, name)(xp.asarray(a), 0.0), numpy_quiet(BINARY[name], a, 0.0), ulps=name,
           signed_zeros=zeros)


def test_floor_divide_special_cases(strict_warnings):
    # the standard's special cases (NumPy gives nan for the infinite ones; PyTorch agrees
    # with the standard)
    x = xp.floor_divide(xp.asarray([np.inf, -np.inf, 1.0, -1.0, 0.0]), xp.asarray([3.0, 3.0, 0.0, 0.0, 0.0]))
    expect(x, np.array([np.inf, -np.inf, np.inf, -np.inf, np.nan]))


def test_operators_reflected_and_in_place(strict_warnings):
    a = np.array(SPECIAL)
    x = xp.asarray(a)
    expect(x / 0.0, numpy_quiet(np.divide, a, 0.0))
    expect(1.0 / x, numpy_quiet(np.divide, 1.0, a))
    expect(x ** 1e10, numpy_quiet(np.power, a, 1e10))
    expect(x % 0.0, numpy_quiet(np.remainder, a, 0.0))
    y = xp.asarray(a)
    y /= 0.0
    expect(y, numpy_quiet(np.divide, a, 0.0))
    y = xp.asarray(a)
    y *= 1e308
    expect(y, numpy_quiet(np.multiply, a, 1e308))


def test_reductions_and_statistics(strict_warnings):
    big = np.full(10, 1e38, np.float32)
    expect(xp.sum(xp.asarray(big)), numpy_quiet(np.sum, big))
    expect(xp.asarray(big).sum(), numpy_quiet(np.sum, big))
    assert np.isnan(float(xp.mean(xp.asarray(np.zeros(0)))))
    # the standard: NaN where the degrees of freedom are <= 0
    assert np.isnan(float(xp.var(xp.asarray([1.0]), correction=1)))
    assert np.isnan(float(xp.std(xp.asarray([1.0, 2.0]), correction=2)))
    expect(xp.prod(xp.asarray(big)), numpy_quiet(np.prod, big))
    expect(xp.linalg.vector_norm(xp.asarray([1e300, 1e300])), np.inf)
    assert np.isnan(float(xp.nanmean(xp.asarray([np.nan, np.nan]))))


def test_creation_and_casts(strict_warnings):
    with np.errstate(all="ignore"):
        want = np.array([1e300, -1e300]).astype(np.float32)
    expect(xp.asarray([1e300, -1e300], dtype=xp.float32), want)
    expect(xp.full(3, 1e300, dtype=xp.float32), np.full(3, np.inf, np.float32))
    x = xp.zeros(3, dtype=xp.float32)
    x[0] = 1e300  # __setitem__ casts
    expect(x, np.array([np.inf, 0, 0], np.float32))
    expect(xp.astype(xp.asarray([1e300]), xp.float32), np.array([np.inf], np.float32))


def test_torch_style_functions(strict_warnings):
    a = np.array([[np.inf, 0.0, -np.inf], [1000.0, 0.0, -1000.0]])
    x = xp.asarray(a)
    with np.errstate(all="ignore"):
        e = np.exp(a - a.max(axis=-1, keepdims=True))
        want = e / e.sum(axis=-1, keepdims=True)
    expect(xp.softmax(x, dim=-1), want)
    expect(x.softmax(-1), want)
    expect(xp.logsumexp(xp.asarray([np.inf, np.inf]), dim=0), np.inf)
    expect(xp.sigmoid(xp.asarray([-1e4, 1e4])), np.array([0.0, 1.0]))


@cpu_only  # NumPy's functions on strided arrays: host memory
def test_numpy_protocols(strict_warnings):
    a = np.array(SPECIAL)
    expect(np.log(xp.asarray(a)), numpy_quiet(np.log, a))
    expect(np.divide(xp.asarray(a), 0.0), numpy_quiet(np.divide, a, 0.0))


def test_autograd_backward(strict_warnings):
    x = xp.asarray([0.0, 4.0], requires_grad=True)
    xp.sqrt(x).sum().backward()
    expect(x.grad, numpy_quiet(lambda v: 0.5 / np.sqrt(v), np.array([0.0, 4.0])))


def test_user_error_state_outside_strided_is_untouched():
    """strided sets the error state for its own calls only: NumPy code the user
    runs next still warns as the user asked."""
    xp.log(xp.asarray([0.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            np.log(np.array([0.0]))
