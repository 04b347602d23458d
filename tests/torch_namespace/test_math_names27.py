"""PyTorch's mathematical names of ``strided.torch._math_names`` against PyTorch 2.13 (and NumPy)
on the same inputs: the removed ``solve``/``lstsq``/``eig``/``symeig``/``matrix_rank`` (their
RuntimeError), ``histogramdd``, ``svd_lowrank``/``pca_lowrank``, ``geqrf``/``orgqr``/``ormqr``,
the ``native_*`` normalizations and dropout, ``convolution``, ``ctc_loss``, ``embedding_bag``
and ``unsafe_split_with_sizes``. Every operand of a call is made on the suite's default device
(``S.tensor`` without ``device=``) and read back through ``.cpu()``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402


def H(x) -> np.ndarray:
    """Host NumPy values of a strided array or a PyTorch tensor."""
    if isinstance(x, torch.Tensor):
        return x.detach().resolve_conj().numpy()
    return np.asarray(x.detach().cpu())


def dname(x) -> str:
    return str(x.dtype).split(".")[-1]


def pair(a: np.ndarray, **kw):
    """The same data as a PyTorch tensor and as a strided array (default device)."""
    a = np.ascontiguousarray(a)
    return torch.from_numpy(a.copy()).requires_grad_(kw.get("grad", False)), \
        S.tensor(a.copy(), requires_grad=kw.get("grad", False))


def same(got, want, rtol=1e-6, atol=1e-6, strides=True, msg=""):
    assert tuple(got.shape) == tuple(want.shape), msg
    assert dname(got) == dname(want), msg
    if strides and got.numel() > 1:
        assert tuple(got.stride()) == tuple(want.stride()), msg
    np.testing.assert_allclose(H(got), H(want), rtol=rtol, atol=atol, err_msg=msg)


def raises_alike(f_torch, f_ours, message=True):
    """Both raise the same exception type (and message, where asked)."""
    with pytest.raises(Exception) as want:
        f_torch()
    with pytest.raises(type(want.value)) as got:
        f_ours()
    if message:
        assert str(got.value) == str(want.value)


# --- 1. the removed functions ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["solve", "lstsq", "eig", "symeig", "matrix_rank"])
def test_removed_functions_raise_pytorchs_error(name):
    a_t, a_s = torch.eye(2), S.eye(2)
    kinds = []
    for n in range(5):
        e = _exc(lambda: getattr(torch, name)(*[a_t] * n))
        kinds.append(type(e).__name__)
        raises_alike(lambda: getattr(torch, name)(*[a_t] * n), lambda: getattr(S, name)(*[a_s] * n),
                     message=isinstance(e, RuntimeError))
        assert not isinstance(e, RuntimeError) or "torch.linalg" in str(e)
    assert "RuntimeError" in kinds and "TypeError" in kinds


@pytest.mark.parametrize("name", ["solve", "lstsq", "eig", "symeig"])
def test_removed_methods_raise_pytorchs_error(name):
    S.solve  # (the names' module attaches the methods)
    a_t, a_s = torch.eye(2), S.eye(2)
    for n in range(3):
        raises_alike(lambda: getattr(a_t, name)(*[a_t] * n), lambda: getattr(a_s, name)(*[a_s] * n),
                     message=isinstance(_exc(lambda: getattr(a_t, name)(*[a_t] * n)), RuntimeError))
    assert not hasattr(torch.Tensor, "matrix_rank")


def _exc(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return e


# --- 2. histogramdd -------------------------------------------------------------------------

def _hist_both(pts, bins, **kw):
    tp, sp = pair(pts)
    if isinstance(bins, list) and bins and isinstance(bins[0], np.ndarray):
        tb, sb = [torch.from_numpy(b.copy()) for b in bins], [S.tensor(b.copy()) for b in bins]
    else:
        tb = sb = bins
    tkw, skw = dict(kw), dict(kw)
    if "weight" in kw:
        tkw["weight"], skw["weight"] = pair(kw["weight"])
    return torch.histogramdd(tp, tb, **tkw), S.histogramdd(sp, sb, **skw)


def _check_hist(want, got):
    assert type(got).__name__ == "histogramdd" and got._fields == ("hist", "bin_edges")
    assert isinstance(got.bin_edges, tuple) and len(got.bin_edges) == len(want.bin_edges)
    same(got.hist, want.hist, rtol=1e-5)
    for ge, we in zip(got.bin_edges, want.bin_edges):
        same(ge, we, rtol=1e-6, atol=0)


R = np.random.default_rng(27)
PTS = R.standard_normal((40, 2)).astype(np.float32)
PTS3 = R.uniform(-1, 1, (5, 6, 3))


@pytest.mark.parametrize("pts,bins,kw", [
    (np.array([[0., 1.], [1., 0.], [2., 0.], [2., 2.]], np.float32), [3, 3],
     {"weight": np.array([1., 2., 4., 8.], np.float32)}),
    (np.array([[0., 0.], [1., 1.], [2., 2.]], np.float32), [2, 2], {"range": [0., 1., 0., 1.], "density": True}),
    (PTS, 4, {}), (PTS, (3, 5), {"density": True}), (PTS, [2, 6], {"range": (-1, 1, -2, 0.5)}),
    (PTS, [np.array([-3, -1, 0, 0.5, 3], np.float32), np.array([-1, 1], np.float32)], {}),
    (PTS, [np.array([-3, 0, 0, 3], np.float32), np.array([-9.0, 9.0], np.float32)], {"density": True}),
    (PTS3, [2, 3, 4], {"weight": R.uniform(0, 2, (5, 6))}),
    (PTS3, 3, {"density": True, "weight": R.uniform(0, 2, (5, 6))}),
    (np.array([[3., 1.], [3., 1.]], np.float32), 2, {}), (np.zeros((0, 2), np.float32), 2, {}),
    (np.array([[np.nan, 1.], [0, 0]], np.float32), 2, {"range": [0, 1, 0, 1]}),
    (PTS, 2, {"range": [5., 6., 5., 6.], "density": True}), (PTS, [1, 1], {}),
])
def test_histogramdd_is_pytorchs(pts, bins, kw):
    want, got = _hist_both(pts, bins, **kw)
    _check_hist(want, got)


@settings(max_examples=15, deadline=None)
@given(m=hs.integers(0, 30), n=hs.integers(1, 3), b=hs.lists(hs.integers(1, 5), min_size=3, max_size=3),
       dens=hs.booleans(), w=hs.booleans(), seed=hs.integers(0, 2 ** 16))
def test_histogramdd_agrees_with_numpy(m, n, b, dens, w, seed):
    rng = np.random.default_rng(seed)
    pts = rng.uniform(-2, 2, (m, n))
    weight = rng.uniform(0.5, 2, m) if w else None
    lo, hi = (pts.min(0), pts.max(0)) if m else (np.zeros(n), np.ones(n))
    rng_ = [(a, c) if a != c else (a - 0.5, c + 0.5) for a, c in zip(lo, hi)]
    with np.errstate(all="ignore"), warnings.catch_warnings():  # (density of no points: 0 / 0)
        warnings.simplefilter("ignore", RuntimeWarning)
        want, edges = np.histogramdd(pts, bins=b[:n], range=rng_, weights=weight, density=dens)
    sp = S.tensor(pts)
    got = S.histogramdd(sp, b[:n], weight=None if weight is None else S.tensor(weight), density=dens)
    np.testing.assert_allclose(H(got.hist), want, rtol=1e-10, atol=1e-12)
    for ge, we in zip(got.bin_edges, edges):
        np.testing.assert_allclose(H(ge), we, rtol=1e-12, atol=1e-12)
    pts = np.round(pts, 1)  # (and against PyTorch with values on the edges too)
    got = S.histogramdd(S.tensor(pts), b[:n], weight=None if weight is None else S.tensor(weight), density=dens)
    tw = torch.histogramdd(torch.from_numpy(pts), b[:n], weight=None if weight is None else torch.from_numpy(weight),
                           density=dens)
    _check_hist(tw, got)


@pytest.mark.parametrize("call", [
    "m.histogramdd(x, [2])", "m.histogramdd(x, [2, 3, 4])", "m.histogramdd(x[:, 0], 2)",
    "m.histogramdd(x.to(m.int64), 2)",
    "m.histogramdd(x.to(m.float16), 2)", "m.histogramdd(x, 0)", "m.histogramdd(x, -1)", "m.histogramdd(x, -2)",
    "m.histogramdd(x, 2, range=[0., 1.])", "m.histogramdd(x, 2, range=[1., 0., 0., 1.])",
    "m.histogramdd(x, 2, range=[0., float('inf'), 0., 1.])",
    "m.histogramdd(x, [m.tensor([0., 1.]), m.tensor([0., 1.], dtype=m.float64)])",
    "m.histogramdd(x, [m.tensor([0., 1.]), m.tensor([])])", "m.histogramdd(x, [m.tensor([0., 1.]), m.tensor([1.])])",
    "m.histogramdd(x, [m.tensor([0., 1.]), m.tensor([[0., 1.]])])",
    "m.histogramdd(x, [m.tensor([0., 1.])])", "m.histogramdd(x, 2, weight=m.ones(4, 1))",
    "m.histogramdd(x, 2, weight=m.ones(4, dtype=m.float64))", "m.histogramdd(m.tensor([[float('nan'), 1.]]), 2)",
    "m.histogramdd(x, [m.tensor([0., 1.]), 2])",
])
def test_histogramdd_refusals_are_pytorchs(call):
    tx, sx = pair(np.array([[0., 1.], [1., 0.], [2., 0.], [2., 2.]], np.float32))
    raises_alike(lambda: eval(call, {"m": torch, "x": tx}), lambda: eval(call, {"m": S, "x": sx}),
                 message="m.int64" not in call and "m.float16" not in call and ", 2])" not in call)
    # (edges that go down: PyTorch's binary search, not a refusal -- test_refusals28)
    got = S.histogramdd(sx, [S.tensor([0., 2., 1.]), S.tensor([0., 1.])]).hist
    want = torch.histogramdd(tx, [torch.tensor([0., 2., 1.]), torch.tensor([0., 1.])]).hist
    assert got.tolist() == want.tolist()


# --- 3. svd_lowrank, pca_lowrank --------------------------------------------------------------

def _signs_match(got, want, atol):
    """Columns equal up to each column's sign (a unit factor for complex)."""
    g, w = H(got), H(want)
    for j in range(w.shape[-1]):
        k = np.vdot(g[..., j].ravel(), w[..., j].ravel())
        ph = k / abs(k)
        np.testing.assert_allclose(g[..., j] * ph, w[..., j], atol=atol)


