"""Whole PyTorch programs, third set (after ``test_programs20.py`` and ``test_programs21.py``),
run on real ``torch`` and on ``strided.torch``, giving the same numbers.

Each ``program(torch, steps)`` takes the torch module and returns the list of numbers it would
print. As in the other two files: initial weights come from real PyTorch under
``torch.manual_seed`` and are copied into the strided model with ``load_state_dict`` of NumPy
arrays (they land on the model's device: ``cuda`` on the CuPy stand-in leg), data is made from
NumPy on the default device, and everything runs in float64.

These follow PyTorch's tutorials: "What is torch.nn really?" (hand-made weights, then
``nn.Module``/``nn.Parameter``, ``TensorDataset``/``DataLoader``, ``optim``), "Learning PyTorch
with examples" (manual gradients, a custom autograd ``Function``, an ``nn`` polynomial, dynamic
control flow with weight sharing), and common models: a stateful LSTM forecaster, a tabular
model, a pre-norm Transformer encoder with padding, a Siamese net, a 1-d/2-d autoencoder, a
Gaussian process, a Neural ODE, a mixture-density network, count and heteroscedastic
regressors, the less common optimizers with ``param_groups`` edits, and a Fourier neural
operator layer.

Tolerances: rtol 1e-11 by default; where a program needs more, its entry in ``PROGRAMS`` says
why.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

LIBS = (torch, st)


@pytest.fixture(autouse=True)
def _float64():
    """float64 defaults during the test (restored after it)."""
    saved = [lib.get_default_dtype() for lib in LIBS]
    torch.set_default_dtype(torch.float64)
    st.set_default_dtype(st.float64)
    try:
        yield
    finally:
        for lib, dtype in zip(LIBS, saved):
            lib.set_default_dtype(dtype)


def _init(lib, make, seed=0):
    """``make(lib)`` with PyTorch's initial weights: built in PyTorch under ``manual_seed``; for
    strided, every parameter and buffer is copied in through ``load_state_dict`` (NumPy arrays,
    which land on the model's device)."""
    torch.manual_seed(seed)
    ref = make(torch)
    if lib is torch:
        return ref
    model = make(lib)
    model.load_state_dict({k: v.detach().numpy().copy() for k, v in ref.state_dict().items()})
    return model


def _data(lib, a):
    """A NumPy array as an array of ``lib`` on its default device (floats: float64)."""
    return lib.tensor(np.asarray(a).copy())


def _rng(seed=0):
    return np.random.default_rng(seed)


# --- 1. "What is torch.nn really?": hand-made weights with requires_grad_(), a hand-written
# log_softmax and nll (indexing by range), then nn.Module with nn.Parameter, then nn.Linear with
# TensorDataset/DataLoader, optim.SGD(momentum), a fit() with validation under eval/no_grad,
# and a Conv1d model with a Lambda module and a wrapped loader ------------------------------

def nn_really(torch, steps):
    nn = torch.nn
    F = torch.nn.functional
    D = torch.utils.data
    rng = _rng(400)
    n, bs, lr = 20, 8, 0.5
    x_train = _data(torch, rng.standard_normal((n, 6)))
    y_train = _data(torch, rng.integers(0, 3, n))
    x_valid = _data(torch, rng.standard_normal((10, 6)))
    y_valid = _data(torch, rng.integers(0, 3, 10))
    weights = _data(torch, rng.standard_normal((6, 3)) / math.sqrt(6))
    weights.requires_grad_()
    bias = torch.zeros(3, requires_grad=True)

    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    def nll(input, target):
        # (the tutorial indexes by range(...): strided's core refuses a range index, reported;
        # arange is the same index)
        return -input[torch.arange(target.shape[0]), target].mean()

    def accuracy(out, yb):
        preds = torch.argmax(out, dim=1)
        return (preds == yb).float().mean()

    out = [weights.is_leaf, weights.requires_grad]
    for _ in range(steps):
        for i in range((n - 1) // bs + 1):
            xb, yb = x_train[i * bs:i * bs + bs], y_train[i * bs:i * bs + bs]
            loss = nll(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
        out += [loss.item(), accuracy(model(x_train), y_train).item()]
    loss_func = F.cross_entropy
    out.append(abs(loss_func(xb @ weights + bias, yb).item() - nll(model(xb), yb).item()) < 1e-12)

    m = _init(torch, _mk_logistic)
    for _ in range(steps):
        for i in range((n - 1) // bs + 1):
            xb, yb = x_train[i * bs:i * bs + bs], y_train[i * bs:i * bs + bs]
            loss = loss_func(m(xb), yb)
            loss.backward()
            with torch.no_grad():
                for p in m.parameters():
                    p -= p.grad * lr
                m.zero_grad()
        out.append(loss.item())
    out += [name for name, _ in m.named_parameters()]

    train_ds = D.TensorDataset(x_train, y_train)
    valid_ds = D.TensorDataset(x_valid, y_valid)
    train_dl = D.DataLoader(train_ds, batch_size=bs)
    valid_dl = D.DataLoader(valid_ds, batch_size=bs * 2)

    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)
        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()
        return loss.item(), len(xb)

    def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
        res = []
        for _ in range(epochs):
            model.train()
            for xb, yb in train_dl:
                res.append(loss_batch(model, loss_func, xb, yb, opt)[0])
            model.eval()
            with torch.no_grad():
                losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
            res.append(float(np.sum(np.multiply(losses, nums)) / np.sum(nums)))
        return res

    lin = _init(torch, lambda t: t.nn.Linear(6, 3), seed=1)
    out += fit(steps, lin, loss_func, torch.optim.SGD(lin.parameters(), lr=lr, momentum=0.9),
               train_dl, valid_dl)

    def make_cnn(t):
        class Lambda(t.nn.Module):
            def __init__(self, func):
                super().__init__()
                self.func = func

            def forward(self, x):
                return self.func(x)

        return t.nn.Sequential(Lambda(lambda x: x.view(-1, 1, 6)),
                               t.nn.Conv1d(1, 4, 3, stride=2, padding=1), t.nn.ReLU(),
                               t.nn.Conv1d(4, 3, 3, stride=2, padding=1), t.nn.ReLU(),
                               t.nn.AdaptiveAvgPool1d(1), Lambda(lambda x: x.view(x.size(0), -1)))

    class WrappedDataLoader:
        def __init__(self, dl, func):
            self.dl, self.func = dl, func

        def __len__(self):
            return len(self.dl)

        def __iter__(self):
            for b in self.dl:
                yield self.func(*b)

    cnn = _init(torch, make_cnn, seed=2)
    wrap = WrappedDataLoader(train_dl, lambda x, y: (x * 2, y))
    out += fit(steps, cnn, loss_func, torch.optim.SGD(cnn.parameters(), lr=0.1, momentum=0.9),
               wrap, valid_dl)
    out += [len(wrap), len(valid_dl)]
    return out


def _mk_logistic(t):
    class MnistLogistic(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = t.nn.Parameter(t.randn(6, 3) / math.sqrt(6))
            self.bias = t.nn.Parameter(t.zeros(3))

        def forward(self, xb):
            return xb @ self.weights + self.bias

    return MnistLogistic()


# --- 2. "Learning PyTorch with examples": a cubic fit of sin with hand-written gradients, then
# autograd, then a custom autograd Function (LegendrePolynomial3), then nn with x.pow(p) and
# Flatten(0, 1), then optim.RMSprop, then a dynamic net (Python random control flow, weight
# sharing) -----------------------------------------------------------------------------------

def examples(torch, steps):
    x = torch.linspace(-math.pi, math.pi, 200)
    y = torch.sin(x)
    rng = _rng(401)
    a, b, c, d = (_data(torch, v) for v in rng.standard_normal(4))
    lr = 1e-6
    out = []
    for _ in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum().item()
        grad_y_pred = 2.0 * (y_pred - y)
        grad_a = grad_y_pred.sum()
        grad_b = (grad_y_pred * x).sum()
        grad_c = (grad_y_pred * x ** 2).sum()
        grad_d = (grad_y_pred * x ** 3).sum()
        a -= lr * grad_a
        b -= lr * grad_b
        c -= lr * grad_c
        d -= lr * grad_d
        out.append(loss)
    out += [a.item(), b.item(), c.item(), d.item()]

    a, b, c, d = (_data(torch, v).requires_grad_() for v in rng.standard_normal(4))
    for _ in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= lr * p.grad
                p.grad = None
        out.append(loss.item())

    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    a = torch.full((), 0.0, requires_grad=True)
    b = torch.full((), -1.0, requires_grad=True)
    c = torch.full((), 0.0, requires_grad=True)
    d = torch.full((), 0.3, requires_grad=True)
    for _ in range(steps):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= 5e-6 * p.grad
                p.grad = None
        out.append(loss.item())
    out.append(type(y_pred.grad_fn).__name__.startswith("Add"))

    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 1), t.nn.Flatten(0, 1)))
    loss_fn = torch.nn.MSELoss(reduction="sum")
    for _ in range(steps):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= lr * param.grad
        out.append(loss.item())
    linear_layer = model[0]
    out += [linear_layer.bias.item(), linear_layer.weight[:, 0].item(), str(xx.dtype)[-7:]]
    model = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 1), t.nn.Flatten(0, 1)), 1)
    opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for _ in range(steps):
        loss = loss_fn(model(xx), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())

    dyn = _init(torch, _dyn, seed=5)
    r = random.Random(7)
    opt = torch.optim.SGD(dyn.parameters(), lr=1e-8, momentum=0.9)
    for _ in range(steps * 2):
        loss = (dyn(x, r) - y).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += [p.item() for p in dyn.parameters()]
    return out


