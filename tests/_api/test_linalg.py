"""Linear algebra (main namespace and ``strided.linalg``), checked against NumPy.

Every function is compared with ``numpy``/``numpy.linalg`` on contiguous,
strided, negative-stride and transposed inputs, on stacks and on empty
matrices; results keep the input's precision; every error path raises our
error type with the function's name.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import strided as xp
from strided import linalg as LA

from conftest import LAYOUTS, assert_close as assert_numpy_close, assert_same, layout, sum_ulps, to_np

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
XPS = make_strategies_namespace(xp)
FLOATS = [np.float32, np.float64, np.complex64, np.complex128]


def rand(shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -9
        return rng.integers(lo, 10, shape).astype(dt)
    r = rng.standard_normal(shape)
    if dt.kind == "c":
        r = r + 1j * rng.standard_normal(shape)
    return r.astype(dt)


def well_conditioned(shape, dtype=np.float64, seed=0):
    """Random square matrices plus ``n * I``: safely invertible."""
    a = rand(shape, dtype, seed)
    return (a + shape[-1] * np.eye(shape[-1], dtype=dtype)).astype(dtype)


def hermitian_pd(shape, dtype=np.float64, seed=0):
    a = rand(shape, dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def assert_close(x, ref, dtype=None, rtol=None):
    """Same shape, the expected dtype, values within the precision's tolerance."""
    dtype = np.dtype(dtype if dtype is not None else ref.dtype)
    assert isinstance(x, xp.Array)
    assert tuple(x.shape) == ref.shape
    assert x.dtype._np == dtype, (x.dtype, dtype)
    r = rtol if rtol is not None else tol(dtype)
    np.testing.assert_allclose(to_np(x), ref, rtol=r, atol=r)


# --- matmul and the @ operators -------------------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 1, 3, 4), (5, 4, 2)),
    ((4, 3), (2, 3, 5)), ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((3, 0, 2), (2, 4)), ((2,), (0, 2, 1)),
]


@pytest.mark.parametrize("s1,s2", MATMUL_SHAPES)
@pytest.mark.parametrize("name", LAYOUTS)
def test_matmul_matches_numpy(s1, s2, name):
    r1, r2 = rand(s1, np.float64, 1), rand(s2, np.float64, 2)
    x1 = layout(r1, name) if len(s1) >= 2 or name != "transposed" else xp.asarray(r1)
    x2 = layout(r2, name) if len(s2) >= 2 or name != "transposed" else xp.asarray(r2)
    ref = np.matmul(r1, r2)
    assert_close(xp.matmul(x1, x2), np.asarray(ref))
    assert_close(x1 @ x2, np.asarray(ref))
    assert_close(xp.linalg.matmul(x1, x2), np.asarray(ref))


@pytest.mark.parametrize("d1,d2,res", [
    (np.int8, np.int16, np.int16), (np.uint8, np.uint8, np.uint8), (np.int64, np.int64, np.int64),
    (np.int32, np.float32, np.float32), (np.float32, np.float64, np.float64),
    (np.float32, np.complex64, np.complex64), (np.float64, np.complex64, np.complex128),
])
def test_matmul_promotes_and_integers_are_exact(d1, d2, res):
    r1, r2 = rand((2, 3, 4), d1, 1), rand((4, 5), d2, 2)
    out = xp.matmul(xp.asarray(r1), xp.asarray(r2))
    ref = np.matmul(r1.astype(res), r2.astype(res))
    if np.dtype(res).kind in "iu":
        assert_same(out, ref)
    else:
        assert_close(out, ref)


def test_matmul_integer_overflow_wraps_like_numpy():
    r = np.full((2, 2), 100, np.int8)
    assert_same(xp.asarray(r) @ xp.asarray(r), np.matmul(r, r))


def test_matmul_out_and_noncontiguous_out():
    r1, r2 = rand((3, 4), seed=1), rand((4, 2), seed=2)
    buf = xp.zeros((2, 3))
    out = buf.mT  # a transposed (non-contiguous) view
    res = xp.matmul(xp.asarray(r1), xp.asarray(r2), out=out)
    assert res is out
    np.testing.assert_allclose(to_np(buf).T, (r1 @ r2).astype(np.float32), rtol=1e-6)
    with pytest.raises(ValueError, match="matmul"):
        xp.matmul(xp.asarray(r1), xp.asarray(r2), out=xp.zeros((3, 3)))


@pytest.mark.parametrize("s1,s2", [((), (3,)), ((3,), ()), ((3,), (4,)), ((2, 3), (4,)),
                                   ((4,), (3, 2)), ((2, 3), (2, 3)), ((2, 2, 3), (3, 3, 2))])
def test_matmul_shape_errors(s1, s2):
    with pytest.raises(ValueError, match="matmul"):
        xp.matmul(xp.ones(s1), xp.ones(s2))
    with pytest.raises(ValueError, match="matmul"):
        xp.ones(s1) @ xp.ones(s2)