@pytest.mark.parametrize("shape,q,dt,niter", [((6, 4), 4, np.float64, 2), ((4, 7), 4, np.float64, 0),
                                              ((3, 5, 3), 3, np.float64, 1), ((5, 3), 6, np.float32, 2),
                                              ((5, 3), 3, np.complex128, 2)])
def test_svd_lowrank_full_rank_is_the_svd(shape, q, dt, niter):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape)
    if dt == np.complex128:
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dt)
    ta, sa = pair(a)
    U, Sv, V = S.svd_lowrank(sa, q=q, niter=niter)
    tU, tS, tV = torch.svd_lowrank(ta, q=q, niter=niter)
    tol = 1e-4 if dt == np.float32 else 1e-9
    for g, w in ((U, tU), (Sv, tS), (V, tV)):
        assert tuple(g.shape) == tuple(w.shape) and dname(g) == dname(w)
    np.testing.assert_allclose(H(Sv), np.linalg.svd(a, compute_uv=False), rtol=tol, atol=tol)
    np.testing.assert_allclose(H(Sv), H(tS), rtol=tol, atol=tol)
    rec = H(U) @ (H(Sv)[..., :, None] * np.swapaxes(H(V), -1, -2).conj())
    np.testing.assert_allclose(rec, a, atol=tol * 10)
    if len(shape) == 2:
        _signs_match(U, tU, tol * 10)
        _signs_match(V, tV, tol * 10)


