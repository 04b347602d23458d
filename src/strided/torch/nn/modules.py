# The hooks and the state-dict walk of Module (_call_with_hooks, state_dict, load_state_dict,
# _load_from_state_dict and their messages) are adapted from PyTorch 2.13's
# torch/nn/modules/module.py (BSD-3-Clause; Copyright (c) 2016- Facebook, Inc and the PyTorch
# contributors; see LICENSES/PyTorch.txt).
"""``Module`` and the layers, activations, losses and containers built on it.

A port of the behaviour of ``torch/nn/modules/module.py`` on strided's
arrays: assigning a ``Parameter`` or a ``Module`` as an attribute registers it
(in ``_parameters`` / ``_modules``, in assignment order), ``register_buffer``
registers a non-trainable array, and everything that walks a module
(``parameters``, ``named_modules``, ``state_dict``, ``to``, ``zero_grad``)
walks those registries in that order, so names and orders equal PyTorch's.

Invariants: ``to``/``cuda``/``float`` keep each parameter object (they replace
its ``data``), so an optimizer built before the move still holds the live
parameters; ``load_state_dict`` copies into the existing arrays under
``no_grad``, module by module through ``_load_from_state_dict`` and the state-dict hooks in
PyTorch's order (so, as PyTorch's, the entries that fit are copied even when it then raises
for a size mismatch).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import math
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import strided as _st
from strided import Array
from strided._core.caller import stacklevel

from . import functional as F
from . import init
from .parameter import Parameter, is_parameter
from .._methods import to_arguments

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "Identity", "Linear",
    "Bilinear", "Embedding", "Flatten", "Unflatten", "Dropout",
    "ReLU", "ReLU6", "Tanh", "Sigmoid", "Hardtanh", "Softplus", "LeakyReLU", "GELU", "SiLU",
    "ELU", "SELU", "CELU", "Mish", "Softsign", "Hardsigmoid", "Hardswish", "LogSigmoid",
    "Tanhshrink", "Softmax", "Softmin", "LogSoftmax",
    "MSELoss", "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
    "SmoothL1Loss", "HuberLoss",
]


def _buffer_mark(x):
    """``x``'s persistent flag when it is an unregistered ``nn.Buffer(...)``, else None."""
    global _buffer_mark
    from ._loss_extra_modules import take_buffer_marker
    _buffer_mark = take_buffer_marker  # (the import once)
    return take_buffer_marker(x)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the named tuple ``(missing_keys, unexpected_keys)``."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _array_like(x) -> bool:
    """Whether ``x`` is an array ``strided.asarray`` converts (NumPy, DLPack, CUDA arrays)."""
    return any(hasattr(x, a) for a in ("__array__", "__array_interface__", "__dlpack__",
                                       "__cuda_array_interface__"))


class _WrappedHook:
    """A hook called with its module (held weakly) first, when ``with_module`` (PyTorch's)."""

    def __init__(self, hook, module=None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict:
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state: dict) -> None:
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * n + line for line in lines)