def test_matmul_type_errors(sim):
    a = xp.ones((2, 2))
    with pytest.raises(TypeError, match="matmul.*numeric.*bool"):
        xp.matmul(xp.ones((2, 2), dtype=xp.bool), a)
    with pytest.raises(TypeError, match="matmul"):
        xp.matmul(np.ones((2, 2)), a)
    with pytest.raises(TypeError):
        a @ [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(TypeError):
        [[1.0, 2.0], [3.0, 4.0]] @ a
    with pytest.raises(ValueError, match="different devices"):
        xp.matmul(a, xp.ones((2, 2), device=sim))


def test_matmul_on_another_device(sim):
    r = rand((2, 3, 3))
    out = xp.asarray(r, device=sim) @ xp.asarray(r, device=sim)
    assert out.device == sim
    np.testing.assert_allclose(out.cpu().numpy(), r @ r)


def test_imatmul_writes_in_place():
    r1, r2 = rand((2, 3, 3), seed=1), rand((3, 3), seed=2)
    x = xp.asarray(r1.copy())
    st = x.storage()
    alias = x[0]
    y = x
    y @= xp.asarray(r2)
    assert y is x and x.storage() is st
    np.testing.assert_allclose(to_np(x), r1 @ r2)
    np.testing.assert_allclose(to_np(alias), (r1 @ r2)[0])  # views see the write


def test_imatmul_refuses_a_shape_or_kind_change():
    x = xp.ones((2, 3))
    with pytest.raises(ValueError, match="shape"):
        x @= xp.ones((3, 4))
    with pytest.raises(ValueError, match="shape"):
        x @= xp.ones((3,))
    i = xp.ones((2, 2), dtype=xp.int64)
    with pytest.raises(TypeError, match="matmul"):
        i @= xp.ones((2, 2))
    np.testing.assert_array_equal(to_np(i), np.ones((2, 2)))


def test_rmatmul_is_reflected():
    a, b = rand((2, 3), seed=1), rand((3, 2), seed=2)
    assert_close(xp.Array.__rmatmul__(xp.asarray(b), xp.asarray(a)), a @ b)


@given(st.data())
@SETTINGS
def test_matmul_property_integers(data):
    m, k, n = (data.draw(st.integers(0, 4)) for _ in range(3))
    b1 = data.draw(st.lists(st.integers(1, 3), max_size=2))
    b2 = data.draw(st.sampled_from([[], b1, [1] * len(b1)]))
    r1 = rand(tuple(b1) + (m, k), np.int32, data.draw(st.integers(0, 99)))
    r2 = rand(tuple(b2) + (k, n), np.int32, data.draw(st.integers(0, 99)))
    assert_same(xp.asarray(r1) @ xp.asarray(r2), np.matmul(r1, r2))


# --- tensordot, vecdot, einsum --------------------------------------------------

@given(st.data())
@SETTINGS
def test_vecdot_and_tensordot_property(data):
    """Arrays drawn by hypothesis' Array API strategies over strided itself."""
    dtype = data.draw(st.sampled_from([xp.int32, xp.float64, xp.complex128]))
    shapes = data.draw(XPS.mutually_broadcastable_shapes(2, max_dims=3)).input_shapes
    k = data.draw(st.integers(0, 4))
    elems = {"min_value": -100, "max_value": 100}
    if dtype.kind == "f":
        elems.update(allow_nan=False, allow_infinity=False)
    elif dtype.kind == "c":
        elems = st.complex_numbers(max_magnitude=100, allow_nan=False, allow_infinity=False)
    x1 = data.draw(XPS.arrays(dtype, shapes[0] + (k,), elements=elems))
    x2 = data.draw(XPS.arrays(dtype, shapes[1] + (k,), elements=elems))
    r1, r2 = to_np(x1), to_np(x2)
    ref = np.asarray(np.vecdot(r1, r2))
    out = xp.vecdot(x1, x2)
    assert_same(out, ref) if dtype.kind == "i" else assert_close(out, ref)
    ref = np.asarray(np.tensordot(r1, r2.T, axes=1))
    out = xp.tensordot(x1, xp.permute_dims(x2, tuple(range(x2.ndim))[::-1]), axes=1)
    assert_same(out, ref) if dtype.kind == "i" else assert_close(out, ref)



@pytest.mark.parametrize("s1,s2,axes", [
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4,), 0), ((), (), 0),
    ((2, 3, 4), (4, 3, 2), ([1, 2], [1, 0])), ((2, 3, 4), (4, 2), ((-1, 0), (0, 1))),
    ((3, 0), (0, 2), 1), ((2, 3), (3, 2), ([], [])),
])
@pytest.mark.parametrize("dtype", [np.int16, np.float64, np.complex128])
def test_tensordot_matches_numpy(s1, s2, axes, dtype):
    r1, r2 = rand(s1, dtype, 1), rand(s2, dtype, 2)
    ref = np.asarray(np.tensordot(r1, r2, axes=axes))
    for f in (xp.tensordot, LA.tensordot):
        out = f(xp.asarray(r1), xp.asarray(r2), axes=axes)
        assert_same(out, ref) if np.dtype(dtype).kind == "i" else assert_close(out, ref)
    if len(s1) >= 2:
        out = xp.tensordot(layout(r1, "transposed"), xp.asarray(r2), axes=axes)
        assert_same(out, ref) if np.dtype(dtype).kind == "i" else assert_close(out, ref)


