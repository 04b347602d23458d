"""The convolution and pooling names PyTorch also has at ``torch.`` (``torch.conv2d``,
``torch.max_pool2d``, ``torch.constant_pad_nd``, ...), over ``nn.functional``'s functions,
with the torch-level signatures where they differ from ``torch.nn.functional``'s:
``torch.max_pool{1,2,3}d`` take no ``return_indices`` (``stride=()`` means the kernel
size), ``torch.max_pool1d_with_indices`` and ``torch.adaptive_max_pool1d`` always return
``(values, indices)``."""

from __future__ import annotations

from .nn import _conv as _c
from .nn import functional as _F

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "pixel_shuffle", "pixel_unshuffle",
    "channel_shuffle", "constant_pad_nd",
]

conv1d = _c.conv1d
conv2d = _c.conv2d
conv3d = _c.conv3d
conv_transpose1d = _c.conv_transpose1d
conv_transpose2d = _c.conv_transpose2d
conv_transpose3d = _c.conv_transpose3d
avg_pool1d = _c.avg_pool1d
adaptive_avg_pool1d = _c.adaptive_avg_pool1d
pixel_shuffle = _c.pixel_shuffle
pixel_unshuffle = _c.pixel_unshuffle
channel_shuffle = _c.channel_shuffle


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """PyTorch's ``torch.max_pool1d`` (no ``return_indices``; ``stride=()``: the kernel size).

    >>> import strided.torch as torch
    >>> torch.max_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[3., 2.]])
    """
    return _c._max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, False, 1,
                        "max_pool1d")


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """PyTorch's ``torch.max_pool2d`` (no ``return_indices``).

    >>> import strided.torch as torch
    >>> torch.max_pool2d(torch.ones(1, 2, 2), 2)
    tensor([[[1.]]])
    """
    return _c._max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, False, 2,
                        "max_pool2d")


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """PyTorch's ``torch.max_pool3d`` (no ``return_indices``).

    >>> import strided.torch as torch
    >>> torch.max_pool3d(torch.ones(1, 2, 2, 2), 2)
    tensor([[[[1.]]]])
    """
    return _c._max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, False, 3,
                        "max_pool3d")


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """PyTorch's ``torch.max_pool1d_with_indices``: ``(values, indices)``.

    >>> import strided.torch as torch
    >>> torch.max_pool1d_with_indices(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)[1]
    tensor([[1, 2]])
    """
    return _c._max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 1,
                        "max_pool1d_with_indices")


def adaptive_max_pool1d(input, output_size):
    """PyTorch's ``torch.adaptive_max_pool1d``: always ``(values, indices)``.

    >>> import strided.torch as torch
    >>> torch.adaptive_max_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)[1]
    tensor([[1, 2]])
    """
    return _c._adaptive_max(input, output_size, True, 1, "adaptive_max_pool1d")


def constant_pad_nd(input, pad, value=0):
    """PyTorch's ``torch.constant_pad_nd``: ``nn.functional.pad(input, pad, 'constant', value)``.

    >>> import strided.torch as torch
    >>> torch.constant_pad_nd(torch.tensor([1.0, 2.0]), (1, 1))
    tensor([0., 1., 2., 0.])
    """
    return _F.pad(input, pad, "constant", value)
