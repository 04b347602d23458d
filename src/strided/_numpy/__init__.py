"""NumPy as a neighbour: NumPy's extras beyond the standard and NumPy's protocols.

``nanfunctions`` (``nansum``, ``nanmean``, ...), ``numeric`` (``pad``,
``gradient``, ``ravel``: what Dask, Cubed and xarray call on their backend) and
``protocols`` (``__array__``, ``__array_ufunc__`` (NEP 13) and
``__array_function__`` (NEP 18): NumPy's functions and ufuncs on strided arrays
come back to strided's implementations). Built on ``_core`` and ``_api``.
"""
