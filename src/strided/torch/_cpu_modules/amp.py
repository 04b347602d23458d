"""``import strided.torch.cpu.amp`` (PyTorch's deprecated ``torch.cpu.amp``): the same module
object as the attribute ``strided.torch.cpu.amp`` (``amp/_legacy.py``'s ``cpu_amp``), put in
this import's place."""

import sys

from ..amp._legacy import cpu_amp

sys.modules[__name__] = cpu_amp
