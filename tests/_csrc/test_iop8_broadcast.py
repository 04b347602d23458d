"""In-place arithmetic with an operand that broadcasts to the target (``X -= row``, ``X *=
column``, size-1 axes, 0-d; loops.c's loop_bcast behind fast.c's fast_inplace and fast_out):
each door (the operator, the ``sub_``-style method, ``out=``) against the Python definition
(``__wrapped__``, where the door is compiled), NumPy's ufunc with out= and PyTorch's
in-place methods: the same bytes, dtype, result identity, one version bump, the same error
(type and message), the operand unchanged; partial overlaps (``x -= x[0]``), named and
requires_grad targets take the Python path and answer as it does."""

import operator

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import strided as xp

torch = pytest.importorskip("torch")

CPU = "cpu"
# The compiled in-place door is the CPU's: arrays made without a device are the CPU's too,
# whatever the suite's default device (the cuda leg's).
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]
COMPILED = type(xp.Array.__isub__).__name__ == "Fast"

OPS = {"iadd": (operator.iadd, np.add, "add_"), "isub": (operator.isub, np.subtract, "sub_"),
       "imul": (operator.imul, np.multiply, "mul_"), "itruediv": (operator.itruediv, np.divide, "div_"),
       "ifloordiv": (operator.ifloordiv, np.floor_divide, None), "imod": (operator.imod, np.remainder, None),
       "ipow": (operator.ipow, np.power, None), "iand": (operator.iand, np.bitwise_and, None)}
FUNCS = {"iadd": "add", "isub": "subtract", "imul": "multiply", "itruediv": "divide"}
DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool", "complex64"]
VALUES = [0, 1, -1, 2, 3, -7, 0.5, -0.0, np.nan, np.inf, 1e30]


def _values(draw, dtype, shape):
    n = int(np.prod(shape)) if shape else 1
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))  # (rows of thousands: cheap to draw)
    with np.errstate(all="ignore"):
        a = np.array(VALUES, dtype=np.float64)[rng.integers(0, len(VALUES), n)]
        if dtype == "bool":
            return (a > 0).reshape(shape)
        if dtype[0] in "iu":
            a = np.abs(np.clip(np.nan_to_num(a, nan=0, posinf=5), -9, 9)) if dtype[0] == "u" else \
                np.clip(np.nan_to_num(a, nan=0, posinf=5), -9, 9)
        return a.astype(dtype).reshape(shape)


@st.composite
def cases(draw):
    """(op, door, target, operand): the operand's shape broadcasts to the target's (a row,
    a column, size-1 axes, fewer axes, 0-d) or, now and then, would grow it."""
    op = draw(st.sampled_from(sorted(OPS)))
    door = draw(st.sampled_from(["operator", "operator", "method", "out"]))
    if door == "method" and OPS[op][2] is None or door == "out" and op not in FUNCS:
        door = "operator"
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=4)))
    if draw(st.integers(0, 3)) == 0:  # (a long row: the tile buffer holds few copies, or one)
        shape = shape[:-1] + (draw(st.sampled_from([700, 1100, 2100])),)
    k = draw(st.integers(0, len(shape)))
    oshape = [1 if draw(st.integers(0, 2)) == 0 else n for n in shape[k:]]
    if draw(st.integers(0, 9)) == 0:  # a broadcast that would grow the target
        i = draw(st.integers(0, len(shape) - 1))
        oshape = list(shape)
        oshape[i] = shape[i] + 2 if shape[i] != 1 else 3
    d1, d2 = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    if draw(st.booleans()):
        d2 = d1
    return op, door, _values(draw, d1, shape), _values(draw, d2, tuple(oshape))


def _outcome(fn):
    try:
        with np.errstate(all="ignore"):
            return fn(), None
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return None, (type(e), str(e))


def _call(op, door, x, y, slow=False):
    fn, _, meth = OPS[op]
    if door == "operator":
        return (getattr(xp.Array, f"__{op}__").__wrapped__ if slow else fn)(x, y)
    if door == "method":
        f = getattr(xp.Array, meth)
        return (f.__wrapped__ if slow else f)(x, y)
    f = getattr(xp, FUNCS[op])
    return (f.__wrapped__ if slow else f)(x, y, out=x)


def _run(op, door, a, b, slow=False):
    x = xp.asarray(a.copy(), device=CPU)
    y = xp.asarray(b.copy(), device=CPU)
    v0 = x.storage()._version
    r, err = _outcome(lambda: _call(op, door, x, y, slow))
    assert np.asarray(y).tobytes() == b.tobytes()  # the operand as it was
    if err is None:
        assert r is x
    return err, np.asarray(x).tobytes(), x.dtype, x.storage()._version - v0


