"""Whole PyTorch programs, written in the style of PyTorch's tutorials and examples, run on real
``torch`` and on ``strided.torch`` and give the same numbers.

Each ``program(torch, steps)`` takes the torch module and returns the list of numbers it would
print (losses, accuracies, learning rates). Initial weights come from real PyTorch under
``torch.manual_seed``: the model is built in PyTorch and every parameter and buffer is copied into
the strided model with ``load_state_dict`` of NumPy arrays. Everything runs in float64 (the
default dtype is set to float64 for both libraries), so the runs agree to rounding: a training
step is a long chain of reductions whose summation order differs between the libraries, so the
default tolerance is rtol 1e-11 (not 1e-15; observed differences are below 2e-15); LBFGS, whose
two-loop recursion divides by differences of gradients, gets rtol 1e-10 (observed 5e-13); a
number a program computes in float32 (returned as ``np.float32``) gets rtol 1e-5.

After the programs, focused tests of what the programs found: ``Embedding``'s ``max_norm``
and ``scale_grad_by_freq``, the optimizers' ``step`` count dtype, ``fused=True``.
"""

from __future__ import annotations

import io
import math
from importlib import import_module

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
    """float64 defaults during the test; the global settings a program changes (the default
    dtype, deterministic algorithms, cudnn.deterministic) restored after it."""
    saved = [(lib.get_default_dtype(), lib.are_deterministic_algorithms_enabled(),
              lib.backends.cudnn.deterministic) for lib in LIBS]
    torch.set_default_dtype(torch.float64)
    st.set_default_dtype(st.float64)
    try:
        yield
    finally:
        for lib, (dtype, det, cudnn_det) in zip(LIBS, saved):
            lib.set_default_dtype(dtype)
            lib.use_deterministic_algorithms(det)
            lib.backends.cudnn.deterministic = cudnn_det


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
    step_dtype = str(ck["opt"]["state"][0]["step"].dtype).removeprefix("torch.")
    return straight, first + second, ck["step"], step_dtype


# --- 9. DataLoader(TensorDataset) regression: MSELoss, weight decay, zero_grad(None) ---------

def dataloader_regression(torch, steps):
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


# --- 11+. more programs: WGAN-GP, spatial transformer, conv autoencoder, seq2seq attention,
# a message-passing GNN, REINFORCE, SWA, nn.Transformer, weight norm, schedulers, metric
# learning, CTC, fold/unfold, a float32 run, manual SGD, hooks and gradient accumulation,
# packed LSTM(proj_size)/LSTMCell/RNN, scaled_dot_product_attention with a tied
# Embedding(max_norm), deterministic init through apply -----------------------------------

def gan_gp(torch, steps):
    G = _init(
        torch, lambda t: t.nn.Sequential(t.nn.Linear(2, 8), t.nn.LeakyReLU(0.2), t.nn.Linear(8, 2))
    )
    D = _init(
        torch,
        lambda t: t.nn.Sequential(t.nn.Linear(2, 8), t.nn.LeakyReLU(0.2), t.nn.Linear(8, 1)),
        seed=1,
    )
    rng = _rng(11)
    real = _data(torch, rng.standard_normal((8, 2)) + 2)
    z = _data(torch, rng.standard_normal((steps, 8, 2)))
    alpha = _data(torch, rng.random((steps, 8, 1)))
    og = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    od = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
    bce = torch.nn.BCEWithLogitsLoss()
    out = []
    for s in range(steps):
        fake = G(z[s])
        od.zero_grad()
        xi = (alpha[s] * real + (1 - alpha[s]) * fake.detach()).requires_grad_(True)
        (g,) = torch.autograd.grad(D(xi).sum(), xi, create_graph=True)
        gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
        ld = bce(D(real), torch.ones(8, 1)) + bce(D(fake.detach()), torch.zeros(8, 1)) + 10 * gp
        ld.backward()
        od.step()
        for p in D.parameters():
            p.requires_grad_(False)
        og.zero_grad()
        lg = bce(D(fake), torch.ones(8, 1))
        lg.backward()
        og.step()
        for p in D.parameters():
            p.requires_grad_(True)
        out += [ld.item(), lg.item(), gp.item()]
    return out


def stn(torch, steps):
    F = torch.nn.functional
    m = _init(
        torch,
        lambda t: t.nn.ModuleDict(
            {
                "loc": t.nn.Sequential(t.nn.Flatten(), t.nn.Linear(36, 6)),
                "cls": t.nn.Sequential(
                    t.nn.Conv2d(1, 3, 3), t.nn.GroupNorm(1, 3), t.nn.Flatten(), t.nn.Linear(48, 2)
                ),
            }
        ),
    )
    rng = _rng(12)
    x = _data(torch, rng.standard_normal((4, 1, 6, 6)))
    y = _data(torch, rng.integers(0, 2, 4))
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=steps)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        theta = m["loc"](x).view(-1, 2, 3) * 0.1 + torch.tensor([[1.0, 0, 0], [0, 1, 0]])
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        xs = F.grid_sample(x, grid, align_corners=False)
        loss = F.nll_loss(F.log_softmax(m["cls"](xs), dim=1), y)
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), sched.get_last_lr()[0]]
    return out