def _dyn(t):
    class DynamicNet(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = t.nn.Parameter(t.randn(()))
            self.b = t.nn.Parameter(t.randn(()))
            self.c = t.nn.Parameter(t.randn(()))
            self.d = t.nn.Parameter(t.randn(()))
            self.e = t.nn.Parameter(t.randn(()))

        def forward(self, x, r):
            y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
            for exp in range(4, r.randint(4, 6)):
                y = y + self.e * x ** exp
            return y

    return DynamicNet()


# --- 3. a time-series forecaster: an LSTM whose (h, c) state is carried (detached) across
# consecutive chunks (truncated BPTT), HuberLoss(delta) + SmoothL1Loss(beta), clip_grad_norm_
# (its returned total norm) and clip_grad_value_, then an autoregressive rollout --------------

def _forecaster(t):
    class Forecaster(t.nn.Module):
        def __init__(s):
            super().__init__()
            s.lstm = t.nn.LSTM(2, 5, num_layers=2, batch_first=True)
            s.head = t.nn.Linear(5, 1)

        def forward(s, x, state=None):
            o, state = s.lstm(x, state)
            return s.head(o), state

    return Forecaster()


def forecaster(torch, steps):
    m = _init(torch, _forecaster)
    rng = _rng(402)
    tt = np.arange(2 * 19) * 0.3
    series = np.stack([np.sin(tt), np.cos(1.3 * tt)]) + 0.05 * rng.standard_normal((2, 38))
    feats = np.stack([series, np.broadcast_to(np.sin(tt / 5), series.shape)], -1)
    x = _data(torch, feats[:, :-1])
    y = _data(torch, series[:, 1:, None])
    huber = torch.nn.HuberLoss(delta=0.5)
    smooth = torch.nn.SmoothL1Loss(beta=0.3, reduction="sum")
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        state = None
        for k in range(0, 36, 9):
            xb, yb = x[:, k:k + 9], y[:, k:k + 9]
            pred, state = m(xb, state)
            state = tuple(s.detach() for s in state)
            loss = huber(pred, yb) + 0.1 * smooth(pred, yb)
            opt.zero_grad()
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(m.parameters(), max_norm=0.5)
            torch.nn.utils.clip_grad_value_(m.head.parameters(), clip_value=0.05)
            opt.step()
            out += [loss.item(), norm.item(), state[0].requires_grad]
    m.eval()
    with torch.no_grad():
        pred, state = m(x[:, :30])
        last = x[:, 29:30]
        roll = []
        for _ in range(4):
            nxt, state = m(last, state)
            roll.append(nxt)
            last = torch.cat([nxt, last[..., 1:]], dim=-1)
        roll = torch.cat(roll, 1)
        out += roll.flatten().tolist() + list(roll.shape)
        out += torch.nn.functional.huber_loss(roll, y[:, 30:34], reduction="none",
                                              delta=0.1).flatten().tolist()
        out += torch.nn.functional.smooth_l1_loss(roll, y[:, 30:34], beta=0.0).reshape(1).tolist()
    return out


# --- 4. a tabular model: one Embedding per categorical column (ModuleList), BatchNorm1d on the
# continuous columns, Dropout layers switched to eval inside train mode, BCEWithLogitsLoss,
# AdamW; then eval predictions, the running statistics and sigmoid probabilities. (No bias in
# the Linear before ReLU + BatchNorm1d: on a unit positive over the whole batch that bias feeds
# the BatchNorm directly, its gradient is rounding noise, and AdamW scales noise to lr-sized
# steps: the runs parted at 1e-11 after one step.) ----------------------------------------

def _tabular(t):
    n = t.nn

    class Tab(n.Module):
        def __init__(s):
            super().__init__()
            s.embs = n.ModuleList([n.Embedding(c, d) for c, d in ((5, 3), (7, 4), (3, 2))])
            s.emb_drop = n.Dropout(0.2)
            s.bn_cont = n.BatchNorm1d(4)
            s.layers = n.Sequential(n.Linear(13, 8, bias=False), n.ReLU(),
                                    n.BatchNorm1d(8, momentum=0.3),
                                    n.Dropout(0.3), n.Linear(8, 1))

        def forward(s, cat, cont):
            e = t.cat([emb(cat[:, i]) for i, emb in enumerate(s.embs)], 1)
            e = s.emb_drop(e)
            return s.layers(t.cat([e, s.bn_cont(cont)], 1)).squeeze(-1)

    return Tab()


def tabular(torch, steps):
    m = _init(torch, _tabular)
    rng = _rng(403)
    cat = _data(torch, np.stack([rng.integers(0, c, 12) for c in (5, 7, 3)], 1))
    cont = _data(torch, rng.standard_normal((12, 4)) * [1.0, 3.0, 0.5, 2.0] + [0, 1, -2, 0])
    y = _data(torch, rng.integers(0, 2, 12).astype(np.float64))
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.05)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    out = []
    for _ in range(steps):
        m.train()
        for mod in m.modules():
            if isinstance(mod, torch.nn.Dropout):
                mod.eval()
        for k in range(0, 12, 6):
            opt.zero_grad()
            loss = loss_fn(m(cat[k:k + 6], cont[k:k + 6]), y[k:k + 6])
            loss.backward()
            opt.step()
            out.append(loss.item())
    out += [m.training, m.emb_drop.training, m.layers[3].training]
    m.eval()
    with torch.no_grad():
        p = torch.sigmoid(m(cat, cont))
        out += p.tolist() + ((p > 0.5).float() == y).float().mean().reshape(1).tolist()
    out += m.bn_cont.running_mean.tolist() + m.bn_cont.running_var.tolist()
    out += m.layers[2].running_var.tolist() + [int(m.layers[2].num_batches_tracked)]
    return out


