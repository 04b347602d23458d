"""strided.torch's RNN, LSTM, GRU and their cells against PyTorch 2.13: parameter names
and shapes, default initialisation bounds, PyTorch's weights loaded give PyTorch's outputs,
final states and gradients (every parameter, the input, h0/c0) in float32 and float64,
for layers, directions, batch_first, unbatched input, projections; dropout between layers;
errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import to_numpy

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-11)}


def _pair(cls, *args, dtype="float64", **kw):
    ref = getattr(torch.nn, cls)(*args, **kw).to(getattr(torch, dtype))
    got = getattr(storch.nn, cls)(*args, **kw).to(getattr(storch, dtype))
    assert [n for n, _ in got.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert [tuple(p.shape) for p in got.parameters()] == [tuple(p.shape) for p in ref.parameters()]
    keys = got.load_state_dict({k: v.detach().numpy() for k, v in ref.state_dict().items()})
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    return ref, got


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _compare(ref, got, inputs, dtype, seed=0):
    """Run both modules on ``inputs`` (NumPy arrays or tuples of them; None passes None),
    compare every output and the gradients of every parameter and input."""
    def conv(lib, a):
        if a is None:
            return None
        if isinstance(a, tuple):
            return tuple(conv(lib, b) for b in a)
        a = a.astype(dtype)
        t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
        return t.requires_grad_()
    ins_r = [conv(torch, a) for a in inputs]
    ins_s = [conv(storch, a) for a in inputs]
    out_r, out_s = _flat(ref(*ins_r)), _flat(got(*ins_s))
    assert len(out_r) == len(out_s)
    rng = np.random.default_rng(seed + 7)
    loss_r = loss_s = 0
    for r, s in zip(out_r, out_s):
        assert tuple(s.shape) == tuple(r.shape)
        assert str(s.dtype) == str(r.dtype).removeprefix("torch.")
        np.testing.assert_allclose(to_numpy(s), r.detach().numpy(), **TOL[dtype])
        w = rng.standard_normal(tuple(r.shape)).astype(dtype)
        loss_r = loss_r + (r * torch.from_numpy(w)).sum()
        loss_s = loss_s + (s * strided.asarray(w)).sum()
    loss_r.backward()
    loss_s.backward()
    for (n, p), (_, q) in zip(got.named_parameters(), ref.named_parameters()):
        np.testing.assert_allclose(to_numpy(p.grad), q.grad.numpy(), **TOL[dtype], err_msg=n)
    leaves = lambda ins: [t for t in _flat(ins) if t is not None]  # noqa: E731
    for i, (a, b) in enumerate(zip(leaves(ins_s), leaves(ins_r))):
        np.testing.assert_allclose(to_numpy(a.grad), b.grad.numpy(), **TOL[dtype],
                                   err_msg=f"input {i}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls,kw", [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {}),
    ("LSTM", {"proj_size": 2}),
])
def test_two_layers_bidirectional_batch_first(dtype, cls, kw):
    ref, got = _pair(cls, 3, 4, 2, dtype=dtype, batch_first=True, bidirectional=True, **kw)
    x = np.random.default_rng(0).standard_normal((2, 5, 3))
    _compare(ref, got, [x], dtype)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("num_layers,bidirectional,batch_first,bias", [
    (1, False, False, True), (1, True, False, False), (3, False, True, True), (2, True, False, True),
])
def test_grid_of_options_with_initial_states(cls, num_layers, bidirectional, batch_first, bias):
    ref, got = _pair(cls, 2, 3, num_layers, bias=bias, batch_first=batch_first,
                     bidirectional=bidirectional)
    rng = np.random.default_rng(1)
    d = 2 if bidirectional else 1
    x = rng.standard_normal((2, 4, 2) if batch_first else (4, 2, 2))
    h0 = rng.standard_normal((num_layers * d, 2, 3))
    hx = (h0, rng.standard_normal((num_layers * d, 2, 3))) if cls == "LSTM" else h0
    _compare(ref, got, [x, hx], "float64")


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_input(cls, batch_first):
    ref, got = _pair(cls, 3, 2, 2, batch_first=batch_first, bidirectional=True)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 3))
    _compare(ref, got, [x], "float64")
    h0 = rng.standard_normal((4, 2))
    hx = (h0, rng.standard_normal((4, 2))) if cls == "LSTM" else h0
    ref.zero_grad(), got.zero_grad()
    _compare(ref, got, [x, hx], "float64")


def test_lstm_projection_with_states_and_noncontiguous_input():
    ref, got = _pair("LSTM", 3, 5, 2, proj_size=2, bidirectional=True)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 6, 3)).transpose(1, 0, 2)  # (6, 2, 3), not C-contiguous
    hx = (rng.standard_normal((4, 2, 2)), rng.standard_normal((4, 2, 5)))
    _compare(ref, got, [x, hx], "float64")


def test_noncontiguous_strided_input_array():
    ref, got = _pair("GRU", 3, 4)
    ref.flatten_parameters(), got.flatten_parameters()
    assert [[tuple(p.shape) for p in ps] for ps in got.all_weights] == \
        [[tuple(p.shape) for p in ps] for ps in ref.all_weights]
    x = np.random.default_rng(4).standard_normal((4, 2, 6))
    xs, xr = strided.asarray(x)[..., ::2], torch.from_numpy(x)[..., ::2]
    np.testing.assert_allclose(to_numpy(got(xs)[0]), ref(xr)[0].detach().numpy(), rtol=1e-10)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_cells(cls, dtype, batched, with_state):
    ref, got = _pair(cls, 3, 4, dtype=dtype)
    rng = np.random.default_rng(5)
    lead = (2,) if batched else ()
    x = rng.standard_normal(lead + (3,))
    hx = None
    if with_state:
        h = rng.standard_normal(lead + (4,))
        hx = (h, rng.standard_normal(lead + (4,))) if cls == "LSTMCell" else h
    _compare(ref, got, [x, hx] if with_state else [x], dtype)


def test_rnn_cell_relu_without_bias():
    ref, got = _pair("RNNCell", 3, 4, bias=False, nonlinearity="relu")
    assert repr(got) == repr(ref)
    _compare(ref, got, [np.random.default_rng(6).standard_normal((3, 3))], "float64")


def test_default_initialisation_bounds_and_reprs():
    for cls, args, kw in [("RNN", (3, 16, 2), {"bidirectional": True}),
                          ("LSTM", (3, 16), {"proj_size": 4, "batch_first": True}),
                          ("GRU", (3, 16, 2), {"dropout": 0.5, "bias": False}),
                          ("LSTMCell", (3, 16), {}), ("GRUCell", (3, 16), {})]:
        ref = getattr(torch.nn, cls)(*args, **kw)
        got = getattr(storch.nn, cls)(*args, **kw)
        assert repr(got) == repr(ref)
        bound = 1 / math.sqrt(16)
        values = np.concatenate([to_numpy(p).ravel() for p in got.parameters()])
        assert values.min() >= -bound and values.max() <= bound
        assert values.std() > bound / 3  # uniform over the whole interval, not a constant
        assert all(str(p.dtype) == "float32" for p in got.parameters())


def test_dropout_between_layers_only_while_training():
    got = storch.nn.GRU(3, 8, 2, dropout=0.5)
    x = storch.randn(4, 2, 3)
    got.eval()
    a, b = got(x)[0], got(x)[0]
    np.testing.assert_array_equal(to_numpy(a), to_numpy(b))  # eval: deterministic
    got.train()
    outs = [to_numpy(got(x)[0]) for _ in range(3)]
    assert not np.allclose(outs[0], outs[1])  # training: layer 0's output is dropped
    one = storch.nn.GRU(3, 8, 2, dropout=1.0)  # everything dropped: layer 1 sees zeros
    ref = torch.nn.GRU(3, 8, 2, dropout=1.0)
    one.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    xr = np.random.default_rng(7).standard_normal((4, 2, 3)).astype("float32")
    np.testing.assert_allclose(to_numpy(one(strided.asarray(xr))[0]),
                               ref(torch.from_numpy(xr))[0].detach().numpy(), rtol=1e-5, atol=1e-6)


def test_dropout_with_one_layer_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        storch.nn.LSTM(3, 4, dropout=0.2)


def _both(fn):
    with pytest.raises(Exception) as er:
        fn(torch)
    with pytest.raises(type(er.value)) as es:
        fn(storch)
    return str(er.value), str(es.value)


def _z(lib, *shape):
    return lib.zeros(*shape)


@pytest.mark.parametrize("fn,fragment", [
    (lambda L: L.nn.RNN(3, 4, nonlinearity="sig"), "Unknown nonlinearity 'sig'"),
    (lambda L: L.nn.GRU(3, 4, proj_size=2), "proj_size argument is only supported for LSTM"),
    (lambda L: L.nn.LSTM(3, 4, proj_size=4), "proj_size has to be smaller than hidden_size"),
    (lambda L: L.nn.LSTM(3, 4, dropout=1.5), "dropout should be a number in range [0, 1]"),
    (lambda L: L.nn.LSTM(3, 0), "hidden_size must be greater than zero"),
    (lambda L: L.nn.LSTM(3, 4)(_z(L, 5, 2, 4)),
     "input.size(-1) must be equal to input_size. Expected 3, got 4"),
    (lambda L: L.nn.LSTM(3, 4)(_z(L, 5, 2, 3), (_z(L, 1, 3, 4), _z(L, 1, 2, 4))),
     "Expected hidden[0] size (1, 2, 4), got [1, 3, 4]"),
    (lambda L: L.nn.LSTM(3, 4)(_z(L, 5, 2, 3), (_z(L, 1, 2, 4), _z(L, 1, 2, 5))),
     "Expected hidden[1] size (1, 2, 4), got [1, 2, 5]"),
    (lambda L: L.nn.LSTM(3, 4)(_z(L, 5, 3), (_z(L, 1, 2, 4), _z(L, 1, 2, 4))),
     "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors"),
    (lambda L: L.nn.GRU(3, 4)(_z(L, 5, 2, 3), _z(L, 1, 3, 4)),
     "Expected hidden size (1, 2, 4), got [1, 3, 4]"),
    (lambda L: L.nn.RNN(3, 4)(_z(L, 5, 2, 3), _z(L, 2, 4)),
     "For batched 3-D input, hx should also be 3-D but got 2-D tensor"),
    (lambda L: L.nn.RNN(3, 4)(_z(L, 5, 3), _z(L, 1, 1, 4)),
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda L: L.nn.GRU(3, 4)(_z(L, 5, 2, 3, 1)), "GRU: Expected input to be 2D or 3D, got 4D"),
    (lambda L: L.nn.LSTM(3, 4)(_z(L, 5)), "LSTM: Expected input to be 2D or 3D, got 1D"),
    (lambda L: L.nn.RNNCell(3, 4)(_z(L, 2, 5)), "input has inconsistent input_size: got 5 expected 3"),
    (lambda L: L.nn.RNNCell(3, 4)(_z(L, 2, 3), _z(L, 2, 5)),
     "hidden0 has inconsistent hidden_size: got 5, expected 4"),
    (lambda L: L.nn.GRUCell(3, 4)(_z(L, 2, 3), _z(L, 3, 4)),
     "Input batch size 2 doesn't match hidden0 batch size 3"),
    (lambda L: L.nn.LSTMCell(3, 4)(_z(L, 2, 3, 3)), "LSTMCell: Expected input to be 1D or 2D, got 3D"),
    (lambda L: L.nn.RNNCell(3, 4, nonlinearity="x")(_z(L, 3)), "Unknown nonlinearity: x"),
])
def test_errors_match_pytorch(fn, fragment):
    ref, got = _both(fn)
    assert fragment in ref
    assert fragment in got


@pytest.mark.parametrize("fn,fragment", [
    (lambda L: L.nn.LSTM(3, 4)(_z(L, 5, 2, 3).double()), "does not match weight dtype ("),
    (lambda L: L.nn.GRU(3, 4)(_z(L, 2, 3), _z(L, 1, 4).double()),
     "mat1 and mat2 must have the same dtype, but got Double and Float"),
    (lambda L: L.nn.GRUCell(3, 4)(_z(L, 2, 3).double()),
     "mat1 and mat2 must have the same dtype, but got Double and Float"),
    (lambda L: L.nn.LSTMCell(3, 4)(_z(L, 2, 3), (_z(L, 2, 4).double(), _z(L, 2, 4))),
     "mat1 and mat2 must have the same dtype"),
    (lambda L: L.nn.LSTMCell(3, 4)(_z(L, 3), (_z(L, 1, 4), _z(L, 4))),
     "hidden0 has inconsistent hidden_size: got 1, expected 4"),
])
def test_dtype_and_state_errors(fn, fragment):
    ref, got = _both(fn)
    assert fragment in ref
    assert fragment in got
