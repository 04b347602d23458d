"""NumPy's protocols on strided arrays: __array_ufunc__ (NEP 13), __array_function__
(NEP 18), and the rule for operators that mix strided arrays and ndarrays
(docs/guide/interop.md, "Mixing with NumPy arrays"). NumPy is the reference.

Device-neutral: arrays are made on the suite's device and read back with ``host``;
an ndarray operand joins on that device (a host-to-device copy on cuda)."""

import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import strided as xp
from strided._numpy import protocols as proto
from conftest import assert_close, host

DEVICE = xp.get_default_device()  # the suite's device (the hypothesis tests can't take the fixture)

# --- the mixing rule, every operator, both orders -------------------------------------

INT = ["int8", "int16", "int32", "int64", "uint8"]
FLOAT = ["float32", "float64"]
NUMERIC = INT + FLOAT
OPS = {  # operator -> (dtypes it takes, values of the right operand: "any" or "positive")
    "add": (NUMERIC + ["complex128"], "any"), "sub": (NUMERIC + ["complex128"], "any"),
    "mul": (NUMERIC + ["complex128"], "any"), "truediv": (NUMERIC, "positive"),
    "floordiv": (NUMERIC, "positive"), "mod": (NUMERIC, "positive"), "pow": (NUMERIC, "positive"),
    "and_": (INT + ["bool"], "any"), "or_": (INT + ["bool"], "any"), "xor": (INT + ["bool"], "any"),
    "lshift": (INT, "positive"), "rshift": (INT, "positive"),
    "eq": (NUMERIC + ["bool"], "any"), "ne": (NUMERIC + ["bool"], "any"), "lt": (NUMERIC, "any"),
    "le": (NUMERIC, "any"), "gt": (NUMERIC, "any"), "ge": (NUMERIC, "any"),
}
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}


def _values(rng, dtype, shape, positive):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.asarray(rng.integers(0, 2, shape).astype(bool))
    if dt.kind in "iu":
        lo = 1 if positive else (0 if dt.kind == "u" else -3)
        return np.asarray(rng.integers(lo, 4, shape).astype(dt))
    v = rng.uniform(0.5, 3.0, shape) * (1 if positive else rng.choice([-1, 1], shape))
    if dt.kind == "c":
        v = v + 1j * rng.uniform(-2, 2, shape)
    return np.asarray(v.astype(dt))  # a 0-d ndarray, not a NumPy scalar


def _same_family(d1, d2):
    k1, k2 = np.dtype(d1).kind, np.dtype(d2).kind
    return (k1 == "b") == (k2 == "b") and ("c" not in (k1, k2) or k1 == k2)


@st.composite
def _case(draw, name):
    dtypes, values = OPS[name]
    d1 = draw(st.sampled_from(dtypes))
    d2 = draw(st.sampled_from([d for d in dtypes if _same_family(d1, d)]))
    s1, s2 = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4)).input_shapes
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return _values(rng, d1, s1, False), _values(rng, d2, s2, values == "positive")


def _check(r, a, b, op, name):
    """``r`` (strided) against NumPy on the operands cast to strided's result dtype."""
    assert type(r) is xp.Array, type(r)  # never an ndarray, never a plain bool
    res = xp.result_type(xp.asarray(a).dtype, xp.asarray(b).dtype)
    if name in COMPARISONS:
        assert r.dtype == xp.bool
    elif name == "truediv" and res.kind in "iu":
        assert r.dtype == xp.get_default_dtype()  # integer division gives the default float (PyTorch)
    else:
        assert r.dtype == res
    with np.errstate(all="ignore"):  # a negative base to a fractional power: NaN in both
        ref = op(a.astype(res._np), b.astype(res._np))
    if name == "truediv" and res.kind in "iu":
        ref = ref.astype(r.dtype._np)
    got = host(r)
    assert got.shape == ref.shape
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, ref, rtol=2e-6 if res == xp.float32 else 1e-12)
    else:
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_strided_op_ndarray(name, data):
    a, b = data.draw(_case(name))
    op = getattr(operator, name)
    _check(op(xp.asarray(a, device=DEVICE), b), a, b, op, name)