@pytest.mark.parametrize("axes,err", [
    (-1, ValueError), (3, ValueError), (([0], [0, 1]), ValueError), (([0, 0], [0, 1]), ValueError),
    (([2], [0]), IndexError), (([1], [1]), ValueError), (True, TypeError), ("x", TypeError),
    ((0, 1, 2), ValueError),
])
def test_tensordot_errors(axes, err):
    with pytest.raises(err, match="tensordot"):
        xp.tensordot(xp.ones((2, 3)), xp.ones((3, 4)), axes=axes)


def test_tensordot_does_not_broadcast_contracted_axes():
    with pytest.raises(ValueError, match="differ in size"):
        xp.tensordot(xp.ones((2, 1)), xp.ones((3, 2)), axes=1)


@pytest.mark.parametrize("s1,s2,axis", [
    ((3,), (3,), -1), ((2, 3), (3,), -1), ((4, 1, 3), (5, 3), -1), ((2, 3, 4), (3, 4), -2),
    ((0, 3), (3,), -1), ((2, 0), (2, 0), -1), ((2, 3), (2, 3), 1), ((3, 2), (1, 3, 2), 1),
])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex128])
def test_vecdot_matches_numpy(s1, s2, axis, dtype):
    r1, r2 = rand(s1, dtype, 1), rand(s2, dtype, 2)
    nd = max(len(s1), len(s2))
    ax = axis - nd if axis >= 0 else axis
    ref = np.asarray(np.vecdot(r1, r2, axis=ax))
    for f in (xp.vecdot, LA.vecdot):
        out = f(xp.asarray(r1), xp.asarray(r2), axis=axis)
        assert_same(out, ref) if np.dtype(dtype).kind == "i" else assert_close(out, ref)
    if len(s1) >= 2:
        out = xp.vecdot(layout(r1, "negative"), layout(r2, "strided"), axis=axis)
        assert_same(out, ref) if np.dtype(dtype).kind == "i" else assert_close(out, ref)


def test_vecdot_conjugates_x1():
    out = xp.vecdot(xp.asarray([1j, 2j, 3j]), xp.asarray([1, 2j, 3]))
    assert out.item() == 4 - 10j


@pytest.mark.parametrize("s1,s2,axis,err", [
    ((3,), (4,), -1, ValueError), ((2, 1), (2, 3), -1, ValueError), ((3,), (2, 3), -2, IndexError),
    ((), (3,), -1, ValueError), ((2, 3), (4, 3), -1, ValueError), ((3,), (3,), 1, IndexError),
])
def test_vecdot_errors(s1, s2, axis, err):
    with pytest.raises(err, match="vecdot"):
        xp.vecdot(xp.ones(s1), xp.ones(s2), axis=axis)
    with pytest.raises(TypeError, match="vecdot"):
        xp.vecdot(xp.ones(3, dtype=xp.bool), xp.ones(3))


