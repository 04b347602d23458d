"""``strided.torch.nn.utils`` against PyTorch 2.13's ``torch.nn.utils``: gradient clipping (every
norm type, the returned norm's value and dtype, the clipped gradients, mixed dtypes, missing
gradients, the non-finite and foreach errors), parameters/vector conversion (values and
gradients), and ``rnn.pad_sequence`` / ``unpad_sequence`` (values, dtypes, gradients, errors)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

NORMS = [2.0, 1.0, 0.5, 3, math.inf, -math.inf, 0.0]


def make_params(lib, dtypes, seed=0, none_at=(), scale=1.0):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (5,), (2, 1, 3), ()]
    params = []
    for i, (shape, dt) in enumerate(zip(shapes, dtypes)):
        v = np.asarray(rng.standard_normal(shape)).astype(dt)
        g = np.asarray(rng.standard_normal(shape) * scale).astype(dt)
        if lib is torch:
            p = torch.nn.Parameter(torch.from_numpy(v.copy()))
            if i not in none_at:
                p.grad = torch.from_numpy(g.copy())
        else:
            p = st.nn.Parameter(strided.asarray(v.copy()))
            if i not in none_at:
                p.grad = strided.asarray(g.copy())
        params.append(p)
    return params


def check_grads(sp, tp, rtol):
    for a, b in zip(sp, tp):
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            assert str(a.grad.dtype).split(".")[-1] == str(b.grad.dtype).split(".")[-1]
            np.testing.assert_allclose(to_numpy(a.grad), to_numpy(b.grad), rtol=rtol, atol=1e-30)


def close_scalar(s, t, rtol):
    assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(s.shape) == tuple(t.shape) == ()
    np.testing.assert_allclose(to_numpy(s), to_numpy(t), rtol=rtol)


@pytest.mark.parametrize("norm_type", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("max_norm", [0.3, 1e3])
def test_clip_grad_norm_equals_pytorch(norm_type, dtype, max_norm):
    rtol = 1e-5 if dtype == "float32" else 1e-12
    tp, sp = make_params(torch, [dtype] * 4, none_at=(1,)), make_params(st, [dtype] * 4, none_at=(1,))
    tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type=norm_type)
    sn = st.nn.utils.clip_grad_norm_(sp, max_norm, norm_type=norm_type)
    close_scalar(sn, tn, rtol)
    check_grads(sp, tp, rtol)


@pytest.mark.parametrize("norm_type", [2.0, math.inf, 1.0])
def test_mixed_dtypes_single_tensor_and_generator(norm_type):
    dts = ["float32", "float64", "float32", "float64"]
    tp, sp = make_params(torch, dts, seed=1), make_params(st, dts, seed=1)
    tn = torch.nn.utils.clip_grad_norm_((p for p in tp), 0.5, norm_type)
    sn = st.nn.utils.clip_grad_norm_((p for p in sp), 0.5, norm_type)
    close_scalar(sn, tn, 1e-6)
    check_grads(sp, tp, 1e-6)
    tn = torch.nn.utils.clip_grad_norm_(tp[1], 0.1, norm_type)
    sn = st.nn.utils.clip_grad_norm_(sp[1], 0.1, norm_type)
    close_scalar(sn, tn, 1e-6)  # (the first clip's coefficient carries float32 rounding)
    check_grads(sp, tp, 1e-6)


def test_get_total_norm_and_clip_grads_with_norm():
    for norm_type in NORMS:
        tp, sp = make_params(torch, ["float64"] * 4, 2), make_params(st, ["float64"] * 4, 2)
        tn = torch.nn.utils.get_total_norm([p.grad for p in tp], norm_type)
        sn = st.nn.utils.get_total_norm([p.grad for p in sp], norm_type)
        close_scalar(sn, tn, 1e-12)
        torch.nn.utils.clip_grads_with_norm_(tp, 0.7, tn)
        st.nn.utils.clip_grads_with_norm_(sp, 0.7, sn)
        check_grads(sp, tp, 1e-12)
    close_scalar(st.nn.utils.get_total_norm([]), torch.nn.utils.get_total_norm([]), 0)
    close_scalar(st.nn.utils.clip_grad_norm_([], 1.0), torch.nn.utils.clip_grad_norm_([], 1.0), 0)


def test_nonfinite_and_foreach_errors_are_pytorchs():
    def run(lib, **kw):
        ps = make_params(lib, ["float32"] * 4, 3)
        with lib.no_grad():
            ps[0].grad[0, 0] = float("nan")
        try:
            n = lib.nn.utils.clip_grad_norm_(ps, 1.0, **kw)
            return ("ok", math.isnan(float(n)), bool(np.isnan(to_numpy(ps[2].grad)).all()))
        except Exception as e:  # noqa: BLE001
            return (type(e), str(e))
    for kw in (dict(error_if_nonfinite=True), dict(error_if_nonfinite=False),
               dict(error_if_nonfinite=True, norm_type=math.inf), dict(foreach=True), dict(foreach=False)):
        assert run(st, **kw) == run(torch, **kw), kw
    tp, sp = make_params(torch, ["float32"] * 4, scale=3), make_params(st, ["float32"] * 4, scale=3)
    torch.nn.utils.clip_grad_value_(tp, 1.0, foreach=True)
    st.nn.utils.clip_grad_value_(sp, 1.0, foreach=True)
    check_grads(sp, tp, 0)


def test_empty_generator_warns_and_deprecated_spelling():
    with pytest.warns(UserWarning, match="empty generator"):
        st.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    tp, sp = make_params(torch, ["float64"] * 4), make_params(st, ["float64"] * 4)
    with pytest.warns(FutureWarning, match="deprecated"):
        sn = st.nn.utils.clip_grad_norm(sp, 0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tn = torch.nn.utils.clip_grad_norm(tp, 0.2)
    close_scalar(sn, tn, 1e-12)
    check_grads(sp, tp, 1e-12)


@pytest.mark.parametrize("clip", [0.1, 0.5, 5.0])
def test_clip_grad_value_equals_pytorch(clip):
    tp, sp = make_params(torch, ["float32", "float64"] * 2, 4, none_at=(2,)), \
        make_params(st, ["float32", "float64"] * 2, 4, none_at=(2,))
    assert torch.nn.utils.clip_grad_value_(tp, clip) is None
    assert st.nn.utils.clip_grad_value_(sp, clip) is None
    check_grads(sp, tp, 0)
    torch.nn.utils.clip_grad_value_(tp[0], clip / 2)
    st.nn.utils.clip_grad_value_(sp[0], clip / 2)
    check_grads(sp, tp, 0)


def test_clip_under_grad_mode_is_not_recorded():
    w = st.nn.Parameter(st.ones(3))
    (w * st.tensor([3.0, 4.0, 0.0])).sum().backward()
    n = st.nn.utils.clip_grad_norm_([w], 1.0)
    assert not n.requires_grad and not w.grad.requires_grad


def test_parameters_to_vector_values_and_gradients():
    tp, sp = make_params(torch, ["float64"] * 4), make_params(st, ["float64"] * 4)
    tv, sv = torch.nn.utils.parameters_to_vector(tp), st.nn.utils.parameters_to_vector(sp)
    np.testing.assert_array_equal(to_numpy(sv), to_numpy(tv))
    w = np.random.default_rng(5).standard_normal(tuple(tv.shape))
    for p in tp + sp:
        p.grad = None
    (tv * torch.from_numpy(w)).sum().backward()
    (sv * strided.asarray(w)).sum().backward()
    check_grads(sp, tp, 0)
    vec = np.arange(tv.numel(), dtype=np.float64)
    torch.nn.utils.vector_to_parameters(torch.from_numpy(vec.copy()), tp)
    st.nn.utils.vector_to_parameters(strided.asarray(vec.copy()), sp)
    for a, b in zip(sp, tp):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
        assert a.requires_grad and b.requires_grad
    for lib in (torch, st):
        with pytest.raises(TypeError, match="expected torch.Tensor, but got"):
            lib.nn.utils.vector_to_parameters([1.0], [])


def seqs(lib, lengths, trailing, dtype, grad=False):
    rng = np.random.default_rng(sum(lengths))
    out = []
    for n in lengths:
        a = rng.standard_normal((n,) + trailing).astype(dtype)
        t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
        if grad:
            t.requires_grad_()
        out.append(t)
    return out


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("trailing", [(), (2,), (2, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_pad_sequence_equals_pytorch(batch_first, side, trailing, dtype):
    lengths = [3, 1, 4, 4]
    grad = dtype != "int64"
    ts, ss = seqs(torch, lengths, trailing, dtype, grad), seqs(st, lengths, trailing, dtype, grad)
    pv = -1.5 if grad else 7
    tr = torch.nn.utils.rnn.pad_sequence(ts, batch_first, pv, side)
    sr = st.nn.utils.rnn.pad_sequence(ss, batch_first=batch_first, padding_value=pv, padding_side=side)
    assert str(sr.dtype).split(".")[-1] == str(tr.dtype).split(".")[-1] and sr.shape == tuple(tr.shape)
    np.testing.assert_array_equal(to_numpy(sr), to_numpy(tr))
    if grad:
        w = np.random.default_rng(0).standard_normal(tuple(tr.shape)).astype(dtype)
        (tr * torch.from_numpy(w)).sum().backward()
        (sr * strided.asarray(w)).sum().backward()
        for a, b in zip(ss, ts):
            np.testing.assert_allclose(to_numpy(a.grad), to_numpy(b.grad), rtol=1e-6)


def test_pad_sequence_mixed_dtypes_and_tensor_input():
    def run(lib):
        conv = torch.from_numpy if lib is torch else strided.asarray
        a = lib.nn.utils.rnn.pad_sequence([conv(np.ones(2, np.float32)), conv(np.arange(3.0)),
                                           conv(np.array([2, 5]))], padding_value=1.5)
        b = lib.nn.utils.rnn.pad_sequence(conv(np.arange(6).reshape(2, 3)), batch_first=True)
        return a, b
    for s, t in zip(run(st), run(torch)):
        assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_array_equal(to_numpy(s), to_numpy(t))


def test_pad_sequence_errors():
    for args, kw in [(([],), {}), (([np.ones(2)],), {}), ((None,), {}),
                     (("ones",), dict(padding_side="middle"))]:
        def call(lib):
            a = args
            if a[0] == "ones":
                a = ([lib.ones(2)],)
            try:
                lib.nn.utils.rnn.pad_sequence(*a, **kw)
                return "ok"
            except Exception as e:  # noqa: BLE001
                return type(e)
        assert call(st) == call(torch), args
    with pytest.raises(RuntimeError, match="received an empty list of sequences"):
        st.nn.utils.rnn.pad_sequence([])
    with pytest.raises(RuntimeError, match="Expected padding_side to be one of left or right, but got mid"):
        st.nn.utils.rnn.pad_sequence([st.ones(2)], padding_side="mid")
    with pytest.raises(RuntimeError, match="trailing shape"):
        st.nn.utils.rnn.pad_sequence([st.ones(2, 3), st.ones(3, 4)])


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence_equals_pytorch(batch_first):
    ts, ss = seqs(torch, [2, 4, 1], (3,), "float64"), seqs(st, [2, 4, 1], (3,), "float64")
    tp = torch.nn.utils.rnn.pad_sequence(ts, batch_first)
    sp = st.nn.utils.rnn.pad_sequence(ss, batch_first)
    tu = torch.nn.utils.rnn.unpad_sequence(tp, torch.tensor([2, 4, 1]), batch_first)
    su = st.nn.utils.rnn.unpad_sequence(sp, st.tensor([2, 4, 1]), batch_first)
    assert len(su) == len(tu) == 3
    for a, b in zip(su, tu):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    assert tuple(sp.shape) == tuple(tp.shape)  # (both transposed in place without batch_first)


def test_missing_names_say_so():
    with pytest.raises(AttributeError, match="strided does not support it"):
        st.nn.utils.convert_conv2d_weight_memory_format  # (fusion: test_fusion20; stateless: test_functional20; parametrize is built: test_parametrize18; packed sequences: test_packed18)
    assert st.nn.utils is __import__("strided.torch.nn.utils", fromlist=["x"])


def _wn_pair(dim, shape=(4, 3)):
    """A Linear layer with the same weights in both libraries, weight-normalized over ``dim``."""
    rng = np.random.default_rng(7)
    w = rng.standard_normal(shape)
    mods = []
    for lib in (torch, st):
        m = lib.nn.Linear(shape[1], shape[0]).double()
        conv = torch.from_numpy if lib is torch else strided.asarray
        with lib.no_grad():
            m.weight.copy_(conv(w.copy()))
            m.bias.copy_(conv(np.arange(shape[0], dtype=np.float64)))
        with pytest.warns(FutureWarning, match="deprecated"):
            lib.nn.utils.weight_norm(m, dim=dim)
        mods.append(m)
    return mods


@pytest.mark.parametrize("dim", [0, 1, -1, None])
def test_weight_norm_equals_pytorch(dim):
    tm, sm = _wn_pair(dim)
    for name in ("weight_g", "weight_v", "weight"):
        a, b = getattr(sm, name), getattr(tm, name)
        assert tuple(a.shape) == tuple(b.shape), name
        np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=1e-12)
    assert sorted(n for n, _ in sm.named_parameters()) == sorted(n for n, _ in tm.named_parameters())
    x = np.random.default_rng(8).standard_normal((5, 3))
    for step in range(2):
        outs = []
        for lib, m in ((torch, tm), (st, sm)):
            m.zero_grad()
            y = m(torch.from_numpy(x) if lib is torch else strided.asarray(x))
            (y * y).sum().backward()
            outs.append((to_numpy(y), to_numpy(m.weight_g.grad), to_numpy(m.weight_v.grad)))
            with lib.no_grad():
                m.weight_g.mul_(1.5)  # the next forward recomputes the weight
        for a, b in zip(outs[1], outs[0]):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for lib, m in ((torch, tm), (st, sm)):
        lib.nn.utils.remove_weight_norm(m)
    np.testing.assert_allclose(to_numpy(sm.weight), to_numpy(tm.weight), rtol=1e-12)
    assert sorted(n for n, _ in sm.named_parameters()) == ["bias", "weight"]


def test_weight_norm_errors_are_pytorchs():
    tm, sm = _wn_pair(0)
    errs = []
    for lib, m in ((torch, tm), (st, sm)):
        with pytest.raises(RuntimeError) as e, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.nn.utils.weight_norm(m)
        errs.append(str(e.value))
        with pytest.raises(ValueError, match="weight_norm of 'bias' not found in"):
            lib.nn.utils.remove_weight_norm(m, "bias")
    assert errs[0] == errs[1]


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_norm_except_dim_equals_pytorchs(dim):
    import sys
    wn = sys.modules["strided.torch.nn.utils.weight_norm"]
    v = np.random.default_rng(9).standard_normal((3, 4, 5))
    t = torch.norm_except_dim(torch.from_numpy(v), 2, dim)
    s = wn._norm_except_dim(strided.asarray(v), dim)
    assert tuple(s.shape) == tuple(t.shape)
    np.testing.assert_allclose(to_numpy(s), to_numpy(t), rtol=1e-12)



def _sn_pair(dim, n_iter, shape=(4, 6)):
    """Linear layers with the same weights, spectral-normalized, and strided's u, v set to PyTorch's."""
    rng = np.random.default_rng(11)
    w = rng.standard_normal(shape)
    mods = []
    for lib in (torch, st):
        conv = torch.from_numpy if lib is torch else strided.asarray
        m = lib.nn.Linear(shape[1], shape[0]).double()
        with lib.no_grad():
            m.weight.copy_(conv(w.copy()))
            m.bias.copy_(conv(np.arange(shape[0], dtype=np.float64)))
        lib.nn.utils.spectral_norm(m, n_power_iterations=n_iter, dim=dim)
        mods.append(m)
    tm, sm = mods
    assert tuple(sm.weight_u.shape) == tuple(tm.weight_u.shape)
    assert tuple(sm.weight_v.shape) == tuple(tm.weight_v.shape)
    u, v = to_numpy(sm.weight_u), to_numpy(sm.weight_v)
    np.testing.assert_allclose([np.linalg.norm(u), np.linalg.norm(v)], [1.0, 1.0], rtol=1e-12)
    with st.no_grad():
        sm.weight_u.copy_(strided.asarray(to_numpy(tm.weight_u).copy()))
        sm.weight_v.copy_(strided.asarray(to_numpy(tm.weight_v).copy()))
    return tm, sm


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("n_iter", [1, 3])
def test_spectral_norm_equals_pytorch(dim, n_iter):
    tm, sm = _sn_pair(dim, n_iter)
    assert sorted(n for n, _ in sm.named_parameters()) == sorted(n for n, _ in tm.named_parameters())
    assert sorted(n for n, _ in sm.named_buffers()) == sorted(n for n, _ in tm.named_buffers())
    x = np.random.default_rng(12).standard_normal((3, 6))
    for train in (True, True, False, True):
        outs = []
        for lib, m in ((torch, tm), (st, sm)):
            m.train(train)
            m.zero_grad()
            y = m(torch.from_numpy(x) if lib is torch else strided.asarray(x))
            (y * y).sum().backward()
            outs.append([to_numpy(a) for a in (y, m.weight, m.weight_u, m.weight_v, m.weight_orig.grad)])
        for a, b in zip(outs[1], outs[0]):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    for lib, m in ((torch, tm), (st, sm)):
        lib.nn.utils.remove_spectral_norm(m)
    np.testing.assert_allclose(to_numpy(sm.weight), to_numpy(tm.weight), rtol=1e-10)
    assert sorted(n for n, _ in sm.named_parameters()) == ["bias", "weight"]
    assert list(sm.named_buffers()) == []


def test_spectral_norm_errors_are_pytorchs():
    tm, sm = _sn_pair(0, 1)
    for lib, m in ((torch, tm), (st, sm)):
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter"):
            lib.nn.utils.spectral_norm(m)
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(ValueError, match="spectral_norm of 'bias' not found in"):
            lib.nn.utils.remove_spectral_norm(m, "bias")


def test_skip_init():
    for lib in (torch, st):
        m = lib.nn.utils.skip_init(lib.nn.Linear, 4, 3, bias=False, dtype=lib.float64)
        assert tuple(m.weight.shape) == (3, 4) and m.bias is None and m.weight.requires_grad
        assert str(m.weight.dtype).endswith("float64") and str(m.weight.device) == "cpu"
        with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
            lib.nn.utils.skip_init(lib.nn.ReLU)
        with pytest.raises(RuntimeError, match="Expected a Module"):
            lib.nn.utils.skip_init(dict)
