#!/usr/bin/env python
"""The MLP training step (784-256-10, batch 128, float32) side by side, in one run.

    PYTHONPATH=src python benchmarks/mlp_step.py [--repeats N] [--sizes 64,128,128,10 --batch 32]
        [--only numpy,strided.torch,torch] [--no-gc]

Five programs of one SGD step (lr 0.01, no momentum), from the same weights and data:

- ``numpy``: the step written by hand in NumPy (``cases._mlp_manual``: forward, the
  backward worked out on paper, the update in place) -- the floor on this BLAS;
- ``strided``: the same step through strided's autograd in the standard namespace
  (``cases._mlp_autograd``, relu as ``strided.relu``);
- ``strided max``: the same with ``maximum(h, 0.0)`` for relu;
- ``strided.torch`` and ``torch``: PyTorch's idiom (``nn.Linear``, ``F.relu``,
  ``F.cross_entropy``, ``optim.SGD``, ``zero_grad``) on strided.torch and on PyTorch.

Each repeat times a batch of steps of every program in turn, the order rotating per
repeat (interleaved: all see the same drift of a noisy machine). Printed: the median
and the minimum of the per-step times, and the ratios of the medians to NumPy's and to
PyTorch's. One thread everywhere. ``--no-gc`` times with the garbage collector off (the
collector's share of a step is the difference); ``--only`` times some programs.
``--gemms`` also times the five matrix products of the standard-namespace step (two
forward, three backward) on NumPy (whose BLAS strided's matmul calls) and on PyTorch
(its own BLAS, MKL in the x86 wheels), interleaved likewise, and prints each (g)
program's step less its library's products: the time that is the library's own and not
its BLAS's. Nothing here asserts a timing.
"""

from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
import gc  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def _torch_idiom(lib, sizes, init, x, y):
    nn, F = lib.nn, lib.nn.functional
    layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
    model = nn.Sequential(*layers)
    T = (lambda a: lib.from_numpy(a.copy())) if lib.__name__ == "torch" else \
        (lambda a: lib.asarray(a.copy(), device="cpu"))
    model.load_state_dict({k: T(v) for k, v in init.items()})
    x, y = T(x), T(y)
    opt = lib.optim.SGD(model.parameters(), lr=0.01)

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
    return step


def build(sizes, batch):
    import torch

    import strided
    import strided.torch as storch
    from benchmarks import cases

    torch.set_num_threads(1)
    if hasattr(strided, "set_num_threads"):
        strided.set_num_threads(1)
    steps = {}
    if len(sizes) == 3:  # the benchmark group (g)'s programs
        key = ("mlp", batch) + tuple(sizes)
        inp = cases.make_inputs(key)
        amax_np = lambda z: np.max(z, axis=1, keepdims=True)  # noqa: E731
        steps["numpy"] = cases._mlp_manual(np, amax_np, {k: v.copy() for k, v in inp.items()})
        amax = lambda z: strided.max(z, axis=1, keepdims=True)  # noqa: E731
        for label, relu in (("strided", strided.relu), ("strided max", lambda h: strided.maximum(h, 0.0))):
            si = {k: strided.asarray(v.copy(), device="cpu") for k, v in inp.items()}
            steps[label] = cases._mlp_autograd(strided, amax, relu, strided.no_grad, si)
        ti = {k: torch.from_numpy(v.copy()) for k, v in inp.items()}
        steps["torch (g)"] = cases._mlp_autograd(torch, lambda z: torch.amax(z, 1, keepdim=True),
                                                 torch.relu, torch.no_grad, ti)
    rng = np.random.default_rng(0)
    init = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        bound = 1 / np.sqrt(a)
        init[f"{i}.weight"] = rng.uniform(-bound, bound, (b, a)).astype(np.float32)
        init[f"{i}.bias"] = rng.uniform(-bound, bound, b).astype(np.float32)
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], batch)
    steps["strided.torch"] = _torch_idiom(storch, sizes, init, x, y)
    steps["torch"] = _torch_idiom(torch, sizes, init, x, y)
    return steps


def _gemms(sizes, batch):
    """The five products of one step of ``cases._mlp_autograd`` (x @ W1, r @ W2; dz @ W2.T,
    r.T @ dz, x.T @ dh) as two callables, on NumPy's arrays and on PyTorch's tensors."""
    import torch

    rng = np.random.default_rng(1)
    i, h, o = sizes
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    x, w1, r, w2, dz, dh = f(batch, i), f(i, h), f(batch, h), f(h, o), f(batch, o), f(batch, h)
    t = {k: torch.from_numpy(v) for k, v in dict(x=x, w1=w1, r=r, w2=w2, dz=dz, dh=dh).items()}

    def on_numpy():
        return x @ w1, r @ w2, dz @ w2.T, r.T @ dz, x.T @ dh

    def on_torch():
        return t["x"] @ t["w1"], t["r"] @ t["w2"], t["dz"] @ t["w2"].T, t["r"].T @ t["dz"], t["x"].T @ t["dh"]
    return {"gemms numpy": on_numpy, "gemms torch": on_torch}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=21)
    p.add_argument("--sizes", default="784,256,10")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--only", default="")
    p.add_argument("--no-gc", action="store_true")
    p.add_argument("--gemms", action="store_true")
    args = p.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    steps = build(sizes, args.batch)
    if args.only:
        keep = args.only.split(",")
        steps = {k: v for k, v in steps.items() if k in keep}
    if args.gemms and len(sizes) == 3:
        steps.update(_gemms(sizes, args.batch))
    if args.no_gc:
        gc.collect()
        gc.disable()
    names = list(steps)
    for s in steps.values():  # warm up
        for _ in range(5):
            s()
    t0 = time.perf_counter()
    steps[names[0]]()
    n = max(3, int(0.03 / max(time.perf_counter() - t0, 1e-6)))
    times = {k: [] for k in names}
    for r in range(args.repeats):
        order = names[r % len(names):] + names[:r % len(names)]
        for k in order:
            f = steps[k]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            times[k].append((time.perf_counter() - t0) / n)
    med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
    mn = {k: min(v) * 1e6 for k, v in times.items()}
    print(f"sizes {sizes} batch {args.batch}; {args.repeats} interleaved repeats of {n} steps; "
          f"load {os.getloadavg()[0]:.2f}")
    print("| program | median us/step | min us/step | / numpy (median) | / torch (median) |\n"
          "|---|---|---|---|---|")
    for k in names:
        ref = med.get("numpy")
        tref = med.get("torch (g)") if k in ("strided", "strided max", "numpy", "torch (g)") else med.get("torch")
        r1 = f"{med[k] / ref:.2f}x" if ref else "-"
        r2 = f"{med[k] / tref:.2f}x" if tref else "-"
        print(f"| {k} | {med[k]:.0f} | {mn[k]:.0f} | {r1} | {r2} |")
    if "gemms numpy" in med:
        g_np, g_t = med["gemms numpy"], med["gemms torch"]
        print(f"\nThe five products: NumPy's BLAS {g_np:.0f} us, PyTorch's {g_t:.0f} us "
              f"({g_np / g_t:.2f}x). Each (g) program's step less its BLAS's products (medians):")
        rest = {k: med[k] - (g_t if k == "torch (g)" else g_np)
                for k in ("numpy", "strided", "strided max", "torch (g)") if k in med}
        for k, v in rest.items():
            ratio = f" ({v / rest['torch (g)']:.2f}x torch (g)'s)" if "torch (g)" in rest else ""
            print(f"- {k}: {v:.0f} us{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
