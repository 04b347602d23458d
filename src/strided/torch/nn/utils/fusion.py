# Adapted from PyTorch 2.13's torch/nn/utils/fusion.py (BSD-3-Clause; Copyright (c) 2016-
# Facebook, Inc and the PyTorch contributors; see LICENSES/PyTorch.txt).
"""``strided.torch.nn.utils.fusion``: fold an eval-mode BatchNorm into the convolution or linear
layer before it, PyTorch's formulas step for step.

``w' = w * (gamma / sqrt(running_var + eps))`` (per output channel; per input channel of a
transposed convolution's weight), ``b' = (b - running_mean) * gamma / sqrt(running_var + eps)
+ beta``, cast back to the layer's dtypes and returned as new Parameters.

>>> import strided.torch as torch
>>> conv, bn = torch.nn.Conv2d(1, 2, 1).eval(), torch.nn.BatchNorm2d(2).eval()
>>> fused = torch.nn.utils.fuse_conv_bn_eval(conv, bn)
>>> x = torch.ones(1, 1, 2, 2)
>>> bool(torch.allclose(fused(x), bn(conv(x))))
True
"""

from __future__ import annotations

import copy
import sys

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _torch():
    return sys.modules["strided.torch"]


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A new convolution (a deep copy of ``conv``) whose weight and bias fold in ``bn``'s
    running statistics and affine parameters; both modules must be in eval mode."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps: float, bn_w, bn_b,
                         transpose: bool = False):
    """The fused ``(weight, bias)`` Parameters of a convolution followed by a BatchNorm
    (``conv_b``, ``bn_w``, ``bn_b`` may be None; ``transpose``: a transposed convolution's weight,
    channels on its second axis)."""
    torch = _torch()
    conv_weight_dtype = conv_w.dtype
    conv_bias_dtype = conv_b.dtype if conv_b is not None else conv_weight_dtype
    if conv_b is None:
        conv_b = torch.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = torch.ones_like(bn_rm)
    if bn_b is None:
        bn_b = torch.zeros_like(bn_rm)
    bn_var_rsqrt = torch.rsqrt(bn_rv + bn_eps)
    if transpose:
        shape = [1, -1] + [1] * (len(conv_w.shape) - 2)
    else:
        shape = [-1, 1] + [1] * (len(conv_w.shape) - 2)
    fused_conv_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=conv_weight_dtype)
    fused_conv_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_bias_dtype)
    return (torch.nn.Parameter(fused_conv_w, conv_w.requires_grad),
            torch.nn.Parameter(fused_conv_b, conv_b.requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A new Linear (a deep copy of ``linear``) whose weight and bias fold in ``bn``'s running
    statistics and affine parameters; both in eval mode, ``bn.num_features`` equal to
    ``linear.out_features`` or 1."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            f"To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps: float, bn_w, bn_b):
    """The fused ``(weight, bias)`` Parameters of a Linear followed by a BatchNorm
    (``linear_b`` may be None)."""
    torch = _torch()
    linear_weight_dtype = linear_w.dtype
    linear_bias_dtype = linear_b.dtype if linear_b is not None else linear_weight_dtype
    if linear_b is None:
        linear_b = torch.zeros_like(bn_rm)
    bn_scale = bn_w * torch.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=linear_bias_dtype)
    return (torch.nn.Parameter(fused_w, linear_w.requires_grad),
            torch.nn.Parameter(fused_b, linear_b.requires_grad))
