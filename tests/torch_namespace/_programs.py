"""Small but real PyTorch programs, written once against a ``torch`` module argument.

Each program is ``prog(torch, ctx)``: ``torch`` is PyTorch or ``strided.torch``, and
``ctx`` (a ``Ctx``) gives it data from a NumPy generator seeded the same for both runs
(``ctx.data``, ``ctx.ints``) and the initial weights of its modules (``ctx.init(module)``:
the PyTorch run records each parameter as a NumPy array, the strided run copies the
recorded arrays in, by name). A program returns a dict of results (arrays, floats, or
lists of them: losses per step, final parameters, gradients); ``run_both`` runs it
through both libraries and ``compare`` checks every result against PyTorch's.

Nothing in a program knows which library it runs on: they are PyTorch code, unchanged.
"""

from __future__ import annotations

import io
import math

import numpy as np


class Ctx:
    def __init__(self, torch, seed: int, weights=None):
        self.torch = torch
        self.rng = np.random.default_rng(seed)
        self.weights = weights  # None: record (the PyTorch run); else {name: array} to load
        self.recorded = {}
        self.n_init = 0

    def array(self, a):
        """A NumPy array as a tensor on the default device (strided's: cuda over the CuPy
        stand-in in CI's second leg; from_numpy is a host array, as PyTorch's)."""
        t = self.torch.from_numpy(a)
        if self.torch.__name__ != "torch":
            t = t.to(self.torch.get_default_device())
        return t

    def data(self, *shape, scale=1.0, dtype="float32", requires_grad=False):
        a = (self.rng.standard_normal(shape) * scale).astype(dtype)
        t = self.array(a)
        return t.requires_grad_() if requires_grad else t

    def ints(self, high, *shape):
        return self.array(self.rng.integers(0, high, shape).astype(np.int64))

    def init(self, module, tag: str = ""):
        """The same initial parameters in both runs (PyTorch's, copied across as NumPy)."""
        torch = self.torch
        self.n_init += 1
        prefix = f"{tag or self.n_init}."
        with torch.no_grad():
            for name, p in module.named_parameters():
                key = prefix + name
                if self.weights is None:
                    self.recorded[key] = p.detach().cpu().numpy().copy()
                else:
                    if key not in self.weights:
                        raise AssertionError(f"parameter {key} is not among PyTorch's "
                                             f"({sorted(self.weights)})")
                    w = self.weights[key]
                    if tuple(p.shape) != w.shape:
                        raise AssertionError(f"parameter {key}: shape {tuple(p.shape)}, PyTorch's {w.shape}")
                    p.copy_(self.array(w.copy()))
        return module


# --- the programs ------------------------------------------------------------------------