@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_ndarray_op_strided(name, data):
    a, b = data.draw(_case(name))  # the ndarray on the left
    op = getattr(operator, name)
    _check(op(a, xp.asarray(b, device=DEVICE)), a, b, op, name)


@settings(max_examples=20, deadline=None)
@given(shapes=st.sampled_from([((2, 3), (3, 4)), ((3,), (3,)), ((2, 2, 3), (3, 2)), ((4,), (4, 2))]),
       dtype=st.sampled_from(FLOAT), seed=st.integers(0, 2**32 - 1))
def test_matmul_both_orders(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    a, b = (rng.normal(size=s).astype(dtype) for s in shapes)
    for r in (xp.asarray(a, device=DEVICE) @ b, a @ xp.asarray(b, device=DEVICE)):
        assert type(r) is xp.Array and r.dtype == dtype
        np.testing.assert_allclose(host(r), a @ b, rtol=1e-5)


def test_equality_with_an_ndarray_is_elementwise(device):
    x = xp.asarray([1.0, 2.0, 3.0], device=device)
    n = np.array([1.0, 0.0, 3.0])
    for r in (x == n, n == x, x != n, n != x):
        assert type(r) is xp.Array and r.dtype == xp.bool and r.shape == (3,)
    assert host(x == n).tolist() == [True, False, True]
    assert host(n != x).tolist() == [False, True, False]


@pytest.mark.parametrize("name", ["iadd", "isub", "imul"])
def test_inplace_operators_keep_the_left_operand(name, device):
    a = np.arange(6.0).reshape(2, 3)
    n = np.array([1.0, 2.0, 3.0])
    op = getattr(operator, name)
    x = xp.asarray(a.copy(), device=device)
    y = op(x, n)  # strided op= ndarray: in place, a strided array
    assert y is x and np.array_equal(host(x), op(a.copy(), n))
    m = a.copy()
    z = op(m, xp.asarray(n, device=device)[None, :].expand(2, 3)) if device.type == "cpu" else None
    if z is not None:  # ndarray op= strided: the ndarray in place (NumPy writes into it)
        assert z is m and np.array_equal(m, op(a.copy(), n))


def test_numpy_scalars_act_as_python_scalars(device):
    x = xp.asarray(np.arange(3, dtype=np.float32), device=device)
    for r in (x + np.float64(1.5), np.float64(1.5) + x, np.add(x, np.float64(1.5))):
        assert type(r) is xp.Array and r.dtype == xp.float32
        np.testing.assert_array_equal(host(r), np.arange(3, dtype=np.float32) + np.float32(1.5))
    z = x + np.array(1.5)  # a 0-d ndarray is an array: it takes part in promotion
    assert z.dtype == xp.float64
    for r in (x - x.size, np.subtract(x, x.size)):  # x.size: an int subclass, a Python int here
        assert r.dtype == xp.float32 and host(r).tolist() == [-3.0, -2.0, -1.0]


# --- __array_ufunc__ ----------------------------------------------------------------------

BITWISE = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_left_shift",
           "bitwise_right_shift"}
UFUNCS = sorted(proto._UFUNCS.items(), key=lambda kv: kv[0].__name__)


def _ufunc_inputs(uf, ours, rng):
    if ours in ("matmul", "vecdot"):
        return [rng.normal(size=(3, 3)), rng.normal(size=(3, 3))]
    if ours in BITWISE:
        return [rng.integers(0, 4, 5) for _ in range(uf.nin)]
    if ours.startswith("logical_"):
        return [rng.integers(0, 2, 5).astype(bool) for _ in range(uf.nin)]
    lo = 1.1 if ours == "acosh" else 0.1  # inside every function's domain
    return [rng.uniform(lo, lo + 0.8, 5) for _ in range(uf.nin)]