def test_svd_lowrank_with_a_mean_and_pca_lowrank():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((8, 4)) + 3
    mean = a.mean(0, keepdims=True)
    ta, sa = pair(a)
    tm, sm = pair(mean)
    U, Sv, V = S.svd_lowrank(sa, q=4, M=sm)
    tS = torch.svd_lowrank(ta, q=4, M=tm)[1]
    np.testing.assert_allclose(H(Sv), H(tS), rtol=1e-9)
    np.testing.assert_allclose(H(Sv), np.linalg.svd(a - mean, compute_uv=False), rtol=1e-9)
    for kw in ({}, {"q": 4}, {"q": 2, "center": False}, {"q": 4, "center": False, "niter": 0}):
        tU, tS, tV = torch.pca_lowrank(ta, **kw)
        U, Sv, V = S.pca_lowrank(sa, **kw)
        assert [tuple(x.shape) for x in (U, Sv, V)] == [tuple(x.shape) for x in (tU, tS, tV)]
        if kw.get("q", 4) == 4:
            np.testing.assert_allclose(H(Sv), H(tS), rtol=1e-9)
            _signs_match(V, tV, 1e-8)


def test_lowrank_refusals_are_pytorchs():
    ta, sa = pair(np.random.default_rng(3).standard_normal((6, 4)).astype(np.float32))
    for call in ["m.pca_lowrank(a, q=5)", "m.pca_lowrank(a, q=-1)", "m.pca_lowrank(a, niter=-1)",
                 "m.svd_lowrank(a.to(m.int64))", "m.svd_lowrank(a, M=a.mean(0).to(m.float64))",
                 "m.svd_lowrank(a[0])", "m.pca_lowrank(a.to(m.int64))", "m.svd_lowrank(a.to(m.float16))"]:
        raises_alike(lambda: eval(call, {"m": torch, "a": ta}), lambda: eval(call, {"m": S, "a": sa}))


def test_svd_lowrank_gradient_is_pytorchs():
    a = np.random.default_rng(4).standard_normal((5, 3))
    ta, sa = pair(a, grad=True)
    torch.svd_lowrank(ta, q=3)[1].sum().backward()
    S.svd_lowrank(sa, q=3)[1].sum().backward()
    np.testing.assert_allclose(H(sa.grad), H(ta.grad), atol=1e-9)


# --- 4. geqrf, orgqr, ormqr ---------------------------------------------------------------------

def _mat(shape, dt, seed=5):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dt)


QR_CASES = [((5, 3), np.float64), ((3, 5), np.float64), ((4, 4), np.float32), ((2, 4, 3), np.float64),
            ((4, 3), np.complex128), ((3, 4), np.complex64), ((0, 3), np.float64), ((3, 1), np.float64)]


@pytest.mark.parametrize("shape,dt", QR_CASES)
def test_geqrf_is_lapacks(shape, dt):
    a = _mat(shape, dt)
    ta, sa = pair(a)
    want, got = torch.geqrf(ta), S.geqrf(sa)
    assert type(got).__name__ == "geqrf" and got._fields == ("a", "tau")
    tol = 1e-4 if dt in (np.float32, np.complex64) else 1e-11
    same(got.a, want.a, rtol=tol, atol=tol)
    same(got.tau, want.tau, rtol=tol, atol=tol)
    if len(shape) == 2 and 0 not in shape:  # (NumPy's raw mode: LAPACK's arrays, transposed)
        h, tau = np.linalg.qr(a, mode="raw")
        np.testing.assert_allclose(H(got.a), h.T, rtol=tol, atol=tol)
        np.testing.assert_allclose(H(got.tau), tau, rtol=tol, atol=tol)
    same(sa.geqrf().a, want.a, rtol=tol, atol=tol)
    if shape[-2] >= shape[-1]:
        same(S.orgqr(got.a, got.tau), torch.orgqr(want.a, want.tau), rtol=tol, atol=tol)
        same(got.a.orgqr(got.tau), want.a.orgqr(want.tau), rtol=tol, atol=tol)


def test_geqrf_of_zero_columns_and_its_missing_derivative():
    a = np.array([[0.0, 1.0], [0.0, 2.0], [0.0, 0.0]])
    ta, sa = pair(a)
    for g, w in zip(S.geqrf(sa), torch.geqrf(ta)):
        same(g, w, atol=1e-12)
    ta, sa = pair(a, grad=True)
    raises_alike(lambda: torch.geqrf(ta).a.sum().backward(), lambda: S.geqrf(sa).a.sum().backward())
    assert S.geqrf(sa).a.requires_grad and S.geqrf(sa).tau.requires_grad


@pytest.mark.parametrize("shape,dt", [((5, 3), np.float64), ((3, 5), np.float64), ((2, 4, 3), np.float64),
                                      ((4, 3), np.complex128), ((4, 4), np.float32)])