def autoencoder(torch, steps):
    m = _init(
        torch,
        lambda t: t.nn.Sequential(
            t.nn.Conv2d(1, 4, 3, stride=2, padding=1),
            t.nn.InstanceNorm2d(4, affine=True),
            t.nn.ReLU(),
            t.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1),
            t.nn.Upsample(scale_factor=1, mode="nearest"),
            t.nn.Conv2d(2, 4, 1),
            t.nn.PixelShuffle(2),
            t.nn.AvgPool2d(2),
            t.nn.Sigmoid(),
        ),
    )
    rng = _rng(13)
    x = _data(torch, rng.random((3, 1, 8, 8)))
    opt = torch.optim.Adamax(m.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy(m(x), x)
        loss.backward()
        opt.step()
        sched.step(loss.item() + 1 if _ % 2 else 10)
        out += [loss.item(), opt.param_groups[0]["lr"]]
    return out


def seq2seq(torch, steps):
    def make(t):
        class S(t.nn.Module):
            def __init__(s):
                super().__init__()
                s.emb = t.nn.Embedding(9, 6, padding_idx=0)
                s.enc = t.nn.GRU(6, 6, batch_first=True)
                s.dec = t.nn.GRUCell(12, 6)
                s.out = t.nn.Linear(6, 9)
                s.register_buffer("scale", t.tensor(0.5))

        return S()

    m = _init(torch, make)
    rng = _rng(14)
    src = _data(torch, rng.integers(0, 9, (2, 5)))
    tgt = _data(torch, rng.integers(1, 9, (2, 4)))
    opt = torch.optim.Adadelta(m.parameters(), lr=1.0)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        enc, h = m.enc(m.emb(src))
        h = h[0]
        tok = torch.zeros(2, dtype=torch.long)
        loss = 0
        for i in range(4):
            sc = torch.bmm(enc, h.unsqueeze(2)).squeeze(2) * m.scale
            ctx = (torch.softmax(sc, -1).unsqueeze(-1) * enc).sum(1)
            h = m.dec(torch.cat([m.emb(tok), ctx], -1), h)
            logit = m.out(h)
            loss = loss + torch.nn.functional.cross_entropy(logit, tgt[:, i])
            tok = tgt[:, i]
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def gnn(torch, steps):
    rng = _rng(15)
    n = 6
    ei = _data(torch, rng.integers(0, n, (2, 14)))
    x = _data(torch, rng.standard_normal((n, 4)))
    y = _data(torch, rng.standard_normal((n, 1)))
    m = _init(torch, lambda t: t.nn.ModuleList([t.nn.Linear(4, 5), t.nn.Linear(5, 1)]))
    opt = torch.optim.RAdam(
        m.parameters(), lr=1e-2, decoupled_weight_decay=True, weight_decay=0.01
    )
    out = []
    for _ in range(steps):
        opt.zero_grad()
        h = x
        for l in m:
            msg = l(h).index_select(0, ei[0])
            agg = torch.zeros(n, msg.shape[1]).index_add(0, ei[1], msg)
            deg = torch.zeros(n).scatter_add(0, ei[1], torch.ones(14)).clamp(min=1)
            h = torch.tanh(agg / deg.unsqueeze(1))
        loss = torch.nn.functional.l1_loss(h, y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += torch.nn.utils.parameters_to_vector(m.parameters()).tolist()
    return out


def reinforce(torch, steps):
    D = torch.distributions
    pol = _init(
        torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 8), t.nn.ReLU(), t.nn.Linear(8, 2))
    )
    rng = _rng(16)
    s = _data(torch, rng.standard_normal((steps, 5, 3)))
    a = _data(torch, rng.integers(0, 2, (steps, 5)))
    r = rng.standard_normal((steps, 5))
    opt = torch.optim.Adam(pol.parameters(), lr=1e-2)
    out = []
    for k in range(steps):
        ret = []
        R = 0
        for x in r[k][::-1]:
            R = x + 0.9 * R
            ret.insert(0, R)
        ret = torch.tensor(ret)
        ret = (ret - ret.mean()) / (ret.std() + 1e-9)
        dist = D.Categorical(logits=pol(s[k]))
        loss = -(dist.log_prob(a[k]) * ret).sum() - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def swa(torch, steps):
    su = import_module(torch.__name__ + ".optim.swa_utils")
    m = _init(
        torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 4), t.nn.BatchNorm1d(4), t.nn.Linear(4, 1))
    )
    am = su.AveragedModel(m)
    rng = _rng(17)
    x = _data(torch, rng.standard_normal((8, 3)))
    y = _data(torch, rng.standard_normal((8, 1)))
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    sw = su.SWALR(opt, swa_lr=0.05, anneal_epochs=2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        am.update_parameters(m)
        sw.step()
        out += [loss.item(), sw.get_last_lr()[0]]
    su.update_bn([x], am)
    am.eval()
    with torch.no_grad():
        out += am(x).flatten().tolist()
    return out


def transformer_full(torch, steps):
    m = _init(
        torch,
        lambda t: t.nn.Transformer(
            d_model=8,
            nhead=2,
            num_encoder_layers=1,
            num_decoder_layers=1,
            dim_feedforward=12,
            dropout=0.0,
            batch_first=True,
            norm_first=True,
        ),
    )
    rng = _rng(18)
    src = _data(torch, rng.standard_normal((2, 5, 8)))
    tgt = _data(torch, rng.standard_normal((2, 4, 8)))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, amsgrad=True)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        o = m(src, tgt, tgt_mask=mask, tgt_is_causal=True)
        loss = o.pow(2).mean()
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def weightnorm(torch, steps):
    P = torch.nn.utils.parametrizations

    def make(t):
        l = t.nn.Linear(4, 3)
        return l

    base = _init(torch, make)
    m = torch.nn.utils.parametrizations.weight_norm(base)
    rng = _rng(19)
    x = _data(torch, rng.standard_normal((5, 4)))
    y = _data(torch, rng.integers(0, 3, 5))
    opt = torch.optim.Rprop(m.parameters(), lr=0.01)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.multi_margin_loss(m(x), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += m.weight.flatten().tolist()
    return out


def schedulers(torch, steps):
    m = _init(
        torch,
        lambda t: t.nn.Sequential(
            t.nn.Linear(3, 4), t.nn.PReLU(), t.nn.Linear(4, 2)
        ),
    )
    opt = torch.optim.SGD(
        [
            {"params": m[0].parameters(), "lr": 0.1},
            {"params": list(m[1].parameters()) + list(m[2].parameters())},
        ],
        lr=0.05,
        momentum=0.9,
    )
    L = torch.optim.lr_scheduler
    s1 = L.LinearLR(opt, start_factor=0.25, total_iters=3)
    s2 = L.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
    seq = L.SequentialLR(opt, [s1, s2], milestones=[3])
    rng = _rng(20)
    x = _data(torch, rng.standard_normal((6, 3)))
    y = _data(torch, rng.standard_normal((6, 2)))
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(x), y)
        loss.backward()
        n = torch.nn.utils.clip_grad_norm_(m.parameters(), 0.3, norm_type=float("inf"))
        opt.step()
        seq.step()
        out += [loss.item(), float(n)] + seq.get_last_lr()
    return out


