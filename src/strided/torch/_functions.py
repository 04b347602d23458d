"""PyTorch's function semantics over strided's ops (placeholder).

The binding stage's PyTorch signatures (``max(x, 1)`` named tuples, unbiased
``std``/``var``, positional dims, PyTorch's aliases) are defined here by the
"bind" work of issue 37; ``strided.torch`` star-imports this module last, so
its names override the standard's.
"""

__all__: list = []
