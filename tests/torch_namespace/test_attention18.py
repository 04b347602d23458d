"""strided.torch's scaled_dot_product_attention, multi_head_attention_forward,
MultiheadAttention and Transformer layers against PyTorch 2.13: values and gradients for a
grid of shapes, masks and options in float32 and float64; PyTorch's weights loaded give
PyTorch's outputs; dropout by its properties; errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from _parity import check, to_numpy

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-11)}

pytestmark = pytest.mark.filterwarnings("ignore:Support for mismatched", "ignore:enable_nested_tensor")


def _mask(lib, a):
    return torch.from_numpy(a) if lib is torch else strided.asarray(a)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("lead", [(), (2,), (2, 3)])
@pytest.mark.parametrize("L,S,E,Ev", [(3, 5, 4, 6), (4, 4, 2, 2), (5, 2, 3, 1)])
@pytest.mark.parametrize("mask", ["none", "bool", "float", "causal", "bool_broadcast"])
def test_sdpa_values_and_gradients(dtype, lead, L, S, E, Ev, mask):
    def build(lib, T, rng):
        q = T(rng.standard_normal(lead + (L, E)), grad=True)
        k = T(rng.standard_normal(lead + (S, E)), grad=True)
        v = T(rng.standard_normal(lead + (S, Ev)), grad=True)
        kw = {}
        if mask == "bool":
            m = rng.random(lead + (L, S)) > 0.3
            m[..., 0] = True  # (every row attends somewhere)
            kw["attn_mask"] = _mask(lib, m)
        elif mask == "bool_broadcast":
            m = rng.random((L, 1)) > 2  # all False rows: PyTorch's safe softmax gives 0
            m[0] = True
            kw["attn_mask"] = _mask(lib, np.broadcast_to(m, (L, S)).copy())
        elif mask == "float":
            kw["attn_mask"] = T(rng.standard_normal((L, S)))
        elif mask == "causal":
            kw["is_causal"] = True
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
    check(build, dtype, tol=TOL[dtype])


@pytest.mark.parametrize("scale", [None, 0.3, 2.0])
def test_sdpa_scale_and_float_mask_with_minus_inf(scale):
    def build(lib, T, rng):
        q = T(rng.standard_normal((2, 3, 4)), grad=True)
        k = T(rng.standard_normal((2, 5, 4)), grad=True)
        v = T(rng.standard_normal((2, 5, 2)), grad=True)
        m = rng.standard_normal((3, 5))
        m[1, :] = -np.inf  # a fully masked row (zeros, no NaN in the gradients)
        m[2, 1:] = -np.inf
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, T(m), scale=scale)
    check(build, "float64")


def test_sdpa_enable_gqa():
    def build(lib, T, rng):
        q = T(rng.standard_normal((2, 4, 3, 4)), grad=True)
        k = T(rng.standard_normal((2, 2, 5, 4)), grad=True)
        v = T(rng.standard_normal((2, 1, 5, 3)), grad=True)
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    check(build, "float64")


def test_sdpa_noncontiguous_inputs():
    def build(lib, T, rng):
        q = T(rng.standard_normal((4, 2, 3)), grad=True)
        k = T(rng.standard_normal((5, 2, 6)), grad=True)
        v = T(rng.standard_normal((2, 5, 2)), grad=True)
        return lib.nn.functional.scaled_dot_product_attention(
            q.transpose(0, 1), k.transpose(0, 1)[..., ::2], v.flip(1) if lib is torch else v.flip(1))
    check(build, "float64")


def test_sdpa_dropout_properties():
    F = storch.nn.functional
    q = storch.zeros(64, 8, 4)  # uniform attention: every weight 1/S
    k = storch.zeros(64, 8, 4)
    v = storch.ones(64, 8, 1)
    out = to_numpy(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5))
    # Each output is (number of kept weights) * (1/8) / 0.5: a multiple of 0.25, mean 1.
    np.testing.assert_allclose(out * 4, np.round(out * 4), atol=1e-5)
    assert abs(out.mean() - 1.0) < 0.1 and out.std() > 0.1
    zero = to_numpy(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0))
    np.testing.assert_array_equal(zero, 0.0)
    same = to_numpy(F.scaled_dot_product_attention(q, k, v, dropout_p=0.0))
    np.testing.assert_allclose(same, 1.0, rtol=1e-6)


def _both(fn):
    with pytest.raises(Exception) as er:
        fn(torch)
    with pytest.raises(type(er.value)) as es:
        fn(storch)
    return str(er.value), str(es.value)


def _z(lib, *shape, dtype=None):
    a = np.zeros(shape, dtype=dtype or "float32")
    return torch.from_numpy(a) if lib is torch else strided.asarray(a)


def _sdpa(L):
    return L.nn.functional.scaled_dot_product_attention


@pytest.mark.parametrize("fn,fragment", [
    (lambda L: _sdpa(L)(_z(L, 2, 3, 4), _z(L, 2, 5, 4), _z(L, 2, 5, 4),
                        attn_mask=_z(L, 3, 5, dtype=bool), is_causal=True),
     "Explicit attn_mask should not be set when is_causal=True"),
    (lambda L: _sdpa(L)(_z(L, 2, 3, 4), _z(L, 2, 5, 4), _z(L, 2, 5, 4),
                        attn_mask=_z(L, 3, 5, dtype="int64")),
     "Expected attn_mask dtype to be bool or float or to match query dtype"),
    (lambda L: _sdpa(L)(_z(L, 2, 3, 4), _z(L, 2, 5, 4), _z(L, 2, 5, 4, dtype="float64")),
     "Expected query, key, and value to have the same dtype"),
    (lambda L: _sdpa(L)(_z(L, 4), _z(L, 5, 4), _z(L, 5, 4)),
     "Expected query, key, and value to all be  at least 2 dimensional"),
    (lambda L: _sdpa(L)(_z(L, 2, 3, 4), _z(L, 2, 5, 4), _z(L, 2, 5, 4), dropout_p=1.5),
     "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda L: _sdpa(L)(_z(L, 1, 4, 3, 4), _z(L, 1, 3, 5, 4), _z(L, 1, 3, 5, 4), enable_gqa=True),
     "Number of heads in key and value must divide the number of heads in"),
    (lambda L: _sdpa(L)(_z(L, 2, 3, 4), _z(L, 2, 5, 4), _z(L, 2, 5, 4), attn_mask=_z(L, 3, 4)),
     ""),
    (lambda L: _sdpa(L)(_z(L, 2, 3, 4), _z(L, 2, 5, 4), _z(L, 2, 5, 4),
                        attn_mask=_z(L, 3, 4, dtype=bool)), ""),
    (lambda L: _sdpa(L)(_z(L, 2, 3, 4), _z(L, 2, 5, 4), _z(L, 2, 5, 4),
                        attn_mask=_z(L, 4, 3, 5, dtype=bool)), ""),
    (lambda L: _sdpa(L)(_z(L, 2, 3, 4), _z(L, 2, 5, 3), _z(L, 2, 5, 4)), ""),
    (lambda L: _sdpa(L)(_z(L, 2, 3, 4), _z(L, 2, 5, 4), _z(L, 2, 4, 4)), ""),
])
def test_sdpa_errors(fn, fragment):
    ref, got = _both(fn)
    assert fragment in ref and fragment in got


# --- MultiheadAttention ---------------------------------------------------------------

def _load(ref, got):
    keys = got.load_state_dict({k: v.detach().numpy() for k, v in ref.state_dict().items()})
    assert keys.missing_keys == [] and keys.unexpected_keys == []


def _mha_pair(dtype, *args, **kw):
    ref = torch.nn.MultiheadAttention(*args, **kw).to(getattr(torch, dtype))
    got = storch.nn.MultiheadAttention(*args, **kw).to(getattr(storch, dtype))
    assert [n for n, _ in got.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert list(got.state_dict()) == list(ref.state_dict())
    _load(ref, got)
    return ref, got


def _run_pair(ref, got, arrays, masks, dtype, call_kw, seed=0):
    """Call both modules with ``arrays`` (leaves that require grad) and ``masks``; compare
    the outputs (and weights), then the gradients of the arrays and every parameter."""
    xr = [torch.from_numpy(a.astype(dtype)).requires_grad_() for a in arrays]
    xs = [strided.asarray(a.astype(dtype)).requires_grad_() for a in arrays]
    mr = {k: (None if m is None else torch.from_numpy(m.astype(dtype) if m.dtype.kind == "f"
                                                      else m)) for k, m in masks.items()}
    ms = {k: (None if m is None else strided.asarray(m.astype(dtype) if m.dtype.kind == "f"
                                                     else m)) for k, m in masks.items()}
    out_r, out_s = ref(*xr, **mr, **call_kw), got(*xs, **ms, **call_kw)
    if not isinstance(out_r, tuple):
        out_r, out_s = (out_r,), (out_s,)
    rng = np.random.default_rng(seed + 11)
    lr = ls = 0
    for r, s in zip(out_r, out_s):
        assert (r is None) == (s is None)
        if r is None:
            continue
        assert tuple(s.shape) == tuple(r.shape)
        np.testing.assert_allclose(to_numpy(s), r.detach().numpy(), **TOL[dtype])
        w = rng.standard_normal(tuple(r.shape)).astype(dtype)
        lr = lr + (r * torch.from_numpy(w)).sum()
        ls = ls + (s * strided.asarray(w)).sum()
    lr.backward()
    ls.backward()
    for i, (a, b) in enumerate(zip(xs, xr)):
        if b.grad is None:
            assert a.grad is None
            continue
        np.testing.assert_allclose(to_numpy(a.grad), b.grad.numpy(), **TOL[dtype], err_msg=f"in {i}")
    for (n, p), (_, q) in zip(got.named_parameters(), ref.named_parameters()):
        if q.grad is None:
            assert p.grad is None, n
            continue
        np.testing.assert_allclose(to_numpy(p.grad), q.grad.numpy(), **TOL[dtype], err_msg=n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("masks", ["none", "bool_attn", "float_attn3d", "padding", "both"])
def test_mha_self_attention(dtype, batch_first, need_weights, average, masks):
    E, H, L, N = 6, 2, 4, 3
    ref, got = _mha_pair(dtype, E, H, batch_first=batch_first)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, L, E) if batch_first else (L, N, E))
    m = {}
    if masks in ("bool_attn", "both"):
        a = np.triu(np.ones((L, L), dtype=bool), 1)  # True: not attended
        m["attn_mask"] = a
    if masks == "float_attn3d":
        m["attn_mask"] = rng.standard_normal((N * H, L, L))
    if masks in ("padding", "both"):
        p = np.zeros((N, L), dtype=bool)
        p[0, -1] = p[2, -2:] = True
        m["key_padding_mask"] = p
    _run_pair(ref, got, [x, x, x], m, dtype,
              {"need_weights": need_weights, "average_attn_weights": average})


@pytest.mark.parametrize("opts", [
    {"kdim": 3, "vdim": 5}, {"bias": False}, {"add_bias_kv": True}, {"add_zero_attn": True},
    {"add_bias_kv": True, "add_zero_attn": True, "kdim": 2},
])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_options_cross_attention(opts, need_weights):
    E, H, L, S, N = 4, 2, 3, 5, 2
    ref, got = _mha_pair("float64", E, H, **opts)
    rng = np.random.default_rng(1)
    q = rng.standard_normal((L, N, E))
    k = rng.standard_normal((S, N, opts.get("kdim", E)))
    v = rng.standard_normal((S, N, opts.get("vdim", E)))
    pad = np.zeros((N, S), dtype=bool)
    pad[1, 0] = True
    _run_pair(ref, got, [q, k, v], {"key_padding_mask": pad}, "float64",
              {"need_weights": need_weights})


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_unbatched_with_3d_mask(need_weights):
    ref, got = _mha_pair("float64", 4, 2)
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    m = rng.standard_normal((2, 3, 5))
    _run_pair(ref, got, [q, k, k], {"attn_mask": m}, "float64",
              {"need_weights": need_weights, "average_attn_weights": False})


def test_mha_is_causal_hint_with_causal_mask():
    ref, got = _mha_pair("float64", 4, 2, batch_first=True)
    x = np.random.default_rng(3).standard_normal((2, 5, 4))
    causal = np.triu(np.full((5, 5), -np.inf), 1)
    _run_pair(ref, got, [x, x, x], {"attn_mask": causal}, "float64",
              {"need_weights": False, "is_causal": True})


def test_reprs_match_pytorch():
    for make in (lambda nn: nn.MultiheadAttention(8, 2, kdim=3, batch_first=True),
                 lambda nn: nn.TransformerEncoderLayer(8, 2, 16, norm_first=True),
                 lambda nn: nn.TransformerDecoderLayer(8, 2, 16, bias=False)):
        assert repr(make(storch.nn)) == repr(make(torch.nn))


def test_mha_default_initialisation():
    got = storch.nn.MultiheadAttention(8, 2, add_bias_kv=True)
    np.testing.assert_array_equal(to_numpy(got.in_proj_bias), 0.0)
    np.testing.assert_array_equal(to_numpy(got.out_proj.bias), 0.0)
    bound = math.sqrt(6.0 / (8 + 24))  # xavier_uniform_ of (24, 8)
    w = to_numpy(got.in_proj_weight)
    assert np.abs(w).max() <= bound and w.std() > bound / 3
    assert tuple(got.bias_k.shape) == (1, 1, 8)
    sep = storch.nn.MultiheadAttention(8, 2, kdim=3, vdim=5)
    assert sep.in_proj_weight is None and tuple(sep.k_proj_weight.shape) == (8, 3)


def _mha(L, *a, **kw):
    return L.nn.MultiheadAttention(4, 2, *a, **kw)


@pytest.mark.parametrize("fn,fragment", [
    (lambda L: _mha(L)(_z(L, 2, 3, 4), _z(L, 2, 3, 4), _z(L, 2, 3, 4), attn_mask=_z(L, 2, 3)),
     "The shape of the 2D attn_mask is"),
    (lambda L: _mha(L)(_z(L, 2, 3, 4), _z(L, 2, 3, 4), _z(L, 2, 3, 4), attn_mask=_z(L, 5, 2, 2)),
     "The shape of the 3D attn_mask is"),
    (lambda L: _mha(L)(_z(L, 2, 3, 4), _z(L, 2, 3, 4), _z(L, 2, 3, 4),
                       attn_mask=_z(L, 2, 2, dtype="int64")),
     "only bool and floating types of attn_mask are supported"),
    (lambda L: _mha(L)(_z(L, 2, 3, 4), _z(L, 2, 3, 4), _z(L, 2, 3, 4),
                       key_padding_mask=_z(L, 3, 3, dtype=bool)),
     "Expected key_padded_mask.shape[1] to be 2, but got 3"),
    (lambda L: _mha(L)(_z(L, 2, 3, 4), _z(L, 2, 3, 4), _z(L, 2, 3, 4),
                       key_padding_mask=_z(L, 3, dtype=bool)),
     "expected `key_padding_mask` to be `None` or 2-D but found 1-D tensor instead"),
    (lambda L: _mha(L)(_z(L, 2, 3, 3), _z(L, 2, 3, 4), _z(L, 2, 3, 4)),
     "was expecting embedding dimension of 4, but got 3"),
    (lambda L: _mha(L)(_z(L, 2, 3, 4), _z(L, 2, 3, 4), _z(L, 2, 3, 4), is_causal=True),
     "Need attn_mask if specifying the is_causal hint"),
    (lambda L: _mha(L)(_z(L, 2, 3, 4), _z(L, 2, 4), _z(L, 2, 4)),
     "For batched (3-D) `query`, expected `key` and `value` to be 3-D"),
    (lambda L: _mha(L)(_z(L, 2, 2, 3, 4), _z(L, 2, 4), _z(L, 2, 4)),
     "query should be unbatched 2D or batched 3D tensor but received 4-D query tensor"),
    (lambda L: L.nn.MultiheadAttention(5, 2), "embed_dim must be divisible by num_heads"),
    (lambda L: L.nn.MultiheadAttention(0, 2), "embed_dim and num_heads must be greater than 0"),
    (lambda L: L.nn.TransformerEncoderLayer(4, 2, activation="tanh"),
     "activation should be relu/gelu, not tanh"),
])
def test_mha_errors(fn, fragment):
    ref, got = _both(fn)
    assert fragment in ref and fragment in got


# --- Transformer ----------------------------------------------------------------------

@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_transformer_encoder_loads_pytorch_weights(norm_first, batch_first, activation):
    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                           activation=activation, batch_first=batch_first,
                                           norm_first=norm_first)
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8), enable_nested_tensor=False)
    ref, got = make(torch.nn).double(), make(storch.nn).double()
    assert [n for n, _ in got.named_parameters()] == [n for n, _ in ref.named_parameters()]
    _load(ref, got)
    rng = np.random.default_rng(4)
    N, L = 2, 5
    x = rng.standard_normal((N, L, 8) if batch_first else (L, N, 8))
    pad = np.zeros((N, L), dtype=bool)
    pad[1, -2:] = True
    causal = np.triu(np.full((L, L), -np.inf), 1)
    _run_pair(ref, got, [x], {"mask": causal, "src_key_padding_mask": pad}, "float64", {})
    ref.zero_grad(), got.zero_grad()
    _run_pair(ref, got, [x], {}, "float64", {})


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_decoder_and_full_model(norm_first):
    def make(nn):
        return nn.Transformer(8, 2, 2, 1, dim_feedforward=12, dropout=0.0, batch_first=True,
                              norm_first=norm_first)
    ref, got = make(torch.nn).double(), make(storch.nn).double()
    assert [n for n, _ in got.named_parameters()] == [n for n, _ in ref.named_parameters()]
    _load(ref, got)
    rng = np.random.default_rng(5)
    src, tgt = rng.standard_normal((2, 5, 8)), rng.standard_normal((2, 3, 8))
    tgt_mask = to_numpy(storch.nn.Transformer.generate_square_subsequent_mask(3)).astype("float64")
    np.testing.assert_array_equal(tgt_mask,
                                  torch.nn.Transformer.generate_square_subsequent_mask(3).numpy())
    pad = np.zeros((2, 5), dtype=bool)
    pad[0, -1] = True
    _run_pair(ref, got, [src, tgt], {"tgt_mask": tgt_mask, "src_key_padding_mask": pad,
                                     "memory_key_padding_mask": pad}, "float64", {})


def test_transformer_default_initialisation_and_errors():
    model = storch.nn.Transformer(8, 2, 1, 1, dim_feedforward=16)
    w = to_numpy(model.encoder.layers[0].linear1.weight)
    bound = math.sqrt(6.0 / (8 + 16))
    assert np.abs(w).max() <= bound and w.std() > bound / 3
    for fn, fragment in [
        (lambda L: L.nn.Transformer(8, 2, 1, 1, 16)(_z(L, 5, 2, 8), _z(L, 3, 3, 8)),
         "the batch number of src and tgt must be equal"),
        (lambda L: L.nn.Transformer(8, 2, 1, 1, 16)(_z(L, 5, 2, 8), _z(L, 3, 2, 6)),
         "the feature number of src and tgt must be equal to d_model"),
    ]:
        ref, got = _both(fn)
        assert fragment in ref and fragment in got


def test_transformer_dropout_only_in_training():
    layer = storch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.5)
    x = storch.randn(5, 2, 8)
    layer.eval()
    np.testing.assert_array_equal(to_numpy(layer(x)), to_numpy(layer(x)))
    layer.train()
    assert not np.allclose(to_numpy(layer(x)), to_numpy(layer(x)))


@pytest.mark.parametrize("left_aligned", [True, False])
@pytest.mark.parametrize("final_norm", [True, False])
def test_transformer_encoder_eval_nested_path_zeroes_padding_as_pytorch(left_aligned, final_norm):
    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8) if final_norm else None)
    ref, got = make(torch.nn), make(storch.nn)
    assert got.use_nested_tensor and ref.use_nested_tensor
    _load(ref, got)
    ref.eval(), got.eval()
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 5, 8)).astype("float32")
    pad = np.zeros((3, 5), dtype=bool)
    pad[1, -2:] = pad[2, -1] = True
    if not left_aligned:
        pad[0, 0] = True
    with torch.no_grad():
        r = ref(torch.from_numpy(x), src_key_padding_mask=torch.from_numpy(pad)).numpy()
    with storch.no_grad():
        s = to_numpy(got(strided.asarray(x), src_key_padding_mask=strided.asarray(pad)))
    np.testing.assert_allclose(s, r, rtol=1e-4, atol=1e-5)
    if left_aligned and not final_norm:
        assert (s[1, -2:] == 0).all()  # PyTorch's nested tensor pads back with zeros
    # Recording gradients: PyTorch's regular path, every position computed.
    xr = torch.from_numpy(x).requires_grad_()
    xs = strided.asarray(x).requires_grad_()
    r = ref(xr, src_key_padding_mask=torch.from_numpy(pad)).detach().numpy()
    s = to_numpy(got(xs, src_key_padding_mask=strided.asarray(pad)))
    np.testing.assert_allclose(s, r, rtol=1e-4, atol=1e-5)
    assert not (s[1, -2:] == 0).all()


def test_transformer_encoder_nested_tensor_warning_as_pytorch():
    for kw in ({"norm_first": True}, {}, {"batch_first": True, "activation": storch.tanh}):
        tkw = dict(kw)
        if "activation" in tkw:
            tkw["activation"] = torch.tanh
        with pytest.warns(UserWarning) as wr:
            torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(4, 2, 8, **tkw), 1)
        with pytest.warns(UserWarning) as ws:
            storch.nn.TransformerEncoder(storch.nn.TransformerEncoderLayer(4, 2, 8, **kw), 1)
        assert str(ws[0].message) == str(wr[0].message)


@pytest.mark.parametrize("mode", ["eval_no_grad", "eval_grad", "train"])
@pytest.mark.parametrize("module,need_weights", [("mha", True), ("mha", False),
                                                 ("encoder_layer", False)])
def test_fully_masked_rows_follow_pytorchs_path(mode, need_weights, module):
    """A batch row whose keys are all padded: NaN on PyTorch's fused inference path and its
    explicit-weights path, zeros on its scaled_dot_product_attention path."""
    if module == "mha":
        ref = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        got = storch.nn.MultiheadAttention(8, 2, batch_first=True)
    else:
        ref = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        got = storch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    _load(ref, got)
    if mode != "train":
        ref.eval(), got.eval()
    x = np.random.default_rng(10).standard_normal((3, 4, 8)).astype("float32")
    pad = np.zeros((3, 4), dtype=bool)
    pad[1, :] = True
    pad[2, -1] = True
    xt, xs = torch.from_numpy(x), strided.asarray(x)
    pt, ps = torch.from_numpy(pad), strided.asarray(pad)
    ctx_t = torch.no_grad() if mode == "eval_no_grad" else torch.enable_grad()
    ctx_s = storch.no_grad() if mode == "eval_no_grad" else storch.enable_grad()
    with ctx_t:
        r = ref(xt, xt, xt, key_padding_mask=pt, need_weights=need_weights)[0] if module == "mha" \
            else ref(xt, src_key_padding_mask=pt)
    with ctx_s:
        s = got(xs, xs, xs, key_padding_mask=ps, need_weights=need_weights)[0] if module == "mha" \
            else got(xs, src_key_padding_mask=ps)
    r, s = r.detach().numpy(), to_numpy(s)
    assert np.isnan(s).sum() == np.isnan(r).sum()
    np.testing.assert_allclose(s, r, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("static", [False, True])
def test_multi_head_attention_forward_directly(need_weights, static):
    E, H, L, S, N = 4, 2, 3, 5, 2

    def build(lib, T, rng):
        q = T(rng.standard_normal((L, N, E)), grad=True)
        k = T(rng.standard_normal((S, N, 3)), grad=True)
        v = T(rng.standard_normal((S, N, 2)), grad=True)
        wq = T(rng.standard_normal((E, E)), grad=True)
        wk = T(rng.standard_normal((E, 3)), grad=True)
        wv = T(rng.standard_normal((E, 2)), grad=True)
        b = T(rng.standard_normal(3 * E), grad=True)
        wo = T(rng.standard_normal((E, E)), grad=True)
        kw = {}
        if static:
            kw = {"static_k": T(rng.standard_normal((N * H, 4, E // H)), grad=True),
                  "static_v": T(rng.standard_normal((N * H, 4, E // H)), grad=True)}
        out, w = lib.nn.functional.multi_head_attention_forward(
            q, k, v, E, H, None, b, None, None, False, 0.0, wo, None, training=False,
            need_weights=need_weights, use_separate_proj_weight=True, q_proj_weight=wq,
            k_proj_weight=wk, v_proj_weight=wv, **kw)
        return out if w is None else lib.cat([out.reshape(-1), w.reshape(-1)])
    check(build, "float64")
