"""The strides of PyTorch's words' results are PyTorch's (2.13), whatever the input's layout.

A result's strides are what ``stride()``, ``is_contiguous()`` and ``view()`` read, so a layout
that differs changes what a program does: ``torch.topk(x, 2).indices.view(-1)`` raised in
strided (the indices were a view of the whole argsort), and ``layer_norm`` of a transposed
input was not contiguous where PyTorch's is. The rules (PyTorch's kernels): ``sort``,
``argsort`` and the flips write ``empty_like(input)`` (a dense input's strides); ``topk``,
``kthvalue``, ``median``, ``mode``, ``layer_norm``, ``logsigmoid``, ``renorm``, the other
norms, ``scatter``, an ``einsum`` contraction and ``vander`` a fresh row-major result; ``nonzero``/``argwhere``
the transpose of a row-major ``(ndim, count)``; a 1-D FFT the input's memory order with the
transformed dimension innermost; ``double()``/``half()``... ``to()``'s ``preserve_format``.
Inputs: row-major, transposed or permuted, sliced (not dense), broadcast (a stride 0), in 1-3
dimensions (Hypothesis),
compared with PyTorch's results on the same data: shape, strides and values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

F = {
    "sort": lambda m, x: m.sort(x, dim=-1),
    "sort dim 0 descending": lambda m, x: m.sort(x, dim=0, descending=True),
    "sort stable": lambda m, x: m.sort(x, dim=-1, stable=True),
    "Tensor.sort": lambda m, x: x.sort(0),
    "argsort": lambda m, x: m.argsort(x, dim=-1),
    "argsort dim 0": lambda m, x: m.argsort(x, dim=0, descending=True),
    "Tensor.argsort": lambda m, x: x.argsort(),
    "msort": lambda m, x: m.msort(x),
    "topk": lambda m, x: m.topk(x, 1, dim=-1),
    "topk dim 0 smallest": lambda m, x: m.topk(x, 1, dim=0, largest=False),
    "Tensor.topk": lambda m, x: x.topk(1),
    "kthvalue": lambda m, x: m.kthvalue(x, 1, dim=-1),
    "kthvalue keepdim": lambda m, x: m.kthvalue(x, 1, dim=0, keepdim=True),
    "median": lambda m, x: m.median(x, dim=-1),
    "median int": lambda m, x: m.median((x * 4).to(m.int64), dim=0),
    "median int keepdim": lambda m, x: (x * 4).to(m.int64).median(dim=-1, keepdim=True),
    "mode keepdim": lambda m, x: m.mode((x * 2).to(m.int64), dim=0, keepdim=True),
    "flip": lambda m, x: m.flip(x, [0]),
    "flipud": lambda m, x: m.flipud(x),
    "layer_norm": lambda m, x: m.nn.functional.layer_norm(x, (x.shape[-1],)),
    "logsigmoid": lambda m, x: m.nn.functional.logsigmoid(x),
    "nonzero": lambda m, x: m.nonzero(x > 0),
    "argwhere": lambda m, x: m.argwhere(x > 0),
    "Tensor.nonzero": lambda m, x: (x > 0).nonzero(),
    "fft": lambda m, x: m.fft.fft(x, dim=0),
    "ifft": lambda m, x: m.fft.ifft(x),
    "rfft": lambda m, x: m.fft.rfft(x),
    "rfft dim 0": lambda m, x: m.fft.rfft(x, dim=0),
    "irfft": lambda m, x: m.fft.irfft(m.fft.rfft(x, dim=0), n=x.shape[0], dim=0),
    "ihfft": lambda m, x: m.fft.ihfft(x, dim=-1),
    "double": lambda m, x: x.double(),
    "half": lambda m, x: x.half(),
    "scatter": lambda m, x: m.scatter(x, 0, m.zeros(x.shape, dtype=m.int64, device=x.device), 1.0),
    "batch_norm": lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True) if x.ndim > 1 else x.clone(),
    "instance_norm": lambda m, x: m.nn.functional.instance_norm(x) if x.ndim == 3 else x.clone(),
    "group_norm": lambda m, x: m.nn.functional.group_norm(x, 1) if x.ndim > 1 else x.clone(),
    "rms_norm": lambda m, x: m.nn.functional.rms_norm(x, (x.shape[-1],)),
}
F2 = {  # (two dimensions or more)
    "fliplr": lambda m, x: m.fliplr(x),
    "rot90": lambda m, x: m.rot90(x),
    "rot90 k=3": lambda m, x: m.rot90(x, 3, (0, -1)),
    "renorm": lambda m, x: m.renorm(x, 2, 0, 1.0),
    "einsum matmul": lambda m, x: m.einsum("ij,jk->ik", x.reshape(x.shape[0], -1), x.reshape(-1, x.shape[0])),
}
F1 = {  # (one dimension)
    "vander": lambda m, x: m.vander(x),
}


def _layout(r):
    # (the strides of axes of fewer than 2 elements address nothing: not compared)
    if isinstance(r, tuple):
        return tuple(_layout(a) for a in r)
    return tuple(r.shape), tuple(s if n > 1 else None for n, s in zip(r.shape, r.stride()))


def _empty(r):
    # Note: an empty nonzero() is (0, ndim) with strides (1, 0) in PyTorch, (1, 1) here: the
    # strides of an empty array address nothing (not matched)
    return not isinstance(r, tuple) and r.numel() == 0


def _values(r):
    if isinstance(r, tuple):
        return tuple(_values(a) for a in r)
    return np.asarray(r.tolist())


@settings(max_examples=60, deadline=None)
@given(shape=hs.lists(hs.integers(1, 5), min_size=1, max_size=3), data=hs.data())
def test_result_layouts_are_pytorchs(shape, data):
    rng = np.random.default_rng(len(shape) * 100 + sum(shape))
    base = rng.standard_normal(shape).astype(np.float32)
    perm = data.draw(hs.permutations(range(len(shape))), label="perm")
    steps = data.draw(hs.lists(hs.sampled_from([1, 1, 2, -1]), min_size=len(shape), max_size=len(shape)),
                      label="steps")

    expand = data.draw(hs.booleans(), label="expand")  # (a broadcast axis, stride 0)

    def make(m):
        x = m.from_numpy(base.copy()).permute(*perm)
        if expand:
            x = x[:1].expand(*x.shape)
        sl = tuple(slice(None, None, s) if s > 0 else slice(None) for s in steps)
        x = x[sl]
        if -1 in steps:  # (a flipped copy: PyTorch has no negative strides)
            x = m.flip(x, [steps.index(-1)]) if x.ndim else x
        return x

    funcs = dict(F)
    funcs.update(F2 if len(shape) >= 2 else F1)
    bad = []
    for name, f in funcs.items():
        xt, xs = make(torch), make(S)
        assert tuple(xt.stride()) == tuple(xs.stride()), "the inputs' own layouts differ"
        try:
            rt = f(torch, xt)
        except (RuntimeError, ValueError):  # (too few values for a norm, PyTorch's refusal)
            with pytest.raises((RuntimeError, ValueError)):
                f(S, xs)
            continue
        rs = f(S, xs)
        if _layout(rt) != _layout(rs) and not _empty(rt):
            bad.append((name, _layout(rt), _layout(rs)))
            continue
        for a, b in zip(_values(rt) if isinstance(rt, tuple) else (_values(rt),),
                        _values(rs) if isinstance(rs, tuple) else (_values(rs),)):
            if expand and a.dtype.kind in "iu" and "nonzero" not in name and "argwhere" not in name:
                continue  # (a broadcast input repeats its values: which index of equal ones is unspecified)
            if expand and name == "median":
                # Note: PyTorch 2.13's median(dim=) of a broadcast input reads memory outside the
                # view: median of x[:1].expand(3) gave x[2] (0.648 for a row of 1.103s)
                xv = np.asarray(xt.tolist())
                lower = np.sort(xv, axis=-1)[..., (xv.shape[-1] - 1) // 2]
                np.testing.assert_array_equal(b, lower, err_msg=name)
                continue
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-4, err_msg=name)  # (float32 ulps; a norm of constant data divides rounding by sqrt(eps))
    assert not bad, f"input {tuple(make(torch).shape)} strides {make(torch).stride()}: {bad}"


def test_topk_indices_view_as_pytorchs():
    a = np.arange(35, dtype=np.float32).reshape(5, 7)[::-1].copy()
    for m in (torch, S):
        r = m.topk(m.from_numpy(a), 2, dim=-1)
        assert r.indices.is_contiguous() and r.values.is_contiguous()
        assert r.indices.view(-1).tolist() == [6, 5] * 5
        k = m.kthvalue(m.from_numpy(a), 2, dim=-1)
        assert k.indices.view(1, 5).tolist() == [[1] * 5]
