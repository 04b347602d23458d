"""PyTorch's ``*_copy`` functions (``diagonal_copy``, ``permute_copy``, ``split_copy``, ...), against
PyTorch 2.13 on the same data: shape, strides (row-major, whatever the input's layout), values,
a storage of their own (writing into the copy leaves the input as it was), ``out=``, the
gradient, and the sparse tensors' ``values_copy``/``indices_copy``/... refusing a strided array
with PyTorch's message."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

CASES = [
    ("alias_copy", ()), ("detach_copy", ()), ("permute_copy", ((2, 0, 1),)), ("transpose_copy", (0, 2)),
    ("select_copy", (1, 2)), ("select_copy", (-1, -1)), ("slice_copy", (1, 0, 4, 2)), ("slice_copy", (2,)),
    ("slice_copy", (0, 1, None)), ("diagonal_copy", (0, 0, 1)), ("diagonal_copy", (1, 2, 1)),
    ("unfold_copy", (2, 2, 1)), ("as_strided_copy", ((2, 2), (1, 2))), ("as_strided_copy", ((3,), (2,), 1)),
    ("narrow_copy", (0, 1, 2)), ("unsqueeze_copy", (1,)), ("unsqueeze_copy", (-1,)), ("squeeze_copy", ()),
    ("squeeze_copy", (1,)), ("unbind_copy", (1,)), ("split_copy", (2, 1)), ("split_with_sizes_copy", ([1, 3], 1)),
    ("expand_copy", ((2, 3, 4, 5),)), ("view_copy", ((-1, 5),)), ("t_copy", ()),
]
INPUTS = {
    "row-major": lambda m, a: m.from_numpy(a.copy()),
    "transposed": lambda m, a: m.from_numpy(a.copy()).transpose(0, 2),
    "sliced": lambda m, a: m.from_numpy(a.copy())[:, ::2],
    "size-1 axis": lambda m, a: m.from_numpy(a.copy())[:, :1],
}


def _call(m, name, args, x):
    if name == "t_copy":
        x = x[0]
    if name == "view_copy":
        x = x.contiguous()
    return getattr(m, name)(x, *args)


def _outcome(m, name, args, kind):
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = INPUTS[kind](m, a)
    try:
        r = _call(m, name, args, x)
    except (RuntimeError, IndexError, ValueError) as e:
        return "refused", type(e).__name__
    rs = r if isinstance(r, tuple) else (r,)
    for p in rs:  # (a storage of its own: writing into the copy leaves x as it was)
        before = np.asarray(x.tolist())
        if p.numel():
            p.view(-1)[0] = -1.0
        assert np.array_equal(np.asarray(x.tolist()), before), f"{name}: writing the copy changed the input"
    return tuple((tuple(p.shape), tuple(p.stride()), p.is_contiguous()) for p in rs)


@pytest.mark.parametrize("kind", list(INPUTS))
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}")
def test_copy_variants_are_pytorchs(case, kind):
    name, args = case
    want, got = _outcome(torch, name, args, kind), _outcome(S, name, args, kind)
    if want[0] == "refused":
        assert got[0] == "refused", f"{name}: PyTorch refuses ({want[1]}), strided gave {got}"
        return
    assert got == want
    a = np.random.default_rng(1).standard_normal((3, 4, 5)).astype(np.float32)
    rt, rs = _call(torch, name, args, INPUTS[kind](torch, a)), _call(S, name, args, INPUTS[kind](S, a))
    for p, q in zip(rt if isinstance(rt, tuple) else (rt,), rs if isinstance(rs, tuple) else (rs,)):
        np.testing.assert_array_equal(np.asarray(q.tolist(), np.float32), p.numpy())


@pytest.mark.parametrize("name,args", [("permute_copy", ((1, 0),)), ("diagonal_copy", ()), ("select_copy", (0, 1)),
                                       ("split_copy", (1,)), ("t_copy", ())])
def test_the_gradient_is_pytorchs(name, args):
    a = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float64)
    grads = []
    for m in (torch, S):
        x = m.from_numpy(a.copy()).requires_grad_(True)
        r = getattr(m, name)(x * x, *args)
        loss = sum((p * (p + 1)).sum() for p in r) if isinstance(r, tuple) else (r * (r + 1)).sum()
        loss.backward()
        grads.append(np.asarray(x.grad.tolist()))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def test_out():
    x = S.arange(6.0).reshape(2, 3)
    o = S.empty(3, 2)
    assert S.t_copy(x, out=o) is o and o.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    outs = [S.empty(2, 1), S.empty(2, 2)]
    assert S.split_with_sizes_copy(x, [1, 2], 1, out=outs) is None
    assert outs[0].tolist() == [[0.0], [3.0]] and outs[1].tolist() == [[1.0, 2.0], [4.0, 5.0]]
    with pytest.raises(RuntimeError, match="out must be a list of 2"):
        S.split_copy(x, 2, 1, out=[S.empty(2, 2)])


@pytest.mark.parametrize("name", ["values_copy", "indices_copy", "crow_indices_copy", "col_indices_copy",
                                  "ccol_indices_copy", "row_indices_copy"])
def test_the_sparse_ones_refuse_a_strided_array_as_pytorch(name):
    with pytest.raises(RuntimeError) as want:
        getattr(torch, name)(torch.zeros(2, 2))
    with pytest.raises(RuntimeError) as got:
        getattr(S, name)(S.zeros(2, 2))
    assert str(got.value) == str(want.value)
    with pytest.raises(TypeError):
        getattr(S, name)([1.0])