@pytest.mark.parametrize("uf,ours", UFUNCS, ids=[uf.__name__ for uf, _ in UFUNCS])
def test_every_mapped_ufunc_runs_stridеds_function(uf, ours, device):
    rng = np.random.default_rng(0)
    args = _ufunc_inputs(uf, ours, rng)
    r = uf(*(xp.asarray(a, device=device) for a in args))
    assert type(r) is xp.Array
    ref = uf(*args)
    np.testing.assert_allclose(host(r).astype(ref.dtype), ref, rtol=1e-12, atol=1e-15)
    assert r.dtype == ref.dtype


@pytest.mark.parametrize("dtype", ["int8", "int16", "int64", "uint8", "bool"])
@pytest.mark.parametrize("uf,ours", UFUNCS, ids=[uf.__name__ for uf, _ in UFUNCS])
def test_numpy_ufuncs_on_integers_compute_in_numpys_loop_dtype(uf, ours, dtype, device):
    # np.sqrt(int64 array) is float64 in NumPy; strided.sqrt takes floating dtypes only
    # (the standard's signature), so a NumPy call casts as NumPy's loop would (cubed's
    # blockwise test calls np.sqrt on int64 chunks). What strided computes itself is
    # unchanged: xp.sqrt(int64) still raises. The ufuncs strided computes on integers
    # itself (matmul, vecdot, the bitwise ones) run too: the protocol must change nothing.
    rng = np.random.default_rng(1)
    a = [rng.integers(1, 4, 5).astype(dtype) for _ in range(uf.nin)]
    try:
        with np.errstate(all="ignore"):
            ref = uf(*a)
    except TypeError:  # NumPy has no loop for these dtypes (np.subtract of bools): nor do we
        with pytest.raises(TypeError):
            uf(*(xp.asarray(v, device=device) for v in a))
        return
    try:
        ours_fn_result = getattr(xp, ours)(*(xp.asarray(v, device=device) for v in a))
    except TypeError:
        ours_fn_result = None  # strided's own function refuses: the NumPy call casts
    loop = uf.resolve_dtypes(tuple(v.dtype for v in a) + (None,) * uf.nout)
    if ours_fn_result is None and not any(d.kind in "fc" for d in loop[:uf.nin]):
        # NumPy computes these in an integer or bool loop that the standard's signature
        # refuses (np.add of bools is logical or): strided's refusal stands.
        with pytest.raises(TypeError, match=ours):
            uf(*(xp.asarray(v, device=device) for v in a))
        return
    r = uf(*(xp.asarray(v, device=device) for v in a))
    if ours_fn_result is not None:  # strided computes it itself: the protocol changes nothing
        assert r.dtype == ours_fn_result.dtype
        np.testing.assert_array_equal(host(r), host(ours_fn_result))
    else:
        assert r.dtype == ref.dtype
        # NumPy's bits on the CPU (its loop, cast as NumPy casts); a GPU's kernel within the
        # function's documented ulps
        assert_close(r, ref, ulps=ours)


def test_ufunc_table_maps_numpy_spellings():
    names = {uf.__name__: ours for uf, ours in proto._UFUNCS.items()}
    assert names["divide"] == "divide" and np.true_divide in proto._UFUNCS
    assert names["power"] == "pow" and names["arctan2"] == "atan2" and names["absolute"] == "abs"
    assert names["invert"] == "bitwise_invert" and names["left_shift"] == "bitwise_left_shift"


def test_ufunc_out_dtype_and_methods(device):
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a, device=device)
    out = xp.empty((3, 4), dtype=xp.float64, device=device)
    r = np.multiply(x, 2.0, out=out)
    assert r is out and np.array_equal(host(out), a * 2)
    assert np.add(x, x, dtype=np.float32).dtype == xp.float32
    with pytest.raises(TypeError, match=r"numpy\.add: can't cast the float64 result to out='s int64"):
        np.add(x, 1.0, out=xp.empty((3, 4), dtype=xp.int64, device=device))
    low = xp.empty((3, 4), dtype=xp.float32, device=device)
    assert np.add(x, 1.0, out=low) is low  # same kind: allowed, as in NumPy
    np.testing.assert_allclose(host(low), a + 1)
    for method, axis, ref in [(np.add.reduce, 0, a.sum(0)), (np.add.reduce, None, a.sum()),
                              (np.multiply.reduce, 1, a.prod(1)), (np.maximum.reduce, 1, a.max(1)),
                              (np.minimum.reduce, None, a.min()), (np.add.accumulate, 0, np.cumsum(a, 0)),
                              (np.multiply.accumulate, 1, np.cumprod(a, 1))]:
        r = method(x, axis=axis)
        assert type(r) is xp.Array
        np.testing.assert_allclose(host(r), ref)
    assert host(np.add.reduce(x, axis=1, keepdims=True)).shape == (3, 1)
    assert host(np.logical_and.reduce(x > 0, axis=None)).item() is False
    np.testing.assert_array_equal(host(np.subtract.outer(x[0], x[:, 0])), np.subtract.outer(a[0], a[:, 0]))


