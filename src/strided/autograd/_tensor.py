"""Autograd's array API: ``requires_grad``, ``grad``, ``backward``, ``detach``, hooks, ..."""

from __future__ import annotations

import inspect
import warnings
import weakref

from .._core.array import _LATE, HOOK, Array, Ext
from .._core.caller import stacklevel
from .._core.dispatch import register_handler
from .._core.storage import Storage
from ._graph import ViewInfo, _Handle, _accumulate_into, alias, ext_of, refresh_view
from ._mode import STATE
from ._record import handler, init_elementwise_names

_INSTALLED = [False]


def install() -> None:
    """Register the dispatch handler (done the first time an array requires grad)."""
    if not _INSTALLED[0]:
        init_elementwise_names()
        register_handler(handler, priority=20)
        _INSTALLED[0] = True


def set_requires_grad(x: Array, flag: bool = True) -> Array:
    """Mark leaf ``x`` as requiring grad (or not); returns ``x``."""
    e = x._ext
    if e is not None and e.grad_fn is not None:
        if not flag:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
        return x
    if flag:
        if x._dtype.kind not in "fc":
            raise RuntimeError(f"only arrays of floating point and complex dtype can require gradients; "
                               f"got {x._dtype.name}")
        install()
        ext_of(x).requires_grad = True
    elif e is not None:
        e.requires_grad = False
    return x


def detach(x: Array) -> Array:
    """A new array sharing ``x``'s memory (and version counter) with no history."""
    a = alias(x)
    e = x._ext
    if e is not None and e.names is not None:
        ext_of(a).names = e.names
    return a


def _requires_grad(self) -> bool:
    e = self._ext
    return e is not None and e.requires_grad


def _is_leaf(self) -> bool:
    e = self._ext
    return e is None or e.grad_fn is None


def _grad_fn(self):
    e = self._ext
    if e is None:
        return None
    if type(e.is_view) is ViewInfo and e.requires_grad:
        refresh_view(self, e)
    return e.grad_fn


def _get_grad(self):
    e = self._ext
    if e is None:
        return None
    if e.grad_fn is not None and not e.retains_grad and e.grad is None:
        warnings.warn(
            "The .grad attribute of an array that is not a leaf is being accessed. Its .grad attribute "
            "won't be populated during backward(). Use .retain_grad() on the non-leaf array if you want "
            "its gradient, or access the leaf array instead.", UserWarning, stacklevel=stacklevel())
    return e.grad


def _set_grad(self, value):
    if value is not None:
        if type(value) is not Array:
            raise TypeError(f"assigned grad must be an array or None; got {type(value).__name__}")
        if value._shape != self._shape:
            raise RuntimeError(f"assigned grad has shape {value._shape}, but the array has shape {self._shape}")
        if value._dtype is not self._dtype:
            raise RuntimeError(f"assigned grad has dtype {value._dtype.name}, but the array has dtype "
                               f"{self._dtype.name}")
        if value._device is not self._device:
            raise RuntimeError(f"assigned grad is on {value._device}, but the array is on {self._device}")
    e = self._ext
    if e is None:
        if value is None:
            return
        e = ext_of(self)
    e.grad = value


def _requires_grad_(self, requires_grad: bool = True) -> Array:
    """Set ``requires_grad`` in place (leaves only) and return ``self``."""
    return set_requires_grad(self, requires_grad)


def _detach_(self) -> Array:
    """Detach ``self`` from its history in place: it becomes a leaf that does not require grad."""
    e = self._ext
    if e is None:
        return self
    if type(e.is_view) is ViewInfo:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    e.grad_fn = None
    e.output_nr = 0
    e.requires_grad = False
    return self


def _get_data(self) -> Array:
    # Note: like PyTorch, .data has its own version counter, so writes through it
    # are invisible to autograd's checks (here: a new Storage over the same memory).
    st, off, shape, strides = self._layout()
    nst = Storage(st._data, st.dtype, st.device)
    a = Array._new(self._np, nst, off, shape, strides, self._dtype, self._device)
    e = self._ext
    if e is not None and e.names is not None:
        ext_of(a).names = e.names
    return a


def _set_data(self, value) -> None:
    if type(value) is not Array:
        raise TypeError(f"data must be set to an array; got {type(value).__name__}")
    st, off, shape, strides = value._layout()
    self._np = value._np
    self._st, self._off, self._shape, self._str = st, off, shape, strides
    self._dtype = value._dtype
    self._device = value._device


