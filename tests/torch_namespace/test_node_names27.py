"""The names of the graph's nodes (``type(y.grad_fn).__name__``) that PyTorch programs print
or test (the 60 Minute Blitz walks ``loss.grad_fn.next_functions``): for these calls strided's
node is PyTorch 2.13's, checked against PyTorch live. (Calls whose node differs -- views spelled
through ``permute``/``view``, losses and softmaxes composed of several nodes -- are listed in
``DIFFERENT``, checked to differ still, so that a change to either side shows here.)"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

OPS = {
 "add": lambda m, x: x + 1, "mul": lambda m, x: x * 2, "rsub": lambda m, x: 2 - x, "sub": lambda m, x: x - x,
 "div": lambda m, x: x / 2, "neg": lambda m, x: -x, "pow": lambda m, x: x ** 2, "exp": lambda m, x: m.exp(x),
 "log": lambda m, x: m.log(x), "sin": lambda m, x: m.sin(x), "tanh": lambda m, x: m.tanh(x), "sigmoid": lambda m, x: m.sigmoid(x),
 "relu": lambda m, x: m.relu(x), "sum": lambda m, x: x.sum(), "sum_dim": lambda m, x: x.sum(0), "mean": lambda m, x: x.mean(),
 "max": lambda m, x: x.max(), "min": lambda m, x: x.min(), "median": lambda m, x: x.median(), "nanmedian": lambda m, x: x.nanmedian(),
 "max_dim": lambda m, x: x.max(0).values, "amax": lambda m, x: m.amax(x, 0), "matmul": lambda m, x: x @ x, "mm": lambda m, x: m.mm(x, x),
 "t": lambda m, x: x.t(), "T": lambda m, x: x.T, "transpose": lambda m, x: x.transpose(0, 1), "view": lambda m, x: x.view(-1),
 "reshape": lambda m, x: x.reshape(-1), "unsqueeze": lambda m, x: x.unsqueeze(0), "squeeze": lambda m, x: x.unsqueeze(0).squeeze(0),
 "select": lambda m, x: x[:, 1], "select0": lambda m, x: x[1], "slice": lambda m, x: x[1:], "index": lambda m, x: x[m.tensor([0, 1])],
 "cat": lambda m, x: m.cat([x, x]), "stack": lambda m, x: m.stack([x, x]), "expand": lambda m, x: x[:1].expand(3, 3),
 "clone": lambda m, x: x.clone(), "abs": lambda m, x: x.abs(), "sqrt": lambda m, x: x.sqrt(), "softmax": lambda m, x: m.softmax(x, 1),
 "log_softmax": lambda m, x: m.log_softmax(x, 1), "mse": lambda m, x: m.nn.functional.mse_loss(x, x.detach() * 0),
 "linear": lambda m, x: m.nn.functional.linear(x, x), "where": lambda m, x: m.where(x > 0, x, 0.0),
 "masked_fill": lambda m, x: x.masked_fill(x > 1, 0.0), "clamp": lambda m, x: x.clamp(0, 1), "permute": lambda m, x: x.permute(1, 0),
 "flatten": lambda m, x: x.flatten(), "contiguous": lambda m, x: x.t().contiguous(), "to": lambda m, x: x.to(m.float64),
 "maximum": lambda m, x: m.maximum(x, x * 2), "norm": lambda m, x: x.norm(), "dropout": lambda m, x: m.nn.functional.dropout(x, 0.0),
 "cumsum": lambda m, x: x.cumsum(0), "prod": lambda m, x: x.prod(), "var": lambda m, x: x.var(), "std": lambda m, x: x.std(),
 "gather": lambda m, x: x.gather(1, m.tensor([[0], [1], [2]])), "split": lambda m, x: x.split(1)[0], "chunk": lambda m, x: x.chunk(3)[1],
 "narrow": lambda m, x: x.narrow(0, 1, 1), "diag": lambda m, x: m.diag(x), "trace": lambda m, x: m.trace(x), "outer": lambda m, x: m.outer(x[0], x[1]),
 "layer_norm": lambda m, x: m.nn.functional.layer_norm(x, (3,)), "gelu": lambda m, x: m.nn.functional.gelu(x),
 "cross_entropy": lambda m, x: m.nn.functional.cross_entropy(x, m.tensor([0, 1, 2])), "nll": lambda m, x: m.nn.functional.nll_loss(x, m.tensor([0, 1, 2])),
 "bce": lambda m, x: m.nn.functional.binary_cross_entropy(m.sigmoid(x), x.detach() * 0), "l1": lambda m, x: m.nn.functional.l1_loss(x, x.detach() * 0),
 "smooth_l1": lambda m, x: m.nn.functional.smooth_l1_loss(x, x.detach() * 0), "leaky_relu": lambda m, x: m.nn.functional.leaky_relu(x),
 "silu": lambda m, x: m.nn.functional.silu(x), "softplus": lambda m, x: m.nn.functional.softplus(x), "embedding": lambda m, x: m.nn.functional.embedding(m.tensor([0, 2]), x),
 "max_pool1d": lambda m, x: m.nn.functional.max_pool1d(x[None], 2), "avg_pool1d": lambda m, x: m.nn.functional.avg_pool1d(x[None], 2),
 "conv1d": lambda m, x: m.nn.functional.conv1d(x[None], x[:, :, None]), "repeat": lambda m, x: x.repeat(2, 1), "flip": lambda m, x: x.flip(0),
 "roll": lambda m, x: x.roll(1), "tril": lambda m, x: x.tril(), "sort": lambda m, x: x.sort().values, "topk": lambda m, x: x.topk(2).values,
 "logsumexp": lambda m, x: x.logsumexp(1), "addmm": lambda m, x: m.addmm(x, x, x), "bmm": lambda m, x: m.bmm(x[None], x[None]),
 "einsum": lambda m, x: m.einsum("ij,jk->ik", x, x), "atan2": lambda m, x: m.atan2(x, x), "lerp": lambda m, x: m.lerp(x, x * 2, 0.5),
 "unbind": lambda m, x: x.unbind(0)[0], "index_select": lambda m, x: x.index_select(0, m.tensor([0])), "mv": lambda m, x: m.mv(x, x[0]),
}
DIFFERENT = {"rsub", "max_dim", "amax", "t", "transpose", "softmax",
             "log_softmax", "mse", "masked_fill", "gather", "narrow", "diag", "outer", "layer_norm", "nll", "bce",
             "smooth_l1", "embedding", "max_pool1d", "avg_pool1d", "conv1d", "flip", "sort", "topk", "logsumexp",
             "addmm", "bmm", "einsum", "lerp", "index_select", "mv"}


def _node(m, call):
    x = m.tensor(np.arange(1.0, 10.0).reshape(3, 3), requires_grad=True)
    return type(call(m, x).grad_fn).__name__


@pytest.mark.parametrize("name", sorted(OPS))
def test_node_names_are_pytorchs(name):
    want, got = _node(torch, OPS[name]), _node(S, OPS[name])
    assert (got == want) != (name in DIFFERENT), (name, want, got)


SHAPE_CALLS = [".squeeze()", ".squeeze(0)", ".squeeze((0,))", ".squeeze((0, 2))", ".unsqueeze(0)", ".unsqueeze(-1)",
               ".flatten()", ".view(-1)", ".reshape(2, 2)", ".unflatten(1, (2, 1))"]


@pytest.mark.parametrize("call", SHAPE_CALLS)
def test_shape_node_names_are_pytorchs(call):
    names = []
    for m in (torch, S):
        x = m.ones(1, 2, 1, 2, requires_grad=True)
        y = eval("x" + call)  # noqa: S307 (the test's own calls)
        y.sum().backward()
        names.append((type(y.grad_fn).__name__, tuple(y.shape), tuple(x.grad.shape)))
    assert names[1] == names[0]


KEYS = ["[:, 1]", "[1]", "[1:]", "[1:, 0]", "[0, 1:]", "[0, 1]", "[None]", "[:, None]", "[...]", "[:]", "[..., 1]",
        "[1, ...]", "[::2]", "[:, :]", "[0, None]", "[None, 0]", "[1:, None]", "[..., None]", "[:, 1:2]", "[-1]",
        "[True]", "[0:3]", "[0:3, 1]", "[:, 0:4]", "[None, ..., None]", "[..., ::2]", "[:, -1:]", "[1, None, 2]",
        "[..., 0, :]", "[(0, 1)]", "[..., :]", "[[0, 2]]"]


@pytest.mark.parametrize("key", KEYS)
def test_index_node_names_are_pytorchs(key):
    """``x[:, 1]`` is SelectBackward0, ``x[None]`` UnsqueezeBackward0, ``x[...]``
    AliasBackward0...: the node of the last step PyTorch's indexing takes."""
    names = []
    for m in (torch, S):
        x = m.ones(3, 4, requires_grad=True)
        names.append(type(eval("x" + key).grad_fn).__name__)  # noqa: S307 (the test's own keys)
    assert names[1] == names[0]
