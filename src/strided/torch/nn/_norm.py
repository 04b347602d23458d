"""Normalization functions of ``strided.torch.nn.functional``: ``batch_norm``,
``instance_norm``, ``layer_norm``, ``group_norm``, ``rms_norm``, ``local_response_norm``.

Each is a composite of strided's recorded operations (``mean``, ``var``, ``sqrt``,
arithmetic), so gradients for the input and every parameter follow from strided's
autograd and match PyTorch's up to rounding. The statistics are PyTorch's: the
normalising variance is the biased one (divided by ``n``), the running variance
that ``batch_norm`` keeps is the unbiased one (divided by ``n - 1``), updated in
place under ``no_grad`` as ``(1 - momentum) * running + momentum * batch``
(``aten/src/ATen/native/Normalization.cpp``).

Invariants: nothing but ``running_mean`` / ``running_var`` is written, and those only
when ``training`` (``use_input_stats`` for ``instance_norm``) and given; errors are
PyTorch's (its exception type and the sizes it names).
"""

from __future__ import annotations

import math

import strided as _st
from strided import Array
from strided.torch._memory_format import row_major

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm",
           "local_response_norm"]


def _arr(x, func: str, name: str = "input") -> Array:
    if type(x) is not Array:
        raise TypeError(f"{func}(): {name} must be a strided array; got {type(x).__name__}")
    return x


def _opt(x, func: str, name: str):
    return None if x is None else _arr(x, func, name)


def _size(shape) -> str:
    return f"strided.Size({list(shape)})"


def _channel_shape(ndim: int, c: int) -> tuple:
    return (1, c) + (1,) * (ndim - 2)


def _check_channels(func: str, c: int, **arrays) -> None:
    for name, a in arrays.items():
        if a is not None and a.size != c:
            raise RuntimeError(f"{func}(): {name} should contain {c} elements not {a.size}")


def _check_momentum(func: str, momentum) -> None:
    if isinstance(momentum, bool) or not isinstance(momentum, (int, float)):
        raise TypeError(f"{func}(): argument 'momentum' must be float, not "
                        f"{type(momentum).__name__}")


_KERNEL_NAMES = {"batch_norm": "batch_norm", "instance_norm": "batch_norm",
                 "layer_norm": "LayerNormKernelImpl", "group_norm": "GroupNormKernelImpl",
                 "rms_norm": "rms_norm", "local_response_norm": "local_response_norm"}
_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
               "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _check_floating(func: str, input: Array) -> None:
    """PyTorch's kernels exist for floating-point inputs only."""
    if input.dtype.kind != "f":
        name = _TYPE_NAMES.get(input.dtype.name, input.dtype.name)
        raise NotImplementedError(f'"{_KERNEL_NAMES[func]}" not implemented for \'{name}\' '
                                  f"({func}() needs a floating-point input)")


def _check_dtypes(input: Array, *others) -> None:
    # Note: PyTorch's CPU kernels refuse parameters or statistics of another dtype
    # than a float32/float64 input ("mixed dtype").
    for a in others:
        if a is not None and a.dtype != input.dtype:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype "
                               f"(input {input.dtype.name}, a parameter or statistic "
                               f"{a.dtype.name}).")


def _affine(y: Array, weight, bias, shape: tuple) -> Array:
    if weight is not None:
        y = y * _st.reshape(weight, shape)
    if bias is not None:
        y = y + _st.reshape(bias, shape)
    return y