def test_ufunc_into_an_ndarray_out():
    x = xp.asarray(np.arange(3.0), device="cpu")  # NumPy writes host memory (on a GPU: test_device_backend)
    out = np.zeros(3)
    assert np.add(x, 1.0, out=out) is out and out.tolist() == [1.0, 2.0, 3.0]
    m = np.ones(3)
    m += x  # ndarray += strided: NumPy writes into the ndarray
    assert m.tolist() == [1.0, 2.0, 3.0]


UNIMPLEMENTED_UFUNC_CALLS = {
    r"numpy\.fmod": lambda m, x: m.fmod(x, 2.0),
    r"numpy\.add\.reduceat": lambda m, x: m.add.reduceat(x, [0, 1]),
    r"numpy\.subtract\.reduce": lambda m, x: m.subtract.reduce(x),
    r"numpy\.add: .*where=": lambda m, x: m.add(x, x, where=np.array([True, False, True]),
                                            out=xp.ones_like(x) if type(x) is xp.Array else np.ones(3)),
    r"numpy\.add\.reduce: .*initial=": lambda m, x: m.add.reduce(x, initial=5.0),
}


@pytest.mark.parametrize("what", sorted(UNIMPLEMENTED_UFUNC_CALLS))
def test_unimplemented_ufuncs_and_arguments_take_numpys_path_on_the_cpu(what, device):
    # The CPU: NumPy's own loop through __array__ (no new TypeError), the result a strided
    # array. Another device: a TypeError that names the call and the way out.
    call = UNIMPLEMENTED_UFUNC_CALLS[what]
    a = np.arange(1.0, 4.0)
    x = xp.asarray(a, device=device)
    if device.type != "cpu":
        with pytest.raises(TypeError, match=rf"{what}.*x\.cpu\(\)"):
            call(np, x)
        return
    got, want = call(np, x), call(np, a)
    assert type(got) is xp.Array
    np.testing.assert_array_equal(host(got), want)


def test_foreign_overrides_get_their_turn(device):
    class Other:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "other's"

        def __array_function__(self, func, types, args, kwargs):
            return "other's"
    x = xp.asarray([1.0], device=device)
    assert np.add(x, Other()) == "other's"
    assert np.concatenate([x, Other()]) == "other's"


def test_numpy_ufunc_keeps_autograd(device):
    x = xp.asarray([0.3, 1.2], dtype=xp.float64, device=device, requires_grad=True)
    y = np.sum(np.sin(x) * 2.0)
    y.backward()
    np.testing.assert_allclose(host(x.grad), 2 * np.cos([0.3, 1.2]), rtol=1e-12)


# --- __array_function__ ---------------------------------------------------------------------

A = np.arange(1.0, 13.0).reshape(3, 4) ** 1.5 % 7
V = np.array([3.0, 1.0, 2.0, 3.0])


def SQ(a):  # a well-conditioned square matrix made from the input (strided stays strided)
    return a[:, :3] + 3 * np.eye(3)


def SPD(a):
    return SQ(a) @ SQ(a).T


