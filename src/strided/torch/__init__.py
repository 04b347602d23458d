"""``import strided.torch as torch``: PyTorch's namespace over strided's arrays.

The same arrays, storages, autograd and kernels as ``strided``; only the
namespace differs. It holds strided's public names, PyTorch's spellings of
what PyTorch spells differently (``Tensor``, ``device``, ``dtype``,
``is_tensor``, ``cuda``, ``set_printoptions``), the subpackages ``nn``
(modules, ``nn.functional``, ``nn.init``) and ``optim``, and last PyTorch's
function semantics (``strided.torch._functions``: ``max(x, 1)`` returns values
and indices, ``std``/``var`` are unbiased), which override the standard's
functions of the same names. ``strided`` itself stays the standard's namespace.

Its private modules are strided's PyTorch-style surface, which ``strided`` itself
imports: ``_methods`` (Array's torch-style methods and ``op_`` forms),
``_composites`` (torch-style namespace functions: ``cat``, ``clamp``, ...),
``_random`` (``manual_seed``, ``rand``, ...), ``_inplace_views`` (``unsqueeze_``,
``t_``, ...) and ``_repr`` (the ``tensor(...)`` printout).

Invariants: every array this namespace makes is a ``strided.Array``
(``isinstance(x, torch.Tensor)`` is true for exactly those); nothing here
copies or wraps an array to change its meaning.

>>> import strided.torch as torch
>>> x = torch.zeros(2, 3)
>>> isinstance(x, torch.Tensor), x.dtype == torch.float32
(True, True)
"""

from __future__ import annotations

import builtins as _builtins
import importlib as _importlib
import sys as _sys

from .._core.array import Array as _Array, Size  # noqa: F401
from .._core.dtypes import DType as dtype  # noqa: F401
from .._core.device import Device as device  # noqa: F401
from ._repr import set_printoptions, get_printoptions  # noqa: F401
from ._stft import stft, istft  # noqa: F401
from ._memory_format import (memory_format, contiguous_format, preserve_format,  # noqa: F401
                             channels_last, channels_last_3d)

# How this package reads strided's namespace (DESIGN, fourth round, "the PyTorch surface
# lives in one folder"): ``strided/__init__`` imports this package's private modules
# (``_methods``, ``_composites``, ``_random``, ``_repr``, ``_inplace_views``) half-way
# through its own initialisation, which runs this file first. So nothing here reads
# ``strided``'s namespace at import time: a name not defined here is looked up on first
# use (PEP 562 ``__getattr__`` below) -- PyTorch's function semantics (``_functions``)
# first, then strided's public names -- and cached in this module's globals. ``nn``,
# ``optim`` and ``cuda`` are imported on first use too; ``__all__`` (what
# ``from strided.torch import *`` takes) and ``dir()`` are computed when asked.
_SUBMODULES = ("nn", "optim", "cuda", "special", "utils", "testing", "random", "backends", "linalg", "fft",
               "distributions", "amp", "cpu", "func", "jit", "accelerator", "distributed",
               "autograd", "functional", "serialization", "types", "__future__")
_FROM_SUBMODULE = {"autocast": "amp.autocast_mode", "is_autocast_enabled": "amp.autocast_mode",
                   "get_autocast_dtype": "amp.autocast_mode"}  # top-level names defined there
# (names that would shadow a builtin or a common name inside _functions: range, layout, strided)
_FROM_SUBMODULE.update({n: "_layouts" for n in ("layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc",
                                                 "sparse_bsr", "sparse_bsc", "jagged")})
_FROM_SUBMODULE.update({n: "_more_names" for n in ("range", "fill", "embedding", "bilinear", "nonzero_static",
                                                    "cond", "is_inference", "set_warn_always",
                                                    "is_warn_always_enabled", "init_num_threads")})
_FROM_SUBMODULE.update({n: "_math_names" for n in (
    "solve", "lstsq", "eig", "symeig", "matrix_rank", "histogramdd", "svd_lowrank", "pca_lowrank", "lobpcg", "geqrf",
    "orgqr", "ormqr", "native_layer_norm", "native_batch_norm", "native_group_norm", "native_dropout",
    "native_norm", "convolution", "ctc_loss", "embedding_bag", "unsafe_split_with_sizes")})
_FROM_SUBMODULE.update({n: "_entry_names" for n in (
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
    "ByteTensor", "BoolTensor", "set_default_tensor_type", "GradScaler", "get_device_module", "empty_permuted",
    "set_autocast_enabled", "set_autocast_dtype", "get_autocast_cpu_dtype", "set_autocast_cpu_enabled",
    "is_autocast_cpu_enabled", "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
    "clear_autocast_cache", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
    "autocast_increment_nesting", "autocast_decrement_nesting", "set_anomaly_enabled")})
_LOADED = []  # [the names of _functions] once loaded


def _strided():
    return _sys.modules["strided"]


