"""Attention functions of ``strided.torch.nn.functional``: ``scaled_dot_product_attention``
and ``multi_head_attention_forward``.

Composites of strided's recorded operations (``matmul``, ``softmax``, ``where``,
``dropout``), so gradients for the query, key, value and every projection follow
from strided's autograd. ``scaled_dot_product_attention`` is PyTorch's math
reference (``aten/src/ATen/native/transformers/attention.cpp``), including its
"safe" softmax: a query row whose keys are all masked out gives zeros, not NaN.
``multi_head_attention_forward`` follows ``torch/nn/functional.py`` step by step:
the same mask canonicalisation (a boolean ``attn_mask``/``key_padding_mask`` marks
the positions *not* attended, turned into ``-inf``), ``bias_k``/``bias_v``,
``add_zero_attn``, and with ``need_weights`` the explicit softmax (whose fully masked
rows are NaN, as PyTorch's).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

import strided as _st
from strided import Array
from ..._core.caller import stacklevel

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _F():
    from . import functional
    return functional


def _arr(x, func: str, name: str) -> Array:
    if type(x) is not Array:
        raise TypeError(f"{func}(): {name} must be a strided array; got {type(x).__name__}")
    return x


def _dtname(dt) -> str:
    return {"float32": "float", "float64": "double", "float16": "half", "int64": "long int",
            "int32": "int", "bool": "bool"}.get(dt.name, dt.name)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale=None, enable_gqa: bool = False) -> Array:
    """``softmax(query @ key.T * scale + mask) @ value``, PyTorch's reference.

    ``attn_mask``: boolean (``True`` attends) or a float bias added to the scores,
    broadcast to ``(..., L, S)``; ``is_causal`` masks keys after the query's position
    (top-left aligned); ``scale`` defaults to ``1 / sqrt(E)``; ``dropout_p`` drops
    attention weights (always, as PyTorch's function does); ``enable_gqa`` repeats
    the key/value heads (dimension -3) to the query's number of heads.

    >>> import strided.torch as torch
    >>> q = k = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> v = torch.tensor([[1.0], [3.0]])
    >>> torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    tensor([[1.0000],
            [2.3395]])
    """
    f = "scaled_dot_product_attention"
    _arr(query, f, "query"), _arr(key, f, "key"), _arr(value, f, "value")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but "
                           f"got query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: "
                           f"{value.ndim} instead.")
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_dtname(query.dtype)} key.dtype: {_dtname(key.dtype)} "
                           f"and value.dtype: {_dtname(value.dtype)} instead.")
    if query.dtype.kind != "f":
        raise RuntimeError(f"{f}(): query, key and value must be floating-point; got "
                           f"{query.dtype.name}")
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if attn_mask is not None:
        _arr(attn_mask, f, "attn_mask")
        if attn_mask.dtype.kind != "b" and attn_mask.dtype != query.dtype:
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                               f"dtype, but got attn_mask.dtype: {_dtname(attn_mask.dtype)} and  "
                               f"query.dtype: {_dtname(query.dtype)} instead.")
    if key.shape[-1] != query.shape[-1]:
        raise RuntimeError(f"{f}(): query's and key's last dimensions (the embedding) must agree; "
                           f"got query {tuple(query.shape)} and key {tuple(key.shape)}")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"{f}(): key and value must have the same sequence length (dimension "
                           f"-2); got key {tuple(key.shape)} and value {tuple(value.shape)}")
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hk == 0 or hv == 0 or hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads "
                               f"in query; got query {hq}, key {hk} and value {hv} heads")
        if hk != hq:
            key = key.repeat_interleave(hq // hk, dim=-3)
        if hv != hq:
            value = value.repeat_interleave(hq // hv, dim=-3)
    L, S = query.shape[-2], key.shape[-2]
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    scores = _st.matmul(query, key.mT) * scale
    if attn_mask is not None:
        try:
            fits = np.broadcast_shapes(tuple(attn_mask.shape), tuple(scores.shape)) == \
                tuple(scores.shape)
        except ValueError:
            fits = False
        if not fits:
            raise RuntimeError(f"{f}(): attn_mask of shape {tuple(attn_mask.shape)} does not "
                               f"broadcast to the attention scores' shape {tuple(scores.shape)} "
                               "(..., L, S)")
    allowed = None
    if is_causal:
        allowed = _st.tril(_st.ones((L, S), dtype=_st.bool, device=query.device))
    elif attn_mask is not None:
        if attn_mask.dtype.kind == "b":
            allowed = attn_mask
        else:
            scores = scores + attn_mask
    if allowed is not None:
        scores = _st.where(allowed, scores, -math.inf)
    # Note: PyTorch's _safe_softmax: a row of -inf scores gives zeros (and no NaN in
    # the gradients: the row's scores are replaced before the softmax).
    dead = _st.all(scores == -math.inf, axis=-1, keepdims=True)
    weights = _st.softmax(_st.where(dead, 0.0, scores), -1)
    weights = _st.where(dead, 0.0, weights)
    if dropout_p > 0.0:
        weights = _F().dropout(weights, dropout_p, training=True)
    return _st.matmul(weights, value)


def _canonical_mask(mask, name: str, target_dtype, other=None, other_name: str = "",
                    check_other: bool = True):
    """PyTorch's ``_canonical_mask``: a boolean mask becomes a float one (``-inf`` where
    ``True``); a float mask is kept."""
    if mask is None:
        return None
    _arr(mask, "multi_head_attention_forward", name)
    if mask.dtype.kind not in "bf":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if check_other and other is not None and other.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same "
                      "type for both instead.", UserWarning, stacklevel=stacklevel())
    if mask.dtype.kind == "b":
        return _st.where(mask, _st.asarray(-math.inf, dtype=target_dtype, device=mask.device),
                         _st.asarray(0.0, dtype=target_dtype, device=mask.device))
    return mask


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                                 f" but found {key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 1-D but found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.ndim}-D tensor instead")
            if attn_mask.ndim == 3:
                want = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != want:
                    raise AssertionError(f"Expected `attn_mask` shape to be {want} but got "
                                         f"{tuple(attn_mask.shape)}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.ndim}-D query tensor")


def _linear(x, w, b):
    return _F().linear(x, w, b)


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight, out_proj_bias,
                                 training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None,
                                 use_separate_proj_weight: bool = False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True,
                                 is_causal: bool = False):
    """Multi-head attention of ``(L, N, E)`` (or unbatched ``(L, E)``) inputs, PyTorch's
    ``F.multi_head_attention_forward``: returns ``(attn_output, attn_weights)``, the
    weights averaged over the heads (``average_attn_weights``) or per head, or ``None``
    without ``need_weights``.

    >>> import strided.torch as torch
    >>> F = torch.nn.functional
    >>> x = torch.ones(3, 1, 4)
    >>> out, w = F.multi_head_attention_forward(x, x, x, 4, 2, torch.ones(12, 4), None, None,
    ...     None, False, 0.0, torch.eye(4), None)
    >>> out.shape, w.shape
    (strided.Size([3, 1, 4]), strided.Size([1, 3, 3]))
    """
    f = "multi_head_attention_forward"
    for name, a in (("query", query), ("key", key), ("value", value)):
        _arr(a, f, name)
    is_batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = (_st.expand_dims(t, axis=1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = _st.expand_dims(key_padding_mask, axis=0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype,
                                       attn_mask, "attn_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not "
                                 f"match value's {tuple(value.shape[:2])}")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is "
                                     "None")
        if in_proj_bias is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q = _linear(query, q_proj_weight, b_q)
        k = _linear(key, k_proj_weight, b_k)
        v = _linear(value, v_proj_weight, b_v)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape "
                                 f"{tuple(value.shape)}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3)
        if in_proj_bias is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _linear(query, w_q, b_q), _linear(key, w_k, b_k), _linear(value, w_v, b_v)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = _st.expand_dims(attn_mask, axis=0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    pad = _F().pad
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _st.concat([k, _st.broadcast_to(bias_k, (1, bsz, embed_dim))], axis=0)
        v = _st.concat([v, _st.broadcast_to(bias_v, (1, bsz, embed_dim))], axis=0)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = _st.reshape(q, (tgt_len, bsz * num_heads, head_dim)).transpose(0, 1)
    if static_k is None:
        k = _st.reshape(k, (k.shape[0], bsz * num_heads, head_dim)).transpose(0, 1)
    else:
        if static_k.shape[0] != bsz * num_heads or static_k.shape[2] != head_dim:
            raise AssertionError(f"expecting static_k of shape ({bsz * num_heads}, *, {head_dim}), "
                                 f"but got {tuple(static_k.shape)}")
        k = static_k
    if static_v is None:
        v = _st.reshape(v, (v.shape[0], bsz * num_heads, head_dim)).transpose(0, 1)
    else:
        if static_v.shape[0] != bsz * num_heads or static_v.shape[2] != head_dim:
            raise AssertionError(f"expecting static_v of shape ({bsz * num_heads}, *, {head_dim}), "
                                 f"but got {tuple(static_v.shape)}")
        v = static_v
    if add_zero_attn:
        zshape = (bsz * num_heads, 1, head_dim)
        k = _st.concat([k, _st.zeros(zshape, dtype=k.dtype, device=k.device)], axis=1)
        v = _st.concat([v, _st.zeros(zshape, dtype=v.dtype, device=v.device)], axis=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        kpm = _st.reshape(_st.broadcast_to(_st.reshape(key_padding_mask, (bsz, 1, 1, src_len)),
                                           (bsz, num_heads, 1, src_len)),
                          (bsz * num_heads, 1, src_len))
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        w = _st.matmul(q_scaled, k.mT)
        if attn_mask is not None:
            w = attn_mask + w
        w = _st.softmax(w, -1)
        if dropout_p > 0.0:
            w = _F().dropout(w, dropout_p)
        out = _st.matmul(w, v)
        out = _st.reshape(out.transpose(0, 1), (tgt_len * bsz, embed_dim))
        out = _linear(out, out_proj_weight, out_proj_bias)
        out = _st.reshape(out, (tgt_len, bsz, out.shape[1]))
        w = _st.reshape(w, (bsz, num_heads, tgt_len, src_len))
        if average_attn_weights:
            w = _st.mean(w, axis=1)
        if not is_batched:
            out, w = out[:, 0], w[0]
        return out, w
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = _st.expand_dims(attn_mask, axis=0)
        else:
            attn_mask = _st.reshape(attn_mask, (bsz, num_heads, -1, src_len))
    q = _st.reshape(q, (bsz, num_heads, tgt_len, head_dim))
    k = _st.reshape(k, (bsz, num_heads, src_len, head_dim))
    v = _st.reshape(v, (bsz, num_heads, src_len, head_dim))
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = _st.reshape(_st.permute_dims(out, (2, 0, 1, 3)), (bsz * tgt_len, embed_dim))
    out = _linear(out, out_proj_weight, out_proj_bias)
    out = _st.reshape(out, (tgt_len, bsz, out.shape[1]))
    if not is_batched:
        out = out[:, 0]
    return out, None