def schedulers2(torch, steps):
    m = _init(torch, lambda t: t.nn.Linear(3, 2))
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    L = torch.optim.lr_scheduler
    c = L.ChainedScheduler(
        [L.ExponentialLR(opt, gamma=0.9), L.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)]
    )
    opt2 = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    cy = L.CyclicLR(opt2, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2")
    opt3 = torch.optim.Adam(m.parameters(), lr=0.1)
    pl = L.PolynomialLR(opt3, total_iters=4, power=2.0)
    out = []
    for _ in range(steps):
        opt.step()
        c.step()
        opt2.step()
        cy.step()
        opt3.step()
        pl.step()
        out += (
            c.get_last_lr()
            + cy.get_last_lr()
            + pl.get_last_lr()
            + [opt2.param_groups[0]["momentum"]]
        )
    return out


def metric(torch, steps):
    F = torch.nn.functional
    m = _init(
        torch, lambda t: t.nn.Sequential(t.nn.Linear(5, 6), t.nn.Hardswish(), t.nn.Linear(6, 4))
    )
    rng = _rng(21)
    a, p, n = [_data(torch, rng.standard_normal((6, 5))) for _ in range(3)]
    opt = torch.optim.Adagrad(m.parameters(), lr=0.05, lr_decay=0.01, weight_decay=0.01)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        ea, ep, en = m(a), m(p), m(n)
        l = (
            F.triplet_margin_loss(ea, ep, en, margin=0.5, swap=True)
            + 0.1 * (1 - F.cosine_similarity(ea, ep)).mean()
            + 0.01 * torch.cdist(ea, en).mean()
            + F.kl_div(
                F.log_softmax(ea, -1),
                F.log_softmax(ep, -1),
                reduction="batchmean",
                log_target=True,
            )
        )
        l.backward()
        opt.step()
        out.append(l.item())
    return out


def ctc(torch, steps):
    m = _init(torch, lambda t: t.nn.LSTM(4, 5, bidirectional=False))
    head = _init(torch, lambda t: t.nn.Linear(5, 6), seed=3)
    rng = _rng(22)
    x = _data(torch, rng.standard_normal((7, 2, 4)))
    tg = _data(torch, rng.integers(1, 6, (2, 3)))
    il = torch.tensor([7, 6])
    tl = torch.tensor([3, 2])
    ctc = torch.nn.CTCLoss(blank=0, zero_infinity=True)
    opt = torch.optim.Adam(list(m.parameters()) + list(head.parameters()), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        o, _h = m(x)
        lp = head(o).log_softmax(2)
        loss = ctc(lp, tg, il, tl)
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def fold_unfold(torch, steps):
    F = torch.nn.functional
    m = _init(
        torch, lambda t: t.nn.Sequential(t.nn.Unfold(kernel_size=2, stride=2), t.nn.Linear(4, 4))
    )
    rng = _rng(23)
    x = _data(torch, rng.standard_normal((2, 1, 4, 4)))
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        p = m[0](x).transpose(1, 2)
        q = m[1](p).transpose(1, 2)
        y = F.fold(q, (4, 4), kernel_size=2, stride=2)
        e = F.embedding_bag(
            torch.tensor([1, 2, 0, 3]), y.reshape(-1, 2)[:5], torch.tensor([0, 2]), mode="mean"
        )
        loss = (y - x).pow(2).mean() + e.abs().sum() * 0.01
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def float32_mlp(torch, steps):
    torch.set_default_dtype(torch.float32)
    _torch_ref().set_default_dtype(_torch_ref().float32)
    try:
        m = _init(
            torch,
            lambda t: t.nn.Sequential(
                t.nn.Linear(4, 8), t.nn.Mish(), t.nn.Linear(8, 3), t.nn.LogSoftmax(1)
            ),
        )
        rng = _rng(25)
        x = _data(torch, rng.standard_normal((6, 4)).astype(np.float32))
        y = _data(torch, rng.integers(0, 3, 6))
        opt = torch.optim.Adam(m.parameters(), lr=1e-2, foreach=False)
        out = []
        for _ in range(steps):
            opt.zero_grad()
            l = torch.nn.NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5]))(m(x), y)
            l.backward()
            opt.step()
            out.append(l.item())
            out.append(str(l.dtype)[-7:])
        return out
    finally:
        torch.set_default_dtype(torch.float64)
        _torch_ref().set_default_dtype(_torch_ref().float64)


