"""``strided.torch.nn.AdaptiveLogSoftmaxWithLoss`` against PyTorch 2.13 with the same weights
copied in: forward's ``(output, loss)`` named tuple, ``log_prob``, ``predict`` (its three
branches), gradients of the parameters and the input, the errors."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else to_numpy(x)


def _pair(dtype, seed, in_features=8, n_classes=12, cutoffs=(3, 7), div_value=2.0, head_bias=False):
    torch.manual_seed(seed)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, list(cutoffs), div_value=div_value,
                                             head_bias=head_bias, dtype=getattr(torch, dtype))
    sm = st.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value=div_value,
                                          head_bias=head_bias, dtype=getattr(st, dtype))
    tsd = tm.state_dict()
    assert list(sm.state_dict()) == list(tsd)
    assert all(tuple(sm.state_dict()[k].shape) == tuple(v.shape) for k, v in tsd.items())
    sm.load_state_dict({k: st.tensor(v.numpy()) for k, v in tsd.items()})
    return tm, sm


CONFIGS = [dict(), dict(cutoffs=(2,), div_value=4.0, head_bias=True), dict(cutoffs=(1, 4, 9), div_value=1.5),
           dict(in_features=5, n_classes=6, cutoffs=[5], head_bias=True)]
TARGETS = [[0, 5, 11, 2, 8, 3], [10], [1, 1, 2], [4, 9, 11, 7], [0]]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("targets", TARGETS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_forward_and_gradients_match_pytorch(config, targets, dtype):
    tm, sm = _pair(dtype, seed=len(targets), **config)
    n_classes = tm.n_classes
    tgt = np.array([t % n_classes for t in targets])
    x = np.random.default_rng(len(targets)).standard_normal((len(tgt), tm.in_features))
    res = {}
    for lib, m in ((torch, tm), (st, sm)):
        X = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        out = m(X, lib.tensor(tgt))
        assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
        output, loss = out
        (loss + (output * lib.arange(len(tgt), dtype=output.dtype)).sum()).backward()
        res[lib] = dict(output=_np(output), loss=_np(loss), gx=_np(X.grad),
                        **{"g_" + k: _np(p.grad) for k, p in m.named_parameters() if p.grad is not None})
        res[lib]["names"] = sorted(k for k, p in m.named_parameters() if p.grad is not None)
    assert res[st].pop("names") == res[torch].pop("names")
    tol = dict(rtol=1e-11, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=2e-6)
    assert res[st].keys() == res[torch].keys()
    for k in res[torch]:
        assert res[st][k].shape == res[torch][k].shape and res[st][k].dtype == res[torch][k].dtype, k
        np.testing.assert_allclose(res[st][k], res[torch][k], **tol, err_msg=k)


@pytest.mark.parametrize("target", [0, 4, 11])
def test_unbatched_forward_matches_pytorch(target):
    tm, sm = _pair("float64", seed=target)
    x = np.random.default_rng(target).standard_normal(tm.in_features)
    res = {}
    for lib, m in ((torch, tm), (st, sm)):
        X = lib.tensor(x, requires_grad=True)
        output, loss = m(X, lib.tensor(target))
        (output * 2 + loss).backward()
        res[lib] = [_np(output), _np(loss), _np(X.grad), _np(m.head.weight.grad)]
    for g, r in zip(res[st], res[torch]):
        assert g.shape == r.shape
        np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_log_prob_matches_pytorch(config, dtype):
    tm, sm = _pair(dtype, seed=3, **config)
    x = np.random.default_rng(4).standard_normal((5, tm.in_features))
    res = {}
    for lib, m in ((torch, tm), (st, sm)):
        X = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        lp = m.log_prob(X)
        (lp * lib.linspace(-1, 1, tm.n_classes, dtype=lp.dtype)).sum().backward()
        res[lib] = [_np(lp), _np(X.grad), _np(m.tail[0][0].weight.grad), _np(m.head.weight.grad)]
    tol = dict(rtol=1e-11, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=2e-6)
    for g, r in zip(res[st], res[torch]):
        assert g.shape == r.shape and g.dtype == r.dtype
        np.testing.assert_allclose(g, r, **tol)
    np.testing.assert_allclose(np.exp(res[st][0]).sum(1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("branch", ["all_shortlist", "all_tail", "mixed", "random"])
def test_predict_matches_pytorch(branch):
    tm, sm = _pair("float64", seed=9, head_bias=True)
    rng = np.random.default_rng(10)
    x = rng.standard_normal((7, tm.in_features))
    head_w, head_b = rng.standard_normal(tuple(tm.head.weight.shape)), np.zeros(tm.head_size)
    if branch == "all_shortlist":
        head_b[1] = 100.0
    elif branch == "all_tail":
        head_b[tm.shortlist_size + 1] = 100.0
    elif branch == "mixed":
        head_w[:] = 0
        head_w[0, 0], head_w[tm.shortlist_size, 0] = 50.0, -50.0
        x[:, 0] = np.where(np.arange(7) % 2 == 0, 1.0, -1.0)
    res = {}
    for lib, m in ((torch, tm), (st, sm)):
        if branch != "random":
            with lib.no_grad():
                m.head.weight.copy_(lib.tensor(head_w))
                m.head.bias.copy_(lib.tensor(head_b))
        p = m.predict(lib.tensor(x))
        res[lib] = (_np(p), str(p.dtype).rsplit(".", 1)[-1], _np(lib.argmax(m.log_prob(lib.tensor(x)), dim=1)))
    np.testing.assert_array_equal(res[st][0], res[torch][0])
    assert res[st][1] == res[torch][1] == "int64"
    np.testing.assert_array_equal(res[st][2], res[torch][2])
    if branch == "mixed":
        assert (res[torch][0][::2] < tm.shortlist_size).all() and (res[torch][0][1::2] >= tm.shortlist_size).all()


def test_structure_and_reset_match_pytorch():
    for lib in (torch, st):
        m = lib.nn.AdaptiveLogSoftmaxWithLoss(16, 20, (4, 10), div_value=3.0, head_bias=True)
        shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
        assert (m.shortlist_size, m.n_clusters, m.head_size, m.cutoffs, m.div_value, m.head_bias) == \
            (4, 2, 6, [4, 10, 20], 3.0, True)
        assert len(m.tail) == 2 and isinstance(m.tail, lib.nn.ModuleList)
        if lib is torch:
            ref = shapes
        m.reset_parameters()
    assert shapes == ref == {"head.weight": (6, 16), "head.bias": (6,), "tail.0.0.weight": (5, 16),
                             "tail.0.1.weight": (6, 5), "tail.1.0.weight": (1, 16), "tail.1.1.weight": (10, 1)}


@pytest.mark.parametrize("lib", [torch, st], ids=["torch", "strided"])
def test_errors_are_pytorchs(lib):
    for cutoffs in ([3, 2], [0, 2], [5, 10], [2, 2], [1.5]):
        with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
            lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, cutoffs)
    with pytest.raises(ValueError, match="cutoffs should be a sequence of length larger than 0"):
        lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [])
    m = lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [2, 6])
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        m(lib.zeros(3, 4), lib.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors"):
        m(lib.zeros(2, 2, 4), lib.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input tensors"):
        m(lib.zeros(2, 4), lib.tensor(1))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected, multi-target not supported"):
        m(lib.zeros(2, 4), lib.tensor([[0, 1]]))
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\], but values in range \[-1, 12\]"):
        m(lib.zeros(3, 4), lib.tensor([12, 3, -1]))
