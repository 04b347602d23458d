"""``python -m strided``: run the tour (strided/_tour.py, shipped inside the package)."""

from __future__ import annotations

import sys


def main() -> int:
    """Print the tour: storage, views, strides, NumPy sharing, arithmetic."""
    from strided._tour import run

    run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
