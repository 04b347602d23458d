"""The PyTorch-style surface over the standard's functions.

``methods`` (Array's torch-style methods and in-place ``op_`` forms),
``functions`` (torch-style namespace functions: ``cat``, ``clamp``, ...),
``random`` (``manual_seed``, ``rand``, ``randn``, ...), ``inplace_views``
(``unsqueeze_``, ``t_``, ``addcmul_``, ...) and ``repr`` (the
``tensor(...)`` printout). Built on ``strided._core`` and ``strided._api``.
"""

from . import inplace_views  # noqa: E402,F401  (Array's in-place view methods)
