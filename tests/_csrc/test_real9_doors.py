"""Two compiled writing doors at sizes the earlier tests did not reach (real9, issue 38):

- ``f(x1, x2, out=y)`` of a binary row from 16 KiB up (fast.c's fast_out: a binary row has no
  size bound, its Python door being one ufunc call into out's memory at every size; a unary
  row keeps the bound, above which its Python door runs strided's own threaded loop);
- ``X -= col`` with a column operand (shape (n, 1): one element per row) whose rows are
  short (loops.c's loop_bcast copies each element across its row, k rows a loop call).

Each against the Python definition (``__wrapped__``: the same bytes in the whole buffer,
dtype, result identity, one version bump, the same error) and NumPy's ufunc with out=."""

import operator

import numpy as np
import pytest

import strided as xp

from _outcome import outcome as _outcome

CPU = "cpu"
# (the compiled doors are the CPU's: arrays made without a device are the CPU's too)
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]
COMPILED = type(xp.add).__name__ == "Fast"
compiled = pytest.mark.skipif(not COMPILED, reason="the compiled path is not active")

BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
          "maximum": np.maximum, "less": np.less}
SPECIAL = [0.0, -0.0, 1.0, -1.5, np.nan, np.inf, -np.inf, 1e300, 5e-324]


def _data(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if dtype[0] in "iu":
        return rng.integers(0 if dtype[0] == "u" else -50, 50, n).astype(dtype)
    a = rng.standard_normal(n) * 10
    a[rng.integers(0, n, max(1, n // 50))] = np.array(SPECIAL)[rng.integers(0, len(SPECIAL), max(1, n // 50))]
    with np.errstate(over="ignore"):
        a = a.astype(dtype)
    if dtype == "float64" and n > 3:
        a[3] = np.frombuffer(np.uint64(0x7FF8000000000ABC).tobytes(), np.float64)[0]  # a NaN payload
    return a


def _layout(kind, n, a, b, o):
    """(x1, x2, out, the array over the whole buffer out is in) for one aliasing kind."""
    if kind == "independent":
        base = xp.asarray(o.copy(), device=CPU)
        return xp.asarray(a.copy(), device=CPU), xp.asarray(b.copy(), device=CPU), base, base
    if kind == "reversed":  # x2 a reversed view (read through its strides)
        base = xp.asarray(o.copy(), device=CPU)
        return xp.asarray(a.copy(), device=CPU), xp.asarray(b[::-1].copy(), device=CPU)[::-1], base, base
    buf = xp.asarray(np.concatenate([a, b[:1]]), device=CPU)
    if kind == "out is x1":
        return buf[:n], xp.asarray(b.copy(), device=CPU), buf[:n], buf
    # (a partial overlap: x1 one element further on in out's buffer; NumPy copies it first)
    return buf[1:n + 1], xp.asarray(b.copy(), device=CPU), buf[:n], buf


def _run(name, kind, n, a, b, o, slow):
    f = getattr(xp, name)
    f = f.__wrapped__ if slow else f
    x1, x2, y, base = _layout(kind, n, a, b, o)
    base.storage()
    before = np.asarray(x2).tobytes()
    v0 = base.storage()._version
    r, err = _outcome(lambda: f(x1, x2, out=y))
    if err is None:
        assert r is y
    assert np.asarray(x2).tobytes() == before  # (never out's memory here)
    return err, np.asarray(base).tobytes(), str(y.dtype), base.storage()._version - v0


@compiled
@pytest.mark.parametrize("n", [2048, 2049, 70001])  # (16 KiB of float64, one more, 560 KB)
@pytest.mark.parametrize("name,dtype,odtype,kind", [
    ("add", "float64", "float64", "independent"), ("subtract", "float64", "float64", "out is x1"),
    ("multiply", "float32", "float32", "reversed"), ("divide", "float64", "float64", "partial"),
    ("maximum", "float64", "float64", "independent"), ("less", "float32", "bool", "independent"),
    ("add", "int64", "int64", "out is x1"), ("add", "uint8", "uint8", "partial"),
    ("add", "float64", "float32", "independent"),  # (a cast out: refused, the same error)
    ("add", "float32", "float64", "independent"),  # (the result dtype not out's: the Python path)
])
def test_binary_out_above_16_kib_is_the_python_definition_and_numpy(n, name, dtype, odtype, kind):
    a, b = _data(dtype, n, 1), _data(dtype, n, 2)
    o = _data(odtype, n, 3) if odtype != "bool" else np.zeros(n, bool)
    got = _run(name, kind, n, a, b, o, False)
    assert got == _run(name, kind, n, a, b, o, True)
    err, data, dt, bump = got
    if err is not None:
        assert "can't be cast" in err[1] or "cast" in err[1], err
        return
    assert bump == 1 and dt == odtype
    # NumPy's ufunc with out= over the same buffer layout
    if kind in ("out is x1", "partial"):
        buf = np.concatenate([a, b[:1]])
        x1, y = (buf[:n], buf[:n]) if kind == "out is x1" else (buf[1:n + 1], buf[:n])
        with np.errstate(all="ignore"):
            BINARY[name](x1, b, out=y)
        ref = buf
    else:
        ref = o.copy()
        with np.errstate(all="ignore"):
            BINARY[name](a, b, out=ref, casting="same_kind")
    assert data == ref.tobytes(), (name, kind, n)


@compiled
def test_binary_out_above_the_bound_takes_the_compiled_door_and_unary_keeps_its_loop(monkeypatch):
    """A binary row's out= of 40 KB never reaches the Python writer (``out_native``, made to
    raise); a unary row's still takes its Python door there, which runs strided's own loop
    (``_unary_into``, the loop exp(x) runs, split on threads when large)."""
    from strided._api import elementwise as E

    def refuse(*a, **k):
        raise AssertionError("the Python out= door ran")
    ran = []
    real = E._unary_into
    monkeypatch.setattr(E, "_unary_into", lambda *a: ran.append(1) or real(*a))
    n = 5000
    a = xp.asarray(np.linspace(-3, 3, n), device=CPU)
    b = xp.asarray(np.full(n, 0.25), device=CPU)
    y = xp.asarray(np.zeros(n), device=CPU)
    v = y.storage()._version
    monkeypatch.setattr(E, "out_native", refuse)
    assert xp.add(a, b, out=y) is y and xp.multiply(y, 2.0, out=y) is y
    assert y.storage()._version == v + 2
    np.testing.assert_array_equal(np.asarray(y), (np.linspace(-3, 3, n) + 0.25) * 2.0)
    with pytest.raises(AssertionError, match="the Python out= door ran"):
        xp.add(a[::2], b[::2], out=y[::2])  # (a strided out: the Python path)
    monkeypatch.undo()
    monkeypatch.setattr(E, "_unary_into", lambda *a: ran.append(1) or real(*a))
    assert xp.exp(a, out=y) is y and ran == [1]
    assert np.asarray(y).tobytes() == np.exp(np.linspace(-3, 3, n)).tobytes()


COLUMNS = [((300, 20), (300, 1)), ((4, 150, 7), (150, 1)), ((4, 150, 7), (4, 150, 1)),
           ((3, 64), (3, 1)), ((250, 64), (250, 1)), ((250, 65), (250, 1)), ((5, 2), (5, 1)),
           ((2049, 3), (2049, 1)), ((1, 20), (1, 1))]


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int8", "uint16", "complex128"])
@pytest.mark.parametrize("shape,cshape", COLUMNS)
def test_column_operand_is_numpys_and_the_python_definitions(dtype, shape, cshape):
    """``X op= col`` (and ``op(X, col, out=X)``): tiled rows of one element each (several
    blocks of rows, a last partial block, outer axes, rows up to 64 long and one longer that
    is not tiled), strided and reversed columns: NumPy's bits (NaN payloads, -0.0), one
    version bump, the column unchanged; compiled as the Python definition."""
    a = _data(dtype, int(np.prod(shape)), 5).reshape(shape)
    c = _data(dtype, int(np.prod(cshape)) * 2, 6).reshape((2,) + cshape)
    if dtype[0] in "iu":
        c[c == 0] = 1
    columns = [c[0], c[1][::-1]] if len(cshape) == 2 else [c[0]]
    ops = [("isub", operator.isub, np.subtract, "subtract"), ("imul", operator.imul, np.multiply, "multiply")]
    if dtype[0] not in "iu":
        ops.append(("itruediv", operator.itruediv, np.divide, "divide"))
    for col in columns:
        for op, fn, ufunc, fname in ops:
            ref = a.copy()
            with np.errstate(all="ignore"):
                ufunc(ref, col, out=ref)
            for door in ("operator", "out", "operator slow"):
                x = xp.asarray(a.copy(), device=CPU)
                y = xp.asarray(col.copy(), device=CPU)
                if col.strides[0] < 0:  # (a reversed view of the column, read through its strides)
                    y = xp.asarray(col[::-1].copy(), device=CPU)[::-1]
                v0 = x.storage()._version
                with np.errstate(all="ignore"):
                    if door == "operator":
                        r = fn(x, y)
                    elif door == "out":
                        r = getattr(xp, fname)(x, y, out=x)
                    else:
                        r = getattr(xp.Array, f"__{op}__").__wrapped__(x, y) if COMPILED else fn(x, y)
                assert r is x
                assert np.asarray(x).tobytes() == ref.tobytes(), (op, door, shape, cshape, dtype)
                assert x.storage()._version - v0 == 1
                assert np.asarray(y).tobytes() == col.tobytes()
