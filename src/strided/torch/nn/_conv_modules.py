"""The convolution, pooling, padding and resampling modules of ``torch.nn``.

Ports of ``torch/nn/modules/conv.py``, ``pooling.py``, ``padding.py``, ``fold.py``,
``pixelshuffle.py``, ``channelshuffle.py`` and ``upsampling.py``: the same constructor
arguments, the same attributes (tuples where PyTorch makes tuples, the raw argument where
PyTorch keeps it), parameter names and shapes (so ``state_dict`` keys and shapes equal
PyTorch's), ``extra_repr`` and default initialisation (``kaiming_uniform_(a=sqrt(5))``,
the bias from ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``). Each ``forward`` calls the
function of ``strided.torch.nn.functional`` that PyTorch's calls.
"""

from __future__ import annotations

import math

import strided as _st

from . import functional as F
from . import init
from .modules import Module, _factory
from .parameter import Parameter

__all__ = [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
    "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Fold", "Unfold", "PixelShuffle",
    "PixelUnshuffle", "ChannelShuffle", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d",
    "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
    "CircularPad2d", "CircularPad3d",
]


def _ntuple(n):
    def parse(x):
        if isinstance(x, (list, tuple)):
            return tuple(x)
        return (x,) * n
    return parse


_single, _pair, _triple, _quadruple = _ntuple(1), _ntuple(2), _ntuple(3), _ntuple(4)
_TUPLE = {1: _single, 2: _pair, 3: _triple}


# --- convolution ---------------------------------------------------------------------------