def mlp_sgd_momentum(torch, ctx):
    """An MLP classifier trained a few steps: Linear/ReLU, CrossEntropyLoss, SGD with
    momentum, Nesterov and weight decay; zero_grad; loss.item()."""
    nn = torch.nn
    model = ctx.init(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(),
                                   nn.Linear(16, 4)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    x, y = ctx.data(32, 8), ctx.ints(4, 32)
    losses = []
    for _ in range(6):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        acc = (model(x).argmax(dim=1) == y).float().mean()
    return {"losses": losses, "acc": acc, **{k: v for k, v in model.state_dict().items()}}


def cnn_adam(torch, ctx):
    """A small CNN: Conv2d, BatchNorm2d (training then eval), MaxPool2d, Flatten, Linear,
    Adam with amsgrad; running statistics are compared too."""
    nn = torch.nn
    model = ctx.init(nn.Sequential(
        # (no bias before BatchNorm: its gradient is 0 up to rounding, which Adam would
        # normalise into a full-size step of noise)
        nn.Conv2d(2, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 6, 3, stride=2, padding=1, bias=False), nn.GELU(), nn.Flatten(),
        nn.Linear(6 * 2 * 2, 3)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
    x, y = ctx.data(5, 2, 8, 8), ctx.ints(3, 5)
    losses = []
    for _ in range(4):
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y, label_smoothing=0.1)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    model.eval()
    with torch.no_grad():
        out = model(x)
    return {"losses": losses, "eval_out": out, **model.state_dict()}




def custom_function_old_style(torch, ctx):
    """A custom autograd.Function (forward(ctx, ...), save_for_backward, needs_input_grad,
    a non-tensor argument) inside a model, trained with SGD."""

    class ScaledSoftplus(torch.autograd.Function):
        @staticmethod
        def forward(ctx_, x, beta):
            ctx_.save_for_backward(x)
            ctx_.beta = beta
            return torch.log1p(torch.exp(beta * x)) / beta

        @staticmethod
        def backward(ctx_, g):
            (x,) = ctx_.saved_tensors
            return (g * torch.sigmoid(ctx_.beta * x) if ctx_.needs_input_grad[0] else None), None

    nn = torch.nn
    lin1, lin2 = ctx.init(nn.Linear(5, 7)), ctx.init(nn.Linear(7, 1))
    opt = torch.optim.SGD(list(lin1.parameters()) + list(lin2.parameters()), lr=0.05)
    x, t = ctx.data(20, 5), ctx.data(20, 1)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        out = lin2(ScaledSoftplus.apply(lin1(x), 2.0))
        loss = ((out - t) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "w1": lin1.weight, "w2": lin2.weight, "g1": lin1.weight.grad}


def custom_function_setup_context(torch, ctx):
    """The new-style Function: forward without ctx, setup_context, mark_non_differentiable
    on an index output, set_materialize_grads(False)."""

    class MaxAlongRows(torch.autograd.Function):
        @staticmethod
        def forward(x):
            values, idx = x.max(dim=1)
            return values, idx

        @staticmethod
        def setup_context(ctx_, inputs, output):
            (x,) = inputs
            _, idx = output
            ctx_.mark_non_differentiable(idx)
            ctx_.save_for_backward(idx)
            ctx_.shape = x.shape
            ctx_.set_materialize_grads(False)

        @staticmethod
        def backward(ctx_, g, g_idx):
            (idx,) = ctx_.saved_tensors
            out = torch.zeros(ctx_.shape, dtype=g.dtype)
            out.scatter_(1, idx.unsqueeze(1), g.unsqueeze(1))
            return out

    x = ctx.data(6, 5, requires_grad=True)
    w = ctx.data(6)
    values, idx = MaxAlongRows.apply(x * 2.0)
    (values * w).sum().backward()
    return {"values": values, "idx": idx, "grad": x.grad, "idx_requires_grad": float(idx.requires_grad)}


def gru_sequence(torch, ctx):
    """A 2-layer batch-first GRU over a sequence, a Linear head on the last step, MSE loss;
    gradients of every parameter and of the input."""
    nn = torch.nn
    gru = ctx.init(nn.GRU(4, 6, num_layers=2, batch_first=True))
    head = ctx.init(nn.Linear(6, 2))
    x = ctx.data(3, 5, 4, requires_grad=True)
    h0 = ctx.data(2, 3, 6)
    out, hn = gru(x, h0)
    loss = nn.functional.mse_loss(head(out[:, -1]), ctx.data(3, 2))
    loss.backward()
    res = {"loss": loss, "out": out, "hn": hn, "x_grad": x.grad}
    res.update({f"grad.{n}": p.grad for n, p in gru.named_parameters()})
    return res


def lstm_cell_loop(torch, ctx):
    """An LSTMCell stepped by hand over a sequence (truncated BPTT: detach every 3 steps),
    with RMSprop."""
    nn = torch.nn
    cell = ctx.init(nn.LSTMCell(3, 5))
    head = ctx.init(nn.Linear(5, 1))
    params = list(cell.parameters()) + list(head.parameters())
    opt = torch.optim.RMSprop(params, lr=1e-2, alpha=0.9, momentum=0.5)
    xs, ys = ctx.data(9, 4, 3), ctx.data(9, 4, 1)
    h = torch.zeros(4, 5)
    c = torch.zeros(4, 5)
    losses = []
    for start in range(0, 9, 3):
        h, c = h.detach(), c.detach()
        opt.zero_grad()
        loss = 0.0
        for t in range(start, start + 3):
            h, c = cell(xs[t], (h, c))
            loss = loss + nn.functional.smooth_l1_loss(head(h), ys[t], beta=0.5)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "h": h, "c": c, **{n: p for n, p in cell.named_parameters()}}


def attention_block(torch, ctx):
    """Self-attention written out (q, k, v projections, causal mask by masked_fill,
    softmax, dropout off), checked against F.scaled_dot_product_attention, then a
    MultiheadAttention module; gradients of the input."""
    nn, F = torch.nn, torch.nn.functional
    B, L, E, H = 2, 5, 8, 2
    qkv = ctx.init(nn.Linear(E, 3 * E))
    x = ctx.data(B, L, E, requires_grad=True)
    q, k, v = qkv(x).chunk(3, dim=-1)
    q, k, v = (t.view(B, L, H, E // H).transpose(1, 2) for t in (q, k, v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(E // H)
    mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
    scores = scores.masked_fill(mask, float("-inf"))
    manual = torch.softmax(scores, dim=-1) @ v
    fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    mha = ctx.init(nn.MultiheadAttention(E, H, batch_first=True))
    y, w = mha(x, x, x, need_weights=True)
    loss = manual.pow(2).sum() + y.sum()
    loss.backward()
    return {"manual": manual, "fused_minus_manual": (fused - manual).abs().max(), "mha": y,
            "mha_weights": w, "x_grad": x.grad}


def losses_and_reductions(torch, ctx):
    """Losses with reduction none/sum/mean, class weights, ignore_index, pos_weight,
    KL divergence with batchmean, and their gradients."""
    F = torch.nn.functional
    logits = ctx.data(7, 4, requires_grad=True)
    target = ctx.ints(4, 7)
    target[2] = -100
    w = torch.tensor([0.5, 1.0, 2.0, 1.5])
    pred = ctx.data(7, 3, requires_grad=True)
    goal = ctx.data(7, 3)
    bin_t = (ctx.data(7, 3) > 0).float()
    parts = {
        "ce_none": F.cross_entropy(logits, target, weight=w, reduction="none"),
        "ce_mean": F.cross_entropy(logits, target, weight=w),
        "nll_sum": F.nll_loss(F.log_softmax(logits, dim=1), target, reduction="sum"),
        "bce": F.binary_cross_entropy_with_logits(pred, bin_t, pos_weight=torch.tensor([1.0, 2.0, 0.5])),
        "huber": F.huber_loss(pred, goal, delta=0.7, reduction="sum"),
        "l1": F.l1_loss(pred, goal),
        "kl": F.kl_div(F.log_softmax(pred, dim=1), F.softmax(goal, dim=1), reduction="batchmean"),
    }
    total = sum(v.sum() for v in parts.values())
    total.backward()
    return {**parts, "logits_grad": logits.grad, "pred_grad": pred.grad}


def grad_clipping_adamw(torch, ctx):
    """AdamW with clip_grad_norm_ (the returned total norm) and clip_grad_value_ on
    alternate steps; two parameter groups with their own learning rates."""
    nn = torch.nn
    model = ctx.init(nn.Sequential(nn.Linear(6, 10), nn.SiLU(), nn.Linear(10, 3)))
    opt = torch.optim.AdamW([{"params": model[0].parameters(), "lr": 3e-2},
                             {"params": model[2].parameters()}], lr=1e-2, weight_decay=0.05)
    x, y = ctx.data(16, 6, scale=3.0), ctx.data(16, 3, scale=3.0)
    norms, losses = [], []
    for step in range(6):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y) * 10
        loss.backward()
        if step % 2 == 0:
            norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))
        else:
            nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "norms": norms, **model.state_dict()}