CALLS = {
    "sum": lambda m, a: m.sum(a, axis=0),
    "sum_keep": lambda m, a: m.sum(a, 1, keepdims=True),
    "sum_dtype": lambda m, a: m.sum(a, dtype=np.float32),
    "prod": lambda m, a: m.prod(a, axis=1),
    "max": lambda m, a: m.max(a, axis=0),
    "amax": lambda m, a: m.amax(a),
    "min": lambda m, a: m.min(a, 1),
    "argmax": lambda m, a: m.argmax(a, axis=1),
    "argmin": lambda m, a: m.argmin(a),
    "argmax_keep": lambda m, a: m.argmax(a, axis=0, keepdims=True),
    "mean": lambda m, a: m.mean(a, axis=(0, 1)),
    "std": lambda m, a: m.std(a, axis=0, ddof=1),
    "var": lambda m, a: m.var(a, correction=1),
    "any": lambda m, a: m.any(a > 5, axis=0),
    "all": lambda m, a: m.all(a > 0),
    "count_nonzero": lambda m, a: m.count_nonzero(a > 3, axis=1),
    "cumsum": lambda m, a: m.cumsum(a),
    "cumsum_axis": lambda m, a: m.cumsum(a, axis=1),
    "cumprod": lambda m, a: m.cumprod(a, 0),
    "cumulative_sum": lambda m, a: m.cumulative_sum(a, axis=1),
    "where": lambda m, a: m.where(a > 3, a, 0.0),
    "where1": lambda m, a: m.where(a > 3)[1],
    "clip": lambda m, a: m.clip(a, 1.0, 4.0),
    "round": lambda m, a: m.round(a, 2),
    "concatenate": lambda m, a: m.concatenate([a, a[:1]]),
    "concat_none": lambda m, a: m.concatenate([a, a], axis=None),
    "stack": lambda m, a: m.stack([a, a], axis=1),
    "transpose": lambda m, a: m.transpose(a),
    "transpose_axes": lambda m, a: m.transpose(a[None], (1, 0, 2)),
    "reshape": lambda m, a: m.reshape(a, (4, 3)),
    "reshape_int": lambda m, a: m.reshape(a, -1),
    "ravel": lambda m, a: m.ravel(a.T),
    "squeeze": lambda m, a: m.squeeze(a[None, :, None]),
    "expand_dims": lambda m, a: m.expand_dims(a, (0, 3)),
    "swapaxes": lambda m, a: m.swapaxes(a, 0, 1),
    "moveaxis": lambda m, a: m.moveaxis(a[None], 0, -1),
    "broadcast_to": lambda m, a: m.broadcast_to(a[0], (2, 4)),
    "flip": lambda m, a: m.flip(a, 0),
    "roll": lambda m, a: m.roll(a, 2, axis=1),
    "tile": lambda m, a: m.tile(a, (1, 2)),
    "repeat": lambda m, a: m.repeat(a, 2, axis=0),
    "take": lambda m, a: m.take(a, [2, 0], axis=1),
    "take_flat": lambda m, a: m.take(a, [[1, 5]]),
    "take_along_axis": lambda m, a: m.take_along_axis(a, m.argsort(a, 1), 1),
    "compress": lambda m, a: m.compress([True, False, True], a, axis=0),
    "compress_long": lambda m, a: m.compress(a[0] > 1, a[:, 0]),
    "compress_flat": lambda m, a: m.compress(m.ravel(a) > 3, a),
    "diff": lambda m, a: m.diff(a, axis=0),
    "tril": lambda m, a: m.tril(a, -1),
    "triu": lambda m, a: m.triu(a, 1),
    "diagonal": lambda m, a: m.diagonal(a, 1),
    "trace": lambda m, a: m.trace(a),
    "dot": lambda m, a: m.dot(a, a.T),
    "dot_vec": lambda m, a: m.dot(a, a[0]),
    "vdot": lambda m, a: m.vdot(a, a),
    "inner": lambda m, a: m.inner(a, a),
    "outer": lambda m, a: m.outer(a[0], a[1]),
    "tensordot": lambda m, a: m.tensordot(a, a, axes=([1], [1])),
    "einsum": lambda m, a: m.einsum("ij,kj->ik", a, a),
    "kron": lambda m, a: m.kron(a[:2, :2], a[:2, :2]),
    "matmul": lambda m, a: m.matmul(a, a.T),
    "sort": lambda m, a: m.sort(a, axis=0),
    "sort_none": lambda m, a: m.sort(a, axis=None),
    "argsort": lambda m, a: m.argsort(a, axis=1),
    "unique": lambda m, a: m.unique(m.round(a)),
    "unique_counts": lambda m, a: m.unique(m.round(a), return_counts=True)[1],
    "searchsorted": lambda m, a: m.searchsorted(m.sort(a[0]), a[1]),
    "isin": lambda m, a: m.isin(m.round(a), [1.0, 2.0]),
    "nonzero": lambda m, a: m.nonzero(a > 4)[0],
    "argwhere": lambda m, a: m.argwhere(a > 4),
    "zeros_like": lambda m, a: m.zeros_like(a),
    "ones_like": lambda m, a: m.ones_like(a, dtype=np.int32),
    "full_like": lambda m, a: m.full_like(a, 7.0),
    "full_like_shape": lambda m, a: m.full_like(a, 2.0, shape=(2,)),
    "full_like_pos": lambda m, a: m.full_like(a, 3, np.int32),
    "copy": lambda m, a: m.copy(a),
    "real": lambda m, a: m.real(a),
    "imag": lambda m, a: m.imag(a + 1j),
    "isclose": lambda m, a: m.isclose(a, a + 1e-9),
    "atleast_2d": lambda m, a: m.atleast_2d(a[0]),
    "atleast_3d": lambda m, a: m.atleast_3d(a),
    "convolve": lambda m, a: m.convolve(a[0], a[1, :3]),
    "convolve_same": lambda m, a: m.convolve(a[0], a[1, :3], mode="same"),
    "polyval": lambda m, a: m.polyval(a[0], a[1]),
    "unwrap": lambda m, a: m.unwrap(a * 3, axis=1),
    "cross": lambda m, a: m.cross(a[:, :3], a[:, 1:]),
    "meshgrid": lambda m, a: m.meshgrid(a[0], a[1, :2])[1],
    "broadcast_arrays": lambda m, a: m.broadcast_arrays(a, a[0])[1],
    "linalg.norm": lambda m, a: m.linalg.norm(a),
    "linalg.norm_axis": lambda m, a: m.linalg.norm(a, axis=1),
    "linalg.norm_ord": lambda m, a: m.linalg.norm(a, ord=1),
    "linalg.norm_mat": lambda m, a: m.linalg.norm(a[None], axis=(1, 2)),
    "linalg.inv": lambda m, a: m.linalg.inv(SQ(a)),
    "linalg.det": lambda m, a: m.linalg.det(SQ(a)),
    "linalg.solve": lambda m, a: m.linalg.solve(SQ(a), a[:, 0]),
    "linalg.eigvalsh": lambda m, a: m.linalg.eigvalsh(SPD(a)),
    "linalg.eigvalsh_U": lambda m, a: m.linalg.eigvalsh(np.triu(SPD(a)), UPLO="U"),
    "linalg.svd_vals": lambda m, a: m.linalg.svd(a, compute_uv=False),
    "linalg.cholesky": lambda m, a: m.linalg.cholesky(SPD(a)),
    "linalg.matrix_power": lambda m, a: m.linalg.matrix_power(SQ(a), 3),
    "linalg.pinv": lambda m, a: m.linalg.pinv(a),
    "linalg.matrix_rank": lambda m, a: m.linalg.matrix_rank(a),
    "linalg.multi_dot": lambda m, a: m.linalg.multi_dot([a, a.T, a]),
    "linalg.qr_complete": lambda m, a: m.abs(m.linalg.qr(SQ(a), mode="complete").R),
    "linalg.cholesky_upper": lambda m, a: m.linalg.cholesky(SPD(a), upper=True),
    "linalg.trace": lambda m, a: m.linalg.trace(SQ(a), offset=1),
    "linalg.vector_norm": lambda m, a: m.linalg.vector_norm(a, axis=0, ord=1),
    "linalg.slogdet": lambda m, a: m.linalg.slogdet(SQ(a)).logabsdet,
    "unique_counts_std": lambda m, a: m.unique_counts(m.round(a)).counts,
    "fft.fft": lambda m, a: m.fft.fft(a, axis=0),
    "fft.rfft": lambda m, a: m.fft.rfft(a, n=6),
    "fft.ifft_norm": lambda m, a: m.fft.ifft(a, norm="ortho"),
    "fft.fft2": lambda m, a: m.fft.fft2(a),
    "fft.irfftn": lambda m, a: m.fft.irfftn(m.fft.rfftn(a)),
    "fft.fftshift": lambda m, a: m.fft.fftshift(a, axes=1),
}


