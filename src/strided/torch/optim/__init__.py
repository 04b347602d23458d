"""``strided.torch.optim``: PyTorch's optimizers and learning-rate schedulers.

``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``, ``Adadelta``, ``Adamax``,
``NAdam``, ``RAdam``, ``Rprop``, ``ASGD``, ``Adafactor`` and ``LBFGS`` follow PyTorch's
single-array algorithms step for step (same formulas, same order of operations), so
from the same initial weights their trajectories equal PyTorch's up to rounding.
Updates run under ``no_grad`` and write each parameter in place with strided's in-place
methods. ``SparseAdam`` is there with PyTorch's checks; its ``step()`` refuses dense
gradients, as PyTorch's does, and strided has no other kind.
``Muon`` is PyTorch's, its bfloat16 Newton-Schulz steps computed in float32 and rounded to
bfloat16 after each one, as PyTorch's CPU kernels do (strided has no bfloat16 dtype).

>>> import strided.torch as torch
>>> w = torch.nn.Parameter(torch.tensor([2.0]))
>>> opt = torch.optim.SGD([w], lr=0.25)
>>> (w * w).sum().backward(); opt.step()
>>> w
Parameter containing:
tensor([1.], requires_grad=True)
"""

from . import lr_scheduler  # noqa: F401
from . import swa_utils  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .adafactor import Adafactor  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .muon import Muon  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .radam import RAdam  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .sgd import SGD  # noqa: F401
from .sparse_adam import SparseAdam  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "Rprop", "ASGD", "Adafactor", "LBFGS", "SparseAdam", "Muon", "lr_scheduler",
           "swa_utils"]