class _Handle:
    """Removes a hook from its dict (``handle.remove()``)."""

    _ids = itertools.count()

    def __init__(self, hooks: dict, *, extra_dict=None):
        self.hooks = hooks
        self.id = next(self._ids)
        if isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self.extra_dicts = tuple(extra_dict or ())

    def remove(self) -> None:
        """Remove the hook (and its entries in the registries of its options)."""
        self.hooks.pop(self.id, None)
        for d in self.extra_dicts:
            d.pop(self.id, None)

    def __enter__(self) -> "_Handle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class Module:
    """Base class of every layer (PyTorch's ``nn.Module``).

    Subclasses call ``super().__init__()`` then assign their parameters,
    buffers and submodules as attributes, and define ``forward``; calling the
    module runs the forward pre-hooks, ``forward`` and the forward hooks.

    >>> import strided.torch as torch
    >>> class Net(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = torch.nn.Linear(2, 1)
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> [name for name, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    """

    training: bool
    call_super_init: bool = False  # (PyTorch's class flags, read by some subclasses)
    dump_patches: bool = False
    _version: int = 1  # (the state dict's metadata "version"; subclasses raise it)

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments "
                            f"{args or ''}{kwargs or ''}")
        sa = object.__setattr__
        sa(self, "training", True)
        sa(self, "_parameters", {})
        sa(self, "_buffers", {})
        sa(self, "_non_persistent_buffers_set", set())
        sa(self, "_modules", {})
        sa(self, "_forward_hooks", OrderedDict())
        sa(self, "_forward_hooks_with_kwargs", OrderedDict())
        sa(self, "_forward_hooks_always_called", OrderedDict())
        sa(self, "_forward_pre_hooks", OrderedDict())
        sa(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        sa(self, "_backward_pre_hooks", OrderedDict())
        sa(self, "_backward_hooks", OrderedDict())
        sa(self, "_is_full_backward_hook", None)
        sa(self, "_state_dict_hooks", OrderedDict())
        sa(self, "_state_dict_pre_hooks", OrderedDict())
        sa(self, "_load_state_dict_pre_hooks", OrderedDict())
        sa(self, "_load_state_dict_post_hooks", OrderedDict())

    def forward(self, *args, **kwargs):
        """The computation of the module; subclasses define it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        try:
            hooked = (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_hooks"]
                      or d["_backward_pre_hooks"])
        except KeyError:  # (no Module.__init__, or unpickled from before the hooks existed)
            hooked = True
        if not hooked:  # (no hooks: no tuples built)
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        # A port of PyTorch's Module._call_impl (without the global hooks).
        fwd_pre_kw = self._hook_dict("_forward_pre_hooks_with_kwargs")
        fwd_kw = self._hook_dict("_forward_hooks_with_kwargs")
        always = self._hook_dict("_forward_hooks_always_called")
        called_always = set()
        result = None
        try:
            full_backward_hooks, non_full_backward_hooks = [], []
            backward_pre_hooks = list(self._hook_dict("_backward_pre_hooks").values())
            bw = self._hook_dict("_backward_hooks")
            if bw:
                if self.__dict__.get("_is_full_backward_hook") is True:
                    full_backward_hooks = list(bw.values())
                elif self.__dict__.get("_is_full_backward_hook") is False:
                    non_full_backward_hooks = list(bw.values())
            for hook_id, hook in tuple(self._forward_pre_hooks.items()):
                if hook_id in fwd_pre_kw:
                    r = hook(self, args, kwargs)
                    if r is not None:
                        if isinstance(r, tuple) and len(r) == 2:
                            args, kwargs = r
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {r}.")
                else:
                    r = hook(self, args)
                    if r is not None:
                        args = r if isinstance(r, tuple) else (r,)
            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                from ._backward_hooks import BackwardHook
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in tuple(self._forward_hooks.items()):
                if hook_id in always:
                    called_always.add(hook_id)
                r = hook(self, args, kwargs, result) if hook_id in fwd_kw else \
                    hook(self, args, result)
                if r is not None:
                    result = r
            if bw_hook:
                if not isinstance(result, (Array, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  f"Tensor or a tuple of Tensors but received {type(result)}",
                                  stacklevel=stacklevel())
                result = bw_hook.setup_output_hook(result)
            if non_full_backward_hooks:
                var = result
                while type(var) is not Array:
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if type(v) is Array)
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_backward_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result
        except Exception:
            for hook_id, hook in tuple(self._forward_hooks.items()):
                if hook_id in always and hook_id not in called_always:
                    try:
                        r = hook(self, args, kwargs, result) if hook_id in fwd_kw else \
                            hook(self, args, result)
                        if r is not None:
                            result = r
                    except Exception as e:  # noqa: BLE001 - PyTorch's: warned, the first raised
                        warnings.warn("module forward hook with ``always_call=True`` raised an "
                                      "exception that was silenced as another error was raised "
                                      f"in forward: {e}", stacklevel=stacklevel())
                        continue
            raise

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn) -> None:
        if type(result) is not Array:
            if not (isinstance(result, tuple) and all(type(r) is Array for r in result)):
                warnings.warn("Using non-full backward hooks on a Module that does not return a "
                              "single Tensor or a tuple of Tensors is deprecated and will be "
                              "removed in future versions. This hook will be missing some of the "
                              "grad_output. Please use register_full_backward_hook to get the "
                              "documented behavior.", FutureWarning, stacklevel=stacklevel())
                return
        else:
            result = (result,)
        if type(inputs) is not Array:
            if not (isinstance(inputs, tuple) and all(type(i) is Array for i in inputs)):
                warnings.warn("Using non-full backward hooks on a Module that does not take as "
                              "input a single Tensor or a tuple of Tensors is deprecated and will "
                              "be removed in future versions. This hook will be missing some of "
                              "the grad_input. Please use register_full_backward_hook to get the "
                              "documented behavior.", FutureWarning, stacklevel=stacklevel())
                return
        else:
            inputs = (inputs,)
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn("Using a non-full backward hook when outputs are nested in python data "
                          "structure is deprecated and will be removed in future versions. This "
                          "hook will be missing some grad_output.", FutureWarning, stacklevel=stacklevel())
        elif len(out_grad_fn) > 1:
            warnings.warn("Using a non-full backward hook when outputs are generated by different "
                          "autograd Nodes is deprecated and will be removed in future versions. "
                          "This hook will be missing some grad_output. Please use "
                          "register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=stacklevel())
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn("Using a non-full backward hook when the forward contains multiple "
                              "autograd Nodes is deprecated and will be removed in future "
                              "versions. This hook will be missing some grad_input. Please use "
                              "register_full_backward_hook to get the documented behavior.",
                              FutureWarning, stacklevel=stacklevel())

    def _add_hook(self, name: str, hook, prepend: bool = False, extra=()) -> _Handle:
        hooks = self._hook_dict(name)
        h = _Handle(hooks, extra_dict=[self._hook_dict(e) for e in extra])
        hooks[h.id] = hook
        if prepend:
            hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> _Handle:
        """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
        output)``) runs after ``forward``; a non-None result replaces the output.
        ``prepend``: before the hooks already registered; ``always_call``: also when
        ``forward`` raised."""
        h = self._add_hook("_forward_hooks", hook, prepend,
                           ("_forward_hooks_with_kwargs", "_forward_hooks_always_called"))
        if with_kwargs:
            self._hook_dict("_forward_hooks_with_kwargs")[h.id] = True
        if always_call:
            self._hook_dict("_forward_hooks_always_called")[h.id] = True
        return h

    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> _Handle:
        """``hook(module, args)`` runs before ``forward``; a non-None result replaces the args
        (``with_kwargs``: ``hook(module, args, kwargs)`` returns None or ``(args, kwargs)``).
        ``prepend``: before the hooks already registered."""
        h = self._add_hook("_forward_pre_hooks", hook, prepend,
                           ("_forward_pre_hooks_with_kwargs",))
        if with_kwargs:
            self._hook_dict("_forward_pre_hooks_with_kwargs")[h.id] = True
        return h

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> _Handle:
        """``hook(module, grad_output) -> None or a new grad_output`` runs when the gradients
        of the module's outputs are known (``grad_output`` a tuple, None for non-array
        outputs). As PyTorch's, ``forward`` then gets views of its array inputs and the caller
        views of the outputs."""
        return self._add_hook("_backward_pre_hooks", hook, prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False) -> _Handle:
        """``hook(module, grad_input, grad_output) -> None or a new grad_input`` runs when the
        gradients of the module's positional array inputs are known (or, if none requires
        grad, those of its outputs); entries are None for non-array arguments. As PyTorch's,
        ``forward`` then gets views of its array inputs and the caller views of the outputs."""
        if self.__dict__.get("_is_full_backward_hook") is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", True)
        return self._add_hook("_backward_hooks", hook, prepend)

    def register_backward_hook(self, hook) -> _Handle:
        """The deprecated backward hook: ``hook(module, grad_input, grad_output)`` is a hook
        on the autograd node that made the module's output, so ``grad_input`` holds the
        gradients of that node's inputs (PyTorch's rule). Note: strided's nodes are not
        always PyTorch's (a ``Linear`` is one ``AddmmBackward0`` node in PyTorch, not in
        strided), so ``grad_input`` can differ where the forward is not one operation; use
        ``register_full_backward_hook``."""
        if self.__dict__.get("_is_full_backward_hook") is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", False)
        return self._add_hook("_backward_hooks", hook)

    # --- registration --------------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        if "_parameters" not in d:
            raise AttributeError("cannot assign to a Module before Module.__init__() call")
        params, modules, buffers = d["_parameters"], d["_modules"], d["_buffers"]
        if is_parameter(value):
            self._drop(name)
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            self._drop(name)
            modules[name] = value
        elif type(value) is Array and (persistent := _buffer_mark(value)) is not None:
            self._drop(name)  # (nn.Buffer(t): registered as a buffer)
            self.register_buffer(name, value, persistent)
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(strided.torch.nn.Parameter or None expected)")
            params[name] = None
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (strided.torch.nn.Module or None expected)")
            modules[name] = None
        elif name in buffers:
            if value is not None and type(value) is not Array:
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(a strided array or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _drop(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for key in ("_parameters", "_modules", "_buffers"):
            self.__dict__[key].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            reg = d.get(key)
            if reg is not None and name in reg:
                return reg[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for key in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__[key]:
                del self.__dict__[key][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    @staticmethod
    def _check_name(kind: str, name) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string; got {type(name).__name__}")
        if name == "" or "." in name:
            raise KeyError(f"{kind} name can't be empty or contain \".\"; got {name!r}")

    def register_parameter(self, name: str, param) -> None:
        """Register ``param`` (a ``Parameter`` or None) as the parameter ``name``."""
        self._check_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not is_parameter(param):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (strided.torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf array to parameter '{name}'. Model "
                             "parameters must be created explicitly (use .detach()).")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Register ``tensor`` (an array or None) as the buffer ``name`` (in ``state_dict``
        unless ``persistent=False``)."""
        self._check_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and type(tensor) is not Array:
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            "(a strided array or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module) -> None:
        """Register ``module`` (a ``Module`` or None) as the child ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> "Module":
        """The submodule at the dotted path ``target`` ("" is the module itself)."""
        mod = self
        for item in target.split(".") if target else ():
            if item not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target: str) -> Array:
        """The parameter at the dotted path ``target``."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._parameters or mod._parameters[name] is None:
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return mod._parameters[name]

    def get_buffer(self, target: str) -> Array:
        """The buffer at the dotted path ``target`` (PyTorch's ``get_buffer``)."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    def set_submodule(self, target: str, module, strict: bool = False) -> None:
        """Set the submodule at the dotted path ``target`` to ``module`` (its parent must
        exist; with ``strict``, the attribute too; an existing attribute must be a module)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(f"{parent._get_name()} has no attribute `{atoms[-1]}`")
        if hasattr(parent, atoms[-1]):
            if not isinstance(getattr(parent, atoms[-1]), Module):
                raise AttributeError(f"`{atoms[-1]}` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    # --- walking -------------------------------------------------------------------
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Yield ``(dotted name, module)`` for this module and every descendant, once each."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self, remove_duplicate: bool = True):
        """Yield this module and every descendant (a shared one once, unless
        ``remove_duplicate=False``)."""
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_children(self):
        """Yield ``(name, module)`` for the direct children."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        """Yield the direct children."""
        for _, m in self.named_children():
            yield m

    def _named_members(self, get, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for mod_prefix, mod in mods:
            for k, v in get(mod):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield mod_prefix + ("." if mod_prefix else "") + k, v

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        """Yield ``(dotted name, parameter)``, each shared parameter once."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def parameters(self, recurse: bool = True):
        """Yield the parameters (a generator, as PyTorch's)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Yield ``(dotted name, buffer)``."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse: bool = True):
        """Yield the buffers."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn) -> "Module":
        """Call ``fn`` on every descendant (children first), then on this module; returns self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # --- state ---------------------------------------------------------------------
    # A port of PyTorch 2.13's torch/nn/modules/module.py (state_dict, _save_to_state_dict,
    # load_state_dict, _load_from_state_dict and their hooks), in its order of hooks and with
    # its messages.
    def _hook_dict(self, name: str) -> dict:
        d = self.__dict__
        hooks = d.get(name)
        if hooks is None:  # (a module unpickled or built without these registries)
            hooks = d[name] = OrderedDict()
        return hooks

    def _register_state_dict_hook(self, hook) -> _Handle:
        """Register ``hook(module, state_dict, prefix, local_metadata)`` to run after
        ``state_dict``; a non-None result replaces the state dict when the hook is on the root
        module (PyTorch's private ``_register_state_dict_hook``)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        hooks = self._hook_dict("_state_dict_hooks")
        h = _Handle(hooks)
        hooks[h.id] = hook
        return h

    def register_state_dict_post_hook(self, hook) -> _Handle:
        """Register ``hook(module, state_dict, prefix, local_metadata) -> None`` to run after
        ``state_dict`` (it may change the state dict in place; returning a value raises)."""
        hook._from_public_api = True
        hooks = self._hook_dict("_state_dict_hooks")
        h = _Handle(hooks)
        hooks[h.id] = hook
        return h

    def register_state_dict_pre_hook(self, hook) -> _Handle:
        """Register ``hook(module, prefix, keep_vars) -> None`` to run before ``state_dict``."""
        hooks = self._hook_dict("_state_dict_pre_hooks")
        h = _Handle(hooks)
        hooks[h.id] = hook
        return h

    def get_extra_state(self):
        """The extra (non-array) state to put in ``state_dict`` under ``"_extra_state"``;
        subclasses that override it also override ``set_extra_state``."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called.")

    def set_extra_state(self, state) -> None:
        """Take the extra state ``get_extra_state`` returned, from a loaded state dict;
        subclasses override it."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called.")

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        """Put this module's own parameters and persistent buffers (not its descendants') in
        ``destination`` under ``prefix``; subclasses may override it."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if getattr(type(self), "get_extra_state", Module.get_extra_state) \
                is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An ``OrderedDict`` of the parameters and persistent buffers by dotted name
        (detached arrays sharing their memory, unless ``keep_vars``), with each module's
        ``{"version": module._version}`` in its ``_metadata`` attribute; the state-dict pre-
        and post-hooks run around each module's part."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=stacklevel())
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in tuple(self._hook_dict("_state_dict_pre_hooks").values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
        for hook in tuple(self._hook_dict("_state_dict_hooks").values()):
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if result is not None:
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False) -> _Handle:
        """Register ``hook(state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` to run before this module loads its part of a state
        dict (with ``with_module``, the module comes first, as in
        ``register_load_state_dict_pre_hook``)."""
        hooks = self._hook_dict("_load_state_dict_pre_hooks")
        h = _Handle(hooks)
        hooks[h.id] = _WrappedHook(hook, self if with_module else None)
        return h

    def register_load_state_dict_pre_hook(self, hook) -> _Handle:
        """Register ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) -> None`` to run before this module loads its part of a
        state dict (it may change ``state_dict``, a copy, in place)."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook) -> _Handle:
        """Register ``hook(module, incompatible_keys) -> None`` to run after this module and
        its descendants loaded (it may change the key lists in place, which ``strict`` then
        sees; returning a value raises)."""
        hooks = self._hook_dict("_load_state_dict_post_hooks")
        h = _Handle(hooks)
        hooks[h.id] = hook
        return h

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """Copy the entries of ``state_dict`` under ``prefix`` into this module's own
        parameters and persistent buffers (not its descendants'), after the load-state-dict
        pre-hooks; append to ``missing_keys``/``unexpected_keys``/``error_msgs``. Subclasses
        override it for version-dependent loading (``local_metadata.get("version")``).

        Values may be strided arrays or array-likes ``strided.asarray`` takes (NumPy arrays),
        which are converted onto the parameter's device."""
        for hook in tuple(self._hook_dict("_load_state_dict_pre_hooks").values()):
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        from ._lazy import is_lazy
        local_state = {k: v for k, v in itertools.chain(
            self._parameters.items(),
            ((k, v) for k, v in self._buffers.items()
             if k not in self._non_persistent_buffers_set)) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if type(input_param) is not Array:
                if not _array_like(input_param):
                    error_msgs.append(f'While copying the parameter named "{key}", expected '
                                      "torch.Tensor or Tensor-like object from checkpoint but "
                                      f"received {type(input_param)}")
                    continue
                try:
                    input_param = _st.asarray(input_param, device=param.device)
                except Exception as e:  # noqa: BLE001 - reported with its key
                    error_msgs.append(f'While copying the parameter named "{key}", whose '
                                      f"dimensions in the model are {_st.Size(param.shape)}, an "
                                      f"exception occurred : {e.args}.")
                    continue
            lazy = is_lazy(param)
            # (a 1-dim, one-element entry loads into a 0-dim parameter: PyTorch 0.3's)
            if not lazy and param.ndim == 0 and input_param.shape == (1,):
                input_param = input_param[0]
            if not lazy and tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{_st.Size(input_param.shape)} from checkpoint, the shape in "
                                  f"current model is {_st.Size(param.shape)}.")
                continue
            try:
                with _st.no_grad():
                    if assign:
                        if is_parameter(param):
                            if is_parameter(input_param):
                                input_param.requires_grad_(param.requires_grad)
                            else:
                                input_param = Parameter(input_param,
                                                        requires_grad=param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        if input_param.device != param.device:
                            input_param = input_param.to(param.device)
                        param.copy_(input_param)
            except Exception as ex:  # noqa: BLE001 - reported with its key, as PyTorch's
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                                  f"in the model are {_st.Size(param.shape)} and whose "
                                  f"dimensions in the checkpoint are "
                                  f"{_st.Size(input_param.shape)}, an exception occurred : "
                                  f"{ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(type(self), "set_extra_state", Module.set_extra_state) \
                is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Load ``state_dict`` into this module and its descendants (PyTorch's order: each
        module's ``_load_from_state_dict`` with its pre-hooks, then its children, then its
        post-hooks).

        Values may be strided arrays or array-likes ``strided.asarray`` takes (NumPy arrays);
        they are copied into the existing parameters and buffers (``assign=True``: they
        replace them, keeping each parameter's ``requires_grad``). With ``strict``, missing
        and unexpected keys raise. Returns ``_IncompatibleKeys(missing_keys,
        unexpected_keys)``. As PyTorch's, the entries that fit are copied even when another
        entry raises (a size mismatch).
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items()
                                        if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in tuple(module._hook_dict("_load_state_dict_post_hooks").values()):
                out = hook(module, incompatible_keys)
                if out is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")

        load(self, state_dict)
        del load
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # --- modes and gradients -------------------------------------------------------
    def train(self, mode: bool = True) -> "Module":
        """Set training mode (``training``) on this module and its descendants; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> "Module":
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Set ``requires_grad`` on every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the parameters' gradients: to None (default, as PyTorch 2) or to zeros."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    # --- moving and casting --------------------------------------------------------
    def _apply(self, fn, recurse: bool = True) -> "Module":
        if recurse:
            for m in self.children():
                m._apply(fn)
        with _st.no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                new = fn(p)
                if new is not p:
                    g = p.grad
                    p.data = new
                    if g is not None:
                        p.grad = fn(g)
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """Move (``to(device)``) and/or cast (``to(dtype)``, floating-point only) in place;
        returns self. Parameters stay the same objects."""
        if "copy" in kwargs:
            raise TypeError("to() got unexpected keyword arguments ['copy']")  # (as PyTorch's Module.to)
        kwargs = dict(kwargs)
        fmt = kwargs.pop("memory_format", None)  # (PyTorch's: applied to the 4-D and 5-D tensors)
        device, dtype, _ = to_arguments(args, kwargs)
        if dtype is not None and dtype.kind not in "fc":
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, "
                            f"but got desired dtype={dtype.name}")

        def convert(t):
            if dtype is not None and t.dtype.kind in "fc" and t.dtype != dtype:
                t = t.to(dtype)
            if device is not None:
                t = t.to(device)
            if fmt is not None and t.ndim in (4, 5):
                t = t.to(memory_format=fmt)
            return t
        return self._apply(convert)

    def cuda(self, device=None) -> "Module":
        """Move every parameter and buffer to a CUDA device; returns self."""
        return self.to("cuda" if device is None else
                       (f"cuda:{device}" if isinstance(device, int) else device))

    def cpu(self) -> "Module":
        """Move every parameter and buffer to the CPU; returns self."""
        return self.to("cpu")

    def float(self) -> "Module":
        """Cast floating-point parameters and buffers to float32 (complex ones stay, as in
        PyTorch); returns self."""
        return self._apply(lambda t: t.to(_st.float32) if t.dtype.kind == "f" else t)

    def double(self) -> "Module":
        """Cast floating-point parameters and buffers to float64 (complex ones stay); returns
        self."""
        return self._apply(lambda t: t.to(_st.float64) if t.dtype.kind == "f" else t)

    def half(self) -> "Module":
        """Cast floating-point parameters and buffers to float16 (complex ones stay); returns
        self."""
        return self._apply(lambda t: t.to(_st.float16) if t.dtype.kind == "f" else t)

    def bfloat16(self) -> "Module":
        """PyTorch's cast to bfloat16: strided has no bfloat16 dtype, so a TypeError."""
        raise TypeError("Module.bfloat16(): strided has no bfloat16 dtype (float16, float32 and "
                        "float64 are supported: use half(), float() or double())")

    def type(self, dst_type) -> "Module":
        """Cast every parameter and buffer to ``dst_type`` (a dtype or a PyTorch tensor type
        name, as ``Array.type``); returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse: bool = True) -> "Module":
        """Move the parameters and buffers to ``device`` without copying their values
        (uninitialized arrays of the same shapes and dtypes); returns self."""
        return self._apply(lambda t: _st.empty_like(t, device=device), recurse=recurse)

    def compile(self, *args, **kwargs) -> None:
        """PyTorch's ``Module.compile(*args, **kwargs)``: compile the module's call in place.
        strided compiles nothing (see ``strided.torch.compile``, which checks the arguments):
        the module keeps meaning what it meant; returns None, as PyTorch's."""
        import sys
        sys.modules["strided.torch"].compile(self, *args, **kwargs)

    def _no_device(self, kind: str):
        raise RuntimeError(f"Module.{kind}(): strided has no {kind} devices (cpu and cuda are "
                           "supported)")

    def xpu(self, device=None) -> "Module":
        """PyTorch's move to an XPU device: strided has none, so a RuntimeError."""
        self._no_device("xpu")

    def ipu(self, device=None) -> "Module":
        """PyTorch's move to an IPU device: strided has none, so a RuntimeError."""
        self._no_device("ipu")

    def mtia(self, device=None) -> "Module":
        """PyTorch's move to an MTIA device: strided has none, so a RuntimeError."""
        self._no_device("mtia")

    def share_memory(self) -> "Module":
        """PyTorch's move of every array to shared memory (for ``torch.multiprocessing``):
        strided has no shared-memory storage, so a RuntimeError."""
        raise RuntimeError("Module.share_memory(): strided arrays have no shared-memory storage "
                           "(torch.multiprocessing is not supported)")

    # --- printing ------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own line in its repr (subclasses override it)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(m), 2) for key, m in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


# --- containers -------------------------------------------------------------------------

class _ModuleSequence(Module):
    """What ``Sequential`` and ``ModuleList`` share: submodules addressed by position
    (negative positions count from the end; an out-of-range one is an IndexError), and
    renumbered ``"0"``, ``"1"``, ... after a deletion or an insertion, as PyTorch does.
    Subclasses say how a slice is rebuilt (``_sliced``)."""

    def _sliced(self, items: list):
        raise NotImplementedError

    def _index(self, idx: int) -> int:
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return idx % n

    def _renumber(self, mods: list) -> None:
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self._sliced(list(self._modules.items())[idx])
        return list(self._modules.values())[self._index(idx)]

    def __setitem__(self, idx: int, module) -> None:
        self.add_module(list(self._modules)[self._index(idx)], module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[self._index(idx)]]):
            del self._modules[key]
        self._renumber(list(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        """Add each of ``modules`` at the end; returns self."""
        for m in modules:
            self.append(m)
        return self

    def _insert(self, index: int, module) -> None:
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._renumber(mods)


class Sequential(_ModuleSequence):
    """Modules applied one after another: ``Sequential(m1, m2)`` or ``Sequential(OrderedDict)``.

    >>> import strided.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    >>> len(net), type(net[1]).__name__
    (2, 'ReLU')
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _sliced(self, items):
        return type(self)(OrderedDict(items))  # (a slice keeps the modules' names)

    def insert(self, index: int, module) -> "Sequential":
        """Insert ``module`` before position ``index``; returns self."""
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        self._insert(index if index >= 0 else index + n, module)
        return self

    def forward(self, input):
        """Apply each module in turn."""
        for module in self:
            input = module(input)
        return input


class ModuleList(_ModuleSequence):
    """A list of modules, registered (PyTorch's ``nn.ModuleList``).

    >>> import strided.torch as torch
    >>> layers = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])
    >>> len(list(layers.parameters()))
    6
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _sliced(self, items):
        return type(self)([m for _, m in items])

    def __iadd__(self, modules) -> "ModuleList":
        return self.extend(modules)

    def insert(self, index: int, module) -> None:
        """Insert ``module`` before position ``index``."""
        self._insert(index, module)

    def __repr__(self) -> str:
        # Note: PyTorch's ModuleList repr compresses runs of equal reprs: "(0-2): 3 x ...".
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = [[0, 0, reprs[0]]]
        for i, r in enumerate(reprs[1:], 1):
            if r == blocks[-1][2]:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = []
        for start, end, r in blocks:
            local = f"({start}): {r}" if start == end else f"({start}-{end}): {end - start + 1} x {r}"
            lines.append(_addindent(local, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, registered in insertion order (PyTorch's ``nn.ModuleDict``).

    >>> import strided.torch as torch
    >>> d = torch.nn.ModuleDict({"act": torch.nn.ReLU()})
    >>> list(d.keys())
    ['act']
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def keys(self):
        """The keys, in insertion order."""
        return self._modules.keys()

    def items(self):
        """The ``(key, module)`` pairs."""
        return self._modules.items()

    def values(self):
        """The modules."""
        return self._modules.values()

    def pop(self, key: str) -> Module:
        """Remove and return the module at ``key``."""
        return self._modules.pop(key)

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def update(self, modules) -> None:
        """Add the modules of a mapping or of ``(key, module)`` pairs."""
        items = modules.items() if hasattr(modules, "items") else modules
        for key, m in items:
            self[key] = m


class ParameterList(Module):
    """A list of parameters, registered (PyTorch's ``nn.ParameterList``).

    >>> import strided.torch as torch
    >>> ps = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2))])
    >>> len(list(ps.parameters()))
    1
    """

    def __init__(self, values=None):
        super().__init__()
        for v in values or ():
            self.append(v)

    def __len__(self) -> int:
        return len(self._parameters)

    def __getitem__(self, idx: int) -> Array:
        return list(self._parameters.values())[idx]

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, value) -> "ParameterList":
        """Add ``value`` (made a Parameter if it is a plain array); returns self."""
        if not is_parameter(value):
            value = Parameter(value)
        self.register_parameter(str(len(self)), value)
        return self

    def extra_repr(self) -> str:
        """One line per parameter, as PyTorch's: ``(0): Parameter containing: [float64 of size
        2x3]`` (its dtype, its sizes, and its device when that is cuda)."""
        lines = []
        for k, p in enumerate(self):
            size = "x".join(str(s) for s in p.shape)
            dev = f" ({p.device})" if p.device.type == "cuda" else ""
            lines.append(f"  ({k}): Parameter containing: [{p.dtype} of size {size}{dev}]")
        return "\n".join(lines)


# --- layers -----------------------------------------------------------------------------

def _factory(device, dtype):
    return {"device": device, "dtype": dtype if dtype is not None else _st.get_default_dtype()}


class Identity(Module):
    """Returns its input (arguments are accepted and ignored, as PyTorch).

    >>> import strided.torch as torch
    >>> x = torch.ones(2)
    >>> torch.nn.Identity()(x) is x
    True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        """Return ``input``."""
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` with PyTorch's default initialisation.

    ``weight`` (out_features, in_features) and ``bias`` are drawn from
    ``U(-1/sqrt(in_features), 1/sqrt(in_features))`` (``kaiming_uniform_`` with
    ``a=sqrt(5)``, as PyTorch).

    >>> import strided.torch as torch
    >>> torch.nn.Linear(4, 2)
    Linear(in_features=4, out_features=2, bias=True)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        kw = _factory(device, dtype)
        self.weight = Parameter(_st.empty((out_features, in_features), **kw))
        if bias:
            self.bias = Parameter(_st.empty((out_features,), **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again (PyTorch's default initialisation)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        """``linear(input, weight, bias)``."""
        d = self.__dict__
        ps = d.get("_parameters")
        if type(self) is Linear and type(ps) is dict and "weight" in ps and "bias" in ps \
                and "weight" not in d and "bias" not in d:
            # (self.weight and self.bias as attribute lookup finds them here: no instance
            # attribute, no class attribute of a subclass, so Module.__getattr__'s
            # registered parameters, read without its two frames)
            return F.linear(input, ps["weight"], ps["bias"])
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """``y = x1 @ weight[k] @ x2 + bias[k]`` for each output ``k``.

    >>> import strided.torch as torch
    >>> torch.nn.Bilinear(2, 3, 4)
    Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        kw = _factory(device, dtype)
        self.weight = Parameter(_st.empty((out_features, in1_features, in2_features), **kw))
        if bias:
            self.bias = Parameter(_st.empty((out_features,), **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again (``U(-1/sqrt(in1), 1/sqrt(in1))``, as PyTorch)."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        """``bilinear(input1, input2, weight, bias)``."""
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim`` (``N(0, 1)``).

    >>> import strided.torch as torch
    >>> torch.nn.Embedding(10, 3)
    Embedding(10, 3)
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight=None, _freeze: bool = False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError("Padding_idx must be within num_embeddings")
            padding_idx = padding_idx % num_embeddings
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(_st.empty((num_embeddings, embedding_dim),
                                              **_factory(device, dtype)),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx=None, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> "Embedding":
        """An Embedding whose table is ``embeddings`` (2-D, its rows the vectors), PyTorch's
        ``nn.Embedding.from_pretrained``: the weight is a Parameter over the same memory,
        frozen (``requires_grad=False``) unless ``freeze=False``; the padding row is kept.

        >>> import strided.torch as torch
        >>> emb = torch.nn.Embedding.from_pretrained(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> emb(torch.tensor([1])), emb.weight.requires_grad
        (tensor([[3., 4.]]), False)
        """
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)

    def reset_parameters(self) -> None:
        """Draw the table again from ``N(0, 1)``, the padding row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with _st.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        """``embedding(input, weight, padding_idx)``."""
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        return s


class Flatten(Module):
    """Flatten dimensions ``start_dim`` to ``end_dim`` into one.

    >>> import strided.torch as torch
    >>> torch.nn.Flatten()(torch.zeros(2, 3, 4)).shape
    strided.Size([2, 12])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        """``input.flatten(start_dim, end_dim)``."""
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size``.

    >>> import strided.torch as torch
    >>> torch.nn.Unflatten(1, (2, 3))(torch.zeros(4, 6)).shape
    strided.Size([4, 2, 3])
    """

    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        """``input.unflatten(dim, unflattened_size)``."""
        return input.unflatten(self.dim, tuple(self.unflattened_size))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    """``dropout(x, p)`` while training; the identity in ``eval()`` mode.

    >>> import strided.torch as torch
    >>> torch.nn.Dropout(0.2)
    Dropout(p=0.2, inplace=False)
    """

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        """``dropout(input, p, training, inplace)``."""
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


# --- activations ------------------------------------------------------------------------

def _activation(name: str, fn, doc: str, params=(), inplace: bool = False, reprs=None):
    """A module class ``name`` whose forward is ``fn(input, *params[, inplace])``."""
    defaults = dict(params)

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        names = list(defaults) + (["inplace"] if inplace else [])
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} arguments")
        values = dict(defaults, **({"inplace": False} if inplace else {}))
        values.update(zip(names, args))
        for k, v in kwargs.items():
            if k not in values:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
            values[k] = v
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def forward(self, input):
        kw = {k: getattr(self, k) for k in defaults}
        if inplace:
            kw["inplace"] = self.inplace
        return fn(input, **kw)

    def extra_repr(self) -> str:
        if reprs is not None:
            return reprs(self)
        parts = [f"{k}={getattr(self, k)!r}" for k in defaults]
        if inplace and self.inplace:
            parts.append("inplace=True")
        return ", ".join(parts)

    forward.__doc__ = f"``{fn.__name__}(input, ...)``."
    sig = inspect.Signature(
        [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=v)
         for k, v in defaults.items()]
        + ([inspect.Parameter("inplace", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=False)]
           if inplace else []))
    cls = type(name, (Module,), {"__init__": __init__, "forward": forward,
                                 "extra_repr": extra_repr, "__doc__": doc,
                                 "__module__": __name__, "__signature__": sig})
    return cls


def _ex(name, call, out):
    return f"\n\n    >>> import strided.torch as torch\n    >>> torch.nn.{name}{call}\n    {out}\n"


ReLU = _activation("ReLU", F.relu, "Element-wise ``relu``." + _ex(
    "ReLU", "()(torch.tensor([-1.0, 2.0]))", "tensor([0., 2.])"), inplace=True)
ReLU6 = _activation("ReLU6", F.relu6, "Element-wise ``relu6``." + _ex(
    "ReLU6", "()(torch.tensor([9.0]))", "tensor([6.])"), inplace=True)
Tanh = _activation("Tanh", F.tanh, "Element-wise ``tanh``." + _ex(
    "Tanh", "()(torch.tensor([0.0]))", "tensor([0.])"))
Sigmoid = _activation("Sigmoid", F.sigmoid, "Element-wise ``sigmoid``." + _ex(
    "Sigmoid", "()(torch.tensor([0.0]))", "tensor([0.5000])"))
Hardtanh = _activation(
    "Hardtanh", F.hardtanh, "Element-wise ``hardtanh``." + _ex(
        "Hardtanh", "()", "Hardtanh(min_val=-1.0, max_val=1.0)"),
    params=(("min_val", -1.0), ("max_val", 1.0)), inplace=True,
    reprs=lambda m: f"min_val={m.min_val}, max_val={m.max_val}"
                    + (", inplace=True" if m.inplace else ""))
Softplus = _activation("Softplus", F.softplus, "Element-wise ``softplus``." + _ex(
    "Softplus", "()", "Softplus(beta=1.0, threshold=20.0)"),
    params=(("beta", 1.0), ("threshold", 20.0)))
LeakyReLU = _activation(
    "LeakyReLU", F.leaky_relu, "Element-wise ``leaky_relu``." + _ex(
        "LeakyReLU", "()", "LeakyReLU(negative_slope=0.01)"),
    params=(("negative_slope", 0.01),), inplace=True,
    reprs=lambda m: f"negative_slope={m.negative_slope}" + (", inplace=True" if m.inplace else ""))
GELU = _activation("GELU", F.gelu, "Element-wise ``gelu``." + _ex(
    "GELU", "('tanh')", "GELU(approximate='tanh')"), params=(("approximate", "none"),))
SiLU = _activation("SiLU", F.silu, "Element-wise ``silu``." + _ex(
    "SiLU", "()(torch.tensor([0.0]))", "tensor([0.])"), inplace=True)
ELU = _activation(
    "ELU", F.elu, "Element-wise ``elu``." + _ex("ELU", "()", "ELU(alpha=1.0)"),
    params=(("alpha", 1.0),), inplace=True,
    reprs=lambda m: f"alpha={m.alpha}" + (", inplace=True" if m.inplace else ""))
SELU = _activation("SELU", F.selu, "Element-wise ``selu``." + _ex(
    "SELU", "()(torch.tensor([0.0]))", "tensor([0.])"), inplace=True)
CELU = _activation(
    "CELU", F.celu, "Element-wise ``celu``." + _ex("CELU", "()", "CELU(alpha=1.0)"),
    params=(("alpha", 1.0),), inplace=True,
    reprs=lambda m: f"alpha={m.alpha}" + (", inplace=True" if m.inplace else ""))
Mish = _activation("Mish", F.mish, "Element-wise ``mish``." + _ex(
    "Mish", "()(torch.tensor([0.0]))", "tensor([0.])"), inplace=True)
Softsign = _activation("Softsign", F.softsign, "Element-wise ``softsign``." + _ex(
    "Softsign", "()(torch.tensor([1.0]))", "tensor([0.5000])"))
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid, "Element-wise ``hardsigmoid``." + _ex(
    "Hardsigmoid", "()(torch.tensor([0.0]))", "tensor([0.5000])"), inplace=True)
Hardswish = _activation("Hardswish", F.hardswish, "Element-wise ``hardswish``." + _ex(
    "Hardswish", "()(torch.tensor([4.0]))", "tensor([4.])"), inplace=True)
LogSigmoid = _activation("LogSigmoid", F.logsigmoid, "Element-wise ``logsigmoid``." + _ex(
    "LogSigmoid", "()(torch.tensor([0.0]))", "tensor([-0.6931])"))
Tanhshrink = _activation("Tanhshrink", F.tanhshrink, "Element-wise ``tanhshrink``." + _ex(
    "Tanhshrink", "()(torch.tensor([0.0]))", "tensor([0.])"))
Softmax = _activation("Softmax", F.softmax, "``softmax`` along ``dim``." + _ex(
    "Softmax", "(dim=1)", "Softmax(dim=1)"), params=(("dim", None),),
    reprs=lambda m: f"dim={m.dim}")
Softmin = _activation("Softmin", F.softmin, "``softmin`` along ``dim``." + _ex(
    "Softmin", "(dim=1)", "Softmin(dim=1)"), params=(("dim", None),),
    reprs=lambda m: f"dim={m.dim}")
LogSoftmax = _activation("LogSoftmax", F.log_softmax, "``log_softmax`` along ``dim``." + _ex(
    "LogSoftmax", "(dim=1)", "LogSoftmax(dim=1)"), params=(("dim", None),),
    reprs=lambda m: f"dim={m.dim}")


# --- losses -----------------------------------------------------------------------------

class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        self.reduction = F._legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """``mse_loss(input, target, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.MSELoss()(torch.tensor([1.0, 3.0]), torch.zeros(2))
    tensor(5.)
    """

    def forward(self, input, target):
        """``mse_loss(input, target)``."""
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """``l1_loss(input, target, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.L1Loss(reduction="sum")(torch.tensor([1.0, -3.0]), torch.zeros(2))
    tensor(4.)
    """

    def forward(self, input, target):
        """``l1_loss(input, target)``."""
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """``smooth_l1_loss(input, target, reduction, beta)``.

    >>> import strided.torch as torch
    >>> torch.nn.SmoothL1Loss()(torch.tensor([0.5, 3.0]), torch.zeros(2))
    tensor(1.3125)
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        """``smooth_l1_loss(input, target)``."""
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """``huber_loss(input, target, reduction, delta)``.

    >>> import strided.torch as torch
    >>> torch.nn.HuberLoss(delta=2.0)(torch.tensor([0.5, 3.0]), torch.zeros(2))
    tensor(2.0625)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        """``huber_loss(input, target)``."""
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """``nll_loss(input, target, weight, ignore_index, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.NLLLoss()(torch.log(torch.tensor([[0.25, 0.75]])), torch.tensor([1]))
    tensor(0.2877)
    """

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        """``nll_loss(input, target)``."""
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """``cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)``.

    >>> import strided.torch as torch
    >>> torch.nn.CrossEntropyLoss()(torch.zeros(1, 4), torch.tensor([2]))
    tensor(1.3863)
    """

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        """``cross_entropy(input, target)``."""
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """``binary_cross_entropy(input, target, weight, reduction)``.

    >>> import strided.torch as torch
    >>> torch.nn.BCELoss()(torch.tensor([0.5]), torch.tensor([1.0]))
    tensor(0.6931)
    """

    def forward(self, input, target):
        """``binary_cross_entropy(input, target)``."""
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)``.

    >>> import strided.torch as torch
    >>> torch.nn.BCEWithLogitsLoss()(torch.zeros(1), torch.ones(1))
    tensor(0.6931)
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        """``binary_cross_entropy_with_logits(input, target)``."""
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


# ``torch.nn.modules`` is a package in PyTorch (``from torch.nn.modules.loss import _Loss``):
# its submodules are files in ``nn/_modules/`` (found through this ``__path__``, which makes
# this module a package), each importing strided.torch.nn's own classes. The classes this file
# does not define (Conv2d, LSTM, ...) are reached here too, as from PyTorch's package.
import os as _os  # noqa: E402

__path__ = [_os.path.join(_os.path.dirname(__file__), "_modules")]


def __getattr__(name: str):
    import importlib
    if name.isidentifier() and _os.path.exists(_os.path.join(__path__[0], name + ".py")):
        return importlib.import_module(f"{__name__}.{name}")
    nn = importlib.import_module(__name__.rpartition(".")[0])
    if name in nn.__all__ and name != "modules":
        return getattr(nn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}: strided.torch has no "
                         f"torch.nn.modules.{name}")