def _update_running(running_mean, running_var, mean: Array, var: Array, n: int,
                    momentum: float) -> None:
    """PyTorch's running-statistics update: in place, under ``no_grad``, with the
    unbiased variance (``var * n / (n - 1)``)."""
    with _st.no_grad():
        if running_mean is not None:
            m = _st.reshape(mean.detach(), running_mean.shape).astype(running_mean.dtype)
            running_mean.copy_(m * momentum + running_mean * (1.0 - momentum))
        if running_var is not None:
            v = _st.reshape(var.detach(), running_var.shape).astype(running_var.dtype)
            unbiased = v * (n / (n - 1)) if n > 1 else v * math.inf
            running_var.copy_(unbiased * momentum + running_var * (1.0 - momentum))


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-05) -> Array:
    """Normalise each channel (dimension 1) over the batch and spatial dimensions.

    ``training``: the batch's mean and biased variance normalise, and the running
    statistics (when given) are updated in place with ``momentum`` and the unbiased
    variance, as PyTorch. Otherwise the running statistics normalise.

    >>> import strided.torch as torch
    >>> x = torch.tensor([[1.0, 2.0], [3.0, 6.0]])
    >>> rm, rv = torch.zeros(2), torch.ones(2)
    >>> torch.nn.functional.batch_norm(x, rm, rv, training=True, eps=0.0)
    tensor([[-1., -1.],
            [ 1.,  1.]])
    >>> rm, rv
    (tensor([0.2000, 0.4000]), tensor([1.1000, 1.7000]))
    """
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps,
                       True)


def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps,
                verify: bool, f: str = "batch_norm") -> Array:
    """``batch_norm``'s body; ``verify``: F's Python-level check of more than one value
    per channel (``torch.batch_norm`` has none)."""
    _arr(input, f)
    running_mean, running_var = _opt(running_mean, f, "running_mean"), _opt(running_var, f, "running_var")
    weight, bias = _opt(weight, f, "weight"), _opt(bias, f, "bias")
    _check_momentum(f, momentum)
    _check_floating(f, input)
    _check_dtypes(input, running_mean, running_var, weight, bias)
    shape = tuple(input.shape)
    if training and verify:
        n = shape[0] if shape else 1
        for s in shape[2:]:
            n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {_size(shape)}")
    c = shape[1] if len(shape) > 1 else 0
    _check_channels(f, c, running_mean=running_mean, running_var=running_var, weight=weight,
                    bias=bias)
    if len(shape) < 2 and input.size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(len(shape), 1)}, "
                         f"{max(len(shape), 1) - 1}], but got 1): {f}() needs the channels in "
                         f"dimension 1; got an input of shape {_size(shape)}")
    if len(shape) < 2:
        return input * 1  # (an empty 1-D input: no channels, no statistics; PyTorch's shape)
    cs = _channel_shape(len(shape), c)
    if training or running_mean is None or running_var is None:
        if not training:
            missing = "running_mean" if running_mean is None else "running_var"
            raise RuntimeError(f"{missing} must be defined in evaluation mode")
        axes = (0,) + tuple(range(2, len(shape)))
        mean = _st.mean(input, axis=axes, keepdims=True)
        var = _st.var(input, axis=axes, correction=0, keepdims=True)
        if running_mean is not None or running_var is not None:
            _update_running(running_mean, running_var, mean, var, input.size // c if c else 0,
                            momentum)
    else:
        mean = _st.reshape(running_mean, cs)
        var = _st.reshape(running_var, cs)
    y = (input - mean) / _st.sqrt(var + eps)
    return row_major(_affine(y, weight, bias, cs))  # (PyTorch's: a row-major result)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-05) -> Array:
    """Normalise each channel of each sample over its spatial dimensions.

    With ``use_input_stats`` the running statistics (when given) are updated in place
    with the batch's mean of the per-instance statistics (PyTorch's rule); without it
    they normalise.

    >>> import strided.torch as torch
    >>> torch.nn.functional.instance_norm(torch.tensor([[[1.0, 3.0]]]), eps=0.0)
    tensor([[[-1.,  1.]]])
    """
    return _instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                          momentum, eps, True)