@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False), (False, True)])
def test_ormqr_is_pytorchs(shape, dt, left, transpose):
    a = _mat(shape, dt)
    ta, sa = pair(a)
    (ta, ttau), (sa, stau) = torch.geqrf(ta), S.geqrf(sa)
    m = shape[-2]
    c = _mat(shape[:-2] + ((m, 2) if left else (3, m)), dt, seed=6)
    tc, sc = pair(c)
    tol = 1e-4 if dt == np.float32 else 1e-11
    same(S.ormqr(sa, stau, sc, left, transpose), torch.ormqr(ta, ttau, tc, left, transpose), rtol=tol, atol=tol)
    same(sa.ormqr(stau, sc, left=left, transpose=transpose), ta.ormqr(ttau, tc, left=left, transpose=transpose),
         rtol=tol, atol=tol)


@settings(max_examples=12, deadline=None)
@given(batch=hs.lists(hs.integers(1, 2), max_size=2), m=hs.integers(1, 6), n=hs.integers(1, 6),
       cplx=hs.booleans(), left=hs.booleans(), transpose=hs.booleans(), seed=hs.integers(0, 2 ** 16))
def test_geqrf_and_ormqr_shapes(batch, m, n, cplx, left, transpose, seed):
    dt = np.complex128 if cplx else np.float64
    a = _mat(tuple(batch) + (m, n), dt, seed)
    ta, sa = pair(a)
    want, got = torch.geqrf(ta), S.geqrf(sa)
    same(got.a, want.a, rtol=1e-10, atol=1e-10)
    same(got.tau, want.tau, rtol=1e-10, atol=1e-10)
    c = _mat(tuple(batch) + ((m, 3) if left else (2, m)), dt, seed + 1)
    if want.tau.shape[-1] == min(m, n):
        tc, sc = pair(c)
        same(S.ormqr(*got, sc, left, transpose), torch.ormqr(*want, tc, left, transpose), rtol=1e-10, atol=1e-10)


def test_ormqr_gradient_is_pytorchs():
    a, tau_c = _mat((4, 3), np.float64), _mat((4, 2), np.float64, 7)
    ta0, _ = pair(a)
    h, tau = (H(x) for x in torch.geqrf(ta0))
    ts = [torch.from_numpy(v.copy()).requires_grad_() for v in (h, tau, tau_c)]
    ss = [S.tensor(v.copy(), requires_grad=True) for v in (h, tau, tau_c)]
    for left, tr in ((True, False), (True, True)):
        (torch.ormqr(*ts, left, tr) ** 2).sum().backward()
        (S.ormqr(*ss, left, tr) ** 2).sum().backward()
    for g, w in zip(ss, ts):
        np.testing.assert_allclose(H(g.grad), H(w.grad), atol=1e-10)


@pytest.mark.parametrize("call", [
    "m.geqrf(m.ones(3))", "m.geqrf(m.ones(2, 2, dtype=m.int64))", "m.geqrf(m.ones(2, 2, dtype=m.float16))",
    "m.ormqr(a, tau, m.ones(4, 5, dtype=m.float64))", "m.ormqr(a, tau, m.ones(5, 4, dtype=m.float64), left=False)",
    "m.ormqr(a, tau[:2], m.ones(5, 4, dtype=m.float64))", "m.ormqr(a, tau, m.ones(5, 4))",
    "m.ormqr(a, tau.to(m.float32), m.ones(5, 4, dtype=m.float64))", "m.ormqr(a, tau, m.ones(5, dtype=m.float64))",
    "m.ormqr(a.expand(2, 5, 3), tau.expand(2, 3), m.ones(5, 4, dtype=m.float64))",
    "m.ormqr(a.expand(2, 5, 3), tau.expand(3, 3), m.ones(2, 5, 4, dtype=m.float64))",
    "m.ormqr(a.expand(2, 5, 3), tau.expand(2, 3), m.ones(3, 5, 4, dtype=m.float64))",
    "m.ormqr(a.to(m.int64), tau.to(m.int64), m.ones(5, 4, dtype=m.int64))",
    "m.orgqr(m.ones(3, 5), m.ones(3))", "m.orgqr(m.ones(5, 3), m.ones(4))",
    "m.orgqr(m.ones(5, 3), m.ones(3, dtype=m.float64))",
])
def test_qr_refusals_are_pytorchs(call):
    a = _mat((5, 3), np.float64)
    (ta, ttau), (sa, stau) = torch.geqrf(torch.from_numpy(a)), S.geqrf(S.tensor(a))
    raises_alike(lambda: eval(call, {"m": torch, "a": ta, "tau": ttau}),
                 lambda: eval(call, {"m": S, "a": sa, "tau": stau}))


# --- 5. native_* ---------------------------------------------------------------------------------

def _check_tuple(got, want, rtol=1e-5, atol=1e-5):
    assert type(got) is tuple and len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        same(g, w, rtol=rtol, atol=atol, msg=str(i))


@pytest.mark.parametrize("shape,ns,affine", [((2, 3, 4), [4], True), ((2, 3, 4), (3, 4), False),
                                             ((2, 3, 4), [2, 3, 4], True), ((5, 1), [1], True)])
def test_native_layer_norm_is_pytorchs(shape, ns, affine):
    rng = np.random.default_rng(8)
    x = rng.standard_normal(shape).astype(np.float32)
    w, b = rng.standard_normal(tuple(ns)).astype(np.float32), rng.standard_normal(tuple(ns)).astype(np.float32)
    tx, sx = pair(x, grad=True)
    tw, sw = pair(w, grad=True)
    tb, sb = pair(b, grad=True)
    want = torch.native_layer_norm(tx, ns, tw if affine else None, tb if affine else None, 1e-5)
    got = S.native_layer_norm(sx, ns, sw if affine else None, sb if affine else None, 1e-5)
    _check_tuple(got, want)
    # the gradient of all three results
    gy = rng.standard_normal(shape).astype(np.float32)
    (want[0] * torch.from_numpy(gy)).sum().add(want[1].sum() + want[2].sum()).backward()
    (got[0] * S.tensor(gy)).sum().add(got[1].sum() + got[2].sum()).backward()
    for g, w_ in ((sx, tx),) + (((sw, tw), (sb, tb)) if affine else ()):
        np.testing.assert_allclose(H(g.grad), H(w_.grad), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,N,C,HxW,g,last", [((2, 6, 5), 2, 6, 5, 3, False), ((2, 6, 5, 1), 2, 6, 5, 2, False),
                                                 ((60,), 2, 30, 1, 3, False), ((3, 4), 3, 4, 1, 4, False),
                                                 ((2, 6, 2, 3), 2, 6, 6, 2, True)])
