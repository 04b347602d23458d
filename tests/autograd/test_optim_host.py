"""The optimizers' host path (``torch/optim/optimizer.host``: NumPy calls on the
natives, through the writer) against their reference path (strided's in-place methods,
``optimizer.HOST = False``): the same bits after many steps, for every option, and the
writer's rules kept (version counters bumped, a saved parameter's backward refused)."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
import strided.torch as storch
from strided.torch.optim import optimizer as _opt

CONFIGS = [
    ("SGD", dict(lr=0.05)), ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True)), ("SGD", dict(lr=0.05, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.0)),
    ("Adam", dict(lr=0.01)), ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.1)), ("Adam", dict(lr=0.01, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01)), ("AdamW", dict(lr=0.01, weight_decay=0.3, amsgrad=True)),
    ("Adam", dict(lr=0.01, betas=(0.0, 0.0))),
]


def _run(name, kw, dtype, host, steps=25):
    rng = np.random.default_rng(3)
    x = xp.asarray(rng.standard_normal((7, 5)).astype(dtype), device="cpu")
    y = xp.asarray(rng.integers(0, 3, 7), device="cpu")
    model = storch.nn.Sequential(storch.nn.Linear(5, 6), storch.nn.Tanh(), storch.nn.Linear(6, 3))
    model = model.to("cpu", getattr(storch, dtype))  # (PyTorch's linear takes one dtype)
    model.load_state_dict({k: xp.asarray(rng.uniform(-0.5, 0.5, tuple(v.shape)).astype(dtype), device="cpu")
                           for k, v in model.state_dict().items()})
    opt = getattr(storch.optim, name)(model.parameters(), **kw)
    old = _opt.HOST
    _opt.HOST = host
    try:
        for _ in range(steps):
            opt.zero_grad()
            storch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    finally:
        _opt.HOST = old
    params = [np.array(p.detach().numpy()) for p in model.parameters()]
    state = [{k: np.array(v.numpy()) for k, v in opt.state[p].items()} for p in model.parameters()]
    return params, state


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_host_path_equals_reference_bit_for_bit(name, kw, dtype):
    p_fast, s_fast = _run(name, kw, dtype, True)
    p_ref, s_ref = _run(name, kw, dtype, False)
    for a, b in zip(p_fast, p_ref):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(s_fast, s_ref):
        assert a.keys() == b.keys()
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_host_path_bumps_versions_and_backward_sees_it(name):
    w = storch.nn.Parameter(xp.asarray(np.ones(3, np.float32), device="cpu"))  # (the host path)
    opt = getattr(storch.optim, name)([w], lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
    for _ in range(2):  # (SGD's first step makes its buffer on the reference path)
        opt.zero_grad()
        (w * w).sum().backward()
        v0 = w._version
        opt.step()
        assert w._version > v0
    loss = (w * w).sum()  # saves w
    opt.zero_grad()
    (w * 1.0).sum().backward()
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
