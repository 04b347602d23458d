"""The hot paths (inlined views, operators, where, the autograd select) against NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided.autograd._function import _BITS, _bit_select
from conftest import assert_close, sum_ulps


def _np(x):
    return np.asarray(x.detach().cpu())


def _layout_matches(x, ref):
    """Same values, shape and element strides as NumPy's view."""
    assert tuple(x.shape) == ref.shape
    np.testing.assert_array_equal(_np(x), ref)
    if ref.size > 1:
        assert tuple(s for s, n in zip(x.stride(), ref.shape) if n > 1) == tuple(
            s // ref.itemsize for s, n in zip(ref.strides, ref.shape) if n > 1)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 12), start=st.none() | st.integers(-15, 15), stop=st.none() | st.integers(-15, 15),
       step=st.none() | st.integers(-4, 4).filter(lambda s: s != 0), lazy=st.booleans())
def test_one_slice_fast_path(n, start, stop, step, lazy):
    base = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    x = xp.asarray(base)
    if lazy:
        x = x + 0  # a kernel result: no storage until a view asks for one
    key = slice(start, stop, step)
    _layout_matches(x[key], base[key])
    _layout_matches(x[::-1][key], base[::-1][key])


def test_slice_key_errors_unchanged():
    x = xp.arange(5)
    with pytest.raises(IndexError):
        x[1.5:3]
    with pytest.raises(ValueError, match="slice step cannot be zero"):  # (NumPy's and PyTorch's)
        x[::0]


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (1, 5, 1)])
def test_transposes_fast_path(shape):
    base = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    for x, ref in ((xp.asarray(base.copy()), base), (xp.asarray(base.copy())[..., ::-1], base[..., ::-1]),
                   (xp.asarray(base.copy()) * 1, base)):
        _layout_matches(x.mT, np.swapaxes(ref, -1, -2))
        _layout_matches(x.transpose(-2, -1), np.swapaxes(ref, -1, -2))
        if len(shape) == 2:
            _layout_matches(x.T, ref.T)
            # a view of the transposed view still shares memory with x
            y = x.T
            y[0, 0] = -7.0
            assert float(x[0, 0]) == -7.0


def test_T_needs_2d():
    with pytest.raises(ValueError, match="2-D"):
        xp.ones((2, 3, 4)).T
    with pytest.raises(ValueError, match="at least 2"):
        xp.ones(3).mT


def test_reshape_fast_path():
    base = np.arange(12, dtype=np.int32)
    x = xp.asarray(base.copy())
    r = xp.reshape(x, (3, 4))
    _layout_matches(r, base.reshape(3, 4))
    # keys equal to int tuples must not leak NumPy ints into the shape
    r = xp.reshape(x, (np.int64(4), 3))
    assert all(type(n) is int for n in r.shape)
    assert tuple(r.shape) == (4, 3)
    with pytest.raises(ValueError):
        xp.reshape(x, (5, 3))
    # a non-contiguous input takes the general path (a copy where needed)
    t = xp.reshape(x, (3, 4)).T
    _layout_matches(xp.reshape(t, (12,)), base.reshape(3, 4).T.reshape(12))
    r[0, 0] = 99  # the view shares memory
    assert int(x[0]) == 99


@pytest.mark.parametrize("axis", [-3, -2, -1, 0, 1, 2])
def test_expand_dims_fast_path(axis):
    base = np.arange(6.0).reshape(2, 3)[:, ::-1]
    x = xp.asarray(np.arange(6.0).reshape(2, 3))[:, ::-1]
    _layout_matches(xp.expand_dims(x, axis=axis), np.expand_dims(base, axis))
    with pytest.raises((ValueError, IndexError)):
        xp.expand_dims(x, axis=3)


@pytest.mark.parametrize("dt", ["float32", "float64", "int16", "int32", "uint64", "bool"])
def test_where_fast_path(dt):
    rng = np.random.default_rng(0)
    c = rng.random((4, 5)) > 0.5
    a = (rng.standard_normal((4, 5)) * 10).astype(dt)
    b = (rng.standard_normal((1, 5)) * 10).astype(dt)
    r = xp.where(xp.asarray(c), xp.asarray(a), xp.asarray(b))
    assert r.dtype == np.dtype(dt)
    np.testing.assert_array_equal(_np(r), np.where(c, a, b))
    with pytest.raises(ValueError, match="broadcast"):
        xp.where(xp.asarray(c), xp.asarray(a), xp.asarray(np.ones(3, dt)))


