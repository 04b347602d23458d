"""Values a dtype cannot hold and negative dimensions at creation: PyTorch raises RuntimeError
("value cannot be converted to type uint8 without overflow", "Trying to create tensor with
negative dimension -1"), NumPy and the standard's spirit OverflowError and ValueError. strided
raises one error that is both, so that ``except RuntimeError`` in a PyTorch program and
``except OverflowError`` in a NumPy one both catch it; the message names the value (or the
dimension) and the dtype."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import strided as xp  # noqa: E402
import strided.torch as S  # noqa: E402

OVERFLOW = {  # name: (call, what the message names)
    "tensor int": (lambda m: m.tensor([300], dtype=m.uint8), "uint8"),
    "tensor negative": (lambda m: m.tensor([-3.5], dtype=m.uint8), "uint8"),
    "tensor big": (lambda m: m.tensor([1e10], dtype=m.int32), "int32"),
    "tensor scalar": (lambda m: m.tensor(300, dtype=m.uint8), "uint8"),
    "full": (lambda m: m.full((2,), 300, dtype=m.uint8), "uint8"),
}
NEGATIVE = {
    "empty": (lambda m: m.empty(-1), "-1"),
    "zeros": (lambda m: m.zeros(2, -1), "-1"),
    "ones": (lambda m: m.ones((-2,)), "-2"),
    "full": (lambda m: m.full((-1, 2), 1.0), "-1"),
}


@pytest.mark.parametrize("name", sorted(OVERFLOW))
def test_a_value_the_dtype_cannot_hold(name):
    call, named = OVERFLOW[name]
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError, match=named) as e:
        call(S)
    assert isinstance(e.value, OverflowError)


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_a_negative_dimension(name):
    call, named = NEGATIVE[name]
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError, match=named) as e:
        call(S)
    assert isinstance(e.value, ValueError)


def test_arange_beyond_the_dtype_raises():
    # (PyTorch 2.13 wraps arange(250, 260, dtype=uint8) to 250..255, 0..3 silently; strided
    # raises rather than give those values)
    with pytest.raises(RuntimeError, match="260|259"):
        S.arange(250, 260, dtype=S.uint8)


def test_the_standard_namespace_raises_numpys_types():
    with pytest.raises(OverflowError, match="300"):
        xp.asarray([300], dtype=xp.uint8)
    with pytest.raises(OverflowError, match="300"):
        xp.full((2,), 300, dtype=xp.uint8)
    with pytest.raises(ValueError, match="negative dimension -1"):
        xp.zeros((2, -1))


@pytest.mark.parametrize("shape", [(2, 5), (5,), (2, 3, 5)])
def test_linear_of_the_wrong_width_is_pytorchs_error(shape):
    # (a recipe computes layer sizes by ``except RuntimeError`` around ``nn.Linear(3, 4)(x)``)
    msgs = []
    for m in (torch, S):
        with pytest.raises(RuntimeError) as e:
            m.nn.Linear(3, 4)(m.ones(shape))
        msgs.append(str(e.value))
    assert msgs[1] == msgs[0] and isinstance(e.value, ValueError)
