"""``import strided.torch.cuda.amp`` (PyTorch's deprecated ``torch.cuda.amp``): the same module
object as the attribute ``strided.torch.cuda.amp`` (``amp/_legacy.py``'s ``cuda_amp``), put in
this import's place."""

import sys

from ..amp._legacy import cuda_amp

sys.modules[__name__] = cuda_amp
