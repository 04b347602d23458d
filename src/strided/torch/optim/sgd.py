"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov, weight decay.

PyTorch's single-array algorithm (``torch/optim/sgd.py``, ``_single_tensor_sgd``),
step for step, so a trajectory equals PyTorch's from the same start.
"""

from __future__ import annotations

import strided as _st

import numpy as np

from ...autograd._graph import _cgrad
from . import optimizer as _optimizer
from .optimizer import Optimizer, _check_range, host, host2, written

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (PyTorch's ``torch.optim.SGD``).

    ``g = grad (+ weight_decay * p)``; with momentum ``buf = momentum * buf +
    (1 - dampening) * g`` (``buf = g`` on the first step) and ``g = buf`` (or
    ``g + momentum * buf`` with ``nesterov``); then ``p -= lr * g``
    (``maximize`` ascends).

    >>> import strided.torch as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     opt.zero_grad()
    ...     (w * w).sum().backward()
    ...     opt.step()
    >>> w
    Parameter containing:
    tensor([0.4600], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach=None, differentiable: bool = False, fused=None):
        _check_range("learning rate", lr)
        _check_range("momentum value", momentum)
        _check_range("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        if differentiable and not fused:
            raise NotImplementedError("SGD: differentiable is not supported by strided")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))
        _optimizer._check_fused_flags(fused, foreach, differentiable)

    def _update(self, group: dict) -> None:
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        params = group["params"]
        _optimizer._check_fused_params(group)
        if _sgd_run is not None and _optimizer.HOST and type(lr) is float and type(params) is list:
            if momentum == 0 and wd == 0 and not maximize:
                extra = ()
            else:
                # With momentum: the buffer's step and p's in one pass per parameter (a
                # parameter without a buffer yet, the first step's, is left to _one).
                a = 1 - dampening
                fa = 1.0 if a == 1 and type(a) is int else a  # (as _host_update's axpy)
                wdf = 0.0 if wd == 0 else wd
                extra = (self.state, momentum, fa, wdf, bool(nesterov), bool(maximize)) \
                    if type(momentum) is float and momentum != 0 and type(fa) is float \
                    and type(wdf) is float else None
            if extra is not None:
                # The whole group in one compiled loop (PyTorch's foreach idea): each
                # parameter it takes gets _host_update's calls; it stops at the first it
                # does not take, which runs below, and goes on from the next (the order of
                # the writes kept).
                i, n = 0, len(params)
                while True:
                    i = _sgd_run(params, i, -lr, *extra)
                    if i >= n:
                        return
                    self._one(params[i], lr, momentum, dampening, wd, nesterov, maximize)
                    i += 1
        for p in params:
            self._one(p, lr, momentum, dampening, wd, nesterov, maximize)

    def _one(self, p, lr, momentum, dampening, wd, nesterov, maximize) -> None:
        """The update of one parameter (PyTorch's ``_single_tensor_sgd`` loop body)."""
        states = self.state
        grad = p.grad  # (read once: the property's getter is Python)
        if grad is None:
            return
        if momentum == 0 or states[p].get("momentum_buffer") is not None:
            buf = states[p]["momentum_buffer"] if momentum != 0 else None
            if host2(p, grad) if buf is None else host(p, grad, buf):
                _host_update(p, grad, buf, lr, momentum, dampening, wd, nesterov, maximize)
                return
        grad = -grad if maximize else grad
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = _st.clone(grad).detach()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        p.add_(grad, alpha=-lr)


# Note: p += g * -lr in one compiled pass (_cgrad.axpy: NumPy's multiply then add, the
# same two roundings, no temporary the size of p), and the momentum buffer's b = b * m +
# g * a likewise; None without the C extension, and it declines (writing nothing) what it
# does not take: the NumPy calls run then.
_axpy = getattr(_cgrad, "axpy", None)
# Note: _update's loop, compiled (_cgrad.sgd_run: _host_update's checks and calls for each
# parameter it takes, the same bits): without momentum, weight decay or maximize p += g * a;
# with momentum (float options) the buffer's update, Nesterov's, weight decay's and
# maximize's per element in one pass, the buffer written before p as here; None without
# the C extension (STRIDED_NO_CEXT=1 runs the loop above).
_sgd_run = getattr(_cgrad, "sgd_run", None)


def _host_update(p, grad, buf, lr, momentum, dampening, wd, nesterov, maximize) -> None:
    """``_update``'s body for one parameter on the host (``optimizer.host``): the in-place
    methods' NumPy calls, in their order (``grad.add(p, alpha=wd)`` is ``grad + p * wd``,
    ``buf.mul_(m).add_(g, alpha=a)`` is ``buf *= m; buf += g * a``, ...)."""
    g = grad._np if grad._np is not None else grad._get_native()
    if maximize:
        g = np.negative(g)
    if wd != 0:
        g = np.add(g, np.multiply(p._get_native(), wd))
    if momentum != 0:
        b = written(buf, "SGD.step()")
        a = 1 - dampening
        fa = 1.0 if a == 1 and type(a) is int else a  # (g * 1.0 is g: NumPy's add of g)
        if _axpy is None or type(momentum) is not float or type(fa) is not float \
                or type(b) is not np.ndarray or not _axpy(b, g, fa, momentum):
            np.multiply(b, momentum, out=b)
            np.add(b, g if a == 1 and type(a) is int else np.multiply(g, a), out=b)
        g = np.add(g, np.multiply(b, momentum)) if nesterov else b
    w = written(p, "SGD.step()")
    a = -lr
    if _axpy is None or type(a) is not float or type(w) is not np.ndarray or not _axpy(w, g, a):
        np.add(w, np.multiply(g, a), out=w)