def test_operators_fast_path():
    a = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float32)
    b = xp.asarray([1, 2, 3], dtype=xp.int64)
    c = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float64)
    assert (a + c).dtype == xp.float64  # promotion through the pair table
    assert (1.5 + a).dtype == xp.float32
    # the operators' direct path and the functions agree
    for u, v in ((a, b), (b, a), (b, 1.5), (a, c), (b, True)):
        assert (u + v).dtype == xp.add(u, v).dtype
        np.testing.assert_array_equal(_np(u * v), _np(xp.multiply(u, v)))
    np.testing.assert_array_equal(_np(2 - a), [1.0, 0.0, -1.0])
    with pytest.raises(TypeError):
        a + "x"
    with pytest.raises(ValueError, match="broadcast"):
        a + xp.ones(4)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int16, np.int32, np.uint64])
@pytest.mark.parametrize("shapes", [((64, 80), (64, 80), ()), ((64, 80), (), (64, 80)),
                                    ((80,), (64, 80), (64, 80)), ((64, 80), (64, 1), (1, 80))])
def test_bit_select_is_numpy_where(dt, shapes):
    rng = np.random.default_rng(1)
    sc, sa, sb = shapes
    c = rng.random(sc) > 0.5
    a = (rng.standard_normal(sa) * 10).astype(dt)
    b = (rng.standard_normal(sb) * 10).astype(dt)
    if np.dtype(dt).kind == "f" and a.ndim:
        a.flat[:3] = (np.nan, -0.0, np.inf)
    for other in (b, np.asarray(0, dt), np.asarray(-0.0 if np.dtype(dt).kind == "f" else 3, dt)):
        r = _bit_select(c, a, other, _BITS[np.dtype(dt).itemsize])
        e = np.where(c, a, other)
        assert r.shape == e.shape and r.dtype == e.dtype
        assert np.array_equal(r.view(np.uint8), e.view(np.uint8))


def test_relu_gradient_large():
    rng = np.random.default_rng(2)
    h = rng.standard_normal((128, 64)).astype(np.float32)
    h[0, :4] = 0.0  # ties with the scalar: half the gradient (PyTorch's convention)
    x = xp.asarray(h).requires_grad_()
    xp.sum(xp.maximum(x, 0.0) * 3.0).backward()
    expected = np.where(h > 0, 3.0, np.where(h == 0, 1.5, 0.0)).astype(np.float32)
    np.testing.assert_array_equal(_np(x.grad), expected)


@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (0,), (10,), (3, 4), (4096,), (5000,)])
def test_small_sum_and_mean_fast_path(dt, shape):
    rng = np.random.default_rng(3)
    base = rng.standard_normal(shape).astype(dt)
    x = xp.asarray(base)
    s = xp.sum(x)
    assert s.shape == () and s.dtype == np.dtype(dt)
    np.testing.assert_allclose(_np(s), np.sum(base), rtol=1e-3 if dt == "float16" else 1e-6)
    if base.size:
        m = xp.mean(x)
        assert m.shape == () and m.dtype == np.dtype(dt)
        np.testing.assert_allclose(_np(m), np.mean(base), rtol=1e-3 if dt == "float16" else 1e-6)
    else:
        assert np.isnan(_np(xp.mean(x)))
    # a strided view (no cached native) reduces the elements it shows
    if len(shape) == 2:
        np.testing.assert_allclose(_np(xp.sum(x.T[::2])), np.sum(base.T[::2]), rtol=1e-3)


@pytest.mark.parametrize("key", [slice(2, 5), slice(None, None, -2), slice(8, 1, -3), slice(20, 30)])
@pytest.mark.parametrize("value", [0.5, 3, True, -1e300])
def test_setitem_slice_fast_path(key, value):
    base = np.arange(10, dtype=np.float32)
    x = xp.asarray(base.copy())
    v = x[1:]  # shares the storage: sees the write
    x[key] = value
    ref = base.copy()
    with np.errstate(over="ignore"):
        ref[key] = value
    np.testing.assert_array_equal(_np(x), ref)
    np.testing.assert_array_equal(_np(v), ref[1:])


