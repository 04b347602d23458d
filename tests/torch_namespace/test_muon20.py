"""``strided.torch.optim.Muon`` against PyTorch 2.13's ``torch.optim.Muon``: the same parameters
and momentum buffers after several steps (its Newton-Schulz iterations rounded to bfloat16 as
PyTorch's), the options, the state dict, the errors."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402
from strided.torch.optim.muon import _bfloat16  # noqa: E402

from _parity import to_numpy  # noqa: E402

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else to_numpy(x)


def _run(lib, shapes, dtype, kw, steps=4, seed=0):
    rng = np.random.default_rng(seed)
    dt = getattr(lib, dtype)
    ws = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s), dtype=dt)) for s in shapes]
    targets = [lib.tensor(rng.standard_normal(s), dtype=dt) for s in shapes]
    opt = lib.optim.Muon(ws, **kw)
    hist = []
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((w - t) ** 2 * (i + 1)).sum() + (w ** 3).sum() * 0.1 for i, (w, t) in enumerate(zip(ws, targets)))
        loss.backward()
        opt.step()
        hist.append([_np(w).copy() for w in ws] + [_np(opt.state[w]["momentum_buffer"]).copy() for w in ws])
    return hist, opt


KWS = [dict(), dict(lr=0.02, weight_decay=0.0, momentum=0.9, nesterov=False),
       dict(lr=0.05, adjust_lr_fn="match_rms_adamw", ns_steps=3),
       dict(lr=0.01, adjust_lr_fn="original", ns_coefficients=(2.0, -1.5, 0.5), eps=1e-3)]


@pytest.mark.parametrize("kw", KWS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shapes", [[(3, 5)], [(6, 4), (4, 4)], [(12, 7)]])
def test_steps_match_pytorch(kw, dtype, shapes):
    ref, _ = _run(torch, shapes, dtype, kw)
    got, _ = _run(st, shapes, dtype, kw)
    for g_step, r_step in zip(got, ref):
        for g, r in zip(g_step, r_step):
            assert g.dtype == r.dtype and g.shape == r.shape
            np.testing.assert_allclose(g, r, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-7)


def test_bfloat16_rounding_is_pytorchs():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.standard_normal(200) * 10.0 ** rng.integers(-30, 30, 200),
                        [0.0, -0.0, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -30, 3.3895e38, 1e-40,
                         np.inf, -np.inf]])
    for dt in ("float32", "float64"):
        want = torch.tensor(x, dtype=getattr(torch, dt)).bfloat16().float().numpy()
        got = to_numpy(_bfloat16(st.tensor(x, dtype=getattr(st, dt))))
        np.testing.assert_array_equal(got, want)
    nan = to_numpy(_bfloat16(st.tensor([np.nan])))
    assert np.isnan(nan).all()


def test_state_dict_matches_pytorch():
    res = {}
    for lib in (torch, st):
        hist, opt = _run(lib, [(3, 4)], "float64", dict(lr=0.03), steps=2)
        sd = opt.state_dict()
        res[lib] = (sd["param_groups"], sorted(sd["state"][0]))
        opt2 = lib.optim.Muon([lib.nn.Parameter(lib.zeros(3, 4, dtype=lib.float64))])
        opt2.load_state_dict(sd)
        res[lib] += (_np(opt2.state[opt2.param_groups[0]["params"][0]]["momentum_buffer"]),)
    assert res[st][:2] == res[torch][:2]
    np.testing.assert_allclose(res[st][2], res[torch][2], rtol=1e-13)


@pytest.mark.parametrize("lib", [torch, st], ids=["torch", "strided"])
def test_errors_are_pytorchs(lib):
    w = lib.nn.Parameter(lib.zeros(2, 2))
    with pytest.raises(ValueError, match="Learning rate should be >= 0 but is: -1"):
        lib.optim.Muon([w], lr=-1.0)
    with pytest.raises(ValueError, match="momentum should be >= 0 but is: -0.5"):
        lib.optim.Muon([w], momentum=-0.5)
    with pytest.raises(ValueError, match="weight decay should be >= 0 but is: -0.1"):
        lib.optim.Muon([w], weight_decay=-0.1)
    with pytest.raises(ValueError, match="Adjust learning rate function foo is not supported"):
        lib.optim.Muon([w], adjust_lr_fn="foo")
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        lib.optim.Muon([lib.nn.Parameter(lib.zeros(3))])
    opt = lib.optim.Muon([w], ns_steps=100)
    w.grad = lib.ones(2, 2)
    with pytest.raises(ValueError, match="Number of steps must be less than 100"):
        opt.step()
    opt = lib.optim.Muon([w], ns_coefficients=(1.0, 2.0))
    with pytest.raises(ValueError, match="Coefficients must be a tuple of exactly 3 values"):
        opt.step()


def test_a_tensor_lr_is_refused():
    with pytest.raises(NotImplementedError, match="tensor lr is not supported by strided"):
        st.optim.Muon([st.nn.Parameter(st.zeros(2, 2))], lr=st.tensor(0.1))
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        st.optim.Muon([st.nn.Parameter(st.zeros(2, 2))], lr=st.tensor([0.1, 0.2]))
