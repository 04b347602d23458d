#!/usr/bin/env python
"""Instructions per training step of a tiny MLP under callgrind: the per-step overhead.

    PYTHONPATH=src python benchmarks/mlp_callgrind.py [strided strided-xp numpy torch] [--opt SGD|Adam]
        [--split] [--gc] [--full]

A network of 8-16-16-4, batch 4, float32: its arithmetic is a few thousand flops, so
what a step costs is the library's overhead (recording, the backward engine, the
optimizer's loop). Each program runs twice under ``valgrind --tool=callgrind`` with N1
and N2 steps after the same setup and warm-up (hash seed fixed, the garbage collector
off); (Ir(N2) - Ir(N1)) / (N2 - N1) is one step. Programs: ``strided`` (strided.torch:
nn.Linear, F.relu, F.cross_entropy, optim), ``torch`` (the same text on PyTorch) and
``numpy`` (the same step by hand: forward, backward, update); ``strided-xp`` is the
standard-namespace program of ``benchmarks/mlp_step.py`` (``strided.relu``, ``matmul``, a
hand-written softmax cross entropy, ``p -= lr * p.grad``; plain SGD whatever ``--opt``).
``--split`` adds, per program, where a step's instructions go: by object file (the
interpreter, NumPy, BLAS, libc's malloc) and the functions with the most instructions of
their own (self cost, from the two runs' difference). ``--gc`` leaves the garbage
collector on (its share of a step). ``--full`` runs the network of ``mlp_step.py`` instead
(784-256-10, batch 128, SGD without momentum as there: BLAS's share next to the
overhead; 3 and 8 steps after 12 of warm-up: Python 3.11 quickens a function's code at its
8th call, so with fewer a function called once a step was quickened between the two runs and
its one-time cost, ~25k instructions for strided's, counted as a step's). ``MLP_TOP=N`` lists
N functions in ``--split`` (25). Wall-clock timings of a machine shared with others drift;
instruction counts do not.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

_CHILD = r'''
import gc, os, sys
for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = "1"
import numpy as np
PROG, OPT, N, GC = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
sizes, batch = tuple(int(s) for s in sys.argv[5].split(",")), int(sys.argv[6])
L = len(sizes) - 1
rng = np.random.default_rng(0)
init = {}
for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
    init[f"{i}.weight"] = rng.uniform(-0.3, 0.3, (b, a)).astype(np.float32)
    init[f"{i}.bias"] = rng.uniform(-0.3, 0.3, b).astype(np.float32)
xn = rng.standard_normal((batch, sizes[0])).astype(np.float32)
yn = rng.integers(0, sizes[-1], batch)
if PROG == "numpy":
    Ws = [init[f"{i}.weight"].copy() for i in range(L)]
    bs = [init[f"{i}.bias"].copy() for i in range(L)]
    onehot = np.eye(sizes[-1], dtype=np.float32)[yn]
    def step():
        hs = [xn]
        h = xn
        for i in range(L):
            z = h @ Ws[i].T
            z += bs[i]
            h = np.maximum(z, 0) if i < L - 1 else z
            hs.append(h)
        m = np.max(h, axis=1, keepdims=True)
        e = np.exp(h - m)
        s = np.sum(e, axis=1, keepdims=True)
        loss = np.sum(onehot * (np.log(s) + m - h)) / batch
        g = (e / s - onehot) / batch
        for i in reversed(range(L)):
            gW = g.T @ hs[i]
            gb = np.sum(g, axis=0)
            if i:
                g = g @ Ws[i]
                g *= hs[i] > 0
            Ws[i] -= 0.01 * gW
            bs[i] -= 0.01 * gb
        return loss
elif PROG == "strided-xp":
    import strided as xp
    params = [xp.asarray(init[f"{i}.{k}"].T.copy() if k == "weight" else init[f"{i}.{k}"],
                         device="cpu").requires_grad_() for i in range(L) for k in ("weight", "bias")]
    x = xp.asarray(xn, device="cpu")
    onehot = xp.asarray(np.eye(sizes[-1], dtype=np.float32)[yn], device="cpu")
    def step():
        z = x
        for i in range(L):
            z = z @ params[2 * i] + params[2 * i + 1]
            if i < L - 1:
                z = xp.relu(z)
        m = xp.max(z, axis=1, keepdims=True)
        loss = xp.sum(onehot * (xp.log(xp.sum(xp.exp(z - m), axis=1, keepdims=True)) + m - z)) / batch
        loss.backward()
        with xp.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
        return loss.detach()
else:
    if PROG == "torch":
        import torch as lib
        lib.set_num_threads(1)
        T = lambda a: lib.from_numpy(a.copy())
    else:
        import strided.torch as lib
        T = lambda a: lib.asarray(a.copy(), device="cpu")
    nn, F = lib.nn, lib.nn.functional
    layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
    model = nn.Sequential(*layers)
    model.load_state_dict({k: T(v) for k, v in init.items()})
    x, y = T(xn), T(yn)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if OPT == "SGD" else \
        lib.optim.SGD(model.parameters(), lr=0.01) if OPT == "plain" else \
        lib.optim.Adam(model.parameters(), lr=1e-3)
    def step():
        opt.zero_grad()
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if i < len(layers) - 1:
                h = F.relu(h)
        loss = F.cross_entropy(h, y)
        loss.backward()
        opt.step()
        return loss
for _ in range(int(sys.argv[7])):  # warm-up
    step()
gc.collect()
if not GC:
    gc.disable()
for _ in range(N):
    step()
'''


def _self_costs(text: str) -> dict:
    """{(object file, function): instructions of its own} from a callgrind output file
    (name compression and relative positions as callgrind writes them; a ``calls=``
    line's following cost line is the callee's inclusive cost, not the caller's own)."""
    names = {"ob": {}, "fn": {}}
    ob = fn = None
    costs: dict = {}
    skip = False
    for line in text.splitlines():
        if not line:
            continue
        c = line[0]
        if c.isdigit() or c in "+-*":
            if skip:
                skip = False
                continue
            parts = line.split()
            if len(parts) > 1:
                costs[(ob, fn)] = costs.get((ob, fn), 0) + int(parts[1])
            continue
        key, _, val = line.partition("=")
        if key in ("ob", "fn", "cob", "cfn"):
            kind = key[-2:]
            m = re.match(r"\((\d+)\)(?: (.*))?$", val)
            if m:
                if m.group(2) is not None:
                    names[kind][m.group(1)] = m.group(2)
                val = names[kind].get(m.group(1), val)
            if key == "ob":
                ob = val
            elif key == "fn":
                fn = val
        elif key == "calls":
            skip = True
    return costs


TINY, FULL = ((8, 16, 16, 4), 4), ((784, 256, 10), 128)


def instructions(prog: str, opt: str, n: int, gc_on: bool = False, split: bool = False, net=TINY):
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = f"/tmp/mlp_callgrind.{os.getpid()}.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "-q",
                    sys.executable, "-c", _CHILD, prog, opt, str(n), "1" if gc_on else "0",
                    ",".join(map(str, net[0])), str(net[1]), "30" if net is TINY else "12"],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        text = f.read()
    os.unlink(out)
    m = re.search(r"^summary:\s*(\d+)", text, re.M) or re.search(r"^totals:\s*(\d+)", text, re.M)
    total = int(m.group(1))
    return (total, _self_costs(text)) if split else total