def test_setitem_slice_keeps_checks():
    x = xp.zeros(4, dtype=xp.int8)
    with pytest.raises(OverflowError):
        x[1:3] = 300
    with pytest.raises(TypeError):
        xp.zeros(4)[1:3] = 1j


# --- temporary elision -------------------------------------------------------------------

BIG = 1 << 18  # float32 elements: 1 MiB, from which the compiled path elides before its own
# case (ELIDE_FIRST_FROM; below it a pooled buffer costs less: _chot/fast.c)


def _big(seed, dtype=np.float32, n=BIG):
    return np.random.default_rng(seed).uniform(0.5, 2.0, n).astype(dtype)


def test_elided_chains_are_correct():
    A, B, C = _big(0), _big(1), _big(2)
    a, b, c = xp.asarray(A), xp.asarray(B), xp.asarray(C)
    np.testing.assert_allclose(_np(a * b + c), A * B + C, rtol=1e-6)
    np.testing.assert_allclose(_np(c - a * b), C - A * B, rtol=1e-6)
    np.testing.assert_allclose(_np((a * b) / c), (A * B) / C, rtol=1e-6)
    np.testing.assert_allclose(_np(2.0 - a * b), 2.0 - A * B, rtol=1e-6)
    np.testing.assert_allclose(_np(xp.add(xp.multiply(a, b), c)), A * B + C, rtol=1e-6)
    np.testing.assert_allclose(_np(xp.subtract(c, xp.multiply(a, b))), C - A * B, rtol=1e-6)
    # the inputs are untouched
    np.testing.assert_array_equal(_np(a), A)
    np.testing.assert_array_equal(_np(c), C)


def _peak_bytes(fn):
    """Peak of the memory NumPy allocates while ``fn`` runs (NumPy reports to tracemalloc).

    The buffer pool is emptied first, so that every buffer ``fn`` needs is a fresh one.
    """
    import tracemalloc
    xp.empty_cache()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        keep = fn()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    del keep
    return peak


def _traced_device():
    """A device whose allocations ``_peak_bytes`` sees: the suite's, when its backend keeps
    arrays in NumPy's (host) memory, which NumPy reports to tracemalloc; else the CPU.
    A GPU's allocations are its memory pool's, out of tracemalloc's sight."""
    d = xp.get_default_device()
    return d if d.backend.ndarray is np.ndarray else xp.Device("cpu")


def test_elision_reuses_the_temporary_buffer():
    dev = _traced_device()
    a, b, c = (xp.asarray(_big(i), device=dev) for i in range(3))
    nbytes = BIG * 4
    # one result buffer for the whole chain, where a fresh buffer per operation needs two
    from strided._api import elementwise
    from strided._core import dispatch
    # The compiled operators and functions elide where the C stack proves the temporary
    # unshared (off where that proof can't be calibrated: elision_state() says why);
    # Python operators never; Python functions by the refcount rule (CPython 3.11-3.13).
    compiled_elides = elementwise.COMPILED and dispatch.CHOT.elision_state()[0]
    funcs_elide = compiled_elides if elementwise.COMPILED else elementwise._TEMP_REFS_FUNC > 0
    for expr, elides in ((lambda: a * b + c, compiled_elides),
                         (lambda: xp.add(xp.multiply(a, b), c), funcs_elide)):
        if elides:
            assert _peak_bytes(expr) < 1.5 * nbytes
        else:
            assert _peak_bytes(expr) > 1.9 * nbytes
    assert _peak_bytes(lambda: (lambda t: t + c)(a * b)) > 1.9 * nbytes  # a named temporary


@pytest.mark.parametrize("how", ["method", "operator", "unbound", "named", "exported", "view",
                                 "broadcast", "promoted"])
