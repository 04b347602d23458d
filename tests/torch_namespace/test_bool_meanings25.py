"""Bool operands in PyTorch's words: computed as PyTorch computes them, or refused as it refuses.

PyTorch computes ``mask + mask`` (bool: or), ``mask * mask`` (and), ``mask * 1.5`` (float32),
``mask + 2`` (int64), ``mask < mask``, ``maximum(mask, mask)``, ``mask / mask`` (float32),
``isnan(mask)``, ``hypot(mask, x)`` and more; it refuses ``mask - mask``, ``-mask``,
``hypot(mask, mask)`` and ``mask // mask``. Every binary row of the registry, as a
``strided.torch`` function, as a method and (where it has one) as an operator, with a bool array
on either side of a bool, integer or float array or a Python scalar, is held to PyTorch 2.13's
dtype and values, and to its refusals. strided may compute where PyTorch refuses only because
PyTorch's signature takes a tensor and was given a Python number (``torch.maximum(x, 2)``).
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402
from strided._api.elementwise import ROWS  # noqa: E402

_TORCH_NAME = {"subtract": "sub", "multiply": "mul", "divide": "div", "less": "lt", "less_equal": "le",
               "greater": "gt", "greater_equal": "ge", "not_equal": "ne", "equal": "eq"}
BINARY = sorted({r.name for r in ROWS if r.nargs == 2} | {"fmod", "fmax", "fmin", "xlogy"})
VALUES = {"bool": [True, False, True, False], "int8": [1, 2, 3, 0], "int64": [3, 4, 1, 0],
          "float32": [1.5, -2.0, 0.0, 2.5], "float64": [0.5, 2.0, -3.0, 0.0]}
OTHERS = ["bool", "int8", "int64", "float32", "float64", True, 2, 1.5, 1j]
OPERATORS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
             "divide": operator.truediv, "floor_divide": operator.floordiv, "remainder": operator.mod,
             "pow": operator.pow, "less": operator.lt, "less_equal": operator.le,
             "greater": operator.gt, "greater_equal": operator.ge, "equal": operator.eq,
             "not_equal": operator.ne, "bitwise_and": operator.and_, "bitwise_or": operator.or_,
             "bitwise_xor": operator.xor, "bitwise_left_shift": operator.lshift,
             "bitwise_right_shift": operator.rshift}


def _arr(lib, kind):
    return lib.tensor(VALUES[kind], dtype=getattr(lib, kind))


def _operand(lib, o):
    return _arr(lib, o) if isinstance(o, str) else o


def _run(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (PyTorch's errors are of several classes)
        return e
    return r


# Where strided refuses what PyTorch computes, on purpose (docs/torch-differences.md): NumPy's
# power has no bool loop (PyTorch's bool ** True is bool).
KNOWN_REFUSALS = {("pow", "bool", True)}


def _same(name, got, want, where, documented_zero_division=False):
    if isinstance(want, Exception):
        if isinstance(got, Exception):
            return
        if documented_zero_division and str(want) == "ZeroDivisionError":
            return  # (the operators // and % keep NumPy's 0: docs/torch-differences.md)
        # a Python number where PyTorch's signature takes only a tensor: strided may compute
        assert "must be Tensor" in str(want), f"{where}: PyTorch refuses ({want}), strided gave {got}"
        return
    assert not isinstance(got, Exception), f"{where}: PyTorch computes {want}, strided raised {got!r}"
    if isinstance(want, bool):  # (torch.equal: one Python bool)
        assert got == want, where
        return
    assert str(got.dtype) == str(want.dtype).replace("torch.", ""), f"{where}: {got.dtype} vs {want.dtype}"
    g, w = np.asarray(got.tolist()), want.numpy()
    if w.dtype.kind in "fc":
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=0, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("other", OTHERS, ids=str)
@pytest.mark.parametrize("bool_first", [True, False], ids=["bool-op-other", "other-op-bool"])
def test_binary_words_with_a_bool_operand(name, other, bool_first):
    tname = _TORCH_NAME.get(name, name)
    tf = getattr(torch, tname, None) or getattr(torch, name, None)
    sf = getattr(S, tname, None) or getattr(S, name, None)
    if tf is None or sf is None:
        pytest.skip(f"{name}: not a word of both namespaces")
    if not bool_first and not isinstance(other, str):
        pytest.skip("a Python number first: not a function's input")
    for form in ("function", "method", "operator"):
        if form == "operator" and name not in OPERATORS:
            continue

        def call(lib, f):
            b, o = _arr(lib, "bool"), _operand(lib, other)
            x, y = (b, o) if bool_first else (o, b)
            if form == "function":
                return f(x, y)
            if form == "method":
                return getattr(x, tname)(y)
            return OPERATORS[name](x, y)
        want = _run(lambda: call(torch, tf))
        got = _run(lambda: call(S, sf))
        if isinstance(got, Exception) and (name, "bool", other) in KNOWN_REFUSALS:
            continue
        _same(name, got, want, f"{form} {name}({'bool, ' + str(other) if bool_first else str(other) + ', bool'})",
              documented_zero_division=form == "operator")


@pytest.mark.parametrize("other", [2, 1.5, True], ids=str)
@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "pow", "remainder", "floor_divide",
                                  "bitwise_and", "less", "equal"])
def test_reflected_operators(name, other):
    """``2 * mask``, ``1.5 + mask``, ``1 - mask`` (refused, as PyTorch's)."""
    op = OPERATORS[name]
    want = _run(lambda: op(other, _arr(torch, "bool")))
    got = _run(lambda: op(other, _arr(S, "bool")))
    _same(name, got, want, f"{other!r} {op.__name__} bool", documented_zero_division=True)


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "signbit", "logical_not", "bitwise_not",
                                  "abs", "neg", "negative", "sign", "exp", "sqrt", "floor", "square"])
def test_unary_words_of_a_bool_array(name):
    tf, sf = getattr(torch, name, None), getattr(S, name, None)
    if tf is None or sf is None:
        pytest.skip(f"{name}: not a word of both namespaces")
    want = _run(lambda: tf(_arr(torch, "bool")))
    got = _run(lambda: sf(_arr(S, "bool")))
    if name == "square" and isinstance(got, Exception):
        pytest.skip("square of bool: refused (PyTorch's int64 is not built yet)")
    _same(name, got, want, f"{name}(bool)")


def test_in_place_keeps_pytorchs_refusal_of_a_wider_result():
    """``mask += 1`` (int64 into bool) is refused by both, and leaves the mask as it was."""
    m = S.tensor([True, False])
    with pytest.raises(Exception):
        m += 1
    assert m.tolist() == [True, False]
    t = torch.tensor([True, False])
    with pytest.raises(RuntimeError):
        t += 1
    m |= S.tensor([False, True])
    assert m.tolist() == [True, True]


def test_the_standard_namespace_agrees_on_numpys_bool_loops():
    """``strided.add``/``multiply``/``maximum`` of two bool arrays are NumPy's (or/and/max)."""
    import strided as xp
    a, b = np.array([True, False, True, False]), np.array([True, True, False, False])
    for name in ("add", "multiply", "maximum", "minimum", "less", "greater_equal"):
        got = getattr(xp, name)(xp.asarray(a), xp.asarray(b))
        want = getattr(np, name)(a, b)
        assert str(got.dtype) == "bool" and got.tolist() == want.tolist(), name
    with pytest.raises(TypeError):
        xp.subtract(xp.asarray(a), xp.asarray(b))
