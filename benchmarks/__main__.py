"""``python -m benchmarks``: the same as ``python benchmarks/run.py``."""

from benchmarks.run import main  # pins thread counts before NumPy is imported

raise SystemExit(main())