def lr_schedulers(torch, ctx):
    """SGD under a warmup (LinearLR) then cosine schedule (SequentialLR), and
    ReduceLROnPlateau on a second optimizer: the learning rates and parameters."""
    nn = torch.nn
    lin = ctx.init(nn.Linear(4, 1))
    opt = torch.optim.SGD(lin.parameters(), lr=0.2, momentum=0.8)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
    cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=0.01)
    sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[3])
    lin2 = ctx.init(nn.Linear(4, 1))
    opt2 = torch.optim.SGD(lin2.parameters(), lr=0.5)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt2, factor=0.5, patience=1)
    x, y = ctx.data(10, 4), ctx.data(10, 1)
    lrs, lrs2, losses = [], [], []
    for _ in range(9):
        for o, m in ((opt, lin), (opt2, lin2)):
            o.zero_grad()
            loss = ((m(x) - y) ** 2).mean()
            loss.backward()
            o.step()
        sched.step()
        plateau.step(5.0)  # a flat metric: the learning rate halves after patience epochs
        lrs.append(sched.get_last_lr()[0])
        lrs2.append(opt2.param_groups[0]["lr"])
        losses.append(loss.item())
    return {"lrs": lrs, "lrs2": lrs2, "losses": losses, "w": lin.weight, "b": lin.bias, "w2": lin2.weight}


def gradient_penalty(torch, ctx):
    """A WGAN-GP style critic step: the gradient of the critic's output with respect to
    interpolated inputs (create_graph=True), its norm penalty, and the double backward
    into the critic's weights."""
    nn = torch.nn
    critic = ctx.init(nn.Sequential(nn.Linear(3, 8), nn.LeakyReLU(0.2), nn.Linear(8, 8), nn.ELU(),
                                    nn.Linear(8, 1)))
    opt = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
    real, fake = ctx.data(6, 3), ctx.data(6, 3, scale=2.0)
    eps = ctx.array(ctx.rng.uniform(size=(6, 1)).astype(np.float32))
    losses, pens = [], []
    for _ in range(3):
        opt.zero_grad()
        mix = (eps * real + (1 - eps) * fake).requires_grad_(True)
        out = critic(mix)
        (g,) = torch.autograd.grad(out.sum(), mix, create_graph=True)
        penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
        loss.backward()
        opt.step()
        losses.append(loss.item())
        pens.append(penalty.item())
    return {"losses": losses, "penalties": pens, **critic.state_dict()}


def checkpoint_roundtrip(torch, ctx):
    """Train, torch.save model and optimizer state dicts to a BytesIO, torch.load them into
    fresh objects, continue training both; the continued runs must agree."""
    nn = torch.nn

    def make():
        return nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.LayerNorm(6), nn.Linear(6, 2))

    model = ctx.init(make(), "model")
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    x, y = ctx.data(12, 5), ctx.data(12, 2)

    def step(m, o):
        o.zero_grad()
        loss = nn.functional.mse_loss(m(x), y)
        loss.backward()
        o.step()
        return loss.item()

    first = [step(model, opt) for _ in range(3)]
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3}, buf)
    buf.seek(0)
    ck = torch.load(buf)
    model2 = make()
    model2.load_state_dict(ck["model"])
    opt2 = torch.optim.Adam(model2.parameters(), lr=5e-3)
    opt2.load_state_dict(ck["opt"])
    cont1 = [step(model, opt) for _ in range(2)]
    cont2 = [step(model2, opt2) for _ in range(2)]
    diff = max((a - b).abs().max() for a, b in zip(model.parameters(), model2.parameters()))
    return {"first": first, "cont1": cont1, "cont2": cont2, "epoch": float(ck["epoch"]),
            "max_param_diff": diff, "step_count": float(opt2.state_dict()["state"][0]["step"]),
            **model2.state_dict()}


def manual_sgd_no_grad(torch, ctx):
    """Parameters updated by hand under torch.no_grad() (p -= lr * p.grad; p.grad.zero_()),
    evaluation under torch.inference_mode(), requires_grad flags checked."""
    w = ctx.data(4, 3, requires_grad=True)
    b = torch.zeros(3, requires_grad=True)
    x, y = ctx.data(10, 4), ctx.data(10, 3)
    losses = []
    for _ in range(5):
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            b.sub_(0.1 * b.grad)
            w.grad.zero_()
            b.grad = None
        losses.append(loss.item())
    with torch.inference_mode():
        pred = x @ w + b
    with torch.no_grad():
        nog = (x @ w).requires_grad
    return {"losses": losses, "w": w, "b": b, "pred": pred, "pred_requires_grad": float(pred.requires_grad),
            "nog_requires_grad": float(nog), "w_is_leaf": float(w.is_leaf)}


