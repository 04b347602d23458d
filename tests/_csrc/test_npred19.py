"""The short reductions' compiled twin (issue 38; strided/_csrc/_chot/fast.c, ``fast_npreduce``,
K_NPRED): ``max(x)``, ``min(x)``, ``prod(x)``, ``any(x)`` and ``all(x)`` of a small CPU array,
and (round 22) ``max(x)``/``min(x)`` of a larger C-contiguous float32/float64 one that one
thread reduces, by the C kernels ``max_into``/``min_into`` the definition's general path
runs on the thread pool.

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
pytestmark = [pytest.mark.host_pinned, pytest.mark.skipif(type(xp.max).__name__ != "Fast" or S._npred_c(None, None, None, (), 0, 0) is None,
                                reason="the compiled hot path is not built")]
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]


def _one_thread(nbytes):
    return T._NUM[0] == 1 or nbytes < T._THREAD_MIN[0]


def _taken(name, dt, size, nbytes, contiguous=True, value=None):
    """Whether the compiled twin answers name(x) for a plain CPU array (the definitions' short
    paths; beyond them, float32/float64 max/min by the C kernel max_into/min_into on one
    thread), or None where it may decline: the kernel passes a zero or NaN result on (its
    sign or payload is the one NumPy's order picks, decided there or by NumPy)."""
    kind = np.dtype(dt).kind
    if name in ("max", "min"):
        if kind != "c" and 0 < size <= S._SMALL:
            return True
        if dt in ("float32", "float64") and size > S._SMALL and contiguous and _one_thread(nbytes):
            return None if value is not None and not (abs(value) > 0) else True
        return False
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
    n = draw(st.one_of(st.integers(0, 12), st.integers(13, 300),
                       st.sampled_from([4095, 4096, 4097, 9000, 65_535, 262_143, 262_145, 300_000])))
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
    value = float(np.asarray(want)) if not isinstance(got, Exception) and got.ndim == 0 \
        and np.dtype(got.dtype.name).kind == "f" else None
    taken = _taken(name, x.dtype.name, n, n * np.dtype(x.dtype.name).itemsize,
                   np.asarray(x).flags.c_contiguous, value)
    if taken is not None:
        assert entered == (0 if taken else 1)
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


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("n", [4097, 65_536, 262_145])
@pytest.mark.parametrize("special", ["none", "-0 only", "zeros of both signs", "nan", "-nan", "payload nan", "inf"])
@pytest.mark.parametrize("layout", ["flat", "rows", "strided"])
def test_large_float_arrays_by_the_c_kernel(name, dt, n, special, layout):
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 3).astype(dt)
    if special == "-0 only":
        a[:] = -0.0
    elif special == "zeros of both signs":
        a[:] = 0.0
        a[n // 3] = -0.0
    elif special in ("nan", "-nan"):
        a[n // 2] = np.nan if special == "nan" else -np.nan
    elif special == "payload nan":
        a[n // 2] = np.frombuffer(np.array(0x7FC00001 if dt == "float32" else 0x7FF8000000000001,
                                           np.uint32 if dt == "float32" else np.uint64).tobytes(), dt)[0]
    elif special == "inf":
        a[7] = np.inf if name == "max" else -np.inf
    x = xp.asarray(a, device="cpu")
    if layout == "rows":
        x = xp.reshape(x[: n - n % 4], (4, -1))
    elif layout == "strided":
        x = x[::2]
    f = FUNCS[name]
    got, entered = _entered(f, x)
    with np.errstate(all="ignore"):
        want = f.__wrapped__(x)
    _same(got, want)
    np.testing.assert_array_equal(bits(np.asarray(want)), bits(getattr(np, name)(np.asarray(x))))  # NumPy's own
    size = int(np.prod(x.shape))
    taken = _taken(name, dt, size, size * np.dtype(dt).itemsize, np.asarray(x).flags.c_contiguous,
                   float(np.asarray(want)))
    if special == "none" or special == "inf":
        assert taken is (size <= S._SMALL or (layout != "strided" and _one_thread(size * np.dtype(dt).itemsize)))
    if taken is not None:
        assert entered == (0 if taken else 1), (taken, entered)