# --- 5. a pre-norm Transformer encoder: TransformerEncoderLayer(norm_first=True,
# activation='gelu', batch_first=True), a final LayerNorm, a boolean src_key_padding_mask,
# a learned positional Parameter, masked mean pooling; then eval under no_grad --------------

def _encoder(t):
    n = t.nn

    class Enc(n.Module):
        def __init__(s):
            super().__init__()
            s.emb = n.Embedding(13, 8, padding_idx=0)
            s.pos = n.Parameter(t.randn(1, 6, 8) * 0.1)
            layer = n.TransformerEncoderLayer(8, 2, dim_feedforward=12, dropout=0.0,
                                              activation="gelu", batch_first=True,
                                              norm_first=True)
            s.enc = n.TransformerEncoder(layer, 2, norm=n.LayerNorm(8),
                                         enable_nested_tensor=False)
            s.head = n.Linear(8, 3)

        def forward(s, ids):
            pad = ids == 0
            h = s.enc(s.emb(ids) + s.pos[:, :ids.shape[1]], src_key_padding_mask=pad)
            keep = (~pad).unsqueeze(-1).to(h.dtype)
            return s.head((h * keep).sum(1) / keep.sum(1)), h

    return Enc()


def encoder(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _encoder)
    rng = _rng(404)
    ids = rng.integers(1, 13, (4, 6))
    for i, n in enumerate((6, 3, 5, 2)):
        ids[i, n:] = 0
    ids = _data(torch, ids)
    y = _data(torch, rng.integers(0, 3, 4))
    opt = torch.optim.Adam(m.parameters(), lr=3e-3, betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 2))
    out = []
    for _ in range(steps):
        opt.zero_grad()
        logits, h = m(ids)
        loss = F.cross_entropy(logits, y, label_smoothing=0.1)
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), h[1, 3:].abs().sum().item()]
    m.eval()
    with torch.no_grad():
        logits, h = m(ids)
        out += logits.flatten().tolist() + h[:, 0].flatten().tolist()
    out += [m.enc.layers[0].norm_first, m.enc.layers[1].activation_relu_or_gelu]
    return out


# --- 6. a Siamese network: one shared encoder on anchors, positives and negatives;
# TripletMarginLoss(swap=True, p=1), CosineEmbeddingLoss(margin) on labelled pairs (+1/-1),
# MarginRankingLoss on distances, pairwise_distance and cosine_similarity; SGD(nesterov) -----

