#!/usr/bin/env python
"""Instructions per training step of a tiny MLP under callgrind: the per-step overhead.

    PYTHONPATH=src python benchmarks/mlp_callgrind.py [strided numpy torch] [--opt SGD|Adam]

A network of 8-16-16-4, batch 4, float32: its arithmetic is a few thousand flops, so
what a step costs is the library's overhead (recording, the backward engine, the
optimizer's loop). Each program runs twice under ``valgrind --tool=callgrind`` with N1
and N2 steps after the same setup and warm-up (hash seed fixed, the garbage collector
off); (Ir(N2) - Ir(N1)) / (N2 - N1) is one step. Programs: ``strided`` (strided.torch:
nn.Linear, F.relu, F.cross_entropy, optim), ``torch`` (the same text on PyTorch) and
``numpy`` (the same step by hand: forward, backward, update). Wall-clock timings of a
machine shared with others drift; instruction counts do not.
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
PROG, OPT, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
sizes, batch = (8, 16, 16, 4), 4
rng = np.random.default_rng(0)
init = {}
for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
    init[f"{i}.weight"] = rng.uniform(-0.3, 0.3, (b, a)).astype(np.float32)
    init[f"{i}.bias"] = rng.uniform(-0.3, 0.3, b).astype(np.float32)
xn = rng.standard_normal((batch, sizes[0])).astype(np.float32)
yn = rng.integers(0, sizes[-1], batch)
if PROG == "numpy":
    Ws = [init[f"{i}.weight"].copy() for i in range(3)]
    bs = [init[f"{i}.bias"].copy() for i in range(3)]
    onehot = np.eye(sizes[-1], dtype=np.float32)[yn]
    def step():
        hs = [xn]
        h = xn
        for i in range(3):
            z = h.dot(Ws[i].T)
            z += bs[i]
            h = np.maximum(z, 0) if i < 2 else z
            hs.append(h)
        m = np.max(h, axis=1, keepdims=True)
        e = np.exp(h - m)
        s = np.sum(e, axis=1, keepdims=True)
        loss = np.sum(onehot * (np.log(s) + m - h)) / batch
        g = (e / s - onehot) / batch
        for i in (2, 1, 0):
            gW = g.T.dot(hs[i])
            gb = np.sum(g, axis=0)
            if i:
                g = g.dot(Ws[i])
                g *= hs[i] > 0
            Ws[i] -= 0.01 * gW
            bs[i] -= 0.01 * gb
        return loss
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
for _ in range(30):
    step()
gc.collect()
gc.disable()
for _ in range(N):
    step()
'''


def instructions(prog: str, opt: str, n: int) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = f"/tmp/mlp_callgrind.{os.getpid()}.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "-q",
                    sys.executable, "-c", _CHILD, prog, opt, str(n)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        text = f.read()
    os.unlink(out)
    m = re.search(r"^summary:\s*(\d+)", text, re.M) or re.search(r"^totals:\s*(\d+)", text, re.M)
    return int(m.group(1))


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    opt = "SGD"
    if "--opt" in argv:
        i = argv.index("--opt")
        opt = argv[i + 1]
        del argv[i:i + 2]
    progs = argv or ["strided", "torch", "numpy"]
    n1, n2 = 10, 40
    res = {}
    for p in progs:
        res[p] = (instructions(p, opt, n2) - instructions(p, opt, n1)) / (n2 - n1)
    print(f"| program ({opt}, 8-16-16-4, batch 4) | instructions per step |\n|---|---|")
    for p, v in res.items():
        print(f"| {p} | {v:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
