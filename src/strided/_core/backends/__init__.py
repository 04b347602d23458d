"""Backends: the only code that calls NumPy's or CuPy's kernels.

A backend is an object with the methods used by the core (see ``_numpy.py``):
allocation, building a native strided view from our metadata, turning a
fresh kernel result into a flat storage buffer, and host transfers. Kernels
are looked up by the standard's name through one rename table.
"""

# The standard's name -> the NumPy/CuPy name, where they differ.
RENAMES = {
    "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
    "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh",
    "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
    "bitwise_invert": "invert", "pow": "power", "concat": "concatenate",
    "permute_dims": "transpose", "cumulative_sum": "cumsum", "cumulative_prod": "cumprod",
}