def siamese(torch, steps):
    F = torch.nn.functional
    enc = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(5, 6), t.nn.Tanh(),
                                                 t.nn.Linear(6, 3)))
    rng = _rng(405)
    a = _data(torch, rng.standard_normal((6, 5)))
    p = a + _data(torch, 0.3 * rng.standard_normal((6, 5)))
    n = _data(torch, rng.standard_normal((6, 5)))
    pair_y = _data(torch, np.array([1, -1, 1, -1, -1, 1]))
    trip = torch.nn.TripletMarginLoss(margin=0.5, p=1, swap=True)
    cos = torch.nn.CosineEmbeddingLoss(margin=0.1)
    rank = torch.nn.MarginRankingLoss(margin=0.2, reduction="sum")
    opt = torch.optim.SGD(enc.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        ea, ep, en = enc(a), enc(p), enc(n)
        other = torch.where(pair_y.unsqueeze(1) > 0, ep, en)
        dp, dn = F.pairwise_distance(ea, ep), F.pairwise_distance(ea, en, p=1.5, eps=1e-4)
        l1 = trip(ea, ep, en)
        l2 = cos(ea, other, pair_y)
        l3 = rank(dn, dp, torch.ones_like(dp))
        loss = l1 + l2 + 0.1 * l3
        loss.backward()
        opt.step()
        out += [loss.item(), l1.item(), l2.item(), l3.item()]
    with torch.no_grad():
        ea, ep, en = enc(a), enc(p), enc(n)
        out += F.cosine_similarity(ea, ep, dim=1).tolist()
        out += F.triplet_margin_loss(ea, ep, en, reduction="none").tolist()
        out += F.cosine_embedding_loss(ea, en, pair_y, reduction="none").tolist()
        out += F.margin_ranking_loss(ea[:, 0], en[:, 0], pair_y, reduction="none").tolist()
    return out


# --- 7. autoencoders: a 1-d one (strided Conv1d down, ConvTranspose1d(output_padding) and
# Upsample(linear / nearest) up) and a 2-d one with PixelShuffle/PixelUnshuffle (sub-pixel
# convolution), an L1 + MSE reconstruction loss, Adam with amsgrad --------------------------

def _ae(t):
    n = t.nn

    class AE(n.Module):
        def __init__(s):
            super().__init__()
            s.enc1 = n.Sequential(n.Conv1d(2, 4, 4, stride=2, padding=1), n.ELU(),
                                  n.Conv1d(4, 6, 3, stride=2, padding=1), n.ELU())
            s.dec1 = n.Sequential(n.ConvTranspose1d(6, 4, 3, stride=2, padding=1,
                                                    output_padding=1), n.ELU(),
                                  n.Upsample(scale_factor=2, mode="linear", align_corners=False),
                                  n.Conv1d(4, 2, 3, padding=1))
            s.up_nn = n.Upsample(scale_factor=4, mode="nearest")
            s.enc2 = n.Sequential(n.PixelUnshuffle(2), n.Conv2d(4, 6, 3, padding=1), n.SiLU())
            s.dec2 = n.Sequential(n.Conv2d(6, 8, 3, padding=1), n.PixelShuffle(2),
                                  n.Conv2d(2, 1, 1))

    return AE()


def autoencoder1d2d(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _ae)
    rng = _rng(406)
    x1 = _data(torch, rng.standard_normal((3, 2, 12)))
    x2 = _data(torch, rng.standard_normal((2, 1, 6, 8)))
    opt = torch.optim.Adam(m.parameters(), lr=5e-3, amsgrad=True)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        z1 = m.enc1(x1)
        r1 = m.dec1(z1)
        z2 = m.enc2(x2)
        r2 = m.dec2(z2)
        coarse = m.up_nn(z1[:, :2])
        loss = F.mse_loss(r1, x1) + F.l1_loss(r2, x2) + 0.01 * coarse.pow(2).mean()
        loss.backward()
        opt.step()
        out += [loss.item()]
    out += list(z1.shape) + list(r1.shape) + list(z2.shape) + list(r2.shape) + list(coarse.shape)
    with torch.no_grad():
        out += m.dec1(m.enc1(x1))[0].flatten().tolist() + m.dec2(m.enc2(x2))[1, 0, 2].tolist()
    return out


# --- 8. Gaussian-process regression: an RBF kernel from cdist, learnable log hyperparameters
# (nn.Parameter), linalg.cholesky, cholesky_solve, logdet against 2 sum log diag L, the exact
# marginal likelihood minimised by Adam, then the posterior mean and variance ---------------

def _gp(t):
    class GP(t.nn.Module):
        def __init__(s):
            super().__init__()
            s.log_ls = t.nn.Parameter(t.tensor(0.0))
            s.log_sf = t.nn.Parameter(t.tensor(0.0))
            s.log_sn = t.nn.Parameter(t.tensor(-1.0))

        def kernel(s, a, b):
            d = t.cdist(a / s.log_ls.exp(), b / s.log_ls.exp())
            return s.log_sf.exp().pow(2) * t.exp(-0.5 * d.pow(2))

    return GP()


def gp(torch, steps):
    m = _init(torch, _gp)
    rng = _rng(407)
    xs = rng.uniform(-3, 3, (9, 2))
    x = _data(torch, xs)
    y = _data(torch, np.sin(xs[:, :1]) + 0.5 * xs[:, 1:] + 0.1 * rng.standard_normal((9, 1)))
    xq = _data(torch, rng.uniform(-3, 3, (4, 2)))
    opt = torch.optim.Adam(m.parameters(), lr=0.05)
    n = x.shape[0]
    out = []
    for _ in range(steps):
        opt.zero_grad()
        K = m.kernel(x, x) + m.log_sn.exp().pow(2) * torch.eye(n)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y, L)
        nll = 0.5 * (y * alpha).sum() + 0.5 * torch.logdet(K) + 0.5 * n * math.log(2 * math.pi)
        nll.backward()
        opt.step()
        out += [nll.item(), (2 * L.diagonal().log().sum() - torch.logdet(K)).abs().item() < 1e-10]
    out += [p.item() for p in m.parameters()]
    with torch.no_grad():
        K = m.kernel(x, x) + m.log_sn.exp().pow(2) * torch.eye(n)
        L = torch.linalg.cholesky(K)
        Ks = m.kernel(xq, x)
        mean = Ks @ torch.cholesky_solve(y, L)
        v = torch.linalg.solve_triangular(L, Ks.T, upper=False)
        var = m.log_sf.exp().pow(2) - v.pow(2).sum(0)
        out += mean.flatten().tolist() + var.tolist()
        out += torch.cholesky_solve(y, L.T, upper=True).flatten().tolist()
    return out


# --- 9. a Neural ODE: dy/dt = f(t, y) by an MLP fed the time, integrated by a hand-written
# fixed-step RK4 loop (backpropagation through the solver), fitted to a spiral trajectory;
# Adamax ------------------------------------------------------------------------------------

def _odefunc(t):
    class ODEFunc(t.nn.Module):
        def __init__(s):
            super().__init__()
            s.net = t.nn.Sequential(t.nn.Linear(3, 8), t.nn.Tanh(), t.nn.Linear(8, 2))

        def forward(s, tt, y):
            return s.net(t.cat([y, tt.expand(y.shape[0], 1)], dim=1))

    return ODEFunc()


def neural_ode(torch, steps):
    f = _init(torch, _odefunc)
    ts = torch.linspace(0.0, 2.0, 9)
    true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
    y0 = torch.tensor([[2.0, 0.0], [1.0, 1.0]])

    def rk4(func, y0, ts):
        ys = [y0]
        y = y0
        for t0, t1 in zip(ts[:-1], ts[1:]):
            h = t1 - t0
            k1 = func(t0, y)
            k2 = func(t0 + h / 2, y + h / 2 * k1)
            k3 = func(t0 + h / 2, y + h / 2 * k2)
            k4 = func(t1, y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            ys.append(y)
        return torch.stack(ys)

    with torch.no_grad():
        true_y = rk4(lambda tt, y: (y ** 3) @ true_A * 0.1, y0, ts)
    opt = torch.optim.Adamax(f.parameters(), lr=2e-2)
    out = [list(true_y.shape)]
    for _ in range(steps):
        opt.zero_grad()
        pred = rk4(f, y0, ts)
        loss = (pred - true_y).abs().mean()
        loss.backward()
        opt.step()
        out += [loss.item()]
    out += pred[-1].flatten().tolist() + true_y[-1].flatten().tolist()
    return out


# --- 10. a mixture-density network: logits, means and softplus scales of K components from one
# head (chunk), MixtureSameFamily(Categorical(logits), Normal(loc, scale)), the negative
# log-likelihood, the mixture's mean, variance and cdf -------------------------------------

def mdn(torch, steps):
    F = torch.nn.functional
    D = torch.distributions
    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(1, 10), t.nn.Tanh(),
                                               t.nn.Linear(10, 9)))
    rng = _rng(408)
    xs = rng.uniform(-1, 1, (16, 1))
    x = _data(torch, xs)
    y = _data(torch, (np.sin(3 * xs) + np.where(xs > 0, 1.0, -1.0) * 0.5
                      + 0.1 * rng.standard_normal((16, 1)))[:, 0])
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        logits, loc, raw = m(x).chunk(3, dim=-1)
        mix = D.MixtureSameFamily(D.Categorical(logits=logits),
                                  D.Normal(loc, F.softplus(raw) + 1e-3))
        loss = -mix.log_prob(y).mean()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += list(mix.batch_shape) + list(mix.event_shape)
    out += mix.mean[:4].tolist() + mix.variance[:4].tolist() + mix.cdf(y)[:4].tolist()
    out += mix.mixture_distribution.probs[0].tolist()
    out += mix.component_distribution.scale[0].tolist()
    return out


