"""Learning-rate schedulers (PyTorch's ``torch/optim/lr_scheduler.py``, chainable forms).

A scheduler writes ``group["lr"]`` of its optimizer's groups at construction
(epoch 0) and at each ``step()``; the formulas are PyTorch's recursive ones, so
the learning rates equal PyTorch's float for float.
"""

from __future__ import annotations

import math

from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR",
           "CosineAnnealingLR"]


class LRScheduler:
    """Base class: ``base_lrs`` from the groups' ``initial_lr``, ``last_epoch``, ``step()``,
    ``get_last_lr()``, ``state_dict()``/``load_state_dict()``."""

    def __init__(self, optimizer, last_epoch: int = -1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0.")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list:
        """The learning rates of the current epoch (subclasses define it)."""
        raise NotImplementedError

    def get_last_lr(self) -> list:
        """The learning rates the last ``step()`` set."""
        return self._last_lr

    def step(self, epoch=None) -> None:
        """Advance one epoch and write the new learning rates into the optimizer."""
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        """Every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the attributes of ``state_dict``."""
        self.__dict__.update(state_dict)


class LambdaLR(LRScheduler):
    """``lr = base_lr * lr_lambda(epoch)`` (one function, or one per group).

    >>> import strided.torch as torch
    >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5 ** e)
    >>> sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1):
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self) -> dict:
        """The attributes, without the (unpicklable) lambdas."""
        d = super().state_dict()
        d["lr_lambdas"] = [None] * len(self.lr_lambdas)
        return d

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the attributes, keeping this scheduler's lambdas."""
        lambdas = self.lr_lambdas
        super().load_state_dict(state_dict)
        self.lr_lambdas = lambdas


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs.

    >>> import strided.torch as torch
    >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    >>> for _ in range(2): sched.step()
    >>> sched.get_last_lr()
    [0.1]
    """

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each epoch of ``milestones``.

    >>> import strided.torch as torch
    >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
    >>> sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1):
        self.milestones = sorted(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        k = self.milestones.count(self.last_epoch)
        return [g["lr"] * self.gamma ** k for g in self.optimizer.param_groups]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch.

    >>> import strided.torch as torch
    >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self._is_initial:
            return [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from ``base_lr`` to ``eta_min`` over ``T_max`` epochs (PyTorch's
    recursive form, which keeps going past ``T_max``).

    >>> import strided.torch as torch
    >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
    >>> sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [g["lr"] for g in groups]
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [g["lr"] + (base - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (g["lr"] - self.eta_min) + self.eta_min for g in groups]

    def _get_closed_form_lr(self) -> list:
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]