def _instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum,
                   eps, verify: bool, f: str = "instance_norm") -> Array:
    """``instance_norm``'s body; ``verify``: F's check of more than one spatial element."""
    _arr(input, f)
    running_mean, running_var = _opt(running_mean, f, "running_mean"), _opt(running_var, f, "running_var")
    weight, bias = _opt(weight, f, "weight"), _opt(bias, f, "bias")
    _check_momentum(f, momentum)
    _check_floating(f, input)
    _check_dtypes(input, running_mean, running_var, weight, bias)
    shape = tuple(input.shape)
    if use_input_stats and verify:
        n = 1
        for s in shape[2:]:
            n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {_size(shape)}")
    if len(shape) < 2:
        raise RuntimeError(f"{f}(): expected an input of at least 2 dimensions (N, C, ...); got "
                           f"shape {shape}")
    c = shape[1]
    _check_channels(f, c, running_mean=running_mean, running_var=running_var, weight=weight,
                    bias=bias)
    cs = _channel_shape(len(shape), c)
    if use_input_stats or running_mean is None or running_var is None:
        if not use_input_stats:
            raise RuntimeError(f"{f}(): Expected running_mean and running_var to be defined when "
                               "use_input_stats is false")
        axes = tuple(range(2, len(shape)))
        mean = _st.mean(input, axis=axes, keepdims=True)
        var = _st.var(input, axis=axes, correction=0, keepdims=True)
        if running_mean is not None or running_var is not None:
            n = 1
            for s in shape[2:]:
                n *= s
            # Note: PyTorch runs batch_norm on (1, N*C, ...) with the running statistics
            # repeated N times, then averages them over N: the batch mean of the
            # per-instance updates.
            with _st.no_grad():
                bm = _st.mean(_st.reshape(mean.detach(), shape[:2]), axis=0)
                bv = _st.mean(_st.reshape(var.detach(), shape[:2]) * (n / (n - 1)), axis=0)
                if running_mean is not None:
                    running_mean.copy_(bm.astype(running_mean.dtype) * momentum
                                       + running_mean * (1.0 - momentum))
                if running_var is not None:
                    running_var.copy_(bv.astype(running_var.dtype) * momentum
                                      + running_var * (1.0 - momentum))
    else:
        mean = _st.reshape(running_mean, cs)
        var = _st.reshape(running_var, cs)
    y = (input - mean) / _st.sqrt(var + eps)
    return row_major(_affine(y, weight, bias, cs))  # (PyTorch's: a row-major result)


def _normalized_shape(normalized_shape) -> tuple:
    if isinstance(normalized_shape, int):
        return (normalized_shape,)
    ns = tuple(int(s) for s in normalized_shape)
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing "
                           "at least one element, but got normalized_shape = []")
    return ns


def _check_normalized(func: str, input: Array, ns: tuple, sep: str = ", ") -> tuple:
    k = len(ns)
    if k == 0 or tuple(input.shape[input.ndim - k:]) != ns or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*{sep}{', '.join(map(str, ns))}], but got input of size"
                           f"{list(input.shape)}")
    return tuple(range(input.ndim - k, input.ndim))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-05) -> Array:
    """Normalise over the last ``len(normalized_shape)`` dimensions (biased variance),
    then scale by ``weight`` and shift by ``bias`` (both of ``normalized_shape``).

    >>> import strided.torch as torch
    >>> torch.nn.functional.layer_norm(torch.tensor([[1.0, 3.0]]), (2,), eps=0.0)
    tensor([[-1.,  1.]])
    """
    f = "layer_norm"
    _arr(input, f)
    weight, bias = _opt(weight, f, "weight"), _opt(bias, f, "bias")
    _check_floating(f, input)
    ns = _normalized_shape(normalized_shape)
    for name, a in (("weight", weight), ("bias", bias)):
        if a is not None and tuple(a.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(a.shape)} and normalized_shape = {list(ns)}")
    axes = _check_normalized(f, input, ns)
    _check_dtypes(input, weight, bias)
    mean = _st.mean(input, axis=axes, keepdims=True)
    var = _st.var(input, axis=axes, correction=0, keepdims=True)
    y = (input - mean) / _st.sqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return row_major(y)  # (PyTorch's layer_norm writes a row-major result whatever the input's layout)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-05) -> Array:
    """Split the channels (dimension 1) into ``num_groups`` groups and normalise each
    group of each sample over its channels and spatial dimensions; ``weight`` and
    ``bias`` are per channel.

    >>> import strided.torch as torch
    >>> torch.nn.functional.group_norm(torch.tensor([[1.0, 3.0]]), 1, eps=0.0)
    tensor([[-1.,  1.]])
    """
    return _group_norm(input, num_groups, weight, bias, eps, True)