class _ConvNd(Module):
    """The shared part of the convolution modules (PyTorch's ``_ConvNd``)."""

    _n = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            rev = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    rev[2 * i] = total // 2
                    rev[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = rev
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(padding)
                                                          for _ in range(2))
        kw = _factory(device, dtype)
        if transposed:
            shape = (in_channels, out_channels // groups) + tuple(kernel_size)
        else:
            shape = (out_channels, in_channels // groups) + tuple(kernel_size)
        self.weight = Parameter(_st.empty(shape, **kw))
        if bias:
            self.bias = Parameter(_st.empty((out_channels,), **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again (PyTorch's default initialisation)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        t = _TUPLE[self._n]
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride),
                         padding if isinstance(padding, str) else t(padding), t(dilation),
                         False, t(0), groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        conv = getattr(F, f"conv{self._n}d")
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._reversed_padding_repeated_twice,
                              mode=self.padding_mode),
                        weight, bias, self.stride, _TUPLE[self._n](0), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        """The convolution of ``input`` with ``weight`` (plus ``bias``)."""
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """PyTorch's ``Conv1d``: ``weight`` ``(out_channels, in_channels / groups, k)``.

    >>> import strided.torch as torch
    >>> torch.nn.Conv1d(2, 4, 3, padding=1)
    Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=(1,))
    """

    _n = 1


class Conv2d(_Conv):
    """PyTorch's ``Conv2d``: ``weight`` ``(out_channels, in_channels / groups, kH, kW)``.

    >>> import strided.torch as torch
    >>> torch.nn.Conv2d(3, 16, 3)
    Conv2d(3, 16, kernel_size=(3, 3), stride=(1, 1))
    """

    _n = 2


class Conv3d(_Conv):
    """PyTorch's ``Conv3d``.

    >>> import strided.torch as torch
    >>> torch.nn.Conv3d(1, 2, 3, bias=False)
    Conv3d(1, 2, kernel_size=(3, 3, 3), stride=(1, 1, 1), bias=False)
    """

    _n = 3


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{self.__class__.__name__}')
        t = _TUPLE[self._n]
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride), t(padding),
                         t(dilation), True, t(output_padding), groups, bias, padding_mode,
                         device, dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        if output_size is None:
            return tuple(self.output_padding)
        has_batch_dim = input.ndim == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.ndim}D input, "
                             f"output_size must have {num_spatial_dims} or "
                             f"{num_non_spatial_dims + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = ((input.shape[d + num_non_spatial_dims] - 1) * stride[d] - 2 * padding[d]
                        + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1)
                        + 1)
            min_sizes.append(dim_size)
            max_sizes.append(dim_size + stride[d] - 1)
        for i, size in enumerate(output_size):
            if size < min_sizes[i] or size > max_sizes[i]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_sizes} to {max_sizes} (for an input of "
                                 f"{input.shape[2:]})")
        return tuple(output_size[d] - min_sizes[d] for d in range(num_spatial_dims))

    def forward(self, input, output_size=None):
        """The transposed convolution; ``output_size`` picks ``output_padding``."""
        op = self._output_padding(input, output_size, self.stride, self.padding,
                                  self.kernel_size, self._n, self.dilation)
        return getattr(F, f"conv_transpose{self._n}d")(
            input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
            self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """PyTorch's ``ConvTranspose1d``: ``weight`` ``(in_channels, out_channels / groups, k)``.

    >>> import strided.torch as torch
    >>> torch.nn.ConvTranspose1d(2, 4, 3, stride=2)
    ConvTranspose1d(2, 4, kernel_size=(3,), stride=(2,))
    """

    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """PyTorch's ``ConvTranspose2d``.

    >>> import strided.torch as torch
    >>> torch.nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1)
    ConvTranspose2d(2, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))
    """

    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    """PyTorch's ``ConvTranspose3d``.

    >>> import strided.torch as torch
    >>> torch.nn.ConvTranspose3d(2, 4, 2)
    ConvTranspose3d(2, 4, kernel_size=(2, 2, 2), stride=(1, 1, 1))
    """

    _n = 3


# --- pooling -------------------------------------------------------------------------------

class _MaxPoolNd(Module):
    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        """``max_pool{n}d`` with the module's settings."""
        return getattr(F, f"max_pool{self._n}d")(
            input, self.kernel_size, self.stride, self.padding, self.dilation,
            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}"
                ", dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool1d(_MaxPoolNd):
    """PyTorch's ``MaxPool1d``.

    >>> import strided.torch as torch
    >>> torch.nn.MaxPool1d(2)
    MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _n = 1


class MaxPool2d(_MaxPoolNd):
    """PyTorch's ``MaxPool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _n = 2


class MaxPool3d(_MaxPoolNd):
    """PyTorch's ``MaxPool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.MaxPool3d(2, stride=1)
    MaxPool3d(kernel_size=2, stride=1, padding=0, dilation=1, ceil_mode=False)
    """

    _n = 3


class _AvgPoolNd(Module):
    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        """``avg_pool{n}d`` with the module's settings."""
        return getattr(F, f"avg_pool{self._n}d")(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """PyTorch's ``AvgPool1d`` (its sizes kept as 1-tuples, as PyTorch's).

    >>> import strided.torch as torch
    >>> torch.nn.AvgPool1d(2)
    AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    _n = 1

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        Module.__init__(self)
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        """``avg_pool1d`` with the module's settings."""
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """PyTorch's ``AvgPool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.AvgPool2d(2)
    AvgPool2d(kernel_size=2, stride=2, padding=0)
    """

    _n = 2


class AvgPool3d(_AvgPoolNd):
    """PyTorch's ``AvgPool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.AvgPool3d(2)
    AvgPool3d(kernel_size=2, stride=2, padding=0)
    """

    _n = 3


class _LPPoolNd(Module):
    _n = 0

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        """``lp_pool{n}d`` with the module's settings."""
        return getattr(F, f"lp_pool{self._n}d")(input, float(self.norm_type), self.kernel_size,
                                                 self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))


class LPPool1d(_LPPoolNd):
    """PyTorch's ``LPPool1d``.

    >>> import strided.torch as torch
    >>> torch.nn.LPPool1d(2, 3)
    LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    _n = 1


class LPPool2d(_LPPoolNd):
    """PyTorch's ``LPPool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.LPPool2d(2, 3)
    LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    _n = 2


class LPPool3d(_LPPoolNd):
    """PyTorch's ``LPPool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.LPPool3d(1, 2)
    LPPool3d(norm_type=1, kernel_size=2, stride=None, ceil_mode=False)
    """

    _n = 3


class _AdaptiveAvgPoolNd(Module):
    _n = 0

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        """``adaptive_avg_pool{n}d`` to ``output_size``."""
        return getattr(F, f"adaptive_avg_pool{self._n}d")(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """PyTorch's ``AdaptiveAvgPool1d``.

    >>> import strided.torch as torch
    >>> torch.nn.AdaptiveAvgPool1d(4)
    AdaptiveAvgPool1d(output_size=4)
    """

    _n = 1


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """PyTorch's ``AdaptiveAvgPool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.AdaptiveAvgPool2d((1, 1))
    AdaptiveAvgPool2d(output_size=(1, 1))
    """

    _n = 2


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """PyTorch's ``AdaptiveAvgPool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.AdaptiveAvgPool3d(1)
    AdaptiveAvgPool3d(output_size=1)
    """

    _n = 3


class _AdaptiveMaxPoolNd(Module):
    _n = 0

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        """``adaptive_max_pool{n}d`` to ``output_size``."""
        return getattr(F, f"adaptive_max_pool{self._n}d")(input, self.output_size,
                                                           self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """PyTorch's ``AdaptiveMaxPool1d``.

    >>> import strided.torch as torch
    >>> torch.nn.AdaptiveMaxPool1d(4)
    AdaptiveMaxPool1d(output_size=4)
    """

    _n = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """PyTorch's ``AdaptiveMaxPool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.AdaptiveMaxPool2d((2, None))
    AdaptiveMaxPool2d(output_size=(2, None))
    """

    _n = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """PyTorch's ``AdaptiveMaxPool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.AdaptiveMaxPool3d(1)
    AdaptiveMaxPool3d(output_size=1)
    """

    _n = 3


class _MaxUnpoolNd(Module):
    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        t = _TUPLE[self._n]
        self.kernel_size = t(kernel_size)
        self.stride = t(stride if stride is not None else kernel_size)
        self.padding = t(padding)

    def forward(self, input, indices, output_size=None):
        """``max_unpool{n}d``: ``input``'s values put at ``indices`` in zeros."""
        return getattr(F, f"max_unpool{self._n}d")(input, indices, self.kernel_size,
                                                    self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """PyTorch's ``MaxUnpool1d``.

    >>> import strided.torch as torch
    >>> torch.nn.MaxUnpool1d(2)
    MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """PyTorch's ``MaxUnpool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.MaxUnpool2d(2)
    MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    """

    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """PyTorch's ``MaxUnpool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.MaxUnpool3d(2)
    MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))
    """

    _n = 3


# --- fold, shuffles, resampling ------------------------------------------------------------

class Fold(Module):
    """PyTorch's ``Fold`` (col2im).

    >>> import strided.torch as torch
    >>> torch.nn.Fold((4, 5), 2)
    Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """``fold`` with the module's settings."""
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        return ("output_size={output_size}, kernel_size={kernel_size}, "
                "dilation={dilation}, padding={padding}, stride={stride}".format(**self.__dict__))


class Unfold(Module):
    """PyTorch's ``Unfold`` (im2col).

    >>> import strided.torch as torch
    >>> torch.nn.Unfold(2)
    Unfold(kernel_size=2, dilation=1, padding=0, stride=1)
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """``unfold`` with the module's settings."""
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, dilation={dilation}, padding={padding},"
                " stride={stride}".format(**self.__dict__))


class PixelShuffle(Module):
    """PyTorch's ``PixelShuffle``.

    >>> import strided.torch as torch
    >>> torch.nn.PixelShuffle(2)
    PixelShuffle(upscale_factor=2)
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        """``pixel_shuffle(input, upscale_factor)``."""
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """PyTorch's ``PixelUnshuffle``.

    >>> import strided.torch as torch
    >>> torch.nn.PixelUnshuffle(2)
    PixelUnshuffle(downscale_factor=2)
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        """``pixel_unshuffle(input, downscale_factor)``."""
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """PyTorch's ``ChannelShuffle``.

    >>> import strided.torch as torch
    >>> torch.nn.ChannelShuffle(2)
    ChannelShuffle(groups=2)
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        """``channel_shuffle(input, groups)``."""
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class Upsample(Module):
    """PyTorch's ``Upsample``: ``interpolate`` with the module's settings.

    >>> import strided.torch as torch
    >>> torch.nn.Upsample(scale_factor=2, mode="bilinear")
    Upsample(scale_factor=2.0, mode='bilinear')
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        """``interpolate(input, size, scale_factor, mode, align_corners, ...)``."""
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        info += ", mode=" + repr(self.mode)
        return info


class UpsamplingNearest2d(Upsample):
    """PyTorch's ``UpsamplingNearest2d``: ``Upsample(mode='nearest')``.

    >>> import strided.torch as torch
    >>> torch.nn.UpsamplingNearest2d(scale_factor=2)
    UpsamplingNearest2d(scale_factor=2.0, mode='nearest')
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """PyTorch's ``UpsamplingBilinear2d``: ``Upsample(mode='bilinear', align_corners=True)``.

    >>> import strided.torch as torch
    >>> torch.nn.UpsamplingBilinear2d(size=(4, 4))
    UpsamplingBilinear2d(size=(4, 4), mode='bilinear')
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


# --- padding -------------------------------------------------------------------------------

def _pad_tuple(n):
    def parse(x):
        if isinstance(x, (list, tuple)):
            return tuple(x)
        return (x,) * (2 * n)
    return parse


class _PadNd(Module):
    _n = 0
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _pad_tuple(self._n)(padding)

    def forward(self, input):
        """``pad(input, padding, mode)`` of a batched or unbatched input."""
        n = len(self.padding) // 2
        if getattr(input, "ndim", None) not in (n + 1, n + 2):
            # (PyTorch's pad refuses these ranks for its non-constant modes)
            raise NotImplementedError(
                f"Padding size {len(self.padding)} is not supported for {input.ndim}D input "
                f"tensor.\nSupported combinations for non-constant padding:\n"
                f"  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                f"  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                f"  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        """``pad(input, padding, 'circular')`` of a batched or unbatched input."""
        n = self._n
        if input.ndim not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.ndim}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """PyTorch's ``CircularPad1d``.

    >>> import strided.torch as torch
    >>> torch.nn.CircularPad1d(1)(torch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 1., 2., 3., 1.]])
    """

    _n = 1


class CircularPad2d(_CircularPadNd):
    """PyTorch's ``CircularPad2d``.

    >>> import strided.torch as torch
    >>> torch.nn.CircularPad2d((1, 0, 0, 1))
    CircularPad2d((1, 0, 0, 1))
    """

    _n = 2


class CircularPad3d(_CircularPadNd):
    """PyTorch's ``CircularPad3d``.

    >>> import strided.torch as torch
    >>> torch.nn.CircularPad3d(1)
    CircularPad3d((1, 1, 1, 1, 1, 1))
    """

    _n = 3


class _ConstantPadNd(Module):
    _n = 0

    def __init__(self, padding, value):
        super().__init__()
        self.value = value
        self.padding = _pad_tuple(self._n)(padding)

    def forward(self, input):
        """``pad(input, padding, 'constant', value)``."""
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """PyTorch's ``ConstantPad1d``.

    >>> import strided.torch as torch
    >>> torch.nn.ConstantPad1d(1, 9.0)(torch.tensor([1.0]))
    tensor([9., 1., 9.])
    """

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """PyTorch's ``ConstantPad2d``.

    >>> import strided.torch as torch
    >>> torch.nn.ConstantPad2d(1, 0.5)
    ConstantPad2d(padding=(1, 1, 1, 1), value=0.5)
    """

    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """PyTorch's ``ConstantPad3d``.

    >>> import strided.torch as torch
    >>> torch.nn.ConstantPad3d(1, 0.5)
    ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=0.5)
    """

    _n = 3


class ZeroPad1d(ConstantPad1d):
    """PyTorch's ``ZeroPad1d``.

    >>> import strided.torch as torch
    >>> torch.nn.ZeroPad1d((1, 2))
    ZeroPad1d((1, 2))
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """PyTorch's ``ZeroPad2d``.

    >>> import strided.torch as torch
    >>> torch.nn.ZeroPad2d(1)
    ZeroPad2d((1, 1, 1, 1))
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """PyTorch's ``ZeroPad3d``.

    >>> import strided.torch as torch
    >>> torch.nn.ZeroPad3d(1)
    ZeroPad3d((1, 1, 1, 1, 1, 1))
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """PyTorch's ``ReflectionPad1d``.

    >>> import strided.torch as torch
    >>> torch.nn.ReflectionPad1d(1)(torch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[2., 1., 2., 3., 2.]])
    """

    _n = 1