def _bits(a):
    return np.ascontiguousarray(a).tobytes()


@settings(max_examples=250, deadline=None)
@given(c=cases())
@example(c=("isub", "operator", np.arange(12.0).reshape(3, 4), np.arange(4.0)))
@example(c=("imul", "method", np.ones((3, 4), np.float32), np.full((3, 1), 3, np.float32)))
@example(c=("isub", "operator", np.ones((3, 4), np.int64), np.ones(4)))  # a float operand, int target
@example(c=("isub", "out", np.ones((1, 4)), np.ones((3, 4))))  # would grow the target
def test_broadcast_operand_equals_python_numpy_and_torch(c):
    op, door, a, b = c
    got = _run(op, door, a, b)
    if COMPILED:
        assert got == _run(op, door, a, b, slow=True)  # compiled vs the Python definition
    err, data, dt, bump = got
    ref = a.copy()
    try:
        promoted = np.dtype(str(xp.result_type(xp.asarray(a).dtype, xp.asarray(b).dtype)))
    except TypeError:
        promoted = None
    other = b.astype(promoted) if promoted is not None and b.dtype != promoted else b
    try:
        with np.errstate(all="ignore"):
            OPS[op][1](ref, other, out=ref, casting="same_kind")
        nerr = None
    except (TypeError, ValueError) as e:  # noqa: BLE001 - NumPy refuses the cast or the shape
        nerr = e
    if err is not None:  # (the standard's refusals too: bool arithmetic, bitwise floats)
        # (nothing written; the version: as the Python path counts it, compared above --
        # Note: uint8 += int32 is refused by NumPy's cast check after the bump)
        assert data == a.tobytes()
        return
    assert bump == 1
    if nerr is not None or promoted != a.dtype or op in ("ipow", "ifloordiv", "imod"):
        return  # (strided follows PyTorch there: integer powers, floor division at inf)
    got = np.frombuffer(data, dtype=ref.dtype).reshape(ref.shape)
    assert _bits(got) == _bits(ref), (op, door, a.shape, b.shape, a.dtype)
    if door == "method" and a.dtype.kind == "f":  # PyTorch's in-place method
        t = torch.from_numpy(a.copy())
        getattr(t, OPS[op][2])(torch.from_numpy(b.copy()))
        np.testing.assert_array_equal(got, t.numpy())


@pytest.mark.parametrize("door", ["operator", "method", "out"])
@pytest.mark.parametrize("shape,row", [((3, 4), (0,)), ((3, 4), (slice(1, 2),)), ((2, 3, 4), (1,)),
                                       ((5, 4), (slice(0, 1), slice(None)))])
def test_an_operand_overlapping_the_target_is_numpys(door, shape, row):
    """``x -= x[0]``: the row is read as it was before the write (NumPy copies it first);
    PyTorch refuses the partial overlap."""
    a = np.arange(float(np.prod(shape))).reshape(shape) * 1.5 + 1
    for slow in ((False, True) if COMPILED else (False,)):
        x = xp.asarray(a.copy(), device=CPU)
        v0 = x.storage()._version
        _call("isub", door, x, x[row], slow)
        ref = a.copy()
        ref -= ref[row]
        np.testing.assert_array_equal(np.asarray(x), ref)
        assert x.storage()._version - v0 == 1
    t = torch.from_numpy(a.copy())
    with pytest.raises(RuntimeError, match="single memory location"):
        t.sub_(t[row])


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,oshape", [((300, 700), (700,)), ((300, 700), (300, 1)), ((4, 50, 20), (4, 1, 20)),
                                          ((6, 7, 2000), (7, 1)), ((2, 3, 4, 5), (3, 1, 5)),
                                          ((1000, 3), (3,)), ((5, 1, 4), (1, 4)), ((8, 6), ()),
                                          ((300, 300), (300, 300))])
def test_large_and_many_axes_bit_for_bit(dt, shape, oshape):
    """Above the elision threshold (the loop runs without the GIL), blocks that refill the
    tile (an operand that repeats along the rows but not the outer axis), rows longer
    than the tile, non-C-contiguous and reversed operands: NumPy's bits and one bump."""
    rng = np.random.default_rng(len(shape) * 100 + len(oshape))
    a = rng.standard_normal(shape).astype(dt)
    b = rng.standard_normal(oshape).astype(dt)
    square = b.ndim == 2 and b.shape[0] == b.shape[1]
    for bv in (b, b[..., ::-1] if b.ndim else b, np.asfortranarray(b)) + ((b.T,) if square else ()):
        for op in ("isub", "itruediv"):
            x = xp.asarray(a.copy(), device=CPU)
            y = xp.asarray(bv.copy() if bv.flags.c_contiguous else bv, device=CPU)
            v0 = x.storage()._version
            OPS[op][0](x, y)
            ref = a.copy()
            OPS[op][0](ref, bv)
            assert np.asarray(x).tobytes() == ref.tobytes(), (op, shape, oshape)
            assert x.storage()._version - v0 == 1


