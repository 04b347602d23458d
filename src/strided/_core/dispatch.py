"""Dispatch helpers shared by every namespace function.

- ``api(name)``: decorator for non-elementwise functions. When no extension
  is active it costs one list lookup; when an input carries extension
  metadata (autograd, names) the installed hook runs the function.
- ``install_hook``: how an extension plugs in.
- ``quiet(fn)``: ``fn`` under NumPy's "ignore" error state, so that strided's
  own arithmetic never reports a RuntimeWarning (the standard specifies IEEE
  results, and PyTorch does not warn), even under a user's
  ``warnings.simplefilter("error")`` or ``pytest -W error``.
- Operand helpers: device checks, Python scalar handling; ``out=`` checks and
  writing into an existing array are the write stage's (``_core/call/write.py``),
  re-exported here.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types

import numpy as np

from . import _npcompat, cext as _cext, dtypes as _dtypes, spellings as _spellings
from .array import _LATE, HOOK, Array
from .device import Device
from .storage import Storage
from .call import adopt as _adopt, write as _write  # noqa: F401  (adopt: registers its hook)


def _load_chot():
    """The compiled hot path (strided/_csrc/_chot.c), or None: not built, or STRIDED_NO_CEXT=1."""
    _chot = _cext.load("_chot")
    if _chot is None:
        return None
    _chot.setup_array(Array, _dtypes.DType, Storage, Device)  # (done by _array already: the same classes)
    return _chot


CHOT = _load_chot()


def _errstate():
    """NumPy's ufunc error-state context variable and its value under
    ``np.errstate(all="ignore")``, or (None, None) for a NumPy without one."""
    var = _npcompat.errstate_var()
    if var is None:
        return None, None
    with np.errstate(all="ignore"):
        return var, var.get()


# Note: a module-level warnings filter (_elementwise) is not enough: a user's
# simplefilter("error") or catch_warnings() puts its own filter in front of it.
ERRSTATE, QUIET = _errstate()


def quiet(fn):
    """``fn`` run under NumPy's "ignore" error state (the outermost call sets it,
    nested calls find it set): no floating-point RuntimeWarning from strided's
    kernels. Compiled, the setting costs ~40 ns a call (``_chot``'s K_QUIET)."""
    if ERRSTATE is None:  # a NumPy without the variable (_npcompat): np.errstate, ~1 us a call
        return _quiet_errstate(fn)
    if CHOT is not None:
        fast = CHOT.Fast(fn, 5)
        fast.__dict__.update(getattr(fn, "__dict__", {}))
        return fast
    get, set_, reset = ERRSTATE.get, ERRSTATE.set, ERRSTATE.reset

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if get() is QUIET:
            return fn(*args, **kwargs)
        token = set_(QUIET)
        try:
            return fn(*args, **kwargs)
        finally:
            reset(token)

    return run


def _quiet_errstate(fn):
    """``quiet``'s fallback: ``fn`` under ``np.errstate(all="ignore")``."""
    if getattr(fn, "_quiet_errstate", False):
        return fn

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    run._quiet_errstate = True
    return run


# Entry points with no floating-point arithmetic of their own (metadata, views, the
# autograd and names bookkeeping): left bare, they are called often.
_BARE = frozenset("""
    stride storage_offset storage untyped_storage is_contiguous numel dim ndimension
    element_size data_ptr is_floating_point is_complex has_names item tolist numpy
    t transpose swapaxes swapdims view expand expand_as view_as reshape_as squeeze flatten
    unflatten narrow unfold split chunk unbind movedim moveaxis permute_dims diagonal
    to_device cpu cuda requires_grad_ register_hook retain_grad detach detach_
    refine_names rename rename_ align_to align_as broadcast_to broadcast_shapes unsqueeze
    finfo iinfo isdtype can_cast result_type is_grad_enabled memory_stats empty_cache
    get_num_threads set_num_threads get_thread_threshold set_thread_threshold
    get_cache_limit set_cache_limit get_pool_threshold set_pool_threshold
    get_default_device set_default_device get_default_dtype set_default_dtype""".split())
# The object protocol: construction, attribute access, printing, hashing, copying,
# pickling, iteration and indexing (views); none computes.
_STRUCTURAL = frozenset("""
    __new__ __init__ __del__ __getattr__ __getattribute__ __setattr__ __delattr__ __dir__
    __repr__ __str__ __format__ __hash__ __sizeof__ __len__ __iter__ __reversed__ __contains__
    __getitem__ __reduce__ __reduce_ex__ __getstate__ __setstate__ __copy__ __deepcopy__
    __init_subclass__ __subclasshook__ __class_getitem__ __array_namespace__ __dlpack_device__
    __set_name__""".split())
# The operators and functions generated from ``ROWS`` run their kernels under the quiet
# state themselves (a wrapper would add the frame their temporary elision looks at).
_SELF_QUIETED = "strided._api.elementwise"


def quiet_entry_points(namespace: dict, cls: type) -> None:
    """Put ``quiet`` in front of every public function of the namespace and every method
    and operator of ``cls`` that is a plain Python function, except the bare ones above:
    the rule is "every entry point runs quiet" on both paths, with nothing to list when
    a module or a dunder is added. (``api`` functions and compiled ``Fast`` entry points
    are quiet already and are not plain functions; ``quiet`` of a quiet function only
    costs a check.)"""
    for name, v in list(namespace.items()):
        if (not name.startswith("_") and type(v) is types.FunctionType and name not in _BARE
                and v.__module__ != _SELF_QUIETED and not hasattr(v, "_api_name")):
            q = namespace[name] = quiet(v)
            module = sys.modules.get(v.__module__)
            if module is not None and getattr(module, name, None) is v:
                setattr(module, name, q)  # (pickled by reference: found where it's defined)
    for name, v in list(vars(cls).items()):
        if type(v) is not types.FunctionType or name in _BARE or name in _STRUCTURAL:
            continue
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue  # private helpers
        if name.startswith("__") and v.__module__ == _SELF_QUIETED:
            continue
        setattr(cls, name, quiet(v))

__all__ = ["api", "quiet", "register_handler", "has_ext", "check_devices", "write_out", "check_out"]

_SCALARS = (bool, int, float, complex)


_HANDLERS: list = []  # (priority, handler), lowest priority runs first (outermost)


def register_handler(handler, priority: int) -> None:
    """Plug an extension into dispatch.

    ``handler(name, impl, args, kwargs, call_next)`` runs for an operation
    whose inputs carry extension metadata (``array._ext is not None``). It
    must call ``call_next(name, impl, args, kwargs)`` (which runs the next
    handler, or finally ``impl(*args, **kwargs)``) and may inspect or
    replace the result. Named dimensions use priority 10, autograd 20.
    The core's hot path pays nothing until the first handler is registered.

    A handler may carry ``handler.entry(call_next)``, a factory of its own link
    (``link(name, impl, args, kwargs)``) that binds ``call_next`` once: its
    common case then runs without the generic link's extra frame.
    """
    if any(h is handler for _, h in _HANDLERS):
        return
    _HANDLERS.append((priority, handler))
    _HANDLERS.sort(key=lambda ph: ph[0])
    # The chain is linked once here: each link calls its handler with the next link
    # as ``call_next`` (no closure built per call).
    chain = _run_impl
    for _, h in reversed(_HANDLERS):
        entry = getattr(h, "entry", None)
        chain = entry(chain) if entry is not None else _link(h, chain)
    HOOK[0] = _standard_keywords(chain)


# ``fn`` taking PyTorch's keyword spellings of namespace function ``name`` (_core/spellings.py)
accept_torch_keywords = _spellings.accepting


def _standard_keywords(chain):
    """The chain's head: PyTorch's keyword spellings (``dim=``; _core/spellings.py) given
    to a namespace function reach the extensions as the standard's (``axis=``)."""
    spelled = _spellings.TORCH_KEYWORDS
    translate = _spellings.translate

    def head(name, impl, args, kwargs):
        if kwargs and name in spelled:
            kwargs = translate(name, kwargs)
        return chain(name, impl, args, kwargs)
    return head


def _run_impl(name, impl, args, kwargs):
    return impl(*args, **kwargs)


def _link(handler, call_next):
    def link(name, impl, args, kwargs):
        return handler(name, impl, args, kwargs, call_next)
    return link


def has_ext(args, kwargs=None) -> bool:
    for a in args:
        t = type(a)
        if t is Array:
            if a._ext is not None:
                return True
        elif t is list or t is tuple:
            for b in a:
                if type(b) is Array and b._ext is not None:
                    return True
    if kwargs:
        for a in kwargs.values():
            if type(a) is Array and a._ext is not None:
                return True
    return False


def api(name: str):
    """Mark ``fn`` as the namespace function ``name`` (hookable by extensions)."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if ERRSTATE is not None and ERRSTATE.get() is not QUIET:
                token = ERRSTATE.set(QUIET)
                try:
                    return wrapper(*args, **kwargs)
                finally:
                    ERRSTATE.reset(token)
            hook = HOOK[0]
            if hook is not None:
                # has_ext, inlined for the common first argument (one call less per op)
                for a in args:
                    t = type(a)
                    if t is Array:
                        if a._ext is not None:
                            return hook(name, fn, args, kwargs)
                    elif t is tuple or t is list:
                        for b in a:
                            if type(b) is Array and b._ext is not None:
                                return hook(name, fn, args, kwargs)
                if kwargs:
                    for a in kwargs.values():
                        if type(a) is Array and a._ext is not None:
                            return hook(name, fn, args, kwargs)
            return fn(*args, **kwargs)

        wrapper._impl = fn
        wrapper._api_name = name
        if CHOT is not None:
            # The same wrapper compiled: the hook test in C, the call passed on as it came
            # (under the "ignore" error state, as above).
            fast = CHOT.Fast(fn, 0, hook=HOOK, name=name)
            fast.__dict__.update(wrapper.__dict__)
            return fast if ERRSTATE is not None else quiet(fast)
        return wrapper if ERRSTATE is not None else quiet(wrapper)

    return deco


def method_signature(fn, **replace) -> inspect.Signature:
    """``fn``'s signature with its first parameter named ``self``: the signature of a method
    that forwards to namespace function ``fn`` (``x.matmul(y)`` is ``matmul(x, y)``), so that
    a generated method shows its real parameters, not ``(*args, **kwargs)``. ``replace``
    renames more parameters (``x2="other"``)."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    if params and params[0].kind in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        params[0] = params[0].replace(name="self")
    params = [p.replace(name=replace.get(p.name, p.name)) for p in params]
    return sig.replace(parameters=params)


def check_devices(func: str, *arrays) -> Device:
    dev = None
    for a in arrays:
        if type(a) is Array:
            if dev is None:
                dev = a._device
            elif a._device is not dev:
                raise ValueError(
                    f"{func}(): arrays are on different devices, {dev} and {a._device}; "
                    f"move one with to_device()")
    return dev


# The out=/in-place writer lives in the call pipeline's write stage (_core/call/write.py),
# the only code that writes into user memory; the old names stay for their callers.
check_out = _write.check_out
out_native = _write.target
write_out = _write.write_out
write_into = _write.write_into