def inplace_ops(torch, ctx):
    """In-place arithmetic on non-leaf tensors and on views (mul_, add_ with alpha, clamp_,
    relu_ via nn.ReLU(inplace=True), a slice written through a view, masked_fill_) with
    gradients through all of it."""
    x = ctx.data(4, 6, requires_grad=True)
    y = x * 1.5
    y.add_(ctx.data(4, 6), alpha=0.5)
    y.mul_(2.0)
    y[:, 1:3].clamp_(min=-0.5, max=0.5)
    y[0].mul_(3.0)
    z = torch.nn.ReLU(inplace=True)(y.sub(0.1))
    z = z + 0.0  # (relu saved its result for backward: a new tensor is written below)
    z.masked_fill_(z > 2.0, 2.0)
    v = z.view(24)
    v[::5].div_(4.0)
    out = (z * ctx.data(4, 6)).sum()
    out.backward()
    return {"z": z, "grad": x.grad, "version_positive": float(z._version > 0)}


def indexing_updates(torch, ctx):
    """Advanced-index reads and writes with gradients: gather, scatter_add, index_add_,
    index_select, boolean masks, index_put_ with accumulate, x[idx] = value."""
    src = ctx.data(5, 4, requires_grad=True)
    idx = ctx.ints(5, 7)
    picked = src[idx]  # repeated rows: their gradients accumulate
    g = src.gather(1, ctx.ints(4, 5, 3))
    acc = torch.zeros(3, 4).index_add_(0, torch.tensor([0, 2, 0, 1, 2]), src)
    sel = src.index_select(1, torch.tensor([3, 0]))
    mask = src > 0
    masked = src[mask]
    t = src * 1.0
    t[torch.tensor([1, 3])] = 0.0
    t[:, 0] = src[:, 1] * 2
    u = torch.zeros(6).index_put_((torch.tensor([0, 2, 2, 5]),), src[0, :4] * 1.0, accumulate=True)
    sc = torch.zeros(2, 4).scatter_add(0, torch.tensor([[0, 1, 0, 1], [1, 1, 0, 0]]), src[:2])
    loss = (picked.sum() + (g ** 2).sum() + acc.pow(2).sum() + sel.sum() * 3 + masked.sum()
            + (t * t).sum() + (u * torch.arange(6.0)).sum() + sc.abs().sum())
    loss.backward()
    return {"picked": picked, "gather": g, "acc": acc, "masked": masked, "t": t, "u": u, "sc": sc,
            "grad": src.grad}


def embedding_transformer(torch, ctx):
    """Token embedding + positional parameter + a TransformerEncoderLayer (dropout 0,
    norm_first) + mean pooling, with a key padding mask; gradients of the embedding."""
    nn = torch.nn
    emb = ctx.init(nn.Embedding(11, 8, padding_idx=0), "emb")
    layer = ctx.init(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True,
                                                norm_first=True), "layer")
    pos = nn.Parameter(torch.zeros(1, 6, 8))
    tokens = ctx.ints(11, 3, 6)
    tokens[0, 4:] = 0
    pad = tokens == 0
    h = layer(emb(tokens) + pos, src_key_padding_mask=pad)
    keep = (~pad).unsqueeze(-1).float()
    pooled = (h * keep).sum(1) / keep.sum(1)
    loss = pooled.pow(2).mean()
    loss.backward()
    return {"h": h.masked_fill(pad.unsqueeze(-1), 0.0), "pooled": pooled, "emb_grad": emb.weight.grad,
            "pos_grad": pos.grad}


def lstm_language_model(torch, ctx):
    """Embedding -> LSTM -> Linear next-token model; cross entropy over the flattened
    sequence; Adagrad; perplexity."""
    nn = torch.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(9, 5)
            self.rnn = nn.LSTM(5, 7, batch_first=True)
            self.out = nn.Linear(7, 9)

        def forward(self, tok):
            h, _ = self.rnn(self.emb(tok))
            return self.out(h)

    lm = ctx.init(LM())
    opt = torch.optim.Adagrad(lm.parameters(), lr=0.1)
    seq = ctx.ints(9, 4, 8)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        logits = lm(seq[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, 9), seq[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "ppl": math.exp(losses[-1]), **lm.state_dict()}


def hooks_and_retain_grad(torch, ctx):
    """Tensor hooks that scale a gradient, retain_grad on an intermediate, a module forward
    hook that records outputs and a forward pre-hook that rescales the input."""
    nn = torch.nn
    lin = ctx.init(nn.Linear(3, 3))
    seen = []
    h1 = lin.register_forward_hook(lambda m, inp, out: seen.append(out.detach().clone()))
    h2 = lin.register_forward_pre_hook(lambda m, inp: (inp[0] * 2,))
    x = ctx.data(4, 3, requires_grad=True)
    mid = torch.tanh(lin(x))
    mid.retain_grad()
    mid.register_hook(lambda g: g * 0.5)
    out = (mid ** 3).sum()
    out.backward()
    h1.remove()
    h2.remove()
    plain = lin(x)
    return {"seen": seen[0], "mid_grad": mid.grad, "x_grad": x.grad, "w_grad": lin.weight.grad,
            "plain": plain, "n_seen": float(len(seen))}


def weight_tying_and_freezing(torch, ctx):
    """A tied encoder/decoder weight (the same Parameter used twice), a frozen layer
    (requires_grad_(False)) and an optimizer given only trainable parameters."""
    nn = torch.nn
    enc = ctx.init(nn.Linear(6, 4, bias=False), "enc")
    frozen = ctx.init(nn.Linear(4, 4), "frozen")
    frozen.requires_grad_(False)
    x = ctx.data(8, 6)
    params = [p for p in list(enc.parameters()) + list(frozen.parameters()) if p.requires_grad]
    opt = torch.optim.SGD(params, lr=0.05)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        recon = nn.functional.linear(torch.sigmoid(frozen(enc(x))), enc.weight.t())
        loss = nn.functional.mse_loss(recon, x)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "enc": enc.weight, "frozen": frozen.weight,
            "frozen_grad_is_none": float(frozen.weight.grad is None), "n_params": float(len(params))}