def test_no_elision_when_the_operand_is_referenced(how):
    import operator
    A, B, C = _big(0), _big(1), _big(2)
    dev = "cpu" if how == "exported" else None  # a NumPy view needs host memory
    a, b, c = xp.asarray(A, device=dev), xp.asarray(B, device=dev), xp.asarray(C, device=dev)
    t = a * b
    if how == "method":
        r = t.__add__(c)
    elif how == "operator":
        r = operator.add(t, c)
    elif how == "unbound":
        r = xp.Array.__add__(t, c)
    elif how == "named":
        r = t + c
    elif how == "exported":
        n = np.asarray(t)  # a NumPy view of the buffer
        r = t + c
        np.testing.assert_allclose(n, A * B, rtol=1e-6)
    elif how == "view":
        v = t[::2]
        r = t + c
        np.testing.assert_allclose(_np(v), (A * B)[::2], rtol=1e-6)
    elif how == "broadcast":
        small = xp.asarray(_big(3, n=1 << 9))
        r = xp.reshape(small * 2.0, (1 << 9, 1)) + xp.reshape(c, (1, BIG))[:, :8]
        np.testing.assert_allclose(_np(r), (_big(3, n=1 << 9) * 2.0)[:, None] + C[None, :8], rtol=1e-6)
        return
    else:
        r = t + xp.asarray(C.astype(np.float64))
        assert r.dtype == xp.float64
    np.testing.assert_allclose(_np(t), A * B, rtol=1e-6)
    np.testing.assert_allclose(_np(r), A * B + C, rtol=1e-6)


def test_no_elision_under_autograd():
    A, B, C = _big(0), _big(1), _big(2)
    a = xp.asarray(A).requires_grad_()
    b, c = xp.asarray(B), xp.asarray(C)
    y = xp.sum(a * b + c)
    y.backward()
    np.testing.assert_allclose(_np(a.grad), B, rtol=1e-6)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, -2])
@pytest.mark.parametrize("keepdims", [False, True])
def test_small_sum_over_an_axis_fast_path(axis, keepdims):
    base = np.random.default_rng(4).standard_normal((4, 6)).astype(np.float32)
    r = xp.sum(xp.asarray(base), axis=axis, keepdims=keepdims)
    ref = np.sum(base, axis=axis, keepdims=keepdims)
    assert r.shape == ref.shape and r.dtype == xp.float32
    if r.device.type == "cpu":
        np.testing.assert_allclose(_np(r), ref, rtol=1e-6)
    else:  # another summation order (and a wider accumulator): the bound of any order
        assert_close(r, ref, ulps=sum_ulps(base.size if axis is None else base.shape[axis]),
                     scale=np.sum(np.abs(base), axis=axis, keepdims=keepdims))
    with pytest.raises((ValueError, IndexError)):
        xp.sum(xp.asarray(base), axis=2)


def test_unsqueeze_and_mT_views():
    base = np.arange(24.0).reshape(2, 3, 4)
    x = xp.asarray(base.copy())
    _layout_matches(x.unsqueeze(1), base[:, None])
    _layout_matches(x.unsqueeze(-1), base[..., None])
    r, ref = x.mT + 0, np.swapaxes(base, -1, -2)
    if r.device.type == "cpu":
        # A CPU result keeps its operand's memory order, NumPy's "K" order (docs/performance.md).
        _layout_matches(r, ref)
    else:
        # strided promises no result layout on other devices (CuPy's kernels write C order)
        assert tuple(r.shape) == ref.shape
        np.testing.assert_array_equal(_np(r), ref)


# --- second round: cached view layouts, 0-d sums, contiguous() --------------------------

def _views_of(base):
    """(strided array, NumPy reference) pairs: contiguous, negative strides, lazy result."""
    x = xp.asarray(base.copy())
    yield x, base
    yield xp.asarray(base.copy())[..., ::-1], base[..., ::-1]
    yield xp.asarray(base.copy()) * 1, base


@pytest.mark.parametrize("axes", [(2, 0, 1), (0, 1, 2), (1, 2, 0), (-1, 0, 1)])
def test_permute_dims_fast_path(axes):
    base = np.arange(24.0).reshape(2, 3, 4)
    for _ in range(2):  # the second call takes the cached layout
        for x, ref in _views_of(base):
            _layout_matches(xp.permute_dims(x, axes), np.transpose(ref, axes))


