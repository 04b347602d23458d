# The reparametrization (tied-weight untying, strict key checks, the swap of parameters and buffers
# and its messages) is adapted from PyTorch 2.13's torch/nn/utils/stateless.py and
# torch/nn/utils/_named_member_accessor.py (BSD-3-Clause; Copyright (c) 2016- Facebook, Inc and the
# PyTorch contributors).
"""``torch.nn.utils.stateless``: ``functional_call``, the older spelling of ``torch.func.functional_call``.

``functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True,
strict=False)`` calls ``module`` with the named parameters and buffers replaced by the given
arrays for the call (PyTorch's deprecated spelling: it warns with a FutureWarning).

>>> import warnings
>>> import strided.torch as torch
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     torch.nn.utils.stateless.functional_call(torch.nn.PReLU(), {"weight": torch.tensor([0.5])},
...                                              torch.tensor([-2.0, 3.0]))
tensor([-1.,  3.])
"""

from __future__ import annotations

import contextlib
import sys
import warnings

from ...._core.array import Array
from ...._core.caller import stacklevel

__all__ = ["functional_call"]

_MISSING = object()


def _nn():
    return sys.modules["strided.torch"].nn


def _swap_one(module, name, tensor, allow_missing=False):
    """Put ``tensor`` at attribute ``name`` of ``module`` (as PyTorch's swap_tensor); returns what was there."""
    if not isinstance(module, _nn().Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not _MISSING and not isinstance(tensor, Array) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    if name in module._parameters:
        orig = module._parameters[name]
        if tensor is not _MISSING:
            module._parameters[name] = tensor
        else:
            del module._parameters[name]
    elif name in module._buffers:
        orig = module._buffers[name]
        if tensor is not _MISSING:
            module._buffers[name] = tensor
        else:
            del module._buffers[name]
    else:
        if hasattr(module, name):
            orig = getattr(module, name)
        else:
            if not allow_missing:
                raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
            orig = _MISSING
        if orig is not _MISSING and not isinstance(orig, Array) and orig is not None:
            raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
        if tensor is not _MISSING:
            setattr(module, name, tensor)
        elif hasattr(module, name):
            delattr(module, name)
    return orig


class _Accessor:
    """PyTorch's NamedMemberAccessor: dotted names to submodules, cached."""

    def __init__(self, module):
        self.module = module
        self.memo: dict = {}

    def get_submodule(self, name):
        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition(".")
        module = self.get_submodule(prefix) if dot else self.module
        try:
            sub = getattr(module, attr)
        except AttributeError as ex:
            raise AttributeError(f"{module._get_name()} has no attribute `{attr}`") from ex
        if not isinstance(sub, _nn().Module):
            raise TypeError(f"submodule `{name}`: {sub} is not an instance of torch.nn.Module")
        self.memo[name] = sub
        return sub

    def swap_tensor(self, name, value, allow_missing=False):
        prefix, _, attr = name.rpartition(".")
        return _swap_one(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def swap_tensors_dict(self, named, allow_missing=False):
        orig, missing = {}, []
        try:
            for name, tensor in named.items():
                o = self.swap_tensor(name, tensor, allow_missing=True)
                if o is _MISSING:
                    missing.append(name)
                orig[name] = o
        except Exception:
            for name, o in orig.items():
                self.swap_tensor(name, o, allow_missing=True)
            raise
        if missing and not allow_missing:
            for name, o in orig.items():
                self.swap_tensor(name, o, allow_missing=True)
            raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing))}.")
        return orig, missing

    def check_keys(self, keys):
        keys = set(keys)
        valid = {n for n, _ in self.module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in self.module.named_buffers(remove_duplicate=False)}
        return sorted(valid - keys), sorted(keys - valid)


def _untie(module, given: dict) -> dict:
    """``given`` extended to every name tied to a given name (an error for two values of one tied tensor)."""
    named: dict = {}
    named.update(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    by_tensor: dict = {}
    for name, t in named.items():
        by_tensor.setdefault(id(t), set()).add(name)
    tied: dict = {}
    for names in by_tensor.values():
        if len(names) > 1:
            for n in names:
                tied[n] = names
    given_tied = {n for n in given if n in tied}
    for n in given_tied:
        names = tied[n]
        if len(names & given_tied) > 1 and len({id(given[t]) for t in names if t in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             f"Consider using tie_weights=False")
    out = dict(given)
    for n in given_tied:
        for t in tied[n]:
            out[t] = given[n]
    return out


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    untied = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    accessor = _Accessor(module)
    if strict:
        missing, unexpected = accessor.check_keys(untied)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                 "\n\t".join(msgs)))
    orig: dict = {}
    try:
        orig, _ = accessor.swap_tensors_dict(untied, allow_missing=True)
        yield
    finally:
        new, _ = accessor.swap_tensors_dict(orig, allow_missing=True)
        # (a module that assigned a new array to a swapped name: the given dict sees it, as PyTorch's)
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by ``parameters_and_buffers``
    (a dict of dotted names to arrays) for the call; deprecated in PyTorch (a FutureWarning) in favour
    of ``torch.func.functional_call``.

    >>> import warnings
    >>> import strided.torch as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     functional_call(torch.nn.PReLU(), {"weight": torch.tensor([0.1])}, (torch.tensor([-5.0]),))
    tensor([-0.5000])
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=stacklevel())
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
