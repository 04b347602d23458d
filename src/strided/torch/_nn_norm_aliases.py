"""PyTorch's torch-level normalization functions: ``torch.batch_norm``,
``torch.instance_norm``, ``torch.layer_norm``, ``torch.group_norm``, ``torch.rms_norm``.

Their signatures are ATen's (``native_functions.yaml``), not ``torch.nn.functional``'s:
``batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
cudnn_enabled)`` with every argument required, ``instance_norm`` likewise with
``use_input_stats``, and a trailing ``cudnn_enable(d)`` flag on ``layer_norm`` and
``group_norm`` (accepted and ignored: strided has no cuDNN). Unlike the functional forms
they skip the Python-level "more than 1 value per channel" checks, as PyTorch's do: a
single value per channel normalises to 0 and gives a NaN running variance. The bodies
are ``strided.torch.nn.functional``'s.
"""

from __future__ import annotations

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm"]


def _norm():
    from .nn import _norm
    return _norm


def batch_norm(input, weight, bias, running_mean, running_var, training: bool, momentum: float,
               eps: float, cudnn_enabled: bool):
    """PyTorch's ``torch.batch_norm`` (ATen's argument order; see ``nn.functional.batch_norm``).

    >>> import strided.torch as torch
    >>> torch.batch_norm(torch.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1, 0.0, False)
    tensor([[-1.],
            [ 1.]])
    """
    return _norm()._batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                               eps, False)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats: bool,
                  momentum: float, eps: float, cudnn_enabled: bool):
    """PyTorch's ``torch.instance_norm`` (ATen's argument order; see ``nn.functional.instance_norm``).

    >>> import strided.torch as torch
    >>> torch.instance_norm(torch.tensor([[[1.0, 3.0]]]), None, None, None, None, True, 0.1, 0.0, False)
    tensor([[[-1.,  1.]]])
    """
    return _norm()._instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                                  momentum, eps, False)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-05,
               cudnn_enable: bool = True):
    """PyTorch's ``torch.layer_norm`` (``nn.functional.layer_norm`` and a ``cudnn_enable`` flag).

    >>> import strided.torch as torch
    >>> torch.layer_norm(torch.tensor([[1.0, 3.0]]), [2], eps=0.0)
    tensor([[-1.,  1.]])
    """
    return _norm().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-05,
               cudnn_enabled: bool = True):
    """PyTorch's ``torch.group_norm`` (no "more than 1 value per group" check).

    >>> import strided.torch as torch
    >>> torch.group_norm(torch.tensor([[1.0, 3.0]]), 1, eps=0.0)
    tensor([[-1.,  1.]])
    """
    return _norm()._group_norm(input, num_groups, weight, bias, eps, False)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """PyTorch's ``torch.rms_norm`` (the same as ``nn.functional.rms_norm``).

    >>> import strided.torch as torch
    >>> torch.rms_norm(torch.tensor([[3.0, -3.0]]), [2], eps=0.0)
    tensor([[ 1., -1.]])
    """
    return _norm().rms_norm(input, normalized_shape, weight, eps)