def _split_report(prog, c1, c2, steps):
    """Per step: instructions by object file, then the top functions (self cost)."""
    d = {k: (c2.get(k, 0) - c1.get(k, 0)) / steps for k in set(c1) | set(c2)}
    by_ob: dict = {}
    for (ob, _), v in d.items():
        o = os.path.basename(ob or "?")
        by_ob[o] = by_ob.get(o, 0) + v
    total = sum(d.values())
    print(f"\n{prog}: {total:,.0f} instructions per step, by object file")
    for o, v in sorted(by_ob.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {v:>12,.0f}  {100 * v / total:5.1f}%  {o}")
    print("  functions (self):")
    for (ob, fn), v in sorted(d.items(), key=lambda kv: -kv[1])[:int(os.environ.get("MLP_TOP", "25"))]:
        print(f"  {v:>12,.0f}  {100 * v / total:5.1f}%  {fn}  [{os.path.basename(ob or '?')}]")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    opt = "SGD"
    if "--opt" in argv:
        i = argv.index("--opt")
        opt = argv[i + 1]
        del argv[i:i + 2]
    split = "--split" in argv
    gc_on = "--gc" in argv
    net = FULL if "--full" in argv else TINY
    if net is FULL and opt == "SGD":
        opt = "plain"  # (mlp_step's programs: SGD without momentum, as the step by hand)
    progs = [a for a in argv if not a.startswith("--")] or ["strided", "torch", "numpy"]
    n1, n2 = (10, 40) if net is TINY else (3, 8)
    res = {}
    splits = {}
    for p in progs:
        a, b = instructions(p, opt, n1, gc_on, split, net), instructions(p, opt, n2, gc_on, split, net)
        if split:
            (a, ca), (b, cb) = a, b
            splits[p] = (ca, cb)
        res[p] = (b - a) / (n2 - n1)
    arch = "-".join(map(str, net[0]))
    print(f"| program ({opt}, {arch}, batch {net[1]}{', gc on' if gc_on else ''}) | instructions per step |"
          "\n|---|---|")
    for p, v in res.items():
        print(f"| {p} | {v:,.0f} |")
    for p, (ca, cb) in splits.items():
        _split_report(p, ca, cb, n2 - n1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