@pytest.mark.parametrize("axes", [(2.0, 0, 1), (0, 0, 1), (0, 1), (0, 1, 3), ("a", 0, 1)])
def test_permute_dims_fast_path_refuses_what_the_general_path_refuses(axes):
    x = xp.asarray(np.zeros((2, 3, 4)))
    xp.permute_dims(x, (2, 0, 1))  # cache an equal key first: (2.0, 0, 1) == (2, 0, 1)
    with pytest.raises((TypeError, ValueError, IndexError)):
        xp.permute_dims(x, axes)


@pytest.mark.parametrize("shape", [(2, 3, 4), (5, 2, 3, 4), (2, 1, 4), (0, 3, 4)])
def test_broadcast_to_fast_path(shape):
    base = np.arange(12.0).reshape(3, 4)
    for src in (base, base[:1].copy(), base[:, :1].copy()):
        try:
            expected = np.broadcast_to(src, shape)
        except ValueError:
            with pytest.raises(ValueError):
                xp.broadcast_to(xp.asarray(src.copy()), shape)
            continue
        for _ in range(2):
            for x, r in _views_of(src):
                _layout_matches(xp.broadcast_to(x, shape), np.broadcast_to(r, shape))
        assert expected.shape == shape


def test_broadcast_to_fast_path_errors():
    x = xp.asarray(np.zeros((3, 4)))
    for bad in [(4,), (2, 4, 3), (3, -1)]:
        with pytest.raises(ValueError):
            xp.broadcast_to(x, bad)
    with pytest.raises(TypeError):
        xp.broadcast_to(x, (3.0, 4))


@pytest.mark.parametrize("axis", [-4, -3, -1, 0, 2, 3])
def test_expand_dims_cached_layout(axis):
    base = np.arange(24.0).reshape(2, 3, 4)
    for _ in range(2):
        for x, ref in _views_of(base):
            _layout_matches(xp.expand_dims(x, axis=axis), np.expand_dims(ref, axis))
            _layout_matches(x.unsqueeze(axis), np.expand_dims(ref, axis))
    with pytest.raises((ValueError, IndexError)):
        xp.expand_dims(xp.asarray(base), axis=4)
    with pytest.raises((ValueError, IndexError)):
        xp.expand_dims(xp.asarray(base), axis=-5)


def test_view_fast_paths_keep_extensions():
    import strided.named  # noqa: F401
    x = xp.asarray(np.arange(24.0).reshape(2, 3, 4)).rename("A", "B", "C")
    assert xp.permute_dims(x, (2, 0, 1)).names == ("C", "A", "B")
    assert xp.expand_dims(x, axis=0).names[1:] == ("A", "B", "C")
    w = xp.asarray(np.arange(12.0).reshape(3, 4)).requires_grad_()
    y = xp.broadcast_to(w, (2, 3, 4))
    xp.sum(xp.permute_dims(y, (2, 0, 1)) * 2.0).backward()
    np.testing.assert_array_equal(_np(w.grad), np.full((3, 4), 4.0))