# --- 11. count and heteroscedastic regressors: PoissonNLLLoss(log_input=True) on a log-rate,
# PoissonNLLLoss(log_input=False, full=True) on a softplus rate, GaussianNLLLoss(full=True) with
# a predicted variance (per sample, broadcast over the target's last dim), Rprop ----------

def count_regression(torch, steps):
    F = torch.nn.functional
    m = _init(torch, lambda t: t.nn.Linear(3, 4))
    rng = _rng(409)
    x = _data(torch, rng.standard_normal((10, 3)))
    counts = _data(torch, rng.poisson(3.0, (10,)).astype(np.float64))
    target = _data(torch, rng.standard_normal((10, 2)))
    pois = torch.nn.PoissonNLLLoss()
    pois_full = torch.nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-6, reduction="sum")
    gauss = torch.nn.GaussianNLLLoss(full=True)
    opt = torch.optim.Rprop(m.parameters(), lr=0.02, etas=(0.4, 1.3), step_sizes=(1e-5, 1.0))
    out = []
    for _ in range(steps):
        opt.zero_grad()
        h = m(x)
        l1 = pois(h[:, 0], counts)
        l2 = pois_full(F.softplus(h[:, 1]), counts)
        var = F.softplus(h[:, 3:4]) + 1e-3
        l3 = gauss(h[:, 1:3], target, var)
        loss = l1 + 0.1 * l2 + l3
        loss.backward()
        opt.step()
        out += [loss.item(), l1.item(), l2.item(), l3.item()]
    with torch.no_grad():
        h = m(x)
        out += F.poisson_nll_loss(h[:, 0], counts, reduction="none").tolist()
        out += F.gaussian_nll_loss(h[:, 1:3], target, var.squeeze(1), reduction="none",
                                   eps=1e-2).flatten().tolist()
    out += opt.state[m.weight]["step_size"].flatten().tolist()
    return out


# --- 12. the less common optimizers with param_groups edits: Adagrad(lr_decay), Adadelta(rho),
# Adamax, NAdam(momentum_decay), RAdam(decoupled_weight_decay), ASGD(t0, lambd), Rprop; two
# groups with their own options, an lr change through param_groups[0]['lr'] mid-training, a
# head added by add_param_group later, the state each keeps ------------------------------------

def _opt_net(t):
    return t.nn.ModuleDict({"body": t.nn.Linear(4, 5), "mid": t.nn.Linear(5, 5),
                            "head": t.nn.Linear(5, 2)})


_OPTS = [
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.01), dict(lr=0.05)),
    ("Adadelta", dict(lr=1.0, rho=0.8), dict(lr=0.5, weight_decay=0.1)),
    ("Adamax", dict(lr=0.02, betas=(0.8, 0.99)), dict(lr=0.01)),
    ("NAdam", dict(lr=0.02, momentum_decay=0.005), dict(lr=0.01, weight_decay=0.01)),
    ("RAdam", dict(lr=0.02, decoupled_weight_decay=True, weight_decay=0.1), dict(lr=0.01)),
    ("ASGD", dict(lr=0.05, t0=2, lambd=1e-3, alpha=0.5), dict(lr=0.02)),
    ("Rprop", dict(lr=0.01), dict(lr=0.02, etas=(0.3, 1.5))),
]


def optimizer_groups(torch, steps):
    F = torch.nn.functional
    rng = _rng(410)
    x = _data(torch, rng.standard_normal((8, 4)))
    y = _data(torch, rng.standard_normal((8, 2)))
    out = []
    for i, (name, kw_body, kw_mid) in enumerate(_OPTS):
        m = _init(torch, _opt_net, seed=i)
        opt = getattr(torch.optim, name)([{"params": m["body"].parameters()},
                                          {"params": m["mid"].parameters(), **kw_mid}], **kw_body)
        for s in range(steps):
            if s == steps // 2:
                opt.param_groups[0]["lr"] = opt.param_groups[0]["lr"] * 0.5
                opt.add_param_group({"params": m["head"].parameters(), "lr": 0.03})
            opt.zero_grad()
            h = torch.tanh(m["mid"](torch.relu(m["body"](x))))
            loss = F.mse_loss(m["head"](h), y)
            loss.backward()
            opt.step()
            out.append(loss.item())
        out += [len(opt.param_groups), [g["lr"] for g in opt.param_groups]]
        st_ = opt.state[m["body"].weight]
        out.append(sorted(st_))
        for k in sorted(st_):
            v = st_[k]
            out += v.flatten().tolist() if hasattr(v, "flatten") else [float(v)]
        out += m["head"].bias.tolist()
    return out


# --- 13. a Fourier neural operator layer: rfft2 of the input, complex weights stored as real
# (..., 2) Parameters read through view_as_complex, einsum over the kept low modes written into
# a complex zeros array (both frequency corners), irfft2 back with s=, plus a 1x1 convolution;
# trained with Adam ---------------------------------------------------------------------------

