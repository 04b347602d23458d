"""linalg on the host without the generator context (real6, issue 38): ``_lapack``'s host
case (``_HostLapack``) and ``solve`` without ``broadcast_to`` where the batch axes agree.

Every value is compared with NumPy's own ``numpy.linalg`` (the host's LAPACK: bit for bit,
the same routine on the same data), every failure with NumPy's LinAlgError turned into
strided's (same message, ``linalg.<func>(): `` in front, no chained NumPy exception).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from strided import linalg as sl

CPU = "cpu"


def _spd(rng, batch, m, dtype):
    a = rng.standard_normal(batch + (m, m)).astype(dtype)
    return a @ np.swapaxes(a, -1, -2) + m * np.eye(m, dtype=dtype)


@settings(max_examples=40, deadline=None)
@given(batch1=st.sampled_from([(), (1,), (3,), (2, 3), (2, 1)]),
       batch2=st.sampled_from([(), (1,), (3,), (2, 3)]),
       m=st.integers(1, 6), k=st.integers(1, 4), vector=st.booleans(),
       dtype=st.sampled_from([np.float32, np.float64, np.complex128]), seed=st.integers(0, 2**16))
def test_solve_matches_numpy(batch1, batch2, m, k, vector, dtype, seed):
    rng = np.random.default_rng(seed)
    a = _spd(rng, batch1, m, np.float64).astype(dtype)
    b = (rng.standard_normal((m,)) if vector else rng.standard_normal(batch2 + (m, k))).astype(dtype)
    try:
        bb = np.broadcast_shapes(batch1, batch2)
    except ValueError:
        bb = None
    sa, sb = xp.asarray(a, device=CPU), xp.asarray(b, device=CPU)
    if not vector and bb is None:
        with pytest.raises(ValueError):
            sl.solve(sa, sb)
        return
    if vector:
        want = np.linalg.solve(a, b[:, None])[..., 0] if a.ndim > 2 else np.linalg.solve(a, b)
    else:
        want = np.linalg.solve(np.broadcast_to(a, bb + (m, m)), np.broadcast_to(b, bb + (m, k)))
    got = sl.solve(sa, sb)
    assert got.dtype == xp.asarray(want).dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_solve_leaves_inputs_unchanged():
    rng = np.random.default_rng(1)
    a, b = _spd(rng, (2,), 4, np.float64), rng.standard_normal((2, 4, 3))
    sa, sb = xp.asarray(a.copy(), device=CPU), xp.asarray(b.copy(), device=CPU)
    sl.solve(sa, sb)
    np.testing.assert_array_equal(np.asarray(sa), a)
    np.testing.assert_array_equal(np.asarray(sb), b)


def _numpy_message(fn, *args):
    with pytest.raises(np.linalg.LinAlgError) as e:
        fn(*args)
    msg = str(e.value)
    return msg[:1].lower() + msg[1:]


@pytest.mark.parametrize("name, args", [
    ("solve", (np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([1.0, 2.0]))),
    ("inv", (np.array([[1.0, 2.0], [2.0, 4.0]]),)),
    ("cholesky", (np.array([[1.0, 2.0], [2.0, 1.0]]),)),
])
def test_lapack_errors_are_numpys_worded_as_ours(name, args):
    want = _numpy_message(getattr(np.linalg, name), *args)
    with pytest.raises(sl.LinAlgError) as e:
        getattr(sl, name)(*(xp.asarray(a, device=CPU) for a in args))
    assert str(e.value) == f"linalg.{name}(): {want}"
    assert isinstance(e.value, ValueError)
    assert e.value.__cause__ is None and e.value.__suppress_context__


def test_lapack_other_errors_pass_through():
    # An error that is not LinAlgError leaves the context as it came (here NumPy's
    # TypeError of a bad argument inside the block).
    dev = xp.asarray([1.0], device=CPU).device
    with pytest.raises(TypeError, match="boom"):
        with sl._lapack("svd", dev):
            raise TypeError("boom")
    with sl._lapack("svd", dev) as m:
        assert m is np


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 8), batch=st.sampled_from([(), (3,)]), seed=st.integers(0, 2**16),
       upper=st.booleans(), dtype=st.sampled_from([np.float32, np.float64]))
def test_cholesky_eigh_svd_match_numpy(m, batch, seed, upper, dtype):
    rng = np.random.default_rng(seed)
    a = _spd(rng, batch, m, np.float64).astype(dtype)
    sa = xp.asarray(a, device=CPU)
    low = np.linalg.cholesky(a)
    got = sl.cholesky(sa, upper=upper)
    assert got.dtype == xp.asarray(low).dtype
    if upper:
        # (strided's upper factor is the lower one's conjugate transpose, bit for bit;
        # NumPy's upper=True runs LAPACK's 'U' case: equal to rounding)
        np.testing.assert_array_equal(np.asarray(got), np.conj(np.swapaxes(low, -1, -2)))
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(np.asarray(got), np.linalg.cholesky(a, upper=True), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(np.asarray(got), low)
    w, v = np.linalg.eigh(a)
    r = sl.eigh(sa)
    np.testing.assert_array_equal(np.asarray(r.eigenvalues), w)
    np.testing.assert_array_equal(np.asarray(r.eigenvectors), v)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    r = sl.svd(sa, full_matrices=False)
    for g, w_ in zip(r, (u, s, vh)):
        np.testing.assert_array_equal(np.asarray(g), w_)