def tensor_math_program(torch, ctx):
    """A numerical program without nn: logsumexp, cumsum, einsum, where, norm, softmax over
    a dim, topk, sort, std/var (unbiased), and their gradients."""
    a = ctx.data(4, 5, requires_grad=True, dtype="float64")
    b = ctx.data(5, 3, dtype="float64")
    lse = torch.logsumexp(a, dim=1)
    cs = torch.cumsum(a, dim=0)
    e = torch.einsum("ij,jk->ik", a, b)
    w = torch.where(a > 0, a ** 2, -a)
    top, ti = torch.topk(a, 2, dim=1)
    srt, si = torch.sort(a, dim=0, descending=True)
    stats = torch.stack([a.std(), a.var(dim=1).mean(), a.norm(), torch.linalg.vector_norm(a, ord=3)])
    loss = (lse.sum() + cs.pow(2).mean() + e.tanh().sum() + w.sum() + top.sum() + (srt[0] * 2).sum()
            + stats.sum() + torch.softmax(a, dim=0)[1].sum() * 5)
    loss.backward()
    return {"lse": lse, "cs": cs, "e": e, "top": top, "ti": ti, "si": si, "stats": stats, "grad": a.grad}


def lbfgs_regression(torch, ctx):
    """Logistic regression fitted by LBFGS with a closure (strong Wolfe line search), in
    float64."""
    x = ctx.data(30, 3, dtype="float64")
    y = (x @ torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64) > 0).double()
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    b = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], lr=1, max_iter=8, line_search_fn="strong_wolfe")
    losses = []

    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(x @ w + b, y) + 1e-2 * w.pow(2).sum()
        loss.backward()
        return loss

    for _ in range(2):
        losses.append(opt.step(closure).item())
    return {"losses": losses, "w": w, "b": b}


def autograd_grad_and_jacobian(torch, ctx):
    """torch.autograd.grad with grad_outputs and retain_graph, a second call on the same
    graph, allow_unused, and torch.autograd.functional.jacobian / hessian."""
    x = ctx.data(3, requires_grad=True, dtype="float64")
    unused = ctx.data(2, requires_grad=True, dtype="float64")
    y = torch.stack([x[0] * x[1], torch.sin(x[2]) * x[0], x.pow(3).sum()])
    v = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    (g1,) = torch.autograd.grad(y, x, grad_outputs=v, retain_graph=True)
    g2, gu = torch.autograd.grad(y.sum(), (x, unused), allow_unused=True)

    def f(z):
        return torch.stack([z[0] * z[1], torch.sin(z[2]) * z[0], z.pow(3).sum()])

    jac = torch.autograd.functional.jacobian(f, x.detach())
    hes = torch.autograd.functional.hessian(lambda z: (z.exp() * z).sum() + z[0] * z[2] ** 2, x.detach())
    return {"g1": g1, "g2": g2, "gu_is_none": float(gu is None), "jac": jac, "hes": hes}


def conv1d_groupnorm_scheduler(torch, ctx):
    """A 1-d conv net (Conv1d with dilation and groups, GroupNorm, AdaptiveAvgPool1d,
    Dropout in eval-equivalent p=0) trained with SGD and StepLR; the optimizer state
    (momentum buffers) is compared."""
    nn = torch.nn
    net = ctx.init(nn.Sequential(nn.Conv1d(4, 8, 3, padding=2, dilation=2, groups=2), nn.GroupNorm(2, 8),
                                 nn.Mish(), nn.Dropout(p=0.0), nn.AdaptiveAvgPool1d(1), nn.Flatten(),
                                 nn.Linear(8, 2)))
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, dampening=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    x, y = ctx.data(6, 4, 10), ctx.ints(2, 6)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    bufs = [opt.state[p]["momentum_buffer"] for p in net.parameters()]
    return {"losses": losses, "bufs": bufs, "lr": opt.param_groups[0]["lr"], **net.state_dict()}


