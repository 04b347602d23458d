"""PyTorch's promotion of 0-d operands in strided.torch's functions and Array's PyTorch-style
methods, against PyTorch itself: a 0-d tensor beside a dimensioned one decides the dtype only
where its kind is higher (``torch.add(float16 (3,), tensor(2.0))`` is float16)."""

import itertools
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402
from strided.torch import _promotion  # noqa: E402

from _parity import to_numpy  # noqa: E402

DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "bool", "complex64"]


def _values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("int8", "int32", "int64", "uint8"):
        return rng.integers(1, 5, shape).astype(dtype)
    if dtype == "complex64":
        return (rng.uniform(0.5, 3, shape) + 1j * rng.uniform(0.5, 3, shape)).astype(dtype)
    return rng.uniform(0.5, 3, shape).astype(dtype)


def _mk(lib, dtype, shape, seed):
    return lib.tensor(_values(dtype, shape, seed))


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call()
        except Exception as e:  # noqa: BLE001 - the outcome compared is the failure itself
            return e


def _torch_dtype(d):
    return str(d).replace("torch.", "")


def _compare(s, t, what, same_dtype_call=None):
    """strided.torch's outcome ``s`` against PyTorch's ``t``. Where strided refuses, the
    refusal must be the dtype's, not the promotion's: ``same_dtype_call(dtype)`` (the call
    with every operand of PyTorch's result dtype, dimensioned) must refuse too."""
    if isinstance(t, Exception):
        return  # (PyTorch's refusals are other tests' subject; here, the dtypes it gives)
    if isinstance(s, Exception) and same_dtype_call is not None \
            and isinstance(_outcome(lambda: same_dtype_call(_torch_dtype(t.dtype))), Exception):
        return
    if "float16" in what and "complex" in what:  # (PyTorch computes in ComplexHalf, which
        assert isinstance(s, TypeError) and "complex32" in str(s), (what, s)  # strided lacks)
        return
    assert not isinstance(s, Exception), f"{what}: PyTorch gives {t.dtype}; strided.torch raised {s!r}"
    assert str(s.dtype) == _torch_dtype(t.dtype), f"{what}: {s.dtype} vs PyTorch's {t.dtype}"
    np.testing.assert_allclose(to_numpy(s).astype(complex), t.numpy().astype(complex), rtol=2e-3, atol=1e-3,
                               err_msg=what)


def _pairs():
    for d1, d2 in itertools.product(DTYPES, DTYPES):
        if d1 != d2:
            yield d1, d2


BINARY = sorted(n for n, spec in _promotion.FUNCTIONS.items() if len(spec) == 2 and n != "where"
                and hasattr(torch, n))


@pytest.mark.parametrize("name", BINARY)
def test_functions_promote_a_0d_operand_as_pytorch(name):
    for (d1, d2), (s1, s2) in itertools.product(_pairs(), [((3,), ()), ((), (3,))]):
        t = _outcome(lambda: getattr(torch, name)(_mk(torch, d1, s1, 1), _mk(torch, d2, s2, 2)))
        s = _outcome(lambda: getattr(st, name)(_mk(st, d1, s1, 1), _mk(st, d2, s2, 2)))
        _compare(s, t, f"torch.{name}({d1}{list(s1)}, {d2}{list(s2)})",
                 lambda d: getattr(st, name)(_mk(st, d, (3,), 1), _mk(st, d, (3,), 2)))


@pytest.mark.parametrize("name", [n for n in BINARY if hasattr(torch.Tensor, n)])
def test_methods_promote_a_0d_operand_as_pytorch(name):
    for (d1, d2), (s1, s2) in itertools.product(_pairs(), [((3,), ()), ((), (3,))]):
        t = _outcome(lambda: getattr(_mk(torch, d1, s1, 1), name)(_mk(torch, d2, s2, 2)))
        s = _outcome(lambda: getattr(_mk(st, d1, s1, 1), name)(_mk(st, d2, s2, 2)))
        _compare(s, t, f"Tensor.{name}({d1}{list(s1)}, {d2}{list(s2)})",
                 lambda d: getattr(_mk(st, d, (3,), 1), name)(_mk(st, d, (3,), 2)))


