"""The ops scikit-learn's and SciPy's array-API paths spend their time in (issue 38's
``realwork`` group: ``benchmarks/realwork.py``), on their faster paths: in-place
arithmetic with an operand that broadcasts into the target (``X *= scale_``,
``X -= mean_``), extrema along one axis with ``keepdims`` (SciPy's ``_demean``),
copies, and ``reshape(x, (-1,))`` of a transposed array (array-api-compat's
``is_lazy_array``). Each is checked against NumPy: values bit for bit, dtype, shape,
errors, and the inputs left as they were."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp

from conftest import host

_OPS = {"*=": (lambda a, b: a.__imul__(b)), "+=": (lambda a, b: a.__iadd__(b)),
        "-=": (lambda a, b: a.__isub__(b)), "/=": (lambda a, b: a.__itruediv__(b))}


def _operand_shapes(shape):
    """Shapes that broadcast to ``shape`` without changing it."""
    nd = len(shape)
    return st.integers(0, nd).flatmap(
        lambda k: st.tuples(*[st.sampled_from([1, n]) for n in shape[nd - k:]]))


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple), data=st.data(),
       op=st.sampled_from(sorted(_OPS)), dt=st.sampled_from(["float32", "float64"]),
       flip=st.booleans())
def test_inplace_with_a_broadcast_operand_matches_numpy(shape, data, op, dt, flip):
    rng = np.random.default_rng(len(shape))
    s2 = data.draw(_operand_shapes(shape))
    a = rng.standard_normal(shape).astype(dt)
    b = (rng.standard_normal(s2) + 3).astype(dt)
    want = _OPS[op](a.copy(), b)
    x = xp.asarray(a)
    y = xp.asarray(b)
    if flip and y.ndim:
        y = xp.flip(y, axis=0)  # a view with a negative stride
        want = _OPS[op](a.copy(), np.flip(b, axis=0))
    before = host(y).copy()
    v0 = x._version
    r = _OPS[op](x, y)
    assert r is x
    g = host(x)
    assert g.dtype == want.dtype and g.shape == want.shape
    assert g.tobytes() == want.tobytes()
    assert host(y).tobytes() == before.tobytes()  # the operand untouched
    assert x._version > v0  # the write is counted


def test_inplace_with_a_broadcast_operand_into_a_view_and_from_itself():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    want = a.copy()
    want[:, ::2] *= np.array([1.0, 2.0, 3.0])
    x = xp.asarray(a.copy())  # (asarray shares a NumPy array's memory: a copy keeps ``a``)
    v = x[:, ::2]  # a strided target
    v *= xp.asarray(np.array([1.0, 2.0, 3.0]))
    assert host(x).tobytes() == want.tobytes()
    # the operand is a row of the target itself (NumPy buffers the overlap)
    x = xp.asarray(a.copy())
    x -= x[1]
    want = a.copy()
    want -= want[1].copy()
    assert host(x).tobytes() == want.tobytes()


def test_inplace_with_a_broadcast_operand_errors_as_before():
    x = xp.asarray(np.ones((3, 4)))
    with pytest.raises(ValueError, match="shape"):
        x *= xp.asarray(np.ones((2, 4)))  # would grow the target
    with pytest.raises(ValueError, match="shape"):
        x *= xp.asarray(np.ones(5))
    xi = xp.asarray(np.ones((3, 4), dtype=np.int32))
    with pytest.raises(TypeError):
        xi *= xp.asarray(np.ones(4))  # float64 into int32
    assert host(x).tobytes() == np.ones((3, 4)).tobytes()
    assert host(xi).tobytes() == np.ones((3, 4), dtype=np.int32).tobytes()
    named = xp.asarray(np.ones((3, 4)), names=("N", "C"))
    named *= xp.asarray(np.full(4, 2.0))
    assert named.names == ("N", "C") and host(named).tolist() == [[2.0] * 4] * 3


@pytest.mark.parametrize("func", ["max", "min"])
@pytest.mark.parametrize("shape", [(1000, 20), (50, 400), (3, 7, 9)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("layout", ["c", "transposed", "sliced"])
def test_extrema_along_one_axis_match_numpy(func, shape, keepdims, layout):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape)
    a.flat[::13] = -0.0
    a.flat[::17] = np.nan
    x = xp.asarray(a)
    if layout == "transposed":
        rev = tuple(range(a.ndim))[::-1]
        a, x = np.transpose(a, rev), xp.permute_dims(x, rev)
    elif layout == "sliced":
        a, x = a[..., ::2], x[..., ::2]
    for axis in range(-a.ndim, a.ndim):
        want = getattr(np, func)(a, axis=axis, keepdims=keepdims)
        g = host(getattr(xp, func)(x, axis=axis, keepdims=keepdims))
        assert g.dtype == want.dtype and g.shape == want.shape
        np.testing.assert_array_equal(g, want)
        # signed zeros: where NumPy's answer is a zero, its sign
        z = want == 0
        assert (np.signbit(g[z]) == np.signbit(want[z])).all()


@pytest.mark.parametrize("shape", [(5000, 20), (200, 300), (7, 3), (2000, 600), (1100, 520)])
@pytest.mark.parametrize("dt", ["float64", "float32", "complex128", "int16"])
def test_reshape_minus_one_of_a_transposed_array_matches_numpy(shape, dt):
    # (2000, 600) and (1100, 520) transposed are copied in tiles of columns (views.copy_into_c)
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(shape) * 100).astype(dt)
    if a.dtype.kind == "c":
        a += 1j * rng.standard_normal(shape)
    x = xp.asarray(a)
    t = x.T
    r = xp.reshape(t, (-1,))
    want = np.reshape(a.T, (-1,))
    assert host(r).tobytes() == want.tobytes() and r.shape == want.shape
    assert host(x).tobytes() == a.tobytes()
    # a copy: writing it leaves x as it was
    r[0] = 123.0
    assert host(x)[0, 0] == a[0, 0]
    assert xp.any(r[:1]).item() is True


@pytest.mark.parametrize("shape", [(2000, 600), (1000, 20)])
def test_clone_and_contiguous_copies_match_numpy(shape):
    a = np.random.default_rng(2).standard_normal(shape)
    x = xp.asarray(a)
    for src, ref in ((x, a), (x.T, a.T), (x[::-1, ::3], a[::-1, ::3]), (x.T[::2], a.T[::2])):
        c = src.clone()
        want = np.ascontiguousarray(ref)
        assert host(c).tobytes() == want.tobytes() and c.shape == want.shape
        assert c.dtype == src.dtype
        c[...] = 0.0  # its own memory
        assert host(x).tobytes() == a.tobytes()


def test_asarray_of_numpy_memory_finds_its_storage_only_when_strided_handed_it_out():
    # (SciPy's detrend: np.asarray(x) in, xp.asarray(result) out; adopt.owner_of looks up
    # the root's entry before it measures the native's extent)
    base = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(base.copy(), device="cpu")
    n = np.asarray(x)  # strided's memory handed to NumPy
    back = xp.asarray(n[::-1], device="cpu")
    assert back.storage() is x.storage()  # one Storage, one version counter
    v = x._version
    back[0, 0] = -1.0
    assert x._version > v and host(x)[2, 0] == -1.0
    empty = xp.asarray(n[1:1], device="cpu")
    assert empty.shape == (0, 4) and empty.storage() is not x.storage()
    fresh = np.ones((2, 2))
    f = xp.asarray(fresh, device="cpu")
    assert f.storage() is not x.storage()
    f[0, 0] = 5.0
    assert fresh[0, 0] == 5.0 and host(x)[2, 0] == -1.0  # shares fresh's memory, not x's


@pytest.mark.parametrize("func", ["sum", "prod", "mean"])
@pytest.mark.parametrize("shape", [(1000, 20), (3, 7, 9)])
@pytest.mark.parametrize("layout", ["transposed", "sliced"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_sums_and_means_of_views_are_numpys_bits(func, shape, layout, dt):
    # (views go to NumPy's reduction directly: statistics._backend_reduce)
    a = np.random.default_rng(5).uniform(0.5, 1.5, shape).astype(dt)
    x = xp.asarray(a, device="cpu")
    rev = tuple(range(a.ndim))[::-1]
    a, x = ((np.transpose(a, rev), xp.permute_dims(x, rev)) if layout == "transposed"
            else (a[..., ::2], x[..., ::2]))
    for axis in [None, *range(a.ndim), (0, a.ndim - 1)]:
        for keepdims in (False, True):
            want = np.asarray(getattr(np, func)(a, axis=axis, keepdims=keepdims))
            g = host(getattr(xp, func)(x, axis=axis, keepdims=keepdims))
            assert g.dtype == want.dtype and g.shape == want.shape
            assert g.tobytes() == want.tobytes(), (axis, keepdims)