def seq2seq_transformer(torch, ctx):
    """nn.Transformer (dropout 0) with a causal target mask from
    generate_square_subsequent_mask and padding masks; teacher-forced cross entropy with
    ignore_index; one Adam step."""
    nn = torch.nn
    model = ctx.init(nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                    dim_feedforward=16, dropout=0.0, batch_first=True), "tf")
    emb = ctx.init(nn.Embedding(7, 8), "emb")
    out = ctx.init(nn.Linear(8, 7), "out")
    params = list(model.parameters()) + list(emb.parameters()) + list(out.parameters())
    opt = torch.optim.Adam(params, lr=1e-3)
    src, tgt = ctx.ints(7, 2, 5), ctx.ints(7, 2, 4)
    src[1, 3:] = 0
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(3)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        h = model(emb(src), emb(tgt[:, :-1]), tgt_mask=tgt_mask, src_key_padding_mask=src == 0,
                  memory_key_padding_mask=src == 0)
        loss = nn.functional.cross_entropy(out(h).reshape(-1, 7), tgt[:, 1:].reshape(-1), ignore_index=0)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "mask": tgt_mask, "emb": emb.weight, "out": out.weight}


def packed_bidirectional_lstm(torch, ctx):
    """pack_padded_sequence (unsorted lengths) through a bidirectional 2-layer LSTM,
    pad_packed_sequence back, a masked mean over time; gradients."""
    nn = torch.nn
    rnn = ctx.init(nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True))
    x = ctx.data(3, 5, 3, requires_grad=True)
    lengths = torch.tensor([5, 2, 4], device="cpu")  # (PyTorch: lengths on the host)
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    out, (h, c) = rnn(packed)
    padded, lens = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
    lens_d = lens.to(padded.device)  # (the lengths come back on the host, as PyTorch's)
    mask = (torch.arange(5, device=padded.device).unsqueeze(0) < lens_d.unsqueeze(1)).unsqueeze(-1)
    mean = (padded * mask).sum(1) / lens_d.unsqueeze(1)
    loss = mean.pow(2).sum() + h.sum()
    loss.backward()
    return {"padded": padded, "lens": lens, "h": h, "c": c, "x_grad": x.grad,
            **{f"grad.{n}": p.grad for n, p in rnn.named_parameters()}}


def conv_autoencoder(torch, ctx):
    """Conv2d down, ConvTranspose2d and Upsample up, Sigmoid, binary cross entropy on
    images in [0, 1]; RAdam with decoupled weight decay."""
    nn = torch.nn
    net = ctx.init(nn.Sequential(
        nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.LeakyReLU(0.1),
        nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
        nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(2, 1, 3, padding=1), nn.AvgPool2d(2),
        nn.Sigmoid()))
    opt = torch.optim.RAdam(net.parameters(), lr=1e-2, weight_decay=1e-2, decoupled_weight_decay=True)
    img = torch.sigmoid(ctx.data(3, 1, 8, 8))
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = nn.functional.binary_cross_entropy(net(img), img)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, **net.state_dict()}


def contrastive_loss(torch, ctx):
    """An InfoNCE loss: F.normalize, a cosine-similarity matrix with a temperature, the
    diagonal masked out with masked_fill, cross entropy against shifted targets."""
    F = torch.nn.functional
    proj = ctx.init(torch.nn.Linear(6, 4))
    a, b = ctx.data(5, 6), ctx.data(5, 6)
    za, zb = F.normalize(proj(a), dim=1), F.normalize(proj(b), dim=1)
    z = torch.cat([za, zb], dim=0)
    sim = z @ z.t() / 0.5
    sim = sim.masked_fill(torch.eye(10, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(5, 10), torch.arange(0, 5)])
    loss = F.cross_entropy(sim, targets)
    cos = F.cosine_similarity(za, zb, dim=1)
    (loss + cos.sum()).backward()
    return {"loss": loss, "cos": cos, "w_grad": proj.weight.grad, "b_grad": proj.bias.grad}


def gradient_accumulation_ema(torch, ctx):
    """Gradient accumulation over micro-batches (loss / n, step every 2), and an exponential
    moving average of the weights updated in place under no_grad (mul_, add_ with alpha)."""
    nn = torch.nn
    model = ctx.init(nn.Sequential(nn.Linear(4, 8), nn.Softplus(), nn.Linear(8, 2)))
    ema = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.NAdam(model.parameters(), lr=2e-2)
    xs, ys = ctx.data(8, 3, 4), ctx.data(8, 3, 2)
    losses = []
    opt.zero_grad()
    for i in range(8):
        loss = nn.functional.mse_loss(model(xs[i]), ys[i]) / 2
        loss.backward()
        losses.append(loss.item())
        if i % 2 == 1:
            opt.step()
            opt.zero_grad()
            with torch.no_grad():
                for e, p in zip(ema, model.parameters()):
                    e.mul_(0.9).add_(p, alpha=0.1)
    return {"losses": losses, "ema": ema, **model.state_dict()}


def weight_norm_and_embedding_bag(torch, ctx):
    """nn.utils.parametrizations.weight_norm on a Linear (its original0/original1
    parameters trained), an EmbeddingBag with offsets and mode='mean', SGD."""
    nn = torch.nn
    lin = nn.utils.parametrizations.weight_norm(nn.Linear(5, 3))
    ctx.init(lin, "lin")
    bag = ctx.init(nn.EmbeddingBag(10, 5, mode="mean"), "bag")
    opt = torch.optim.SGD(list(lin.parameters()) + list(bag.parameters()), lr=0.1)
    tokens = ctx.ints(10, 9)
    offsets = torch.tensor([0, 3, 4, 7])
    y = ctx.data(4, 3)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = nn.functional.mse_loss(lin(bag(tokens, offsets)), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "weight": lin.weight, **{n: p for n, p in lin.named_parameters()},
            "bag": bag.weight}