def manual_sgd(torch, steps):
    x = torch.linspace(-1, 1, 20)
    y = torch.exp(x)
    a, b, c = (torch.tensor(v, requires_grad=True) for v in (0.1, 0.2, 0.3))
    out = []
    for _ in range(steps):
        loss = (a + b * x + c * x**2 - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c):
                p -= 0.01 * p.grad
                p.grad = None
        out.append(loss.item())
    return out + [a.item(), b.item(), c.item()]


def hooks_accum(torch, steps):
    m = _init(
        torch,
        lambda t: t.nn.Sequential(
            t.nn.Conv1d(2, 4, 3, dilation=2, padding=2, groups=2),
            t.nn.ReLU(),
            t.nn.ConvTranspose1d(4, 2, 3, stride=2),
            t.nn.Flatten(),
            t.nn.Linear(2 * 13, 3),
        ),
    )
    feats = {}
    h = m[1].register_forward_hook(
        lambda mod, i, o: feats.__setitem__("r", o.detach().sum().item())
    )
    for p in m.parameters():
        p.register_hook(lambda g: g.clamp(-0.1, 0.1))
    rng = _rng(30)
    x = _data(torch, rng.standard_normal((4, 2, 6)))
    y = _data(torch, rng.standard_normal((4, 3)))
    opt = torch.optim.SGD(m.parameters(), lr=0.1, maximize=False)
    out = []
    for s in range(steps):
        for k in range(2):
            l = (
                torch.nn.functional.mse_loss(
                    m(
                        torch.nn.functional.pad(x[2 * k : 2 * k + 2], (1, 1), mode="reflect")[
                            ..., 1:-1
                        ]
                    ),
                    y[2 * k : 2 * k + 2],
                )
                / 2
            )
            l.backward()
            out += [l.item(), feats["r"]]
        opt.step()
        opt.zero_grad()
    h.remove()
    return out


