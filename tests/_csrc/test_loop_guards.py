"""``floor_divide`` and ``pow`` in the compiled path: NumPy's loop alone where a guard proves
the row's correction has nothing to put right (``_chot/loops.c``, ``guard_ok``).

The standard's floor_divide differs from NumPy's only where an operand is infinite
(``_fix_floor_divide``), its float pow only for an exponent of 0.5 (``_fix_pow``; a Python
2 takes NumPy's square), its integer pow refuses negative exponents (``_pow_int``). The
compiled path runs NumPy's loop when the operands have none of these, and otherwise calls
the kernel. Each door -- function, operator both ways, a Python scalar, a 0-d array, out=,
in-place -- must give the Python definition's bits (``__wrapped__``: the kernel and its
correction), NaN payloads and signed zeros included, leave every array it does not write
as it was (an in-place error writes nothing), bump the target's version once, and match
NumPy and the standard's special cases as independent references.
"""

from __future__ import annotations

import math
import operator
import os
import struct
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hst

import strided as st
from strided._api import elementwise as ew

from _frames import python_calls
from _outcome import outcome as _outcome

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]
COMPILED = type(st.floor_divide).__name__ == "Fast"
compiled = pytest.mark.skipif(not COMPILED, reason="the compiled path is not active")

F32_NAN = np.array([0x7FC0ABCD, 0xFFC01234], np.uint32).view(np.float32)
F64_NAN = np.array([0x7FF800000000ABCD, 0xFFF8000000001234], np.uint64).view(np.float64)


def specials(dt):
    """Every special value the standard names, NaNs with payloads, subnormals, the extremes."""
    fi = np.finfo(dt)
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -7.25, 1e-3,
         fi.max, -fi.max, fi.tiny, -fi.tiny, fi.smallest_subnormal, -fi.smallest_subnormal,
         fi.smallest_subnormal * 3, 1.5, 0.1]
    a = np.array(v, dt)
    return np.concatenate([a, F32_NAN if dt == np.float32 else F64_NAN])


def _bits(x):
    x = np.asarray(x)
    if x.dtype.kind == "c":  # (both parts' bits)
        x = np.ascontiguousarray(x).view(f"f{x.itemsize // 2}")
    return x.view(f"u{x.itemsize}") if x.dtype.kind == "f" else x


def _pairs(dt):
    """Every special value against every other: a (x1, x2) of n*n elements each."""
    s = specials(dt)
    return np.repeat(s, s.size), np.tile(s, s.size)


def _py(fn):
    """The Python definition behind a compiled door (the reference), under the error state
    a compiled door runs it under."""
    g = getattr(fn, "__wrapped__", fn)

    def call(*args):
        with np.errstate(all="ignore"):
            return g(*args)
    return call


def _same(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=what)


def _floor_divide_standard(a, b):
    """The standard's floor_divide, element by element: NumPy's where both operands are
    finite (its Python-style floor of the quotient), the quotient where one is infinite
    (the standard's special cases for infinities: +-inf, +-0, NaN for inf // inf)."""
    out = np.empty(np.broadcast(a, b).shape, np.result_type(a, b))
    fa, fb = np.broadcast_to(a, out.shape).ravel(), np.broadcast_to(b, out.shape).ravel()
    o = out.reshape(-1)
    with np.errstate(all="ignore"):
        for i, (x, y) in enumerate(zip(fa, fb)):
            if math.isinf(x) or math.isinf(y):
                o[i] = np.true_divide(x, y)
            else:
                o[i] = np.floor_divide(x, y)
    return out


def _nan_equal(got, want, what):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=what)  # (NaN == NaN here)