@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("ij->ji", [(2, 3)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("i,j->ij", [(3,), (2,)]), ("...ij->...", [(2, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("i,i", [(0,), (0,)]),
])
def test_einsum_matches_numpy(subscripts, shapes):
    refs = [rand(s, np.float64, i) for i, s in enumerate(shapes)]
    xs = [layout(r, "negative") if r.ndim else xp.asarray(r) for r in refs]
    ref = np.asarray(np.einsum(subscripts, *refs))
    assert_close(xp.einsum(subscripts, *xs), ref)
    assert_close(xp.einsum(subscripts, xs), ref)


def test_einsum_result_owns_its_memory():
    x = xp.asarray(rand((2, 3)))
    before = to_np(x)
    for sub in ("ij->ji", "ij->ij", "ii->i"):
        src = x if sub != "ii->i" else xp.asarray(rand((3, 3)))
        keep = to_np(src)
        out = xp.einsum(sub, src)
        out[...] = 7
        np.testing.assert_array_equal(to_np(src), keep)
    np.testing.assert_array_equal(to_np(x), before)


def test_einsum_promotes_and_errors():
    out = xp.einsum("i,i->", xp.asarray([1, 2], dtype=xp.int8), xp.asarray([1.5, 2.0], dtype=xp.float64))
    assert out.dtype == xp.float64 and out.item() == 5.5
    with pytest.raises(ValueError, match="einsum"):
        xp.einsum("ij,jk->ik", xp.ones((2, 3)), xp.ones((4, 2)))
    with pytest.raises(TypeError, match="einsum"):
        xp.einsum(xp.ones(2), "i")
    with pytest.raises(TypeError, match="einsum"):
        xp.einsum("i", np.ones(2))
    with pytest.raises(ValueError, match="einsum"):
        xp.einsum("i")


# --- PyTorch's products -------------------------------------------------------------

@pytest.mark.parametrize("name", ["contiguous", "strided", "negative"])
def test_outer_dot_mm_bmm(name):
    a, b = rand((4,), seed=1), rand((3,), seed=2)
    for f in (xp.outer, LA.outer):
        assert_close(f(layout(a, name), layout(b, name)), np.outer(a, b))
    assert_same(xp.outer(xp.asarray([1, 2], dtype=xp.int8), xp.asarray([3], dtype=xp.int8)),
                np.array([[3], [6]], np.int8))
    assert_close(xp.dot(layout(a, name), layout(a, name)), np.asarray(np.dot(a, a)))
    m1, m2 = rand((2, 4), seed=3), rand((4, 3), seed=4)
    assert_close(xp.mm(layout(m1, name), layout(m2, name)), m1 @ m2)
    b1, b2 = rand((2, 3, 4), seed=5), rand((2, 4, 1), seed=6)
    assert_close(xp.bmm(layout(b1, name), layout(b2, name)), b1 @ b2)


def test_products_out_and_empty():
    out = xp.empty((0, 3))
    assert xp.outer(xp.ones(0), xp.ones(3), out=out) is out
    assert xp.dot(xp.ones(0), xp.ones(0)).item() == 0
    assert_same(xp.mm(xp.ones((2, 0)), xp.ones((0, 3))), np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("call", [
    lambda: xp.outer(xp.ones((2, 2)), xp.ones(2)), lambda: xp.dot(xp.ones(2), xp.ones(3)),
    lambda: xp.dot(xp.ones((2, 2)), xp.ones(2)), lambda: xp.mm(xp.ones(2), xp.ones((2, 2))),
    lambda: xp.mm(xp.ones((2, 3)), xp.ones((2, 3))), lambda: xp.bmm(xp.ones((2, 2, 2)), xp.ones((3, 2, 2))),
    lambda: xp.bmm(xp.ones((2, 2)), xp.ones((2, 2))), lambda: xp.bmm(xp.ones((2, 2, 3)), xp.ones((2, 2, 3))),
])
def test_product_shape_errors(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 5])
@pytest.mark.parametrize("name", ["contiguous", "strided", "negative"])
def test_diag(k, name):
    v = rand((3,), np.int64, 1)
    assert_same(xp.diag(layout(v, name), k), np.diag(v, k))
    m = rand((3, 4), np.int64, 2)
    x = layout(m, name)
    d = xp.diag(x, diagonal=k)
    assert_same(d, np.diag(m, k).copy())
    d[...] = 99  # a copy: the input is untouched
    np.testing.assert_array_equal(to_np(x), m)


def test_diag_errors():
    with pytest.raises(TypeError, match="diag"):
        xp.diag([1, 2, 3])
    with pytest.raises(ValueError, match="diag"):
        xp.diag(xp.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="diag"):
        xp.diag(xp.asarray(1.0))


@pytest.mark.parametrize("dtype,res", [(np.int8, np.int64), (np.bool_, np.int64), (np.uint16, np.uint64),
                                       (np.float32, np.float32), (np.complex64, np.complex64)])
def test_trace_torch(dtype, res):
    m = rand((3, 4), np.int64, 1).astype(dtype)
    out = xp.trace(layout(m, "transposed"))
    assert_same(out, np.asarray(np.trace(m, dtype=res)))
    with pytest.raises(ValueError, match="trace"):
        xp.trace(xp.ones((2, 2, 2)))


# --- linalg: decompositions ---------------------------------------------------------

BATCHES = [(), (2,), (2, 1)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("name", LAYOUTS)
def test_cholesky(dtype, batch, name):
    a = hermitian_pd(batch + (4, 4), dtype, 3)
    x = layout(a, name)
    lo = LA.cholesky(x)
    assert_close(lo, np.linalg.cholesky(a))
    up = LA.cholesky(x, upper=True)
    assert_close(up, np.conj(np.swapaxes(np.linalg.cholesky(a), -1, -2)))
    assert np.array_equal(to_np(up), np.triu(to_np(up)))


def test_cholesky_not_positive_definite_raises():
    with pytest.raises(LA.LinAlgError, match="cholesky"):
        LA.cholesky(xp.asarray([[1.0, 2.0], [2.0, 1.0]]))
    assert issubclass(LA.LinAlgError, ValueError)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("name", LAYOUTS)
def test_inv_det_slogdet(dtype, batch, name):
    a = well_conditioned(batch + (3, 3), dtype, 4)
    x = layout(a, name)
    assert_close(LA.inv(x), np.linalg.inv(a))
    assert_close(LA.det(x), np.asarray(np.linalg.det(a)))
    sign, logabs = LA.slogdet(x)
    rs, rl = np.linalg.slogdet(a)
    assert_close(sign, np.asarray(rs))
    assert_close(logabs, np.asarray(rl))
    assert type(LA.slogdet(x)).__name__ == "SlogdetResult" and LA.slogdet(x).logabsdet is not None


def test_singular_matrices():
    s = xp.asarray([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(LA.LinAlgError, match="inv.*singular"):
        LA.inv(s)
    with pytest.raises(LA.LinAlgError, match="solve"):
        LA.solve(s, xp.ones(2))
    with pytest.raises(LA.LinAlgError, match="matrix_power"):
        LA.matrix_power(s, -1)
    assert LA.det(s).item() == 0
    sign, logabs = LA.slogdet(s)
    assert sign.item() == 0 and logabs.item() == -math.inf


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
def test_eigh_eigvalsh(dtype, batch):
    a = hermitian_pd(batch + (4, 4), dtype, 5)
    x = layout(a, "negative")
    w, v = LA.eigh(x)
    real = np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64
    assert_close(w, np.linalg.eigvalsh(a), real)
    assert v.dtype._np == np.dtype(dtype) and tuple(v.shape) == a.shape
    vn = to_np(v)
    np.testing.assert_allclose(vn @ (to_np(w)[..., None] * np.conj(np.swapaxes(vn, -1, -2))), a,
                               rtol=tol(dtype) * 10, atol=tol(dtype) * 10)
    assert_close(LA.eigvalsh(x), np.linalg.eigvalsh(a), real)
    assert LA.eigh(x)._fields == ("eigenvalues", "eigenvectors")


def sort_eigenvalues(w):
    """Eigenvalues in a canonical order, robust to rounding noise."""
    key = np.round(w, 4)
    order = np.lexsort((key.imag, key.real), axis=-1)
    return np.take_along_axis(w, order, axis=-1)


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig_eigvals_are_complex(dtype):
    a = rand((2, 3, 3), dtype, 6)
    x = layout(a, "transposed")
    cdt = np.complex64 if np.dtype(dtype) in (np.float32, np.complex64) else np.complex128
    w, v = LA.eig(x)
    assert w.dtype._np == cdt and v.dtype._np == cdt
    wn, vn = to_np(w), to_np(v)
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], rtol=tol(dtype) * 10, atol=tol(dtype) * 10)
    ref = sort_eigenvalues(np.linalg.eigvals(a.astype(cdt)))
    np.testing.assert_allclose(sort_eigenvalues(to_np(LA.eigvals(x))), ref, rtol=tol(dtype) * 10,
                               atol=tol(dtype) * 10)
    # a symmetric real input (real eigenvalues in NumPy) still gives complex
    assert LA.eigvals(xp.eye(2, dtype=xp.float32)).dtype == xp.complex64


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 3), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr(dtype, shape, mode):
    a = rand(shape, dtype, 7)
    x = layout(a, "strided") if shape[-1] else xp.asarray(a)
    q, r = LA.qr(x, mode=mode)
    rq, rr = np.linalg.qr(a, mode=mode)
    assert q.dtype._np == np.dtype(dtype) and r.dtype._np == np.dtype(dtype)
    assert tuple(q.shape) == rq.shape and tuple(r.shape) == rr.shape
    np.testing.assert_allclose(to_np(q) @ to_np(r), a, rtol=tol(dtype) * 10, atol=tol(dtype) * 10)
    assert np.array_equal(to_np(r), np.triu(to_np(r)))
    assert LA.qr(x)._fields == ("Q", "R")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 3), (2, 3, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_svdvals(dtype, shape, full):
    a = rand(shape, dtype, 8)
    x = layout(a, "negative") if shape[-1] else xp.asarray(a)
    u, s, vh = LA.svd(x, full_matrices=full)
    ru, rs, rvh = np.linalg.svd(a, full_matrices=full)
    real = np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64
    assert_close(s, rs, real)
    assert u.dtype._np == np.dtype(dtype) and tuple(u.shape) == ru.shape
    assert vh.dtype._np == np.dtype(dtype) and tuple(vh.shape) == rvh.shape
    k = min(shape[-2:])
    un, vn = to_np(u)[..., :, :k], to_np(vh)[..., :k, :]
    np.testing.assert_allclose(un @ (rs[..., None] * vn), a, rtol=tol(dtype) * 10, atol=tol(dtype) * 10)
    assert_close(LA.svdvals(x), rs, real)
    assert LA.svd(x)._fields == ("U", "S", "Vh")


# --- linalg: solvers and functions of matrices -------------------------------------------

@pytest.mark.parametrize("s1,s2", [
    ((3, 3), (3,)), ((2, 3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3, 1)), ((2, 1, 3, 3), (4, 3, 2)),
    ((3, 3), (2, 3, 2)), ((0, 2, 2), (2,)), ((0, 0), (0, 2)), ((2, 2), (2, 0)),
])
@pytest.mark.parametrize("dtype", FLOATS)
def test_solve(s1, s2, dtype):
    a = well_conditioned(s1, dtype, 9)
    b = rand(s2, dtype, 10)
    x1 = layout(a, "transposed") if a.size else xp.asarray(a)
    x2 = layout(b, "negative") if b.size else xp.asarray(b)
    out = LA.solve(x1, x2)
    if len(s2) == 1:
        ref = np.linalg.solve(a, b[:, None])[..., 0]
    else:
        batch = np.broadcast_shapes(s1[:-2], s2[:-2])
        ref = np.linalg.solve(np.broadcast_to(a, batch + s1[-2:]), np.broadcast_to(b, batch + s2[-2:]))
    assert_close(out, ref.astype(dtype), dtype, rtol=tol(dtype) * 10)


def test_solve_promotes_and_errors():
    out = LA.solve(xp.eye(2, dtype=xp.float32), xp.ones(2, dtype=xp.float64))
    assert out.dtype == xp.float64
    with pytest.raises(TypeError, match="solve.*floating"):
        LA.solve(xp.eye(2, dtype=xp.int64), xp.ones(2))
    with pytest.raises(ValueError, match="square"):
        LA.solve(xp.ones((2, 3)), xp.ones(2))
    with pytest.raises(ValueError, match="solve"):
        LA.solve(xp.eye(2), xp.ones(3))
    with pytest.raises(ValueError, match="solve"):
        LA.solve(xp.eye(2), xp.ones((3, 1)))
    with pytest.raises(ValueError, match="broadcast"):
        LA.solve(xp.ones((2, 3, 3)), xp.ones((4, 3, 1)))
    with pytest.raises(ValueError, match="solve"):
        LA.solve(xp.eye(2), xp.asarray(1.0))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 3), (2, 3, 0)])
