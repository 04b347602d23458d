"""NumPy's ``numpy.lib`` helpers that code written for NumPy reaches through the
namespace (xarray's rolling windows call ``xp.lib.stride_tricks``); an extension
beyond the standard."""

from . import stride_tricks

__all__ = ["stride_tricks"]