def activation_checkpointing(torch, ctx):
    """torch.utils.checkpoint.checkpoint (non-reentrant) around a block inside a training
    step: the gradients equal those without checkpointing."""
    nn = torch.nn
    block = ctx.init(nn.Sequential(nn.Linear(6, 6), nn.GELU(), nn.Linear(6, 6)), "block")
    head = ctx.init(nn.Linear(6, 1), "head")
    x = ctx.data(4, 6, requires_grad=True)
    from_ckpt = head(torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)).pow(2).sum()
    from_ckpt.backward()
    g_ckpt = [p.grad.clone() for p in block.parameters()] + [x.grad.clone()]
    for p in block.parameters():
        p.grad = None
    x.grad = None
    head(block(x)).pow(2).sum().backward()
    g_plain = [p.grad for p in block.parameters()] + [x.grad]
    return {"ckpt": g_ckpt, "plain": g_plain, "loss": from_ckpt}


def dataloader_training(torch, ctx):
    """A DataLoader over a TensorDataset (batch_size 4, drop_last False, no shuffle), an
    epoch loop with Adamax and ExponentialLR, model.train()/eval(), Dropout(p=0.5) only in
    eval (so deterministic), accuracy under no_grad."""
    nn = torch.nn
    x, y = ctx.data(10, 3), ctx.ints(2, 10)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4)
    model = ctx.init(nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 2)))
    dropout = nn.Dropout(0.5)
    opt = torch.optim.Adamax(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.7)
    losses, sizes = [], []
    for _ in range(2):
        model.train()
        for xb, yb in loader:
            sizes.append(float(len(xb)))
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        sched.step()
    model.eval()
    dropout.eval()
    with torch.no_grad():
        acc = (dropout(model(x)).argmax(1) == y).float().mean()
    return {"losses": losses, "sizes": sizes, "acc": acc, "lr": sched.get_last_lr()[0], **model.state_dict()}


def vae_step(torch, ctx):
    """A VAE step: an encoder giving mean and log-variance, the reparameterisation with
    noise given as data, a Bernoulli decoder (BCE with logits, summed), the KL term from
    torch.distributions.kl_divergence, Normal.log_prob; Adam."""
    nn, D = torch.nn, torch.distributions
    enc = ctx.init(nn.Linear(6, 4), "enc")
    dec = ctx.init(nn.Sequential(nn.Linear(2, 5), nn.Tanh(), nn.Linear(5, 6)), "dec")
    opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
    x = (ctx.data(8, 6) > 0).float()
    eps = ctx.data(3, 8, 2)
    losses, kls = [], []
    for step in range(3):
        opt.zero_grad()
        mu, logvar = enc(x).chunk(2, dim=1)
        std = torch.exp(0.5 * logvar)
        z = mu + std * eps[step]
        rec = nn.functional.binary_cross_entropy_with_logits(dec(z), x, reduction="sum")
        q, p = D.Normal(mu, std), D.Normal(torch.zeros_like(mu), torch.ones_like(std))
        kl = D.kl_divergence(q, p).sum()
        loss = (rec + kl) / x.shape[0]
        loss.backward()
        opt.step()
        losses.append(loss.item())
        kls.append(kl.item())
    lp = D.Normal(mu, std).log_prob(z).sum(1)
    return {"losses": losses, "kls": kls, "log_prob": lp, **enc.state_dict()}


def policy_gradient(torch, ctx):
    """REINFORCE with a baseline: Categorical(logits=...) log_prob of given actions times
    normalised advantages, an entropy bonus, a value loss; a shared trunk; RMSprop
    centered."""
    nn, D = torch.nn, torch.distributions
    trunk = ctx.init(nn.Linear(4, 8), "trunk")
    pi, v = ctx.init(nn.Linear(8, 3), "pi"), ctx.init(nn.Linear(8, 1), "v")
    params = list(trunk.parameters()) + list(pi.parameters()) + list(v.parameters())
    opt = torch.optim.RMSprop(params, lr=1e-2, centered=True)
    obs, actions, returns = ctx.data(12, 4), ctx.ints(3, 12), ctx.data(12)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        h = torch.relu(trunk(obs))
        dist = D.Categorical(logits=pi(h))
        value = v(h).squeeze(-1)
        adv = returns - value.detach()
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        loss = -(dist.log_prob(actions) * adv).mean() - 0.01 * dist.entropy().mean() \
            + 0.5 * (returns - value).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "probs": dist.probs, **pi.state_dict()}


