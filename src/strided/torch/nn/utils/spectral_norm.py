# Adapted from PyTorch 2.13's torch/nn/utils/spectral_norm.py (BSD-3-Clause; Copyright (c) 2016-
# Facebook, Inc and the PyTorch contributors; see LICENSES/PyTorch.txt).
"""PyTorch's hook-based ``torch.nn.utils.spectral_norm`` / ``remove_spectral_norm``.

``spectral_norm(module, name, n_power_iterations, eps, dim)`` keeps the parameter as
``name_orig`` and the power-iteration vectors as the buffers ``name_u`` and ``name_v`` (drawn
from strided's normal generator, then normalized: the same distribution as PyTorch's, not its
numbers), and before every forward sets ``name = name_orig / sigma`` with
``sigma = u . (W v)``, after ``n_power_iterations`` in-place updates of ``u`` and ``v`` in
training mode (none in eval mode), as PyTorch does. As PyTorch's, a state-dict hook writes the
``spectral_norm`` version into the state dict's metadata and a load-state-dict pre-hook loads a
state dict saved before PyTorch 1.0 (which holds ``name`` rather than ``name_v``).

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

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # (a v with u = normalize(W v) and u . W v = sigma; pinv in case W^T W is singular)
        torch = _torch()
        v = torch.linalg.multi_dot([weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(),
                                    u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / torch.dot(u, torch.mv(weight_mat, v)))

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
        if isinstance(weight, torch.nn.UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
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
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """The load-state-dict pre-hook ``spectral_norm`` registers: a state dict without the
    ``spectral_norm`` version (saved before PyTorch 1.0) holds ``name`` and no ``name_v``;
    ``name_v`` is solved from ``name_orig``, ``name_u`` and ``sigma = mean(name_orig / name)``
    (PyTorch's ``SpectralNormLoadStateDictPreHook``)."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs) -> None:
        torch = _torch()
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is None or version < 1:
            weight_key = prefix + fn.name
            if (version is None
                    and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
                    and weight_key not in state_dict):
                # (a state dict of the current layout without metadata: taken as current)
                return
            has_missing_keys = False
            for suffix in ("_orig", "", "_u"):
                key = weight_key + suffix
                if key not in state_dict:
                    has_missing_keys = True
                    if strict:
                        missing_keys.append(key)
            if has_missing_keys:
                return
            with torch.no_grad():
                weight_orig = _as_array(state_dict[weight_key + "_orig"])
                weight = _as_array(state_dict.pop(weight_key))
                sigma = (weight_orig / weight).mean()
                weight_mat = fn.reshape_weight_to_matrix(weight_orig)
                u = _as_array(state_dict[weight_key + "_u"])
                v = fn._solve_v_and_rescale(weight_mat, u, sigma)
                state_dict[weight_key + "_v"] = v


def _as_array(x):
    import strided
    return x if type(x) is strided.Array else strided.asarray(x)


class SpectralNormStateDictHook:
    """The state-dict hook ``spectral_norm`` registers: it writes
    ``{"spectral_norm": {name + ".version": 1}}`` into the module's metadata (PyTorch's
    ``SpectralNormStateDictHook``)."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Apply spectral normalization to ``module``'s parameter ``name`` (see the module); returns
    ``module``. ``dim`` defaults to 1 for ``ConvTranspose1d/2d/3d`` and 0 otherwise, as PyTorch's.

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(5, 5), n_power_iterations=30)
    >>> _ = m(torch.ones(1, 5))
    >>> round(float(torch.linalg.matrix_norm(m.weight.detach(), ord=2)), 3)
    1.0
    """
    if dim is None:
        nn = _torch().nn
        if isinstance(module, (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)):
            dim = 1
        else:
            dim = 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo ``spectral_norm`` on ``module``'s parameter ``name``; returns ``module`` (ValueError if absent)."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for k, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
            break
    # Note: as PyTorch's, the load pre-hook stays (it is registered wrapped, so this loop does
    # not find it): a strict load of a state dict without "name_orig" then reports it missing.
    for k, hook in module._load_state_dict_pre_hooks.items():
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[k]
            break
    return module
