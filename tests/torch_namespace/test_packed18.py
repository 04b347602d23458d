"""``strided.torch.nn.utils.rnn``'s PackedSequence and packing functions, and RNN/LSTM/GRU over a
PackedSequence, against PyTorch 2.13: the same inputs and weights through both libraries,
values, dtypes, shapes and gradients (of the inputs, the initial states and every parameter)."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

# PyTorch's packing keeps lengths and batch_sizes on the CPU and refuses them elsewhere; these
# tests build every array on the default device, so they run with the CPU as the default (on
# the CuPy stand-in leg too).
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

from hypothesis import given, settings, strategies as hs

import strided
import strided.torch as st
from _parity import TOL, to_numpy

LIBS = (torch, st)


def _arr(lib, a, grad=False):
    a = np.array(a, copy=True)
    t = torch.from_numpy(a) if lib is torch else strided.asarray(a)
    if grad:
        t.requires_grad_()
    return t


def _same(s, t, tol=None, what=""):
    """strided array ``s`` equals PyTorch tensor ``t`` (either order): dtype, shape, values."""
    if isinstance(s, torch.Tensor):
        s, t = t, s
    assert str(s.dtype) == str(t.dtype).removeprefix("torch."), (what, s.dtype, t.dtype)
    assert tuple(s.shape) == tuple(t.shape), (what, s.shape, t.shape)
    if tol is None:
        np.testing.assert_array_equal(to_numpy(s), to_numpy(t), err_msg=what)
    else:
        np.testing.assert_allclose(to_numpy(s), to_numpy(t), **tol, err_msg=what)


def _same_packed(sp, tp, tol=None):
    if isinstance(sp.data, torch.Tensor):
        sp, tp = tp, sp
    assert type(sp).__name__ == "PackedSequence" and isinstance(sp, tuple)
    assert sp._fields == tp._fields
    _same(sp.data, tp.data, tol, "data")
    _same(sp.batch_sizes, tp.batch_sizes, None, "batch_sizes")
    assert sp.batch_sizes.device.type == "cpu"
    for name in ("sorted_indices", "unsorted_indices"):
        a, b = getattr(sp, name), getattr(tp, name)
        assert (a is None) == (b is None), name
        if a is not None:
            _same(a, b, None, name)


def _padded_input(rng, lengths, trailing, batch_first, dtype, extra=0):
    steps = max(lengths) + extra
    x = rng.standard_normal((steps, len(lengths)) + trailing).astype(dtype)
    for b, n in enumerate(lengths):
        x[n:, b] = 0.0
    return np.swapaxes(x, 0, 1).copy() if batch_first else x


CASES = [([4, 3, 3, 1], True), ([2, 5, 1, 3], False), ([1], True), ([3, 1, 2], False), ([2, 2], True)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce_sorted", CASES)
@pytest.mark.parametrize("trailing", [(), (2,), (2, 3)])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_pack_padded_sequence(lengths, enforce_sorted, batch_first, dtype, trailing, as_tensor):
    rng = np.random.default_rng(len(lengths))
    x = _padded_input(rng, lengths, trailing, batch_first, dtype, extra=1)
    out = []
    for lib in LIBS:
        xi = _arr(lib, x, grad=True)
        ls = _arr(lib, np.array(lengths)) if as_tensor else list(lengths)
        p = lib.nn.utils.rnn.pack_padded_sequence(xi, ls, batch_first=batch_first,
                                                  enforce_sorted=enforce_sorted)
        w = _arr(lib, np.random.default_rng(5).standard_normal(tuple(p.data.shape)).astype(dtype))
        (p.data * w).sum().backward()
        out.append((p, xi.grad))
    (sp, sg), (tp, tg) = out
    _same_packed(sp, tp)
    _same(sg, tg, None, "input grad")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce_sorted", CASES)
@pytest.mark.parametrize("padding_value,total_length", [(0.0, None), (-1.5, None), (2.0, 7)])
def test_pad_packed_sequence(lengths, enforce_sorted, batch_first, dtype, padding_value, total_length):
    rng = np.random.default_rng(3)
    x = _padded_input(rng, lengths, (3,), False, dtype)
    out = []
    for lib in LIBS:
        xi = _arr(lib, x, grad=True)
        p = lib.nn.utils.rnn.pack_padded_sequence(xi, lengths, enforce_sorted=enforce_sorted)
        padded, lens = lib.nn.utils.rnn.pad_packed_sequence(p, batch_first=batch_first,
                                                            padding_value=padding_value,
                                                            total_length=total_length)
        w = _arr(lib, np.random.default_rng(6).standard_normal(tuple(padded.shape)).astype(dtype))
        (padded * w).sum().backward()
        out.append((padded, lens, xi.grad))
    (sv, sl, sg), (tv, tl, tg) = out
    _same(sv, tv, None, "padded")
    _same(sl, tl, None, "lengths")
    assert sl.device.type == "cpu"
    _same(sg, tg, None, "input grad")


def test_pad_packed_sequence_integer_data_and_padding_value():
    x = np.array([[1, 2, 3], [4, 5, 0]]).T.copy()
    for padding_value in (7, 7.5, -2.0):
        res = [lib.nn.utils.rnn.pad_packed_sequence(
            lib.nn.utils.rnn.pack_padded_sequence(_arr(lib, x), [3, 2]), padding_value=padding_value)
            for lib in LIBS]
        _same(res[0][0], res[1][0])


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pack_sequence_and_unpack_sequence(enforce_sorted, dtype):
    rng = np.random.default_rng(9)
    lengths = [4, 2, 1] if enforce_sorted else [2, 4, 1, 3]
    seqs = [rng.standard_normal((n, 2)).astype(dtype) for n in lengths]
    out = []
    for lib in LIBS:
        leaves = [_arr(lib, s, grad=True) for s in seqs]
        p = lib.nn.utils.rnn.pack_sequence(leaves, enforce_sorted=enforce_sorted)
        back = lib.nn.utils.rnn.unpack_sequence(p)
        total = sum((b * (i + 1.5)).sum() for i, b in enumerate(back)) + (p.data ** 2).sum()
        total.backward()
        out.append((p, back, [t.grad for t in leaves]))
    (sp, sb, sg), (tp, tb, tg) = out
    _same_packed(sp, tp)
    assert len(sb) == len(tb) == len(seqs)
    for a, b in zip(sb, tb):
        _same(a, b)
    for a, b in zip(sg, tg):
        _same(a, b, TOL[dtype])


@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_sequence_and_unpad_sequence(padding_side, batch_first):
    rng = np.random.default_rng(2)
    seqs = [rng.standard_normal((n, 3)) for n in (2, 4, 1)]
    out = []
    for lib in LIBS:
        leaves = [_arr(lib, s, grad=True) for s in seqs]
        padded = lib.nn.utils.rnn.pad_sequence(leaves, batch_first=batch_first, padding_value=-3.0,
                                               padding_side=padding_side)
        (padded * padded).sum().backward()
        out.append((padded.detach().clone(), [t.grad for t in leaves]))
        if padding_side == "right":
            back = lib.nn.utils.rnn.unpad_sequence(padded.detach(), _arr(lib, np.array([2, 4, 1])),
                                                   batch_first=batch_first)
            out[-1] += (back,)
    _same(out[0][0], out[1][0])
    for a, b in zip(out[0][1], out[1][1]):
        _same(a, b)
    if padding_side == "right":
        for a, b in zip(out[0][2], out[1][2]):
            _same(a, b)


@settings(max_examples=40, deadline=None)
@given(lengths=hs.lists(hs.integers(1, 5), min_size=1, max_size=5), batch_first=hs.booleans(),
       extra=hs.integers(0, 2), padding_value=hs.sampled_from([0.0, -1.0, 3.5]))
def test_pack_pad_round_trip_drawn(lengths, batch_first, extra, padding_value):
    rng = np.random.default_rng(len(lengths) * 7 + extra)
    x = _padded_input(rng, lengths, (2,), batch_first, "float64", extra)
    res = []
    for lib in LIBS:
        p = lib.nn.utils.rnn.pack_padded_sequence(_arr(lib, x), lengths, batch_first=batch_first,
                                                  enforce_sorted=False)
        res.append((p, *lib.nn.utils.rnn.pad_packed_sequence(
            p, batch_first=batch_first, padding_value=padding_value, total_length=max(lengths) + extra)))
    (sp, sv, sl), (tp, tv, tl) = res
    _same(sp.batch_sizes, tp.batch_sizes)
    _same(sv, tv)
    _same(sl, tl)
    if len(set(lengths)) == len(lengths):  # (ties: PyTorch's unstable sort may order them otherwise)
        _same_packed(sp, tp)


def test_packed_sequence_namedtuple_and_conversions():
    for lib in LIBS:
        PS = lib.nn.utils.rnn.PackedSequence
        p = PS(_arr(lib, np.arange(3.0, dtype=np.float32)), _arr(lib, np.array([2, 1])))
        assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
        assert p.sorted_indices is None and p.unsorted_indices is None
        assert p.is_cuda is False
        assert p.to(lib.float32) is p
        assert p.to(dtype=lib.float64).data.dtype == lib.float64
        assert p.double().data.dtype == lib.float64 and p.long().data.dtype == lib.int64
        assert p.int().data.dtype == lib.int32 and p.half().data.dtype == lib.float16
        assert p.short().data.dtype == lib.int16 and p.char().data.dtype == lib.int8
        assert p.byte().data.dtype == lib.uint8 and p.float() is p and p.cpu() is p
        assert p.to(lib.float64).batch_sizes is p.batch_sizes
        q = PS((p.data, p.batch_sizes))
        assert q.data is p.data and q.batch_sizes is p.batch_sizes
        r = PS(p.data, p.batch_sizes, _arr(lib, np.array([1, 2, 0])))
        np.testing.assert_array_equal(to_numpy(r.unsorted_indices), [2, 0, 1])
        assert r.to(lib.float64).sorted_indices.device.type == "cpu"
        with pytest.raises(AssertionError, match="Expected data to be a list or tuple of length 2"):
            PS(p.data)
    s = st.nn.utils.rnn.pack_sequence([st.tensor([1, 2, 3]), st.tensor([4, 5]), st.tensor([6])])
    t = torch.nn.utils.rnn.pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])])
    assert repr(s) == repr(t)
    inv = [lib.nn.utils.rnn.invert_permutation(_arr(lib, np.array([3, 0, 2, 1]))) for lib in LIBS]
    _same(inv[1], inv[0])
    assert st.nn.utils.rnn.invert_permutation(None) is None


def _error(fn):
    out = []
    for lib in LIBS:
        with pytest.raises(Exception) as e:
            fn(lib)
        out.append((e.type, str(e.value)))
    return out


@pytest.mark.parametrize("fn,exc,fragment", [
    (lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2), [2, 3, 1]), RuntimeError,
     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True"),
    (lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2), [3, 2]), RuntimeError,
     "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)"),
    (lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2), [3, 2, 0]), RuntimeError,
     "Length of all samples has to be greater than 0"),
    (lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3), [3, -1, 2], enforce_sorted=False),
     RuntimeError, "Length of all samples has to be greater than 0"),
    (lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(0, 3, 2), [3, 2, 1]), RuntimeError,
     "Cannot pack empty tensors."),
    (lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3), lib.tensor([[3, 2, 1]])),
     RuntimeError, "'lengths' argument should be a 1D CPU int64 tensor"),
    (lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_sequence([lib.ones(3), lib.ones(1)]), total_length=2), ValueError,
     "Expected total_length to be at least the length of the longest sequence in input, but got "
     "total_length=2 and max sequence length being 3"),
    (lambda lib: lib.nn.utils.rnn.pack_sequence([lib.ones(2), lib.ones(3)]), RuntimeError,
     "`lengths` array must be sorted in decreasing order"),
    (lambda lib: lib.nn.utils.rnn.pack_sequence([]), RuntimeError, "received an empty list of sequences"),
    (lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(4), [3], enforce_sorted=False), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(4), [3]), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
])
def test_errors(fn, exc, fragment):
    (se, sm), (te, tm) = _error(fn)
    assert te is exc and se is exc, (se, te)
    assert fragment in tm and fragment in sm, sm


def test_strided_refuses_lengths_past_the_input():
    # (PyTorch 2.13 reads past the input here: values from unrelated memory)
    with pytest.raises(RuntimeError, match="exceeds the input's time dimension"):
        st.nn.utils.rnn.pack_padded_sequence(st.zeros(4, 3, 2), [5, 2, 1])


def test_bad_batch_sizes_are_refused():
    for bs in ([2, 1, 1], [1, 2], [2, 2]):
        with pytest.raises(RuntimeError):
            torch.nn.utils.rnn.pad_packed_sequence(torch.nn.utils.rnn.PackedSequence(torch.ones(3),
                                                                                     torch.tensor(bs)))
        with pytest.raises(RuntimeError, match="batch_sizes"):
            st.nn.utils.rnn.pad_packed_sequence(st.nn.utils.rnn.PackedSequence(st.ones(3), st.tensor(bs)))


# --- RNN, LSTM, GRU over a PackedSequence ---------------------------------------------------

def _modules(cls, kw, dtype):
    tm = getattr(torch.nn, cls)(3, 4, dtype=getattr(torch, dtype), **kw)
    sm = getattr(st.nn, cls)(3, 4, dtype=getattr(st, dtype), **kw)
    rng = np.random.default_rng(11)
    for name, p in tm.named_parameters():
        v = rng.uniform(-0.6, 0.6, tuple(p.shape)).astype(dtype)
        with torch.no_grad():
            p.copy_(torch.from_numpy(v))
        getattr(sm, name).data = strided.asarray(v.copy())
    return tm, sm


RNN_CASES = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "bidirectional": True}),
    ("RNN", {"num_layers": 2, "batch_first": True}),
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"proj_size": 2}),
    ("LSTM", {"proj_size": 3, "bidirectional": True, "bias": False}),
    ("GRU", {}), ("GRU", {"num_layers": 2, "bidirectional": True}), ("GRU", {"bias": False}),
]


@pytest.mark.parametrize("cls,kw", RNN_CASES)
@pytest.mark.parametrize("lengths,enforce_sorted", [([4, 4, 2, 1], True), ([2, 5, 1, 3], False)])
@pytest.mark.parametrize("with_hx", [False, True])
def test_rnn_on_packed_sequence(cls, kw, lengths, enforce_sorted, with_hx, dtype="float64"):
    tm, sm = _modules(cls, kw, dtype)
    rng = np.random.default_rng(len(lengths))
    x = _padded_input(rng, lengths, (3,), False, dtype)
    nd = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    out_h = kw.get("proj_size", 0) or 4
    h0 = rng.standard_normal((nd * layers, len(lengths), out_h)).astype(dtype)
    c0 = rng.standard_normal((nd * layers, len(lengths), 4)).astype(dtype)
    res = []
    for lib, m in ((torch, tm), (st, sm)):
        xi = _arr(lib, x, grad=True)
        packed = lib.nn.utils.rnn.pack_padded_sequence(xi, lengths, enforce_sorted=enforce_sorted)
        leaves = [xi]
        if with_hx:
            hx = _arr(lib, h0, grad=True)
            leaves.append(hx)
            if cls == "LSTM":
                cx = _arr(lib, c0, grad=True)
                leaves.append(cx)
                hx = (hx, cx)
            out, state = m(packed, hx)
        else:
            out, state = m(packed)
        hn, cn = state if cls == "LSTM" else (state, None)
        ramp = lib.arange(hn.numel(), dtype=hn.dtype).reshape(hn.shape)
        loss = (out.data * out.data).sum() + (hn * ramp).sum()
        if cn is not None:
            loss = loss + (cn ** 3).sum()
        loss.backward()
        res.append((out, hn, cn, [t.grad for t in leaves], [p.grad for p in m.parameters()]))
    (so, sh, sc, sg, spg), (to, th, tc, tg, tpg) = res
    tol = TOL[dtype]
    _same_packed(so, to, tol)
    _same(sh, th, tol, "h_n")
    if cls == "LSTM":
        _same(sc, tc, tol, "c_n")
    for i, (a, b) in enumerate(zip(sg, tg)):
        _same(a, b, tol, f"grad of input {i}")
    assert len(spg) == len(tpg)
    for i, (a, b) in enumerate(zip(spg, tpg)):
        _same(a, b, tol, f"grad of parameter {i}")


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_rnn_on_packed_sequence_float32(cls):
    tm, sm = _modules(cls, {"bidirectional": True}, "float32")
    seqs = [np.random.default_rng(n).standard_normal((n, 3)).astype("float32") for n in (2, 4, 3)]
    res = []
    for lib, m in ((torch, tm), (st, sm)):
        packed = lib.nn.utils.rnn.pack_sequence([_arr(lib, s) for s in seqs], enforce_sorted=False)
        out, state = m(packed)
        hn = state[0] if cls == "LSTM" else state
        padded, lens = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        res.append((padded, lens, hn))
    for a, b in zip(res[1], res[0]):
        _same(a, b, TOL["float32"])


def test_packed_output_matches_each_sequence_run_alone():
    # (h_n of a sequence in a packed batch is the h_n of that sequence run alone: it stops early)
    tm, sm = _modules("GRU", {"bidirectional": True}, "float64")
    seqs = [np.random.default_rng(n).standard_normal((n, 3)) for n in (3, 1, 4)]
    _, hn = sm(st.nn.utils.rnn.pack_sequence([_arr(st, s) for s in seqs], enforce_sorted=False))
    for b, s in enumerate(seqs):
        _, alone = tm(torch.from_numpy(s))
        np.testing.assert_allclose(to_numpy(hn)[:, b], to_numpy(alone), **TOL["float64"])


@pytest.mark.parametrize("cls,make,exc,fragment", [
    ("GRU", lambda lib: (lib.nn.utils.rnn.PackedSequence(lib.zeros(3, 1, 3), lib.tensor([2, 1])),),
     RuntimeError, "input must have 2 dimensions, got 3"),
    ("RNN", lambda lib: (lib.nn.utils.rnn.PackedSequence(lib.zeros(3, 1, 3), lib.tensor([2, 1])),),
     RuntimeError, "input must have 2 dimensions, got 3"),
    ("GRU", lambda lib: (_packed(lib), lib.zeros(1, 3, 4)), RuntimeError,
     "Expected hidden size (1, 2, 4), got [1, 3, 4]"),
    ("RNN", lambda lib: (_packed(lib).double(),), ValueError,
     "RNN input dtype (torch.float64) does not match weight dtype (torch.float32)"),
    ("GRU", lambda lib: (_packed(lib, 2),), RuntimeError,
     "input.size(-1) must be equal to input_size. Expected 3, got 2"),
    ("LSTM", lambda lib: (_packed(lib).double(),), RuntimeError,
     "mat1 and mat2 must have the same dtype, but got Double and Float"),
    # (PyTorch's LSTM checks these in its kernel: other RuntimeErrors, so only the type is compared)
    ("LSTM", lambda lib: (_packed(lib), (lib.zeros(1, 3, 4), lib.zeros(1, 3, 4))), RuntimeError, ""),
    ("LSTM", lambda lib: (_packed(lib), (lib.zeros(1, 2, 4), lib.zeros(1, 2, 3))), RuntimeError, ""),
    ("LSTM", lambda lib: (_packed(lib, 2),), RuntimeError, ""),
])
def test_rnn_packed_errors(cls, make, exc, fragment):
    msgs = []
    for lib in LIBS:
        with pytest.raises(exc) as e:
            getattr(lib.nn, cls)(3, 4)(*make(lib))
        msgs.append(str(e.value).replace("torch.", "strided.") if lib is torch else str(e.value))
    fragment = fragment.replace("torch.", "strided.")
    assert fragment in msgs[0] and fragment in msgs[1], msgs


def test_lstm_packed_hidden_size_error_names_the_state():
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 4\), got \[1, 2, 3\]"):
        st.nn.LSTM(3, 4)(_packed(st), (st.zeros(1, 2, 4), st.zeros(1, 2, 3)))


def _packed(lib, features=3):
    return lib.nn.utils.rnn.pack_sequence([lib.zeros(2, features), lib.zeros(1, features)])


def test_dropout_between_layers_of_a_packed_run():
    # (eval mode: PyTorch's values; train mode: dropout only between layers, so the first
    # layer's h_n is eval's and the second's is not)
    tm, sm = _modules("LSTM", {"num_layers": 2, "dropout": 0.5}, "float64")
    seqs = [np.random.default_rng(n).standard_normal((n, 3)) for n in (4, 2, 3)]
    tm.eval()
    sm.eval()
    _, (th, _) = tm(torch.nn.utils.rnn.pack_sequence([_arr(torch, s) for s in seqs], enforce_sorted=False))
    packed = st.nn.utils.rnn.pack_sequence([_arr(st, s) for s in seqs], enforce_sorted=False)
    _, (eh, _) = sm(packed)
    _same(eh, th, TOL["float64"])
    sm.train()
    out, (h, _) = sm(packed)
    np.testing.assert_allclose(to_numpy(h)[0], to_numpy(eh)[0], **TOL["float64"])
    assert not np.allclose(to_numpy(h)[1], to_numpy(eh)[1])
    assert tuple(out.data.shape) == (9, 4)
