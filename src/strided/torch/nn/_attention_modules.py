"""Attention layers of ``strided.torch.nn``: ``MultiheadAttention`` and the Transformer
family (``TransformerEncoderLayer``, ``TransformerEncoder``, ``TransformerDecoderLayer``,
``TransformerDecoder``, ``Transformer``).

Ports of ``torch/nn/modules/activation.py`` and ``transformer.py`` on PyTorch's
reference ("slow") path: the same submodules and parameters under the same names
(``in_proj_weight`` or ``q_proj_weight``/``k_proj_weight``/``v_proj_weight``,
``in_proj_bias``, ``out_proj``, ``bias_k``/``bias_v``; ``self_attn``, ``linear1``,
``norm1``, ...), so PyTorch's state dicts load, and the same default initialisation
(``xavier_uniform_`` projections, zero biases). PyTorch's fused inference fast path
gives the same values up to rounding; where ``TransformerEncoder`` takes PyTorch's
nested-tensor path (eval mode, no gradient to record, a left-aligned
``src_key_padding_mask``, no ``mask``, a batch-first post-norm relu/gelu layer with an
even number of heads) the padded positions come out as zeros before the final norm,
and strided zeroes them under the same conditions (``use_nested_tensor``).
"""

from __future__ import annotations

import copy
import warnings

import strided as _st

from . import _attention
from . import functional as F
from . import init
from ._norm_modules import LayerNorm
from .modules import Dropout, Linear, Module, ModuleList, _factory
from .parameter import Parameter
from ..._core.caller import stacklevel

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


class NonDynamicallyQuantizableLinear(Linear):
    """PyTorch's name for ``MultiheadAttention.out_proj``'s class: a ``Linear`` (the name
    only tells PyTorch's quantization to leave it alone)."""