class _NP:
    """NumPy's namespace with inputs that stay ndarrays (the reference)."""

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_function_runs_strideds(name, device):
    call = CALLS[name]
    ref = call(np, A)
    x = xp.asarray(A, device=device)
    got = call(np, x)
    refs, gots = (ref, got) if isinstance(ref, tuple) else ((ref,), (got,))
    for r, g in zip(refs, gots):
        assert type(g) is xp.Array, (name, type(g))  # NumPy functions return strided arrays
        assert g.device == x.device
        r = np.asarray(r)
        gv = host(g)
        assert gv.shape == r.shape, (name, gv.shape, r.shape)
        np.testing.assert_allclose(gv.astype(r.dtype), r, rtol=1e-10, atol=1e-12)


def test_max_min_argmax_reach_the_namespace_reductions(device):
    x = xp.asarray(A, device=device)
    for f in (np.max, np.min, np.argmax, np.argmin, np.amax, np.amin):
        r = f(x, axis=1)
        assert type(r) is xp.Array and r.shape == (3,)  # never (values, indices)
        np.testing.assert_array_equal(host(r), f(A, axis=1))


def test_metadata_functions(device):
    x = xp.asarray(A, device=device)
    assert np.shape(x) == (3, 4) and np.ndim(x) == 2 and np.size(x) == 12 and np.size(x, 1) == 4
    assert np.result_type(x, np.float32) == np.float64
    assert np.result_type(xp.asarray(A, dtype=xp.float32, device=device), 1.0) == np.float32
    assert np.can_cast(x, np.float32, "same_kind") and not np.iscomplexobj(x) and np.isrealobj(x)
    assert np.allclose(x, A) is True and np.array_equal(x, x) is True and np.array_equal(x, x[:2]) is False
    assert np.shares_memory(x, x[1:]) and not np.shares_memory(x[:1], x[2:])
    assert np.may_share_memory(x, x.T)


