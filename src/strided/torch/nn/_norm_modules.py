"""Normalization layers of ``strided.torch.nn``: ``BatchNorm1d/2d/3d``,
``InstanceNorm1d/2d/3d``, ``LayerNorm``, ``GroupNorm``, ``RMSNorm``, ``LocalResponseNorm``.

Ports of ``torch/nn/modules/batchnorm.py``, ``instancenorm.py`` and
``normalization.py``: the same parameters and buffers under the same names and in
the same order (``weight``, ``bias``, ``running_mean``, ``running_var``,
``num_batches_tracked``), so PyTorch's state dicts load; the same choice of
statistics in training and eval mode; ``momentum=None`` is the cumulative average
``1 / num_batches_tracked``.
"""

from __future__ import annotations

import numbers
import warnings

import strided as _st

from . import _norm as F
from . import init
from .modules import Module, _factory
from .parameter import Parameter
from ..._core.caller import stacklevel

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm"]


class _NormBase(Module):
    """The parameters and running statistics shared by batch and instance norm."""

    _version = 2  # (version 2 added num_batches_tracked, as PyTorch's)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = _factory(device, dtype)
        if affine:
            self.weight = Parameter(_st.empty((num_features,), **kw))
            if bias:
                self.bias = Parameter(_st.empty((num_features,), **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _st.zeros((num_features,), **kw))
            self.register_buffer("running_var", _st.ones((num_features,), **kw))
            self.register_buffer("num_batches_tracked",
                                 _st.zeros((), dtype=_st.int64, device=kw["device"]))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batch tracked."""
        if self.track_running_stats:
            with _st.no_grad():
                self.running_mean.fill_(0)
                self.running_var.fill_(1)
                self.num_batches_tracked.fill_(0)

    def reset_parameters(self) -> None:
        """Reset the running statistics, ``weight`` to 1 and ``bias`` to 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """``Module._load_from_state_dict``; a state dict of version < 2 (or without a
        version) that lacks ``num_batches_tracked`` keeps the module's own (0 if it has
        none), as PyTorch's."""
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked
                                   is not None else _st.asarray(0, dtype=_st.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    _dims: tuple = ()

    def _check_input_dim(self, input) -> None:
        if input.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.ndim}D input)")

    def forward(self, input):
        """``batch_norm`` with the batch's statistics while training (updating the
        running ones), the running statistics in eval mode."""
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with _st.no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # the cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        if self.training:
            bn_training = True
        else:
            bn_training = self.running_mean is None and self.running_var is None
        use = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use else None,
                            self.running_var if use else None, self.weight, self.bias,
                            bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)`` input (PyTorch's ``nn.BatchNorm1d``).

    >>> import strided.torch as torch
    >>> torch.nn.BatchNorm1d(3)
    BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of ``(N, C, H, W)`` input (PyTorch's ``nn.BatchNorm2d``).

    >>> import strided.torch as torch
    >>> torch.nn.BatchNorm2d(3)(torch.ones(2, 3, 4, 4)).shape
    strided.Size([2, 3, 4, 4])
    """

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization of ``(N, C, D, H, W)`` input (PyTorch's ``nn.BatchNorm3d``).

    >>> import strided.torch as torch
    >>> torch.nn.BatchNorm3d(3, affine=False).weight is None
    True
    """

    _dims = (5,)


class _InstanceNorm(_NormBase):
    _no_batch_dim = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None, dtype=None,
                 *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """``_NormBase._load_from_state_dict``; a state dict without a version that holds
        running statistics for a module with ``track_running_stats=False`` (a checkpoint from
        before PyTorch 0.4) is an error, and its entries are dropped, as PyTorch's."""
        version = local_metadata.get("version", None)
        if version is None and not self.track_running_stats:
            keys = [prefix + name for name in ("running_mean", "running_var")
                    if prefix + name in state_dict]
            if keys:
                klass = type(self).__name__
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    f"0.4.0, this may be expected because {klass} does not track running stats "
                    "by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True "
                    f"in {klass} to enable them. See the documentation of {klass} for details.")
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def _check_input_dim(self, input) -> None:
        d = self._no_batch_dim
        if input.ndim not in (d, d + 1):
            raise ValueError(f"expected {d}D or {d + 1}D input (got {input.ndim}D input)")

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        """``instance_norm``; an unbatched input is treated as a batch of one."""
        self._check_input_dim(input)
        feature_dim = input.ndim - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can "
                          "silence this warning by not passing in num_features, which is not used "
                          "because affine=False", UserWarning, stacklevel=stacklevel())
        if input.ndim == self._no_batch_dim:
            return self._apply_instance_norm(_st.expand_dims(input, axis=0))[0]
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of ``(N, C, L)`` or ``(C, L)`` input.

    >>> import strided.torch as torch
    >>> torch.nn.InstanceNorm1d(3)
    InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    """

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` or ``(C, H, W)`` input.

    >>> import strided.torch as torch
    >>> torch.nn.InstanceNorm2d(2)(torch.ones(2, 3, 3)).shape
    strided.Size([2, 3, 3])
    """

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input.

    >>> import strided.torch as torch
    >>> torch.nn.InstanceNorm3d(2, affine=True).weight.shape
    strided.Size([2])
    """

    _no_batch_dim = 4


class LayerNorm(Module):
    """Layer normalization over the last dimensions (PyTorch's ``nn.LayerNorm``).

    >>> import strided.torch as torch
    >>> torch.nn.LayerNorm(4)
    LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
    """

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        kw = _factory(device, dtype)
        if elementwise_affine:
            self.weight = Parameter(_st.empty(self.normalized_shape, **kw))
            if bias:
                self.bias = Parameter(_st.empty(self.normalized_shape, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``weight`` 1, ``bias`` 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        """``layer_norm(input, normalized_shape, weight, bias, eps)``."""
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Group normalization (PyTorch's ``nn.GroupNorm``).

    >>> import strided.torch as torch
    >>> torch.nn.GroupNorm(2, 4)
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        kw = _factory(device, dtype)
        if affine:
            self.weight = Parameter(_st.empty((num_channels,), **kw))
            if bias:
                self.bias = Parameter(_st.empty((num_channels,), **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``weight`` 1, ``bias`` 0."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        """``group_norm(input, num_groups, weight, bias, eps)``."""
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Root-mean-square normalization (PyTorch's ``nn.RMSNorm``).

    >>> import strided.torch as torch
    >>> torch.nn.RMSNorm(4)
    RMSNorm((4,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine: bool = True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_st.empty(self.normalized_shape, **_factory(device, dtype)))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``weight`` 1."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        """``rms_norm(x, normalized_shape, weight, eps)``."""
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Local response normalization across channels (PyTorch's ``nn.LocalResponseNorm``).

    >>> import strided.torch as torch
    >>> torch.nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        """``local_response_norm(input, size, alpha, beta, k)``."""
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
