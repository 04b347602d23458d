"""``strided.torch``: PyTorch's namespace over strided's arrays (``import strided.torch as torch``).

Placeholder of this branch: the "nn" helper's package (nn, nn.functional, optim, ...) replaces
this file at merge; it re-exports strided's namespace and then ``from ._functions import *``
so that PyTorch's function semantics (``_functions.py``) win.
"""

from strided import *  # noqa: F401,F403
from ._functions import *  # noqa: F401,F403
from ._functions import return_types  # noqa: F401
