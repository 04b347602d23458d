"""Named dimensions: optional names on an array's dims, checked through every operation.

Give names at creation (``tensor(..., names=["channels"])``) or later
(``refine_names``, ``rename``); read them as ``x.names``. Every namespace
function and operator then checks and propagates names by a rule
(``RULES``): broadcasting unifies names from the right (None matches any
name), reductions drop the reduced names, indexing keeps the names of sliced
dims, ``matmul`` refuses to contract two differently named dims, and a name
is accepted wherever an axis is (``x.sum("channels")``). ``align`` and
``auto_align`` line arrays up by name, which PyTorch doesn't do.

This module plugs into dispatch the first time an array gets names; arrays
without names never reach it.

>>> import strided as xp
>>> img = xp.rand(3, 5, 5).refine_names("channels", "rows", "columns")
>>> w = xp.tensor([0.2126, 0.7152, 0.0722], names=["channels"])
>>> gray = (img * w.align_as(img)).sum("channels")
>>> gray.shape, gray.names
(strided.Size([5, 5]), ('rows', 'columns'))
"""

from __future__ import annotations

import contextlib
import inspect

from .._core.array import _CVIEWS, _LATE, Array
from .._core.dispatch import method_signature
from ._core import DimensionNameError, check_names, full_names, name_to_axis, names_of, renamed, tag
from ._handler import AUTO_ALIGN
from ._ops import (_SHAPES, align, align_as, align_to, flatten, refine_names, rename, set_names,
                   split_sizes, unflatten)
from ._ops import flatten as _ops_flatten
from ._rules import RULES, UNHOOKED
from ._xarray import from_xarray, to_xarray

__all__ = ["align", "auto_align", "refine_names", "rename", "align_to", "align_as", "flatten",
           "unflatten", "DimensionNameError", "RULES", "UNHOOKED", "to_xarray", "from_xarray"]


@contextlib.contextmanager
def auto_align(enabled: bool = True):
    """Within this context, binary elementwise operations line their operands up by name.

    Two named operands are aligned with ``align`` (permuted, with size-1 dims for the
    names one of them lacks) before broadcasting, instead of being matched by position.

    >>> import strided as xp
    >>> a = xp.ones(2, 3, names=["N", "C"])
    >>> b = xp.ones(3, 4, names=["C", "H"])
    >>> with xp.named.auto_align():
    ...     (a + b).names
    ('N', 'C', 'H')
    """
    token = AUTO_ALIGN.set(bool(enabled))
    try:
        yield
    finally:
        AUTO_ALIGN.reset(token)


# --- Array methods ------------------------------------------------------------------------

def _get_names(self) -> tuple:
    return full_names(self)


def _set_names(self, names) -> None:
    tag(self, None if names is None else check_names(names, self.ndim, "names"))


def _rename_(self, *names, **rename_map) -> Array:
    """In-place ``rename``: this array's names change; returns it."""
    tag(self, full_names(rename(self, *names, **rename_map)))
    return self


def _has_names(self) -> bool:
    """Whether any dimension is named."""
    return names_of(self) is not None


def _method(fn, doc):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = fn.__name__
    m.__doc__ = doc
    m.__signature__ = method_signature(fn)  # (the reference shows fn's parameters)
    return m


_plain_flatten = Array.flatten
_plain_unflatten = Array.unflatten


def _flatten_method(self, *args, **kwargs):
    """``x.flatten(start_dim, end_dim)``, or by name: ``x.flatten(dims, out_name)``."""
    if args and isinstance(args[0], (list, tuple)):
        return _ops_flatten(self, *args, **kwargs)
    return _plain_flatten(self, *args, **kwargs)


def _unflatten_method(self, dim, sizes):
    """Split ``dim`` into ``sizes``; ``(("C", 2), ("D", 3))`` names the new dims."""
    # (a dim given by name, a named array, and a tuple of plain ints, are told apart without
    # split_sizes: it builds three tuples; named.unflatten keeps its checked outcome per call,
    # which the compiled method answers from)
    e = self._ext
    if type(dim) is str or (e is not None and e.names is not None):
        return unflatten(self, dim, sizes)
    if type(sizes) is tuple:
        for s in sizes:
            if type(s) is not int:
                break
        else:
            return _plain_unflatten(self, dim, sizes)
    if split_sizes(sizes)[1] is not None:
        return unflatten(self, dim, sizes)
    return _plain_unflatten(self, dim, sizes)


