"""``strided.torch.nn.utils``: PyTorch's gradient clipping, parameter/vector conversion and ``rnn``.

``clip_grad_norm_``, ``get_total_norm``, ``clip_grads_with_norm_`` and ``clip_grad_value_`` are
PyTorch 2.13's algorithms step for step (per-gradient ``vector_norm``, the norm of the norms,
``clip_coef = max_norm / (total_norm + 1e-6)`` clamped to 1, gradients scaled in place, all
under ``no_grad``). ``foreach`` (PyTorch's choice of its fused multi-tensor kernels, on CPU and
CUDA alike) changes no value: strided computes the same norms and products one gradient at a time
whatever it is. ``parameters_to_vector`` / ``vector_to_parameters`` and ``rnn.pad_sequence`` /
``rnn.unpad_sequence`` (and the rest of ``rnn``: ``PackedSequence`` and packing) and the
hook-based ``weight_norm`` (deprecated in PyTorch) and ``spectral_norm`` with their ``remove_``
functions are PyTorch's, and so are the submodules ``parametrize`` and ``parametrizations``
(``weight_norm``, ``spectral_norm``, ``orthogonal``), ``fusion`` (``fuse_conv_bn_eval``,
``fuse_linear_bn_eval`` and their ``_weights`` forms, also here) and
``stateless.functional_call`` and ``prune``. Not here: the rest of PyTorch's module (asking for one is an
AttributeError that says so).

>>> import strided.torch as torch
>>> w = torch.nn.Parameter(torch.tensor([3.0, 4.0]))
>>> (w * w).sum().backward()
>>> torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
tensor(10.)
>>> w.grad
tensor([0.6000, 0.8000])
"""

from __future__ import annotations

import sys
import types
import warnings

from ...._core.array import Array
from . import fusion, parametrizations, parametrize, prune, rnn, stateless  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm
from ...._core.caller import stacklevel

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "fusion",
           "get_total_norm", "parameters_to_vector", "parametrizations", "parametrize", "prune", "remove_spectral_norm", "remove_weight_norm", "rnn",
           "skip_init", "spectral_norm", "stateless", "vector_to_parameters", "weight_norm"]

_MISSING = ("convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format")


def __getattr__(name: str):
    if name in _MISSING:
        raise AttributeError(f"strided.torch.nn.utils has no {name!r}: strided does not support it; "
                             f"it has {', '.join(__all__)}")
    raise AttributeError(f"module 'strided.torch.nn.utils' has no attribute {name!r}")


def _torch():
    return sys.modules["strided.torch"]


