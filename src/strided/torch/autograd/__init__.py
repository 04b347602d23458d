"""``strided.torch.autograd``: PyTorch's ``torch.autograd`` over strided's autograd (``strided.autograd``).

The functions and classes are ``strided.autograd``'s own objects; the submodules PyTorch
programs import (``functional``, ``function``, ``graph``, ``grad_mode``, ``anomaly_mode``,
``variable``, ``profiler``) are modules here that re-export them. ``Variable`` is PyTorch's
deprecated constructor: ``Variable(t, requires_grad=False)`` returns ``t.detach()`` (sharing
its memory and version counter) with ``requires_grad`` set, and every tensor is an instance.

>>> import strided.torch as torch
>>> from strided.torch.autograd import Variable
>>> x = Variable(torch.ones(2), requires_grad=True)
>>> (x * 3).sum().backward()
>>> x.grad.tolist(), isinstance(torch.zeros(1), Variable)
([3.0, 3.0], True)
"""

from __future__ import annotations

from ...autograd import (Function, FunctionCtx, Node, backward, detect_anomaly, enable_grad, grad,  # noqa: F401
                         gradcheck, gradgradcheck, inference_mode, is_grad_enabled, no_grad,
                         set_detect_anomaly, set_grad_enabled)
from . import anomaly_mode, function, functional, grad_mode, graph, profiler, variable  # noqa: F401
from .variable import Variable
from .._reexport import missing as _missing

__all__ = ["Variable", "Function", "backward", "grad_mode", "detect_anomaly", "enable_grad", "grad",
           "gradcheck", "gradgradcheck", "inference_mode", "no_grad", "set_detect_anomaly",
           "set_grad_enabled", "variable"]

# (strided.autograd's other public names -- is_grad_enabled, AccumulateGrad, RULES, ... -- as before,
# when this namespace's autograd was strided.autograd itself)
__getattr__ = _missing(__name__, "strided.autograd",
                       " (forward_ad: strided has no forward-mode AD; torch.autograd.functional.jvp "
                       "and torch.func.jvp compute JVPs by reverse mode)")