class ReflectionPad2d(_ReflectionPadNd):
    """PyTorch's ``ReflectionPad2d``.

    >>> import strided.torch as torch
    >>> torch.nn.ReflectionPad2d(1)
    ReflectionPad2d((1, 1, 1, 1))
    """

    _n = 2


class ReflectionPad3d(_ReflectionPadNd):
    """PyTorch's ``ReflectionPad3d``.

    >>> import strided.torch as torch
    >>> torch.nn.ReflectionPad3d(1)
    ReflectionPad3d((1, 1, 1, 1, 1, 1))
    """

    _n = 3


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """PyTorch's ``ReplicationPad1d``.

    >>> import strided.torch as torch
    >>> torch.nn.ReplicationPad1d(1)(torch.tensor([[1.0, 2.0]]))
    tensor([[1., 1., 2., 2.]])
    """

    _n = 1


class ReplicationPad2d(_ReplicationPadNd):
    """PyTorch's ``ReplicationPad2d``.

    >>> import strided.torch as torch
    >>> torch.nn.ReplicationPad2d(1)
    ReplicationPad2d((1, 1, 1, 1))
    """

    _n = 2


class ReplicationPad3d(_ReplicationPadNd):
    """PyTorch's ``ReplicationPad3d``.

    >>> import strided.torch as torch
    >>> torch.nn.ReplicationPad3d(1)
    ReplicationPad3d((1, 1, 1, 1, 1, 1))
    """

    _n = 3