def _group(tensors) -> dict:
    """PyTorch's _group_tensors_by_device_and_dtype: lists keyed by (device, dtype), in first-seen order."""
    groups: dict = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of the norms of ``tensors`` (PyTorch 2.6+'s ``get_total_norm``).

    Each tensor's ``linalg.vector_norm`` (grouped by device and dtype, as PyTorch does), then
    the same norm of those; ``tensor(0.)`` for no tensors. ``error_if_nonfinite`` raises
    PyTorch's RuntimeError for a NaN or infinite total.

    >>> import strided.torch as torch
    >>> torch.nn.utils.get_total_norm([torch.tensor([3.0]), torch.tensor([4.0])])
    tensor(5.)
    """
    torch = _torch()
    with torch.no_grad():
        tensors = [tensors] if isinstance(tensors, Array) else list(tensors)
        norm_type = float(norm_type)
        if len(tensors) == 0:
            return torch.tensor(0.0)
        first_device = tensors[0].device
        norms = []
        for _, group in _group(tensors).items():
            norms.extend(torch.linalg.vector_norm(g, ord=norm_type) for g in group)
        total = torch.linalg.vector_norm(torch.stack([n.to(first_device) for n in norms]), ord=norm_type)
        if error_if_nonfinite and bool(torch.logical_or(total.isnan(), total.isinf())):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                f"it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                f"norm anyway, set `error_if_nonfinite=False`")
        return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None) -> None:
    """Scale the parameters' gradients in place by ``min(1, max_norm / (total_norm + 1e-6))``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.ones(4)); w.grad = torch.full((4,), 2.0)
    >>> torch.nn.utils.clip_grads_with_norm_([w], 2.0, torch.tensor(4.0)); w.grad
    tensor([1.0000, 1.0000, 1.0000, 1.0000])
    """
    torch = _torch()
    with torch.no_grad():
        if isinstance(parameters, Array):
            parameters = [parameters]
        grads = [p.grad for p in parameters if p.grad is not None]
        max_norm = float(max_norm)
        if len(grads) == 0:
            return
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
        for (device, _), group in _group(grads).items():
            coef = clip_coef_clamped.to(device)
            for g in group:
                g.mul_(coef)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradients of ``parameters`` so that their total ``norm_type`` norm is at most
    ``max_norm``; returns the total norm before clipping (PyTorch's ``clip_grad_norm_``).

    ``norm_type`` is any ``vector_norm`` order (``float('inf')`` for the largest magnitude);
    gradients are scaled in place by ``min(1, max_norm / (total + 1e-6))``.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.ones(2)); w.grad = torch.tensor([-3.0, 1.0])
    >>> torch.nn.utils.clip_grad_norm_(w, 1.5, norm_type=float("inf"))
    tensor(3.)
    """
    if isinstance(parameters, Array):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=stacklevel())
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of ``clip_grad_norm_`` (PyTorch's FutureWarning, then the same)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=stacklevel())
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None) -> None:
    """Clamp every gradient of ``parameters`` into ``[-clip_value, clip_value]`` in place.

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.ones(3)); w.grad = torch.tensor([-2.0, 0.5, 3.0])
    >>> torch.nn.utils.clip_grad_value_(w, 1.0); w.grad
    tensor([-1.0000,  0.5000,  1.0000])
    """
    torch = _torch()
    with torch.no_grad():
        if isinstance(parameters, Array):
            parameters = [parameters]
        clip_value = float(clip_value)
        grads = [p.grad for p in parameters if p.grad is not None]
        for _, group in _group(grads).items():
            for g in group:
                g.clamp_(min=-clip_value, max=clip_value)


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` without a meaningful initialization (PyTorch's ``skip_init``).

    PyTorch builds the module on its meta device and allocates uninitialized storage; strided has
    no meta device, so it builds the module on ``device`` (default CPU) and the parameters hold
    whatever its initialization wrote: values PyTorch leaves unspecified. ``module_cls`` must be a
    ``Module`` class that takes a ``device`` argument (PyTorch's RuntimeErrors otherwise).

    >>> import strided.torch as torch
    >>> torch.nn.utils.skip_init(torch.nn.Linear, 3, 2).weight.shape
    strided.Size([2, 3])
    """
    import inspect
    torch = _torch()
    if not (isinstance(module_cls, type) and issubclass(module_cls, torch.nn.Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs)


def _check_param_device(param, old):
    dev = param.device.index if param.device.type == "cuda" else -1
    if old is None:
        return dev
    if dev != old:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one 1-D array (differentiable; each
    parameter must be viewable as 1-D, PyTorch's ``param.view(-1)``).

    >>> import strided.torch as torch
    >>> torch.nn.utils.parameters_to_vector([torch.ones(2, 2), torch.zeros(1)])
    tensor([1., 1., 1., 1., 0.])
    """
    device, vec = None, []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    return _torch().cat(vec)


def vector_to_parameters(vec, parameters) -> None:
    """Copy consecutive slices of the 1-D ``vec`` into the parameters' data (``param.data = ...``).

    >>> import strided.torch as torch
    >>> p = torch.nn.Parameter(torch.zeros(2, 2))
    >>> torch.nn.utils.vector_to_parameters(torch.arange(4.0), [p]); p.data
    tensor([[0., 1.],
            [2., 3.]])
    """
    if not isinstance(vec, Array):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__module__}.{type(vec).__qualname__}")
    device, pointer = None, 0
    for param in parameters:
        device = _check_param_device(param, device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