def _scalar_sides(fn, op, a, s, dt):
    """``a op s``, ``s op a`` and both with s as a 0-d array: the Python definition's bits."""
    z = st.asarray(np.array(s, dt))
    for x, y, what in ((a, s, f"a, {s!r}"), (s, a, f"{s!r}, a"), (a, z, f"a, 0-d {s!r}"), (z, a, f"0-d {s!r}, a")):
        _same(op(x, y), _py(fn)(x, y), f"{fn.__name__}({what})")


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_floor_divide_every_door_is_the_python_definitions_bits(dt):
    an, bn = _pairs(dt)
    a, b = st.asarray(an), st.asarray(bn)
    ref = _py(st.floor_divide)(a, b)
    _same(st.floor_divide(a, b), ref, "floor_divide(a, b)")
    _same(a // b, ref, "a // b")
    _nan_equal(ref, _floor_divide_standard(an, bn), "the standard's special cases")
    for s in specials(dt).tolist():  # a Python scalar and a 0-d array on either side
        _scalar_sides(st.floor_divide, operator.floordiv, a, s, dt)
        with np.errstate(all="ignore"):
            _nan_equal(a // s, _floor_divide_standard(an, np.array(s, dt)), f"standard: a // {s!r}")


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_pow_every_door_is_the_python_definitions_bits(dt):
    an, bn = _pairs(dt)
    a, b = st.asarray(an), st.asarray(bn)
    ref = _py(st.pow)(a, b)
    _same(st.pow(a, b), ref, "pow(a, b)")
    _same(a ** b, ref, "a ** b")
    for s in specials(dt).tolist() + [2, 3, -1, 0]:
        _scalar_sides(st.pow, operator.pow, a, s, dt)
    # the standard's special cases NumPy's scalar-exponent loop misses: (-0) ** 0.5, (-inf) ** 0.5
    h = st.pow(st.asarray(np.array([-0.0, -np.inf, 4.0], dt)), 0.5)
    _same(h, np.array([0.0, np.inf, 2.0], dt), "x ** 0.5")


def _doors(name, a, b):
    """The writing doors of a binary row: out= and the in-place operator, with the
    target's bytes and version bump afterwards, or the error (type, message)."""
    op = {"floor_divide": "__ifloordiv__", "pow": "__ipow__"}[name]
    got = []
    for door in ("out", "inplace"):
        t = st.asarray(np.asarray(a).copy())
        t.storage()
        v0 = t.storage()._version
        bb = np.asarray(b).copy() if isinstance(b, st.Array) else None
        try:
            with np.errstate(all="ignore"):
                if door == "out":
                    r = getattr(st, name)(t, b, out=t)
                else:
                    r = getattr(t, op)(b)
            assert r is t
            err = None
        except Exception as e:  # noqa: BLE001 - type and message are compared
            err = (type(e), str(e))
        if bb is not None:
            np.testing.assert_array_equal(_bits(np.asarray(b)), _bits(bb))  # the operand is as it was
        got.append((door, err, _bits(np.asarray(t)).tobytes(), t.storage()._version - v0))
    return got


@pytest.mark.parametrize("name", ["floor_divide", "pow"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_out_and_in_place_write_the_definitions_bits_once(name, dt):
    an, bn = _pairs(dt)
    a = st.asarray(an)
    fn = getattr(st, name)
    want = np.asarray(_py(fn)(a, st.asarray(bn)))
    for door, err, data, bump in _doors(name, an, st.asarray(bn)):
        assert err is None, (door, err)
        assert data == _bits(want).tobytes(), door
        assert bump == 1, (door, bump)
    for s in (2.0, 1.5, 0.5, -np.inf, np.inf, np.nan, -0.0, 3):
        want = np.asarray(_py(fn)(a, s))
        for door, err, data, bump in _doors(name, an, s):
            assert err is None and data == _bits(want).tobytes() and bump == 1, (door, s)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.int8])
def test_integer_pow_refuses_a_negative_exponent_and_writes_nothing(dt):
    an = np.arange(-5, 20, dtype=dt)
    bn = (np.arange(25) % 4).astype(dt)
    _same(st.asarray(an) ** st.asarray(bn), np.power(an, bn), "int ** int")
    _same(st.asarray(an) ** 3, np.power(an, 3), "int ** 3")
    bad = bn.copy()
    bad[17] = -1
    msg = "pow(): integers to negative integer powers are not allowed"
    for b in (st.asarray(bad), -2, st.asarray(np.array(-1, dt))):
        with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            st.asarray(an) ** b
        for door, err, data, bump in _doors("pow", an, b):
            assert err is not None and issubclass(err[0], ValueError) and issubclass(err[0], RuntimeError) \
                and err[1].startswith(msg), door  # (NegativePowerError: PyTorch's RuntimeError too)
            assert data == an.tobytes(), f"{door}: the target was written before the error"
            assert bump == 0, door


@compiled
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_the_loop_answers_finite_operands_and_declines_the_rest(dt):
    x = st.asarray(np.linspace(-3, 3, 50).astype(dt))
    y = st.asarray(np.linspace(0.75, 4, 50).astype(dt))  # (no 0.5: that declines)
    i = st.asarray(np.arange(50, dtype=np.int64))
    calls = (lambda: x // y, lambda: x // 1.5, lambda: 2.5 // y, lambda: x ** y, lambda: x ** 1.5,
             lambda: 1.5 ** y, lambda: i ** 2, lambda: i ** i, lambda: st.floor_divide(x, y, out=x))
    for call in calls:
        call()  # (the first call resolves the loop)
    _, frames = python_calls(lambda: [call() for call in calls])
    assert set(frames) <= {"<lambda>", "<listcomp>"}, frames  # (the calls' own lambdas)
    inf = st.asarray(np.array([1.0, np.inf], dt))
    half = st.asarray(np.array([2.0, 0.5], dt))
    declined = ((lambda: inf // 2.0, "fixed"), (lambda: x // np.inf, "fixed"),
                (lambda: x ** 0.5, "_pow_float"), (lambda: x ** 2, "_pow_float"),
                (lambda: st.asarray(np.ones(2, dt)) ** half, "_pow_float"))
    _, frames = python_calls(lambda: [call() for call, _ in declined])
    for _, kernel in declined:
        assert kernel in frames, frames
    with pytest.raises(ValueError):
        python_calls(lambda: i ** -1)


@settings(max_examples=60, deadline=None)
@given(name=hst.sampled_from(["floor_divide", "pow"]), dt=hst.sampled_from([np.float32, np.float64]),
       shape=hst.sampled_from([(), (1,), (7,), (3, 5), (2, 3, 4), (300,), (5000,)]),
       vals=hst.lists(hst.integers(0, len(specials(np.float32)) - 1), min_size=2, max_size=8),
       form=hst.sampled_from(["array", "scalar", "rscalar", "zerod", "reversed", "row"]),
       seed=hst.integers(0, 2**16))
def test_shapes_and_forms_give_the_definitions_bits(name, dt, shape, vals, form, seed):
    rng = np.random.default_rng(seed)
    pool = specials(dt)[vals]
    an = rng.choice(pool, size=shape) if shape else np.array(rng.choice(pool), dt)
    bn = rng.choice(pool, size=shape) if shape else np.array(rng.choice(pool), dt)
    a, b = st.asarray(an), st.asarray(bn)
    fn = getattr(st, name)
    if form == "scalar":
        b = float(pool[seed % pool.size])
    elif form == "rscalar":
        a, b = float(pool[seed % pool.size]), a
    elif form == "zerod":
        b = st.asarray(np.array(pool[seed % pool.size], dt))
    elif form == "reversed" and an.ndim:
        a = st.flip(st.asarray(an))
    elif form == "row" and an.ndim:
        b = st.asarray(np.asarray(bn).reshape(-1)[: shape[-1]].copy())
    _same(fn(a, b), _py(fn)(a, b), f"{name} {form}")


# floor_divide and pow over every pair of special values, each door, as bytes: run here
# and in a child process without the C extension
_BATTERY = """
import numpy as np

def battery(xp):
    fi32, fi64 = np.finfo(np.float32), np.finfo(np.float64)
    out = []
    with np.errstate(all="ignore"):
        for dt, fi, nans in ((np.float32, fi32, np.array([0x7FC0ABCD, 0xFFC01234], np.uint32)),
                             (np.float64, fi64, np.array([0x7FF800000000ABCD, 0xFFF8000000001234], np.uint64))):
            s = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0,
                                          -7.25, fi.max, -fi.max, fi.tiny, fi.smallest_subnormal,
                                          -fi.smallest_subnormal, 1.5], dt), nans.view(dt)])
            an, bn = np.repeat(s, s.size), np.tile(s, s.size)
            a, b = xp.asarray(an, device="cpu"), xp.asarray(bn, device="cpu")
            res = [a // b, a ** b, xp.floor_divide(a, b), xp.pow(a, b)]
            for v in (2.0, 0.5, 1.5, -np.inf, np.nan, 3, -0.0):
                res += [a // v, v // a, a ** v, v ** a]
            t = xp.asarray(an.copy(), device="cpu")
            t //= b
            u = xp.asarray(an.copy(), device="cpu")
            u **= 1.5
            o = xp.empty(an.shape, dtype=a.dtype, device="cpu")
            xp.pow(a, b, out=o)
            res += [t, u, o]
            out += [np.asarray(r).tobytes() for r in res]
        i = xp.asarray(np.arange(-4, 9, dtype=np.int32), device="cpu")
        out.append(np.asarray(i ** 3).tobytes())
    return b"".join(out)
"""


def battery(xp) -> bytes:
    g = {}
    exec(_BATTERY, g)
    return g["battery"](xp)


@pytest.mark.skipif(not COMPILED, reason="compares the compiled path with the Python one")
def test_the_compiled_bits_equal_those_without_the_c_extension():
    """One child process under STRIDED_NO_CEXT=1 computes the battery; the bits match."""
    code = _BATTERY + "\nimport sys, strided\nsys.stdout.write(battery(strided).hex())\n"
    env = dict(os.environ, STRIDED_NO_CEXT="1")
    env.pop("STRIDED_DEFAULT_DEVICE", None)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(root, "src"), env.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=root,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert len(p.stdout) > 1000
    assert bytes.fromhex(p.stdout) == battery(st)


INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64]


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("reps", [1, 3000])  # (8 and 24,000 elements: out= of 16 KiB and more too)
def test_integer_copies_are_the_definitions_through_every_door(dt, reps):
    # positive, and ceil/floor/trunc/round/real of integers, copy (np.positive's loop compiled)
    info = np.iinfo(dt)
    an = np.tile(np.array([0, 1, info.max, info.min, 7, info.max - 1, 3, 5], dt), reps)
    a = st.asarray(an)
    for name in ("positive", "ceil", "floor", "trunc", "round", "real"):
        fn = getattr(st, name)
        r = fn(a)
        _same(r, _py(fn)(a), name)
        _same(r, an.copy(), f"{name}: a copy")
        assert np.asarray(r).ctypes.data != an.ctypes.data and not np.shares_memory(np.asarray(r), np.asarray(a))
        o = st.asarray(np.zeros_like(an))
        o.storage()
        v0 = o.storage()._version
        assert fn(a, out=o) is o and o.storage()._version == v0 + 1
        _same(o, an, f"{name}(out=)")
        if name != "real":
            t = st.asarray(an.copy())
            getattr(t, name + "_")()
            _same(t, an, f"{name}_()")
    if COMPILED:
        for call in (lambda: st.floor(a, out=o), lambda: t.trunc_()):
            assert python_calls(call)[1] == []  # (the loop, at every size)
        fa = np.array([0x80000000, 0x7FA00001, 0xFFC00123], np.uint32).view(np.float32)
        f = st.asarray(fa)
        st.positive(f)
        assert python_calls(lambda: st.positive(f))[1] == []  # (a float: the loop too, stop 51)
        assert np.asarray(st.positive(f)).tobytes() == fa.tobytes()  # (-0.0, a signalling NaN, a payload)


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("name", ["bitwise_left_shift", "bitwise_right_shift"])
def test_shifts_by_every_count_are_the_definitions(dt, name):
    info = np.iinfo(dt)
    bits = 8 * np.dtype(dt).itemsize
    an = np.array([0, 1, info.max, info.min, 7, 5, info.max // 3, 2], dt)
    a = st.asarray(an)
    fn = getattr(st, name)
    op = {"bitwise_left_shift": "<<", "bitwise_right_shift": ">>"}[name]
    for c in (0, 1, 3, bits - 1, bits, bits + 1, 200, 10**30, -1, -(10**30)):
        want = _outcome(lambda: _py(fn)(a, c))
        got = _outcome(lambda: fn(a, c))
        assert got[1] == want[1], (c, got[1], want[1])  # the same error, or none
        if want[1] is None:
            _same(got[0], want[0], f"{name}(a, {c})")
            _same(eval(f"a {op} c"), want[0], f"a {op} {c}")
            if 0 <= c < bits:
                _same(got[0], getattr(np, name.replace("bitwise_", ""))(an, c), f"NumPy's, count {c}")
        for door, err, data, bump in _doors_shift(name, an, c):
            assert err == want[1], (door, c)
            assert data == (an.tobytes() if err else np.asarray(want[0]).tobytes()), (door, c)
            assert bump == (0 if err else 1), (door, c)
    counts = np.array([0, 1, bits - 1, bits, bits + 3, 2, 5, 1], dt)  # an array of counts: NumPy's own
    _same(fn(a, st.asarray(counts)), _py(fn)(a, st.asarray(counts)), f"{name}(a, counts)")
    _same(fn(3, st.asarray(counts)), _py(fn)(3, st.asarray(counts)), f"{name}(3, counts)")


def _doors_shift(name, an, c):
    op = {"bitwise_left_shift": "__ilshift__", "bitwise_right_shift": "__irshift__"}[name]
    got = []
    for door in ("out", "inplace"):
        t = st.asarray(an.copy())
        t.storage()
        v0 = t.storage()._version
        r, err = _outcome(lambda: getattr(st, name)(t, c, out=t) if door == "out" else getattr(t, op)(c))
        assert err is not None or r is t
        got.append((door, err, np.asarray(t).tobytes(), t.storage()._version - v0))
    return got


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_tanh_is_the_definitions_bits(dt):
    parts = [0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e-300, 40.0]
    re, im = np.meshgrid(parts, parts)
    zn = np.empty(re.size, dt)
    zn.real, zn.imag = re.ravel(), im.ravel()
    for chunk in (zn, zn[np.isfinite(zn)]):  # (with infinite parts: the correction; without: the loop)
        z = st.asarray(chunk)
        _same(st.tanh(z), _py(st.tanh)(z), "tanh")
        o = st.empty(chunk.shape, dtype=z.dtype)
        _same(st.tanh(z, out=o), _py(st.tanh)(z), "tanh(out=)")
    # the standard: tanh(+inf + yj) is 1 + 0j with the sign of sin(2y) -> copysign(0, y)
    r = np.asarray(st.tanh(st.asarray(np.array([complex(np.inf, 2.0), complex(np.inf, -2.0)], dt))))
    assert np.array_equal(r, [1, 1]) and list(np.signbit(r.imag)) == [False, True]