def test_native_group_norm_is_pytorchs(shape, N, C, HxW, g, last):
    rng = np.random.default_rng(9)
    x = rng.standard_normal(shape)
    tx, sx = pair(x, grad=True)
    if last:  # (a channels-last input: a channels-last result)
        tx = tx.detach().contiguous(memory_format=torch.channels_last).requires_grad_()
        sx = sx.detach().contiguous(memory_format=S.channels_last).requires_grad_()
    tw, sw = pair(rng.standard_normal(C), grad=True)
    tb, sb = pair(rng.standard_normal(C))
    want = torch.native_group_norm(tx, tw, tb, N, C, HxW, g, 1e-5)
    got = S.native_group_norm(sx, sw, sb, N, C, HxW, g, 1e-5)
    _check_tuple(got, want, 1e-10, 1e-10)
    (want[0] ** 3).sum().backward()
    (got[0] ** 3).sum().backward()
    np.testing.assert_allclose(H(sx.grad), H(tx.grad), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(H(sw.grad), H(tw.grad), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("shape", [(4, 3, 5), (4, 3), (1, 3, 1), (2, 3, 2, 2), "channels_last"])
@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_is_pytorchs(shape, training):
    rng = np.random.default_rng(10)
    last = shape == "channels_last"
    x = rng.standard_normal((2, 3, 2, 3) if last else shape).astype(np.float32)
    tx, sx = pair(x, grad=True)
    if last:  # (a channels-last input: a channels-last result)
        tx = tx.detach().contiguous(memory_format=torch.channels_last).requires_grad_()
        sx = sx.detach().contiguous(memory_format=S.channels_last).requires_grad_()
    tw, sw = pair(rng.standard_normal(3).astype(np.float32), grad=True)
    tb, sb = pair(rng.standard_normal(3).astype(np.float32))
    stats = rng.uniform(0.5, 2, (2, 3)).astype(np.float32)
    trm, srm = pair(stats[0])
    trv, srv = pair(stats[1])
    want = torch.native_batch_norm(tx, tw, tb, trm, trv, training, 0.3, 1e-5)
    got = S.native_batch_norm(sx, sw, sb, srm, srv, training, 0.3, 1e-5)
    _check_tuple(got, want, 1e-4, 1e-4)
    np.testing.assert_allclose(H(srm), H(trm), rtol=1e-5)  # (the running statistics, updated in training)
    np.testing.assert_allclose(H(srv), H(trv), rtol=1e-5, equal_nan=True)
    want[0].pow(2).sum().backward()
    got[0].pow(2).sum().backward()
    np.testing.assert_allclose(H(sx.grad), H(tx.grad), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(H(sw.grad), H(tw.grad), rtol=1e-3, atol=1e-3)
    if training:  # (no running statistics: only the saved ones)
        _check_tuple(S.native_batch_norm(sx.detach(), None, None, None, None, True, 0.1, 1e-5),
                     torch.native_batch_norm(tx.detach(), None, None, None, None, True, 0.1, 1e-5), 1e-4, 1e-4)


@pytest.mark.parametrize("xd", ["float16", "float32", "float64"])
@pytest.mark.parametrize("wd", [None, "float16", "float32", "float64"])
@pytest.mark.parametrize("sd", [None, "float16", "float32", "float64"])
def test_native_norms_dtype_rules_are_pytorchs(xd, wd, sd):
    x = np.random.default_rng(11).standard_normal((4, 3, 5))

    def calls(m, t):
        mk = (lambda d, v: None if d is None else t(np.full(3 if v < 2 else 5, float(v % 2))).to(getattr(m, d)))
        xx = t(x).to(getattr(m, xd))
        yield lambda: m.native_batch_norm(xx, mk(wd, 1), None, mk(sd, 0), mk(sd, 1), True, 0.1, 1e-5)
        yield lambda: m.native_batch_norm(xx, mk(wd, 1), None, mk(sd, 0), mk(sd, 1), sd is None, 0.1, 1e-5)
        if sd is None:
            yield lambda: m.native_layer_norm(xx, [5], mk(wd, 3), None, 1e-5)
            yield lambda: m.native_group_norm(xx, mk(wd, 1), None, 4, 3, 5, 3, 1e-5)
    for ft, fs in zip(calls(torch, torch.from_numpy), calls(S, S.tensor)):
        try:
            want = ft()
        except RuntimeError:
            raises_alike(ft, fs)
            continue
        got = fs()
        assert [dname(g) for g in got] == [dname(w) for w in want]
        np.testing.assert_allclose(H(got[0]).astype(np.float64), H(want[0]).astype(np.float64), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("call", [
    "m.native_layer_norm(x, [5], None, None, 1e-5)", "m.native_layer_norm(x, [4], m.ones(3), None, 1e-5)",
    "m.native_layer_norm(x.to(m.int64), [4], None, None, 1e-5)", "m.native_layer_norm(x, [], None, None, 1e-5)",
    "m.native_layer_norm(x, 4, None, None, 1e-5)",
    "m.native_group_norm(x, None, None, 2, 3, 4, 2, 1e-5)", "m.native_group_norm(x, None, None, 2, 3, 5, 3, 1e-5)",
    "m.native_group_norm(x, m.ones(4), None, 2, 3, 4, 3, 1e-5)", "m.native_group_norm(x, None, None, 2, 3, 4, 0, 1e-5)",
    "m.native_group_norm(x.transpose(0, 2), None, None, 4, 3, 2, 3, 1e-5)",
    "m.native_batch_norm(x, None, None, m.zeros(3), None, True, 0.1, 1e-5)",
    "m.native_batch_norm(x[0, 0], None, None, None, None, True, 0.1, 1e-5)",
    "m.native_batch_norm(x.to(m.int64), None, None, None, None, True, 0.1, 1e-5)",
    "m.native_batch_norm(m.zeros(0, 3), None, None, m.zeros(3), m.ones(3), True, 0.1, 1e-5)",
    "m.native_dropout(x, 1.5, True)", "m.native_dropout(x, -0.5, None)", "m.native_dropout(x.to(m.int64), 0.5, True)",
    "m.native_norm(x)", "m.native_norm(x, 3, [1], False, None)",
])
def test_native_refusals_are_pytorchs(call):
    tx, sx = pair(np.random.default_rng(12).standard_normal((2, 3, 4)).astype(np.float32))
    raises_alike(lambda: eval(call, {"m": torch, "x": tx}), lambda: eval(call, {"m": S, "x": sx}),
                 message="native_norm" not in call and ", 4, None" not in call)
    if "native_norm" in call:
        with pytest.raises(NotImplementedError, match=r"^Could not run 'aten::native_norm"):
            eval(call, {"m": S, "x": sx})
    with pytest.raises(RuntimeError, match="must be given"):  # (PyTorch 2.13 crashes here)
        S.native_batch_norm(sx, None, None, None, None, False, 0.1, 1e-5)


def test_native_dropout_is_pytorchs():
    x = np.random.default_rng(13).standard_normal((200, 50)).astype(np.float32)
    tx, sx = pair(x, grad=True)
    for train in (True, None):
        out, mask = S.native_dropout(sx, 0.3, train)
        want = torch.native_dropout(tx, 0.3, train)
        assert [dname(out), dname(mask)] == [dname(w) for w in want] == ["float32", "bool"]
        assert tuple(out.shape) == tuple(mask.shape) == x.shape
        np.testing.assert_allclose(H(out), x * H(mask) / np.float32(0.7), rtol=1e-6)
        assert abs(H(mask).mean() - 0.7) < 0.02
    got, want = S.native_dropout(sx.detach().mT, 0.5, True), torch.native_dropout(tx.detach().mT, 0.5, True)
    assert [g.stride() for g in got] == [w.stride() for w in want]  # (the input's layout)
    out.sum().backward()
    np.testing.assert_allclose(H(sx.grad), H(mask) / np.float32(0.7), rtol=1e-6)
    for p, train in ((0.5, False), (1.0, True), (0.0, True), (1.5, False)):
        got, want = S.native_dropout(sx, p, train), torch.native_dropout(tx, p, train)
        _check_tuple(got, want, 0, 0)
        assert (np.signbit(H(got[0])) == np.signbit(H(want[0]))).all()
    e_t, e_s = pair(np.zeros((0, 2)))
    got, want = S.native_dropout(e_s, 0.5, True), torch.native_dropout(e_t, 0.5, True)
    assert got[0] is e_s and want[0] is e_t and dname(got[1]) == dname(want[1]) == "float64"


CONV = [  # (x shape, w shape, bias, stride, padding, dilation, transposed, output_padding, groups)
    ((2, 4, 7), (6, 2, 3), True, [1], [0], [1], False, [0], 2),
    ((2, 4, 9), (6, 2, 3), True, [2], [1], [2], False, [1], 2),
    ((2, 4, 7), (4, 3, 3), True, [2], [1], [1], True, [1], 2),
    ((2, 4, 7), (4, 3, 3), False, [1], [1], [2], True, [1], 2),
    ((2, 4, 5, 6), (6, 4, 3, 2), False, [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
    ((2, 4, 5, 6), (6, 4, 3, 2), True, [2], [1], [1], False, [0], 1),
    ((2, 6, 5, 6), (6, 4, 3, 2), True, [2, 1], [1, 0], [1, 1], True, [1, 0], 1),
    ((1, 2, 4, 4, 4), (3, 2, 2, 2, 2), True, [1, 1, 1], [0, 1, 0], [1, 1, 1], False, [0, 0, 0], 1),
    ((1, 2, 4, 4, 4), (2, 3, 2, 2, 2), False, [2, 1, 1], [0, 0, 0], [1, 1, 1], True, [1, 0, 0], 1),
]


@pytest.mark.parametrize("case", CONV)
def test_convolution_is_pytorchs(case):
    xs, ws, bias, *rest = case
    rng = np.random.default_rng(14)
    tx, sx = pair(rng.standard_normal(xs), grad=True)
    tw, sw = pair(rng.standard_normal(ws), grad=True)
    cout = ws[0] if not rest[3] else ws[1] * rest[-1]
    tb, sb = pair(rng.standard_normal(cout)) if bias else (None, None)
    want, got = torch.convolution(tx, tw, tb, *rest), S.convolution(sx, sw, sb, *rest)
    same(got, want, rtol=1e-10, atol=1e-10)
    if rest[3] or not any(rest[4]):
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(H(sw.grad), H(tw.grad), rtol=1e-10)
    else:  # (PyTorch's backward refuses an output_padding it ignored forward)
        raises_alike(lambda: want.sum().backward(), lambda: got.sum().backward())


@pytest.mark.parametrize("call", [
    "m.convolution(x, w, b, 1, [0], [1], False, [0], 2)", "m.convolution(x, w, b, [1, 1], [0], [1], False, [0], 2)",
    "m.convolution(x, w, b, [], [0], [1], False, [0], 2)", "m.convolution(x[0], w, b, [1], [0], [1], False, [0], 2)",
    "m.convolution(x, w, b, [0], [0], [1], False, [0], 2)", "m.convolution(x, w, b, [1], [-1], [1], False, [0], 2)",
    "m.convolution(x, w, b, [1], [0], [1], False, [0], 0)",
    "m.convolution(x, w[:, :, 0], b, [1], [0], [1], False, [0], 2)",
    "m.convolution(x, w, b, [1], 'same', [1], False, [0], 2)",
])
def test_convolution_refusals_are_pytorchs(call):
    rng = np.random.default_rng(15)
    tx, sx = pair(rng.standard_normal((2, 4, 7)))
    tw, sw = pair(rng.standard_normal((6, 2, 3)))
    tb, sb = pair(rng.standard_normal(6))
    raises_alike(lambda: eval(call, {"m": torch, "x": tx, "w": tw, "b": tb}),
                 lambda: eval(call, {"m": S, "x": sx, "w": sw, "b": sb}), message="'same'" not in call)


@pytest.mark.parametrize("reduction", [0, 1, 2, 3])
def test_ctc_loss_takes_atens_reduction(reduction):
    rng = np.random.default_rng(16)
    lp = rng.standard_normal((6, 2, 4))
    lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
    tlp, slp = pair(lp, grad=True)
    tg = np.array([[1, 2, 2], [3, 1, 0]])
    want = torch.ctc_loss(tlp, torch.from_numpy(tg), [6, 5], [3, 2], 0, reduction, False)
    got = S.ctc_loss(slp, S.tensor(tg), S.tensor([6, 5]), S.tensor([3, 2]), 0, reduction)
    same(got, want, rtol=1e-9, atol=1e-9)
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(H(slp.grad), H(tlp.grad), rtol=1e-7, atol=1e-9)
    raises_alike(lambda: torch.ctc_loss(tlp, torch.from_numpy(tg), [6, 5], torch.tensor([3, 2])),
                 lambda: S.ctc_loss(slp, S.tensor(tg), [6, 5], S.tensor([3, 2])), message=False)


EB = [  # (mode, offsets, kwargs)
    (0, [0, 4], {}), (1, [0, 4], {}), (2, [0, 4], {}),
    (0, [0, 4, 8], {"include_last_offset": True}), (1, [0, 4, 8], {"include_last_offset": True}),
    (2, [0, 4, 8], {"include_last_offset": True}),
    (0, [0, 4, 4, 6], {}), (1, [0, 4, 4, 6], {}), (2, [0, 4, 4, 6], {}),
    (0, [0, 4], {"padding_idx": 2}), (1, [0, 4], {"padding_idx": 2}), (2, [0, 4], {"padding_idx": -1}),
    (0, [0, 4], {"per_sample_weights": True}), (0, [0, 3], {"dtype": np.float64}), (2, [0, 3], {"dtype": np.float64}),
    (1, [0, 4], {"index_dtype": np.int32}), (2, [0, 2, 5], {"index_dtype": np.int32, "padding_idx": 4}),
]


@pytest.mark.parametrize("mode,offsets,kw", EB)
def test_embedding_bag_is_atens(mode, offsets, kw):
    kw = dict(kw)
    rng = np.random.default_rng(17)
    w = rng.standard_normal((10, 3)).astype(kw.pop("dtype", np.float32))
    w[4, 1] = w[2, 1]  # (a tie in a max bag: the first index wins)
    w[3, 0] = np.nan  # (a NaN after the first of its bag is never the maximum)
    idt = kw.pop("index_dtype", np.int64)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9], idt)
    tw, sw = pair(w, grad=True)
    ti, si = pair(idx)
    to, so = pair(np.array(offsets, idt))
    args = [False, mode, False, None, kw.get("include_last_offset", False)]
    if kw.get("per_sample_weights"):
        tp, sp = pair(rng.uniform(0, 1, 8).astype(w.dtype))
        args[3] = (tp, sp)
    targs = args[:3] + [args[3][0] if args[3] else None] + args[4:]
    sargs = args[:3] + [args[3][1] if args[3] else None] + args[4:]
    if "padding_idx" in kw:
        targs.append(kw["padding_idx"])
        sargs.append(kw["padding_idx"])
    want = torch.embedding_bag(tw, ti, to, *targs)
    got = S.embedding_bag(sw, si, so, *sargs)
    assert type(got) is tuple and len(got) == 4
    for i, (g, w_) in enumerate(zip(got, want)):
        assert tuple(g.shape) == tuple(w_.shape) and dname(g) == dname(w_), i
        np.testing.assert_allclose(H(g), H(w_), rtol=1e-6, atol=1e-7, err_msg=str(i), equal_nan=True)
    gy = rng.standard_normal(tuple(want[0].shape)).astype(w.dtype)
    (want[0].nan_to_num() * torch.from_numpy(gy)).sum().backward()
    (got[0].nan_to_num() * S.tensor(gy)).sum().backward()
    np.testing.assert_allclose(H(sw.grad), H(tw.grad), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("call", [
    "m.embedding_bag(w, i, None)", "m.embedding_bag(w, i, o, False, 3)", "m.embedding_bag(w, i, o, mode='sum')",
    "m.embedding_bag(w, i, o, False, 1, False, m.ones(8))",
    "m.embedding_bag(w, i, o, False, 0, False, m.ones(8, dtype=m.float64))",
    "m.embedding_bag(w, i, o, False, 0, False, None, False, 10)", "m.embedding_bag(w, i.to(m.float32), o)",
    "m.embedding_bag(w, i, o + 1)",
])
def test_embedding_bag_refusals_are_pytorchs(call):
    rng = np.random.default_rng(18)
    tw, sw = pair(rng.standard_normal((10, 3)).astype(np.float32))
    ti, si = pair(np.array([1, 2, 4, 5, 4, 3, 2, 9]))
    to, so = pair(np.array([0, 4]))
    raises_alike(lambda: eval(call, {"m": torch, "w": tw, "i": ti, "o": to}),
                 lambda: eval(call, {"m": S, "w": sw, "i": si, "o": so}),
                 message="ones(8, dtype" not in call and "o + 1" not in call and "float32)" not in call)


def test_unsafe_split_with_sizes_is_pytorchs():
    for call in ["m.unsafe_split_with_sizes(x, [3, 7])", "m.unsafe_split_with_sizes(x.reshape(2, 5), [2, 3], 1)",
                 "m.unsafe_split_with_sizes(x.reshape(2, 5), (2, 3), dim=-1)", "x.unsafe_split_with_sizes([4, 6])",
                 "x.reshape(5, 2).unsafe_split_with_sizes([1, 1], dim=1)"]:
        want = eval(call, {"m": torch, "x": torch.arange(10.0)})
        got = eval(call, {"m": S, "x": S.arange(10.0)})
        assert type(got) is tuple and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    for call in ["m.unsafe_split_with_sizes(x, [3, 6])", "m.unsafe_split_with_sizes(x, 3)",
                 "m.unsafe_split_with_sizes(x, [3, -1, 8])"]:
        raises_alike(lambda: eval(call, {"m": torch, "x": torch.arange(10.0)}),
                     lambda: eval(call, {"m": S, "x": S.arange(10.0)}))


# --- lobpcg ----------------------------------------------------------------------------------

def _spd(m, seed, spectrum=None):
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((m, m)))
    return q @ np.diag(np.arange(1.0, m + 1) if spectrum is None else spectrum) @ q.T


@pytest.mark.parametrize("kw", [{"k": 2}, {"k": 2, "largest": False}, {"k": 3, "method": "basic"}, {"k": 2, "B": True},
                                {"k": 1, "niter": 3}, {"k": 2, "n": 3, "batch": True},
                                {"k": 2, "ortho_bparams": {"ortho_use_drop": True}}])
def test_lobpcg_is_pytorchs(kw):
    kw = dict(kw)
    m = 12
    a = _spd(m, 19)
    x0 = np.random.default_rng(20).standard_normal((m, 3 if kw.get("method") or kw.get("n") else kw["k"]))
    kw.pop("n", None)
    if kw.pop("batch", False):
        a, x0 = np.stack([a, _spd(m, 21)]), np.stack([x0, x0[::-1].copy()])
    if kw.pop("B", False):
        b = _spd(m, 22, np.linspace(1, 2, m))
        kw["B"] = (torch.from_numpy(b), S.tensor(b))
    tkw = {n: (v[0] if isinstance(v, tuple) else v) for n, v in kw.items()}
    skw = {n: (v[1] if isinstance(v, tuple) else v) for n, v in kw.items()}
    steps = []
    tE, tX = torch.lobpcg(torch.from_numpy(a.copy()), X=torch.from_numpy(x0.copy()), **tkw)
    sE, sX = S.lobpcg(S.tensor(a.copy()), X=S.tensor(x0.copy()), tracker=lambda w: steps.append(w.ivars["istep"]),
                      **skw)
    assert tuple(sE.shape) == tuple(tE.shape) and tuple(sX.shape) == tuple(tX.shape) and dname(sE) == dname(tE)
    np.testing.assert_allclose(H(sE), H(tE), rtol=1e-10)
    g, w = H(sX), H(tX)
    sign = np.sign((g * w).sum(-2, keepdims=True))  # (eigenvectors: up to sign)
    np.testing.assert_allclose(g * sign, w, atol=1e-6)
    if "niter" not in kw and a.ndim == 2:  # (converged: the eigenpairs of numpy.linalg.eigh)
        want = np.linalg.eigvalsh(a if "B" not in kw else np.linalg.solve(np.linalg.cholesky(H(kw["B"][0])),
                                  np.linalg.solve(np.linalg.cholesky(H(kw["B"][0])), a).T))
        want = want[::-1] if kw.get("largest", True) else want
        np.testing.assert_allclose(H(sE), want[:kw["k"]], rtol=1e-8)
    assert steps and steps[0] == 1 and all(s >= 1 for s in steps)  # (the tracker saw each step)


@pytest.mark.parametrize("k,largest", [(2, True), (2, False), (3, True), (4, False)])
def test_lobpcg_gradient_is_pytorchs(k, largest):
    m = 12
    a = _spd(m, 23)
    x0 = np.random.default_rng(24).standard_normal((m, k))
    wgt = np.random.default_rng(25).standard_normal((m, k))
    ta, sa = pair(a, grad=True)
    tE, tX = torch.lobpcg(ta, k=k, X=torch.from_numpy(x0.copy()), largest=largest)
    sE, sX = S.lobpcg(sa, k=k, X=S.tensor(x0.copy()), largest=largest)
    sign = np.sign((H(tX) * H(sX)).sum(0))
    (tE.sum() + (tX * torch.from_numpy(wgt)).sum()).backward()
    (sE.sum() + (sX * S.tensor(wgt * sign)).sum()).backward()
    np.testing.assert_allclose(H(sa.grad), H(ta.grad), atol=1e-7)


def test_lobpcg_refusals_are_pytorchs():
    ta, sa = pair(_spd(6, 26))
    for call in ["m.lobpcg(a, k=3)", "m.lobpcg(a[:, :5])", "m.lobpcg(a, B=a[:5, :5])",
                 "m.lobpcg(a, X=m.ones(6, 3, dtype=m.float64))"]:
        raises_alike(lambda: eval(call, {"m": torch, "a": ta}), lambda: eval(call, {"m": S, "a": sa}))
    E, X = S.lobpcg(sa, k=1)  # (a random start)
    np.testing.assert_allclose(H(E), [6.0], rtol=1e-6)
