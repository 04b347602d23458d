"""PyTorch's hook-based ``torch.nn.utils.spectral_norm`` / ``remove_spectral_norm``.

``spectral_norm(module, name, n_power_iterations, eps, dim)`` keeps the parameter as
``name_orig`` and the power-iteration vectors as the buffers ``name_u`` and ``name_v`` (drawn
from strided's normal generator, then normalized: the same distribution as PyTorch's, not its
numbers), and before every forward sets ``name = name_orig / sigma`` with
``sigma = u . (W v)``, after ``n_power_iterations`` in-place updates of ``u`` and ``v`` in
training mode (none in eval mode), as PyTorch does. Not done: PyTorch's state-dict hooks (the
``spectral_norm`` version entry in the state dict's metadata, and loading a state dict saved
before PyTorch 1.0, which holds ``name`` rather than ``name_v``).

>>> import strided.torch as torch
>>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3))
>>> sorted(n for n, _ in m.named_parameters()), m.weight_u.shape
(['bias', 'weight_orig'], strided.Size([3]))
"""

from __future__ import annotations

import sys

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def _torch():
    return sys.modules["strided.torch"]


class SpectralNorm:
    """The forward pre-hook ``spectral_norm`` registers (PyTorch's ``SpectralNorm``)."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` as a matrix: ``dim`` first, the other dimensions flattened."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        return weight_mat.reshape(weight_mat.size(0), -1)

    def compute_weight(self, module, do_power_iteration: bool):
        """``name_orig / sigma``, after ``n_power_iterations`` in-place updates of ``u`` and ``v``
        when ``do_power_iteration``."""
        torch = _torch()
        F = torch.nn.functional
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with torch.no_grad():
                for _ in range(self.n_power_iterations):
                    v = F.normalize(torch.mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(torch.mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                u = u.clone()
                v = v.clone()
        sigma = torch.dot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module) -> None:
        """Put back one plain parameter ``name`` holding the current normalized weight."""
        torch = _torch()
        with torch.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, torch.nn.Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps) -> "SpectralNorm":
        """Reparametrize ``module``'s parameter ``name`` (PyTorch's ``SpectralNorm.apply``)."""
        torch = _torch()
        F = torch.nn.functional
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with torch.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = F.normalize(torch.empty(h, dtype=weight.dtype, device=weight.device).normal_(0, 1),
                            dim=0, eps=fn.eps)
            v = F.normalize(torch.empty(w, dtype=weight.dtype, device=weight.device).normal_(0, 1),
                            dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Apply spectral normalization to ``module``'s parameter ``name`` (see the module); returns
    ``module``. ``dim`` defaults to 0 (strided has no ``ConvTranspose`` modules, PyTorch's 1).

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(5, 5), n_power_iterations=30)
    >>> _ = m(torch.ones(1, 5))
    >>> round(float(torch.linalg.matrix_norm(m.weight.detach(), ord=2)), 3)
    1.0
    """
    if dim is None:
        dim = 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo ``spectral_norm`` on ``module``'s parameter ``name``; returns ``module`` (ValueError if absent)."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
