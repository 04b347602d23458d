# Adapted from PyTorch 2.13's torch/nn/utils/parametrize.py (BSD-3-Clause; Copyright (c) 2016- Facebook, Inc and the
# PyTorch contributors; see LICENSES/PyTorch.txt).
"""PyTorch's ``torch.nn.utils.parametrize``: a parameter or buffer computed from others on access.

``register_parametrization(module, "weight", P)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` (the same array object: an optimizer that held it
still does; ``P.right_inverse``, when ``P`` has one, rewrites it first, or splits it into
``original0``, ``original1``, ... when it returns a sequence) and makes ``weight`` a property of a
new class ``Parametrized<Class>``: reading it calls ``P(original)`` (several parametrizations
registered on one name are chained in a ``ParametrizationList``), writing it calls the
``right_inverse`` chain. The value is a composite of strided's recorded operations, so
gradients flow to ``original``. ``cached()`` computes each parametrized value once inside its
``with`` block. ``state_dict`` keys are PyTorch's (``parametrizations.weight.original``).
PyTorch's ``torch.__future__.set_swap_module_params_on_conversion`` path (``swap_tensors``)
does not exist here: ``original`` is always rewritten in place (``set_``'s meaning), as
PyTorch does by default.

>>> import strided.torch as torch
>>> class Symmetric(torch.nn.Module):
...     def forward(self, X):
...         return X.triu() + X.triu(1).mT
>>> m = torch.nn.utils.parametrize.register_parametrization(torch.nn.Linear(3, 3), "weight", Symmetric())
>>> bool((m.weight == m.weight.T).all()), type(m).__name__
(True, 'ParametrizedLinear')
>>> list(m.state_dict())
['bias', 'parametrizations.weight.original']
"""

from __future__ import annotations

import collections
import copyreg
import sys
from collections.abc import Sequence
from contextlib import contextmanager
from copy import deepcopy

from ...._core.array import Array
from ..modules import Module, ModuleDict, ModuleList
from ..parameter import Parameter, is_parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: dict = {}


def _torch():
    return sys.modules["strided.torch"]


@contextmanager
def cached():
    """Inside the ``with`` block, each parametrized tensor is computed once, on first access,
    and reused (PyTorch's ``parametrize.cached``); the cache is dropped when the outermost block
    exits.

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2))
    >>> with torch.nn.utils.parametrize.cached():
    ...     m.weight is m.weight
    True
    """
    global _cache
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, X) -> None:
    if is_parameter(X):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest, src) -> None:
    # PyTorch's dest.set_(src): dest (the same object) takes src's memory, shape and dtype
    dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and its ``original``
    (PyTorch's ``parametrize.ParametrizationList``; ``register_parametrization`` builds it).

    ``original`` (or ``original0``, ``original1``, ... when the last ``right_inverse`` returns a
    sequence) is the parameter or buffer the parametrizations compute from; calling the list
    returns the parametrized tensor.

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 3))
    >>> type(m.parametrizations.weight).__name__, m.parametrizations.weight.original1.shape
    ('ParametrizationList', strided.Size([3, 2]))
    """

    def __init__(self, modules, original, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        torch = _torch()
        original_shape = original.shape
        original_dtype = original.dtype
        with torch.no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Array) and not isinstance(new, Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Array)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the "
                                 f"dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the "
                                 f"device.\noriginal.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            with torch.no_grad():
                if new is not original:
                    _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Array):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element "
                                     f"{i} of the sequence with type {type(originali).__name__}.")
                if is_parameter(original):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Array):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the "
                                 "tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {Z.dtype}")
            if Z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the "
                                 "tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {Z.shape}")

    def right_inverse(self, value) -> None:
        """Set ``original`` from ``value`` through the parametrizations' ``right_inverse`` in
        reverse order (RuntimeError when one lacks it)."""
        torch = _torch()
        with torch.no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Array):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError("'right_inverse' must return a sequence of tensors. "
                                     f"Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of "
                                     f"length {self.ntensors}. Got a sequence of length "
                                     f"{len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Array):
                        raise ValueError("'right_inverse' must return a sequence of tensors or "
                                         f"reference-type opaques. Got element {i} of type "
                                         f"{type(tensor).__name__}.")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                         f"{tensor.dtype} while `original{i}` has dtype "
                                         f"{original_i.dtype}")
                    _maybe_set(original_i, tensor)

    def forward(self):
        """The parametrized tensor: the first parametrization of the originals, then the others
        in order."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            originals = (getattr(self, f"original{i}") for i in range(self.ntensors))
            x = self[0](*originals)
        curr_idx = 1
        while hasattr(self, str(curr_idx)):
            x = self[curr_idx](x)
            curr_idx += 1
        return x


def _inject_new_class(module) -> None:
    cls = module.__class__

    def default_deepcopy(self, memo):
        obj = memo.get(id(self), None)
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        object.__setattr__(replica, "__dict__", deepcopy(self.__dict__, memo))
        slots_to_save = copyreg._slotnames(self.__class__)
        for slot in slots_to_save:
            if hasattr(self, slot):
                setattr(replica, slot, deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). See:\n"
            "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    dct = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = default_deepcopy
    param_cls = type(f"Parametrized{cls.__name__}", (cls,), dct)
    module.__class__ = param_cls