def test_pinv_matrix_rank(dtype, shape):
    a = rand(shape, dtype, 11)
    if shape == (4, 3):
        a[:, 2] = a[:, 0] + a[:, 1]  # rank 2
    x = layout(a, "strided") if shape[-1] else xp.asarray(a)
    rtol = max(shape[-2:]) * np.finfo(dtype).eps  # the standard's default
    ref = np.linalg.pinv(a, rtol=rtol) if a.size else np.zeros(shape[:-2] + shape[:-3:-1], dtype)
    assert_close(LA.pinv(x), ref, rtol=tol(dtype) * 100)
    ref = np.linalg.matrix_rank(a) if a.size else np.zeros(shape[:-2], np.int64)
    assert_same(LA.matrix_rank(x), np.asarray(ref, dtype=np.int64))


def test_rtol_float_and_array():
    a = np.diag([1.0, 0.1, 0.01])
    x = xp.asarray(a)
    assert LA.matrix_rank(x, rtol=0.05).item() == 2
    stack = xp.asarray(np.stack([a, a]))
    rtol = xp.asarray([0.5, 0.001])
    assert LA.matrix_rank(stack, rtol=rtol).tolist() == [1, 3]
    np.testing.assert_allclose(to_np(LA.pinv(stack, rtol=rtol))[0], np.diag([1.0, 0, 0]))
    np.testing.assert_allclose(to_np(LA.pinv(x, rtol=0.05)), np.diag([1.0, 10.0, 0.0]))
    with pytest.raises(TypeError, match="rtol"):
        LA.pinv(x, rtol=xp.asarray([1, 2]))
    with pytest.raises(TypeError, match="rtol"):
        LA.matrix_rank(x, rtol="big")
    with pytest.raises(ValueError, match="pinv.*broadcast"):
        LA.pinv(stack, rtol=xp.asarray([0.1, 0.2, 0.3]))
    assert tuple(LA.pinv(xp.ones((2, 0, 3)), rtol=xp.ones((4, 1))).shape) == (4, 2, 3, 0)


