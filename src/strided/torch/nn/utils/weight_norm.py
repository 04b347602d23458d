"""PyTorch's (deprecated, still common) ``torch.nn.utils.weight_norm`` / ``remove_weight_norm``.

``weight_norm(module, name, dim)`` replaces the parameter ``name`` by ``name_g`` (its norm over
every dimension but ``dim``; the whole norm, a 0-d array, for ``dim=None``) and ``name_v`` (its
direction), and recomputes ``name = name_v * (name_g / norm_except_dim(name_v))`` before every
forward (a forward pre-hook), as PyTorch does; it warns PyTorch's FutureWarning.

>>> import warnings
>>> import strided.torch as torch
>>> lin = torch.nn.Linear(3, 2)
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     lin = torch.nn.utils.weight_norm(lin)
>>> lin.weight_g.shape, lin.weight_v.shape
(strided.Size([2, 1]), strided.Size([2, 3]))
"""

from __future__ import annotations

import sys
import warnings
from ...._core.caller import stacklevel

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _torch():
    return sys.modules["strided.torch"]


def _norm_except_dim(v, dim):
    """PyTorch's ``norm_except_dim(v, 2, dim)``: the 2-norm over every dimension but ``dim``,
    kept as size-1 dimensions (the whole norm for ``dim == -1``)."""
    torch = _torch()
    if dim == -1:
        return torch.linalg.vector_norm(v)
    if dim == 0:
        shape = (v.shape[0],) + (1,) * (v.ndim - 1)
        return torch.linalg.vector_norm(v.reshape(v.shape[0], -1), dim=1).reshape(shape)
    if dim == v.ndim - 1:
        shape = (1,) * (v.ndim - 1) + (v.shape[-1],)
        return torch.linalg.vector_norm(v.reshape(-1, v.shape[-1]), dim=0).reshape(shape)
    return _norm_except_dim(v.transpose(0, dim), 0).transpose(0, dim)


class WeightNorm:
    """The forward pre-hook ``weight_norm`` registers: recomputes the weight from ``_g`` and ``_v``."""

    def __init__(self, name: str, dim) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        """``v * (g / norm_except_dim(v, 2, dim))`` from the module's ``name_g`` and ``name_v``."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module, name: str, dim) -> "WeightNorm":
        """Reparametrize ``module``'s parameter ``name`` (PyTorch's ``WeightNorm.apply``)."""
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=stacklevel())
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        Parameter = _torch().nn.Parameter
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module) -> None:
        """Put back one plain parameter ``name`` holding the current weight."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, _torch().nn.Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name: str = "weight", dim=0):
    """Apply weight normalization to ``module``'s parameter ``name`` (see the module); returns ``module``.

    >>> import warnings
    >>> import strided.torch as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = torch.nn.utils.weight_norm(torch.nn.Linear(4, 3), dim=None)
    >>> m.weight_g.shape
    strided.Size([])
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Undo ``weight_norm`` on ``module``'s parameter ``name``; returns ``module`` (ValueError if absent)."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
