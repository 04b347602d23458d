"""How a module of ``strided.torch`` that stands for a PyTorch module re-exports strided's objects.

PyTorch programs import modules (``from torch.autograd import Variable``,
``import torch.nn.modules.loss``), so each such PyTorch module is a real module file here
that imports the objects strided already has: the same objects as the attribute spelling
(``strided.torch.autograd.grad is strided.autograd.grad``). ``missing`` builds the module's
``__getattr__``: a name PyTorch's module has and strided's has not raises AttributeError
saying so (and ``from ... import name`` then raises ImportError with that message).
"""

from __future__ import annotations

import importlib


def missing(module: str, source: str | None = None, why: str = ""):
    """The PEP 562 ``__getattr__`` of ``module``: look ``name`` up on ``source`` (a module
    strided's objects live in), else raise AttributeError naming what strided.torch lacks."""

    def __getattr__(name: str):
        if source is not None and not name.startswith("__"):
            try:
                return getattr(importlib.import_module(source), name)
            except AttributeError:
                pass
        torch_name = "torch" + module[len("strided.torch"):]
        raise AttributeError(f"module {module!r} has no attribute {name!r}: strided.torch has no "
                             f"{torch_name}.{name}{why}")

    return __getattr__
