# The step and state-dict hooks and load_state_dict's casting are adapted from PyTorch 2.13's
# torch/optim/optimizer.py (BSD-3-Clause; Copyright (c) 2016- Facebook, Inc and the PyTorch
# contributors; see LICENSES/PyTorch.txt).
"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, state dicts.

A port of ``torch/optim/optimizer.py``'s contract: ``param_groups`` is a list
of dicts (``params`` plus every hyperparameter, defaults filled in, so that a
group's keys and the optimizer's repr equal PyTorch's); ``state`` maps each
parameter (by identity) to its buffers; ``state_dict`` numbers the parameters
in group order, as PyTorch does, so the two can be compared key for key.

Invariants: ``step`` runs under ``no_grad`` and updates each parameter in
place with strided's in-place methods (same array object, same storage, its
version counter bumped once per write); a parameter belongs to one group only;
a non-leaf array is refused.
"""

from __future__ import annotations

import copy
import functools
from collections import OrderedDict, defaultdict

import numpy as _np

import strided as _st
from strided import Array
from strided._core.call.write import target as _write_target
from strided._core.caller import stacklevel
from strided._core.dispatch import quiet as _quiet

__all__ = ["Optimizer", "required"]


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()

# An update runs quiet, as every door does: the host updates (adam.py's, sgd.py's) call NumPy
# themselves, and under a user's ``np.errstate(all="raise")`` a moment that overflows raised
# FloatingPointError where PyTorch's step gives inf. (The closure, the user's code, is not
# under it: what it calls of strided's is quiet already.)
_quietly = _quiet(lambda update, group: update(group))


class Optimizer:
    """Base class of the optimizers: ``Optimizer(params, defaults)``.

    ``params`` is an iterable of arrays or of dicts (parameter groups, each
    with ``"params"`` and its own hyperparameters).

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.ones(2))
    >>> opt = torch.optim.SGD([w], lr=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """

    _HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                   "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                   "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")

    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        for name in self._HOOK_DICTS:
            setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.state: dict = defaultdict(dict)
        self.param_groups: list = []
        if type(params) is Array:
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"arrays or dicts, but got a strided array of shape {tuple(params.shape)}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters (a dict with ``"params"``; missing options take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if type(params) is Array:
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of arrays in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if type(p) is not Array:
                raise TypeError(f"optimizer can only optimize strided arrays, but one of the "
                                f"params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf array")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(set(ids)) != len(ids):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error", UserWarning, stacklevel=stacklevel())
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if seen & set(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (default) or to zeros."""
        for g in self.param_groups:
            for p in g["params"]:
                e = p._ext if type(p) is Array else None
                if set_to_none and e is not None and e.grad is not None and type(e.grad) is Array \
                        and e.names is None:
                    # (a gradient to drop: the property's getter has nothing to warn about
                    # or rename, its setter only stores None)
                    e.grad = None
                    continue
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    grad = p.grad
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def step(self, closure=None):
        """One update of every parameter (subclasses define ``_update``); returns
        ``closure()``'s loss when a closure is given (it runs with grad enabled)."""
        loss = None
        if closure is not None:
            with _st.enable_grad():
                loss = closure()
        with _st.no_grad():
            for group in self.param_groups:
                _quietly(self._update, group)
        return loss

    def _update(self, group: dict) -> None:  # pragma: no cover - subclasses define it
        raise NotImplementedError

    # --- hooks (a port of torch/optim/optimizer.py's) -----------------------------------
    @staticmethod
    def profile_hook_step(func):
        """Wrap a ``step`` function so that it runs the step pre-hooks (which may replace its
        ``(args, kwargs)``) before and the step post-hooks after (PyTorch's)."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            d = self.__dict__
            if not d.get("_optimizer_step_pre_hooks") and not d.get("_optimizer_step_post_hooks"):
                return func(*args, **kwargs)  # (no hooks: no tuples built)
            for pre_hook in tuple(d.get("_optimizer_step_pre_hooks", {}).values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {result}.")
            out = func(*args, **kwargs)
            for post_hook in tuple(d.get("_optimizer_step_post_hooks", {}).values()):
                post_hook(self, args, kwargs)
            return out
        return wrapper

    def _patch_step_function(self) -> None:
        # (the class's step wrapped once, as PyTorch's, so a subclass's own step runs the hooks)
        if not getattr(type(self).step, "hooked", None):
            type(self).step = self.profile_hook_step(type(self).step)
            type(self).step.hooked = True

    def _add_hook(self, name: str, hook, prepend: bool = False):
        from ..nn.modules import _Handle
        hooks = self.__dict__.get(name)
        if hooks is None:
            hooks = self.__dict__[name] = OrderedDict()
        h = _Handle(hooks)
        hooks[h.id] = hook
        if prepend:
            hooks.move_to_end(h.id, last=False)
        return h

    def register_step_pre_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`` to run
        before each ``step``; returns a handle with ``remove()``."""
        return self._add_hook("_optimizer_step_pre_hooks", hook)

    def register_step_post_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs) -> None`` to run after each ``step``."""
        return self._add_hook("_optimizer_step_post_hooks", hook)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False):
        """Register ``hook(optimizer) -> None`` to run before ``state_dict``."""
        return self._add_hook("_optimizer_state_dict_pre_hooks", hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False):
        """Register ``hook(optimizer, state_dict) -> None or a new state_dict`` to run after
        ``state_dict`` builds it."""
        return self._add_hook("_optimizer_state_dict_post_hooks", hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False):
        """Register ``hook(optimizer, state_dict) -> None or a new state_dict`` to run before
        ``load_state_dict`` (on a shallow copy of the state dict given)."""
        return self._add_hook("_optimizer_load_state_dict_pre_hooks", hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False):
        """Register ``hook(optimizer) -> None`` to run after ``load_state_dict``."""
        return self._add_hook("_optimizer_load_state_dict_post_hooks", hook, prepend)

    # --- state dicts -----------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {index: buffers}, "param_groups": [options + "params": indices]}``,
        parameters numbered in group order as in PyTorch; the state-dict pre-hooks run before
        and the post-hooks (which may replace it) after."""
        for pre_hook in tuple(self.__dict__.get("_optimizer_state_dict_pre_hooks", {}).values()):
            pre_hook(self)
        index, groups, start = {}, [], 0
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            index.update({id(p): i for i, p in enumerate(g["params"], start) if id(p) not in index})
            packed["params"] = [index[id(p)] for p in g["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items() if id(p) in index}
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in tuple(self.__dict__.get("_optimizer_state_dict_post_hooks",
                                                 {}).values()):
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the state and options of ``state_dict`` (as ``state_dict()`` returns).

        Buffers are copied onto each parameter's device; floating-point buffers
        take the parameter's dtype (``step`` keeps its own). The load-state-dict pre-hooks
        (which may replace the state dict) run before, the post-hooks after.
        """
        state_dict = state_dict.copy()
        for pre_hook in tuple(self.__dict__.get("_optimizer_load_state_dict_pre_hooks",
                                                {}).values()):
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = {old: p for g, s in zip(groups, saved) for old, p in zip(s["params"], g["params"])}
        saved_groups = state_dict["param_groups"]
        # Note: as PyTorch's, the state's arrays are not copied when they already have the
        # parameter's dtype and device (the optimizers then share them); containers are new.
        state: dict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                p = id_map[k]
                state[p] = self._cast(p, v, k, saved_groups)
            else:
                state[k] = v
        new_groups = []
        for g, s in zip(groups, saved):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
            new_groups.append(s)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for post_hook in tuple(self.__dict__.get("_optimizer_load_state_dict_post_hooks",
                                                 {}).values()):
            post_hook(self)

    @staticmethod
    def _cast(param, value, param_id=None, param_groups=None, key=None):
        """``value`` with its arrays on ``param``'s device and, where ``param`` is real
        floating-point, in its dtype (``step`` kept, unless the group is capturable or fused:
        float32), in new containers (PyTorch's ``_cast``)."""
        if type(value) is Array:
            return Optimizer._process_value_according_to_param_policy(param, value, param_id,
                                                                      param_groups, key)
        if isinstance(value, dict):
            return {k: Optimizer._cast(param, v, param_id, param_groups, k)
                    for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast(param, v, param_id, param_groups)
                               for v in value)
        return value

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups,
                                                 key=None):
        fused = capturable = False
        for pg in param_groups or ():
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=_st.float32, device=param.device)
            return value
        if param.dtype.kind == "f":
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in self._HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()

    def __repr__(self) -> str:
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"


def _check_range(name: str, value, lo: float = 0.0) -> None:
    if not value >= lo:
        raise ValueError(f"Invalid {name}: {value}")


def _step_value(state: dict) -> float:
    """Increment the state's ``step`` (a 0-d array on the CPU, as PyTorch's) and return its
    new value."""
    step = state["step"]
    step += 1.0
    return float(step)


def _new_step(fused=False, device=None):
    """A new ``step`` count: a 0-d zero on the CPU in PyTorch's ``_get_scalar_dtype()``
    (float64 when the default dtype is float64, float32 otherwise); with ``fused``, a float32
    zero on the parameter's ``device``, as PyTorch's."""
    if fused:
        return _st.zeros((), dtype=_st.float32, device=device)
    from ._common18 import _scalar

    return _scalar(0.0)


# (PyTorch's _get_fused_kernels_supported_devices(), named in its error)
_FUSED_DEVICES = ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', 'privateuseone']


def _check_fused_flags(fused, foreach, differentiable) -> None:
    """PyTorch's constructor checks for ``fused=True`` (Adam, AdamW, SGD, Adagrad). strided
    has no fused kernels: ``fused`` runs the same update as the default, whose numbers agree
    with PyTorch's fused kernel to rounding."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_fused_params(group: dict) -> None:
    """PyTorch's ``_device_dtype_check_for_fused`` on the parameters with a gradient of a
    ``fused`` group: each must be real floating-point."""
    if not group.get("fused"):
        return
    for p in group["params"]:
        if p.grad is not None and p.dtype.kind != "f":
            raise RuntimeError("`fused=True` requires all the params to be floating point "
                               f"Tensors of supported devices: {_FUSED_DEVICES} but "
                               f"{p.dtype.name} and {p.device.type}")


# The host path of the optimizers' updates (``host``): False makes every update take the
# in-place methods (the reference path; the differential tests compare the two).
HOST = True


def host(*arrays) -> bool:
    """Whether ``arrays`` (a parameter, its gradient, its state buffers) can be updated by
    NumPy calls on their natives: host NumPy arrays of one real floating dtype and one
    shape, without dimension names.

    Note: the update then makes the in-place methods' NumPy calls itself, in their order
    and with their operands (a Python scalar weak, as in strided and PyTorch), so the bits
    are the same; the writes go through the writer's ``target`` (version counter bumped,
    autograd's checks), one call per written array instead of the method's pipeline. This
    is PyTorch's ``foreach`` idea without the batching: one Python loop over the group,
    no per-parameter temporaries beyond NumPy's own."""
    if not HOST:
        return False
    a0 = arrays[0]
    dt, dev, shape = a0._dtype, a0._device, a0._shape
    if dt.kind != "f" or dev.type != "cpu":
        return False
    for a in arrays:
        if type(a) is not Array or a._dtype is not dt or a._device is not dev or a._shape != shape:
            return False
        e = a._ext
        if e is not None and e.names is not None:
            return False
        n = a._np  # (the cached native; _get_native makes it when there is none)
        if type(n) is not _np.ndarray and type(a._get_native()) is not _np.ndarray:
            return False
    return True


def host2(p, g) -> bool:
    """``host(p, g)`` for the usual two arrays (a parameter and its gradient), unrolled."""
    if not HOST or type(p) is not Array or type(g) is not Array:
        return False
    dt, dev = p._dtype, p._device
    if dt.kind != "f" or dev.type != "cpu" or g._dtype is not dt or g._device is not dev \
            or g._shape != p._shape:
        return False
    e, f = p._ext, g._ext
    if (e is not None and e.names is not None) or (f is not None and f.names is not None):
        return False
    if type(p._np) is not _np.ndarray and type(p._get_native()) is not _np.ndarray:
        return False
    return type(g._np) is _np.ndarray or type(g._get_native()) is _np.ndarray


def written(a: Array, func: str):
    """The native of ``a`` to write into, through the writer (its version bumped)."""
    return _write_target(a, func)
