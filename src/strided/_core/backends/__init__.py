"""Backends: the only code that calls NumPy's or CuPy's kernels.

A backend is an object with the methods used by the core (see ``_numpy.py``):
allocation, building a native strided view from our metadata, turning a
fresh kernel result into a flat storage buffer, and host transfers. Kernels
are looked up by the standard's name through one rename table.
"""

# The standard's name -> the NumPy/CuPy name, where they differ. The elementwise rows
# add theirs from their ``numpy`` column (_api/elementwise.py) when the registry is built.
RENAMES = {
    "concat": "concatenate", "permute_dims": "transpose", "cumulative_sum": "cumsum",
    "cumulative_prod": "cumprod",
}
