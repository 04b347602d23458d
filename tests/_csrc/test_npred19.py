"""The short reductions' compiled twin (issue 38; strided/_csrc/_chot/fast.c, ``fast_npreduce``,
K_NPRED): ``max(x)``, ``min(x)``, ``prod(x)``, ``any(x)`` and ``all(x)`` of a small CPU array.

Each definition's short path reduces the native whole with one NumPy reduction into a 0-d
result; the compiled twin makes that very call (the same ufunc, axis None, the same dtype
argument) without the API wrapper's error state and frame, and passes every other call on.
Checked: its results against the Python definition's (``f.__wrapped__``) bit for bit --
values, NaN payloads and zero signs, dtype, shape, device -- over drawn dtypes, sizes,
layouts and special values; which calls it answers (a profiler sees no frame of the
definition) and which it passes on (complex max, empty max/prod, sizes past the short path,
keywords, recorded and named arrays); its result fresh and the input unchanged; bad input
getting the definition's error. Skipped where the compiled module is not built.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._api import statistics as S
from strided._core import threads as T

from conftest import bits

FUNCS = {"max": xp.max, "min": xp.min, "prod": xp.prod, "any": xp.any, "all": xp.all}
pytestmark = pytest.mark.skipif(type(xp.max).__name__ != "Fast" or S._npred_c(None, None, None, (), 0, 0) is None,
                                reason="the compiled hot path is not built")
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]


def _taken(name, dt, size, nbytes):
    """Whether the compiled twin answers name(x) for a plain CPU array (the definitions' short paths)."""
    kind = np.dtype(dt).kind
    if name in ("max", "min"):
        return kind != "c" and 0 < size <= S._SMALL
    if name == "prod":
        return kind in "fc" and 0 < size <= S._SMALL
    return nbytes < T._REDUCE_FACTOR * T._THREAD_MIN[0]


def _entered(f, *args, **kwargs):
    code = f.__wrapped__.__code__
    seen = []

    def prof(frame, event, arg):
        if event == "call" and frame.f_code is code:
            seen.append(1)

    sys.setprofile(prof)
    try:
        r = f(*args, **kwargs)
    except Exception as e:  # (compared by the caller)
        r = e
    finally:
        sys.setprofile(None)
    return r, len(seen)


def _raw(a):
    """An array's bytes (NaN payloads, zero signs), whatever its layout and rank."""
    return np.ascontiguousarray(np.asarray(a)).reshape(-1).view(np.uint8)


def _same(got, want):
    assert type(got) is xp.Array and type(want) is xp.Array
    assert got.dtype == want.dtype and got.shape == want.shape and got.device == want.device
    g, w = np.asarray(got.to_device("cpu")), np.asarray(want.to_device("cpu"))
    if g.dtype in (np.float32, np.float64):
        np.testing.assert_array_equal(bits(g), bits(w))
    elif g.dtype.kind in "fc":
        np.testing.assert_array_equal(_raw(g), _raw(w))
    else:
        np.testing.assert_array_equal(g, w)


def _values(rng, n, dt, special):
    d = np.dtype(dt)
    if d.kind == "b":
        a = rng.random(n) < 0.5
    elif d.kind in "iu":
        info = np.iinfo(d)
        a = rng.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(d)
    else:
        a = (rng.standard_normal(n) * 3).astype(d)
        if d.kind == "c":
            a = a + 1j * rng.standard_normal(n).astype(d)
        if special and n:
            k = rng.integers(1, min(n, 4) + 1)
            pool = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan], dtype=d)
            a[rng.integers(0, n, k)] = pool[rng.integers(0, len(pool), k)]
    return a


@st.composite
def _cases(draw):
    name = draw(st.sampled_from(sorted(FUNCS)))
    dt = draw(st.sampled_from(DTYPES))
    n = draw(st.one_of(st.integers(0, 12), st.integers(13, 300), st.sampled_from([4095, 4096, 4097, 9000])))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = _values(rng, n, dt, draw(st.booleans()))
    x = xp.asarray(a, device="cpu")
    layout = draw(st.sampled_from(["flat", "0-d", "rows", "strided", "transposed"]))
    if layout == "0-d" and n:
        x = x[0]
    elif layout == "rows" and n % 3 == 0 and n:
        x = xp.reshape(x, (3, n // 3))
    elif layout == "strided" and n > 1:
        x = x[::2]
    elif layout == "transposed" and n % 3 == 0 and n:
        x = xp.reshape(x, (3, n // 3)).T
    return name, x


@settings(max_examples=300, deadline=None)
@given(_cases())
def test_the_compiled_twin_is_the_definition(case):
    name, x = case
    f = FUNCS[name]
    before = np.asarray(x).copy()
    got, entered = _entered(f, x)
    try:
        with np.errstate(all="ignore"):  # (the wrapper's error state)
            want = f.__wrapped__(x)
    except Exception as e:
        assert type(got) is type(e) and str(got) == str(e)
    else:
        _same(got, want)
        assert not np.shares_memory(np.asarray(got), np.asarray(x))
    n = int(np.prod(x.shape))
    assert entered == (0 if _taken(name, x.dtype.name, n, n * np.dtype(x.dtype.name).itemsize) else 1)
    np.testing.assert_array_equal(_raw(x), _raw(before))


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_calls_passed_on(name):
    f = FUNCS[name]
    x = xp.asarray(np.arange(1, 13, dtype=np.float64).reshape(3, 4), device="cpu")
    for kw in ({"axis": 0}, {"keepdims": True}, {"axis": None}):
        r, entered = _entered(f, x, **kw)
        assert entered == 1
        _same(r, f.__wrapped__(x, **kw))
    # a named array's whole reduction is the plain one (the names handler's unnamed 0-d
    # result): answered in C where the plain call is
    w = x.rename("a", "b")
    r, entered = _entered(f, w)
    assert entered == (0 if _taken(name, "float64", 12, 96) else 1)
    assert r._ext is None and r.names == ()
    _same(r, f.__wrapped__(x))
    # ... but not with autograd's record beside the names
    g = xp.asarray(np.arange(1, 13, dtype=np.float64).reshape(3, 4), device="cpu",
                   requires_grad=True).rename("a", "b")
    r, entered = _entered(f, g)
    assert entered == 1


@pytest.mark.parametrize("name", ["max", "min", "prod"])
def test_recorded_arrays_passed_on(name):
    a = np.array([1.5, -2.0, 3.0, 0.5])
    x = xp.asarray(a, device="cpu", requires_grad=True)
    r, entered = _entered(FUNCS[name], x)
    assert entered == 1 and r.grad_fn is not None
    r.backward()
    want = {"max": [0, 0, 1, 0], "min": [0, 1, 0, 0], "prod": np.prod(a) / a}[name]
    np.testing.assert_allclose(np.asarray(x.grad), want)


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("bad", ["abc", [1.0, 2.0], None])
def test_bad_input_gets_the_definitions_error(name, bad):
    f = FUNCS[name]
    with pytest.raises(Exception) as compiled:
        f(bad)
    with pytest.raises(Exception) as python:
        f.__wrapped__(bad)
    assert type(compiled.value) is type(python.value) and str(compiled.value) == str(python.value)


def test_empty_max_raises_the_definitions_error():
    x = xp.asarray(np.ones(0, np.float32), device="cpu")
    with pytest.raises(ValueError, match="no elements"):
        xp.max(x)


def test_fast_refuses_a_bad_table():
    Fast = type(xp.max)
    with pytest.raises(TypeError, match="10 "):
        Fast(xp.max.__wrapped__, 10, [1, 2, 3], hook=[None], name="max")
