"""Side-by-side GPU timings: strided on cuda vs CuPy vs PyTorch CUDA.

One process, the libraries interleaved (three rounds), each case the minimum over
REPS batches of 10 calls with a device synchronisation per batch. Run by
benchmarks/gpu/check.sh; SHRINK=k divides the large sizes by k. The table's last
run is in benchmarks/README.md's GPU section.
"""
import time, json, sys, os
import numpy as np
import cupy as cp
import torch
import strided as xp

def sync():
    cp.cuda.Device().synchronize(); torch.cuda.synchronize()

def bench(fn, reps=int(os.environ.get("REPS", "30")), inner=10):
    fn(); sync()
    best = 1e9
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t) / inner)
    return best

rng = np.random.default_rng(0)
S = int(os.environ.get("SHRINK", "1"))
res = {}
def case(name, mk):
    fns = {}
    for lib in ("strided", "cupy", "torch"):
        try:
            fns[lib] = mk(lib)
        except Exception as e:
            res.setdefault(name, {})[lib] = f"ERR {type(e).__name__}: {str(e)[:120]}"
    # interleave libraries
    times = {k: [] for k in fns}
    for r in range(3):
        for lib, f in fns.items():
            try:
                times[lib].append(bench(f))
            except Exception as e:
                res.setdefault(name, {})[lib] = f"ERR {type(e).__name__}: {str(e)[:120]}"
    for lib, ts in times.items():
        if ts and not isinstance(res.get(name, {}).get(lib), str):
            res.setdefault(name, {})[lib] = min(ts)
    row = res[name]
    def fmt(v): return f"{v*1e6:9.1f}us" if isinstance(v, float) else v
    ratio = ""
    if all(isinstance(row.get(k), float) for k in ("strided", "cupy", "torch")):
        ratio = f"  strided/min(cupy,torch) = {row['strided']/min(row['cupy'], row['torch']):.2f}"
    print(f"{name:28s} " + " ".join(f"{k}={fmt(v)}" for k, v in row.items()) + ratio, flush=True)

def arrs(lib, *nps):
    if lib == "strided":
        return [xp.asarray(a, device="cuda") for a in nps]
    if lib == "cupy":
        return [cp.asarray(a) for a in nps]
    return [torch.from_numpy(a).cuda() for a in nps]

def elementwise(n, dt, expr):
    a0, b0, c0 = (rng.uniform(0.5, 2, n).astype(dt) for _ in range(3))
    def mk(lib):
        a, b, c = arrs(lib, a0, b0, c0)
        E = {"strided": xp, "cupy": cp, "torch": torch}[lib]
        return eval("lambda: " + expr, {"a": a, "b": b, "c": c, "E": E})
    return mk

for n in (10, 10**6 // S, 10**7 // S):
    case(f"add n={n:.0e} f32", elementwise(n, np.float32, "a + b"))
case("a*b+c n=1e7 f32", elementwise(10**7 // S, np.float32, "a * b + c"))
case("exp n=1e7 f32", elementwise(10**7 // S, np.float32, "E.exp(a)"))
case("sum n=1e7 f32", elementwise(10**7 // S, np.float32, "E.sum(a)"))
case("sum n=10 f32", elementwise(10, np.float32, "E.sum(a)"))
def mm(n, dt):
    a0 = rng.standard_normal((n, n)).astype(dt); b0 = rng.standard_normal((n, n)).astype(dt)
    def mk(lib):
        a, b = arrs(lib, a0, b0)
        return lambda: a @ b
    return mk
case("matmul 4096 f32", mm(4096 // S, np.float32))
case("matmul 64 f32", mm(64, np.float32))
def rowsum(lib):
    a0 = rng.standard_normal((4096 // S, 4096)).astype(np.float32)
    (a,) = arrs(lib, a0)
    E = {"strided": xp, "cupy": cp, "torch": torch}[lib]
    return lambda: E.sum(a, axis=1)
case("sum axis=1 4096^2 f32", rowsum)
def slicing(lib):
    (a,) = arrs(lib, rng.standard_normal((1000, 1000)).astype(np.float32))
    return lambda: a[::2, 1:-1]
case("view a[::2,1:-1]", slicing)
def h2d(lib):
    a0 = rng.standard_normal(10**7 // S).astype(np.float32)
    if lib == "strided": return lambda: xp.asarray(a0, device="cuda")
    if lib == "cupy": return lambda: cp.asarray(a0)
    return lambda: torch.from_numpy(a0).cuda()
case("host->device 40MB", h2d)
def d2h(lib):
    (a,) = arrs(lib, rng.standard_normal(10**7 // S).astype(np.float32))
    if lib == "strided": return lambda: np.asarray(a.cpu())
    if lib == "cupy": return lambda: cp.asnumpy(a)
    return lambda: a.cpu().numpy()
case("device->host 40MB", d2h)
# MLP autograd step 784-256-10 batch 128 (strided/torch; cupy has no autograd)
def mlp(lib):
    if lib == "cupy": raise RuntimeError("no autograd")
    r = np.random.default_rng(1)
    x0 = r.standard_normal((128, 784)).astype(np.float32)
    oh0 = np.eye(10, dtype=np.float32)[r.integers(0, 10, 128)]
    W10 = (r.standard_normal((784, 256)) * 0.05).astype(np.float32); W20 = (r.standard_normal((256, 10)) * 0.09).astype(np.float32)
    x, oh, W1, b1, W2, b2 = arrs(lib, x0, oh0, W10, np.zeros(256, np.float32), W20, np.zeros(10, np.float32))
    params = [p.requires_grad_() for p in (W1, b1, W2, b2)]
    E = xp if lib == "strided" else torch
    relu = (lambda h: xp.maximum(h, 0.0)) if lib == "strided" else torch.relu
    amax = (lambda z: xp.max(z, axis=1, keepdims=True)) if lib == "strided" else (lambda z: torch.amax(z, dim=1, keepdim=True))
    no_grad = getattr(xp, "no_grad", None) if lib == "strided" else torch.no_grad
    def step():
        z = relu(x @ W1 + b1) @ W2 + b2
        m = amax(z)
        loss = E.sum(oh * (E.log(E.sum(E.exp(z - m), axis=1, keepdims=True)) + m - z)) / 128
        loss.backward()
        with no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
        return loss
    return step
case("MLP autograd step", mlp)
json.dump(res, open(os.path.join(os.environ.get("OUT", "."), "gpubench.json"), "w"), indent=1, default=str)