def spectral_program(torch, ctx):
    """A learnable filter applied by FFT (rfft, multiply, irfft), a spectrogram loss through
    torch.stft with a Hann window and its istft reconstruction; float64."""
    sig = ctx.data(2, 64, dtype="float64")
    h = ctx.data(64 // 2 + 1, dtype="float64", requires_grad=True)
    filtered = torch.fft.irfft(torch.fft.rfft(sig, dim=-1) * h, n=64, dim=-1)
    w = torch.hann_window(16, dtype=torch.float64)
    spec = torch.stft(filtered, 16, hop_length=4, window=w, return_complex=True)
    target = torch.stft(sig.flip(-1), 16, hop_length=4, window=w, return_complex=True)
    loss = (spec.abs() - target.abs()).pow(2).mean()
    back = torch.istft(spec, 16, hop_length=4, window=w, length=64)
    loss = loss + (back - sig).pow(2).mean()
    loss.backward()
    return {"loss": loss, "filtered": filtered, "h_grad": h.grad, "back": back}


def gaussian_process_mll(torch, ctx):
    """A GP marginal log-likelihood in float64: an RBF kernel from cdist, a Cholesky
    factor, cholesky_solve / triangular solves, logdet from the diagonal; its gradient in
    the kernel's log-lengthscale and log-noise, optimised by Adam."""
    x = ctx.data(10, 2, dtype="float64")
    y = torch.sin(x[:, 0]) + 0.1 * ctx.data(10, dtype="float64")
    log_ls = torch.zeros((), dtype=torch.float64, requires_grad=True)
    log_noise = torch.full((), -2.0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([log_ls, log_noise], lr=0.05)
    mlls = []
    for _ in range(4):
        opt.zero_grad()
        K = torch.exp(-0.5 * torch.cdist(x, x).pow(2) / log_ls.exp().pow(2))
        K = K + (log_noise.exp() + 1e-6) * torch.eye(10, dtype=torch.float64)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
        mll = -0.5 * (y.unsqueeze(-1) * alpha).sum() - torch.log(torch.diagonal(L)).sum() \
            - 5 * math.log(2 * math.pi)
        (-mll).backward()
        opt.step()
        mlls.append(mll.item())
    v = torch.linalg.solve_triangular(L, y.unsqueeze(-1), upper=False)
    return {"mlls": mlls, "ls": log_ls, "noise": log_noise, "v": v, "slogdet": torch.linalg.slogdet(K)[1]}


def euler_ode_rollout(torch, ctx):
    """An explicit-Euler rollout of a small neural ODE (a loop of 20 steps, stacking the
    trajectory), a loss on the whole trajectory, gradients through all steps; then the
    same rollout under no_grad for evaluation."""
    nn = torch.nn
    f = ctx.init(nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2)))
    y0 = ctx.data(4, 2)
    target = ctx.data(21, 4, 2)

    def rollout(y):
        ys = [y]
        for _ in range(20):
            y = y + 0.05 * f(y)
            ys.append(y)
        return torch.stack(ys)

    traj = rollout(y0)
    loss = nn.functional.mse_loss(traj, target)
    loss.backward()
    with torch.no_grad():
        ev = rollout(y0)
    return {"loss": loss, "traj": traj, "eval_equal": float(torch.equal(ev, traj.detach())),
            **{f"grad.{n}": p.grad for n, p in f.named_parameters()}}


PROGRAMS = [mlp_sgd_momentum, cnn_adam, custom_function_old_style, custom_function_setup_context,
            gru_sequence, lstm_cell_loop, attention_block, losses_and_reductions, grad_clipping_adamw,
            lr_schedulers, gradient_penalty, checkpoint_roundtrip, manual_sgd_no_grad, inplace_ops,
            indexing_updates, embedding_transformer, lstm_language_model, hooks_and_retain_grad,
            weight_tying_and_freezing, tensor_math_program, lbfgs_regression, autograd_grad_and_jacobian,
            conv1d_groupnorm_scheduler, seq2seq_transformer, packed_bidirectional_lstm, conv_autoencoder,
            contrastive_loss, gradient_accumulation_ema, weight_norm_and_embedding_bag,
            activation_checkpointing, dataloader_training, vae_step, policy_gradient, spectral_program,
            gaussian_process_mll, euler_ode_rollout]


# --- running and comparing ----------------------------------------------------------------

def _flatten(prefix, value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}{k}.", v, out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _flatten(f"{prefix}{i}.", v, out)
    else:
        out[prefix[:-1]] = value
    return out


def _as_numpy(v):
    if isinstance(v, (int, float, bool)):
        return np.asarray(float(v))
    if v is None:
        return None
    return np.asarray(v.detach().cpu().numpy())


def run_both(prog, seed: int = 0):
    """``(torch_results, strided_results)``: ``{name: numpy array}`` each, flattened."""
    import torch
    import strided.torch as storch
    torch.manual_seed(seed)
    ctx = Ctx(torch, seed)
    ref = _flatten("", prog(torch, ctx), {})
    storch.manual_seed(seed)
    sctx = Ctx(storch, seed, weights=ctx.recorded)
    got = _flatten("", prog(storch, sctx), {})
    assert sctx.n_init == ctx.n_init
    return ({k: _as_numpy(v) for k, v in ref.items()}, {k: _as_numpy(v) for k, v in got.items()})


def compare(name, ref: dict, got: dict, rtol: float, atol: float):
    assert sorted(got) == sorted(ref), f"{name}: results {sorted(got)} != PyTorch's {sorted(ref)}"
    bad = []
    for k in ref:
        r, g = ref[k], got[k]
        if r is None or g is None:
            if (r is None) != (g is None):
                bad.append(f"{k}: {g!r} where PyTorch has {r!r}")
            continue
        if r.shape != g.shape:
            bad.append(f"{k}: shape {g.shape}, PyTorch's {r.shape}")
            continue
        if r.dtype.kind in "biu" or g.dtype.kind in "biu":
            if not np.array_equal(r, g):
                bad.append(f"{k}: {g.tolist()} != PyTorch's {r.tolist()}")
            continue
        if not np.allclose(g, r, rtol=rtol, atol=atol, equal_nan=True):
            err = np.max(np.abs(g.astype(np.float64) - r))
            bad.append(f"{k}: max abs difference {err:.3g} (rtol {rtol}, atol {atol})")
    assert not bad, f"{name} differs from PyTorch:\n  " + "\n  ".join(bad)