Array.names = property(_get_names, _set_names, doc=(
    "The dimension names: one str or None per dimension (all None for an unnamed array). "
    "Assigning renames in place."))
Array.refine_names = _method(refine_names, refine_names.__doc__)
Array.rename = _method(rename, rename.__doc__)
Array.align_to = _method(align_to, align_to.__doc__)
if _CVIEWS is not None:
    # the compiled view paths (_chot.c): a named array's rename or refine_names seen before
    # (their outcome cached in _core.VIEW_NAMES) is answered in C
    Array.refine_names = _CVIEWS.View(Array.refine_names, _CVIEWS.RENAME, "refine_names")
    Array.rename = _CVIEWS.View(Array.rename, _CVIEWS.RENAME, "rename")
    Array.align_to = _CVIEWS.View(Array.align_to, _CVIEWS.ALIGN, "align_to")
Array.rename_ = _rename_
Array.align_as = _method(align_as, align_as.__doc__)
Array.has_names = _has_names
_flatten_method.__signature__ = method_signature(_plain_flatten)  # (PyTorch's form; names in the doc)
Array.flatten = _flatten_method
Array.unflatten = _unflatten_method
if _CVIEWS is not None:
    # the compiled view paths (_chot/views.c): flatten and unflatten by names of an untracked,
    # contiguous named array whose checked outcome _ops._SHAPES holds are answered in C
    # (method=True: an unnamed array's x.flatten(1, 2) / x.unflatten(1, (2, 3)) too, when
    # the result is a view of a contiguous x; views.c, view_flatten_plain)
    Array.flatten = _CVIEWS.View(_flatten_method, _CVIEWS.FLATTEN, _SHAPES, True)
    Array.unflatten = _CVIEWS.View(_unflatten_method, _CVIEWS.UNFLATTEN, _SHAPES, True)
    flatten = _CVIEWS.View(_ops_flatten, _CVIEWS.FLATTEN, _SHAPES)
    Array.flatten.__signature__ = _flatten_method.__signature__
    Array.unflatten.__signature__ = inspect.signature(_unflatten_method)
    flatten.__signature__ = inspect.signature(_ops_flatten)


# --- hooks the core and the other extensions call --------------------------------------------

_plain_view_dtype = _LATE["view_dtype"]


def _view_dtype(x, dtype):
    y = _plain_view_dtype(x, dtype)
    n = names_of(x)
    return tag(y, n) if n is not None else y


_LATE["set_names"] = set_names
_LATE["name_to_axis"] = name_to_axis
_LATE["view_dtype"] = _view_dtype


def _name_gradients() -> None:
    """``x.grad`` carries ``x``'s names.

    # Note: autograd's engine accumulates leaf gradients outside dispatch
    # (``clone`` of an alias), so the names are attached when ``.grad`` is read.
    """
    prop = Array.__dict__.get("grad")
    if not isinstance(prop, property) or getattr(prop.fget, "_named", False):
        return
    fget = prop.fget

    def get(self):
        g = fget(self)
        if type(g) is Array:
            n = self._ext.names
            if n is not None and g._shape == self._shape and names_of(g) != n:
                # A view of the gradient with x's names replaces it (the engine's
                # accumulation writes through it into the same memory): renaming ``g``
                # in place would rename an array the user assigned to ``x.grad``.
                g = self._ext.grad = renamed(g, n)
        return g

    get._named = True
    Array.grad = property(get, prop.fset, prop.fdel, prop.__doc__)


_name_gradients()


def _compiled_grad() -> None:
    """``x.grad`` read and set in C (``_chot.ViewProp``'s A_GRAD kind, _csrc/_chot/views.c):
    the property above (autograd's getter and setter behind ``get``) for an unnamed array's
    plain cases, its getter and setter for everything else (names, the non-leaf warning,
    the setter's checks and errors). STRIDED_NO_CEXT=1 keeps the property."""
    from .._core import array as _array_mod
    chot = _array_mod._CVIEWS
    prop = Array.__dict__.get("grad")
    if chot is None or not hasattr(chot, "A_GRAD") or type(prop) is not property \
            or not getattr(prop.fget, "_named", False):
        return
    Array.grad = chot.ViewProp(prop, chot.A_GRAD)
    Array.__dict__["grad"].__set_name__(Array, "grad")


_compiled_grad()
