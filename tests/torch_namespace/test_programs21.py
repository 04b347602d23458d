"""More whole PyTorch programs (after ``test_programs20.py``), run on real ``torch`` and on
``strided.torch``, giving the same numbers.

Each ``program(torch, steps)`` takes the torch module and returns the list of numbers it would
print (losses, accuracies, learning rates, shapes). As in ``test_programs20.py``: initial weights
come from real PyTorch under ``torch.manual_seed`` and are copied into the strided model with
``load_state_dict`` of NumPy arrays, and everything runs in float64. The strided side runs on
the namespace's default device (``cuda`` on the CuPy stand-in leg): the NumPy weights copied in
land on the model's device, and the data is made on it, as a CUDA user's ``.to(device)``.

Tolerances: rtol 1e-11 by default (a training step is a chain of reductions whose summation
order differs between the libraries; observed differences are below 1e-13). Where a program
needs more, its entry in ``PROGRAMS`` says why.

A bias followed by a BatchNorm is left out (bias=False, as DCGAN and ResNet do): its gradient
is zero up to rounding, and Adam or RMSprop scale that rounding noise up to lr-sized steps, so
the libraries' runs would part at 1e-10 after a few steps.

After the programs, focused tests of what the programs found: Adam on a 0-d parameter,
differentiable ``complex``/``polar``, ``interpolate(antialias=True)`` and ``lanczos``,
``grid_sample(mode='bicubic')``, mixed dtypes refused by ``linear``/``bilinear``/``nll_loss``,
``ParameterList``'s repr, creation functions without a size.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402
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


# --- 1. ResNet-style blocks: padding='same', groups, dilation, BatchNorm2d train then eval,
# in-place residual add, ReLU(inplace=True), AdaptiveAvgPool2d(1) ------------------------------

def _resnet(t):
    n = t.nn

    class Block(n.Module):
        def __init__(s, c, groups, dilation):
            super().__init__()
            s.c1 = n.Conv2d(c, c, 3, padding="same", groups=groups, dilation=dilation, bias=False)
            s.b1 = n.BatchNorm2d(c)
            s.relu = n.ReLU(inplace=True)
            s.c2 = n.Conv2d(c, c, (2, 3), padding="same", dilation=(1, 2), bias=False,
                            padding_mode="reflect")
            s.b2 = n.BatchNorm2d(c, momentum=0.2, eps=1e-3)

        def forward(s, x):
            h = s.relu(s.b1(s.c1(x)))
            h = s.b2(s.c2(h))
            h += x
            return s.relu(h)

    class Net(n.Module):
        def __init__(s):
            super().__init__()
            s.stem = n.Sequential(n.Conv2d(3, 4, 3, stride=2, padding=1, bias=False),
                                  n.BatchNorm2d(4), n.ReLU(inplace=True))
            s.blocks = n.Sequential(Block(4, 2, 2), Block(4, 4, 1))
            s.pool = n.AdaptiveAvgPool2d(1)
            s.fc = n.Linear(4, 3)

        def forward(s, x):
            return s.fc(t.flatten(s.pool(s.blocks(s.stem(x))), 1))

    return Net()


def resnet(torch, steps):
    F = torch.nn.functional
    model = _init(torch, _resnet)
    rng = _rng(100)
    x = _data(torch, rng.standard_normal((5, 3, 9, 8)))
    y = _data(torch, rng.integers(0, 3, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    out = []
    for _ in range(steps):
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        out += model(x).flatten().tolist()
        b = model.blocks[0]
        out += b.b1.running_mean.tolist() + b.b2.running_var.tolist()
        out.append(int(b.b2.num_batches_tracked))
    return out


# --- 2. U-Net-ish: reflect pad, max-pool down, ConvTranspose2d up, bilinear interpolate
# (align_corners=False), cat skip connections, per-pixel cross entropy plus a dice term ------

def _unet(t):
    n = t.nn
    F = t.nn.functional

    class UNet(n.Module):
        def __init__(s):
            super().__init__()
            s.d1 = n.Conv2d(1, 4, 3)
            s.d2 = n.Conv2d(4, 8, 3, padding=1)
            s.up = n.ConvTranspose2d(8, 4, 2, stride=2)
            s.u1 = n.Conv2d(8, 4, 3, padding=1, padding_mode="replicate")
            s.out = n.Conv2d(4, 2, 1)

        def forward(s, x):
            e1 = F.relu(s.d1(F.pad(x, (1, 1, 1, 1), mode="reflect")))
            e2 = F.relu(s.d2(F.max_pool2d(e1, 2)))
            u = s.up(e2) + F.interpolate(e2[:, :4], scale_factor=2, mode="bilinear",
                                         align_corners=False)
            h = F.relu(s.u1(t.cat([u, e1], dim=1)))
            return F.interpolate(s.out(h), size=(11, 10), mode="bilinear", align_corners=False)

    return UNet()


def unet(torch, steps):
    F = torch.nn.functional
    model = _init(torch, _unet)
    rng = _rng(101)
    x = _data(torch, rng.standard_normal((2, 1, 8, 8)))
    y = _data(torch, rng.integers(0, 2, (2, 11, 10)))
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        logits = model(x)
        ce = F.cross_entropy(logits, y)
        p = logits.softmax(1)[:, 1]
        t = y.to(p.dtype)
        dice = 1 - (2 * (p * t).sum((1, 2)) + 1) / (p.sum((1, 2)) + t.sum((1, 2)) + 1)
        loss = ce + dice.mean()
        loss.backward()
        opt.step()
        out += [loss.item(), dice.mean().item()]
    out += list(logits.shape)
    return out


# --- 3. TransformerDecoder with a causal mask, key padding masks, MultiheadAttention with
# kdim/vdim, add_bias_kv and per-head weights, scaled_dot_product_attention(is_causal=True) ---

def _decoder(t):
    n = t.nn

    class Dec(n.Module):
        def __init__(s):
            super().__init__()
            s.emb = n.Embedding(11, 8)
            layer = n.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                              batch_first=True)
            s.dec = n.TransformerDecoder(layer, num_layers=2, norm=n.LayerNorm(8))
            s.cross = n.MultiheadAttention(8, 2, kdim=6, vdim=5, add_bias_kv=True,
                                           add_zero_attn=True)
            s.qkv = n.Linear(8, 24)
            s.head = n.Linear(8, 11)

    return Dec()


def decoder(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _decoder)
    rng = _rng(102)
    B, T, S = 3, 5, 4
    tgt_in = _data(torch, rng.integers(0, 11, (B, T)))
    tgt_out = _data(torch, rng.integers(0, 11, (B, T)))
    memory = _data(torch, rng.standard_normal((B, S, 8)))
    keys = _data(torch, rng.standard_normal((S, B, 6)))
    values = _data(torch, rng.standard_normal((S, B, 5)))
    lengths = np.array([5, 3, 4])
    pad = np.arange(T)[None, :] >= lengths[:, None]
    tgt_pad = torch.zeros(B, T).masked_fill(_data(torch, pad), float("-inf"))
    mem_pad = _data(torch, np.array([[0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 1]], dtype=bool))
    mem_pad = torch.zeros(B, S).masked_fill(mem_pad, float("-inf"))
    causal = torch.nn.Transformer.generate_square_subsequent_mask(T)
    target = tgt_out.masked_fill(_data(torch, pad), -1)
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)
    out = [causal.isinf().sum().item()]
    for _ in range(steps):
        opt.zero_grad()
        h = m.dec(m.emb(tgt_in), memory, tgt_mask=causal, tgt_key_padding_mask=tgt_pad,
                  memory_key_padding_mask=mem_pad, tgt_is_causal=True)
        c, w = m.cross(h.transpose(0, 1), keys, values, need_weights=True,
                       average_attn_weights=False)
        q, k, v = m.qkv(h).view(B, T, 3, 2, 4).permute(2, 0, 3, 1, 4).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2)
        h = h + c.transpose(0, 1) + a.reshape(B, T, 8)
        loss = F.cross_entropy(m.head(h).reshape(-1, 11), target.reshape(-1), ignore_index=-1)
        loss = loss + 0.1 * w[:, :, :, -1].mean()
        loss.backward()
        opt.step()
        out += [loss.item(), w.sum().item()] + list(w.shape)
    return out


# --- 4. bidirectional 2-layer GRU over pad_sequence/pack_padded_sequence(enforce_sorted=False)
# and back through pad_packed_sequence, last states of both directions ----------------------

def _gru_cls(t):
    n = t.nn

    class Net(n.Module):
        def __init__(s):
            super().__init__()
            s.emb = n.Embedding(12, 5, padding_idx=0)
            s.gru = n.GRU(5, 6, num_layers=2, bidirectional=True)
            s.fc = n.Linear(12 + 12, 3)

    return Net()


def gru_packed(torch, steps):
    F = torch.nn.functional
    R = torch.nn.utils.rnn
    m = _init(torch, _gru_cls)
    rng = _rng(103)
    lengths = [3, 6, 4, 2]
    seqs = [_data(torch, rng.integers(1, 12, n)) for n in lengths]
    y = _data(torch, rng.integers(0, 3, 4))
    h0 = _data(torch, rng.standard_normal((4, 4, 6)) * 0.1)
    opt = torch.optim.NAdam(m.parameters(), lr=1e-2, decoupled_weight_decay=True,
                            weight_decay=0.01)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        padded = R.pad_sequence(seqs, padding_value=0)
        # (lengths on the CPU, as PyTorch requires on every device; the lengths that come back
        # are on the CPU too, so moved to the data's device)
        packed = R.pack_padded_sequence(m.emb(padded), torch.tensor(lengths, device="cpu"),
                                        enforce_sorted=False)
        o, h = m.gru(packed, h0)
        o, lens = R.pad_packed_sequence(o, padding_value=-1.0)
        mean = torch.where(o == -1.0, torch.zeros_like(o), o).sum(0) / lens.to(o.device)[:, None]
        last = torch.cat([h[-2], h[-1]], dim=1)
        loss = F.cross_entropy(m.fc(torch.cat([last, mean], 1)), y)
        loss.backward()
        opt.step()
        out += [loss.item()] + lens.tolist() + list(o.shape) + [lens.device.type]
    out += packed.batch_sizes.tolist() + packed.sorted_indices.tolist()
    out += packed.unsorted_indices.tolist()
    return out


# --- 5. CTC training: Conv1d features, log_softmax over classes, blank last, concatenated
# 1-d targets (CTCLoss sum) and padded 2-d targets (ctc_loss mean), zero_infinity, unbatched ---

def ctc_train(torch, steps):
    F = torch.nn.functional
    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Conv1d(3, 6, 3, padding=1), t.nn.GELU(),
                                               t.nn.Conv1d(6, 5, 1)))
    rng = _rng(104)
    x = _data(torch, rng.standard_normal((3, 3, 8)))
    il = torch.tensor([8, 6, 7])
    tl = torch.tensor([3, 1, 2])
    flat = _data(torch, np.array([0, 1, 1, 3, 2, 0]))
    padded = _data(torch, np.array([[0, 1, 1], [3, 3, 3], [2, 0, 0]]))
    loss_sum = torch.nn.CTCLoss(blank=4, reduction="sum")
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        lp = m(x).permute(2, 0, 1).log_softmax(2)
        l1 = loss_sum(lp, flat, il, tl)
        l2 = F.ctc_loss(lp, padded, il, tl, blank=4, reduction="mean")
        # (sample 1 cannot fit 3 labels, "1 1" needing a blank between, in 2 frames: inf, and 0
        # with zero_infinity)
        none = F.ctc_loss(lp[:2], padded, torch.tensor([2, 2, 2]), torch.tensor([3, 1, 2]),
                          blank=4, reduction="none", zero_infinity=True)
        single = F.ctc_loss(lp[:, 0], padded[0], il[:1], tl[:1], blank=4)
        loss = l1 + l2 + none.sum() + single
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 5.0)
        opt.step()
        out += [loss.item(), l1.item(), l2.item(), single.item()] + none.tolist()
    inf = F.ctc_loss(lp[:2], padded, torch.tensor([2, 2, 2]), torch.tensor([3, 1, 2]),
                     blank=4, reduction="none")
    out += inf.tolist()
    return out


# --- 6. text classifier: Embedding(padding_idx) mean over tokens, EmbeddingBag(mode='mean',
# padding_idx) with offsets, EmbeddingBag(mode='sum') with per_sample_weights ---------------

def _textcls(t):
    n = t.nn

    class Net(n.Module):
        def __init__(s):
            super().__init__()
            s.emb = n.Embedding(20, 6, padding_idx=0)
            s.bag = n.EmbeddingBag(20, 6, mode="mean", padding_idx=0)
            s.wbag = n.EmbeddingBag(20, 4, mode="sum", include_last_offset=True)
            s.fc = n.Linear(16, 3)

    return Net()


def text_classifier(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _textcls)
    rng = _rng(105)
    lengths = [4, 2, 5, 3]
    toks = [rng.integers(1, 20, n) for n in lengths]
    padded = np.zeros((4, 5), dtype=np.int64)
    for i, tk in enumerate(toks):
        padded[i, :len(tk)] = tk
    ids = _data(torch, padded)
    flat = _data(torch, np.concatenate(toks))
    offsets = _data(torch, np.cumsum([0] + lengths[:-1]))
    offsets_last = _data(torch, np.cumsum([0] + lengths))
    psw = _data(torch, rng.random(sum(lengths)))
    y = _data(torch, rng.integers(0, 3, 4))
    opt = torch.optim.Adagrad(m.parameters(), lr=0.1, initial_accumulator_value=0.1)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        mask = (ids != 0).unsqueeze(-1)
        a = (m.emb(ids) * mask).sum(1) / mask.sum(1)
        b = m.bag(ids)
        c = m.wbag(flat, offsets_last, per_sample_weights=psw)
        d = m.bag(flat, offsets)
        loss = F.cross_entropy(m.fc(torch.cat([a, b, c], 1)), y) + (a - d).pow(2).sum()
        loss.backward()
        opt.step()
        out += [loss.item(), m.emb.weight.grad[0].abs().sum().item(),
                m.bag.weight.grad[0].abs().sum().item()]
    out += m.emb.weight[0].tolist()
    return out


# --- 7. GAN: BCEWithLogitsLoss(pos_weight=, weight=), two optimizers, requires_grad_(False)
# toggling on the discriminator, detach() of the fake batch, BatchNorm1d in the generator -----

def gan(torch, steps):
    # (no bias before the BatchNorm1d, as DCGAN: that bias's gradient is zero up to rounding,
    # and Adam scales rounding noise up to lr-sized steps, so both libraries' runs would
    # differ at 1e-10 in eval mode)
    G = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 8, bias=False), t.nn.BatchNorm1d(8),
                                               t.nn.ReLU(), t.nn.Linear(8, 4)))
    D = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(4, 8), t.nn.LeakyReLU(0.2),
                                               t.nn.Linear(8, 2)), seed=1)
    rng = _rng(106)
    real = _data(torch, rng.standard_normal((6, 4)) * 0.5 + 1)
    z = _data(torch, rng.standard_normal((steps, 6, 3)))
    bce = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 0.5]))
    bce_w = torch.nn.BCEWithLogitsLoss(weight=torch.tensor([1.0, 3.0]),
                                       pos_weight=torch.tensor([1.5, 1.0]), reduction="sum")
    og = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    od = torch.optim.SGD(D.parameters(), lr=0.05, momentum=0.5)
    ones, zeros = torch.ones(6, 2), torch.zeros(6, 2)
    out = []
    for s in range(steps):
        fake = G(z[s])
        od.zero_grad()
        ld = bce(D(real), ones * 0.9) + bce(D(fake.detach()), zeros)
        ld.backward()
        od.step()
        out.append(all(p.grad is None for p in G.parameters()))
        D.requires_grad_(False)
        D.zero_grad(set_to_none=True)
        og.zero_grad()
        lg = bce_w(D(fake), ones)
        lg.backward()
        og.step()
        out.append(all(p.grad is None for p in D.parameters()))
        D.requires_grad_(True)
        out += [ld.item(), lg.item()]
    G.eval()
    with torch.no_grad():
        out += G(z[0]).flatten().tolist() + G[1].running_var.tolist()
    return out


# --- 8. PPO-style actor-critic: Normal and Categorical policies, log_prob, entropy,
# kl_divergence, clipped ratio, value loss, parameter groups -------------------------------

def _ppo(t):
    n = t.nn

    class AC(n.Module):
        def __init__(s):
            super().__init__()
            s.actor = n.Sequential(n.Linear(4, 8), n.Tanh(), n.Linear(8, 5))
            s.log_std = n.Parameter(t.zeros(2))
            s.critic = n.Sequential(n.Linear(4, 8), n.ReLU(), n.Linear(8, 1))

        def forward(s, x):
            h = s.actor(x)
            D = t.distributions
            return (D.Normal(h[:, :2], s.log_std.exp()), D.Categorical(logits=h[:, 2:]),
                    s.critic(x).squeeze(-1))

    return AC()


def ppo(torch, steps):
    F = torch.nn.functional
    D = torch.distributions
    m = _init(torch, _ppo)
    rng = _rng(107)
    s = _data(torch, rng.standard_normal((6, 4)))
    ac = _data(torch, rng.standard_normal((6, 2)))
    ad = _data(torch, rng.integers(0, 3, 6))
    r = rng.standard_normal(6)
    ret, R = [], 0.0
    for x in r[::-1]:
        R = x + 0.95 * R
        ret.insert(0, R)
    ret = torch.tensor(ret)
    opt = torch.optim.Adam([{"params": list(m.actor.parameters()) + [m.log_std], "lr": 1e-2},
                            {"params": m.critic.parameters(), "lr": 3e-2}])
    with torch.no_grad():
        n0, c0, v0 = m(s)
        old_logp = n0.log_prob(ac).sum(-1) + c0.log_prob(ad)
        adv = ret - v0
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        old_logits = c0.logits.clone()
    out = []
    for _ in range(steps):
        opt.zero_grad()
        nd, cd, v = m(s)
        logp = nd.log_prob(ac).sum(-1) + cd.log_prob(ad)
        ratio = (logp - old_logp).exp()
        surr = torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv)
        ent = nd.entropy().sum(-1) + cd.entropy()
        loss = -surr.mean() + 0.5 * F.smooth_l1_loss(v, ret) - 0.01 * ent.mean()
        loss.backward()
        opt.step()
        kl = D.kl_divergence(D.Categorical(logits=old_logits), cd).mean()
        probs = D.Categorical(probs=cd.probs.detach())
        out += [loss.item(), ratio.mean().item(), kl.item(), nd.stddev.mean().item(),
                probs.entropy().sum().item(), cd.probs.sum().item()]
    return out


# --- 9. knowledge distillation: a frozen teacher in eval, temperature-softened
# kl_div(log_target=True, reduction='batchmean') * T^2 plus cross entropy, KLDivLoss ----------

def distill(torch, steps):
    F = torch.nn.functional
    teacher = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(5, 12), t.nn.ReLU(),
                                                     t.nn.Dropout(0.5), t.nn.Linear(12, 4)))
    student = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(5, 6), t.nn.GELU(),
                                                     t.nn.Linear(6, 4)), seed=1)
    teacher.eval()
    teacher.requires_grad_(False)
    rng = _rng(108)
    x = _data(torch, rng.standard_normal((10, 5)))
    y = _data(torch, rng.integers(0, 4, 10))
    T, alpha = 3.0, 0.7
    kld = torch.nn.KLDivLoss(reduction="batchmean")
    opt = torch.optim.SGD(student.parameters(), lr=0.2, momentum=0.9, dampening=0.1)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)
    out = []
    for _ in range(steps):
        with torch.no_grad():
            tl = teacher(x)
        opt.zero_grad()
        sl = student(x)
        soft = F.kl_div(F.log_softmax(sl / T, -1), F.log_softmax(tl / T, -1),
                        reduction="batchmean", log_target=True) * T * T
        soft2 = kld(F.log_softmax(sl / T, -1), F.softmax(tl / T, -1)) * T * T
        hard = F.cross_entropy(sl, y)
        loss = alpha * soft + (1 - alpha) * hard
        loss.backward()
        opt.step()
        sched.step()
        acc = (sl.argmax(1) == tl.argmax(1)).float().mean().item()
        out += [loss.item(), soft.item(), soft2.item(), acc, sched.get_last_lr()[0]]
    out.append(all(p.grad is None for p in teacher.parameters()))
    return out


# --- 10. SimCLR-ish contrastive: two views, normalize, similarity by torch.mm, self
# similarity masked with -inf, cross entropy against arange labels, cosine_similarity --------

def simclr(torch, steps):
    F = torch.nn.functional
    enc = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(6, 8), t.nn.BatchNorm1d(8),
                                                 t.nn.ReLU(), t.nn.Linear(8, 4)))
    rng = _rng(109)
    N, tau = 5, 0.5
    x = rng.standard_normal((N, 6))
    v1 = _data(torch, x + 0.1 * rng.standard_normal((N, 6)))
    v2 = _data(torch, x * rng.uniform(0.8, 1.2, (N, 6)))
    labels = torch.arange(2 * N).roll(N)
    eye = torch.eye(2 * N, dtype=torch.bool)
    opt = torch.optim.AdamW(enc.parameters(), lr=1e-2, weight_decay=1e-4)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        z = F.normalize(torch.cat([enc(v1), enc(v2)]), dim=1)
        sim = torch.mm(z, z.t()) / tau
        sim = sim.masked_fill(eye, float("-inf"))
        loss = F.cross_entropy(sim, labels)
        cos = F.cosine_similarity(z[:N].unsqueeze(1), z[N:].unsqueeze(0), dim=-1)
        align = cos.diagonal().mean()
        loss.backward()
        opt.step()
        acc = (sim.argmax(1) == labels).float().mean().item()
        out += [loss.item(), acc, align.item(), cos.shape[0]]
    return out


# --- 11. schedulers over parameter groups of different lr/weight_decay: OneCycleLR
# (three_phase, linear, cycling Adam's beta1), CyclicLR(exp_range, momentum),
# ReduceLROnPlateau(min_lr per group), ChainedScheduler(ConstantLR, MultiplicativeLR) ---------

def schedulers(torch, steps):
    F = torch.nn.functional
    L = torch.optim.lr_scheduler
    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 5), t.nn.Tanh(), t.nn.Linear(5, 2)))
    rng = _rng(110)
    x = _data(torch, rng.standard_normal((8, 3)))
    y = _data(torch, rng.standard_normal((8, 2)))

    def groups():
        return [{"params": m[0].parameters(), "lr": 1e-2, "weight_decay": 1e-3},
                {"params": m[2].parameters(), "weight_decay": 0.0}]

    o1 = torch.optim.Adam(groups(), lr=5e-3)
    s1 = L.OneCycleLR(o1, max_lr=[0.05, 0.02], total_steps=steps + 1, pct_start=0.4,
                      anneal_strategy="linear", three_phase=True, div_factor=10,
                      final_div_factor=100)
    o2 = torch.optim.SGD(groups(), lr=5e-3, momentum=0.9)
    s2 = L.CyclicLR(o2, base_lr=[0.01, 0.001], max_lr=0.1, step_size_up=2, step_size_down=1,
                    mode="exp_range", gamma=0.9, base_momentum=0.8, max_momentum=0.9)
    o3 = torch.optim.SGD(groups(), lr=5e-2)
    s3 = L.ReduceLROnPlateau(o3, factor=0.5, patience=0, threshold=0.5, min_lr=[0.02, 0.001])
    o4 = torch.optim.RMSprop(groups(), lr=1e-2)
    s4 = L.ChainedScheduler([L.ConstantLR(o4, factor=0.5, total_iters=2),
                             L.MultiplicativeLR(o4, lambda e: 0.9)], optimizer=o4)
    out = []
    for _ in range(steps):
        for o in (o1, o2, o3, o4):
            o.zero_grad()
            loss = F.mse_loss(m(x), y)
            loss.backward()
            o.step()
            out.append(loss.item())
        s1.step()
        s2.step()
        s3.step(loss.item())
        s4.step()
        for o in (o1, o2, o3, o4):
            out += [g["lr"] for g in o.param_groups]
        out += [g["betas"][0] for g in o1.param_groups] + [g["momentum"] for g in o2.param_groups]
        out += s1.get_last_lr() + s2.get_last_lr() + s3.get_last_lr() + s4.get_last_lr()
    out.append(s3.state_dict()["num_bad_epochs"])
    out.append(s1.state_dict()["last_epoch"])
    return out


# --- 12. gradient accumulation, a gradient-scaling hook on a parameter (removed after two
# steps), clip_grad_value_, parameters_to_vector EMA written back by vector_to_parameters ----

def accumulate(torch, steps):
    F = torch.nn.functional
    U = torch.nn.utils
    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(4, 6), t.nn.Softsign(),
                                               t.nn.Linear(6, 2)))
    rng = _rng(111)
    x = _data(torch, rng.standard_normal((9, 4)))
    y = _data(torch, rng.standard_normal((9, 2)))
    handle = m[0].weight.register_hook(lambda g: g * 0.5)
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    ema = U.parameters_to_vector(m.parameters()).detach().clone()
    out = [ema.numel()]
    for s in range(steps):
        if s == 2:
            handle.remove()
        for k in range(3):
            loss = F.mse_loss(m(x[3 * k:3 * k + 3]), y[3 * k:3 * k + 3]) / 3
            loss.backward()
            out.append(loss.item())
        g = U.parameters_to_vector(p.grad for p in m.parameters())
        out.append(g.norm().item())
        U.clip_grad_value_(m.parameters(), clip_value=0.05)
        out.append(U.parameters_to_vector(p.grad for p in m.parameters()).abs().max().item())
        opt.step()
        opt.zero_grad()
        with torch.no_grad():
            ema.mul_(0.8).add_(U.parameters_to_vector(m.parameters()), alpha=0.2)
    U.vector_to_parameters(ema, m.parameters())
    with torch.no_grad():
        out.append(F.mse_loss(m(x), y).item())
    out += m[2].bias.tolist()
    return out


# --- 13. a custom model over ModuleDict, ParameterList and ParameterDict, init through
# apply(init_fn) (kaiming_normal_, replaced by the copied weights), weight-decay groups from
# named_parameters ------------------------------------------------------------------------

def _dictnet(t):
    n = t.nn
    F = t.nn.functional

    class Net(n.Module):
        def __init__(s):
            super().__init__()
            s.layers = n.ModuleDict({"inp": n.Linear(3, 5), "hid": n.Linear(5, 5),
                                     "out": n.Linear(5, 2)})
            s.scales = n.ParameterList([n.Parameter(t.ones(5)) for _ in range(2)])
            s.extra = n.ParameterDict({"bias": n.Parameter(t.zeros(2)),
                                       "temp": n.Parameter(t.tensor(1.5))})
            s.norm = n.LayerNorm(5)

        def forward(s, x):
            h = s.norm(t.tanh(s.layers["inp"](x) * s.scales[0]))
            h = F.elu(s.layers["hid"](h) * s.scales[1], alpha=0.5)
            return s.layers["out"](h) / s.extra["temp"] + s.extra["bias"]

    def init_fn(mod):
        if isinstance(mod, n.Linear):
            n.init.kaiming_normal_(mod.weight, mode="fan_out", nonlinearity="relu")
            n.init.zeros_(mod.bias)

    net = Net()
    net.apply(init_fn)
    return net


def dict_model(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _dictnet)
    rng = _rng(112)
    x = _data(torch, rng.standard_normal((7, 3)))
    y = _data(torch, rng.standard_normal((7, 2)))
    names = [n for n, _ in m.named_parameters()]
    decay = [p for n, p in m.named_parameters() if n.endswith("weight") and "norm" not in n]
    rest = [p for n, p in m.named_parameters() if not (n.endswith("weight") and "norm" not in n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": rest, "weight_decay": 0.0}], lr=2e-2)
    out = [names, len(decay), len(rest), list(m.layers.keys()), len(m.scales),
           "temp" in m.extra, sorted(m.state_dict().keys())]
    for _ in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        out += [loss.item(), m.extra["temp"].item(), m.scales[1].sum().item()]
    return out


# --- 14. hand-written attention: einsum scores, bmm/baddbmm, masked_fill(-inf) with a sample
# whose keys are all masked, softmax's NaN rows cleared by nan_to_num (finite gradients) ------

def _attn(t):
    n = t.nn
    return n.ModuleDict({"q": n.Linear(6, 8), "k": n.Linear(6, 8), "v": n.Linear(6, 8),
                         "o": n.Linear(8, 3), "b": n.Linear(6, 4)})


def einsum_attention(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _attn)
    rng = _rng(113)
    B, L = 3, 4
    x = _data(torch, rng.standard_normal((B, L, 6)))
    valid = _data(torch, np.array([[1, 1, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]], dtype=bool))
    bias = _data(torch, rng.standard_normal((B, L, L)))
    y = _data(torch, rng.standard_normal((B, 3)))
    opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        q = m["q"](x).view(B, L, 2, 4)
        k = m["k"](x).view(B, L, 2, 4)
        v = m["v"](x).view(B, L, 2, 4)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(4)
        scores = scores.masked_fill(~valid[:, None, None, :], float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        nan_rows = attn.isnan().any(-1).sum().item()
        attn = torch.nan_to_num(attn, nan=0.0)
        ctx = torch.einsum("bhqk,bkhd->bqhd", attn, v).reshape(B, L, 8)
        qb = m["b"](x)
        s2 = torch.baddbmm(bias, qb, qb.transpose(1, 2), beta=0.5, alpha=0.25)
        s2 = s2.masked_fill(~valid[:, None, :], float("-inf")).softmax(-1).nan_to_num()
        ctx = ctx + torch.bmm(s2, ctx)
        pooled = (ctx * valid[..., None]).sum(1) / valid.sum(1, keepdim=True).clamp(min=1)
        loss = F.mse_loss(m["o"](pooled), y)
        loss.backward()
        opt.step()
        grads_finite = all(bool(torch.isfinite(p.grad).all()) for p in m.parameters())
        out += [loss.item(), nan_rows, grads_finite, attn.sum().item()]
    return out


# --- 15. numerically delicate losses: logsumexp of large logits, softplus(beta, threshold),
# gelu(tanh), silu, mish, torch.special's log_ndtr, erfcx, xlogy, entr, logit(eps), i0e ------

def delicate(torch, steps):
    F = torch.nn.functional
    S = torch.special
    m = _init(torch, lambda t: t.nn.Linear(3, 4))
    rng = _rng(114)
    x = _data(torch, rng.standard_normal((6, 3)) * 4)
    y = _data(torch, rng.integers(0, 4, 6))
    p = _data(torch, np.array([0.0, 1e-300, 0.3, 1.0]))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        h = m(x) * 8
        lse = torch.logsumexp(h, dim=1)
        nll = (lse - h.gather(1, y[:, None]).squeeze(1)).mean()
        acts = (F.softplus(h, beta=2, threshold=5) + F.gelu(h, approximate="tanh")
                + F.silu(h) + F.mish(h)).mean()
        prob = torch.sigmoid(h / 8)
        sp = (S.log_ndtr(h).mean() + S.erfcx(h.abs() / 4).mean() + S.entr(prob).mean()
              + S.xlogy(prob, prob + 1e-3).mean() + S.logit(prob, eps=1e-6).mean()
              + S.i0e(h / 8).mean() + S.log1p(h.abs()).mean() + S.expm1(-h.abs()).mean())
        loss = nll + 0.1 * acts + 0.1 * sp
        loss.backward()
        opt.step()
        out += [loss.item(), nll.item(), acts.item(), sp.item(), lse.max().item()]
    out += S.xlogy(p, p).tolist() + S.entr(p).tolist()
    out += S.log_ndtr(torch.tensor([-40.0, 40.0])).tolist()
    return out


# --- 16. a LLaMA-style decoder: RMSNorm, rotary embeddings (rotate-half in one block,
# view_as_complex/polar in the other), grouped-query attention (repeat_interleave, and
# scaled_dot_product_attention(enable_gqa=True)), SwiGLU, tied embedding/head, warmup-cosine
# LambdaLR, greedy generation with a growing prefix --------------------------------------------

def _llama(t):
    n = t.nn
    F = t.nn.functional

    class Block(n.Module):
        def __init__(s, complex_rope):
            super().__init__()
            s.complex_rope = complex_rope
            s.n1 = n.RMSNorm(8, eps=1e-6)
            s.n2 = n.RMSNorm(8)
            s.q = n.Linear(8, 8, bias=False)
            s.kv = n.Linear(8, 8, bias=False)
            s.o = n.Linear(8, 8, bias=False)
            s.w1 = n.Linear(8, 12, bias=False)
            s.w3 = n.Linear(8, 12, bias=False)
            s.w2 = n.Linear(12, 8, bias=False)

        def rope(s, x, cos, sin, cis):
            if s.complex_rope:
                # (Meta's spelling: pairs of features as complex numbers, rotated)
                xc = t.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
                return t.view_as_real(xc * cis).flatten(-2)
            x1, x2 = x.chunk(2, -1)
            return x * cos + t.cat([-x2, x1], -1) * sin

        def forward(s, x, cos, sin, cis):
            B, T, _ = x.shape
            h = s.n1(x)
            q = s.q(h).view(B, T, 2, 4).transpose(1, 2)
            k, v = s.kv(h).view(B, T, 2, 1, 4).permute(2, 0, 3, 1, 4)
            q, k = s.rope(q, cos, sin, cis), s.rope(k, cos, sin, cis)
            if s.complex_rope:
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            else:
                k, v = k.repeat_interleave(2, dim=1), v.repeat_interleave(2, dim=1)
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.4)
            x = x + s.o(a.transpose(1, 2).reshape(B, T, 8))
            h = s.n2(x)
            return x + s.w2(F.silu(s.w1(h)) * s.w3(h))

    class LM(n.Module):
        def __init__(s):
            super().__init__()
            s.emb = n.Embedding(16, 8)
            s.blocks = n.ModuleList([Block(False), Block(True)])
            s.norm = n.RMSNorm(8)
            s.head = n.Linear(8, 16, bias=False)
            s.head.weight = s.emb.weight

        def forward(s, ids):
            T = ids.shape[1]
            inv = 1.0 / (10000 ** (t.arange(0, 4, 2).double() / 4))
            freqs = t.outer(t.arange(T).double(), inv)
            emb = t.cat([freqs, freqs], -1)
            cis = t.polar(t.ones_like(freqs), freqs)
            h = s.emb(ids)
            for b in s.blocks:
                h = b(h, emb.cos(), emb.sin(), cis)
            return s.head(s.norm(h))

    return LM()


def llama(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _llama)
    rng = _rng(115)
    ids = _data(torch, rng.integers(0, 16, (2, 7)))
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1)
    warm = 2
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * s / 8)))
    out = [m.head.weight is m.emb.weight, len(list(m.parameters()))]
    for _ in range(steps):
        opt.zero_grad()
        logits = m(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 16), ids[:, 1:].reshape(-1))
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        sched.step()
        out += [loss.item(), norm.item(), sched.get_last_lr()[0]]
    m.eval()
    with torch.no_grad():
        seq = ids[:, :3]
        for _ in range(4):
            nxt = m(seq)[:, -1].argmax(-1, keepdim=True)
            seq = torch.cat([seq, nxt], dim=1)
        out += seq.flatten().tolist()
        out += m(seq)[:, -1].log_softmax(-1).flatten().tolist()
    return out


# --- 17. torch.func: per-sample gradients by vmap(grad(functional_call)), clipped and averaged
# (DP-SGD) into a manual update; jacrev and hessian of the model; an ensemble through
# stack_module_state --------------------------------------------------------------------------

def func_dpsgd(torch, steps):
    F = torch.nn.functional
    fn = torch.func
    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(), t.nn.Linear(4, 1)))
    rng = _rng(116)
    x = _data(torch, rng.standard_normal((6, 3)))
    y = _data(torch, rng.standard_normal((6, 1)))

    def loss_fn(p, xi, yi):
        return F.mse_loss(fn.functional_call(m, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    params = {k: v.detach().clone() for k, v in m.named_parameters()}
    out = []
    for _ in range(steps):
        g = fn.vmap(fn.grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
        norms = torch.stack([v.reshape(6, -1).norm(dim=1) for v in g.values()]).norm(dim=0)
        scale = (1.0 / norms).clamp(max=1.0)
        for k in params:
            gk = (g[k] * scale.view(-1, *[1] * (g[k].ndim - 1))).mean(0)
            params[k] = params[k] - 0.3 * gk
        loss = F.mse_loss(fn.functional_call(m, params, (x,)), y)
        out += [loss.item()] + norms.tolist()

    def f(xi):
        return fn.functional_call(m, params, (xi,)).sum()

    out += fn.jacrev(f)(x[0]).tolist() + fn.hessian(f)(x[0]).flatten().tolist()
    models = [_init(torch, lambda t: t.nn.Linear(3, 2), seed=s) for s in (1, 2, 3)]
    sp, sb = fn.stack_module_state(models)
    base = models[0]

    def one(p, b, xx):
        return fn.functional_call(base, (p, b), (xx,))

    ens = fn.vmap(one, in_dims=(0, 0, None))(sp, sb, x)
    out += list(ens.shape) + ens.sum((1, 2)).tolist()
    return out


# --- 18. a video-ish 3-d net: Conv3d, BatchNorm3d, MaxPool3d, ConvTranspose3d, trilinear
# Upsample, AvgPool3d(ceil_mode, count_include_pad=False), AdaptiveAvgPool3d ---------------

def _video(t):
    n = t.nn
    return n.Sequential(
        n.Conv3d(1, 3, 3, padding=1, bias=False), n.BatchNorm3d(3), n.ReLU(), n.MaxPool3d(2),
        n.ConvTranspose3d(3, 2, 2, stride=2), n.Upsample(scale_factor=(1, 2, 2),
                                                        mode="trilinear"),
        n.AvgPool3d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        n.Conv3d(2, 3, (1, 3, 3), padding=(0, 1, 1), groups=1), n.Hardswish(),
        n.AdaptiveAvgPool3d((1, 2, 2)), n.Flatten(), n.Linear(12, 2))


def video(torch, steps):
    # (no bias before the BatchNorm3d: its gradient is zero up to rounding, and RMSprop divides
    # by its running size, so the libraries' rounding noise would move it by lr-sized steps)
    m = _init(torch, _video)
    rng = _rng(117)
    x = _data(torch, rng.standard_normal((2, 1, 4, 5, 6)))
    y = _data(torch, rng.standard_normal((2, 2)))
    opt = torch.optim.RMSprop(m.parameters(), lr=1e-2, momentum=0.5)
    out = []
    for _ in range(steps):
        m.train()
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    m.eval()
    with torch.no_grad():
        out += m(x).flatten().tolist() + m[1].running_mean.tolist()
    return out


# --- 19. a SAC-style actor and other distributions: TransformedDistribution(Normal,
# TanhTransform), Independent, MultivariateNormal(scale_tril), Beta, Dirichlet, Bernoulli;
# log_prob of given samples, entropy, kl_divergence ---------------------------------------

def _dists(t):
    n = t.nn
    return n.ModuleDict({"body": n.Linear(3, 6), "mu": n.Linear(6, 2), "ls": n.Linear(6, 2),
                         "tril": n.Linear(6, 3), "conc": n.Linear(6, 3), "bern": n.Linear(6, 2)})


def distributions(torch, steps):
    F = torch.nn.functional
    D = torch.distributions
    m = _init(torch, _dists)
    rng = _rng(118)
    x = _data(torch, rng.standard_normal((5, 3)))
    act = _data(torch, rng.uniform(-0.9, 0.9, (5, 2)))
    mvx = _data(torch, rng.standard_normal((5, 2)))
    bx = _data(torch, rng.uniform(0.1, 0.9, (5, 2)))
    dx = _data(torch, rng.dirichlet([1, 2, 3], 5))
    bb = _data(torch, rng.integers(0, 2, (5, 2)).astype(np.float64))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        h = torch.relu(m["body"](x))
        mu, std = m["mu"](h), F.softplus(m["ls"](h)) + 1e-3
        pi = D.TransformedDistribution(D.Normal(mu, std), [D.TanhTransform(cache_size=1)])
        lp_act = pi.log_prob(act).sum(-1)
        ind = D.Independent(D.Normal(mu, std), 1)
        tv = m["tril"](h)
        tril = torch.zeros(5, 2, 2)
        tril = tril + torch.diag_embed(F.softplus(tv[:, :2]) + 0.1)
        tril = tril + F.pad(tv[:, 2:].unsqueeze(-1), (0, 1, 1, 0))
        mvn = D.MultivariateNormal(mu, scale_tril=tril)
        c = F.softplus(m["conc"](h)) + 0.5
        beta = D.Beta(c[:, :2], c[:, 1:])
        dirich = D.Dirichlet(c)
        bern = D.Bernoulli(logits=m["bern"](h))
        prior = D.MultivariateNormal(torch.zeros(2), torch.eye(2))
        nll = -(lp_act.mean() + ind.log_prob(mvx).mean() + mvn.log_prob(mvx).mean()
                + beta.log_prob(bx).sum(-1).mean() + dirich.log_prob(dx).mean()
                + bern.log_prob(bb).sum(-1).mean())
        reg = (D.kl_divergence(mvn, prior).mean() - 0.01 * ind.entropy().mean()
               - 0.01 * beta.entropy().sum(-1).mean() - 0.01 * dirich.entropy().mean()
               + 0.01 * D.kl_divergence(bern, D.Bernoulli(probs=torch.full((5, 2), 0.3))).mean())
        loss = nll + reg
        loss.backward()
        opt.step()
        out += [loss.item(), lp_act.sum().item(), mvn.entropy().sum().item(),
                beta.mean.sum().item(), dirich.variance.sum().item()]
        out += list(ind.batch_shape) + list(ind.event_shape) + list(mvn.event_shape)
    return out


# --- 20. a normalizing flow: affine couplings with masks and a learned 2x2 mixing matrix whose
# log-determinant comes from linalg.slogdet; MultivariateNormal base; inverse by linalg.solve --

def _flow(t):
    n = t.nn

    class Coupling(n.Module):
        def __init__(s, mask):
            super().__init__()
            s.register_buffer("mask", t.tensor(mask))
            s.s = n.Sequential(n.Linear(2, 6), n.Tanh(), n.Linear(6, 2), n.Tanh())
            s.t = n.Sequential(n.Linear(2, 6), n.ReLU(), n.Linear(6, 2))

        def forward(s, x):
            xm = x * s.mask
            sc = s.s(xm) * (1 - s.mask)
            return xm + (1 - s.mask) * (x * sc.exp() + s.t(xm)), sc.sum(1)

        def inverse(s, y):
            ym = y * s.mask
            sc = s.s(ym) * (1 - s.mask)
            return ym + (1 - s.mask) * (y - s.t(ym)) * (-sc).exp()

    class Flow(n.Module):
        def __init__(s):
            super().__init__()
            s.c = n.ModuleList([Coupling([1.0, 0.0]), Coupling([0.0, 1.0])])
            s.W = n.Parameter(t.tensor([[1.0, 0.3], [-0.2, 0.9]]))

    return Flow()


def flow(torch, steps):
    D = torch.distributions
    m = _init(torch, _flow)
    rng = _rng(119)
    xs = rng.standard_normal((16, 2))
    x = _data(torch, np.stack([xs[:, 0], xs[:, 1] * 0.5 + xs[:, 0] ** 2 * 0.3], 1))
    base = D.MultivariateNormal(torch.zeros(2), torch.eye(2))
    opt = torch.optim.Adam(m.parameters(), lr=5e-3)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        z, ld = x, 0
        for c in m.c:
            z, l = c(z)
            ld = ld + l
        z = z @ m.W.T
        sign, logabs = torch.linalg.slogdet(m.W)
        loss = -(base.log_prob(z) + ld + logabs).mean()
        loss.backward()
        opt.step()
        out += [loss.item(), sign.item(), logabs.item()]
    with torch.no_grad():
        z = x
        for c in m.c:
            z, _ = c(z)
        z = z @ m.W.T
        back = torch.linalg.solve(m.W, z.T).T
        for c in reversed(m.c):
            back = c.inverse(back)
        out.append(float((back - x).abs().max()) < 1e-12)
        out += back[:3].flatten().tolist()
    return out


# --- 21. a graph attention layer: per-edge scores, a segment softmax by
# scatter_reduce(amax, include_self=False) and index_add, messages aggregated by index_add_,
# scatter_reduce(mean) pooling, nodes without in-edges ---------------------------------------

def gat(torch, steps):
    F = torch.nn.functional
    m = _init(torch, lambda t: t.nn.ModuleDict({"w": t.nn.Linear(3, 4, bias=False),
                                                "a": t.nn.Linear(8, 1, bias=False),
                                                "out": t.nn.Linear(4, 2)}))
    rng = _rng(120)
    n = 7
    src = _data(torch, np.array([0, 1, 2, 3, 4, 0, 2, 5, 1, 3]))
    dst = _data(torch, np.array([1, 2, 3, 4, 5, 2, 0, 0, 0, 1]))  # (node 6: no in-edges)
    graph = _data(torch, np.array([0, 0, 0, 1, 1, 1, 1]))
    x = _data(torch, rng.standard_normal((n, 3)))
    y = _data(torch, rng.standard_normal((2, 2)))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        h = m["w"](x)
        e = F.leaky_relu(m["a"](torch.cat([h[src], h[dst]], 1)).squeeze(1), 0.2)
        emax = torch.zeros(n).scatter_reduce(0, dst, e, reduce="amax", include_self=False)
        ex = (e - emax[dst]).exp()
        den = torch.zeros(n).index_add(0, dst, ex)
        alpha = ex / den[dst]
        agg = torch.zeros(n, 4)
        agg.index_add_(0, dst, alpha.unsqueeze(1) * h[src])
        hn = F.elu(agg + h)
        pooled = torch.zeros(2, 4).scatter_reduce(
            0, graph.unsqueeze(1).expand(n, 4), hn, reduce="mean", include_self=False)
        loss = F.mse_loss(m["out"](pooled), y)
        loss.backward()
        opt.step()
        out += [loss.item()] + emax.tolist() + den.tolist()
    return out


# --- 22. sorting words in losses: a quantile (pinball) loss, torch.quantile, sort, topk,
# kthvalue, median, cummax, searchsorted and bucketize, a ListNet ranking loss ----------------

def ranking(torch, steps):
    F = torch.nn.functional
    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(4, 6), t.nn.ReLU(), t.nn.Linear(6, 3)))
    rng = _rng(121)
    x = _data(torch, rng.standard_normal((8, 4)))
    y = _data(torch, rng.standard_normal(8))
    rel = _data(torch, rng.random((2, 4)))
    qs = torch.tensor([0.1, 0.5, 0.9])
    edges = torch.tensor([-1.0, 0.0, 1.0])
    opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.8)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        pred = m(x)
        diff = y.unsqueeze(1) - pred
        pinball = torch.maximum(qs * diff, (qs - 1) * diff).mean()
        srt, idx = pred[:, 1].sort(descending=True, stable=True)
        top = pred[:, 0].topk(3).values.sum()
        kth = pred[:, 2].kthvalue(2).values
        med = pred.median(dim=0).values.sum()
        cm = pred[:, 0].cummax(0).values.mean()
        scores = pred[:, 0].view(2, 4)
        listnet = -(F.softmax(rel * 5, -1) * F.log_softmax(scores, -1)).sum(-1).mean()
        qq = torch.quantile(pred[:, 1], qs, interpolation="linear")
        loss = pinball + 0.01 * (top + kth + med + cm + qq.sum()) + listnet
        loss.backward()
        opt.step()
        out += [loss.item()] + idx.tolist() + qq.tolist()
        out += torch.searchsorted(srt.flip(0).contiguous(), edges).tolist()
        out += torch.bucketize(pred[:, 1].detach().contiguous(), edges, right=True).tolist()
    return out


# --- 23. MAML: inner steps by autograd.grad(create_graph=True) on functional_call parameters,
# the outer loss differentiated through them (second order), meta-optimizer Adam -------------

def maml(torch, steps):
    F = torch.nn.functional
    fn = torch.func
    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(1, 8), t.nn.Tanh(), t.nn.Linear(8, 1)))
    rng = _rng(122)
    tasks = []
    for a, ph in ((1.0, 0.0), (0.5, 1.0), (1.5, 2.0)):
        xs, xq = rng.uniform(-3, 3, (5, 1)), rng.uniform(-3, 3, (5, 1))
        tasks.append([_data(torch, v) for v in (xs, a * np.sin(xs + ph), xq, a * np.sin(xq + ph))])
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        meta = 0
        for xs, ys, xq, yq in tasks:
            fast = dict(m.named_parameters())
            for _k in range(2):
                inner = F.mse_loss(fn.functional_call(m, fast, (xs,)), ys)
                grads = torch.autograd.grad(inner, list(fast.values()), create_graph=True)
                fast = {k: p - 0.1 * g for (k, p), g in zip(fast.items(), grads)}
            meta = meta + F.mse_loss(fn.functional_call(m, fast, (xq,)), yq)
        meta = meta / len(tasks)
        meta.backward()
        opt.step()
        out += [meta.item(), float(m[0].weight.grad.norm())]
    return out


# --- 24. a tiny ViT: patch embedding by a strided Conv2d, class token, positional
# embedding, pre-norm TransformerEncoderLayer with a callable activation, mixup with a given
# permutation and weight, soft-target cross entropy with label smoothing ----------------------

def _vit(t):
    n = t.nn
    F = t.nn.functional

    class ViT(n.Module):
        def __init__(s):
            super().__init__()
            s.patch = n.Conv2d(2, 8, 4, stride=4)
            s.cls = n.Parameter(t.zeros(1, 1, 8))
            s.pos = n.Parameter(t.zeros(1, 5, 8))
            n.init.trunc_normal_(s.pos, std=0.02)
            s.enc = n.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=F.gelu,
                                              batch_first=True, norm_first=True)
            s.norm = n.LayerNorm(8)
            s.head = n.Linear(8, 3)

        def forward(s, x):
            p = s.patch(x).flatten(2).transpose(1, 2)
            h = t.cat([s.cls.expand(x.shape[0], -1, -1), p], 1) + s.pos
            return s.head(s.norm(s.enc(h))[:, 0])

    return ViT()


def vit(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _vit)
    rng = _rng(123)
    x = _data(torch, rng.standard_normal((4, 2, 8, 8)))
    y = _data(torch, rng.integers(0, 3, 4))
    perm = _data(torch, np.array([2, 0, 3, 1]))
    opt = torch.optim.AdamW(m.parameters(), lr=3e-3)
    out = []
    for s in range(steps):
        lam = 0.3 + 0.1 * s
        xm = lam * x + (1 - lam) * x[perm]
        yo = F.one_hot(y, 3).double()
        ym = lam * yo + (1 - lam) * yo[perm]
        opt.zero_grad()
        logits = m(xm)
        loss = F.cross_entropy(logits, ym, label_smoothing=0.1)
        loss.backward()
        opt.step()
        out += [loss.item(), logits.softmax(-1).max().item()]
    return out


# --- 25. DQN: a target network by copy.deepcopy, Q-values by gather, max over actions for
# the target, smooth_l1_loss, a soft (Polyak) update under no_grad with in-place mul_/add_,
# frozen layers (requires_grad_(False)) and a buffer that is not persistent ------------------

def _qnet(t):
    n = t.nn

    class Q(n.Module):
        def __init__(s):
            super().__init__()
            s.body = n.Sequential(n.Linear(4, 8), n.ReLU())
            s.head = n.Linear(8, 3)
            s.register_buffer("calls", t.zeros((), dtype=t.long), persistent=False)

        def forward(s, x):
            s.calls += 1
            return s.head(s.body(x))

    return Q()


def dqn(torch, steps):
    import copy
    F = torch.nn.functional
    q = _init(torch, _qnet)
    target = copy.deepcopy(q)
    target.requires_grad_(False)
    rng = _rng(124)
    s = _data(torch, rng.standard_normal((8, 4)))
    a = _data(torch, rng.integers(0, 3, 8))
    r = _data(torch, rng.standard_normal(8))
    s2 = _data(torch, rng.standard_normal((8, 4)))
    done = _data(torch, np.array([0, 0, 1, 0, 0, 1, 0, 0], dtype=bool))
    opt = torch.optim.Adam(q.parameters(), lr=1e-2)
    out = [sorted(q.state_dict().keys())]
    for k in range(steps):
        if k == 2:
            q.body.requires_grad_(False)
        qa = q(s).gather(1, a.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            best = q(s2).argmax(1, keepdim=True)
            nxt = target(s2).gather(1, best).squeeze(1)
            y = r + 0.9 * nxt * (~done)
            vmax, imax = target(s2).max(1)
        loss = F.smooth_l1_loss(qa, y, beta=0.5)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            for pt, p in zip(target.parameters(), q.parameters()):
                pt.mul_(0.8).add_(0.2 * p)
        out += [loss.item(), vmax.sum().item()] + imax.tolist()
        out.append(q.body[0].weight.grad is None)
    out += [int(q.calls), int(target.calls), target.head.weight.requires_grad]
    return out


# --- 26. a linear-chain CRF tagger: emissions from a BiLSTM, the forward algorithm by
# logsumexp over a transition matrix, the gold path score by gather/indexing, masks for the
# padded steps, Viterbi decoding by max/argmax and backtracking -----------------------------

def _crf(t):
    n = t.nn

    class CRF(n.Module):
        def __init__(s):
            super().__init__()
            s.emb = n.Embedding(10, 4)
            s.lstm = n.LSTM(4, 3, batch_first=True, bidirectional=True)
            s.proj = n.Linear(6, 4)
            s.trans = n.Parameter(t.randn(4, 4) * 0.1)
            s.start = n.Parameter(t.randn(4) * 0.1)

    return CRF()


def crf(torch, steps):
    m = _init(torch, _crf)
    rng = _rng(125)
    B, T = 3, 5
    lengths = np.array([5, 3, 4])
    mask_np = np.arange(T)[None, :] < lengths[:, None]
    words = _data(torch, rng.integers(0, 10, (B, T)) * mask_np)
    tags = _data(torch, rng.integers(0, 4, (B, T)) * mask_np)
    mask = _data(torch, mask_np)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        em = m.proj(m.lstm(m.emb(words))[0])
        alpha = m.start + em[:, 0]
        score = m.start[tags[:, 0]] + em[:, 0].gather(1, tags[:, :1]).squeeze(1)
        for i in range(1, T):
            nxt = torch.logsumexp(alpha.unsqueeze(2) + m.trans + em[:, i].unsqueeze(1), dim=1)
            alpha = torch.where(mask[:, i:i + 1], nxt, alpha)
            step = m.trans[tags[:, i - 1], tags[:, i]] + em[:, i].gather(1, tags[:, i:i + 1])[:, 0]
            score = score + step * mask[:, i]
        nll = (torch.logsumexp(alpha, 1) - score).mean()
        nll.backward()
        opt.step()
        out.append(nll.item())
    with torch.no_grad():
        em = m.proj(m.lstm(m.emb(words))[0])
        v = m.start + em[:, 0]
        back = []
        for i in range(1, T):
            best, arg = (v.unsqueeze(2) + m.trans).max(1)
            v = torch.where(mask[:, i:i + 1], best + em[:, i], v)
            back.append(arg)
        paths = []
        for b in range(B):
            tag = int(v[b].argmax())
            path = [tag]
            for i in range(int(lengths[b]) - 1, 0, -1):
                tag = int(back[i - 1][b, tag])
                path.insert(0, tag)
            paths.append(path)
        out += [paths] + v.max(1).values.tolist()
    return out


# --- 27. segmentation losses: cross_entropy over (N, C, H, W) with class weights,
# ignore_index and label_smoothing together, probability targets with weights, nll_loss 2-d,
# dice; and the rest of the loss zoo (multilabel margin, soft margin, hinge embedding, margin
# ranking, triplet with a distance function, poisson full, huber, l1 sum) -----------------------

def seg_losses(torch, steps):
    F = torch.nn.functional
    nn = torch.nn
    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Conv2d(2, 4, 3, padding=1), t.nn.Tanh(),
                                               t.nn.Conv2d(4, 3, 1)))
    rng = _rng(126)
    x = _data(torch, rng.standard_normal((2, 2, 4, 5)))
    yn = rng.integers(0, 3, (2, 4, 5))
    yn[0, 0, :3] = 255
    y = _data(torch, yn)
    w = torch.tensor([0.5, 2.0, 1.0])
    soft = _data(torch, rng.dirichlet([1, 1, 1], (2, 4, 5)).transpose(0, 3, 1, 2))
    mlm_t = _data(torch, np.array([[2, 0, -1], [1, -1, 0]]))
    sign = _data(torch, np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0]))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    trip = nn.TripletMarginWithDistanceLoss(
        distance_function=lambda a, b: 1.0 - F.cosine_similarity(a, b), margin=0.3, swap=True)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        o = m(x)
        ce = F.cross_entropy(o, y, weight=w, ignore_index=255, label_smoothing=0.2)
        ce_none = F.cross_entropy(o, y, weight=w, ignore_index=255, label_smoothing=0.2,
                                  reduction="none")
        ce_soft = F.cross_entropy(o, soft, weight=w, label_smoothing=0.1)
        nll = F.nll_loss(o.log_softmax(1), y, weight=w, ignore_index=255, reduction="sum")
        flat = o.permute(0, 2, 3, 1).reshape(-1, 3)[:6]
        z = (F.multilabel_margin_loss(flat[:2], mlm_t)
             + F.soft_margin_loss(flat[:, 0], sign)
             + F.hinge_embedding_loss(flat[:, 1].abs(), sign, margin=0.5)
             + F.margin_ranking_loss(flat[:, 0], flat[:, 1], sign, margin=0.1)
             + trip(flat[:2], flat[2:4], flat[4:6])
             + F.poisson_nll_loss(flat.exp(), flat.abs().detach() + 1, log_input=False,
                                  full=True)
             + F.huber_loss(flat, flat.detach().roll(1, 0), delta=0.3)
             + F.l1_loss(flat, flat.detach() * 0.5, reduction="sum") * 0.1)
        loss = ce + ce_soft + nll * 0.01 + z
        loss.backward()
        opt.step()
        out += [loss.item(), ce.item(), ce_soft.item(), nll.item(), z.item(),
                ce_none.sum().item(), ce_none[0, 0, 0].item()]
    return out


# --- 28. in-place and autograd API in a training loop: retain_grad on an intermediate, a
# hook on an intermediate, backward(retain_graph=True) twice, autograd.grad with
# grad_outputs and allow_unused, in-place relu_/clamp_/masked_fill_/index_put_(accumulate) on
# non-leaf arrays, detach_() -----------------------------------------------------------------

def inplace_autograd(torch, steps):
    F = torch.nn.functional
    m = _init(torch, lambda t: t.nn.ModuleList([t.nn.Linear(4, 5), t.nn.Linear(5, 2),
                                                t.nn.Linear(3, 3)]))
    rng = _rng(127)
    x = _data(torch, rng.standard_normal((6, 4)))
    y = _data(torch, rng.standard_normal((6, 2)))
    rows = _data(torch, np.array([0, 2, 2, 5]))
    vals = _data(torch, rng.standard_normal((4, 5)))
    opt = torch.optim.SGD(m.parameters(), lr=0.05)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        h = m[0](x)
        h.retain_grad()
        seen = []
        h.register_hook(lambda g: seen.append(g.abs().sum().item()))
        a = h.clone()
        a.masked_fill_(a > 1.2, 1.2)
        a.index_put_((rows,), vals * 0.1, accumulate=True)
        a.clamp_(max=1.1)
        a.relu_()
        o = m[1](a)
        loss = F.mse_loss(o, y)
        loss.backward(retain_graph=True)
        g1 = h.grad.clone()
        (loss * 0.5).backward(retain_graph=True)
        gx, gu = torch.autograd.grad(o, [a, m[2].weight], grad_outputs=torch.ones_like(o),
                                     allow_unused=True)
        opt.step()
        out += [loss.item(), (h.grad - 1.5 * g1).abs().max().item(), gx.sum().item(),
                gu is None, o.detach().requires_grad] + seen
    z = m[0](x)
    z.detach_()
    out += [z.requires_grad, z.grad_fn is None]
    # (the graph freed by a backward without retain_graph: a second one is refused)
    loss = m[1](m[0](x)).pow(2).sum()
    loss.backward()
    try:
        loss.backward()
    except RuntimeError as e:
        out.append("Trying to backward through the graph a second time" in str(e))
    else:
        out.append("no error")
    # (a saved result modified in place: both libraries refuse the backward)
    a = m[0](x).relu_()
    a.clamp_(max=1.5)
    try:
        a.sum().backward()
    except RuntimeError as e:
        out.append("modified by an inplace operation" in str(e) and "is at version 2; "
                   "expected version 1" in str(e))
    else:
        out.append("no error")
    return out


# --- 29. Newton's method on a small logistic regression with torch.autograd.functional:
# jacobian, hessian, hvp, vjp and jvp; the step by linalg.solve and cholesky_solve ---------------

def newton(torch, steps):
    AF = torch.autograd.functional
    F = torch.nn.functional
    rng = _rng(128)
    X = _data(torch, rng.standard_normal((20, 3)))
    yv = (rng.random(20) > 0.5).astype(np.float64)
    y = _data(torch, yv)

    def loss(w):
        return F.binary_cross_entropy_with_logits(X @ w, y) + 0.05 * (w * w).sum()

    w = torch.zeros(3)
    out = []
    for _ in range(steps):
        g = AF.jacobian(loss, w)
        H = AF.hessian(loss, w)
        _, hv = AF.hvp(loss, w, torch.ones(3))
        _, vj = AF.vjp(lambda v: X @ v, w, torch.ones(20))
        _, jv = AF.jvp(lambda v: X @ v, w, torch.ones(3))
        L = torch.linalg.cholesky(H)
        step1 = torch.linalg.solve(H, g)
        step2 = torch.cholesky_solve(g.unsqueeze(1), L).squeeze(1)
        w = w - step1
        out += [loss(w).item(), (step1 - step2).abs().max().item() < 1e-12]
        out += hv.tolist() + vj.tolist() + jv[:3].tolist()
    return out + w.tolist()


# --- 30. an orthogonal-recurrence RNN: parametrizations.orthogonal on a recurrent weight
# (the weight stays orthogonal through training), the old weight_norm hook API on the output
# layer, LSTMCell/GRUCell unrolled by hand ------------------------------------------------------

def _orth(t):
    n = t.nn

    class Net(n.Module):
        def __init__(s):
            super().__init__()
            s.inp = n.Linear(2, 4)
            s.rec = n.Linear(4, 4, bias=False)
            s.cell = n.GRUCell(4, 3)
            s.out = n.Linear(3, 1)

    return Net()


def orthogonal_rnn(torch, steps):
    P = torch.nn.utils.parametrizations
    m = _init(torch, _orth)
    P.orthogonal(m.rec, "weight")
    torch.nn.utils.weight_norm(m.out, name="weight", dim=0)
    rng = _rng(129)
    xs = _data(torch, rng.standard_normal((5, 3, 2)))
    y = _data(torch, rng.standard_normal((3, 1)))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = [sorted(n for n, _ in m.named_parameters())]
    for _ in range(steps):
        opt.zero_grad()
        h = torch.zeros(3, 4)
        g = None
        for i in range(xs.shape[0]):
            h = torch.tanh(m.inp(xs[i]) + m.rec(h))
            g = m.cell(h, g)
        loss = torch.nn.functional.mse_loss(m.out(g), y)
        loss.backward()
        opt.step()
        W = m.rec.weight
        out += [loss.item(), (W @ W.T - torch.eye(4)).abs().max().item() < 1e-12,
                m.out.weight_g.flatten().tolist()[0]]
    return out


# --- 31. a DataLoader of dict samples: default collate of dicts of numbers and arrays, a
# custom collate_fn padding variable-length sequences, a BatchSampler over a SequentialSampler ---

def dict_loader(torch, steps):
    from importlib import import_module
    data = import_module(torch.__name__ + ".utils.data")
    R = torch.nn.utils.rnn
    rng = _rng(131)
    items = [{"x": torch.tensor(rng.standard_normal(3)), "y": float(rng.standard_normal()),
              "id": i} for i in range(7)]
    seqs = [torch.tensor(rng.standard_normal((n, 2))) for n in (3, 1, 4, 2, 2, 3)]

    def pad_collate(batch):
        lens = torch.tensor([len(b) for b in batch])
        return R.pad_sequence(batch, batch_first=True), lens

    m = _init(torch, lambda t: t.nn.ModuleDict({"a": t.nn.Linear(3, 1), "b": t.nn.Linear(2, 1)}))
    dl1 = data.DataLoader(items, batch_size=3)
    bs = data.BatchSampler(data.SequentialSampler(seqs), batch_size=4, drop_last=False)
    dl2 = data.DataLoader(seqs, batch_sampler=bs, collate_fn=pad_collate)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    out = [len(dl1), len(dl2)]
    for _ in range(steps):
        for batch in dl1:
            opt.zero_grad()
            loss = (m["a"](batch["x"]).squeeze(1) - batch["y"]).pow(2).mean()
            loss.backward()
            opt.step()
            out += [loss.item(), str(batch["y"].dtype).split(".")[-1]] + batch["id"].tolist()
        for xb, lens in dl2:
            opt.zero_grad()
            mask = (torch.arange(xb.shape[1])[None, :] < lens[:, None]).unsqueeze(-1)
            loss = (m["b"](xb) * mask).sum() / lens.sum()
            loss.backward()
            opt.step()
            out += [loss.item()] + list(xb.shape)
    return out


# --- 32. the optimizer's API in a loop: add_param_group for a layer unfrozen later, a manual
# lr change in param_groups, zero_grad(set_to_none=False), step pre/post hooks, a state_dict
# round trip into a fresh optimizer mid-run, Adafactor ------------------------------------------

def optimizer_api(torch, steps):
    F = torch.nn.functional
    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 4), t.nn.GELU(), t.nn.Linear(4, 2)))
    rng = _rng(132)
    x = _data(torch, rng.standard_normal((6, 3)))
    y = _data(torch, rng.standard_normal((6, 2)))
    opt = torch.optim.Adam(m[2].parameters(), lr=1e-2, weight_decay=0.01)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append(len(o.state)))
    af = torch.optim.Adafactor(m.parameters(), lr=1e-2)
    out = []
    for k in range(steps):
        if k == 1:
            opt.add_param_group({"params": m[0].parameters(), "lr": 5e-3})
        if k == 2:
            opt.param_groups[0]["lr"] = 2e-2
            sd = opt.state_dict()
            opt = torch.optim.Adam(
                [{"params": m[2].parameters()}, {"params": m[0].parameters()}], lr=1.0)
            opt.load_state_dict(sd)
            out += [g["lr"] for g in opt.param_groups]
            out += [g["weight_decay"] for g in opt.param_groups]
        opt.zero_grad(set_to_none=False)
        loss = F.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        out += [loss.item(), float(m[0].weight.grad.abs().sum())]
        af.zero_grad()
        F.mse_loss(m(x), y).backward()
        af.step()
    out += calls + [len(opt.param_groups)] + m[0].weight.flatten().tolist()
    return out


# --- 33. a temporal convolutional network: causal Conv1d by left F.pad with growing dilation,
# residual 1x1 convolutions, the weight_norm parametrization, LayerNorm over channels by
# transpose, GLU gating, one-step-ahead forecasting -------------------------------------------

def _tcn(t):
    n = t.nn
    W = t.nn.utils.parametrizations.weight_norm

    class Block(n.Module):
        def __init__(s, cin, cout, d):
            super().__init__()
            s.d = d
            s.conv = W(n.Conv1d(cin, 2 * cout, 2, dilation=d))
            s.res = n.Conv1d(cin, cout, 1) if cin != cout else n.Identity()
            s.norm = n.LayerNorm(cout)

        def forward(s, x):
            h = t.nn.functional.glu(s.conv(t.nn.functional.pad(x, (s.d, 0))), dim=1)
            return s.norm((h + s.res(x)).transpose(1, 2)).transpose(1, 2)

    return n.Sequential(Block(1, 3, 1), Block(3, 3, 2), Block(3, 3, 4), n.Conv1d(3, 1, 1))


def tcn(torch, steps):
    m = _init(torch, _tcn)
    rng = _rng(133)
    t_ = np.arange(20) / 3.0
    series = np.sin(t_)[None, None, :] + 0.1 * rng.standard_normal((2, 1, 20))
    x = _data(torch, series[..., :-1])
    y = _data(torch, series[..., 1:])
    opt = torch.optim.Adamax(m.parameters(), lr=1e-2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    with torch.no_grad():
        out += m(x)[0, 0, -3:].tolist()
    return out


# --- 34. word2vec, skip-gram with negative sampling: two Embeddings, bmm of centre and
# context vectors, logsigmoid, given negative samples, sparse=False SGD ----------------------

def word2vec(torch, steps):
    F = torch.nn.functional
    m = _init(torch, lambda t: t.nn.ModuleDict({"in": t.nn.Embedding(15, 4, max_norm=2.0),
                                                "out": t.nn.Embedding(15, 4)}))
    rng = _rng(134)
    centre = _data(torch, rng.integers(0, 15, 8))
    ctx = _data(torch, rng.integers(0, 15, (8, 2)))
    neg = _data(torch, rng.integers(0, 15, (steps, 8, 5)))
    opt = torch.optim.SGD(m.parameters(), lr=0.5)
    out = []
    for s in range(steps):
        opt.zero_grad()
        c = m["in"](centre).unsqueeze(2)
        pos = torch.bmm(m["out"](ctx), c).squeeze(2)
        ng = torch.bmm(m["out"](neg[s]).neg(), c).squeeze(2)
        loss = -(F.logsigmoid(pos).sum(1) + F.logsigmoid(ng).sum(1)).mean()
        loss.backward()
        opt.step()
        out += [loss.item(), m["in"].weight.norm(dim=1).max().item()]
    sim = F.cosine_similarity(m["in"].weight[:1], m["in"].weight, dim=1)
    out += sim.topk(3).indices.tolist()
    return out


# --- 35. a convolution zoo: padding='valid', tuple strides, circular padding, groups and
# dilation in ConvTranspose2d, forward's output_size=, nearest-exact and area resampling,
# antialiased bilinear and lanczos downsampling, recompute_scale_factor, grid_sample's other
# modes --------------------------------------------------------------------------------------

def _convzoo(t):
    n = t.nn
    return n.ModuleDict({
        "a": n.Conv2d(2, 4, (3, 2), stride=(2, 1), padding="valid"),
        "b": n.Conv2d(4, 4, 3, padding=2, dilation=2, groups=2, padding_mode="circular"),
        "c": n.ConvTranspose2d(4, 2, 3, stride=2, padding=1, groups=2, dilation=1),
        "d": n.ConvTranspose2d(2, 2, (2, 3), stride=(2, 1), dilation=(1, 2), bias=False),
        "e": n.Conv1d(2, 3, 3, stride=2, padding=1, padding_mode="replicate"),
    })


def conv_zoo(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _convzoo)
    rng = _rng(135)
    x = _data(torch, rng.standard_normal((2, 2, 9, 7)))
    theta = _data(torch, np.array([[[0.9, 0.2, 0.1], [-0.1, 1.1, 0.0]]] * 2))
    opt = torch.optim.SGD(m.parameters(), lr=0.02, momentum=0.9)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        h = torch.relu(m["a"](x))
        h = m["b"](h) + h
        up = m["c"](h, output_size=(8, 12))
        up2 = m["d"](up)
        r1 = F.interpolate(up, scale_factor=1.5, mode="nearest-exact")
        r2 = F.interpolate(up, size=(3, 5), mode="area")
        r3 = F.interpolate(up, size=(5, 7), mode="bilinear", antialias=True, align_corners=False)
        r4 = F.interpolate(up, scale_factor=0.7, mode="bilinear", recompute_scale_factor=True)
        r4 = r4 + F.interpolate(up, size=r4.shape[-2:], mode="lanczos", antialias=True)
        grid = F.affine_grid(theta, [2, 2, 5, 6], align_corners=True)
        g1 = F.grid_sample(up, grid, mode="nearest", padding_mode="border", align_corners=True)
        g2 = F.grid_sample(up, grid, mode="bicubic", padding_mode="reflection",
                           align_corners=False)
        e = m["e"](up.mean(2))
        loss = (up2.pow(2).mean() + r1.abs().mean() + r2.pow(2).mean() + r3.mean() ** 2
                + r4.pow(2).mean() + g1.pow(2).mean() + g2.pow(2).mean() + e.pow(2).mean())
        loss.backward()
        opt.step()
        shapes = [list(a.shape) for a in (h, up, up2, r1, r2, r3, r4, g1, e)]
        out += [loss.item(), r3.sum().item(), g2.sum().item(), shapes]
    return out


# --- 36. a normalization zoo: BatchNorm1d over (N, C, L) without affine or running stats,
# InstanceNorm1d tracking running stats, LayerNorm without bias, GroupNorm, LocalResponseNorm,
# RMSNorm over two dims, LazyLinear; train then eval ------------------------------------------

def _normzoo(t):
    n = t.nn
    return n.ModuleDict({
        "bn": n.BatchNorm1d(4, affine=False, track_running_stats=False),
        "bn2": n.BatchNorm1d(4, momentum=None),
        "inorm": n.InstanceNorm1d(4, affine=True, track_running_stats=True),
        "ln": n.LayerNorm(6, bias=False),
        "gn": n.GroupNorm(2, 4, eps=1e-3),
        "rms": n.RMSNorm([4, 6], eps=1e-5),
        "lin": n.Linear(6, 2),
    })


def norm_zoo(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _normzoo)
    rng = _rng(136)
    x = _data(torch, rng.standard_normal((3, 4, 6)) * 2 + 1)
    y = _data(torch, rng.standard_normal((3, 4, 2)))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    out = []

    def fwd(x):
        h = m["inorm"](x)
        h = m["bn"](h) + m["bn2"](x)
        h = m["ln"](h)
        h = m["gn"](h)
        h = F.local_response_norm(h, 3) + m["rms"](h)
        return m["lin"](h)

    for _ in range(steps):
        m.train()
        opt.zero_grad()
        loss = F.mse_loss(fwd(x), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    m.eval()
    with torch.no_grad():
        out += fwd(x[:1]).flatten().tolist()
        out += m["inorm"].running_mean.tolist() + m["bn2"].running_var.tolist()
        out.append(int(m["bn2"].num_batches_tracked))
    return out


# --- 37. an attention zoo: MultiheadAttention sequence-first with a 3-d per-head float mask,
# bool masks of both kinds together, is_causal with its mask, average_attn_weights=True; SDPA
# with a bool mask, a float mask, scale; nn.Transformer sequence-first with gelu --------------

def _attnzoo(t):
    n = t.nn
    return n.ModuleDict({
        "mha": n.MultiheadAttention(6, 3, bias=False),
        "mha2": n.MultiheadAttention(6, 2, batch_first=True),
        "tr": n.Transformer(6, 2, 1, 1, 8, dropout=0.0, activation="gelu"),
    })


def attention_zoo(torch, steps):
    F = torch.nn.functional
    m = _init(torch, _attnzoo)
    rng = _rng(137)
    L, S, B = 4, 5, 2
    q = _data(torch, rng.standard_normal((L, B, 6)))
    kv = _data(torch, rng.standard_normal((S, B, 6)))
    mask3 = _data(torch, rng.standard_normal((B * 3, L, S)))
    kpm = _data(torch, np.array([[0, 0, 0, 0, 1], [0, 0, 0, 1, 1]], dtype=bool))
    am = _data(torch, np.triu(np.ones((L, L), dtype=bool), 1))
    bmask = _data(torch, rng.random((B, 1, L, S)) > 0.3)
    bmask[..., 0] = True
    fmask = _data(torch, rng.standard_normal((L, S)))
    opt = torch.optim.Adam(m.parameters(), lr=5e-3)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        a1, w1 = m["mha"](q, kv, kv, attn_mask=mask3)
        qb = q.transpose(0, 1)
        a2, w2 = m["mha2"](qb, qb, qb, attn_mask=am, key_padding_mask=kpm[:, :L],
                           average_attn_weights=True)
        a3, _ = m["mha2"](qb, qb, qb, attn_mask=am, is_causal=True, need_weights=False)
        Q = qb.reshape(B, L, 2, 3).transpose(1, 2)
        K = kv.transpose(0, 1).reshape(B, S, 2, 3).transpose(1, 2)
        s1 = F.scaled_dot_product_attention(Q, K, K, attn_mask=bmask)
        s2 = F.scaled_dot_product_attention(Q, K, K, attn_mask=fmask, scale=0.3)
        tr = m["tr"](kv, q, tgt_mask=m["tr"].generate_square_subsequent_mask(L),
                     src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
        loss = (a1.pow(2).mean() + a2.pow(2).mean() + a3.pow(2).mean() + s1.pow(2).mean()
                + s2.pow(2).mean() + tr.pow(2).mean())
        loss.backward()
        opt.step()
        out += [loss.item(), w1.sum().item(), list(w1.shape), list(w2.shape), list(tr.shape)]
        out += w2[0, -1].tolist()
    return out


# --- 38. the float32 pipeline a NumPy user writes: float64 data into a float32 model is
# refused (linear, bilinear, a class weight), then .float() data trains with a weighted loss
# and a Bilinear layer; float32 numbers ---------------------------------------------------------

def float32_pipeline(torch, steps):
    F = torch.nn.functional
    torch.set_default_dtype(torch.float32)
    torch_ref = _torch_ref()
    torch_ref.set_default_dtype(torch_ref.float32)
    try:
        m = _init(torch, lambda t: t.nn.ModuleDict({"l": t.nn.Linear(4, 3),
                                                    "b": t.nn.Bilinear(3, 4, 3)}))
        rng = _rng(138)
        x64 = _data(torch, rng.standard_normal((6, 4)))
        y = _data(torch, rng.integers(0, 3, 6))
        w = torch.tensor([1.0, 2.0, 0.5])
        out = [str(x64.dtype).split(".")[-1], str(m["l"].weight.dtype).split(".")[-1]]
        for call in (lambda: m["l"](x64), lambda: m["b"](m["l"](x64.float()), x64),
                     lambda: F.cross_entropy(x64[:, :3], y, weight=w)):
            try:
                call()
                out.append("no error")
            except RuntimeError as e:
                out.append(type(e).__name__ + (" dtype" if "dtype" in str(e) or "scalar type"
                                               in str(e) else str(e)))
        x = x64.float()
        opt = torch.optim.Adam(m.parameters(), lr=1e-2)
        for _ in range(steps):
            opt.zero_grad()
            h = m["l"](x)
            loss = F.cross_entropy(m["b"](torch.tanh(h), x), y, weight=w)
            loss.backward()
            opt.step()
            out += [np.float32(loss.item()), str(loss.dtype).split(".")[-1]]
        return out
    finally:
        torch.set_default_dtype(torch.float64)
        torch_ref.set_default_dtype(torch_ref.float64)


def _torch_ref():
    return torch


# --- 39. pretrained embeddings into a packed LSTM: Embedding.from_pretrained(freeze=False,
# padding_idx), pack_padded_sequence/unpack_sequence/unpad_sequence, a bidirectional 2-layer
# LSTM(proj_size), AdaptiveLogSoftmaxWithLoss, pdist/cdist(p=1), a Frobenius norm, clipping by
# get_total_norm + clip_grads_with_norm_ and clip_grad_norm_(foreach=True) --------------------

def pretrained_lstm(torch, steps):
    U = torch.nn.utils
    R = torch.nn.utils.rnn
    rng = _rng(200)
    pre = _data(torch, rng.standard_normal((10, 4)))

    def make(t):
        return t.nn.ModuleDict({
            "lstm": t.nn.LSTM(4, 5, bidirectional=True, proj_size=3, num_layers=2),
            "asm": t.nn.AdaptiveLogSoftmaxWithLoss(6, 10, cutoffs=[3, 6], div_value=2.0),
            "lin": t.nn.Linear(4, 6)})

    m = _init(torch, make)
    emb = torch.nn.Embedding.from_pretrained(pre, freeze=False, padding_idx=0)
    seqs = [_data(torch, rng.integers(0, 10, n)) for n in (4, 2, 3)]
    y = _data(torch, rng.integers(0, 10, 9))
    opt = torch.optim.SGD(list(m.parameters()) + list(emb.parameters()), lr=0.1)
    out = [emb.weight.requires_grad]
    for _ in range(steps):
        opt.zero_grad()
        # (pack_padded_sequence with CPU lengths, not pack_sequence: pack_sequence makes its
        # lengths on the default device, which PyTorch refuses under a cuda default device,
        # as strided does on the stand-in leg)
        pk = R.pack_padded_sequence(R.pad_sequence([emb(s) for s in seqs]),
                                    torch.tensor([4, 2, 3], device="cpu"), enforce_sorted=False)
        o, (h, c) = m["lstm"](pk)
        outs = R.unpack_sequence(o)
        flat = torch.cat(outs)
        padded = R.pad_sequence([emb(s) for s in seqs])
        tokens = torch.cat(R.unpad_sequence(padded, torch.tensor([4, 2, 3], device="cpu")))
        res = m["asm"](m["lin"](tokens), y)
        loss = (res.loss + flat.pow(2).mean() + torch.pdist(flat[:4]).mean()
                + torch.cdist(flat[:3], flat[3:6], p=1).mean()
                + torch.linalg.norm(h, ord="fro", dim=(1, 2)).sum() * 0.01)
        loss.backward()
        tn = U.get_total_norm([p.grad for p in m.parameters()], norm_type=2.0)
        U.clip_grads_with_norm_(m.parameters(), 1.0, tn)
        n2 = U.clip_grad_norm_(emb.parameters(), 0.5, foreach=True)
        opt.step()
        out += [loss.item(), res.output.sum().item(), tn.item(), n2.item()]
        out += [list(t.shape) for t in outs]
    with torch.no_grad():
        out += m["asm"].log_prob(m["lin"](pre[:2])).flatten().tolist()
        out += m["asm"].predict(m["lin"](pre[:3])).tolist()
    out += emb.weight[0].tolist() + [float(pre[1, 0])]
    return out


# --- 40. a user-written optimizer (Lion: an Optimizer subclass with @no_grad step, a closure
# under enable_grad, per-parameter state, p.data) and scheduler (an LRScheduler subclass with
# get_lr); state_dict round trip and repr -----------------------------------------------------

def custom_optimizer(torch, steps):
    F = torch.nn.functional

    class Lion(torch.optim.Optimizer):
        """Lion (Chen et al. 2023): the sign of an interpolated momentum."""

        def __init__(self, params, lr=1e-3, betas=(0.9, 0.99), weight_decay=0.0):
            if lr <= 0:
                raise ValueError(f"Invalid learning rate: {lr}")
            super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

        @torch.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with torch.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.data.mul_(1 - group["lr"] * group["weight_decay"])
                    state = self.state[p]
                    if len(state) == 0:
                        state["exp_avg"] = torch.zeros_like(p)
                    exp_avg = state["exp_avg"]
                    b1, b2 = group["betas"]
                    update = exp_avg * b1 + p.grad * (1 - b1)
                    p.add_(torch.sign(update), alpha=-group["lr"])
                    exp_avg.mul_(b2).add_(p.grad, alpha=1 - b2)
            return loss

    class Warm(torch.optim.lr_scheduler.LRScheduler):
        """A linear warmup over ``warm`` steps."""

        def __init__(self, opt, warm, last_epoch=-1):
            self.warm = warm
            super().__init__(opt, last_epoch)

        def get_lr(self):
            return [b * min(1.0, (self.last_epoch + 1) / self.warm) for b in self.base_lrs]

    m = _init(torch, lambda t: t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(),
                                               t.nn.Linear(4, 2)))
    rng = _rng(300)
    x = _data(torch, rng.standard_normal((6, 3)))
    y = _data(torch, rng.standard_normal((6, 2)))
    opt = Lion(m.parameters(), lr=0.01, weight_decay=0.1)
    sch = Warm(opt, 3)
    out = []
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            l = F.mse_loss(m(x), y)
            l.backward()
            return l

        l = opt.step(closure)
        sch.step()
        out += [l.item(), sch.get_last_lr()[0], len(opt.state)]
    sd = opt.state_dict()
    out += [sorted(sd["param_groups"][0].keys()), sorted(sd["state"][0].keys())]
    opt2 = Lion(m.parameters(), lr=1.0)
    opt2.load_state_dict(sd)
    out += [opt2.param_groups[0]["lr"], repr(opt2).replace("\n", "|")]
    return out


# --- the tests --------------------------------------------------------------------------------

def _compare(ref, got, rtol=1e-11, atol=1e-13):
    assert len(ref) == len(got), (len(ref), len(got))
    for i, (r, g) in enumerate(zip(ref, got)):
        assert type(r) is type(g), (i, r, g)
        if isinstance(r, np.float32):
            # (a number a program computes in float32)
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6, err_msg=f"entry {i}")
            continue
        if not isinstance(r, float):
            assert r == g, (i, r, g)
            continue
        np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, equal_nan=False,
                                   err_msg=f"entry {i}")


PROGRAMS = {
    "resnet": (resnet, 4, {}),
    "unet": (unet, 4, {}),
    "transformer_decoder": (decoder, 3, {}),
    "gru_packed": (gru_packed, 4, {}),
    "ctc_train": (ctc_train, 4, {}),
    "text_classifier": (text_classifier, 4, {}),
    "gan": (gan, 4, {}),
    "ppo": (ppo, 4, {}),
    "distill": (distill, 4, {}),
    "simclr": (simclr, 4, {}),
    "schedulers": (schedulers, 6, {}),
    "accumulate": (accumulate, 4, {}),
    "dict_model": (dict_model, 4, {}),
    "einsum_attention": (einsum_attention, 4, {}),
    "delicate": (delicate, 4, {}),
    "llama": (llama, 4, {}),
    "func_dpsgd": (func_dpsgd, 3, {}),
    "video3d": (video, 3, {}),
    "distributions": (distributions, 4, {}),
    "flow": (flow, 4, {}),
    "gat": (gat, 4, {}),
    "ranking": (ranking, 4, {}),
    "maml": (maml, 3, {}),
    "vit": (vit, 4, {}),
    "dqn": (dqn, 4, {}),
    "crf": (crf, 4, {}),
    "seg_losses": (seg_losses, 3, {}),
    "inplace_autograd": (inplace_autograd, 3, {}),
    "newton": (newton, 4, {}),
    "orthogonal_rnn": (orthogonal_rnn, 4, {}),
    "dict_loader": (dict_loader, 2, {}),
    "optimizer_api": (optimizer_api, 4, {}),
    "tcn": (tcn, 4, {}),
    "word2vec": (word2vec, 4, {}),
    "conv_zoo": (conv_zoo, 3, {}),
    "norm_zoo": (norm_zoo, 4, {}),
    "attention_zoo": (attention_zoo, 3, {}),
    # (float32: both libraries round in float32 and Adam divides by small running norms:
    # rtol 1e-5 on the np.float32 entries)
    "float32_pipeline": (float32_pipeline, 4, {}),
    "pretrained_lstm": (pretrained_lstm, 3, {}),
    "custom_optimizer": (custom_optimizer, 4, {}),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_pytorch(name):
    program, steps, tol = PROGRAMS[name]
    ref = program(torch, steps)
    got = program(st, steps)
    _compare(ref, got, **tol)


# --- focused: Adam/AdamW on a 0-d parameter (the dict_model program's ParameterDict
# temperature): the host path's NumPy temporaries were scalars, not arrays -----------------

@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("kw", [{}, dict(weight_decay=0.1, amsgrad=True),
                                dict(fused=True, maximize=True)])
@pytest.mark.parametrize("default", ["float64", "float32"])
def test_adam_updates_a_0d_parameter_as_pytorch(name, kw, default):
    res = []
    for lib in LIBS:
        lib.set_default_dtype(getattr(lib, default))
        w = lib.nn.Parameter(lib.tensor(1.5))
        v = lib.nn.Parameter(lib.tensor([1.5, -2.0]))
        opt = getattr(lib.optim, name)([w, v], lr=0.1, **kw)
        for _ in range(3):
            opt.zero_grad()
            (w * w * 3 + (v * v * w).sum()).backward()
            opt.step()
        state = opt.state[w]
        res.append([to_numpy(w), to_numpy(v)] + [to_numpy(state[k]) for k in sorted(state)]
                   + [tuple(state["exp_avg"].shape), str(w.dtype).removeprefix("torch.")])
    tol = dict(rtol=1e-12, atol=1e-14) if default == "float64" else dict(rtol=1e-5, atol=1e-6)
    assert len(res[0]) == len(res[1])
    for r, s in zip(res[0][:-2], res[1][:-2]):
        np.testing.assert_allclose(s, r, **tol)
    assert res[1][-2:] == res[0][-2:] == [(), default]


# --- focused: torch.complex and torch.polar are differentiable (the llama program's complex
# rotary embedding): PyTorch's real(grad)/imag(grad), broadcast inputs summed back ---------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 1), (3,)), ((), (2, 3))])
@pytest.mark.parametrize("which", ["complex", "polar"])
@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)])
def test_complex_and_polar_gradients(dtype, shapes, which, grads):
    rng = _rng(130)
    a0, b0 = (rng.standard_normal(s).astype(dtype) for s in shapes)
    w0 = rng.standard_normal(np.broadcast_shapes(*shapes)) + 1j * rng.standard_normal(
        np.broadcast_shapes(*shapes))
    w0 = w0.astype("complex64" if dtype == "float32" else "complex128")
    res = []
    for lib in LIBS:
        a, b = (_T(lib, v, grad=g) for v, g in zip((a0, b0), grads))
        z = getattr(lib, which)(a, b)
        loss = (z * _T(lib, w0)).abs().sum() + (z * z).imag.sum()
        loss.backward()
        res.append([to_numpy(z), to_numpy(loss)]
                   + [to_numpy(t.grad) if g else t.grad for t, g in zip((a, b), grads)]
                   + [str(z.dtype).removeprefix("torch."), z.requires_grad])
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    for r, s in zip(res[0][:4], res[1][:4]):
        if r is None:
            assert s is None
        else:
            np.testing.assert_allclose(s, r, **tol)
    assert res[1][4:] == res[0][4:]


def test_complex_keeps_exact_parts_when_differentiated():
    re = np.array([1.0, -0.0, np.inf, 2.0])
    im = np.array([np.inf, 3.0, 0.0, -np.inf])
    res = []
    for lib in LIBS:
        a, b = _T(lib, re, grad=True), _T(lib, im, grad=True)
        z = lib.complex(a, b)
        (z.real.sum() * 0 + z.imag[1] * 2).backward()
        res.append((to_numpy(z), to_numpy(a.grad), to_numpy(b.grad)))
    np.testing.assert_array_equal(res[1][0], res[0][0])
    np.testing.assert_array_equal(np.signbit(res[1][0].real), np.signbit(res[0][0].real))
    np.testing.assert_array_equal(res[1][1], res[0][1])
    np.testing.assert_array_equal(res[1][2], res[0][2])
    # (polar's abs gradient is PyTorch's real(conj(g) * sgn(result)): 0 at abs 0, negated for a
    # negative abs)
    res = []
    for lib in LIBS:
        a, b = _T(lib, np.array([0.0, -1.0, 2.0]), grad=True), _T(lib, np.array([0.3, 1.0, -2.0]),
                                                                  grad=True)
        (lib.polar(a, b) * _T(lib, np.array([1 + 1j, 2 - 1j, -1j]))).real.sum().backward()
        res.append((to_numpy(a.grad), to_numpy(b.grad)))
    assert res[0][0][0] == 0.0
    for r, g in zip(*res):
        np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-15)
    # (out= stays refused, as before)
    with pytest.raises(TypeError, match="out="):
        st.complex(st.tensor([1.0]), st.tensor([1.0]), out=st.zeros(1, dtype=st.complex128))


def _T(lib, a, grad=False):
    a = np.asarray(a)
    t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
    if grad:
        t.requires_grad_(True)
    return t


# --- focused: interpolate(antialias=True) (the conv_zoo program's antialiased downsampling):
# PyTorch's weights (Pillow's filters), float32 and float64, gradients ------------------------

_AA_CASES = [((9, 7), dict(size=(5, 3))), ((9, 7), dict(size=(13, 4))),
             ((8, 8), dict(scale_factor=0.37)), ((10, 6), dict(scale_factor=(0.5, 1.7))),
             ((31, 17), dict(size=(4, 16))), ((5, 5), dict(size=(5, 5))),
             ((12, 9), dict(scale_factor=0.45, recompute_scale_factor=True)),
             ((3, 40), dict(size=(1, 7)))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode, align_corners", [("bilinear", False), ("bilinear", True),
                                                 ("bicubic", False), ("bicubic", True),
                                                 ("lanczos", False)])
@pytest.mark.parametrize("case", range(len(_AA_CASES)))
def test_interpolate_antialias_matches_pytorch(dtype, mode, align_corners, case):
    (H, W), kw = _AA_CASES[case]
    rng = _rng(140 + case)
    x0 = rng.standard_normal((2, 3, H, W)).astype(dtype)
    res = []
    for lib in LIBS:
        x = _T(lib, x0, grad=True)
        y = lib.nn.functional.interpolate(x, mode=mode, align_corners=align_corners,
                                          antialias=True, **kw)
        w = _rng(7).standard_normal(tuple(y.shape)).astype(dtype)
        (y * _T(lib, w)).sum().backward()
        res.append((to_numpy(y), to_numpy(x.grad), str(y.dtype).removeprefix("torch.")))
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    assert res[1][0].shape == res[0][0].shape
    assert res[1][2] == res[0][2] == dtype
    np.testing.assert_allclose(res[1][0], res[0][0], **tol)
    np.testing.assert_allclose(res[1][1], res[0][1], **tol)


def test_interpolate_antialias_errors():
    for lib in LIBS:
        F = lib.nn.functional
        for mode, shape in (("nearest", (1, 1, 4, 4)), ("linear", (1, 1, 4)),
                            ("bilinear", (1, 1, 1, 4, 4)), ("area", (1, 1, 4, 4))):
            x = lib.zeros(*shape)
            with pytest.raises(ValueError, match="Anti-alias option is restricted to bilinear, "
                                                 "bicubic, and lanczos modes"):
                F.interpolate(x, size=(2,) * (len(shape) - 2), mode=mode, antialias=True)
        x = lib.zeros(1, 1, 4, 4)
        with pytest.raises(ValueError, match="Lanczos mode requires antialias=True"):
            F.interpolate(x, size=2, mode="lanczos")
        with pytest.raises(ValueError, match="Lanczos mode does not support align_corners=True"):
            F.interpolate(x, size=2, mode="lanczos", antialias=True, align_corners=True)
        with pytest.raises(NotImplementedError, match="lanczos"):
            F.interpolate(lib.zeros(1, 1, 4), size=2, mode="lanczos")


# --- focused: grid_sample(mode='bicubic') (the conv_zoo program): PyTorch's 16 taps, each
# padded (zeros, border, reflection), values and the gradients of input and grid -------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6), (1, 1, 1, 4)])
def test_grid_sample_bicubic_matches_pytorch(dtype, padding_mode, align_corners, shape):
    rng = _rng(150)
    x0 = rng.standard_normal(shape).astype(dtype)
    g0 = rng.uniform(-1.6, 1.6, (shape[0], 4, 7, 2)).astype(dtype)
    g0[0, 0, :3] = [[1.0, -1.0], [0.0, 0.0], [-1.0, 1.0]]
    res = []
    for lib in LIBS:
        x, g = _T(lib, x0, grad=True), _T(lib, g0, grad=True)
        y = lib.nn.functional.grid_sample(x, g, mode="bicubic", padding_mode=padding_mode,
                                          align_corners=align_corners)
        w = _rng(8).standard_normal(tuple(y.shape)).astype(dtype)
        (y * _T(lib, w)).sum().backward()
        res.append((to_numpy(y), to_numpy(x.grad), to_numpy(g.grad)))
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    for r, s in zip(*res):
        assert r.shape == s.shape
        np.testing.assert_allclose(s, r, **tol)


# --- focused: linear, bilinear and nll_loss's class weight refuse mixed dtypes as PyTorch
# (the float32_pipeline program: float64 data into a float32 model) ---------------------------

_MIXED = {
    "linear input": (lambda L, d, f: L.nn.functional.linear(L.ones(2, 3, dtype=d),
                                                            L.ones(2, 3, dtype=f)),
                     "expected m1 and m2 to have the same dtype, but got: double != float"),
    "linear 1-d input": (lambda L, d, f: L.nn.functional.linear(L.ones(3, dtype=f),
                                                                L.ones(2, 3, dtype=d)),
                         "expected m1 and m2 to have the same dtype, but got: float != double"),
    "linear int input": (lambda L, d, f: L.nn.Linear(3, 2)(L.ones(2, 3, dtype=L.int64)),
                         "mat1 and mat2 must have the same dtype, but got Long and Double"),
    "linear 3-d input, bias": (lambda L, d, f: L.nn.functional.linear(
        L.ones(4, 2, 3, dtype=d), L.ones(2, 3, dtype=f), L.ones(2, dtype=f)),
        "mat1 and mat2 must have the same dtype, but got Double and Float"),
    "linear bias first": (lambda L, d, f: L.nn.functional.linear(
        L.ones(2, 3, dtype=d), L.ones(2, 3, dtype=f), L.ones(2, dtype=d)),
        "self and mat2 must have the same dtype, but got Double and Float"),
    "linear bias": (lambda L, d, f: L.nn.functional.linear(
        L.ones(4, 2, 3, dtype=f), L.ones(2, 3, dtype=f), L.ones(2, dtype=d)),
        "self and mat2 must have the same dtype, but got Double and Float"),
    "bilinear weight": (lambda L, d, f: L.nn.functional.bilinear(
        L.ones(2, 3, dtype=d), L.ones(2, 3, dtype=d), L.ones(2, 3, 3, dtype=f)),
        "All tensors must have the same dtype, got input1: double, input2: double, "
        "weight: float"),
    "bilinear bias": (lambda L, d, f: L.nn.functional.bilinear(
        L.ones(2, 3, dtype=f), L.ones(2, 3, dtype=f), L.ones(2, 3, 3, dtype=f),
        L.ones(2, dtype=d)), "bias: double"),
    "nll weight": (lambda L, d, f: L.nn.functional.nll_loss(
        L.ones(2, 3, 2, dtype=d), L.zeros(2, 2, dtype=L.int64), weight=L.ones(3, dtype=f)),
        "expected scalar type Double but found Float"),
    "cross_entropy weight": (lambda L, d, f: L.nn.functional.cross_entropy(
        L.ones(2, 3, dtype=f), L.tensor([0, 1]), weight=L.ones(3, dtype=d),
        label_smoothing=0.1), "expected scalar type Float but found Double"),
    "nll int weight": (lambda L, d, f: L.nn.functional.nll_loss(
        L.ones(3, dtype=d), L.tensor(0), weight=L.ones(3, dtype=L.int64)),
        "expected scalar type Double but found Long"),
}


@pytest.mark.parametrize("case", list(_MIXED))
def test_mixed_dtypes_are_refused_as_pytorch(case):
    call, msg = _MIXED[case]
    for lib in LIBS:
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            call(lib, lib.float64, lib.float32)


def test_same_dtypes_still_agree():
    # (the checks refuse only a mismatch: probability targets with a weight of another dtype
    # are PyTorch's promotion, and every same-dtype call runs)
    res = []
    for lib in LIBS:
        d, f = lib.float64, lib.float32
        F = lib.nn.functional
        a = F.cross_entropy(lib.ones(2, 3, dtype=d), lib.full((2, 3), 0.3, dtype=d),
                            weight=lib.tensor([1.0, 2.0, 3.0], dtype=f))
        b = F.linear(lib.ones(2, 3, dtype=f), lib.ones(2, 3, dtype=f), lib.ones(2, dtype=f))
        c = F.bilinear(lib.ones(1, 2, dtype=d), lib.ones(1, 2, dtype=d), lib.ones(1, 2, 2, dtype=d))
        res.append([(to_numpy(t).tolist(), str(t.dtype).removeprefix("torch.")) for t in (a, b, c)])
    assert res[0] == res[1]


# --- focused: ParameterList's repr lists its parameters (the dict_model program's printed
# model showed an empty ParameterList) -------------------------------------------------------

@pytest.mark.parametrize("shapes", [[(2, 3)], [(2, 3), ()], []])
def test_parameter_list_repr_as_pytorch(shapes):
    reprs = []
    for lib in LIBS:
        m = lib.nn.Sequential(lib.nn.ParameterList(
            [lib.nn.Parameter(lib.ones(s, dtype=lib.float32, device="cpu")) for s in shapes]))
        reprs.append(repr(m))
    # (the dtype reads "float32" in strided, "torch.float32" in PyTorch)
    assert reprs[1] == reprs[0].replace("torch.float32", "float32")
    assert repr(st.nn.ParameterDict({"a": st.nn.Parameter(st.ones(2, 3, device="cpu"))})) == \
        "ParameterDict(  (a): Parameter containing: [float64 array of size 2x3])"


@pytest.mark.parametrize("name", ["ones", "zeros", "empty", "rand", "randn"])
def test_creation_without_a_size_is_refused_as_pytorch(name):
    # (found writing the repr test: strided's ones() gave a 0-d array; PyTorch's needs a size,
    # also with out=, and a 0-d array is ones(()))
    # (PyTorch's rand() and randn() word it "received an invalid combination of arguments")
    msg = "missing 1 required positional arguments|invalid combination of arguments"
    for lib in LIBS:
        with pytest.raises(TypeError, match=msg):
            getattr(lib, name)()
        with pytest.raises(TypeError, match=msg):
            getattr(lib, name)(dtype=lib.float32)
        with pytest.raises(TypeError, match=msg):
            getattr(lib, name)(out=lib.empty(2))
        assert tuple(getattr(lib, name)(()).shape) == ()
        assert tuple(getattr(lib, name)(size=()).shape) == ()


def test_copied_weights_land_on_the_models_device():
    # (_init's load_state_dict of NumPy arrays: on the stand-in leg the model is on cuda and
    # its parameters and buffers stay there, as after a CUDA user's .to(device))
    m = _init(st, _resnet)
    dev = st.get_default_device()
    arrays = list(m.parameters()) + list(m.buffers())
    assert arrays and all(a.device == dev for a in arrays)
    ref = _init(torch, _resnet)
    for (k, a), (k2, b) in zip(sorted(m.state_dict().items()), sorted(ref.state_dict().items())):
        assert k == k2
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))



# --- focused: Embedding/EmbeddingBag.from_pretrained (the pretrained_lstm program): the table
# shared, frozen by default, the padding row kept, options passed on ------------------------

@pytest.mark.parametrize("freeze", [True, False])
def test_from_pretrained_as_pytorch(freeze):
    res = []
    for lib in LIBS:
        w = _T(lib, _rng(160).standard_normal((5, 3)))
        e = lib.nn.Embedding.from_pretrained(w, freeze=freeze, padding_idx=2, max_norm=1.5)
        b = lib.nn.EmbeddingBag.from_pretrained(w.clone(), freeze=freeze, mode="max",
                                                include_last_offset=True)
        with lib.no_grad():
            w[0, 0] = 9.0  # (the same memory)
        ids = _T(lib, np.array([[2, 4, 1]]))
        out = e(ids)
        bag = b(ids.flatten(), _T(lib, np.array([0, 1, 3])))
        if not freeze:
            (out.sum() + bag.sum()).backward()
        res.append([repr(e), repr(b), e.weight.requires_grad, b.weight.requires_grad,
                    [to_numpy(a) for a in (e.weight, out, bag)]
                    + ([] if freeze else [to_numpy(e.weight.grad)])])
    assert res[0][:4] == res[1][:4]
    assert len(res[0][4]) == len(res[1][4])
    for r, g in zip(res[0][4], res[1][4]):
        np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-15)
    for lib in LIBS:
        with pytest.raises(AssertionError, match="expected to be 2-dimensional"):
            lib.nn.Embedding.from_pretrained(lib.ones(3))
        with pytest.raises(AssertionError, match="expected to be 2-dimensional"):
            lib.nn.EmbeddingBag.from_pretrained(lib.ones(2, 2, 2))
