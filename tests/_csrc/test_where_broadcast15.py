"""``where`` in the compiled hot path (``_chot/fast.c``, ``fast_where`` and ``where_direct``)
for operands that broadcast and for a Python number beside a floating array -- the
gradients' ``where(mask, g, 0.0)`` and scikit-learn's and SciPy's ``where(mask, x, 0.0)``
-- against ``numpy.where`` bit for bit and against the Python definition it stands in
front of (``where.__wrapped__``): the same dtype, shape, layout, bits and errors. And
autograd's internal select (``autograd._function.where``), which now calls it, against
the select it replaced (``_Where.forward``)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as xp
from strided._api import elementwise as E
from strided.autograd import _function as F

from conftest import host

pytestmark = pytest.mark.skipif(not E.COMPILED, reason="the compiled hot path is not active")

_DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex64"]


def _values(rng, dt, shape):
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    raw = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8)
    if dt == np.bool_:
        return (raw[:n] % 2 == 1).reshape(shape)
    return raw.view(dt).reshape(shape).copy()  # any bits: NaN payloads, -0.0, inf


@hs.composite
def _shapes(draw):
    """Three shapes that broadcast (NumPy's rules), or now and then ones that do not."""
    nd = draw(hs.integers(0, 4))
    full = [draw(hs.sampled_from([1, 2, 3, 5])) for _ in range(nd)]
    out = []
    for _ in range(3):
        k = draw(hs.integers(0, nd))
        s = [d if draw(hs.booleans()) else 1 for d in full[nd - k:]]
        out.append(tuple(s))
    if draw(hs.integers(0, 9)) == 0 and nd:
        j = draw(hs.integers(0, 2))
        if out[j]:
            out[j] = out[j][:-1] + (7,)  # (7 matches no other dimension)
    return out


def _layout(rng, a, form):
    """An Array of ``a``'s values: C-ordered, a transposed view, or a reversed or sliced view."""
    if form == "transposed" and a.ndim >= 2:
        return xp.asarray(np.ascontiguousarray(a.T), device="cpu").mT if a.ndim == 2 else \
            xp.permute_dims(xp.asarray(np.ascontiguousarray(np.moveaxis(a, -1, 0)), device="cpu"),
                            tuple(range(1, a.ndim)) + (0,))
    if form == "reversed" and a.ndim == 1:
        return xp.flip(xp.asarray(a[::-1].copy(), device="cpu"))
    if form == "sliced" and a.ndim >= 1:
        wide = np.repeat(a, 2, axis=-1)
        return xp.asarray(wide, device="cpu")[..., ::2]
    return xp.asarray(a, device="cpu")


def _python_where(*args):
    with np.errstate(all="ignore"):  # (the bare definition; strided's entry points set it)
        return xp.where.__wrapped__(*args)


def _check(got, want_array, c, a, b):
    """``got`` (the compiled path) against the Python definition's answer and NumPy's."""
    assert type(got) is xp.Array
    assert got.dtype == want_array.dtype and got.shape == want_array.shape
    assert got.stride() == want_array.stride(), (got.stride(), want_array.stride())
    g, w = host(got), host(want_array)
    assert g.tobytes() == w.tobytes()
    ref = np.where(c, a, b)
    assert g.dtype == ref.dtype and g.shape == ref.shape and g.tobytes() == np.ascontiguousarray(ref).tobytes()


@settings(max_examples=300, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), dt=hs.sampled_from(_DTYPES), shapes=_shapes(),
       forms=hs.tuples(*[hs.sampled_from(["c", "c", "transposed", "reversed", "sliced"])] * 3))
def test_broadcast_operands_are_numpy_where(seed, dt, shapes, forms):
    rng = np.random.default_rng(seed)
    c0 = _values(rng, "bool", shapes[0])
    a0, b0 = _values(rng, dt, shapes[1]), _values(rng, dt, shapes[2])
    c, a, b = (_layout(rng, v, f) for v, f in zip((c0, a0, b0), forms))
    try:
        want = _python_where(c, a, b)
    except ValueError as e:
        assert "where" in str(e)
        with pytest.raises(ValueError, match="where"):
            xp.where(c, a, b)
        return
    _check(xp.where(c, a, b), want, c0, a0, b0)


def _float_bits(rng):
    return struct.unpack("<d", rng.integers(0, 256, 8, dtype=np.uint8).tobytes())[0]


_SCALARS = [0.0, -0.0, 0.5, 1.0, -2.5, float("inf"), float("-inf"), float("nan"), 1e300, -1e300,
            1e-310, 3.4028235e38, 3.4028236e38, 0, 1, -7, 2**24 + 1, 2**53, -(2**53), 2**53 + 1,
            -(2**53) - 1, 10**30, 10**400, True, False]