class MultiheadAttention(Module):
    """Multi-head attention (PyTorch's ``nn.MultiheadAttention``).

    ``forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False)`` returns
    ``(attn_output, attn_weights)``.

    >>> import strided.torch as torch
    >>> mha = torch.nn.MultiheadAttention(4, 2, batch_first=True)
    >>> out, w = mha(torch.ones(1, 3, 4), torch.ones(1, 5, 4), torch.ones(1, 5, 4))
    >>> out.shape, w.shape
    (strided.Size([1, 3, 4]), strided.Size([1, 3, 5]))
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        kw = _factory(device, dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_st.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(_st.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(_st.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_st.empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_st.empty((3 * embed_dim,), **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_st.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(_st.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True,
                attn_mask=None, average_attn_weights: bool = True, is_causal: bool = False):
        """``(attn_output, attn_weights)`` (weights ``None`` without ``need_weights``)."""
        is_batched = query.ndim == 3
        want_weights = need_weights
        if self._takes_fast_path(query, key, value, is_batched):
            # Note: PyTorch's fused _native_multi_head_attention computes the explicit
            # softmax whatever need_weights says: a query whose keys are all masked gives
            # NaN there, where the scaled_dot_product_attention path gives zeros.
            need_weights = True
        if self.batch_first and is_batched:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        extra = {}
        if not self._qkv_same_embed_dim:
            extra = dict(use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight,
                         k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight)
        out, weights = _attention.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            average_attn_weights=average_attn_weights, is_causal=is_causal, **extra)
        if self.batch_first and is_batched:
            out = out.transpose(1, 0)
        return out, (weights if want_weights else None)

    def _takes_fast_path(self, query, key, value, is_batched: bool) -> bool:
        """Whether PyTorch would run this call through its fused inference kernel: its
        conditions in ``MultiheadAttention.forward`` (eval mode, batch-first
        self-attention with one ``in_proj_weight`` and a bias, an even number of heads,
        nothing to record)."""
        if not is_batched or query is not key or key is not value or self.training \
                or self.num_heads % 2 or not self.batch_first or self.bias_k is not None \
                or self.bias_v is not None or self.add_zero_attn or not self._qkv_same_embed_dim \
                or self.in_proj_weight is None or self.in_proj_bias is None \
                or query.dtype != self.in_proj_weight.dtype or query.dtype != self.in_proj_bias.dtype:
            return False
        args = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight,
                self.out_proj.bias)
        return not (_st.is_grad_enabled() and any(a is not None and a.requires_grad for a in args))


def _activation_fn(activation):
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


def _square_subsequent_mask(sz: int, device=None, dtype=None):
    return _st.triu(_st.full((sz, sz), float("-inf"), dtype=dtype or _st.get_default_dtype(),
                             device=device), k=1)


def _detect_is_causal_mask(mask, is_causal, size):
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        causal = _square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if tuple(mask.shape) == tuple(causal.shape):
            make_causal = bool(_st.all(mask == causal))
        else:
            make_causal = False
    return make_causal


def _seq_len(src, batch_first: bool):
    if src.ndim == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block, each with a residual and a LayerNorm
    (after, or before with ``norm_first``).

    >>> import strided.torch as torch
    >>> layer = torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True)
    >>> layer(torch.ones(2, 3, 4)).shape
    strided.Size([2, 3, 4])
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation=F.relu, layer_norm_eps: float = 1e-05, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        activation = _activation_fn(activation)
        # (PyTorch's flag for its fused path; TransformerEncoder reads it)
        if activation is F.relu or type(activation).__name__ == "ReLU":
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or type(activation).__name__ == "GELU":
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal: bool = False):
        """The layer's output, of ``src``'s shape."""
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention, attention over ``memory`` and a feed-forward block, each with a
    residual and a LayerNorm.

    >>> import strided.torch as torch
    >>> layer = torch.nn.TransformerDecoderLayer(4, 2, dim_feedforward=8)
    >>> layer(torch.ones(3, 2, 4), torch.ones(5, 2, 4)).shape
    strided.Size([3, 2, 4])
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation=F.relu, layer_norm_eps: float = 1e-05, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation_fn(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False):
        """The layer's output, of ``tgt``'s shape."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                    memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _clones(module, n: int):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _why_not_nested(layer) -> str:
    """PyTorch's reason (``TransformerEncoder.__init__``) not to use nested tensors."""
    e = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{e} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{e}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (f"{e}.self_attn.batch_first was not True(use batch_first for better inference "
                "performance)")
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{e}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{e}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{e}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{e}.norm1.eps was not equal to {e}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{e}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """A stack of ``num_layers`` copies of ``encoder_layer`` and an optional final norm.

    >>> import strided.torch as torch
    >>> layer = torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8)
    >>> torch.nn.TransformerEncoder(layer, 2)(torch.ones(3, 2, 4)).shape
    strided.Size([3, 2, 4])
    """

    def __init__(self, encoder_layer, num_layers: int, norm=None, enable_nested_tensor: bool = True,
                 mask_check: bool = True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why}", UserWarning, stacklevel=stacklevel())
            self.use_nested_tensor = False

    def _takes_nested_path(self, src, mask, key_padding_mask) -> bool:
        """Whether PyTorch would run this call through nested tensors (and return zeros at
        the padded positions): its conditions in ``TransformerEncoder.forward``."""
        first = self.layers[0]
        if not self.use_nested_tensor or first.training or src.ndim != 3 \
                or key_padding_mask is None or mask is not None:
            return False
        if self.mask_check:
            valid = key_padding_mask == 0
            if valid.shape[-1] > 1 and bool(_st.any(valid[:, 1:] & ~valid[:, :-1])):
                return False  # (not left-aligned)
        sa = first.self_attn
        args = (src, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias,
                first.norm1.weight, first.norm1.bias, first.norm2.weight, first.norm2.bias,
                first.linear1.weight, first.linear1.bias, first.linear2.weight,
                first.linear2.bias)
        return not (_st.is_grad_enabled() and any(a.requires_grad for a in args))

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """The stack's output, of ``src``'s shape."""
        src_key_padding_mask = _attention._canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", src.dtype, mask, "mask")
        mask = _attention._canonical_mask(mask, "mask", src.dtype, check_other=False)
        batch_first = self.layers[0].self_attn.batch_first
        nested = self._takes_nested_path(src, mask, src_key_padding_mask)
        is_causal = _detect_is_causal_mask(mask, is_causal, _seq_len(src, batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal,
                         src_key_padding_mask=src_key_padding_mask)
        if nested:
            # Note: PyTorch's nested tensor pads back with zeros (to_padded_tensor(0.0)).
            output = _st.where(_st.expand_dims(src_key_padding_mask == 0, axis=-1), output, 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """A stack of ``num_layers`` copies of ``decoder_layer`` and an optional final norm.

    >>> import strided.torch as torch
    >>> layer = torch.nn.TransformerDecoderLayer(4, 2, dim_feedforward=8)
    >>> torch.nn.TransformerDecoder(layer, 2)(torch.ones(3, 2, 4), torch.ones(5, 2, 4)).shape
    strided.Size([3, 2, 4])
    """

    def __init__(self, decoder_layer, num_layers: int, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal: bool = False):
        """The stack's output, of ``tgt``'s shape."""
        output = tgt
        seq_len = _seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """An encoder-decoder Transformer (PyTorch's ``nn.Transformer``).

    >>> import strided.torch as torch
    >>> model = torch.nn.Transformer(4, 2, 1, 1, dim_feedforward=8, batch_first=True)
    >>> model(torch.ones(2, 5, 4), torch.ones(2, 3, 4)).shape
    strided.Size([2, 3, 4])
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation=F.relu, custom_encoder=None, custom_decoder=None,
                 layer_norm_eps: float = 1e-05, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, bias, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, bias, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal: bool = False):
        """Encode ``src`` and decode ``tgt`` against it."""
        is_batched = src.ndim == 3
        if is_batched and src.shape[0 if self.batch_first else 1] != \
                tgt.shape[0 if self.batch_first else 1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None):
        """A ``(sz, sz)`` float mask: ``-inf`` above the diagonal, 0 elsewhere."""
        return _square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