@pytest.mark.parametrize("dt", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("shape,axis", [((10,), None), ((10,), 0), ((10,), -1), ((), None), ((0,), None),
                                        ((0,), 0), ((3, 4), None)])
def test_zero_d_sum_is_an_array(dt, shape, axis):
    base = (np.arange(np.prod(shape)).reshape(shape) * ((1 + 1j) if dt == "complex64" else 1)).astype(dt)
    r = xp.sum(xp.asarray(base), axis=axis)
    assert r.shape == () and r.dtype == np.dtype(dt)
    np.testing.assert_allclose(_np(r), np.sum(base, axis=axis), rtol=1e-6)
    # the result is an array of its own: writing into it leaves nothing else changed
    r2 = xp.sum(xp.asarray(base), axis=axis)
    r2 += 1
    np.testing.assert_allclose(_np(r), np.sum(base, axis=axis), rtol=1e-6)


@pytest.mark.parametrize("make", [lambda b: b, lambda b: b * 1, lambda b: b[::2], lambda b: b.T,
                                  lambda b: b[:, :1], lambda b: b[:0]])
def test_contiguous_fast_path(make):
    base = np.arange(12.0).reshape(3, 4)
    x = make(xp.asarray(base.copy()))
    ref = make(base)
    c = x.contiguous()
    np.testing.assert_array_equal(_np(c), ref)
    assert c.is_contiguous()
    assert (c is x) == bool(x.is_contiguous())


# --- autograd: stolen leaf gradients, tie-free max/min backward, unrecorded primitives -----

def _leaf(a):
    return xp.asarray(np.asarray(a, dtype=np.float64)).requires_grad_()


def test_leaf_grad_steals_only_unshared_gradients():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    xa, wa, ba = rng.standard_normal((6, 5)), rng.standard_normal((5, 4)), rng.standard_normal(4)
    x, w, b = xp.asarray(xa), _leaf(wa), _leaf(ba)
    tx, tw, tb = (torch.tensor(v, requires_grad=r) for v, r in ((xa, False), (wa, True), (ba, True)))
    for _ in range(2):  # the second pass accumulates into the stolen buffers
        xp.sum(xp.maximum(x @ w + b, 0.0) * 3.0).backward()
        torch.sum(torch.clamp_min(tx @ tw + tb, 0.0) * 3.0).backward()
    np.testing.assert_allclose(_np(w.grad), tw.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(_np(b.grad), tb.grad.numpy(), rtol=1e-12)


def test_shared_gradients_are_not_stolen():
    # add's backward hands the same gradient to both leaves: each .grad must be its own
    a, b = _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
    (a + b).backward(xp.asarray([1.0, 1.0], dtype=xp.float64))
    a.grad += 5
    assert _np(b.grad).tolist() == [1.0, 1.0]
    # the seed gradient the caller passes (and keeps) is never taken as .grad
    c = _leaf([1.0, 2.0])
    seed = xp.asarray([2.0, 3.0], dtype=xp.float64)
    y = c * 1.0
    y.backward(seed)
    c.grad += 1
    assert _np(seed).tolist() == [2.0, 3.0]
    # a leaf's own backward with a seed: the seed is the caller's
    d = _leaf([1.0, 2.0])
    s2 = xp.asarray([4.0, 5.0], dtype=xp.float64)
    d.backward(s2)
    d.grad += 1
    assert _np(s2).tolist() == [4.0, 5.0]


def test_stolen_gradient_with_a_hook_that_keeps_it():
    kept = []
    a = _leaf([1.0, 2.0])
    a.register_hook(lambda g: kept.append(g))
    (a * 2.0).backward(xp.ones(2, dtype=xp.float64))
    a.grad += 1
    assert _np(kept[0]).tolist() == [2.0, 2.0]
    assert _np(a.grad).tolist() == [3.0, 3.0]


@pytest.mark.parametrize("op,tname", [("maximum", "maximum"), ("minimum", "minimum")])
def test_maximum_minimum_backward_with_and_without_ties(op, tname):
    torch = pytest.importorskip("torch")
    for x1v, x2v in (([1.0, -2.0, 3.0, 0.5], [0.0, 0.0, 4.0, -1.0]),   # no ties
                     ([1.0, 2.0, 3.0, 0.0], [1.0, 0.0, 3.0, 0.0]),     # ties
                     ([np.nan, 1.0, -np.inf, 2.0], [0.0, np.nan, -np.inf, 2.0])):
        a, b = _leaf(x1v), _leaf(x2v)
        getattr(xp, op)(a, b).backward(xp.asarray([1.0, 2.0, 3.0, 4.0], dtype=xp.float64))
        ta = torch.tensor(x1v, dtype=torch.float64, requires_grad=True)
        tb = torch.tensor(x2v, dtype=torch.float64, requires_grad=True)
        getattr(torch, tname)(ta, tb).backward(torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64))
        np.testing.assert_array_equal(_np(a.grad), ta.grad.numpy())
        np.testing.assert_array_equal(_np(b.grad), tb.grad.numpy())
    # against a scalar (ReLU): a tie at 0 gives half the gradient, as in PyTorch
    h = _leaf([-1.0, 0.0, 2.0])
    getattr(xp, op)(h, 0.0).backward(xp.ones(3, dtype=xp.float64))
    th = torch.tensor([-1.0, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
    getattr(torch, tname)(th, torch.tensor(0.0, dtype=torch.float64)).backward(torch.ones(3, dtype=torch.float64))
    np.testing.assert_array_equal(_np(h.grad), th.grad.numpy())


def test_second_order_through_maximum_and_sum_to():
    # create_graph=True records the backward primitives (where, sum_to) again
    x = _leaf([1.0, -2.0, 3.0])
    b = _leaf([0.5])
    y = xp.sum(xp.maximum(x * x + b, 0.0))
    (gx, gb) = xp.autograd.grad(y, (x, b), create_graph=True)
    np.testing.assert_array_equal(_np(gx), [2.0, -4.0, 6.0])
    assert _np(gb).tolist() == [3.0]
    xp.sum(gx).backward()
    np.testing.assert_array_equal(_np(x.grad), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("dt", ["float32", "float64", "int16", "uint8", "bool"])
@pytest.mark.parametrize("shape", [(128, 10), (4, 32, 10), (64, 32), (600, 2), (10, 33), (3, 10)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_short_last_axis_max_min_fast_path(dt, shape, keepdims):
    rng = np.random.default_rng(6)
    base = (rng.standard_normal(shape) * 50).astype(dt)
    if dt == "float32":
        base[1, ..., -1] = np.nan
        base[2, ..., 0] = -np.inf
    for func in ("max", "min"):
        for axis in (-1, len(shape) - 1):
            r = getattr(xp, func)(xp.asarray(base), axis=axis, keepdims=keepdims)
            ref = getattr(np, func)(base, axis=axis, keepdims=keepdims)
            assert r.shape == ref.shape and r.dtype == np.dtype(dt)
            np.testing.assert_array_equal(_np(r), ref)
    # a non-contiguous input goes through the same path
    v = xp.asarray(base)[::2]
    np.testing.assert_array_equal(_np(xp.max(v, axis=-1)), np.max(base[::2], axis=-1))


def test_max_backward_with_and_without_ties_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for ties in (False, True):
        z = rng.standard_normal((64, 10))
        if ties:
            z[3, 4] = z[3, 7] = z[3].max() + 1  # two maxima in one row
            z[5, :] = 2.0  # a whole row tied
        for keepdims in (True, False):
            a = _leaf(z)
            m = xp.max(a, axis=1, keepdims=keepdims)
            w = rng.standard_normal(m.shape)
            xp.sum(m * xp.asarray(w)).backward()
            t = torch.tensor(z, requires_grad=True)
            (torch.amax(t, dim=1, keepdim=keepdims) * torch.tensor(w)).sum().backward()
            np.testing.assert_allclose(_np(a.grad), t.grad.numpy(), rtol=1e-12)


# --- methods and in-place operators straight to the kernel path ------------------------------

def test_method_fast_paths_match_numpy():
    rng = np.random.default_rng(8)
    a0, b0 = rng.standard_normal(10).astype(np.float32), rng.standard_normal(10).astype(np.float32)
    a, b = xp.asarray(a0.copy()), xp.asarray(b0.copy())
    np.testing.assert_array_equal(_np(a.add(b)), a0 + b0)
    np.testing.assert_array_equal(_np(a.mul(2.5)), a0 * np.float32(2.5))
    np.testing.assert_array_equal(_np(a.abs()), np.abs(a0))
    np.testing.assert_array_equal(_np(a.sum()), np.sum(a0))
    c = xp.asarray(a0.copy())
    assert c.add_(b) is c
    np.testing.assert_array_equal(_np(c), a0 + b0)
    c += 1.5
    np.testing.assert_array_equal(_np(c), a0 + b0 + np.float32(1.5))
    c.neg_()
    np.testing.assert_array_equal(_np(c), -(a0 + b0 + np.float32(1.5)))
    # broadcasting operand, integer target (cast check), 0-d and empty targets
    m = xp.asarray(np.zeros((3, 10), np.float32))
    m.add_(a)
    np.testing.assert_array_equal(_np(m), np.broadcast_to(a0, (3, 10)))
    with pytest.raises(ValueError):
        a.add_(m)  # the result would not fit the target
    i = xp.asarray(np.arange(4))
    with pytest.raises(TypeError):
        i.add_(0.5)
    z = xp.asarray(np.float32(2.0))
    z.mul_(3)
    assert float(z) == 6.0
    e = xp.asarray(np.zeros(0, np.float32))
    e += 1
    assert e.shape == (0,)


def test_inplace_fast_paths_keep_the_checks():
    # a self-overlapping target (stride 0) is refused, as on the general path
    x = xp.broadcast_to(xp.asarray(np.ones(1, np.float32)), (4,))
    for op in (lambda: x.add_(1.0), lambda: x.__iadd__(1.0), lambda: x.exp_()):
        with pytest.raises(RuntimeError, match="overlap|single memory location"):
            op()
    # the write bumps the version counter: a value saved for backward is known stale
    w = xp.asarray(np.ones(3)).requires_grad_()
    y = w * 2.0
    z = y * y  # saves y
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        xp.sum(z).backward()
    # a leaf that requires grad is refused; names go through their handler
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.add_(1.0)
    n = xp.asarray(np.ones((2, 3))).rename("A", "B")
    n += 1
    assert n.names == ("A", "B") and n.add(1).names == ("A", "B")
    # negative strides: the target is written in its own order
    base = np.arange(6.0)
    r = xp.asarray(base.copy())[::-1]
    r.add_(xp.asarray(base.copy()))
    np.testing.assert_array_equal(_np(r), base[::-1] + base)


def test_setitem_ellipsis_array_fast_path():
    base = np.arange(6.0)
    a = xp.asarray(np.zeros(6))
    a[...] = xp.asarray(base.copy())
    np.testing.assert_array_equal(_np(a), base)
    c = xp.asarray(base.copy())
    c[...] = c[::-1]  # the source overlaps the target
    np.testing.assert_array_equal(_np(c), base[::-1])
    lazy = xp.asarray(base.copy()) * 1  # a kernel result without storage
    lazy[...] = xp.asarray(np.ones(6))
    np.testing.assert_array_equal(_np(lazy), np.ones(6))
    m = xp.asarray(np.zeros((2, 3)))
    m.T[...] = xp.asarray(np.arange(6.0).reshape(3, 2))  # a transposed target
    np.testing.assert_array_equal(_np(m), np.arange(6.0).reshape(3, 2).T)
    x = xp.broadcast_to(xp.asarray(np.zeros(1)), (6,))
    with pytest.raises(RuntimeError, match="single memory location"):
        x[...] = xp.asarray(base.copy())
    # other dtypes and shapes take the general path (casts, broadcasting)
    f = xp.asarray(np.zeros((2, 3), np.float32))
    f[...] = xp.asarray(np.arange(3.0))
    np.testing.assert_array_equal(_np(f), np.broadcast_to(np.arange(3.0, dtype=np.float32), (2, 3)))
    # the version counter moves: a saved value written this way is known stale
    w = xp.asarray(np.ones(3)).requires_grad_()
    y = w * 2.0
    z = y * y
    y[...] = xp.asarray(np.zeros(3))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        xp.sum(z).backward()


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "complex64", "bool"])
def test_matmul_operator_fast_path(dt):
    rng = np.random.default_rng(9)
    a0 = (rng.standard_normal((2, 3, 4)) * 3).astype(dt)
    b0 = (rng.standard_normal((4, 5)) * 3).astype(dt)
    a, b = xp.asarray(a0), xp.asarray(b0)
    if dt == "bool":
        with pytest.raises(TypeError, match="numeric"):
            a @ b  # the standard's matmul takes numeric dtypes only (the general path's error)
        return
    for x, y, ref in ((a, b, a0 @ b0), (a[0], b, a0[0] @ b0), (b.mT, a[0].mT, b0.T @ a0[0].T),
                      (a[0], b[:, 0], a0[0] @ b0[:, 0]), (b[:, 0], b, b0[:, 0] @ b0)):
        r = x @ y
        assert r.shape == ref.shape and r.dtype == np.dtype(dt)
        np.testing.assert_allclose(_np(r), ref, rtol=1e-5)
    with pytest.raises(ValueError, match="not aligned"):
        a @ a
