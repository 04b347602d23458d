"""``strided.torch.nn.utils.parametrize`` and ``parametrizations`` against PyTorch 2.13: the same
module built from the same weights in both libraries, then the parametrized values, the
``original`` tensors, ``state_dict`` keys, class names, forward outputs and gradients compared;
registration, chaining, assignment through ``right_inverse``, removal, ``cached``, transfer and
the errors for bad input."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-10, atol=1e-12)}
DT = {"float32": (torch.float32, st.float32), "float64": (torch.float64, st.float64)}


def pair(name, *args, dtype="float64", seed=0, **kwargs):
    """The same module in both libraries, with the weights drawn by NumPy."""
    rng = np.random.default_rng(seed)
    tm = getattr(torch.nn, name)(*args, dtype=DT[dtype][0], **kwargs)
    sm = getattr(st.nn, name)(*args, dtype=DT[dtype][1], **kwargs)
    sd = {}
    with torch.no_grad():
        for k, v in tm.state_dict().items():
            if v.dtype.is_floating_point:
                a = rng.standard_normal(tuple(v.shape)).astype(dtype)
                v.copy_(torch.from_numpy(a))
            sd[k] = v.numpy().copy()
    sm.load_state_dict(sd)
    return tm, sm


def close(s, t, dtype="float64"):
    assert tuple(s.shape) == tuple(t.shape)
    assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(to_numpy(s), to_numpy(t), **TOL[dtype])


def inputs(shape, dtype, seed=1):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.from_numpy(a.copy()), strided.asarray(a.copy())


def compare_grads(tm, sm, dtype):
    tp, sp = dict(tm.named_parameters()), dict(sm.named_parameters())
    assert list(tp) == list(sp)
    for k in tp:
        assert (tp[k].grad is None) == (sp[k].grad is None), k
        if tp[k].grad is not None:
            close(sp[k].grad, tp[k].grad, dtype)


# --- generic parametrizations ----------------------------------------------------------------

def make_parametrizations(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()

    class Scale(lib.nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c = c

        def forward(self, X):
            return self.c * X

        def right_inverse(self, A):
            return A / self.c

    class Square(lib.nn.Module):  # no right_inverse
        def forward(self, X):
            return X * X

    class Split(lib.nn.Module):  # parametrized by a sequence of two tensors
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return (0.25 * X, 0.75 * X)

    class ToFloat32(lib.nn.Module):
        def forward(self, X):
            return X.float()

    class Flat(lib.nn.Module):
        def forward(self, X):
            return X.reshape(-1)

    return dict(Symmetric=Symmetric, Scale=Scale, Square=Square, Split=Split,
                ToFloat32=ToFloat32, Flat=Flat)


TP, SP = make_parametrizations(torch), make_parametrizations(st)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("chain", [["Symmetric"], ["Symmetric", "Scale"], ["Square"],
                                   ["Scale", "Square", "Symmetric"], ["Split"], ["Split", "Scale"]])
def test_register_chain_equals_pytorch(dtype, chain):
    tm, sm = pair("Linear", 4, 4, dtype=dtype)
    t_orig, s_orig = tm.weight, sm.weight
    for name in chain:
        args = (3.0,) if name == "Scale" else ()
        torch.nn.utils.parametrize.register_parametrization(tm, "weight", TP[name](*args))
        st.nn.utils.parametrize.register_parametrization(sm, "weight", SP[name](*args))
    assert type(sm).__name__ == type(tm).__name__ == "ParametrizedLinear"
    assert list(sm.state_dict()) == list(tm.state_dict())
    assert [k for k, _ in sm.named_parameters()] == [k for k, _ in tm.named_parameters()]
    plist = sm.parametrizations.weight
    assert type(plist).__name__ == "ParametrizationList" and len(plist) == len(chain)
    if chain[0] == "Split":
        assert not hasattr(plist, "original")
        close(plist.original0, tm.parametrizations.weight.original0, dtype)
        close(plist.original1, tm.parametrizations.weight.original1, dtype)
    else:
        assert plist.original is s_orig and tm.parametrizations.weight.original is t_orig
        close(plist.original, tm.parametrizations.weight.original, dtype)
    close(sm.weight, tm.weight, dtype)
    tx, sx = inputs((3, 4), dtype)
    (tm(tx) ** 2).sum().backward()
    (sm(sx) ** 2).sum().backward()
    compare_grads(tm, sm, dtype)
    for P in (torch.nn.utils.parametrize, st.nn.utils.parametrize):
        assert P.is_parametrized(tm if P is torch.nn.utils.parametrize else sm)
    assert st.nn.utils.parametrize.is_parametrized(sm, "weight")
    assert not st.nn.utils.parametrize.is_parametrized(sm, "bias")
    assert st.nn.utils.parametrize.type_before_parametrizations(sm) is st.nn.Linear


@pytest.mark.parametrize("leave", [True, False])
@pytest.mark.parametrize("chain", [["Symmetric"], ["Scale", "Symmetric"], ["Split"]])
def test_remove_parametrizations_equals_pytorch(leave, chain):
    tm, sm = pair("Linear", 3, 3)
    for name in chain:
        args = (2.0,) if name == "Scale" else ()
        torch.nn.utils.parametrize.register_parametrization(tm, "weight", TP[name](*args))
        st.nn.utils.parametrize.register_parametrization(sm, "weight", SP[name](*args))
    if chain == ["Split"] and not leave:
        with pytest.raises(ValueError, match="Cannot leave unparametrized"):
            torch.nn.utils.parametrize.remove_parametrizations(tm, "weight", leave_parametrized=False)
        with pytest.raises(ValueError, match="Cannot leave unparametrized"):
            st.nn.utils.parametrize.remove_parametrizations(sm, "weight", leave_parametrized=False)
        return
    orig = None if chain == ["Split"] else sm.parametrizations.weight.original
    torch.nn.utils.parametrize.remove_parametrizations(tm, "weight", leave_parametrized=leave)
    out = st.nn.utils.parametrize.remove_parametrizations(sm, "weight", leave_parametrized=leave)
    assert out is sm and type(sm) is st.nn.Linear and type(tm) is torch.nn.Linear
    assert not hasattr(sm, "parametrizations")
    assert list(sm.state_dict()) == list(tm.state_dict()) == ["bias", "weight"]
    assert isinstance(sm.weight, st.nn.Parameter) and sm.weight.requires_grad
    if orig is not None:
        assert sm.weight is orig
    close(sm.weight, tm.weight)


def test_buffer_parametrization_and_state_dict():
    tm, sm = pair("BatchNorm1d", 3)
    for m, P, lib in ((tm, torch.nn.utils.parametrize, TP), (sm, st.nn.utils.parametrize, SP)):
        P.register_parametrization(m, "running_var", lib["Scale"](2.0))
    assert list(sm.state_dict()) == list(tm.state_dict())
    assert "parametrizations.running_var.original" in sm.state_dict()
    assert list(sm.named_buffers()) and [k for k, _ in sm.named_buffers()] == \
        [k for k, _ in tm.named_buffers()]
    close(sm.running_var, tm.running_var)
    tm.eval(), sm.eval()
    tx, sx = inputs((4, 3), "float64")
    close(sm(sx), tm(tx))


def test_assignment_goes_through_right_inverse():
    tm, sm = pair("Linear", 3, 3)
    for m, P, lib in ((tm, torch.nn.utils.parametrize, TP), (sm, st.nn.utils.parametrize, SP)):
        P.register_parametrization(m, "weight", lib["Symmetric"]())
        P.register_parametrization(m, "weight", lib["Scale"](4.0))
    a = np.random.default_rng(5).standard_normal((3, 3))
    tm.weight = torch.from_numpy(a.copy())
    orig = sm.parametrizations.weight.original
    sm.weight = strided.asarray(a.copy())
    assert sm.parametrizations.weight.original is orig
    close(sm.parametrizations.weight.original, tm.parametrizations.weight.original)
    close(sm.weight, tm.weight)
    # a Parameter can't replace a parametrized tensor
    with pytest.raises(KeyError, match="already exists"):
        tm.weight = torch.nn.Parameter(torch.zeros(3, 3, dtype=torch.float64))
    with pytest.raises(KeyError, match="already exists"):
        sm.weight = st.nn.Parameter(st.zeros(3, 3, dtype=st.float64))


def test_assignment_without_right_inverse_raises():
    for lib, P, mod in ((TP, torch.nn.utils.parametrize, torch.nn), (SP, st.nn.utils.parametrize, st.nn)):
        m = mod.Linear(2, 2)
        P.register_parametrization(m, "weight", lib["Square"]())
        with pytest.raises(RuntimeError, match="does not implement right_inverse"):
            m.weight = m.weight.detach()


def test_unsafe_and_errors():
    for lib, P, mod in ((TP, torch.nn.utils.parametrize, torch.nn), (SP, st.nn.utils.parametrize, st.nn)):
        m = mod.Linear(3, 2)
        with pytest.raises(ValueError, match="may not change the dtype"):
            P.register_parametrization(mod.Linear(3, 2, dtype=_dt(mod, "float64")), "weight",
                                       lib["ToFloat32"]())
        with pytest.raises(ValueError, match="may not change the shape"):
            P.register_parametrization(m, "weight", lib["Flat"]())
        assert not P.is_parametrized(m)
        P.register_parametrization(m, "weight", lib["Flat"](), unsafe=True)
        assert tuple(m.weight.shape) == (6,)
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized"):
            P.register_parametrization(m, "nope", lib["Square"]())
        with pytest.raises(ValueError, match="does not have a parametrization on bias"):
            P.remove_parametrizations(m, "bias")
        m2 = mod.Linear(3, 3)
        P.register_parametrization(m2, "weight", lib["Square"]())
        with pytest.raises(ValueError, match="may not change the shape"):
            P.register_parametrization(m2, "weight", lib["Flat"]())
        with pytest.raises(ValueError, match="ParametrizationList requires one or more modules"):
            P.ParametrizationList([], m2.bias)
        with pytest.raises(RuntimeError, match="only supported through state_dict"):
            pickle.dumps(m2)


def _dt(mod, name):
    return getattr(torch if mod is torch.nn else st, name)


def test_cached():
    P = st.nn.utils.parametrize
    m = st.nn.Linear(3, 3)
    P.register_parametrization(m, "weight", SP["Symmetric"]())
    assert m.weight is not m.weight
    with P.cached():
        w = m.weight
        assert m.weight is w
        with P.cached():
            assert m.weight is w
        assert m.weight is w
    assert m.weight is not w
    # torch behaves the same
    tm = torch.nn.Linear(3, 3)
    torch.nn.utils.parametrize.register_parametrization(tm, "weight", TP["Symmetric"]())
    with torch.nn.utils.parametrize.cached():
        assert tm.weight is tm.weight


@pytest.mark.parametrize("name", [None, "weight"])
def test_transfer_parametrizations_and_params(name):
    res = []
    for lib, P, mod, wn in ((TP, torch.nn.utils.parametrize, torch.nn, torch.nn.utils.parametrizations),
                            (SP, st.nn.utils.parametrize, st.nn, st.nn.utils.parametrizations)):
        a = mod.Linear(3, 3)
        P.register_parametrization(a, "weight", lib["Symmetric"]())
        wn.weight_norm(a, "bias", dim=0)
        b = P.transfer_parametrizations_and_params(a, mod.Linear(3, 3), name)
        assert type(b).__name__ == "ParametrizedLinear"
        assert b.parametrizations.weight.original is a.parametrizations.weight.original
        if name is None:
            assert b.parametrizations.bias.original0 is a.parametrizations.bias.original0
        res.append(list(b.state_dict()))
        # an unparametrized source changes nothing
        c = mod.Linear(2, 2)
        assert P.transfer_parametrizations_and_params(mod.Linear(2, 2), c) is c
        assert not P.is_parametrized(c)
    assert res[0] == res[1]


def test_deepcopy_and_train_mode():
    m = st.nn.Linear(3, 3)
    st.nn.utils.parametrize.register_parametrization(m, "weight", SP["Symmetric"]())
    m.eval()
    assert not m.parametrizations.weight[0].training
    m2 = copy.deepcopy(m)
    assert type(m2).__name__ == "ParametrizedLinear"
    assert m2.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_array_equal(to_numpy(m2.weight), to_numpy(m.weight))
    p = SP["Scale"](2.0)
    m3 = st.nn.Linear(2, 2).eval()
    st.nn.utils.parametrize.register_parametrization(m3, "weight", p)
    assert not p.training


# --- weight_norm -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [("Linear", (4, 3), (2, 4), 0), ("Linear", (4, 3), (2, 4), 1),
                                  ("Linear", (4, 3), (4,), None), ("Linear", (4, 3), (2, 4), -2),
                                  ("Conv2d", (2, 3, 3), (1, 2, 5, 5), 0),
                                  ("Conv2d", (2, 3, 3), (1, 2, 5, 5), 2),
                                  ("Conv1d", (2, 3, 2), (2, 4), -1)])
def test_weight_norm_equals_pytorch(dtype, case):
    name, args, xshape, dim = case
    tm, sm = pair(name, *args, dtype=dtype)
    torch.nn.utils.parametrizations.weight_norm(tm, dim=dim)
    out = st.nn.utils.parametrizations.weight_norm(sm, dim=dim)
    assert out is sm
    assert list(sm.state_dict()) == list(tm.state_dict())
    for k in ("original0", "original1"):
        close(getattr(sm.parametrizations.weight, k), getattr(tm.parametrizations.weight, k), dtype)
        assert getattr(sm.parametrizations.weight, k).requires_grad
    close(sm.weight, tm.weight, dtype)
    tx, sx = inputs(xshape, dtype)
    to, so = tm(tx), sm(sx)
    close(so, to, dtype)
    (to.sin()).sum().backward()
    (so.sin()).sum().backward()
    compare_grads(tm, sm, dtype)


def test_weight_norm_bad_dim_and_remove():
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2), dim=2)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        st.nn.utils.parametrizations.weight_norm(st.nn.Linear(3, 2), dim=2)
    tm, sm = pair("Linear", 3, 2)
    torch.nn.utils.parametrizations.weight_norm(tm)
    st.nn.utils.parametrizations.weight_norm(sm)
    torch.nn.utils.parametrize.remove_parametrizations(tm, "weight")
    st.nn.utils.parametrize.remove_parametrizations(sm, "weight")
    assert isinstance(sm.weight, st.nn.Parameter)
    close(sm.weight, tm.weight)


# --- spectral_norm ---------------------------------------------------------------------------

def _sync_uv(tm, sm):
    """strided's power-iteration vectors set to PyTorch's (theirs are drawn at random)."""
    sd = {k: v.numpy().copy() for k, v in tm.state_dict().items()}
    sm.load_state_dict(sd)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [("Linear", (5, 4), (3, 5), {}),
                                  ("Linear", (5, 4), (3, 5), dict(n_power_iterations=3, eps=1e-6)),
                                  ("Conv2d", (2, 3, 3), (1, 2, 5, 5), {}),
                                  ("Conv2d", (2, 3, 3), (1, 2, 5, 5), dict(dim=2)),
                                  ("ConvTranspose2d", (2, 3, 3), (1, 2, 4, 4), {}),
                                  ("ConvTranspose1d", (3, 2, 2), (3, 4), dict(dim=-1))])
def test_spectral_norm_equals_pytorch(dtype, case):
    name, args, xshape, kw = case
    tm, sm = pair(name, *args, dtype=dtype)
    torch.nn.utils.parametrizations.spectral_norm(tm, **kw)
    st.nn.utils.parametrizations.spectral_norm(sm, **kw)
    assert list(sm.state_dict()) == list(tm.state_dict())
    assert sm.parametrizations.weight[0].dim == tm.parametrizations.weight[0].dim
    # the state after registration: unit u, v with u ~ W v / |W v| (15 power iterations)
    u = to_numpy(sm.parametrizations.weight[0]._u)
    np.testing.assert_allclose(np.linalg.norm(u), 1.0, rtol=1e-5)
    _sync_uv(tm, sm)
    tx, sx = inputs(xshape, dtype)
    for mode in ("train", "train", "eval"):
        getattr(tm, mode)(), getattr(sm, mode)()
        tw, sw = tm.weight, sm.weight
        close(sw, tw, dtype)
        for b in ("_u", "_v"):
            close(getattr(sm.parametrizations.weight[0], b), getattr(tm.parametrizations.weight[0], b),
                  dtype)
    to, so = tm(tx), sm(sx)
    close(so, to, dtype)
    tm.train(), sm.train()
    tm.zero_grad(), sm.zero_grad()
    (tm(tx) ** 2).sum().backward()
    (sm(sx) ** 2).sum().backward()
    compare_grads(tm, sm, dtype)


def test_spectral_norm_sigma_and_eval_keeps_uv():
    rng = np.random.default_rng(2)
    u, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    v, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    w0 = u @ np.diag([3.0, 1.0, 0.5, 0.3, 0.1]) @ v[:5]  # (a clear spectral gap: fast convergence)
    m = st.nn.Linear(6, 5, dtype=st.float64)
    with st.no_grad():
        m.weight.copy_(strided.asarray(w0))
    st.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=10)
    w = to_numpy(m.weight)
    np.testing.assert_allclose(w, w0 / 3.0, rtol=1e-9, atol=1e-12)
    m.eval()
    u = to_numpy(m.parametrizations.weight[0]._u).copy()
    _ = m.weight
    np.testing.assert_array_equal(to_numpy(m.parametrizations.weight[0]._u), u)


def test_spectral_norm_1d_and_errors():
    for lib in (torch, st):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.tensor([3.0, 4.0], dtype=lib.float64))
        m = lib.nn.utils.parametrizations.spectral_norm(M(), "w")
        np.testing.assert_allclose(to_numpy(m.w), [0.6, 0.8])
        with pytest.raises(IndexError, match="Dimension out of range"):
            lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), dim=2)
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
            lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), "nope")


# --- orthogonal ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("omap", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("triv", [True, False])
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3)])
def test_orthogonal_equals_pytorch(dtype, omap, triv, shape):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape).astype(dtype)
    mods = []
    for lib in (torch, st):
        m = lib.nn.Module()
        m.weight = lib.nn.Parameter(torch.from_numpy(a.copy()) if lib is torch
                                    else strided.asarray(a.copy()))
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
        mods.append(m)
    tm, sm = mods
    assert list(sm.state_dict()) == list(tm.state_dict())
    assert sm.parametrizations.weight[0].orthogonal_map.name == tm.parametrizations.weight[0].orthogonal_map.name
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(to_numpy(sm.weight), to_numpy(tm.weight), **tol)
    n, k = shape[-2], shape[-1]
    if triv and n == k:
        np.testing.assert_allclose(to_numpy(sm.parametrizations.weight[0].base),
                                   to_numpy(tm.parametrizations.weight[0].base), **tol)
    np.testing.assert_allclose(to_numpy(sm.parametrizations.weight.original),
                               to_numpy(tm.parametrizations.weight.original), **tol)
    if n == k or not triv:  # (otherwise base holds random columns)
        g = rng.standard_normal(shape).astype(dtype)
        (tm.weight * torch.from_numpy(g.copy())).sum().backward()
        (sm.weight * strided.asarray(g.copy())).sum().backward()
        np.testing.assert_allclose(to_numpy(sm.parametrizations.weight.original.grad),
                                   to_numpy(tm.parametrizations.weight.original.grad),
                                   rtol=tol["rtol"] * 10, atol=tol["atol"] * 10)


@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_assignment(omap):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 3))
    q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    for triv in (True, False):
        mods = []
        for lib in (torch, st):
            m = lib.nn.Linear(3, 3, dtype=lib.float64)
            with lib.no_grad():
                m.weight.copy_(torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy()))
            lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
            T = torch.from_numpy(q.copy()) if lib is torch else strided.asarray(q.copy())
            if not triv and omap != "householder":
                with pytest.raises(NotImplementedError, match="not possible to assign"):
                    m.weight = T
            else:
                m.weight = T
            mods.append(m)
        np.testing.assert_allclose(to_numpy(mods[1].weight), to_numpy(mods[0].weight),
                                   rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(to_numpy(mods[1].parametrizations.weight.original),
                                   to_numpy(mods[0].parametrizations.weight.original),
                                   rtol=1e-9, atol=1e-10)


def test_orthogonal_errors():
    for lib in (torch, st):
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), "bias")
        with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), orthogonal_map="qr")
        with pytest.raises(ValueError, match="has no parameter or buffer with name"):
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), "w")
        m = lib.nn.Module()
        m.weight = lib.nn.Parameter(lib.ones(2, 2, dtype=lib.complex128))
        with pytest.raises(ValueError, match="householder parametrization does not support complex"):
            lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map="householder")
        m = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3))
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
            m.weight = lib.eye(2)


def test_orthogonal_complex_unitary():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    res = []
    for lib in (torch, st):
        m = lib.nn.Module()
        m.weight = lib.nn.Parameter(torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy()))
        lib.nn.utils.parametrizations.orthogonal(m)
        res.append(to_numpy(m.weight))
    np.testing.assert_allclose(res[1], res[0], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(res[1].conj().T @ res[1], np.eye(3), atol=1e-12)


def test_missing_names_gone():
    assert st.nn.utils.parametrize.register_parametrization
    assert "parametrize" in st.nn.utils.__all__ and "parametrizations" in st.nn.utils.__all__
    with pytest.raises(AttributeError, match="strided does not support it"):
        st.nn.utils.convert_conv2d_weight_memory_format


@pytest.mark.parametrize("cls", ["GRU", "LSTM"])
def test_weight_norm_on_rnn_weights(cls):
    tm, sm = pair(cls, 3, 4)
    torch.nn.utils.parametrizations.weight_norm(tm, "weight_hh_l0")
    st.nn.utils.parametrizations.weight_norm(sm, "weight_hh_l0")
    assert list(sm.state_dict()) == list(tm.state_dict())
    tx, sx = inputs((5, 2, 3), "float64")
    to, so = tm(tx)[0], sm(sx)[0]
    close(so, to)
    to.sum().backward()
    so.sum().backward()
    compare_grads(tm, sm, "float64")
