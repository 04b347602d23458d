"""Whole PyTorch programs, written in the style of PyTorch's tutorials and examples, run on real
``torch`` and on ``strided.torch`` and give the same numbers.

Each ``program(torch, steps)`` takes the torch module and returns the list of numbers it would
print (losses, accuracies, learning rates). Initial weights come from real PyTorch under
``torch.manual_seed``: the model is built in PyTorch and every parameter and buffer is copied into
the strided model with ``load_state_dict`` of NumPy arrays. Everything runs in float64 (the
default dtype is set to float64 for both libraries), so the runs agree to rounding: a training
step is a long chain of reductions whose summation order differs between the libraries, so the
default tolerance is rtol 1e-11 (not 1e-15; observed differences are below 2e-15); LBFGS, whose
two-loop recursion divides by differences of gradients, gets rtol 1e-10 (observed 5e-13).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = pytest.mark.usefixtures("on_cpu")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

LIBS = (torch, st)


@pytest.fixture(autouse=True)
def _float64():
    saved = torch.get_default_dtype(), st.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    st.set_default_dtype(st.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(saved[0])
        st.set_default_dtype(saved[1])


def _init(lib, make, seed=0):
    """``make(lib)`` with PyTorch's initial weights: built in PyTorch under ``manual_seed``; for
    strided, every parameter and buffer is copied in through ``load_state_dict``."""
    torch.manual_seed(seed)
    ref = make(torch)
    if lib is torch:
        return ref
    model = make(lib)
    model.load_state_dict({k: v.detach().numpy().copy() for k, v in ref.state_dict().items()})
    return model


def _data(lib, a):
    """A NumPy array as an array of ``lib`` (floats in the default dtype, float64)."""
    a = np.asarray(a)
    return lib.tensor(a.copy())


def _rng(seed=0):
    return np.random.default_rng(seed)


# --- 1. MLP classifier: Sequential, label smoothing, AdamW, clipping, StepLR, eval ------------

def mlp_classifier(torch, steps):
    nn = torch.nn
    model = _init(torch, lambda t: t.nn.Sequential(
        t.nn.Linear(6, 16), t.nn.ReLU(), t.nn.Dropout(0.0), t.nn.Linear(16, 16), t.nn.Tanh(),
        t.nn.Linear(16, 4)))
    rng = _rng(1)
    x = _data(torch, rng.standard_normal((32, 6)))
    y = _data(torch, rng.integers(0, 4, 32))
    xv = _data(torch, rng.standard_normal((16, 6)))
    yv = _data(torch, rng.integers(0, 4, 16))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    out = []
    for _ in range(steps):
        model.train()
        for i in range(0, 32, 8):
            opt.zero_grad()
            loss = loss_fn(model(x[i:i + 8]), y[i:i + 8])
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
            opt.step()
            out += [loss.item(), float(norm)]
        sched.step()
        out.append(sched.get_last_lr()[0])
        model.eval()
        with torch.no_grad():
            logits = model(xv)
            acc = (logits.argmax(dim=1) == yv).float().mean().item()
            out += [acc, loss_fn(logits, yv).item()]
    return out


# --- 2. CNN: Conv2d, BatchNorm2d, MaxPool2d, Dropout, AdaptiveAvgPool2d, SGD nesterov ---------

def _cnn(t):
    return t.nn.Sequential(
        t.nn.Conv2d(2, 4, 3, padding=1), t.nn.BatchNorm2d(4), t.nn.ReLU(), t.nn.MaxPool2d(2),
        t.nn.Conv2d(4, 6, 3, stride=1, padding=1, bias=False), t.nn.BatchNorm2d(6),
        t.nn.LeakyReLU(0.1), t.nn.Dropout(p=0.3), t.nn.AdaptiveAvgPool2d((2, 2)),
        t.nn.Flatten(), t.nn.Linear(24, 3))


def cnn(torch, steps):
    model = _init(torch, _cnn)
    rng = _rng(2)
    x = _data(torch, rng.standard_normal((6, 2, 8, 8)))
    y = _data(torch, rng.integers(0, 3, 6))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True,
                          weight_decay=1e-4)
    out = []
    for _ in range(steps):
        # (train mode but the dropout is switched off by setting p=0 on the module: the
        # randomness would otherwise differ between the libraries)
        model.train()
        model[7].p = 0.0
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    model[7].p = 0.3
    with torch.no_grad():
        pred = model(x)
        out += pred.flatten().tolist()
        out += model[1].running_mean.tolist() + model[5].running_var.tolist()
        out.append(int(model[1].num_batches_tracked))
    return out


# --- 3. character LSTM/GRU: Embedding, LSTM(batch_first), truncated BPTT, RMSprop -------------

class _CharLM:
    @staticmethod
    def make(t, cell):
        class CharLM(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = t.nn.Embedding(11, 5)
                rnn = t.nn.LSTM if cell == "lstm" else t.nn.GRU
                self.rnn = rnn(5, 7, num_layers=2, batch_first=True)
                self.head = t.nn.Linear(7, 11)

            def forward(self, x, h):
                e = self.embed(x)
                o, h = self.rnn(e, h)
                return self.head(o), h

        return CharLM()


def char_rnn(torch, steps, cell="lstm"):
    model = _init(torch, lambda t: _CharLM.make(t, cell))
    rng = _rng(3)
    text = rng.integers(0, 11, (3, 4 * steps + 1))
    data = _data(torch, text)
    opt = torch.optim.RMSprop(model.parameters(), lr=5e-3, alpha=0.9, momentum=0.5, centered=True)
    h = None
    out = []
    for i in range(steps):
        inp = data[:, 4 * i:4 * i + 4]
        tgt = data[:, 4 * i + 1:4 * i + 5]
        if h is not None:
            h = tuple(s.detach() for s in h) if isinstance(h, tuple) else h.detach()
        opt.zero_grad()
        logits, h = model(inp, h)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 11), tgt.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)
        opt.step()
        out.append(loss.item())
    return out


# --- 4. tiny Transformer encoder: masks, LayerNorm, GELU, Adam betas, warmup LambdaLR --------

class _TinyTransformer:
    @staticmethod
    def make(t):
        class Tiny(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = t.nn.Embedding(13, 8)
                self.pos = t.nn.Parameter(t.zeros(1, 6, 8))
                layer = t.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                                     activation="gelu", batch_first=True)
                self.encoder = t.nn.TransformerEncoder(layer, num_layers=2,
                                                       enable_nested_tensor=False)
                self.norm = t.nn.LayerNorm(8)
                self.head = t.nn.Linear(8, 13)

            def forward(self, x, pad):
                n = x.shape[1]
                causal = t.triu(t.ones(n, n, dtype=t.bool), diagonal=1)
                h = self.embed(x) * math.sqrt(8) + self.pos[:, :n]
                h = self.encoder(h, mask=causal, src_key_padding_mask=pad)
                return self.head(self.norm(h))

        return Tiny()


def transformer(torch, steps):
    model = _init(torch, _TinyTransformer.make)
    rng = _rng(4)
    x = _data(torch, rng.integers(1, 13, (3, 6)))
    pad = _data(torch, np.array([[False] * 6, [False] * 4 + [True] * 2, [False] * 5 + [True]]))
    tgt = torch.roll(x, -1, dims=1).masked_fill(pad, -100)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, betas=(0.8, 0.95), eps=1e-7)
    warm = 3
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm))
    out = []
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        logits = model(x, pad)
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), tgt, ignore_index=-100)
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), sched.get_last_lr()[0]]
    return out


# --- 5. VAE: reparametrization with given noise, BCE with logits, KL -------------------------

class _VAE:
    @staticmethod
    def make(t):
        class VAE(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = t.nn.Sequential(t.nn.Linear(12, 10), t.nn.SiLU())
                self.mu = t.nn.Linear(10, 3)
                self.logvar = t.nn.Linear(10, 3)
                self.dec = t.nn.Sequential(t.nn.Linear(3, 10), t.nn.Softplus(), t.nn.Linear(10, 12))

            def forward(self, x, eps):
                h = self.enc(x)
                mu, logvar = self.mu(h), self.logvar(h)
                z = mu + eps * t.exp(0.5 * logvar)
                return self.dec(z), mu, logvar

        return VAE()


def vae(torch, steps):
    F = torch.nn.functional
    model = _init(torch, _VAE.make)
    rng = _rng(5)
    x = _data(torch, (rng.random((8, 12)) > 0.5).astype(np.float64))
    noise = rng.standard_normal((steps, 8, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
    out = []
    for s in range(steps):
        opt.zero_grad()
        recon, mu, logvar = model(x, _data(torch, noise[s]))
        bce = F.binary_cross_entropy_with_logits(recon, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = (bce + kld) / x.shape[0]
        loss.backward()
        opt.step()
        out += [loss.item(), bce.item(), kld.item()]
    return out


# --- 6. custom autograd.Function in a model, and gradcheck ----------------------------------

def _make_function(torch):
    class ScaledSoftsign(torch.autograd.Function):
        """y = a * x / (1 + |x|), with a hand-written backward."""

        @staticmethod
        def forward(ctx, x, a):
            ctx.save_for_backward(x, a)
            return a * x / (1 + x.abs())

        @staticmethod
        def backward(ctx, grad):
            x, a = ctx.saved_tensors
            d = 1 + x.abs()
            gx = grad * a / (d * d)
            ga = (grad * x / d).sum(dim=0)
            return gx, ga

    return ScaledSoftsign


def custom_function(torch, steps):
    Fn = _make_function(torch)

    def make(t):
        class Net(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.l1 = t.nn.Linear(4, 6)
                self.a = t.nn.Parameter(t.ones(6) * 1.5)
                self.l2 = t.nn.Linear(6, 1)

        return Net()

    model = _init(torch, make)
    rng = _rng(6)
    x = _data(torch, rng.standard_normal((10, 4)))
    y = _data(torch, rng.standard_normal((10, 1)))
    opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        pred = model.l2(Fn.apply(model.l1(x), model.a))
        loss = torch.nn.functional.smooth_l1_loss(pred, y, beta=0.5)
        loss.backward()
        opt.step()
        out.append(loss.item())
    xs = _data(torch, rng.standard_normal((3, 6))).requires_grad_()
    a = _data(torch, rng.standard_normal(6) + 2).requires_grad_()
    out.append(bool(torch.autograd.gradcheck(Fn.apply, (xs, a), eps=1e-6, atol=1e-5)))
    return out


# --- 7. LBFGS with a closure fitting a polynomial -------------------------------------------

def lbfgs_polynomial(torch, steps, line_search_fn="strong_wolfe"):
    x = torch.linspace(-math.pi, math.pi, 50)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 1), t.nn.Flatten(0, 1)))
    loss_fn = torch.nn.MSELoss(reduction="sum")
    opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5, history_size=4,
                            line_search_fn=line_search_fn)
    out = []

    def closure():
        opt.zero_grad()
        loss = loss_fn(model(xx), y)
        loss.backward()
        return loss

    for _ in range(steps):
        out.append(opt.step(closure).item())
    out += model[0].weight.flatten().tolist() + model[0].bias.tolist()
    return out


# --- 8. checkpointing: save/load model and optimizer, resume equals uninterrupted -------------

def _ckpt_model(t):
    return t.nn.Sequential(t.nn.Linear(5, 8), t.nn.BatchNorm1d(8), t.nn.ELU(), t.nn.Linear(8, 2))


def _ckpt_train(torch, model, opt, sched, x, y, steps):
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        out.append(loss.item())
    return out


def checkpoint(torch, steps, path):
    rng = _rng(8)
    x = _data(torch, rng.standard_normal((12, 5)))
    y = _data(torch, rng.standard_normal((12, 2)))

    def fresh(init=True):
        model = _init(torch, _ckpt_model) if init else _ckpt_model(torch)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-3)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2 * steps, eta_min=1e-4)
        return model, opt, sched

    model, opt, sched = fresh()
    straight = _ckpt_train(torch, model, opt, sched, x, y, 2 * steps)

    model, opt, sched = fresh()
    first = _ckpt_train(torch, model, opt, sched, x, y, steps)
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                "sched": sched.state_dict(), "step": steps}, path)
    del model, opt, sched
    ck = torch.load(path)
    model, opt, sched = fresh(init=False)
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    sched.load_state_dict(ck["sched"])
    second = _ckpt_train(torch, model, opt, sched, x, y, steps)
    return straight, first + second, ck["step"]


# --- 9. DataLoader(TensorDataset) regression: MSELoss, weight decay, zero_grad(None) ---------

def dataloader_regression(torch, steps):
    from importlib import import_module

    data = import_module(torch.__name__ + ".utils.data")
    rng = _rng(9)
    xs = rng.standard_normal((20, 3))
    ys = xs @ np.array([[1.5], [-2.0], [0.5]]) + 0.3 + 0.05 * rng.standard_normal((20, 1))
    ds = data.TensorDataset(_data(torch, xs), _data(torch, ys))
    loader = data.DataLoader(ds, batch_size=6, shuffle=False)
    model = _init(torch, lambda t: t.nn.Linear(3, 1))
    loss_fn = torch.nn.MSELoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, weight_decay=0.01, dampening=0.1,
                          momentum=0.5)
    out = []
    for _ in range(steps):
        total = 0.0
        for xb, yb in loader:
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * xb.shape[0]
        out.append(total / len(ds))
        out.append(len(loader))
    out.append(model.weight.grad is None)
    return out


# --- 10. attention, packed sequences, interpolate, einsum -----------------------------------

class _Misc:
    @staticmethod
    def make(t):
        class Net(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.attn = t.nn.MultiheadAttention(6, 2, batch_first=True)
                self.gru = t.nn.GRU(6, 5, batch_first=True, bidirectional=True)
                self.proj = t.nn.Parameter(t.randn(10, 3))
                self.conv = t.nn.Conv1d(1, 2, 3, padding=1)

        return Net()


def attention_packed(torch, steps):
    F = torch.nn.functional
    rnn = torch.nn.utils.rnn
    model = _init(torch, _Misc.make)
    rng = _rng(10)
    x = _data(torch, rng.standard_normal((3, 5, 6)))
    lengths = [5, 3, 2]
    key_pad = _data(torch, np.arange(5)[None, :] >= np.array(lengths)[:, None])
    y = _data(torch, rng.standard_normal((3, 3)))
    opt = torch.optim.NAdam(model.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        a, w = model.attn(x, x, x, key_padding_mask=key_pad, need_weights=True,
                          average_attn_weights=True)
        packed = rnn.pack_padded_sequence(a, lengths, batch_first=True, enforce_sorted=True)
        o, h = model.gru(packed)
        o, lens = rnn.pad_packed_sequence(o, batch_first=True, total_length=5)
        mask = (torch.arange(5)[None, :] < lens[:, None]).unsqueeze(-1)
        pooled = torch.where(mask, o, torch.zeros_like(o)).sum(1) / lens[:, None]
        feat = torch.einsum("bh,hk->bk", pooled, model.proj)
        up = F.interpolate(feat.unsqueeze(1), scale_factor=2, mode="linear", align_corners=False)
        up = model.conv(up).mean(1)
        pred = up.reshape(3, 3, 2).amax(-1) + h.sum(0)[:, :3]
        loss = F.huber_loss(pred, y, delta=0.7) + 1e-3 * w.masked_fill(w > 0.3, 0.0).sum()
        loss.backward()
        opt.step()
        out += [loss.item(), float(w.detach().sum())]
    return out


# --- the tests --------------------------------------------------------------------------------

def _compare(ref, got, rtol=1e-11, atol=1e-13):
    assert len(ref) == len(got)
    for i, (r, g) in enumerate(zip(ref, got)):
        assert type(r) is type(g) or (isinstance(r, float) and isinstance(g, float)), (i, r, g)
        np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, equal_nan=False,
                                   err_msg=f"entry {i}")


PROGRAMS = {
    "mlp_classifier": (mlp_classifier, 3, {}),
    "cnn": (cnn, 4, {}),
    "char_lstm": (lambda t, s: char_rnn(t, s, "lstm"), 5, {}),
    "char_gru": (lambda t, s: char_rnn(t, s, "gru"), 5, {}),
    "transformer": (transformer, 5, {}),
    "vae": (vae, 6, {}),
    "custom_function": (custom_function, 6, {}),
    # (LBFGS: the line search branches on comparisons of losses, and its two-loop recursion
    # divides by differences of gradients, so rounding grows faster: rtol 1e-10)
    "lbfgs_strong_wolfe": (lbfgs_polynomial, 4, dict(rtol=1e-10, atol=1e-11)),
    "lbfgs_plain": (lambda t, s: lbfgs_polynomial(t, s, None), 4, dict(rtol=1e-10, atol=1e-11)),
    "dataloader_regression": (dataloader_regression, 4, {}),
    "attention_packed": (attention_packed, 4, {}),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_pytorch(name):
    program, steps, tol = PROGRAMS[name]
    ref = program(torch, steps)
    got = program(st, steps)
    _compare(ref, got, **tol)


def test_checkpoint_resume_matches_uninterrupted(tmp_path):
    res = []
    for lib in LIBS:
        straight, resumed, step = checkpoint(lib, 3, tmp_path / f"{lib.__name__}.pt")
        # (resuming from the checkpoint gives the uninterrupted run's losses exactly)
        assert resumed == straight
        assert step == 3
        res.append(straight)
    _compare(res[0], res[1])