def _fno(t):
    class SpectralConv2d(t.nn.Module):
        def __init__(s, cin, cout, m1, m2):
            super().__init__()
            s.cout, s.m1, s.m2 = cout, m1, m2
            scale = 1 / (cin * cout)
            s.w1 = t.nn.Parameter(scale * t.rand(cin, cout, m1, m2, 2))
            s.w2 = t.nn.Parameter(scale * t.rand(cin, cout, m1, m2, 2))

        def forward(s, x):
            B, H, W = x.shape[0], x.shape[-2], x.shape[-1]
            x_ft = t.fft.rfft2(x)
            out_ft = t.zeros(B, s.cout, H, W // 2 + 1, dtype=x_ft.dtype)
            w1, w2 = t.view_as_complex(s.w1), t.view_as_complex(s.w2)
            out_ft[:, :, :s.m1, :s.m2] = t.einsum("bixy,ioxy->boxy",
                                                  x_ft[:, :, :s.m1, :s.m2], w1)
            out_ft[:, :, -s.m1:, :s.m2] = t.einsum("bixy,ioxy->boxy",
                                                   x_ft[:, :, -s.m1:, :s.m2], w2)
            return t.fft.irfft2(out_ft, s=(H, W))

    class FNO(t.nn.Module):
        def __init__(s):
            super().__init__()
            s.lift = t.nn.Conv2d(1, 3, 1)
            s.spec = SpectralConv2d(3, 3, 2, 3)
            s.w = t.nn.Conv2d(3, 3, 1)
            s.proj = t.nn.Conv2d(3, 1, 1)

        def forward(s, x):
            h = s.lift(x)
            h = t.nn.functional.gelu(s.spec(h) + s.w(h))
            return s.proj(h)

    return FNO()


def fno(torch, steps):
    m = _init(torch, _fno)
    rng = _rng(411)
    x = _data(torch, rng.standard_normal((2, 1, 8, 6)))
    # (the target: a smoothed input, circular averaging of neighbours)
    y = (x + x.roll(1, -1) + x.roll(-1, -2)) / 3
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        pred = m(x)
        loss = (pred - y).pow(2).mean() / y.pow(2).mean()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += list(pred.shape) + [str(pred.dtype)[-7:]]
    out += m.spec.w1.grad.flatten()[:6].tolist() + m.spec.w2.grad.flatten()[-6:].tolist()
    spec = torch.fft.rfft2(x)
    out += [str(spec.dtype)[-10:], list(spec.shape)] + spec.abs().flatten()[:8].tolist()
    return out


# --- 14. a model ensemble trained with torch.func: stack_module_state, functional_call under
# vmap with in_dims=(0, 0, 0) (each model its own minibatch), the stacked parameters as leaves
# optimized by SGD, then vmap with in_dims=(0, 0, None) and the ensemble mean ----------------

def ensemble(torch, steps):
    F = torch.nn.functional
    fn = torch.func
    models = [_init(torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(),
                                                     t.nn.Linear(4, 2)), seed=s)
              for s in range(4)]
    params, buffers = fn.stack_module_state(models)
    base = models[0]
    rng = _rng(412)
    xb = _data(torch, rng.standard_normal((4, 5, 3)))
    yb = _data(torch, rng.integers(0, 2, (4, 5)))

    def fmodel(p, b, x):
        return fn.functional_call(base, (p, b), (x,))

    opt = torch.optim.SGD(list(params.values()), lr=0.2)
    out = [sorted(params), list(params["0.weight"].shape), params["0.weight"].is_leaf]
    for _ in range(steps):
        opt.zero_grad()
        logits = fn.vmap(fmodel, in_dims=(0, 0, 0))(params, buffers, xb)
        losses = fn.vmap(F.cross_entropy)(logits, yb)
        losses.sum().backward()
        opt.step()
        out += losses.tolist()
    with torch.no_grad():
        preds = fn.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, xb[0])
        out += list(preds.shape) + preds.mean(0).flatten().tolist()
        out += preds.softmax(-1).argmax(-1).flatten().tolist()
    return out


# --- 15. weight_norm and spectral_norm parametrizations in training (a WGAN-style critic
# with spectral_norm on a Conv1d and a Linear, power iteration buffers updated in train mode and
# frozen in eval), a weight_norm generator, and a gradient penalty through
# autograd.grad(create_graph=True) on interpolates; Adam(betas=(0.0, 0.9)) -------------------

def _critic(t):
    P = t.nn.utils.parametrizations
    return t.nn.Sequential(P.spectral_norm(t.nn.Conv1d(1, 3, 3, padding=1)), t.nn.LeakyReLU(0.2),
                           t.nn.Flatten(),
                           P.spectral_norm(t.nn.Linear(18, 1), n_power_iterations=2))


def _gen(t):
    P = t.nn.utils.parametrizations
    return t.nn.Sequential(P.weight_norm(t.nn.Linear(2, 8), dim=0), t.nn.Softplus(),
                           P.weight_norm(t.nn.Linear(8, 6), dim=None))


def wgan_sn(torch, steps):
    C = _init(torch, _critic)
    G = _init(torch, _gen, seed=1)
    rng = _rng(413)
    real = _data(torch, np.sin(np.linspace(0, 3, 6))[None, None]
                 + 0.1 * rng.standard_normal((4, 1, 6)))
    z = _data(torch, rng.standard_normal((steps, 4, 2)))
    eps = _data(torch, rng.random((steps, 4, 1, 1)))
    oc = torch.optim.Adam(C.parameters(), lr=1e-3, betas=(0.0, 0.9))
    og = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.9))
    out = [sorted(k for k, _ in C.named_parameters()), sorted(k for k, _ in C.named_buffers())]
    for s in range(steps):
        fake = G(z[s]).unsqueeze(1)
        oc.zero_grad()
        xi = (eps[s] * real + (1 - eps[s]) * fake.detach()).requires_grad_(True)
        g, = torch.autograd.grad(C(xi).sum(), xi, create_graph=True)
        gp = ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()
        lc = C(fake.detach()).mean() - C(real).mean() + 10 * gp
        lc.backward()
        oc.step()
        og.zero_grad()
        lg = -C(G(z[s]).unsqueeze(1)).mean()
        lg.backward()
        og.step()
        out += [lc.item(), gp.item(), lg.item()]
    sn = C[0].parametrizations.weight[0]
    out += sn._u.tolist() + sn._v.tolist()
    C.eval()
    with torch.no_grad():
        w1 = C[3].weight.clone()
        w2 = C[3].weight
        out += [torch.equal(w1, w2), torch.linalg.matrix_norm(C[3].weight, ord=2).item()]
        out += C(real).flatten().tolist()
        out += G[0].weight.norm(dim=1).tolist()
        out += G[0].parametrizations.weight.original0.flatten().tolist()
    return out


# --- 16. "NLP from scratch: classifying names with a character-level RNN": one-hot letters
# written by chained indexing, a hand-written RNN cell (Linear over cat(input, hidden)),
# LogSoftmax + NLLLoss, the update by p.data.add_(p.grad.data, alpha=-lr), topk of the output -

_LETTERS = "abcdefghij"


def _char_rnn(t):
    class RNN(t.nn.Module):
        def __init__(s, input_size, hidden_size, output_size):
            super().__init__()
            s.hidden_size = hidden_size
            s.i2h = t.nn.Linear(input_size + hidden_size, hidden_size)
            s.h2o = t.nn.Linear(input_size + hidden_size, output_size)
            s.softmax = t.nn.LogSoftmax(dim=1)

        def forward(s, input, hidden):
            combined = t.cat((input, hidden), 1)
            hidden = t.tanh(s.i2h(combined))
            output = s.softmax(s.h2o(combined))
            return output, hidden

        def initHidden(s):
            return t.zeros(1, s.hidden_size)

    return RNN(len(_LETTERS), 6, 3)


def char_rnn_names(torch, steps):
    rnn = _init(torch, _char_rnn)
    names = [("abba", 0), ("jig", 1), ("hhefc", 2), ("baj", 0), ("cide", 2)]

    def lineToTensor(line):
        tensor = torch.zeros(len(line), 1, len(_LETTERS))
        for li, letter in enumerate(line):
            tensor[li][0][_LETTERS.find(letter)] = 1
        return tensor

    criterion = torch.nn.NLLLoss()
    learning_rate = 0.05
    out = []
    for _ in range(steps):
        for name, cat in names:
            category_tensor = torch.tensor([cat], dtype=torch.long)
            line_tensor = lineToTensor(name)
            hidden = rnn.initHidden()
            rnn.zero_grad()
            for i in range(line_tensor.size()[0]):
                output, hidden = rnn(line_tensor[i], hidden)
            loss = criterion(output, category_tensor)
            loss.backward()
            for p in rnn.parameters():
                p.data.add_(p.grad.data, alpha=-learning_rate)
            out.append(loss.item())
    with torch.no_grad():
        for name, _ in names:
            hidden = rnn.initHidden()
            line_tensor = lineToTensor(name)
            for i in range(line_tensor.size()[0]):
                output, hidden = rnn(line_tensor[i], hidden)
            topv, topi = output.topk(2, 1, True)
            out += topv[0].tolist() + topi[0].tolist() + [line_tensor.sum().item()]
    return out


