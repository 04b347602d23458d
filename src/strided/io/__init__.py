"""strided's files: the native format (``strided.save`` / ``strided.load``) and HDF5.

- ``_native``: the native format's reader and writer and the safe loader
  (``strided.save``, ``strided.load``);
- ``_pickle``: pickle and ``copy`` support for arrays (Dask's and Cubed's
  chunks cross processes this way);
- ``_hdf5``: HDF5 files through h5py (install the ``hdf5`` extra:
  ``pip install strided[hdf5]``). ``save_hdf5`` writes one plain dataset per
  array, readable by h5py and any HDF5 tool, with dimension names stored as
  HDF5 dimension labels; ``load_hdf5`` reads arrays back; ``open_hdf5`` gives a
  lazy handle whose datasets read only the slice asked for::

      with strided.io.open_hdf5("points.h5") as f:
          last = f["coords"][-2:]   # reads two rows from disk
"""

from . import _pickle  # noqa: F401  (registers Array.__reduce__'s and copy's functions)
from ._hdf5 import (  # noqa: F401
    H5Dataset, H5File, H5Group, FormatError, RefusedError, load_hdf5, open_hdf5, save_hdf5)

__all__ = ["save_hdf5", "load_hdf5", "open_hdf5", "H5File", "H5Group", "H5Dataset",
           "FormatError", "RefusedError"]