def test_mixed_ndarray_arguments_follow_the_rule(device):
    x = xp.asarray(A, device=device)
    r = np.concatenate([x, A])
    assert type(r) is xp.Array and r.device == x.device
    np.testing.assert_array_equal(host(r), np.concatenate([A, A]))
    r = np.where(A > 3, x, A)
    assert type(r) is xp.Array
    np.testing.assert_array_equal(host(r), A)


def test_function_out_and_unsupported_arguments(device):
    x = xp.asarray(A, device=device)
    out = xp.empty((4,), dtype=xp.float64, device=device)
    assert np.sum(x, axis=0, out=out) is out
    np.testing.assert_allclose(host(out), A.sum(0))
    if device.type != "cpu":
        # Arguments or functions strided does not implement: NumPy can't read the device.
        with pytest.raises(TypeError, match=r"numpy\.sum\(\).*initial=.*x\.cpu\(\)"):
            np.sum(x, initial=3.0)
        with pytest.raises(TypeError, match=r"numpy\.linalg\.lstsq\(\) is not implemented .*on cuda"):
            np.linalg.lstsq(x, x[:, 0])
        return
    # On the CPU they take NumPy's path (through __array__), the results strided arrays.
    r = np.sum(x, initial=3.0)
    assert type(r) is xp.Array and r.item() == A.sum(initial=3.0)
    with pytest.raises(ValueError):  # NumPy's own error: A has no fields
        np.sort(x, order="f")
    sol, res, rank, sv = np.linalg.lstsq(x, x[:, 0])
    want = np.linalg.lstsq(A, A[:, 0])
    assert type(sol) is xp.Array and type(rank) is xp.Array
    np.testing.assert_allclose(host(sol), want[0], atol=1e-12)
    assert rank.item() == want[2]