# --- 17. fine-tuning as the transfer-learning tutorial: a "pretrained" body frozen with
# requires_grad = False, a new head, optimizer over the head only, StepLR, the best weights kept
# by copy.deepcopy(model.state_dict()) and loaded back, accuracy by .type(torch.float); then
# l1_unstructured pruning (the mask buffer, weight_orig) and prune.remove -------------------

def finetune(torch, steps):
    import copy
    from importlib import import_module

    F = torch.nn.functional
    prune = import_module(torch.__name__ + ".nn.utils.prune")
    model = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(5, 6), t.nn.ReLU(),
                                                   t.nn.Linear(6, 4)))
    for param in model.parameters():
        param.requires_grad = False
    head = _init(torch, lambda t: t.nn.Linear(6, 3), seed=1)
    model[2] = head
    rng = _rng(414)
    phases = {"train": (_data(torch, rng.standard_normal((10, 5))),
                        _data(torch, rng.integers(0, 3, 10))),
              "val": (_data(torch, rng.standard_normal((6, 5))),
                      _data(torch, rng.integers(0, 3, 6)))}
    opt = torch.optim.SGD(model[2].parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    best_wts = copy.deepcopy(model.state_dict())
    best_loss = float("inf")
    out = [sum(p.numel() for p in model.parameters() if p.requires_grad)]
    for _ in range(steps):
        for phase in ("train", "val"):
            model.train() if phase == "train" else model.eval()
            inputs, labels = phases[phase]
            opt.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                outputs = model(inputs)
                _, preds = torch.max(outputs, 1)
                loss = F.cross_entropy(outputs, labels)
                if phase == "train":
                    loss.backward()
                    opt.step()
            acc = (preds == labels.data).type(torch.float).sum().item() / len(labels)
            if phase == "train":
                sched.step()
            if phase == "val" and loss.item() < best_loss:
                best_loss = loss.item()
                best_wts = copy.deepcopy(model.state_dict())
            out += [loss.item(), acc, loss.requires_grad]
        out.append(sched.get_last_lr()[0])
    out.append(model[0].weight.grad is None)
    model.load_state_dict(best_wts)
    out += model[2].weight.flatten().tolist() + [best_loss]
    prune.l1_unstructured(model[2], name="weight", amount=0.4)
    out += [sorted(k for k, _ in model[2].named_buffers()),
            sorted(k for k, _ in model[2].named_parameters())]
    out += model[2].weight_mask.flatten().tolist() + [prune.is_pruned(model)]
    with torch.no_grad():
        out += model(phases["val"][0]).flatten().tolist()
    prune.remove(model[2], "weight")
    out += [sorted(k for k, _ in model[2].named_parameters()),
            int((model[2].weight == 0).sum())]
    return out


# --- 18. adversarial examples (the FGSM tutorial): gradients with respect to the input,
# data.grad.data.sign(), a perturbed image clamped to [0, 1], predictions by max(1,
# keepdim=True)[1], accuracy for several epsilons; then a few steps of adversarial training --

def fgsm(torch, steps):
    F = torch.nn.functional
    model = _init(torch, lambda t: t.nn.Sequential(t.nn.Conv2d(1, 3, 3), t.nn.ReLU(),
                                                   t.nn.Flatten(), t.nn.Linear(48, 4),
                                                   t.nn.LogSoftmax(dim=1)))
    rng = _rng(415)
    images = _data(torch, rng.random((6, 1, 6, 6)))
    target = _data(torch, rng.integers(0, 4, 6))

    def fgsm_attack(image, epsilon, data_grad):
        sign_data_grad = data_grad.sign()
        perturbed_image = image + epsilon * sign_data_grad
        return torch.clamp(perturbed_image, 0, 1)

    out = []
    model.eval()
    for epsilon in (0.0, 0.05, 0.3):
        data = images.clone()
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        loss = F.nll_loss(output, target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        perturbed = fgsm_attack(data, epsilon, data_grad)
        output = model(perturbed)
        final_pred = output.max(1, keepdim=True)[1]
        correct = (final_pred.squeeze(1) == target).sum().item()
        out += [loss.item(), correct, init_pred.flatten().tolist(), perturbed.requires_grad,
                perturbed.sum().item(), data_grad.abs().sum().item()]
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        x = images.clone().requires_grad_(True)
        l = F.nll_loss(model(x), target)
        g, = torch.autograd.grad(l, x)
        x_adv = fgsm_attack(images, 0.1, g).detach()
        opt.zero_grad()
        loss = 0.5 * (F.nll_loss(model(images), target) + F.nll_loss(model(x_adv), target))
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


PROGRAMS = {
    "nn_really": (nn_really, 2, {}),
    "examples": (examples, 3, {}),
    "forecaster": (forecaster, 2, {}),
    "tabular": (tabular, 3, {}),
    "encoder": (encoder, 3, {}),
    "siamese": (siamese, 4, {}),
    "autoencoder1d2d": (autoencoder1d2d, 4, {}),
    "gp": (gp, 4, {}),
    "neural_ode": (neural_ode, 3, {}),
    "mdn": (mdn, 4, {}),
    "count_regression": (count_regression, 4, {}),
    "optimizer_groups": (optimizer_groups, 4, {}),
    "fno": (fno, 4, {}),
    "ensemble": (ensemble, 3, {}),
    "wgan_sn": (wgan_sn, 3, {}),
    "char_rnn_names": (char_rnn_names, 2, {}),
    "finetune": (finetune, 4, {}),
    "fgsm": (fgsm, 3, {}),
}


def _compare(ref, got, rtol=1e-11, atol=1e-13):
    assert len(ref) == len(got), (len(ref), len(got))
    for i, (r, g) in enumerate(zip(ref, got)):
        assert type(r) is type(g), (i, r, g)
        if not isinstance(r, float):
            assert r == g, (i, r, g)
            continue
        np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, equal_nan=False,
                                   err_msg=f"entry {i}")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_pytorch(name):
    program, steps, tol = PROGRAMS[name]
    ref = program(torch, steps)
    got = program(st, steps)
    _compare(ref, got, **tol)


def _T(lib, a, grad=False):
    """A NumPy array as an array of ``lib`` (its dtype kept), optionally requiring grad."""
    t = lib.tensor(np.asarray(a).copy())
    return t.requires_grad_() if grad else t


# --- focused: MixtureSameFamily (the mdn program): log_prob, cdf, mean, variance and their
# gradients, with scalar and vector events, a shared or per-batch mixing distribution ------

_MSF_CASES = [
    # (batch shape of the mixing logits, component batch shape, event: 0 = Normal, 1 = Independent)
    ((), (5, 3), 0),
    ((5,), (5, 3), 0),
    ((2, 4), (2, 4, 3), 0),
    ((), (4, 3), 1),
    ((4,), (4, 3), 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mix_shape,comp_shape,event", _MSF_CASES)
def test_mixture_same_family_matches_pytorch(dtype, mix_shape, comp_shape, event):
    rng = _rng(500)
    k = comp_shape[-1]
    ev = (2,) if event else ()
    logits0 = rng.standard_normal(mix_shape + (k,)).astype(dtype)
    loc0 = rng.standard_normal(comp_shape + ev).astype(dtype)
    scale0 = rng.uniform(0.5, 1.5, comp_shape + ev).astype(dtype)
    x0 = rng.standard_normal((2,) + comp_shape[:-1] + ev).astype(dtype)
    res = []
    for lib in LIBS:
        D = lib.distributions
        logits, loc, scale = (_T(lib, a, grad=True) for a in (logits0, loc0, scale0))
        comp = D.Normal(loc, scale)
        if event:
            comp = D.Independent(comp, 1)
        mix = D.MixtureSameFamily(D.Categorical(logits=logits), comp)
        x = _T(lib, x0)
        lp = mix.log_prob(x)
        vals = [lp, mix.mean, mix.variance]
        if not event:
            vals.append(mix.cdf(x))
        total = sum((v * (i + 1)).sum() for i, v in enumerate(vals))
        total.backward()
        ex = mix.expand((3,) + tuple(mix.batch_shape))
        res.append([tuple(mix.batch_shape), tuple(mix.event_shape), tuple(ex.batch_shape),
                    tuple(ex.log_prob(x[0]).shape), mix.has_rsample,
                    type(mix.support).__name__, mix.support.event_dim]
                   + [to_numpy(v) for v in vals + [ex.mean]]
                   + [to_numpy(a.grad) for a in (logits, loc, scale)])
    n = 7
    assert res[0][:n] == res[1][:n]
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    for r, g in zip(res[0][n:], res[1][n:]):
        assert r.shape == g.shape and r.dtype == g.dtype
        np.testing.assert_allclose(g, r, **tol)


def test_mixture_same_family_samples():
    # (strided's random numbers, not PyTorch's: the sample shapes, no gradient, and the
    # moments of many draws against the mixture's exact mean and variance)
    st.manual_seed(3)
    D = st.distributions
    mix = D.MixtureSameFamily(D.Categorical(probs=st.tensor([[0.2, 0.8], [0.6, 0.4]])),
                              D.Normal(st.tensor([[-2.0, 1.0], [0.0, 3.0]]),
                                       st.tensor([[0.5, 1.0], [1.0, 0.2]])))
    s = mix.sample((40000,))
    assert tuple(s.shape) == (40000, 2) and not s.requires_grad
    m, v = to_numpy(mix.mean), to_numpy(mix.variance)
    np.testing.assert_allclose(m, [0.4, 1.2])
    np.testing.assert_allclose(to_numpy(s.mean(0)), m, atol=4 * np.sqrt(v.max() / 40000))
    np.testing.assert_allclose(to_numpy(s.var(0)), v, rtol=0.05)
    vec = D.MixtureSameFamily(D.Categorical(logits=st.zeros(3)),
                              D.Independent(D.Normal(st.zeros(3, 2), st.ones(3, 2)), 1))
    assert tuple(vec.sample((5, 4)).shape) == (5, 4, 2)
    assert tuple(vec.sample().shape) == (2,)


def test_mixture_same_family_errors_as_pytorch():
    for lib in LIBS:
        D = lib.distributions
        normal = D.Normal(lib.zeros(4, 3), lib.ones(4, 3))
        with pytest.raises(ValueError, match="needs to be an  instance of "
                                             "torch.distributions.Categorical"):
            D.MixtureSameFamily(normal, normal)
        with pytest.raises(ValueError, match="needs to be an instance of "
                                             "torch.distributions.Distribution"):
            D.MixtureSameFamily(D.Categorical(logits=lib.zeros(3)), lib.zeros(3))
        with pytest.raises(ValueError, match=r"does not equal `component_distribution"
                                             r".batch_shape\[-1\]` \(3\)"):
            D.MixtureSameFamily(D.Categorical(logits=lib.zeros(2)), normal)
        with pytest.raises(ValueError, match="is not compatible with `component_distribution"):
            D.MixtureSameFamily(D.Categorical(logits=lib.zeros(5, 3)), normal)
        mix = D.MixtureSameFamily(D.Categorical(logits=lib.zeros(3)), normal,
                                  validate_args=True)
        with pytest.raises(ValueError, match="Expected value argument"):
            mix.log_prob(lib.tensor([1.0, float("nan"), 0.0, 0.0]))


# --- focused: Adagrad's state (the optimizer_groups program): a group added by
# add_param_group gets its state at its first step, every sum starts at the constructor's
# initial_accumulator_value (a group's own is not read, as PyTorch), complex parameters are
# updated as pairs of reals -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("kw", [dict(initial_accumulator_value=0.2),
                                dict(initial_accumulator_value=0.0, lr_decay=0.1,
                                     weight_decay=0.05, maximize=True)])
def test_adagrad_state_and_added_groups_as_pytorch(dtype, kw):
    rng = _rng(501)
    w0 = rng.standard_normal((2, 3)) + (1j * rng.standard_normal((2, 3)) if "complex" in dtype
                                        else 0)
    v0 = rng.standard_normal(3)
    u0 = rng.standard_normal(2)
    res = []
    for lib in LIBS:
        w, v, u = (lib.nn.Parameter(_T(lib, a)) for a in (w0.astype(dtype), v0, u0))
        opt = lib.optim.Adagrad([{"params": [w]}, {"params": [v],
                                                   "initial_accumulator_value": 5.0}], lr=0.1,
                                **kw)
        trace = []
        for s in range(4):
            if s == 2:
                opt.add_param_group({"params": [u], "initial_accumulator_value": 7.0})
                trace.append(len(opt.state))
            opt.zero_grad()
            loss = (w.abs() ** 2).sum() * v.sum() + (u ** 3).sum() * v[0]
            loss.backward()
            opt.step()
        trace += [opt.param_groups[1]["initial_accumulator_value"],
                  opt.param_groups[2]["initial_accumulator_value"], len(opt.state)]
        res.append((trace, [to_numpy(a.detach()) for a in (w, v, u)]
                    + [to_numpy(opt.state[a]["sum"]) for a in (w, v, u)]
                    + [to_numpy(opt.state[a]["step"]) for a in (w, u)]))
    assert res[0][0] == res[1][0]
    for r, g in zip(res[0][1], res[1][1]):
        assert r.dtype == g.dtype
        np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-14)
