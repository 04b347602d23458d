"""Named dimensions to and from xarray: a strided array's names become a DataArray's dims.

xarray is optional: it is imported when one of these functions is called, never
when strided is. The data is shared both ways (no copy on the CPU).
"""

from __future__ import annotations

from .._core.array import Array

# tests/test_docs.py skips this module's examples when xarray is not installed.
__doctest_requires__ = ("xarray",)


def _xarray():
    try:
        import xarray
    except ImportError:
        raise ImportError("strided.named.to_xarray/from_xarray need xarray: "
                          "pip install xarray (or strided's 'scale' extra)") from None
    return xarray


def to_xarray(x, *, coords=None, name=None, attrs=None):
    """An ``xarray.DataArray`` over ``x``'s data, with ``x``'s dimension names as its dims.

    An unnamed dimension ``i`` becomes ``"dim_i"``, as xarray names them. The
    DataArray wraps an unnamed view of ``x`` (the same memory): xarray then owns
    the names, so its own renames, transposes and broadcasts never meet
    strided's name checks. ``coords``, ``name`` and ``attrs`` go to the
    DataArray. :func:`from_xarray` is the inverse. Needs xarray.

    >>> import strided as xp
    >>> x = xp.arange(6.0).reshape(2, 3).refine_names("time", "space")
    >>> d = xp.named.to_xarray(x, coords={"space": [10, 20, 30]})
    >>> d.dims, type(d.data).__name__, d.data.names
    (('time', 'space'), 'Array', (None, None))
    >>> d.sum("time").dims
    ('space',)
    """
    if not isinstance(x, Array):
        raise TypeError(f"to_xarray takes a strided array; got {type(x).__name__}")
    xr = _xarray()
    names = x.names
    dims = tuple(f"dim_{i}" if n is None else n for i, n in enumerate(names))
    data = x.rename(None) if any(n is not None for n in names) else x
    return xr.DataArray(data, dims=dims, coords=coords, name=name, attrs=attrs)


def from_xarray(da):
    """A strided array over an ``xarray.DataArray``'s data, named by its dims.

    The data is shared when it is a strided array or a NumPy array (on the CPU,
    in any layout); other array types go through ``strided.asarray``. Lazy data
    (dask, cubed) is refused: call ``.compute()`` first. Coordinates and
    attributes stay with xarray. Every dim must be a string, as strided's
    names are. Needs xarray.

    >>> import strided as xp
    >>> import xarray as xr
    >>> d = xr.DataArray(xp.ones(2, 3), dims=("y", "x"))
    >>> y = xp.named.from_xarray(d.transpose("x", "y"))
    >>> y.names, y.shape
    (('x', 'y'), strided.Size([3, 2]))
    """
    xr = _xarray()
    if isinstance(da, xr.Variable):
        dims, data = da.dims, da.data
    elif isinstance(da, xr.DataArray):
        dims, data = da.dims, da.data
    else:
        raise TypeError(f"from_xarray takes an xarray.DataArray or Variable; got {type(da).__name__}")
    for d in dims:
        if not isinstance(d, str):
            raise TypeError(f"from_xarray: dimension {d!r} is not a string; strided's names are strings")
    if not isinstance(data, Array):
        if hasattr(data, "compute") and hasattr(data, "chunks"):
            raise TypeError(f"from_xarray: the DataArray holds a lazy {type(data).__module__}."
                            f"{type(data).__name__}; call .compute() first")
        from .._api.creation import asarray

        data = asarray(data)
    return data.rename(*dims) if dims else data