# The functions strided adds beyond the standard (nan reductions, median, quantile) are
# looked up when called: NumPy's reach them wherever strided has them, else NumPy's own
# run (on the CPU; elsewhere a TypeError names the missing function).
LATE_CALLS = {
    "nansum": (lambda m, a: m.nansum(a, axis=0), "nansum"),
    "nanmean": (lambda m, a: m.nanmean(a), "nanmean"),
    "nanmax": (lambda m, a: m.nanmax(a, axis=1), "nanmax"),
    "nanmin": (lambda m, a: m.nanmin(a), "nanmin"),
    "nanstd": (lambda m, a: m.nanstd(a, axis=0, ddof=1), "nanstd"),
    "nanvar": (lambda m, a: m.nanvar(a), "nanvar"),
    "nanargmax": (lambda m, a: m.nanargmax(a, axis=1), "nanargmax"),
    "nanprod": (lambda m, a: m.nanprod(a), "nanprod"),
    "median": (lambda m, a: m.median(a, axis=0), "median"),
    "quantile": (lambda m, a: m.quantile(a, 0.3, axis=1), "quantile"),
    "percentile": (lambda m, a: m.percentile(a, 30.0), "quantile"),
}


@pytest.mark.parametrize("name", sorted(LATE_CALLS))
def test_extension_functions_are_found_when_strided_has_them(name, device):
    call, ours = LATE_CALLS[name]
    a = A.copy()
    a[1, 2] = np.nan if name.startswith("nan") else a[1, 2]
    x = xp.asarray(a, device=device)
    if not hasattr(xp, ours) and device.type != "cpu":
        with pytest.raises(TypeError, match=rf"it has no {ours}"):
            call(np, x)
        return
    got = call(np, x)
    assert type(got) is xp.Array
    np.testing.assert_allclose(host(got), call(np, a), rtol=1e-10)


@pytest.mark.parametrize("call", [lambda x: np.asarray([1, 2], like=x), lambda x: np.zeros((2, 3), like=x),
                                  lambda x: np.full(2, 1.5, like=x), lambda x: np.arange(1, 4, like=x),
                                  lambda x: np.eye(3, k=1, like=x), lambda x: np.array([[1.0]], ndmin=3, like=x),
                                  lambda x: np.ones(2, dtype=np.int8, like=x), lambda x: np.identity(2, like=x)])
def test_numpy_creation_with_like_makes_strided_arrays(call, device):
    ref = call(np.empty(0))
    got = call(xp.ones(1, device=device))
    assert type(got) is xp.Array and got.device == device and got.dtype == ref.dtype
    np.testing.assert_array_equal(host(got), ref)


# --- conversion to NumPy ------------------------------------------------------------------

def test_asarray_of_an_array_that_requires_grad_refuses_like_numpy(device):
    x = xp.ones(3, device=device, requires_grad=True)
    with pytest.raises((RuntimeError, TypeError)) as by_numpy:
        x.numpy()
    with pytest.raises(type(by_numpy.value)) as by_asarray:
        np.asarray(x)
    if device.type == "cpu":
        assert str(by_asarray.value) == str(by_numpy.value)
        assert "detach()" in str(by_asarray.value)
    np.testing.assert_array_equal(host(x.detach()), np.ones(3, np.float32))


def test_asarray_of_a_cpu_array_stays_zero_copy():
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a, device="cpu")[:, 1::2]
    n = np.asarray(x)
    assert np.shares_memory(n, a) and n.strides == (32, 16)


def test_imag_of_a_real_array_is_zeros_as_numpys(device):
    x = xp.ones(2, device=device)
    assert hasattr(x, "imag")  # xarray's runtime protocol checks use hasattr
    assert host(x.imag).tolist() == [0.0, 0.0] and x.imag.dtype == xp.float32
    z = xp.asarray(np.array([1 + 2j]), device=device)
    assert hasattr(z, "imag") and host(z.imag).tolist() == [2.0]
