"""In-place and ``out=`` writes whose result dtype is not the target's, against PyTorch.

PyTorch computes in the promoted dtype and casts into the target when the result's kind
(bool < integer < floating < complex) is not above the target's: ``uint8 += int32`` wraps
into uint8, ``int8 *= int64`` too, ``float32 += float64`` rounds; ``int += float`` and
``bool |= int`` raise. Every door is compared (the method ``a.add_(b)``, the operator
``a += b``, ``add(a, b, out=a)`` and ``add(x, b, out=a)``): the same values and dtype as
PyTorch's, or an error like PyTorch's, with the target and its version left as they were.
(Before: NumPy's ufunc refused a cast across signedness with its own UFuncTypeError, after
the target's version had been bumped; ``x - mask`` computed where PyTorch refuses.)
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

OPS = [  # (function, method, operator or None)
    ("add", "add_", "__iadd__"),
    ("sub", "sub_", "__isub__"),
    ("mul", "mul_", "__imul__"),
    ("div", "div_", "__itruediv__"),
    ("floor_divide", "floor_divide_", "__ifloordiv__"),
    ("remainder", "remainder_", "__imod__"),
    ("bitwise_and", "bitwise_and_", "__iand__"),
    ("bitwise_or", "bitwise_or_", "__ior__"),
    ("bitwise_xor", "bitwise_xor_", "__ixor__"),
    ("maximum", None, None),
    ("minimum", None, None),
    ("pow", "pow_", "__ipow__"),
]

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float32", "float64", "complex64"]

# targets' values: near the top of int8/uint8 so that a wrap shows; operands small and
# non-zero (no division by zero, no negative powers of integers)
_TARGET = {"bool": [True, False, True, True], "int8": [120, 3, -7, 100], "uint8": [250, 3, 7, 100]}
_OTHER = {"bool": [True, True, True, True]}  # (no zero divisor)


def _values(dt, target):
    v = (_TARGET if target else _OTHER).get(dt, [250, 3, 7, 100] if target else [10, 3, 2, 1])
    if dt in ("float32", "float64", "complex64") and target:
        v = [2.5, 3.0, -7.25, 100.0]
    return v


def _pair(lib, name, values):
    return lib.tensor(values, dtype=getattr(lib, name))


def _run(lib, door, op, ta, tb):
    """The outcome of one door on fresh arrays: ("ok", dtype name, values) or ("raise",)."""
    a = _pair(lib, ta, _values(ta, True))
    b = _pair(lib, tb, _values(tb, False))
    fname, meth, dunder = op
    before = a._version
    try:
        if door == "method":
            r = getattr(a, meth)(b)
        elif door == "operator":
            r = getattr(a, dunder)(b)
            if r is NotImplemented:
                raise TypeError("NotImplemented")
        elif door == "out-self":
            r = getattr(lib, fname)(a, b, out=a)
        else:  # out= a target that is not an operand
            x = _pair(lib, ta, _values(ta, True))
            r = getattr(lib, fname)(x, b, out=a)
    except (TypeError, RuntimeError, ValueError, NotImplementedError) as e:
        return ("raise", type(e).__name__, str(e), a, before)
    assert r is a
    return ("ok", str(a.dtype).split(".")[-1], np.asarray(a.tolist()), a, before)


_DOORS = ["method", "operator", "out-self", "out-other"]


@pytest.mark.parametrize("door", _DOORS)
@pytest.mark.parametrize("op", OPS, ids=lambda o: o[0])
def test_inplace_casts_like_pytorch(op, door):
    if door in ("method", "operator") and op[1] is None:
        pytest.skip(f"torch has no in-place {op[0]}")
    mismatches = []
    for ta in DTYPES:
        for tb in DTYPES:
            want = _run(torch, door, op, ta, tb)
            got = _run(st, door, op, ta, tb)
            if want[0] == "raise":
                if "not implemented for" in want[2]:
                    continue  # (a dtype PyTorch has no kernel for: strided may compute it)
                if got[0] != "raise":
                    mismatches.append((ta, tb, "strided computed where PyTorch raises", want[2]))
                    continue
                a, before = got[3], got[4]
                np.testing.assert_array_equal(np.asarray(a.tolist()), np.asarray(_values(ta, True)).astype(
                    np.dtype(ta)))
                assert a._version == before, (ta, tb, "an error bumped the target's version")
                continue
            if got[0] != "ok":
                # The one refusal strided keeps: the standard's numeric functions on two bool
                # arrays (PyTorch's add/mul/maximum of masks are logical or/and); it must say so
                # and leave the target as it was.
                if (ta, tb) == ("bool", "bool") and got[1] in ("TypeError", "DTypeError") and "got bool, bool" in got[2]:
                    assert got[3].tolist() == _values(ta, True) and got[3]._version == got[4]
                    continue
                mismatches.append((ta, tb, "strided raised where PyTorch computes", got[1], got[2]))
                continue
            assert got[1] == want[1], (ta, tb)
            w, g = want[2], got[2]
            if w.dtype.kind in "fc":
                np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=f"{ta} {tb}")
            else:
                np.testing.assert_array_equal(g, w, err_msg=f"{ta} {tb}")
            assert got[3]._version > got[4]
    assert not mismatches, mismatches


def test_refused_cast_names_both_dtypes():
    a = st.tensor([1, 2], dtype=st.uint8)
    with pytest.raises(TypeError, match="result type float32 can't be cast to the desired output type uint8"):
        a.add_(st.tensor([0.5, 0.5]))
    assert a.tolist() == [1, 2]