def rnn_zoo(torch, steps):
    rnnu = torch.nn.utils.rnn

    def make(t):
        return t.nn.ModuleDict(
            {
                "l": t.nn.LSTM(3, 4, proj_size=2, num_layers=2, batch_first=True),
                "c": t.nn.LSTMCell(2, 3),
                "r": t.nn.RNN(3, 3, nonlinearity="relu"),
            }
        )

    m = _init(torch, make)
    rng = _rng(31)
    seqs = [_data(torch, rng.standard_normal((n, 3))) for n in (2, 4, 3)]
    opt = torch.optim.ASGD(m.parameters(), lr=0.05, t0=2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        pk = rnnu.pack_sequence(seqs, enforce_sorted=False)
        o, (h, c) = m["l"](pk)
        pad, lens = rnnu.pad_packed_sequence(o, batch_first=True)
        st_ = None
        for tt in range(pad.shape[1]):
            st_ = m["c"](pad[:, tt], st_)
        r, hr = m["r"](rnnu.pad_sequence(seqs))
        loss = st_[0].pow(2).mean() + h.sum() * 0.1 + hr.mean() + r.abs().mean()
        loss.backward()
        opt.step()
        out += [loss.item()] + lens.tolist()
    return out


def sdpa_model(torch, steps):
    F = torch.nn.functional
    m = _init(
        torch,
        lambda t: t.nn.ModuleDict(
            {
                "qkv": t.nn.Linear(8, 24),
                "o": t.nn.Linear(8, 8),
                "e": t.nn.Embedding(10, 8, max_norm=1.0),
            }
        ),
    )
    rng = _rng(32)
    ids = _data(torch, rng.integers(0, 10, (2, 5)))
    tgt = _data(torch, rng.integers(0, 10, (2, 5)))
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        x = m["e"](ids)
        q, k, v = m["qkv"](x).view(2, 5, 3, 2, 4).permute(2, 0, 3, 1, 4).unbind(0)
        a = (
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
            .transpose(1, 2)
            .reshape(2, 5, 8)
        )
        logits = m["o"](F.normalize(a, dim=-1)) @ m["e"].weight.T
        soft = F.one_hot(tgt, 10).double() * 0.8 + 0.02
        loss = F.cross_entropy(logits.reshape(-1, 10), soft.reshape(-1, 10)) + F.cross_entropy(
            logits.reshape(-1, 10), tgt.reshape(-1), label_smoothing=0.2, ignore_index=3
        )
        top = logits.topk(2, dim=-1).values.sum().item()
        loss.backward()
        opt.step()
        out += [
            loss.item(),
            top,
            logits.sort(dim=-1, descending=True).indices[0, 0, 0].item(),
            logits.cumsum(-1)[0, 0, -1].item(),
        ]
    return out


def init_apply(torch, steps):
    def make(t):
        m = t.nn.Sequential(
            t.nn.Linear(3, 4), t.nn.LayerNorm(4, elementwise_affine=True), t.nn.Linear(4, 2)
        )

        def f(mod):
            if isinstance(mod, t.nn.Linear):
                t.nn.init.constant_(mod.weight, 0.1)
                t.nn.init.zeros_(mod.bias)

        m.apply(f)
        t.nn.init.eye_(m[0].weight)
        return m

    m = make(torch)
    rng = _rng(33)
    x = _data(torch, rng.standard_normal((5, 3)))
    y = _data(torch, rng.standard_normal((5, 2)))
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        l = torch.nn.functional.mse_loss(m(x), y, reduction="sum")
        torch.autograd.backward([l, m[0].weight.sum()], [torch.tensor(1.0), torch.tensor(0.01)])
        opt.step()
        out.append(l.item())
    v = torch.nn.utils.parameters_to_vector(m.parameters())
    torch.nn.utils.vector_to_parameters(v * 2, m.parameters())
    return out + [
        float(m[2].weight.detach().sum()),
        len(opt.state),
        len(opt.state_dict()["state"]),
    ]


def boilerplate(torch, steps):
    data = import_module(torch.__name__ + ".utils.data")
    torch.manual_seed(0)
    torch.backends.cudnn.deterministic = True
    torch.use_deterministic_algorithms(True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    class DS(data.Dataset):
        def __init__(s):
            r = _rng(40)
            s.x = r.standard_normal((14, 4))
            s.y = r.integers(0, 3, 14)

        def __len__(s):
            return len(s.x)

        def __getitem__(s, i):
            return torch.from_numpy(s.x[i]), int(s.y[i])

    ds = DS()
    sub = data.Subset(ds, list(range(12)))
    cat = data.ConcatDataset([sub, data.Subset(ds, [12, 13])])
    loader = data.DataLoader(cat, batch_size=4, drop_last=True)
    m = _init(
        torch,
        lambda t: t.nn.Sequential(
            t.nn.Linear(4, 6), t.nn.LayerNorm(6), t.nn.GELU(approximate="tanh"), t.nn.Linear(6, 3)
        ),
    ).to(device)
    decay = [p for n, p in m.named_parameters() if p.ndim >= 2]
    nodecay = [p for n, p in m.named_parameters() if p.ndim < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": nodecay, "weight_decay": 0.0}],
        lr=3e-3,
        betas=(0.9, 0.95),
    )
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(
        opt, mode="max", threshold_mode="abs", threshold=0.01, cooldown=1, patience=0, factor=0.3
    )
    out = []
    best = -1
    for ep in range(steps):
        m.train()
        tot = 0
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            logits = m(xb)
            loss = torch.nn.functional.cross_entropy(logits, yb)
            m.zero_grad()
            loss.backward()
            n = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
            assert torch.isfinite(n)
            opt.step()
            tot += loss.item()
        m.eval()
        with torch.inference_mode():
            xs, ys = map(
                torch.stack, (zip(*[(ds[i][0], torch.tensor(ds[i][1])) for i in range(14)]))
            )
            xs, ys = xs.to(device), ys.to(device)  # (on the model's device, as its batches)
            pr = m(xs).softmax(-1)
            acc = (pr.argmax(-1) == ys).sum().item() / 14
            chunks = [c.sum().item() for c in pr.chunk(3)] + [c.shape[0] for c in pr.split([5, 9])]
        sched.step(acc)
        best = max(best, acc)
        out += [tot, acc] + chunks + [g["lr"] for g in opt.param_groups]
    buf = io.BytesIO()
    torch.save(m, buf)
    buf.seek(0)
    m2 = torch.load(buf, weights_only=False)
    xs = xs.clone()
    out += [
        float(m2(xs).detach().sum()),
        float(m(xs).detach().double().sum()),
        str(m2(xs).dtype).removeprefix("torch."),
    ]
    x32 = xs.float()
    m.float()
    out.append(np.float32(m(x32).sum().item()))
    out.append(str(m(x32).dtype).removeprefix("torch."))
    return out


def custom_module(torch, steps):
    F = torch.nn.functional

    class Net(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.w = torch.nn.Parameter(torch.tensor(_rng(41).standard_normal((5, 4))))
            s.b = torch.nn.Parameter(torch.zeros(5))
            s.blocks = torch.nn.ModuleList([torch.nn.Linear(5, 5) for _ in range(2)])
            s.register_buffer("steps", torch.zeros((), dtype=torch.long))

        def forward(s, x):
            h = F.linear(x, s.w, s.b)
            for blk in s.blocks:
                h = h + F.relu6(blk(h))
            s.steps += 1
            return h

    torch.manual_seed(0)
    m = Net()
    with torch.no_grad():
        for i, blk in enumerate(m.blocks):
            blk.weight.copy_(torch.tensor(_rng(50 + i).standard_normal((5, 5)) * 0.3))
            blk.bias.fill_(0.1 * i)
    rng = _rng(42)
    x = _data(torch, rng.standard_normal((6, 4)))
    y = _data(torch, rng.standard_normal((6, 5)))
    opt = torch.optim.SGD(m.parameters(), lr=0.02, momentum=0.9, nesterov=True)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        l = F.mse_loss(m(x), y)
        l.backward()
        opt.step()
        out.append(l.item())
    out.append(int(m.steps))
    out.append(sorted(m.state_dict().keys()))
    out.append([n for n, _ in m.named_parameters()])
    return out


def dist_vae(torch, steps):
    D = torch.distributions
    m = _init(
        torch, lambda t: t.nn.ModuleDict({"enc": t.nn.Linear(5, 4), "dec": t.nn.Linear(2, 5)})
    )
    rng = _rng(80)
    x = _data(torch, rng.standard_normal((6, 5)))
    eps = rng.standard_normal((steps, 6, 2))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []
    for s in range(steps):
        opt.zero_grad()
        h = m["enc"](x)
        mu, ls = h[:, :2], h[:, 2:]
        q = D.Normal(mu, torch.nn.functional.softplus(ls) + 1e-3)
        z = q.loc + q.scale * _data(torch, eps[s])
        p = D.Normal(torch.zeros(2), torch.ones(2))
        kl = D.kl_divergence(q, p).sum(-1).mean()
        rec = D.Independent(D.Normal(m["dec"](z), 1.0), 1).log_prob(x).mean()
        g = torch.nn.functional.gaussian_nll_loss(
            m["dec"](z), x, torch.ones(6, 5) * 0.5, full=True
        )
        loss = kl - rec + 0.1 * g
        loss.backward()
        opt.step()
        out += [loss.item(), kl.item(), q.entropy().sum().item(), q.log_prob(z).sum().item()]
    return out


def spec_param(torch, steps):
    P = torch.nn.utils.parametrize

    class Sym(torch.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(4, 4), t.nn.Tanh(), t.nn.Linear(4, 2)))
    P.register_parametrization(m[0], "weight", Sym())
    su = import_module(torch.__name__ + ".optim.swa_utils")
    ema = su.AveragedModel(m, multi_avg_fn=su.get_ema_multi_avg_fn(0.9))
    rng = _rng(81)
    x = _data(torch, rng.standard_normal((5, 4)))
    y = _data(torch, rng.standard_normal((5, 2)))
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        l = torch.nn.functional.mse_loss(m(x), y)
        l.backward()
        opt.step()
        ema.update_parameters(m)
        out.append(l.item())
    with torch.no_grad():
        out += ema(x).flatten().tolist() + m[0].weight.flatten().tolist()
        with P.cached():
            out.append(float(m(x).sum()))
    P.remove_parametrizations(m[0], "weight", leave_parametrized=True)
    out.append(float(m[0].weight.detach().sum()))
    return out


def layer_zoo(torch, steps):
    nn = torch.nn
    F = torch.nn.functional

    def make(t):
        n = t.nn
        return n.Sequential(
            n.ReflectionPad2d(1),
            n.Conv2d(2, 4, 3),
            n.LocalResponseNorm(2),
            n.Hardtanh(-2, 2),
            n.ChannelShuffle(2),
            n.Upsample(scale_factor=2, mode="bilinear", align_corners=True),
            n.ZeroPad2d((1, 0, 1, 0)),
            n.LPPool2d(2, 2),
            n.GroupNorm(2, 4),
            n.RReLU(),
            n.AdaptiveMaxPool2d(3),
            n.Conv2d(4, 4, 1),
            n.Softmax2d(),
            n.Flatten(),
            n.Unflatten(1, (4, 9)),
            n.Flatten(1),
            n.AlphaDropout(0.0),
            n.Linear(36, 6),
            n.GLU(),
            n.Threshold(0.1, 0.0),
            n.Identity(),
        )

    m = _init(torch, make)
    rng = _rng(90)
    x = _data(torch, rng.standard_normal((3, 2, 5, 5)))
    y = _data(torch, (rng.random((3, 3)) > 0.5).astype(np.float64))
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    out = []
    for _ in range(steps):
        m.train()
        m[9].eval()
        opt.zero_grad()
        o = m(x)
        l = (
            F.multilabel_soft_margin_loss(o, y, weight=torch.tensor([1.0, 2.0, 3.0]))
            + F.poisson_nll_loss(o.exp(), y, log_input=False)
            + F.cosine_embedding_loss(o, o.flip(0), torch.tensor([1, -1, 1]), margin=0.1)
            + nn.BCELoss(weight=torch.tensor([0.5, 1.0, 2.0]))(torch.sigmoid(o), y)
        )
        l += (
            F.interpolate(x, size=(7, 3), mode="bicubic", align_corners=False).mean() * 0
            + nn.PairwiseDistance()(o, o.flip(0)).mean() * 0.1
            + nn.CosineSimilarity()(o, o + 1).mean() * 0.1
        )
        l.backward()
        opt.step()
        out.append(l.item())
    mp = nn.MaxPool2d(2, return_indices=True)
    un = nn.MaxUnpool2d(2)
    a, i = mp(x)
    out += un(a, i, output_size=x.shape[-2:]).flatten().tolist()[:20]
    try:
        un(a, i)
    except RuntimeError as e:
        out.append("Found an invalid max index: 18 (output volumes are of size 4x4)" in str(e))
    out += (
        F.interpolate(x, size=(7, 3), mode="bicubic", align_corners=False).flatten().tolist()[:20]
    )
    return out


def _torch_ref():
    return torch


# --- the tests --------------------------------------------------------------------------------

def _compare(ref, got, rtol=1e-11, atol=1e-13):
    assert len(ref) == len(got)
    for i, (r, g) in enumerate(zip(ref, got)):
        assert type(r) is type(g), (i, r, g)
        if isinstance(r, np.float32):
            # (a float32 number, from a model cast with .float(): float32's rounding)
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6, err_msg=f"entry {i}")
            continue
        if not isinstance(r, float):
            assert r == g, (i, r, g)
            continue
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
    "gan_gp": (gan_gp, 4, {}),
    "spatial_transformer": (stn, 4, {}),
    "conv_autoencoder": (autoencoder, 4, {}),
    "seq2seq_attention": (seq2seq, 3, {}),
    "gnn": (gnn, 4, {}),
    "reinforce": (reinforce, 4, {}),
    "swa": (swa, 4, {}),
    "nn_transformer": (transformer_full, 3, {}),
    "weight_norm": (weightnorm, 4, {}),
    "scheduler_chain": (schedulers, 6, {}),
    "scheduler_zoo": (schedulers2, 6, {}),
    "metric_learning": (metric, 4, {}),
    "ctc": (ctc, 4, {}),
    "fold_unfold": (fold_unfold, 4, {}),
    # (float32: the libraries round differently in float32, and Adam divides by a small
    # running norm: rtol 1e-5)
    "float32_mlp": (float32_mlp, 4, dict(rtol=1e-5, atol=1e-6)),
    "manual_sgd": (manual_sgd, 5, {}),
    "hooks_accumulation": (hooks_accum, 3, {}),
    "rnn_zoo": (rnn_zoo, 3, {}),
    "sdpa_tied_embedding": (sdpa_model, 4, {}),
    "init_apply": (init_apply, 4, {}),
    # (Dataset/Subset/ConcatDataset, drop_last, parameter groups without decay on biases,
    # ReduceLROnPlateau(mode="max"), inference_mode, chunk/split, torch.save of a whole module,
    # .float() of a trained model)
    "boilerplate": (boilerplate, 3, {}),
    "custom_module": (custom_module, 4, {}),
    "distributions_vae": (dist_vae, 4, {}),
    "parametrize_ema": (spec_param, 4, {}),
    # (padding, LocalResponseNorm, ChannelShuffle, bilinear Upsample, LPPool2d, GroupNorm,
    # RReLU in eval, AdaptiveMaxPool2d, Softmax2d, Unflatten, GLU, Threshold; several losses;
    # bicubic interpolate; MaxUnpool2d and its error)
    "layer_zoo": (layer_zoo, 4, {}),
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
        straight, resumed, step, step_dtype = checkpoint(lib, 3, tmp_path / f"{lib.__name__}.pt")
        # (resuming from the checkpoint gives the uninterrupted run's losses exactly)
        assert resumed == straight
        assert step == 3
        res.append(straight + [step_dtype])
    # (the saved optimizer state's step count: float64 under the float64 default, as PyTorch's)
    assert res[1][-1] == res[0][-1] == "float64"
    _compare(res[0], res[1])


# --- focused: embedding's max_norm (the sdpa program's tied Embedding(max_norm=1.0)) ----------

def _T(lib, a, grad=False):
    a = np.asarray(a)
    t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
    if grad:
        t.requires_grad_(True)
    return t


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("max_norm, norm_type",
                         [(None, 2.0), (1.2, 1.0), (1.2, 2.0), (1.2, 3.5), (1.2, float("inf"))])
@pytest.mark.parametrize("shape", [(7,), (2, 4), ()])
@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("freq", [False, True])
def test_embedding_max_norm_and_scale_grad_by_freq(dtype, max_norm, norm_type, shape,
                                                   padding_idx, freq):
    rng = _rng(40)
    w0 = (rng.standard_normal((6, 3)) * 1.5).astype(dtype)
    idx = rng.integers(0, 6, shape)
    g = rng.standard_normal(shape + (3,)).astype(dtype)
    res = []
    for lib in LIBS:
        w = _T(lib, w0, grad=True)
        out = lib.nn.functional.embedding(_T(lib, idx), w, padding_idx=padding_idx,
                                          max_norm=max_norm, norm_type=norm_type,
                                          scale_grad_by_freq=freq)
        (out * _T(lib, g)).sum().backward()
        res.append((to_numpy(out), to_numpy(w), to_numpy(w.grad), str(out.dtype)))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-13, atol=1e-14)
    assert res[1][3] == res[0][3].removeprefix("torch.")
    for r, s in zip(res[0][:3], res[1][:3]):
        np.testing.assert_allclose(s, r, **tol)
    # (picked rows over the norm were rescaled)
    assert np.allclose(res[1][1], w0) == (max_norm is None)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("freq", [False, True])
