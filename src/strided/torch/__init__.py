"""``import strided.torch as torch``: PyTorch's namespace over strided's arrays.

The same arrays, storages, autograd and kernels as ``strided``; only the
namespace differs. It holds strided's public names, PyTorch's spellings of
what PyTorch spells differently (``Tensor``, ``device``, ``dtype``,
``is_tensor``, ``cuda``, ``set_printoptions``), the subpackages ``nn``
(modules, ``nn.functional``, ``nn.init``) and ``optim``, and last PyTorch's
function semantics (``strided.torch._functions``: ``max(x, 1)`` returns values
and indices, ``std``/``var`` are unbiased), which override the standard's
functions of the same names. ``strided`` itself stays the standard's namespace.

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

from strided import *  # noqa: F401,F403
from strided import Array as _Array, Size, DType as dtype, Device as device  # noqa: F401
from strided import get_default_dtype as _get_default_dtype, empty as _empty
from strided import asarray as _asarray
from .._torch.repr import set_printoptions, get_printoptions  # noqa: F401

try:
    del annotations  # noqa: F821 - the star import's __future__ feature, not a PyTorch name
except NameError:
    pass


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
    dt = _get_default_dtype()
    if _builtins.len(args) == 0:
        return _empty(0, dtype=dt, device=dev)
    if _builtins.all(type(a) is _builtins.int for a in args) or (
            len(args) == 1 and isinstance(args[0], Size)):
        size = tuple(args[0]) if isinstance(args[0], Size) else args
        return _empty(*size, dtype=dt, device=dev)
    if len(args) > 1:
        raise TypeError(f"Tensor(): expected sizes (ints) or one sequence of data; got "
                        f"{', '.join(type(a).__name__ for a in args)}")
    data = args[0]
    if isinstance(data, _Array):
        if data.dtype != dt:
            raise TypeError(f"Tensor(): expected an array of dtype {dt.name} (the default "
                            f"float dtype); got {data.dtype.name}: use tensor.to({dt.name})")
        return data if dev is None else data.to(dev)
    return _asarray(data, dtype=dt, device=dev, copy=True)


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


from . import cuda  # noqa: E402,F401
from . import nn  # noqa: E402,F401
from . import optim  # noqa: E402,F401

# Last: PyTorch's function semantics override the standard's of the same names.
from ._functions import *  # noqa: E402,F401,F403