@pytest.mark.parametrize("name", ["where", "addcmul", "addcdiv"])
def test_three_operand_functions_and_methods(name):
    for (d1, d2), (s1, s2) in itertools.product(_pairs(), [((3,), ()), ((), (3,))]):
        def fn(lib):
            a, b = _mk(lib, d1, s1, 1), _mk(lib, d2, s2, 2)
            if name == "where":
                c = lib.tensor(np.array([True, False, True]))
                return lambda: lib.where(c, a, b), lambda: a.where(c, b)
            return (lambda: getattr(lib, name)(a, b, b, value=2),
                    lambda: getattr(a, name)(b, b, value=2))
        for k, what in enumerate(("function", "method")):
            _compare(_outcome(fn(st)[k]), _outcome(fn(torch)[k]),
                     f"{name} ({what}) of {d1}{list(s1)}, {d2}{list(s2)}")


def test_keyword_operands_and_out():
    a16 = st.ones(3, dtype=st.float16)
    z = st.tensor(2.5, dtype=st.float64)
    assert st.where(st.tensor([True, False, True]), input=a16, other=z).dtype == st.float16
    out = st.empty(3, dtype=st.float16)
    r = st.mul(a16, z, out=out)
    assert r is out and out.tolist() == [2.5, 2.5, 2.5]
    # (PyTorch's: the same)
    t_out = torch.empty(3, dtype=torch.float16)
    torch.mul(torch.ones(3, dtype=torch.float16), torch.tensor(2.5, dtype=torch.float64), out=t_out)
    assert t_out.tolist() == out.tolist()


def test_the_gradient_of_a_0d_leaf_keeps_its_dtype():
    def run(lib):
        w = lib.tensor(np.array([0.5, -1.0, 2.0], np.float32), requires_grad=True)
        s = lib.tensor(np.float64(1.5), requires_grad=True)
        y = lib.mul(w, s)
        assert _torch_dtype(y.dtype) == "float32"
        lib.add(y, s).sum().backward()
        return w.grad, s.grad
    (sw, ss), (tw, ts) = run(st), run(torch)
    assert str(ss.dtype) == _torch_dtype(ts.dtype) == "float64"
    assert str(sw.dtype) == _torch_dtype(tw.dtype) == "float32"
    np.testing.assert_allclose(to_numpy(ss), ts.numpy(), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(sw), tw.numpy(), rtol=1e-6)


def test_the_standard_namespace_and_the_operators_keep_the_standards_rule():
    a16 = strided.ones(3, dtype=strided.float16)
    z = strided.asarray(2.0, dtype=strided.float32)
    assert strided.add(a16, z).dtype == strided.float32
    assert strided.multiply(a16, z).dtype == strided.float32
    assert (a16 + z).dtype == strided.float32  # Array's operators are the standard's


@pytest.mark.parametrize("name", ["atan2", "arctan2", "hypot", "copysign", "logaddexp"])
def test_integer_to_float_methods_convert_either_operand_as_pytorch(name):
    # (bool operands: strided.torch's hypot refuses a bool self as PyTorch's hypot(bool, bool)
    # does, also beside a float; nextafter refuses integers: refusals, not other answers)
    for d1, d2 in itertools.product(["int8", "int32", "uint8", "float16", "float64"], repeat=2):
        if not hasattr(torch.Tensor, name):
            continue
        t = _outcome(lambda: getattr(_mk(torch, d1, (3,), 1), name)(_mk(torch, d2, (3,), 2)))
        s = _outcome(lambda: getattr(_mk(st, d1, (3,), 1), name)(_mk(st, d2, (3,), 2)))
        _compare(s, t, f"Tensor.{name}({d1}[3], {d2}[3])")