def _register_hook(self, hook):
    """``hook(grad)`` runs when the gradient for this array is computed; a non-None result replaces it."""
    e = self._ext
    if e is None or not e.requires_grad:
        raise RuntimeError("cannot register a hook on an array that doesn't require gradient")
    if e.grad_fn is not None:
        return e.grad_fn._tensor_hook(e.output_nr, hook)
    if e.hooks is None:
        e.hooks = []
    e.hooks.append(hook)
    return _Handle(e.hooks, hook)


def _register_post_accumulate_grad_hook(self, hook):
    """``hook(leaf)`` runs after this leaf's ``.grad`` has been accumulated in a backward."""
    from ._graph import PostAccumulateHook
    e = self._ext
    if e is None or not e.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if e.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if e.hooks is None:
        e.hooks = []
    entry = PostAccumulateHook(hook)
    e.hooks.append(entry)
    return _Handle(e.hooks, entry)


def _retain_grad(self) -> None:
    """Keep the gradient of this non-leaf array in ``.grad`` after backward."""
    e = self._ext
    if e is None or not e.requires_grad:
        raise RuntimeError("can't retain_grad on an array that has requires_grad=False")
    if e.grad_fn is None or e.retains_grad:
        return
    e.retains_grad = True
    ref = weakref.ref(self)

    def retain(g):
        t = ref()
        if t is not None:
            _accumulate_into(t, g)

    node = e.grad_fn
    if node._retains is None:
        node._retains = {}
    node._retains[e.output_nr] = retain


def _retains_grad(self) -> bool:
    e = self._ext
    return e is not None and e.retains_grad


_backward_fn = None  # strided.autograd.backward (set by the package once it is defined)


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
    """Accumulate the gradient of this array into the ``.grad`` of the leaves it depends on."""
    _backward_fn(self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)


def _version(self) -> int:
    return self._layout()[0].version()


def _hooked_inplace(name, orig):
    """Route a core in-place method through dispatch when an argument carries metadata."""
    def method(self, *args, **kwargs):
        hook = HOOK[0]
        if hook is None or (self._ext is None and not any(
                type(a) is Array and a._ext is not None for a in args)):
            return orig(self, *args, **kwargs)
        hook(name, orig, (self,) + args, kwargs)
        return self
    method.__name__ = orig.__name__
    method.__doc__ = orig.__doc__
    method.__signature__ = inspect.signature(orig)  # (the reference shows orig's parameters)
    return method


def install_methods() -> None:
    # Note: zero_, fill_ and copy_ write through out_native without dispatch; wrapping
    # them here records them as in-place operations (PyTorch's ZeroBackward0, ...).
    for name in ("zero_", "fill_", "copy_"):
        setattr(Array, name, _hooked_inplace(name, getattr(Array, name)))
    Array.requires_grad = property(_requires_grad, lambda self, v: set_requires_grad(self, v),
                                   doc="Whether operations on this array are recorded for autograd.")
    Array.requires_grad_ = _requires_grad_
    Array.is_leaf = property(_is_leaf, doc="True for arrays not produced by a recorded operation.")
    Array.grad_fn = property(_grad_fn, doc="The node that produced this array (None for leaves).")
    Array.grad = property(_get_grad, _set_grad, doc="The accumulated gradient (leaves and retain_grad()).")
    Array.backward = _backward
    Array.detach = lambda self: detach(self)
    Array.detach.__doc__ = "A new array sharing this array's memory, without history."
    Array.detach_ = _detach_
    Array.data = property(_get_data, _set_data, doc="The array's data without its history (not recorded).")
    Array.register_hook = _register_hook
    Array.retain_grad = _retain_grad
    Array.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook
    Array.retains_grad = property(_retains_grad, doc="Whether ``retain_grad()`` was called on this non-leaf array.")
    Array._version = property(_version)
    Array.output_nr = property(lambda self: 0 if self._ext is None else self._ext.output_nr,
                               doc="Which output of its ``grad_fn`` this array is.")
    _LATE["set_requires_grad"] = set_requires_grad
    _LATE["detach"] = detach
    _LATE["grad_enabled"] = lambda: STATE.enabled
    _LATE["grad_state"] = STATE  # (the in-place operators' no_grad() path: _api/elementwise.py)
    from .._core.dispatch import CHOT
    if CHOT is not None:
        CHOT.setup_grad_state(STATE, Ext)  # (and its compiled case: _csrc/_chot/fast.c, unrecorded_target)
    from ._record import check_inplace
    _LATE["check_inplace"] = check_inplace  # (the write stage's leaf check: _core/call/write.py)