def _inject_property(module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_cached_parametrization(parametrization):
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            return get_cached_parametrization(parametrization)
        return parametrization()

    def set_original(self, value) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name: str, parametrization, *, unsafe: bool = False):
    """Register ``parametrization`` (a Module) on ``module``'s parameter or buffer
    ``tensor_name``; returns ``module`` (PyTorch's ``parametrize.register_parametrization``).

    Afterwards ``module.<tensor_name>`` is ``parametrization(original)``, computed on every
    access, with ``original`` at ``module.parametrizations.<tensor_name>.original``. A second
    registration on the same name chains after the first. Unless ``unsafe``, the parametrization
    may not change the dtype or shape (ValueError). A parametrization's ``right_inverse`` (when
    present) initializes ``original`` and serves assignment to ``module.<tensor_name>``.

    >>> import strided.torch as torch
    >>> class Double(torch.nn.Module):
    ...     def forward(self, X):
    ...         return 2 * X
    >>> m = torch.nn.Linear(2, 2, bias=False)
    >>> w = m.weight
    >>> _ = torch.nn.utils.parametrize.register_parametrization(m, "weight", Double())
    >>> m.parametrizations.weight.original is w, bool((m.weight == 2 * w).all())
    (True, True)
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Array):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the "
                                 "tensor, unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.dtype: {Y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {X.dtype}")
            if X.shape != Y.shape:
                raise ValueError("Registering a parametrization may not change the shape of the "
                                 "tensor, unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.shape: {Y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {X.shape}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(Z, Array):
                        raise ValueError("parametrization.right_inverse must return a tensor. "
                                         f"Got: {type(Z).__name__}")
                    if Z.dtype != Y.dtype:
                        raise ValueError("The tensor returned by parametrization.right_inverse "
                                         f"must have the same dtype as module.{tensor_name}, "
                                         "unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.dtype: {Y.dtype}\n"
                                         f"returned dtype: {Z.dtype}")
                    if Z.shape != Y.shape:
                        raise ValueError("The tensor returned by parametrization.right_inverse "
                                         f"must have the same shape as module.{tensor_name}, "
                                         "unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.shape: {Y.shape}\n"
                                         f"returned shape: {Z.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given).

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2))
    >>> P = torch.nn.utils.parametrize
    >>> P.is_parametrized(m), P.is_parametrized(m, "weight"), P.is_parametrized(m, "bias")
    (True, True, False)
    """
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name: str, leave_parametrized: bool = True):
    """Remove the parametrizations on ``module``'s ``tensor_name``; returns ``module``.

    With ``leave_parametrized`` the tensor keeps its current parametrized value (written into
    ``original``, the same object); otherwise it becomes ``original`` again. A tensor
    parametrized from a sequence of originals can only be left parametrized (ValueError). The
    module gets its class back when no parametrization is left.

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2))
    >>> m = torch.nn.utils.parametrize.remove_parametrizations(m, "weight")
    >>> type(m).__name__, sorted(m.state_dict())
    ('Linear', ['bias', 'weight'])
    """
    torch = _torch()
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with torch.no_grad():
                t = getattr(module, tensor_name)
            with torch.no_grad():
                _maybe_set(original, t)
    else:
        if leave_parametrized:
            t = getattr(module, tensor_name)
            original = Parameter(t) if t.requires_grad else t
        else:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        orig_cls = module.__class__.__bases__[0]
        module.__class__ = orig_cls
    return module


def type_before_parametrizations(module) -> type:
    """The module's class before any parametrization was registered (``type(module)`` when it
    has none).

    >>> import strided.torch as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2))
    >>> torch.nn.utils.parametrize.type_before_parametrizations(m).__name__
    'Linear'
    """
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name: str | None = None):
    """Register ``from_module``'s parametrizations (all, or those on ``tensor_name``) on
    ``to_module`` too, sharing the parametrization modules and the ``original`` tensors;
    returns ``to_module``.

    >>> import strided.torch as torch
    >>> P = torch.nn.utils.parametrize
    >>> a = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2))
    >>> b = P.transfer_parametrizations_and_params(a, torch.nn.Linear(2, 2))
    >>> b.parametrizations.weight.original0 is a.parametrizations.weight.original0
    True
    """
    if is_parametrized(from_module):
        parameters_to_transfer = (from_module.parametrizations if tensor_name is None
                                  else [tensor_name])
        for parameter_name in parameters_to_transfer:
            if not hasattr(to_module, parameter_name):
                setattr(to_module, parameter_name,
                        Parameter(getattr(from_module, parameter_name)))
            for param_func in from_module.parametrizations[parameter_name]:
                register_parametrization(to_module, parameter_name, param_func)
            if hasattr(from_module.parametrizations[parameter_name], "original"):
                to_module.parametrizations[parameter_name].original = \
                    from_module.parametrizations[parameter_name].original
            else:
                num = 0
                orig_num = "original" + str(num)
                while hasattr(from_module.parametrizations[parameter_name], orig_num):
                    setattr(to_module.parametrizations[parameter_name], orig_num,
                            getattr(from_module.parametrizations[parameter_name], orig_num))
                    num = num + 1
                    orig_num = "original" + str(num)
    return to_module
