"""``strided.torch.nn``: PyTorch's ``torch.nn`` on strided's arrays and autograd.

``Module`` and its registries (parameters, buffers, submodules), ``Parameter``,
layers (``Linear``, ``Bilinear``, ``Embedding``, ``Flatten``, ``Unflatten``,
``Dropout``, ``Identity``), containers (``Sequential``, ``ModuleList``,
``ModuleDict``, ``ParameterList``), activation and loss modules, and the
submodules ``functional`` and ``init``. Gradients come from strided's
autograd: every module's forward is a composite of recorded operations.

>>> import strided.torch as torch
>>> net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
>>> net(torch.ones(2, 3)).shape
strided.Size([2, 1])
"""

from . import functional, init, utils  # noqa: F401
from .parameter import Parameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from ._norm_modules import *  # noqa: F401,F403
from ._norm_modules import __all__ as _norm_all
from ._rnn import *  # noqa: F401,F403
from ._rnn import __all__ as _rnn_all
from ._attention_modules import *  # noqa: F401,F403
from ._attention_modules import __all__ as _attention_all
from ._loss_extra_modules import *  # noqa: F401,F403
from ._loss_extra_modules import __all__ as _extra_modules_all
from ._conv_modules import *  # noqa: F401,F403
from ._conv_modules import __all__ as _conv_modules_all
from ._lazy import *  # noqa: F401,F403
from ._lazy import __all__ as _lazy_all
from ._adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from . import _lazy, parameter as _parameter_module

# PyTorch's spelling torch.nn.parameter.UninitializedParameter (torch.nn.modules.lazy is the file
# nn/_modules/lazy.py: see the end of modules.py)
_parameter_module.UninitializedParameter = UninitializedParameter  # noqa: F405
_parameter_module.UninitializedBuffer = UninitializedBuffer  # noqa: F405
_parameter_module.is_lazy = _lazy.is_lazy

__all__ = (["Parameter", "functional", "init", "utils"] + list(_modules_all) + list(_norm_all)
           + list(_rnn_all) + list(_attention_all) + list(_extra_modules_all) + list(_conv_modules_all)
           + list(_lazy_all) + ["AdaptiveLogSoftmaxWithLoss"])
