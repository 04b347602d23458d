"""A short tour of strided: storage, views, strides, NumPy sharing, arithmetic.

The tour itself ships inside the package (src/strided/_tour.py), so that
``python -m strided`` runs it from an installed wheel too; this script runs the same
tour from a checkout: ``python examples/tour.py``.
"""

from strided._tour import run

if __name__ == "__main__":
    run()