def test_embedding_bag_and_modules_max_norm(mode, freq):
    rng = _rng(41)
    w0 = rng.standard_normal((5, 4)) * 2
    idx = np.array([0, 3, 3, 1, 4])
    res = []
    for lib in LIBS:
        w = _T(lib, w0, grad=True)
        out = lib.nn.functional.embedding_bag(_T(lib, idx), w, _T(lib, np.array([0, 2])),
                                              max_norm=0.9, mode=mode)
        out.sum().backward()
        bag = lib.nn.EmbeddingBag(5, 4, max_norm=1.5, norm_type=1.0, mode=mode)
        emb = lib.nn.Embedding(5, 4, max_norm=1.0, scale_grad_by_freq=freq)
        with lib.no_grad():
            bag.weight.copy_(_T(lib, w0))
            emb.weight.copy_(_T(lib, w0))
        o2 = bag(_T(lib, idx.reshape(1, 5)))
        o3 = emb(_T(lib, idx[:4]))
        (o2.sum() + o3.sum()).backward()
        res.append([to_numpy(a) for a in (out, w, w.grad, o2, bag.weight, o3, emb.weight,
                                           bag.weight.grad, emb.weight.grad)])
    for r, s in zip(*res):
        np.testing.assert_allclose(s, r, rtol=1e-13, atol=1e-14)


