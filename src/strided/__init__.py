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

from ._core.dtypes import (  # noqa: E402
    DType, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, complex64, complex128,
    half, float, double, short, int, long, cfloat, cdouble,
    get_default_dtype, set_default_dtype,
)
from ._core.device import Device, get_default_device, set_default_device  # noqa: E402
from ._core.storage import Storage  # noqa: E402
from ._core.array import Array, Size  # noqa: E402
from ._core import backends as _backends  # noqa: E402,F401
from ._core.backends._numpy import numpy_backend as _numpy_backend  # noqa: E402
from ._core.device import register_backend as _register_backend  # noqa: E402

_register_backend("cpu", _numpy_backend)
from ._core.backends import _cupy as _cupy_backend  # noqa: E402

_register_backend("cuda", loader=_cupy_backend.load)
from ._core.device import default_device_from_env as _default_device_from_env  # noqa: E402

_default_device_from_env()

from ._api.elementwise import *  # noqa: E402,F401,F403
from ._api.creation import *  # noqa: E402,F401,F403
from ._api.views import *  # noqa: E402,F401,F403
from ._api.indexing import *  # noqa: E402,F401,F403
from ._api.manipulation import *  # noqa: E402,F401,F403
from ._api.searching import *  # noqa: E402,F401,F403
from ._api.sets import *  # noqa: E402,F401,F403
from ._api.sorting import *  # noqa: E402,F401,F403
from ._api.statistics import *  # noqa: E402,F401,F403
from ._api.utility import *  # noqa: E402,F401,F403
from ._api.data_type_functions import *  # noqa: E402,F401,F403
from ._api.linalg_functions import *  # noqa: E402,F401,F403
from .io._native import *  # noqa: E402,F401,F403
from ._api.info import __array_namespace_info__  # noqa: E402
# The PyTorch-style surface over the standard's functions (strided/torch/'s private modules:
# importing them attaches Array's torch-style methods; strided.torch itself reads nothing of
# this namespace until it is used, so it imports here, half-way through, without a cycle).
from .torch import _repr  # noqa: E402,F401
from .torch import _methods  # noqa: E402,F401
from .torch import _inplace_views  # noqa: E402,F401
from .torch._composites import *  # noqa: E402,F401,F403
from ._numpy.numeric import *  # noqa: E402,F401,F403
from ._numpy.nanfunctions import *  # noqa: E402,F401,F403
_methods.attach_late()  # (x.nansum(), x.nanmean(): methods over the functions just imported)
from ._numpy.histograms import *  # noqa: E402,F401,F403
from ._api import interop as _interop  # noqa: E402,F401
from ._numpy import protocols as _numpy_protocols  # noqa: E402,F401
from .torch._random import *  # noqa: E402,F401,F403
from . import linalg, fft, lib  # noqa: E402,F401
from . import io  # noqa: E402,F401
from ._core.pool import (  # noqa: E402,F401
    empty_cache, memory_stats, set_cache_limit, get_cache_limit, set_pool_threshold,
    get_pool_threshold)
from ._core.threads import (  # noqa: E402,F401
    set_num_threads, get_num_threads, set_thread_threshold, get_thread_threshold)

Tensor = Array

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None
from . import autograd  # noqa: E402,F401
from . import named  # noqa: E402,F401
# (after autograd: x.index_add_() and the other indexing methods; torch.<name>_(x) for Array's
# in-place methods, detach_ included)
# (the methods of _tensor_methods and _more_* first: _shape_functions makes torch.<name>_ of the
# in-place methods Array has; _tensor_methods' in-place forms, which refuse PyTorch's casts, first)
from .torch import _tensor_methods  # noqa: E402,F401  (x.erf(), x.erf_(): before torch.erf_ is made)
from .torch import _more_functions, _more_linalg, _more_special, _more_random, _more_settings  # noqa: E402,F401
from .torch import _shape_functions  # noqa: E402,F401
from .torch import _promotion as _torch_promotion  # noqa: E402  (last: it wraps the methods above)
_torch_promotion.install_methods()

# Pickle names a function or class by the module that defines it. Pickles written
# before the modules moved into layer folders (strided 0.1, 2026-11) name these four
# flat modules: they still load.
import sys as _sys  # noqa: E402

# Those written before ``_torch/`` moved into ``torch/`` (2026-11-28) name ``strided._torch.*``.
for _old, _new in (("_dtypes", _core.dtypes), ("_device", _core.device),
                   ("_storage", _core.storage), ("_serialization", io._pickle),
                   ("_torch", torch), ("_torch.methods", torch._methods),
                   ("_torch.functions", torch._composites), ("_torch.random", torch._random),
                   ("_torch.repr", torch._repr), ("_torch.inplace_views", torch._inplace_views)):
    _sys.modules.setdefault(f"strided.{_old}", _new)
del _sys, _old, _new

# The binding stage (src/strided/_core/call/bind.py): PyTorch's keywords (dim=, keepdim=,
# out=) where they mean what they mean in PyTorch, refused with a pointer to strided.torch
# where they would not; before the functions are quieted below.
from ._core.call.bind import install as _install_binders  # noqa: E402
from ._core.dispatch import with_out as _with_out  # noqa: E402

_install_binders(globals(), write=_with_out)
del _install_binders, _with_out

# Last, when every function and method is in place: strided's arithmetic reports no
# NumPy RuntimeWarning, whatever the user's warnings filters (see _dispatch.quiet).
from ._core.dispatch import quiet_entry_points as _quiet_entry_points  # noqa: E402

_quiet_entry_points(globals(), Array)
del _quiet_entry_points

# The compiled ``x.copy_(y)`` of an array of x's dtype and shape (_csrc/_chot/setitem.c,
# copy_same), ``x.zero_()`` and ``x.fill_(v)`` (fill_same), in front of the whole chain above (quiet, autograd's hook, the method): it
# answers only arrays without an extension, for which that chain is the method itself.
from ._core.array import _CVIEWS as _cv  # noqa: E402

if _cv is not None:
    Array.copy_ = _cv.View(Array.copy_, _cv.COPY)
    Array.zero_ = _cv.View(Array.zero_, _cv.ZERO)  # (and x.zero_(), x.fill_(v): fill_same)
    Array.fill_ = _cv.View(Array.fill_, _cv.FILL)
del _cv