@settings(max_examples=300, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), dt=hs.sampled_from(["float16", "float32", "float64", "int32", "complex64"]),
       shapes=_shapes(), first=hs.booleans(), pick=hs.integers(0, len(_SCALARS)),
       form=hs.sampled_from(["c", "transposed", "reversed", "sliced"]))
def test_a_python_number_beside_an_array(seed, dt, shapes, first, pick, form):
    rng = np.random.default_rng(seed)
    s = _SCALARS[pick] if pick < len(_SCALARS) else _float_bits(rng)  # (the last: any bits)
    c0, a0 = _values(rng, "bool", shapes[0]), _values(rng, dt, shapes[1])
    c, a = _layout(rng, c0, "c"), _layout(rng, a0, form)
    args = (c, a, s) if first else (c, s, a)
    try:
        want = _python_where(*args)
    except (ValueError, OverflowError, TypeError) as e:
        with pytest.raises(type(e)):
            xp.where(*args)
        return
    got = xp.where(*args)
    assert type(got) is xp.Array
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert host(got).tobytes() == host(want).tobytes()
    if np.dtype(dt).kind == "f" and type(s) is not bool and got.dtype == xp.asarray(a0).dtype:
        with np.errstate(all="ignore"):
            sv = np.asarray(s, dtype=dt)
        ref = np.where(c0, a0, sv) if first else np.where(c0, sv, a0)
        assert host(got).tobytes() == ref.tobytes()


def _libm():
    import ctypes
    import ctypes.util
    import platform

    name = ctypes.util.find_library("m")
    if name is None or platform.machine() not in ("x86_64", "AMD64"):
        return None
    try:
        m = ctypes.CDLL(name)
        return m if hasattr(m, "fetestexcept") and hasattr(m, "feclearexcept") else None
    except OSError:
        return None


def test_the_number_takes_the_arrays_dtype():
    c = xp.asarray([True, False, True], device="cpu")
    x = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float32, device="cpu")
    r = xp.where(c, x, 1e300)  # float32: inf, as numpy.asarray(1e300, float32) gives
    assert r.dtype == xp.float32 and host(r).tolist() == [1.0, float("inf"), 3.0]
    r = xp.where(c, 2**53 + 1, x)  # past a double's integers: the Python path, NumPy's rounding
    assert host(r).tobytes() == np.where(host(c), np.asarray(2**53 + 1, np.float32), host(x)).tobytes()


def test_the_conversion_leaves_the_fpu_flags_as_they_were():
    # 1e300 to float32 raises the FPU's overflow and inexact flags; fast_where puts them back
    # (the C library's fetestexcept reads them: x86-64's FE_OVERFLOW 0x08, FE_INEXACT 0x20)
    m = _libm()
    if m is None:
        pytest.skip("the C library's fenv functions are read here on x86-64 only")
    c = xp.asarray([True, False, True], device="cpu")
    x = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float32, device="cpu")
    xp.where(c, x, 1e300)  # (warm: the first call may take other paths)
    m.feclearexcept(0x3D)
    r = xp.where(c, x, 1e300)
    flags = m.fetestexcept(0x3D)
    assert host(r).tolist() == [1.0, float("inf"), 3.0]
    assert flags & 0x28 == 0, hex(flags)


@settings(max_examples=200, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), dt=hs.sampled_from(["float32", "float64", "float16", "int64"]),
       shapes=_shapes(), kind=hs.sampled_from(["g0", "0g", "gg", "int", "half"]))
def test_autograd_select_is_the_select_it_replaced(seed, dt, shapes, kind):
    # autograd._function.where (the gradients' select, no graph) against _Where.forward,
    # which it calls for anything the namespace's where would not give bit for bit
    rng = np.random.default_rng(seed)
    c = xp.asarray(_values(rng, "bool", shapes[0]), device="cpu")
    g = xp.asarray(_values(rng, dt, shapes[1]), device="cpu")
    other = {"g0": 0.0, "0g": 0.0, "gg": xp.asarray(_values(rng, dt, shapes[2]), device="cpu"),
             "int": 0, "half": 0.5}[kind]
    args = (c, other, g) if kind == "0g" else (c, g, other)
    try:
        want = F._Where.forward(F._Scratch(), *args)
    except ValueError:
        with pytest.raises(ValueError):
            F.where(*args)
        return
    got = F.where(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert host(got).tobytes() == host(want).tobytes()
