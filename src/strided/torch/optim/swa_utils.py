"""Stochastic weight averaging (PyTorch 2.13's ``torch/optim/swa_utils.py``):
``AveragedModel`` (an SWA or EMA copy of a model), ``SWALR`` (anneal to a constant SWA
learning rate), ``update_bn`` (recompute the batch-norm statistics of the averaged
model) and the averaging functions.

The averages are PyTorch's formulas in PyTorch's order: on the CPU the default SWA update
is ``avg + (p - avg) / (n + 1)`` (PyTorch's CPU path, not its foreach kernel), and
``get_swa_multi_avg_fn`` / ``get_ema_multi_avg_fn`` are ``lerp_`` over the lists, the SWA
weight ``1 / (n + 1)`` computed from the integer count in the default dtype (float32),
as PyTorch's tensor weight is.
"""

from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

import strided as _st

from ..nn.modules import Module
from .lr_scheduler import LRScheduler, _format_param
from ..._core.caller import stacklevel

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _is_float(a) -> bool:
    return a.dtype.kind in "fc"


def get_ema_multi_avg_fn(decay=0.999):
    """The exponential moving average over lists of arrays, in place: ``ema.lerp_(p, 1 -
    decay)`` (integer arrays: ``ema * decay + p * (1 - decay)`` written back).

    >>> import strided.torch as torch
    >>> ema, p = [torch.zeros(2)], [torch.ones(2)]
    >>> torch.optim.swa_utils.get_ema_multi_avg_fn(0.75)(ema, p, 1)
    >>> ema[0]
    tensor([0.2500, 0.2500])
    """
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")

    def ema_update(ema_param_list, current_param_list, _) -> None:
        with _st.no_grad():
            if _is_float(ema_param_list[0]):
                for e, p in zip(ema_param_list, current_param_list):
                    e.lerp_(p, 1 - decay)
            else:
                for e, p in zip(ema_param_list, current_param_list):
                    e.copy_(e * decay + p * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """The running (SWA) average over lists of arrays, in place: ``avg.lerp_(p, 1 / (n +
    1))`` (the weight from an integer-array ``n`` in the default dtype, as PyTorch's);
    integer arrays: ``avg += (p - avg) / (n + 1)``.

    >>> import strided.torch as torch
    >>> avg, p = [torch.zeros(2)], [torch.ones(2)]
    >>> torch.optim.swa_utils.get_swa_multi_avg_fn()(avg, p, 3)
    >>> avg[0]
    tensor([0.2500, 0.2500])
    """

    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        with _st.no_grad():
            if _is_float(averaged_param_list[0]):
                w = 1 / (num_averaged + 1)
                if isinstance(w, _st.Array):
                    w = w.item()  # (a 0-d weight is read as a number, as PyTorch's Scalar)
                for a, p in zip(averaged_param_list, current_param_list):
                    a.lerp_(p, w)
            else:
                for a, p in zip(averaged_param_list, current_param_list):
                    diff = p - a
                    if isinstance(num_averaged, _st.Array):
                        a.addcdiv_(diff, num_averaged + 1)
                    else:
                        a.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The exponential moving average of one array: ``decay * ema + (1 - decay) * p``.

    >>> import strided.torch as torch
    >>> torch.optim.swa_utils.get_ema_avg_fn(0.5)(torch.zeros(2), torch.ones(2), 1)
    tensor([0.5000, 0.5000])
    """
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")

    def ema_update(ema_param, current_param, num_averaged):
        with _st.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The running (SWA) average of one array: ``avg + (p - avg) / (n + 1)``.

    >>> import strided.torch as torch
    >>> torch.optim.swa_utils.get_swa_avg_fn()(torch.zeros(2), torch.ones(2), 3)
    tensor([0.2500, 0.2500])
    """

    def swa_update(averaged_param, current_param, num_averaged):
        with _st.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_device_and_dtype(avg: list, cur: list) -> list:
    """``[(avg_list, cur_list)]`` grouped by the averaged array's device and dtype, the
    groups in first-appearance order (PyTorch's ``_group_tensors_by_device_and_dtype``)."""
    groups: dict = {}
    for a, p in zip(avg, cur):
        g = groups.setdefault((str(a.device), a.dtype), ([], []))
        g[0].append(a)
        g[1].append(p)
    return list(groups.values())


class AveragedModel(Module):
    """A deep copy of ``model`` whose parameters (and buffers, with ``use_buffers``) hold
    an average of ``model``'s over the ``update_parameters`` calls: SWA's running mean by
    default, or ``avg_fn(avg, p, n)`` / ``multi_avg_fn(avg_list, p_list, n)`` (e.g.
    ``get_ema_multi_avg_fn(0.999)``). ``n_averaged`` is an int64 buffer.

    >>> import strided.torch as torch
    >>> model = torch.nn.Linear(2, 1)
    >>> swa = torch.optim.swa_utils.AveragedModel(model)
    >>> swa.update_parameters(model)
    >>> with torch.no_grad(): _ = model.bias.add_(1.0)
    >>> swa.update_parameters(model)
    >>> bool(torch.isclose(swa.module.bias, model.bias - 0.5).all()), int(swa.n_averaged)
    (True, 2)
    """

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None,
                 use_buffers: bool = False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        dev = device if device is not None else "cpu"
        self.register_buffer("n_averaged", _st.zeros((), dtype=_st.int64, device=dev))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged copy's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters (and buffers, with ``use_buffers``) into the
        average; without ``use_buffers`` the buffers are copied from ``model``."""
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param = self.parameters()
            model_param = model.parameters()
        avg_list, cur_list = [], []
        copy_param = bool(self.n_averaged == 0)
        with _st.no_grad():
            for p_averaged, p_model in zip(self_param, model_param):
                p_model_ = p_model.detach().to(p_averaged.device)
                avg_list.append(p_averaged.detach())
                cur_list.append(p_model_)
                if copy_param:
                    p_averaged.detach().copy_(p_model_)
            if self.n_averaged > 0:
                if self.multi_avg_fn is not None or self.avg_fn is None:
                    for avgs, curs in _group_by_device_and_dtype(avg_list, cur_list):
                        n_averaged = self.n_averaged.to(avgs[0].device)
                        if self.multi_avg_fn:
                            self.multi_avg_fn(avgs, curs, n_averaged)
                        else:
                            # (PyTorch's path for devices without foreach kernels, the CPU)
                            avg_fn = get_swa_avg_fn()
                            for a, p in zip(avgs, curs):
                                a.copy_(avg_fn(a, p, n_averaged))
                else:
                    for a, p in zip(avg_list, cur_list):
                        n_averaged = self.n_averaged.to(a.device)
                        a.detach().copy_(self.avg_fn(a.detach(), p, n_averaged))
            if not self.use_buffers:
                swa_buffers, model_buffers = list(self.module.buffers()), list(model.buffers())
                if len(swa_buffers) != len(model_buffers):
                    raise ValueError(f"update_parameters(): the model has {len(model_buffers)} "
                                     f"buffers, the averaged copy {len(swa_buffers)}")
                for b_swa, b_model in zip(swa_buffers, model_buffers):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1


def _batchnorm_class():
    """``nn``'s ``_BatchNorm`` base when strided has batch normalization, else None."""
    try:
        from ..nn._norm_modules import _BatchNorm
    except ImportError:
        return None
    return _BatchNorm


def update_bn(loader, model: Module, device=None) -> None:
    """Recompute the running statistics of ``model``'s batch-norm layers over one pass of
    ``loader`` (their cumulative averages, ``momentum=None`` for the pass; a batch that is
    a list or tuple gives its first element); the training mode and the momenta are then
    restored. A model without batch norm is left as it is.

    >>> import strided.torch as torch
    >>> model = torch.nn.Linear(2, 1)
    >>> torch.optim.swa_utils.update_bn([torch.ones(3, 2)], model)
    """
    bn = _batchnorm_class()
    momenta = {}
    if bn is not None:
        for module in model.modules():
            if isinstance(module, bn):
                module.reset_running_stats()
                momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with _st.no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for module in momenta:
        module.momentum = momenta[module]
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` epochs
    (``anneal_strategy`` "cos" or "linear"), then hold it (PyTorch's recursive form).

    >>> import strided.torch as torch
    >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> sched = torch.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=2,
    ...                                     anneal_strategy="linear")
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.55]
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy: str = "cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        """The learning rates of the current step (from the previous ones, as PyTorch)."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=stacklevel())
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
                    for g in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        """The attributes but the optimizer and the anneal function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the attributes (and the anneal function they name)."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