def _functions_names() -> list:
    """Load PyTorch's function semantics (``_functions``) into this namespace, once:
    they override the standard's functions of the same names."""
    if not _LOADED:
        from . import _functions
        g = globals()
        for n in _functions.__all__:
            g[n] = getattr(_functions, n)
        # (PyTorch's promotion of 0-d operands for the functions of several tensors)
        from . import _promotion
        _promotion.install_functions(g, lambda n: getattr(_strided(), n))
        # (PyTorch's parameter names, ``torch.matmul(input=a, other=b)``: _keyword_names)
        # (and for Array's methods, ``x.view(size=(2, 3))``: here, once every module of this
        # namespace has attached its methods, and not at ``import strided``, whose standard
        # namespace does not need them)
        from . import _keyword_names
        _keyword_names.install(g, _keyword_names.FUNCTIONS, __name__)
        _keyword_names.install_methods(_Array)
        _LOADED.append(list(_functions.__all__))
    return _LOADED[0]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    if name == "__all__":
        return _all()
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in _FROM_SUBMODULE:
        # (PyTorch's parameter names given once, in the submodule that defines the name)
        module = _importlib.import_module(f"{__name__}.{_FROM_SUBMODULE[name]}")
        value = getattr(module, name)
        new = _named(name, value)
        if new is not value:
            setattr(module, name, new)
        return new
    _functions_names()
    g = globals()
    if name in g:
        return g[name]
    try:
        value = getattr(_strided(), name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    g[name] = value = _named(name, value)
    return value


def _named(name: str, value):
    """``value`` (strided's ``name``) taking PyTorch's parameter names (_keyword_names)."""
    from ._keyword_names import FUNCTIONS, named
    overloads = FUNCTIONS.get(name)
    if overloads is None:
        return value
    new = named(name, value, overloads)
    if new is not value:
        new.__module__, new.__qualname__ = __name__, name
    return new


def _public_of_strided() -> list:
    st = _strided()
    names = getattr(st, "__all__", None)
    if names is None:
        names = [n for n in vars(st) if not n.startswith("_")]
    return [n for n in names if n not in ("annotations", "torch")]


def _all() -> list:
    own = [n for n in globals() if not n.startswith("_")]
    # (not "random" nor "types": ``from strided.torch import *`` must not shadow Python's modules;
    # torch.__all__ has no "functional" or "__future__" either)
    # (nor the layout objects, as torch.__all__ has none: ``strided`` would shadow the package)
    return sorted((set(_public_of_strided()) | set(own) | set(_functions_names()) | set(_SUBMODULES)
                   | set(_FROM_SUBMODULE)) - {"random", "types", "functional", "__future__", "strided",
                                              "sparse_coo", "sparse_csr", "sparse_csc",
                                              "sparse_bsr", "sparse_bsc", "jagged"})


def __dir__() -> list:
    return sorted(set(globals()) | set(_all()))


class _TensorType(type):
    """The metaclass of ``Tensor``: strided's arrays are its instances."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, _Array)

    def __subclasscheck__(cls, sub) -> bool:
        return isinstance(sub, type) and issubclass(sub, _Array)

    def __getattr__(cls, name):
        # ``torch.Tensor.add(x, y)``: the unbound methods are Array's.
        return getattr(_Array, name)

    def __call__(cls, *args, device=None):
        return _legacy_tensor(args, device)


def _legacy_tensor(args, dev):
    st = _strided()
    dt = st.get_default_dtype()
    if _builtins.len(args) == 0:
        return st.empty(0, dtype=dt, device=dev)
    if _builtins.all(type(a) is _builtins.int for a in args) or (
            len(args) == 1 and isinstance(args[0], Size)):
        size = tuple(args[0]) if isinstance(args[0], Size) else args
        return st.empty(*size, dtype=dt, device=dev)
    if len(args) > 1:
        raise TypeError(f"Tensor(): expected sizes (ints) or one sequence of data; got "
                        f"{', '.join(type(a).__name__ for a in args)}")
    data = args[0]
    if isinstance(data, _Array):
        if data.dtype != dt:
            raise TypeError(f"Tensor(): expected an array of dtype {dt.name} (the default "
                            f"float dtype); got {data.dtype.name}: use tensor.to({dt.name})")
        return data if dev is None else data.to(dev)
    return st.asarray(data, dtype=dt, device=dev, copy=True)


class Tensor(metaclass=_TensorType):
    """PyTorch's ``torch.Tensor``: the type of strided's arrays, and its legacy constructor.

    ``isinstance(x, torch.Tensor)`` is true for every ``strided.Array``;
    ``torch.Tensor([1, 2])`` copies data into the default float dtype (float32),
    ``torch.Tensor(2, 3)`` is an uninitialised 2x3 array of that dtype, and
    ``torch.Tensor.add`` is ``Array.add``.

    >>> import strided.torch as torch
    >>> torch.Tensor([1, 2])
    tensor([1., 2.])
    >>> torch.Tensor(2, 3).shape
    strided.Size([2, 3])
    """


def is_anomaly_enabled() -> bool:
    """Whether autograd's anomaly detection is on (``torch.autograd.set_detect_anomaly``).

    >>> import strided.torch as torch
    >>> torch.is_anomaly_enabled()
    False
    """
    from ..autograd.anomaly_mode import is_anomaly_enabled as f
    return f()


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks gradients for NaN.

    >>> import strided.torch as torch
    >>> torch.is_anomaly_check_nan_enabled()
    True
    """
    from ..autograd.anomaly_mode import is_anomaly_check_nan_enabled as f
    return f()


def is_tensor(obj) -> bool:
    """True when ``obj`` is a strided array (PyTorch's ``torch.is_tensor``).

    >>> import strided.torch as torch
    >>> torch.is_tensor(torch.ones(2)), torch.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, _Array)


def is_floating_point(x) -> bool:
    """True when ``x``'s dtype is a real floating-point type.

    >>> import strided.torch as torch
    >>> torch.is_floating_point(torch.ones(2)), torch.is_floating_point(torch.arange(2))
    (True, False)
    """
    return x.is_floating_point()


def is_complex(x) -> bool:
    """True when ``x``'s dtype is complex.

    >>> import strided.torch as torch
    >>> torch.is_complex(torch.ones(2))
    False
    """
    return x.is_complex()


del annotations  # (the __future__ feature, not a PyTorch name)
