"""The PyTorch-style surface over the standard's functions.

``methods`` (Array's torch-style methods and in-place ``op_`` forms),
``functions`` (torch-style namespace functions: ``cat``, ``clamp``, ...),
``random`` (``manual_seed``, ``rand``, ``randn``, ...) and ``repr`` (the
``tensor(...)`` printout). Built on ``strided._core`` and ``strided._api``.
"""