def test_embedding_refusals_and_errors():
    w = st.ones(3, 2)
    with pytest.raises(NotImplementedError, match="sparse"):
        st.nn.functional.embedding_bag(st.tensor([1]), w, st.tensor([0]), sparse=True)
    # (PyTorch's own CPU embedding_bag scales row 4's gradient by 3's count here: refused)
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq"):
        st.nn.functional.embedding_bag(st.tensor([0, 3, 3, 1, 4]), w, st.tensor([0]),
                                       scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="max mode does not support scaling"):
        st.nn.functional.embedding_bag(st.tensor([1]), w, st.tensor([0]), mode="max",
                                       scale_grad_by_freq=True)
    with pytest.raises(NotImplementedError, match="sparse"):
        st.nn.functional.embedding(st.tensor([1]), w, max_norm=1.0, sparse=True)
    with pytest.raises(TypeError, match="'indices' to have one of the following scalar types: Long, Int"):
        st.nn.functional.embedding(st.tensor([1.0]), w, max_norm=1.0)
    # (no row picked: nothing changes)
    st.nn.functional.embedding(st.tensor([], dtype=st.int64), w, max_norm=0.1)
    assert to_numpy(w).tolist() == [[1.0, 1.0]] * 3


# --- focused: the optimizers' step count in PyTorch's scalar dtype (the checkpoint program) ---