@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 5, 8])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_matrix_power(n, dtype):
    a = well_conditioned((2, 3, 3), dtype, 12) / 4
    x = layout(a, "transposed")
    assert_close(LA.matrix_power(x, n), np.linalg.matrix_power(a, n), dtype, rtol=tol(dtype) * 10)


def test_matrix_power_integers_and_errors():
    m = rand((2, 2), np.int64, 13)
    assert_same(LA.matrix_power(xp.asarray(m), 3), np.linalg.matrix_power(m, 3))
    assert_same(LA.matrix_power(xp.asarray(m), 0), np.eye(2, dtype=np.int64))
    with pytest.raises(TypeError, match="floating"):
        LA.matrix_power(xp.asarray(m), -1)
    with pytest.raises(TypeError, match="int"):
        LA.matrix_power(xp.eye(2), 1.5)
    with pytest.raises(TypeError, match="int"):
        LA.matrix_power(xp.eye(2), True)
    with pytest.raises(ValueError, match="square"):
        LA.matrix_power(xp.ones((2, 3)), 2)
    out = LA.matrix_power(xp.eye(2), 1)
    out[0, 0] = 5  # n = 1 is a copy, not the input
    assert to_np(out)[0, 0] == 5


# --- linalg: norms ------------------------------------------------------------------------

@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm(ord, dtype, keepdims):
    a = rand((2, 3, 4), dtype, 14)
    real = np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64
    ref = np.linalg.matrix_norm(a, ord=ord, keepdims=keepdims)
    assert_close(LA.matrix_norm(layout(a, "negative"), ord=ord, keepdims=keepdims), ref.astype(real), real)
    empty = LA.matrix_norm(xp.ones((2, 0, 3), dtype=xp.asarray(a).dtype), ord=ord, keepdims=keepdims)
    assert_same(empty, np.zeros((2, 1, 1) if keepdims else (2,), real))


@pytest.mark.parametrize("ord", ["inf", 3, 0, True, None])
def test_matrix_norm_bad_ord(ord):
    with pytest.raises(ValueError, match="matrix_norm"):
        LA.matrix_norm(xp.ones((2, 2)), ord=ord)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # |0| ** negative ord
@pytest.mark.parametrize("ord", [2, 1, 0, -1, -2, math.inf, -math.inf, 3, 0.5, -0.5, 2.5])
@pytest.mark.parametrize("dtype", FLOATS)
def test_vector_norm(ord, dtype):
    a = rand((2, 3, 4), dtype, 15)
    a[0, 0, 0] = 0
    real = np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64
    for axis, keepdims in itertools.product([None, 0, -1, (0, 2), (2, 0, 1), ()], (False, True)):
        ref = np.asarray(np.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord))
        out = LA.vector_norm(layout(a, "transposed"), axis=axis, keepdims=keepdims, ord=ord)
        assert_close(out, ref.astype(real), real, rtol=tol(dtype) * 10)