def test_errors_name_what_was_wrong():
    x = xp.asarray(np.ones((3, 4), np.int64), device=CPU)
    with pytest.raises(TypeError, match="float64 can't be cast to the desired output type int64"):
        x -= xp.asarray(np.ones(4), device=CPU)
    with pytest.raises(TypeError, match="float64 can't be cast to the desired output type int64"):
        x.sub_(xp.asarray(np.ones((3, 1)), device=CPU))
    y = xp.asarray(np.ones((1, 4)), device=CPU)
    with pytest.raises(ValueError, match=r"out has shape \(1, 4\) but the result has shape \(3, 4\)"):
        y -= xp.asarray(np.ones((3, 4)), device=CPU)
    assert np.asarray(x).tolist() == np.ones((3, 4)).tolist() and np.asarray(y).tolist() == [[1.0] * 4]


def test_named_and_tracked_targets_take_the_python_path():
    from strided import torch as st_torch

    a = np.arange(12.0).reshape(3, 4) + 1
    row = np.array([0.5, 1.0, 2.0, 4.0])
    # requires_grad: the graph is PyTorch's
    for spell in ("op", "method"):
        w = st_torch.tensor(a.copy(), requires_grad=True)
        r = st_torch.tensor(row.copy(), requires_grad=True)
        h = w * 2.0
        if spell == "op":
            h -= r
            h /= r
        else:
            h.sub_(r).div_(r)
        (h * h).sum().backward()
        tw = torch.tensor(a.copy(), requires_grad=True)
        tr = torch.tensor(row.copy(), requires_grad=True)
        th = tw * 2.0
        th -= tr
        th /= tr
        (th * th).sum().backward()
        np.testing.assert_allclose(np.asarray(h.detach()), th.detach().numpy(), rtol=1e-15)
        np.testing.assert_allclose(np.asarray(w.grad), tw.grad.numpy(), rtol=1e-14)
        np.testing.assert_allclose(np.asarray(r.grad), tr.grad.numpy(), rtol=1e-14)
        assert type(h.grad_fn).__name__ == type(th.grad_fn).__name__ == "DivBackward0"
    # a leaf that requires grad: autograd's own error, the same text on both paths
    msgs = []
    for slow in ((False, True) if COMPILED else (False,)):
        leaf = st_torch.tensor(a.copy(), requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            _call("isub", "operator", leaf, st_torch.tensor(row.copy()), slow)
        msgs.append(str(e.value))
    assert len(set(msgs)) == 1 and "requires grad" in msgs[0]
    # names: kept, checked
    x = st_torch.tensor(a.copy(), names=("N", "C"))
    x -= st_torch.tensor(row.copy(), names=("C",))
    assert x.names == ("N", "C")
    np.testing.assert_array_equal(np.asarray(x.rename(None)), a - row)
    with pytest.raises(Exception, match="dim 'C' and dim 'D'"):
        x -= st_torch.tensor(row.copy(), names=("D",))


@pytest.mark.skipif(not COMPILED, reason="the compiled operators are not active")
@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "complex64"])
@pytest.mark.parametrize("oshape", [(45,), (37, 1), (1, 45), (1, 1)])
def test_every_op_row_and_column_against_the_python_path(dt, oshape):
    """The loop's steps differ from NumPy's buffered ones for a column (stride 0, not a copy):
    each operator's bits against the Python path's ufunc call, with values that reach the
    loops' special cases (negatives, zeros, NaN, inf, huge)."""
    rng = np.random.default_rng(7)
    pool = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 0.5, np.nan, np.inf, -np.inf, 1e30, 7.0])
    with np.errstate(all="ignore"):
        a = np.where(rng.random((37, 45)) < 0.3, rng.choice(pool, (37, 45)), rng.standard_normal((37, 45)) * 4)
        b = np.where(rng.random(oshape) < 0.3, rng.choice(pool, oshape), rng.standard_normal(oshape) * 4)
        a, b = a.astype(dt), b.astype(dt)
    for op in OPS:
        if op == "iand" and dt[0] != "i":
            continue
        got, want = _run(op, "operator", a, b), _run(op, "operator", a, b, slow=True)
        assert got == want, (op, dt, oshape)