def _group_norm(input, num_groups, weight, bias, eps, verify: bool, f: str = "group_norm") -> Array:
    """``group_norm``'s body; ``verify``: F's check of more than one value per group."""
    _arr(input, f)
    weight, bias = _opt(weight, f, "weight"), _opt(bias, f, "bias")
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{len(shape)}")
    n, c = shape[:2]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(shape)} and num_groups={num_groups}")
    vb = [n * c // num_groups, num_groups] + list(shape[2:])
    if verify and math.prod(vb[:1] + vb[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{vb}")
    _check_channels(f, c, weight=weight, bias=bias)
    _check_floating(f, input)
    _check_dtypes(input, weight, bias)
    g = _st.reshape(input, (n, num_groups, -1)) if input.size else _st.reshape(
        input, (n, num_groups, (c // num_groups) * math.prod(shape[2:])))
    mean = _st.mean(g, axis=2, keepdims=True)
    var = _st.var(g, axis=2, correction=0, keepdims=True)
    y = _st.reshape((g - mean) / _st.sqrt(var + eps), shape)
    return row_major(_affine(y, weight, bias, _channel_shape(len(shape), c)))  # (PyTorch's: row-major)


def rms_norm(input, normalized_shape, weight=None, eps=None) -> Array:
    """``x / sqrt(mean(x**2) + eps) * weight`` over the last ``len(normalized_shape)``
    dimensions; ``eps=None`` takes the machine epsilon of ``input``'s dtype (PyTorch).

    >>> import strided.torch as torch
    >>> torch.nn.functional.rms_norm(torch.tensor([[3.0, -3.0]]), (2,), eps=0.0)
    tensor([[ 1., -1.]])
    """
    f = "rms_norm"
    _arr(input, f)
    weight = _opt(weight, f, "weight")
    if input.dtype.kind != "c":  # (PyTorch's rms_norm is composite: complex inputs too)
        _check_floating(f, input)
    ns = _normalized_shape(normalized_shape)
    axes = _check_normalized(f, input, ns, sep="")
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = {list(ns)}")
    if eps is None:
        eps = float(_st.finfo(input.dtype).eps)
    ms = _st.mean(input * input, axis=axes, keepdims=True)
    y = input / _st.sqrt(ms + eps)
    if weight is not None:
        # Note: PyTorch computes with a weight of another dtype and returns input's dtype.
        y = y * weight
        if y.dtype != input.dtype:
            y = y.astype(input.dtype)
    return row_major(y)  # (PyTorch's rms_norm: a row-major result)


def local_response_norm(input, size: int, alpha: float = 0.0001, beta: float = 0.75,
                        k: float = 1.0) -> Array:
    """``x / (k + alpha * mean(x**2 over `size` neighbouring channels)) ** beta``, the
    window zero-padded by ``size // 2`` before and ``(size - 1) // 2`` after (PyTorch).

    >>> import strided.torch as torch
    >>> torch.nn.functional.local_response_norm(torch.ones(1, 2, 1), 1, alpha=1.0, beta=1.0)
    tensor([[[0.5000],
             [0.5000]]])
    """
    f = "local_response_norm"
    _arr(input, f)
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} "
                         "dimensions)")
    if input.dtype.kind != "f":
        # Note: PyTorch pools an integer input into float32; strided refuses it instead.
        raise NotImplementedError(f"{f}(): an integer or boolean input ({input.dtype.name}) is "
                                  "not supported by strided; convert it to a floating-point dtype")
    if input.size == 0:
        return input
    sq = input * input
    c = input.shape[1]
    before, after = size // 2, (size - 1) // 2
    zshape = list(input.shape)
    parts = []
    if before:
        zshape[1] = before
        parts.append(_st.zeros(tuple(zshape), dtype=input.dtype, device=input.device))
    parts.append(sq)
    if after:
        zshape[1] = after
        parts.append(_st.zeros(tuple(zshape), dtype=input.dtype, device=input.device))
    padded = _st.concat(parts, axis=1) if len(parts) > 1 else sq
    total = None
    for i in range(size):
        piece = padded[:, i:i + c]
        total = piece if total is None else total + piece
    div = (total * (1.0 / size)) * alpha + k
    return input / div ** beta