def test_vector_norm_empty_float16_and_errors():
    assert LA.vector_norm(xp.ones((0, 3)), axis=0).tolist() == [0.0, 0.0, 0.0]
    assert LA.vector_norm(xp.ones((0, 3)), axis=0, ord=math.inf).tolist() == [0.0, 0.0, 0.0]
    assert LA.vector_norm(xp.ones((0, 3)), axis=0, ord=-math.inf).tolist() == [math.inf] * 3
    h = LA.vector_norm(xp.full((1000,), 300.0, dtype=xp.float16))  # the sum of squares overflows float16
    assert h.dtype == xp.float16 and abs(h.item() - 300 * math.sqrt(1000)) < 20
    with pytest.raises(TypeError, match="vector_norm.*floating"):
        LA.vector_norm(xp.ones(3, dtype=xp.int64))
    with pytest.raises(ValueError, match="ord"):
        LA.vector_norm(xp.ones(3), ord="fro")
    with pytest.raises(ValueError, match="ord"):
        LA.vector_norm(xp.ones(3), ord=math.nan)
    with pytest.raises(ValueError, match="repeated"):
        LA.vector_norm(xp.ones((2, 2)), axis=(0, 0))
    with pytest.raises(IndexError, match="vector_norm"):
        LA.vector_norm(xp.ones((2, 2)), axis=2)


# --- linalg: cross, diagonal, trace, matrix_transpose ------------------------------------

@pytest.mark.parametrize("s1,s2,axis", [
    ((3,), (3,), -1), ((2, 3), (3,), -1), ((4, 1, 3), (5, 3), -1), ((3, 2), (3, 2), -2),
    ((2, 3, 4), (1, 3, 1), -2), ((0, 3), (3,), -1),
])
@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float32, np.complex128])
def test_cross(s1, s2, axis, dtype):
    r1, r2 = rand(s1, dtype, 16), rand(s2, dtype, 17)
    ref = np.cross(r1, r2, axis=axis) if min(r1.size, r2.size) else \
        np.zeros(np.broadcast_shapes(s1, s2), dtype)
    x1 = layout(r1, "negative") if r1.size else xp.asarray(r1)
    out = LA.cross(x1, xp.asarray(r2), axis=axis)
    assert_same(out, ref) if np.dtype(dtype).kind in "iu" else assert_close(out, ref)


def test_cross_errors():
    with pytest.raises(ValueError, match="3 elements"):
        LA.cross(xp.ones(2), xp.ones(2))
    with pytest.raises(ValueError, match="3 elements"):
        LA.cross(xp.ones((3, 1)), xp.ones((3, 3)))  # the compute axis does not broadcast
    with pytest.raises(IndexError, match="axis"):
        LA.cross(xp.ones((3, 3)), xp.ones(3), axis=-2)
    with pytest.raises(IndexError, match="axis"):
        LA.cross(xp.ones(3), xp.ones(3), axis=0)
    with pytest.raises(ValueError, match="broadcast"):
        LA.cross(xp.ones((2, 3)), xp.ones((4, 3)))
    with pytest.raises(TypeError, match="cross"):
        LA.cross(xp.ones(3, dtype=xp.bool), xp.ones(3))


@pytest.mark.parametrize("offset", [-5, -1, 0, 1, 3, 100])
def test_linalg_diagonal_is_a_view(offset):
    a = rand((2, 3, 4), np.int32, 18)
    x = layout(a, "transposed")
    d = LA.diagonal(x, offset=offset)
    assert_same(d, np.diagonal(a, offset=offset, axis1=-2, axis2=-1))
    if d.size:
        assert d.storage() is x.storage()
    with pytest.raises(ValueError, match="diagonal"):
        LA.diagonal(xp.ones(3))


@pytest.mark.parametrize("dtype,res", [(np.int8, np.int64), (np.int64, np.int64), (np.uint8, np.uint64),
                                       (np.float32, np.float32), (np.complex64, np.complex64)])
@pytest.mark.parametrize("offset", [-2, 0, 1, 10])
def test_linalg_trace(dtype, res, offset):
    a = rand((2, 3, 4), dtype, 19)
    out = LA.trace(layout(a, "strided"), offset=offset)
    assert isinstance(out, xp.Array)
    # NumPy's bits on the CPU; a GPU adds the diagonal up in another order (the standard
    # fixes none): within the bound of a reordered sum of its terms
    d = np.diagonal(a, offset=offset, axis1=-2, axis2=-1).astype(np.complex128)
    scale = np.abs(d.real).sum(-1) + 1j * np.abs(d.imag).sum(-1)
    assert_numpy_close(out, np.trace(a, offset=offset, axis1=-2, axis2=-1, dtype=res),
                       ulps=sum_ulps(d.shape[-1]), scale=scale)
    if np.dtype(dtype).kind != "c":
        out = LA.trace(xp.asarray(a), offset=offset, dtype=xp.float64)
        assert_same(out, np.trace(a.astype(np.float64), offset=offset, axis1=-2, axis2=-1))


def test_linalg_trace_errors():
    with pytest.raises(TypeError, match="trace"):
        LA.trace(xp.ones((2, 2), dtype=xp.bool))
    with pytest.raises(TypeError, match="complex"):
        LA.trace(xp.ones((2, 2), dtype=xp.complex64), dtype=xp.float32)
    with pytest.raises(ValueError, match="trace"):
        LA.trace(xp.ones(3))


