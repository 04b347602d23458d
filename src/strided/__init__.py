"""strided: an Array API standard namespace over its own strided storage.

``import strided as xp`` gives the complete namespace of the Python Array API
standard (2025.12) with the ``linalg`` and ``fft`` extensions; arrays are
views (storage, offset, shape, strides) in PyTorch's model, with torch-style
methods, in-place operations and ``out=`` on top.
"""

from __future__ import annotations

import math as _math

__array_api_version__ = "2025.12"
__version__ = "0.1.0"

from ._dtypes import (  # noqa: E402
    DType, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, complex64, complex128,
    half, float, double, short, int, long, cfloat, cdouble,
    get_default_dtype, set_default_dtype,
)
from ._device import Device, get_default_device, set_default_device  # noqa: E402
from ._storage import Storage  # noqa: E402
from ._array import Array, Size  # noqa: E402
from . import _backends  # noqa: E402,F401
from ._backends._numpy import numpy_backend as _numpy_backend  # noqa: E402
from ._device import register_backend as _register_backend  # noqa: E402

_register_backend("cpu", _numpy_backend)
from ._backends import _cupy as _cupy_backend  # noqa: E402

_register_backend("cuda", loader=_cupy_backend.load)
from ._device import default_device_from_env as _default_device_from_env  # noqa: E402

_default_device_from_env()

from ._elementwise import *  # noqa: E402,F401,F403
from ._creation import *  # noqa: E402,F401,F403
from ._views import *  # noqa: E402,F401,F403
from ._indexing import *  # noqa: E402,F401,F403
from ._manipulation import *  # noqa: E402,F401,F403
from ._searching import *  # noqa: E402,F401,F403
from ._sets import *  # noqa: E402,F401,F403
from ._sorting import *  # noqa: E402,F401,F403
from ._statistics import *  # noqa: E402,F401,F403
from ._utility import *  # noqa: E402,F401,F403
from ._data_type_functions import *  # noqa: E402,F401,F403
from ._linalg_functions import *  # noqa: E402,F401,F403
from ._serialization import *  # noqa: E402,F401,F403
from ._info import __array_namespace_info__  # noqa: E402
from . import _repr  # noqa: E402,F401
from . import _methods  # noqa: E402,F401
from ._torch_functions import *  # noqa: E402,F401,F403
from ._numeric import *  # noqa: E402,F401,F403
from ._nanfunctions import *  # noqa: E402,F401,F403
from . import _interop  # noqa: E402,F401
from . import _numpy_protocols  # noqa: E402,F401
from ._random import *  # noqa: E402,F401,F403
from . import linalg, fft, lib  # noqa: E402,F401
from . import io  # noqa: E402,F401
from ._pool import (  # noqa: E402,F401
    empty_cache, memory_stats, set_cache_limit, get_cache_limit, set_pool_threshold,
    get_pool_threshold)
from ._threads import (  # noqa: E402,F401
    set_num_threads, get_num_threads, set_thread_threshold, get_thread_threshold)

Tensor = Array

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None
from . import autograd  # noqa: E402,F401
from . import named  # noqa: E402,F401

# Last, when every function and method is in place: strided's arithmetic reports no
# NumPy RuntimeWarning, whatever the user's warnings filters (see _dispatch.quiet).
from ._dispatch import quiet_entry_points as _quiet_entry_points  # noqa: E402

_quiet_entry_points(globals(), Array)
del _quiet_entry_points
