"""``python -m strided``: run the tour (examples/tour.py of the source tree)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def main() -> int:
    """Run examples/tour.py, found beside the package in a source checkout."""
    tour = Path(__file__).resolve().parents[2] / "examples" / "tour.py"
    if not tour.is_file():
        print("strided: the tour ships with the source tree (examples/tour.py); "
              "install from a checkout with `pip install -e .` to run it", file=sys.stderr)
        return 1
    runpy.run_path(str(tour), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