def test_matrix_transpose_alias():
    assert LA.matrix_transpose is xp.matrix_transpose
    assert LA.matmul is xp.matmul and LA.tensordot is xp.tensordot and LA.vecdot is xp.vecdot


# --- linalg: dtypes, float16, out=, errors common to all ------------------------------------

MATRIX_FUNCS = {
    "cholesky": lambda x: LA.cholesky(x), "det": LA.det, "inv": LA.inv, "eigvalsh": LA.eigvalsh,
    "eigvals": LA.eigvals, "svdvals": LA.svdvals, "pinv": LA.pinv, "matrix_rank": LA.matrix_rank,
    "matrix_norm": LA.matrix_norm, "qr": lambda x: LA.qr(x).R, "svd": lambda x: LA.svd(x).S,
    "eigh": lambda x: LA.eigh(x).eigenvalues, "eig": lambda x: LA.eig(x).eigenvalues,
    "slogdet": lambda x: LA.slogdet(x).logabsdet,
}
SQUARE = {"cholesky", "det", "inv", "eigvalsh", "eigvals", "eigh", "eig", "slogdet"}


@pytest.mark.parametrize("name", sorted(MATRIX_FUNCS))
def test_floating_only_and_shapes(name):
    f = MATRIX_FUNCS[name]
    with pytest.raises(TypeError, match=f"{name}.*floating-point.*int64"):
        f(xp.eye(2, dtype=xp.int64))
    with pytest.raises(TypeError, match=name):
        f(xp.eye(2, dtype=xp.bool))
    with pytest.raises(TypeError, match=name):
        f(np.eye(2))
    with pytest.raises(ValueError, match=name):
        f(xp.ones(3))
    if name in SQUARE:
        with pytest.raises(ValueError, match="square"):
            f(xp.ones((2, 3)))


@pytest.mark.parametrize("name", sorted(MATRIX_FUNCS))
def test_float16_computes_in_float32(name):
    a = hermitian_pd((3, 3), np.float64, 20)
    a16 = xp.asarray(a, dtype=xp.float16)
    out = MATRIX_FUNCS[name](a16)
    ref = MATRIX_FUNCS[name](a16.astype(xp.float32))  # the same (float16) values, in float32
    expected = {xp.float32: xp.float16, xp.complex64: xp.complex64, xp.int64: xp.int64}[ref.dtype]
    assert out.dtype == expected
    # float16 computes in float32 and rounds once at the end: exactly float32's result, rounded
    np.testing.assert_array_equal(to_np(out), to_np(ref).astype(expected._np))


def test_out_on_linalg_functions():
    a = hermitian_pd((2, 3, 3), np.float64, 21)
    x = xp.asarray(a)
    calls = [
        (lambda out: LA.inv(x, out=out), (2, 3, 3)), (lambda out: LA.det(x, out=out), (2,)),
        (lambda out: LA.cholesky(x, out=out), (2, 3, 3)), (lambda out: LA.svdvals(x, out=out), (2, 3)),
        (lambda out: LA.eigvalsh(x, out=out), (2, 3)), (lambda out: LA.matrix_norm(x, out=out), (2,)),
        (lambda out: LA.vector_norm(x, out=out), ()), (lambda out: LA.pinv(x, out=out), (2, 3, 3)),
        (lambda out: LA.solve(x, x, out=out), (2, 3, 3)), (lambda out: LA.cross(x, x, out=out), (2, 3, 3)),
        (lambda out: LA.trace(x, out=out), (2,)), (lambda out: LA.matrix_power(x, 2, out=out), (2, 3, 3)),
    ]
    for call, shape in calls:
        buf = xp.zeros((2,) + shape, dtype=xp.float64)
        assert call(buf[0]) is not None
        np.testing.assert_allclose(to_np(buf[0]), to_np(call(None)))
        np.testing.assert_array_equal(to_np(buf[1]), np.zeros(shape))
    with pytest.raises(ValueError, match="inv"):
        LA.inv(x, out=xp.zeros((3, 3), dtype=xp.float64))
    with pytest.raises(TypeError, match="det"):
        LA.det(xp.asarray(a, dtype=xp.complex64), out=xp.zeros(2))


def test_device_checks(sim):
    a = xp.eye(3, device=sim)
    assert LA.inv(a).device == sim
    assert LA.svd(a).S.device == sim
    with pytest.raises(ValueError, match="different devices"):
        LA.solve(a, xp.ones(3))
    with pytest.raises(ValueError, match="different devices"):
        LA.matrix_rank(a, rtol=xp.asarray(0.1))


SPEC_NAMES = [
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet",
    "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]


def test_linalg_exports_the_standard():
    for name in SPEC_NAMES:
        assert name in LA.__all__ and callable(getattr(LA, name)), name
    for name in ("matmul", "tensordot", "vecdot", "matrix_transpose", "einsum", "outer", "diag", "trace"):
        assert callable(getattr(xp, name)), name
    assert xp.linalg is LA


@pytest.mark.parametrize("module", ["strided._api.linalg_functions", "strided.linalg", "strided.fft"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    mod = importlib.import_module(module)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    ran = 0
    for name in mod.__all__:
        doc = getattr(mod, name).__doc__ or ""
        test = parser.get_doctest(doc, {}, f"{module}.{name}", module, 0)
        ran += len(test.examples)
        runner.run(test)
    assert ran and runner.failures == 0
