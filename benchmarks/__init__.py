"""Benchmarks: strided side by side with NumPy, array-api-strict and PyTorch.

Run ``python benchmarks/run.py`` or ``python -m benchmarks`` (``--help`` for
options). This package imports nothing heavy at import time, so that
``benchmarks.run`` can pin the thread counts before NumPy is loaded.
"""