@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adagrad", "NAdam", "Adamax"])
@pytest.mark.parametrize("default", ["float64", "float32"])
def test_optimizer_step_state_dtype_follows_default_dtype(name, default):
    res = []
    for lib in LIBS:
        lib.set_default_dtype(getattr(lib, default))
        w = _T(lib, np.array([1.0, -2.0]), grad=True)
        opt = getattr(lib.optim, name)([w], lr=0.1)
        (w * w).sum().backward()
        opt.step()
        opt.step()
        sd = opt.state_dict()["state"][0]
        res.append({k: (str(v.dtype).removeprefix("torch."), to_numpy(v).tolist())
                    for k, v in sd.items()})
        res[-1]["w"] = to_numpy(w).tolist()
    assert res[0] == res[1]


# --- focused: fused=True (Adam, AdamW, SGD, Adagrad): PyTorch's CPU fused kernels' numbers --

_FUSED = {"Adam": dict(amsgrad=True, weight_decay=0.1, maximize=True), "AdamW": {},
          "SGD": dict(momentum=0.9, nesterov=True, weight_decay=0.1),
          "Adagrad": dict(lr_decay=0.01, weight_decay=0.1)}


@pytest.mark.parametrize("name", list(_FUSED))
@pytest.mark.parametrize("default", ["float64", "float32"])
def test_fused_optimizers_match_pytorch_fused(name, default):
    res = []
    for lib in LIBS:
        lib.set_default_dtype(getattr(lib, default))
        model = _init(lib, lambda t: t.nn.Linear(4, 3))
        x = _data(lib, _rng(70).standard_normal((6, 4)).astype(default))
        opt = getattr(lib.optim, name)(model.parameters(), lr=0.05, fused=True, **_FUSED[name])
        losses = []
        for _ in range(4):
            opt.zero_grad()
            loss = model(x).pow(2).sum()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        state = opt.state_dict()
        res.append((losses, [to_numpy(p) for p in model.parameters()],
                    {k: str(v.dtype).removeprefix("torch.") for k, v in state["state"][0].items()},
                    state["param_groups"][0]["fused"]))
    tol = dict(rtol=1e-12, atol=1e-14) if default == "float64" else dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[1][0], res[0][0], **tol)
    for r, s in zip(res[0][1], res[1][1]):
        np.testing.assert_allclose(s, r, **tol)
    assert res[1][2:] == res[0][2:]


@pytest.mark.parametrize("name", list(_FUSED))
def test_fused_optimizer_errors(name):
    msgs = []
    for lib in LIBS:
        w = _T(lib, np.ones(2), grad=True)
        errs = []
        for kw in (dict(foreach=True), dict(differentiable=True)):
            with pytest.raises(RuntimeError) as e:
                getattr(lib.optim, name)([w], lr=0.1, fused=True, **kw)
            errs.append(str(e.value))
        c = _T(lib, np.ones(2, dtype=np.complex128), grad=True)
        opt = getattr(lib.optim, name)([c], lr=0.1, fused=True)
        (c * c).real.sum().backward()
        with pytest.raises(RuntimeError, match="`fused=True` requires all the params to be "
                                               "floating point"):
            opt.step()
        msgs.append(errs)
    assert msgs[0] == msgs[1]
